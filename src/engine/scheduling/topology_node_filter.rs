//! Which nodes a topology spread constraint counts.
//!
//! Mirrors karpenter `pkg/controllers/provisioning/scheduling/topologynodefilter.go`
//! (`MakeTopologyNodeFilter`, `Matches`, `matchesRequirements`) and the policy defaults of
//! `topologygroup.go NewTopologyGroup`: `nodeAffinityPolicy` defaults to `Honor` (a node counts
//! only when the pod's nodeSelector and one of its required node-affinity terms match it) and
//! `nodeTaintsPolicy` to `Ignore` (with `Honor`, only nodes whose taints the pod tolerates
//! count). Pod (anti-)affinity terms have no filter: they count on every node.

use k8s_openapi::api::core::v1::Toleration;

use super::pod_data::strict_alternatives;
use super::requirements::Requirements;
use super::taints;
use crate::snapshot::{Pod, Taint};

/// A spread constraint's node filter.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TopologyNodeFilter {
    /// The pod's nodeSelector met with each required node-affinity term (an OR); one entry,
    /// the selector alone, when the pod has no required node affinity.
    requirements: Vec<Requirements>,
    honor_affinity: bool,
    honor_taints: bool,
    tolerations: Vec<Toleration>,
}

/// Whether a `NodeInclusionPolicy` (absent: `default`) is `Honor`.
fn honors(policy: Option<&str>, default: bool) -> bool {
    policy.map_or(default, |p| p == "Honor")
}

impl TopologyNodeFilter {
    /// `MakeTopologyNodeFilter` with the constraint's policies (defaults as `NewTopologyGroup`).
    pub(crate) fn new(pod: &Pod, taints_policy: Option<&str>, affinity_policy: Option<&str>) -> Self {
        TopologyNodeFilter {
            requirements: strict_alternatives(pod),
            honor_affinity: honors(affinity_policy, true),
            honor_taints: honors(taints_policy, false),
            tolerations: pod.spec.tolerations.clone(),
        }
    }

    /// Meets every alternative with `extra` (before v1.9.0 a volume's topology was part of the
    /// pod's node affinity, `volumetopology.go` `Inject`).
    pub(crate) fn add_to_each(&mut self, extra: &Requirements) {
        for alternative in &mut self.requirements {
            alternative.add_all(extra);
        }
    }

    /// The filter passes every node.
    pub(crate) fn passes_all(&self) -> bool {
        (!self.honor_affinity || self.requirements.iter().any(|r| r.0.is_empty())) && !self.honor_taints
    }

    /// `Matches` for an existing node, read through its label values.
    pub(crate) fn matches_node<'l>(&self, label: &dyn Fn(&str) -> Option<&'l str>, node_taints: &[Taint]) -> bool {
        let affinity = !self.honor_affinity || self.requirements.iter().any(|r| r.admit_labels(label));
        affinity && self.tolerates(node_taints)
    }

    /// `Matches` for a NodeClaim being built: its requirements, well-known labels allowed to be
    /// undefined (`AllowUndefinedWellKnownLabels`).
    pub(crate) fn matches_claim(
        &self,
        claim: &Requirements,
        claim_taints: &[Taint],
        undefined_ok: &dyn Fn(&str) -> bool,
    ) -> bool {
        let affinity =
            !self.honor_affinity || self.requirements.iter().any(|r| claim.compatible(r, undefined_ok).is_ok());
        affinity && self.tolerates(claim_taints)
    }

    /// The alternatives a node's labels must meet one of, when the affinity is honoured.
    pub(crate) fn required_terms(&self) -> Option<&[Requirements]> {
        self.honor_affinity.then_some(self.requirements.as_slice())
    }

    /// Whether the pod tolerates these taints, when they are honoured; also
    /// `TopologyDomainGroup.ForEachDomain`'s test of a NodePool's taints.
    pub(crate) fn tolerates(&self, node_taints: &[Taint]) -> bool {
        !self.honor_taints || taints::untolerated(&self.tolerations, node_taints).is_none()
    }

    /// Part of a topology group's identity (`TopologyGroup.Hash` hashes the filter).
    pub(crate) fn id(&self) -> String {
        format!("{:?}|{}|{}|{:?}", self.requirements, self.honor_affinity, self.honor_taints, self.tolerations)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::TopologyNodeFilter;
    use crate::engine::labels::ZONE;
    use crate::snapshot::{Pod, Taint};

    fn pod(spec: &serde_json::Value) -> Pod {
        serde_json::from_value(json!({"metadata": {"name": "p", "namespace": "ns"}, "spec": spec})).expect("pod")
    }

    fn zone_affinity(zones: &[&str]) -> serde_json::Value {
        json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": ZONE, "operator": "In", "values": zones}]}]}}}})
    }

    fn in_zone(zone: &'static str) -> impl Fn(&str) -> Option<&'static str> {
        move |key| (key == ZONE).then_some(zone)
    }

    #[test]
    fn honor_affinity_is_the_default_and_counts_only_matching_nodes() {
        // topologygroup.go NewTopologyGroup: nodeAffinityPolicy defaults to Honor.
        let p = pod(&zone_affinity(&["a", "b"]));
        let filter = TopologyNodeFilter::new(&p, None, None);
        assert!(filter.matches_node(&in_zone("a"), &[]));
        assert!(!filter.matches_node(&in_zone("c"), &[]));
        let ignore = TopologyNodeFilter::new(&p, None, Some("Ignore"));
        assert!(ignore.matches_node(&in_zone("c"), &[]));
        assert!(ignore.passes_all());
    }

    #[test]
    fn taints_count_only_with_honor() {
        // topologygroup.go NewTopologyGroup: nodeTaintsPolicy defaults to Ignore.
        let p = pod(&json!({}));
        let tainted = [Taint { key: "dedicated".into(), value: Some("gpu".into()), effect: "NoSchedule".into() }];
        assert!(TopologyNodeFilter::new(&p, None, None).matches_node(&in_zone("a"), &tainted));
        assert!(TopologyNodeFilter::new(&p, None, None).passes_all());
        let honor = TopologyNodeFilter::new(&p, Some("Honor"), None);
        assert!(!honor.matches_node(&in_zone("a"), &tainted));
        assert!(!honor.tolerates(&tainted));
        assert!(honor.matches_node(&in_zone("a"), &[]));
    }
}
