//! MultiNodeConsolidation: the largest prefix of the sorted candidates that can be deleted
//! together, or replaced by one cheaper node, found by binary search.
//!
//! Mirrors karpenter `pkg/controllers/disruption/multinodeconsolidation.go`
//! (`ComputeCommands`, `firstNConsolidationOption`, `filterOutSameInstanceType` with its
//! minValues re-check). Upstream's 1-minute timeout is not needed offline. Bounds are
//! upstream's, including its off-by-one: with more than 100 eligible candidates the largest
//! prefix tried is 101.

use std::collections::{BTreeMap, BTreeSet};

use super::consolidation::{compute_consolidation, remove_by_price_and_min_values, Kind, Move};
use super::{sort_candidates, Command, Context, Decision, Method, Outcome};
use crate::engine::balanced;
use crate::engine::candidate::Candidate;
use crate::engine::min_values::MinValues;
use crate::engine::nodepool::DisruptionReason;
use crate::engine::scheduling::offering_compatible;
use crate::engine::scheduling::requirements::Requirements;
use crate::engine::state::Cluster;
use crate::reason::{Code, Reason};
use crate::snapshot::InstanceType;
use crate::upstream;

/// Most nodes one multi-node command may take (`maxParallel`).
pub(crate) const MAX_PARALLEL: usize = 100;

/// Mirrors [`crate::upstream::MULTI_NODE_COMPUTE`].
pub(crate) fn compute_commands(ctx: &Context<'_, '_>) -> Outcome {
    let mut outcome = Outcome::default();
    let mut candidates = ctx.consolidation_candidates();
    sort_candidates(&mut candidates);
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

/// Stops "delete N nodes and launch one identical node": when a replacement option is one of
/// the candidates' own types, keep only options whose worst launch price is below the cheapest
/// price of that type, each candidate priced by the offerings compatible with its *own labels*
/// (its zone and capacity type, availability ignored). Then minValues is re-checked.
///
/// Mirrors [`crate::upstream::FILTER_SAME_INSTANCE_TYPE`].
pub(crate) fn filter_out_same_instance_type<'a>(
    cluster: &Cluster<'_>,
    candidates: &[&Candidate<'_>],
    options: &[&'a InstanceType],
    reqs: &Requirements,
    min_values: &MinValues,
) -> Result<Vec<&'a InstanceType>, Reason> {
    let mut existing: BTreeSet<&str> = BTreeSet::new();
    let mut price_by_type: BTreeMap<&str, f64> = BTreeMap::new();
    for c in candidates {
        let Some(it) = c.instance_type else { continue };
        existing.insert(it.name.as_str());
        let own = Requirements::from_labels(cluster.nodes[c.index].labels());
        let cheapest =
            it.offerings.iter().filter(|o| offering_compatible(o, &own)).filter_map(|o| o.price).min_by(f64::total_cmp);
        if let Some(p) = cheapest {
            let entry = price_by_type.entry(it.name.as_str()).or_insert(f64::MAX);
            *entry = entry.min(p);
        }
    }
    // A candidate type without a compatible offering reads as 0 from upstream's map (Go's zero
    // value), which then lets nothing through.
    let max_price = options
        .iter()
        .filter(|it| existing.contains(it.name.as_str()))
        .map(|it| price_by_type.get(it.name.as_str()).copied().unwrap_or(0.0))
        .fold(f64::MAX, f64::min);
    let kept = remove_by_price_and_min_values(options, reqs, min_values, max_price).map_err(|r| {
        Reason::new(r.code, r.message.replacen("Filtering by price: ", "", 1)).at(upstream::FILTER_SAME_INSTANCE_TYPE)
    })?;
    if kept.is_empty() {
        let same: Vec<&str> = options.iter().map(|it| it.name.as_str()).filter(|n| existing.contains(n)).collect();
        return Err(Reason::new(
            Code::SameInstanceType,
            format!(
                "no replacement option is cheaper than the candidates' own {} at ${max_price:.4}/h: Karpenter won't delete nodes to launch an identical one",
                same.join(", ")
            ),
        ));
    }
    Ok(kept)
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
