//! `minValues`: how many distinct values of a label a NodeClaim's instance types must span.
//!
//! Mirrors karpenter `pkg/cloudprovider/types.go` `InstanceTypes.SatisfiesMinValues`. The
//! requirement comes from the NodePool's template (`spec.template.spec.requirements[].minValues`):
//! pods never carry minValues, and when two requirements on one key meet, upstream keeps the
//! larger (`scheduling/requirement.go` `Intersection`, `MaxPtr`). The disruption side re-checks it
//! every time it narrows a replacement's instance types (the price filter and
//! `filterOutSameInstanceType`); the scheduler checks them on every add (`scheduling/node_claim.rs`, `NodeClaim.CanAdd`).

use std::collections::{BTreeMap, BTreeSet};

use crate::engine::scheduling::instance_types::instance_type_values;
use crate::snapshot::{InstanceType, NodePool};

/// The minValues of one NodePool, by label key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct MinValues(BTreeMap<String, usize>);

impl MinValues {
    /// Every requirement of the pool's template that sets `minValues` (the largest per key).
    pub(crate) fn of_pool(pool: Option<&NodePool>) -> Self {
        let mut keys: BTreeMap<String, usize> = BTreeMap::new();
        for req in pool.into_iter().flat_map(|p| &p.spec.template.spec.requirements) {
            let Some(min) = req.min_values else { continue };
            let min = usize::try_from(min).unwrap_or(0);
            let entry = keys.entry(req.key.clone()).or_default();
            *entry = (*entry).max(min);
        }
        MinValues(keys)
    }

    /// `Requirements.HasMinValues` (the tests ask; the replay reads the keys).
    #[cfg(test)]
    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many of `types` (in their order, cheapest first) it takes to satisfy every
    /// minValues, or upstream's error naming the keys the whole list leaves short.
    ///
    /// As upstream: no minValues → `Ok(0)`; an empty list satisfies them too (`Ok(0)`: the
    /// loop never runs), and callers then refuse the empty list for its own reason.
    ///
    /// Mirrors karpenter `pkg/cloudprovider/types.go` `InstanceTypes.SatisfiesMinValues`.
    pub(crate) fn satisfied_by(&self, types: &[&InstanceType]) -> Result<usize, String> {
        if self.0.is_empty() {
            return Ok(0);
        }
        let mut seen: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
        let mut short: BTreeSet<&str> = BTreeSet::new();
        for (i, it) in types.iter().enumerate() {
            for (key, min) in &self.0 {
                let values = seen.entry(key.as_str()).or_default();
                values.extend(instance_type_values(it, key));
                if values.len() < *min {
                    short.insert(key.as_str());
                } else {
                    short.remove(key.as_str());
                }
            }
            if short.is_empty() {
                return Ok(i + 1);
            }
        }
        if short.is_empty() {
            return Ok(types.len());
        }
        // serrors.Wrap renders its key/value as ` (label(s)=[a b])`; Go prints a slice with
        // spaces. Upstream lists the keys in map order; we sort them.
        let keys: Vec<&str> = short.into_iter().collect();
        Err(format!("minValues requirement is not met for label(s) (label(s)=[{}])", keys.join(" ")))
    }

    /// `MIN_VALUES_POLICY=BestEffort`: each minValues lowered to the distinct values `types`
    /// reach, as `filterInstanceTypesByRequirements` rewrites the NodeClaim's requirements
    /// (`unsatisfiableKeys`) so later checks (the price filter) hold it to what it could get.
    pub(crate) fn relaxed_to(&self, types: &[&InstanceType]) -> Self {
        let relaxed = self
            .0
            .iter()
            .map(|(key, min)| {
                let reached: BTreeSet<String> = types.iter().flat_map(|it| instance_type_values(it, key)).collect();
                (key.clone(), (*min).min(reached.len()))
            })
            .collect();
        MinValues(relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::MinValues;
    use crate::snapshot::{InstanceType, NodePool, NodeSelectorRequirement};

    fn pool(reqs: &[(&str, Option<i32>)]) -> NodePool {
        let mut p = NodePool::default();
        p.spec.template.spec.requirements = reqs
            .iter()
            .map(|(k, m)| NodeSelectorRequirement {
                key: (*k).into(),
                operator: "Exists".into(),
                values: vec![],
                min_values: *m,
            })
            .collect();
        p
    }

    fn it(name: &str, family: &str) -> InstanceType {
        let mut t = InstanceType { name: name.into(), ..InstanceType::default() };
        t.labels.insert("karpenter.k8s.aws/instance-family".into(), family.into());
        t
    }

    const TYPE: &str = "node.kubernetes.io/instance-type";
    const FAMILY: &str = "karpenter.k8s.aws/instance-family";

    #[test]
    fn no_min_values_needs_nothing() {
        let types = [it("a", "c4")];
        assert_eq!(MinValues::of_pool(Some(&pool(&[(TYPE, None)]))).satisfied_by(&[&types[0]]), Ok(0));
        assert!(MinValues::of_pool(None).is_empty());
    }

    /// The two examples of upstream's doc comment on `SatisfiesMinValues`.
    #[test]
    fn upstream_doc_examples() {
        let mv = MinValues::of_pool(Some(&pool(&[(TYPE, Some(3)), (FAMILY, Some(3))])));
        let pass = [it("c4.large", "c4"), it("c5.xlarge", "c5"), it("m4.2xlarge", "m4")];
        assert_eq!(mv.satisfied_by(&pass.iter().collect::<Vec<_>>()), Ok(3));
        let fail = [it("c4.large", "c4"), it("c4.xlarge", "c4"), it("c5.2xlarge", "c5")];
        assert_eq!(
            mv.satisfied_by(&fail.iter().collect::<Vec<_>>()),
            Err("minValues requirement is not met for label(s) (label(s)=[karpenter.k8s.aws/instance-family])".into())
        );
    }

    #[test]
    fn counts_only_the_prefix_needed_and_an_empty_list_passes() {
        let mv = MinValues::of_pool(Some(&pool(&[(TYPE, Some(2)), (TYPE, Some(1))])));
        let types = [it("a", "x"), it("b", "x"), it("c", "x")];
        assert_eq!(mv.satisfied_by(&types.iter().collect::<Vec<_>>()), Ok(2));
        assert_eq!(mv.satisfied_by(&[]), Ok(0));
        assert!(mv.satisfied_by(&[&types[0]]).is_err());
    }
}
