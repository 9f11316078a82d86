//! `LooserThanIntended` (info): an integer `minAvailable` on many replicas (now or at the HPA's
//! `maxReplicas`) lets all but a few go at once, where `maxUnavailable: 1` would let one.

use crate::audit::code::FindingCode;
use crate::audit::context::Draft;
use crate::audit::finding::Fix;
use crate::audit::fixes::{self, replicas};
use crate::audit::placement;
use crate::audit::view::{At, View};

/// `minAvailable: 1` (or a small integer) on many replicas allows all but a few to go at once.
pub(super) fn looser_than_intended<'a>(view: &View<'_, 'a>) -> Option<Draft<'a>> {
    let k = view.rule.min_available_count().filter(|k| *k >= 1)?;
    if view.workloads.iter().all(|w| w.id.is_daemon_set()) {
        return None;
    }
    let loose = |n: i32| view.rule.allowed(n) >= 2 && 2 * k < n;
    let at = if loose(view.now()) {
        At::Now
    } else if view.at(At::HpaMax) > view.now() && loose(view.at(At::HpaMax)) {
        At::HpaMax
    } else {
        return None;
    };
    let n = view.at(at);
    let allowed = view.rule.allowed(n);
    let mut message = match (at, view.hpa_workload()) {
        (At::HpaMax, Some(w)) => format!(
            "{} lets {allowed} of {n} go at once when HPA {} scales {} to maxReplicas {n}, where maxUnavailable: 1 would let 1",
            view.rule,
            w.hpa.as_ref().map_or("", |h| h.name.as_str()),
            w.id
        ),
        _ => format!("{} on {} lets {allowed} go at once, where maxUnavailable: 1 would let 1", view.rule, replicas(n)),
    };
    let (_, _, placed) = placement::place(view.ctx, view.pods);
    if let Some(most) =
        placed.iter().filter(|p| p.pods >= 2).max_by(|a, b| a.pods.cmp(&b.pods).then_with(|| b.node.cmp(&a.node)))
    {
        let down = i32::try_from(most.pods).unwrap_or(i32::MAX).min(allowed);
        message.push_str(&format!(
            ": {} of them sit on {}, so one consolidation takes {down} down at once",
            most.pods, most.node
        ));
    }
    let fix = Fix::new(
        fixes::to_max_unavailable_one(view.pdb, &view.rule),
        "maxUnavailable: 1 keeps all but one pod up at every scale, but lets a single remaining replica go (SingleReplicaEvictable), so keep replicas at 2 or more",
    );
    let mut draft = view.finding(FindingCode::LooserThanIntended, None, view.pods, message, fix);
    draft.finding.facts.allowed = Some(allowed);
    Some(draft)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::audit::fixtures::{audit, cluster, deployment, find, has, hpa, pdb, pod};
    use crate::audit::{FindingCode, Severity};

    #[test]
    fn hpa_max_replicas_make_min_available_one_loose() {
        let mut docs = cluster(None);
        docs.extend(deployment("web", 2));
        docs.push(hpa("web", 2, 10));
        docs.push(pod("web-0", "web", "node-a"));
        docs.push(pod("web-1", "web", "node-b"));
        docs.push(pdb("web", "web", &json!({"minAvailable": 1}), [2, 2, 1, 1]));
        let f = find(&audit(docs), FindingCode::LooserThanIntended).clone();
        assert_eq!(f.facts.allowed, Some(9));
        assert!(f.message.contains("lets 9 of 10 go at once when HPA ns/web scales"), "{}", f.message);
    }

    #[test]
    fn min_available_one_on_many_replicas_is_looser_than_intended() {
        let mut docs = cluster(None);
        docs.extend(deployment("web", 4));
        for (i, node) in ["node-a", "node-a", "node-a", "node-b"].iter().enumerate() {
            docs.push(pod(&format!("web-{i}"), "web", node));
        }
        docs.push(pdb("web", "web", &json!({"minAvailable": 1}), [4, 4, 1, 3]));
        let audit = audit(docs);
        let f = find(&audit, FindingCode::LooserThanIntended);
        assert_eq!(f.severity, Severity::Info);
        assert!(f.message.starts_with("minAvailable: 1 on 4 replicas lets 3 go at once"), "{}", f.message);
        assert!(
            f.message.contains("3 of them sit on node-a, so one consolidation takes 3 down at once"),
            "{}",
            f.message
        );
        assert_eq!(
            f.fix.change,
            r#"kubectl patch pdb web -n ns --type=merge -p '{"spec":{"minAvailable":null,"maxUnavailable":1}}'"#
        );
        assert!(!has(&audit, FindingCode::Crowded), "3 on a node within an allowance of 3 is not Crowded");
    }
}
