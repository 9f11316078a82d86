//! Disruption cost: what evicting a pod, and so removing a node, costs in Karpenter's eyes.
//!
//! Mirrors karpenter `pkg/utils/disruption/disruption.go` (`EvictionCost`) and
//! `pkg/controllers/disruption/types.go` (`computeRescheduleDisruptionCost`, `IsEmpty`,
//! `SavingsRatio`).

use super::labels::POD_DELETION_COST;
use crate::snapshot::Pod;

/// The base cost of disrupting any node (`PerNodeBaseDisruptionCost`).
pub(crate) const PER_NODE_BASE: f64 = 1.0;

/// One pod's eviction cost and the terms it is made of.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EvictionCost {
    pub cost: f64,
    pub deletion_cost: Option<f64>,
    pub priority: Option<i32>,
    /// The annotation was present but not a number (upstream logs and ignores it).
    pub unparsable_deletion_cost: Option<String>,
    pub clamped: bool,
}

/// Mirrors [`crate::upstream::EVICTION_COST`]: 1 + deletion-cost / 2^27 + priority / 2^25,
/// clamped to [-10, 10].
pub(crate) fn eviction_cost(pod: &Pod) -> EvictionCost {
    let mut cost = 1.0;
    let mut deletion_cost = None;
    let mut unparsable = None;
    if let Some(raw) = pod.metadata.annotations.get(POD_DELETION_COST) {
        match raw.trim().parse::<f64>() {
            Ok(v) if v.is_finite() => {
                cost += v / f64::from(1u32 << 27);
                deletion_cost = Some(v);
            }
            _ => unparsable = Some(raw.clone()),
        }
    }
    if let Some(priority) = pod.spec.priority {
        cost += f64::from(priority) / f64::from(1u32 << 25);
    }
    let clamped = !(-10.0..=10.0).contains(&cost);
    EvictionCost {
        cost: cost.clamp(-10.0, 10.0),
        deletion_cost,
        priority: pod.spec.priority,
        unparsable_deletion_cost: unparsable,
        clamped,
    }
}

/// 1.0 + Σ max(0, eviction cost) over the given (reschedulable) pods' eviction costs
/// ([`eviction_cost`]'s `cost`).
///
/// Mirrors [`crate::upstream::RESCHEDULE_DISRUPTION_COST`].
pub(crate) fn reschedule_disruption_cost(costs: impl IntoIterator<Item = f64>) -> f64 {
    PER_NODE_BASE + costs.into_iter().map(|c| c.max(0.0)).sum::<f64>()
}

/// Empty by cost: no reschedulable pod has a positive eviction cost.
///
/// Mirrors [`crate::upstream::IS_EMPTY`].
pub(crate) fn is_empty(reschedule_disruption_cost: f64) -> bool {
    reschedule_disruption_cost <= PER_NODE_BASE
}

/// `Price / RescheduleDisruptionCost`, 0 for a free node.
pub(crate) fn savings_ratio(price: f64, reschedule_disruption_cost: f64) -> f64 {
    if price <= 0.0 || reschedule_disruption_cost <= 0.0 {
        0.0
    } else {
        price / reschedule_disruption_cost
    }
}

/// The candidate order key before v1.14.0 (#2962): Σ eviction cost over every pod bound to the
/// node × the fraction of the NodeClaim's `expireAfter` left (1 without one), lowest first.
///
/// Mirrors karpenter v1.13.0 `pkg/utils/disruption/disruption.go` `ReschedulingCost` ×
/// `LifetimeRemaining`, as `NewCandidate` sets `DisruptionCost`.
pub(crate) fn disruption_cost_before_v1_14(
    pods: &[&Pod],
    claim: Option<&crate::snapshot::NodeClaim>,
    now: jiff::Timestamp,
) -> f64 {
    let cost: f64 = pods.iter().map(|p| eviction_cost(p).cost).sum();
    cost * lifetime_remaining(claim, now)
}

/// `LifetimeRemaining`: (expireAfter − age) / expireAfter clamped to [0, 1]; 1 for `Never` or none.
fn lifetime_remaining(claim: Option<&crate::snapshot::NodeClaim>, now: jiff::Timestamp) -> f64 {
    let Some(claim) = claim else { return 1.0 };
    let total = claim.spec.expire_after.as_deref().and_then(|e| e.parse::<jiff::SignedDuration>().ok());
    match (total, claim.metadata.creation_timestamp) {
        (Some(total), Some(created)) if total.is_positive() => {
            let age = now.duration_since(created).as_secs_f64();
            let total = total.as_secs_f64();
            ((total - age) / total).clamp(0.0, 1.0)
        }
        _ => 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::{eviction_cost, is_empty, reschedule_disruption_cost};

    #[test]
    fn the_cost_before_v1_14_counts_every_pod_and_the_lifetime_left() {
        let p = Pod::default();
        let now: jiff::Timestamp = "2026-11-29T10:00:00Z".parse().expect("time");
        let mut claim = crate::snapshot::NodeClaim::default();
        assert!((super::disruption_cost_before_v1_14(&[&p, &p], Some(&claim), now) - 2.0).abs() < 1e-9);
        claim.spec.expire_after = Some("4h".into());
        claim.metadata.creation_timestamp = Some("2026-11-29T09:00:00Z".parse().expect("time"));
        assert!((super::disruption_cost_before_v1_14(&[&p, &p], Some(&claim), now) - 1.5).abs() < 1e-9);
        claim.spec.expire_after = Some("Never".into());
        assert!((super::disruption_cost_before_v1_14(&[&p], Some(&claim), now) - 1.0).abs() < 1e-9);
    }
    use crate::snapshot::Pod;
    use proptest::prelude::*;

    fn pod(deletion_cost: Option<&str>, priority: Option<i32>) -> Pod {
        let mut p = Pod::default();
        if let Some(c) = deletion_cost {
            p.metadata.annotations.insert(super::POD_DELETION_COST.into(), c.into());
        }
        p.spec.priority = priority;
        p
    }

    #[test]
    fn worked_examples() {
        assert!((eviction_cost(&pod(None, None)).cost - 1.0).abs() < 1e-12);
        assert!((eviction_cost(&pod(Some("2147483647"), None)).cost - 10.0).abs() < 1e-12);
        assert!((eviction_cost(&pod(Some("-2147483647"), None)).cost + 10.0).abs() < 1e-12);
        assert!((eviction_cost(&pod(None, Some(2_000_000_000))).cost - 10.0).abs() < 1e-12);
        assert!(eviction_cost(&pod(None, Some(-33_554_432))).cost.abs() < 1e-12);
        let bad = eviction_cost(&pod(Some("lots"), None));
        assert_eq!(bad.unparsable_deletion_cost.as_deref(), Some("lots"));
        assert!((bad.cost - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_node_of_negative_cost_pods_is_empty() {
        let pods = [pod(None, Some(-33_554_432)), pod(Some("-134217728"), None)];
        let cost = reschedule_disruption_cost(pods.iter().map(|p| eviction_cost(p).cost));
        assert!(is_empty(cost), "cost {cost}");
        assert!(!is_empty(reschedule_disruption_cost([eviction_cost(&pod(None, None)).cost])));
    }

    proptest! {
        #[test]
        fn cost_is_always_clamped(dc in any::<i32>(), pr in any::<i32>()) {
            let c = eviction_cost(&pod(Some(&dc.to_string()), Some(pr))).cost;
            prop_assert!((-10.0..=10.0).contains(&c));
        }
    }
}
