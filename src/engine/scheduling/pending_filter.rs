//! Which pending pods a simulation takes: `Provisioner.GetPendingPods` drops, before any
//! simulation, every provisionable pod that `Provisioner.Validate` rejects. Such a pod needs no
//! capacity, so it neither takes room on existing nodes nor makes a replacement necessary.
//!
//! Mirrors karpenter `pkg/controllers/provisioning/provisioner.go` (`GetPendingPods`,
//! `Validate`, `validateKarpenterManagedLabelCanExist`) and
//! `scheduling/volumetopology.go` (`ValidatePersistentVolumeClaims`, `validateVolume`); the
//! node-selection checks of `validateNodeSelector`/`validateAffinity` are [`node_selection`]'s.
//! Upstream's unsupported-provisioner and unsupported-topology-key sets are empty.

mod node_selection;

use super::volume_topology::ClaimSource;
use crate::engine::labels::NODEPOOL;
use crate::engine::state::Cluster;
use crate::rules::Rule;
use crate::snapshot::Pod;

/// `pv.kubernetes.io/bind-completed`: without it kube-scheduler treats a claim as unbound.
const BIND_COMPLETED: &str = "pv.kubernetes.io/bind-completed";

/// Why Karpenter ignores the pending pod, if it does (`Provisioner.Validate`).
pub(crate) fn rejection(pod: &Pod, cluster: &Cluster<'_>) -> Option<String> {
    avoids_karpenter(pod)
        .or_else(|| node_selection::rejection(pod, cluster.rules()))
        .or_else(|| claim_rejection(pod, cluster))
}

/// `validateKarpenterManagedLabelCanExist`: the pod's requirements (`NewPodRequirements`: its
/// heaviest preferred term and first required term) ask for no NodePool label.
fn avoids_karpenter(pod: &Pod) -> Option<String> {
    let first_required = super::pod_data::required_node_terms(pod).first();
    [first_required, super::pod_data::heaviest_preferred_term(pod)]
        .into_iter()
        .flatten()
        .flat_map(|term| term.match_expressions.iter().flatten())
        .any(|e| e.key == NODEPOOL && e.operator == "DoesNotExist")
        .then(|| format!("configured to not run on a Karpenter provisioned node ({NODEPOOL} DoesNotExist)"))
}

/// `ValidatePersistentVolumeClaims`: the first reason one of the pod's claims rules it out.
fn claim_rejection(pod: &Pod, cluster: &Cluster<'_>) -> Option<String> {
    let snapshot = cluster.snapshot;
    let unread = |kind: &str| snapshot.info.unread.iter().any(|u| u.kind == kind);
    // The checks of #2415, #2487, #2488 (v1.7.0) and #2851 (v1.10.0); before them only a missing
    // claim, volume or class, or an unbound claim without a class, ruled a pod out.
    let has = |rule: Rule| cluster.rules().has(rule);
    for volume in &pod.spec.volumes {
        if volume.persistent_volume_claim.is_none() && volume.ephemeral.is_none() {
            continue;
        }
        let pvc = match cluster.volumes.claim(pod, volume) {
            Some(ClaimSource::Claim(pvc)) => pvc,
            // `GetPersistentVolumeClaim` fails on a claim that does not exist (a generic
            // ephemeral volume's included), unless the snapshot could not list claims at all.
            _ if unread("PersistentVolumeClaim") => continue,
            _ => return Some(format!("persistentvolumeclaim of volume \"{}\" not found", volume.name)),
        };
        let name = &pvc.metadata.name;
        if has(Rule::DeletingOrLostClaimIgnored) {
            if pvc.metadata.deletion_timestamp.is_some() {
                return Some(format!("persistentvolumeclaim \"{name}\" is being deleted"));
            }
            if pvc.status.phase.as_deref() == Some("Lost") {
                return Some(format!("persistentvolumeclaim \"{name}\" bound to non-existent persistentvolume"));
            }
        }
        if let Some(bound) = pvc.spec.volume_name.as_deref().filter(|v| !v.is_empty()) {
            match cluster.volumes.volume(bound) {
                None if unread("PersistentVolume") => {}
                None => return Some(format!("persistentvolume \"{bound}\" of claim \"{name}\" not found")),
                Some(pv) if pv.metadata.deletion_timestamp.is_some() && has(Rule::DeletingVolumeIgnored) => {
                    return Some(format!("persistentvolume \"{bound}\" of claim \"{name}\" is being deleted"));
                }
                Some(_) => {}
            }
            if has(Rule::BindCompletedRequired) && !pvc.metadata.annotations.contains_key(BIND_COMPLETED) {
                return Some(format!("pvc \"{name}\" is considered unbound: no {BIND_COMPLETED} annotation"));
            }
            continue;
        }
        let class = pvc.spec.storage_class_name.as_deref().unwrap_or_default();
        if class.is_empty() {
            return Some(format!("unbound pvc \"{name}\" must define a storage class"));
        }
        match cluster.volumes.class(class) {
            None if unread("StorageClass") => {}
            None => return Some(format!("storage class \"{class}\" of unbound pvc \"{name}\" not found")),
            Some(sc)
                if sc.volume_binding_mode.as_deref() == Some("Immediate")
                    && has(Rule::ImmediateUnboundClaimIgnored) =>
            {
                return Some(format!("pvc \"{name}\" with immediate volume binding mode must be bound"));
            }
            Some(_) => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::rejection;
    use crate::engine::state::Cluster;
    use crate::testing::{now, snapshot};

    fn pending_with(volume: &serde_json::Value, objects: Vec<serde_json::Value>) -> Option<String> {
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "q", "namespace": "ns"},
            "spec": {"volumes": [volume]}});
        let mut all = vec![pod];
        all.extend(objects);
        let s = snapshot(all);
        let cluster = Cluster::new(&s, now());
        rejection(&s.pods[0], &cluster)
    }

    fn claim(name: &str, extra: serde_json::Value) -> serde_json::Value {
        let mut pvc = json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
            "metadata": {"name": name, "namespace": "ns"}, "spec": {}});
        json_merge(&mut pvc, extra);
        pvc
    }

    fn json_merge(a: &mut serde_json::Value, b: serde_json::Value) {
        match (a, b) {
            (serde_json::Value::Object(a), serde_json::Value::Object(b)) => {
                for (k, v) in b {
                    json_merge(a.entry(k).or_insert(serde_json::Value::Null), v);
                }
            }
            (a, b) => *a = b,
        }
    }

    #[test]
    fn claims_kube_scheduler_rejects_leave_the_pod_out() {
        let vol = json!({"name": "data", "persistentVolumeClaim": {"claimName": "c"}});
        let pv = json!({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pv"}});
        let bound = json!({"metadata": {"annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
                           "spec": {"volumeName": "pv"}});
        assert_eq!(pending_with(&vol, vec![claim("c", bound.clone()), pv.clone()]), None);
        let lost = json!({"status": {"phase": "Lost"}});
        assert!(pending_with(&vol, vec![claim("c", lost)]).is_some_and(|r| r.contains("non-existent")));
        let unannotated = json!({"spec": {"volumeName": "pv"}});
        assert!(pending_with(&vol, vec![claim("c", unannotated), pv]).is_some_and(|r| r.contains("unbound")));
        assert!(pending_with(&vol, vec![claim("c", json!({}))]).is_some_and(|r| r.contains("storage class")));
        assert!(pending_with(&vol, vec![]).is_some_and(|r| r.contains("not found")));
        let empty_dir = json!({"name": "tmp", "emptyDir": {}});
        assert_eq!(pending_with(&empty_dir, vec![]), None);
    }
}
