//! New replicas from `--set …replicas=N` are scheduled before the round (`engine/provisioner.rs`),
//! through the binary, on the demo: the fix `pdb-audit` recommends for app-b and app-c (two
//! replicas) is replayed and works.
//!
//! What upstream does on the demo, step by step:
//! - each new replica (250m) is pending; Karpenter's `Scheduler.Solve` (provisioner.go
//!   `Schedule`) tries the existing nodes first, initialized ones by name: node-0 has 400m free
//!   and takes app-b's, then has 150m, so app-c's goes to node-1;
//! - both binds are pod events (`podevents/controller.go`): node-0 and node-1 are under their 5m
//!   consolidateAfter, so they may not receive consolidated pods (`IsUnderConsolidateAfter`);
//! - each PDB (`maxUnavailable: 1`) now counts 2 healthy of 2 and allows 1 (kubernetes
//!   `disruption.go` `updatePdbStatus`), so node-x is no longer blocked (`pdb.go` `CanEvictPods`);
//! - node-x's two pods fit on node-2 and node-3, so SingleNodeConsolidation deletes it and each
//!   workload keeps one ready replica elsewhere.

use serde_json::Value;

use crate::support::bin;

const SET_B: &str = "deployment/tenant-a/app-b.replicas=2";
const SET_C: &str = "deployment/tenant-a/app-c.replicas=2";

fn json_of(args: &[&str]) -> Value {
    let output = bin().args(args).output().expect("the binary runs");
    assert!(output.status.success(), "`{}`: {}", args.join(" "), String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("JSON on stdout")
}

fn node<'v>(plan: &'v Value, name: &str) -> &'v Value {
    plan["nodes"].as_array().expect("nodes").iter().find(|n| n["name"] == name).expect("the node")
}

#[test]
fn two_replicas_are_placed_on_existing_nodes_and_node_x_is_deleted_without_zero_ready() {
    let before = json_of(&["--demo", "plan", "-o", "json"]);
    let blocked = json_of(&["--demo", "plan", "--set", "pdb/tenant-a/app-b.minAvailable=1", "-o", "json"]);
    assert_eq!(node(&blocked, "node-x")["verdict"], "Blocked", "the fix that pins the node, for contrast");
    let after = json_of(&["--demo", "plan", "--set", SET_B, "--set", SET_C, "-o", "json"]);

    let placed: Vec<(String, String, String, i64)> = after["placements"]
        .as_array()
        .expect("placements")
        .iter()
        .map(|p| {
            let s = |k: &str| p[k].as_str().unwrap_or_default().to_owned();
            (s("pod"), s("placed"), s("node"), p["consolidatableInSeconds"].as_i64().unwrap_or(-1))
        })
        .collect();
    assert_eq!(
        placed,
        [
            ("tenant-a/app-b-7c9d-x1-whatif-0".into(), "existing".into(), "node-0".into(), 300),
            ("tenant-a/app-c-7c9d-x1-whatif-0".into(), "existing".into(), "node-1".into(), 300),
        ]
    );
    assert!(before.get("placements").is_none(), "no what-if, no placements field");

    let command = &after["commands"][0];
    assert_eq!((command["decision"].as_str(), command["candidates"][0].as_str()), (Some("delete"), Some("node-x")));
    assert_eq!(node(&after, "node-x")["verdict"], "Underutilized");
    assert_eq!(after["summary"]["zeroReady"], serde_json::json!([]), "before: {}", before["summary"]["zeroReady"]);
    for workload in after["impact"].as_array().expect("impact") {
        assert_eq!(
            (workload["losing"].as_u64(), workload["readyElsewhere"].as_u64()),
            (Some(1), Some(1)),
            "{workload}"
        );
        assert_eq!(workload["zeroReady"], false);
    }
}

#[test]
fn plan_explain_and_forecast_say_where_the_new_replicas_went() {
    let line = "new pod tenant-a/app-b-7c9d-x1-whatif-0 → node-0 (existing node; the pod event restarts its consolidateAfter: consolidatable in 5m)";
    for args in [
        vec!["--demo", "plan", "--set", SET_B, "--set", SET_C],
        vec!["--demo", "explain", "node/node-x", "--set", SET_B, "--set", SET_C],
        vec!["--demo", "forecast", "--set", SET_B, "--set", SET_C],
    ] {
        let out = bin().args(&args).env("COLUMNS", "400").output().expect("runs");
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains(line), "`{}` says where app-b's replica went:\n{text}", args.join(" "));
    }
}

#[test]
fn the_forecast_of_the_fix_keeps_the_savings_and_nobody_goes_to_zero() {
    let c = json_of(&["--demo", "forecast", "--set", SET_B, "--set", SET_C, "--compare", "-o", "json"]);
    assert_eq!(c["placements"].as_array().map(Vec::len), Some(2), "stated once, at the top");
    assert!(c["with"].get("placements").is_none());
    assert_eq!(c["with"]["rounds"][0]["commands"][0]["candidates"], serde_json::json!(["node-x"]));
    assert_eq!(c["with"]["savings"], c["without"]["savings"]);
    for w in c["workloads"].as_array().expect("workloads") {
        assert_eq!(w["zeroReadySeconds"][1], 0, "{w}");
    }
}
