//! The forecast as something to look at: per NodePool, its nodes and $/h over the forecast's
//! time, and per harmed workload a strip of its ready replicas, all on one time axis that fits
//! the width. Block characters with colour, plain ASCII without. Only layout: every figure
//! is the report's.

use super::fit::visible_width;
use super::format::duration;
use super::Styles;
use crate::report::forecast::{ForecastDoc, SeriesPoint, WorkloadView};

/// Eight heights, lowest first.
const BLOCKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
const ASCII: [char; 8] = ['.', ',', ':', '-', '=', '+', '*', '#'];
/// A strip's zero ready replicas.
const ZERO_BLOCK: char = '×';
const ZERO_ASCII: char = 'x';

/// The time axis's columns when nothing limits them (piped) and at the least.
const PIPED_COLUMNS: usize = 60;
const FEWEST_COLUMNS: usize = 10;
/// Workloads with a strip; the table below lists them all.
const MOST_STRIPS: usize = 10;

/// The chart and the strips, with their title; empty when nothing acts.
pub(super) fn forecast(f: &ForecastDoc, styles: &Styles, width: Option<usize>) -> String {
    if f.rounds.is_empty() || f.series.is_empty() {
        return String::new();
    }
    // The axis runs past the last change (a node gone, a pod Ready again) by a tenth, so the
    // state after it shows.
    let last_change = f.workloads.iter().flat_map(|w| w.ready_changes.iter().map(|c| c.0)).max().unwrap_or(0);
    let last = f.end_seconds.max(f.series.last().map_or(0, |p| p.at_seconds)).max(last_change).max(1);
    let end = last + (last / 10).max(1);
    let pools: Vec<&str> = f.node_pools.iter().map(|p| p.node_pool.as_str()).collect();
    let strips: Vec<&WorkloadView> = f.workloads.iter().filter(|w| w.ready_before > 0).take(MOST_STRIPS).collect();
    let label_width = pools
        .iter()
        .map(|p| visible_width(p) + 7)
        .chain(strips.iter().map(|w| visible_width(&w.workload)))
        .max()
        .unwrap_or(0);
    let rows: Vec<(String, Vec<f64>, String)> =
        pool_rows(f, &pools, end, 1).into_iter().chain(strips.iter().map(|w| strip_row(w, end, 1))).collect();
    let suffix_width = rows.iter().map(|r| visible_width(&r.2)).max().unwrap_or(0);
    let columns = match width {
        None => PIPED_COLUMNS,
        Some(w) => w.saturating_sub(label_width + suffix_width + 4).clamp(FEWEST_COLUMNS, 200),
    };
    let mut out = format!("\nNodes and $/h per NodePool, +0s to +{} (rows scaled low to high)\n", duration(end));
    for (label, values, suffix) in pool_rows(f, &pools, end, columns) {
        out.push_str(&line(&label, label_width, &bars(&values, styles, styles.info), &suffix));
    }
    if !strips.is_empty() {
        out.push_str("Ready replicas (x: none ready)\n");
        for w in &strips {
            let (label, values, suffix) = strip_row(w, end, columns);
            out.push_str(&line(&label, label_width, &strip(&values, w.ready_before, styles), &suffix));
        }
    }
    out.push_str(&axis(label_width, columns, end));
    out
}

fn pad(s: &str, width: usize) -> String {
    format!("{s}{}", " ".repeat(width.saturating_sub(visible_width(s))))
}

fn line(label: &str, label_width: usize, chart: &str, suffix: &str) -> String {
    format!("{}  {chart}  {suffix}\n", pad(label, label_width))
}

/// `+0s` under the chart's first column, the end under its last.
fn axis(label_width: usize, columns: usize, end: i64) -> String {
    let (first, last) = ("+0s".to_owned(), format!("+{}", duration(end)));
    let gap = columns.saturating_sub(first.len() + last.len()).max(1);
    format!("{}  {first}{}{last}\n", " ".repeat(label_width), " ".repeat(gap))
}

/// The instant column `c` of `columns` shows, spread evenly over `[0, end]`.
fn instant(end: i64, c: usize, columns: usize) -> i64 {
    if columns < 2 {
        0
    } else {
        end * i64::try_from(c).unwrap_or(0) / i64::try_from(columns - 1).unwrap_or(1)
    }
}

/// A step function's value at each of `columns` instants spread evenly over `[0, end]`.
fn sampled(points: &[(i64, f64)], end: i64, columns: usize) -> Vec<f64> {
    (0..columns)
        .map(|c| {
            let at = instant(end, c, columns);
            points.iter().take_while(|(t, _)| *t <= at).last().or(points.first()).map_or(0.0, |p| p.1)
        })
        .collect()
}

fn pool_at(p: &SeriesPoint, pool: &str) -> (usize, f64) {
    p.pools.iter().find(|(name, _, _)| name == pool).map_or((0, 0.0), |(_, n, c)| (*n, *c))
}

/// Two rows per NodePool: its nodes, its $/h, each with where it starts and ends.
fn pool_rows(f: &ForecastDoc, pools: &[&str], end: i64, columns: usize) -> Vec<(String, Vec<f64>, String)> {
    let mut rows = Vec::new();
    for pool in pools {
        let nodes: Vec<(i64, f64)> = f.series.iter().map(|p| (p.at_seconds, pool_at(p, pool).0 as f64)).collect();
        let cost: Vec<(i64, f64)> = f.series.iter().map(|p| (p.at_seconds, pool_at(p, pool).1)).collect();
        let ends = |v: &[(i64, f64)], show: &dyn Fn(f64) -> String| {
            format!("{} → {}", show(v.first().map_or(0.0, |p| p.1)), show(v.last().map_or(0.0, |p| p.1)))
        };
        rows.push((format!("{pool} nodes"), sampled(&nodes, end, columns), ends(&nodes, &|x| format!("{x:.0}"))));
        rows.push((
            format!("{} $/h", " ".repeat(visible_width(pool))),
            sampled(&cost, end, columns),
            ends(&cost, &|x| format!("${x:.4}")),
        ));
    }
    rows
}

/// A workload's ready replicas over time: its pods leaving and coming back Ready, at zero
/// exactly where its bill counts it at zero ready (so the strip and ZERO-FOR agree), and at
/// least one elsewhere.
fn strip_row(w: &WorkloadView, end: i64, columns: usize) -> (String, Vec<f64>, String) {
    let mut ready = i64::try_from(w.ready_before).unwrap_or(i64::MAX);
    let mut points = vec![(0, ready as f64)];
    for (at, change) in &w.ready_changes {
        ready += change;
        points.push((*at, ready.max(1) as f64));
    }
    let at_zero = |t: i64| w.zero_spans.iter().any(|(from, to)| (*from..*to).contains(&t));
    let values = sampled(&points, end, columns)
        .into_iter()
        .enumerate()
        .map(|(c, v)| if at_zero(instant(end, c, columns)) { 0.0 } else { v })
        .collect();
    let suffix = if w.zero_ready_seconds > 0 {
        format!("{} ready, 0 for {}", w.ready_before, duration(w.zero_ready_seconds))
    } else {
        format!("{} ready, never 0", w.ready_before)
    };
    (w.workload.clone(), values, suffix)
}

/// Heights from the row's lowest value (the lowest block) to its highest (the full block), as
/// a sparkline draws them, so a change of one node in a hundred still shows; a flat row is
/// full. The row's first and last values are printed beside it.
fn bars(values: &[f64], styles: &Styles, style: owo_colors::Style) -> String {
    let top = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let bottom = values.iter().copied().fold(f64::INFINITY, f64::min);
    let levels = if styles.blocks { &BLOCKS } else { &ASCII };
    let text: String = values
        .iter()
        .map(|v| {
            let span = top - bottom;
            let level = if span > 0.0 { ((v - bottom) / span * 7.0).round() as usize } else { 7 };
            levels[level.min(7)]
        })
        .collect();
    Styles::paint(style, text)
}

/// The ready strip: heights of `ready_before`, zero marked (and red with colour).
fn strip(values: &[f64], ready_before: usize, styles: &Styles) -> String {
    let levels = if styles.blocks { &BLOCKS } else { &ASCII };
    let zero = if styles.blocks { ZERO_BLOCK } else { ZERO_ASCII };
    let top = (ready_before as f64).max(values.iter().copied().fold(0.0, f64::max)).max(1.0);
    let mut out = String::new();
    let mut run = (String::new(), false);
    let flush = |out: &mut String, run: &mut (String, bool)| {
        if !run.0.is_empty() {
            let style = if run.1 { styles.critical } else { styles.ok };
            out.push_str(&Styles::paint(style, std::mem::take(&mut run.0)));
        }
    };
    for v in values {
        let is_zero = *v <= 0.0;
        if is_zero != run.1 {
            flush(&mut out, &mut run);
            run.1 = is_zero;
        }
        let c = if is_zero { zero } else { levels[(((v / top) * 8.0).ceil() as usize).clamp(1, 8) - 1] };
        run.0.push(c);
    }
    flush(&mut out, &mut run);
    out
}

#[cfg(test)]
mod tests {
    use super::{bars, sampled, strip, strip_row};
    use crate::render::Styles;
    use crate::report::forecast::WorkloadView;

    #[test]
    fn a_strip_is_at_zero_where_the_bill_says_so_and_nowhere_else() {
        let w = WorkloadView {
            workload: "Deployment/ns/app".into(),
            evictions: 2,
            zero_ready_times: 1,
            zero_ready_seconds: 10,
            nodes: Vec::new(),
            startup_seconds: 10,
            startup_source: "default",
            pending: 0,
            ready_before: 2,
            ready_changes: vec![(10, -1), (15, -1), (20, 1), (25, 1)],
            zero_spans: vec![(15, 25)],
            prescription: None,
        };
        let (_, values, suffix) = strip_row(&w, 30, 7);
        assert_eq!(values, vec![2.0, 2.0, 1.0, 0.0, 0.0, 2.0, 2.0], "instants 0,5,…,30");
        assert_eq!(suffix, "2 ready, 0 for 10s");
    }

    #[test]
    fn a_step_function_is_sampled_at_even_instants() {
        assert_eq!(sampled(&[(0, 10.0), (45, 9.0)], 90, 4), vec![10.0, 10.0, 9.0, 9.0]);
        assert_eq!(sampled(&[(0, 3.0)], 10, 3), vec![3.0, 3.0, 3.0]);
    }

    #[test]
    fn bars_run_from_the_rows_lowest_to_its_highest() {
        let plain = Styles::plain();
        assert_eq!(bars(&[10.0, 10.0, 9.0], &plain, plain.info), "##.");
        assert_eq!(bars(&[4.0, 3.0, 2.0], &Styles { blocks: true, ..plain }, plain.info), "█▅▁");
        assert_eq!(bars(&[5.0, 5.0], &plain, plain.info), "##", "a flat row is full");
    }

    #[test]
    fn a_strip_marks_zero_ready_in_ascii_and_in_blocks() {
        assert_eq!(strip(&[1.0, 0.0, 0.0, 1.0], 1, &Styles::plain()), "#xx#");
        let coloured = strip(&[2.0, 1.0, 0.0], 2, &Styles::colored());
        assert!(coloured.contains('█') && coloured.contains('▄') && coloured.contains('×'), "{coloured}");
        assert!(coloured.contains("\x1b["), "coloured: {coloured:?}");
    }
}
