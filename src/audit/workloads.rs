//! Pods → the workloads that own them, with the replica counts that matter to a budget.
//!
//! A pod's controller is followed the way the disruption controller's finders do
//! (kubernetes `pkg/controller/disruption/disruption.go` `finders`): a ReplicaSet owned by a
//! Deployment counts as the Deployment; StatefulSets and standalone ReplicaSets as themselves;
//! any other controller (Job, DaemonSet, Argo Rollout…) by kind and name; a pod without one is
//! its own workload. Desired replicas come from the controller's `spec.replicas` when the
//! snapshot holds it, else from its pods. A HorizontalPodAutoscaler targeting the workload adds
//! the range it may scale through.

use std::collections::BTreeMap;
use std::fmt;

use foldhash::HashMap;

use crate::snapshot::{HorizontalPodAutoscaler, Pod, Snapshot, StringMap, Workload as AppsWorkload};

/// `Kind/namespace/name`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct WorkloadId {
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

impl fmt::Display for WorkloadId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.kind, self.namespace, self.name)
    }
}

impl WorkloadId {
    /// A pod with no controller: nothing recreates it.
    pub(super) fn is_bare_pod(&self) -> bool {
        self.kind == "Pod"
    }

    /// One pod per node by design: budgets, crowding and `NoPDB` don't apply the same way.
    pub(super) fn is_daemon_set(&self) -> bool {
        self.kind == "DaemonSet"
    }

    /// Run-to-completion pods: a missing PDB is normal.
    pub(super) fn is_job(&self) -> bool {
        self.kind == "Job"
    }
}

/// The HorizontalPodAutoscaler scaling a workload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Hpa {
    pub name: String,
    pub min: i32,
    pub max: i32,
}

/// A workload and its pods in the snapshot.
#[derive(Debug, Clone)]
pub(super) struct Workload<'a> {
    pub id: WorkloadId,
    /// Desired replicas now.
    pub replicas: i32,
    /// The controller object was in the snapshot (else replicas were counted from pods).
    pub controller_known: bool,
    pub hpa: Option<Hpa>,
    /// Its pods (not terminal), in snapshot order.
    pub pods: Vec<&'a Pod>,
    /// Labels that select its pods (the controller's `matchLabels`, else the pods' stable labels).
    pub selector: StringMap,
}

impl Workload<'_> {
    /// The fewest replicas it may run with (the HPA's `minReplicas`, when lower).
    pub(super) fn low(&self) -> i32 {
        self.hpa.as_ref().map_or(self.replicas, |h| h.min.min(self.replicas))
    }

    /// The most replicas it may run with (the HPA's `maxReplicas`, when higher).
    pub(super) fn high(&self) -> i32 {
        self.hpa.as_ref().map_or(self.replicas, |h| h.max.max(self.replicas))
    }
}

/// Labels controllers add per pod or per revision: never part of a workload's selector.
const VOLATILE_LABELS: [&str; 6] = [
    "pod-template-hash",
    "controller-revision-hash",
    "statefulset.kubernetes.io/pod-name",
    "apps.kubernetes.io/pod-index",
    "controller-uid",
    "batch.kubernetes.io/controller-uid",
];

/// The snapshot's controllers and HPAs by namespace and name, built once so that following a
/// pod to its workload is a lookup, not a pass over every ReplicaSet (150,000 pods × 12,000
/// ReplicaSets made `pdb-audit` quadratic). Each key keeps the first object in snapshot order:
/// what a front-to-back search would find.
pub(super) struct Controllers<'a> {
    replica_sets: HashMap<(&'a str, &'a str), &'a AppsWorkload>,
    deployments: HashMap<(&'a str, &'a str), &'a AppsWorkload>,
    stateful_sets: HashMap<(&'a str, &'a str), &'a AppsWorkload>,
    /// `(namespace, target kind, target name)` → the first HPA in snapshot order.
    hpas: HashMap<(&'a str, &'a str, &'a str), &'a HorizontalPodAutoscaler>,
}

impl<'a> Controllers<'a> {
    pub(super) fn new(snapshot: &'a Snapshot) -> Controllers<'a> {
        let by_name = |items: &'a [AppsWorkload]| {
            let mut map: HashMap<(&'a str, &'a str), &'a AppsWorkload> = HashMap::default();
            for w in items {
                map.entry((w.metadata.namespace(), w.metadata.name.as_str())).or_insert(w);
            }
            map
        };
        let mut hpas: HashMap<(&'a str, &'a str, &'a str), &'a HorizontalPodAutoscaler> = HashMap::default();
        for h in &snapshot.hpas {
            let target = &h.spec.scale_target_ref;
            hpas.entry((h.metadata.namespace(), target.kind.as_str(), target.name.as_str())).or_insert(h);
        }
        Controllers {
            replica_sets: by_name(&snapshot.replica_sets),
            deployments: by_name(&snapshot.deployments),
            stateful_sets: by_name(&snapshot.stateful_sets),
            hpas,
        }
    }

    fn replica_set(&self, namespace: &str, name: &str) -> Option<&'a AppsWorkload> {
        self.replica_sets.get(&(namespace, name)).copied()
    }

    fn spec_of(&self, id: &WorkloadId) -> Option<&'a AppsWorkload> {
        let map = match id.kind.as_str() {
            "Deployment" => &self.deployments,
            "StatefulSet" => &self.stateful_sets,
            "ReplicaSet" => &self.replica_sets,
            _ => return None,
        };
        map.get(&(id.namespace.as_str(), id.name.as_str())).copied()
    }

    /// The HPA whose `scaleTargetRef` names the workload (the first in snapshot order if
    /// several do).
    fn hpa_for(&self, id: &WorkloadId) -> Option<Hpa> {
        self.hpas.get(&(id.namespace.as_str(), id.kind.as_str(), id.name.as_str())).map(|h| Hpa {
            name: h.metadata.key(),
            min: h.spec.min_replicas.unwrap_or(1),
            max: h.spec.max_replicas,
        })
    }
}

/// The workload a pod belongs to.
pub(super) fn owner_of(controllers: &Controllers<'_>, pod: &Pod) -> WorkloadId {
    let namespace = pod.metadata.namespace().to_owned();
    let id = |kind: &str, name: &str| WorkloadId {
        kind: kind.to_owned(),
        namespace: namespace.clone(),
        name: name.to_owned(),
    };
    let Some(owner) = pod.metadata.controller() else { return id("Pod", &pod.metadata.name) };
    if owner.kind != "ReplicaSet" {
        return id(&owner.kind, &owner.name);
    }
    if let Some(rs) = controllers.replica_set(&namespace, &owner.name) {
        return match rs.metadata.controller() {
            Some(parent) if parent.kind == "Deployment" => id("Deployment", &parent.name),
            _ => id("ReplicaSet", &owner.name),
        };
    }
    let hash = pod.metadata.labels.get("pod-template-hash");
    match hash.and_then(|h| owner.name.strip_suffix(h.as_str())).and_then(|n| n.strip_suffix('-')) {
        Some(deployment) if !deployment.is_empty() => id("Deployment", deployment),
        _ => id("ReplicaSet", &owner.name),
    }
}

/// Groups `pods` by workload (`owners[i]` is `pods[i]`'s) and resolves each workload's
/// replicas, HPA and selector.
pub(super) fn collect<'a>(
    controllers: &Controllers<'a>,
    pods: &[&'a Pod],
    owners: &[WorkloadId],
) -> BTreeMap<WorkloadId, Workload<'a>> {
    let mut grouped: BTreeMap<&WorkloadId, Vec<&'a Pod>> = BTreeMap::new();
    for (pod, owner) in pods.iter().zip(owners) {
        grouped.entry(owner).or_default().push(pod);
    }
    grouped
        .into_iter()
        .map(|(id, pods)| {
            let spec = controllers.spec_of(id);
            let counted = i32::try_from(pods.len()).unwrap_or(i32::MAX);
            let replicas = match (&spec, id.is_bare_pod()) {
                (_, true) => 1,
                (Some(w), false) => w.spec.replicas.unwrap_or(1),
                (None, false) => counted,
            };
            let selector = spec
                .and_then(|w| w.spec.selector.as_ref())
                .and_then(|s| s.match_labels.clone())
                .filter(|m| !m.is_empty())
                .unwrap_or_else(|| stable_labels(&pods));
            let hpa = controllers.hpa_for(id);
            let workload = Workload { id: id.clone(), replicas, controller_known: spec.is_some(), hpa, pods, selector };
            (id.clone(), workload)
        })
        .collect()
}

/// Labels every pod of the workload shares, minus the per-revision ones.
fn stable_labels(pods: &[&Pod]) -> StringMap {
    let Some(first) = pods.first() else { return StringMap::new() };
    first
        .metadata
        .labels
        .iter()
        .filter(|(k, _)| !VOLATILE_LABELS.contains(&k.as_str()) && !k.starts_with("batch.kubernetes.io/"))
        .filter(|(k, v)| pods.iter().all(|p| p.metadata.labels.get(*k) == Some(*v)))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}
