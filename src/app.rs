//! The only wiring: arguments → source → Snapshot → `prepare` → `commands` → render → stdout.
//! No decisions live here: each command's flow is its file in `commands/`, the input pipeline
//! is `prepare.rs`; what the flags ask for (`flags`), what the terminal can show (`screen`), the
//! answer's text (`output`) and everything on stderr (`stderr`) are this module's four files.

mod flags;
mod output;
mod screen;
mod stderr;

use std::process::ExitCode;

use clap::Parser;

use self::flags::{empty_namespace, scope, source_of};
use self::output::{report_text, version_text};
use self::screen::{color_enabled, progress_for, progress_wanted};
use self::stderr::{clap_failure, command_line_name, error_width, print_error, warn, warn_note};
pub(crate) use self::stderr::{error_text, warning_lines};
use crate::cli::{Cli, Command};
use crate::commands::{self, Context, Failure};
use crate::error::{EXIT_ERROR, EXIT_OK, EXIT_USAGE};
use crate::prepare::{self, Inputs};
use crate::progress::Progress;
use crate::render::Format;
use crate::sink::write_stdout;
use crate::snapshot::Snapshot;
use crate::source::{self, Source};

/// The process entry point: parses arguments (or serves kubectl's completion protocol).
pub fn main() -> ExitCode {
    if let Some(words) = crate::completion::request(std::env::args_os()) {
        return finish(&crate::completion::cobra(&words));
    }
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_failure(&e),
    };
    let color = color_enabled(cli.output.color);
    match run(&cli) {
        Ok(code) => ExitCode::from(code),
        Err(Failure::Usage(message)) => {
            let text = crate::error_style::usage_error(&message, &command_line_name(), color);
            print_error(&text, color);
            ExitCode::from(EXIT_USAGE)
        }
        Err(Failure::Error(e)) => {
            let code = e.exit_code();
            print_error(&crate::error_style::our_error(&e, color, error_width()), color);
            ExitCode::from(code)
        }
    }
}

fn finish(text: &str) -> ExitCode {
    write_stdout(text).map_or(ExitCode::from(EXIT_ERROR), |()| ExitCode::from(EXIT_OK))
}

fn run(cli: &Cli) -> Result<u8, Failure> {
    if let Command::Completion { shell } = &cli.command {
        write_stdout(crate::completion::scripts::script(*shell))?;
        return Ok(EXIT_OK);
    }
    if let Command::Version = &cli.command {
        write_stdout(&version_text(cli)?)?;
        return Ok(EXIT_OK);
    }
    let format = flags::format(cli)?;
    crate::whatif::validate(&cli.input.overrides).map_err(Failure::Usage)?;
    let progress = progress_for(cli, format);
    let source = source_of(cli, progress_wanted(cli, format));
    let prices = cli.input.prices.as_deref().map(source::prices::read_prices_file).transpose()?;
    match &source {
        Source::File { path, .. } => progress.stage(&format!("reading {}", path.display())),
        Source::Demo => progress.stage("reading the demo cluster"),
        // The live listing draws its own progress (lists done, objects read).
        Source::Cluster(_) => {}
    }
    let manifests = match &cli.command {
        Command::Diff(args) => read_manifests(cli, &args.files)?,
        _ => Vec::new(),
    };
    let mut snapshot = source::load(&source)?;
    let outcome = match &cli.command {
        Command::Diff(args) => diff(cli, (args, &manifests), &source, format, prices, &mut snapshot, &progress),
        _ => prepare_and_run(cli, &source, format, prices, &mut snapshot, &progress),
    };
    // Freeing a large snapshot object by object takes a tenth of the run (150,000 pods), and
    // the process exits next: the OS takes the memory back at once.
    std::mem::forget(snapshot);
    outcome
}

/// Everything after the load: the input pipeline, the command, its rendering.
fn prepare_and_run(
    cli: &Cli,
    source: &Source,
    format: Format,
    prices: Option<prepare::Prices>,
    snapshot: &mut Snapshot,
    progress: &Progress,
) -> Result<u8, Failure> {
    progress.stage("preparing the snapshot");
    let inputs = Inputs {
        prices,
        karpenter_settings: &cli.input.karpenter_settings,
        karpenter_version: cli.input.karpenter_version.as_deref(),
    };
    let completed = prepare::complete(snapshot, inputs)?;
    progress.suspend(|| warn(&completed.warnings));
    if let Some(note) = empty_namespace(cli, snapshot) {
        progress.suspend(|| warn(&[note]));
    }
    if let Command::Snapshot { redact } = &cli.command {
        let plan = commands::snapshot::plan(&cli.output.output, snapshot)?;
        if let Some(note) = &plan.note {
            progress.suspend(|| warn_note(note));
        }
        plan.sink.stream(|out| snapshot.write_text(plan.json, *redact, out))?;
        return Ok(EXIT_OK);
    }
    let (text, exit) = answer(cli, source, format, &completed.assumed, snapshot, progress)?;
    write_stdout(&text)?;
    Ok(exit)
}

/// A replaying command's answer on the prepared `snapshot`: the text for stdout (terminal-safe
/// in text, wide and Markdown) and the exit code.
pub(crate) fn answer(
    cli: &Cli,
    source: &Source,
    format: Format,
    assumed: &crate::report::Assumed,
    snapshot: &mut Snapshot,
    progress: &Progress,
) -> Result<(String, u8), Failure> {
    let for_terminal = matches!(format, Format::Text | Format::Wide | Format::Markdown);
    if for_terminal {
        if let Some(escaped) = crate::terminal::escape_snapshot(snapshot) {
            *snapshot = escaped;
        }
    }
    let now = cli.input.now.or(snapshot.info.captured_at).unwrap_or_else(jiff::Timestamp::now);
    let notes = prepare::materialize_virtual_pods(snapshot, now);
    progress.suspend(|| warn(&notes));
    let baseline = commands::forecast::baseline(cli, snapshot);
    let what_ifs = prepare::apply_what_ifs(snapshot, &cli.input.overrides, now).map_err(Failure::Usage)?;
    progress.stage("replaying");
    let ctx = Context {
        cli,
        now,
        overrides: &what_ifs.overrides,
        placements: &what_ifs.placements,
        scope: scope(cli, source),
        observer: progress,
    };
    let outcome = commands::run(&ctx, snapshot, baseline)?;
    progress.clear();
    Ok((report_text(cli, format, &outcome.report, assumed)?, outcome.exit))
}

/// `diff -f`: the manifests, read before the snapshot so that a bad one fails at once.
fn read_manifests(cli: &Cli, files: &[std::path::PathBuf]) -> Result<Vec<crate::manifest::Manifest>, Failure> {
    flags::stdin_read_once(cli, files)?;
    Ok(source::manifests::read(files)?)
}

/// `diff`: both sides are prepared by the command (the change is the after side's input).
fn diff(
    cli: &Cli,
    (args, manifests): (&crate::cli::DiffArgs, &[crate::manifest::Manifest]),
    source: &Source,
    format: Format,
    prices: Option<prepare::Prices>,
    snapshot: &mut Snapshot,
    progress: &Progress,
) -> Result<u8, Failure> {
    if let Some(prices) = prices {
        prepare::apply_prices(snapshot, prices);
    }
    let now = cli.input.now.or(snapshot.info.captured_at).unwrap_or_else(jiff::Timestamp::now);
    // Each side places its own new pods: the context carries none.
    let ctx = Context {
        cli,
        now,
        overrides: &cli.input.overrides,
        placements: &[],
        scope: scope(cli, source),
        observer: progress,
    };
    let for_terminal = matches!(format, Format::Text | Format::Wide | Format::Markdown);
    progress.stage("replaying both sides");
    let diffed = commands::diff::run(&ctx, args, snapshot, manifests, for_terminal)?;
    progress.clear();
    progress.suspend(|| warn(&diffed.warnings));
    write_stdout(&report_text(cli, format, &diffed.outcome.report, &diffed.assumed)?)?;
    Ok(diffed.outcome.exit)
}
