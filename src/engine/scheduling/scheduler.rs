//! The scheduling loop: `Scheduler.Solve` with its `add` order (existing nodes, then the
//! NodeClaims this simulation opened, then new ones), the NodePool limits it tracks, and the
//! per-pod reasons it reports.
//!
//! Mirrors karpenter `pkg/controllers/provisioning/scheduling/scheduler.go` (`Solve`,
//! `trySchedule`, `add`, `addToExistingNode`, `addToInflightNode`, `addToNewNodeClaim`,
//! `calculateExistingNodeClaims`, `updateRemainingResources`, `subtractMax`).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use foldhash::{HashMap, HashMapExt};
use std::rc::Rc;
use std::sync::Arc;

use super::host_port_usage::{host_ports, HostPort};
use super::node_claim::Claim;
use super::pod_index::PodIndex;
use super::queue;
use super::requirements::Requirements;
use super::results::{Destination, NewClaim, PodMove, Results, MAX_REJECTIONS};
use super::topology::{self, Counts, PodFilter, PodTerms, View};
use super::world::World;
use crate::engine::labels::ZONE;
use crate::engine::pod;
use crate::engine::state::{Cluster, StateNode};
use crate::quantity::Quantity;
use crate::snapshot::{InstanceType, Pod, Resources};

/// What to simulate.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Options {
    /// A consolidation simulation (applies the consolidateAfter destination rule).
    pub consolidation: bool,
    /// Also move the candidates' do-not-disrupt and fully PDB-blocked pods: the replay of a
    /// blocked node "with its gates lifted".
    pub lift_pod_gates: bool,
    /// Explain every pod: the fit figures, kube-scheduler's summary of the refusals and the
    /// refusing nodes, for `explain`. Without it only what a decision or a finding quotes is
    /// written (the refusals of the first bound pods that find no place). Placement is the
    /// same either way.
    pub detail: bool,
}

/// How many failed bound pods Karpenter's error text lists.
const ERRORS_LISTED: usize = 5;

/// What a simulation changed on an existing node.
#[derive(Debug, Default, Clone)]
pub(super) struct Placed {
    pub(super) used: Resources,
    pub(super) host_ports: Vec<HostPort>,
    /// Claims of the pods placed, on nodes with attach limits.
    pub(super) volumes: super::volume_usage::Volumes,
}

pub(super) struct Simulation<'w, 'c, 'a> {
    pub(super) world: &'w World<'c, 'a>,
    pub(super) options: Options,
    /// Indexed like the cluster's nodes: candidates and deleting nodes.
    pub(super) excluded: Vec<bool>,
    /// Pods in place on excluded nodes: they leave their domains.
    pub(super) gone: PodIndex<'a>,
    /// Pods this simulation placed, and those of them with required anti-affinity.
    pub(super) landed: PodIndex<'a, Landing>,
    pub(super) landed_anti: Vec<(Landing, Rc<PodTerms>, &'a Pod)>,
    pub(super) placed: HashMap<usize, Placed>,
    pub(super) claims: Vec<Claim<'w, 'a>>,
    /// Pods to place, in the order they are tried: (pod, already pending, from a deleting node).
    pub(super) queue: Vec<(&'a Pod, bool, bool)>,
    pub(super) results: Results,
    /// Per NodePool with `spec.limits`: what is left of them (`scheduler.go remainingResources`).
    pub(super) remaining: BTreeMap<String, Resources>,
}

/// `scheduler.go calculateExistingNodeClaims`/`updateRemainingResources`: each pool's limits
/// less the capacity (and one `nodes`) of every node that stays, i.e. neither a candidate nor
/// marked for deletion. Resources may go negative, as `resources.Subtract` lets them.
fn remaining_limits(world: &World<'_, '_>, excluded: &[usize]) -> BTreeMap<String, Resources> {
    let mut out: BTreeMap<String, Resources> = BTreeMap::new();
    for pool in world.cluster.pools.values().filter(|p| !p.spec.limits.is_empty()) {
        let name = pool.metadata.name.as_str();
        let used = world.pool_usage.get(name);
        let left: Resources = pool
            .spec
            .limits
            .iter()
            .map(|(k, limit)| (k.clone(), limit.minus(used.and_then(|u| u.get(k)).copied().unwrap_or_default())))
            .collect();
        out.insert(name.to_owned(), left);
    }
    if out.is_empty() {
        return out;
    }
    // `pool_usage` counts every node: give back what the excluded ones hold.
    for &i in excluded {
        let node = &world.nodes[i];
        let Some(left) = node.pool().and_then(|p| out.get_mut(p)) else { continue };
        for (k, v) in left.iter_mut() {
            let held =
                if k == "nodes" { Quantity::from_units(1) } else { node.capacity.get(k).copied().unwrap_or_default() };
            *v = v.plus(held);
        }
    }
    out
}

/// `scheduler.go subtractMax`: a new NodeClaim may launch as its largest option, so each
/// limited resource loses the largest capacity among its instance types (`nodes` is no
/// instance-type capacity, so upstream never counts it down here).
fn subtract_max(remaining: &mut Resources, types: &[&InstanceType]) {
    if types.is_empty() {
        return;
    }
    for (k, v) in remaining.iter_mut() {
        let max = types.iter().filter_map(|it| it.capacity.get(k)).max().copied().unwrap_or_default();
        *v = v.minus(max);
    }
}

/// Why no existing node took a pod: kube-scheduler's counts per reason, over `existing` nodes.
struct Refusals {
    existing: usize,
    counts: BTreeMap<String, usize>,
    /// `node: reason`, the first [`MAX_REJECTIONS`].
    nodes: Vec<String>,
}

impl Refusals {
    fn summary(&self) -> String {
        format!("0/{} nodes are available: {}", self.existing, summarise(&self.counts))
    }
}

impl<'w, 'c, 'a> Simulation<'w, 'c, 'a> {
    pub(super) fn new(world: &'w World<'c, 'a>, candidates: &[usize], options: Options) -> Self {
        let cluster = world.cluster;
        let mut queue: Vec<(&'a Pod, bool, bool)> = world.pending.iter().map(|p| (*p, true, false)).collect();
        let mut excluded = vec![false; cluster.nodes.len()];
        let mut excluded_list: Vec<usize> = candidates.iter().chain(&world.deleting).copied().collect();
        excluded_list.sort_unstable();
        excluded_list.dedup();
        for &i in &excluded_list {
            excluded[i] = true;
            let candidate = candidates.contains(&i);
            let lifted = options.lift_pod_gates && candidate;
            for p in &cluster.nodes[i].pods {
                if pod::is_reschedulable(p) && (lifted || !world.is_held(i, p)) {
                    queue.push((p, false, !candidate));
                }
            }
        }
        queue::sort(&mut queue, world);
        let remaining = remaining_limits(world, &excluded_list);
        Simulation {
            world,
            options,
            excluded,
            gone: PodIndex::new(
                excluded_list.iter().flat_map(|&i| world.nodes[i].pods.iter().map(move |p| (i, *p))),
                Some(Arc::clone(&world.selector_keys)),
            ),
            landed: PodIndex::new([], Some(Arc::clone(&world.selector_keys))),
            landed_anti: Vec::new(),
            placed: HashMap::new(),
            claims: Vec::new(),
            queue,
            results: Results::default(),
            remaining,
        }
    }

    pub(super) fn solve(&mut self) {
        let queue = std::mem::take(&mut self.queue);
        let mut failed_bound = 0;
        for (pod, pending, from_deleting) in queue {
            let key = pod.metadata.key();
            let (strict, outcome) = match self.place(pod, true) {
                Ok(target) => (true, Ok(target)),
                Err(_) => (false, self.place(pod, false)),
            };
            let detail = self.options.detail;
            let (to, why, rejections) = match outcome {
                // Pods from deleting nodes may count on a node still starting: upstream assumes
                // it comes up for the command that launched it (`deletingNodePodKeys`).
                Ok(Placement::Existing(i, _)) if !self.world.nodes[i].initialized && !from_deleting => {
                    let node = &self.world.cluster.nodes[i];
                    let claim = node.claim_name().unwrap_or_default();
                    let why = format!("would schedule against uninitialized nodeclaim/{claim}, node/{}", node.name);
                    (Destination::Nowhere, vec![why], Vec::new())
                }
                Ok(Placement::Existing(i, fit)) => {
                    (Destination::Existing(self.world.nodes[i].name.clone()), fit.into_iter().collect(), Vec::new())
                }
                Ok(Placement::Claim(i, opened)) => {
                    self.results.new_claims[i].pods.push(key.clone());
                    let mut why = if opened {
                        format!("new NodeClaim from nodepool/{}", self.claims[i].template.pool.metadata.name)
                    } else {
                        "NodeClaim opened earlier in this simulation".to_owned()
                    };
                    let mut rejections = Vec::new();
                    if detail {
                        let refusals = self.refusals(pod, strict);
                        why = format!("{why}; {}", refusals.summary());
                        rejections = refusals.nodes;
                    }
                    (Destination::New(i), vec![why], rejections)
                }
                Err(claim_errors) if detail || (!pending && failed_bound < ERRORS_LISTED) => {
                    let refusals = self.refusals(pod, false);
                    let mut why = vec![refusals.summary()];
                    if self.world.templates.is_empty() {
                        why.push("no NodePool can launch capacity for it".into());
                    }
                    why.extend(claim_errors);
                    (Destination::Nowhere, why, refusals.nodes)
                }
                Err(_) => (Destination::Nowhere, Vec::new(), Vec::new()),
            };
            if !pending && to == Destination::Nowhere {
                failed_bound += 1;
            }
            self.results.moves.push(PodMove { pod: key, pending, to, why, rejections });
        }
        for (i, claim) in self.claims.iter().enumerate() {
            let out = &mut self.results.new_claims[i];
            out.requirements = claim.labels.clone();
            out.requests = claim.requests.clone();
            out.instance_types = claim.instance_types.iter().map(|it| it.name.clone()).collect();
        }
    }

    /// Places the pod on the first existing node that takes it, else on an open claim (fewest
    /// pods first), else on a new claim; on failure, each NodePool's reason.
    fn place(&mut self, pod: &'a Pod, strict: bool) -> Result<Placement, Vec<String>> {
        let world = self.world;
        let requests = world.requests(pod);
        let fit = world.pod_fit(pod, strict);
        let rules = self.rules(pod, strict);
        let milli = |k: &str| requests.get(k).map_or(0, |q| q.milli());
        let (cpu, memory) = (milli("cpu"), milli("memory"));
        let universe = world.universe(ZONE);
        let zones = rules.allowed_values(ZONE, &universe);
        for i in fit.fits.with_room(cpu, memory, zones.as_ref()).map(|p| world.order[p]) {
            if self.excluded[i] || !self.has_room(i, cpu, memory) {
                continue;
            }
            if self.can_add_existing(i, pod, &requests, &fit.requirements, &rules, strict).is_ok() {
                let shown = self.options.detail.then(|| self.fit_text(i, &requests));
                let volumes = world.nodes[i].volume_usage.as_ref().map(|_| self.pod_volumes(pod));
                let placed = self.placed.entry(i).or_default();
                pod::add(&mut placed.used, &requests);
                placed.host_ports.extend(host_ports(pod));
                if let Some(volumes) = volumes {
                    super::volume_usage::union_into(&mut placed.volumes, &volumes);
                }
                self.land(Landing::Node(i), pod);
                return Ok(Placement::Existing(i, shown));
            }
        }
        let mut open: Vec<usize> = (0..self.claims.len()).collect();
        open.sort_by_key(|&i| self.claims[i].pods.len());
        for i in open {
            let claim = &self.claims[i];
            if let Ok((labels, types)) = self.can_add_claim(claim, pod, &requests, &fit.requirements, &rules, strict) {
                self.commit_claim(i, pod, &requests, labels, types);
                return Ok(Placement::Claim(i, false));
            }
        }
        let mut claim_errors = Vec::new();
        for template in &world.templates {
            let claim = Claim {
                template,
                name: format!("<new nodeclaim {}>", self.claims.len() + 1),
                labels: template.requirements.clone(),
                instance_types: template.instance_types.clone(),
                requests: Resources::new(),
                pods: Vec::new(),
                host_ports: Vec::new(),
            };
            match self.can_add_claim(&claim, pod, &requests, &fit.requirements, &rules, strict) {
                Ok((labels, types)) => {
                    self.claims.push(claim);
                    self.results.new_claims.push(NewClaim {
                        node_pool: template.pool.metadata.name.clone(),
                        requirements: Requirements::default(),
                        instance_types: Vec::new(),
                        pods: Vec::new(),
                        requests: Resources::new(),
                    });
                    let i = self.claims.len() - 1;
                    if let Some(left) = self.remaining.get_mut(template.pool.metadata.name.as_str()) {
                        subtract_max(left, &types);
                    }
                    self.commit_claim(i, pod, &requests, labels, types);
                    return Ok(Placement::Claim(i, true));
                }
                Err(e) => claim_errors.push(format!("nodepool/{}: {e}", template.pool.metadata.name)),
            }
        }
        Err(claim_errors)
    }

    /// Records where a pod landed, for the topology counts of the pods after it.
    pub(super) fn land(&mut self, at: Landing, pod: &'a Pod) {
        self.landed.push(at, pod);
        let terms = self.world.pod_terms(pod);
        if !terms.required_anti.is_empty() {
            self.landed_anti.push((at, terms, pod));
        }
    }

    /// The value of `key` where a landed pod is, when it is settled.
    fn landing_domain(&self, at: Landing, key: &str) -> Option<Cow<'_, str>> {
        match at {
            Landing::Node(i) => self.world.node_domain(i, key).map(Cow::Borrowed),
            Landing::Claim(c) => self.claim_fixed_domain(&self.claims[c], key).map(Cow::Owned),
        }
    }

    /// The pod's topology rules against the placements so far.
    fn rules(&self, pod: &Pod, strict: bool) -> topology::Rules {
        let terms = self.world.pod_terms(pod);
        if terms.is_empty()
            && self.world.anti_affinity_groups.is_empty()
            && self.claims.is_empty()
            && self.placed.is_empty()
        {
            return topology::Rules::default();
        }
        topology::prepare(pod, &terms, self, strict)
    }

    /// Every existing node's refusal of the pod, as kube-scheduler sums them up.
    fn refusals(&self, pod: &'a Pod, strict: bool) -> Refusals {
        let requests = self.world.requests(pod);
        let fit = self.world.pod_fit(pod, strict);
        let rules = self.rules(pod, strict);
        let mut out = Refusals { existing: 0, counts: BTreeMap::new(), nodes: Vec::new() };
        for &i in &self.world.order {
            if self.excluded[i] {
                continue;
            }
            out.existing += 1;
            if let Err(reason) = self.can_add_existing(i, pod, &requests, &fit.requirements, &rules, strict) {
                if out.nodes.len() < MAX_REJECTIONS {
                    out.nodes.push(format!("{}: {reason}", self.world.nodes[i].name));
                }
                *out.counts.entry(reason).or_default() += 1;
            }
        }
        out
    }
}

/// Where a placed pod is, for topology.
#[derive(Debug, Clone, Copy)]
pub(super) enum Landing {
    Node(usize),
    Claim(usize),
}

/// Where a pod was placed.
#[derive(Debug, Clone)]
enum Placement {
    /// An existing node, with the fit figures when explaining.
    Existing(usize, Option<String>),
    /// A claim of this simulation; `true` when the pod opened it.
    Claim(usize, bool),
}

impl View for Simulation<'_, '_, '_> {
    fn counts(&self, key: &str, filter: &PodFilter) -> Counts {
        let mut delta: BTreeMap<String, i64> = BTreeMap::new();
        let mut add = |domain: &str, n: i64| {
            if let Some(count) = delta.get_mut(domain) {
                *count += n;
            } else {
                delta.insert(domain.to_owned(), n);
            }
        };
        for (i, _) in self.gone.matching(filter) {
            if let Some(domain) = self.world.node_domain(i, key).filter(|_| self.world.counts_on(i, filter)) {
                add(domain, -1);
            }
        }
        for (at, _) in self.landed.matching(filter) {
            let counted = match at {
                Landing::Node(i) => self.world.counts_on(i, filter),
                Landing::Claim(c) => {
                    let claim = &self.claims[c];
                    filter.counts_on_claim(&claim.labels, &claim.template.taints, &super::node_claim::is_well_known)
                }
            };
            if let Some(domain) = self.landing_domain(at, key).filter(|_| counted) {
                add(&domain, 1);
            }
        }
        delta.retain(|_, n| *n != 0);
        Counts { base: self.world.base_counts(key, filter), delta }
    }

    fn universe(&self, key: &str) -> Rc<BTreeSet<String>> {
        self.world.universe(key)
    }

    fn spread_domains(&self, key: &str, filter: &PodFilter) -> Rc<BTreeSet<String>> {
        self.world.spread_domains(key, filter)
    }

    fn forbidden_by_existing(&self, pod: &Pod) -> BTreeMap<String, BTreeSet<String>> {
        let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for group in self.world.anti_affinity_groups.selecting(pod) {
            for &i in &group.nodes {
                if self.excluded[i] {
                    continue;
                }
                if let Some(domain) = self.world.node_domain(i, &group.key) {
                    out.entry(group.key.clone()).or_default().insert(domain.to_owned());
                }
            }
        }
        for (at, terms, holder) in &self.landed_anti {
            if std::ptr::eq(*holder, pod) {
                continue;
            }
            for (key, filter) in &terms.required_anti {
                if let Some(domain) = filter.matches(pod).then(|| self.landing_domain(*at, key)).flatten() {
                    out.entry(key.clone()).or_default().insert(domain.into_owned());
                }
            }
        }
        out
    }
}

pub(super) fn pod_from_deleting(pod: &Pod, cluster: &Cluster<'_>) -> bool {
    pod.status.phase.as_deref() == Some("Pending")
        || pod.spec.node_name.as_deref().and_then(|n| cluster.node(n)).is_some_and(StateNode::deleting)
}

/// kube-scheduler's "N reason, M reason" summary.
fn summarise(failures: &BTreeMap<String, usize>) -> String {
    failures.iter().map(|(reason, n)| format!("{n} {reason}")).collect::<Vec<_>>().join(", ")
}

pub(super) fn describe_resources(r: &Resources) -> String {
    let parts: Vec<String> = r.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    format!("{{{}}}", parts.join(", "))
}
