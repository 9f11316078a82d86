//! Whether a pod can go on a node that already exists: `ExistingNode.CanAdd`, against the
//! node as the simulation found it (`NewExistingNode`) less what it placed there.
//!
//! Mirrors karpenter `pkg/controllers/provisioning/scheduling/existingnode.go`.

use std::borrow::Cow;

use super::host_port_usage::host_port_conflict;
use super::requirements::Requirements;
use super::scheduler::pod_from_deleting;
use super::scheduler::{Placed, Simulation};
use super::{taints, topology};
use crate::engine::incremental::fit_list;
use crate::quantity::Quantity;
use crate::snapshot::{Pod, Resources};

pub(crate) use self::base::BaseNode;

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

pub(in crate::engine) mod base;

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
