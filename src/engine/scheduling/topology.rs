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

/// Which pods a spread constraint or an affinity term counts.
#[derive(Debug, Clone, PartialEq)]
pub struct PodFilter {
    /// `None`: every namespace.
    pub namespaces: Option<BTreeSet<String>>,
    pub selector: Option<LabelSelector>,
    /// A stable key for memoising counts, computed once.
    id: String,
}

impl PodFilter {
    pub fn new(namespaces: Option<BTreeSet<String>>, selector: Option<LabelSelector>) -> Self {
        let id = format!("{namespaces:?}|{}", serde_json::to_string(&selector).unwrap_or_default());
        PodFilter { namespaces, selector, id }
    }

    pub fn matches(&self, pod: &Pod) -> bool {
        self.namespaces.as_ref().is_none_or(|ns| ns.contains(pod.metadata.namespace()))
            && selector_matches(self.selector.as_ref(), &pod.metadata.labels)
    }

    /// A stable key for memoising counts.
    pub fn cache_key(&self) -> &str {
        &self.id
    }
}

/// What the topology rules read from a simulation.
pub trait View {
    /// Pods matching `filter` per value of `key`, among pods that stay and pods placed so far.
    fn counts(&self, key: &str, filter: &PodFilter) -> BTreeMap<String, i64>;
    /// Every value `key` can take.
    fn universe(&self, key: &str) -> Rc<BTreeSet<String>>;
    /// For every staying or placed pod whose required anti-affinity selects `pod`: the
    /// topology key and the domains it forbids.
    fn forbidden_by_existing(&self, pod: &Pod) -> BTreeMap<String, BTreeSet<String>>;
}

/// The result of a successful check: requirements a new NodeClaim must narrow to.
pub type Narrowing = Vec<(String, Requirement)>;

/// A pod's topology rules, evaluated once against the current placements: for each rule, the
/// key, the values it allows, and kube-scheduler's message when a destination breaks it.
#[derive(Default)]
pub struct Rules {
    rules: Vec<(String, Allowed, &'static str)>,
}

impl Rules {
    /// No rule applies.
    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Whether a new NodeClaim that may land in any of `domains_of(key)` satisfies every rule,
    /// and how it would have to narrow.
    pub fn admit_new(&self, domains_of: &dyn Fn(&str) -> BTreeSet<String>) -> Result<Narrowing, &'static str> {
        let mut narrowing = Narrowing::new();
        for (key, allowed, message) in &self.rules {
            narrow(key, allowed, domains_of(key), &mut narrowing).map_err(|()| *message)?;
        }
        Ok(narrowing)
    }

    /// Whether an existing node, whose value of a key is `domain_of(key)`, satisfies every rule.
    pub fn admit_existing<'d>(&self, domain_of: &dyn Fn(&str) -> Option<&'d str>) -> Result<(), &'static str> {
        for (key, allowed, message) in &self.rules {
            let admitted = match (allowed, domain_of(key)) {
                (Allowed::Any, _) => true,
                (_, None) => false,
                (Allowed::Only(set), Some(value)) => set.contains(value),
                (Allowed::HostnameExcept(set), Some(value)) => !set.contains(value),
            };
            if !admitted {
                return Err(message);
            }
        }
        Ok(())
    }

    /// The values of `key` that every rule on it allows; `None` when no rule narrows the key.
    pub fn allowed_values(&self, key: &str) -> Option<BTreeSet<&str>> {
        let mut out: Option<BTreeSet<&str>> = None;
        for (_, allowed, _) in self.rules.iter().filter(|(k, _, _)| k == key) {
            if let Allowed::Only(set) = allowed {
                let set: BTreeSet<&str> = set.iter().map(String::as_str).collect();
                out = Some(match out {
                    Some(before) => before.intersection(&set).copied().collect(),
                    None => set,
                });
            }
        }
        out
    }
}

/// Evaluates `pod`'s spread constraints and (anti-)affinity terms, and the anti-affinity of the
/// pods already placed, against `view`. `strict` also enforces preferred terms and
/// `ScheduleAnyway` spreads (Karpenter treats preferences as hard until it relaxes them).
pub fn prepare(pod: &Pod, view: &dyn View, strict: bool) -> Rules {
    let mut rules = Vec::new();
    for constraint in &pod.spec.topology_spread_constraints {
        if constraint.when_unsatisfiable == "ScheduleAnyway" && !strict {
            continue;
        }
        rules.push((
            constraint.topology_key.clone(),
            spread_allowed(pod, constraint, view),
            "node(s) didn't match pod topology spread constraints",
        ));
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
        rules.push((term.topology_key.clone(), allowed, "node(s) didn't match pod anti-affinity rules"));
    }
    for (key, forbidden) in view.forbidden_by_existing(pod) {
        let allowed = complement(&view.universe(&key), &forbidden, &key);
        rules.push((key, allowed, "node(s) didn't satisfy existing pods anti-affinity rules"));
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
        rules.push((term.topology_key.clone(), Allowed::Only(allowed), "node(s) didn't match pod affinity rules"));
    }
    Rules { rules }
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

fn narrow(key: &str, allowed: &Allowed, values: BTreeSet<String>, out: &mut Narrowing) -> Result<(), ()> {
    match allowed {
        Allowed::Any => Ok(()),
        Allowed::HostnameExcept(set) => {
            if values.iter().any(|v| set.contains(v)) {
                Err(())
            } else {
                Ok(())
            }
        }
        Allowed::Only(set) => {
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
    let filter = PodFilter::new(
        Some([pod.metadata.namespace().to_owned()].into()),
        with_match_label_keys(c.label_selector.as_ref(), c.match_label_keys.as_deref(), pod),
    );
    let hostname = c.topology_key == HOSTNAME;
    let mut counts: BTreeMap<String, i64> = if hostname {
        BTreeMap::new()
    } else {
        view.universe(&c.topology_key).iter().map(|d| (d.clone(), 0)).collect()
    };
    for (d, n) in view.counts(&c.topology_key, &filter) {
        *counts.entry(d).or_default() += n;
    }
    let min_domains = c.min_domains.unwrap_or(1).max(1) as usize;
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
pub fn term_filter(owner: &Pod, term: &PodAffinityTerm) -> PodFilter {
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
    PodFilter::new(namespaces, term.label_selector.clone())
}

pub fn required_anti_terms(pod: &Pod) -> Vec<&PodAffinityTerm> {
    pod.spec
        .affinity
        .as_ref()
        .and_then(|a| a.pod_anti_affinity.as_ref())
        .and_then(|a| a.required_during_scheduling_ignored_during_execution.as_ref())
        .map(|terms| terms.iter().collect())
        .unwrap_or_default()
}
