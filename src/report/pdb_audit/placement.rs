//! The findings about where pods sit and which budgets select them: `Crowded`,
//! `GracePeriodOverrides`, `MultiplePDBs`, `NoMatchingPods`, `NoPDB`; and the per-node
//! placement every finding carries.

use std::collections::{BTreeMap, BTreeSet};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use super::context::{Context, Draft};
use super::fixes::{self, list, replicas, selector_arg, Fix};
use super::rules::View;
use super::workloads::Workload;
use super::{Finding, FindingCode, NodePlacement};
use crate::engine::pdb::EvictionBlock;
use crate::snapshot::Pod;

/// Nodes the pods sit on (sorted), their NodePools, and per node what is known of it.
pub(super) fn place(ctx: &Context<'_>, pods: &[&Pod]) -> (Vec<String>, Vec<String>, Vec<NodePlacement>) {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for pod in pods {
        if let Some(node) = pod.spec.node_name.as_deref().filter(|n| !n.is_empty()) {
            *counts.entry(node).or_default() += 1;
        }
    }
    let known = ctx.readable.ownership();
    let mut pools = BTreeSet::new();
    let placement = counts
        .iter()
        .map(|(node, count)| {
            let facts = if known { ctx.nodes.get(node) } else { None };
            if let Some(pool) = facts.and_then(|f| f.node_pool.clone()) {
                pools.insert(pool);
            }
            NodePlacement {
                node: (*node).to_owned(),
                pods: *count,
                karpenter: known.then(|| facts.is_some_and(|f| f.karpenter)),
                node_pool: facts.and_then(|f| f.node_pool.clone()),
                instance_type: facts.and_then(|f| f.instance_type.clone()),
                capacity_type: facts.and_then(|f| f.capacity_type.clone()),
                price_per_hour: facts.and_then(|f| f.price),
                price_per_month: facts.and_then(super::nodes::NodeFacts::price_per_month),
                termination_grace_period: facts.and_then(|f| f.termination_grace_period.clone()),
            }
        })
        .collect();
    (counts.keys().map(|n| (*n).to_owned()).collect(), pools.into_iter().collect(), placement)
}

/// A selector in kubectl's `-l` syntax (`app=web,tier in (a,b)`).
pub(super) fn selector_text(selector: Option<&LabelSelector>) -> String {
    let Some(selector) = selector else { return "<none>".to_owned() };
    let mut terms: Vec<String> = selector.match_labels.iter().flatten().map(|(k, v)| format!("{k}={v}")).collect();
    for e in selector.match_expressions.iter().flatten() {
        let values = e.values.as_deref().unwrap_or_default().join(",");
        terms.push(match e.operator.as_str() {
            "In" => format!("{} in ({values})", e.key),
            "NotIn" => format!("{} notin ({values})", e.key),
            "Exists" => e.key.clone(),
            "DoesNotExist" => format!("!{}", e.key),
            other => format!("{} {other} ({values})", e.key),
        });
    }
    if terms.is_empty() {
        "<everything>".to_owned()
    } else {
        terms.join(",")
    }
}

/// The selector matches no pod.
pub(super) fn no_matching_pods<'a>(view: &View<'_, 'a>) -> Draft<'a> {
    let pdb = view.pdb;
    let namespace = pdb.metadata.namespace();
    let selector = selector_text(pdb.spec.selector.as_ref());
    let mut message = match &pdb.spec.selector {
        None => "has no selector, which in policy/v1 selects no pod: the budget protects nothing".to_owned(),
        Some(_) => format!("selector {selector} matches no pod in namespace {namespace}: the budget protects nothing"),
    };
    if pdb.status.expected_pods > 0 {
        message.push_str(&format!(
            " (its status still expects {}: stale, or the pods are not in this snapshot)",
            pdb.status.expected_pods
        ));
    }
    let fix = Fix::new(
        format!(
            "compare the selector with the pods' labels (kubectl get pods -n {namespace} --show-labels); if its workload is gone: kubectl delete pdb {} -n {namespace}",
            pdb.metadata.name
        ),
        "a stale budget does nothing today but silently applies to any future pod its selector matches",
    );
    let mut draft = view.finding(FindingCode::NoMatchingPods, None, &[], message, fix);
    draft.finding.allowed = None;
    draft
}

/// More pods of a workload share a node than the budget lets go at once.
pub(super) fn crowded<'a>(view: &View<'_, 'a>) -> Vec<Draft<'a>> {
    let allowed = view.allowed_now();
    if allowed == 0 {
        return Vec::new();
    }
    let mut out = Vec::new();
    for workload in &view.workloads {
        if workload.id.is_daemon_set() || workload.id.is_bare_pod() {
            continue;
        }
        let pods = view.pods_of(workload);
        let mut by_node: BTreeMap<&str, Vec<&'a Pod>> = BTreeMap::new();
        for pod in &pods {
            if let Some(node) = pod.spec.node_name.as_deref().filter(|n| !n.is_empty()) {
                by_node.entry(node).or_default().push(pod);
            }
        }
        let mut crowded: Vec<(&str, Vec<&'a Pod>)> = by_node
            .into_iter()
            .filter(|(_, on)| on.len() >= 2 && i32::try_from(on.len()).unwrap_or(i32::MAX) > allowed)
            .collect();
        crowded.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(b.0)));
        let Some((node, on)) = crowded.first() else { continue };
        let k = on.len();
        let id = &workload.id;
        let rule = &view.rule;
        let message = if k == pods.len() {
            format!(
                "all {k} pods of {id} sit on {node} while {rule} lets {allowed} go at once: draining {node} stalls until replacements are Ready, and losing it (spot interruption, node failure, terminationGracePeriod) takes {id} down"
            )
        } else {
            format!(
                "{k} of {} pods of {id} sit on {node} while {rule} lets {allowed} go at once: draining {node} stalls until replacements are Ready, and losing it takes {k} down at once",
                pods.len()
            )
        };
        let fix = Fix::new(
            fixes::spread_patch(workload),
            "the pods roll out once more and any spread constraints already set are replaced; ScheduleAnyway only prefers spreading, while DoNotSchedule enforces it but can make Karpenter launch more nodes",
        );
        let crowded_pods: Vec<&'a Pod> = crowded.iter().flat_map(|(_, on)| on.iter().copied()).collect();
        let mut draft = view.finding(FindingCode::Crowded, Some(workload), &crowded_pods, message, fix);
        draft.finding.pods = crowded_pods.iter().map(|p| p.metadata.key()).collect();
        out.push(draft);
    }
    out
}

/// The NodePools' `terminationGracePeriod` that ends the budget's protection.
pub(super) fn grace_period_overrides<'a>(view: &View<'_, 'a>) -> Vec<Draft<'a>> {
    if !view.ctx.readable.grace_periods() || !view.ctx.readable.ownership() {
        return Vec::new();
    }
    let mut groups: BTreeMap<(String, String), Vec<&'a Pod>> = BTreeMap::new();
    for pod in view.pods {
        let Some(facts) = pod.spec.node_name.as_deref().and_then(|n| view.ctx.nodes.get(n)) else { continue };
        if let (true, Some(tgp)) = (facts.karpenter, &facts.termination_grace_period) {
            let pool = facts.node_pool.clone().unwrap_or_else(|| "<unknown>".to_owned());
            groups.entry((pool, tgp.clone())).or_default().push(pod);
        }
    }
    groups
        .into_iter()
        .map(|((pool, tgp), pods)| {
            let (nodes, _, _) = place(view.ctx, &pods);
            let message = format!(
                "NodePool {pool} sets terminationGracePeriod {tgp}: drift and expiration may start draining {} even while this budget blocks, and {tgp} later its pods are deleted regardless of it",
                list(&nodes, 3)
            );
            let fix = Fix::new(
                format!("nothing to change if intended; keep replicas at 2 or more spread over nodes, so that a forced eviction after {tgp} takes one pod, not the service"),
                "a longer terminationGracePeriod honours budgets longer but keeps drifted and expired nodes, and their cost, around longer",
            );
            let mut draft = view.finding(FindingCode::GracePeriodOverrides, None, &pods, message, fix);
            draft.finding.termination_grace_period = Some(tgp);
            draft
        })
        .collect()
}

/// Pods selected by more than one PDB: the eviction API refuses them.
pub(super) fn multiple_pdbs<'a>(ctx: &Context<'a>) -> Vec<Draft<'a>> {
    let mut groups: BTreeMap<Vec<String>, (Vec<&'a Pod>, String)> = BTreeMap::new();
    for block in ctx.limits.can_evict_pods(&ctx.pods, ctx.now) {
        let message = block.message();
        if let EvictionBlock::MultiplePdbs { pod, pdbs } = block {
            if let Some(p) = ctx.pods.iter().copied().find(|p| p.metadata.key() == pod) {
                groups.entry(pdbs).or_insert_with(|| (Vec::new(), message)).0.push(p);
            }
        }
    }
    let mut out = Vec::new();
    for (pdbs, (pods, karpenter_message)) in groups {
        let Some(first) = ctx.pdbs.iter().copied().find(|b| pdbs.first() == Some(&b.metadata.key())) else { continue };
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
        finding.pdbs = pdbs;
        finding.pods = names;
        finding.budget = None;
        finding.allowed = None;
        finding.status = None;
        out.push(draft);
    }
    out
}

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
            format!("{}; then {create}", fixes::two_replicas_spread(workload)),
            "a budget alone can't protect a single replica: maxUnavailable: 1 lets it go and minAvailable: 1 pins its node",
        )
    };
    let hpa = workload.hpa.as_ref();
    let finding = Finding {
        code: FindingCode::NoPdb,
        severity: FindingCode::NoPdb.severity(),
        pdb: None,
        pdbs: Vec::new(),
        workload: Some(id.to_string()),
        workloads: Vec::new(),
        replicas: Some(workload.replicas),
        min_replicas: hpa.map(|h| h.min),
        max_replicas: hpa.map(|h| h.max),
        hpa: hpa.map(|h| h.name.clone()),
        budget: None,
        allowed: None,
        status: None,
        unhealthy_pod_eviction_policy: None,
        pods: Vec::new(),
        nodes,
        node_pools,
        placement,
        price_per_hour: None,
        price_per_month: None,
        termination_grace_period: None,
        message,
        fix: fix.fix,
        trade_off: fix.trade_off,
        upstream: FindingCode::NoPdb.upstream(),
    };
    Draft { finding, pods: workload.pods.clone(), pdb: None }
}
