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
//! - per pod, the PDBs that select it ([`PdbMatches`]: labels and selectors only);
//! - per pod, its requests, and per existing node its destination state, checked against the
//!   node's current inputs each round ([`WorldMemo`]).
//!
//! Everything that reads the clock or a PDB's status (candidacy gates, budgets, do-not-disrupt
//! grace, consolidateAfter) is computed each round.

use std::sync::Arc;

use super::pdb::{Limits, PdbMatches};
use super::scheduling::WorldMemo;
use crate::snapshot::Snapshot;

#[derive(Debug, Default)]
pub(crate) struct RoundCache {
    pdb_matches: Arc<PdbMatches>,
    pub(super) world: WorldMemo,
}

impl RoundCache {
    /// Extends the per-pod tables to the snapshot's pods (a forecast appends some).
    pub(super) fn cover(&mut self, snapshot: &Snapshot) {
        Arc::make_mut(&mut self.pdb_matches).cover(&snapshot.pods, &snapshot.pdbs);
    }

    /// The snapshot's PDBs, answering which select a pod from the table.
    pub(super) fn pdb_matches(&self) -> Arc<PdbMatches> {
        Arc::clone(&self.pdb_matches)
    }
}

/// The snapshot's PDBs, from `matches` when there is a table.
pub(super) fn limits<'a>(snapshot: &'a Snapshot, matches: Option<Arc<PdbMatches>>) -> Limits<'a> {
    match matches {
        Some(m) => Limits::with_matches(&snapshot.pdbs, &snapshot.pods, m),
        None => Limits::new(&snapshot.pdbs),
    }
}
