//! `GracePeriodOverrides` (info): a NodePool's `terminationGracePeriod` ends the budget's
//! protection: drift and expiration drain anyway, and delete the pods when it runs out.

use std::collections::BTreeMap;

use crate::audit::code::FindingCode;
use crate::audit::context::Draft;
use crate::audit::finding::Fix;
use crate::audit::fixes::list;
use crate::audit::placement::place;
use crate::audit::view::View;
use crate::snapshot::Pod;

/// The NodePools' `terminationGracePeriod` that ends the budget's protection.
pub(super) fn grace_period_overrides<'a>(view: &View<'_, 'a>) -> Vec<Draft<'a>> {
    if !view.ctx.readable.grace_periods() || !view.ctx.readable.ownership() {
        return Vec::new();
    }
    let mut groups: BTreeMap<(String, String), Vec<&'a Pod>> = BTreeMap::new();
    for pod in view.pods {
        let Some(facts) = pod.spec.node_name.as_deref().and_then(|n| view.ctx.nodes.get(n)) else { continue };
        if let (true, Some(tgp)) = (facts.karpenter, &facts.termination_grace_period) {
            let pool = facts.node_pool.clone().unwrap_or_else(|| "<unknown>".to_owned());
            groups.entry((pool, tgp.clone())).or_default().push(pod);
        }
    }
    groups
        .into_iter()
        .map(|((pool, tgp), pods)| {
            let (nodes, _, _) = place(view.ctx, &pods);
            let message = format!(
                "NodePool {pool} sets terminationGracePeriod {tgp}: drift and expiration may start draining {} even while this budget blocks, and {tgp} later its pods are deleted regardless of it",
                list(&nodes, 3)
            );
            let fix = Fix::new(
                format!("nothing to change if intended; keep replicas at 2 or more spread over nodes, so that a forced eviction after {tgp} takes one pod, not the service"),
                "a longer terminationGracePeriod honours budgets longer but keeps drifted and expired nodes, and their cost, around longer",
            );
            let mut draft = view.finding(FindingCode::GracePeriodOverrides, None, &pods, message, fix);
            draft.finding.facts.termination_grace_period = Some(tgp);
            draft
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::audit::fixtures::{audit, cluster, deployment, find, pdb, pod};
    use crate::audit::{FindingCode, Severity};

    #[test]
    fn a_termination_grace_period_ends_the_block_and_is_reported() {
        let mut docs = cluster(Some("24h"));
        docs.extend(deployment("web", 1));
        docs.push(pod("web-1", "web", "node-a"));
        docs.push(pdb("web", "web", &json!({"minAvailable": 1}), [1, 1, 1, 0]));
        let audit = audit(docs);
        let blocked = find(&audit, FindingCode::DrainBlocked);
        assert_eq!(blocked.facts.termination_grace_period.as_deref(), Some("24h"));
        assert!(blocked.message.contains("deleting the pods 24h after the drain starts"), "{}", blocked.message);
        let grace = find(&audit, FindingCode::GracePeriodOverrides);
        assert_eq!(grace.severity, Severity::Info);
        assert_eq!(grace.facts.termination_grace_period.as_deref(), Some("24h"));
        assert!(grace.message.starts_with("NodePool default sets terminationGracePeriod 24h"), "{}", grace.message);
    }
}
