//! The names Kubernetes builds out of other names, read off the original snapshot so that
//! redaction can build the replacements the same way.
//!
//! The Deployment controller names each ReplicaSet `<deployment>-<pod-template-hash>`
//! (kubernetes `pkg/controller/deployment/sync.go` `getNewReplicaSet`), and a ReplicaSet names
//! its pods `<replicaset>-<random suffix>` (`pkg/controller/controller_utils.go`
//! `getPodsPrefix`, used by `GetPodFromTemplate`). When the ReplicaSet objects are not in the
//! snapshot, `pdb-audit` (`audit/workloads.rs` `owner_of`) and the forecast
//! (`forecast/impact.rs` `Workloads::new`) recover the Deployment by taking the pod's
//! `pod-template-hash` label off its ReplicaSet's name. A replacement that hashed the
//! ReplicaSet name on its own would split one Deployment into one ReplicaSet per revision.

use std::collections::{BTreeSet, HashMap};

use crate::snapshot::{Pod, Snapshot, Workload};

/// The label the Deployment controller puts on its ReplicaSets and their pods
/// (`DefaultDeploymentUniqueLabelKey`).
pub(super) const POD_TEMPLATE_HASH: &str = "pod-template-hash";

/// ReplicaSet names that are `<deployment>-<hash>`, and pod names that are `<replicaset>-…`.
#[derive(Debug, Clone, Default)]
pub(super) struct DerivedNames {
    /// ReplicaSet name → (Deployment name, pod-template-hash).
    replica_sets: HashMap<String, (String, String)>,
    /// Pod name → the name of the ReplicaSet that controls it and prefixes its name.
    pods: HashMap<String, String>,
}

impl DerivedNames {
    /// Reads every ReplicaSet name that splits into a Deployment and a hash: by a pod's
    /// `pod-template-hash` label (what the replay does), by the ReplicaSet's own label, or by
    /// the Deployment that controls it. A name (the same in two namespaces) that splits two
    /// ways takes the first split in sorted order, so the mapping is a function of the name.
    pub(super) fn of(s: &Snapshot) -> DerivedNames {
        let mut splits: HashMap<&str, BTreeSet<(&str, &str)>> = HashMap::new();
        for pod in &s.pods {
            let Some(owner) = pod.metadata.controller().filter(|o| o.kind == "ReplicaSet") else { continue };
            if let Some(split) = split_by_hash(&owner.name, pod.metadata.labels.get(POD_TEMPLATE_HASH)) {
                splits.entry(owner.name.as_str()).or_default().insert(split);
            }
        }
        for rs in &s.replica_sets {
            if let Some(split) = replica_set_split(rs) {
                splits.entry(rs.metadata.name.as_str()).or_default().insert(split);
            }
        }
        let replica_sets: HashMap<String, (String, String)> = splits
            .into_iter()
            .filter_map(|(name, splits)| {
                let (deployment, hash) = splits.into_iter().next()?;
                Some((name.to_owned(), (deployment.to_owned(), hash.to_owned())))
            })
            .collect();
        let mut pods: HashMap<String, BTreeSet<&str>> = HashMap::new();
        for pod in &s.pods {
            if let Some(rs) = prefixing_replica_set(pod) {
                pods.entry(pod.metadata.name.clone()).or_default().insert(rs);
            }
        }
        let pods = pods.into_iter().filter_map(|(pod, owners)| Some((pod, owners.first()?.to_string()))).collect();
        DerivedNames { replica_sets, pods }
    }

    /// `(deployment, hash)` when the ReplicaSet `name` is `<deployment>-<hash>`.
    pub(super) fn replica_set(&self, name: &str) -> Option<(&str, &str)> {
        self.replica_sets.get(name).map(|(d, h)| (d.as_str(), h.as_str()))
    }

    /// The ReplicaSet whose name prefixes the pod `name`.
    pub(super) fn pod(&self, name: &str) -> Option<&str> {
        self.pods.get(name).map(String::as_str)
    }
}

/// `<deployment>-<hash>` → `(deployment, hash)`, as `owner_of` strips the hash.
fn split_by_hash<'a>(name: &'a str, hash: Option<&'a String>) -> Option<(&'a str, &'a str)> {
    let hash = hash.filter(|h| !h.is_empty())?;
    let deployment = name.strip_suffix(hash.as_str())?.strip_suffix('-').filter(|d| !d.is_empty())?;
    Some((deployment, hash.as_str()))
}

/// A ReplicaSet's split: by its own `pod-template-hash` label (on the object, else on its
/// pod template), else by the name of the Deployment that controls it.
fn replica_set_split(rs: &Workload) -> Option<(&str, &str)> {
    let name = rs.metadata.name.as_str();
    let labelled =
        rs.metadata.labels.get(POD_TEMPLATE_HASH).or_else(|| rs.spec.template.metadata.labels.get(POD_TEMPLATE_HASH));
    if let Some(split) = split_by_hash(name, labelled) {
        return Some(split);
    }
    let deployment = rs.metadata.controller().filter(|o| o.kind == "Deployment")?;
    let hash = name.strip_prefix(deployment.name.as_str())?.strip_prefix('-').filter(|h| !h.is_empty())?;
    Some((deployment.name.as_str(), hash))
}

/// The controlling ReplicaSet of a pod named `<replicaset>-<suffix>`.
fn prefixing_replica_set(pod: &Pod) -> Option<&str> {
    let owner = pod.metadata.controller().filter(|o| o.kind == "ReplicaSet")?;
    let suffix = pod.metadata.name.strip_prefix(owner.name.as_str())?.strip_prefix('-')?;
    (!owner.name.is_empty() && !suffix.is_empty()).then_some(owner.name.as_str())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(items: &[serde_json::Value]) -> Snapshot {
        Snapshot::from_documents(vec![serde_json::json!({"apiVersion": "v1", "kind": "List", "items": items})]).unwrap()
    }

    fn pod(name: &str, rs: &str, hash: Option<&str>) -> serde_json::Value {
        let mut labels = serde_json::json!({"app": "web"});
        if let Some(h) = hash {
            labels[POD_TEMPLATE_HASH] = h.into();
        }
        serde_json::json!({"kind": "Pod", "metadata": {"name": name, "namespace": "ns", "uid": name, "labels": labels,
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs, "uid": rs, "controller": true}]},
            "spec": {"containers": []}})
    }

    #[test]
    fn a_pod_label_splits_its_replica_set_as_the_audit_does() {
        let s = snapshot(&[
            pod("web-api-7c9b-x1", "web-api-7c9b", Some("7c9b")),
            pod("x1", "odd", Some("nomatch")),
            pod("nohash-abc-1", "nohash-abc", None),
        ]);
        let names = DerivedNames::of(&s);
        assert_eq!(names.replica_set("web-api-7c9b"), Some(("web-api", "7c9b")));
        assert_eq!(names.replica_set("odd"), None);
        assert_eq!(names.replica_set("nohash-abc"), None);
        assert_eq!(names.pod("web-api-7c9b-x1"), Some("web-api-7c9b"));
        assert_eq!(names.pod("x1"), None, "a pod not named after its ReplicaSet");
    }

    #[test]
    fn a_replica_set_splits_by_its_label_or_its_deployment() {
        let rs = |name: &str, label: Option<&str>, deployment: Option<&str>| {
            let mut doc = serde_json::json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
                "metadata": {"name": name, "namespace": "ns", "labels": {}}, "spec": {"template": {"spec": {"containers": []}}}});
            if let Some(h) = label {
                doc["metadata"]["labels"][POD_TEMPLATE_HASH] = h.into();
            }
            if let Some(d) = deployment {
                doc["metadata"]["ownerReferences"] = serde_json::json!([{"apiVersion": "apps/v1", "kind": "Deployment", "name": d, "uid": d, "controller": true}]);
            }
            doc
        };
        let s = snapshot(&[rs("a-b-123", Some("123"), None), rs("c-456", None, Some("c")), rs("lone", None, None)]);
        let names = DerivedNames::of(&s);
        assert_eq!(names.replica_set("a-b-123"), Some(("a-b", "123")));
        assert_eq!(names.replica_set("c-456"), Some(("c", "456")));
        assert_eq!(names.replica_set("lone"), None);
    }
}
