//! Whether a pod can join a NodeClaim the simulation opens or has opened: `NodeClaim.CanAdd`
//! and `filterInstanceTypesByRequirements`, and `NodeClaim.Add`.
//!
//! Mirrors karpenter `pkg/controllers/provisioning/scheduling/nodeclaim.go`.

use std::collections::BTreeSet;

use super::host_port_usage::{host_port_conflict, host_ports, HostPort};
use super::instance_types::{allocatable, instance_type_compatible, sort_by_cheapest};
use super::node_claim_template::Template;
use super::requirements::Requirements;
use super::scheduler::{describe_resources, Landing, Simulation};
use super::{taints, topology};
use crate::engine::labels::{CAPACITY_TYPE, HOSTNAME, INSTANCE_TYPE, ZONE};
use crate::engine::pod;
use crate::quantity::Quantity;
use crate::snapshot::{InstanceType, Pod, Resources};

/// A NodeClaim the simulation opened.
pub(super) struct Claim<'w, 'a> {
    pub(super) template: &'w Template<'a>,
    pub(super) name: String,
    pub(super) labels: Requirements,
    pub(super) instance_types: Vec<&'a InstanceType>,
    pub(super) requests: Resources,
    pub(super) pods: Vec<&'a Pod>,
    pub(super) host_ports: Vec<HostPort>,
}

impl<'w, 'a> Simulation<'w, '_, 'a> {
    /// Whether the pod fits the claim; the claim's new requirements and instance types if so.
    pub(super) fn can_add_claim(
        &self,
        claim: &Claim<'w, 'a>,
        pod: &Pod,
        requests: &Resources,
        pod_reqs: &[Requirements],
        rules: &topology::Rules,
        strict: bool,
    ) -> Result<(Requirements, Vec<&'a InstanceType>), String> {
        if let Some(taint) = taints::untolerated(&pod.spec.tolerations, &claim.template.taints, !strict) {
            return Err(format!("did not tolerate {taint}"));
        }
        if host_port_conflict(pod, claim.host_ports.iter()) {
            return Err("host ports already used on the new NodeClaim".into());
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
        let fresh = claim.pods.is_empty();
        let fitting = self.fitting_types(claim.template, &claim.instance_types, &reqs, &total, fresh);
        if fitting.is_empty() {
            pod::add(&mut total, &claim.template.daemon_overhead);
            return Err(format!("no instance type satisfied resources {}", describe_resources(&total)));
        }
        Ok((reqs, fitting))
    }

    pub(super) fn fitting_types(
        &self,
        template: &Template<'a>,
        types: &[&'a InstanceType],
        reqs: &Requirements,
        total: &Resources,
        fresh: bool,
    ) -> Vec<&'a InstanceType> {
        // Limits gate only the opening of a claim (`scheduler.go add`); a claim already open
        // takes more pods without them (`nodeclaim.go CanAdd` does not look at limits).
        let remaining = self.remaining.get(template.pool.metadata.name.as_str()).filter(|_| fresh);
        let mut need = total.clone();
        pod::add(&mut need, &template.daemon_overhead);
        types
            .iter()
            .copied()
            .filter(|it| instance_type_compatible(it, reqs))
            .filter(|it| {
                let alloc = allocatable(it);
                need.iter().all(|(k, v)| v.milli() <= 0 || alloc.get(k).is_some_and(|a| a >= v))
            })
            // `scheduler.go add`: no `nodes` left exhausts the pool; `filterByRemainingResources`
            // drops types whose capacity exceeds what is left (a type has no `nodes` capacity,
            // so a negative `nodes` remainder drops them all).
            .filter(|it| {
                remaining.is_none_or(|left| {
                    left.iter().all(|(k, left)| {
                        let need = if k == "nodes" {
                            Quantity::from_units(1)
                        } else {
                            it.capacity.get(k).copied().unwrap_or_default()
                        };
                        need <= *left
                    })
                })
            })
            .collect()
    }

    pub(super) fn commit_claim(
        &mut self,
        i: usize,
        pod: &'a Pod,
        requests: &Resources,
        labels: Requirements,
        mut types: Vec<&'a InstanceType>,
    ) {
        sort_by_cheapest(&mut types, &labels);
        let claim = &mut self.claims[i];
        claim.labels = labels;
        claim.instance_types = types;
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
