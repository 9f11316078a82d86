//! What disrupting a set of nodes does to the workloads on them: which workloads lose pods, how
//! many of how many, whether their PodDisruptionBudget lets the last ready replica go, whether
//! they reach zero ready pods, and for how long (the expected downtime).
//!
//! One computation shared by every command that disrupts nodes (`explain`, `plan`, the
//! forecast). Pure and deterministic: the same snapshot and nodes give the same list, sorted by
//! severity (critical first) then workload.
//!
//! Owners are resolved by [`super::workloads`] (the disruption controller's finders, as
//! `pdb-audit` resolves them), PDBs matched by [`Limits::matching`] (the replay's own matching),
//! and what a PDB allows is its `status.disruptionsAllowed`, which the eviction API reads
//! (kubernetes `pkg/registry/core/pod/storage/eviction.go` `checkAndDecrement`).
//!
//! Severities agree with `pdb-audit`'s: a workload taken to zero ready pods is `critical` (as
//! `SingleReplicaEvictable`); one whose eviction a budget refuses, or that loses more pods than
//! its budget lets go at once, is a `warning` (as `DrainBlocked`, `CurrentlyBlocking`,
//! `Crowded`); one that keeps ready pods elsewhere, and a DaemonSet's pod that goes with its
//! node, is `info`.
//!
//! **Expected downtime** is how long a workload taken to zero has no ready pod: the time its
//! replacement pod needs from start to Ready. It is read from the workload's own running pods
//! (`status.startTime` → the `Ready` condition's `lastTransitionTime`, the median over those that
//! show both) when the snapshot has them, else the caller's default (`--pod-startup`); the
//! result says which. Karpenter launches a replacement node before it evicts (and a delete
//! moves pods onto existing nodes), so the node launch is not part of it.

use std::collections::{BTreeMap, BTreeSet};

use jiff::SignedDuration;

use super::budget::Rule;
use super::finding::Severity;
use super::workloads::{collect, owner_of, Controllers, WorkloadId};
use crate::engine::pdb::{is_ready, Limits};
use crate::engine::pod;
use crate::snapshot::{condition, Pod, PodDisruptionBudget, Snapshot};

/// What the workload's PodDisruptionBudget does when its pods on the nodes are evicted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PdbEffect {
    /// No budget selects its pods: the eviction API lets every pod go.
    None,
    /// One budget, which allows `allowed` evictions now.
    Allows { pdb: String, rule: String, allowed: i32 },
    /// Several budgets select its pods: the eviction API refuses every eviction.
    Multiple { pdbs: Vec<String> },
}

/// Where the startup estimate comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StartupSource {
    /// The median start → Ready time of this many of the workload's own pods.
    Observed { pods: usize },
    /// No pod of the workload shows both times: the caller's default.
    Default,
}

/// How long a new pod of the workload takes to become Ready.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Startup {
    pub duration: SignedDuration,
    pub source: StartupSource,
}

/// One workload that loses pods.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct WorkloadImpact {
    /// `Deployment`, `StatefulSet`, `DaemonSet`, `Job`, `ReplicaSet` (without a Deployment),
    /// another controller's kind, or `Pod` for a pod without a controller.
    pub kind: String,
    pub namespace: String,
    pub name: String,
    /// Desired replicas (the controller's `spec.replicas`, else its pods counted).
    pub replicas: i32,
    /// Its pods on the disrupted nodes (`ns/name`, sorted).
    pub pods: Vec<String>,
    /// The disrupted nodes those pods sit on, sorted.
    pub nodes: Vec<String>,
    /// Its Ready pods now, anywhere.
    pub ready: usize,
    /// Its Ready pods not on the disrupted nodes: what serves while they move.
    pub ready_elsewhere: usize,
    pub pdb: PdbEffect,
    /// The budget lets every ready pod on the nodes go at once, the last ready replica included
    /// when none is ready elsewhere.
    pub pdb_lets_all_go: bool,
    /// The workload has no ready pod until a replacement is Ready.
    pub zero_ready: bool,
    pub severity: Severity,
    pub startup: Startup,
    /// How long it has no ready pod: the startup estimate when `zero_ready`, else `None`.
    pub downtime: Option<SignedDuration>,
}

impl WorkloadImpact {
    /// `Kind/namespace/name`, as `pdb-audit` names workloads.
    pub(crate) fn key(&self) -> String {
        format!("{}/{}/{}", self.kind, self.namespace, self.name)
    }
}

/// The workloads that lose pods when every node in `nodes` is disrupted, most severe first.
///
/// `pod_startup` is the start → Ready time assumed for workloads whose pods do not show it.
pub(crate) fn impact(
    snapshot: &Snapshot,
    nodes: &BTreeSet<String>,
    pod_startup: SignedDuration,
) -> Vec<WorkloadImpact> {
    let movable = |p: &&Pod| !pod::is_terminal(p) && !pod::is_mirror(p);
    let on_nodes: Vec<&Pod> = snapshot
        .pods
        .iter()
        .filter(movable)
        .filter(|p| p.spec.node_name.as_ref().is_some_and(|n| nodes.contains(n)))
        .collect();
    if on_nodes.is_empty() {
        return Vec::new();
    }
    let controllers = Controllers::new(snapshot);
    let affected: BTreeSet<WorkloadId> = on_nodes.iter().map(|p| owner_of(&controllers, p)).collect();
    // Only pods that could share an affected workload are resolved: same namespace, and a
    // controller whose name starts with the workload's (a Deployment's ReplicaSets are
    // `<name>-<hash>`), so a plan over a big cluster does not resolve every pod.
    let candidates: Vec<&Pod> = snapshot
        .pods
        .iter()
        .filter(movable)
        .filter(|p| {
            let owner = p.metadata.controller().map_or(p.metadata.name.as_str(), |o| o.name.as_str());
            affected.iter().any(|w| w.namespace == p.metadata.namespace() && owner.starts_with(w.name.as_str()))
        })
        .filter(|p| affected.contains(&owner_of(&controllers, p)))
        .collect();
    let owners: Vec<WorkloadId> = candidates.iter().map(|p| owner_of(&controllers, p)).collect();
    let limits = Limits::new(&snapshot.pdbs);
    let mut out: Vec<WorkloadImpact> = collect(&controllers, &candidates, &owners)
        .into_values()
        .map(|workload| {
            let on_node = |p: &&Pod| p.spec.node_name.as_ref().is_some_and(|n| nodes.contains(n));
            let leaving: Vec<&Pod> = workload.pods.iter().copied().filter(on_node).collect();
            let ready = workload.pods.iter().filter(|p| is_ready(p)).count();
            let ready_leaving = leaving.iter().filter(|p| is_ready(p)).count();
            let pdb = pdb_effect(&limits, &leaving);
            let pdb_lets_all_go = match &pdb {
                PdbEffect::None => true,
                PdbEffect::Allows { allowed, .. } => usize::try_from(*allowed).unwrap_or(0) >= ready_leaving,
                PdbEffect::Multiple { .. } => false,
            };
            let daemon = workload.id.is_daemon_set();
            let zero_ready = !daemon && ready == ready_leaving && pdb_lets_all_go;
            let refused = matches!(pdb, PdbEffect::Multiple { .. } | PdbEffect::Allows { allowed: 0, .. });
            let severity = if zero_ready {
                Severity::Critical
            } else if !daemon && (refused || !pdb_lets_all_go) {
                Severity::Warning
            } else {
                Severity::Info
            };
            let startup = startup_of(&workload.pods, pod_startup);
            let mut pods: Vec<String> = leaving.iter().map(|p| p.metadata.key()).collect();
            pods.sort();
            let nodes: BTreeSet<String> = leaving.iter().filter_map(|p| p.spec.node_name.clone()).collect();
            let id = workload.id;
            WorkloadImpact {
                kind: id.kind,
                namespace: id.namespace,
                name: id.name,
                replicas: workload.replicas,
                pods,
                nodes: nodes.into_iter().collect(),
                ready,
                ready_elsewhere: ready - ready_leaving,
                pdb,
                pdb_lets_all_go,
                zero_ready,
                severity,
                startup,
                downtime: zero_ready.then_some(startup.duration),
            }
        })
        .collect();
    out.sort_by(|a, b| b.severity.cmp(&a.severity).then_with(|| a.key().cmp(&b.key())));
    out
}

/// The budget the leaving pods meet: the one PDB, several (refused), or none.
fn pdb_effect(limits: &Limits<'_>, leaving: &[&Pod]) -> PdbEffect {
    let mut seen: BTreeMap<String, &PodDisruptionBudget> = BTreeMap::new();
    let mut several = BTreeSet::new();
    for pod in leaving {
        let matching = limits.matching(pod);
        if matching.len() > 1 {
            several.extend(matching.iter().map(|b| b.metadata.key()));
        }
        for pdb in matching {
            seen.insert(pdb.metadata.key(), pdb);
        }
    }
    if !several.is_empty() || seen.len() > 1 {
        return PdbEffect::Multiple { pdbs: seen.into_keys().collect() };
    }
    match seen.into_iter().next() {
        None => PdbEffect::None,
        Some((key, pdb)) => PdbEffect::Allows {
            pdb: key,
            rule: Rule::of(&pdb.spec).to_string(),
            allowed: pdb.status.disruptions_allowed,
        },
    }
}

/// The median start → Ready time of the Ready pods that show both, else `default`.
pub(crate) fn startup_of(pods: &[&Pod], default: SignedDuration) -> Startup {
    let mut samples: Vec<SignedDuration> = pods
        .iter()
        .filter_map(|p| {
            let started = p.status.start_time?;
            let ready = condition(&p.status.conditions, "Ready").filter(|c| c.status == "True")?;
            let took = started.duration_until(ready.last_transition_time?);
            (!took.is_negative()).then_some(took)
        })
        .collect();
    if samples.is_empty() {
        return Startup { duration: default, source: StartupSource::Default };
    }
    samples.sort();
    Startup { duration: samples[(samples.len() - 1) / 2], source: StartupSource::Observed { pods: samples.len() } }
}

#[cfg(test)]
#[path = "impact_tests.rs"]
mod tests;
