//! The scheduling loop: `Scheduler.Solve` with its `add` order (existing nodes, then the
//! NodeClaims this simulation opened, then new ones), the NodePool limits it tracks, and the
//! per-pod reasons it reports.
//!
//! Mirrors karpenter `pkg/controllers/provisioning/scheduling/scheduler.go` (`Solve`,
//! `trySchedule`, `add`, `addToExistingNode`, `addToInflightNode`, `addToNewNodeClaim`,
//! `calculateExistingNodeClaims`, `updateRemainingResources`, `subtractMax`).

use std::borrow::Cow;
use std::collections::BTreeMap;

use foldhash::{HashMap, HashMapExt};
use std::rc::Rc;
use std::sync::Arc;

use super::host_port_usage::HostPort;
use super::node_claim::claim::{placeholder_hostname, Claim};
use super::requirements::Requirements;
use super::results::{Destination, NewClaim, PodMove, Results};
use super::topology::{self, PodTerms};
use super::{pod_data, preferences, queue};
use crate::engine::incremental::pod_index::PodIndex;
use crate::engine::incremental::shared_pods::baseline::Tracker;
use crate::engine::incremental::world::World;
use crate::engine::labels::ZONE;
use crate::engine::pod;
use crate::engine::state::Cluster;
use crate::snapshot::{Pod, Resources};

pub use self::options::Options;

/// Karpenter's error for a pod asking for DRA devices while `IGNORE_DRA_REQUESTS` is on
/// (`scheduler.go add`, `NewDRAError`).
const DRA_UNSUPPORTED: &str =
    "pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter";

/// Said of a DRA pod placed with `IGNORE_DRA_REQUESTS=false` from v1.14.0: upstream then
/// allocates its devices from ResourceSlices (#3113), which the replay does not read. Before
/// v1.14.0 upstream ignores the claims too, so the placement is exact there.
const DRA_NOT_SIMULATED: &str =
    "its ResourceClaims were not simulated (IGNORE_DRA_REQUESTS=false): the destination is assumed to have the devices";

/// The version rules that made `pod` a DRA pod the simulation cannot place: #2384 always, and
/// #3124 when only its pod-level `resourceClaims` ask (its containers name no claim).
fn dra_rules_deciding(pod: &Pod, rules: &crate::rules::RuleSet) -> Vec<String> {
    use crate::rules::Rule;
    let by_containers =
        pod.spec.init_containers.iter().chain(&pod.spec.containers).any(|c| !c.resources.claims.is_empty());
    let mut deciding = vec![Rule::DraPodsUnschedulable];
    if !by_containers {
        deciding.push(Rule::DraPodLevelClaims);
    }
    deciding
        .into_iter()
        .filter_map(|r| rules.cite_if_active(r))
        .map(|cite| format!("a DRA pod by the {cite}"))
        .collect()
}

/// Why a pod that claims DRA devices was placed like any other at this version: the rule that
/// would have made it a DRA pod is not in force yet (#2384 before v1.7.0; #3124 before v1.14.0
/// for a pod whose containers name no claim).
fn dra_rules_not_deciding(pod: &Pod, rules: &crate::rules::RuleSet) -> Vec<String> {
    use crate::rules::Rule;
    let by_containers =
        pod.spec.init_containers.iter().chain(&pod.spec.containers).any(|c| !c.resources.claims.is_empty());
    if pod_data::has_dra_requirements(pod, rules) || (!by_containers && pod.spec.resource_claims.is_empty()) {
        return Vec::new();
    }
    let rule = if rules.has(Rule::DraPodsUnschedulable) { Rule::DraPodLevelClaims } else { Rule::DraPodsUnschedulable };
    rules.cite_if_inactive(rule).map(|why| format!("its DRA claims were ignored: {why}")).into_iter().collect()
}

/// How many failed bound pods Karpenter's error text lists.
const ERRORS_LISTED: usize = 5;

/// What a simulation changed on an existing node.
#[derive(Debug, Default, Clone)]
pub(in crate::engine) struct Placed {
    pub(in crate::engine) used: Resources,
    /// `used`'s cpu, memory and pods in milli-units, which every first-fit scan reads.
    pub(in crate::engine) used_cpu: i128,
    pub(in crate::engine) used_memory: i128,
    pub(in crate::engine) used_pods: i128,
    pub(in crate::engine) host_ports: Vec<HostPort>,
    /// Claims of the pods placed, on nodes with attach limits.
    pub(in crate::engine) volumes: super::volume_usage::Volumes,
}

pub(in crate::engine) struct Simulation<'w, 'c, 'a> {
    pub(in crate::engine) world: &'w World<'c, 'a>,
    pub(in crate::engine) options: Options,
    /// Indexed like the cluster's nodes: candidates and deleting nodes.
    pub(in crate::engine) excluded: Vec<bool>,
    /// The candidates that are not deleting: their pods in place leave their domains. Their
    /// indexes (`World::pods_on`) are built only when a topology count asks.
    pub(in crate::engine) gone: Vec<usize>,
    /// Pods this simulation placed, and those of them with required anti-affinity.
    pub(in crate::engine) landed: PodIndex<'a, Landing>,
    pub(in crate::engine) landed_anti: Vec<(Landing, Rc<PodTerms>, &'a Pod)>,
    pub(in crate::engine) placed: HashMap<usize, Placed>,
    pub(in crate::engine) claims: Vec<Claim<'w, 'a>>,
    /// Per pod (by address): whether it can land nowhere ([`Self::doomed`]).
    doomed: HashMap<usize, bool>,
    /// Per NodePool, a NodeClaim not opened yet, as of `fresh_for` claims opened.
    fresh: Vec<Option<Claim<'w, 'a>>>,
    fresh_for: usize,
    /// Pods to place, in the order they are tried: (pod, already pending, from a deleting node).
    pub(in crate::engine) queue: Vec<(&'a Pod, bool, bool)>,
    pub(in crate::engine) results: Results,
    /// Per NodePool with `spec.limits`: what is left of them (`scheduler.go remainingResources`).
    pub(in crate::engine) remaining: BTreeMap<String, Resources>,
    /// The shared pods' baseline placements and what this simulation changed against them
    /// (`shared_pods.rs`); `None` when nothing is shared or reuse does not apply.
    pub(in crate::engine) shared: Option<Tracker<'a>>,
}

impl<'w, 'c, 'a> Simulation<'w, 'c, 'a> {
    pub(in crate::engine) fn new(world: &'w World<'c, 'a>, candidates: &[usize], options: Options) -> Self {
        let cluster = world.cluster;
        let mut excluded = vec![false; cluster.nodes.len()];
        let mut excluded_list: Vec<usize> = candidates.iter().chain(&world.deleting).copied().collect();
        excluded_list.sort_unstable();
        excluded_list.dedup();
        for &i in &excluded_list {
            excluded[i] = true;
        }
        let mut own_candidates: Vec<usize> = candidates.to_vec();
        own_candidates.sort_unstable();
        own_candidates.dedup();
        let own = own_candidates.iter().flat_map(|&i| {
            let lifted = options.lift_pod_gates;
            let movers = cluster.nodes[i]
                .pods
                .iter()
                .filter(move |p| cluster.is_reschedulable(p) && (lifted || !world.is_held(i, p)));
            movers.enumerate().map(move |(j, p)| ((1 + i, j), (*p, false, false)))
        });
        let queue = if own_candidates.iter().any(|&i| world.is_deleting(i)) {
            // A deleting candidate's pods are its own here, not shared: everything is sorted.
            let shared = world.shared_gathered(&own_candidates);
            queue::keyed(shared.chain(own), world).into_iter().map(|(.., queued)| queued).collect()
        } else {
            // The shared pods are sorted once per world; only the candidates' pods are sorted here.
            queue::merged(world.shared_queue(), &queue::keyed(own, world))
        };
        let shared = queue.iter().filter(|&&(_, pending, from_deleting)| pending || from_deleting).count();
        let remaining = remaining_limits(world, &excluded_list);
        // The deleting nodes' pods are gone in every simulation: the world's staying counts
        // already leave them out, so only the candidates' own pods are tallied here.
        let gone = excluded_list.iter().filter(|&&i| !world.is_deleting(i));
        Simulation {
            world,
            options,
            excluded,
            gone: gone.copied().collect(),
            landed: PodIndex::new([], Some(Arc::clone(&world.selector_keys))),
            landed_anti: Vec::new(),
            placed: HashMap::new(),
            claims: Vec::new(),
            doomed: HashMap::new(),
            fresh: Vec::new(),
            fresh_for: 0,
            queue,
            results: Results::default(),
            remaining,
            shared: Tracker::new(world, candidates, options, shared),
        }
    }

    /// `Scheduler.Solve`: pops pods off the queue and tries each (relaxing its preferences one
    /// at a time); a pod that fails goes to the back and is tried again while the pass makes
    /// progress (`queue.go`), so a pod whose required affinity target lands later still lands.
    pub(in crate::engine) fn solve(&mut self) {
        let pods = std::mem::take(&mut self.queue);
        if self.options.decision_only {
            // A shared bound pod (a deleting node's mover) can be doomed only if it pins a
            // hostname, which the world answers once for all of its simulations.
            let may_be_doomed = |&(pod, pending, from_deleting): &(&'a Pod, bool, bool)| {
                !pending && (!from_deleting || self.world.is_pinned_mover(pod))
            };
            if let Some(&(pod, ..)) = pods.iter().find(|q| may_be_doomed(q) && self.doomed(q.0)) {
                let key = pod.metadata.key();
                let to = Destination::Nowhere;
                self.results.moves =
                    vec![PodMove { pod: key, pending: false, to, why: Vec::new(), rejections: Vec::new() }];
                return;
            }
        }
        let mut outcomes: Vec<Option<PodMove>> = vec![None; pods.len()];
        // Per pod: its last failed attempt, when that failure is to be spelled out.
        let mut unexplained: Vec<Option<Unexplained<'a>>> = vec![None; pods.len()];
        let mut queue = queue::Queue::new(pods.len());
        let mut failed_bound = 0;
        // NodeClaims holding a bound pod: a pod never leaves one, and a claim dropped at
        // finalisation leaves its pods with no place, so two of them already mean no command.
        let mut claims_with_bound: Vec<usize> = Vec::new();
        // The first pass over the queue tries each pod once, in order; failures come round after.
        let mut attempts = 0;
        // Before #2119 (v1.4.0) an attempt places the pod once and, failing, relaxes it one step
        // for its next attempt (`Solve` relaxed the queued pod in place): its copy as relaxed so
        // far, per queue position.
        let one_step = !self.world.cluster.rules().has(crate::rules::Rule::RelaxFullyPerAttempt);
        let mut relaxed_so_far: Vec<Option<Cow<'a, Pod>>> = if one_step { vec![None; pods.len()] } else { Vec::new() };
        while let Some(at) = queue.pop() {
            let (pod, pending, from_deleting) = pods[at];
            let first_attempt = attempts < pods.len();
            attempts += 1;
            let shared = pending || from_deleting;
            let reused = if first_attempt && shared { self.reusable_destination(pod) } else { None };
            let (outcome, tried) = match reused {
                Some(node) => {
                    let requests = self.world.requests(pod);
                    self.commit_existing(node, pod, &requests);
                    if let Some(tracker) = self.shared.as_mut() {
                        tracker.reused += 1;
                    }
                    (Ok(Placement::Existing(node, None)), Cow::Borrowed(pod))
                }
                None if one_step => self.try_once(pod, relaxed_so_far[at].take()),
                None => self.try_schedule(pod),
            };
            if first_attempt && shared {
                self.shared_attempted();
            }
            if first_attempt && reused.is_none() {
                self.track_first_attempt(pod, shared, Self::landing(&outcome));
            }
            let failed = outcome.is_err();
            // The next attempt's copy, one preference less, and whether one was dropped.
            let relaxed_step = (one_step && failed).then(|| {
                let mut next = tried.clone();
                let dropped = self.world.preferences.relax(&mut next).is_some();
                (next, dropped)
            });
            let was_failed_bound = outcomes[at].as_ref().is_some_and(|m| !m.pending && m.to == Destination::Nowhere);
            if was_failed_bound {
                failed_bound -= 1;
            }
            let (mv, why_not) = self.outcome(pod, tried, pending, from_deleting, outcome, failed_bound);
            if !pending && mv.to == Destination::Nowhere {
                failed_bound += 1;
            }
            if let (false, Destination::New(claim)) = (pending, &mv.to) {
                if !claims_with_bound.contains(claim) {
                    claims_with_bound.push(*claim);
                }
            }
            // A bound pod that landed and is still reported nowhere landed on a node not yet
            // initialized: upstream's error for it stands (a placement is never undone).
            let stranded = !pending && !failed && mv.to == Destination::Nowhere;
            outcomes[at] = Some(mv);
            unexplained[at] = why_not;
            match relaxed_step {
                Some((next, true)) => {
                    relaxed_so_far[at] = Some(next);
                    queue.push_relaxed(at);
                }
                Some((next, false)) => {
                    relaxed_so_far[at] = Some(next);
                    queue.push(at);
                }
                None if failed => queue.push(at),
                None => {}
            }
            if self.options.decision_only && (stranded || claims_with_bound.len() > 1) {
                // A bound pod on an uninitialized node fails the simulation; with two claims
                // holding bound pods, either both stay (more than one replacement) or a bound
                // pod is left without a place. No consolidation either way, whatever the rest
                // does.
                self.results.moves = outcomes.into_iter().flatten().collect();
                return;
            }
        }
        // Spelled out only now, once per pod that failed for good: the loop stops after a whole
        // cycle in which nothing landed, so the state now is the state each of those pods saw
        // on its last attempt, and the refusals read the same as they would have then.
        for (mv, why_not) in outcomes.iter_mut().zip(unexplained) {
            if let (Some(mv), Some(why_not)) = (mv.as_mut(), why_not) {
                let refusals = self.refusals(why_not.pod, &why_not.tried);
                let mut why = vec![refusals.summary()];
                if self.world.templates.is_empty() {
                    why.push("no NodePool can launch capacity for it".into());
                }
                why.extend(self.template_errors(why_not.pod, &why_not.tried));
                mv.why = why;
                mv.rejections = refusals.nodes;
            }
        }
        self.results.moves = outcomes.into_iter().flatten().collect();
        self.finalize();
    }

    /// Whether a bound pod can land nowhere in this simulation, whatever the other pods do:
    /// with every preference relaxed, its node requirements still pin `kubernetes.io/hostname`
    /// to nodes that are all excluded (candidates or deleting), and to no name a new NodeClaim
    /// could take (a claim's hostname is a placeholder, `NewNodeClaim`).
    fn doomed(&self, pod: &'a Pod) -> bool {
        // Relaxing only drops constraints, so a pod is pinned after it only if every
        // alternative names the hostname before it: the pod's requirements answer most pods.
        if !self.world.pins_hostname(pod) {
            return false;
        }
        self.world.relaxed_pins(pod).is_some_and(|ps| ps.iter().all(|&p| self.excluded[self.world.order[p]]))
    }

    /// One attempt: the pod as relaxed so far (`from`; none yet: the pod itself, with its
    /// preferences dropped under `PREFERENCE_POLICY=Ignore`) is added once. Relaxing it after
    /// a failure is the caller's: [`Self::try_schedule`] from v1.4.0, the queue before (`Solve`
    /// at v1.3.5).
    pub(in crate::engine) fn try_once(
        &mut self,
        pod: &'a Pod,
        from: Option<Cow<'a, Pod>>,
    ) -> (Result<Placement, Vec<String>>, Cow<'a, Pod>) {
        let first = from.is_none();
        let mut tried = from.unwrap_or(Cow::Borrowed(pod));
        // `scheduler.go add`: with IGNORE_DRA_REQUESTS (the default) a pod asking for DRA devices
        // gets a DRAError, which `trySchedule` returns without relaxing.
        if pod_data::has_dra_requirements(pod, self.world.cluster.rules()) && self.world.settings.ignore_dra_requests {
            return (Err(vec![DRA_UNSUPPORTED.to_owned()]), tried);
        }
        if first && self.world.settings.ignore_preferences {
            preferences::ignore_preferences(&mut tried);
        }
        let outcome = self.place_unless_doomed(pod, &tried);
        (outcome.map_err(|()| Vec::new()), tried)
    }

    /// `place`, except for a pod no relaxation can land: it fails every attempt, and only its
    /// copy as last tried, the one its refusals are written for, is still worked out. `place`
    /// says why only once the pass is over (`template_errors`).
    fn place_unless_doomed(&mut self, pod: &'a Pod, tried: &Pod) -> Result<Placement, ()> {
        if self.doomed_memo(pod) {
            return Err(());
        }
        self.place(pod, tried).map_err(|_| ())
    }

    /// `Scheduler.trySchedule`: adds the pod, relaxing one preference after each failure, on
    /// the pod's own copy; returns the outcome and the pod as last tried. Before #2119
    /// (v1.4.0) an attempt is [`Self::try_once`] alone: the first attempt of every pod (all a
    /// baseline asks) places it unrelaxed, once.
    pub(in crate::engine) fn try_schedule(&mut self, pod: &'a Pod) -> (Result<Placement, Vec<String>>, Cow<'a, Pod>) {
        let (outcome, mut tried) = self.try_once(pod, None);
        let relaxes = self.world.cluster.rules().has(crate::rules::Rule::RelaxFullyPerAttempt);
        // A DRA refusal (the one error with words) is returned without relaxing.
        if outcome.as_ref().is_ok() || outcome.as_ref().is_err_and(|e| !e.is_empty()) || !relaxes {
            return (outcome, tried);
        }
        loop {
            if self.world.preferences.relax(&mut tried).is_none() {
                return (Err(Vec::new()), tried);
            }
            if let Ok(placement) = self.place_unless_doomed(pod, &tried) {
                return (Ok(placement), tried);
            }
        }
    }

    /// [`Self::doomed`], asked once per pod and simulation.
    fn doomed_memo(&mut self, pod: &'a Pod) -> bool {
        // Most pods pin no hostname: their requirements say so without a memo of this one.
        if !self.world.pins_hostname(pod) {
            return false;
        }
        let key = crate::engine::incremental::pod_requests::address(pod);
        if let Some(&known) = self.doomed.get(&key) {
            return known;
        }
        let doomed = self.doomed(pod);
        self.doomed.insert(key, doomed);
        doomed
    }

    /// The pod's move as reported: where it went and why; for a failure to spell out, what
    /// [`Self::solve`] needs to do so once the pass is over.
    fn outcome(
        &self,
        pod: &'a Pod,
        tried: Cow<'a, Pod>,
        pending: bool,
        from_deleting: bool,
        outcome: Result<Placement, Vec<String>>,
        failed_bound: usize,
    ) -> (PodMove, Option<Unexplained<'a>>) {
        let key = pod.metadata.key();
        let detail = self.options.detail;
        let (to, mut why, rejections) = match outcome {
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
                let mut why = if opened {
                    format!("new NodeClaim from nodepool/{}", self.claims[i].template.pool.metadata.name)
                } else {
                    "NodeClaim opened earlier in this simulation".to_owned()
                };
                let mut rejections = Vec::new();
                if detail {
                    let refusals = self.refusals(pod, &tried);
                    why = format!("{why}; {}", refusals.summary());
                    rejections = refusals.nodes;
                }
                (Destination::New(i), vec![why], rejections)
            }
            Err(mut errors) if errors.first().is_some_and(|e| e == DRA_UNSUPPORTED) => {
                if detail {
                    errors.extend(dra_rules_deciding(pod, self.world.cluster.rules()));
                }
                (Destination::Nowhere, errors, Vec::new())
            }
            Err(_) if !self.options.decision_only && (detail || (!pending && failed_bound < ERRORS_LISTED)) => {
                let why_not = Unexplained { pod, tried };
                return (
                    PodMove { pod: key, pending, to: Destination::Nowhere, why: Vec::new(), rejections: Vec::new() },
                    Some(why_not),
                );
            }
            Err(_) => (Destination::Nowhere, Vec::new(), Vec::new()),
        };
        if pod_data::has_dra_requirements(pod, self.world.cluster.rules())
            && !self.world.settings.ignore_dra_requests
            && to != Destination::Nowhere
            && self.world.cluster.rules().version >= crate::rules::CoreVersion::new(1, 14, 0)
        {
            why.push(DRA_NOT_SIMULATED.to_owned());
        }
        if detail && to != Destination::Nowhere {
            why.extend(dra_rules_not_deciding(pod, self.world.cluster.rules()));
        }
        (PodMove { pod: key, pending, to, why, rejections }, None)
    }

    /// `Scheduler.add`: the first existing node that takes the pod (initialized first, then by
    /// name), else a NodeClaim this simulation opened (fewest pods first), else a new NodeClaim
    /// from the first NodePool (by weight) that takes it; on failure, each NodePool's reason.
    /// `pod` is the queued pod (what lands, what topology counts); `tried` its copy with the
    /// preferences relaxed so far (what is checked).
    fn place(&mut self, pod: &'a Pod, tried: &Pod) -> Result<Placement, Vec<String>> {
        let world = self.world;
        let requests = world.requests(pod);
        let fit = self.fit(pod, tried);
        let rules = self.rules(pod, tried);
        let milli = |k: &str| requests.get(k).map_or(0, |q| q.milli());
        let (cpu, memory) = (milli("cpu"), milli("memory"));
        let universe = world.universe(ZONE);
        let zones = rules.allowed_values(ZONE, &universe);
        for i in fit.fits.with_room([cpu, memory, milli("pods")], zones.as_ref()).map(|p| world.order[p]) {
            if self.excluded[i] || !self.has_room(i, cpu, memory) {
                continue;
            }
            if self.can_add_existing(i, tried, &requests, &fit.requirements, &rules).is_ok() {
                let shown = self.options.detail.then(|| self.fit_text(i, &requests));
                self.commit_existing(i, pod, &requests);
                return Ok(Placement::Existing(i, shown));
            }
        }
        let mut open: Vec<usize> = (0..self.claims.len()).collect();
        open.sort_by_key(|&i| self.claims[i].pods.len());
        for i in open {
            let claim = &self.claims[i];
            if let Ok(addition) = self.can_add_claim(claim, tried, &requests, &fit.requirements, &rules) {
                self.commit_claim(i, pod, &requests, addition);
                return Ok(Placement::Claim(i, false));
            }
        }
        // A NodeClaim not opened yet depends only on its NodePool and on how many this
        // simulation opened (its placeholder hostname): kept from one pod to the next.
        if self.fresh.len() != world.templates.len() || self.fresh_for != self.claims.len() {
            self.fresh = world.templates.iter().map(|_| None).collect();
            self.fresh_for = self.claims.len();
        }
        for (t, template) in world.templates.iter().enumerate() {
            let claim = self.fresh[t]
                .take()
                .unwrap_or_else(|| Claim::new(template, placeholder_hostname(self.claims.len() + 1)));
            let added = self.can_add_claim(&claim, tried, &requests, &fit.requirements, &rules).ok();
            let Some(addition) = added else {
                self.fresh[t] = Some(claim);
                continue;
            };
            if let Some(left) = self.remaining.get_mut(template.pool.metadata.name.as_str()) {
                subtract_max(left, &addition.types);
            }
            self.claims.push(claim);
            self.results.new_claims.push(NewClaim {
                node_pool: template.pool.metadata.name.clone(),
                requirements: Requirements::default(),
                instance_types: Vec::new(),
                ..NewClaim::default()
            });
            let i = self.claims.len() - 1;
            self.commit_claim(i, pod, &requests, addition);
            return Ok(Placement::Claim(i, true));
        }
        // Each NodePool's reason is written only for a pod that fails for good, by
        // [`Self::template_errors`] once the pass is over.
        Err(Vec::new())
    }

    /// Puts the pod on existing node `i`: its requests, host ports and claims, and its landing.
    fn commit_existing(&mut self, i: usize, pod: &'a Pod, requests: &Resources) {
        let volumes = self.world.nodes[i].volume_usage.as_ref().map(|_| self.pod_volumes(pod));
        let placed = self.placed.entry(i).or_default();
        pod::add(&mut placed.used, requests);
        let milli = |k: &str| placed.used.get(k).map_or(0, |q| q.milli());
        (placed.used_cpu, placed.used_memory, placed.used_pods) = (milli("cpu"), milli("memory"), milli("pods"));
        placed.host_ports.extend(self.world.host_ports(pod).iter().cloned());
        if let Some(volumes) = volumes {
            super::volume_usage::union_into(&mut placed.volumes, &volumes);
        }
        self.land(Landing::Node(i), pod);
    }

    /// Where an attempt left the pod in this simulation's state (before [`Self::outcome`] may
    /// still refuse an uninitialized node).
    pub(in crate::engine) fn landing(outcome: &Result<Placement, Vec<String>>) -> Option<Landing> {
        match outcome {
            Ok(Placement::Existing(i, _)) => Some(Landing::Node(*i)),
            Ok(Placement::Claim(i, _)) => Some(Landing::Claim(*i)),
            Err(_) => None,
        }
    }

    /// Each NodePool's reason for refusing the pod (as last tried), as `place` found them on
    /// its last attempt: asked only once the pass is over, when the state is still the one
    /// that attempt saw (see [`Self::solve`]).
    fn template_errors(&self, pod: &'a Pod, tried: &Pod) -> Vec<String> {
        let world = self.world;
        let requests = world.requests(pod);
        let fit = self.fit(pod, tried);
        let rules = self.rules(pod, tried);
        let hostname = placeholder_hostname(self.claims.len() + 1);
        world
            .templates
            .iter()
            .filter_map(|template| {
                let claim = Claim::new(template, hostname.clone());
                let refused = self.can_add_claim(&claim, tried, &requests, &fit.requirements, &rules).err()?;
                Some(format!("nodepool/{}: {refused}", template.pool.metadata.name))
            })
            .collect()
    }

    /// The pod's fit as tried: the queued pod's is memoised by address, a relaxed copy's by
    /// content only.
    pub(in crate::engine) fn fit(&self, pod: &'a Pod, tried: &Pod) -> Rc<crate::engine::incremental::world::PodFit> {
        if std::ptr::eq(pod, tried) {
            self.world.pod_fit(pod)
        } else {
            self.world.fit_by_fingerprint(tried)
        }
    }

    /// Records where a pod landed, for the topology counts of the pods after it.
    pub(in crate::engine) fn land(&mut self, at: Landing, pod: &'a Pod) {
        self.landed.push(at, pod);
        let terms = self.world.pod_terms(pod);
        if !terms.required_anti.is_empty() {
            self.landed_anti.push((at, terms, pod));
        }
    }

    /// The pod's topology rules against the placements so far.
    pub(in crate::engine) fn rules(&self, pod: &'a Pod, tried: &Pod) -> topology::Rules {
        let terms =
            if std::ptr::eq(pod, tried) { self.world.pod_terms(pod) } else { self.world.terms_by_content(tried) };
        if terms.is_empty()
            && self.world.anti_affinity_groups.is_empty()
            && self.claims.is_empty()
            && self.placed.is_empty()
        {
            return topology::Rules::default();
        }
        // Preferences still on the pod bind; relaxed ones are gone from its copy.
        topology::prepare(tried, &terms, self, true)
    }
}

/// A failed attempt whose refusals are still to be written: the pod and its copy as last
/// tried (preferences relaxed).
#[derive(Debug, Clone)]
struct Unexplained<'a> {
    pod: &'a Pod,
    tried: Cow<'a, Pod>,
}

/// Where a placed pod is, for topology.
#[derive(Debug, Clone, Copy)]
pub(in crate::engine) enum Landing {
    Node(usize),
    Claim(usize),
}

/// Where a pod was placed.
#[derive(Debug, Clone)]
pub(in crate::engine) enum Placement {
    /// An existing node, with the fit figures when explaining.
    Existing(usize, Option<String>),
    /// A claim of this simulation; `true` when the pod opened it.
    Claim(usize, bool),
}

pub(in crate::engine) fn pod_from_deleting(pod: &Pod, cluster: &Cluster<'_>) -> bool {
    pod.status.phase.as_deref() == Some("Pending")
        || pod
            .spec
            .node_name
            .as_deref()
            .and_then(|n| cluster.node(n))
            .is_some_and(|node| node.deleting(cluster.rules()))
}

pub(in crate::engine) fn describe_resources(r: &Resources) -> String {
    let parts: Vec<String> = r.iter().map(|(k, v)| format!("{k}: {v}")).collect();
    format!("{{{}}}", parts.join(", "))
}

mod finalize;
mod limits;
pub(in crate::engine) mod options;
#[cfg(test)]
mod tests;
mod view;

use limits::{remaining_limits, subtract_max};
