//! Label requirements: node selectors, node affinity terms, NodePool and instance-type
//! requirements, as sets that can be intersected and tested for compatibility.
//!
//! Mirrors karpenter `pkg/scheduling/requirements.go` (`Requirements.Compatible`, `Intersects`)
//! and `requirement.go`; the error wording follows kube-scheduler's NodeAffinity filter. Every
//! key is normalised first (`requirement.go NewRequirementWithFlexibility` reads
//! `pkg/apis/v1/labels.go NormalizedLabels`), so a legacy beta key and its stable twin are one
//! requirement, and `Gte`/`Lte` (core v1.9+) are kept as inclusive bounds.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::api::core::v1::NodeSelectorRequirement as K8sRequirement;

use crate::engine::labels::normalized;
use crate::snapshot::{NodeSelectorRequirement, StringMap};

/// One key's allowed values: `In` a set, or (`complement`) anything but a set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    pub complement: bool,
    pub values: BTreeSet<String>,
    pub greater_than: Option<i64>,
    pub less_than: Option<i64>,
}

impl Requirement {
    pub fn in_values<I: IntoIterator<Item = S>, S: Into<String>>(values: I) -> Self {
        Requirement {
            complement: false,
            values: values.into_iter().map(Into::into).collect(),
            greater_than: None,
            less_than: None,
        }
    }

    pub fn exists() -> Self {
        Requirement { complement: true, values: BTreeSet::new(), greater_than: None, less_than: None }
    }

    /// `DoesNotExist`: no value allowed.
    fn does_not_exist() -> Self {
        Requirement::in_values(Vec::<String>::new())
    }

    fn from_operator(operator: &str, values: &[String]) -> Option<Self> {
        let number = || values.first().and_then(|v| v.parse::<i64>().ok());
        Some(match operator {
            "In" => Requirement::in_values(values.iter().cloned()),
            "NotIn" => Requirement { complement: true, ..Requirement::in_values(values.iter().cloned()) },
            "Exists" => Requirement::exists(),
            "DoesNotExist" => Requirement::does_not_exist(),
            "Gt" => Requirement { greater_than: number(), ..Requirement::exists() },
            "Lt" => Requirement { less_than: number(), ..Requirement::exists() },
            // Karpenter core v1.9+ (`requirement.go NewRequirementWithFlexibility`): inclusive
            // bounds, held here as the strict bounds one step outside them.
            "Gte" => Requirement { greater_than: number().map(|n| n.saturating_sub(1)), ..Requirement::exists() },
            "Lte" => Requirement { less_than: number().map(|n| n.saturating_add(1)), ..Requirement::exists() },
            _ => return None,
        })
    }

    /// Whether a concrete value is allowed.
    pub fn allows(&self, value: &str) -> bool {
        let in_set = self.values.contains(value);
        let bounds_ok = match (self.greater_than, self.less_than) {
            (None, None) => true,
            (gt, lt) => value.parse::<i64>().is_ok_and(|v| gt.is_none_or(|g| v > g) && lt.is_none_or(|l| v < l)),
        };
        bounds_ok && if self.complement { !in_set } else { in_set }
    }

    /// Whether the key may be absent: `NotIn` and `DoesNotExist` (not `Exists`, `Gt`, `Lt`).
    pub fn allows_absent(&self) -> bool {
        let not_in = self.complement && !self.values.is_empty();
        (not_in && self.greater_than.is_none() && self.less_than.is_none())
            || (!self.complement && self.values.is_empty())
    }

    /// No value at all can satisfy it (and it is not DoesNotExist).
    fn is_empty_set(&self) -> bool {
        !self.complement && self.values.is_empty()
    }

    /// The intersection of two requirements on the same key.
    #[must_use]
    pub fn intersect(&self, other: &Requirement) -> Requirement {
        let greater_than = self.greater_than.max(other.greater_than);
        let less_than = match (self.less_than, other.less_than) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        let mut out = match (self.complement, other.complement) {
            (false, false) => Requirement::in_values(self.values.intersection(&other.values).cloned()),
            (false, true) => Requirement::in_values(self.values.difference(&other.values).cloned()),
            (true, false) => Requirement::in_values(other.values.difference(&self.values).cloned()),
            (true, true) => Requirement {
                complement: true,
                values: self.values.union(&other.values).cloned().collect(),
                greater_than: None,
                less_than: None,
            },
        };
        out.greater_than = greater_than;
        out.less_than = less_than;
        if !out.complement && (greater_than.is_some() || less_than.is_some()) {
            let kept: BTreeSet<String> = out.values.iter().filter(|v| out.allows(v)).cloned().collect();
            out.values = kept;
        }
        out
    }

    /// Whether two requirements can both hold for some value.
    pub fn intersects(&self, other: &Requirement) -> bool {
        let both = self.intersect(other);
        if both.complement {
            return match (both.greater_than, both.less_than) {
                // i128: `Gt -2` with `Lt 9223372036854775807` overflows an i64 difference.
                (Some(g), Some(l)) => i128::from(l) - i128::from(g) > 1,
                _ => true,
            };
        }
        !both.values.is_empty()
    }
}

/// Requirements on many keys (an AND).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Requirements(pub BTreeMap<String, Requirement>);

impl Requirements {
    /// Every label as `key In [value]`.
    pub fn from_labels(labels: &StringMap) -> Self {
        let mut out = Requirements::default();
        for (k, v) in labels {
            out.add(k, &Requirement::in_values([v.clone()]));
        }
        out
    }

    /// NodePool / NodeClaim requirements (`minValues` is kept by the caller).
    pub fn from_karpenter(reqs: &[NodeSelectorRequirement]) -> Self {
        let mut out = Requirements::default();
        for r in reqs {
            if let Some(req) = Requirement::from_operator(&r.operator, &r.values) {
                out.add(&r.key, &req);
            }
        }
        out
    }

    /// A node selector term's match expressions.
    pub fn from_k8s(reqs: &[K8sRequirement]) -> Self {
        let mut out = Requirements::default();
        for r in reqs {
            let values = r.values.clone().unwrap_or_default();
            if let Some(req) = Requirement::from_operator(&r.operator, &values) {
                out.add(&r.key, &req);
            }
        }
        out
    }

    /// Intersects `req` into the key (a legacy key into its stable twin).
    pub fn add(&mut self, key: &str, req: &Requirement) {
        let key = normalized(key);
        let merged = match self.0.get(key) {
            Some(existing) => existing.intersect(req),
            None => req.clone(),
        };
        self.0.insert(key.to_owned(), merged);
    }

    /// Intersects all of `other` into self.
    pub fn add_all(&mut self, other: &Requirements) {
        for (k, r) in &other.0 {
            self.add(k, r);
        }
    }

    pub fn get(&self, key: &str) -> Option<&Requirement> {
        self.0.get(key)
    }

    /// Checks that `pod` requirements can hold on something described by `self`. Keys in
    /// `undefined_ok` may be missing from `self` (well-known labels a new node will get).
    ///
    /// Mirrors karpenter `Requirements.Compatible`.
    pub fn compatible<'r>(
        &'r self,
        pod: &'r Requirements,
        undefined_ok: &dyn Fn(&str) -> bool,
    ) -> Result<(), Incompatible<'r>> {
        for (key, want) in &pod.0 {
            match self.0.get(key) {
                Some(have) => {
                    if !have.intersects(want) && !want.is_empty_set() {
                        return Err(Incompatible::NotIn { key, have, want });
                    }
                    if want.is_empty_set() && !have.is_empty_set() && !have.complement {
                        return Err(Incompatible::MustNotExist { key });
                    }
                }
                None if want.allows_absent() || undefined_ok(key) => {}
                None => return Err(Incompatible::Unknown { key }),
            }
        }
        Ok(())
    }
}

/// Why two requirement sets are not compatible, written out only when displayed (most
/// callers only ask whether they are).
#[derive(Debug, Clone, Copy)]
pub enum Incompatible<'r> {
    NotIn { key: &'r str, have: &'r Requirement, want: &'r Requirement },
    MustNotExist { key: &'r str },
    Unknown { key: &'r str },
}

impl std::fmt::Display for Incompatible<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Incompatible::NotIn { key, have, want } => {
                write!(f, "key {key}: {} not in {}", describe(have), describe(want))
            }
            Incompatible::MustNotExist { key } => write!(f, "key {key} must not exist"),
            Incompatible::Unknown { key } => write!(f, "key {key} does not have known values"),
        }
    }
}

impl Requirements {
    /// Whether a node whose labels are `label` (concrete values) satisfies every requirement:
    /// what `Requirements::from_labels(labels).compatible(self, nothing undefined)` answers,
    /// without building the node's requirements (a label `v` intersects `want` exactly when
    /// `want` allows `v`).
    pub fn admit_labels<'l>(&self, label: impl Fn(&str) -> Option<&'l str>) -> bool {
        self.0.iter().all(|(key, want)| match label(key) {
            Some(value) => !want.is_empty_set() && want.allows(value),
            None => want.allows_absent(),
        })
    }
}

fn describe(r: &Requirement) -> String {
    let values: Vec<&str> = r.values.iter().map(String::as_str).collect();
    let mut text = if r.complement && values.is_empty() {
        "Exists".to_owned()
    } else if r.complement {
        format!("NotIn [{}]", values.join(","))
    } else {
        format!("In [{}]", values.join(","))
    };
    // Bounds are held strict; `requirement.go` prints them as the inclusive `>=`/`<=` it keeps.
    if let Some(g) = r.greater_than {
        text.push_str(&format!(" >={}", i128::from(g) + 1));
    }
    if let Some(l) = r.less_than {
        text.push_str(&format!(" <={}", i128::from(l) - 1));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::{NodeSelectorRequirement, Requirement, Requirements};

    fn labels(pairs: &[(&str, &str)]) -> Requirements {
        Requirements::from_labels(&pairs.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect())
    }

    fn no_undefined(_: &str) -> bool {
        false
    }

    #[test]
    fn in_notin_exists_doesnotexist() {
        let node = labels(&[("zone", "a"), ("arch", "amd64")]);
        let mut pod = Requirements::default();
        pod.add("zone", &Requirement::in_values(["a", "b"]));
        assert!(node.compatible(&pod, &no_undefined).is_ok());
        pod.add("arch", &Requirement { complement: true, ..Requirement::in_values(["amd64"]) });
        assert!(node.compatible(&pod, &no_undefined).is_err());
        let mut dne = Requirements::default();
        dne.add("gpu", &Requirement::in_values(Vec::<String>::new()));
        assert!(node.compatible(&dne, &no_undefined).is_ok());
        assert!(labels(&[("gpu", "x")]).compatible(&dne, &no_undefined).is_err());
        let mut exists = Requirements::default();
        exists.add("gpu", &Requirement::exists());
        assert!(node.compatible(&exists, &no_undefined).is_err());
    }

    #[test]
    fn gt_lt_near_the_i64_limits_do_not_overflow() {
        // requirement.go Intersection: empty only when greaterThan >= lessThan.
        let gt = Requirement { greater_than: Some(-2), ..Requirement::exists() };
        let lt = Requirement { less_than: Some(i64::MAX), ..Requirement::exists() };
        assert!(gt.intersects(&lt));
        let gt = Requirement { greater_than: Some(i64::MAX - 1), ..Requirement::exists() };
        let lt = Requirement { less_than: Some(i64::MIN), ..Requirement::exists() };
        assert!(!gt.intersects(&lt));
    }

    #[test]
    fn gt_lt_bounds() {
        let mut pod = Requirements::default();
        pod.add("cpu", &Requirement { greater_than: Some(4), ..Requirement::exists() });
        assert!(labels(&[("cpu", "8")]).compatible(&pod, &no_undefined).is_ok());
        assert!(labels(&[("cpu", "2")]).compatible(&pod, &no_undefined).is_err());
    }

    #[test]
    fn gte_lte_are_inclusive() {
        // requirement.go: `Gte 4` admits 4 (`withinBounds` with gte = 4), `Lte 8` admits 8.
        let reqs = |op: &str, v: &str| {
            let r = NodeSelectorRequirement {
                key: "cpu".into(),
                operator: op.into(),
                values: vec![v.into()],
                min_values: None,
            };
            Requirements::from_karpenter(&[r])
        };
        assert!(labels(&[("cpu", "4")]).compatible(&reqs("Gte", "4"), &no_undefined).is_ok());
        assert!(labels(&[("cpu", "3")]).compatible(&reqs("Gte", "4"), &no_undefined).is_err());
        assert!(labels(&[("cpu", "8")]).compatible(&reqs("Lte", "8"), &no_undefined).is_ok());
        assert!(labels(&[("cpu", "9")]).compatible(&reqs("Lte", "8"), &no_undefined).is_err());
        assert!(labels(&[("cpu", "4")]).compatible(&reqs("Gt", "4"), &no_undefined).is_err());
    }

    #[test]
    fn concrete_labels_are_admitted_as_their_requirements_are_compatible() {
        let number = |bound: &str| bound.parse::<i64>().ok();
        let wants = [
            Requirement::in_values(["a", "b"]),
            Requirement { complement: true, ..Requirement::in_values(["a"]) },
            Requirement::exists(),
            Requirement::in_values(Vec::<String>::new()),
            Requirement { greater_than: number("4"), ..Requirement::exists() },
            Requirement { less_than: number("4"), ..Requirement::exists() },
            Requirement { greater_than: number("1"), ..Requirement::in_values(["2", "9"]) },
            Requirement { complement: true, less_than: number("9"), ..Requirement::in_values(["2"]) },
        ];
        let nodes =
            [vec![], vec![("k", "a")], vec![("k", "c")], vec![("k", "2")], vec![("k", "8")], vec![("other", "a")]];
        for want in &wants {
            let mut pod = Requirements::default();
            pod.add("k", want);
            for node in &nodes {
                let expected = labels(node).compatible(&pod, &no_undefined).is_ok();
                let admitted = pod.admit_labels(|key| node.iter().find(|(k, _)| *k == key).map(|(_, v)| *v));
                assert_eq!(admitted, expected, "{want:?} on {node:?}");
            }
        }
    }

    #[test]
    fn legacy_keys_are_one_requirement_with_their_stable_twin() {
        // requirement.go NewRequirementWithFlexibility normalises through NormalizedLabels.
        let node = labels(&[("failure-domain.beta.kubernetes.io/zone", "a"), ("beta.kubernetes.io/arch", "arm64")]);
        assert!(node.get("topology.kubernetes.io/zone").is_some_and(|r| r.allows("a")));
        assert!(node.get("failure-domain.beta.kubernetes.io/zone").is_none());
        let mut pod = Requirements::default();
        pod.add("topology.kubernetes.io/zone", &Requirement::in_values(["a"]));
        pod.add("kubernetes.io/arch", &Requirement::in_values(["amd64"]));
        let err = node.compatible(&pod, &no_undefined).expect_err("arch differs").to_string();
        assert!(err.contains("kubernetes.io/arch"), "{err}");
    }

    #[test]
    fn gte_lte_survive_intersection_and_show_in_messages() {
        let reqs = |op: &str, v: &str| {
            Requirements::from_karpenter(&[NodeSelectorRequirement {
                key: "cpu".into(),
                operator: op.into(),
                values: vec![v.into()],
                min_values: None,
            }])
        };
        let mut both = reqs("Gte", "4");
        both.add_all(&reqs("Lte", "8"));
        let cpu = both.get("cpu").expect("cpu");
        assert!(cpu.allows("4") && cpu.allows("8") && !cpu.allows("9") && !cpu.allows("3"));
        let err = labels(&[("cpu", "2")]).compatible(&both, &no_undefined).expect_err("2 < 4").to_string();
        assert!(err.contains(">=4") && err.contains("<=8"), "{err}");
    }

    #[test]
    fn intersection_narrows() {
        let a = Requirement::in_values(["a", "b", "c"]);
        let b = Requirement { complement: true, ..Requirement::in_values(["b"]) };
        assert_eq!(a.intersect(&b).values.len(), 2);
        assert!(!Requirement::in_values(["a"]).intersects(&Requirement::in_values(["b"])));
    }
}
