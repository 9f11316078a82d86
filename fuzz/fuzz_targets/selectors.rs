//! Node selector requirements and label selectors, from JSON:
//! `{"requirements": [NodeSelectorRequirement], "labels": {k: v}, "selector": LabelSelector}`.
//! Never panics, and admitting a node's labels agrees with `Compatible` on those labels.
#![no_main]

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::NodeSelectorRequirement;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kubectl_consolidation::engine::labels::selector_matches;
use kubectl_consolidation::engine::scheduling::requirements::Requirements;
use kubectl_consolidation::snapshot::StringMap;
use libfuzzer_sys::fuzz_target;

#[derive(serde::Deserialize)]
struct Input {
    #[serde(default)]
    requirements: Vec<NodeSelectorRequirement>,
    #[serde(default)]
    labels: BTreeMap<String, String>,
    #[serde(default)]
    selector: Option<LabelSelector>,
}

fuzz_target!(|data: &[u8]| {
    let Ok(input) = serde_json::from_slice::<Input>(data) else { return };
    let labels: StringMap = input.labels.into_iter().collect();
    let _ = selector_matches(input.selector.as_ref(), &labels);
    let pod = Requirements::from_k8s(&input.requirements);
    let node = Requirements::from_labels(&labels);
    let compatible = node.compatible(&pod, &|_| false).is_ok();
    let admitted = pod.admit_labels(|key| labels.get(key).map(String::as_str));
    assert_eq!(admitted, compatible, "admit_labels and compatible disagree");
    let mut both = pod.clone();
    both.add_all(&node);
    let _ = both.compatible(&pod, &|_| true);
});
