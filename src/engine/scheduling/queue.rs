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
