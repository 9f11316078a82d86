//! The `Doctor` document: docs/DESIGN.md's `-o json` contract for `doctor` (finding codes,
//! severities and field names are an interface). Judges nothing: `doctor/` does.

use serde::Serialize;

use super::views::Severity;

/// The `Doctor` document.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Doctor {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub captured_at: jiff::Timestamp,
    /// `node/NAME` when one node was asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    pub summary: Summary,
    /// Critical first, then warning, info; within a severity by code, node and pool.
    pub findings: Vec<Finding>,
    /// Signals that could not be read, and the findings that were therefore not judged.
    pub could_not_judge: Vec<NotJudged>,
}

/// Counts, and the one line the text starts with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// Karpenter's Events considered (after the bound: newest per object and reason).
    pub events: usize,
    /// Metric series of the `DisruptionMetrics` document.
    pub metric_series: usize,
    pub critical: usize,
    pub warning: usize,
    pub info: usize,
    /// No finding says Karpenter and the replay part, and every signal was read.
    pub agree: bool,
    pub line: String,
}

/// One finding: Karpenter's evidence beside the replay's side, the likely cause, what to check.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub code: Code,
    pub severity: Severity,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_pool: Option<String>,
    /// What Karpenter emitted, each with its upstream emitter.
    pub karpenter: Vec<Evidence>,
    /// What the replay says on the same point.
    pub replay: String,
    /// For a disagreement: the kind of cause judged most likely.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub likely: Option<Likely>,
    /// The most likely cause, or `cannot tell` with why.
    pub cause: String,
    /// What to look at next.
    pub check: String,
}

/// One signal Karpenter emitted.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Evidence {
    /// `event`, `condition`, `taint`, `status` (a NodeClaim status field such as
    /// `lastPodEventTime`) or `metric`.
    pub signal: &'static str,
    /// `Node/NAME`, `NodeClaim/NAME`, `NodePool/NAME`, `Pod/NS/NAME`, or the metric's name.
    pub object: String,
    /// `Reason: message` for an event, `Type=Status (reason: message)` for a condition,
    /// `{labels} value` for a metric.
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<jiff::Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<i32>,
    /// Where upstream writes it: `repository path function` at the tag it holds from.
    pub emitter: String,
}

/// A signal that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NotJudged {
    /// `events` or `metrics`.
    pub signal: &'static str,
    pub reason: String,
    /// The finding codes that need it.
    pub findings: Vec<Code>,
}

/// The kinds of likely cause of a disagreement (an interface: docs/DESIGN.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Likely {
    /// A pod event on the NodeClaim after Karpenter's event: Karpenter has not judged this state.
    StateChanged,
    /// The replay's prices are not Karpenter's price metric.
    Price,
    /// The scheduling simulation differs (Karpenter names the pod).
    Simulation,
    /// Karpenter needed more replacements than the replay.
    BinPacking,
    /// A feature gate or minValues setting differs from the one assumed.
    Setting,
    /// A nomination for pending pods, held in Karpenter's memory.
    Nomination,
    /// A gate (PDB, do-not-disrupt, node state, method filter) the two see differently.
    Gate,
    /// Karpenter took another node first: its candidate order or budget.
    CandidateOrder,
    /// Karpenter agreed, then dropped the command in validation.
    Validation,
    /// The evidence does not say.
    CannotTell,
}

/// Finding codes (an interface: docs/DESIGN.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Code {
    /// A command or NodeClaim Karpenter should have finished or failed long ago.
    StuckCommand,
    /// The replay acts on a node Karpenter says it cannot disrupt or consolidate.
    Disagreement,
    /// Karpenter acted (or proposed) on a node the replay leaves alone.
    KarpenterActed,
    /// Karpenter's budget for a pool and reason is used up now.
    BudgetExhausted,
    /// A replacement Karpenter launched for a command is not initialized.
    ReplacementNotInitialized,
    /// A node's drain keeps failing.
    DrainBlocked,
    /// Event wording or metric names only other versions have.
    VersionMismatch,
    /// Karpenter's single- or multi-node pass stopped at its deadline.
    RoundTimeout,
    /// Karpenter's eligible-node gauge differs from the replay's candidates.
    EligibleCountDiffers,
    /// Karpenter agreed at compute time and dropped the command in validation.
    ValidationRejected,
    /// A node removed by interruption, repair, expiry or another involuntary path.
    InvoluntaryDisruption,
    /// Pod churn restarted a node's consolidateAfter after Karpenter had found it
    /// consolidatable (from v1.14.0 it is then no destination either).
    ConsolidatableFlapping,
}

impl Code {
    pub fn as_str(self) -> &'static str {
        match self {
            Code::StuckCommand => "StuckCommand",
            Code::Disagreement => "Disagreement",
            Code::KarpenterActed => "KarpenterActed",
            Code::BudgetExhausted => "BudgetExhausted",
            Code::ReplacementNotInitialized => "ReplacementNotInitialized",
            Code::DrainBlocked => "DrainBlocked",
            Code::VersionMismatch => "VersionMismatch",
            Code::RoundTimeout => "RoundTimeout",
            Code::EligibleCountDiffers => "EligibleCountDiffers",
            Code::ValidationRejected => "ValidationRejected",
            Code::InvoluntaryDisruption => "InvoluntaryDisruption",
            Code::ConsolidatableFlapping => "ConsolidatableFlapping",
        }
    }
}

impl Doctor {
    /// Whether a finding at or above `threshold` exists.
    pub fn fails_at(&self, threshold: Severity) -> bool {
        self.findings.iter().any(|f| f.severity >= threshold)
    }
}
