//! `CurrentlyBlocking` (warning): `status.disruptionsAllowed` is 0 now although the spec allows
//! evictions (pods not Ready, a rollout, a stale status), so Karpenter won't disrupt the nodes.

use crate::audit::code::FindingCode;
use crate::audit::context::Draft;
use crate::audit::finding::Fix;
use crate::audit::fixes::{self, list};
use crate::audit::placement;
use crate::audit::selector::selector_text;
use crate::audit::view::View;
use crate::engine::pdb::{is_ready, EvictionBlock};
use crate::snapshot::Pod;

/// `status.disruptionsAllowed` is 0 now although the spec allows evictions.
pub(super) fn currently_blocking<'a>(view: &View<'_, 'a>) -> Option<Draft<'a>> {
    let status = &view.pdb.status;
    let allowed = view.allowed_now();
    if status.disruptions_allowed != 0 || allowed == 0 {
        return None;
    }
    let key = view.pdb.metadata.key();
    let blocks: Vec<EvictionBlock> = view
        .ctx
        .limits
        .can_evict_pods(view.pods, view.ctx.now)
        .into_iter()
        .filter(|b| matches!(b, EvictionBlock::NoDisruptionsAllowed { pdb, .. } if *pdb == key))
        .collect();
    let first = blocks.first()?;
    let blocked: Vec<&'a Pod> = view
        .pods
        .iter()
        .copied()
        .filter(|p| {
            blocks
                .iter()
                .any(|b| matches!(b, EvictionBlock::NoDisruptionsAllowed { pod, .. } if *pod == p.metadata.key()))
        })
        .collect();
    let not_ready: Vec<&'a Pod> = view.pods.iter().copied().filter(|p| !is_ready(p)).collect();
    let bare = view.workloads.iter().any(|w| w.id.is_bare_pod());
    let mut why = Vec::new();
    if !not_ready.is_empty() {
        let names: Vec<String> = not_ready.iter().map(|p| p.metadata.key()).collect();
        why.push(format!("{} of {} pods not Ready ({})", not_ready.len(), view.pods.len(), list(&names, 3)));
    }
    if status.current_healthy < status.desired_healthy {
        why.push(format!("currentHealthy {} < desiredHealthy {}", status.current_healthy, status.desired_healthy));
    }
    if status.expected_pods == 0 {
        why.push(if bare && !view.rule.counts_bare_pods() {
            format!("expectedPods 0: pods without a controller don't count for {}", view.rule)
        } else {
            "expectedPods 0: the disruption controller has not counted its pods".to_owned()
        });
    } else if status.expected_pods != view.now() {
        why.push(format!(
            "expectedPods {} ≠ {} desired (a rollout or scaling in progress)",
            status.expected_pods,
            view.now()
        ));
    }
    if why.is_empty() {
        why.push("the status may be stale".to_owned());
    }
    let (nodes, _, _) = placement::place(view.ctx, &blocked);
    let message = format!(
        "status.disruptionsAllowed is 0 although {} allows {allowed} of {}: {}; Karpenter won't disrupt {} now ({})",
        view.rule,
        view.now(),
        why.join(", "),
        if nodes.is_empty() { "their nodes".to_owned() } else { list(&nodes, 3) },
        first.message()
    );
    let always_allow = view.pdb.spec.unhealthy_pod_eviction_policy.as_deref() == Some("AlwaysAllow");
    let fix = if !not_ready.is_empty() && !always_allow {
        Fix::new(
            format!(
                "kubectl patch pdb {} -n {} --type=merge -p '{}'",
                view.pdb.metadata.name,
                view.pdb.metadata.namespace(),
                serde_json::json!({"spec": {"unhealthyPodEvictionPolicy": "AlwaysAllow"}})
            ),
            "pods that are not Ready can then be evicted (a crash-looping pod stops pinning its node), including pods that are only slow to start",
        )
    } else if bare && !view.rule.counts_bare_pods() {
        Fix::new(
            fixes::set_budget(view.pdb, &view.rule, "minAvailable", &serde_json::json!((view.now() - 1).max(0))),
            "an integer minAvailable counts pods without a controller, but a bare pod a drain evicts is gone for good",
        )
    } else {
        Fix::new(
            format!(
                "wait for the rollout to finish, or see why pods are unhealthy: kubectl get pods -n {} -l {}",
                view.pdb.metadata.namespace(),
                selector_text(view.pdb.spec.selector.as_ref())
            ),
            "none: the block clears by itself once every pod is Ready",
        )
    };
    let mut draft = view.finding(FindingCode::CurrentlyBlocking, None, &blocked, message, fix);
    draft.finding.subject.pods = blocked.iter().map(|p| p.metadata.key()).collect();
    Some(draft)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::audit::fixtures::{audit, cluster, deployment, find, has, pdb, pod};
    use crate::audit::{FindingCode, Severity};

    #[test]
    fn currently_blocking_names_the_unready_pods() {
        let mut docs = cluster(None);
        docs.extend(deployment("web", 3));
        for (i, node) in ["node-a", "node-b", "node-c"].iter().enumerate() {
            docs.push(pod(&format!("web-{i}"), "web", node));
        }
        if let Some(last) = docs.last_mut() {
            last["status"]["conditions"][0]["status"] = json!("False");
        }
        docs.push(pdb("web", "web", &json!({"maxUnavailable": 1}), [3, 2, 2, 0]));
        let audit = audit(docs);
        let f = find(&audit, FindingCode::CurrentlyBlocking);
        assert_eq!(f.severity, Severity::Warning);
        assert!(f.message.contains("1 of 3 pods not Ready (ns/web-2)"), "{}", f.message);
        assert!(f.message.contains("pdb prevents pod evictions (PodDisruptionBudget=[ns/web])"), "{}", f.message);
        assert_eq!(f.subject.nodes, ["node-a", "node-b", "node-c"]);
        assert!(f.fix.change.contains(r#"{"spec":{"unhealthyPodEvictionPolicy":"AlwaysAllow"}}"#), "{}", f.fix.change);
        assert!(!has(&audit, FindingCode::DrainBlocked));
    }
}
