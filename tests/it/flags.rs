//! Flags and errors behave as kubectl's do: `-l`, `-n`, `-A` on `plan`, `score` and `budgets`;
//! `explain pod/X` in a namespace or all; `--set` checked before anything is read; fixes that run
//! and are safe; errors whose first line says what went wrong; the README's sample output.

use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;
use serde_json::Value;

use crate::support::{bin, root, scenario_arg};

fn json(args: &[&str]) -> Value {
    let out = bin().args(args).output().expect("the binary runs");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

fn names(doc: &Value, list: &str, field: &str) -> Vec<String> {
    doc[list].as_array().unwrap().iter().map(|n| n[field].as_str().unwrap().to_owned()).collect()
}

// ---- -l, -n, -A on plan, score, budgets ----

#[test]
fn plan_keeps_the_nodes_a_label_selector_matches() {
    let doc = json(&["--demo", "plan", "-l", "kubernetes.io/hostname in (node-x,node-3)", "-o", "json"]);
    assert_eq!(names(&doc, "nodes", "name"), ["node-3", "node-x"]);
    assert_eq!(doc["selection"], "-l kubernetes.io/hostname in (node-x,node-3): 2 of 10 nodes");
    assert_eq!(doc["commands"][0]["candidates"][0], "node-x", "the round itself is the whole cluster's");
}

#[test]
fn dash_n_keeps_the_nodes_hosting_pods_of_the_namespace_and_dash_a_keeps_all() {
    let mut docs = std::fs::read_to_string(root().join("src/source/demo.yaml")).unwrap();
    // Move batch-0 into its own namespace: only node-0 hosts a pod of it.
    docs = docs.replacen(
        "    name: batch-0\n    namespace: tenant-a\n",
        "    name: batch-0\n    namespace: tenant-b\n",
        1,
    );
    let run = |extra: &[&str]| -> Value {
        let out = bin()
            .args(["--snapshot", "-", "plan", "-o", "json"])
            .args(extra)
            .write_stdin(docs.clone())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    assert_eq!(names(&run(&["-n", "tenant-b"]), "nodes", "name"), ["node-0"]);
    assert_eq!(run(&["-n", "tenant-b", "-A"])["nodes"].as_array().unwrap().len(), 10);
    assert_eq!(run(&[])["nodes"].as_array().unwrap().len(), 10, "plan is cluster-wide without -n");
}

#[test]
fn score_and_budgets_honour_the_selection() {
    let score = json(&["--demo", "score", "nodepool/default", "-l", "kubernetes.io/hostname=node-x", "-o", "json"]);
    assert_eq!(names(&score, "candidates", "node"), ["node-x"]);
    let budgets = json(&["--demo", "budgets", "-l", "kubernetes.io/hostname=node-x", "-o", "json"]);
    assert_eq!(budgets["nodePools"].as_array().unwrap().len(), 1);
    let none = json(&["--demo", "budgets", "-l", "karpenter.sh/nodepool=other", "-o", "json"]);
    assert!(none["nodePools"].as_array().unwrap().is_empty());
}

#[test]
fn an_invalid_selector_is_exit_2_on_plan_score_and_budgets() {
    for command in [&["plan"][..], &["score", "nodepool/default"], &["budgets"], &["pdb-audit"]] {
        bin()
            .arg("--demo")
            .args(command)
            .args(["-l", "app in (web"])
            .assert()
            .code(2)
            .stderr(contains("-l app in (web"));
    }
}

// ---- explain pod/X ----

#[test]
fn explain_pod_searches_the_namespace_or_all_and_says_where_it_looked() {
    let doc = json(&["--demo", "explain", "pod/app-b-7c9d-x1", "-A", "-o", "json"]);
    assert_eq!(doc["name"], "node-x");
    assert_eq!(doc["lookedUp"], "pod tenant-a/app-b-7c9d-x1 runs on node node-x (looked in every namespace)");
    bin()
        .args(["--demo", "explain", "pod/app-b-7c9d-x1", "-n", "tenant-a"])
        .assert()
        .success()
        .stdout(contains("pod tenant-a/app-b-7c9d-x1 runs on node node-x (looked in namespace tenant-a)"));
    bin()
        .args(["--demo", "explain", "pod/app-b-7c9d-x1"])
        .assert()
        .code(1)
        .stderr(contains("looked in namespace default"))
        .stderr(contains("it is in tenant-a/app-b-7c9d-x1: add -n"))
        .stderr(contains("tenant-a (or -A)"));
    bin()
        .args(["--demo", "explain", "pod/nothing", "-A"])
        .assert()
        .code(1)
        .stderr(contains("looked in every namespace"));
}

// ---- --set ----

#[test]
fn set_values_are_checked_before_anything_is_read() {
    for bad in ["budgets=abc", "budgets=200%", "consolidateAfter=soon", "colour=blue"] {
        // The snapshot does not exist: a value error must come first, as exit 2.
        bin()
            .args(["--snapshot", "/does/not/exist.yaml", "--set", bad, "plan"])
            .assert()
            .code(2)
            .stderr(contains(format!("--set {bad}")))
            .stderr(contains("valid forms: consolidationPolicy="));
    }
    bin().args(["--demo", "--set", "budgets=100%", "plan"]).assert().success();
}

// ---- fixes ----

#[test]
fn fixes_are_runnable_and_safe() {
    let demo = bin().args(["--demo", "pdb-audit", "-A", "--fixes", "all"]).output().unwrap();
    let text = String::from_utf8(demo.stdout).unwrap();
    assert!(!text.contains("scale replicaset"), "the owning Deployment, not its ReplicaSet:\n{text}");
    let first_fix = text.split("\n1. ").nth(1).expect("a first fix");
    assert!(
        first_fix.lines().nth(1).unwrap().contains("raise replicas to 2 and add a topology spread"),
        "a single replica's first fix is two replicas spread:\n{first_fix}"
    );
    assert!(first_fix.contains("pins the node"), "the minAvailable: 1 alternative says it pins the node");
    let blocks = bin()
        .args(["--snapshot", &scenario_arg("karpenter-a4-pdb-blocks"), "pdb-audit", "-A", "--fixes", "all"])
        .output()
        .unwrap();
    let text = String::from_utf8(blocks.stdout).unwrap();
    assert!(text.contains("DaemonSet/default/agent"), "{text}");
    assert!(!text.to_lowercase().contains("scale daemonset"), "kubectl can't scale a DaemonSet:\n{text}");
}

#[test]
fn info_findings_are_listed_as_fixes_only_when_asked() {
    let plain = String::from_utf8(bin().args(["--demo", "pdb-audit", "-A"]).output().unwrap().stdout).unwrap();
    assert!(!plain.contains("NoPDB\n"), "no NoPDB fix by default:\n{plain}");
    assert!(plain.contains("--fixes all lists them"));
    let all = String::from_utf8(bin().args(["--demo", "pdb-audit", "-A", "--fixes", "all"]).output().unwrap().stdout)
        .unwrap();
    assert!(all.contains("Deployment/tenant-a/batch-0 NoPDB"), "{all}");
    let json = json(&["--demo", "pdb-audit", "-A", "-o", "json"]);
    assert!(
        json["findings"].as_array().unwrap().iter().all(|f| f["fix"].is_object() || f["fix"].is_string()),
        "JSON keeps every fix"
    );
}

// ---- errors ----

#[test]
fn an_error_says_what_went_wrong_first_and_its_code_last() {
    let out = bin().args(["--snapshot", "/does/not/exist.yaml", "plan"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let first = stderr.lines().find(|l| !l.trim().is_empty()).unwrap();
    assert!(first.contains("could not read `/does/not/exist.yaml`"), "{stderr}");
    assert!(!first.contains("input::"), "{stderr}");
    assert!(stderr.contains("(error code input::io)"), "{stderr}");
}

#[test]
fn a_missing_output_directory_gets_a_hint_about_the_directory() {
    bin()
        .args(["--demo", "snapshot", "-o", "/no/such/dir/out.yaml"])
        .assert()
        .code(1)
        .stderr(contains("could not write `/no/such/dir/out.yaml`"))
        .stderr(contains("does not exist"))
        .stderr(contains("stdin").not());
}

// ---- the README ----

/// The sample in the README is what the binary prints at 100 columns.
#[test]
fn the_readme_sample_is_the_binarys_output() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let command = "$ COLUMNS=100 kubectl consolidation plan --demo\n";
    let start = readme.find(command).expect("README has the plan sample") + command.len();
    let sample = &readme[start..start + readme[start..].find("```\n").expect("the sample's fence")];
    let out = bin().args(["--demo", "plan", "--color", "never"]).env("COLUMNS", "100").output().unwrap();
    let printed = String::from_utf8(out.stdout).unwrap();
    assert_eq!(sample, printed, "README.md's sample drifted: paste the new output between the fences");
}
