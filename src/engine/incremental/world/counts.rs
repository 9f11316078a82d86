//! The topology counts every simulation starts from, and what the deleting nodes send into
//! every simulation: memoised once per replay.

use std::collections::BTreeMap;
use std::rc::Rc;

use foldhash::HashMap;

use crate::engine::incremental::kept_pod_index::InPlace;
use crate::engine::incremental::world::{PodsIndexed, World};
use crate::engine::incremental::world_memo::{CountedFrom, KeptCounts};
use crate::engine::scheduling::topology::PodFilter;
use crate::snapshot::Pod;

/// A topology key's domains on the existing nodes: each node's domain as a number into
/// `names` (`None`: the node lacks the key).
#[derive(Debug)]
pub(crate) struct DomainTable {
    of_node: Vec<Option<u32>>,
    names: Vec<Box<str>>,
    /// Zero between calls of [`World::base_counts`], which tallies into it.
    tally: std::cell::RefCell<Vec<i64>>,
}

impl<'a> World<'_, 'a> {
    /// Pods matching `filter`, per value of `key`, over every node (memoised).
    pub fn base_counts(&self, key: &str, filter: &PodFilter) -> Rc<BTreeMap<String, i64>> {
        if let Some(hit) = self.counts.borrow().get(key).and_then(|by_filter| by_filter.get(filter.cache_key())) {
            return Rc::clone(hit);
        }
        let counts = match self.kept_counts_from() {
            Some((in_place, kept)) => self.kept_or_tallied(key, filter, in_place, kept),
            None => self.tally(key, filter),
        };
        let mut memo = self.counts.borrow_mut();
        memo.entry(key.to_owned()).or_default().insert(filter.cache_key().to_owned(), Rc::clone(&counts));
        counts
    }

    /// A forecast's counts kept from an earlier round when the pods they count are on nodes
    /// with the same stamps, in the same order; else tallied, and kept for the next round.
    fn kept_or_tallied(
        &self,
        key: &str,
        filter: &PodFilter,
        in_place: &InPlace,
        kept: &KeptCounts,
    ) -> Rc<BTreeMap<String, i64>> {
        let pods = &self.cluster.snapshot.pods;
        let stamps = || in_place.nodes_matching(filter, pods).map(|i| self.nodes[i].stamp);
        let known = kept
            .borrow()
            .get(key)
            .and_then(|by_filter| by_filter.get(filter.cache_key()))
            .and_then(|from| from.stamps.iter().copied().eq(stamps()).then(|| Rc::clone(&from.counts)));
        if let Some(counts) = known {
            // Debug builds count anyway and hold the kept counts to it.
            debug_assert_eq!(*counts, *self.tally(key, filter), "kept counts of {key} for {}", filter.cache_key());
            return counts;
        }
        let counts = self.tally(key, filter);
        let from = CountedFrom { stamps: stamps().collect(), counts: Rc::clone(&counts) };
        kept.borrow_mut().entry(key.to_owned()).or_default().insert(filter.cache_key().to_owned(), from);
        counts
    }

    /// A forecast's kept counts and the index they are checked against.
    fn kept_counts_from(&self) -> Option<(&InPlace, &KeptCounts)> {
        match (&self.pods, &self.kept_counts) {
            (PodsIndexed::Kept(in_place), Some(kept)) => Some((in_place, kept)),
            _ => None,
        }
    }

    /// [`Self::base_counts`], counted.
    fn tally(&self, key: &str, filter: &PodFilter) -> Rc<BTreeMap<String, i64>> {
        // Tallied by domain number: a pod costs an index, not a label lookup and a map insert.
        let domains = self.domain_table(key);
        // A scratch tally kept zeroed between calls: zeroing one per call would cost more than
        // the pods it counts (a hostname key has a domain per node, most calls count a few).
        let mut tally = std::mem::take(&mut *domains.tally.borrow_mut());
        let mut seen: Vec<u32> = Vec::new();
        let mut count = |i: usize| {
            let Some(d) = domains.of_node[i].filter(|_| self.counts_on(i, filter)) else { return };
            let n = &mut tally[d as usize];
            if *n == 0 {
                seen.push(d);
            }
            *n += 1;
        };
        match &self.pods {
            PodsIndexed::Built(index) => index.matching(filter).for_each(|(i, _)| count(i)),
            PodsIndexed::Kept(in_place) => in_place.nodes_matching(filter, &self.cluster.snapshot.pods).for_each(count),
        }
        let counts: BTreeMap<String, i64> = seen
            .iter()
            .map(|&d| (String::from(&*domains.names[d as usize]), std::mem::take(&mut tally[d as usize])))
            .collect();
        *domains.tally.borrow_mut() = tally;
        Rc::new(counts)
    }

    /// Every node's value of `key`, numbered (memoised per key).
    fn domain_table(&self, key: &str) -> Rc<DomainTable> {
        if let Some(hit) = self.domain_tables.borrow().get(key) {
            return Rc::clone(hit);
        }
        let mut number: HashMap<&str, u32> = HashMap::default();
        let mut names: Vec<Box<str>> = Vec::new();
        let of_node = (0..self.nodes.len())
            .map(|i| {
                let value = self.node_domain(i, key)?;
                Some(*number.entry(value).or_insert_with(|| {
                    names.push(value.into());
                    (names.len() - 1) as u32
                }))
            })
            .collect();
        let tally = std::cell::RefCell::new(vec![0; names.len()]);
        let table = Rc::new(DomainTable { of_node, names, tally });
        self.domain_tables.borrow_mut().insert(key.to_owned(), Rc::clone(&table));
        table
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
                        .filter(|p| cluster.is_reschedulable(p) && !self.is_held(i, p))
                        .collect()
                })
                .collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
    use serde_json::json;

    use crate::engine::labels::{HOSTNAME, ZONE};
    use crate::engine::scheduling::topology::PodFilter;
    use crate::engine::scheduling::World;
    use crate::engine::state::Cluster;
    use crate::testing::{managed_node, node_pool, now, pod, set, snapshot};

    fn app(name: &str) -> PodFilter {
        let selector =
            LabelSelector { match_labels: Some([("app".to_owned(), name.to_owned())].into()), match_expressions: None };
        PodFilter::new(Some(BTreeSet::from(["default".to_owned()])), Some(selector))
    }

    fn counts(world: &World<'_, '_>, key: &str, name: &str) -> Vec<(String, i64)> {
        world.base_counts(key, &app(name)).iter().map(|(k, v)| (k.clone(), *v)).collect()
    }

    /// Counted per domain over every node, a node without the key counting nowhere; each
    /// filter's count starts from zero whatever was counted before it.
    #[test]
    fn base_counts_tally_each_filter_per_domain_from_zero() {
        let mut objects = vec![node_pool("default")];
        for n in ["node-a", "node-b", "node-c"] {
            objects.extend(managed_node(n));
        }
        let labelled =
            |name: &str, node: &str, app: &str| set(pod(name, node), "/metadata/labels", json!({"app": app}));
        objects.extend([
            labelled("w1", "node-a", "web"),
            labelled("w2", "node-a", "web"),
            labelled("w3", "node-b", "web"),
            labelled("w4", "node-c", "web"),
            labelled("d1", "node-c", "db"),
        ]);
        let mut s = snapshot(objects);
        let zone_of = |n: &str| match n {
            "node-a" | "node-b" => Some("zone-1"),
            _ => None,
        };
        for node in &mut s.nodes {
            node.metadata.labels.remove(ZONE);
            if let Some(z) = zone_of(&node.metadata.name) {
                node.metadata.labels.insert(ZONE.to_owned(), z.to_owned());
            }
        }
        let cluster = Cluster::new(&s, now());
        let world = World::new(&cluster);
        assert_eq!(counts(&world, ZONE, "web"), [("zone-1".to_owned(), 3)]);
        assert_eq!(counts(&world, ZONE, "db"), []);
        let hosts = counts(&world, HOSTNAME, "web");
        assert_eq!(hosts.iter().map(|(_, n)| n).sum::<i64>(), 4);
        assert_eq!(hosts.len(), 3);
        assert_eq!(counts(&world, HOSTNAME, "db").iter().map(|(_, n)| *n).collect::<Vec<_>>(), [1]);
        assert_eq!(counts(&world, HOSTNAME, "web"), hosts, "memoised, and the same");
    }

    /// #2033: from v1.0.7 (1.0.x), v1.1.3, v1.2.3, v1.3.3 and v1.4.0 a do-not-disrupt pod and
    /// a pod under a fully blocking PDB stay out of every simulation, on a deleting node as on
    /// a candidate; before, both were placed like any reschedulable pod.
    #[test]
    fn fully_blocked_pods_leave_the_simulation_from_their_patch_on() {
        use crate::rules::{CoreVersion, RuleSet};
        let [gone, gone_claim] = managed_node("node-d");
        let gone_claim = set(gone_claim, "/metadata/deletionTimestamp", json!("2026-11-29T09:59:00Z"));
        let mut objects = vec![node_pool("default"), gone, gone_claim];
        objects.extend(managed_node("node-a"));
        let guarded =
            set(pod("guarded", "node-d"), "/metadata/annotations", json!({"karpenter.sh/do-not-disrupt": "true"}));
        let pdb = json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": "db", "namespace": "default"},
            "spec": {"selector": {"matchLabels": {"app": "db"}}, "maxUnavailable": 0},
            "status": {"disruptionsAllowed": 0}});
        objects.extend([guarded, pod("plain", "node-d"), pod("db", "node-a"), pdb]);
        let mut s = snapshot(objects);
        let mut at = |major, minor, patch| {
            s.info.rules = RuleSet::at(CoreVersion::new(major, minor, patch));
            let cluster = Cluster::new(&s, now());
            let world = World::new(&cluster);
            let movers: Vec<String> =
                world.deleting_movers().iter().flatten().map(|p| p.metadata.name.clone()).collect();
            let candidate = cluster.nodes.iter().position(|n| n.name == "node-a").expect("node-a");
            (movers, world.held_on(candidate).len())
        };
        let all = vec!["guarded".to_owned(), "plain".to_owned()];
        let moved_alone = vec!["plain".to_owned()];
        assert_eq!(at(1, 0, 6), (all.clone(), 0), "v1.0.6 places every reschedulable pod");
        assert_eq!(at(1, 0, 7), (moved_alone.clone(), 1), "backport #2210");
        assert_eq!(at(1, 2, 2), (all.clone(), 0), "the 1.2 line has it from v1.2.3");
        assert_eq!(at(1, 2, 3), (moved_alone.clone(), 1), "backport #2212");
        assert_eq!(at(1, 3, 5), (moved_alone.clone(), 1));
        assert_eq!(at(1, 14, 1), (moved_alone, 1));
    }
}
