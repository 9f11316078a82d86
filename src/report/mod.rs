//! PLAIN DATA OUT: the documents the commands print, as serde data (`-o json|yaml` contract).
//!
//! Each module projects the replay (or the snapshot) into one document kind. Nothing here does
//! I/O or decides Karpenter behaviour; renderers only read these types.

pub mod budgets;
pub mod explain;
pub mod pdb_audit;
pub mod plan;
pub mod score;
pub mod views;

use serde::Serialize;

use crate::snapshot::API_VERSION;
pub use views::{Action, StepKind, Verdict};

/// Which namespaces and pods a namespaced command looks at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scope {
    /// `None` with `all_namespaces` false means the context's default namespace was unknown.
    pub namespace: Option<String>,
    pub all_namespaces: bool,
    /// `-l` label selector, kubectl syntax (`app=web,tier!=db`).
    pub selector: Option<String>,
}

/// Every document a command can print.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Report {
    Plan(plan::Plan),
    Explain(Box<explain::NodeExplanation>),
    Score(score::Score),
    PdbAudit(pdb_audit::PdbAudit),
    Budgets(budgets::Budgets),
}
