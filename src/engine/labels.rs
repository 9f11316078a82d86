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

/// The label a reserved offering's capacity reservation ID goes under (the AWS provider's
/// `cloudprovider.ReservationIDLabel`).
pub(crate) const RESERVATION_ID: &str = "karpenter.k8s.aws/capacity-reservation-id";

/// The label keys a pod's requirement on a new NodeClaim is checked against as well known
/// (`can_add_claim` in `scheduling/node_claim.rs`, and the topology of pods on open claims).
pub(crate) fn is_well_known(key: &str) -> bool {
    matches!(
        key,
        ZONE | INSTANCE_TYPE
            | CAPACITY_TYPE
            | HOSTNAME
            | "kubernetes.io/arch"
            | "kubernetes.io/os"
            | "topology.kubernetes.io/region"
            | "node.kubernetes.io/windows-build"
    ) || key.starts_with("karpenter.k8s.aws/")
}

/// Legacy label keys and the stable keys they stand for.
///
/// Mirrors karpenter `pkg/apis/v1/labels.go` `NormalizedLabels`: every requirement built from a
/// pod, a NodePool or a node label goes through `requirement.go NewRequirementWithFlexibility`,
/// which rewrites these keys first, so `failure-domain.beta.kubernetes.io/zone In [a]` and
/// `topology.kubernetes.io/zone In [a]` are one requirement. The AWS provider adds the EBS CSI
/// driver's zone key (aws/karpenter-provider-aws `pkg/operator/operator.go` `NewOperator`, at
/// every v1 tag), which PersistentVolumes it provisioned carry in their node affinity.
const NORMALIZED_LABELS: [(&str, &str); 6] = [
    ("failure-domain.beta.kubernetes.io/zone", ZONE),
    ("topology.ebs.csi.aws.com/zone", ZONE),
    ("beta.kubernetes.io/arch", "kubernetes.io/arch"),
    ("beta.kubernetes.io/os", "kubernetes.io/os"),
    ("beta.kubernetes.io/instance-type", INSTANCE_TYPE),
    ("failure-domain.beta.kubernetes.io/region", "topology.kubernetes.io/region"),
];

/// The stable key for a legacy one (`NormalizedLabels`), else the key itself.
pub fn normalized(key: &str) -> &str {
    NORMALIZED_LABELS.iter().find(|(legacy, _)| *legacy == key).map_or(key, |(_, stable)| stable)
}

/// A node's value for a (stable) key: its own label, else a legacy label that normalises to it
/// (`NewLabelRequirements` normalises a node's labels as it does a pod's).
pub fn label_value<'l>(labels: &'l StringMap, key: &str) -> Option<&'l str> {
    labels.get(key).map(String::as_str).or_else(|| {
        let legacy = NORMALIZED_LABELS.iter().find(|(_, stable)| *stable == key)?.0;
        labels.get(legacy).map(String::as_str)
    })
}

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
    use super::{normalized, selector_matches};

    #[test]
    fn a_node_with_only_the_legacy_label_has_the_stable_one() {
        let node = labels(&[("failure-domain.beta.kubernetes.io/zone", "a")]);
        assert_eq!(super::label_value(&node, "topology.kubernetes.io/zone"), Some("a"));
        assert_eq!(super::label_value(&node, "kubernetes.io/arch"), None);
    }

    #[test]
    fn legacy_keys_normalise_as_upstream_normalized_labels() {
        // pkg/apis/v1/labels.go NormalizedLabels: the five beta keys, and the EBS CSI driver's
        // zone key that the AWS provider adds (pkg/operator/operator.go NewOperator).
        assert_eq!(normalized("topology.ebs.csi.aws.com/zone"), "topology.kubernetes.io/zone");
        assert_eq!(normalized("failure-domain.beta.kubernetes.io/zone"), "topology.kubernetes.io/zone");
        assert_eq!(normalized("failure-domain.beta.kubernetes.io/region"), "topology.kubernetes.io/region");
        assert_eq!(normalized("beta.kubernetes.io/arch"), "kubernetes.io/arch");
        assert_eq!(normalized("beta.kubernetes.io/os"), "kubernetes.io/os");
        assert_eq!(normalized("beta.kubernetes.io/instance-type"), "node.kubernetes.io/instance-type");
        assert_eq!(normalized("topology.kubernetes.io/zone"), "topology.kubernetes.io/zone");
        assert_eq!(normalized("example.com/zone"), "example.com/zone");
    }
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
