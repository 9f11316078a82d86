//! `diff`: two replays of one snapshot, and the part of the change behind each node that moves.
//!
//! Expectations come from upstream, as the scenarios they reuse cite them: the version rule
//! pair `own-version-do-not-disrupt-duration-v1.11.2` / `-v1.12.0` (karpenter #2874,
//! `pkg/utils/pod/scheduling.go` `IsDoNotDisruptActive`: before v1.12.0 only `"true"` counted),
//! and the seed incident's demo, whose new replicas meet their PDBs.

use serde_json::Value;

use crate::support::{bin, root, scenario_path};

fn json(args: &[&str]) -> (Value, i32) {
    let out = bin().args(args).args(["-o", "json"]).output().expect("runs");
    let code = out.status.code().unwrap_or(-1);
    let doc = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!("{e}: {}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
    });
    (doc, code)
}

/// The v1.11.2 scenario's snapshot, with the version the cluster runs written into it (the
/// scenario passes it as a flag instead; `diff` reads the flag as the after side).
fn snapshot_at(version: &str) -> tempfile::NamedTempFile {
    let text = std::fs::read_to_string(scenario_path("own-version-do-not-disrupt-duration-v1.11.2")).expect("scenario");
    let text = text.replacen("kind: SnapshotInfo\n", &format!("kind: SnapshotInfo\nkarpenterVersion: {version}\n"), 1);
    let mut file = tempfile::Builder::new().suffix(".yaml").tempfile().expect("temp file");
    std::io::Write::write_all(&mut file, text.as_bytes()).expect("write");
    file
}

fn manifest(name: &str) -> String {
    root().join("tests/manifests").join(name).display().to_string()
}

#[test]
fn an_upgrade_names_the_rule_that_moves_a_node() {
    let snapshot = snapshot_at("v1.11.2");
    let path = snapshot.path().display().to_string();
    let (doc, code) = json(&["--snapshot", &path, "diff", "--karpenter-version", "1.12.0"]);
    assert_eq!(code, 0);
    assert_eq!(doc["before"]["karpenterVersion"], "v1.11.2");
    assert_eq!(doc["after"]["karpenterVersion"], "v1.12.0");
    let changes = doc["changes"].as_array().expect("changes");
    assert_eq!(changes.len(), 1, "one rule differs between v1.11.2 and v1.12.0: {changes:?}");
    assert_eq!(changes[0]["kind"], "rule");
    assert_eq!(changes[0]["target"], "doNotDisruptDuration");
    assert!(changes[0]["upstream"].as_str().is_some_and(|u| u.contains("#2874")), "{}", changes[0]);
    let nodes = doc["nodes"].as_array().expect("nodes");
    assert_eq!(nodes.len(), 1, "{nodes:?}");
    let node = &nodes[0];
    assert_eq!(node["name"], "node-a");
    assert_eq!(node["before"]["action"], "delete", "v1.11.2 ignores a duration-valued do-not-disrupt");
    assert_eq!(node["after"]["verdict"], "Blocked", "v1.12.0 honours it");
    assert_eq!(node["causes"], serde_json::json!(["c1"]));
    assert_eq!(node["attribution"], "alone");
    assert_eq!(doc["commandChanges"]["removed"].as_array().map(Vec::len), Some(1));
}

#[test]
fn a_downgrade_that_sends_a_workload_to_zero_fails_the_gate() {
    let snapshot = snapshot_at("v1.12.0");
    let path = snapshot.path().display().to_string();
    let (doc, code) = json(&["--snapshot", &path, "diff", "--karpenter-version", "1.11.2", "--fail-on", "zero-ready"]);
    assert_eq!(code, 3, "the gate trips");
    assert_eq!(doc["toZeroReady"], serde_json::json!(["Pod/default/web-a"]));
    let (_, code) = json(&["--snapshot", &path, "diff", "--karpenter-version", "1.12.0", "--fail-on", "change"]);
    assert_eq!(code, 0, "the same version changes nothing");
}

/// A list of diff rows without the parts that moved each (`causes`, `attribution`): two
/// manifests and four `--set` are different parts by construction, with the same effect.
fn without_causes(rows: &Value) -> Value {
    let mut rows = rows.clone();
    for row in rows.as_array_mut().into_iter().flatten() {
        if let Some(o) = row.as_object_mut() {
            o.remove("causes");
            o.remove("attribution");
        }
    }
    rows
}

/// The README's diff example: the prescribed fix as hand-written manifests
/// (`tests/manifests/demo-two-replicas-spread`) and as the `--set` what-ifs it quotes give the
/// same verdicts, the same rounds and spare the same workloads.
#[test]
fn the_spread_manifests_and_the_readme_set_agree() {
    let (with_f, code) = json(&["--demo", "diff", "-f", &manifest("demo-two-replicas-spread")]);
    assert_eq!(code, 0);
    let mut args = vec!["--demo", "diff"];
    for set in [
        "deployment/tenant-a/app-b.spread=hostname",
        "deployment/tenant-a/app-b.replicas=2",
        "deployment/tenant-a/app-c.spread=hostname",
        "deployment/tenant-a/app-c.replicas=2",
    ] {
        args.extend(["--set", set]);
    }
    let (with_set, _) = json(&args);
    for key in ["nodes", "before", "after", "toZeroReady", "noLongerZeroReady", "commandChanges"] {
        assert_eq!(without_causes(&with_f[key]), without_causes(&with_set[key]), "{key}");
    }
    let changes = with_f["changes"].as_array().expect("changes");
    assert_eq!(
        changes[0]["fields"],
        serde_json::json!(["spec.replicas", "spec.template.spec.topologySpreadConstraints"])
    );
    assert_eq!(with_f["toZeroReady"], serde_json::json!([]));
}

#[test]
fn a_manifest_and_the_same_set_agree() {
    let (with_f, code) = json(&["--demo", "diff", "-f", &manifest("demo-two-replicas")]);
    assert_eq!(code, 0);
    let (with_set, _) = json(&[
        "--demo",
        "diff",
        "--set",
        "deployment/tenant-a/app-b.replicas=2",
        "--set",
        "deployment/tenant-a/app-c.replicas=2",
    ]);
    for key in ["nodes", "before", "after", "toZeroReady", "noLongerZeroReady"] {
        let strip = |v: &Value| {
            let mut v = v.clone();
            for n in v.as_array_mut().into_iter().flatten() {
                n.as_object_mut().map(|o| o.remove("causes"));
            }
            v
        };
        assert_eq!(strip(&with_f[key]), strip(&with_set[key]), "{key}");
    }
    let changes = with_f["changes"].as_array().expect("changes");
    assert_eq!(changes.len(), 2);
    assert_eq!(changes[0]["target"], "Deployment/tenant-a/app-b");
    assert_eq!(changes[0]["fields"], serde_json::json!(["spec.replicas"]), "the template matches its pods: no rollout");
    let ignored = with_f["ignored"].as_array().expect("the Services are named");
    assert!(ignored.iter().any(|i| i.as_str().is_some_and(|i| i.starts_with("Service/tenant-a/app-b"))), "{ignored:?}");
}

#[test]
fn a_manifest_the_api_server_refuses_is_an_error_at_its_line() {
    let out = bin().args(["--demo", "diff", "-f", &manifest("bad/pdb-both.yaml")]).output().expect("runs");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("pdb-both.yaml:10:3"), "{stderr}");
    assert!(stderr.contains("spec.maxUnavailable"), "{stderr}");
    assert!(out.stdout.is_empty(), "nothing is replayed");
}

#[test]
fn diff_needs_a_change() {
    let out = bin().args(["--demo", "diff"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("diff needs a change"));
}

#[test]
fn stdin_is_read_once() {
    let out = bin().args(["--snapshot", "-", "diff", "-f", "-"]).output().expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("stdin"));
}

#[test]
fn a_budget_change_in_a_manifest_is_attributed_to_its_field() {
    let dir = tempfile::tempdir().expect("temp dir");
    let pool = "\
apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: default
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements: []
  disruption:
    consolidationPolicy: WhenEmptyOrUnderutilized
    consolidateAfter: 0s
    budgets:
    - nodes: \"0\"
";
    std::fs::write(dir.path().join("pool.yaml"), pool).expect("write");
    let (doc, code) = json(&["--demo", "diff", "-f", &dir.path().display().to_string(), "--fail-on", "change"]);
    assert_eq!(code, 3, "a node moves");
    let change = &doc["changes"][0];
    assert_eq!(change["target"], "NodePool/default");
    let fields: Vec<&str> = change["fields"].as_array().expect("fields").iter().filter_map(Value::as_str).collect();
    assert!(fields.iter().any(|f| f.starts_with("spec.disruption.budgets")), "{fields:?}");
    assert_eq!(doc["after"]["commandCount"], 0, "a zero budget stops the round");
}

/// RFC 7386: `patch` merged into `target` (`null` removes a member), as `kubectl patch
/// --type=merge` applies it.
fn merge_patch(target: &mut Value, patch: &Value) {
    let Value::Object(members) = patch else {
        *target = patch.clone();
        return;
    };
    if !target.is_object() {
        *target = serde_json::json!({});
    }
    let object = target.as_object_mut().expect("an object");
    for (key, value) in members {
        if value.is_null() {
            object.remove(key);
        } else {
            merge_patch(object.entry(key.clone()).or_insert(Value::Null), value);
        }
    }
}

/// The Deployments `plan --demo`'s cheapest fix leaves behind: each one as the cluster has it
/// (`tests/manifests/demo-two-replicas`, whose template matches its pods), then the fix's
/// commands run on it in order: `kubectl scale … --replicas=N` and `kubectl patch … --type=merge
/// -p '…'`. Written to `dir`, one file per Deployment.
fn apply_fix_commands(commands: &[Value], dir: &std::path::Path) {
    let mut objects: std::collections::BTreeMap<String, Value> = std::collections::BTreeMap::new();
    let object_of = |name: &str| -> Value {
        let text =
            std::fs::read_to_string(root().join("tests/manifests/demo-two-replicas").join(format!("{name}.yaml")))
                .expect("the demo's manifest");
        let deployment: Value = serde_saphyr::from_multiple::<Value>(&text).expect("YAML").remove(0);
        assert_eq!(deployment["kind"], "Deployment");
        deployment
    };
    for command in commands {
        let command = command.as_str().expect("a command");
        if let Some(rest) = command.strip_prefix("kubectl scale deployment/") {
            let (name, rest) = rest.split_once(' ').expect("a name");
            let replicas: i64 = rest.rsplit_once("--replicas=").expect("--replicas").1.parse().expect("a count");
            let object = objects.entry(name.to_owned()).or_insert_with(|| object_of(name));
            object["spec"]["replicas"] = replicas.into();
        } else if let Some(rest) = command.strip_prefix("kubectl patch deployment ") {
            let (name, rest) = rest.split_once(' ').expect("a name");
            let payload = rest.split_once(" -p '").expect("a payload").1.strip_suffix('\'').expect("quoted");
            let payload: Value = serde_json::from_str(payload).expect("the payload is JSON");
            let object = objects.entry(name.to_owned()).or_insert_with(|| object_of(name));
            merge_patch(object, &payload);
        } else {
            panic!("a command this test does not replay: {command}");
        }
    }
    for (name, object) in objects {
        // JSON is YAML: the manifest reader takes it as it is.
        std::fs::write(dir.join(format!("{name}.yaml")), serde_json::to_string_pretty(&object).unwrap())
            .expect("write");
    }
}

/// Issue 36's "done means": the fix `plan --demo` prints first under app-b and app-c, applied
/// as its `--set` what-ifs and as the manifests its commands leave (`diff -f`), moves the same
/// nodes and spares the same workloads. Both roll the patched template's pods and place them
/// before the round (`whatif.rs` `roll_with`, `manifest/apply.rs` `roll`), so node-x is left
/// empty and goes by Emptiness (karpenter `pkg/controllers/disruption/emptiness.go`).
#[test]
fn the_prescribed_fix_as_a_manifest_agrees_with_its_set() {
    let (plan, _) = json(&["--demo", "plan"]);
    let app_b =
        plan["impact"].as_array().unwrap().iter().find(|w| w["workload"] == "Deployment/tenant-a/app-b").unwrap();
    let fix = &app_b["prescription"]["fixes"][0];
    assert_eq!(fix["kind"], "replicas", "{fix}");
    let dir = tempfile::tempdir().expect("temp dir");
    apply_fix_commands(fix["commands"].as_array().expect("commands"), dir.path());
    let (with_f, code) = json(&["--demo", "diff", "-f", &dir.path().display().to_string()]);
    assert_eq!(code, 0);
    let mut args = vec!["--demo", "diff"];
    for set in fix["whatIf"].as_array().unwrap() {
        args.extend(["--set", set.as_str().unwrap()]);
    }
    let (with_set, _) = json(&args);
    for key in ["nodes", "placed", "toZeroReady", "noLongerZeroReady", "commandChanges"] {
        assert_eq!(without_causes(&with_f[key]), without_causes(&with_set[key]), "{key}");
    }
    assert_eq!(with_f["after"]["savings"], with_set["after"]["savings"]);
    assert_eq!(with_f["toZeroReady"], serde_json::json!([]), "nobody newly goes to zero");
    assert_eq!(
        with_f["noLongerZeroReady"],
        serde_json::json!(["Deployment/tenant-a/app-b", "Deployment/tenant-a/app-c"])
    );
    let added = with_f["commandChanges"]["added"].as_array().expect("added commands");
    assert!(added.iter().any(|c| c.to_string().contains("Emptiness") && c.to_string().contains("node-x")), "{added:?}");
}
