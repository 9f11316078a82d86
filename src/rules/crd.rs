//! Objects the cluster's Karpenter version could not hold: a NodePool or NodeClaim field (or
//! value) its CRDs do not have yet. Such a snapshot is inconsistent (the version was detected
//! wrong, or the CRDs are newer than the controller), so the replay warns and goes on.
//!
//! Read from karpenter `pkg/apis/crds/karpenter.sh_nodepools.yaml` and
//! `karpenter.sh_nodeclaims.yaml` at the tags on both sides (docs/VERSION-RULES.md section 8):
//! `consolidationPolicy` gains `Balanced` at v1.14.0, the requirement operators `Gte`/`Lte` at
//! v1.9.0, `spec.replicas` at v1.8.0. `limits.nodes` is always holdable (`limits` is a map of
//! quantities) but counts only from v1.11.0 (#2526): said too, as it silently does nothing
//! before. A NodePool of another provider's NodeClass kind is said too: from v1.1.0 (#1818)
//! Karpenter leaves it alone. Pure.

use super::{CoreVersion, Rule, RuleSet};
use crate::snapshot::{NodeSelectorRequirement, Snapshot};

const fn v(major: u32, minor: u32, patch: u32) -> CoreVersion {
    CoreVersion::new(major, minor, patch)
}

/// First versions whose CRDs hold each field.
const BALANCED: CoreVersion = v(1, 14, 0);
const GTE_LTE: CoreVersion = v(1, 9, 0);
const REPLICAS: CoreVersion = v(1, 8, 0);

/// The NodePools whose `nodeClassRef` is not a NodeClass kind of the AWS provider: from v1.1.0
/// (#1818) Karpenter leaves them and their NodeClaims alone; before, it took them as its own.
fn foreign_node_classes(snapshot: &Snapshot, rules: &RuleSet) -> Vec<String> {
    if rules.node_classes == super::ProviderNodeClasses::Unknown {
        return Vec::new();
    }
    let owned_at_newest = RuleSet::at(super::version::NEWEST);
    let row = super::row(Rule::ProviderNodeClassesOnly);
    let mut out = Vec::new();
    for pool in &snapshot.node_pools {
        let class_ref = pool.spec.template.spec.node_class_ref.as_ref();
        if owned_at_newest.owns_node_class(class_ref) {
            continue;
        }
        let field = |key: &str| class_ref.and_then(|r| r.get(key)?.as_str()).unwrap_or_default().to_owned();
        let (group, kind) = (field("group"), field("kind"));
        let (aws_group, aws_kind) = super::AWS_NODE_CLASS;
        let what = if rules.has(Rule::ProviderNodeClassesOnly) {
            "Karpenter leaves it, its NodeClaims and their nodes alone (the replay too)"
        } else {
            "this version still takes it as its own (an EC2NodeClass of that name)"
        };
        out.push(format!(
            "NodePool {}: nodeClassRef {group}/{kind} is not the AWS provider's {aws_group}/{aws_kind}; {what} ({})",
            pool.metadata.name,
            row.cite()
        ));
    }
    out
}

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
    out.extend(foreign_node_classes(snapshot, rules));
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

    #[test]
    fn a_pool_of_another_node_class_kind_is_said_at_every_version_of_the_aws_provider() {
        let mut s = snapshot();
        s.node_pools[0].spec.template.spec.node_class_ref =
            Some(serde_json::json!({"group": "example.com", "kind": "FooClass", "name": "default"}));
        let said =
            |rules: &RuleSet| warnings(&s, rules).into_iter().filter(|w| w.contains("FooClass")).collect::<Vec<_>>();
        let old = said(&RuleSet::at(v(1, 0, 9)));
        assert!(old.len() == 1 && old[0].contains("still takes it as its own"), "{old:?}");
        let new = said(&RuleSet::at(v(1, 1, 0)));
        assert!(new.len() == 1 && new[0].contains("leaves it"), "{new:?}");
        let unknown = RuleSet { node_classes: super::super::ProviderNodeClasses::Unknown, ..RuleSet::at(v(1, 1, 0)) };
        assert!(said(&unknown).is_empty(), "another provider's kinds are not known");
    }
}
