//! Taints and tolerations.
//!
//! Mirrors karpenter `pkg/scheduling/taints.go` `Taints.ToleratesPod` and kube-scheduler's
//! TaintToleration filter (`v1helper.TolerationsTolerateTaint`), with its error wording.

use k8s_openapi::api::core::v1::Toleration;

use crate::rules::{Rule, RuleSet};
use crate::snapshot::Taint;

/// Whether one toleration tolerates one taint.
pub(crate) fn tolerates(toleration: &Toleration, taint: &Taint) -> bool {
    let effect_ok = toleration.effect.as_deref().is_none_or(|e| e.is_empty() || e == taint.effect);
    if !effect_ok {
        return false;
    }
    let key = toleration.key.as_deref().unwrap_or_default();
    match toleration.operator.as_deref().unwrap_or("Equal") {
        "Exists" => key.is_empty() || key == taint.key,
        _ => {
            key == taint.key
                && toleration.value.as_deref().unwrap_or_default() == taint.value.as_deref().unwrap_or_default()
        }
    }
}

/// The first taint not tolerated, as kube-scheduler words it. Every effect counts, as in
/// `Taints.ToleratesPod`, `PreferNoSchedule` included: only the relaxation that adds a
/// toleration for it (`preferences.rs`) lets a pod past one.
pub(crate) fn untolerated<'t>(tolerations: &[Toleration], taints: &'t [Taint]) -> Option<&'t Taint> {
    taints.iter().find(|taint| !tolerations.iter().any(|t| tolerates(t, taint)))
}

/// kube-scheduler's message for an untolerated taint.
pub(crate) fn message(taint: &Taint) -> String {
    format!("node(s) had untolerated taint {{{}: {}}}", taint.key, taint.value.as_deref().unwrap_or_default())
}

/// A taint gone once a managed node is initialized: one of its NodeClaim's startup taints or a
/// known ephemeral one (`initialization.go` `StartupTaintsRemoved`,
/// `KnownEphemeralTaintsRemoved`; `statenode.go` `StateNode.Taints` leaves both out of an
/// uninitialized node). Both match by key and effect (`Taint.MatchTaint`), whatever the value.
pub(crate) fn lifted_at_initialization(t: &Taint, startup: &[Taint], known: EphemeralTaints) -> bool {
    known.contains(t) || startup.iter().any(|s| matches_taint(s, t))
}

/// `corev1.Taint.MatchTaint`: taints are unique by key and effect.
fn matches_taint(a: &Taint, b: &Taint) -> bool {
    a.key == b.key && a.effect == b.effect
}

/// The taints one core version expects to go away while a managed node initializes
/// (`pkg/scheduling/taints.go` `KnownEphemeralTaints`, and from v1.13.0
/// `KnownEphemeralTaintKeyPrefixes`, read by `IsKnownEphemeralTaint`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct EphemeralTaints {
    /// `node.kubernetes.io/not-ready:NoExecute` (#2265, v1.7.0).
    not_ready_no_execute: bool,
    /// Any key under `readiness.k8s.io/` (#3025, v1.13.0).
    readiness_prefix: bool,
}

impl EphemeralTaints {
    /// The newest version's list: what the node lifecycle really removes, whatever Karpenter's
    /// version (the forecast's launch model takes them all off at initialization).
    pub(crate) const NEWEST: EphemeralTaints = EphemeralTaints { not_ready_no_execute: true, readiness_prefix: true };

    pub(crate) fn of(rules: &RuleSet) -> EphemeralTaints {
        EphemeralTaints {
            not_ready_no_execute: rules.has(Rule::NotReadyNoExecuteEphemeral),
            readiness_prefix: rules.has(Rule::ReadinessTaintsEphemeral),
        }
    }

    /// Whether `t` is one of them. The v1.0.0 list, kept at every version: not-ready and
    /// unreachable with NoSchedule, the cloud provider's `uninitialized` NoSchedule, Karpenter's
    /// `unregistered` NoExecute.
    pub(crate) fn contains(self, t: &Taint) -> bool {
        let listed = match (t.key.as_str(), t.effect.as_str()) {
            (
                "node.kubernetes.io/not-ready"
                | "node.kubernetes.io/unreachable"
                | "node.cloudprovider.kubernetes.io/uninitialized",
                "NoSchedule",
            )
            | ("karpenter.sh/unregistered", "NoExecute") => true,
            ("node.kubernetes.io/not-ready", "NoExecute") => self.not_ready_no_execute,
            _ => false,
        };
        listed || (self.readiness_prefix && t.key.starts_with("readiness.k8s.io/"))
    }

    /// The rule that makes `t` ephemeral in the newest version, when this version lacks it.
    pub(crate) fn rule_missing_for(self, t: &Taint) -> Option<Rule> {
        if self.contains(t) || !EphemeralTaints::NEWEST.contains(t) {
            return None;
        }
        Some(if t.key.starts_with("readiness.k8s.io/") {
            Rule::ReadinessTaintsEphemeral
        } else {
            Rule::NotReadyNoExecuteEphemeral
        })
    }
}

#[cfg(test)]
mod tests {
    use super::{lifted_at_initialization, tolerates, untolerated, EphemeralTaints};
    use crate::rules::{CoreVersion, Rule, RuleSet};
    use crate::snapshot::Taint;
    use k8s_openapi::api::core::v1::Toleration;

    fn taint(key: &str, value: &str, effect: &str) -> Taint {
        Taint { key: key.into(), value: Some(value.into()), effect: effect.into() }
    }

    #[test]
    fn equal_and_exists() {
        let t = taint("dedicated", "gpu", "NoSchedule");
        let equal = Toleration { key: Some("dedicated".into()), value: Some("gpu".into()), ..Toleration::default() };
        assert!(tolerates(&equal, &t));
        let wrong = Toleration { key: Some("dedicated".into()), value: Some("cpu".into()), ..Toleration::default() };
        assert!(!tolerates(&wrong, &t));
        let all = Toleration { operator: Some("Exists".into()), ..Toleration::default() };
        assert!(tolerates(&all, &t));
        let other_effect =
            Toleration { operator: Some("Exists".into()), effect: Some("NoExecute".into()), ..Toleration::default() };
        assert!(!tolerates(&other_effect, &t));
    }

    #[test]
    fn prefer_no_schedule_counts_until_tolerated() {
        // `Taints.ToleratesPod` checks every effect; the relaxation's toleration lets it pass.
        let taints = [taint("soft", "x", "PreferNoSchedule")];
        assert!(untolerated(&[], &taints).is_some());
        let relaxed = Toleration {
            operator: Some("Exists".into()),
            effect: Some("PreferNoSchedule".into()),
            ..Toleration::default()
        };
        assert!(untolerated(&[relaxed], &taints).is_none());
    }

    #[test]
    fn ephemeral_taints_match_key_and_effect_and_follow_the_version() {
        // pkg/scheduling/taints.go KnownEphemeralTaints at v1.0.0, v1.7.0 (#2265), v1.13.0 (#3025).
        let at = |minor| EphemeralTaints::of(&RuleSet::at(CoreVersion::new(1, minor, 0)));
        let not_ready_no_execute = taint("node.kubernetes.io/not-ready", "", "NoExecute");
        let readiness = taint("readiness.k8s.io/network", "pending", "NoSchedule");
        assert!(!at(6).contains(&not_ready_no_execute) && at(7).contains(&not_ready_no_execute));
        assert!(!at(12).contains(&readiness) && at(13).contains(&readiness));
        assert_eq!(at(6).rule_missing_for(&not_ready_no_execute), Some(Rule::NotReadyNoExecuteEphemeral));
        assert_eq!(at(12).rule_missing_for(&readiness), Some(Rule::ReadinessTaintsEphemeral));
        assert_eq!(at(14).rule_missing_for(&readiness), None);
        // MatchTaint compares key and effect: unreachable is ephemeral only as NoSchedule.
        let newest = EphemeralTaints::NEWEST;
        assert!(newest.contains(&taint("node.kubernetes.io/unreachable", "", "NoSchedule")));
        assert!(!newest.contains(&taint("node.kubernetes.io/unreachable", "", "NoExecute")));
        assert!(at(0).contains(&taint("node.kubernetes.io/not-ready", "x", "NoSchedule")), "the value does not count");
    }

    #[test]
    fn a_startup_taint_is_lifted_whatever_its_value() {
        let startup = [taint("example.com/agent", "starting", "NoSchedule")];
        let known = EphemeralTaints::NEWEST;
        assert!(lifted_at_initialization(&taint("example.com/agent", "other", "NoSchedule"), &startup, known));
        assert!(!lifted_at_initialization(&taint("example.com/agent", "starting", "NoExecute"), &startup, known));
    }
}
