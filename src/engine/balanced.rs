//! The Balanced consolidation policy: a move must save at least half of what the NodePool's
//! average disruption buys (`score = savings% / disruption% >= 1/k`, `k = 2`).
//!
//! Mirrors karpenter `pkg/controllers/disruption/balanced.go` (`computeNodePoolTotals`,
//! `ScoreMove`, `EvaluateBalancedMove`, `CanPassThreshold`), v1.14+. Rejections have no
//! upstream event; the report is the only place their numbers show.

use std::collections::BTreeMap;

use super::candidate::Candidate;
use super::cost;
use super::labels::{CAPACITY_TYPE, INSTANCE_TYPE, NODEPOOL, ZONE};
use super::nodepool::ConsolidationPolicy;
use super::state::Cluster;

/// `BalancedK`: not configurable upstream.
pub(crate) const K: i32 = 2;

/// Per-NodePool denominators of the score.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Totals {
    /// Σ offering price of the pool's NodeClaims (the cost tracker), else of its candidates.
    pub total_cost: f64,
    /// Σ disruption cost of every node of the pool.
    pub total_disruption_cost: f64,
}

/// The score of a move within one pool.
#[allow(clippy::struct_field_names, reason = "`score` is Karpenter's name for the figure (`ScoreMove`)")]
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Score {
    pub savings: f64,
    pub disruption_cost: f64,
    pub savings_fraction: f64,
    pub disruption_fraction: f64,
    pub score: f64,
    pub threshold: f64,
    pub approved: bool,
}

impl Score {
    /// Karpenter's approval message (`score %.2f >= threshold %.2f (k: %d, …)`).
    pub(crate) fn message(&self) -> String {
        let op = if self.approved { ">=" } else { "<" };
        format!(
            "score {:.2} {op} threshold {:.2} (k: {K}, savings {:.1}%, disruption {:.1}%)",
            self.score,
            self.threshold,
            self.savings_fraction * 100.0,
            self.disruption_fraction * 100.0
        )
    }
}

/// Scores a move.
///
/// Mirrors [`crate::upstream::SCORE_MOVE`].
pub(crate) fn score_move(savings: f64, disruption_cost: f64, totals: Totals) -> Score {
    let threshold = 1.0 / f64::from(K);
    let (savings_fraction, disruption_fraction) = if totals.total_cost <= 0.0 || totals.total_disruption_cost <= 0.0 {
        (0.0, 0.0)
    } else {
        (savings / totals.total_cost, disruption_cost / totals.total_disruption_cost)
    };
    let score = if savings_fraction <= 0.0 {
        0.0
    } else if disruption_fraction == 0.0 {
        f64::INFINITY
    } else {
        savings_fraction / disruption_fraction
    };
    Score {
        savings,
        disruption_cost,
        savings_fraction,
        disruption_fraction,
        score,
        threshold,
        approved: score >= threshold,
    }
}

/// Totals of every pool with at least one node passing the global gates.
///
/// Mirrors [`crate::upstream::NODEPOOL_TOTALS`].
pub(crate) fn node_pool_totals(cluster: &Cluster<'_>, candidates: &[Candidate<'_>]) -> BTreeMap<String, Totals> {
    let passing: BTreeMap<usize, &Candidate<'_>> =
        candidates.iter().filter(|c| c.passes(false)).map(|c| (c.index, c)).collect();
    let mut totals: BTreeMap<String, Totals> = BTreeMap::new();
    for c in passing.values() {
        if let Some(pool) = c.pool {
            totals.entry(pool.metadata.name.clone()).or_default();
        }
    }
    for (i, node) in cluster.nodes.iter().enumerate() {
        let Some(pool) = node.node_pool_name() else { continue };
        let Some(t) = totals.get_mut(pool) else { continue };
        t.total_disruption_cost += match passing.get(&i) {
            Some(c) => c.disruption_cost,
            None => state_node_disruption_cost(cluster, node),
        };
    }
    let tracked_costs = tracked_costs(cluster);
    for (pool, t) in &mut totals {
        let tracked = tracked_costs.get(pool.as_str()).copied().unwrap_or(0.0);
        t.total_cost = if tracked > 0.0 {
            tracked
        } else {
            passing
                .values()
                .filter(|c| c.pool.is_some_and(|p| &p.metadata.name == pool))
                .map(|c| c.price_or_zero())
                .sum()
        };
    }
    totals
}

/// `StateNode.DisruptionCost`: non-terminal, non-DaemonSet pods (mirror and terminating included).
fn state_node_disruption_cost(cluster: &Cluster<'_>, node: &super::state::StateNode<'_>) -> f64 {
    cost::PER_NODE_BASE
        + node
            .pods
            .iter()
            .filter(|p| !cluster.is_terminal(p) && !cluster.is_owned_by_daemonset(p))
            .map(|p| cluster.eviction_cost(p).max(0.0))
            .sum::<f64>()
}

/// The cluster cost tracker, per NodePool: Σ offering price over NodeClaims carrying the four
/// labels.
fn tracked_costs<'a>(cluster: &Cluster<'a>) -> BTreeMap<&'a str, f64> {
    let mut out: BTreeMap<&str, f64> = BTreeMap::new();
    let owned = |c: &&crate::snapshot::NodeClaim| cluster.rules().owns_node_class(c.spec.node_class_ref.as_ref());
    for claim in cluster.snapshot.node_claims.iter().filter(owned) {
        let labels = &claim.metadata.labels;
        let price = || {
            let it = cluster.instance_types.get(labels.get(INSTANCE_TYPE)?.as_str())?;
            let (zone, ct) = (labels.get(ZONE)?, labels.get(CAPACITY_TYPE)?);
            it.offerings.iter().find(|o| &o.zone == zone && &o.capacity_type == ct).and_then(|o| o.price)
        };
        if let (Some(pool), Some(price)) = (labels.get(NODEPOOL), price()) {
            *out.entry(pool.as_str()).or_insert(0.0) += price;
        }
    }
    out
}

/// Whether the pool scores moves at all.
pub(crate) fn is_balanced(c: &Candidate<'_>) -> bool {
    c.pool.is_some_and(|p| ConsolidationPolicy::of(p) == ConsolidationPolicy::Balanced)
}

/// Scores a move per Balanced pool; `None` when no pool of the move is Balanced. Savings are
/// apportioned by source price when the move spans pools.
///
/// Mirrors karpenter `balanced.go` `EvaluateBalancedMove`.
pub(crate) fn evaluate_move(
    candidates: &[&Candidate<'_>],
    savings: f64,
    totals: &BTreeMap<String, Totals>,
    force: bool,
) -> Option<Vec<(String, Score)>> {
    let mut by_pool: BTreeMap<String, Vec<&Candidate<'_>>> = BTreeMap::new();
    for c in candidates {
        if let Some(p) = c.pool {
            by_pool.entry(p.metadata.name.clone()).or_default().push(c);
        }
    }
    let total_price: f64 = candidates.iter().map(|c| c.price_or_zero()).sum();
    let mut scores = Vec::new();
    for (pool, members) in &by_pool {
        if !force && !members.iter().any(|c| is_balanced(c)) {
            continue;
        }
        let pool_price: f64 = members.iter().map(|c| c.price_or_zero()).sum();
        let pool_savings =
            if by_pool.len() > 1 && total_price > 0.0 { savings * pool_price / total_price } else { savings };
        let disruption: f64 = members.iter().map(|c| c.disruption_cost).sum();
        scores
            .push((pool.clone(), score_move(pool_savings, disruption, totals.get(pool).copied().unwrap_or_default())));
    }
    (!scores.is_empty()).then_some(scores)
}

/// The single-node pre-cut: could even deleting this node alone pass?
///
/// Mirrors [`crate::upstream::CAN_PASS_THRESHOLD`].
pub(crate) fn can_pass_threshold(c: &Candidate<'_>, totals: &BTreeMap<String, Totals>) -> Option<Score> {
    if !is_balanced(c) {
        return None;
    }
    let t = totals.get(&c.pool?.metadata.name).copied()?;
    if t.total_cost <= 0.0 {
        return None;
    }
    Some(score_move(c.price_or_zero(), c.disruption_cost, t))
}

#[cfg(test)]
mod tests {
    use super::{score_move, Totals};

    #[test]
    fn seed_worked_numbers() {
        let pool = Totals { total_cost: 10.0, total_disruption_cost: 50.0 };
        let s = score_move(0.4, 5.0, pool);
        assert!((s.score - 0.4).abs() < 1e-9 && !s.approved);
        let sparse = score_move(0.4, 2.0, Totals { total_cost: 10.0, total_disruption_cost: 47.0 });
        assert!((sparse.score - 0.94).abs() < 1e-9 && sparse.approved, "{}", sparse.score);
    }

    #[test]
    fn edge_cases() {
        assert!(!score_move(1.0, 1.0, Totals::default()).approved);
        assert!(!score_move(0.0, 1.0, Totals { total_cost: 1.0, total_disruption_cost: 1.0 }).approved);
        let free = score_move(1.0, 0.0, Totals { total_cost: 1.0, total_disruption_cost: 1.0 });
        assert!(free.approved && free.score.is_infinite());
        assert!(score_move(0.5, 1.0, Totals { total_cost: 1.0, total_disruption_cost: 1.0 }).approved);
    }

    fn pool(name: &str, policy: &str) -> crate::snapshot::NodePool {
        let mut p = crate::snapshot::NodePool::default();
        p.metadata.name = name.into();
        p.spec.disruption =
            Some(crate::snapshot::Disruption { consolidation_policy: Some(policy.into()), ..Default::default() });
        p
    }

    fn candidate(pool: &crate::snapshot::NodePool, price: f64, cost: f64) -> super::Candidate<'_> {
        super::Candidate {
            index: 0,
            name: "n".into(),
            pool: Some(pool),
            instance_type: None,
            price: Some(price),
            reschedulable: Vec::new(),
            disruption_cost: cost,
            node_gates: Vec::new(),
            pod_gates: Vec::new(),
            notes: Vec::new(),
        }
    }

    #[test]
    fn savings_are_apportioned_by_source_price_and_every_balanced_pool_must_approve() {
        let (a, b) = (pool("a", "Balanced"), pool("b", "Balanced"));
        let (ca, cb) = (candidate(&a, 3.0, 2.0), candidate(&b, 1.0, 2.0));
        let totals: std::collections::BTreeMap<String, Totals> = [
            ("a".to_owned(), Totals { total_cost: 10.0, total_disruption_cost: 20.0 }),
            ("b".to_owned(), Totals { total_cost: 10.0, total_disruption_cost: 20.0 }),
        ]
        .into();
        let scores = super::evaluate_move(&[&ca, &cb], 1.6, &totals, false).expect("both pools scored");
        assert!((scores[0].1.savings - 1.2).abs() < 1e-9, "pool a gets 3/4 of the savings");
        assert!((scores[1].1.savings - 0.4).abs() < 1e-9, "pool b gets 1/4");
        assert!(scores[0].1.approved && !scores[1].1.approved, "{scores:?}");
    }

    #[test]
    fn pools_on_other_policies_are_not_scored() {
        let (a, b) = (pool("a", "Balanced"), pool("b", "WhenEmptyOrUnderutilized"));
        let (ca, cb) = (candidate(&a, 1.0, 2.0), candidate(&b, 1.0, 2.0));
        let totals = [("a".to_owned(), Totals { total_cost: 10.0, total_disruption_cost: 20.0 })].into();
        let scores = super::evaluate_move(&[&ca, &cb], 2.0, &totals, false).expect("pool a scored");
        assert_eq!(scores.len(), 1);
        assert_eq!(scores[0].0, "a");
        assert!(super::evaluate_move(&[&cb], 1.0, &totals, false).is_none());
    }

    #[test]
    fn pre_cut_scores_a_plain_delete_and_passes_unknown_totals() {
        let a = pool("a", "Balanced");
        let cheap_busy = candidate(&a, 0.1, 10.0);
        let totals = [("a".to_owned(), Totals { total_cost: 10.0, total_disruption_cost: 20.0 })].into();
        let s = super::can_pass_threshold(&cheap_busy, &totals).expect("scored");
        assert!(!s.approved && (s.score - 0.02).abs() < 1e-9, "{s:?}");
        assert!(super::can_pass_threshold(&cheap_busy, &std::collections::BTreeMap::new()).is_none());
        let other = pool("o", "WhenEmpty");
        assert!(super::can_pass_threshold(&candidate(&other, 0.1, 10.0), &totals).is_none());
    }
}
