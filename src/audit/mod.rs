//! JUDGEMENT, PURE: every PodDisruptionBudget judged against its workloads' replicas, where
//! their pods sit, and the NodePools of those nodes — the way Karpenter will meet it.
//!
//! Owns the nine `pdb-audit` rules (`rules/`, one file per finding code), their severities, and
//! the budget arithmetic (`budget.rs`, the Kubernetes disruption controller's
//! `getExpectedPodCount`: percentages round up). PDB matching and eviction checks come from
//! [`crate::engine::pdb::Limits`] (Karpenter's `pdb.go`, one implementation for the whole
//! crate), node prices from [`crate::engine::pricing::node_price`].
//!
//! It must not do I/O, read the clock, serialise, or format for a terminal: `report/pdb_audit.rs`
//! turns an [`Audit`] into the `PDBAudit` document, `render/` prints that.
//!
//! A namespace-scoped user often cannot list Nodes, NodeClaims or NodePools. The audit then
//! still emits every finding that does not need them, and lists what it could not judge in
//! `skipped`.
//!
//! Modules depend one way (no cycle): `rules/*` → `view` → `placement` → `context` → `nodes`,
//! `workloads`, `selector`, `scope`; `fixes` (the proposed commands) and `budget` (the
//! arithmetic) are leaves the rules and the view share; `impact` (what disrupting nodes does to
//! their workloads, for `explain`, `plan` and the forecast) uses `workloads` and `budget` only; everything may use the data model
//! (`finding`, `code`, `facts`), which uses nothing else here.

pub(crate) mod budget;
mod code;
mod context;
mod facts;
mod finding;
mod fixes;
pub(crate) mod impact;
mod nodes;
mod placement;
mod rules;
mod scope;
mod selector;
mod view;
mod workloads;

#[cfg(test)]
pub(crate) mod fixtures;
#[cfg(test)]
mod tests;

use jiff::Timestamp;

pub(crate) use code::FindingCode;
pub(crate) use facts::{NodePlacement, PdbFinding, Skipped};
pub(crate) use finding::Severity;
pub(crate) use scope::Scope;
pub(crate) use selector::parse_selector;

use crate::snapshot::Snapshot;

/// The judgement of every PDB (and every workload without one) in a scope.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Audit {
    /// The scope as audited: no namespace with `all_namespaces`, else the one looked at.
    pub scope: Scope,
    /// PodDisruptionBudgets audited: those in scope whose pods (or, with none, own labels)
    /// match `-l`.
    pub pdbs: usize,
    /// Workloads (controllers and bare pods) with a pod matching `-l`.
    pub workloads: usize,
    /// Sorted by severity (critical first), then PDB, code and workload.
    pub findings: Vec<PdbFinding>,
    /// What could not be judged, and why (e.g. placement when Nodes were unreadable).
    pub skipped: Vec<Skipped>,
    /// The kinds the snapshot could not read.
    pub unread: Vec<crate::snapshot::UnreadKind>,
    /// Pods or PodDisruptionBudgets could not be read: without pods every workload looks empty,
    /// without PDBs every one looks unprotected, so no finding is reported and a `--fail-on`
    /// gate must fail rather than pass on what it could not see.
    pub blind: bool,
}

impl Audit {
    /// Whether a finding at or above `threshold` exists: the `--fail-on` gate.
    pub(crate) fn fails_at(&self, threshold: Severity) -> bool {
        self.findings.iter().any(|f| f.severity >= threshold)
    }

    /// How many findings have `severity`.
    pub(crate) fn count(&self, severity: Severity) -> usize {
        self.findings.iter().filter(|f| f.severity == severity).count()
    }
}

/// Audits every PodDisruptionBudget (and every workload without one) in `scope`.
///
/// Pure and deterministic: `now` only decides time-bound pod annotations (do-not-disrupt
/// durations), exactly as the replay does.
pub(crate) fn pdb_audit(snapshot: &Snapshot, now: Timestamp, scope: &Scope) -> Audit {
    let ctx = context::Context::new(snapshot, now, scope);
    let blind = snapshot.info.unread.iter().any(|u| matches!(u.kind.as_str(), "Pod" | "PodDisruptionBudget"));
    let mut findings: Vec<PdbFinding> = if blind {
        // `skipped` lists every code as not judged, with the reason.
        Vec::new()
    } else {
        rules::findings(&ctx).into_iter().filter(|f| ctx.selected(f)).map(|f| f.finding).collect()
    };
    findings.sort_by(|a, b| {
        let (x, y) = (&a.subject, &b.subject);
        b.severity.cmp(&a.severity).then_with(|| {
            (x.pdb.is_none(), &x.pdb, a.code, &x.workload, &x.nodes).cmp(&(
                y.pdb.is_none(),
                &y.pdb,
                b.code,
                &y.workload,
                &y.nodes,
            ))
        })
    });
    findings.dedup();
    Audit {
        scope: ctx.audited_scope(),
        pdbs: ctx.audited_pdbs(),
        workloads: ctx.audited_workloads(),
        findings,
        skipped: ctx.skipped(),
        unread: snapshot.info.unread.clone(),
        blind,
    }
}
