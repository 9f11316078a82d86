//! Objects the cluster's Karpenter version could not hold: a NodePool or NodeClaim field (or
//! value) its CRDs do not have yet. Such a snapshot is inconsistent (the version was detected
//! wrong, or the CRDs are newer than the controller), so the replay warns and goes on.
//!
//! Read from karpenter `pkg/apis/crds/karpenter.sh_nodepools.yaml` and
//! `karpenter.sh_nodeclaims.yaml` at the tags on both sides (docs/VERSION-RULES.md section 8):
//! `consolidationPolicy` gains `Balanced` at v1.14.0, the requirement operators `Gte`/`Lte` at
//! v1.9.0, `spec.replicas` at v1.8.0. `limits.nodes` is always holdable (`limits` is a map of
//! quantities) but counts only from v1.11.0 (#2526): said too, as it silently does nothing
//! before. Pure.

use super::{CoreVersion, Rule, RuleSet};
use crate::snapshot::{NodeSelectorRequirement, Snapshot};

const fn v(major: u32, minor: u32, patch: u32) -> CoreVersion {
    CoreVersion::new(major, minor, patch)
}

/// First versions whose CRDs hold each field.
const BALANCED: CoreVersion = v(1, 14, 0);
const GTE_LTE: CoreVersion = v(1, 9, 0);
const REPLICAS: CoreVersion = v(1, 8, 0);

/// One warning per object and field the version's CRDs refuse or ignore.
pub(crate) fn warnings(snapshot: &Snapshot, rules: &RuleSet) -> Vec<String> {
    let at = rules.version;
    let refused = |object: String, field: &str, since: CoreVersion| {
        format!(
            "{object}: {field} is not in the Karpenter {at} CRD (from {since}); the API server of a {at} cluster \
             would refuse it, so the detected version or the installed CRDs may be wrong (replayed as written)"
        )
    };
    let mut out = Vec::new();
    for pool in &snapshot.node_pools {
        let object = format!("NodePool {}", pool.metadata.name);
        let policy = pool.spec.disruption.as_ref().and_then(|d| d.consolidation_policy.as_deref());
        if policy == Some("Balanced") && at < BALANCED {
            out.push(refused(object.clone(), "consolidationPolicy: Balanced", BALANCED));
        }
        if let Some(op) = new_operator(&pool.spec.template.spec.requirements).filter(|_| at < GTE_LTE) {
            out.push(refused(object.clone(), &format!("requirement operator {op}"), GTE_LTE));
        }
        if pool.spec.replicas.is_some() && at < REPLICAS {
            out.push(refused(object.clone(), "spec.replicas", REPLICAS));
        }
        if pool.spec.limits.contains_key("nodes") && !rules.has(Rule::NodeLimits) {
            out.push(format!(
                "{object}: limits.nodes has no effect at Karpenter {at} ({}); the replay ignores it too",
                super::row(Rule::NodeLimits).cite()
            ));
        }
    }
    for claim in &snapshot.node_claims {
        if let Some(op) = new_operator(&claim.spec.requirements).filter(|_| at < GTE_LTE) {
            out.push(refused(
                format!("NodeClaim {}", claim.metadata.name),
                &format!("requirement operator {op}"),
                GTE_LTE,
            ));
        }
    }
    out
}

/// `Gte` or `Lte`, when a requirement uses one.
fn new_operator(requirements: &[NodeSelectorRequirement]) -> Option<&str> {
    requirements.iter().map(|r| r.operator.as_str()).find(|op| matches!(*op, "Gte" | "Lte"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::{Disruption, NodeClaim, NodePool};

    fn requirement(op: &str) -> NodeSelectorRequirement {
        NodeSelectorRequirement {
            key: "karpenter.k8s.aws/instance-cpu".into(),
            operator: op.into(),
            values: vec!["4".into()],
            min_values: None,
        }
    }

    fn snapshot() -> Snapshot {
        let mut pool = NodePool::default();
        pool.metadata.name = "general".into();
        pool.spec.disruption =
            Some(Disruption { consolidation_policy: Some("Balanced".into()), ..Disruption::default() });
        pool.spec.template.spec.requirements = vec![requirement("Gte")];
        pool.spec.replicas = Some(3);
        pool.spec.limits.insert("nodes".into(), crate::quantity::Quantity::from_units(10));
        let mut claim = NodeClaim::default();
        claim.metadata.name = "general-abc".into();
        claim.spec.requirements = vec![requirement("Lte")];
        Snapshot { node_pools: vec![pool], node_claims: vec![claim], ..Snapshot::default() }
    }

    fn at(major: u32, minor: u32, patch: u32) -> Vec<String> {
        warnings(&snapshot(), &RuleSet::at(v(major, minor, patch)))
    }

    #[test]
    fn each_field_warns_below_its_first_version_only() {
        assert!(at(1, 14, 0).is_empty(), "{:?}", at(1, 14, 0));
        let v113 = at(1, 13, 0);
        assert_eq!(v113.len(), 1, "{v113:?}");
        assert!(v113[0].starts_with(
            "NodePool general: consolidationPolicy: Balanced is not in the Karpenter v1.13.0 CRD (from v1.14.0)"
        ));
        let v190 = at(1, 9, 0);
        assert!(!v190.iter().any(|w| w.contains("operator")), "Gte/Lte are in v1.9.0's CRDs: {v190:?}");
        let v18 = at(1, 8, 3);
        assert!(v18.iter().any(|w| w.contains("NodePool general: requirement operator Gte")), "{v18:?}");
        assert!(v18.iter().any(|w| w.contains("NodeClaim general-abc: requirement operator Lte")), "{v18:?}");
        assert!(!v18.iter().any(|w| w.contains("spec.replicas")), "replicas from v1.8.0");
        assert!(v18.iter().any(|w| w.contains("limits.nodes has no effect")), "{v18:?}");
    }

    #[test]
    fn limits_nodes_is_held_but_ignored_before_v1_11() {
        let v110 = at(1, 10, 1);
        let nodes: Vec<&String> = v110.iter().filter(|w| w.contains("limits.nodes")).collect();
        assert_eq!(nodes.len(), 1, "{v110:?}");
        assert!(nodes[0].contains("rule of #2526"), "{}", nodes[0]);
        assert!(at(1, 7, 2)
            .iter()
            .any(|w| w.contains("spec.replicas is not in the Karpenter v1.7.2 CRD (from v1.8.0)")));
    }
}
