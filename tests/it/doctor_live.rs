//! `doctor` in live mode over real HTTP: the fake API server serves the seed incident,
//! Karpenter's events about its nodes (and others' events, dropped) and the controller's
//! `/metrics` with prices and the disruption families; forbidden events or a refused proxy
//! give a named "could not judge", never a silent pass.

use std::path::Path;

use serde_json::{json, Value};

use crate::support;
use crate::support::fake_apiserver::{Config, FakeApiServer};

const SCENARIO: &str = "seed-incident-underutilized";
const LEADER: &str = "karpenter-7f9c-leader";
const SERVICE_METRICS: &str = "/api/v1/namespaces/kube-system/services/karpenter:http-metrics/proxy/metrics";
const NOW: &str = "2026-11-29T10:00:00Z";

/// Karpenter's disruption families as v1.14 exports them (tests/doctor-fixtures' names/labels).
const DISRUPTION_METRICS: &str = "\
# TYPE karpenter_build_info gauge
karpenter_build_info{commit=\"3f9a1c2d7e4b\",goarch=\"amd64\",goversion=\"go1.25.5\",version=\"1.14.1\"} 1
# TYPE karpenter_voluntary_disruption_eligible_nodes gauge
karpenter_voluntary_disruption_eligible_nodes{reason=\"drifted\"} 0
karpenter_voluntary_disruption_eligible_nodes{reason=\"empty\"} 0
karpenter_voluntary_disruption_eligible_nodes{reason=\"underutilized\"} 1
# TYPE karpenter_nodepools_allowed_disruptions gauge
karpenter_nodepools_allowed_disruptions{nodepool=\"default\",reason=\"Underutilized\"} 1
# TYPE karpenter_nodepools_nodes_consuming_budgets gauge
karpenter_nodepools_nodes_consuming_budgets{nodepool=\"default\",reason=\"Underutilized\"} 0
";

/// A core/v1 Event as Karpenter's recorder writes it (client-go `tools/record`).
fn event(name: &str, kind: &str, object: &str, reason: &str, message: &str, last: &str, count: i32) -> Value {
    json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": name, "namespace": "default"},
        "involvedObject": {"apiVersion": "v1", "kind": kind, "name": object},
        "reason": reason, "message": message, "type": "Normal",
        "firstTimestamp": last, "lastTimestamp": last, "count": count,
        "source": {"component": "karpenter"}, "reportingComponent": "karpenter", "reportingInstance": ""})
}

fn served() -> Vec<Value> {
    let mut objects = support::scenario_objects(SCENARIO);
    objects.extend(support::karpenter_controller_objects(LEADER));
    // The replay deletes node-x; Karpenter said it cannot (twice, the older one merged in).
    objects.push(event(
        "node-x.1",
        "Node",
        "node-x",
        "Unconsolidatable",
        "Can't replace with a cheaper node",
        "2026-11-29T09:40:00Z",
        2,
    ));
    objects.push(event(
        "node-x.2",
        "Node",
        "node-x",
        "Unconsolidatable",
        "Can't replace with a cheaper node",
        "2026-11-29T09:58:00Z",
        1,
    ));
    // Not Karpenter's: dropped.
    let mut kubelet = event(
        "node-x.3",
        "Node",
        "node-x",
        "NodeReady",
        "Node node-x status is now: NodeReady",
        "2026-11-29T09:59:00Z",
        1,
    );
    kubelet["source"] = json!({"component": "kubelet", "host": "node-x"});
    kubelet["reportingComponent"] = json!("kubelet");
    objects.push(kubelet);
    objects
}

fn config() -> Config {
    let mut metrics = support::metrics_text(&support::scenario_instance_types(SCENARIO));
    metrics.push_str(DISRUPTION_METRICS);
    Config::new(&served()).raw(SERVICE_METRICS, 200, &metrics)
}

fn run(server: &FakeApiServer, dir: &Path, args: &[&str]) -> (Option<i32>, Value, String) {
    let kubeconfig = server.write_kubeconfig(dir);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-consolidation"))
        .args(["--now", NOW])
        .args(args)
        .args(["-o", "json"])
        .env("KUBECONFIG", &kubeconfig)
        .env("HOME", dir)
        .env("NO_COLOR", "1")
        .output()
        .expect("run the binary");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    let report = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
    (output.status.code(), report, stderr)
}

fn codes(report: &Value) -> Vec<String> {
    report["findings"].as_array().into_iter().flatten().map(|f| f["code"].as_str().unwrap_or("").to_owned()).collect()
}

#[test]
fn live_doctor_reads_karpenters_events_and_metrics() {
    let server = FakeApiServer::start(config());
    let dir = tempfile::tempdir().unwrap();
    let (code, report, stderr) = run(&server, dir.path(), &["doctor", "--fail-on", "warning"]);
    assert_eq!(code, Some(3), "a warning finding fails the gate; stderr:\n{stderr}\n{report:#}");
    assert_eq!(report["couldNotJudge"], json!([]), "{report:#}");
    assert_eq!(report["summary"]["events"], 1, "newest per object and reason, Karpenter's only: {report:#}");
    let disagreement = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["code"] == "Disagreement")
        .unwrap_or_else(|| panic!("{report:#}"));
    assert_eq!(disagreement["node"], "node-x");
    assert_eq!(disagreement["karpenter"][0]["count"], 3, "the two events' counts, summed");
    assert_eq!(disagreement["karpenter"][0]["at"], "2026-11-29T09:58:00Z");
    // Prices came from Karpenter's own metric, so the price is not the likely cause.
    assert_eq!(disagreement["likely"], "CannotTell", "{disagreement:#}");
    assert!(!codes(&report).contains(&"EligibleCountDiffers".to_owned()), "1 eligible on both sides: {report:#}");
    assert!(!codes(&report).contains(&"VersionMismatch".to_owned()), "1.14.1 on both sides: {report:#}");
}

#[test]
fn live_snapshot_carries_the_disruption_metrics_document() {
    let server = FakeApiServer::start(config());
    let output = support::run_against(&server, &["snapshot", "-o", "json"]);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    let items = document["items"].as_array().unwrap();
    let metrics = items.iter().find(|i| i["kind"] == "DisruptionMetrics").expect("a DisruptionMetrics document");
    let names: Vec<&str> = metrics["samples"].as_array().unwrap().iter().filter_map(|s| s["name"].as_str()).collect();
    assert!(names.contains(&"karpenter_voluntary_disruption_eligible_nodes"), "{names:?}");
    assert!(!names.iter().any(|n| n.contains("offering_price")), "prices stay in InstanceTypes: {names:?}");
    let events: Vec<&Value> = items.iter().filter(|i| i["kind"] == "Event").collect();
    assert_eq!(events.len(), 1, "{events:#?}");
    assert_eq!(events[0]["count"], 3);
}

#[test]
fn forbidden_events_are_a_named_could_not_judge() {
    let server = FakeApiServer::start(config().forbid("events"));
    let dir = tempfile::tempdir().unwrap();
    let (code, report, stderr) = run(&server, dir.path(), &["doctor", "--fail-on", "warning"]);
    assert_eq!(code, Some(1), "the gate does not pass on what it could not see; stderr:\n{stderr}");
    assert_eq!(report["couldNotJudge"][0]["signal"], "events", "{report:#}");
    assert!(report["couldNotJudge"][0]["reason"].as_str().unwrap().contains("403"), "{report:#}");
    assert!(!codes(&report).contains(&"Disagreement".to_owned()), "{report:#}");
    assert_eq!(report["summary"]["agree"], false);
}

#[test]
fn a_refused_metrics_proxy_is_a_named_could_not_judge() {
    let refused = r#"{"kind":"Status","code":403,"reason":"Forbidden","message":"services \"karpenter:http-metrics\" is forbidden"}"#;
    let server = FakeApiServer::start(Config::new(&served()).raw(SERVICE_METRICS, 403, refused));
    let dir = tempfile::tempdir().unwrap();
    let (code, report, stderr) = run(&server, dir.path(), &["doctor"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert_eq!(report["couldNotJudge"][0]["signal"], "metrics", "{report:#}");
    assert_eq!(report["summary"]["events"], 1, "events are still read: {report:#}");
    assert!(report["summary"]["line"].as_str().unwrap().contains("could not judge"), "{report:#}");
    // The plan does not call itself uncertain for a scrape only doctor reads.
    let (_, plan, _) = run(&server, dir.path(), &["plan"]);
    assert!(!plan.to_string().contains("DisruptionMetrics"), "{plan:#}");
}

/// `--fail-on` over the doctor scenarios' snapshots: 3 on a finding at or above the severity,
/// 0 below it, 1 when events could not be read (docs/DESIGN.md exit codes).
#[test]
fn fail_on_exit_codes_on_the_scenarios() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scenarios");
    for (scenario, severity, expected) in [
        ("doctor-unconsolidatable-cheaper-node", "warning", 3),
        ("doctor-unconsolidatable-cheaper-node", "critical", 0),
        ("doctor-stuck-command", "critical", 3),
        ("doctor-agree", "warning", 0),
        ("doctor-events-forbidden", "warning", 1),
        ("doctor-metrics-missing", "critical", 1),
    ] {
        let snapshot = root.join(scenario).join("snapshot.yaml");
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-consolidation"))
            .arg("--snapshot")
            .arg(&snapshot)
            .args(["doctor", "--fail-on", severity, "-o", "json"])
            .output()
            .expect("run the binary");
        assert_eq!(output.status.code(), Some(expected), "{scenario} --fail-on {severity}");
        let report: Value = serde_json::from_slice(&output.stdout).expect("the report is still printed");
        assert_eq!(report["kind"], "Doctor");
    }
}

/// `explain`'s events: Karpenter publishes `DisruptionLaunching` and `DisruptionWaitingReadiness`
/// on the **replacement** NodeClaim (v1.14.0 `pkg/controllers/disruption/queue.go`
/// `Queue.waitOrTerminate`), so on a node the replay leaves alone they are no sign that Karpenter
/// acts on it; only `doctor`'s judgement marks an event as disagreeing. The newest per reason
/// carries its count and its emitter.
#[test]
fn explain_does_not_take_a_replacements_launching_event_for_a_disagreement() {
    let snapshot = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/scenarios/doctor-replacement-not-initialized-drain-blocked/snapshot.yaml");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-consolidation"))
        .arg("--snapshot")
        .arg(&snapshot)
        .args(["explain", "node/default-b7n3y", "-o", "json"])
        .output()
        .expect("run the binary");
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(report["verdict"], "Safe");
    let events = report["events"].as_array().expect("events");
    let launching = events.iter().find(|e| e["reason"] == "DisruptionLaunching").expect("the Launching event is shown");
    assert_eq!(launching["disagrees"], false, "{launching}");
    assert!(launching["count"].as_i64().is_some_and(|c| c >= 1), "{launching}");
    assert_eq!(
        launching["emitter"],
        "kubernetes-sigs/karpenter pkg/controllers/disruption/queue.go Queue.waitOrTerminate"
    );
    assert!(events.iter().all(|e| e["disagrees"] == false), "{events:?}");
    let steps = report["steps"].as_array().expect("steps");
    assert!(!steps.iter().any(|s| s.to_string().contains("EventDisagrees")), "no EventDisagrees step: {steps:?}");
}
