//! `pdb-audit`: PodDisruptionBudgets judged against replicas, placement and NodePool settings
//! (`audit/`), with `--fail-on`'s gate.

use super::{Context, Failure, Outcome};
use crate::audit::{self, Severity};
use crate::cli::FixesChoice;
use crate::error::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK};
use crate::report::{self, Report};
use crate::snapshot::Snapshot;

pub(super) fn run(
    ctx: &Context<'_>,
    snapshot: &Snapshot,
    fail_on: Option<Severity>,
    fixes: FixesChoice,
) -> Result<Outcome, Failure> {
    if let Some(selector) = &ctx.cli.kube.selector {
        audit::parse_selector(selector).map_err(|e| Failure::Usage(format!("-l {selector}: {e}")))?;
    }
    let audit = audit::pdb_audit(snapshot, ctx.now, &ctx.scope);
    let exit = match fail_on {
        // A gate must not pass on what it could not see: neither when pods or PDBs were
        // unreadable nor when a rule it runs was skipped for want of a kind.
        Some(_) if audit.blind || !audit.skipped.is_empty() => EXIT_ERROR,
        Some(threshold) if audit.fails_at(threshold) => EXIT_FINDINGS,
        _ => EXIT_OK,
    };
    let mut document = report::pdb_audit::document(&audit);
    // The round Karpenter would run now: the findings it acts on get their fixes replayed, by
    // the engine `plan` uses (only when a critical or warning finding names a workload).
    let named: std::collections::BTreeSet<String> = audit
        .findings
        .iter()
        .filter(|f| f.severity > Severity::Info)
        .filter_map(|f| f.subject.workload.clone())
        .collect();
    if !named.is_empty() && !audit.blind {
        let pod_startup = ctx.cli.input.pod_startup.0;
        let fixes = crate::prescription::for_current_round(
            snapshot,
            ctx.now,
            pod_startup,
            &|w| named.contains(w),
            ctx.observer,
        );
        report::pdb_audit::attach_replayed(&mut document, &fixes);
    }
    document.info_fixes = fixes == FixesChoice::All;
    Ok(Outcome { report: Report::PdbAudit(document), exit })
}
