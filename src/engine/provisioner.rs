//! The provisioning step: pods a what-if adds are scheduled before the round, as Karpenter's
//! provisioner schedules pending pods, so that the round judges the cluster they leave behind.
//!
//! Mirrors karpenter `pkg/controllers/provisioning/provisioner.go`: `Provisioner.Schedule`
//! builds a scheduler over every existing node (`NewScheduler`; nothing is removed) and solves
//! the pending pods (`Scheduler.Solve`, replayed by [`crate::engine::scheduling::simulate`] with
//! no candidates), then `CreateNodeClaims` launches the NodeClaims the solution opened. Each
//! launch takes the cheapest available offering its instance types allow, as the forecast's
//! replacements do (`forecast/launch.rs` [`new_node`]; upstream, disruption's
//! `queue.go createReplacementNodeClaims` calls the same `CreateNodeClaims`).
//!
//! What a placement changes, at the replay's instant `now`:
//! - the pod is bound: `spec.nodeName`, phase `Running`, `PodScheduled` and `Ready` True;
//! - the PodDisruptionBudgets over it count it healthy (kubernetes
//!   `pkg/controller/disruption/disruption.go` `updatePdbStatus`, via `whatif.rs` [`recount`]);
//! - the destination's NodeClaim gets `status.lastPodEventTime = now` (karpenter
//!   `pkg/controllers/nodeclaim/podevents/controller.go` `Controller.Reconcile`: a non-DaemonSet
//!   pod newly bound to a Karpenter node; skipped when the last write is under its 10 s
//!   `dedupeTimeout` old). A new NodeClaim is also `Initialized` at `now`. Both restart the
//!   node's consolidateAfter: `pkg/controllers/nodeclaim/disruption/consolidation.go`
//!   `Consolidation.Reconcile` keeps the node out of consolidation while
//!   `now − lastPodEventTime < consolidateAfter` (`pkg/utils/disruption/disruption.go`
//!   `IsUnderConsolidateAfter`). The replay reads that window from the timestamp
//!   (`candidate.rs` [`is_under_consolidate_after`]), so the round says "consolidatable in …"
//!   and the forecast's clock reopens the node when the window has passed, as the
//!   sub-controller's requeue does. The `Consolidatable` condition itself is left as it was (a
//!   new NodeClaim gets it with `Initialized`, as the forecast's launches do): the forecast has
//!   no twin of the sub-controller that would set it back, and the replay's candidate filter
//!   never reads the condition without the window.
//!
//! Approximated, with the reason:
//! - kube-scheduler, not Karpenter, binds a new pod that fits an existing node, choosing among
//!   the nodes that fit by its scores (`NodeResourcesFit` `LeastAllocated` by default, and the
//!   default soft topology spread). The replay has no kube-scheduler: it takes the node
//!   Karpenter's own simulation picks (initialized first, then by name), which can differ when
//!   several nodes fit. A pod only reaches Karpenter once kube-scheduler marks it
//!   `PodScheduled=False/Unschedulable` (`GetPendingPods`); the new pods are marked so before
//!   the solve, and keep the mark when they fit nowhere;
//! - the launch is instantaneous: the new node is registered, initialized and running its pods
//!   at `now` (the forecast's `--launch-delay` does not apply to a what-if), and its DaemonSet
//!   pods are copied from a node of the same NodePool;
//! - a placed pod's `Ready` condition carries no transition time: the replay never saw it
//!   start, so it adds no start → Ready sample to its workload's observed startup
//!   (`audit/impact.rs` `startup_of`).
//!
//! Only the pods asked for are placed. The snapshot's own pending pods stay as they were read:
//! Karpenter's provisioner had them in its batch before the snapshot was taken, and whatever it
//! launched for them is in the snapshot already (a NodeClaim in flight, which the solve counts
//! as an existing node); placing them again would launch twice, or contradict a pod that is
//! pending for a reason the snapshot shows. The pods of deleting nodes are still solved (they
//! take room, as upstream's `Schedule` reserves it for them) but not moved: their drain is the
//! termination controller's, which the replay already follows.

use std::collections::{BTreeMap, BTreeSet};

use jiff::{SignedDuration, Timestamp};

use super::candidate::is_under_consolidate_after;
use super::labels::NODEPOOL;
use super::method::Replacement;
use super::scheduling::{self, pending_filter, Destination, NewClaim, Options, World};
use super::state::Cluster;
use crate::forecast::launch::{daemon_pod_copies, initialize_node, new_node, Launch};
use crate::snapshot::{Condition, PodStatus, Snapshot};
use crate::whatif::recount;

/// `podevents/controller.go` `dedupeTimeout`: a lastPodEventTime younger than this is kept.
const POD_EVENT_DEDUPE: SignedDuration = SignedDuration::from_secs(10);

/// Where one new pod went.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Placement {
    /// `ns/name`.
    pub pod: String,
    pub to: Placed,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Placed {
    /// Bound to a node the snapshot had. `consolidatable_in`: the consolidateAfter window the
    /// pod event opened on it (`None`: unmanaged, consolidateAfter `0s` or `Never`).
    Existing { node: String, consolidatable_in: Option<SignedDuration> },
    /// Bound to a NodeClaim launched for it (shared by the pods that went to the same claim).
    Launched { launch: Launch, consolidatable_in: Option<SignedDuration> },
    /// Still pending, with the scheduler's reason.
    Pending { why: String },
}

/// Applies `change` to the snapshot, then schedules every unbound pod it added (a scaled
/// workload's new replicas, `whatif::scale_workload`; a Pod a manifest creates) as Karpenter's
/// provisioner would at `now`: onto existing nodes, else onto NodeClaims launched for them
/// (`engine/provisioner.rs`). Returns what `change` returned and where each new pod went, in
/// the snapshot's pod order.
///
/// The pods are found by comparing the pod keys before and after `change`, so any change that
/// adds pods (`--set`, `diff -f` applying manifests) gets the same provisioning step: all the
/// new pods are solved together, as the provisioner solves one batch of pending pods.
pub(crate) fn apply_and_place<T>(
    snapshot: &mut Snapshot,
    now: Timestamp,
    change: impl FnOnce(&mut Snapshot) -> Result<T, String>,
) -> Result<(T, Vec<Placement>), String> {
    let before: foldhash::HashSet<String> = snapshot.pods.iter().map(|p| p.metadata.key()).collect();
    let changed = change(snapshot)?;
    let added: Vec<String> = snapshot
        .pods
        .iter()
        .filter(|p| p.spec.node_name.is_none())
        .map(|p| p.metadata.key())
        .filter(|k| !before.contains(k))
        .collect();
    let placements = place_new_pods(snapshot, &added, now);
    Ok((changed, placements))
}

/// Schedules the unbound pods `pods` (`ns/name` keys; others are ignored) onto the cluster as
/// Karpenter's provisioner would at `now`, launching the NodeClaims they need, and binds them.
/// Pure: changes only `snapshot`.
pub(crate) fn place_new_pods(snapshot: &mut Snapshot, pods: &[String], now: Timestamp) -> Vec<Placement> {
    // Positions of the unbound pods asked for (only unbound pods are keyed: they are few).
    let asked: BTreeSet<&str> = pods.iter().map(String::as_str).collect();
    let positions: BTreeMap<String, usize> = snapshot
        .pods
        .iter()
        .enumerate()
        .filter(|(_, p)| p.spec.node_name.is_none())
        .map(|(i, p)| (p.metadata.key(), i))
        .filter(|(k, _)| asked.contains(k.as_str()))
        .collect();
    if positions.is_empty() {
        return Vec::new();
    }
    let wanted: BTreeSet<&str> = positions.keys().map(String::as_str).collect();
    mark_unschedulable(snapshot, positions.values().copied(), now);
    let solved = solve(snapshot, &wanted, now);
    let launched = create_node_claims(snapshot, &solved, now);
    let mut seen = BTreeSet::new();
    let fates: Vec<(&String, Fate<'_>)> = pods
        .iter()
        .filter(|p| wanted.contains(p.as_str()) && seen.insert(p.as_str()))
        .map(|pod| {
            let fate = match solved.to.get(pod.as_str()) {
                Some(Solved::Existing(node)) => Fate::Bound { node: node.clone(), launch: None },
                Some(Solved::New(i)) => match launched.get(i) {
                    Some(l) => Fate::Bound { node: l.node.clone(), launch: Some(l) },
                    None => Fate::Pending("no NodeClaim could be launched for it".to_owned()),
                },
                Some(Solved::Nowhere(why)) => Fate::Pending(why.clone()),
                None => Fate::Pending("the scheduling simulation did not take it".to_owned()),
            };
            (pod, fate)
        })
        .collect();
    let bound: Vec<(usize, &str)> = fates
        .iter()
        .filter_map(|(pod, fate)| match fate {
            Fate::Bound { node, .. } => Some((*positions.get(pod.as_str())?, node.as_str())),
            Fate::Pending(_) => None,
        })
        .collect();
    bind(snapshot, &bound, now);
    let touched: BTreeSet<String> = bound.iter().map(|(_, node)| (*node).to_owned()).collect();
    for node in &touched {
        record_pod_event(snapshot, node, now);
    }
    let windows: BTreeMap<&str, Option<SignedDuration>> =
        touched.iter().map(|n| (n.as_str(), consolidate_window(snapshot, n, now))).collect();
    fates
        .into_iter()
        .map(|(pod, fate)| {
            let to = match fate {
                Fate::Pending(why) => Placed::Pending { why },
                Fate::Bound { node, launch } => {
                    let consolidatable_in = windows.get(node.as_str()).copied().flatten();
                    match launch {
                        Some(l) => Placed::Launched { launch: l.clone(), consolidatable_in },
                        None => Placed::Existing { node, consolidatable_in },
                    }
                }
            };
            Placement { pod: pod.clone(), to }
        })
        .collect()
}

/// One new pod's outcome before the destinations' clocks are read.
enum Fate<'l> {
    Bound { node: String, launch: Option<&'l Launch> },
    Pending(String),
}

/// Where the solve sent each new pod.
#[derive(Debug, Clone, PartialEq)]
enum Solved {
    Existing(String),
    /// Index into [`Solution::claims`].
    New(usize),
    Nowhere(String),
}

#[derive(Debug, Default)]
struct Solution {
    to: BTreeMap<String, Solved>,
    claims: Vec<NewClaim>,
}

/// `PodScheduled=False`, reason `Unschedulable`: what kube-scheduler writes on a pod it could
/// not bind, and the only pending pods Karpenter's provisioner takes (`GetPendingPods`).
fn mark_unschedulable(snapshot: &mut Snapshot, positions: impl Iterator<Item = usize>, now: Timestamp) {
    for i in positions {
        let Some(pod) = snapshot.pods.get_mut(i) else { continue };
        if pod.status.conditions.iter().any(|c| c.type_ == "PodScheduled") {
            continue;
        }
        pod.status.conditions.push(Condition {
            type_: "PodScheduled".into(),
            status: "False".into(),
            reason: Some("Unschedulable".into()),
            last_transition_time: Some(now),
            ..Condition::default()
        });
    }
}

/// `Provisioner.Schedule`: the scheduler over every existing node, the new pods as the pending
/// ones.
fn solve(snapshot: &Snapshot, wanted: &BTreeSet<&str>, now: Timestamp) -> Solution {
    let mut cluster = Cluster::new(snapshot, now);
    cluster.unbound_pods.retain(|p| wanted.contains(p.metadata.key().as_str()));
    let world = World::new(&cluster);
    let mut solution = Solution::default();
    if let Some(error) = scheduling::scheduler_error(&world) {
        for pod in wanted {
            solution.to.insert((*pod).to_owned(), Solved::Nowhere(error.message.clone()));
        }
        return solution;
    }
    let results = scheduling::simulate(&world, &[], Options { detail: true, ..Options::default() });
    for m in results.moves.iter().filter(|m| wanted.contains(m.pod.as_str())) {
        let to = match &m.to {
            Destination::Existing(node) => Solved::Existing(node.clone()),
            Destination::New(i) => Solved::New(*i),
            Destination::Nowhere => Solved::Nowhere(m.why.join("; ")),
        };
        solution.to.insert(m.pod.clone(), to);
    }
    // A pod the provisioner does not take never reaches the solve.
    let untaken: Vec<_> =
        cluster.unbound_pods.iter().filter(|p| !solution.to.contains_key(&p.metadata.key())).copied().collect();
    for pod in untaken {
        let why = pending_filter::rejection(pod, &cluster).unwrap_or_else(|| {
            "Karpenter's provisioner does not take it (nominated, a DaemonSet or mirror pod, or not active)".to_owned()
        });
        solution.to.insert(pod.metadata.key(), Solved::Nowhere(why));
    }
    solution.claims = results.new_claims;
    solution
}

/// `Provisioner.CreateNodeClaims`: each NodeClaim the solve opened for a new pod, launched and
/// initialized at `now`, named `<pool>-whatif-<n>`. Returns them by claim index.
fn create_node_claims(snapshot: &mut Snapshot, solved: &Solution, now: Timestamp) -> BTreeMap<usize, Launch> {
    let used: BTreeSet<usize> =
        solved.to.values().filter_map(|s| if let Solved::New(i) = s { Some(*i) } else { None }).collect();
    let mut launched = BTreeMap::new();
    let mut n = 0;
    for i in used {
        let Some(claim) = solved.claims.get(i) else { continue };
        let name = loop {
            let name = format!("{}-whatif-{n}", claim.node_pool);
            n += 1;
            if !snapshot.nodes.iter().any(|x| x.metadata.name == name) {
                break name;
            }
        };
        let like = pool_sibling(snapshot, &claim.node_pool);
        let replacement = Replacement {
            node_pool: claim.node_pool.clone(),
            instance_types: claim.instance_types.clone(),
            capacity_type: String::new(),
            zones: Vec::new(),
            worst_price: None,
            cheapest_price: None,
        };
        let launch = new_node(snapshot, &name, "whatif", &replacement, Some(claim), like.as_deref(), now);
        initialize_node(snapshot, &name, now);
        if let Some(like) = like {
            let copies =
                daemon_pod_copies(snapshot.pods.iter().filter(|p| p.spec.node_name.as_deref() == Some(&like)), &name);
            snapshot.pods.extend(copies);
        }
        launched.insert(i, launch);
    }
    launched
}

/// A node of `pool` the new one copies its os/arch labels and DaemonSet pods from: the first
/// by name that is not deleting.
fn pool_sibling(snapshot: &Snapshot, pool: &str) -> Option<String> {
    let mut names: Vec<&str> = snapshot
        .nodes
        .iter()
        .filter(|n| n.metadata.deletion_timestamp.is_none())
        .filter(|n| n.metadata.labels.get(NODEPOOL).is_some_and(|p| p == pool))
        .map(|n| n.metadata.name.as_str())
        .collect();
    names.sort_unstable();
    names.first().map(|n| (*n).to_owned())
}

/// Each pod (by position) bound to its node and running, and the PDBs over it counting it
/// healthy.
fn bind(snapshot: &mut Snapshot, bound: &[(usize, &str)], now: Timestamp) {
    let condition = |kind: &str, at: Option<Timestamp>| Condition {
        type_: kind.into(),
        status: "True".into(),
        last_transition_time: at,
        ..Condition::default()
    };
    for &(i, node) in bound {
        let Some(pod) = snapshot.pods.get_mut(i) else { continue };
        pod.spec.node_name = Some(node.to_owned());
        pod.metadata.creation_timestamp = Some(now);
        pod.status = PodStatus {
            phase: Some("Running".into()),
            start_time: Some(now),
            conditions: vec![condition("PodScheduled", Some(now)), condition("Ready", None)],
            ..PodStatus::default()
        };
    }
    let limits = super::pdb::Limits::new(&snapshot.pdbs);
    let mut healthy: BTreeMap<String, i32> = BTreeMap::new();
    for pod in bound.iter().filter_map(|&(i, _)| snapshot.pods.get(i)) {
        for pdb in limits.matching(pod) {
            *healthy.entry(pdb.metadata.key()).or_default() += 1;
        }
    }
    for pdb in &mut snapshot.pdbs {
        if let Some(&more) = healthy.get(&pdb.metadata.key()) {
            recount(pdb, 0, more);
        }
    }
}

/// `podevents/controller.go`: a pod newly bound to a Karpenter node stamps its NodeClaim's
/// `lastPodEventTime`, unless the stamp is under the dedupe timeout old.
fn record_pod_event(snapshot: &mut Snapshot, node: &str, now: Timestamp) {
    let Some(n) = snapshot.nodes.iter().find(|n| n.metadata.name == node) else { return };
    if !n.metadata.labels.contains_key(NODEPOOL) {
        return;
    }
    let provider = n.spec.provider_id.clone();
    let claim = snapshot.node_claims.iter_mut().find(|c| {
        c.status.node_name.as_deref() == Some(node)
            || provider.as_deref().is_some_and(|id| c.status.provider_id.as_deref() == Some(id))
    });
    let Some(claim) = claim else { return };
    let fresh = claim.status.last_pod_event_time.is_some_and(|t| t <= now && now.duration_since(t) < POD_EVENT_DEDUPE);
    if !fresh {
        claim.status.last_pod_event_time = Some(now);
    }
}

/// How long `node` stays inside its consolidateAfter window at `now`, as the replay reads it.
fn consolidate_window(snapshot: &Snapshot, node: &str, now: Timestamp) -> Option<SignedDuration> {
    let n = snapshot.nodes.iter().find(|n| n.metadata.name == node)?;
    let pool = snapshot.node_pools.iter().find(|p| Some(&p.metadata.name) == n.metadata.labels.get(NODEPOOL))?;
    let provider = n.spec.provider_id.as_deref();
    let claim = snapshot.node_claims.iter().find(|c| {
        c.status.node_name.as_deref() == Some(node)
            || provider.is_some_and(|id| c.status.provider_id.as_deref() == Some(id))
    })?;
    is_under_consolidate_after(pool, claim, now)
}

#[cfg(test)]
#[path = "provisioner_tests.rs"]
mod tests;
