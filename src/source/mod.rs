//! EDGE IN: everything that reads the network or the disk and turns it into a [`Snapshot`].
//!
//! Live mode (`cluster`) lists every kind the replay reads through kube-rs; file mode (`file`)
//! reads what `kubectl get -o yaml|json` or `kubectl consolidation snapshot` wrote. Both end in
//! [`Snapshot::from_documents`], so they cannot disagree on what an object means.

pub mod cluster;
pub mod disruption_metrics;
pub mod file;
pub(crate) mod manifests;
pub mod prices;
pub mod window;

use std::path::PathBuf;
use std::time::Duration;

use crate::error::Error;
use crate::snapshot::Snapshot;

/// kubectl's connection flags, as the plugin parses them itself.
#[derive(Debug, Clone, Default)]
pub struct ClusterArgs {
    pub kubeconfig: Option<PathBuf>,
    pub context: Option<String>,
    pub cluster: Option<String>,
    pub user: Option<String>,
    /// `--request-timeout`: per request; `None` = the plugin's default.
    pub request_timeout: Option<Duration>,
    /// Show a progress line on stderr (only when stderr is a terminal).
    pub progress: bool,
    /// `--prices` was given: a failed metrics scrape costs nothing worth a warning.
    pub prices_given: bool,
}

/// Where the snapshot comes from.
#[derive(Debug, Clone)]
pub enum Source {
    /// A live cluster.
    Cluster(ClusterArgs),
    /// A snapshot file, or `-` for stdin, read up to `max_bytes` (`0`: no limit).
    File { path: PathBuf, max_bytes: u64 },
    /// The built-in demo snapshot (the seed incident).
    Demo,
}

/// The built-in demo snapshot: the 001 seed's incident.
pub const DEMO_SNAPSHOT: &str = include_str!("demo.yaml");

/// Reads the snapshot from its source.
pub fn load(source: &Source) -> Result<Snapshot, Error> {
    match source {
        Source::Cluster(args) => cluster::fetch(args),
        Source::File { path, max_bytes } => file::read_path_limited(path, *max_bytes),
        Source::Demo => file::read_text(DEMO_SNAPSHOT, "<demo>"),
    }
}

/// The default namespace of the kubeconfig's current context (`-n` defaults to it).
pub fn default_namespace(args: &ClusterArgs) -> Option<String> {
    cluster::context_namespace(args)
}
