//! What would happen to a node with its gates lifted: the reason that applies (Empty, Drifted,
//! Underutilized, or none) and the findings that decided it, so a `Blocked` node can say what
//! it is blocked from.
//!
//! Runs the same checks the methods run, in their order: Emptiness by cost, Drift's condition
//! and simulation, then SingleNodeConsolidation's own move for the node
//! (`singlenodeconsolidation.go` → `consolidation.go computeConsolidation`).

use std::borrow::Cow;

use crate::engine::candidate::Candidate;
use crate::engine::method::{self, drift, single_node, Context};
use crate::engine::nodepool::{ConsolidationPolicy, DisruptionReason};
use crate::engine::scheduling::{self, Options, Results};
use crate::reason::{Code, Reason};
use crate::upstream;

/// The reason that applies to the node with its gates lifted, and how it was found.
pub(super) struct Lifted<'r> {
    pub(super) reason: Option<DisruptionReason>,
    pub(super) findings: Vec<Reason>,
    /// The simulation behind the verdict: the acting command's (shared), or the node's own.
    pub(super) results: Option<Cow<'r, Results>>,
}

pub(super) fn lifted(ctx: &Context<'_, '_>, c: &Candidate<'_>) -> Lifted<'static> {
    let cluster = ctx.cluster;
    let node = &cluster.nodes[c.index];
    let no_reason = |findings| Lifted { reason: None, findings, results: None };
    if !node.managed() || node.node.is_none() || c.pool.is_none() {
        return no_reason(vec![]);
    }
    let mut findings = classify(ctx, c);
    if c.is_static() && drift::is_drifted(cluster, c) {
        // StaticDrift replaces a static pool's drifted node, empty or not, from the template
        // without a simulation (`staticdrift.go`).
        return Lifted { reason: Some(DisruptionReason::Drifted), findings, results: None };
    }
    if c.is_empty(cluster.rules()) {
        return Lifted { reason: Some(DisruptionReason::Empty), findings, results: None };
    }
    if drift::is_drifted(cluster, c) {
        if let Some(reason) = scheduling::scheduler_error(ctx.world) {
            findings.push(reason);
            return Lifted { reason: Some(DisruptionReason::Drifted), findings, results: None };
        }
        let results =
            scheduling::simulate(ctx.world, &[c.index], Options { lift_pod_gates: true, ..Options::default() });
        if let Some(errors) = results.non_pending_errors() {
            findings.push(
                Reason::new(Code::PodsCannotReschedule, method::consolidation::sentence(&errors))
                    .at(upstream::DRIFT_COMPUTE),
            );
        }
        return Lifted { reason: Some(DisruptionReason::Drifted), findings, results: Some(Cow::Owned(results)) };
    }
    if c.is_static() {
        return no_reason(findings);
    }
    let policy = c.pool.map(ConsolidationPolicy::of).unwrap_or_default();
    if policy == ConsolidationPolicy::WhenEmpty {
        let pool = c.pool.map(|p| p.metadata.name.as_str()).unwrap_or_default();
        findings.push(when_empty_refusal(cluster.rules(), pool));
        return no_reason(findings);
    }
    let single = single_node::own_move(ctx, c, true);
    if let Some(command) = single.command {
        findings.extend(command.findings.iter().cloned());
        return Lifted {
            reason: Some(DisruptionReason::Underutilized),
            findings,
            results: Some(Cow::Owned(command.results)),
        };
    }
    findings.extend(single.reason);
    Lifted { reason: None, findings, results: single.results.map(Cow::Owned) }
}

/// The Unconsolidatable text consolidation gives a WhenEmpty pool's non-empty node, in the
/// version's wording (`consolidation.ShouldDisrupt`; #2962 reworded it in v1.14.0).
fn when_empty_refusal(rules: &crate::rules::RuleSet, pool: &str) -> Reason {
    let rule = crate::rules::Rule::WhenEmptyMessageNamesPolicy;
    let text = if rules.has(rule) {
        format!("NodePool \"{pool}\" has consolidation policy WhenEmpty, but node is not empty")
    } else {
        format!(
            "NodePool \"{pool}\" has non-empty consolidation disabled ({}'s wording; the policy is named by the {})",
            rules.version,
            crate::rules::row(rule).cite()
        )
    };
    Reason::new(Code::PolicyWhenEmpty, text)
}

/// What the node is, before any method decides: empty by cost or not, drifted or not.
pub(super) fn classify(ctx: &Context<'_, '_>, c: &Candidate<'_>) -> Vec<Reason> {
    let mut out = Vec::new();
    let rules = ctx.cluster.rules();
    let empty = c.is_empty(rules);
    if let Some(older) = rules.cite_if_inactive(crate::rules::Rule::EmptyByEvictionCost) {
        // Before v1.14.0 the pod count decides, whatever the pods' eviction costs; the rule is
        // cited only where the two definitions disagree.
        let (code, text) = if empty {
            (Code::Empty, "no reschedulable pod".to_owned())
        } else {
            (Code::NotEmpty, format!("{} reschedulable pod(s)", c.reschedulable.len()))
        };
        let disagree = empty != crate::engine::cost::is_empty(c.disruption_cost);
        let text = if disagree {
            format!("{text}, disruption cost {:.2}: empty by eviction cost is {older}", c.disruption_cost)
        } else {
            text
        };
        out.push(Reason::new(code, text));
    } else if empty {
        out.push(Reason::new(
            Code::Empty,
            format!("no pod with a positive eviction cost (disruption cost {:.2} <= 1.0)", c.disruption_cost),
        ));
    } else {
        out.push(Reason::new(
            Code::NotEmpty,
            format!("{} reschedulable pod(s), disruption cost {:.2} > 1.0", c.reschedulable.len(), c.disruption_cost),
        ));
    }
    if drift::is_drifted(ctx.cluster, c) {
        let why = ctx.cluster.nodes[c.index]
            .claim
            .and_then(|claim| crate::snapshot::condition(&claim.status.conditions, "Drifted"))
            .and_then(|d| d.reason.clone())
            .unwrap_or_default();
        out.push(Reason::new(Code::Drifted, format!("NodeClaim condition Drifted=True {why}").trim_end().to_owned()));
    } else if !empty {
        out.push(Reason::new(Code::NotDrifted, "NodeClaim has no Drifted=True condition"));
    }
    out
}
