//! The `fixes` a harmed workload carries in `plan`, `explain`, `forecast` and `pdb-audit`: the
//! prescription's judgement ([`crate::prescription`]) as data. Projection only.

use serde::Serialize;

use crate::prescription::{Fix, Prescription, Rejected};

use super::money::HOURS_PER_MONTH;

/// One harmed workload's fixes.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PrescriptionView {
    /// Fixes whose replay protects the workload, cheapest first.
    pub fixes: Vec<FixView>,
    /// Fixes tried and not offered, with what their replay showed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_offered: Vec<NotOfferedView>,
    /// Why no fix was replayed for it, when none was (the report's replay budget).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_replayed: Option<String>,
}

/// A fix, replayed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FixView {
    /// `replicas`, `pdb`, `do-not-disrupt` or `nodepool`.
    pub kind: &'static str,
    /// The change in words.
    pub change: String,
    /// The harmed workloads its replay spares (`Kind/ns/name`), this one first.
    pub protects: Vec<String>,
    /// Savings lost against the unfixed replay, $/h and per 730-hour month (money precision,
    /// `money.rs`).
    #[serde(serialize_with = "super::money::hourly")]
    pub savings_lost_per_hour: f64,
    #[serde(serialize_with = "super::money::monthly")]
    pub savings_lost_per_month: f64,
    /// Nodes the unfixed replay disrupts that its replay keeps.
    pub nodes_pinned: Vec<String>,
    /// The commands that make the change (names shell-quoted).
    pub commands: Vec<String>,
    /// The `--set` what-ifs that replay it: `plan --set …` shows the same.
    pub what_if: Vec<String>,
    /// Those what-ifs as flags for a shell (`--set 'pdb/ns/name.minAvailable=1'`).
    pub replay_flags: String,
}

/// A fix tried whose replay did not help.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NotOfferedView {
    pub kind: &'static str,
    pub change: String,
    pub what_if: Vec<String>,
    pub why: String,
}

impl From<&Fix> for FixView {
    fn from(f: &Fix) -> Self {
        FixView {
            kind: f.kind.as_str(),
            change: f.change.clone(),
            protects: f.protects.clone(),
            savings_lost_per_hour: f.savings_lost,
            savings_lost_per_month: f.savings_lost * HOURS_PER_MONTH,
            nodes_pinned: f.nodes_pinned.clone(),
            commands: f.commands.clone(),
            what_if: f.what_if.clone(),
            replay_flags: f
                .what_if
                .iter()
                .map(|s| format!("--set {}", crate::prescription::commands::quote(s)))
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}

impl From<&Rejected> for NotOfferedView {
    fn from(r: &Rejected) -> Self {
        NotOfferedView {
            kind: r.kind.as_str(),
            change: r.change.clone(),
            what_if: r.what_if.clone(),
            why: r.why.clone(),
        }
    }
}

impl From<&Prescription> for PrescriptionView {
    fn from(p: &Prescription) -> Self {
        PrescriptionView {
            fixes: p.fixes.iter().map(FixView::from).collect(),
            not_offered: p.rejected.iter().map(NotOfferedView::from).collect(),
            not_replayed: p.not_replayed.clone(),
        }
    }
}
