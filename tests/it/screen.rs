//! Every answer fits the screen: `COLUMNS` sets the width a terminal would give, tables give
//! their last column (WHY, MESSAGE) what the others leave and cut it with `…`, other lines wrap
//! under their indentation, `explain` moves the upstream references to a numbered list. Piped
//! without `COLUMNS` nothing is cut (the other golden tests).
//!
//! Goldens at 80 and 200 columns for `plan`, `explain`, `score`, `budgets` and `pdb-audit` on
//! the demo and two scenarios (a PDB-blocked node, a drift round), in
//! `tests/it/snapshots/screen/`; and, on every scenario, no line of those commands or of
//! `forecast` wider than the width.

use std::path::Path;

use serde_json::Value;

use crate::support::{bin, root, scenario_arg};

/// The three inputs: the flag that loads each, the node `explain` is asked about.
fn inputs() -> Vec<(&'static str, Vec<String>, &'static str)> {
    vec![
        ("demo", vec!["--demo".to_owned()], "node-x"),
        (
            "minavailable-blocks",
            vec!["--snapshot".to_owned(), scenario_arg("seed-incident-minavailable-blocks")],
            "node-x",
        ),
        ("drift", vec!["--snapshot".to_owned(), scenario_arg("karpenter-p9-drift-oldest-first")], "node-a"),
    ]
}

fn commands(node: &str) -> Vec<(&'static str, Vec<String>)> {
    let words = |w: &[&str]| w.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    vec![
        ("plan", words(&["plan"])),
        ("explain", words(&["explain", &format!("node/{node}")])),
        ("score", words(&["score", "nodepool/default"])),
        ("budgets", words(&["budgets"])),
        ("pdb-audit", words(&["pdb-audit", "-A"])),
    ]
}

fn run(args: &[String], columns: usize) -> String {
    let out = bin().args(args).args(["--color", "never"]).env("COLUMNS", columns.to_string()).output().expect("runs");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

fn too_wide(text: &str, columns: usize) -> Vec<String> {
    text.lines()
        .filter(|l| l.chars().count() > columns)
        .map(|l| format!("{} > {columns}: {l}", l.chars().count()))
        .collect()
}

#[test]
fn goldens_at_80_and_200_columns() {
    for (input, load, node) in inputs() {
        for (command, words) in commands(node) {
            for columns in [80, 200] {
                let args: Vec<String> = load.iter().cloned().chain(words.iter().cloned()).collect();
                let text = run(&args, columns);
                assert!(too_wide(&text, columns).is_empty(), "{:#?}", too_wide(&text, columns));
                insta::with_settings!({
                    snapshot_path => root().join("tests/it/snapshots/screen"),
                    prepend_module_to_snapshot => false,
                    description => format!("COLUMNS={columns} kubectl-consolidation {} --color never", args.join(" ")),
                    omit_expression => true,
                }, {
                    insta::assert_snapshot!(format!("{input}-{command}-{columns}"), text);
                });
            }
        }
    }
}

/// On every scenario, at three widths, every command's every line fits.
#[test]
fn no_line_exceeds_the_width_on_any_scenario() {
    let mut failures = Vec::new();
    let scenarios = std::fs::read_dir(root().join("tests/scenarios")).expect("scenarios");
    let mut names: Vec<String> =
        scenarios.map(|e| e.expect("entry").file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    for name in names {
        if !Path::new(&root().join("tests/scenarios").join(&name).join("snapshot.yaml")).exists() {
            continue;
        }
        let load = vec!["--snapshot".to_owned(), scenario_arg(&name)];
        let plan: Value = {
            let out = bin().args(&load).args(["plan", "-o", "json"]).output().expect("runs");
            serde_json::from_slice(&out.stdout).expect("plan JSON")
        };
        let first = &plan["nodes"][0];
        let mut runs = vec![
            vec!["plan".to_owned()],
            vec!["budgets".to_owned()],
            vec!["pdb-audit".to_owned(), "-A".to_owned()],
            vec!["forecast".to_owned()],
        ];
        if let Some(node) = first["name"].as_str() {
            runs.push(vec!["explain".to_owned(), format!("node/{node}")]);
        }
        if let Some(pool) = first["nodePool"].as_str() {
            runs.push(vec!["score".to_owned(), format!("nodepool/{pool}")]);
        }
        for words in runs {
            for columns in [60, 80, 120] {
                let args: Vec<String> = load.iter().cloned().chain(words.iter().cloned()).collect();
                let out = bin()
                    .args(&args)
                    .args(["--color", "never"])
                    .env("COLUMNS", columns.to_string())
                    .output()
                    .expect("runs");
                let text = String::from_utf8_lossy(&out.stdout);
                failures
                    .extend(too_wide(&text, columns).into_iter().map(|l| format!("{name} {}: {l}", words.join(" "))));
            }
        }
    }
    assert!(failures.is_empty(), "{} lines too wide:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn piped_without_columns_nothing_is_cut_and_refs_stay_on_their_lines() {
    let text =
        String::from_utf8(bin().args(["--demo", "explain", "node/node-x"]).output().expect("runs").stdout).unwrap();
    assert!(!text.contains('…'));
    assert!(text.contains("karpenter: pkg/controllers/disruption/types.go NewCandidate"), "{text}");
    assert!(!text.contains("References"));
    let narrow = run(&["--demo".into(), "explain".into(), "node/node-x".into()], 80);
    assert!(narrow.contains(" 1 Candidate  ✓ Candidate: passes every candidate gate  [1]"), "{narrow}");
    assert!(narrow.contains("  [1] karpenter: pkg/controllers/disruption/types.go NewCandidate"), "{narrow}");
    let wide = String::from_utf8(
        bin().args(["--demo", "explain", "node/node-x", "-o", "wide"]).env("COLUMNS", "80").output().unwrap().stdout,
    )
    .unwrap();
    assert!(
        wide.contains("gate  karpenter: pkg/controllers/disruption/types.go NewCandidate"),
        "-o wide keeps them inline"
    );
    let json: Value = serde_json::from_slice(
        &bin().args(["--demo", "explain", "node/node-x", "-o", "json"]).env("COLUMNS", "80").output().unwrap().stdout,
    )
    .unwrap();
    assert!(
        json["steps"][0]["findings"][0]["ref"].as_str().is_some_and(|r| r.contains("NewCandidate")),
        "JSON keeps every ref"
    );
}

#[test]
fn a_narrow_plan_keeps_node_verdict_and_why_and_cuts_with_an_ellipsis() {
    let text = run(&["--demo".into(), "plan".into()], 80);
    let header = text.lines().find(|l| l.starts_with("NODE")).expect("table header");
    assert!(header.contains("VERDICT") && header.ends_with("WHY"), "{header}");
    assert!(!header.contains("DISRUPTION"), "dropped first on a narrow screen: {header}");
    assert!(text.lines().any(|l| l.starts_with("node-0") && l.ends_with('…')), "{text}");
}
