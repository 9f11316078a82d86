//! [`Snapshot`] → one `v1 List` document, in the shape `decode` reads back.

use serde::Serialize;
use serde_json::{json, Value};

use super::{Snapshot, API_VERSION};

pub(super) fn encode(s: &Snapshot) -> Value {
    let mut items = vec![with_kind(&s.info, API_VERSION, "SnapshotInfo")];
    if !s.instance_types.is_empty() {
        items.push(json!({"apiVersion": API_VERSION, "kind": "InstanceTypes", "items": s.instance_types}));
    }
    push_all(&mut items, &s.node_pools, "karpenter.sh/v1", "NodePool");
    push_all(&mut items, &s.node_claims, "karpenter.sh/v1", "NodeClaim");
    push_all(&mut items, &s.node_classes, "karpenter.k8s.aws/v1", "EC2NodeClass");
    push_all(&mut items, &s.nodes, "v1", "Node");
    push_all(&mut items, &s.pods, "v1", "Pod");
    push_all(&mut items, &s.pdbs, "policy/v1", "PodDisruptionBudget");
    push_all(&mut items, &s.daemon_sets, "apps/v1", "DaemonSet");
    push_all(&mut items, &s.deployments, "apps/v1", "Deployment");
    push_all(&mut items, &s.replica_sets, "apps/v1", "ReplicaSet");
    push_all(&mut items, &s.stateful_sets, "apps/v1", "StatefulSet");
    push_all(&mut items, &s.hpas, "autoscaling/v2", "HorizontalPodAutoscaler");
    push_all(&mut items, &s.pvcs, "v1", "PersistentVolumeClaim");
    push_all(&mut items, &s.pvs, "v1", "PersistentVolume");
    push_all(&mut items, &s.storage_classes, "storage.k8s.io/v1", "StorageClass");
    push_all(&mut items, &s.csi_nodes, "storage.k8s.io/v1", "CSINode");
    push_all(&mut items, &s.events, "v1", "Event");
    json!({"apiVersion": "v1", "kind": "List", "items": items})
}

fn push_all<T: Serialize>(items: &mut Vec<Value>, objects: &[T], api_version: &str, kind: &str) {
    items.extend(objects.iter().map(|o| with_kind(o, api_version, kind)));
}

/// Serialises `object` with `apiVersion` and `kind` first, as kubectl prints them.
fn with_kind<T: Serialize>(object: &T, api_version: &str, kind: &str) -> Value {
    let mut map = serde_json::Map::new();
    map.insert("apiVersion".into(), Value::from(api_version));
    map.insert("kind".into(), Value::from(kind));
    // A snapshot struct holds only string-keyed maps and plain values, so this cannot fail.
    if let Value::Object(fields) = serde_json::to_value(object).expect("snapshot objects serialise") {
        map.extend(fields);
    }
    Value::Object(map)
}
