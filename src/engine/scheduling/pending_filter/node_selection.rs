//! `Provisioner.Validate`'s node-selection checks on a pending pod: its nodeSelector (each
//! entry as `In [value]`) and its required node-affinity terms, each requirement through
//! `v1.ValidateRequirement`; a pod failing one is ignored by the provisioner, so no disruption
//! simulation places it.
//!
//! Mirrors karpenter `pkg/controllers/provisioning/provisioner.go` (`validateNodeSelector`,
//! `validateAffinity`, `validateNodeSelectorTerm`) and `pkg/apis/v1/nodeclaim_validation.go`
//! (`ValidateRequirement`, `validateWellKnownValues`), `labels.go` (`IsRestrictedLabel`), with the
//! AWS provider's additions (`pkg/apis/v1/labels.go` `init`: its instance labels well known,
//! `karpenter.k8s.aws` a restricted domain). By version: before v1.5.0 (#2182) the preferred
//! terms are validated too; from v1.5.0 (#2164) a capacity-type `In` needs a known value; before
//! v1.9.0 (#2586) the `kubernetes.io` and `k8s.io` domains are restricted as well. The apiserver
//! already enforces what else `ValidateRequirement` checks (qualified keys, `In` with values).

use k8s_openapi::api::core::v1::{NodeSelectorRequirement, NodeSelectorTerm};

use crate::engine::labels::{normalized, CAPACITY_TYPE, HOSTNAME, INSTANCE_TYPE, NODEPOOL, ZONE};
use crate::rules::{Rule, RuleSet};
use crate::snapshot::Pod;

/// Why the provisioner ignores the pod for its node selection, if it does.
pub(super) fn rejection(pod: &Pod, rules: &RuleSet) -> Option<String> {
    for (key, value) in &pod.spec.node_selector {
        if let Some(e) = requirement_error(key, "In", std::slice::from_ref(value), rules) {
            return Some(e);
        }
    }
    let node_affinity = pod.spec.affinity.as_ref().and_then(|a| a.node_affinity.as_ref());
    if let Some(why) = rules.cite_if_inactive(Rule::PreferredAffinityUnvalidated) {
        let preferred = node_affinity.and_then(|n| n.preferred_during_scheduling_ignored_during_execution.as_ref());
        for term in preferred.into_iter().flatten() {
            if let Some(e) = term_error(&term.preference, rules) {
                return Some(format!("{e} (in a preferred term; validating only required terms is {why})"));
            }
        }
    }
    let required = node_affinity.and_then(|n| n.required_during_scheduling_ignored_during_execution.as_ref());
    required.into_iter().flat_map(|r| &r.node_selector_terms).find_map(|term| term_error(term, rules))
}

/// `validateNodeSelectorTerm`.
fn term_error(term: &NodeSelectorTerm, rules: &RuleSet) -> Option<String> {
    if term.match_fields.is_some() {
        return Some("node selector term with matchFields is not supported".to_owned());
    }
    term.match_expressions.iter().flatten().find_map(|r: &NodeSelectorRequirement| {
        requirement_error(&r.key, &r.operator, r.values.as_deref().unwrap_or_default(), rules)
    })
}

/// `ValidateRequirement`, the checks a pod's requirement can fail once the apiserver took it.
fn requirement_error(key: &str, operator: &str, values: &[String], rules: &RuleSet) -> Option<String> {
    let key = normalized(key);
    if !matches!(operator, "In" | "NotIn" | "Exists" | "DoesNotExist" | "Gt" | "Lt") {
        return Some(format!("key {key} has an unsupported operator {operator}"));
    }
    if is_restricted(key, rules) {
        let text =
            format!("using label {key} is not allowed as it might interfere with the internal provisioning logic");
        return Some(
            match rules
                .cite_if_inactive(Rule::RestrictedLabelsNarrowed)
                .filter(|_| !is_restricted(key, &RuleSet::default()))
            {
                Some(why) => format!("{text} (restricting only karpenter.sh labels and the hostname is {why})"),
                None => text,
            },
        );
    }
    if rules.has(Rule::CapacityTypeValuesValidated)
        && key == CAPACITY_TYPE
        && operator == "In"
        && !values.iter().any(|v| matches!(v.as_str(), "on-demand" | "spot" | "reserved"))
    {
        return Some(format!("no valid values found in {values:?} for {key}"));
    }
    if let Some(bad) = values.iter().find(|v| !is_label_value(v)) {
        return Some(format!("invalid value {bad} for key {key}"));
    }
    if matches!(operator, "Gt" | "Lt") && !matches!(values, [one] if one.parse::<u64>().is_ok()) {
        return Some(format!("key {key} with operator {operator} must have a single positive integer value"));
    }
    None
}

/// `IsRestrictedLabel`: a key Karpenter keeps for itself. From v1.9.0 (#2586): a well-known
/// key never is; one in the `karpenter.sh` (or, on AWS, `karpenter.k8s.aws`) domain or
/// `kubernetes.io/hostname` is. Before: also any `kubernetes.io` or `k8s.io` domain, except
/// `node.kubernetes.io`, `node-restriction.kubernetes.io` and `kops.k8s.io`
/// (`IsRestrictedNodeLabel`, domains matched by suffix).
fn is_restricted(key: &str, rules: &RuleSet) -> bool {
    if is_well_known(key) {
        return false;
    }
    let domain = key.split_once('/').map_or("", |(domain, _)| domain);
    if key == HOSTNAME {
        return true;
    }
    if rules.has(Rule::RestrictedLabelsNarrowed) {
        let within = |d: &str| domain == d || domain.ends_with(&format!(".{d}"));
        return within("karpenter.sh") || within("karpenter.k8s.aws");
    }
    if ["kops.k8s.io", "node.kubernetes.io", "node-restriction.kubernetes.io"].iter().any(|e| domain.ends_with(e)) {
        return false;
    }
    ["kubernetes.io", "k8s.io", "karpenter.sh", "karpenter.k8s.aws"].iter().any(|d| domain.ends_with(d))
}

/// `WellKnownLabels`, core's and the AWS provider's (v1.14.1; the provider's list grew over
/// its releases, the newest is used at every version).
fn is_well_known(key: &str) -> bool {
    matches!(
        key,
        NODEPOOL
            | ZONE
            | "topology.kubernetes.io/region"
            | INSTANCE_TYPE
            | "kubernetes.io/arch"
            | "kubernetes.io/os"
            | CAPACITY_TYPE
            | "node.kubernetes.io/windows-build"
            | "topology.k8s.aws/zone-id"
    ) || key.starts_with("karpenter.k8s.aws/instance-")
        || key.starts_with("karpenter.k8s.aws/capacity-reservation-")
}

/// `validation.IsValidLabelValue`: at most 63 characters, empty or alphanumeric at both ends
/// with `-`, `_` and `.` between.
fn is_label_value(value: &str) -> bool {
    let bytes = value.as_bytes();
    let alnum = |b: &u8| b.is_ascii_alphanumeric();
    value.len() <= 63
        && (bytes.is_empty()
            || (alnum(&bytes[0])
                && alnum(&bytes[bytes.len() - 1])
                && bytes.iter().all(|b| alnum(b) || matches!(b, b'-' | b'_' | b'.'))))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::CoreVersion;

    fn at(minor: u32) -> RuleSet {
        RuleSet::at(CoreVersion::new(1, minor, 0))
    }

    #[test]
    fn restricted_labels_follow_the_version() {
        // labels.go IsRestrictedLabel: v1.8.3 and v1.9.0 (#2586).
        assert!(is_restricted("kubernetes.io/hostname", &at(14)) && is_restricted("kubernetes.io/hostname", &at(0)));
        assert!(is_restricted("karpenter.sh/registered", &at(14)));
        assert!(is_restricted("karpenter.k8s.aws/ec2nodeclass", &at(14)));
        assert!(!is_restricted("karpenter.k8s.aws/instance-family", &at(14)));
        assert!(is_restricted("node-role.kubernetes.io/worker", &at(8)));
        assert!(!is_restricted("node-role.kubernetes.io/worker", &at(9)));
        assert!(!is_restricted("node.kubernetes.io/lifecycle", &at(8)), "an exception domain");
        assert!(!is_restricted("example.com/team", &at(8)) && !is_restricted("topology.kubernetes.io/zone", &at(8)));
    }

    #[test]
    fn requirement_checks() {
        let v = |s: &[&str]| s.iter().map(|x| (*x).to_owned()).collect::<Vec<_>>();
        assert!(requirement_error("karpenter.sh/capacity-type", "In", &v(&["ondemand"]), &at(5)).is_some());
        assert!(requirement_error("karpenter.sh/capacity-type", "In", &v(&["ondemand"]), &at(4)).is_none(), "#2164");
        assert!(requirement_error("example.com/size", "Gt", &v(&["-1"]), &at(14)).is_some());
        assert!(requirement_error("example.com/size", "Gt", &v(&["4"]), &at(14)).is_none());
        assert!(requirement_error("example.com/team", "In", &v(&["a b"]), &at(14)).is_some());
        assert!(
            requirement_error("beta.kubernetes.io/arch", "In", &v(&["amd64"]), &at(8)).is_none(),
            "normalised first"
        );
    }
}
