//! The face of the product: `explain node/X` as numbered steps with a ✓/✗ per check, the
//! numbers behind each decision, the upstream reference dimmed, and what would change it.

use super::Styles;
use crate::report::explain::NodeExplanation;
use crate::report::{StepKind, Verdict};

fn step_title(kind: StepKind) -> &'static str {
    match kind {
        StepKind::Candidate => "Candidate",
        StepKind::Cost => "Cost",
        StepKind::Budget => "Budget",
        StepKind::Method => "Method",
        StepKind::Simulation => "Simulation",
        StepKind::Price => "Price",
        StepKind::Score => "Score",
        StepKind::Decision => "Decision",
    }
}

fn verdict_line(e: &NodeExplanation, styles: &Styles) -> String {
    let n = &e.node;
    let verdict = format!("{:?}", n.verdict);
    let style = match n.verdict {
        Verdict::Safe => styles.ok,
        Verdict::Blocked => styles.bad,
        _ => styles.warning,
    };
    let mut line = format!("node/{}  {}", n.name, Styles::paint(style, &verdict));
    match (n.verdict, n.reason) {
        (Verdict::Blocked, Some(r)) => line.push_str(&format!(" from {r}")),
        (_, _) if n.action != crate::report::Action::None => {
            line.push_str(&format!(" → {:?}", n.action).to_lowercase());
            if let Some(m) = n.method {
                line.push_str(&format!(" ({m})"));
            }
        }
        _ => {}
    }
    if !n.blockers.is_empty() {
        let codes: Vec<String> = n.blockers.iter().map(ToString::to_string).collect();
        line.push_str(&format!("  [{}]", codes.join(", ")));
    }
    line
}

/// `explain` as text. With a width (a terminal, not `-o wide`) every line fits it and the
/// upstream references move to a numbered list below the steps; piped or wide, each finding
/// carries its reference on its line.
pub(super) fn text(e: &NodeExplanation, styles: &Styles, wide: bool, width: Option<usize>) -> String {
    let n = &e.node;
    let mut out = e.looked_up.as_ref().map(|l| format!("{l}\n")).unwrap_or_default();
    out.push_str(&format!("{}\n", verdict_line(e, styles)));
    let facts = [
        n.node_pool.as_ref().map(|p| format!("nodepool {p}")),
        n.node_claim.as_ref().map(|c| format!("nodeclaim {c}")),
        n.instance_type.clone(),
        n.zone.clone(),
        n.capacity_type.clone(),
        Some(n.price.map_or_else(|| "price unknown".to_owned(), |p| format!("${p:.4}/h"))),
        Some(format!("{} pod(s)", n.pod_count)),
    ];
    let facts: Vec<String> = facts.into_iter().flatten().collect();
    out.push_str(&format!("  {}\n", facts.join(" · ")));
    let resources: Vec<String> = ["cpu", "memory", "pods"]
        .iter()
        .filter_map(|k| {
            let alloc = n.allocatable.get(*k)?;
            Some(format!("{k} {}/{alloc}", n.requested.get(*k).map_or("0", String::as_str)))
        })
        .collect();
    if !resources.is_empty() {
        out.push_str(&format!("  requested/allocatable: {}\n", resources.join(", ")));
    }
    out.push_str(&impact_block(e, styles, wide));
    out.push('\n');
    let mut hints = Vec::new();
    let mut references: Vec<crate::upstream::Upstream> = Vec::new();
    let mut number = 0;
    for (i, step) in e.steps.iter().enumerate() {
        let shows_pods = step.step == StepKind::Simulation || (step.step == StepKind::Method && i + 1 == e.steps.len());
        // A step with nothing to say is left out rather than printed as a bare mark.
        if step.findings.is_empty() && (!shows_pods || e.pods.is_empty()) {
            continue;
        }
        number += 1;
        let mark = if step.ok { Styles::paint(styles.ok, "✓") } else { Styles::paint(styles.bad, "✗") };
        let title = format!("{number:>2} {:<10} {mark}", step_title(step.step));
        if step.findings.is_empty() {
            out.push_str(&format!("{title}\n"));
        }
        for (j, f) in step.findings.iter().enumerate() {
            let prefix = if j == 0 { format!("{title} ") } else { format!("{:16}", "") };
            let reference = match width {
                Some(_) if !wide => {
                    let at = references.iter().position(|r| *r == f.upstream).unwrap_or_else(|| {
                        references.push(f.upstream);
                        references.len() - 1
                    });
                    Styles::paint(styles.dim, format!("[{}]", at + 1))
                }
                _ => Styles::paint(styles.dim, f.upstream),
            };
            let line = format!("{prefix}{}: {}  {reference}", Styles::paint(styles.code, f.code), f.message);
            push_fitted(&mut out, &line, width, if j == 0 { 15 } else { 2 });
            if let Some(h) = &f.hint {
                hints.push(format!("{}: {h}", f.code));
            }
        }
        if shows_pods {
            for p in &e.pods {
                out.push_str(&format!("{:16}{} → {}", "", p.pod, p.to));
                let why = if wide { p.why.join("; ") } else { p.why.first().cloned().unwrap_or_default() };
                // The scheduler's summary with nothing tried reads "0/0 nodes are available: ",
                // alone or after what was tried instead ("new NodeClaim from …; 0/0 …").
                let why = match why.trim_end().strip_suffix("0/0 nodes are available:") {
                    Some(before) => format!("{before}no existing node to try"),
                    None => why,
                };
                if !why.is_empty() {
                    out.push_str(&format!("  ({why})"));
                }
                out.push('\n');
                if wide {
                    for r in &p.rejected_by {
                        out.push_str(&format!("{:20}✗ {r}\n", ""));
                    }
                }
            }
        }
    }
    out.push_str(&events_block(e, styles));
    if !hints.is_empty() || !e.what_would_change.is_empty() {
        out.push_str("\nWhat would change this:\n");
        for h in hints {
            out.push_str(&format!("  - {h}\n"));
        }
        for u in &e.what_would_change {
            let outcome = match (u.frees, u.savings, u.savings_per_month) {
                (true, Some(h), Some(m)) => format!("frees it ({:?}), unlocking ${h:.4}/h (${m:.2}/month)", u.verdict),
                (true, _, _) => format!("frees it ({:?}), not in this round's command", u.verdict),
                (false, _, _) => format!("does not free it alone (still {:?})", u.verdict),
            };
            out.push_str(&format!("  - replayed with {}: {outcome}\n", u.change));
        }
        if let Some(max) = e.what_would_change.first().map(|u| u.max_replays) {
            out.push_str(&format!("  (each change replayed alone; at most {max} replays)\n"));
        }
    }
    if !references.is_empty() {
        out.push_str("\nReferences (upstream functions making the same decision; -o wide shows them inline):\n");
        for (i, r) in references.iter().enumerate() {
            out.push_str(&format!("  [{}] {r}\n", i + 1));
        }
    }
    for o in &e.overrides {
        out.push_str(&format!("override: {o}\n"));
    }
    for line in super::placement::lines(&e.placements) {
        out.push_str(&format!("{line}\n"));
    }
    for u in &e.uncertain {
        out.push_str(&format!("{} {}\n", Styles::paint(styles.warning, "uncertain:"), u.message));
    }
    out
}

/// Karpenter's latest events beside the verdict: the newest per reason, with how often and
/// when it was last published and the upstream code that publishes it.
fn events_block(e: &NodeExplanation, styles: &Styles) -> String {
    if e.events.is_empty() {
        return String::new();
    }
    let mut out = "\nKarpenter's latest events (newest per reason):\n".to_owned();
    for ev in &e.events {
        let at = ev.at.map_or_else(|| "time unknown".to_owned(), |t| t.to_string());
        let times = if ev.count > 1 { format!(" ({} times)", ev.count) } else { String::new() };
        let flag = if ev.disagrees {
            Styles::paint(styles.warning, "  ← doctor: disagrees with this replay")
        } else {
            String::new()
        };
        out.push_str(&format!(
            "  {at}  {} {}: {}{times}{flag}
",
            ev.object, ev.reason, ev.message
        ));
        out.push_str(&format!("      {}\n", Styles::paint(styles.dim, format!("by {}", ev.emitter))));
    }
    out
}

/// What disrupting this node does to the workloads on it, whatever the verdict.
fn impact_block(e: &NodeExplanation, styles: &Styles, wide: bool) -> String {
    let name = &e.node.name;
    if e.impact.is_empty() {
        return format!("  impact if {name} is disrupted: no workload loses pods\n");
    }
    let mut out = format!("\nImpact if {name} is disrupted: {}\n", super::impact::summary(&e.impact));
    let mut shown = std::collections::BTreeSet::new();
    for w in &e.impact {
        out.push_str(&format!("  {}\n", super::impact::line(w, styles)));
        for fix in super::impact::fixes(w, styles, wide, &mut shown) {
            out.push_str(&format!("      {fix}\n"));
        }
    }
    out
}

/// One line, wrapped to the width when there is one (continuations `hang` columns deeper).
fn push_fitted(out: &mut String, line: &str, width: Option<usize>, hang: usize) {
    if let Some(w) = width {
        for piece in super::fit::wrap(line, w, hang) {
            out.push_str(&piece);
            out.push('\n');
        }
    } else {
        out.push_str(line);
        out.push('\n');
    }
}

pub(super) fn markdown(e: &NodeExplanation) -> String {
    let mut out = format!("## {}\n\n", verdict_line(e, &Styles::plain()));
    for (i, step) in e.steps.iter().enumerate() {
        for f in &step.findings {
            out.push_str(&format!(
                "{}. **{}** {} `{}` {} — _{}_\n",
                i + 1,
                step_title(step.step),
                if step.ok { "✓" } else { "✗" },
                f.code,
                f.message,
                f.upstream
            ));
        }
    }
    if !e.events.is_empty() {
        out.push_str("\n### Karpenter's latest events (newest per reason)\n\n");
        for ev in &e.events {
            let at = ev.at.map_or_else(|| "time unknown".to_owned(), |t| t.to_string());
            let times = if ev.count > 1 { format!(" ({} times)", ev.count) } else { String::new() };
            let flag = if ev.disagrees { " **← doctor: disagrees with this replay**" } else { "" };
            out.push_str(&format!(
                "- {at} `{}` **{}**: {}{times}{flag} — _{}_\n",
                ev.object, ev.reason, ev.message, ev.emitter
            ));
        }
    }
    out
}
