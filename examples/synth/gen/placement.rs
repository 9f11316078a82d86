//! Packing pods onto nodes, and the objects each workload leaves behind (Deployment,
//! ReplicaSet or StatefulSet, pods, claims and volumes).

use std::collections::BTreeMap;

use jiff::Timestamp;
use k8s_openapi::api::core::v1::{NodeSelector, NodeSelectorTerm, VolumeNodeAffinity};
use kubectl_consolidation::snapshot::{
    ClaimRef, Condition, CsiSource, ObjectMeta, PersistentVolume, PersistentVolumeClaim, Pod, PodStatus, PodTemplate,
    PvSpec, PvcSpec, Volume, Workload, WorkloadSpec,
};

use super::cluster::NodePlan;
use super::workloads::{Class, Groups, Spread, WorkloadPlan};
use super::{ago, app_selector, k8s_requirement, labels, owner, safe_code, Rng, ZONE, ZONES};

/// Packs pods onto nodes: each replica goes to the next zone round-robin, to a random node of
/// its class with room under the node's target, else any node with room, else it stays pending.
pub(super) struct Packer<'n> {
    pub(super) nodes: &'n mut [NodePlan],
    pub(super) groups: Groups,
    pub(super) cursor: BTreeMap<(Class, usize), usize>,
}

impl Packer<'_> {
    pub(super) fn place(&mut self, w: &WorkloadPlan, used: &[usize], zone: usize, rng: &mut Rng) -> Option<usize> {
        let zones = self.groups.by_class.get(&w.class)?;
        let fits_target = |n: &NodePlan| n.cpu_free >= w.cpu && n.memory_free >= w.memory && n.slots > 0;
        let fits_room = |n: &NodePlan| n.cpu_room >= w.cpu && n.memory_room >= w.memory && n.slots > 0;
        let free = |i: &usize| w.spread == Spread::Free || !used.contains(i);
        let allowed = |i: &usize| w.spread != Spread::Hard || !used.contains(i);
        for z in [zone, (zone + 1) % 3, (zone + 2) % 3] {
            let group = &zones[z];
            if group.is_empty() {
                continue;
            }
            for _ in 0..12 {
                let i = group[rng.below(group.len())];
                if fits_target(&self.nodes[i]) && free(&i) {
                    return Some(i);
                }
            }
            let start = self.cursor.get(&(w.class, z)).copied().unwrap_or(0);
            for k in 0..group.len().min(400) {
                let i = group[(start + k) % group.len()];
                if fits_target(&self.nodes[i]) && free(&i) {
                    self.cursor.insert((w.class, z), (start + k) % group.len());
                    return Some(i);
                }
            }
        }
        for z in [zone, (zone + 1) % 3, (zone + 2) % 3] {
            let group = &zones[z];
            for k in 0..group.len().min(400) {
                let i = group[(k * 7 + rng.below(group.len().max(1))) % group.len()];
                if fits_room(&self.nodes[i]) && allowed(&i) && self.nodes[i].target > 0.0 {
                    return Some(i);
                }
            }
        }
        None
    }

    pub(super) fn commit(&mut self, i: usize, w: &WorkloadPlan) {
        let n = &mut self.nodes[i];
        n.cpu_free -= w.cpu;
        n.memory_free -= w.memory;
        n.cpu_room -= w.cpu;
        n.memory_room -= w.memory;
        n.slots -= 1;
    }
}

pub(super) fn pod_status(started: Timestamp, bound: bool) -> PodStatus {
    if bound {
        PodStatus {
            phase: Some("Running".into()),
            conditions: ["Initialized", "Ready", "ContainersReady", "PodScheduled"]
                .iter()
                .map(|t| Condition {
                    type_: (*t).to_owned(),
                    status: "True".into(),
                    last_transition_time: Some(started),
                    ..Condition::default()
                })
                .collect(),
            start_time: Some(started),
            nominated_node_name: None,
            ..PodStatus::default()
        }
    } else {
        PodStatus {
            phase: Some("Pending".into()),
            conditions: vec![Condition {
                type_: "PodScheduled".into(),
                status: "False".into(),
                reason: Some("Unschedulable".into()),
                message: Some("0/1 nodes are available".into()),
                last_transition_time: Some(started),
            }],
            start_time: None,
            nominated_node_name: None,
            ..PodStatus::default()
        }
    }
}

/// Everything that belongs to one workload: its pods, objects, claims and volumes.
#[derive(Default)]
pub(super) struct Placed {
    pub(super) pods: Vec<Pod>,
    pub(super) deployments: Vec<Workload>,
    pub(super) replica_sets: Vec<Workload>,
    pub(super) stateful_sets: Vec<Workload>,
    pub(super) pvcs: Vec<PersistentVolumeClaim>,
    pub(super) pvs: Vec<PersistentVolume>,
}

pub(super) fn materialise(
    w: &WorkloadPlan,
    packer: &mut Packer<'_>,
    pending_every: usize,
    counter: &mut usize,
    now: Timestamp,
    rng: &mut Rng,
    out: &mut Placed,
) {
    let created = ago(now, rng.below(120 * 86_400) as i64 + 3600);
    let mut pod_labels = labels([("app", w.name.as_str()), ("app.kubernetes.io/part-of", w.namespace.as_str())]);
    let selector = app_selector(&w.name);
    let template = |extra: &BTreeMap<String, String>| PodTemplate {
        metadata: ObjectMeta { labels: extra.clone(), annotations: w.annotations.clone(), ..ObjectMeta::default() },
        spec: w.spec.clone(),
    };
    // The StatefulSet or Deployment itself: the same object either way.
    let controller = Workload {
        metadata: ObjectMeta {
            name: w.name.clone(),
            namespace: Some(w.namespace.clone()),
            uid: w.uid.clone(),
            labels: labels([("app", w.name.as_str())]),
            creation_timestamp: Some(created),
            ..ObjectMeta::default()
        },
        spec: WorkloadSpec {
            replicas: Some(w.replicas as i32),
            selector: Some(selector.clone()),
            template: template(&pod_labels),
        },
    };
    let (owner_ref, prefix) = if w.stateful {
        out.stateful_sets.push(controller);
        (owner("apps/v1", "StatefulSet", &w.name, &w.uid), w.name.clone())
    } else {
        let rs_name = format!("{}-{}", w.name, w.hash);
        out.deployments.push(controller);
        pod_labels.insert("pod-template-hash".into(), w.hash.clone());
        let mut rs_selector = selector.clone();
        rs_selector.match_labels.get_or_insert_with(BTreeMap::new).insert("pod-template-hash".into(), w.hash.clone());
        out.replica_sets.push(Workload {
            metadata: ObjectMeta {
                name: rs_name.clone(),
                namespace: Some(w.namespace.clone()),
                uid: w.rs_uid.clone(),
                labels: pod_labels.clone(),
                creation_timestamp: Some(created),
                owner_references: vec![owner("apps/v1", "Deployment", &w.name, &w.uid)],
                ..ObjectMeta::default()
            },
            spec: WorkloadSpec {
                replicas: Some(w.replicas as i32),
                selector: Some(rs_selector),
                template: template(&pod_labels),
            },
        });
        (owner("apps/v1", "ReplicaSet", &rs_name, &w.rs_uid), rs_name)
    };
    let mut used: Vec<usize> = Vec::new();
    let start_zone = rng.below(3);
    let offset = rng.next() % 14_348_907;
    for r in 0..w.replicas {
        *counter += 1;
        let pending = pending_every > 0 && (*counter).is_multiple_of(pending_every);
        let target = if pending { None } else { packer.place(w, &used, (start_zone + r) % 3, rng) };
        if let Some(i) = target {
            packer.commit(i, w);
            used.push(i);
        }
        let name = if w.stateful {
            format!("{prefix}-{r}")
        } else {
            format!("{prefix}-{}", safe_code((r as u64 * 1_000_003 + offset) % 14_348_907, 5))
        };
        let pod_created = ago(now, rng.below(20 * 86_400) as i64 + 120);
        let started = ago(pod_created, -(rng.below(30) as i64) - 2);
        let mut spec = w.spec.clone();
        spec.node_name = target.map(|i| packer.nodes[i].name.clone());
        if w.stateful {
            let claim = format!("data-{name}");
            let pv_name = format!("pvc-{}", rng.uid());
            let zone = target.map_or(ZONES[(start_zone + r) % 3], |i| ZONES[packer.nodes[i].zone]);
            spec.volumes.push(Volume {
                name: "data".into(),
                persistent_volume_claim: Some(ClaimRef { claim_name: claim.clone() }),
                ephemeral: None,
            });
            out.pvcs.push(PersistentVolumeClaim {
                metadata: ObjectMeta {
                    name: claim,
                    namespace: Some(w.namespace.clone()),
                    uid: rng.uid(),
                    creation_timestamp: Some(pod_created),
                    ..ObjectMeta::default()
                },
                spec: PvcSpec { volume_name: Some(pv_name.clone()), storage_class_name: Some("gp3".into()) },
                ..PersistentVolumeClaim::default()
            });
            out.pvs.push(PersistentVolume {
                metadata: ObjectMeta {
                    name: pv_name,
                    uid: rng.uid(),
                    creation_timestamp: Some(pod_created),
                    ..ObjectMeta::default()
                },
                spec: PvSpec {
                    node_affinity: Some(VolumeNodeAffinity {
                        required: Some(NodeSelector {
                            node_selector_terms: vec![NodeSelectorTerm {
                                match_expressions: Some(vec![k8s_requirement(ZONE, &[zone])]),
                                match_fields: None,
                            }],
                        }),
                    }),
                    storage_class_name: Some("gp3".into()),
                    csi: Some(CsiSource { driver: "ebs.csi.aws.com".into() }),
                    local: None,
                    host_path: None,
                    aws_elastic_block_store: None,
                },
            });
        }
        out.pods.push(Pod {
            metadata: ObjectMeta {
                name,
                namespace: Some(w.namespace.clone()),
                uid: rng.uid(),
                labels: pod_labels.clone(),
                annotations: w.annotations.clone(),
                creation_timestamp: Some(pod_created),
                owner_references: vec![owner_ref.clone()],
                ..ObjectMeta::default()
            },
            spec,
            status: pod_status(started, target.is_some()),
        });
    }
}
