//! The one error type, used only at the edges (`source/`, `app.rs`), and the exit codes.
//!
//! Findings about the cluster are never errors: they are reasons in the report. An `Error` means
//! the input or the cluster could not be read, or the command named something that is not there.

use std::path::PathBuf;

use miette::{Diagnostic, SourceSpan};

use crate::source::window::SourceWindow;

/// The command ran; the report is the answer, whatever it says.
pub const EXIT_OK: u8 = 0;
/// The input or the cluster could not be read, or the target does not exist.
pub const EXIT_ERROR: u8 = 1;
/// The command line was wrong (clap uses the same code).
pub const EXIT_USAGE: u8 = 2;
/// `pdb-audit --fail-on=…` found something at or above the threshold.
pub const EXIT_FINDINGS: u8 = 3;

#[derive(Debug, thiserror::Error, Diagnostic)]
pub enum Error {
    #[error("could not read `{path}`")]
    #[diagnostic(code(input::io), help("check the path; use `-` to read the snapshot from stdin"))]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("`{path}` is not valid YAML or JSON: {message}")]
    #[diagnostic(code(input::syntax), help("{help}"))]
    Syntax {
        path: String,
        message: String,
        help: String,
        #[source_code]
        src: SourceWindow,
        #[label("here")]
        span: Option<SourceSpan>,
    },

    #[error("{}{kind} `{name}`, field `{field}`: {message}", place(path, *line, *column))]
    #[diagnostic(code(input::object), help("{help}"))]
    Object {
        path: String,
        line: usize,
        column: usize,
        kind: String,
        name: String,
        field: String,
        message: String,
        help: String,
        #[source_code]
        src: SourceWindow,
        #[label("{field}")]
        span: Option<SourceSpan>,
    },

    #[error("Karpenter {version} ({from}) is older than v1.0.0: its v1beta1 APIs are not replayed")]
    #[diagnostic(
        code(input::karpenter_version),
        help("this replay follows Karpenter core v1.0.0 to v1.14.1 (karpenter.sh/v1); upgrade Karpenter, or pass the core version the cluster runs with --karpenter-version")
    )]
    UnsupportedKarpenter { version: String, from: String },

    #[error("`{path}` is larger than the limit of {limit} bytes")]
    #[diagnostic(
        code(input::too_large),
        help("raise the limit with `--max-input-size {suggested}` (or `--max-input-size 0` for none) if the file is what you meant")
    )]
    TooLarge { path: String, limit: u64, suggested: String },

    #[error("`{path}` needs {bytes} bytes of memory to read, and the system refused them")]
    #[diagnostic(
        code(input::memory),
        help("free memory or raise the process's limit (`ulimit -v`), or pass a smaller snapshot (a `--max-input-size` below the file's size refuses it at once)")
    )]
    OutOfMemory { path: String, bytes: u64 },

    #[error("{}{message}", place(path, *line, *column))]
    #[diagnostic(code(input::encoding), help("{help}"))]
    Encoding {
        path: String,
        line: usize,
        column: usize,
        message: String,
        help: String,
        #[source_code]
        src: SourceWindow,
        #[label("here")]
        span: Option<SourceSpan>,
    },

    #[error("`{path}` holds no Node, NodeClaim or NodePool")]
    #[diagnostic(
        code(input::empty),
        help("capture one with `kubectl consolidation snapshot -o snapshot.yaml`, or with `kubectl get nodes,pods,nodepools,nodeclaims,pdb -A -o yaml`")
    )]
    EmptySnapshot { path: String },

    #[error("`{path}` {message}")]
    #[diagnostic(code(input::manifest), help("{help}"))]
    Manifest { path: String, message: String, help: String },

    #[error("could not read prices from `{path}`: {message}")]
    #[diagnostic(
        code(input::prices),
        help("--prices takes an InstanceTypes document or Karpenter's /metrics text (karpenter_cloudprovider_instance_type_offering_price_estimate)")
    )]
    Prices { path: String, message: String },

    #[error("could not load the kubeconfig: {message}")]
    #[diagnostic(code(cluster::kubeconfig), help("{help}"))]
    Kubeconfig { message: String, help: String },

    #[error("could not list {what} from the cluster: {message}")]
    #[diagnostic(code(cluster::api), help("{help}"))]
    Cluster { what: String, message: String, help: String },

    #[error("no karpenter.sh/v1 NodePool in this cluster: Karpenter >= 1.0 is required{detail}")]
    #[diagnostic(
        code(cluster::no_karpenter),
        help("check `kubectl api-resources --api-group=karpenter.sh`; replay a file with --snapshot instead")
    )]
    NoKarpenter { detail: String },

    #[error("{kind} `{name}` is not in the snapshot")]
    #[diagnostic(code(target::not_found), help("{help}"))]
    TargetNotFound { kind: String, name: String, help: String },

    #[error("could not write `{path}`")]
    #[diagnostic(code(output::file), help("{help}"))]
    WriteFile {
        path: PathBuf,
        #[source]
        source: std::io::Error,
        help: String,
    },

    #[error("could not write the output: {0}")]
    #[diagnostic(code(output::io))]
    Output(#[source] std::io::Error),
}

/// `file:line:column: ` as compilers write a place, or `file: ` when the place is unknown
/// (line 0: lines count from 1), never `file:0:0`.
fn place(path: &str, line: usize, column: usize) -> String {
    match (line, column) {
        (0, _) => format!("{path}: "),
        (line, 0) => format!("{path}:{line}: "),
        (line, column) => format!("{path}:{line}:{column}: "),
    }
}

impl Error {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> u8 {
        EXIT_ERROR
    }
}
