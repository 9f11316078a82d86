//! kubectl-style tables: UPPERCASE headers, no borders, columns separated by three spaces.

use tabled::builder::Builder;
use tabled::settings::{Padding, Style};

/// Renders rows under headers the way `kubectl get` does.
pub(super) fn kubectl(headers: &[&str], rows: Vec<Vec<String>>, no_headers: bool) -> String {
    let mut builder = Builder::default();
    if !no_headers {
        builder.push_record(headers.iter().map(|h| (*h).to_owned()));
    }
    for row in rows {
        builder.push_record(row);
    }
    if builder.count_records() == 0 {
        return String::new();
    }
    let mut table = builder.build();
    table.with(Style::blank()).with(Padding::new(0, 3, 0, 0));
    let mut out = String::new();
    for line in table.to_string().lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    if out.is_empty() {
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
