//! No upstream twin (speed): the pods every simulation of a replay places, worked out once.
//!
//! `SimulateScheduling` (`disruption/helpers.go`) places the pending pods and the pods of every
//! deleting node in each candidate's simulation, beside the candidate's own pods. `plan` runs a
//! simulation per node, so placing those shared pods again each time grows as nodes × shared
//! pods. Instead, a [`Baseline`] places them once with no candidate removed, and a candidate's
//! simulation takes a shared pod's first attempt from it whenever the candidate provably
//! cannot have changed the outcome (see [`Tracker`]); otherwise the pod is placed as usual.
//! The placements are the same either way; only the work differs.
//!
//! Why a baseline placement carries over. Only first attempts are reused: in the first pass over
//! the queue each pod is tried once, in the sorted order, so a shared pod comes up after the
//! same shared pods as in the baseline, plus some of the candidates' own. The first-fit search
//! takes the first node in the destination order that accepts the pod, and whether a node
//! accepts it depends only on the pod, its topology rules and what the simulation put on that
//! node so far. So if the pod's rules read the same counts as in the baseline (no pod its terms
//! select left a candidate or sits elsewhere than in the baseline, no pod that sits elsewhere
//! has a required anti-affinity term selecting it, no candidate holds one), every node holding
//! the same pods as then answers as then: each refused, up to the baseline's destination `L`,
//! which took the pod. Only the nodes whose pods differ are asked again: each one before `L`
//! that lost a pod must still refuse, and `L`, if it holds a pod it did not hold then, must still
//! accept (one that only lost pods still has the room, ports and attach slots it had). A node
//! before `L` that only gained pods needs no asking: it refused the pod then, and every check
//! it failed refuses at least as much with more pods on it (room, host ports, attach slots, the
//! anti-affinity of the pods it holds; its labels and taints never change, and the rules read
//! the same counts). A node outside the pod's static fit (its labels and taints refuse the pod)
//! is never one the first-fit search tries. A removed `L` is never reused. `shared_pods/tests.rs`
//! checks the claim against the pod-by-pod pass on random clusters, and that dropping any one of
//! these conditions breaks it.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::BTreeSet;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use crate::engine::incremental::pod_index::PodIndex;
use crate::engine::incremental::pod_requests::address;
use crate::engine::incremental::world::World;
use crate::engine::scheduling::scheduler::options::Options;
use crate::engine::scheduling::scheduler::{Landing, Simulation};
use crate::engine::scheduling::topology::{PodFilter, Rules};
use crate::snapshot::Pod;

pub(crate) use self::baseline::Baseline;
pub(in crate::engine) use self::baseline::Tracker;
use self::baseline::{First, SharedPod};

impl Baseline {
    pub(in crate::engine) fn new(world: &World<'_, '_>, consolidation: bool) -> Self {
        // No candidate: the queue is exactly the shared pods, in the order every simulation
        // tries them among its own.
        let mut sim = Simulation::new(world, &[], Options { consolidation, ..Options::default() });
        let queue = std::mem::take(&mut sim.queue);
        let mut pods = HashMap::with_capacity(queue.len());
        for &(pod, ..) in &queue {
            let rules = sim.rules(pod, pod);
            let (outcome, tried) = sim.try_schedule(pod);
            let (first, rules) = match Simulation::landing(&outcome) {
                Some(Landing::Node(node)) => (First::Node(node), matches!(tried, Cow::Borrowed(_)).then_some(rules)),
                Some(Landing::Claim(_)) => (First::Claim, None),
                None => (First::Nowhere, None),
            };
            let mut holders: Vec<usize> =
                world.anti_affinity_groups.selecting(pod).flat_map(|g| g.nodes.iter().copied()).collect();
            holders.sort_unstable();
            holders.dedup();
            pods.insert(address(pod), SharedPod { first, rules, terms: world.pod_terms(pod), holders });
        }
        let mut position = vec![0; world.nodes.len()];
        for (p, &i) in world.order.iter().enumerate() {
            position[i] = p;
        }
        Baseline { pods, position }
    }
}

impl<'a> Tracker<'a> {
    /// For a simulation of `candidates` with `options` whose queue holds `shared` shared pods,
    /// when there are shared pods to reuse.
    pub(in crate::engine) fn new(
        world: &World<'_, 'a>,
        candidates: &[usize],
        options: Options,
        shared: usize,
    ) -> Option<Self> {
        let no_shared = shared == 0;
        // The detail's fit figures read the free room as the search found it, and a deleting
        // candidate's pods are shared in the baseline but the candidate's own here.
        if no_shared || candidates.is_empty() || options.detail || candidates.iter().any(|&c| world.is_deleting(c)) {
            return None;
        }
        Some(Tracker {
            baseline: world.shared_baseline(options.consolidation),
            candidates: candidates.to_vec(),
            moved: PodIndex::new([], Some(std::sync::Arc::clone(&world.selector_keys))),
            moved_anti: Vec::new(),
            emptier: BTreeSet::new(),
            seen_filters: RefCell::default(),
            fuller: HashSet::new(),
            shared_left: shared,
            reused: 0,
        })
    }
}

impl<'a> Simulation<'_, '_, 'a> {
    /// The baseline's existing node for a shared pod's first attempt, when it provably takes
    /// the pod here too (see the module's comment).
    pub(in crate::engine) fn reusable_destination(&self, pod: &'a Pod) -> Option<usize> {
        let tracker = self.shared.as_ref()?;
        let shared = tracker.baseline.pods.get(&address(pod))?;
        let (First::Node(node), Some(rules)) = (shared.first, shared.rules.as_ref()) else { return None };
        if self.excluded[node] || self.topology_moved_for(tracker, shared, pod) {
            return None;
        }
        // Only the nodes before `L` that lost a pod can take it now (see the module's comment),
        // and only those in its static fit are ever tried; most are full again, which
        // `has_room` settles before anything else is read.
        let before = tracker.baseline.position[node];
        if tracker.emptier.range(..before).next().is_none() && !tracker.fuller.contains(&node) {
            return Some(node);
        }
        let requests = self.world.requests(pod);
        let milli = |k: &str| requests.get(k).map_or(0, |q| q.milli());
        let (cpu, memory) = (milli("cpu"), milli("memory"));
        let fit = self.world.pod_fit(pod);
        let earlier = tracker.emptier.range(..before).filter(|&&p| fit.fits.contains(p));
        let earlier = earlier.map(|&p| self.world.order[p]).filter(|&i| self.has_room(i, cpu, memory));
        let mut asked = earlier.map(|i| (i, false)).chain(tracker.fuller.contains(&node).then_some((node, true)));
        let Some(first) = asked.next() else { return Some(node) };
        // The rules are the baseline's (the counts they read are unchanged); `L` passed them
        // there, and a node's domains never change.
        let no_rules = Rules::default();
        let accepts = |i: usize| {
            let passes = |rules: &Rules| self.can_add_existing(i, pod, &requests, &fit.requirements, rules).is_ok();
            !self.excluded[i] && self.has_room(i, cpu, memory) && passes(&no_rules) && (i == node || passes(rules))
        };
        std::iter::once(first).chain(asked).all(|(i, should_accept)| accepts(i) == should_accept).then_some(node)
    }

    /// Whether the counts or the existing anti-affinity the pod's rules read may differ from
    /// the baseline's: a pod its terms select left a candidate or sits elsewhere, a pod that
    /// sits elsewhere has a required anti-affinity term selecting it, or a candidate holds a
    /// pod whose term selects it.
    fn topology_moved_for(&self, tracker: &Tracker<'a>, shared: &SharedPod, pod: &'a Pod) -> bool {
        shared.terms.filters().any(|f| self.selects_a_moved_pod(tracker, f))
            || tracker.moved_anti.iter().any(|t| t.required_anti.iter().any(|(_, f)| f.matches(pod)))
            || tracker.candidates.iter().any(|c| shared.holders.binary_search(c).is_ok())
    }

    /// Whether `filter` selects a pod that left a candidate or sits elsewhere than in the
    /// baseline. Siblings share their terms, so the answer is kept per filter: the candidates'
    /// pods never change during a simulation and the moved pods are only ever appended, so a
    /// filter that selected none is asked again only about the pods moved since.
    fn selects_a_moved_pod(&self, tracker: &Tracker<'a>, filter: &PodFilter) -> bool {
        let key = std::ptr::from_ref(filter) as usize;
        let mut seen = tracker.seen_filters.borrow_mut();
        let moved = tracker.moved.len();
        let (selects, asked) = *seen
            .entry(key)
            .or_insert_with(|| (self.gone.iter().any(|&i| self.world.pods_on(i).any_matching(filter)), 0));
        if selects || asked == moved {
            return selects;
        }
        let selects = if asked == 0 {
            tracker.moved.any_matching(filter)
        } else {
            tracker.moved.any_matching_since(filter, asked)
        };
        seen.insert(key, (selects, moved));
        selects
    }

    /// Records a first attempt's landing against the baseline: `shared` pods that went where
    /// they went there change nothing.
    pub(in crate::engine) fn track_first_attempt(&mut self, pod: &'a Pod, shared: bool, landed: Option<Landing>) {
        let Some(tracker) = self.shared.as_ref().filter(|t| t.shared_left > 0) else { return };
        let mut emptier = None;
        if shared {
            let first = tracker.baseline.pods.get(&address(pod)).map_or(First::Nowhere, |p| p.first);
            match (first, landed) {
                (First::Node(node), Some(Landing::Node(i))) if node == i => return,
                (First::Nowhere, None) => return,
                (First::Node(node), _) => emptier = Some(node),
                _ => {}
            }
        } else if landed.is_none() {
            // A candidate's pod that stays nowhere has only left its domains (`gone`).
            return;
        }
        let fuller = match landed {
            Some(Landing::Node(i)) => Some(i),
            _ => None,
        };
        let emptier = emptier.map(|i| tracker.baseline.position[i]);
        let terms = self.world.pod_terms(pod);
        let Some(tracker) = self.shared.as_mut() else { return };
        tracker.emptier.extend(emptier);
        tracker.fuller.extend(fuller);
        tracker.moved.push((), pod);
        if !terms.required_anti.is_empty() {
            tracker.moved_anti.push(terms);
        }
    }

    /// Counts a shared pod's first attempt (before it is tracked: the last one changes nothing
    /// that is still to come).
    pub(in crate::engine) fn shared_attempted(&mut self) {
        if let Some(tracker) = self.shared.as_mut() {
            tracker.shared_left = tracker.shared_left.saturating_sub(1);
        }
    }
}

pub(in crate::engine) mod baseline;
#[cfg(test)]
mod tests;
