//! A replacement's launch: the instance type and offering Karpenter's launch would pick, and
//! the Node and NodeClaim that appear for it, initialized after the launch delay.
//!
//! The choice is the cheapest available offering among the replacement's instance types whose
//! zone and capacity type the replacement allows (aws/karpenter-provider-aws
//! `pkg/providers/instance/instance.go` launches with CreateFleet's `lowest-price` strategy for
//! on-demand; spot uses `price-capacity-optimized`, which may pick a dearer pool: the forecast's
//! figure is the lowest price, as the consolidation's own savings are).

use foldhash::HashMap;
use jiff::{SignedDuration, Timestamp};

use super::state::State;
use crate::engine::labels::{CAPACITY_TYPE, HOSTNAME, INITIALIZED, INSTANCE_TYPE, NODEPOOL, REGISTERED, ZONE};
use crate::engine::method::Replacement;
use crate::engine::scheduling::taints::{lifted_at_initialization, EphemeralTaints};
use crate::engine::scheduling::{allocatable, offering_compatible, NewClaim};
use crate::snapshot::{is_true, Condition, InstanceType, Node, NodeClaim, Offering, Snapshot, StringMap};

/// The node a replacement became.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Launch {
    pub node: String,
    pub node_pool: String,
    pub instance_type: String,
    pub zone: String,
    pub capacity_type: String,
    /// `None` when the catalogue has no price for the offering.
    pub price: Option<f64>,
}

/// The cheapest available offering among the replacement's options: (type, offering).
pub(crate) fn cheapest_offering<'s>(
    types: &'s [InstanceType],
    replacement: &Replacement,
    claim: Option<&NewClaim>,
) -> Option<(&'s InstanceType, &'s Offering)> {
    let capacity_types: Vec<&str> = replacement.capacity_type.split(',').filter(|s| !s.is_empty()).collect();
    let allowed = |o: &Offering| {
        o.available
            && (capacity_types.is_empty() || capacity_types.contains(&o.capacity_type.as_str()))
            && (replacement.zones.is_empty() || replacement.zones.contains(&o.zone))
            && claim.is_none_or(|c| offering_compatible(o, &c.requirements))
    };
    let price = |o: &Offering| o.price.unwrap_or(f64::INFINITY);
    replacement
        .instance_types
        .iter()
        .filter_map(|name| types.iter().find(|t| &t.name == name))
        .flat_map(|t| t.offerings.iter().filter(|o| allowed(o)).map(move |o| (t, o)))
        .min_by(|(ta, a), (tb, b)| {
            price(a).total_cmp(&price(b)).then_with(|| (&ta.name, &a.zone).cmp(&(&tb.name, &b.zone)))
        })
}

/// Creates the replacement's NodeClaim and Node, not yet initialized (`queue.go`
/// `createReplacementNodeClaims`). `like` is a candidate the node copies its pool-independent
/// labels (os, arch) and DaemonSet pods from.
pub(crate) fn launch(
    state: &mut State,
    replacement: &Replacement,
    claim: Option<&NewClaim>,
    like: Option<&str>,
    at: Timestamp,
) -> Launch {
    let name = format!("forecast-{}-{}", replacement.node_pool, state.launched);
    let launched = new_node(&mut state.snapshot, &name, "forecast", replacement, claim, like, at);
    state.touch(&name);
    if let Some(like) = like {
        let copies = daemon_pod_copies(state.pods_on(like).iter().map(|&i| &state.snapshot.pods[i]), &name);
        for copy in copies {
            state.push_pod(copy);
        }
    }
    launched
}

/// The NodeClaim and Node a launch creates, named `name` (provider ID
/// `{scheme}:///{zone}/{name}`), on the cheapest available offering among the replacement's
/// options ([`cheapest_offering`]), registered but not initialized, appended to `snapshot`.
/// `like` is a node whose pool-independent labels (os, arch) the new node copies. Shared by the
/// forecast's replacements ([`launch`]) and the provisioner's new NodeClaims
/// (`engine/provisioner.rs`).
pub(crate) fn new_node(
    snapshot: &mut Snapshot,
    name: &str,
    scheme: &str,
    replacement: &Replacement,
    claim: Option<&NewClaim>,
    like: Option<&str>,
    at: Timestamp,
) -> Launch {
    let chosen = cheapest_offering(&snapshot.instance_types, replacement, claim);
    let (it, offering) = match chosen {
        Some((it, o)) => (Some(it.clone()), Some(o.clone())),
        None => (None, None),
    };
    let launch = Launch {
        node: name.to_owned(),
        node_pool: replacement.node_pool.clone(),
        instance_type: it
            .as_ref()
            .map_or_else(|| replacement.instance_types.first().cloned().unwrap_or_default(), |t| t.name.clone()),
        zone: offering.as_ref().map(|o| o.zone.clone()).unwrap_or_default(),
        capacity_type: offering.as_ref().map(|o| o.capacity_type.clone()).unwrap_or_default(),
        price: offering.as_ref().and_then(|o| o.price),
    };
    let template = snapshot.node_pools.iter().find(|p| p.metadata.name == replacement.node_pool);
    let mut labels: StringMap = StringMap::new();
    if let Some(like) = like.and_then(|n| snapshot.nodes.iter().find(|x| x.metadata.name == n)) {
        for key in ["kubernetes.io/os", "kubernetes.io/arch"] {
            if let Some(v) = like.metadata.labels.get(key) {
                labels.insert(key.into(), v.clone());
            }
        }
    }
    if let Some(it) = &it {
        labels.extend(it.labels.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    if let Some(pool) = template {
        labels.extend(pool.spec.template.metadata.labels.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    for (k, v) in [
        (HOSTNAME, name),
        (INSTANCE_TYPE, launch.instance_type.as_str()),
        (ZONE, launch.zone.as_str()),
        (CAPACITY_TYPE, launch.capacity_type.as_str()),
        (NODEPOOL, launch.node_pool.as_str()),
        (REGISTERED, "true"),
    ] {
        labels.insert(k.into(), v.into());
    }
    let provider = format!("{scheme}:///{}/{name}", launch.zone);
    let resources = it.as_ref().map(allocatable).unwrap_or_default();
    let mut node = Node::default();
    name.clone_into(&mut node.metadata.name);
    node.metadata.labels.clone_from(&labels);
    node.metadata.creation_timestamp = Some(at);
    node.spec.provider_id = Some(provider.clone());
    node.spec.taints = template.map(|p| p.spec.template.spec.taints.clone()).unwrap_or_default();
    node.status.capacity = it.as_ref().map(|t| t.capacity.clone()).unwrap_or_default();
    node.status.allocatable = resources.clone();
    node.status.conditions.push(condition("Ready", "False", at));
    let mut nodeclaim = NodeClaim::default();
    nodeclaim.metadata.name = format!("{name}-claim");
    nodeclaim.metadata.labels = labels;
    nodeclaim.metadata.creation_timestamp = Some(at);
    // A new NodeClaim takes its NodePool template's `terminationGracePeriod` (karpenter
    // `provisioning/scheduling/nodeclaimtemplate.go` `ToNodeClaim`), which bounds its own drain.
    nodeclaim.spec.termination_grace_period =
        template.and_then(|p| p.spec.template.spec.termination_grace_period.clone());
    nodeclaim.status.node_name = Some(name.to_owned());
    nodeclaim.status.provider_id = Some(provider);
    nodeclaim.status.capacity.clone_from(&node.status.capacity);
    nodeclaim.status.allocatable = resources;
    nodeclaim.status.conditions.push(condition("Launched", "True", at));
    snapshot.nodes.push(node);
    snapshot.node_claims.push(nodeclaim);
    launch
}

/// The DaemonSet pods a new node `to` runs, copied from `pods` (another node's): the DaemonSet
/// controller creates one per node whose labels and taints it fits; that node's set is the
/// estimate.
pub(crate) fn daemon_pod_copies<'p>(
    pods: impl Iterator<Item = &'p crate::snapshot::Pod>,
    to: &str,
) -> Vec<crate::snapshot::Pod> {
    pods.filter(|p| crate::engine::pod::is_owned_by_daemonset(p))
        .map(|p| {
            let mut copy = p.clone();
            copy.metadata.name = format!("{}-{to}", p.metadata.name);
            copy.spec.node_name = Some(to.to_owned());
            copy
        })
        .collect()
}

/// A node launched before the snapshot and not initialized at its start, and what the forecast
/// takes it to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Launching {
    pub node: String,
    /// When it initializes; `None`: it stays uninitialized.
    pub at: Option<Timestamp>,
    pub why: String,
}

/// The managed nodes the snapshot shows launched but not initialized (a NodeClaim, not
/// deleting, whose Node lacks `karpenter.sh/initialized` or has not registered yet): a
/// command's replacement or a launch for pending pods that Karpenter made just before the
/// snapshot. One without a Node gets one, named after the claim ([`register`]). Each initializes, as
/// the forecast's own replacements do, once the launch delay has passed since its NodeClaim was
/// created. One already past that delay stays uninitialized: initialization (karpenter
/// `pkg/controllers/nodeclaim/lifecycle/initialization.go` `Reconcile`) waits on something the
/// snapshot may show (the Node not `Ready`, a startup or known ephemeral taint, the reason on
/// the NodeClaim's `Initialized` condition) or may not (a requested resource its device plugin
/// never registered), and when that ends no snapshot says. A longer `--launch-delay` lets a
/// slow launch through.
pub(crate) fn launching(snapshot: &Snapshot, now: Timestamp, launch_delay: SignedDuration) -> Vec<Launching> {
    let nodes = NodesOf::new(snapshot);
    let mut out: Vec<Launching> = snapshot
        .node_claims
        .iter()
        .filter(|c| c.metadata.deletion_timestamp.is_none())
        .filter_map(|claim| {
            let node = nodes.of(claim);
            let initialized = node.is_some_and(|n| n.metadata.labels.get(INITIALIZED).is_some_and(|v| v == "true"));
            if initialized || node.is_some_and(|n| n.metadata.deletion_timestamp.is_some()) {
                return None;
            }
            let created = claim.metadata.creation_timestamp.or(node.and_then(|n| n.metadata.creation_timestamp));
            let expected = created.unwrap_or(now) + launch_delay;
            let (name, at, why) = match node {
                Some(node) if expected > now => {
                    (&node.metadata.name, Some(expected), "its NodeClaim's creation + the launch delay".to_owned())
                }
                Some(node) => {
                    let wait = still_waiting_on(node, claim);
                    (&node.metadata.name, None, format!("already past the launch delay; {wait}"))
                }
                // In flight: no Node has registered for it yet. Its Node, named after it,
                // registers and initializes together.
                None if expected > now => (
                    &claim.metadata.name,
                    Some(expected),
                    "no Node registered yet; its NodeClaim's creation + the launch delay".to_owned(),
                ),
                None => (
                    &claim.metadata.name,
                    None,
                    "already past the launch delay and no Node registered for it".to_owned(),
                ),
            };
            Some(Launching { node: name.clone(), at, why })
        })
        .collect();
    out.sort_by(|a, b| a.node.cmp(&b.node));
    out
}

/// The snapshot's Nodes by provider ID and by name, to find a claim's Node as the replay pairs
/// them (`state.rs`): by provider ID, else by the name the claim gives.
struct NodesOf<'s> {
    by_provider: HashMap<&'s str, &'s Node>,
    by_name: HashMap<&'s str, &'s Node>,
}

impl<'s> NodesOf<'s> {
    fn new(snapshot: &'s Snapshot) -> Self {
        let nodes = snapshot.nodes.iter();
        NodesOf {
            by_provider: nodes.clone().filter_map(|n| Some((n.spec.provider_id.as_deref()?, n))).collect(),
            by_name: nodes.map(|n| (n.metadata.name.as_str(), n)).collect(),
        }
    }

    fn of(&self, claim: &NodeClaim) -> Option<&'s Node> {
        let provider = claim.status.provider_id.as_deref().filter(|s| !s.is_empty());
        provider
            .and_then(|id| self.by_provider.get(id).copied())
            .or_else(|| self.by_name.get(claim.status.node_name.as_deref()?).copied())
    }
}

/// A NodeClaim launched before the snapshot gets its Node, named after the claim, with its
/// capacity, and its labels, annotations and taints as karpenter
/// `pkg/controllers/nodeclaim/lifecycle/registration.go` `syncNode` copies them.
pub(crate) fn register(state: &mut State, claim_name: &str, at: Timestamp) {
    let Some(claim) = state.snapshot.node_claims.iter_mut().find(|c| c.metadata.name == claim_name) else { return };
    claim.status.node_name = Some(claim_name.to_owned());
    let provider = claim.status.provider_id.clone().unwrap_or_else(|| format!("forecast:///{claim_name}"));
    claim.status.provider_id = Some(provider.clone());
    let mut node = Node::default();
    claim_name.clone_into(&mut node.metadata.name);
    node.metadata.labels.clone_from(&claim.metadata.labels);
    node.metadata.annotations.clone_from(&claim.metadata.annotations);
    node.metadata.labels.insert(HOSTNAME.into(), claim_name.to_owned());
    node.metadata.labels.insert(REGISTERED.into(), "true".into());
    node.metadata.creation_timestamp = Some(at);
    node.spec.provider_id = Some(provider);
    node.spec.taints.clone_from(&claim.spec.taints);
    node.status.capacity.clone_from(&claim.status.capacity);
    node.status.allocatable = if claim.status.allocatable.is_empty() {
        claim.status.capacity.clone()
    } else {
        claim.status.allocatable.clone()
    };
    state.touch(claim_name);
    state.snapshot.nodes.push(node);
}

/// What a launched node's initialization waits for, as the snapshot shows it (in the order
/// `initialization.go` checks).
fn still_waiting_on(node: &Node, claim: &NodeClaim) -> String {
    if !is_true(&node.status.conditions, "Ready") {
        return "its Node is not Ready".to_owned();
    }
    let startup = node.spec.taints.iter().find(|t| claim.spec.startup_taints.contains(t));
    if let Some(t) = startup.or_else(|| node.spec.taints.iter().find(|t| EphemeralTaints::NEWEST.contains(t))) {
        return format!("its Node still has the taint {}:{}", t.key, t.effect);
    }
    let said = claim.status.conditions.iter().find(|c| c.type_ == "Initialized").map(|c| {
        let reason = c.reason.as_deref().unwrap_or_default();
        let message = c.message.as_deref().unwrap_or_default();
        if message.is_empty() {
            reason.to_owned()
        } else {
            format!("{reason}: {message}")
        }
    });
    match said.filter(|s| !s.is_empty() && s != "NotInitialized") {
        Some(said) => format!("its NodeClaim says {said}"),
        None => "the snapshot does not show what it waits for".to_owned(),
    }
}

/// The node registered and initialized (`Initialized` on the claim, the
/// `karpenter.sh/initialized` label, `Ready`, no startup or known ephemeral taint left on the
/// Node). Consolidatable follows at once: its consolidateAfter counts from the last pod event
/// (`nodeclaim/disruption/consolidation.go`).
pub(crate) fn initialize(state: &mut State, name: &str, at: Timestamp) {
    state.touch(name);
    initialize_node(&mut state.snapshot, name, at);
}

/// [`initialize`] on a bare snapshot (the provisioner's new NodeClaims, `engine/provisioner.rs`).
pub(crate) fn initialize_node(snapshot: &mut Snapshot, name: &str, at: Timestamp) {
    let provider = snapshot.nodes.iter().find(|n| n.metadata.name == name).and_then(|n| n.spec.provider_id.clone());
    let is_its_claim = |c: &NodeClaim| {
        c.status.node_name.as_deref() == Some(name)
            || provider.as_deref().is_some_and(|id| c.status.provider_id.as_deref() == Some(id))
    };
    let startup: Vec<crate::snapshot::Taint> = snapshot
        .node_claims
        .iter()
        .find(|c| is_its_claim(c))
        .map(|c| c.spec.startup_taints.clone())
        .unwrap_or_default();
    if let Some(node) = snapshot.nodes.iter_mut().find(|n| n.metadata.name == name) {
        node.metadata.labels.insert(INITIALIZED.into(), "true".into());
        node.spec.taints.retain(|t| !lifted_at_initialization(t, &startup, EphemeralTaints::NEWEST));
        node.status.conditions.retain(|c| c.type_ != "Ready");
        node.status.conditions.push(condition("Ready", "True", at));
    }
    if let Some(claim) = snapshot.node_claims.iter_mut().find(|c| is_its_claim(c)) {
        claim.metadata.labels.insert(INITIALIZED.into(), "true".into());
        for kind in ["Registered", "Initialized", "Consolidatable"] {
            claim.status.conditions.retain(|c| c.type_ != kind);
            claim.status.conditions.push(condition(kind, "True", at));
        }
    }
}

fn condition(kind: &str, status: &str, at: Timestamp) -> Condition {
    Condition { type_: kind.into(), status: status.into(), last_transition_time: Some(at), ..Condition::default() }
}
