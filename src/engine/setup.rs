//! What every replay builds before its round: each node's candidacy (gates, disruption cost)
//! with the NodePools' Balanced totals, and the scheduling [`World`].
//!
//! The two read the cluster and nothing of each other, and each is a pass over every pod of
//! the snapshot, so they are built side by side on two threads. Neither depends on the
//! other's timing: the result is the same as building them one after the other.

use std::collections::BTreeMap;

use super::balanced::{self, Totals};
use super::candidate::{new_candidate, Candidate};
use super::pdb::Limits;
use super::scheduling::World;
use super::state::Cluster;

/// Every node's candidate (indexed like `cluster.nodes`), the pools' totals, and the world.
pub struct Setup<'c, 'a> {
    pub candidates: Vec<Candidate<'a>>,
    pub totals: BTreeMap<String, Totals>,
    pub world: World<'c, 'a>,
}

/// `focus`: the one node whose verdict will be reported (every node's when `None`).
pub fn build<'c, 'a>(cluster: &'c Cluster<'a>, focus: Option<&str>) -> Setup<'c, 'a> {
    let in_focus = |i: usize| focus.is_none_or(|f| cluster.nodes[i].is_named(f));
    std::thread::scope(|scope| {
        let candidacy = scope.spawn(move || {
            let limits = Limits::new(&cluster.snapshot.pdbs);
            let candidates: Vec<Candidate<'a>> =
                (0..cluster.nodes.len()).map(|i| new_candidate(cluster, i, &limits, in_focus(i))).collect();
            let totals = balanced::node_pool_totals(cluster, &candidates);
            (candidates, totals)
        });
        // `World` memoises through `Rc`/`RefCell`, so it is built on the thread that uses it.
        let world = World::new(cluster);
        let (candidates, totals) = candidacy.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        Setup { candidates, totals, world }
    })
}
