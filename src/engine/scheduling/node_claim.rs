//! Whether a pod can join a NodeClaim the simulation opens or has opened: `NodeClaim.CanAdd`
//! and `filterInstanceTypesByRequirements`, and `NodeClaim.Add`.
//!
//! Mirrors karpenter `pkg/controllers/provisioning/scheduling/nodeclaim.go`.

use std::collections::BTreeSet;

use super::host_port_usage::{host_port_conflict, host_ports, HostPort};
use super::instance_types::{allocatable, instance_type_compatible, offering_compatible, sort_by_cheapest};
use super::node_claim_template::Template;
use super::requirements::{Requirement, Requirements};
use super::scheduler::{describe_resources, Landing, Simulation};
use super::{taints, topology};
use crate::engine::labels::{CAPACITY_TYPE, HOSTNAME, INSTANCE_TYPE, ZONE};
use crate::engine::pod;
use crate::snapshot::{InstanceType, Offering, Pod, Resources};

/// Upstream's placeholder hostname of a new NodeClaim (`NewNodeClaim`), numbered per
/// simulation so the same input gives the same names.
pub(super) fn placeholder_hostname(n: usize) -> String {
    format!("hostname-placeholder-{n:04}")
}

/// The label a reserved offering's capacity reservation ID goes under (the AWS provider's
/// `cloudprovider.ReservationIDLabel`).
pub(crate) const RESERVATION_ID: &str = "karpenter.k8s.aws/capacity-reservation-id";

/// A NodeClaim the simulation opened.
pub(super) struct Claim<'w, 'a> {
    pub(super) template: &'w Template<'a>,
    /// Its placeholder hostname, also in `labels` until `finalize`.
    pub(super) name: String,
    pub(super) labels: Requirements,
    pub(super) instance_types: Vec<&'a InstanceType>,
    pub(super) requests: Resources,
    pub(super) pods: Vec<&'a Pod>,
    /// Host ports of the pods on it (every DaemonSet group also holds its own).
    pub(super) host_ports: Vec<HostPort>,
    /// The reserved offerings it holds (`NodeClaim.reservedOfferings`).
    pub(super) reserved: Vec<&'a Offering>,
}

impl<'w, 'a> Claim<'w, 'a> {
    /// A fresh claim of `template` (`NewNodeClaim`): the template's requirements plus its
    /// placeholder hostname, so hostname-keyed rules keep pods apart or together on it.
    pub(super) fn new(template: &'w Template<'a>, name: String) -> Self {
        let mut labels = template.requirements.clone();
        labels.add(HOSTNAME, &Requirement::in_values([name.clone()]));
        Claim {
            template,
            name,
            labels,
            instance_types: template.instance_types.clone(),
            requests: Resources::new(),
            pods: Vec::new(),
            host_ports: Vec::new(),
            reserved: Vec::new(),
        }
    }

    /// `NodeClaim.FinalizeScheduling`: the requirements without the placeholder hostname,
    /// pinned to its reserved offerings (capacity type `reserved` and their reservation IDs)
    /// when it holds any, and the requests with the smallest DaemonSet overhead of the
    /// groups its instance types still span (`addDaemonRequests`).
    pub(super) fn finalize(&self) -> (Requirements, Resources) {
        let mut reqs = self.labels.clone();
        reqs.0.remove(HOSTNAME);
        if !self.reserved.is_empty() {
            reqs.0.insert(CAPACITY_TYPE.to_owned(), Requirement::in_values(["reserved"]));
            let ids: BTreeSet<String> = self.reserved.iter().filter_map(|o| o.reservation_id.clone()).collect();
            if !ids.is_empty() {
                reqs.add(RESERVATION_ID, &Requirement::in_values(ids));
            }
        }
        let mut requests = self.requests.clone();
        if let Some(overhead) = self.template.min_daemon_overhead(&self.instance_types) {
            pod::add(&mut requests, &overhead);
        }
        (reqs, requests)
    }
}

/// What a pod joining a claim changes on it.
pub(super) struct Addition<'a> {
    pub(super) labels: Requirements,
    pub(super) types: Vec<&'a InstanceType>,
    pub(super) reserve: Vec<&'a Offering>,
}

impl<'w, 'a> Simulation<'w, '_, 'a> {
    /// Whether the pod fits the claim; the claim's new requirements, instance types and
    /// offerings to reserve if so.
    ///
    /// Mirrors karpenter `nodeclaim.go` `NodeClaim.CanAdd` / `tryVolumeAlternative`.
    pub(super) fn can_add_claim(
        &self,
        claim: &Claim<'w, 'a>,
        pod: &Pod,
        requests: &Resources,
        pod_reqs: &[Requirements],
        rules: &topology::Rules,
    ) -> Result<Addition<'a>, String> {
        if let Some(taint) = taints::untolerated(&pod.spec.tolerations, &claim.template.taints) {
            return Err(format!("did not tolerate taint {taint}"));
        }
        let mut reqs = None;
        let mut last_err = String::new();
        for r in pod_reqs {
            match claim.labels.compatible(r, &is_well_known) {
                Ok(()) => {
                    let mut merged = claim.labels.clone();
                    merged.add_all(r);
                    reqs = Some(merged);
                    break;
                }
                Err(e) => last_err = format!("incompatible requirements, {e}"),
            }
        }
        let mut reqs = reqs.ok_or(last_err)?;
        if !rules.is_empty() {
            let narrowing =
                rules.admit_new(&|key: &str| self.claim_domain(&reqs, key, &claim.name)).map_err(str::to_owned)?;
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
        let wanted = host_ports(pod);
        let blocked_by_pods = !wanted.is_empty() && host_port_conflict(&wanted, claim.host_ports.iter());
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
    pub(super) fn commit_claim(&mut self, i: usize, pod: &'a Pod, requests: &Resources, addition: Addition<'a>) {
        let Addition { labels, mut types, reserve } = addition;
        sort_by_cheapest(&mut types, &labels);
        let claim = &mut self.claims[i];
        claim.labels = labels;
        claim.instance_types = types;
        claim.reserved = reserve;
        pod::add(&mut claim.requests, requests);
        claim.pods.push(pod);
        claim.host_ports.extend(host_ports(pod));
        self.land(Landing::Claim(i), pod);
    }

    /// The values of `key` a claim with these requirements may still take.
    pub(super) fn claim_domain(&self, reqs: &Requirements, key: &str, claim_name: &str) -> BTreeSet<String> {
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
    pub(super) fn claim_fixed_domain(&self, claim: &Claim<'_, '_>, key: &str) -> Option<String> {
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

pub(super) fn is_well_known(key: &str) -> bool {
    matches!(
        key,
        ZONE | INSTANCE_TYPE
            | CAPACITY_TYPE
            | HOSTNAME
            | "kubernetes.io/arch"
            | "kubernetes.io/os"
            | "topology.kubernetes.io/region"
            | "node.kubernetes.io/windows-build"
    ) || key.starts_with("karpenter.k8s.aws/")
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
