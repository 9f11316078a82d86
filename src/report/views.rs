//! The serialised shapes of values that several documents share: verdicts, actions, steps,
//! pod moves, replacements, budget lines, and findings' severities. The engine's and the
//! audit's types carry no format; these are the `-o json|yaml` contract (docs/DESIGN.md), so
//! their field names and spellings are an interface. Each converts from its engine (or audit)
//! twin and nothing else.

use serde::Serialize;

use crate::audit;
use crate::engine::{self, budget::BudgetStatus, method::Replacement};
use crate::reason::Reason;

/// A node's verdict (`nodes[].verdict`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Verdict {
    Empty,
    Drifted,
    Underutilized,
    Blocked,
    Safe,
}

impl From<engine::Verdict> for Verdict {
    fn from(v: engine::Verdict) -> Self {
        match v {
            engine::Verdict::Empty => Verdict::Empty,
            engine::Verdict::Drifted => Verdict::Drifted,
            engine::Verdict::Underutilized => Verdict::Underutilized,
            engine::Verdict::Blocked => Verdict::Blocked,
            engine::Verdict::Safe => Verdict::Safe,
        }
    }
}

/// What happens to the node this round (`nodes[].action`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Delete,
    Replace,
    None,
}

impl From<engine::Action> for Action {
    fn from(a: engine::Action) -> Self {
        match a {
            engine::Action::Delete => Action::Delete,
            engine::Action::Replace => Action::Replace,
            engine::Action::None => Action::None,
        }
    }
}

/// A pipeline step (`steps[].step`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum StepKind {
    Candidate,
    Cost,
    Budget,
    Method,
    Simulation,
    Price,
    Score,
    Decision,
}

impl From<engine::StepKind> for StepKind {
    fn from(s: engine::StepKind) -> Self {
        match s {
            engine::StepKind::Candidate => StepKind::Candidate,
            engine::StepKind::Cost => StepKind::Cost,
            engine::StepKind::Budget => StepKind::Budget,
            engine::StepKind::Method => StepKind::Method,
            engine::StepKind::Simulation => StepKind::Simulation,
            engine::StepKind::Price => StepKind::Price,
            engine::StepKind::Score => StepKind::Score,
            engine::StepKind::Decision => StepKind::Decision,
        }
    }
}

/// One step of `explain`.
#[allow(clippy::struct_field_names, reason = "`step` is the JSON field name of the contract")]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    pub step: StepKind,
    pub ok: bool,
    pub findings: Vec<Reason>,
}

impl From<&engine::Step> for Step {
    fn from(s: &engine::Step) -> Self {
        Step { step: s.step.into(), ok: s.ok, findings: s.findings.clone() }
    }
}

/// Where one of the node's pods would go (`pods[]`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodMove {
    pub pod: String,
    pub to: String,
    pub why: Vec<String>,
    /// `node: reason` per existing node that refused the pod.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rejected_by: Vec<String>,
}

impl From<&engine::PodView> for PodMove {
    fn from(p: &engine::PodView) -> Self {
        PodMove { pod: p.pod.clone(), to: p.to.clone(), why: p.why.clone(), rejected_by: p.rejected_by.clone() }
    }
}

/// A replacement NodeClaim of a command (`commands[].replacements[]`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplacementView {
    pub node_pool: String,
    pub instance_types: Vec<String>,
    /// `spot`, `on-demand` or `reserved`; several when the replacement may launch as either.
    pub capacity_type: String,
    pub zones: Vec<String>,
    /// The most a launch could cost (the price filter's figure); `null` when unknown.
    #[serde(serialize_with = "super::money::hourly")]
    pub worst_price: Option<f64>,
    /// The cheapest available offering of the cheapest type (the savings estimate's figure).
    #[serde(serialize_with = "super::money::hourly")]
    pub cheapest_price: Option<f64>,
}

impl From<&Replacement> for ReplacementView {
    fn from(r: &Replacement) -> Self {
        ReplacementView {
            node_pool: r.node_pool.clone(),
            instance_types: r.instance_types.clone(),
            capacity_type: r.capacity_type.clone(),
            zones: r.zones.clone(),
            worst_price: r.worst_price,
            cheapest_price: r.cheapest_price,
        }
    }
}

/// One budget of a NodePool, evaluated now (`nodePools[].budgets[]`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetLine {
    pub nodes: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasons: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schedule: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration: Option<String>,
    pub active: bool,
    /// Nodes it allows now; `null` when inactive (unbounded).
    pub value: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window_closes_at: Option<jiff::Timestamp>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window_opens_at: Option<jiff::Timestamp>,
    /// A budget that fails to parse: Karpenter then allows 0 for the whole NodePool.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl From<&BudgetStatus> for BudgetLine {
    fn from(b: &BudgetStatus) -> Self {
        BudgetLine {
            nodes: b.nodes.clone(),
            reasons: b.reasons.clone(),
            schedule: b.schedule.clone(),
            duration: b.duration.clone(),
            active: b.active,
            value: b.value,
            window_closes_at: b.window_closes_at,
            window_opens_at: b.window_opens_at,
            error: b.error.clone(),
        }
    }
}

/// How bad a finding is (`findings[].severity`; today `pdb-audit`'s, later `explain`'s and
/// `plan`'s impact findings too). Ordered: `Info < Warning < Critical`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Critical,
}

impl From<audit::Severity> for Severity {
    fn from(s: audit::Severity) -> Self {
        match s {
            audit::Severity::Info => Severity::Info,
            audit::Severity::Warning => Severity::Warning,
            audit::Severity::Critical => Severity::Critical,
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Critical => "critical",
        })
    }
}
