//! `NoMatchingPods` (info): the PDB's selector matches no pod, so the budget protects nothing.

use crate::audit::code::FindingCode;
use crate::audit::context::Draft;
use crate::audit::finding::Fix;
use crate::audit::selector::selector_text;
use crate::audit::view::View;

/// The selector matches no pod.
pub(super) fn no_matching_pods<'a>(view: &View<'_, 'a>) -> Draft<'a> {
    let pdb = view.pdb;
    let namespace = pdb.metadata.namespace();
    let selector = selector_text(pdb.spec.selector.as_ref());
    let mut message = match &pdb.spec.selector {
        None => "has no selector, which in policy/v1 selects no pod: the budget protects nothing".to_owned(),
        Some(_) => format!("selector {selector} matches no pod in namespace {namespace}: the budget protects nothing"),
    };
    if pdb.status.expected_pods > 0 {
        message.push_str(&format!(
            " (its status still expects {}: stale, or the pods are not in this snapshot)",
            pdb.status.expected_pods
        ));
    }
    let fix = Fix::new(
        format!(
            "compare the selector with the pods' labels (kubectl get pods -n {namespace} --show-labels); if its workload is gone: kubectl delete pdb {} -n {namespace}",
            pdb.metadata.name
        ),
        "a stale budget does nothing today but silently applies to any future pod its selector matches",
    );
    let mut draft = view.finding(FindingCode::NoMatchingPods, None, &[], message, fix);
    draft.finding.facts.allowed = None;
    draft
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::audit::fixtures::{audit, cluster, deployment, find, pdb, pod};
    use crate::audit::FindingCode;

    #[test]
    fn a_selector_that_matches_nothing() {
        let mut docs = cluster(None);
        docs.extend(deployment("web", 2));
        docs.push(pod("web-0", "web", "node-a"));
        docs.push(pod("web-1", "web", "node-b"));
        docs.push(pdb("web", "web", &json!({"maxUnavailable": 1}), [2, 2, 1, 1]));
        docs.push(pdb("ghost", "ghost", &json!({"minAvailable": 1}), [0, 0, 1, 0]));
        let audit = audit(docs);
        let f = find(&audit, FindingCode::NoMatchingPods);
        assert_eq!(
            (f.subject.pdb.as_deref(), f.subject.workload.as_deref(), f.facts.replicas),
            (Some("ns/ghost"), None, None)
        );
        assert!(f.message.starts_with("selector app=ghost matches no pod in namespace ns"), "{}", f.message);
        assert!(!audit
            .findings
            .iter()
            .any(|g| g.subject.pdb.as_deref() == Some("ns/ghost") && g.code != FindingCode::NoMatchingPods));
    }
}
