//! Whether a pod can go on a node that already exists: `ExistingNode.CanAdd`, against the
//! node as the simulation found it (`NewExistingNode`) less what it placed there.
//!
//! Mirrors karpenter `pkg/controllers/provisioning/scheduling/existingnode.go`.

use std::borrow::Cow;
use std::rc::Rc;

use super::host_port_usage::{host_port_conflict, HostPort};
use super::requirements::Requirements;
use super::scheduler::pod_from_deleting;
use super::scheduler::{Placed, Simulation};
use super::{taints, topology};
use crate::engine::incremental::fit_list;
use crate::engine::labels::{HOSTNAME, NODEPOOL, ZONE};
use crate::engine::pod;
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
    pub(crate) volume_usage: Option<super::volume_usage::VolumeUsage>,
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

/// Why a consolidation simulation refuses a node under its pool's `consolidateAfter`; the rule
/// is version-dependent, so the reason names it (`crate::rules::RULES`, #3006).
pub(in crate::engine) const UNDER_CONSOLIDATE_AFTER: &str =
    "node(s) were under consolidateAfter (Karpenter won't move \
     pods there yet; rule of #3006 (pkg/utils/disruption/disruption.go IsUnderConsolidateAfter), active since v1.14.0)";

/// kube-scheduler's reason for a node whose labels a pod's node affinity or selector refuses.
pub(in crate::engine) const AFFINITY_MISMATCH: &str = "node(s) didn't match Pod's node affinity/selector";

impl Simulation<'_, '_, '_> {
    /// A cheap necessary condition of `can_add_existing`: room for the cpu and memory.
    pub(in crate::engine) fn has_room(&self, i: usize, cpu: i128, memory: i128) -> bool {
        let node = &self.world.nodes[i];
        let (used_cpu, used_memory) = self.placed.get(&i).map_or((0, 0), |p| (p.used_cpu, p.used_memory));
        fit_list::room(node.free_cpu - used_cpu, cpu) && fit_list::room(node.free_memory - used_memory, memory)
    }

    pub(in crate::engine) fn can_add_existing(
        &self,
        i: usize,
        pod: &Pod,
        requests: &Resources,
        pod_reqs: &[Requirements],
        rules: &topology::Rules,
    ) -> Result<(), Cow<'static, str>> {
        self.admits_before_affinity(i, pod, requests, self.placed.get(&i))?;
        if !pod_reqs.iter().any(|r| self.world.nodes[i].admits(r)) {
            return Err(AFFINITY_MISMATCH.into());
        }
        if !rules.is_empty() {
            rules.admit_existing(&|key: &str| self.world.node_domain(i, key))?;
        }
        Ok(())
    }

    /// The checks `ExistingNode.CanAdd` makes before the node's labels, in kube-scheduler's
    /// order of reasons: consolidateAfter, taints, attach limits, host ports, resources, against
    /// the node with `placed` on it (`None`: as the simulation found it).
    pub(in crate::engine) fn admits_before_affinity(
        &self,
        i: usize,
        pod: &Pod,
        requests: &Resources,
        placed: Option<&Placed>,
    ) -> Result<(), Cow<'static, str>> {
        let node = &self.world.nodes[i];
        if self.options.consolidation && node.under_consolidate_after && !pod_from_deleting(pod, self.world.cluster) {
            return Err(UNDER_CONSOLIDATE_AFTER.into());
        }
        if let Some(taint) = taints::untolerated(&pod.spec.tolerations, &node.taints) {
            return Err(taints::message(taint).into());
        }
        if let Some(usage) = node.volume_usage.as_ref().filter(|_| super::volume_topology::has_claims(pod)) {
            if let Some(e) = usage.exceeds_limits(placed.map(|p| &p.volumes), &self.pod_volumes(pod)) {
                return Err(e.into());
            }
        }
        let ports_taken = node.host_ports.iter().chain(placed.iter().flat_map(|p| p.host_ports.iter()));
        if host_port_conflict(&self.world.host_ports(pod), ports_taken) {
            return Err("node(s) didn't have free ports for the requested pod ports".into());
        }
        for (resource, want) in requests {
            if want.milli() > 0 && *want > free_on(node, placed, resource) {
                // Refusals are counted over every node: the common reasons allocate nothing.
                return Err(match resource.as_str() {
                    "pods" => "Too many pods".into(),
                    "cpu" => "Insufficient cpu".into(),
                    "memory" => "Insufficient memory".into(),
                    other => format!("Insufficient {other}").into(),
                });
            }
        }
        Ok(())
    }

    /// The pod's claims per CSI driver (`volumeusage.go GetVolumes`).
    pub(in crate::engine) fn pod_volumes(&self, pod: &Pod) -> super::volume_usage::Volumes {
        super::volume_usage::pod_volumes(pod, &self.world.cluster.volumes)
    }

    /// What is left of a resource on an existing node.
    pub(in crate::engine) fn free(&self, i: usize, resource: &str) -> Quantity {
        free_on(&self.world.nodes[i], self.placed.get(&i), resource)
    }

    /// "fits: cpu 500m/1900m free, memory 0.5/6.2Gi free", before the pod lands.
    pub(in crate::engine) fn fit_text(&self, i: usize, requests: &Resources) -> String {
        let gib = f64::from(1u32 << 30);
        format!(
            "fits: cpu {}/{} free, memory {:.1}/{:.1}Gi free",
            requests.get("cpu").copied().unwrap_or_default(),
            self.free(i, "cpu"),
            requests.get("memory").map_or(0.0, |q| q.as_f64()) / gib,
            self.free(i, "memory").as_f64() / gib
        )
    }
}

/// What is left of a resource on `node` with `placed` on it.
fn free_on(node: &BaseNode<'_>, placed: Option<&Placed>, resource: &str) -> Quantity {
    // cpu, memory and pods, asked of every node a pod is tried on, are kept in milli-units.
    let in_milli = |free: i128, used: fn(&Placed) -> i128| {
        Quantity::from_milli(placed.map_or(free, |p| free.saturating_sub(used(p))))
    };
    match resource {
        "cpu" => in_milli(node.free_cpu, |p| p.used_cpu),
        "memory" => in_milli(node.free_memory, |p| p.used_memory),
        "pods" => in_milli(node.free_pods, |p| p.used_pods),
        _ => {
            let base = node.available.get(resource).copied().unwrap_or_default();
            placed.and_then(|p| p.used.get(resource)).map_or(base, |u| base.minus(*u))
        }
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
    volume_usage: Option<super::volume_usage::VolumeUsage>,
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
        host_ports.extend(super::host_port_usage::host_ports(p));
    }
    let mut node_taints: Vec<Taint> = node.taints().to_vec();
    if !node.initialized() {
        let startup: Vec<Taint> = node.claim.map(|c| c.spec.startup_taints.clone()).unwrap_or_default();
        node_taints.retain(|t| !taints::lifted_at_initialization(t, &startup));
    }
    if node.cordoned() && !node_taints.iter().any(|t| t.key == "node.kubernetes.io/unschedulable") {
        node_taints.push(Taint {
            key: "node.kubernetes.io/unschedulable".into(),
            value: None,
            effect: "NoSchedule".into(),
        });
    }
    reserve_daemon_headroom(&mut available, node, &node_taints, daemons, requests);
    let volume_usage = super::volume_usage::VolumeUsage::new(
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
        let r = requests.get(p).map_or_else(|| pod::requests(p), |r| (**r).clone());
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
    pub(in crate::engine) fn new(pod: &'p Pod) -> Self {
        let required = super::pod_data::strict_requirements(pod);
        DaemonPod { pod, requests: pod::requests(pod), required }
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

#[cfg(test)]
mod tests {
    use serde_json::json;

    use std::borrow::Cow;

    use super::super::scheduler::{Options, Simulation};
    use super::super::topology::Rules;
    use crate::engine::incremental::world::World;
    use crate::engine::state::Cluster;
    use crate::snapshot::Snapshot;
    use crate::testing::{managed_node, node_pool, now, pod, set, snapshot};

    fn daemonset(cpu: &str) -> serde_json::Value {
        json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "kube-system"},
               "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {"metadata": {"labels": {"app": "agent"}},
                 "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]}}}})
    }

    fn cpu_free(snap: &Snapshot, node: &str) -> String {
        let cluster = Cluster::new(snap, now());
        let world = World::new(&cluster);
        let i = cluster.nodes.iter().position(|n| n.name == node).expect("node");
        world.nodes[i].available["cpu"].to_string()
    }

    #[test]
    fn keeps_room_for_daemonset_pods_the_node_does_not_run_yet() {
        // existingnode.go NewExistingNode: remainingResources = available - (compatible daemon
        // requests - daemon requests already there), floored at zero.
        let [node, claim] = managed_node("n1");
        let without = snapshot(vec![node_pool("default"), node.clone(), claim.clone(), daemonset("1")]);
        assert_eq!(cpu_free(&without, "n1"), "3");
        let ds_pod = set(
            pod("agent-n1", "n1"),
            "/metadata/ownerReferences",
            json!([
            {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent", "controller": true}]),
        );
        let ds_pod = set(ds_pod, "/spec/containers", json!([{"name": "c", "resources": {"requests": {"cpu": "1"}}}]));
        let running = snapshot(vec![node_pool("default"), node, claim, daemonset("1"), ds_pod]);
        assert_eq!(cpu_free(&running, "n1"), "3", "the DaemonSet pod in place is not counted twice");
    }

    #[test]
    fn a_daemonset_that_does_not_tolerate_the_node_keeps_no_room() {
        let [node, claim] = managed_node("n1");
        let node = set(node, "/spec/taints", json!([{"key": "dedicated", "value": "x", "effect": "NoSchedule"}]));
        let snap = snapshot(vec![node_pool("default"), node, claim, daemonset("1")]);
        assert_eq!(cpu_free(&snap, "n1"), "4");
    }

    fn can_add(snap: &Snapshot, pod_name: &str, node: &str) -> Result<(), String> {
        let cluster = Cluster::new(snap, now());
        let world = World::new(&cluster);
        let sim = Simulation::new(&world, &[], Options::default());
        let i = cluster.nodes.iter().position(|n| n.name == node).expect("node");
        let p = snap.pods.iter().find(|p| p.metadata.name == pod_name).expect("pod");
        let fit = world.pod_fit(p);
        sim.can_add_existing(i, p, &world.requests(p), &fit.requirements, &Rules::default()).map_err(Cow::into_owned)
    }

    #[test]
    fn prefer_no_schedule_taints_refuse_pods_that_do_not_tolerate_them() {
        // pkg/scheduling/taints.go Taints.ToleratesPod checks every effect.
        let [node, claim] = managed_node("n1");
        let node = set(node, "/spec/taints", json!([{"key": "soft", "value": "x", "effect": "PreferNoSchedule"}]));
        let pending = set(pod("p", ""), "/spec/nodeName", json!(null));
        let snap = snapshot(vec![node_pool("default"), node, claim, pending]);
        assert_eq!(can_add(&snap, "p", "n1"), Err("node(s) had untolerated taint {soft: x}".into()));
    }

    #[test]
    fn resources_labels_and_the_first_required_term_decide() {
        let [node, claim] = managed_node("n1");
        let big =
            set(pod("big", ""), "/spec/containers", json!([{"name": "c", "resources": {"requests": {"cpu": "5"}}}]));
        let elsewhere = set(pod("elsewhere", ""), "/spec/nodeSelector", json!({"kubernetes.io/hostname": "n2"}));
        // Terms are ORed, but only the first is tried until preferences.rs drops it.
        let second_term = set(
            pod("second", ""),
            "/spec/affinity",
            json!({"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["zone-b"]}]},
                {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["zone-a"]}]}]}}}),
        );
        let fits = pod("fits", "");
        let snap = snapshot(vec![node_pool("default"), node, claim, big, elsewhere, second_term, fits]);
        assert_eq!(can_add(&snap, "big", "n1"), Err("Insufficient cpu".into()));
        let mismatch = Err("node(s) didn't match Pod's node affinity/selector".to_owned());
        assert_eq!(can_add(&snap, "elsewhere", "n1"), mismatch);
        assert_eq!(can_add(&snap, "second", "n1"), mismatch);
        assert_eq!(can_add(&snap, "fits", "n1"), Ok(()));
    }
}
