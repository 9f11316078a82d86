//! `SingleReplicaEvictable` (critical): the budget lets every pod of a workload go at once, now
//! or once its HorizontalPodAutoscaler scales it to `minReplicas`.

use crate::audit::code::FindingCode;
use crate::audit::context::Draft;
use crate::audit::finding::Fix;
use crate::audit::fixes::{self, list, replicas};
use crate::audit::placement;
use crate::audit::view::{At, View};
use crate::snapshot::Pod;

/// The budget lets every pod of a workload go at once.
pub(super) fn single_replica_evictable<'a>(view: &View<'_, 'a>) -> Vec<Draft<'a>> {
    let mut out = Vec::new();
    for workload in &view.workloads {
        if workload.id.is_daemon_set() {
            continue;
        }
        let evictable_at = |at: At, own: i32| own >= 1 && view.rule.allowed(view.at(at)) >= own;
        let at = if evictable_at(At::Now, workload.replicas) {
            At::Now
        } else if workload.low() < workload.replicas && evictable_at(At::HpaMin, workload.low()) {
            At::HpaMin
        } else {
            continue;
        };
        let pods = view.pods_of(workload);
        let (n, total) = match at {
            At::HpaMin => (workload.low(), view.at(At::HpaMin)),
            _ => (workload.replicas, view.now()),
        };
        let allowed = view.rule.allowed(total);
        let drain = drain_phrase(view, &pods);
        let id = &workload.id;
        let rule = &view.rule;
        let message = match (at, view.workloads.len()) {
            (At::HpaMin, _) => format!(
                "{rule} lets every pod go once HPA {} scales {id} to minReplicas {n}: {drain} then takes it down",
                workload.hpa.as_ref().map_or("", |h| h.name.as_str())
            ),
            (_, 1) if n == 1 => {
                format!("{rule} on 1 replica lets its only pod go: {drain} takes {id} down until a new pod is Ready")
            }
            (_, 1) => format!("{rule} on {n} replicas lets all {n} go at once: {drain} can take {id} down"),
            _ => format!(
                "{rule} counts {total} pods of {} workloads together and lets {allowed} go at once: all {} of {id} can go together",
                view.workloads.len(),
                replicas(n)
            ),
        };
        let fix = if view.workloads.len() > 1 {
            Fix::new(
                format!(
                    "give each workload its own PodDisruptionBudget: {} counts {} workloads together",
                    view.pdb.metadata.key(),
                    view.workloads.len()
                ),
                "more budgets to keep in step with the workloads' labels, but each then protects its own last pod",
            )
        } else if at == At::HpaMin {
            Fix::new(
                fixes::raise_replicas(workload, 2),
                format!("keeps one more pod running when idle, so that {rule} never meets a single replica"),
            )
        } else if n == 1 {
            Fix::new(
                fixes::two_replicas_spread(workload),
                format!(
                    "one more pod's requests; with two replicas on different nodes {rule} lets one go while the other serves. Changing the budget instead ({}) never allows an eviction: it pins the node (DrainBlocked) until replicas reach 2 or the NodePool's terminationGracePeriod",
                    fixes::to_min_available_one(view.pdb, rule)
                ),
            )
        } else {
            Fix::new(
                fixes::to_max_unavailable_one(view.pdb, rule),
                "drains then evict one pod at a time, so a node holding several of its pods drains more slowly",
            )
        };
        let mut draft = view.finding(FindingCode::SingleReplicaEvictable, Some(workload), &pods, message, fix);
        draft.finding.facts.allowed = Some(allowed);
        out.push(draft);
    }
    out
}

/// "consolidating node-x (NodePool default, WhenEmptyOrUnderutilized after 5m)", "draining
/// node-x", or "a drain".
fn drain_phrase(view: &View<'_, '_>, pods: &[&Pod]) -> String {
    let (nodes, pools, placement) = placement::place(view.ctx, pods);
    if nodes.is_empty() {
        return "a drain".to_owned();
    }
    let facts: Vec<_> = nodes.iter().filter_map(|n| view.ctx.nodes.get(n)).filter(|f| f.karpenter).collect();
    let karpenter = placement.iter().any(|p| p.karpenter == Some(true));
    let consolidates = facts.iter().any(|f| {
        f.consolidation_policy.as_deref().unwrap_or("WhenEmptyOrUnderutilized") == "WhenEmptyOrUnderutilized"
            && f.consolidate_after.as_deref() != Some("Never")
    });
    let nodes = list(&nodes, 3);
    match (karpenter && consolidates, pools.as_slice(), facts.first()) {
        (true, [pool], Some(f)) => match f.consolidate_after.as_deref() {
            Some(after) => {
                format!("consolidating {nodes} (NodePool {pool}, WhenEmptyOrUnderutilized after {after})")
            }
            None => format!("consolidating {nodes} (NodePool {pool}, WhenEmptyOrUnderutilized)"),
        },
        (true, _, _) => format!("consolidating {nodes}"),
        (false, _, _) if karpenter => format!("draining {nodes} (drift, expiration or interruption)"),
        (false, _, _) => format!("draining {nodes}"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::audit::fixtures::{audit, cluster, deployment, find, has, hpa, pdb, pod};
    use crate::audit::{FindingCode, Severity};

    /// The seed's incident: one replica with maxUnavailable 1 sits on a consolidatable node.
    #[test]
    fn single_replica_with_max_unavailable_one_is_evictable() {
        let mut docs = cluster(None);
        docs.extend(deployment("web", 1));
        docs.push(pod("web-1", "web", "node-a"));
        docs.push(pdb("web", "web", &json!({"maxUnavailable": 1}), [1, 1, 0, 1]));
        let audit = audit(docs);
        let f = find(&audit, FindingCode::SingleReplicaEvictable);
        assert_eq!(f.severity, Severity::Critical);
        assert_eq!(f.subject.pdb.as_deref(), Some("ns/web"));
        assert_eq!(f.subject.workload.as_deref(), Some("Deployment/ns/web"));
        assert_eq!((f.facts.replicas, f.facts.allowed), (Some(1), Some(1)));
        assert_eq!(f.subject.nodes, ["node-a"]);
        assert_eq!(f.facts.node_pools, ["default"]);
        assert!(
            f.message.contains(
                "lets its only pod go: consolidating node-a (NodePool default, WhenEmptyOrUnderutilized after 5m)"
            ),
            "{}",
            f.message
        );
        // The first fix for one replica is a second one, spread; the budget change is the
        // trade-off's alternative, because minAvailable: 1 on one replica pins the node.
        assert_eq!(
            f.fix.change,
            "raise replicas to 2 and add a topology spread over kubernetes.io/hostname: kubectl scale deployment/web -n ns --replicas=2"
        );
        assert!(f.fix.trade_off.contains(
            r#"kubectl patch pdb web -n ns --type=merge -p '{"spec":{"maxUnavailable":null,"minAvailable":1}}'"#
        ));
        assert!(f.fix.trade_off.contains("pins the node"));
        assert!(!has(&audit, FindingCode::DrainBlocked) && !has(&audit, FindingCode::NoPdb));
    }

    /// An HPA that may scale to one replica makes maxUnavailable 1 evict the last pod.
    #[test]
    fn hpa_min_replicas_are_the_replicas_that_matter() {
        let build = |min: i32| {
            let mut docs = cluster(None);
            docs.extend(deployment("web", 3));
            docs.push(hpa("web", min, 10));
            for (i, node) in ["node-a", "node-b", "node-c"].iter().enumerate() {
                docs.push(pod(&format!("web-{i}"), "web", node));
            }
            docs.push(pdb("web", "web", &json!({"maxUnavailable": 1}), [3, 3, 2, 1]));
            audit(docs)
        };
        let one = build(1);
        let f = find(&one, FindingCode::SingleReplicaEvictable);
        assert_eq!((f.facts.replicas, f.facts.min_replicas, f.facts.max_replicas), (Some(3), Some(1), Some(10)));
        assert_eq!(f.facts.hpa.as_deref(), Some("ns/web"));
        assert!(f.message.contains("once HPA ns/web scales Deployment/ns/web to minReplicas 1"), "{}", f.message);
        assert_eq!(f.fix.change, r#"kubectl patch hpa web -n ns --type=merge -p '{"spec":{"minReplicas":2}}'"#);
        assert!(!has(&build(2), FindingCode::SingleReplicaEvictable));
    }

    #[test]
    fn two_single_replica_workloads_under_one_budget() {
        let mut docs = cluster(None);
        docs.extend(deployment("a", 1));
        docs.extend(deployment("b", 1));
        let mut a = pod("a-0", "a", "node-a");
        a["metadata"]["labels"]["tier"] = json!("web");
        let mut b = pod("b-0", "b", "node-b");
        b["metadata"]["labels"]["tier"] = json!("web");
        docs.extend([a, b]);
        let mut shared = pdb("tier", "x", &json!({"minAvailable": 1}), [2, 2, 1, 1]);
        shared["spec"]["selector"] = json!({"matchLabels": {"tier": "web"}});
        docs.push(shared);
        let audit = audit(docs);
        let evictable: Vec<&str> = audit
            .findings
            .iter()
            .filter(|f| f.code == FindingCode::SingleReplicaEvictable)
            .filter_map(|f| f.subject.workload.as_deref())
            .collect();
        assert_eq!(evictable, ["Deployment/ns/a", "Deployment/ns/b"]);
        assert!(audit.findings[0].fix.change.starts_with("give each workload its own PodDisruptionBudget"));
    }
}
