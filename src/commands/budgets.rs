//! `budgets [nodepool/NAME]`: allowed disruptions per NodePool and reason now, and the
//! schedule windows (the round's budget mapping, `engine/budget.rs`).

use super::{node_pool_target, selection, Context, Failure, Outcome};
use crate::engine;
use crate::object_ref::{Kind, ObjectRef};
use crate::report::{self, Report};
use crate::snapshot::Snapshot;
use crate::target::not_found;

pub(super) fn run(ctx: &Context<'_>, snapshot: &Snapshot, target: Option<&ObjectRef>) -> Result<Outcome, Failure> {
    let pool = target.map(|t| node_pool_target("budgets", t)).transpose()?;
    let selected = selection(ctx, snapshot)?;
    let replay = engine::replay(snapshot, ctx.now);
    if let Some(name) = pool {
        if !replay.budgets.contains_key(name) {
            return Err(not_found(Kind::NodePool, name, replay.budgets.keys().map(String::as_str)).into());
        }
    }
    let mut budgets = report::budgets::budgets(&replay, pool, &snapshot.info.unread);
    if let Some(s) = selected {
        budgets.node_pools.retain(|p| s.pools.contains(&p.node_pool));
        budgets.selection = Some(format!("{} (their NodePools' budgets)", s.described));
    }
    budgets.week = Some(report::budgets::week(&budgets, &snapshot.node_pools, &replay));
    Ok(Outcome::ok(Report::Budgets(budgets)))
}
