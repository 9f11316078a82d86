//! The forecast: Karpenter's disruption controller replayed round after round until nothing
//! acts (or a limit), each round on the cluster the previous commands left. Pure and
//! deterministic, like the replay it repeats: no I/O, no clock of its own.
//!
//! A round is [`crate::engine::replay_round_with`] on the carried state (with the
//! [`crate::engine::RoundCache`] the forecast keeps across rounds, and the state's index of
//! each node's pods); a round that acts starts
//! its commands after their validation wait ([`apply::start`]) and the next round runs at once
//! (karpenter `controller.go` `Reconcile` requeues immediately after a command); a round that
//! finds nothing waits for the next thing due — a replacement initialized, a node gone, a pod
//! Ready, a consolidateAfter ending, a budget window opening — on the 10 s polling grid.

pub(crate) mod apply;
pub(crate) mod clock;
pub(crate) mod disruptions;
pub(crate) mod impact;
pub(crate) mod launch;
pub(crate) mod state;

use std::collections::BTreeMap;

use jiff::{SignedDuration, Timestamp};

use self::apply::{advance, start, Started};
use self::clock::{next_round, Delays};
use self::impact::{Harm, WorkloadHarm, Workloads};
use self::launch::Launching;
use self::state::State;
use crate::engine::method::{Decision, Method};
use crate::engine::nodepool::DisruptionReason;
use crate::engine::state::Cluster;
use crate::engine::{replay_round_with, CommandView, Replay, RoundCache};
use crate::snapshot::Snapshot;

/// When the forecast stops (besides nothing acting any more).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Limits {
    /// Rounds that act.
    pub rounds: Option<usize>,
    /// Time from the start.
    pub until: Option<SignedDuration>,
}

/// Why it stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// No method acts and nothing that could change that is due.
    Settled,
    Rounds,
    Until,
    /// The safety bound ([`MAX_ROUNDS`]) without `--rounds`.
    Bound,
    /// No method acts, and the only thing that could change that is a budget window, which
    /// never lets a disruption through within [`WINDOW_HORIZON`]: blocked for good.
    Blocked,
}

/// How far ahead a forecast looks for a budget window that lets a blocked NodePool act. Cron
/// schedules repeat within a year (robfig's `Next` gives up after five; a year holds every
/// month and weekday combination that can recur).
const WINDOW_HORIZON: SignedDuration = SignedDuration::from_hours(366 * 24);
/// Window changes looked at per pool at most within the horizon (a `* * * * *` schedule changes
/// every minute; past this the pool is taken as blocked for the rest of the horizon).
const MAX_WINDOW_HOPS: usize = 10_000;

/// Rounds a forecast runs at most when `--rounds` is not given.
pub(crate) const MAX_ROUNDS: usize = 500;

/// One command of a round, as it went.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Step {
    pub decision: Decision,
    pub reason: DisruptionReason,
    pub candidates: Vec<String>,
    pub savings: f64,
    pub started: Started,
}

/// A round that acted.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Round {
    pub index: usize,
    /// When the round ran, and when its commands started (after the validation wait).
    pub at: SignedDuration,
    pub started_at: SignedDuration,
    pub method: Method,
    pub steps: Vec<Step>,
    /// Σ savings so far ($/h).
    pub cumulative: f64,
    /// Per NodePool: (allowed, in flight) for the method's reason, when a budget bounds it.
    pub budgets: BTreeMap<String, (i64, usize)>,
}

/// What a forecast tells the edge as it runs (a terminal's progress and its streamed round
/// lines): the replay's own hooks, each round as it is decided, and the simulated clock.
/// Passed in by the caller; a forecast's result is the same with any observer.
pub(crate) trait ForecastObserver: crate::engine::observe::Observer {
    /// Round `round.index` acted (its commands have started).
    fn round_decided(&self, start: Timestamp, round: &Round) {
        let _ = (start, round);
    }
    /// The forecast's clock reached `at` from the start, after `rounds` rounds that acted.
    fn clock(&self, at: SignedDuration, rounds: usize) {
        let _ = (at, rounds);
    }
}

impl ForecastObserver for crate::engine::observe::Unobserved {}

/// Nodes and $/h per NodePool at one moment of the forecast (a point of its chart).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PoolSample {
    pub at: SignedDuration,
    pub pools: BTreeMap<String, PoolState>,
}

/// Nodes and $/h of one NodePool.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub(crate) struct PoolState {
    pub nodes: usize,
    pub cost: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Forecast {
    pub start: Timestamp,
    pub rounds: Vec<Round>,
    pub stop: Stop,
    /// The rounds it would run at most: `--rounds`, else [`MAX_ROUNDS`].
    pub max_rounds: usize,
    /// When the last command finished (its nodes gone; a drain held for good never does).
    pub end: SignedDuration,
    /// When the last round ran: the forecast looked this far.
    pub looked_until: SignedDuration,
    pub pools: BTreeMap<String, (PoolState, PoolState)>,
    pub workloads: Vec<WorkloadHarm>,
    /// Pods left pending at the end, and when they lost their place.
    pub pending: Vec<(String, SignedDuration)>,
    /// Nodes launched before the start and not initialized then: when each initializes.
    pub launching: Vec<Launching>,
    pub delays: Delays,
    /// Nodes and $/h per NodePool each time they changed, from the start to the end state.
    pub series: Vec<PoolSample>,
}

/// Runs the forecast on `snapshot` from `now`.
pub(crate) fn forecast(snapshot: Snapshot, now: Timestamp, delays: &Delays, limits: Limits) -> Forecast {
    forecast_observed(snapshot, now, delays, limits, &crate::engine::observe::Unobserved)
}

/// [`forecast`], telling `observer` each round as it is decided and the clock as it moves.
pub(crate) fn forecast_observed(
    snapshot: Snapshot,
    now: Timestamp,
    delays: &Delays,
    limits: Limits,
    observer: &dyn ForecastObserver,
) -> Forecast {
    let workloads = Workloads::new(&snapshot, delays.pod_startup.value);
    let before = pool_states(&snapshot, now);
    let mut series = Series::new(&snapshot, now);
    let mut state = State::new(snapshot, now);
    let launching = launch::launching(&state.snapshot, now, delays.launch.value);
    state.initializing = launching.iter().filter_map(|l| Some((l.node.clone(), l.at?))).collect();
    let mut harm = Harm::default();
    let mut rounds: Vec<Round> = Vec::new();
    let mut cumulative = 0.0;
    let deadline = limits.until.map(|d| now + d);
    let max_rounds = limits.rounds.unwrap_or(MAX_ROUNDS);
    let mut t = now;
    // What one round's replay keeps for the next (the engine checks what changed).
    let mut cache = RoundCache::default();
    let stop = loop {
        if deadline.is_some_and(|d| t > d) {
            break Stop::Until;
        }
        if rounds.len() >= max_rounds {
            break if limits.rounds.is_some() { Stop::Rounds } else { Stop::Bound };
        }
        advance(&mut state, t);
        series.sample(&state.snapshot, now.duration_until(t));
        observer.clock(now.duration_until(t), rounds.len());
        cache.nodes_changed(state.take_touched());
        cache.pods_changed(state.take_ended());
        let replay = replay_round_with(&mut cache, &state.snapshot, t, Some(state.bindings()));
        let acting = replay.method.filter(|_| !replay.commands.is_empty());
        if let Some(method) = acting {
            let started_at = t + delays.validation_of(method);
            advance(&mut state, started_at);
            let pools = candidate_pools(&state.snapshot, &replay.commands);
            let budgets = budget_view(&replay, method.reason(), &pools);
            let steps: Vec<Step> = replay
                .commands
                .iter()
                .map(|c| step(&mut state, c, started_at, delays, &workloads, &mut harm))
                .collect();
            cumulative += steps.iter().map(|s| s.savings).sum::<f64>();
            series.learn_prices(&steps);
            series.sample(&state.snapshot, now.duration_until(started_at));
            rounds.push(Round {
                index: rounds.len() + 1,
                at: now.duration_until(t),
                started_at: now.duration_until(started_at),
                method,
                steps,
                cumulative,
                budgets,
            });
            observer.round_decided(now, rounds.last().expect("just pushed"));
            t = started_at;
            continue;
        }
        let window = window_due(&state.snapshot, &replay, t);
        let due = [state.next_due(), consolidate_after_due(&state.snapshot, t), window.opens]
            .into_iter()
            .flatten()
            .filter(|d| *d > t)
            .min();
        match next_round(t, false, due, delays) {
            Some(next) => t = next,
            None if window.blocked_for_good => break Stop::Blocked,
            None => break Stop::Settled,
        }
    };
    // Commands already started run to their end: the end state is what they leave.
    while let Some(due) = state.next_due() {
        advance(&mut state, due);
        series.sample(&state.snapshot, now.duration_until(due));
    }
    let end = rounds.iter().flat_map(|r| r.steps.iter().filter_map(|s| s.started.gone_at)).max().unwrap_or(now);
    let after = pool_states(&state.snapshot, state.now);
    series.settle(&before, &after);
    let mut pools: BTreeMap<String, (PoolState, PoolState)> = BTreeMap::new();
    for (name, b) in &before {
        pools.entry(name.clone()).or_default().0 = *b;
    }
    for (name, a) in &after {
        pools.entry(name.clone()).or_default().1 = *a;
    }
    let pending = state.pending.iter().map(|(p, at)| (p.clone(), now.duration_until(*at))).collect();
    Forecast {
        start: now,
        rounds,
        stop,
        max_rounds,
        end: now.duration_until(end),
        looked_until: now.duration_until(t),
        pools,
        workloads: harm.finish(end.max(t)),
        pending,
        launching,
        delays: *delays,
        series: series.samples,
    }
}

/// The chart's points: each NodePool's nodes and $/h whenever they change. A node's price is
/// learned once (the snapshot's nodes at the start, each replacement at its launch), so a
/// point costs a walk over the node list, not a cluster rebuild.
struct Series {
    prices: BTreeMap<String, f64>,
    samples: Vec<PoolSample>,
}

impl Series {
    fn new(snapshot: &Snapshot, now: Timestamp) -> Series {
        let cluster = Cluster::new(snapshot, now);
        let prices = cluster
            .nodes
            .iter()
            .map(|node| {
                let it = crate::engine::pricing::instance_type_name(node)
                    .and_then(|n| cluster.instance_types.get(n).copied());
                (node.name.clone(), crate::engine::pricing::node_price(node, it).unwrap_or(0.0))
            })
            .collect();
        let mut series = Series { prices, samples: Vec::new() };
        series.sample(snapshot, SignedDuration::ZERO);
        series
    }

    fn learn_prices(&mut self, steps: &[Step]) {
        for launch in steps.iter().flat_map(|s| &s.started.launches) {
            self.prices.insert(launch.node.clone(), launch.price.unwrap_or(0.0));
        }
    }

    /// The first and last points are the end-state table's own figures (which also count
    /// NodeClaims not yet registered as Nodes), so the chart and the table agree.
    fn settle(&mut self, before: &BTreeMap<String, PoolState>, after: &BTreeMap<String, PoolState>) {
        if let Some(first) = self.samples.first_mut() {
            first.pools.clone_from(before);
        }
        if self.samples.len() > 1 {
            if let Some(last) = self.samples.last_mut() {
                last.pools.clone_from(after);
            }
        }
    }

    fn sample(&mut self, snapshot: &Snapshot, at: SignedDuration) {
        let mut pools: BTreeMap<String, PoolState> = BTreeMap::new();
        for node in &snapshot.nodes {
            let Some(pool) = node.metadata.labels.get(crate::engine::labels::NODEPOOL) else { continue };
            let entry = pools.entry(pool.clone()).or_default();
            entry.nodes += 1;
            entry.cost += self.prices.get(&node.metadata.name).copied().unwrap_or(0.0);
        }
        match self.samples.last_mut() {
            Some(last) if last.pools == pools => {}
            Some(last) if last.at == at => last.pools = pools,
            _ => self.samples.push(PoolSample { at, pools }),
        }
    }
}

/// The forecast to steady state with the default delays: how many rounds acted. The library
/// API the benchmarks (`benches/replay.rs`) time; the CLI calls [`forecast`].
pub fn rounds_to_steady_state(snapshot: Snapshot, now: Timestamp) -> usize {
    forecast(snapshot, now, &Delays::default(), Limits::default()).rounds.len()
}

fn step(
    state: &mut State,
    command: &CommandView,
    at: Timestamp,
    delays: &Delays,
    workloads: &Workloads,
    harm: &mut Harm,
) -> Step {
    let started = start(state, command, at, delays, workloads, harm);
    Step {
        decision: command.decision,
        reason: command.reason,
        candidates: command.candidates.clone(),
        savings: command.savings,
        started,
    }
}

/// The NodePools of the round's candidates.
fn candidate_pools(snapshot: &Snapshot, commands: &[CommandView]) -> Vec<String> {
    let names: std::collections::BTreeSet<&str> =
        commands.iter().flat_map(|c| c.candidates.iter().map(String::as_str)).collect();
    let mut pools: Vec<String> = snapshot
        .nodes
        .iter()
        .filter(|n| names.contains(n.metadata.name.as_str()))
        .filter_map(|n| n.metadata.labels.get(crate::engine::labels::NODEPOOL).cloned())
        .collect();
    pools.sort();
    pools.dedup();
    pools
}

/// The budgets that bound the acting reason in the candidates' pools: (allowed, in flight).
fn budget_view(replay: &Replay, reason: DisruptionReason, pools: &[String]) -> BTreeMap<String, (i64, usize)> {
    replay
        .budgets
        .iter()
        .filter(|(pool, _)| pools.contains(pool))
        .filter_map(|(pool, b)| {
            let r = b.for_reason(reason)?;
            (r.allowed < crate::engine::budget::UNBOUNDED).then(|| (pool.clone(), (r.allowed, b.disrupting.len())))
        })
        .collect()
}

/// The next moment a NodeClaim's consolidateAfter ends.
fn consolidate_after_due(snapshot: &Snapshot, now: Timestamp) -> Option<Timestamp> {
    let pools: BTreeMap<&str, &crate::snapshot::NodePool> =
        snapshot.node_pools.iter().map(|p| (p.metadata.name.as_str(), p)).collect();
    snapshot
        .node_claims
        .iter()
        .filter_map(|c| {
            let pool = pools.get(c.metadata.labels.get(crate::engine::labels::NODEPOOL)?.as_str())?;
            crate::engine::candidate::is_under_consolidate_after(pool, c, now).map(|left| now + left)
        })
        .min()
}

/// When a budget window next lets a NodePool blocked by its budgets act.
struct WindowDue {
    opens: Option<Timestamp>,
    /// Some pool is blocked by its budgets and no window within [`WINDOW_HORIZON`] opens it.
    blocked_for_good: bool,
}

/// The earliest time, after `t`, at which a pool that has a reason at 0 remaining gets a
/// disruption back as its schedules turn. Window changes that leave every such reason at 0
/// (a window that closes as another opens, a window that is always active) are stepped over
/// without a replay, so a schedule that never opens costs budget evaluations, not rounds.
fn window_due(snapshot: &Snapshot, replay: &Replay, t: Timestamp) -> WindowDue {
    let mut due = WindowDue { opens: None, blocked_for_good: false };
    for (name, budgets) in &replay.budgets {
        let blocked: Vec<_> = budgets.by_reason.iter().filter(|r| r.remaining == 0).map(|r| r.reason).collect();
        if blocked.is_empty() {
            continue;
        }
        let Some(pool) = snapshot.node_pools.iter().find(|p| &p.metadata.name == name) else { continue };
        match next_opening(pool, budgets, &blocked, t) {
            Some(at) => due.opens = Some(due.opens.map_or(at, |d| d.min(at))),
            None => due.blocked_for_good = true,
        }
    }
    due
}

/// The first window change after `t` at which one of `blocked` has a disruption left, with the
/// pool's counts as they are now; `None` within the horizon.
fn next_opening(
    pool: &crate::snapshot::NodePool,
    now: &crate::engine::budget::PoolBudgets,
    blocked: &[crate::engine::nodepool::DisruptionReason],
    t: Timestamp,
) -> Option<Timestamp> {
    let next_change = |b: &crate::engine::budget::PoolBudgets, after: Timestamp| {
        b.budgets.iter().flat_map(|s| [s.window_opens_at, s.window_closes_at]).flatten().filter(|w| *w > after).min()
    };
    let horizon = t.checked_add(WINDOW_HORIZON).ok()?;
    let mut at = next_change(now, t)?;
    for _ in 0..MAX_WINDOW_HOPS {
        if at > horizon {
            return None;
        }
        let then = crate::engine::budget::pool_budgets(pool, now.counted_nodes, now.disrupting.clone(), at);
        if blocked.iter().any(|&r| then.remaining(r) > 0) {
            return Some(at);
        }
        at = next_change(&then, at)?;
    }
    None
}

/// Nodes and $/h per NodePool (a node's price as Karpenter resolves it; unpriced nodes count 0).
pub(crate) fn pool_states(snapshot: &Snapshot, now: Timestamp) -> BTreeMap<String, PoolState> {
    let cluster = Cluster::new(snapshot, now);
    let mut out: BTreeMap<String, PoolState> = BTreeMap::new();
    for node in &cluster.nodes {
        let Some(pool) = node.node_pool_name() else { continue };
        let it = crate::engine::pricing::instance_type_name(node).and_then(|n| cluster.instance_types.get(n).copied());
        let entry = out.entry(pool.to_owned()).or_default();
        entry.nodes += 1;
        entry.cost += crate::engine::pricing::node_price(node, it).unwrap_or(0.0);
    }
    out
}

#[cfg(test)]
mod tests;
