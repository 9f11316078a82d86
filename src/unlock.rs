//! "What would change this": for a Blocked or Safe node, the single changes that would free it,
//! each *replayed* (a focused replay of the snapshot with that one change), never guessed.
//!
//! The changes tried come from the node's own findings, one per gate or outcome, in this order:
//! remove the node's `karpenter.sh/do-not-disrupt`; remove it from the node's pods; let each PDB
//! that blocks an eviction allow one (all of them together: each must) (`status.disruptionsAllowed: 1`, what a looser spec or one
//! more healthy replica gives); `budgets=100%` on its NodePool (a budget that blocks);
//! `consolidateAfter=0s` (not consolidatable yet); `consolidationPolicy=WhenEmptyOrUnderutilized`
//! (WhenEmpty or a Balanced score too low). At most [`MAX_REPLAYS`] are replayed, so `explain`
//! costs at most that many more focused replays, on the snapshot itself: each change is applied
//! in place, replayed and undone (no copy of a large snapshot). Deterministic, no I/O.

use jiff::Timestamp;

use crate::engine::labels::DO_NOT_DISRUPT;
use crate::engine::{replay_focused, NodeVerdict, Verdict};
use crate::reason::Code;
use crate::snapshot::{Budget, Disruption, NodePool, PodDisruptionBudget, Snapshot, StringMap};

/// The most replays one `explain` spends on what would change its verdict.
pub(crate) const MAX_REPLAYS: usize = 4;

/// One change, replayed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Unlock {
    /// What to change, in words a user acts on.
    pub change: String,
    /// The verdict the replay gives with it.
    pub verdict: Verdict,
    /// Whether it frees the node (Empty, Drifted or Underutilized).
    pub frees: bool,
    /// What the freed node's command saves per hour, when the replayed round acts on it (an
    /// Empty node deleted saves its price).
    pub savings: Option<f64>,
}

enum Change {
    NodeAnnotation,
    PodAnnotations,
    PdbsAllowOne(Vec<String>),
    Budgets(String),
    ConsolidateAfter(String),
    Policy(String),
}

/// Every change tried for `node` (Blocked or Safe; others get none), with what its replay says.
pub(crate) fn unlocks(snapshot: &mut Snapshot, now: Timestamp, node: &NodeVerdict) -> Vec<Unlock> {
    if !matches!(node.verdict, Verdict::Blocked | Verdict::Safe) {
        return Vec::new();
    }
    let tried: Vec<(Change, String)> = candidates(snapshot, node).into_iter().take(MAX_REPLAYS).collect();
    if tried.is_empty() {
        return Vec::new();
    }
    // No copy of the snapshot: each change is applied in place, replayed and undone.
    tried
        .into_iter()
        .map(|(change, words)| {
            let undo = apply(snapshot, &node.name, &change);
            let replay = replay_focused(snapshot, now, Some(&node.name));
            restore(snapshot, undo);
            let after = replay.nodes.iter().find(|n| n.name == node.name);
            let verdict = after.map_or(node.verdict, |n| n.verdict);
            let frees = matches!(verdict, Verdict::Empty | Verdict::Drifted | Verdict::Underutilized);
            let acting = replay.commands.iter().find(|c| c.candidates.contains(&node.name)).map(|c| c.savings);
            let savings = acting.or_else(|| (verdict == Verdict::Empty).then_some(node.price).flatten());
            Unlock { change: words, verdict, frees, savings: savings.filter(|_| frees) }
        })
        .collect()
}

fn candidates(snapshot: &Snapshot, node: &NodeVerdict) -> Vec<(Change, String)> {
    let has = |code: Code| node.blockers.contains(&code) || node.reasons.iter().any(|r| r.code == code);
    let pool = node.node_pool.clone().unwrap_or_default();
    let mut out = Vec::new();
    if has(Code::DoNotDisruptNode) {
        out.push((Change::NodeAnnotation, format!("remove {DO_NOT_DISRUPT} from node {}", node.name)));
    }
    if has(Code::DoNotDisruptPod) {
        out.push((Change::PodAnnotations, format!("remove {DO_NOT_DISRUPT} from the pods on {}", node.name)));
    }
    if has(Code::PdbBlocked) || has(Code::MultiplePdbs) {
        let on_node = |p: &&crate::snapshot::Pod| p.spec.node_name.as_deref() == Some(node.name.as_str());
        let limits = crate::engine::pdb::Limits::new(&snapshot.pdbs);
        let mut blocking: Vec<String> = snapshot
            .pods
            .iter()
            .filter(on_node)
            .flat_map(|p| limits.matching(p))
            .filter(|b| b.status.disruptions_allowed == 0)
            .map(|b| b.metadata.key())
            .collect();
        blocking.sort();
        blocking.dedup();
        // Every blocking budget must allow one for the node to go: one change for all of them.
        if !blocking.is_empty() {
            let words = match blocking.as_slice() {
                [one] => format!("PodDisruptionBudget {one} allowing one eviction (one more healthy replica, or a looser spec)"),
                several => format!(
                    "PodDisruptionBudgets {} each allowing one eviction (one more healthy replica each, or looser specs)",
                    several.join(", ")
                ),
            };
            out.push((Change::PdbsAllowOne(blocking), words));
        }
    }
    if has(Code::BudgetExhausted) {
        out.push((
            Change::Budgets(pool.clone()),
            format!("NodePool {pool}'s disruption budgets at 100% (--set nodepool/{pool}.budgets=100%)"),
        ));
    }
    if has(Code::NotConsolidatableYet) || has(Code::ConsolidateAfterNever) {
        out.push((
            Change::ConsolidateAfter(pool.clone()),
            format!("NodePool {pool} consolidateAfter: 0s (--set nodepool/{pool}.consolidateAfter=0s)"),
        ));
    }
    if has(Code::PolicyWhenEmpty) || has(Code::BalancedScoreTooLow) {
        out.push((
            Change::Policy(pool.clone()),
            format!("NodePool {pool} consolidationPolicy: WhenEmptyOrUnderutilized (--set nodepool/{pool}.consolidationPolicy=WhenEmptyOrUnderutilized)"),
        ));
    }
    out
}

/// What [`apply`] replaced, to put back.
enum Undo {
    Annotations { nodes: Vec<(usize, StringMap)>, claims: Vec<(usize, StringMap)>, pods: Vec<(usize, StringMap)> },
    Pdbs(Vec<(usize, PodDisruptionBudget)>),
    Pools(Vec<NodePool>),
}

/// Applies one change in place and returns what it replaced.
fn apply(snapshot: &mut Snapshot, node: &str, change: &Change) -> Undo {
    let strip = |meta: &mut crate::snapshot::ObjectMeta| {
        let before = meta.annotations.clone();
        meta.annotations.remove(DO_NOT_DISRUPT);
        before
    };
    match change {
        Change::NodeAnnotation => {
            let nodes = snapshot
                .nodes
                .iter_mut()
                .enumerate()
                .filter(|(_, n)| n.metadata.name == node)
                .map(|(i, n)| (i, strip(&mut n.metadata)))
                .collect();
            let claims = snapshot
                .node_claims
                .iter_mut()
                .enumerate()
                .filter(|(_, c)| c.status.node_name.as_deref() == Some(node))
                .map(|(i, c)| (i, strip(&mut c.metadata)))
                .collect();
            Undo::Annotations { nodes, claims, pods: Vec::new() }
        }
        Change::PodAnnotations => {
            let pods = snapshot
                .pods
                .iter_mut()
                .enumerate()
                .filter(|(_, p)| p.spec.node_name.as_deref() == Some(node))
                .map(|(i, p)| (i, strip(&mut p.metadata)))
                .collect();
            Undo::Annotations { nodes: Vec::new(), claims: Vec::new(), pods }
        }
        Change::PdbsAllowOne(keys) => {
            let mut saved = Vec::new();
            for (i, b) in snapshot.pdbs.iter_mut().enumerate().filter(|(_, b)| keys.contains(&b.metadata.key())) {
                saved.push((i, b.clone()));
                b.status.disruptions_allowed = 1;
                b.spec.max_unavailable = None;
                b.spec.min_available = None;
            }
            Undo::Pdbs(saved)
        }
        Change::Budgets(pool) | Change::ConsolidateAfter(pool) | Change::Policy(pool) => {
            let saved = snapshot.node_pools.clone();
            for p in snapshot.node_pools.iter_mut().filter(|p| p.metadata.name == *pool) {
                let d = p.spec.disruption.get_or_insert_with(Disruption::default);
                match change {
                    Change::Budgets(_) => d.budgets = Some(vec![Budget { nodes: "100%".into(), ..Budget::default() }]),
                    Change::ConsolidateAfter(_) => d.consolidate_after = Some("0s".into()),
                    _ => d.consolidation_policy = Some("WhenEmptyOrUnderutilized".into()),
                }
            }
            Undo::Pools(saved)
        }
    }
}

/// Puts back what [`apply`] replaced.
fn restore(snapshot: &mut Snapshot, undo: Undo) {
    match undo {
        Undo::Annotations { nodes, claims, pods } => {
            for (i, a) in nodes {
                snapshot.nodes[i].metadata.annotations = a;
            }
            for (i, a) in claims {
                snapshot.node_claims[i].metadata.annotations = a;
            }
            for (i, a) in pods {
                snapshot.pods[i].metadata.annotations = a;
            }
        }
        Undo::Pdbs(saved) => {
            for (i, b) in saved {
                snapshot.pdbs[i] = b;
            }
        }
        Undo::Pools(saved) => snapshot.node_pools = saved,
    }
}

#[cfg(test)]
mod tests {
    use super::unlocks;
    use crate::engine::{replay_focused, Verdict};

    /// Each change is applied in place and undone: the snapshot is the same after, and the
    /// replayed change frees the node (karpenter `pkg/controllers/disruption/types.go`
    /// `NewCandidate`: a pod's `karpenter.sh/do-not-disrupt` alone blocks it).
    #[test]
    fn changes_are_replayed_and_undone() {
        let text = include_str!("../tests/scenarios/do-not-disrupt-pod/snapshot.yaml");
        let mut snapshot = crate::source::file::read_text(text, "do-not-disrupt-pod").unwrap();
        let now = snapshot.info.captured_at.unwrap();
        let before = snapshot.clone();
        let replay = replay_focused(&snapshot, now, Some("node-a"));
        let node = replay.nodes.iter().find(|n| n.name == "node-a").unwrap().clone();
        assert_eq!(node.verdict, Verdict::Blocked);
        let tried = unlocks(&mut snapshot, now, &node);
        assert_eq!(snapshot, before, "every change was undone");
        assert_eq!(tried.len(), 1);
        assert!(tried[0].frees && tried[0].change.contains("do-not-disrupt"), "{tried:?}");
        let again = unlocks(&mut snapshot, now, &node);
        assert_eq!(tried, again, "deterministic");
    }
}
