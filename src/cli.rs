//! The command line, declared with clap derive. No behaviour lives here.
//!
//! kubectl passes no global flags to plugins, so kubectl's own flags are declared here.

use std::path::PathBuf;
use std::str::FromStr;
use std::time::Duration;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::audit::Severity;
use crate::object_ref::ObjectRef;
use crate::render::Format;

/// Explain what Karpenter's disruption controller will do to your nodes, and why.
///
/// Replays one round of Karpenter's consolidation (Emptiness, Drift, Multi- and SingleNode
/// consolidation) from a live cluster or a snapshot file, and names the upstream function
/// behind every decision.
#[derive(Debug, Parser)]
#[command(
    name = "kubectl-consolidation",
    bin_name = "kubectl consolidation",
    version,
    long_version = crate::version::long(),
    max_term_width = 100,
    after_help = EXAMPLES
)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub kube: KubeArgs,
    #[command(flatten)]
    pub output: OutputArgs,
    #[command(subcommand)]
    pub command: Command,
}

/// `--help`'s examples, kubectl's way: the commands a first session runs.
const EXAMPLES: &str = "\
Examples:
  # What Karpenter would do now on the built-in demo cluster, and why
  kubectl consolidation plan --demo

  # One node's whole pipeline, on the current kubeconfig context
  kubectl consolidation explain node/ip-10-0-1-23.ec2.internal

  # Rounds after rounds until the cluster settles, from a saved snapshot
  kubectl consolidation forecast --snapshot cluster.yaml

  # Replay a fix before applying it
  kubectl consolidation plan --demo --set deployment/tenant-a/app-b.replicas=2

  # PodDisruptionBudgets that let the last replica go, in every namespace
  kubectl consolidation pdb-audit -A";

/// `forecast --help`'s examples.
const FORECAST_EXAMPLES: &str = "\
Examples:
  # The forecast of the demo cluster to steady state
  kubectl consolidation forecast --demo

  # At most three rounds, or the first hour
  kubectl consolidation forecast --demo --rounds 3 --until 1h

  # The fixes for the workloads it takes to zero ready pods, each replayed as a forecast
  kubectl consolidation forecast --demo --fixes

  # The same forecast without and with a change
  kubectl consolidation forecast --demo --compare --set deployment/tenant-a/app-b.replicas=2";

/// `budgets --help`'s examples.
const BUDGETS_EXAMPLES: &str = "\
Examples:
  # Every NodePool's allowed disruptions now, and the week's calendar of windows
  kubectl consolidation budgets --demo

  # One NodePool
  kubectl consolidation budgets nodepool/default --demo";

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// The whole pipeline for one node, step by step, and its verdict.
    ///
    /// TARGET is node/NAME (or a bare node name), nodeclaim/NAME, or pod/NAME with -n.
    #[command(
        after_help = "Examples:\n  kubectl consolidation explain node/node-x --demo\n  kubectl consolidation explain pod/app-b-7c9d-x1 -n tenant-a --demo"
    )]
    Explain { target: ObjectRef },
    /// The round: which method acts, its commands, and a verdict per node.
    #[command(
        after_help = "Examples:\n  kubectl consolidation plan --demo\n  kubectl consolidation plan -l karpenter.sh/nodepool=default --sort-by verdict\n  kubectl consolidation plan --snapshot cluster.yaml -o json"
    )]
    Plan,
    /// Balanced score of every candidate of a NodePool, the pool baseline and the threshold.
    Score {
        /// nodepool/NAME
        target: ObjectRef,
    },
    /// PodDisruptionBudgets judged against replicas, placement and NodePool settings.
    PdbAudit {
        /// Exit 3 when a finding at or above this severity exists.
        #[arg(long, value_enum)]
        fail_on: Option<Severity>,
        /// Which findings' fixes the text lists: `actionable` (critical and warning) or `all`
        /// (info too). JSON always carries every fix.
        #[arg(long, value_enum, default_value_t = FixesChoice::Actionable)]
        fixes: FixesChoice,
    },
    /// What Karpenter itself said (events, conditions, metrics) beside the replay, and why
    /// they part.
    ///
    /// TARGET is node/NAME for one node (default: the whole cluster).
    Doctor {
        /// node/NAME
        target: Option<ObjectRef>,
        /// Exit 3 when a finding at or above this severity exists (1 when events or metrics
        /// could not be read).
        #[arg(long, value_enum)]
        fail_on: Option<Severity>,
    },
    /// Allowed disruptions per NodePool and reason now, and the schedule windows.
    #[command(after_help = BUDGETS_EXAMPLES)]
    Budgets {
        /// nodepool/NAME (default: every NodePool)
        target: Option<ObjectRef>,
    },
    /// The instance types a NodePool's replacements are chosen from: capacity, allocatable,
    /// pods, each offering's price and availability, and where each figure came from.
    InstanceTypes {
        /// nodepool/NAME
        target: ObjectRef,
    },
    /// Rounds after rounds until Karpenter settles: the timeline, the end state per NodePool,
    /// and what each workload pays (evictions, time at zero ready replicas).
    ///
    /// Launch, startup and drain times are estimates (defaults marked in the output).
    #[command(after_help = FORECAST_EXAMPLES)]
    Forecast(ForecastArgs),
    /// What a change does to the round — an upgrade, manifests, a what-if — before and after,
    /// and the part of the change behind each node that moves.
    ///
    /// The change is `-f` manifests, `--set`, `--karpenter-setting` and `--karpenter-version`:
    /// in `diff` they describe the after side; the before side is the cluster as read.
    #[command(
        after_help = "Examples:\n  kubectl consolidation diff --karpenter-version v1.14.1\n  kubectl consolidation diff -f nodepool.yaml -f pdbs/\n  kubectl consolidation diff --set budgets=20% --forecast\n  kubectl consolidation diff -f manifests/ --fail-on zero-ready   # in CI"
    )]
    Diff(DiffArgs),
    /// Write the state that was read, to replay offline or attach to a bug report.
    ///
    /// `-o FILE` writes to a file (format from its extension), `-o json|yaml` to stdout.
    Snapshot {
        /// Replace names, namespaces and label values by stable hashes (well-known keys kept).
        #[arg(long)]
        redact: bool,
    },
    /// Print a shell completion script (bash, zsh, fish).
    ///
    /// The script asks the binary for candidates, as kubectl does through
    /// `kubectl_complete-consolidation`; see completions/README.md.
    Completion { shell: Shell },
    /// The client version, the Karpenter rule set it replays, and how it was built
    /// (`-o json|yaml` as `kubectl version -o json`).
    Version,
}

/// `forecast`'s limits and delays.
#[derive(Debug, Args)]
pub(crate) struct ForecastArgs {
    /// Stop after this many rounds that act.
    #[arg(long, value_name = "N")]
    pub rounds: Option<usize>,
    /// Stop at this time from the start (`30m`, `1h`).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub until: Option<jiff::SignedDuration>,
    /// Run with and without the `--set` changes and print both.
    #[arg(long)]
    pub compare: bool,
    /// Replay fixes for the workloads it sends to zero ready replicas, as `plan` does for one
    /// round; each fix is a forecast of its own, so this costs up to 8 forecasts more.
    #[arg(long)]
    pub fixes: bool,
    /// A replacement's launch until it is initialized (default 90s).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub launch_delay: Option<jiff::SignedDuration>,
    /// Karpenter's wait before a consolidation command starts (default 15s, upstream's).
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub validation_delay: Option<jiff::SignedDuration>,
    /// A pod's termination grace when it sets none (default 30s, Kubernetes').
    #[arg(long, value_name = "DURATION", value_parser = parse_duration)]
    pub termination_grace: Option<jiff::SignedDuration>,
}

/// `diff`'s change and gate.
#[derive(Debug, Args)]
pub(crate) struct DiffArgs {
    /// Manifests to apply, as `kubectl apply -f` reads them (repeatable): a file, a directory
    /// (its .yaml, .yml and .json files), or `-` for stdin.
    #[arg(short = 'f', long = "filename", value_name = "FILE|DIR|-")]
    pub files: Vec<PathBuf>,
    /// Compare the forecasts too: rounds until Karpenter settles, and each workload's bill.
    #[arg(long)]
    pub forecast: bool,
    /// Exit 3 when the change sends a workload to zero ready pods (`zero-ready`), or moves
    /// anything at all (`change`).
    #[arg(long, value_enum, value_name = "WHEN")]
    pub fail_on: Option<DiffFailOn>,
}

/// `diff --fail-on`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum DiffFailOn {
    ZeroReady,
    Change,
}

/// A non-negative duration: `90s`, `5m`, `1h30m`.
fn parse_duration(raw: &str) -> Result<jiff::SignedDuration, String> {
    let d = raw.parse::<jiff::SignedDuration>().map_err(|_| "not a duration (e.g. `90s`, `5m`, `1h`)".to_owned())?;
    if d.is_negative() {
        return Err("a duration cannot be negative".to_owned());
    }
    Ok(d)
}

/// `pdb-audit --fixes`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum FixesChoice {
    Actionable,
    All,
}

/// The shells `completion` prints a script for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Shell {
    Bash,
    Zsh,
    Fish,
}

/// `--fail-on` takes the audit's own severities, spelled as documents spell them.
impl ValueEnum for Severity {
    fn value_variants<'a>() -> &'a [Self] {
        &Severity::ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        Some(clap::builder::PossibleValue::new(self.as_str()))
    }
}

/// Where the state comes from.
#[derive(Debug, Args)]
pub(crate) struct InputArgs {
    /// Replay a snapshot file (YAML or JSON; `-` for stdin) instead of the cluster.
    #[arg(long, global = true, value_name = "PATH", conflicts_with = "demo")]
    pub snapshot: Option<PathBuf>,
    /// Replay the built-in snapshot of the seed incident.
    #[arg(long, global = true)]
    pub demo: bool,
    /// Refuse a snapshot larger than this (`512Mi`, `4Gi`, bytes; `0` = no limit).
    #[arg(long, global = true, value_name = "SIZE", default_value = "1Gi")]
    pub max_input_size: ByteSize,
    /// Add prices: an InstanceTypes document or Karpenter's /metrics text.
    #[arg(long, global = true, value_name = "PATH")]
    pub prices: Option<PathBuf>,
    /// Override a Karpenter setting the controller Deployment sets (repeatable): FEATURE_GATES,
    /// MIN_VALUES_POLICY, PREFERENCE_POLICY, IGNORE_DRA_REQUESTS, VM_MEMORY_OVERHEAD_PERCENT,
    /// RESERVED_ENIS, or `version`.
    #[arg(long = "karpenter-setting", global = true, value_name = "NAME=VALUE")]
    pub karpenter_settings: Vec<String>,
    /// Replay the rules of this Karpenter core version (v1.0.0 to v1.14.1, e.g. `1.12.3`)
    /// instead of the one the controller Deployment or snapshot names.
    #[arg(long = "karpenter-version", global = true, value_name = "VERSION")]
    pub karpenter_version: Option<String>,
    /// Fix the clock (RFC 3339). Default: the snapshot's capturedAt, else now.
    #[arg(long, global = true, value_name = "RFC3339")]
    pub now: Option<jiff::Timestamp>,
    /// What-if override applied before the replay: `consolidationPolicy=Balanced`,
    /// `nodepool/P.consolidateAfter=5m`, `budgets=20%`, `pod-deletion-cost=ns/pod=N`,
    /// `pdb/NS/NAME.minAvailable=1`, `deployment/NS/NAME.replicas=3`.
    #[arg(long = "set", global = true, value_name = "KEY=VALUE")]
    pub overrides: Vec<String>,
    /// How long a new pod takes from start to Ready, for workloads whose own pods don't show it
    /// (the expected downtime of a workload taken to zero ready pods).
    #[arg(long, global = true, value_name = "DURATION", default_value = "1m")]
    pub pod_startup: PodStartup,
}

/// `--pod-startup`: a non-negative duration (`90s`, `2m`, `1m30s`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PodStartup(pub jiff::SignedDuration);

impl FromStr for PodStartup {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text.parse::<jiff::SignedDuration>() {
            Ok(d) if !d.is_negative() => Ok(PodStartup(d)),
            _ => Err("not a non-negative duration (e.g. `45s`, `2m`, `1m30s`)".to_owned()),
        }
    }
}

/// kubectl's connection and scope flags.
#[derive(Debug, Args)]
pub(crate) struct KubeArgs {
    /// Path to the kubeconfig file(s), colon-separated.
    #[arg(long, global = true, env = "KUBECONFIG", value_name = "PATH", hide_env_values = true)]
    pub kubeconfig: Option<String>,
    /// The kubeconfig context to use.
    #[arg(long, global = true)]
    pub context: Option<String>,
    /// The kubeconfig cluster to use.
    #[arg(long, global = true)]
    pub cluster: Option<String>,
    /// The kubeconfig user to use.
    #[arg(long, global = true)]
    pub user: Option<String>,
    /// Namespace scope (default: the context's namespace).
    #[arg(short = 'n', long, global = true)]
    pub namespace: Option<String>,
    /// Every namespace.
    #[arg(short = 'A', long, global = true)]
    pub all_namespaces: bool,
    /// Label selector, kubectl syntax (`app=web,tier!=db`).
    #[arg(short = 'l', long, global = true)]
    pub selector: Option<String>,
    /// Per-request timeout (`30s`, `1m`; `0` = no timeout).
    #[arg(long, global = true, value_name = "DURATION", value_parser = parse_request_timeout)]
    pub request_timeout: Option<Duration>,
}

#[derive(Debug, Args)]
pub(crate) struct OutputArgs {
    /// Output format: text, wide, json, yaml, markdown, name, jsonpath=TEMPLATE (kubectl's
    /// template syntax over the JSON document); `snapshot`: also a file path.
    #[arg(short = 'o', long = "output", global = true, default_value = "text")]
    pub output: Output,
    /// Don't print table headers.
    #[arg(long, global = true)]
    pub no_headers: bool,
    /// Sort table rows: name, verdict, price, cost, pool.
    #[arg(long, global = true, value_enum)]
    pub sort_by: Option<SortBy>,
    /// Colour: auto (a terminal; NO_COLOR and TERM=dumb disable, CLICOLOR_FORCE and
    /// FORCE_COLOR force), always, never.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum SortBy {
    Name,
    Verdict,
    Price,
    Cost,
    Pool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// `-o`: a format, kubectl's `name` or `jsonpath=TEMPLATE`, or (for `snapshot`) a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Output {
    Format(Format),
    /// `-o name`: `kind/name` per object the command lists, as `kubectl get -o name`.
    Name,
    /// `-o jsonpath=TEMPLATE`: kubectl's template syntax over the command's JSON document.
    JsonPath(String),
    File(PathBuf),
}

impl FromStr for Output {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Ok(format) = Format::from_str(s, true) {
            return Ok(Output::Format(format));
        }
        if s.eq_ignore_ascii_case("name") {
            return Ok(Output::Name);
        }
        // kubectl reads `jsonpath=T`, and `jsonpath` alone as a missing template.
        if let Some(template) = s.strip_prefix("jsonpath=") {
            if template.is_empty() {
                return Err("jsonpath needs a template, e.g. `jsonpath={.nodes[*].name}`".to_owned());
            }
            return Ok(Output::JsonPath(template.to_owned()));
        }
        if s == "jsonpath" {
            return Err("jsonpath needs a template after `=`, e.g. `jsonpath={.nodes[*].name}`".to_owned());
        }
        if s.contains('.') || s.contains('/') {
            return Ok(Output::File(PathBuf::from(s)));
        }
        Err("not an output format: use text, wide, json, yaml, markdown, name or jsonpath=TEMPLATE \
             (`snapshot`: also a file path)"
            .to_owned())
    }
}

/// `--request-timeout`: whole seconds (`30`) or a duration (`30s`, `1m`); `0` means none.
fn parse_request_timeout(raw: &str) -> Result<Duration, String> {
    raw.parse::<u64>().map(Duration::from_secs).or_else(|_| {
        raw.parse::<jiff::SignedDuration>()
            .map_err(|_| "not seconds or a duration (e.g. `30`, `30s`, `1m`)".to_owned())
            .and_then(|d| Duration::try_from(d).map_err(|_| "a timeout cannot be negative".to_owned()))
    })
}

/// A size in bytes: a plain number or a Kubernetes binary or decimal suffix (`512Mi`, `2G`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct ByteSize(pub u64);

impl FromStr for ByteSize {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let quantity: crate::quantity::Quantity =
            text.parse().map_err(|_| "not a size (e.g. `512Mi`, `4Gi`, `1000000`)".to_owned())?;
        let bytes = quantity.units_ceil();
        u64::try_from(bytes).map(ByteSize).map_err(|_| "not a size in bytes (a whole, non-negative number)".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::parse_request_timeout;

    #[test]
    fn request_timeout_takes_seconds_or_a_duration() {
        assert_eq!(parse_request_timeout("0"), Ok(Duration::ZERO));
        assert_eq!(parse_request_timeout("30"), Ok(Duration::from_secs(30)));
        assert_eq!(parse_request_timeout("1m"), Ok(Duration::from_secs(60)));
        assert!(parse_request_timeout("-5s").is_err());
        assert!(parse_request_timeout("soon").is_err());
    }
}
