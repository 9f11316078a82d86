//! The data of the shared pods' reuse: the [`Baseline`] every simulation of a world compares
//! against and the [`Tracker`] a simulation keeps of what it changed. How they are computed
//! and read (which runs simulations) is in `shared_pods.rs`; the types live apart so that the
//! world (which keeps the baselines) and the scheduler (which holds a tracker) name them
//! without importing that code.

use std::cell::RefCell;
use std::collections::BTreeSet;
use std::rc::Rc;

use foldhash::{HashMap, HashSet};

use crate::engine::incremental::pod_index::PodIndex;
use crate::engine::scheduling::topology::{PodTerms, Rules};

/// Where a shared pod's first attempt went with no candidate removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum First {
    Node(usize),
    /// A NodeClaim of the baseline's own.
    Claim,
    Nowhere,
}

/// One shared pod as the baseline saw it.
#[derive(Debug)]
pub(super) struct SharedPod {
    pub(super) first: First,
    /// The topology rules of that attempt, when it took an existing node as queued (no
    /// preference relaxed): the only attempts reused.
    pub(super) rules: Option<Rules>,
    pub(super) terms: Rc<PodTerms>,
    /// Nodes holding a pod whose required anti-affinity selects this one, ascending.
    pub(super) holders: Vec<usize>,
}

/// The shared pods' first attempts in a simulation with no candidate (per value of
/// [`Options::consolidation`](crate::engine::scheduling::Options::consolidation), which
/// decides the destinations under consolidateAfter).
#[derive(Debug)]
pub(crate) struct Baseline {
    /// By pod address.
    pub(super) pods: HashMap<usize, SharedPod>,
    /// Per node: its position in the destination order.
    pub(super) position: Vec<usize>,
}

/// What one candidate's simulation changed against the [`Baseline`] during its first pass over
/// the queue (retries are always placed as usual).
#[derive(Debug)]
pub(in crate::engine) struct Tracker<'a> {
    pub(super) baseline: Rc<Baseline>,
    pub(super) candidates: Vec<usize>,
    /// Pods that sit elsewhere than in the baseline at this point: the candidates' pods that
    /// landed, and shared pods that went elsewhere (where they went in either pass).
    pub(super) moved: PodIndex<'a, ()>,
    /// The terms of those of them with required anti-affinity.
    pub(super) moved_anti: Vec<Rc<PodTerms>>,
    /// Positions (destination order) of the existing nodes that lost a pod against the
    /// baseline at this point (a shared pod that went elsewhere).
    pub(super) emptier: BTreeSet<usize>,
    /// Existing nodes holding a pod they did not hold in the baseline.
    pub(super) fuller: HashSet<usize>,
    /// Per topology filter (by address: the terms are shared and outlive the simulation):
    /// whether it selects a moved pod, and how many moved pods that answer covers.
    pub(super) seen_filters: RefCell<HashMap<usize, (bool, usize)>>,
    /// Shared pods whose first attempt is still to come: once none is, nothing is tracked.
    pub(super) shared_left: usize,
    /// Shared pods taken from the baseline, for tests and profiles.
    pub(in crate::engine) reused: usize,
}
