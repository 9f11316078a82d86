//! The round: build the cluster state and candidates, run the methods in `NewMethods` order
//! until one produces a command, then give every node its verdict ([`super::verdict`]).
//!
//! Mirrors karpenter `pkg/controllers/disruption/controller.go` (`Reconcile`, `disrupt`).

use std::collections::BTreeMap;

use jiff::Timestamp;

use super::balanced::Totals;
use super::budget::PoolBudgets;
use super::candidate::Candidate;
use super::estimates::Estimates;
use super::incremental::round_cache::RoundCache;
use super::method::{
    drift, emptiness, multi_node, single_node, Command, Context, Decision, Method, Outcome, Replacement,
};
use super::nodepool::DisruptionReason;
use super::observe::{Observer, Unobserved};
use super::scheduling::Results;
use super::setup::{self, Setup};
use super::state::{Cluster, PodsByNode};
use super::verdict::{node_verdict, NodeVerdict};
use crate::reason::{Code, Reason};
use crate::snapshot::Snapshot;

/// A command of the round, by node name.
#[derive(Debug, Clone, PartialEq)]
pub struct CommandView {
    pub reason: DisruptionReason,
    pub decision: Decision,
    pub method: Method,
    pub candidates: Vec<String>,
    pub replacements: Vec<Replacement>,
    pub savings: f64,
    pub findings: Vec<Reason>,
    /// Where the simulation put each pod, and the NodeClaims it opened (`replacements[i]` is
    /// `results.new_claims[i]` narrowed): what `forecast` applies.
    pub results: Results,
}

/// The replay of one round.
#[derive(Debug, Clone)]
pub struct Replay {
    pub captured_at: Timestamp,
    pub method: Option<Method>,
    pub commands: Vec<CommandView>,
    pub nodes: Vec<NodeVerdict>,
    pub budgets: BTreeMap<String, PoolBudgets>,
    pub totals: BTreeMap<String, Totals>,
    /// Conclusions the snapshot cannot support: kinds that could not be read, and what the
    /// catalogue estimated (each verdict carries only the estimates it rests on).
    pub uncertain: Vec<Reason>,
}

/// Replays one round at `now`.
///
/// Mirrors [`crate::upstream::RECONCILE`].
pub fn replay(snapshot: &Snapshot, now: Timestamp) -> Replay {
    replay_focused(snapshot, now, None)
}

/// [`replay`], telling `observer` how many candidates have their verdict as it goes (the
/// result is the same with any observer).
pub fn replay_observed(snapshot: &Snapshot, now: Timestamp, observer: &dyn Observer) -> Replay {
    run(snapshot, now, None, true, None, None, observer)
}

/// Replays the round, but gives a verdict only to the node named `focus` (by Node or
/// NodeClaim name) when one is given: `explain` needs the round and one node, not every
/// node's own simulation.
pub fn replay_focused(snapshot: &Snapshot, now: Timestamp, focus: Option<&str>) -> Replay {
    run(snapshot, now, focus, true, None, None, &Unobserved)
}

/// The round's method, commands and budgets without any node's verdict: what `forecast`
/// replays round after round (a verdict is a simulation per node, and no round needs one).
/// The forecast itself calls [`replay_round_with`].
#[cfg(test)]
pub(crate) fn replay_round(snapshot: &Snapshot, now: Timestamp) -> Replay {
    run(snapshot, now, None, false, None, None, &Unobserved)
}

/// The round without verdicts, reusing what `cache` kept of the forecast's earlier rounds (and
/// keeping this one's): the same result as without a cache, without rebuilding what did not
/// change.
///
/// `bindings`, when given, says which pods each node has (see [`PodsByNode`]).
pub(crate) fn replay_round_with(
    cache: &mut RoundCache,
    snapshot: &Snapshot,
    now: Timestamp,
    bindings: Option<&PodsByNode>,
) -> Replay {
    run(snapshot, now, None, false, Some(cache), bindings, &Unobserved)
}

fn run(
    snapshot: &Snapshot,
    now: Timestamp,
    focus: Option<&str>,
    verdicts: bool,
    mut cache: Option<&mut RoundCache>,
    bindings: Option<&PodsByNode>,
    observer: &dyn Observer,
) -> Replay {
    let mut cluster = match bindings {
        Some(b) => Cluster::with_bindings(snapshot, now, b),
        None => Cluster::new(snapshot, now),
    };
    if let Some(c) = cache.as_deref_mut() {
        c.cover(snapshot);
        cluster.known = Some(c.pod_table());
        let changed = c.status_changed.take();
        cluster.read_pod_status_from(&mut c.pod_status, changed);
    }
    // Without verdicts no node is in focus, so no candidate spells out its cost terms (a string
    // per pod). No node is named "".
    let Setup { candidates, totals, world, budgets } =
        setup::build(&cluster, if verdicts { focus } else { Some("") }, cache);
    let single_moves = std::cell::RefCell::default();
    let explained: Vec<bool> = cluster.nodes.iter().map(|n| verdicts && focus.is_none_or(|f| n.is_named(f))).collect();
    let ctx = Context {
        cluster: &cluster,
        world: &world,
        candidates: &candidates,
        budgets: &budgets,
        totals: &totals,
        single_moves: &single_moves,
        explained: &explained,
    };
    let mut acting: Option<(Method, Outcome)> = None;
    let mut skipped: BTreeMap<usize, Vec<Reason>> = BTreeMap::new();
    for m in Method::order(cluster.rules()) {
        let outcome = match m {
            Method::Emptiness => emptiness::compute_commands(&ctx),
            Method::StaticDrift => drift::compute_static(&ctx),
            Method::Drift => drift::compute_commands(&ctx),
            Method::MultiNode => multi_node::compute_commands(&ctx),
            Method::SingleNode => single_node::compute_commands(&ctx),
        };
        for (i, reasons) in &outcome.skipped {
            skipped.entry(*i).or_default().extend(reasons.iter().cloned());
        }
        if outcome.failed {
            break;
        }
        if !outcome.commands.is_empty() {
            acting = Some((m, outcome));
            break;
        }
    }
    let commands: Vec<&Command> = acting.as_ref().map(|(_, o)| o.commands.iter().collect()).unwrap_or_default();
    let unread: Vec<Reason> = snapshot
        .info
        .unread
        .iter()
        // Only `doctor` reads Karpenter's disruption metrics; the replay does not rest on them.
        .filter(|u| u.kind != crate::snapshot::DISRUPTION_METRICS)
        .map(|u| {
            Reason::new(
                Code::Uncertain,
                format!("{} could not be read ({}): conclusions that depend on them are uncertain", u.kind, u.reason),
            )
        })
        .collect();
    let estimates = Estimates::new(snapshot);
    let in_focus = |c: &Candidate<'_>| explained[c.index];
    let judged_total = candidates.iter().filter(|c| in_focus(c)).count();
    let nodes = candidates
        .iter()
        .filter(|c| in_focus(c))
        .enumerate()
        .map(|(judged, c)| {
            observer.candidates_judged(judged, judged_total);
            let command = commands.iter().copied().find(|cmd| cmd.candidates.contains(&c.index));
            let round = acting.as_ref().map(|(m, _)| *m);
            let mut v = node_verdict(&ctx, c, command, round, skipped.get(&c.index), focus.is_some());
            v.reasons.extend(unread.iter().cloned());
            v.reasons.extend(estimates.reasons_for(&v, command.map(|cmd| cmd.replacements.as_slice())));
            v
        })
        .collect::<Vec<_>>();
    observer.candidates_judged(judged_total, judged_total);
    // The report's header lists every estimate once; a verdict carries only those it rests on.
    let uncertain =
        unread.into_iter().chain(snapshot.info.estimated.iter().map(|e| Reason::new(Code::Uncertain, e.clone())));
    Replay {
        captured_at: now,
        method: acting.as_ref().map(|(m, _)| *m),
        commands: commands.iter().map(|c| command_view(&cluster, c)).collect(),
        nodes,
        budgets,
        totals,
        uncertain: uncertain.collect(),
    }
}

fn command_view(cluster: &Cluster<'_>, c: &Command) -> CommandView {
    CommandView {
        reason: c.method.reason(),
        decision: c.decision,
        method: c.method,
        candidates: c.candidates.iter().map(|&i| cluster.nodes[i].name.clone()).collect(),
        replacements: c.replacements.clone(),
        savings: c.savings,
        findings: c.findings.clone(),
        results: c.results.clone(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::replay;
    use crate::engine::nodepool::DisruptionReason;
    use crate::engine::verdict::{Action, NodeVerdict, Verdict};
    use crate::reason::Code;
    use crate::testing::{managed_node, node_pool, now, pod, set, snapshot};

    fn node_of<'r>(r: &'r super::Replay, name: &str) -> &'r NodeVerdict {
        r.nodes.iter().find(|n| n.name == name).expect("node in replay")
    }

    fn two_nodes(extra: Vec<serde_json::Value>) -> crate::snapshot::Snapshot {
        let mut objects = vec![node_pool("default")];
        objects.extend(managed_node("node-a"));
        objects.extend(managed_node("node-b"));
        objects.push(pod("keep", "node-b"));
        objects.extend(extra);
        snapshot(objects)
    }

    #[test]
    fn without_a_ready_node_pool_only_emptiness_acts() {
        // provisioner.go NewScheduler: only Ready=True NodePools; none left fails every
        // simulation, so node-a (whose pod would fit on node-b) is not deleted, but the empty
        // node-c still is: Emptiness does not simulate.
        let not_ready = |pool| set(node_pool("default"), "/status/conditions", pool);
        let with = |pool, mut extra: Vec<serde_json::Value>| {
            extra.push(pod("move", "node-a"));
            let mut s = two_nodes(extra);
            s.node_pools = vec![serde_json::from_value(not_ready(pool)).expect("pool")];
            s
        };
        let r = replay(&with(json!([]), vec![]), now());
        assert!(r.commands.is_empty(), "{:?}", r.commands);
        assert!(node_of(&r, "node-a").reasons.iter().any(|f| f.code == Code::NoReadyNodePool));
        let ready_false =
            json!([{"type": "ValidationSucceeded", "status": "True"}, {"type": "Ready", "status": "False"}]);
        let [node, claim] = managed_node("node-c");
        let r = replay(&with(ready_false, vec![node, claim]), now());
        assert_eq!(r.method.map(super::Method::as_str), Some("Emptiness"));
        assert_eq!(r.commands[0].candidates, vec!["node-c".to_owned()]);
    }

    #[test]
    fn emptiness_runs_before_drift() {
        let [node, claim] = managed_node("node-c");
        let claim = set(
            claim,
            "/status/conditions",
            json!([
            {"type": "Initialized", "status": "True"}, {"type": "Consolidatable", "status": "True"},
            {"type": "Drifted", "status": "True", "reason": "NodePoolDrifted"}]),
        );
        let r = replay(&two_nodes(vec![node, claim]), now());
        assert_eq!(r.method.map(super::Method::as_str), Some("Emptiness"));
        assert!(r.commands[0].candidates.contains(&"node-c".to_owned()));
    }

    #[test]
    fn do_not_disrupt_pod_blocks_and_lifting_it_would_consolidate() {
        let guarded =
            set(pod("guarded", "node-a"), "/metadata/annotations", json!({"karpenter.sh/do-not-disrupt": "true"}));
        let r = replay(&two_nodes(vec![guarded]), now());
        let a = node_of(&r, "node-a");
        assert_eq!(
            (a.verdict, a.reason, a.action),
            (Verdict::Blocked, Some(DisruptionReason::Underutilized), Action::None)
        );
        assert_eq!(a.blockers, vec![Code::DoNotDisruptPod]);
    }

    #[test]
    fn node_annotation_blocks_only_when_exactly_true() {
        let [node, claim] = managed_node("node-c");
        let node = set(node, "/metadata/annotations", json!({"karpenter.sh/do-not-disrupt": "false"}));
        let r = replay(&two_nodes(vec![node, claim, pod("p", "node-c")]), now());
        assert!(!node_of(&r, "node-c").blockers.contains(&Code::DoNotDisruptNode));
        let [node, claim] = managed_node("node-c");
        let node = set(node, "/metadata/annotations", json!({"karpenter.sh/do-not-disrupt": "true"}));
        let r = replay(&two_nodes(vec![node, claim, pod("p", "node-c")]), now());
        assert!(node_of(&r, "node-c").blockers.contains(&Code::DoNotDisruptNode));
    }

    #[test]
    fn deleting_nodeclaim_is_marked_for_deletion_and_consumes_budget() {
        let [node, claim] = managed_node("node-c");
        let claim = set(claim, "/metadata/deletionTimestamp", json!("2026-11-29T09:59:00Z"));
        let r = replay(&two_nodes(vec![node, claim]), now());
        assert!(node_of(&r, "node-c").blockers.contains(&Code::MarkedForDeletion));
        assert_eq!(r.budgets["default"].disrupting, vec!["node-c".to_owned()]);
    }

    /// queue.go `StartCommand` marks a command's nodes for deletion, so `SimulateScheduling`
    /// moves the pods of a queued node (taint + DisruptionReason) too: `q` takes node-b's room
    /// and node-a's pod can no longer just move there.
    #[test]
    fn a_queued_nodes_pods_need_room() {
        let [node, claim] = managed_node("node-q");
        let node = set(node, "/spec/taints", json!([{"key": "karpenter.sh/disrupted", "effect": "NoSchedule"}]));
        let claim = set(
            claim,
            "/status/conditions",
            json!([{"type": "Initialized", "status": "True"}, {"type": "DisruptionReason", "status": "True"}]),
        );
        let q = set(
            pod("q", "node-q"),
            "/spec/containers",
            json!([{"name": "c", "resources": {"requests": {"cpu": "3900m"}}}]),
        );
        let moves =
            |r: &super::Replay| r.commands.iter().map(|c| (c.candidates.join(","), c.decision)).collect::<Vec<_>>();
        // Without node-q, node-a and node-b merge into one m.large.
        let without_q = replay(&two_nodes(vec![pod("p", "node-a")]), now());
        assert_eq!(moves(&without_q), [("node-a,node-b".to_owned(), super::Decision::Replace)]);
        // With it, q takes node-b's room: merging would need two claims, and node-a alone
        // needs a new (cheaper) node for its pod.
        let r = replay(&two_nodes(vec![node, claim, q, pod("p", "node-a")]), now());
        assert!(node_of(&r, "node-q").blockers.contains(&Code::AlreadyDisrupting));
        assert_eq!(moves(&r), [("node-a".to_owned(), super::Decision::Replace)]);
    }

    #[test]
    fn consolidate_after_not_elapsed_says_how_long() {
        let mut s = two_nodes(vec![pod("p", "node-a")]);
        let pool = s.node_pools[0].spec.disruption.as_mut().expect("disruption");
        pool.consolidate_after = Some("3h".into());
        let r = replay(&s, now());
        let a = node_of(&r, "node-a");
        assert!(a.blockers.contains(&Code::NotConsolidatableYet), "{:?}", a.blockers);
        let reason = a.reasons.iter().find(|r| r.code == Code::NotConsolidatableYet).expect("reason");
        assert!(reason.message.ends_with("consolidatable in 1h"), "{}", reason.message);
    }

    #[test]
    fn unknown_nodepool_and_missing_label_are_gates() {
        let [node, claim] = managed_node("node-c");
        let node = set(node, "/metadata/labels/karpenter.sh~1nodepool", json!("ghost"));
        let r = replay(&two_nodes(vec![node, claim]), now());
        assert!(
            node_of(&r, "node-c").blockers.contains(&Code::NodePoolNotFound),
            "{:?}",
            node_of(&r, "node-c").blockers
        );
    }

    #[test]
    fn budget_zero_blocks_the_underutilized_node() {
        let mut s = two_nodes(vec![pod("p", "node-a")]);
        let pool = s.node_pools[0].spec.disruption.as_mut().expect("disruption");
        pool.budgets = Some(vec![crate::snapshot::Budget { nodes: "0".into(), ..Default::default() }]);
        let r = replay(&s, now());
        assert!(r.method.is_none());
        assert!(node_of(&r, "node-a").blockers.contains(&Code::BudgetExhausted));
    }

    #[test]
    fn same_input_same_verdicts() {
        let s = two_nodes(vec![pod("p", "node-a")]);
        let a = replay(&s, now());
        let b = replay(&s, now());
        assert_eq!(a.nodes, b.nodes);
    }
}
