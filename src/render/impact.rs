//! The impact lines `explain` and `plan` print: per workload that loses pods, one sentence.

use std::collections::BTreeSet;

use super::format::duration;
use super::Styles;
use crate::report::impact::ImpactView;
use crate::report::prescription::PrescriptionView;

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

/// The lines under a harmed workload: the cheapest fix its replay verified (what it protects,
/// what it costs, its commands, the `--set` that replays it); the other verified fixes one line
/// each, or in full when `all` (`-o wide`); then those tried and not offered. A fix `shown` in
/// full under an earlier workload of the same report (one fix shared by several) is one line.
pub(super) fn fixes(w: &ImpactView, styles: &Styles, all: bool, shown: &mut BTreeSet<String>) -> Vec<String> {
    w.prescription.as_ref().map_or_else(Vec::new, |p| prescription(p, styles, all, shown))
}

/// A prescription's lines (shared with `pdb-audit`'s Fixes and `forecast`'s).
pub(super) fn prescription(
    p: &PrescriptionView,
    styles: &Styles,
    all: bool,
    shown: &mut BTreeSet<String>,
) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(why) = &p.not_replayed {
        out.push(format!("fixes not replayed: {why}"));
    }
    if p.fixes.is_empty() && p.not_replayed.is_none() {
        out.push("no fix tried protects it in the replay".to_owned());
    }
    for (i, f) in p.fixes.iter().enumerate() {
        let head = format!(
            "{} {}: protects {}; {}",
            Styles::paint(styles.ok, "fix"),
            f.change,
            f.protects.join(", "),
            cost(f)
        );
        if shown.contains(&f.replay_flags) {
            out.push(format!("{head} (its commands above)"));
            continue;
        }
        if i > 0 && !all {
            out.push(format!("{head} ({})", f.replay_flags));
            continue;
        }
        shown.insert(f.replay_flags.clone());
        out.push(head);
        for c in &f.commands {
            // A long payload spans lines inside its quotes: indenting them keeps it JSON.
            out.extend(laid_out(c).lines().map(|line| format!("  {line}")));
        }
        out.push(Styles::paint(styles.dim, format!("  replayed with: {}", f.replay_flags)));
    }
    if p.fixes.len() > 1 && !all {
        out.push(Styles::paint(styles.dim, "(-o wide or -o json: every fix's commands)"));
    }
    for r in &p.not_offered {
        out.push(Styles::paint(styles.dim, format!("not offered: {}: {}", r.change, r.why)));
    }
    out
}

/// `costs no savings`, `costs $140.16/month of savings, pins node-x`.
fn cost(f: &crate::report::prescription::FixView) -> String {
    if f.savings_lost_per_month == 0.0 && f.nodes_pinned.is_empty() {
        return "costs no savings".to_owned();
    }
    let pinned =
        if f.nodes_pinned.is_empty() { String::new() } else { format!(", pins {}", f.nodes_pinned.join(", ")) };
    format!("costs ${:.2}/month of savings{pinned}", f.savings_lost_per_month)
}

/// Payloads longer than this are laid over several lines: still one shell word (a single-quoted
/// word may hold newlines) and still JSON, but lines a terminal can show whole. (The narrowest
/// screen the tests check is 60 columns, and a fix's command starts 12 in.)
const ONE_LINE_PAYLOAD: usize = 40;

/// `command` as the text shows it: a `kubectl patch … -p '{…}'` whose payload is longer than
/// [`ONE_LINE_PAYLOAD`] gets it cut into lines; any other command as it is.
fn laid_out(command: &str) -> std::borrow::Cow<'_, str> {
    match command.split_once(" -p '") {
        Some((head, body)) if body.len() > ONE_LINE_PAYLOAD && body.ends_with('\'') => {
            format!("{head} -p '{}", packed(body, ONE_LINE_PAYLOAD)).into()
        }
        _ => command.into(),
    }
}

/// Compact JSON (shell-quoted) cut into lines of about `width` characters, only after a `{`, `[`
/// or `,` outside a string (JSON allows a newline between any two tokens), so it is the same
/// JSON. A shell's `'\''` can only stand inside a JSON string, where it is skipped like any text.
fn packed(compact: &str, width: usize) -> String {
    let mut pieces = Vec::new();
    let (mut start, mut in_string, mut escaped) = (0, false, false);
    for (i, c) in compact.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            '{' | '[' | ',' if !in_string => {
                pieces.push(&compact[start..=i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    pieces.push(&compact[start..]);
    let mut lines: Vec<String> = vec![String::new()];
    for piece in pieces {
        match lines.last_mut() {
            Some(line) if line.is_empty() || line.len() + piece.len() <= width => line.push_str(piece),
            _ => lines.push(piece.to_owned()),
        }
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_payload_spans_lines_inside_one_quoted_word() {
        let payload = serde_json::json!({"spec": {"template": {"spec": {"topologySpreadConstraints": [{"maxSkew": 1,
            "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway"}]}}}});
        let command = format!("kubectl patch deployment web -n ns --type=merge -p '{payload}'");
        assert_eq!(command.lines().count(), 1, "the data carries one line");
        let shown = laid_out(&command);
        assert!(shown.lines().count() > 1 && shown.lines().skip(1).all(|l| l.len() <= 45), "{shown}");
        let body = shown.split_once(" -p '").map(|(_, b)| b.trim_end_matches('\'')).unwrap();
        assert_eq!(serde_json::from_str::<serde_json::Value>(body).unwrap(), payload, "still the same JSON");
    }

    #[test]
    fn short_payloads_and_other_commands_stay_on_one_line() {
        let short = r#"kubectl patch pdb x -n ns --type=merge -p '{"a":"it'\''s"}'"#;
        assert_eq!(laid_out(short), short);
        let scale = "kubectl scale deployment/app-b -n tenant-a --replicas=2";
        assert_eq!(laid_out(scale), scale);
    }

    #[test]
    fn a_quote_inside_a_string_does_not_end_it() {
        let body = r#"{"metadata":{"annotations":{"note":"it'\''s, {not} [a] token"}},"spec":{"x":1}}'"#;
        let shown = packed(body, 10);
        assert!(shown.lines().any(|l| l.contains(r#""note":"it'\''s, {not} [a] token"}"#)), "{shown}");
    }
}
