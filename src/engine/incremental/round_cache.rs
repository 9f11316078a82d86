//! No upstream twin: what a forecast keeps from one round's replay for the next, so that a
//! round does not rebuild from the snapshot what the previous commands did not change.
//!
//! An explicit value the forecast owns and passes to [`crate::engine::controller::replay_round_with`];
//! it holds owned data and positions into the snapshot's vectors, never borrows, so the
//! forecast can change the snapshot in place between rounds. The replay stays a function of
//! the snapshot and the clock: a round with the cache gives the same bytes as one without it.
//!
//! What it keeps, and why each stays valid as the forecast changes the snapshot (it changes
//! nodes, NodeClaims, pods' bindings and status, and PDBs' status; it only appends pods, and
//! never changes a pod's labels or containers, nor a PDB's selector):
//! - per pod, the PDBs that select it and the fixed facts the candidacy gates read
//!   ([`PodTable`]);
//! - per pod, its requests, and per existing node its destination state, checked against the
//!   node's current inputs each round ([`WorldMemo`]);
//! - every pod's terminal and terminating bits, read again only for the pods the caller says
//!   it ended ([`RoundCache::pods_changed`]) and those appended;
//! - per node, its static answers to each class of pods and to each spread's node filter,
//!   under a stamp that changes with its objects; which nodes' objects may have changed, the
//!   caller can say ([`RoundCache::nodes_changed`]), else every node's are compared;
//! - per topology key and filter, the counts of the pods in place, with the stamps of the
//!   nodes they were on, reused while those stamps are the same.
//!
//! - per SingleNode candidate, its decision-only refusal, with what the clock and the PDBs'
//!   status decide of its simulation in the key (`refusal_memo.rs`).
//!
//! What the caller says is checked in debug builds, which read every node and pod anyway.
//! Everything else that reads the clock or a PDB's status (candidacy gates, budgets,
//! do-not-disrupt grace, consolidateAfter) is computed each round.

use std::sync::Arc;

use crate::engine::incremental::pod_table::PodTable;
use crate::engine::pdb::Limits;
use crate::engine::scheduling::WorldMemo;
use crate::snapshot::Snapshot;

#[derive(Debug, Default)]
pub(crate) struct RoundCache {
    pod_table: Arc<PodTable>,
    pub(in crate::engine) world: WorldMemo,
    /// Every pod's terminal and terminating bits as the last round read them
    /// ([`crate::engine::state::Cluster::read_pod_status_from`]).
    pub(in crate::engine) pod_status: Vec<u8>,
    /// When the caller says so: the only pods whose status bits may have changed since.
    pub(in crate::engine) status_changed: Option<Vec<usize>>,
}

impl RoundCache {
    /// Extends the per-pod tables to the snapshot's pods (a forecast appends some).
    pub(in crate::engine) fn cover(&mut self, snapshot: &Snapshot) {
        Arc::make_mut(&mut self.pod_table).cover(&snapshot.pods, &snapshot.pdbs);
    }

    /// Says which nodes the caller changed (their Node or NodeClaim, or both) since the last
    /// round: the next round compares only those nodes' objects with what it kept. The caller
    /// must name every node it changed; debug builds check that it did.
    pub(crate) fn nodes_changed(&mut self, names: std::collections::BTreeSet<String>) {
        self.world.nodes_changed(names);
    }

    /// Says which pods (positions in `snapshot.pods`) the caller ended or marked for deletion
    /// since the last round, besides those it appended: the next round reads only their status.
    /// The caller must name every one; debug builds check that it did.
    pub(crate) fn pods_changed(&mut self, positions: Vec<usize>) {
        self.status_changed = Some(positions);
    }

    /// What is known of every pod (once [`RoundCache::cover`] ran).
    pub(in crate::engine) fn pod_table(&self) -> Arc<PodTable> {
        Arc::clone(&self.pod_table)
    }
}

/// The snapshot's PDBs, reading `table` and the round's `status` bytes when there are.
pub(in crate::engine) fn limits(
    snapshot: &Snapshot,
    table: Option<Arc<PodTable>>,
    status: Option<Arc<[u8]>>,
) -> Limits<'_> {
    match table {
        Some(t) => Limits::with_table(&snapshot.pdbs, &snapshot.pods, t).with_status(status),
        None => Limits::new(&snapshot.pdbs),
    }
    .with_rules(&snapshot.info.rules)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::RoundCache;
    use crate::engine::controller::{replay_round, replay_round_with};
    use crate::snapshot::{Snapshot, Taint};
    use crate::testing::{managed_node, node_pool, now, pod, set, snapshot};

    fn three_nodes() -> Snapshot {
        let mut objects = vec![node_pool("default")];
        for n in ["node-a", "node-b", "node-c"] {
            objects.extend(managed_node(n));
        }
        let pdb = json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": "web", "namespace": "default"},
            "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "web"}}},
            "status": {"disruptionsAllowed": 1, "currentHealthy": 1, "desiredHealthy": 0, "expectedPods": 1}});
        let sized = |name: &str, node: &str, cpu: &str| {
            let resources = json!([{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": "128Mi"}}}]);
            set(pod(name, node), "/spec/containers", resources)
        };
        let web = set(sized("web", "node-b", "100m"), "/metadata/labels", json!({"app": "web"}));
        objects.extend([pdb, web, sized("r", "node-b", "1")]);
        objects.extend([sized("p", "node-a", "2"), sized("q", "node-c", "1")]);
        snapshot(objects)
    }

    /// The round with the cache and without it agree: the method, the commands (candidates,
    /// replacements, where every pod goes) and the budgets.
    fn assert_round_agrees(cache: &mut RoundCache, s: &Snapshot, at: jiff::Timestamp) {
        let (kept, fresh) = (replay_round_with(cache, s, at, None), replay_round(s, at));
        assert!(!fresh.commands.is_empty(), "a round that acts");
        assert_eq!(kept.method, fresh.method);
        assert_eq!(kept.commands, fresh.commands);
        assert_eq!(kept.budgets, fresh.budgets);
    }

    #[test]
    fn each_change_a_forecast_makes_between_rounds_is_seen_by_the_next_round() {
        let mut s = three_nodes();
        let mut cache = RoundCache::default();
        assert_round_agrees(&mut cache, &s, now());
        // A command started: node-a tainted as disrupted (its pods must move, it takes none).
        let a = s.nodes.iter().position(|n| n.metadata.name == "node-a").expect("node-a");
        s.nodes[a].spec.taints.push(Taint {
            key: crate::engine::labels::DISRUPTED_TAINT.into(),
            value: None,
            effect: "NoSchedule".into(),
        });
        assert_round_agrees(&mut cache, &s, now());
        // Drained: its pod lands on node-c, which has no room left for node-b's pods (a stale
        // node-c would take them, and delete node-b instead of replacing it).
        let p = s.pods.iter().position(|p| p.metadata.name == "p").expect("p");
        s.pods[p].spec.node_name = Some("node-c".into());
        assert_round_agrees(&mut cache, &s, now());
        // Gone: node-a removed, and later.
        s.nodes.remove(a);
        s.node_claims.retain(|c| c.status.node_name.as_deref() != Some("node-a"));
        assert_round_agrees(&mut cache, &s, now() + jiff::SignedDuration::from_mins(5));
        // A pod appended (a replacement's DaemonSet copy), under the PDB's selector.
        let mut copy = s.pods[s.pods.iter().position(|p| p.metadata.name == "web").expect("web")].clone();
        copy.metadata.name = "web-copy".into();
        copy.spec.node_name = Some("node-c".into());
        s.pods.push(copy);
        assert_round_agrees(&mut cache, &s, now() + jiff::SignedDuration::from_mins(6));
    }

    /// A node that loses a taint between rounds is a destination again: its static answers
    /// are kept under a stamp that changes with its objects (a stale refusal would hide it).
    #[test]
    fn a_node_untainted_between_rounds_takes_pods_again() {
        let lands_on = |r: &crate::engine::Replay, node: &str| {
            let to = crate::engine::scheduling::Destination::Existing(node.to_owned());
            r.commands.iter().flat_map(|c| &c.results.moves).any(|m| m.to == to)
        };
        let mut s = three_nodes();
        let untainted = replay_round(&s, now());
        let destination = ["node-a", "node-b", "node-c"].into_iter().find(|n| lands_on(&untainted, n));
        let destination = destination.expect("a pod moves to an existing node");
        let at = s.nodes.iter().position(|n| n.metadata.name == destination).expect("the destination");
        let taint = Taint { key: "dedicated".into(), value: None, effect: "NoSchedule".into() };
        s.nodes[at].spec.taints.push(taint);
        let mut cache = RoundCache::default();
        assert!(!lands_on(&replay_round_with(&mut cache, &s, now(), None), destination), "tainted, it takes none");
        s.nodes[at].spec.taints.pop();
        assert!(lands_on(&replay_round(&s, now()), destination));
        assert_round_agrees(&mut cache, &s, now());
    }

    /// The world's anti-affinity groups read from the table which pods hold a required
    /// anti-affinity term: web-1's keeps web-2 off node-a, with the cache as without it.
    #[test]
    fn a_kept_round_sees_the_required_anti_affinity_of_the_pods_in_place() {
        let mut objects = vec![node_pool("default")];
        for n in ["node-a", "node-b", "node-c"] {
            objects.extend(managed_node(n));
        }
        // web-1 stays where it is: node-a is not a candidate.
        objects[1] = set(objects[1].clone(), "/metadata/annotations", json!({"karpenter.sh/do-not-disrupt": "true"}));
        let web = |name: &str, node: &str| set(pod(name, node), "/metadata/labels", json!({"app": "web"}));
        let term = json!([{"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "web"}}}]);
        let holder = set(
            web("web-1", "node-a"),
            "/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution",
            term,
        );
        objects.extend([holder, web("web-2", "node-b"), pod("q", "node-c")]);
        let s = snapshot(objects);
        let fresh = replay_round(&s, now());
        let moved: Vec<_> = fresh.commands.iter().flat_map(|c| c.results.moves.iter()).collect();
        assert!(
            moved.iter().any(|m| m.pod == "default/web-2"
                && m.to != crate::engine::scheduling::Destination::Existing("node-a".into())),
            "web-2 moves, and not next to web-1: {moved:?}"
        );
        let mut cache = RoundCache::default();
        assert_round_agrees(&mut cache, &s, now());
        assert_round_agrees(&mut cache, &s, now());
    }

    /// The PDB gate reads whether a pod is active from the round's status bytes: once the
    /// blocked pod has ended (and the cache is told), its budget no longer holds its node.
    #[test]
    fn a_pod_ended_between_rounds_no_longer_blocks_its_node() {
        let mut s = three_nodes();
        s.pdbs[0].status.disruptions_allowed = 0;
        let web = s.pods.iter().position(|p| p.metadata.name == "web").expect("web");
        let mut cache = RoundCache::default();
        let moved =
            |r: &crate::engine::Replay| r.commands.iter().flat_map(|c| &c.results.moves).any(|m| m.pod == "default/r");
        assert!(!moved(&replay_round_with(&mut cache, &s, now(), None)), "node-b is held by web's budget");
        s.pods[web].status.phase = Some("Failed".into());
        cache.pods_changed(vec![web]);
        let (kept, fresh) = (replay_round_with(&mut cache, &s, now(), None), replay_round(&s, now()));
        assert!(moved(&fresh), "node-b's other pod moves: {:?}", fresh.commands);
        assert_eq!((kept.method, kept.commands), (fresh.method, fresh.commands));
    }

    /// The PDB gate reads the table: a PDB that allows nothing blocks its pod's node, and the
    /// table follows an appended pod.
    #[test]
    fn the_pod_table_knows_an_appended_pod_and_its_pdb() {
        let mut s = three_nodes();
        s.pdbs[0].status.disruptions_allowed = 0;
        let mut cache = RoundCache::default();
        cache.cover(&s);
        assert_eq!(cache.pod_table().len(), s.pods.len());
        let web = s.pods.iter().position(|p| p.metadata.name == "web").expect("web");
        let mut copy = s.pods[web].clone();
        copy.metadata.name = "web-copy".into();
        s.pods.push(copy);
        cache.cover(&s);
        let table = cache.pod_table();
        assert_eq!((table.len(), table.pdbs_of(s.pods.len() - 1)), (s.pods.len(), &[0][..]));
        assert_eq!(table.pdbs_of(web), [0]);
    }
}
