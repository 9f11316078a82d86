//! Expectations come from the eviction API (kubernetes `pkg/registry/core/pod/storage/eviction.go`
//! `checkAndDecrement`: an eviction passes while `status.disruptionsAllowed > 0`, and a pod
//! selected by several PDBs is refused) and the disruption controller's finders (kubernetes
//! `pkg/controller/disruption/disruption.go`: a ReplicaSet's Deployment is the workload).

use std::collections::BTreeSet;

use jiff::SignedDuration;
use serde_json::{json, Value};

use super::{impact, PdbEffect, StartupSource, WorkloadImpact};
use crate::audit::fixtures::{cluster, deployment, pdb, pod, pod_in, NS};
use crate::audit::Severity;
use crate::snapshot::Snapshot;

const DEFAULT: SignedDuration = SignedDuration::from_secs(60);

fn run(docs: Vec<Value>, nodes: &[&str]) -> Vec<WorkloadImpact> {
    let snapshot = Snapshot::from_documents(docs).unwrap();
    let nodes: BTreeSet<String> = nodes.iter().map(|n| (*n).to_owned()).collect();
    impact(&snapshot, &nodes, DEFAULT)
}

/// The seed incident: one replica behind `maxUnavailable: 1` goes to zero.
#[test]
fn single_replica_behind_max_unavailable_one_goes_to_zero() {
    let mut docs = cluster(None);
    docs.extend(deployment("web", 1));
    docs.push(pod("web-1", "web", "node-a"));
    docs.push(pdb("web", "web", &json!({"maxUnavailable": 1}), [1, 1, 0, 1]));
    let out = run(docs, &["node-a"]);
    assert_eq!(out.len(), 1);
    let web = &out[0];
    assert_eq!(web.key(), "Deployment/ns/web", "owner resolved through the ReplicaSet");
    assert_eq!((web.pods.len(), web.replicas, web.ready, web.ready_elsewhere), (1, 1, 1, 0));
    assert_eq!(web.pdb, PdbEffect::Allows { pdb: "ns/web".into(), rule: "maxUnavailable: 1".into(), allowed: 1 });
    assert!(web.pdb_lets_all_go && web.zero_ready);
    assert_eq!(web.severity, Severity::Critical);
    assert_eq!(web.startup.source, StartupSource::Default);
    assert_eq!(web.downtime, Some(DEFAULT));
}

#[test]
fn a_replica_ready_elsewhere_keeps_the_workload_up() {
    let mut docs = cluster(None);
    docs.extend(deployment("web", 2));
    docs.push(pod("web-1", "web", "node-a"));
    docs.push(pod("web-2", "web", "node-b"));
    docs.push(pdb("web", "web", &json!({"maxUnavailable": 1}), [2, 2, 1, 1]));
    let web = &run(docs, &["node-a"])[0];
    assert_eq!((web.pods.len(), web.replicas, web.ready_elsewhere), (1, 2, 1));
    assert!(!web.zero_ready && web.downtime.is_none());
    assert_eq!(web.severity, Severity::Info);
}

#[test]
fn a_budget_allowing_nothing_refuses_and_never_reaches_zero() {
    let mut docs = cluster(None);
    docs.extend(deployment("web", 1));
    docs.push(pod("web-1", "web", "node-a"));
    docs.push(pdb("web", "web", &json!({"minAvailable": 1}), [1, 1, 1, 0]));
    let web = &run(docs, &["node-a"])[0];
    assert!(!web.pdb_lets_all_go && !web.zero_ready);
    assert_eq!(web.severity, Severity::Warning);
}

#[test]
fn two_replicas_on_one_node_with_one_allowed_are_drained_in_turns() {
    let mut docs = cluster(None);
    docs.extend(deployment("web", 2));
    docs.push(pod("web-1", "web", "node-a"));
    docs.push(pod("web-2", "web", "node-a"));
    docs.push(pdb("web", "web", &json!({"maxUnavailable": 1}), [2, 2, 1, 1]));
    let web = &run(docs, &["node-a"])[0];
    assert!(!web.pdb_lets_all_go && !web.zero_ready, "the eviction API lets one go, then waits");
    assert_eq!(web.severity, Severity::Warning);
}

#[test]
fn no_budget_lets_a_single_replica_go() {
    let mut docs = cluster(None);
    docs.extend(deployment("web", 1));
    docs.push(pod("web-1", "web", "node-a"));
    let web = &run(docs, &["node-a"])[0];
    assert_eq!(web.pdb, PdbEffect::None);
    assert!(web.zero_ready);
    assert_eq!(web.severity, Severity::Critical);
}

#[test]
fn two_budgets_refuse_every_eviction() {
    let mut docs = cluster(None);
    docs.extend(deployment("web", 1));
    docs.push(pod("web-1", "web", "node-a"));
    docs.push(pdb("a", "web", &json!({"maxUnavailable": 1}), [1, 1, 0, 1]));
    docs.push(pdb("b", "web", &json!({"maxUnavailable": 1}), [1, 1, 0, 1]));
    let web = &run(docs, &["node-a"])[0];
    assert_eq!(web.pdb, PdbEffect::Multiple { pdbs: vec!["ns/a".into(), "ns/b".into()] });
    assert!(!web.zero_ready);
    assert_eq!(web.severity, Severity::Warning);
}

#[test]
fn a_daemon_set_pod_goes_with_its_node_as_info() {
    let mut docs = cluster(None);
    docs.push(pod_in(NS, "agent-a", "agent", Some(("DaemonSet", "agent")), "node-a"));
    let agent = &run(docs, &["node-a"])[0];
    assert_eq!(agent.key(), "DaemonSet/ns/agent");
    assert!(!agent.zero_ready);
    assert_eq!(agent.severity, Severity::Info);
}

#[test]
fn startup_is_the_median_of_the_workloads_own_pods() {
    let mut docs = cluster(None);
    docs.extend(deployment("web", 3));
    for (name, node, secs) in [("web-1", "node-a", 30), ("web-2", "node-b", 90), ("web-3", "node-c", 45)] {
        let mut p = pod(name, "web", node);
        p["status"]["startTime"] = json!("2026-11-29T09:00:00Z");
        let started: jiff::Timestamp = "2026-11-29T09:00:00Z".parse().unwrap();
        let ready = started + SignedDuration::from_secs(secs);
        p["status"]["conditions"] =
            json!([{"type": "Ready", "status": "True", "lastTransitionTime": ready.to_string()}]);
        docs.push(p);
    }
    let web = &run(docs, &["node-a", "node-b", "node-c"])[0];
    assert!(web.zero_ready);
    assert_eq!(web.startup.source, StartupSource::Observed { pods: 3 });
    assert_eq!(web.downtime, Some(SignedDuration::from_secs(45)));
}

#[test]
fn nothing_on_the_nodes_is_no_impact_and_order_is_severity_then_name() {
    let mut docs = cluster(None);
    assert!(run(docs.clone(), &["node-a"]).is_empty());
    docs.extend(deployment("b-web", 2));
    docs.push(pod("b-web-1", "b-web", "node-a"));
    docs.push(pod("b-web-2", "b-web", "node-b"));
    docs.extend(deployment("z-web", 1));
    docs.push(pod("z-web-1", "z-web", "node-a"));
    let keys: Vec<String> = run(docs, &["node-a"]).iter().map(WorkloadImpact::key).collect();
    assert_eq!(keys, ["Deployment/ns/z-web", "Deployment/ns/b-web"]);
}
