//! Volume topology: the zones a pod's bound volumes pin it to.
//!
//! Mirrors karpenter `pkg/controllers/provisioning/scheduling/volumetopology.go`: requirements
//! come from a bound PV's node affinity (its `kubernetes.io/hostname` term ignored for `local`
//! and `hostPath` volumes, so such pods stay movable) or, for an unbound claim, from its
//! StorageClass `allowedTopologies`.

use super::labels::HOSTNAME;
use super::scheduling::requirements::{Requirement, Requirements};
use crate::snapshot::{Pod, Snapshot};

/// Requirements the pod's volumes add.
pub(crate) fn volume_requirements(pod: &Pod, snapshot: &Snapshot) -> Requirements {
    let mut out = Requirements::default();
    for volume in &pod.spec.volumes {
        let Some(claim) = &volume.persistent_volume_claim else { continue };
        let Some(pvc) = snapshot
            .pvcs
            .iter()
            .find(|p| p.metadata.name == claim.claim_name && p.metadata.namespace() == pod.metadata.namespace())
        else {
            continue;
        };
        let pv = pvc.spec.volume_name.as_deref().and_then(|n| snapshot.pvs.iter().find(|pv| pv.metadata.name == n));
        if let Some(pv) = pv {
            let node_local = pv.spec.local.is_some() || pv.spec.host_path.is_some();
            let terms = pv
                .spec
                .node_affinity
                .as_ref()
                .and_then(|a| a.required.as_ref())
                .map(|s| s.node_selector_terms.clone())
                .unwrap_or_default();
            if let Some(term) = terms.first() {
                let exprs: Vec<_> = term
                    .match_expressions
                    .iter()
                    .flatten()
                    .filter(|e| !(node_local && e.key == HOSTNAME))
                    .cloned()
                    .collect();
                out.add_all(&Requirements::from_k8s(&exprs));
            }
            continue;
        }
        let class = pvc
            .spec
            .storage_class_name
            .as_deref()
            .and_then(|n| snapshot.storage_classes.iter().find(|s| s.metadata.name == n));
        if let Some(term) = class.and_then(|c| c.allowed_topologies.first()) {
            for e in term.match_label_expressions.iter().flatten() {
                out.add(&e.key, &Requirement::in_values(e.values.clone()));
            }
        }
    }
    out
}
