//! What the terminal can show: the answer's width, colour by `--color` and the environment's
//! conventions, and whether progress is drawn.

use std::io::IsTerminal;

use crate::cli::{Cli, ColorChoice, Command};
use crate::progress::Progress;
use crate::render::Format;

/// The width answers must fit: `COLUMNS` when set (a number above 0), else the terminal's when
/// stdout is one; `None` when piped (unlimited: scripts get whole lines).
pub(super) fn screen_width() -> Option<usize> {
    let columns = std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<usize>().ok()).filter(|c| *c > 0);
    columns.or_else(|| {
        let stdout = std::io::stdout();
        if !stdout.is_terminal() {
            return None;
        }
        terminal_size::terminal_size_of(&stdout).map(|(terminal_size::Width(w), _)| usize::from(w))
    })
}

/// Colour on stdout, by `--color` and the conventions.
pub(super) fn color_enabled(choice: ColorChoice) -> bool {
    colour_by_conventions(choice, |key| std::env::var_os(key), std::io::stdout().is_terminal())
}

/// `--color`, then the conventions every colouring CLI reads, in this order:
/// - `NO_COLOR` set and not empty disables (no-color.org);
/// - `CLICOLOR_FORCE` set and not `0` (bixense.com/clicolors), or `FORCE_COLOR` set and not
///   empty, `0` or `false` (force-color.org; `0`/`false` disable, as supports-color reads them),
///   force colour even when piped;
/// - `TERM=dumb` disables (a terminal that cannot show escapes);
/// - else colour exactly when stdout is a terminal.
pub(super) fn colour_by_conventions(
    choice: ColorChoice,
    var: impl Fn(&str) -> Option<std::ffi::OsString>,
    stdout_is_terminal: bool,
) -> bool {
    let set = |key: &str| var(key).filter(|v| !v.is_empty());
    match choice {
        ColorChoice::Always => return true,
        ColorChoice::Never => return false,
        ColorChoice::Auto => {}
    }
    if set("NO_COLOR").is_some() {
        return false;
    }
    if set("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
        return true;
    }
    if let Some(force) = set("FORCE_COLOR") {
        return force != "0" && force != "false";
    }
    if var("TERM").is_some_and(|t| t == "dumb") {
        return false;
    }
    stdout_is_terminal
}

/// The progress display: on stderr for the text formats (indicatif draws nothing when stderr
/// is not a terminal), none for `-o json|yaml` and `snapshot`; `forecast` in text on a
/// terminal also streams its rounds to stdout (see `progress.rs` for the contract).
pub(super) fn progress_for(cli: &Cli, format: Format) -> Progress {
    let wanted = progress_wanted(cli, format);
    let stream = wanted
        && format == Format::Text
        && matches!(cli.command, Command::Forecast(_))
        && std::io::stdout().is_terminal();
    Progress::new(wanted, stream, color_enabled(cli.output.color))
}

/// Progress is for people: the text formats, never `snapshot` (its output may be the terminal).
pub(super) fn progress_wanted(cli: &Cli, format: Format) -> bool {
    !matches!(cli.command, Command::Snapshot { .. }) && matches!(format, Format::Text | Format::Wide | Format::Markdown)
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::colour_by_conventions;
    use crate::cli::ColorChoice;

    fn colour(env: &[(&str, &str)], terminal: bool) -> bool {
        let lookup = |key: &str| env.iter().find(|(k, _)| *k == key).map(|(_, v)| OsString::from(v));
        colour_by_conventions(ColorChoice::Auto, lookup, terminal)
    }

    #[test]
    fn colour_follows_the_conventions() {
        assert!(colour(&[], true));
        assert!(!colour(&[], false));
        assert!(!colour(&[("NO_COLOR", "1")], true));
        // NO_COLOR counts when set and not empty, whatever its value (no-color.org).
        assert!(!colour(&[("NO_COLOR", "0")], true));
        assert!(colour(&[("NO_COLOR", "")], true));
        assert!(!colour(&[("TERM", "dumb")], true));
        assert!(colour(&[("TERM", "xterm-256color")], true));
        assert!(colour(&[("CLICOLOR_FORCE", "1")], false));
        assert!(!colour(&[("CLICOLOR_FORCE", "0")], false));
        assert!(colour(&[("FORCE_COLOR", "1"), ("TERM", "dumb")], false));
        assert!(colour(&[("FORCE_COLOR", "true")], false));
        assert!(!colour(&[("FORCE_COLOR", "0")], true));
        assert!(!colour(&[("FORCE_COLOR", "false")], true));
        assert!(!colour(&[("NO_COLOR", "1"), ("FORCE_COLOR", "1")], false), "NO_COLOR wins");
    }

    #[test]
    fn the_flag_overrides_the_environment() {
        let env = |key: &str| (key == "NO_COLOR").then(|| OsString::from("1"));
        assert!(colour_by_conventions(ColorChoice::Always, env, false));
        let force = |key: &str| (key == "FORCE_COLOR").then(|| OsString::from("1"));
        assert!(!colour_by_conventions(ColorChoice::Never, force, true));
    }
}
