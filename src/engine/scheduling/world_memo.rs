//! No upstream twin: what a forecast keeps of one round's [`super::World`] for the next — every
//! pod's requests ([`RequestTable`]) and each existing node's clock-free destination state
//! ([`NodeParts`]), and the index of the pods in place (`kept_pod_index.rs`), reused only while what it was computed from is unchanged.
//!
//! A node's parts follow from its Node, its NodeClaim, and the pods bound to it (which pods,
//! whether each is terminal or active). The memo keeps a copy of those inputs beside the parts
//! and compares them with the round's: a node the round's command tainted, drained or filled,
//! or whose NodeClaim changed, is recomputed; so is every node when its pods change. It does
//! not depend on the forecast saying what it changed. What the parts do not cover, the clock
//! (`under_consolidate_after`), is computed every round ([`assemble`]).
//!
//! The other inputs — a pod's requests, host ports and volumes, the DaemonSets, the volume
//! index — are taken to be fixed for the memo's life, as a forecast leaves them.

use std::rc::Rc;

use foldhash::HashMap;

use super::existing_node::{assemble, node_parts, BaseNode, DaemonPod, NodeParts};
use super::kept_pod_index::KeptPodIndex;
use super::pod_requests::{PodRequests, RequestTable};
use crate::engine::pod;
use crate::engine::state::{Cluster, StateNode};
use crate::snapshot::{Node, NodeClaim, Pod};

/// Owned by the forecast and passed to each round's world ([`super::World::reusing`]).
#[derive(Debug, Default)]
pub struct WorldMemo {
    pub(super) requests: Option<Rc<RequestTable>>,
    pub(super) base_nodes: BaseNodeMemo,
    pub(super) pods_in_place: Option<Rc<KeptPodIndex>>,
}

/// Per node name, the parts and the inputs they were computed from.
#[derive(Debug, Default)]
pub(super) struct BaseNodeMemo {
    by_name: HashMap<String, Kept>,
}

#[derive(Debug)]
struct Kept {
    node: Option<Node>,
    claim: Option<NodeClaim>,
    pods: Vec<PodMark>,
    parts: NodeParts,
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
    pub(super) fn base_node<'a>(
        &mut self,
        cluster: &Cluster<'a>,
        node: &StateNode<'a>,
        requests: &PodRequests<'a>,
        daemons: &[DaemonPod<'_>],
    ) -> BaseNode<'a> {
        let pods = marks(&cluster.snapshot.pods, node);
        if let Some(kept) = self.by_name.get(&node.name) {
            if kept.pods == pods && kept.node.as_ref() == node.node && kept.claim.as_ref() == node.claim {
                return assemble(cluster, node, kept.parts.clone());
            }
        }
        let parts = node_parts(cluster, node, requests, daemons);
        let kept = Kept { node: node.node.cloned(), claim: node.claim.cloned(), pods, parts: parts.clone() };
        self.by_name.insert(node.name.clone(), kept);
        assemble(cluster, node, parts)
    }

    /// Forgets the nodes the cluster no longer has.
    pub(super) fn keep_only(&mut self, cluster: &Cluster<'_>) {
        self.by_name.retain(|name, _| cluster.node_index.contains_key(name.as_str()));
    }

    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.by_name.len()
    }
}

fn marks(pods: &[Pod], node: &StateNode<'_>) -> Vec<PodMark> {
    let base = pods.as_ptr() as usize;
    let size = std::mem::size_of::<Pod>().max(1);
    node.pods
        .iter()
        .map(|p| PodMark {
            position: (std::ptr::from_ref(*p) as usize).wrapping_sub(base) / size,
            terminal: pod::is_terminal(p),
            active: pod::is_active(p),
        })
        .collect()
}
