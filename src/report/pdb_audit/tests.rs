//! Tests for `pdb-audit`: one small snapshot per behaviour, built from JSON documents.

use serde_json::{json, Value};

use super::{pdb_audit, Finding, FindingCode, PdbAudit, Severity};
use crate::report::Scope;
use crate::snapshot::Snapshot;

const NS: &str = "ns";

fn now() -> jiff::Timestamp {
    "2026-11-29T10:00:00Z".parse().unwrap()
}

fn instance_types() -> Value {
    json!({
        "apiVersion": "kubectl-consolidation/v1alpha1", "kind": "InstanceTypes",
        "items": [{"name": "m5.large", "capacity": {"cpu": "2", "memory": "8Gi", "pods": "29"},
                   "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.096}]}]
    })
}

fn node_pool(name: &str, tgp: Option<&str>) -> Value {
    let mut pool = json!({
        "apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
        "spec": {"template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                                        "requirements": []}},
                 "disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "5m"}}
    });
    if let Some(tgp) = tgp {
        pool["spec"]["template"]["spec"]["terminationGracePeriod"] = json!(tgp);
    }
    pool
}

/// A Node; with a pool, also its NodeClaim (a Karpenter node).
fn node(name: &str, pool: Option<&str>) -> Vec<Value> {
    let mut labels = json!({
        "kubernetes.io/hostname": name, "node.kubernetes.io/instance-type": "m5.large",
        "topology.kubernetes.io/zone": "us-east-1a", "karpenter.sh/capacity-type": "on-demand",
    });
    let provider_id = format!("aws:///us-east-1a/i-{name}");
    let mut out = Vec::new();
    if let Some(pool) = pool {
        labels["karpenter.sh/nodepool"] = json!(pool);
        labels["karpenter.sh/registered"] = json!("true");
        labels["karpenter.sh/initialized"] = json!("true");
        out.push(json!({
            "apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
            "metadata": {"name": format!("{pool}-{name}"), "labels": labels},
            "status": {"nodeName": name, "providerID": provider_id}
        }));
    }
    out.push(json!({
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
        "spec": {"providerID": provider_id},
        "status": {"allocatable": {"cpu": "2", "memory": "8Gi", "pods": "29"},
                   "conditions": [{"type": "Ready", "status": "True"}]}
    }));
    out
}

fn pod_in(namespace: &str, name: &str, app: &str, owner: Option<(&str, &str)>, node: &str) -> Value {
    let mut pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "labels": {"app": app}},
        "spec": {"nodeName": node, "containers": [{"name": "app"}]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
    });
    if let Some((kind, owner)) = owner {
        let api_version = if kind == "Job" { "batch/v1" } else { "apps/v1" };
        pod["metadata"]["ownerReferences"] = json!([{"apiVersion": api_version, "kind": kind, "name": owner, "uid": format!("uid-{owner}"), "controller": true}]);
    }
    pod
}

/// A pod of Deployment `app` (through ReplicaSet `app-rs`).
fn pod(name: &str, app: &str, node: &str) -> Value {
    pod_in(NS, name, app, Some(("ReplicaSet", &format!("{app}-rs"))), node)
}

/// Deployment `app` with its ReplicaSet.
fn deployment(app: &str, replicas: i32) -> Vec<Value> {
    let selector = json!({"matchLabels": {"app": app}});
    vec![
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": app, "namespace": NS},
               "spec": {"replicas": replicas, "selector": selector}}),
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
               "metadata": {"name": format!("{app}-rs"), "namespace": NS,
                            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": app, "controller": true}]},
               "spec": {"replicas": replicas, "selector": selector}}),
    ]
}

fn hpa(app: &str, min: i32, max: i32) -> Value {
    json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": app, "namespace": NS},
           "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": app},
                    "minReplicas": min, "maxReplicas": max}})
}

/// A PDB over `app=<app>` with `spec` (`{"maxUnavailable": 1}`…) and `[expected, healthy, desired, allowed]`.
fn pdb(name: &str, app: &str, spec: &Value, status: [i32; 4]) -> Value {
    let mut spec = spec.clone();
    spec["selector"] = json!({"matchLabels": {"app": app}});
    json!({
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name, "namespace": NS},
        "spec": spec,
        "status": {"expectedPods": status[0], "currentHealthy": status[1], "desiredHealthy": status[2],
                   "disruptionsAllowed": status[3]}
    })
}

/// A cluster with NodePool `default` (optionally with a terminationGracePeriod) and Karpenter
/// nodes `node-a`, `node-b`, `node-c`.
fn cluster(tgp: Option<&str>) -> Vec<Value> {
    let mut docs = vec![instance_types(), node_pool("default", tgp)];
    for name in ["node-a", "node-b", "node-c"] {
        docs.extend(node(name, Some("default")));
    }
    docs
}

fn audit_with(docs: Vec<Value>, scope: &Scope) -> PdbAudit {
    let snapshot = Snapshot::from_documents(docs).unwrap();
    pdb_audit(&snapshot, now(), scope)
}

fn audit(docs: Vec<Value>) -> PdbAudit {
    audit_with(docs, &Scope { namespace: Some(NS.into()), all_namespaces: false, selector: None })
}

fn codes(audit: &PdbAudit) -> Vec<(FindingCode, Option<String>)> {
    audit.findings.iter().map(|f| (f.code, f.pdb.clone())).collect()
}

fn has(audit: &PdbAudit, code: FindingCode) -> bool {
    audit.findings.iter().any(|f| f.code == code)
}

fn find(audit: &PdbAudit, code: FindingCode) -> &Finding {
    audit.findings.iter().find(|f| f.code == code).unwrap_or_else(|| panic!("no {code} in {:#?}", codes(audit)))
}

/// The seed's incident: one replica with maxUnavailable 1 sits on a consolidatable node.
#[test]
fn single_replica_with_max_unavailable_one_is_evictable() {
    let mut docs = cluster(None);
    docs.extend(deployment("web", 1));
    docs.push(pod("web-1", "web", "node-a"));
    docs.push(pdb("web", "web", &json!({"maxUnavailable": 1}), [1, 1, 0, 1]));
    let audit = audit(docs);
    let f = find(&audit, FindingCode::SingleReplicaEvictable);
    assert_eq!(f.severity, Severity::Critical);
    assert_eq!(f.pdb.as_deref(), Some("ns/web"));
    assert_eq!(f.workload.as_deref(), Some("Deployment/ns/web"));
    assert_eq!((f.replicas, f.allowed), (Some(1), Some(1)));
    assert_eq!(f.nodes, ["node-a"]);
    assert_eq!(f.node_pools, ["default"]);
    assert!(
        f.message.contains(
            "lets its only pod go: consolidating node-a (NodePool default, WhenEmptyOrUnderutilized after 5m)"
        ),
        "{}",
        f.message
    );
    assert_eq!(
        f.fix,
        r#"kubectl patch pdb web -n ns --type=json -p '[{"op":"remove","path":"/spec/maxUnavailable"},{"op":"add","path":"/spec/minAvailable","value":1}]'"#
    );
    assert!(f.trade_off.contains("pins the node"));
    assert!(!has(&audit, FindingCode::DrainBlocked) && !has(&audit, FindingCode::NoPdb));
}

/// The seed's fix: minAvailable 1 on one replica pins the node, and says what it costs.
#[test]
fn min_available_one_on_one_replica_pins_its_node() {
    let mut docs = cluster(None);
    docs.extend(deployment("web", 1));
    docs.push(pod("web-1", "web", "node-a"));
    docs.push(pdb("web", "web", &json!({"minAvailable": 1}), [1, 1, 1, 0]));
    let audit = audit(docs);
    assert!(!has(&audit, FindingCode::SingleReplicaEvictable));
    assert!(!has(&audit, FindingCode::CurrentlyBlocking));
    let f = find(&audit, FindingCode::DrainBlocked);
    assert_eq!(f.severity, Severity::Warning);
    assert_eq!(f.nodes, ["node-a"]);
    assert_eq!(f.price_per_hour, Some(0.096));
    assert!((f.price_per_month.unwrap() - 70.08).abs() < 1e-9);
    assert!(f.message.starts_with("minAvailable: 1 on 1 replica never allows an eviction"), "{}", f.message);
    assert!(f.message.contains("node-a (m5.large on-demand, $0.096/h, $70.08/month)"), "{}", f.message);
    assert!(f.message.contains("NodePool default sets no terminationGracePeriod"), "{}", f.message);
    assert!(f.fix.contains("kubectl scale deployment/web -n ns --replicas=2"), "{}", f.fix);
    assert_eq!(f.termination_grace_period, None);
}

#[test]
fn a_termination_grace_period_ends_the_block_and_is_reported() {
    let mut docs = cluster(Some("24h"));
    docs.extend(deployment("web", 1));
    docs.push(pod("web-1", "web", "node-a"));
    docs.push(pdb("web", "web", &json!({"minAvailable": 1}), [1, 1, 1, 0]));
    let audit = audit(docs);
    let blocked = find(&audit, FindingCode::DrainBlocked);
    assert_eq!(blocked.termination_grace_period.as_deref(), Some("24h"));
    assert!(blocked.message.contains("deleting the pods 24h after the drain starts"), "{}", blocked.message);
    let grace = find(&audit, FindingCode::GracePeriodOverrides);
    assert_eq!(grace.severity, Severity::Info);
    assert_eq!(grace.termination_grace_period.as_deref(), Some("24h"));
    assert!(grace.message.starts_with("NodePool default sets terminationGracePeriod 24h"), "{}", grace.message);
}

/// Kubernetes rounds both percentages up (`GetScaledValueFromIntOrPercent(…, true)`).
#[test]
fn percentages_round_up_at_the_edges() {
    let cases: [(i32, Value, Option<FindingCode>, i32); 6] = [
        (3, json!({"minAvailable": "50%"}), None, 1),
        (3, json!({"maxUnavailable": "50%"}), None, 2),
        (1, json!({"maxUnavailable": "50%"}), Some(FindingCode::SingleReplicaEvictable), 1),
        (1, json!({"minAvailable": "50%"}), Some(FindingCode::DrainBlocked), 0),
        (3, json!({"minAvailable": "90%"}), Some(FindingCode::DrainBlocked), 0),
        (3, json!({"maxUnavailable": "100%"}), Some(FindingCode::SingleReplicaEvictable), 3),
    ];
    for (replicas, spec, expected, allowed) in cases {
        let mut docs = cluster(None);
        docs.extend(deployment("web", replicas));
        for (i, node) in ["node-a", "node-b", "node-c"].iter().take(usize::try_from(replicas).unwrap()).enumerate() {
            docs.push(pod(&format!("web-{i}"), "web", node));
        }
        docs.push(pdb("web", "web", &spec, [replicas, replicas, replicas - allowed, allowed]));
        let audit = audit(docs);
        let budget_codes: Vec<FindingCode> = audit
            .findings
            .iter()
            .map(|f| f.code)
            .filter(|c| matches!(c, FindingCode::SingleReplicaEvictable | FindingCode::DrainBlocked))
            .collect();
        assert_eq!(budget_codes, expected.into_iter().collect::<Vec<_>>(), "{replicas} replicas, {spec}");
        if let Some(f) = audit.findings.first() {
            assert_eq!(f.allowed, Some(allowed), "{replicas} replicas, {spec}");
        }
    }
    let mut docs = cluster(None);
    docs.extend(deployment("web", 3));
    for (i, node) in ["node-a", "node-b", "node-c"].iter().enumerate() {
        docs.push(pod(&format!("web-{i}"), "web", node));
    }
    docs.push(pdb("web", "web", &json!({"minAvailable": "90%"}), [3, 3, 3, 0]));
    let f = find(&audit(docs), FindingCode::DrainBlocked).clone();
    assert!(f.message.starts_with("minAvailable: 90% of 3 replicas rounds up to 3"), "{}", f.message);
    assert_eq!(f.nodes, ["node-a", "node-b", "node-c"]);
    assert!((f.price_per_hour.unwrap() - 0.288).abs() < 1e-9);
}

/// An HPA that may scale to one replica makes maxUnavailable 1 evict the last pod.
#[test]
fn hpa_min_replicas_are_the_replicas_that_matter() {
    let build = |min: i32| {
        let mut docs = cluster(None);
        docs.extend(deployment("web", 3));
        docs.push(hpa("web", min, 10));
        for (i, node) in ["node-a", "node-b", "node-c"].iter().enumerate() {
            docs.push(pod(&format!("web-{i}"), "web", node));
        }
        docs.push(pdb("web", "web", &json!({"maxUnavailable": 1}), [3, 3, 2, 1]));
        audit(docs)
    };
    let one = build(1);
    let f = find(&one, FindingCode::SingleReplicaEvictable);
    assert_eq!((f.replicas, f.min_replicas, f.max_replicas), (Some(3), Some(1), Some(10)));
    assert_eq!(f.hpa.as_deref(), Some("ns/web"));
    assert!(f.message.contains("once HPA ns/web scales Deployment/ns/web to minReplicas 1"), "{}", f.message);
    assert_eq!(f.fix, r#"kubectl patch hpa web -n ns --type=merge -p '{"spec":{"minReplicas":2}}'"#);
    assert!(!has(&build(2), FindingCode::SingleReplicaEvictable));
}

#[test]
fn hpa_min_replicas_can_pin_a_node_too() {
    let mut docs = cluster(None);
    docs.extend(deployment("web", 3));
    docs.push(hpa("web", 2, 5));
    for (i, node) in ["node-a", "node-b", "node-c"].iter().enumerate() {
        docs.push(pod(&format!("web-{i}"), "web", node));
    }
    docs.push(pdb("web", "web", &json!({"minAvailable": 2}), [3, 3, 2, 1]));
    let audit = audit(docs);
    let f = find(&audit, FindingCode::DrainBlocked);
    assert!(f.message.starts_with("once HPA ns/web scales Deployment/ns/web to minReplicas 2"), "{}", f.message);
}

#[test]
fn hpa_max_replicas_make_min_available_one_loose() {
    let mut docs = cluster(None);
    docs.extend(deployment("web", 2));
    docs.push(hpa("web", 2, 10));
    docs.push(pod("web-0", "web", "node-a"));
    docs.push(pod("web-1", "web", "node-b"));
    docs.push(pdb("web", "web", &json!({"minAvailable": 1}), [2, 2, 1, 1]));
    let f = find(&audit(docs), FindingCode::LooserThanIntended).clone();
    assert_eq!(f.allowed, Some(9));
    assert!(f.message.contains("lets 9 of 10 go at once when HPA ns/web scales"), "{}", f.message);
}

#[test]
fn min_available_one_on_many_replicas_is_looser_than_intended() {
    let mut docs = cluster(None);
    docs.extend(deployment("web", 4));
    for (i, node) in ["node-a", "node-a", "node-a", "node-b"].iter().enumerate() {
        docs.push(pod(&format!("web-{i}"), "web", node));
    }
    docs.push(pdb("web", "web", &json!({"minAvailable": 1}), [4, 4, 1, 3]));
    let audit = audit(docs);
    let f = find(&audit, FindingCode::LooserThanIntended);
    assert_eq!(f.severity, Severity::Info);
    assert!(f.message.starts_with("minAvailable: 1 on 4 replicas lets 3 go at once"), "{}", f.message);
    assert!(f.message.contains("3 of them sit on node-a, so one consolidation takes 3 down at once"), "{}", f.message);
    assert!(f.fix.contains(
        r#"{"op":"remove","path":"/spec/minAvailable"},{"op":"add","path":"/spec/maxUnavailable","value":1}"#
    ));
    assert!(!has(&audit, FindingCode::Crowded), "3 on a node within an allowance of 3 is not Crowded");
}

#[test]
fn currently_blocking_names_the_unready_pods() {
    let mut docs = cluster(None);
    docs.extend(deployment("web", 3));
    for (i, node) in ["node-a", "node-b", "node-c"].iter().enumerate() {
        docs.push(pod(&format!("web-{i}"), "web", node));
    }
    if let Some(last) = docs.last_mut() {
        last["status"]["conditions"][0]["status"] = json!("False");
    }
    docs.push(pdb("web", "web", &json!({"maxUnavailable": 1}), [3, 2, 2, 0]));
    let audit = audit(docs);
    let f = find(&audit, FindingCode::CurrentlyBlocking);
    assert_eq!(f.severity, Severity::Warning);
    assert!(f.message.contains("1 of 3 pods not Ready (ns/web-2)"), "{}", f.message);
    assert!(f.message.contains("pdb prevents pod evictions (PodDisruptionBudget=[ns/web])"), "{}", f.message);
    assert_eq!(f.nodes, ["node-a", "node-b", "node-c"]);
    assert!(f.fix.contains(r#"{"spec":{"unhealthyPodEvictionPolicy":"AlwaysAllow"}}"#), "{}", f.fix);
    assert!(!has(&audit, FindingCode::DrainBlocked));
}

#[test]
fn replicas_crowded_on_one_node() {
    let build = |nodes: &[&str]| {
        let mut docs = cluster(None);
        docs.extend(deployment("web", i32::try_from(nodes.len()).unwrap()));
        for (i, node) in nodes.iter().enumerate() {
            docs.push(pod(&format!("web-{i}"), "web", node));
        }
        let n = i32::try_from(nodes.len()).unwrap();
        docs.push(pdb("web", "web", &json!({"maxUnavailable": 1}), [n, n, n - 1, 1]));
        audit(docs)
    };
    let all = build(&["node-a", "node-a", "node-a"]);
    let f = find(&all, FindingCode::Crowded);
    assert_eq!(f.nodes, ["node-a"]);
    assert_eq!(f.pods.len(), 3);
    assert!(f.message.starts_with("all 3 pods of Deployment/ns/web sit on node-a"), "{}", f.message);
    assert!(f.fix.starts_with("kubectl patch deployment web -n ns --type=json"), "{}", f.fix);
    assert!(f.fix.contains(r#""labelSelector":{"matchLabels":{"app":"web"}}"#), "{}", f.fix);
    let some = build(&["node-a", "node-a", "node-b", "node-c"]);
    assert!(find(&some, FindingCode::Crowded).message.starts_with("2 of 4 pods of Deployment/ns/web sit on node-a"));
    assert!(!has(&build(&["node-a", "node-b", "node-c"]), FindingCode::Crowded));
}

/// A pod under two PDBs: the eviction API refuses it, so Karpenter treats its node as blocked.
#[test]
fn a_pod_under_two_pdbs() {
    let mut docs = cluster(None);
    docs.extend(deployment("web", 2));
    docs.push(pod("web-0", "web", "node-a"));
    docs.push(pod("web-1", "web", "node-b"));
    docs.push(pdb("web", "web", &json!({"maxUnavailable": 1}), [2, 2, 1, 1]));
    let mut everything = pdb("all", "web", &json!({"maxUnavailable": 1}), [2, 2, 1, 1]);
    everything["spec"]["selector"] = json!({});
    docs.push(everything);
    let audit = audit(docs);
    let multiple: Vec<&Finding> = audit.findings.iter().filter(|f| f.code == FindingCode::MultiplePdbs).collect();
    assert_eq!(multiple.len(), 1, "{:#?}", codes(&audit));
    let f = multiple[0];
    assert_eq!(f.severity, Severity::Critical);
    assert_eq!(f.pdbs, ["ns/all", "ns/web"]);
    assert_eq!(f.pods, ["ns/web-0", "ns/web-1"]);
    assert_eq!(f.nodes, ["node-a", "node-b"]);
    assert!(
        f.message.contains("eviction does not support multiple PDBs (PodDisruptionBudget(s)=[ns/all ns/web])"),
        "{}",
        f.message
    );
    assert_eq!(audit.findings[0].code, FindingCode::MultiplePdbs, "critical findings come first");
}

#[test]
fn a_selector_that_matches_nothing() {
    let mut docs = cluster(None);
    docs.extend(deployment("web", 2));
    docs.push(pod("web-0", "web", "node-a"));
    docs.push(pod("web-1", "web", "node-b"));
    docs.push(pdb("web", "web", &json!({"maxUnavailable": 1}), [2, 2, 1, 1]));
    docs.push(pdb("ghost", "ghost", &json!({"minAvailable": 1}), [0, 0, 1, 0]));
    let audit = audit(docs);
    let f = find(&audit, FindingCode::NoMatchingPods);
    assert_eq!((f.pdb.as_deref(), f.workload.as_deref(), f.replicas), (Some("ns/ghost"), None, None));
    assert!(f.message.starts_with("selector app=ghost matches no pod in namespace ns"), "{}", f.message);
    assert!(!audit
        .findings
        .iter()
        .any(|g| g.pdb.as_deref() == Some("ns/ghost") && g.code != FindingCode::NoMatchingPods));
    let json = serde_json::to_value(f).unwrap();
    assert_eq!(json["workload"], Value::Null);
}

#[test]
fn workloads_on_karpenter_nodes_without_a_pdb() {
    let mut docs = cluster(None);
    docs.extend(node("static-1", None));
    docs.extend(deployment("web", 2));
    docs.push(pod("web-0", "web", "node-a"));
    docs.push(pod("web-1", "web", "node-a"));
    docs.extend(deployment("legacy", 1));
    docs.push(pod("legacy-0", "legacy", "static-1"));
    docs.push(pod_in(NS, "agent-x", "agent", Some(("DaemonSet", "agent")), "node-a"));
    docs.push(pod_in(NS, "once-x", "once", Some(("Job", "once")), "node-b"));
    let audit = audit(docs);
    let no_pdb: Vec<&Finding> = audit.findings.iter().filter(|f| f.code == FindingCode::NoPdb).collect();
    assert_eq!(no_pdb.len(), 1, "{:#?}", codes(&audit));
    let f = no_pdb[0];
    assert_eq!((f.pdb.as_deref(), f.workload.as_deref()), (None, Some("Deployment/ns/web")));
    assert!(f.message.ends_with("and all 2 sit on node-a"), "{}", f.message);
    assert_eq!(f.fix, "kubectl create poddisruptionbudget web -n ns --selector=app=web --max-unavailable=1");
}

#[test]
fn two_single_replica_workloads_under_one_budget() {
    let mut docs = cluster(None);
    docs.extend(deployment("a", 1));
    docs.extend(deployment("b", 1));
    let mut a = pod("a-0", "a", "node-a");
    a["metadata"]["labels"]["tier"] = json!("web");
    let mut b = pod("b-0", "b", "node-b");
    b["metadata"]["labels"]["tier"] = json!("web");
    docs.extend([a, b]);
    let mut shared = pdb("tier", "x", &json!({"minAvailable": 1}), [2, 2, 1, 1]);
    shared["spec"]["selector"] = json!({"matchLabels": {"tier": "web"}});
    docs.push(shared);
    let audit = audit(docs);
    let evictable: Vec<&str> = audit
        .findings
        .iter()
        .filter(|f| f.code == FindingCode::SingleReplicaEvictable)
        .filter_map(|f| f.workload.as_deref())
        .collect();
    assert_eq!(evictable, ["Deployment/ns/a", "Deployment/ns/b"]);
    assert!(audit.findings[0].fix.starts_with("give each workload its own PodDisruptionBudget"));
}

#[test]
fn budgets_that_can_never_allow_an_eviction() {
    for (spec, start) in [
        (json!({}), "neither minAvailable nor maxUnavailable is set"),
        (json!({"maxUnavailable": 0}), "maxUnavailable: 0 on 2 replicas never allows an eviction"),
        (json!({"minAvailable": "100%"}), "minAvailable: 100% of 2 replicas rounds up to 2"),
        (
            json!({"maxUnavailable": "1"}),
            r#"maxUnavailable: "1" (not a percentage): the disruption controller fails safe"#,
        ),
    ] {
        let mut docs = cluster(None);
        docs.extend(deployment("web", 2));
        docs.push(pod("web-0", "web", "node-a"));
        docs.push(pod("web-1", "web", "node-b"));
        docs.push(pdb("web", "web", &spec, [2, 2, 2, 0]));
        let f = find(&audit(docs), FindingCode::DrainBlocked).clone();
        assert!(f.message.starts_with(start), "{spec}: {}", f.message);
    }
    let mut docs = cluster(None);
    docs.push(pod_in(NS, "bare", "bare", None, "node-a"));
    docs.push(pdb("bare", "bare", &json!({"maxUnavailable": 1}), [0, 1, 0, 0]));
    let f = find(&audit(docs), FindingCode::DrainBlocked).clone();
    assert_eq!(f.workload.as_deref(), Some("Pod/ns/bare"));
    assert!(f.message.contains("counts no expected pod"), "{}", f.message);
}

/// A namespace-scoped user: Nodes, NodeClaims and NodePools are forbidden.
#[test]
fn namespace_scoped_user_gets_what_needs_no_placement() {
    let forbidden = "forbidden: User \"dev\" cannot list resource \"nodes\"";
    let mut docs = vec![json!({
        "apiVersion": "kubectl-consolidation/v1alpha1", "kind": "SnapshotInfo",
        "capturedAt": "2026-11-29T10:00:00Z",
        "unread": [{"kind": "Node", "reason": forbidden},
                   {"kind": "NodeClaim", "reason": "forbidden"},
                   {"kind": "NodePool", "reason": "forbidden"}]
    })];
    docs.extend(deployment("web", 1));
    docs.extend(deployment("api", 1));
    docs.extend(deployment("free", 2));
    docs.push(pod("web-0", "web", "node-a"));
    docs.push(pod("api-0", "api", "node-b"));
    docs.push(pod("free-0", "free", "node-c"));
    docs.push(pod("free-1", "free", "node-c"));
    docs.push(pdb("web", "web", &json!({"maxUnavailable": 1}), [1, 1, 0, 1]));
    docs.push(pdb("api", "api", &json!({"minAvailable": 1}), [1, 1, 1, 0]));
    let audit = audit(docs);
    assert!(has(&audit, FindingCode::SingleReplicaEvictable));
    let blocked = find(&audit, FindingCode::DrainBlocked);
    assert_eq!(blocked.nodes, ["node-b"], "pods still say where they run");
    assert!(blocked.message.contains("NodePool and price unknown"), "{}", blocked.message);
    assert!(blocked.placement.iter().all(|p| p.karpenter.is_none()));
    assert!(!has(&audit, FindingCode::NoPdb) && !has(&audit, FindingCode::GracePeriodOverrides));
    let skipped: Vec<FindingCode> = audit.skipped.iter().map(|s| s.code).collect();
    assert_eq!(skipped, [FindingCode::NoPdb, FindingCode::GracePeriodOverrides, FindingCode::DrainBlocked]);
    assert!(audit.skipped[0].reason.contains(forbidden), "{}", audit.skipped[0].reason);
}

#[test]
fn scope_namespace_all_namespaces_and_selector() {
    let mut docs = cluster(None);
    docs.extend(deployment("web", 1));
    docs.push(pod("web-0", "web", "node-a"));
    docs.push(pdb("web", "web", &json!({"maxUnavailable": 1}), [1, 1, 0, 1]));
    docs.push(pod_in("other", "x-0", "x", None, "node-b"));
    let mut other = pdb("x", "x", &json!({"maxUnavailable": 1}), [0, 1, 0, 0]);
    other["metadata"]["namespace"] = json!("other");
    docs.push(other);
    let pdbs = |a: &PdbAudit| -> Vec<String> {
        let mut pdbs: Vec<String> = a.findings.iter().filter_map(|f| f.pdb.clone()).collect();
        pdbs.dedup();
        pdbs
    };
    assert_eq!(pdbs(&audit(docs.clone())), ["ns/web"]);
    let all = audit_with(docs.clone(), &Scope { namespace: None, all_namespaces: true, selector: None });
    assert_eq!(all.scope.namespace, None);
    assert_eq!(pdbs(&all), ["ns/web", "other/x"]);
    let selected =
        audit_with(docs.clone(), &Scope { namespace: None, all_namespaces: true, selector: Some("app in (x)".into()) });
    assert_eq!(pdbs(&selected), ["other/x"]);
    assert_eq!(selected.summary.pdbs, 1);
    let invalid =
        audit_with(docs, &Scope { namespace: None, all_namespaces: true, selector: Some("app in (x".into()) });
    assert!(invalid.findings.is_empty());
    assert!(invalid.skipped.iter().all(|s| s.reason.starts_with("invalid label selector")));
}

/// The built-in demo is the 001 seed's incident: two single-replica apps under maxUnavailable 1.
#[test]
fn demo_snapshot_reports_the_seed_incident() {
    let snapshot = crate::testing::demo();
    let scope = Scope { namespace: Some("tenant-a".into()), all_namespaces: false, selector: None };
    let audit = pdb_audit(&snapshot, snapshot.info.captured_at.unwrap(), &scope);
    let critical: Vec<(FindingCode, Option<String>)> =
        audit.findings.iter().filter(|f| f.severity == Severity::Critical).map(|f| (f.code, f.pdb.clone())).collect();
    assert_eq!(
        critical,
        [
            (FindingCode::SingleReplicaEvictable, Some("tenant-a/app-b".to_owned())),
            (FindingCode::SingleReplicaEvictable, Some("tenant-a/app-c".to_owned())),
        ]
    );
    assert!(audit.fails_at(Severity::Critical));
}

#[test]
fn json_follows_the_contract_and_is_deterministic() {
    let mut docs = cluster(Some("1h"));
    docs.extend(deployment("web", 1));
    docs.push(pod("web-1", "web", "node-a"));
    docs.push(pdb("web", "web", &json!({"maxUnavailable": 1}), [1, 1, 0, 1]));
    docs.push(pdb("dup", "web", &json!({"maxUnavailable": 1}), [1, 1, 0, 1]));
    let forward = audit(docs.clone());
    docs.reverse();
    let backward = audit(docs);
    assert_eq!(serde_json::to_string(&forward).unwrap(), serde_json::to_string(&backward).unwrap());
    let json = serde_json::to_value(&forward).unwrap();
    assert_eq!(json["apiVersion"], "kubectl-consolidation/v1alpha1");
    assert_eq!(json["kind"], "PDBAudit");
    let findings = json["findings"].as_array().unwrap();
    let first = findings.iter().find(|f| f["code"] == "MultiplePDBs").unwrap();
    assert_eq!(first["severity"], "critical");
    assert_eq!(first["ref"], "karpenter: pkg/utils/pdb/pdb.go Limits.CanEvictPods");
    for key in ["pdb", "workload", "replicas", "nodes", "nodePools", "message", "fix", "tradeOff"] {
        assert!(first.get(key).is_some(), "missing {key} in {first}");
    }
    assert!(findings.iter().any(|f| f["code"] == "GracePeriodOverrides"));
    assert_eq!(json["skipped"], json!([]));
}
