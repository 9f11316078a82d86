//! Redaction one object at a time, for `snapshot --redact` as it streams: the same two passes
//! as [`super::redact`], but neither holds a second copy of the cluster. The first pass
//! collects names object by object (each one cloned, walked and dropped); the second redacts
//! each object on its way out, in the order the redacted snapshot sorts to.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::collections::{HashMap, HashSet};

use jiff::Timestamp;
use serde::Serialize;

use super::{redact_info, rewrite_conditions, rewrite_text, Redactor};
use crate::snapshot::{
    CapacityBuffer, CsiNode, DisruptionMetrics, Event, HorizontalPodAutoscaler, InstanceType, Node, NodeClaim,
    NodeClass, NodePool, ObjectMeta, PersistentVolume, PersistentVolumeClaim, Pod, PodDisruptionBudget,
    PodTemplateObject, Snapshot, SnapshotInfo, StorageClass, Workload,
};

/// An object the snapshot lists, as redaction sees it.
pub(in crate::snapshot) trait Redactable: Clone + Serialize {
    /// Replaces its names and values; `kind` tells the four workload lists apart.
    fn redact(&mut self, r: &mut Redactor, kind: &str);
    /// Rewrites its free text (condition and event messages) with the names known.
    fn rewrite(&mut self, _known: &HashMap<String, String>) {}
    /// Where it sorts once redacted: what `decode::sort` orders its kind by.
    fn sort_key(&self, r: &mut Redactor, kind: &str) -> SortKey;
}

/// `decode::sort`'s key: (namespace, name) for most kinds, (last seen, name) for events.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(in crate::snapshot) struct SortKey(Option<Timestamp>, String, String);

/// The category of a kind's own names (what [`Redactor::meta`] is called with): the one
/// references use (`kind_category`), so an object and a reference to it redact alike.
fn category(kind: &str) -> &'static str {
    match kind {
        "CSINode" => "node",
        "Event" => "event",
        _ => super::kind_category(kind),
    }
}

/// The key `decode::sort` gives a redacted object with this metadata.
fn meta_key(r: &mut Redactor, kind: &str, meta: &ObjectMeta) -> SortKey {
    let namespace = match &meta.namespace {
        Some(ns) => r.name("ns", ns),
        None => meta.namespace().to_owned(),
    };
    SortKey(None, namespace, r.name(category(kind), &meta.name))
}

macro_rules! by_meta {
    ($($ty:ty => |$o:ident, $r:ident, $kind:ident| $redact:expr;)*) => {$(
        impl Redactable for $ty {
            fn redact(&mut self, $r: &mut Redactor, $kind: &str) {
                let $o = self;
                $redact;
            }
            fn sort_key(&self, r: &mut Redactor, kind: &str) -> SortKey {
                meta_key(r, kind, &self.metadata)
            }
        }
    )*};
}

by_meta! {
    PodDisruptionBudget => |o, r, _kind| r.pdb(o);
    Workload => |o, r, kind| r.workload(category(kind), o);
    HorizontalPodAutoscaler => |o, r, _kind| r.hpa(o);
    PersistentVolume => |o, r, _kind| r.pv(o);
    StorageClass => |o, r, _kind| r.storage_class(o);
    CsiNode => |o, r, _kind| r.meta("node", &mut o.metadata);
    NodeClass => |o, r, _kind| r.node_class(o);
    PodTemplateObject => |o, r, _kind| r.pod_template(o);
}

macro_rules! with_conditions {
    ($($ty:ty => $method:ident;)*) => {$(
        impl Redactable for $ty {
            fn redact(&mut self, r: &mut Redactor, _kind: &str) {
                r.$method(self);
            }
            fn rewrite(&mut self, known: &HashMap<String, String>) {
                rewrite_conditions(&mut self.status.conditions, known);
            }
            fn sort_key(&self, r: &mut Redactor, kind: &str) -> SortKey {
                meta_key(r, kind, &self.metadata)
            }
        }
    )*};
}

with_conditions! {
    Node => node;
    Pod => pod;
    NodePool => node_pool;
    NodeClaim => node_claim;
    CapacityBuffer => capacity_buffer;
}

impl Redactable for PersistentVolumeClaim {
    fn redact(&mut self, r: &mut Redactor, _kind: &str) {
        r.pvc(self);
    }
    /// A generic ephemeral volume's claim is renamed after its pod and volume, not mapped as a
    /// name: its key is read off the redacted claim.
    fn sort_key(&self, r: &mut Redactor, _kind: &str) -> SortKey {
        let mut redacted = self.clone();
        r.pvc(&mut redacted);
        SortKey(None, redacted.metadata.namespace().to_owned(), redacted.metadata.name)
    }
}

impl Redactable for Event {
    fn redact(&mut self, r: &mut Redactor, _kind: &str) {
        r.event(self);
    }
    fn rewrite(&mut self, known: &HashMap<String, String>) {
        self.message = rewrite_text(&self.message, known);
    }
    fn sort_key(&self, r: &mut Redactor, kind: &str) -> SortKey {
        SortKey(self.seen_at(), String::new(), r.name(category(kind), &self.metadata.name))
    }
}

/// The second pass's table and the names it knows, ready to redact any object of the snapshot.
pub(in crate::snapshot) struct Redaction {
    redactor: RefCell<Redactor>,
    known: HashMap<String, String>,
}

impl Redaction {
    /// The first pass, object by object: every name the redacted snapshot will replace.
    /// `numeric_keys` is `encode::numeric_keys(s)`, passed in because it reads the encoded
    /// documents and the encoder writes through this redaction: the import goes one way.
    pub(in crate::snapshot) fn new(s: &Snapshot, numeric_keys: HashSet<String>) -> Redaction {
        let mut first = Redactor {
            collecting: Some(super::ByCategory::default()),
            numeric_keys,
            ephemeral: super::ephemeral_claims(&s.pods),
            derived: super::owners::DerivedNames::of(s),
            ..Redactor::default()
        };
        visit_each(&mut first, &s.node_pools, "NodePool");
        if let Some(m) = &s.disruption_metrics {
            first.disruption_metrics(&mut m.clone());
        }
        visit_each(&mut first, &s.nodes, "Node");
        visit_each(&mut first, &s.node_claims, "NodeClaim");
        for it in &s.instance_types {
            let mut it = it.clone();
            first.instance_type(&mut it);
            first.instance_type_class(&mut it);
        }
        visit_each(&mut first, &s.node_classes, "EC2NodeClass");
        visit_each(&mut first, &s.pods, "Pod");
        visit_each(&mut first, &s.pdbs, "PodDisruptionBudget");
        visit_each(&mut first, &s.daemon_sets, "DaemonSet");
        visit_each(&mut first, &s.replica_sets, "ReplicaSet");
        visit_each(&mut first, &s.deployments, "Deployment");
        visit_each(&mut first, &s.stateful_sets, "StatefulSet");
        visit_each(&mut first, &s.hpas, "HorizontalPodAutoscaler");
        visit_each(&mut first, &s.pvcs, "PersistentVolumeClaim");
        visit_each(&mut first, &s.pvs, "PersistentVolume");
        visit_each(&mut first, &s.storage_classes, "StorageClass");
        visit_each(&mut first, &s.csi_nodes, "CSINode");
        visit_each(&mut first, &s.capacity_buffers, "CapacityBuffer");
        visit_each(&mut first, &s.pod_templates, "PodTemplate");
        visit_each(&mut first, &s.events, "Event");
        let mut redactor =
            Redactor::ordered(first.collecting.take().unwrap_or_default(), first.numeric_keys, first.derived);
        redactor.ephemeral = first.ephemeral;
        let known = redactor.known_names();
        Redaction { redactor: RefCell::new(redactor), known }
    }

    pub(in crate::snapshot) fn info(info: &SnapshotInfo) -> SnapshotInfo {
        let mut info = info.clone();
        redact_info(&mut info);
        info
    }

    /// The instance types redacted, sorted by name (a few dozen: redacted whole).
    pub(in crate::snapshot) fn instance_types(&self, types: &[InstanceType]) -> Vec<InstanceType> {
        let r = &mut *self.redactor.borrow_mut();
        let mut out: Vec<InstanceType> = types.to_vec();
        for it in &mut out {
            r.instance_type(it);
        }
        for it in &mut out {
            r.instance_type_class(it);
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        out
    }

    /// The metrics document with its NodePool labels redacted.
    pub(in crate::snapshot) fn disruption_metrics(&self, metrics: &DisruptionMetrics) -> DisruptionMetrics {
        let mut out = metrics.clone();
        self.redactor.borrow_mut().disruption_metrics(&mut out);
        out
    }

    /// Calls `write` with each of `items` redacted, in the order the redacted kind sorts to
    /// (stable, as `decode::sort` is).
    pub(in crate::snapshot) fn each<T: Redactable, E>(
        &self,
        items: &[T],
        kind: &str,
        mut write: impl FnMut(&T) -> Result<(), E>,
    ) -> Result<(), E> {
        let order = {
            let r = &mut *self.redactor.borrow_mut();
            let keys: Vec<SortKey> = items.iter().map(|o| o.sort_key(r, kind)).collect();
            let mut order: Vec<usize> = (0..items.len()).collect();
            if !keys.windows(2).all(|w| w[0].cmp(&w[1]) != Ordering::Greater) {
                order.sort_by(|&a, &b| keys[a].cmp(&keys[b]));
            }
            order
        };
        for i in order {
            let mut object = items[i].clone();
            object.redact(&mut self.redactor.borrow_mut(), kind);
            object.rewrite(&self.known);
            write(&object)?;
        }
        Ok(())
    }
}

fn visit_each<T: Redactable>(first: &mut Redactor, items: &[T], kind: &str) {
    for object in items {
        object.clone().redact(first, kind);
    }
}
