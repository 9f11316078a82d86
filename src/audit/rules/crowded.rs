//! `Crowded` (warning): more pods of a workload share a node than the budget lets go at once.

use std::collections::BTreeMap;

use crate::audit::code::FindingCode;
use crate::audit::context::Draft;
use crate::audit::finding::Fix;
use crate::audit::fixes;
use crate::audit::view::View;
use crate::snapshot::Pod;

/// More pods of a workload share a node than the budget lets go at once.
pub(super) fn crowded<'a>(view: &View<'_, 'a>) -> Vec<Draft<'a>> {
    let allowed = view.allowed_now();
    if allowed == 0 {
        return Vec::new();
    }
    let mut out = Vec::new();
    for workload in &view.workloads {
        if workload.id.is_daemon_set() || workload.id.is_bare_pod() {
            continue;
        }
        let pods = view.pods_of(workload);
        let mut by_node: BTreeMap<&str, Vec<&'a Pod>> = BTreeMap::new();
        for pod in &pods {
            if let Some(node) = pod.spec.node_name.as_deref().filter(|n| !n.is_empty()) {
                by_node.entry(node).or_default().push(pod);
            }
        }
        let mut crowded: Vec<(&str, Vec<&'a Pod>)> = by_node
            .into_iter()
            .filter(|(_, on)| on.len() >= 2 && i32::try_from(on.len()).unwrap_or(i32::MAX) > allowed)
            .collect();
        crowded.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(b.0)));
        let Some((node, on)) = crowded.first() else { continue };
        let k = on.len();
        let id = &workload.id;
        let rule = &view.rule;
        let message = if k == pods.len() {
            format!(
                "all {k} pods of {id} sit on {node} while {rule} lets {allowed} go at once: draining {node} stalls until replacements are Ready, and losing it (spot interruption, node failure, terminationGracePeriod) takes {id} down"
            )
        } else {
            format!(
                "{k} of {} pods of {id} sit on {node} while {rule} lets {allowed} go at once: draining {node} stalls until replacements are Ready, and losing it takes {k} down at once",
                pods.len()
            )
        };
        let fix = Fix::new(
            fixes::spread_patch(workload),
            "the pods roll out once more and any spread constraints already set are replaced; ScheduleAnyway only prefers spreading, while DoNotSchedule enforces it but can make Karpenter launch more nodes",
        );
        let crowded_pods: Vec<&'a Pod> = crowded.iter().flat_map(|(_, on)| on.iter().copied()).collect();
        let mut draft = view.finding(FindingCode::Crowded, Some(workload), &crowded_pods, message, fix);
        draft.finding.subject.pods = crowded_pods.iter().map(|p| p.metadata.key()).collect();
        out.push(draft);
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::audit::fixtures::{audit, cluster, deployment, find, has, pdb, pod};
    use crate::audit::FindingCode;

    #[test]
    fn replicas_crowded_on_one_node() {
        let build = |nodes: &[&str]| {
            let mut docs = cluster(None);
            docs.extend(deployment("web", i32::try_from(nodes.len()).unwrap()));
            for (i, node) in nodes.iter().enumerate() {
                docs.push(pod(&format!("web-{i}"), "web", node));
            }
            let n = i32::try_from(nodes.len()).unwrap();
            docs.push(pdb("web", "web", &json!({"maxUnavailable": 1}), [n, n, n - 1, 1]));
            audit(docs)
        };
        let all = build(&["node-a", "node-a", "node-a"]);
        let f = find(&all, FindingCode::Crowded);
        assert_eq!(f.subject.nodes, ["node-a"]);
        assert_eq!(f.subject.pods.len(), 3);
        assert!(f.message.starts_with("all 3 pods of Deployment/ns/web sit on node-a"), "{}", f.message);
        assert!(f.fix.change.starts_with("kubectl patch deployment web -n ns --type=json"), "{}", f.fix.change);
        assert!(f.fix.change.contains(r#""labelSelector":{"matchLabels":{"app":"web"}}"#), "{}", f.fix.change);
        let some = build(&["node-a", "node-a", "node-b", "node-c"]);
        assert!(find(&some, FindingCode::Crowded)
            .message
            .starts_with("2 of 4 pods of Deployment/ns/web sit on node-a"));
        assert!(!has(&build(&["node-a", "node-b", "node-c"]), FindingCode::Crowded));
    }
}
