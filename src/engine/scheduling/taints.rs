//! Taints and tolerations.
//!
//! Mirrors karpenter `pkg/scheduling/taints.go` `Taints.ToleratesPod` and kube-scheduler's
//! TaintToleration filter (`v1helper.TolerationsTolerateTaint`), with its error wording.

use k8s_openapi::api::core::v1::Toleration;

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
/// `KnownEphemeralTaintsRemoved`).
pub(crate) fn lifted_at_initialization(t: &Taint, startup: &[Taint]) -> bool {
    is_ephemeral_taint(t) || startup.contains(t)
}

/// A taint Karpenter expects to go away while a managed node initializes (`KnownEphemeralTaints`,
/// `KnownEphemeralTaintKeyPrefixes`).
pub(crate) fn is_ephemeral_taint(t: &Taint) -> bool {
    matches!(
        t.key.as_str(),
        "node.kubernetes.io/not-ready"
            | "node.kubernetes.io/unreachable"
            | "karpenter.sh/unregistered"
            | "node.cloudprovider.kubernetes.io/uninitialized"
    ) || t.key.starts_with("readiness.k8s.io/")
}

#[cfg(test)]
mod tests {
    use super::{tolerates, untolerated};
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
}
