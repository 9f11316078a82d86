//! Object metadata and the small shared shapes (conditions, taints, owners) every kind uses.

use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::de::{self, MapAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize};

/// Labels or annotations. Values written as bare YAML numbers or booleans are read as strings.
pub type StringMap = BTreeMap<String, String>;

/// The part of `metadata` the replay reads.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ObjectMeta {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    #[serde(skip_serializing_if = "BTreeMap::is_empty", deserialize_with = "lenient_map")]
    pub labels: StringMap,
    #[serde(skip_serializing_if = "BTreeMap::is_empty", deserialize_with = "lenient_map")]
    pub annotations: StringMap,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "super::time::k8s_time")]
    pub creation_timestamp: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "super::time::k8s_time")]
    pub deletion_timestamp: Option<Timestamp>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact")]
    pub owner_references: Vec<OwnerReference>,
}

impl ObjectMeta {
    /// `namespace/name`, or just `name` for cluster-scoped objects.
    pub fn key(&self) -> String {
        match &self.namespace {
            Some(ns) => format!("{ns}/{}", self.name),
            None => self.name.clone(),
        }
    }

    /// The namespace, `default` when unset (as the API server defaults it).
    pub fn namespace(&self) -> &str {
        self.namespace.as_deref().unwrap_or("default")
    }

    /// The owner marked `controller: true`, else the first owner.
    pub fn controller(&self) -> Option<&OwnerReference> {
        self.owner_references.iter().find(|o| o.controller == Some(true)).or_else(|| self.owner_references.first())
    }
}

/// `metadata.ownerReferences[]`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct OwnerReference {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
}

/// A status condition (`Ready`, `Initialized`, `Drifted`, …).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Condition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "super::time::k8s_time")]
    pub last_transition_time: Option<Timestamp>,
}

/// Finds a condition by type.
pub fn condition<'a>(conditions: &'a [Condition], type_: &str) -> Option<&'a Condition> {
    conditions.iter().find(|c| c.type_ == type_)
}

/// Whether the condition of that type has status `True`.
pub fn is_true(conditions: &[Condition], type_: &str) -> bool {
    condition(conditions, type_).is_some_and(|c| c.status == "True")
}

/// A node taint (`spec.taints[]`), also used by NodePool templates and NodeClaims.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Taint {
    pub key: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    pub effect: String,
}

impl std::fmt::Display for Taint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.value {
            Some(v) if !v.is_empty() => write!(f, "{}={}:{}", self.key, v, self.effect),
            _ => write!(f, "{}:{}", self.key, self.effect),
        }
    }
}

/// Reads a list into an allocation of its own length: serde makes room for four on the first
/// element, and that slack in every pod's lists is a tenth of a large snapshot's memory.
pub(super) fn exact<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Vec<T>, D::Error> {
    let mut items = Vec::deserialize(deserializer)?;
    items.shrink_to_fit();
    Ok(items)
}

/// Reads a string map whose values may be bare scalars (`zone-id: 0123`, `spot: yes`, `n: 1`).
/// Entry by entry into the map: no map of `Value`s in between, nor its large allocation.
fn lenient_map<'de, D: Deserializer<'de>>(deserializer: D) -> Result<StringMap, D::Error> {
    deserializer.deserialize_option(LenientMap)
}

struct LenientMap;

impl<'de> Visitor<'de> for LenientMap {
    type Value = StringMap;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a map")
    }

    fn visit_none<E: de::Error>(self) -> Result<StringMap, E> {
        Ok(StringMap::new())
    }

    fn visit_unit<E: de::Error>(self) -> Result<StringMap, E> {
        Ok(StringMap::new())
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<StringMap, D::Error> {
        deserializer.deserialize_map(self)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StringMap, A::Error> {
        let mut out = StringMap::new();
        while let Some((key, value)) = map.next_entry::<String, serde_json::Value>()? {
            let text = match value {
                serde_json::Value::String(s) => s,
                serde_json::Value::Null => String::new(),
                other => other.to_string(),
            };
            out.insert(key, text);
        }
        Ok(out)
    }
}
