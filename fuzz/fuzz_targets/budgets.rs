//! Disruption budgets: `nodes`, `schedule`, `duration` and `reasons` from lines of the input,
//! evaluated for any node count at a fixed instant. Never panics; an allowed count is never
//! negative.
#![no_main]

use kubectl_consolidation::engine::budget::{parse_schedule, pool_budgets, scaled_value};
use kubectl_consolidation::snapshot::NodePool;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut lines = text.split('\n');
    let (nodes, schedule, duration, reasons, count) =
        (lines.next(), lines.next(), lines.next(), lines.next(), lines.next());
    let counted: i64 = count.and_then(|c| c.trim().parse().ok()).unwrap_or(10);
    let _ = scaled_value(nodes.unwrap_or("10%"), counted);
    let _ = schedule.map(parse_schedule);
    let mut budget = serde_json::json!({"nodes": nodes.unwrap_or("10%")});
    if let Some(s) = schedule.filter(|s| !s.is_empty()) {
        budget["schedule"] = s.into();
    }
    if let Some(d) = duration.filter(|d| !d.is_empty()) {
        budget["duration"] = d.into();
    }
    if let Some(r) = reasons.filter(|r| !r.is_empty()) {
        budget["reasons"] = r.split(',').collect::<Vec<_>>().into();
    }
    let pool = serde_json::json!({
        "metadata": {"name": "p"},
        "spec": {"template": {"spec": {}}, "disruption": {"budgets": [budget]}},
    });
    let Ok(pool) = serde_json::from_value::<NodePool>(pool) else { return };
    let now = "2026-11-29T10:00:00Z".parse().unwrap();
    let budgets = pool_budgets(&pool, counted, Vec::new(), now);
    for reason in &budgets.by_reason {
        assert!(reason.remaining >= 0, "{reason:?}");
    }
});
