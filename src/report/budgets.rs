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
    /// The week ahead, per NodePool and reason: the text's calendar (not part of the JSON/YAML
    /// document, whose budget lines carry the schedules it follows from).
    #[serde(skip)]
    pub week: Option<Week>,
}

/// When each NodePool's budgets let a disruption through over the seven days from the start of
/// the snapshot's day (UTC: Karpenter evaluates every schedule as `TZ=UTC`, see
/// `engine/cron.rs`), in steps of [`WEEK_STEP_MINUTES`].
#[derive(Debug, Clone, PartialEq)]
pub struct Week {
    pub starts: jiff::Timestamp,
    pub rows: Vec<WeekRow>,
}

/// One NodePool and reason: per step, whether its budgets allow at least one disruption.
#[derive(Debug, Clone, PartialEq)]
pub struct WeekRow {
    pub node_pool: String,
    pub reason: &'static str,
    pub open: Vec<bool>,
}

/// The calendar's resolution: budget windows are cron minutes, and a quarter hour is the
/// finest step a week at 80 columns can use (the renderer groups steps into its columns).
pub(crate) const WEEK_STEP_MINUTES: i64 = 15;
/// Steps in the week.
pub(crate) const WEEK_STEPS: usize = 7 * 24 * 60 / WEEK_STEP_MINUTES as usize;

/// The week's calendar for the pools of `budgets`, each evaluated with the node count and the
/// in-flight nodes it has now ([`crate::engine::budget::pool_budgets`] at every step).
pub(crate) fn week(budgets: &Budgets, pools: &[crate::snapshot::NodePool], replay: &Replay) -> Week {
    let day = budgets.captured_at.to_zoned(jiff::tz::TimeZone::UTC).date();
    let starts = day.to_zoned(jiff::tz::TimeZone::UTC).map_or(budgets.captured_at, |z| z.timestamp());
    let mut rows = Vec::new();
    for view in &budgets.node_pools {
        let (Some(pool), Some(now)) =
            (pools.iter().find(|p| p.metadata.name == view.node_pool), replay.budgets.get(&view.node_pool))
        else {
            continue;
        };
        let steps: Vec<PoolBudgets> = (0..WEEK_STEPS)
            .map(|i| {
                let at = starts + jiff::SignedDuration::from_mins(WEEK_STEP_MINUTES * i as i64);
                crate::engine::budget::pool_budgets(pool, now.counted_nodes, now.disrupting.clone(), at)
            })
            .collect();
        for reason in &view.reasons {
            let open = steps
                .iter()
                .map(|b| b.by_reason.iter().find(|r| r.reason.as_str() == reason.reason).is_some_and(|r| r.allowed > 0))
                .collect();
            rows.push(WeekRow { node_pool: view.node_pool.clone(), reason: reason.reason, open });
        }
    }
    Week { starts, rows }
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
        week: None,
    }
}
