//! The NodePool vocabulary the replay decides in: the disruption reasons budgets are kept for
//! and the consolidation policies, as enums rather than strings.
//!
//! Mirrors karpenter `pkg/apis/v1/nodepool.go` (`DisruptionReason*`, `ConsolidationPolicy*`).
//! The names are Karpenter's own spelling; [`DisruptionReason::as_str`] and
//! [`ConsolidationPolicy::as_str`] are the one place they become text.

use crate::snapshot::NodePool;

/// Why a node is disrupted: the key of `spec.disruption.budgets[].reasons`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DisruptionReason {
    Empty,
    Drifted,
    Underutilized,
}

impl DisruptionReason {
    /// Every reason, in the order Karpenter lists them (and budgets report them).
    pub const ALL: [DisruptionReason; 3] =
        [DisruptionReason::Empty, DisruptionReason::Drifted, DisruptionReason::Underutilized];

    pub const fn as_str(self) -> &'static str {
        match self {
            DisruptionReason::Empty => "Empty",
            DisruptionReason::Drifted => "Drifted",
            DisruptionReason::Underutilized => "Underutilized",
        }
    }
}

/// `spec.disruption.consolidationPolicy`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum ConsolidationPolicy {
    WhenEmpty,
    /// The CRD default.
    #[default]
    WhenEmptyOrUnderutilized,
    /// v1.14+: consolidate only moves whose score passes the threshold (`balanced.go`).
    Balanced,
}

impl ConsolidationPolicy {
    /// The pool's policy, with the CRD default when unset. A value the CRD's enum would reject
    /// cannot reach a cluster; a hand-written snapshot with one is read as the default.
    pub(crate) fn of(pool: &NodePool) -> Self {
        match pool.spec.disruption.as_ref().and_then(|d| d.consolidation_policy.as_deref()) {
            Some("WhenEmpty") => ConsolidationPolicy::WhenEmpty,
            Some("Balanced") => ConsolidationPolicy::Balanced,
            _ => ConsolidationPolicy::WhenEmptyOrUnderutilized,
        }
    }

    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            ConsolidationPolicy::WhenEmpty => "WhenEmpty",
            ConsolidationPolicy::WhenEmptyOrUnderutilized => "WhenEmptyOrUnderutilized",
            ConsolidationPolicy::Balanced => "Balanced",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ConsolidationPolicy, DisruptionReason};
    use crate::snapshot::{Disruption, NodePool};

    fn pool(policy: Option<&str>) -> NodePool {
        let mut p = NodePool::default();
        p.spec.disruption = Some(Disruption { consolidation_policy: policy.map(Into::into), ..Default::default() });
        p
    }

    #[test]
    fn policy_defaults_to_when_empty_or_underutilized() {
        assert_eq!(ConsolidationPolicy::of(&pool(None)), ConsolidationPolicy::WhenEmptyOrUnderutilized);
        assert_eq!(ConsolidationPolicy::of(&NodePool::default()), ConsolidationPolicy::WhenEmptyOrUnderutilized);
        assert_eq!(ConsolidationPolicy::of(&pool(Some("WhenEmpty"))), ConsolidationPolicy::WhenEmpty);
        assert_eq!(ConsolidationPolicy::of(&pool(Some("Balanced"))).as_str(), "Balanced");
    }

    #[test]
    fn reasons_keep_karpenters_spelling() {
        let names: Vec<&str> = DisruptionReason::ALL.iter().map(|r| r.as_str()).collect();
        assert_eq!(names, ["Empty", "Drifted", "Underutilized"]);
    }
}
