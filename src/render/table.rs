//! kubectl-style tables: UPPERCASE headers, no borders, columns separated by three spaces.

use super::fit::{cut, visible_width};

/// The screen a table must fit: `None` is unlimited (piped). `drop` names the columns to leave
/// out, in order, when the last column (WHY, MESSAGE) would get less than [`MIN_LAST`].
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Fit<'a> {
    pub width: Option<usize>,
    pub drop: &'a [&'a str],
}

/// The fewest columns the last column keeps before another column is dropped.
const MIN_LAST: usize = 24;

/// kubectl's gutter between columns.
const GUTTER: usize = 3;

/// Renders rows under headers the way `kubectl get` does: UPPERCASE headers, no borders,
/// three spaces between columns. With a width, the last column gets what the others leave and
/// is cut with `…`; columns in `fit.drop` go first when that is too little, and a line still
/// too wide is cut at the width.
pub(super) fn kubectl(headers: &[&str], rows: Vec<Vec<String>>, no_headers: bool, fit: Fit<'_>) -> String {
    let mut records: Vec<Vec<String>> = Vec::with_capacity(rows.len() + 1);
    if !no_headers {
        records.push(headers.iter().map(|h| (*h).to_owned()).collect());
    }
    records.extend(rows);
    if records.is_empty() {
        return String::new();
    }
    let columns = records.iter().map(Vec::len).max().unwrap_or(0);
    let natural = |keep: &[bool], i: usize| {
        if keep[i] {
            records.iter().filter_map(|r| r.get(i)).map(|c| visible_width(c)).max().unwrap_or(0)
        } else {
            0
        }
    };
    let mut keep = vec![true; columns];
    let mut last_width = None;
    if let Some(width) = fit.width {
        let mut droppable = fit.drop.iter().filter_map(|d| headers.iter().position(|h| h == d));
        loop {
            let kept: Vec<usize> = (0..columns.saturating_sub(1)).filter(|i| keep[*i]).collect();
            let used: usize = kept.iter().map(|i| natural(&keep, *i) + GUTTER).sum();
            let last_natural = natural(&keep, columns - 1);
            let room = width.saturating_sub(used);
            if room >= last_natural.min(MIN_LAST) {
                last_width = Some(room.min(last_natural));
                break;
            }
            match droppable.next() {
                Some(i) if i + 1 < columns => keep[i] = false,
                Some(_) => {}
                None => {
                    last_width = Some(room.max(1));
                    break;
                }
            }
        }
    }
    let widths: Vec<usize> = (0..columns).map(|i| natural(&keep, i)).collect();
    let mut out = String::new();
    for record in &records {
        let mut line = String::new();
        for (i, cell) in record.iter().enumerate() {
            if !keep[i] {
                continue;
            }
            if i + 1 == columns {
                line.push_str(&last_width.map_or_else(|| cell.clone(), |w| cut(cell, w)));
            } else {
                line.push_str(cell);
                line.push_str(&" ".repeat(widths[i] - visible_width(cell) + GUTTER));
            }
        }
        let line = line.trim_end();
        out.push_str(&fit.width.map_or_else(|| line.to_owned(), |w| cut(line, w)));
        out.push('\n');
    }
    out
}

/// A Markdown table.
pub(super) fn markdown(headers: &[&str], rows: &[Vec<String>]) -> String {
    let escape = |s: &str| s.replace('|', "\\|");
    let mut out = format!("| {} |\n|{}\n", headers.join(" | "), "---|".repeat(headers.len()));
    for row in rows {
        out.push_str(&format!("| {} |\n", row.iter().map(|c| escape(c)).collect::<Vec<_>>().join(" | ")));
    }
    out
}

/// `$0.096` style price, or `?` when unknown.
pub(super) fn price(p: Option<f64>) -> String {
    p.map_or_else(|| "?".to_owned(), |p| format!("${p:.4}"))
}
