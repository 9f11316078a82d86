//! Drift and StaticDrift: replace drifted nodes, oldest drift first, one per round, with as many
//! replacements as the pods need and no price check.
//!
//! Mirrors karpenter `pkg/controllers/disruption/drift.go` (`ShouldDisrupt`, `ComputeCommands`)
//! and `staticdrift.go` (with `statenodepool.go`'s counts for the static pool's scale-down and
//! `limits.nodes`).

use super::{Command, Context, Decision, Method, Outcome, Replacement};
use crate::engine::candidate::Candidate;
use crate::engine::nodepool::DisruptionReason;
use crate::engine::scheduling::{self, Options};
use crate::engine::state::Cluster;
use crate::reason::{Code, Reason};
use crate::rules::Rule;
use crate::snapshot::{condition, is_true};
use crate::upstream;

/// Whether the node's NodeClaim says `Drifted=True`.
pub(crate) fn is_drifted(cluster: &Cluster<'_>, c: &Candidate<'_>) -> bool {
    cluster.nodes[c.index].claim.is_some_and(|claim| is_true(&claim.status.conditions, "Drifted"))
}

/// Mirrors [`crate::upstream::DRIFT_SHOULD_DISRUPT`] (and StaticDrift's with `static_pool`).
pub(crate) fn should_disrupt(ctx: &Context<'_, '_>, c: &Candidate<'_>, static_pool: bool) -> bool {
    c.passes(c.has_termination_grace_period(ctx.cluster)) && c.is_static() == static_pool && is_drifted(ctx.cluster, c)
}

/// Mirrors [`crate::upstream::DRIFT_COMPUTE`].
pub(crate) fn compute_commands(ctx: &Context<'_, '_>) -> Outcome {
    let mut candidates: Vec<&Candidate<'_>> = ctx.candidates.iter().filter(|c| should_disrupt(ctx, c, false)).collect();
    let drifted_at = |c: &Candidate<'_>| {
        ctx.cluster.nodes[c.index]
            .claim
            .and_then(|claim| condition(&claim.status.conditions, "Drifted"))
            .and_then(|cond| cond.last_transition_time)
    };
    candidates.sort_by(|a, b| drifted_at(a).cmp(&drifted_at(b)).then_with(|| a.name.cmp(&b.name)));
    let rules = ctx.cluster.rules();
    let mut skipped: std::collections::BTreeMap<usize, Vec<Reason>> = std::collections::BTreeMap::new();
    if !rules.has(Rule::DriftUnbatchesEmpties) {
        if let Some(batch) = empty_batch(ctx, &candidates) {
            return batch;
        }
    } else if rules.has(Rule::DriftEmptiesFirst) {
        candidates.sort_by_key(|c| !c.reschedulable.is_empty());
    } else {
        // v1.5.0–v1.5.3 and v1.6.0–v1.6.1 (#2180, before #2423): empty drifted nodes are left
        // to Emptiness, which never takes them in a pool with `consolidateAfter: Never`.
        let (empty, with_pods): (Vec<_>, Vec<_>) = candidates.into_iter().partition(|c| c.reschedulable.is_empty());
        candidates = with_pods;
        let why = rules.cite_if_inactive(Rule::DriftEmptiesFirst).unwrap_or_default();
        for c in empty {
            skipped.entry(c.index).or_default().push(
                Reason::new(
                    Code::WaitingForOtherMethod,
                    format!("Drift leaves an empty drifted node to Emptiness; taking it first is {why}"),
                )
                .at(upstream::DRIFT_COMPUTE),
            );
        }
    }
    let mut outcome = Outcome { skipped, ..Outcome::default() };
    for c in candidates {
        if ctx.remaining(c, DisruptionReason::Drifted) <= 0 {
            outcome.skipped.entry(c.index).or_default().push(Reason::new(
                Code::BudgetExhausted,
                "no allowed disruptions for disruption reason Drifted this round".to_owned(),
            ));
            continue;
        }
        if let Some(reason) = scheduling::scheduler_error(ctx.world) {
            // The error ends the round: no later candidate, and no later method, is tried.
            outcome.skipped.entry(c.index).or_default().push(reason);
            outcome.failed = true;
            break;
        }
        let results = scheduling::simulate(ctx.world, &[c.index], Options::default());
        if let Some(errors) = results.non_pending_errors() {
            outcome.skipped.entry(c.index).or_default().push(
                Reason::new(Code::PodsCannotReschedule, super::consolidation::sentence(&errors))
                    .at(upstream::DRIFT_COMPUTE),
            );
            continue;
        }
        let replacements: Vec<Replacement> = results
            .new_claims
            .iter()
            .map(|claim| Replacement {
                node_pool: claim.node_pool.clone(),
                instance_types: claim.instance_types.clone(),
                capacity_type: capacity_types(ctx.cluster, &claim.instance_types, &claim.requirements),
                zones: zones(ctx.cluster, &claim.instance_types, &claim.requirements),
                worst_price: None,
                cheapest_price: None,
            })
            .collect();
        let decision = if replacements.is_empty() { Decision::Delete } else { Decision::Replace };
        let types: Vec<String> =
            replacements.iter().map(|r| format!("[{}]", crate::reason::abbreviate(&r.instance_types))).collect();
        let findings = vec![Reason::new(
            Code::Drifted,
            match replacements.len() {
                0 => "delete: every pod fits on existing nodes (no price check for drift)".to_owned(),
                n => format!("replace with {n} NodeClaim(s) {} (no price check for drift)", types.join(" ")),
            },
        )
        .at(upstream::DRIFT_COMPUTE)];
        outcome.commands.push(Command {
            method: Method::Drift,
            decision,
            candidates: vec![c.index],
            replacements,
            savings: 0.0,
            results,
            findings,
        });
        break;
    }
    outcome
}

/// Before v1.5.0 (#2180): every empty drifted node (no reschedulable pod) the pool's budget
/// allows, oldest drift first, in one delete command with no simulation; `None` when there is
/// none, and Drift then simulates the non-empty ones one at a time.
///
/// Mirrors karpenter v1.4.2 `pkg/controllers/disruption/drift.go` `Drift.ComputeCommand`.
fn empty_batch(ctx: &Context<'_, '_>, sorted: &[&Candidate<'_>]) -> Option<Outcome> {
    let mut left: std::collections::BTreeMap<&str, i64> = std::collections::BTreeMap::new();
    let mut taken = Vec::new();
    for c in sorted.iter().filter(|c| c.reschedulable.is_empty()) {
        let pool = c.pool.map_or("", |p| p.metadata.name.as_str());
        let budget = left.entry(pool).or_insert_with(|| ctx.remaining(c, DisruptionReason::Drifted));
        if *budget > 0 {
            *budget -= 1;
            taken.push(c.index);
        }
    }
    if taken.is_empty() {
        return None;
    }
    let finding = Reason::new(
        Code::Drifted,
        format!(
            "delete: empty, no simulation; {}",
            ctx.cluster.rules().cite_if_inactive(Rule::DriftUnbatchesEmpties).unwrap_or_default()
        ),
    )
    .at(upstream::DRIFT_COMPUTE);
    let mut outcome = Outcome::default();
    outcome.commands.push(Command {
        method: Method::Drift,
        decision: Decision::Delete,
        candidates: taken,
        replacements: Vec::new(),
        savings: 0.0,
        results: scheduling::Results::default(),
        findings: vec![finding],
    });
    Some(outcome)
}

/// StaticDrift: per static pool, replace up to its budget of drifted nodes from the template,
/// once the pool is not above `replicas` and within what `limits.nodes` lets it reserve.
///
/// Mirrors [`crate::upstream::STATIC_DRIFT_COMPUTE`] (unchanged from v1.8.0, where static
/// NodePools appeared, to v1.14.1).
pub(crate) fn compute_static(ctx: &Context<'_, '_>) -> Outcome {
    let mut outcome = Outcome::default();
    let mut by_pool: std::collections::BTreeMap<&str, Vec<&Candidate<'_>>> = std::collections::BTreeMap::new();
    for c in ctx.candidates.iter().filter(|c| should_disrupt(ctx, c, true)) {
        by_pool.entry(c.pool.map_or("", |p| p.metadata.name.as_str())).or_default().push(c);
    }
    for (pool, members) in by_pool {
        let Some(node_pool) = members.first().and_then(|c| c.pool) else { continue };
        let budget = members.first().map_or(0, |c| ctx.remaining(c, DisruptionReason::Drifted));
        let counts = PoolClaimCounts::of(ctx.cluster, pool);
        let replicas = node_pool.spec.replicas.unwrap_or(0);
        let skip_all = |outcome: &mut Outcome, reason: Reason| {
            for c in &members {
                outcome.skipped.entry(c.index).or_default().push(reason.clone());
            }
        };
        if budget > 0 && counts.not_deleting > replicas {
            skip_all(
                &mut outcome,
                Reason::new(
                    Code::StaticPoolOverscaled,
                    format!(
                        "static NodePool \"{pool}\" has {} NodeClaim(s) not being deleted for {replicas} replica(s): \
                         StaticDrift waits until the scale-down completes",
                        counts.not_deleting
                    ),
                ),
            );
            continue;
        }
        let wanted = budget.min(members.len() as i64).max(0);
        let granted = counts.reservable(node_pool, wanted);
        for (n, c) in members.iter().enumerate() {
            let n = n as i64;
            if n < granted {
                outcome.commands.push(static_replace(pool, c));
            } else if n >= budget {
                outcome.skipped.entry(c.index).or_default().push(Reason::new(
                    Code::BudgetExhausted,
                    format!("no allowed disruptions for disruption reason Drifted in NodePool \"{pool}\""),
                ));
            } else {
                outcome.skipped.entry(c.index).or_default().push(Reason::new(
                    Code::NodeLimitReached,
                    format!(
                        "static NodePool \"{pool}\" has {} NodeClaim(s) against limits.nodes {}: \
                         {granted} replacement(s) of {wanted} could be reserved this round",
                        counts.total,
                        node_limit(node_pool).map_or_else(|| "unset".to_owned(), |l| l.to_string()),
                    ),
                ));
            }
        }
    }
    outcome
}

/// A static pool's NodeClaims as cluster state's `NodePoolState` counts them.
///
/// Mirrors karpenter `pkg/controllers/state/statenodepool.go` (`GetNodeCount`, fed by
/// `Cluster.UpdateNodeClaim` and `Cluster.MarkForDeletion`): every NodeClaim labelled with the
/// pool is counted; it is deleting when its launched node is marked for deletion (or already in
/// the disruption queue, which marks it); one not launched yet (no provider ID) is active.
struct PoolClaimCounts {
    total: i64,
    not_deleting: i64,
}

impl PoolClaimCounts {
    fn of(cluster: &Cluster<'_>, pool: &str) -> Self {
        let rules = cluster.rules();
        let mut counts = PoolClaimCounts { total: 0, not_deleting: 0 };
        for n in &cluster.nodes {
            let Some(claim) = n.claim else { continue };
            if claim.metadata.labels.get(crate::engine::labels::NODEPOOL).map(String::as_str) != Some(pool) {
                continue;
            }
            counts.total += 1;
            let launched = claim.status.provider_id.as_deref().is_some_and(|id| !id.is_empty());
            if !(launched && n.deleting(rules)) {
                counts.not_deleting += 1;
            }
        }
        counts
    }

    /// How many of `wanted` replacements the pool's `limits.nodes` lets StaticDrift reserve:
    /// the limit less every NodeClaim counted (a snapshot holds no reservation in flight).
    ///
    /// Mirrors karpenter `NodePoolState.ReserveNodeCount`.
    fn reservable(&self, pool: &crate::snapshot::NodePool, wanted: i64) -> i64 {
        match node_limit(pool) {
            None => wanted,
            Some(limit) => {
                let room = limit - i128::from(self.total);
                if room < 0 {
                    0
                } else {
                    i64::try_from(room.min(i128::from(wanted))).unwrap_or(wanted)
                }
            }
        }
    }
}

/// A pool's `limits.nodes`, rounded up as `Quantity.Value` does; `None` when unset.
fn node_limit(pool: &crate::snapshot::NodePool) -> Option<i128> {
    pool.spec.limits.get("nodes").map(|q| q.units_ceil())
}

/// The command replacing one drifted node of a static pool from the pool's template.
fn static_replace(pool: &str, c: &Candidate<'_>) -> Command {
    Command {
        method: Method::StaticDrift,
        decision: Decision::Replace,
        candidates: vec![c.index],
        replacements: vec![Replacement {
            node_pool: pool.to_owned(),
            instance_types: Vec::new(),
            capacity_type: String::new(),
            zones: Vec::new(),
            worst_price: None,
            cheapest_price: None,
        }],
        savings: 0.0,
        results: scheduling::Results::default(),
        findings: vec![Reason::new(Code::Drifted, "static NodePool: replaced from the template")
            .at(upstream::STATIC_DRIFT_COMPUTE)],
    }
}

fn capacity_types(
    cluster: &Cluster<'_>,
    types: &[String],
    reqs: &crate::engine::scheduling::requirements::Requirements,
) -> String {
    let set: std::collections::BTreeSet<String> = types
        .iter()
        .filter_map(|n| cluster.instance_types.get(n.as_str()))
        .flat_map(|it| it.offerings.iter())
        .filter(|o| o.available && scheduling::offering_compatible(o, reqs))
        .map(|o| o.capacity_type.clone())
        .collect();
    set.into_iter().collect::<Vec<_>>().join(",")
}

fn zones(
    cluster: &Cluster<'_>,
    types: &[String],
    reqs: &crate::engine::scheduling::requirements::Requirements,
) -> Vec<String> {
    let set: std::collections::BTreeSet<String> = types
        .iter()
        .filter_map(|n| cluster.instance_types.get(n.as_str()))
        .flat_map(|it| it.offerings.iter())
        .filter(|o| o.available && scheduling::offering_compatible(o, reqs))
        .map(|o| o.zone.clone())
        .collect();
    set.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use crate::engine::replay;
    use crate::testing::{managed_node, node_pool, now, set, snapshot};

    /// A static pool `fixed` of `replicas` with `limits`, holding `nodes` drifted nodes, the
    /// first `deleting` of them with a deleting NodeClaim; the nodes StaticDrift replaces.
    fn replaced(replicas: i64, limits: Option<&str>, nodes: usize, deleting: usize) -> Vec<String> {
        let mut pool = set(node_pool("fixed"), "/spec/replicas", json!(replicas));
        if let Some(l) = limits {
            pool = set(pool, "/spec/limits", json!({"nodes": l}));
        }
        let mut objects: Vec<Value> = vec![pool];
        for i in 0..nodes {
            let [node, claim] = managed_node(&format!("n{i}"))
                .map(|o| set(o, "/metadata/labels/karpenter.sh~1nodepool", json!("fixed")));
            let mut claim = set(
                claim,
                "/status/conditions",
                json!([{"type": "Initialized", "status": "True"}, {"type": "Drifted", "status": "True"}]),
            );
            if i < deleting {
                claim = set(claim, "/metadata/deletionTimestamp", json!("2026-11-29T09:00:00Z"));
                claim = set(claim, "/metadata/finalizers", json!(["karpenter.sh/termination"]));
            }
            objects.extend([node, claim]);
        }
        let report = replay(&snapshot(objects), now());
        let mut names: Vec<String> = report
            .commands
            .iter()
            .filter(|c| c.method.as_str() == "StaticDrift")
            .flat_map(|c| c.candidates.clone())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn the_reservation_follows_limits_nodes() {
        // No limit: every drifted node of the pool (budget 100 %).
        assert_eq!(replaced(3, None, 3, 0), ["n0", "n1", "n2"]);
        // limits.nodes 3 with 3 NodeClaims: no room (`ReserveNodeCount` grants 0).
        assert!(replaced(3, Some("3"), 3, 0).is_empty());
        // limits.nodes 4: one reservation, the first drifted node.
        assert_eq!(replaced(3, Some("4"), 3, 0), ["n0"]);
        // Below the NodeClaims already there: the remaining limit is negative, 0 granted.
        assert!(replaced(3, Some("2"), 3, 0).is_empty());
    }

    #[test]
    fn an_overscaled_pool_waits_for_its_scale_down() {
        // Four NodeClaims not deleting for three replicas: StaticDrift waits.
        assert!(replaced(3, None, 4, 0).is_empty());
        // One of them deleting: three left, not above replicas; the deleting one is no candidate.
        assert_eq!(replaced(3, None, 4, 1), ["n1", "n2", "n3"]);
    }
}
