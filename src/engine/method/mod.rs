//! The disruption methods, one file each, in the order `NewMethods` registers them:
//! Emptiness, StaticDrift, Drift, MultiNodeConsolidation, SingleNodeConsolidation.
//!
//! Not replayed: the 15 s validation re-check (`validation.go`) — an offline replay cannot
//! wait, so commands are reported "as of the snapshot" — and the orchestration queue
//! (`queue.go`), which only executes commands.

pub(crate) mod candidate_prices;
pub(crate) mod consolidation;
pub(crate) mod drift;
pub(crate) mod emptiness;
pub(crate) mod multi_node;
pub(crate) mod single_node;

use super::scheduling::Results;
use crate::reason::Reason;

/// One disruption method.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Method {
    Emptiness,
    StaticDrift,
    Drift,
    MultiNode,
    SingleNode,
}

impl Method {
    /// Production order (`NewMethods`): Emptiness first.
    pub const ALL: [Method; 5] =
        [Method::Emptiness, Method::StaticDrift, Method::Drift, Method::MultiNode, Method::SingleNode];

    /// Before v1.5.0 (#2180) `NewMethods` listed Drift first, then Emptiness (StaticDrift, from
    /// v1.8.0, acts only on pools with `spec.replicas`, which those versions' CRDs cannot hold).
    pub const DRIFT_FIRST: [Method; 5] =
        [Method::Drift, Method::Emptiness, Method::StaticDrift, Method::MultiNode, Method::SingleNode];

    /// The order the controller tries the methods in at `rules`' version.
    pub fn order(rules: &crate::rules::RuleSet) -> [Method; 5] {
        if rules.has(crate::rules::Rule::EmptinessBeforeDrift) {
            Method::ALL
        } else {
            Method::DRIFT_FIRST
        }
    }

    /// The disruption reason the method acts for.
    pub const fn reason(self) -> DisruptionReason {
        match self {
            Method::Emptiness => DisruptionReason::Empty,
            Method::StaticDrift | Method::Drift => DisruptionReason::Drifted,
            Method::MultiNode | Method::SingleNode => DisruptionReason::Underutilized,
        }
    }

    /// Karpenter's name for the method (its `Reason()`/`ConsolidationType()` and metric label).
    pub const fn as_str(self) -> &'static str {
        match self {
            Method::Emptiness => "Emptiness",
            Method::StaticDrift => "StaticDrift",
            Method::Drift => "Drift",
            Method::MultiNode => "MultiNodeConsolidation",
            Method::SingleNode => "SingleNodeConsolidation",
        }
    }
}

/// What a command does to its candidates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Delete,
    Replace,
}

impl Decision {
    /// `delete` or `replace`, as Karpenter's `Command.Decision()` names it.
    pub const fn as_str(self) -> &'static str {
        match self {
            Decision::Delete => "delete",
            Decision::Replace => "replace",
        }
    }
}

/// A replacement NodeClaim of a command.
#[derive(Debug, Clone, PartialEq)]
pub struct Replacement {
    pub node_pool: String,
    pub instance_types: Vec<String>,
    /// `spot`, `on-demand` or `reserved`; several when the replacement may launch as either.
    pub capacity_type: String,
    pub zones: Vec<String>,
    /// The most a launch could cost (the price filter's figure); `None` when unknown.
    pub worst_price: Option<f64>,
    /// The cheapest available offering of the cheapest type (the savings estimate's figure).
    pub cheapest_price: Option<f64>,
}

/// A command one method would start this round.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Command {
    pub method: Method,
    pub decision: Decision,
    /// Indices into the cluster's nodes.
    pub candidates: Vec<usize>,
    pub replacements: Vec<Replacement>,
    /// `Command.EstimatedSavings`.
    pub savings: f64,
    pub results: Results,
    pub findings: Vec<Reason>,
}

use std::cell::RefCell;
use std::collections::BTreeMap;

use super::balanced::Totals;
use super::budget::PoolBudgets;
use super::candidate::{consolidatable_blockers, Candidate};
use super::nodepool::{ConsolidationPolicy, DisruptionReason};
use super::state::Cluster;

/// What every method reads.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Context<'c, 'a> {
    pub cluster: &'c Cluster<'a>,
    pub world: &'c super::scheduling::World<'c, 'a>,
    pub candidates: &'c [Candidate<'a>],
    pub budgets: &'c BTreeMap<String, PoolBudgets>,
    pub totals: &'c BTreeMap<String, Totals>,
    /// Single-node moves already judged, by (node, gates lifted): the round's and each node's
    /// own verdict ask for the same move.
    pub single_moves: &'c RefCell<BTreeMap<(usize, bool), single_node::SingleMove>>,
    /// Per node (indexed like the cluster's nodes): whether this replay writes its verdict.
    /// Why the round passed over any other node is never read, so it is not worked out.
    pub explained: &'c [bool],
}

impl<'a> Context<'_, 'a> {
    /// Whether node `i`'s verdict is written, so why the round passed it over is read.
    pub(crate) fn explains(&self, i: usize) -> bool {
        self.explained.get(i).copied().unwrap_or(true)
    }

    /// Remaining budget of the candidate's pool for a reason.
    pub(crate) fn remaining(&self, c: &Candidate<'_>, reason: DisruptionReason) -> i64 {
        c.pool.and_then(|p| self.budgets.get(&p.metadata.name)).map_or(0, |b| b.remaining(reason))
    }

    /// Candidates accepted by Multi/Single's `ShouldDisrupt`. From v1.14.0 (#2962) it leaves
    /// empty candidates to Emptiness; before, v1.13.0 `consolidation.go ShouldDisrupt` took them.
    pub(crate) fn consolidation_candidates(&self) -> Vec<&Candidate<'a>> {
        let rules = self.cluster.rules();
        let rejects_empty = rules.has(crate::rules::Rule::EmptyByEvictionCost);
        self.candidates
            .iter()
            .filter(|c| {
                c.passes(false)
                    && !(rejects_empty && c.is_empty(rules))
                    && c.pool.is_some_and(|p| ConsolidationPolicy::of(p) != ConsolidationPolicy::WhenEmpty)
                    && consolidatable_blockers(c, self.cluster, false).is_empty()
            })
            .collect()
    }
}

/// A method's commands and what it noted about the nodes it skipped.
#[derive(Debug, Clone, Default)]
pub(crate) struct Outcome {
    pub commands: Vec<Command>,
    /// Per node index: why the method passed over it.
    pub skipped: BTreeMap<usize, Vec<Reason>>,
    /// The method returned an error (no scheduler could be built): the round ends without a
    /// command and no later method runs (`Controller.Reconcile`).
    pub failed: bool,
}

/// Sorts by savings ratio descending (`sortCandidates`), ties by name for determinism; before
/// v1.14.0 (#2962) by disruption cost ascending ([`super::cost::disruption_cost_before_v1_14`]).
pub(crate) fn sort_candidates(candidates: &mut [&Candidate<'_>], cluster: &Cluster<'_>) {
    if cluster.rules().has(crate::rules::Rule::CandidateOrderSavingsRatio) {
        candidates.sort_by(|a, b| b.savings_ratio().total_cmp(&a.savings_ratio()).then_with(|| a.name.cmp(&b.name)));
        return;
    }
    let cost = |c: &Candidate<'_>| {
        let node = &cluster.nodes[c.index];
        super::cost::disruption_cost_before_v1_14(&node.pods, node.claim, cluster.now)
    };
    let mut keyed: Vec<(f64, &Candidate<'_>)> = candidates.iter().map(|c| (cost(c), *c)).collect();
    keyed.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.1.name.cmp(&b.1.name)));
    for (slot, (_, c)) in candidates.iter_mut().zip(keyed) {
        *slot = c;
    }
}
