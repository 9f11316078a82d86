//! `explain node/X`: the whole pipeline for one node, step by step, with Karpenter's own last
//! word (its Events) beside the replay's.

use serde::Serialize;

use super::impact::ImpactView;
use super::plan::NodeSummary;
use super::views::{PodMove, Step, StepKind};
use std::collections::BTreeMap;

use crate::engine::Replay;
use crate::reason::{Code, Reason};
use crate::snapshot::{is_karpenters, Event, Snapshot};

/// The `NodeExplanation` document.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeExplanation {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub captured_at: jiff::Timestamp,
    /// The method acting this round, for context.
    pub round_method: Option<&'static str>,
    #[serde(flatten)]
    pub node: NodeSummary,
    pub steps: Vec<Step>,
    pub pods: Vec<PodMove>,
    /// The workloads that lose pods if this node is disrupted (whatever its verdict), most
    /// severe first.
    pub impact: Vec<ImpactView>,
    /// Karpenter's latest Events about the node or its NodeClaim.
    pub events: Vec<EventView>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub uncertain: Vec<Reason>,
    /// What-if overrides applied before the replay.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<String>,
    /// Where the pods the what-ifs added went before the round (`engine/provisioner.rs`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub placements: Vec<super::placement::PlacementView>,
    /// For a Blocked or Safe node: each single change tried, replayed (at most `maxReplays`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub what_would_change: Vec<UnlockView>,
    /// For `explain pod/X`: which pod, on which node, and where it was looked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub looked_up: Option<String>,
}

/// One change tried on the snapshot and replayed.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnlockView {
    pub change: String,
    /// The verdict the replay gives with that change.
    pub verdict: super::Verdict,
    pub frees: bool,
    /// What the freed node's command saves, $/h and $/month (730 h), when the replayed round
    /// acts on it.
    #[serde(serialize_with = "super::money::hourly")]
    pub savings: Option<f64>,
    #[serde(serialize_with = "super::money::monthly")]
    pub savings_per_month: Option<f64>,
    /// How many single changes `explain` replays at most.
    pub max_replays: usize,
}

impl From<&crate::unlock::Unlock> for UnlockView {
    fn from(u: &crate::unlock::Unlock) -> Self {
        UnlockView {
            change: u.change.clone(),
            verdict: u.verdict.into(),
            frees: u.frees,
            savings: u.savings,
            savings_per_month: u.savings.map(|s| s * super::plan_summary::HOURS_PER_MONTH),
            max_replays: crate::unlock::MAX_REPLAYS,
        }
    }
}

/// Karpenter's newest Event of one reason about the node or its NodeClaim.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EventView {
    pub reason: String,
    pub message: String,
    /// `node/NAME` or `nodeclaim/NAME`: the copy that is newest.
    pub object: String,
    /// When Karpenter last published it (`lastTimestamp`, else `eventTime`/`firstTimestamp`).
    pub at: Option<jiff::Timestamp>,
    /// How many times it was published (client-go's `count`, summed by the snapshot's bound).
    /// The Node and NodeClaim copies of one publication count once: the larger is kept.
    pub count: i32,
    /// The upstream code that publishes it: `repository path function`.
    pub emitter: String,
    /// `doctor` finds Karpenter and the replay part on this event (a `Disagreement` or
    /// `KarpenterActed` finding of `doctor node/NAME`).
    pub disagrees: bool,
}

/// The start → Ready time assumed for a workload whose pods don't show theirs (`--pod-startup`).
pub const DEFAULT_POD_STARTUP: jiff::SignedDuration = jiff::SignedDuration::from_secs(60);

/// Explains one node (by Node or NodeClaim name); `None` when it is not in the replay.
pub fn explain(replay: &Replay, snapshot: &Snapshot, name: &str, overrides: &[String]) -> Option<NodeExplanation> {
    explain_with_startup(replay, snapshot, name, overrides, DEFAULT_POD_STARTUP)
}

/// [`explain`], with the `--pod-startup` default for the expected downtime.
pub fn explain_with_startup(
    replay: &Replay,
    snapshot: &Snapshot,
    name: &str,
    overrides: &[String],
    pod_startup: jiff::SignedDuration,
) -> Option<NodeExplanation> {
    let n = replay.nodes.iter().find(|n| n.name == name || n.node_claim.as_deref() == Some(name))?;
    let events = events(snapshot, &n.name, n.node_claim.as_deref());
    let steps: Vec<Step> = n.steps.iter().map(Step::from).collect();
    Some(NodeExplanation {
        api_version: super::API_VERSION,
        kind: "NodeExplanation",
        captured_at: replay.captured_at,
        round_method: replay.method.map(crate::engine::method::Method::as_str),
        node: NodeSummary::from_verdict(n),
        steps,
        pods: n.pods.iter().map(PodMove::from).collect(),
        impact: super::impact::of(snapshot, &std::iter::once(n.name.clone()).collect(), pod_startup),
        events,
        uncertain: replay.uncertain.clone(),
        overrides: overrides.to_vec(),
        placements: Vec::new(),
        looked_up: None,
        what_would_change: Vec::new(),
    })
}

impl NodeExplanation {
    /// Marks Karpenter's `reason` event as one where `doctor` finds the two part, and says so
    /// beside the verdict with the cause `doctor` judges most likely.
    pub fn mark_disagreement(&mut self, reason: &str, cause: &str) {
        let Some(event) = self.events.iter_mut().find(|e| e.reason == reason) else { return };
        if event.disagrees {
            return;
        }
        event.disagrees = true;
        let node = &self.node.name;
        self.steps.push(Step {
            step: StepKind::Decision,
            ok: true,
            findings: vec![Reason::new(
                Code::EventDisagrees,
                format!("Karpenter's {reason} event disagrees with this replay; likely cause: {cause}"),
            )
            .hint(format!("`kubectl consolidation doctor node/{node}` for both sides and what to check"))],
        });
    }
}

/// Karpenter's Events about the node or its NodeClaim, the newest per reason, newest first.
fn events(snapshot: &Snapshot, node: &str, claim: Option<&str>) -> Vec<EventView> {
    let mut newest: BTreeMap<&str, (&Event, i32)> = BTreeMap::new();
    let about = snapshot.events.iter().filter(|e| is_karpenters(e)).filter(|e| match e.involved_object.kind.as_str() {
        "Node" => e.involved_object.name == node,
        "NodeClaim" => Some(e.involved_object.name.as_str()) == claim,
        _ => false,
    });
    for e in about {
        let count = e.count.unwrap_or(1).max(1);
        newest
            .entry(e.reason.as_str())
            .and_modify(|(kept, kept_count)| {
                *kept_count = (*kept_count).max(count);
                // On a tie the Node's copy: the object `explain` was asked about.
                let newer =
                    e.seen_at() > kept.seen_at() || (e.seen_at() == kept.seen_at() && e.involved_object.kind == "Node");
                if newer {
                    *kept = e;
                }
            })
            .or_insert((e, count));
    }
    let mut out: Vec<EventView> = newest
        .into_values()
        .map(|(e, count)| EventView {
            reason: e.reason.clone(),
            message: e.message.clone(),
            object: format!("{}/{}", e.involved_object.kind.to_lowercase(), e.involved_object.name),
            at: e.seen_at(),
            count,
            emitter: crate::event_emitter::of(&e.reason, &e.message),
            disagrees: false,
        })
        .collect();
    out.sort_by(|a, b| b.at.cmp(&a.at).then_with(|| a.reason.cmp(&b.reason)));
    out
}
