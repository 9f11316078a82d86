//! The impact lines `explain` and `plan` print: per workload that loses pods, one sentence.

use super::format::duration;
use super::Styles;
use crate::report::impact::ImpactView;

/// `critical  Deployment/tenant-a/app-b  loses 1 of 1 replica on node-x, 0 ready left; …`.
pub(super) fn line(w: &ImpactView, styles: &Styles) -> String {
    let style = match w.severity {
        "critical" => styles.bad,
        "warning" => styles.warning,
        _ => styles.dim,
    };
    let severity = Styles::paint(style, format!("{:<8}", w.severity));
    let replicas = if w.replicas == 1 { "replica" } else { "replicas" };
    let mut parts = vec![format!("loses {} of {} {replicas} on {}", w.losing, w.replicas, w.nodes.join(", "))];
    if w.kind == "DaemonSet" {
        parts.push("its pod goes with the node".to_owned());
    } else if w.zero_ready {
        parts.push("0 ready left".to_owned());
    } else {
        parts.push(format!("{} ready elsewhere", w.ready_elsewhere));
    }
    parts.push(pdb_clause(w));
    if let Some(down) = w.downtime_seconds {
        let source = match (w.startup_source, w.startup_observed_pods) {
            ("observed", Some(n)) => format!("start → Ready of its {n} running pod(s)"),
            _ => "--pod-startup default; no pod shows its start → Ready time".to_owned(),
        };
        parts.push(format!("down ~{} ({source})", duration(down)));
    }
    format!("{severity}  {}  {}", w.workload, parts.join("; "))
}

fn pdb_clause(w: &ImpactView) -> String {
    match (&w.pdb, &w.pdb_rule, w.pdb_allowed) {
        (Some(pdb), Some(rule), Some(allowed)) => {
            let budget = format!("PDB {pdb} ({rule}) allows {allowed} now");
            if w.zero_ready {
                format!("{budget}: lets the last ready replica go")
            } else if allowed == 0 {
                format!("{budget}: the drain waits for it")
            } else if !w.pdb_lets_all_go {
                format!("{budget}: drained in turns")
            } else {
                budget
            }
        }
        _ if !w.pdbs.is_empty() => {
            format!("PDBs {} all select its pods: the eviction API refuses them", w.pdbs.join(", "))
        }
        _ if w.zero_ready => "no PDB: nothing holds the last ready replica".to_owned(),
        _ => "no PDB".to_owned(),
    }
}

/// `2 workloads lose pods, 2 go to zero ready pods`.
pub(super) fn summary(impact: &[ImpactView]) -> String {
    let zero = impact.iter().filter(|w| w.zero_ready).count();
    let lose = match impact.len() {
        1 => "1 workload loses pods".to_owned(),
        n => format!("{n} workloads lose pods"),
    };
    match zero {
        0 => format!("{lose}, none goes to zero ready pods"),
        1 if impact.len() == 1 => format!("{lose} and goes to zero ready pods"),
        n => format!("{lose}, {n} go to zero ready pods"),
    }
}
