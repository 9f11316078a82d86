//! What is left of each NodePool's limits during a simulation.
//!
//! Mirrors karpenter `scheduler.go` (`calculateExistingNodeClaims`, `updateRemainingResources`,
//! `subtractMax`).

use std::collections::BTreeMap;

use crate::engine::incremental::world::World;
use crate::quantity::Quantity;
use crate::snapshot::{InstanceType, Resources};

/// `scheduler.go calculateExistingNodeClaims`/`updateRemainingResources`: each pool's limits
/// less the capacity (and one `nodes`) of every node that stays, i.e. neither a candidate nor
/// marked for deletion. Resources may go negative, as `resources.Subtract` lets them.
///
/// Before v1.11.0 (#2526) a `nodes` key is left out: no state node held `nodes` capacity and
/// `addToNewNodeClaim` had no node check, so the key never refused a NodeClaim (karpenter
/// v1.10.1 `scheduler.go filterByRemainingResources` compares it with an instance type's
/// capacity, which has no `nodes`).
pub(super) fn remaining_limits(world: &World<'_, '_>, excluded: &[usize]) -> BTreeMap<String, Resources> {
    let node_limits = world.cluster.rules().has(crate::rules::Rule::NodeLimits);
    let mut out: BTreeMap<String, Resources> = BTreeMap::new();
    for pool in world.cluster.pools.values().filter(|p| !p.spec.limits.is_empty()) {
        let name = pool.metadata.name.as_str();
        let used = world.pool_usage.get(name);
        let left: Resources = pool
            .spec
            .limits
            .iter()
            .filter(|(k, _)| node_limits || k.as_str() != "nodes")
            .map(|(k, limit)| (k.clone(), limit.minus(used.and_then(|u| u.get(k)).copied().unwrap_or_default())))
            .collect();
        out.insert(name.to_owned(), left);
    }
    if out.is_empty() {
        return out;
    }
    // `pool_usage` counts every node: give back what the excluded ones hold.
    for &i in excluded {
        let node = &world.nodes[i];
        let Some(left) = node.pool().and_then(|p| out.get_mut(p)) else { continue };
        for (k, v) in left.iter_mut() {
            let held =
                if k == "nodes" { Quantity::from_units(1) } else { node.capacity.get(k).copied().unwrap_or_default() };
            *v = v.plus(held);
        }
    }
    out
}

/// `scheduler.go subtractMax`: a new NodeClaim may launch as its largest option, so each
/// limited resource loses the largest capacity among its instance types (`nodes` is no
/// instance-type capacity, so upstream never counts it down here).
pub(super) fn subtract_max(remaining: &mut Resources, types: &[&InstanceType]) {
    if types.is_empty() {
        return;
    }
    for (k, v) in remaining.iter_mut() {
        let max = types.iter().filter_map(|it| it.capacity.get(k)).max().copied().unwrap_or_default();
        *v = v.minus(max);
    }
}
