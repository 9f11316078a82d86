//! [`Snapshot`] → one `v1 List` document, in the shape `decode` reads back: whole, as a
//! [`Value`] ([`encode`]), or written object by object as it is encoded ([`write()`]), which
//! `snapshot` uses so that no document tree or text of the whole cluster is held.

use std::collections::HashSet;
use std::io::{self, Write};

use serde::ser::{SerializeMap, SerializeSeq, Serializer};
use serde::Serialize;
use serde_json::{json, Value};

use super::redact::objects::{Redactable, Redaction};
use super::{InstanceType, Snapshot, API_VERSION};

pub(super) fn encode(s: &Snapshot) -> Value {
    let mut items = Vec::new();
    each_document(s, &mut |item| items.push(item));
    json!({"apiVersion": "v1", "kind": "List", "items": items})
}

/// Calls `f` with each item of the `v1 List`, in order, as its own document.
pub(super) fn each_document(s: &Snapshot, f: &mut impl FnMut(Value)) {
    struct Values<'f, F>(&'f mut F);
    impl<F: FnMut(Value)> Visitor for Values<'_, F> {
        type Error = std::convert::Infallible;
        fn item<T: Serialize>(&mut self, item: &T) -> Result<(), Self::Error> {
            // A snapshot holds only string-keyed maps and plain values, so this cannot fail.
            (self.0)(serde_json::to_value(item).expect("snapshot objects serialise"));
            Ok(())
        }
    }
    let Ok(()) = visit(s, None, &mut Values(f));
}

/// Calls `f` with the document of each item whose compact JSON text contains one of
/// `needles`: a quick test on text written into one reused buffer spares building the
/// document of every item that cannot matter.
fn each_document_containing(s: &Snapshot, needles: &[&str], f: &mut impl FnMut(Value)) {
    struct Matching<'f, 'n, F> {
        f: &'f mut F,
        needles: &'n [&'n str],
        text: Vec<u8>,
    }
    impl<F: FnMut(Value)> Visitor for Matching<'_, '_, F> {
        type Error = std::convert::Infallible;
        fn item<T: Serialize>(&mut self, item: &T) -> Result<(), Self::Error> {
            self.text.clear();
            // As in `each_document`: snapshot objects always serialise.
            serde_json::to_writer(&mut self.text, item).expect("snapshot objects serialise");
            // serde_json writes UTF-8; anything else would match nothing anyway.
            let text = std::str::from_utf8(&self.text).unwrap_or_default();
            if self.needles.iter().any(|n| text.contains(n)) {
                (self.f)(serde_json::to_value(item).expect("snapshot objects serialise"));
            }
            Ok(())
        }
    }
    let Ok(()) = visit(s, None, &mut Matching { f, needles, text: Vec::new() });
}

/// The label keys of every `Gt`/`Lt` (and Karpenter's `Gte`/`Lte`) requirement anywhere in the
/// snapshot (NodePools, NodeClaims, pods' node affinity, PersistentVolumes): their values must
/// stay numbers. Read from each item's document in turn, never the whole snapshot's.
pub(super) fn numeric_keys(s: &Snapshot) -> HashSet<String> {
    let mut keys = HashSet::new();
    let mut scan = |object: Value| {
        let mut stack = vec![object];
        while let Some(value) = stack.pop() {
            match value {
                Value::Array(items) => stack.extend(items),
                Value::Object(map) => {
                    let numeric = map
                        .get("operator")
                        .and_then(Value::as_str)
                        .is_some_and(|op| matches!(op, "Gt" | "Lt" | "Gte" | "Lte"));
                    if let (true, Some(key)) = (numeric, map.get("key").and_then(Value::as_str)) {
                        keys.insert(key.to_owned());
                    }
                    stack.extend(map.into_iter().map(|(_, v)| v));
                }
                _ => {}
            }
        }
    };
    // An object with `"operator": "Gt"` (or `Lt`, `Gte`, `Lte`) reads so in compact JSON.
    each_document_containing(s, &[r#""operator":"G"#, r#""operator":"L"#], &mut scan);
    keys
}

/// What [`visit`] hands each item to.
trait Visitor {
    type Error;
    fn item<T: Serialize>(&mut self, item: &T) -> Result<(), Self::Error>;
}

/// Each item, as one element of the serialised `items` sequence.
struct Elements<S>(S);

impl<S: SerializeSeq> Visitor for Elements<S> {
    type Error = S::Error;
    fn item<T: Serialize>(&mut self, item: &T) -> Result<(), S::Error> {
        self.0.serialize_element(item)
    }
}

/// Writes the snapshot (redacted with `redaction`) as pretty JSON with a final newline, or as
/// YAML: the same bytes `serde_json::to_string_pretty` / `serde_saphyr::to_string` give for
/// [`encode`]'s document.
pub(super) fn write(s: &Snapshot, redaction: Option<&Redaction>, json: bool, out: impl Write) -> io::Result<()> {
    let document = Document { snapshot: s, redaction };
    let mut out = Recording { out: io::BufWriter::with_capacity(1 << 20, out), failed: None };
    let encoded = if json {
        serde_json::to_writer_pretty(&mut out, &document).map_err(|e| e.to_string())
    } else {
        serde_saphyr::to_io_writer(&mut out, &document).map_err(|e| e.to_string())
    };
    // The writer's own error (a closed pipe) says more than the serializer's wrap of it.
    if let Err(message) = encoded {
        return Err(out.failed.take().unwrap_or_else(|| io::Error::other(message)));
    }
    if json {
        out.write_all(b"\n")?;
    }
    out.flush()
}

/// A writer that keeps the first I/O error it met.
struct Recording<W: Write> {
    out: W,
    failed: Option<io::Error>,
}

impl<W: Write> Recording<W> {
    fn record<T>(&mut self, result: io::Result<T>) -> io::Result<T> {
        result.map_err(|e| {
            let copy = io::Error::new(e.kind(), e.to_string());
            self.failed.get_or_insert(e);
            copy
        })
    }
}

impl<W: Write> Write for Recording<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let result = self.out.write(buf);
        self.record(result)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        let result = self.out.write_all(buf);
        self.record(result)
    }

    fn flush(&mut self) -> io::Result<()> {
        let result = self.out.flush();
        self.record(result)
    }
}

/// The `v1 List`, serialised lazily.
struct Document<'s> {
    snapshot: &'s Snapshot,
    redaction: Option<&'s Redaction>,
}

impl Serialize for Document<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(3))?;
        map.serialize_entry("apiVersion", "v1")?;
        map.serialize_entry("kind", "List")?;
        map.serialize_entry("items", &Items { snapshot: self.snapshot, redaction: self.redaction })?;
        map.end()
    }
}

struct Items<'s> {
    snapshot: &'s Snapshot,
    redaction: Option<&'s Redaction>,
}

impl Serialize for Items<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut elements = Elements(serializer.serialize_seq(None)?);
        visit(self.snapshot, self.redaction, &mut elements)?;
        elements.0.end()
    }
}

/// An object with `apiVersion` and `kind` first, as kubectl prints them (what a `Value` map
/// built that way and then extended with the object's fields serialises to).
#[derive(Serialize)]
struct WithKind<'a, T: Serialize> {
    #[serde(rename = "apiVersion")]
    api_version: &'a str,
    kind: &'a str,
    #[serde(flatten)]
    object: &'a T,
}

/// Our `InstanceTypes` document.
#[derive(Serialize)]
struct InstanceTypes<'a> {
    #[serde(rename = "apiVersion")]
    api_version: &'a str,
    kind: &'a str,
    items: &'a [InstanceType],
}

/// Calls `f` with every item of the list, in order, redacted when `redaction` is given.
fn visit<V: Visitor>(s: &Snapshot, redaction: Option<&Redaction>, f: &mut V) -> Result<(), V::Error> {
    let info = redaction.map(|_| Redaction::info(&s.info));
    f.item(&WithKind { api_version: API_VERSION, kind: "SnapshotInfo", object: info.as_ref().unwrap_or(&s.info) })?;
    let types = redaction.map(|r| r.instance_types(&s.instance_types));
    let types = types.as_deref().unwrap_or(&s.instance_types);
    if !types.is_empty() {
        f.item(&InstanceTypes { api_version: API_VERSION, kind: "InstanceTypes", items: types })?;
    }
    if let Some(metrics) = &s.disruption_metrics {
        let redacted = redaction.map(|r| r.disruption_metrics(metrics));
        let object = redacted.as_ref().unwrap_or(metrics);
        f.item(&WithKind { api_version: API_VERSION, kind: "DisruptionMetrics", object })?;
    }
    all(f, redaction, &s.node_pools, "karpenter.sh/v1", "NodePool")?;
    all(f, redaction, &s.node_claims, "karpenter.sh/v1", "NodeClaim")?;
    all(f, redaction, &s.node_classes, "karpenter.k8s.aws/v1", "EC2NodeClass")?;
    all(f, redaction, &s.nodes, "v1", "Node")?;
    all(f, redaction, &s.pods, "v1", "Pod")?;
    all(f, redaction, &s.pdbs, "policy/v1", "PodDisruptionBudget")?;
    all(f, redaction, &s.daemon_sets, "apps/v1", "DaemonSet")?;
    all(f, redaction, &s.deployments, "apps/v1", "Deployment")?;
    all(f, redaction, &s.replica_sets, "apps/v1", "ReplicaSet")?;
    all(f, redaction, &s.stateful_sets, "apps/v1", "StatefulSet")?;
    all(f, redaction, &s.hpas, "autoscaling/v2", "HorizontalPodAutoscaler")?;
    all(f, redaction, &s.pvcs, "v1", "PersistentVolumeClaim")?;
    all(f, redaction, &s.pvs, "v1", "PersistentVolume")?;
    all(f, redaction, &s.storage_classes, "storage.k8s.io/v1", "StorageClass")?;
    all(f, redaction, &s.csi_nodes, "storage.k8s.io/v1", "CSINode")?;
    all(f, redaction, &s.capacity_buffers, "autoscaling.x-k8s.io/v1beta1", "CapacityBuffer")?;
    all(f, redaction, &s.pod_templates, "v1", "PodTemplate")?;
    all(f, redaction, &s.events, "v1", "Event")
}

fn all<V: Visitor, T: Redactable>(
    f: &mut V,
    redaction: Option<&Redaction>,
    objects: &[T],
    api_version: &str,
    kind: &str,
) -> Result<(), V::Error> {
    match redaction {
        None => objects.iter().try_for_each(|object| f.item(&WithKind { api_version, kind, object })),
        Some(r) => r.each(objects, kind, |object| f.item(&WithKind { api_version, kind, object })),
    }
}
