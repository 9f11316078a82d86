//! Emptiness: delete every empty, consolidatable node within budget, under every policy.
//!
//! Mirrors karpenter `pkg/controllers/disruption/emptiness.go` (`ShouldDisrupt`,
//! `ComputeCommands`). "Empty" is by cost, not pod count; there is no simulation.

use std::collections::BTreeMap;

use super::{sort_candidates, Command, Context, Decision, Method, Outcome};
use crate::engine::candidate::{consolidatable_blockers, Candidate};
use crate::engine::nodepool::DisruptionReason;
use crate::engine::scheduling::Results;
use crate::reason::{Code, Reason};
use crate::upstream;

/// Mirrors [`crate::upstream::EMPTINESS_SHOULD_DISRUPT`].
pub(crate) fn should_disrupt(ctx: &Context<'_, '_>, c: &Candidate<'_>) -> bool {
    c.passes(false)
        && c.is_empty(ctx.cluster.rules())
        && consolidatable_blockers(c, ctx.cluster, true).is_empty()
        && buffer_pods_blocker(ctx, c).is_none()
}

/// Emptiness leaves a node that hosts capacity buffers' virtual pods (v1.14.0+, `CapacityBuffer`
/// gate on): deleting it would only launch their room again.
///
/// Mirrors the `Cluster.HasBufferPods` check of [`crate::upstream::EMPTINESS_SHOULD_DISRUPT`].
pub(crate) fn buffer_pods_blocker(ctx: &Context<'_, '_>, c: &Candidate<'_>) -> Option<Reason> {
    if c.is_static() || !buffer_hosts(ctx.world).get(c.index).copied().unwrap_or(false) {
        return None;
    }
    let node = &ctx.cluster.nodes[c.index].name;
    Some(Reason::new(Code::HasBufferPods, format!("Node \"{node}\" has buffer pods")).hint(
        "the provisioner's pass puts a CapacityBuffer's virtual pods here; lower the buffer's replicas or make room elsewhere",
    ))
}

/// Mirrors [`crate::upstream::EMPTINESS_COMPUTE`].
pub(crate) fn compute_commands(ctx: &Context<'_, '_>) -> Outcome {
    let mut candidates: Vec<&Candidate<'_>> = ctx.candidates.iter().filter(|c| should_disrupt(ctx, c)).collect();
    sort_candidates(&mut candidates, ctx.cluster);
    let mut remaining: BTreeMap<String, i64> = BTreeMap::new();
    let mut outcome = Outcome::default();
    let mut taken = Vec::new();
    let mut savings = 0.0;
    for c in candidates {
        let pool = c.pool.map(|p| p.metadata.name.clone()).unwrap_or_default();
        let left = remaining.entry(pool.clone()).or_insert_with(|| ctx.remaining(c, DisruptionReason::Empty));
        if *left <= 0 {
            outcome.skipped.entry(c.index).or_default().push(
                Reason::new(
                    Code::BudgetExhausted,
                    format!("no allowed disruptions for disruption reason Empty in NodePool \"{pool}\" this round"),
                )
                .at(upstream::EMPTINESS_COMPUTE),
            );
            continue;
        }
        *left -= 1;
        savings += c.price_or_zero();
        taken.push(c.index);
    }
    if !taken.is_empty() {
        let n = taken.len();
        outcome.commands.push(Command {
            method: Method::Emptiness,
            decision: Decision::Delete,
            candidates: taken,
            replacements: Vec::new(),
            savings,
            results: Results::default(),
            findings: vec![Reason::new(
                Code::Empty,
                format!("delete every empty node within budget in one command ({n} node(s), saves ${savings:.4}/h)"),
            )
            .at(upstream::EMPTINESS_COMPUTE)],
        });
    }
    outcome
}

/// Per node, whether it hosts a capacity buffer's virtual pods: where one provisioning pass over
/// every node (the pending pods, the deleting nodes' pods and the virtual pods; no consolidation
/// rule) places some. Computed once per round.
///
/// Mirrors karpenter `Cluster.HasBufferPods` ([`crate::upstream::HAS_BUFFER_PODS`]), which reads
/// the counts the provisioner's last pass recorded per existing node (`provisioning/buffers.go`
/// `bufferPodCountsFromResults`, kept in memory only): a snapshot holds no such pass, so the
/// replay runs the pass the provisioner would run on it. That is the next pass's answer, not the
/// last one's.
fn buffer_hosts<'w>(world: &'w crate::engine::scheduling::World<'_, '_>) -> &'w [bool] {
    world.buffer_hosts_cell().get_or_init(|| {
        let mut hosts = vec![false; world.cluster.nodes.len()];
        let virtual_pods = &world.cluster.snapshot.virtual_pods;
        if virtual_pods.is_empty() || crate::engine::scheduling::scheduler_error(world).is_some() {
            return hosts;
        }
        let results = crate::engine::scheduling::simulate(world, &[], crate::engine::scheduling::Options::default());
        for m in results.moves.iter().filter(|m| world.is_virtual_pod(&m.pod)) {
            if let crate::engine::scheduling::Destination::Existing(node) = &m.to {
                if let Some(&at) = world.cluster.node_index.get(node.as_str()) {
                    hosts[at] = true;
                }
            }
        }
        hosts
    })
}
