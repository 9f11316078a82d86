//! Which NodePool values a topology spread registers as domains. Every release from v1.3.0
//! filters them by the pod's tolerations alone (with `nodeTaintsPolicy: Honor`); two releases,
//! each reverted one patch later, also filtered them by the pod's node affinity:
//!
//! - v1.8.1 (#2639, reverted by #2791 in v1.8.2): `topologydomaingroup.go` remembers, per value,
//!   the taints of each pool offering it and the requirements that produced it (the pool's, its
//!   template labels, and the instance type's for a value an instance type offers); with
//!   `nodeAffinityPolicy: Honor` a value counts only when one of those requirement sets is
//!   compatible with one of the pod's node-affinity alternatives, every key of the pod defined
//!   (`Requirements.Compatible` without options), and the taint and requirement checks may be
//!   met by different pools (`matches`).
//! - v1.11.0 (#2671, reverted by #2957 in v1.11.1): per pool (`isDomainCompatible`), its
//!   requirements, labels, `karpenter.sh/nodepool` and NodeClass label, compatible with one
//!   alternative (undefined well-known labels allowed), and its taints tolerated: one pool must
//!   pass both for its values to count.

use std::collections::{BTreeMap, BTreeSet};

use crate::engine::labels::{is_well_known, NODEPOOL};
use crate::engine::scheduling::instance_types::instance_type_values;
use crate::engine::scheduling::node_claim_template::Template;
use crate::engine::scheduling::requirements::{Requirement, Requirements};
use crate::engine::scheduling::topology::PodFilter;
use crate::rules::{Rule, RuleSet};
use crate::snapshot::InstanceType;

/// The NodePool values of `key` a spread with `filter` registers under `rules`.
pub(super) fn pool_values(
    templates: &[Template<'_>],
    key: &str,
    filter: &PodFilter,
    rules: &RuleSet,
) -> BTreeSet<String> {
    if rules.has(Rule::SpreadDomainsByPoolAffinity) {
        return by_pool(templates, key, filter);
    }
    if rules.has(Rule::SpreadDomainsBySourceAffinity) {
        return by_source(templates, key, filter);
    }
    templates
        .iter()
        .filter(|t| filter.tolerates_template(&t.taints))
        .flat_map(|t| super::template_domains(t, key))
        .collect()
}

/// v1.11.0: a pool's values count when the pool passes both checks.
fn by_pool(templates: &[Template<'_>], key: &str, filter: &PodFilter) -> BTreeSet<String> {
    let affinity_ok = |t: &Template<'_>| {
        let Some(alternatives) = filter.required_node_terms() else { return true };
        let source = with_node_class_label(t);
        alternatives.is_empty() || alternatives.iter().any(|a| source.compatible(a, &is_well_known).is_ok())
    };
    templates
        .iter()
        .filter(|t| filter.tolerates_template(&t.taints) && affinity_ok(t))
        .flat_map(|t| super::template_domains(t, key))
        .collect()
}

/// The pool's requirements with the NodeClass label v1.11.0 injects
/// (`NodeClassLabelKey`: `<group>/<lowercased kind>` = the NodeClass's name).
fn with_node_class_label(t: &Template<'_>) -> Requirements {
    let mut source = t.requirements.clone();
    let class = t.pool.spec.template.spec.node_class_ref.as_ref();
    let field = |k: &str| class.and_then(|c| c.get(k)).and_then(serde_json::Value::as_str).unwrap_or_default();
    if !field("group").is_empty() && !field("kind").is_empty() {
        let label = format!("{}/{}", field("group"), field("kind").to_lowercase());
        source.add(&label, &Requirement::in_values([field("name").to_owned()]));
    }
    source
}

/// v1.8.1: per value, some pool offering it whose taints are tolerated, and some requirement
/// set that produced it compatible with the pod (strictly), not necessarily the same pool's.
fn by_source(templates: &[Template<'_>], key: &str, filter: &PodFilter) -> BTreeSet<String> {
    // value → (a tolerated pool offers it, a compatible source produced it)
    let mut seen: BTreeMap<String, (bool, bool)> = BTreeMap::new();
    let compatible = |source: &Requirements| {
        filter.required_node_terms().is_none_or(|alternatives| {
            alternatives.is_empty() || alternatives.iter().any(|a| source.compatible(a, &|_| false).is_ok())
        })
    };
    for t in templates {
        let tolerated = filter.tolerates_template(&t.taints);
        // Upstream 1.8.1 builds these sets without the karpenter.sh/nodepool label.
        let mut base = t.requirements.clone();
        base.0.remove(NODEPOOL);
        let mut note = |value: String, source_ok: bool| {
            let entry = seen.entry(value).or_default();
            entry.0 |= tolerated;
            entry.1 |= source_ok;
        };
        for it in &t.instance_types {
            let values: Vec<String> = instance_type_values(it, key)
                .into_iter()
                .filter(|v| t.requirements.get(key).is_none_or(|r| r.allows(v)))
                .collect();
            if values.is_empty() {
                continue;
            }
            let mut source = base.clone();
            source.add_all(&instance_type_requirements(it));
            let ok = compatible(&source);
            for value in values {
                note(value, ok);
            }
        }
        if let Some(r) = t.requirements.get(key).filter(|r| !r.complement) {
            let ok = compatible(&base);
            for value in r.values.iter().cloned() {
                note(value, ok);
            }
        }
    }
    seen.into_iter().filter(|(_, (tolerated, source_ok))| *tolerated && *source_ok).map(|(v, _)| v).collect()
}

/// An instance type's requirements: its labels, name, and its offerings' zones and capacity
/// types (`InstanceType.Requirements`).
fn instance_type_requirements(it: &InstanceType) -> Requirements {
    use crate::engine::labels::{CAPACITY_TYPE, INSTANCE_TYPE, ZONE};
    let mut reqs = Requirements::default();
    for (k, v) in &it.labels {
        reqs.add(k, &Requirement::in_values([v.clone()]));
    }
    for key in [INSTANCE_TYPE, ZONE, CAPACITY_TYPE] {
        reqs.add(key, &Requirement::in_values(instance_type_values(it, key)));
    }
    reqs
}
