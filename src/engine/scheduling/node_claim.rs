//! Whether a pod can join a NodeClaim the simulation opens or has opened: `NodeClaim.CanAdd`
//! and `filterInstanceTypesByRequirements`, and `NodeClaim.Add`.
//!
//! Mirrors karpenter `pkg/controllers/provisioning/scheduling/nodeclaim.go`.

use std::collections::BTreeSet;

use super::host_port_usage::{host_port_conflict, HostPort};
use super::instance_types::{allocatable, instance_type_compatible, offering_compatible, sort_by_cheapest};
use super::requirements::{Incompatible, Requirements};
use super::scheduler::{describe_resources, Landing, Simulation};
use super::{taints, topology};
use crate::engine::labels::{is_well_known, HOSTNAME};
use crate::engine::pod;
use crate::rules::Rule;
use crate::snapshot::{InstanceType, Offering, Pod, Resources};

pub(in crate::engine) use self::claim::Claim;

/// What a pod joining a claim changes on it.
pub(in crate::engine) struct Addition<'a> {
    pub(in crate::engine) labels: Requirements,
    pub(in crate::engine) types: Vec<&'a InstanceType>,
    pub(in crate::engine) reserve: Vec<&'a Offering>,
}

impl<'w, 'a> Simulation<'w, '_, 'a> {
    /// Whether the pod fits the claim; the claim's new requirements, instance types and
    /// offerings to reserve if so.
    ///
    /// Mirrors karpenter `nodeclaim.go` `NodeClaim.CanAdd` / `tryVolumeAlternative`.
    pub(in crate::engine) fn can_add_claim<'r>(
        &self,
        claim: &'r Claim<'w, 'a>,
        pod: &Pod,
        requests: &Resources,
        pod_reqs: &'r [Requirements],
        rules: &topology::Rules,
    ) -> Result<Addition<'a>, ClaimRefusal<'r>> {
        if let Some(taint) = taints::untolerated(&pod.spec.tolerations, &claim.template.taints) {
            return Err(format!("did not tolerate taint {taint}").into());
        }
        let mut reqs = None;
        let mut last_err = None;
        for r in pod_reqs {
            match claim.labels.compatible(r, &is_well_known) {
                Ok(()) => {
                    let mut merged = claim.labels.clone();
                    merged.add_all(r);
                    reqs = Some(merged);
                    break;
                }
                Err(e) => last_err = Some(e),
            }
        }
        let Some(mut reqs) = reqs else {
            return Err(last_err.map_or(ClaimRefusal::Text(String::new()), ClaimRefusal::Incompatible));
        };
        if !rules.is_empty() {
            let narrowing = rules
                .admit_new(&|key: &str| self.claim_domain(&reqs, key, &claim.name))
                .map_err(|e| ClaimRefusal::Text(e.to_owned()))?;
            for (k, r) in &narrowing {
                reqs.add(k, r);
            }
        }
        let mut total = claim.requests.clone();
        pod::add(&mut total, requests);
        let types = self.filter_instance_types(claim, pod, &reqs, &total)?;
        let reserve = self.offerings_to_reserve(&types, &reqs);
        Ok(Addition { labels: reqs, types, reserve })
    }

    /// The claim's instance types that meet `reqs` (with an available compatible offering)
    /// and fit `total` plus the DaemonSet overhead of their group, where the pod's host ports
    /// clash with neither the group's DaemonSets nor the claim's pods; then minValues, which
    /// refuses the claim under `MIN_VALUES_POLICY=Strict` and is relaxed under `BestEffort`.
    /// A claim not yet opened must also fit what is left of its NodePool's limits.
    ///
    /// Mirrors karpenter `nodeclaim.go` `filterInstanceTypesByRequirements` and `scheduler.go`
    /// `addToNewNodeClaim` (`filterByRemainingResources`).
    fn filter_instance_types(
        &self,
        claim: &Claim<'w, 'a>,
        pod: &Pod,
        reqs: &Requirements,
        total: &Resources,
    ) -> Result<Vec<&'a InstanceType>, String> {
        let template = claim.template;
        let pool = template.pool.metadata.name.as_str();
        // Limits gate only the opening of a claim (`scheduler.go add`); a claim already open
        // takes more pods without them (`nodeclaim.go CanAdd` does not look at limits).
        let remaining = self.remaining.get(pool).filter(|_| claim.pods.is_empty());
        let mut candidates: Vec<&'a InstanceType> = claim.instance_types.clone();
        if let Some(left) = remaining {
            if left.get("nodes").is_some_and(|n| n.milli() == 0) {
                return Err(format!("node limits have been exhausted for nodepool, NodePool={pool}"));
            }
            candidates.retain(|it| within_limits(it, left));
            if candidates.is_empty() {
                return Err(format!("all available instance types exceed limits for nodepool, NodePool={pool}"));
            }
        }
        let wanted = self.world.host_ports(pod);
        let blocked_by_pods = !wanted.is_empty() && self.ports_taken_for(claim, &wanted);
        let groups: Vec<Option<Resources>> = template
            .daemon_groups
            .iter()
            .map(|g| {
                let clash = blocked_by_pods || (!wanted.is_empty() && host_port_conflict(&wanted, g.host_ports.iter()));
                (!clash).then(|| {
                    let mut need = total.clone();
                    pod::add(&mut need, &g.overhead);
                    need
                })
            })
            .collect();
        let fitting: Vec<&'a InstanceType> = candidates
            .into_iter()
            .filter(|it| {
                let Some(Some(need)) = template.group_of(it).map(|g| &groups[g]) else { return false };
                instance_type_compatible(it, reqs) && fits(it, need)
            })
            .collect();
        if fitting.is_empty() {
            let mut shown = total.clone();
            if let Some(overhead) = template.min_daemon_overhead(&claim.instance_types) {
                pod::add(&mut shown, &overhead);
            }
            if groups.iter().all(Option::is_none) && !wanted.is_empty() {
                return Err(format!(
                    "no instance type has free host ports for the pod, resources={}",
                    describe_resources(&shown)
                ));
            }
            return Err(format!("no instance type satisfied resources {}", describe_resources(&shown)));
        }
        if let Err(e) = template.min_values.satisfied_by(&fitting) {
            if !self.world.settings.min_values_best_effort {
                return Err(format!("{e}, resources={}", describe_resources(total)));
            }
        }
        Ok(fitting)
    }

    /// Whether `wanted` clashes with the host ports already taken for `claim`: its own pods'
    /// (`NewNodeClaim` copies the usage from v1.13.0, #3022), or from v1.4.0 to v1.12.x those of
    /// every open claim of its template, which all held one usage object (#2102); a claim not
    /// opened yet then starts with every port its siblings took.
    fn ports_taken_for(&self, claim: &Claim<'w, 'a>, wanted: &[HostPort]) -> bool {
        let rules = self.world.cluster.rules();
        let shared = rules.has(Rule::DaemonHostPortsOnNewClaims) && !rules.has(Rule::HostPortsPerNewClaim);
        host_port_conflict(wanted, claim.host_ports.iter())
            || (shared
                && self
                    .claims
                    .iter()
                    .filter(|c| std::ptr::eq(c.template, claim.template))
                    .any(|c| host_port_conflict(wanted, c.host_ports.iter())))
    }

    /// The available reserved offerings of the remaining types that the claim's requirements
    /// admit: the claim holds them, and `finalize` pins it to them. Without the
    /// `ReservedCapacity` gate, none. Every available reservation is taken to have room (a
    /// snapshot carries no reservation counts), and the disruption simulations run in the
    /// fallback mode, so no reservation error is raised.
    ///
    /// Mirrors karpenter `nodeclaim.go` `NodeClaim.offeringsToReserve`.
    fn offerings_to_reserve(&self, types: &[&'a InstanceType], reqs: &Requirements) -> Vec<&'a Offering> {
        if !self.world.settings.reserved_capacity {
            return Vec::new();
        }
        types
            .iter()
            .flat_map(|it| it.offerings.iter())
            .filter(|o| o.capacity_type == "reserved" && o.available && offering_compatible(o, reqs))
            .collect()
    }

    /// `NodeClaim.Add`: the pod joins the claim, which takes the narrowed requirements, the
    /// remaining instance types (cheapest first) and the offerings to reserve.
    pub(in crate::engine) fn commit_claim(
        &mut self,
        i: usize,
        pod: &'a Pod,
        requests: &Resources,
        addition: Addition<'a>,
    ) {
        let Addition { labels, mut types, reserve } = addition;
        sort_by_cheapest(&mut types, &labels);
        let claim = &mut self.claims[i];
        claim.labels = labels;
        claim.instance_types = types;
        claim.reserved = reserve;
        pod::add(&mut claim.requests, requests);
        claim.pods.push(pod);
        claim.host_ports.extend(self.world.host_ports(pod).iter().cloned());
        self.land(Landing::Claim(i), pod);
    }

    /// The values of `key` a claim with these requirements may still take.
    pub(in crate::engine) fn claim_domain(&self, reqs: &Requirements, key: &str, claim_name: &str) -> BTreeSet<String> {
        if key == HOSTNAME {
            return [claim_name.to_owned()].into();
        }
        match reqs.get(key) {
            Some(r) if !r.complement => r.values.clone(),
            Some(r) => self.world.universe(key).iter().filter(|v| r.allows(v)).cloned().collect(),
            None => (*self.world.universe(key)).clone(),
        }
    }

    /// The one value of `key` a claim has settled on, if it has.
    pub(in crate::engine) fn claim_fixed_domain(&self, claim: &Claim<'_, '_>, key: &str) -> Option<String> {
        if key == HOSTNAME {
            return Some(claim.name.clone());
        }
        let single = |mut values: Box<dyn Iterator<Item = &String> + '_>| {
            let first = values.next()?;
            values.next().is_none().then(|| first.clone())
        };
        let universe = self.world.universe(key);
        match claim.labels.get(key) {
            Some(r) if !r.complement => single(Box::new(r.values.iter())),
            Some(r) => single(Box::new(universe.iter().filter(|v| r.allows(v)))),
            None => single(Box::new(universe.iter())),
        }
    }
}

/// `resources.Fits` against the type's allocatable (`fits`): a request of zero or less is never
/// checked.
fn fits(it: &InstanceType, need: &Resources) -> bool {
    let alloc = allocatable(it);
    need.iter().all(|(k, v)| v.milli() <= 0 || alloc.get(k).is_some_and(|a| a >= v))
}

/// `filterByRemainingResources`: no limited resource of the type's capacity exceeds what is
/// left (a type has no `nodes` capacity, so only a negative `nodes` remainder drops it).
fn within_limits(it: &InstanceType, left: &Resources) -> bool {
    left.iter().all(|(k, left)| it.capacity.get(k).copied().unwrap_or_default() <= *left)
}

/// Why a NodeClaim refuses a pod, formatted only when shown: the scheduler asks every NodePool
/// for every pod it tries, and reads the reason only for a pod that fails for good.
#[derive(Debug)]
pub(in crate::engine) enum ClaimRefusal<'r> {
    Text(String),
    Incompatible(Incompatible<'r>),
}

impl From<String> for ClaimRefusal<'_> {
    fn from(text: String) -> Self {
        ClaimRefusal::Text(text)
    }
}

impl std::fmt::Display for ClaimRefusal<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClaimRefusal::Text(text) => f.write_str(text),
            ClaimRefusal::Incompatible(e) => write!(f, "incompatible requirements, {e}"),
        }
    }
}

pub(in crate::engine) mod claim;

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::super::scheduler::{Options, Simulation};
    use super::super::topology::Rules;
    use super::claim::{placeholder_hostname, Claim};
    use crate::engine::incremental::world::World;
    use crate::engine::labels::{CAPACITY_TYPE, HOSTNAME};
    use crate::engine::state::Cluster;
    use crate::snapshot::Snapshot;
    use crate::testing::{node_pool, now, pod, set, snapshot};

    fn pending(name: &str, cpu: &str) -> serde_json::Value {
        let p = set(pod(name, ""), "/spec/nodeName", json!(null));
        set(p, "/spec/containers", json!([{"name": "c", "resources": {"requests": {"cpu": cpu}}}]))
    }

    /// `NodeClaim.CanAdd` of pod `name` on a fresh claim of the first template: the claim's
    /// instance types, or the error.
    fn can_add(snap: &Snapshot, name: &str) -> Result<Vec<String>, String> {
        let cluster = Cluster::new(snap, now());
        let world = World::new(&cluster);
        let sim = Simulation::new(&world, &[], Options::default());
        let claim = Claim::new(&world.templates[0], placeholder_hostname(1));
        let p = snap.pods.iter().find(|p| p.metadata.name == name).expect("pod");
        let fit = world.pod_fit(p);
        let added = sim
            .can_add_claim(&claim, p, &world.requests(p), &fit.requirements, &Rules::default())
            .map_err(|e| e.to_string())?;
        Ok(added.types.iter().map(|it| it.name.clone()).collect())
    }

    #[test]
    fn a_new_claim_has_a_placeholder_hostname_a_pinned_pod_cannot_meet() {
        // nodeclaim.go NewNodeClaim: hostname In [hostname-placeholder-NNNN].
        let pinned = set(pending("pinned", "100m"), "/spec/nodeSelector", json!({"kubernetes.io/hostname": "n1"}));
        let snap = snapshot(vec![node_pool("default"), pinned, pending("free", "100m")]);
        let err = can_add(&snap, "pinned").expect_err("pinned elsewhere");
        assert!(err.starts_with("incompatible requirements"), "{err}");
        assert!(err.contains("hostname-placeholder-0001"), "{err}");
        assert_eq!(can_add(&snap, "free"), Ok(vec!["m.large".to_owned(), "m.xlarge".to_owned()]));
    }

    fn daemonset(cpu: &str, only: Option<&str>) -> serde_json::Value {
        let mut spec = json!({"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu}}}]});
        if let Some(t) = only {
            spec["nodeSelector"] = json!({"node.kubernetes.io/instance-type": t});
        }
        json!({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "agent", "namespace": "kube-system"},
               "spec": {"selector": {"matchLabels": {"app": "agent"}}, "template": {"metadata": {"labels": {"app": "agent"}}, "spec": spec}}})
    }

    #[test]
    fn daemonset_overhead_counts_only_on_the_types_it_runs_on() {
        // scheduler.go buildDaemonOverheadGroups: m.large (2 cpu) carries no DaemonSet that
        // selects m.xlarge, so a 1500m pod fits it; with the DaemonSet everywhere it does not.
        let only_xlarge = snapshot(vec![node_pool("default"), daemonset("1", Some("m.xlarge")), pending("p", "1500m")]);
        assert_eq!(can_add(&only_xlarge, "p"), Ok(vec!["m.large".to_owned(), "m.xlarge".to_owned()]));
        let everywhere = snapshot(vec![node_pool("default"), daemonset("1", None), pending("p", "1500m")]);
        assert_eq!(can_add(&everywhere, "p"), Ok(vec!["m.xlarge".to_owned()]));
    }

    #[test]
    fn daemonset_host_ports_block_the_pod_on_new_claims() {
        let port = json!([{"containerPort": 9100, "hostPort": 9100}]);
        let ds = set(daemonset("100m", None), "/spec/template/spec/containers", json!([{"name": "c", "ports": port}]));
        let p = set(pending("p", "100m"), "/spec/containers", json!([{"name": "c", "ports": port}]));
        let err = can_add(&snapshot(vec![node_pool("default"), ds, p]), "p").expect_err("port taken");
        assert!(err.starts_with("no instance type has free host ports"), "{err}");
    }

    fn min_values_pool() -> serde_json::Value {
        set(
            node_pool("default"),
            "/spec/template/spec/requirements",
            json!([
            {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
            {"key": "node.kubernetes.io/instance-type", "operator": "Exists", "minValues": 2}]),
        )
    }

    #[test]
    fn min_values_refuse_the_claim_under_strict_and_relax_under_best_effort() {
        // nodeclaim.go filterInstanceTypesByRequirements: a 3-cpu pod fits only m.xlarge.
        let strict = snapshot(vec![min_values_pool(), pending("p", "3")]);
        let err = can_add(&strict, "p").expect_err("one type for minValues 2");
        assert!(err.starts_with("minValues requirement is not met"), "{err}");
        let mut best_effort = snapshot(vec![min_values_pool(), pending("p", "3")]);
        best_effort.info.settings.insert(
            "MIN_VALUES_POLICY".into(),
            crate::snapshot::Setting { value: "BestEffort".into(), ..Default::default() },
        );
        assert_eq!(can_add(&best_effort, "p"), Ok(vec!["m.xlarge".to_owned()]));
    }

    #[test]
    fn finalize_drops_the_placeholder_and_pins_reserved_offerings() {
        let mut snap = snapshot(vec![set(node_pool("default"), "/spec/template/spec/requirements", json!([]))]);
        snap.instance_types[0].offerings.push(crate::snapshot::Offering {
            zone: "zone-a".into(),
            capacity_type: "reserved".into(),
            price: Some(0.01),
            available: true,
            reservation_id: Some("cr-1".into()),
            ..Default::default()
        });
        let cluster = Cluster::new(&snap, now());
        let world = World::new(&cluster);
        let mut claim = Claim::new(&world.templates[0], placeholder_hostname(7));
        assert!(claim.labels.get(HOSTNAME).is_some_and(|r| r.allows("hostname-placeholder-0007")));
        claim.reserved = world.templates[0]
            .instance_types
            .iter()
            .flat_map(|it| &it.offerings)
            .filter(|o| o.capacity_type == "reserved")
            .collect();
        let (reqs, _) = claim.finalize();
        assert!(reqs.get(HOSTNAME).is_none(), "FinalizeScheduling deletes the hostname requirement");
        let ct = reqs.get(CAPACITY_TYPE).expect("pinned");
        assert!(ct.allows("reserved") && !ct.allows("on-demand") && !ct.allows("spot"));
        assert!(reqs.get(crate::engine::labels::RESERVATION_ID).is_some_and(|r| r.allows("cr-1") && !r.allows("cr-2")));
    }
}
