//! One file per command (as cargo's `src/bin/cargo/commands/`): each takes the prepared
//! snapshot and the flags it reads, and returns its report and exit code. No I/O here: `app.rs`
//! loads and prepares the input before, and renders and writes the report after.
//!
//! Adding a command: its variant in `cli.rs`, one file here with a `run`, an arm in [`run`],
//! and its `report/` and `render/` files.

mod budgets;
pub(crate) mod diff;
mod doctor;
mod explain;
pub(crate) mod forecast;
mod instance_types;
mod pdb_audit;
mod plan;
mod score;
pub(crate) mod snapshot;
pub(crate) mod version;

pub(crate) use crate::audit::Scope;
use crate::cli::{Cli, Command};
use crate::error::Error;
use crate::report::Report;
use crate::snapshot::Snapshot;

/// How a command fails: a usage error (clap's style, exit 2) or an [`Error`] diagnostic.
pub(crate) enum Failure {
    Usage(String),
    Error(Box<Error>),
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Error(Box::new(e))
    }
}

/// What every command may read besides the snapshot.
pub(crate) struct Context<'a> {
    pub cli: &'a Cli,
    /// The replay's instant: `--now`, else the snapshot's capture time, else the clock (read
    /// by `app.rs`, never here).
    pub now: jiff::Timestamp,
    /// The `--set` what-ifs as applied, for the report's header.
    pub overrides: &'a [String],
    /// Where the pods the what-ifs added went (`prepare::apply_what_ifs`).
    pub placements: &'a [crate::engine::provisioner::Placement],
    /// `pdb-audit`'s namespaces (the kubeconfig's default namespace is read by `app.rs`).
    pub scope: Scope,
    /// Told how the replay and the forecast advance (a progress display at the edge, or
    /// nothing); it cannot change an answer.
    pub observer: &'a dyn crate::forecast::ForecastObserver,
}

/// A command's answer: the document to render and the process's exit code.
pub(crate) struct Outcome {
    pub report: Report,
    pub exit: u8,
}

impl Outcome {
    pub(crate) fn ok(report: Report) -> Outcome {
        Outcome { report, exit: crate::error::EXIT_OK }
    }
}

/// Runs the replaying commands. `snapshot` has been prepared (`prepare.rs`) with the what-ifs
/// applied; `baseline` is the snapshot before them, kept only for `forecast --compare`.
/// `snapshot`, `completion` and `version` never reach here: they write no report.
pub(crate) fn run(ctx: &Context<'_>, snapshot: &mut Snapshot, baseline: Option<Snapshot>) -> Result<Outcome, Failure> {
    match &ctx.cli.command {
        Command::Plan => plan::run(ctx, snapshot),
        Command::Explain { target } => explain::run(ctx, snapshot, target),
        Command::Score { target } => score::run(ctx, snapshot, target),
        Command::PdbAudit { fail_on, fixes } => pdb_audit::run(ctx, snapshot, *fail_on, *fixes),
        Command::Budgets { target } => budgets::run(ctx, snapshot, target.as_ref()),
        Command::Doctor { target, fail_on } => doctor::run(ctx, snapshot, target.as_ref(), *fail_on),
        Command::InstanceTypes { target } => instance_types::run(ctx, snapshot, target),
        Command::Forecast(args) => forecast::run(ctx, args, std::mem::take(snapshot), baseline),
        Command::Snapshot { .. } | Command::Completion { .. } | Command::Version | Command::Diff(_) => {
            unreachable!("`snapshot`, `completion`, `version` and `diff` (which prepares two sides) are run by app.rs")
        }
    }
}

/// The nodes `-l`, `-n` or `-A` select, as plan, score and budgets narrow their rows to.
fn selection(ctx: &Context<'_>, snapshot: &Snapshot) -> Result<Option<crate::target::Selection>, Failure> {
    let kube = &ctx.cli.kube;
    crate::target::select_nodes(snapshot, kube.selector.as_deref(), kube.namespace.as_deref(), kube.all_namespaces)
        .map_err(Failure::Usage)
}

/// Commands whose target must be a NodePool refuse other kinds in one wording.
fn node_pool_target<'a>(command: &str, target: &'a crate::object_ref::ObjectRef) -> Result<&'a str, Failure> {
    if target.kind == crate::object_ref::Kind::NodePool {
        Ok(&target.name)
    } else {
        Err(Failure::Usage(format!("{command} takes nodepool/NAME, not {target}")))
    }
}

/// A NodePool that is not in the snapshot, with did-you-mean hints from the pools that are.
fn no_such_pool(snapshot: &Snapshot, name: &str) -> Failure {
    crate::target::not_found(
        crate::object_ref::Kind::NodePool,
        name,
        snapshot.node_pools.iter().map(|p| p.metadata.name.as_str()),
    )
    .into()
}
