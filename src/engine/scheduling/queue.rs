//! The order pods are tried in.
//!
//! Mirrors karpenter `pkg/controllers/provisioning/scheduling/queue.go` (`NewQueue`,
//! `byCPUAndMemoryDescending`).

use std::cmp::Ordering;

use super::world::World;
use crate::snapshot::{Pod, Resources};

/// Sorts the pods to place: cpu request descending, then memory descending, then creation time,
/// then UID (`byCPUAndMemoryDescending`); the pod's key last, for inputs without UIDs.
pub(super) fn sort(queue: &mut [(&Pod, bool, bool)], world: &World<'_, '_>) {
    queue.sort_by(|(a, ..), (b, ..)| by_cpu_and_memory_descending(world, a, b));
}

fn by_cpu_and_memory_descending(world: &World<'_, '_>, a: &Pod, b: &Pod) -> Ordering {
    let (ra, rb) = (world.requests(a), world.requests(b));
    let get = |r: &Resources, k: &str| r.get(k).copied().unwrap_or_default();
    get(&rb, "cpu")
        .cmp(&get(&ra, "cpu"))
        .then_with(|| get(&rb, "memory").cmp(&get(&ra, "memory")))
        .then_with(|| a.metadata.creation_timestamp.cmp(&b.metadata.creation_timestamp))
        .then_with(|| a.metadata.uid.cmp(&b.metadata.uid))
        .then_with(|| a.metadata.key().cmp(&b.metadata.key()))
}

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
    use super::Queue;

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
