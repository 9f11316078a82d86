//! What a `pdb-audit` finding measured beyond the shared [`Finding`] model (replicas, the
//! budget, the PDB's status, where the pods sit and what that costs), and what the audit could
//! not judge. Plain data: `report/pdb_audit.rs` turns it into the `PDBAudit` document.

use super::code::FindingCode;
use super::finding::Finding;

/// A `pdb-audit` finding.
pub(crate) type PdbFinding = Finding<FindingCode, PdbFacts>;

/// The measurements behind a `pdb-audit` finding.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PdbFacts {
    /// Desired replicas now (the controller's `spec.replicas`, else its pods counted).
    pub replicas: Option<i32>,
    /// The HorizontalPodAutoscaler's `minReplicas`, when one targets the workload.
    pub min_replicas: Option<i32>,
    pub max_replicas: Option<i32>,
    /// `ns/name` of that HorizontalPodAutoscaler.
    pub hpa: Option<String>,
    /// The budget as written: `maxUnavailable: 1`, `minAvailable: 50%`.
    pub budget: Option<String>,
    /// Evictions the spec allows at `replicas` with every pod healthy (Kubernetes' rounding).
    pub allowed: Option<i32>,
    /// The PDB's status as the disruption controller last wrote it.
    pub status: Option<BudgetStatus>,
    pub unhealthy_pod_eviction_policy: Option<String>,
    /// NodePools of the subject's nodes (Karpenter nodes only), sorted.
    pub node_pools: Vec<String>,
    /// Per node: how many of the pods sit there and what the node is (when Nodes were readable).
    pub placement: Vec<NodePlacement>,
    /// `DrainBlocked`: the price of the pinned nodes together, when known.
    pub price_per_hour: Option<f64>,
    pub price_per_month: Option<f64>,
    /// The NodePool `terminationGracePeriod` that ends the PDB's protection, when one does.
    pub termination_grace_period: Option<String>,
}

/// `status` of a PodDisruptionBudget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BudgetStatus {
    pub expected_pods: i32,
    pub current_healthy: i32,
    pub desired_healthy: i32,
    pub disruptions_allowed: i32,
}

/// A judgement the audit could not make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Skipped {
    pub code: FindingCode,
    /// What part was not judged (`all`, or e.g. `node price and NodePool`).
    pub what: String,
    pub reason: String,
}

/// One node holding some of a finding's pods.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct NodePlacement {
    pub node: String,
    pub pods: usize,
    /// Has a NodeClaim (or, when NodeClaims were unreadable, a `karpenter.sh/nodepool` label);
    /// `None` when neither Nodes nor NodeClaims could be read.
    pub karpenter: Option<bool>,
    pub node_pool: Option<String>,
    pub instance_type: Option<String>,
    pub capacity_type: Option<String>,
    pub price_per_hour: Option<f64>,
    pub price_per_month: Option<f64>,
    pub termination_grace_period: Option<String>,
}
