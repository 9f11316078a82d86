//! Disruption budgets: how many nodes of a NodePool may be disrupted, per reason, at one instant.
//!
//! Mirrors karpenter `pkg/apis/v1/nodepool.go` (`GetAllowedDisruptionsByReason`,
//! `Budget.IsActive`, `GetScaledValueFromIntOrPercent` rounding up) and
//! `pkg/controllers/disruption/helpers.go` (`BuildDisruptionBudgetMapping`). Pure: the instant is
//! the snapshot's clock; cron schedules are parsed and stepped as robfig/cron v3 `ParseStandard`
//! does ([`super::cron`]), in UTC, and one that fails to parse fails the pool closed (0 allowed).

use std::collections::BTreeMap;

use jiff::{SignedDuration, Timestamp};

use super::cron::{parse_standard, Schedule};
use super::nodepool::DisruptionReason;
use super::state::Cluster;
use crate::rules::Rule;
use crate::snapshot::{Budget, NodePool};

/// What Karpenter uses for "no limit".
pub const UNBOUNDED: i64 = i32::MAX as i64;

/// One budget of a NodePool, evaluated now.
#[derive(Debug, Clone, PartialEq)]
pub struct BudgetStatus {
    pub nodes: String,
    pub reasons: Option<Vec<String>>,
    pub schedule: Option<String>,
    pub duration: Option<String>,
    pub active: bool,
    /// Nodes it allows now; `None` when inactive (unbounded).
    pub value: Option<i64>,
    /// When an active window closes, or an inactive one next opens.
    pub window_closes_at: Option<Timestamp>,
    pub window_opens_at: Option<Timestamp>,
    /// A budget that fails to parse: Karpenter then allows 0 for the whole NodePool.
    pub error: Option<String>,
}

/// Allowed disruptions of one NodePool for one reason.
#[derive(Debug, Clone, PartialEq)]
pub struct ReasonBudget {
    pub reason: DisruptionReason,
    /// Minimum over the active budgets that apply to the reason (`UNBOUNDED` if none).
    pub allowed: i64,
    /// Allowed minus nodes already disrupting, never below 0.
    pub remaining: i64,
    /// Indices into [`PoolBudgets::budgets`] of the budgets that apply to this reason.
    pub applies: Vec<usize>,
}

/// Every budget figure of one NodePool.
#[derive(Debug, Clone, PartialEq)]
pub struct PoolBudgets {
    pub node_pool: String,
    /// Managed, initialized nodes of the pool that are not terminating.
    pub counted_nodes: i64,
    /// Of those, nodes not Ready, deleting or already in Karpenter's queue.
    pub disrupting: Vec<String>,
    pub budgets: Vec<BudgetStatus>,
    pub by_reason: Vec<ReasonBudget>,
    /// The budget list was omitted, so the CRD default `10%` applies.
    pub defaulted: bool,
    /// Nodes counted although their NodeClaim is `InstanceTerminating`: only at a version
    /// without #1735 ([`Rule::BudgetSkipsInstanceTerminating`]), where explain says so.
    pub terminating_counted: Vec<String>,
}

impl PoolBudgets {
    /// Remaining disruptions for a reason.
    pub fn remaining(&self, reason: DisruptionReason) -> i64 {
        self.by_reason.iter().find(|r| r.reason == reason).map_or(UNBOUNDED, |r| r.remaining)
    }

    pub fn for_reason(&self, reason: DisruptionReason) -> Option<&ReasonBudget> {
        self.by_reason.iter().find(|r| r.reason == reason)
    }
}

/// Budgets of every NodePool.
///
/// Mirrors [`crate::upstream::BUILD_BUDGET_MAPPING`].
pub fn build_budget_mapping(cluster: &Cluster<'_>) -> BTreeMap<String, PoolBudgets> {
    let rules = cluster.rules();
    // From v1.0.4 / v1.1.0 (#1735) a terminating instance is skipped: the node is on its way
    // out and must not hold a budget slot. Before, it counted like any node.
    let skips_terminating = rules.has(Rule::BudgetSkipsInstanceTerminating);
    let mut counted: BTreeMap<&str, i64> = BTreeMap::new();
    let mut disrupting: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    let mut terminating_counted: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for node in &cluster.nodes {
        let Some(pool) = node.node_pool_name() else { continue };
        let terminating = node.instance_terminating();
        if !node.managed() || !node.initialized() || (terminating && skips_terminating) {
            continue;
        }
        *counted.entry(pool).or_default() += 1;
        if terminating {
            terminating_counted.entry(pool).or_default().push(node.name.clone());
        }
        if !node.ready() || node.deleting(rules) {
            disrupting.entry(pool).or_default().push(node.name.clone());
        }
    }
    cluster
        .pools
        .values()
        .map(|pool| {
            let name = pool.metadata.name.as_str();
            let budgets = pool_budgets(
                pool,
                counted.get(name).copied().unwrap_or(0),
                disrupting.remove(name).unwrap_or_default(),
                cluster.now,
            );
            let terminating_counted = terminating_counted.remove(name).unwrap_or_default();
            (name.to_owned(), PoolBudgets { terminating_counted, ..budgets })
        })
        .collect()
}

/// Evaluates one NodePool's budgets for `counted_nodes` at `now`.
pub fn pool_budgets(pool: &NodePool, counted_nodes: i64, disrupting: Vec<String>, now: Timestamp) -> PoolBudgets {
    let declared = pool.spec.disruption.as_ref().and_then(|d| d.budgets.clone());
    let defaulted = declared.is_none();
    let budgets: Vec<Budget> = declared.unwrap_or_else(|| vec![Budget { nodes: "10%".into(), ..Budget::default() }]);
    let statuses: Vec<BudgetStatus> = budgets.iter().map(|b| evaluate(b, counted_nodes, now)).collect();
    let any_error = statuses.iter().any(|s| s.error.is_some());
    let in_flight = disrupting.len() as i64;
    let by_reason = DisruptionReason::ALL
        .into_iter()
        .map(|reason| {
            let applies: Vec<usize> = budgets
                .iter()
                .enumerate()
                .filter(|(_, b)| b.reasons.as_ref().is_none_or(|rs| rs.iter().any(|r| r == reason.as_str())))
                .map(|(i, _)| i)
                .collect();
            let allowed = if any_error {
                0
            } else {
                applies.iter().filter_map(|&i| statuses[i].value).min().unwrap_or(UNBOUNDED)
            };
            ReasonBudget { reason, allowed, remaining: (allowed - in_flight).max(0), applies }
        })
        .collect();
    PoolBudgets {
        node_pool: pool.metadata.name.clone(),
        counted_nodes,
        disrupting,
        budgets: statuses,
        by_reason,
        defaulted,
        terminating_counted: Vec::new(),
    }
}

fn evaluate(budget: &Budget, counted_nodes: i64, now: Timestamp) -> BudgetStatus {
    let mut status = BudgetStatus {
        nodes: budget.nodes.clone(),
        reasons: budget.reasons.clone(),
        schedule: budget.schedule.clone(),
        duration: budget.duration.clone(),
        active: true,
        value: None,
        window_closes_at: None,
        window_opens_at: None,
        error: None,
    };
    let value = match scaled_value(&budget.nodes, counted_nodes) {
        Ok(v) => v,
        Err(e) => {
            status.error = Some(e);
            status.value = Some(0);
            return status;
        }
    };
    // The CRD's CEL rule wants schedule and duration together; `IsActive` itself reads a
    // missing duration as 0 and a missing schedule as the empty one (a parse error).
    if budget.schedule.is_some() || budget.duration.is_some() {
        let schedule = budget.schedule.as_deref().unwrap_or_default();
        match window(schedule, budget.duration.as_deref(), now) {
            Ok(w) => {
                status.active = w.active;
                status.window_closes_at = w.closes_at;
                status.window_opens_at = w.opens_at;
            }
            Err(e) => {
                status.error = Some(e);
                status.value = Some(0);
                return status;
            }
        }
    }
    status.value = status.active.then_some(value);
    status
}

/// `nodes` as an integer, or a percentage of `total` rounded up.
pub fn scaled_value(nodes: &str, total: i64) -> Result<i64, String> {
    let nodes = nodes.trim();
    if let Some(percent) = nodes.strip_suffix('%') {
        let p: i64 = percent.parse().map_err(|_| format!("invalid budget nodes `{nodes}`"))?;
        if !(0..=100).contains(&p) {
            return Err(format!("invalid budget nodes `{nodes}`: percentage must be 0-100"));
        }
        // A node count is never negative, and the product is taken in i128 so that no count,
        // however absurd, overflows: the share of at most all of `total` always fits back.
        let share = (i128::from(p) * i128::from(total.max(0)) + 99) / 100;
        return Ok(i64::try_from(share).unwrap_or(i64::MAX));
    }
    nodes.parse::<i64>().ok().filter(|v| *v >= 0).ok_or_else(|| format!("invalid budget nodes `{nodes}`"))
}

struct Window {
    active: bool,
    closes_at: Option<Timestamp>,
    opens_at: Option<Timestamp>,
}

/// Whether a cron hit happened within the last `duration` (boundary inclusive), and the window
/// edges around now.
///
/// Mirrors [`crate::upstream::BUDGET_IS_ACTIVE`]: active iff `Next(now - duration)` is not after
/// now. A schedule that never fires within five years makes robfig return Go's zero time,
/// which is not after now either: upstream then holds the budget active, and so do we.
fn window(schedule: &str, duration: Option<&str>, now: Timestamp) -> Result<Window, String> {
    let cron = parse_schedule(schedule)?;
    let duration: SignedDuration = match duration {
        None => SignedDuration::ZERO,
        Some(d) => d.parse().map_err(|e| format!("invalid budget duration `{d}`: {e}"))?,
    };
    let start = now.checked_sub(duration).map_err(|e| e.to_string())?;
    let Some(next_after_start) = cron.next(start) else {
        return Ok(Window { active: true, closes_at: None, opens_at: None });
    };
    if next_after_start <= now {
        let last = cron.previous(now).unwrap_or(next_after_start);
        Ok(Window { active: true, closes_at: last.checked_add(duration).ok(), opens_at: None })
    } else {
        Ok(Window { active: false, closes_at: None, opens_at: Some(next_after_start) })
    }
}

/// Karpenter's schedule syntax (robfig/cron `ParseStandard`, UTC), with its error text.
pub fn parse_schedule(schedule: &str) -> Result<Schedule, String> {
    parse_standard(schedule).map_err(|e| format!("invariant violated, invalid cron, {e} (cron={schedule:?})"))
}

#[cfg(test)]
mod tests {
    use super::{build_budget_mapping, pool_budgets, scaled_value, Cluster, UNBOUNDED};
    use crate::engine::nodepool::DisruptionReason;
    use crate::snapshot::{Budget, Disruption, NodePool};
    use proptest::prelude::*;

    fn pool(budgets: Vec<Budget>) -> NodePool {
        let mut p = NodePool::default();
        p.metadata.name = "default".into();
        p.spec.disruption = Some(Disruption { budgets: Some(budgets), ..Disruption::default() });
        p
    }

    fn budget(nodes: &str, schedule: Option<&str>, duration: Option<&str>, reasons: Option<&[&str]>) -> Budget {
        Budget {
            nodes: nodes.into(),
            schedule: schedule.map(Into::into),
            duration: duration.map(Into::into),
            reasons: reasons.map(|r| r.iter().map(|s| (*s).to_owned()).collect()),
        }
    }

    fn at(t: &str) -> jiff::Timestamp {
        t.parse().unwrap()
    }

    #[test]
    fn percentages_round_up() {
        assert_eq!(scaled_value("5%", 10), Ok(1));
        assert_eq!(scaled_value("50%", 3), Ok(2));
        assert_eq!(scaled_value("30%", 10), Ok(3));
        assert_eq!(scaled_value("10%", 0), Ok(0));
        assert_eq!(scaled_value("3", 10), Ok(3));
        assert!(scaled_value("x", 10).is_err());
    }

    #[test]
    fn default_budget_is_ten_percent() {
        let mut p = NodePool::default();
        p.metadata.name = "d".into();
        let b = pool_budgets(&p, 10, vec![], at("2026-11-29T10:00:00Z"));
        assert!(b.defaulted);
        assert_eq!(b.remaining(DisruptionReason::Underutilized), 1);
    }

    #[test]
    fn minimum_of_applicable_budgets_minus_in_flight() {
        let p = pool(vec![budget("5", None, None, None), budget("0", None, None, Some(&["Underutilized"]))]);
        let b = pool_budgets(&p, 10, vec!["n1".into()], at("2026-11-29T10:00:00Z"));
        assert_eq!(b.remaining(DisruptionReason::Underutilized), 0);
        assert_eq!(b.remaining(DisruptionReason::Empty), 4);
        let none = pool(vec![budget("0", None, None, Some(&["Drifted"]))]);
        assert_eq!(
            pool_budgets(&none, 10, vec![], at("2026-11-29T10:00:00Z")).remaining(DisruptionReason::Empty),
            UNBOUNDED
        );
    }

    #[test]
    fn window_spanning_midnight() {
        let p = pool(vec![budget("0", Some("0 22 * * *"), Some("4h"), None)]);
        let inside = pool_budgets(&p, 10, vec![], at("2026-11-30T01:30:00Z"));
        assert!(inside.budgets[0].active);
        assert_eq!(inside.remaining(DisruptionReason::Empty), 0);
        assert_eq!(inside.budgets[0].window_closes_at, Some(at("2026-11-30T02:00:00Z")));
        let outside = pool_budgets(&p, 10, vec![], at("2026-11-30T02:00:01Z"));
        assert!(!outside.budgets[0].active);
        assert_eq!(outside.remaining(DisruptionReason::Empty), UNBOUNDED);
        assert_eq!(outside.budgets[0].window_opens_at, Some(at("2026-11-30T22:00:00Z")));
    }

    #[test]
    fn weekly_macro_opens_on_the_hit_and_closes_at_the_end() {
        let p = pool(vec![budget("0", Some("@weekly"), Some("24h"), None)]);
        // 2026-11-29 is a Sunday. Upstream: active iff Next(now - duration) is not after now,
        // and robfig's Next is strictly after its argument.
        assert!(!pool_budgets(&p, 4, vec![], at("2026-11-28T23:59:59Z")).budgets[0].active);
        assert!(pool_budgets(&p, 4, vec![], at("2026-11-29T00:00:00Z")).budgets[0].active);
        assert!(pool_budgets(&p, 4, vec![], at("2026-11-29T23:59:59Z")).budgets[0].active);
        assert!(!pool_budgets(&p, 4, vec![], at("2026-11-30T00:00:00Z")).budgets[0].active);
    }

    #[test]
    fn invalid_schedule_fails_closed() {
        let p = pool(vec![budget("5", Some("not a cron"), Some("1h"), None), budget("5", None, None, None)]);
        let b = pool_budgets(&p, 10, vec![], at("2026-11-29T10:00:00Z"));
        assert!(b.budgets[0].error.is_some());
        assert_eq!(b.remaining(DisruptionReason::Drifted), 0);
    }

    /// robfig `getRange`: day of week 7 is out of bounds, so `ParseStandard` fails and the
    /// NodePool allows 0 (`MustGetAllowedDisruptions` fails closed).
    #[test]
    fn day_of_week_seven_fails_closed() {
        let p = pool(vec![budget("5", Some("* * * * 1-7"), Some("1h"), None)]);
        let b = pool_budgets(&p, 10, vec![], at("2026-11-29T10:00:00Z"));
        assert!(b.budgets[0].error.as_deref().is_some_and(|e| e.contains("end of range (7) above maximum (6)")));
        assert_eq!(b.remaining(DisruptionReason::Underutilized), 0);
    }

    /// `IsActive` with a schedule and no duration: `Next(now)` is after now, so inactive; with a
    /// duration and no schedule: `ParseStandard("TZ=UTC ")` fails.
    #[test]
    fn half_a_window_reads_as_upstream() {
        let no_duration = pool(vec![budget("0", Some("* * * * *"), None, None)]);
        let b = pool_budgets(&no_duration, 10, vec![], at("2026-11-29T10:00:00Z"));
        assert!(!b.budgets[0].active && b.budgets[0].error.is_none());
        let no_schedule = pool(vec![budget("5", None, Some("1h"), None)]);
        assert_eq!(
            pool_budgets(&no_schedule, 10, vec![], at("2026-11-29T10:00:00Z")).remaining(DisruptionReason::Empty),
            0
        );
    }

    #[test]
    fn a_schedule_that_never_fires_is_active() {
        let p = pool(vec![budget("0", Some("0 0 30 2 *"), Some("1h"), None)]);
        let b = pool_budgets(&p, 10, vec![], at("2026-11-29T10:00:00Z"));
        assert!(b.budgets[0].active);
        assert_eq!(b.remaining(DisruptionReason::Empty), 0);
    }

    proptest! {
        #[test]
        fn percent_of_any_count_never_overflows(p in 0i64..=100, total in any::<i64>()) {
            let v = scaled_value(&format!("{p}%"), total).unwrap();
            prop_assert!((0..=total.max(0)).contains(&v));
        }

        #[test]
        fn percent_never_below_exact_share(p in 0i64..=100, total in 0i64..10_000) {
            let v = scaled_value(&format!("{p}%"), total).unwrap();
            prop_assert!(v * 100 >= p * total);
            prop_assert!((v - 1) * 100 < p * total || v == 0);
        }
    }

    /// #1735 (v1.0.4 in 1.0.x, v1.1.0 on): a NodeClaim with `InstanceTerminating=True` counts
    /// neither in the total nor as disrupting, and is marked for deletion; before, it counted
    /// like any node and only its deletion timestamp marked it (upstream's test claim has none).
    #[test]
    fn an_instance_terminating_claim_leaves_the_budget_from_v1_0_4() {
        use crate::rules::{CoreVersion, RuleSet};
        use crate::testing::{managed_node, node_pool, now, set, snapshot};
        let [node, claim] = managed_node("node-t");
        let conditions = serde_json::json!([{"type": "Initialized", "status": "True"},
            {"type": "InstanceTerminating", "status": "True"}]);
        let mut objects = vec![node_pool("default"), node, set(claim, "/status/conditions", conditions)];
        objects.extend(managed_node("node-a"));
        let mut s = snapshot(objects);
        let mut at = |major, minor, patch| {
            s.info.rules = RuleSet::at(CoreVersion::new(major, minor, patch));
            let cluster = Cluster::new(&s, now());
            let marked = cluster.node("node-t").expect("node-t").marked_for_deletion(cluster.rules());
            let b = build_budget_mapping(&cluster).remove("default").expect("pool");
            (b.counted_nodes, b.disrupting, b.terminating_counted, marked)
        };
        assert_eq!(at(1, 0, 3), (2, vec![], vec!["node-t".to_owned()], false));
        assert_eq!(at(1, 0, 4), (1, vec![], vec![], true));
        assert_eq!(at(1, 1, 0), (1, vec![], vec![], true));
        assert_eq!(at(1, 14, 1), (1, vec![], vec![], true));
    }
}
