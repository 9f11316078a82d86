//! What a simulation is asked to do ([`Options`]) and Karpenter's settings it reads
//! ([`Settings`]): plain data, apart from the scheduler so that the results and the shared
//! [`crate::engine::incremental::world::World`] can name them without importing the scheduler.

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
    /// Only the decision is read (does every bound pod land, on how many new NodeClaims),
    /// never why a pod failed: no refusals or NodePool errors are written, and the pass stops
    /// as soon as the answer is no consolidation: a bound pod can land nowhere whatever happens
    /// (see [`Simulation::doomed`](super::Simulation::doomed)), a bound pod landed on a node
    /// not yet initialized (see [`Simulation::outcome`](super::Simulation::outcome)), or bound
    /// pods already sit on two new NodeClaims (the moves are then only those made so far). For
    /// the candidates of a round nobody asked about.
    pub decision_only: bool,
}

/// Karpenter's settings the scheduler reads (resolved into the snapshot by `settings.rs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Settings {
    /// `PREFERENCE_POLICY=Ignore` (`scheduling.IgnorePreferences`).
    pub(crate) ignore_preferences: bool,
    /// `MIN_VALUES_POLICY=BestEffort` (`relaxMinValues`).
    pub(crate) min_values_best_effort: bool,
    /// `IGNORE_DRA_REQUESTS` (default true).
    pub(crate) ignore_dra_requests: bool,
    /// The `ReservedCapacity` feature gate (default on).
    pub(crate) reserved_capacity: bool,
}

impl Settings {
    pub(crate) fn of(snapshot: &crate::snapshot::Snapshot) -> Self {
        // A setting the replayed version does not have is not read (`rules::options`).
        let get = |k: &str| {
            crate::rules::options::setting_exists(&snapshot.info.rules, k)
                .then(|| snapshot.info.settings.get(k).map(|s| s.value.trim().to_owned()))
                .flatten()
        };
        Settings {
            ignore_preferences: get("PREFERENCE_POLICY").as_deref() == Some("Ignore"),
            min_values_best_effort: get("MIN_VALUES_POLICY").as_deref() == Some("BestEffort"),
            ignore_dra_requests: get("IGNORE_DRA_REQUESTS").is_none_or(|v| v != "false"),
            reserved_capacity: snapshot.feature_gate("ReservedCapacity"),
        }
    }
}
