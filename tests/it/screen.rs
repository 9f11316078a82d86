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

// ---- what used to hide information (issue 36, item 4), and the forecast's chart and the
// budgets' calendar (item 3): goldens at 80 and 120 columns and piped ----

/// The runs the layout goldens cover: the name of their snapshots, the arguments.
fn layout_runs() -> Vec<(&'static str, Vec<String>)> {
    let words = |w: &[&str]| w.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
    let windows = root().join("tests/fixtures/budget-windows.yaml").display().to_string();
    vec![
        // The chart and strips above the tables; the Timeline drops whole columns.
        ("forecast-demo", words(&["--demo", "forecast"])),
        // `--fixes`: each harmed workload's fixes, a fix shared by both shown in full once.
        ("forecast-demo-fixes", words(&["--demo", "forecast", "--fixes"])),
        (
            "forecast-drift",
            vec!["--snapshot".into(), scenario_arg("karpenter-p9-drift-oldest-first"), "forecast".into()],
        ),
        // Section titles go with --no-headers, and so do the chart and the notes.
        ("forecast-demo-no-headers", words(&["--demo", "forecast", "--no-headers"])),
        (
            "forecast-demo-compare-no-headers",
            words(&["--demo", "forecast", "--compare", "--no-headers", "--set", "pdb/tenant-a/app-b.minAvailable=1"]),
        ),
        // The week's calendar under the budgets table.
        ("budgets-windows", vec!["--snapshot".into(), windows, "budgets".into()]),
        // The audit's messages as prose under their rows.
        ("pdb-audit-demo", words(&["--demo", "pdb-audit", "-A"])),
        ("pdb-audit-demo-no-headers", words(&["--demo", "pdb-audit", "-A", "--no-headers"])),
        // Piped, WHY is whole; on a screen it is cut at the width.
        ("plan-demo", words(&["--demo", "plan"])),
        ("plan-demo-no-headers", words(&["--demo", "plan", "--no-headers"])),
        // --help wraps at the width and ends in examples.
        ("help", words(&["--help"])),
        ("help-forecast", words(&["forecast", "--help"])),
    ]
}

/// stdout of a run at `columns` (`None`: piped, no `COLUMNS`); stderr must stay empty: a piped
/// stderr gets no progress.
fn run_at(args: &[String], columns: Option<usize>) -> String {
    let mut cmd = bin();
    cmd.args(args).args(["--color", "never"]).env_remove("COLUMNS");
    if let Some(c) = columns {
        cmd.env("COLUMNS", c.to_string());
    }
    let out = cmd.output().expect("runs");
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stderr.is_empty(), "{args:?} wrote to a piped stderr: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn layout_goldens_at_80_and_120_columns_and_piped() {
    for (name, args) in layout_runs() {
        for columns in [Some(80), Some(120), None] {
            let text = run_at(&args, columns);
            let suffix = columns.map_or_else(|| "piped".to_owned(), |c| c.to_string());
            if let Some(c) = columns {
                assert!(too_wide(&text, c).is_empty(), "{name}: {:#?}", too_wide(&text, c));
            } else {
                assert!(!text.contains('…'), "{name}: piped output cuts nothing:\n{text}");
            }
            let env = columns.map_or_else(|| "(piped) ".to_owned(), |c| format!("COLUMNS={c} "));
            insta::with_settings!({
                snapshot_path => root().join("tests/it/snapshots/screen"),
                prepend_module_to_snapshot => false,
                description => format!("{env}kubectl-consolidation {} --color never", args.join(" ")),
                omit_expression => true,
            }, {
                insta::assert_snapshot!(format!("layout-{name}-{suffix}"), text);
            });
        }
    }
}

#[test]
fn piped_plan_keeps_every_why_whole() {
    let piped = run_at(&["--demo".into(), "plan".into()], None);
    assert!(piped.contains("cheapest worst-case launch price $0.1920/h"), "{piped}");
    let wide = run_at(&["--demo".into(), "plan".into(), "-o".into(), "wide".into()], None);
    let why = |text: &str| {
        text.lines()
            .find(|l| l.starts_with("node-0"))
            .map(|l| l.split("   ").last().unwrap_or_default().trim().to_owned())
    };
    assert_eq!(why(&piped), why(&wide), "piped text has -o wide's WHY");
}

#[test]
fn a_narrow_forecast_drops_whole_timeline_columns_and_says_which() {
    let text = run_at(&["--demo".into(), "forecast".into()], Some(80));
    let header = text.lines().find(|l| l.starts_with("ROUND")).expect("timeline header");
    assert!(!header.contains("BUDGET") && header.contains("COMMAND"), "{header}");
    assert!(text.contains("(not shown to fit the screen: BUDGET, CUMULATIVE/H; -o wide shows every column)"), "{text}");
    let row = text.lines().find(|l| l.starts_with("1 ")).expect("round 1");
    assert!(!row.contains('…'), "no cell is cut: {row}");
}

#[test]
fn no_headers_removes_section_titles_and_the_chart() {
    let text = run_at(&["--demo".into(), "forecast".into(), "--no-headers".into()], None);
    for title in ["Timeline", "End state per NodePool", "Workloads, most harmed first", "Nodes and $/h", "ROUND"] {
        assert!(!text.contains(title), "{title}:\n{text}");
    }
    assert!(text.contains("delete node-x"), "{text}");
}

#[test]
fn help_wraps_at_the_width_and_has_examples() {
    for columns in [60, 80] {
        let text = run_at(&["--help".into()], Some(columns));
        assert!(too_wide(&text, columns).is_empty(), "{:#?}", too_wide(&text, columns));
        assert!(text.contains("Examples:\n  # What Karpenter would do now"), "{text}");
    }
    for command in ["plan", "explain", "forecast", "budgets"] {
        let text = run_at(&[command.into(), "--help".into()], Some(80));
        assert!(text.contains("Examples:"), "{command} --help:\n{text}");
    }
}

#[test]
fn a_piped_stderr_gets_no_progress_in_any_text_command() {
    for args in [
        vec!["--demo", "plan"],
        vec!["--demo", "forecast"],
        vec!["--demo", "budgets"],
        vec!["--demo", "explain", "node/node-x"],
        vec!["--demo", "plan", "-o", "json"],
        vec!["--demo", "forecast", "-o", "yaml"],
    ] {
        let out = bin().args(&args).output().expect("runs");
        assert!(out.status.success(), "{args:?}");
        assert!(out.stderr.is_empty(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    }
}

// ---- README screens ----

/// A README screen: the fenced block that starts with `$ [COLUMNS=N] kubectl consolidation …`.
struct Screen {
    /// Byte range of the block's body (after the `$` line(s), before the closing fence).
    body: std::ops::Range<usize>,
    columns: Option<usize>,
    args: Vec<String>,
    /// Ends in a `…` line: an excerpt, whose lines must be the output's first lines.
    excerpt: bool,
}

fn screens(readme: &str) -> Vec<Screen> {
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(open) = readme[at..].find("```\n$ ").map(|i| at + i + 4) {
        let close = open + readme[open..].find("```\n").expect("closing fence");
        let block = &readme[open..close];
        let mut command = String::new();
        let mut body_start = open;
        for line in block.lines() {
            body_start += line.len() + 1;
            if let Some(head) = line.strip_suffix('\\') {
                command.push_str(head);
            } else {
                command.push_str(line);
                break;
            }
        }
        let words = shell_words(command.trim_start_matches("$ "));
        let (columns, rest): (Option<usize>, &[String]) = match words.first().and_then(|w| w.strip_prefix("COLUMNS=")) {
            Some(c) => (c.parse().ok(), &words[1..]),
            None => (None, &words[..]),
        };
        assert_eq!(&rest[..2], ["kubectl", "consolidation"], "README screen: {command}");
        let excerpt = block.trim_end().ends_with('…');
        out.push(Screen { body: body_start..close, columns, args: rest[2..].to_vec(), excerpt });
        at = close + 4;
    }
    out
}

/// Splits at spaces outside single quotes (the README's commands use no other quoting).
fn shell_words(s: &str) -> Vec<String> {
    let mut words = vec![String::new()];
    let mut quoted = false;
    for c in s.chars() {
        match c {
            '\'' => quoted = !quoted,
            ' ' if !quoted => words.push(String::new()),
            _ => words.last_mut().expect("a word").push(c),
        }
    }
    words.retain(|w| !w.is_empty());
    words
}

/// Every screen in README.md is what the binary prints (run from the repository's root, at the
/// screen's `COLUMNS`, piped when it names none). `UPDATE_README_SCREENS=1` rewrites them from
/// the binary instead; an excerpt (a block that ends in `…`) keeps its length.
#[test]
fn every_readme_screen_is_the_binarys_output() {
    let path = root().join("README.md");
    let readme = std::fs::read_to_string(&path).expect("README.md");
    let found = screens(&readme);
    assert!(found.len() >= 4, "README screens found: {}", found.len());
    let update = std::env::var_os("UPDATE_README_SCREENS").is_some();
    let mut rewritten = readme.clone();
    let mut drifted = Vec::new();
    for screen in found.iter().rev() {
        let mut cmd = bin();
        cmd.current_dir(root()).args(&screen.args).args(["--color", "never"]).env_remove("COLUMNS");
        if let Some(c) = screen.columns {
            cmd.env("COLUMNS", c.to_string());
        }
        let out = cmd.output().expect("runs");
        let printed = String::from_utf8(out.stdout).expect("UTF-8");
        let shown = &readme[screen.body.clone()];
        let expected = if screen.excerpt {
            let keep = shown.lines().count() - 1;
            let head: Vec<&str> = printed.lines().take(keep).collect();
            format!("{}\n…\n", head.join("\n"))
        } else {
            printed
        };
        if shown != expected {
            drifted.push(format!("$ {}", screen.args.join(" ")));
            rewritten.replace_range(screen.body.clone(), &expected);
        }
    }
    if update {
        std::fs::write(&path, rewritten).expect("README.md written");
        return;
    }
    assert!(drifted.is_empty(), "README screens drifted (UPDATE_README_SCREENS=1 rewrites them): {drifted:#?}");
}
