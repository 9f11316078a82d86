//! `synth`: writes a deterministic synthetic cluster snapshot for benchmarks.
//!
//! ```text
//! cargo run --release --example synth -- --nodes 5000 --pods 150000 --pools 20 --pdbs 3000 --seed 1 -o /tmp/big.json
//! kubectl-consolidation --snapshot /tmp/big.json plan
//! ```
//!
//! The output is one JSON `v1 List` (JSON, not YAML: it parses about ten times faster). What is
//! in it is described in `gen/mod.rs`. The node worth `explain`ing is printed on stderr as
//! `explain: node/NAME`.

mod gen;

use std::fs::File;
use std::io::{self, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;

/// Writes a synthetic Karpenter cluster snapshot (JSON `v1 List`).
#[derive(Debug, Parser)]
#[command(name = "synth")]
struct Args {
    /// Nodes (about 0.6 % unmanaged, the rest with a NodeClaim).
    #[arg(long, default_value_t = 5000)]
    nodes: usize,
    /// Pods, DaemonSet pods included.
    #[arg(long, default_value_t = 150_000)]
    pods: usize,
    /// NodePools.
    #[arg(long, default_value_t = 20)]
    pools: usize,
    /// PodDisruptionBudgets (default: one per 50 pods).
    #[arg(long)]
    pdbs: Option<usize>,
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Percentage of managed nodes with only DaemonSet pods.
    #[arg(long, default_value_t = 3.0)]
    empty_pct: f64,
    /// Percentage of NodeClaims with Drifted=True.
    #[arg(long, default_value_t = 1.0)]
    drifted_pct: f64,
    /// Drop every PersistentVolumeClaim, PersistentVolume and pod volume: the same cluster
    /// without claims, to time volume handling against (`plan` on both).
    #[arg(long)]
    no_pvcs: bool,
    /// Drop what every candidate's simulation shares: the pending pods, and the
    /// `karpenter.sh/disrupted` taint of the nodes being disrupted (they stay, with their pods,
    /// as ordinary nodes). The same cluster otherwise, to time `plan` with and without them.
    #[arg(long)]
    no_shared: bool,
    /// Percentage of workloads of at most 5 replicas that are StatefulSets with a PVC per pod.
    #[arg(long, default_value_t = 3.0)]
    stateful_pct: f64,
    /// Percentage of bound application pods (DaemonSet pods aside) pinned to their node by a
    /// required node affinity on `kubernetes.io/hostname`: such a pod has nowhere else to go,
    /// so no candidate holding one can be consolidated (100: SingleNode walks every candidate
    /// and each one fails its simulation).
    #[arg(long, default_value_t = 0.0)]
    pinned_pct: f64,
    /// Output file, `-` for stdout.
    #[arg(short, long, default_value = "-")]
    output: PathBuf,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let mut params = gen::Params::scaled(args.nodes, args.pods);
    params.pools = args.pools;
    params.pdbs = args.pdbs.unwrap_or(params.pdbs);
    params.seed = args.seed;
    params.empty_pct = args.empty_pct;
    params.drifted_pct = args.drifted_pct;
    params.stateful_pct = args.stateful_pct;
    params.pinned_pct = args.pinned_pct;
    let started = Instant::now();
    let mut synth = gen::generate(&params);
    if args.no_pvcs {
        synth.snapshot.pvcs.clear();
        synth.snapshot.pvs.clear();
        for pod in &mut synth.snapshot.pods {
            pod.spec.volumes.clear();
        }
    }
    if args.no_shared {
        let pods = synth.snapshot.pods.len();
        synth.snapshot.pods.retain(|pod| pod.spec.node_name.is_some());
        let mut untainted = 0;
        for node in &mut synth.snapshot.nodes {
            let taints = node.spec.taints.len();
            node.spec.taints.retain(|taint| taint.key != "karpenter.sh/disrupted");
            untainted += usize::from(node.spec.taints.len() < taints);
        }
        let pending = pods - synth.snapshot.pods.len();
        synth.summary +=
            &format!("; --no-shared: {pending} pending pods dropped, {untainted} nodes no longer disrupted");
    }
    let generated = started.elapsed();
    let written = if args.output.as_os_str() == "-" {
        gen::write_json(&synth.snapshot, io::stdout().lock())
    } else {
        File::create(&args.output).and_then(|f| gen::write_json(&synth.snapshot, f))
    };
    if let Err(e) = written {
        eprintln!("synth: cannot write {}: {e}", args.output.display());
        return ExitCode::FAILURE;
    }
    let mut err = io::stderr().lock();
    // Diagnostics only: a closed stderr is no reason to fail.
    let _ = writeln!(
        err,
        "synth: {} (generated in {:.2?}, written in {:.2?})\nexplain: node/{}",
        synth.summary,
        generated,
        started.elapsed().saturating_sub(generated),
        synth.explain_node
    );
    ExitCode::SUCCESS
}
