//! PLAIN DATA OUT: the documents the commands print, as serde data (`-o json|yaml` contract).
//!
//! Each module projects the replay (or, for `pdb-audit`, the audit's judgement) into one
//! document kind. Nothing here does I/O or decides Karpenter behaviour; renderers only read
//! these types.

pub mod budgets;
pub mod explain;
pub mod instance_types;
pub mod pdb_audit;
pub mod plan;
pub mod score;
pub mod views;

use serde::Serialize;

use crate::snapshot::API_VERSION;
pub use views::{Action, StepKind, Verdict};

/// Every document a command can print.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Report {
    Plan(plan::Plan),
    Explain(Box<explain::NodeExplanation>),
    Score(score::Score),
    PdbAudit(pdb_audit::PdbAudit),
    Budgets(budgets::Budgets),
    InstanceTypes(Box<instance_types::Catalogue>),
}
