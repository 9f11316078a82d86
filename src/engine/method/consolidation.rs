//! The shared core of the consolidation methods: for a set of candidates, simulate their
//! removal and decide delete, replace (only with something strictly cheaper) or nothing.
//!
//! Mirrors karpenter `pkg/controllers/disruption/consolidation.go` (`computeConsolidation`,
//! `computeSpotToSpotConsolidation`), `scheduling/nodeclaim.go`
//! (`RemoveInstanceTypeOptionsByPriceAndMinValues`) and `cloudprovider/types.go`
//! (`WorstLaunchPrice`). minValues is not re-checked after the price filter.

use std::collections::BTreeSet;

use super::{Decision, Replacement};
use crate::engine::candidate::Candidate;
use crate::engine::labels::CAPACITY_TYPE;
use crate::engine::pricing::{cheapest_price, worst_launch_price};
use crate::engine::scheduling::requirements::{Requirement, Requirements};
use crate::engine::scheduling::{self, offering_compatible, NewClaim, Options, Results, World};
use crate::engine::state::Cluster;
use crate::reason::{Code, Reason};
use crate::snapshot::InstanceType;
use crate::upstream;

/// Spot-to-spot single-node consolidation needs this many cheaper types.
pub const MIN_INSTANCE_TYPES_FOR_SPOT_TO_SPOT: usize = 15;

/// The outcome of one consolidation attempt.
#[derive(Debug, Clone, PartialEq)]
pub struct Move {
    /// `None`: nothing to do, and `findings` says why.
    pub decision: Option<Decision>,
    pub replacement: Option<Replacement>,
    pub savings: f64,
    pub results: Results,
    pub findings: Vec<Reason>,
}

/// Single or multi: they differ in the spot-to-spot flexibility rule and the same-type filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Single,
    Multi,
}

/// Mirrors [`crate::upstream::COMPUTE_CONSOLIDATION`].
pub fn compute_consolidation(
    world: &World<'_, '_>,
    candidates: &[&Candidate<'_>],
    kind: Kind,
    lift_pod_gates: bool,
) -> Move {
    let cluster = world.cluster;
    let indices: Vec<usize> = candidates.iter().map(|c| c.index).collect();
    let results =
        scheduling::simulate(world, &indices, Options { consolidation: true, lift_pod_gates, ..Options::default() });
    let candidate_price: f64 = candidates.iter().map(|c| c.price_or_zero()).sum();
    let nothing = |results: Results, reason: Reason| Move {
        decision: None,
        replacement: None,
        savings: 0.0,
        results,
        findings: vec![reason],
    };
    if let Some(errors) = results.non_pending_errors() {
        let code = if errors.contains("uninitialized nodeclaim") {
            Code::UninitializedDestination
        } else {
            Code::PodsCannotReschedule
        };
        return nothing(results, Reason::new(code, sentence(&errors)));
    }
    match results.new_claims.len() {
        0 => {
            let moved = results.moves.iter().filter(|m| !m.pending).count();
            let findings = vec![Reason::new(
                Code::PodsReschedule,
                format!("all {moved} pod(s) fit on existing nodes: delete saves ${candidate_price:.4}/h"),
            )];
            return Move {
                decision: Some(Decision::Delete),
                replacement: None,
                savings: candidate_price,
                results,
                findings,
            };
        }
        1 => {}
        n => {
            let reason =
                Reason::new(Code::MultipleReplacementsNeeded, format!("Can't remove without creating {n} candidates"));
            return nothing(results, reason);
        }
    }
    let claim = results.new_claims[0].clone();
    let types: Vec<&InstanceType> =
        claim.instance_types.iter().filter_map(|n| cluster.instance_types.get(n.as_str()).copied()).collect();
    let all_spot = candidates.iter().all(|c| cluster.nodes[c.index].label(CAPACITY_TYPE) == Some("spot"));
    let allows_spot = claim.requirements.get(CAPACITY_TYPE).is_none_or(|r| r.allows("spot"));
    if candidates.iter().any(|c| c.price.is_none()) {
        let unknown: Vec<&str> = candidates.iter().filter(|c| c.price.is_none()).map(|c| c.name.as_str()).collect();
        return nothing(
            results,
            Reason::new(
                Code::PriceUnknown,
                format!(
                    "no price for {}: Karpenter prices it 0, so nothing is cheaper and it can only be deleted",
                    unknown.join(", ")
                ),
            )
            .hint("pass --prices (Karpenter's /metrics or an InstanceTypes document)"),
        );
    }
    let mut reqs = claim.requirements.clone();
    if all_spot && allows_spot {
        if !cluster.snapshot.feature_gate("SpotToSpotConsolidation") {
            return nothing(
                results,
                Reason::new(
                    Code::SpotToSpotDisabled,
                    "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node",
                )
                .hint(
                    "enable the SpotToSpotConsolidation feature gate (settings.featureGates.spotToSpotConsolidation)",
                ),
            );
        }
        reqs.add(CAPACITY_TYPE, &Requirement::in_values(["spot"]));
    }
    let mut cheaper = cheaper_types(&types, &reqs, candidate_price);
    if kind == Kind::Multi {
        match filter_out_same_instance_type(cluster, candidates, &cheaper, &reqs) {
            Ok(kept) => cheaper = kept,
            Err(reason) => return nothing(results, reason),
        }
    }
    if cheaper.is_empty() {
        let cheapest_worst = types
            .iter()
            .filter_map(|it| worst_launch_price(it.offerings.iter().filter(|o| offering_compatible(o, &reqs))))
            .min_by(f64::total_cmp);
        let detail = cheapest_worst.map_or_else(
            || "no available offering".to_owned(),
            |p| format!("cheapest worst-case launch price ${p:.4}/h >= ${candidate_price:.4}/h"),
        );
        return nothing(
            results,
            Reason::new(Code::NotCheaper, format!("Can't replace with a cheaper node ({detail})")),
        );
    }
    if all_spot && allows_spot && kind == Kind::Single {
        if cheaper.len() < MIN_INSTANCE_TYPES_FOR_SPOT_TO_SPOT {
            return nothing(
                results,
                Reason::new(
                    Code::SpotFlexibilityTooLow,
                    format!(
                        "SpotToSpotConsolidation requires {MIN_INSTANCE_TYPES_FOR_SPOT_TO_SPOT} cheaper instance type options than the current candidate to consolidate, got {}",
                        cheaper.len()
                    ),
                ),
            );
        }
        cheaper.truncate(MIN_INSTANCE_TYPES_FOR_SPOT_TO_SPOT);
    }
    let ct = reqs.get(CAPACITY_TYPE);
    if ct.is_none_or(|r| r.allows("spot") && r.allows("on-demand")) {
        reqs.add(CAPACITY_TYPE, &Requirement::in_values(["spot"]));
    }
    let replacement = replacement(&claim, &cheaper, &reqs);
    let savings = candidate_price - replacement.cheapest_price.unwrap_or(0.0);
    let findings = vec![Reason::new(
        Code::Replacement,
        format!(
            "replace with 1 of [{}] ({}) worst price ${:.4}/h < ${candidate_price:.4}/h",
            crate::reason::abbreviate(&replacement.instance_types),
            replacement.capacity_type,
            replacement.worst_price.unwrap_or(0.0)
        ),
    )
    .at(upstream::FILTER_BY_PRICE)];
    Move { decision: Some(Decision::Replace), replacement: Some(replacement), savings, results, findings }
}

/// Types whose worst-case launch price is strictly below `limit`, cheapest first.
///
/// Mirrors [`crate::upstream::FILTER_BY_PRICE`].
fn cheaper_types<'a>(types: &[&'a InstanceType], reqs: &Requirements, limit: f64) -> Vec<&'a InstanceType> {
    let mut kept: Vec<(&InstanceType, f64)> = types
        .iter()
        .filter_map(|it| {
            let worst = worst_launch_price(it.offerings.iter().filter(|o| offering_compatible(o, reqs)))?;
            (worst < limit).then_some((*it, worst))
        })
        .collect();
    let cheapest = |it: &InstanceType| {
        cheapest_price(it.offerings.iter().filter(|o| offering_compatible(o, reqs))).unwrap_or(f64::MAX)
    };
    kept.sort_by(|a, b| cheapest(a.0).total_cmp(&cheapest(b.0)).then_with(|| a.0.name.cmp(&b.0.name)));
    kept.into_iter().map(|(it, _)| it).collect()
}

/// Stops "delete N nodes and launch one identical node".
///
/// Mirrors [`crate::upstream::FILTER_SAME_INSTANCE_TYPE`].
fn filter_out_same_instance_type<'a>(
    cluster: &Cluster<'_>,
    candidates: &[&Candidate<'_>],
    options: &[&'a InstanceType],
    reqs: &Requirements,
) -> Result<Vec<&'a InstanceType>, Reason> {
    let candidate_types: BTreeSet<&str> =
        candidates.iter().filter_map(|c| c.instance_type.map(|it| it.name.as_str())).collect();
    if !options.iter().any(|it| candidate_types.contains(it.name.as_str())) {
        return Ok(options.to_vec());
    }
    let limit = candidate_types
        .iter()
        .filter_map(|name| cluster.instance_types.get(name))
        .filter_map(|it| cheapest_price(it.offerings.iter().filter(|o| offering_compatible(o, reqs))))
        .min_by(f64::total_cmp)
        .unwrap_or(f64::MAX);
    let kept: Vec<&InstanceType> = options
        .iter()
        .copied()
        .filter(|it| {
            worst_launch_price(it.offerings.iter().filter(|o| offering_compatible(o, reqs))).is_some_and(|w| w < limit)
        })
        .collect();
    if kept.is_empty() {
        return Err(Reason::new(
            Code::SameInstanceType,
            "the only replacement is the candidates' own instance type: Karpenter won't delete nodes to launch an identical one",
        ));
    }
    Ok(kept)
}

fn replacement(claim: &NewClaim, types: &[&InstanceType], reqs: &Requirements) -> Replacement {
    let compatible = |it: &&InstanceType| {
        it.offerings.iter().filter(|o| offering_compatible(o, reqs) && o.available).cloned().collect::<Vec<_>>()
    };
    let zones: BTreeSet<String> = types.iter().flat_map(|it| compatible(it).into_iter().map(|o| o.zone)).collect();
    let capacity_types: BTreeSet<String> =
        types.iter().flat_map(|it| compatible(it).into_iter().map(|o| o.capacity_type)).collect();
    let worst = types
        .iter()
        .filter_map(|it| worst_launch_price(it.offerings.iter().filter(|o| offering_compatible(o, reqs))))
        .max_by(f64::total_cmp);
    let cheapest =
        types.first().and_then(|it| cheapest_price(it.offerings.iter().filter(|o| offering_compatible(o, reqs))));
    Replacement {
        node_pool: claim.node_pool.clone(),
        instance_types: types.iter().map(|it| it.name.clone()).collect(),
        capacity_type: capacity_types.into_iter().collect::<Vec<_>>().join(","),
        zones: zones.into_iter().collect(),
        worst_price: worst,
        cheapest_price: cheapest,
    }
}

/// Karpenter sentence-cases error text in events (`pretty.Sentence`).
pub fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| first.to_uppercase().chain(chars).collect())
}
