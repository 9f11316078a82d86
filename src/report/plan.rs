//! `plan`: the round (which method acts, its commands) and one verdict line per node.

use std::collections::BTreeMap;

use serde::Serialize;

use super::impact::ImpactView;
use super::views::{Action, ReplacementView, Verdict};
use crate::engine::{NodeVerdict, Replay};
use crate::reason::{Code, Reason};

/// The `Plan` document.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub captured_at: jiff::Timestamp,
    /// The method that produced this round's commands, or `null`.
    pub method: Option<&'static str>,
    pub commands: Vec<PlanCommand>,
    /// The round at a glance (per NodePool, savings, verdicts, blockers, zero-ready workloads).
    pub summary: super::plan_summary::PlanSummary,
    pub nodes: Vec<NodeSummary>,
    /// The workloads that lose pods to this round's commands, most severe first.
    pub impact: Vec<ImpactView>,
    /// Findings about the snapshot itself (kinds that could not be read).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub uncertain: Vec<Reason>,
    /// What-if overrides applied before the replay.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<String>,
    /// Where the pods the what-ifs added went before the round (`engine/provisioner.rs`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub placements: Vec<super::placement::PlacementView>,
    /// The nodes `-l` / `-n` kept (`-l app=web: 3 of 10 nodes`); the round itself is the
    /// whole cluster's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selection: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanCommand {
    pub reason: &'static str,
    pub decision: &'static str,
    pub method: &'static str,
    pub candidates: Vec<String>,
    pub replacements: Vec<ReplacementView>,
    #[serde(serialize_with = "super::money::hourly")]
    pub savings: f64,
    /// What the candidates cost now, $/h (unpriced nodes count 0, as in `savings`).
    #[serde(serialize_with = "super::money::hourly")]
    pub candidates_price: f64,
    /// The replacements' worst launch price, $/h; `null` for a delete or an unpriced type.
    #[serde(serialize_with = "super::money::hourly")]
    pub replacement_cost: Option<f64>,
}

/// One node's verdict line (shared with `explain`).
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeSummary {
    pub name: String,
    pub node_claim: Option<String>,
    pub node_pool: Option<String>,
    pub instance_type: Option<String>,
    pub zone: Option<String>,
    pub capacity_type: Option<String>,
    pub verdict: Verdict,
    pub reason: Option<&'static str>,
    pub action: Action,
    pub method: Option<&'static str>,
    pub disruption_cost: f64,
    #[serde(serialize_with = "super::money::hourly")]
    pub price: Option<f64>,
    /// Active pods on the node.
    pub pod_count: usize,
    /// Requests of the node's non-terminal pods, and what the node can hold.
    pub requested: BTreeMap<String, String>,
    pub allocatable: BTreeMap<String, String>,
    pub blockers: Vec<Code>,
    pub reasons: Vec<Reason>,
}

impl NodeSummary {
    pub fn from_verdict(n: &NodeVerdict) -> Self {
        NodeSummary {
            name: n.name.clone(),
            node_claim: n.node_claim.clone(),
            node_pool: n.node_pool.clone(),
            instance_type: n.instance_type.clone(),
            zone: n.zone.clone(),
            capacity_type: n.capacity_type.clone(),
            verdict: n.verdict.into(),
            reason: n.reason.map(crate::engine::nodepool::DisruptionReason::as_str),
            action: n.action.into(),
            method: n.method.map(crate::engine::method::Method::as_str),
            disruption_cost: n.disruption_cost,
            price: n.price,
            pod_count: n.pod_count,
            requested: quantities(&n.requested),
            allocatable: quantities(&n.allocatable),
            blockers: n.blockers.clone(),
            reasons: n.reasons.clone(),
        }
    }
}

/// Projects the replay into a plan.
pub(crate) fn plan(
    replay: &Replay,
    snapshot: &crate::snapshot::Snapshot,
    overrides: &[String],
    pod_startup: jiff::SignedDuration,
) -> Plan {
    let disrupted: std::collections::BTreeSet<String> =
        replay.commands.iter().flat_map(|c| c.candidates.iter().cloned()).collect();
    let impact = super::impact::of(snapshot, &disrupted, pod_startup);
    Plan {
        summary: super::plan_summary::summary(replay, &impact),
        api_version: super::API_VERSION,
        kind: "Plan",
        captured_at: replay.captured_at,
        method: replay.method.map(crate::engine::method::Method::as_str),
        commands: replay
            .commands
            .iter()
            .map(|c| PlanCommand {
                reason: c.reason.as_str(),
                decision: c.decision.as_str(),
                method: c.method.as_str(),
                candidates: c.candidates.clone(),
                replacements: c.replacements.iter().map(ReplacementView::from).collect(),
                savings: c.savings,
                candidates_price: replay
                    .nodes
                    .iter()
                    .filter(|n| c.candidates.contains(&n.name))
                    .filter_map(|n| n.price)
                    .sum::<f64>()
                    + 0.0,
                replacement_cost: if c.replacements.is_empty() {
                    None
                } else {
                    c.replacements.iter().map(|r| r.worst_price).sum::<Option<f64>>()
                },
            })
            .collect(),
        nodes: replay.nodes.iter().map(NodeSummary::from_verdict).collect(),
        impact,
        uncertain: replay.uncertain.clone(),
        overrides: overrides.to_vec(),
        placements: Vec::new(),
        selection: None,
    }
}

/// Quantities as Kubernetes prints them.
fn quantities(r: &crate::snapshot::Resources) -> BTreeMap<String, String> {
    r.iter().map(|(k, v)| (k.clone(), v.to_string())).collect()
}
