//! The only wiring: arguments → source → Snapshot → `prepare` → `commands` → render → stdout.
//! No decisions live here: each command's flow is its file in `commands/`, the input pipeline
//! is `prepare.rs`.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use crate::audit::Scope;
use crate::cli::{Cli, ColorChoice, Command, Output};
use crate::commands::{self, Context, Failure};
use crate::error::{EXIT_ERROR, EXIT_OK, EXIT_USAGE};
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

/// `--help` and `--version` as clap prints them (exit 0); every other clap error in
/// the one error style (error_style.rs), exit 2.
fn clap_failure(e: &clap::Error) -> ExitCode {
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
fn command_line_name() -> String {
    let root = Cli::command();
    let args: Vec<String> = std::env::args_os().skip(1).map(|a| a.to_string_lossy().into_owned()).collect();
    let sub = args.iter().find_map(|a| root.find_subcommand(a).map(|c| c.get_name().to_owned()));
    match sub {
        Some(sub) => format!("kubectl consolidation {sub}"),
        None => "kubectl consolidation".to_owned(),
    }
}

/// Where miette wraps the detail: stderr's width when it is a terminal, else 100 columns.
fn error_width() -> usize {
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
fn print_error(text: &str, color: bool) {
    let _ = write!(std::io::stderr().lock(), "{}", crate::terminal::sanitize_output(text, color));
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
    colour_by_conventions(choice, |key| std::env::var_os(key), std::io::stdout().is_terminal())
}

/// `--color`, then the conventions every colouring CLI reads, in this order:
/// - `NO_COLOR` set and not empty disables (no-color.org);
/// - `CLICOLOR_FORCE` set and not `0` (bixense.com/clicolors), or `FORCE_COLOR` set and not
///   empty, `0` or `false` (force-color.org; `0`/`false` disable, as supports-color reads them),
///   force colour even when piped;
/// - `TERM=dumb` disables (a terminal that cannot show escapes);
/// - else colour exactly when stdout is a terminal.
fn colour_by_conventions(
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

fn run(cli: &Cli) -> Result<u8, Failure> {
    if let Command::Completion { shell } = &cli.command {
        write_stdout(crate::completion::scripts::script(*shell))?;
        return Ok(EXIT_OK);
    }
    if let Command::Version = &cli.command {
        return version(cli);
    }
    let format = match (&cli.command, &cli.output.output) {
        (Command::Snapshot { .. }, _) => Format::Yaml,
        (_, Output::Format(f)) => *f,
        // Both read the JSON document.
        (_, Output::Name | Output::JsonPath(_)) => Format::Json,
        (_, Output::File(path)) => {
            return Err(Failure::Usage(format!(
                "-o {}: only `snapshot` writes to a file; use -o text|wide|json|yaml|markdown|name|jsonpath=TEMPLATE",
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
    let stdin = |p: &std::path::PathBuf| p.as_os_str() == "-";
    if files.iter().filter(|p| stdin(p)).count() > 1
        || (files.iter().any(stdin) && cli.input.snapshot.as_ref().is_some_and(stdin))
    {
        return Err(Failure::Usage(
            "stdin (`-`) can be read once: pass the snapshot or one -f from it, not both".into(),
        ));
    }
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

/// The report as `-o` asks: rendered for the screen or the pipe (terminal-safe in text, wide
/// and Markdown), or its names, or a jsonpath over its document.
fn report_text(
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

/// `version`: no input is read; the document in the format `-o` asks for.
fn version(cli: &Cli) -> Result<u8, Failure> {
    let doc = commands::version::run(cli.input.karpenter_version.as_deref()).map_err(Failure::Usage)?;
    let value = serde_json::to_value(&doc).expect("the version document serialises");
    let text = match &cli.output.output {
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
    };
    write_stdout(&text)?;
    Ok(EXIT_OK)
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

/// kubectl's "No resources found in NS namespace." as a warning: `-n` names a namespace that
/// holds no pod of the snapshot (a typo, or the wrong cluster), so every answer scoped by it is
/// empty. `None` when `-A` is given or the namespace has pods.
fn empty_namespace(cli: &Cli, snapshot: &Snapshot) -> Option<String> {
    let namespace = cli.kube.namespace.as_deref().filter(|_| !cli.kube.all_namespaces)?;
    if snapshot.pods.iter().any(|p| p.metadata.namespace() == namespace) {
        return None;
    }
    let mut with_pods: Vec<&str> = snapshot.pods.iter().map(|p| p.metadata.namespace()).collect();
    with_pods.sort_unstable();
    with_pods.dedup();
    let known = match with_pods.len() {
        0 => "the snapshot has no pods".to_owned(),
        n if n <= 5 => format!("namespaces with pods: {}", with_pods.join(", ")),
        n => format!("namespaces with pods: {}, … ({n} in all)", with_pods[..5].join(", ")),
    };
    Some(format!("no pods in namespace `{namespace}` in the snapshot ({known}); -A looks in every namespace"))
}

/// One `note:` line on stderr (a closed stderr loses nothing that matters).
fn warn_note(note: &str) {
    let _ = writeln!(std::io::stderr().lock(), "note: {}", crate::terminal::sanitize_line(note));
}

/// One `warning:` line per finding on stderr (a closed stderr loses nothing that matters);
/// a finding's own line breaks are escaped, so it cannot print a line that is not its own.
fn warn(findings: &[String]) {
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

/// An [`crate::error::Error`] as stderr shows it (the one error style), terminal-safe.
pub(crate) fn error_text(e: &crate::error::Error, colour: bool) -> String {
    let text = crate::error_style::our_error(e, colour, error_width());
    crate::terminal::sanitize_output(&text, colour).into_owned()
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
