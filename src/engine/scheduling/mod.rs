//! The scheduling simulation that decides "can these pods move?": Karpenter's
//! `SimulateScheduling` → `Scheduler.Solve`, replayed on the snapshot.
//!
//! The pods to place are the pending ones, the candidates' currently reschedulable ones
//! (`pdb.go IsCurrentlyReschedulable`) and those of every deleting node — marked for deletion
//! or already queued for disruption ([`StateNode::deleting`]), which takes no pod itself. A pod
//! placed on a node still initializing fails the move (`would schedule against uninitialized
//! …`) unless it comes from a deleting node (`helpers.go` `deletingNodePodKeys`).
//!
//! Pods are queued by CPU then memory (descending), and each goes to the first existing node
//! that takes it (initialized first, then by name), else to a NodeClaim this simulation already
//! opened (fewest pods first), else to a new NodeClaim from the first NodePool (by weight) whose
//! template and instance types fit. Preferences are hard until relaxed. Not replayed: CSI
//! volume limits, DRA, reserved-offering pinning, the scheduler's own minValues check
//! (`NodeClaim.CanAdd`; the disruption side re-checks them, see `engine::min_values`), and
//! the one-at-a-time order of preference relaxation (all preferences are dropped at once).
//!
//! A simulation never copies the cluster: it reads the shared [`World`] and records only what
//! it changes (pods placed on existing nodes, the NodeClaims it opens).

mod pod_index;
pub mod requirements;
pub(crate) mod taints;
pub(crate) mod topology;
pub(crate) mod world;

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use foldhash::{HashMap, HashMapExt};
use std::rc::Rc;
use std::sync::Arc;

use self::pod_index::PodIndex;
use self::requirements::Requirements;
use self::topology::{Counts, PodFilter, PodTerms, View};
use self::world::{HostPort, Template};
pub use self::world::{PodsInPlace, World};
use super::labels::{CAPACITY_TYPE, HOSTNAME, INSTANCE_TYPE, ZONE};
use super::pod;
use super::state::{Cluster, StateNode};
use crate::quantity::Quantity;
use crate::snapshot::{InstanceType, Offering, Pod, Resources, Taint};

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
    /// `node: reason` for each existing node that refused it (at most [`MAX_REJECTIONS`]).
    pub rejections: Vec<String>,
}

/// How many per-node refusals a pod keeps for `explain -o wide`.
pub const MAX_REJECTIONS: usize = 20;

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
    /// What was simulated: the candidates removed, and how.
    pub candidates: Vec<usize>,
    pub options: Options,
}

impl Results {
    /// Karpenter's `not all pods would schedule, ns/p => error …` (at most 5 pods listed), or
    /// `None` when every pod that was bound found a place (`AllNonPendingPodsScheduled`).
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

/// Simulates removing `candidates` (indices into the cluster's nodes).
///
/// Mirrors [`crate::upstream::SIMULATE_SCHEDULING`].
pub fn simulate(world: &World<'_, '_>, candidates: &[usize], options: Options) -> Results {
    let mut sim = Simulation::new(world, candidates, options);
    sim.solve();
    sim.results.candidates = candidates.to_vec();
    sim.results.options = options;
    sim.results
}

/// Whether lifting the pod gates of node `i` moves more pods: it has a do-not-disrupt or fully
/// PDB-blocked pod that would otherwise stay.
pub fn gates_hold_pods(world: &World<'_, '_>, i: usize) -> bool {
    !world.held_on(i).is_empty()
}

/// The same simulation as `results` came from, with every pod explained.
pub fn with_detail(world: &World<'_, '_>, results: &Results) -> Results {
    if results.options.detail {
        return results.clone();
    }
    simulate(world, &results.candidates, Options { detail: true, ..results.options })
}

/// How many failed bound pods Karpenter's error text lists.
const ERRORS_LISTED: usize = 5;

/// What a simulation changed on an existing node.
#[derive(Debug, Default, Clone)]
struct Placed {
    used: Resources,
    host_ports: Vec<HostPort>,
}

/// A NodeClaim the simulation opened.
struct Claim<'w, 'a> {
    template: &'w Template<'a>,
    name: String,
    labels: Requirements,
    instance_types: Vec<&'a InstanceType>,
    requests: Resources,
    pods: Vec<&'a Pod>,
    host_ports: Vec<HostPort>,
}

struct Simulation<'w, 'c, 'a> {
    world: &'w World<'c, 'a>,
    options: Options,
    /// Indexed like the cluster's nodes: candidates and deleting nodes.
    excluded: Vec<bool>,
    /// Pods in place on excluded nodes: they leave their domains.
    gone: PodIndex<'a>,
    /// Pods this simulation placed, and those of them with required anti-affinity.
    landed: PodIndex<'a, Landing>,
    landed_anti: Vec<(Landing, Rc<PodTerms>, &'a Pod)>,
    placed: HashMap<usize, Placed>,
    claims: Vec<Claim<'w, 'a>>,
    /// Pods to place, in the order they are tried: (pod, already pending, from a deleting node).
    queue: Vec<(&'a Pod, bool, bool)>,
    results: Results,
    /// Per NodePool with `spec.limits`: what is left of them (`scheduler.go remainingResources`).
    remaining: BTreeMap<String, Resources>,
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
    fn new(world: &'w World<'c, 'a>, candidates: &[usize], options: Options) -> Self {
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
        queue.sort_by(|(a, ..), (b, ..)| {
            let (ra, rb) = (world.requests(a), world.requests(b));
            let get = |r: &Resources, k: &str| r.get(k).copied().unwrap_or_default();
            get(&rb, "cpu")
                .cmp(&get(&ra, "cpu"))
                .then_with(|| get(&rb, "memory").cmp(&get(&ra, "memory")))
                .then_with(|| a.metadata.creation_timestamp.cmp(&b.metadata.creation_timestamp))
                .then_with(|| a.metadata.uid.cmp(&b.metadata.uid))
                .then_with(|| a.metadata.key().cmp(&b.metadata.key()))
        });
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

    fn solve(&mut self) {
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
                let placed = self.placed.entry(i).or_default();
                pod::add(&mut placed.used, &requests);
                placed.host_ports.extend(host_ports(pod));
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
    fn land(&mut self, at: Landing, pod: &'a Pod) {
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

    /// A cheap necessary condition of `can_add_existing`: room for the cpu and memory.
    fn has_room(&self, i: usize, cpu: i128, memory: i128) -> bool {
        let node = &self.world.nodes[i];
        let used = |k: &str| self.placed.get(&i).and_then(|p| p.used.get(k)).map_or(0, |q| q.milli());
        world::room(node.free_cpu - used("cpu"), cpu) && world::room(node.free_memory - used("memory"), memory)
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

    fn can_add_existing(
        &self,
        i: usize,
        pod: &Pod,
        requests: &Resources,
        pod_reqs: &[Requirements],
        rules: &topology::Rules,
        strict: bool,
    ) -> Result<(), String> {
        let node = &self.world.nodes[i];
        let placed = self.placed.get(&i);
        if self.options.consolidation && node.under_consolidate_after && !pod_from_deleting(pod, self.world.cluster) {
            return Err("node(s) were under consolidateAfter (Karpenter won't move pods there yet)".into());
        }
        if let Some(taint) = taints::untolerated(&pod.spec.tolerations, &node.taints, !strict) {
            return Err(taints::message(taint));
        }
        let ports_taken = node.host_ports.iter().chain(placed.iter().flat_map(|p| p.host_ports.iter()));
        if host_port_conflict(pod, ports_taken) {
            return Err("node(s) didn't have free ports for the requested pod ports".into());
        }
        for (resource, want) in requests {
            if want.milli() > 0 && *want > self.free(i, resource) {
                return Err(if resource == "pods" {
                    "Too many pods".into()
                } else {
                    format!("Insufficient {resource}")
                });
            }
        }
        if !pod_reqs.iter().any(|r| node.admits(r)) {
            return Err("node(s) didn't match Pod's node affinity/selector".into());
        }
        if !rules.is_empty() {
            rules.admit_existing(&|key: &str| self.world.node_domain(i, key)).map_err(str::to_owned)?;
        }
        Ok(())
    }

    /// What is left of a resource on an existing node.
    fn free(&self, i: usize, resource: &str) -> Quantity {
        let base = self.world.nodes[i].available.get(resource).copied().unwrap_or_default();
        self.placed.get(&i).and_then(|p| p.used.get(resource)).map_or(base, |u| base.minus(*u))
    }

    /// "fits: cpu 500m/1900m free, memory 0.5/6.2Gi free", before the pod lands.
    fn fit_text(&self, i: usize, requests: &Resources) -> String {
        let gib = f64::from(1u32 << 30);
        format!(
            "fits: cpu {}/{} free, memory {:.1}/{:.1}Gi free",
            requests.get("cpu").copied().unwrap_or_default(),
            self.free(i, "cpu"),
            requests.get("memory").map_or(0.0, |q| q.as_f64()) / gib,
            self.free(i, "memory").as_f64() / gib
        )
    }

    /// Whether the pod fits the claim; the claim's new requirements and instance types if so.
    fn can_add_claim(
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

    fn fitting_types(
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

    fn commit_claim(
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
    fn claim_domain(&self, reqs: &Requirements, key: &str, claim_name: &str) -> BTreeSet<String> {
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
    fn claim_fixed_domain(&self, claim: &Claim<'_, '_>, key: &str) -> Option<String> {
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

/// Where a placed pod is, for topology.
#[derive(Debug, Clone, Copy)]
enum Landing {
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
            if let Some(domain) = self.world.node_domain(i, key) {
                add(domain, -1);
            }
        }
        for (at, _) in self.landed.matching(filter) {
            if let Some(domain) = self.landing_domain(at, key) {
                add(&domain, 1);
            }
        }
        delta.retain(|_, n| *n != 0);
        Counts { base: self.world.base_counts(key, filter), delta }
    }

    fn universe(&self, key: &str) -> Rc<BTreeSet<String>> {
        self.world.universe(key)
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

pub(crate) fn is_ephemeral_taint(t: &Taint) -> bool {
    matches!(
        t.key.as_str(),
        "node.kubernetes.io/not-ready"
            | "node.kubernetes.io/unreachable"
            | "karpenter.sh/unregistered"
            | "node.cloudprovider.kubernetes.io/uninitialized"
    ) || t.key.starts_with("readiness.k8s.io/")
}

/// Unbound pods the scheduler already gave up on (`PodScheduled=False, Unschedulable`).
pub(crate) fn is_provisionable(pod: &Pod) -> bool {
    pod::is_active(pod)
        && pod.status.nominated_node_name.as_deref().is_none_or(str::is_empty)
        && !pod::is_owned_by_daemonset(pod)
        && !pod::is_mirror(pod)
        && crate::snapshot::condition(&pod.status.conditions, "PodScheduled")
            .is_some_and(|c| c.status == "False" && c.reason.as_deref() == Some("Unschedulable"))
}

fn pod_from_deleting(pod: &Pod, cluster: &Cluster<'_>) -> bool {
    pod.status.phase.as_deref() == Some("Pending")
        || pod.spec.node_name.as_deref().and_then(|n| cluster.node(n)).is_some_and(StateNode::deleting)
}

/// The pod's node requirements: nodeSelector + each required affinity term (alternatives),
/// plus the heaviest preferred term while `strict`, plus the zones of its bound volumes.
pub(crate) fn node_requirements(pod: &Pod, strict: bool, cluster: &Cluster<'_>) -> Vec<Requirements> {
    let mut base = Requirements::from_labels(&pod.spec.node_selector);
    if !pod.spec.volumes.is_empty() {
        base.add_all(&super::volumes::volume_requirements(pod, cluster.snapshot));
    }
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

/// The values an instance type offers for a well-known key.
pub fn instance_type_values(it: &InstanceType, key: &str) -> Vec<String> {
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
    if it.labels.iter().any(|(k, v)| reqs.get(k).is_some_and(|r| !r.allows(v))) {
        return false;
    }
    // The AWS provider gives every type every `karpenter.k8s.aws/instance-*` key, absent ones
    // as `DoesNotExist` (`instancetype/types.go computeRequirements`): a type that carries
    // those labels but not this one fails `Exists`, `In`, `Gt`… on it (a GPU requirement
    // excludes CPU-only types).
    let from = (std::ops::Bound::Included(AWS_INSTANCE_LABEL), std::ops::Bound::Unbounded);
    let mut on_aws_keys = reqs.0.range::<str, _>(from).take_while(|(k, _)| k.starts_with(AWS_INSTANCE_LABEL));
    if on_aws_keys.any(|(k, r)| !it.labels.contains_key(k) && !r.allows_absent())
        && it.labels.range::<str, _>(from).next().is_some_and(|(k, _)| k.starts_with(AWS_INSTANCE_LABEL))
    {
        return false;
    }
    it.offerings.iter().any(|o| offering_compatible(o, reqs) && o.available)
}

/// The prefix of the AWS provider's instance-type labels (`pkg/apis/v1/labels.go`).
const AWS_INSTANCE_LABEL: &str = "karpenter.k8s.aws/instance-";

/// Whether an offering's zone and capacity type satisfy the requirements.
pub fn offering_compatible(o: &Offering, reqs: &Requirements) -> bool {
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

/// Orders instance types by their cheapest available offering compatible with `reqs`.
///
/// Mirrors karpenter `pkg/cloudprovider/types.go` `InstanceTypes.OrderByPrice`.
pub fn sort_by_cheapest(types: &mut [&InstanceType], reqs: &Requirements) {
    let price = |it: &InstanceType| {
        super::pricing::cheapest_price(it.offerings.iter().filter(|o| offering_compatible(o, reqs))).unwrap_or(f64::MAX)
    };
    types.sort_by(|a, b| price(a).total_cmp(&price(b)).then_with(|| a.name.cmp(&b.name)));
}

fn host_ports(pod: &Pod) -> Vec<HostPort> {
    pod.spec
        .containers
        .iter()
        .chain(&pod.spec.init_containers)
        .flat_map(|c| &c.ports)
        .filter_map(|p| {
            let port = p.host_port.filter(|p| *p > 0)?;
            let protocol = p.protocol.clone().unwrap_or_else(|| "TCP".into());
            Some((port, protocol, p.host_ip.clone().unwrap_or_else(|| "0.0.0.0".into())))
        })
        .collect()
}

fn host_port_conflict<'p>(pod: &Pod, mut used: impl Iterator<Item = &'p HostPort>) -> bool {
    let wanted = host_ports(pod);
    if wanted.is_empty() {
        return false;
    }
    let wild = |ip: &str| ip == "0.0.0.0" || ip == "::" || ip.is_empty();
    used.any(|(p, pr, i)| {
        wanted.iter().any(|(port, proto, ip)| p == port && pr == proto && (i == ip || wild(i) || wild(ip)))
    })
}

/// kube-scheduler's "N reason, M reason" summary.
fn summarise(failures: &BTreeMap<String, usize>) -> String {
    failures.iter().map(|(reason, n)| format!("{n} {reason}")).collect::<Vec<_>>().join(", ")
}

fn describe_resources(r: &Resources) -> String {
    let parts: Vec<String> = r.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    format!("{{{}}}", parts.join(", "))
}
