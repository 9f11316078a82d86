//! `diff` as text and Markdown: the change's parts, where its new pods went, the round before
//! and after, each node that moves with both sides' reasons and its cause, the commands added
//! and removed, and the workloads that start or stop going to zero ready pods.

use super::table::{kubectl, markdown, Fit};
use super::Styles;
use crate::report::diff::{DiffDoc, NodeSide, SideView};
use crate::report::plan::PlanCommand;

pub(super) fn text(d: &DiffDoc, styles: &Styles, md: bool, no_headers: bool, width: Option<usize>) -> String {
    let mut out = String::new();
    let title = |out: &mut String, t: &str| {
        if no_headers {
            return;
        }
        if md {
            out.push_str(&format!("\n### {t}\n\n"));
        } else {
            out.push_str(&format!("\n{}\n", Styles::paint(styles.bold, t)));
        }
    };
    let table = |headers: &[&str], rows: Vec<Vec<String>>, drop: &[&str]| {
        if md {
            markdown(headers, &rows)
        } else {
            kubectl(headers, rows, no_headers, Fit { width, drop })
        }
    };

    out.push_str(&summary_line(d));
    title(&mut out, "Changes");
    let rows = d
        .changes
        .iter()
        .map(|c| {
            let mut what = c.description.clone();
            if !c.fields.is_empty() {
                what = format!("{what}: {}", c.fields.join(", "));
            }
            if let Some(u) = &c.upstream {
                what = format!("{what} ({u})");
            }
            for n in &c.notes {
                what = format!("{what}; {n}");
            }
            let target = match &c.file {
                Some(f) => format!("{} ({f})", c.target),
                None => c.target.clone(),
            };
            vec![c.id.clone(), c.kind.to_owned(), target, what]
        })
        .collect();
    out.push_str(&table(&["ID", "KIND", "TARGET", "WHAT"], rows, &["KIND"]));
    if !d.ignored.is_empty() {
        out.push_str(&format!("ignored (the replay does not read these kinds): {}\n", d.ignored.join(", ")));
    }

    if !d.placed.is_empty() {
        title(&mut out, "New pods, placed before the round (after side)");
        for line in super::placement::lines(&d.placed) {
            out.push_str(&line);
            out.push('\n');
        }
    }

    title(&mut out, "The round, before and after");
    out.push_str(&table(&["", "BEFORE", "AFTER"], side_rows(&d.before, &d.after), &[]));

    title(&mut out, "Nodes that move");
    if d.nodes.is_empty() {
        out.push_str("no node's verdict, action or blockers change\n");
    } else {
        let rows = d
            .nodes
            .iter()
            .map(|n| {
                let cause = causes(&n.causes, n.attribution);
                vec![
                    n.name.clone(),
                    n.node_pool.clone().unwrap_or_else(|| "-".into()),
                    answer(n.before.as_ref()),
                    answer(n.after.as_ref()),
                    cause,
                ]
            })
            .collect();
        out.push_str(&table(&["NODE", "POOL", "BEFORE", "AFTER", "CAUSE"], rows, &["POOL"]));
        for n in &d.nodes {
            let why = |side: Option<&NodeSide>| {
                side.and_then(|s| s.reasons.first()).map_or_else(|| "-".to_owned(), |r| r.message.clone())
            };
            let (b, a) = (why(n.before.as_ref()), why(n.after.as_ref()));
            if md {
                out.push_str(&format!("\n- **{}**: before: {b}; after: {a}\n", n.name));
            } else {
                out.push_str(&format!("  {}\n    before: {b}\n    after:  {a}\n", n.name));
            }
        }
    }
    if let Some(why) = &d.attribution.cut_short {
        out.push_str(&format!("not attributed: {why}\n"));
    }

    if !d.command_changes.added.is_empty() || !d.command_changes.removed.is_empty() {
        title(&mut out, "Commands");
        for c in &d.command_changes.added {
            out.push_str(&format!("+ {}\n", command(c)));
        }
        for c in &d.command_changes.removed {
            out.push_str(&format!("- {}\n", command(c)));
        }
    }

    if !d.to_zero_ready.is_empty() || !d.no_longer_zero_ready.is_empty() {
        title(&mut out, "Workloads");
        let with_causes = |names: &[String]| -> String {
            let named = |w: &String| match d.workload_causes.iter().find(|c| &c.name == w) {
                Some(c) if !c.causes.is_empty() => format!("{w} ({})", causes(&c.causes, c.attribution)),
                _ => w.clone(),
            };
            names.iter().map(named).collect::<Vec<_>>().join(", ")
        };
        if !d.to_zero_ready.is_empty() {
            let line = format!("now go to zero ready pods: {}", with_causes(&d.to_zero_ready));
            out.push_str(&format!("{}\n", Styles::paint(styles.critical, &line)));
        }
        if !d.no_longer_zero_ready.is_empty() {
            out.push_str(&format!("no longer go to zero ready pods: {}\n", with_causes(&d.no_longer_zero_ready)));
        }
    }
    if let Some(f) = &d.forecast {
        title(&mut out, "Forecast");
        out.push_str(&super::forecast::comparison(f, md, no_headers, width));
    }
    out
}

/// `c1`, `c1, c2 (each alone)`, `c1+c2 (together)`; the attribution alone when no part is named.
fn causes(causes: &[String], attribution: &str) -> String {
    match (causes.len(), attribution) {
        (0, how) => how.to_owned(),
        (1, _) => causes[0].clone(),
        (_, "alone") => format!("{} (each alone)", causes.join(", ")),
        (_, how) => format!("{} ({how})", causes.join("+")),
    }
}

/// `2 nodes move; savings $0.1920/h → $0.0000/h; 1 workload now goes to zero ready pods.`
fn summary_line(d: &DiffDoc) -> String {
    let moved = match d.nodes.len() {
        0 => "no node moves".to_owned(),
        1 => "1 node moves".to_owned(),
        n => format!("{n} nodes move"),
    };
    let mut line = format!(
        "{moved}; savings {}/h → {}/h ({} → {} a month)",
        money(d.before.savings),
        money(d.after.savings),
        money_month(d.before.savings_per_month),
        money_month(d.after.savings_per_month)
    );
    if !d.to_zero_ready.is_empty() {
        line.push_str(&format!("; {} now to zero ready pods", d.to_zero_ready.len()));
    }
    if !d.no_longer_zero_ready.is_empty() {
        line.push_str(&format!("; {} no longer to zero ready pods", d.no_longer_zero_ready.len()));
    }
    line.push_str(".\n");
    line
}

fn money(x: f64) -> String {
    format!("${x:.4}")
}

fn money_month(x: f64) -> String {
    format!("${x:.0}")
}

fn side_rows(b: &SideView, a: &SideView) -> Vec<Vec<String>> {
    let pools = |s: &SideView| s.nodes_per_pool.iter().map(|(p, n)| format!("{p} {n}")).collect::<Vec<_>>().join(", ");
    let verdicts = |s: &SideView| s.verdicts.iter().map(|(v, n)| format!("{v} {n}")).collect::<Vec<_>>().join(", ");
    let zero = |s: &SideView| if s.zero_ready.is_empty() { "-".to_owned() } else { s.zero_ready.join(", ") };
    vec![
        vec!["rules".into(), b.karpenter_version.clone(), a.karpenter_version.clone()],
        vec!["method".into(), b.method.unwrap_or("-").into(), a.method.unwrap_or("-").into()],
        vec!["commands".into(), b.command_count.to_string(), a.command_count.to_string()],
        vec!["savings".into(), format!("{}/h", money(b.savings)), format!("{}/h", money(a.savings))],
        vec!["nodes".into(), pools(b), pools(a)],
        vec!["verdicts".into(), verdicts(b), verdicts(a)],
        vec!["zero ready".into(), zero(b), zero(a)],
    ]
}

/// `Blocked (PdbBlocked)`, `Underutilized → delete`, `-` when the node is not on that side.
fn answer(side: Option<&NodeSide>) -> String {
    let Some(s) = side else { return "-".into() };
    let verdict = format!("{:?}", s.verdict);
    let action = match s.action {
        crate::report::views::Action::Delete => " → delete",
        crate::report::views::Action::Replace => " → replace",
        crate::report::views::Action::None => "",
    };
    let blockers = if s.blockers.is_empty() {
        String::new()
    } else {
        format!(" ({})", s.blockers.iter().map(ToString::to_string).collect::<Vec<_>>().join(", "))
    };
    format!("{verdict}{action}{blockers}")
}

/// `SingleNode Underutilized replace node-1 → default c5.large (saves $0.0480/h)`.
fn command(c: &PlanCommand) -> String {
    let replacements: Vec<String> = c
        .replacements
        .iter()
        .map(|r| format!("{} {}", r.node_pool, r.instance_types.first().cloned().unwrap_or_default()))
        .collect();
    let to = if replacements.is_empty() { String::new() } else { format!(" → {}", replacements.join(", ")) };
    format!("{} {} {} {}{to} (saves {}/h)", c.method, c.reason, c.decision, c.candidates.join(", "), money(c.savings))
}
