//! Why no existing node took a pod, as kube-scheduler sums it up: "0/N nodes are available:
//! 3 Insufficient cpu, 2 node(s) had untolerated taint …", with the first refusing nodes named.
//!
//! Mirrors kubernetes `pkg/scheduler/framework/types.go` (`FitError.Error`, the `Diagnosis`
//! counts per status reason), as Karpenter's error for a pod that fits nowhere quotes it.
//!
//! The counts cover every existing node, so done node by node a summary costs a pass over the
//! cluster, and a replay writes one for each of the first failed pods of every candidate: nodes
//! squared. Most nodes, though, answer a pod from facts that never change during a replay. A
//! [`RefusalClass`] keeps, for pods asking for the same resources with the same tolerations,
//! each node's answer to the checks before its labels, against the node as the simulation
//! finds it; a summary then asks again only the nodes that can answer otherwise: those the
//! simulation removed or put pods on, and those whose labels admit the pod (the rest refuse it
//! on its node affinity, as kube-scheduler would say).

use std::collections::BTreeMap;
use std::rc::Rc;

use super::existing_node::AFFINITY_MISMATCH;
use super::results::MAX_REJECTIONS;
use super::scheduler::{pod_from_deleting, Simulation};
use crate::snapshot::{Pod, Resources};

pub(crate) use self::refusal_class::RefusalClass;

/// Why no existing node took a pod: kube-scheduler's counts per reason, over `existing` nodes.
pub(in crate::engine) struct Refusals {
    existing: usize,
    counts: BTreeMap<String, usize>,
    /// `node: reason`, the first [`MAX_REJECTIONS`].
    pub(in crate::engine) nodes: Vec<String>,
}

impl Refusals {
    pub(in crate::engine) fn summary(&self) -> String {
        let counts: Vec<String> = self.counts.iter().map(|(reason, n)| format!("{n} {reason}")).collect();
        format!("0/{} nodes are available: {}", self.existing, counts.join(", "))
    }
}

fn add(counts: &mut BTreeMap<String, usize>, reason: &str, n: usize) {
    if let Some(count) = counts.get_mut(reason) {
        *count += n;
    } else if n > 0 {
        counts.insert(reason.to_owned(), n);
    }
}

fn remove(counts: &mut BTreeMap<String, usize>, reason: &str) {
    if let Some(count) = counts.get_mut(reason) {
        *count -= 1;
        if *count == 0 {
            counts.remove(reason);
        }
    }
}

impl<'a> Simulation<'_, '_, 'a> {
    /// Every existing node's refusal of the pod (as last tried), as kube-scheduler sums them up.
    pub(in crate::engine) fn refusals(&self, pod: &'a Pod, tried: &Pod) -> Refusals {
        let world = self.world;
        let requests = world.requests(pod);
        let fit = self.fit(pod, tried);
        let rules = self.rules(pod, tried);
        let refusal = |i: usize| self.can_add_existing(i, tried, &requests, &fit.requirements, &rules).err();
        let mut nodes = Vec::new();
        for &i in world.order.iter().filter(|&&i| !self.excluded[i]) {
            if nodes.len() == MAX_REJECTIONS {
                break;
            }
            if let Some(reason) = refusal(i) {
                nodes.push(format!("{}: {reason}", world.nodes[i].name));
            }
        }
        let existing = self.excluded.iter().filter(|&&e| !e).count();
        // A pod's claims and host ports meet what this simulation placed: no class for it.
        let counts =
            if super::volume_topology::has_claims(tried) || !super::host_port_usage::host_ports(tried).is_empty() {
                let mut counts = BTreeMap::new();
                for i in (0..world.nodes.len()).filter(|&i| !self.excluded[i]) {
                    if let Some(reason) = refusal(i) {
                        add(&mut counts, &reason, 1);
                    }
                }
                counts
            } else {
                let class = self.refusal_class(tried, &requests);
                let mut counts = class.tally.clone();
                let mut passing = class.passing;
                // The nodes that may answer otherwise than the class says: removed, changed, or
                // admitting the pod's labels (then its topology rules decide).
                let mut asked: Vec<usize> = (0..world.nodes.len()).filter(|&i| self.excluded[i]).collect();
                asked.extend(self.placed.keys().copied());
                asked.extend(fit.fits.positions().map(|p| world.order[p]));
                asked.sort_unstable();
                asked.dedup();
                for i in asked {
                    match class.reason(i) {
                        Some(reason) => remove(&mut counts, reason),
                        None => passing -= 1,
                    }
                    if let Some(reason) = (!self.excluded[i]).then(|| refusal(i)).flatten() {
                        add(&mut counts, &reason, 1);
                    }
                }
                // Every other node passing the checks before the labels is outside the pod's
                // static fit, which its taints do not keep it from: its labels refuse the pod.
                add(&mut counts, AFFINITY_MISMATCH, passing);
                counts
            };
        Refusals { existing, counts, nodes }
    }

    /// The class of pods asking for `requests` with `pod`'s tolerations, in this pass.
    fn refusal_class(&self, pod: &Pod, requests: &Resources) -> Rc<RefusalClass> {
        let from_deleting = pod_from_deleting(pod, self.world.cluster);
        let key = format!("{}|{from_deleting}|{requests:?}|{:?}", self.options.consolidation, pod.spec.tolerations);
        self.world.refusal_class(key, || {
            let nodes = 0..self.world.nodes.len();
            RefusalClass::new(nodes.map(|i| self.admits_before_affinity(i, pod, requests, None)))
        })
    }
}

pub(in crate::engine) mod refusal_class;
#[cfg(test)]
mod tests;
