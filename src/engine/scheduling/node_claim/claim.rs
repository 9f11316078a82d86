//! The NodeClaim a simulation opens (`NodeClaim`, `NewNodeClaim` and `FinalizeScheduling` in
//! karpenter `pkg/controllers/provisioning/scheduling/nodeclaim.go`): the data the scheduler
//! keeps per claim. `node_claim.rs` holds `CanAdd`, which reads the simulation; this file reads
//! nothing of it, so the scheduler can hold claims without a circle.

use std::collections::BTreeSet;

use crate::engine::labels::{CAPACITY_TYPE, HOSTNAME, RESERVATION_ID};
use crate::engine::pod;
use crate::engine::scheduling::host_port_usage::HostPort;
use crate::engine::scheduling::node_claim_template::Template;
use crate::engine::scheduling::requirements::{Requirement, Requirements};
use crate::snapshot::{InstanceType, Offering, Pod, Resources};

/// Upstream's placeholder hostname of a new NodeClaim (`NewNodeClaim`), numbered per
/// simulation so the same input gives the same names.
pub(in crate::engine) fn placeholder_hostname(n: usize) -> String {
    format!("{PLACEHOLDER_PREFIX}{n:04}")
}

/// What every placeholder hostname starts with.
pub(in crate::engine) const PLACEHOLDER_PREFIX: &str = "hostname-placeholder-";

/// A NodeClaim the simulation opened.
pub(in crate::engine) struct Claim<'w, 'a> {
    pub(in crate::engine) template: &'w Template<'a>,
    /// Its placeholder hostname, also in `labels` until `finalize`.
    pub(in crate::engine) name: String,
    pub(in crate::engine) labels: Requirements,
    pub(in crate::engine) instance_types: Vec<&'a InstanceType>,
    pub(in crate::engine) requests: Resources,
    pub(in crate::engine) pods: Vec<&'a Pod>,
    /// Host ports of the pods on it (every DaemonSet group also holds its own).
    pub(in crate::engine) host_ports: Vec<HostPort>,
    /// The reserved offerings it holds (`NodeClaim.reservedOfferings`).
    pub(in crate::engine) reserved: Vec<&'a Offering>,
}

impl<'w, 'a> Claim<'w, 'a> {
    /// A fresh claim of `template` (`NewNodeClaim`): the template's requirements plus its
    /// placeholder hostname, so hostname-keyed rules keep pods apart or together on it.
    pub(in crate::engine) fn new(template: &'w Template<'a>, name: String) -> Self {
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
    pub(in crate::engine) fn finalize(&self) -> (Requirements, Resources) {
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
