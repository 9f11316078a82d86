//! One PDB seen by the rules: its pods, their workloads, the budget's rule, the replica counts
//! it is judged at, and the one way a finding about it is built. Shared by every rule in
//! `rules/`, so it must not depend on any of them.
//!
//! Each rule judges the budget at the replicas a workload runs now and, when a
//! HorizontalPodAutoscaler scales it, at the HPA's bounds (`minReplicas` for rules that get worse
//! with fewer pods, `maxReplicas` for the one that gets worse with more).

use std::collections::BTreeMap;

use super::budget::Rule;
use super::code::FindingCode;
use super::context::{Context, Draft};
use super::facts::{BudgetStatus, PdbFacts};
use super::finding::{Finding, Fix, Subject};
use super::placement;
use super::workloads::Workload;
use crate::snapshot::{Pod, PodDisruptionBudget};

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
pub(super) enum At {
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

    pub(super) fn at(&self, at: At) -> i32 {
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
    pub(super) fn main_workload(&self) -> Option<&'c Workload<'a>> {
        self.workloads.first().copied()
    }

    /// The one HPA among the workloads, when exactly one workload has one.
    pub(super) fn hpa_workload(&self) -> Option<&'c Workload<'a>> {
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
        let subject = Subject {
            pdb: Some(self.pdb.metadata.key()),
            pdbs: Vec::new(),
            workload: workload.or_else(|| self.main_workload()).map(|w| w.id.to_string()),
            workloads: if workload.is_none() && self.workloads.len() > 1 {
                self.workloads.iter().map(|w| w.id.to_string()).collect()
            } else {
                Vec::new()
            },
            pods: Vec::new(),
            nodes,
        };
        let facts = PdbFacts {
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
            node_pools,
            placement,
            price_per_hour: None,
            price_per_month: None,
            termination_grace_period: None,
        };
        let finding =
            Finding { code, severity: code.severity(), subject, message, fix, upstream: code.upstream(), facts };
        Draft { finding, pods: pods.to_vec(), pdb: Some(self.pdb) }
    }

    /// The pods of `workload` this PDB selects.
    pub(super) fn pods_of(&self, workload: &Workload<'_>) -> Vec<&'a Pod> {
        self.pods.iter().copied().filter(|p| workload.pods.iter().any(|q| std::ptr::eq(*p, *q))).collect()
    }
}
