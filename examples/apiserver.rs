//! `apiserver`: serves a snapshot file over loopback HTTP as a Kubernetes API server lists it,
//! so that live mode can be measured against the file replay of the same objects
//! (`bench/run.sh` measures `--kubeconfig` against `--snapshot`).
//!
//! ```text
//! cargo run --release --example apiserver -- /tmp/big.json /tmp/fake-kube
//! kubectl-consolidation --kubeconfig /tmp/fake-kube/kubeconfig score nodepool/none
//! ```
//!
//! It is the fake API server the live tests use (`tests/it/support/fake_apiserver.rs`: pages
//! of up to `limit` items, `continue` tokens, `apiVersion`/`kind` stripped from items). It
//! writes `DIR/kubeconfig`, prints `ready` on stdout, and serves until stdin closes.

#[path = "../tests/it/support/fake_apiserver.rs"]
mod fake_apiserver;

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use serde_json::Value;

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(file), Some(dir)) = (args.next().map(PathBuf::from), args.next().map(PathBuf::from)) else {
        eprintln!("usage: apiserver SNAPSHOT.json DIR");
        return ExitCode::FAILURE;
    };
    let text = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("apiserver: cannot read {}: {e}", file.display());
            return ExitCode::FAILURE;
        }
    };
    let document: Value = match serde_json::from_str(&text) {
        Ok(document) => document,
        Err(e) => {
            eprintln!("apiserver: {} is not JSON: {e}", file.display());
            return ExitCode::FAILURE;
        }
    };
    drop(text);
    // A `v1 List` (what `synth` writes) or a single object.
    let objects = match document {
        Value::Object(mut list) if list.get("kind").and_then(Value::as_str) == Some("List") => {
            match list.remove("items") {
                Some(Value::Array(items)) => items,
                _ => Vec::new(),
            }
        }
        other => vec![other],
    };
    let config = fake_apiserver::Config::new(&objects);
    drop(objects);
    let server = fake_apiserver::FakeApiServer::start(config);
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("apiserver: cannot create {}: {e}", dir.display());
        return ExitCode::FAILURE;
    }
    server.write_kubeconfig(&dir);
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "ready {}", server.url());
    let _ = out.flush();
    // Serve until whoever started us closes our stdin.
    for line in std::io::stdin().lock().lines() {
        if line.is_err() {
            break;
        }
    }
    ExitCode::SUCCESS
}
