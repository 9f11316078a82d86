//! One node's verdict: the reason that applies (or would, with its gates lifted), the gates and
//! filters that stop it, and the findings of every pipeline step in order.
//!
//! A node's verdict replays its own case with the gates lifted (what would happen without the
//! annotation, the PDB, the budget…), so a `Blocked` node says what it is blocked from. The
//! acting command's simulation is shared with its candidates; other nodes run their own.

mod lifted;
mod steps;

use std::borrow::Cow;

use lifted::{classify, lifted, Lifted};
use steps::{
    budget_finding, decision_findings, ephemeral_taints_kept, held_pods_simulated, one_step_relaxation,
    pending_host_ports, placement_summary, pod_views, spread_rules, waiting, ByStep,
};

use super::candidate::{consolidatable_blockers, Candidate};
use super::labels::{CAPACITY_TYPE, INSTANCE_TYPE, ZONE};
use super::method::{Command, Context, Decision, Method};
use super::nodepool::DisruptionReason;
use super::pod;
use super::scheduling;
use crate::reason::{Code, Reason};
use crate::snapshot::Resources;

/// One node's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    Empty,
    Drifted,
    Underutilized,
    Blocked,
    Safe,
}

impl Verdict {
    /// The verdict of a node a reason applies to and nothing stops.
    const fn of(reason: DisruptionReason) -> Self {
        match reason {
            DisruptionReason::Empty => Verdict::Empty,
            DisruptionReason::Drifted => Verdict::Drifted,
            DisruptionReason::Underutilized => Verdict::Underutilized,
        }
    }
}

/// What happens to the node this round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Delete,
    Replace,
    None,
}

impl From<Decision> for Action {
    fn from(d: Decision) -> Self {
        match d {
            Decision::Delete => Action::Delete,
            Decision::Replace => Action::Replace,
        }
    }
}

/// A pipeline step of one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    Candidate,
    Cost,
    Budget,
    Method,
    Simulation,
    Price,
    Score,
    Decision,
}

/// One step's findings, and whether the node passed it.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    pub step: StepKind,
    pub ok: bool,
    pub findings: Vec<Reason>,
}

/// Where one of the node's pods would go.
#[derive(Debug, Clone, PartialEq)]
pub struct PodView {
    pub pod: String,
    pub to: String,
    pub why: Vec<String>,
    /// `node: reason` per existing node that refused the pod.
    pub rejected_by: Vec<String>,
}

/// Everything the report needs about one node.
#[derive(Debug, Clone, PartialEq)]
pub struct NodeVerdict {
    pub name: String,
    pub node_claim: Option<String>,
    pub node_pool: Option<String>,
    pub instance_type: Option<String>,
    pub zone: Option<String>,
    pub capacity_type: Option<String>,
    pub price: Option<f64>,
    pub verdict: Verdict,
    pub reason: Option<DisruptionReason>,
    pub action: Action,
    pub method: Option<Method>,
    pub disruption_cost: f64,
    pub blockers: Vec<Code>,
    pub reasons: Vec<Reason>,
    pub steps: Vec<Step>,
    /// Where each pod would go: filled for the node a focused replay explains.
    pub pods: Vec<PodView>,
    pub pod_count: usize,
    pub allocatable: Resources,
    pub requested: Resources,
}

/// The verdict of candidate `c`, given the round's acting command (if it names `c`), the
/// method that acted, and what the methods noted when they passed over it. `detail` asks for
/// where each pod goes (`explain`).
pub(super) fn node_verdict(
    ctx: &Context<'_, '_>,
    c: &Candidate<'_>,
    acting: Option<&Command>,
    round_method: Option<Method>,
    skipped: Option<&Vec<Reason>>,
    detail: bool,
) -> NodeVerdict {
    let cluster = ctx.cluster;
    let node = &cluster.nodes[c.index];
    let mut lifted = match acting {
        Some(cmd) => Lifted {
            reason: Some(cmd.method.reason()),
            findings: classify(ctx, c).into_iter().chain(cmd.findings.iter().cloned()).collect(),
            results: Some(Cow::Borrowed(&cmd.results)),
        },
        None => lifted(ctx, c),
    };
    if detail {
        lifted.results = lifted.results.map(|r| Cow::Owned(scheduling::with_detail(ctx.world, &r)));
    }
    let waive_pod_gates = lifted.reason == Some(DisruptionReason::Drifted) && c.has_termination_grace_period(cluster);
    let mut gates: Vec<Reason> = c.node_gates.clone();
    if !waive_pod_gates {
        gates.extend(c.pod_gates.iter().cloned());
    }
    let filters: Vec<Reason> = match lifted.reason {
        Some(DisruptionReason::Empty) => {
            let mut out = consolidatable_blockers(c, cluster, true);
            out.extend(crate::engine::method::emptiness::buffer_pods_blocker(ctx, c));
            out
        }
        Some(DisruptionReason::Underutilized) => consolidatable_blockers(c, cluster, false),
        _ => Vec::new(),
    };
    let mut budget_findings = Vec::new();
    let mut budget_ok = true;
    if let (Some(reason), Some(pool)) = (lifted.reason, c.pool) {
        if let Some(b) = ctx.budgets.get(&pool.metadata.name) {
            let (finding, ok) = budget_finding(b, reason, acting.is_some(), cluster.rules());
            budget_ok = ok;
            budget_findings.push(finding);
        }
    }
    let mut blockers: Vec<Reason> = gates.clone();
    blockers.extend(filters.iter().cloned());
    blockers.extend(budget_findings.iter().filter(|r| r.code == Code::BudgetExhausted).cloned());
    // A method's own gate on the node this round (StaticDrift's scale-down wait and
    // `limits.nodes` reservation); the budget's is the budget step's.
    let method_gates: Vec<Reason> = skipped
        .into_iter()
        .flatten()
        .filter(|r| r.code.is_blocker() && r.code != Code::BudgetExhausted)
        .cloned()
        .collect();
    blockers.extend(method_gates.iter().cloned());
    let (verdict, action, method) = match (acting, lifted.reason) {
        (Some(cmd), Some(reason)) => (Verdict::of(reason), Action::from(cmd.decision), Some(cmd.method)),
        (None, Some(_)) if !blockers.is_empty() => (Verdict::Blocked, Action::None, None),
        (None, Some(reason)) => (Verdict::of(reason), Action::None, None),
        _ => (Verdict::Safe, Action::None, None),
    };
    let ByStep { method: mut method_findings, simulation: mut sim, price, score, decision } =
        ByStep::group(&lifted.findings);
    method_findings.extend(filters.iter().cloned());
    // Emptiness asks every candidate about buffer pods before it asks whether the node is empty
    // (`emptiness.go`), so a node that is not empty hears it too; it decides nothing there.
    if lifted.reason != Some(DisruptionReason::Empty) {
        method_findings
            .extend(crate::engine::method::emptiness::buffer_pods_blocker(ctx, c).map(|r| Reason { hint: None, ..r }));
    }
    if let Some(extra) = skipped {
        let already = |r: &Reason| r.code == Code::BudgetExhausted || lifted.findings.iter().any(|f| f.code == r.code);
        method_findings.extend(extra.iter().filter(|r| !already(r)).cloned());
    }
    // Without a scheduler no method could act on the node, and after a method's error no later
    // one runs: it is not waiting for another one.
    let no_scheduler = lifted.findings.iter().any(|f| f.code == Code::NoReadyNodePool)
        || skipped.is_some_and(|extra| extra.iter().any(|r| r.upstream == crate::upstream::RECONCILE));
    if let (None, Some(reason), true, false) = (acting, lifted.reason, blockers.is_empty(), no_scheduler) {
        method_findings.push(waiting(round_method, reason, cluster.rules()));
    }
    // Only `explain` shows where each pod goes; a whole-cluster replay would hold them all.
    let pods = lifted.results.as_deref().filter(|_| detail).map(pod_views).unwrap_or_default();
    let mut steps = vec![
        Step {
            step: StepKind::Candidate,
            ok: gates.is_empty(),
            findings: if gates.is_empty() {
                vec![Reason::new(Code::Candidate, "passes every candidate gate")]
            } else {
                gates.clone()
            },
        },
        Step { step: StepKind::Cost, ok: true, findings: c.notes.clone() },
    ];
    if !budget_findings.is_empty() {
        steps.push(Step { step: StepKind::Budget, ok: budget_ok, findings: budget_findings });
    }
    let method_ok = filters.is_empty()
        && method_gates.is_empty()
        && !method_findings.iter().any(|r| r.code == Code::PolicyWhenEmpty);
    steps.push(Step { step: StepKind::Method, ok: method_ok, findings: method_findings });
    if sim.is_empty() {
        sim.extend(lifted.results.as_deref().and_then(placement_summary));
    }
    sim.extend(lifted.results.as_deref().and_then(|r| held_pods_simulated(ctx.world, r)));
    sim.extend(lifted.results.as_deref().and_then(|r| ephemeral_taints_kept(ctx.world, r)));
    sim.extend(lifted.results.as_deref().and_then(|r| pending_host_ports(ctx.world, r)));
    sim.extend(lifted.results.as_deref().and_then(|r| steps::buffer_pods_placed(ctx.world, r)));
    sim.extend(lifted.results.as_deref().and_then(|r| spread_rules(ctx.world, r)));
    sim.extend(lifted.results.as_deref().and_then(|r| one_step_relaxation(ctx.world, r)));
    if !sim.is_empty() {
        let ok = !sim.iter().any(|r| {
            matches!(
                r.code,
                Code::PodsCannotReschedule
                    | Code::NoReadyNodePool
                    | Code::UninitializedDestination
                    | Code::MultipleReplacementsNeeded
            )
        });
        steps.push(Step { step: StepKind::Simulation, ok, findings: sim });
    }
    if !price.is_empty() {
        let ok = price.iter().all(|r| r.code == Code::Replacement);
        steps.push(Step { step: StepKind::Price, ok, findings: price });
    }
    if !score.is_empty() {
        let ok = score.iter().all(|r| r.code == Code::BalancedScoreApproved);
        steps.push(Step { step: StepKind::Score, ok, findings: score });
    }
    let mut decision = decision_findings(verdict, decision);
    if verdict == Verdict::Safe && decision.is_empty() && steps.iter().all(|s| s.ok) {
        decision.push(Reason::new(Code::Candidate, "no disruption reason applies"));
    }
    if !decision.is_empty() {
        steps.push(Step { step: StepKind::Decision, ok: action != Action::None, findings: decision });
    }
    let reasons: Vec<Reason> = steps.iter().flat_map(|s| s.findings.iter().cloned()).collect();
    let mut blocker_codes: Vec<Code> = blockers.iter().map(|r| r.code).collect();
    blocker_codes.dedup();
    let requested = node.pods.iter().filter(|p| !pod::is_terminal(p)).fold(Resources::new(), |mut acc, p| {
        pod::add(&mut acc, &ctx.world.requests(p));
        acc
    });
    NodeVerdict {
        name: node.name.clone(),
        node_claim: node.claim_name().map(str::to_owned),
        node_pool: node.node_pool_name().map(str::to_owned),
        instance_type: node.label(INSTANCE_TYPE).map(str::to_owned),
        zone: node.label(ZONE).map(str::to_owned),
        capacity_type: node.label(CAPACITY_TYPE).map(str::to_owned),
        price: c.price,
        verdict,
        reason: lifted.reason,
        action,
        method,
        disruption_cost: c.disruption_cost,
        blockers: blocker_codes,
        reasons,
        steps,
        pods,
        pod_count: node.pods.iter().filter(|p| pod::is_active(p)).count(),
        allocatable: node.allocatable(),
        requested,
    }
}
