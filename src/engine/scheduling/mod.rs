//! The scheduling simulation that decides "can these pods move?": Karpenter's
//! `SimulateScheduling` → `Scheduler.Solve`, replayed on the snapshot.
//!
//! Pods are queued by CPU then memory (descending), and each goes to the first existing node
//! that takes it (initialized first, then by name), else to a NodeClaim this simulation already
//! opened, else to a new NodeClaim from the first NodePool (by weight) whose template and
//! instance types fit. Preferences are hard until relaxed. Not replayed: CSI volume limits,
//! DRA, reserved-offering pinning, minValues relaxation policies other than `Strict`, and the
//! per-term order of preference relaxation (all preferences are dropped at once).

pub mod requirements;
pub mod taints;
pub mod topology;

use std::collections::{BTreeMap, BTreeSet};

use jiff::Timestamp;

use self::requirements::{Requirement, Requirements};
use self::topology::{Destinations, Domain};
use super::labels::{CAPACITY_TYPE, HOSTNAME, INSTANCE_TYPE, NODEPOOL, ZONE};
use super::pod;
use super::state::{Cluster, StateNode};
use crate::quantity::Quantity;
use crate::snapshot::{is_true, InstanceType, NodePool, Pod, Resources, Taint};

/// Where one pod went.
#[derive(Debug, Clone, PartialEq)]
pub enum Destination {
    Existing(String),
    /// Index into [`Results::new_claims`].
    New(usize),
    /// Nowhere; the reasons per destination, kube-scheduler style.
    Nowhere,
}

/// One pod's fate.
#[derive(Debug, Clone, PartialEq)]
pub struct PodMove {
    pub pod: String,
    /// It was already pending: its failure does not block the move.
    pub pending: bool,
    pub to: Destination,
    /// "0/N nodes are available: …" when it found no place; the fit figures otherwise.
    pub why: Vec<String>,
}

/// A NodeClaim the simulation would launch.
#[derive(Debug, Clone, PartialEq)]
pub struct NewClaim {
    pub node_pool: String,
    pub requirements: Requirements,
    /// Compatible instance types, cheapest available compatible offering first.
    pub instance_types: Vec<String>,
    pub pods: Vec<String>,
    pub requests: Resources,
}

/// Mirrors karpenter `scheduling.Results`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Results {
    pub moves: Vec<PodMove>,
    pub new_claims: Vec<NewClaim>,
}

impl Results {
    /// Every pod that was bound before the simulation found a place.
    ///
    /// Mirrors karpenter `Results.AllNonPendingPodsScheduled`.
    pub fn all_non_pending_scheduled(&self) -> bool {
        self.moves.iter().all(|m| m.pending || m.to != Destination::Nowhere)
    }

    /// Karpenter's `not all pods would schedule, ns/p => error …` (at most 5 pods listed).
    pub fn non_pending_errors(&self) -> Option<String> {
        let failed: Vec<&PodMove> = self.moves.iter().filter(|m| !m.pending && m.to == Destination::Nowhere).collect();
        if failed.is_empty() {
            return None;
        }
        let shown: Vec<String> = failed.iter().take(5).map(|m| format!("{} => {}", m.pod, m.why.join("; "))).collect();
        let mut text = format!("not all pods would schedule, {}", shown.join(", "));
        if failed.len() > 5 {
            text.push_str(&format!(" and {} other(s)", failed.len() - 5));
        }
        Some(text)
    }
}

/// What to simulate.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// A consolidation simulation (applies the consolidateAfter destination rule).
    pub consolidation: bool,
}

/// Simulates removing `candidates` (indices into `cluster.nodes`).
///
/// Mirrors [`crate::upstream::SIMULATE_SCHEDULING`].
pub fn simulate(cluster: &Cluster<'_>, candidates: &[usize], options: Options) -> Results {
    let mut sim = Simulation::new(cluster, candidates, options);
    sim.solve();
    sim.results
}

struct Bin<'a> {
    name: String,
    existing: Option<usize>,
    pool: Option<&'a NodePool>,
    labels: Requirements,
    taints: Vec<Taint>,
    available: Resources,
    pods: Vec<&'a Pod>,
    host_ports: Vec<(i32, String, String)>,
    initialized: bool,
    under_consolidate_after: bool,
    claim_index: Option<usize>,
    instance_types: Vec<&'a InstanceType>,
    requests: Resources,
    daemon_overhead: Resources,
}

struct Simulation<'c, 'a> {
    cluster: &'c Cluster<'a>,
    options: Options,
    bins: Vec<Bin<'a>>,
    queue: Vec<(&'a Pod, bool)>,
    pools: Vec<&'a NodePool>,
    limits_used: BTreeMap<String, Resources>,
    results: Results,
}

impl<'c, 'a> Simulation<'c, 'a> {
    fn new(cluster: &'c Cluster<'a>, candidates: &[usize], options: Options) -> Self {
        let now = cluster.now;
        let limits = super::pdb::Limits::new(&cluster.snapshot.pdbs);
        let mut queue: Vec<(&'a Pod, bool)> = Vec::new();
        for pod in &cluster.unbound_pods {
            if is_provisionable(pod) {
                queue.push((pod, true));
            }
        }
        let mut bins = Vec::new();
        let mut limits_used: BTreeMap<String, Resources> = BTreeMap::new();
        for (i, node) in cluster.nodes.iter().enumerate() {
            let moving = candidates.contains(&i) || node.marked_for_deletion();
            if moving {
                for pod in &node.pods {
                    if pod::is_reschedulable(pod) && limits.is_currently_reschedulable(pod, now) {
                        queue.push((pod, false));
                    }
                }
                continue;
            }
            if let Some(pool) = node.node_pool_name() {
                let cap = node.node.map(|n| n.status.capacity.clone()).unwrap_or_default();
                let entry = limits_used.entry(pool.to_owned()).or_default();
                pod::add(entry, &cap);
                pod::add(entry, &Resources::from([("nodes".to_owned(), Quantity::from_units(1))]));
            }
            bins.push(existing_bin(cluster, i, node, now));
        }
        bins.sort_by(|a, b| (!a.initialized, &a.name).cmp(&(!b.initialized, &b.name)));
        queue.sort_by(|(a, _), (b, _)| {
            let (ra, rb) = (pod::requests(a), pod::requests(b));
            let get = |r: &Resources, k: &str| r.get(k).copied().unwrap_or_default();
            get(&rb, "cpu")
                .cmp(&get(&ra, "cpu"))
                .then_with(|| get(&rb, "memory").cmp(&get(&ra, "memory")))
                .then_with(|| a.metadata.creation_timestamp.cmp(&b.metadata.creation_timestamp))
                .then_with(|| a.metadata.uid.cmp(&b.metadata.uid))
                .then_with(|| a.metadata.key().cmp(&b.metadata.key()))
        });
        let mut pools: Vec<&'a NodePool> = cluster
            .pools
            .values()
            .copied()
            .filter(|p| p.spec.replicas.is_none() && pool_ready(p) && p.metadata.deletion_timestamp.is_none())
            .collect();
        pools.sort_by(|a, b| {
            b.spec
                .weight
                .unwrap_or(0)
                .cmp(&a.spec.weight.unwrap_or(0))
                .then_with(|| b.metadata.name.cmp(&a.metadata.name))
        });
        Simulation { cluster, options, bins, queue, pools, limits_used, results: Results::default() }
    }

    fn solve(&mut self) {
        let queue = std::mem::take(&mut self.queue);
        for (pod, pending) in queue {
            let outcome = self.place(pod, true).or_else(|_| self.place(pod, false));
            let key = pod.metadata.key();
            match outcome {
                Ok((bin, why)) => {
                    let b = &self.bins[bin];
                    let to = match b.claim_index {
                        Some(i) => {
                            self.results.new_claims[i].pods.push(key.clone());
                            Destination::New(i)
                        }
                        None => Destination::Existing(b.name.clone()),
                    };
                    let mut why = vec![why];
                    if b.existing.is_some() && !b.initialized {
                        let claim = b.existing.and_then(|i| self.cluster.nodes[i].claim_name()).unwrap_or_default();
                        why = vec![format!("would schedule against uninitialized nodeclaim/{claim}, node/{}", b.name)];
                        self.results.moves.push(PodMove { pod: key, pending, to: Destination::Nowhere, why });
                        continue;
                    }
                    self.results.moves.push(PodMove { pod: key, pending, to, why });
                }
                Err(why) => self.results.moves.push(PodMove { pod: key, pending, to: Destination::Nowhere, why }),
            }
        }
        for bin in &self.bins {
            if let Some(i) = bin.claim_index {
                let claim = &mut self.results.new_claims[i];
                claim.requirements = bin.labels.clone();
                claim.requests = bin.requests.clone();
                claim.instance_types = bin.instance_types.iter().map(|it| it.name.clone()).collect();
            }
        }
    }

    /// Tries existing nodes, then open claims (fewest pods first), then a new claim.
    fn place(&mut self, pod: &'a Pod, strict: bool) -> Result<(usize, String), Vec<String>> {
        let requests = pod::requests(pod);
        let pod_reqs = pod_requirements(pod, strict, self.cluster);
        let mut failures: BTreeMap<String, usize> = BTreeMap::new();
        let mut existing_count = 0;
        for i in 0..self.bins.len() {
            if self.bins[i].claim_index.is_some() {
                continue;
            }
            existing_count += 1;
            match self.can_add_existing(i, pod, &requests, &pod_reqs, strict) {
                Ok(why) => {
                    self.commit(i, pod, &requests, Vec::new());
                    return Ok((i, why));
                }
                Err(reason) => *failures.entry(reason).or_default() += 1,
            }
        }
        let mut open: Vec<usize> = (0..self.bins.len()).filter(|&i| self.bins[i].claim_index.is_some()).collect();
        open.sort_by_key(|&i| self.bins[i].pods.len());
        for i in open {
            if let Ok(narrowing) = self.can_add_claim(i, pod, &requests, &pod_reqs, strict) {
                self.commit(i, pod, &requests, narrowing);
                return Ok((i, "new NodeClaim".into()));
            }
        }
        let mut claim_errors = Vec::new();
        for pool in self.pools.clone() {
            let bin = self.new_bin(pool);
            self.bins.push(bin);
            let i = self.bins.len() - 1;
            match self.can_add_claim(i, pod, &requests, &pod_reqs, strict) {
                Ok(narrowing) => {
                    let claim_index = self.results.new_claims.len();
                    self.results.new_claims.push(NewClaim {
                        node_pool: pool.metadata.name.clone(),
                        requirements: Requirements::default(),
                        instance_types: Vec::new(),
                        pods: Vec::new(),
                        requests: Resources::new(),
                    });
                    self.bins[i].claim_index = Some(claim_index);
                    self.commit(i, pod, &requests, narrowing);
                    return Ok((i, format!("new NodeClaim from nodepool/{}", pool.metadata.name)));
                }
                Err(e) => {
                    self.bins.pop();
                    claim_errors.push(format!("nodepool/{}: {e}", pool.metadata.name));
                }
            }
        }
        let mut summary: Vec<String> = failures.into_iter().map(|(reason, n)| format!("{n} {reason}")).collect();
        summary.sort();
        let mut why = vec![format!("0/{existing_count} nodes are available: {}", summary.join(", "))];
        if claim_errors.is_empty() && self.pools.is_empty() {
            why.push("no NodePool can launch capacity for it".into());
        }
        why.extend(claim_errors);
        Err(why)
    }

    fn can_add_existing(
        &self,
        i: usize,
        pod: &Pod,
        requests: &Resources,
        pod_reqs: &[Requirements],
        strict: bool,
    ) -> Result<String, String> {
        let bin = &self.bins[i];
        if self.options.consolidation && bin.under_consolidate_after && !pod_from_deleting(pod, self.cluster) {
            return Err("node(s) were under consolidateAfter (Karpenter won't move pods there yet)".into());
        }
        if let Some(taint) = taints::untolerated(&pod.spec.tolerations, &bin.taints, !strict) {
            return Err(taints::message(taint));
        }
        if host_port_conflict(pod, &bin.host_ports) {
            return Err("node(s) didn't have free ports for the requested pod ports".into());
        }
        for (resource, want) in requests {
            let have = bin.available.get(resource).copied().unwrap_or_default();
            if *want > have && want.milli() > 0 {
                return Err(if resource == "pods" {
                    "Too many pods".into()
                } else {
                    format!("Insufficient {resource}")
                });
            }
        }
        if !pod_reqs.iter().any(|r| bin.labels.compatible(r, &|_| false).is_ok()) {
            return Err("node(s) didn't match Pod's node affinity/selector".into());
        }
        let domain_of = |key: &str| Domain::Fixed(bin.labels.get(key).and_then(|r| r.values.iter().next().cloned()));
        topology::check(pod, i, &domain_of, self, strict).map_err(str::to_owned)?;
        let alloc = |k: &str| bin.available.get(k).map_or(0.0, |q| q.as_f64());
        Ok(format!("fits: free cpu {:.2}, memory {:.2}Gi", alloc("cpu"), alloc("memory") / f64::from(1u32 << 30)))
    }

    fn can_add_claim(
        &self,
        i: usize,
        pod: &Pod,
        requests: &Resources,
        pod_reqs: &[Requirements],
        strict: bool,
    ) -> Result<topology::Narrowing, String> {
        let bin = &self.bins[i];
        if let Some(taint) = taints::untolerated(&pod.spec.tolerations, &bin.taints, !strict) {
            return Err(format!("did not tolerate {taint}"));
        }
        let well_known = |k: &str| is_well_known(k);
        let mut reqs = None;
        let mut last_err = String::new();
        for r in pod_reqs {
            match bin.labels.compatible(r, &well_known) {
                Ok(()) => {
                    let mut merged = bin.labels.clone();
                    merged.add_all(r);
                    reqs = Some(merged);
                    break;
                }
                Err(e) => last_err = format!("incompatible requirements, {e}"),
            }
        }
        let mut reqs = reqs.ok_or(last_err)?;
        let domain_of = |key: &str| claim_domain(&reqs, key, &bin.name, self);
        let narrowing = topology::check(pod, i, &domain_of, self, strict).map_err(str::to_owned)?;
        for (k, r) in &narrowing {
            reqs.add(k, r);
        }
        let mut total = bin.requests.clone();
        pod::add(&mut total, requests);
        let fitting = self.fitting_types(bin, &reqs, &total);
        if fitting.is_empty() {
            let mut with_overhead = total.clone();
            pod::add(&mut with_overhead, &bin.daemon_overhead);
            return Err(format!("no instance type satisfied resources {}", describe_resources(&with_overhead)));
        }
        Ok(narrowing)
    }

    fn fitting_types(&self, bin: &Bin<'a>, reqs: &Requirements, total: &Resources) -> Vec<&'a InstanceType> {
        let pool_name = bin.pool.map(|p| p.metadata.name.as_str()).unwrap_or_default();
        let used = self.limits_used.get(pool_name).cloned().unwrap_or_default();
        let limits = bin.pool.map(|p| p.spec.limits.clone()).unwrap_or_default();
        bin.instance_types
            .iter()
            .copied()
            .filter(|it| instance_type_compatible(it, reqs))
            .filter(|it| {
                let mut need = total.clone();
                pod::add(&mut need, &bin.daemon_overhead);
                let alloc = allocatable(it);
                need.iter().all(|(k, v)| v.milli() <= 0 || alloc.get(k).is_some_and(|a| a >= v))
            })
            .filter(|it| {
                limits.iter().all(|(k, limit)| {
                    let have = used.get(k).copied().unwrap_or_default();
                    let add = if k == "nodes" {
                        Quantity::from_units(1)
                    } else {
                        it.capacity.get(k).copied().unwrap_or_default()
                    };
                    have.plus(add) <= *limit
                })
            })
            .collect()
    }

    fn commit(&mut self, i: usize, pod: &'a Pod, requests: &Resources, narrowing: topology::Narrowing) {
        let bin = &mut self.bins[i];
        for (k, r) in narrowing {
            bin.labels.add(&k, &r);
        }
        bin.pods.push(pod);
        bin.host_ports.extend(host_ports(pod));
        if bin.claim_index.is_some() {
            pod::add(&mut bin.requests, requests);
            let reqs = bin.labels.clone();
            let total = bin.requests.clone();
            let kept: Vec<&'a InstanceType> = {
                let bin_ref = &self.bins[i];
                self.fitting_types(bin_ref, &reqs, &total)
            };
            let bin = &mut self.bins[i];
            bin.instance_types = kept;
            narrow_to_offerings(bin);
        } else {
            for (k, v) in requests {
                let entry = bin.available.entry(k.clone()).or_insert(Quantity::ZERO);
                *entry = entry.minus(*v);
            }
        }
    }

    fn new_bin(&self, pool: &'a NodePool) -> Bin<'a> {
        let template = &pool.spec.template;
        let mut labels = Requirements::from_karpenter(&template.spec.requirements);
        for (k, v) in &template.metadata.labels {
            labels.add(k, &Requirement::in_values([v.clone()]));
        }
        labels.add(NODEPOOL, &Requirement::in_values([pool.metadata.name.clone()]));
        let instance_types: Vec<&'a InstanceType> =
            self.cluster.instance_types.values().copied().filter(|it| instance_type_compatible(it, &labels)).collect();
        let daemon_overhead = daemon_overhead(self.cluster, &labels, &template.spec.taints);
        let mut bin = Bin {
            name: format!("<new nodeclaim {}>", self.results.new_claims.len() + 1),
            existing: None,
            pool: Some(pool),
            labels,
            taints: template.spec.taints.clone(),
            available: Resources::new(),
            pods: Vec::new(),
            host_ports: Vec::new(),
            initialized: true,
            under_consolidate_after: false,
            claim_index: None,
            instance_types,
            requests: Resources::new(),
            daemon_overhead,
        };
        narrow_to_offerings(&mut bin);
        bin
    }
}

impl Destinations for Simulation<'_, '_> {
    fn each(&self, key: &str) -> Vec<(usize, Domain, Vec<&Pod>)> {
        self.bins
            .iter()
            .enumerate()
            .map(|(i, b)| {
                let domain = if b.claim_index.is_some() {
                    claim_domain(&b.labels, key, &b.name, self)
                } else {
                    Domain::Fixed(b.labels.get(key).and_then(|r| r.values.iter().next().cloned()))
                };
                (i, domain, b.pods.clone())
            })
            .collect()
    }

    fn universe(&self, key: &str) -> BTreeSet<String> {
        let mut out: BTreeSet<String> = self
            .bins
            .iter()
            .filter(|b| b.claim_index.is_none())
            .filter_map(|b| b.labels.get(key).and_then(|r| r.values.iter().next().cloned()))
            .collect();
        if key == HOSTNAME {
            return out;
        }
        for pool in &self.pools {
            let reqs = Requirements::from_karpenter(&pool.spec.template.spec.requirements);
            for it in self.cluster.instance_types.values() {
                if !instance_type_compatible(it, &reqs) {
                    continue;
                }
                for value in instance_type_values(it, key) {
                    if reqs.get(key).is_none_or(|r| r.allows(&value)) {
                        out.insert(value);
                    }
                }
            }
        }
        out
    }
}

fn existing_bin<'a>(cluster: &Cluster<'a>, i: usize, node: &StateNode<'a>, now: Timestamp) -> Bin<'a> {
    let mut labels = Requirements::from_labels(node.labels());
    let hostname = node.label(HOSTNAME).unwrap_or(&node.name).to_owned();
    labels.add(HOSTNAME, &Requirement::in_values([hostname]));
    let mut available = node.allocatable();
    let mut pods = Vec::new();
    let mut ports = Vec::new();
    for p in &node.pods {
        if pod::is_terminal(p) {
            continue;
        }
        let r = pod::requests(p);
        for (k, v) in &r {
            let entry = available.entry(k.clone()).or_insert(Quantity::ZERO);
            *entry = entry.minus(*v);
        }
        if pod::is_active(p) {
            pods.push(*p);
        }
        ports.extend(host_ports(p));
    }
    let mut taints: Vec<Taint> = node.taints().to_vec();
    if !node.initialized() {
        let startup: Vec<Taint> = node.claim.map(|c| c.spec.startup_taints.clone()).unwrap_or_default();
        taints.retain(|t| !is_ephemeral_taint(t) && !startup.contains(t));
    }
    if node.cordoned() && !taints.iter().any(|t| t.key == "node.kubernetes.io/unschedulable") {
        taints.push(Taint { key: "node.kubernetes.io/unschedulable".into(), value: None, effect: "NoSchedule".into() });
    }
    let pool = cluster.pool_of(node);
    Bin {
        name: node.name.clone(),
        existing: Some(i),
        pool,
        labels,
        taints,
        available,
        pods,
        host_ports: ports,
        initialized: node.initialized(),
        under_consolidate_after: pool
            .zip(node.claim)
            .is_some_and(|(p, c)| super::candidate::is_under_consolidate_after(p, c, now).is_some()),
        claim_index: None,
        instance_types: Vec::new(),
        requests: Resources::new(),
        daemon_overhead: Resources::new(),
    }
}

fn is_ephemeral_taint(t: &Taint) -> bool {
    matches!(
        t.key.as_str(),
        "node.kubernetes.io/not-ready" | "node.kubernetes.io/unreachable" | "karpenter.sh/unregistered"
    ) || (t.key == "node.cloudprovider.kubernetes.io/uninitialized")
        || t.key.starts_with("readiness.k8s.io/")
}

/// Unbound pods the scheduler already gave up on (`PodScheduled=False, Unschedulable`).
fn is_provisionable(pod: &Pod) -> bool {
    pod::is_active(pod)
        && pod.status.nominated_node_name.as_deref().is_none_or(str::is_empty)
        && !pod::is_owned_by_daemonset(pod)
        && !pod::is_mirror(pod)
        && crate::snapshot::condition(&pod.status.conditions, "PodScheduled")
            .is_some_and(|c| c.status == "False" && c.reason.as_deref() == Some("Unschedulable"))
}

fn pod_from_deleting(pod: &Pod, cluster: &Cluster<'_>) -> bool {
    pod.status.phase.as_deref() == Some("Pending")
        || pod.spec.node_name.as_deref().and_then(|n| cluster.node(n)).is_some_and(StateNode::marked_for_deletion)
}

fn pool_ready(pool: &NodePool) -> bool {
    let conditions = &pool.status.conditions;
    let known = |t: &str| crate::snapshot::condition(conditions, t).is_none() || is_true(conditions, t);
    known("ValidationSucceeded") && known("NodeClassReady")
}

/// The pod's node requirements: nodeSelector + each required affinity term (alternatives),
/// plus the heaviest preferred term while `strict`, plus the zones of its bound volumes.
fn pod_requirements(pod: &Pod, strict: bool, cluster: &Cluster<'_>) -> Vec<Requirements> {
    let mut base = Requirements::from_labels(&pod.spec.node_selector);
    base.add_all(&super::volumes::volume_requirements(pod, cluster.snapshot));
    let node_affinity = pod.spec.affinity.as_ref().and_then(|a| a.node_affinity.as_ref());
    if strict {
        if let Some(preferred) = node_affinity
            .and_then(|n| n.preferred_during_scheduling_ignored_during_execution.as_ref())
            .and_then(|terms| terms.iter().max_by_key(|t| t.weight))
        {
            base.add_all(&Requirements::from_k8s(
                preferred.preference.match_expressions.as_deref().unwrap_or_default(),
            ));
        }
    }
    let terms = node_affinity
        .and_then(|n| n.required_during_scheduling_ignored_during_execution.as_ref())
        .map(|s| s.node_selector_terms.clone())
        .unwrap_or_default();
    if terms.is_empty() {
        return vec![base];
    }
    terms
        .iter()
        .map(|t| {
            let mut r = base.clone();
            r.add_all(&Requirements::from_k8s(t.match_expressions.as_deref().unwrap_or_default()));
            r
        })
        .collect()
}

fn is_well_known(key: &str) -> bool {
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

fn claim_domain(reqs: &Requirements, key: &str, claim_name: &str, sim: &Simulation<'_, '_>) -> Domain {
    if key == HOSTNAME {
        return Domain::OneOf([claim_name.to_owned()].into());
    }
    match reqs.get(key) {
        Some(r) if !r.complement => Domain::OneOf(r.values.clone()),
        Some(r) => Domain::OneOf(sim.universe(key).into_iter().filter(|v| r.allows(v)).collect()),
        None => Domain::OneOf(sim.universe(key)),
    }
}

/// The values an instance type offers for a well-known key.
fn instance_type_values(it: &InstanceType, key: &str) -> Vec<String> {
    match key {
        ZONE => it.offerings.iter().map(|o| o.zone.clone()).collect(),
        CAPACITY_TYPE => it.offerings.iter().map(|o| o.capacity_type.clone()).collect(),
        INSTANCE_TYPE => vec![it.name.clone()],
        _ => it.labels.get(key).cloned().into_iter().collect(),
    }
}

/// An instance type survives when its labels fit the requirements and some available offering
/// matches the zone and capacity-type requirements.
pub fn instance_type_compatible(it: &InstanceType, reqs: &Requirements) -> bool {
    if reqs.get(INSTANCE_TYPE).is_some_and(|r| !r.allows(&it.name)) {
        return false;
    }
    for (k, v) in &it.labels {
        if reqs.get(k).is_some_and(|r| !r.allows(v)) {
            return false;
        }
    }
    it.offerings.iter().any(|o| offering_compatible(o, reqs) && o.available)
}

/// Whether an offering's zone and capacity type satisfy the requirements.
pub fn offering_compatible(o: &crate::snapshot::Offering, reqs: &Requirements) -> bool {
    reqs.get(ZONE).is_none_or(|r| r.allows(&o.zone))
        && reqs.get(CAPACITY_TYPE).is_none_or(|r| r.allows(&o.capacity_type))
}

/// Capacity minus kube/system reserved and eviction thresholds.
pub fn allocatable(it: &InstanceType) -> Resources {
    let mut out = it.capacity.clone();
    for (k, v) in &it.overhead {
        let entry = out.entry(k.clone()).or_insert(Quantity::ZERO);
        *entry = entry.minus(*v);
    }
    out
}

/// Keeps the claim's zone/capacity-type requirements consistent with its instance types.
fn narrow_to_offerings(bin: &mut Bin<'_>) {
    let reqs = &bin.labels;
    let mut types: Vec<(&InstanceType, f64)> = bin
        .instance_types
        .iter()
        .map(|it| {
            let cheapest = super::pricing::cheapest_price(it.offerings.iter().filter(|o| offering_compatible(o, reqs)));
            (*it, cheapest.unwrap_or(f64::MAX))
        })
        .collect();
    types.sort_by(|a, b| a.1.total_cmp(&b.1).then_with(|| a.0.name.cmp(&b.0.name)));
    bin.instance_types = types.into_iter().map(|(it, _)| it).collect();
}

/// Requests of DaemonSet pods that would land on a node of this template.
fn daemon_overhead(cluster: &Cluster<'_>, labels: &Requirements, template_taints: &[Taint]) -> Resources {
    let mut out = Resources::new();
    for ds in &cluster.snapshot.daemon_sets {
        let spec = &ds.spec.template.spec;
        if taints::untolerated(&spec.tolerations, template_taints, true).is_some() {
            continue;
        }
        let fake = Pod { spec: spec.clone(), ..Pod::default() };
        let fits = pod_requirements(&fake, false, cluster).iter().any(|r| labels.compatible(r, &is_well_known).is_ok());
        if fits {
            let mut r = pod::requests(&fake);
            r.remove("pods");
            pod::add(&mut out, &r);
            pod::add(&mut out, &Resources::from([("pods".to_owned(), Quantity::from_units(1))]));
        }
    }
    out
}

fn host_ports(pod: &Pod) -> Vec<(i32, String, String)> {
    pod.spec
        .containers
        .iter()
        .chain(&pod.spec.init_containers)
        .flat_map(|c| &c.ports)
        .filter_map(|p| {
            let port = p.host_port.filter(|p| *p > 0)?;
            Some((
                port,
                p.protocol.clone().unwrap_or_else(|| "TCP".into()),
                p.host_ip.clone().unwrap_or_else(|| "0.0.0.0".into()),
            ))
        })
        .collect()
}

fn host_port_conflict(pod: &Pod, used: &[(i32, String, String)]) -> bool {
    let wild = |ip: &str| ip == "0.0.0.0" || ip == "::" || ip.is_empty();
    host_ports(pod).iter().any(|(port, proto, ip)| {
        used.iter().any(|(p, pr, i)| p == port && pr == proto && (i == ip || wild(i) || wild(ip)))
    })
}

fn describe_resources(r: &Resources) -> String {
    let parts: Vec<String> = r.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    format!("{{{}}}", parts.join(", "))
}
