//! What `explain` and `plan` say a disruption costs the workloads (issue 16's "done means"): on
//! the demo, app-b and app-c are single replicas behind `maxUnavailable: 1`, so consolidating
//! node-x takes both to zero ready pods. The eviction API lets a pod go while the PDB's
//! `status.disruptionsAllowed > 0` (kubernetes `pkg/registry/core/pod/storage/eviction.go`
//! `checkAndDecrement`), and the controller only recreates a pod after its eviction
//! (kubernetes `pkg/controller/replicaset/replica_set.go` `manageReplicas`), so the workload has no
//! ready pod until the new one is Ready.

use predicates::boolean::PredicateBooleanExt;
use predicates::str::contains;
use serde_json::Value;

use crate::support::{bin, root};

fn json(args: &[&str]) -> Value {
    let out = bin().args(args).output().expect("the binary runs");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn zero_ready(impact: &Value) -> Vec<(String, String, i64)> {
    impact
        .as_array()
        .expect("impact is a list")
        .iter()
        .filter(|w| w["zeroReady"] == true)
        .map(|w| {
            (
                w["workload"].as_str().unwrap().to_owned(),
                w["pdb"].as_str().unwrap_or("-").to_owned(),
                w["downtimeSeconds"].as_i64().unwrap(),
            )
        })
        .collect()
}

fn demo_expectation() -> Vec<(String, String, i64)> {
    vec![
        ("Deployment/tenant-a/app-b".into(), "tenant-a/app-b".into(), 60),
        ("Deployment/tenant-a/app-c".into(), "tenant-a/app-c".into(), 60),
    ]
}

#[test]
fn explain_says_app_b_and_app_c_go_to_zero_with_the_pdb_that_allows_it() {
    let doc = json(&["--demo", "explain", "node/node-x", "-o", "json"]);
    assert_eq!(zero_ready(&doc["impact"]), demo_expectation());
    let b = &doc["impact"][0];
    assert_eq!(
        (b["replicas"].as_i64(), b["losing"].as_u64(), b["readyElsewhere"].as_u64()),
        (Some(1), Some(1), Some(0))
    );
    assert_eq!(b["pdbRule"], "maxUnavailable: 1");
    assert_eq!(b["severity"], "critical", "as pdb-audit's SingleReplicaEvictable");
    assert_eq!(b["startupSource"], "default");
    bin()
        .args(["--demo", "explain", "node/node-x"])
        .assert()
        .success()
        .stdout(contains("Deployment/tenant-a/app-b"))
        .stdout(contains("0 ready left"))
        .stdout(contains("PDB tenant-a/app-b (maxUnavailable: 1) allows 1 now: lets the last ready replica go"))
        .stdout(contains("down ~1m (--pod-startup default"));
}

#[test]
fn plan_says_the_round_takes_app_b_and_app_c_to_zero() {
    let doc = json(&["--demo", "plan", "-o", "json"]);
    assert_eq!(zero_ready(&doc["impact"]), demo_expectation());
    bin()
        .args(["--demo", "plan"])
        .assert()
        .success()
        .stdout(contains("2 go to zero ready pods"))
        .stdout(contains("Deployment/tenant-a/app-c"));
}

#[test]
fn a_node_nobody_disrupts_still_shows_what_disrupting_it_would_do() {
    let doc = json(&["--demo", "explain", "node/node-0", "-o", "json"]);
    let impact = doc["impact"].as_array().unwrap();
    assert_eq!(impact.len(), 1);
    assert_eq!(impact[0]["workload"], "Deployment/tenant-a/batch-0");
    assert_eq!(impact[0]["pdb"], Value::Null);
    assert_eq!(impact[0]["zeroReady"], true, "one replica and no PDB: nothing holds it");
    let plan = json(&["--demo", "plan", "-o", "json"]);
    assert!(
        plan["impact"].as_array().unwrap().iter().all(|w| w["nodes"] == serde_json::json!(["node-x"])),
        "plan counts only the nodes this round disrupts"
    );
}

#[test]
fn pod_startup_sets_the_default_and_is_validated() {
    let doc = json(&["--demo", "--pod-startup", "90s", "explain", "node/node-x", "-o", "json"]);
    assert_eq!(doc["impact"][0]["downtimeSeconds"], 90);
    bin()
        .args(["--demo", "--pod-startup", "1m30s", "explain", "node/node-x"])
        .assert()
        .success()
        .stdout(contains("down ~1m 30s"));
    for bad in ["--pod-startup=soon", "--pod-startup=-5s"] {
        bin().args(["--demo", bad, "plan"]).assert().code(2).stderr(contains("not a non-negative duration"));
    }
}

/// The workload's own pods show start → Ready: that figure wins over the default, and says so.
#[test]
fn observed_start_to_ready_is_used_when_the_pods_show_it() {
    let demo = std::fs::read_to_string(root().join("src/source/demo.yaml")).expect("demo snapshot");
    let marker = "    nodeName: node-x\n  status:\n    phase: Running\n    conditions:\n    - type: Ready\n      status: 'True'\n";
    assert!(demo.contains(marker), "the demo's node-x pods look as this test expects");
    let observed = "    nodeName: node-x\n  status:\n    phase: Running\n    startTime: '2026-11-29T08:00:00Z'\n    conditions:\n    - type: Ready\n      status: 'True'\n      lastTransitionTime: '2026-11-29T08:02:05Z'\n";
    let edited = demo.replace(marker, observed);
    let out = bin()
        .args(["--snapshot", "-", "explain", "node/node-x", "-o", "json"])
        .write_stdin(edited.clone())
        .output()
        .expect("runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(doc["impact"][0]["startupSource"], "observed");
    assert_eq!(doc["impact"][0]["startupObservedPods"], 1);
    assert_eq!(doc["impact"][0]["downtimeSeconds"], 125);
    bin()
        .args(["--snapshot", "-", "explain", "node/node-x"])
        .write_stdin(edited)
        .assert()
        .success()
        .stdout(contains("down ~2m 5s (start → Ready of its 1 running pod(s))"));
}

/// "What would change this" is replayed: both PDBs allowing an eviction free node-x (each must:
/// karpenter `pkg/utils/pdb/pdb.go` `Limits.CanEvictPods` blocks on any pod's budget), and the
/// freed node's delete saves its price, $0.192/h = $140.16 a month.
#[test]
fn what_would_change_a_blocked_node_is_replayed_with_its_savings() {
    let doc = json(&[
        "--snapshot",
        "tests/scenarios/seed-incident-minavailable-blocks/snapshot.yaml",
        "explain",
        "node/node-x",
        "-o",
        "json",
    ]);
    let tried = doc["whatWouldChange"].as_array().expect("changes tried");
    assert_eq!(tried.len(), 1);
    assert!(tried[0]["change"].as_str().unwrap().contains("tenant-a/app-b, tenant-a/app-c each allowing one eviction"));
    assert_eq!((tried[0]["frees"].as_bool(), tried[0]["verdict"].as_str()), (Some(true), Some("Underutilized")));
    assert!((tried[0]["savingsPerMonth"].as_f64().unwrap() - 140.16).abs() < 1e-9);
    let pod = json(&[
        "--snapshot",
        "tests/scenarios/do-not-disrupt-pod/snapshot.yaml",
        "explain",
        "node/node-a",
        "-o",
        "json",
    ]);
    assert!(pod["whatWouldChange"][0]["change"]
        .as_str()
        .unwrap()
        .starts_with("remove karpenter.sh/do-not-disrupt from the pods"));
    assert_eq!(pod["whatWouldChange"][0]["frees"], true);
    let acting = json(&["--demo", "explain", "node/node-x", "-o", "json"]);
    assert!(acting.get("whatWouldChange").is_none(), "an Underutilized node has nothing to unlock");
}

/// The fixes under app-b and app-c in `plan --demo` (issue 36's "done means"): each one the
/// replay verified, with its cost and its command, and replaying its `--set` agrees: the
/// workload keeps a ready pod, no workload the unfixed round spares goes to zero, and the
/// savings lost are the ones the fix states. The cheapest is both workloads at two replicas
/// spread over hostnames: node-x is left empty and still goes (karpenter
/// `pkg/controllers/disruption/emptiness.go`), so nothing is pinned and nothing lost.
#[test]
fn plan_offers_fixes_whose_what_if_replay_agrees() {
    let doc = json(&["--demo", "plan", "-o", "json"]);
    let unfixed: Vec<String> = zero_ready(&doc["impact"]).into_iter().map(|(w, _, _)| w).collect();
    for workload in ["Deployment/tenant-a/app-b", "Deployment/tenant-a/app-c"] {
        let w = doc["impact"].as_array().unwrap().iter().find(|w| w["workload"] == workload).expect("harmed");
        let fixes = w["prescription"]["fixes"].as_array().expect("fixes");
        assert!(!fixes.is_empty(), "{workload} has a fix");
        let cheapest = &fixes[0];
        assert_eq!(cheapest["kind"], "replicas", "{cheapest}");
        assert_eq!(cheapest["savingsLostPerMonth"], 0.0, "{cheapest}");
        assert_eq!(cheapest["nodesPinned"], serde_json::json!([]), "{cheapest}");
        for fix in fixes {
            assert!(fix["protects"].as_array().unwrap().iter().any(|p| p == workload), "{fix}");
            assert_eq!(fix["protects"][0], workload);
            assert!(fix["commands"][0].as_str().unwrap().starts_with("kubectl "), "{fix}");
            assert!(fix["savingsLostPerMonth"].as_f64().is_some());
            let mut args = vec!["--demo", "plan", "-o", "json"];
            for set in fix["whatIf"].as_array().unwrap() {
                args.extend(["--set", set.as_str().unwrap()]);
            }
            let replayed = json(&args);
            let still: Vec<_> = zero_ready(&replayed["impact"]).into_iter().map(|(w, _, _)| w).collect();
            assert!(!still.iter().any(|w| w == workload), "{args:?} still sends {workload} to zero: {still:?}");
            assert!(still.iter().all(|w| unfixed.contains(w)), "{args:?} sends another workload to zero: {still:?}");
            let lost = doc["summary"]["savings"].as_f64().unwrap() - replayed["summary"]["savings"].as_f64().unwrap();
            assert!(
                (lost - fix["savingsLostPerHour"].as_f64().unwrap()).abs() < 1e-4,
                "{args:?}: lost {lost}, fix says {fix}"
            );
        }
        // Each one's own replicas fix is tried and refused: alone, its rolled pod leaves room on
        // node-x and the round deletes node-2, whose one batch-2 replica goes to zero.
        let refused = w["prescription"]["notOffered"].as_array().expect("notOffered");
        assert!(
            refused.iter().any(|r| r["kind"] == "replicas" && r["why"].as_str().unwrap().contains("batch-2")),
            "{refused:?}"
        );
    }
    bin()
        .args(["--demo", "plan"])
        .assert()
        .success()
        .stdout(contains("fix app-b and app-c each at 2 replicas spread over kubernetes.io/hostname, together: protects Deployment/tenant-a/app-b, Deployment/tenant-a/app-c; costs no savings"))
        .stdout(contains("kubectl scale deployment/app-b -n tenant-a --replicas=2"))
        .stdout(contains("replayed with: --set deployment/tenant-a/app-b.spread=hostname"))
        .stdout(contains("fix PDB tenant-a/app-b minAvailable: 1: protects Deployment/tenant-a/app-b"));
    bin()
        .args(["--demo", "plan", "-o", "wide"])
        .assert()
        .success()
        .stdout(contains("kubectl annotate pod app-b-7c9d-x1 -n tenant-a karpenter.sh/do-not-disrupt=true"));
}

#[test]
fn explain_prescribes_only_what_the_round_harms() {
    let doc = json(&["--demo", "explain", "node/node-x", "-o", "json"]);
    assert!(doc["impact"][0]["prescription"]["fixes"].as_array().is_some_and(|f| !f.is_empty()));
    // node-0 is kept this round: its workload's impact is hypothetical, so nothing is replayed.
    let kept = json(&["--demo", "explain", "node/node-0", "-o", "json"]);
    assert!(kept["impact"][0].get("prescription").is_none(), "{}", kept["impact"][0]);
}

/// Issue 36 item 1 for `forecast --fixes`: the workloads the forecast sends to zero ready replicas
/// carry fixes, each replayed as a forecast of its own; every fix offered, given to `forecast
/// --set`, keeps the workload above zero over the whole forecast and sends no one else to zero.
/// Without `--fixes` nothing is replayed and the text says how to ask.
#[test]
fn forecast_prescribes_fixes_its_own_forecast_verifies() {
    let at_zero = |doc: &Value| -> Vec<String> {
        doc["workloads"]
            .as_array()
            .expect("workloads")
            .iter()
            .filter(|w| w["zeroReadyTimes"].as_u64().unwrap() > 0)
            .map(|w| w["workload"].as_str().unwrap().to_owned())
            .collect()
    };
    let doc = json(&["--demo", "forecast", "--fixes", "-o", "json"]);
    let unfixed = at_zero(&doc);
    let plain = json(&["--demo", "forecast", "-o", "json"]);
    assert!(plain["workloads"].as_array().unwrap().iter().all(|w| w.get("prescription").is_none()));
    assert!(unfixed.contains(&"Deployment/tenant-a/app-b".to_owned()), "{unfixed:?}");
    for w in doc["workloads"].as_array().unwrap() {
        let workload = w["workload"].as_str().unwrap();
        if !unfixed.iter().any(|u| u == workload) {
            assert!(w.get("prescription").is_none(), "{workload} never at zero, yet prescribed");
            continue;
        }
        let fixes = w["prescription"]["fixes"].as_array().expect("fixes");
        assert!(!fixes.is_empty(), "{workload} has a fix: {}", w["prescription"]);
        for fix in fixes {
            assert_eq!(fix["protects"][0], workload, "{fix}");
            assert!(fix["commands"].as_array().unwrap().iter().all(|c| !c.as_str().unwrap().contains('\n')), "{fix}");
            let mut args = vec!["--demo", "forecast", "-o", "json"];
            for set in fix["whatIf"].as_array().unwrap() {
                args.extend(["--set", set.as_str().unwrap()]);
            }
            let replayed = json(&args);
            let still = at_zero(&replayed);
            assert!(!still.iter().any(|w| w == workload), "{args:?} still sends {workload} to zero: {still:?}");
            assert!(still.iter().all(|w| unfixed.contains(w)), "{args:?} sends another workload to zero: {still:?}");
            let lost = doc["savings"].as_f64().unwrap() - replayed["savings"].as_f64().unwrap();
            assert!((lost.max(0.0) - fix["savingsLostPerHour"].as_f64().unwrap()).abs() < 1e-4, "{args:?}: {fix}");
        }
    }
    bin()
        .args(["--demo", "forecast", "--fixes"])
        .assert()
        .success()
        .stdout(contains("Fixes, each replayed as a forecast of its own"))
        .stdout(contains("kubectl scale deployment/app-b -n tenant-a --replicas=2"));
    bin()
        .args(["--demo", "forecast"])
        .assert()
        .success()
        .stdout(contains("`--fixes` replays the fixes for the 2 workloads it takes to zero ready"))
        .stdout(contains("kubectl scale").not());
}
