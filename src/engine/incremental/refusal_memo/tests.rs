use serde_json::json;

use crate::engine::controller::{replay_round, replay_round_with, Replay};
use crate::engine::incremental::round_cache::RoundCache;
use crate::snapshot::Snapshot;
use crate::testing::{lone_pod, managed_node, node_pool, now, set, snapshot};

/// node-a's pod needs a node labelled `disk=ssd` (no NodePool launches one) and fits node-b
/// unless node-d, which is deleting, sends its 2-CPU pod there first. It does while that pod
/// is not Ready: its PDB blocks fully (`maxUnavailable: 0`) but lets an unhealthy pod go
/// (`AlwaysAllow`). node-b is no candidate (do-not-disrupt), so the round's only
/// consolidation candidate is node-a.
fn held_by_a_deleting_nodes_mover() -> Snapshot {
    let mut objects = vec![node_pool("default")];
    for name in ["node-a", "node-b", "node-d"] {
        let [node, mut claim] = managed_node(name);
        let mut node = set(node, "/metadata/labels/disk", json!("ssd"));
        if name == "node-b" {
            node = set(node, "/metadata/annotations", json!({"karpenter.sh/do-not-disrupt": "true"}));
        }
        if name == "node-d" {
            claim = set(claim, "/metadata/deletionTimestamp", json!("2026-11-29T09:59:00Z"));
        }
        objects.extend([node, claim]);
    }
    let on_ssd = |p| set(p, "/spec/nodeSelector", json!({"disk": "ssd"}));
    objects.push(on_ssd(lone_pod("pa", "node-a", "1")));
    objects.push(lone_pod("pb", "node-b", "2"));
    let unready = json!([{"type": "Ready", "status": "False"}]);
    objects.push(set(on_ssd(lone_pod("pd", "node-d", "2")), "/status/conditions", unready));
    objects.push(json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
        "metadata": {"name": "pd", "namespace": "default"},
        "spec": {"maxUnavailable": 0, "unhealthyPodEvictionPolicy": "AlwaysAllow",
                 "selector": {"matchLabels": {"app": "pd"}}},
        "status": {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 1, "expectedPods": 1}}));
    snapshot(objects)
}

/// The round with the cache gives what the round without it gives.
fn agrees(cache: &mut RoundCache, s: &Snapshot, at: jiff::Timestamp) -> Replay {
    let (kept, fresh) = (replay_round_with(cache, s, at, None), replay_round(s, at));
    assert_eq!((kept.method, &kept.commands), (fresh.method, &fresh.commands));
    fresh
}

fn hits(cache: &RoundCache) -> usize {
    cache.world.refusals.borrow().hits()
}

#[test]
fn a_quiet_round_reuses_the_refusal_and_a_freed_destination_ends_it() {
    let mut s = held_by_a_deleting_nodes_mover();
    let mut cache = RoundCache::default();
    assert!(agrees(&mut cache, &s, now()).commands.is_empty(), "node-d's pod takes node-b's room");
    assert_eq!(hits(&cache), 0);
    // A minute later, nothing else changed: node-a's refusal is the kept one.
    let later = now() + jiff::SignedDuration::from_mins(1);
    assert!(agrees(&mut cache, &s, later).commands.is_empty());
    assert_eq!(hits(&cache), 1, "the quiet round asks the memo");
    // node-d's pod turns Ready (only its conditions change, as the forecast marks a pod): its
    // PDB now holds it, node-b has room again and node-a is deleted. A memo blind to the
    // deleting node's movers would still refuse.
    let pd = s.pods.iter().position(|p| p.metadata.name == "pd").expect("pd");
    s.pods[pd].status.conditions[0].status = "True".into();
    let freed = agrees(&mut cache, &s, later);
    assert_eq!(freed.commands.iter().map(|c| c.candidates.clone()).collect::<Vec<_>>(), [vec!["node-a".to_owned()]]);
    assert_eq!(hits(&cache), 1, "a changed mover is a new generation");
}

#[test]
fn a_changed_node_is_a_new_generation() {
    let mut s = held_by_a_deleting_nodes_mover();
    let mut cache = RoundCache::default();
    assert!(agrees(&mut cache, &s, now()).commands.is_empty());
    // node-b's own pod ends: node-b's parts are computed again, and node-a's pod fits beside
    // node-d's.
    let pb = s.pods.iter().position(|p| p.metadata.name == "pb").expect("pb");
    s.pods[pb].status.phase = Some("Failed".into());
    let freed = agrees(&mut cache, &s, now());
    assert!(!freed.commands.is_empty(), "node-a goes once node-b has room");
    assert_eq!(hits(&cache), 0);
}
