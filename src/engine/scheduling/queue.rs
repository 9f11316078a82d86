//! The order pods are tried in.
//!
//! Mirrors karpenter `pkg/controllers/provisioning/scheduling/queue.go` (`NewQueue`,
//! `byCPUAndMemoryDescending`).

use std::borrow::Cow;
use std::cmp::{Ordering, Reverse};

use jiff::Timestamp;

use crate::quantity::Quantity;
use crate::snapshot::{Pod, Resources};

/// A pod to place: (pod, already pending, from a deleting node).
pub(in crate::engine) type Queued<'a> = (&'a Pod, bool, bool);

/// What `sort` orders pods by.
type SortKey<'p> = (Reverse<Quantity>, Reverse<Quantity>, Option<Timestamp>, &'p str, ObjectKey<'p>);

/// Where a queued pod was gathered from: pending pods first (`(0, k)`, in the world's order),
/// then each node's pods (`(1 + node, k)`), in order. Ordering by the sort key and then by this
/// is the stable sort by the key of the pods as gathered.
pub(in crate::engine) type Gathered = (usize, usize);

/// A queued pod with its sort key and where it was gathered from, in queue order.
pub(in crate::engine) type Keyed<'a> = (SortKey<'a>, Gathered, Queued<'a>);

/// What the queue reads of the cluster: each pod's requests. The shared
/// [`crate::engine::incremental::world::World`] answers it from the requests it computed once
/// per pod; a trait here keeps the queue from importing it.
pub(in crate::engine) trait RequestsLookup {
    fn requests(&self, pod: &Pod) -> Cow<'_, Resources>;
}

fn sort_key<'p>(pod: &'p Pod, world: &impl RequestsLookup) -> SortKey<'p> {
    let requests = world.requests(pod);
    let get = |k: &str| requests.get(k).copied().unwrap_or_default();
    (
        Reverse(get("cpu")),
        Reverse(get("memory")),
        pod.metadata.creation_timestamp,
        pod.metadata.uid.as_str(),
        ObjectKey { namespace: pod.metadata.namespace.as_deref(), name: &pod.metadata.name },
    )
}

/// Sorts the pods to place: cpu request descending, then memory descending, then creation time,
/// then UID (`byCPUAndMemoryDescending`); the pod's key last, for inputs without UIDs.
///
/// Each pod's sort key is read once (not once per comparison), and the sort is stable. The
/// simulations sort by the key and then by where each pod was gathered from ([`keyed`]), which
/// is the same order; this is the reference the tests hold them to.
#[cfg(test)]
pub(in crate::engine) fn sort(queue: &mut [Queued<'_>], world: &impl RequestsLookup) {
    queue.sort_by_cached_key(|&(pod, ..)| sort_key(pod, world));
}

/// `pods` (with where each was gathered from) with their sort keys, in queue order.
pub(in crate::engine) fn keyed<'a>(
    pods: impl IntoIterator<Item = (Gathered, Queued<'a>)>,
    world: &impl RequestsLookup,
) -> Vec<Keyed<'a>> {
    let mut keyed: Vec<Keyed<'a>> = pods.into_iter().map(|(from, q)| (sort_key(q.0, world), from, q)).collect();
    keyed.sort_unstable_by(|a, b| (&a.0, a.1).cmp(&(&b.0, b.1)));
    keyed
}

/// The queue of `shared` and `own` (each in queue order, gathered from different places): the
/// order `sort` gives the pods of both as gathered, without sorting `shared` again. Every
/// simulation queues the same shared pods (pending ones, those of deleting nodes) beside a few
/// of its own.
pub(in crate::engine) fn merged<'a>(shared: &[Keyed<'a>], own: &[Keyed<'a>]) -> Vec<Queued<'a>> {
    let mut queue = Vec::with_capacity(shared.len() + own.len());
    let mut from = 0;
    for mine in own {
        let before = from + shared[from..].partition_point(|s| (&s.0, s.1) < (&mine.0, mine.1));
        queue.extend(shared[from..before].iter().map(|s| s.2));
        queue.push(mine.2);
        from = before;
    }
    queue.extend(shared[from..].iter().map(|s| s.2));
    queue
}

/// `namespace/name` (or `name`), ordered as that string would be, without building it.
#[derive(Debug, Clone, Copy)]
pub(in crate::engine) struct ObjectKey<'a> {
    namespace: Option<&'a str>,
    name: &'a str,
}

impl ObjectKey<'_> {
    fn bytes(&self) -> impl Iterator<Item = u8> + '_ {
        let prefix = self.namespace.map(|ns| ns.bytes().chain(std::iter::once(b'/')));
        prefix.into_iter().flatten().chain(self.name.bytes())
    }
}

impl Ord for ObjectKey<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        self.bytes().cmp(other.bytes())
    }
}

impl PartialOrd for ObjectKey<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq for ObjectKey<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}

impl Eq for ObjectKey<'_> {}

/// The queue of pods still to place, by position in the sorted list: a pod that fails goes to
/// the back, and the loop ends when a pod comes round again with the queue as long as when it
/// was pushed, i.e. a whole cycle made no progress.
///
/// Mirrors karpenter `queue.go` `Queue.Pop` / `Queue.Push`.
#[derive(Debug)]
pub(in crate::engine) struct Queue {
    pods: std::collections::VecDeque<usize>,
    /// Per position: the queue's length when it was last pushed back.
    last_len: Vec<Option<usize>>,
}

impl Queue {
    /// Positions `0..len`, in order.
    pub(in crate::engine) fn new(len: usize) -> Self {
        Queue { pods: (0..len).collect(), last_len: vec![None; len] }
    }

    /// The next pod, or `None` once the queue is empty or a cycle made no progress.
    pub(in crate::engine) fn pop(&mut self) -> Option<usize> {
        let &next = self.pods.front()?;
        if self.last_len[next] == Some(self.pods.len()) {
            return None;
        }
        self.pods.pop_front()
    }

    /// Puts a pod that failed at the back.
    pub(in crate::engine) fn push(&mut self, pod: usize) {
        self.pods.push_back(pod);
        self.last_len[pod] = Some(self.pods.len());
    }

    /// Puts a pod that failed but was relaxed at the back: a relaxation is progress, so every
    /// pod gets another whole cycle (before v1.4.0, `Push(pod, relaxed)` with `relaxed` true
    /// clears `lastLen`).
    pub(in crate::engine) fn push_relaxed(&mut self, pod: usize) {
        self.pods.push_back(pod);
        self.last_len.fill(None);
    }
}

#[cfg(test)]
mod tests {
    use super::{ObjectKey, Queue};

    #[test]
    fn object_keys_order_as_their_strings() {
        let keys = [
            (Some("a"), "b/c"),
            (Some("a/b"), "c"),
            (None, "a/b/c"),
            (Some("a"), "b"),
            (None, "a"),
            (Some(""), "z"),
            (None, "a0"),
            (Some("a"), ""),
        ];
        for &(ns1, n1) in &keys {
            for &(ns2, n2) in &keys {
                let (k1, k2) = (ObjectKey { namespace: ns1, name: n1 }, ObjectKey { namespace: ns2, name: n2 });
                let s = |ns: Option<&str>, n: &str| ns.map_or_else(|| n.to_owned(), |ns| format!("{ns}/{n}"));
                assert_eq!(k1.cmp(&k2), s(ns1, n1).cmp(&s(ns2, n2)), "{ns1:?}/{n1} vs {ns2:?}/{n2}");
            }
        }
    }

    #[test]
    fn a_failed_pod_is_retried_only_after_progress() {
        // queue.go: [a, b]; a fails and is pushed, b lands, so a is tried again; a fails again
        // and, with nothing placed since, the loop stops.
        let mut q = Queue::new(2);
        assert_eq!(q.pop(), Some(0));
        q.push(0);
        assert_eq!(q.pop(), Some(1));
        assert_eq!(q.pop(), Some(0), "b's success is progress");
        q.push(0);
        assert_eq!(q.pop(), None, "a whole cycle without progress ends the loop");
    }

    #[test]
    fn pods_that_all_fail_are_each_tried_once() {
        let mut q = Queue::new(3);
        let mut tried = Vec::new();
        while let Some(p) = q.pop() {
            tried.push(p);
            q.push(p);
        }
        assert_eq!(tried, [0, 1, 2]);
    }
}
