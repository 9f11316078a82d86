//! Applies a manifest's objects to a snapshot, as `kubectl apply` would for what the replay
//! reads (the table in [`super`]). Pure.
//!
//! A workload's pods are what Karpenter sees of it, so a workload change becomes pod changes:
//! - a new `replicas` scales its pods ([`crate::whatif::scale_workload`], shared with `--set`);
//! - a pod template that differs from its pods in what the scheduling simulation reads
//!   ([`template_changes`]) rolls them: every pod is replaced by a new pending one with the
//!   template's fields, as a finished rollout leaves them (kubernetes
//!   `pkg/controller/deployment/rolling.go` replaces every pod whose template hash is old);
//! - a new workload's pods join pending.
//!
//! New pods are returned, for the provisioning step to place before the round.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{Object, WorkloadKind};
use crate::audit::budget::Rule;
use crate::engine::labels::selector_matches;
use crate::snapshot::{
    is_true, Condition, NodeClass, NodePool, OwnerReference, Pod, PodDisruptionBudget, PodSpec, PodStatus, Snapshot,
    Workload,
};

/// What applying one object changed.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Applied {
    /// `Kind/namespace/name`.
    pub object: String,
    /// The manifest file it came from.
    pub file: String,
    /// The object is new to the cluster.
    pub created: bool,
    /// The fields that differ from the cluster's object, as users write them
    /// (`spec.disruption.budgets[0].nodes`); empty when the apply changes nothing read.
    pub fields: Vec<String>,
    /// Pods added pending (`namespace/name`): the provisioning step places them.
    pub new_pods: Vec<String>,
    /// What the replay makes of the object beyond its fields (a rollout, a default taken).
    pub notes: Vec<String>,
}

impl Applied {
    /// Whether the apply changes anything the replay reads.
    pub(crate) fn changes(&self) -> bool {
        self.created || !self.fields.is_empty()
    }
}

/// How many changed fields one object lists before it says "and N more".
const MAX_FIELDS: usize = 12;

/// Applies `object` (from `file`) to the snapshot.
pub(crate) fn apply(snapshot: &mut Snapshot, file: &str, object: &Object) -> Result<Applied, String> {
    let mut applied = Applied { object: object.id(), file: file.to_owned(), ..Applied::default() };
    match object {
        Object::NodePool(pool) => node_pool(snapshot, pool, &mut applied),
        Object::NodeClass(class) => node_class(snapshot, class, &mut applied),
        Object::Pdb(pdb) => self::pdb(snapshot, pdb, &mut applied),
        Object::Workload { kind, workload } => self::workload(snapshot, *kind, workload, &mut applied)?,
        Object::Pod(pod) => self::pod(snapshot, pod, &mut applied),
    }
    Ok(applied)
}

/// The order objects are applied in: what pods land on first, then pods, then the budgets
/// over them (recounted from the pods they select once those are final).
pub(crate) fn order(object: &Object) -> u8 {
    match object {
        Object::NodeClass(_) => 0,
        Object::NodePool(_) => 1,
        Object::Workload { .. } => 2,
        Object::Pod(_) => 3,
        Object::Pdb(_) => 4,
    }
}

fn node_pool(snapshot: &mut Snapshot, new: &NodePool, applied: &mut Applied) {
    if let Some(old) = snapshot.node_pools.iter_mut().find(|p| p.metadata.name == new.metadata.name) {
        applied.fields = changed_fields(&(&old.metadata.labels, &old.spec), &(&new.metadata.labels, &new.spec));
        old.spec = new.spec.clone();
        old.metadata.labels.clone_from(&new.metadata.labels);
        old.metadata.annotations.clone_from(&new.metadata.annotations);
    } else {
        let mut pool = new.clone();
        let class = new.spec.template.spec.node_class_ref.as_ref().and_then(|r| r.get("name")?.as_str());
        let class_ready = class.is_some_and(|name| snapshot.node_classes.iter().any(|c| c.metadata.name == name));
        // Karpenter marks a NodePool Ready once its NodeClass is (nodepool readiness
        // controller); a pool naming no known class would never launch.
        pool.status.conditions = vec![ready(class_ready)];
        if !class_ready {
            applied.notes.push(format!(
                "its EC2NodeClass {} is not in the cluster: Karpenter would not mark the NodePool Ready",
                class.unwrap_or("(none)")
            ));
        }
        applied.created = true;
        snapshot.node_pools.push(pool);
    }
}

fn node_class(snapshot: &mut Snapshot, new: &NodeClass, applied: &mut Applied) {
    if let Some(old) = snapshot.node_classes.iter_mut().find(|c| c.metadata.name == new.metadata.name) {
        applied.fields = changed_fields(&old.spec, &new.spec);
        old.spec = new.spec.clone();
    } else {
        let mut class = new.clone();
        // The provider resolves subnets, security groups and AMIs before it says Ready; a
        // manifest has no status, so the replay takes it as resolved, and says so.
        class.status = serde_json::json!({ "conditions": [{ "type": "Ready", "status": "True" }] });
        applied.notes.push("taken as Ready (its subnets, security groups and AMIs resolve)".into());
        applied.created = true;
        snapshot.node_classes.push(class);
    }
}

fn ready(on: bool) -> Condition {
    Condition { type_: "Ready".into(), status: if on { "True" } else { "False" }.into(), ..Condition::default() }
}

fn pdb(snapshot: &mut Snapshot, new: &PodDisruptionBudget, applied: &mut Applied) {
    let key = new.metadata.key();
    let mut budget = new.clone();
    budget.status = crate::snapshot::PdbStatus::default();
    if let Some(i) = snapshot.pdbs.iter().position(|p| p.metadata.key() == key) {
        applied.fields = changed_fields(&snapshot.pdbs[i].spec, &new.spec);
        snapshot.pdbs[i] = budget;
    } else {
        applied.created = true;
        snapshot.pdbs.push(budget);
    }
    let i = snapshot.pdbs.iter().position(|p| p.metadata.key() == key).unwrap_or_default();
    recount_from_pods(snapshot, i);
}

/// The status the disruption controller writes for PDB `i`, from the pods it selects
/// (kubernetes `pkg/controller/disruption/disruption.go` `trySync`: `expectedCount` from the
/// pods' controllers, which a snapshot's pods stand for; `currentHealthy` the Ready ones).
pub(crate) fn recount_from_pods(snapshot: &mut Snapshot, i: usize) {
    let pdb = &snapshot.pdbs[i];
    let ns = pdb.metadata.namespace();
    let selected: Vec<&Pod> = snapshot
        .pods
        .iter()
        .filter(|p| p.metadata.namespace() == ns && p.metadata.deletion_timestamp.is_none())
        .filter(|p| !matches!(p.status.phase.as_deref(), Some("Succeeded" | "Failed")))
        .filter(|p| selector_matches(pdb.spec.selector.as_ref(), &p.metadata.labels))
        .collect();
    let expected = i32::try_from(selected.len()).unwrap_or(i32::MAX);
    let healthy =
        i32::try_from(selected.iter().filter(|p| is_true(&p.status.conditions, "Ready")).count()).unwrap_or(i32::MAX);
    let rule = Rule::of(&pdb.spec);
    let status = &mut snapshot.pdbs[i].status;
    status.expected_pods = expected;
    status.current_healthy = healthy;
    status.desired_healthy = rule.desired_healthy(expected);
    status.disruptions_allowed = rule.disruptions_allowed(expected, healthy);
}

fn workload(snapshot: &mut Snapshot, kind: WorkloadKind, new: &Workload, applied: &mut Applied) -> Result<(), String> {
    let (ns, name) = (new.metadata.namespace().to_owned(), new.metadata.name.clone());
    let items = workloads_of(snapshot, kind);
    let existing = items.iter().position(|w| w.metadata.namespace() == ns && w.metadata.name == name);
    let mut lean = new.clone();
    lean.spec.template.spec.containers.iter_mut().for_each(|c| c.env.clear());
    match existing {
        Some(i) => items[i] = lean,
        None => items.push(lean),
    }
    let pods = pods_of(snapshot, kind, &ns, &name);
    if kind == WorkloadKind::DaemonSet {
        // A DaemonSet's template is what the simulation's new nodes carry (daemon overhead);
        // its pods on existing nodes keep their requests until they are rolled, which the
        // replay does not simulate.
        applied.created = existing.is_none();
        if existing.is_some() {
            applied.fields =
                pods.first().map(|p| template_changes(snapshot, &new.spec.template, p)).unwrap_or_default();
        }
        if !pods.is_empty() && !applied.fields.is_empty() {
            applied.notes.push(
                "its pods on existing nodes keep their old requests (a DaemonSet rollout is not replayed)".into(),
            );
        }
        if existing.is_none() {
            applied.notes.push("new nodes carry its pods; pods on existing nodes are not added".into());
        }
        return Ok(());
    }
    let wanted = usize::try_from(new.spec.replicas.unwrap_or(1)).unwrap_or(0);
    if pods.is_empty() {
        applied.created = existing.is_none();
        applied.fields = if existing.is_some() { vec!["spec.replicas".into()] } else { Vec::new() };
        applied.new_pods = create_pods(snapshot, kind, new, wanted);
        return Ok(());
    }
    let template = pods.first().map(|p| template_changes(snapshot, &new.spec.template, p)).unwrap_or_default();
    if pods.len() != wanted {
        applied.fields.push("spec.replicas".into());
    }
    applied.fields.extend(template.iter().cloned());
    if !template.is_empty() {
        let rolled = roll(snapshot, &pods, &new.spec.template);
        applied.notes.push(format!("its {} pods are rolled to the new template", rolled.len()));
        applied.new_pods.extend(rolled);
    }
    if pods.len() != wanted {
        let added = crate::whatif::scale_workload(snapshot, kind.as_str(), &ns, &name, wanted)?;
        applied.new_pods.retain(|p| snapshot.pods.iter().any(|q| q.metadata.key() == *p));
        applied.new_pods.extend(added);
    }
    Ok(())
}

fn workloads_of(snapshot: &mut Snapshot, kind: WorkloadKind) -> &mut Vec<Workload> {
    match kind {
        WorkloadKind::Deployment => &mut snapshot.deployments,
        WorkloadKind::StatefulSet => &mut snapshot.stateful_sets,
        WorkloadKind::ReplicaSet => &mut snapshot.replica_sets,
        WorkloadKind::DaemonSet => &mut snapshot.daemon_sets,
    }
}

/// The keys of the workload's pods, by name.
fn pods_of(snapshot: &Snapshot, kind: WorkloadKind, ns: &str, name: &str) -> Vec<String> {
    let mut pods = crate::forecast::impact::pods_of_workload(snapshot, &format!("{}/{ns}/{name}", kind.as_str()));
    pods.sort();
    pods
}

/// Labels the controllers add to their pods, which a template never carries.
const CONTROLLER_LABELS: [&str; 4] = [
    "pod-template-hash",
    "controller-revision-hash",
    "statefulset.kubernetes.io/pod-name",
    "apps.kubernetes.io/pod-index",
];

/// Annotations on a pod that the replay reads.
const READ_ANNOTATIONS: [&str; 2] = ["karpenter.sh/do-not-disrupt", "controller.kubernetes.io/pod-deletion-cost"];

/// The fields of `template` that differ from pod `pod_key` in what the scheduling simulation
/// and the disruption gates read, as `spec.template.…` paths. What admission adds to every pod
/// (the not-ready/unreachable tolerations, the service account token volume, a defaulted
/// termination grace period, the priority value of a class) is not counted as a change; a
/// LimitRange's defaulted requests would be (the snapshot does not carry LimitRanges).
fn template_changes(snapshot: &Snapshot, template: &crate::snapshot::PodTemplate, pod_key: &str) -> Vec<String> {
    snapshot
        .pods
        .iter()
        .find(|p| p.metadata.key() == pod_key)
        .map(|p| template_changes_of(template, p))
        .unwrap_or_default()
}

/// The scheduling-relevant view of a pod spec, with what admission adds taken out.
fn comparable(spec: &PodSpec) -> Value {
    let mut spec = spec.clone();
    spec.node_name = None;
    spec.priority = None;
    spec.overhead = crate::snapshot::Resources::default();
    spec.termination_grace_period_seconds = Some(spec.termination_grace_period_seconds.unwrap_or(30));
    spec.tolerations.retain(|t| {
        let default_key =
            matches!(t.key.as_deref(), Some("node.kubernetes.io/not-ready" | "node.kubernetes.io/unreachable"));
        !(default_key && t.effect.as_deref() == Some("NoExecute") && t.toleration_seconds == Some(300))
    });
    spec.volumes.retain(|v| !v.name.starts_with("kube-api-access-"));
    for c in spec.containers.iter_mut().chain(spec.init_containers.iter_mut()) {
        c.env.clear();
    }
    serde_json::to_value(&spec).unwrap_or(Value::Null)
}

/// The fields of the template that differ from one of the workload's pods.
fn template_changes_of(template: &crate::snapshot::PodTemplate, pod: &Pod) -> Vec<String> {
    let mut fields = changed_paths_prefixed("spec.template.spec", &comparable(&pod.spec), &comparable(&template.spec));
    let labels = |m: &crate::snapshot::StringMap| -> Value {
        serde_json::to_value(
            m.iter()
                .filter(|(k, _)| !CONTROLLER_LABELS.contains(&k.as_str()))
                .collect::<std::collections::BTreeMap<_, _>>(),
        )
        .unwrap_or(Value::Null)
    };
    fields.extend(changed_paths_prefixed(
        "spec.template.metadata.labels",
        &labels(&pod.metadata.labels),
        &labels(&template.metadata.labels),
    ));
    let read = |m: &crate::snapshot::StringMap| -> Value {
        serde_json::to_value(
            m.iter()
                .filter(|(k, _)| READ_ANNOTATIONS.contains(&k.as_str()))
                .collect::<std::collections::BTreeMap<_, _>>(),
        )
        .unwrap_or(Value::Null)
    };
    fields.extend(changed_paths_prefixed(
        "spec.template.metadata.annotations",
        &read(&pod.metadata.annotations),
        &read(&template.metadata.annotations),
    ));
    cap(fields)
}

/// Replaces each pod by a pending one with the template's labels, read annotations and spec
/// (its owner, namespace and controller labels kept, so it stays the same workload's).
fn roll(snapshot: &mut Snapshot, pods: &[String], template: &crate::snapshot::PodTemplate) -> Vec<String> {
    let old: BTreeSet<&String> = pods.iter().collect();
    let mut rolled = Vec::new();
    let mut fresh = Vec::new();
    for pod in snapshot.pods.iter().filter(|p| old.contains(&p.metadata.key())) {
        let mut new = pod.clone();
        new.metadata.name = unique_name(snapshot, &format!("{}-rolled", pod.metadata.name));
        new.metadata.uid = String::new();
        let kept: Vec<(String, String)> = pod
            .metadata
            .labels
            .iter()
            .filter(|(k, _)| CONTROLLER_LABELS.contains(&k.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        new.metadata.labels = template.metadata.labels.clone();
        new.metadata.labels.extend(kept);
        for key in READ_ANNOTATIONS {
            match template.metadata.annotations.get(key) {
                Some(v) => new.metadata.annotations.insert(key.to_owned(), v.clone()),
                None => new.metadata.annotations.remove(key),
            };
        }
        new.spec = template.spec.clone();
        new.spec.containers.iter_mut().chain(new.spec.init_containers.iter_mut()).for_each(|c| c.env.clear());
        new.status = PodStatus { phase: Some("Pending".into()), ..PodStatus::default() };
        rolled.push(new.metadata.key());
        fresh.push(new);
    }
    snapshot.pods.retain(|p| !old.contains(&p.metadata.key()));
    snapshot.pods.extend(fresh);
    recount_pdbs_over(snapshot, &rolled);
    rolled
}

/// Recounts every PDB that selects one of `pods`.
fn recount_pdbs_over(snapshot: &mut Snapshot, pods: &[String]) {
    let keys: BTreeSet<&String> = pods.iter().collect();
    let over: Vec<usize> = (0..snapshot.pdbs.len())
        .filter(|&i| {
            let pdb = &snapshot.pdbs[i];
            snapshot.pods.iter().filter(|p| keys.contains(&p.metadata.key())).any(|p| {
                p.metadata.namespace() == pdb.metadata.namespace()
                    && selector_matches(pdb.spec.selector.as_ref(), &p.metadata.labels)
            })
        })
        .collect();
    for i in over {
        recount_from_pods(snapshot, i);
    }
}

/// A pod name no pod of the snapshot has yet (`base`, else `base-2`, `base-3` …).
fn unique_name(snapshot: &Snapshot, base: &str) -> String {
    let taken = |n: &str| snapshot.pods.iter().any(|p| p.metadata.name == n);
    if !taken(base) {
        return base.to_owned();
    }
    // At most one more name than there are pods can be taken.
    (2..=snapshot.pods.len() + 2).map(|i| format!("{base}-{i}")).find(|n| !taken(n)).unwrap_or_else(|| base.to_owned())
}

/// A new workload's pods, pending, owned as its controller would own them: a Deployment's
/// through a ReplicaSet named with a pod-template-hash (which `Workloads` reads back), a
/// StatefulSet's by ordinal.
fn create_pods(snapshot: &mut Snapshot, kind: WorkloadKind, workload: &Workload, replicas: usize) -> Vec<String> {
    let (ns, name) = (workload.metadata.namespace().to_owned(), workload.metadata.name.clone());
    let hash = template_hash(&workload.spec.template);
    let (owner_kind, owner_name) = match kind {
        WorkloadKind::Deployment => ("ReplicaSet", format!("{name}-{hash}")),
        other => (other.as_str(), name.clone()),
    };
    let mut keys = Vec::new();
    let pods: Vec<Pod> = (0..replicas)
        .map(|i| {
            let mut pod = Pod::default();
            pod.metadata.namespace = Some(ns.clone());
            pod.metadata.name = unique_name(
                snapshot,
                &match kind {
                    WorkloadKind::StatefulSet => format!("{name}-{i}"),
                    _ => format!("{owner_name}-new{i}"),
                },
            );
            pod.metadata.labels = workload.spec.template.metadata.labels.clone();
            if kind == WorkloadKind::Deployment {
                pod.metadata.labels.insert("pod-template-hash".into(), hash.clone());
            }
            pod.metadata.annotations = workload.spec.template.metadata.annotations.clone();
            pod.metadata.owner_references = vec![OwnerReference {
                api_version: "apps/v1".into(),
                kind: owner_kind.into(),
                name: owner_name.clone(),
                uid: String::new(),
                controller: Some(true),
            }];
            pod.spec = workload.spec.template.spec.clone();
            pod.spec.containers.iter_mut().chain(pod.spec.init_containers.iter_mut()).for_each(|c| c.env.clear());
            pod.status = PodStatus { phase: Some("Pending".into()), ..PodStatus::default() };
            pod
        })
        .collect();
    for pod in pods {
        keys.push(pod.metadata.key());
        snapshot.pods.push(pod);
    }
    recount_pdbs_over(snapshot, &keys);
    keys
}

/// Ten hex characters of the template's digest: stable for one template, as the controller's
/// `pod-template-hash` is (its own hash function differs; only the stability matters here).
fn template_hash(template: &crate::snapshot::PodTemplate) -> String {
    use sha2::Digest;
    let text = serde_json::to_string(template).unwrap_or_default();
    let digest = sha2::Sha256::digest(text.as_bytes());
    digest.iter().take(5).fold(String::new(), |mut hex, b| {
        use std::fmt::Write;
        let _ = write!(hex, "{b:02x}");
        hex
    })
}

fn pod(snapshot: &mut Snapshot, new: &Pod, applied: &mut Applied) {
    let key = new.metadata.key();
    let mut incoming = new.clone();
    incoming.spec.containers.iter_mut().chain(incoming.spec.init_containers.iter_mut()).for_each(|c| c.env.clear());
    if let Some(old) = snapshot.pods.iter_mut().find(|p| p.metadata.key() == key) {
        let node = old.spec.node_name.clone();
        applied.fields = cap(changed_paths_prefixed("spec", &comparable(&old.spec), &comparable(&incoming.spec))
            .into_iter()
            .chain(changed_paths_prefixed(
                "metadata.labels",
                &serde_json::to_value(&old.metadata.labels).unwrap_or(Value::Null),
                &serde_json::to_value(&incoming.metadata.labels).unwrap_or(Value::Null),
            ))
            .chain(changed_paths_prefixed(
                "metadata.annotations",
                &serde_json::to_value(&old.metadata.annotations).unwrap_or(Value::Null),
                &serde_json::to_value(&incoming.metadata.annotations).unwrap_or(Value::Null),
            ))
            .collect());
        old.metadata.labels = incoming.metadata.labels;
        old.metadata.annotations = incoming.metadata.annotations;
        old.spec = incoming.spec;
        // A bound pod's node cannot change (the API server refuses it): it stays where it runs.
        old.spec.node_name = node;
    } else {
        incoming.spec.node_name = None;
        incoming.status = PodStatus { phase: Some("Pending".into()), ..PodStatus::default() };
        applied.created = true;
        applied.new_pods.push(key);
        snapshot.pods.push(incoming);
        recount_pdbs_over(snapshot, &applied.new_pods);
    }
}

/// The paths at which two serialisations differ, under `prefix`.
fn changed_fields<T: serde::Serialize>(old: &T, new: &T) -> Vec<String> {
    let (old, new) =
        (serde_json::to_value(old).unwrap_or(Value::Null), serde_json::to_value(new).unwrap_or(Value::Null));
    // (labels, spec) pairs serialise as a two-element array: name the halves.
    match (&old, &new) {
        (Value::Array(a), Value::Array(b)) if a.len() == 2 && b.len() == 2 => {
            cap(changed_paths_prefixed("metadata.labels", &a[0], &b[0])
                .into_iter()
                .chain(changed_paths_prefixed("spec", &a[1], &b[1]))
                .collect())
        }
        _ => cap(changed_paths_prefixed("spec", &old, &new)),
    }
}

fn cap(mut fields: Vec<String>) -> Vec<String> {
    if fields.len() > MAX_FIELDS {
        let more = fields.len() - (MAX_FIELDS - 1);
        fields.truncate(MAX_FIELDS - 1);
        fields.push(format!("and {more} more"));
    }
    fields
}

/// Leaf paths where `old` and `new` differ (`a.b[0].c`); a key only one side has is a change
/// at that key.
fn changed_paths_prefixed(prefix: &str, old: &Value, new: &Value) -> Vec<String> {
    let mut out = Vec::new();
    walk(prefix, old, new, &mut out);
    out
}

fn walk(path: &str, old: &Value, new: &Value, out: &mut Vec<String>) {
    if old == new {
        return;
    }
    match (old, new) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for k in keys {
                let null = Value::Null;
                let child = if k.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
                    format!("{path}.{k}")
                } else {
                    format!("{path}[{k:?}]")
                };
                walk(&child, a.get(k).unwrap_or(&null), b.get(k).unwrap_or(&null), out);
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                walk(&format!("{path}[{i}]"), x, y, out);
            }
        }
        _ => out.push(path.to_owned()),
    }
}

#[cfg(test)]
mod tests {
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

    use super::*;
    use crate::testing::demo;

    fn deployment(name: &str, replicas: i32, cpu: &str) -> Object {
        let mut w = Workload::default();
        w.metadata.name = name.into();
        w.metadata.namespace = Some("tenant-a".into());
        w.spec.replicas = Some(replicas);
        w.spec.template.metadata.labels.insert("app".into(), name.into());
        let mut c = crate::snapshot::Container { name: "app".into(), ..Default::default() };
        c.resources.requests.insert("cpu".into(), cpu.parse().expect("quantity"));
        c.resources.requests.insert("memory".into(), "512Mi".parse().expect("quantity"));
        w.spec.template.spec.containers.push(c);
        Object::Workload { kind: WorkloadKind::Deployment, workload: Box::new(w) }
    }

    #[test]
    fn the_same_template_with_more_replicas_scales_without_a_rollout() {
        let mut s = demo();
        let applied = apply(&mut s, "d.yaml", &deployment("app-b", 2, "250m")).expect("applies");
        assert_eq!(applied.fields, ["spec.replicas"]);
        assert_eq!(applied.new_pods.len(), 1);
        assert!(applied.notes.is_empty(), "{:?}", applied.notes);
        let pdb = s.pdbs.iter().find(|p| p.metadata.key() == "tenant-a/app-b").expect("pdb");
        assert_eq!(pdb.status.expected_pods, 2, "the budget counts the new pod");
    }

    #[test]
    fn a_template_that_asks_for_more_rolls_every_pod() {
        let mut s = demo();
        let applied = apply(&mut s, "d.yaml", &deployment("app-b", 1, "500m")).expect("applies");
        assert!(applied.fields.iter().any(|f| f.contains("resources.requests.cpu")), "{:?}", applied.fields);
        assert_eq!(applied.new_pods.len(), 1, "its one pod is replaced");
        let new = s.pods.iter().find(|p| p.metadata.key() == applied.new_pods[0]).expect("the new pod");
        assert!(new.spec.node_name.is_none(), "pending until placed");
        assert_eq!(
            new.metadata.labels.get("pod-template-hash").map(String::as_str),
            Some("7c9d"),
            "the same workload's"
        );
        assert!(!s.pods.iter().any(|p| p.metadata.name == "app-b-7c9d-x1"), "the old pod is gone");
    }

    #[test]
    fn a_new_workload_brings_pending_pods_its_pdb_counts() {
        let mut s = demo();
        let applied = apply(&mut s, "d.yaml", &deployment("app-z", 3, "100m")).expect("applies");
        assert!(applied.created);
        assert_eq!(applied.new_pods.len(), 3);
        let workloads = crate::forecast::impact::Workloads::new(&s, jiff::SignedDuration::ZERO);
        assert!(workloads.names.iter().any(|n| n == "Deployment/tenant-a/app-z"), "owned as a Deployment's pods");
        let mut pdb = PodDisruptionBudget::default();
        pdb.metadata.name = "app-z".into();
        pdb.metadata.namespace = Some("tenant-a".into());
        pdb.spec.max_unavailable = Some(IntOrString::Int(1));
        pdb.spec.selector = Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector {
            match_labels: Some([("app".to_owned(), "app-z".to_owned())].into()),
            ..Default::default()
        });
        apply(&mut s, "p.yaml", &Object::Pdb(Box::new(pdb))).expect("applies");
        let pdb = s.pdbs.iter().find(|p| p.metadata.key() == "tenant-a/app-z").expect("added");
        assert_eq!((pdb.status.expected_pods, pdb.status.current_healthy, pdb.status.disruptions_allowed), (3, 0, 0));
    }

    #[test]
    fn a_pdb_replaced_is_recounted_and_its_fields_named() {
        let mut s = demo();
        let mut pdb = s.pdbs.iter().find(|p| p.metadata.key() == "tenant-a/app-b").cloned().expect("pdb");
        pdb.spec.max_unavailable = None;
        pdb.spec.min_available = Some(IntOrString::Int(1));
        let applied = apply(&mut s, "p.yaml", &Object::Pdb(Box::new(pdb))).expect("applies");
        assert_eq!(applied.fields, ["spec.maxUnavailable", "spec.minAvailable"]);
        let pdb = s.pdbs.iter().find(|p| p.metadata.key() == "tenant-a/app-b").expect("pdb");
        assert_eq!(pdb.status.disruptions_allowed, 0, "minAvailable 1 of 1 allows nothing");
    }

    #[test]
    fn an_unchanged_object_changes_nothing() {
        let mut s = demo();
        let pool = s.node_pools[0].clone();
        let applied = apply(&mut s, "n.yaml", &Object::NodePool(Box::new(pool))).expect("applies");
        assert!(!applied.changes(), "{applied:?}");
    }

    #[test]
    fn changed_paths_name_leaves() {
        let a = serde_json::json!({"a": {"b": 1, "c": [1, 2]}, "d": "x"});
        let b = serde_json::json!({"a": {"b": 2, "c": [1, 3]}, "e": "y"});
        assert_eq!(changed_paths_prefixed("spec", &a, &b), ["spec.a.b", "spec.a.c[1]", "spec.d", "spec.e"]);
    }
}
