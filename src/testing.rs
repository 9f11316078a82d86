//! Test builders: small Kubernetes-shaped objects as JSON, turned into a [`Snapshot`] the way
//! the file source does it. The Rust counterpart of Karpenter's `test.Pod()`, `test.NodePool()`.

use serde_json::{json, Value};

use crate::snapshot::Snapshot;

pub(crate) const NOW: &str = "2026-11-29T10:00:00Z";
const EARLIER: &str = "2026-11-29T08:00:00Z";

/// A snapshot from objects, with the clock at [`NOW`] and a small catalogue.
pub(crate) fn snapshot(objects: Vec<Value>) -> Snapshot {
    let mut documents = vec![
        json!({"apiVersion": "kubectl-consolidation/v1alpha1", "kind": "SnapshotInfo", "capturedAt": NOW}),
        json!({"apiVersion": "kubectl-consolidation/v1alpha1", "kind": "InstanceTypes", "items": [
            {"name": "m.large", "capacity": {"cpu": "2", "memory": "8Gi", "pods": "29"},
             "offerings": [{"zone": "zone-a", "capacityType": "on-demand", "price": 0.1},
                           {"zone": "zone-a", "capacityType": "spot", "price": 0.04}]},
            {"name": "m.xlarge", "capacity": {"cpu": "4", "memory": "16Gi", "pods": "58"},
             "offerings": [{"zone": "zone-a", "capacityType": "on-demand", "price": 0.2},
                           {"zone": "zone-a", "capacityType": "spot", "price": 0.08}]}]}),
    ];
    documents.extend(objects);
    Snapshot::from_documents(documents).expect("test snapshot decodes")
}

pub(crate) fn now() -> jiff::Timestamp {
    NOW.parse().expect("valid")
}

/// A NodePool `default` (WhenEmptyOrUnderutilized, consolidateAfter 0s, budget 100%).
pub(crate) fn node_pool(name: &str) -> Value {
    json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
           "spec": {"template": {"spec": {"requirements": [
                {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}]}},
                    "disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s",
                                   "budgets": [{"nodes": "100%"}]}},
           "status": {"conditions": [{"type": "Ready", "status": "True"}]}})
}

/// A managed, initialized, consolidatable node of pool `default` and its NodeClaim.
pub(crate) fn managed_node(name: &str) -> [Value; 2] {
    let labels = json!({"kubernetes.io/hostname": name, "node.kubernetes.io/instance-type": "m.xlarge",
        "topology.kubernetes.io/zone": "zone-a", "karpenter.sh/capacity-type": "on-demand",
        "karpenter.sh/nodepool": "default", "karpenter.sh/registered": "true", "karpenter.sh/initialized": "true"});
    let provider = format!("aws:///zone-a/{name}");
    [
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
               "spec": {"providerID": provider},
               "status": {"allocatable": {"cpu": "4", "memory": "16Gi", "pods": "58"},
                          "capacity": {"cpu": "4", "memory": "16Gi", "pods": "58"},
                          "conditions": [{"type": "Ready", "status": "True"}]}}),
        json!({"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim", "metadata": {"name": format!("claim-{name}"), "labels": labels},
               "status": {"nodeName": name, "providerID": provider, "lastPodEventTime": EARLIER,
                          "conditions": [{"type": "Initialized", "status": "True", "lastTransitionTime": EARLIER},
                                         {"type": "Consolidatable", "status": "True", "lastTransitionTime": EARLIER}]}}),
    ]
}

/// A running pod of a ReplicaSet on `node`, requesting 100m / 128Mi.
pub(crate) fn pod(name: &str, node: &str) -> Value {
    json!({"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name, "namespace": "default", "labels": {"app": name},
                        "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "rs", "controller": true}]},
           "spec": {"nodeName": node, "containers": [{"name": "c", "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]},
           "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}})
}

/// Sets a JSON pointer inside an object (creating objects on the way).
pub(crate) fn set(mut object: Value, pointer: &str, value: Value) -> Value {
    let mut target = &mut object;
    for raw in pointer.trim_start_matches('/').split('/') {
        let part = raw.replace("~1", "/").replace("~0", "~");
        let part = part.as_str();
        if target.get(part).is_none() {
            target[part] = json!({});
        }
        target = &mut target[part];
    }
    *target = value;
    object
}

/// The built-in demo snapshot (the seed incident), parsed without the file source so that core
/// modules' tests stay inside the layering rules.
pub(crate) fn demo() -> Snapshot {
    let documents: Vec<Value> =
        serde_saphyr::from_multiple(include_str!("source/demo.yaml")).expect("the demo snapshot parses");
    Snapshot::from_documents(documents.into_iter().filter(|d| !d.is_null()).collect()).expect("the demo decodes")
}

/// The built-in demo with its text edited before it is parsed (a test's variant of the seed
/// incident, such as a node renamed so that it sorts first).
pub(crate) fn demo_edited(edit: impl FnOnce(&str) -> String) -> Snapshot {
    let documents: Vec<Value> =
        serde_saphyr::from_multiple(&edit(include_str!("source/demo.yaml"))).expect("the edited demo parses");
    Snapshot::from_documents(documents.into_iter().filter(|d| !d.is_null()).collect()).expect("the edited demo decodes")
}

/// The `pdb-audit` document of the built-in demo in namespace `tenant-a`, judged at its
/// capture time (what `pdb-audit --demo -n tenant-a` prints).
pub(crate) fn demo_pdb_audit() -> crate::report::pdb_audit::PdbAudit {
    let snapshot = demo();
    let now = snapshot.info.captured_at.expect("the demo has a capture time");
    let scope = crate::audit::Scope { namespace: Some("tenant-a".into()), all_namespaces: false, selector: None };
    crate::report::pdb_audit::document(&crate::audit::pdb_audit(&snapshot, now, &scope))
}

/// A pod of its own workload (`testing::pod` puts every pod in one ReplicaSet).
pub(crate) fn lone_pod(name: &str, node: &str, cpu: &str) -> Value {
    let owner =
        json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": format!("{name}-rs"), "controller": true}]);
    let p = set(pod(name, node), "/metadata/ownerReferences", owner);
    set(p, "/spec/containers", json!([{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": "128Mi"}}}]))
}

/// A forecast's cluster: node-a's 3-CPU pod fits only node-l, which Karpenter launched `age` seconds before the
/// snapshot and which is not initialized yet (its own pod is do-not-disrupt, so node-l is no
/// candidate itself). `ready`: its Node reports Ready.
pub(crate) fn moving_onto_a_launching_node(age: i64, ready: bool) -> Snapshot {
    let created = (now() - jiff::SignedDuration::from_secs(age)).to_string();
    let [mut node, mut claim] = managed_node("node-l");
    for object in [&mut node, &mut claim] {
        let labels = object.pointer_mut("/metadata/labels").and_then(serde_json::Value::as_object_mut);
        labels.expect("labels").remove("karpenter.sh/initialized");
        object["metadata"]["creationTimestamp"] = json!(created);
    }
    let node =
        set(node, "/status/conditions", json!([{"type": "Ready", "status": if ready { "True" } else { "False" }}]));
    let claim = set(
        claim,
        "/status/conditions",
        json!([{"type": "Launched", "status": "True"}, {"type": "Registered", "status": "True"},
               {"type": "Initialized", "status": "Unknown", "reason": "NotInitialized"}]),
    );
    let pinned = set(
        lone_pod("kept", "node-l", "500m"),
        "/metadata/annotations",
        json!({"karpenter.sh/do-not-disrupt": "true"}),
    );
    let mut objects = vec![node_pool("default"), node, claim, pinned, lone_pod("big", "node-a", "3")];
    objects.extend(managed_node("node-a"));
    snapshot(objects)
}
