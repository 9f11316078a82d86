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

/// Unbound pods the scheduler already gave up on (`PodScheduled=False, Unschedulable`).
pub(crate) fn is_provisionable(pod: &Pod) -> bool {
    pod::is_active(pod)
        && pod.status.nominated_node_name.as_deref().is_none_or(str::is_empty)
        && !pod::is_owned_by_daemonset(pod)
        && !pod::is_mirror(pod)
        && crate::snapshot::condition(&pod.status.conditions, "PodScheduled")
            .is_some_and(|c| c.status == "False" && c.reason.as_deref() == Some("Unschedulable"))
}

/// The pod's node requirements: nodeSelector + each required affinity term (alternatives),
/// plus the heaviest preferred term while `strict`, each met with every alternative of its
/// volumes' topology (`volume_topology.rs`).
pub(crate) fn node_requirements<'a>(pod: &'a Pod, strict: bool, cluster: &Cluster<'a>) -> Vec<Requirements> {
    let own = pod_requirements(pod, strict);
    if pod.spec.volumes.is_empty() {
        return own;
    }
    super::volume_topology::with_volumes(own, &cluster.volumes.alternatives(pod))
}

/// The pod's own node requirements (no volumes): what topology spread's node filter and pod
/// domains read, and what a DaemonSet pod's overhead is matched by.
pub(crate) fn pod_requirements(pod: &Pod, strict: bool) -> Vec<Requirements> {
    let mut base = Requirements::from_labels(&pod.spec.node_selector);
    let node_affinity = pod.spec.affinity.as_ref().and_then(|a| a.node_affinity.as_ref());
    if strict {
        if let Some(preferred) = node_affinity
            .and_then(|n| n.preferred_during_scheduling_ignored_during_execution.as_ref())
            .and_then(|terms| terms.iter().max_by_key(|t| t.weight))
        {
            base.add_all(&Requirements::from_k8s(
                preferred.preference.match_expressions.as_deref().unwrap_or_default(),
            ));
        }
    }
    let terms = node_affinity
        .and_then(|n| n.required_during_scheduling_ignored_during_execution.as_ref())
        .map(|s| s.node_selector_terms.clone())
        .unwrap_or_default();
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
