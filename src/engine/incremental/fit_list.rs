//! No upstream twin: our index of the nodes that statically accept a pod, with pruning bounds,
//! so the first-fit search over existing nodes visits only nodes that had room before the
//! simulation began.

use std::collections::{BTreeMap, BTreeSet};

use crate::engine::scheduling::existing_node::base::BaseNode;

/// What a node has free before a simulation, in milli-units: cpu, memory, pods. Kept in
/// `i64` ([`narrow`]), half the bytes of the nodes' own `i128`, so a tree walk reads less.
type Free = [i64; 3];

/// What a pod asks of a node's free capacity, in milli-units: cpu, memory, pods.
pub(crate) type Need = [i128; 3];

/// `v` in the tree's `i64`s, saturating. Saturation keeps order (`a >= b` implies
/// `narrow(a) >= narrow(b)`, and a need of zero or less stays so), so the tree still yields
/// every node with room; the few extra it may yield past `i64`'s range the exact checks that
/// follow refuse. `i64::MIN` is left to [`EMPTY`].
fn narrow(v: i128) -> i64 {
    i64::try_from(v.clamp(i128::from(i64::MIN) + 1, i128::from(i64::MAX))).unwrap_or(i64::MAX)
}

/// The nodes whose labels and taints accept a pod, as positions in the destination order,
/// whole and per zone. Each list is a max tree over what every node has free (cpu, memory,
/// pods) before the simulation: a simulation only ever takes capacity away, so the nodes a pod
/// can land on are among those the tree yields, and a pod whose topology spread allows some
/// zones reads only those zones' lists.
#[derive(Debug)]
pub struct FitList {
    all: MaxTree,
    by_zone: BTreeMap<String, MaxTree>,
}

/// Positions in ascending order, with a complete binary tree above them whose every entry is
/// the componentwise most free of the leaves below it. Asking for the first position from some
/// index on whose node covers a need descends only into subtrees whose bound covers it, so a
/// search skips runs of full nodes a subtree at a time. (A subtree whose cpu and memory maxima
/// come from different nodes can still be entered in vain; on a packed cluster the first-fit
/// scan visited about 530 nodes a pod before, and now visits only those with room.)
#[derive(Debug, Default)]
struct MaxTree {
    positions: Vec<usize>,
    /// `bounds[1]` is the root; the children of `k` are `2k` and `2k + 1`; the leaves start at
    /// `leaves` (a power of two), and those past the last position hold [`EMPTY`].
    bounds: Vec<Free>,
    leaves: usize,
}

/// A bound no positive need is covered by.
const EMPTY: Free = [i64::MIN; 3];

impl MaxTree {
    fn new(positions: Vec<usize>, free: &dyn Fn(usize) -> [i128; 3]) -> Self {
        let leaves = positions.len().next_power_of_two().max(1);
        let mut bounds = vec![EMPTY; 2 * leaves];
        for (k, &p) in positions.iter().enumerate() {
            bounds[leaves + k] = free(p).map(narrow);
        }
        for k in (1..leaves).rev() {
            let (l, r) = (bounds[2 * k], bounds[2 * k + 1]);
            bounds[k] = [l[0].max(r[0]), l[1].max(r[1]), l[2].max(r[2])];
        }
        MaxTree { positions, bounds, leaves }
    }

    /// The first index (into `positions`) at or after `from` whose node covers `need`.
    fn first_from(&self, from: usize, need: &Free) -> Option<usize> {
        if from >= self.positions.len() {
            return None;
        }
        let mut k = self.leaves + from;
        if covers(&self.bounds[k], need) {
            return Some(from);
        }
        // Walk up from the leaf at `from`; whenever the walk leaves a left child, the right
        // sibling's subtree holds the next indexes in order.
        loop {
            while k & 1 == 1 {
                k >>= 1;
                if k <= 1 {
                    return None;
                }
            }
            let sibling = k + 1;
            if let Some(found) = self.leftmost(sibling, need) {
                return Some(found);
            }
            k = sibling;
        }
    }

    /// The leftmost leaf under `k` whose node covers `need`. The bounds are componentwise
    /// maxima, so a subtree whose bound covers the need may still hold no single leaf that does.
    fn leftmost(&self, k: usize, need: &Free) -> Option<usize> {
        if !covers(&self.bounds[k], need) {
            return None;
        }
        if k >= self.leaves {
            return Some(k - self.leaves);
        }
        self.leftmost(2 * k, need).or_else(|| self.leftmost(2 * k + 1, need))
    }

    fn with_room(&self, need: Need) -> Cursor<'_> {
        let need = need.map(narrow);
        Cursor { tree: self, need, next: self.first_from(0, &need) }
    }
}

/// Whether `free` covers `need` in every dimension (a need of zero or less always is); the
/// padding past the last position covers nothing ([`narrow`] never gives `i64::MIN`).
fn covers(free: &Free, need: &Free) -> bool {
    free[0] != EMPTY[0] && room(free[0], need[0]) && room(free[1], need[1]) && room(free[2], need[2])
}

/// One list's nodes with room, in order, found one at a time.
struct Cursor<'s> {
    tree: &'s MaxTree,
    need: Free,
    next: Option<usize>,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<usize> {
        self.next.map(|k| self.tree.positions[k])
    }

    fn advance(&mut self) {
        self.next = self.next.and_then(|k| self.tree.first_from(k + 1, &self.need));
    }
}

impl FitList {
    /// `positions` index `order` (the destination order), which indexes `nodes`: the shared
    /// world's, passed as plain slices so that this file does not import the world.
    pub(in crate::engine) fn new(positions: Vec<usize>, nodes: &[BaseNode<'_>], order: &[usize]) -> Self {
        let free = |p: usize| {
            let node = &nodes[order[p]];
            [node.free_cpu, node.free_memory, node.free_pods]
        };
        // Borrowed while grouping: a zone's name is copied once, not once per node.
        let mut zoned: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for &p in &positions {
            if let Some(zone) = nodes[order[p]].zone() {
                zoned.entry(zone).or_default().push(p);
            }
        }
        let by_zone =
            zoned.into_iter().map(|(zone, positions)| (zone.to_owned(), MaxTree::new(positions, &free))).collect();
        FitList { all: MaxTree::new(positions, &free), by_zone }
    }

    /// Positions in the destination order of every node in the list, ascending.
    pub fn positions(&self) -> impl Iterator<Item = usize> + '_ {
        self.all.positions.iter().copied()
    }

    /// Whether the node at `position` (destination order) is in the list.
    pub fn contains(&self, position: usize) -> bool {
        self.all.positions.binary_search(&position).is_ok()
    }

    /// Positions in the destination order of the nodes that had room for `need` (cpu, memory
    /// and pods, milli-units) before the simulation and, when `zones` is given, lie in one of
    /// them; in order. Every node in the list with that room is yielded, and (needs and room
    /// within `i64`'s range) no other.
    pub fn with_room<'s>(&'s self, need: Need, zones: Option<&BTreeSet<&str>>) -> InOrder<'s> {
        let cursors = match zones {
            None => vec![self.all.with_room(need)],
            Some(zones) => zones.iter().filter_map(|z| self.by_zone.get(*z)).map(|t| t.with_room(need)).collect(),
        };
        InOrder { cursors }
    }
}

/// Several ascending position lists merged into one ascending list.
pub struct InOrder<'s> {
    cursors: Vec<Cursor<'s>>,
}

impl Iterator for InOrder<'_> {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        let (k, position) =
            self.cursors.iter().enumerate().filter_map(|(k, c)| Some((k, c.peek()?))).min_by_key(|&(_, p)| p)?;
        self.cursors[k].advance();
        Some(position)
    }
}

/// Whether `free` covers `want`; a request of zero or less is never checked (as in `Fits`).
pub(crate) fn room<T: Ord + Default + Copy>(free: T, want: T) -> bool {
    want <= T::default() || free >= want
}

#[cfg(test)]
mod tests {
    use super::{FitList, MaxTree, Need};

    /// Every position whose own free covers the need, in order: what the tree must yield.
    fn by_scan(positions: &[usize], free: &dyn Fn(usize) -> [i128; 3], need: Need) -> Vec<usize> {
        let covers = |f: [i128; 3]| f.iter().zip(need).all(|(&f, n)| super::room(f, n));
        positions.iter().copied().filter(|&p| covers(free(p))).collect()
    }

    fn yielded(tree: &MaxTree, need: Need) -> Vec<usize> {
        let mut cursor = tree.with_room(need);
        let mut out = Vec::new();
        while let Some(p) = cursor.peek() {
            out.push(p);
            cursor.advance();
        }
        out
    }

    #[test]
    fn the_tree_yields_exactly_the_nodes_with_room_in_order() {
        // A deterministic spread of free capacity in which cpu, memory and pods peak on
        // different nodes, so a subtree's bound often covers a need no single leaf does.
        let free = |p: usize| {
            let p = i128::try_from(p).unwrap_or(0);
            [(p * 37) % 101, (p * 53) % 89, (p * 11) % 7]
        };
        for len in [0usize, 1, 2, 3, 5, 31, 32, 33, 100, 257] {
            let positions: Vec<usize> = (0..len).map(|k| 3 * k + 1).collect();
            let tree = MaxTree::new(positions.clone(), &free);
            for need in [[0, 0, 0], [50, 0, 0], [0, 60, 3], [90, 80, 6], [100, 88, 6], [101, 0, 0], [-1, -1, -1]] {
                assert_eq!(yielded(&tree, need), by_scan(&positions, &free, need), "len {len}, need {need:?}");
            }
        }
    }

    #[test]
    fn a_need_past_i64_still_finds_every_node_with_room() {
        let huge = i128::from(i64::MAX) * 4;
        let free = |p: usize| if p.is_multiple_of(2) { [huge * 2, 1, 1] } else { [huge / 2, 1, 1] };
        let positions: Vec<usize> = (0..10).collect();
        let tree = MaxTree::new(positions.clone(), &free);
        let need = [huge, 0, 0];
        let found = yielded(&tree, need);
        assert!(by_scan(&positions, &free, need).iter().all(|p| found.contains(p)), "{found:?}");
        assert_eq!(yielded(&tree, [-huge, -huge, -huge]), positions, "a need below zero is always met");
    }

    #[test]
    fn zones_merge_in_order_and_a_zero_request_is_never_refused() {
        let free = |p: usize| [i128::try_from(p).unwrap_or(0), 1 << 40, 1000];
        let even = MaxTree::new((0..128).step_by(2).collect(), &free);
        let odd = MaxTree::new((1..128).step_by(2).collect(), &free);
        let list = FitList {
            all: MaxTree::new((0..128).collect(), &free),
            by_zone: [("a".to_owned(), even), ("b".to_owned(), odd)].into_iter().collect(),
        };
        let zones = ["a", "b"].into_iter().collect();
        let merged: Vec<usize> = list.with_room([96, 0, 1000], Some(&zones)).collect();
        assert_eq!(merged, (96..128).collect::<Vec<_>>());
        let only_a = ["a"].into_iter().collect();
        assert_eq!(list.with_room([120, 0, 0], Some(&only_a)).collect::<Vec<_>>(), vec![120, 122, 124, 126]);
        assert_eq!(list.with_room([0, 0, 1001], None).count(), 0, "no node has a pod slot past 1000m");
        assert!(super::room(-5, 0), "a request of zero is never refused");
    }
}
