//! Guards what people read: the rendered output of `explain`, `plan` (every format), `score` and
//! `budgets` for fixed inputs, byte for byte, against plain files in `tests/golden/`.
//!
//! A change in wording, numbers or column layout fails here and shows the first differing
//! lines. Review the new output, then accept it with `UPDATE_GOLDEN=1 cargo test --test golden`
//! and commit the changed files with the change that caused them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const BIN: &str = env!("CARGO_BIN_EXE_kubectl-consolidation");
const UPDATE: &str = "UPDATE_GOLDEN";

/// Declares one golden test: the file `tests/golden/<name>.txt` holds the stdout of
/// `kubectl-consolidation <args…> --color never`.
macro_rules! golden {
    ($($test:ident: $file:literal => [$($arg:expr),* $(,)?];)*) => {
        $(
            #[test]
            fn $test() {
                check($file, &[$($arg),*]);
            }
        )*

        /// Every golden file name, to spot orphans.
        const FILES: &[&str] = &[$($file),*];
    };
}

golden! {
    explain_blocked_by_do_not_disrupt_pod: "explain-blocked-do-not-disrupt-pod"
        => ["--snapshot", &scenario("do-not-disrupt-pod"), "explain", "node/node-a"];
    explain_empty_node: "explain-empty-node"
        => ["--snapshot", &scenario("karpenter-e1-delete-empty-nodes"), "explain", "node/node-a"];
    explain_drifted_node: "explain-drifted-node"
        => ["--snapshot", &scenario("karpenter-p9-drift-oldest-first"), "explain", "node/node-b"];
    plan_demo_text: "plan-demo-text" => ["--demo", "plan"];
    plan_demo_wide: "plan-demo-wide" => ["--demo", "plan", "-o", "wide"];
    plan_demo_json: "plan-demo-json" => ["--demo", "plan", "-o", "json"];
    plan_demo_yaml: "plan-demo-yaml" => ["--demo", "plan", "-o", "yaml"];
    plan_demo_markdown: "plan-demo-markdown" => ["--demo", "plan", "-o", "markdown"];
    score_balanced_sparse_node: "score-balanced-sparse-node"
        => ["--snapshot", &scenario("seed-balanced-sparse-node-passes"), "score", "nodepool/default"];
    budgets_zero_blocks_underutilized: "budgets-zero-blocks-underutilized"
        => ["--snapshot", &scenario("budget-zero-blocks-underutilized"), "budgets"];
}

fn check(name: &str, args: &[&str]) {
    let output = assert_cmd::Command::new(BIN)
        .args(args)
        .args(["--color", "never"])
        .current_dir(root())
        .env_remove("NO_COLOR")
        .output()
        .expect("the binary runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "`{}` exited {:?}: {stderr}", args.join(" "), output.status.code());
    assert!(stderr.is_empty(), "`{}` wrote to stderr: {stderr}", args.join(" "));
    let actual = String::from_utf8(output.stdout).expect("stdout is UTF-8");
    let path = golden_path(name);
    if std::env::var_os(UPDATE).is_some_and(|v| v != "0") {
        std::fs::write(&path, &actual).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; create it with `{UPDATE}=1 cargo test --test golden`", path.display()));
    assert!(
        expected == actual,
        "`kubectl-consolidation {} --color never` differs from {}:\n{}\nIf the new output is right, accept it with `{UPDATE}=1 cargo test --test golden`.",
        args.join(" "),
        path.display(),
        diff(&expected, &actual)
    );
}

#[test]
fn every_golden_file_belongs_to_a_test() {
    let orphans: Vec<String> = std::fs::read_dir(root().join("tests/golden"))
        .expect("tests/golden is readable")
        .map(|e| e.expect("directory entry").file_name().to_string_lossy().into_owned())
        .filter(|f| !FILES.iter().any(|name| format!("{name}.txt") == *f))
        .collect();
    assert!(orphans.is_empty(), "golden files without a test (delete them): {orphans:?}");
}

#[test]
fn the_diff_shows_the_first_differing_lines() {
    let shown = diff("a\nb\nc\nd\n", "a\nb\nX\nd\ne\n");
    assert!(shown.contains("-    3 | c\n+    3 | X"), "{shown}");
    assert!(shown.contains("+    5 | e"), "{shown}");
    assert!(shown.contains("   2 | b"), "context line: {shown}");
}

/// A short line diff: each differing line (up to 12), with one line of context before the first.
fn diff(expected: &str, actual: &str) -> String {
    let (old, new): (Vec<&str>, Vec<&str>) = (expected.lines().collect(), actual.lines().collect());
    let mut out = String::new();
    let mut shown = 0;
    for i in 0..old.len().max(new.len()) {
        let (o, n) = (old.get(i), new.get(i));
        if o == n {
            continue;
        }
        if shown == 0 && i > 0 {
            let _ = writeln!(out, "  {:>4} | {}", i, old[i - 1]);
        }
        if let Some(o) = o {
            let _ = writeln!(out, "- {:>4} | {o}", i + 1);
        }
        if let Some(n) = n {
            let _ = writeln!(out, "+ {:>4} | {n}", i + 1);
        }
        shown += 1;
        if shown == 12 {
            out.push_str("  … (more differences)\n");
            break;
        }
    }
    if out.is_empty() {
        out.push_str("  (the lines match; the difference is in line endings or the final newline)\n");
    }
    out
}

fn scenario(name: &str) -> String {
    format!("tests/scenarios/{name}/snapshot.yaml")
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn golden_path(name: &str) -> PathBuf {
    root().join("tests/golden").join(format!("{name}.txt"))
}
