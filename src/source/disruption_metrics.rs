//! Karpenter's disruption metric families from a `/metrics` text (the scrape `cluster` makes
//! for prices), kept as our `DisruptionMetrics` document for `doctor`.

use crate::snapshot::{DisruptionMetrics, MetricSample};

/// The samples of the kept families ([`DisruptionMetrics::keeps`]); a text that does not parse
/// gives an empty document (the prices parser reports the error).
pub fn parse(text: &str) -> DisruptionMetrics {
    let lines = text.lines().map(|l| Ok(l.to_owned()));
    let Ok(scrape) = prometheus_parse::Scrape::parse(lines) else { return DisruptionMetrics::default() };
    let mut out = DisruptionMetrics::default();
    for sample in &scrape.samples {
        let (name, value) = match &sample.value {
            prometheus_parse::Value::Gauge(v)
            | prometheus_parse::Value::Untyped(v)
            | prometheus_parse::Value::Counter(v) => (sample.metric.clone(), *v),
            // Summaries and histograms: their `_sum` and `_count`, under those names.
            prometheus_parse::Value::Histogram(_) | prometheus_parse::Value::Summary(_) => continue,
        };
        if !DisruptionMetrics::keeps(&name) || !value.is_finite() {
            continue;
        }
        let labels = sample.labels.iter().map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned())).collect();
        out.samples.push(MetricSample { name, labels, value });
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_the_fixture_families() {
        let text = include_str!("../../tests/doctor-fixtures/metrics-v1.14-disruption.prom");
        let m = super::parse(text);
        let eligible: Vec<(&str, f64)> =
            m.series("karpenter_voluntary_disruption_eligible_nodes").map(|s| (s.label("reason"), s.value)).collect();
        assert_eq!(eligible, [("drifted", 1.0), ("empty", 0.0), ("underutilized", 6.0)]);
        assert!(m.has("karpenter_build_info"));
        assert!(m
            .series("karpenter_nodepools_allowed_disruptions")
            .any(|s| s.label("nodepool") == "default" && s.label("reason") == "Underutilized" && s.value == 0.0));
        assert!(!m.samples.iter().any(|s| s.name.ends_with("_bucket")));
    }
}
