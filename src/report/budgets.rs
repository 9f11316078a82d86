//! `budgets [nodepool/P]`: allowed disruptions per NodePool and reason now, and the windows.

use serde::Serialize;

use super::views::BudgetLine;
use crate::engine::budget::{PoolBudgets, UNBOUNDED};
use crate::engine::Replay;

/// The `Budgets` document.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Budgets {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub captured_at: jiff::Timestamp,
    pub node_pools: Vec<PoolView>,
    /// Kinds that could not be read, and what they make uncertain here.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub uncertain: Vec<crate::reason::Reason>,
    /// The nodes `-l` / `-n` kept (`-l app=web: 3 of 10 nodes`); the round itself is the
    /// whole cluster's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selection: Option<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PoolView {
    pub node_pool: String,
    pub nodes: i64,
    pub in_flight: Vec<String>,
    pub defaulted: bool,
    pub budgets: Vec<BudgetLine>,
    pub reasons: Vec<ReasonView>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReasonView {
    pub reason: &'static str,
    /// `null` = unbounded.
    pub allowed: Option<i64>,
    pub remaining: Option<i64>,
}

/// Projects the budgets of every pool, or of one.
pub(crate) fn budgets(replay: &Replay, pool: Option<&str>, unread: &[crate::snapshot::UnreadKind]) -> Budgets {
    let bounded = |v: i64| (v < UNBOUNDED).then_some(v);
    Budgets {
        api_version: super::API_VERSION,
        kind: "Budgets",
        captured_at: replay.captured_at,
        node_pools: replay
            .budgets
            .values()
            .filter(|b| pool.is_none_or(|p| p == b.node_pool))
            .map(|b: &PoolBudgets| PoolView {
                node_pool: b.node_pool.clone(),
                nodes: b.counted_nodes,
                in_flight: b.disrupting.clone(),
                defaulted: b.defaulted,
                budgets: b.budgets.iter().map(BudgetLine::from).collect(),
                reasons: b
                    .by_reason
                    .iter()
                    .map(|r| ReasonView {
                        reason: r.reason.as_str(),
                        allowed: bounded(r.allowed),
                        remaining: bounded(r.remaining),
                    })
                    .collect(),
            })
            .collect(),
        uncertain: super::uncertain(unread, |kind| match kind {
            "NodeClaim" | "Node" => Some(
                "each pool's node count is uncertain (a pool may show 0 nodes), and so is every percentage \
                 budget and what remains of it",
            ),
            "NodePool" => Some("the pools and their budgets are unknown"),
            "Pod" => Some("nodes being emptied of pods cannot be told apart; in-flight counts are uncertain"),
            _ => None,
        }),
        selection: None,
    }
}
