//! Volume topology: where a pod's claims let it run, as alternatives (an OR of requirement sets).
//!
//! Mirrors karpenter `pkg/controllers/provisioning/scheduling/volumetopology.go`
//! (`GetRequirements`, `getRequirements`, `getPersistentVolumeRequirements`,
//! `getStorageClassRequirements`, `mergeVolumeRequirementAlternatives`) and
//! `pkg/utils/volume/volume.go` `GetPersistentVolumeClaim`:
//!
//! - a volume's claim is its `persistentVolumeClaim`, or for a generic ephemeral volume the
//!   claim `<pod>-<volume>` the ephemeral controller creates;
//! - a bound claim contributes one alternative per node-selector term of its PV's required node
//!   affinity (terms are ORed); for `local` and `hostPath` PVs the hostname expressions are
//!   dropped, and a term left empty by that is an unconstrained alternative;
//! - an unbound claim contributes one alternative per `allowedTopologies` entry of its
//!   StorageClass;
//! - the pod's alternatives are the cross product over its volumes, keeping the compatible
//!   branches (all of them when none is compatible, as upstream does).
//!
//! The requirements are applied to the destination only, never to the pod's own requirements,
//! so topology spread still counts by the pod's node affinity (the `GetRequirements` doc).
//!
//! One approximation: a generic ephemeral volume whose claim does not exist yet (the pod is
//! still being created) takes its `volumeClaimTemplate`'s StorageClass topology, the class the
//! claim will be created with; upstream fails the lookup and leaves the pod out of the
//! simulation (`provisioner.go getVolumeTopologyRequirements`).
//!
//! Lookups go through [`VolumeIndex`], built once per replay: a claim, a volume and a class are
//! each one hash lookup, so a cluster with a claim on every pod costs what its pods cost.

use foldhash::{HashMap, HashMapExt};

use super::requirements::{Requirement, Requirements};
use crate::engine::labels::HOSTNAME;
use crate::snapshot::{CsiNode, PersistentVolume, PersistentVolumeClaim, Pod, Snapshot, StorageClass, Volume};

/// The snapshot's claims (by namespace and name), volumes and classes (by name).
#[derive(Debug, Default)]
pub struct VolumeIndex<'a> {
    claims: HashMap<(&'a str, &'a str), &'a PersistentVolumeClaim>,
    volumes: HashMap<&'a str, &'a PersistentVolume>,
    classes: HashMap<&'a str, &'a StorageClass>,
    /// CSINodes by node name (attach limits, `volume_usage.rs`).
    csi_nodes: HashMap<&'a str, &'a CsiNode>,
    /// Every PV term and `allowedTopologies` entry is an alternative (#2743, v1.12.1 and
    /// v1.13.0 on); before, only the first of each, all volumes ANDed into one set.
    every_term: bool,
}

/// Where a pod volume's storage comes from.
#[derive(Debug, Clone, Copy)]
pub(crate) enum ClaimSource<'a> {
    /// The claim exists.
    Claim(&'a PersistentVolumeClaim),
    /// A generic ephemeral volume whose claim is not created yet: its template's class.
    Template(Option<&'a str>),
}

impl<'a> VolumeIndex<'a> {
    pub fn new(snapshot: &'a Snapshot) -> Self {
        let mut claims = HashMap::with_capacity(snapshot.pvcs.len());
        for pvc in &snapshot.pvcs {
            claims.insert((pvc.metadata.namespace(), pvc.metadata.name.as_str()), pvc);
        }
        let volumes = snapshot.pvs.iter().map(|pv| (pv.metadata.name.as_str(), pv)).collect();
        let classes = snapshot.storage_classes.iter().map(|sc| (sc.metadata.name.as_str(), sc)).collect();
        let csi_nodes = snapshot.csi_nodes.iter().map(|c| (c.metadata.name.as_str(), c)).collect();
        let every_term = snapshot.info.rules.has(crate::rules::Rule::VolumeTopologyAlternatives);
        VolumeIndex { claims, volumes, classes, csi_nodes, every_term }
    }

    /// `GetPersistentVolumeClaim`: the claim a pod volume uses; `None` for volumes without one
    /// (emptyDir, configMap, …) and for a missing `persistentVolumeClaim`.
    pub(crate) fn claim(&self, pod: &Pod, volume: &'a Volume) -> Option<ClaimSource<'a>> {
        let namespace = pod.metadata.namespace();
        if let Some(claim) = &volume.persistent_volume_claim {
            return self.claims.get(&(namespace, claim.claim_name.as_str())).map(|c| ClaimSource::Claim(c));
        }
        let template = volume.ephemeral.as_ref()?;
        let name = format!("{}-{}", pod.metadata.name, volume.name);
        Some(self.claims.get(&(namespace, name.as_str())).map_or_else(
            || {
                let class = template.volume_claim_template.as_ref().and_then(|t| t.spec.storage_class_name.as_deref());
                ClaimSource::Template(class)
            },
            |c| ClaimSource::Claim(c),
        ))
    }

    pub(crate) fn volume(&self, name: &str) -> Option<&'a PersistentVolume> {
        self.volumes.get(name).copied()
    }

    pub(crate) fn class(&self, name: &str) -> Option<&'a StorageClass> {
        self.classes.get(name).copied()
    }

    pub(crate) fn csi_node(&self, node: &str) -> Option<&'a CsiNode> {
        self.csi_nodes.get(node).copied()
    }

    /// `GetRequirements`: the pod's volume alternatives; empty when its volumes constrain
    /// nothing.
    pub(crate) fn alternatives(&self, pod: &'a Pod) -> Vec<Requirements> {
        let mut alternatives: Vec<Requirements> = vec![Requirements::default()];
        let mut constrained = false;
        for volume in &pod.spec.volumes {
            let per_volume = self.volume_alternatives(pod, volume);
            if per_volume.is_empty() {
                continue;
            }
            constrained = true;
            alternatives = merge(&alternatives, &per_volume);
        }
        if constrained {
            alternatives
        } else {
            Vec::new()
        }
    }

    /// `getRequirements` for one volume.
    fn volume_alternatives(&self, pod: &Pod, volume: &'a Volume) -> Vec<Requirements> {
        let class_name = match self.claim(pod, volume) {
            None => return Vec::new(),
            Some(ClaimSource::Claim(pvc)) => {
                if let Some(bound) = pvc.spec.volume_name.as_deref().filter(|n| !n.is_empty()) {
                    let every_term = self.every_term;
                    return self
                        .volume(bound)
                        .map(|pv| persistent_volume_alternatives(pv, every_term))
                        .unwrap_or_default();
                }
                pvc.spec.storage_class_name.as_deref()
            }
            Some(ClaimSource::Template(class)) => class,
        };
        class_name
            .filter(|n| !n.is_empty())
            .and_then(|n| self.class(n))
            .map(|class| class_alternatives(class, self.every_term))
            .unwrap_or_default()
    }
}

/// `getPersistentVolumeRequirements`: one alternative per required node-selector term (before
/// #2743, the first term's only: "terms are ORed, only use the first term").
fn persistent_volume_alternatives(pv: &PersistentVolume, every_term: bool) -> Vec<Requirements> {
    let Some(required) = pv.spec.node_affinity.as_ref().and_then(|a| a.required.as_ref()) else {
        return Vec::new();
    };
    let node_local = pv.spec.local.is_some() || pv.spec.host_path.is_some();
    let mut out = Vec::new();
    let terms = &required.node_selector_terms;
    let terms = if every_term { terms.as_slice() } else { &terms[..terms.len().min(1)] };
    for term in terms {
        let all = term.match_expressions.as_deref().unwrap_or_default();
        let kept: Vec<_> = all.iter().filter(|e| !(node_local && e.key == HOSTNAME)).cloned().collect();
        if node_local && !all.is_empty() && kept.is_empty() {
            // A hostname-only term of a node-local volume: unconstrained, as upstream keeps it.
            out.push(Requirements::default());
        } else if !kept.is_empty() {
            out.push(Requirements::from_k8s(&kept));
        }
    }
    out
}

/// `getStorageClassRequirements`: one alternative per `allowedTopologies` entry (before #2743,
/// the first entry's only).
fn class_alternatives(class: &StorageClass, every_term: bool) -> Vec<Requirements> {
    let entries = class.allowed_topologies.len();
    class
        .allowed_topologies
        .iter()
        .take(if every_term { entries } else { 1 })
        .filter_map(|term| {
            let expressions = term.match_label_expressions.as_deref().unwrap_or_default();
            let mut reqs = Requirements::default();
            for e in expressions {
                reqs.add(&e.key, &Requirement::in_values(e.values.iter().cloned()));
            }
            (!expressions.is_empty()).then_some(reqs)
        })
        .collect()
}

/// `mergeVolumeRequirementAlternatives`: the cross product, keeping only compatible branches
/// unless none is.
fn merge(alternatives: &[Requirements], per_volume: &[Requirements]) -> Vec<Requirements> {
    let product = |only_compatible: bool| -> Vec<Requirements> {
        let mut out = Vec::new();
        for existing in alternatives {
            for volume in per_volume {
                if only_compatible && !intersects(existing, volume) {
                    continue;
                }
                let mut merged = existing.clone();
                merged.add_all(volume);
                out.push(merged);
            }
        }
        out
    };
    let compatible = product(true);
    if compatible.is_empty() {
        product(false)
    } else {
        compatible
    }
}

/// `Requirements.Intersects`: every key both constrain has a common value.
fn intersects(a: &Requirements, b: &Requirements) -> bool {
    b.0.iter().all(|(key, want)| a.get(key).is_none_or(|have| have.intersects(want)))
}

/// The pod's node-requirement alternatives with its volumes' applied: each alternative of the
/// pod against each of its volumes' (`existingnode.go CanAdd` / `nodeclaim.go CanAdd` try every
/// volume alternative on top of the pod's requirements).
pub(crate) fn with_volumes(pod_alternatives: Vec<Requirements>, volumes: &[Requirements]) -> Vec<Requirements> {
    if volumes.is_empty() {
        return pod_alternatives;
    }
    let mut out = Vec::with_capacity(pod_alternatives.len() * volumes.len());
    for pod in &pod_alternatives {
        for volume in volumes {
            let mut merged = pod.clone();
            merged.add_all(volume);
            out.push(merged);
        }
    }
    out
}

/// Whether the pod has a volume backed by a claim of its own (its placement inputs are not its
/// siblings').
pub(crate) fn has_claims(pod: &Pod) -> bool {
    pod.spec.volumes.iter().any(|v| v.persistent_volume_claim.is_some() || v.ephemeral.is_some())
}

#[cfg(test)]
mod tests;
