//! Pod owners: DaemonSets (their pods' overhead on every node), ReplicaSets, Deployments,
//! StatefulSets and HorizontalPodAutoscalers (replica counts for `pdb-audit`).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde::{Deserialize, Serialize};

use super::core::PodSpec;
use super::meta::ObjectMeta;

/// An `apps/v1` workload: DaemonSet, ReplicaSet, Deployment or StatefulSet.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Workload {
    pub metadata: ObjectMeta,
    pub spec: WorkloadSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct WorkloadSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    pub template: PodTemplate,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PodTemplate {
    pub metadata: ObjectMeta,
    pub spec: PodSpec,
}

/// An `autoscaling/v2 HorizontalPodAutoscaler`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct HorizontalPodAutoscaler {
    pub metadata: ObjectMeta,
    pub spec: HpaSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct HpaSpec {
    pub scale_target_ref: ScaleTargetRef,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_replicas: Option<i32>,
    pub max_replicas: i32,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ScaleTargetRef {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub api_version: String,
    pub kind: String,
    pub name: String,
}
