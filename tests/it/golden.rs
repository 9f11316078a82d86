//! Guards what people read: the rendered output of `explain`, `plan` (every format), `score` and
//! `budgets` for fixed inputs, byte for byte, as insta snapshots in `tests/it/snapshots/`.
//!
//! A change in wording, numbers or column layout fails here with insta's diff. Review the new
//! output with `cargo insta review` (or accept all with `INSTA_UPDATE=always cargo test --test it
//! golden`) and commit the changed `.snap` files with the change that caused them.

use crate::support::{bin, root, scenario_arg};

/// Declares one golden test: the snapshot `golden@<name>.snap` holds the stdout of
/// `kubectl-consolidation <args…> --color never`.
macro_rules! golden {
    ($($test:ident: $name:literal => [$($arg:expr),* $(,)?];)*) => {
        $(
            #[test]
            fn $test() {
                check($name, &[$($arg),*]);
            }
        )*

        /// Every snapshot name, to spot orphans.
        const NAMES: &[&str] = &[$($name),*];
    };
}

golden! {
    explain_blocked_by_do_not_disrupt_pod: "explain-blocked-do-not-disrupt-pod"
        => ["--snapshot", &scenario_arg("do-not-disrupt-pod"), "explain", "node/node-a"];
    explain_empty_node: "explain-empty-node"
        => ["--snapshot", &scenario_arg("karpenter-e1-delete-empty-nodes"), "explain", "node/node-a"];
    explain_drifted_node: "explain-drifted-node"
        => ["--snapshot", &scenario_arg("karpenter-p9-drift-oldest-first"), "explain", "node/node-b"];
    explain_karpenters_events_text: "explain-karpenters-events-text"
        => ["--snapshot", &scenario_arg("doctor-unconsolidatable-cheaper-node"), "explain", "node/node-a"];
    explain_karpenters_events_json: "explain-karpenters-events-json"
        => ["--snapshot", &scenario_arg("doctor-unconsolidatable-cheaper-node"), "explain", "node/node-a", "-o", "json"];
    explain_karpenters_events_markdown: "explain-karpenters-events-markdown"
        => ["--snapshot", &scenario_arg("doctor-unconsolidatable-cheaper-node"), "explain", "node/node-a", "-o", "markdown"];
    plan_demo_text: "plan-demo-text" => ["--demo", "plan"];
    diff_demo_two_replicas_text: "diff-demo-two-replicas-text" => ["--demo", "diff",
        "--set", "deployment/tenant-a/app-b.replicas=2", "--set", "deployment/tenant-a/app-c.replicas=2"];
    diff_upgrade_rule_markdown: "diff-upgrade-rule-markdown" => ["--snapshot",
        &scenario_arg("diff-upgrade-do-not-disrupt-duration"), "diff", "--karpenter-version", "1.12.0", "-o", "markdown"];
    diff_upgrade_rule_json: "diff-upgrade-rule-json" => ["--snapshot",
        &scenario_arg("diff-upgrade-do-not-disrupt-duration"), "diff", "--karpenter-version", "1.12.0", "-o", "json"];
    plan_demo_wide: "plan-demo-wide" => ["--demo", "plan", "-o", "wide"];
    plan_demo_json: "plan-demo-json" => ["--demo", "plan", "-o", "json"];
    plan_demo_yaml: "plan-demo-yaml" => ["--demo", "plan", "-o", "yaml"];
    plan_demo_markdown: "plan-demo-markdown" => ["--demo", "plan", "-o", "markdown"];
    plan_demo_two_replicas_text: "plan-demo-two-replicas-text" => ["--demo", "plan",
        "--set", "deployment/tenant-a/app-b.replicas=2", "--set", "deployment/tenant-a/app-c.replicas=2"];
    plan_demo_two_replicas_json: "plan-demo-two-replicas-json" => ["--demo", "plan",
        "--set", "deployment/tenant-a/app-b.replicas=2", "--set", "deployment/tenant-a/app-c.replicas=2", "-o", "json"];
    score_balanced_sparse_node: "score-balanced-sparse-node"
        => ["--snapshot", &scenario_arg("seed-balanced-sparse-node-passes"), "score", "nodepool/default"];
    budgets_zero_blocks_underutilized: "budgets-zero-blocks-underutilized"
        => ["--snapshot", &scenario_arg("budget-zero-blocks-underutilized"), "budgets"];
}

fn check(name: &str, args: &[&str]) {
    let output = bin().args(args).args(["--color", "never"]).env_remove("NO_COLOR").output().expect("the binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "`{}` exited {:?}: {stderr}", args.join(" "), output.status.code());
    assert!(stderr.is_empty(), "`{}` wrote to stderr: {stderr}", args.join(" "));
    let stdout = String::from_utf8(output.stdout).expect("stdout is UTF-8");
    insta::with_settings!({
        prepend_module_to_snapshot => false,
        description => format!("kubectl-consolidation {} --color never", args.join(" ")),
        omit_expression => true,
    }, {
        insta::assert_snapshot!(name, stdout);
    });
}

#[test]
fn every_snapshot_belongs_to_a_test() {
    let orphans: Vec<String> = std::fs::read_dir(root().join("tests/it/snapshots"))
        .expect("tests/it/snapshots is readable")
        .map(|e| e.expect("directory entry"))
        // `screen/` holds tests/it/screen.rs's goldens.
        .filter(|e| !e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|f| !NAMES.iter().any(|name| format!("{name}.snap") == *f))
        .collect();
    assert!(orphans.is_empty(), "snapshots without a test (delete them): {orphans:?}");
}
