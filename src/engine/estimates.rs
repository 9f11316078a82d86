//! Which verdicts rest on figures the catalogue estimated, so that only those carry
//! `Uncertain` (the report's header lists every estimate once, whatever it touches).
//!
//! No upstream twin: Karpenter knows its own figures; we say where ours are guesses. A figure
//! is estimated when its source tag (`InstanceType::sources`, `Offering::source`, written by
//! `catalogue::complete`) is one of [`ESTIMATED_CAPACITY`] or [`ESTIMATED_PRICE`]; a document's
//! own figures and those read from Nodes, NodeClaims or Karpenter's price metrics are not.
//!
//! What a verdict rests on:
//! - a verdict a candidate gate decided (a blocker) rests on no catalogue figure;
//! - the savings of a command, and the price filter, the spot-to-spot check and the Balanced
//!   score, rest on the node's own price and the replacement's prices;
//! - whether pods fit a new NodeClaim rests on the capacity and overhead of the types it may use.

use std::collections::{BTreeMap, BTreeSet};

use super::method::Replacement;
use super::verdict::NodeVerdict;
use crate::reason::{abbreviate, Code, Reason};
use crate::snapshot::{InstanceType, Snapshot};

/// Capacity sources that are not the real figure: the embedded catalogue's pre-launch formula,
/// and metrics' raw cpu/memory (no VM overhead).
pub(crate) const ESTIMATED_CAPACITY: &[&str] = &["aws-catalogue", "metrics"];
/// Price sources that are not a price Karpenter read: static list prices, spot at on-demand.
pub(crate) const ESTIMATED_PRICE: &[&str] = &["aws-static-price", "estimate"];

/// Capacity figures (`sources` keys) that decide whether pods fit.
const CAPACITY_FIGURES: &[&str] = &["cpu", "memory", "pods", "ephemeral-storage", "overhead"];

/// Outcomes decided by comparing prices.
const PRICE_CODES: &[Code] = &[
    Code::Underutilized,
    Code::Replacement,
    Code::NotCheaper,
    Code::PriceUnknown,
    Code::SpotToSpotDisabled,
    Code::SpotFlexibilityTooLow,
    Code::BalancedScoreTooLow,
    Code::BalancedScoreApproved,
    Code::NoPositiveSavings,
    Code::SameInstanceType,
    Code::MinValuesNotMet,
];

/// Outcomes of a replacement that failed on price: every type it may open was weighed.
const FAILED_ON_PRICE: &[Code] = &[
    Code::NotCheaper,
    Code::PriceUnknown,
    Code::SpotToSpotDisabled,
    Code::SpotFlexibilityTooLow,
    Code::BalancedScoreTooLow,
    Code::NoPositiveSavings,
    Code::SameInstanceType,
    Code::MinValuesNotMet,
];

/// Outcomes decided by whether pods fit new NodeClaims.
const CAPACITY_CODES: &[Code] =
    &[Code::PodsCannotReschedule, Code::MultipleReplacementsNeeded, Code::Replacement, Code::MinValuesNotMet];

/// The estimated figures of one snapshot's catalogue.
pub(crate) struct Estimates<'a> {
    /// Type → the estimated capacity sources it carries.
    capacity: BTreeMap<&'a str, BTreeSet<&'a str>>,
    /// Types with at least one offering priced by estimate.
    priced: BTreeSet<&'a str>,
    types: BTreeMap<&'a str, &'a InstanceType>,
}

impl<'a> Estimates<'a> {
    pub(crate) fn new(snapshot: &'a Snapshot) -> Self {
        let mut capacity: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
        let mut priced = BTreeSet::new();
        let mut types = BTreeMap::new();
        for it in &snapshot.instance_types {
            types.entry(it.name.as_str()).or_insert(it);
            for figure in CAPACITY_FIGURES {
                if let Some(source) = it.sources.get(*figure).filter(|s| ESTIMATED_CAPACITY.contains(&s.as_str())) {
                    capacity.entry(it.name.as_str()).or_default().insert(source.as_str());
                }
            }
            if it.offerings.iter().any(|o| o.source.as_deref().is_some_and(|s| ESTIMATED_PRICE.contains(&s))) {
                priced.insert(it.name.as_str());
            }
        }
        Estimates { capacity, priced, types }
    }

    /// Whether the catalogue estimated anything at all.
    pub(crate) fn is_empty(&self) -> bool {
        self.capacity.is_empty() && self.priced.is_empty()
    }

    /// The `Uncertain` reasons verdict `v` earns, given the replacements of its command.
    pub(crate) fn reasons_for(&self, v: &NodeVerdict, replacements: Option<&[Replacement]>) -> Vec<Reason> {
        if self.is_empty() || !v.blockers.is_empty() {
            return Vec::new();
        }
        let has = |codes: &[Code]| v.reasons.iter().any(|r| codes.contains(&r.code));
        let mut out = Vec::new();
        // A command's savings, and any price comparison, rest on the node's own price.
        if replacements.is_some() || has(PRICE_CODES) {
            if let Some(source) = self.own_price_source(v) {
                out.push(Reason::new(
                    Code::Uncertain,
                    format!(
                        "this node's price ({} {} in {}) is an estimate ({source}), and the savings rest on it",
                        v.instance_type.as_deref().unwrap_or("?"),
                        v.capacity_type.as_deref().unwrap_or("?"),
                        v.zone.as_deref().unwrap_or("?"),
                    ),
                ));
            }
        }
        // A command: a delete placed every pod on existing nodes (no catalogue figure); a
        // replace rests on its replacement's types. No command: a failed simulation or price
        // comparison weighed every type it may open.
        if let Some(replacements) = replacements {
            let estimated: BTreeSet<&str> = replacements
                .iter()
                .flat_map(|r| r.instance_types.iter().map(String::as_str))
                .filter(|t| self.priced.contains(*t) || self.capacity.contains_key(*t))
                .collect();
            if !estimated.is_empty() {
                let estimated: Vec<String> = estimated.into_iter().map(str::to_owned).collect();
                out.push(Reason::new(
                    Code::Uncertain,
                    format!(
                        "the replacement's {} {} estimated figures ({}): the command rests on them",
                        abbreviate(&estimated),
                        if estimated.len() == 1 { "has" } else { "have" },
                        self.sources_of(&estimated),
                    ),
                ));
            }
        } else {
            let priced = if has(FAILED_ON_PRICE) { self.priced.len() } else { 0 };
            let sized = if has(CAPACITY_CODES) { self.capacity.len() } else { 0 };
            if priced + sized > 0 {
                out.push(Reason::new(Code::Uncertain, weighed_everything(priced, sized)));
            }
        }
        out
    }

    fn own_price_source(&self, v: &NodeVerdict) -> Option<&'a str> {
        let it = self.types.get(v.instance_type.as_deref()?)?;
        let zone = v.zone.as_deref()?;
        let capacity_type = v.capacity_type.as_deref()?;
        it.offerings
            .iter()
            .find(|o| o.zone == zone && o.capacity_type == capacity_type)
            .and_then(|o| o.source.as_deref())
            .filter(|s| ESTIMATED_PRICE.contains(s))
    }

    fn sources_of(&self, types: &[String]) -> String {
        let mut capacity = BTreeSet::new();
        let mut price = BTreeSet::new();
        for t in types {
            capacity.extend(self.capacity.get(t.as_str()).into_iter().flatten().copied());
            if let Some(it) = self.types.get(t.as_str()) {
                price.extend(
                    it.offerings.iter().filter_map(|o| o.source.as_deref()).filter(|s| ESTIMATED_PRICE.contains(s)),
                );
            }
        }
        let mut parts = Vec::new();
        if !capacity.is_empty() {
            parts.push(format!("capacity from {}", capacity.into_iter().collect::<Vec<_>>().join(", ")));
        }
        if !price.is_empty() {
            parts.push(format!("prices from {}", price.into_iter().collect::<Vec<_>>().join(", ")));
        }
        parts.join("; ")
    }
}

/// What a failed simulation or price comparison weighed, when no replacement is named.
fn weighed_everything(priced: usize, sized: usize) -> String {
    let mut parts = Vec::new();
    if sized > 0 {
        parts.push(format!("the capacity of {sized} instance types"));
    }
    if priced > 0 {
        parts.push(format!("the prices of {priced} instance types"));
    }
    format!(
        "this verdict weighed new NodeClaims, and {} it could use are estimates (see the report's warnings)",
        parts.join(" and ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::verdict::{Action, Verdict};
    use crate::snapshot::Offering;

    fn it(name: &str, capacity_source: Option<&str>, price_source: &str) -> InstanceType {
        let mut it = InstanceType { name: name.into(), ..InstanceType::default() };
        if let Some(s) = capacity_source {
            it.sources.insert("pods".into(), s.into());
        }
        it.offerings.push(Offering {
            zone: "z1".into(),
            capacity_type: "on-demand".into(),
            price: Some(0.1),
            source: Some(price_source.into()),
            ..Offering::default()
        });
        it
    }

    fn verdict(codes: &[Code], blockers: &[Code]) -> NodeVerdict {
        NodeVerdict {
            name: "n".into(),
            node_claim: None,
            node_pool: Some("p".into()),
            instance_type: Some("m5.large".into()),
            zone: Some("z1".into()),
            capacity_type: Some("on-demand".into()),
            price: Some(0.1),
            verdict: Verdict::Safe,
            reason: None,
            action: Action::None,
            method: None,
            disruption_cost: 0.0,
            blockers: blockers.to_vec(),
            reasons: codes.iter().map(|c| Reason::new(*c, "x")).collect(),
            steps: Vec::new(),
            pods: Vec::new(),
            pod_count: 0,
            allocatable: BTreeMap::default(),
            requested: BTreeMap::default(),
        }
    }

    fn snapshot(types: Vec<InstanceType>) -> Snapshot {
        Snapshot { instance_types: types, ..Snapshot::default() }
    }

    fn replacement(types: &[&str]) -> Replacement {
        Replacement {
            node_pool: "p".into(),
            instance_types: types.iter().map(|t| (*t).to_owned()).collect(),
            capacity_type: "on-demand".into(),
            zones: vec!["z1".into()],
            worst_price: Some(0.05),
            cheapest_price: Some(0.05),
        }
    }

    #[test]
    fn a_verdict_decided_by_a_gate_rests_on_no_estimate() {
        let s = snapshot(vec![it("m5.large", Some("aws-catalogue"), "aws-static-price")]);
        let e = Estimates::new(&s);
        let v = verdict(&[Code::DoNotDisruptNode, Code::PodsCannotReschedule], &[Code::DoNotDisruptNode]);
        assert!(e.reasons_for(&v, None).is_empty());
    }

    #[test]
    fn an_exact_catalogue_earns_nothing() {
        let s = snapshot(vec![it("m5.large", Some("nodeclaim"), "metrics")]);
        let e = Estimates::new(&s);
        assert!(e.is_empty());
        let v = verdict(&[Code::NotCheaper], &[]);
        assert!(e.reasons_for(&v, Some(&[replacement(&["m5.large"])])).is_empty());
    }

    #[test]
    fn a_replacement_names_its_estimated_types_and_the_node_its_own_price() {
        let s = snapshot(vec![
            it("m5.large", None, "aws-static-price"),
            it("c5.large", Some("aws-catalogue"), "estimate"),
            it("c6i.large", Some("node"), "metrics"),
        ]);
        let e = Estimates::new(&s);
        let v = verdict(&[Code::Underutilized, Code::Replacement], &[]);
        let reasons = e.reasons_for(&v, Some(&[replacement(&["c5.large", "c6i.large"])]));
        let messages: Vec<&str> = reasons.iter().map(|r| r.message.as_str()).collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(messages[0].contains("m5.large on-demand in z1") && messages[0].contains("aws-static-price"));
        assert!(messages[1].contains("c5.large") && !messages[1].contains("c6i.large"), "{}", messages[1]);
        assert!(messages[1].contains("capacity from aws-catalogue") && messages[1].contains("prices from estimate"));
    }

    #[test]
    fn an_empty_node_deleted_without_a_price_comparison_names_only_its_own_price() {
        let s = snapshot(vec![it("m5.large", Some("aws-catalogue"), "aws-static-price")]);
        let e = Estimates::new(&s);
        let v = verdict(&[Code::Empty], &[]);
        let reasons = e.reasons_for(&v, Some(&[]));
        assert_eq!(reasons.len(), 1);
        assert!(reasons[0].message.contains("this node's price"));
        // A node no method acts on, decided without prices or new claims: nothing.
        assert!(e.reasons_for(&verdict(&[Code::NotEmpty, Code::NotDrifted], &[]), None).is_empty());
    }

    #[test]
    fn a_failed_simulation_without_a_replacement_counts_what_it_weighed() {
        let s = snapshot(vec![
            it("m5.large", Some("aws-catalogue"), "metrics"),
            it("c5.large", Some("aws-catalogue"), "metrics"),
        ]);
        let e = Estimates::new(&s);
        let reasons = e.reasons_for(&verdict(&[Code::PodsCannotReschedule], &[]), None);
        assert_eq!(reasons.len(), 1);
        assert!(reasons[0].message.contains("the capacity of 2 instance types"), "{}", reasons[0].message);
        assert!(!reasons[0].message.contains("prices"));
    }
}
