//! No upstream twin: what every simulation of one replay shares, computed once — each node as
//! a destination (labels, taints, free resources, pods), every pod's requests, the NodePools
//! that can launch capacity with their instance types and DaemonSet overhead, and memoised
//! topology counts.
//!
//! A simulation only records what it changes on top of this (see `Simulation`), so simulating
//! one candidate costs what its pods cost, not what the cluster costs.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use foldhash::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

use crate::engine::incremental::anti_affinity_index::{AntiAffinityGroups, TermsOf};
use crate::engine::incremental::fit_list::FitList;
use crate::engine::incremental::kept_pod_index::{InPlace, KeptPodIndex};
use crate::engine::incremental::pod_index::{selector_keys, IndexedKeys, PodIndex};
use crate::engine::incremental::pod_requests::{address, PodRequests};
use crate::engine::incremental::pod_table::position_in;
use crate::engine::incremental::refusal_memo::{CandidateKey, KeptRefusals, RoundShape};
use crate::engine::incremental::shared_pods::baseline::Baseline;
use crate::engine::incremental::world_memo::{
    answer_by_stamp, KeptAnswers, KeptCounts, KeptPerPod, KeptTerms, WorldMemo,
};
use crate::engine::labels::{selector_matches, HOSTNAME};
use crate::engine::pdb::Limits;
use crate::engine::pod;
use crate::engine::scheduling::existing_node::base::{base_node, BaseNode, DaemonPod};
use crate::engine::scheduling::fit_error::refusal_class::RefusalClass;
use crate::engine::scheduling::host_port_usage::{HostPort, HostPortTable};
use crate::engine::scheduling::instance_types::instance_type_values;
use crate::engine::scheduling::node_claim_template::{daemon_pods, templates, Template};
use crate::engine::scheduling::preferences::Preferences;
use crate::engine::scheduling::queue;
use crate::engine::scheduling::requirements::Requirements;
use crate::engine::scheduling::scheduler::options::Settings;
use crate::engine::scheduling::taints;
use crate::engine::scheduling::topology::{PodFilter, PodTerms};
use crate::engine::state::Cluster;
use crate::quantity::Quantity;
use crate::rules::Rule;
use crate::snapshot::{Pod, Resources};
use counts::DomainTable;
pub(crate) use fit_key::FitKey;

mod counts;
mod domain_filter;
pub(in crate::engine) mod fit_key;

/// Shared, read-only (but memoising) state of all simulations of one replay.
#[derive(Debug)]
pub struct World<'c, 'a> {
    pub cluster: &'c Cluster<'a>,
    /// Karpenter's settings the scheduler reads.
    pub(crate) settings: Settings,
    /// Whether the last relaxation (tolerating `PreferNoSchedule`) is available.
    pub(crate) preferences: Preferences,
    /// The pods the DaemonSets would run, from their templates (`daemonSetPods`).
    pub(crate) daemon_pods: Vec<Pod>,
    /// Indexed like `cluster.nodes`.
    pub nodes: Vec<BaseNode<'a>>,
    /// Destination order: initialized first, then by name.
    pub order: Vec<usize>,
    /// NodePools by weight (descending), then name (descending).
    pub templates: Vec<Template<'a>>,
    /// Resources of existing nodes per NodePool, every node included (reports show it).
    pub pool_usage: BTreeMap<String, Resources>,
    /// Required pod anti-affinity of the pods in place, grouped by term: one entry per distinct
    /// (topology key, selected pods), with the nodes of the pods holding it.
    pub anti_affinity_groups: AntiAffinityGroups,
    /// Unbound pods the scheduler gave up on: every simulation places them first.
    pub pending: Vec<&'a Pod>,
    /// Nodes deleting or queued for disruption ([`crate::engine::state::StateNode::deleting`]):
    /// their pods move in every simulation, and they take none.
    pub deleting: Vec<usize>,
    pub limits: Limits<'a>,
    /// Per node (computed when first asked): the pods that could move but that a
    /// do-not-disrupt annotation or a fully blocking PDB keeps in place, by address.
    held: Vec<std::cell::OnceCell<HashSet<usize>>>,
    /// Per node (built when first asked): its pods in place, indexed like `pods`, which every
    /// simulation with the node among its candidates takes out of the topology counts.
    pods_on: Vec<std::cell::OnceCell<PodIndex<'a>>>,
    /// Per pod, its requests; pods of one workload share one map.
    requests: PodRequests<'a>,
    /// Per pod, its host ports once asked.
    host_ports: HostPortTable<'a>,
    pods: PodsIndexed<'a>,
    /// The label keys some topology selector requires: the only ones worth a posting list.
    pub selector_keys: IndexedKeys,
    /// Per topology key, then filter: pods matching, per value (every node's pods).
    counts: RefCell<CountsMemo>,
    /// The same less the pods of the deleting nodes, which leave in every simulation.
    staying_counts: RefCell<CountsMemo>,
    /// Per topology key, every node's domain by number (see `world/counts.rs`).
    domain_tables: RefCell<HashMap<String, Rc<DomainTable>>>,
    /// The pods in place on deleting nodes, indexed like `pods`.
    deleting_pods: PodIndex<'a>,
    /// Per deleting node (as in `deleting`): the pods every simulation moves off it, those that
    /// can be rescheduled and that no gate holds (computed when first asked).
    deleting_movers: std::cell::OnceCell<Vec<Vec<&'a Pod>>>,
    /// The pending pods and the deleting nodes' movers in queue order, with their sort keys:
    /// what every simulation queues beside its candidates' pods (`queue.rs` `merged`).
    shared_queue: std::cell::OnceCell<Vec<queue::Keyed<'a>>>,
    /// Per node, whether the provisioner's pass puts a capacity buffer's virtual pod on it
    /// (computed when first asked, by `method/emptiness.rs` `buffer_hosts`).
    buffer_hosts: std::cell::OnceCell<Vec<bool>>,
    /// The keys (`ns/name`) of the capacity buffers' virtual pods, to tell them apart in a
    /// simulation's moves (built when first asked).
    virtual_pod_keys: std::cell::OnceCell<HashSet<String>>,
    /// The deleting nodes' movers (by address) whose fit pins a hostname, once asked.
    pinned_movers: std::cell::OnceCell<HashSet<usize>>,
    universes: RefCell<HashMap<String, Rc<BTreeSet<String>>>>,
    /// Per key and spread node filter: the spread's registered domains (`topology.rs`).
    spread_domains: RefCell<HashMap<String, Rc<BTreeSet<String>>>>,
    /// Per pod and pass, and shared by pods with the same requirements and tolerations.
    pod_fits: RefCell<HashMap<usize, Rc<PodFit>>>,
    shared_fits: RefCell<HashMap<String, Rc<PodFit>>>,
    /// Per controller (kind/namespace/name) and pass: pods already judged, with their fit. A
    /// sibling with the same selector, affinity and tolerations shares it without the
    /// fingerprint (formatting it is most of the cost of a fit).
    sibling_fits: RefCell<HashMap<SiblingKey<'a>, Siblings<'a>>>,
    /// Per pod with topology terms, and shared by pods with the same terms.
    pod_terms: RefCell<HashMap<usize, Rc<PodTerms>>>,
    /// A forecast's terms per pod position, kept across rounds (see `world_memo.rs`).
    kept_terms: Option<KeptTerms>,
    /// A forecast's fit keys per pod position, kept across rounds.
    kept_fit_keys: Option<KeptPerPod<FitKey>>,
    /// A forecast's static answers per fit fingerprint and node stamp, kept across rounds.
    kept_answers: Option<KeptAnswers>,
    /// A forecast's counts of the pods in place, kept across rounds (see `world_memo.rs`).
    kept_counts: Option<KeptCounts>,
    /// A forecast's answers per topology node filter and node stamp, kept across rounds.
    kept_filter_answers: Option<KeptAnswers>,
    /// A forecast's SingleNode refusals, kept across rounds (see `refusal_memo.rs`).
    kept_refusals: Option<KeptRefusals>,
    shared_terms: RefCell<HashMap<String, Rc<PodTerms>>>,
    no_terms: Rc<PodTerms>,
    /// Destination positions (in `order`) per `kubernetes.io/hostname` value, built when a pod
    /// pinned by hostname first asks: its static fit is then a lookup, not a pass over every node.
    by_hostname: std::cell::OnceCell<HashMap<String, Vec<usize>>>,
    /// The shared pods placed with no candidate removed, without and with consolidation's
    /// destination rule (`shared_pods.rs`).
    shared_baselines: [std::cell::OnceCell<Rc<Baseline>>; 2],
    /// Per class of pods (requests, tolerations, pass): every node's answer before its labels
    /// (`fit_error.rs`).
    refusal_classes: RefCell<HashMap<String, Rc<RefusalClass>>>,
    /// Per pod (by address): [`World::relaxed_pins`].
    relaxed_pins: RefCell<HashMap<usize, Option<Rc<[usize]>>>>,
}

/// Counts per value, memoised by topology key, then by the filter's cache key (looked up by
/// `&str`, with no key to format).
type CountsMemo = HashMap<String, HashMap<String, Rc<BTreeMap<String, i64>>>>;

/// Pods of one controller already judged, each with its fit.
type Siblings<'a> = Vec<(&'a Pod, Rc<PodFit>)>;

/// Whether every alternative pins `kubernetes.io/hostname` ([`PodFit::pins_hostname`]).
fn pins_hostname(requirements: &[Requirements]) -> bool {
    requirements.iter().all(|r| r.get(HOSTNAME).is_some())
}

/// A controller's kind, namespace and name ([`sibling_key`]).
type SiblingKey<'a> = (&'a str, &'a str, &'a str);

/// The active pods on existing nodes, indexed for topology counts, and the label keys the
/// index keeps. Built from the cluster alone (see [`World::with_pods_in_place`]).
#[derive(Debug)]
pub struct PodsInPlace<'a> {
    selector_keys: IndexedKeys,
    index: PodIndex<'a>,
}

impl<'a> PodsInPlace<'a> {
    pub fn new(cluster: &Cluster<'a>) -> Self {
        let selector_keys = selector_keys(&cluster.snapshot.pods);
        // The same pods, in the same order, as each base node's `pods`.
        let active = cluster
            .nodes
            .iter()
            .enumerate()
            .flat_map(|(i, n)| n.pods.iter().copied().filter(|p| pod::is_active(p)).map(move |p| (i, p)));
        let index = PodIndex::new(active, Some(Arc::clone(&selector_keys)));
        PodsInPlace { selector_keys, index }
    }
}

/// The index of the pods in place: built for this round, or kept by a forecast.
#[derive(Debug)]
enum PodsIndexed<'a> {
    Built(PodIndex<'a>),
    Kept(InPlace),
}

/// What never changes about one pod (or one relaxed copy of it) during a replay.
#[derive(Debug)]
pub struct PodFit {
    /// Alternatives (required node affinity terms), each with the selector, the volumes'
    /// zones and the heaviest preferred term.
    pub requirements: Rc<[Requirements]>,
    pub fits: FitList,
    /// [`Self::pins_hostname`], worked out once: every simulation asks it of every bound pod.
    pins_hostname: bool,
}

impl PodFit {
    fn new(requirements: Rc<[Requirements]>, fits: FitList) -> Self {
        let pins_hostname = pins_hostname(&requirements);
        PodFit { requirements, fits, pins_hostname }
    }

    /// Whether every alternative pins `kubernetes.io/hostname`: the first condition for a pod
    /// to land nowhere once its named nodes are removed (`Simulation::doomed`).
    pub fn pins_hostname(&self) -> bool {
        self.pins_hostname
    }
}

impl queue::RequestsLookup for World<'_, '_> {
    fn requests(&self, pod: &Pod) -> Cow<'_, Resources> {
        World::requests(self, pod)
    }
}

impl<'c, 'a> World<'c, 'a> {
    pub fn new(cluster: &'c Cluster<'a>) -> Self {
        Self::with_pods_in_place(cluster, || PodsInPlace::new(cluster))
    }

    /// Builds the world, asking for the pods in place once its own nodes are built (so that
    /// they can be indexed elsewhere meanwhile).
    pub fn with_pods_in_place(cluster: &'c Cluster<'a>, pods_in_place: impl FnOnce() -> PodsInPlace<'a>) -> Self {
        Self::build(cluster, Some(pods_in_place), None, Limits::new(&cluster.snapshot.pdbs).with_rules(cluster.rules()))
    }

    /// The same, reusing what `memo` kept of an earlier round's world (and keeping this
    /// round's for the next); `limits` are the cluster's PDBs.
    pub(crate) fn reusing(cluster: &'c Cluster<'a>, memo: &mut WorldMemo, limits: Limits<'a>) -> Self {
        Self::build(cluster, None::<fn() -> PodsInPlace<'a>>, Some(memo), limits)
    }

    /// `pods_in_place` is asked for when there is no `memo` (which keeps its own index).
    fn build(
        cluster: &'c Cluster<'a>,
        pods_in_place: Option<impl FnOnce() -> PodsInPlace<'a>>,
        mut memo: Option<&mut WorldMemo>,
        limits: Limits<'a>,
    ) -> Self {
        let settings = Settings::of(cluster.snapshot);
        let daemon_pods = daemon_pods(cluster, settings.ignore_dra_requests);
        let sizing = crate::engine::pod::Sizing::of(cluster.rules());
        let daemons: Vec<DaemonPod<'_>> = daemon_pods.iter().map(|p| DaemonPod::new(p, sizing)).collect();
        let kept_terms = memo.as_deref().map(|m| m.terms_for(&cluster.snapshot.pods));
        let kept_fit_keys = memo.as_deref().map(|m| m.fit_keys_for(&cluster.snapshot.pods));
        let kept_answers = memo.as_deref().map(|m| Rc::clone(&m.static_answers));
        let kept_counts = memo.as_deref().map(|m| Rc::clone(&m.counts));
        let kept_filter_answers = memo.as_deref().map(|m| Rc::clone(&m.node_filter_answers));
        let kept_refusals = memo.as_deref().map(|m| Rc::clone(&m.refusals));
        let (requests, nodes) = match memo.as_deref_mut() {
            None => {
                let requests = PodRequests::new(&cluster.snapshot.pods, sizing);
                let nodes = cluster.nodes.iter().map(|n| base_node(cluster, n, &requests, &daemons)).collect();
                (requests, nodes)
            }
            Some(memo) => {
                let requests = PodRequests::reusing(&cluster.snapshot.pods, &mut memo.requests, sizing);
                let nodes: Vec<BaseNode<'a>> =
                    cluster.nodes.iter().map(|n| memo.base_nodes.base_node(cluster, n, &requests, &daemons)).collect();
                memo.base_nodes.keep_only(cluster);
                memo.refusals.borrow_mut().begin_round(memo.base_nodes.unchanged());
                (requests, nodes)
            }
        };
        drop(daemons);
        // Kept counts are checked against the nodes' stamps: every node needs one (0 is none).
        let kept_counts = kept_counts.filter(|_| nodes.iter().all(|n: &BaseNode<'_>| n.stamp != 0));
        let mut order: Vec<usize> = (0..nodes.len()).collect();
        order.sort_by(|&a, &b| (!nodes[a].initialized, &nodes[a].name).cmp(&(!nodes[b].initialized, &nodes[b].name)));
        let mut by_pool: BTreeMap<&str, (Resources, i128)> = BTreeMap::new();
        for n in &nodes {
            if let Some(pool) = n.pool() {
                let (capacity, count) = by_pool.entry(pool).or_default();
                pod::add(capacity, &n.capacity);
                *count += 1;
            }
        }
        let pool_usage: BTreeMap<String, Resources> = by_pool
            .into_iter()
            .map(|(pool, (mut usage, count))| {
                pod::add(&mut usage, &Resources::from([("nodes".to_owned(), Quantity::from_units(count))]));
                (pool.to_owned(), usage)
            })
            .collect();
        let (selector_keys, pods) = match (memo, pods_in_place) {
            (Some(memo), _) => {
                let kept = KeptPodIndex::covering(memo.pods_in_place.take(), &cluster.snapshot.pods);
                memo.pods_in_place = Some(Rc::clone(&kept));
                (Arc::clone(kept.keys()), PodsIndexed::Kept(InPlace::new(kept, cluster)))
            }
            (None, Some(build)) => {
                let PodsInPlace { selector_keys, index } = build();
                (selector_keys, PodsIndexed::Built(index))
            }
            (None, None) => {
                let PodsInPlace { selector_keys, index } = PodsInPlace::new(cluster);
                (selector_keys, PodsIndexed::Built(index))
            }
        };
        let pending = cluster
            .unbound_pods
            .iter()
            .copied()
            .filter(|p| crate::engine::scheduling::pod_data::is_provisionable(p))
            .filter(|p| crate::engine::scheduling::pending_filter::rejection(p, cluster).is_none())
            // The buffers' virtual pods come after the provisioner's `Validate` filter
            // (`Provisioner.GetPendingPods`): none of its checks reads them.
            .chain(&cluster.snapshot.virtual_pods)
            .collect();
        let deleting: Vec<usize> =
            (0..cluster.nodes.len()).filter(|&i| cluster.nodes[i].deleting(cluster.rules())).collect();
        let deleting_pods = PodIndex::new(
            deleting.iter().flat_map(|&i| nodes[i].pods.iter().map(move |p| (i, *p))),
            Some(Arc::clone(&selector_keys)),
        );
        let held = cluster.nodes.iter().map(|_| std::cell::OnceCell::new()).collect();
        let pods_on = cluster.nodes.iter().map(|_| std::cell::OnceCell::new()).collect();
        let mut world = World {
            cluster,
            settings,
            preferences: Preferences::default(),
            daemon_pods,
            nodes,
            order,
            templates: Vec::new(),
            pool_usage,
            anti_affinity_groups: AntiAffinityGroups::default(),
            pending,
            deleting,
            limits,
            held,
            pods_on,
            requests,
            host_ports: HostPortTable::new(&cluster.snapshot.pods),
            pods,
            selector_keys,
            counts: RefCell::default(),
            staying_counts: RefCell::default(),
            domain_tables: RefCell::default(),
            deleting_pods,
            deleting_movers: std::cell::OnceCell::new(),
            shared_queue: std::cell::OnceCell::new(),
            buffer_hosts: std::cell::OnceCell::new(),
            virtual_pod_keys: std::cell::OnceCell::new(),
            pinned_movers: std::cell::OnceCell::new(),
            universes: RefCell::default(),
            spread_domains: RefCell::default(),
            pod_fits: RefCell::default(),
            shared_fits: RefCell::default(),
            sibling_fits: RefCell::default(),
            pod_terms: RefCell::default(),
            kept_terms,
            kept_fit_keys,
            kept_answers,
            kept_counts,
            kept_filter_answers,
            kept_refusals,
            shared_terms: RefCell::default(),
            no_terms: Rc::default(),
            by_hostname: std::cell::OnceCell::new(),
            shared_baselines: Default::default(),
            refusal_classes: RefCell::default(),
            relaxed_pins: RefCell::default(),
        };
        // A forecast keeps each pod's terms from round to round: the groups read their filters.
        let groups = {
            let terms_of = |p: &Pod| world.pod_terms(p);
            let kept: Option<TermsOf<'_>> = world.kept_terms.is_some().then_some(&terms_of);
            AntiAffinityGroups::new(&world.nodes, cluster, kept)
        };
        world.anti_affinity_groups = groups;
        world.templates = templates(world.cluster, &world.daemon_pods);
        world.preferences = Preferences::new(world.templates.iter().flat_map(|t| &t.taints));
        world
    }

    /// The shared pods' baseline for simulations with (or without) consolidation's rules.
    pub(in crate::engine) fn shared_baseline(&self, consolidation: bool) -> Rc<Baseline> {
        let cell = &self.shared_baselines[usize::from(consolidation)];
        Rc::clone(cell.get_or_init(|| Rc::new(Baseline::new(self, consolidation))))
    }

    /// Whether this world keeps SingleNode's decision-only refusals across a forecast's rounds.
    pub(in crate::engine) fn keeps_refusals(&self) -> bool {
        self.kept_refusals.is_some()
    }

    /// The decision-only refusal a forecast kept of node `i` under `key`, when nothing the
    /// simulation reads has changed since (see `refusal_memo.rs`).
    pub(in crate::engine) fn kept_refusal(&self, i: usize, key: &CandidateKey) -> Option<crate::reason::Reason> {
        self.kept_refusals.as_ref()?.borrow_mut().get(|| self.round_shape(), i, key)
    }

    /// Keeps node `i`'s decision-only refusal under `key` for the forecast's next rounds.
    pub(in crate::engine) fn keep_refusal(&self, i: usize, key: CandidateKey, reason: crate::reason::Reason) {
        if let Some(kept) = &self.kept_refusals {
            kept.borrow_mut().keep(|| self.round_shape(), i, key, reason);
        }
    }

    /// Node `i`'s key for the kept refusals, priced at `price` (point 3 of `refusal_memo.rs`).
    pub(in crate::engine) fn candidate_key(&self, i: usize, price: Option<f64>) -> CandidateKey {
        let pods = &self.cluster.snapshot.pods;
        let node = &self.cluster.nodes[i];
        let held = node.pods.iter().filter(|p| self.is_held(i, p)).map(|p| position_in(pods, p)).collect();
        CandidateKey::new(held, price)
    }

    /// What a decision-only simulation reads of this round beyond its nodes (point 2 of
    /// `refusal_memo.rs`).
    fn round_shape(&self) -> RoundShape {
        let pods = &self.cluster.snapshot.pods;
        let positions = |list: &[&Pod]| list.iter().map(|p| position_in(pods, p)).collect::<Vec<_>>();
        RoundShape {
            pods: pods.len(),
            status: self.cluster.pod_status(),
            pending: positions(&self.pending),
            deleting: self.deleting.clone(),
            deleting_movers: self.deleting_movers().iter().map(|m| positions(m)).collect(),
            under_consolidate_after: self.nodes.iter().map(|n| n.under_consolidate_after).collect(),
        }
    }

    /// The refusal class under `key`, built once.
    pub(in crate::engine) fn refusal_class(
        &self,
        key: String,
        build: impl FnOnce() -> RefusalClass,
    ) -> Rc<RefusalClass> {
        if let Some(hit) = self.refusal_classes.borrow().get(&key) {
            return Rc::clone(hit);
        }
        let class = Rc::new(build());
        self.refusal_classes.borrow_mut().insert(key, Rc::clone(&class));
        class
    }

    /// Whether the pod, on node `node`, could move but its do-not-disrupt annotation or a PDB
    /// keeps it.
    pub fn is_held(&self, node: usize, pod: &Pod) -> bool {
        self.held_on(node).contains(&address(pod))
    }

    /// The pods of node `i` that its gates hold: what every simulation leaves out of it, as a
    /// candidate or as a deleting node. None before #2033 (v1.4.0, backported to v1.0.7,
    /// v1.1.3, v1.2.3, v1.3.3), where every reschedulable pod was simulated.
    ///
    /// Mirrors karpenter `pkg/controllers/disruption/helpers.go` `SimulateScheduling` (its
    /// filter of the candidates' pods) and `StateNodes.CurrentlyReschedulablePods`.
    pub fn held_on(&self, i: usize) -> &HashSet<usize> {
        self.held[i].get_or_init(|| {
            let cluster = self.cluster;
            if !cluster.rules().has(Rule::SimulateExcludesFullyBlockedPods) {
                return HashSet::default();
            }
            self.held_by_pdb_or_annotation(i).map(address).collect()
        })
    }

    /// The pods in place on node `i`, indexed for the topology counts: a simulation with the
    /// node among its candidates subtracts those its filters select. Built once per world, not
    /// once per simulation: a round simulates each candidate at least once, MultiNode many
    /// times over.
    pub(in crate::engine) fn pods_on(&self, i: usize) -> &PodIndex<'a> {
        self.pods_on[i].get_or_init(|| {
            PodIndex::new(self.nodes[i].pods.iter().map(|p| (i, *p)), Some(Arc::clone(&self.selector_keys)))
        })
    }

    /// The reschedulable pods of node `i` that a do-not-disrupt annotation or a fully blocking
    /// PDB keeps in place (`pdb.go IsCurrentlyReschedulable`), whether or not the version
    /// leaves them out of the simulation.
    pub(in crate::engine) fn held_by_pdb_or_annotation(&self, i: usize) -> impl Iterator<Item = &'a Pod> + '_ {
        let cluster = self.cluster;
        cluster.nodes[i].pods.iter().copied().filter(move |p| {
            // The table's facts spare reading every owner reference again: the limits
            // are asked of the pod as written, as the PDB check always was.
            cluster.is_reschedulable(p)
                && !self.limits.is_currently_reschedulable_given(p, cluster.now, cluster.is_reschedulable_as_written(p))
        })
    }

    /// A pod's effective requests (computed once for the snapshot's pods).
    pub fn requests(&self, pod: &Pod) -> Cow<'_, Resources> {
        self.requests.get(pod).map_or_else(|| Cow::Owned(self.requests.compute(pod)), |r| Cow::Borrowed(&**r))
    }

    /// The pods every simulation queues whatever its candidates (when none of them is
    /// deleting): the pending pods and the deleting nodes' movers, in queue order.
    /// The per-node answer of `method/emptiness.rs` `buffer_hosts`, kept for the round.
    pub(in crate::engine) fn buffer_hosts_cell(&self) -> &std::cell::OnceCell<Vec<bool>> {
        &self.buffer_hosts
    }

    /// Whether the pod a simulation's move names (`ns/name`) is a capacity buffer's virtual pod.
    pub(in crate::engine) fn is_virtual_pod(&self, key: &str) -> bool {
        let virtual_pods = &self.cluster.snapshot.virtual_pods;
        !virtual_pods.is_empty()
            && self
                .virtual_pod_keys
                .get_or_init(|| virtual_pods.iter().map(|p| p.metadata.key()).collect())
                .contains(key)
    }

    pub(in crate::engine) fn shared_queue(&self) -> &[queue::Keyed<'a>] {
        self.shared_queue.get_or_init(|| queue::keyed(self.shared_gathered(&[]), self))
    }

    /// Whether `pod`, a mover of a deleting node, pins a hostname ([`PodFit::pins_hostname`]):
    /// asked of the same shared pods by every decision-only simulation of the world, so
    /// answered once per world for all of them.
    pub(in crate::engine) fn is_pinned_mover(&self, pod: &Pod) -> bool {
        let pinned = self.pinned_movers.get_or_init(|| {
            let movers = self.deleting_movers().iter().flatten();
            movers.filter(|p| self.pins_hostname(p)).map(|p| address(p)).collect()
        });
        pinned.contains(&address(pod))
    }

    /// The pending pods and the movers of the deleting nodes not in `candidates` (sorted: a
    /// deleting candidate's pods are its own), with where each was gathered from.
    pub(in crate::engine) fn shared_gathered<'s>(
        &'s self,
        candidates: &'s [usize],
    ) -> impl Iterator<Item = (queue::Gathered, queue::Queued<'a>)> + 's {
        let pending = self.pending.iter().enumerate().map(|(k, p)| ((0, k), (*p, true, false)));
        let deleting = self.deleting.iter().zip(self.deleting_movers());
        let movers = deleting
            .filter(|(i, _)| candidates.binary_search(i).is_err())
            .flat_map(|(&i, movers)| movers.iter().enumerate().map(move |(j, p)| ((1 + i, j), (*p, false, true))));
        pending.chain(movers)
    }

    /// The host ports a pod asks for (`host_port_usage.rs`), kept per pod of the snapshot.
    pub(in crate::engine) fn host_ports(&self, pod: &Pod) -> Cow<'_, [HostPort]> {
        self.host_ports.of(pod)
    }

    /// The pod's node requirements and the nodes that statically accept it, for one pass
    /// (memoised per pod, and shared by pods with the same requirements and tolerations).
    pub fn pod_fit(&self, pod: &'a Pod) -> Rc<PodFit> {
        let key = address(pod);
        if let Some(hit) = self.pod_fits.borrow().get(&key) {
            return Rc::clone(hit);
        }
        let family = sibling_key(pod);
        let sibling = family.as_ref().and_then(|f| {
            let siblings = self.sibling_fits.borrow();
            siblings.get(f)?.iter().find(|(other, _)| same_fit_inputs(pod, other)).map(|(_, fit)| Rc::clone(fit))
        });
        let fit = sibling.unwrap_or_else(|| {
            let fit = self.fit_of_snapshot_pod(pod);
            if let Some(f) = family {
                self.sibling_fits.borrow_mut().entry(f).or_default().push((pod, Rc::clone(&fit)));
            }
            fit
        });
        self.pod_fits.borrow_mut().insert(key, Rc::clone(&fit));
        fit
    }

    /// The same, for a pod not memoised by address (a relaxed copy): shared by content only.
    pub fn fit_by_fingerprint(&self, pod: &Pod) -> Rc<PodFit> {
        self.fit_for(&FitKey::new(pod, self.cluster), pod)
    }

    /// The fit of a pod of the snapshot: its key kept across a forecast's rounds when there
    /// is a memo (the key is its formatted requirements, most of a fit's cost).
    fn fit_of_snapshot_pod(&self, pod: &Pod) -> Rc<PodFit> {
        match self.kept_fit_key(pod) {
            Some(key) => self.fit_for(&key, pod),
            None => self.fit_by_fingerprint(pod),
        }
    }

    /// A snapshot pod's fit key as a forecast keeps it across rounds (worked out and kept on
    /// first ask); `None` without a memo, or for a pod not of the snapshot.
    fn kept_fit_key(&self, pod: &Pod) -> Option<Rc<FitKey>> {
        let kept = self.kept_fit_keys.as_ref()?;
        let at = crate::engine::incremental::pod_table::position_in(&self.cluster.snapshot.pods, pod)?;
        let known = kept.borrow().get(at).and_then(Option::clone);
        debug_assert!(
            known.as_ref().is_none_or(|k| k.fingerprint == FitKey::new(pod, self.cluster).fingerprint),
            "pod {} kept a fit key its spec no longer gives",
            pod.metadata.key()
        );
        Some(known.unwrap_or_else(|| {
            let key = Rc::new(FitKey::new(pod, self.cluster));
            if let Some(slot) = kept.borrow_mut().get_mut(at) {
                *slot = Some(Rc::clone(&key));
            }
            key
        }))
    }

    /// [`PodFit::pins_hostname`] of the pod's fit, without building the fit when a forecast
    /// kept the pod's key: every decision-only simulation asks it of every bound pod it
    /// queues, most of which it never places.
    pub(in crate::engine) fn pins_hostname(&self, pod: &'a Pod) -> bool {
        match self.kept_fit_key(pod) {
            Some(key) => key.pins_hostname,
            None => self.pod_fit(pod).pins_hostname(),
        }
    }

    fn fit_for(&self, key: &FitKey, pod: &Pod) -> Rc<PodFit> {
        let known = self.shared_fits.borrow().get(&key.fingerprint).cloned();
        known.unwrap_or_else(|| {
            let fits = self.static_fits(pod, &key.requirements, &key.fingerprint);
            let fit = Rc::new(PodFit::new(Rc::clone(&key.requirements), fits));
            self.shared_fits.borrow_mut().insert(key.fingerprint.clone(), Rc::clone(&fit));
            fit
        })
    }

    /// The value of `key` on an existing node.
    pub fn node_domain(&self, i: usize, key: &str) -> Option<&str> {
        self.nodes[i].label(key)
    }

    /// The pod's spread constraints and affinity terms with their selectors (memoised per pod,
    /// and shared by pods with the same terms).
    pub fn pod_terms(&self, pod: &Pod) -> Rc<PodTerms> {
        if !has_terms(pod) {
            return Rc::clone(&self.no_terms);
        }
        let kept = self
            .kept_terms
            .as_ref()
            .zip(crate::engine::incremental::pod_table::position_in(&self.cluster.snapshot.pods, pod));
        if let Some((kept, at)) = kept {
            if let Some(Some(hit)) = kept.borrow().get(at) {
                return Rc::clone(hit);
            }
            let terms = self.terms_by_content(pod);
            if let Some(slot) = kept.borrow_mut().get_mut(at) {
                *slot = Some(Rc::clone(&terms));
            }
            return terms;
        }
        let key = address(pod);
        if let Some(hit) = self.pod_terms.borrow().get(&key) {
            return Rc::clone(hit);
        }
        let terms = self.terms_by_content(pod);
        self.pod_terms.borrow_mut().insert(key, Rc::clone(&terms));
        terms
    }

    /// The pod's terms shared by content only (for a relaxed copy, which has no stable address).
    pub fn terms_by_content(&self, pod: &Pod) -> Rc<PodTerms> {
        if !has_terms(pod) {
            return Rc::clone(&self.no_terms);
        }
        let affinity = pod.spec.affinity.as_ref();
        let (spreads, pod_affinity, anti) = (
            &pod.spec.topology_spread_constraints,
            affinity.and_then(|a| a.pod_affinity.as_ref()),
            affinity.and_then(|a| a.pod_anti_affinity.as_ref()),
        );
        // `matchLabelKeys` reads the pod's own labels; the namespace scopes every selector.
        let keyed: Vec<Option<&String>> = spreads
            .iter()
            .flat_map(|c| c.match_label_keys.iter().flatten())
            .map(|k| pod.metadata.labels.get(k))
            .collect();
        // Whether each spread selects the pod itself (`selfSelecting`, which reads its labels;
        // the `matchLabelKeys` requirements always select their own pod).
        let selects_itself: Vec<bool> =
            spreads.iter().map(|c| selector_matches(c.label_selector.as_ref(), &pod.metadata.labels)).collect();
        // Spreads' node filters and the pod's domains read its selector, affinity, tolerations.
        let node = (&pod.spec.node_selector, affinity.and_then(|a| a.node_affinity.as_ref()), &pod.spec.tolerations);
        let rules = self.cluster.rules();
        // Before #2780 (v1.9.0) the volumes' topology is part of the pod's node affinity for its
        // spreads too; one alternative (before #2743 every volume's first term, ANDed).
        let volume = (!rules.has(crate::rules::Rule::VolumeRequirementsOutsideSpreads) && !pod.spec.volumes.is_empty())
            .then(|| self.cluster.volumes.alternatives(pod).into_iter().next())
            .flatten();
        let fingerprint = format!(
            "{}|{spreads:?}|{selects_itself:?}|{pod_affinity:?}|{anti:?}|{keyed:?}|{node:?}|{volume:?}",
            pod.metadata.namespace()
        );
        let known = self.shared_terms.borrow().get(&fingerprint).cloned();
        known.unwrap_or_else(|| {
            let policies = rules.has(crate::rules::Rule::SpreadInclusionPolicies);
            let terms = Rc::new(PodTerms::for_version(pod, policies, volume.as_ref()));
            self.shared_terms.borrow_mut().insert(fingerprint, Rc::clone(&terms));
            terms
        })
    }

    /// Nodes, in destination order, whose labels and taints a pod with these requirements and
    /// tolerations accepts: what never changes during a simulation. Only these nodes can take
    /// the pod, so the first fit is searched among them.
    fn static_fits(&self, pod: &Pod, requirements: &[Requirements], fingerprint: &str) -> FitList {
        let admits = |node: &BaseNode<'_>| {
            taints::untolerated(&pod.spec.tolerations, &node.taints).is_none()
                && requirements.iter().any(|r| node.admits(r))
        };
        // A forecast keeps each node's answer under its stamp, which changes with its labels
        // and taints: a node the last rounds already answered is not asked again.
        let mut kept = self.kept_answers.as_ref().map(|k| k.borrow_mut());
        let mut answers = kept.as_deref_mut().map(|k| k.entry(fingerprint.to_owned()).or_default());
        let mut accepts = |&p: &usize| {
            let node = &self.nodes[self.order[p]];
            answer_by_stamp(answers.as_deref_mut(), node.stamp, || admits(node))
        };
        let fits: Vec<usize> = match self.pinned_positions(requirements) {
            Some(positions) => positions.into_iter().filter(|p| accepts(p)).collect(),
            None => (0..self.order.len()).filter(|p| accepts(p)).collect(),
        };
        FitList::new(fits, &self.nodes, &self.order)
    }

    /// When every alternative requires `kubernetes.io/hostname` `In` some values, the only
    /// nodes that can admit the pod are those with one of them (a node without the label, or
    /// with another value, fails `In`): their positions, in order. `None` otherwise.
    pub(in crate::engine) fn pinned_positions(&self, requirements: &[Requirements]) -> Option<Vec<usize>> {
        let mut values: Vec<&str> = Vec::new();
        for alternative in requirements {
            let pin = alternative.get(HOSTNAME).filter(|r| {
                !r.complement && !r.values.is_empty() && r.greater_than.is_none() && r.less_than.is_none()
            })?;
            values.extend(pin.values.iter().map(String::as_str));
        }
        if values.is_empty() {
            return None;
        }
        let by_hostname = self.by_hostname.get_or_init(|| {
            let mut out: HashMap<String, Vec<usize>> = HashMap::default();
            for (p, &i) in self.order.iter().enumerate() {
                if let Some(hostname) = self.nodes[i].label(HOSTNAME) {
                    out.entry(hostname.to_owned()).or_default().push(p);
                }
            }
            out
        });
        let mut positions: Vec<usize> = values.iter().filter_map(|v| by_hostname.get(*v)).flatten().copied().collect();
        positions.sort_unstable();
        positions.dedup();
        Some(positions)
    }

    /// The destination positions a snapshot pod's node requirements pin it to with every
    /// preference relaxed, when no new NodeClaim could take it either (a claim's hostname is a
    /// placeholder, `NewNodeClaim`); `None` when it is not pinned so. A function of the pod
    /// and the nodes alone: memoised per pod for every simulation of the world.
    pub(in crate::engine) fn relaxed_pins(&self, pod: &'a Pod) -> Option<Rc<[usize]>> {
        let key = address(pod);
        if let Some(known) = self.relaxed_pins.borrow().get(&key) {
            return known.clone();
        }
        let mut relaxed = Cow::Borrowed(pod);
        crate::engine::scheduling::preferences::ignore_preferences(&mut relaxed);
        let requirements = crate::engine::scheduling::pod_data::node_requirements(&relaxed, self.cluster);
        let claimable = |r: &Requirements| {
            r.get(HOSTNAME).is_none_or(|h| {
                h.values.iter().any(|v| v.starts_with(crate::engine::scheduling::node_claim::claim::PLACEHOLDER_PREFIX))
            })
        };
        let pins: Option<Rc<[usize]>> =
            if requirements.iter().any(claimable) { None } else { self.pinned_positions(&requirements).map(Rc::from) };
        self.relaxed_pins.borrow_mut().insert(key, pins.clone());
        pins
    }

    /// Whether a spread with this filter counts pods on node `i` (its node filter).
    pub(crate) fn counts_on(&self, i: usize, filter: &PodFilter) -> bool {
        !filter.has_node_filter() || {
            let node = &self.nodes[i];
            filter.counts_on_node(&|k| node.label(k), &node.taints)
        }
    }

    /// A spread's registered domains of `key` (memoised per key and node filter): each
    /// NodePool's values whose taints the filter accepts, and existing nodes' values it passes.
    pub(crate) fn spread_domains(&self, key: &str, filter: &PodFilter) -> Rc<BTreeSet<String>> {
        if !self.cluster.rules().has(crate::rules::Rule::SpreadInclusionPolicies) {
            // Before #852 (v1.3.0) every NodePool's values, taints not looked at, and no existing
            // node's (v1.2.5 provisioner.go NewScheduler): a node's value counts once a counted
            // pod is recorded there (`topology_group.rs`).
            return self.pool_domains(key);
        }
        if !filter.has_node_filter() {
            // Every pool and every node: the key's universe.
            return self.universe(key);
        }
        let cache_key = format!("{key}\u{0}{}", filter.node_filter_key());
        if let Some(hit) = self.spread_domains.borrow().get(&cache_key) {
            return Rc::clone(hit);
        }
        let mut out = domain_filter::pool_values(&self.templates, key, filter, self.cluster.rules());
        // A filter pinning the hostname can only pass the nodes it names: no pass over the rest.
        let pinned = filter.required_node_terms().and_then(|terms| self.pinned_positions(terms));
        let nodes: Box<dyn Iterator<Item = usize>> = match pinned {
            Some(positions) => Box::new(positions.into_iter().map(|p| self.order[p])),
            None => Box::new(0..self.nodes.len()),
        };
        // A forecast keeps each node's answer under its stamp, as for static fits.
        let mut kept = self.kept_filter_answers.as_ref().map(|k| k.borrow_mut());
        let mut answers = kept.as_deref_mut().map(|k| k.entry(filter.node_filter_key().to_owned()).or_default());
        let mut counted =
            |&i: &usize| answer_by_stamp(answers.as_deref_mut(), self.nodes[i].stamp, || self.counts_on(i, filter));
        // Borrowed first: most nodes share a few values, each then copied once.
        let on_nodes: BTreeSet<&str> = nodes.filter(|i| counted(i)).filter_map(|i| self.node_domain(i, key)).collect();
        out.extend(on_nodes.into_iter().map(str::to_owned));
        let out = Rc::new(out);
        self.spread_domains.borrow_mut().insert(cache_key, Rc::clone(&out));
        out
    }

    /// The values of `key` the NodePools may launch, whatever their taints.
    fn pool_domains(&self, key: &str) -> Rc<BTreeSet<String>> {
        let cache_key = format!("{key}\u{0}pools");
        if let Some(hit) = self.spread_domains.borrow().get(&cache_key) {
            return Rc::clone(hit);
        }
        let out: BTreeSet<String> = self.templates.iter().flat_map(|t| template_domains(t, key)).collect();
        let out = Rc::new(out);
        self.spread_domains.borrow_mut().insert(cache_key, Rc::clone(&out));
        out
    }

    /// Every value `key` can take: existing nodes' labels plus what the NodePools may launch.
    pub fn universe(&self, key: &str) -> Rc<BTreeSet<String>> {
        if let Some(hit) = self.universes.borrow().get(key) {
            return Rc::clone(hit);
        }
        let on_nodes: BTreeSet<&str> = (0..self.nodes.len()).filter_map(|i| self.node_domain(i, key)).collect();
        let mut out: BTreeSet<String> = on_nodes.into_iter().map(str::to_owned).collect();
        for t in &self.templates {
            out.extend(template_domains(t, key));
        }
        let out = Rc::new(out);
        self.universes.borrow_mut().insert(key.to_owned(), Rc::clone(&out));
        out
    }
}

/// `Kind/namespace/name` of the pod's controller.
/// The pod's controller (kind, namespace, name), for pods whose placement inputs come from
/// one template; `None` for pods with persistent volume claims (each claim has its own zone).
/// Borrowed from the pod: every pod of every candidate asks it once per round.
fn sibling_key(pod: &Pod) -> Option<SiblingKey<'_>> {
    if crate::engine::scheduling::volume_topology::has_claims(pod) {
        return None;
    }
    let owner = pod.metadata.controller()?;
    Some((owner.kind.as_str(), pod.metadata.namespace(), owner.name.as_str()))
}

/// Whether two pods have the same node selector, node affinity and tolerations: what their
/// fit depends on, volumes aside.
fn same_fit_inputs(a: &Pod, b: &Pod) -> bool {
    fn node_affinity(p: &Pod) -> Option<&k8s_openapi::api::core::v1::NodeAffinity> {
        p.spec.affinity.as_ref().and_then(|a| a.node_affinity.as_ref())
    }
    a.spec.node_selector == b.spec.node_selector
        && a.spec.tolerations == b.spec.tolerations
        && node_affinity(a) == node_affinity(b)
        && !crate::engine::scheduling::volume_topology::has_claims(b)
}

/// The values of `key` a NodePool can launch (`topology.go buildDomainGroups`): its
/// requirements met with each instance type's values, and the values its requirements list.
fn template_domains(t: &Template<'_>, key: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    if key == HOSTNAME {
        return out;
    }
    for it in &t.instance_types {
        for value in instance_type_values(it, key) {
            if t.requirements.get(key).is_none_or(|r| r.allows(&value)) {
                out.insert(value);
            }
        }
    }
    if let Some(r) = t.requirements.get(key).filter(|r| !r.complement) {
        out.extend(r.values.iter().cloned());
    }
    out
}

/// Whether the pod has any spread constraint or pod (anti-)affinity.
fn has_terms(pod: &Pod) -> bool {
    let affinity = pod.spec.affinity.as_ref();
    !pod.spec.topology_spread_constraints.is_empty()
        || affinity.is_some_and(|a| a.pod_affinity.is_some() || a.pod_anti_affinity.is_some())
}
