//! What a simulation returns: where each pod went, and the NodeClaims it would launch.
//!
//! Mirrors karpenter `pkg/controllers/provisioning/scheduling/scheduler.go` (`Results`,
//! `AllNonPendingPodsScheduled`, `NonPendingPodSchedulingErrors`).

use super::instance_types::sort_by_cheapest;
use super::requirements::Requirements;
use super::scheduler::options::Options;
use crate::engine::min_values::MinValues;
use crate::snapshot::{InstanceType, Resources};

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
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NewClaim {
    pub node_pool: String,
    pub requirements: Requirements,
    /// Compatible instance types, cheapest available compatible offering first.
    pub instance_types: Vec<String>,
    pub pods: Vec<String>,
    pub requests: Resources,
    /// The NodePool's minValues as the claim carries them: lowered to what its instance types
    /// reach under `MIN_VALUES_POLICY=BestEffort`.
    pub(crate) min_values: MinValues,
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

/// How many instance types a NodeClaim keeps (`scheduling.MaxInstanceTypes`).
pub(in crate::engine) const MAX_INSTANCE_TYPES: usize = 600;

/// What it was before v1.7.0 (#2430; karpenter v1.6.4 `nodeclaimtemplate.go:40`).
const MAX_INSTANCE_TYPES_BEFORE_1_7: usize = 60;

/// `MaxInstanceTypes` under `rules`.
pub(in crate::engine) fn max_instance_types(rules: &crate::rules::RuleSet) -> usize {
    if rules.has(crate::rules::Rule::MaxInstanceTypes600) {
        MAX_INSTANCE_TYPES
    } else {
        MAX_INSTANCE_TYPES_BEFORE_1_7
    }
}

/// The cheapest `max` (see [`max_instance_types`]) of a claim's types under its final requirements; an
/// error when they no longer satisfy minValues and the policy is `Strict`. `types` come cheapest
/// first unless `resort`.
///
/// Mirrors karpenter `pkg/cloudprovider/types.go` `InstanceTypes.Truncate` as
/// `scheduler.go Results.TruncateInstanceTypes` calls it.
pub(crate) fn truncate_instance_types<'a>(
    types: &[&'a InstanceType],
    requirements: &Requirements,
    min_values: &MinValues,
    best_effort: bool,
    resort: bool,
    max: usize,
) -> Result<Vec<&'a InstanceType>, String> {
    let mut truncated = types.to_vec();
    if resort {
        sort_by_cheapest(&mut truncated, requirements);
    }
    truncated.truncate(max);
    if !best_effort {
        min_values.satisfied_by(&truncated).map_err(|e| format!("validating minValues, {e}"))?;
    }
    Ok(truncated)
}
