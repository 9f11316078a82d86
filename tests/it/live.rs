//! Live mode over real HTTP: the real kube client (kubeconfig, token, User-Agent, timeouts)
//! against the in-process fake API server on 127.0.0.1, serving the seed incident's objects.

use std::path::Path;
use std::time::{Duration, Instant};

use kubectl_consolidation::error::Error;
use kubectl_consolidation::snapshot::Snapshot;
use kubectl_consolidation::source::cluster::fetch_with_warnings;
use kubectl_consolidation::source::prices::parse_prices;
use kubectl_consolidation::source::ClusterArgs;
use serde_json::{json, Value};

use crate::support;
use crate::support::fake_apiserver::{Config, FakeApiServer, Logged};

const SCENARIO: &str = "seed-incident-underutilized";
const LEADER: &str = "karpenter-7f9c-leader";
const SERVICE_METRICS: &str = "/api/v1/namespaces/kube-system/services/karpenter:http-metrics/proxy/metrics";
const LEADER_METRICS: &str = "/api/v1/namespaces/kube-system/pods/karpenter-7f9c-leader:8080/proxy/metrics";

/// Objects the live source must drop: an event about a Service and a finished pod.
fn filtered_out() -> Vec<Value> {
    vec![
        json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "svc.1", "namespace": "tenant-a"},
               "involvedObject": {"kind": "Service", "name": "svc", "namespace": "tenant-a"},
               "reason": "Updated", "message": "endpoints changed", "lastTimestamp": "2026-11-29T09:00:00Z"}),
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "job-done", "namespace": "tenant-a"},
               "spec": {"nodeName": "node-0", "containers": [{"name": "c"}]}, "status": {"phase": "Succeeded"}}),
    ]
}

/// The seed incident, Karpenter's controller, and one event about a node.
fn served_objects() -> Vec<Value> {
    let mut objects = support::scenario_objects(SCENARIO);
    objects.extend(support::karpenter_controller_objects(LEADER));
    objects.push(json!({"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": "node-3.17f", "namespace": "default"},
        "involvedObject": {"kind": "Node", "name": "node-3"},
        "reason": "DisruptionBlocked", "message": "Cannot disrupt Node: state node is nominated for a pending pod",
        "type": "Normal", "lastTimestamp": "2026-11-29T09:58:00Z", "count": 3}));
    // A capacity buffer and the PodTemplate it names (read; simulated only with the gate on).
    objects.push(json!({"apiVersion": "autoscaling.x-k8s.io/v1beta1", "kind": "CapacityBuffer",
        "metadata": {"name": "warm", "namespace": "tenant-a", "uid": "uid-warm"},
        "spec": {"podTemplateRef": {"name": "warm-pod"}, "replicas": 2},
        "status": {"replicas": 2, "conditions": [{"type": "ReadyForProvisioning", "status": "True"}]}}));
    objects.push(json!({"apiVersion": "v1", "kind": "PodTemplate",
        "metadata": {"name": "warm-pod", "namespace": "tenant-a"},
        "template": {"metadata": {"labels": {"app": "warm"}},
                     "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "500m"}}}]}}}));
    objects
}

/// A fake serving the seed with Karpenter behind a standby Service and a leader pod.
fn seed_config() -> (Config, String) {
    let mut all = served_objects();
    all.extend(filtered_out());
    let metrics = support::metrics_text(&support::scenario_instance_types(SCENARIO));
    let config = Config::new(&all).raw(SERVICE_METRICS, 200, "# TYPE go_goroutines gauge\ngo_goroutines 40\n").raw(
        LEADER_METRICS,
        200,
        &metrics,
    );
    (config, metrics)
}

fn args(server: &FakeApiServer, dir: &Path, timeout: Duration) -> ClusterArgs {
    ClusterArgs {
        kubeconfig: Some(server.write_kubeconfig(dir)),
        request_timeout: Some(timeout),
        ..ClusterArgs::default()
    }
}

fn fetch(args: &ClusterArgs) -> (Result<Snapshot, Error>, String) {
    let mut warnings = Vec::new();
    let result = fetch_with_warnings(args, &mut warnings);
    (result, String::from_utf8(warnings).expect("warnings are UTF-8"))
}

fn lists_of(log: &[Logged], path: &str) -> Vec<Logged> {
    log.iter().filter(|r| r.path == path).cloned().collect()
}

#[test]
fn paginated_live_snapshot_equals_the_file_snapshot_of_the_same_objects() {
    let (config, metrics) = seed_config();
    let server = FakeApiServer::start(config.page_size(2));
    let dir = tempfile::tempdir().unwrap();
    let (result, warnings) = fetch(&args(&server, dir.path(), Duration::from_secs(10)));
    let live = result.expect("live fetch succeeds");
    assert_eq!(warnings, "", "no warnings expected");

    let nodes = server.requests_to("/api/v1/nodes");
    assert_eq!(nodes.len(), 5, "10 nodes in pages of 2: {nodes:#?}");
    assert_eq!(nodes[0].query.get("limit").map(String::as_str), Some("500"));
    assert_eq!(nodes[0].query.get("continue"), None);
    for (i, page) in nodes.iter().enumerate().skip(1) {
        assert_eq!(page.query.get("continue").cloned(), Some(format!("4242:{}", i * 2)));
        assert!(page.query.contains_key("limit"));
        assert!(!page.query.contains_key("resourceVersion"), "continuation pages carry no resourceVersion");
    }
    assert!(server.requests_to("/apis/karpenter.sh/v1/nodeclaims").len() > 1);
    assert_eq!(server.requests_to(SERVICE_METRICS).len(), 1);
    assert_eq!(server.requests_to(LEADER_METRICS).len(), 1, "standby Service → leader pod");

    let mut expected = Snapshot::from_documents(served_objects()).unwrap();
    expected.merge_instance_types(parse_prices(&metrics, "metrics").unwrap());
    expected.info.price_source = Some("metrics".to_owned());
    expected.disruption_metrics = Some(kubectl_consolidation::source::disruption_metrics::parse(&metrics));
    expected.info.karpenter_version = Some("v1.14.1".to_owned());
    expected.info.captured_at = live.info.captured_at;
    assert!(live.info.captured_at.is_some());
    assert_eq!(live.to_document(), expected.to_document());

    assert_eq!(live.nodes.len(), 10);
    assert_eq!(live.events.len(), 1, "only events about nodes, nodeclaims, nodepools and pods");
    assert_eq!(live.capacity_buffers.len(), 1, "capacity buffers are listed");
    assert_eq!(live.pod_templates.len(), 1, "PodTemplates are listed");
    assert!(live.pods.iter().all(|p| p.metadata.name != "job-done"), "finished pods are dropped");
    assert_eq!(live.info.feature_gates.get("SpotToSpotConsolidation"), Some(&true));
    let m5 = live.instance_types.iter().find(|t| t.name == "m5.large").expect("prices from metrics");
    assert_eq!(m5.offerings.len(), 6);
}

#[test]
fn forbidden_pdbs_warn_and_are_recorded_as_unread() {
    let (config, _) = seed_config();
    let server = FakeApiServer::start(config.forbid("poddisruptionbudgets"));
    let dir = tempfile::tempdir().unwrap();
    let (result, warnings) = fetch(&args(&server, dir.path(), Duration::from_secs(10)));
    let snapshot = result.expect("a forbidden kind is not an error");
    assert_eq!(
        warnings,
        "warning: cannot list poddisruptionbudgets.policy (403 Forbidden); grant: \
         {apiGroups: [\"policy\"], resources: [\"poddisruptionbudgets\"], verbs: [\"list\"]}\n"
    );
    assert_eq!(snapshot.info.unread.len(), 1);
    assert_eq!(snapshot.info.unread[0].kind, "PodDisruptionBudget");
    assert!(snapshot.info.unread[0].reason.contains("403"), "{:?}", snapshot.info.unread[0]);
    assert!(snapshot.pdbs.is_empty());
    assert_eq!(snapshot.nodes.len(), 10);
    assert_eq!(snapshot.node_claims.len(), 10);
    assert!(!snapshot.pods.is_empty());
    assert!(!snapshot.instance_types.is_empty());
}

#[test]
fn forbidden_nodes_give_a_partial_snapshot() {
    let (config, _) = seed_config();
    let server = FakeApiServer::start(config.forbid("nodes"));
    let dir = tempfile::tempdir().unwrap();
    let (result, warnings) = fetch(&args(&server, dir.path(), Duration::from_secs(10)));
    let snapshot = result.expect("partial snapshot");
    assert!(warnings.contains("cannot list nodes (403 Forbidden)"), "{warnings}");
    assert!(warnings.contains(r#"{apiGroups: [""], resources: ["nodes"], verbs: ["list"]}"#), "{warnings}");
    assert_eq!(snapshot.info.unread.iter().map(|u| u.kind.as_str()).collect::<Vec<_>>(), ["Node"]);
    assert!(snapshot.nodes.is_empty());
    assert_eq!(snapshot.node_claims.len(), 10);
}

#[test]
fn a_cluster_without_the_capacity_buffer_crd_reads_without_a_warning() {
    let (config, _) = seed_config();
    let server = FakeApiServer::start(config.not_found("/apis/autoscaling.x-k8s.io/v1beta1/capacitybuffers"));
    let dir = tempfile::tempdir().unwrap();
    let (result, warnings) = fetch(&args(&server, dir.path(), Duration::from_secs(10)));
    let snapshot = result.expect("snapshot");
    assert_eq!(warnings, "", "an absent optional CRD is no warning");
    assert!(snapshot.capacity_buffers.is_empty());
    assert!(snapshot.info.unread.is_empty(), "{:?}", snapshot.info.unread);
    assert_eq!(server.requests_to("/apis/autoscaling.x-k8s.io/v1beta1/capacitybuffers").len(), 1);
}

#[test]
fn missing_karpenter_crds_is_no_karpenter() {
    let (config, _) = seed_config();
    let server = FakeApiServer::start(
        config.not_found("/apis/karpenter.sh/v1/nodepools").not_found("/apis/karpenter.sh/v1beta1/nodepools"),
    );
    let dir = tempfile::tempdir().unwrap();
    match fetch(&args(&server, dir.path(), Duration::from_secs(10))).0 {
        Err(Error::NoKarpenter { detail }) => assert!(detail.contains("not installed"), "{detail}"),
        other => panic!("expected NoKarpenter, got {other:?}"),
    }
}

#[test]
fn only_v1beta1_served_says_so() {
    let (config, _) = seed_config();
    let server = FakeApiServer::start(config.not_found("/apis/karpenter.sh/v1/nodepools"));
    let dir = tempfile::tempdir().unwrap();
    match fetch(&args(&server, dir.path(), Duration::from_secs(10))).0 {
        Err(error @ Error::NoKarpenter { .. }) => {
            let text = error.to_string();
            assert!(text.contains("v1beta1"), "{text}");
        }
        other => panic!("expected NoKarpenter, got {other:?}"),
    }
    assert_eq!(server.requests_to("/apis/karpenter.sh/v1beta1/nodepools").len(), 1);
}

#[test]
fn slow_reply_beyond_request_timeout_fails_in_bounded_time() {
    let (config, _) = seed_config();
    let server = FakeApiServer::start(config.delay("pods", Duration::from_secs(20)));
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let (result, _) = fetch(&args(&server, dir.path(), Duration::from_millis(300)));
    let elapsed = started.elapsed();
    assert!(elapsed < Duration::from_secs(5), "took {elapsed:?}");
    match result {
        Err(Error::Cluster { what, message, help }) => {
            assert_eq!(what, "pods");
            assert!(message.contains("no answer within") || message.contains("timed out"), "{message}");
            assert!(help.contains("--request-timeout") || help.contains("reachable"), "{help}");
        }
        other => panic!("expected a cluster error, got {other:?}"),
    }
    assert_eq!(server.requests_to("/api/v1/pods").len(), 1, "a timeout is not retried");
}

#[test]
fn only_gets_with_our_user_agent_and_never_secrets_or_configmaps() {
    let (config, _) = seed_config();
    let server = FakeApiServer::start(config.page_size(3).forbid("horizontalpodautoscalers"));
    let dir = tempfile::tempdir().unwrap();
    fetch(&args(&server, dir.path(), Duration::from_secs(10))).0.expect("fetch succeeds");
    let log = server.log();
    assert!(log.len() > 20, "{} requests", log.len());
    for request in &log {
        assert_eq!(request.method, "GET", "{request:?}");
        assert!(!request.path.contains("secrets") && !request.path.contains("configmaps"), "{request:?}");
        assert!(!request.query.contains_key("watch"), "{request:?}");
        let agent = request.user_agent.as_deref().unwrap_or_default();
        assert!(agent.starts_with("kubectl-consolidation/"), "{request:?}");
        assert_eq!(request.authorization.as_deref(), Some("Bearer fake-token"));
    }
    for path in ["/api/v1/pods", "/apis/policy/v1/poddisruptionbudgets", "/apis/karpenter.sh/v1/nodepools"] {
        assert!(!lists_of(&log, path).is_empty(), "{path} was listed");
    }
}

#[test]
fn too_many_requests_is_retried_then_succeeds() {
    let (config, _) = seed_config();
    let server = FakeApiServer::start(config.too_many_requests("nodes", 2));
    let dir = tempfile::tempdir().unwrap();
    let snapshot = fetch(&args(&server, dir.path(), Duration::from_secs(10))).0.expect("retried");
    assert_eq!(snapshot.nodes.len(), 10);
    assert_eq!(server.requests_to("/api/v1/nodes").len(), 3);
}

#[test]
fn persistent_too_many_requests_gives_up() {
    let (config, _) = seed_config();
    let server = FakeApiServer::start(config.too_many_requests("nodes", 100));
    let dir = tempfile::tempdir().unwrap();
    let started = Instant::now();
    let result = fetch(&args(&server, dir.path(), Duration::from_secs(10))).0;
    assert!(matches!(result, Err(Error::Cluster { ref what, .. }) if what == "nodes"), "{result:?}");
    assert_eq!(server.requests_to("/api/v1/nodes").len(), 3, "bounded attempts");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn expired_continue_token_restarts_the_list() {
    let (config, _) = seed_config();
    let server = FakeApiServer::start(config.page_size(4).expire_first_continue("pods"));
    let dir = tempfile::tempdir().unwrap();
    let snapshot = fetch(&args(&server, dir.path(), Duration::from_secs(10))).0.expect("restarted");
    let pods = server.requests_to("/api/v1/pods");
    let fresh_starts = pods.iter().filter(|r| !r.query.contains_key("continue")).count();
    assert_eq!(fresh_starts, 2, "{pods:#?}");
    assert_eq!(snapshot.pods.len(), support::scenario_objects(SCENARIO).iter().filter(|o| o["kind"] == "Pod").count());
}

#[test]
fn unreadable_metrics_are_a_warning_not_an_error() {
    let server = FakeApiServer::start(
        Config::new(&served_objects())
            .raw(SERVICE_METRICS, 403, r#"{"kind":"Status","code":403,"reason":"Forbidden","message":"services \"karpenter:http-metrics\" is forbidden"}"#),
    );
    let dir = tempfile::tempdir().unwrap();
    let (result, warnings) = fetch(&args(&server, dir.path(), Duration::from_secs(10)));
    let snapshot = result.expect("prices are optional");
    assert!(warnings.starts_with("warning: could not read prices from Karpenter's metrics"), "{warnings}");
    assert!(warnings.contains("services/proxy"), "{warnings}");
    assert_eq!(warnings.lines().count(), 1);
    assert_eq!(snapshot.info.price_source, None);
    assert!(snapshot.instance_types.is_empty());
    assert_eq!(snapshot.nodes.len(), 10);
}

#[test]
fn unreachable_server_is_a_cluster_error_with_help() {
    let dir = tempfile::tempdir().unwrap();
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let path = dir.path().join("kubeconfig");
    std::fs::write(
        &path,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: x\nclusters:\n- name: x\n  cluster: {{server: 'http://127.0.0.1:{port}'}}\n\
             contexts:\n- name: x\n  context: {{cluster: x, user: x}}\nusers:\n- name: x\n  user: {{token: t}}\n"
        ),
    )
    .unwrap();
    let args =
        ClusterArgs { kubeconfig: Some(path), request_timeout: Some(Duration::from_secs(2)), ..ClusterArgs::default() };
    match fetch(&args).0 {
        Err(Error::Cluster { message, help, .. }) => {
            assert!(message.contains(&format!("127.0.0.1:{port}")), "{message}");
            assert!(help.contains("cluster-info"), "{help}");
        }
        other => panic!("expected a cluster error, got {other:?}"),
    }
}

#[test]
fn unknown_context_is_a_kubeconfig_error() {
    let server = FakeApiServer::start(Config::new(&[]));
    let dir = tempfile::tempdir().unwrap();
    let mut args = args(&server, dir.path(), Duration::from_secs(2));
    args.context = Some("nope".to_owned());
    match fetch(&args).0 {
        Err(Error::Kubeconfig { help, .. }) => assert!(help.contains("get-contexts"), "{help}"),
        other => panic!("expected a kubeconfig error, got {other:?}"),
    }
    assert!(server.log().is_empty(), "no request without a valid context");
}

#[test]
fn binary_snapshot_json_against_the_fake() {
    let (config, _) = seed_config();
    let server = FakeApiServer::start(config);
    let output = support::run_against(&server, &["snapshot", "-o", "json"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "exit {:?}; stderr:\n{stderr}", output.status.code());
    let document: Value = serde_json::from_slice(&output.stdout).expect("stdout is JSON");
    assert_eq!(document["kind"], "List", "{document}");
    assert!(server.log().iter().all(|r| r.method == "GET"));
    assert!(!server.requests_to("/api/v1/nodes").is_empty());
}

#[test]
fn exec_credential_plugin_supplies_the_token() {
    let server = FakeApiServer::start(Config::new(&served_objects()));
    let dir = tempfile::tempdir().unwrap();
    let credential = r#"{"apiVersion":"client.authentication.k8s.io/v1beta1","kind":"ExecCredential","status":{"token":"fake-token"}}"#;
    let path = exec_kubeconfig(&server, dir.path(), &format!("echo '{credential}'"));
    let args = ClusterArgs {
        kubeconfig: Some(path),
        request_timeout: Some(Duration::from_secs(10)),
        ..ClusterArgs::default()
    };
    let snapshot = fetch(&args).0.expect("token from the exec plugin");
    assert_eq!(snapshot.nodes.len(), 10);
    assert!(!server.log().is_empty());
    assert!(server.log().iter().all(|r| r.authorization.as_deref() == Some("Bearer fake-token")));
}

/// A kubeconfig whose user's credential comes from `sh -c script`.
fn exec_kubeconfig(server: &FakeApiServer, dir: &Path, script: &str) -> std::path::PathBuf {
    let kubeconfig = json!({
        "apiVersion": "v1", "kind": "Config", "current-context": "eks",
        "clusters": [{"name": "eks", "cluster": {"server": server.url()}}],
        "contexts": [{"name": "eks", "context": {"cluster": "eks", "user": "aws"}}],
        "users": [{"name": "aws", "user": {"exec": {
            "apiVersion": "client.authentication.k8s.io/v1beta1", "interactiveMode": "Never",
            "command": "/bin/sh", "args": ["-c", script]}}}]
    });
    let path = dir.join("kubeconfig");
    std::fs::write(&path, kubeconfig.to_string()).unwrap();
    path
}

#[test]
fn a_credential_plugin_that_never_answers_is_stopped_at_the_request_timeout() {
    let server = FakeApiServer::start(Config::new(&served_objects()));
    let dir = tempfile::tempdir().unwrap();
    let args = ClusterArgs {
        kubeconfig: Some(exec_kubeconfig(&server, dir.path(), "sleep 600")),
        request_timeout: Some(Duration::from_secs(1)),
        ..ClusterArgs::default()
    };
    let started = std::time::Instant::now();
    let error = fetch(&args).0.expect_err("no credential");
    assert!(started.elapsed() < Duration::from_secs(20), "bounded: {:?}", started.elapsed());
    let text = error.to_string();
    assert!(text.contains("credential plugin `/bin/sh` did not answer within 1s and was stopped"), "{text}");
    assert!(server.log().is_empty(), "no request without a credential");
}

/// The plugin's children go with it: a `sleep` left behind would keep running (and hold every
/// file the test runner gave the plugin) for ten minutes.
#[cfg(unix)]
#[test]
fn a_stopped_credential_plugin_leaves_no_child_behind() {
    let server = FakeApiServer::start(Config::new(&served_objects()));
    let dir = tempfile::tempdir().unwrap();
    let marker = dir.path().join("child.pid");
    let script = format!("sleep 600 & echo $! > {}; wait", marker.display());
    let args = ClusterArgs {
        kubeconfig: Some(exec_kubeconfig(&server, dir.path(), &script)),
        request_timeout: Some(Duration::from_secs(1)),
        ..ClusterArgs::default()
    };
    fetch(&args).0.expect_err("no credential");
    let pid = std::fs::read_to_string(&marker).expect("the plugin started its child");
    // Running, or stopped; a zombie (`Z`) waits only for its reaper.
    let alive = || {
        std::fs::read_to_string(format!("/proc/{}/stat", pid.trim()))
            .is_ok_and(|stat| stat.rsplit_once(") ").is_some_and(|(_, rest)| !rest.starts_with('Z')))
    };
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    while alive() && std::time::Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(!alive(), "the plugin's child {} outlived its deadline", pid.trim());
}

#[test]
fn a_failing_credential_plugin_is_named_with_what_it_said() {
    let server = FakeApiServer::start(Config::new(&served_objects()));
    let dir = tempfile::tempdir().unwrap();
    let args = ClusterArgs {
        kubeconfig: Some(exec_kubeconfig(&server, dir.path(), "echo 'the SSO session has expired' >&2; exit 3")),
        request_timeout: Some(Duration::from_secs(10)),
        ..ClusterArgs::default()
    };
    let text = fetch(&args).0.expect_err("no credential").to_string();
    assert!(text.contains("`/bin/sh` failed (exit status: 3): the SSO session has expired"), "{text}");
    assert!(!text.contains("Command {") && !text.contains("Output {"), "no Rust struct in the message: {text}");
}

/// A cluster of real EC2 types (`tests/scenarios/own-real-ec2-replace`).
const EC2_SCENARIO: &str = "own-real-ec2-replace";
/// The scenario's clock, so every replay below judges the same instant.
const EC2_NOW: &str = "2026-11-29T10:00:00Z";

/// `plan -o json` at the EC2 scenario's clock with `args`, and its stderr; the run must succeed.
fn plan_json(args: &[&str], kubeconfig: Option<&Path>, home: &Path) -> (Value, String) {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-consolidation"));
    command.args(args).args(["--now", EC2_NOW, "plan", "-o", "json"]).env("HOME", home).env("NO_COLOR", "1");
    match kubeconfig {
        Some(k) => command.env("KUBECONFIG", k),
        None => command.env_remove("KUBECONFIG"),
    };
    let output = command.output().expect("run the binary");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{args:?}: exit {:?}; stderr:\n{stderr}", output.status.code());
    (serde_json::from_slice(&output.stdout).expect("stdout is JSON"), stderr)
}

/// `plan -o json`'s commands and each node's (verdict, action, reason), and its stderr.
fn plan_outcome(args: &[&str], kubeconfig: Option<&Path>, home: &Path) -> (Value, String) {
    let (report, stderr) = plan_json(args, kubeconfig, home);
    let nodes: Vec<Value> = report["nodes"]
        .as_array()
        .expect("nodes")
        .iter()
        .map(|n| json!([n["name"], n["verdict"], n["action"], n["reason"]]))
        .collect();
    (json!({"commands": report["commands"], "nodes": nodes}), stderr)
}

fn assert_replaces(outcome: &Value) {
    let command = &outcome["commands"][0];
    assert_eq!(command["decision"], "replace", "{outcome:#}");
    assert_eq!(command["replacements"][0]["instanceTypes"], json!(["m5.large", "m5.xlarge"]), "{outcome:#}");
}

#[test]
fn live_with_metrics_only_gives_the_file_replay_answer_for_real_ec2_types() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = support::scenario_path(EC2_SCENARIO);
    let (file, _) = plan_outcome(&["--snapshot", &scenario.display().to_string()], None, dir.path());
    assert_replaces(&file);

    // The objects without our documents, Karpenter's controller, and its metrics (prices and
    // availability per offering, cpu and memory: no pods, no overhead, no labels).
    let mut objects = support::scenario_objects(EC2_SCENARIO);
    objects.extend(support::karpenter_controller_objects(LEADER));
    let metrics = support::metrics_text(&support::scenario_instance_types(EC2_SCENARIO));
    assert!(!metrics.contains("pods"), "metrics carry no pods capacity");
    let server = FakeApiServer::start(Config::new(&objects).raw(LEADER_METRICS, 200, &metrics));
    let kubeconfig = server.write_kubeconfig(dir.path());
    let (live, warnings) = plan_outcome(&[], Some(&kubeconfig), dir.path());
    assert_eq!(live, file, "live (metrics only) vs file replay with a complete InstanceTypes document");
    assert!(!warnings.contains("prices are unknown"), "{warnings}");
    assert!(!server.requests_to(LEADER_METRICS).is_empty(), "the prices came from the metrics");

    // `snapshot` writes the catalogue it used: replaying it offline gives the live answer.
    let saved = dir.path().join("live.json");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-consolidation"))
        .args(["snapshot", "-o", &saved.display().to_string()])
        .env("KUBECONFIG", &kubeconfig)
        .env("HOME", dir.path())
        .status()
        .expect("run snapshot");
    assert!(status.success());
    let written = std::fs::read_to_string(&saved).expect("snapshot written");
    assert!(written.contains("\"aws-catalogue\""), "figures carry their source tags");
    let (offline, _) = plan_outcome(&["--snapshot", &saved.display().to_string()], None, dir.path());
    assert_eq!(offline, live, "offline replay of the live snapshot");
}

/// The whole `-o json` plan with `args`, `capturedAt` removed (live reads the clock, a file its
/// own capture time): the only field in which a live and a file replay of one state may differ.
fn plan_document(args: &[&str], kubeconfig: Option<&Path>, home: &Path) -> String {
    let (mut report, _) = plan_json(args, kubeconfig, home);
    report.as_object_mut().expect("a JSON object").remove("capturedAt");
    serde_json::to_string_pretty(&report).expect("JSON")
}

#[test]
fn live_with_a_prices_document_is_byte_for_byte_the_file_replay() {
    let dir = tempfile::tempdir().unwrap();
    // The scenario file holds the InstanceTypes document; `--prices` reads just that from it.
    let prices = support::scenario_path(EC2_SCENARIO).display().to_string();
    let mut objects = support::scenario_objects(EC2_SCENARIO);
    objects.extend(support::karpenter_controller_objects(LEADER));
    let capture = json!({"apiVersion": "v1", "kind": "List", "items": objects});
    let path = dir.path().join("capture.json");
    std::fs::write(&path, serde_json::to_string(&capture).unwrap()).unwrap();
    let file = plan_document(&["--snapshot", &path.display().to_string(), "--prices", &prices], None, dir.path());

    // The metrics say something else (every price doubled, one type more): with a document given,
    // they must neither be read nor leave a figure, a source tag or an offering behind.
    let mut other = support::scenario_instance_types(EC2_SCENARIO);
    for it in &mut other {
        for o in &mut it.offerings {
            o.price = o.price.map(|p| p * 2.0);
        }
    }
    let mut extra = other[0].clone();
    extra.name = "m9.metrics-only".into();
    other.push(extra);
    let server = FakeApiServer::start(Config::new(&objects).raw(LEADER_METRICS, 200, &support::metrics_text(&other)));
    let kubeconfig = server.write_kubeconfig(dir.path());
    let live = plan_document(&["--prices", &prices], Some(&kubeconfig), dir.path());
    assert!(server.requests_to(LEADER_METRICS).is_empty(), "a prices document makes the scrape needless");
    assert!(
        live == file,
        "live vs file replay with --prices: {}",
        support::first_difference(live.as_bytes(), file.as_bytes())
    );
    assert!(!live.contains("Uncertain"), "no figure rests on the metrics: {live}");
}

#[test]
fn a_kubectl_capture_without_instance_types_gives_the_same_commands_as_with_them() {
    let dir = tempfile::tempdir().unwrap();
    let scenario = support::scenario_path(EC2_SCENARIO);
    let (with_document, _) = plan_outcome(&["--snapshot", &scenario.display().to_string()], None, dir.path());
    // What `kubectl get nodes,pods,nodepools,nodeclaims,ec2nodeclasses -A -o yaml` writes: one List.
    let capture = json!({"apiVersion": "v1", "kind": "List", "items": support::scenario_objects(EC2_SCENARIO)});
    let path = dir.path().join("capture.yaml");
    std::fs::write(&path, serde_json::to_string_pretty(&capture).unwrap()).unwrap();
    let (captured, warnings) = plan_outcome(&["--snapshot", &path.display().to_string()], None, dir.path());
    assert_replaces(&captured);
    assert_eq!(captured, with_document);
    assert!(warnings.contains("embedded AWS catalogue"), "the estimate is said: {warnings}");
    assert!(!warnings.contains("prices are unknown"), "{warnings}");
}

/// The full JSON plan of a `kubectl get` capture of the EC2 scenario, after `edit`.
fn capture_plan(dir: &Path, edit: impl FnOnce(&mut Vec<Value>)) -> Value {
    let mut items = support::scenario_objects(EC2_SCENARIO);
    edit(&mut items);
    let path = dir.join("capture.yaml");
    std::fs::write(
        &path,
        serde_json::to_string_pretty(&json!({"apiVersion": "v1", "kind": "List", "items": items})).unwrap(),
    )
    .unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-consolidation"))
        .args(["--snapshot", &path.display().to_string(), "--now", EC2_NOW, "plan", "-o", "json"])
        .env("HOME", dir)
        .env_remove("KUBECONFIG")
        .output()
        .expect("run the binary");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("stdout is JSON")
}

/// The messages of a node's `Uncertain` reasons.
fn node_uncertain(report: &Value, node: &str) -> Vec<String> {
    let node = report["nodes"].as_array().unwrap().iter().find(|n| n["name"] == node).expect("the node");
    node["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["code"] == "Uncertain")
        .map(|r| r["message"].as_str().unwrap().to_owned())
        .collect()
}

#[test]
fn only_verdicts_that_rest_on_estimated_figures_are_uncertain() {
    let dir = tempfile::tempdir().unwrap();
    // Embedded catalogue: capacity by the provider's formula, static list prices.
    let replaced = capture_plan(dir.path(), |_| {});
    assert_replaces(&json!({"commands": replaced["commands"]}));
    let reasons = node_uncertain(&replaced, "ip-10-0-1-1");
    assert!(reasons.iter().any(|m| m.contains("this node's price") && m.contains("aws-static-price")), "{reasons:?}");
    assert!(
        reasons.iter().any(|m| m.contains("replacement's m5.large m5.xlarge") && m.contains("aws-catalogue")),
        "{reasons:?}"
    );
    // The same node behind a do-not-disrupt annotation: a gate decides, no figure matters.
    let blocked = capture_plan(dir.path(), |items| {
        let node = items.iter_mut().find(|o| o["kind"] == "Node").expect("a Node");
        node["metadata"]["annotations"] = json!({"karpenter.sh/do-not-disrupt": "true"});
    });
    assert!(node_uncertain(&blocked, "ip-10-0-1-1").is_empty(), "{blocked:#}");
    let header = uncertain_messages(&blocked);
    assert!(header.iter().any(|m| m.contains("embedded AWS catalogue")), "the header still lists it: {header:?}");
}

/// Runs the binary against the fake with `forbidden` unreadable (403), returning the exit code,
/// stdout and stderr.
fn run_forbidden(forbidden: &str, args: &[&str]) -> (Option<i32>, String, String) {
    let (config, _) = seed_config();
    let output = support::run_against(&FakeApiServer::start(config.forbid(forbidden)), args);
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (output.status.code(), text(&output.stdout), text(&output.stderr))
}

/// The `uncertain` reasons of a JSON report, as messages.
fn uncertain_messages(document: &Value) -> Vec<String> {
    document["uncertain"]
        .as_array()
        .map(|reasons| reasons.iter().map(|r| r["message"].as_str().unwrap_or_default().to_owned()).collect())
        .unwrap_or_default()
}

#[test]
fn every_command_says_which_kind_it_could_not_read() {
    let commands: [&[&str]; 6] = [
        &["plan"],
        &["explain", "node/node-0"],
        &["score", "nodepool/default"],
        &["pdb-audit", "-A"],
        &["budgets"],
        &["forecast", "--rounds", "2"],
    ];
    for (plural, kind) in [
        ("pods", "Pod"),
        ("poddisruptionbudgets", "PodDisruptionBudget"),
        ("nodeclaims", "NodeClaim"),
        ("nodes", "Node"),
    ] {
        for command in commands {
            let mut json: Vec<&str> = command.to_vec();
            json.extend(["-o", "json"]);
            let (code, stdout, stderr) = run_forbidden(plural, &json);
            let context = format!("{plural} forbidden, {command:?}: exit {code:?}\n{stderr}\n{stdout}");
            if code == Some(1) && command[0] == "explain" && kind == "Node" {
                // Without Nodes there is no node-0 to explain; the error says so.
                assert!(stderr.contains("node-0"), "{context}");
                continue;
            }
            assert_eq!(code, Some(0), "{context}");
            let document: Value = serde_json::from_str(&stdout).expect(&context);
            let messages = uncertain_messages(&document);
            assert!(
                messages.iter().any(|m| m.starts_with(&format!("{kind} could not be read (403"))),
                "{context}\n{messages:?}"
            );
            let (_, text, _) = run_forbidden(plural, command);
            assert!(text.contains(&format!("uncertain: {kind} could not be read")), "{context}\n{text}");
        }
    }
}

#[test]
fn pdb_audit_gate_fails_when_pods_or_pdbs_are_unread() {
    for plural in ["pods", "poddisruptionbudgets"] {
        let (code, stdout, stderr) = run_forbidden(plural, &["pdb-audit", "-A", "--fail-on", "info", "-o", "json"]);
        assert_eq!(code, Some(1), "{plural}: {stderr}\n{stdout}");
        let document: Value = serde_json::from_str(&stdout).unwrap();
        assert_eq!(document["blind"], true, "{document}");
        assert_eq!(document["findings"], json!([]), "no finding from what could not be seen: {document}");
    }
    // With everything readable the same gate passes on `critical` (the seed has no critical PDB
    // finding) and the document is not blind.
    let (config, _) = seed_config();
    let server = FakeApiServer::start(config);
    let dir = tempfile::tempdir().unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-consolidation"))
        .args(["pdb-audit", "-A", "-o", "json"])
        .env("KUBECONFIG", server.write_kubeconfig(dir.path()))
        .env("HOME", dir.path())
        .output()
        .unwrap();
    let document: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert!(document.get("blind").is_none(), "{document}");
}

#[test]
fn pdb_audit_gate_fails_when_a_rule_it_needs_was_skipped() {
    // Without HPAs or ReplicaSets some rules cannot be judged ("Skipped"): the gate must not
    // pass on them, whatever it found elsewhere.
    for plural in ["horizontalpodautoscalers", "replicasets"] {
        let (code, stdout, stderr) = run_forbidden(plural, &["pdb-audit", "-A", "--fail-on", "critical", "-o", "json"]);
        let document: Value = serde_json::from_str(&stdout).expect(&stderr);
        assert!(!document["skipped"].as_array().is_none_or(Vec::is_empty), "{plural}: a rule was skipped: {document}");
        assert_eq!(code, Some(1), "{plural}: the gate could not judge: {stderr}\n{stdout}");
    }
}

#[test]
fn budgets_with_nodeclaims_unread_say_the_counts_are_uncertain() {
    let (code, stdout, stderr) = run_forbidden("nodeclaims", &["budgets", "-o", "json"]);
    assert_eq!(code, Some(0), "{stderr}");
    let document: Value = serde_json::from_str(&stdout).unwrap();
    let messages = uncertain_messages(&document);
    assert!(messages.iter().any(|m| m.contains("node count is uncertain")), "{messages:?}");
}
