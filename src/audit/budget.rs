//! Budget arithmetic: how many evictions a PDB's spec allows for a number of expected pods.
//!
//! Mirrors kubernetes `pkg/controller/disruption/disruption.go` (`getExpectedPodCount`,
//! `updatePdbStatus`) and `intstr.GetScaledValueFromIntOrPercent(…, roundUp=true)`: both
//! `minAvailable` and `maxUnavailable` percentages round **up**; `maxUnavailable` takes
//! precedence when both are set; a budget with neither, or with no expected pod, allows nothing.

use std::fmt;

use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use crate::snapshot::PdbSpec;

/// An `IntOrString` as the disruption controller reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Amount {
    Count(i32),
    Percent(i32),
    /// A string that is not `N%`: `GetScaledValueFromIntOrPercent` errors and the controller
    /// fails safe (`disruptionsAllowed: 0`). The API server rejects such specs, so only a
    /// hand-written snapshot holds one.
    Invalid(String),
}

impl Amount {
    fn of(value: &IntOrString) -> Amount {
        match value {
            IntOrString::Int(n) => Amount::Count(*n),
            IntOrString::String(s) => match s.strip_suffix('%').and_then(|p| p.parse::<i32>().ok()) {
                Some(p) => Amount::Percent(p),
                None => Amount::Invalid(s.clone()),
            },
        }
    }

    /// The absolute value for `total` pods, percentages rounded up; `None` when invalid.
    pub(super) fn scaled(&self, total: i32) -> Option<i32> {
        match self {
            Amount::Count(n) => Some(*n),
            Amount::Percent(p) => {
                let product = i64::from(*p) * i64::from(total);
                let rounded_up = product.div_euclid(100) + i64::from(product.rem_euclid(100) != 0);
                Some(i32::try_from(rounded_up).unwrap_or(i32::MAX))
            }
            Amount::Invalid(_) => None,
        }
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Amount::Count(n) => write!(f, "{n}"),
            Amount::Percent(p) => write!(f, "{p}%"),
            Amount::Invalid(s) => write!(f, "{s:?} (not a percentage)"),
        }
    }
}

/// The rule a PDB's spec sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Rule {
    MaxUnavailable(Amount),
    MinAvailable(Amount),
    Neither,
}

impl Rule {
    pub(crate) fn of(spec: &PdbSpec) -> Rule {
        match (&spec.max_unavailable, &spec.min_available) {
            (Some(max), _) => Rule::MaxUnavailable(Amount::of(max)),
            (None, Some(min)) => Rule::MinAvailable(Amount::of(min)),
            (None, None) => Rule::Neither,
        }
    }

    /// Pods that must stay healthy out of `expected` (`status.desiredHealthy`).
    pub(crate) fn desired_healthy(&self, expected: i32) -> i32 {
        match self {
            Rule::MaxUnavailable(max) => max.scaled(expected).map_or(expected, |m| (expected - m).max(0)),
            Rule::MinAvailable(min) => min.scaled(expected).unwrap_or(expected),
            Rule::Neither => 0,
        }
    }

    /// Evictions allowed with `expected` pods, all healthy (`status.disruptionsAllowed` in the
    /// steady state).
    pub(super) fn allowed(&self, expected: i32) -> i32 {
        let invalid = matches!(self, Rule::MaxUnavailable(Amount::Invalid(_)) | Rule::MinAvailable(Amount::Invalid(_)));
        if expected <= 0 || invalid || *self == Rule::Neither {
            return 0;
        }
        (expected - self.desired_healthy(expected)).max(0)
    }

    /// `status.disruptionsAllowed` with `expected` pods of which `healthy` are Ready.
    ///
    /// Mirrors kubernetes `pkg/controller/disruption/disruption.go` `updatePdbStatus`
    /// (`disruptionsAllowed = currentHealthy - desiredHealthy`, never below 0).
    pub(crate) fn disruptions_allowed(&self, expected: i32, healthy: i32) -> i32 {
        let invalid = matches!(self, Rule::MaxUnavailable(Amount::Invalid(_)) | Rule::MinAvailable(Amount::Invalid(_)));
        if expected <= 0 || invalid || *self == Rule::Neither {
            return 0;
        }
        (healthy - self.desired_healthy(expected)).max(0)
    }

    /// Whether the controller counts pods without a controller: only an integer
    /// `minAvailable` uses `len(pods)`; the other forms sum the controllers' scales.
    pub(super) fn counts_bare_pods(&self) -> bool {
        matches!(self, Rule::MinAvailable(Amount::Count(_)))
    }

    /// `spec.minAvailable` as an integer, when it is one.
    pub(super) fn min_available_count(&self) -> Option<i32> {
        match self {
            Rule::MinAvailable(Amount::Count(n)) => Some(*n),
            _ => None,
        }
    }

    /// The spec field it is set through, for JSON patches.
    pub(crate) fn field(&self) -> Option<&'static str> {
        match self {
            Rule::MaxUnavailable(_) => Some("maxUnavailable"),
            Rule::MinAvailable(_) => Some("minAvailable"),
            Rule::Neither => None,
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Rule::MaxUnavailable(a) => write!(f, "maxUnavailable: {a}"),
            Rule::MinAvailable(a) => write!(f, "minAvailable: {a}"),
            Rule::Neither => f.write_str("neither minAvailable nor maxUnavailable"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Amount, Rule};

    fn max(a: Amount) -> Rule {
        Rule::MaxUnavailable(a)
    }

    fn min(a: Amount) -> Rule {
        Rule::MinAvailable(a)
    }

    #[test]
    fn percentages_round_up_at_the_edges() {
        assert_eq!(Amount::Percent(50).scaled(3), Some(2));
        assert_eq!(Amount::Percent(50).scaled(4), Some(2));
        assert_eq!(Amount::Percent(50).scaled(1), Some(1));
        assert_eq!(Amount::Percent(1).scaled(1), Some(1));
        assert_eq!(Amount::Percent(0).scaled(7), Some(0));
        assert_eq!(Amount::Percent(100).scaled(7), Some(7));
        assert_eq!(Amount::Percent(34).scaled(3), Some(2));
        assert_eq!(Amount::Percent(33).scaled(3), Some(1));
    }

    #[test]
    fn replicas_three_with_fifty_percent() {
        assert_eq!(min(Amount::Percent(50)).desired_healthy(3), 2);
        assert_eq!(min(Amount::Percent(50)).allowed(3), 1);
        assert_eq!(max(Amount::Percent(50)).desired_healthy(3), 1);
        assert_eq!(max(Amount::Percent(50)).allowed(3), 2);
    }

    #[test]
    fn single_replica_edges() {
        assert_eq!(max(Amount::Count(1)).allowed(1), 1);
        assert_eq!(max(Amount::Percent(50)).allowed(1), 1);
        assert_eq!(max(Amount::Percent(10)).allowed(1), 1);
        assert_eq!(min(Amount::Count(1)).allowed(1), 0);
        assert_eq!(min(Amount::Percent(50)).allowed(1), 0);
        assert_eq!(min(Amount::Count(0)).allowed(1), 1);
        assert_eq!(max(Amount::Count(0)).allowed(5), 0);
        assert_eq!(min(Amount::Percent(90)).allowed(3), 0);
    }

    #[test]
    fn nothing_is_allowed_without_pods_a_rule_or_a_valid_value() {
        assert_eq!(max(Amount::Count(1)).allowed(0), 0);
        assert_eq!(Rule::Neither.allowed(3), 0);
        assert_eq!(max(Amount::Invalid("1".into())).allowed(3), 0);
        assert_eq!(max(Amount::Count(5)).allowed(3), 3);
    }
}
