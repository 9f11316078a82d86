//! `score nodepool/P`: the Balanced score of every candidate of a pool, the pool's totals and
//! the threshold — for pools on any policy ("what Balanced would do").

use serde::Serialize;

use crate::engine::balanced::K;
use crate::engine::method::Decision;
use crate::engine::nodepool::ConsolidationPolicy;
use crate::engine::scoring::PoolScore;

/// The `Score` document.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Score {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub node_pool: String,
    pub policy: String,
    /// The pool is not on Balanced: the scores say what Balanced would do.
    pub what_if: bool,
    pub k: i32,
    pub threshold: f64,
    #[serde(serialize_with = "super::money::hourly")]
    pub pool_cost: f64,
    pub pool_disruption_cost: f64,
    /// $/h per unit of disruption across the pool: `poolCost / poolDisruptionCost`.
    pub baseline: f64,
    pub candidates: Vec<CandidateScore>,
    /// Kinds that could not be read, and what they make uncertain here.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub uncertain: Vec<crate::reason::Reason>,
    /// What-if overrides applied before the replay.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub overrides: Vec<String>,
    /// The nodes `-l` / `-n` kept (`-l app=web: 3 of 10 nodes`); the pool's figures are the
    /// whole pool's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selection: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CandidateScore {
    pub node: String,
    #[serde(serialize_with = "super::money::hourly")]
    pub price: Option<f64>,
    pub pods: usize,
    pub disruption_cost: f64,
    pub decision: &'static str,
    pub replacement: Vec<String>,
    #[serde(serialize_with = "super::money::hourly")]
    pub savings: f64,
    /// `null` when there is no move, or when the move costs no disruption (infinite score).
    pub score: Option<f64>,
    pub approved: bool,
    pub savings_percent: f64,
    pub disruption_percent: f64,
    /// Why there is no move (`{code, message, ref}`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub no_move: Option<crate::reason::Reason>,
    /// `1.0 base + …` per-pod cost terms (`-o wide`).
    pub cost_terms: String,
}

/// Projects a pool's scores.
pub(crate) fn score(pool: &PoolScore, overrides: &[String], unread: &[crate::snapshot::UnreadKind]) -> Score {
    let t = pool.totals;
    Score {
        api_version: super::API_VERSION,
        kind: "Score",
        node_pool: pool.pool.clone(),
        policy: pool.policy.as_str().to_owned(),
        what_if: pool.policy != ConsolidationPolicy::Balanced,
        k: K,
        threshold: 1.0 / f64::from(K),
        pool_cost: t.total_cost,
        pool_disruption_cost: t.total_disruption_cost,
        baseline: if t.total_disruption_cost > 0.0 { t.total_cost / t.total_disruption_cost } else { 0.0 },
        candidates: pool
            .candidates
            .iter()
            .map(|m| CandidateScore {
                node: m.node.clone(),
                price: m.price,
                pods: m.pods,
                disruption_cost: m.disruption_cost,
                decision: m.decision.map_or("none", Decision::as_str),
                replacement: m.replacement.clone(),
                savings: m.savings,
                score: m.score.map(|s| s.score).filter(|s| s.is_finite()),
                approved: m.score.is_some_and(|s| s.approved),
                savings_percent: m.score.map_or(0.0, |s| s.savings_fraction * 100.0),
                disruption_percent: m.score.map_or(0.0, |s| s.disruption_fraction * 100.0),
                no_move: m.no_move.clone(),
                cost_terms: m.cost_terms.clone(),
            })
            .collect(),
        uncertain: super::uncertain(unread, |kind| match kind {
            "Pod" | "PodDisruptionBudget" => {
                Some("disruption costs, and so every score and the approvals, are uncertain")
            }
            "Node" | "NodeClaim" => Some("the pool's nodes, prices and so the baseline are uncertain"),
            _ => None,
        }),
        overrides: overrides.to_vec(),
        selection: None,
    }
}
