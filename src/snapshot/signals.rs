//! What Karpenter said about itself, kept for `doctor`: the `DisruptionMetrics` document (the
//! disruption families of its `/metrics`, docs/DESIGN.md) and the bound on Events (the newest
//! per object and reason, with the count and first/last times of all of them).
//!
//! Plain data: the scrape is `source/`'s, the judgement `doctor/`'s.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::core::Event;

/// The `info.unread` kind naming a failed or skipped scrape of Karpenter's `/metrics`: only
/// `doctor` reads these, so the replay's verdicts do not call themselves uncertain for it.
pub const DISRUPTION_METRICS: &str = "DisruptionMetrics";

/// The metric families `doctor` reads (docs/DOCTOR-SIGNALS.md §7), by name prefix. A family
/// only some versions export is kept too: its presence is a version fingerprint.
pub(super) const KEPT_FAMILIES: [&str; 14] = [
    "karpenter_build_info",
    "karpenter_cluster_state_synced",
    "karpenter_voluntary_disruption_",
    "karpenter_nodepools_allowed_disruptions",
    "karpenter_nodepools_nodes_consuming_budgets",
    "karpenter_nodeclaims_disrupted_total",
    "karpenter_consolidation_score",
    "karpenter_consolidation_moves_total",
    "karpenter_pods_drained_total",
    "karpenter_pods_pods_drained_total",
    "karpenter_pods_eviction_requests_total",
    "karpenter_nodes_eviction_requests_total",
    "karpenter_disruption_",
    "karpenter_interruption_received_messages_total",
];

/// `kubectl-consolidation/v1alpha1 DisruptionMetrics`: samples of [`KEPT_FAMILIES`], as the
/// controller exported them when the snapshot was taken (histogram buckets dropped).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct DisruptionMetrics {
    pub samples: Vec<MetricSample>,
}

/// One series: its name, labels and value.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct MetricSample {
    pub name: String,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    pub value: f64,
}

impl MetricSample {
    pub fn label(&self, key: &str) -> &str {
        self.labels.get(key).map_or("", String::as_str)
    }
}

impl DisruptionMetrics {
    /// Whether `name` belongs to a family `doctor` reads (buckets are not kept).
    pub fn keeps(name: &str) -> bool {
        !name.ends_with("_bucket") && KEPT_FAMILIES.iter().any(|f| name.starts_with(f))
    }

    /// The series of `name`.
    pub fn series<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a MetricSample> + 'a {
        self.samples.iter().filter(move |s| s.name == name)
    }

    /// Whether any series of `name` exists.
    pub fn has(&self, name: &str) -> bool {
        self.samples.iter().any(|s| s.name == name)
    }

    /// Sorted by name then labels: the canonical order.
    pub fn sort(&mut self) {
        self.samples.sort_by(|a, b| (&a.name, &a.labels).cmp(&(&b.name, &b.labels)));
    }
}

/// The Events `doctor` reads: Karpenter's (`source.component` or `reportingComponent`
/// `karpenter`, or neither given), one per object and reason — the newest, carrying the sum of
/// the counts and the earliest first and latest last time of all of them.
pub fn bound_events(events: Vec<Event>) -> Vec<Event> {
    type Key = (String, Option<String>, String, String);
    let mut newest: BTreeMap<Key, Event> = BTreeMap::new();
    for event in events.into_iter().filter(is_karpenters) {
        let o = &event.involved_object;
        let key = (o.kind.clone(), o.namespace.clone(), o.name.clone(), event.reason.clone());
        match newest.get_mut(&key) {
            None => {
                newest.insert(key, event);
            }
            Some(kept) => {
                let count = kept.count.unwrap_or(1).saturating_add(event.count.unwrap_or(1));
                let first = [kept.first_timestamp, event.first_timestamp].into_iter().flatten().min();
                if event.seen_at() > kept.seen_at() {
                    *kept = event;
                }
                kept.count = Some(count);
                kept.first_timestamp = first;
            }
        }
    }
    newest.into_values().collect()
}

/// Whether Karpenter wrote it (`source.component` or `reportingComponent` `karpenter`, or
/// neither given, as in a hand-written file).
pub fn is_karpenters(event: &Event) -> bool {
    let component = event.source.as_ref().map(|s| s.component.as_str()).filter(|c| !c.is_empty());
    let reporting = Some(event.reporting_component.as_str()).filter(|c| !c.is_empty());
    match (component, reporting) {
        (None, None) => true,
        (c, r) => c == Some("karpenter") || r == Some("karpenter"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::core::{EventSource, InvolvedObject};

    fn event(name: &str, reason: &str, at: &str, count: i32, component: &str) -> Event {
        Event {
            involved_object: InvolvedObject { kind: "Node".into(), name: name.into(), namespace: None },
            reason: reason.into(),
            message: format!("{reason} at {at}"),
            last_timestamp: Some(at.parse().unwrap()),
            first_timestamp: Some(at.parse().unwrap()),
            count: Some(count),
            source: Some(EventSource { component: component.into() }),
            ..Event::default()
        }
    }

    #[test]
    fn keeps_the_newest_per_object_and_reason_with_summed_counts() {
        let events = vec![
            event("a", "Unconsolidatable", "2026-12-03T06:00:00Z", 2, "karpenter"),
            event("a", "Unconsolidatable", "2026-12-03T06:20:00Z", 1, "karpenter"),
            event("a", "DisruptionBlocked", "2026-12-03T06:10:00Z", 1, "karpenter"),
            event("a", "NodeNotReady", "2026-12-03T06:10:00Z", 1, "node-controller"),
        ];
        let kept = bound_events(events);
        assert_eq!(kept.len(), 2);
        let u = kept.iter().find(|e| e.reason == "Unconsolidatable").unwrap();
        assert_eq!(u.count, Some(3));
        assert_eq!(u.message, "Unconsolidatable at 2026-12-03T06:20:00Z");
        assert_eq!(u.first_timestamp, Some("2026-12-03T06:00:00Z".parse().unwrap()));
    }

    #[test]
    fn keeps_only_the_disruption_families_without_buckets() {
        assert!(DisruptionMetrics::keeps("karpenter_voluntary_disruption_eligible_nodes"));
        assert!(DisruptionMetrics::keeps("karpenter_build_info"));
        assert!(!DisruptionMetrics::keeps(
            "karpenter_voluntary_disruption_decision_evaluation_duration_seconds_bucket"
        ));
        assert!(!DisruptionMetrics::keeps("karpenter_cloudprovider_instance_type_offering_price_estimate"));
    }
}
