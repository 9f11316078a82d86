//! No upstream twin: the index of the pods in place ([`crate::engine::scheduling::PodsInPlace`]) as a forecast
//! keeps it from one round to the next.
//!
//! The posting lists (namespace, label) → pods depend on the pods' namespaces and labels only,
//! which a forecast never changes, so they are built once over every pod of the snapshot, by
//! position in `snapshot.pods`, and extended when pods are appended. What a round changes is
//! where each pod is: [`InPlace`] pairs the lists with this round's location of each pod (its
//! node, or none when it is not an active pod on an existing node), so that a filter reads the
//! same pods, with the same nodes, as the index built from the round's cluster.

use std::cell::RefCell;
use std::rc::Rc;

use foldhash::HashMap;

use crate::engine::incremental::pod_index::{is_indexed, IndexedKeys};
use crate::engine::scheduling::topology::PodFilter;
use crate::engine::state::Cluster;
use crate::snapshot::Pod;

/// Posting lists over the first `covered` pods of a snapshot.
#[derive(Debug, Clone, Default)]
pub(in crate::engine) struct KeptPodIndex {
    covered: usize,
    keys: IndexedKeys,
    by_namespace: HashMap<String, Namespace>,
    /// Per filter (by its key), the covered pods it selects, in the order the posting lists give
    /// them: a function of the pods' namespaces and labels alone, so kept from one round to the
    /// next (and dropped when pods are appended).
    selected: RefCell<HashMap<String, Rc<[u32]>>>,
}

/// One namespace's pods, and label key → label value → those carrying that label.
#[derive(Debug, Clone, Default)]
struct Namespace {
    pods: Vec<u32>,
    by_label: HashMap<String, HashMap<String, Vec<u32>>>,
}

impl KeptPodIndex {
    /// The index over `pods`, reusing `kept` when it covers a prefix of them with the same
    /// selector keys (appended pods are added; otherwise it is built anew).
    pub(in crate::engine) fn covering(kept: Option<Rc<KeptPodIndex>>, pods: &[Pod]) -> Rc<KeptPodIndex> {
        let mut index = kept.filter(|k| k.covered <= pods.len()).unwrap_or_default();
        if index.covered == pods.len() {
            return index;
        }
        // The keys are a union over the pods, so the appended pods' own keys are all that can
        // be new: the kept keys stand when they have them all, else the two make the union.
        let appended = crate::engine::incremental::pod_index::selector_keys(&pods[index.covered..]);
        if !appended.iter().all(|k| index.keys.binary_search(k).is_ok()) {
            let mut keys: Vec<String> = index.keys.iter().chain(appended.iter()).cloned().collect();
            keys.sort_unstable();
            keys.dedup();
            index = Rc::new(KeptPodIndex { keys: keys.into(), ..KeptPodIndex::default() });
        }
        let index_mut = Rc::make_mut(&mut index);
        for (at, p) in pods.iter().enumerate().skip(index_mut.covered) {
            index_mut.push(at, p);
        }
        index_mut.covered = pods.len();
        index_mut.selected.get_mut().clear();
        index
    }

    /// The covered pods `filter` selects (memoised; `pods` are the pods the lists cover).
    fn selected(&self, filter: &PodFilter, pods: &[Pod]) -> Rc<[u32]> {
        if let Some(hit) = self.selected.borrow().get(filter.cache_key()) {
            return Rc::clone(hit);
        }
        let ids: Vec<&[u32]> = match (&filter.namespaces, &filter.selector) {
            (Some(namespaces), Some(selector)) => namespaces
                .iter()
                .filter_map(|ns| self.by_namespace.get(ns.as_str()))
                .map(|namespace| {
                    let indexed =
                        selector.match_labels.iter().flatten().filter(|(k, _)| is_indexed(Some(&self.keys), k));
                    let by_label = indexed.map(|(k, v)| {
                        namespace
                            .by_label
                            .get(k.as_str())
                            .and_then(|values| values.get(v.as_str()))
                            .map_or(&[][..], Vec::as_slice)
                    });
                    // Any required label's list holds every pod the selector can match.
                    by_label.min_by_key(|ids| ids.len()).unwrap_or(&namespace.pods)
                })
                .collect(),
            _ => Vec::new(),
        };
        let every_namespace = filter.namespaces.is_none() && filter.selector.is_some();
        let all = every_namespace.then_some(0..u32::try_from(self.covered).unwrap_or(u32::MAX)).into_iter().flatten();
        let selected: Rc<[u32]> = ids
            .into_iter()
            .flatten()
            .copied()
            .chain(all)
            .filter(|&at| pods.get(at as usize).is_some_and(|p| filter.matches(p)))
            .collect();
        self.selected.borrow_mut().insert(filter.cache_key().to_owned(), Rc::clone(&selected));
        selected
    }

    fn push(&mut self, at: usize, pod: &Pod) {
        let id = u32::try_from(at).unwrap_or(u32::MAX);
        let namespace = self.by_namespace.entry(pod.metadata.namespace().to_owned()).or_default();
        namespace.pods.push(id);
        for (key, value) in &pod.metadata.labels {
            if is_indexed(Some(&self.keys), key) {
                namespace.by_label.entry(key.clone()).or_default().entry(value.clone()).or_default().push(id);
            }
        }
    }

    pub(in crate::engine) fn keys(&self) -> &IndexedKeys {
        &self.keys
    }
}

/// The kept lists with this round's location of each pod.
#[derive(Debug)]
pub(in crate::engine) struct InPlace {
    index: Rc<KeptPodIndex>,
    /// Per pod position: the node it is active on, or [`NOWHERE`].
    node_of: Vec<u32>,
}

const NOWHERE: u32 = u32::MAX;

impl InPlace {
    /// The active pods of every existing node of `cluster`, located.
    pub(in crate::engine) fn new(index: Rc<KeptPodIndex>, cluster: &Cluster<'_>) -> Self {
        let pods = &cluster.snapshot.pods;
        let mut node_of = vec![NOWHERE; pods.len()];
        let (base, size) = (pods.as_ptr() as usize, std::mem::size_of::<Pod>().max(1));
        for (i, n) in cluster.nodes.iter().enumerate() {
            for p in n.pods.iter().filter(|p| cluster.is_active(p)) {
                let at = (std::ptr::from_ref(*p) as usize).wrapping_sub(base) / size;
                if let Some(slot) = node_of.get_mut(at) {
                    *slot = u32::try_from(i).unwrap_or(NOWHERE);
                }
            }
        }
        InPlace { index, node_of }
    }

    /// The node of every pod in place that `filter` selects, in no particular order.
    pub(in crate::engine) fn nodes_matching<'i>(
        &'i self,
        filter: &'i PodFilter,
        pods: &'i [Pod],
    ) -> impl Iterator<Item = usize> + 'i {
        let selected = self.index.selected(filter, pods);
        (0..selected.len()).filter_map(move |k| {
            let node = *self.node_of.get(selected[k] as usize)?;
            (node != NOWHERE).then_some(node as usize)
        })
    }
}
