//! What the process writes to stderr: errors in the one error style (error_style.rs), clap's
//! own errors reworded, and `warning:`/`note:` lines — all through the terminal-safe escaping.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::CommandFactory;

use super::screen::colour_by_conventions;
use crate::cli::{Cli, ColorChoice};
use crate::error::EXIT_USAGE;

/// `--help` and `--version` as clap prints them (exit 0); every other clap error in
/// the one error style (error_style.rs), exit 2.
pub(super) fn clap_failure(e: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if matches!(
        e.kind(),
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    ) {
        // Help is not an error (the bare command's help on stderr, exit 2, is clap's own).
        let _ = e.print();
        return ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(EXIT_USAGE));
    }
    // The flags are not parsed: colour by the environment alone (`--color` may be the error).
    let color = colour_by_conventions(ColorChoice::Auto, |k| std::env::var_os(k), std::io::stderr().is_terminal());
    let text = crate::error_style::clap_error(&e.render().to_string(), &command_line_name(), color, flag_help);
    print_error(&text, color);
    ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(EXIT_USAGE))
}

/// The help of the flag with this long name, anywhere in the command tree (its first line).
fn flag_help(long: &str) -> Option<String> {
    let root = Cli::command();
    let commands = std::iter::once(&root).chain(root.get_subcommands());
    let arg = commands.flat_map(clap::Command::get_arguments).find(|a| a.get_long() == Some(long))?;
    let help = arg.get_help()?.to_string();
    Some(help.lines().next().unwrap_or_default().trim_end_matches('.').to_owned())
}

/// `kubectl consolidation plan`: the command the user ran, for "See '… --help'" — the first
/// argument that names a subcommand (read from the words, as the line may not parse).
pub(super) fn command_line_name() -> String {
    let root = Cli::command();
    let args: Vec<String> = std::env::args_os().skip(1).map(|a| a.to_string_lossy().into_owned()).collect();
    let sub = args.iter().find_map(|a| root.find_subcommand(a).map(|c| c.get_name().to_owned()));
    match sub {
        Some(sub) => format!("kubectl consolidation {sub}"),
        None => "kubectl consolidation".to_owned(),
    }
}

/// Where miette wraps the detail: stderr's width when it is a terminal, else 100 columns.
pub(super) fn error_width() -> usize {
    let stderr = std::io::stderr();
    if stderr.is_terminal() {
        if let Some((terminal_size::Width(w), _)) = terminal_size::terminal_size_of(&stderr) {
            return usize::from(w);
        }
    }
    100
}

/// An error's text on stderr, through the terminal-safe escaping (a closed stderr loses
/// nothing that matters).
pub(super) fn print_error(text: &str, color: bool) {
    let _ = write!(std::io::stderr().lock(), "{}", crate::terminal::sanitize_output(text, color));
}

/// An [`crate::error::Error`] as stderr shows it (the one error style), terminal-safe.
pub(crate) fn error_text(e: &crate::error::Error, colour: bool) -> String {
    let text = crate::error_style::our_error(e, colour, error_width());
    crate::terminal::sanitize_output(&text, colour).into_owned()
}

/// One `note:` line on stderr (a closed stderr loses nothing that matters).
pub(super) fn warn_note(note: &str) {
    let _ = writeln!(std::io::stderr().lock(), "note: {}", crate::terminal::sanitize_line(note));
}

/// One `warning:` line per finding on stderr (a closed stderr loses nothing that matters);
/// a finding's own line breaks are escaped, so it cannot print a line that is not its own.
pub(super) fn warn(findings: &[String]) {
    let _ = std::io::stderr().lock().write_all(warning_lines(findings).as_bytes());
}

/// The `warning:` lines of `findings`, each terminal-safe and on its own line.
pub(crate) fn warning_lines(findings: &[String]) -> String {
    let mut lines = String::new();
    for f in findings {
        lines.push_str("warning: ");
        lines.push_str(&crate::terminal::sanitize_line(f));
        lines.push('\n');
    }
    lines
}
