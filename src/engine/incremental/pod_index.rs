//! The pods in place on existing nodes, indexed by namespace and by label, so that a topology
//! filter reads the few pods it may select instead of every pod of the cluster.
//!
//! kube-scheduler keeps the same kind of index (`framework.NodeInfo` pods with affinity, the
//! PodTopologySpread pre-filter state); Karpenter's `Topology` counts by scanning the cluster
//! state once per topology group. Either way the answer is the count per domain; only the
//! cost differs, and without an index it is quadratic in the size of the cluster.

use std::sync::Arc;

use foldhash::{HashMap, HashSet};

use crate::engine::scheduling::topology::PodFilter;
use crate::snapshot::Pod;

/// The label keys worth a posting list, sorted (tested by binary search, not hashing: pods
/// carry few labels and the index tests every one of them). Shared with the indexes of each
/// simulation; `Arc` because the world's index is built on another thread.
pub(in crate::engine) type IndexedKeys = Arc<[String]>;

/// Pods with where they are (`L`: a node, or a node or a new NodeClaim), and posting lists
/// into them.
#[derive(Debug)]
pub(in crate::engine) struct PodIndex<'a, L = usize> {
    pods: Vec<(L, &'a Pod)>,
    by_namespace: HashMap<&'a str, Namespace<'a>>,
    /// `None`: every key.
    keys: Option<IndexedKeys>,
}

/// One namespace's pods, and `(label key, label value)` → those carrying that label.
#[derive(Debug, Default)]
struct Namespace<'a> {
    pods: Vec<u32>,
    by_label: HashMap<(&'a str, &'a str), Vec<u32>>,
}

impl<L> Default for PodIndex<'_, L> {
    fn default() -> Self {
        PodIndex { pods: Vec::new(), by_namespace: HashMap::default(), keys: None }
    }
}

impl<'a, L: Copy> PodIndex<'a, L> {
    /// Indexes `(location, pod)` pairs, with posting lists for the label `keys` only (every key
    /// when `None`): a selector on another key reads its namespace's list.
    pub(in crate::engine) fn new(pods: impl IntoIterator<Item = (L, &'a Pod)>, keys: Option<IndexedKeys>) -> Self {
        let mut index = PodIndex { keys, ..PodIndex::default() };
        for (at, pod) in pods {
            index.push(at, pod);
        }
        index
    }

    pub(in crate::engine) fn push(&mut self, at: L, pod: &'a Pod) {
        let id = u32::try_from(self.pods.len()).unwrap_or(u32::MAX);
        let namespace = self.by_namespace.entry(pod.metadata.namespace()).or_default();
        namespace.pods.push(id);
        for (key, value) in &pod.metadata.labels {
            if is_indexed(self.keys.as_deref(), key) {
                namespace.by_label.entry((key, value)).or_default().push(id);
            }
        }
        self.pods.push((at, pod));
    }

    /// Whether `filter` selects any indexed pod (the same answer as [`Self::matching`], without
    /// gathering the posting lists).
    pub(in crate::engine) fn any_matching(&self, filter: &PodFilter) -> bool {
        let (Some(namespaces), Some(selector)) = (&filter.namespaces, &filter.selector) else {
            return filter.namespaces.is_none()
                && filter.selector.is_some()
                && self.pods.iter().any(|(_, pod)| filter.matches(pod));
        };
        namespaces.iter().filter_map(|ns| self.by_namespace.get(ns.as_str())).any(|namespace| {
            let indexed = selector.match_labels.iter().flatten().filter(|(k, _)| is_indexed(self.keys.as_deref(), k));
            let by_label =
                indexed.map(|(k, v)| namespace.by_label.get(&(k.as_str(), v.as_str())).map_or(&[][..], Vec::as_slice));
            let ids = by_label.min_by_key(|ids| ids.len()).unwrap_or(&namespace.pods);
            ids.iter().any(|&id| filter.matches(self.pods[id as usize].1))
        })
    }

    /// [`Self::any_matching`] among the pods pushed after the first `from` only.
    pub(in crate::engine) fn any_matching_since(&self, filter: &PodFilter, from: usize) -> bool {
        filter.selector.is_some() && self.pods.iter().skip(from).any(|(_, pod)| filter.matches(pod))
    }

    /// How many pods were pushed.
    pub(in crate::engine) fn len(&self) -> usize {
        self.pods.len()
    }

    /// Every indexed pod `filter` selects, with where it is, in no particular order.
    pub(in crate::engine) fn matching<'i>(&'i self, filter: &'i PodFilter) -> impl Iterator<Item = (L, &'a Pod)> + 'i {
        let ids: Vec<&'i [u32]> = match (&filter.namespaces, &filter.selector) {
            (Some(namespaces), Some(selector)) => namespaces
                .iter()
                .filter_map(|ns| self.by_namespace.get(ns.as_str()))
                .map(|namespace| {
                    let indexed =
                        selector.match_labels.iter().flatten().filter(|(k, _)| is_indexed(self.keys.as_deref(), k));
                    let by_label = indexed
                        .map(|(k, v)| namespace.by_label.get(&(k.as_str(), v.as_str())).map_or(&[][..], Vec::as_slice));
                    // The rarest required label narrows the most; every candidate is checked anyway.
                    by_label.min_by_key(|ids| ids.len()).unwrap_or(&namespace.pods)
                })
                .collect(),
            _ => Vec::new(),
        };
        let every_namespace = filter.namespaces.is_none() && filter.selector.is_some();
        let all = every_namespace.then_some(self.pods.iter().copied()).into_iter().flatten();
        ids.into_iter().flatten().map(|&id| self.pods[id as usize]).chain(all).filter(|(_, pod)| filter.matches(pod))
    }
}

pub(in crate::engine) fn is_indexed(keys: Option<&[String]>, key: &str) -> bool {
    keys.is_none_or(|keys| keys.binary_search_by(|k| k.as_str().cmp(key)).is_ok())
}

/// Every label key a topology spread constraint or a pod (anti-)affinity term of some pod
/// requires through `matchLabels`.
pub(in crate::engine) fn selector_keys(pods: &[Pod]) -> IndexedKeys {
    let mut keys: HashSet<String> = HashSet::default();
    for pod in pods {
        let spreads = pod.spec.topology_spread_constraints.iter().filter_map(|c| c.label_selector.as_ref());
        let affinity = pod.spec.affinity.as_ref();
        let affinity_terms = affinity.and_then(|a| a.pod_affinity.as_ref()).into_iter().flat_map(|a| {
            let required = a.required_during_scheduling_ignored_during_execution.iter().flatten();
            let preferred = a.preferred_during_scheduling_ignored_during_execution.iter().flatten();
            required.chain(preferred.map(|w| &w.pod_affinity_term))
        });
        let anti_terms = affinity.and_then(|a| a.pod_anti_affinity.as_ref()).into_iter().flat_map(|a| {
            let required = a.required_during_scheduling_ignored_during_execution.iter().flatten();
            let preferred = a.preferred_during_scheduling_ignored_during_execution.iter().flatten();
            required.chain(preferred.map(|w| &w.pod_affinity_term))
        });
        let terms = affinity_terms.chain(anti_terms).filter_map(|t| t.label_selector.as_ref());
        for selector in spreads.chain(terms) {
            for key in selector.match_labels.iter().flatten().map(|(k, _)| k) {
                if !keys.contains(key) {
                    keys.insert(key.clone());
                }
            }
        }
    }
    let mut keys: Vec<String> = keys.into_iter().collect();
    keys.sort_unstable();
    keys.into()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};
    use serde_json::json;

    use std::sync::Arc;

    use super::PodIndex;
    use crate::engine::scheduling::topology::PodFilter;
    use crate::snapshot::Pod;

    fn pod(namespace: &str, name: &str, labels: &serde_json::Value) -> Pod {
        serde_json::from_value(json!({"metadata": {"name": name, "namespace": namespace, "labels": labels}}))
            .expect("pod")
    }

    fn names(index: &PodIndex<'_>, filter: &PodFilter) -> BTreeSet<String> {
        index.matching(filter).map(|(node, p)| format!("{node}:{}", p.metadata.name)).collect()
    }

    fn selector(labels: &[(&str, &str)]) -> LabelSelector {
        LabelSelector {
            match_labels: Some(labels.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()),
            match_expressions: None,
        }
    }

    #[test]
    fn selects_what_a_scan_selects() {
        let pods = [
            pod("a", "web-1", &json!({"app": "web", "tier": "front"})),
            pod("a", "web-2", &json!({"app": "web"})),
            pod("a", "db-1", &json!({"app": "db", "tier": "back"})),
            pod("b", "web-3", &json!({"app": "web", "tier": "front"})),
        ];
        let index = PodIndex::new(pods.iter().enumerate(), None);
        let narrow = PodIndex::new(pods.iter().enumerate(), Some(Arc::from(["tier".to_owned()])));
        let filters = [
            PodFilter::new(Some(["a".to_owned()].into()), Some(selector(&[("app", "web")]))),
            PodFilter::new(
                Some(["a".to_owned(), "b".to_owned()].into()),
                Some(selector(&[("app", "web"), ("tier", "front")])),
            ),
            PodFilter::new(None, Some(selector(&[("app", "web")]))),
            PodFilter::new(Some(["a".to_owned()].into()), Some(LabelSelector::default())),
            PodFilter::new(
                Some(["a".to_owned()].into()),
                Some(LabelSelector {
                    match_labels: None,
                    match_expressions: Some(vec![LabelSelectorRequirement {
                        key: "tier".into(),
                        operator: "Exists".into(),
                        values: None,
                    }]),
                }),
            ),
            PodFilter::new(Some(["a".to_owned()].into()), None),
            PodFilter::new(Some(["c".to_owned()].into()), Some(selector(&[("app", "web")]))),
        ];
        for filter in &filters {
            let scanned: BTreeSet<String> = pods
                .iter()
                .enumerate()
                .filter(|(_, p)| filter.matches(p))
                .map(|(node, p)| format!("{node}:{}", p.metadata.name))
                .collect();
            assert_eq!(names(&index, filter), scanned, "{filter:?}");
            assert_eq!(names(&narrow, filter), scanned, "{filter:?} with only `tier` indexed");
            assert_eq!(index.any_matching(filter), !scanned.is_empty(), "{filter:?}");
            assert_eq!(narrow.any_matching(filter), !scanned.is_empty(), "{filter:?} with only `tier` indexed");
        }
        assert_eq!(names(&index, &filters[1]).len(), 2);
        assert_eq!(names(&index, &filters[2]).len(), 3);
    }
}
