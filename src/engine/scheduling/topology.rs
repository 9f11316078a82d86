//! Topology: pod topology spread constraints and inter-pod (anti-)affinity, checked against the
//! pods that stay where they are plus the pods the simulation has placed so far.
//!
//! Mirrors karpenter `pkg/controllers/provisioning/scheduling/topology.go` (`AddRequirements`,
//! `Record`, `countDomains`, `newForTopologies`, `buildDomainGroups`) and kube-scheduler's
//! PodTopologySpread and InterPodAffinity filters (their error wording). Each rule is judged in
//! `topology_group.rs`; which nodes a spread counts is `topology_node_filter.rs`.
//!
//! - Counting ignores terminal and terminating pods and every pod being moved in this
//!   simulation until it is placed; a spread counts only pods on nodes (and NodeClaims) its
//!   node filter passes.
//! - A spread's domains are those the NodePools can launch (`buildDomainGroups`: each pool's
//!   requirements met with its instance types; with `nodeTaintsPolicy: Honor` only pools whose
//!   taints the pod tolerates) plus the values of existing nodes its node filter passes
//!   (`countDomains`); empty ones count as 0.
//! - `matchLabelKeys` add the pod's own values to the selector (`newForTopologies`).
//!
//! - The pod's domains are its nodeSelector with the required node-affinity term it is trying
//!   now (`pod_data::strict_requirements`, upstream's `PodData.StrictRequirements`).
//!
//! A pod on a new NodeClaim counts toward a spread or affinity domain only once the claim has
//! narrowed to one value of the key; for required anti-affinity (either way round) it counts in
//! every value the claim may still take (`Record`).

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

use k8s_openapi::api::core::v1::{PodAffinityTerm, TopologySpreadConstraint};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, LabelSelectorRequirement};

use super::pod_data::strict_requirements;
use super::requirements::{Requirement, Requirements};
use super::topology_group::{domain_min_count, Allowed, Counts, PodDomains, Rule};
use super::topology_node_filter::TopologyNodeFilter;
use crate::engine::labels::{selector_matches, HOSTNAME};
use crate::snapshot::{Pod, Taint};

/// Which pods a spread constraint or an affinity term counts, and (spreads only) on which
/// nodes.
#[derive(Debug, Clone, PartialEq)]
pub struct PodFilter {
    /// `None`: every namespace.
    pub namespaces: Option<BTreeSet<String>>,
    pub selector: Option<LabelSelector>,
    /// A spread's node filter; `None` (affinity terms, or a filter passing every node): every
    /// node counts.
    nodes: Option<Rc<TopologyNodeFilter>>,
    /// The node filter's own key (domains depend on it, not on the pods selected).
    nodes_id: String,
    /// A stable key for memoising counts, computed once.
    id: String,
}

impl PodFilter {
    pub fn new(namespaces: Option<BTreeSet<String>>, selector: Option<LabelSelector>) -> Self {
        let id = format!("{namespaces:?}|{}", serde_json::to_string(&selector).unwrap_or_default());
        PodFilter { namespaces, selector, nodes: None, nodes_id: String::new(), id }
    }

    /// The same pods, counted only on the nodes `filter` passes.
    fn on_nodes(mut self, filter: TopologyNodeFilter) -> Self {
        if !filter.passes_all() {
            self.nodes_id = filter.id();
            self.id = format!("{}|{}", self.id, self.nodes_id);
            self.nodes = Some(Rc::new(filter));
        }
        self
    }

    /// Whether a pod on an existing node (read through its labels and taints) counts.
    pub(crate) fn counts_on_node<'l>(&self, label: &dyn Fn(&str) -> Option<&'l str>, taints: &[Taint]) -> bool {
        self.nodes.as_ref().is_none_or(|f| f.matches_node(label, taints))
    }

    /// Whether a pod on a NodeClaim being built counts (`TopologyGroup.Counts`).
    pub(crate) fn counts_on_claim(
        &self,
        claim: &Requirements,
        taints: &[Taint],
        undefined_ok: &dyn Fn(&str) -> bool,
    ) -> bool {
        self.nodes.as_ref().is_none_or(|f| f.matches_claim(claim, taints, undefined_ok))
    }

    /// Whether the NodePool domains of a template with these taints register
    /// (`TopologyDomainGroup.ForEachDomain`).
    pub(crate) fn tolerates_template(&self, taints: &[Taint]) -> bool {
        self.nodes.as_ref().is_none_or(|f| f.tolerates(taints))
    }

    /// Whether a count on this filter depends on nodes (not only pods).
    pub(crate) fn has_node_filter(&self) -> bool {
        self.nodes.is_some()
    }

    /// The node requirements a node must meet to count (one alternative of them), when the
    /// node filter honours the pod's node affinity.
    pub(crate) fn required_node_terms(&self) -> Option<&[Requirements]> {
        self.nodes.as_deref().and_then(TopologyNodeFilter::required_terms)
    }

    /// The node filter's key, empty without one: what a spread's domains depend on.
    pub(crate) fn node_filter_key(&self) -> &str {
        &self.nodes_id
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
pub(crate) trait View {
    /// Pods matching `filter` per value of `key`, among pods that stay and pods placed so far.
    fn counts(&self, key: &str, filter: &PodFilter) -> Counts;
    /// The counts a pod's anti-affinity term reads: a selected pod on a new NodeClaim counts in
    /// every domain the claim may still take (`Topology.Record`).
    fn anti_counts(&self, key: &str, filter: &PodFilter) -> Counts {
        self.counts(key, filter)
    }
    /// Every value `key` can take.
    fn universe(&self, key: &str) -> Rc<BTreeSet<String>>;
    /// A spread's registered domains of `key`: what the NodePools can launch (those whose
    /// taints `filter` accepts) and the values of existing nodes `filter` passes
    /// (`buildDomainGroups`, `countDomains`).
    fn spread_domains(&self, key: &str, filter: &PodFilter) -> Rc<BTreeSet<String>>;
    /// For every staying or placed pod whose required anti-affinity selects `pod`: the
    /// topology key and the domains it forbids.
    fn forbidden_by_existing(&self, pod: &Pod) -> BTreeMap<String, BTreeSet<String>>;
}

/// The result of a successful check: requirements a new NodeClaim must narrow to.
pub(crate) type Narrowing = Vec<(String, Requirement)>;

/// A pod's spread constraints and affinity terms with the pods each one selects: what never
/// changes about the pod, computed once per replay.
#[derive(Debug, Default)]
pub struct PodTerms {
    /// Each spread with the pods it counts and whether it selects the pod itself.
    spreads: Vec<(TopologySpreadConstraint, PodFilter, bool)>,
    /// The pod's own requirements (`podDomains`).
    pod_domains: Option<PodDomains>,
    /// `(topology key, selected pods, required)` per anti-affinity and affinity term.
    anti: Vec<(String, PodFilter, bool)>,
    affinity: Vec<(String, PodFilter, bool)>,
    /// The required anti-affinity terms, which also bind the pods placed after this one.
    pub required_anti: Vec<(String, PodFilter)>,
}

impl PodTerms {
    /// The pods each spread counts, with its node filter.
    #[cfg(test)]
    pub(crate) fn spread_filters(&self) -> impl Iterator<Item = &PodFilter> {
        self.spreads.iter().map(|(_, filter, _)| filter)
    }

    /// The terms as v1.9.0 and later read them ([`PodTerms::for_version`]).
    pub fn new(pod: &Pod) -> Self {
        PodTerms::for_version(pod, true, None)
    }

    /// The pod's terms. `policies`: whether a spread reads `nodeTaintsPolicy`,
    /// `nodeAffinityPolicy` and `matchLabelKeys` (#852, v1.3.0); before, v1.2.5
    /// `topologynodefilter.go` `MakeTopologyNodeFilter` took the pod alone (its node affinity
    /// always honoured, taints never looked at: the two defaults) and `topology.go`
    /// `newForTopologies` passed the label selector as written. `volume`: before #2780 (v1.9.0)
    /// the requirement of the pod's volumes, which `volumetopology.go` `Inject` wrote into every
    /// required node-affinity term, so the pod's domains and each spread's node filter carry it.
    pub fn for_version(pod: &Pod, policies: bool, volume: Option<&Requirements>) -> Self {
        let spreads = pod
            .spec
            .topology_spread_constraints
            .iter()
            .map(|c| {
                let selector = if policies {
                    with_match_label_keys(c.label_selector.as_ref(), c.match_label_keys.as_deref(), pod)
                } else {
                    c.label_selector.clone()
                };
                let filter = PodFilter::new(Some([pod.metadata.namespace().to_owned()].into()), selector);
                let self_selecting = filter.matches(pod);
                let (taints_policy, affinity_policy) = if policies {
                    (c.node_taints_policy.as_deref(), c.node_affinity_policy.as_deref())
                } else {
                    (None, None)
                };
                let mut nodes = TopologyNodeFilter::new(pod, taints_policy, affinity_policy);
                if let Some(volume) = volume {
                    nodes.add_to_each(volume);
                }
                (c.clone(), filter.on_nodes(nodes), self_selecting)
            })
            .collect();
        let affinity = pod.spec.affinity.as_ref();
        let anti = affinity.and_then(|a| a.pod_anti_affinity.as_ref());
        let anti = terms(
            pod,
            anti.and_then(|a| a.required_during_scheduling_ignored_during_execution.as_ref()),
            anti.and_then(|a| a.preferred_during_scheduling_ignored_during_execution.as_ref()),
        );
        let aff = affinity.and_then(|a| a.pod_affinity.as_ref());
        let affinity = terms(
            pod,
            aff.and_then(|a| a.required_during_scheduling_ignored_during_execution.as_ref()),
            aff.and_then(|a| a.preferred_during_scheduling_ignored_during_execution.as_ref()),
        );
        let required_anti =
            anti.iter().filter(|(_, _, required)| *required).map(|(key, f, _)| (key.clone(), f.clone())).collect();
        let mut strict = strict_requirements(pod);
        if let Some(volume) = volume {
            strict.add_all(volume);
        }
        let pod_domains = Some(PodDomains { alternatives: Rc::new(vec![strict]) });
        PodTerms { spreads, pod_domains, anti, affinity, required_anti }
    }

    pub fn is_empty(&self) -> bool {
        self.spreads.is_empty() && self.anti.is_empty() && self.affinity.is_empty()
    }

    /// Every pod filter the pod's rules count (spreads, anti-affinity and affinity terms,
    /// required or preferred).
    pub(in crate::engine) fn filters(&self) -> impl Iterator<Item = &PodFilter> + '_ {
        let spreads = self.spreads.iter().map(|(_, f, _)| f);
        spreads.chain(self.anti.iter().chain(&self.affinity).map(|(_, f, _)| f))
    }
}

/// Required terms (`true`), then preferred ones, each with the pods it selects.
fn terms(
    owner: &Pod,
    required: Option<&Vec<PodAffinityTerm>>,
    preferred: Option<&Vec<k8s_openapi::api::core::v1::WeightedPodAffinityTerm>>,
) -> Vec<(String, PodFilter, bool)> {
    let required = required.into_iter().flatten().map(|t| (t, true));
    let preferred = preferred.into_iter().flatten().map(|w| (&w.pod_affinity_term, false));
    required.chain(preferred).map(|(t, r)| (t.topology_key.clone(), term_filter(owner, t), r)).collect()
}

/// A pod's topology rules, evaluated once against the current placements.
#[derive(Debug, Default)]
pub(crate) struct Rules {
    rules: Vec<Rule>,
}

impl Rules {
    /// No rule applies.
    pub(crate) fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// Whether a new NodeClaim that may land in any of `domains_of(key)` satisfies every rule,
    /// and how it would have to narrow.
    pub(crate) fn admit_new(&self, domains_of: &dyn Fn(&str) -> BTreeSet<String>) -> Result<Narrowing, &'static str> {
        let mut narrowing = Narrowing::new();
        for rule in &self.rules {
            let values = domains_of(&rule.key);
            let keep = rule.narrow(&values);
            if keep.is_empty() {
                return Err(rule.message);
            }
            if keep != values {
                narrowing.push((rule.key.clone(), Requirement::in_values(keep)));
            }
        }
        Ok(narrowing)
    }

    /// Whether an existing node, whose value of a key is `domain_of(key)`, satisfies every rule.
    pub(crate) fn admit_existing<'d>(&self, domain_of: &dyn Fn(&str) -> Option<&'d str>) -> Result<(), &'static str> {
        for rule in &self.rules {
            if !domain_of(&rule.key).is_some_and(|v| rule.admits(v)) {
                return Err(rule.message);
            }
        }
        Ok(())
    }

    /// The values of `universe` (all values of `key`) that every rule on `key` admits; `None`
    /// when no rule is on `key`.
    pub(crate) fn allowed_values<'u>(&self, key: &str, universe: &'u BTreeSet<String>) -> Option<BTreeSet<&'u str>> {
        let on_key: Vec<&Rule> = self.rules.iter().filter(|r| r.key == key).collect();
        if on_key.is_empty() {
            return None;
        }
        Some(universe.iter().map(String::as_str).filter(|v| on_key.iter().all(|r| r.admits(v))).collect())
    }
}

/// Evaluates `pod`'s spread constraints and (anti-)affinity terms, and the anti-affinity of the
/// pods already placed, against `view`. `strict` also enforces preferred terms and
/// `ScheduleAnyway` spreads (Karpenter treats preferences as hard until it relaxes them).
pub(crate) fn prepare(pod: &Pod, terms: &PodTerms, view: &dyn View, strict: bool) -> Rules {
    let mut rules = Vec::new();
    let universe_of = |key: &str| (key != HOSTNAME).then(|| view.universe(key));
    let mut rule = |key: &str, allowed: Allowed, message: &'static str| {
        rules.push(Rule { key: key.to_owned(), allowed, universe: universe_of(key), message });
    };
    let everywhere = PodDomains { alternatives: Rc::new(vec![Requirements::default()]) };
    let pod_domains = terms.pod_domains.as_ref().unwrap_or(&everywhere);
    for (constraint, filter, self_selecting) in &terms.spreads {
        if constraint.when_unsatisfiable == "ScheduleAnyway" && !strict {
            continue;
        }
        let key = &constraint.topology_key;
        let counts = view.counts(key, filter);
        let domains = if key == HOSTNAME { Rc::default() } else { view.spread_domains(key, filter) };
        let global_min = domain_min_count(key, &counts, &domains, pod_domains, constraint.min_domains);
        let max_skew = i64::from(constraint.max_skew.max(1));
        let allowed = Allowed::Spread { counts, domains, global_min, max_skew, self_selecting: *self_selecting };
        rule(key, allowed, "node(s) didn't match pod topology spread constraints");
    }
    for (key, filter, required) in &terms.anti {
        if *required || strict {
            let counts = view.anti_counts(key, filter);
            let anywhere = key != HOSTNAME && counts.occupied().next().is_none();
            rule(key, Allowed::Unoccupied { counts, anywhere }, "node(s) didn't match pod anti-affinity rules");
        }
    }
    for (key, forbidden) in view.forbidden_by_existing(pod) {
        rule(&key, Allowed::Except(forbidden), "node(s) didn't satisfy existing pods anti-affinity rules");
    }
    for (key, filter, required) in &terms.affinity {
        if *required || strict {
            let counts = view.counts(key, filter);
            let message = "node(s) didn't match pod affinity rules";
            // `anyCompatiblePodDomain`: a pod its own term selects, with no selected pod in a
            // domain it may use, starts the group.
            let compatible = counts.occupied().any(|d| pod_domains.has(key, d));
            if !compatible && filter.matches(pod) {
                rule(key, Allowed::Bootstrap { pod_domains: pod_domains.clone() }, message);
                continue;
            }
            rule(key, Allowed::Occupied { counts, pod_domains: pod_domains.clone() }, message);
        }
    }
    Rules { rules }
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
pub(crate) fn term_filter(owner: &Pod, term: &PodAffinityTerm) -> PodFilter {
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

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};
    use std::rc::Rc;

    use serde_json::json;

    use super::{prepare, Counts, PodFilter, PodTerms, View};
    use crate::engine::labels::{HOSTNAME, ZONE};
    use crate::snapshot::Pod;

    /// Fixed counts per key (whatever the filter), a universe per key, existing anti-affinity.
    #[derive(Default)]
    struct Fake {
        counts: BTreeMap<&'static str, BTreeMap<String, i64>>,
        universes: BTreeMap<&'static str, BTreeSet<String>>,
        forbidden: BTreeMap<String, BTreeSet<String>>,
    }

    impl View for Fake {
        fn counts(&self, key: &str, _: &PodFilter) -> Counts {
            Counts { base: Rc::new(self.counts.get(key).cloned().unwrap_or_default()), delta: BTreeMap::new() }
        }
        fn universe(&self, key: &str) -> Rc<BTreeSet<String>> {
            Rc::new(self.universes.get(key).cloned().unwrap_or_default())
        }
        fn spread_domains(&self, key: &str, _: &PodFilter) -> Rc<BTreeSet<String>> {
            self.universe(key)
        }
        fn forbidden_by_existing(&self, _: &Pod) -> BTreeMap<String, BTreeSet<String>> {
            self.forbidden.clone()
        }
    }

    fn zones(counts: &[(&str, i64)]) -> Fake {
        Fake {
            counts: [(ZONE, counts.iter().map(|(z, n)| ((*z).to_owned(), *n)).collect())].into(),
            universes: [(ZONE, ["a", "b", "c"].map(str::to_owned).into())].into(),
            ..Fake::default()
        }
    }

    fn pod(spec: &serde_json::Value) -> Pod {
        serde_json::from_value(
            json!({"metadata": {"name": "p", "namespace": "ns", "labels": {"app": "web"}}, "spec": spec}),
        )
        .expect("pod")
    }

    fn spread(key: &str, max_skew: i32, min_domains: Option<i32>, when: &str) -> Pod {
        pod(&json!({"topologySpreadConstraints": [{
            "topologyKey": key, "maxSkew": max_skew, "minDomains": min_domains,
            "whenUnsatisfiable": when, "labelSelector": {"matchLabels": {"app": "web"}}}]}))
    }

    fn set(values: &[&str]) -> BTreeSet<String> {
        values.iter().map(|v| (*v).to_owned()).collect()
    }

    #[test]
    fn zone_spread_admits_only_zones_within_max_skew_of_the_minimum() {
        let p = spread(ZONE, 1, None, "DoNotSchedule");
        let rules = prepare(&p, &PodTerms::new(&p), &zones(&[("a", 2), ("b", 1), ("c", 1)]), true);
        let universe = set(&["a", "b", "c"]);
        assert_eq!(rules.allowed_values(ZONE, &universe), Some(["b", "c"].into()));
        assert!(rules.admit_existing(&|_| Some("a")).is_err());
        assert!(rules.admit_existing(&|_| Some("b")).is_ok());
        assert!(rules.admit_existing(&|_| None).is_err(), "a node without the key is no domain");
        // topologygroup.go nextDomainTopologySpread: a new NodeClaim gets `In [minDomain]`, one
        // zone (b and c tie at 1; upstream's pick among ties is map order, ours the name).
        let narrowing = rules.admit_new(&|_| universe.clone()).expect("a new node can go to b or c");
        assert_eq!(narrowing.len(), 1);
        assert_eq!(narrowing[0].1.values, set(&["b"]));
    }

    #[test]
    fn fewer_domains_than_min_domains_makes_the_global_minimum_zero() {
        let p = spread(ZONE, 1, Some(4), "DoNotSchedule");
        let rules = prepare(&p, &PodTerms::new(&p), &zones(&[("a", 1), ("b", 1), ("c", 1)]), true);
        assert_eq!(rules.allowed_values(ZONE, &set(&["a", "b", "c"])), Some(BTreeSet::new()));
    }

    #[test]
    fn schedule_anyway_binds_only_before_relaxation() {
        let p = spread(ZONE, 1, None, "ScheduleAnyway");
        let view = zones(&[("a", 3)]);
        assert!(prepare(&p, &PodTerms::new(&p), &view, true).admit_existing(&|_| Some("a")).is_err());
        assert!(prepare(&p, &PodTerms::new(&p), &view, false).is_empty());
    }

    #[test]
    fn hostname_anti_affinity_refuses_occupied_nodes_but_not_a_new_one() {
        let p = pod(&json!({"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": HOSTNAME, "labelSelector": {"matchLabels": {"app": "web"}}}]}}}));
        let view = Fake { counts: [(HOSTNAME, [("node-a".to_owned(), 1)].into())].into(), ..Fake::default() };
        let rules = prepare(&p, &PodTerms::new(&p), &view, false);
        assert_eq!(rules.admit_existing(&|_| Some("node-a")), Err("node(s) didn't match pod anti-affinity rules"));
        assert!(rules.admit_existing(&|_| Some("node-b")).is_ok());
        assert!(rules.admit_new(&|_| set(&["<new nodeclaim 1>"])).is_ok());
    }

    #[test]
    fn affinity_to_itself_with_no_pod_yet_starts_in_one_domain() {
        // topologygroup.go nextDomainAffinity: a self-selecting pod with no selected pod in its
        // domains may use any of them, and a new NodeClaim is narrowed to one.
        let p = pod(&json!({"affinity": {"podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"topologyKey": ZONE, "labelSelector": {"matchLabels": {"app": "web"}}}]}}}));
        let rules = prepare(&p, &PodTerms::new(&p), &zones(&[]), false);
        assert_eq!(rules.allowed_values(ZONE, &set(&["a", "b", "c"])), Some(["a", "b", "c"].into()));
        let narrowing = rules.admit_new(&|_| set(&["a", "b", "c"])).expect("admitted");
        assert_eq!(narrowing[0].1.values, set(&["a"]));
        let rules = prepare(&p, &PodTerms::new(&p), &zones(&[("b", 1)]), false);
        assert_eq!(rules.allowed_values(ZONE, &set(&["a", "b", "c"])), Some(["b"].into()));
    }

    #[test]
    fn spread_minimum_ignores_zones_outside_the_pods_node_affinity() {
        // topologygroup.go domainMinCount counts only `podDomains`: zone c is empty but the pod
        // may not use it, so the minimum is 1 and zone a (1 pod) still admits one more.
        let p = pod(&json!({
            "topologySpreadConstraints": [{"topologyKey": ZONE, "maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": "web"}}}],
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["a", "b"]}]}]}}}}));
        let rules = prepare(&p, &PodTerms::new(&p), &zones(&[("a", 1), ("b", 2)]), true);
        assert!(rules.admit_existing(&|_| Some("a")).is_ok());
        assert!(rules.admit_existing(&|_| Some("b")).is_err());
    }

    #[test]
    fn pod_domains_are_the_first_required_term_only_until_it_is_relaxed() {
        // nodeclaim.go / existingnode.go CanAdd pass `podData.StrictRequirements`
        // (NewStrictPodRequirements: the first required term) to Topology.AddRequirements, so a
        // second term's zone c (empty) does not pull the minimum to 0 while the first term holds.
        let p = pod(&json!({
            "topologySpreadConstraints": [{"topologyKey": ZONE, "maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": "web"}}}],
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["a", "b"]}]},
                {"matchExpressions": [{"key": ZONE, "operator": "In", "values": ["c"]}]}]}}}}));
        let rules = prepare(&p, &PodTerms::new(&p), &zones(&[("a", 1), ("b", 2)]), true);
        assert!(rules.admit_existing(&|_| Some("a")).is_ok(), "minimum 1 over a and b: a admits one more");
        assert!(rules.admit_existing(&|_| Some("b")).is_err());
    }

    #[test]
    fn hostname_spread_admits_a_new_node_whatever_the_counts() {
        // topologygroup.go: hostname spreads take a global minimum of 0.
        let p = spread(HOSTNAME, 1, None, "DoNotSchedule");
        let view = Fake { counts: [(HOSTNAME, [("n1".to_owned(), 1)].into())].into(), ..Fake::default() };
        let rules = prepare(&p, &PodTerms::new(&p), &view, true);
        assert!(rules.admit_existing(&|_| Some("n1")).is_err());
        assert!(rules.admit_new(&|_| set(&["<new nodeclaim 1>"])).is_ok());
    }

    #[test]
    fn match_label_keys_narrow_the_selector_to_the_pods_own_values() {
        // topology.go newForTopologies: matchLabelKeys append `key In [pod's value]`.
        let p: Pod = serde_json::from_value(json!({
            "metadata": {"name": "p", "namespace": "ns", "labels": {"app": "web", "pod-template-hash": "v2"}},
            "spec": {"topologySpreadConstraints": [{"topologyKey": ZONE, "maxSkew": 1,
                "whenUnsatisfiable": "DoNotSchedule", "matchLabelKeys": ["pod-template-hash"],
                "labelSelector": {"matchLabels": {"app": "web"}}}]}}))
        .expect("pod");
        let terms = PodTerms::new(&p);
        let old: Pod = serde_json::from_value(json!({
            "metadata": {"name": "o", "namespace": "ns", "labels": {"app": "web", "pod-template-hash": "v1"}}}))
        .expect("pod");
        assert!(terms.spreads[0].1.matches(&p));
        assert!(!terms.spreads[0].1.matches(&old));
    }

    #[test]
    fn existing_anti_affinity_forbids_its_domains() {
        let p = pod(&json!({}));
        let view = Fake {
            universes: [(ZONE, set(&["a", "b"]))].into(),
            forbidden: [(ZONE.to_owned(), set(&["a"]))].into(),
            ..Fake::default()
        };
        let rules = prepare(&p, &PodTerms::new(&p), &view, false);
        assert_eq!(
            rules.admit_existing(&|_| Some("a")),
            Err("node(s) didn't satisfy existing pods anti-affinity rules")
        );
        assert!(rules.admit_existing(&|_| Some("b")).is_ok());
    }
}
