//! The round: build the cluster state and candidates, run the methods in `NewMethods` order
//! until one produces a command, then give every node its verdict.
//!
//! Mirrors karpenter `pkg/controllers/disruption/controller.go` (`Reconcile`, `disrupt`). A
//! node's verdict replays its own case with the gates lifted (what would happen without the
//! annotation, the PDB, the budget…), so a `Blocked` node says what it is blocked from.

use std::borrow::Cow;
use std::collections::BTreeMap;

use jiff::Timestamp;
use serde::Serialize;

use super::balanced::Totals;
use super::budget::{build_budget_mapping, PoolBudgets, UNBOUNDED};
use super::candidate::{consolidatable_blockers, consolidation_policy, Candidate};
use super::labels::{CAPACITY_TYPE, INSTANCE_TYPE, ZONE};
use super::method::{
    self, drift, emptiness, multi_node, single_node, Command, Context, Decision, Method, Outcome, Replacement,
};
use super::pod;
use super::scheduling::{self, Destination, Options, Results};
use super::setup::{self, Setup};
use super::state::Cluster;
use crate::reason::{Code, Reason};
use crate::snapshot::{Resources, Snapshot};
use crate::upstream;

/// One node's verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum Verdict {
    Empty,
    Drifted,
    Underutilized,
    Blocked,
    Safe,
}

/// What happens to the node this round.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Delete,
    Replace,
    None,
}

/// A pipeline step of one node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
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

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Step {
    pub step: StepKind,
    pub ok: bool,
    pub findings: Vec<Reason>,
}

/// Where one of the node's pods would go.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodView {
    pub pod: String,
    pub to: String,
    pub why: Vec<String>,
    /// `node: reason` per existing node that refused the pod.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rejected_by: Vec<String>,
}

/// A command of the round, by node name.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandView {
    pub reason: &'static str,
    pub decision: Decision,
    pub method: Method,
    pub candidates: Vec<String>,
    pub replacements: Vec<Replacement>,
    pub savings: f64,
    #[serde(skip)]
    pub findings: Vec<Reason>,
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
    pub reason: Option<&'static str>,
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

/// The replay of one round.
#[derive(Debug, Clone)]
pub struct Replay {
    pub captured_at: Timestamp,
    pub method: Option<Method>,
    pub commands: Vec<CommandView>,
    pub nodes: Vec<NodeVerdict>,
    pub budgets: BTreeMap<String, PoolBudgets>,
    pub totals: BTreeMap<String, Totals>,
    /// Conclusions the snapshot cannot support (kinds that could not be read).
    pub uncertain: Vec<Reason>,
}

/// Replays one round at `now`.
///
/// Mirrors [`crate::upstream::RECONCILE`].
pub fn replay(snapshot: &Snapshot, now: Timestamp) -> Replay {
    replay_focused(snapshot, now, None)
}

/// Replays the round, but gives a verdict only to the node named `focus` (by Node or
/// NodeClaim name) when one is given: `explain` needs the round and one node, not every
/// node's own simulation.
pub fn replay_focused(snapshot: &Snapshot, now: Timestamp, focus: Option<&str>) -> Replay {
    let cluster = Cluster::new(snapshot, now);
    let Setup { candidates, totals, world } = setup::build(&cluster, focus);
    let budgets = build_budget_mapping(&cluster);
    let single_moves = std::cell::RefCell::default();
    let ctx = Context {
        cluster: &cluster,
        world: &world,
        candidates: &candidates,
        budgets: &budgets,
        totals: &totals,
        single_moves: &single_moves,
    };
    let mut acting: Option<(Method, Outcome)> = None;
    let mut skipped: BTreeMap<usize, Vec<Reason>> = BTreeMap::new();
    for m in Method::ALL {
        let outcome = match m {
            Method::Emptiness => emptiness::compute_commands(&ctx),
            Method::StaticDrift => drift::compute_static(&ctx),
            Method::Drift => drift::compute_commands(&ctx),
            Method::MultiNode => multi_node::compute_commands(&ctx),
            Method::SingleNode => single_node::compute_commands(&ctx),
        };
        for (i, reasons) in &outcome.skipped {
            skipped.entry(*i).or_default().extend(reasons.iter().cloned());
        }
        if !outcome.commands.is_empty() {
            acting = Some((m, outcome));
            break;
        }
    }
    let commands: Vec<&Command> = acting.as_ref().map(|(_, o)| o.commands.iter().collect()).unwrap_or_default();
    let uncertain: Vec<Reason> = snapshot
        .info
        .unread
        .iter()
        .map(|u| {
            Reason::new(
                Code::Uncertain,
                format!("{} could not be read ({}): conclusions that depend on them are uncertain", u.kind, u.reason),
            )
        })
        .collect();
    let in_focus = |c: &Candidate<'_>| focus.is_none_or(|f| cluster.nodes[c.index].is_named(f));
    let nodes = candidates
        .iter()
        .filter(|c| in_focus(c))
        .map(|c| {
            let command = commands.iter().copied().find(|cmd| cmd.candidates.contains(&c.index));
            let round = acting.as_ref().map(|(m, _)| *m);
            let mut v = verdict(&ctx, c, command, round, skipped.get(&c.index), focus.is_some());
            v.reasons.extend(uncertain.iter().cloned());
            v
        })
        .collect();
    Replay {
        captured_at: now,
        method: acting.as_ref().map(|(m, _)| *m),
        commands: commands.iter().map(|c| command_view(&cluster, c)).collect(),
        nodes,
        budgets,
        totals,
        uncertain,
    }
}

fn command_view(cluster: &Cluster<'_>, c: &Command) -> CommandView {
    CommandView {
        reason: c.method.reason(),
        decision: c.decision,
        method: c.method,
        candidates: c.candidates.iter().map(|&i| cluster.nodes[i].name.clone()).collect(),
        replacements: c.replacements.clone(),
        savings: c.savings,
        findings: c.findings.clone(),
    }
}

/// The reason that applies to the node with its gates lifted, and how it was found.
struct Lifted<'r> {
    reason: Option<&'static str>,
    findings: Vec<Reason>,
    /// The simulation behind the verdict: the acting command's (shared), or the node's own.
    results: Option<Cow<'r, Results>>,
}

fn lifted(ctx: &Context<'_, '_>, c: &Candidate<'_>) -> Lifted<'static> {
    let cluster = ctx.cluster;
    let node = &cluster.nodes[c.index];
    let no_reason = |findings| Lifted { reason: None, findings, results: None };
    if !node.managed() || node.node.is_none() || c.pool.is_none() {
        return no_reason(vec![]);
    }
    let mut findings = classify(ctx, c);
    if c.is_empty() {
        return Lifted { reason: Some("Empty"), findings, results: None };
    }
    if drift::is_drifted(cluster, c) {
        let results =
            scheduling::simulate(ctx.world, &[c.index], Options { lift_pod_gates: true, ..Options::default() });
        if let Some(errors) = results.non_pending_errors() {
            findings.push(
                Reason::new(Code::PodsCannotReschedule, method::consolidation::sentence(&errors))
                    .at(upstream::DRIFT_COMPUTE),
            );
        }
        return Lifted { reason: Some("Drifted"), findings, results: Some(Cow::Owned(results)) };
    }
    if c.is_static() {
        return no_reason(findings);
    }
    let pool = c.pool.map(consolidation_policy).unwrap_or_default();
    if pool == "WhenEmpty" {
        findings.push(Reason::new(
            Code::PolicyWhenEmpty,
            format!(
                "NodePool \"{}\" has consolidation policy WhenEmpty, but node is not empty",
                c.pool.map(|p| p.metadata.name.as_str()).unwrap_or_default()
            ),
        ));
        return no_reason(findings);
    }
    let single = single_node::own_move(ctx, c, true);
    if let Some(command) = single.command {
        findings.extend(command.findings.iter().cloned());
        return Lifted { reason: Some("Underutilized"), findings, results: Some(Cow::Owned(command.results)) };
    }
    findings.extend(single.reason);
    Lifted { reason: None, findings, results: single.results.map(Cow::Owned) }
}

/// What the node is, before any method decides: empty by cost or not, drifted or not.
fn classify(ctx: &Context<'_, '_>, c: &Candidate<'_>) -> Vec<Reason> {
    let mut out = Vec::new();
    if c.is_empty() {
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
    } else if !c.is_empty() {
        out.push(Reason::new(Code::NotDrifted, "NodeClaim has no Drifted=True condition"));
    }
    out
}

fn verdict(
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
    let waive_pod_gates = lifted.reason == Some("Drifted") && c.has_termination_grace_period(cluster);
    let mut gates: Vec<Reason> = c.node_gates.clone();
    if !waive_pod_gates {
        gates.extend(c.pod_gates.iter().cloned());
    }
    let filters: Vec<Reason> = match lifted.reason {
        Some("Empty") => consolidatable_blockers(c, cluster, true),
        Some("Underutilized") => consolidatable_blockers(c, cluster, false),
        _ => Vec::new(),
    };
    let mut budget_findings = Vec::new();
    let mut budget_ok = true;
    if let (Some(reason), Some(pool)) = (lifted.reason, c.pool) {
        if let Some(b) = ctx.budgets.get(&pool.metadata.name) {
            let (finding, ok) = budget_finding(b, reason, acting.is_some());
            budget_ok = ok;
            budget_findings.push(finding);
        }
    }
    let mut blockers: Vec<Reason> = gates.clone();
    blockers.extend(filters.iter().cloned());
    blockers.extend(budget_findings.iter().filter(|r| r.code == Code::BudgetExhausted).cloned());
    let (verdict, action, method) = match (acting, lifted.reason) {
        (Some(cmd), Some(reason)) => (reason_verdict(reason), action_of(cmd.decision), Some(cmd.method)),
        (None, Some(_)) if !blockers.is_empty() => (Verdict::Blocked, Action::None, None),
        (None, Some(reason)) => (reason_verdict(reason), Action::None, None),
        _ => (Verdict::Safe, Action::None, None),
    };
    let (classified, sim, price, score, decision) = split_findings(&lifted.findings);
    let mut method_findings = classified;
    method_findings.extend(filters.iter().cloned());
    if let Some(extra) = skipped {
        let already = |r: &Reason| r.code == Code::BudgetExhausted || lifted.findings.iter().any(|f| f.code == r.code);
        method_findings.extend(extra.iter().filter(|r| !already(r)).cloned());
    }
    if acting.is_none() && lifted.reason.is_some() && blockers.is_empty() {
        method_findings.push(waiting(round_method, lifted.reason.unwrap_or_default()));
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
    let method_ok = filters.is_empty() && !method_findings.iter().any(|r| r.code == Code::PolicyWhenEmpty);
    steps.push(Step { step: StepKind::Method, ok: method_ok, findings: method_findings });
    let mut sim = sim;
    if sim.is_empty() {
        sim.extend(lifted.results.as_deref().and_then(placement_summary));
    }
    if !sim.is_empty() {
        let ok = !sim.iter().any(|r| {
            matches!(
                r.code,
                Code::PodsCannotReschedule | Code::UninitializedDestination | Code::MultipleReplacementsNeeded
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

fn budget_finding(b: &PoolBudgets, reason: &str, acted: bool) -> (Reason, bool) {
    let Some(r) = b.for_reason(reason) else {
        return (Reason::new(Code::BudgetAllowed, "no budget applies"), true);
    };
    let parts: Vec<String> = r
        .applies
        .iter()
        .map(|&i| {
            let s = &b.budgets[i];
            match (s.value, &s.error) {
                (_, Some(e)) => format!("{} (error: {e})", s.nodes),
                (Some(v), None) => format!("{}→{v}", s.nodes),
                (None, None) => format!("{} (inactive)", s.nodes),
            }
        })
        .collect();
    let allowed = if r.allowed >= UNBOUNDED { "unbounded".to_owned() } else { r.allowed.to_string() };
    let in_flight = b.disrupting.len();
    let text = format!(
        "budget for {reason} in NodePool \"{}\": allowed {allowed} = min({}) of {} node(s), {in_flight} in flight, {} remaining",
        b.node_pool,
        parts.join(", "),
        b.counted_nodes,
        if r.remaining >= UNBOUNDED { "unbounded".to_owned() } else { r.remaining.to_string() }
    );
    if r.remaining > 0 || acted {
        return (Reason::new(Code::BudgetAllowed, text).at(upstream::BUILD_BUDGET_MAPPING), true);
    }
    let opens = r.applies.iter().filter_map(|&i| b.budgets[i].window_closes_at).min().map_or_else(
        || "raise spec.disruption.budgets or wait for in-flight disruptions to finish".to_owned(),
        |t| format!("the blocking budget window closes at {t}"),
    );
    (Reason::new(Code::BudgetExhausted, text).at(upstream::GET_ALLOWED_DISRUPTIONS).hint(opens), false)
}

fn reason_verdict(reason: &str) -> Verdict {
    match reason {
        "Empty" => Verdict::Empty,
        "Drifted" => Verdict::Drifted,
        _ => Verdict::Underutilized,
    }
}

fn action_of(d: Decision) -> Action {
    match d {
        Decision::Delete => Action::Delete,
        Decision::Replace => Action::Replace,
    }
}

fn waiting(round_method: Option<Method>, reason: &str) -> Reason {
    let text = match round_method {
        Some(m) if m.reason() == reason => {
            format!("{} acts on other node(s) this round; this one is next in line", m.as_str())
        }
        Some(m) => format!("{} acted first this round (the first method with a command ends the round); {reason} comes in a later round", m.as_str()),
        None => format!("{reason} would apply, but the method did not choose it this round"),
    };
    Reason::new(Code::WaitingForOtherMethod, text)
}

/// Findings by pipeline step: method classification, simulation, price, score, decision.
type Split = (Vec<Reason>, Vec<Reason>, Vec<Reason>, Vec<Reason>, Vec<Reason>);

fn split_findings(findings: &[Reason]) -> Split {
    let (mut classified, mut sim, mut price, mut score, mut decision) = Split::default();
    for f in findings {
        match f.code {
            Code::Empty | Code::NotEmpty | Code::Drifted | Code::NotDrifted | Code::PolicyWhenEmpty
                if f.upstream == f.code.upstream() =>
            {
                classified.push(f.clone());
            }
            Code::PodsCannotReschedule
            | Code::PodsReschedule
            | Code::UninitializedDestination
            | Code::MultipleReplacementsNeeded => {
                sim.push(f.clone());
            }
            Code::NotCheaper
            | Code::PriceUnknown
            | Code::SpotToSpotDisabled
            | Code::SpotFlexibilityTooLow
            | Code::SameInstanceType
            | Code::Replacement => {
                price.push(f.clone());
            }
            Code::BalancedScoreTooLow | Code::BalancedScoreApproved => score.push(f.clone()),
            _ => decision.push(f.clone()),
        }
    }
    (classified, sim, price, score, decision)
}

/// The decision step: what happens, or for a blocked node what would happen without the gates.
fn decision_findings(verdict: Verdict, found: Vec<Reason>) -> Vec<Reason> {
    match verdict {
        Verdict::Blocked => found
            .into_iter()
            .map(|mut r| {
                r.message = format!("with the gates lifted: {}", r.message);
                r
            })
            .collect(),
        _ => found,
    }
}

/// "3 pod(s): 2 to existing nodes, 1 to new NodeClaim(s)" when no finding said it already.
fn placement_summary(results: &Results) -> Option<Reason> {
    let moved: Vec<_> = results.moves.iter().filter(|m| !m.pending).collect();
    if moved.is_empty() {
        return None;
    }
    let existing = moved.iter().filter(|m| matches!(m.to, Destination::Existing(_))).count();
    let new = moved.iter().filter(|m| matches!(m.to, Destination::New(_))).count();
    Some(Reason::new(
        Code::PodsReschedule,
        format!(
            "{} pod(s): {existing} fit on existing nodes, {new} {} {} new NodeClaim(s)",
            moved.len(),
            if new == 1 { "needs" } else { "need" },
            results.new_claims.len()
        ),
    ))
}

fn pod_views(results: &Results) -> Vec<PodView> {
    results
        .moves
        .iter()
        .filter(|m| !m.pending)
        .map(|m| PodView {
            pod: m.pod.clone(),
            to: match &m.to {
                Destination::Existing(n) => n.clone(),
                Destination::New(i) => format!("new NodeClaim #{}", i + 1),
                Destination::Nowhere => "nowhere".to_owned(),
            },
            why: m.why.clone(),
            rejected_by: m.rejections.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{replay, Action, Verdict};
    use crate::reason::Code;
    use crate::testing::{managed_node, node_pool, now, pod, set, snapshot};

    fn node_of<'r>(r: &'r super::Replay, name: &str) -> &'r super::NodeVerdict {
        r.nodes.iter().find(|n| n.name == name).expect("node in replay")
    }

    fn two_nodes(extra: Vec<serde_json::Value>) -> crate::snapshot::Snapshot {
        let mut objects = vec![node_pool("default")];
        objects.extend(managed_node("node-a"));
        objects.extend(managed_node("node-b"));
        objects.push(pod("keep", "node-b"));
        objects.extend(extra);
        snapshot(objects)
    }

    #[test]
    fn emptiness_runs_before_drift() {
        let [node, claim] = managed_node("node-c");
        let claim = set(
            claim,
            "/status/conditions",
            json!([
            {"type": "Initialized", "status": "True"}, {"type": "Consolidatable", "status": "True"},
            {"type": "Drifted", "status": "True", "reason": "NodePoolDrifted"}]),
        );
        let r = replay(&two_nodes(vec![node, claim]), now());
        assert_eq!(r.method.map(super::Method::as_str), Some("Emptiness"));
        assert!(r.commands[0].candidates.contains(&"node-c".to_owned()));
    }

    #[test]
    fn do_not_disrupt_pod_blocks_and_lifting_it_would_consolidate() {
        let guarded =
            set(pod("guarded", "node-a"), "/metadata/annotations", json!({"karpenter.sh/do-not-disrupt": "true"}));
        let r = replay(&two_nodes(vec![guarded]), now());
        let a = node_of(&r, "node-a");
        assert_eq!((a.verdict, a.reason, a.action), (Verdict::Blocked, Some("Underutilized"), Action::None));
        assert_eq!(a.blockers, vec![Code::DoNotDisruptPod]);
    }

    #[test]
    fn node_annotation_blocks_only_when_exactly_true() {
        let [node, claim] = managed_node("node-c");
        let node = set(node, "/metadata/annotations", json!({"karpenter.sh/do-not-disrupt": "false"}));
        let r = replay(&two_nodes(vec![node, claim, pod("p", "node-c")]), now());
        assert!(!node_of(&r, "node-c").blockers.contains(&Code::DoNotDisruptNode));
        let [node, claim] = managed_node("node-c");
        let node = set(node, "/metadata/annotations", json!({"karpenter.sh/do-not-disrupt": "true"}));
        let r = replay(&two_nodes(vec![node, claim, pod("p", "node-c")]), now());
        assert!(node_of(&r, "node-c").blockers.contains(&Code::DoNotDisruptNode));
    }

    #[test]
    fn deleting_nodeclaim_is_marked_for_deletion_and_consumes_budget() {
        let [node, claim] = managed_node("node-c");
        let claim = set(claim, "/metadata/deletionTimestamp", json!("2026-11-29T09:59:00Z"));
        let r = replay(&two_nodes(vec![node, claim]), now());
        assert!(node_of(&r, "node-c").blockers.contains(&Code::MarkedForDeletion));
        assert_eq!(r.budgets["default"].disrupting, vec!["node-c".to_owned()]);
    }

    #[test]
    fn consolidate_after_not_elapsed_says_how_long() {
        let mut s = two_nodes(vec![pod("p", "node-a")]);
        let pool = s.node_pools[0].spec.disruption.as_mut().expect("disruption");
        pool.consolidate_after = Some("3h".into());
        let r = replay(&s, now());
        let a = node_of(&r, "node-a");
        assert!(a.blockers.contains(&Code::NotConsolidatableYet), "{:?}", a.blockers);
        let reason = a.reasons.iter().find(|r| r.code == Code::NotConsolidatableYet).expect("reason");
        assert!(reason.message.ends_with("consolidatable in 1h"), "{}", reason.message);
    }

    #[test]
    fn unknown_nodepool_and_missing_label_are_gates() {
        let [node, claim] = managed_node("node-c");
        let node = set(node, "/metadata/labels/karpenter.sh~1nodepool", json!("ghost"));
        let r = replay(&two_nodes(vec![node, claim]), now());
        assert!(
            node_of(&r, "node-c").blockers.contains(&Code::NodePoolNotFound),
            "{:?}",
            node_of(&r, "node-c").blockers
        );
    }

    #[test]
    fn budget_zero_blocks_the_underutilized_node() {
        let mut s = two_nodes(vec![pod("p", "node-a")]);
        let pool = s.node_pools[0].spec.disruption.as_mut().expect("disruption");
        pool.budgets = Some(vec![crate::snapshot::Budget { nodes: "0".into(), ..Default::default() }]);
        let r = replay(&s, now());
        assert!(r.method.is_none());
        assert!(node_of(&r, "node-a").blockers.contains(&Code::BudgetExhausted));
    }

    #[test]
    fn same_input_same_verdicts() {
        let s = two_nodes(vec![pod("p", "node-a")]);
        let a = replay(&s, now());
        let b = replay(&s, now());
        assert_eq!(a.nodes, b.nodes);
    }
}
