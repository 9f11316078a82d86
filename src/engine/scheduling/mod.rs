//! The scheduling simulation that decides "can these pods move?": Karpenter's
//! `SimulateScheduling` → `Scheduler.Solve`, replayed on the snapshot.
//!
//! The pods to place are the pending ones, the candidates' currently reschedulable ones
//! (`pdb.go IsCurrentlyReschedulable`) and those of every deleting node — marked for deletion
//! or already queued for disruption ([`crate::engine::state::StateNode::deleting`]), which takes no pod itself. A pod
//! placed on a node still initializing fails the move (`would schedule against uninitialized
//! …`) unless it comes from a deleting node (`helpers.go` `deletingNodePodKeys`).
//!
//! Karpenter's scheduler, file for file (`pkg/controllers/provisioning/scheduling/`, v1.14):
//!
//! | upstream | here |
//! |---|---|
//! | `scheduler.go` (`Solve`, `trySchedule`, `add*`) | `scheduler.rs` (limits: `scheduler/limits.rs`; `FinalizeScheduling`, truncation: `scheduler/finalize.rs`; what topology reads: `scheduler/view.rs`; what to simulate, the settings read: `scheduler/options.rs`) |
//! | `scheduler.go` (`Results`, `TruncateInstanceTypes`) | `results.rs` |
//! | `scheduler.go` (`PodData`), `pkg/scheduling/requirements.go` (`NewPodRequirements`) | `pod_data.rs` |
//! | `queue.go` | `queue.rs` |
//! | `preferences.go` | `preferences.rs` |
//! | `existingnode.go` | `existing_node.rs` (`NewExistingNode`, the node as built once: `existing_node/base.rs`) |
//! | kube-scheduler `framework/types.go` (`FitError`: "0/N nodes are available") | `fit_error.rs` (the per-class answers: `fit_error/refusal_class.rs`) |
//! | `nodeclaim.go` | `node_claim.rs` (`NodeClaim`, `NewNodeClaim`, `FinalizeScheduling`: `node_claim/claim.rs`) |
//! | `nodeclaimtemplate.go`, `scheduler.go` (`buildDaemonOverheadGroups`) | `node_claim_template.rs` |
//! | `pkg/scheduling/hostportusage.go` | `host_port_usage.rs` |
//! | `pkg/scheduling/taints.go` | `taints.rs` |
//! | `pkg/cloudprovider/types.go` (as the scheduler reads instance types) | `instance_types.rs` |
//! | `topology.go`, `topologygroup.go`, `topologynodefilter.go` | `topology.rs`, `topology_group.rs`, `topology_node_filter.rs` |
//! | `volumetopology.go`, `pkg/scheduling/volumeusage.go` | `volume_topology.rs`, `volume_usage.rs` |
//! | `pkg/scheduling/requirement*.go` | `requirements.rs` |
//!
//! Every file here is a twin. What makes the simulations fast and has no upstream twin (the
//! shared [`World`], its indexes, the shared pods' baseline, what a forecast keeps between
//! rounds) lives in [`crate::engine::incremental`], with what each cache keys on.
//!
//! Imports go one way: the plain types (the node as built once, the NodeClaim, the
//! options, the queue, the requirement and topology types) never import the world; the world
//! is built from them; the simulation (`scheduler.rs` and the files that add to `Simulation`:
//! `existing_node.rs`, `node_claim.rs`, `fit_error.rs`) reads the world. Where a plain type's
//! file needs something of the world, it takes a seam of its own (`queue::RequestsLookup`).
//!
//! Pods are queued by CPU then memory (descending); a pod that fails goes back and is retried
//! while the pass makes progress. Each goes to the first existing node that takes it
//! (initialized first, then by name), else to a NodeClaim this simulation already opened
//! (fewest pods first), else to a new NodeClaim from the first NodePool (by weight). Preferences
//! bind until relaxed, one at a time in upstream's order (`preferences.rs`).
//!
//! Approximated, with the reason:
//! - reserved capacity: a snapshot has no reservation counts, so every available reserved
//!   offering is taken to have room (`ReservationManager.CanReserve`), and the disruption
//!   simulations' fallback mode never raises a reserved-offering error;
//! - DRA with `IGNORE_DRA_REQUESTS=false`: upstream allocates devices from ResourceSlices and
//!   DeviceClasses, which the snapshot does not carry; the pod is placed as an ordinary one and
//!   its move says so;
//! - the per-instance-type filter error: Karpenter's `InstanceTypeFilterError` distinguishes
//!   requirements, resources and offerings; ours names the resources (or the host ports, or
//!   minValues) that no type satisfied;
//! - a generic ephemeral volume whose claim does not exist yet: we read the claim template's
//!   StorageClass; upstream's provisioner drops such a pod from the simulation when the lookup
//!   fails (`provisioner.go` volume topology injection). Only pending pods can lack their claim;
//! - topology of pods on NodeClaims still open over several domains: see `topology.rs`;
//! - NodeClaims are tried in order of fewest pods with a stable sort (upstream's `sort.Slice`
//!   is unstable), and the simulation has no timeout.
//!
//! A simulation never copies the cluster: it reads the shared [`World`] and records only what
//! it changes (pods placed on existing nodes, the NodeClaims it opens).

pub(in crate::engine) mod existing_node;
pub(in crate::engine) mod fit_error;
pub(in crate::engine) mod host_port_usage;
pub(in crate::engine) mod instance_types;
pub(in crate::engine) mod node_claim;
pub(in crate::engine) mod node_claim_template;
pub(in crate::engine) mod pending_filter;
pub(in crate::engine) mod pod_data;
pub(in crate::engine) mod preferences;
pub(in crate::engine) mod queue;
pub mod requirements;
pub(in crate::engine) mod results;
pub(in crate::engine) mod scheduler;
pub(crate) mod taints;
pub(crate) mod topology;
pub(crate) mod topology_group;
pub(crate) mod topology_node_filter;
pub(crate) mod volume_topology;
pub(crate) mod volume_usage;

pub use self::instance_types::{
    allocatable, instance_type_compatible, instance_type_values, offering_compatible, sort_by_cheapest,
};
pub(crate) use self::node_claim_template::pool_instance_types;
pub use self::results::{Destination, NewClaim, PodMove, Results, MAX_REJECTIONS};
pub use self::scheduler::Options;
use self::scheduler::Simulation;
pub use crate::engine::incremental::world::{PodsInPlace, World};
pub use crate::engine::incremental::world_memo::WorldMemo;
use crate::reason::{Code, Reason};

/// Why no scheduler can be built this round, if so: no NodePool is left once static, deleting
/// and not-`Ready` pools are set aside (`ErrNodePoolsNotFound`). Every simulation then fails,
/// before a pod is placed, even on existing nodes.
///
/// Mirrors [`crate::upstream::NEW_SCHEDULER`].
pub(crate) fn scheduler_error(world: &World<'_, '_>) -> Option<Reason> {
    if !world.templates.is_empty() {
        return None;
    }
    let not_ready: Vec<&str> = world
        .cluster
        .pools
        .values()
        .filter(|p| p.spec.replicas.is_none() && p.metadata.deletion_timestamp.is_none())
        .filter(|p| !node_claim_template::pool_ready(p))
        .map(|p| p.metadata.name.as_str())
        .collect();
    let message = if not_ready.is_empty() {
        "no nodepools found: no NodePool can launch capacity, so the scheduling simulation fails".to_owned()
    } else {
        format!(
            "no nodepools found: no NodePool is Ready ({} without Ready=True), so the scheduling simulation fails",
            not_ready.iter().map(|n| format!("\"{n}\"")).collect::<Vec<_>>().join(", ")
        )
    };
    Some(Reason::new(Code::NoReadyNodePool, message))
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
