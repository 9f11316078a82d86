//! EDGE OUT: a [`Report`] → text, a kubectl-style table, JSON, YAML or Markdown. Renderers only
//! read the report; every number they print is already in it.

mod calendar;
mod catalogue;
mod chart;
mod diff;
mod doctor;
mod explain;
mod fit;
mod forecast;
mod format;
mod impact;
mod jsonpath;
mod names;
mod pdb_audit;
mod placement;
mod structured;
pub(crate) mod styles;
mod table;
mod tables;

pub(crate) use forecast::round_lines as forecast_round_lines;
pub(crate) use format::duration as duration_text;
pub(crate) use styles::Styles;

use crate::report::Assumed;
use crate::report::Report;

/// `-o` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    Text,
    Wide,
    Json,
    Yaml,
    Markdown,
}

/// `-o name`: `resource/name` per object the command lists (see `names`).
/// `escape`: each name as a terminal may show it (terminal.rs), for a terminal's stdout.
pub(crate) fn names(report: &Report, escape: bool) -> Result<String, String> {
    names::names(report, escape)
}

/// `-o jsonpath=TEMPLATE` over the document `-o json` prints (see `jsonpath`).
/// `escape`: each string value as a terminal may show it (terminal.rs), for a terminal's stdout.
pub(crate) fn jsonpath(report: &Report, assumed: &Assumed, template: &str, escape: bool) -> Result<String, String> {
    jsonpath_of(&structured::value(report, assumed), template, escape)
}

/// `-o jsonpath=TEMPLATE` over any document (`version`'s too).
pub(crate) fn jsonpath_of(document: &serde_json::Value, template: &str, escape: bool) -> Result<String, String> {
    jsonpath::render(template, document, escape)
        .map_err(|e| format!("-o jsonpath: {e} (kubectl's syntax: `{{.nodes[*].name}}`, `{{range .nodes[*]}}{{.name}}{{\"\\n\"}}{{end}}`)"))
}

/// Options every table honours.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TableOptions {
    pub no_headers: bool,
    /// The screen's width (`COLUMNS`, else the terminal's); `None` when piped: unlimited, and
    /// nothing is cut.
    pub width: Option<usize>,
}

/// Renders a report, headed by the Karpenter version and settings the replay assumed.
pub(crate) fn render(
    report: &Report,
    assumed: &Assumed,
    format: Format,
    styles: &Styles,
    options: TableOptions,
) -> String {
    match format {
        Format::Json => structured::json(report, assumed),
        Format::Yaml => structured::yaml(report, assumed),
        Format::Text | Format::Wide | Format::Markdown => {
            let wide = format == Format::Wide;
            let markdown = format == Format::Markdown;
            // `-o wide` and Markdown are asked for in full: only text fits the screen.
            let width = if wide || markdown { None } else { options.width };
            let (no_headers, styles) = (options.no_headers, styles);
            let body = match report {
                Report::Plan(p) if markdown => tables::plan_markdown(p),
                Report::Plan(p) => tables::plan(p, styles, wide, no_headers, width),
                Report::Explain(e) if markdown => explain::markdown(e),
                Report::Explain(e) => explain::text(e, styles, wide, width),
                Report::Score(s) if markdown => tables::score_markdown(s),
                Report::Score(s) => tables::score(s, styles, wide, no_headers, width),
                Report::PdbAudit(a) if markdown => pdb_audit::markdown(a),
                Report::PdbAudit(a) => pdb_audit::table(a, styles, wide, no_headers, width),
                Report::Budgets(b) if markdown => tables::budgets_markdown(b),
                Report::Budgets(b) => tables::budgets(b, styles, wide, no_headers, width),
                Report::Doctor(d) => doctor::text(d, markdown),
                Report::Diff(d) => diff::text(d, styles, markdown, no_headers, width),
                Report::InstanceTypes(c) => catalogue::table(c, wide, markdown, no_headers, width),
                Report::Forecast(f) => forecast::forecast(f, styles, wide, markdown, no_headers, width),
                Report::ForecastComparison(c) => forecast::comparison(c, markdown, no_headers, width),
            };
            let text = if no_headers {
                body + &uncertain_lines(report, styles, markdown)
            } else {
                format!("{}{body}{}", header(assumed, markdown, styles), uncertain_lines(report, styles, markdown))
            };
            // Tables fit already; every other line is wrapped under its own indentation.
            match width {
                Some(w) => fit::wrap_text(&text, w, 4),
                None => text,
            }
        }
    }
}

/// `Karpenter v1.14.0 rules (from snapshot); settings: defaults` (non-default settings named
/// with their source; the provider → core row when one was used).
/// Dimmed when colour is on, so every command's text is coloured the same way above its body.
fn header(assumed: &Assumed, markdown: bool, styles: &Styles) -> String {
    let rules = &assumed.rules;
    let changed: Vec<String> = assumed
        .changed()
        .map(|(k, s)| {
            if k == "FEATURE_GATES" && s.source.starts_with(crate::settings::SNAPSHOT_GATES_SOURCE) {
                // The source names the gates that differ; the whole list would hide them.
                format!("{k} ({})", s.source)
            } else {
                format!("{k}={} ({})", crate::echo::capped(&s.value), s.source)
            }
        })
        .collect();
    let settings = if changed.is_empty() { "defaults".to_owned() } else { changed.join(", ") };
    let row = rules.provider_row.as_ref().map(|r| format!("; {r}")).unwrap_or_default();
    let from = if rules.from.starts_with("assumed") { rules.from.clone() } else { format!("from {}", rules.from) };
    let line = format!("Karpenter {} rules ({from}{row}); settings: {settings}", rules.version);
    if markdown {
        format!("_{line}_\n\n")
    } else {
        format!("{}\n", Styles::paint(styles.dim, line))
    }
}

/// The `uncertain:` lines of the reports whose tables do not print them themselves.
fn uncertain_lines(report: &Report, styles: &Styles, markdown: bool) -> String {
    let reasons = match report {
        Report::Score(s) => &s.uncertain,
        Report::PdbAudit(a) => &a.uncertain,
        Report::Budgets(b) => &b.uncertain,
        Report::Forecast(f) => &f.uncertain,
        Report::ForecastComparison(c) => &c.with.uncertain,
        Report::Diff(d) => &d.uncertain,
        Report::Plan(_) | Report::Explain(_) | Report::InstanceTypes(_) | Report::Doctor(_) => return String::new(),
    };
    let mut out = String::new();
    for reason in reasons {
        if markdown {
            out.push_str(&format!("\n> **uncertain:** {}\n", reason.message));
        } else {
            out.push_str(&format!("{} {}\n", Styles::paint(styles.warning, "uncertain:"), reason.message));
        }
    }
    out
}
