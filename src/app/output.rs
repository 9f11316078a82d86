//! A finished answer as text for stdout: rendered for the screen or the pipe (terminal-safe in
//! text, wide and Markdown), or its names, or a jsonpath over its document.

use std::io::IsTerminal;

use super::screen::{color_enabled, screen_width};
use crate::cli::{Cli, Output};
use crate::commands::{self, Failure};
use crate::render::{self, Format, Styles, TableOptions};

/// The report as `-o` asks.
pub(super) fn report_text(
    cli: &Cli,
    format: Format,
    report: &crate::report::Report,
    assumed: &crate::report::Assumed,
) -> Result<String, Failure> {
    let colour = color_enabled(cli.output.color);
    let styles = if colour { Styles::colored() } else { Styles::plain() };
    let table = TableOptions { no_headers: cli.output.no_headers, width: screen_width() };
    // `-o name` and `-o jsonpath` print values raw for scripts; on a terminal each value read
    // from the cluster is escaped (terminal.rs), the template's own text is not.
    let escape = std::io::stdout().is_terminal();
    let text = match &cli.output.output {
        Output::Name => render::names(report, escape).map_err(Failure::Usage)?,
        Output::JsonPath(template) => render::jsonpath(report, assumed, template, escape).map_err(Failure::Usage)?,
        _ => render::render(report, assumed, format, &styles, table),
    };
    Ok(if matches!(format, Format::Text | Format::Wide | Format::Markdown) {
        crate::terminal::sanitize_output(&text, colour).into_owned()
    } else {
        text
    })
}

/// `version`'s document in the format `-o` asks for (no input is read).
pub(super) fn version_text(cli: &Cli) -> Result<String, Failure> {
    let doc = commands::version::run(cli.input.karpenter_version.as_deref()).map_err(Failure::Usage)?;
    let value = serde_json::to_value(&doc).expect("the version document serialises");
    Ok(match &cli.output.output {
        Output::Format(Format::Json) => {
            serde_json::to_string_pretty(&value).expect("the version document serialises to JSON") + "\n"
        }
        Output::Format(Format::Yaml) => {
            serde_saphyr::to_string(&value).expect("the version document serialises to YAML")
        }
        Output::Format(_) => {
            let styles = if color_enabled(cli.output.color) { Styles::colored() } else { Styles::plain() };
            commands::version::text(&doc, |key| Styles::paint(styles.bold, key))
        }
        Output::JsonPath(template) => {
            render::jsonpath_of(&value, template, std::io::stdout().is_terminal()).map_err(Failure::Usage)?
        }
        Output::Name => return Err(Failure::Usage("-o name: version names no Kubernetes object; use -o json".into())),
        Output::File(path) => {
            return Err(Failure::Usage(format!("-o {}: only `snapshot` writes to a file", path.display())))
        }
    })
}
