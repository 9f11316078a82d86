//! Drift and StaticDrift: replace drifted nodes, oldest drift first, one per round, with as many
//! replacements as the pods need and no price check.
//!
//! Mirrors karpenter `pkg/controllers/disruption/drift.go` (`ShouldDisrupt`, `ComputeCommands`)
//! and `staticdrift.go`. StaticDrift is replayed without the NodePool `limits.nodes`
//! reservation.

use super::{Command, Context, Decision, Method, Outcome, Replacement};
use crate::engine::candidate::Candidate;
use crate::engine::nodepool::DisruptionReason;
use crate::engine::scheduling::{self, Options};
use crate::engine::state::Cluster;
use crate::reason::{Code, Reason};
use crate::rules::Rule;
use crate::snapshot::{condition, is_true};
use crate::upstream;

/// Whether the node's NodeClaim says `Drifted=True`.
pub(crate) fn is_drifted(cluster: &Cluster<'_>, c: &Candidate<'_>) -> bool {
    cluster.nodes[c.index].claim.is_some_and(|claim| is_true(&claim.status.conditions, "Drifted"))
}

/// Mirrors [`crate::upstream::DRIFT_SHOULD_DISRUPT`] (and StaticDrift's with `static_pool`).
pub(crate) fn should_disrupt(ctx: &Context<'_, '_>, c: &Candidate<'_>, static_pool: bool) -> bool {
    c.passes(c.has_termination_grace_period(ctx.cluster)) && c.is_static() == static_pool && is_drifted(ctx.cluster, c)
}

/// Mirrors [`crate::upstream::DRIFT_COMPUTE`].
pub(crate) fn compute_commands(ctx: &Context<'_, '_>) -> Outcome {
    let mut candidates: Vec<&Candidate<'_>> = ctx.candidates.iter().filter(|c| should_disrupt(ctx, c, false)).collect();
    let drifted_at = |c: &Candidate<'_>| {
        ctx.cluster.nodes[c.index]
            .claim
            .and_then(|claim| condition(&claim.status.conditions, "Drifted"))
            .and_then(|cond| cond.last_transition_time)
    };
    candidates.sort_by(|a, b| drifted_at(a).cmp(&drifted_at(b)).then_with(|| a.name.cmp(&b.name)));
    let rules = ctx.cluster.rules();
    let mut skipped: std::collections::BTreeMap<usize, Vec<Reason>> = std::collections::BTreeMap::new();
    if !rules.has(Rule::DriftUnbatchesEmpties) {
        if let Some(batch) = empty_batch(ctx, &candidates) {
            return batch;
        }
    } else if rules.has(Rule::DriftEmptiesFirst) {
        candidates.sort_by_key(|c| !c.reschedulable.is_empty());
    } else {
        // v1.5.0–v1.5.3 and v1.6.0–v1.6.1 (#2180, before #2423): empty drifted nodes are left
        // to Emptiness, which never takes them in a pool with `consolidateAfter: Never`.
        let (empty, with_pods): (Vec<_>, Vec<_>) = candidates.into_iter().partition(|c| c.reschedulable.is_empty());
        candidates = with_pods;
        let why = rules.cite_if_inactive(Rule::DriftEmptiesFirst).unwrap_or_default();
        for c in empty {
            skipped.entry(c.index).or_default().push(
                Reason::new(
                    Code::WaitingForOtherMethod,
                    format!("Drift leaves an empty drifted node to Emptiness; taking it first is {why}"),
                )
                .at(upstream::DRIFT_COMPUTE),
            );
        }
    }
    let mut outcome = Outcome { skipped, ..Outcome::default() };
    for c in candidates {
        if ctx.remaining(c, DisruptionReason::Drifted) <= 0 {
            outcome.skipped.entry(c.index).or_default().push(Reason::new(
                Code::BudgetExhausted,
                "no allowed disruptions for disruption reason Drifted this round".to_owned(),
            ));
            continue;
        }
        if let Some(reason) = scheduling::scheduler_error(ctx.world) {
            // The error ends the round: no later candidate, and no later method, is tried.
            outcome.skipped.entry(c.index).or_default().push(reason);
            outcome.failed = true;
            break;
        }
        let results = scheduling::simulate(ctx.world, &[c.index], Options::default());
        if let Some(errors) = results.non_pending_errors() {
            outcome.skipped.entry(c.index).or_default().push(
                Reason::new(Code::PodsCannotReschedule, super::consolidation::sentence(&errors))
                    .at(upstream::DRIFT_COMPUTE),
            );
            continue;
        }
        let replacements: Vec<Replacement> = results
            .new_claims
            .iter()
            .map(|claim| Replacement {
                node_pool: claim.node_pool.clone(),
                instance_types: claim.instance_types.clone(),
                capacity_type: capacity_types(ctx.cluster, &claim.instance_types, &claim.requirements),
                zones: zones(ctx.cluster, &claim.instance_types, &claim.requirements),
                worst_price: None,
                cheapest_price: None,
            })
            .collect();
        let decision = if replacements.is_empty() { Decision::Delete } else { Decision::Replace };
        let types: Vec<String> =
            replacements.iter().map(|r| format!("[{}]", crate::reason::abbreviate(&r.instance_types))).collect();
        let findings = vec![Reason::new(
            Code::Drifted,
            match replacements.len() {
                0 => "delete: every pod fits on existing nodes (no price check for drift)".to_owned(),
                n => format!("replace with {n} NodeClaim(s) {} (no price check for drift)", types.join(" ")),
            },
        )
        .at(upstream::DRIFT_COMPUTE)];
        outcome.commands.push(Command {
            method: Method::Drift,
            decision,
            candidates: vec![c.index],
            replacements,
            savings: 0.0,
            results,
            findings,
        });
        break;
    }
    outcome
}

/// Before v1.5.0 (#2180): every empty drifted node (no reschedulable pod) the pool's budget
/// allows, oldest drift first, in one delete command with no simulation; `None` when there is
/// none, and Drift then simulates the non-empty ones one at a time.
///
/// Mirrors karpenter v1.4.2 `pkg/controllers/disruption/drift.go` `Drift.ComputeCommand`.
fn empty_batch(ctx: &Context<'_, '_>, sorted: &[&Candidate<'_>]) -> Option<Outcome> {
    let mut left: std::collections::BTreeMap<&str, i64> = std::collections::BTreeMap::new();
    let mut taken = Vec::new();
    for c in sorted.iter().filter(|c| c.reschedulable.is_empty()) {
        let pool = c.pool.map_or("", |p| p.metadata.name.as_str());
        let budget = left.entry(pool).or_insert_with(|| ctx.remaining(c, DisruptionReason::Drifted));
        if *budget > 0 {
            *budget -= 1;
            taken.push(c.index);
        }
    }
    if taken.is_empty() {
        return None;
    }
    let finding = Reason::new(
        Code::Drifted,
        format!(
            "delete: empty, no simulation; {}",
            ctx.cluster.rules().cite_if_inactive(Rule::DriftUnbatchesEmpties).unwrap_or_default()
        ),
    )
    .at(upstream::DRIFT_COMPUTE);
    let mut outcome = Outcome::default();
    outcome.commands.push(Command {
        method: Method::Drift,
        decision: Decision::Delete,
        candidates: taken,
        replacements: Vec::new(),
        savings: 0.0,
        results: scheduling::Results::default(),
        findings: vec![finding],
    });
    Some(outcome)
}

/// StaticDrift: per static pool, replace up to its budget of drifted nodes from the template.
///
/// Mirrors [`crate::upstream::STATIC_DRIFT_COMPUTE`].
pub(crate) fn compute_static(ctx: &Context<'_, '_>) -> Outcome {
    let mut outcome = Outcome::default();
    let mut by_pool: std::collections::BTreeMap<String, Vec<&Candidate<'_>>> = std::collections::BTreeMap::new();
    for c in ctx.candidates.iter().filter(|c| should_disrupt(ctx, c, true)) {
        by_pool.entry(c.pool.map(|p| p.metadata.name.clone()).unwrap_or_default()).or_default().push(c);
    }
    for (pool, members) in by_pool {
        let budget = members.first().map_or(0, |c| ctx.remaining(c, DisruptionReason::Drifted));
        for (n, c) in members.into_iter().enumerate() {
            if (n as i64) >= budget {
                outcome.skipped.entry(c.index).or_default().push(Reason::new(
                    Code::BudgetExhausted,
                    format!("no allowed disruptions for disruption reason Drifted in NodePool \"{pool}\""),
                ));
                continue;
            }
            outcome.commands.push(Command {
                method: Method::StaticDrift,
                decision: Decision::Replace,
                candidates: vec![c.index],
                replacements: vec![Replacement {
                    node_pool: pool.clone(),
                    instance_types: Vec::new(),
                    capacity_type: String::new(),
                    zones: Vec::new(),
                    worst_price: None,
                    cheapest_price: None,
                }],
                savings: 0.0,
                results: scheduling::Results::default(),
                findings: vec![Reason::new(Code::Drifted, "static NodePool: replaced from the template")
                    .at(upstream::STATIC_DRIFT_COMPUTE)],
            });
        }
    }
    outcome
}

fn capacity_types(
    cluster: &Cluster<'_>,
    types: &[String],
    reqs: &crate::engine::scheduling::requirements::Requirements,
) -> String {
    let set: std::collections::BTreeSet<String> = types
        .iter()
        .filter_map(|n| cluster.instance_types.get(n.as_str()))
        .flat_map(|it| it.offerings.iter())
        .filter(|o| o.available && scheduling::offering_compatible(o, reqs))
        .map(|o| o.capacity_type.clone())
        .collect();
    set.into_iter().collect::<Vec<_>>().join(",")
}

fn zones(
    cluster: &Cluster<'_>,
    types: &[String],
    reqs: &crate::engine::scheduling::requirements::Requirements,
) -> Vec<String> {
    let set: std::collections::BTreeSet<String> = types
        .iter()
        .filter_map(|n| cluster.instance_types.get(n.as_str()))
        .flat_map(|it| it.offerings.iter())
        .filter(|o| o.available && scheduling::offering_compatible(o, reqs))
        .map(|o| o.zone.clone())
        .collect();
    set.into_iter().collect()
}
