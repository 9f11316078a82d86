//! Capacity buffers: SIG Autoscaling's `autoscaling.x-k8s.io/v1beta1 CapacityBuffer` and the
//! `v1 PodTemplate`s they name. With the `CapacityBuffer` gate on (Karpenter v1.14.0+), every
//! scheduling pass adds a ready buffer's virtual pods to its pending pods
//! (`engine/virtual_pods.rs`).
//!
//! Only the fields Karpenter's virtual-pod path reads are kept (kubernetes-sigs/karpenter
//! v1.14.1 `pkg/state/virtualpods/utilities.go` `isBufferReadyForProvisioning`,
//! `BuildVirtualPods`): the spec's template reference and the status the buffer controller
//! writes (`status.replicas`, `ReadyForProvisioning`). The spec's `replicas`, `percentage` and
//! `limits` only feed that status, so they are kept for people, not read.

use serde::{Deserialize, Serialize};

use super::meta::{Condition, ObjectMeta};
use super::workloads::PodTemplate;
use super::Resources;

/// An `autoscaling.x-k8s.io/v1beta1 CapacityBuffer`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct CapacityBuffer {
    pub metadata: ObjectMeta,
    pub spec: BufferSpec,
    pub status: BufferStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct BufferSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_template_ref: Option<LocalRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scalable_ref: Option<ScalableRef>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub percentage: Option<i32>,
    #[serde(skip_serializing_if = "Resources::is_empty")]
    pub limits: Resources,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisioning_strategy: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct BufferStatus {
    /// How many virtual pods the buffer stands for (written by the buffer controller).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}

/// A reference by name to an object in the buffer's namespace.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct LocalRef {
    pub name: String,
}

/// `scalableRef`: a Deployment, StatefulSet or ReplicaSet (`apiGroup` empty means `apps`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ScalableRef {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub api_group: String,
    pub kind: String,
    pub name: String,
}

/// A `v1 PodTemplate` (the object; a workload's template is [`PodTemplate`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PodTemplateObject {
    pub metadata: ObjectMeta,
    pub template: PodTemplate,
}
