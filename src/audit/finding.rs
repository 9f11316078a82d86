//! The shape of a judgement: a stable code, a severity, what it is about, what it says, and the
//! change that fixes it. Meant to be shared by every command that judges (`pdb-audit` today,
//! the impact findings of `explain` and `plan` later), so it knows nothing of PDBs: the
//! judgement's own facts travel in `Finding::facts`.
//!
//! Plain data: no serde, no wording for a terminal. `report/` turns findings into documents.

use std::fmt;

use crate::upstream::Upstream;

/// How bad a finding is. Ordered: `Info < Warning < Critical`, so a `--fail-on` gate is a
/// comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    Info,
    Warning,
    Critical,
}

impl Severity {
    /// Every severity, least severe first.
    pub const ALL: [Severity; 3] = [Severity::Info, Severity::Warning, Severity::Critical];

    /// The severity as documents and the command line spell it.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Critical => "critical",
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a finding is about. Keys are `ns/name` (PDBs, pods) and `Kind/ns/name` (workloads).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Subject {
    /// The one PDB it is about; `None` when it is about a workload without one.
    pub pdb: Option<String>,
    /// Every PDB it is about, when it is about several together.
    pub pdbs: Vec<String>,
    /// The workload it names; `None` when there is none (a PDB that selects no pod).
    pub workload: Option<String>,
    /// Every workload it is about, when more than one.
    pub workloads: Vec<String>,
    /// The pods it is about, when it is about particular pods.
    pub pods: Vec<String>,
    /// The nodes those pods sit on, sorted.
    pub nodes: Vec<String>,
}

/// The concrete change a finding proposes, and what it costs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Fix {
    /// A `kubectl` command where one exists, else the change in words.
    pub change: String,
    /// What the change costs, in one sentence.
    pub trade_off: String,
}

impl Fix {
    pub(crate) fn new(change: impl Into<String>, trade_off: impl Into<String>) -> Fix {
        Fix { change: change.into(), trade_off: trade_off.into() }
    }
}

/// One judgement: `Code` is the judging command's code enum, `Facts` what it measured.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Finding<Code, Facts> {
    pub code: Code,
    pub severity: Severity,
    pub subject: Subject,
    pub message: String,
    pub fix: Fix,
    /// The upstream function whose behaviour the finding is about.
    pub upstream: Upstream,
    pub facts: Facts,
}

#[cfg(test)]
mod tests {
    use super::Severity;

    #[test]
    fn severities_order_from_info_to_critical() {
        assert!(Severity::Info < Severity::Warning && Severity::Warning < Severity::Critical);
        assert_eq!(Severity::ALL.iter().max(), Some(&Severity::Critical));
        let names: Vec<&str> = Severity::ALL.iter().map(|s| s.as_str()).collect();
        assert_eq!(names, ["info", "warning", "critical"]);
    }
}
