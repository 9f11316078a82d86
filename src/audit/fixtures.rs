//! Test builders for the audit: small Kubernetes-shaped snapshots built from JSON documents,
//! one behaviour each, and the look-ups the rules' tests share. Test-only.

use serde_json::{json, Value};

use super::{pdb_audit, Audit, FindingCode, PdbFinding, Scope};
use crate::snapshot::Snapshot;

pub(crate) const NS: &str = "ns";

pub(crate) fn now() -> jiff::Timestamp {
    "2026-11-29T10:00:00Z".parse().unwrap()
}

pub(crate) fn instance_types() -> Value {
    json!({
        "apiVersion": "kubectl-consolidation/v1alpha1", "kind": "InstanceTypes",
        "items": [{"name": "m5.large", "capacity": {"cpu": "2", "memory": "8Gi", "pods": "29"},
                   "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.096}]}]
    })
}

pub(crate) fn node_pool(name: &str, tgp: Option<&str>) -> Value {
    let mut pool = json!({
        "apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
        "spec": {"template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                                        "requirements": []}},
                 "disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "5m"}}
    });
    if let Some(tgp) = tgp {
        pool["spec"]["template"]["spec"]["terminationGracePeriod"] = json!(tgp);
    }
    pool
}

/// A Node; with a pool, also its NodeClaim (a Karpenter node).
pub(crate) fn node(name: &str, pool: Option<&str>) -> Vec<Value> {
    let mut labels = json!({
        "kubernetes.io/hostname": name, "node.kubernetes.io/instance-type": "m5.large",
        "topology.kubernetes.io/zone": "us-east-1a", "karpenter.sh/capacity-type": "on-demand",
    });
    let provider_id = format!("aws:///us-east-1a/i-{name}");
    let mut out = Vec::new();
    if let Some(pool) = pool {
        labels["karpenter.sh/nodepool"] = json!(pool);
        labels["karpenter.sh/registered"] = json!("true");
        labels["karpenter.sh/initialized"] = json!("true");
        out.push(json!({
            "apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
            "metadata": {"name": format!("{pool}-{name}"), "labels": labels},
            "status": {"nodeName": name, "providerID": provider_id}
        }));
    }
    out.push(json!({
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels},
        "spec": {"providerID": provider_id},
        "status": {"allocatable": {"cpu": "2", "memory": "8Gi", "pods": "29"},
                   "conditions": [{"type": "Ready", "status": "True"}]}
    }));
    out
}

pub(crate) fn pod_in(namespace: &str, name: &str, app: &str, owner: Option<(&str, &str)>, node: &str) -> Value {
    let mut pod = json!({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "labels": {"app": app}},
        "spec": {"nodeName": node, "containers": [{"name": "app"}]},
        "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
    });
    if let Some((kind, owner)) = owner {
        let api_version = if kind == "Job" { "batch/v1" } else { "apps/v1" };
        pod["metadata"]["ownerReferences"] = json!([{"apiVersion": api_version, "kind": kind, "name": owner, "uid": format!("uid-{owner}"), "controller": true}]);
    }
    pod
}

/// A pod of Deployment `app` (through ReplicaSet `app-rs`).
pub(crate) fn pod(name: &str, app: &str, node: &str) -> Value {
    pod_in(NS, name, app, Some(("ReplicaSet", &format!("{app}-rs"))), node)
}

/// Deployment `app` with its ReplicaSet.
pub(crate) fn deployment(app: &str, replicas: i32) -> Vec<Value> {
    let selector = json!({"matchLabels": {"app": app}});
    vec![
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": app, "namespace": NS},
               "spec": {"replicas": replicas, "selector": selector}}),
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
               "metadata": {"name": format!("{app}-rs"), "namespace": NS,
                            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": app, "controller": true}]},
               "spec": {"replicas": replicas, "selector": selector}}),
    ]
}

pub(crate) fn hpa(app: &str, min: i32, max: i32) -> Value {
    json!({"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler", "metadata": {"name": app, "namespace": NS},
           "spec": {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": app},
                    "minReplicas": min, "maxReplicas": max}})
}

/// A PDB over `app=<app>` with `spec` (`{"maxUnavailable": 1}`…) and `[expected, healthy, desired, allowed]`.
pub(crate) fn pdb(name: &str, app: &str, spec: &Value, status: [i32; 4]) -> Value {
    let mut spec = spec.clone();
    spec["selector"] = json!({"matchLabels": {"app": app}});
    json!({
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name, "namespace": NS},
        "spec": spec,
        "status": {"expectedPods": status[0], "currentHealthy": status[1], "desiredHealthy": status[2],
                   "disruptionsAllowed": status[3]}
    })
}

/// A cluster with NodePool `default` (optionally with a terminationGracePeriod) and Karpenter
/// nodes `node-a`, `node-b`, `node-c`.
pub(crate) fn cluster(tgp: Option<&str>) -> Vec<Value> {
    let mut docs = vec![instance_types(), node_pool("default", tgp)];
    for name in ["node-a", "node-b", "node-c"] {
        docs.extend(node(name, Some("default")));
    }
    docs
}

pub(crate) fn audit_with(docs: Vec<Value>, scope: &Scope) -> Audit {
    let snapshot = Snapshot::from_documents(docs).unwrap();
    pdb_audit(&snapshot, now(), scope)
}

pub(crate) fn audit(docs: Vec<Value>) -> Audit {
    audit_with(docs, &Scope { namespace: Some(NS.into()), all_namespaces: false, selector: None })
}

pub(crate) fn codes(audit: &Audit) -> Vec<(FindingCode, Option<String>)> {
    audit.findings.iter().map(|f| (f.code, f.subject.pdb.clone())).collect()
}

pub(crate) fn has(audit: &Audit, code: FindingCode) -> bool {
    audit.findings.iter().any(|f| f.code == code)
}

pub(crate) fn find(audit: &Audit, code: FindingCode) -> &PdbFinding {
    audit.findings.iter().find(|f| f.code == code).unwrap_or_else(|| panic!("no {code} in {:#?}", codes(audit)))
}
