//! No upstream twin: what a forecast keeps from one round's replay for the next, so that a
//! round does not rebuild from the snapshot what the previous commands did not change.
//!
//! An explicit value the forecast owns and passes to [`super::controller::replay_round_with`];
//! it holds owned data and positions into the snapshot's vectors, never borrows, so the
//! forecast can change the snapshot in place between rounds. The replay stays a function of
//! the snapshot and the clock: a round with the cache gives the same bytes as one without it.
//!
//! What it keeps, and why each stays valid as the forecast changes the snapshot (it changes
//! nodes, NodeClaims, pods' bindings and status, and PDBs' status; it only appends pods, and
//! never changes a pod's labels or containers, nor a PDB's selector):
//! - per pod, the PDBs that select it and the fixed facts the candidacy gates read
//!   ([`PodTable`]);
//! - per pod, its requests, and per existing node its destination state, checked against the
//!   node's current inputs each round ([`WorldMemo`]).
//!
//! Everything that reads the clock or a PDB's status (candidacy gates, budgets, do-not-disrupt
//! grace, consolidateAfter) is computed each round.

use std::sync::Arc;

use super::pdb::Limits;
use super::pod_table::PodTable;
use super::scheduling::WorldMemo;
use crate::snapshot::Snapshot;

#[derive(Debug, Default)]
pub(crate) struct RoundCache {
    pod_table: Arc<PodTable>,
    pub(super) world: WorldMemo,
}

impl RoundCache {
    /// Extends the per-pod tables to the snapshot's pods (a forecast appends some).
    pub(super) fn cover(&mut self, snapshot: &Snapshot) {
        Arc::make_mut(&mut self.pod_table).cover(&snapshot.pods, &snapshot.pdbs);
    }

    /// What is known of every pod (once [`RoundCache::cover`] ran).
    pub(super) fn pod_table(&self) -> Arc<PodTable> {
        Arc::clone(&self.pod_table)
    }
}

/// The snapshot's PDBs, reading `table` when there is one.
pub(super) fn limits<'a>(snapshot: &'a Snapshot, table: Option<Arc<PodTable>>) -> Limits<'a> {
    match table {
        Some(t) => Limits::with_table(&snapshot.pdbs, &snapshot.pods, t),
        None => Limits::new(&snapshot.pdbs),
    }
}
