//! The order pods are tried in.
//!
//! Mirrors karpenter `pkg/controllers/provisioning/scheduling/queue.go` (`NewQueue`,
//! `byCPUAndMemoryDescending`).

use std::cmp::{Ordering, Reverse};

use super::world::World;
use crate::snapshot::Pod;

/// Sorts the pods to place: cpu request descending, then memory descending, then creation time,
/// then UID (`byCPUAndMemoryDescending`); the pod's key last, for inputs without UIDs.
///
/// Each pod's sort key is read once (not once per comparison): the queue of every simulation
/// holds all pending pods and the pods of every deleting node, so this runs over and over.
pub(super) fn sort(queue: &mut [(&Pod, bool, bool)], world: &World<'_, '_>) {
    queue.sort_by_cached_key(|&(pod, ..)| {
        let requests = world.requests(pod);
        let get = |k: &str| requests.get(k).copied().unwrap_or_default();
        (
            Reverse(get("cpu")),
            Reverse(get("memory")),
            pod.metadata.creation_timestamp,
            pod.metadata.uid.as_str(),
            ObjectKey { namespace: pod.metadata.namespace.as_deref(), name: &pod.metadata.name },
        )
    });
}

/// `namespace/name` (or `name`), ordered as that string would be, without building it.
#[derive(Debug, Clone, Copy)]
struct ObjectKey<'a> {
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
pub(super) struct Queue {
    pods: std::collections::VecDeque<usize>,
    /// Per position: the queue's length when it was last pushed back.
    last_len: Vec<Option<usize>>,
}

impl Queue {
    /// Positions `0..len`, in order.
    pub(super) fn new(len: usize) -> Self {
        Queue { pods: (0..len).collect(), last_len: vec![None; len] }
    }

    /// The next pod, or `None` once the queue is empty or a cycle made no progress.
    pub(super) fn pop(&mut self) -> Option<usize> {
        let &next = self.pods.front()?;
        if self.last_len[next] == Some(self.pods.len()) {
            return None;
        }
        self.pods.pop_front()
    }

    /// Puts a pod that failed at the back.
    pub(super) fn push(&mut self, pod: usize) {
        self.pods.push_back(pod);
        self.last_len[pod] = Some(self.pods.len());
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
