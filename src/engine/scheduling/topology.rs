//! Topology: pod topology spread constraints and inter-pod (anti-)affinity, checked against the
//! pods that stay where they are plus the pods the simulation has placed so far.
//!
//! Mirrors karpenter `pkg/controllers/provisioning/scheduling/topology.go` /
//! `topologygroup.go` and kube-scheduler's PodTopologySpread and InterPodAffinity filters
//! (their error wording). Counting ignores terminal and terminating pods and every pod being
//! moved in this simulation until it is placed. Approximations: spread domains are every value
//! the cluster and the NodePools offer (`nodeAffinityPolicy`/`nodeTaintsPolicy` do not narrow
//! them), and a new NodeClaim whose domain is still open does not count toward any domain.

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use k8s_openapi::api::core::v1::{PodAffinityTerm, TopologySpreadConstraint};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};

use super::requirements::Requirement;
use crate::engine::labels::{selector_matches, HOSTNAME};
use crate::snapshot::Pod;

/// Where a destination sits for one topology key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Domain {
    /// An existing node: its label value (or none).
    Fixed(Option<String>),
    /// A new NodeClaim: any of these values (narrowed as pods land).
    OneOf(BTreeSet<String>),
}

/// Which pods a spread constraint or an affinity term counts.
#[derive(Debug, Clone, PartialEq)]
pub struct PodFilter {
    /// `None`: every namespace.
    pub namespaces: Option<BTreeSet<String>>,
    pub selector: Option<LabelSelector>,
}

impl PodFilter {
    pub fn matches(&self, pod: &Pod) -> bool {
        self.namespaces.as_ref().is_none_or(|ns| ns.contains(pod.metadata.namespace()))
            && selector_matches(self.selector.as_ref(), &pod.metadata.labels)
    }

    /// A stable key for memoising counts.
    pub fn cache_key(&self) -> String {
        format!("{:?}|{}", self.namespaces, serde_json::to_string(&self.selector).unwrap_or_default())
    }
}

/// What the topology rules read from a simulation.
pub trait View {
    /// Pods matching `filter` per value of `key`, among pods that stay and pods placed so far.
    fn counts(&self, key: &str, filter: &PodFilter) -> BTreeMap<String, i64>;
    /// Every value `key` can take.
    fn universe(&self, key: &str) -> Rc<BTreeSet<String>>;
    /// Pods with required anti-affinity that stay or were placed, with their value of `key`.
    fn anti_affinity_holders(&self, key: &str) -> Vec<(&Pod, Option<String>)>;
}

/// The result of a successful check: requirements a new NodeClaim must narrow to.
pub type Narrowing = Vec<(String, Requirement)>;

/// Whether `pod` may go to a destination with `domain_of(key)`, and how a new NodeClaim would
/// have to narrow. `strict` also enforces preferred terms and `ScheduleAnyway` spreads
/// (Karpenter treats preferences as hard until it relaxes them).
pub fn check(
    pod: &Pod,
    domain_of: &dyn Fn(&str) -> Domain,
    view: &dyn View,
    strict: bool,
) -> Result<Narrowing, &'static str> {
    let mut narrowing = Narrowing::new();
    for constraint in &pod.spec.topology_spread_constraints {
        if constraint.when_unsatisfiable == "ScheduleAnyway" && !strict {
            continue;
        }
        let allowed = spread_allowed(pod, constraint, view);
        narrow(&constraint.topology_key, &allowed, domain_of, &mut narrowing)
            .map_err(|()| "node(s) didn't match pod topology spread constraints")?;
    }
    let affinity = pod.spec.affinity.as_ref();
    let anti = affinity.and_then(|a| a.pod_anti_affinity.as_ref());
    let mut anti_terms: Vec<&PodAffinityTerm> = anti
        .and_then(|a| a.required_during_scheduling_ignored_during_execution.as_ref())
        .into_iter()
        .flatten()
        .collect();
    if strict {
        anti_terms.extend(
            anti.and_then(|a| a.preferred_during_scheduling_ignored_during_execution.as_ref())
                .into_iter()
                .flatten()
                .map(|w| &w.pod_affinity_term),
        );
    }
    for term in anti_terms {
        let forbidden = occupied(view, &term.topology_key, &term_filter(pod, term));
        let allowed = complement(&view.universe(&term.topology_key), &forbidden, &term.topology_key);
        narrow(&term.topology_key, &allowed, domain_of, &mut narrowing)
            .map_err(|()| "node(s) didn't match pod anti-affinity rules")?;
    }
    for (key, forbidden) in existing_anti_affinity(pod, view) {
        let allowed = complement(&view.universe(&key), &forbidden, &key);
        narrow(&key, &allowed, domain_of, &mut narrowing)
            .map_err(|()| "node(s) didn't satisfy existing pods anti-affinity rules")?;
    }
    let aff = affinity.and_then(|a| a.pod_affinity.as_ref());
    let mut aff_terms: Vec<&PodAffinityTerm> = aff
        .and_then(|a| a.required_during_scheduling_ignored_during_execution.as_ref())
        .into_iter()
        .flatten()
        .collect();
    if strict {
        aff_terms.extend(
            aff.and_then(|a| a.preferred_during_scheduling_ignored_during_execution.as_ref())
                .into_iter()
                .flatten()
                .map(|w| &w.pod_affinity_term),
        );
    }
    for term in aff_terms {
        let filter = term_filter(pod, term);
        let allowed = occupied(view, &term.topology_key, &filter);
        if allowed.is_empty() && filter.matches(pod) {
            continue;
        }
        narrow(&term.topology_key, &Allowed::Only(allowed), domain_of, &mut narrowing)
            .map_err(|()| "node(s) didn't match pod affinity rules")?;
    }
    Ok(narrowing)
}

/// The values a key may take for the pod.
enum Allowed {
    Any,
    Only(BTreeSet<String>),
    /// Hostname rules: only a node without matching pods (a new node always qualifies).
    HostnameExcept(BTreeSet<String>),
}

fn complement(universe: &BTreeSet<String>, forbidden: &BTreeSet<String>, key: &str) -> Allowed {
    if key == HOSTNAME {
        return Allowed::HostnameExcept(forbidden.clone());
    }
    if forbidden.is_empty() {
        return Allowed::Any;
    }
    Allowed::Only(universe.difference(forbidden).cloned().collect())
}

fn narrow(key: &str, allowed: &Allowed, domain_of: &dyn Fn(&str) -> Domain, out: &mut Narrowing) -> Result<(), ()> {
    match (allowed, domain_of(key)) {
        (Allowed::Any, _) => Ok(()),
        (Allowed::Only(set), Domain::Fixed(Some(v))) => set.contains(&v).then_some(()).ok_or(()),
        (Allowed::HostnameExcept(set), Domain::Fixed(Some(v))) => (!set.contains(&v)).then_some(()).ok_or(()),
        (Allowed::Only(_) | Allowed::HostnameExcept(_), Domain::Fixed(None)) => Err(()),
        (Allowed::HostnameExcept(set), Domain::OneOf(values)) => {
            if values.iter().any(|v| set.contains(v)) {
                Err(())
            } else {
                Ok(())
            }
        }
        (Allowed::Only(set), Domain::OneOf(values)) => {
            let keep: BTreeSet<String> = values.intersection(set).cloned().collect();
            if keep.is_empty() {
                return Err(());
            }
            if keep != values {
                out.push((key.to_owned(), Requirement::in_values(keep)));
            }
            Ok(())
        }
    }
}

/// Domains of `key` holding at least one pod the filter selects.
fn occupied(view: &dyn View, key: &str, filter: &PodFilter) -> BTreeSet<String> {
    view.counts(key, filter).into_iter().filter(|(_, n)| *n > 0).map(|(d, _)| d).collect()
}

fn spread_allowed(pod: &Pod, c: &TopologySpreadConstraint, view: &dyn View) -> Allowed {
    let filter = PodFilter {
        namespaces: Some([pod.metadata.namespace().to_owned()].into()),
        selector: with_match_label_keys(c.label_selector.as_ref(), c.match_label_keys.as_deref(), pod),
    };
    let mut counts: BTreeMap<String, i64> = view.universe(&c.topology_key).iter().map(|d| (d.clone(), 0)).collect();
    for (d, n) in view.counts(&c.topology_key, &filter) {
        *counts.entry(d).or_default() += n;
    }
    let min_domains = c.min_domains.unwrap_or(1).max(1) as usize;
    let hostname = c.topology_key == HOSTNAME;
    let global_min =
        if hostname || counts.len() < min_domains { 0 } else { counts.values().copied().min().unwrap_or(0) };
    let max_skew = i64::from(c.max_skew.max(1));
    if hostname {
        let full: BTreeSet<String> =
            counts.iter().filter(|(_, n)| **n + 1 - global_min > max_skew).map(|(d, _)| d.clone()).collect();
        return Allowed::HostnameExcept(full);
    }
    Allowed::Only(counts.into_iter().filter(|(_, n)| n + 1 - global_min <= max_skew).map(|(d, _)| d).collect())
}

/// `matchLabelKeys`: the pod's own values for those keys are added to the selector.
fn with_match_label_keys(
    selector: Option<&LabelSelector>,
    keys: Option<&[String]>,
    pod: &Pod,
) -> Option<LabelSelector> {
    let mut selector = selector.cloned()?;
    for key in keys.unwrap_or_default() {
        if let Some(value) = pod.metadata.labels.get(key) {
            selector.match_expressions.get_or_insert_with(Vec::new).push(LabelSelectorRequirement {
                key: key.clone(),
                operator: "In".into(),
                values: Some(vec![value.clone()]),
            });
        }
    }
    Some(selector)
}

/// The pods an affinity term of `owner` selects.
fn term_filter(owner: &Pod, term: &PodAffinityTerm) -> PodFilter {
    let listed: BTreeSet<String> = term.namespaces.iter().flatten().cloned().collect();
    let all_namespaces = term.namespace_selector.as_ref().is_some_and(|s| {
        s.match_labels.as_ref().is_none_or(BTreeMap::is_empty) && s.match_expressions.as_ref().is_none_or(Vec::is_empty)
    });
    let namespaces = if all_namespaces {
        None
    } else if listed.is_empty() {
        Some([owner.metadata.namespace().to_owned()].into())
    } else {
        Some(listed)
    };
    PodFilter { namespaces, selector: term.label_selector.clone() }
}

/// For every staying or placed pod whose required anti-affinity selects `pod`: the key and the
/// domains it forbids.
fn existing_anti_affinity(pod: &Pod, view: &dyn View) -> Vec<(String, BTreeSet<String>)> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let keys: BTreeSet<String> = view
        .anti_affinity_holders(HOSTNAME)
        .iter()
        .flat_map(|(q, _)| required_anti_terms(q))
        .map(|t| t.topology_key.clone())
        .collect();
    for key in keys {
        for (holder, domain) in view.anti_affinity_holders(&key) {
            if std::ptr::eq(holder, pod) {
                continue;
            }
            let hit = required_anti_terms(holder)
                .iter()
                .any(|t| t.topology_key == key && term_filter(holder, t).matches(pod));
            if let (true, Some(d)) = (hit, domain) {
                out.entry(key.clone()).or_default().insert(d);
            }
        }
    }
    out.into_iter().collect()
}

fn required_anti_terms(pod: &Pod) -> Vec<&PodAffinityTerm> {
    pod.spec
        .affinity
        .as_ref()
        .and_then(|a| a.pod_anti_affinity.as_ref())
        .and_then(|a| a.required_during_scheduling_ignored_during_execution.as_ref())
        .map(|terms| terms.iter().collect())
        .unwrap_or_default()
}
