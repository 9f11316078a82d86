//! Expectations from karpenter `volumetopology.go` and its suite
//! (`pkg/controllers/provisioning/scheduling/volumetopology_test.go`).

use serde_json::{json, Value};

use super::{with_volumes, VolumeIndex};
use crate::engine::labels::ZONE;
use crate::engine::scheduling::requirements::{Requirement, Requirements};
use crate::snapshot::{Pod, Snapshot};

fn snapshot(claims: &[Value], volumes: &[Value], classes: &[Value]) -> Snapshot {
    Snapshot {
        pvcs: claims.iter().map(|v| serde_json::from_value(v.clone()).expect("pvc")).collect(),
        pvs: volumes.iter().map(|v| serde_json::from_value(v.clone()).expect("pv")).collect(),
        storage_classes: classes.iter().map(|v| serde_json::from_value(v.clone()).expect("sc")).collect(),
        ..Snapshot::default()
    }
}

fn pvc(name: &str, volume: Option<&str>, class: Option<&str>) -> Value {
    json!({"metadata": {"name": name, "namespace": "ns"}, "spec": {"volumeName": volume, "storageClassName": class}})
}

fn zone_term(zones: &[&str]) -> Value {
    json!({"matchExpressions": [{"key": ZONE, "operator": "In", "values": zones}]})
}

fn pod(volumes: &Value) -> Pod {
    serde_json::from_value(json!({"metadata": {"name": "web-0", "namespace": "ns"}, "spec": {"volumes": volumes}}))
        .expect("pod")
}

fn zones(alternatives: &[Requirements]) -> Vec<Vec<String>> {
    alternatives.iter().map(|r| r.get(ZONE).map(|z| z.values.iter().cloned().collect()).unwrap_or_default()).collect()
}

#[test]
fn every_pv_node_affinity_term_is_an_alternative() {
    // getPersistentVolumeRequirements: "Each NodeSelectorTerm is OR'd — each becomes a separate alternative".
    let pv = json!({"metadata": {"name": "pv"}, "spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": [
        zone_term(&["a"]), zone_term(&["b"])]}}}});
    let s = snapshot(&[pvc("data", Some("pv"), None)], &[pv], &[]);
    let p = pod(&json!([{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]));
    assert_eq!(zones(&VolumeIndex::new(&s).alternatives(&p)), [["a"], ["b"]]);
}

#[test]
fn every_allowed_topologies_entry_is_an_alternative() {
    // getStorageClassRequirements: one alternative per TopologySelectorTerm.
    let sc = json!({"metadata": {"name": "gp3"}, "allowedTopologies": [
        {"matchLabelExpressions": [{"key": ZONE, "values": ["a"]}]},
        {"matchLabelExpressions": [{"key": ZONE, "values": ["c"]}]}]});
    let s = snapshot(&[pvc("data", None, Some("gp3"))], &[], &[sc]);
    let p = pod(&json!([{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]));
    assert_eq!(zones(&VolumeIndex::new(&s).alternatives(&p)), [["a"], ["c"]]);
}

#[test]
fn a_generic_ephemeral_volume_uses_the_claim_named_pod_dash_volume() {
    // utils/volume/volume.go GetPersistentVolumeClaim: Ephemeral → "<pod>-<volume>".
    let pv = json!({"metadata": {"name": "pv"}, "spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": [
        zone_term(&["b"])]}}}});
    let s = snapshot(&[pvc("web-0-scratch", Some("pv"), None)], &[pv], &[]);
    let p = pod(&json!([{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}]));
    assert_eq!(zones(&VolumeIndex::new(&s).alternatives(&p)), [["b"]]);
}

#[test]
fn an_ephemeral_volume_without_its_claim_yet_takes_its_template_class() {
    let sc = json!({"metadata": {"name": "gp3"}, "allowedTopologies": [
        {"matchLabelExpressions": [{"key": ZONE, "values": ["c"]}]}]});
    let s = snapshot(&[], &[], &[sc]);
    let p =
        pod(&json!([{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {"storageClassName": "gp3"}}}}]));
    assert_eq!(zones(&VolumeIndex::new(&s).alternatives(&p)), [["c"]]);
}

#[test]
fn volumes_cross_product_keeps_compatible_branches_only() {
    // mergeCompatibleVolumeRequirementAlternatives: {a|b} × {b|c} → only b∧b survives.
    let pv = |name: &str, a: &str, b: &str| {
        json!({"metadata": {"name": name}, "spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": [
            zone_term(&[a]), zone_term(&[b])]}}}})
    };
    let s = snapshot(
        &[pvc("one", Some("pv1"), None), pvc("two", Some("pv2"), None)],
        &[pv("pv1", "a", "b"), pv("pv2", "b", "c")],
        &[],
    );
    let p = pod(&json!([
        {"name": "one", "persistentVolumeClaim": {"claimName": "one"}},
        {"name": "two", "persistentVolumeClaim": {"claimName": "two"}}]));
    assert_eq!(zones(&VolumeIndex::new(&s).alternatives(&p)), [["b"]]);
}

#[test]
fn a_hostname_only_term_of_a_local_volume_is_unconstrained() {
    // getPersistentVolumeRequirements: Local/HostPath drop kubernetes.io/hostname; an emptied
    // term is kept as an unconstrained alternative.
    let pv = json!({"metadata": {"name": "pv"}, "spec": {"local": {"path": "/mnt"}, "nodeAffinity": {"required": {
        "nodeSelectorTerms": [{"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": ["n1"]}]}]}}}});
    let s = snapshot(&[pvc("data", Some("pv"), None)], &[pv], &[]);
    let p = pod(&json!([{"name": "data", "persistentVolumeClaim": {"claimName": "data"}}]));
    let alternatives = VolumeIndex::new(&s).alternatives(&p);
    assert_eq!(alternatives, [Requirements::default()]);
}

#[test]
fn pod_alternatives_meet_every_volume_alternative() {
    let mut pod_alt = Requirements::default();
    pod_alt.add("kubernetes.io/arch", &Requirement::in_values(["amd64"]));
    let mut a = Requirements::default();
    a.add(ZONE, &Requirement::in_values(["a"]));
    let mut b = Requirements::default();
    b.add(ZONE, &Requirement::in_values(["b"]));
    let merged = with_volumes(vec![pod_alt.clone()], &[a, b]);
    assert_eq!(merged.len(), 2);
    assert!(merged.iter().all(|r| r.get("kubernetes.io/arch").is_some()));
    assert_eq!(with_volumes(vec![pod_alt.clone()], &[]), [pod_alt]);
}
