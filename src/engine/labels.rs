//! Well-known label keys and label-selector matching (`metav1.LabelSelectorAsSelector`).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use crate::snapshot::StringMap;

pub const NODEPOOL: &str = "karpenter.sh/nodepool";
pub const CAPACITY_TYPE: &str = "karpenter.sh/capacity-type";
pub const INSTANCE_TYPE: &str = "node.kubernetes.io/instance-type";
pub const ZONE: &str = "topology.kubernetes.io/zone";
pub const HOSTNAME: &str = "kubernetes.io/hostname";
pub const REGISTERED: &str = "karpenter.sh/registered";
pub const INITIALIZED: &str = "karpenter.sh/initialized";
pub const DO_NOT_DISRUPT: &str = "karpenter.sh/do-not-disrupt";
pub const DISRUPTED_TAINT: &str = "karpenter.sh/disrupted";
pub const POD_DELETION_COST: &str = "controller.kubernetes.io/pod-deletion-cost";

/// Whether `selector` selects `labels`. An absent selector selects nothing; an empty one
/// selects everything (policy/v1 semantics).
pub fn selector_matches(selector: Option<&LabelSelector>, labels: &StringMap) -> bool {
    let Some(selector) = selector else { return false };
    if let Some(match_labels) = &selector.match_labels {
        if !match_labels.iter().all(|(k, v)| labels.get(k) == Some(v)) {
            return false;
        }
    }
    selector.match_expressions.iter().flatten().all(|e| {
        let values = e.values.as_deref().unwrap_or_default();
        let value = labels.get(&e.key);
        match e.operator.as_str() {
            "In" => value.is_some_and(|v| values.contains(v)),
            "NotIn" => value.is_none_or(|v| !values.contains(v)),
            "Exists" => value.is_some(),
            "DoesNotExist" => value.is_none(),
            _ => false,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::selector_matches;
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};

    fn labels(pairs: &[(&str, &str)]) -> crate::snapshot::StringMap {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
    }

    #[test]
    fn empty_selects_all_and_absent_selects_none() {
        assert!(selector_matches(Some(&LabelSelector::default()), &labels(&[])));
        assert!(!selector_matches(None, &labels(&[("a", "b")])));
    }

    #[test]
    fn match_labels_and_expressions() {
        let selector = LabelSelector {
            match_labels: Some([("app".to_owned(), "web".to_owned())].into()),
            match_expressions: Some(vec![LabelSelectorRequirement {
                key: "tier".into(),
                operator: "NotIn".into(),
                values: Some(vec!["db".into()]),
            }]),
        };
        assert!(selector_matches(Some(&selector), &labels(&[("app", "web")])));
        assert!(!selector_matches(Some(&selector), &labels(&[("app", "web"), ("tier", "db")])));
        assert!(!selector_matches(Some(&selector), &labels(&[("app", "api")])));
    }
}
