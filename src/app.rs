//! The only wiring: arguments → source → Snapshot → `prepare` → `commands` → render → stdout.
//! No decisions live here: each command's flow is its file in `commands/`, the input pipeline
//! is `prepare.rs`.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use crate::audit::Scope;
use crate::cli::{Cli, ColorChoice, Command, Output};
use crate::commands::{self, Context, Failure};
use crate::error::{Error, EXIT_ERROR, EXIT_OK, EXIT_USAGE};
use crate::prepare::{self, Inputs};
use crate::progress::Progress;
use crate::render::{self, Format, Styles, TableOptions};
use crate::sink::write_stdout;
use crate::snapshot::Snapshot;
use crate::source::{self, ClusterArgs, Source};

/// The process entry point: parses arguments (or serves kubectl's completion protocol).
pub fn main() -> ExitCode {
    if let Some(words) = crate::completion::request(std::env::args_os()) {
        return finish(&crate::completion::cobra(&words));
    }
    let cli = Cli::parse();
    let color = color_enabled(cli.output.color);
    owo_colors::set_override(color);
    let _ = miette::set_hook(Box::new(move |_| {
        Box::new(miette::MietteHandlerOpts::new().color(color).unicode(color).build())
    }));
    match run(&cli) {
        Ok(code) => ExitCode::from(code),
        Err(Failure::Usage(message)) => {
            let mut cmd = Cli::command();
            cmd.error(clap::error::ErrorKind::InvalidValue, message).print().ok();
            ExitCode::from(EXIT_USAGE)
        }
        Err(Failure::Error(e)) => {
            let code = e.exit_code();
            let text = format!("{:?}", miette::Report::new(Worded(e)));
            eprintln!("{}", crate::terminal::sanitize_output(&text, color));
            ExitCode::from(code)
        }
    }
}

/// An [`Error`] as the user reads it: the first line says what went wrong in words; the code
/// (`input::io`) comes last, after the help, where it is there for a bug report.
struct Worded(Box<Error>);

impl std::fmt::Debug for Worded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&self.0, f)
    }
}

impl std::fmt::Display for Worded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(&self.0, f)
    }
}

impl std::error::Error for Worded {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&*self.0)
    }
}

impl miette::Diagnostic for Worded {
    fn help<'a>(&'a self) -> Option<Box<dyn std::fmt::Display + 'a>> {
        let code = self.0.code().map(|c| c.to_string());
        match (self.0.help().map(|h| h.to_string()), code) {
            (Some(help), Some(code)) => Some(Box::new(format!("{help}\n(error code {code})"))),
            (None, Some(code)) => Some(Box::new(format!("(error code {code})"))),
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

fn finish(text: &str) -> ExitCode {
    write_stdout(text).map_or(ExitCode::from(EXIT_ERROR), |()| ExitCode::from(EXIT_OK))
}

/// The width answers must fit: `COLUMNS` when set (a number above 0), else the terminal's when
/// stdout is one; `None` when piped (unlimited: scripts get whole lines).
fn screen_width() -> Option<usize> {
    let columns = std::env::var("COLUMNS").ok().and_then(|c| c.trim().parse::<usize>().ok()).filter(|c| *c > 0);
    columns.or_else(|| {
        let stdout = std::io::stdout();
        if !stdout.is_terminal() {
            return None;
        }
        terminal_size::terminal_size_of(&stdout).map(|(terminal_size::Width(w), _)| usize::from(w))
    })
}

fn color_enabled(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => std::env::var_os("NO_COLOR").is_none_or(|v| v == "0") && std::io::stdout().is_terminal(),
    }
}

fn run(cli: &Cli) -> Result<u8, Failure> {
    if let Command::Completion { shell } = &cli.command {
        write_stdout(crate::completion::scripts::script(*shell))?;
        return Ok(EXIT_OK);
    }
    let format = match (&cli.command, &cli.output.output) {
        (Command::Snapshot { .. }, _) => Format::Yaml,
        (_, Output::Format(f)) => *f,
        (_, Output::File(path)) => {
            return Err(Failure::Usage(format!(
                "-o {}: only `snapshot` writes to a file; use -o text|wide|json|yaml|markdown",
                path.display()
            )))
        }
    };
    crate::whatif::validate(&cli.input.overrides).map_err(Failure::Usage)?;
    let progress = progress_for(cli, format);
    let source = source_of(cli, format);
    let prices = cli.input.prices.as_deref().map(source::prices::read_prices_file).transpose()?;
    match &source {
        Source::File { path, .. } => progress.stage(&format!("reading {}", path.display())),
        Source::Demo => progress.stage("reading the demo cluster"),
        // The live listing draws its own progress (lists done, objects read).
        Source::Cluster(_) => {}
    }
    let mut snapshot = source::load(&source)?;
    let outcome = prepare_and_run(cli, &source, format, prices, &mut snapshot, &progress);
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
    if let Command::Snapshot { redact } = &cli.command {
        let plan = commands::snapshot::plan(&cli.output.output, snapshot)?;
        if let Some(note) = &plan.note {
            progress.suspend(|| warn_note(note));
        }
        plan.sink.stream(|out| snapshot.write_text(plan.json, *redact, out))?;
        return Ok(EXIT_OK);
    }
    let for_terminal = matches!(format, Format::Text | Format::Wide | Format::Markdown);
    if for_terminal {
        if let Some(escaped) = crate::terminal::escape_snapshot(snapshot) {
            *snapshot = escaped;
        }
    }
    let now = cli.input.now.or(snapshot.info.captured_at).unwrap_or_else(jiff::Timestamp::now);
    let baseline = commands::forecast::baseline(cli, snapshot);
    let overrides = prepare::apply_what_ifs(snapshot, &cli.input.overrides).map_err(Failure::Usage)?;
    progress.stage("replaying");
    let ctx = Context { cli, now, overrides: &overrides, scope: scope(cli, source), observer: progress };
    let outcome = commands::run(&ctx, snapshot, baseline)?;
    progress.clear();
    let colour = color_enabled(cli.output.color);
    let styles = if colour { Styles::colored() } else { Styles::plain() };
    let table = TableOptions { no_headers: cli.output.no_headers, width: screen_width() };
    let text = render::render(&outcome.report, &completed.assumed, format, &styles, table);
    if for_terminal {
        write_stdout(&crate::terminal::sanitize_output(&text, colour))?;
    } else {
        write_stdout(&text)?;
    }
    Ok(outcome.exit)
}

/// The progress display: on stderr for the text formats (indicatif draws nothing when stderr
/// is not a terminal), none for `-o json|yaml` and `snapshot`; `forecast` in text on a
/// terminal also streams its rounds to stdout (see `progress.rs` for the contract).
fn progress_for(cli: &Cli, format: Format) -> Progress {
    let wanted = progress_wanted(cli, format);
    let stream = wanted
        && format == Format::Text
        && matches!(cli.command, Command::Forecast(_))
        && std::io::stdout().is_terminal();
    Progress::new(wanted, stream, color_enabled(cli.output.color))
}

fn progress_wanted(cli: &Cli, format: Format) -> bool {
    !matches!(cli.command, Command::Snapshot { .. }) && matches!(format, Format::Text | Format::Wide | Format::Markdown)
}

fn source_of(cli: &Cli, format: Format) -> Source {
    if let Some(path) = &cli.input.snapshot {
        return Source::File { path: path.clone(), max_bytes: cli.input.max_input_size.0 };
    }
    if cli.input.demo {
        return Source::Demo;
    }
    Source::Cluster(cluster_args(cli, progress_wanted(cli, format)))
}

fn cluster_args(cli: &Cli, progress: bool) -> ClusterArgs {
    ClusterArgs {
        kubeconfig: cli.kube.kubeconfig.as_ref().map(Into::into),
        context: cli.kube.context.clone(),
        cluster: cli.kube.cluster.clone(),
        user: cli.kube.user.clone(),
        request_timeout: cli.kube.request_timeout,
        progress,
        prices_given: cli.input.prices.is_some(),
    }
}

/// `pdb-audit`'s namespaces: `-n`, else (live) the kubeconfig context's namespace, else all.
fn scope(cli: &Cli, source: &Source) -> Scope {
    let namespace = cli.kube.namespace.clone().or_else(|| match source {
        Source::Cluster(args) if !cli.kube.all_namespaces && matches!(cli.command, Command::PdbAudit { .. }) => {
            source::default_namespace(args).or(Some("default".into()))
        }
        _ => None,
    });
    Scope {
        all_namespaces: cli.kube.all_namespaces || namespace.is_none(),
        namespace: if cli.kube.all_namespaces { None } else { namespace },
        selector: cli.kube.selector.clone(),
    }
}

/// One `note:` line on stderr (a closed stderr loses nothing that matters).
fn warn_note(note: &str) {
    let _ = writeln!(std::io::stderr().lock(), "note: {}", crate::terminal::sanitize_line(note));
}

/// One `warning:` line per finding on stderr (a closed stderr loses nothing that matters);
/// a finding's own line breaks are escaped, so it cannot print a line that is not its own.
fn warn(findings: &[String]) {
    let mut err = std::io::stderr().lock();
    for f in findings {
        let _ = writeln!(err, "warning: {}", crate::terminal::sanitize_line(f));
    }
}
