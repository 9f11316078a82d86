//! The findings about what a budget's spec allows: `SingleReplicaEvictable`, `DrainBlocked`,
//! `CurrentlyBlocking`, `LooserThanIntended`; and the per-PDB view every rule reads.
//!
//! Each rule judges the budget at the replicas a workload runs now and, when a
//! HorizontalPodAutoscaler scales it, at the HPA's bounds (`minReplicas` for rules that get worse
//! with fewer pods, `maxReplicas` for the one that gets worse with more).

use std::collections::BTreeMap;

use super::budget::{Amount, Rule};
use super::context::{Context, Draft};
use super::fixes::{self, list, per_hour, per_month, replicas, Fix};
use super::placement;
use super::workloads::Workload;
use super::{BudgetStatus, Finding, FindingCode, NodePlacement};
use crate::engine::pdb::{is_ready, EvictionBlock};
use crate::snapshot::{Pod, PodDisruptionBudget};

/// Every finding, unsorted.
pub(super) fn findings<'a>(ctx: &Context<'a>) -> Vec<Draft<'a>> {
    let mut out = Vec::new();
    for pdb in &ctx.pdbs {
        let view = View::new(ctx, pdb);
        if view.pods.is_empty() {
            out.push(placement::no_matching_pods(&view));
            continue;
        }
        out.extend(single_replica_evictable(&view));
        out.extend(drain_blocked(&view));
        out.extend(currently_blocking(&view));
        out.extend(placement::crowded(&view));
        out.extend(looser_than_intended(&view));
        out.extend(placement::grace_period_overrides(&view));
    }
    out.extend(placement::multiple_pdbs(ctx));
    out.extend(placement::no_pdb(ctx));
    out
}

/// One PDB with its pods and workloads.
pub(super) struct View<'c, 'a> {
    pub ctx: &'c Context<'a>,
    pub pdb: &'a PodDisruptionBudget,
    pub rule: Rule,
    pub pods: &'c [&'a Pod],
    /// The workloads of its pods, by id.
    pub workloads: Vec<&'c Workload<'a>>,
}

/// Which replica count a judgement was made at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum At {
    Now,
    HpaMin,
    HpaMax,
}

impl<'c, 'a> View<'c, 'a> {
    pub(super) fn new(ctx: &'c Context<'a>, pdb: &'a PodDisruptionBudget) -> View<'c, 'a> {
        let pods = ctx.pods_of(pdb);
        let mut by_id = BTreeMap::new();
        for pod in pods {
            if let Some(w) = ctx.owner(pod) {
                by_id.insert(&w.id, w);
            }
        }
        View { ctx, pdb, rule: Rule::of(&pdb.spec), pods, workloads: by_id.into_values().collect() }
    }

    /// Expected pods as the disruption controller counts them, each workload at `pick`.
    fn expected(&self, pick: impl Fn(&Workload<'a>) -> i32) -> i32 {
        self.workloads.iter().filter(|w| self.rule.counts_bare_pods() || !w.id.is_bare_pod()).map(|w| pick(w)).sum()
    }

    pub(super) fn now(&self) -> i32 {
        self.expected(|w| w.replicas)
    }

    fn at(&self, at: At) -> i32 {
        match at {
            At::Now => self.now(),
            At::HpaMin => self.expected(Workload::low),
            At::HpaMax => self.expected(Workload::high),
        }
    }

    pub(super) fn allowed_now(&self) -> i32 {
        self.rule.allowed(self.now())
    }

    /// The workload a PDB-level finding names: the only one, else the first.
    fn main_workload(&self) -> Option<&'c Workload<'a>> {
        self.workloads.first().copied()
    }

    /// The one HPA among the workloads, when exactly one workload has one.
    fn hpa_workload(&self) -> Option<&'c Workload<'a>> {
        let mut with_hpa = self.workloads.iter().filter(|w| w.hpa.is_some());
        match (with_hpa.next(), with_hpa.next()) {
            (Some(w), None) => Some(*w),
            _ => None,
        }
    }

    /// A finding about this PDB, about `workload` (or the PDB's workloads), over `pods`.
    pub(super) fn finding(
        &self,
        code: FindingCode,
        workload: Option<&Workload<'_>>,
        pods: &[&'a Pod],
        message: String,
        fix: Fix,
    ) -> Draft<'a> {
        let status = &self.pdb.status;
        let (replicas, hpa_of) = match workload {
            Some(w) => (Some(w.replicas), Some(w)),
            None if self.workloads.is_empty() => (None, None),
            None => (Some(self.now()), self.hpa_workload()),
        };
        let hpa = hpa_of.and_then(|w| w.hpa.as_ref());
        let (nodes, node_pools, placement) = placement::place(self.ctx, pods);
        let finding = Finding {
            code,
            severity: code.severity(),
            pdb: Some(self.pdb.metadata.key()),
            pdbs: Vec::new(),
            workload: workload.or_else(|| self.main_workload()).map(|w| w.id.to_string()),
            workloads: if workload.is_none() && self.workloads.len() > 1 {
                self.workloads.iter().map(|w| w.id.to_string()).collect()
            } else {
                Vec::new()
            },
            replicas,
            min_replicas: hpa.map(|h| h.min),
            max_replicas: hpa.map(|h| h.max),
            hpa: hpa.map(|h| h.name.clone()),
            budget: Some(self.rule.to_string()),
            allowed: Some(self.allowed_now()),
            status: Some(BudgetStatus {
                expected_pods: status.expected_pods,
                current_healthy: status.current_healthy,
                desired_healthy: status.desired_healthy,
                disruptions_allowed: status.disruptions_allowed,
            }),
            unhealthy_pod_eviction_policy: self.pdb.spec.unhealthy_pod_eviction_policy.clone(),
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
            upstream: code.upstream(),
        };
        Draft { finding, pods: pods.to_vec(), pdb: Some(self.pdb) }
    }

    /// The pods of `workload` this PDB selects.
    pub(super) fn pods_of(&self, workload: &Workload<'_>) -> Vec<&'a Pod> {
        self.pods.iter().copied().filter(|p| workload.pods.iter().any(|q| std::ptr::eq(*p, *q))).collect()
    }

    /// "consolidating node-x (NodePool default, WhenEmptyOrUnderutilized after 5m)", "draining
    /// node-x", or "a drain".
    fn drain_phrase(&self, pods: &[&Pod]) -> String {
        let (nodes, pools, placement) = placement::place(self.ctx, pods);
        if nodes.is_empty() {
            return "a drain".to_owned();
        }
        let facts: Vec<_> = nodes.iter().filter_map(|n| self.ctx.nodes.get(n)).filter(|f| f.karpenter).collect();
        let karpenter = placement.iter().any(|p| p.karpenter == Some(true));
        let consolidates = facts.iter().any(|f| {
            f.consolidation_policy.as_deref().unwrap_or("WhenEmptyOrUnderutilized") == "WhenEmptyOrUnderutilized"
                && f.consolidate_after.as_deref() != Some("Never")
        });
        let nodes = list(&nodes, 3);
        match (karpenter && consolidates, pools.as_slice(), facts.first()) {
            (true, [pool], Some(f)) => match f.consolidate_after.as_deref() {
                Some(after) => {
                    format!("consolidating {nodes} (NodePool {pool}, WhenEmptyOrUnderutilized after {after})")
                }
                None => format!("consolidating {nodes} (NodePool {pool}, WhenEmptyOrUnderutilized)"),
            },
            (true, _, _) => format!("consolidating {nodes}"),
            (false, _, _) if karpenter => format!("draining {nodes} (drift, expiration or interruption)"),
            (false, _, _) => format!("draining {nodes}"),
        }
    }
}

/// The budget lets every pod of a workload go at once.
fn single_replica_evictable<'a>(view: &View<'_, 'a>) -> Vec<Draft<'a>> {
    let mut out = Vec::new();
    for workload in &view.workloads {
        if workload.id.is_daemon_set() {
            continue;
        }
        let evictable_at = |at: At, own: i32| own >= 1 && view.rule.allowed(view.at(at)) >= own;
        let at = if evictable_at(At::Now, workload.replicas) {
            At::Now
        } else if workload.low() < workload.replicas && evictable_at(At::HpaMin, workload.low()) {
            At::HpaMin
        } else {
            continue;
        };
        let pods = view.pods_of(workload);
        let (n, total) = match at {
            At::HpaMin => (workload.low(), view.at(At::HpaMin)),
            _ => (workload.replicas, view.now()),
        };
        let allowed = view.rule.allowed(total);
        let drain = view.drain_phrase(&pods);
        let id = &workload.id;
        let rule = &view.rule;
        let message = match (at, view.workloads.len()) {
            (At::HpaMin, _) => format!(
                "{rule} lets every pod go once HPA {} scales {id} to minReplicas {n}: {drain} then takes it down",
                workload.hpa.as_ref().map_or("", |h| h.name.as_str())
            ),
            (_, 1) if n == 1 => {
                format!("{rule} on 1 replica lets its only pod go: {drain} takes {id} down until a new pod is Ready")
            }
            (_, 1) => format!("{rule} on {n} replicas lets all {n} go at once: {drain} can take {id} down"),
            _ => format!(
                "{rule} counts {total} pods of {} workloads together and lets {allowed} go at once: all {} of {id} can go together",
                view.workloads.len(),
                replicas(n)
            ),
        };
        let fix = if view.workloads.len() > 1 {
            Fix::new(
                format!(
                    "give each workload its own PodDisruptionBudget: {} counts {} workloads together",
                    view.pdb.metadata.key(),
                    view.workloads.len()
                ),
                "more budgets to keep in step with the workloads' labels, but each then protects its own last pod",
            )
        } else if at == At::HpaMin {
            Fix::new(
                fixes::raise_replicas(workload, 2),
                format!("keeps one more pod running when idle, so that {rule} never meets a single replica"),
            )
        } else if n == 1 {
            Fix::new(
                fixes::to_min_available_one(view.pdb, rule),
                "minAvailable: 1 on one replica never allows an eviction, so it pins the node (DrainBlocked) until replicas reach 2 or the NodePool's terminationGracePeriod; two replicas spread over nodes avoid both for one more pod's requests",
            )
        } else {
            Fix::new(
                fixes::to_max_unavailable_one(view.pdb, rule),
                "drains then evict one pod at a time, so a node holding several of its pods drains more slowly",
            )
        };
        let mut draft = view.finding(FindingCode::SingleReplicaEvictable, Some(workload), &pods, message, fix);
        draft.finding.allowed = Some(allowed);
        out.push(draft);
    }
    out
}

/// Why a budget allows nothing with `n` expected pods, in words.
fn never_allows(view: &View<'_, '_>, n: i32) -> String {
    let rule = &view.rule;
    match rule {
        Rule::Neither => format!("{rule} is set, so the disruption controller allows no eviction"),
        Rule::MaxUnavailable(Amount::Invalid(_)) | Rule::MinAvailable(Amount::Invalid(_)) => {
            format!("{rule}: the disruption controller fails safe and allows no eviction")
        }
        _ if n == 0 => format!(
            "{rule} counts no expected pod (pods without a controller only count for an integer minAvailable), so it allows no eviction"
        ),
        Rule::MinAvailable(Amount::Percent(p)) => format!(
            "minAvailable: {p}% of {} rounds up to {}, so it never allows an eviction",
            replicas(n),
            rule.desired_healthy(n)
        ),
        _ => format!("{rule} on {} never allows an eviction", replicas(n)),
    }
}

/// The budget can never allow an eviction: the nodes its pods sit on are pinned.
fn drain_blocked<'a>(view: &View<'_, 'a>) -> Option<Draft<'a>> {
    let now = view.now();
    let at = if view.rule.allowed(now) == 0 {
        At::Now
    } else if view.at(At::HpaMin) < now && view.at(At::HpaMin) >= 1 && view.rule.allowed(view.at(At::HpaMin)) == 0 {
        At::HpaMin
    } else {
        return None;
    };
    let n = view.at(at);
    let why = never_allows(view, n);
    let (_, _, placed) = placement::place(view.ctx, view.pods);
    let consequence = pinned(view, &placed);
    let message = match (at, view.hpa_workload()) {
        (At::HpaMin, Some(w)) => format!(
            "once HPA {} scales {} to minReplicas {n}, {why}: {consequence}",
            w.hpa.as_ref().map_or("", |h| h.name.as_str()),
            w.id
        ),
        _ => format!("{why}: {consequence}"),
    };
    let fix = drain_blocked_fix(view, n);
    let mut draft = view.finding(FindingCode::DrainBlocked, None, view.pods, message, fix);
    let prices: Vec<f64> = placed.iter().filter_map(|p| p.price_per_hour).collect();
    if !prices.is_empty() {
        let hour: f64 = prices.iter().sum();
        draft.finding.price_per_hour = Some(hour);
        draft.finding.price_per_month = Some(hour * super::HOURS_PER_MONTH);
    }
    draft.finding.termination_grace_period = common_grace_period(&placed);
    Some(draft)
}

/// The `terminationGracePeriod` every Karpenter node shares, if they share one.
fn common_grace_period(placed: &[NodePlacement]) -> Option<String> {
    let mut periods = placed.iter().filter(|p| p.karpenter == Some(true)).map(|p| p.termination_grace_period.clone());
    let first = periods.next()??;
    periods.all(|p| p.as_deref() == Some(first.as_str())).then_some(first)
}

/// What pinning the nodes means: which, what they cost, and what ends it.
fn pinned(view: &View<'_, '_>, placed: &[NodePlacement]) -> String {
    if placed.is_empty() {
        return "its pods are not on a node yet; once scheduled, their node can't be drained".to_owned();
    }
    let names: Vec<String> = placed.iter().map(|p| p.node.clone()).collect();
    let described: Vec<String> = placed.iter().map(describe_node).collect();
    if !view.ctx.readable.ownership() {
        return format!("{} can't be drained (NodePool and price unknown: Nodes could not be read)", list(&names, 3));
    }
    let karpenter: Vec<&NodePlacement> = placed.iter().filter(|p| p.karpenter == Some(true)).collect();
    if karpenter.is_empty() {
        return format!("`kubectl drain` of {} waits for ever", list(&described, 3));
    }
    let ends = match common_grace_period(placed) {
        Some(tgp) => format!(
            "drift and expiration still replace it, deleting the pods {tgp} after the drain starts (terminationGracePeriod)"
        ),
        None if karpenter.iter().all(|p| p.termination_grace_period.is_none()) => {
            let pools: Vec<String> = karpenter.iter().filter_map(|p| p.node_pool.clone()).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
            format!("nothing ends it: NodePool {} sets no terminationGracePeriod", list(&pools, 3))
        }
        None => "only the nodes whose NodePool sets a terminationGracePeriod get replaced by drift or expiration".to_owned(),
    };
    format!("{} can't be consolidated, drifted or drained, and {ends}", list(&described, 3))
}

/// `node-x (m5.xlarge on-demand, $0.192/h, $140.16/month)`.
fn describe_node(p: &NodePlacement) -> String {
    let mut parts = Vec::new();
    if let Some(it) = &p.instance_type {
        parts.push(match &p.capacity_type {
            Some(ct) => format!("{it} {ct}"),
            None => it.clone(),
        });
    }
    match p.price_per_hour {
        Some(price) => {
            parts.push(per_hour(price));
            parts.push(per_month(price));
        }
        None if p.karpenter == Some(true) => parts.push("price unknown".to_owned()),
        None => {}
    }
    if parts.is_empty() {
        p.node.clone()
    } else {
        format!("{} ({})", p.node, parts.join(", "))
    }
}

fn drain_blocked_fix(view: &View<'_, '_>, n: i32) -> Fix {
    let rule = &view.rule;
    let single = view.workloads.len() == 1;
    let workload = view.main_workload();
    match rule {
        Rule::MaxUnavailable(Amount::Invalid(_)) | Rule::MinAvailable(Amount::Invalid(_)) => Fix::new(
            fixes::to_max_unavailable_one(view.pdb, rule),
            "maxUnavailable: 1 lets one pod go at a time; on a single replica that is its only pod",
        ),
        _ if n == 0 => Fix::new(
            "run the pods under a controller (a Deployment), or switch to an integer minAvailable",
            "a pod without a controller that a drain evicts is gone for good",
        ),
        _ if n == 1 && single => Fix::new(
            workload.map_or_else(|| "raise replicas to 2".to_owned(), fixes::two_replicas_spread),
            format!("one more pod's requests, but then {rule} lets Karpenter drain one node at a time without an outage; maxUnavailable: 1 instead would let the only pod go (SingleReplicaEvictable)"),
        ),
        _ => Fix::new(
            fixes::to_max_unavailable_one(view.pdb, rule),
            format!("one pod may be down during a drain while the other {} keep serving", n - 1),
        ),
    }
}

/// `status.disruptionsAllowed` is 0 now although the spec allows evictions.
fn currently_blocking<'a>(view: &View<'_, 'a>) -> Option<Draft<'a>> {
    let status = &view.pdb.status;
    let allowed = view.allowed_now();
    if status.disruptions_allowed != 0 || allowed == 0 {
        return None;
    }
    let key = view.pdb.metadata.key();
    let blocks: Vec<EvictionBlock> = view
        .ctx
        .limits
        .can_evict_pods(view.pods, view.ctx.now)
        .into_iter()
        .filter(|b| matches!(b, EvictionBlock::NoDisruptionsAllowed { pdb, .. } if *pdb == key))
        .collect();
    let first = blocks.first()?;
    let blocked: Vec<&'a Pod> = view
        .pods
        .iter()
        .copied()
        .filter(|p| {
            blocks
                .iter()
                .any(|b| matches!(b, EvictionBlock::NoDisruptionsAllowed { pod, .. } if *pod == p.metadata.key()))
        })
        .collect();
    let not_ready: Vec<&'a Pod> = view.pods.iter().copied().filter(|p| !is_ready(p)).collect();
    let bare = view.workloads.iter().any(|w| w.id.is_bare_pod());
    let mut why = Vec::new();
    if !not_ready.is_empty() {
        let names: Vec<String> = not_ready.iter().map(|p| p.metadata.key()).collect();
        why.push(format!("{} of {} pods not Ready ({})", not_ready.len(), view.pods.len(), list(&names, 3)));
    }
    if status.current_healthy < status.desired_healthy {
        why.push(format!("currentHealthy {} < desiredHealthy {}", status.current_healthy, status.desired_healthy));
    }
    if status.expected_pods == 0 {
        why.push(if bare && !view.rule.counts_bare_pods() {
            format!("expectedPods 0: pods without a controller don't count for {}", view.rule)
        } else {
            "expectedPods 0: the disruption controller has not counted its pods".to_owned()
        });
    } else if status.expected_pods != view.now() {
        why.push(format!(
            "expectedPods {} ≠ {} desired (a rollout or scaling in progress)",
            status.expected_pods,
            view.now()
        ));
    }
    if why.is_empty() {
        why.push("the status may be stale".to_owned());
    }
    let (nodes, _, _) = placement::place(view.ctx, &blocked);
    let message = format!(
        "status.disruptionsAllowed is 0 although {} allows {allowed} of {}: {}; Karpenter won't disrupt {} now ({})",
        view.rule,
        view.now(),
        why.join(", "),
        if nodes.is_empty() { "their nodes".to_owned() } else { list(&nodes, 3) },
        first.message()
    );
    let always_allow = view.pdb.spec.unhealthy_pod_eviction_policy.as_deref() == Some("AlwaysAllow");
    let fix = if !not_ready.is_empty() && !always_allow {
        Fix::new(
            format!(
                "kubectl patch pdb {} -n {} --type=merge -p '{}'",
                view.pdb.metadata.name,
                view.pdb.metadata.namespace(),
                serde_json::json!({"spec": {"unhealthyPodEvictionPolicy": "AlwaysAllow"}})
            ),
            "pods that are not Ready can then be evicted (a crash-looping pod stops pinning its node), including pods that are only slow to start",
        )
    } else if bare && !view.rule.counts_bare_pods() {
        Fix::new(
            fixes::set_budget(view.pdb, &view.rule, "minAvailable", &serde_json::json!((view.now() - 1).max(0))),
            "an integer minAvailable counts pods without a controller, but a bare pod a drain evicts is gone for good",
        )
    } else {
        Fix::new(
            format!(
                "wait for the rollout to finish, or see why pods are unhealthy: kubectl get pods -n {} -l {}",
                view.pdb.metadata.namespace(),
                placement::selector_text(view.pdb.spec.selector.as_ref())
            ),
            "none: the block clears by itself once every pod is Ready",
        )
    };
    let mut draft = view.finding(FindingCode::CurrentlyBlocking, None, &blocked, message, fix);
    draft.finding.pods = blocked.iter().map(|p| p.metadata.key()).collect();
    Some(draft)
}

/// `minAvailable: 1` (or a small integer) on many replicas allows all but a few to go at once.
fn looser_than_intended<'a>(view: &View<'_, 'a>) -> Option<Draft<'a>> {
    let k = view.rule.min_available_count().filter(|k| *k >= 1)?;
    if view.workloads.iter().all(|w| w.id.is_daemon_set()) {
        return None;
    }
    let loose = |n: i32| view.rule.allowed(n) >= 2 && 2 * k < n;
    let at = if loose(view.now()) {
        At::Now
    } else if view.at(At::HpaMax) > view.now() && loose(view.at(At::HpaMax)) {
        At::HpaMax
    } else {
        return None;
    };
    let n = view.at(at);
    let allowed = view.rule.allowed(n);
    let mut message = match (at, view.hpa_workload()) {
        (At::HpaMax, Some(w)) => format!(
            "{} lets {allowed} of {n} go at once when HPA {} scales {} to maxReplicas {n}, where maxUnavailable: 1 would let 1",
            view.rule,
            w.hpa.as_ref().map_or("", |h| h.name.as_str()),
            w.id
        ),
        _ => format!("{} on {} lets {allowed} go at once, where maxUnavailable: 1 would let 1", view.rule, replicas(n)),
    };
    let (_, _, placed) = placement::place(view.ctx, view.pods);
    if let Some(most) =
        placed.iter().filter(|p| p.pods >= 2).max_by(|a, b| a.pods.cmp(&b.pods).then_with(|| b.node.cmp(&a.node)))
    {
        let down = i32::try_from(most.pods).unwrap_or(i32::MAX).min(allowed);
        message.push_str(&format!(
            ": {} of them sit on {}, so one consolidation takes {down} down at once",
            most.pods, most.node
        ));
    }
    let fix = Fix::new(
        fixes::to_max_unavailable_one(view.pdb, &view.rule),
        "maxUnavailable: 1 keeps all but one pod up at every scale, but lets a single remaining replica go (SingleReplicaEvictable), so keep replicas at 2 or more",
    );
    let mut draft = view.finding(FindingCode::LooserThanIntended, None, view.pods, message, fix);
    draft.finding.allowed = Some(allowed);
    Some(draft)
}
