//! The fixes `forecast` prints: each one replayed as a whole forecast (rounds after rounds until
//! Karpenter settles, `src/forecast/`), with the delays and limits of the forecast it is for, so
//! that a fix is offered only when, over those rounds, the workload never goes to zero ready
//! replicas and no other workload newly does.
//!
//! A forecast costs many rounds, so a forecast's fixes spend at most [`MAX_FORECAST_REPLAYS`]
//! replays (against [`super::MAX_REPLAYS`] for one round's).

use std::collections::{BTreeMap, BTreeSet};

use super::{prescribe, Harmed, Judge, Outcome, Prescription};
use crate::forecast::clock::Delays;
use crate::forecast::{forecast, Forecast, Limits};
use crate::snapshot::Snapshot;

/// Forecasts spent at most on one forecast's fixes.
pub(crate) const MAX_FORECAST_REPLAYS: usize = 8;

/// A fix judged by the forecast it changes.
pub(crate) struct Forecasting {
    pub now: jiff::Timestamp,
    pub delays: Delays,
    pub limits: Limits,
}

impl Judge for Forecasting {
    fn judge(&self, snapshot: Snapshot) -> Outcome {
        outcome(&forecast(snapshot, self.now, &self.delays, self.limits))
    }

    fn replays(&self) -> usize {
        MAX_FORECAST_REPLAYS
    }
}

/// What a forecast says, as a prescription reads it: the workloads it sends to zero ready
/// replicas at least once, what its commands save by the end ($/h), and every node a command
/// of any round disrupts (with the first round's reason).
pub(crate) fn outcome(f: &Forecast) -> Outcome {
    let mut disrupted = BTreeMap::new();
    for step in f.rounds.iter().flat_map(|r| &r.steps) {
        for node in &step.candidates {
            disrupted.entry(node.clone()).or_insert(step.reason);
        }
    }
    Outcome {
        harmed: f.workloads.iter().filter(|w| w.zero_ready_times > 0).map(|w| w.workload.clone()).collect(),
        savings: f.rounds.last().map_or(0.0, |r| r.cumulative) + 0.0,
        disrupted,
    }
}

/// The fixes for the workloads forecast `f` (run on `snapshot` at `now` with `delays` and
/// `limits`) sends to zero ready replicas, most harmed first (the forecast's own order).
pub(crate) fn for_forecast(
    snapshot: &Snapshot,
    f: &Forecast,
    now: jiff::Timestamp,
    delays: &Delays,
    limits: Limits,
    observer: &dyn crate::engine::observe::Observer,
) -> Vec<Prescription> {
    let baseline = outcome(f);
    if baseline.harmed.is_empty() {
        return Vec::new();
    }
    // The harmed workloads as the snapshot holds them: their pods on the nodes of the snapshot
    // that some round disrupts (a node the forecast launched is not in it).
    let nodes: BTreeSet<String> = baseline.disrupted.keys().cloned().collect();
    let impact = crate::audit::impact::impact(snapshot, &nodes, delays.pod_startup.value);
    let harmed: Vec<Harmed> = f
        .workloads
        .iter()
        .filter(|w| baseline.harmed.contains(&w.workload))
        .filter_map(|w| impact.iter().find(|i| i.key() == w.workload))
        .map(Harmed::of)
        .collect();
    if harmed.is_empty() {
        return Vec::new();
    }
    let judge = Forecasting { now, delays: *delays, limits };
    prescribe(snapshot, &judge, &baseline, &harmed, now, observer)
}
