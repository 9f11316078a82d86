//! What the candidates of a replace cost, the figure a replacement must beat.
//!
//! From v1.14.0 (#2962) each candidate carries its price (`types.go` `resolveNodePrice`, see
//! [`crate::engine::pricing::node_price`]) and an unpriced one counts 0. Before, the price was
//! computed here, only once a move needs a replacement: mirrors karpenter
//! `pkg/controllers/disruption/consolidation.go` `getCandidatePrices` (v1.0.0–v1.13.0), the
//! cheapest offering compatible with the node's labels (availability ignored). A candidate with
//! no compatible offering priced the whole command at 0 from v1.9.0 (#2812); before, it was an
//! error, except for a reserved node (#1911, v1.3.0; Karpenter launches no reserved node
//! before v1.3.0, so the exception is replayed at every version below v1.9.0).

use crate::engine::candidate::Candidate;
use crate::engine::labels::{CAPACITY_TYPE, ZONE};
use crate::engine::scheduling::offering_compatible;
use crate::engine::scheduling::requirements::Requirements;
use crate::engine::state::Cluster;
use crate::reason::{Code, Reason};
use crate::rules::Rule;
use crate::upstream;

/// The candidates' price, or the error that ends the attempt (before v1.9.0), in upstream's
/// words (`unable to determine offering for <type>/<capacity type>/<zone>`).
pub(crate) fn candidate_prices(cluster: &Cluster<'_>, candidates: &[&Candidate<'_>]) -> Result<f64, String> {
    let rules = cluster.rules();
    if rules.has(Rule::CandidatePriceFirstOffering) {
        return Ok(candidates.iter().map(|c| c.price_or_zero()).sum());
    }
    let mut price = 0.0;
    for c in candidates {
        // Consolidation's ShouldDisrupt admits no candidate without a known instance type.
        let Some(it) = c.instance_type else { return Ok(0.0) };
        let labels = cluster.nodes[c.index].labels();
        let own = Requirements::from_labels(labels);
        let compatible: Vec<_> = it.offerings.iter().filter(|o| offering_compatible(o, &own)).collect();
        if compatible.is_empty() {
            let reserved = own.get(CAPACITY_TYPE).is_some_and(|r| r.allows("reserved"));
            if rules.has(Rule::UnpricedCandidateFree) || reserved {
                return Ok(0.0);
            }
            let label = |key: &str| labels.get(key).map_or("", String::as_str);
            return Err(format!(
                "unable to determine offering for {}/{}/{} (node {})",
                it.name,
                label(CAPACITY_TYPE),
                label(ZONE),
                c.name
            ));
        }
        // An offering without a price is a gap in our catalogue, not Karpenter's: it counts 0,
        // as an unpriced node does from v1.14.0 (the report's PriceUnknown hint says so).
        price += compatible.iter().filter_map(|o| o.price).min_by(f64::total_cmp).unwrap_or(0.0);
    }
    Ok(price)
}

/// The finding of a failed pricing: the error, and the rule that made it one.
pub(crate) fn pricing_error(cluster: &Cluster<'_>, error: &str) -> Reason {
    Reason::new(
        Code::PriceUnknown,
        format!(
            "failed computing consolidation: {error}; an error before v1.9.0 (priced 0 by the {})",
            crate::rules::row(Rule::UnpricedCandidateFree).cite()
        ),
    )
    .at(upstream::GET_CANDIDATE_PRICES)
    .hint(format!(
        "at {} a move that needs a replacement fails while the node's instance type has no offering for its zone and capacity type (a delete is unaffected); from v1.9.0 it is priced 0",
        cluster.rules().version
    ))
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use crate::engine::replay;
    use crate::reason::Code;
    use crate::rules::{CoreVersion, RuleSet};
    use crate::testing::{managed_node, node_pool, now, set, snapshot};

    /// docs/VERSION-RULES.md R45: node-a runs in capacity reservation `cr-own` ($0.15/h); its
    /// type also lists `cr-other` ($0.05/h) first, in the same zone. Its 1500m pod fits
    /// nowhere else: the replacement is an on-demand m.large at $0.1/h.
    fn reserved_node_replaced(version: CoreVersion) -> Vec<Code> {
        let reserved = |id: &str, price: f64| json!({"zone": "zone-a", "capacityType": "reserved", "price": price, "available": true, "reservationId": id});
        let [node, claim] = managed_node("node-a").map(|o| {
            let o = set(o, "/metadata/labels/karpenter.sh~1capacity-type", json!("reserved"));
            let o = set(o, "/metadata/labels/karpenter.k8s.aws~1capacity-reservation-id", json!("cr-own"));
            set(o, "/metadata/labels/node.kubernetes.io~1instance-type", json!("r.reserved"))
        });
        let pod = set(
            crate::testing::pod("web", "node-a"),
            "/spec/containers",
            json!([{"name": "c", "resources": {"requests": {"cpu": "1500m", "memory": "1Gi"}}}]),
        );
        let mut s = snapshot(vec![node_pool("default"), node, claim, pod]);
        let catalogue: Value = json!({"name": "r.reserved", "capacity": {"cpu": "4", "memory": "16Gi", "pods": "58"},
            "offerings": [reserved("cr-other", 0.05), reserved("cr-own", 0.15)]});
        s.instance_types.push(serde_json::from_value(catalogue).expect("an instance type"));
        s.info.rules = RuleSet::at(version);
        let report = replay(&s, now());
        let a = report.nodes.iter().find(|n| n.name == "node-a").expect("node-a");
        a.reasons.iter().map(|r| r.code).collect()
    }

    #[test]
    fn before_v1_14_a_reserved_node_is_priced_by_its_own_reservation() {
        // v1.13.0 getCandidatePrices: the offerings compatible with node-a's labels are
        // cr-own's alone, $0.15/h > m.large's $0.1/h.
        let v1_13 = reserved_node_replaced(CoreVersion::new(1, 13, 0));
        assert!(v1_13.contains(&Code::Replacement), "{v1_13:?}");
        // v1.14.0 resolveNodePrice: the first reserved offering in zone-a, cr-other's $0.05/h.
        let v1_14 = reserved_node_replaced(CoreVersion::new(1, 14, 0));
        assert!(!v1_14.contains(&Code::Replacement) && v1_14.contains(&Code::NotCheaper), "{v1_14:?}");
    }
}
