//! `pdb-audit`: every PodDisruptionBudget judged against its workloads' replicas, where their
//! pods sit, and the NodePools of those nodes — the way Karpenter will meet it.
//!
//! Owns the `PDBAudit` document (docs/DESIGN.md's `-o json` contract: finding codes, severities and
//! field names are an interface) and the rules that produce its findings. It is a pure
//! projection of the snapshot: PDB matching and eviction checks come from
//! [`crate::engine::pdb::Limits`] (Karpenter's `pdb.go`, one implementation for the whole crate),
//! budget arithmetic mirrors the Kubernetes disruption controller's `getExpectedPodCount`
//! (percentages round up), and node prices come from [`crate::engine::pricing::node_price`].
//! It must not do I/O, read the clock, or format for a terminal (that is `render/`).
//!
//! A namespace-scoped user often cannot list Nodes, NodeClaims or NodePools. The audit then
//! still emits every finding that does not need them, and lists what it could not judge in
//! `skipped`.

mod budget;
mod context;
mod fixes;
mod nodes;
mod placement;
mod rules;
mod selector;
mod workloads;

#[cfg(test)]
mod tests;

use jiff::Timestamp;
use serde::Serialize;

use super::Scope;
use crate::snapshot::{Snapshot, API_VERSION};
use crate::upstream::{self, Upstream};

pub use selector::parse_selector;

/// Hours in a month, as cloud price pages count them (365 × 24 / 12).
pub const HOURS_PER_MONTH: f64 = 730.0;

/// The `pdb-audit` document.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PdbAudit {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub scope: AuditScope,
    pub summary: Summary,
    /// Sorted by severity (critical first), then PDB, code and workload.
    pub findings: Vec<Finding>,
    /// What could not be judged, and why (e.g. placement when Nodes were unreadable).
    pub skipped: Vec<Skipped>,
}

impl PdbAudit {
    /// The most severe finding, if any.
    pub fn worst(&self) -> Option<Severity> {
        self.findings.iter().map(|f| f.severity).max()
    }

    /// Whether a finding at or above `severity` exists (`--fail-on`).
    pub fn fails_at(&self, severity: Severity) -> bool {
        self.worst().is_some_and(|worst| worst >= severity)
    }
}

/// Which namespaces and pods were audited.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditScope {
    /// `None` with `allNamespaces`.
    pub namespace: Option<String>,
    pub all_namespaces: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
}

/// Counts, so that a reader (or CI) needs no arithmetic.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// PodDisruptionBudgets audited.
    pub pdbs: usize,
    /// Workloads (controllers and bare pods) whose pods were audited.
    pub workloads: usize,
    pub critical: usize,
    pub warning: usize,
    pub info: usize,
}

/// How bad a finding is. Ordered: `Info < Warning < Critical`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Critical,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Critical => "critical",
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The finding codes of docs/DESIGN.md's pdb-audit table. Stable: never rename one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub enum FindingCode {
    SingleReplicaEvictable,
    #[serde(rename = "MultiplePDBs")]
    MultiplePdbs,
    DrainBlocked,
    CurrentlyBlocking,
    Crowded,
    LooserThanIntended,
    NoMatchingPods,
    #[serde(rename = "NoPDB")]
    NoPdb,
    GracePeriodOverrides,
}

impl FindingCode {
    /// Every code, in table order.
    pub const ALL: [FindingCode; 9] = [
        FindingCode::SingleReplicaEvictable,
        FindingCode::MultiplePdbs,
        FindingCode::DrainBlocked,
        FindingCode::CurrentlyBlocking,
        FindingCode::Crowded,
        FindingCode::LooserThanIntended,
        FindingCode::NoMatchingPods,
        FindingCode::NoPdb,
        FindingCode::GracePeriodOverrides,
    ];

    pub fn severity(self) -> Severity {
        match self {
            FindingCode::SingleReplicaEvictable | FindingCode::MultiplePdbs => Severity::Critical,
            FindingCode::DrainBlocked | FindingCode::CurrentlyBlocking | FindingCode::Crowded => Severity::Warning,
            FindingCode::LooserThanIntended
            | FindingCode::NoMatchingPods
            | FindingCode::NoPdb
            | FindingCode::GracePeriodOverrides => Severity::Info,
        }
    }

    /// The upstream function whose behaviour the finding is about.
    pub fn upstream(self) -> Upstream {
        match self {
            FindingCode::SingleReplicaEvictable
            | FindingCode::DrainBlocked
            | FindingCode::Crowded
            | FindingCode::LooserThanIntended
            | FindingCode::NoMatchingPods => upstream::PDB_DISRUPTIONS,
            FindingCode::CurrentlyBlocking | FindingCode::MultiplePdbs | FindingCode::NoPdb => upstream::CAN_EVICT_PODS,
            FindingCode::GracePeriodOverrides => upstream::DELETE_EXPIRING_PODS,
        }
    }

    /// The code as it appears in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            FindingCode::SingleReplicaEvictable => "SingleReplicaEvictable",
            FindingCode::MultiplePdbs => "MultiplePDBs",
            FindingCode::DrainBlocked => "DrainBlocked",
            FindingCode::CurrentlyBlocking => "CurrentlyBlocking",
            FindingCode::Crowded => "Crowded",
            FindingCode::LooserThanIntended => "LooserThanIntended",
            FindingCode::NoMatchingPods => "NoMatchingPods",
            FindingCode::NoPdb => "NoPDB",
            FindingCode::GracePeriodOverrides => "GracePeriodOverrides",
        }
    }
}

impl std::fmt::Display for FindingCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One finding about a PDB (or, for `NoPDB`, a workload without one).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub code: FindingCode,
    pub severity: Severity,
    /// `ns/name`; `null` for `NoPDB`.
    pub pdb: Option<String>,
    /// `MultiplePDBs`: every PDB that selects the same pods.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pdbs: Vec<String>,
    /// `Kind/ns/name` (`Deployment/ns/web`, `Pod/ns/x` for a bare pod); `null` when the PDB
    /// selects no pod.
    pub workload: Option<String>,
    /// More than one workload under the same PDB: all of them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub workloads: Vec<String>,
    /// Desired replicas now (the controller's `spec.replicas`, else its pods counted).
    pub replicas: Option<i32>,
    /// The HorizontalPodAutoscaler's `minReplicas`, when one targets the workload.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_replicas: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_replicas: Option<i32>,
    /// `ns/name` of that HorizontalPodAutoscaler.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hpa: Option<String>,
    /// The budget as written: `maxUnavailable: 1`, `minAvailable: 50%`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<String>,
    /// Evictions the spec allows at `replicas` with every pod healthy (Kubernetes' rounding).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed: Option<i32>,
    /// The PDB's status as the disruption controller last wrote it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<BudgetStatus>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unhealthy_pod_eviction_policy: Option<String>,
    /// The pods the finding is about (`ns/name`), when it is about particular pods.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pods: Vec<String>,
    /// Nodes the finding's pods sit on, sorted.
    pub nodes: Vec<String>,
    /// NodePools of those nodes (Karpenter nodes only), sorted.
    pub node_pools: Vec<String>,
    /// Per node: how many of the pods sit there and what the node is (when Nodes were readable).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub placement: Vec<NodePlacement>,
    /// `DrainBlocked`: the price of the pinned nodes together, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price_per_hour: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price_per_month: Option<f64>,
    /// The NodePool `terminationGracePeriod` that ends the PDB's protection, when one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub termination_grace_period: Option<String>,
    pub message: String,
    /// The concrete change (a `kubectl` command where one exists).
    pub fix: String,
    /// What the fix costs, in one sentence.
    pub trade_off: String,
    #[serde(rename = "ref")]
    pub upstream: Upstream,
}

/// `status` of a PodDisruptionBudget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetStatus {
    pub expected_pods: i32,
    pub current_healthy: i32,
    pub desired_healthy: i32,
    pub disruptions_allowed: i32,
}

/// One node holding some of a finding's pods.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodePlacement {
    pub node: String,
    pub pods: usize,
    /// Has a NodeClaim (or, when NodeClaims were unreadable, a `karpenter.sh/nodepool` label);
    /// `null` when neither Nodes nor NodeClaims could be read.
    pub karpenter: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_pool: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price_per_hour: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price_per_month: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub termination_grace_period: Option<String>,
}

/// A judgement the audit could not make.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Skipped {
    pub code: FindingCode,
    /// What part was not judged (`all`, or e.g. `node price and NodePool`).
    pub what: String,
    pub reason: String,
}

/// Audits every PodDisruptionBudget (and every workload without one) in `scope`.
///
/// Pure and deterministic: `now` only decides time-bound pod annotations (do-not-disrupt
/// durations), exactly as the replay does.
pub fn pdb_audit(snapshot: &Snapshot, now: Timestamp, scope: &Scope) -> PdbAudit {
    let ctx = context::Context::new(snapshot, now, scope);
    let mut findings: Vec<Finding> =
        rules::findings(&ctx).into_iter().filter(|f| ctx.selected(f)).map(|f| f.finding).collect();
    findings.sort_by(|a, b| {
        b.severity.cmp(&a.severity).then_with(|| {
            (a.pdb.is_none(), &a.pdb, a.code, &a.workload, &a.nodes).cmp(&(
                b.pdb.is_none(),
                &b.pdb,
                b.code,
                &b.workload,
                &b.nodes,
            ))
        })
    });
    findings.dedup();
    let count = |s: Severity| findings.iter().filter(|f| f.severity == s).count();
    let summary = Summary {
        pdbs: ctx.audited_pdbs(),
        workloads: ctx.audited_workloads(),
        critical: count(Severity::Critical),
        warning: count(Severity::Warning),
        info: count(Severity::Info),
    };
    PdbAudit {
        api_version: API_VERSION,
        kind: "PDBAudit",
        scope: ctx.audit_scope(),
        summary,
        findings,
        skipped: ctx.skipped(),
    }
}
