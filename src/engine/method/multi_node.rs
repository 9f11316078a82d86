//! MultiNodeConsolidation: the largest prefix of the sorted candidates that can be deleted
//! together, or replaced by one cheaper node, found by binary search.
//!
//! Mirrors karpenter `pkg/controllers/disruption/multinodeconsolidation.go`
//! (`ComputeCommands`, `firstNConsolidationOption`, `filterOutSameInstanceType` with its
//! minValues re-check). Upstream's 1-minute timeout is not needed offline. Bounds are
//! upstream's, including its off-by-one: with more than 100 eligible candidates the largest
//! prefix tried is 101.

use std::collections::BTreeMap;

use super::consolidation::{compute_consolidation, Kind, Move};
use super::{sort_candidates, Command, Context, Decision, Method, Outcome};
use crate::engine::balanced;
use crate::engine::candidate::Candidate;
use crate::engine::nodepool::DisruptionReason;
use crate::engine::scheduling;
use crate::reason::{Code, Reason};

/// Most nodes one multi-node command may take (`maxParallel`).
pub(crate) const MAX_PARALLEL: usize = 100;

/// Mirrors [`crate::upstream::MULTI_NODE_COMPUTE`].
pub(crate) fn compute_commands(ctx: &Context<'_, '_>) -> Outcome {
    let mut outcome = Outcome::default();
    let mut candidates = ctx.consolidation_candidates();
    sort_candidates(&mut candidates, ctx.cluster);
    let mut remaining: BTreeMap<String, i64> = BTreeMap::new();
    let mut kept: Vec<&Candidate<'_>> = Vec::new();
    for c in candidates {
        let pool = c.pool.map(|p| p.metadata.name.clone()).unwrap_or_default();
        let left = remaining.entry(pool).or_insert_with(|| ctx.remaining(c, DisruptionReason::Underutilized));
        if *left <= 0 {
            continue;
        }
        *left -= 1;
        kept.push(c);
    }
    if kept.len() < 2 {
        return outcome;
    }
    if scheduling::scheduler_error(ctx.world).is_some() {
        // The first attempt's error is returned: the round ends (single-node does not run).
        outcome.failed = true;
        return outcome;
    }
    let max_parallel = kept.len().min(MAX_PARALLEL);
    let (mut min, mut max) = (1usize, max_parallel);
    if kept.len() <= max {
        max = kept.len() - 1;
    }
    // The attempts are judged on the decision alone: a failed one is never read, and one that
    // acts is the same as in full (`compute_consolidation`).
    let mut best: Option<(Vec<&Candidate<'_>>, Move)> = None;
    while min <= max {
        let mid = usize::midpoint(min, max);
        let prefix: Vec<&Candidate<'_>> = kept[..=mid].to_vec();
        let attempt = compute_consolidation(ctx.world, &prefix, Kind::Multi, false, true);
        if let Some(error) = &attempt.error {
            // `firstNConsolidationOption` returns the error, and `Controller.Reconcile` ends the
            // round with it: no command, and SingleNodeConsolidation does not run.
            let reason = Reason::new(
                Code::PriceUnknown,
                format!(
                    "the round ends with an error: MultiNodeConsolidation's {}-node attempt failed ({error}), so SingleNodeConsolidation does not run",
                    prefix.len()
                ),
            )
            .at(crate::upstream::RECONCILE);
            for c in &kept {
                outcome.skipped.entry(c.index).or_default().push(reason.clone());
            }
            outcome.failed = true;
            return outcome;
        }
        let scored = attempt.decision.is_some() && approved(ctx, &prefix, attempt.savings);
        if scored {
            best = Some((prefix, attempt));
            min = mid + 1;
        } else {
            if mid == 0 {
                break;
            }
            max = mid - 1;
        }
    }
    if let Some((prefix, m)) = best {
        let decision = m.decision.unwrap_or(Decision::Delete);
        let mut findings = m.findings.clone();
        // Each Balanced pool of the move approved it (`EvaluateBalancedMove`: all must).
        for (pool, score) in balanced::evaluate_move(&prefix, m.savings, ctx.totals, false).into_iter().flatten() {
            findings
                .push(Reason::new(Code::BalancedScoreApproved, format!("NodePool \"{pool}\": {}", score.message())));
        }
        findings.push(Reason::new(
            Code::Underutilized,
            format!("{}-node consolidation: {} {} node(s)", prefix.len(), decision_word(decision), prefix.len()),
        ));
        outcome.commands.push(Command {
            method: Method::MultiNode,
            decision,
            candidates: prefix.iter().map(|c| c.index).collect(),
            replacements: m.replacement.into_iter().collect(),
            savings: m.savings,
            results: m.results,
            findings,
        });
    }
    outcome
}

fn approved(ctx: &Context<'_, '_>, prefix: &[&Candidate<'_>], savings: f64) -> bool {
    balanced::evaluate_move(prefix, savings, ctx.totals, false)
        .is_none_or(|scores| scores.iter().all(|(_, s)| s.approved))
}

fn decision_word(d: Decision) -> &'static str {
    match d {
        Decision::Delete => "delete",
        Decision::Replace => "replace",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::engine::replay;
    use crate::testing::{managed_node, node_pool, now, pod, set, snapshot};

    /// `filterOutSameInstanceType` prices the candidates' own m.xlarge by their labels
    /// (on-demand, 0.2), not by the replacement's spot requirement (0.08): m.xlarge launched as
    /// spot (worst 0.08) stays an option of the merged replacement.
    #[test]
    fn the_same_type_limit_comes_from_the_candidates_labels() {
        let pool = set(
            node_pool("default"),
            "/spec/template/spec/requirements",
            json!([{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand", "spot"]}]),
        );
        let mut objects = vec![pool];
        objects.extend(managed_node("node-a"));
        objects.extend(managed_node("node-b"));
        let half = |name: &str, node: &str| {
            set(
                pod(name, node),
                "/spec/containers",
                json!([{"name": "c", "resources": {"requests": {"cpu": "1500m"}}}]),
            )
        };
        objects.extend([half("a", "node-a"), half("b", "node-b")]);
        let r = replay(&snapshot(objects), now());
        let command = r.commands.first().expect("a command");
        assert_eq!(command.method.as_str(), "MultiNodeConsolidation");
        assert_eq!(command.replacements[0].instance_types, ["m.xlarge"]);
        assert_eq!(command.replacements[0].capacity_type, "spot");
    }
}
