//! What the scheduler computes once per pod (and again after each relaxation): its node
//! requirements and whether it is a pending pod Karpenter provisions for.
//!
//! Mirrors karpenter `scheduling/scheduler.go` (`PodData`, `updateCachedPodData`),
//! `pkg/scheduling/requirements.go` (`NewPodRequirements`, `NewStrictPodRequirements`) and
//! `pkg/utils/pod/scheduling.go` (`IsProvisionable`).

use super::requirements::Requirements;
use crate::engine::pod;
use crate::engine::state::Cluster;
use crate::snapshot::Pod;
use k8s_openapi::api::core::v1::NodeSelectorTerm;

/// The pod's required node-affinity terms (ORed), none when it has no required node affinity.
pub(in crate::engine) fn required_node_terms(pod: &Pod) -> &[NodeSelectorTerm] {
    pod.spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|n| n.required_during_scheduling_ignored_during_execution.as_ref())
        .map_or(&[], |s| s.node_selector_terms.as_slice())
}

/// Unbound pods the scheduler already gave up on (`PodScheduled=False, Unschedulable`).
pub(crate) fn is_provisionable(pod: &Pod) -> bool {
    pod::is_active(pod)
        && pod.status.nominated_node_name.as_deref().is_none_or(str::is_empty)
        && !pod::is_owned_by_daemonset(pod)
        && !pod::is_mirror(pod)
        && crate::snapshot::condition(&pod.status.conditions, "PodScheduled")
            .is_some_and(|c| c.status == "False" && c.reason.as_deref() == Some("Unschedulable"))
}

/// The pod's node requirements as the scheduler tries them now (`pod_requirements`), each met
/// with every alternative of its volumes' topology (`volume_topology.rs`).
pub(crate) fn node_requirements<'a>(pod: &'a Pod, cluster: &Cluster<'a>) -> Vec<Requirements> {
    let own = pod_requirements(pod);
    if pod.spec.volumes.is_empty() {
        return own;
    }
    super::volume_topology::with_volumes(own, &cluster.volumes.alternatives(pod))
}

/// The pod's own node requirements (no volumes): its nodeSelector, the heaviest preferred
/// node-affinity term (treated as required until relaxed), and the **first** required
/// node-affinity term (the next one only once `preferences.rs` drops it). One alternative.
///
/// Mirrors karpenter `pkg/scheduling/requirements.go` `NewPodRequirements` (`newPodRequirements`
/// with `podRequirementTypeAll`) as `scheduler.go updateCachedPodData` uses it.
pub(crate) fn pod_requirements(pod: &Pod) -> Vec<Requirements> {
    let mut base = Requirements::from_labels(&pod.spec.node_selector);
    if let Some(preferred) = heaviest_preferred_term(pod) {
        base.add_all(&Requirements::from_k8s(preferred.match_expressions.as_deref().unwrap_or_default()));
    }
    if let Some(term) = required_node_terms(pod).first() {
        base.add_all(&Requirements::from_k8s(term.match_expressions.as_deref().unwrap_or_default()));
    }
    vec![base]
}

/// The preferred node-affinity term `NewPodRequirements` treats as required: the heaviest;
/// among equal weights the first, as `preferences.rs` removes them.
pub(crate) fn heaviest_preferred_term(pod: &Pod) -> Option<&NodeSelectorTerm> {
    pod.spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|n| n.preferred_during_scheduling_ignored_during_execution.as_ref())
        .and_then(|terms| terms.iter().rev().max_by_key(|t| t.weight))
        .map(|t| &t.preference)
}

/// The pod's nodeSelector and its **first** required node-affinity term, no preference: what
/// both `CanAdd`s hand to `Topology.AddRequirements` as the pod's domains (`podDomains`). The
/// next term becomes first only once `preferences.rs` drops this one.
///
/// Mirrors karpenter `pkg/scheduling/requirements.go` `NewStrictPodRequirements` as
/// `scheduler.go updateCachedPodData` caches it (`PodData.StrictRequirements`).
pub(crate) fn strict_requirements(pod: &Pod) -> Requirements {
    let mut base = Requirements::from_labels(&pod.spec.node_selector);
    if let Some(term) = required_node_terms(pod).first() {
        base.add_all(&Requirements::from_k8s(term.match_expressions.as_deref().unwrap_or_default()));
    }
    base
}

/// The pod's required node requirements, one alternative per required node-affinity term:
/// a DaemonSet pod lands on a node if any term fits, as upstream's `isDaemonPodCompatible`
/// retries with `removeRequiredNodeAffinityTerm`.
///
/// Mirrors karpenter `pkg/scheduling/requirements.go` `NewStrictPodRequirements`.
pub(crate) fn strict_alternatives(pod: &Pod) -> Vec<Requirements> {
    let base = Requirements::from_labels(&pod.spec.node_selector);
    let terms = required_node_terms(pod);
    if terms.is_empty() {
        return vec![base];
    }
    terms
        .iter()
        .map(|t| {
            let mut r = base.clone();
            r.add_all(&Requirements::from_k8s(t.match_expressions.as_deref().unwrap_or_default()));
            r
        })
        .collect()
}

/// Whether the pod asks for Dynamic Resource Allocation devices, as the version tells: from
/// v1.14.0 (#3124) a pod-level `resourceClaims` entry or a container's (or init container's)
/// `resources.claims`; from v1.7.0 (#2384) the containers' claims alone; before v1.7.0 never
/// (Karpenter schedules such a pod like any other, its claims ignored).
///
/// Mirrors karpenter `pkg/utils/pod/scheduling.go` `HasDRARequirements`.
pub(crate) fn has_dra_requirements(pod: &Pod, rules: &crate::rules::RuleSet) -> bool {
    use crate::rules::Rule;
    if !rules.has(Rule::DraPodsUnschedulable) {
        return false;
    }
    let containers = pod.spec.init_containers.iter().chain(&pod.spec.containers);
    (rules.has(Rule::DraPodLevelClaims) && !pod.spec.resource_claims.is_empty())
        || containers.into_iter().any(|c| !c.resources.claims.is_empty())
}

#[cfg(test)]
mod tests {
    use super::has_dra_requirements;
    use crate::rules::{CoreVersion, RuleSet};
    use crate::snapshot::{Container, ContainerClaim, Pod};

    /// karpenter v1.7.0 and v1.14.1 `pkg/utils/pod/scheduling.go` `HasDRARequirements`; the
    /// v1.7 suite's `Scheduling > Dynamic Resource Allocation (DRA) > should handle DRA pods
    /// correctly` entries (container, init container, both, neither).
    #[test]
    fn what_makes_a_dra_pod_follows_the_version() {
        let at = |major, minor, patch| RuleSet::at(CoreVersion::new(major, minor, patch));
        let claim = || ContainerClaim { name: "gpu".into(), request: None };
        let mut by_container = Pod::default();
        by_container.spec.containers.push(Container::default());
        by_container.spec.containers[0].resources.claims.push(claim());
        by_container.spec.resource_claims.push(serde_json::json!({"name": "gpu"}));
        let mut by_init = Pod::default();
        by_init.spec.init_containers.push(Container::default());
        by_init.spec.init_containers[0].resources.claims.push(claim());
        let mut pod_level_only = Pod::default();
        pod_level_only.spec.resource_claims.push(serde_json::json!({"name": "gpu"}));
        let plain = Pod::default();
        for pod in [&by_container, &by_init, &pod_level_only, &plain] {
            assert!(!has_dra_requirements(pod, &at(1, 6, 4)), "before #2384 no pod is a DRA pod");
        }
        assert!(has_dra_requirements(&by_container, &at(1, 7, 0)));
        assert!(has_dra_requirements(&by_init, &at(1, 7, 0)));
        assert!(!has_dra_requirements(&pod_level_only, &at(1, 13, 0)), "only containers' claims before #3124");
        assert!(has_dra_requirements(&pod_level_only, &at(1, 14, 0)));
        assert!(!has_dra_requirements(&plain, &at(1, 14, 1)));
    }
}
