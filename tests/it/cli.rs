//! Guards the command-line contract of docs/DESIGN.md, by running the built binary: exit codes (0 ok,
//! 1 unreadable input, 2 bad command line, 3 `pdb-audit --fail-on`), error messages that name
//! the file, line and field, did-you-mean hints, stdin snapshots, quiet exit on a closed pipe,
//! the `snapshot` round trip, `--now`, colour control, kubectl plugin discovery and completion,
//! and the committed completion shim (the scripts: tests/it/completion.rs). No cluster is needed.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::Stdio;

use assert_cmd::Command;
use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;
use serde_json::{json, Value};

use crate::support::{bin as cmd, first_difference, root, scenario_arg as scenario, BIN};

const DEMO_NODE: &str = "node-x";

fn fixture(name: &str) -> String {
    format!("tests/fixtures/{name}")
}

fn stdout_of(args: &[&str]) -> Vec<u8> {
    let output = cmd().args(args).output().expect("the binary runs");
    assert!(
        output.status.success(),
        "`{}` exited {:?}: {}",
        args.join(" "),
        output.status.code(),
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

fn json_of(args: &[&str]) -> Value {
    serde_json::from_slice(&stdout_of(args)).unwrap_or_else(|e| panic!("`{}` did not print JSON: {e}", args.join(" ")))
}

// ---- Exit codes ----

#[test]
fn a_successful_command_exits_0_with_data_on_stdout_only() {
    cmd().args(["--demo", "plan"]).assert().success().stdout(contains(DEMO_NODE)).stderr("");
}

#[test]
fn a_missing_snapshot_file_exits_1_and_names_it() {
    cmd()
        .args(["--snapshot", "tests/fixtures/does-not-exist.yaml", "plan"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(contains("does-not-exist.yaml"));
}

#[test]
fn invalid_yaml_exits_1_and_names_the_file_and_line() {
    cmd()
        .args(["--snapshot", &fixture("invalid-yaml.yaml"), "plan"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(contains("invalid-yaml.yaml:8:").and(contains("not valid YAML")));
}

#[test]
fn a_pod_without_a_name_exits_1_and_names_the_file_the_line_and_the_field() {
    let stderr = failure_stderr(&["--snapshot", &fixture("invalid-pod-without-name.yaml"), "plan"], 1);
    assert!(stderr.contains("metadata.name") && stderr.contains("Pod"), "{stderr}");
    assert!(error_line(&stderr, "invalid-pod-without-name.yaml").is_some(), "no FILE:LINE:COLUMN in {stderr}");
}

/// The line must point into the Pod's own document (lines 17–30), not at another object.
#[test]
fn a_pod_without_a_name_is_located_in_its_own_document() {
    let stderr = failure_stderr(&["--snapshot", &fixture("invalid-pod-without-name.yaml"), "plan"], 1);
    let line = error_line(&stderr, "invalid-pod-without-name.yaml").expect("FILE:LINE:COLUMN");
    assert!((17..=30).contains(&line), "points at line {line}, outside the Pod (lines 17-30):\n{stderr}");
}

#[test]
fn cpu_lots_exits_1_and_names_the_file_the_line_and_the_field() {
    let stderr = failure_stderr(&["--snapshot", &fixture("invalid-cpu-lots.yaml"), "plan"], 1);
    assert_eq!(error_line(&stderr, "invalid-cpu-lots.yaml"), Some(30), "{stderr}");
    assert!(stderr.contains("spec.containers[0].resources.requests.cpu"), "{stderr}");
    assert!(stderr.contains("`lots`") && stderr.contains("web-1"), "{stderr}");
}

#[test]
fn a_bad_flag_exits_2() {
    cmd().args(["--demo", "--no-such-flag", "plan"]).assert().code(2).stdout("").stderr(contains("--no-such-flag"));
}

#[test]
fn a_bad_output_format_exits_2() {
    cmd().args(["--demo", "plan", "-o", "xml"]).assert().code(2).stdout("").stderr(contains("xml"));
    cmd().args(["--demo", "plan", "-o", "out.txt"]).assert().code(2).stdout("").stderr(contains("snapshot"));
}

#[test]
fn pdb_audit_fail_on_critical_exits_3_on_the_demo_and_0_without_it() {
    cmd()
        .args(["--demo", "pdb-audit", "-A", "--fail-on", "critical"])
        .assert()
        .code(3)
        .stdout(contains("SingleReplicaEvictable"));
    cmd().args(["--demo", "pdb-audit", "-A"]).assert().code(0).stdout(contains("SingleReplicaEvictable"));
}

// ---- Did you mean ----

#[test]
fn explain_of_a_misspelt_node_exits_1_and_suggests_the_right_one() {
    cmd()
        .args(["--demo", "explain", "node/nodex"])
        .assert()
        .code(1)
        .stdout("")
        .stderr(contains("did you mean").and(contains("node/node-x")));
}

#[test]
fn explain_of_a_misspelt_kind_exits_2_and_suggests_the_right_one() {
    cmd()
        .args(["--demo", "explain", "nodpool/x"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(contains("did you mean").and(contains("nodepool")));
}

#[test]
fn help_speaks_as_the_kubectl_plugin() {
    cmd().arg("--help").assert().success().stdout(contains("kubectl consolidation"));
    cmd().args(["explain", "--help"]).assert().success().stdout(contains("kubectl consolidation explain"));
}

// ---- Input and output plumbing ----

#[test]
fn a_snapshot_on_stdin_replays_like_the_file() {
    let path = scenario("do-not-disrupt-pod");
    let text = std::fs::read(root().join(&path)).expect("scenario is readable");
    let from_stdin = cmd().args(["--snapshot", "-", "plan", "-o", "json"]).write_stdin(text).output().expect("runs");
    assert!(from_stdin.status.success(), "{}", String::from_utf8_lossy(&from_stdin.stderr));
    assert_eq!(from_stdin.stdout, stdout_of(&["--snapshot", &path, "plan", "-o", "json"]));
}

#[test]
fn a_closed_pipe_exits_0_quietly() {
    let dir = tempfile::tempdir().expect("temp dir");
    let big = dir.path().join("big.json");
    std::fs::write(&big, big_snapshot(300).to_string()).expect("writes the snapshot");
    let big = big.to_str().expect("UTF-8 temp path");
    let args = ["--snapshot", big, "snapshot", "-o", "yaml"];
    let full = stdout_of(&args).len();
    assert!(full > 256 << 10, "the output ({full} bytes) must exceed any pipe buffer for this test to mean anything");

    let mut child = std::process::Command::new(BIN)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawns");
    let mut reader = BufReader::new(child.stdout.take().expect("piped stdout"));
    let mut line = String::new();
    reader.read_line(&mut line).expect("reads a line");
    assert!(line.starts_with("apiVersion"), "first line: {line:?}");
    drop(reader);
    let output = child.wait_with_output().expect("waits");
    assert_eq!(output.status.code(), Some(0), "stderr: {}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(String::from_utf8_lossy(&output.stderr), "", "a closed pipe must be quiet");
}

/// Load → `snapshot -o json` → load that → `snapshot -o json` gives the same bytes, and the
/// round-tripped snapshot replays to the same report. Covers every scenario, every valid
/// fixture and the demo; also proves each of them loads (exit 0).
#[test]
fn every_snapshot_round_trips_through_snapshot_json() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut cases: Vec<(String, Vec<String>, Vec<String>)> = scenario_folders()
        .into_iter()
        .map(|folder| {
            let name = folder.file_name().expect("folder name").to_string_lossy().into_owned();
            let input = vec!["--snapshot".to_owned(), scenario(&name)];
            (name, input, scenario_args(&folder))
        })
        .collect();
    cases.extend(valid_fixtures().into_iter().map(|file| {
        let input = vec!["--snapshot".to_owned(), fixture(&file)];
        (file, input, vec!["plan".to_owned()])
    }));
    cases.push(("--demo".to_owned(), vec!["--demo".to_owned()], vec!["pdb-audit".to_owned(), "-A".to_owned()]));
    assert!(cases.len() > 20, "expected the scenarios to be there, found {}", cases.len());

    let mut failures = Vec::new();
    for (name, input, args) in &cases {
        if let Err(e) = round_trip(dir.path(), name, input, args) {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} snapshots do not round-trip:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

fn round_trip(dir: &Path, name: &str, input: &[String], args: &[String]) -> Result<(), String> {
    let run = |argv: Vec<&str>| -> Result<Vec<u8>, String> {
        let output = cmd().args(&argv).output().map_err(|e| e.to_string())?;
        match output.status.code() {
            Some(0) => Ok(output.stdout),
            code => Err(format!(
                "`{}` exited {code:?}: {}",
                argv.join(" "),
                String::from_utf8_lossy(&output.stderr).lines().take(6).collect::<Vec<_>>().join(" | ")
            )),
        }
    };
    let input: Vec<&str> = input.iter().map(String::as_str).collect();
    let first = run([&input[..], &["snapshot", "-o", "json"]].concat())?;
    let copy = dir.join(format!("{}.json", name.trim_start_matches('-')));
    std::fs::write(&copy, &first).map_err(|e| e.to_string())?;
    let copy_input = ["--snapshot", copy.to_str().expect("UTF-8 temp path")];
    let second = run([&copy_input[..], &["snapshot", "-o", "json"]].concat())?;
    if first != second {
        return Err(format!("snapshot -o json is not stable: {}", first_difference(&first, &second)));
    }
    let mut commands = vec![vec!["plan"]];
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    if args != ["plan"] {
        commands.push(args);
    }
    for command in commands {
        let original = run([&input[..], &command, &["-o", "json"]].concat())?;
        let replayed = run([&copy_input[..], &command, &["-o", "json"]].concat())?;
        if original != replayed {
            return Err(format!(
                "`{}` differs after the round trip: {}",
                command.join(" "),
                first_difference(&original, &replayed)
            ));
        }
    }
    Ok(())
}

#[test]
fn now_overrides_the_snapshot_clock() {
    let path = fixture("consolidate-after-1h.yaml");
    let at_capture = json_of(&["--snapshot", &path, "plan", "-o", "json"]);
    let node = find_node(&at_capture, "node-a");
    assert_eq!((&at_capture["method"], &node["verdict"]), (&Value::Null, &json!("Blocked")), "{node}");
    assert!(node["blockers"].as_array().is_some_and(|b| b.contains(&json!("NotConsolidatableYet"))), "{node}");

    let later = json_of(&["--snapshot", &path, "--now", "2026-11-29T11:00:00Z", "plan", "-o", "json"]);
    let node = find_node(&later, "node-a");
    assert_eq!((&later["method"], &node["verdict"]), (&json!("Emptiness"), &json!("Empty")), "{node}");
    assert!(node["blockers"].as_array().is_some_and(Vec::is_empty), "{node}");
}

#[test]
fn a_malformed_now_is_a_usage_error() {
    cmd().args(["--demo", "--now", "yesterday", "plan"]).assert().code(2).stderr(contains("--now"));
}

fn find_node<'a>(plan: &'a Value, name: &str) -> &'a Value {
    plan["nodes"]
        .as_array()
        .and_then(|nodes| nodes.iter().find(|n| n["name"] == name))
        .unwrap_or_else(|| panic!("no node {name} in {plan}"))
}

// ---- Colour ----

#[test]
fn colour_is_off_for_never_and_no_color_and_on_for_always() {
    let has_escape = |out: &[u8]| out.contains(&0x1b);
    for args in [&["--demo", "plan"][..], &["--demo", "explain", "node/node-x"]] {
        let never = cmd().args(args).env("NO_COLOR", "1").output().expect("runs");
        assert!(never.status.success() && !has_escape(&never.stdout), "NO_COLOR: {args:?}");
    }
    let never = stdout_of(&["--demo", "explain", "node/node-x", "--color", "never"]);
    assert!(!has_escape(&never), "--color never printed an escape");
    let always = stdout_of(&["--demo", "explain", "node/node-x", "--color", "always"]);
    assert!(has_escape(&always), "--color always printed no escape");
    let explicit = cmd().args(["--demo", "plan", "--color", "always"]).env("NO_COLOR", "1").output().expect("runs");
    assert!(has_escape(&explicit.stdout), "--color always must win over NO_COLOR");
}

/// `--color auto` on a terminal: colour, unless `NO_COLOR` is set. Needs util-linux `script`
/// for the pseudo-terminal; skipped without it.
#[cfg(unix)]
#[test]
fn colour_auto_follows_the_terminal_and_no_color() {
    let Some(script) = find_on_path("script") else {
        println!("skipped: `script` (util-linux) is not on PATH");
        return;
    };
    let on_a_terminal = |no_color: bool| {
        let mut cmd = Command::new(&script);
        cmd.args(["-qec", &format!("'{BIN}' --demo plan"), "/dev/null"]).current_dir(root()).env_remove("NO_COLOR");
        if no_color {
            cmd.env("NO_COLOR", "1");
        }
        let output = cmd.output().expect("runs script");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        output.stdout
    };
    let coloured = on_a_terminal(false);
    assert!(String::from_utf8_lossy(&coloured).contains(DEMO_NODE), "the plan did not run on the terminal");
    assert!(has_colour(&coloured), "auto on a terminal printed no colour");
    // The progress display on the same terminal moves the cursor (`ESC [2K`): that is no colour.
    assert!(!has_colour(&on_a_terminal(true)), "NO_COLOR on a terminal still printed colour");
}

/// An SGR sequence (`ESC [ 31 m`, `ESC [ 1 ; 32 m`): what colour and bold are written with.
fn has_colour(bytes: &[u8]) -> bool {
    bytes.windows(2).enumerate().filter(|(_, w)| *w == b"\x1b[").any(|(i, _)| {
        let rest = &bytes[i + 2..];
        let digits = rest.iter().take_while(|b| b.is_ascii_digit() || **b == b';').count();
        digits > 0 && rest.get(digits) == Some(&b'm')
    })
}

// ---- kubectl integration ----

#[cfg(unix)]
fn linked_as(dir: &Path, name: &str) -> PathBuf {
    let link = dir.join(name);
    std::os::unix::fs::symlink(BIN, &link).expect("symlinks the binary");
    link
}

#[cfg(unix)]
#[test]
fn kubectl_discovers_the_plugin() {
    let Some(kubectl) = find_on_path("kubectl") else {
        println!("skipped: kubectl is not on PATH");
        return;
    };
    let dir = tempfile::tempdir().expect("temp dir");
    linked_as(dir.path(), "kubectl-consolidation");
    let path = std::env::join_paths(
        std::iter::once(dir.path().to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .expect("joins PATH");
    let kubeconfig = dir.path().join("kubeconfig");
    let kubectl = |args: &[&str]| {
        let mut cmd = Command::new(&kubectl);
        cmd.args(args).env("PATH", &path).env("KUBECONFIG", &kubeconfig).env_remove("NO_COLOR");
        cmd
    };
    kubectl(&["plugin", "list"])
        .assert()
        .stdout(contains(dir.path().join("kubectl-consolidation").to_string_lossy().into_owned()));
    kubectl(&["consolidation", "--help"]).assert().success().stdout(contains("kubectl consolidation"));
    kubectl(&["consolidation", "--demo", "plan"]).assert().success().stdout(contains(DEMO_NODE));
}

#[cfg(unix)]
#[test]
fn the_completion_shim_name_serves_kubectl_completion() {
    let dir = tempfile::tempdir().expect("temp dir");
    let shim = linked_as(dir.path(), "kubectl_complete-consolidation");
    let output = Command::new(&shim).args(["--demo", "explain", "node/node-"]).output().expect("runs");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.lines().any(|l| l == "node/node-x"), "{stdout}");
    assert!(stdout.trim_end().ends_with(":4"), "cobra's NoFileComp directive must end the output: {stdout}");
}

/// The committed shim (for installs that cannot symlink) runs the binary from PATH under the
/// completion name.
#[cfg(unix)]
#[test]
fn the_committed_completion_shim_serves_kubectl_completion() {
    if find_on_path("bash").is_none() {
        println!("skipped: bash is not on PATH");
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    linked_as(dir.path(), "kubectl-consolidation");
    let path = std::env::join_paths(
        std::iter::once(dir.path().to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .expect("joins PATH");
    let shim = root().join("completions/kubectl_complete-consolidation");
    let output = Command::new(&shim)
        .args(["--demo", "explain", "node/node-"])
        .env("PATH", &path)
        .output()
        .expect("runs the shim");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert!(stdout.lines().any(|l| l == "node/node-x") && stdout.trim_end().ends_with(":4"), "{stdout}");
}

// ---- Helpers ----

/// Runs a command that must fail with `code`, and returns its stderr.
fn failure_stderr(args: &[&str], code: i32) -> String {
    let output = cmd().args(args).output().expect("runs");
    assert_eq!(output.status.code(), Some(code), "stderr: {}", String::from_utf8_lossy(&output.stderr));
    assert!(output.stdout.is_empty(), "an error printed data on stdout");
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The LINE of the first `FILE:LINE:COLUMN` mention of `file` in a message.
fn error_line(message: &str, file: &str) -> Option<usize> {
    message.match_indices(file).find_map(|(at, _)| {
        let rest = message[at + file.len()..].strip_prefix(':')?;
        let (line, rest) = rest.split_once(':')?;
        rest.starts_with(|c: char| c.is_ascii_digit()).then(|| line.parse().ok())?
    })
}

fn scenario_folders() -> Vec<PathBuf> {
    let mut folders: Vec<PathBuf> = std::fs::read_dir(root().join("tests/scenarios"))
        .expect("tests/scenarios is readable")
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.join("snapshot.yaml").is_file())
        .collect();
    folders.sort();
    folders
}

/// The scenario's own `args` from expect.json (default `plan`).
fn scenario_args(folder: &Path) -> Vec<String> {
    let spec: Value = std::fs::read_to_string(folder.join("expect.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or(Value::Null);
    spec["args"]
        .as_array()
        .map_or_else(|| vec!["plan".to_owned()], |a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
}

/// Fixtures that should load (`invalid-*.yaml` are meant to fail).
fn valid_fixtures() -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(root().join("tests/fixtures"))
        .expect("tests/fixtures is readable")
        .map(|e| e.expect("directory entry").file_name().to_string_lossy().into_owned())
        .filter(|f| {
            Path::new(f).extension().is_some_and(|e| e.eq_ignore_ascii_case("yaml")) && !f.starts_with("invalid-")
        })
        .collect();
    files.sort();
    files
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(program)).find(|p| p.is_file())
}

/// A snapshot with `nodes` busy nodes (a Node, its NodeClaim and two pods each): big enough
/// that `snapshot -o yaml` overflows a pipe buffer several times over. (`plan` on it would be
/// slow in a debug build: the simulation is quadratic in the nodes.)
fn big_snapshot(nodes: usize) -> Value {
    let mut items = vec![
        json!({"apiVersion": "kubectl-consolidation/v1alpha1", "kind": "SnapshotInfo", "capturedAt": "2026-11-29T10:00:00Z"}),
        json!({"apiVersion": "kubectl-consolidation/v1alpha1", "kind": "InstanceTypes", "items": [{
            "name": "m5.xlarge", "capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
            "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.192}]}]}),
        json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
            "spec": {"template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                "requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}]}},
                "disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s", "budgets": [{"nodes": "10%"}]}},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}}),
    ];
    let ready = |kind: &str| json!({"type": kind, "status": "True", "lastTransitionTime": "2026-11-29T08:00:00Z"});
    for i in 0..nodes {
        let name = format!("node-{i:04}");
        let labels = json!({"kubernetes.io/hostname": name, "node.kubernetes.io/instance-type": "m5.xlarge",
            "topology.kubernetes.io/zone": "us-east-1a", "karpenter.sh/nodepool": "default",
            "karpenter.sh/capacity-type": "on-demand", "karpenter.sh/registered": "true", "karpenter.sh/initialized": "true"});
        let resources = json!({"cpu": "4", "memory": "16Gi", "pods": "110"});
        items.push(json!({"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": labels, "creationTimestamp": "2026-11-29T08:00:00Z"},
            "spec": {"providerID": format!("aws:///us-east-1a/i-{i:017}")},
            "status": {"capacity": resources, "allocatable": resources, "conditions": [ready("Ready")]}}));
        items.push(json!({"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
            "metadata": {"name": format!("default-{name}"), "labels": labels, "creationTimestamp": "2026-11-29T08:00:00Z"},
            "spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}},
            "status": {"nodeName": name, "providerID": format!("aws:///us-east-1a/i-{i:017}"),
                "capacity": resources, "allocatable": resources,
                "conditions": [ready("Launched"), ready("Registered"), ready("Initialized"), ready("Consolidatable"), ready("Ready")]}}));
        for p in 0..2 {
            items.push(json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": format!("web-{i:04}-{p}"), "namespace": "default", "labels": {"app": "web"}},
                "spec": {"nodeName": name, "containers": [{"name": "app", "resources": {"requests": {"cpu": "1500m", "memory": "6Gi"}}}]},
                "status": {"phase": "Running"}}));
        }
    }
    json!({"apiVersion": "v1", "kind": "List", "items": items})
}

/// `--version` names the commit built (build.rs reads git here) and the pinned Karpenter tag.
#[test]
fn version_names_the_commit_and_the_pinned_karpenter() {
    let text = String::from_utf8(stdout_of(&["--version"])).expect("UTF-8");
    assert!(text.starts_with(&format!("kubectl-consolidation {}\n", env!("CARGO_PKG_VERSION"))), "{text}");
    assert!(text.contains("replays: kubernetes-sigs/karpenter v1.14."), "{text}");
    let head = std::process::Command::new("git").args(["rev-parse", "--short=12", "HEAD"]).current_dir(root()).output();
    match head {
        Ok(out) if out.status.success() && std::env::var_os("KUBECTL_CONSOLIDATION_COMMIT").is_none() => {
            let head = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            assert!(text.contains(&format!("commit: {head}\n")), "{text} (HEAD {head})");
        }
        _ => assert!(text.contains("commit: "), "{text}"),
    }
}

#[test]
fn instance_types_lists_a_pools_catalogue_with_the_source_of_each_figure() {
    let snapshot = scenario("own-ec2-reserved-enis");
    let out = stdout_of(&["--snapshot", &snapshot, "instance-types", "nodepool/default", "-o", "json"]);
    let doc: Value = serde_json::from_slice(&out).expect("JSON");
    assert_eq!(doc["kind"], "InstanceTypeCatalogue");
    let types = doc["instanceTypes"].as_array().expect("types");
    let names: Vec<&str> = types.iter().filter_map(|t| t["name"].as_str()).collect();
    // The pool admits the m5 family only, cheapest first.
    assert_eq!(&names[..3], ["m5.large", "m5.xlarge", "m5.2xlarge"], "{names:?}");
    let large = &types[0];
    // RESERVED_ENIS=2 from the controller Deployment: (3 − 2) × 9 + 2 pods (types.go ENILimitedPods).
    assert_eq!(large["pods"], "11");
    assert_eq!(large["allocatable"]["cpu"], "1930m");
    assert_eq!(large["sources"]["pods"], "aws-catalogue");
    assert_eq!(large["offerings"][0]["source"], "aws-static-price");
    assert_eq!(doc["assumed"]["settings"]["RESERVED_ENIS"]["value"], "2");
    cmd()
        .args(["--snapshot", &snapshot, "instance-types", "node/x"])
        .assert()
        .code(2)
        .stderr(contains("instance-types takes nodepool/NAME"));
    cmd()
        .args(["--snapshot", &snapshot, "instance-types", "nodepool/nope"])
        .assert()
        .failure()
        .stderr(contains("nope"));
}

/// From 10,000 pods `snapshot` without `-o` writes JSON (a YAML snapshot that size reads back
/// over ten times slower) and says so on stderr; `-o yaml` still writes YAML.
#[test]
fn a_big_snapshot_is_written_as_json_unless_yaml_is_asked_for() {
    let mut items = vec![json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"}})];
    items.push(json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node-a"}}));
    items.extend((0..10_000).map(|i| {
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": format!("p-{i}"), "namespace": "ns"},
               "spec": {"nodeName": "node-a"}})
    }));
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("big.json");
    std::fs::write(&path, json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string()).expect("written");
    let path = path.to_str().expect("utf-8 path");
    let output = cmd().args(["--snapshot", path, "snapshot"]).output().expect("the binary runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let written: Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_eq!(written["items"].as_array().map(Vec::len), Some(10_003), "SnapshotInfo, NodePool, Node, 10,000 pods");
    assert!(String::from_utf8_lossy(&output.stderr).contains("10000 pods: writing JSON"), "the note says why");
    let yaml = stdout_of(&["--snapshot", path, "snapshot", "-o", "yaml"]);
    assert!(yaml.starts_with(b"apiVersion: v1\n"), "{}", String::from_utf8_lossy(&yaml[..40.min(yaml.len())]));
}
