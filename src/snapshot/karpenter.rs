//! `karpenter.sh/v1` NodePool and NodeClaim: only the fields the replay reads, tolerant of new
//! upstream fields. Policy strings stay raw so that a snapshot round-trips; the engine applies
//! the CRD defaults.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::core::Resources;
use super::meta::{Condition, ObjectMeta, StringMap, Taint};

/// A `karpenter.sh/v1 NodePool`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct NodePool {
    pub metadata: ObjectMeta,
    pub spec: NodePoolSpec,
    pub status: NodePoolStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct NodePoolSpec {
    pub template: NodeClaimTemplate,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub disruption: Option<Disruption>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub limits: Resources,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight: Option<i32>,
    /// Set on static NodePools (alpha `StaticCapacity`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct NodeClaimTemplate {
    pub metadata: TemplateMetadata,
    pub spec: NodeClaimTemplateSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct TemplateMetadata {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: StringMap,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: StringMap,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct NodeClaimTemplateSpec {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requirements: Vec<NodeSelectorRequirement>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub taints: Vec<Taint>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub startup_taints: Vec<Taint>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_class_ref: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expire_after: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub termination_grace_period: Option<String>,
}

/// `spec.disruption`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Disruption {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consolidation_policy: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consolidate_after: Option<String>,
    /// `None` when omitted: the CRD then defaults to `[{nodes: 10%}]`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budgets: Option<Vec<Budget>>,
}

/// One `spec.disruption.budgets[]` entry.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Budget {
    pub nodes: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasons: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration: Option<String>,
}

/// A requirement with Karpenter's `minValues`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct NodeSelectorRequirement {
    pub key: String,
    pub operator: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_values: Option<i32>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct NodePoolStatus {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}

/// A `karpenter.sh/v1 NodeClaim`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct NodeClaim {
    pub metadata: ObjectMeta,
    pub spec: NodeClaimSpec,
    pub status: NodeClaimStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct NodeClaimSpec {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub requirements: Vec<NodeSelectorRequirement>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub taints: Vec<Taint>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub startup_taints: Vec<Taint>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_class_ref: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub termination_grace_period: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expire_after: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct NodeClaimStatus {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_name: Option<String>,
    #[serde(rename = "providerID", skip_serializing_if = "Option::is_none")]
    pub provider_id: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub capacity: Resources,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub allocatable: Resources,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "super::time::k8s_time")]
    pub last_pod_event_time: Option<Timestamp>,
}
