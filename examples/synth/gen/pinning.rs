//! Pods pinned to their node: the cluster where no candidate can move (the long SingleNode walk).

use k8s_openapi::api::core::v1::{Affinity, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm};
use kubectl_consolidation::snapshot::Pod;

/// Pins `pct` % of the bound application pods, DaemonSet pods aside (evenly by position, so the
/// choice is deterministic), to its node with a required `kubernetes.io/hostname` node affinity.
pub(super) fn pin_to_nodes(pods: &mut [Pod], pct: f64) {
    if pct <= 0.0 {
        return;
    }
    let mut seen = 0.0_f64;
    let mut pinned = 0.0_f64;
    for pod in pods {
        let daemon = pod.metadata.owner_references.iter().any(|o| o.kind == "DaemonSet");
        let Some(node) = pod.spec.node_name.clone().filter(|_| !daemon) else { continue };
        seen += 1.0;
        // Pin while the pinned share is behind `pct`: an even spread at any percentage.
        if pinned * 100.0 >= seen * pct {
            continue;
        }
        pinned += 1.0;
        let term = NodeSelectorTerm {
            match_expressions: Some(vec![NodeSelectorRequirement {
                key: "kubernetes.io/hostname".into(),
                operator: "In".into(),
                values: Some(vec![node]),
            }]),
            match_fields: None,
        };
        let affinity = pod.spec.affinity.get_or_insert_with(Affinity::default);
        affinity
            .node_affinity
            .get_or_insert_with(NodeAffinity::default)
            .required_during_scheduling_ignored_during_execution =
            Some(NodeSelector { node_selector_terms: vec![term] });
    }
}
