//! The forecast on small clusters: the demo's round, pods conserved by `apply`, the clock's
//! waits, determinism (of the bytes: `report::forecast`'s tests).

use std::collections::BTreeSet;

use jiff::SignedDuration;
use serde_json::json;

use super::apply::{advance, start};
use super::clock::Delays;
use super::impact::{Harm, Workloads};
use super::state::State;
use super::{forecast, Limits, Stop};
use crate::engine::replay_round;
use crate::snapshot::{Node, NodeClaim};
use crate::testing::{demo, lone_pod, managed_node, moving_onto_a_launching_node, node_pool, now, pod, set, snapshot};

fn secs(s: i64) -> SignedDuration {
    SignedDuration::from_secs(s)
}

/// When a started command's nodes are gone (every drain in these tests ends).
fn gone(started: &super::apply::Started) -> jiff::Timestamp {
    started.gone_at.expect("the drain ends")
}

/// The state's index of each node's pods says what the pods' own `spec.nodeName` say.
fn assert_pods_on_agrees(state: &State) {
    let mut names: BTreeSet<&str> = state.snapshot.nodes.iter().map(|n| n.metadata.name.as_str()).collect();
    names.extend(state.snapshot.pods.iter().filter_map(|p| p.spec.node_name.as_deref()));
    for name in names {
        let bound: Vec<usize> = (0..state.snapshot.pods.len())
            .filter(|&i| state.snapshot.pods[i].spec.node_name.as_deref() == Some(name))
            .collect();
        assert_eq!(state.pods_on(name), bound, "pods on {name}");
    }
}

#[test]
fn the_demo_removes_node_x_in_round_one_and_app_b_and_c_go_to_zero_for_their_startup() {
    let f = forecast(demo(), now(), &Delays::default(), Limits::default());
    assert_eq!(f.stop, Stop::Settled);
    let first = &f.rounds[0];
    assert_eq!((first.index, first.at, first.started_at), (1, secs(0), secs(15)));
    assert_eq!(first.steps[0].candidates, ["node-x"]);
    assert_eq!(f.rounds.len(), 1, "nothing acts after node-x: {:?}", f.rounds);
    let names: Vec<&str> = f.workloads.iter().map(|w| w.workload.as_str()).collect();
    assert_eq!(names, ["Deployment/tenant-a/app-b", "Deployment/tenant-a/app-c"]);
    for w in &f.workloads {
        // One replica each, maxUnavailable 1: the only pod goes, for the default startup (1m).
        assert_eq!((w.evictions, w.zero_ready_times, w.zero_ready_for), (1, 1, secs(60)), "{w:?}");
    }
    assert_eq!(f.pools["default"].0.nodes, f.pools["default"].1.nodes + 1);
}

#[test]
fn apply_conserves_pods_every_pod_is_placed_or_reported_pending() {
    let mut objects = vec![node_pool("default")];
    objects.extend(managed_node("node-a"));
    objects.extend(managed_node("node-b"));
    objects.extend([
        lone_pod("p1", "node-a", "500m"),
        lone_pod("p2", "node-a", "500m"),
        lone_pod("q", "node-b", "100m"),
    ]);
    let s = snapshot(objects);
    let before: BTreeSet<String> = s.pods.iter().map(|p| p.metadata.key()).collect();
    let delays = Delays::default();
    let workloads = Workloads::new(&s, delays.pod_startup.value);
    let replay = replay_round(&s, now());
    assert!(!replay.commands.is_empty(), "a command to apply");
    let mut state = State::new(s, now());
    let mut harm = Harm::default();
    assert_pods_on_agrees(&state);
    let started = start(&mut state, &replay.commands[0], now(), &delays, &workloads, &mut harm);
    advance(&mut state, started.drain_at);
    assert_pods_on_agrees(&state);
    advance(&mut state, gone(&started) + secs(3600));
    assert_pods_on_agrees(&state);
    let after: BTreeSet<String> = state.snapshot.pods.iter().map(|p| p.metadata.key()).collect();
    let pending: BTreeSet<String> = state.pending.keys().cloned().collect();
    assert_eq!(before, after, "no pod appears or vanishes");
    let node_names: BTreeSet<&str> = state.snapshot.nodes.iter().map(|n| n.metadata.name.as_str()).collect();
    for p in &state.snapshot.pods {
        match p.spec.node_name.as_deref() {
            Some(n) => assert!(node_names.contains(n), "{} is on {n}, which is gone", p.metadata.key()),
            None => assert!(pending.contains(&p.metadata.key()), "{} is unbound but not reported", p.metadata.key()),
        }
        assert!(crate::snapshot::is_true(&p.status.conditions, "Ready"), "{} Ready again", p.metadata.key());
    }
    for c in &replay.commands[0].candidates {
        assert!(!node_names.contains(c.as_str()), "candidate {c} is gone");
    }
    assert!(state.in_flight.is_empty() && state.starting.is_empty());
}

#[test]
fn a_pod_with_no_place_stays_pending_and_is_reported() {
    let s = snapshot(node_a_objects());
    let delays = Delays::default();
    let workloads = Workloads::new(&s, delays.pod_startup.value);
    let mut command = replay_round(&s, now()).commands.remove(0);
    // Drift's replacements are found by the same simulation; here the destination is taken
    // away, as a failed launch would.
    for m in &mut command.results.moves {
        m.to = crate::engine::scheduling::Destination::Nowhere;
    }
    let mut state = State::new(s, now());
    let mut harm = Harm::default();
    let started = start(&mut state, &command, now(), &delays, &workloads, &mut harm);
    assert_eq!(started.pending, ["default/p"]);
    advance(&mut state, gone(&started));
    assert_pods_on_agrees(&state);
    assert!(state.pending.contains_key("default/p"));
    let p = state.snapshot.pods.iter().find(|p| p.metadata.name == "p").expect("the pod is kept");
    assert_eq!(p.spec.node_name, None);
    let bill = harm.finish(gone(&started) + secs(600));
    assert_eq!(bill[0].pending, 1);
    assert!(bill[0].zero_ready_for >= secs(600), "down until the end: {:?}", bill[0]);
}

#[test]
fn a_replacement_waits_for_its_launch_before_the_drain() {
    let s = snapshot(node_a_objects());
    let delays = Delays { launch: super::clock::Figure::default_of(120), ..Delays::default() };
    let f = forecast(s, now(), &delays, Limits::default());
    let step = &f.rounds[0].steps[0];
    assert_eq!(step.started.launches[0].instance_type, "m.large", "the cheapest offering that fits");
    assert_eq!(step.started.drain_at, now() + secs(15 + 120));
    assert_eq!(step.started.gone_at, Some(now() + secs(15 + 120 + 30)), "termination grace after the eviction");
}

/// node-a with one small pod: it is replaced by a cheaper node.
fn node_a_objects() -> Vec<serde_json::Value> {
    let mut objects = vec![node_pool("default")];
    objects.extend(managed_node("node-a"));
    objects.push(lone_pod("p", "node-a", "100m"));
    objects
}

/// The same with a DaemonSet's pod beside the small one.
fn node_a_with_its_agent() -> crate::snapshot::Snapshot {
    let mut objects = node_a_objects();
    let owner = json!([{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent", "controller": true}]);
    objects.push(set(pod("agent-a", "node-a"), "/metadata/ownerReferences", owner));
    snapshot(objects)
}

#[test]
fn a_replacement_runs_copies_of_the_candidates_daemonset_pods() {
    let s = node_a_with_its_agent();
    let delays = Delays::default();
    let workloads = Workloads::new(&s, delays.pod_startup.value);
    let command = replay_round(&s, now()).commands.remove(0);
    assert_eq!(command.replacements.len(), 1, "node-a is replaced: {command:?}");
    let mut state = State::new(s, now());
    let started = start(&mut state, &command, now(), &delays, &workloads, &mut Harm::default());
    let new_node = &started.launches[0].node;
    let copy = state.snapshot.pods.iter().position(|p| p.metadata.name == format!("agent-a-{new_node}"));
    assert_eq!(copy.map(|i| state.pods_on(new_node).contains(&i)), Some(true), "the copy is on {new_node}");
    assert_pods_on_agrees(&state);
    advance(&mut state, gone(&started));
    assert_pods_on_agrees(&state);
    assert!(state.pods_on("node-a").is_empty(), "node-a is gone with its DaemonSet pod");
}

/// The nodes whose Node or NodeClaim differs between two snapshots (or exists in one only).
fn nodes_that_differ(before: &crate::snapshot::Snapshot, after: &crate::snapshot::Snapshot) -> BTreeSet<String> {
    type Objects<'s> = std::collections::BTreeMap<String, (Vec<&'s Node>, Vec<&'s NodeClaim>)>;
    fn objects(s: &crate::snapshot::Snapshot) -> Objects<'_> {
        let mut out = Objects::new();
        for n in &s.nodes {
            out.entry(n.metadata.name.clone()).or_default().0.push(n);
        }
        for c in &s.node_claims {
            out.entry(c.status.node_name.clone().unwrap_or_default()).or_default().1.push(c);
        }
        out
    }
    let (b, a) = (objects(before), objects(after));
    b.keys().chain(a.keys()).filter(|k| b.get(*k) != a.get(*k)).cloned().collect()
}

/// Every step that changes a node's Node or NodeClaim says so (`State::touch`): the next
/// round's cache compares only those nodes' objects again.
#[test]
fn each_step_names_the_nodes_it_changed() {
    let s = snapshot(node_a_objects());
    let delays = Delays { launch: super::clock::Figure::default_of(120), ..Delays::default() };
    let workloads = Workloads::new(&s, delays.pod_startup.value);
    let command = replay_round(&s, now()).commands.remove(0);
    let mut state = State::new(s, now());
    let mut seen = BTreeSet::new();
    let mut check = |state: &mut State, before: &crate::snapshot::Snapshot, step: &str| {
        let differ = nodes_that_differ(before, &state.snapshot);
        let touched = state.take_touched();
        assert!(differ.is_subset(&touched), "{step}: changed {differ:?}, said {touched:?}");
        seen.extend(differ);
    };
    let before = state.snapshot.clone();
    let started = start(&mut state, &command, now(), &delays, &workloads, &mut Harm::default());
    check(&mut state, &before, "start");
    for at in [started.drain_at, gone(&started)] {
        let before = state.snapshot.clone();
        advance(&mut state, at);
        check(&mut state, &before, "advance");
    }
    // node-a marked, drained and gone; its replacement launched, initialized and filled.
    let new_node = started.launches.first().map(|l| l.node.clone()).expect("a replacement");
    assert!(seen.contains(&new_node) && seen.contains(command.candidates[0].as_str()), "{seen:?}");
}

/// A node gone ends the pods that went with it (its DaemonSet pod): the state names them, and
/// the next round reads their status again (debug builds check every pod against the kept
/// status bytes).
#[test]
fn the_pods_a_gone_node_ends_are_named_for_the_next_round() {
    let s = node_a_with_its_agent();
    let delays = Delays::default();
    let workloads = Workloads::new(&s, delays.pod_startup.value);
    let mut cache = crate::engine::RoundCache::default();
    let mut state = State::new(s, now());
    let command =
        crate::engine::replay_round_with(&mut cache, &state.snapshot, now(), Some(state.bindings())).commands.remove(0);
    let started = start(&mut state, &command, now(), &delays, &workloads, &mut Harm::default());
    advance(&mut state, gone(&started));
    let agent = state.snapshot.pods.iter().position(|p| p.metadata.name == "agent-a").expect("agent-a");
    assert_eq!(state.snapshot.pods[agent].status.phase.as_deref(), Some("Failed"));
    assert_eq!(state.take_ended(), [agent]);
    cache.pods_changed(vec![agent]);
    cache.nodes_changed(state.take_touched());
    let later = gone(&started);
    let kept = crate::engine::replay_round_with(&mut cache, &state.snapshot, later, Some(state.bindings()));
    let fresh = replay_round(&state.snapshot, later);
    assert_eq!((kept.method, kept.commands), (fresh.method, fresh.commands));
}

#[test]
fn limits_stop_the_forecast() {
    let f = forecast(demo(), now(), &Delays::default(), Limits { rounds: Some(0), until: None });
    assert_eq!((f.stop, f.rounds.len()), (Stop::Rounds, 0));
    let f = forecast(demo(), now(), &Delays::default(), Limits { rounds: None, until: Some(secs(1)) });
    assert_eq!(f.stop, Stop::Until);
}

#[test]
fn same_input_same_forecast() {
    let a = forecast(demo(), now(), &Delays::default(), Limits::default());
    let b = forecast(demo(), now(), &Delays::default(), Limits::default());
    assert_eq!(a, b);
}

/// Karpenter's own launch, 30 s before the snapshot, initializes after the launch delay
/// (`initialization.go`); until then a pod bound for it fails the move (`helpers.go`
/// `UninitializedNodeError`), after it node-a goes.
#[test]
fn a_node_launched_before_the_snapshot_initializes_after_the_launch_delay() {
    let s = moving_onto_a_launching_node(30, false);
    assert!(replay_round(&s, now()).commands.is_empty(), "nothing acts while node-l initializes");
    let f = forecast(s, now(), &Delays::default(), Limits::default());
    assert_eq!(f.launching.len(), 1);
    assert_eq!((f.launching[0].node.as_str(), f.launching[0].at), ("node-l", Some(now() + secs(60))));
    let first = f.rounds.first().expect("a round acts once node-l is initialized");
    assert_eq!((first.at, first.steps[0].candidates.as_slice()), (secs(60), ["node-a".to_owned()].as_slice()));
}

/// One past the launch delay is stuck on something: it stays uninitialized, and so does the
/// move that needs it; the forecast says why.
#[test]
fn a_node_past_its_launch_delay_stays_uninitialized_and_says_why() {
    let f = forecast(moving_onto_a_launching_node(600, false), now(), &Delays::default(), Limits::default());
    assert!(f.rounds.is_empty(), "{:?}", f.rounds);
    assert_eq!(f.launching[0].at, None);
    assert_eq!(f.launching[0].why, "already past the launch delay; its Node is not Ready");
    let f = forecast(moving_onto_a_launching_node(600, true), now(), &Delays::default(), Limits::default());
    assert_eq!(f.launching[0].why, "already past the launch delay; the snapshot does not show what it waits for");
    // A longer launch delay lets a slow launch through.
    let slow = Delays { launch: super::clock::Figure { value: secs(900), default: false }, ..Delays::default() };
    let f = forecast(moving_onto_a_launching_node(600, true), now(), &slow, Limits::default());
    assert_eq!(f.launching[0].at, Some(now() + secs(300)));
    assert_eq!(f.rounds[0].steps[0].candidates, ["node-a"]);
}

/// A NodeClaim launched 30 s before the snapshot whose Node has not registered yet gets one,
/// named after it, with its labels, annotations and capacity, initialized after the launch
/// delay; node-a's pod, which fits only there, then moves. (The claim's do-not-disrupt, copied
/// to its Node, keeps the empty new node from Emptiness.)
#[test]
fn a_node_claim_without_a_node_registers_and_initializes_after_the_launch_delay() {
    let [_, claim] = managed_node("node-l");
    let mut claim = set(claim, "/metadata/creationTimestamp", json!((now() - secs(30)).to_string()));
    claim["metadata"]["labels"].as_object_mut().expect("labels").remove("karpenter.sh/initialized");
    claim["status"].as_object_mut().expect("status").remove("nodeName");
    let room = json!({"cpu": "4", "memory": "16Gi", "pods": "58"});
    let claim = set(set(claim, "/status/capacity", room.clone()), "/status/allocatable", room);
    let claim = set(claim, "/status/conditions", json!([{"type": "Launched", "status": "True"}]));
    let claim = set(claim, "/metadata/annotations", json!({"karpenter.sh/do-not-disrupt": "true"}));
    let mut objects = vec![node_pool("default"), claim, lone_pod("big", "node-a", "3")];
    objects.extend(managed_node("node-a"));
    let s = snapshot(objects);
    assert!(replay_round(&s, now()).commands.is_empty(), "nothing acts while the claim has no Node");
    let f = forecast(s, now(), &Delays::default(), Limits::default());
    assert_eq!((f.launching[0].node.as_str(), f.launching[0].at), ("claim-node-l", Some(now() + secs(60))));
    let first = f.rounds.first().expect("a round acts once its Node is initialized");
    assert_eq!((first.at, first.steps[0].candidates.as_slice()), (secs(60), ["node-a".to_owned()].as_slice()));
}
