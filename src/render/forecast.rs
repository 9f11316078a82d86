//! `forecast` as text and Markdown: the timeline, the end state per NodePool, the bill per
//! workload, the delays (defaults marked). `--compare` puts both forecasts side by side.

use super::format::duration;
use super::table::{kubectl, kubectl_whole, markdown, Fit};
use super::Styles;
use crate::report::forecast::{ComparisonDoc, ForecastDoc, RoundView};

fn money(x: f64) -> String {
    format!("${x:.4}")
}

fn table(headers: &[&str], rows: Vec<Vec<String>>, md: bool, no_headers: bool, fit: Fit<'_>) -> String {
    if md {
        markdown(headers, &rows)
    } else {
        kubectl(headers, rows, no_headers, fit)
    }
}

/// A section's title (none with `--no-headers`: rows only, sections a blank line apart).
fn heading(text: &str, md: bool, no_headers: bool) -> String {
    if no_headers && !md {
        "\n".to_owned()
    } else if md {
        format!("\n### {text}\n\n")
    } else {
        format!("\n{text}\n")
    }
}

fn summary(f: &ForecastDoc) -> String {
    let how = match f.stop {
        "settled" => "then nothing acts (checked to".to_owned(),
        "rounds" => "stopped at --rounds".to_owned(),
        "until" => "stopped at --until".to_owned(),
        "blocked" => {
            "then nothing acts: the NodePool budgets let no disruption through within a year (blocked for good)"
                .to_owned()
        }
        _ => format!("stopped at the {}-round bound", f.max_rounds),
    };
    let checked = if f.stop == "settled" { format!(" +{})", duration(f.looked_until_seconds)) } else { String::new() };
    format!(
        "Forecast from {}: {} round(s) act, {how}{checked}; the last command ends at +{}; saves {}/h.\n",
        f.start,
        f.rounds.len(),
        duration(f.end_seconds),
        money(f.savings)
    )
}

fn delays(f: &ForecastDoc) -> String {
    let items: Vec<String> = f
        .delays
        .iter()
        .map(|d| format!("{} {}{}", d.name, duration(d.seconds), if d.default { " (default)" } else { "" }))
        .collect();
    format!("Delays: {}.\n", items.join(", "))
}

/// `delete node-x`, `replace node-a → node-new-1 m5.large on-demand us-east-1a (2 pod(s) left pending)`.
fn command_text(c: &crate::report::forecast::CommandView) -> String {
    let mut command = format!("{} {}", c.decision, c.candidates.join(","));
    for l in &c.replacements {
        command.push_str(&format!(" → {} {} {} {}", l.node, l.instance_type, l.capacity_type, l.zone));
    }
    if !c.pending.is_empty() {
        command.push_str(&format!(" ({} pod(s) left pending)", c.pending.len()));
    }
    if !c.held.is_empty() {
        command.push_str(&format!(" ({} pod(s) no budget lets go)", c.held.len()));
    }
    command
}

/// A round as one line per command, as `forecast` streams it while it runs: the timeline's
/// cells in words, so no column widths are needed before the last round is known.
pub(crate) fn round_lines(r: &RoundView) -> String {
    let mut out = String::new();
    for c in &r.commands {
        out.push_str(&format!(
            "round {} at +{}: {} {}; gone {}; saves {}/h ({}/h so far)\n",
            r.round,
            duration(r.started_at_seconds),
            r.method,
            command_text(c),
            c.gone_at_seconds.map_or_else(|| "never".to_owned(), |g| format!("at +{}", duration(g))),
            money(c.savings),
            money(r.cumulative_savings),
        ));
    }
    out
}

fn timeline(f: &ForecastDoc, md: bool, no_headers: bool, width: Option<usize>) -> String {
    let mut rows = Vec::new();
    for r in &f.rounds {
        let budget: Vec<String> = r
            .budgets
            .iter()
            .map(|b| format!("{}: {} allowed, {} in flight", b.node_pool, b.allowed, b.in_flight))
            .collect();
        for c in &r.commands {
            let command = command_text(c);
            rows.push(vec![
                r.round.to_string(),
                format!("+{}", duration(r.started_at_seconds)),
                r.method.to_owned(),
                command,
                c.gone_at_seconds.map_or_else(|| "never".to_owned(), |g| format!("+{}", duration(g))),
                money(c.savings),
                money(r.cumulative_savings),
                if budget.is_empty() { "-".to_owned() } else { budget.join("; ") },
            ]);
        }
    }
    if rows.is_empty() {
        return "No method acts: the cluster is already settled.\n".to_owned();
    }
    let headers = ["ROUND", "STARTS", "METHOD", "COMMAND", "GONE", "SAVINGS/H", "CUMULATIVE/H", "BUDGET"];
    if md {
        return markdown(&headers, &rows);
    }
    // No cell is cut: a narrow screen loses whole columns in this order, and says which.
    let fitted = kubectl_whole(&headers, rows, no_headers, Fit { width, drop: &TIMELINE_DROP });
    let note = if no_headers { String::new() } else { fitted.dropped_note() };
    fitted.text + &note
}

/// The timeline's columns a narrow screen does without, first to last: ROUND and COMMAND
/// (what happens, in which order) stay.
const TIMELINE_DROP: [&str; 6] = ["BUDGET", "CUMULATIVE/H", "GONE", "STARTS", "SAVINGS/H", "METHOD"];

fn pools(f: &ForecastDoc, md: bool, no_headers: bool, width: Option<usize>) -> String {
    let rows = f
        .node_pools
        .iter()
        .map(|p| {
            vec![
                p.node_pool.clone(),
                format!("{} → {}", p.nodes_before, p.nodes_after),
                format!("{} → {}", money(p.cost_before), money(p.cost_after)),
            ]
        })
        .collect();
    table(&["NODEPOOL", "NODES", "COST/H"], rows, md, no_headers, Fit { width, drop: &[] })
}

fn workloads(f: &ForecastDoc, md: bool, no_headers: bool, width: Option<usize>) -> String {
    if f.workloads.is_empty() {
        return "No workload loses a pod.\n".to_owned();
    }
    let rows = f
        .workloads
        .iter()
        .map(|w| {
            vec![
                w.workload.clone(),
                w.evictions.to_string(),
                w.zero_ready_times.to_string(),
                duration(w.zero_ready_seconds),
                w.nodes.join(","),
                format!("{} ({})", duration(w.startup_seconds), w.startup_source),
                w.pending.to_string(),
            ]
        })
        .collect();
    table(
        &["WORKLOAD", "EVICTIONS", "AT-ZERO", "ZERO-FOR", "MOVED-OFF", "STARTUP", "PENDING"],
        rows,
        md,
        no_headers,
        Fit { width, drop: &["MOVED-OFF", "STARTUP", "EVICTIONS"] },
    )
}

/// The fixes replayed for the workloads sent to zero ready replicas, under each one's name.
fn fixes(f: &ForecastDoc, styles: &Styles, wide: bool, md: bool, no_headers: bool) -> String {
    let prescribed: Vec<_> = f.workloads.iter().filter_map(|w| Some((w, w.prescription.as_ref()?))).collect();
    if prescribed.is_empty() {
        let at_zero = f.workloads.iter().filter(|w| w.zero_ready_times > 0).count();
        return match at_zero {
            0 => String::new(),
            _ if f.fixes_asked => "No fix was replayed for them.\n".to_owned(),
            1 => "`--fixes` replays the fixes for the workload it takes to zero ready (each a forecast of its own).\n".to_owned(),
            n => format!("`--fixes` replays the fixes for the {n} workloads it takes to zero ready (each a forecast of its own).\n"),
        };
    }
    let mut out = heading("Fixes, each replayed as a forecast of its own", md, no_headers);
    let mut shown = std::collections::BTreeSet::new();
    for (w, p) in prescribed {
        out.push_str(&format!("{}\n", w.workload));
        for line in super::impact::prescription(p, styles, wide || md, &mut shown) {
            out.push_str(&format!("  {line}\n"));
        }
    }
    out
}

pub(super) fn forecast(
    f: &ForecastDoc,
    styles: &Styles,
    wide: bool,
    md: bool,
    no_headers: bool,
    width: Option<usize>,
) -> String {
    let mut out = summary(f);
    if !f.overrides.is_empty() {
        out.push_str(&format!("What-if: {}.\n", f.overrides.join("; ")));
    }
    for line in super::placement::lines(&f.placements) {
        out.push_str(&format!("- {line}\n"));
    }
    out.push_str(&delays(f));
    if !md && !no_headers {
        out.push_str(&super::chart::forecast(f, styles, width));
    }
    out.push_str(&heading("Timeline", md, no_headers));
    out.push_str(&timeline(f, md, no_headers, width));
    out.push_str(&heading("End state per NodePool", md, no_headers));
    out.push_str(&pools(f, md, no_headers, width));
    out.push_str(&heading("Workloads, most harmed first", md, no_headers));
    out.push_str(&workloads(f, md, no_headers, width));
    out.push_str(&fixes(f, styles, wide, md, no_headers));
    if !f.pending.is_empty() {
        out.push_str(&heading("Pods left pending", md, no_headers));
        for p in &f.pending {
            out.push_str(&format!("- {} (since +{})\n", p.pod, duration(p.since_seconds)));
        }
    }
    if !f.launching.is_empty() {
        out.push_str(&heading("Launched before the start, not initialized then", md, no_headers));
        for l in &f.launching {
            let when = l
                .initialized_at_seconds
                .map_or_else(|| "stays uninitialized".to_owned(), |s| format!("initialized at +{}", duration(s)));
            out.push_str(&format!("- node/{}: {when} ({})\n", l.node, l.why));
        }
    }
    out
}

pub(super) fn comparison(c: &ComparisonDoc, md: bool, no_headers: bool, width: Option<usize>) -> String {
    let mut out = format!("Forecast without and with: {}.\n", c.overrides.join("; "));
    for line in super::placement::lines(&c.placements) {
        out.push_str(&format!("- {line}\n"));
    }
    out.push_str(&delays(&c.without));
    let totals = |f: &ForecastDoc| {
        let evictions: usize = f.workloads.iter().map(|w| w.evictions).sum();
        let down: i64 = f.workloads.iter().map(|w| w.zero_ready_seconds).sum();
        (f.rounds.len(), money(f.savings), evictions, duration(down), duration(f.end_seconds))
    };
    let (a, b) = (totals(&c.without), totals(&c.with));
    let rows = vec![
        vec!["rounds that act".to_owned(), a.0.to_string(), b.0.to_string()],
        vec!["savings/h".to_owned(), a.1, b.1],
        vec!["evictions".to_owned(), a.2.to_string(), b.2.to_string()],
        vec!["time at zero ready (sum)".to_owned(), a.3, b.3],
        vec!["last command ends".to_owned(), format!("+{}", a.4), format!("+{}", b.4)],
    ];
    out.push_str(&heading("Totals", md, no_headers));
    out.push_str(&table(&["", "WITHOUT", "WITH"], rows, md, no_headers, Fit { width, drop: &[] }));
    out.push_str(&heading("Workloads (without | with)", md, no_headers));
    if c.workloads.is_empty() {
        out.push_str("No workload loses a pod in either.\n");
    } else {
        let rows = c
            .workloads
            .iter()
            .map(|w| {
                vec![
                    w.workload.clone(),
                    format!("{} | {}", w.evictions[0], w.evictions[1]),
                    format!("{} | {}", w.zero_ready_times[0], w.zero_ready_times[1]),
                    format!("{} | {}", duration(w.zero_ready_seconds[0]), duration(w.zero_ready_seconds[1])),
                ]
            })
            .collect();
        out.push_str(&table(
            &["WORKLOAD", "EVICTIONS", "AT-ZERO", "ZERO-FOR"],
            rows,
            md,
            no_headers,
            Fit { width, drop: &[] },
        ));
    }
    out.push_str(&heading("Without", md, no_headers));
    out.push_str(&timeline(&c.without, md, no_headers, width));
    out.push_str(&heading("With", md, no_headers));
    out.push_str(&timeline(&c.with, md, no_headers, width));
    out
}

#[cfg(test)]
mod tests {
    use crate::forecast::clock::Delays;
    use crate::forecast::{forecast, Limits};
    use crate::testing::{demo, now};

    /// The summary names the bound the report carries, not a number of its own.
    #[test]
    fn the_bound_in_the_summary_is_the_reports() {
        let f = forecast(demo(), now(), &Delays::default(), Limits::default());
        let mut doc = crate::report::forecast::document(&f, &[], &[]);
        assert_eq!(doc.max_rounds, crate::forecast::MAX_ROUNDS);
        doc.stop = "bound";
        doc.max_rounds = 7;
        assert!(super::summary(&doc).contains("stopped at the 7-round bound"), "{}", super::summary(&doc));
    }
}
