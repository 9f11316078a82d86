//! No upstream twin: what a forecast knows of each pod of its snapshot once and for all, by
//! position in `snapshot.pods` — the PDBs that select it, and the facts of its spec and
//! metadata the candidacy gates read (its owners, tolerations, annotations, priority).
//!
//! None of these changes in a forecast: it changes a pod's binding and status, never its
//! labels, owners, tolerations, annotations or priority, nor a PDB's selector; it only appends
//! pods (a replacement's DaemonSet copies), so the table is extended, never recomputed. What
//! does change — the phase, the deletion timestamp, Ready — is read from the pod each time.

use crate::engine::cost::eviction_cost;
use crate::engine::pod;
use crate::snapshot::Pod;

#[derive(Debug, Clone, Default)]
pub(crate) struct PodTable(Vec<Row>);

#[derive(Debug, Clone)]
struct Row {
    /// Positions in `snapshot.pdbs` of the PDBs selecting the pod, ascending.
    pdbs: Box<[usize]>,
    facts: PodFacts,
}

/// The fixed facts of one pod.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PodFacts {
    daemonset: bool,
    mirror: bool,
    statefulset: bool,
    tolerates_disrupted_taint: bool,
    do_not_disrupt_annotation: bool,
    required_anti_affinity: bool,
    /// [`eviction_cost`]'s `cost`.
    eviction_cost: f64,
}

impl PodFacts {
    fn of(p: &Pod) -> Self {
        PodFacts {
            daemonset: pod::is_owned_by_daemonset(p),
            mirror: pod::is_mirror(p),
            statefulset: pod::is_owned_by_statefulset(p),
            tolerates_disrupted_taint: pod::tolerates_disrupted_taint(p),
            do_not_disrupt_annotation: p.metadata.annotations.contains_key(crate::engine::labels::DO_NOT_DISRUPT),
            required_anti_affinity: pod::has_required_anti_affinity(p),
            eviction_cost: eviction_cost(p).cost,
        }
    }

    /// [`pod::is_reschedulable`], with the pod's fixed facts from the table and whether it is
    /// active and terminating now.
    pub(crate) fn is_reschedulable(self, active: bool, terminating: bool) -> bool {
        (active || (self.statefulset && terminating)) && !self.daemonset && !self.mirror
    }

    /// [`pod::is_evictable`], likewise (the pod is read only for an active do-not-disrupt
    /// annotation).
    pub(crate) fn is_evictable(self, active: bool, p: &Pod, now: jiff::Timestamp, durations: bool) -> bool {
        let held = || self.do_not_disrupt_annotation && pod::is_do_not_disrupt_active(p, now, durations);
        active && !self.tolerates_disrupted_taint && !self.mirror && !held()
    }

    pub(crate) fn is_owned_by_daemonset(self) -> bool {
        self.daemonset
    }

    pub(crate) fn has_required_anti_affinity(self) -> bool {
        self.required_anti_affinity
    }

    pub(crate) fn has_do_not_disrupt_annotation(self) -> bool {
        self.do_not_disrupt_annotation
    }

    pub(crate) fn eviction_cost(self) -> f64 {
        self.eviction_cost
    }
}

impl PodTable {
    /// Adds the pods of `pods` the table does not cover yet; starts over if `pods` shrank.
    /// `matcher` gives the positions of the PDBs selecting a pod; it is built only when there
    /// is a pod to add (`pdb.rs` `PodTable::cover` passes `Limits::positions`).
    pub(crate) fn cover_with<M: Fn(&Pod) -> Vec<usize>>(&mut self, pods: &[Pod], matcher: impl FnOnce() -> M) {
        if self.0.len() > pods.len() {
            self.0.clear();
        }
        if self.0.len() == pods.len() {
            return;
        }
        let positions = matcher();
        let from = self.0.len();
        self.0
            .extend(pods[from..].iter().map(|p| Row { pdbs: positions(p).into_boxed_slice(), facts: PodFacts::of(p) }));
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    /// The PDBs selecting the pod at `position`.
    pub(crate) fn pdbs_of(&self, position: usize) -> &[usize] {
        self.0.get(position).map_or(&[], |r| &r.pdbs)
    }

    /// The facts of the pod at `position`.
    pub(crate) fn facts_of(&self, position: usize) -> Option<PodFacts> {
        self.0.get(position).map(|r| r.facts)
    }
}

/// The position of `pod` in `pods` when it is one of them (by address, not by content).
pub(crate) fn position_in(pods: &[Pod], pod: &Pod) -> Option<usize> {
    let size = std::mem::size_of::<Pod>().max(1);
    let offset = (std::ptr::from_ref(pod) as usize).checked_sub(pods.as_ptr() as usize)?;
    let at = offset / size;
    std::ptr::eq(pods.get(at)?, pod).then_some(at)
}
