//! `karpenter.k8s.aws/v1 EC2NodeClass`: kept whole (spec and status as read), since the
//! catalogue reads only a few of its fields and a snapshot must round-trip it.

use serde::{Deserialize, Serialize};

use super::meta::ObjectMeta;

/// A provider NodeClass, e.g. `karpenter.k8s.aws/v1 EC2NodeClass`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct NodeClass {
    pub metadata: ObjectMeta,
    #[serde(skip_serializing_if = "serde_json::Value::is_null")]
    pub spec: serde_json::Value,
    #[serde(skip_serializing_if = "serde_json::Value::is_null")]
    pub status: serde_json::Value,
}
