//! CSI attach limits: how many volumes of each driver a node may mount, and how many it would.
//!
//! Mirrors karpenter `pkg/scheduling/volumeusage.go` (`GetVolumes`, `ResolveDriver`,
//! `driverFromSC`, `driverFromVolume`, `VolumeUsage.ExceedsLimits`) and the limits cluster
//! state reads from each node's `CSINode` (`allocatable.count` per driver). Only existing nodes
//! have limits (`existingnode.go CanAdd`); a new NodeClaim has no CSINode yet.

use std::collections::{BTreeMap, BTreeSet};

use super::volume_topology::{ClaimSource, VolumeIndex};
use crate::snapshot::{CsiNode, Pod};

/// Claims per driver: `driver → {namespace/claim}`.
pub(crate) type Volumes = BTreeMap<String, BTreeSet<String>>;

/// One node's attach limits and the claims its pods hold.
#[derive(Debug, Clone, Default)]
pub(crate) struct VolumeUsage {
    limits: BTreeMap<String, usize>,
    volumes: Volumes,
}

impl VolumeUsage {
    /// The limits of a node's CSINode and the volumes of its pods; `None` when the node has no
    /// limit at all (nothing to check).
    pub(crate) fn new<'p>(
        csi_node: Option<&CsiNode>,
        pods: impl Iterator<Item = &'p Pod>,
        index: &VolumeIndex<'_>,
    ) -> Option<Self> {
        let limits: BTreeMap<String, usize> = csi_node?
            .spec
            .drivers
            .iter()
            .filter_map(|d| {
                let count = d.allocatable.as_ref()?.count?;
                Some((d.name.clone(), usize::try_from(count).unwrap_or(0)))
            })
            .collect();
        if limits.is_empty() {
            return None;
        }
        let mut volumes = Volumes::new();
        for pod in pods {
            union_into(&mut volumes, &pod_volumes(pod, index));
        }
        Some(VolumeUsage { limits, volumes })
    }

    /// `ExceedsLimits`: the node's claims with `placed` and `pod`'s, against each driver's limit;
    /// upstream's message (`existingnode.go CanAdd` wraps it) when one is exceeded.
    pub(crate) fn exceeds_limits(&self, placed: Option<&Volumes>, pod: &Volumes) -> Option<String> {
        for (driver, limit) in &self.limits {
            let sets = [self.volumes.get(driver), placed.and_then(|p| p.get(driver)), pod.get(driver)];
            let mut all: BTreeSet<&String> = BTreeSet::new();
            for set in sets.into_iter().flatten() {
                all.extend(set);
            }
            if all.len() > *limit {
                return Some(format!(
                    "checking volume usage, would exceed volume limit (provisioner {driver}, volume-count {}, volume-limit {limit})",
                    all.len()
                ));
            }
        }
        None
    }
}

/// Adds `other`'s claims to `into`.
pub(crate) fn union_into(into: &mut Volumes, other: &Volumes) {
    for (driver, claims) in other {
        into.entry(driver.clone()).or_default().extend(claims.iter().cloned());
    }
}

/// `GetVolumes`: the pod's claims per CSI driver. A missing claim, class or volume is skipped
/// (upstream ignores it for limits), as is a volume of no CSI driver.
pub(crate) fn pod_volumes(pod: &Pod, index: &VolumeIndex<'_>) -> Volumes {
    let mut out = Volumes::new();
    for volume in &pod.spec.volumes {
        let Some(ClaimSource::Claim(pvc)) = index.claim(pod, volume) else { continue };
        let driver = match pvc.spec.volume_name.as_deref().filter(|n| !n.is_empty()) {
            // `driverFromVolume`: the PV's CSI driver, ebs.csi.aws.com for an in-tree
            // awsElasticBlockStore volume; any other bound volume is not tracked.
            Some(pv) => index.volume(pv).and_then(|pv| match &pv.spec.csi {
                Some(csi) => Some(csi.driver.clone()),
                None => pv.spec.aws_elastic_block_store.is_some().then(|| "ebs.csi.aws.com".to_owned()),
            }),
            // `driverFromSC`: the class's provisioner, in-tree names translated to CSI drivers.
            None => pvc
                .spec
                .storage_class_name
                .as_deref()
                .filter(|n| !n.is_empty())
                .and_then(|n| index.class(n))
                .map(|sc| csi_name(&sc.provisioner).to_owned()),
        };
        if let Some(driver) = driver.filter(|d| !d.is_empty()) {
            let id = format!("{}/{}", pvc.metadata.namespace(), pvc.metadata.name);
            out.entry(driver).or_default().insert(id);
        }
    }
    out
}

/// k8s.io/csi-translation-lib `GetCSINameFromInTreeName`: the CSI driver of an in-tree plugin.
fn csi_name(provisioner: &str) -> &str {
    match provisioner {
        "kubernetes.io/aws-ebs" => "ebs.csi.aws.com",
        "kubernetes.io/gce-pd" => "pd.csi.storage.gke.io",
        "kubernetes.io/azure-disk" => "disk.csi.azure.com",
        "kubernetes.io/azure-file" => "file.csi.azure.com",
        "kubernetes.io/cinder" => "cinder.csi.openstack.org",
        "kubernetes.io/vsphere-volume" => "csi.vsphere.vmware.com",
        "kubernetes.io/portworx-volume" => "pxd.portworx.com",
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{pod_volumes, VolumeUsage};
    use crate::engine::scheduling::volume_topology::VolumeIndex;
    use crate::snapshot::{CsiNode, Pod, Snapshot};

    fn snapshot() -> Snapshot {
        let mut s = Snapshot::default();
        for (name, class) in [("a", "gp3"), ("b", "gp3"), ("c", "intree")] {
            s.pvcs.push(
                serde_json::from_value(json!({"metadata": {"name": name, "namespace": "ns"},
                    "spec": {"storageClassName": class}}))
                .expect("pvc"),
            );
        }
        s.storage_classes.push(
            serde_json::from_value(json!({"metadata": {"name": "gp3"}, "provisioner": "ebs.csi.aws.com"})).expect("sc"),
        );
        s.storage_classes.push(
            serde_json::from_value(json!({"metadata": {"name": "intree"}, "provisioner": "kubernetes.io/aws-ebs"}))
                .expect("sc"),
        );
        s
    }

    fn pod(claims: &[&str]) -> Pod {
        let volumes: Vec<_> =
            claims.iter().map(|c| json!({"name": c, "persistentVolumeClaim": {"claimName": c}})).collect();
        serde_json::from_value(json!({"metadata": {"name": "p", "namespace": "ns"}, "spec": {"volumes": volumes}}))
            .expect("pod")
    }

    #[test]
    fn a_bound_in_tree_ebs_volume_counts_against_the_ebs_driver() {
        // volumeusage.go driverFromVolume: AWSElasticBlockStore -> ebs.csi.aws.com; a bound
        // volume of another kind (here hostPath) is not tracked.
        let mut s = snapshot();
        for (claim, pv, source) in [("d", "ebs", "awsElasticBlockStore"), ("e", "host", "hostPath")] {
            s.pvcs.push(
                serde_json::from_value(json!({"metadata": {"name": claim, "namespace": "ns"},
                    "spec": {"volumeName": pv}}))
                .expect("pvc"),
            );
            s.pvs.push(
                serde_json::from_value(json!({"metadata": {"name": pv}, "spec": {source: {"volumeID": "vol-1"}}}))
                    .expect("pv"),
            );
        }
        let index = VolumeIndex::new(&s);
        let volumes = pod_volumes(&pod(&["d", "e"]), &index);
        assert_eq!(volumes.len(), 1, "{volumes:?}");
        assert_eq!(volumes["ebs.csi.aws.com"].len(), 1, "{volumes:?}");
    }

    #[test]
    fn in_tree_provisioners_count_against_their_csi_driver() {
        // volumeusage.go driverFromSC translates kubernetes.io/aws-ebs to ebs.csi.aws.com.
        let s = snapshot();
        let index = VolumeIndex::new(&s);
        let volumes = pod_volumes(&pod(&["a", "c", "missing"]), &index);
        assert_eq!(volumes.len(), 1);
        assert_eq!(volumes["ebs.csi.aws.com"].len(), 2, "{volumes:?}");
    }

    #[test]
    fn a_node_at_its_attach_limit_refuses_one_more_claim_but_not_one_it_holds() {
        // volumeusage.go ExceedsLimits: the union of the node's and the pod's claims over the limit.
        let s = snapshot();
        let index = VolumeIndex::new(&s);
        let csi: CsiNode = serde_json::from_value(json!({"metadata": {"name": "n"},
            "spec": {"drivers": [{"name": "ebs.csi.aws.com", "allocatable": {"count": 1}}]}}))
        .expect("csinode");
        let holder = pod(&["a"]);
        let usage = VolumeUsage::new(Some(&csi), [&holder].into_iter(), &index).expect("limited");
        let err = usage.exceeds_limits(None, &pod_volumes(&pod(&["b"]), &index)).expect("over");
        assert!(err.starts_with("checking volume usage, would exceed volume limit"), "{err}");
        assert!(usage.exceeds_limits(None, &pod_volumes(&pod(&["a"]), &index)).is_none());
        assert!(VolumeUsage::new(None, [&holder].into_iter(), &index).is_none());
    }
}
