//! No upstream twin: our index of the nodes that statically accept a pod, with pruning bounds,
//! so the first-fit search over existing nodes skips nodes that cannot have room.

use std::collections::{BTreeMap, BTreeSet};

use crate::engine::scheduling::existing_node::base::BaseNode;

/// How many nodes share one pruning bound in a [`FitList`].
const BLOCK: usize = 32;

/// The nodes whose labels and taints accept a pod, as positions in the destination order,
/// whole and per zone. Each list keeps, for every block of [`BLOCK`] nodes, the most cpu and
/// memory any of them has free before the simulation: a simulation only ever takes capacity
/// away, so a pod needing more skips the whole block, and a pod whose topology spread allows
/// some zones reads only those zones' lists.
#[derive(Debug)]
pub struct FitList {
    all: Blocks,
    by_zone: BTreeMap<String, Blocks>,
}

#[derive(Debug, Default)]
struct Blocks {
    positions: Vec<usize>,
    bounds: Vec<(i128, i128)>,
}

impl Blocks {
    fn new(positions: Vec<usize>, free: &dyn Fn(usize) -> (i128, i128)) -> Self {
        let bounds = positions
            .chunks(BLOCK)
            .map(|block| {
                block.iter().map(|&p| free(p)).fold((i128::MIN, i128::MIN), |(c, m), (bc, bm)| (c.max(bc), m.max(bm)))
            })
            .collect();
        Blocks { positions, bounds }
    }

    fn with_room(&self, cpu: i128, memory: i128) -> impl Iterator<Item = usize> + '_ {
        self.positions
            .chunks(BLOCK)
            .zip(&self.bounds)
            .filter(move |(_, &(max_cpu, max_memory))| room(max_cpu, cpu) && room(max_memory, memory))
            .flat_map(|(block, _)| block.iter().copied())
    }
}

impl FitList {
    /// `positions` index `order` (the destination order), which indexes `nodes`: the shared
    /// world's, passed as plain slices so that this file does not import the world.
    pub(in crate::engine) fn new(positions: Vec<usize>, nodes: &[BaseNode<'_>], order: &[usize]) -> Self {
        let free = |p: usize| {
            let node = &nodes[order[p]];
            (node.free_cpu, node.free_memory)
        };
        // Borrowed while grouping: a zone's name is copied once, not once per node.
        let mut zoned: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for &p in &positions {
            if let Some(zone) = nodes[order[p]].zone() {
                zoned.entry(zone).or_default().push(p);
            }
        }
        let by_zone =
            zoned.into_iter().map(|(zone, positions)| (zone.to_owned(), Blocks::new(positions, &free))).collect();
        FitList { all: Blocks::new(positions, &free), by_zone }
    }

    /// Positions in the destination order of every node in the list, ascending.
    pub fn positions(&self) -> impl Iterator<Item = usize> + '_ {
        self.all.positions.iter().copied()
    }

    /// Whether the node at `position` (destination order) is in the list.
    pub fn contains(&self, position: usize) -> bool {
        self.all.positions.binary_search(&position).is_ok()
    }

    /// Positions in the destination order of the nodes that may have room for `cpu` and
    /// `memory` (milli-units) and, when `zones` is given, lie in one of them; in order.
    pub fn with_room<'s>(&'s self, cpu: i128, memory: i128, zones: Option<&BTreeSet<&str>>) -> InOrder<'s> {
        let lists: Vec<&Blocks> = match zones {
            None => vec![&self.all],
            Some(zones) => zones.iter().filter_map(|z| self.by_zone.get(*z)).collect(),
        };
        InOrder {
            heads: lists
                .into_iter()
                .map(|b| Box::new(b.with_room(cpu, memory)) as Box<_>)
                .map(Iterator::peekable)
                .collect(),
        }
    }
}

/// Several ascending position lists merged into one ascending list.
pub struct InOrder<'s> {
    heads: Vec<std::iter::Peekable<Box<dyn Iterator<Item = usize> + 's>>>,
}

impl Iterator for InOrder<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let next =
            self.heads.iter_mut().enumerate().filter_map(|(k, head)| Some((k, *head.peek()?))).min_by_key(|&(_, p)| p);
        let (k, _) = next?;
        self.heads[k].next()
    }
}

/// Whether `free` covers `want`; a request of zero or less is never checked (as in `Fits`).
pub(crate) fn room(free: i128, want: i128) -> bool {
    want <= 0 || free >= want
}

#[cfg(test)]
mod tests {
    use super::{Blocks, InOrder, BLOCK};

    #[test]
    fn blocks_skip_only_blocks_without_room_and_zones_merge_in_order() {
        // Position p has p cpu free and plenty of memory.
        let free = |p: usize| (i128::try_from(p).unwrap_or(0), 1 << 40);
        let even = Blocks::new((0..4 * BLOCK).step_by(2).collect(), &free);
        let odd = Blocks::new((1..4 * BLOCK).step_by(2).collect(), &free);
        let want = i128::try_from(3 * BLOCK).unwrap_or(0);
        let merged: Vec<usize> = InOrder {
            heads: [&even, &odd]
                .into_iter()
                .map(|b| Box::new(b.with_room(want, 0)) as Box<dyn Iterator<Item = usize>>)
                .map(Iterator::peekable)
                .collect(),
        }
        .collect();
        // Whole blocks are kept or skipped, so nodes below the need may come through; every
        // node with room must, in ascending order.
        assert!(merged.windows(2).all(|w| w[0] < w[1]), "{merged:?}");
        assert!((3 * BLOCK..4 * BLOCK).all(|p| merged.contains(&p)));
        assert!(!merged.contains(&0), "the first block of each list has no room");
        assert!(super::room(-5, 0), "a request of zero is never refused");
    }
}
