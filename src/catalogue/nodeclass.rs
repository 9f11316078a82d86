//! What of an EC2NodeClass (`karpenter.k8s.aws/v1`) shapes an instance type's figures: the AMI
//! family, `spec.kubelet` (maxPods, podsPerCore, kubeReserved, systemReserved, evictionHard),
//! the root volume of `spec.blockDeviceMappings`, EFA-only `spec.networkInterfaces`, and the
//! zones of `status.subnets`. Mirrors `pkg/providers/instancetype/types.go NewInstanceType`'s
//! inputs; CEL expressions (alpha gate `NodeClassCEL`) are not evaluated and read as unset.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::quantity::Quantity;
use crate::snapshot::{NodeClass, Resources, StringMap};

/// The AMI families whose feature flags differ (`pkg/providers/amifamily`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum AmiFamily {
    Al2,
    #[default]
    Al2023,
    Bottlerocket,
    Windows,
    Custom,
}

impl AmiFamily {
    /// From `spec.amiFamily` or the first `amiSelectorTerms[].alias` (`al2023@latest`).
    fn of(spec: &Value) -> AmiFamily {
        let alias = spec
            .get("amiSelectorTerms")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find_map(|t| t.get("alias").and_then(Value::as_str))
            .map(|a| a.split('@').next().unwrap_or(a).to_owned());
        let family = spec.get("amiFamily").and_then(Value::as_str).map(str::to_owned).or(alias);
        match family.as_deref().map(str::to_ascii_lowercase).as_deref() {
            Some("al2") => AmiFamily::Al2,
            Some("bottlerocket") => AmiFamily::Bottlerocket,
            Some(w) if w.starts_with("windows") => AmiFamily::Windows,
            Some("custom") => AmiFamily::Custom,
            // A NodeClass selecting AMIs by id or tags without a family is Custom upstream.
            None if spec.get("amiSelectorTerms").is_some_and(|t| t.as_array().is_some_and(|a| !a.is_empty())) => {
                AmiFamily::Custom
            }
            _ => AmiFamily::Al2023,
        }
    }
}

/// The NodeClass inputs of the capacity formulas.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NodeClassShape {
    pub ami_family: AmiFamily,
    pub max_pods: Option<i64>,
    pub pods_per_core: Option<i64>,
    pub kube_reserved: Resources,
    pub system_reserved: Resources,
    pub eviction_hard: StringMap,
    pub root_volume: Quantity,
    pub efa_only_interfaces: i64,
}

impl Default for NodeClassShape {
    fn default() -> Self {
        NodeClassShape {
            ami_family: AmiFamily::Al2023,
            max_pods: None,
            pods_per_core: None,
            kube_reserved: Resources::new(),
            system_reserved: Resources::new(),
            eviction_hard: StringMap::new(),
            root_volume: Quantity::from_units(20 << 30),
            efa_only_interfaces: 0,
        }
    }
}

impl NodeClassShape {
    /// Reads an EC2NodeClass; unreadable values keep the default (the API server validated them).
    pub(crate) fn of(node_class: &NodeClass) -> NodeClassShape {
        let spec = &node_class.spec;
        let kubelet = spec.get("kubelet").unwrap_or(&Value::Null);
        let ami_family = AmiFamily::of(spec);
        let resources = |key: &str| -> Resources {
            kubelet
                .get(key)
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.parse::<Quantity>().ok()?)))
                .collect()
        };
        let root_default = if ami_family == AmiFamily::Windows { 50 } else { 20 };
        let root_volume = spec
            .get("blockDeviceMappings")
            .and_then(Value::as_array)
            .and_then(|m| {
                let root = m.iter().find(|b| b.get("rootVolume").and_then(Value::as_bool) == Some(true));
                root.or(if ami_family == AmiFamily::Custom { m.last() } else { None })
            })
            .and_then(|b| b.pointer("/ebs/volumeSize"))
            .and_then(Value::as_str)
            .and_then(|s| s.parse::<Quantity>().ok())
            .unwrap_or(Quantity::from_units(root_default << 30));
        NodeClassShape {
            ami_family,
            max_pods: kubelet.get("maxPods").and_then(Value::as_i64),
            pods_per_core: kubelet.get("podsPerCore").and_then(Value::as_i64),
            kube_reserved: resources("kubeReserved"),
            system_reserved: resources("systemReserved"),
            eviction_hard: kubelet
                .get("evictionHard")
                .and_then(Value::as_object)
                .into_iter()
                .flatten()
                .filter_map(|(k, v)| Some((k.clone(), v.as_str()?.to_owned())))
                .collect(),
            root_volume,
            efa_only_interfaces: spec
                .get("networkInterfaces")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter(|n| {
                    n.get("networkCardIndex").and_then(Value::as_i64).unwrap_or(0) == 0
                        && n.get("interfaceType").and_then(Value::as_str) == Some("efa-only")
                })
                .count()
                .try_into()
                .unwrap_or(0),
        }
    }

    /// Whether the figures differ from the default NodeClass's (AL2023, no kubelet settings).
    pub(crate) fn is_default(&self) -> bool {
        *self == NodeClassShape::default()
    }
}

/// Zones the NodeClass's subnets are in (`status.subnets[].zone`).
pub(crate) fn zones(node_class: &NodeClass) -> BTreeSet<String> {
    node_class
        .status
        .get("subnets")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|s| s.get("zone").and_then(Value::as_str).map(str::to_owned))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{AmiFamily, NodeClassShape};
    use crate::quantity::Quantity;
    use crate::snapshot::NodeClass;

    fn class(spec: serde_json::Value) -> NodeClass {
        NodeClass { spec, ..NodeClass::default() }
    }

    #[test]
    fn kubelet_family_and_root_volume_are_read() {
        let shape = NodeClassShape::of(&class(serde_json::json!({
            "amiSelectorTerms": [{"alias": "bottlerocket@latest"}],
            "kubelet": {"maxPods": 110, "podsPerCore": 4, "kubeReserved": {"cpu": "200m"},
                        "evictionHard": {"memory.available": "5%"}},
            "blockDeviceMappings": [{"deviceName": "/dev/xvdb", "rootVolume": true, "ebs": {"volumeSize": "100Gi"}}]
        })));
        assert_eq!(shape.ami_family, AmiFamily::Bottlerocket);
        assert_eq!((shape.max_pods, shape.pods_per_core), (Some(110), Some(4)));
        assert_eq!(shape.kube_reserved.get("cpu"), Some(&Quantity::from_milli(200)));
        assert_eq!(shape.eviction_hard.get("memory.available").map(String::as_str), Some("5%"));
        assert_eq!(shape.root_volume, Quantity::from_units(100 << 30));
        assert!(!shape.is_default());
        assert!(
            NodeClassShape::of(&class(serde_json::json!({"amiSelectorTerms": [{"alias": "al2023@v1"}]}))).is_default()
        );
    }
}
