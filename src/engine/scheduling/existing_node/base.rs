//! The node as every simulation finds it (`NewExistingNode` in karpenter
//! `pkg/controllers/provisioning/scheduling/existingnode.go`): [`BaseNode`], built once per
//! world and shared, and the DaemonSet pods it keeps room for. `existing_node.rs` checks a pod
//! against it less what a simulation placed there (`CanAdd`). Apart so that the shared
//! [`crate::engine::incremental::world::World`] can build and keep these without importing
//! the simulation.

use std::rc::Rc;

use crate::engine::labels::{HOSTNAME, NODEPOOL, ZONE};
use crate::engine::pod;
use crate::engine::scheduling::host_port_usage::HostPort;
use crate::engine::scheduling::requirements::Requirements;
use crate::engine::scheduling::taints;
use crate::engine::state::{Cluster, StateNode};
use crate::quantity::Quantity;
use crate::rules::Rule;
use crate::snapshot::{Pod, Resources, StringMap, Taint};

/// One existing node as a destination, before any simulation.
#[derive(Debug, Clone)]
pub struct BaseNode<'a> {
    pub name: String,
    /// Its labels as the scheduler reads them; see [`BaseNode::label`] for the hostname.
    labels: &'a StringMap,
    pub taints: Rc<[Taint]>,
    /// Allocatable minus the requests of every non-terminal pod bound to it.
    pub available: Rc<Resources>,
    /// `available`'s cpu and memory in milli-units, for the first-fit search's pruning, and
    /// its pods (every pod requests one), read for every node a pod is tried on.
    pub free_cpu: i128,
    pub free_memory: i128,
    pub free_pods: i128,
    /// Active pods (counted by topology).
    pub pods: Vec<&'a Pod>,
    pub host_ports: Rc<[HostPort]>,
    pub initialized: bool,
    pub under_consolidate_after: bool,
    pub capacity: Rc<Resources>,
    /// The label `kubernetes.io/hostname`, else the node's name.
    pub hostname: Rc<str>,
    /// CSI attach limits and the claims held, when its CSINode sets a limit.
    pub(crate) volume_usage: Option<crate::engine::scheduling::volume_usage::VolumeUsage>,
    /// A forecast's name for the node's objects as they are (`world_memo.rs`); 0 without one.
    pub(in crate::engine) stamp: u64,
}

impl<'a> BaseNode<'a> {
    /// The node under a forecast's stamp for its objects (`world_memo.rs`).
    pub(in crate::engine) fn stamped(self, stamp: u64) -> Self {
        BaseNode { stamp, ..self }
    }

    /// The node's value for a label key; the hostname is the label's, else the node's name.
    pub fn label(&self, key: &str) -> Option<&str> {
        match key {
            HOSTNAME => Some(&self.hostname),
            _ => crate::engine::labels::label_value(self.labels, key),
        }
    }

    pub fn zone(&self) -> Option<&'a str> {
        self.labels.get(ZONE).map(String::as_str)
    }

    pub fn pool(&self) -> Option<&'a str> {
        self.labels.get(NODEPOOL).map(String::as_str)
    }

    /// Whether the node's labels satisfy one alternative of a pod's node requirements.
    pub fn admits(&self, requirements: &Requirements) -> bool {
        requirements.admit_labels(|key| self.label(key))
    }
}

/// `NewExistingNode`: the node as a destination before any simulation.
pub(in crate::engine) fn base_node<'a>(
    cluster: &Cluster<'a>,
    node: &StateNode<'a>,
    requests: &crate::engine::incremental::pod_requests::PodRequests<'a>,
    daemons: &[DaemonPod<'_>],
) -> BaseNode<'a> {
    assemble(cluster, node, node_parts(cluster, node, requests, daemons))
}

/// What of a [`BaseNode`] follows from the node, its NodeClaim and its pods alone (not from the
/// clock): what a forecast may keep from one round to the next (`base_node_memo.rs`).
#[derive(Debug, Clone)]
pub(in crate::engine) struct NodeParts {
    // Shared with each round's node (a forecast keeps the parts across rounds): a clone is a
    // count, not a copy.
    taints: Rc<[Taint]>,
    available: Rc<Resources>,
    host_ports: Rc<[HostPort]>,
    initialized: bool,
    capacity: Rc<Resources>,
    hostname: Rc<str>,
    volume_usage: Option<crate::engine::scheduling::volume_usage::VolumeUsage>,
}

/// The node with the parts computed from it: its labels and active pods (borrowed), and
/// whether it is under consolidateAfter now.
pub(in crate::engine) fn assemble<'a>(cluster: &Cluster<'a>, node: &StateNode<'a>, parts: NodeParts) -> BaseNode<'a> {
    let NodeParts { taints, available, host_ports, initialized, capacity, hostname, volume_usage } = parts;
    let milli = |k: &str| available.get(k).map_or(0, |q| q.milli());
    BaseNode {
        name: node.name.clone(),
        labels: node.labels(),
        taints,
        free_cpu: milli("cpu"),
        free_memory: milli("memory"),
        free_pods: milli("pods"),
        available,
        pods: node.pods.iter().copied().filter(|p| cluster.is_active(p)).collect(),
        host_ports,
        initialized,
        // Only from v1.14.0 (#3006): before, any node with room took a moved pod.
        under_consolidate_after: cluster.rules().has(Rule::DestinationConsolidateAfter)
            && cluster.pool_of(node).zip(node.claim).is_some_and(|(p, c)| {
                crate::engine::candidate::is_under_consolidate_after(p, c, cluster.now).is_some()
            }),
        capacity,
        volume_usage,
        hostname,
        stamp: 0,
    }
}

/// Allocatable less the requests of every non-terminal pod (and the DaemonSet headroom), the
/// scheduler's view of the taints, host ports and attach limits.
pub(in crate::engine) fn node_parts<'a>(
    cluster: &Cluster<'a>,
    node: &StateNode<'a>,
    requests: &crate::engine::incremental::pod_requests::PodRequests<'a>,
    daemons: &[DaemonPod<'_>],
) -> NodeParts {
    let hostname = node.label(HOSTNAME).unwrap_or(&node.name).to_owned();
    let mut available = node.allocatable();
    let mut host_ports = Vec::new();
    for p in &node.pods {
        if cluster.is_terminal(p) {
            continue;
        }
        if let Some(r) = requests.get(p) {
            for (k, v) in r.iter() {
                if let Some(free) = available.get_mut(k) {
                    *free = free.minus(*v);
                } else {
                    available.insert(k.clone(), Quantity::ZERO.minus(*v));
                }
            }
        }
        host_ports.extend(crate::engine::scheduling::host_port_usage::host_ports(p));
    }
    let mut node_taints: Vec<Taint> = node.taints().to_vec();
    if !node.initialized() {
        let startup: Vec<Taint> = node.claim.map(|c| c.spec.startup_taints.clone()).unwrap_or_default();
        let known = taints::EphemeralTaints::of(cluster.rules());
        node_taints.retain(|t| !taints::lifted_at_initialization(t, &startup, known));
    }
    if node.cordoned() && !node_taints.iter().any(|t| t.key == "node.kubernetes.io/unschedulable") {
        node_taints.push(Taint {
            key: "node.kubernetes.io/unschedulable".into(),
            value: None,
            effect: "NoSchedule".into(),
        });
    }
    reserve_daemon_headroom(&mut available, node, &node_taints, daemons, requests);
    let volume_usage = crate::engine::scheduling::volume_usage::VolumeUsage::new(
        cluster.volumes.csi_node(&node.name),
        node.pods.iter().copied().filter(|p| cluster.is_active(p)),
        &cluster.volumes,
    );
    NodeParts {
        taints: node_taints.into(),
        available: Rc::new(available),
        host_ports: host_ports.into(),
        initialized: node.initialized(),
        capacity: Rc::new(node.node.map(|n| n.status.capacity.clone()).unwrap_or_default()),
        hostname: hostname.into(),
        volume_usage,
    }
}

/// Keeps room for the DaemonSet pods the node should run but does not yet: the requests of
/// every DaemonSet pod that tolerates the node's taints and whose required node affinity (first
/// term) its labels meet, less the requests of the DaemonSet pods already on it, floored at zero
/// per resource.
///
/// Mirrors karpenter `scheduler.go` `getCompatibleDaemonPods` / `isDaemonPodCompatibleWithNode`
/// and `existingnode.go` `NewExistingNode` (`remainingResources`).
fn reserve_daemon_headroom(
    available: &mut Resources,
    node: &StateNode<'_>,
    node_taints: &[Taint],
    daemons: &[DaemonPod<'_>],
    requests: &crate::engine::incremental::pod_requests::PodRequests<'_>,
) {
    if daemons.is_empty() {
        return;
    }
    let mut wanted = Resources::new();
    for d in daemons {
        let fits = taints::untolerated(&d.pod.spec.tolerations, node_taints).is_none()
            && d.required.admit_labels(|k| node_label(node, k));
        if fits {
            pod::add(&mut wanted, &d.requests);
        }
    }
    if wanted.is_empty() {
        return;
    }
    for p in node.pods.iter().filter(|p| !pod::is_terminal(p) && pod::is_owned_by_daemonset(p)) {
        let r = requests.get(p).map_or_else(|| requests.compute(p), |r| (**r).clone());
        for (k, v) in &r {
            if let Some(w) = wanted.get_mut(k) {
                *w = w.minus(*v);
            }
        }
    }
    for (k, v) in wanted {
        if v.milli() > 0 {
            let free = available.entry(k).or_insert(Quantity::ZERO);
            *free = free.minus(v);
        }
    }
}

/// A DaemonSet pod with what every node's check reads: its requests and its strict
/// requirements with the first required term (`NewStrictPodRequirements`).
pub(in crate::engine) struct DaemonPod<'p> {
    pub(in crate::engine) pod: &'p Pod,
    pub(in crate::engine) requests: Resources,
    pub(in crate::engine) required: Requirements,
}

impl<'p> DaemonPod<'p> {
    pub(in crate::engine) fn new(pod: &'p Pod, sizing: pod::Sizing) -> Self {
        let required = crate::engine::scheduling::pod_data::strict_requirements(pod);
        DaemonPod { pod, requests: pod::requests(pod, sizing), required }
    }
}

/// The node's label as the scheduler reads it (`NewLabelRequirements(n.Labels())` plus the
/// hostname).
fn node_label<'n>(node: &'n StateNode<'_>, key: &str) -> Option<&'n str> {
    match key {
        HOSTNAME => Some(node.label(HOSTNAME).unwrap_or(&node.name)),
        _ => node.label(key),
    }
}
