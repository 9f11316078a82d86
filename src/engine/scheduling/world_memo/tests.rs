//! The memo reuses a node's state only while its inputs are unchanged: after each change a
//! forecast makes (a pod moved, a node tainted, a node's allocatable, a pod ended, pods
//! appended), the world built with the memo equals the world built from scratch.

use std::collections::BTreeSet;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde_json::json;

use super::WorldMemo;
use crate::engine::labels::HOSTNAME;
use crate::engine::pdb::Limits;
use crate::engine::scheduling::topology::PodFilter;
use crate::engine::scheduling::World;
use crate::engine::state::Cluster;
use crate::snapshot::{Snapshot, Taint};
use crate::testing::{managed_node, node_pool, now, pod, set, snapshot};

fn cluster_of_two() -> Snapshot {
    let mut objects = vec![node_pool("default")];
    objects.extend(managed_node("node-a"));
    objects.extend(managed_node("node-b"));
    let big = set(
        pod("big", "node-a"),
        "/spec/containers",
        json!([{"name": "c", "resources": {"requests": {"cpu": "1500m", "memory": "1Gi"}},
                "ports": [{"containerPort": 80, "hostPort": 8080}]}]),
    );
    objects.extend([big, pod("small", "node-b"), pod("other", "node-b")]);
    snapshot(objects)
}

/// What a destination is, node by node, as the scheduler reads it.
fn destinations(world: &World<'_, '_>) -> Vec<String> {
    world
        .nodes
        .iter()
        .map(|n| {
            let pods: Vec<&str> = n.pods.iter().map(|p| p.metadata.name.as_str()).collect();
            format!(
                "{} available={:?} cpu={} memory={} taints={:?} pods={pods:?} ports={:?} initialized={}",
                n.name, n.available, n.free_cpu, n.free_memory, n.taints, n.host_ports, n.initialized
            )
        })
        .collect()
}

/// The pods labelled `app=<name>` per hostname, from the world's index of pods in place.
fn counts(world: &World<'_, '_>, app: &str) -> Vec<(String, i64)> {
    let selector =
        LabelSelector { match_labels: Some([("app".to_owned(), app.to_owned())].into()), match_expressions: None };
    let filter = PodFilter::new(Some(BTreeSet::from(["default".to_owned()])), Some(selector));
    world.base_counts(HOSTNAME, &filter).iter().map(|(k, v)| (k.clone(), *v)).collect()
}

/// The world with the memo and the world from scratch, on the same snapshot: equal.
fn assert_same_as_fresh(s: &Snapshot, memo: &mut WorldMemo) {
    let cluster = Cluster::new(s, now());
    let kept = World::reusing(&cluster, memo, Limits::new(&s.pdbs));
    let fresh = World::new(&cluster);
    assert_eq!(destinations(&kept), destinations(&fresh));
    assert_eq!(kept.selector_keys, fresh.selector_keys, "the label keys indexed");
    for app in ["big", "small", "other"] {
        assert_eq!(counts(&kept, app), counts(&fresh, app), "counts of {app}");
    }
}

fn position(s: &Snapshot, name: &str) -> usize {
    s.pods.iter().position(|p| p.metadata.name == name).expect("pod")
}

fn node(s: &mut Snapshot, name: &str) -> usize {
    s.nodes.iter().position(|n| n.metadata.name == name).expect("node")
}

#[test]
fn a_pod_moved_between_rounds_is_counted_where_it_went_and_frees_its_old_node() {
    let mut s = cluster_of_two();
    let mut memo = WorldMemo::default();
    assert_same_as_fresh(&s, &mut memo);
    let big = position(&s, "big");
    s.pods[big].spec.node_name = Some("node-b".into());
    assert_same_as_fresh(&s, &mut memo);
    let cluster = Cluster::new(&s, now());
    let world = World::reusing(&cluster, &mut memo, Limits::new(&s.pdbs));
    assert_eq!(counts(&world, "big"), [("node-b".to_owned(), 1)]);
    // node-a is free again: 4 cpu, not the 2.5 it had with `big`.
    assert_eq!(world.nodes[0].free_cpu, 4000);
}

#[test]
fn a_node_tainted_or_resized_between_rounds_is_recomputed() {
    let mut s = cluster_of_two();
    let mut memo = WorldMemo::default();
    assert_same_as_fresh(&s, &mut memo);
    let a = node(&mut s, "node-a");
    s.nodes[a].spec.taints.push(Taint {
        key: crate::engine::labels::DISRUPTED_TAINT.into(),
        value: None,
        effect: "NoSchedule".into(),
    });
    assert_same_as_fresh(&s, &mut memo);
    let b = node(&mut s, "node-b");
    s.nodes[b].status.allocatable.insert("cpu".into(), "2".parse().expect("quantity"));
    assert_same_as_fresh(&s, &mut memo);
    s.nodes[b].spec.unschedulable = true;
    assert_same_as_fresh(&s, &mut memo);
}

#[test]
fn a_pod_ended_or_appended_between_rounds_is_seen() {
    let mut s = cluster_of_two();
    let mut memo = WorldMemo::default();
    assert_same_as_fresh(&s, &mut memo);
    let small = position(&s, "small");
    s.pods[small].status.phase = Some("Failed".into());
    assert_same_as_fresh(&s, &mut memo);
    // A replacement's DaemonSet copy, as a forecast appends it.
    let mut copy = s.pods[position(&s, "other")].clone();
    copy.metadata.name = "other-copy".into();
    copy.spec.node_name = Some("node-a".into());
    s.pods.push(copy);
    assert_same_as_fresh(&s, &mut memo);
    let cluster = Cluster::new(&s, now());
    let world = World::reusing(&cluster, &mut memo, Limits::new(&s.pdbs));
    assert_eq!(
        counts(&world, "other"),
        [("node-b".to_owned(), 1), ("node-a".to_owned(), 1)]
            .into_iter()
            .collect::<std::collections::BTreeMap<_, _>>()
            .into_iter()
            .collect::<Vec<_>>()
    );
}

/// An appended pod whose selector names a label key no pod named before: the kept index takes
/// the key too (it reads only the new pods to find out).
#[test]
fn an_appended_pod_with_a_new_selector_key_is_indexed_by_it() {
    let mut s = cluster_of_two();
    let mut memo = WorldMemo::default();
    assert_same_as_fresh(&s, &mut memo);
    let spread = json!([{"maxSkew": 1, "topologyKey": HOSTNAME, "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"tier": "web"}}}]);
    let mut copy = set(pod("spread", "node-a"), "/spec/topologySpreadConstraints", spread);
    copy = set(copy, "/metadata/labels", json!({"tier": "web"}));
    s.pods.push(serde_json::from_value(copy).expect("a pod"));
    assert_same_as_fresh(&s, &mut memo);
    let cluster = Cluster::new(&s, now());
    let world = World::reusing(&cluster, &mut memo, Limits::new(&s.pdbs));
    assert!(world.selector_keys.iter().any(|k| k == "tier"), "{:?}", world.selector_keys);
}

#[test]
fn a_node_gone_is_forgotten() {
    let mut s = cluster_of_two();
    let mut memo = WorldMemo::default();
    assert_same_as_fresh(&s, &mut memo);
    assert_eq!(memo.base_nodes.len(), 2);
    s.nodes.retain(|n| n.metadata.name != "node-a");
    s.node_claims.retain(|c| c.status.node_name.as_deref() != Some("node-a"));
    assert_same_as_fresh(&s, &mut memo);
    assert_eq!(memo.base_nodes.len(), 1);
}
