//! The provisioning step on small clusters: a new replica lands on a node that has room, else
//! on a NodeClaim of the cheapest type that fits, else stays pending with the scheduler's why;
//! the PodDisruptionBudgets over it and its destination's consolidateAfter follow.

use jiff::SignedDuration;
use serde_json::{json, Value};

use super::{place_new_pods, Placed, Placement};
use crate::snapshot::{is_true, Snapshot};
use crate::testing::{managed_node, node_pool, now, pod, set, snapshot};
use crate::whatif::scale_workload;

/// A pod of Deployment `default/web` (through ReplicaSet `web-abc`) on `node`.
fn web(name: &str, node: &str, cpu: &str) -> Value {
    let p = set(pod(name, node), "/metadata/labels", json!({"app": "web", "pod-template-hash": "abc"}));
    let owner = json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc", "controller": true}]);
    let p = set(p, "/metadata/ownerReferences", owner);
    set(p, "/spec/containers", json!([{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": "128Mi"}}}]))
}

/// A pod of another workload taking `cpu` of `node`.
fn filler(name: &str, node: &str, cpu: &str) -> Value {
    set(
        pod(name, node),
        "/spec/containers",
        json!([{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": "128Mi"}}}]),
    )
}

/// `default/web` scaled to `replicas`, its new pods placed.
fn scale_and_place(s: &mut Snapshot, replicas: usize) -> Vec<Placement> {
    let added = scale_workload(s, "Deployment", "default", "web", replicas).expect("web has pods");
    place_new_pods(s, &added, now())
}

fn pool_with_consolidate_after(after: &str) -> Value {
    set(node_pool("default"), "/spec/disruption/consolidateAfter", json!(after))
}

#[test]
fn a_new_replica_goes_to_an_existing_node_with_room_and_restarts_its_clock() {
    // provisioner.go Schedule: existing nodes are tried before any new NodeClaim
    // (scheduler.go Solve → add → addToExistingNode); podevents/controller.go stamps the
    // destination's NodeClaim, which consolidation.go Reconcile then holds for consolidateAfter.
    let mut objects = vec![pool_with_consolidate_after("5m")];
    objects.extend(managed_node("n1"));
    objects.push(web("web-abc-1", "n1", "100m"));
    let mut s = snapshot(objects);
    let placements = scale_and_place(&mut s, 2);
    assert_eq!(
        placements,
        [Placement {
            pod: "default/web-abc-1-whatif-0".into(),
            to: Placed::Existing { node: "n1".into(), consolidatable_in: Some(SignedDuration::from_mins(5)) },
        }]
    );
    let placed = s.pods.iter().find(|p| p.metadata.name == "web-abc-1-whatif-0").expect("the new pod");
    assert_eq!(placed.spec.node_name.as_deref(), Some("n1"));
    assert_eq!(placed.status.phase.as_deref(), Some("Running"));
    assert!(is_true(&placed.status.conditions, "Ready") && is_true(&placed.status.conditions, "PodScheduled"));
    assert_eq!(s.node_claims[0].status.last_pod_event_time, Some(now()));
    assert_eq!(s.nodes.len(), 1, "nothing launched");
}

#[test]
fn a_replica_with_no_room_gets_a_node_claim_of_the_cheapest_type_that_fits() {
    // suite_test.go "should provision nodes" / "should schedule all pods on one inflight node
    // when node is in deleting state": a pending pod that no node holds gets a new NodeClaim;
    // the launch takes the cheapest offering (instance.go CreateFleet lowest-price): m.large
    // on-demand at $0.10/h holds a 400m pod, m.xlarge is not needed.
    let mut objects = vec![pool_with_consolidate_after("5m")];
    objects.extend(managed_node("n1"));
    objects.extend([web("web-abc-1", "n1", "400m"), filler("big", "n1", "3500m")]);
    let mut s = snapshot(objects);
    let placements = scale_and_place(&mut s, 2);
    let [Placement { to: Placed::Launched { launch, consolidatable_in }, .. }] = placements.as_slice() else {
        panic!("one launch: {placements:?}")
    };
    assert_eq!(
        (launch.node.as_str(), launch.instance_type.as_str(), launch.capacity_type.as_str(), launch.price),
        ("default-whatif-0", "m.large", "on-demand", Some(0.1))
    );
    assert_eq!(*consolidatable_in, Some(SignedDuration::from_mins(5)), "a new node waits out consolidateAfter too");
    let node = s.nodes.iter().find(|n| n.metadata.name == "default-whatif-0").expect("the new Node");
    assert_eq!(node.metadata.labels.get("karpenter.sh/initialized").map(String::as_str), Some("true"));
    let claim =
        s.node_claims.iter().find(|c| c.status.node_name.as_deref() == Some("default-whatif-0")).expect("claim");
    assert!(is_true(&claim.status.conditions, "Initialized"));
    assert_eq!(claim.status.last_pod_event_time, Some(now()));
    let placed = s.pods.iter().find(|p| p.metadata.name == "web-abc-1-whatif-0").expect("the new pod");
    assert_eq!(placed.spec.node_name.as_deref(), Some("default-whatif-0"));
}

#[test]
fn a_replica_that_fits_nowhere_stays_pending_with_the_schedulers_why() {
    // suite_test.go "should not schedule if nodeSelector ... is not satisfied" style: no node
    // and no offering is in zone-z, so the pod is left pending and marked Unschedulable.
    let mut objects = vec![node_pool("default")];
    objects.extend(managed_node("n1"));
    objects.push(set(
        web("web-abc-1", "n1", "100m"),
        "/spec/nodeSelector",
        json!({"topology.kubernetes.io/zone": "zone-z"}),
    ));
    let mut s = snapshot(objects);
    let placements = scale_and_place(&mut s, 2);
    let [Placement { to: Placed::Pending { why }, .. }] = placements.as_slice() else {
        panic!("pending: {placements:?}")
    };
    assert!(why.contains("0/1 nodes are available") || why.contains("incompatible"), "{why}");
    let left = s.pods.iter().find(|p| p.metadata.name == "web-abc-1-whatif-0").expect("the new pod");
    assert_eq!(left.spec.node_name, None);
    let scheduled = crate::snapshot::condition(&left.status.conditions, "PodScheduled").expect("marked");
    assert_eq!((scheduled.status.as_str(), scheduled.reason.as_deref()), ("False", Some("Unschedulable")));
    assert_eq!(s.nodes.len(), 1, "nothing launched");
}

#[test]
fn the_pdb_counts_a_placed_replica_healthy() {
    // disruption.go updatePdbStatus: minAvailable 1 over one replica allows nothing; a second
    // replica Ready on a node makes currentHealthy 2 and allows one disruption.
    let mut objects = vec![node_pool("default")];
    objects.extend(managed_node("n1"));
    objects.push(web("web-abc-1", "n1", "100m"));
    objects.push(json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "web"}}},
        "status": {"disruptionsAllowed": 0, "currentHealthy": 1, "desiredHealthy": 1, "expectedPods": 1}}));
    let mut s = snapshot(objects);
    let added = scale_workload(&mut s, "Deployment", "default", "web", 2).expect("scaled");
    let status = |s: &Snapshot| {
        let st = &s.pdbs[0].status;
        (st.expected_pods, st.current_healthy, st.disruptions_allowed)
    };
    assert_eq!(status(&s), (2, 1, 0), "a pending replica is expected, not healthy");
    place_new_pods(&mut s, &added, now());
    assert_eq!(status(&s), (2, 2, 1));
}

#[test]
fn only_the_pods_asked_for_are_placed_and_a_fresh_pod_event_is_kept() {
    // The snapshot's own pending pod is the provisioner's before the snapshot: it stays as read.
    // podevents/controller.go dedupeTimeout: a stamp under 10 s old is not rewritten.
    let mut objects = vec![node_pool("default")];
    let [node, claim] = managed_node("n1");
    let recent = (now() - SignedDuration::from_secs(5)).to_string();
    objects.extend([node, set(claim, "/status/lastPodEventTime", json!(recent))]);
    objects.push(web("web-abc-1", "n1", "100m"));
    let waiting = set(filler("waiting", "n1", "100m"), "/spec/nodeName", Value::Null);
    objects.push(set(
        waiting,
        "/status",
        json!({"phase": "Pending", "conditions": [
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]}),
    ));
    let mut s = snapshot(objects);
    let placements = scale_and_place(&mut s, 2);
    assert_eq!(placements.len(), 1);
    let waiting = s.pods.iter().find(|p| p.metadata.name == "waiting").expect("kept");
    assert_eq!(waiting.spec.node_name, None, "the snapshot's pending pod is not placed");
    assert_eq!(s.node_claims[0].status.last_pod_event_time.map(|t| t.to_string()), Some(recent));
    assert!(place_new_pods(&mut s, &["default/nobody".into()], now()).is_empty(), "an unknown key is ignored");
}
