//! Reusing the shared pods' baseline never changes a simulation: every candidate's results
//! with reuse equal those placed pod by pod, and reuse does happen.

use serde_json::json;

use crate::engine::incremental::test_clusters::{random_cluster, sized, spread};
use crate::engine::scheduling::scheduler::{Options, Simulation};
use crate::engine::scheduling::World;
use crate::engine::state::Cluster;
use crate::testing::{managed_node, node_pool, now, pod, set, snapshot};

fn two_zones() -> crate::snapshot::Snapshot {
    let mut objects = vec![node_pool("default")];
    for n in ["n1", "n2", "n3", "n4", "n5", "n6"] {
        let [node, claim] = managed_node(n);
        let zone = if n < "n4" { "zone-a" } else { "zone-b" };
        objects.push(set(node, "/metadata/labels/topology.kubernetes.io~1zone", json!(zone)));
        objects.push(claim);
    }
    // A node being disrupted: its pods move in every simulation.
    let [node, claim] = managed_node("gone");
    objects.push(set(node, "/spec/taints", json!([{"key": "karpenter.sh/disrupted", "effect": "NoSchedule"}])));
    objects.push(claim);
    // Nodes partly full, so that the candidates' pods and the shared ones compete for room.
    let load = [("n1", "2500m"), ("n2", "2700m"), ("n3", "3050m"), ("n4", "500m"), ("n5", "2"), ("n6", "1500m")];
    for (i, (node, cpu)) in load.iter().enumerate() {
        objects.push(sized(&format!("base-{i}"), &format!("base-{i}"), node, cpu));
        objects.push(sized(&format!("small-{i}"), "small", node, "300m"));
        objects.push(spread(sized(&format!("web-{i}"), "web", node, "200m"), "web"));
    }
    for (i, cpu) in ["1", "700m", "400m", "1200m", "250m"].iter().enumerate() {
        objects.push(sized(&format!("moving-{i}"), &format!("moving-{i}"), "gone", cpu));
    }
    objects.push(spread(sized("moving-web", "web", "gone", "200m"), "web"));
    for (i, cpu) in ["600m", "900m", "150m"].iter().enumerate() {
        objects.push(sized(&format!("pending-{i}"), &format!("pending-{i}"), "", cpu));
    }
    objects.push(spread(sized("pending-web", "web", "", "200m"), "web"));
    // `db` runs on n1 alone, so `near` must go to n1's zone; a candidate's `db` pod that moves
    // to the other zone takes `near` with it. `apart` must keep off nodes running `db`.
    objects.push(sized("db-0", "db", "n1", "1"));
    objects.push(sized("db-1", "db", "n5", "100m"));
    let term = |key: &str| json!([{"topologyKey": key, "labelSelector": {"matchLabels": {"app": "db"}}}]);
    let near = sized("pending-near", "near", "", "450m");
    let affinity = "/spec/affinity/podAffinity/requiredDuringSchedulingIgnoredDuringExecution";
    objects.push(set(near, affinity, term("topology.kubernetes.io/zone")));
    // Smaller than `near`: where `near` no longer goes, it finds the room `near` took.
    objects.push(sized("pending-after-near", "after-near", "", "400m"));
    let apart = sized("moving-apart", "apart", "gone", "500m");
    let anti = "/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution";
    objects.push(set(apart, anti, term("kubernetes.io/hostname")));
    snapshot(objects)
}

#[test]
fn every_candidate_simulates_the_same_with_and_without_the_baseline() {
    let snap = two_zones();
    let cluster = Cluster::new(&snap, now());
    let world = World::new(&cluster);
    assert_eq!(world.deleting.len(), 1, "the disrupted node deletes");
    assert_eq!(world.pending.len(), 6);
    let nodes: Vec<usize> = (0..cluster.nodes.len()).filter(|&i| !world.is_deleting(i)).collect();
    let mut sets: Vec<Vec<usize>> = nodes.iter().map(|&i| vec![i]).collect();
    sets.extend(nodes.windows(2).map(<[usize]>::to_vec));
    sets.push(nodes.clone());
    let (mut reused, mut placed_again) = (0, 0);
    for consolidation in [false, true] {
        for candidates in &sets {
            let options = Options { consolidation, ..Options::default() };
            let mut with = Simulation::new(&world, candidates, options);
            assert!(with.shared.is_some(), "reuse applies to {candidates:?}");
            let shared = with.queue.iter().filter(|(_, pending, deleting)| *pending || *deleting).count();
            with.solve();
            let mut without = Simulation::new(&world, candidates, options);
            without.shared = None;
            without.solve();
            assert_eq!(with.results, without.results, "candidates {candidates:?}, consolidation {consolidation}");
            let n = with.shared.as_ref().map_or(0, |t| t.reused);
            reused += n;
            placed_again += shared - n;
        }
    }
    assert!(reused > 0, "some shared pods are taken from the baseline");
    assert!(placed_again > 0, "and some are placed again, where a candidate changed their outcome");
}

#[test]
fn no_reuse_without_shared_pods_or_when_explaining() {
    let mut objects = vec![node_pool("default")];
    objects.extend(managed_node("n1"));
    objects.push(pod("a", "n1"));
    let snap = snapshot(objects);
    let cluster = Cluster::new(&snap, now());
    let world = World::new(&cluster);
    assert!(Simulation::new(&world, &[0], Options::default()).shared.is_none(), "nothing is shared");
    let snap = two_zones();
    let cluster = Cluster::new(&snap, now());
    let world = World::new(&cluster);
    let detail = Options { detail: true, ..Options::default() };
    assert!(Simulation::new(&world, &[0], detail).shared.is_none(), "the detail reads the room as searched");
    assert!(Simulation::new(&world, &[], Options::default()).shared.is_none(), "the baseline itself");
}

#[test]
fn random_clusters_simulate_the_same_with_and_without_the_baseline() {
    let (mut reused, mut compared) = (0, 0);
    for seed in 0..300 {
        let snap = random_cluster(seed);
        let cluster = Cluster::new(&snap, now());
        let world = World::new(&cluster);
        let nodes: Vec<usize> = (0..cluster.nodes.len()).filter(|&i| !world.is_deleting(i)).collect();
        let sets = nodes.iter().map(|&i| vec![i]).chain(nodes.windows(3).map(<[usize]>::to_vec));
        for candidates in sets {
            // Every pass the replay runs: consolidation's, a gate-lifted one, a decision-only one.
            let (lift_pod_gates, decision_only) = (seed % 3 == 1, seed % 3 == 2);
            let options = Options { consolidation: seed % 4 != 0, lift_pod_gates, decision_only, ..Options::default() };
            let mut with = Simulation::new(&world, &candidates, options);
            with.solve();
            let mut without = Simulation::new(&world, &candidates, options);
            without.shared = None;
            without.solve();
            assert_eq!(with.results, without.results, "seed {seed}, candidates {candidates:?}");
            reused += with.shared.as_ref().map_or(0, |t| t.reused);
            compared += 1;
        }
    }
    assert!(reused > compared, "reuse is common: {reused} pods over {compared} simulations");
}

#[test]
fn a_filter_that_selected_no_moved_pod_is_asked_again_about_the_pods_moved_since() {
    let snap = two_zones();
    let cluster = Cluster::new(&snap, now());
    let world = World::new(&cluster);
    let index = |name: &str| (0..cluster.nodes.len()).find(|&i| cluster.nodes[i].name == name).unwrap_or(usize::MAX);
    let pod = |name: &str| snap.pods.iter().find(|p| p.metadata.name == name).expect("pod in the snapshot");
    // `near`'s required affinity selects the `db` pods; candidate n2 holds none of them.
    let mut sim = Simulation::new(&world, &[index("n2")], Options { consolidation: true, ..Options::default() });
    let mut tracker = sim.shared.take().expect("reuse applies");
    let terms = world.pod_terms(pod("pending-near"));
    let db = terms.filters().next().expect("near's affinity term");
    assert!(!sim.selects_a_moved_pod(&tracker, db), "nothing of db moved");
    tracker.moved.push((), pod("small-0"));
    assert!(!sim.selects_a_moved_pod(&tracker, db), "small is not db");
    tracker.moved.push((), pod("db-0"));
    assert!(sim.selects_a_moved_pod(&tracker, db), "db-0 moved after the filter was last asked");
    assert_eq!(tracker.seen_filters.borrow().len(), 1, "one answer kept per filter");
}
