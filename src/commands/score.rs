//! `score nodepool/NAME`: the Balanced score of every candidate of a NodePool, the pool
//! baseline and the threshold (`engine/scoring.rs`).

use super::{no_such_pool, node_pool_target, selection, Context, Failure, Outcome};
use crate::engine;
use crate::object_ref::ObjectRef;
use crate::report::{self, Report};
use crate::snapshot::Snapshot;

pub(super) fn run(ctx: &Context<'_>, snapshot: &Snapshot, target: &ObjectRef) -> Result<Outcome, Failure> {
    let name = node_pool_target("score", target)?;
    let selected = selection(ctx, snapshot)?;
    let pool = engine::scoring::score_pool(snapshot, ctx.now, name).ok_or_else(|| no_such_pool(snapshot, name))?;
    let mut score = report::score::score(&pool, ctx.overrides, &snapshot.info.unread);
    if let Some(s) = selected {
        score.candidates.retain(|c| s.nodes.contains(&c.node));
        score.selection = Some(s.described);
    }
    Ok(Outcome::ok(Report::Score(score)))
}
