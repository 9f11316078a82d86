//! Where a finding's pods sit: the nodes (sorted), their NodePools, and per node what is known
//! of it. Every rule places its pods through [`place`], so all findings describe nodes alike.
//! Reads node facts only; judges nothing.

use std::collections::{BTreeMap, BTreeSet};

use super::context::Context;
use super::facts::NodePlacement;
use crate::snapshot::Pod;

/// Nodes the pods sit on (sorted), their NodePools, and per node what is known of it.
pub(super) fn place(ctx: &Context<'_>, pods: &[&Pod]) -> (Vec<String>, Vec<String>, Vec<NodePlacement>) {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for pod in pods {
        if let Some(node) = pod.spec.node_name.as_deref().filter(|n| !n.is_empty()) {
            *counts.entry(node).or_default() += 1;
        }
    }
    let known = ctx.readable.ownership();
    let mut pools = BTreeSet::new();
    let placement = counts
        .iter()
        .map(|(node, count)| {
            let facts = if known { ctx.nodes.get(node) } else { None };
            if let Some(pool) = facts.and_then(|f| f.node_pool.clone()) {
                pools.insert(pool);
            }
            NodePlacement {
                node: (*node).to_owned(),
                pods: *count,
                karpenter: known.then(|| facts.is_some_and(|f| f.karpenter)),
                node_pool: facts.and_then(|f| f.node_pool.clone()),
                instance_type: facts.and_then(|f| f.instance_type.clone()),
                capacity_type: facts.and_then(|f| f.capacity_type.clone()),
                price_per_hour: facts.and_then(|f| f.price),
                price_per_month: facts.and_then(super::nodes::NodeFacts::price_per_month),
                termination_grace_period: facts.and_then(|f| f.termination_grace_period.clone()),
            }
        })
        .collect();
    (counts.keys().map(|n| (*n).to_owned()).collect(), pools.into_iter().collect(), placement)
}
