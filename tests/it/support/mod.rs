//! Shared test support: the binary under test, the fake API server and the fixtures it serves.

pub(crate) mod fake_apiserver;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use kubectl_consolidation::snapshot::InstanceType;
use serde_json::{json, Value};

/// The binary under test.
pub(crate) const BIN: &str = env!("CARGO_BIN_EXE_kubectl-consolidation");

/// The package root: every relative path in the tests is read from here.
pub(crate) fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The binary, run from the package root with a colour-neutral environment and no kubeconfig.
pub(crate) fn bin() -> assert_cmd::Command {
    let mut cmd = assert_cmd::Command::new(BIN);
    cmd.current_dir(root())
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("FORCE_COLOR")
        .env_remove("KUBECONFIG")
        .env_remove("COLUMNS");
    cmd
}

/// The first line where two outputs differ, for a determinism failure's message.
pub(crate) fn first_difference(a: &[u8], b: &[u8]) -> String {
    let (a, b) = (String::from_utf8_lossy(a), String::from_utf8_lossy(b));
    let line =
        a.lines().zip(b.lines()).position(|(x, y)| x != y).unwrap_or_else(|| a.lines().count().min(b.lines().count()));
    format!(
        "first difference at line {}: {:?} vs {:?}",
        line + 1,
        a.lines().nth(line).unwrap_or("<end>"),
        b.lines().nth(line).unwrap_or("<end>")
    )
}

/// `tests/scenarios/<name>/snapshot.yaml`, relative to the package root (as a user types it).
pub(crate) fn scenario_arg(name: &str) -> String {
    format!("tests/scenarios/{name}/snapshot.yaml")
}

/// `tests/scenarios/<name>/snapshot.yaml`.
pub(crate) fn scenario_path(name: &str) -> PathBuf {
    root().join("tests/scenarios").join(name).join("snapshot.yaml")
}

/// The Kubernetes objects of a scenario, Lists flattened, our own documents left out.
pub(crate) fn scenario_objects(name: &str) -> Vec<Value> {
    let path = scenario_path(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()));
    let documents = kubectl_consolidation::source::file::parse_documents(&text, &path.display().to_string())
        .unwrap_or_else(|e| panic!("parse {}: {e}", path.display()));
    let mut objects = Vec::new();
    flatten(documents, &mut objects);
    objects
        .into_iter()
        .filter(|o| {
            let api_version = o.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
            !api_version.starts_with("kubectl-consolidation/")
        })
        .collect()
}

/// The scenario's `InstanceTypes`, read by the library's own price reader.
pub(crate) fn scenario_instance_types(name: &str) -> Vec<InstanceType> {
    let path = scenario_path(name);
    let text = std::fs::read_to_string(&path).expect("read scenario");
    kubectl_consolidation::source::prices::parse_prices(&text, "scenario").expect("scenario has InstanceTypes")
}

fn flatten(values: Vec<Value>, out: &mut Vec<Value>) {
    for value in values {
        let is_list = value.get("kind").and_then(Value::as_str).is_some_and(|k| k.ends_with("List"));
        match (is_list, value) {
            (true, Value::Object(mut map)) => {
                if let Some(Value::Array(items)) = map.remove("items") {
                    flatten(items, out);
                }
            }
            (_, value) => out.push(value),
        }
    }
}

/// Karpenter's controller as the Helm chart installs it in `kube-system`: Deployment (with
/// `FEATURE_GATES`), Service with the `http-metrics` port, and the leader-election Lease.
pub(crate) fn karpenter_controller_objects(leader_pod: &str) -> Vec<Value> {
    let labels = json!({"app.kubernetes.io/name": "karpenter", "app.kubernetes.io/instance": "karpenter",
                        "app.kubernetes.io/version": "1.14.1"});
    vec![
        json!({"apiVersion": "apps/v1", "kind": "Deployment",
               "metadata": {"name": "karpenter", "namespace": "kube-system", "uid": "uid-karpenter", "labels": labels},
               "spec": {"replicas": 2, "selector": {"matchLabels": {"app.kubernetes.io/name": "karpenter"}},
                        "template": {"metadata": {"labels": {"app.kubernetes.io/name": "karpenter"}},
                                     "spec": {"containers": [{"name": "controller",
                                         "image": "public.ecr.aws/karpenter/controller:1.14.1",
                                         "ports": [{"name": "http-metrics", "containerPort": 8080}],
                                         "env": [{"name": "FEATURE_GATES", "value": "SpotToSpotConsolidation=true,NodeRepair=false"}]}]}}}}),
        json!({"apiVersion": "v1", "kind": "Service",
               "metadata": {"name": "karpenter", "namespace": "kube-system", "labels": labels},
               "spec": {"ports": [{"name": "http-metrics", "port": 8080, "targetPort": "http-metrics"}]}}),
        json!({"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
               "metadata": {"name": "karpenter-leader-election", "namespace": "kube-system"},
               "spec": {"holderIdentity": format!("{leader_pod}_6b1c2d3e-0000-4000-8000-000000000000")}}),
    ]
}

/// The Prometheus text Karpenter's AWS provider would export for these instance types.
pub(crate) fn metrics_text(types: &[InstanceType]) -> String {
    let mut out = String::new();
    out.push_str("# HELP karpenter_cloudprovider_instance_type_offering_price_estimate Instance type offering estimated hourly price.\n");
    out.push_str("# TYPE karpenter_cloudprovider_instance_type_offering_price_estimate gauge\n");
    for it in types {
        for o in &it.offerings {
            if let Some(price) = o.price {
                let _ = writeln!(
                    out,
                    "karpenter_cloudprovider_instance_type_offering_price_estimate{{capacity_type=\"{}\",instance_type=\"{}\",zone=\"{}\"}} {price}",
                    o.capacity_type, it.name, o.zone
                );
            }
        }
    }
    out.push_str("# TYPE karpenter_cloudprovider_instance_type_offering_available gauge\n");
    for it in types {
        for o in &it.offerings {
            let _ = writeln!(
                out,
                "karpenter_cloudprovider_instance_type_offering_available{{capacity_type=\"{}\",instance_type=\"{}\",zone=\"{}\"}} {}",
                o.capacity_type,
                it.name,
                o.zone,
                u8::from(o.available)
            );
        }
    }
    out.push_str("# TYPE karpenter_cloudprovider_instance_type_cpu_cores gauge\n");
    for it in types {
        if let Some(cpu) = it.capacity.get("cpu") {
            let _ = writeln!(
                out,
                "karpenter_cloudprovider_instance_type_cpu_cores{{instance_type=\"{}\"}} {}",
                it.name,
                cpu.as_f64()
            );
        }
    }
    out.push_str("# TYPE karpenter_cloudprovider_instance_type_memory_bytes gauge\n");
    for it in types {
        if let Some(memory) = it.capacity.get("memory") {
            let _ = writeln!(
                out,
                "karpenter_cloudprovider_instance_type_memory_bytes{{instance_type=\"{}\"}} {}",
                it.name,
                memory.milli() / 1000
            );
        }
    }
    out.push_str("# TYPE go_goroutines gauge\ngo_goroutines 312\n");
    out
}

/// Runs the binary with `args` against `server` (a kubeconfig and `HOME` in a fresh folder,
/// colour off), as a user on a cluster would.
pub(crate) fn run_against(server: &fake_apiserver::FakeApiServer, args: &[&str]) -> std::process::Output {
    let dir = tempfile::tempdir().expect("tempdir");
    std::process::Command::new(env!("CARGO_BIN_EXE_kubectl-consolidation"))
        .args(args)
        .env("KUBECONFIG", server.write_kubeconfig(dir.path()))
        .env("HOME", dir.path())
        .env("NO_COLOR", "1")
        .output()
        .expect("run the binary")
}
