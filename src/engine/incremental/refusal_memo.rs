//! No upstream twin: across a forecast's rounds, each SingleNode candidate's decision-only
//! refusal, kept while nothing its simulation reads has changed.
//!
//! Upstream judges every candidate from scratch in each `SingleNodeConsolidation.ComputeCommands`
//! (karpenter `pkg/controllers/disruption/singlenodeconsolidation.go`, `computeConsolidation` in
//! `consolidation.go`, `SimulateScheduling` in `helpers.go`). A forecast replays a round after
//! every step, and most steps change nothing a refused candidate's simulation reads: the clock
//! moved, some pods became Ready, a PDB's healthy count moved. Those rounds walk the same
//! candidates to the same refusals.
//!
//! A decision-only simulation of candidate `c` (`scheduling::simulate` with its node alone, no
//! gate lifted, then `consolidation.rs` `consolidate`) is a function of:
//! 1. every node as a destination (`BaseNode`: labels, taints, free room, pods in place,
//!    whether it is initialized), the nodes' order, and the pods bound to each — what the
//!    world's [`super::world_memo::BaseNodeMemo`] compares each round with what it kept;
//! 2. every pod's terminal and terminating bits (the round's status bytes), the pods appended
//!    (their count), the pending pods the simulation queues, the deleting nodes and the pods
//!    each sends into every simulation (its movers: which of them a do-not-disrupt annotation
//!    or a PDB holds reads the clock and the PDBs' status), and each node's
//!    `under_consolidate_after` (the clock): [`RoundShape`];
//! 3. the candidate's own movers (likewise gated by the clock and the PDBs) and its price:
//!    [`CandidateKey`];
//! 4. what a forecast never changes: the NodePools, the instance types and prices, the
//!    DaemonSets, the volumes, each pod's spec, labels and owners, the settings and rules (the
//!    same premise as [`super::world_memo`]'s).
//!
//! A *generation* names a stretch of rounds over which 1 held (every node's parts reused, the
//! same nodes) and 2 was the same; a refusal kept in the current generation under the same
//! candidate key is the answer the simulation would give. Whatever is checked before the
//! simulation — the pool's budget, the Balanced pre-cut, the candidacy gates — is judged anew
//! each round by the caller, so budgets need no place in the key: they decide whether the
//! memo is asked at all, never what it answers. Debug builds simulate again on every hit and
//! assert the same refusal (`single_node.rs`).

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;

use foldhash::HashMap;

use crate::reason::Reason;

/// Shared by the memo a forecast keeps ([`super::world_memo::WorldMemo`]) and each round's world.
pub(in crate::engine) type KeptRefusals = Rc<RefCell<RefusalMemo>>;

/// See the module's comment.
#[derive(Debug, Default)]
pub(in crate::engine) struct RefusalMemo {
    /// What the current generation's refusals read beyond the nodes; `None` until a round of
    /// the generation takes it.
    shape: Option<RoundShape>,
    /// Whether this round's shape has been compared with the generation's.
    shape_checked: bool,
    /// The current generation's refusals, per node index (stable within a generation: the
    /// same nodes, sorted by name).
    by_node: HashMap<usize, KeptRefusal>,
    /// Hits since the memo was made (read by tests).
    hits: usize,
}

#[derive(Debug)]
struct KeptRefusal {
    key: CandidateKey,
    reason: Reason,
}

/// What the decision-only simulation reads of the round beyond its nodes (point 2 of the
/// module's comment). Pods by position in `snapshot.pods`; the world builds it
/// (`World::round_shape`).
#[derive(Debug, PartialEq, Eq)]
pub(in crate::engine) struct RoundShape {
    pub(in crate::engine) pods: usize,
    pub(in crate::engine) status: Option<Arc<[u8]>>,
    pub(in crate::engine) pending: Vec<Option<usize>>,
    pub(in crate::engine) deleting: Vec<usize>,
    pub(in crate::engine) deleting_movers: Vec<Vec<Option<usize>>>,
    pub(in crate::engine) under_consolidate_after: Vec<bool>,
}

/// What the decision-only simulation reads of its candidate beyond its node (point 3): the
/// pods its gates hold (so the movers, given its pods) and its price. The world builds it
/// (`World::candidate_key`).
#[derive(Debug, PartialEq, Eq)]
pub(in crate::engine) struct CandidateKey {
    held: Vec<Option<usize>>,
    price: Option<u64>,
}

impl CandidateKey {
    /// The key of a candidate whose gates hold the pods at `held` (positions in
    /// `snapshot.pods`), priced at `price`.
    pub(in crate::engine) fn new(held: Vec<Option<usize>>, price: Option<f64>) -> Self {
        CandidateKey { held, price: price.map(f64::to_bits) }
    }
}

impl RefusalMemo {
    /// Starts a round whose world's nodes are (or are not) all reused from the last round's,
    /// the same nodes in the same order: if not, nothing kept holds any more.
    pub(in crate::engine) fn begin_round(&mut self, nodes_unchanged: bool) {
        if !nodes_unchanged {
            self.new_generation();
            self.shape = None;
        }
        self.shape_checked = false;
    }

    /// The refusal kept for node `i` under `key`, if the round's shape is the generation's.
    pub(in crate::engine) fn get(
        &mut self,
        shape: impl FnOnce() -> RoundShape,
        i: usize,
        key: &CandidateKey,
    ) -> Option<Reason> {
        self.check_shape(shape);
        let kept = self.by_node.get(&i).filter(|k| k.key == *key)?;
        self.hits += 1;
        Some(kept.reason.clone())
    }

    /// Keeps node `i`'s refusal under `key` for the later rounds of this generation.
    pub(in crate::engine) fn keep(
        &mut self,
        shape: impl FnOnce() -> RoundShape,
        i: usize,
        key: CandidateKey,
        reason: Reason,
    ) {
        self.check_shape(shape);
        self.by_node.insert(i, KeptRefusal { key, reason });
    }

    #[cfg(test)]
    pub(in crate::engine) fn hits(&self) -> usize {
        self.hits
    }

    /// Compares the round's shape (built at most once a round) with the generation's.
    fn check_shape(&mut self, shape: impl FnOnce() -> RoundShape) {
        if self.shape_checked {
            return;
        }
        self.shape_checked = true;
        let shape = shape();
        if self.shape.as_ref() != Some(&shape) {
            self.new_generation();
            self.shape = Some(shape);
        }
    }

    /// What the last generation kept holds no more.
    fn new_generation(&mut self) {
        self.by_node.clear();
    }
}

#[cfg(test)]
mod tests;
