//! Candidacy: the gates every node must pass before any method may disrupt it, and the facts
//! a candidate carries (NodePool, instance type, price, reschedulable pods, disruption cost).
//!
//! Mirrors karpenter `pkg/controllers/disruption/types.go` `NewCandidate`,
//! `pkg/controllers/state/statenode.go` (`ValidateNodeDisruptable`, `ValidatePodsDisruptable`)
//! and the per-method `ShouldDisrupt` filters. Where Karpenter stops at the first failing gate,
//! we evaluate them all so the report can list every blocker. Nominations (gate 6) are
//! in-memory upstream and cannot be seen in a snapshot; they are not replayed.

use jiff::{SignedDuration, Timestamp};

use super::cost::{self, eviction_cost};
use super::labels::{CAPACITY_TYPE, DO_NOT_DISRUPT, INSTANCE_TYPE, NODEPOOL, ZONE};
use super::pdb::{EvictionBlock, Limits};
use super::pod::DoNotDisrupt;
use super::pricing;
use super::state::{Cluster, StateNode};
use crate::reason::{Code, Reason};
use crate::rules::Rule;
use crate::snapshot::{condition, is_true, InstanceType, NodeClaim, NodePool, Pod};
use crate::upstream;

/// A node's facts and every gate that applies to it.
#[derive(Debug, Clone)]
pub(crate) struct Candidate<'a> {
    pub index: usize,
    pub name: String,
    pub pool: Option<&'a NodePool>,
    pub instance_type: Option<&'a InstanceType>,
    pub price: Option<f64>,
    pub reschedulable: Vec<&'a Pod>,
    pub disruption_cost: f64,
    /// Node-level gates (NotManaged … NodePoolNotFound).
    pub node_gates: Vec<Reason>,
    /// Pod-level gates (do-not-disrupt pods, PDBs): waived for eventual methods with a TGP.
    pub pod_gates: Vec<Reason>,
    /// Findings that explain without blocking (cost terms, invalid annotations).
    pub notes: Vec<Reason>,
}

impl Candidate<'_> {
    /// Price or 0 (Karpenter's value for an unknown price).
    pub(crate) fn price_or_zero(&self) -> f64 {
        self.price.unwrap_or(0.0)
    }

    /// Empty for Emptiness: from v1.14.0 (#2962) no reschedulable pod with a positive eviction
    /// cost; before, no reschedulable pod at all (karpenter v1.13.0 `emptiness.go ShouldDisrupt`).
    pub(crate) fn is_empty(&self, rules: &crate::rules::RuleSet) -> bool {
        if rules.has(crate::rules::Rule::EmptyByEvictionCost) {
            cost::is_empty(self.disruption_cost)
        } else {
            self.reschedulable.is_empty()
        }
    }

    pub(crate) fn savings_ratio(&self) -> f64 {
        cost::savings_ratio(self.price_or_zero(), self.disruption_cost)
    }

    /// Whether the global gates pass for a method of this class.
    pub(crate) fn passes(&self, eventual_with_tgp: bool) -> bool {
        self.node_gates.is_empty() && (eventual_with_tgp || self.pod_gates.is_empty())
    }

    pub(crate) fn has_termination_grace_period(&self, cluster: &Cluster<'_>) -> bool {
        cluster.nodes[self.index].claim.is_some_and(|c| c.spec.termination_grace_period.is_some())
    }

    pub(crate) fn is_static(&self) -> bool {
        self.pool.is_some_and(|p| p.spec.replicas.is_some())
    }
}

/// Builds the candidate view of one state node. `cost_terms`: whether its notes spell out the
/// disruption cost pod by pod (a report shows them only for the nodes it gives a verdict, and
/// writing them is most of a candidate's cost).
///
/// Mirrors [`crate::upstream::NEW_CANDIDATE`].
pub(crate) fn new_candidate<'a>(
    cluster: &Cluster<'a>,
    index: usize,
    limits: &Limits<'_>,
    cost_terms: bool,
) -> Candidate<'a> {
    let node = &cluster.nodes[index];
    let now = cluster.now;
    let mut node_gates = Vec::new();
    let gate = |code: Code, message: String| Reason::new(code, message);
    if node.already_disrupting() {
        node_gates.push(gate(Code::AlreadyDisrupting, "candidate is already being disrupted".into()).hint(
            "it carries the karpenter.sh/disrupted taint or a DisruptionReason condition: Karpenter is already acting on it",
        ));
    }
    if node.claim.is_none() {
        let hint = match node.node_pool_name().zip(cluster.rules().cite_if_active(Rule::ProviderNodeClassesOnly)) {
            // A Node Karpenter labelled whose NodeClaim cluster state left out (#1818).
            Some((pool, why)) => format!(
                "it carries karpenter.sh/nodepool={pool}, but no NodeClaim of the provider's NodeClass kinds pairs with it: \
                 a NodeClaim naming another kind in nodeClassRef is not Karpenter's ({why})"
            ),
            None => "only nodes launched through a NodeClaim are disrupted by Karpenter".to_owned(),
        };
        node_gates.push(gate(Code::NotManaged, "node isn't managed by karpenter".into()).hint(hint));
    }
    if node.node.is_none() {
        node_gates.push(
            gate(Code::NodeNotFound, "nodeclaim does not have an associated node".into())
                .hint("the instance has not registered yet (or failed to); Karpenter waits for the Node"),
        );
    }
    if node.managed() && node.node.is_some() && !node.initialized() {
        node_gates.push(
            gate(Code::NotInitialized, "node isn't initialized".into()).hint(
                "wait for the karpenter.sh/initialized=true label (startup taints removed, resources registered)",
            ),
        );
    }
    if node.marked_for_deletion(cluster.rules()) {
        node_gates.push(gate(Code::MarkedForDeletion, "node is deleting or marked for deletion".into()));
    }
    if node.annotations().get(DO_NOT_DISRUPT).map(String::as_str) == Some("true") {
        node_gates.push(
            gate(
                Code::DoNotDisruptNode,
                "disruption is blocked through the \"karpenter.sh/do-not-disrupt\" annotation".into(),
            )
            .hint(format!("kubectl annotate node {} karpenter.sh/do-not-disrupt-", node.name)),
        );
    }
    let pool = cluster.pool_of(node);
    let instance_type = pricing::instance_type_name(node).and_then(|n| cluster.instance_types.get(n).copied());
    let labels_gate_all_methods = !cluster.rules().has(Rule::PriceLabelsOnlyForConsolidation);
    if node.managed() {
        let missing_label = labels_gate_all_methods.then(|| missing_required_label(cluster, node)).flatten();
        node_gates.extend(missing_label);
        match node.node_pool_name() {
            // Said by `missing_required_label`, or a label before it in its order.
            None if labels_gate_all_methods => {}
            None => node_gates.push(gate(
                Code::MissingNodePoolLabel,
                "node doesn't have required label (label=karpenter.sh/nodepool)".into(),
            )),
            Some(name) if pool.is_none() => {
                node_gates.push(gate(Code::NodePoolNotFound, format!("nodepool not found (NodePool={name})")));
            }
            Some(_) => {
                if let (true, None, Some(label)) = (labels_gate_all_methods, instance_type, node.label(INSTANCE_TYPE)) {
                    node_gates.push(unknown_type_gate_before_v1_1(cluster, label));
                }
            }
        }
    }
    let price = pricing::node_price(node, instance_type);
    let reschedulable: Vec<&Pod> = node.pods.iter().copied().filter(|p| cluster.is_reschedulable(p)).collect();
    let disruption_cost = cost::reschedule_disruption_cost(reschedulable.iter().map(|p| cluster.eviction_cost(p)));
    let (pod_gates, mut notes) = pod_gates(cluster, node, limits, now);
    if cost_terms {
        notes.push(cost_note(&reschedulable, disruption_cost));
        if let Some(why) = cluster.rules().cite_if_inactive(Rule::CandidateOrderSavingsRatio) {
            let old = cost::disruption_cost_before_v1_14(&node.pods, node.claim, now);
            notes.push(Reason::new(
                Code::DisruptionCost,
                format!(
                    "candidate order key {old:.2} (eviction cost of every pod × lifetime left, lowest tried first), \
                     the key at {}; the savings-ratio order is {why}",
                    cluster.rules().version
                ),
            ));
        }
        if let Some(why) = cluster.rules().cite_if_inactive(Rule::SingleNodeInterleavesPools) {
            notes.push(
                Reason::new(
                    Code::DisruptionCost,
                    format!("SingleNodeConsolidation tries it in that order among every NodePool's candidates: {why}"),
                )
                .at(crate::upstream::SINGLE_NODE_SORT),
            );
        }
    }
    Candidate {
        index,
        name: node.name.clone(),
        pool,
        instance_type,
        price,
        reschedulable,
        disruption_cost,
        node_gates,
        pod_gates,
        notes,
    }
}

/// Before v1.1.0 (#1787) a candidate needs the capacity-type, zone, instance-type and nodepool
/// labels, checked in that order, the first one missing blocking it for every method (v1.0.9
/// `statenode.go:216` `ValidateNodeDisruptable`). From v1.1.0 only the nodepool label is
/// required there, and the consolidation methods check the others themselves.
fn missing_required_label(cluster: &Cluster<'_>, node: &StateNode<'_>) -> Option<Reason> {
    let key = [CAPACITY_TYPE, ZONE, INSTANCE_TYPE, NODEPOOL].into_iter().find(|key| node.label(key).is_none())?;
    let code = if key == NODEPOOL { Code::MissingNodePoolLabel } else { Code::MissingLabels };
    let why = cluster.rules().cite_if_inactive(Rule::PriceLabelsOnlyForConsolidation).unwrap_or_default();
    Some(
        Reason::new(code, format!("state node doesn't have required label \"{key}\""))
            .at(upstream::VALIDATE_NODE_DISRUPTABLE)
            .hint(format!(
                "label the NodeClaim and its Node with {key}; every method skips the node until then ({why})"
            )),
    )
}

/// Before v1.1.0 (#1787) a node whose instance type the provider does not list is blocked for
/// every method, Emptiness and Drift included (v1.0.9 `types.go:94` `NewCandidate`).
fn unknown_type_gate_before_v1_1(cluster: &Cluster<'_>, label: &str) -> Reason {
    let why = cluster.rules().cite_if_inactive(Rule::PriceLabelsOnlyForConsolidation).unwrap_or_default();
    Reason::new(Code::InstanceTypeUnknown, format!("Instance Type \"{label}\" not found"))
        .at(upstream::NEW_CANDIDATE)
        .hint(format!(
            "add the type to an InstanceTypes document or pass --prices if the provider still lists it ({why})"
        ))
}

fn pod_gates(
    cluster: &Cluster<'_>,
    node: &StateNode<'_>,
    limits: &Limits<'_>,
    now: Timestamp,
) -> (Vec<Reason>, Vec<Reason>) {
    let mut gates = Vec::new();
    let mut notes = Vec::new();
    for p in &node.pods {
        if !cluster.is_active(p) {
            continue;
        }
        match cluster.do_not_disrupt(p, now) {
            DoNotDisrupt::Active { until } => {
                let key = p.metadata.key();
                let mut r = Reason::new(
                    Code::DoNotDisruptPod,
                    format!("pod has \"karpenter.sh/do-not-disrupt\" annotation (Pod={key})"),
                )
                .at(upstream::VALIDATE_PODS_DISRUPTABLE);
                let duration = cluster.rules().cite_if_active(Rule::DoNotDisruptDuration);
                r = match until {
                    Some(t) => r.hint(format!(
                        "the annotation's grace period elapses at {t} (a duration holds by {})",
                        duration.unwrap_or_default()
                    )),
                    None => r.hint(format!(
                        "kubectl annotate pod {} -n {} karpenter.sh/do-not-disrupt-",
                        p.metadata.name,
                        p.metadata.namespace()
                    )),
                };
                gates.push(r);
            }
            DoNotDisrupt::Invalid(value) => notes.push(Reason::new(
                Code::InvalidDoNotDisrupt,
                format!(
                    "Invalid karpenter.sh/do-not-disrupt annotation on {}: {value:?}, ignoring annotation",
                    p.metadata.key()
                ),
            )),
            DoNotDisrupt::Absent => {
                if let Some(why) = ignored_duration(cluster, p) {
                    notes.push(Reason::new(Code::InvalidDoNotDisrupt, why));
                }
            }
            DoNotDisrupt::Elapsed => {}
        }
    }
    for block in limits.can_evict_pods(&node.pods, now) {
        let (code, hint) = match &block {
            EvictionBlock::MultiplePdbs { pod, .. } => {
                (Code::MultiplePdbs, format!("keep one PodDisruptionBudget per pod; {pod} is selected by several"))
            }
            EvictionBlock::NoDisruptionsAllowed { pdb, .. } => (
                Code::PdbBlocked,
                format!("kubectl get pdb {pdb_name} -n {ns}: it allows 0 disruptions now; raise replicas or loosen it (see `kubectl consolidation pdb-audit`)",
                    pdb_name = pdb.rsplit('/').next().unwrap_or(pdb), ns = pdb.split('/').next().unwrap_or("default")),
            ),
        };
        gates.push(Reason::new(code, block.message()).hint(hint));
    }
    (gates, notes)
}

/// Before v1.12.0 a do-not-disrupt value other than `"true"` is not read at all (no event):
/// said as a note that names the rule.
fn ignored_duration(cluster: &Cluster<'_>, p: &Pod) -> Option<String> {
    let why = cluster.rules().cite_if_inactive(Rule::DoNotDisruptDuration)?;
    let value = p.metadata.annotations.get(DO_NOT_DISRUPT).filter(|v| *v != "true")?;
    Some(format!("karpenter.sh/do-not-disrupt {value:?} on {} does not protect it: {why}", p.metadata.key()))
}

fn cost_note(pods: &[&Pod], total: f64) -> Reason {
    let mut terms = vec!["1.0 base".to_owned()];
    for p in pods {
        let c = eviction_cost(p);
        let mut detail = format!("{:.2} {}", c.cost.max(0.0), p.metadata.key());
        if let Some(pr) = c.priority {
            detail.push_str(&format!(" (priority {pr})"));
        }
        if let Some(dc) = c.deletion_cost {
            detail.push_str(&format!(" (pod-deletion-cost {dc})"));
        }
        if c.clamped {
            detail.push_str(" (clamped)");
        }
        terms.push(detail);
    }
    Reason::new(Code::DisruptionCost, format!("{total:.2} = {}", terms.join(" + ")))
}

/// consolidateAfter of a NodePool: `None` for `Never`, else the duration (default `0s`).
pub(crate) fn consolidate_after(pool: &NodePool) -> Option<SignedDuration> {
    let raw = pool.spec.disruption.as_ref().and_then(|d| d.consolidate_after.as_deref()).unwrap_or("0s");
    if raw == "Never" {
        return None;
    }
    Some(raw.parse().unwrap_or(SignedDuration::ZERO))
}

/// How long the NodeClaim stays inside its NodePool's consolidateAfter window, if it is.
///
/// Mirrors [`crate::upstream::IS_UNDER_CONSOLIDATE_AFTER`].
pub(crate) fn is_under_consolidate_after(pool: &NodePool, claim: &NodeClaim, now: Timestamp) -> Option<SignedDuration> {
    let after = consolidate_after(pool)?;
    if after.is_zero() || !is_true(&claim.status.conditions, "Initialized") {
        return None;
    }
    let since = claim
        .status
        .last_pod_event_time
        .or_else(|| condition(&claim.status.conditions, "Initialized").and_then(|c| c.last_transition_time))?;
    let elapsed = now.duration_since(since);
    (elapsed < after).then(|| after - elapsed)
}

/// The filters of the consolidation methods (Multi and Single) and of Emptiness that are
/// blockers rather than outcomes.
pub(crate) fn consolidatable_blockers(c: &Candidate<'_>, cluster: &Cluster<'_>, for_emptiness: bool) -> Vec<Reason> {
    let node = &cluster.nodes[c.index];
    let mut out = Vec::new();
    let Some(pool) = c.pool else { return out };
    if c.is_static() {
        out.push(Reason::new(
            Code::StaticNodePool,
            format!(
                "NodePool \"{}\" is static (spec.replicas): only StaticDrift disrupts its nodes",
                pool.metadata.name
            ),
        ));
        return out;
    }
    // Before v1.1.0 these labels and the type are node gates of every method (`new_candidate`).
    if !for_emptiness && cluster.rules().has(Rule::PriceLabelsOnlyForConsolidation) {
        if c.instance_type.is_none() {
            let label = node.label(INSTANCE_TYPE).unwrap_or_default();
            out.push(
                Reason::new(Code::InstanceTypeUnknown, format!("Instance Type \"{label}\" not found"))
                    .at(upstream::CONSOLIDATION_SHOULD_DISRUPT)
                    .hint("add the type to an InstanceTypes document or pass --prices"),
            );
        }
        for key in [CAPACITY_TYPE, ZONE] {
            if node.label(key).is_none() {
                out.push(Reason::new(Code::MissingLabels, format!("Node does not have label \"{key}\"")));
            }
        }
    }
    if consolidate_after(pool).is_none() {
        out.push(
            Reason::new(
                Code::ConsolidateAfterNever,
                format!("NodePool \"{}\" has consolidation disabled", pool.metadata.name),
            )
            .hint("spec.disruption.consolidateAfter is Never"),
        );
        return out;
    }
    if let Some(claim) = node.claim {
        let consolidatable = is_true(&claim.status.conditions, "Consolidatable");
        let remaining = is_under_consolidate_after(pool, claim, cluster.now);
        if !consolidatable || remaining.is_some() {
            let message = match remaining {
                Some(left) => format!(
                    "consolidateAfter has not elapsed since the last pod event: consolidatable in {}",
                    human(left)
                ),
                None => "NodeClaim condition Consolidatable is not True".to_owned(),
            };
            let hint = match remaining {
                Some(left) => format!("wait {} (or lower spec.disruption.consolidateAfter)", human(left)),
                None => "Karpenter sets it once consolidateAfter has elapsed since the last pod event".to_owned(),
            };
            out.push(
                Reason::new(Code::NotConsolidatableYet, message).at(upstream::CONSOLIDATABLE_CONDITION).hint(hint),
            );
        }
    }
    out
}

/// `3m20s`-style rendering of a duration; a day or more as `2d 4h` (not `52h`).
pub(crate) fn human(d: SignedDuration) -> String {
    let secs = d.as_secs().max(0);
    if secs >= 86_400 {
        let (days, hours) = (secs / 86_400, (secs % 86_400) / 3600);
        return if hours == 0 { format!("{days}d") } else { format!("{days}d {hours}h") };
    }
    let (h, m, s) = (secs / 3600, (secs % 3600) / 60, secs % 60);
    match (h, m, s) {
        (0, 0, s) => format!("{s}s"),
        (0, m, 0) => format!("{m}m"),
        (0, m, s) => format!("{m}m{s}s"),
        (h, 0, 0) => format!("{h}h"),
        (h, m, _) => format!("{h}h{m}m"),
    }
}

#[cfg(test)]
mod tests {
    use jiff::SignedDuration;

    use super::human;
    use crate::reason::Code;

    #[test]
    fn durations_read_in_days_once_they_are_long() {
        assert_eq!(human(SignedDuration::from_secs(200)), "3m20s");
        assert_eq!(human(SignedDuration::from_hours(5)), "5h");
        assert_eq!(human(SignedDuration::from_secs(60_584 * 3_600 + 300)), "2524d 8h");
        assert_eq!(human(SignedDuration::from_hours(52)), "2d 4h");
        assert_eq!(human(SignedDuration::from_hours(48)), "2d");
    }

    /// node-a without the zone and nodepool labels, with no pod: its blocking reasons at `version`.
    fn unlabelled_node_blockers(version: crate::rules::CoreVersion) -> Vec<(Code, String)> {
        use crate::testing::{managed_node, node_pool, now, snapshot};
        let [mut node, mut claim] = managed_node("node-a");
        for o in [&mut node, &mut claim] {
            let labels = o["metadata"]["labels"].as_object_mut().expect("labels");
            labels.remove("topology.kubernetes.io/zone");
            labels.remove("karpenter.sh/nodepool");
        }
        let mut s = snapshot(vec![node_pool("default"), node, claim]);
        s.info.rules = crate::rules::RuleSet::at(version);
        let report = crate::engine::replay(&s, now());
        let a = report.nodes.iter().find(|n| n.name == "node-a").expect("node-a");
        a.reasons.iter().filter(|r| a.blockers.contains(&r.code)).map(|r| (r.code, r.message.clone())).collect()
    }

    #[test]
    fn before_v1_1_the_first_missing_label_of_four_blocks_and_after_only_the_nodepool_one() {
        use crate::rules::CoreVersion;
        // v1.0.9 statenode.go ValidateNodeDisruptable: capacity-type, zone, instance-type, nodepool
        // in that order; the zone comes first here, and the nodepool label is not said twice.
        let before = unlabelled_node_blockers(CoreVersion::new(1, 0, 9));
        let want = "state node doesn't have required label \"topology.kubernetes.io/zone\"";
        assert_eq!(before, vec![(Code::MissingLabels, want.to_owned())]);
        // v1.1.0: the nodepool label alone is a candidate gate.
        let after = unlabelled_node_blockers(CoreVersion::new(1, 1, 0));
        assert!(after.iter().any(|(c, _)| *c == Code::MissingNodePoolLabel), "{after:?}");
        assert!(after.iter().all(|(_, m)| !m.contains("topology.kubernetes.io/zone")), "{after:?}");
    }
}
