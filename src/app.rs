//! The only wiring: arguments → source → Snapshot → replay (or audit) → report → render → stdout.
//! No decisions live here.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use crate::audit::{self, Scope};
use crate::cli::{Cli, ColorChoice, Command, Output, SortBy};
use crate::engine;
use crate::error::{Error, EXIT_ERROR, EXIT_FINDINGS, EXIT_OK, EXIT_USAGE};
use crate::object_ref::Kind;
use crate::render::{self, Format, Styles, TableOptions};
use crate::report::{self, Report};
use crate::sink::{write_stdout, Sink};
use crate::snapshot::Snapshot;
use crate::source::{self, ClusterArgs, Source};
use crate::target::{not_found, resolve, select_nodes};

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
            eprintln!("{:?}", miette::Report::new(Worded(e)));
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

enum Failure {
    Usage(String),
    Error(Box<Error>),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Error(Box::new(e))
    }
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
    let source = source_of(cli);
    let mut snapshot = source::load(&source)?;
    let outcome = report_on(cli, &source, format, &mut snapshot);
    // Freeing a large snapshot object by object takes a tenth of the run (150,000 pods), and
    // the process exits next: the OS takes the memory back at once.
    std::mem::forget(snapshot);
    outcome
}

/// Everything after the load: prices, what-ifs, the replay and its report.
fn report_on(cli: &Cli, source: &Source, format: Format, snapshot: &mut Snapshot) -> Result<u8, Failure> {
    if let Some(path) = &cli.input.prices {
        let types = source::prices::read_prices_file(path)?;
        snapshot.merge_instance_types(types);
        snapshot.info.price_source = Some("file".into());
    }
    let setting_warnings = crate::settings::resolve(snapshot, &cli.input.karpenter_settings).map_err(Failure::Usage)?;
    let assumed = report::Assumed::of(&snapshot.info);
    warn(&setting_warnings);
    let findings = crate::catalogue::complete(snapshot, &crate::settings::capacity(snapshot));
    warn(&findings);
    // A snapshot this plugin wrote keeps what its catalogue estimated then.
    for f in findings {
        if !snapshot.info.estimated.contains(&f) {
            snapshot.info.estimated.push(f);
        }
    }
    let now = cli.input.now.or(snapshot.info.captured_at).unwrap_or_else(jiff::Timestamp::now);
    if let Command::Snapshot { redact } = &cli.command {
        return write_snapshot(cli, snapshot, *redact);
    }
    let baseline = match &cli.command {
        Command::Forecast(args) if args.compare => Some(snapshot.clone()),
        _ => None,
    };
    let overrides = crate::whatif::apply(snapshot, &cli.input.overrides).map_err(Failure::Usage)?;
    let styles = if color_enabled(cli.output.color) { Styles::colored() } else { Styles::plain() };
    let table = TableOptions { no_headers: cli.output.no_headers, width: screen_width() };
    if let Command::Forecast(args) = &cli.command {
        let startup = cli.input.pod_startup.0;
        let report = forecast_report(args, startup, baseline, std::mem::take(snapshot), now, &overrides)?;
        write_stdout(&render::render(&report, &assumed, format, &styles, table))?;
        return Ok(EXIT_OK);
    }
    let (mut report, exit, explained) = build_report(cli, source, snapshot, now, &overrides)?;
    // What would change an explained node's verdict: single changes replayed on the snapshot.
    if let (Report::Explain(e), Some(verdict)) = (&mut report, explained) {
        let tried = crate::unlock::unlocks(snapshot, now, &verdict);
        e.what_would_change = tried.iter().map(report::explain::UnlockView::from).collect();
    }
    write_stdout(&render::render(&report, &assumed, format, &styles, table))?;
    Ok(exit)
}

fn build_report(
    cli: &Cli,
    source: &Source,
    snapshot: &Snapshot,
    now: jiff::Timestamp,
    overrides: &[String],
) -> Result<(Report, u8, Option<engine::NodeVerdict>), Failure> {
    let selection = || {
        select_nodes(snapshot, cli.kube.selector.as_deref(), cli.kube.namespace.as_deref(), cli.kube.all_namespaces)
            .map_err(Failure::Usage)
    };
    Ok(match &cli.command {
        Command::Plan => {
            let selected = selection()?;
            let replay = engine::replay(snapshot, now);
            let mut plan = report::plan::plan(&replay, snapshot, overrides, cli.input.pod_startup.0);
            sort_nodes(&mut plan.nodes, cli.output.sort_by);
            if let Some(s) = selected {
                plan.nodes.retain(|n| s.nodes.contains(&n.name));
                plan.selection = Some(s.described);
            }
            (Report::Plan(plan), EXIT_OK, None)
        }
        Command::Explain { target } => {
            let (name, looked_up) = resolve(snapshot, target, cli.kube.namespace.as_deref(), cli.kube.all_namespaces)?;
            let replay = engine::replay_focused(snapshot, now, Some(&name));
            let mut explanation =
                report::explain::explain_with_startup(&replay, snapshot, &name, overrides, cli.input.pod_startup.0)
                    .ok_or_else(|| not_found(Kind::Node, &name, replay.nodes.iter().map(|n| n.name.as_str())))?;
            explanation.looked_up = looked_up;
            let verdict = replay.nodes.iter().find(|n| n.name == name).cloned();
            (Report::Explain(Box::new(explanation)), EXIT_OK, verdict)
        }
        Command::Score { target } => {
            if target.kind != Kind::NodePool {
                return Err(Failure::Usage(format!("score takes nodepool/NAME, not {target}")));
            }
            let selected = selection()?;
            let pool = engine::scoring::score_pool(snapshot, now, &target.name).ok_or_else(|| {
                not_found(Kind::NodePool, &target.name, snapshot.node_pools.iter().map(|p| p.metadata.name.as_str()))
            })?;
            let mut score = report::score::score(&pool, overrides, &snapshot.info.unread);
            if let Some(s) = selected {
                score.candidates.retain(|c| s.nodes.contains(&c.node));
                score.selection = Some(s.described);
            }
            (Report::Score(score), EXIT_OK, None)
        }
        Command::PdbAudit { fail_on, fixes } => {
            if let Some(selector) = &cli.kube.selector {
                audit::parse_selector(selector).map_err(|e| Failure::Usage(format!("-l {selector}: {e}")))?;
            }
            let audit = audit::pdb_audit(snapshot, now, &scope(cli, source));
            let exit = match fail_on {
                // A gate must not pass on what it could not see.
                Some(_) if audit.blind => EXIT_ERROR,
                Some(threshold) if audit.fails_at(*threshold) => EXIT_FINDINGS,
                _ => EXIT_OK,
            };
            let mut document = report::pdb_audit::document(&audit);
            document.info_fixes = *fixes == crate::cli::FixesChoice::All;
            (Report::PdbAudit(document), exit, None)
        }
        Command::Budgets { target } => {
            let selected = selection()?;
            let replay = engine::replay(snapshot, now);
            let pool = match target {
                Some(t) if t.kind != Kind::NodePool => {
                    return Err(Failure::Usage(format!("budgets takes nodepool/NAME, not {t}")));
                }
                Some(t) => {
                    if !replay.budgets.contains_key(&t.name) {
                        return Err(
                            not_found(Kind::NodePool, &t.name, replay.budgets.keys().map(String::as_str)).into()
                        );
                    }
                    Some(t.name.as_str())
                }
                None => None,
            };
            let mut budgets = report::budgets::budgets(&replay, pool, &snapshot.info.unread);
            if let Some(s) = selected {
                budgets.node_pools.retain(|p| s.pools.contains(&p.node_pool));
                budgets.selection = Some(format!("{} (their NodePools' budgets)", s.described));
            }
            (Report::Budgets(budgets), EXIT_OK, None)
        }
        Command::InstanceTypes { target } => {
            if target.kind != Kind::NodePool {
                return Err(Failure::Usage(format!("instance-types takes nodepool/NAME, not {target}")));
            }
            let catalogue = report::instance_types::catalogue(snapshot, now, &target.name).ok_or_else(|| {
                not_found(Kind::NodePool, &target.name, snapshot.node_pools.iter().map(|p| p.metadata.name.as_str()))
            })?;
            (Report::InstanceTypes(Box::new(catalogue)), EXIT_OK, None)
        }
        Command::Snapshot { .. } | Command::Completion { .. } | Command::Forecast(_) => {
            unreachable!("handled before the replay")
        }
    })
}

/// `forecast`: one run on the snapshot (with `--set` applied), or with `--compare` a second on
/// the snapshot as it was read.
fn forecast_report(
    args: &crate::cli::ForecastArgs,
    pod_startup: jiff::SignedDuration,
    baseline: Option<Snapshot>,
    snapshot: Snapshot,
    now: jiff::Timestamp,
    overrides: &[String],
) -> Result<Report, Failure> {
    use crate::forecast::clock::{Delays, Figure};
    use crate::forecast::{forecast, Limits};
    let d = Delays::default();
    let delays = Delays {
        launch: d.launch.or_flag(args.launch_delay),
        validation: d.validation.or_flag(args.validation_delay),
        // `--pod-startup` is global (explain and plan read it too); its default is stated there.
        pod_startup: Figure { value: pod_startup, default: pod_startup == d.pod_startup.value },
        termination_grace: d.termination_grace.or_flag(args.termination_grace),
        ..d
    };
    let limits = Limits { rounds: args.rounds, until: args.until };
    let with = report::forecast::document(&forecast(snapshot, now, &delays, limits), overrides);
    Ok(match baseline {
        None => Report::Forecast(Box::new(with)),
        Some(_) if overrides.is_empty() => {
            return Err(Failure::Usage("forecast --compare needs at least one --set KEY=VALUE to compare".into()))
        }
        Some(base) => {
            let without = report::forecast::document(&forecast(base, now, &delays, limits), &[]);
            Report::ForecastComparison(Box::new(report::forecast::comparison(without, with, overrides)))
        }
    })
}

fn sort_nodes(nodes: &mut [report::plan::NodeSummary], by: Option<SortBy>) {
    match by {
        None | Some(SortBy::Name) => {}
        Some(SortBy::Verdict) => nodes.sort_by(|a, b| a.verdict.cmp(&b.verdict).then_with(|| a.name.cmp(&b.name))),
        Some(SortBy::Price) => nodes.sort_by(|a, b| {
            b.price.unwrap_or(0.0).total_cmp(&a.price.unwrap_or(0.0)).then_with(|| a.name.cmp(&b.name))
        }),
        Some(SortBy::Cost) => {
            nodes.sort_by(|a, b| a.disruption_cost.total_cmp(&b.disruption_cost).then_with(|| a.name.cmp(&b.name)));
        }
        Some(SortBy::Pool) => nodes.sort_by(|a, b| (&a.node_pool, &a.name).cmp(&(&b.node_pool, &b.name))),
    }
}

fn source_of(cli: &Cli) -> Source {
    if let Some(path) = &cli.input.snapshot {
        return Source::File { path: path.clone(), max_bytes: cli.input.max_input_size.0 };
    }
    if cli.input.demo {
        return Source::Demo;
    }
    Source::Cluster(cluster_args(cli))
}

fn cluster_args(cli: &Cli) -> ClusterArgs {
    ClusterArgs {
        kubeconfig: cli.kube.kubeconfig.as_ref().map(Into::into),
        context: cli.kube.context.clone(),
        cluster: cli.kube.cluster.clone(),
        user: cli.kube.user.clone(),
        request_timeout: cli.kube.request_timeout,
        progress: true,
        prices_given: cli.input.prices.is_some(),
    }
}

fn scope(cli: &Cli, source: &Source) -> Scope {
    let namespace = cli.kube.namespace.clone().or_else(|| match source {
        Source::Cluster(args) if !cli.kube.all_namespaces => source::default_namespace(args).or(Some("default".into())),
        _ => None,
    });
    Scope {
        all_namespaces: cli.kube.all_namespaces || namespace.is_none(),
        namespace: if cli.kube.all_namespaces { None } else { namespace },
        selector: cli.kube.selector.clone(),
    }
}

/// From this many pods, `snapshot` without `-o` writes JSON: a YAML snapshot of 10,000 pods
/// and more takes over ten times as long as the same JSON to read back (bench/RESULTS.md).
const JSON_BY_DEFAULT_FROM_PODS: usize = 10_000;

fn write_snapshot(cli: &Cli, snapshot: &Snapshot, redact: bool) -> Result<u8, Failure> {
    let (json, sink) = match &cli.output.output {
        Output::Format(Format::Json) => (true, Sink::Stdout),
        Output::Format(Format::Text) if snapshot.pods.len() >= JSON_BY_DEFAULT_FROM_PODS => {
            warn_note(&format!(
                "{} pods: writing JSON, which reads back over ten times faster than YAML at this size; -o yaml writes YAML",
                snapshot.pods.len()
            ));
            (true, Sink::Stdout)
        }
        Output::Format(Format::Yaml | Format::Text) => (false, Sink::Stdout),
        Output::Format(other) => {
            return Err(Failure::Usage(format!("snapshot writes yaml or json, not {other:?}").to_lowercase()))
        }
        Output::File(path) => (path.extension().is_some_and(|e| e == "json"), Sink::File(path.clone())),
    };
    sink.stream(|out| snapshot.write_text(json, redact, out))?;
    Ok(EXIT_OK)
}

/// One `note:` line on stderr (a closed stderr loses nothing that matters).
fn warn_note(note: &str) {
    let _ = writeln!(std::io::stderr().lock(), "note: {note}");
}

/// One `warning:` line per finding on stderr (a closed stderr loses nothing that matters).
fn warn(findings: &[String]) {
    let mut err = std::io::stderr().lock();
    for f in findings {
        let _ = writeln!(err, "warning: {f}");
    }
}
