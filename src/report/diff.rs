//! `diff`: two rounds of one snapshot side by side — before (as the cluster is) and after
//! (with the change) — and which part of the change moves each node (docs/DESIGN.md, `Diff`).
//! Projection and comparison of two `plan` documents; the replays are the commands'.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::forecast::ComparisonDoc;
use super::plan::{NodeSummary, Plan, PlanCommand};
use super::views::{Action, Verdict};
use crate::reason::{Code, Reason};

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiffDoc {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub captured_at: jiff::Timestamp,
    /// Every part of the change, in the order applied; `nodes[].causes` name them by `id`.
    pub changes: Vec<ChangeView>,
    /// Objects in the manifests that the replay does not read (`Kind/namespace/name`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ignored: Vec<String>,
    /// Where the pods the change adds went before the round (`pod → node`, or pending).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub placed: Vec<super::placement::PlacementView>,
    pub before: SideView,
    pub after: SideView,
    /// Nodes whose verdict, action, reason or blockers differ, by name.
    pub nodes: Vec<NodeChange>,
    /// Commands the after round adds and drops (`commands` is a plan's list of commands).
    pub command_changes: CommandChanges,
    /// Workloads the after round takes to zero ready pods and the before round did not.
    pub to_zero_ready: Vec<String>,
    /// Workloads the before round took to zero ready pods and the after round does not.
    pub no_longer_zero_ready: Vec<String>,
    /// The parts behind each workload of `toZeroReady` and `noLongerZeroReady`.
    pub workload_causes: Vec<WorkloadChange>,
    /// How attribution went: `replays` run, and why it was cut short when it was.
    pub attribution: AttributionView,
    /// `--forecast`: both forecasts and the per-workload bill.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forecast: Option<Box<ComparisonDoc>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub uncertain: Vec<Reason>,
}

/// One part of the change.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChangeView {
    /// `c1`, `c2` … in the order applied.
    pub id: String,
    /// `manifest`, `set`, `setting` or `rule`.
    pub kind: &'static str,
    /// The object (`PodDisruptionBudget/shop/web`), the `--set` text, the setting, or the
    /// rule's field.
    pub target: String,
    /// What changes, in a few words (`spec.maxUnavailable`; `v1.12.0 → v1.14.1: …`).
    pub description: String,
    /// The manifest file, for a manifest change.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// The fields that differ, as users write them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub fields: Vec<String>,
    /// What the replay made of it beyond its fields.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The upstream PR and function, for a rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub upstream: Option<String>,
}

/// One side's round at a glance.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SideView {
    /// The Karpenter core version whose rules the side replays.
    pub karpenter_version: String,
    pub method: Option<&'static str>,
    pub command_count: usize,
    /// $/h this round's commands save, and over a month of 730 hours.
    pub savings: f64,
    pub savings_per_month: f64,
    /// Nodes per NodePool (`-` for nodes without one).
    pub nodes_per_pool: BTreeMap<String, usize>,
    /// Nodes per verdict.
    pub verdicts: BTreeMap<String, usize>,
    pub zero_ready: Vec<String>,
}

/// One node's verdict on one side.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeSide {
    pub verdict: Verdict,
    pub action: Action,
    pub reason: Option<&'static str>,
    pub method: Option<&'static str>,
    pub blockers: Vec<Code>,
    pub reasons: Vec<Reason>,
}

/// A node whose verdict moves.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeChange {
    pub name: String,
    pub node_pool: Option<String>,
    /// `null` when the node exists only after (launched for the change's pods).
    pub before: Option<NodeSide>,
    pub after: Option<NodeSide>,
    /// The changes (`c1` …) behind the move.
    pub causes: Vec<String>,
    /// `alone` (each cause moves the node by itself), `together` (no part does alone; each
    /// listed one is needed), `combined` (no part alone and none needed alone: it takes the
    /// whole change), `new` (a node the change launched), `not-attributed` (see
    /// `attribution.cutShort`).
    pub attribution: &'static str,
}

/// A workload that starts (or stops) going to zero ready pods, and the parts behind it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadChange {
    /// `Kind/namespace/name`.
    pub name: String,
    /// The after round takes it to zero ready pods (else: the before round did, the after does not).
    pub to_zero_ready: bool,
    pub causes: Vec<String>,
    /// As `nodes[].attribution`.
    pub attribution: &'static str,
}

/// The workloads that change, unattributed yet.
pub(crate) fn workload_changes(to_zero: &[String], no_longer: &[String]) -> Vec<WorkloadChange> {
    let change = |name: &String, to_zero_ready| WorkloadChange {
        name: name.clone(),
        to_zero_ready,
        causes: Vec::new(),
        attribution: "not-attributed",
    };
    to_zero.iter().map(|w| change(w, true)).chain(no_longer.iter().map(|w| change(w, false))).collect()
}

#[derive(Debug, Clone, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandChanges {
    pub added: Vec<PlanCommand>,
    pub removed: Vec<PlanCommand>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AttributionView {
    /// Replays run beyond the two sides.
    pub replays: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut_short: Option<String>,
}

/// What a node's verdict is compared on.
pub(crate) fn side_of(n: &NodeSummary) -> NodeSide {
    NodeSide {
        verdict: n.verdict,
        action: n.action,
        reason: n.reason,
        method: n.method,
        blockers: n.blockers.clone(),
        reasons: n.reasons.clone(),
    }
}

/// Whether two sides of a node are the same answer (verdict, action, reason, blockers; the
/// reasons' wording may carry figures that move without the answer moving).
pub(crate) fn same(a: &NodeSide, b: &NodeSide) -> bool {
    a.verdict == b.verdict && a.action == b.action && a.reason == b.reason && a.blockers == b.blockers
}

/// The nodes whose answer differs between two rounds, by name (before-only nodes too).
pub(crate) fn node_changes(before: &Plan, after: &Plan) -> Vec<NodeChange> {
    let b: BTreeMap<&str, &NodeSummary> = before.nodes.iter().map(|n| (n.name.as_str(), n)).collect();
    let a: BTreeMap<&str, &NodeSummary> = after.nodes.iter().map(|n| (n.name.as_str(), n)).collect();
    let names: BTreeSet<&str> = b.keys().chain(a.keys()).copied().collect();
    names
        .into_iter()
        .filter_map(|name| {
            let (x, y) = (b.get(name).map(|n| side_of(n)), a.get(name).map(|n| side_of(n)));
            if let (Some(x), Some(y)) = (&x, &y) {
                if same(x, y) {
                    return None;
                }
            }
            let pool = a.get(name).or_else(|| b.get(name)).and_then(|n| n.node_pool.clone());
            Some(NodeChange {
                name: name.to_owned(),
                node_pool: pool,
                attribution: if x.is_none() { "new" } else { "not-attributed" },
                before: x,
                after: y,
                causes: Vec::new(),
            })
        })
        .collect()
}

/// Commands of `after` that `before` lacks (and the other way round), keyed by what they do:
/// decision, reason, method, candidates and replacements' pools and types.
pub(crate) fn command_changes(before: &Plan, after: &Plan) -> CommandChanges {
    let key = |c: &PlanCommand| {
        let mut candidates = c.candidates.clone();
        candidates.sort();
        let replacements: Vec<(String, Vec<String>)> =
            c.replacements.iter().map(|r| (r.node_pool.clone(), r.instance_types.clone())).collect();
        (c.decision, c.reason, c.method, candidates, replacements)
    };
    let b: Vec<_> = before.commands.iter().map(key).collect();
    let a: Vec<_> = after.commands.iter().map(key).collect();
    CommandChanges {
        added: after.commands.iter().zip(&a).filter(|(_, k)| !b.contains(k)).map(|(c, _)| c.clone()).collect(),
        removed: before.commands.iter().zip(&b).filter(|(_, k)| !a.contains(k)).map(|(c, _)| c.clone()).collect(),
    }
}

/// One side's summary.
pub(crate) fn side_view(plan: &Plan, karpenter_version: String) -> SideView {
    let mut nodes_per_pool = BTreeMap::new();
    for n in &plan.nodes {
        *nodes_per_pool.entry(n.node_pool.clone().unwrap_or_else(|| "-".into())).or_insert(0) += 1;
    }
    SideView {
        karpenter_version,
        method: plan.method,
        command_count: plan.commands.len(),
        savings: plan.summary.savings,
        savings_per_month: plan.summary.savings_per_month,
        nodes_per_pool,
        verdicts: plan.summary.verdicts.clone(),
        zero_ready: plan.summary.zero_ready.clone(),
    }
}

/// Workloads in `to` and not in `from`.
pub(crate) fn newly(to: &[String], from: &[String]) -> Vec<String> {
    to.iter().filter(|w| !from.contains(w)).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(verdict: Verdict, blockers: Vec<Code>) -> NodeSide {
        NodeSide { verdict, action: Action::None, reason: None, method: None, blockers, reasons: Vec::new() }
    }

    #[test]
    fn a_node_moves_when_its_verdict_or_blockers_move() {
        let blocked = side(Verdict::Blocked, vec![Code::PdbBlocked]);
        assert!(same(&blocked, &blocked.clone()));
        assert!(!same(&blocked, &side(Verdict::Safe, Vec::new())));
        assert!(!same(&blocked, &side(Verdict::Blocked, vec![Code::NotEmpty])));
    }

    #[test]
    fn newly_lists_only_what_the_other_side_lacks() {
        let a = vec!["Deployment/x/a".to_owned(), "Deployment/x/b".to_owned()];
        let b = vec!["Deployment/x/b".to_owned()];
        assert_eq!(newly(&a, &b), ["Deployment/x/a"]);
        assert!(newly(&b, &a).is_empty());
    }
}
