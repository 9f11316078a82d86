//! Core Kubernetes kinds, lean: only the fields the replay reads, in the API's own shape so that
//! a snapshot written back is still a valid `kubectl get -o yaml` document.

use std::collections::BTreeMap;

use jiff::Timestamp;
use k8s_openapi::api::core::v1::{Affinity, Toleration, TopologySpreadConstraint};
use serde::{Deserialize, Serialize};

use super::meta::{exact, Condition, ObjectMeta, StringMap, Taint};
use crate::quantity::Quantity;

/// `cpu`, `memory`, `pods`, extended resources … in exact milli-units.
pub type Resources = BTreeMap<String, Quantity>;

/// A `v1 Node`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Node {
    pub metadata: ObjectMeta,
    pub spec: NodeSpec,
    pub status: NodeStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct NodeSpec {
    #[serde(rename = "providerID", skip_serializing_if = "Option::is_none")]
    pub provider_id: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact")]
    pub taints: Vec<Taint>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unschedulable: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct NodeStatus {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub capacity: Resources,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub allocatable: Resources,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact")]
    pub conditions: Vec<Condition>,
}

/// A `v1 Pod`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Pod {
    pub metadata: ObjectMeta,
    pub spec: PodSpec,
    pub status: PodStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PodSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_name: Option<String>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub node_selector: StringMap,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub affinity: Option<Affinity>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact")]
    pub tolerations: Vec<Toleration>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact")]
    pub topology_spread_constraints: Vec<TopologySpreadConstraint>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority_class_name: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact")]
    pub containers: Vec<Container>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact")]
    pub init_containers: Vec<Container>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub overhead: Resources,
    /// Pod-level `spec.resources` (the PodLevelResources feature): from Karpenter v1.8.0 its
    /// cpu, memory and hugepages requests stand for the containers' sum.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<Box<PodResources>>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact")]
    pub volumes: Vec<Volume>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact")]
    pub resource_claims: Vec<serde_json::Value>,
    /// How long the kubelet waits for the pod to stop before killing it (the forecast's drain
    /// time); Kubernetes defaults it to 30.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub termination_grace_period_seconds: Option<i64>,
}

/// One container: its requests and host ports (env only for the Karpenter controller).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Container {
    pub name: String,
    pub resources: ContainerResources,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact")]
    pub ports: Vec<ContainerPort>,
    /// `Always` on an init container makes it a sidecar that keeps running.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restart_policy: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact")]
    pub env: Vec<EnvVar>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ContainerResources {
    #[serde(skip_serializing_if = "ResourceList::is_empty")]
    pub requests: ResourceList,
    #[serde(skip_serializing_if = "ResourceList::is_empty")]
    pub limits: ResourceList,
    /// The pod's `resourceClaims` this container uses (Dynamic Resource Allocation): Karpenter
    /// v1.7.0 to v1.13.x tell a DRA pod by these alone (`HasDRARequirements`).
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact")]
    pub claims: Vec<ContainerClaim>,
}

/// A pod's own `spec.resources`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PodResources {
    #[serde(skip_serializing_if = "ResourceList::is_empty")]
    pub requests: ResourceList,
    #[serde(skip_serializing_if = "ResourceList::is_empty")]
    pub limits: ResourceList,
}

/// One entry of a container's `resources.claims`: the name of a pod `resourceClaims` entry and,
/// optionally, one request in it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ContainerClaim {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request: Option<String>,
}

/// A container's resource list, as compact as it can be: one or two entries sorted by name
/// in a `Vec` sized exactly, where a `BTreeMap` takes a 464-byte node for any number of them.
/// There are two per container, and containers are most of a large snapshot.
///
/// It reads and writes as a map, through [`Resources`], so documents and error paths
/// (`resources.requests.cpu`) are the same as with a map.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(from = "Resources", into = "Resources")]
pub struct ResourceList(Box<[(String, Quantity)]>);

impl ResourceList {
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn get(&self, name: &str) -> Option<&Quantity> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, q)| q)
    }

    /// Entries by name.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &Quantity)> {
        self.0.iter().map(|(n, q)| (n, q))
    }

    /// Sets one entry (a test and what-if convenience; lists are small).
    pub fn insert(&mut self, name: String, quantity: Quantity) {
        let mut map = Resources::from(std::mem::take(self));
        map.insert(name, quantity);
        *self = map.into();
    }
}

impl From<Resources> for ResourceList {
    fn from(map: Resources) -> Self {
        ResourceList(map.into_iter().collect())
    }
}

impl From<ResourceList> for Resources {
    fn from(list: ResourceList) -> Self {
        list.0.into_vec().into_iter().collect()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ContainerPort {
    pub container_port: i32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_port: Option<i32>,
    #[serde(rename = "hostIP", skip_serializing_if = "Option::is_none")]
    pub host_ip: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct EnvVar {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
}

/// A pod volume; only claims matter to the simulation (zones of bound volumes, attach limits).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Volume {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub persistent_volume_claim: Option<ClaimRef>,
    /// A generic ephemeral volume: its claim is `<pod>-<volume>`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ephemeral: Option<EphemeralVolume>,
}

/// `v1 EphemeralVolumeSource`: only the claim template's class matters.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct EphemeralVolume {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume_claim_template: Option<ClaimTemplate>,
}

/// `v1 PersistentVolumeClaimTemplate`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ClaimTemplate {
    pub spec: super::storage::PvcSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ClaimRef {
    pub claim_name: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PodStatus {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty", deserialize_with = "exact")]
    pub conditions: Vec<Condition>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "super::time::k8s_time")]
    pub start_time: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nominated_node_name: Option<String>,
    /// The containers' resources as the kubelet holds them (in-place resize). Only the entries
    /// that can size the pod above its spec are kept ([`Pod::keep_resizing_statuses`]), boxed:
    /// a pod almost never has one, and pods are most of a snapshot's memory.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub container_statuses: Option<Box<Vec<ContainerStatus>>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub init_container_statuses: Option<Box<Vec<ContainerStatus>>>,
}

impl PodStatus {
    /// Whether a container status is kept (the pod was resized in place).
    pub fn has_container_statuses(&self) -> bool {
        self.container_statuses.is_some() || self.init_container_statuses.is_some()
    }
}

/// What one `status.containerStatuses` (or `initContainerStatuses`) entry says about the
/// container's size: the resources the kubelet allocated and the ones it actuated.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ContainerStatus {
    pub name: String,
    #[serde(skip_serializing_if = "ResourceList::is_empty")]
    pub allocated_resources: ResourceList,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<ActuatedResources>,
}

/// `containerStatuses[].resources`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct ActuatedResources {
    #[serde(skip_serializing_if = "ResourceList::is_empty")]
    pub requests: ResourceList,
}

impl Container {
    /// Whether this init container is a sidecar (`restartPolicy: Always`): it keeps running
    /// beside the containers, so it counts with them.
    pub fn is_sidecar(&self) -> bool {
        self.restart_policy.as_deref() == Some("Always")
    }
}

impl Pod {
    /// The status entry of the container named `name` (init containers' entries last, as
    /// component-helpers' `AggregateContainerRequests` indexes them).
    pub fn container_status(&self, name: &str) -> Option<&ContainerStatus> {
        let (init, main) = (self.status.init_container_statuses.as_deref(), self.status.container_statuses.as_deref());
        init.into_iter().chain(main).flatten().find(|c| c.name == name)
    }

    /// Whether an in-place resize of this pod was found infeasible (condition
    /// `PodResizePending` with reason `Infeasible`): its spec then does not size it.
    pub fn resize_infeasible(&self) -> bool {
        let pending = self.status.conditions.iter().find(|c| c.type_ == "PodResizePending");
        pending.is_some_and(|c| c.reason.as_deref() == Some("Infeasible"))
    }

    /// Drops the container statuses that cannot change the pod's size: those without
    /// `resources` (component-helpers v0.35.0 `AggregateContainerRequests` reads none then), of
    /// a plain init container (only sidecars' are read), or asking for no more than the spec
    /// in any resource (the larger of the two counts), unless the resize is infeasible. A live
    /// cluster reports every running container's; most repeat the spec.
    pub fn keep_resizing_statuses(&mut self) {
        if !self.status.has_container_statuses() {
            return;
        }
        let infeasible = self.resize_infeasible();
        let spec = &self.spec;
        let sizes = |status: &ContainerStatus, containers: &[Container], sidecars_only: bool| {
            let Some(actuated) = &status.resources else { return false };
            let Some(c) = containers.iter().find(|c| c.name == status.name) else { return false };
            if sidecars_only && !c.is_sidecar() {
                return false;
            }
            let spec_of = |k: &str| c.resources.requests.get(k).or_else(|| c.resources.limits.get(k)).copied();
            infeasible
                || actuated
                    .requests
                    .iter()
                    .chain(status.allocated_resources.iter())
                    .any(|(k, q)| spec_of(k).is_none_or(|s| *q > s))
        };
        let kept = |list: Option<Box<Vec<ContainerStatus>>>, containers: &[Container], sidecars_only: bool| {
            let kept: Vec<ContainerStatus> =
                list.into_iter().flat_map(|l| *l).filter(|s| sizes(s, containers, sidecars_only)).collect();
            (!kept.is_empty()).then(|| Box::new(kept))
        };
        self.status.container_statuses = kept(self.status.container_statuses.take(), &spec.containers, false);
        self.status.init_container_statuses =
            kept(self.status.init_container_statuses.take(), &spec.init_containers, true);
    }
}

/// A `policy/v1 PodDisruptionBudget`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PodDisruptionBudget {
    pub metadata: ObjectMeta,
    pub spec: PdbSpec,
    pub status: PdbStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PdbSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_available: Option<k8s_openapi::apimachinery::pkg::util::intstr::IntOrString>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_unavailable: Option<k8s_openapi::apimachinery::pkg::util::intstr::IntOrString>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unhealthy_pod_eviction_policy: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct PdbStatus {
    pub disruptions_allowed: i32,
    pub current_healthy: i32,
    pub desired_healthy: i32,
    pub expected_pods: i32,
}

/// A `v1 Event` about a Node, NodeClaim, NodePool or Pod.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Event {
    pub metadata: ObjectMeta,
    pub involved_object: InvolvedObject,
    pub reason: String,
    pub message: String,
    #[serde(rename = "type", skip_serializing_if = "String::is_empty")]
    pub type_: String,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "super::time::k8s_time")]
    pub last_timestamp: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "super::time::k8s_time")]
    pub first_timestamp: Option<Timestamp>,
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "super::time::k8s_time")]
    pub event_time: Option<Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<i32>,
    /// Who wrote it: `karpenter` for Karpenter's recorder (client-go `tools/record`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<EventSource>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reporting_component: String,
}

/// A core/v1 Event's `source`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct EventSource {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub component: String,
}

impl Event {
    /// The latest time the event was seen.
    pub fn seen_at(&self) -> Option<Timestamp> {
        self.last_timestamp.or(self.event_time).or(self.first_timestamp).or(self.metadata.creation_timestamp)
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct InvolvedObject {
    pub kind: String,
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::ResourceList;

    #[test]
    fn resource_lists_read_and_write_as_sorted_maps() {
        let list: ResourceList = serde_json::from_str(r#"{"memory": "1Gi", "cpu": "500m"}"#).expect("a list");
        let names: Vec<&str> = list.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["cpu", "memory"]);
        assert_eq!(list.get("cpu").map(ToString::to_string).as_deref(), Some("500m"));
        assert_eq!(list.get("pods"), None);
        assert_eq!(serde_json::to_string(&list).expect("json"), r#"{"cpu":"500m","memory":"1Gi"}"#);
        let mut more = list.clone();
        more.insert("cpu".into(), "2".parse().expect("quantity"));
        assert_eq!(more.get("cpu").map(ToString::to_string).as_deref(), Some("2"));
        assert!(ResourceList::default().is_empty() && !list.is_empty());
    }
}
