//! What every replay builds before its round: each node's candidacy (gates, disruption cost)
//! with the NodePools' Balanced totals, and the scheduling [`World`].
//!
//! Three parts read the cluster and nothing of each other, and each is a pass over every pod of
//! the snapshot: the candidates, the world's base nodes, and the index of the pods in place
//! that the world's topology counts read. They are built side by side, on threads; none
//! depends on another's timing, so the result is the same as building them one after another.
//! The budgets, which read only the cluster, are counted on the world's thread while the
//! candidates are still being judged (judging them takes longer than building the world).

use std::collections::BTreeMap;

use super::balanced::{self, Totals};
use super::budget::{build_budget_mapping, PoolBudgets};
use super::candidate::{new_candidate, Candidate};
use super::incremental::round_cache::{limits, RoundCache};
use super::scheduling::{PodsInPlace, World};
use super::state::Cluster;

/// Every node's candidate (indexed like `cluster.nodes`), the pools' totals, the world, and
/// the pools' disruption budgets.
pub(crate) struct Setup<'c, 'a> {
    pub candidates: Vec<Candidate<'a>>,
    pub totals: BTreeMap<String, Totals>,
    pub world: World<'c, 'a>,
    pub budgets: BTreeMap<String, PoolBudgets>,
}

/// `focus`: the one node whose verdict will be reported (every node's when `None`). `cache`:
/// what a forecast kept of its earlier rounds (see [`RoundCache`]).
pub(crate) fn build<'c, 'a>(
    cluster: &'c Cluster<'a>,
    focus: Option<&str>,
    cache: Option<&mut RoundCache>,
) -> Setup<'c, 'a> {
    let in_focus = |i: usize| focus.is_none_or(|f| cluster.nodes[i].is_named(f));
    let candidacy_table = cluster.known.clone();
    let kept = cache.is_some();
    std::thread::scope(|scope| {
        // A forecast's cache keeps its own index of the pods in place.
        let pods_in_place = (!kept).then(|| scope.spawn(move || PodsInPlace::new(cluster)));
        let candidacy = scope.spawn(move || {
            let limits = limits(cluster.snapshot, candidacy_table, cluster.pod_status());
            let candidates: Vec<Candidate<'a>> =
                (0..cluster.nodes.len()).map(|i| new_candidate(cluster, i, &limits, in_focus(i))).collect();
            let totals = balanced::node_pool_totals(cluster, &candidates);
            (candidates, totals)
        });
        // `World` memoises through `Rc`/`RefCell`, so it is built on the thread that uses it.
        let world = match (cache, pods_in_place) {
            (Some(c), _) => World::reusing(
                cluster,
                &mut c.world,
                limits(cluster.snapshot, cluster.known.clone(), cluster.pod_status()),
            ),
            (None, Some(handle)) => World::with_pods_in_place(cluster, || joined(handle)),
            (None, None) => World::new(cluster),
        };
        let budgets = build_budget_mapping(cluster);
        let (candidates, totals) = joined(candidacy);
        Setup { candidates, totals, world, budgets }
    })
}

/// A scoped thread's result; its panic, if it panicked, goes on in the caller.
fn joined<T>(handle: std::thread::ScopedJoinHandle<'_, T>) -> T {
    handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
}
