//! PodDisruptionBudgets: mostly one per multi-replica workload, a few doubled, the rest orphans.

use jiff::Timestamp;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use kubectl_consolidation::snapshot::{ObjectMeta, PdbSpec, PdbStatus, PodDisruptionBudget};

use super::workloads::WorkloadPlan;
use super::{ago, app_selector, Params, Rng};

pub(super) fn pdb_for(w: &WorkloadPlan, rng: &mut Rng, now: Timestamp, name: String) -> PodDisruptionBudget {
    let replicas = w.replicas as i32;
    let unhealthy = i32::from(rng.chance(0.02) && replicas > 1);
    let healthy = replicas - unhealthy;
    let percent = |p: i32, up: bool| {
        let exact = replicas * p;
        if up {
            (exact + 99) / 100
        } else {
            exact / 100
        }
    };
    let (min_available, max_unavailable, desired) = match rng.below(100) {
        0..=39 => (None, Some(IntOrString::Int(1)), replicas - 1),
        40..=64 => (Some(IntOrString::Int(1)), None, 1),
        65..=79 => (None, Some(IntOrString::String("25%".into())), replicas - percent(25, true)),
        80..=89 => (Some(IntOrString::String("50%".into())), None, percent(50, true)),
        90..=94 => (Some(IntOrString::Int(replicas)), None, replicas),
        _ => (None, Some(IntOrString::Int(0)), replicas),
    };
    let desired = desired.max(0);
    PodDisruptionBudget {
        metadata: ObjectMeta {
            name,
            namespace: Some(w.namespace.clone()),
            uid: rng.uid(),
            creation_timestamp: Some(ago(now, 30 * 86_400)),
            ..ObjectMeta::default()
        },
        spec: PdbSpec {
            min_available,
            max_unavailable,
            selector: Some(app_selector(&w.name)),
            unhealthy_pod_eviction_policy: rng.chance(0.3).then(|| "AlwaysAllow".to_owned()),
        },
        status: PdbStatus {
            disruptions_allowed: (healthy - desired).max(0),
            current_healthy: healthy,
            desired_healthy: desired,
            expected_pods: replicas,
        },
    }
}

pub(super) fn pdbs(p: &Params, workloads: &[WorkloadPlan], rng: &mut Rng, now: Timestamp) -> Vec<PodDisruptionBudget> {
    // Most PDBs guard multi-replica workloads; shuffle so the rest are a fair sample.
    let mut order: Vec<usize> = (0..workloads.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i + 1));
    }
    let late: Vec<bool> = workloads.iter().map(|w| w.replicas < 2 && rng.chance(0.7)).collect();
    order.sort_by_key(|&i| late[i]);
    // A few workloads get a second PDB (the eviction API then refuses their pods), and PDBs
    // beyond the workloads select nothing.
    let doubles_wanted = p.pdbs / 300;
    let singles = workloads.len().min(p.pdbs - doubles_wanted);
    let doubles = doubles_wanted.min(singles);
    let mut out = Vec::with_capacity(p.pdbs);
    for &i in &order[..singles] {
        out.push(pdb_for(&workloads[i], rng, now, format!("{}-pdb", workloads[i].name)));
    }
    for &i in &order[..doubles] {
        out.push(pdb_for(&workloads[i], rng, now, format!("{}-pdb-extra", workloads[i].name)));
    }
    let mut orphan = 0;
    while out.len() < p.pdbs {
        let ns = workloads.first().map_or_else(|| "default".to_owned(), |w| w.namespace.clone());
        let mut pdb = PodDisruptionBudget {
            metadata: ObjectMeta {
                name: format!("legacy-{orphan}-pdb"),
                namespace: Some(ns),
                uid: rng.uid(),
                ..ObjectMeta::default()
            },
            spec: PdbSpec {
                max_unavailable: Some(IntOrString::Int(1)),
                selector: Some(app_selector(&format!("decommissioned-{orphan}"))),
                ..PdbSpec::default()
            },
            status: PdbStatus::default(),
        };
        pdb.status.disruptions_allowed = 0;
        out.push(pdb);
        orphan += 1;
    }
    out
}
