//! Guards the shared acceptance cases: every folder in `tests/scenarios/` (snapshot.yaml +
//! expect.json) is replayed with the built binary, and its `-o json` report must match the
//! folder's partial `expect` under the rules of `tests/acceptance/check.py`, ported here. Each
//! replay also runs twice and must print byte-identical stdout (docs/DESIGN.md: deterministic).
//!
//! `ACCEPTANCE_FILTER=substring` runs only the scenarios whose folder name contains it;
//! `ACCEPTANCE_SCENARIOS=dir` replays another folder of scenarios (e.g. the shared copy).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use crate::support::{first_difference, BIN};

/// Keys that index a list of objects when the expectation gives a dict (check.py `INDEX_KEYS`).
const INDEX_KEYS: [&str; 4] = ["name", "node", "pdb", "nodePool"];
/// Fields a bare string matches against an object by (check.py `CODE_FIELDS + INDEX_KEYS`).
const ELEMENT_KEYS: [&str; 5] = ["code", "name", "node", "pdb", "nodePool"];

#[test]
fn every_scenario_matches_its_expectation_and_is_deterministic() {
    let folders = scenario_folders();
    assert!(!folders.is_empty(), "no scenario folder with an expect.json under {}", scenarios_dir().display());
    let failures = parallel_map(&folders, |folder| run_scenario(folder));
    let failed: Vec<String> = folders
        .iter()
        .zip(&failures)
        .filter(|(_, errors)| !errors.is_empty())
        .map(|(folder, errors)| format!("FAIL {}\n     {}", folder_name(folder), errors.join("\n     ")))
        .collect();
    assert!(failed.is_empty(), "{} of {} scenarios failed:\n{}", failed.len(), folders.len(), failed.join("\n"));
}

/// One scenario: the mismatches, empty when it passes.
fn run_scenario(folder: &Path) -> Vec<String> {
    let spec_path = folder.join("expect.json");
    let spec: Value = match std::fs::read_to_string(&spec_path).map(|t| serde_json::from_str(&t)) {
        Ok(Ok(spec)) => spec,
        Ok(Err(e)) => return vec![format!("{}: not JSON: {e}", spec_path.display())],
        Err(e) => return vec![format!("{}: {e}", spec_path.display())],
    };
    let args: Vec<String> = match spec.get("args") {
        None => vec!["plan".to_owned()],
        Some(Value::Array(args)) => {
            args.iter().map(|a| a.as_str().map_or_else(|| a.to_string(), str::to_owned)).collect()
        }
        Some(other) => return vec![format!("args: expected a list, got {other}")],
    };
    let expected_exit = spec.get("exitCode").and_then(Value::as_i64).unwrap_or(0);
    let timeout = Duration::from_secs(spec.get("timeout").and_then(Value::as_u64).unwrap_or(60));
    let mut command_line = vec!["--snapshot".to_owned(), folder.join("snapshot.yaml").display().to_string()];
    command_line.extend(args);
    command_line.extend(["-o".to_owned(), "json".to_owned()]);

    let first = match run(&command_line, timeout) {
        Ok(output) => output,
        Err(e) => return vec![e],
    };
    let mut errors = Vec::new();
    if first.code != Some(expected_exit) {
        let stderr = String::from_utf8_lossy(&first.stderr);
        return vec![format!(
            "exit code {:?} (expected {expected_exit}): {}",
            first.code,
            truncate(stderr.trim(), 400)
        )];
    }
    if let Some(expect) = spec.get("expect") {
        match serde_json::from_slice::<Value>(&first.stdout) {
            Ok(report) => {
                errors.extend(matches(expect, &report, ""));
                errors.extend(crate::savings_guard::violations(&report));
            }
            Err(e) => {
                errors.push(format!(
                    "stdout is not JSON ({e}): {}",
                    truncate(&String::from_utf8_lossy(&first.stdout), 300)
                ));
            }
        }
    }
    errors.extend(plan_guard(folder, timeout));
    match run(&command_line, timeout) {
        Ok(second) if second.stdout != first.stdout => {
            errors.push(format!(
                "not deterministic: a second run printed different bytes; {}",
                first_difference(&first.stdout, &second.stdout)
            ));
        }
        Ok(_) => {}
        Err(e) => errors.push(format!("second run: {e}")),
    }
    errors
}

/// Whatever the scenario asks, its `plan` report must pass the savings guard.
fn plan_guard(folder: &Path, timeout: Duration) -> Vec<String> {
    let argv = [
        "--snapshot".to_owned(),
        folder.join("snapshot.yaml").display().to_string(),
        "plan".into(),
        "-o".into(),
        "json".into(),
    ];
    match run(&argv, timeout).map(|r| serde_json::from_slice::<Value>(&r.stdout)) {
        Ok(Ok(report)) => crate::savings_guard::violations(&report).into_iter().map(|v| format!("plan: {v}")).collect(),
        Ok(Err(e)) => vec![format!("plan -o json is not JSON: {e}")],
        Err(e) => vec![format!("plan: {e}")],
    }
}

struct Run {
    code: Option<i64>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

fn run(argv: &[String], timeout: Duration) -> Result<Run, String> {
    let started = Instant::now();
    let output = assert_cmd::Command::new(BIN)
        .args(argv)
        .env_remove("NO_COLOR")
        .timeout(timeout)
        .output()
        .map_err(|e| format!("could not run {BIN}: {e}"))?;
    if output.status.code().is_none() && started.elapsed() >= timeout {
        return Err(format!("timed out after {timeout:?}: {}", argv.join(" ")));
    }
    Ok(Run { code: output.status.code().map(i64::from), stdout: output.stdout, stderr: output.stderr })
}

fn scenarios_dir() -> PathBuf {
    std::env::var_os("ACCEPTANCE_SCENARIOS")
        .map_or_else(|| crate::support::root().join("tests/scenarios"), PathBuf::from)
}

fn scenario_folders() -> Vec<PathBuf> {
    let filter = std::env::var("ACCEPTANCE_FILTER").unwrap_or_default();
    let mut folders: Vec<PathBuf> = std::fs::read_dir(scenarios_dir())
        .expect("tests/scenarios is readable")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.join("expect.json").is_file() && folder_name(path).contains(&filter))
        .collect();
    folders.sort();
    folders
}

fn folder_name(path: &Path) -> String {
    path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
}

/// Runs `f` over `items` on a few threads (the binary is the slow part), keeping the order.
fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let workers = std::thread::available_parallelism().map_or(2, std::num::NonZero::get).clamp(1, 4);
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..items.len()).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(item) = items.get(i) else { break };
                let result = f(item);
                results.lock().expect("no worker panicked")[i] = Some(result);
            });
        }
    });
    results.into_inner().expect("no worker panicked").into_iter().map(|r| r.expect("every item ran")).collect()
}

// ---- The matcher: a port of check.py's `match`, `match_commands` and helpers. ----

/// Returns the mismatches between the partial expectation `want` and the report `got`.
fn matches(want: &Value, got: &Value, path: &str) -> Vec<String> {
    match want {
        Value::Object(want) => match_object(want, got, path),
        Value::Array(want) => match_list(want, got, path),
        _ if close(want, got) => Vec::new(),
        _ => vec![format!("{path}: expected {}, got {}", dump(want, usize::MAX), dump(got, usize::MAX))],
    }
}

fn match_object(want: &Map<String, Value>, got: &Value, path: &str) -> Vec<String> {
    let indexed;
    let got = match got {
        Value::Array(items) => match index(items) {
            Some(map) => {
                indexed = map;
                &indexed
            }
            None => {
                return vec![format!("{path}: expected objects keyed by one of {INDEX_KEYS:?}, got {}", dump(got, 200))]
            }
        },
        Value::Object(map) => map,
        _ => return vec![format!("{path}: expected an object, got {}", dump(got, 200))],
    };
    let mut errors = Vec::new();
    for (key, value) in want {
        let here = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
        if let Some(base) = key.strip_suffix("Include").filter(|b| !b.is_empty()) {
            let Some(Value::Array(have)) = got.get(base) else {
                errors.push(format!(
                    "{here}: report has no list '{base}' (got {})",
                    dump(got.get(base).unwrap_or(&Value::Null), 200)
                ));
                continue;
            };
            for w in listed(value) {
                if !have.iter().any(|h| element_matches(w, h)) {
                    errors.push(format!("{here}: {} not found in {}", dump(w, usize::MAX), dump_list(have, 300)));
                }
            }
        } else if let Some(base) = key.strip_suffix("Exclude").filter(|b| !b.is_empty()) {
            let have: &[Value] = match got.get(base) {
                Some(Value::Array(have)) => have,
                None | Some(Value::Null) => &[],
                Some(other) => {
                    errors.push(format!("{here}: report's '{base}' is not a list: {}", dump(other, 200)));
                    continue;
                }
            };
            for w in listed(value) {
                if have.iter().any(|h| element_matches(w, h)) {
                    errors.push(format!("{here}: {} should not be in {}", dump(w, usize::MAX), dump_list(have, 300)));
                }
            }
        } else if let (Some(base), Value::Array(options)) = (key.strip_suffix("In").filter(|b| !b.is_empty()), value) {
            let actual = got.get(base).unwrap_or(&Value::Null);
            if !options.iter().any(|v| close(v, actual)) {
                errors.push(format!(
                    "{here}: {base}={} not one of {}",
                    dump(actual, usize::MAX),
                    dump(value, usize::MAX)
                ));
            }
        } else if key == "commands" {
            errors.extend(match_commands(value, got.get("commands"), &here));
        } else if let Some(actual) = got.get(key) {
            errors.extend(matches(value, actual, &here));
        } else {
            errors.push(format!("{here}: missing in report"));
        }
    }
    errors
}

fn match_list(want: &[Value], got: &Value, path: &str) -> Vec<String> {
    let Value::Array(got) = got else {
        return vec![format!("{path}: expected a list, got {}", dump(got, 200))];
    };
    if want.len() != got.len() {
        return vec![format!("{path}: expected {} items, got {}: {}", want.len(), got.len(), dump_list(got, 300))];
    }
    if want.iter().all(|w| !w.is_object() && !w.is_array()) {
        let sorted = |items: &[Value]| {
            let mut texts: Vec<String> = items.iter().map(Value::to_string).collect();
            texts.sort();
            texts
        };
        if sorted(want) != sorted(got) {
            return vec![format!(
                "{path}: expected {}, got {}",
                dump_list(want, usize::MAX),
                dump_list(got, usize::MAX)
            )];
        }
        return Vec::new();
    }
    want.iter().zip(got).enumerate().flat_map(|(i, (w, g))| matches(w, g, &format!("{path}[{i}]"))).collect()
}

/// `commands`: exactly as many as expected, each expected one matching a different reported
/// one; `candidates` compare as sets.
fn match_commands(want: &Value, got: Option<&Value>, path: &str) -> Vec<String> {
    let Some(Value::Array(got)) = got else {
        return vec![format!("{path}: report has no list of commands")];
    };
    let want = listed(want);
    if want.len() != got.len() {
        return vec![format!("{path}: expected {} commands, got {}: {}", want.len(), got.len(), dump_list(got, 400))];
    }
    let mut remaining: Vec<Value> = got.iter().map(normalise_command).collect();
    let mut errors = Vec::new();
    for (i, w) in want.iter().enumerate() {
        let w = normalise_command(w);
        match remaining.iter().position(|g| matches(&w, g, "").is_empty()) {
            Some(hit) => {
                remaining.remove(hit);
            }
            None => errors.push(format!(
                "{path}[{i}]: no reported command matches {}; got {}",
                dump(&w, usize::MAX),
                dump_list(&remaining, 400)
            )),
        }
    }
    errors
}

fn normalise_command(command: &Value) -> Value {
    let mut command = command.clone();
    if let Some(Value::Array(candidates)) = command.get_mut("candidates") {
        candidates.sort_by_key(|c| c.as_str().map_or_else(|| c.to_string(), str::to_owned));
    }
    command
}

/// A list of objects indexed by the first of [`INDEX_KEYS`] that every item has.
fn index(items: &[Value]) -> Option<Map<String, Value>> {
    INDEX_KEYS.iter().find_map(|key| {
        let keyed = !items.is_empty() && items.iter().all(|i| i.get(key).is_some());
        keyed.then(|| {
            items
                .iter()
                .map(|i| (i[key].as_str().map_or_else(|| i[key].to_string(), str::to_owned), i.clone()))
                .collect()
        })
    })
}

fn element_matches(want: &Value, item: &Value) -> bool {
    if want.is_object() {
        return item.is_object() && matches(want, item, "").is_empty();
    }
    if let Value::Object(item) = item {
        return ELEMENT_KEYS.iter().any(|k| item.get(*k).unwrap_or(&Value::Null) == want);
    }
    close(want, item)
}

/// Scalars match exactly; numbers within 1e-6 absolute or 1e-3 relative; booleans only booleans.
fn close(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (Some(x), Some(y)) = (x.as_f64(), y.as_f64()) else { return a == b };
            let diff = (x - y).abs();
            diff <= 1e-6 || diff <= 1e-3 * x.abs().max(y.abs())
        }
        _ => a == b,
    }
}

/// The expectation's list (a lone value counts as a list of one).
fn listed(value: &Value) -> &[Value] {
    match value {
        Value::Array(items) => items,
        other => std::slice::from_ref(other),
    }
}

fn dump(value: &Value, max: usize) -> String {
    truncate(&value.to_string(), max)
}

fn dump_list(items: &[Value], max: usize) -> String {
    truncate(&Value::Array(items.to_vec()).to_string(), max)
}

fn truncate(text: &str, max: usize) -> String {
    text.chars().take(max).collect()
}

// ---- The matcher must be able to fail. ----

mod matcher {
    use serde_json::json;

    use super::matches;

    fn report() -> serde_json::Value {
        json!({
            "method": "SingleNodeConsolidation",
            "commands": [
                {"reason": "Underutilized", "decision": "delete", "candidates": ["node-b", "node-a"], "savings": 0.192},
                {"reason": "Empty", "decision": "delete", "candidates": ["node-c"], "savings": 0.096}
            ],
            "nodes": [
                {"name": "node-a", "verdict": "Underutilized", "price": 0.096, "blockers": [],
                 "reasons": [{"code": "Underutilized", "message": "delete saves $0.0960/h"}]},
                {"name": "node-b", "verdict": "Blocked", "price": 0.096, "blockers": ["DoNotDisruptPod", "PDBBlocked"],
                 "reasons": [{"code": "DoNotDisruptPod", "message": "..."}]}
            ]
        })
    }

    #[test]
    fn a_partial_expectation_that_holds_matches() {
        let expect = json!({
            "method": "SingleNodeConsolidation",
            "commands": [
                {"reason": "Empty", "candidates": ["node-c"]},
                {"reason": "Underutilized", "candidates": ["node-a", "node-b"], "savings": 0.192_000_01}
            ],
            "nodes": {
                "node-a": {"verdictIn": ["Underutilized", "Empty"], "price": 0.096_000_1, "reasonsInclude": ["Underutilized"]},
                "node-b": {"blockersInclude": ["PDBBlocked"], "blockersExclude": ["NotManaged"], "reasonsExclude": [{"code": "Empty"}]}
            }
        });
        assert_eq!(matches(&expect, &report(), ""), Vec::<String>::new());
    }

    #[test]
    fn a_wrong_verdict_is_a_mismatch_that_names_its_path() {
        let errors = matches(&json!({"nodes": {"node-a": {"verdict": "Blocked"}}}), &report(), "");
        assert_eq!(errors, ["nodes.node-a.verdict: expected \"Blocked\", got \"Underutilized\""]);
    }

    #[test]
    fn every_rule_detects_its_mismatch() {
        let cases = [
            (json!({"method": "Drift"}), "method: expected \"Drift\""),
            (json!({"nodes": {"node-a": {"price": 0.1}}}), "nodes.node-a.price: expected 0.1, got 0.096"),
            (json!({"nodes": {"node-z": {}}}), "nodes.node-z: missing in report"),
            (json!({"nodes": {"node-b": {"blockersInclude": ["NotManaged"]}}}), "\"NotManaged\" not found in"),
            (json!({"nodes": {"node-b": {"blockersExclude": ["PDBBlocked"]}}}), "\"PDBBlocked\" should not be in"),
            (json!({"nodes": {"node-a": {"verdictIn": ["Safe", "Blocked"]}}}), "verdict=\"Underutilized\" not one of"),
            (json!({"nodes": {"node-a": {"blockers": ["X"]}}}), "expected 1 items, got 0"),
            (
                json!({"nodes": {"node-b": {"blockers": ["DoNotDisruptPod", "X"]}}}),
                "expected [\"DoNotDisruptPod\",\"X\"]",
            ),
            (json!({"commands": [{"reason": "Empty"}]}), "commands: expected 1 commands, got 2"),
            (
                json!({"commands": [{"reason": "Empty"}, {"reason": "Empty"}]}),
                "commands[1]: no reported command matches",
            ),
            (
                json!({"commands": [{"candidates": ["node-a"]}, {"candidates": ["node-c"]}]}),
                "commands[0]: no reported command matches",
            ),
            (json!({"method": {"name": "x"}}), "method: expected an object"),
            (json!({"kindInclude": ["Plan"]}), "kindInclude: report has no list 'kind'"),
        ];
        for (expect, needle) in cases {
            let errors = matches(&expect, &report(), "");
            assert!(errors.iter().any(|e| e.contains(needle)), "{expect} should report `{needle}`, got {errors:?}");
        }
    }

    #[test]
    fn numbers_are_compared_with_tolerance_and_booleans_strictly() {
        assert!(matches(&json!(1000.0), &json!(1000.9), "").is_empty(), "1e-3 relative");
        assert!(!matches(&json!(1000.0), &json!(1002.0), "").is_empty());
        assert!(matches(&json!(0.0), &json!(0.000_000_5), "").is_empty(), "1e-6 absolute");
        assert!(!matches(&json!(0.0), &json!(0.000_01), "").is_empty());
        assert!(matches(&json!(3), &json!(3.0), "").is_empty());
        assert!(!matches(&json!(true), &json!(1), "").is_empty());
        assert!(!matches(&json!(null), &json!(0), "").is_empty());
    }
}
