//! `doctor`'s text and Markdown: the summary line, then each finding with Karpenter's side,
//! the replay's, the likely cause and what to check; then what could not be judged.

use std::fmt::Write;

use crate::report::doctor::{Doctor, Evidence, Finding};

pub(super) fn text(d: &Doctor, markdown: bool) -> String {
    let mut out = String::new();
    if markdown {
        let _ = writeln!(out, "**{}**\n", d.summary.line);
    } else {
        let _ = writeln!(out, "{}", d.summary.line);
    }
    for f in &d.findings {
        if markdown {
            finding_markdown(&mut out, f);
        } else {
            finding_text(&mut out, f);
        }
    }
    for n in &d.could_not_judge {
        let codes: Vec<&str> = n.findings.iter().map(|c| c.as_str()).collect();
        if markdown {
            let _ = writeln!(
                out,
                "\n> **could not judge** ({}): {} — not judged: {}",
                n.signal,
                n.reason,
                codes.join(", ")
            );
        } else {
            let _ = writeln!(out, "\ncould not judge ({}): {}\n  not judged: {}", n.signal, n.reason, codes.join(", "));
        }
    }
    out
}

fn subject(f: &Finding) -> String {
    match (&f.node, &f.node_pool) {
        (Some(n), _) => format!("node/{n}"),
        (None, Some(p)) => format!("nodepool/{p}"),
        (None, None) => "cluster".to_owned(),
    }
}

fn evidence_line(e: &Evidence) -> String {
    let mut line = format!("{} {}", e.object, e.text);
    if let Some(at) = e.at {
        let _ = write!(line, " (at {at}");
        if let Some(c) = e.count.filter(|c| *c > 1) {
            let _ = write!(line, ", {c} times");
        }
        line.push(')');
    }
    let _ = write!(line, " [{}]", e.emitter);
    line
}

fn finding_text(out: &mut String, f: &Finding) {
    let _ = writeln!(out, "\n{} {} {}", f.severity.to_string().to_uppercase(), f.code.as_str(), subject(f));
    for e in &f.karpenter {
        let _ = writeln!(out, "  karpenter:    {}", evidence_line(e));
    }
    let _ = writeln!(out, "  replay:       {}", f.replay);
    let _ = writeln!(out, "  likely cause: {}", f.cause);
    let _ = writeln!(out, "  check:        {}", f.check);
}

fn finding_markdown(out: &mut String, f: &Finding) {
    let _ = writeln!(out, "### {} `{}` {}\n", f.severity, f.code.as_str(), subject(f));
    for e in &f.karpenter {
        let _ = writeln!(out, "- **Karpenter:** {}", evidence_line(e));
    }
    let _ = writeln!(out, "- **Replay:** {}", f.replay);
    let _ = writeln!(out, "- **Likely cause:** {}", f.cause);
    let _ = writeln!(out, "- **Check:** {}\n", f.check);
}
