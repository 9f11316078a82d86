//! `diff -f`: the objects a change would apply, and how applying them changes the snapshot.
//!
//! The files are read and decoded at the edge (`source/manifests.rs`, where a bad field gets
//! its file:line:col); what reaches here is typed objects. [`validate`] refuses what the API
//! server would refuse among the fields the replay reads; [`apply`] applies the objects to the
//! snapshot as `kubectl apply` would for the replay's purposes. Pure.
//!
//! | kind | applied as |
//! |---|---|
//! | NodePool, EC2NodeClass | added, or the spec replaced; the status the cluster wrote is kept (an apply never writes status) |
//! | PodDisruptionBudget | added or replaced; its status recounted from the pods it selects, as the disruption controller would |
//! | Deployment, StatefulSet, ReplicaSet | a new `replicas` scales the workload's pods; a template that changes what the replay reads rolls them |
//! | DaemonSet | added or replaced (its template is what new nodes' daemon pods copy) |
//! | Pod | a new pod joins pending; an existing one keeps its node and status, with the new labels, annotations and spec |
//!
//! Every other kind is named and ignored.

pub(crate) mod apply;
pub(crate) mod validate;

use crate::snapshot::{NodeClass, NodePool, Pod, PodDisruptionBudget, Workload};

/// One `-f` source's objects, in the order they were written.
#[derive(Debug, Clone, Default)]
pub(crate) struct Manifest {
    /// The file as the user named it (`pdbs/web.yaml`, `<stdin>`).
    pub file: String,
    pub objects: Vec<Object>,
    /// `Kind/namespace/name` of each object the replay does not read.
    pub ignored: Vec<String>,
}

/// An object the replay reads, typed as the snapshot types it. Workloads keep their whole pod
/// template (the snapshot's copy keeps only what the controller's settings need).
#[derive(Debug, Clone)]
pub(crate) enum Object {
    NodePool(Box<NodePool>),
    NodeClass(Box<NodeClass>),
    Pdb(Box<PodDisruptionBudget>),
    Workload { kind: WorkloadKind, workload: Box<Workload> },
    Pod(Box<Pod>),
}

/// The workload kinds a manifest may scale or roll.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WorkloadKind {
    Deployment,
    StatefulSet,
    ReplicaSet,
    DaemonSet,
}

impl WorkloadKind {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            WorkloadKind::Deployment => "Deployment",
            WorkloadKind::StatefulSet => "StatefulSet",
            WorkloadKind::ReplicaSet => "ReplicaSet",
            WorkloadKind::DaemonSet => "DaemonSet",
        }
    }

    pub(crate) fn of(kind: &str) -> Option<WorkloadKind> {
        Some(match kind {
            "Deployment" => WorkloadKind::Deployment,
            "StatefulSet" => WorkloadKind::StatefulSet,
            "ReplicaSet" => WorkloadKind::ReplicaSet,
            "DaemonSet" => WorkloadKind::DaemonSet,
            _ => return None,
        })
    }
}

impl Object {
    /// `Kind/namespace/name` (`Kind/name` when cluster-scoped), as changes are named.
    pub(crate) fn id(&self) -> String {
        let (kind, meta) = match self {
            Object::NodePool(o) => ("NodePool", &o.metadata),
            Object::NodeClass(o) => ("EC2NodeClass", &o.metadata),
            Object::Pdb(o) => ("PodDisruptionBudget", &o.metadata),
            Object::Workload { kind, workload } => (kind.as_str(), &workload.metadata),
            Object::Pod(o) => ("Pod", &o.metadata),
        };
        format!("{kind}/{}", meta.key())
    }
}
