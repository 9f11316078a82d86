//! The version matrix (issue 35): every version-sensitive cluster of
//! `scripts/gen-version-scenarios.py` is replayed under each era with `--karpenter-version`,
//! and the round's verdict must be the committed one in `tests/version-matrix.tsv`. A cell
//! changes only at a PR the table names.

use serde_json::Value;

use crate::support;

/// `Drift delete node-d`, or `-` when no command starts.
fn verdict(report: &Value) -> String {
    let Some(commands) = report["commands"].as_array().filter(|c| !c.is_empty()) else { return "-".to_owned() };
    commands
        .iter()
        .map(|c| {
            let candidates: Vec<&str> =
                c["candidates"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            format!(
                "{} {} {}",
                c["method"].as_str().unwrap_or_default(),
                c["decision"].as_str().unwrap_or_default(),
                candidates.join(",")
            )
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// The snapshot of `cluster`: the same file in each of its `own-version-<cluster>-v…` folders.
fn snapshot_of(cluster: &str) -> String {
    let prefix = format!("own-version-{cluster}-v");
    let mut folders: Vec<String> = std::fs::read_dir(support::root().join("tests/scenarios"))
        .expect("tests/scenarios")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.starts_with(&prefix))
        .collect();
    folders.sort();
    let first = folders.first().unwrap_or_else(|| panic!("no scenario folder {prefix}*"));
    let text = std::fs::read_to_string(support::scenario_path(first)).expect("snapshot");
    for other in &folders[1..] {
        assert_eq!(
            std::fs::read_to_string(support::scenario_path(other)).expect("snapshot"),
            text,
            "{other}: the folders of one cluster hold the same snapshot"
        );
    }
    support::scenario_arg(first)
}

#[test]
fn each_cluster_gives_the_committed_verdict_at_each_version() {
    let table = std::fs::read_to_string(support::root().join("tests/version-matrix.tsv")).expect("matrix");
    let mut failures = Vec::new();
    let mut cells = 0;
    for line in table.lines().filter(|l| !l.starts_with('#') && !l.starts_with("cluster\t")) {
        let cols: Vec<&str> = line.split('\t').collect();
        let [cluster, version, expected, rule, since] = cols[..] else { panic!("5 columns: {line}") };
        let output = support::bin()
            .args(["--snapshot", &snapshot_of(cluster), "--karpenter-version", version, "plan", "-o", "json"])
            .output()
            .expect("run");
        assert!(output.status.success(), "{cluster} at {version}: {}", String::from_utf8_lossy(&output.stderr));
        let report: Value = serde_json::from_slice(&output.stdout).expect("JSON");
        assert_eq!(report["assumed"]["rules"]["version"], format!("v{version}"));
        let got = verdict(&report);
        if got != expected {
            failures
                .push(format!("{cluster} at v{version}: got {got:?}, expected {expected:?} ({rule} since {since})"));
        }
        cells += 1;
    }
    assert!(cells >= 32, "the matrix has {cells} cells");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The AWS chart's controller Deployment: the image pinned by tag and digest, or (no tag) by
/// digest alone, with the chart's labels.
fn controller(image: &str, chart: &str) -> Value {
    serde_json::json!({"apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "karpenter", "namespace": "kube-system", "uid": "uid-karpenter",
                     "labels": {"app.kubernetes.io/name": "karpenter", "app.kubernetes.io/version": chart,
                                "helm.sh/chart": format!("karpenter-{chart}")}},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app.kubernetes.io/name": "karpenter"}},
                 "template": {"metadata": {"labels": {"app.kubernetes.io/name": "karpenter"}},
                              "spec": {"containers": [{"name": "controller", "image": image}]}}}})
}

const DIGEST: &str = "sha256:0d2b2d1e3c4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b";

#[test]
fn a_snapshot_s_controller_image_names_the_provider_release_and_its_core_rules() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("snapshot.yaml");
    let mut text =
        std::fs::read_to_string(support::scenario_path("own-version-method-order-v1.4.2")).expect("snapshot");
    let image = format!("public.ecr.aws/karpenter/controller:1.4.3@{DIGEST}");
    text.push_str(&format!("---\n{}\n", controller(&image, "1.4.3")));
    std::fs::write(&path, text).expect("write");
    let output = support::bin().args(["--snapshot", path.to_str().expect("utf-8"), "plan"]).output().expect("run");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        stdout.lines().next(),
        Some(
            "Karpenter v1.4.1 rules (from deployment kube-system/karpenter image public.ecr.aws/karpenter/controller:1.4.3; \
             aws provider v1.4.3 → core v1.4.1); settings: defaults"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("Drift acts"), "core 1.4.1 runs Drift before Emptiness (#2180): {stdout}");
    // The flag wins over the Deployment.
    let output = support::bin()
        .args(["--snapshot", path.to_str().expect("utf-8"), "--karpenter-version", "1.14.1", "plan"])
        .output()
        .expect("run");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.starts_with("Karpenter v1.14.1 rules (from flag --karpenter-version)"), "{stdout}");
    assert!(stdout.contains("Emptiness acts"), "{stdout}");
}

#[test]
fn live_mode_reads_the_chart_labels_when_the_image_has_only_a_digest() {
    use crate::support::fake_apiserver::{Config, FakeApiServer};
    let mut objects = support::scenario_objects("own-version-method-order-v1.4.2");
    objects.push(controller(&format!("public.ecr.aws/karpenter/controller@{DIGEST}"), "1.0.14"));
    let server = FakeApiServer::start(Config::new(&objects));
    let output = support::run_against(&server, &["plan", "--now", "2026-11-29T10:00:00Z"]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "exit {:?}; stderr:\n{stderr}", output.status.code());
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(
        stdout.lines().next(),
        Some(
            "Karpenter v1.0.9 rules (from deployment kube-system/karpenter label app.kubernetes.io/version; \
             aws provider v1.0.14 → core v1.0.9); settings: defaults"
        ),
        "{stdout}\n{stderr}"
    );
}

#[test]
fn a_version_below_v1_is_refused_with_a_diagnostic() {
    let output = support::bin()
        .args([
            "--snapshot",
            &support::scenario_arg("own-version-method-order-v1.4.2"),
            "--karpenter-version",
            "0.37.0",
            "plan",
        ])
        .output()
        .expect("run");
    assert_eq!(output.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("older than v1.0.0") && stderr.contains("input::karpenter_version"), "{stderr}");
}

#[test]
fn an_object_the_version_s_crds_cannot_hold_is_warned_about() {
    let run = |version: &str| {
        let output = support::bin()
            .args([
                "--snapshot",
                &support::scenario_arg("seed-balanced-rejects-40pct-savings"),
                "--karpenter-version",
                version,
                "plan",
            ])
            .output()
            .expect("run");
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        String::from_utf8_lossy(&output.stderr).into_owned()
    };
    let old = run("1.13.0");
    assert!(
        old.contains("consolidationPolicy: Balanced is not in the Karpenter v1.13.0 CRD (from v1.14.0)"),
        "karpenter v1.13.0 pkg/apis/crds/karpenter.sh_nodepools.yaml: enum WhenEmpty, WhenEmptyOrUnderutilized\n{old}"
    );
    assert!(!run("1.14.0").contains("is not in the Karpenter"), "v1.14.0's CRD has Balanced");
}
