//! The `pdb-audit` document: docs/DESIGN.md's `-o json` contract for the audit (finding codes,
//! severities and field names are an interface), and its projection from the judgement
//! ([`crate::audit::Audit`]). Field order and `skip_serializing_if` are the contract's.
//!
//! Judges nothing: the rules, severities and budget arithmetic live in `audit/`. It must not do
//! I/O or format for a terminal (that is `render/`).

use std::fmt;

use serde::{Serialize, Serializer};

use super::views::Severity;
use crate::audit::{self, Audit};
use crate::snapshot::API_VERSION;
use crate::upstream::Upstream;

/// The `pdb-audit` document.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PdbAudit {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub scope: AuditScope,
    pub summary: Summary,
    /// Sorted by severity (critical first), then PDB, code and workload.
    pub findings: Vec<Finding>,
    /// What could not be judged, and why (e.g. placement when Nodes were unreadable).
    pub skipped: Vec<Skipped>,
    /// Kinds that could not be read, and what they make uncertain here.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub uncertain: Vec<crate::reason::Reason>,
    /// Pods or PodDisruptionBudgets could not be read: no finding is reported, and a
    /// `--fail-on` gate fails, since "nothing found" would be a blind all clear.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub blind: bool,
    /// `--fixes all`: the text lists the fixes of `info` findings too (JSON always carries
    /// every finding's `fix`).
    #[serde(skip)]
    pub info_fixes: bool,
}

/// Which namespaces and pods were audited.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditScope {
    /// `None` with `allNamespaces`.
    pub namespace: Option<String>,
    pub all_namespaces: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
}

/// Counts, so that a reader (or CI) needs no arithmetic.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    /// PodDisruptionBudgets audited.
    pub pdbs: usize,
    /// Workloads (controllers and bare pods) whose pods were audited.
    pub workloads: usize,
    pub critical: usize,
    pub warning: usize,
    pub info: usize,
}

/// One finding about a PDB (or, for `NoPDB`, a workload without one).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub code: FindingCode,
    pub severity: Severity,
    /// `ns/name`; `null` for `NoPDB`.
    pub pdb: Option<String>,
    /// `MultiplePDBs`: every PDB that selects the same pods.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pdbs: Vec<String>,
    /// `Kind/ns/name` (`Deployment/ns/web`, `Pod/ns/x` for a bare pod); `null` when the PDB
    /// selects no pod.
    pub workload: Option<String>,
    /// More than one workload under the same PDB: all of them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub workloads: Vec<String>,
    /// Desired replicas now (the controller's `spec.replicas`, else its pods counted).
    pub replicas: Option<i32>,
    /// The HorizontalPodAutoscaler's `minReplicas`, when one targets the workload.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_replicas: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_replicas: Option<i32>,
    /// `ns/name` of that HorizontalPodAutoscaler.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hpa: Option<String>,
    /// The budget as written: `maxUnavailable: 1`, `minAvailable: 50%`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub budget: Option<String>,
    /// Evictions the spec allows at `replicas` with every pod healthy (Kubernetes' rounding).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed: Option<i32>,
    /// The PDB's status as the disruption controller last wrote it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<BudgetStatus>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unhealthy_pod_eviction_policy: Option<String>,
    /// The pods the finding is about (`ns/name`), when it is about particular pods.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub pods: Vec<String>,
    /// Nodes the finding's pods sit on, sorted.
    pub nodes: Vec<String>,
    /// NodePools of those nodes (Karpenter nodes only), sorted.
    pub node_pools: Vec<String>,
    /// Per node: how many of the pods sit there and what the node is (when Nodes were readable).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub placement: Vec<NodePlacement>,
    /// `DrainBlocked`: the price of the pinned nodes together, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(serialize_with = "super::money::hourly")]
    pub price_per_hour: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(serialize_with = "super::money::monthly")]
    pub price_per_month: Option<f64>,
    /// The NodePool `terminationGracePeriod` that ends the PDB's protection, when one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub termination_grace_period: Option<String>,
    pub message: String,
    /// The concrete change (a `kubectl` command where one exists).
    pub fix: String,
    /// What the fix costs, in one sentence.
    pub trade_off: String,
    /// When this round of the replay harms the workload: the fixes the prescription engine
    /// replayed for it (the same as `plan` prints under it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replayed_fixes: Option<super::prescription::PrescriptionView>,
    #[serde(rename = "ref")]
    pub upstream: Upstream,
}

/// `status` of a PodDisruptionBudget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BudgetStatus {
    pub expected_pods: i32,
    pub current_healthy: i32,
    pub desired_healthy: i32,
    pub disruptions_allowed: i32,
}

/// One node holding some of a finding's pods.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodePlacement {
    pub node: String,
    pub pods: usize,
    /// Has a NodeClaim (or, when NodeClaims were unreadable, a `karpenter.sh/nodepool` label);
    /// `null` when neither Nodes nor NodeClaims could be read.
    pub karpenter: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_pool: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity_type: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(serialize_with = "super::money::hourly")]
    pub price_per_hour: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(serialize_with = "super::money::monthly")]
    pub price_per_month: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub termination_grace_period: Option<String>,
}

/// A judgement the audit could not make.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Skipped {
    pub code: FindingCode,
    /// What part was not judged (`all`, or e.g. `node price and NodePool`).
    pub what: String,
    pub reason: String,
}

/// A finding code (`findings[].code`, `skipped[].code`), spelled as the contract spells it
/// (`MultiplePDBs`, `NoPDB`). Wraps the audit's code so that `render/` never sees `audit/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FindingCode(audit::FindingCode);

impl From<audit::FindingCode> for FindingCode {
    fn from(code: audit::FindingCode) -> Self {
        FindingCode(code)
    }
}

impl fmt::Display for FindingCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.as_str())
    }
}

impl Serialize for FindingCode {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.0.as_str())
    }
}

/// The `PDBAudit` document of an audit.
pub(crate) fn document(audit: &Audit) -> PdbAudit {
    PdbAudit {
        api_version: API_VERSION,
        kind: "PDBAudit",
        scope: AuditScope {
            namespace: audit.scope.namespace.clone(),
            all_namespaces: audit.scope.all_namespaces,
            selector: audit.scope.selector.clone(),
        },
        summary: Summary {
            pdbs: audit.pdbs,
            workloads: audit.workloads,
            critical: audit.count(audit::Severity::Critical),
            warning: audit.count(audit::Severity::Warning),
            info: audit.count(audit::Severity::Info),
        },
        findings: audit.findings.iter().map(finding).collect(),
        skipped: audit
            .skipped
            .iter()
            .map(|s| Skipped { code: s.code.into(), what: s.what.clone(), reason: s.reason.clone() })
            .collect(),
        uncertain: super::uncertain(&audit.unread, |kind| match kind {
            "Pod" | "PodDisruptionBudget" => {
                Some("no finding can be trusted, so none is reported, and --fail-on fails (exit 1)")
            }
            "Node" | "NodeClaim" | "NodePool" => Some("findings about placement are skipped (see skipped)"),
            "Deployment" | "ReplicaSet" | "StatefulSet" | "HorizontalPodAutoscaler" => {
                Some("desired replicas are counted from running pods, and may be wrong")
            }
            _ => None,
        }),
        blind: audit.blind,
        info_fixes: false,
    }
}

fn finding(f: &audit::PdbFinding) -> Finding {
    let (subject, facts) = (&f.subject, &f.facts);
    Finding {
        code: f.code.into(),
        severity: f.severity.into(),
        pdb: subject.pdb.clone(),
        pdbs: subject.pdbs.clone(),
        workload: subject.workload.clone(),
        workloads: subject.workloads.clone(),
        replicas: facts.replicas,
        min_replicas: facts.min_replicas,
        max_replicas: facts.max_replicas,
        hpa: facts.hpa.clone(),
        budget: facts.budget.clone(),
        allowed: facts.allowed,
        status: facts.status.map(|s| BudgetStatus {
            expected_pods: s.expected_pods,
            current_healthy: s.current_healthy,
            desired_healthy: s.desired_healthy,
            disruptions_allowed: s.disruptions_allowed,
        }),
        unhealthy_pod_eviction_policy: facts.unhealthy_pod_eviction_policy.clone(),
        pods: subject.pods.clone(),
        nodes: subject.nodes.clone(),
        node_pools: facts.node_pools.clone(),
        placement: facts.placement.iter().map(placement).collect(),
        price_per_hour: facts.price_per_hour,
        price_per_month: facts.price_per_month,
        termination_grace_period: facts.termination_grace_period.clone(),
        message: f.message.clone(),
        fix: f.fix.change.clone(),
        trade_off: f.fix.trade_off.clone(),
        replayed_fixes: None,
        upstream: f.upstream,
    }
}

fn placement(p: &audit::NodePlacement) -> NodePlacement {
    NodePlacement {
        node: p.node.clone(),
        pods: p.pods,
        karpenter: p.karpenter,
        node_pool: p.node_pool.clone(),
        instance_type: p.instance_type.clone(),
        capacity_type: p.capacity_type.clone(),
        price_per_hour: p.price_per_hour,
        price_per_month: p.price_per_month,
        termination_grace_period: p.termination_grace_period.clone(),
    }
}

/// Each finding about a workload the round harms gets that workload's replayed fixes.
pub(crate) fn attach_replayed(document: &mut PdbAudit, prescriptions: &[crate::prescription::Prescription]) {
    for f in &mut document.findings {
        let Some(workload) = &f.workload else { continue };
        f.replayed_fixes =
            prescriptions.iter().find(|p| p.workload == *workload).map(super::prescription::PrescriptionView::from);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::document;
    use crate::audit::fixtures::{audit, cluster, deployment, pdb, pod};

    #[test]
    fn json_follows_the_contract_and_is_deterministic() {
        let mut docs = cluster(Some("1h"));
        docs.extend(deployment("web", 1));
        docs.push(pod("web-1", "web", "node-a"));
        docs.push(pdb("web", "web", &json!({"maxUnavailable": 1}), [1, 1, 0, 1]));
        docs.push(pdb("dup", "web", &json!({"maxUnavailable": 1}), [1, 1, 0, 1]));
        let forward = document(&audit(docs.clone()));
        docs.reverse();
        let backward = document(&audit(docs));
        assert_eq!(serde_json::to_string(&forward).unwrap(), serde_json::to_string(&backward).unwrap());
        let json = serde_json::to_value(&forward).unwrap();
        assert_eq!(json["apiVersion"], "kubectl-consolidation/v1alpha1");
        assert_eq!(json["kind"], "PDBAudit");
        let findings = json["findings"].as_array().unwrap();
        let first = findings.iter().find(|f| f["code"] == "MultiplePDBs").unwrap();
        assert_eq!(first["severity"], "critical");
        assert_eq!(first["ref"], "karpenter: pkg/utils/pdb/pdb.go Limits.CanEvictPods");
        for key in ["pdb", "workload", "replicas", "nodes", "nodePools", "message", "fix", "tradeOff"] {
            assert!(first.get(key).is_some(), "missing {key} in {first}");
        }
        assert!(findings.iter().any(|f| f["code"] == "GracePeriodOverrides"));
        assert_eq!(json["skipped"], json!([]));
        for severity in ["critical", "warning", "info"] {
            let counted = findings.iter().filter(|f| f["severity"] == severity).count();
            assert_eq!(json["summary"][severity], counted, "summary.{severity}");
        }
        assert_eq!((&json["summary"]["pdbs"], &json["summary"]["workloads"]), (&json!(2), &json!(1)));
    }

    /// A PDB that selects no pod names no workload: `workload` is `null`, not absent.
    #[test]
    fn a_finding_without_a_workload_serialises_null() {
        let mut docs = cluster(None);
        docs.push(pdb("ghost", "ghost", &json!({"minAvailable": 1}), [0, 0, 1, 0]));
        let json = serde_json::to_value(document(&audit(docs))).unwrap();
        let ghost = &json["findings"][0];
        assert_eq!(
            (&ghost["code"], &ghost["workload"], &ghost["replicas"]),
            (&json!("NoMatchingPods"), &Value::Null, &Value::Null)
        );
        assert_eq!(ghost["severity"], "info");
        assert!(ghost.get("budget").is_some() && ghost.get("allowed").is_none(), "{ghost}");
    }
}
