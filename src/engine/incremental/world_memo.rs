//! No upstream twin: what a forecast keeps of one round's [`crate::engine::scheduling::World`] for the next — every
//! pod's requests ([`RequestTable`]) and each existing node's clock-free destination state
//! ([`NodeParts`]), the index of the pods in place (`kept_pod_index.rs`) and each pod's
//! topology terms, reused only while what it was computed from is unchanged.
//!
//! A node's parts follow from what [`node_parts`] reads of its Node (labels, taints,
//! `unschedulable`, allocatable, capacity) and of its NodeClaim (labels, taints, startup
//! taints, allocatable), and from the pods bound to it (which pods, whether each is terminal or
//! active). The memo keeps a copy of those inputs beside the parts and compares them with the
//! round's: a node the round's command tainted, drained or filled,
//! or whose NodeClaim changed, is recomputed; so is every node when its pods change. When the
//! forecast names the nodes whose objects it touched ([`WorldMemo::nodes_changed`]), only those
//! nodes' objects are compared (their pods always are); debug builds compare every node and
//! assert that nothing else changed. What the parts do not cover, the clock
//! (`under_consolidate_after`), is computed every round ([`assemble`]).
//!
//! Each kept node has a stamp that changes when its objects do, not when only its pods do:
//! what follows from its labels and taints alone, whether a class of pods accepts it
//! ([`WorldMemo::static_answers`]) or a spread's node filter counts it
//! ([`WorldMemo::node_filter_answers`]), is kept across rounds under that stamp. The topology
//! counts of the pods in place are kept with the stamps of the nodes they counted
//! ([`KeptCounts`]): the same stamps in the same order give the same counts.
//!
//! The other inputs — a pod's requests, host ports and volumes, the DaemonSets, the volume
//! index — are taken to be fixed for the memo's life, as a forecast leaves them.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use foldhash::HashMap;

use crate::engine::incremental::kept_pod_index::KeptPodIndex;
use crate::engine::incremental::pod_requests::{PodRequests, RequestTable};
use crate::engine::incremental::refusal_memo::KeptRefusals;
use crate::engine::incremental::world::fit_key::FitKey;
use crate::engine::scheduling::existing_node::base::{assemble, node_parts, BaseNode, DaemonPod, NodeParts};
use crate::engine::scheduling::topology::PodTerms;
use crate::engine::state::{Cluster, StateNode};
use crate::snapshot::{Node, NodeClaim, Pod, Resources, StringMap, Taint};

/// Owned by the forecast and passed to each round's world ([`crate::engine::scheduling::World::reusing`]).
#[derive(Debug, Default)]
pub struct WorldMemo {
    pub(in crate::engine) requests: Option<Rc<RequestTable>>,
    pub(in crate::engine) base_nodes: BaseNodeMemo,
    pub(in crate::engine) pods_in_place: Option<Rc<KeptPodIndex>>,
    /// Per pod position, its topology terms once asked for: they follow from the pod alone
    /// (`PodTerms::new`), whatever the round.
    pub(in crate::engine) terms: KeptTerms,
    /// Per pod position, its node requirements and their fingerprint once asked for: they
    /// follow from the pod and the volume index, which a forecast leaves alone.
    pub(in crate::engine) fit_keys: KeptPerPod<FitKey>,
    /// Per fit fingerprint (requirements and tolerations) and node stamp, whether the node's
    /// labels and taints accept such a pod (see [`BaseNodeMemo`]'s stamps).
    pub(in crate::engine) static_answers: KeptAnswers,
    /// Per topology node filter and node stamp, whether the filter counts the node: it reads
    /// the node's labels and taints alone (`topology_node_filter.rs`).
    pub(in crate::engine) node_filter_answers: KeptAnswers,
    /// Per topology key and filter, the counts of the pods in place with what they were
    /// counted from (see [`KeptCounts`]).
    pub(in crate::engine) counts: KeptCounts,
    /// SingleNode's decision-only refusals, kept while nothing they read changed
    /// (`refusal_memo.rs`).
    pub(in crate::engine) refusals: KeptRefusals,
}

/// Per topology key, then filter: the pods in place that the filter selects, per domain, and
/// the stamps of the nodes those pods were on, in the kept index's order. The counts follow
/// from those stamps alone (a node's domain and whether the filter counts it follow from its
/// labels and taints, which its stamp names), so a round whose selected pods sit on nodes with
/// the same stamps, in the same order, reads the kept counts without tallying them again.
pub(in crate::engine) type KeptCounts = Rc<RefCell<HashMap<String, HashMap<String, CountedFrom>>>>;

/// See [`KeptCounts`].
#[derive(Debug)]
pub(in crate::engine) struct CountedFrom {
    pub(in crate::engine) stamps: Box<[u64]>,
    pub(in crate::engine) counts: Rc<BTreeMap<String, i64>>,
}

/// See [`WorldMemo::static_answers`]: per question (a fit fingerprint, a node filter), the
/// answers by stamp.
pub(in crate::engine) type KeptAnswers = Rc<RefCell<HashMap<String, StampAnswers>>>;

/// Answers indexed by node stamp (stamps are given in sequence, so a vector is dense enough):
/// [`NOT_ASKED`], [`REFUSED`] or [`ACCEPTED`].
pub(in crate::engine) type StampAnswers = Vec<u8>;
const NOT_ASKED: u8 = 0;
const REFUSED: u8 = 1;
const ACCEPTED: u8 = 2;

/// A node's kept answer under its stamp, asked and kept when not known yet; asked every time
/// without kept answers or a stamp (0: the node's objects are not named by one).
pub(in crate::engine) fn answer_by_stamp(
    answers: Option<&mut StampAnswers>,
    stamp: u64,
    ask: impl FnOnce() -> bool,
) -> bool {
    let (Some(answers), Ok(at)) = (answers.filter(|_| stamp != 0), usize::try_from(stamp)) else { return ask() };
    if at >= answers.len() {
        answers.resize(at + 1, NOT_ASKED);
    }
    match answers[at] {
        ACCEPTED => true,
        REFUSED => false,
        _ => {
            let answer = ask();
            answers[at] = if answer { ACCEPTED } else { REFUSED };
            answer
        }
    }
}

/// Per pod position, a value once computed; shared by the memo and each round's world.
pub(in crate::engine) type KeptPerPod<T> = Rc<RefCell<Vec<Option<Rc<T>>>>>;

/// Per pod position, its topology terms.
pub(in crate::engine) type KeptTerms = KeptPerPod<PodTerms>;

impl WorldMemo {
    /// See [`crate::engine::RoundCache::nodes_changed`].
    pub(crate) fn nodes_changed(&mut self, names: BTreeSet<String>) {
        self.base_nodes.only_changed(names);
    }

    /// The kept terms, sized to `pods` (emptied if the pods shrank).
    pub(in crate::engine) fn terms_for(&self, pods: &[Pod]) -> KeptTerms {
        sized_to(&self.terms, pods)
    }

    /// The kept fit keys, sized to `pods` (emptied if the pods shrank).
    pub(in crate::engine) fn fit_keys_for(&self, pods: &[Pod]) -> KeptPerPod<FitKey> {
        sized_to(&self.fit_keys, pods)
    }
}

fn sized_to<T>(kept: &KeptPerPod<T>, pods: &[Pod]) -> KeptPerPod<T> {
    {
        let mut slots = kept.borrow_mut();
        if slots.len() > pods.len() {
            slots.clear();
        }
        slots.resize(pods.len(), None);
    }
    Rc::clone(kept)
}

/// Per node name, the parts and the inputs they were computed from.
#[derive(Debug, Default)]
pub(in crate::engine) struct BaseNodeMemo {
    by_name: HashMap<String, Kept>,
    /// When the forecast says so: the only nodes whose Node or NodeClaim may have changed since
    /// the last round (see [`BaseNodeMemo::only_changed`]).
    changed: Option<BTreeSet<String>>,
    /// The last stamp given (the first is 1; 0 is no stamp).
    stamps: u64,
    /// Whether this round computed some node's parts (rather than reusing them all).
    computed: bool,
    /// Whether the round last built reused every node's parts, for the same nodes as the
    /// round before it (see [`BaseNodeMemo::keep_only`]).
    unchanged: bool,
}

#[derive(Debug)]
struct Kept {
    node: Option<NodeInputs>,
    claim: Option<ClaimInputs>,
    /// Names the node's objects as they were when these inputs were taken: it changes when
    /// they do (not when only its pods do), so that what follows from the labels and taints
    /// alone can be kept by stamp ([`WorldMemo::static_answers`]).
    stamp: u64,
    pods: Vec<PodMark>,
    parts: NodeParts,
}

/// What [`node_parts`] reads of a Node.
#[derive(Debug)]
struct NodeInputs {
    labels: StringMap,
    taints: Vec<Taint>,
    unschedulable: bool,
    allocatable: Resources,
    capacity: Resources,
}

impl NodeInputs {
    fn of(n: &Node) -> Self {
        NodeInputs {
            labels: n.metadata.labels.clone(),
            taints: n.spec.taints.clone(),
            unschedulable: n.spec.unschedulable,
            allocatable: n.status.allocatable.clone(),
            capacity: n.status.capacity.clone(),
        }
    }

    fn same(&self, n: &Node) -> bool {
        self.unschedulable == n.spec.unschedulable
            && self.taints == n.spec.taints
            && self.allocatable == n.status.allocatable
            && self.capacity == n.status.capacity
            && self.labels == n.metadata.labels
    }
}

/// What [`node_parts`] reads of a NodeClaim.
#[derive(Debug)]
struct ClaimInputs {
    labels: StringMap,
    taints: Vec<Taint>,
    startup_taints: Vec<Taint>,
    allocatable: Resources,
}

impl ClaimInputs {
    fn of(c: &NodeClaim) -> Self {
        ClaimInputs {
            labels: c.metadata.labels.clone(),
            taints: c.spec.taints.clone(),
            startup_taints: c.spec.startup_taints.clone(),
            allocatable: c.status.allocatable.clone(),
        }
    }

    fn same(&self, c: &NodeClaim) -> bool {
        self.taints == c.spec.taints
            && self.startup_taints == c.spec.startup_taints
            && self.allocatable == c.status.allocatable
            && self.labels == c.metadata.labels
    }
}

/// Both absent, or both present and the same.
fn same<K, T>(kept: Option<&K>, now: Option<&T>, same: impl FnOnce(&K, &T) -> bool) -> bool {
    match (kept, now) {
        (None, None) => true,
        (Some(k), Some(t)) => same(k, t),
        _ => false,
    }
}

/// What a node's parts read of one of its pods, besides the pod's fixed spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct PodMark {
    /// Position in `snapshot.pods`: which pod it is.
    position: usize,
    terminal: bool,
    active: bool,
}

impl BaseNodeMemo {
    /// The node as a destination: its kept parts when its inputs are those it was computed
    /// from, else computed (and kept).
    pub(in crate::engine) fn base_node<'a>(
        &mut self,
        cluster: &Cluster<'a>,
        node: &StateNode<'a>,
        requests: &PodRequests<'a>,
        daemons: &[DaemonPod<'_>],
    ) -> BaseNode<'a> {
        let mut stamp = None;
        if let Some(kept) = self.by_name.get(&node.name) {
            let objects_same = || {
                same(kept.node.as_ref(), node.node, NodeInputs::same)
                    && same(kept.claim.as_ref(), node.claim, ClaimInputs::same)
            };
            // The forecast's word spares reading the labels, taints and resources of every node
            // each round; debug builds read them anyway and hold the word to them.
            let vouched = self.changed.as_ref().is_some_and(|c| !c.contains(&node.name));
            debug_assert!(!vouched || objects_same(), "node/{} changed unannounced", node.name);
            let objects = vouched || objects_same();
            let pods_same = kept.pods.len() == node.pods.len()
                && kept.pods.iter().zip(marks(cluster, node)).all(|(k, now)| *k == now);
            if objects && pods_same {
                return assemble(cluster, node, kept.parts.clone()).stamped(kept.stamp);
            }
            stamp = objects.then_some(kept.stamp);
        }
        let stamp = stamp.unwrap_or_else(|| {
            self.stamps += 1;
            self.stamps
        });
        self.computed = true;
        let parts = node_parts(cluster, node, requests, daemons);
        let kept = Kept {
            node: node.node.map(NodeInputs::of),
            claim: node.claim.map(ClaimInputs::of),
            stamp,
            pods: marks(cluster, node).collect(),
            parts: parts.clone(),
        };
        self.by_name.insert(node.name.clone(), kept);
        assemble(cluster, node, parts).stamped(stamp)
    }

    /// Forgets the nodes the cluster no longer has, and the forecast's word on the round;
    /// notes whether the round was unchanged: every node's parts reused (so each was kept
    /// from the last round), and none kept that the round lacks (the same names, which the
    /// cluster sorts, so the same order).
    pub(in crate::engine) fn keep_only(&mut self, cluster: &Cluster<'_>) {
        self.unchanged = !self.computed && self.by_name.len() == cluster.nodes.len();
        self.computed = false;
        self.by_name.retain(|name, _| cluster.node_index.contains_key(name.as_str()));
        self.changed = None;
    }

    /// Whether the round just built reused every node's parts for the same nodes as the round
    /// before (see [`BaseNodeMemo::keep_only`]).
    pub(in crate::engine) fn unchanged(&self) -> bool {
        self.unchanged
    }

    /// For the next round only: of the nodes kept, only those named in `changed` may have a
    /// Node or NodeClaim that differs from the last round's (their pods are compared anyway).
    /// The forecast changes the snapshot itself, so it can say which ones it touched.
    pub(in crate::engine) fn only_changed(&mut self, changed: BTreeSet<String>) {
        self.changed = Some(changed);
    }

    #[cfg(test)]
    pub(in crate::engine) fn len(&self) -> usize {
        self.by_name.len()
    }
}

/// The node's pods as its parts read them, in order.
fn marks<'n>(cluster: &'n Cluster<'_>, node: &'n StateNode<'_>) -> impl Iterator<Item = PodMark> + 'n {
    let base = cluster.snapshot.pods.as_ptr() as usize;
    let size = std::mem::size_of::<Pod>().max(1);
    node.pods.iter().map(move |p| PodMark {
        position: (std::ptr::from_ref(*p) as usize).wrapping_sub(base) / size,
        terminal: cluster.is_terminal(p),
        active: cluster.is_active(p),
    })
}

#[cfg(test)]
mod tests;
