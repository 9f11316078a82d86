//! The cluster at one instant: plain data, parsed once, holding only what the replay reads.
//!
//! Owns the object model and its conversion from and to Kubernetes-shaped documents. Must not
//! talk to the network or the disk (that is `source/`) and must not decide anything (that is
//! `engine/`). Every collection is sorted by namespace and name, so the same cluster always
//! gives the same `Snapshot`, whatever order the objects arrived in.

mod buffers;
mod catalog;
pub mod controller;
mod core;
mod decode;
mod decode_error;
mod encode;
mod karpenter;
mod meta;
mod nesting;
mod nodeclass;
pub mod redact;
mod signals;
mod storage;
mod stream;
mod time;
mod validate;
mod workloads;
mod yaml_events;
mod yaml_options;
mod yaml_stream;

pub use buffers::{BufferSpec, BufferStatus, CapacityBuffer, LocalRef, PodTemplateObject, ScalableRef};
pub use catalog::{InstanceType, Offering, Setting, SnapshotInfo, UnreadKind};
pub use core::{
    ActuatedResources, ClaimRef, ClaimTemplate, Container, ContainerClaim, ContainerPort, ContainerResources,
    ContainerStatus, EnvVar, EphemeralVolume, Event, EventSource, InvolvedObject, Node, NodeSpec, NodeStatus, PdbSpec,
    PdbStatus, Pod, PodDisruptionBudget, PodResources, PodSpec, PodStatus, ResourceList, Resources, Volume,
};
pub use decode::{DecodeError, Document, ListDecoder};
pub use karpenter::{
    Budget, Disruption, NodeClaim, NodeClaimSpec, NodeClaimStatus, NodeClaimTemplate, NodeClaimTemplateSpec, NodePool,
    NodePoolSpec, NodePoolStatus, NodeSelectorRequirement, TemplateMetadata,
};
pub use meta::{condition, is_true, Condition, ObjectMeta, OwnerReference, StringMap, Taint};
pub use nesting::MAX_DEPTH;
pub use nodeclass::NodeClass;
pub use signals::{bound_events, is_karpenters, DisruptionMetrics, MetricSample, DISRUPTION_METRICS};
pub use storage::{
    CsiAllocatable, CsiNode, CsiNodeDriver, CsiNodeSpec, CsiSource, PersistentVolume, PersistentVolumeClaim, PvSpec,
    PvcSpec, PvcStatus, StorageClass,
};
pub use workloads::{HorizontalPodAutoscaler, HpaSpec, PodTemplate, ScaleTargetRef, Workload, WorkloadSpec};
pub use yaml_options::{yaml_options, REPLAY_FACTOR};

/// Our own documents' `apiVersion`.
pub const API_VERSION: &str = "kubectl-consolidation/v1alpha1";

/// Everything the replay reads, sorted by namespace and name within each kind.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Snapshot {
    pub info: SnapshotInfo,
    pub instance_types: Vec<InstanceType>,
    pub nodes: Vec<Node>,
    pub pods: Vec<Pod>,
    pub pdbs: Vec<PodDisruptionBudget>,
    pub daemon_sets: Vec<Workload>,
    pub replica_sets: Vec<Workload>,
    pub deployments: Vec<Workload>,
    pub stateful_sets: Vec<Workload>,
    pub hpas: Vec<HorizontalPodAutoscaler>,
    pub pvcs: Vec<PersistentVolumeClaim>,
    pub pvs: Vec<PersistentVolume>,
    pub storage_classes: Vec<StorageClass>,
    pub csi_nodes: Vec<CsiNode>,
    pub events: Vec<Event>,
    /// Karpenter's disruption metrics as scraped (`doctor`); `None` when not read.
    pub disruption_metrics: Option<DisruptionMetrics>,
    pub node_pools: Vec<NodePool>,
    pub node_claims: Vec<NodeClaim>,
    /// `karpenter.k8s.aws/v1 EC2NodeClass`es.
    pub node_classes: Vec<NodeClass>,
    /// `autoscaling.x-k8s.io/v1beta1 CapacityBuffer`s.
    pub capacity_buffers: Vec<CapacityBuffer>,
    /// `v1 PodTemplate`s (what a buffer's `podTemplateRef` names).
    pub pod_templates: Vec<PodTemplateObject>,
    /// The virtual pods of the ready capacity buffers when the version and the `CapacityBuffer`
    /// gate make Karpenter simulate them (`engine/virtual_pods.rs`, built by `prepare`): every
    /// scheduling simulation's pending pods end with them. Derived, never written out.
    pub virtual_pods: Vec<Pod>,
}

impl Snapshot {
    /// A copy with room for `more_pods` pods: a what-if that adds pods to a copy made by `clone`
    /// (whose vector is full) would move every pod to a new vector on its first push.
    pub(crate) fn clone_with_room(&self, more_pods: usize) -> Snapshot {
        let mut pods = Vec::with_capacity(self.pods.len() + more_pods);
        pods.extend_from_slice(&self.pods);
        Snapshot {
            info: self.info.clone(),
            instance_types: self.instance_types.clone(),
            nodes: self.nodes.clone(),
            pods,
            pdbs: self.pdbs.clone(),
            daemon_sets: self.daemon_sets.clone(),
            replica_sets: self.replica_sets.clone(),
            deployments: self.deployments.clone(),
            stateful_sets: self.stateful_sets.clone(),
            hpas: self.hpas.clone(),
            pvcs: self.pvcs.clone(),
            pvs: self.pvs.clone(),
            storage_classes: self.storage_classes.clone(),
            csi_nodes: self.csi_nodes.clone(),
            events: self.events.clone(),
            disruption_metrics: self.disruption_metrics.clone(),
            node_pools: self.node_pools.clone(),
            node_claims: self.node_claims.clone(),
            node_classes: self.node_classes.clone(),
            capacity_buffers: self.capacity_buffers.clone(),
            pod_templates: self.pod_templates.clone(),
            virtual_pods: self.virtual_pods.clone(),
        }
    }

    /// Builds a snapshot from decoded documents (see [`Document`]).
    pub fn from_documents(documents: Vec<serde_json::Value>) -> Result<Snapshot, DecodeError> {
        decode::decode(documents)
    }

    /// Builds a snapshot from lists decoded as they arrived (live mode), in the order given.
    pub fn from_lists(lists: Vec<ListDecoder>) -> Result<Snapshot, DecodeError> {
        ListDecoder::merge(lists)
    }

    /// Builds a snapshot from JSON text (one object, a List, an array or a stream of them).
    pub fn from_json(text: &str) -> Result<Snapshot, DecodeError> {
        decode::decode_json(text)
    }

    /// Builds a snapshot from JSON as it is read, without holding the text (what
    /// [`Snapshot::from_json`] reads). `None` when the input has an error, or a shape only
    /// the text decoder reads: decode the text then, for an error that points into it.
    pub fn from_json_reader(reader: impl std::io::Read) -> Option<Snapshot> {
        stream::decode_reader(reader)
    }

    /// Builds a snapshot from a YAML stream as it is parsed with `options`, without holding
    /// its documents as values. `None` when the stream has a syntax error, or a shape only the
    /// whole-stream decoder reads: parse it with the same options and decode the documents
    /// ([`Snapshot::from_documents`]) then. Otherwise the answer that path gives, the snapshot
    /// or its first error.
    pub fn from_yaml(text: &str, options: serde_saphyr::Options) -> Option<Result<Snapshot, DecodeError>> {
        // The parser's events read here first (two thirds of serde-saphyr's time is its own
        // layer); any shape that reader leaves, serde-saphyr's streaming path decides.
        if let Some(answer) = yaml_events::decode_text(text, &options) {
            #[cfg(debug_assertions)]
            {
                let slow = yaml_stream::decode_text(text, options);
                assert_eq!(slow.as_ref(), Some(&answer), "the YAML event reader and serde-saphyr disagree on:\n{text}");
            }
            return Some(answer);
        }
        yaml_stream::decode_text(text, options)
    }

    /// The snapshot as one `v1 List` document that [`Snapshot::from_documents`] reads back.
    pub fn to_document(&self) -> serde_json::Value {
        encode::encode(self)
    }

    /// The snapshot as the text `snapshot` writes: pretty JSON (with a final newline) or YAML.
    pub fn to_text(&self, json: bool) -> String {
        let document = self.to_document();
        if json {
            let mut text = serde_json::to_string_pretty(&document).expect("snapshots serialise");
            text.push('\n');
            text
        } else {
            serde_saphyr::to_string(&document).expect("snapshots serialise")
        }
    }

    /// Writes the text `snapshot` writes ([`Snapshot::to_text`]'s bytes), redacted with
    /// `redact` ([`redact::redact`]'s snapshot), object by object as each is encoded: neither
    /// the document tree, nor the text, nor a redacted copy of the cluster is held.
    pub fn write_text(&self, json: bool, redact: bool, out: impl std::io::Write) -> std::io::Result<()> {
        let redaction = redact.then(|| redact::objects::Redaction::new(self, encode::numeric_keys(self)));
        encode::write(self, redaction.as_ref(), json, out)
    }

    /// Whether a feature gate is on, with Karpenter's defaults for gates the snapshot omits.
    pub fn feature_gate(&self, name: &str) -> bool {
        // A gate the replayed version lacks is off whatever FEATURE_GATES says (ParseFeatureGates
        // ignores unknown names); one it has takes its value, else that version's default.
        match crate::rules::options::gate_default(&self.info.rules, name) {
            None => false,
            Some(default) => self.info.feature_gates.get(name).copied().unwrap_or(default),
        }
    }

    /// Adds instance types and their prices (from `--prices`), replacing same-named ones.
    pub fn merge_instance_types(&mut self, extra: Vec<InstanceType>) {
        for it in extra {
            // A NodeClass variant of a type is its own entry (`nodeClass`), not a figure of it.
            match self.instance_types.iter_mut().find(|i| i.name == it.name && i.node_class == it.node_class) {
                Some(existing) => merge_instance_type(existing, it),
                None => self.instance_types.push(it),
            }
        }
        self.instance_types.sort_by(|a, b| a.name.cmp(&b.name).then_with(|| a.node_class.cmp(&b.node_class)));
    }
}

/// Prices from a metrics scrape carry no capacity: keep what the snapshot knew.
fn merge_instance_type(existing: &mut InstanceType, extra: InstanceType) {
    if !extra.capacity.is_empty() {
        existing.capacity = extra.capacity;
    }
    if !extra.overhead.is_empty() {
        existing.overhead = extra.overhead;
    }
    existing.labels.extend(extra.labels);
    existing.sources.extend(extra.sources);
    for offering in extra.offerings {
        match existing
            .offerings
            .iter_mut()
            .find(|o| o.zone == offering.zone && o.capacity_type == offering.capacity_type)
        {
            Some(o) => *o = offering,
            None => existing.offerings.push(offering),
        }
    }
}
