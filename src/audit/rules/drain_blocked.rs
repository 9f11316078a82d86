//! `DrainBlocked` (warning): the budget can never allow an eviction, now or at the HPA's
//! `minReplicas`, so the nodes its pods sit on are pinned; says which, what they cost, and
//! which `terminationGracePeriod` (if any) ends it.

use std::collections::BTreeSet;

use crate::audit::budget::{Amount, Rule};
use crate::audit::code::FindingCode;
use crate::audit::context::Draft;
use crate::audit::facts::NodePlacement;
use crate::audit::finding::Fix;
use crate::audit::fixes::{self, list, per_hour, per_month, replicas};
use crate::audit::nodes::HOURS_PER_MONTH;
use crate::audit::placement;
use crate::audit::view::{At, View};

/// The budget can never allow an eviction: the nodes its pods sit on are pinned.
pub(super) fn drain_blocked<'a>(view: &View<'_, 'a>) -> Option<Draft<'a>> {
    let now = view.now();
    let at = if view.rule.allowed(now) == 0 {
        At::Now
    } else if view.at(At::HpaMin) < now && view.at(At::HpaMin) >= 1 && view.rule.allowed(view.at(At::HpaMin)) == 0 {
        At::HpaMin
    } else {
        return None;
    };
    let n = view.at(at);
    let why = never_allows(view, n);
    let (_, _, placed) = placement::place(view.ctx, view.pods);
    let consequence = pinned(view, &placed);
    let message = match (at, view.hpa_workload()) {
        (At::HpaMin, Some(w)) => format!(
            "once HPA {} scales {} to minReplicas {n}, {why}: {consequence}",
            w.hpa.as_ref().map_or("", |h| h.name.as_str()),
            w.id
        ),
        _ => format!("{why}: {consequence}"),
    };
    let fix = drain_blocked_fix(view, n);
    let mut draft = view.finding(FindingCode::DrainBlocked, None, view.pods, message, fix);
    let prices: Vec<f64> = placed.iter().filter_map(|p| p.price_per_hour).collect();
    if !prices.is_empty() {
        let hour: f64 = prices.iter().sum();
        draft.finding.facts.price_per_hour = Some(hour);
        draft.finding.facts.price_per_month = Some(hour * HOURS_PER_MONTH);
    }
    draft.finding.facts.termination_grace_period = common_grace_period(&placed);
    Some(draft)
}

/// Why a budget allows nothing with `n` expected pods, in words.
fn never_allows(view: &View<'_, '_>, n: i32) -> String {
    let rule = &view.rule;
    match rule {
        Rule::Neither => format!("{rule} is set, so the disruption controller allows no eviction"),
        Rule::MaxUnavailable(Amount::Invalid(_)) | Rule::MinAvailable(Amount::Invalid(_)) => {
            format!("{rule}: the disruption controller fails safe and allows no eviction")
        }
        _ if n == 0 => format!(
            "{rule} counts no expected pod (pods without a controller only count for an integer minAvailable), so it allows no eviction"
        ),
        Rule::MinAvailable(Amount::Percent(p)) => format!(
            "minAvailable: {p}% of {} rounds up to {}, so it never allows an eviction",
            replicas(n),
            rule.desired_healthy(n)
        ),
        _ => format!("{rule} on {} never allows an eviction", replicas(n)),
    }
}

/// The `terminationGracePeriod` every Karpenter node shares, if they share one.
fn common_grace_period(placed: &[NodePlacement]) -> Option<String> {
    let mut periods = placed.iter().filter(|p| p.karpenter == Some(true)).map(|p| p.termination_grace_period.clone());
    let first = periods.next()??;
    periods.all(|p| p.as_deref() == Some(first.as_str())).then_some(first)
}

/// What pinning the nodes means: which, what they cost, and what ends it.
fn pinned(view: &View<'_, '_>, placed: &[NodePlacement]) -> String {
    if placed.is_empty() {
        return "its pods are not on a node yet; once scheduled, their node can't be drained".to_owned();
    }
    let names: Vec<String> = placed.iter().map(|p| p.node.clone()).collect();
    let described: Vec<String> = placed.iter().map(describe_node).collect();
    if !view.ctx.readable.ownership() {
        return format!("{} can't be drained (NodePool and price unknown: Nodes could not be read)", list(&names, 3));
    }
    let karpenter: Vec<&NodePlacement> = placed.iter().filter(|p| p.karpenter == Some(true)).collect();
    if karpenter.is_empty() {
        return format!("`kubectl drain` of {} waits for ever", list(&described, 3));
    }
    let ends = match common_grace_period(placed) {
        Some(tgp) => format!(
            "drift and expiration still replace it, deleting the pods {tgp} after the drain starts (terminationGracePeriod)"
        ),
        None if karpenter.iter().all(|p| p.termination_grace_period.is_none()) => {
            let pools: Vec<String> = karpenter.iter().filter_map(|p| p.node_pool.clone()).collect::<BTreeSet<_>>().into_iter().collect();
            format!("nothing ends it: NodePool {} sets no terminationGracePeriod", list(&pools, 3))
        }
        None => "only the nodes whose NodePool sets a terminationGracePeriod get replaced by drift or expiration".to_owned(),
    };
    format!("{} can't be consolidated, drifted or drained, and {ends}", list(&described, 3))
}

/// `node-x (m5.xlarge on-demand, $0.192/h, $140.16/month)`.
fn describe_node(p: &NodePlacement) -> String {
    let mut parts = Vec::new();
    if let Some(it) = &p.instance_type {
        parts.push(match &p.capacity_type {
            Some(ct) => format!("{it} {ct}"),
            None => it.clone(),
        });
    }
    match p.price_per_hour {
        Some(price) => {
            parts.push(per_hour(price));
            parts.push(per_month(price));
        }
        None if p.karpenter == Some(true) => parts.push("price unknown".to_owned()),
        None => {}
    }
    if parts.is_empty() {
        p.node.clone()
    } else {
        format!("{} ({})", p.node, parts.join(", "))
    }
}

fn drain_blocked_fix(view: &View<'_, '_>, n: i32) -> Fix {
    let rule = &view.rule;
    let single = view.workloads.len() == 1;
    let workload = view.main_workload();
    match rule {
        Rule::MaxUnavailable(Amount::Invalid(_)) | Rule::MinAvailable(Amount::Invalid(_)) => Fix::new(
            fixes::to_max_unavailable_one(view.pdb, rule),
            "maxUnavailable: 1 lets one pod go at a time; on a single replica that is its only pod",
        ),
        // A DaemonSet runs one pod per node (it cannot be scaled): each node's pod may go with
        // its node, one node at a time.
        _ if workload.is_some_and(|w| w.id.is_daemon_set()) => Fix::new(
            fixes::to_max_unavailable_one(view.pdb, rule),
            "the DaemonSet's pod on a node being drained may go (one node at a time); the DaemonSet runs one pod per node, so more replicas are not the fix",
        ),
        _ if n == 0 => Fix::new(
            "run the pods under a controller (a Deployment), or switch to an integer minAvailable",
            "a pod without a controller that a drain evicts is gone for good",
        ),
        _ if n == 1 && single => Fix::new(
            workload.map_or_else(|| "raise replicas to 2".to_owned(), fixes::two_replicas_spread),
            format!("one more pod's requests, but then {rule} lets Karpenter drain one node at a time without an outage; maxUnavailable: 1 instead would let the only pod go (SingleReplicaEvictable)"),
        ),
        _ => Fix::new(
            fixes::to_max_unavailable_one(view.pdb, rule),
            format!("one pod may be down during a drain while the other {} keep serving", n - 1),
        ),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::audit::fixtures::{audit, cluster, deployment, find, has, hpa, pdb, pod, pod_in, NS};
    use crate::audit::{FindingCode, Severity};

    /// The seed's fix: minAvailable 1 on one replica pins the node, and says what it costs.
    #[test]
    fn min_available_one_on_one_replica_pins_its_node() {
        let mut docs = cluster(None);
        docs.extend(deployment("web", 1));
        docs.push(pod("web-1", "web", "node-a"));
        docs.push(pdb("web", "web", &json!({"minAvailable": 1}), [1, 1, 1, 0]));
        let audit = audit(docs);
        assert!(!has(&audit, FindingCode::SingleReplicaEvictable));
        assert!(!has(&audit, FindingCode::CurrentlyBlocking));
        let f = find(&audit, FindingCode::DrainBlocked);
        assert_eq!(f.severity, Severity::Warning);
        assert_eq!(f.subject.nodes, ["node-a"]);
        assert_eq!(f.facts.price_per_hour, Some(0.096));
        assert!((f.facts.price_per_month.unwrap() - 70.08).abs() < 1e-9);
        assert!(f.message.starts_with("minAvailable: 1 on 1 replica never allows an eviction"), "{}", f.message);
        assert!(f.message.contains("node-a (m5.large on-demand, $0.096/h, $70.08/month)"), "{}", f.message);
        assert!(f.message.contains("NodePool default sets no terminationGracePeriod"), "{}", f.message);
        assert!(f.fix.change.contains("kubectl scale deployment/web -n ns --replicas=2"), "{}", f.fix.change);
        assert_eq!(f.facts.termination_grace_period, None);
    }

    #[test]
    fn hpa_min_replicas_can_pin_a_node_too() {
        let mut docs = cluster(None);
        docs.extend(deployment("web", 3));
        docs.push(hpa("web", 2, 5));
        for (i, node) in ["node-a", "node-b", "node-c"].iter().enumerate() {
            docs.push(pod(&format!("web-{i}"), "web", node));
        }
        docs.push(pdb("web", "web", &json!({"minAvailable": 2}), [3, 3, 2, 1]));
        let audit = audit(docs);
        let f = find(&audit, FindingCode::DrainBlocked);
        assert!(f.message.starts_with("once HPA ns/web scales Deployment/ns/web to minReplicas 2"), "{}", f.message);
    }

    #[test]
    fn budgets_that_can_never_allow_an_eviction() {
        for (spec, start) in [
            (json!({}), "neither minAvailable nor maxUnavailable is set"),
            (json!({"maxUnavailable": 0}), "maxUnavailable: 0 on 2 replicas never allows an eviction"),
            (json!({"minAvailable": "100%"}), "minAvailable: 100% of 2 replicas rounds up to 2"),
            (
                json!({"maxUnavailable": "1"}),
                r#"maxUnavailable: "1" (not a percentage): the disruption controller fails safe"#,
            ),
        ] {
            let mut docs = cluster(None);
            docs.extend(deployment("web", 2));
            docs.push(pod("web-0", "web", "node-a"));
            docs.push(pod("web-1", "web", "node-b"));
            docs.push(pdb("web", "web", &spec, [2, 2, 2, 0]));
            let f = find(&audit(docs), FindingCode::DrainBlocked).clone();
            assert!(f.message.starts_with(start), "{spec}: {}", f.message);
        }
        let mut docs = cluster(None);
        docs.push(pod_in(NS, "bare", "bare", None, "node-a"));
        docs.push(pdb("bare", "bare", &json!({"maxUnavailable": 1}), [0, 1, 0, 0]));
        let f = find(&audit(docs), FindingCode::DrainBlocked).clone();
        assert_eq!(f.subject.workload.as_deref(), Some("Pod/ns/bare"));
        assert!(f.message.contains("counts no expected pod"), "{}", f.message);
    }
}
