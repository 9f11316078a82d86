//! `MultiplePDBs` (critical): pods selected by more than one PDB, which the eviction API refuses
//! to evict (Karpenter's `Limits.CanEvictPods` says so for the node).

use std::collections::BTreeMap;

use foldhash::HashMap;

use crate::audit::code::FindingCode;
use crate::audit::context::{Context, Draft};
use crate::audit::finding::Fix;
use crate::audit::fixes::list;
use crate::audit::placement::place;
use crate::audit::view::View;
use crate::engine::pdb::EvictionBlock;
use crate::snapshot::{Pod, PodDisruptionBudget};

/// Pods selected by more than one PDB: the eviction API refuses them.
pub(super) fn multiple_pdbs<'a>(ctx: &Context<'a>) -> Vec<Draft<'a>> {
    let mut groups: BTreeMap<Vec<String>, (Vec<&'a Pod>, String)> = BTreeMap::new();
    // Keys → the first pod and PDB of that key, as a front-to-back search finds them; built
    // once, not searched per blocked pod.
    let mut pods_by_key: HashMap<String, &'a Pod> = HashMap::default();
    for p in ctx.pods.iter().rev() {
        pods_by_key.insert(p.metadata.key(), p);
    }
    for block in ctx.limits.can_evict_pods(&ctx.pods, ctx.now) {
        let message = block.message();
        if let EvictionBlock::MultiplePdbs { pod, pdbs } = block {
            if let Some(p) = pods_by_key.get(&pod).copied() {
                groups.entry(pdbs).or_insert_with(|| (Vec::new(), message)).0.push(p);
            }
        }
    }
    let mut pdbs_by_key: HashMap<String, &'a PodDisruptionBudget> = HashMap::default();
    if !groups.is_empty() {
        for b in ctx.pdbs.iter().rev() {
            pdbs_by_key.insert(b.metadata.key(), b);
        }
    }
    let mut out = Vec::new();
    for (pdbs, (pods, karpenter_message)) in groups {
        let Some(first) = pdbs.first().and_then(|key| pdbs_by_key.get(key)).copied() else { continue };
        let view = View::new(ctx, first);
        let names: Vec<String> = pods.iter().map(|p| p.metadata.key()).collect();
        let (nodes, _, _) = place(ctx, &pods);
        let message = format!(
            "{} {} selected by {} PodDisruptionBudgets ({}): the eviction API refuses to evict {}, so Karpenter won't disrupt {} ({karpenter_message})",
            list(&names, 2),
            if names.len() == 1 { "is" } else { "are" },
            pdbs.len(),
            list(&pdbs, 4),
            if names.len() == 1 { "it" } else { "them" },
            if nodes.is_empty() { "their nodes".to_owned() } else { list(&nodes, 3) }
        );
        let last = pdbs.last().map_or("", String::as_str);
        let (namespace, name) = last.split_once('/').unwrap_or(("default", last));
        let fix = Fix::new(
            format!("keep one budget per pod: narrow one selector so they no longer overlap (kubectl edit pdb {name} -n {namespace}), or delete the redundant one (kubectl delete pdb {name} -n {namespace})"),
            format!("pods only {last} selected lose its protection, so check what its selector matches first"),
        );
        let workload = pods.first().and_then(|p| ctx.owner(p));
        let mut draft = view.finding(FindingCode::MultiplePdbs, workload, &pods, message, fix);
        let finding = &mut draft.finding;
        finding.subject.pdbs = pdbs;
        finding.subject.pods = names;
        finding.facts.budget = None;
        finding.facts.allowed = None;
        finding.facts.status = None;
        out.push(draft);
    }
    out
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::audit::fixtures::{audit, cluster, codes, deployment, pdb, pod};
    use crate::audit::{FindingCode, PdbFinding, Severity};

    /// A pod under two PDBs: the eviction API refuses it, so Karpenter treats its node as blocked.
    #[test]
    fn a_pod_under_two_pdbs() {
        let mut docs = cluster(None);
        docs.extend(deployment("web", 2));
        docs.push(pod("web-0", "web", "node-a"));
        docs.push(pod("web-1", "web", "node-b"));
        docs.push(pdb("web", "web", &json!({"maxUnavailable": 1}), [2, 2, 1, 1]));
        let mut everything = pdb("all", "web", &json!({"maxUnavailable": 1}), [2, 2, 1, 1]);
        everything["spec"]["selector"] = json!({});
        docs.push(everything);
        let audit = audit(docs);
        let multiple: Vec<&PdbFinding> =
            audit.findings.iter().filter(|f| f.code == FindingCode::MultiplePdbs).collect();
        assert_eq!(multiple.len(), 1, "{:#?}", codes(&audit));
        let f = multiple[0];
        assert_eq!(f.severity, Severity::Critical);
        assert_eq!(f.subject.pdbs, ["ns/all", "ns/web"]);
        assert_eq!(f.subject.pods, ["ns/web-0", "ns/web-1"]);
        assert_eq!(f.subject.nodes, ["node-a", "node-b"]);
        assert!(
            f.message.contains("eviction does not support multiple PDBs (PodDisruptionBudget(s)=[ns/all ns/web])"),
            "{}",
            f.message
        );
        assert_eq!(audit.findings[0].code, FindingCode::MultiplePdbs, "critical findings come first");
    }
}
