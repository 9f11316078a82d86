//! The topology counts every simulation starts from, and what the deleting nodes send into
//! every simulation: memoised once per replay.

use std::collections::BTreeMap;
use std::rc::Rc;

use super::{PodsIndexed, World};
use crate::engine::pod;
use crate::engine::scheduling::topology::PodFilter;
use crate::snapshot::Pod;

impl<'a> World<'_, 'a> {
    /// Pods matching `filter`, per value of `key`, over every node (memoised).
    pub fn base_counts(&self, key: &str, filter: &PodFilter) -> Rc<BTreeMap<String, i64>> {
        if let Some(hit) = self.counts.borrow().get(key).and_then(|by_filter| by_filter.get(filter.cache_key())) {
            return Rc::clone(hit);
        }
        let mut counts: BTreeMap<String, i64> = BTreeMap::new();
        let mut count = |i: usize| {
            let Some(domain) = self.node_domain(i, key).filter(|_| self.counts_on(i, filter)) else { return };
            if let Some(n) = counts.get_mut(domain) {
                *n += 1;
            } else {
                counts.insert(domain.to_owned(), 1);
            }
        };
        match &self.pods {
            PodsIndexed::Built(index) => index.matching(filter).for_each(|(i, _)| count(i)),
            PodsIndexed::Kept(in_place) => in_place.nodes_matching(filter, &self.cluster.snapshot.pods).for_each(count),
        }
        let counts = Rc::new(counts);
        let mut memo = self.counts.borrow_mut();
        memo.entry(key.to_owned()).or_default().insert(filter.cache_key().to_owned(), Rc::clone(&counts));
        counts
    }

    /// [`Self::base_counts`] less the pods of the deleting nodes (memoised): what every
    /// simulation starts from, since those pods leave their domains in all of them. A value
    /// may be left at 0 (or below, as a simulation's own tally may be): only sums are read.
    pub(crate) fn staying_counts(&self, key: &str, filter: &PodFilter) -> Rc<BTreeMap<String, i64>> {
        let base = self.base_counts(key, filter);
        if self.deleting.is_empty() {
            return base;
        }
        if let Some(hit) = self.staying_counts.borrow().get(key).and_then(|by_filter| by_filter.get(filter.cache_key()))
        {
            return Rc::clone(hit);
        }
        let mut counts = (*base).clone();
        for (i, _) in self.deleting_pods.matching(filter) {
            if let Some(domain) = self.node_domain(i, key).filter(|_| self.counts_on(i, filter)) {
                if let Some(n) = counts.get_mut(domain) {
                    *n -= 1;
                } else {
                    counts.insert(domain.to_owned(), -1);
                }
            }
        }
        let counts = Rc::new(counts);
        let mut memo = self.staying_counts.borrow_mut();
        memo.entry(key.to_owned()).or_default().insert(filter.cache_key().to_owned(), Rc::clone(&counts));
        counts
    }

    /// Whether node `i` is deleting (in `deleting`).
    pub(crate) fn is_deleting(&self, i: usize) -> bool {
        self.deleting.binary_search(&i).is_ok()
    }

    /// The pods each deleting node sends into every simulation, parallel to `deleting`.
    pub(crate) fn deleting_movers(&self) -> &[Vec<&'a Pod>] {
        self.deleting_movers.get_or_init(|| {
            let cluster = self.cluster;
            self.deleting
                .iter()
                .map(|&i| {
                    cluster.nodes[i]
                        .pods
                        .iter()
                        .copied()
                        .filter(|p| pod::is_reschedulable(p) && !self.is_held(i, p))
                        .collect()
                })
                .collect()
        })
    }
}
