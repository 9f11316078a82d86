//! Documents of our own: `SnapshotInfo` (the clock, the Karpenter version, feature gates, what
//! could not be read) and `InstanceTypes` (what the cloud provider offers, with prices).

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::{Deserialize, Serialize};

use super::core::Resources;
use super::meta::StringMap;

/// `kubectl-consolidation/v1alpha1 SnapshotInfo`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct SnapshotInfo {
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "super::time::k8s_time")]
    pub captured_at: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub karpenter_version: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub feature_gates: BTreeMap<String, bool>,
    /// Karpenter's settings the replay assumed (env names, and `version`), each with where it
    /// was read: the controller Deployment, a flag of ours, or this document.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub settings: BTreeMap<String, Setting>,
    /// Kinds that could not be read (e.g. RBAC): conclusions that depend on them are uncertain.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unread: Vec<UnreadKind>,
    /// What the instance-type catalogue estimated or could not find (`catalogue::complete`):
    /// conclusions that depend on it are uncertain.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub estimated: Vec<String>,
    /// Where prices came from (`metrics`, `file`, `snapshot`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price_source: Option<String>,
    /// The rules of the core version the replay follows (`prepare::resolve_settings`; the
    /// newest known version's until then). Never written: a snapshot records the version.
    #[serde(skip)]
    pub rules: crate::rules::RuleSet,
}

/// One Karpenter setting and where its value came from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Setting {
    pub value: String,
    pub source: String,
}

/// A kind the live source could not list, and why.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct UnreadKind {
    pub kind: String,
    pub reason: String,
}

/// One instance type of the cloud provider's catalogue.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct InstanceType {
    pub name: String,
    pub capacity: Resources,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub overhead: Resources,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: StringMap,
    pub offerings: Vec<Offering>,
    /// Where each figure came from: `cpu`, `memory`, `pods`, … (capacity), `overhead`,
    /// `labels` → a [`crate::catalogue::Source`] name. Empty for a document's own figures.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub sources: StringMap,
    /// The EC2NodeClass whose `spec.kubelet` shaped these figures, when it is not the
    /// default (pods and overhead differ per NodeClass); `None` for every other pool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_class: Option<String>,
}

/// Where and how an instance type can be bought, and for how much.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Offering {
    pub zone: String,
    pub capacity_type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price: Option<f64>,
    pub available: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reservation_id: Option<String>,
    /// Where the price and availability came from (see [`InstanceType::sources`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

impl Default for Offering {
    fn default() -> Self {
        Offering {
            zone: String::new(),
            capacity_type: String::new(),
            price: None,
            available: true,
            reservation_id: None,
            source: None,
        }
    }
}
