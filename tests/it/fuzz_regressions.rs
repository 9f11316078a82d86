//! Every input a fuzz target (`fuzz/`) ever failed on, under `tests/fuzz-regressions/<target>/`,
//! checked with that target's oracle in the normal test suite (no nightly needed).

use std::collections::BTreeMap;
use std::path::Path;

use kubectl_consolidation::quantity::Quantity;
use kubectl_consolidation::redaction_oracle::redaction_differences;
use kubectl_consolidation::snapshot::Snapshot;
use kubectl_consolidation::source::file::read_bytes;

fn inputs(target: &str) -> Vec<(String, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-regressions").join(target);
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
