//! The pure step: one command of a round applied to the state, and the clock moved on.
//!
//! What a command does over time mirrors karpenter `pkg/controllers/disruption/queue.go`:
//! `StartCommand` taints the candidates (`karpenter.sh/disrupted`, condition
//! `DisruptionReason`) and creates the replacement NodeClaims; `waitOrTerminate` waits until
//! every replacement is `Initialized`, then deletes the candidates' NodeClaims, and the
//! termination controller drains them (evictions through the PodDisruptionBudgets) until the
//! nodes are gone. The evicted pods' copies land where the round's simulation placed them (a
//! replacement, or an existing node); a pod with no place stays pending and is reported. A
//! destination's NodeClaim gets `status.lastPodEventTime` when pods land on it (karpenter
//! `pkg/controllers/nodeclaim/podevents/controller.go`), which restarts its consolidateAfter.

use std::collections::{BTreeMap, BTreeSet};

use jiff::{SignedDuration, Timestamp};

use super::clock::Delays;
use super::impact::{pod_grace, Evictions, Harm, Workloads};
use super::launch::{launch, Launch};
use super::state::{InFlight, State};
use crate::engine::labels::DISRUPTED_TAINT;
use crate::engine::scheduling::Destination;
use crate::engine::CommandView;
use crate::snapshot::{Condition, Taint};

/// What starting one command did, for the timeline.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Started {
    pub launches: Vec<Launch>,
    pub drain_at: Timestamp,
    /// `None`: a pod no budget ever lets go holds a node, and no `terminationGracePeriod` ends
    /// the wait.
    pub gone_at: Option<Timestamp>,
    pub moved: usize,
    pub pending: Vec<String>,
    /// The pods that hold it (`ns/name`).
    pub held: Vec<String>,
}

/// Starts `command` at `at`: marks its candidates, launches its replacements, and schedules the
/// drain and the nodes' end. The harm to each workload is recorded in `harm`.
pub(crate) fn start(
    state: &mut State,
    command: &CommandView,
    at: Timestamp,
    delays: &Delays,
    workloads: &Workloads,
    harm: &mut Harm,
) -> Started {
    let candidates: BTreeSet<&str> = command.candidates.iter().map(String::as_str).collect();
    mark_disrupted(state, &candidates);
    let mut launches = Vec::new();
    for (i, replacement) in command.replacements.iter().enumerate() {
        let claim = command.results.new_claims.get(i);
        state.launched += 1;
        let first = command.candidates.first().map(String::as_str);
        launches.push(launch(state, replacement, claim, first, at));
    }
    let drain_at = if launches.is_empty() { at } else { at + delays.launch.value };
    let names: Vec<Option<String>> = command
        .results
        .moves
        .iter()
        .map(|m| match &m.to {
            Destination::Existing(n) => Some(n.clone()),
            Destination::New(i) => launches.get(*i).map(|l| l.node.clone()),
            Destination::Nowhere => None,
        })
        .collect();
    // The pods of this command's candidates (a round also moves those of nodes already
    // draining: their own command lands them).
    let mut moving: Vec<(usize, Option<String>)> = Vec::new();
    for (m, to) in command.results.moves.iter().zip(names) {
        let Some(&i) = state.pod_index.get(&m.pod) else { continue };
        let on = state.snapshot.pods[i].spec.node_name.as_deref();
        if on.is_some_and(|n| candidates.contains(n)) {
            moving.push((i, to));
        }
    }
    let deadlines = termination_deadlines(state, &candidates, drain_at);
    let evictions = harm.evict(state, workloads, &moving, drain_at, &deadlines, delays);
    let gone_at = drain_end(state, &moving, &evictions, drain_at, &deadlines, delays);
    let plan = evictions.landing;
    let held: Vec<String> = evictions.held.iter().map(|&i| state.snapshot.pods[i].metadata.key()).collect();
    let pending: Vec<String> = plan.iter().filter(|l| l.to.is_none()).map(|l| l.pod.clone()).collect();
    let moved = plan.len() - pending.len();
    state.in_flight.push(InFlight {
        candidates: command.candidates.clone(),
        replacements: launches.iter().map(|l| l.node.clone()).collect(),
        drain_at,
        gone_at,
        drained: false,
        landing: plan,
    });
    Started { launches, drain_at, gone_at, moved, pending, held }
}

/// When each candidate's `terminationGracePeriod` runs out: its NodeClaim's deletion (the drain's
/// start) plus the period, as karpenter `nodeclaim/lifecycle/controller.go`
/// `ensureTerminationGracePeriodTerminationTimeAnnotation` stamps it in
/// `karpenter.sh/nodeclaim-termination-timestamp` and the termination controller reads it back
/// (`node/termination/controller.go` `nodeTerminationTime`).
fn termination_deadlines(
    state: &State,
    candidates: &BTreeSet<&str>,
    drain_at: Timestamp,
) -> BTreeMap<String, Timestamp> {
    state
        .snapshot
        .node_claims
        .iter()
        .filter_map(|c| {
            let node = c.status.node_name.as_deref().filter(|n| candidates.contains(n))?;
            let period: SignedDuration = c.spec.termination_grace_period.as_deref()?.parse().ok()?;
            Some((node.to_owned(), drain_at.checked_add(period).ok()?))
        })
        .collect()
}

/// When the drained nodes are gone: once the last eviction's pod has had its termination grace
/// (the longest of the moving pods'), but on a node whose `terminationGracePeriod` runs out
/// first, then (every pod left is deleted with at most the time remaining, at least 1 s:
/// karpenter `terminator.go` `DeleteExpiringPods`; pods already terminating past it are deleted
/// again, `IsPodEligibleForForcedEviction`). `None` while a pod is held for good.
fn drain_end(
    state: &State,
    moving: &[(usize, Option<String>)],
    evictions: &Evictions,
    drain_at: Timestamp,
    deadlines: &BTreeMap<String, Timestamp>,
    delays: &Delays,
) -> Option<Timestamp> {
    if !evictions.held.is_empty() {
        return None;
    }
    let node_of = |i: usize| state.snapshot.pods[i].spec.node_name.as_deref();
    let deadline_of = |i: usize| node_of(i).and_then(|n| deadlines.get(n));
    let evicted_at: BTreeMap<&str, Timestamp> =
        evictions.landing.iter().map(|l| (l.pod.as_str(), l.evicted_at)).collect();
    let pods: Vec<(usize, Timestamp)> = moving
        .iter()
        .filter_map(|(i, _)| Some((*i, *evicted_at.get(state.snapshot.pods[*i].metadata.key().as_str())?)))
        .collect();
    // Nodes without a period: the last eviction plus the longest grace, over all of them.
    let unbounded = pods.iter().filter(|(i, _)| deadline_of(*i).is_none());
    let grace = unbounded.clone().map(|(i, _)| pod_grace(&state.snapshot.pods[*i], delays)).max();
    let last = unbounded.map(|(_, at)| *at).max();
    let mut gone = match (last, grace) {
        (Some(last), Some(grace)) => last + grace,
        _ => drain_at,
    };
    // Each node with a period: the same, cut at its deadline.
    for (node, deadline) in deadlines {
        let on: Vec<&(usize, Timestamp)> = pods.iter().filter(|(i, _)| node_of(*i) == Some(node.as_str())).collect();
        let Some(last) = on.iter().map(|(_, at)| *at).max() else { continue };
        let grace = on.iter().map(|(i, _)| pod_grace(&state.snapshot.pods[*i], delays)).max().unwrap_or_default();
        let cut = (*deadline).max(drain_at + SignedDuration::from_secs(1));
        gone = gone.max((last + grace).min(cut));
    }
    Some(gone)
}

/// `queue.go` `markDisrupted`: the `karpenter.sh/disrupted:NoSchedule` taint and the
/// NodeClaim's `DisruptionReason` condition. The replay then treats the nodes as deleting:
/// their pods need room, and the budgets count them.
fn mark_disrupted(state: &mut State, candidates: &BTreeSet<&str>) {
    for name in candidates {
        state.touch(name);
    }
    for node in state.snapshot.nodes.iter_mut().filter(|n| candidates.contains(n.metadata.name.as_str())) {
        if !node.spec.taints.iter().any(|t| t.key == DISRUPTED_TAINT) {
            node.spec.taints.push(Taint { key: DISRUPTED_TAINT.into(), value: None, effect: "NoSchedule".into() });
        }
    }
    let at = state.now;
    for claim in state
        .snapshot
        .node_claims
        .iter_mut()
        .filter(|c| c.status.node_name.as_deref().is_some_and(|n| candidates.contains(n)))
    {
        claim.status.conditions.push(Condition {
            type_: "DisruptionReason".into(),
            status: "True".into(),
            last_transition_time: Some(at),
            ..Condition::default()
        });
    }
}

/// Moves the clock to `to`, applying everything due on the way, in time order.
pub(crate) fn advance(state: &mut State, to: Timestamp) {
    while let Some(t) = state.next_due().filter(|t| *t <= to) {
        state.now = t;
        let initialized: Vec<String> =
            state.initializing.iter().filter(|(_, at)| *at <= t).map(|(node, _)| node.clone()).collect();
        state.initializing.retain(|(_, at)| *at > t);
        for node in initialized {
            if !state.snapshot.nodes.iter().any(|n| n.metadata.name == node) {
                super::launch::register(state, &node, t);
            }
            super::launch::initialize(state, &node, t);
        }
        for i in 0..state.in_flight.len() {
            let f = &state.in_flight[i];
            if !f.drained && f.drain_at <= t {
                drain(state, i);
            }
        }
        let ready: Vec<String> = state.starting.iter().filter(|(_, at)| *at <= t).map(|(pod, _)| pod.clone()).collect();
        state.starting.retain(|(_, at)| *at > t);
        for pod in ready {
            if let Some(&i) = state.pod_index.get(&pod) {
                state.set_ready(i, true, t);
            }
        }
        let is_gone = |f: &InFlight| f.drained && f.gone_at.is_some_and(|g| g <= t);
        let gone: Vec<InFlight> = state.in_flight.iter().filter(|f| is_gone(f)).cloned().collect();
        state.in_flight.retain(|f| !is_gone(f));
        for f in gone {
            remove_nodes(state, &f.candidates);
        }
    }
    state.now = state.now.max(to);
}

/// The replacements are initialized: the candidates' NodeClaims are deleted and their pods
/// evicted; each copy is bound where the simulation put it, not Ready until its startup ends.
fn drain(state: &mut State, i: usize) {
    let at = state.in_flight[i].drain_at;
    let replacements = state.in_flight[i].replacements.clone();
    for name in &replacements {
        super::launch::initialize(state, name, at);
    }
    let candidates: BTreeSet<String> = state.in_flight[i].candidates.iter().cloned().collect();
    for name in &candidates {
        state.touch(name);
    }
    for claim in state
        .snapshot
        .node_claims
        .iter_mut()
        .filter(|c| c.status.node_name.as_ref().is_some_and(|n| candidates.contains(n)))
    {
        claim.metadata.deletion_timestamp = Some(at);
    }
    let landing = state.in_flight[i].landing.clone();
    let mut last_event: BTreeMap<String, Timestamp> = BTreeMap::new();
    for l in &landing {
        let Some(&p) = state.pod_index.get(&l.pod) else { continue };
        state.bind(p, l.to.as_deref());
        state.snapshot.pods[p].metadata.creation_timestamp = Some(l.evicted_at);
        state.snapshot.pods[p].status.start_time = Some(l.evicted_at);
        state.set_ready(p, false, l.evicted_at);
        match &l.to {
            Some(node) => {
                state.starting.push((l.pod.clone(), l.ready_at));
                let e = last_event.entry(node.clone()).or_insert(l.evicted_at);
                *e = (*e).max(l.evicted_at);
            }
            None => {
                state.pending.insert(l.pod.clone(), l.evicted_at);
            }
        }
    }
    for name in last_event.keys() {
        state.touch(name);
    }
    for claim in &mut state.snapshot.node_claims {
        if let Some(t) = claim.status.node_name.as_ref().and_then(|n| last_event.get(n)) {
            claim.status.last_pod_event_time = Some(claim.status.last_pod_event_time.map_or(*t, |old| old.max(*t)));
        }
    }
    state.in_flight[i].drained = true;
}

/// The nodes are gone: their Node and NodeClaim, and the pods that went with them (DaemonSet
/// and mirror pods, which nothing moves).
fn remove_nodes(state: &mut State, names: &[String]) {
    for name in names {
        state.touch(name);
    }
    let gone: BTreeSet<&str> = names.iter().map(String::as_str).collect();
    state.snapshot.nodes.retain(|n| !gone.contains(n.metadata.name.as_str()));
    state.snapshot.node_claims.retain(|c| !c.status.node_name.as_deref().is_some_and(|n| gone.contains(n)));
    // They end, as the pod garbage collector ends them: unbound and Failed, which no replay
    // places or counts (kept in place so the pod index stays valid).
    for name in names {
        for i in state.unbind_node(name) {
            state.end_pod(i);
        }
    }
}
