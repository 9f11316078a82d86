//! The prescriptions of the seed incident (the built-in demo: app-b and app-c, one replica each
//! under `maxUnavailable: 1`, on node-x, which SingleNodeConsolidation deletes), each fix
//! replayed through the `--set` pipeline.

use super::*;
use crate::testing::demo;

const APP_B: &str = "Deployment/tenant-a/app-b";
const APP_C: &str = "Deployment/tenant-a/app-c";

fn judge() -> Round {
    Round { now: crate::testing::now(), pod_startup: jiff::SignedDuration::from_secs(60) }
}

/// The demo's unfixed round and its harmed workloads, as `plan` gets them.
fn unfixed(snapshot: &Snapshot) -> (Outcome, Vec<Harmed>) {
    let judge = judge();
    let baseline = judge.judge(snapshot.clone());
    let nodes: BTreeSet<String> = baseline.disrupted.keys().cloned().collect();
    let harmed = crate::audit::impact::impact(snapshot, &nodes, judge.pod_startup)
        .iter()
        .filter(|w| is_harmed(snapshot, w))
        .map(Harmed::of)
        .collect();
    (baseline, harmed)
}

/// The JSON payload of a `kubectl patch` command that starts with `prefix` (ending in `-p '`).
fn patched(command: &str, prefix: &str) -> serde_json::Value {
    let body = command.strip_prefix(prefix).and_then(|b| b.strip_suffix('\'')).unwrap_or_else(|| panic!("{command}"));
    serde_json::from_str(body).expect("the payload is JSON")
}

fn fix_of(p: &Prescription, kind: FixKind) -> Option<&Fix> {
    p.fixes.iter().find(|f| f.kind == kind)
}

#[test]
fn the_unfixed_round_sends_app_b_and_app_c_to_zero() {
    let s = demo();
    let (baseline, harmed) = unfixed(&s);
    assert_eq!(baseline.disrupted.keys().collect::<Vec<_>>(), ["node-x"]);
    assert_eq!(baseline.harmed.iter().map(String::as_str).collect::<Vec<_>>(), [APP_B, APP_C]);
    assert_eq!(harmed.len(), 2);
    assert!((baseline.savings - 0.192).abs() < 1e-9, "{}", baseline.savings);
}

#[test]
fn a_pdb_that_refuses_the_eviction_protects_both_and_costs_the_round() {
    let s = demo();
    let (baseline, harmed) = unfixed(&s);
    let p = prescribe(&s, &judge(), &baseline, &harmed, crate::testing::now(), &crate::engine::observe::Unobserved);
    let b = &p[0];
    assert_eq!(b.workload, APP_B);
    let pdb = fix_of(b, FixKind::Pdb).expect("the PDB fix verifies");
    assert_eq!(pdb.what_if, ["pdb/tenant-a/app-b.minAvailable=1"]);
    // The budget allows no eviction, so node-x is no candidate (karpenter `pkg/utils/pdb/pdb.go`
    // `CanEvictPods`, read by `StateNode.ValidatePodsDisruptable`): both are spared, the round lost.
    assert_eq!(pdb.protects, [APP_B, APP_C]);
    assert_eq!(pdb.nodes_pinned, ["node-x"]);
    assert!((pdb.savings_lost - 0.192).abs() < 1e-9, "{}", pdb.savings_lost);
    assert_eq!(pdb.commands.len(), 1);
    assert_eq!(
        patched(&pdb.commands[0], "kubectl patch pdb app-b -n tenant-a --type=merge -p '"),
        serde_json::json!({"spec": {"maxUnavailable": null, "minAvailable": 1}})
    );
}

#[test]
fn do_not_disrupt_and_the_nodepool_fix_verify_with_their_cost() {
    let s = demo();
    let (baseline, harmed) = unfixed(&s);
    let p = prescribe(&s, &judge(), &baseline, &harmed, crate::testing::now(), &crate::engine::observe::Unobserved);
    for w in &p {
        let dnd = fix_of(w, FixKind::DoNotDisrupt).expect("do-not-disrupt verifies");
        assert!(dnd.what_if.iter().all(|s| s.starts_with("pod/tenant-a/") && s.ends_with(".do-not-disrupt=true")));
        assert!(dnd.commands[0].starts_with("kubectl annotate pod "), "{}", dnd.commands[0]);
        assert_eq!(dnd.nodes_pinned, ["node-x"]);
        let pool = fix_of(w, FixKind::NodePool).expect("consolidateAfter: Never verifies");
        assert_eq!(pool.what_if, ["nodepool/default.consolidateAfter=Never"]);
        assert_eq!(
            patched(&pool.commands[0], "kubectl patch nodepool default --type=merge -p '"),
            serde_json::json!({"spec": {"disruption": {"consolidateAfter": "Never"}}})
        );
        assert!(pool.savings_lost > 0.19);
    }
}

#[test]
fn a_fix_shared_by_two_workloads_is_replayed_once() {
    struct Counting<'a>(&'a Round, std::sync::atomic::AtomicUsize);
    impl Judge for Counting<'_> {
        fn judge(&self, snapshot: Snapshot) -> Outcome {
            self.1.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            self.0.judge(snapshot)
        }
    }
    let s = demo();
    let (baseline, harmed) = unfixed(&s);
    let round = judge();
    let counting = Counting(&round, std::sync::atomic::AtomicUsize::new(0));
    let p = prescribe(&s, &counting, &baseline, &harmed, crate::testing::now(), &crate::engine::observe::Unobserved);
    let tried: usize = p.iter().map(|w| w.fixes.len() + w.rejected.len()).sum();
    // app-b and app-c share node-x's NodePool fix and their replicas fix together.
    assert_eq!(counting.1.load(std::sync::atomic::Ordering::Relaxed), tried - 2);
    assert!(counting.1.load(std::sync::atomic::Ordering::Relaxed) <= MAX_REPLAYS);
}

#[test]
fn a_fix_whose_replay_still_harms_is_not_offered() {
    struct Unchanged(Outcome);
    impl Judge for Unchanged {
        fn judge(&self, _: Snapshot) -> Outcome {
            self.0.clone()
        }
    }
    let s = demo();
    let (baseline, harmed) = unfixed(&s);
    let p = prescribe(
        &s,
        &Unchanged(baseline.clone()),
        &baseline,
        &harmed,
        crate::testing::now(),
        &crate::engine::observe::Unobserved,
    );
    assert!(p.iter().all(|w| w.fixes.is_empty() && !w.rejected.is_empty()));
    assert!(p[0].rejected[0].why.contains("still takes Deployment/tenant-a/app-b"), "{}", p[0].rejected[0].why);
}

#[test]
fn a_fix_that_moves_the_harm_elsewhere_is_not_offered() {
    struct Elsewhere;
    impl Judge for Elsewhere {
        fn judge(&self, _: Snapshot) -> Outcome {
            Outcome { harmed: ["Deployment/tenant-a/batch-0".to_owned()].into(), ..Outcome::default() }
        }
    }
    let s = demo();
    let (baseline, harmed) = unfixed(&s);
    let p = prescribe(&s, &Elsewhere, &baseline, &harmed, crate::testing::now(), &crate::engine::observe::Unobserved);
    assert!(p[0].fixes.is_empty());
    assert!(p[0].rejected.iter().all(|r| r.why.contains("batch-0")));
}

#[test]
fn over_the_cap_a_workload_is_listed_as_not_replayed() {
    let s = demo();
    let (baseline, harmed) = unfixed(&s);
    let many: Vec<Harmed> = (0..=MAX_WORKLOADS).map(|i| harmed[i % 2].clone()).collect();
    let p = prescribe(&s, &judge(), &baseline, &many, crate::testing::now(), &crate::engine::observe::Unobserved);
    assert!(p[MAX_WORKLOADS].not_replayed.is_some());
    assert!(p[MAX_WORKLOADS].fixes.is_empty());
}

/// Two replicas spread over hostnames protect app-b without pinning node-x, once app-c gets the
/// same: the template patch rolls each pod off node-x (placed by the provisioner, karpenter
/// `pkg/controllers/provisioning/provisioner.go` `Schedule`, `engine/provisioner.rs`), node-x is
/// left empty and goes by Emptiness for the same savings (karpenter
/// `pkg/controllers/disruption/emptiness.go`). app-b's alone is not offered: the room its
/// rolled pod leaves on node-x lets the round delete node-2 instead, and batch-2, one replica
/// there, goes to zero.
#[test]
fn two_replicas_spread_protect_app_b_without_pinning() {
    let s = demo();
    let (baseline, harmed) = unfixed(&s);
    let p = prescribe(&s, &judge(), &baseline, &harmed, crate::testing::now(), &crate::engine::observe::Unobserved);
    let fix = &p[0].fixes[0];
    assert_eq!(fix.kind, FixKind::Replicas, "the cheapest fix comes first: {:?}", p[0].fixes);
    assert_eq!(
        fix.what_if,
        [
            "deployment/tenant-a/app-b.spread=hostname",
            "deployment/tenant-a/app-b.replicas=2",
            "deployment/tenant-a/app-c.spread=hostname",
            "deployment/tenant-a/app-c.replicas=2"
        ]
    );
    assert_eq!(fix.protects, [APP_B, APP_C]);
    assert!(fix.nodes_pinned.is_empty(), "{:?}", fix.nodes_pinned);
    assert!(fix.savings_lost.abs() < 1e-9, "{}", fix.savings_lost);
    let alone = p[0].rejected.iter().find(|r| r.kind == FixKind::Replicas).expect("app-b's alone is tried");
    assert_eq!(alone.what_if, ["deployment/tenant-a/app-b.spread=hostname", "deployment/tenant-a/app-b.replicas=2"]);
    assert!(alone.why.contains("Deployment/tenant-a/batch-2"), "{}", alone.why);
    assert_eq!(p[1].fixes[0].what_if, fix.what_if, "the same fix heads app-c's list");
    let mut fixed = s.clone();
    let nodes: Vec<String> = placements_of(&mut fixed, &fix.what_if)
        .iter()
        .map(|p| match &p.to {
            crate::engine::provisioner::Placed::Existing { node, .. } => node.clone(),
            other => format!("{other:?}"),
        })
        .collect();
    assert_eq!(nodes.len(), 4, "two rolled pods and two copies: {nodes:?}");
    assert!(!nodes.iter().any(|n| n == "node-x"), "{nodes:?}");
}

/// Where the pods `what_if` adds go, as `--set` places them.
fn placements_of(snapshot: &mut Snapshot, what_if: &[String]) -> Vec<crate::engine::provisioner::Placement> {
    crate::engine::provisioner::apply_and_place(snapshot, crate::testing::now(), |s| crate::whatif::apply(s, what_if))
        .expect("applies")
        .1
}

/// The demo with node-x renamed `a-node-x`: the node the round deletes now sorts before every
/// other, so a first-fit placement (the replay takes initialized nodes, then by name, as
/// Karpenter's simulation orders them) puts a new replica on it.
fn demo_candidate_first() -> Snapshot {
    crate::testing::demo_edited(|text| text.replace("node-x", "a-node-x"))
}

fn placed_on(snapshot: &Snapshot, what_if: &[&str]) -> Vec<String> {
    let mut fixed = snapshot.clone();
    let what_if: Vec<String> = what_if.iter().map(|s| (*s).to_owned()).collect();
    placements_of(&mut fixed, &what_if)
        .iter()
        .map(|p| match &p.to {
            crate::engine::provisioner::Placed::Existing { node, .. } => node.clone(),
            other => format!("{other:?}"),
        })
        .collect()
}

/// Why the spread is part of the fix: a second replica alone lands, first fit, beside the first
/// on the node the round deletes; with the `ScheduleAnyway` hostname spread the scheduler keeps
/// the two apart (honoured until relaxed, karpenter
/// `pkg/controllers/provisioning/scheduling/preferences.go` `Relax`), so one node's deletion
/// takes one of them.
#[test]
fn the_spread_is_what_keeps_the_new_replica_off_the_deleted_node() {
    let s = demo_candidate_first();
    let (baseline, _) = unfixed(&s);
    assert_eq!(baseline.disrupted.keys().collect::<Vec<_>>(), ["a-node-x"]);
    assert_eq!(placed_on(&s, &["deployment/tenant-a/app-b.replicas=2"]), ["a-node-x"], "first fit, no spread");
    let spread = placed_on(&s, &["deployment/tenant-a/app-b.spread=hostname", "deployment/tenant-a/app-b.replicas=2"]);
    assert_eq!(spread.len(), 2, "the rolled pod and its copy: {spread:?}");
    assert_ne!(spread[0], spread[1], "the spread keeps them apart: {spread:?}");
}

#[test]
fn the_observer_is_told_each_fix_replayed() {
    #[derive(Default)]
    struct Watching(std::sync::Mutex<Vec<(usize, usize)>>);
    impl crate::engine::observe::Observer for Watching {
        fn fixes_replayed(&self, done: usize, total: usize) {
            self.0.lock().unwrap().push((done, total));
        }
    }
    let s = demo();
    let (baseline, harmed) = unfixed(&s);
    let watching = Watching::default();
    let p = prescribe(&s, &judge(), &baseline, &harmed, crate::testing::now(), &watching);
    let mut told = watching.0.into_inner().unwrap();
    told.sort_unstable();
    let tried: usize = p.iter().map(|w| w.fixes.len() + w.rejected.len()).sum();
    // One call per distinct fix (two of the demo's are shared), counting up to the total.
    let total = tried - 2;
    assert_eq!(told, (1..=total).map(|done| (done, total)).collect::<Vec<_>>());
}
