//! The shared core of the consolidation methods: for a set of candidates, simulate their
//! removal and decide delete, replace (only with something strictly cheaper) or nothing.
//!
//! Mirrors karpenter `pkg/controllers/disruption/consolidation.go` (`computeConsolidation`,
//! `computeSpotToSpotConsolidation`), `scheduling/nodeclaim.go`
//! (`RemoveInstanceTypeOptionsByPriceAndMinValues`) and `cloudprovider/types.go`
//! (`WorstLaunchPrice`). minValues is re-checked after every narrowing ([`MinValues`]), and a
//! single spot-to-spot replacement keeps `max(15, what minValues needs)` types; an unpriced
//! candidate counts 0 in the candidates' price (`sumCandidatePrices`). One guard of our own sits
//! on top and cannot be turned off: no replacement without a positive saving at its worst launch
//! price (upstream's filter already ensures it unless a later narrowing changes the price).

use std::collections::{BTreeMap, BTreeSet};

use super::candidate_prices::{candidate_prices, pricing_error};
use super::{Decision, Replacement};
use crate::engine::candidate::Candidate;
use crate::engine::labels::CAPACITY_TYPE;
use crate::engine::min_values::MinValues;
use crate::engine::pricing::{cheapest_price, worst_launch_price};
use crate::engine::scheduling::requirements::{Requirement, Requirements};
use crate::engine::scheduling::{self, offering_compatible, NewClaim, Options, Results, World};
use crate::engine::state::Cluster;
use crate::reason::{Code, Reason};
use crate::rules::Rule;
use crate::snapshot::InstanceType;
use crate::upstream;

/// Spot-to-spot single-node consolidation needs this many cheaper types.
pub(crate) const MIN_INSTANCE_TYPES_FOR_SPOT_TO_SPOT: usize = 15;

/// The outcome of one consolidation attempt.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Move {
    /// `None`: nothing to do, and `findings` says why.
    pub decision: Option<Decision>,
    pub replacement: Option<Replacement>,
    pub savings: f64,
    /// The citation of the estimated-savings rule (#3238) when the figure depends on it: the
    /// replacement's first type has an available offering its NodeClaim may not launch that
    /// is cheaper than those it may.
    pub savings_rule: Option<String>,
    /// The error the attempt returned (pricing, before v1.9.0): single-node moves on to the
    /// next candidate, multi-node ends the round.
    pub error: Option<String>,
    pub results: Results,
    pub findings: Vec<Reason>,
}

/// Single or multi: they differ in the spot-to-spot flexibility rule and the same-type filter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Single,
    Multi,
}

/// Mirrors [`crate::upstream::COMPUTE_CONSOLIDATION`].
///
/// With `decision_only` a failed move carries no per-pod detail. A move that is made is the
/// same either way: a decision-only pass stops early only on the way to no command, and with
/// every bound pod placed there is no refusal to spell out; its results are marked as a full
/// pass's, so that whoever asks for their detail later gets it.
pub(crate) fn compute_consolidation(
    world: &World<'_, '_>,
    candidates: &[&Candidate<'_>],
    kind: Kind,
    lift_pod_gates: bool,
    decision_only: bool,
) -> Move {
    let mut m = consolidate(world, candidates, kind, lift_pod_gates, decision_only);
    if m.decision.is_some() {
        m.results.options.decision_only = false;
    }
    m
}

fn consolidate(
    world: &World<'_, '_>,
    candidates: &[&Candidate<'_>],
    kind: Kind,
    lift_pod_gates: bool,
    decision_only: bool,
) -> Move {
    let cluster = world.cluster;
    let indices: Vec<usize> = candidates.iter().map(|c| c.index).collect();
    let options = Options { consolidation: true, lift_pod_gates, decision_only, ..Options::default() };
    let nothing = |results: Results, reason: Reason| Move {
        decision: None,
        replacement: None,
        savings: 0.0,
        savings_rule: None,
        error: None,
        results,
        findings: vec![reason],
    };
    if let Some(reason) = scheduling::scheduler_error(world) {
        let results = Results { candidates: indices, options, ..Results::default() };
        return nothing(results, reason);
    }
    let results = scheduling::simulate(world, &indices, options);
    let candidate_price: f64 = candidates.iter().map(|c| c.price_or_zero()).sum();
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
                savings_rule: None,
                error: None,
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
    // Priced only now, as upstream does: a delete never needs the candidates' price.
    let candidate_price = match candidate_prices(cluster, candidates) {
        Ok(price) => price,
        Err(error) => {
            let reason = pricing_error(cluster, &error);
            return Move { error: Some(error), ..nothing(results, reason) };
        }
    };
    let claim = results.new_claims[0].clone();
    let types: Vec<&InstanceType> =
        claim.instance_types.iter().filter_map(|n| cluster.instance_types.get(n.as_str()).copied()).collect();
    // The claim's own minValues: the pool's, or what BestEffort relaxed them to.
    let min_values = claim.min_values.clone();
    let unpriced: Vec<&str> = candidates.iter().filter(|c| c.price.is_none()).map(|c| c.name.as_str()).collect();
    let narrowed = match narrow(cluster, candidates, &claim, &types, &min_values, candidate_price, kind) {
        Ok(narrowed) => narrowed,
        Err(reason) => return nothing(results, not_cheaper_hint(reason, &unpriced)),
    };
    let (cheaper, reqs) = match kind {
        Kind::Single => narrowed,
        Kind::Multi => {
            let (options, reqs) = narrowed;
            match filter_out_same_instance_type(cluster, candidates, &options, &reqs, &min_values) {
                Ok(kept) => (kept, reqs),
                Err(reason) => return nothing(results, reason),
            }
        }
    };
    let rules = cluster.rules();
    let compatible_only = rules.has(Rule::EstimatedSavingsCompatibleOfferings);
    let replacement = replacement(&claim, &cheaper, &reqs, compatible_only);
    if let Err(reason) = positive_worst_case_savings(candidate_price, &replacement) {
        return nothing(results, reason);
    }
    let savings = candidate_price - replacement.cheapest_price.unwrap_or(0.0);
    let other_rule = replacement_price(&cheaper, &reqs, !compatible_only);
    let savings_rule = (other_rule != replacement.cheapest_price).then(|| {
        let figure = format!("savings priced at ${:.4}/h", replacement.cheapest_price.unwrap_or(0.0));
        match rules.cite_if_active(Rule::EstimatedSavingsCompatibleOfferings) {
            Some(cite) => format!("{figure}, the cheapest offering the NodeClaim allows ({cite})"),
            None => format!(
                "{figure} ({})",
                rules.cite_if_inactive(Rule::EstimatedSavingsCompatibleOfferings).unwrap_or_default()
            ),
        }
    });
    let mut text = format!(
        "replace with 1 of [{}] ({}) worst price ${:.4}/h < ${candidate_price:.4}/h",
        crate::reason::abbreviate(&replacement.instance_types),
        replacement.capacity_type,
        replacement.worst_price.unwrap_or(0.0)
    );
    if let Some(rule) = &savings_rule {
        text = format!("{text}; {rule}");
    }
    let findings = vec![Reason::new(Code::Replacement, text).at(upstream::FILTER_BY_PRICE)];
    Move {
        decision: Some(Decision::Replace),
        replacement: Some(replacement),
        savings,
        savings_rule,
        error: None,
        results,
        findings,
    }
}

/// The replacement's instance types and requirements after the price filter (and, for spot
/// candidates, the spot-to-spot rules), or why no replacement is valid.
///
/// Mirrors the replace branch of [`crate::upstream::COMPUTE_CONSOLIDATION`] and
/// [`crate::upstream::SPOT_TO_SPOT`].
fn narrow<'a>(
    cluster: &Cluster<'a>,
    candidates: &[&Candidate<'_>],
    claim: &NewClaim,
    types: &[&'a InstanceType],
    min_values: &MinValues,
    candidate_price: f64,
    kind: Kind,
) -> Result<(Vec<&'a InstanceType>, Requirements), Reason> {
    let all_spot = candidates.iter().all(|c| cluster.nodes[c.index].label(CAPACITY_TYPE) == Some("spot"));
    let allows_spot = claim.requirements.get(CAPACITY_TYPE).is_none_or(|r| r.allows("spot"));
    let mut reqs = claim.requirements.clone();
    if all_spot && allows_spot {
        if !cluster.snapshot.feature_gate("SpotToSpotConsolidation") {
            return Err(Reason::new(
                Code::SpotToSpotDisabled,
                "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node",
            )
            .hint("enable the SpotToSpotConsolidation feature gate (settings.featureGates.spotToSpotConsolidation)"));
        }
        reqs.add(CAPACITY_TYPE, &Requirement::in_values(["spot"]));
        let compatible: Vec<&InstanceType> = types
            .iter()
            .copied()
            .filter(|it| it.offerings.iter().any(|o| o.available && offering_compatible(o, &reqs)))
            .collect();
        let mut cheaper = remove_by_price_and_min_values(&compatible, &reqs, min_values, candidate_price)?;
        if cheaper.is_empty() {
            return Err(not_cheaper(&compatible, &reqs, candidate_price));
        }
        if kind == Kind::Single {
            if cheaper.len() < MIN_INSTANCE_TYPES_FOR_SPOT_TO_SPOT {
                return Err(Reason::new(
                    Code::SpotFlexibilityTooLow,
                    format!(
                        "SpotToSpotConsolidation requires {MIN_INSTANCE_TYPES_FOR_SPOT_TO_SPOT} cheaper instance type options than the current candidate to consolidate, got {}",
                        cheaper.len()
                    ),
                ));
            }
            // With minValues, keep as many as they need when that is more than 15 (the list
            // is cheapest first, so the count `SatisfiesMinValues` returns is a prefix).
            let needed = min_values.satisfied_by(&cheaper).unwrap_or(cheaper.len());
            cheaper.truncate(MIN_INSTANCE_TYPES_FOR_SPOT_TO_SPOT.max(needed));
        }
        return Ok((cheaper, reqs));
    }
    let cheaper = remove_by_price_and_min_values(types, &reqs, min_values, candidate_price)?;
    if cheaper.is_empty() {
        return Err(not_cheaper(types, &reqs, candidate_price));
    }
    // The filter priced the launch as spot when spot is allowed: pin it, so that a spot
    // shortage fails the launch instead of buying dearer on-demand capacity.
    let ct = reqs.get(CAPACITY_TYPE);
    if ct.is_none_or(|r| r.allows("spot") && r.allows("on-demand")) {
        reqs.add(CAPACITY_TYPE, &Requirement::in_values(["spot"]));
    }
    Ok((cheaper, reqs))
}

/// Keeps the types whose worst-case launch price is strictly below `max_price` (cheapest
/// first), then re-checks minValues on what is left: a narrowing that breaks them makes the
/// move invalid, with upstream's `Filtering by price: …` text.
///
/// Mirrors [`crate::upstream::FILTER_BY_PRICE`].
pub(crate) fn remove_by_price_and_min_values<'a>(
    types: &[&'a InstanceType],
    reqs: &Requirements,
    min_values: &MinValues,
    max_price: f64,
) -> Result<Vec<&'a InstanceType>, Reason> {
    let kept = cheaper_types(types, reqs, max_price);
    match min_values.satisfied_by(&kept) {
        Ok(_) => Ok(kept),
        Err(e) => {
            Err(Reason::new(Code::MinValuesNotMet, format!("Filtering by price: {e}")).at(upstream::FILTER_BY_PRICE))
        }
    }
}

fn not_cheaper(types: &[&InstanceType], reqs: &Requirements, candidate_price: f64) -> Reason {
    let cheapest_worst = types
        .iter()
        .filter_map(|it| worst_launch_price(it.offerings.iter().filter(|o| offering_compatible(o, reqs))))
        .min_by(f64::total_cmp);
    let detail = cheapest_worst.map_or_else(
        || "no available offering".to_owned(),
        |p| format!("cheapest worst-case launch price ${p:.4}/h >= ${candidate_price:.4}/h"),
    );
    Reason::new(Code::NotCheaper, format!("Can't replace with a cheaper node ({detail})"))
}

/// An unpriced candidate counts 0 in the candidates' price (`sumCandidatePrices`); when that
/// is why nothing is cheaper, say so.
fn not_cheaper_hint(reason: Reason, unpriced: &[&str]) -> Reason {
    if reason.code != Code::NotCheaper || unpriced.is_empty() {
        return reason;
    }
    Reason::new(
        Code::PriceUnknown,
        format!("{}; no price for {}, which Karpenter counts as 0", reason.message, unpriced.join(", ")),
    )
    .hint("pass --prices (Karpenter's /metrics or an InstanceTypes document)")
}

/// The guard no configuration turns off: a replacement is proposed only if it saves money
/// even at its worst launch price. Upstream's filter keeps only types whose worst price is
/// below the candidates' (so this holds whenever the filter ran on the final requirements);
/// the guard makes it hold whatever a later narrowing (spot pinning, reserved offerings) did.
pub(crate) fn positive_worst_case_savings(candidate_price: f64, replacement: &Replacement) -> Result<(), Reason> {
    match replacement.worst_price {
        Some(worst) if candidate_price - worst > 0.0 => Ok(()),
        worst => Err(Reason::new(
            Code::NoPositiveSavings,
            format!(
                "the replacement's worst launch price {} is not below the candidates' ${candidate_price:.4}/h: no saving is certain",
                worst.map_or_else(|| "is unknown and".to_owned(), |w| format!("${w:.4}/h"))
            ),
        )),
    }
}

/// Types whose worst-case launch price is strictly below `limit`, cheapest first.
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

/// The replacement the command launches. Its `cheapest_price` is the savings estimate's figure
/// ([`crate::upstream::ESTIMATED_SAVINGS`]): the cheapest available offering of the first type,
/// among those the NodeClaim's requirements allow when `compatible_only` (v1.14.1, #3238),
/// among all of them before.
fn replacement(claim: &NewClaim, types: &[&InstanceType], reqs: &Requirements, compatible_only: bool) -> Replacement {
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
    let cheapest = replacement_price(types, reqs, compatible_only);
    Replacement {
        node_pool: claim.node_pool.clone(),
        instance_types: types.iter().map(|it| it.name.clone()).collect(),
        capacity_type: capacity_types.into_iter().collect::<Vec<_>>().join(","),
        zones: zones.into_iter().collect(),
        worst_price: worst,
        cheapest_price: cheapest,
    }
}

/// The savings estimate's price of a replacement: the cheapest available offering of its first
/// type, only among those `reqs` allow when `compatible_only`.
fn replacement_price(types: &[&InstanceType], reqs: &Requirements, compatible_only: bool) -> Option<f64> {
    types
        .first()
        .and_then(|it| cheapest_price(it.offerings.iter().filter(|o| !compatible_only || offering_compatible(o, reqs))))
}

/// Karpenter sentence-cases error text in events (`pretty.Sentence`).
pub(crate) fn sentence(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| first.to_uppercase().chain(chars).collect())
}

/// Stops "delete N nodes and launch one identical node": when a replacement option is one of
/// the candidates' own types, keep only options whose worst launch price is below the cheapest
/// price of that type, each candidate priced by the offerings compatible with its *own labels*
/// (its zone and capacity type, availability ignored). Then minValues is re-checked.
///
/// Mirrors [`crate::upstream::FILTER_SAME_INSTANCE_TYPE`] (defined upstream in
/// `multinodeconsolidation.go`; `computeConsolidation` is its caller, so its twin lives here).
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{positive_worst_case_savings, remove_by_price_and_min_values};
    use crate::engine::method::Replacement;
    use crate::engine::min_values::MinValues;
    use crate::engine::replay;
    use crate::engine::scheduling::requirements::Requirements;
    use crate::reason::Code;
    use crate::snapshot::{InstanceType, NodePool, NodeSelectorRequirement, Offering};
    use crate::testing::{managed_node, node_pool, now, pod, set, snapshot};

    fn on_demand(name: &str, price: f64) -> InstanceType {
        let offering = Offering {
            zone: "zone-a".into(),
            capacity_type: "on-demand".into(),
            price: Some(price),
            ..Offering::default()
        };
        InstanceType { name: name.into(), offerings: vec![offering], ..InstanceType::default() }
    }

    fn min_types(n: i32) -> MinValues {
        let mut pool = NodePool::default();
        pool.spec.template.spec.requirements = vec![NodeSelectorRequirement {
            key: "node.kubernetes.io/instance-type".into(),
            operator: "Exists".into(),
            values: vec![],
            min_values: Some(n),
        }];
        MinValues::of_pool(Some(&pool))
    }

    /// `RemoveInstanceTypeOptionsByPriceAndMinValues`: strictly cheaper, then minValues.
    #[test]
    fn the_price_filter_rechecks_min_values_on_what_it_keeps() {
        let types = [on_demand("c", 0.3), on_demand("a", 0.1), on_demand("b", 0.2), on_demand("d", 0.4)];
        let options: Vec<&InstanceType> = types.iter().collect();
        let any = Requirements::default();
        let kept = remove_by_price_and_min_values(&options, &any, &min_types(2), 0.3).unwrap();
        assert_eq!(kept.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), ["a", "b"]);
        let refused = remove_by_price_and_min_values(&options, &any, &min_types(3), 0.3).unwrap_err();
        assert_eq!(refused.code, Code::MinValuesNotMet);
        assert_eq!(
            refused.message,
            "Filtering by price: minValues requirement is not met for label(s) (label(s)=[node.kubernetes.io/instance-type])"
        );
        // Nothing cheaper is not a minValues error: the caller says "Can't replace with a cheaper node".
        assert!(remove_by_price_and_min_values(&options, &any, &min_types(3), 0.1).unwrap().is_empty());
    }

    #[test]
    fn the_guard_wants_a_saving_at_the_worst_price() {
        let replacement = |worst| Replacement {
            node_pool: "default".into(),
            instance_types: vec!["a".into()],
            capacity_type: "spot".into(),
            zones: vec![],
            worst_price: worst,
            cheapest_price: worst,
        };
        assert!(positive_worst_case_savings(1.0, &replacement(Some(0.99))).is_ok());
        for worst in [Some(1.0), Some(1.2), None] {
            assert_eq!(
                positive_worst_case_savings(1.0, &replacement(worst)).unwrap_err().code,
                Code::NoPositiveSavings
            );
        }
    }

    /// `sumCandidatePrices` counts an unpriced node 0, so alone it can only be deleted: its
    /// replacement is never cheaper, and the report says why.
    #[test]
    fn an_unpriced_candidate_alone_is_not_cheaper_to_replace() {
        let [node, claim] = managed_node("node-a");
        let node = set(node, "/metadata/labels/topology.kubernetes.io~1zone", json!("zone-z"));
        let big = set(
            pod("big", "node-a"),
            "/spec/containers",
            json!([{"name": "c", "resources": {"requests": {"cpu": "3"}}}]),
        );
        let r = replay(&snapshot(vec![node_pool("default"), node, claim, big]), now());
        let a = r.nodes.iter().find(|n| n.name == "node-a").unwrap();
        assert_eq!(a.price, None);
        let unknown = a.reasons.iter().find(|x| x.code == Code::PriceUnknown).expect("PriceUnknown");
        assert!(unknown.message.starts_with("Can't replace with a cheaper node"), "{}", unknown.message);
    }
}
