//! `NoPDB` (info): workloads with pods on Karpenter nodes and no PDB at all, so a disruption
//! evicts their pods there without limit.

use crate::audit::code::FindingCode;
use crate::audit::context::{Context, Draft};
use crate::audit::facts::PdbFacts;
use crate::audit::finding::{Finding, Fix, Subject};
use crate::audit::fixes::{self, list, replicas, selector_arg};
use crate::audit::placement::place;
use crate::audit::workloads::Workload;

/// Workloads with pods on Karpenter nodes and no PDB at all.
pub(super) fn no_pdb<'a>(ctx: &Context<'a>) -> Vec<Draft<'a>> {
    if !ctx.readable.ownership() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for workload in ctx.workloads.values() {
        let id = &workload.id;
        if id.is_daemon_set() || id.is_job() || id.is_bare_pod() {
            continue;
        }
        let covered = workload.pods.iter().any(|p| ctx.pod_pdbs.get(&p.metadata.key()).is_some_and(|b| !b.is_empty()));
        let on_karpenter = workload
            .pods
            .iter()
            .any(|p| p.spec.node_name.as_deref().and_then(|n| ctx.nodes.get(n)).is_some_and(|f| f.karpenter));
        if covered || !on_karpenter {
            continue;
        }
        out.push(no_pdb_finding(ctx, workload));
    }
    out
}

fn no_pdb_finding<'a>(ctx: &Context<'a>, workload: &Workload<'a>) -> Draft<'a> {
    let id = &workload.id;
    let (nodes, node_pools, placement) = place(ctx, &workload.pods);
    let mut message = format!(
        "{id} ({}) has no PodDisruptionBudget: when Karpenter disrupts {} it evicts the pods there without limit",
        replicas(workload.replicas),
        list(&nodes, 3)
    );
    if let (true, [only]) = (workload.pods.len() >= 2, nodes.as_slice()) {
        message.push_str(&format!(", and all {} sit on {only}", workload.pods.len()));
    }
    let create = format!(
        "kubectl create poddisruptionbudget {} -n {} --selector={} --max-unavailable=1",
        id.name,
        id.namespace,
        selector_arg(&workload.selector)
    );
    let fix = if workload.low() >= 2 {
        Fix::new(
            create,
            "drains then evict one of its pods at a time, so nodes holding several of them drain more slowly",
        )
    } else {
        Fix::new(
            format!("{} && {create}", fixes::two_replicas_spread(workload)),
            "a budget alone can't protect a single replica: maxUnavailable: 1 lets it go and minAvailable: 1 pins its node",
        )
    };
    let hpa = workload.hpa.as_ref();
    let subject = Subject { workload: Some(id.to_string()), nodes, ..Subject::default() };
    let facts = PdbFacts {
        replicas: Some(workload.replicas),
        min_replicas: hpa.map(|h| h.min),
        max_replicas: hpa.map(|h| h.max),
        hpa: hpa.map(|h| h.name.clone()),
        node_pools,
        placement,
        ..PdbFacts::default()
    };
    let code = FindingCode::NoPdb;
    let finding = Finding { code, severity: code.severity(), subject, message, fix, upstream: code.upstream(), facts };
    Draft { finding, pods: workload.pods.clone(), pdb: None }
}

#[cfg(test)]
mod tests {
    use crate::audit::fixtures::{audit, cluster, codes, deployment, node, pod, pod_in, NS};
    use crate::audit::{FindingCode, PdbFinding};

    #[test]
    fn workloads_on_karpenter_nodes_without_a_pdb() {
        let mut docs = cluster(None);
        docs.extend(node("static-1", None));
        docs.extend(deployment("web", 2));
        docs.push(pod("web-0", "web", "node-a"));
        docs.push(pod("web-1", "web", "node-a"));
        docs.extend(deployment("legacy", 1));
        docs.push(pod("legacy-0", "legacy", "static-1"));
        docs.push(pod_in(NS, "agent-x", "agent", Some(("DaemonSet", "agent")), "node-a"));
        docs.push(pod_in(NS, "once-x", "once", Some(("Job", "once")), "node-b"));
        let audit = audit(docs);
        let no_pdb: Vec<&PdbFinding> = audit.findings.iter().filter(|f| f.code == FindingCode::NoPdb).collect();
        assert_eq!(no_pdb.len(), 1, "{:#?}", codes(&audit));
        let f = no_pdb[0];
        assert_eq!((f.subject.pdb.as_deref(), f.subject.workload.as_deref()), (None, Some("Deployment/ns/web")));
        assert!(f.message.ends_with("and all 2 sit on node-a"), "{}", f.message);
        assert_eq!(f.fix.change, "kubectl create poddisruptionbudget web -n ns --selector=app=web --max-unavailable=1");
    }
}
