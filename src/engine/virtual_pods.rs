//! Capacity buffers' virtual pods: what Karpenter (v1.14.0+, `CapacityBuffer` gate on) adds to
//! every scheduling pass's pending pods, so that room is kept for them and a node they fill is
//! not empty.
//!
//! Mirrors kubernetes-sigs/karpenter v1.14.1 `pkg/state/virtualpods/utilities.go`
//! (`isBufferReadyForProvisioning`, `BuildVirtualPods`, `sanitizeVirtualPodSpec`) and v1.14.0
//! `pkg/controllers/provisioning/buffers.go` (`listBuffersReadyForProvisioning`,
//! `buildVirtualPods`). Built once per snapshot by `prepare`, into `Snapshot::virtual_pods`.
//!
//! Approximate: a buffer's `scalableRef` names a workload whose pod template a snapshot does
//! not keep (`snapshot/decode.rs` `lean_workload`), so its template is read from the
//! workload's newest pod (its labels without the controllers' own hash and index labels).

use jiff::Timestamp;

use crate::rules::Rule;
use crate::snapshot::{is_true, CapacityBuffer, Condition, ObjectMeta, Pod, PodSpec, PodStatus, Snapshot, StringMap};

/// `FakePodAnnotationKey`: what marks a pod as a buffer's (`IsVirtualPod`).
const FAKE_POD_ANNOTATION: &str = "karpenter.sh/capacity-buffer-fake-pod";
/// v1.14.0's labels and v1.14.1's annotations naming the buffer.
const BUFFER_NAME_KEY: &str = "karpenter.sh/capacity-buffer-name";
const BUFFER_NAMESPACE_KEY: &str = "karpenter.sh/capacity-buffer-namespace";
/// Labels a workload controller adds to each pod, which its template does not hold.
const CONTROLLER_POD_LABELS: [&str; 4] = [
    "pod-template-hash",
    "controller-revision-hash",
    "statefulset.kubernetes.io/pod-name",
    "apps.kubernetes.io/pod-index",
];

/// The most virtual pods the replay builds for a snapshot; past it a buffer is cut short, with a
/// note. Every simulation schedules them all, and those that fit no node each try every
/// NodeClaim the others opened, so the cost grows with their square: on bigcluster 1,000 nodes
/// (`plan`, release build) 100 virtual pods cost nothing measurable, 1,000 add 1.3 s of CPU,
/// 4,000 add 24 s, and 2^31 − 1 (a hostile or mistaken `status.replicas`) would never end.
/// Buffers are sized in tens to hundreds of pods.
const MAX_VIRTUAL_PODS: usize = 2_000;

/// The virtual pods of a snapshot, and what the user should know about the buffers.
#[derive(Debug, Default)]
pub(crate) struct VirtualPods {
    pub pods: Vec<Pod>,
    /// One line per buffer that was skipped or approximated.
    pub notes: Vec<String>,
}

/// Every ready buffer's virtual pods, in (namespace, name) order of the buffers; none when the
/// replayed version or its `CapacityBuffer` gate does not simulate them.
pub(crate) fn build(snapshot: &Snapshot, now: Timestamp) -> VirtualPods {
    let mut out = VirtualPods::default();
    if !snapshot.info.rules.has(Rule::CapacityBufferPods) || !snapshot.feature_gate("CapacityBuffer") {
        return out;
    }
    let template_labels = snapshot.info.rules.has(Rule::VirtualPodTemplateLabels);
    for buffer in snapshot.capacity_buffers.iter().filter(|b| is_ready(b)) {
        let key = buffer.metadata.key();
        match resolve(snapshot, buffer) {
            Ok((labels, spec, note)) => {
                out.notes.extend(note.map(|n| format!("CapacityBuffer {key}: {n}")));
                let room = MAX_VIRTUAL_PODS - out.pods.len();
                let wanted = usize::try_from(buffer.status.replicas.unwrap_or(0)).unwrap_or(0);
                if wanted > room {
                    let simulated = if room == 0 { "none".to_owned() } else { format!("only {room}") };
                    out.notes.push(format!(
                        "CapacityBuffer {key}: {simulated} of its {wanted} virtual pods are simulated (the replay \
                         builds at most {MAX_VIRTUAL_PODS} in all)"
                    ));
                }
                out.pods.extend(materialize(buffer, &labels, &spec, template_labels, now, room));
            }
            Err(why) => out.notes.push(format!("CapacityBuffer {key} is skipped, as Karpenter skips it: {why}")),
        }
    }
    out
}

/// `isBufferReadyForProvisioning`: `ReadyForProvisioning=True`, `status.replicas > 0` and a
/// template reference in the spec.
fn is_ready(buffer: &CapacityBuffer) -> bool {
    is_true(&buffer.status.conditions, "ReadyForProvisioning")
        && buffer.status.replicas.is_some_and(|r| r > 0)
        && (buffer.spec.pod_template_ref.is_some() || buffer.spec.scalable_ref.is_some())
}

/// The buffer's pod template from its spec's reference (`apps.ResolveCapacityBuffer`): its
/// labels and spec, and a note when it is approximated.
fn resolve(snapshot: &Snapshot, buffer: &CapacityBuffer) -> Result<(StringMap, PodSpec, Option<String>), String> {
    let namespace = buffer.metadata.namespace();
    if let Some(reference) = &buffer.spec.pod_template_ref {
        return snapshot
            .pod_templates
            .iter()
            .find(|t| t.metadata.namespace() == namespace && t.metadata.name == reference.name)
            .map(|t| (t.template.metadata.labels.clone(), t.template.spec.clone(), None))
            .ok_or_else(|| format!("PodTemplate {namespace}/{} not found", reference.name));
    }
    let Some(reference) = &buffer.spec.scalable_ref else { return Err("no template reference".to_owned()) };
    if !matches!(reference.api_group.as_str(), "" | "apps") {
        return Err(format!("scalableRef apiGroup {:?} is not apps", reference.api_group));
    }
    let owners: Vec<(&str, &str)> = match reference.kind.as_str() {
        "StatefulSet" | "ReplicaSet" => vec![(reference.kind.as_str(), reference.name.as_str())],
        "Deployment" => snapshot
            .replica_sets
            .iter()
            .filter(|rs| rs.metadata.namespace() == namespace && owned_by(&rs.metadata, "Deployment", &reference.name))
            .map(|rs| ("ReplicaSet", rs.metadata.name.as_str()))
            .collect(),
        other => return Err(format!("scalableRef kind {other:?} is not a Deployment, StatefulSet or ReplicaSet")),
    };
    let newest = snapshot
        .pods
        .iter()
        .filter(|p| p.metadata.namespace() == namespace)
        .filter(|p| owners.iter().any(|(kind, name)| owned_by(&p.metadata, kind, name)))
        .max_by(|a, b| {
            (a.metadata.creation_timestamp, &b.metadata.name).cmp(&(b.metadata.creation_timestamp, &a.metadata.name))
        })
        .ok_or_else(|| {
            format!("{} {namespace}/{} has no pod to read its template from", reference.kind, reference.name)
        })?;
    let mut labels = newest.metadata.labels.clone();
    labels.retain(|k, _| !CONTROLLER_POD_LABELS.contains(&k.as_str()));
    let note = format!(
        "the template of {} {} is read from its pod {} (a snapshot keeps no workload template)",
        reference.kind, reference.name, newest.metadata.name
    );
    Ok((labels, newest.spec.clone(), Some(note)))
}

fn owned_by(meta: &ObjectMeta, kind: &str, name: &str) -> bool {
    meta.owner_references.iter().any(|o| o.kind == kind && o.name == name)
}

/// `BuildVirtualPods`: `status.replicas` copies of the template, named
/// `capacity-buffer-<buffer>-<i>` from 1, unschedulable (`PodScheduled=False`) with no phase.
fn materialize(
    buffer: &CapacityBuffer,
    labels: &StringMap,
    spec: &PodSpec,
    template_labels: bool,
    now: Timestamp,
    at_most: usize,
) -> Vec<Pod> {
    let count = usize::try_from(buffer.status.replicas.unwrap_or(0)).unwrap_or(0).min(at_most);
    let namespace = buffer.metadata.namespace().to_owned();
    let name_keys = || {
        StringMap::from([
            (BUFFER_NAME_KEY.to_owned(), buffer.metadata.name.clone()),
            (BUFFER_NAMESPACE_KEY.to_owned(), namespace.clone()),
        ])
    };
    // v1.14.0 labels the pods with the buffer's name; v1.14.1 (#3238) carries the template's
    // labels so spreads and affinities see them as the workload's, and names the buffer in
    // annotations.
    let (labels, mut annotations) =
        if template_labels { (labels.clone(), name_keys()) } else { (name_keys(), StringMap::new()) };
    annotations.insert(FAKE_POD_ANNOTATION.to_owned(), "true".to_owned());
    let spec = sanitize(spec);
    (1..=count)
        .map(|i| Pod {
            metadata: ObjectMeta {
                name: format!("capacity-buffer-{}-{i}", buffer.metadata.name),
                namespace: Some(namespace.clone()),
                uid: format!("{}-{i}", buffer.metadata.uid),
                labels: labels.clone(),
                annotations: annotations.clone(),
                creation_timestamp: Some(now),
                ..ObjectMeta::default()
            },
            spec: spec.clone(),
            status: PodStatus {
                conditions: vec![Condition {
                    type_: "PodScheduled".to_owned(),
                    status: "False".to_owned(),
                    reason: Some("Unschedulable".to_owned()),
                    message: None,
                    last_transition_time: None,
                }],
                ..PodStatus::default()
            },
        })
        .collect()
}

/// `sanitizeVirtualPodSpec`: no node name, no claim-backed or ephemeral volume, the lowest
/// priority.
fn sanitize(spec: &PodSpec) -> PodSpec {
    let mut spec = spec.clone();
    spec.node_name = None;
    spec.volumes.retain(|v| v.persistent_volume_claim.is_none() && v.ephemeral.is_none());
    spec.priority = Some(i32::MIN);
    spec
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::rules::{CoreVersion, RuleSet};
    use crate::testing::{now, snapshot};

    fn buffer(name: &str, replicas: i32, ready: bool) -> serde_json::Value {
        json!({"apiVersion": "autoscaling.x-k8s.io/v1beta1", "kind": "CapacityBuffer",
               "metadata": {"name": name, "namespace": "team", "uid": format!("uid-{name}")},
               "spec": {"podTemplateRef": {"name": "tpl"}, "replicas": 9},
               "status": {"replicas": replicas,
                          "conditions": [{"type": "ReadyForProvisioning", "status": if ready { "True" } else { "False" }}]}})
    }

    fn template() -> serde_json::Value {
        json!({"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": "tpl", "namespace": "team"},
               "template": {"metadata": {"labels": {"app": "web"}},
                            "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}],
                                     "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "d"}}]}}})
    }

    fn built(version: CoreVersion, gate: bool, objects: Vec<serde_json::Value>) -> VirtualPods {
        let mut s = snapshot(objects);
        s.info.rules = RuleSet::at(version);
        s.info.feature_gates.insert("CapacityBuffer".to_owned(), gate);
        build(&s, now())
    }

    #[test]
    fn a_ready_buffer_gives_status_replicas_pods_of_its_template() {
        let v = built(CoreVersion::new(1, 14, 1), true, vec![buffer("b", 2, true), template()]);
        let names: Vec<&str> = v.pods.iter().map(|p| p.metadata.name.as_str()).collect();
        assert_eq!(names, ["capacity-buffer-b-1", "capacity-buffer-b-2"]);
        let pod = &v.pods[0];
        assert_eq!(pod.metadata.uid, "uid-b-1");
        assert_eq!(pod.metadata.labels.get("app").map(String::as_str), Some("web"));
        assert_eq!(pod.metadata.annotations.get(FAKE_POD_ANNOTATION).map(String::as_str), Some("true"));
        assert!(pod.spec.volumes.is_empty(), "the claim-backed volume is dropped");
        assert_eq!(pod.status.phase, None);
    }

    #[test]
    fn v1_14_0_labels_the_pods_with_the_buffer_not_the_template() {
        let v = built(CoreVersion::new(1, 14, 0), true, vec![buffer("b", 1, true), template()]);
        let labels = &v.pods[0].metadata.labels;
        assert_eq!(labels.get("app"), None);
        assert_eq!(labels.get(BUFFER_NAME_KEY).map(String::as_str), Some("b"));
    }

    #[test]
    fn a_scalable_ref_reads_its_workloads_newest_pod_without_the_controllers_labels() {
        let buffer = json!({"apiVersion": "autoscaling.x-k8s.io/v1beta1", "kind": "CapacityBuffer",
            "metadata": {"name": "w", "namespace": "team", "uid": "uid-w"},
            "spec": {"scalableRef": {"kind": "Deployment", "name": "web"}},
            "status": {"replicas": 1, "conditions": [{"type": "ReadyForProvisioning", "status": "True"}]}});
        let rs = json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": "web-5d8", "namespace": "team",
                         "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "web", "controller": true}]},
            "spec": {"template": {"spec": {"containers": [{"name": "c"}]}}}});
        let pod = |name: &str, created: &str, cpu: &str| {
            json!({"apiVersion": "v1", "kind": "Pod",
                   "metadata": {"name": name, "namespace": "team", "creationTimestamp": created,
                                "labels": {"app": "web", "pod-template-hash": "5d8"},
                                "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-5d8", "controller": true}]},
                   "spec": {"nodeName": "n", "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]},
                   "status": {"phase": "Running"}})
        };
        let v = built(
            CoreVersion::new(1, 14, 1),
            true,
            vec![buffer, rs, pod("web-old", "2026-11-29T08:00:00Z", "1"), pod("web-new", "2026-11-29T09:00:00Z", "2")],
        );
        let p = &v.pods[0];
        assert_eq!(p.spec.node_name, None);
        assert_eq!(p.spec.containers[0].resources.requests.get("cpu").map(ToString::to_string).as_deref(), Some("2"));
        assert_eq!(p.metadata.labels.keys().collect::<Vec<_>>(), ["app"], "pod-template-hash is the controller's");
        assert!(v.notes[0].contains("read from its pod web-new"), "{:?}", v.notes);
        let other_kind = json!({"apiVersion": "autoscaling.x-k8s.io/v1beta1", "kind": "CapacityBuffer",
            "metadata": {"name": "j", "namespace": "team", "uid": "uid-j"},
            "spec": {"scalableRef": {"apiGroup": "batch", "kind": "Job", "name": "j"}},
            "status": {"replicas": 1, "conditions": [{"type": "ReadyForProvisioning", "status": "True"}]}});
        let skipped = built(CoreVersion::new(1, 14, 1), true, vec![other_kind]);
        assert!(skipped.pods.is_empty() && skipped.notes[0].contains("is not apps"), "{:?}", skipped.notes);
    }

    #[test]
    fn a_huge_replica_count_is_cut_short_with_a_note() {
        let v = built(CoreVersion::new(1, 14, 1), true, vec![buffer("b", i32::MAX, true), template()]);
        assert_eq!(v.pods.len(), MAX_VIRTUAL_PODS);
        assert!(v.notes.iter().any(|n| n.contains("only 2000 of its 2147483647")), "{:?}", v.notes);
    }

    #[test]
    fn nothing_without_the_gate_the_version_readiness_or_the_template() {
        assert!(built(CoreVersion::new(1, 14, 1), false, vec![buffer("b", 2, true), template()]).pods.is_empty());
        assert!(built(CoreVersion::new(1, 13, 0), true, vec![buffer("b", 2, true), template()]).pods.is_empty());
        assert!(built(CoreVersion::new(1, 14, 1), true, vec![buffer("b", 2, false), template()]).pods.is_empty());
        assert!(built(CoreVersion::new(1, 14, 1), true, vec![buffer("b", 0, true), template()]).pods.is_empty());
        let missing = built(CoreVersion::new(1, 14, 1), true, vec![buffer("b", 2, true)]);
        assert!(missing.pods.is_empty());
        assert!(missing.notes[0].contains("PodTemplate team/tpl not found"), "{:?}", missing.notes);
    }
}
