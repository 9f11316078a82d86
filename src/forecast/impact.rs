//! Who pays for the cascade: per workload, the evictions, each time it went to zero ready
//! replicas and for how long, and the nodes it was moved off.
//!
//! Evictions go through the eviction API, which lets a pod go only while its budget's
//! `status.disruptionsAllowed` is positive (kubernetes `pkg/registry/core/pod/storage/eviction.go`
//! `checkAndDecrement`); the termination controller retries the refused ones (karpenter
//! `pkg/controllers/node/termination/terminator/eviction.go`). So a workload's pods on the
//! drained nodes leave as one ledger per budget, kept across every drain in flight, lets them
//! ([`super::disruptions`]): in waves, each once earlier copies are Ready; a budget at 0 stalls
//! the drain until the NodeClaim's `terminationGracePeriod` ends it; without a budget they leave
//! at once. A wave that takes every ready pod leaves the workload at zero ready replicas for its
//! pods' startup, estimated as `explain` and `plan` estimate it ([`crate::audit::impact`]: the
//! median start → Ready of its own pods, else `--pod-startup`).

use std::collections::{BTreeMap, BTreeSet};

use foldhash::HashMap;
use jiff::{SignedDuration, Timestamp};

use super::clock::Delays;
use super::disruptions::Ask;
use super::state::{Landing, State};
use crate::audit::impact::{startup_of, Startup};
use crate::snapshot::{is_true, Pod, Snapshot};

/// Every pod's workload, resolved once at the start (the disruption controller's finders:
/// kubernetes `pkg/controller/disruption/disruption.go` `finders` — a ReplicaSet owned by a
/// Deployment counts as the Deployment).
#[derive(Debug, Clone)]
pub(crate) struct Workloads {
    of_pod: HashMap<String, usize>,
    pub names: Vec<String>,
    pub pods: Vec<Vec<String>>,
    pub startup: Vec<Startup>,
}

/// Each ReplicaSet's Deployment, by (namespace, ReplicaSet name).
fn deployments_of_replica_sets(snapshot: &Snapshot) -> HashMap<(&str, &str), &str> {
    snapshot
        .replica_sets
        .iter()
        .filter_map(|rs| {
            let parent = rs.metadata.controller().filter(|o| o.kind == "Deployment")?;
            Some(((rs.metadata.namespace(), rs.metadata.name.as_str()), parent.name.as_str()))
        })
        .collect()
}

/// `pod`'s workload, `Kind/namespace/name`: its controller, a ReplicaSet's Deployment for the
/// ReplicaSet, and without the ReplicaSet its name less the pod-template-hash (as `pdb-audit`).
fn workload_of(pod: &Pod, deployment_of: &HashMap<(&str, &str), &str>) -> String {
    let ns = pod.metadata.namespace();
    match pod.metadata.controller() {
        None => format!("Pod/{ns}/{}", pod.metadata.name),
        Some(o) if o.kind == "ReplicaSet" => match deployment_of.get(&(ns, o.name.as_str())) {
            Some(d) => format!("Deployment/{ns}/{d}"),
            None => match pod
                .metadata
                .labels
                .get("pod-template-hash")
                .and_then(|h| o.name.strip_suffix(h.as_str())?.strip_suffix('-'))
            {
                Some(d) if !d.is_empty() => format!("Deployment/{ns}/{d}"),
                _ => format!("ReplicaSet/{ns}/{}", o.name),
            },
        },
        Some(o) => format!("{}/{ns}/{}", o.kind, o.name),
    }
}

/// The pods (`ns/name`, in the snapshot's order) of workload `id` (`Kind/namespace/name`), as
/// [`Workloads::new`] groups them, reading only the pods of its namespace: what a what-if on one
/// workload needs, without naming every workload of the cluster.
pub(crate) fn pods_of_workload(snapshot: &Snapshot, id: &str) -> Vec<String> {
    let Some(ns) = id.split('/').nth(1) else { return Vec::new() };
    let deployment_of = deployments_of_replica_sets(snapshot);
    snapshot
        .pods
        .iter()
        .filter(|p| p.metadata.namespace() == ns && !ends_with_node(p))
        .filter(|p| workload_of(p, &deployment_of) == id)
        .map(|p| p.metadata.key())
        .collect()
}

impl Workloads {
    pub(crate) fn new(snapshot: &Snapshot, default_startup: SignedDuration) -> Workloads {
        let deployment_of = deployments_of_replica_sets(snapshot);
        let mut by_name: BTreeMap<String, Vec<&Pod>> = BTreeMap::new();
        for pod in snapshot.pods.iter().filter(|p| !ends_with_node(p)) {
            by_name.entry(workload_of(pod, &deployment_of)).or_default().push(pod);
        }
        let mut out =
            Workloads { of_pod: HashMap::default(), names: Vec::new(), pods: Vec::new(), startup: Vec::new() };
        for (i, (name, pods)) in by_name.into_iter().enumerate() {
            for p in &pods {
                out.of_pod.insert(p.metadata.key(), i);
            }
            out.startup.push(startup_of(&pods, default_startup));
            out.pods.push(pods.iter().map(|p| p.metadata.key()).collect());
            out.names.push(name);
        }
        out
    }

    pub(crate) fn of(&self, pod: &str) -> Option<usize> {
        self.of_pod.get(pod).copied()
    }
}

/// One workload's bill.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct WorkloadHarm {
    pub workload: String,
    pub evictions: usize,
    pub zero_ready_times: usize,
    pub zero_ready_for: SignedDuration,
    /// The nodes its pods were moved off.
    pub nodes: BTreeSet<String>,
    pub startup: Startup,
    /// Pods that found no place: the workload stays short until the end.
    pub pending: usize,
    /// Ready replicas when its first pod was evicted, and each change after (a pod evicted,
    /// a moved pod Ready again): the strip of ready replicas over time.
    pub ready_before: usize,
    pub ready_changes: Vec<(Timestamp, i64)>,
    /// When the ledger counts it at zero ready (`None`: until the end): what the strip marks,
    /// so the strip and `zero_ready_for` cannot disagree.
    pub zero_spans: Vec<(Timestamp, Option<Timestamp>)>,
    down_since: Option<Timestamp>,
}

/// What a drain's plan does with its pods.
#[derive(Debug, Clone, Default)]
pub(crate) struct Evictions {
    /// The pods that go: when, and where their copies land.
    pub landing: Vec<Landing>,
    /// The pods nothing ever lets go (positions): they hold their node.
    pub held: Vec<usize>,
}

/// A pod's `terminationGracePeriodSeconds`, or the default when it sets none.
pub(crate) fn pod_grace(pod: &Pod, delays: &Delays) -> SignedDuration {
    pod.spec.termination_grace_period_seconds.map_or(delays.termination_grace.value, SignedDuration::from_secs)
}

/// The ledger of harm, by workload.
#[derive(Debug, Clone, Default)]
pub(crate) struct Harm {
    by_workload: BTreeMap<usize, WorkloadHarm>,
}

impl Harm {
    /// Plans the evictions of `moving` (pod position, destination) from `drain_at` and records
    /// what they cost each workload. Each pod goes when the ledger of the budget that selects it
    /// lets it ([`super::disruptions`]), or, on a node whose NodeClaim has a
    /// `terminationGracePeriod` (`deadlines`: when it runs out), when the termination controller
    /// deletes it whatever the budgets say: its own grace before the deadline, at once when that
    /// is already past (karpenter `terminator.go` `DeleteExpiringPods`,
    /// `podDeleteTimeWithGracePeriod`). A pod selected by several budgets is never evicted (the
    /// eviction API refuses it). Pods nothing lets go are returned as held.
    pub(crate) fn evict(
        &mut self,
        state: &mut State,
        workloads: &Workloads,
        moving: &[(usize, Option<String>)],
        drain_at: Timestamp,
        deadlines: &BTreeMap<String, Timestamp>,
        delays: &Delays,
    ) -> Evictions {
        let mut groups: BTreeMap<Option<usize>, Vec<&(usize, Option<String>)>> = BTreeMap::new();
        for m in moving {
            groups.entry(workloads.of(&state.snapshot.pods[m.0].metadata.key())).or_default().push(m);
        }
        let mut out = Evictions::default();
        for (w, mut members) in groups {
            members.sort_by_cached_key(|(p, _)| state.snapshot.pods[*p].metadata.key());
            let startup = w.map_or(delays.pod_startup.value, |w| workloads.startup[w].duration);
            let ready_before = w.map_or(members.len(), |w| {
                workloads.pods[w]
                    .iter()
                    .filter_map(|k| state.pod_index.get(k))
                    .filter(|&&i| is_true(&state.snapshot.pods[i].status.conditions, "Ready"))
                    .count()
            });
            let mut waves: BTreeMap<Timestamp, (usize, bool)> = BTreeMap::new();
            let mut ready_changes = Vec::new();
            let mut evicted: Vec<&(usize, Option<String>)> = Vec::new();
            for m in members {
                let (p, to) = m;
                let healthy = is_true(&state.snapshot.pods[*p].status.conditions, "Ready");
                let ask = Ask { healthy, startup: to.is_some().then_some(startup) };
                let pdbs = state.pdbs_of(*p);
                let evictable = match pdbs.as_slice() {
                    [] => Some(drain_at),
                    [one] => state.ledger.earliest(*one, drain_at, ask),
                    _ => None,
                };
                let pod = &state.snapshot.pods[*p];
                let deleted = pod.spec.node_name.as_ref().and_then(|n| deadlines.get(n)).map(|deadline| {
                    let grace = pod_grace(pod, delays);
                    (*deadline - grace).max(drain_at)
                });
                let at = match (evictable, deleted) {
                    (Some(e), Some(d)) => Some(e.min(d)),
                    (e, d) => e.or(d),
                };
                let Some(evicted_at) = at else {
                    out.held.push(*p);
                    continue;
                };
                state.ledger.record(&pdbs, evicted_at, healthy, to.is_some().then(|| evicted_at + startup));
                if healthy {
                    ready_changes.push((evicted_at, -1));
                }
                if to.is_some() {
                    ready_changes.push((evicted_at + startup, 1));
                }
                out.landing.push(Landing {
                    pod: state.snapshot.pods[*p].metadata.key(),
                    to: to.clone(),
                    evicted_at,
                    ready_at: evicted_at + startup,
                });
                let e = waves.entry(evicted_at).or_insert((0, false));
                e.0 += 1;
                e.1 |= to.is_none();
                evicted.push(m);
            }
            let members = evicted;
            let Some(w) = w.filter(|_| !members.is_empty()) else { continue };
            let entry = self.by_workload.entry(w).or_insert_with(|| WorkloadHarm {
                workload: workloads.names[w].clone(),
                evictions: 0,
                zero_ready_times: 0,
                zero_ready_for: SignedDuration::ZERO,
                nodes: BTreeSet::new(),
                startup: workloads.startup[w],
                pending: 0,
                ready_before,
                ready_changes: Vec::new(),
                zero_spans: Vec::new(),
                down_since: None,
            });
            entry.ready_changes.extend(ready_changes);
            entry.evictions += members.len();
            entry.pending += members.iter().filter(|(_, to)| to.is_none()).count();
            entry.nodes.extend(members.iter().filter_map(|(p, _)| state.snapshot.pods[*p].spec.node_name.clone()));
            let lost_for_good = entry.pending;
            for (at, (count, any_pending)) in waves {
                if ready_before > 0 && count >= ready_before {
                    entry.zero_ready_times += 1;
                    if any_pending && lost_for_good >= ready_before {
                        entry.down_since.get_or_insert(at);
                        entry.zero_spans.push((at, None));
                    } else {
                        entry.zero_ready_for += startup;
                        entry.zero_spans.push((at, Some(at + startup)));
                    }
                }
            }
        }
        out
    }

    /// The bill at `end`, most harmful first: longest at zero ready, then most often, then
    /// most evictions, then by name.
    pub(crate) fn finish(self, end: Timestamp) -> Vec<WorkloadHarm> {
        let mut out: Vec<WorkloadHarm> = self
            .by_workload
            .into_values()
            .map(|mut h| {
                if let Some(since) = h.down_since.take() {
                    h.zero_ready_for += since.duration_until(end).max(SignedDuration::ZERO);
                }
                h
            })
            .collect();
        out.sort_by(|a, b| {
            b.zero_ready_for
                .cmp(&a.zero_ready_for)
                .then(b.zero_ready_times.cmp(&a.zero_ready_times))
                .then(b.evictions.cmp(&a.evictions))
                .then_with(|| a.workload.cmp(&b.workload))
        });
        out
    }
}
/// Pods the drain leaves where they are (they end with the node).
pub(crate) fn ends_with_node(p: &crate::snapshot::Pod) -> bool {
    crate::engine::pod::is_owned_by_daemonset(p) || crate::engine::pod::is_mirror(p)
}
