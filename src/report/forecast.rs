//! The `forecast` document: the rounds, the end state per NodePool, the bill per workload, and
//! (with `--compare`) the same with and without the `--set` changes side by side.
//!
//! Durations are whole seconds from the forecast's start; money is $/h rounded to 1e-6 so that
//! the bytes do not depend on the order sums were taken in.

use serde::Serialize;

use crate::audit::impact::StartupSource;
use crate::forecast::clock::{Delays, Figure};
use crate::forecast::{Forecast, Stop};
use crate::snapshot::API_VERSION;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ForecastDoc {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub start: String,
    /// `settled`, `rounds`, `until`, `bound` or `blocked` (a budget that never opens).
    pub stop: &'static str,
    /// The most rounds the forecast would run (the bound it stops at without `--rounds`). For
    /// the text and Markdown summaries; not part of the JSON/YAML document.
    #[serde(skip)]
    pub max_rounds: usize,
    /// Seconds from the start until the last command finished.
    pub end_seconds: i64,
    /// Seconds from the start of the last round the forecast ran.
    pub looked_until_seconds: i64,
    pub overrides: Vec<String>,
    /// Where the pods the what-ifs added went before the round (`engine/provisioner.rs`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub placements: Vec<super::placement::PlacementView>,
    pub delays: Vec<DelayView>,
    pub rounds: Vec<RoundView>,
    #[serde(serialize_with = "super::money::hourly")]
    pub savings: f64,
    pub node_pools: Vec<PoolView>,
    pub workloads: Vec<WorkloadView>,
    pub pending: Vec<PendingView>,
    /// Nodes launched before the start and not initialized then (absent when there are none).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub launching: Vec<LaunchingView>,
    /// Kinds that could not be read, and what they make uncertain here (as every report has).
    pub uncertain: Vec<crate::reason::Reason>,
    /// Nodes and $/h per NodePool each time they changed: the text's chart (not part of the
    /// JSON/YAML document, which has the rounds these points follow from).
    #[serde(skip)]
    pub series: Vec<SeriesPoint>,
    /// `--fixes` was given (the text says how to ask for them when it was not).
    #[serde(skip)]
    pub fixes_asked: bool,
}

/// One point of the chart: seconds from the start, and each NodePool's (nodes, $/h).
#[derive(Debug, Clone, PartialEq)]
pub struct SeriesPoint {
    pub at_seconds: i64,
    pub pools: Vec<(String, usize, f64)>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DelayView {
    pub name: &'static str,
    pub seconds: i64,
    /// `true`: our stated default, not a flag's value.
    pub default: bool,
    pub flag: &'static str,
    pub basis: &'static str,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RoundView {
    pub round: usize,
    pub at_seconds: i64,
    pub started_at_seconds: i64,
    pub method: &'static str,
    pub commands: Vec<CommandView>,
    #[serde(serialize_with = "super::money::hourly")]
    pub cumulative_savings: f64,
    pub budgets: Vec<BudgetView>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandView {
    pub decision: &'static str,
    pub reason: &'static str,
    pub candidates: Vec<String>,
    pub replacements: Vec<LaunchView>,
    #[serde(serialize_with = "super::money::hourly")]
    pub savings: f64,
    pub drain_at_seconds: i64,
    /// `null`: a pod no budget ever lets go holds a node, and no `terminationGracePeriod` ends
    /// the wait.
    pub gone_at_seconds: Option<i64>,
    pub pods_moved: usize,
    pub pending: Vec<String>,
    /// The pods that hold it (absent when none does).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub held: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LaunchView {
    pub node: String,
    pub node_pool: String,
    pub instance_type: String,
    pub zone: String,
    pub capacity_type: String,
    #[serde(serialize_with = "super::money::hourly")]
    pub price: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetView {
    pub node_pool: String,
    pub allowed: i64,
    pub in_flight: usize,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PoolView {
    pub node_pool: String,
    pub nodes_before: usize,
    pub nodes_after: usize,
    #[serde(serialize_with = "super::money::hourly")]
    pub cost_before: f64,
    #[serde(serialize_with = "super::money::hourly")]
    pub cost_after: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadView {
    pub workload: String,
    pub evictions: usize,
    pub zero_ready_times: usize,
    pub zero_ready_seconds: i64,
    pub nodes: Vec<String>,
    pub startup_seconds: i64,
    /// `observed` (median of its pods' start → Ready) or `default` (`--pod-startup`).
    pub startup_source: &'static str,
    pub pending: usize,
    /// Ready replicas before its first eviction, and each change after (seconds from the
    /// start, +1 or -1): the text's strip (not part of the JSON/YAML document).
    #[serde(skip)]
    pub ready_before: usize,
    #[serde(skip)]
    pub ready_changes: Vec<(i64, i64)>,
    /// When the bill counts it at zero ready: [from, to) in seconds (`to` = `i64::MAX`: until
    /// the end).
    #[serde(skip)]
    pub zero_spans: Vec<(i64, i64)>,
    /// The fixes replayed for it when the forecast sends it to zero ready replicas (each one a
    /// whole forecast of its own: `prescription/forecast.rs`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prescription: Option<super::prescription::PrescriptionView>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PendingView {
    pub pod: String,
    pub since_seconds: i64,
}

/// A node launched before the start and not initialized then.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LaunchingView {
    pub node: String,
    /// Seconds from the start until it initializes; `null`: it stays uninitialized.
    pub initialized_at_seconds: Option<i64>,
    pub why: String,
}

/// `--compare`: the forecast without the `--set` changes and with them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ComparisonDoc {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub overrides: Vec<String>,
    /// Where the pods the what-ifs added went before the round (`engine/provisioner.rs`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub placements: Vec<super::placement::PlacementView>,
    pub workloads: Vec<WorkloadPair>,
    pub without: ForecastDoc,
    pub with: ForecastDoc,
}

/// One workload's bill in both forecasts (zero where it was not touched).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadPair {
    pub workload: String,
    pub evictions: [usize; 2],
    pub zero_ready_times: [usize; 2],
    pub zero_ready_seconds: [i64; 2],
}

fn money(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}

fn delay(name: &'static str, f: Figure, flag: &'static str, basis: &'static str) -> DelayView {
    DelayView { name, seconds: f.value.as_secs(), default: f.default, flag, basis }
}

fn delays(d: &Delays) -> Vec<DelayView> {
    vec![
        delay("polling", d.polling, "", "karpenter: controllers/disruption/controller.go pollingPeriod"),
        delay(
            "validation",
            d.validation,
            "--validation-delay",
            "karpenter: controllers/disruption/consolidation.go commandValidationDelay",
        ),
        delay("launch", d.launch, "--launch-delay", "estimate: NodeClaim created → Initialized"),
        delay("podStartup", d.pod_startup, "--pod-startup", "estimate, when a workload's pods show no start → Ready"),
        delay(
            "terminationGrace",
            d.termination_grace,
            "--termination-grace",
            "kubernetes: terminationGracePeriodSeconds default, when a pod sets none",
        ),
    ]
}

const fn stop_name(s: Stop) -> &'static str {
    match s {
        Stop::Settled => "settled",
        Stop::Rounds => "rounds",
        Stop::Until => "until",
        Stop::Bound => "bound",
        Stop::Blocked => "blocked",
    }
}

/// One round as the document has it; also what `forecast` streams while it runs.
pub(crate) fn round_view(start: jiff::Timestamp, r: &crate::forecast::Round) -> RoundView {
    let secs = |t: jiff::Timestamp| start.duration_until(t).as_secs();
    RoundView {
        round: r.index,
        at_seconds: r.at.as_secs(),
        started_at_seconds: r.started_at.as_secs(),
        method: r.method.as_str(),
        commands: r
            .steps
            .iter()
            .map(|s| CommandView {
                decision: s.decision.as_str(),
                reason: s.reason.as_str(),
                candidates: s.candidates.clone(),
                replacements: s
                    .started
                    .launches
                    .iter()
                    .map(|l| LaunchView {
                        node: l.node.clone(),
                        node_pool: l.node_pool.clone(),
                        instance_type: l.instance_type.clone(),
                        zone: l.zone.clone(),
                        capacity_type: l.capacity_type.clone(),
                        price: l.price.map(money),
                    })
                    .collect(),
                savings: money(s.savings),
                drain_at_seconds: secs(s.started.drain_at),
                gone_at_seconds: s.started.gone_at.map(secs),
                pods_moved: s.started.moved,
                pending: s.started.pending.clone(),
                held: s.started.held.clone(),
            })
            .collect(),
        cumulative_savings: money(r.cumulative),
        budgets: r
            .budgets
            .iter()
            .map(|(p, (allowed, in_flight))| BudgetView {
                node_pool: p.clone(),
                allowed: *allowed,
                in_flight: *in_flight,
            })
            .collect(),
    }
}

/// Projects a forecast.
pub(crate) fn document(f: &Forecast, overrides: &[String], unread: &[crate::snapshot::UnreadKind]) -> ForecastDoc {
    let secs = |t: jiff::Timestamp| f.start.duration_until(t).as_secs();
    let rounds = f.rounds.iter().map(|r| round_view(f.start, r)).collect();
    ForecastDoc {
        api_version: API_VERSION,
        kind: "Forecast",
        start: f.start.to_string(),
        stop: stop_name(f.stop),
        end_seconds: f.end.as_secs(),
        looked_until_seconds: f.looked_until.as_secs(),
        max_rounds: f.max_rounds,
        overrides: overrides.to_vec(),
        placements: Vec::new(),
        delays: delays(&f.delays),
        rounds,
        savings: money(f.rounds.last().map_or(0.0, |r| r.cumulative)),
        node_pools: f
            .pools
            .iter()
            .map(|(p, (b, a))| PoolView {
                node_pool: p.clone(),
                nodes_before: b.nodes,
                nodes_after: a.nodes,
                cost_before: money(b.cost),
                cost_after: money(a.cost),
            })
            .collect(),
        workloads: f
            .workloads
            .iter()
            .map(|w| WorkloadView {
                workload: w.workload.clone(),
                evictions: w.evictions,
                zero_ready_times: w.zero_ready_times,
                zero_ready_seconds: w.zero_ready_for.as_secs(),
                nodes: w.nodes.iter().cloned().collect(),
                startup_seconds: w.startup.duration.as_secs(),
                startup_source: match w.startup.source {
                    StartupSource::Observed { .. } => "observed",
                    StartupSource::Default => "default",
                },
                pending: w.pending,
                ready_before: w.ready_before,
                ready_changes: {
                    let mut changes: Vec<(i64, i64)> = w.ready_changes.iter().map(|(t, d)| (secs(*t), *d)).collect();
                    changes.sort_unstable();
                    changes
                },
                zero_spans: w.zero_spans.iter().map(|(a, b)| (secs(*a), b.map_or(i64::MAX, secs))).collect(),
                prescription: None,
            })
            .collect(),
        pending: f
            .pending
            .iter()
            .map(|(p, since)| PendingView { pod: p.clone(), since_seconds: since.as_secs() })
            .collect(),
        launching: f
            .launching
            .iter()
            .map(|l| LaunchingView { node: l.node.clone(), initialized_at_seconds: l.at.map(secs), why: l.why.clone() })
            .collect(),
        uncertain: super::uncertain(unread, |kind| match kind {
            "Pod" | "PodDisruptionBudget" => {
                Some("every round's candidates, evictions and the harm per workload are uncertain")
            }
            "Node" | "NodeClaim" => Some("the nodes each round starts from, and so every round, are uncertain"),
            _ => None,
        }),
        fixes_asked: false,
        series: f
            .series
            .iter()
            .map(|p| SeriesPoint {
                at_seconds: p.at.as_secs(),
                pools: p.pools.iter().map(|(name, s)| (name.clone(), s.nodes, money(s.cost))).collect(),
            })
            .collect(),
    }
}

/// Both forecasts and, per workload, their bills side by side (most harm in either first).
pub(crate) fn comparison(without: ForecastDoc, mut with: ForecastDoc, overrides: &[String]) -> ComparisonDoc {
    let mut names: Vec<&str> = without.workloads.iter().chain(&with.workloads).map(|w| w.workload.as_str()).collect();
    names.sort_unstable();
    names.dedup();
    let find = |doc: &ForecastDoc, name: &str| doc.workloads.iter().find(|w| w.workload == name).cloned();
    let mut workloads: Vec<WorkloadPair> = names
        .into_iter()
        .map(|name| {
            let (a, b) = (find(&without, name), find(&with, name));
            let pick = |w: &Option<WorkloadView>, f: fn(&WorkloadView) -> i64| w.as_ref().map_or(0, f);
            WorkloadPair {
                workload: name.to_owned(),
                evictions: [a.as_ref().map_or(0, |w| w.evictions), b.as_ref().map_or(0, |w| w.evictions)],
                zero_ready_times: [
                    a.as_ref().map_or(0, |w| w.zero_ready_times),
                    b.as_ref().map_or(0, |w| w.zero_ready_times),
                ],
                zero_ready_seconds: [pick(&a, |w| w.zero_ready_seconds), pick(&b, |w| w.zero_ready_seconds)],
            }
        })
        .collect();
    workloads.sort_by(|x, y| {
        let harm = |p: &WorkloadPair| {
            (p.zero_ready_seconds[0].max(p.zero_ready_seconds[1]), p.evictions[0].max(p.evictions[1]))
        };
        harm(y).cmp(&harm(x)).then_with(|| x.workload.cmp(&y.workload))
    });
    ComparisonDoc {
        api_version: API_VERSION,
        kind: "ForecastComparison",
        overrides: overrides.to_vec(),
        // Stated once, beside the overrides they follow from.
        placements: std::mem::take(&mut with.placements),
        workloads,
        without,
        with,
    }
}

/// Puts each workload's fixes beside its bill.
pub(crate) fn attach_prescriptions(doc: &mut ForecastDoc, prescriptions: &[crate::prescription::Prescription]) {
    for view in &mut doc.workloads {
        view.prescription =
            prescriptions.iter().find(|p| p.workload == view.workload).map(super::prescription::PrescriptionView::from);
    }
}

#[cfg(test)]
mod tests {
    use crate::forecast::clock::Delays;
    use crate::forecast::{forecast, Limits};
    use crate::testing::{demo, now};

    fn json(overrides: &[String]) -> String {
        let mut s = demo();
        let applied = crate::whatif::apply(&mut s, overrides).expect("valid overrides");
        let f = forecast(s, now(), &Delays::default(), Limits::default());
        serde_json::to_string_pretty(&super::document(&f, &applied, &[])).expect("serialises")
    }

    #[test]
    fn same_input_same_bytes() {
        assert_eq!(json(&[]), json(&[]));
    }

    #[test]
    fn the_comparison_pairs_each_workload() {
        let set = ["pdb/tenant-a/app-b.minAvailable=1".to_owned(), "pdb/tenant-a/app-c.minAvailable=1".to_owned()];
        let doc = |o: &[String]| {
            let mut s = demo();
            let applied = crate::whatif::apply(&mut s, o).expect("valid");
            super::document(&forecast(s, now(), &Delays::default(), Limits::default()), &applied, &[])
        };
        let c = super::comparison(doc(&[]), doc(&set), &set);
        let b = c.workloads.iter().find(|w| w.workload.contains("app-b")).expect("app-b");
        // Without: node-x goes and app-b's one pod with it; with minAvailable 1 nothing may go.
        assert_eq!((b.evictions, b.zero_ready_seconds), ([1, 0], [60, 0]));
        assert_eq!((c.without.rounds.len(), c.with.rounds.len()), (1, 0));
    }

    /// The JSON document names each node launched before the start and not initialized then,
    /// when it initializes, and why (`launching[]`), and leaves the field out when there is none.
    #[test]
    fn the_document_lists_the_nodes_launched_before_the_start() {
        let f = forecast(
            crate::testing::moving_onto_a_launching_node(30, false),
            now(),
            &Delays::default(),
            Limits::default(),
        );
        let doc = serde_json::to_value(super::document(&f, &[], &[])).expect("serializes");
        let expected = serde_json::json!([{"node": "node-l", "initializedAtSeconds": 60,
                               "why": "its NodeClaim's creation + the launch delay"}]);
        assert_eq!(doc["launching"], expected);
        let f = forecast(demo(), now(), &Delays::default(), Limits::default());
        let doc = serde_json::to_value(super::document(&f, &[], &[])).expect("serializes");
        assert!(doc.get("launching").is_none(), "absent without such nodes");
    }
}
