//! Topology: pod topology spread constraints and inter-pod (anti-)affinity, checked against the
//! pods that stay where they are plus the pods the simulation has placed so far.
//!
//! Mirrors karpenter `pkg/controllers/provisioning/scheduling/topology.go` /
//! `topologygroup.go` and kube-scheduler's PodTopologySpread and InterPodAffinity filters
//! (their error wording). Counting ignores terminal and terminating pods and every pod being
//! moved in this simulation until it is placed.

use std::collections::{BTreeMap, BTreeSet};

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

/// What the topology rules need to know about every destination.
pub trait Destinations {
    /// Every destination's index, domain for `key`, and pods (staying and placed).
    fn each(&self, key: &str) -> Vec<(usize, Domain, Vec<&Pod>)>;
    /// All values the key can take (existing nodes and what NodePools may launch).
    fn universe(&self, key: &str) -> BTreeSet<String>;
}

/// The result of a successful check: requirements a new NodeClaim must narrow to.
pub type Narrowing = Vec<(String, Requirement)>;

/// Whether `pod` may go to destination `target` with `domain_of(key)`, and how a new
/// NodeClaim would have to narrow. `strict` also enforces preferred terms and
/// `ScheduleAnyway` spreads (Karpenter treats preferences as hard until it relaxes them).
pub fn check(
    pod: &Pod,
    target: usize,
    domain_of: &dyn Fn(&str) -> Domain,
    all: &dyn Destinations,
    strict: bool,
) -> Result<Narrowing, &'static str> {
    let mut narrowing = Narrowing::new();
    for constraint in &pod.spec.topology_spread_constraints {
        if constraint.when_unsatisfiable == "ScheduleAnyway" && !strict {
            continue;
        }
        let allowed = spread_allowed(pod, constraint, target, all);
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
        let forbidden = matching_domains(pod, term, target, all);
        let allowed = complement(&all.universe(&term.topology_key), &forbidden, &term.topology_key);
        narrow(&term.topology_key, &allowed, domain_of, &mut narrowing)
            .map_err(|()| "node(s) didn't match pod anti-affinity rules")?;
    }
    for (key, forbidden) in existing_anti_affinity(pod, target, all) {
        let allowed = complement(&all.universe(&key), &forbidden, &key);
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
        let allowed = matching_domains(pod, term, usize::MAX, all);
        if allowed.is_empty() && term_matches(pod, term, pod) {
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

fn spread_allowed(pod: &Pod, c: &TopologySpreadConstraint, target: usize, all: &dyn Destinations) -> Allowed {
    let selector = with_match_label_keys(c.label_selector.as_ref(), c.match_label_keys.as_deref(), pod);
    let mut counts: BTreeMap<String, i64> = all.universe(&c.topology_key).into_iter().map(|d| (d, 0)).collect();
    for (_, domain, pods) in all.each(&c.topology_key) {
        let Domain::Fixed(Some(d)) = domain else { continue };
        let n = pods
            .iter()
            .filter(|p| p.metadata.namespace() == pod.metadata.namespace())
            .filter(|p| selector_matches(selector.as_ref(), &p.metadata.labels))
            .count() as i64;
        *counts.entry(d).or_default() += n;
    }
    let _ = target;
    let min_domains = c.min_domains.unwrap_or(1).max(1) as usize;
    let global_min = if c.topology_key == HOSTNAME || counts.len() < min_domains {
        0
    } else {
        counts.values().copied().min().unwrap_or(0)
    };
    let max_skew = i64::from(c.max_skew.max(1));
    if c.topology_key == HOSTNAME {
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

/// Whether `candidate` is selected by `owner`'s affinity term.
fn term_matches(owner: &Pod, term: &PodAffinityTerm, candidate: &Pod) -> bool {
    let namespaces: Vec<&str> = term.namespaces.iter().flatten().map(String::as_str).collect();
    let ns_ok = if namespaces.is_empty() && term.namespace_selector.is_none() {
        candidate.metadata.namespace() == owner.metadata.namespace()
    } else {
        namespaces.contains(&candidate.metadata.namespace())
            || term.namespace_selector.as_ref().is_some_and(|s| {
                s.match_labels.as_ref().is_none_or(BTreeMap::is_empty)
                    && s.match_expressions.as_ref().is_none_or(Vec::is_empty)
            })
    };
    ns_ok && selector_matches(term.label_selector.as_ref(), &candidate.metadata.labels)
}

/// Domains (fixed values) holding a pod the term selects.
fn matching_domains(pod: &Pod, term: &PodAffinityTerm, _target: usize, all: &dyn Destinations) -> BTreeSet<String> {
    all.each(&term.topology_key)
        .into_iter()
        .filter(|(_, _, pods)| pods.iter().any(|p| !std::ptr::eq(*p, pod) && term_matches(pod, term, p)))
        .filter_map(|(_, domain, _)| match domain {
            Domain::Fixed(v) => v,
            Domain::OneOf(values) if values.len() == 1 => values.into_iter().next(),
            Domain::OneOf(_) => None,
        })
        .collect()
}

/// For every placed pod whose required anti-affinity selects `pod`: the key and its domains.
fn existing_anti_affinity(pod: &Pod, _target: usize, all: &dyn Destinations) -> Vec<(String, BTreeSet<String>)> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let keys: BTreeSet<String> = all
        .each(HOSTNAME)
        .into_iter()
        .flat_map(|(_, _, pods)| pods)
        .flat_map(|p| required_anti_terms(p).into_iter().map(|t| t.topology_key.clone()))
        .collect();
    for key in keys {
        for (_, domain, pods) in all.each(&key) {
            let hit = pods.iter().any(|q| {
                !std::ptr::eq(*q, pod)
                    && required_anti_terms(q).iter().any(|t| t.topology_key == key && term_matches(q, t, pod))
            });
            if hit {
                if let Domain::Fixed(Some(v)) = domain {
                    out.entry(key.clone()).or_default().insert(v);
                }
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
