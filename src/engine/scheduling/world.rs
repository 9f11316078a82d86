//! What every simulation of one replay shares, computed once: each node as a destination
//! (labels, taints, free resources, pods), every pod's requests, the NodePools that can launch
//! capacity with their instance types and DaemonSet overhead, and memoised topology counts.
//!
//! A simulation only records what it changes on top of this (see `Simulation`), so simulating
//! one candidate costs what its pods cost, not what the cluster costs.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

use foldhash::{HashMap, HashSet};
use std::rc::Rc;
use std::sync::Arc;

use super::pod_index::{IndexedKeys, PodIndex};
use super::requirements::{Requirement, Requirements};
use super::taints;
use super::topology::{PodFilter, PodTerms};
use crate::engine::labels::{HOSTNAME, NODEPOOL, ZONE};
use crate::engine::pdb::Limits;
use crate::engine::pod;
use crate::engine::state::{Cluster, StateNode};
use crate::quantity::Quantity;
use crate::snapshot::{is_true, InstanceType, NodePool, Pod, Resources, StringMap, Taint};

/// One existing node as a destination, before any simulation.
#[derive(Debug, Clone)]
pub struct BaseNode<'a> {
    pub name: String,
    /// Its labels as the scheduler reads them; see [`BaseNode::label`] for the hostname.
    labels: &'a StringMap,
    pub taints: Vec<Taint>,
    /// Allocatable minus the requests of every non-terminal pod bound to it.
    pub available: Resources,
    /// `available`'s cpu and memory in milli-units, for the first-fit search's pruning.
    pub free_cpu: i128,
    pub free_memory: i128,
    /// Active pods (counted by topology).
    pub pods: Vec<&'a Pod>,
    pub host_ports: Vec<HostPort>,
    pub initialized: bool,
    pub under_consolidate_after: bool,
    pub capacity: Resources,
    /// The label `kubernetes.io/hostname`, else the node's name.
    pub hostname: String,
}

impl<'a> BaseNode<'a> {
    /// The node's value for a label key; the hostname is the label's, else the node's name.
    pub fn label(&self, key: &str) -> Option<&str> {
        match key {
            HOSTNAME => Some(&self.hostname),
            _ => self.labels.get(key).map(String::as_str),
        }
    }

    pub fn zone(&self) -> Option<&'a str> {
        self.labels.get(ZONE).map(String::as_str)
    }

    pub fn pool(&self) -> Option<&'a str> {
        self.labels.get(NODEPOOL).map(String::as_str)
    }

    /// Whether the node's labels satisfy one alternative of a pod's node requirements.
    pub fn admits(&self, requirements: &Requirements) -> bool {
        requirements.admit_labels(|key| self.label(key))
    }
}

/// `(port, protocol, host IP)`.
pub(crate) type HostPort = (i32, String, String);

/// A NodePool that can launch capacity, with what a new NodeClaim of it starts from.
#[derive(Debug, Clone)]
pub struct Template<'a> {
    pub pool: &'a NodePool,
    pub requirements: Requirements,
    pub taints: Vec<Taint>,
    /// Compatible instance types with an available offering, cheapest first.
    pub instance_types: Vec<&'a InstanceType>,
    pub daemon_overhead: Resources,
}

/// Shared, read-only (but memoising) state of all simulations of one replay.
#[derive(Debug)]
pub struct World<'c, 'a> {
    pub cluster: &'c Cluster<'a>,
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
    /// Per pod, its requests; pods of one workload share one map.
    requests: PodRequests<'a>,
    pods: PodIndex<'a>,
    /// The label keys some topology selector requires: the only ones worth a posting list.
    pub selector_keys: IndexedKeys,
    counts: RefCell<HashMap<String, Rc<BTreeMap<String, i64>>>>,
    universes: RefCell<HashMap<String, Rc<BTreeSet<String>>>>,
    /// Per pod and pass, and shared by pods with the same requirements and tolerations.
    pod_fits: RefCell<HashMap<(usize, bool), Rc<PodFit>>>,
    shared_fits: RefCell<HashMap<String, Rc<PodFit>>>,
    /// Per controller (kind/namespace/name) and pass: pods already judged, with their fit. A
    /// sibling with the same selector, affinity and tolerations shares it without the
    /// fingerprint (formatting it is most of the cost of a fit).
    sibling_fits: RefCell<HashMap<(String, bool), Siblings<'a>>>,
    /// Per pod with topology terms, and shared by pods with the same terms.
    pod_terms: RefCell<HashMap<usize, Rc<PodTerms>>>,
    shared_terms: RefCell<HashMap<String, Rc<PodTerms>>>,
    no_terms: Rc<PodTerms>,
}

/// Pods of one controller already judged, each with its fit.
type Siblings<'a> = Vec<(&'a Pod, Rc<PodFit>)>;

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

/// What never changes about one pod during a replay, for one pass (strict or relaxed).
#[derive(Debug)]
pub struct PodFit {
    /// Alternatives (required node affinity terms), each with the selector, the volumes'
    /// zones and, while strict, the heaviest preferred term.
    pub requirements: Vec<Requirements>,
    pub fits: FitList,
}

/// How many nodes share one pruning bound in a [`FitList`].
const BLOCK: usize = 32;

/// The nodes whose labels and taints accept a pod, as positions in the destination order,
/// whole and per zone. Each list keeps, for every block of [`BLOCK`] nodes, the most cpu and
/// memory any of them has free before the simulation: a simulation only ever takes capacity
/// away, so a pod needing more skips the whole block, and a pod whose topology spread allows
/// some zones reads only those zones' lists.
#[derive(Debug)]
pub struct FitList {
    all: Blocks,
    by_zone: BTreeMap<String, Blocks>,
}

#[derive(Debug, Default)]
struct Blocks {
    positions: Vec<usize>,
    bounds: Vec<(i128, i128)>,
}

impl Blocks {
    fn new(positions: Vec<usize>, free: &dyn Fn(usize) -> (i128, i128)) -> Self {
        let bounds = positions
            .chunks(BLOCK)
            .map(|block| {
                block.iter().map(|&p| free(p)).fold((i128::MIN, i128::MIN), |(c, m), (bc, bm)| (c.max(bc), m.max(bm)))
            })
            .collect();
        Blocks { positions, bounds }
    }

    fn with_room(&self, cpu: i128, memory: i128) -> impl Iterator<Item = usize> + '_ {
        self.positions
            .chunks(BLOCK)
            .zip(&self.bounds)
            .filter(move |(_, &(max_cpu, max_memory))| room(max_cpu, cpu) && room(max_memory, memory))
            .flat_map(|(block, _)| block.iter().copied())
    }
}

impl FitList {
    fn new(positions: Vec<usize>, world: &World<'_, '_>) -> Self {
        let free = |p: usize| {
            let node = &world.nodes[world.order[p]];
            (node.free_cpu, node.free_memory)
        };
        let mut zoned: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for &p in &positions {
            if let Some(zone) = world.nodes[world.order[p]].zone() {
                zoned.entry(zone.to_owned()).or_default().push(p);
            }
        }
        FitList {
            all: Blocks::new(positions, &free),
            by_zone: zoned.into_iter().map(|(zone, positions)| (zone, Blocks::new(positions, &free))).collect(),
        }
    }

    /// Positions in the destination order of the nodes that may have room for `cpu` and
    /// `memory` (milli-units) and, when `zones` is given, lie in one of them; in order.
    pub fn with_room<'s>(&'s self, cpu: i128, memory: i128, zones: Option<&BTreeSet<&str>>) -> InOrder<'s> {
        let lists: Vec<&Blocks> = match zones {
            None => vec![&self.all],
            Some(zones) => zones.iter().filter_map(|z| self.by_zone.get(*z)).collect(),
        };
        InOrder {
            heads: lists
                .into_iter()
                .map(|b| Box::new(b.with_room(cpu, memory)) as Box<_>)
                .map(Iterator::peekable)
                .collect(),
        }
    }
}

/// Several ascending position lists merged into one ascending list.
pub struct InOrder<'s> {
    heads: Vec<std::iter::Peekable<Box<dyn Iterator<Item = usize> + 's>>>,
}

impl Iterator for InOrder<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let next =
            self.heads.iter_mut().enumerate().filter_map(|(k, head)| Some((k, *head.peek()?))).min_by_key(|&(_, p)| p);
        let (k, _) = next?;
        self.heads[k].next()
    }
}

/// Whether `free` covers `want`; a request of zero or less is never checked (as in `Fits`).
pub(crate) fn room(free: i128, want: i128) -> bool {
    want <= 0 || free >= want
}

impl<'c, 'a> World<'c, 'a> {
    pub fn new(cluster: &'c Cluster<'a>) -> Self {
        Self::with_pods_in_place(cluster, || PodsInPlace::new(cluster))
    }

    /// Builds the world, asking for the pods in place once its own nodes are built (so that
    /// they can be indexed elsewhere meanwhile).
    pub fn with_pods_in_place(cluster: &'c Cluster<'a>, pods_in_place: impl FnOnce() -> PodsInPlace<'a>) -> Self {
        let requests = PodRequests::new(&cluster.snapshot.pods);
        let nodes: Vec<BaseNode<'a>> = cluster.nodes.iter().map(|n| base_node(cluster, n, &requests)).collect();
        let mut order: Vec<usize> = (0..nodes.len()).collect();
        order.sort_by(|&a, &b| (!nodes[a].initialized, &nodes[a].name).cmp(&(!nodes[b].initialized, &nodes[b].name)));
        let mut pool_usage: BTreeMap<String, Resources> = BTreeMap::new();
        for n in &nodes {
            if let Some(pool) = n.pool() {
                let entry = pool_usage.entry(pool.to_owned()).or_default();
                pod::add(entry, &n.capacity);
                pod::add(entry, &Resources::from([("nodes".to_owned(), Quantity::from_units(1))]));
            }
        }
        let anti_affinity_groups = AntiAffinityGroups::new(&nodes);
        let PodsInPlace { selector_keys, index: pods } = pods_in_place();
        let pending = cluster.unbound_pods.iter().copied().filter(|p| super::is_provisionable(p)).collect();
        let deleting = (0..cluster.nodes.len()).filter(|&i| cluster.nodes[i].deleting()).collect();
        let limits = Limits::new(&cluster.snapshot.pdbs);
        let held = cluster.nodes.iter().map(|_| std::cell::OnceCell::new()).collect();
        let mut world = World {
            cluster,
            nodes,
            order,
            templates: Vec::new(),
            pool_usage,
            anti_affinity_groups,
            pending,
            deleting,
            limits,
            held,
            requests,
            pods,
            selector_keys,
            counts: RefCell::default(),
            universes: RefCell::default(),
            pod_fits: RefCell::default(),
            shared_fits: RefCell::default(),
            sibling_fits: RefCell::default(),
            pod_terms: RefCell::default(),
            shared_terms: RefCell::default(),
            no_terms: Rc::default(),
        };
        world.templates = templates(&world);
        world
    }

    /// Whether the pod, on node `node`, could move but its do-not-disrupt annotation or a PDB
    /// keeps it.
    pub fn is_held(&self, node: usize, pod: &Pod) -> bool {
        self.held_on(node).contains(&address(pod))
    }

    /// The pods of node `i` that its gates hold.
    pub fn held_on(&self, i: usize) -> &HashSet<usize> {
        self.held[i].get_or_init(|| {
            let cluster = self.cluster;
            cluster.nodes[i]
                .pods
                .iter()
                .filter(|p| pod::is_reschedulable(p) && !self.limits.is_currently_reschedulable(p, cluster.now))
                .map(|p| address(p))
                .collect()
        })
    }

    /// A pod's effective requests (computed once for the snapshot's pods).
    pub fn requests(&self, pod: &Pod) -> Cow<'_, Resources> {
        self.requests.get(pod).map_or_else(|| Cow::Owned(pod::requests(pod)), |r| Cow::Borrowed(&**r))
    }

    /// The pod's node requirements and the nodes that statically accept it, for one pass
    /// (memoised per pod, and shared by pods with the same requirements and tolerations).
    pub fn pod_fit(&self, pod: &'a Pod, strict: bool) -> Rc<PodFit> {
        let key = (address(pod), strict);
        if let Some(hit) = self.pod_fits.borrow().get(&key) {
            return Rc::clone(hit);
        }
        let family = sibling_key(pod).map(|k| (k, strict));
        let sibling = family.as_ref().and_then(|f| {
            let siblings = self.sibling_fits.borrow();
            siblings.get(f)?.iter().find(|(other, _)| same_fit_inputs(pod, other)).map(|(_, fit)| Rc::clone(fit))
        });
        let fit = sibling.unwrap_or_else(|| {
            let fit = self.fit_by_fingerprint(pod, strict);
            if let Some(f) = family {
                self.sibling_fits.borrow_mut().entry(f).or_default().push((pod, Rc::clone(&fit)));
            }
            fit
        });
        self.pod_fits.borrow_mut().insert(key, Rc::clone(&fit));
        fit
    }

    fn fit_by_fingerprint(&self, pod: &Pod, strict: bool) -> Rc<PodFit> {
        let requirements = super::node_requirements(pod, strict, self.cluster);
        let fingerprint = format!("{strict}|{requirements:?}|{:?}", pod.spec.tolerations);
        let known = self.shared_fits.borrow().get(&fingerprint).cloned();
        known.unwrap_or_else(|| {
            let fits = self.static_fits(pod, &requirements, strict);
            let fit = Rc::new(PodFit { requirements, fits });
            self.shared_fits.borrow_mut().insert(fingerprint, Rc::clone(&fit));
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
        let affinity = pod.spec.affinity.as_ref();
        let (spreads, pod_affinity, anti) = (
            &pod.spec.topology_spread_constraints,
            affinity.and_then(|a| a.pod_affinity.as_ref()),
            affinity.and_then(|a| a.pod_anti_affinity.as_ref()),
        );
        if spreads.is_empty() && pod_affinity.is_none() && anti.is_none() {
            return Rc::clone(&self.no_terms);
        }
        let key = address(pod);
        if let Some(hit) = self.pod_terms.borrow().get(&key) {
            return Rc::clone(hit);
        }
        // `matchLabelKeys` reads the pod's own labels; the namespace scopes every selector.
        let keyed: Vec<Option<&String>> = spreads
            .iter()
            .flat_map(|c| c.match_label_keys.iter().flatten())
            .map(|k| pod.metadata.labels.get(k))
            .collect();
        let fingerprint = format!("{}|{spreads:?}|{pod_affinity:?}|{anti:?}|{keyed:?}", pod.metadata.namespace());
        let known = self.shared_terms.borrow().get(&fingerprint).cloned();
        let terms = known.unwrap_or_else(|| {
            let terms = Rc::new(PodTerms::new(pod));
            self.shared_terms.borrow_mut().insert(fingerprint, Rc::clone(&terms));
            terms
        });
        self.pod_terms.borrow_mut().insert(key, Rc::clone(&terms));
        terms
    }

    /// Nodes, in destination order, whose labels and taints a pod with these requirements and
    /// tolerations accepts: what never changes during a simulation. Only these nodes can take
    /// the pod, so the first fit is searched among them.
    fn static_fits(&self, pod: &Pod, requirements: &[Requirements], strict: bool) -> FitList {
        let fits: Vec<usize> = (0..self.order.len())
            .filter(|&p| {
                let i = self.order[p];
                let node = &self.nodes[i];
                taints::untolerated(&pod.spec.tolerations, &node.taints, !strict).is_none()
                    && requirements.iter().any(|r| node.admits(r))
            })
            .collect();
        FitList::new(fits, self)
    }

    /// Pods matching `filter`, per value of `key`, over every node (memoised).
    pub fn base_counts(&self, key: &str, filter: &PodFilter) -> Rc<BTreeMap<String, i64>> {
        let cache_key = format!("{key}\u{0}{}", filter.cache_key());
        if let Some(hit) = self.counts.borrow().get(&cache_key) {
            return Rc::clone(hit);
        }
        let mut counts: BTreeMap<String, i64> = BTreeMap::new();
        for (i, _) in self.pods.matching(filter) {
            let Some(domain) = self.node_domain(i, key) else { continue };
            if let Some(n) = counts.get_mut(domain) {
                *n += 1;
            } else {
                counts.insert(domain.to_owned(), 1);
            }
        }
        let counts = Rc::new(counts);
        self.counts.borrow_mut().insert(cache_key, Rc::clone(&counts));
        counts
    }

    /// Every value `key` can take: existing nodes' labels plus what the NodePools may launch.
    pub fn universe(&self, key: &str) -> Rc<BTreeSet<String>> {
        if let Some(hit) = self.universes.borrow().get(key) {
            return Rc::clone(hit);
        }
        let mut out: BTreeSet<String> =
            (0..self.nodes.len()).filter_map(|i| self.node_domain(i, key).map(str::to_owned)).collect();
        if key != HOSTNAME {
            for t in &self.templates {
                for it in &t.instance_types {
                    for value in super::instance_type_values(it, key) {
                        if t.requirements.get(key).is_none_or(|r| r.allows(&value)) {
                            out.insert(value);
                        }
                    }
                }
                if let Some(r) = t.requirements.get(key).filter(|r| !r.complement) {
                    out.extend(r.values.iter().cloned());
                }
            }
        }
        let out = Rc::new(out);
        self.universes.borrow_mut().insert(key.to_owned(), Rc::clone(&out));
        out
    }
}

/// Every label key a topology spread constraint or a pod (anti-)affinity term of some pod
/// requires through `matchLabels`.
fn selector_keys(pods: &[Pod]) -> IndexedKeys {
    let mut keys: HashSet<String> = HashSet::default();
    for pod in pods {
        let spreads = pod.spec.topology_spread_constraints.iter().filter_map(|c| c.label_selector.as_ref());
        let affinity = pod.spec.affinity.as_ref();
        let affinity_terms = affinity.and_then(|a| a.pod_affinity.as_ref()).into_iter().flat_map(|a| {
            let required = a.required_during_scheduling_ignored_during_execution.iter().flatten();
            let preferred = a.preferred_during_scheduling_ignored_during_execution.iter().flatten();
            required.chain(preferred.map(|w| &w.pod_affinity_term))
        });
        let anti_terms = affinity.and_then(|a| a.pod_anti_affinity.as_ref()).into_iter().flat_map(|a| {
            let required = a.required_during_scheduling_ignored_during_execution.iter().flatten();
            let preferred = a.preferred_during_scheduling_ignored_during_execution.iter().flatten();
            required.chain(preferred.map(|w| &w.pod_affinity_term))
        });
        let terms = affinity_terms.chain(anti_terms).filter_map(|t| t.label_selector.as_ref());
        for selector in spreads.chain(terms) {
            for key in selector.match_labels.iter().flatten().map(|(k, _)| k) {
                if !keys.contains(key) {
                    keys.insert(key.clone());
                }
            }
        }
    }
    let mut keys: Vec<String> = keys.into_iter().collect();
    keys.sort_unstable();
    keys.into()
}

/// `(kind, namespace, name)` of a pod's controller.
type Family<'p> = (&'p str, &'p str, &'p str);

/// Every snapshot pod's requests, by position in `snapshot.pods` (a dense table: looking a pod
/// up costs an address subtraction, not a hash).
#[derive(Debug)]
struct PodRequests<'a> {
    pods: &'a [Pod],
    requests: Vec<Rc<Resources>>,
}

impl<'a> PodRequests<'a> {
    /// Pods of one controller with the same container resources share one map (and skip
    /// computing it); other equal maps are shared too.
    fn new(pods: &'a [Pod]) -> Self {
        let mut distinct: BTreeSet<Rc<Resources>> = BTreeSet::new();
        let mut by_controller: HashMap<Family<'_>, Vec<(&Pod, Rc<Resources>)>> = HashMap::default();
        // The snapshot lists pods by namespace and name, so a controller's pods mostly come one
        // after another: the previous pod answers most lookups without hashing.
        let mut previous: Option<(Family<'_>, &Pod, Rc<Resources>)> = None;
        let mut requests = Vec::with_capacity(pods.len());
        for p in pods {
            let family = p.metadata.controller().map(|o| (o.kind.as_str(), p.metadata.namespace(), o.name.as_str()));
            let adjacent = previous
                .as_ref()
                .filter(|(f, other, _)| family.as_ref() == Some(f) && same_request_inputs(p, other))
                .map(|(_, _, r)| Rc::clone(r));
            let sibling = adjacent.or_else(|| {
                let f = family.as_ref()?;
                by_controller.get(f)?.iter().find(|(other, _)| same_request_inputs(p, other)).map(|(_, r)| Rc::clone(r))
            });
            let shared = sibling.unwrap_or_else(|| {
                let r = pod::requests(p);
                let shared = distinct.get(&r).cloned().unwrap_or_else(|| {
                    let r = Rc::new(r);
                    distinct.insert(Rc::clone(&r));
                    r
                });
                if let Some(f) = family {
                    by_controller.entry(f).or_default().push((p, Rc::clone(&shared)));
                }
                shared
            });
            previous = family.map(|f| (f, p, Rc::clone(&shared)));
            requests.push(shared);
        }
        PodRequests { pods, requests }
    }

    /// The requests of a pod of the snapshot; `None` for any other pod.
    fn get(&self, pod: &Pod) -> Option<&Rc<Resources>> {
        let (base, at, size) = (self.pods.as_ptr() as usize, address(pod), std::mem::size_of::<Pod>());
        let i = at.checked_sub(base)? / size.max(1);
        std::ptr::eq(self.pods.get(i)?, pod).then(|| &self.requests[i])
    }
}

/// Whether two pods' requests are computed from the same inputs: their containers' and init
/// containers' resources (and sidecar restart policies), and the pod overhead.
fn same_request_inputs(a: &Pod, b: &Pod) -> bool {
    fn inputs(p: &Pod) -> impl Iterator<Item = (&crate::snapshot::ContainerResources, Option<&str>)> {
        let main = p.spec.containers.iter().map(|c| (&c.resources, None));
        main.chain(p.spec.init_containers.iter().map(|c| (&c.resources, c.restart_policy.as_deref())))
    }
    a.spec.containers.len() == b.spec.containers.len()
        && a.spec.init_containers.len() == b.spec.init_containers.len()
        && a.spec.overhead == b.spec.overhead
        && inputs(a).eq(inputs(b))
}

/// `Kind/namespace/name` of the pod's controller.
fn controller_key(pod: &Pod) -> Option<String> {
    let owner = pod.metadata.controller()?;
    Some(format!("{}/{}/{}", owner.kind, pod.metadata.namespace(), owner.name))
}

/// The pod's controller, for pods whose placement inputs come from one template; `None` for
/// pods with persistent volume claims (each claim has its own zone).
fn sibling_key(pod: &Pod) -> Option<String> {
    if pod.spec.volumes.iter().any(|v| v.persistent_volume_claim.is_some()) {
        return None;
    }
    controller_key(pod)
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
        && !b.spec.volumes.iter().any(|v| v.persistent_volume_claim.is_some())
}

fn address(pod: &Pod) -> usize {
    std::ptr::from_ref(pod) as usize
}

/// One required anti-affinity term shared by pods in place.
#[derive(Debug, Clone)]
pub struct AntiAffinityGroup {
    pub key: String,
    pub filter: PodFilter,
    /// Nodes of the pods holding the term.
    pub nodes: Vec<usize>,
}

/// The required anti-affinity terms of the pods in place, indexed by a label each one
/// requires, so that a pod being placed is checked only against the terms that may select it.
#[derive(Debug, Default)]
pub struct AntiAffinityGroups {
    groups: Vec<AntiAffinityGroup>,
    /// namespace → label key → label value → groups requiring that label there.
    by_label: HashMap<String, HashMap<String, HashMap<String, Vec<usize>>>>,
    /// Groups without a namespace list or a `matchLabels`: checked for every pod.
    unindexed: Vec<usize>,
}

impl AntiAffinityGroups {
    fn new(nodes: &[BaseNode<'_>]) -> Self {
        let mut by_id: BTreeMap<String, AntiAffinityGroup> = BTreeMap::new();
        for (i, n) in nodes.iter().enumerate() {
            for pod in &n.pods {
                for term in super::topology::required_anti_terms(pod) {
                    let filter = super::topology::term_filter(pod, term);
                    let id = format!("{}\u{0}{}", term.topology_key, filter.cache_key());
                    by_id
                        .entry(id)
                        .or_insert_with(|| AntiAffinityGroup {
                            key: term.topology_key.clone(),
                            filter,
                            nodes: Vec::new(),
                        })
                        .nodes
                        .push(i);
                }
            }
        }
        let mut out = AntiAffinityGroups { groups: by_id.into_values().collect(), ..Default::default() };
        for (g, group) in out.groups.iter().enumerate() {
            let label = group.filter.selector.as_ref().and_then(|s| s.match_labels.as_ref()?.iter().next());
            match (&group.filter.namespaces, label) {
                (Some(namespaces), Some((key, value))) => {
                    for ns in namespaces {
                        let values = out.by_label.entry(ns.clone()).or_default().entry(key.clone()).or_default();
                        values.entry(value.clone()).or_default().push(g);
                    }
                }
                _ => out.unindexed.push(g),
            }
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.groups.is_empty()
    }

    /// The groups whose term selects `pod`.
    pub fn selecting<'g>(&'g self, pod: &'g Pod) -> impl Iterator<Item = &'g AntiAffinityGroup> + 'g {
        let by_key = self.by_label.get(pod.metadata.namespace());
        let indexed = pod.metadata.labels.iter().filter_map(move |(k, v)| by_key?.get(k)?.get(v)).flatten();
        self.unindexed.iter().chain(indexed).map(|&g| &self.groups[g]).filter(move |group| group.filter.matches(pod))
    }
}

fn base_node<'a>(cluster: &Cluster<'a>, node: &StateNode<'a>, requests: &PodRequests<'a>) -> BaseNode<'a> {
    let hostname = node.label(HOSTNAME).unwrap_or(&node.name).to_owned();
    let mut available = node.allocatable();
    let mut pods = Vec::new();
    let mut host_ports = Vec::new();
    for p in &node.pods {
        if pod::is_terminal(p) {
            continue;
        }
        if let Some(r) = requests.get(p) {
            for (k, v) in r.iter() {
                if let Some(free) = available.get_mut(k) {
                    *free = free.minus(*v);
                } else {
                    available.insert(k.clone(), Quantity::ZERO.minus(*v));
                }
            }
        }
        if pod::is_active(p) {
            pods.push(*p);
        }
        host_ports.extend(super::host_ports(p));
    }
    let mut node_taints: Vec<Taint> = node.taints().to_vec();
    if !node.initialized() {
        let startup: Vec<Taint> = node.claim.map(|c| c.spec.startup_taints.clone()).unwrap_or_default();
        node_taints.retain(|t| !super::is_ephemeral_taint(t) && !startup.contains(t));
    }
    if node.cordoned() && !node_taints.iter().any(|t| t.key == "node.kubernetes.io/unschedulable") {
        node_taints.push(Taint {
            key: "node.kubernetes.io/unschedulable".into(),
            value: None,
            effect: "NoSchedule".into(),
        });
    }
    let pool = cluster.pool_of(node);
    let milli = |k: &str| available.get(k).map_or(0, |q| q.milli());
    BaseNode {
        name: node.name.clone(),
        labels: node.labels(),
        taints: node_taints,
        free_cpu: milli("cpu"),
        free_memory: milli("memory"),
        available,
        pods,
        host_ports,
        initialized: node.initialized(),
        under_consolidate_after: pool
            .zip(node.claim)
            .is_some_and(|(p, c)| crate::engine::candidate::is_under_consolidate_after(p, c, cluster.now).is_some()),
        capacity: node.node.map(|n| n.status.capacity.clone()).unwrap_or_default(),
        hostname,
    }
}

fn templates<'a>(world: &World<'_, 'a>) -> Vec<Template<'a>> {
    let cluster = world.cluster;
    let mut pools: Vec<&'a NodePool> = cluster
        .pools
        .values()
        .copied()
        .filter(|p| p.spec.replicas.is_none() && pool_ready(p) && p.metadata.deletion_timestamp.is_none())
        .collect();
    pools.sort_by(|a, b| {
        b.spec.weight.unwrap_or(0).cmp(&a.spec.weight.unwrap_or(0)).then_with(|| b.metadata.name.cmp(&a.metadata.name))
    });
    pools
        .into_iter()
        .map(|pool| {
            let template = &pool.spec.template;
            let mut requirements = Requirements::from_karpenter(&template.spec.requirements);
            for (k, v) in &template.metadata.labels {
                requirements.add(k, &Requirement::in_values([v.clone()]));
            }
            requirements.add(NODEPOOL, &Requirement::in_values([pool.metadata.name.clone()]));
            let mut instance_types: Vec<&'a InstanceType> = pool_catalogue(cluster, pool)
                .into_iter()
                .filter(|it| super::instance_type_compatible(it, &requirements))
                .collect();
            super::sort_by_cheapest(&mut instance_types, &requirements);
            let daemon_overhead = daemon_overhead(cluster, &requirements, &template.spec.taints);
            Template { pool, requirements, taints: template.spec.taints.clone(), instance_types, daemon_overhead }
        })
        .collect()
}

/// The pool's instance types: its EC2NodeClass's variant of a type where the catalogue has
/// one (kubelet settings change pods and overhead), else the default figures. Mirrors the
/// provider's `GetInstanceTypes(nodePool)` resolving types per `nodeClassRef`.
fn pool_catalogue<'a>(cluster: &Cluster<'a>, pool: &NodePool) -> Vec<&'a InstanceType> {
    let class = pool
        .spec
        .template
        .spec
        .node_class_ref
        .as_ref()
        .and_then(|r| r.get("name"))
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned);
    let variants: BTreeMap<&'a str, &'a InstanceType> = class
        .as_deref()
        .map(|c| {
            cluster
                .snapshot
                .instance_types
                .iter()
                .filter(|it| it.node_class.as_deref() == Some(c))
                .map(|it| (it.name.as_str(), it))
                .collect()
        })
        .unwrap_or_default();
    cluster.instance_types.values().map(|&it| variants.get(it.name.as_str()).copied().unwrap_or(it)).collect()
}

/// The instance types a NodePool's template admits (its requirements and labels, its
/// NodeClass's variant), cheapest first: what `instance-types nodepool/P` lists. `None` when
/// the snapshot has no such pool.
pub(crate) fn pool_instance_types<'a>(cluster: &Cluster<'a>, pool_name: &str) -> Option<Vec<&'a InstanceType>> {
    let pool = cluster.pools.get(pool_name).copied()?;
    let template = &pool.spec.template;
    let mut requirements = Requirements::from_karpenter(&template.spec.requirements);
    for (k, v) in &template.metadata.labels {
        requirements.add(k, &Requirement::in_values([v.clone()]));
    }
    let mut types: Vec<&'a InstanceType> = pool_catalogue(cluster, pool)
        .into_iter()
        .filter(|it| super::instance_type_compatible(it, &requirements))
        .collect();
    super::sort_by_cheapest(&mut types, &requirements);
    Some(types)
}

fn pool_ready(pool: &NodePool) -> bool {
    let conditions = &pool.status.conditions;
    let known = |t: &str| crate::snapshot::condition(conditions, t).is_none() || is_true(conditions, t);
    known("ValidationSucceeded") && known("NodeClassReady")
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
        let fits = super::node_requirements(&fake, false, cluster)
            .iter()
            .any(|r| labels.compatible(r, &super::is_well_known).is_ok());
        if fits {
            pod::add(&mut out, &pod::requests(&fake));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{Blocks, InOrder, BLOCK};

    #[test]
    fn blocks_skip_only_blocks_without_room_and_zones_merge_in_order() {
        // Position p has p cpu free and plenty of memory.
        let free = |p: usize| (i128::try_from(p).unwrap_or(0), 1 << 40);
        let even = Blocks::new((0..4 * BLOCK).step_by(2).collect(), &free);
        let odd = Blocks::new((1..4 * BLOCK).step_by(2).collect(), &free);
        let want = i128::try_from(3 * BLOCK).unwrap_or(0);
        let merged: Vec<usize> = InOrder {
            heads: [&even, &odd]
                .into_iter()
                .map(|b| Box::new(b.with_room(want, 0)) as Box<dyn Iterator<Item = usize>>)
                .map(Iterator::peekable)
                .collect(),
        }
        .collect();
        // Whole blocks are kept or skipped, so nodes below the need may come through; every
        // node with room must, in ascending order.
        assert!(merged.windows(2).all(|w| w[0] < w[1]), "{merged:?}");
        assert!((3 * BLOCK..4 * BLOCK).all(|p| merged.contains(&p)));
        assert!(!merged.contains(&0), "the first block of each list has no room");
        assert!(super::room(-5, 0), "a request of zero is never refused");
    }
}
