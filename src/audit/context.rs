//! Everything the rules share: the pods and PDBs in scope, which PDBs select which pods (through
//! [`Limits::matching`], the replay's own matching), their workloads, the node facts, and what
//! could not be read.

use std::collections::BTreeMap;

use jiff::Timestamp;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use super::code::FindingCode;
use super::facts::{PdbFinding, Skipped};
use super::nodes::{Nodes, Readable};
use super::scope::Scope;
use super::selector::parse_selector;
use super::workloads::{collect, owner_of, Controllers, Workload, WorkloadId};
use crate::engine::labels::selector_matches;
use crate::engine::pdb::Limits;
use crate::engine::pod;
use crate::snapshot::{Pod, PodDisruptionBudget, Snapshot, StringMap};

/// A finding plus what `-l` filters it by.
#[derive(Debug, Clone)]
pub(super) struct Draft<'a> {
    pub finding: PdbFinding,
    /// The pods it is about; it is kept when one of them matches `-l`.
    pub pods: Vec<&'a Pod>,
    /// For findings without pods (`NoMatchingPods`): the PDB, kept when its own labels match.
    pub pdb: Option<&'a PodDisruptionBudget>,
}

pub(super) struct Context<'a> {
    pub now: Timestamp,
    scope: &'a Scope,
    /// Normalised kind (`node`, `nodeclaim`…) → why it could not be read.
    unread: BTreeMap<String, String>,
    pub readable: Readable,
    /// PDBs in the namespace scope, sorted by namespace and name.
    pub pdbs: Vec<&'a PodDisruptionBudget>,
    /// Pods in the namespace scope that can be disrupted: not terminal, not mirror pods.
    pub pods: Vec<&'a Pod>,
    pub limits: Limits<'a>,
    /// PDB key → the pods it selects.
    pub pdb_pods: BTreeMap<String, Vec<&'a Pod>>,
    /// Pod key → the PDBs that select it.
    pub pod_pdbs: BTreeMap<String, Vec<&'a PodDisruptionBudget>>,
    pub workloads: BTreeMap<WorkloadId, Workload<'a>>,
    /// Pod key → its workload.
    pub owners: BTreeMap<String, WorkloadId>,
    pub nodes: Nodes,
    selector: Option<Result<LabelSelector, String>>,
}

impl<'a> Context<'a> {
    pub(super) fn new(snapshot: &'a Snapshot, now: Timestamp, scope: &'a Scope) -> Context<'a> {
        let unread: BTreeMap<String, String> =
            snapshot.info.unread.iter().map(|u| (normalise_kind(&u.kind), u.reason.clone())).collect();
        let in_scope = |namespace: &str| scope.includes(namespace);
        let pods: Vec<&Pod> = snapshot
            .pods
            .iter()
            .filter(|p| in_scope(p.metadata.namespace()) && !pod::is_terminal(p) && !pod::is_mirror(p))
            .collect();
        let no_placement_objects = snapshot.nodes.is_empty() && snapshot.node_claims.is_empty();
        let readable = Readable {
            nodes: !unread.contains_key("node") && !no_placement_objects,
            node_claims: !unread.contains_key("nodeclaim") && !no_placement_objects,
            node_pools: !unread.contains_key("nodepool"),
        };
        let limits = Limits::new(&snapshot.pdbs);
        let pdbs: Vec<&PodDisruptionBudget> =
            snapshot.pdbs.iter().filter(|p| in_scope(p.metadata.namespace())).collect();
        let mut pdb_pods: BTreeMap<String, Vec<&Pod>> = pdbs.iter().map(|p| (p.metadata.key(), Vec::new())).collect();
        let mut pod_pdbs = BTreeMap::new();
        let mut owners = BTreeMap::new();
        let controllers = Controllers::new(snapshot);
        let owner_ids: Vec<WorkloadId> = pods.iter().map(|pod| owner_of(&controllers, pod)).collect();
        for (pod, owner) in pods.iter().zip(&owner_ids) {
            let matching = limits.matching(pod);
            for pdb in &matching {
                pdb_pods.entry(pdb.metadata.key()).or_default().push(*pod);
            }
            pod_pdbs.insert(pod.metadata.key(), matching);
            owners.insert(pod.metadata.key(), owner.clone());
        }
        Context {
            now,
            scope,
            workloads: collect(&controllers, &pods, &owner_ids),
            nodes: Nodes::new(snapshot, now, readable),
            unread,
            readable,
            pdbs,
            pods,
            limits,
            pdb_pods,
            pod_pdbs,
            owners,
            selector: scope.selector.as_deref().map(parse_selector),
        }
    }

    /// The pods a PDB selects (in scope).
    pub(super) fn pods_of(&self, pdb: &PodDisruptionBudget) -> &[&'a Pod] {
        self.pdb_pods.get(&pdb.metadata.key()).map_or(&[], Vec::as_slice)
    }

    /// The workload of a pod.
    pub(super) fn owner(&self, pod: &Pod) -> Option<&Workload<'a>> {
        self.owners.get(&pod.metadata.key()).and_then(|id| self.workloads.get(id))
    }

    /// Whether `-l` keeps this finding.
    pub(super) fn selected(&self, draft: &Draft<'_>) -> bool {
        match &self.selector {
            None => true,
            Some(Err(_)) => false,
            Some(Ok(selector)) => {
                draft.pods.iter().any(|p| selector_matches(Some(selector), &p.metadata.labels))
                    || (draft.pods.is_empty()
                        && draft.pdb.is_some_and(|b| selector_matches(Some(selector), &b.metadata.labels)))
            }
        }
    }

    fn label_selected(&self, labels: &StringMap) -> bool {
        match &self.selector {
            None => true,
            Some(Err(_)) => false,
            Some(Ok(selector)) => selector_matches(Some(selector), labels),
        }
    }

    /// PDBs audited: those in scope whose pods (or, with none, own labels) match `-l`.
    pub(super) fn audited_pdbs(&self) -> usize {
        self.pdbs
            .iter()
            .filter(|b| {
                let pods = self.pods_of(b);
                pods.iter().any(|p| self.label_selected(&p.metadata.labels))
                    || (pods.is_empty() && self.label_selected(&b.metadata.labels))
            })
            .count()
    }

    /// Workloads audited: those with a pod matching `-l`.
    pub(super) fn audited_workloads(&self) -> usize {
        self.workloads.values().filter(|w| w.pods.iter().any(|p| self.label_selected(&p.metadata.labels))).count()
    }

    /// The scope as audited (see [`Scope::audited`]).
    pub(super) fn audited_scope(&self) -> Scope {
        self.scope.audited()
    }

    /// Why `kinds` could not be read, in one sentence; `None` when they all were.
    fn why_unread(&self, kinds: &[(&str, &str)]) -> Option<String> {
        let parts: Vec<String> = kinds
            .iter()
            .filter_map(|(key, label)| self.unread.get(*key).map(|reason| format!("{label}: {reason}")))
            .collect();
        if parts.is_empty() {
            None
        } else {
            Some(format!("could not read {}", parts.join("; ")))
        }
    }

    /// What the audit could not judge with what was readable.
    pub(super) fn skipped(&self) -> Vec<Skipped> {
        let mut out = Vec::new();
        let mut skip = |code: FindingCode, what: &str, reason: &str| {
            out.push(Skipped { code, what: what.to_owned(), reason: reason.to_owned() });
        };
        let everything = self
            .why_unread(&[("pod", "Pods"), ("poddisruptionbudget", "PodDisruptionBudgets")])
            .or_else(|| self.selector_error());
        if let Some(reason) = everything {
            for code in FindingCode::ALL {
                skip(code, "all", &reason);
            }
            return out;
        }
        let placement = || {
            self.why_unread(&[("node", "Nodes"), ("nodeclaim", "NodeClaims"), ("nodepool", "NodePools")])
                .unwrap_or_else(|| {
                    "the snapshot holds no Nodes or NodeClaims, so which nodes Karpenter manages is unknown".to_owned()
                })
        };
        if !self.readable.ownership() {
            skip(FindingCode::NoPdb, "all: which workloads have pods on Karpenter nodes", &placement());
        }
        if !self.readable.grace_periods() {
            skip(FindingCode::GracePeriodOverrides, "all: the nodes' terminationGracePeriod", &placement());
        }
        if !self.readable.ownership() || !self.readable.grace_periods() {
            skip(
                FindingCode::DrainBlocked,
                "the pinned nodes' NodePool, price and terminationGracePeriod",
                &placement(),
            );
        }
        let replicas = self.why_unread(&[
            ("deployment", "Deployments"),
            ("replicaset", "ReplicaSets"),
            ("statefulset", "StatefulSets"),
        ]);
        let hpas = self.why_unread(&[("horizontalpodautoscaler", "HorizontalPodAutoscalers")]);
        for (reason, what) in [
            (replicas, "desired replicas (counted from running pods instead)"),
            (hpas, "HorizontalPodAutoscaler minReplicas and maxReplicas"),
        ] {
            if let Some(reason) = reason {
                for code in
                    [FindingCode::SingleReplicaEvictable, FindingCode::DrainBlocked, FindingCode::LooserThanIntended]
                {
                    skip(code, what, &reason);
                }
            }
        }
        out
    }

    fn selector_error(&self) -> Option<String> {
        match &self.selector {
            Some(Err(e)) => Some(format!("invalid label selector: {e}")),
            _ => None,
        }
    }
}

/// `Node`, `nodes`, `nodeclaims.karpenter.sh`, `no`, `pdb` … → `node`, `nodeclaim`, ….
fn normalise_kind(kind: &str) -> String {
    let lower = kind.to_lowercase();
    let base = lower.split('.').next().unwrap_or_default();
    let singular = match base {
        "no" => "node",
        "pdb" => "poddisruptionbudget",
        "hpa" => "horizontalpodautoscaler",
        "rs" => "replicaset",
        "deploy" => "deployment",
        "sts" => "statefulset",
        "po" => "pod",
        other => other.strip_suffix('s').unwrap_or(other),
    };
    singular.to_owned()
}
