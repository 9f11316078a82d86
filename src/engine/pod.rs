//! Pod predicates Karpenter's disruption logic uses, and a pod's resource requests.
//!
//! Mirrors karpenter `pkg/utils/pod/scheduling.go` (`IsActive`, `IsReschedulable`,
//! `IsDisruptable`, `IsEvictable`, `IsDoNotDisruptActive`) and the request arithmetic of
//! `resources.RequestsForPods` (k8s `resourcehelper.PodRequests`).

use jiff::{SignedDuration, Timestamp};
use k8s_openapi::api::core::v1::PodAffinityTerm;

use super::labels::{DISRUPTED_TAINT, DO_NOT_DISRUPT};
use crate::quantity::Quantity;
use crate::snapshot::{Pod, Resources};

/// Terminal: `Succeeded` or `Failed`.
pub(crate) fn is_terminal(pod: &Pod) -> bool {
    matches!(pod.status.phase.as_deref(), Some("Succeeded" | "Failed"))
}

/// Terminating: has a deletion timestamp.
pub(crate) fn is_terminating(pod: &Pod) -> bool {
    pod.metadata.deletion_timestamp.is_some()
}

/// Neither terminal nor terminating.
pub(crate) fn is_active(pod: &Pod) -> bool {
    !is_terminal(pod) && !is_terminating(pod)
}

fn is_owned_by(pod: &Pod, api_version: &str, kind: &str) -> bool {
    pod.metadata.owner_references.iter().any(|o| o.api_version == api_version && o.kind == kind)
}

/// Owned by an `apps/v1 DaemonSet`.
pub(crate) fn is_owned_by_daemonset(pod: &Pod) -> bool {
    is_owned_by(pod, "apps/v1", "DaemonSet")
}

/// The pod's required anti-affinity terms (which bind the pods placed after it, too).
pub(crate) fn required_anti_affinity_terms(pod: &Pod) -> &[PodAffinityTerm] {
    pod.spec
        .affinity
        .as_ref()
        .and_then(|a| a.pod_anti_affinity.as_ref())
        .and_then(|a| a.required_during_scheduling_ignored_during_execution.as_deref())
        .unwrap_or_default()
}

/// Has a required anti-affinity term.
pub(crate) fn has_required_anti_affinity(pod: &Pod) -> bool {
    !required_anti_affinity_terms(pod).is_empty()
}

/// A mirror (static) pod: owned by a `v1 Node`, or carrying the mirror annotation.
pub(crate) fn is_mirror(pod: &Pod) -> bool {
    is_owned_by(pod, "v1", "Node") || pod.metadata.annotations.contains_key("kubernetes.io/config.mirror")
}

pub(crate) fn is_owned_by_statefulset(pod: &Pod) -> bool {
    is_owned_by(pod, "apps/v1", "StatefulSet")
}

/// Pods Karpenter must place elsewhere when the node goes.
///
/// Mirrors [`crate::upstream::IS_RESCHEDULABLE`].
pub(crate) fn is_reschedulable(pod: &Pod) -> bool {
    (is_active(pod) || (is_owned_by_statefulset(pod) && is_terminating(pod)))
        && !is_owned_by_daemonset(pod)
        && !is_mirror(pod)
}

/// The state of a pod's `karpenter.sh/do-not-disrupt` annotation at `now`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DoNotDisrupt {
    Absent,
    /// `"true"`, or a duration still running (`until` when known).
    Active {
        until: Option<Timestamp>,
    },
    /// A duration that has elapsed.
    Elapsed,
    /// Any other value: ignored with an `InvalidDoNotDisruptAnnotation` event.
    Invalid(String),
}

/// Mirrors [`crate::upstream::IS_DO_NOT_DISRUPT_ACTIVE`]. Without `durations` (before v1.12.0,
/// #2874: `HasDoNotDisrupt`) only `"true"` counts and any other value is as if absent.
pub(crate) fn do_not_disrupt(pod: &Pod, now: Timestamp, durations: bool) -> DoNotDisrupt {
    let Some(value) = pod.metadata.annotations.get(DO_NOT_DISRUPT) else { return DoNotDisrupt::Absent };
    if value == "true" {
        return DoNotDisrupt::Active { until: None };
    }
    if !durations {
        return DoNotDisrupt::Absent;
    }
    match value.parse::<SignedDuration>() {
        Ok(d) if d.is_positive() => match pod.status.start_time {
            None => DoNotDisrupt::Active { until: None },
            Some(start) => match start.checked_add(d) {
                Ok(until) if now < until => DoNotDisrupt::Active { until: Some(until) },
                Ok(_) => DoNotDisrupt::Elapsed,
                Err(_) => DoNotDisrupt::Active { until: None },
            },
        },
        _ => DoNotDisrupt::Invalid(value.clone()),
    }
}

/// Whether do-not-disrupt is in force on the pod now.
pub(crate) fn is_do_not_disrupt_active(pod: &Pod, now: Timestamp, durations: bool) -> bool {
    matches!(do_not_disrupt(pod, now, durations), DoNotDisrupt::Active { .. })
}

/// Not active, or do-not-disrupt not in force: terminal and terminating pods never hold a node.
///
/// Mirrors karpenter `pkg/utils/pod/scheduling.go` `IsDisruptable`.
pub(crate) fn is_disruptable(pod: &Pod, now: Timestamp, durations: bool) -> bool {
    !is_active(pod) || !is_do_not_disrupt_active(pod, now, durations)
}

/// Whether the pod tolerates `karpenter.sh/disrupted:NoSchedule` (then it is not evicted).
pub(crate) fn tolerates_disrupted_taint(pod: &Pod) -> bool {
    pod.spec.tolerations.iter().any(|t| {
        let key_ok = t.key.as_deref().is_none_or(|k| k.is_empty() || k == DISRUPTED_TAINT);
        let effect_ok = t.effect.as_deref().is_none_or(|e| e.is_empty() || e == "NoSchedule");
        let op_exists = t.operator.as_deref() == Some("Exists");
        let value_ok = op_exists || t.value.as_deref().unwrap_or_default().is_empty();
        key_ok && effect_ok && value_ok && (op_exists || t.key.is_some())
    })
}

/// Pods the eviction API would be asked to evict (and so face PDBs).
///
/// Mirrors karpenter `pkg/utils/pod/scheduling.go` `IsEvictable`.
pub(crate) fn is_evictable(pod: &Pod, now: Timestamp, durations: bool) -> bool {
    is_active(pod)
        && !tolerates_disrupted_taint(pod)
        && !is_mirror(pod)
        && !is_do_not_disrupt_active(pod, now, durations)
}

/// How the replayed version sizes a pod (`resources.go` `Ceiling`), read once from the rule set.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Sizing {
    /// Pod-level `spec.resources` requests count (#2383, v1.8.0).
    pub pod_level: bool,
    /// Containers' status resources count (#3065, v1.14.0: `UseStatusResources`).
    pub status_resources: bool,
}

impl Sizing {
    pub(crate) fn of(rules: &crate::rules::RuleSet) -> Sizing {
        use crate::rules::Rule;
        Sizing { pod_level: rules.has(Rule::PodLevelResources), status_resources: rules.has(Rule::StatusResources) }
    }

    /// Every rule on: the newest version's sizing.
    #[cfg(test)]
    pub(crate) const NEWEST: Sizing = Sizing { pod_level: true, status_resources: true };
}

/// The pod's effective requests: containers (plus sidecars) vs. the largest init container,
/// then (with `sizing.pod_level`, Karpenter v1.8.0+) the pod-level requests of cpu, memory and
/// hugepages in their place, plus pod overhead, plus one `pods` slot. Limits stand in for
/// missing requests, as the API server defaults them (and, for DaemonSet templates, as
/// Karpenter's `PodForDaemonSet` copies them from v1.8.0, #2514). With
/// `sizing.status_resources` (v1.14.0+) a container or sidecar whose status carries
/// `resources` counts the larger of its spec, its actuated and its allocated requests (only
/// the last two when the resize is infeasible): component-helpers v0.35.0
/// `AggregateContainerRequests` and `determineEffectiveRequests`.
///
/// Mirrors karpenter `pkg/utils/resources/resources.go` `Ceiling`: before v1.8.0 its own sum
/// (`podRequests`), from v1.8.0 (#2383) `k8s.io/component-helpers/resource` `PodRequests`,
/// from v1.14.0 (#3065) with `UseStatusResources`.
pub(crate) fn requests(pod: &Pod, sizing: Sizing) -> Resources {
    let spec_requests = |c: &crate::snapshot::Container| -> Resources {
        let mut r = Resources::from(c.resources.limits.clone());
        r.extend(c.resources.requests.iter().map(|(k, v)| (k.clone(), *v)));
        r
    };
    let by_status = sizing.status_resources && pod.status.has_container_statuses();
    let infeasible = by_status && pod.resize_infeasible();
    let container_requests = |c: &crate::snapshot::Container, reads_status: bool| -> Resources {
        let spec = spec_requests(c);
        let status = (by_status && reads_status).then(|| pod.container_status(&c.name)).flatten();
        let Some((status, actuated)) = status.and_then(|s| Some((s, s.resources.as_ref()?))) else { return spec };
        let mut r = if infeasible { Resources::new() } else { spec };
        max_into(&mut r, &Resources::from(actuated.requests.clone()));
        max_into(&mut r, &Resources::from(status.allocated_resources.clone()));
        r
    };
    let mut running = Resources::new();
    for c in &pod.spec.containers {
        add(&mut running, &container_requests(c, true));
    }
    let mut init_peak = Resources::new();
    let mut sidecars = Resources::new();
    for c in &pod.spec.init_containers {
        let sidecar = c.is_sidecar();
        let r = container_requests(c, sidecar);
        if sidecar {
            add(&mut sidecars, &r);
            max_into(&mut init_peak, &sidecars);
        } else {
            let mut during = sidecars.clone();
            add(&mut during, &r);
            max_into(&mut init_peak, &during);
        }
    }
    add(&mut running, &sidecars);
    max_into(&mut running, &init_peak);
    if let Some(own) = pod.spec.resources.as_ref().filter(|_| sizing.pod_level) {
        for (name, quantity) in own.requests.iter().filter(|(name, _)| is_pod_level_resource(name)) {
            running.insert(name.clone(), *quantity);
        }
    }
    add(&mut running, &pod.spec.overhead);
    add(&mut running, &Resources::from([("pods".to_owned(), Quantity::from_units(1))]));
    running
}

/// The resources pod-level `spec.resources` may set (`IsSupportedPodLevelResource`).
fn is_pod_level_resource(name: &str) -> bool {
    name == "cpu" || name == "memory" || name.starts_with("hugepages-")
}

/// Adds `other` into `into`, key by key.
pub(crate) fn add(into: &mut Resources, other: &Resources) {
    for (k, v) in other {
        combine(into, k, |q| q.plus(*v));
    }
}

fn max_into(into: &mut Resources, other: &Resources) {
    for (k, v) in other {
        combine(into, k, |q| q.max(*v));
    }
}

/// Replaces the quantity of `key` in `into` (zero when absent) by `with` of it. The key is
/// copied only when it is new, which on a running sum is rarely.
fn combine(into: &mut Resources, key: &str, with: impl FnOnce(Quantity) -> Quantity) {
    if let Some(q) = into.get_mut(key) {
        *q = with(*q);
    } else {
        into.insert(key.to_owned(), with(Quantity::ZERO));
    }
}

#[cfg(test)]
mod tests {
    use super::{do_not_disrupt, is_reschedulable, requests, DoNotDisrupt, Sizing};
    use crate::quantity::Quantity;
    use crate::snapshot::{Container, OwnerReference, Pod};

    fn pod() -> Pod {
        let mut p = Pod::default();
        p.metadata.name = "p".into();
        p
    }

    fn now() -> jiff::Timestamp {
        "2026-11-29T10:00:00Z".parse().unwrap()
    }

    #[test]
    fn do_not_disrupt_values() {
        let mut p = pod();
        assert_eq!(do_not_disrupt(&p, now(), true), DoNotDisrupt::Absent);
        p.metadata.annotations.insert("karpenter.sh/do-not-disrupt".into(), "true".into());
        assert!(matches!(do_not_disrupt(&p, now(), true), DoNotDisrupt::Active { until: None }));
        p.metadata.annotations.insert("karpenter.sh/do-not-disrupt".into(), "false".into());
        assert_eq!(do_not_disrupt(&p, now(), true), DoNotDisrupt::Invalid("false".into()));
        p.metadata.annotations.insert("karpenter.sh/do-not-disrupt".into(), "1h".into());
        assert!(matches!(do_not_disrupt(&p, now(), true), DoNotDisrupt::Active { until: None }));
        p.status.start_time = Some("2026-11-29T09:30:00Z".parse().unwrap());
        assert!(matches!(do_not_disrupt(&p, now(), true), DoNotDisrupt::Active { until: Some(_) }));
        p.status.start_time = Some("2026-11-29T08:30:00Z".parse().unwrap());
        assert_eq!(do_not_disrupt(&p, now(), true), DoNotDisrupt::Elapsed);
        p.metadata.annotations.insert("karpenter.sh/do-not-disrupt".into(), "0s".into());
        assert!(matches!(do_not_disrupt(&p, now(), true), DoNotDisrupt::Invalid(_)));
    }

    #[test]
    fn daemonset_mirror_and_terminal_pods_are_not_reschedulable() {
        let mut p = pod();
        assert!(is_reschedulable(&p));
        p.metadata.owner_references.push(OwnerReference {
            api_version: "apps/v1".into(),
            kind: "DaemonSet".into(),
            name: "ds".into(),
            ..OwnerReference::default()
        });
        assert!(!is_reschedulable(&p));
        let mut p = pod();
        p.status.phase = Some("Succeeded".into());
        assert!(!is_reschedulable(&p));
    }

    #[test]
    fn requests_take_the_larger_of_init_and_containers() {
        let mut p = pod();
        let mut c = Container::default();
        c.resources.requests.insert("cpu".into(), "1".parse().unwrap());
        p.spec.containers = vec![c.clone(), c.clone()];
        let mut init = Container::default();
        init.resources.requests.insert("cpu".into(), "3".parse().unwrap());
        p.spec.init_containers = vec![init];
        let r = requests(&p, Sizing::NEWEST);
        assert_eq!(r["cpu"], "3".parse::<Quantity>().unwrap());
        assert_eq!(r["pods"], Quantity::from_units(1));
    }

    /// component-helpers `PodRequests`: pod-level cpu and memory requests replace the
    /// containers' sum (other resources keep it), and overhead is added on top (v1.8.0+).
    #[test]
    fn pod_level_requests_replace_the_containers_sum_from_v1_8() {
        let q = |s: &str| s.parse::<Quantity>().unwrap();
        let mut p = pod();
        let mut c = Container::default();
        c.resources.requests.insert("cpu".into(), q("100m"));
        c.resources.requests.insert("nvidia.com/gpu".into(), q("1"));
        p.spec.containers = vec![c];
        let mut own = crate::snapshot::PodResources::default();
        own.requests.insert("cpu".into(), q("2"));
        own.requests.insert("nvidia.com/gpu".into(), q("4"));
        p.spec.resources = Some(Box::new(own));
        p.spec.overhead.insert("cpu".into(), q("250m"));
        let now = requests(&p, Sizing::NEWEST);
        assert_eq!(now["cpu"], q("2250m"));
        assert_eq!(now["nvidia.com/gpu"], q("1"), "only cpu, memory and hugepages are pod-level resources");
        let before = requests(&p, Sizing { pod_level: false, ..Sizing::NEWEST });
        assert_eq!(before["cpu"], q("350m"));
    }

    /// component-helpers v0.35.0 `AggregateContainerRequests` with `UseStatusResources`
    /// (Karpenter v1.14.0, #3065): max(spec, actuated, allocated) per container and sidecar; a
    /// plain init container keeps its spec; an infeasible resize drops the spec.
    #[test]
    fn status_resources_size_a_resized_pod_from_v1_14() {
        use crate::snapshot::{ActuatedResources, Condition, ContainerStatus};
        let q = |s: &str| s.parse::<Quantity>().unwrap();
        let list = |cpu: &str| {
            let mut r = crate::snapshot::ResourceList::default();
            r.insert("cpu".into(), q(cpu));
            r
        };
        let mut p = pod();
        let mut app = Container { name: "app".into(), ..Container::default() };
        app.resources.requests = list("500m");
        let mut setup = Container { name: "setup".into(), ..Container::default() };
        setup.resources.requests = list("100m");
        p.spec.containers = vec![app];
        p.spec.init_containers = vec![setup];
        let status = |name: &str, actuated: &str, allocated: &str| ContainerStatus {
            name: name.into(),
            allocated_resources: list(allocated),
            resources: Some(ActuatedResources { requests: list(actuated) }),
        };
        // Resized up: the kubelet allocated 2 CPUs, and has actuated 1.5 so far.
        p.status.container_statuses = Some(Box::new(vec![status("app", "1500m", "2")]));
        p.status.init_container_statuses = Some(Box::new(vec![status("setup", "4", "4")]));
        assert_eq!(requests(&p, Sizing::NEWEST)["cpu"], q("2"), "setup is no sidecar: its status is not read");
        let v1_13 = Sizing { status_resources: false, ..Sizing::NEWEST };
        assert_eq!(requests(&p, v1_13)["cpu"], q("500m"), "the spec alone before #3065");
        // Resized down, feasible: the spec (larger) still counts.
        p.status.container_statuses = Some(Box::new(vec![status("app", "200m", "200m")]));
        assert_eq!(requests(&p, Sizing::NEWEST)["cpu"], q("500m"));
        // Infeasible: the spec does not count, the status does.
        p.status.conditions = vec![Condition {
            type_: "PodResizePending".into(),
            status: "True".into(),
            reason: Some("Infeasible".into()),
            ..Condition::default()
        }];
        assert_eq!(requests(&p, Sizing::NEWEST)["cpu"], q("200m"));
        // Trimming keeps what can size the pod: app's status under an infeasible resize; the
        // plain init container's never.
        p.keep_resizing_statuses();
        assert_eq!(p.status.container_statuses.as_ref().map(|l| l.len()), Some(1));
        assert!(p.status.init_container_statuses.is_none());
        p.status.conditions.clear();
        p.keep_resizing_statuses();
        assert!(p.status.container_statuses.is_none(), "200m under a 500m spec cannot size it");
    }
}
