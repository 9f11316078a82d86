//! Volumes: where a pod's claims pin it (PV node affinity, StorageClass topology) and how many
//! volumes a node's CSI drivers may attach.

use k8s_openapi::api::core::v1::{TopologySelectorTerm, VolumeNodeAffinity};
use serde::{Deserialize, Serialize};

use super::meta::ObjectMeta;

/// A `v1 PersistentVolumeClaim`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PersistentVolumeClaim {
    pub metadata: ObjectMeta,
    pub spec: PvcSpec,
    #[serde(skip_serializing_if = "PvcStatus::is_empty")]
    pub status: PvcStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PvcStatus {
    /// `Pending`, `Bound` or `Lost` (bound to a PersistentVolume that no longer exists).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
}

impl PvcStatus {
    fn is_empty(&self) -> bool {
        self.phase.is_none()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PvcSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage_class_name: Option<String>,
}

/// A `v1 PersistentVolume`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PersistentVolume {
    pub metadata: ObjectMeta,
    pub spec: PvSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PvSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_affinity: Option<VolumeNodeAffinity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage_class_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub csi: Option<CsiSource>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_path: Option<serde_json::Value>,
    /// An in-tree EBS volume: counted against `ebs.csi.aws.com` (`driverFromVolume`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aws_elastic_block_store: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CsiSource {
    pub driver: String,
}

/// A `storage.k8s.io/v1 StorageClass`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct StorageClass {
    pub metadata: ObjectMeta,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub provisioner: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allowed_topologies: Vec<TopologySelectorTerm>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume_binding_mode: Option<String>,
}

/// A `storage.k8s.io/v1 CSINode`: per-driver attach limits of one node.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CsiNode {
    pub metadata: ObjectMeta,
    pub spec: CsiNodeSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CsiNodeSpec {
    pub drivers: Vec<CsiNodeDriver>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CsiNodeDriver {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allocatable: Option<CsiAllocatable>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CsiAllocatable {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<i32>,
}
