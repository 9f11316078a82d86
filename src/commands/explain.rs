//! `explain TARGET`: the whole pipeline for one node, step by step, its verdict, and the single
//! changes that would turn it (`unlock.rs`, replayed on the snapshot), and Karpenter's latest
//! events with `doctor`'s word on where they and the replay part, and the replayed fixes for the
//! workloads the round harms on it (`prescription/`).

use super::{Context, Failure, Outcome};
use crate::engine;
use crate::object_ref::{Kind, ObjectRef};
use crate::report::{self, Report};
use crate::snapshot::Snapshot;
use crate::target::{not_found, resolve};

pub(super) fn run(ctx: &Context<'_>, snapshot: &mut Snapshot, target: &ObjectRef) -> Result<Outcome, Failure> {
    let kube = &ctx.cli.kube;
    let (name, looked_up) = resolve(snapshot, target, kube.namespace.as_deref(), kube.all_namespaces)?;
    let replay = engine::replay_focused(snapshot, ctx.now, Some(&name));
    let mut explanation =
        report::explain::explain_with_startup(&replay, snapshot, &name, ctx.overrides, ctx.cli.input.pod_startup.0)
            .ok_or_else(|| not_found(Kind::Node, &name, replay.nodes.iter().map(|n| n.name.as_str())))?;
    explanation.looked_up = looked_up;
    explanation.placements = report::placement::views(ctx.placements);
    // Beside the node's events, where `doctor node/NAME` finds Karpenter and the replay part.
    let judged = crate::doctor::doctor(snapshot, &replay, ctx.now, Some(&explanation.node.name));
    for (reason, cause) in crate::doctor::parting_reasons(&judged) {
        explanation.mark_disagreement(&reason, &cause);
    }
    // Fixes for the workloads on this node that the round itself harms (none when it keeps it).
    let on_node: std::collections::BTreeSet<String> = explanation.impact.iter().map(|w| w.workload.clone()).collect();
    let fixes = crate::prescription::for_round(
        snapshot,
        &replay.commands,
        ctx.now,
        ctx.cli.input.pod_startup.0,
        &|w| on_node.contains(w),
        ctx.observer,
    );
    report::impact::attach_prescriptions(&mut explanation.impact, &fixes);
    if let Some(verdict) = replay.nodes.iter().find(|n| n.name == name).cloned() {
        let tried = crate::unlock::unlocks(snapshot, ctx.now, &verdict);
        explanation.what_would_change = tried.iter().map(report::explain::UnlockView::from).collect();
    }
    Ok(Outcome::ok(Report::Explain(Box::new(explanation))))
}
