//! No upstream twin: the required anti-affinity terms of the pods in place, grouped and
//! indexed by label (Karpenter's `Topology` keeps them as inverse topology groups).

use std::collections::BTreeMap;

use foldhash::HashMap;

use super::existing_node::BaseNode;
use super::topology::PodFilter;
use crate::engine::state::Cluster;
use crate::snapshot::Pod;

/// One required anti-affinity term shared by pods in place.
#[derive(Debug, Clone)]
pub struct AntiAffinityGroup {
    pub key: String,
    pub filter: PodFilter,
    /// Nodes of the pods holding the term.
    pub nodes: Vec<usize>,
}

/// The required anti-affinity terms of the pods in place, indexed by a label each one
/// requires, so that a pod being placed is checked only against the terms that may select it.
#[derive(Debug, Default)]
pub struct AntiAffinityGroups {
    groups: Vec<AntiAffinityGroup>,
    /// namespace → label key → label value → groups requiring that label there.
    by_label: HashMap<String, HashMap<String, HashMap<String, Vec<usize>>>>,
    /// Groups without a namespace list or a `matchLabels`: checked for every pod.
    unindexed: Vec<usize>,
}

impl AntiAffinityGroups {
    pub(super) fn new(nodes: &[BaseNode<'_>], cluster: &Cluster<'_>) -> Self {
        let mut by_id: BTreeMap<String, AntiAffinityGroup> = BTreeMap::new();
        for (i, n) in nodes.iter().enumerate() {
            for pod in n.pods.iter().filter(|p| cluster.has_required_anti_affinity(p)) {
                for term in crate::engine::pod::required_anti_affinity_terms(pod) {
                    let filter = super::topology::term_filter(pod, term);
                    let id = format!("{}\u{0}{}", term.topology_key, filter.cache_key());
                    by_id
                        .entry(id)
                        .or_insert_with(|| AntiAffinityGroup {
                            key: term.topology_key.clone(),
                            filter,
                            nodes: Vec::new(),
                        })
                        .nodes
                        .push(i);
                }
            }
        }
        let mut out = AntiAffinityGroups { groups: by_id.into_values().collect(), ..Default::default() };
        for (g, group) in out.groups.iter().enumerate() {
            let label = group.filter.selector.as_ref().and_then(|s| s.match_labels.as_ref()?.iter().next());
            match (&group.filter.namespaces, label) {
                (Some(namespaces), Some((key, value))) => {
                    for ns in namespaces {
                        let values = out.by_label.entry(ns.clone()).or_default().entry(key.clone()).or_default();
                        values.entry(value.clone()).or_default().push(g);
                    }
                }
                _ => out.unindexed.push(g),
            }
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// The groups whose term selects `pod`.
    pub fn selecting<'g>(&'g self, pod: &'g Pod) -> impl Iterator<Item = &'g AntiAffinityGroup> + 'g {
        let by_key = self.by_label.get(pod.metadata.namespace());
        let indexed = pod.metadata.labels.iter().filter_map(move |(k, v)| by_key?.get(k)?.get(v)).flatten();
        self.unindexed.iter().chain(indexed).map(|&g| &self.groups[g]).filter(move |group| group.filter.matches(pod))
    }
}
