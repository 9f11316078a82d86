//! The fixes tried for one harmed workload, in a fixed order and at most one of each kind:
//!
//! 1. **replicas**: a workload of one replica goes to two, spread over `kubernetes.io/hostname`,
//!    so one node's disruption takes one of them (what `pdb-audit` advises for
//!    `SingleReplicaEvictable`);
//! 2. **pdb**: its one PodDisruptionBudget made `maxUnavailable: 1` when it has two replicas or
//!    more (evictions in turns, the node still goes), else `minAvailable: 1` (which refuses the
//!    eviction: it protects by pinning the node, and the replay says so in its cost);
//! 3. **do-not-disrupt**: `karpenter.sh/do-not-disrupt` on its pods on the disrupted nodes, where
//!    the pod must not move (karpenter `pkg/utils/pod/scheduling.go` `IsDoNotDisruptActive`);
//! 4. **nodepool**: the NodePool of those nodes stops the disruption that harms it:
//!    `consolidateAfter: Never` for a consolidation (karpenter `pkg/apis/v1/nodepool.go`
//!    `Disruption.ConsolidateAfter`), a budget of zero nodes for drift (`Budget.Nodes`), which
//!    consolidateAfter does not stop.
//!
//! Each is a list of `--set` what-ifs (`src/whatif.rs`), so its replay is the one a user gets
//! with the same flags, and the `kubectl` commands that make the change for real.

use serde_json::json;

use super::commands;
use super::{FixKind, Harmed};
use crate::audit::budget::Rule;
use crate::engine::nodepool::DisruptionReason;
use crate::snapshot::Snapshot;

/// Pods annotated at most by one do-not-disrupt fix (its command lists one line per pod).
const MAX_ANNOTATED_PODS: usize = 10;

/// One fix to replay.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Candidate {
    pub kind: FixKind,
    /// The change in words.
    pub change: String,
    /// The `--set` forms that replay it, in the order applied.
    pub what_if: Vec<String>,
    /// The commands that make it.
    pub commands: Vec<String>,
}

/// The fixes to try for `harmed`, given the nodes the unfixed replay disrupts and why.
pub(crate) fn for_workload(
    snapshot: &Snapshot,
    harmed: &Harmed,
    disrupted: &std::collections::BTreeMap<String, DisruptionReason>,
) -> Vec<Candidate> {
    let mut out = Vec::new();
    out.extend(replicas(snapshot, harmed));
    out.extend(pdb(snapshot, harmed));
    out.extend(do_not_disrupt(harmed));
    out.extend(node_pool(snapshot, harmed, disrupted));
    out
}

/// The replicas fix of every workload in `harmed` at once, when two or more have one: spreading
/// one workload rolls its pods off the node the round deletes, and the room they leave can let
/// the round take another node (and the single replica there) instead; spreading them all can
/// leave that node with nothing to move (the demo: node-x goes empty).
pub(crate) fn replicas_together(snapshot: &Snapshot, harmed: &[Harmed]) -> Option<Candidate> {
    let each: Vec<(String, Candidate)> =
        harmed.iter().filter_map(|h| Some((h.name.clone(), replicas(snapshot, h)?))).collect();
    if each.len() < 2 {
        return None;
    }
    let names: Vec<&str> = each.iter().map(|(name, _)| name.as_str()).collect();
    Some(Candidate {
        kind: FixKind::Replicas,
        change: format!("{} each at 2 replicas spread over kubernetes.io/hostname, together", names.join(" and ")),
        what_if: each.iter().flat_map(|(_, c)| c.what_if.clone()).collect(),
        commands: each.iter().flat_map(|(_, c)| c.commands.clone()).collect(),
    })
}

fn scalable(kind: &str) -> Option<&'static str> {
    match kind {
        "Deployment" => Some("deployment"),
        "StatefulSet" => Some("statefulset"),
        _ => None,
    }
}

fn replicas(snapshot: &Snapshot, h: &Harmed) -> Option<Candidate> {
    let kind = scalable(&h.kind)?;
    if h.replicas >= 2 {
        // Its replicas already exist; spreading them needs a rollout the replay cannot show.
        return None;
    }
    let (ns, name) = (h.namespace.as_str(), h.name.as_str());
    let wanted = 2;
    let what_if = vec![format!("{kind}/{ns}/{name}.spread=hostname"), format!("{kind}/{ns}/{name}.replicas={wanted}")];
    let hpa = snapshot.hpas.iter().find(|a| {
        a.metadata.namespace() == ns && a.spec.scale_target_ref.kind == h.kind && a.spec.scale_target_ref.name == name
    });
    let scale = match hpa {
        Some(a) => commands::hpa_min_replicas(ns, &a.metadata.name, wanted),
        None => commands::scale(&h.kind, ns, name, wanted),
    };
    let spread = spread_patch(snapshot, h, kind);
    Some(Candidate {
        kind: FixKind::Replicas,
        change: format!("{wanted} replicas spread over kubernetes.io/hostname (scaled first: the template patch then rolls them one at a time)"),
        what_if,
        commands: vec![scale, spread],
    })
}

/// The merge patch that adds the hostname spread to the template, keeping its other spreads (a
/// merge patch replaces a list whole, RFC 7386). Patching the template rolls the pods out.
fn spread_patch(snapshot: &Snapshot, h: &Harmed, kind: &str) -> String {
    let items = if h.kind == "Deployment" { &snapshot.deployments } else { &snapshot.stateful_sets };
    let object = items.iter().find(|d| d.metadata.namespace() == h.namespace && d.metadata.name == h.name);
    let first_pod = snapshot.pods.iter().find(|p| h.pods.first() == Some(&p.metadata.key()));
    let mut spreads = object
        .map(|o| o.spec.template.spec.topology_spread_constraints.clone())
        .filter(|s| !s.is_empty())
        .or_else(|| first_pod.map(|p| p.spec.topology_spread_constraints.clone()))
        .unwrap_or_default();
    spreads.retain(|c| c.topology_key != "kubernetes.io/hostname");
    let selector = object
        .and_then(|o| o.spec.selector.as_ref()?.match_labels.clone())
        .filter(|l| !l.is_empty())
        .or_else(|| {
            first_pod.map(|p| {
                let mut labels = p.metadata.labels.clone();
                labels.remove("pod-template-hash");
                labels.remove("controller-revision-hash");
                labels
            })
        })
        .unwrap_or_default();
    spreads.push(crate::whatif::hostname_spread(&selector));
    let payload = json!({"spec": {"template": {"spec": {"topologySpreadConstraints": spreads}}}});
    commands::merge_patch(kind, Some(&h.namespace), &h.name, &payload)
}

fn pdb(snapshot: &Snapshot, h: &Harmed) -> Option<Candidate> {
    let key = h.pdb.as_ref()?;
    let pdb = snapshot.pdbs.iter().find(|p| p.metadata.key() == *key)?;
    let rule = Rule::of(&pdb.spec);
    let (field, value) = if h.replicas >= 2 { ("maxUnavailable", 1) } else { ("minAvailable", 1) };
    if rule.to_string() == format!("{field}: {value}") {
        return None;
    }
    let mut spec = serde_json::Map::new();
    if let Some(other) = rule.field().filter(|other| *other != field) {
        // Both cannot be set; a merge patch's `null` removes the other (RFC 7386).
        spec.insert(other.to_owned(), serde_json::Value::Null);
    }
    spec.insert(field.to_owned(), json!(value));
    let (ns, name) = (pdb.metadata.namespace(), pdb.metadata.name.as_str());
    Some(Candidate {
        kind: FixKind::Pdb,
        change: format!("PDB {key} {field}: {value}"),
        what_if: vec![format!("pdb/{ns}/{name}.{field}={value}")],
        commands: vec![commands::merge_patch("pdb", Some(ns), name, &json!({"spec": spec}))],
    })
}

fn do_not_disrupt(h: &Harmed) -> Option<Candidate> {
    if h.kind == "DaemonSet" || h.pods.is_empty() {
        return None;
    }
    let pods: Vec<(&str, &str)> = h.pods.iter().take(MAX_ANNOTATED_PODS).filter_map(|k| k.split_once('/')).collect();
    if pods.len() < h.pods.len() {
        return None;
    }
    let names: Vec<String> = h.pods.clone();
    Some(Candidate {
        kind: FixKind::DoNotDisrupt,
        change: format!("karpenter.sh/do-not-disrupt on {}", names.join(", ")),
        what_if: pods.iter().map(|(ns, name)| format!("pod/{ns}/{name}.do-not-disrupt=true")).collect(),
        commands: pods.iter().map(|(ns, name)| commands::annotate_do_not_disrupt(ns, name)).collect(),
    })
}

fn node_pool(
    snapshot: &Snapshot,
    h: &Harmed,
    disrupted: &std::collections::BTreeMap<String, DisruptionReason>,
) -> Option<Candidate> {
    let mut pools: std::collections::BTreeMap<String, DisruptionReason> = std::collections::BTreeMap::new();
    for node in &h.nodes {
        let Some(reason) = disrupted.get(node) else { continue };
        let pool = snapshot
            .nodes
            .iter()
            .find(|n| n.metadata.name == *node)
            .and_then(|n| n.metadata.labels.get(crate::engine::labels::NODEPOOL).cloned());
        if let Some(pool) = pool {
            pools.entry(pool).or_insert(*reason);
        }
    }
    if pools.is_empty() {
        return None;
    }
    let mut what_if = Vec::new();
    let mut commands = Vec::new();
    let mut words = Vec::new();
    for (pool, reason) in &pools {
        let (field, value, payload) = match reason {
            DisruptionReason::Drifted => {
                ("budgets", "0", json!({"spec": {"disruption": {"budgets": [{"nodes": "0"}]}}}))
            }
            _ => ("consolidateAfter", "Never", json!({"spec": {"disruption": {"consolidateAfter": "Never"}}})),
        };
        what_if.push(format!("nodepool/{pool}.{field}={value}"));
        commands.push(commands::merge_patch("nodepool", None, pool, &payload));
        words.push(match reason {
            DisruptionReason::Drifted => format!("NodePool {pool} budget nodes: 0"),
            _ => format!("NodePool {pool} consolidateAfter: Never"),
        });
    }
    Some(Candidate { kind: FixKind::NodePool, change: words.join(", "), what_if, commands })
}
