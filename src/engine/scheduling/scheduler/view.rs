//! What a simulation's topology rules read: the counts per domain as this simulation left
//! them, and the domains the pods in place forbid by their anti-affinity.
//!
//! Karpenter's `Topology` (`topology.go`) keeps these counts in its topology groups and updates
//! them as it records each placed pod; here a simulation reads the world's counts and adds what
//! it moved, so that no simulation copies the cluster.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use super::super::topology::{PodFilter, View};
use super::super::topology_group::Counts;
use super::{Landing, Simulation};
use crate::snapshot::Pod;

impl Simulation<'_, '_, '_> {
    /// The value of `key` where a landed pod is, when it is settled.
    fn landing_domain(&self, at: Landing, key: &str) -> Option<Cow<'_, str>> {
        match at {
            Landing::Node(i) => self.world.node_domain(i, key).map(Cow::Borrowed),
            Landing::Claim(c) => self.claim_fixed_domain(&self.claims[c], key).map(Cow::Owned),
        }
    }
}

impl View for Simulation<'_, '_, '_> {
    fn counts(&self, key: &str, filter: &PodFilter) -> Counts {
        let mut delta: BTreeMap<String, i64> = BTreeMap::new();
        let mut add = |domain: &str, n: i64| {
            if let Some(count) = delta.get_mut(domain) {
                *count += n;
            } else {
                delta.insert(domain.to_owned(), n);
            }
        };
        for (i, _) in self.gone.matching(filter) {
            if let Some(domain) = self.world.node_domain(i, key).filter(|_| self.world.counts_on(i, filter)) {
                add(domain, -1);
            }
        }
        for (at, _) in self.landed.matching(filter) {
            let counted = match at {
                Landing::Node(i) => self.world.counts_on(i, filter),
                Landing::Claim(c) => {
                    let claim = &self.claims[c];
                    filter.counts_on_claim(&claim.labels, &claim.template.taints, &super::node_claim::is_well_known)
                }
            };
            if let Some(domain) = self.landing_domain(at, key).filter(|_| counted) {
                add(&domain, 1);
            }
        }
        delta.retain(|_, n| *n != 0);
        Counts { base: self.world.staying_counts(key, filter), delta }
    }

    fn universe(&self, key: &str) -> Rc<BTreeSet<String>> {
        self.world.universe(key)
    }

    fn spread_domains(&self, key: &str, filter: &PodFilter) -> Rc<BTreeSet<String>> {
        self.world.spread_domains(key, filter)
    }

    fn forbidden_by_existing(&self, pod: &Pod) -> BTreeMap<String, BTreeSet<String>> {
        let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for group in self.world.anti_affinity_groups.selecting(pod) {
            for &i in &group.nodes {
                if self.excluded[i] {
                    continue;
                }
                if let Some(domain) = self.world.node_domain(i, &group.key) {
                    out.entry(group.key.clone()).or_default().insert(domain.to_owned());
                }
            }
        }
        for (at, terms, holder) in &self.landed_anti {
            if std::ptr::eq(*holder, pod) {
                continue;
            }
            for (key, filter) in &terms.required_anti {
                if let Some(domain) = filter.matches(pod).then(|| self.landing_domain(*at, key)).flatten() {
                    out.entry(key.clone()).or_default().insert(domain.into_owned());
                }
            }
        }
        out
    }
}
