//! JUDGEMENT, PURE: the verified fix beside the impact. For each workload a replay sends to zero
//! ready replicas (or below its PodDisruptionBudget's intent), the fixes of [`candidates`], each
//! **replayed** as a what-if (`--set`, `src/whatif.rs`) before it is offered: a fix is offered
//! only when, in its replay, that workload is no longer harmed and no other workload is newly
//! harmed. Each offered fix carries what it protects (the harmed workloads its replay spares),
//! what it costs against the unfixed replay (savings lost, $/h, and the nodes the unfixed replay
//! disrupts that its replay keeps) and the `kubectl` commands that make it ([`commands`]).
//!
//! One engine for every command: `plan`, `explain` and `pdb-audit` judge with [`Round`] (the
//! disruption controller's round, karpenter `pkg/controllers/disruption/controller.go`
//! `Reconcile`); `forecast` with its own rounds. The work is bounded: at most
//! [`MAX_WORKLOADS`] harmed workloads are prescribed and [`MAX_REPLAYS`] replays spent (a fix
//! shared by several workloads, such as a NodePool's, is replayed once). No I/O, deterministic.

pub(crate) mod candidates;
pub(crate) mod commands;
pub(crate) mod forecast;
#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use crate::audit::impact::{PdbEffect, WorkloadImpact};
use crate::engine::nodepool::DisruptionReason;
use crate::engine::observe::Observer;
use crate::snapshot::Snapshot;

/// Harmed workloads prescribed at most, most severe first; the rest are listed as not replayed.
pub(crate) const MAX_WORKLOADS: usize = 5;
/// Replays spent at most on one report's fixes.
pub(crate) const MAX_REPLAYS: usize = 16;

/// The kinds of fix, in the order they are tried (and offered, at equal cost).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum FixKind {
    Replicas,
    Pdb,
    DoNotDisrupt,
    NodePool,
}

impl FixKind {
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            FixKind::Replicas => "replicas",
            FixKind::Pdb => "pdb",
            FixKind::DoNotDisrupt => "do-not-disrupt",
            FixKind::NodePool => "nodepool",
        }
    }
}

/// A harmed workload, as the fixes need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Harmed {
    /// `Kind/namespace/name`.
    pub workload: String,
    pub kind: String,
    pub namespace: String,
    pub name: String,
    pub replicas: i32,
    /// Its pods on the disrupted nodes (`ns/name`).
    pub pods: Vec<String>,
    pub nodes: Vec<String>,
    /// The one PodDisruptionBudget over its pods (`ns/name`).
    pub pdb: Option<String>,
}

impl Harmed {
    pub(crate) fn of(w: &WorkloadImpact) -> Harmed {
        Harmed {
            workload: w.key(),
            kind: w.kind.clone(),
            namespace: w.namespace.clone(),
            name: w.name.clone(),
            replicas: w.replicas,
            pods: w.pods.clone(),
            nodes: w.nodes.clone(),
            pdb: match &w.pdb {
                PdbEffect::Allows { pdb, .. } => Some(pdb.clone()),
                _ => None,
            },
        }
    }
}

/// What one replay says, as far as a prescription reads it.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Outcome {
    /// The harmed workloads (`Kind/ns/name`).
    pub harmed: BTreeSet<String>,
    /// What the replay's commands save, $/h.
    pub savings: f64,
    /// The nodes its commands disrupt, and why.
    pub disrupted: BTreeMap<String, DisruptionReason>,
}

/// A replay a fix is judged by. `Sync`: the fixes are replayed on several threads.
pub(crate) trait Judge: Sync {
    /// The outcome on `snapshot`, a copy the judge owns (a forecast runs on it in place).
    fn judge(&self, snapshot: Snapshot) -> Outcome;
    /// Replays spent at most on one report's fixes.
    fn replays(&self) -> usize {
        MAX_REPLAYS
    }
}

/// The disruption controller's round (what `plan` shows): its commands, and the impact of
/// disrupting their candidates ([`crate::audit::impact`]).
pub(crate) struct Round {
    pub now: jiff::Timestamp,
    pub pod_startup: jiff::SignedDuration,
}

impl Judge for Round {
    fn judge(&self, snapshot: Snapshot) -> Outcome {
        // The round without verdicts (no fix needs a node's own simulation), from a fresh cache.
        let replay =
            crate::engine::replay_round_with(&mut crate::engine::RoundCache::default(), &snapshot, self.now, None);
        round_outcome(&snapshot, &replay.commands, self.pod_startup)
    }
}

/// The outcome of a round's commands on `snapshot`.
pub(crate) fn round_outcome(
    snapshot: &Snapshot,
    commands: &[crate::engine::CommandView],
    pod_startup: jiff::SignedDuration,
) -> Outcome {
    let mut disrupted = BTreeMap::new();
    for c in commands {
        for node in &c.candidates {
            disrupted.entry(node.clone()).or_insert(c.reason);
        }
    }
    let nodes: BTreeSet<String> = disrupted.keys().cloned().collect();
    let impact = crate::audit::impact::impact(snapshot, &nodes, pod_startup);
    Outcome {
        harmed: impact.iter().filter(|w| is_harmed(snapshot, w)).map(WorkloadImpact::key).collect(),
        savings: commands.iter().map(|c| c.savings).sum::<f64>() + 0.0,
        disrupted,
    }
}

/// Harmed: sent to zero ready replicas, or left with fewer ready elsewhere than its budget's
/// `status.desiredHealthy` while the budget lets them all go (kubernetes
/// `pkg/controller/disruption/disruption.go` `updatePdbStatus` writes that intent).
pub(crate) fn is_harmed(snapshot: &Snapshot, w: &WorkloadImpact) -> bool {
    if w.zero_ready {
        return true;
    }
    let PdbEffect::Allows { pdb, .. } = &w.pdb else { return false };
    let desired = snapshot.pdbs.iter().find(|p| p.metadata.key() == *pdb).map_or(0, |p| p.status.desired_healthy);
    w.pdb_lets_all_go && usize::try_from(desired).unwrap_or(0) > w.ready_elsewhere
}

/// The fixes for the workloads a round's `commands` (replayed on `snapshot` at `now`) harm,
/// most severe first, each judged by the round ([`Round`]): what `plan` and `explain` print.
/// Only the workloads `wanted` keeps are prescribed (`explain`: those on its node).
pub(crate) fn for_round(
    snapshot: &Snapshot,
    commands: &[crate::engine::CommandView],
    now: jiff::Timestamp,
    pod_startup: jiff::SignedDuration,
    wanted: &dyn Fn(&str) -> bool,
    observer: &dyn Observer,
) -> Vec<Prescription> {
    let baseline = round_outcome(snapshot, commands, pod_startup);
    if baseline.harmed.is_empty() {
        return Vec::new();
    }
    let nodes: BTreeSet<String> = baseline.disrupted.keys().cloned().collect();
    let harmed: Vec<Harmed> = crate::audit::impact::impact(snapshot, &nodes, pod_startup)
        .iter()
        .filter(|w| baseline.harmed.contains(&w.key()) && wanted(&w.key()))
        .map(Harmed::of)
        .collect();
    if harmed.is_empty() {
        return Vec::new();
    }
    prescribe(snapshot, &Round { now, pod_startup }, &baseline, &harmed, now, observer)
}

/// [`for_round`] on the round replayed here (commands only, no node's verdict): `pdb-audit`.
pub(crate) fn for_current_round(
    snapshot: &Snapshot,
    now: jiff::Timestamp,
    pod_startup: jiff::SignedDuration,
    wanted: &dyn Fn(&str) -> bool,
    observer: &dyn Observer,
) -> Vec<Prescription> {
    let replay = crate::engine::replay_round_with(&mut crate::engine::RoundCache::default(), snapshot, now, None);
    for_round(snapshot, &replay.commands, now, pod_startup, wanted, observer)
}

/// A fix whose replay protects the workload.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Fix {
    pub kind: FixKind,
    pub change: String,
    pub what_if: Vec<String>,
    pub commands: Vec<String>,
    /// The harmed workloads its replay spares, this one first.
    pub protects: Vec<String>,
    /// Savings its replay loses against the unfixed replay, $/h (never negative).
    pub savings_lost: f64,
    /// Nodes the unfixed replay disrupts that its replay keeps.
    pub nodes_pinned: Vec<String>,
}

/// A fix tried and not offered, and why (what its replay showed).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Rejected {
    pub kind: FixKind,
    pub change: String,
    pub what_if: Vec<String>,
    pub why: String,
}

/// One harmed workload's fixes.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Prescription {
    pub workload: String,
    /// Offered, cheapest first (savings lost, then nodes pinned, then kind).
    pub fixes: Vec<Fix>,
    pub rejected: Vec<Rejected>,
    /// Not replayed, and why (over [`MAX_WORKLOADS`] or [`MAX_REPLAYS`]).
    pub not_replayed: Option<String>,
}

/// The fixes of every harmed workload in `harmed` (most severe first), judged by `judge`
/// against `baseline` (the unfixed replay of `snapshot`). Each fix's what-ifs are applied as
/// `--set` applies them at `now`, new pods included: the replicas a fix adds are placed by the
/// provisioner ([`apply_what_ifs`]), so the replay sees where they would run.
pub(crate) fn prescribe(
    snapshot: &Snapshot,
    judge: &dyn Judge,
    baseline: &Outcome,
    harmed: &[Harmed],
    now: jiff::Timestamp,
    observer: &dyn Observer,
) -> Vec<Prescription> {
    let prescribed = &harmed[..harmed.len().min(MAX_WORKLOADS)];
    let together = candidates::replicas_together(snapshot, prescribed);
    let tried: Vec<Vec<candidates::Candidate>> = prescribed
        .iter()
        .map(|h| {
            let mut tried = candidates::for_workload(snapshot, h, &baseline.disrupted);
            // The replicas fix of all the harmed workloads at once, after this one's own:
            // replayed once, listed under each workload it is for.
            let own = tried.iter().position(|c| c.kind == FixKind::Replicas);
            if let (Some(at), Some(t)) = (own, &together) {
                tried.insert(at + 1, t.clone());
            }
            tried
        })
        .collect();
    // Each distinct fix once, in the order the workloads try them, while the budget lasts.
    let budget = judge.replays();
    let mut wanted: Vec<&[String]> = Vec::new();
    for c in tried.iter().flatten() {
        if wanted.len() < budget && !wanted.contains(&c.what_if.as_slice()) {
            wanted.push(&c.what_if);
        }
    }
    let replays = replay_all(snapshot, judge, &wanted, now, observer);
    let mut out = Vec::new();
    for (i, h) in harmed.iter().enumerate() {
        let mut p = Prescription { workload: h.workload.clone(), ..Prescription::default() };
        let Some(tried) = tried.get(i) else {
            p.not_replayed = Some(format!("only the first {MAX_WORKLOADS} harmed workloads are replayed with fixes"));
            out.push(p);
            continue;
        };
        for c in tried {
            let Some(outcome) = replays.get(&c.what_if) else {
                p.not_replayed = Some(format!("the {budget} replays a report spends on fixes are spent"));
                break;
            };
            match outcome {
                Err(why) => p.rejected.push(rejected(c.clone(), format!("the what-if does not apply: {why}"))),
                Ok(after) => match verdict(h, baseline, after) {
                    Err(why) => p.rejected.push(rejected(c.clone(), why)),
                    Ok(()) => p.fixes.push(offered(c.clone(), &h.workload, baseline, after)),
                },
            }
        }
        p.fixes.sort_by(|a, b| {
            a.savings_lost
                .total_cmp(&b.savings_lost)
                .then_with(|| a.nodes_pinned.len().cmp(&b.nodes_pinned.len()))
                .then_with(|| a.kind.cmp(&b.kind))
        });
        out.push(p);
    }
    out
}

/// Pods a fix's copy of the snapshot has room for before its vector grows (a replicas fix adds
/// one per workload).
const POD_ROOM: usize = 64;

/// Replays run at once at most: each holds a whole copy of the snapshot (a 10,000-node one is
/// about half a GiB), so more threads buy wall time with memory the machine may not have.
const MAX_REPLAY_THREADS: usize = 2;

/// Each of `wanted` applied to its own copy of `snapshot` and judged, on up to
/// [`MAX_REPLAY_THREADS`] threads (each holds one copy at a time). The replays are independent and each is a pure
/// function of its what-ifs, so the answer is the same whatever the threads' order.
fn replay_all(
    snapshot: &Snapshot,
    judge: &dyn Judge,
    wanted: &[&[String]],
    now: jiff::Timestamp,
    observer: &dyn Observer,
) -> BTreeMap<Vec<String>, Result<Outcome, String>> {
    let done = std::sync::atomic::AtomicUsize::new(0);
    let replay = |what_if: &[String]| {
        let mut fixed = snapshot.clone_with_room(POD_ROOM);
        let outcome = apply_what_ifs(&mut fixed, what_if, now).map(|()| judge.judge(fixed));
        observer.fixes_replayed(done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1, wanted.len());
        outcome
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, std::num::NonZeroUsize::get)
        .min(MAX_REPLAY_THREADS)
        .min(wanted.len());
    if threads <= 1 {
        return wanted.iter().map(|w| (w.to_vec(), replay(w))).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(what_if) = wanted.get(i) else { break done };
                        done.push((what_if.to_vec(), replay(what_if)));
                    }
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    })
}

/// `what_if` applied as `--set` applies it (`prepare::apply_what_ifs`): the overrides
/// (`whatif.rs`), then the pods they add placed at `now` (`engine/provisioner.rs`).
pub(crate) fn apply_what_ifs(snapshot: &mut Snapshot, what_if: &[String], now: jiff::Timestamp) -> Result<(), String> {
    crate::engine::provisioner::apply_and_place(snapshot, now, |s| crate::whatif::apply(s, what_if)).map(|_| ())
}

/// Whether the replay `after` helps `h`: it is no longer harmed and no one newly is.
fn verdict(h: &Harmed, baseline: &Outcome, after: &Outcome) -> Result<(), String> {
    if after.harmed.contains(&h.workload) {
        return Err(format!("its replay still takes {} below its ready floor", h.workload));
    }
    let newly: Vec<&String> = after.harmed.difference(&baseline.harmed).collect();
    if let Some(first) = newly.first() {
        return Err(format!("its replay sends {first} to zero ready replicas instead"));
    }
    Ok(())
}

fn offered(c: candidates::Candidate, workload: &str, baseline: &Outcome, after: &Outcome) -> Fix {
    let mut protects = vec![workload.to_owned()];
    protects.extend(baseline.harmed.difference(&after.harmed).filter(|w| *w != workload).cloned());
    let lost = baseline.savings - after.savings;
    Fix {
        kind: c.kind,
        change: c.change,
        what_if: c.what_if,
        commands: c.commands,
        protects,
        savings_lost: if lost > 1e-9 { lost } else { 0.0 },
        nodes_pinned: baseline.disrupted.keys().filter(|n| !after.disrupted.contains_key(*n)).cloned().collect(),
    }
}

fn rejected(c: candidates::Candidate, why: String) -> Rejected {
    Rejected { kind: c.kind, change: c.change, what_if: c.what_if, why }
}
