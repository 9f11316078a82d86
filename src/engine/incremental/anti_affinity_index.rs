//! No upstream twin: the required anti-affinity terms of the pods in place, grouped and
//! indexed by label (Karpenter's `Topology` keeps them as inverse topology groups).

use std::collections::BTreeMap;
use std::rc::Rc;

use foldhash::HashMap;

use crate::engine::scheduling::existing_node::base::BaseNode;
use crate::engine::scheduling::topology::{PodFilter, PodTerms};
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

/// A pod's topology terms, as a forecast keeps them from one round to the next.
pub(in crate::engine) type TermsOf<'f> = &'f dyn Fn(&Pod) -> Rc<PodTerms>;

/// Groups by topology key and filter, in the order of both.
type ById = BTreeMap<(String, String), AntiAffinityGroup>;

impl AntiAffinityGroups {
    /// The groups of the pods in place on `nodes`. `kept_terms` gives a pod's topology terms
    /// when a forecast keeps them from round to round (their required anti-affinity filters are
    /// those built here, `PodTerms::new`); otherwise each term's filter is built afresh.
    pub(in crate::engine) fn new(
        nodes: &[BaseNode<'_>],
        cluster: &Cluster<'_>,
        kept_terms: Option<TermsOf<'_>>,
    ) -> Self {
        let holders = nodes
            .iter()
            .enumerate()
            .flat_map(|(i, n)| n.pods.iter().filter(|p| cluster.has_required_anti_affinity(p)).map(move |p| (i, *p)));
        let by_id = if let Some(terms_of) = kept_terms {
            by_kept_terms(&holders.map(|(i, p)| (i, terms_of(p))).collect::<Vec<_>>())
        } else {
            by_own_terms(holders)
        };
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

/// The groups from each holder's kept terms: keyed by borrowed strings, so that a term many
/// pods share is cloned once.
fn by_kept_terms(held: &[(usize, Rc<PodTerms>)]) -> ById {
    let mut by_id: BTreeMap<(&str, &str), AntiAffinityGroup> = BTreeMap::new();
    for (i, terms) in held {
        for (key, filter) in &terms.required_anti {
            by_id
                .entry((key.as_str(), filter.cache_key()))
                .or_insert_with(|| AntiAffinityGroup { key: key.clone(), filter: filter.clone(), nodes: Vec::new() })
                .nodes
                .push(*i);
        }
    }
    by_id.into_iter().map(|((k, f), g)| ((k.to_owned(), f.to_owned()), g)).collect()
}

/// The groups from each holder's spec.
fn by_own_terms<'p>(holders: impl Iterator<Item = (usize, &'p Pod)>) -> ById {
    let mut by_id = ById::new();
    for (i, pod) in holders {
        for term in crate::engine::pod::required_anti_affinity_terms(pod) {
            let filter = crate::engine::scheduling::topology::term_filter(pod, term);
            by_id
                .entry((term.topology_key.clone(), filter.cache_key().to_owned()))
                .or_insert_with(|| AntiAffinityGroup { key: term.topology_key.clone(), filter, nodes: Vec::new() })
                .nodes
                .push(i);
        }
    }
    by_id
}
