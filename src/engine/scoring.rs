//! The Balanced score of every candidate of one NodePool, whatever the pool's policy: each
//! candidate's best single-node move (delete, or replace with something cheaper), scored
//! against the pool's totals.
//!
//! Mirrors karpenter `pkg/controllers/disruption/balanced.go` (`ScoreMove`) applied to the moves
//! `SingleNodeConsolidation` would compute.

use jiff::Timestamp;

use super::balanced::{self, Score, Totals};
use super::method::consolidation::{compute_consolidation, Kind};
use super::method::Decision;
use super::nodepool::ConsolidationPolicy;
use super::setup::{self, Setup};
use super::state::Cluster;
use crate::snapshot::Snapshot;

/// One candidate's best move and its score.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MoveScore {
    pub node: String,
    pub price: Option<f64>,
    pub pods: usize,
    pub disruption_cost: f64,
    pub cost_terms: String,
    pub decision: Option<Decision>,
    pub replacement: Vec<String>,
    pub savings: f64,
    pub score: Option<Score>,
    /// Why there is no move (the consolidation's own finding).
    pub no_move: Option<crate::reason::Reason>,
}

/// A pool's totals and every candidate's score.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct PoolScore {
    pub pool: String,
    pub policy: ConsolidationPolicy,
    pub totals: Totals,
    pub candidates: Vec<MoveScore>,
}

/// Scores every gate-passing node of `pool`; `None` when the pool does not exist.
pub(crate) fn score_pool(snapshot: &Snapshot, now: Timestamp, pool: &str) -> Option<PoolScore> {
    let cluster = Cluster::new(snapshot, now);
    let node_pool = cluster.pools.get(pool).copied()?;
    let Setup { candidates, totals: all_totals, world, .. } = setup::build(&cluster, None, None);
    let totals = all_totals.get(pool).copied().unwrap_or_default();
    let scored = candidates
        .iter()
        .filter(|c| c.pool.is_some_and(|p| p.metadata.name == pool) && c.passes(false))
        .map(|c| {
            let m = compute_consolidation(&world, &[c], Kind::Single, false, false);
            let score = m.decision.map(|_| balanced::score_move(m.savings, c.disruption_cost, totals));
            MoveScore {
                node: c.name.clone(),
                price: c.price,
                pods: c.reschedulable.len(),
                disruption_cost: c.disruption_cost,
                cost_terms: c
                    .notes
                    .iter()
                    .find(|r| r.code == crate::reason::Code::DisruptionCost)
                    .map(|r| r.message.clone())
                    .unwrap_or_default(),
                decision: m.decision,
                replacement: m.replacement.map(|r| r.instance_types).unwrap_or_default(),
                savings: m.savings,
                score,
                no_move: if m.decision.is_none() { m.findings.first().cloned() } else { None },
            }
        })
        .collect();
    Some(PoolScore { pool: pool.to_owned(), policy: ConsolidationPolicy::of(node_pool), totals, candidates: scored })
}
