//! SingleNodeConsolidation: walk the candidates (sorted, NodePools interleaved) and take the
//! first one that can be deleted, or replaced by something cheaper, and that Balanced approves.
//!
//! Mirrors karpenter `pkg/controllers/disruption/singlenodeconsolidation.go` (`SortCandidates`,
//! `ComputeCommands`). Pools are interleaved in name order (upstream uses map order after the
//! pools a timed-out run left unseen); the 3-minute timeout is not needed offline. Before
//! v1.4.0 (#2035) there was no interleaving: the walk took the one sorted list
//! ([`crate::rules::Rule::SingleNodeInterleavesPools`]).

use std::collections::BTreeMap;

use super::consolidation::{compute_consolidation, Kind};
use super::{sort_candidates, Command, Context, Decision, Method, Outcome};
use crate::engine::balanced;
use crate::engine::candidate::Candidate;
use crate::engine::nodepool::DisruptionReason;
use crate::reason::{Code, Reason};
use crate::upstream;

/// Sorted by savings ratio, then interleaved round-robin across NodePools (from v1.4.0; before,
/// the sorted list as it is).
pub(crate) fn sort_and_interleave<'c, 'a>(
    mut candidates: Vec<&'c Candidate<'a>>,
    cluster: &crate::engine::state::Cluster<'_>,
) -> Vec<&'c Candidate<'a>> {
    sort_candidates(&mut candidates, cluster);
    if !cluster.rules().has(crate::rules::Rule::SingleNodeInterleavesPools) {
        return candidates;
    }
    let mut by_pool: BTreeMap<String, Vec<&Candidate<'a>>> = BTreeMap::new();
    for c in candidates {
        by_pool.entry(c.pool.map(|p| p.metadata.name.clone()).unwrap_or_default()).or_default().push(c);
    }
    let mut out = Vec::new();
    let longest = by_pool.values().map(Vec::len).max().unwrap_or(0);
    for i in 0..longest {
        for members in by_pool.values() {
            if let Some(c) = members.get(i) {
                out.push(*c);
            }
        }
    }
    out
}

/// Mirrors [`crate::upstream::SINGLE_NODE_COMPUTE`].
pub(crate) fn compute_commands(ctx: &Context<'_, '_>) -> Outcome {
    let mut outcome = Outcome::default();
    for c in sort_and_interleave(ctx.consolidation_candidates(), ctx.cluster) {
        if let Some(reason) = evaluate(ctx, c, &mut outcome) {
            outcome.skipped.entry(c.index).or_default().push(reason);
        }
        if !outcome.commands.is_empty() {
            break;
        }
    }
    outcome
}

/// Evaluates one candidate; pushes a command or returns why it was passed over.
fn evaluate(ctx: &Context<'_, '_>, c: &Candidate<'_>, outcome: &mut Outcome) -> Option<Reason> {
    if ctx.remaining(c, DisruptionReason::Underutilized) <= 0 {
        return Some(Reason::new(
            Code::BudgetExhausted,
            "no allowed disruptions for disruption reason Underutilized in its NodePool",
        ));
    }
    let single = if ctx.explains(c.index) { single_move(ctx, c, false) } else { unexplained_move(ctx, c) };
    if let Some(command) = single.command {
        outcome.commands.push(command);
    }
    single.reason
}

/// The move of a candidate whose verdict nobody reads: judged on the decision alone (cheaper
/// when it fails, see [`crate::engine::scheduling::Options::decision_only`]; a command is the
/// same as in full, see [`compute_consolidation`]). Its reason when it fails is the decision's
/// code without the per-pod detail.
fn unexplained_move(ctx: &Context<'_, '_>, c: &Candidate<'_>) -> SingleMove {
    judge(ctx, c, false, true)
}

/// One candidate's single-node move: the command, or why there is none (and the simulation
/// behind it, when one ran).
#[derive(Debug, Clone)]
pub(crate) struct SingleMove {
    pub command: Option<Command>,
    pub reason: Option<Reason>,
    pub results: Option<crate::engine::scheduling::Results>,
}

/// The single-node move for one candidate, as `SingleNodeConsolidation` judges it: the
/// Balanced pre-cut, the consolidation, and the Balanced approval. Used for the round and for
/// each node's own verdict.
pub(crate) fn single_move(ctx: &Context<'_, '_>, c: &Candidate<'_>, lift_pod_gates: bool) -> SingleMove {
    let key = move_key(ctx, c, lift_pod_gates);
    if let Some(known) = ctx.single_moves.borrow().get(&key) {
        return known.clone();
    }
    let single = judge(ctx, c, key.1, false);
    ctx.single_moves.borrow_mut().insert(key, single.clone());
    single
}

/// The single-node move behind a node's own verdict: the round's, when the round judged the
/// same move (taken out of the memo: nothing asks for it again), else judged now.
pub(crate) fn own_move(ctx: &Context<'_, '_>, c: &Candidate<'_>, lift_pod_gates: bool) -> SingleMove {
    let key = move_key(ctx, c, lift_pod_gates);
    let known = ctx.single_moves.borrow_mut().remove(&key);
    known.unwrap_or_else(|| judge(ctx, c, key.1, false))
}

/// The memo's key of a move: lifting gates that hold no pod is the same move as not lifting.
fn move_key(ctx: &Context<'_, '_>, c: &Candidate<'_>, lift_pod_gates: bool) -> (usize, bool) {
    (c.index, lift_pod_gates && crate::engine::scheduling::gates_hold_pods(ctx.world, c.index))
}

fn judge(ctx: &Context<'_, '_>, c: &Candidate<'_>, lift_pod_gates: bool, decision_only: bool) -> SingleMove {
    if let Some(score) = balanced::can_pass_threshold(c, ctx.totals).filter(|s| !s.approved) {
        let reason = Reason::new(
            Code::BalancedScoreTooLow,
            format!("even deleting it outright would not pass: {}", score.message()),
        )
        .at(upstream::CAN_PASS_THRESHOLD);
        return SingleMove { command: None, reason: Some(reason), results: None };
    }
    // A forecast keeps a decision-only refusal for the rounds in which nothing it read changed.
    let kept = (decision_only && !lift_pod_gates && ctx.world.keeps_refusals())
        .then(|| ctx.world.candidate_key(c.index, c.price));
    if let Some(reason) = kept.as_ref().and_then(|key| ctx.world.kept_refusal(c.index, key)) {
        #[cfg(debug_assertions)]
        {
            let fresh = compute_consolidation(ctx.world, &[c], Kind::Single, false, true);
            assert_eq!(
                (fresh.decision, fresh.findings.first()),
                (None, Some(&reason)),
                "node/{}: the kept refusal is not what the simulation gives now",
                c.name
            );
        }
        return SingleMove { command: None, reason: Some(reason), results: None };
    }
    let m = compute_consolidation(ctx.world, &[c], Kind::Single, lift_pod_gates, decision_only);
    let Some(decision) = m.decision else {
        if let (Some(key), Some(reason)) = (kept, m.findings.first()) {
            ctx.world.keep_refusal(c.index, key, reason.clone());
        }
        return SingleMove { command: None, reason: m.findings.into_iter().next(), results: Some(m.results) };
    };
    let mut findings = m.findings.clone();
    if let Some(scores) = balanced::evaluate_move(&[c], m.savings, ctx.totals, false) {
        let (_, score) = &scores[0];
        // The score's savings are the estimate whose pricing changed in v1.14.1 (#3238).
        let message = match &m.savings_rule {
            Some(rule) => format!("{}; {rule}", score.message()),
            None => score.message(),
        };
        if !score.approved {
            let reason = Reason::new(Code::BalancedScoreTooLow, message);
            return SingleMove { command: None, reason: Some(reason), results: Some(m.results) };
        }
        findings.push(Reason::new(Code::BalancedScoreApproved, message));
    }
    findings.push(Reason::new(
        Code::Underutilized,
        format!(
            "{} saves ${:.4}/h",
            match decision {
                Decision::Delete => "delete",
                Decision::Replace => "replace",
            },
            m.savings
        ),
    ));
    let command = Command {
        method: Method::SingleNode,
        decision,
        candidates: vec![c.index],
        replacements: m.replacement.into_iter().collect(),
        savings: m.savings,
        results: m.results,
        findings,
    };
    SingleMove { command: Some(command), reason: None, results: None }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use crate::engine::replay;
    use crate::rules::{CoreVersion, RuleSet};
    use crate::testing::{managed_node, node_pool, now, pod, set, snapshot};

    fn in_pool(node: [Value; 2], pool: &str) -> [Value; 2] {
        node.map(|o| set(o, "/metadata/labels/karpenter.sh~1nodepool", json!(pool)))
    }

    /// Pool `alpha` has a1 (one pod pinned to a1 by hostname: it can go nowhere) and a2 (two
    /// pods); pool `beta` has b1 (three pods); node h (do-not-disrupt) has room for either. The
    /// sort puts a1, a2, b1 in that order at every version (fewest pods first, or by savings
    /// ratio: same price, fewest pods), so MultiNode's every prefix holds a1 and fails. The one
    /// sorted list (v1.3, `SingleNodeConsolidation.ComputeCommand` over `sortCandidates`) reaches
    /// a2 after a1; the interleaved walk (v1.4.0, #2035 `SortCandidates`) reaches b1 after
    /// alpha's first whichever pool goes first.
    fn first_deleted(version: CoreVersion) -> Vec<String> {
        let mut objects = vec![node_pool("alpha"), node_pool("beta"), node_pool("hold")];
        objects.extend(in_pool(managed_node("a1"), "alpha"));
        objects.extend(in_pool(managed_node("a2"), "alpha"));
        objects.extend(in_pool(managed_node("b1"), "beta"));
        objects.extend(in_pool(managed_node("h"), "hold"));
        objects.push(set(pod("pinned", "a1"), "/spec/nodeSelector", json!({"kubernetes.io/hostname": "a1"})));
        objects.extend(["a2-0", "a2-1"].map(|n| pod(n, "a2")));
        objects.extend(["b1-0", "b1-1", "b1-2"].map(|n| pod(n, "b1")));
        objects.push(set(pod("held", "h"), "/metadata/annotations", json!({"karpenter.sh/do-not-disrupt": "true"})));
        let mut s = snapshot(objects);
        s.info.rules = RuleSet::at(version);
        let report = replay(&s, now());
        let command = report.commands.first().expect("a command");
        assert_eq!(command.method.as_str(), "SingleNodeConsolidation");
        command.candidates.clone()
    }

    #[test]
    fn pools_are_interleaved_from_v1_4_0() {
        assert_eq!(first_deleted(CoreVersion::new(1, 3, 5)), ["a2"]);
        assert_eq!(first_deleted(CoreVersion::new(1, 4, 0)), ["b1"]);
        assert_eq!(first_deleted(CoreVersion::new(1, 14, 1)), ["b1"]);
    }
}
