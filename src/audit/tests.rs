//! Tests across rules: budget rounding, scope and `-l`, unreadable kinds, the demo. Each
//! rule's own tests sit in its file under `rules/`.

use serde_json::{json, Value};

use super::fixtures::{audit, audit_with, cluster, deployment, find, has, pdb, pod, pod_in};
use super::pdb_audit;
use super::{Audit, FindingCode, Scope, Severity};

/// Kubernetes rounds both percentages up (`GetScaledValueFromIntOrPercent(…, true)`).
#[test]
fn percentages_round_up_at_the_edges() {
    let cases: [(i32, Value, Option<FindingCode>, i32); 6] = [
        (3, json!({"minAvailable": "50%"}), None, 1),
        (3, json!({"maxUnavailable": "50%"}), None, 2),
        (1, json!({"maxUnavailable": "50%"}), Some(FindingCode::SingleReplicaEvictable), 1),
        (1, json!({"minAvailable": "50%"}), Some(FindingCode::DrainBlocked), 0),
        (3, json!({"minAvailable": "90%"}), Some(FindingCode::DrainBlocked), 0),
        (3, json!({"maxUnavailable": "100%"}), Some(FindingCode::SingleReplicaEvictable), 3),
    ];
    for (replicas, spec, expected, allowed) in cases {
        let mut docs = cluster(None);
        docs.extend(deployment("web", replicas));
        for (i, node) in ["node-a", "node-b", "node-c"].iter().take(usize::try_from(replicas).unwrap()).enumerate() {
            docs.push(pod(&format!("web-{i}"), "web", node));
        }
        docs.push(pdb("web", "web", &spec, [replicas, replicas, replicas - allowed, allowed]));
        let audit = audit(docs);
        let budget_codes: Vec<FindingCode> = audit
            .findings
            .iter()
            .map(|f| f.code)
            .filter(|c| matches!(c, FindingCode::SingleReplicaEvictable | FindingCode::DrainBlocked))
            .collect();
        assert_eq!(budget_codes, expected.into_iter().collect::<Vec<_>>(), "{replicas} replicas, {spec}");
        if let Some(f) = audit.findings.first() {
            assert_eq!(f.facts.allowed, Some(allowed), "{replicas} replicas, {spec}");
        }
    }
    let mut docs = cluster(None);
    docs.extend(deployment("web", 3));
    for (i, node) in ["node-a", "node-b", "node-c"].iter().enumerate() {
        docs.push(pod(&format!("web-{i}"), "web", node));
    }
    docs.push(pdb("web", "web", &json!({"minAvailable": "90%"}), [3, 3, 3, 0]));
    let f = find(&audit(docs), FindingCode::DrainBlocked).clone();
    assert!(f.message.starts_with("minAvailable: 90% of 3 replicas rounds up to 3"), "{}", f.message);
    assert_eq!(f.subject.nodes, ["node-a", "node-b", "node-c"]);
    assert!((f.facts.price_per_hour.unwrap() - 0.288).abs() < 1e-9);
}

/// A namespace-scoped user: Nodes, NodeClaims and NodePools are forbidden.
#[test]
fn namespace_scoped_user_gets_what_needs_no_placement() {
    let forbidden = "forbidden: User \"dev\" cannot list resource \"nodes\"";
    let mut docs = vec![json!({
        "apiVersion": "kubectl-consolidation/v1alpha1", "kind": "SnapshotInfo",
        "capturedAt": "2026-11-29T10:00:00Z",
        "unread": [{"kind": "Node", "reason": forbidden},
                   {"kind": "NodeClaim", "reason": "forbidden"},
                   {"kind": "NodePool", "reason": "forbidden"}]
    })];
    docs.extend(deployment("web", 1));
    docs.extend(deployment("api", 1));
    docs.extend(deployment("free", 2));
    docs.push(pod("web-0", "web", "node-a"));
    docs.push(pod("api-0", "api", "node-b"));
    docs.push(pod("free-0", "free", "node-c"));
    docs.push(pod("free-1", "free", "node-c"));
    docs.push(pdb("web", "web", &json!({"maxUnavailable": 1}), [1, 1, 0, 1]));
    docs.push(pdb("api", "api", &json!({"minAvailable": 1}), [1, 1, 1, 0]));
    let audit = audit(docs);
    assert!(has(&audit, FindingCode::SingleReplicaEvictable));
    let blocked = find(&audit, FindingCode::DrainBlocked);
    assert_eq!(blocked.subject.nodes, ["node-b"], "pods still say where they run");
    assert!(blocked.message.contains("NodePool and price unknown"), "{}", blocked.message);
    assert!(blocked.facts.placement.iter().all(|p| p.karpenter.is_none()));
    assert!(!has(&audit, FindingCode::NoPdb) && !has(&audit, FindingCode::GracePeriodOverrides));
    let skipped: Vec<FindingCode> = audit.skipped.iter().map(|s| s.code).collect();
    assert_eq!(skipped, [FindingCode::NoPdb, FindingCode::GracePeriodOverrides, FindingCode::DrainBlocked]);
    assert!(audit.skipped[0].reason.contains(forbidden), "{}", audit.skipped[0].reason);
}

#[test]
fn scope_namespace_all_namespaces_and_selector() {
    let mut docs = cluster(None);
    docs.extend(deployment("web", 1));
    docs.push(pod("web-0", "web", "node-a"));
    docs.push(pdb("web", "web", &json!({"maxUnavailable": 1}), [1, 1, 0, 1]));
    docs.push(pod_in("other", "x-0", "x", None, "node-b"));
    let mut other = pdb("x", "x", &json!({"maxUnavailable": 1}), [0, 1, 0, 0]);
    other["metadata"]["namespace"] = json!("other");
    docs.push(other);
    let pdbs = |a: &Audit| -> Vec<String> {
        let mut pdbs: Vec<String> = a.findings.iter().filter_map(|f| f.subject.pdb.clone()).collect();
        pdbs.dedup();
        pdbs
    };
    assert_eq!(pdbs(&audit(docs.clone())), ["ns/web"]);
    let all = audit_with(docs.clone(), &Scope { namespace: None, all_namespaces: true, selector: None });
    assert_eq!(all.scope.namespace, None);
    assert_eq!(pdbs(&all), ["ns/web", "other/x"]);
    let selected =
        audit_with(docs.clone(), &Scope { namespace: None, all_namespaces: true, selector: Some("app in (x)".into()) });
    assert_eq!(pdbs(&selected), ["other/x"]);
    assert_eq!(selected.pdbs, 1);
    let invalid =
        audit_with(docs, &Scope { namespace: None, all_namespaces: true, selector: Some("app in (x".into()) });
    assert!(invalid.findings.is_empty());
    assert!(invalid.skipped.iter().all(|s| s.reason.starts_with("invalid label selector")));
}

/// The built-in demo is the 001 seed's incident: two single-replica apps under maxUnavailable 1.
#[test]
fn demo_snapshot_reports_the_seed_incident() {
    let snapshot = crate::testing::demo();
    let scope = Scope { namespace: Some("tenant-a".into()), all_namespaces: false, selector: None };
    let audit = pdb_audit(&snapshot, snapshot.info.captured_at.unwrap(), &scope);
    let critical: Vec<(FindingCode, Option<String>)> = audit
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Critical)
        .map(|f| (f.code, f.subject.pdb.clone()))
        .collect();
    assert_eq!(
        critical,
        [
            (FindingCode::SingleReplicaEvictable, Some("tenant-a/app-b".to_owned())),
            (FindingCode::SingleReplicaEvictable, Some("tenant-a/app-c".to_owned())),
        ]
    );
    assert!(audit.fails_at(Severity::Critical));
}
