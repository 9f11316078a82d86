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

    /// Every value of `key` a landed pod may still be in: its node's, or all those its new
    /// NodeClaim may still take (`topology.go Record` blocks them all for anti-affinity).
    fn landing_domains(&self, at: Landing, key: &str) -> BTreeSet<String> {
        match at {
            Landing::Node(i) => self.world.node_domain(i, key).map(str::to_owned).into_iter().collect(),
            Landing::Claim(c) => {
                let claim = &self.claims[c];
                self.claim_domain(&claim.labels, key, &claim.name)
            }
        }
    }

    /// The counts for a pod's own required anti-affinity: as [`View::counts`], but a selected
    /// pod on a new NodeClaim counts in every domain the claim may still take.
    fn anti_affinity_counts(&self, key: &str, filter: &PodFilter) -> Counts {
        let mut counts = self.counts(key, filter);
        for (at, _) in self.landed.matching(filter) {
            let Landing::Claim(c) = at else { continue };
            let claim = &self.claims[c];
            if self.claim_fixed_domain(claim, key).is_some()
                || !filter.counts_on_claim(&claim.labels, &claim.template.taints, &crate::engine::labels::is_well_known)
            {
                continue;
            }
            for domain in self.landing_domains(at, key) {
                *counts.delta.entry(domain).or_insert(0) += 1;
            }
        }
        counts.delta.retain(|_, n| *n != 0);
        counts
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
        for (i, _) in self.gone.iter().flat_map(|&i| self.world.pods_on(i).matching(filter)) {
            if let Some(domain) = self.world.node_domain(i, key).filter(|_| self.world.counts_on(i, filter)) {
                add(domain, -1);
            }
        }
        for (at, _) in self.landed.matching(filter) {
            let counted = match at {
                Landing::Node(i) => self.world.counts_on(i, filter),
                Landing::Claim(c) => {
                    let claim = &self.claims[c];
                    filter.counts_on_claim(&claim.labels, &claim.template.taints, &crate::engine::labels::is_well_known)
                }
            };
            if let Some(domain) = self.landing_domain(at, key).filter(|_| counted) {
                add(&domain, 1);
            }
        }
        delta.retain(|_, n| *n != 0);
        Counts { base: self.world.staying_counts(key, filter), delta }
    }

    fn anti_counts(&self, key: &str, filter: &PodFilter) -> Counts {
        self.anti_affinity_counts(key, filter)
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
                if filter.matches(pod) {
                    out.entry(key.clone()).or_default().extend(self.landing_domains(*at, key));
                }
            }
        }
        out
    }
}
