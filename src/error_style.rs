//! One way every error reads on stderr, ours and clap's alike: kubectl's first line
//! (`error: what went wrong`, the causes after `: ` as Go's wrapped errors print), then the
//! detail below, indented, as miette draws it (the place in the file, `help:` lines). The
//! first line carries no internal code (an [`Error`]'s code is the last detail line, for a bug
//! report) and is never wrapped, so `2>&1 | head -1` and `grep '^error:'` read the whole of it.

use std::fmt::Write as _;

use miette::{Diagnostic, GraphicalReportHandler, GraphicalTheme};

use crate::error::Error;

/// How `kubectl consolidation …` points to its help: kubectl's own closing line.
fn see_help(command: &str) -> String {
    format!("  See '{command} --help' for help and examples.\n")
}

/// An [`Error`] as it is printed: `error: …` and miette's detail (`width` wraps the detail).
pub(crate) fn our_error(error: &Error, colour: bool, width: usize) -> String {
    let mut first = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        let _ = write!(first, ": {cause}");
        source = cause.source();
    }
    let theme = if colour { GraphicalTheme::unicode() } else { GraphicalTheme::none() };
    let handler = GraphicalReportHandler::new_themed(theme).without_cause_chain().with_width(width.max(40));
    let mut detail = String::new();
    // Rendering into a String cannot fail; an empty detail is the fallback if it ever did.
    let _ = handler.render_report(&mut detail, &Detail(error));
    // miette's first line is the (empty) message we moved above; the rest is the detail.
    let detail = detail.split_once('\n').map_or("", |(_, rest)| rest).trim_end_matches('\n');
    let mut out = format!("{}{}\n", prefix(colour), first.replace('\n', " "));
    if !detail.trim().is_empty() {
        out.push_str(detail);
        out.push('\n');
    }
    out
}

/// A usage error of ours (exit 2): `error: …` and where the command's help is.
pub(crate) fn usage_error(message: &str, command: &str, colour: bool) -> String {
    format!("{}{}\n{}", prefix(colour), message.replace('\n', " "), see_help(command))
}

/// clap's error in the same shape: its first line, then its tips as `help:`, its usage line,
/// the flag's own help for a value it refused, and kubectl's closing line. `flag_help` finds the
/// help text of a flag by its long name.
pub(crate) fn clap_error(
    rendered: &str,
    command: &str,
    colour: bool,
    flag_help: impl Fn(&str) -> Option<String>,
) -> String {
    let mut lines = rendered.lines().map(str::trim_end).filter(|l| !l.trim().is_empty());
    let first = lines.next().unwrap_or("error: the command line could not be read");
    let message = first.strip_prefix("error: ").unwrap_or(first);
    let mut out = format!("{}{message}\n", prefix(colour));
    if let Some(help) = refused_flag(message).and_then(|flag| flag_help(&flag).map(|h| (flag, h))) {
        let (flag, help) = help;
        let _ = writeln!(out, "  help: --{flag}: {}", help.replace('\n', " "));
    }
    let mut command = command.to_owned();
    for line in lines {
        let line = line.trim_start();
        if let Some(tip) = line.strip_prefix("tip: ") {
            let _ = writeln!(out, "  help: {tip}");
        } else if let Some(values) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            // `[possible values: auto, always, never]`
            let _ = writeln!(out, "  help: {values}");
        } else if let Some(usage) = line.strip_prefix("Usage: ") {
            // `kubectl consolidation plan [OPTIONS]` → the command is the words before the first
            // placeholder.
            command =
                usage.split_whitespace().take_while(|w| !w.starts_with(['[', '<', '-'])).collect::<Vec<_>>().join(" ");
            let _ = writeln!(out, "  usage: {usage}");
        } else if line.starts_with("For more information") {
            // Replaced by kubectl's closing line below.
        } else {
            let _ = writeln!(out, "  {line}");
        }
    }
    out.push_str(&see_help(&command));
    out
}

/// `invalid value 'x' for '--output <OUTPUT>': …` → `output`.
fn refused_flag(message: &str) -> Option<String> {
    let rest = message.strip_prefix("invalid value ")?;
    let after = &rest[rest.find(" for '")? + " for '".len()..];
    // `-o, --output <OUTPUT>` or `--output <OUTPUT>`: the long name.
    let inside = after.split('\'').next()?;
    let long = inside.split_whitespace().find_map(|w| w.strip_prefix("--"))?.trim_end_matches(',');
    (!long.is_empty()).then(|| long.to_owned())
}

fn prefix(colour: bool) -> String {
    if colour {
        crate::render::Styles::paint(crate::render::Styles::colored().critical, "error:") + " "
    } else {
        "error: ".to_owned()
    }
}

/// An [`Error`]'s detail for miette: no message (it is on the first line), no causes (the same),
/// its help with the code last, its place in the source.
struct Detail<'a>(&'a Error);

impl std::fmt::Debug for Detail<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.0, f)
    }
}

impl std::fmt::Display for Detail<'_> {
    fn fmt(&self, _: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        Ok(())
    }
}

impl std::error::Error for Detail<'_> {}

impl Diagnostic for Detail<'_> {
    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        let code = self.0.code().map(|c| format!("(error code {c})"));
        match (self.0.help().map(|h| h.to_string()), code) {
            (Some(help), Some(code)) => Some(Box::new(format!("{help}\n{code}"))),
            (None, Some(code)) => Some(Box::new(code)),
            (help, None) => help.map(|h| Box::new(h) as Box<dyn std::fmt::Display>),
        }
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        self.0.source_code()
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        self.0.labels()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn io_error() -> Error {
        Error::Io {
            path: "/no/such.yaml".into(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory (os error 2)"),
        }
    }

    #[test]
    fn ours_reads_as_kubectls_first_line_then_miettes_detail() {
        let text = our_error(&io_error(), false, 80);
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some("error: could not read `/no/such.yaml`: No such file or directory (os error 2)"));
        let rest: Vec<&str> = lines.collect();
        assert!(rest.iter().any(|l| l.trim_start().starts_with("help: check the path")), "{text}");
        assert!(rest.last().is_some_and(|l| l.contains("(error code input::io)")), "{text}");
        assert!(!text.lines().next().unwrap_or_default().contains("input::io"), "no code in the first line");
    }

    #[test]
    fn an_unknown_place_prints_no_zero_line_and_column() {
        let e = Error::Object {
            path: "s.yaml".into(),
            line: 0,
            column: 0,
            kind: "Pod".into(),
            name: "default/x".into(),
            field: "metadata.name".into(),
            message: "is a number".into(),
            help: "quote it".into(),
            src: crate::source::window::SourceWindow::empty("s.yaml"),
            span: None,
        };
        let text = our_error(&e, false, 80);
        assert!(text.starts_with("error: s.yaml: Pod `default/x`, field `metadata.name`: is a number\n"), "{text}");
        assert!(!text.contains(":0:0"), "{text}");
    }

    #[test]
    fn clap_errors_take_the_same_shape() {
        let rendered = "error: invalid value 'foo' for '--output <OUTPUT>': not an output format\n\n\
                        Usage: kubectl consolidation plan [OPTIONS]\n\nFor more information, try '--help'.\n";
        let text = clap_error(rendered, "kubectl consolidation", false, |flag| {
            (flag == "output").then(|| "Output format: text, json".into())
        });
        assert_eq!(
            text,
            "error: invalid value 'foo' for '--output <OUTPUT>': not an output format\n  \
             help: --output: Output format: text, json\n  usage: kubectl consolidation plan [OPTIONS]\n  \
             See 'kubectl consolidation plan --help' for help and examples.\n"
        );
        let tip = "error: unexpected argument '--demoo' found\n\n  tip: a similar argument exists: '--demo'\n";
        assert!(clap_error(tip, "kubectl consolidation", false, |_| None)
            .contains("\n  help: a similar argument exists: '--demo'\n"));
        let values = "error: invalid value 'x' for '--color <COLOR>'\n  [possible values: auto, never]\n";
        let text = clap_error(values, "kubectl consolidation plan", false, |_| None);
        assert!(
            text.contains("\n  help: possible values: auto, never\n  See 'kubectl consolidation plan --help'"),
            "{text}"
        );
        assert_eq!(refused_flag("invalid value 'x' for '-o, --output <OUTPUT>': no"), Some("output".into()));
        assert_eq!(refused_flag("unexpected argument"), None);
    }

    #[test]
    fn usage_errors_point_to_the_commands_help() {
        assert_eq!(
            usage_error("score takes nodepool/NAME, not node/x", "kubectl consolidation score", false),
            "error: score takes nodepool/NAME, not node/x\n  See 'kubectl consolidation score --help' for help and examples.\n"
        );
    }
}
