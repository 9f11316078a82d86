//! EDGE OUT: a [`Report`] → text, a kubectl-style table, JSON, YAML or Markdown. Renderers only
//! read the report; every number they print is already in it.

mod explain;
mod pdb_audit;
mod structured;
pub mod styles;
mod table;
mod tables;

pub use styles::Styles;

use crate::report::Report;

/// `-o` values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Wide,
    Json,
    Yaml,
    Markdown,
}

/// Options every table honours.
#[derive(Debug, Clone, Copy, Default)]
pub struct TableOptions {
    pub no_headers: bool,
}

/// Renders a report.
pub fn render(report: &Report, format: Format, styles: &Styles, options: TableOptions) -> String {
    match format {
        Format::Json => structured::json(report),
        Format::Yaml => structured::yaml(report),
        Format::Text | Format::Wide | Format::Markdown => {
            let wide = format == Format::Wide;
            let markdown = format == Format::Markdown;
            match report {
                Report::Plan(p) if markdown => tables::plan_markdown(p),
                Report::Plan(p) => tables::plan(p, styles, wide, options.no_headers),
                Report::Explain(e) if markdown => explain::markdown(e),
                Report::Explain(e) => explain::text(e, styles, wide),
                Report::Score(s) if markdown => tables::score_markdown(s),
                Report::Score(s) => tables::score(s, styles, wide, options.no_headers),
                Report::PdbAudit(a) if markdown => pdb_audit::markdown(a),
                Report::PdbAudit(a) => pdb_audit::table(a, styles, wide, options.no_headers),
                Report::Budgets(b) if markdown => tables::budgets_markdown(b),
                Report::Budgets(b) => tables::budgets(b, styles, wide, options.no_headers),
            }
        }
    }
}
