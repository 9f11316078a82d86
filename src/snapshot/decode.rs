//! Documents → [`Snapshot`]: flatten Lists, dispatch on `apiVersion` + `kind`, keep what we read.

use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{InstanceType, Snapshot, SnapshotInfo, API_VERSION};

/// What one top-level document held, for error locations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// Zero-based index of the document in the stream.
    pub index: usize,
    /// Path of list indices from the document down to the object (`items[3].items[0]`).
    pub item_path: Vec<usize>,
}

/// A document that is not a valid object of a kind we read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind} `{name}`: {message}")]
pub struct DecodeError {
    pub document: Document,
    pub kind: String,
    /// `metadata.name` (with namespace), or `<unnamed>`.
    pub name: String,
    /// The field that failed, as a dotted path (`spec.containers[0].resources.requests.cpu`).
    pub field: String,
    pub message: String,
    pub help: String,
}

/// Decodes every document into one snapshot.
pub(super) fn decode(documents: Vec<Value>) -> Result<Snapshot, DecodeError> {
    let mut snapshot = Snapshot::default();
    let mut explicit_gates = false;
    for (index, document) in documents.into_iter().enumerate() {
        let mut objects = Vec::new();
        flatten(document, &mut Vec::new(), &mut objects);
        for (item_path, object) in objects {
            let location = Document { index, item_path };
            explicit_gates |= add(&mut snapshot, object, &location)?;
        }
    }
    if !explicit_gates {
        if let Some(gates) = controller_feature_gates(&snapshot) {
            snapshot.info.feature_gates = gates;
        }
    }
    sort(&mut snapshot);
    Ok(snapshot)
}

fn flatten(value: Value, path: &mut Vec<usize>, out: &mut Vec<(Vec<usize>, Value)>) {
    let is_list = value.get("kind").and_then(Value::as_str).is_some_and(|k| k == "List" || k.ends_with("List"))
        && value.get("items").is_some_and(Value::is_array)
        && value.get("apiVersion").and_then(Value::as_str) != Some(API_VERSION);
    if !is_list {
        if !value.is_null() {
            out.push((path.clone(), value));
        }
        return;
    }
    let Value::Object(mut map) = value else { return };
    let Some(Value::Array(items)) = map.remove("items") else { return };
    for (i, item) in items.into_iter().enumerate() {
        path.push(i);
        flatten(item, path, out);
        path.pop();
    }
}

/// Adds one object. Returns whether it was a `SnapshotInfo` that set feature gates.
fn add(snapshot: &mut Snapshot, object: Value, at: &Document) -> Result<bool, DecodeError> {
    let api_version = object.get("apiVersion").and_then(Value::as_str).unwrap_or_default().to_owned();
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or_default().to_owned();
    let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
    match (group, kind.as_str()) {
        ("", "Node") => snapshot.nodes.push(typed(object, at, &kind)?),
        ("", "Pod") => {
            let mut pod: super::Pod = typed(object, at, &kind)?;
            for c in pod.spec.containers.iter_mut().chain(pod.spec.init_containers.iter_mut()) {
                c.env.clear();
            }
            snapshot.pods.push(pod);
        }
        ("", "PersistentVolumeClaim") => snapshot.pvcs.push(typed(object, at, &kind)?),
        ("", "PersistentVolume") => snapshot.pvs.push(typed(object, at, &kind)?),
        ("", "Event") => snapshot.events.push(typed(object, at, &kind)?),
        ("policy", "PodDisruptionBudget") => snapshot.pdbs.push(typed(object, at, &kind)?),
        ("apps", "DaemonSet") => snapshot.daemon_sets.push(typed(object, at, &kind)?),
        ("apps", "ReplicaSet") => snapshot.replica_sets.push(lean_workload(typed(object, at, &kind)?)),
        ("apps", "StatefulSet") => snapshot.stateful_sets.push(lean_workload(typed(object, at, &kind)?)),
        ("apps", "Deployment") => snapshot.deployments.push(lean_workload(typed(object, at, &kind)?)),
        ("autoscaling", "HorizontalPodAutoscaler") => snapshot.hpas.push(typed(object, at, &kind)?),
        ("storage.k8s.io", "StorageClass") => snapshot.storage_classes.push(typed(object, at, &kind)?),
        ("storage.k8s.io", "CSINode") => snapshot.csi_nodes.push(typed(object, at, &kind)?),
        ("karpenter.sh", "NodePool" | "NodeClaim") if api_version != "karpenter.sh/v1" => {
            return Err(error(
                &object,
                at,
                &kind,
                "apiVersion",
                format!("apiVersion `{api_version}` is not supported"),
                "Karpenter >= 1.0 serves karpenter.sh/v1; capture the snapshot with \
                 `kubectl get nodepools.v1.karpenter.sh -o yaml` or upgrade Karpenter",
            ))
        }
        ("karpenter.sh", "NodePool") => snapshot.node_pools.push(typed(object, at, &kind)?),
        ("karpenter.sh", "NodeClaim") => snapshot.node_claims.push(typed(object, at, &kind)?),
        ("kubectl-consolidation", "SnapshotInfo") => {
            let info: SnapshotInfo = typed_unnamed(object, at, &kind)?;
            let explicit = !info.feature_gates.is_empty();
            snapshot.info = info;
            return Ok(explicit);
        }
        ("kubectl-consolidation", "InstanceTypes") => {
            let items = object.get("items").cloned().unwrap_or(Value::Array(Vec::new()));
            let types: Vec<InstanceType> = typed_unnamed(items, at, &kind)?;
            snapshot.merge_instance_types(types);
        }
        _ => {}
    }
    Ok(false)
}

/// Only the Karpenter controller's `FEATURE_GATES` matters in a workload's template.
fn lean_workload(mut workload: super::Workload) -> super::Workload {
    let spec = &mut workload.spec.template.spec;
    let mut containers = std::mem::take(&mut spec.containers);
    *spec = super::PodSpec::default();
    containers.retain_mut(|c| {
        c.env.retain(|e| e.name == "FEATURE_GATES");
        c.ports.clear();
        c.resources = super::ContainerResources::default();
        !c.env.is_empty()
    });
    spec.containers = containers;
    workload.spec.template.metadata = super::ObjectMeta::default();
    workload
}

/// Feature gates from a Karpenter controller Deployment's `FEATURE_GATES` env (`A=true,B=false`).
fn controller_feature_gates(snapshot: &Snapshot) -> Option<std::collections::BTreeMap<String, bool>> {
    let value = snapshot
        .deployments
        .iter()
        .flat_map(|d| &d.spec.template.spec.containers)
        .flat_map(|c| &c.env)
        .find(|e| e.name == "FEATURE_GATES")?
        .value
        .clone()?;
    Some(
        value
            .split(',')
            .filter_map(|pair| {
                let (k, v) = pair.split_once('=')?;
                Some((k.trim().to_owned(), v.trim().eq_ignore_ascii_case("true")))
            })
            .collect(),
    )
}

fn typed<T: DeserializeOwned>(object: Value, at: &Document, kind: &str) -> Result<T, DecodeError> {
    let name = object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
    if name.is_empty() {
        return Err(error(
            &object,
            at,
            kind,
            "metadata.name",
            "has no metadata.name".to_owned(),
            "every object needs a name; was the document cut short?",
        ));
    }
    typed_unnamed(object, at, kind)
}

fn typed_unnamed<T: DeserializeOwned>(object: Value, at: &Document, kind: &str) -> Result<T, DecodeError> {
    let copy_for_error = object.clone();
    serde_path_to_error::deserialize(object).map_err(|e| {
        let field = e.path().to_string();
        let message = e.inner().to_string();
        let help = if message.contains("quantity") {
            "quantities look like `500m`, `2`, `1.5Gi` or `1e3`"
        } else if message.contains("timestamp") || message.contains("RFC") {
            "timestamps are RFC 3339, e.g. `2026-11-29T10:00:00Z`"
        } else {
            "fix or remove that field; `kubectl get -o yaml` output always parses"
        };
        error(&copy_for_error, at, kind, &field, message, help)
    })
}

fn error(object: &Value, at: &Document, kind: &str, field: &str, message: String, help: &str) -> DecodeError {
    let name = object.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("<unnamed>");
    let name = match object.pointer("/metadata/namespace").and_then(Value::as_str) {
        Some(ns) => format!("{ns}/{name}"),
        None => name.to_owned(),
    };
    DecodeError {
        document: at.clone(),
        kind: if kind.is_empty() { "object".to_owned() } else { kind.to_owned() },
        name,
        field: field.to_owned(),
        message,
        help: help.to_owned(),
    }
}

fn sort(s: &mut Snapshot) {
    fn by_key<T>(items: &mut [T], meta: impl Fn(&T) -> &super::ObjectMeta) {
        items.sort_by(|a, b| {
            let (a, b) = (meta(a), meta(b));
            (a.namespace(), &a.name).cmp(&(b.namespace(), &b.name))
        });
    }
    by_key(&mut s.nodes, |o| &o.metadata);
    by_key(&mut s.pods, |o| &o.metadata);
    by_key(&mut s.pdbs, |o| &o.metadata);
    by_key(&mut s.daemon_sets, |o| &o.metadata);
    by_key(&mut s.replica_sets, |o| &o.metadata);
    by_key(&mut s.deployments, |o| &o.metadata);
    by_key(&mut s.stateful_sets, |o| &o.metadata);
    by_key(&mut s.hpas, |o| &o.metadata);
    by_key(&mut s.pvcs, |o| &o.metadata);
    by_key(&mut s.pvs, |o| &o.metadata);
    by_key(&mut s.storage_classes, |o| &o.metadata);
    by_key(&mut s.csi_nodes, |o| &o.metadata);
    by_key(&mut s.node_pools, |o| &o.metadata);
    by_key(&mut s.node_claims, |o| &o.metadata);
    s.events.sort_by(|a, b| (a.seen_at(), &a.metadata.name).cmp(&(b.seen_at(), &b.metadata.name)));
    s.instance_types.sort_by(|a, b| a.name.cmp(&b.name));
}
