//! The `impact` list `explain` and `plan` carry: per workload that loses pods, what the audit's
//! [`crate::audit::impact`] judged. Projection only: every figure is the judgement's.

use serde::Serialize;

use crate::audit::impact::{PdbEffect, StartupSource, WorkloadImpact};

/// One workload that loses pods when the nodes go.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImpactView {
    /// `Kind/namespace/name` (a Deployment, not its ReplicaSet).
    pub workload: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
    /// `critical` (goes to zero ready pods), `warning` (the budget slows or refuses the
    /// drain), `info` (keeps ready pods elsewhere), as `pdb-audit` grades.
    pub severity: &'static str,
    /// Desired replicas.
    pub replicas: i32,
    /// Its pods on the disrupted nodes.
    pub losing: usize,
    pub pods: Vec<String>,
    pub nodes: Vec<String>,
    /// Ready pods now, and those not on the disrupted nodes.
    pub ready: usize,
    pub ready_elsewhere: usize,
    /// The one PodDisruptionBudget that selects its pods (`ns/name`), or `null`.
    pub pdb: Option<String>,
    /// That budget's rule (`maxUnavailable: 1`).
    pub pdb_rule: Option<String>,
    /// Evictions it allows now (`status.disruptionsAllowed`).
    pub pdb_allowed: Option<i32>,
    /// Every budget, when several select its pods (the eviction API then refuses).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pdbs: Vec<String>,
    /// The budget (or its absence) lets every ready pod on the nodes go at once.
    pub pdb_lets_all_go: bool,
    /// No ready pod until a replacement is Ready.
    pub zero_ready: bool,
    /// Start → Ready time of a new pod, in seconds.
    pub startup_seconds: i64,
    /// `observed` (the median of its own pods) or `default` (`--pod-startup`).
    pub startup_source: &'static str,
    /// How many of its pods the observed figure comes from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub startup_observed_pods: Option<usize>,
    /// Seconds without a ready pod, when `zeroReady`.
    pub downtime_seconds: Option<i64>,
    /// For a harmed workload (zero ready, or below its PDB's intent) in a replay that disrupts
    /// it: the fixes, each replayed (`report/prescription.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prescription: Option<super::prescription::PrescriptionView>,
}

impl From<&WorkloadImpact> for ImpactView {
    fn from(w: &WorkloadImpact) -> Self {
        let (pdb, pdb_rule, pdb_allowed, pdbs) = match &w.pdb {
            PdbEffect::None => (None, None, None, Vec::new()),
            PdbEffect::Allows { pdb, rule, allowed } => {
                (Some(pdb.clone()), Some(rule.clone()), Some(*allowed), Vec::new())
            }
            PdbEffect::Multiple { pdbs } => (None, None, None, pdbs.clone()),
        };
        let (startup_source, startup_observed_pods) = match w.startup.source {
            StartupSource::Observed { pods } => ("observed", Some(pods)),
            StartupSource::Default => ("default", None),
        };
        ImpactView {
            workload: w.key(),
            kind: w.kind.clone(),
            namespace: w.namespace.clone(),
            name: w.name.clone(),
            severity: w.severity.as_str(),
            replicas: w.replicas,
            losing: w.pods.len(),
            pods: w.pods.clone(),
            nodes: w.nodes.clone(),
            ready: w.ready,
            ready_elsewhere: w.ready_elsewhere,
            pdb,
            pdb_rule,
            pdb_allowed,
            pdbs,
            pdb_lets_all_go: w.pdb_lets_all_go,
            zero_ready: w.zero_ready,
            startup_seconds: w.startup.duration.as_secs(),
            startup_source,
            startup_observed_pods,
            downtime_seconds: w.downtime.map(|d| d.as_secs()),
            prescription: None,
        }
    }
}

/// The impact of disrupting `nodes`, as views.
pub(crate) fn of(
    snapshot: &crate::snapshot::Snapshot,
    nodes: &std::collections::BTreeSet<String>,
    pod_startup: jiff::SignedDuration,
) -> Vec<ImpactView> {
    crate::audit::impact::impact(snapshot, nodes, pod_startup).iter().map(ImpactView::from).collect()
}

/// Each harmed workload's fixes onto its impact view (the prescription engine's answer,
/// `prescription/mod.rs`, projected by `report/prescription.rs`).
pub(crate) fn attach_prescriptions(impact: &mut [ImpactView], prescriptions: &[crate::prescription::Prescription]) {
    for view in impact {
        view.prescription =
            prescriptions.iter().find(|p| p.workload == view.workload).map(super::prescription::PrescriptionView::from);
    }
}
