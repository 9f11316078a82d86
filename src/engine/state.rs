//! Cluster state as Karpenter's `state.Cluster` sees it: Nodes and NodeClaims paired into
//! state nodes, pods indexed by node, NodePools and instance types by name.
//!
//! Mirrors karpenter `pkg/controllers/state/statenode.go` (`StateNode.Labels`, `Initialized`,
//! `MarkedForDeletion`, `Managed`). Built once per replay; everything else borrows from it.

use std::collections::BTreeMap;
use std::sync::Arc;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use jiff::Timestamp;

use super::incremental::pod_table::{position_in, PodFacts, PodTable};
use super::labels::{DISRUPTED_TAINT, INITIALIZED, NODEPOOL, REGISTERED};
use super::pod;
use crate::rules::{Rule, RuleSet};
use crate::snapshot::{is_true, InstanceType, Node, NodeClaim, NodePool, Pod, Resources, Snapshot, StringMap, Taint};

/// A Node and/or its NodeClaim.
#[derive(Debug, Clone)]
pub struct StateNode<'a> {
    /// The Node's name, or the NodeClaim's when there is no Node.
    pub name: String,
    pub node: Option<&'a Node>,
    pub claim: Option<&'a NodeClaim>,
    /// Pods bound to the node, in snapshot order.
    pub pods: Vec<&'a Pod>,
}

impl<'a> StateNode<'a> {
    /// Managed by Karpenter: has a NodeClaim.
    pub fn managed(&self) -> bool {
        self.claim.is_some()
    }

    /// Labels from the NodeClaim until the Node registered, from the Node afterwards.
    pub fn labels(&self) -> &'a StringMap {
        match (self.node, self.claim) {
            (Some(node), Some(claim)) if node.metadata.labels.get(REGISTERED).map(String::as_str) != Some("true") => {
                if claim.metadata.labels.is_empty() {
                    &node.metadata.labels
                } else {
                    &claim.metadata.labels
                }
            }
            (Some(node), _) => &node.metadata.labels,
            (None, Some(claim)) => &claim.metadata.labels,
            (None, None) => empty_map(),
        }
    }

    /// Annotations, from the same source as the labels.
    pub fn annotations(&self) -> &StringMap {
        match (self.node, self.claim) {
            (Some(node), _) if node.metadata.labels.get(REGISTERED).map(String::as_str) == Some("true") => {
                &node.metadata.annotations
            }
            (_, Some(claim)) => &claim.metadata.annotations,
            (Some(node), None) => &node.metadata.annotations,
            (None, None) => empty_map(),
        }
    }

    pub fn label(&self, key: &str) -> Option<&str> {
        self.labels().get(key).map(String::as_str)
    }

    pub fn node_pool_name(&self) -> Option<&str> {
        self.label(NODEPOOL)
    }

    /// Initialized: the Node carries `karpenter.sh/initialized=true` (unmanaged nodes always are).
    pub fn initialized(&self) -> bool {
        if !self.managed() {
            return true;
        }
        self.node.is_some_and(|n| n.metadata.labels.get(INITIALIZED).map(String::as_str) == Some("true"))
    }

    /// The NodeClaim says `InstanceTerminating=True`: the instance is being (or was) terminated.
    pub fn instance_terminating(&self) -> bool {
        self.claim.is_some_and(|c| is_true(&c.status.conditions, "InstanceTerminating"))
    }

    /// Deleting: NodeClaim deletion timestamp, `InstanceTerminating` (from v1.0.4 / v1.1.0,
    /// #1735: `rules` decides), or (unmanaged) Node deletion.
    pub fn marked_for_deletion(&self, rules: &RuleSet) -> bool {
        match self.claim {
            Some(claim) => {
                claim.metadata.deletion_timestamp.is_some()
                    || (self.instance_terminating() && rules.has(Rule::BudgetSkipsInstanceTerminating))
                    || self.node.is_some_and(|n| n.metadata.deletion_timestamp.is_some())
            }
            None => self.node.is_some_and(|n| n.metadata.deletion_timestamp.is_some()),
        }
    }

    /// In Karpenter's orchestration queue: `karpenter.sh/disrupted` taint or `DisruptionReason`.
    pub fn already_disrupting(&self) -> bool {
        self.node.is_some_and(|n| n.spec.taints.iter().any(|t| t.key == DISRUPTED_TAINT))
            || self.claim.is_some_and(|c| is_true(&c.status.conditions, "DisruptionReason"))
    }

    /// Deleting for the scheduling simulation: marked for deletion, or already in Karpenter's
    /// orchestration queue — the queue's `StartCommand` marks its candidates for deletion in
    /// memory (`Cluster.MarkForDeletion`), which a snapshot shows as the taint or condition.
    ///
    /// Mirrors karpenter `pkg/controllers/state/statenode.go` `StateNode.MarkedForDeletion` as
    /// `StateNodes.Deleting` reads it.
    pub fn deleting(&self, rules: &RuleSet) -> bool {
        self.marked_for_deletion(rules) || self.already_disrupting()
    }

    /// The Node's `Ready` condition is `True`.
    pub fn ready(&self) -> bool {
        self.node.is_some_and(|n| is_true(&n.status.conditions, "Ready"))
    }

    pub fn taints(&self) -> &[Taint] {
        match (self.node, self.claim) {
            (Some(n), _) => &n.spec.taints,
            (None, Some(c)) => &c.spec.taints,
            (None, None) => &[],
        }
    }

    /// Allocatable; for a node not yet reporting it, the NodeClaim's.
    pub fn allocatable(&self) -> Resources {
        let from_node = self.node.map(|n| n.status.allocatable.clone()).unwrap_or_default();
        let mut out = self.claim.map(|c| c.status.allocatable.clone()).unwrap_or_default();
        for (k, v) in from_node {
            if v.milli() != 0 || !out.contains_key(&k) {
                out.insert(k, v);
            }
        }
        out
    }

    /// `spec.unschedulable` (cordoned).
    pub fn cordoned(&self) -> bool {
        self.node.is_some_and(|n| n.spec.unschedulable)
    }

    pub fn claim_name(&self) -> Option<&str> {
        self.claim.map(|c| c.metadata.name.as_str())
    }

    /// Whether `name` names this node, as its Node or its NodeClaim.
    pub fn is_named(&self, name: &str) -> bool {
        self.name == name || self.claim_name() == Some(name)
    }
}

fn empty_map() -> &'static StringMap {
    static EMPTY: std::sync::OnceLock<StringMap> = std::sync::OnceLock::new();
    EMPTY.get_or_init(StringMap::new)
}

/// The whole cluster at `now`.
#[derive(Debug)]
pub struct Cluster<'a> {
    pub snapshot: &'a Snapshot,
    pub now: Timestamp,
    /// Sorted by name.
    pub nodes: Vec<StateNode<'a>>,
    pub node_index: HashMap<&'a str, usize>,
    pub pools: BTreeMap<&'a str, &'a NodePool>,
    pub instance_types: BTreeMap<&'a str, &'a InstanceType>,
    /// Pods not bound to any node.
    pub unbound_pods: Vec<&'a Pod>,
    /// Claims, volumes and classes by name, for volume topology and attach limits.
    pub volumes: super::scheduling::volume_topology::VolumeIndex<'a>,
    /// What a forecast knows of every pod of the snapshot (`None` outside a forecast).
    pub(crate) known: Option<Arc<PodTable>>,
    /// Per pod position, whether it is terminal or terminating, read once per round so that
    /// the passes over every pod read these bytes, not the pods (empty: not read; see
    /// [`Cluster::read_pod_status_from`]).
    pod_status: Arc<[u8]>,
}

const TERMINAL: u8 = 1;
const TERMINATING: u8 = 2;

/// A pod's [`TERMINAL`] and [`TERMINATING`] bits.
fn status_byte(p: &Pod) -> u8 {
    (u8::from(pod::is_terminal(p)) * TERMINAL) | (u8::from(pod::is_terminating(p)) * TERMINATING)
}

/// Node name → positions in `snapshot.pods` of the pods whose `spec.nodeName` it is,
/// ascending: what a forecast keeps up to date as it moves pods, so that each round's cluster
/// is grouped from it instead of from a read of every pod.
pub(crate) type PodsByNode = HashMap<String, Vec<usize>>;

impl<'a> Cluster<'a> {
    /// The rules of the core version replayed (`SnapshotInfo::rules`).
    pub(crate) fn rules(&self) -> &'a crate::rules::RuleSet {
        &self.snapshot.info.rules
    }

    pub fn new(snapshot: &'a Snapshot, now: Timestamp) -> Self {
        Self::build(snapshot, now, None)
    }

    /// The same, with the pods grouped by `bindings` (which must say what the pods'
    /// `spec.nodeName` say; checked in debug builds).
    pub(crate) fn with_bindings(snapshot: &'a Snapshot, now: Timestamp, bindings: &PodsByNode) -> Self {
        let cluster = Self::build(snapshot, now, Some(bindings));
        #[cfg(debug_assertions)]
        {
            let scanned = Self::build(snapshot, now, None);
            let addresses = |pods: &[&Pod]| pods.iter().map(|p| std::ptr::from_ref(*p)).collect::<Vec<_>>();
            for (kept, read) in cluster.nodes.iter().zip(&scanned.nodes) {
                assert_eq!(addresses(&kept.pods), addresses(&read.pods), "the pods bound to {}", kept.name);
            }
            assert_eq!(addresses(&cluster.unbound_pods), addresses(&scanned.unbound_pods), "the unbound pods");
        }
        cluster
    }

    fn build(snapshot: &'a Snapshot, now: Timestamp, bindings: Option<&PodsByNode>) -> Self {
        let mut claims_by_provider: HashMap<&str, &NodeClaim> = HashMap::new();
        let mut claims_by_node: HashMap<&str, &NodeClaim> = HashMap::new();
        // From v1.1.0 (#1818) cluster state holds only the NodeClaims and NodePools of the
        // provider's NodeClass kinds; a Node whose NodeClaim is another kind's is unmanaged.
        let rules = &snapshot.info.rules;
        let owned = |claim: &&NodeClaim| rules.owns_node_class(claim.spec.node_class_ref.as_ref());
        for claim in snapshot.node_claims.iter().filter(owned) {
            if let Some(id) = claim.status.provider_id.as_deref().filter(|s| !s.is_empty()) {
                claims_by_provider.insert(id, claim);
            }
            if let Some(name) = claim.status.node_name.as_deref().filter(|s| !s.is_empty()) {
                claims_by_node.insert(name, claim);
            }
        }
        let mut paired = HashSet::new();
        let mut nodes: Vec<StateNode<'a>> = Vec::new();
        for node in &snapshot.nodes {
            let claim = node
                .spec
                .provider_id
                .as_deref()
                .and_then(|id| claims_by_provider.get(id).copied())
                .or_else(|| claims_by_node.get(node.metadata.name.as_str()).copied());
            if let Some(c) = claim {
                paired.insert(c.metadata.name.as_str());
            }
            nodes.push(StateNode { name: node.metadata.name.clone(), node: Some(node), claim, pods: Vec::new() });
        }
        for claim in snapshot.node_claims.iter().filter(owned) {
            if !paired.contains(claim.metadata.name.as_str()) {
                nodes.push(StateNode {
                    name: claim.metadata.name.clone(),
                    node: None,
                    claim: Some(claim),
                    pods: Vec::new(),
                });
            }
        }
        nodes.sort_by(|a, b| a.name.cmp(&b.name));
        let node_index: HashMap<&'a str, usize> = HashMap::new();
        let mut cluster = Cluster {
            snapshot,
            now,
            nodes,
            node_index,
            pools: snapshot
                .node_pools
                .iter()
                .filter(|p| rules.owns_node_class(p.spec.template.spec.node_class_ref.as_ref()))
                .map(|p| (p.metadata.name.as_str(), p))
                .collect(),
            instance_types: default_variants(&snapshot.instance_types),
            unbound_pods: Vec::new(),
            volumes: super::scheduling::volume_topology::VolumeIndex::new(snapshot),
            known: None,
            pod_status: Arc::from([]),
        };
        let mut by_name: HashMap<&'a str, usize> = HashMap::new();
        for (i, n) in cluster.nodes.iter().enumerate() {
            if let Some(node) = n.node {
                by_name.insert(node.metadata.name.as_str(), i);
            } else if let Some(claim) = n.claim {
                by_name.insert(claim.metadata.name.as_str(), i);
            }
        }
        match bindings {
            None => {
                for pod in &snapshot.pods {
                    match pod.spec.node_name.as_deref().and_then(|n| by_name.get(n)) {
                        Some(&i) => cluster.nodes[i].pods.push(pod),
                        None => cluster.unbound_pods.push(pod),
                    }
                }
            }
            Some(bindings) => {
                let mut bound = vec![false; snapshot.pods.len()];
                for (name, &i) in &by_name {
                    for &p in bindings.get(*name).into_iter().flatten() {
                        bound[p] = true;
                        cluster.nodes[i].pods.push(&snapshot.pods[p]);
                    }
                }
                cluster.unbound_pods = bound.iter().zip(&snapshot.pods).filter(|(b, _)| !**b).map(|(_, p)| p).collect();
            }
        }
        cluster.node_index = by_name;
        cluster
    }

    pub fn node(&self, name: &str) -> Option<&StateNode<'a>> {
        self.node_index.get(name).map(|&i| &self.nodes[i])
    }

    pub fn pool_of(&self, node: &StateNode<'_>) -> Option<&'a NodePool> {
        node.node_pool_name().and_then(|p| self.pools.get(p).copied())
    }

    /// Reads every pod's terminal and terminating state once (what a forecast's round does:
    /// it passes over every pod several times), from `kept` (the last round's) when `changed`
    /// names every pod whose phase or deletion timestamp changed since: only those and the
    /// appended pods are read then. `kept` is brought up to date either way. Debug builds read
    /// every pod anyway and compare.
    pub(crate) fn read_pod_status_from(&mut self, kept: &mut Vec<u8>, changed: Option<Vec<usize>>) {
        let pods = &self.snapshot.pods;
        match changed.filter(|_| !kept.is_empty() && kept.len() <= pods.len()) {
            Some(changed) => {
                for i in changed {
                    if let (Some(slot), Some(p)) = (kept.get_mut(i), pods.get(i)) {
                        *slot = status_byte(p);
                    }
                }
                let from = kept.len();
                kept.extend(pods[from..].iter().map(status_byte));
            }
            None => *kept = pods.iter().map(status_byte).collect(),
        }
        debug_assert!(kept.iter().zip(pods).all(|(&s, p)| s == status_byte(p)), "a pod's status changed unannounced");
        self.pod_status = Arc::from(kept.as_slice());
    }

    /// The status bytes [`Cluster::read_pod_status_from`] read, when it ran.
    pub(crate) fn pod_status(&self) -> Option<Arc<[u8]>> {
        (!self.pod_status.is_empty()).then(|| Arc::clone(&self.pod_status))
    }

    fn status_of(&self, p: &Pod) -> Option<u8> {
        if self.pod_status.is_empty() {
            return None;
        }
        self.pod_status.get(position_in(&self.snapshot.pods, p)?).copied()
    }

    /// [`pod::is_terminal`], from the round's status when it was read.
    pub(crate) fn is_terminal(&self, p: &Pod) -> bool {
        self.status_of(p).map_or_else(|| pod::is_terminal(p), |s| s & TERMINAL != 0)
    }

    /// [`pod::is_active`], likewise.
    pub(crate) fn is_active(&self, p: &Pod) -> bool {
        self.status_of(p).map_or_else(|| pod::is_active(p), |s| s == 0)
    }

    /// The pod's fixed facts, when a forecast's table knows the pod.
    fn facts(&self, pod: &Pod) -> Option<PodFacts> {
        let table = self.known.as_deref()?;
        table.facts_of(position_in(&self.snapshot.pods, pod)?)
    }

    /// [`pod::is_reschedulable`] of the pod as written (its own phase and deletion, not the
    /// round's status), with the fixed facts from the table when there is one.
    pub(crate) fn is_reschedulable_as_written(&self, p: &Pod) -> bool {
        self.facts(p)
            .map_or_else(|| pod::is_reschedulable(p), |f| f.is_reschedulable(pod::is_active(p), pod::is_terminating(p)))
    }

    /// [`pod::is_reschedulable`], from the table when there is one.
    pub(crate) fn is_reschedulable(&self, p: &Pod) -> bool {
        match (self.facts(p), self.status_of(p)) {
            (Some(f), Some(s)) => f.is_reschedulable(s == 0, s & TERMINATING != 0),
            (Some(f), None) => f.is_reschedulable(pod::is_active(p), pod::is_terminating(p)),
            (None, _) => pod::is_reschedulable(p),
        }
    }

    /// [`pod::has_required_anti_affinity`], from the table when there is one (which spares a
    /// forecast's round a read of every pod's spec).
    pub(crate) fn has_required_anti_affinity(&self, p: &Pod) -> bool {
        self.facts(p).map_or_else(|| pod::has_required_anti_affinity(p), PodFacts::has_required_anti_affinity)
    }

    /// [`pod::is_owned_by_daemonset`], likewise.
    pub(crate) fn is_owned_by_daemonset(&self, p: &Pod) -> bool {
        self.facts(p).map_or_else(|| pod::is_owned_by_daemonset(p), PodFacts::is_owned_by_daemonset)
    }

    /// [`pod::do_not_disrupt`], likewise: `Absent` without reading the annotations when the
    /// table knows the pod has none.
    pub(crate) fn do_not_disrupt(&self, p: &Pod, now: Timestamp) -> pod::DoNotDisrupt {
        match self.facts(p) {
            Some(f) if !f.has_do_not_disrupt_annotation() => pod::DoNotDisrupt::Absent,
            _ => pod::do_not_disrupt(p, now, self.rules().has(crate::rules::Rule::DoNotDisruptDuration)),
        }
    }

    /// [`super::cost::eviction_cost`]'s `cost`, likewise.
    pub(crate) fn eviction_cost(&self, p: &Pod) -> f64 {
        self.facts(p).map_or_else(|| super::cost::eviction_cost(p).cost, PodFacts::eviction_cost)
    }
}

/// Instance types by name: the default NodeClass variant of each (prices are the same in every
/// variant; per-NodeClass capacity is read through the pool's template, `scheduling::world`).
fn default_variants(types: &[InstanceType]) -> BTreeMap<&str, &InstanceType> {
    let mut out: BTreeMap<&str, &InstanceType> = BTreeMap::new();
    for it in types {
        let slot = out.entry(it.name.as_str()).or_insert(it);
        if slot.node_class.is_some() && it.node_class.is_none() {
            *slot = it;
        }
    }
    out
}
