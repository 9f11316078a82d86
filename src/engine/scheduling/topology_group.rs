//! One topology rule of one pod (a spread constraint, an affinity or anti-affinity term, or
//! the anti-affinity of pods in place) on one key: which domains it admits, and which single
//! domain a new NodeClaim narrows to.
//!
//! Mirrors karpenter `pkg/controllers/provisioning/scheduling/topologygroup.go`:
//! `nextDomainTopologySpread` (a domain is valid when its count, plus one if the pod selects
//! itself, is within `maxSkew` of the global minimum; a new NodeClaim gets the valid domain
//! with the lowest count), `domainMinCount` (the minimum over the registered domains the pod's
//! own requirements allow; 0 when fewer than `minDomains` of them, and always 0 for the
//! hostname, since a new node is a new domain), `nextDomainAffinity` (domains holding a
//! selected pod that the pod may use; a self-selecting pod with none of them starts the group
//! in one domain) and `nextDomainAntiAffinity` (domains holding no selected pod).

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use super::requirements::Requirements;
use crate::engine::labels::HOSTNAME;

/// The pod's own requirements on a key (`podDomains`): its nodeSelector with its first required
/// node-affinity term (`pod_data::strict_requirements`; kept a list so a caller may pass an OR).
/// No volume requirement is in them (`volumetopology.go`).
#[derive(Debug, Clone)]
pub(crate) struct PodDomains {
    pub(crate) alternatives: Rc<Vec<Requirements>>,
}

impl PodDomains {
    /// `podDomains.Has(domain)`.
    pub(crate) fn has(&self, key: &str, domain: &str) -> bool {
        self.alternatives.iter().any(|r| r.get(key).is_none_or(|q| q.allows(domain)))
    }
}

/// Which values of its key one rule admits.
#[derive(Debug)]
pub(crate) enum Allowed {
    /// Topology spread.
    Spread { counts: Counts, domains: Rc<BTreeSet<String>>, global_min: i64, max_skew: i64, self_selecting: bool },
    /// Anti-affinity: no selected pod there (anywhere, when none is selected at all).
    Unoccupied { counts: Counts, anywhere: bool },
    /// Affinity: a selected pod there, in a domain the pod may use.
    Occupied { counts: Counts, pod_domains: PodDomains },
    /// Affinity of a pod that selects itself while no selected pod is in a domain it may use:
    /// it starts the group in any one of them.
    Bootstrap { pod_domains: PodDomains },
    /// The anti-affinity of pods in place: anywhere but these.
    Except(BTreeSet<String>),
}

/// One rule on one topology key, with kube-scheduler's message when a destination breaks it.
#[derive(Debug)]
pub(crate) struct Rule {
    pub(crate) key: String,
    pub(crate) allowed: Allowed,
    /// Every value the key can take, for keys other than the hostname (a new node is a new
    /// hostname; other keys only take known values).
    pub(crate) universe: Option<Rc<BTreeSet<String>>>,
    pub(crate) message: &'static str,
}

impl Rule {
    pub(crate) fn admits(&self, value: &str) -> bool {
        let known = || self.universe.as_ref().is_none_or(|u| u.contains(value));
        match &self.allowed {
            Allowed::Spread { counts, domains, global_min, max_skew, self_selecting } => {
                let count = counts.get(value);
                let registered = self.key == HOSTNAME || domains.contains(value) || count > 0;
                registered && count + i64::from(*self_selecting) - global_min <= *max_skew
            }
            Allowed::Unoccupied { counts, anywhere } => *anywhere || (known() && counts.get(value) <= 0),
            Allowed::Occupied { counts, pod_domains } => counts.get(value) > 0 && pod_domains.has(&self.key, value),
            Allowed::Bootstrap { pod_domains } => known() && pod_domains.has(&self.key, value),
            Allowed::Except(forbidden) => known() && !forbidden.contains(value),
        }
    }

    /// The values a new NodeClaim that may take any of `values` narrows to: a spread takes the
    /// one valid domain with the lowest count (`nextDomainTopologySpread`; ties by name, where
    /// upstream's map order is random), a bootstrapping affinity one domain, the others every
    /// admitted value.
    pub(crate) fn narrow(&self, values: &BTreeSet<String>) -> BTreeSet<String> {
        let mut admitted = values.iter().filter(|v| self.admits(v));
        match &self.allowed {
            Allowed::Spread { counts, .. } => {
                admitted.min_by_key(|v| counts.get(v)).map(|v| BTreeSet::from([v.clone()])).unwrap_or_default()
            }
            Allowed::Bootstrap { .. } => admitted.next().map(|v| BTreeSet::from([v.clone()])).unwrap_or_default(),
            _ => admitted.cloned().collect(),
        }
    }
}

/// `domainMinCount`: the lowest count among the registered domains (`domains`, plus any
/// holding a counted pod) the pod's own requirements allow; 0 for the hostname and when fewer
/// than `minDomains` domains are allowed.
pub(crate) fn domain_min_count(
    key: &str,
    counts: &Counts,
    domains: &BTreeSet<String>,
    pod_domains: &PodDomains,
    min_domains: Option<i32>,
) -> i64 {
    if key == HOSTNAME {
        return 0;
    }
    let counted = counts.occupied().filter(|d| !domains.contains(*d));
    let supported: Vec<i64> = domains
        .iter()
        .map(String::as_str)
        .chain(counted)
        .filter(|d| pod_domains.has(key, d))
        .map(|d| counts.get(d))
        .collect();
    if min_domains.is_some_and(|m| supported.len() < usize::try_from(m).unwrap_or(0)) {
        return 0;
    }
    // No supported domain leaves upstream's minimum at MaxInt32: every count is within skew.
    supported.into_iter().min().unwrap_or_else(|| i64::from(i32::MAX))
}

/// Pods matching a filter per value of a topology key: the counts shared by every simulation
/// plus what this simulation changed (pods moved away, pods placed).
#[derive(Debug, Clone, Default)]
pub(crate) struct Counts {
    pub base: Rc<BTreeMap<String, i64>>,
    pub delta: BTreeMap<String, i64>,
}

impl Counts {
    pub(crate) fn get(&self, domain: &str) -> i64 {
        self.base.get(domain).copied().unwrap_or(0) + self.delta.get(domain).copied().unwrap_or(0)
    }

    /// Domains holding at least one selected pod.
    pub(crate) fn occupied(&self) -> impl Iterator<Item = &str> + '_ {
        let changed = self.delta.keys().filter(|d| !self.base.contains_key(*d));
        self.base.keys().chain(changed).map(String::as_str).filter(|d| self.get(d) > 0)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};
    use std::rc::Rc;

    use super::{domain_min_count, Allowed, PodDomains, Rule};
    use crate::engine::labels::{HOSTNAME, ZONE};
    use crate::engine::scheduling::requirements::{Requirement, Requirements};
    use crate::engine::scheduling::topology_group::Counts;

    fn counts(pairs: &[(&str, i64)]) -> Counts {
        let base: BTreeMap<String, i64> = pairs.iter().map(|(d, n)| ((*d).to_owned(), *n)).collect();
        Counts { base: Rc::new(base), delta: BTreeMap::new() }
    }

    fn set(values: &[&str]) -> BTreeSet<String> {
        values.iter().map(|v| (*v).to_owned()).collect()
    }

    fn only(zones: &[&str]) -> PodDomains {
        let mut r = Requirements::default();
        r.add(ZONE, &Requirement::in_values(zones.iter().copied()));
        PodDomains { alternatives: Rc::new(vec![r]) }
    }

    fn anywhere() -> PodDomains {
        PodDomains { alternatives: Rc::new(vec![Requirements::default()]) }
    }

    #[test]
    fn the_minimum_is_over_the_domains_the_pod_may_use() {
        // topologygroup.go domainMinCount: `if domains.Has(domain)` — zone c (empty) is outside
        // the pod's affinity, so the minimum is 1, not 0.
        let c = counts(&[("a", 1), ("b", 2)]);
        let domains = set(&["a", "b", "c"]);
        assert_eq!(domain_min_count(ZONE, &c, &domains, &only(&["a", "b"]), None), 1);
        assert_eq!(domain_min_count(ZONE, &c, &domains, &anywhere(), None), 0);
    }

    #[test]
    fn fewer_supported_domains_than_min_domains_make_the_minimum_zero() {
        let c = counts(&[("a", 1), ("b", 1)]);
        let domains = set(&["a", "b"]);
        assert_eq!(domain_min_count(ZONE, &c, &domains, &anywhere(), Some(3)), 0);
        assert_eq!(domain_min_count(ZONE, &c, &domains, &anywhere(), Some(2)), 1);
    }

    #[test]
    fn hostname_minimum_is_always_zero() {
        let c = counts(&[("n1", 3), ("n2", 3)]);
        assert_eq!(domain_min_count(HOSTNAME, &c, &set(&[]), &anywhere(), None), 0);
    }

    #[test]
    fn a_new_claim_narrows_to_the_one_least_loaded_valid_domain() {
        // nextDomainTopologySpread returns `In [minDomain]`.
        let rule = Rule {
            key: ZONE.to_owned(),
            allowed: Allowed::Spread {
                counts: counts(&[("a", 2), ("b", 1), ("c", 1)]),
                domains: Rc::new(set(&["a", "b", "c"])),
                global_min: 1,
                max_skew: 1,
                self_selecting: true,
            },
            universe: None,
            message: "",
        };
        assert_eq!(rule.narrow(&set(&["a", "b", "c"])), set(&["b"]));
        assert_eq!(rule.narrow(&set(&["a", "c"])), set(&["c"]));
        assert!(!rule.admits("a"), "2 + 1 - 1 > 1");
    }

    #[test]
    fn a_pod_its_spread_does_not_select_adds_nothing_to_the_count() {
        // nextDomainTopologySpread: `if selfSelecting { count++ }`.
        let spread = |self_selecting| Rule {
            key: ZONE.to_owned(),
            allowed: Allowed::Spread {
                counts: counts(&[("a", 1)]),
                domains: Rc::new(set(&["a", "b"])),
                global_min: 0,
                max_skew: 1,
                self_selecting,
            },
            universe: None,
            message: "",
        };
        assert!(!spread(true).admits("a"));
        assert!(spread(false).admits("a"));
    }

    #[test]
    fn affinity_counts_only_domains_the_pod_may_use() {
        // nextDomainAffinity: `podDomains.Has(domain) && t.domains[domain] > 0`.
        let rule = Rule {
            key: ZONE.to_owned(),
            allowed: Allowed::Occupied { counts: counts(&[("a", 1), ("b", 1)]), pod_domains: only(&["b"]) },
            universe: None,
            message: "",
        };
        assert!(!rule.admits("a"));
        assert!(rule.admits("b"));
    }
}
