//! kubectl-style tables: UPPERCASE headers, no borders, columns separated by three spaces.

use super::fit::{cut, visible_width};

/// The screen a table must fit: `None` is unlimited (piped). `drop` names the columns to leave
/// out, in order, when the last column (WHY, MESSAGE) would get less than [`MIN_LAST`].
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct Fit<'a> {
    pub width: Option<usize>,
    pub drop: &'a [&'a str],
}

/// A table laid out by [`kubectl_whole`]: its lines and the columns left out to fit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Fitted {
    pub text: String,
    pub dropped: Vec<String>,
}

impl Fitted {
    /// The line that says which columns a narrow screen left out (empty when none were).
    pub(super) fn dropped_note(&self) -> String {
        if self.dropped.is_empty() {
            return String::new();
        }
        format!("(not shown to fit the screen: {}; -o wide shows every column)\n", self.dropped.join(", "))
    }
}

/// Lays out a table whose cells must not be cut (the forecast's timeline, the audit's rows):
/// columns in `fit.drop` are left out whole, in that order (the last column too), until every
/// line fits; a line still too wide after that is left whole for the text wrapper, never cut.
pub(super) fn kubectl_whole(headers: &[&str], rows: Vec<Vec<String>>, no_headers: bool, fit: Fit<'_>) -> Fitted {
    let Some(width) = fit.width else {
        return Fitted { text: kubectl(headers, rows, no_headers, Fit::default()), dropped: Vec::new() };
    };
    let columns = headers.len().max(rows.iter().map(Vec::len).max().unwrap_or(0));
    let mut keep = vec![true; columns];
    let mut dropped = Vec::new();
    let widest = |keep: &[bool]| -> usize {
        let cell_widths = |i: usize| {
            let header = if no_headers { 0 } else { headers.get(i).map_or(0, |h| visible_width(h)) };
            rows.iter().filter_map(|r| r.get(i)).map(|c| visible_width(c)).max().unwrap_or(0).max(header)
        };
        let kept: Vec<usize> = (0..columns).filter(|i| keep[*i]).collect();
        kept.iter().map(|i| cell_widths(*i)).sum::<usize>() + GUTTER * kept.len().saturating_sub(1)
    };
    for name in fit.drop {
        if widest(&keep) <= width {
            break;
        }
        if let Some(i) = headers.iter().position(|h| h == name) {
            if keep.iter().filter(|k| **k).count() > 1 {
                keep[i] = false;
                dropped.push((*name).to_owned());
            }
        }
    }
    let select = |record: &[String]| -> Vec<String> {
        record.iter().enumerate().filter(|(i, _)| keep[*i]).map(|(_, c)| c.clone()).collect()
    };
    let kept_headers: Vec<&str> = headers.iter().enumerate().filter(|(i, _)| keep[*i]).map(|(_, h)| *h).collect();
    let kept_rows = rows.iter().map(|r| select(r)).collect();
    Fitted { text: kubectl(&kept_headers, kept_rows, no_headers, Fit::default()), dropped }
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

#[cfg(test)]
mod tests {
    use super::{kubectl_whole, Fit};

    fn rows() -> Vec<Vec<String>> {
        vec![vec!["1".into(), "+15s".into(), "delete node-x".into(), "default: 1 allowed, 0 in flight".into()]]
    }

    #[test]
    fn whole_columns_go_in_the_stated_order_and_no_cell_is_cut() {
        let headers = ["ROUND", "STARTS", "COMMAND", "BUDGET"];
        let fit = Fit { width: Some(25), drop: &["BUDGET", "STARTS"] };
        let fitted = kubectl_whole(&headers, rows(), false, fit);
        assert_eq!(fitted.dropped, ["BUDGET", "STARTS"]);
        assert_eq!(fitted.text, "ROUND   COMMAND\n1       delete node-x\n");
        assert!(!fitted.text.contains('…'));
        assert!(fitted.dropped_note().contains("BUDGET, STARTS"), "{}", fitted.dropped_note());
    }

    #[test]
    fn only_what_is_needed_is_dropped_and_piped_drops_nothing() {
        let headers = ["ROUND", "STARTS", "COMMAND", "BUDGET"];
        let fit = Fit { width: Some(40), drop: &["BUDGET", "STARTS"] };
        assert_eq!(kubectl_whole(&headers, rows(), false, fit).dropped, ["BUDGET"]);
        let piped = kubectl_whole(&headers, rows(), false, Fit { width: None, drop: &["BUDGET"] });
        assert!(piped.dropped.is_empty() && piped.text.contains("0 in flight"), "{}", piped.text);
        assert!(piped.dropped_note().is_empty());
    }
}
