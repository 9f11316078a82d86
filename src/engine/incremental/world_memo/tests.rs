//! The memo reuses a node's state only while its inputs are unchanged: after each change a
//! forecast makes (a pod moved, a node tainted, a node's allocatable, a pod ended, pods
//! appended), the world built with the memo equals the world built from scratch.

use std::collections::BTreeSet;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde_json::json;

use crate::engine::incremental::world_memo::{answer_by_stamp, WorldMemo};
use crate::engine::labels::{HOSTNAME, ZONE};
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

/// The same per zone.
fn zone_counts(world: &World<'_, '_>, app: &str) -> Vec<(String, i64)> {
    let selector =
        LabelSelector { match_labels: Some([("app".to_owned(), app.to_owned())].into()), match_expressions: None };
    let filter = PodFilter::new(Some(BTreeSet::from(["default".to_owned()])), Some(selector));
    world.base_counts(ZONE, &filter).iter().map(|(k, v)| (k.clone(), *v)).collect()
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
        assert_eq!(zone_counts(&kept, app), zone_counts(&fresh, app), "zone counts of {app}");
    }
}

/// Sets a label on a node and on its NodeClaim (as a relabel reaches both).
fn relabel(s: &mut Snapshot, node: &str, key: &str, value: &str) {
    for n in s.nodes.iter_mut().filter(|n| n.metadata.name == node) {
        n.metadata.labels.insert(key.into(), value.into());
    }
    for c in s.node_claims.iter_mut().filter(|c| c.status.node_name.as_deref() == Some(node)) {
        c.metadata.labels.insert(key.into(), value.into());
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

/// The counts a round keeps are checked against the stamps of the nodes their pods are on: a
/// node relabelled into another zone, its pods unmoved, counts them in its new zone.
#[test]
fn a_node_relabelled_between_rounds_counts_its_pods_in_its_new_zone() {
    let mut s = cluster_of_two();
    let mut memo = WorldMemo::default();
    assert_same_as_fresh(&s, &mut memo);
    relabel(&mut s, "node-b", ZONE, "zone-b");
    assert_same_as_fresh(&s, &mut memo);
    let cluster = Cluster::new(&s, now());
    let world = World::reusing(&cluster, &mut memo, Limits::new(&s.pdbs));
    assert_eq!(zone_counts(&world, "small"), [("zone-b".to_owned(), 1)]);
    assert_eq!(zone_counts(&world, "big"), [("zone-a".to_owned(), 1)]);
}

/// A spread's registered domains keep each node's answer to its node filter under the node's
/// stamp: a node relabelled to pass the filter brings its domain in the next round.
#[test]
fn a_node_relabelled_between_rounds_into_a_spreads_node_filter_registers_its_domain() {
    let mut s = cluster_of_two();
    relabel(&mut s, "node-a", "rack", "r1");
    relabel(&mut s, "node-b", "rack", "r2");
    relabel(&mut s, "node-a", "tier", "x");
    let spread = json!([{"maxSkew": 1, "topologyKey": "rack", "whenUnsatisfiable": "DoNotSchedule",
        "labelSelector": {"matchLabels": {"app": "spread"}}}]);
    let spreading = set(pod("spread", "node-a"), "/spec/topologySpreadConstraints", spread);
    s.pods.push(serde_json::from_value(set(spreading, "/spec/nodeSelector", json!({"tier": "x"}))).expect("a pod"));
    let domains = |s: &Snapshot, memo: Option<&mut WorldMemo>| {
        let cluster = Cluster::new(s, now());
        let world = match memo {
            Some(memo) => World::reusing(&cluster, memo, Limits::new(&s.pdbs)),
            None => World::new(&cluster),
        };
        let pod = &s.pods[position(s, "spread")];
        let terms = world.pod_terms(pod);
        let filter = terms.spread_filters().next().expect("a spread");
        world.spread_domains("rack", filter).iter().cloned().collect::<Vec<_>>()
    };
    let mut memo = WorldMemo::default();
    assert_eq!(domains(&s, Some(&mut memo)), ["r1"], "node-b is not tier x");
    relabel(&mut s, "node-b", "tier", "x");
    assert_eq!(domains(&s, Some(&mut memo)), ["r1", "r2"]);
    assert_eq!(domains(&s, None), ["r1", "r2"]);
}

/// A kept answer is asked once per stamp; without a stamp, or without kept answers, every time.
#[test]
fn an_answer_is_asked_once_per_stamp() {
    let mut asked = 0;
    let mut answers = Vec::new();
    let mut ask = |answers: Option<&mut Vec<u8>>, stamp: u64| {
        answer_by_stamp(answers, stamp, || {
            asked += 1;
            stamp % 2 == 1
        })
    };
    assert!(ask(Some(&mut answers), 3));
    assert!(ask(Some(&mut answers), 3));
    assert!(!ask(Some(&mut answers), 2));
    assert!(!ask(Some(&mut answers), 0));
    assert!(!ask(Some(&mut answers), 0));
    assert!(ask(None, 3));
    assert_eq!(asked, 5, "stamp 3 and 2 once each, stamp 0 and no answers every time");
}
