//! Every input a fuzz target (`fuzz/`) ever failed on, under `tests/fuzz-regressions/<target>/`,
//! checked with that target's oracle in the normal test suite (no nightly needed). The
//! `render` and `forecast` targets' oracles are also checked over their seeds and the bad
//! inputs, and as properties over generated hostile snapshots, so CI checks them without a
//! fuzzer.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use kubectl_consolidation::forecast_oracle::forecast_overrun;
use kubectl_consolidation::quantity::Quantity;
use kubectl_consolidation::redaction_oracle::redaction_differences;
use kubectl_consolidation::snapshot::yaml_options;
use kubectl_consolidation::snapshot::Snapshot;
use kubectl_consolidation::source::file::{read_bytes, read_path};
use kubectl_consolidation::terminal_oracle::raw_characters;
use proptest::prelude::*;
use serde_json::Value;

fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    files_in(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions").join(target))
}

/// Every file of `dir` (none when it does not exist), sorted by path.
fn files_in(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut out: Vec<(String, Vec<u8>)> =
        entries.map(|e| e.unwrap().path()).map(|p| (p.display().to_string(), std::fs::read(&p).unwrap())).collect();
    out.sort();
    out
}

#[test]
fn quantity_inputs_print_back_to_the_same_value() {
    for (name, data) in inputs("quantity") {
        let Ok(text) = std::str::from_utf8(&data) else { continue };
        if let Ok(q) = text.parse::<Quantity>() {
            assert_eq!(q.to_string().parse::<Quantity>().ok(), Some(q), "{name}");
        }
    }
}

#[test]
fn loader_inputs_load_or_fail_with_a_diagnostic() {
    for target in ["load_yaml", "load_json"] {
        for (name, data) in inputs(target) {
            let streamed = Snapshot::from_json_reader(data.as_slice());
            if let (Some(streamed), Ok(text)) = (streamed, std::str::from_utf8(&data)) {
                assert_eq!(Snapshot::from_json(text).ok().as_ref(), Some(&streamed), "{name}");
            }
            if let Err(e) = read_bytes(data.clone(), "fuzz") {
                let mut out = String::new();
                miette::GraphicalReportHandler::new().render_report(&mut out, &e).unwrap();
            }
        }
    }
}

/// Every file under `tests/` that is not JSON (fixtures, scenarios, the hostile inputs and the
/// fuzzer's), decoded as it is parsed, gives what parsing the whole stream first and decoding
/// its documents gives: the same snapshot or the same first error. Or the fast path gives up.
#[test]
fn streamed_yaml_is_the_whole_stream_decoded() {
    let tests = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut files = inputs("load_yaml");
    for dir in ["bad-input", "fixtures"] {
        files.extend(files_in(&tests.join(dir)));
    }
    for scenario in std::fs::read_dir(tests.join("scenarios")).unwrap() {
        files.extend(files_in(&scenario.unwrap().path()));
    }
    let (mut streamed, mut failed) = (0, 0);
    for (name, data) in files {
        let Ok(text) = std::str::from_utf8(&data) else { continue };
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        if text.trim_start().starts_with(['{', '[']) {
            continue;
        }
        let Some(answer) = Snapshot::from_yaml(text, yaml_options(text)) else { continue };
        let documents = serde_saphyr::from_multiple_with_options::<Value>(text, yaml_options(text));
        let whole = documents.map_or_else(|e| panic!("{name}: {e}"), Snapshot::from_documents);
        assert_eq!(answer, whole, "{name}");
        streamed += 1;
        failed += usize::from(answer.is_err());
    }
    assert!(streamed > 500 && failed > 5, "{streamed} streamed, {failed} of them errors");
}

#[test]
fn replay_inputs_keep_their_verdicts_through_redaction() {
    for (name, data) in inputs("replay") {
        let Ok(snapshot) = read_bytes(data, "fuzz") else { continue };
        let now = snapshot.info.captured_at.unwrap_or_else(|| "2026-11-29T10:00:00Z".parse().unwrap());
        let differences = redaction_differences(&snapshot, now);
        assert!(differences.is_empty(), "{name}: {differences:#?}");
    }
}

#[test]
fn selector_inputs_agree_between_admit_and_compatible() {
    use kubectl_consolidation::engine::scheduling::requirements::Requirements;
    use kubectl_consolidation::snapshot::StringMap;
    #[derive(serde::Deserialize)]
    struct Input {
        #[serde(default)]
        requirements: Vec<k8s_openapi::api::core::v1::NodeSelectorRequirement>,
        #[serde(default)]
        labels: BTreeMap<String, String>,
    }
    for (name, data) in inputs("selectors") {
        let Ok(input) = serde_json::from_slice::<Input>(&data) else { continue };
        let labels: StringMap = input.labels.into_iter().collect();
        let pod = Requirements::from_k8s(&input.requirements);
        let compatible = Requirements::from_labels(&labels).compatible(&pod, &|_| false).is_ok();
        assert_eq!(pod.admit_labels(|k| labels.get(k).map(String::as_str)), compatible, "{name}");
    }
}

/// The `render` and `forecast` targets' inputs: what they failed on, their seeds, and every
/// bad input and scenario file that loads.
fn snapshots_for(target: &str) -> Vec<(String, Snapshot)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = inputs(target);
    files.extend(files_in(&root.join("fuzz/seeds").join(target)));
    files.extend(files_in(&root.join("tests/bad-input")));
    files.into_iter().filter_map(|(name, data)| Some((name, read_bytes(data, "fuzz").ok()?))).collect()
}

#[test]
fn render_inputs_print_no_raw_control_character() {
    let snapshots = snapshots_for("render");
    assert!(snapshots.len() >= 12, "only {} inputs load", snapshots.len());
    for (name, snapshot) in snapshots {
        let raw = raw_characters(&snapshot);
        assert!(raw.is_empty(), "{name}: {raw:#?}");
    }
}

#[test]
fn forecast_inputs_end_within_their_round_bound() {
    for (name, snapshot) in snapshots_for("forecast") {
        for rounds in [None, Some(3)] {
            let overrun = forecast_overrun(&snapshot, rounds, Duration::from_secs(30));
            assert!(overrun.is_none(), "{name}: {overrun:?}");
        }
    }
}

/// Strings a tenant can write into a name, a label or a message: escapes, line breaks, bidi
/// and zero-width characters, C1 controls, among plain letters.
fn hostile() -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "a",
        "-",
        ".",
        "\x1b",
        "\x1b[2K",
        "\x1b]8;;http://x\x07",
        "\r",
        "\n",
        "\t",
        "\x00",
        "\x7f",
        "\u{85}",
        "\u{9b}",
        "\u{202e}",
        "\u{2066}",
        "\u{200b}",
        "\u{feff}",
        "\u{61c}",
        "é",
        "$999999/h",
    ]);
    prop::collection::vec(pieces, 1..8).prop_map(|p| p.concat())
}

/// `value` with every string (and map key) equal to one of `names` replaced by its hostile
/// twin, so references (a pod's `nodeName`, a label) keep resolving.
fn renamed(value: &mut Value, names: &BTreeMap<String, String>) {
    match value {
        Value::String(s) => {
            if let Some(new) = names.get(s.as_str()) {
                *s = new.clone();
            }
        }
        Value::Array(items) => items.iter_mut().for_each(|v| renamed(v, names)),
        Value::Object(map) => {
            let entries = std::mem::take(map);
            for (k, mut v) in entries {
                renamed(&mut v, names);
                map.insert(names.get(&k).cloned().unwrap_or(k), v);
            }
        }
        _ => {}
    }
}

fn baseline() -> Snapshot {
    read_path(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad-input/baseline.yaml")).unwrap()
}

/// The names of the baseline a hostile twin may replace: every node, pod, pool, claim and
/// namespace name, and a label value and key.
fn baseline_names(s: &Snapshot) -> Vec<String> {
    let mut names: Vec<String> = s.nodes.iter().map(|n| n.metadata.name.clone()).collect();
    names.extend(s.pods.iter().map(|p| p.metadata.name.clone()));
    names.extend(s.pods.iter().filter_map(|p| p.metadata.namespace.clone()));
    names.extend(s.node_pools.iter().map(|p| p.metadata.name.clone()));
    names.extend(s.node_claims.iter().map(|c| c.metadata.name.clone()));
    names.extend(s.pdbs.iter().map(|b| b.metadata.name.clone()));
    names.extend(s.pods.iter().flat_map(|p| p.metadata.labels.iter().flat_map(|(k, v)| [k.clone(), v.clone()])));
    names.sort();
    names.dedup();
    names.retain(|n| !n.is_empty());
    names
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn hostile_names_print_no_raw_control_character(
        picks in prop::collection::vec((any::<prop::sample::Index>(), hostile()), 1..6),
        message in hostile(),
    ) {
        let base = baseline();
        let names = baseline_names(&base);
        let twins: BTreeMap<String, String> =
            picks.into_iter().map(|(i, twin)| (i.get(&names).clone(), twin)).collect();
        let mut document = base.to_document();
        renamed(&mut document, &twins);
        // A condition message is free text, shown by `explain`.
        if let Some(node) = document["items"].as_array_mut().and_then(|items| items.iter_mut().find(|i| i["kind"] == "Node")) {
            node["status"]["conditions"] = serde_json::json!([{"type": "Ready", "status": "True", "message": message}]);
        }
        // A twin that makes the snapshot invalid (two names made equal) is the loader's business.
        if let Ok(snapshot) = Snapshot::from_documents(vec![document]) {
            let raw = raw_characters(&snapshot);
            prop_assert!(raw.is_empty(), "{twins:?}: {raw:#?}");
        }
    }

    #[test]
    fn hostile_budgets_end_the_forecast_within_its_bound(
        budgets in prop::collection::vec((
            prop::sample::select(vec!["0", "1", "0%", "10%", "100%", "5"]),
            prop::option::of(prop::sample::select(vec![
                "* * * * *", "@daily", "@hourly", "0 0 31 2 *", "*/5 * * * *", "0 9 * * 1-5", "@yearly",
                "59 23 31 12 *", "0 0 29 2 *", "not a schedule",
            ])),
            prop::sample::select(vec!["1m", "1h", "24h", "0s", "8760h", "23h59m"]),
            prop::option::of(prop::sample::select(vec!["Underutilized", "Empty", "Drifted"])),
        ), 0..4),
        rounds in prop::option::of(1usize..5),
    ) {
        let mut document = baseline().to_document();
        let list: Vec<Value> = budgets
            .iter()
            .map(|(nodes, schedule, duration, reason)| {
                let mut b = serde_json::json!({"nodes": nodes});
                if let Some(schedule) = schedule {
                    b["schedule"] = (*schedule).into();
                    b["duration"] = (*duration).into();
                }
                if let Some(reason) = reason {
                    b["reasons"] = serde_json::json!([reason]);
                }
                b
            })
            .collect();
        for pool in document["items"].as_array_mut().into_iter().flatten().filter(|i| i["kind"] == "NodePool") {
            pool["spec"]["disruption"]["budgets"] = Value::Array(list.clone());
        }
        if let Ok(snapshot) = Snapshot::from_documents(vec![document]) {
            let overrun = forecast_overrun(&snapshot, rounds, Duration::from_secs(30));
            prop_assert!(overrun.is_none(), "{budgets:?} --rounds {rounds:?}: {overrun:?}");
        }
    }
}
