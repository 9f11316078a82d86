//! The scheduling loop: decision-only passes against full ones, and pinned static fits.

use serde_json::json;

use super::super::results::Destination;
use super::super::{simulate, World};
use super::Options;
use crate::engine::state::Cluster;
use crate::testing::{managed_node, node_pool, now, pod, set, snapshot};

fn pinned(name: &str, node: &str, to: &[&str]) -> serde_json::Value {
    let term = json!({"matchExpressions": [{"key": "kubernetes.io/hostname", "operator": "In", "values": to}]});
    set(
        pod(name, node),
        "/spec/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms",
        json!([term]),
    )
}

fn cluster_of(extra: Vec<serde_json::Value>) -> crate::snapshot::Snapshot {
    let mut objects = vec![node_pool("default")];
    for n in ["n1", "n2", "n3"] {
        objects.extend(managed_node(n));
    }
    objects.extend(extra);
    snapshot(objects)
}

fn landing(results: &super::Results, pod: &str) -> Option<Destination> {
    results.moves.iter().find(|m| m.pod == format!("default/{pod}")).map(|m| m.to.clone())
}

#[test]
fn a_pod_pinned_to_the_candidate_fails_and_a_decision_only_pass_stops_at_it() {
    // nodeclaim.go NewNodeClaim gives a new NodeClaim a placeholder hostname, so a pod whose
    // required affinity names only the candidate's hostname has nowhere to go.
    let snap = cluster_of(vec![pod("free", "n1"), pinned("stuck", "n1", &["n1"])]);
    let cluster = Cluster::new(&snap, now());
    let world = World::new(&cluster);
    let n1 = cluster.nodes.iter().position(|n| n.name == "n1").expect("n1");
    let full = simulate(&world, &[n1], Options { consolidation: true, ..Options::default() });
    assert_eq!(landing(&full, "stuck"), Some(Destination::Nowhere));
    assert!(matches!(landing(&full, "free"), Some(Destination::Existing(_))));
    assert!(full.moves.iter().any(|m| m.pod == "default/stuck" && !m.why.is_empty()), "the full pass says why");
    let quick = simulate(&world, &[n1], Options { consolidation: true, decision_only: true, ..Options::default() });
    assert_eq!(quick.moves.len(), 1, "the pass stops at the doomed pod: {:?}", quick.moves);
    assert_eq!(landing(&quick, "stuck"), Some(Destination::Nowhere));
    assert!(quick.non_pending_errors().is_some() && full.non_pending_errors().is_some());
}

#[test]
fn a_decision_only_pass_stops_once_bound_pods_need_two_new_node_claims() {
    // consolidation.go computeConsolidation: more than one new NodeClaim is no command. The
    // test catalogue's largest type has 4 cpu, so three 3-cpu pods need three claims.
    let big = |name: &str| {
        let containers = json!([{"name": "c", "resources": {"requests": {"cpu": "3", "memory": "128Mi"}}}]);
        set(pod(name, "n1"), "/spec/containers", containers)
    };
    let mut objects = vec![node_pool("default")];
    objects.extend(managed_node("n1"));
    objects.extend([big("a"), big("b"), big("c")]);
    let snap = snapshot(objects);
    let cluster = Cluster::new(&snap, now());
    let world = World::new(&cluster);
    let full = simulate(&world, &[0], Options { consolidation: true, ..Options::default() });
    assert_eq!((full.moves.len(), full.new_claims.len()), (3, 3));
    let quick = simulate(&world, &[0], Options { consolidation: true, decision_only: true, ..Options::default() });
    assert_eq!((quick.moves.len(), quick.new_claims.len()), (2, 2), "stopped at the second claim");
    assert!(quick.non_pending_errors().is_none(), "no pod failed: it is the claim count that decides");
}

#[test]
fn a_decision_only_pass_stops_at_a_bound_pod_placed_on_an_uninitialized_node() {
    // disruption/helpers.go SimulateScheduling: a pod (not from a deleting node) placed on an
    // existing node that is not initialized gets an UninitializedNodeError, whatever the rest
    // does, so the simulation is no consolidation from that pod on.
    let sized = |name: &str, cpu: &str| {
        let containers = json!([{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": "128Mi"}}}]);
        set(pod(name, "n1"), "/spec/containers", containers)
    };
    let [node, claim] = managed_node("n2");
    let starting = set(node, "/metadata/labels/karpenter.sh~1initialized", json!("false"));
    let mut objects = vec![node_pool("default"), starting, claim];
    objects.extend(managed_node("n1"));
    objects.extend([sized("big", "3"), sized("small", "100m")]);
    let snap = snapshot(objects);
    let cluster = Cluster::new(&snap, now());
    let world = World::new(&cluster);
    let n1 = cluster.nodes.iter().position(|n| n.name == "n1").expect("n1");
    let full = simulate(&world, &[n1], Options { consolidation: true, ..Options::default() });
    assert_eq!(full.moves.len(), 2);
    let quick = simulate(&world, &[n1], Options { consolidation: true, decision_only: true, ..Options::default() });
    assert_eq!(quick.moves.len(), 1, "the pass stops at the first pod on n2: {:?}", quick.moves);
    assert_eq!(landing(&quick, "big"), Some(Destination::Nowhere));
    for results in [&full, &quick] {
        let errors = results.non_pending_errors().expect("no consolidation");
        assert!(errors.contains("uninitialized nodeclaim/claim-n2"), "{errors}");
    }
}

#[test]
fn a_pod_pinned_to_a_node_that_stays_is_placed_the_same_in_both_passes() {
    let snap = cluster_of(vec![pinned("elsewhere", "n1", &["n1", "n3"]), pod("free", "n1")]);
    let cluster = Cluster::new(&snap, now());
    let world = World::new(&cluster);
    let n1 = cluster.nodes.iter().position(|n| n.name == "n1").expect("n1");
    let n3 = cluster.nodes.iter().position(|n| n.name == "n3").expect("n3");
    let full = simulate(&world, &[n1], Options { consolidation: true, ..Options::default() });
    let quick = simulate(&world, &[n1], Options { consolidation: true, decision_only: true, ..Options::default() });
    assert_eq!(landing(&full, "elsewhere"), Some(Destination::Existing(cluster.nodes[n3].name.clone())));
    let lands = |r: &super::Results| r.moves.iter().map(|m| (m.pod.clone(), m.to.clone())).collect::<Vec<_>>();
    assert_eq!(lands(&full), lands(&quick));
    // With both of its nodes gone it is doomed too.
    let both = simulate(&world, &[n1, n3], Options { consolidation: true, decision_only: true, ..Options::default() });
    assert_eq!(landing(&both, "elsewhere"), Some(Destination::Nowhere));
}

#[test]
fn a_hostname_pinned_static_fit_is_what_a_full_scan_finds() {
    let snap =
        cluster_of(vec![pinned("a", "n1", &["n2", "n3", "nowhere"]), pinned("b", "n1", &["n9"]), pod("c", "n1")]);
    let cluster = Cluster::new(&snap, now());
    let world = World::new(&cluster);
    for p in &snap.pods {
        let fit = world.pod_fit(p);
        let fast: Vec<usize> = fit.fits.with_room([0, 0, 0], None).collect();
        let slow: Vec<usize> = (0..world.order.len())
            .filter(|&q| fit.requirements.iter().any(|r| world.nodes[world.order[q]].admits(r)))
            .collect();
        assert_eq!(fast, slow, "{}", p.metadata.name);
    }
    let a = snap.pods.iter().find(|p| p.metadata.name == "a").expect("a");
    assert_eq!(world.pod_fit(a).fits.with_room([0, 0, 0], None).count(), 2);
}

#[test]
fn a_node_claim_kept_from_an_earlier_pod_takes_the_next_placeholder_hostname() {
    // nodeclaim.go NewNodeClaim numbers each new NodeClaim's placeholder hostname; a claim
    // NodePool `a` built for the first pod (which does not tolerate it) must not keep the
    // hostname that NodePool `b`'s claim then took, or the second pod's hostname
    // anti-affinity would see the first pod on it.
    let tainted =
        set(node_pool("a"), "/spec/template/spec/taints", json!([{"key": "dedicated", "effect": "NoSchedule"}]));
    let pool_a = set(tainted, "/spec/weight", json!(10));
    let apart = json!([{"topologyKey": "kubernetes.io/hostname", "labelSelector": {"matchLabels": {"app": "x"}}}]);
    let pending = |name: &str, cpu: &str| {
        let containers = json!([{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": "128Mi"}}}]);
        let p = set(set(pod(name, ""), "/spec/containers", containers), "/metadata/labels", json!({"app": "x"}));
        let p = set(p, "/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution", apart.clone());
        let unschedulable = json!({"type": "PodScheduled", "status": "False", "reason": "Unschedulable"});
        set(
            set(p, "/spec/nodeName", json!(null)),
            "/status",
            json!({"phase": "Pending", "conditions": [unschedulable]}),
        )
    };
    let tolerant = set(
        pending("second", "100m"),
        "/spec/tolerations",
        json!([{"key": "dedicated", "operator": "Exists", "effect": "NoSchedule"}]),
    );
    let snap = snapshot(vec![pool_a, node_pool("b"), pending("first", "200m"), tolerant]);
    let cluster = Cluster::new(&snap, now());
    let world = World::new(&cluster);
    let results = simulate(&world, &[], Options::default());
    let pools: Vec<&str> = results.new_claims.iter().map(|c| c.node_pool.as_str()).collect();
    assert_eq!(pools, ["b", "a"], "{:?}", results.moves);
    assert_eq!(landing(&results, "second"), Some(Destination::New(1)));
}

#[test]
fn a_simulation_queues_its_pods_and_the_shared_ones_as_one_sort_of_everything_would() {
    let (mut merged, mut shared) = (0, 0);
    for seed in 0..100 {
        let snap = crate::engine::incremental::test_clusters::random_cluster(seed);
        let cluster = Cluster::new(&snap, now());
        let world = World::new(&cluster);
        for i in 0..cluster.nodes.len() {
            for lift_pod_gates in [false, true] {
                let candidates = [i, (i + 1) % cluster.nodes.len()];
                let options = Options { consolidation: true, lift_pod_gates, ..Options::default() };
                let queue = super::Simulation::new(&world, &candidates, options).queue;
                // Gathered as `SimulateScheduling` lists them (pending pods, then node by node),
                // then sorted whole.
                let mut expected: Vec<super::queue::Queued<'_>> =
                    world.pending.iter().map(|p| (*p, true, false)).collect();
                for n in 0..cluster.nodes.len() {
                    if candidates.contains(&n) {
                        let movers = cluster.nodes[n].pods.iter().copied();
                        let movers = movers.filter(|p| crate::engine::pod::is_reschedulable(p));
                        let movers = movers.filter(|p| lift_pod_gates || !world.is_held(n, p));
                        expected.extend(movers.map(|p| (p, false, false)));
                    } else if let Ok(k) = world.deleting.binary_search(&n) {
                        expected.extend(world.deleting_movers()[k].iter().map(|p| (*p, false, true)));
                    }
                }
                super::queue::sort(&mut expected, &world);
                let key = |q: &[super::queue::Queued<'_>]| {
                    q.iter().map(|&(p, a, b)| (p.metadata.key(), a, b)).collect::<Vec<_>>()
                };
                assert_eq!(key(&queue), key(&expected), "seed {seed}, candidates {candidates:?}");
                merged += usize::from(!candidates.iter().any(|&c| world.is_deleting(c)));
                shared += world.shared_queue().len();
            }
        }
    }
    assert!(merged > 0 && shared > 0, "the merge is exercised with shared pods");
}

#[test]
fn a_spread_that_does_not_select_its_own_pod_does_not_count_it_whatever_pod_was_asked_first() {
    // topologygroup.go nextDomainTopologySpread: the pod adds itself to a domain's count only
    // when the spread's selector selects it (`selfSelecting`). `canary` spreads over the `web`
    // pods without being one: on n1 (one web pod, hostname minimum 0) the skew is 1, allowed.
    // A `web` pod with the very same spread would make it 2. n2 is full.
    use crate::engine::incremental::test_clusters::{sized, spread};
    let web = spread(sized("web-0", "web", "n1", "100m"), "web");
    let canary = spread(sized("canary", "canary", "", "100m"), "web");
    let mut objects = vec![node_pool("default")];
    objects.extend(managed_node("n1"));
    objects.extend(managed_node("n2"));
    objects.extend([web, canary, sized("big", "big", "n2", "1000")]);
    let snap = snapshot(objects);
    let cluster = Cluster::new(&snap, now());
    let world = World::new(&cluster);
    // The web pod's terms are worked out first: two pods with the same spread, namespace and
    // node constraints may share them, but not whether they select themselves.
    let web_pod = snap.pods.iter().find(|p| p.metadata.name == "web-0").expect("web-0");
    assert!(!world.pod_terms(web_pod).is_empty());
    let results = simulate(&world, &[], Options::default());
    assert_eq!(landing(&results, "canary"), Some(Destination::Existing("n1".into())));
}
