//! `plan`: the round — which method acts, its commands, and a verdict per node.

use super::{selection, Context, Failure, Outcome};
use crate::cli::SortBy;
use crate::engine;
use crate::report::{self, plan::NodeSummary, Report};
use crate::snapshot::Snapshot;

pub(super) fn run(ctx: &Context<'_>, snapshot: &Snapshot) -> Result<Outcome, Failure> {
    let selected = selection(ctx, snapshot)?;
    let replay = engine::replay_observed(snapshot, ctx.now, ctx.observer);
    let pod_startup = ctx.cli.input.pod_startup.0;
    let mut plan = report::plan::plan(&replay, snapshot, ctx.overrides, pod_startup);
    plan.placements = report::placement::views(ctx.placements);
    let fixes =
        crate::prescription::for_round(snapshot, &replay.commands, ctx.now, pod_startup, &|_| true, ctx.observer);
    report::impact::attach_prescriptions(&mut plan.impact, &fixes);
    sort_nodes(&mut plan.nodes, ctx.cli.output.sort_by);
    if let Some(s) = selected {
        plan.nodes.retain(|n| s.nodes.contains(&n.name));
        plan.selection = Some(s.described);
    }
    Ok(Outcome::ok(Report::Plan(plan)))
}

/// `--sort-by`: the rows' order (by name unless asked; ties by name, so the order is total).
fn sort_nodes(nodes: &mut [NodeSummary], by: Option<SortBy>) {
    match by {
        None | Some(SortBy::Name) => {}
        Some(SortBy::Verdict) => nodes.sort_by(|a, b| a.verdict.cmp(&b.verdict).then_with(|| a.name.cmp(&b.name))),
        Some(SortBy::Price) => nodes.sort_by(|a, b| {
            b.price.unwrap_or(0.0).total_cmp(&a.price.unwrap_or(0.0)).then_with(|| a.name.cmp(&b.name))
        }),
        Some(SortBy::Cost) => {
            nodes.sort_by(|a, b| a.disruption_cost.total_cmp(&b.disruption_cost).then_with(|| a.name.cmp(&b.name)));
        }
        Some(SortBy::Pool) => nodes.sort_by(|a, b| (&a.node_pool, &a.name).cmp(&(&b.node_pool, &b.name))),
    }
}
