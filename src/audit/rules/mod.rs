//! The nine `pdb-audit` rules, one file per finding code (the code's name in snake_case), and
//! the order they run in. A rule reads a [`View`] (one PDB) or the whole [`Context`] and returns
//! draft findings; it never sorts, filters by `-l` or counts: `audit/mod.rs` does that once.

mod crowded;
mod currently_blocking;
mod drain_blocked;
mod grace_period_overrides;
mod looser_than_intended;
mod multiple_pdbs;
mod no_matching_pods;
mod no_pdb;
mod single_replica_evictable;

use super::context::{Context, Draft};
use super::view::View;

/// Every finding, unsorted.
pub(super) fn findings<'a>(ctx: &Context<'a>) -> Vec<Draft<'a>> {
    let mut out = Vec::new();
    for pdb in &ctx.pdbs {
        let view = View::new(ctx, pdb);
        if view.pods.is_empty() {
            out.push(no_matching_pods::no_matching_pods(&view));
            continue;
        }
        out.extend(single_replica_evictable::single_replica_evictable(&view));
        out.extend(drain_blocked::drain_blocked(&view));
        out.extend(currently_blocking::currently_blocking(&view));
        out.extend(crowded::crowded(&view));
        out.extend(looser_than_intended::looser_than_intended(&view));
        out.extend(grace_period_overrides::grace_period_overrides(&view));
    }
    out.extend(multiple_pdbs::multiple_pdbs(ctx));
    out.extend(no_pdb::no_pdb(ctx));
    out
}
