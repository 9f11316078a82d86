//! The findings of one node's verdict, grouped by the pipeline step they belong to, and the
//! findings the verdict adds itself (budget, waiting, placement summary, where each pod goes).

use crate::engine::budget::{PoolBudgets, UNBOUNDED};
use crate::engine::method::Method;
use crate::engine::nodepool::DisruptionReason;
use crate::engine::scheduling::{Destination, Results, World};
use crate::reason::{Code, Reason};
use crate::rules::{Rule, RuleSet};
use crate::upstream;

use super::{PodView, StepKind, Verdict};

/// Findings of the method, simulation, price, score and decision steps.
#[derive(Debug, Default)]
pub(super) struct ByStep {
    pub(super) method: Vec<Reason>,
    pub(super) simulation: Vec<Reason>,
    pub(super) price: Vec<Reason>,
    pub(super) score: Vec<Reason>,
    pub(super) decision: Vec<Reason>,
}

impl ByStep {
    /// Files each finding under its step ([`step_of`]).
    pub(super) fn group(findings: &[Reason]) -> Self {
        let mut by = ByStep::default();
        for f in findings {
            let list = match step_of(f) {
                StepKind::Method => &mut by.method,
                StepKind::Simulation => &mut by.simulation,
                StepKind::Price => &mut by.price,
                StepKind::Score => &mut by.score,
                _ => &mut by.decision,
            };
            list.push(f.clone());
        }
        by
    }
}

/// The step a method's finding belongs to. A classification (Empty, Drifted…) made by a
/// method's own command carries that method's `ref`, not the classifier's, and then tells the
/// decision rather than the classification.
fn step_of(f: &Reason) -> StepKind {
    match f.code {
        Code::Empty | Code::NotEmpty | Code::Drifted | Code::NotDrifted | Code::PolicyWhenEmpty
            if f.upstream == f.code.upstream() =>
        {
            StepKind::Method
        }
        Code::PodsCannotReschedule
        | Code::NoReadyNodePool
        | Code::PodsReschedule
        | Code::UninitializedDestination
        | Code::MultipleReplacementsNeeded => StepKind::Simulation,
        Code::NotCheaper
        | Code::PriceUnknown
        | Code::SpotToSpotDisabled
        | Code::SpotFlexibilityTooLow
        | Code::SameInstanceType
        | Code::MinValuesNotMet
        | Code::NoPositiveSavings
        | Code::Replacement => StepKind::Price,
        Code::BalancedScoreTooLow | Code::BalancedScoreApproved => StepKind::Score,
        _ => StepKind::Decision,
    }
}

/// The budget step: what the pool's budget allows for `reason`, and whether it lets the node go.
pub(super) fn budget_finding(
    b: &PoolBudgets,
    reason: DisruptionReason,
    acted: bool,
    rules: &RuleSet,
) -> (Reason, bool) {
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
        "budget for {} in NodePool \"{}\": allowed {allowed} = min({}) of {} node(s), {in_flight} in flight, {} remaining",
        reason.as_str(),
        b.node_pool,
        parts.join(", "),
        b.counted_nodes,
        if r.remaining >= UNBOUNDED { "unbounded".to_owned() } else { r.remaining.to_string() }
    );
    let text = match terminating_note(b, rules) {
        Some(note) => format!("{text}; {note}"),
        None => text,
    };
    if r.remaining > 0 || acted {
        return (Reason::new(Code::BudgetAllowed, text).at(upstream::BUILD_BUDGET_MAPPING), true);
    }
    let opens = r.applies.iter().filter_map(|&i| b.budgets[i].window_closes_at).min().map_or_else(
        || "raise spec.disruption.budgets or wait for in-flight disruptions to finish".to_owned(),
        |t| format!("the blocking budget window closes at {t}"),
    );
    (Reason::new(Code::BudgetExhausted, text).at(upstream::GET_ALLOWED_DISRUPTIONS).hint(opens), false)
}

/// Before #1735 the pool's total (and, when deleting, its in-flight count) holds nodes whose
/// instance is already terminating: said where the budget is shown, with the rule.
fn terminating_note(b: &PoolBudgets, rules: &RuleSet) -> Option<String> {
    if b.terminating_counted.is_empty() {
        return None;
    }
    let why = rules.cite_if_inactive(Rule::BudgetSkipsInstanceTerminating)?;
    Some(format!("counted though InstanceTerminating: {}; skipping them is {why}", b.terminating_counted.join(", ")))
}

/// Why a node a reason applies to is not in this round's command.
pub(super) fn waiting(round_method: Option<Method>, reason: DisruptionReason, rules: &RuleSet) -> Reason {
    let reason_name = reason.as_str();
    let text = match round_method {
        Some(m) if m.reason() == reason => {
            format!("{} acts on other node(s) this round; this one is next in line", m.as_str())
        }
        // Drift before Emptiness is the older order: say which rule put it there.
        Some(m @ Method::Drift) if reason == DisruptionReason::Empty && !rules.has(Rule::EmptinessBeforeDrift) => format!(
            "{} acted first this round (the first method with a command ends the round); {reason_name} comes in a later round: \
             Emptiness runs after Drift, {}",
            m.as_str(),
            rules.cite_if_inactive(Rule::EmptinessBeforeDrift).unwrap_or_default()
        ),
        Some(m) => format!("{} acted first this round (the first method with a command ends the round); {reason_name} comes in a later round", m.as_str()),
        None => format!("{reason_name} would apply, but the method did not choose it this round"),
    };
    Reason::new(Code::WaitingForOtherMethod, text)
}

/// The decision step: what happens, or for a blocked node what would happen without the gates.
pub(super) fn decision_findings(verdict: Verdict, found: Vec<Reason>) -> Vec<Reason> {
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
pub(super) fn placement_summary(results: &Results) -> Option<Reason> {
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

/// Before #2033 a simulation also places the pods that cannot leave now (do-not-disrupt, or
/// fully blocked by a PDB), on its candidates and on every deleting node: said in the
/// simulation step when such pods were placed, with the rule. A simulation with the pod gates
/// lifted places its candidates' pods at every version, so only the deleting nodes' count then.
pub(super) fn held_pods_simulated(world: &World<'_, '_>, results: &Results) -> Option<Reason> {
    let why = world.cluster.rules().cite_if_inactive(Rule::SimulateExcludesFullyBlockedPods)?;
    let own = results.candidates.iter().filter(|_| !results.options.lift_pod_gates);
    let mut nodes: Vec<usize> = own.chain(&world.deleting).copied().collect();
    nodes.sort_unstable();
    nodes.dedup();
    let pods: Vec<String> =
        nodes.iter().flat_map(|&i| world.held_by_pdb_or_annotation(i)).map(|p| p.metadata.key()).collect();
    if pods.is_empty() {
        return None;
    }
    Some(Reason::new(
        Code::PodsReschedule,
        format!(
            "{} simulated though do-not-disrupt or fully blocked by a PDB; leaving such pods out is {why}",
            pods.join(", ")
        ),
    ))
}

/// Before #2265 (v1.7.0) and #3025 (v1.13.0) fewer taints were known to be ephemeral: an
/// initializing node that kept such a taint and turned a moved pod away is named in the
/// simulation step, with the rule that would have looked past the taint.
pub(super) fn ephemeral_taints_kept(world: &World<'_, '_>, results: &Results) -> Option<Reason> {
    use crate::engine::scheduling::taints::EphemeralTaints;
    let known = EphemeralTaints::of(world.cluster.rules());
    if known == EphemeralTaints::NEWEST {
        return None;
    }
    // The nodes a taint turned a pod away from, by name (`node: reason`): only those are looked
    // up, so a verdict does not walk every node.
    let refused: Vec<&str> = results
        .moves
        .iter()
        .flat_map(|m| &m.rejections)
        .filter(|r| r.contains("untolerated taint"))
        .filter_map(|r| r.split_once(": ").map(|(node, _)| node))
        .collect();
    if refused.is_empty() {
        return None;
    }
    let mut notes = Vec::new();
    for node in world.nodes.iter().filter(|n| !n.initialized && refused.contains(&n.name.as_str())) {
        for taint in node.taints.iter() {
            let Some(rule) = known.rule_missing_for(taint) else { continue };
            let why = world.cluster.rules().cite_if_inactive(rule).unwrap_or_default();
            notes.push(format!(
                "{} is initializing and keeps its taint {}:{}; looking past it is {why}",
                node.name, taint.key, taint.effect
            ));
        }
    }
    if notes.is_empty() {
        return None;
    }
    Some(Reason::new(Code::PodsReschedule, notes.join("; ")).at(upstream::KNOWN_EPHEMERAL_TAINTS))
}

/// A pending pod left out because new NodeClaims had none of its host ports free, when a
/// version rule made them taken: from v1.4.0 to v1.12.x every NodeClaim of a NodePool shares
/// one host-port usage (#2102 until #3022), and from v1.4.0 a new NodeClaim holds its
/// DaemonSets' ports (#2102).
pub(super) fn pending_host_ports(world: &World<'_, '_>, results: &Results) -> Option<Reason> {
    let rules = world.cluster.rules();
    if !rules.has(Rule::DaemonHostPortsOnNewClaims) {
        return None;
    }
    let refused: Vec<&str> = results
        .moves
        .iter()
        .filter(|m| m.pending && m.to == Destination::Nowhere && m.why.iter().any(|w| w.contains("host port")))
        .map(|m| m.pod.as_str())
        .collect();
    if refused.is_empty() {
        return None;
    }
    let daemon_ports = rules.cite_if_active(Rule::DaemonHostPortsOnNewClaims)?;
    let why = if rules.has(Rule::HostPortsPerNewClaim) {
        format!("a new NodeClaim holds its DaemonSets' host ports, the {daemon_ports}")
    } else {
        format!(
            "a new NodeClaim's host-port usage holds its DaemonSets' ports and, shared by every NodeClaim of its \
             NodePool, each port their pods took (the {daemon_ports}); a usage per NodeClaim is the {}, not in force at {}",
            crate::rules::row(Rule::HostPortsPerNewClaim).cite(),
            rules.version
        )
    };
    Some(
        Reason::new(
            Code::PodsReschedule,
            format!("pending {} left out: no new NodeClaim had its host ports free; {why}", refused.join(", ")),
        )
        .at(upstream::GET_DAEMON_HOST_PORT_USAGE),
    )
}

/// A moved pod a topology spread turned away, when the version's spread rules differ from the
/// newest: before #852 (v1.3.0) the policies and `matchLabelKeys` are not read and every
/// NodePool's domain counts; at exactly v1.8.1 (#2639) and v1.11.0 (#2671) the NodePools'
/// domains are also filtered by the pod's node affinity; before #2780 (v1.9.0) a volume's zone
/// is part of that affinity.
pub(super) fn spread_rules(world: &World<'_, '_>, results: &Results) -> Option<Reason> {
    let rules = world.cluster.rules();
    // The version's spread rules first: at most versions there is nothing to say, and no
    // refusal text is read.
    let cites: Vec<String> = [
        rules.cite_if_inactive(Rule::SpreadInclusionPolicies),
        rules.cite_if_active(Rule::SpreadDomainsBySourceAffinity),
        rules.cite_if_active(Rule::SpreadDomainsByPoolAffinity),
        rules.cite_if_inactive(Rule::VolumeRequirementsOutsideSpreads),
    ]
    .into_iter()
    .flatten()
    .collect();
    if cites.is_empty() {
        return None;
    }
    let spread_refused = results
        .moves
        .iter()
        .any(|m| m.why.iter().chain(&m.rejections).any(|w| w.contains("didn't match pod topology spread constraints")));
    if !spread_refused {
        return None;
    }
    Some(
        Reason::new(
            Code::PodsReschedule,
            format!(
                "a topology spread turned a pod away under the spread rules of {}: {}",
                rules.version,
                cites.join("; ")
            ),
        )
        .at(upstream::TOPOLOGY_DOMAIN_GROUP_FOR_EACH),
    )
}

/// Before #2119 (v1.4.0) a pod that did not fit was relaxed one preference per attempt, the
/// other pods trying in between: said when a candidate's pod with something to relax found no
/// place.
pub(super) fn one_step_relaxation(world: &World<'_, '_>, results: &Results) -> Option<Reason> {
    let why = world.cluster.rules().cite_if_inactive(Rule::RelaxFullyPerAttempt)?;
    let nowhere: Vec<&str> =
        results.moves.iter().filter(|m| !m.pending && m.to == Destination::Nowhere).map(|m| m.pod.as_str()).collect();
    if nowhere.is_empty() {
        return None;
    }
    let unplaced: Vec<String> = results
        .candidates
        .iter()
        .flat_map(|&i| world.nodes[i].pods.iter())
        .map(|p| (p, p.metadata.key()))
        .filter(|(_, key)| nowhere.contains(&key.as_str()))
        .filter(|(p, _)| world.preferences.relax(&mut std::borrow::Cow::Borrowed(**p)).is_some())
        .map(|(_, key)| key)
        .collect();
    if unplaced.is_empty() {
        return None;
    }
    Some(
        Reason::new(
            Code::PodsReschedule,
            format!(
                "{} relaxed one preference per attempt; relaxing fully in one attempt is {why}",
                unplaced.join(", ")
            ),
        )
        .at(upstream::SCHEDULER_TRY_SCHEDULE),
    )
}

/// Where each moved pod goes (only `explain` asks).
pub(super) fn pod_views(results: &Results) -> Vec<PodView> {
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

/// Where the capacity buffers' virtual pods went in this simulation, when any needed a new
/// NodeClaim or found no place: the room they take is why a delete became a replace, or a
/// replacement grew.
pub(super) fn buffer_pods_placed(world: &World<'_, '_>, results: &Results) -> Option<Reason> {
    let virtual_pods = &world.cluster.snapshot.virtual_pods;
    if virtual_pods.is_empty() {
        return None;
    }
    let (mut on_new, mut nowhere) = (0usize, 0usize);
    for m in results.moves.iter().filter(|m| world.is_virtual_pod(&m.pod)) {
        match m.to {
            Destination::New(_) => on_new += 1,
            Destination::Nowhere => nowhere += 1,
            Destination::Existing(_) => {}
        }
    }
    if on_new + nowhere == 0 {
        return None;
    }
    Some(
        Reason::new(
            Code::PodsReschedule,
            format!(
                "{} of the capacity buffers' {} virtual pod(s) simulated with every move: {on_new} on new NodeClaim(s), \
                 {nowhere} with no place (their failures block nothing)",
                on_new + nowhere,
                virtual_pods.len()
            ),
        )
        .at(upstream::GET_PENDING_PODS),
    )
}
