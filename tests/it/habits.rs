//! kubectl's habits, through the binary: `-o name` and `-o jsonpath=…` as kubectl reads them,
//! `version`, the warning for a `-n` namespace without pods, colour by the environment's
//! conventions, one error style (kubectl's `error:` line, miette's detail below), and money
//! without float noise in every document (docs/DESIGN.md, "Money in documents").

use serde_json::Value;

use crate::support::bin as cmd;

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn run(args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut command = cmd();
    command.args(args);
    for (k, v) in env {
        command.env(k, v);
    }
    let output = command.output().expect("the binary runs");
    Run {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn ok(args: &[&str]) -> Run {
    let r = run(args, &[]);
    assert_eq!(r.code, Some(0), "`{}`: {}", args.join(" "), r.stderr);
    r
}

fn json(args: &[&str]) -> Value {
    let mut all = args.to_vec();
    all.extend(["-o", "json"]);
    serde_json::from_str(&ok(&all).stdout).unwrap_or_else(|e| panic!("`{}`: not JSON: {e}", args.join(" ")))
}

/// Every command that prints a document, on the demo.
const DOCUMENTS: [&[&str]; 8] = [
    &["--demo", "plan"],
    &["--demo", "explain", "node/node-x"],
    &["--demo", "score", "nodepool/default"],
    &["--demo", "pdb-audit", "-A"],
    &["--demo", "budgets"],
    &["--demo", "instance-types", "nodepool/default"],
    &["--demo", "forecast"],
    &["--demo", "doctor"],
];

// ---- money ----

/// $/h fields (6 decimals) and $/month fields (2), as docs/DESIGN.md lists them.
const HOURLY: [&str; 11] = [
    "price",
    "pricePerHour",
    "savings",
    "candidatesPrice",
    "replacementCost",
    "worstPrice",
    "cheapestPrice",
    "poolCost",
    "costBefore",
    "costAfter",
    "cumulativeSavings",
];
const MONTHLY: [&str; 2] = ["savingsPerMonth", "pricePerMonth"];

fn decimals(n: &serde_json::Number) -> usize {
    let text = n.to_string();
    text.split_once('.').map_or(0, |(_, d)| d.trim_end_matches(|c: char| !c.is_ascii_digit()).len())
}

/// (field, value, decimals allowed) of every money figure with more decimals than its kind allows.
fn noisy(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, v) in map {
                let limit = if HOURLY.contains(&key.as_str()) {
                    Some(6)
                } else if MONTHLY.contains(&key.as_str()) {
                    Some(2)
                } else {
                    None
                };
                if let (Some(limit), Value::Number(n)) = (limit, v) {
                    if decimals(n) > limit {
                        out.push(format!("{key}: {n} (at most {limit} decimals)"));
                    }
                }
                noisy(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| noisy(v, out)),
        _ => {}
    }
}

#[test]
fn money_fields_carry_no_float_noise_in_any_document() {
    for args in DOCUMENTS {
        let mut found = Vec::new();
        noisy(&json(args), &mut found);
        assert!(found.is_empty(), "`{}`: {found:?}", args.join(" "));
    }
    // Ten nodes at $0.192/h summed to 1.9199999999999997 before (issue #36).
    let plan = json(&["--demo", "plan"]);
    assert_eq!(plan["summary"]["nodePools"][0]["pricePerHour"], serde_json::json!(1.92));
    let yaml = ok(&["--demo", "plan", "-o", "yaml"]).stdout;
    assert!(yaml.contains("pricePerHour: 1.92\n"), "{yaml}");
}

// ---- -o name ----

#[test]
fn output_name_prints_kubectls_resource_slash_name() {
    let plan = json(&["--demo", "plan"]);
    let mut expected = String::new();
    for node in plan["nodes"].as_array().expect("nodes") {
        expected.push_str("node/");
        expected.push_str(node["name"].as_str().expect("a name"));
        expected.push('\n');
    }
    assert_eq!(ok(&["--demo", "plan", "-o", "name"]).stdout, expected);
    assert_eq!(ok(&["--demo", "explain", "node/node-x", "-o", "name"]).stdout, "node/node-x\n");
    assert_eq!(ok(&["--demo", "budgets", "-o", "name"]).stdout, "nodepool.karpenter.sh/default\n");
    let audit = ok(&["--demo", "pdb-audit", "-A", "-o", "name"]).stdout;
    assert!(audit.lines().any(|l| l == "poddisruptionbudget.policy/app-b"), "{audit}");
    assert!(
        audit.lines().all(|l| l.split_once('/').is_some_and(|(r, n)| !r.is_empty() && !n.contains('/'))),
        "{audit}"
    );
    let refused = run(&["--demo", "instance-types", "nodepool/default", "-o", "name"], &[]);
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
    assert!(refused.stderr.starts_with("error: -o name: instance-types lists instance types"), "{}", refused.stderr);
}

// ---- -o jsonpath ----

#[test]
fn output_jsonpath_reads_kubectls_templates() {
    let plan = json(&["--demo", "plan"]);
    let names: Vec<&str> = plan["nodes"].as_array().expect("nodes").iter().filter_map(|n| n["name"].as_str()).collect();
    let listed = ok(&["--demo", "plan", "-o", "jsonpath={.nodes[*].name}"]).stdout;
    assert_eq!(listed, names.join(" "), "results separated by a space, no newline added (as kubectl)");
    let ranged =
        ok(&["--demo", "plan", "-o", r#"jsonpath={range .nodes[*]}{.name}{"\t"}{.verdict}{"\n"}{end}"#]).stdout;
    assert_eq!(ranged.lines().count(), names.len());
    assert!(ranged.lines().any(|l| l == "node-x\tUnderutilized"), "{ranged}");
    assert_eq!(ok(&["--demo", "plan", "-o", "jsonpath={.summary.savingsPerMonth}"]).stdout, "140.16");
    let filtered = ok(&["--demo", "plan", "-o", r#"jsonpath={.nodes[?(@.verdict=="Underutilized")].name}"#]).stdout;
    assert_eq!(filtered, "node-x");
    // A key that is not there prints nothing (kubectl's --allow-missing-template-keys=true).
    assert_eq!(ok(&["--demo", "plan", "-o", "jsonpath=[{.nope}]"]).stdout, "[]");
    let broken = run(&["--demo", "plan", "-o", "jsonpath={.nodes[*].name"], &[]);
    assert_eq!(broken.code, Some(2), "{}", broken.stderr);
    assert!(broken.stderr.starts_with("error: -o jsonpath: unclosed action"), "{}", broken.stderr);
    let empty = run(&["--demo", "plan", "-o", "jsonpath="], &[]);
    assert_eq!(empty.code, Some(2), "{}", empty.stderr);
}

// ---- version ----

#[test]
fn version_names_the_client_the_rules_and_the_build() {
    let text = ok(&["version"]).stdout;
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(format!("Client Version: v{}", env!("CARGO_PKG_VERSION")).as_str()), "{text}");
    assert!(text.contains("Rules Replayed: Karpenter core v1.0.0 to v1.14.1"), "{text}");
    let doc = json(&["version"]);
    assert_eq!(doc["kind"], "Version");
    assert_eq!(doc["clientVersion"]["gitVersion"], format!("v{}", env!("CARGO_PKG_VERSION")));
    assert!(doc["clientVersion"]["platform"].as_str().is_some_and(|p| p.contains('-')), "{doc}");
    let pinned = json(&["version", "--karpenter-version", "1.12.1"]);
    assert_eq!(pinned["rules"]["replayed"], "v1.12.1");
    // Core has no v1.12.3 tag: the release before it is replayed, and the user is told.
    let unreleased = run(&["version", "--karpenter-version", "1.12.3", "-o", "json"], &[]);
    assert_eq!(unreleased.code, Some(0), "{}", unreleased.stderr);
    let doc: Value = serde_json::from_str(&unreleased.stdout).expect("JSON");
    assert_eq!(doc["rules"]["replayed"], "v1.12.1", "{doc}");
    assert!(doc["rules"]["from"].as_str().is_some_and(|f| f.contains("never released")), "{doc}");
    let refused = run(&["version", "--karpenter-version", "0.37.0"], &[]);
    assert_eq!(refused.code, Some(2), "{}", refused.stderr);
}

// ---- -n ----

#[test]
fn a_namespace_without_pods_is_warned_about() {
    let r = ok(&["--demo", "plan", "-n", "tenant-z"]);
    assert!(
        r.stderr.contains("warning: no pods in namespace `tenant-z` in the snapshot (namespaces with pods: tenant-a)"),
        "{}",
        r.stderr
    );
    assert!(!ok(&["--demo", "plan", "-n", "tenant-a"]).stderr.contains("no pods in namespace"));
    assert!(!ok(&["--demo", "plan", "-n", "tenant-z", "-A"]).stderr.contains("no pods in namespace"));
}

// ---- colour ----

#[test]
fn colour_follows_the_environments_conventions() {
    let escapes = |env: &[(&str, &str)]| run(&["--demo", "plan"], env).stdout.contains('\u{1b}');
    // Piped: no colour unless forced.
    assert!(!escapes(&[]));
    assert!(escapes(&[("CLICOLOR_FORCE", "1")]));
    assert!(!escapes(&[("CLICOLOR_FORCE", "0")]));
    assert!(escapes(&[("FORCE_COLOR", "1")]));
    assert!(escapes(&[("FORCE_COLOR", "3"), ("TERM", "dumb")]), "forcing wins over TERM=dumb");
    assert!(!escapes(&[("FORCE_COLOR", "0")]));
    assert!(!escapes(&[("FORCE_COLOR", "1"), ("NO_COLOR", "1")]), "NO_COLOR wins");
    // Every command's text, version's too.
    for args in DOCUMENTS.iter().map(|a| a.to_vec()).chain([vec!["version"]]) {
        let r = run(&args, &[("CLICOLOR_FORCE", "1")]);
        assert!(r.stdout.contains('\u{1b}'), "`{}` printed no colour when forced", args.join(" "));
    }
}

// ---- one error style ----

#[test]
fn every_error_starts_with_kubectls_error_line() {
    let failing: [&[&str]; 7] = [
        &["--snapshot", "/no/such/snapshot.yaml", "plan"],
        &["--snapshot", "tests/bad-input/t3-n35-name-integer.yaml", "plan"],
        &["--demo", "plan", "--bogus"],
        &["--demo", "plan", "-o", "sideways"],
        &["--demo", "score", "node/node-x"],
        &["--demo", "explain", "pod/nope"],
        &["--demo", "--pod-startup", "soon", "plan"],
    ];
    for args in failing {
        let r = run(args, &[]);
        assert!(matches!(r.code, Some(1 | 2)), "`{}` exited {:?}", args.join(" "), r.code);
        let first = r.stderr.lines().next().unwrap_or_default();
        assert!(first.starts_with("error: "), "`{}`: {}", args.join(" "), r.stderr);
        assert!(!first.contains("::") && !first.contains("error code"), "a code in the first line: {first}");
        assert!(!r.stderr.contains(":0:0"), "an unknown place printed as 0:0: {}", r.stderr);
        let last = r.stderr.lines().last().unwrap_or_default();
        assert!(
            last.contains("(error code ") || last.contains("--help' for help and examples."),
            "`{}`: the detail ends with the code or the help pointer: {}",
            args.join(" "),
            r.stderr
        );
    }
    let value = run(&["--demo", "--pod-startup", "soon", "plan"], &[]);
    assert!(
        value.stderr.contains("\n  help: --pod-startup: How long a new pod takes"),
        "the flag's own words: {}",
        value.stderr
    );
    assert!(value.stderr.contains("See 'kubectl consolidation plan --help'"), "{}", value.stderr);
}
