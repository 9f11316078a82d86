//! The summary from refusal classes equals the node-by-node count.

use std::collections::BTreeMap;

use super::super::scheduler::{Options, Simulation};
use super::super::World;
use crate::engine::incremental::test_clusters::random_cluster;
use crate::engine::state::Cluster;
use crate::testing::now;

/// The summary and the first refusing nodes, asking every node.
fn by_scan<'a>(sim: &Simulation<'_, '_, 'a>, pod: &'a crate::snapshot::Pod) -> (String, Vec<String>) {
    let world = sim.world;
    let requests = world.requests(pod);
    let fit = sim.fit(pod, pod);
    let rules = sim.rules(pod, pod);
    let (mut existing, mut counts, mut nodes) = (0, BTreeMap::<String, usize>::new(), Vec::new());
    for &i in world.order.iter().filter(|&&i| !sim.excluded[i]) {
        existing += 1;
        if let Err(reason) = sim.can_add_existing(i, pod, &requests, &fit.requirements, &rules) {
            if nodes.len() < super::MAX_REJECTIONS {
                nodes.push(format!("{}: {reason}", world.nodes[i].name));
            }
            *counts.entry(reason.into_owned()).or_default() += 1;
        }
    }
    let counts: Vec<String> = counts.iter().map(|(reason, n)| format!("{n} {reason}")).collect();
    (format!("0/{existing} nodes are available: {}", counts.join(", ")), nodes)
}

#[test]
fn classes_count_what_every_node_says() {
    let mut asked = 0;
    for seed in 0..120 {
        let snap = random_cluster(seed);
        let cluster = Cluster::new(&snap, now());
        let world = World::new(&cluster);
        let nodes: Vec<usize> = (0..cluster.nodes.len()).filter(|&i| !world.is_deleting(i)).collect();
        for (k, &candidate) in nodes.iter().enumerate() {
            let options = Options { consolidation: k % 2 == 0, ..Options::default() };
            let mut sim = Simulation::new(&world, &[candidate], options);
            sim.solve();
            // After the pass: the nodes now hold what it placed, which the classes do not know.
            for pod in &snap.pods {
                let refusals = sim.refusals(pod, pod);
                let (summary, first) = by_scan(&sim, pod);
                assert_eq!(
                    (refusals.summary(), refusals.nodes),
                    (summary, first),
                    "seed {seed}, {}",
                    pod.metadata.name
                );
                asked += 1;
            }
        }
    }
    assert!(asked > 1000);
}
