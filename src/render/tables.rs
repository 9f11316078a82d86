//! Tables for `plan`, `score` and `budgets`.

use super::table::{kubectl, markdown, price, Fit};
use super::Styles;
use crate::reason::Code;
use crate::report::budgets::Budgets;
use crate::report::plan::{NodeSummary, Plan};
use crate::report::score::Score;
use crate::report::{Action, Verdict};

fn verdict_text(v: Verdict, styles: &Styles) -> String {
    let (text, style) = match v {
        Verdict::Empty => ("Empty", styles.warning),
        Verdict::Drifted => ("Drifted", styles.warning),
        Verdict::Underutilized => ("Underutilized", styles.warning),
        Verdict::Blocked => ("Blocked", styles.bad),
        Verdict::Safe => ("Safe", styles.ok),
    };
    Styles::paint(style, text)
}

fn action_text(n: &NodeSummary) -> &'static str {
    match n.action {
        Action::Delete => "delete",
        Action::Replace => "replace",
        Action::None => "-",
    }
}

/// The finding a reader needs first: the first blocker, else the deciding finding.
fn headline(n: &NodeSummary) -> String {
    if let Some(code) = n.blockers.first() {
        if let Some(r) = n.reasons.iter().find(|r| r.code == *code) {
            return format!("{}: {}", r.code, r.message);
        }
    }
    // A node that qualifies but is not in this round's command says why not.
    // So does one the round never reached: an earlier method's error ended it.
    if let Some(r) =
        n.reasons.iter().find(|r| r.code == Code::WaitingForOtherMethod || r.upstream == crate::upstream::RECONCILE)
    {
        return format!("{}: {}", r.code, r.message);
    }
    let deciding = n.reasons.iter().rev().find(|r| {
        !matches!(
            r.code,
            Code::Candidate
                | Code::DisruptionCost
                | Code::BudgetAllowed
                | Code::NotEmpty
                | Code::NotDrifted
                | Code::Uncertain
        )
    });
    deciding.map_or_else(String::new, |r| format!("{}: {}", r.code, r.message))
}

/// The plan's columns a narrow screen does without, first to last (NODE, VERDICT and WHY stay).
const PLAN_DROP: [&str; 7] = ["DISRUPTION", "CAPACITY", "INSTANCE-TYPE", "PODS", "NODEPOOL", "PRICE/H", "ACTION"];

pub(super) fn plan(p: &Plan, styles: &Styles, wide: bool, no_headers: bool, width: Option<usize>) -> String {
    let mut out = String::new();
    if !no_headers {
        out.push_str(&round_summary(p, styles));
        if !p.impact.is_empty() {
            out.push_str(&format!("Impact of this round: {}\n", super::impact::summary(&p.impact)));
            let mut shown = std::collections::BTreeSet::new();
            for w in &p.impact {
                out.push_str(&format!("  {}\n", super::impact::line(w, styles)));
                for fix in super::impact::fixes(w, styles, wide, &mut shown) {
                    out.push_str(&format!("      {fix}\n"));
                }
            }
        }
        out.push('\n');
    }
    let mut headers =
        vec!["NODE", "NODEPOOL", "INSTANCE-TYPE", "CAPACITY", "PRICE/H", "PODS", "DISRUPTION", "VERDICT", "ACTION"];
    if wide {
        headers.extend(["ZONE", "NODECLAIM", "CPU REQ/ALLOC", "MEMORY REQ/ALLOC", "BLOCKERS"]);
    }
    headers.push("WHY");
    let rows = p
        .nodes
        .iter()
        .map(|n| {
            let mut row = vec![
                n.name.clone(),
                n.node_pool.clone().unwrap_or_else(|| "-".into()),
                n.instance_type.clone().unwrap_or_else(|| "-".into()),
                n.capacity_type.clone().unwrap_or_else(|| "-".into()),
                price(n.price),
                n.pod_count.to_string(),
                format!("{:.2}", n.disruption_cost),
                verdict_text(n.verdict, styles),
                action_text(n).to_owned(),
            ];
            if wide {
                row.push(n.zone.clone().unwrap_or_else(|| "-".into()));
                row.push(n.node_claim.clone().unwrap_or_else(|| "-".into()));
                let usage = |k: &str| match n.allocatable.get(k) {
                    Some(alloc) => format!("{}/{alloc}", n.requested.get(k).map_or("0", String::as_str)),
                    None => "-".to_owned(),
                };
                row.push(usage("cpu"));
                row.push(usage("memory"));
                let codes: Vec<String> = n.blockers.iter().map(ToString::to_string).collect();
                row.push(if codes.is_empty() { "-".into() } else { codes.join(",") });
            }
            // Piped (no width) the WHY is whole, as `-o wide` has it: only a screen cuts.
            row.push(headline(n));
            row
        })
        .collect();
    if let (Some(s), false) = (&p.selection, no_headers) {
        out.push_str(&format!("Showing {s}\n"));
    }
    out.push_str(&kubectl(&headers, rows, no_headers, Fit { width, drop: &PLAN_DROP }));
    for u in &p.uncertain {
        out.push_str(&format!("{} {}\n", Styles::paint(styles.warning, "uncertain:"), u.message));
    }
    out
}

fn round_summary(p: &Plan, styles: &Styles) -> String {
    let mut out = match p.method {
        None => format!("Round at {}: no method acts; Karpenter would do nothing now.\n", p.captured_at),
        Some(m) => format!(
            "Round at {}: {} acts with {} command(s).\n",
            p.captured_at,
            Styles::paint(styles.bold, m),
            p.commands.len()
        ),
    };
    for c in &p.commands {
        let replacements: Vec<String> = c
            .replacements
            .iter()
            .map(|r| {
                if r.instance_types.is_empty() {
                    // StaticDrift launches from the pool's template, with no simulation.
                    return format!("a NodeClaim from NodePool {}'s template", r.node_pool);
                }
                let types = crate::reason::abbreviate(&r.instance_types);
                format!("[{types}] {}", r.capacity_type)
            })
            .collect();
        let target = if replacements.is_empty() { String::new() } else { format!(" -> {}", replacements.join(", ")) };
        // Drift replaces whatever it costs: say the cost, not a saving of zero.
        let money = match c.replacement_cost {
            Some(cost) if c.reason == "Drifted" => {
                format!("replacement up to ${cost:.4}/h vs ${:.4}/h now", c.candidates_price)
            }
            None if c.reason == "Drifted" && c.decision == "replace" => {
                format!(
                    "${:.4}/h now; the replacement's price is unknown, and drift does not check it",
                    c.candidates_price
                )
            }
            _ => format!("savings ${:.4}/h", c.savings),
        };
        out.push_str(&format!("- {} {}: {}{target} ({money})\n", c.reason, c.decision, c.candidates.join(", ")));
    }
    for o in &p.overrides {
        out.push_str(&format!("- override: {o}\n"));
    }
    for line in super::placement::lines(&p.placements) {
        out.push_str(&format!("- {line}\n"));
    }
    out.push_str(&at_a_glance(p));
    out
}

/// `NodePool default: 10 nodes, $1.9200/h, cpu 27.5%, memory 8.1%` per pool, then the round.
fn at_a_glance(p: &Plan) -> String {
    let s = &p.summary;
    let mut out = String::new();
    for pool in &s.node_pools {
        let percent = |v: Option<f64>| v.map_or_else(|| "?".to_owned(), |v| format!("{v:.1}%"));
        out.push_str(&format!(
            "NodePool {}: {} node(s), ${:.4}/h, requests cpu {}, memory {} of allocatable\n",
            pool.node_pool,
            pool.nodes,
            pool.price_per_hour,
            percent(pool.cpu_percent),
            percent(pool.memory_percent)
        ));
    }
    let verdicts: Vec<String> = s.verdicts.iter().map(|(v, n)| format!("{n} {v}")).collect();
    let mut round = format!(
        "This round saves ${:.4}/h (${:.2}/month); verdicts: {}",
        s.savings,
        s.savings_per_month,
        verdicts.join(", ")
    );
    if !s.top_blockers.is_empty() {
        let blockers: Vec<String> = s.top_blockers.iter().map(|b| format!("{} on {}", b.code, b.nodes)).collect();
        round.push_str(&format!("; top blockers: {}", blockers.join(", ")));
    }
    if !s.zero_ready.is_empty() {
        round.push_str(&format!("; to zero ready pods: {}", s.zero_ready.join(", ")));
    }
    out.push_str(&round);
    out.push('\n');
    out
}

pub(super) fn plan_markdown(p: &Plan) -> String {
    let mut out =
        format!("## Consolidation plan\n\n{}\n", round_summary(p, &Styles::plain()).replace("\n- ", "\n\n- "));
    let rows: Vec<Vec<String>> = p
        .nodes
        .iter()
        .map(|n| {
            vec![
                n.name.clone(),
                n.node_pool.clone().unwrap_or_default(),
                n.instance_type.clone().unwrap_or_default(),
                price(n.price),
                format!("{:?}", n.verdict),
                action_text(n).to_owned(),
                headline(n),
            ]
        })
        .collect();
    out.push_str(&markdown(&["Node", "NodePool", "Type", "Price/h", "Verdict", "Action", "Why"], &rows));
    out
}

/// The score's columns a narrow screen does without, first to last.
const SCORE_DROP: [&str; 4] = ["PODS", "DISRUPTION", "PRICE/H", "SAVINGS/H"];

pub(super) fn score(s: &Score, styles: &Styles, wide: bool, no_headers: bool, width: Option<usize>) -> String {
    let mut headers = vec!["NODE", "PRICE/H", "PODS", "DISRUPTION", "BEST MOVE", "SAVINGS/H", "SCORE", "BALANCED"];
    if wide {
        headers.extend(["SAVINGS%", "DISRUPTION%", "COST TERMS"]);
    }
    let rows = s
        .candidates
        .iter()
        .map(|c| {
            let best = match c.decision {
                "replace" => format!("replace → {}", c.replacement.first().cloned().unwrap_or_default()),
                "delete" => "delete".to_owned(),
                _ => c.no_move.as_ref().map_or_else(|| "none".to_owned(), |r| format!("none ({})", r.code)),
            };
            let verdict = match (c.decision, c.approved) {
                ("none", _) => "-".to_owned(),
                (_, true) => Styles::paint(styles.ok, "✓ approved"),
                (_, false) => Styles::paint(styles.bad, "✗ rejected"),
            };
            let mut row = vec![
                c.node.clone(),
                price(c.price),
                c.pods.to_string(),
                format!("{:.2}", c.disruption_cost),
                best,
                format!("${:.3}", c.savings),
                c.score
                    .map_or_else(|| if c.decision == "none" { "-".into() } else { "∞".into() }, |v| format!("{v:.2}")),
                verdict,
            ];
            if wide {
                row.push(format!("{:.1}%", c.savings_percent));
                row.push(format!("{:.1}%", c.disruption_percent));
                row.push(c.cost_terms.clone());
            }
            row
        })
        .collect();
    let mut out = match (&s.selection, no_headers) {
        (Some(selection), false) => format!("Showing {selection}\n"),
        _ => String::new(),
    };
    out.push_str(&kubectl(&headers, rows, no_headers, Fit { width, drop: &SCORE_DROP }));
    out.push_str(&format!(
        "pool {}: policy {}{}, cost ${:.4}/h, disruption {:.2}, baseline {:.4} $/h per unit of disruption, k={}: approve when score >= {:.2}\n",
        s.node_pool,
        s.policy,
        if s.what_if { " (scores show what Balanced would do)" } else { "" },
        s.pool_cost,
        s.pool_disruption_cost,
        s.baseline,
        s.k,
        s.threshold,
    ));
    for o in &s.overrides {
        out.push_str(&format!("override: {o}\n"));
    }
    out
}

pub(super) fn score_markdown(s: &Score) -> String {
    let rows: Vec<Vec<String>> = s
        .candidates
        .iter()
        .map(|c| {
            vec![
                c.node.clone(),
                price(c.price),
                format!("{:.2}", c.disruption_cost),
                c.decision.to_owned(),
                format!("${:.4}", c.savings),
                c.score.map_or_else(|| "-".into(), |v| format!("{v:.2}")),
                if c.approved { "approved".into() } else { "rejected".into() },
            ]
        })
        .collect();
    format!(
        "## Balanced score: nodepool/{}\n\n{}\nPool cost ${:.2}/h, disruption {:.2}, threshold {:.2}.\n",
        s.node_pool,
        markdown(&["Node", "Price/h", "Cost", "Move", "Savings", "Score", "Verdict"], &rows),
        s.pool_cost,
        s.pool_disruption_cost,
        s.threshold
    )
}

fn budget_rows(b: &Budgets, wide: bool) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for pool in &b.node_pools {
        for r in &pool.reasons {
            let show = |v: Option<i64>| v.map_or_else(|| "unbounded".to_owned(), |v| v.to_string());
            let window = pool
                .budgets
                .iter()
                .filter(|s| s.reasons.as_ref().is_none_or(|rs| rs.iter().any(|x| x == r.reason)))
                .filter_map(|s| {
                    s.window_closes_at
                        .map(|t| format!("{} closes {t}", s.nodes))
                        .or_else(|| s.window_opens_at.map(|t| format!("{} opens {t}", s.nodes)))
                        .or_else(|| s.error.as_ref().map(|e| format!("error: {e}")))
                })
                .collect::<Vec<_>>()
                .join("; ");
            let mut row = vec![
                pool.node_pool.clone(),
                r.reason.to_owned(),
                pool.nodes.to_string(),
                show(r.allowed),
                pool.in_flight.len().to_string(),
                show(r.remaining),
                if window.is_empty() { "-".into() } else { window },
            ];
            let active: Vec<String> = pool
                .budgets
                .iter()
                .filter(|s| s.active && s.reasons.as_ref().is_none_or(|rs| rs.iter().any(|x| x == r.reason)))
                .map(|s| s.nodes.clone())
                .collect();
            row.insert(3, if pool.defaulted { "10% (default)".into() } else { active.join(",") });
            if wide {
                row.push(pool.in_flight.join(","));
            }
            rows.push(row);
        }
    }
    rows
}

/// The budgets' columns a narrow screen does without, first to last.
const BUDGETS_DROP: [&str; 3] = ["POOL NODES", "IN-FLIGHT", "ACTIVE BUDGETS"];

pub(super) fn budgets(b: &Budgets, styles: &Styles, wide: bool, no_headers: bool, width: Option<usize>) -> String {
    let mut headers =
        vec!["NODEPOOL", "REASON", "POOL NODES", "ACTIVE BUDGETS", "ALLOWED", "IN-FLIGHT", "REMAINING", "WINDOW"];
    if wide {
        headers.push("IN-FLIGHT NODES");
    }
    let mut out = match (&b.selection, no_headers) {
        (Some(selection), false) => format!("Showing {selection}\n"),
        _ => String::new(),
    };
    out.push_str(&kubectl(&headers, budget_rows(b, wide), no_headers, Fit { width, drop: &BUDGETS_DROP }));
    if !no_headers {
        out.push_str(&super::calendar::week(b, styles, width));
    }
    out
}

pub(super) fn budgets_markdown(b: &Budgets) -> String {
    markdown(
        &["NodePool", "Reason", "Pool nodes", "Active budgets", "Allowed", "In flight", "Remaining", "Window"],
        &budget_rows(b, false),
    )
}
