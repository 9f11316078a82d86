//! `forecast` through the binary: the demo's cascade, the what-if comparison, the flags that
//! replace a default, the limits, and the same bytes for the same input in every format.

use serde_json::Value;

use crate::support::bin as cmd;

fn json_of(args: &[&str]) -> Value {
    let output = cmd().args(args).output().expect("the binary runs");
    assert!(output.status.success(), "`{}`: {}", args.join(" "), String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("JSON on stdout")
}

const SET_B: &str = "pdb/tenant-a/app-b.minAvailable=1";
const SET_C: &str = "pdb/tenant-a/app-c.minAvailable=1";

#[test]
fn the_demo_removes_node_x_in_round_one_and_app_b_and_c_are_down_for_their_startup() {
    let f = json_of(&["--demo", "forecast", "-o", "json"]);
    assert_eq!(f["kind"], "Forecast");
    assert_eq!(f["stop"], "settled");
    assert_eq!(f["rounds"][0]["commands"][0]["candidates"], serde_json::json!(["node-x"]));
    assert_eq!(f["rounds"].as_array().map(Vec::len), Some(1), "nothing acts after node-x");
    for w in f["workloads"].as_array().expect("workloads") {
        // One replica, maxUnavailable 1: it goes at once; no pod shows its startup, so the
        // --pod-startup default (1m) is its time at zero.
        assert_eq!((w["zeroReadyTimes"].as_u64(), w["zeroReadySeconds"].as_u64()), (Some(1), Some(60)), "{w}");
        assert_eq!(w["startupSource"], "default");
    }
}

#[test]
fn flags_replace_the_defaults_and_the_document_says_so() {
    let f = json_of(&["--demo", "forecast", "--pod-startup", "45s", "--launch-delay", "2m", "-o", "json"]);
    let delay = |name: &str| f["delays"].as_array().unwrap().iter().find(|d| d["name"] == name).cloned().unwrap();
    assert_eq!((delay("launch")["seconds"].as_u64(), delay("launch")["default"].as_bool()), (Some(120), Some(false)));
    assert_eq!(delay("validation")["default"], true);
    assert_eq!(f["workloads"][0]["zeroReadySeconds"], 45);
}

#[test]
fn minavailable_one_on_their_pdbs_keeps_app_b_and_c_up_and_compare_shows_both() {
    let c = json_of(&["--demo", "forecast", "--set", SET_B, "--set", SET_C, "--compare", "-o", "json"]);
    assert_eq!(c["kind"], "ForecastComparison");
    assert_eq!(c["without"]["rounds"].as_array().map(Vec::len), Some(1));
    assert_eq!(c["with"]["rounds"].as_array().map(Vec::len), Some(0), "no eviction allowed: node-x stays");
    let b = c["workloads"].as_array().unwrap().iter().find(|w| w["workload"] == "Deployment/tenant-a/app-b").cloned();
    assert_eq!(b.expect("app-b")["zeroReadySeconds"], serde_json::json!([60, 0]));
}

#[test]
fn compare_without_a_change_is_a_usage_error() {
    cmd().args(["--demo", "forecast", "--compare"]).assert().code(2);
    cmd().args(["--demo", "forecast", "--until", "soon"]).assert().code(2);
}

#[test]
fn until_and_rounds_stop_it() {
    assert_eq!(json_of(&["--demo", "forecast", "--until", "10s", "-o", "json"])["stop"], "until");
    assert_eq!(json_of(&["--demo", "forecast", "--rounds", "1", "-o", "json"])["stop"], "rounds");
}

#[test]
fn same_input_same_bytes_in_every_format() {
    for format in ["text", "json", "yaml", "markdown"] {
        let run =
            || cmd().args(["--demo", "forecast", "--set", SET_B, "--compare", "-o", format]).output().unwrap().stdout;
        let first = run();
        assert!(!first.is_empty());
        assert_eq!(first, run(), "-o {format}");
    }
}
