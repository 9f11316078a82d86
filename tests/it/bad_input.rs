//! Hostile and broken input, run through the binary: every file under `tests/bad-input/` with
//! its exit code, a message that names the place, under a time bound and an address-space
//! bound. None may panic (101), abort (134), be killed, or hang.
//!
//! The files are the reproducers of issue 12 (`../shared/repro/bad-input/`), kept in
//! `tests/bad-input/` so that
//! a regression fails `cargo test`.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Generous for a debug build on a shared machine; a hang is minutes, not seconds.
const TIME_BOUND: Duration = Duration::from_secs(60);
/// Address space, KiB (`ulimit -v`): the alias bomb once took more than 6 GiB.
const MEMORY_BOUND_KIB: u64 = 2 << 20;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad-input")
}

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

/// Runs `script` (a shell line; `$B` is the binary, `$D` the bad-input folder) under the
/// memory bound, killing it past the time bound. It runs from the package root with `$D`
/// relative, so a diagnostic's path (and where miette wraps it) is the same in every clone.
fn run(script: &str) -> Run {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_BOUND_KIB}; {script}"))
        .env("B", env!("CARGO_BIN_EXE_kubectl-consolidation"))
        .env("D", "tests/bad-input")
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run sh");
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let readers = (
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = out.read_to_string(&mut s);
            s
        }),
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = err.read_to_string(&mut s);
            s
        }),
    );
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > TIME_BOUND {
            let _ = child.kill();
            panic!("`{script}` did not finish within {TIME_BOUND:?}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Run { code: status.code(), stdout: readers.0.join().unwrap(), stderr: readers.1.join().unwrap() }
}

/// One row: the file, the exit code, and what the output must say (the place, for errors).
fn check(file: &str, code: i32, says: &[&str]) {
    let r = run(&format!("exec \"$B\" --snapshot \"$D/{file}\" --color never plan"));
    let output = format!("{}{}", r.stdout, r.stderr);
    assert!(!output.contains("panicked") && !output.contains("stack overflow"), "{file}: {output}");
    assert_eq!(r.code, Some(code), "{file}: exit {:?}\n{output}", r.code);
    let said = unwrapped(&output);
    for needle in says {
        assert!(said.contains(needle), "{file}: `{needle}` missing from\n{output}");
    }
    if code != 0 {
        // A window around the error, never a whole (possibly gigabyte) line.
        assert!(r.stderr.lines().all(|l| l.len() < 400), "{file}: a long line on stderr");
    }
}

#[test]
fn the_bad_input_table() {
    let table: &[(&str, i32, &[&str])] = &[
        ("02c-alias-1MiB-x10000.yaml", 1, &["02c-alias-1MiB-x10000.yaml:488:9", "aliases"]),
        ("05-non-utf8-label.yaml", 1, &["05-non-utf8-label.yaml:198:28", "invalid UTF-8"]),
        ("06b-bom.json", 0, &["SingleNodeConsolidation acts"]),
        ("08b-dup-key-name.json", 1, &["08b-dup-key-name.json:310:24", "duplicate field `name`"]),
        ("09f-yaml-negative-prices.yaml", 1, &["09f-yaml-negative-prices.yaml:96:5", "offerings[0].price"]),
        ("11g-no-kind.yaml", 1, &["11g-no-kind.yaml:193:5", "has no kind"]),
        (
            "14-two-nodes-one-providerid.yaml",
            1,
            &["14-two-nodes-one-providerid.yaml:321:5", "providerID of Node `node-a`"],
        ),
        ("14c-duplicate-node-object.yaml", 1, &["14c-duplicate-node-object.yaml:194:5", "appears twice"]),
        ("22-long-line-65540.json", 1, &["22-long-line-65540.json:1:65567", "key must be a string"]),
        ("23-minified-bad-quantity.json", 1, &["23-minified-bad-quantity.json:1:91563", "Kubernetes quantity"]),
        ("baseline.yaml", 0, &["Underutilized delete: node-b"]),
        ("deep-30000.json", 1, &["deep-30000.json:1:240", "nested more than 128 levels deep"]),
        ("deep-lists-30000.json", 1, &["deep-lists-30000.json:1:2689", "nested more than 128 levels deep"]),
        ("gt-lt-moderate-control.yaml", 0, &["Underutilized replace: node-b"]),
        // Same verdict as the control: `Gt -2` and `Lt 9223372036854775807` intersect.
        ("gt-lt-near-i64-limit.yaml", 0, &["Underutilized replace: node-b"]),
        // 1e2147483647 CPUs (it once read as 1m, then as a pod that fits nowhere): the API server
        // refuses a quantity beyond int64, and so does the snapshot reader now.
        ("quantity-exponent-overflow.yaml", 1, &["quantity-exponent-overflow.yaml:469:11", "larger than any quantity"]),
        ("redact-tie-changes-verdict.json", 0, &["MultiNodeConsolidation acts"]),
        // Pods of two revisions of one Deployment, ReplicaSets unreadable (`tests/it/redaction.rs`).
        ("redact-derived-deployment.yaml", 0, &["PDBBlocked"]),
        // Values the API server would refuse: a clear error at the field, never a silent guess.
        ("t3-n01-dup-pod-uid.yaml", 1, &["t3-n01-dup-pod-uid.yaml:486:5", "has the uid of Pod"]),
        (
            "t3-n06-claim-providerid-other-node.yaml",
            1,
            &["t3-n06-claim-providerid-other-node.yaml:371:5", "but its providerID"],
        ),
        ("t3-n11-cpu-1e300.yaml", 1, &["t3-n11-cpu-1e300.yaml:468:11", "larger than any quantity Kubernetes stores"]),
        (
            "t3-n39-replicas-negative-hpa-min-gt-max.yaml",
            1,
            &["t3-n39-replicas-negative-hpa-min-gt-max.yaml:488:5", "negative replica count"],
        ),
        (
            "t3-n41-spread-maxskew-zero-negative.yaml",
            1,
            &["t3-n41-spread-maxskew-zero-negative.yaml:475:7", "maxSkew below 1"],
        ),
        ("t3-n43-prices-1e300.yaml", 1, &["t3-n43-prices-1e300.yaml:95:5", "not a price in dollars per hour"]),
        ("t3-n55-two-snapshotinfo.yaml", 1, &["t3-n55-two-snapshotinfo.yaml:", "two SnapshotInfo documents"]),
        // A budget whose schedule is 200,000 commas: refused by length (the pool allows 0), fast.
        ("t3-n15-cron-200k-commas.yaml", 0, &["BudgetExhausted"]),
        ("t3-n15c-cron-hourly-1h-zero.yaml", 0, &["BudgetExhausted"]),
        ("t3-n15e-cron-daily-24h-zero.yaml", 0, &["BudgetExhausted"]),
        // Names with ESC, newlines, bidi and zero-width characters: shown escaped and quoted.
        ("t3-n22-esc-in-pod-name.yaml", 0, &["\\x1b"]),
        ("t3-n23-esc-in-node-name.yaml", 0, &["\\x1b"]),
        ("t3-n24-newline-rtl-in-names.yaml", 0, &["\\u{202e}"]),
        ("t3-n53-zero-width-homoglyph-node.yaml", 0, &["\\u{200b}"]),
        // Year 9999 is valid in Kubernetes: clamped to the latest instant the date library holds.
        // Past Go's time.Duration: stored by the API server, unreadable to Karpenter's decoder.
        (
            "t3-n17-expireafter-overflow.yaml",
            1,
            &["t3-n17-expireafter-overflow.yaml:165:9", "longer than Go's time.Duration"],
        ),
        (
            "t3-n17b-claim-grace-overflow.yaml",
            1,
            &[
                "t3-n17b-claim-grace-overflow.yaml:254:5",
                "spec.terminationGracePeriod",
                "longer than Go's time.Duration",
            ],
        ),
        ("t3-n18-timestamps-9999.yaml", 0, &["SingleNodeConsolidation acts"]),
        // A JSON document, then YAML ones: read as Kubernetes' YAML-or-JSON decoder reads it.
        ("t3-n31-mixed-json-then-yaml.yaml", 0, &["SingleNodeConsolidation acts"]),
        // The anchor is in another document: YAML (and kubectl) refuse it; not an alias bomb.
        ("t3-n32-yaml-merge-key.yaml", 1, &["t3-n32-yaml-merge-key.yaml:487:7", "this document does not define"]),
        ("t3-n32b-yaml-merge-key-same-document.yaml", 0, &["node-c"]),
        // An empty selector takes every pod of the namespace: two workloads under one PDB.
        ("t3-n26-pdb-empty-selector-all.yaml", 0, &["PDBBlocked", "DoNotDisruptPod"]),
        ("t3-n35-name-integer.yaml", 1, &["t3-n35-name-integer.yaml:449:5", "metadata.name`: is a number"]),
    ];
    let mut listed: Vec<&str> = table.iter().map(|(f, _, _)| *f).collect();
    for (file, code, says) in table {
        check(file, *code, says);
    }
    // Every reproducer has a row (the pipe script is the next test).
    let mut files: Vec<String> = std::fs::read_dir(dir())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|f| f != "pipe-and-fifo.sh")
        .collect();
    files.sort();
    listed.sort_unstable();
    assert_eq!(files, listed);
}

#[test]
fn process_substitution_reads_yaml_once() {
    // The JSON sniff once ate the first 8 KiB of the pipe, and the path was opened again.
    let r = run("exec bash -c '\"$B\" --snapshot <(cat \"$D/baseline.yaml\") plan'");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout.contains("Underutilized delete: node-b"), "{}", r.stdout);
}

#[test]
fn stdin_reads_yaml() {
    let r = run("exec \"$B\" --snapshot - plan < \"$D/baseline.yaml\"");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout.contains("Underutilized delete: node-b"));
}

#[test]
fn a_named_fifo_does_not_hang() {
    let fifo = tempfile::tempdir().unwrap();
    let path = fifo.path().join("snapshot.fifo");
    let made = Command::new("mkfifo").arg(&path).status().expect("mkfifo");
    assert!(made.success());
    let r = run(&format!("cat \"$D/baseline.yaml\" > '{0}' & exec \"$B\" --snapshot '{0}' plan", path.display()));
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout.contains("Underutilized delete: node-b"));
}

#[test]
fn dev_zero_is_refused_not_read_until_memory_runs_out() {
    let r = run("exec \"$B\" --snapshot /dev/zero plan");
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r.stderr.contains("/dev/zero:1:1: binary data"), "{}", r.stderr);
}

#[test]
fn the_size_limit_is_a_diagnostic_and_a_flag_raises_it() {
    let r = run("yes 'a: b' | exec \"$B\" --snapshot - --max-input-size 1Mi plan");
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    let said = unwrapped(&r.stderr);
    assert!(said.contains("larger than the limit of 1048576 bytes"), "{said}");
    assert!(said.contains("--max-input-size 4Mi"), "{said}");
    let small = run("exec \"$B\" --snapshot \"$D/baseline.yaml\" --max-input-size 4Ki plan");
    assert_eq!(small.code, Some(1));
    assert!(unwrapped(&small.stderr).contains("larger than the limit of 4096 bytes"), "{}", small.stderr);
    let raised = run("exec \"$B\" --snapshot \"$D/baseline.yaml\" --max-input-size 0 plan");
    assert_eq!(raised.code, Some(0), "{}", raised.stderr);
}

#[test]
fn utf16_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("utf16.yaml");
    let text = std::fs::read_to_string(self::dir().join("baseline.yaml")).unwrap();
    let mut bytes = vec![0xFF, 0xFE];
    bytes.extend(text.encode_utf16().flat_map(u16::to_le_bytes));
    std::fs::write(&path, bytes).unwrap();
    let r = run(&format!("exec \"$B\" --snapshot '{}' plan", path.display()));
    assert_eq!(r.code, Some(1), "{}", r.stderr);
    assert!(r.stderr.contains("UTF-16LE"), "{}", r.stderr);
}

/// miette wraps its message at 80 columns, where depends on the path's length: the message with
/// each line break and its `|` gutter folded back into one space.
fn unwrapped(stderr: &str) -> String {
    stderr
        .lines()
        .map(|line| line.trim_start().trim_start_matches('|').trim())
        .filter(|line| !line.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `text` holds a character that must not reach a terminal raw (the before-stop
/// hook's test: C0 but tab and line feed, DEL, the zero-width and bidi controls).
fn raw_unsafe(text: &str) -> Option<char> {
    text.chars().find(|&c| {
        matches!(c, '\u{0}'..='\u{8}' | '\u{b}'..='\u{1f}' | '\u{7f}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    })
}

#[test]
fn hostile_names_never_reach_the_terminal_raw_from_any_command() {
    let files = [
        "t3-n22-esc-in-pod-name.yaml",
        "t3-n23-esc-in-node-name.yaml",
        "t3-n24-newline-rtl-in-names.yaml",
        "t3-n53-zero-width-homoglyph-node.yaml",
    ];
    let commands = [
        "plan",
        "plan -o wide",
        "plan -o markdown",
        "explain node-b",
        "pdb-audit -A",
        "budgets",
        "forecast",
        "score nodepool/default",
        "instance-types nodepool/default",
    ];
    for file in files {
        for command in commands {
            for colour in ["never", "always"] {
                let r = run(&format!("exec \"$B\" --snapshot \"$D/{file}\" --color {colour} {command}"));
                assert!(matches!(r.code, Some(0..=2)), "{file} {command}: exit {:?}: {}", r.code, r.stderr);
                for (stream, text) in [("stdout", &r.stdout), ("stderr", &r.stderr)] {
                    // With colour on, our own SGR sequences are the only escapes allowed.
                    let text = if colour == "always" { strip_sgr(text) } else { text.clone() };
                    assert_eq!(
                        raw_unsafe(&text),
                        None,
                        "{file} `{command}` --color {colour}: raw character on {stream}:\n{text}"
                    );
                }
            }
        }
    }
}

/// `text` without the SGR colour sequences (`ESC [ digits ; m`) the renderer writes.
fn strip_sgr(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("\u{1b}[") {
        out.push_str(&rest[..at]);
        let after = &rest[at + 2..];
        let body = after.find(|c: char| !(c.is_ascii_digit() || c == ';')).unwrap_or(after.len());
        if after[body..].starts_with('m') {
            rest = &after[body + 1..];
        } else {
            out.push('\u{1b}');
            rest = &rest[at + 1..];
        }
    }
    out.push_str(rest);
    out
}

#[test]
fn a_forged_line_stays_inside_its_value() {
    // The pod's name holds a newline and a line that would claim a saving of $999999/h.
    let r = run("exec \"$B\" --snapshot \"$D/t3-n24-newline-rtl-in-names.yaml\" --color never plan -o wide");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    assert!(r.stdout.lines().all(|l| !l.starts_with("This round saves $999999")), "a forged line:\n{}", r.stdout);
    assert!(r.stdout.contains("\\u{202e}"), "the bidi override is shown escaped:\n{}", r.stdout);
}

#[test]
fn a_pdb_over_two_workloads_names_both_in_every_text_format() {
    // Filed under the first workload alone, the finding hid the other one the same budget holds.
    for format in ["text", "wide", "markdown"] {
        let r = run(&format!(
            "exec \"$B\" --snapshot \"$D/t3-n26-pdb-empty-selector-all.yaml\" --color never pdb-audit -A -o {format}"
        ));
        assert_eq!(r.code, Some(0), "{format}: {}", r.stderr);
        let row = r.stdout.lines().find(|l| l.contains("DrainBlocked")).unwrap_or_default().to_owned();
        for workload in ["Job/default/job-1", "ReplicaSet/default/web-6b7f"] {
            assert!(row.contains(workload), "{format}: {workload} missing from the finding's row:\n{}", r.stdout);
        }
    }
}

#[test]
fn a_budget_that_never_opens_ends_the_forecast_as_blocked_for_good() {
    for file in ["t3-n15c-cron-hourly-1h-zero.yaml", "t3-n15e-cron-daily-24h-zero.yaml"] {
        for extra in ["", "--rounds 3"] {
            let r = run(&format!("exec \"$B\" --snapshot \"$D/{file}\" --color never forecast {extra}"));
            assert_eq!(r.code, Some(0), "{file}: {}", r.stderr);
            assert!(r.stdout.contains("blocked for good"), "{file} {extra}:\n{}", r.stdout);
        }
    }
}

#[test]
fn a_schedule_of_200000_commas_is_refused_in_bounded_time() {
    let r = run("exec \"$B\" --snapshot \"$D/t3-n15-cron-200k-commas.yaml\" --color never forecast");
    assert_eq!(r.code, Some(0), "{}", r.stderr);
    let r = run("exec \"$B\" --snapshot \"$D/t3-n15-cron-200k-commas.yaml\" --color never budgets");
    assert!(r.stdout.contains("longer than the 1024"), "the limit is named:\n{}", r.stdout);
}
