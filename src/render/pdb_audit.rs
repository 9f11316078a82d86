//! `pdb-audit` as a kubectl-style table with a fixes section below it, or as Markdown.

use super::table::{kubectl, kubectl_whole, markdown as markdown_table, Fit};
use super::Styles;
use crate::report::pdb_audit::{Finding, PdbAudit};
use crate::report::views::Severity;

const HEADERS: [&str; 7] = ["SEVERITY", "PDB", "WORKLOAD", "REPLICAS", "CODE", "NODE", "MESSAGE"];
const WIDE_HEADERS: [&str; 10] =
    ["SEVERITY", "PDB", "WORKLOAD", "REPLICAS", "CODE", "NODE", "NODEPOOL", "ALLOWED", "MESSAGE", "FIX"];

fn severity_style(severity: Severity, styles: &Styles) -> owo_colors::Style {
    match severity {
        Severity::Critical => styles.critical,
        Severity::Warning => styles.warning,
        Severity::Info => styles.info,
    }
}

fn or_none(text: Option<&str>) -> String {
    text.filter(|t| !t.is_empty()).map_or_else(|| "<none>".to_owned(), str::to_owned)
}

/// `3`, `3 (min 1)`, `3 (max 10)`, or `-`.
fn replicas(f: &Finding) -> String {
    match (f.replicas, f.min_replicas, f.max_replicas) {
        (None, _, _) => "-".to_owned(),
        (Some(n), Some(min), _) if min < n => format!("{n} (min {min})"),
        (Some(n), _, Some(max)) if max > n => format!("{n} (max {max})"),
        (Some(n), _, _) => n.to_string(),
    }
}

/// `node-a`, `node-a,node-b`, `node-a,node-b,+3`.
fn nodes(names: &[String]) -> String {
    match names.len() {
        0 => "<none>".to_owned(),
        1..=2 => names.join(","),
        n => format!("{},+{}", names[..2].join(","), n - 2),
    }
}

/// The workload the finding is about, or every workload when its PDB selects several (a
/// finding filed under the first alone would hide the others the same budget holds).
fn workloads(f: &Finding) -> String {
    if f.workloads.len() > 1 {
        nodes(&f.workloads)
    } else {
        or_none(f.workload.as_deref())
    }
}

/// `disruptionsAllowed` now, and what the spec would allow when that differs.
fn allowed(f: &Finding) -> String {
    match (f.status.map(|s| s.disruptions_allowed), f.allowed) {
        (Some(now), Some(spec)) if now != spec => format!("{now} (spec {spec})"),
        (Some(now), _) => now.to_string(),
        (None, Some(spec)) => spec.to_string(),
        (None, None) => "-".to_owned(),
    }
}

fn row(f: &Finding, styles: &Styles, wide: bool) -> Vec<String> {
    let mut row = vec![
        Styles::paint(severity_style(f.severity, styles), f.severity),
        or_none(f.pdb.as_deref()),
        workloads(f),
        replicas(f),
        Styles::paint(styles.code, f.code),
        nodes(&f.nodes),
    ];
    if wide {
        row.push(if f.node_pools.is_empty() { "<none>".to_owned() } else { f.node_pools.join(",") });
        row.push(allowed(f));
    }
    row.push(f.message.clone());
    if wide {
        row.push(f.fix.clone());
    }
    row
}

/// Which findings share one fix: identical advice is printed once.
/// Findings that share one fix: the findings, the change, its trade-off.
type FixGroup<'a> = (Vec<&'a Finding>, &'a str, &'a str);

fn grouped_fixes(audit: &PdbAudit) -> Vec<FixGroup<'_>> {
    let mut groups: Vec<FixGroup<'_>> = Vec::new();
    for f in &audit.findings {
        match groups.iter_mut().find(|(_, fix, trade_off)| *fix == f.fix && *trade_off == f.trade_off) {
            Some(group) => group.0.push(f),
            None => groups.push((vec![f], &f.fix, &f.trade_off)),
        }
    }
    groups
}

fn subject(f: &Finding) -> String {
    f.pdb.clone().or_else(|| f.workload.clone()).unwrap_or_default()
}

fn scope_text(audit: &PdbAudit) -> String {
    let mut text = match (&audit.scope.namespace, audit.scope.all_namespaces) {
        (_, true) | (None, _) => "all namespaces".to_owned(),
        (Some(ns), false) => format!("namespace {ns}"),
    };
    if let Some(selector) = &audit.scope.selector {
        text.push_str(&format!(" with -l {selector}"));
    }
    text
}

fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// The audit's columns a narrow screen does without, first to last.
const AUDIT_DROP: [&str; 3] = ["REPLICAS", "NODE", "PDB"];

/// Where a finding's message starts under its row.
const MESSAGE_INDENT: usize = 4;

/// The findings as rows, each followed by its message as prose under it (kube-score's layout):
/// a message is a sentence, and a cell would cut it to what the other columns leave. On a
/// screen the message wraps at the width under its indentation; piped it is one whole line.
/// `-o wide` keeps MESSAGE and FIX as columns, whole.
fn rows_with_messages(audit: &PdbAudit, styles: &Styles, no_headers: bool, width: Option<usize>) -> String {
    let headers = &HEADERS[..HEADERS.len() - 1];
    let rows = audit
        .findings
        .iter()
        .map(|f| {
            let mut r = row(f, styles, false);
            r.pop();
            r
        })
        .collect();
    let fitted = kubectl_whole(headers, rows, no_headers, Fit { width, drop: &AUDIT_DROP });
    let mut lines = fitted.text.lines();
    let mut out = String::new();
    if !no_headers {
        out.extend(lines.next().map(|h| format!("{h}\n")));
    }
    let indent = " ".repeat(MESSAGE_INDENT);
    for (line, f) in lines.zip(&audit.findings) {
        out.push_str(line);
        out.push('\n');
        let message = format!("{indent}{}", f.message);
        let wrapped = width.map_or_else(|| vec![message.clone()], |w| super::fit::wrap(&message, w, 0));
        for piece in wrapped {
            out.push_str(piece.trim_end());
            out.push('\n');
        }
    }
    if !no_headers {
        out.push_str(&fitted.dropped_note());
    }
    out
}

/// The table, then the fixes, then what could not be judged.
pub(super) fn table(audit: &PdbAudit, styles: &Styles, wide: bool, no_headers: bool, width: Option<usize>) -> String {
    let s = &audit.summary;
    if audit.findings.is_empty() && !no_headers {
        let mut out = format!(
            "No findings in {}: {} and {} audited.\n",
            scope_text(audit),
            plural(s.pdbs, "PodDisruptionBudget"),
            plural(s.workloads, "workload")
        );
        out.push_str(&skipped_text(audit, styles));
        return out;
    }
    let mut out = if wide {
        let rows = audit.findings.iter().map(|f| row(f, styles, true)).collect();
        kubectl(&WIDE_HEADERS, rows, no_headers, Fit { width, drop: &AUDIT_DROP })
    } else {
        rows_with_messages(audit, styles, no_headers, width)
    };
    if no_headers {
        return out;
    }
    out.push_str(&format!(
        "\n{}, {}, {} in {} ({} and {} audited).\n",
        Styles::paint(styles.critical, format!("{} critical", s.critical)),
        Styles::paint(styles.warning, plural(s.warning, "warning")),
        Styles::paint(styles.info, format!("{} info", s.info)),
        scope_text(audit),
        plural(s.pdbs, "PodDisruptionBudget"),
        plural(s.workloads, "workload")
    ));
    let (listed, info_only) = listed_fixes(audit);
    if !listed.is_empty() {
        out.push_str(&Styles::paint(styles.bold, "\nFixes:\n"));
    }
    let mut shown = std::collections::BTreeSet::new();
    for (i, (findings, fix, trade_off)) in listed.into_iter().enumerate() {
        let about: Vec<String> =
            findings.iter().map(|f| format!("{} {}", subject(f), Styles::paint(styles.code, f.code))).collect();
        let number = format!("{}. ", i + 1);
        let indent = " ".repeat(number.len());
        out.push_str(&format!("{number}{}\n", about.join("; ")));
        out.push_str(&format!("{indent}{fix}\n"));
        out.push_str(&format!("{indent}{}\n", Styles::paint(styles.dim, format!("Trade-off: {trade_off}"))));
        if let Some(replayed) = findings.iter().find_map(|f| f.replayed_fixes.as_ref()) {
            out.push_str(&format!("{indent}Replayed on this round (as plan shows it):\n"));
            for line in super::impact::prescription(replayed, styles, wide, &mut shown) {
                out.push_str(&format!("{indent}  {line}\n"));
            }
        }
    }
    if info_only > 0 {
        let what = if info_only == 1 { "1 info finding has a fix" } else { "info findings have fixes" };
        out.push_str(&format!("\n{}\n", Styles::paint(styles.dim, format!("{what} too: --fixes all lists them"))));
    }
    out.push_str(&skipped_text(audit, styles));
    out
}

/// The fix groups the text lists (only those with a critical or warning finding, unless
/// `--fixes all`), and how many info-only groups were left out.
fn listed_fixes(audit: &PdbAudit) -> (Vec<FixGroup<'_>>, usize) {
    let groups = grouped_fixes(audit);
    if audit.info_fixes {
        return (groups, 0);
    }
    let total = groups.len();
    let listed: Vec<_> =
        groups.into_iter().filter(|(findings, _, _)| findings.iter().any(|f| f.severity != Severity::Info)).collect();
    let left = total - listed.len();
    (listed, left)
}

fn skipped_text(audit: &PdbAudit, styles: &Styles) -> String {
    if audit.skipped.is_empty() {
        return String::new();
    }
    let mut out = Styles::paint(styles.bold, "\nSkipped (could not be judged):\n");
    for s in &audit.skipped {
        out.push_str(&format!("  {} ({}): {}\n", Styles::paint(styles.code, s.code), s.what, s.reason));
    }
    out
}

/// The audit as Markdown (for a pull request or an issue).
pub(super) fn markdown(audit: &PdbAudit) -> String {
    let s = &audit.summary;
    let mut out = format!(
        "## PodDisruptionBudget audit: {}\n\n{} critical, {}, {} info ({} and {} audited).\n",
        scope_text(audit),
        s.critical,
        plural(s.warning, "warning"),
        s.info,
        plural(s.pdbs, "PodDisruptionBudget"),
        plural(s.workloads, "workload")
    );
    if !audit.findings.is_empty() {
        let rows: Vec<Vec<String>> = audit
            .findings
            .iter()
            .map(|f| {
                vec![
                    f.severity.to_string(),
                    f.pdb.as_deref().map_or_else(|| "—".to_owned(), |p| format!("`{p}`")),
                    if f.workloads.len() > 1 {
                        f.workloads.iter().map(|w| format!("`{w}`")).collect::<Vec<_>>().join(", ")
                    } else {
                        f.workload.as_deref().map_or_else(|| "—".to_owned(), |w| format!("`{w}`"))
                    },
                    replicas(f),
                    format!("`{}`", f.code),
                    if f.nodes.is_empty() { "—".to_owned() } else { f.nodes.join(", ") },
                    f.message.clone(),
                ]
            })
            .collect();
        out.push('\n');
        out.push_str(&markdown_table(&["Severity", "PDB", "Workload", "Replicas", "Code", "Node", "Message"], &rows));
        let (listed, _) = listed_fixes(audit);
        if !listed.is_empty() {
            out.push_str("\n### Fixes\n\n");
        }
        for (i, (findings, fix, trade_off)) in listed.into_iter().enumerate() {
            let about: Vec<String> = findings.iter().map(|f| format!("`{}` {}", subject(f), f.code)).collect();
            out.push_str(&format!("{}. {}\n", i + 1, about.join("; ")));
            if fix.starts_with("kubectl ") {
                out.push_str(&format!("   ```sh\n   {fix}\n   ```\n"));
            } else {
                out.push_str(&format!("   {fix}\n"));
            }
            out.push_str(&format!("   *Trade-off:* {trade_off}\n"));
        }
    }
    if !audit.skipped.is_empty() {
        out.push_str("\n### Skipped (could not be judged)\n\n");
        for s in &audit.skipped {
            out.push_str(&format!("- `{}` ({}): {}\n", s.code, s.what, s.reason));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{markdown, table};
    use crate::render::Styles;
    use crate::testing::demo_pdb_audit as demo_audit;

    #[test]
    fn demo_table() {
        insta::assert_snapshot!(table(&demo_audit(), &Styles::plain(), false, false, None));
    }

    #[test]
    fn demo_wide_table() {
        insta::assert_snapshot!(table(&demo_audit(), &Styles::plain(), true, false, None));
    }

    #[test]
    fn demo_markdown() {
        insta::assert_snapshot!(markdown(&demo_audit()));
    }

    #[test]
    fn no_headers_prints_rows_only() {
        let text = table(&demo_audit(), &Styles::plain(), false, true, None);
        assert!(!text.contains("SEVERITY") && !text.contains("Fixes:"));
        let severity = |l: &str| l.starts_with("critical") || l.starts_with("warning") || l.starts_with("info");
        assert!(text.lines().all(|l| severity(l) || l.starts_with("    ")), "{text}");
        assert_eq!(text.lines().filter(|l| severity(l)).count(), demo_audit().findings.len());
    }

    #[test]
    fn each_message_is_prose_under_its_row_whole_when_piped_and_wrapped_on_a_screen() {
        let audit = demo_audit();
        let message = &audit.findings[0].message;
        let piped = table(&audit, &Styles::plain(), false, false, None);
        let lines: Vec<&str> = piped.lines().collect();
        assert!(lines[0].starts_with("SEVERITY") && !lines[0].contains("MESSAGE"), "{piped}");
        assert!(lines[1].starts_with("critical"), "{piped}");
        assert_eq!(lines[2], format!("    {message}"), "the whole message under its row");
        let narrow = table(&audit, &Styles::plain(), false, false, Some(70));
        // The rows and messages fit (the notes, summary and fixes are wrapped by `render`).
        let rows = narrow.lines().take_while(|l| !l.is_empty()).filter(|l| !l.starts_with('('));
        assert!(rows.clone().all(|l| super::super::fit::visible_width(l) <= 70), "{narrow}");
        let under: Vec<&str> = narrow.lines().skip(2).take_while(|l| l.starts_with("    ")).collect();
        assert!(under.len() > 1, "wrapped: {narrow}");
        assert_eq!(under.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" "), *message, "nothing cut");
    }
}
