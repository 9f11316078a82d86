//! Soft constraints, relaxed one at a time after a pod fails to schedule.
//!
//! Until relaxed, a preference binds like a requirement: the heaviest preferred node-affinity
//! term joins the pod's requirements (`pod_data.rs`), preferred pod (anti-)affinity terms and
//! `ScheduleAnyway` spreads are enforced by the topology rules, and a `PreferNoSchedule` taint
//! must be tolerated. Each failed attempt removes one of them, in upstream's order, from the
//! pod's own copy (the queue keeps the original, so a retry starts from every preference):
//!
//! 1. the first required node-affinity term, while more than one is left (terms are ORed, and
//!    only the first is tried at a time);
//! 2. the heaviest preferred pod-affinity term;
//! 3. the heaviest preferred pod-anti-affinity term;
//! 4. the heaviest preferred node-affinity term;
//! 5. the first `ScheduleAnyway` topology spread constraint (the last one takes its place);
//! 6. only when some NodePool template has a `PreferNoSchedule` taint: a toleration of every
//!    `PreferNoSchedule` taint.
//!
//! `PREFERENCE_POLICY=Ignore` removes the preferences of 2–5 before the first attempt (upstream
//! builds the pod's requirements without them and its topology skips them).
//!
//! Mirrors karpenter `pkg/controllers/provisioning/scheduling/preferences.go` (`Relax` and its
//! steps), `scheduler.go` (`NewScheduler` `ToleratePreferNoSchedule`, `trySchedule`,
//! `updateCachedPodData` with `PreferencePolicyIgnore`) and `topology.go` (`newForTopologies`,
//! `newForAffinities` under `PreferencePolicyIgnore`).

use std::borrow::Cow;

use k8s_openapi::api::core::v1::Toleration;

use crate::snapshot::{Pod, Taint};

/// Upstream's `Preferences`: whether the last relaxation is available.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Preferences {
    /// Some NodePool template carries a `PreferNoSchedule` taint (`NewScheduler`).
    pub(crate) tolerate_prefer_no_schedule: bool,
}

/// What one relaxation removed or added, in upstream's log wording.
pub(crate) type Relaxed = &'static str;

impl Preferences {
    /// From the NodePools' template taints.
    pub(crate) fn new<'t>(template_taints: impl IntoIterator<Item = &'t Taint>) -> Self {
        let tolerate_prefer_no_schedule = template_taints.into_iter().any(|t| t.effect == "PreferNoSchedule");
        Preferences { tolerate_prefer_no_schedule }
    }

    /// Relaxes one soft constraint of `pod` (copying it on the first change); `None` when
    /// nothing is left to relax.
    ///
    /// Mirrors karpenter `preferences.go` `Preferences.Relax`.
    pub(crate) fn relax(self, pod: &mut Cow<'_, Pod>) -> Option<Relaxed> {
        let step = self.next_step(pod)?;
        let spec = &mut pod.to_mut().spec;
        match step {
            Step::RequiredNodeAffinityTerm => {
                let required = node_affinity_mut(spec)?.required_during_scheduling_ignored_during_execution.as_mut()?;
                required.node_selector_terms.remove(0);
                Some("removing: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]")
            }
            Step::PreferredPodAffinityTerm => {
                let terms = spec.affinity.as_mut()?.pod_affinity.as_mut()?;
                remove_heaviest(terms.preferred_during_scheduling_ignored_during_execution.as_mut()?, |t| t.weight);
                Some("removing: spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]")
            }
            Step::PreferredPodAntiAffinityTerm => {
                let terms = spec.affinity.as_mut()?.pod_anti_affinity.as_mut()?;
                remove_heaviest(terms.preferred_during_scheduling_ignored_during_execution.as_mut()?, |t| t.weight);
                Some("removing: spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]")
            }
            Step::PreferredNodeAffinityTerm => {
                let terms = node_affinity_mut(spec)?.preferred_during_scheduling_ignored_during_execution.as_mut()?;
                remove_heaviest(terms, |t| t.weight);
                Some("removing: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]")
            }
            Step::ScheduleAnywaySpread => {
                let spreads = &mut spec.topology_spread_constraints;
                let i = spreads.iter().position(|c| c.when_unsatisfiable == "ScheduleAnyway")?;
                spreads.swap_remove(i);
                Some("removing: spec.topologySpreadConstraints (ScheduleAnyway)")
            }
            Step::ToleratePreferNoSchedule => {
                spec.tolerations.push(prefer_no_schedule_toleration());
                Some("adding: toleration for PreferNoSchedule taints")
            }
        }
    }

    /// The first relaxation that applies to `pod`, in upstream's order.
    fn next_step(self, pod: &Pod) -> Option<Step> {
        let affinity = pod.spec.affinity.as_ref();
        let node = affinity.and_then(|a| a.node_affinity.as_ref());
        let required_terms = super::pod_data::required_node_terms(pod).len();
        let has = |len: Option<usize>| len.is_some_and(|n| n > 0);
        if required_terms > 1 {
            return Some(Step::RequiredNodeAffinityTerm);
        }
        let pod_affinity = affinity.and_then(|a| a.pod_affinity.as_ref());
        if has(pod_affinity.and_then(|a| a.preferred_during_scheduling_ignored_during_execution.as_ref()).map(Vec::len))
        {
            return Some(Step::PreferredPodAffinityTerm);
        }
        let anti = affinity.and_then(|a| a.pod_anti_affinity.as_ref());
        if has(anti.and_then(|a| a.preferred_during_scheduling_ignored_during_execution.as_ref()).map(Vec::len)) {
            return Some(Step::PreferredPodAntiAffinityTerm);
        }
        if has(node.and_then(|n| n.preferred_during_scheduling_ignored_during_execution.as_ref()).map(Vec::len)) {
            return Some(Step::PreferredNodeAffinityTerm);
        }
        if pod.spec.topology_spread_constraints.iter().any(|c| c.when_unsatisfiable == "ScheduleAnyway") {
            return Some(Step::ScheduleAnywaySpread);
        }
        let tolerated = pod.spec.tolerations.iter().any(tolerates_every_prefer_no_schedule);
        (self.tolerate_prefer_no_schedule && !tolerated).then_some(Step::ToleratePreferNoSchedule)
    }
}

/// `PREFERENCE_POLICY=Ignore`: the pod without its preferred node affinity, preferred pod
/// (anti-)affinity and `ScheduleAnyway` spreads (copied only if it has any).
pub(crate) fn ignore_preferences(pod: &mut Cow<'_, Pod>) {
    if !has_preferences(pod) {
        return;
    }
    let spec = &mut pod.to_mut().spec;
    spec.topology_spread_constraints.retain(|c| c.when_unsatisfiable != "ScheduleAnyway");
    if let Some(affinity) = spec.affinity.as_mut() {
        if let Some(n) = affinity.node_affinity.as_mut() {
            n.preferred_during_scheduling_ignored_during_execution = None;
        }
        if let Some(a) = affinity.pod_affinity.as_mut() {
            a.preferred_during_scheduling_ignored_during_execution = None;
        }
        if let Some(a) = affinity.pod_anti_affinity.as_mut() {
            a.preferred_during_scheduling_ignored_during_execution = None;
        }
    }
}

/// Whether the pod has a preference `PREFERENCE_POLICY=Ignore` removes.
fn has_preferences(pod: &Pod) -> bool {
    let affinity = pod.spec.affinity.as_ref();
    let node = affinity.and_then(|a| a.node_affinity.as_ref());
    let pod_affinity = affinity.and_then(|a| a.pod_affinity.as_ref());
    let anti = affinity.and_then(|a| a.pod_anti_affinity.as_ref());
    pod.spec.topology_spread_constraints.iter().any(|c| c.when_unsatisfiable == "ScheduleAnyway")
        || node
            .and_then(|n| n.preferred_during_scheduling_ignored_during_execution.as_ref())
            .is_some_and(|v| !v.is_empty())
        || pod_affinity
            .and_then(|a| a.preferred_during_scheduling_ignored_during_execution.as_ref())
            .is_some_and(|v| !v.is_empty())
        || anti
            .and_then(|a| a.preferred_during_scheduling_ignored_during_execution.as_ref())
            .is_some_and(|v| !v.is_empty())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    RequiredNodeAffinityTerm,
    PreferredPodAffinityTerm,
    PreferredPodAntiAffinityTerm,
    PreferredNodeAffinityTerm,
    ScheduleAnywaySpread,
    ToleratePreferNoSchedule,
}

fn node_affinity_mut(spec: &mut crate::snapshot::PodSpec) -> Option<&mut k8s_openapi::api::core::v1::NodeAffinity> {
    spec.affinity.as_mut()?.node_affinity.as_mut()
}

/// Upstream sorts the terms by weight, heaviest first (stable), and keeps `terms[1:]`.
fn remove_heaviest<T>(terms: &mut Vec<T>, weight: impl Fn(&T) -> i32) {
    terms.sort_by_key(|t| std::cmp::Reverse(weight(t)));
    if !terms.is_empty() {
        terms.remove(0);
    }
}

/// `Exists` for effect `PreferNoSchedule`, with no key: it tolerates every such taint.
pub(in crate::engine) fn prefer_no_schedule_toleration() -> Toleration {
    Toleration { operator: Some("Exists".into()), effect: Some("PreferNoSchedule".into()), ..Toleration::default() }
}

/// Upstream's `MatchToleration` against that toleration: the pod already has it.
fn tolerates_every_prefer_no_schedule(t: &Toleration) -> bool {
    t.operator.as_deref() == Some("Exists")
        && t.effect.as_deref() == Some("PreferNoSchedule")
        && t.key.as_deref().unwrap_or_default().is_empty()
        && t.value.as_deref().unwrap_or_default().is_empty()
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;

    use serde_json::json;

    use super::{ignore_preferences, Preferences};
    use crate::snapshot::{Pod, Taint};

    fn pod(spec: &serde_json::Value) -> Pod {
        serde_json::from_value(json!({"metadata": {"name": "p"}, "spec": spec})).expect("pod")
    }

    fn zone_term(zone: &str) -> serde_json::Value {
        json!({"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": [zone]}]})
    }

    fn anti(weight: i32, app: &str) -> serde_json::Value {
        json!({"weight": weight, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": "kubernetes.io/hostname"}})
    }

    /// Relaxes until nothing is left; every step's description.
    fn steps(prefs: Preferences, p: &Pod) -> (Vec<&'static str>, Pod) {
        let mut relaxed = Cow::Borrowed(p);
        let mut out = Vec::new();
        while let Some(step) = prefs.relax(&mut relaxed) {
            out.push(step);
            assert!(out.len() < 20, "relaxation must end");
        }
        (out, relaxed.into_owned())
    }

    #[test]
    fn relaxes_one_step_at_a_time_in_upstream_order() {
        // preferences.go Relax: required OR-terms (down to one), preferred pod affinity, preferred
        // anti-affinity, preferred node affinity, ScheduleAnyway spreads, then PreferNoSchedule.
        let p = pod(&json!({
            "affinity": {
                "nodeAffinity": {
                    "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [zone_term("a"), zone_term("b")]},
                    "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": zone_term("c")}]},
                "podAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [anti(5, "x")]},
                "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [anti(1, "light"), anti(9, "heavy")]}},
            "topologySpreadConstraints": [
                {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway"},
                {"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule"}]}));
        let prefs = Preferences { tolerate_prefer_no_schedule: true };
        let (done, last) = steps(prefs, &p);
        assert_eq!(
            done,
            [
                "removing: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]",
                "removing: spec.affinity.podAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]",
                "removing: spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]",
                "removing: spec.affinity.podAntiAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]",
                "removing: spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]",
                "removing: spec.topologySpreadConstraints (ScheduleAnyway)",
                "adding: toleration for PreferNoSchedule taints",
            ]
        );
        let node = last.spec.affinity.as_ref().and_then(|a| a.node_affinity.as_ref()).expect("node affinity");
        let terms =
            &node.required_during_scheduling_ignored_during_execution.as_ref().expect("required").node_selector_terms;
        assert_eq!(terms.len(), 1, "the last required term is never removed");
        assert_eq!(terms[0], serde_json::from_value(zone_term("b")).expect("term"));
        assert_eq!(last.spec.topology_spread_constraints.len(), 1, "DoNotSchedule stays");
    }

    #[test]
    fn the_heaviest_preferred_term_goes_first() {
        let p = pod(&json!({"affinity": {"podAntiAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [anti(1, "light"), anti(9, "heavy")]}}}));
        let mut relaxed = Cow::Borrowed(&p);
        Preferences::default().relax(&mut relaxed);
        let left = relaxed.spec.affinity.as_ref().and_then(|a| a.pod_anti_affinity.as_ref()).expect("anti");
        let left = left.preferred_during_scheduling_ignored_during_execution.as_ref().expect("preferred");
        assert_eq!(left.len(), 1);
        assert_eq!(left[0].weight, 1);
    }

    #[test]
    fn prefer_no_schedule_is_tolerated_only_when_a_template_has_such_a_taint() {
        let p = pod(&json!({}));
        assert_eq!(steps(Preferences::default(), &p).0.len(), 0, "nothing to relax, the pod is not copied");
        let soft = Taint { key: "k".into(), value: None, effect: "PreferNoSchedule".into() };
        let hard = Taint { key: "k".into(), value: None, effect: "NoSchedule".into() };
        assert!(!Preferences::new([&hard]).tolerate_prefer_no_schedule);
        let prefs = Preferences::new([&hard, &soft]);
        assert_eq!(steps(prefs, &p).0, ["adding: toleration for PreferNoSchedule taints"]);
    }

    #[test]
    fn preference_policy_ignore_drops_every_preference_up_front() {
        let p = pod(&json!({
            "affinity": {"nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [zone_term("a"), zone_term("b")]},
                "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 1, "preference": zone_term("c")}]}},
            "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway"}]}));
        let mut ignored = Cow::Borrowed(&p);
        ignore_preferences(&mut ignored);
        assert!(ignored.spec.topology_spread_constraints.is_empty());
        // Only the required OR-terms are left to relax.
        let (done, _) = steps(Preferences::default(), &ignored);
        assert_eq!(done, ["removing: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution[0]"]);
        let plain = pod(&json!({}));
        let mut untouched = Cow::Borrowed(&plain);
        ignore_preferences(&mut untouched);
        assert!(matches!(untouched, Cow::Borrowed(_)), "a pod without preferences is not copied");
    }
}
