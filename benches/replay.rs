//! `cargo bench --bench replay`: what loading a snapshot, replaying the round (`plan`),
//! explaining one node, writing the snapshot back and every other command cost on synthetic
//! clusters of growing size, against the floor of a plain JSON parse of the same file.
//!
//! Each scale's snapshot comes from the generator of `examples/synth` (shared through
//! `#[path]`), is written to a temporary JSON file and read back from it; then the figures are
//! the median of a few runs of
//!
//! * `load`: `source::file::read_path` (the JSON file → `Snapshot`, as the CLI reads it);
//! * `plan`: `engine::replay(&snapshot, capturedAt)`;
//! * `explain`: what `explain node/X` costs once the snapshot is loaded: the round replayed
//!   with a verdict for that node only (`engine::replay_focused`), then
//!   `report::explain::explain`;
//! * `floor`: a plain `serde_json::Value` parse of the same file (read whole, then parsed), the
//!   least any JSON load costs; `load/floor` is the ratio (simd-json, the other floor the
//!   issue names, cannot be fetched on the machine these figures come from, so it is not here);
//! * `snapshot`, `redact`: `Snapshot::write_text` as `snapshot -o json` (and `--redact`) runs
//!   it, into a sink;
//! * `forecast`: rounds until nothing acts (`forecast::rounds_to_steady_state`), once;
//! * `score`, `budgets`, `pdb-audit`: the CLI itself (`CARGO_BIN_EXE_kubectl-consolidation`)
//!   on the file, wall time of the whole process, load included (their entry points are not
//!   library API);
//!
//! with the peak resident memory of each phase (`VmHWM`, reset through `/proc/self/clear_refs`;
//! Linux only, `n/a` elsewhere). A slow replay is run once, and once a replay takes longer than
//! `REPLAY_BENCH_MAX_SECS` (default 600) the larger scales are skipped.
//!
//! Environment: `REPLAY_BENCH_SCALES=1000x30000,5000x150000` (nodes × pods; default 1,000,
//! 5,000 and 10,000 nodes of 30 pods, then a volume-heavy and a MultiNode-heavy cluster of
//! 2,000 nodes: `volumes:2000x60000`, `multinode:2000x60000`, and the long SingleNode walk,
//! every application pod pinned to its node, at 5,000: `walk:5000x150000`), `REPLAY_BENCH_RUNS=N` (runs per
//! phase; default 3 up to 2,000 nodes, else 1), `REPLAY_BENCH_MAX_SECS`.
//!
//! Without `--bench` (as `cargo test --all-targets` runs it) it is a smoke test: one tiny
//! cluster, each phase once, checked for consistency, in well under two seconds.

#[path = "../examples/synth/gen/mod.rs"]
mod gen;

use std::io::Write;
use std::time::{Duration, Instant};

use kubectl_consolidation::engine;
use kubectl_consolidation::report::explain::explain;
use kubectl_consolidation::snapshot::Snapshot;
use kubectl_consolidation::source::file::read_path;

/// One cluster to measure.
#[derive(Debug, Clone, Copy)]
struct Scale {
    /// `plain`, `volumes` (a StatefulSet with a PVC per pod for every workload of at most 5
    /// replicas), `multinode` (no empty or drifted node, so MultiNode consolidation acts) or
    /// `walk` (every application pod pinned to its node: every candidate fails its simulation).
    kind: &'static str,
    nodes: usize,
    pods: usize,
}

/// The figures of one scale.
struct Row {
    scale: Scale,
    file_mib: f64,
    load: Duration,
    load_peak: Option<f64>,
    floor: Duration,
    plan: Duration,
    plan_peak: Option<f64>,
    explain: Duration,
    forecast: Duration,
    snapshot: Duration,
    redact: Duration,
    redact_peak: Option<f64>,
    /// `score`, `budgets`, `pdb-audit` through the CLI.
    cli: [Duration; 3],
    runs: usize,
}

fn main() {
    let bench = std::env::args().any(|a| a == "--bench");
    if !bench {
        smoke();
        return;
    }
    let scales = std::env::var("REPLAY_BENCH_SCALES").ok().map_or_else(
        || {
            vec![
                Scale { kind: "plain", nodes: 1_000, pods: 30_000 },
                Scale { kind: "plain", nodes: 5_000, pods: 150_000 },
                Scale { kind: "plain", nodes: 10_000, pods: 300_000 },
                Scale { kind: "volumes", nodes: 2_000, pods: 60_000 },
                Scale { kind: "multinode", nodes: 2_000, pods: 60_000 },
                Scale { kind: "walk", nodes: 5_000, pods: 150_000 },
            ]
        },
        |v| parse_scales(&v),
    );
    let max_secs: u64 = env_number("REPLAY_BENCH_MAX_SECS").unwrap_or(600);
    let mut rows: Vec<Row> = Vec::new();
    for scale in scales {
        if let Some(slow) = rows.iter().find(|r| r.plan.as_secs() > max_secs) {
            println!(
                "skipping {} {}×{}: the replay at {}×{} took {:.0} s (> REPLAY_BENCH_MAX_SECS={max_secs})",
                scale.kind,
                scale.nodes,
                scale.pods,
                slow.scale.nodes,
                slow.scale.pods,
                slow.plan.as_secs_f64()
            );
            continue;
        }
        let default_runs = if scale.nodes <= 2_000 { 3 } else { 1 };
        let runs = env_number("REPLAY_BENCH_RUNS").map_or(default_runs, |n: usize| n.max(1));
        rows.push(measure(scale, runs, true));
        print_table(&rows);
    }
}

/// Generates, writes and reads back one scale, and times each phase `runs` times.
fn measure(scale: Scale, runs: usize, verbose: bool) -> Row {
    let mut params = gen::Params::scaled(scale.nodes, scale.pods);
    if scale.nodes < 100 {
        params.pools = 5;
    }
    match scale.kind {
        "volumes" => params.stateful_pct = 100.0,
        "multinode" => (params.empty_pct, params.drifted_pct) = (0.0, 0.0),
        "walk" => (params.empty_pct, params.drifted_pct, params.pinned_pct) = (0.0, 0.0, 100.0),
        _ => {}
    }
    let started = Instant::now();
    let synth = gen::generate(&params);
    let file = tempfile::Builder::new().suffix(".json").tempfile().expect("a temporary file");
    gen::write_json(&synth.snapshot, file.as_file()).expect("the snapshot is written");
    let (node, summary) = (synth.explain_node.clone(), synth.summary.clone());
    drop(synth);
    if verbose {
        println!(
            "{} {}×{}: {summary}; generated and written in {:.2?}",
            scale.kind,
            scale.nodes,
            scale.pods,
            started.elapsed()
        );
        // Progress only: a closed stdout is not worth failing the bench for.
        let _ = std::io::stdout().flush();
    }
    let bytes = std::fs::metadata(file.path()).expect("the snapshot was written").len();
    let file_mib = bytes as f64 / f64::from(1u32 << 20);

    let (floor, parsed) = timed(runs, || {
        let text = std::fs::read_to_string(file.path()).expect("the snapshot reads");
        serde_json::from_str::<serde_json::Value>(&text).expect("the snapshot is JSON")
    });
    drop(parsed);
    reset_peak();
    let (load, snapshot) = timed(runs, || read_path(file.path()).expect("the synthetic snapshot loads"));
    let load_peak = peak_mib();
    let now = snapshot.info.captured_at.expect("capturedAt is set");

    reset_peak();
    let first = Instant::now();
    let replay = engine::replay(&snapshot, now);
    let first = first.elapsed();
    // A replay slower than 10 s is measured once: its noise is small beside it.
    let (plan, replay) = if runs > 1 && first.as_secs() < 10 {
        drop(replay);
        timed(runs, || engine::replay(&snapshot, now))
    } else {
        (first, replay)
    };
    let plan_peak = peak_mib();

    let (explain_time, explanation) = timed(runs.max(3), || {
        let focused = engine::replay_focused(&snapshot, now, Some(&node));
        explain(&focused, &snapshot, &node, &[])
    });
    check(&snapshot, &replay, explanation.is_some(), &params, &node);
    let (forecast, _rounds) =
        timed(1, || kubectl_consolidation::forecast::rounds_to_steady_state(snapshot.clone(), now));
    let (snapshot_time, ()) =
        timed(runs, || snapshot.write_text(true, false, std::io::sink()).expect("the snapshot is written"));
    reset_peak();
    let (redact, ()) =
        timed(runs, || snapshot.write_text(true, true, std::io::sink()).expect("the redacted snapshot is written"));
    let redact_peak = peak_mib();
    let pool = snapshot.node_pools.first().map(|p| format!("nodepool/{}", p.metadata.name)).unwrap_or_default();
    drop((replay, snapshot));
    let path = file.path().to_str().expect("a UTF-8 temporary path");
    let cli = [
        vec!["score", pool.as_str(), "-o", "json"],
        vec!["budgets", "-o", "json"],
        vec!["pdb-audit", "-A", "-o", "json"],
    ]
    .map(|args| timed(runs, || run_cli(path, &args)).0);
    Row {
        scale,
        file_mib,
        load,
        load_peak,
        floor,
        plan,
        plan_peak,
        explain: explain_time,
        forecast,
        snapshot: snapshot_time,
        redact,
        redact_peak,
        cli,
        runs,
    }
}

/// Runs the CLI on the snapshot file, its output discarded; it must succeed.
fn run_cli(snapshot: &str, args: &[&str]) {
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-consolidation"))
        .arg("--snapshot")
        .arg(snapshot)
        .args(args)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("the CLI runs");
    assert!(status.success(), "kubectl-consolidation {} failed: {status}", args.join(" "));
}

/// The generated snapshot must load whole and the replay must cover every node.
fn check(snapshot: &Snapshot, replay: &engine::Replay, explained: bool, params: &gen::Params, node: &str) {
    assert_eq!(snapshot.nodes.len(), params.nodes, "every Node loads");
    assert_eq!(snapshot.pods.len(), params.pods, "every Pod loads");
    assert_eq!(snapshot.pdbs.len(), params.pdbs, "every PDB loads");
    assert_eq!(snapshot.node_pools.len(), params.pools, "every NodePool loads");
    assert!(replay.nodes.len() >= params.nodes, "the replay gives every node a verdict");
    assert!(explained, "node/{node} can be explained");
}

/// Median duration of `runs` calls, and the last call's value.
fn timed<T>(runs: usize, mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs.max(1) {
        // The previous run's value goes first, so that peaks are those of one run.
        drop(last.take());
        let t = Instant::now();
        let value = f();
        times.push(t.elapsed());
        last = Some(value);
    }
    times.sort();
    (times[times.len() / 2], last.expect("at least one run"))
}

fn print_table(rows: &[Row]) {
    let mib = |m: Option<f64>| m.map_or_else(|| "n/a".to_owned(), |m| format!("{m:.0}"));
    println!();
    println!(
        "{:>21} {:>5} {:>8} {:>8} {:>5} {:>5} {:>8} {:>5} {:>5} {:>8} {:>8} {:>8} {:>8} {:>5} {:>8} {:>8} {:>9} {:>4}",
        "cluster",
        "MiB",
        "load",
        "floor",
        "l/fl",
        "peak",
        "plan",
        "peak",
        "p/l",
        "explain",
        "forecast",
        "snapshot",
        "redact",
        "peak",
        "score",
        "budgets",
        "pdb-audit",
        "runs"
    );
    for r in rows {
        println!(
            "{:>21} {:>5.0} {:>8} {:>8} {:>5.2} {:>5} {:>8} {:>5} {:>5.2} {:>8} {:>8} {:>8} {:>8} {:>5} {:>8} {:>8} {:>9} {:>4}",
            format!("{} {}×{}", r.scale.kind, r.scale.nodes, r.scale.pods),
            r.file_mib,
            human(r.load),
            human(r.floor),
            r.load.as_secs_f64() / r.floor.as_secs_f64().max(1e-9),
            mib(r.load_peak),
            human(r.plan),
            mib(r.plan_peak),
            r.plan.as_secs_f64() / r.load.as_secs_f64().max(1e-9),
            human(r.explain),
            human(r.forecast),
            human(r.snapshot),
            human(r.redact),
            mib(r.redact_peak),
            human(r.cli[0]),
            human(r.cli[1]),
            human(r.cli[2]),
            r.runs
        );
    }
    println!("(score, budgets and pdb-audit: the CLI's whole run, load included)");
    println!();
}

fn human(d: Duration) -> String {
    if d.as_secs() >= 10 {
        format!("{:.1} s", d.as_secs_f64())
    } else if d.as_millis() >= 10 {
        format!("{} ms", d.as_millis())
    } else {
        format!("{:.2} ms", d.as_secs_f64() * 1e3)
    }
}

/// `[kind:]nodes×pods` (or `nodesxpods`) pairs, comma-separated; kind is `plain` (default),
/// `volumes`, `multinode` or `walk`.
fn parse_scales(text: &str) -> Vec<Scale> {
    text.split(',')
        .filter_map(|item| {
            let (kind, pair) = item.trim().split_once(':').unwrap_or(("plain", item.trim()));
            let kind = ["plain", "volumes", "multinode", "walk"].into_iter().find(|k| *k == kind)?;
            let (nodes, pods) = pair.split_once(['x', '×', 'X'])?;
            Some(Scale { kind, nodes: nodes.trim().parse().ok()?, pods: pods.trim().parse().ok()? })
        })
        .collect()
}

fn env_number<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok()?.trim().parse().ok()
}

/// Resets the process's peak RSS (`VmHWM`), where Linux lets us.
fn reset_peak() {
    // Best effort: without it the peaks are those of the whole process so far.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

/// The process's peak RSS in MiB since the last reset.
fn peak_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib / 1024.0)
}

/// `cargo test --all-targets`: a tiny cluster through every phase once.
fn smoke() {
    let started = Instant::now();
    let row = measure(Scale { kind: "plain", nodes: 20, pods: 400 }, 1, false);
    print_table(&[row]);
    println!(
        "replay bench smoke test passed in {:.2?} (run `cargo bench --bench replay` for figures)",
        started.elapsed()
    );
}
