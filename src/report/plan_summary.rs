//! The summary at the head of `plan`: per NodePool its nodes, $/h and utilisation (requests over
//! allocatable, as kube-capacity and eks-node-viewer show it), what this round saves, how many
//! nodes have each verdict, the blockers met most, and the workloads the round takes to zero
//! ready pods. Counts and sums of the replay's own figures: nothing is decided here.

use std::collections::BTreeMap;

use serde::Serialize;

use super::impact::ImpactView;
use crate::engine::{NodeVerdict, Replay};
use crate::reason::Code;

/// `summary` in the `Plan` document.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanSummary {
    pub node_pools: Vec<PoolSummary>,
    /// What this round's commands save, $/h (drift commands count their savings too, often 0 or
    /// negative).
    #[serde(serialize_with = "super::money::hourly")]
    pub savings: f64,
    /// The same over a month of 730 hours.
    #[serde(serialize_with = "super::money::monthly")]
    pub savings_per_month: f64,
    /// Nodes per verdict (`Empty`, `Drifted`, `Underutilized`, `Blocked`, `Safe`), only those
    /// with at least one.
    pub verdicts: BTreeMap<String, usize>,
    /// The blocker codes met most, with how many nodes carry each (at most 3, most first).
    pub top_blockers: Vec<BlockerCount>,
    /// `Kind/ns/name` of every workload this round takes to zero ready pods.
    pub zero_ready: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PoolSummary {
    /// The NodePool, or `-` for nodes without one.
    pub node_pool: String,
    pub nodes: usize,
    /// What its priced nodes cost, $/h.
    #[serde(serialize_with = "super::money::hourly")]
    pub price_per_hour: f64,
    /// Requests over allocatable, in percent, summed over its nodes; `null` without allocatable.
    pub cpu_percent: Option<f64>,
    pub memory_percent: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct BlockerCount {
    pub code: Code,
    pub nodes: usize,
}

pub(crate) use super::money::HOURS_PER_MONTH;

pub(super) fn summary(replay: &Replay, impact: &[ImpactView]) -> PlanSummary {
    let mut pools: BTreeMap<String, Vec<&NodeVerdict>> = BTreeMap::new();
    for n in &replay.nodes {
        pools.entry(n.node_pool.clone().unwrap_or_else(|| "-".into())).or_default().push(n);
    }
    let node_pools = pools
        .into_iter()
        .map(|(node_pool, nodes)| PoolSummary {
            nodes: nodes.len(),
            price_per_hour: nodes.iter().filter_map(|n| n.price).sum::<f64>() + 0.0,
            cpu_percent: utilisation(&nodes, "cpu"),
            memory_percent: utilisation(&nodes, "memory"),
            node_pool,
        })
        .collect();
    let mut verdicts = BTreeMap::new();
    let mut blockers: BTreeMap<Code, usize> = BTreeMap::new();
    for n in &replay.nodes {
        *verdicts.entry(format!("{:?}", n.verdict)).or_insert(0) += 1;
        for code in &n.blockers {
            *blockers.entry(*code).or_insert(0) += 1;
        }
    }
    let mut top_blockers: Vec<BlockerCount> =
        blockers.into_iter().map(|(code, nodes)| BlockerCount { code, nodes }).collect();
    top_blockers.sort_by(|a, b| b.nodes.cmp(&a.nodes).then_with(|| a.code.cmp(&b.code)));
    top_blockers.truncate(3);
    // `+ 0.0`: an empty float sum is -0.0, which would print as `$-0.0000`.
    let savings: f64 = replay.commands.iter().map(|c| c.savings).sum::<f64>() + 0.0;
    PlanSummary {
        node_pools,
        savings,
        savings_per_month: savings * HOURS_PER_MONTH,
        verdicts,
        top_blockers,
        zero_ready: impact.iter().filter(|w| w.zero_ready).map(|w| w.workload.clone()).collect(),
    }
}

/// Σ requests / Σ allocatable of `resource`, in percent (one decimal).
fn utilisation(nodes: &[&NodeVerdict], resource: &str) -> Option<f64> {
    let sum = |pick: fn(&NodeVerdict) -> &crate::snapshot::Resources| -> f64 {
        nodes.iter().filter_map(|n| pick(n).get(resource)).map(|q| q.as_f64()).sum::<f64>() + 0.0
    };
    let allocatable = sum(|n| &n.allocatable);
    (allocatable > 0.0).then(|| (sum(|n| &n.requested) / allocatable * 1000.0).round() / 10.0)
}
