//! The guard no configuration silences: a consolidation replaces nodes only when the
//! replacement saves money even at its worst launch price (the candidates' summed price, an
//! unpriced node counting 0 as upstream's `sumCandidatePrices` does, minus the replacement's
//! worst-case launch price must be > 0). Drift replaces whatever the price, so it is exempt.
//!
//! Checked two ways: on every acceptance scenario's JSON report ([`violations`], called by
//! `acceptance`), and as a property over synthetic clusters from `examples/synth`, with their
//! prices and availability shaken (spot dearer than on-demand, offerings unavailable or
//! unpriced, spot-to-spot on or off) and a few rounds replayed, each dropping the nodes the
//! previous round disrupted.

use std::collections::BTreeMap;

use kubectl_consolidation::engine::{self, Replay};
use kubectl_consolidation::snapshot::Snapshot;
use proptest::prelude::*;
use serde_json::Value;

#[path = "../../examples/synth/gen/mod.rs"]
#[allow(dead_code, unused_imports, clippy::all, clippy::pedantic)]
pub(crate) mod gen;

/// The methods whose replacements must be cheaper (`computeConsolidation`'s callers).
const CONSOLIDATION: [&str; 2] = ["MultiNodeConsolidation", "SingleNodeConsolidation"];

/// Every consolidation replace command of a JSON report (`plan`) that breaks the guard.
/// A report without commands (or without the candidates' nodes) has nothing to check.
pub(crate) fn violations(report: &Value) -> Vec<String> {
    let prices: BTreeMap<&str, f64> = report
        .get("nodes")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|n| Some((n.get("name")?.as_str()?, n.get("price").and_then(Value::as_f64).unwrap_or(0.0))))
        .collect();
    let mut out = Vec::new();
    for cmd in report.get("commands").and_then(Value::as_array).into_iter().flatten() {
        let method = cmd.get("method").and_then(Value::as_str).unwrap_or_default();
        if cmd.get("decision").and_then(Value::as_str) != Some("replace") || !CONSOLIDATION.contains(&method) {
            continue;
        }
        let names: Vec<&str> =
            cmd.get("candidates").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
        if names.iter().any(|n| !prices.contains_key(n)) {
            continue;
        }
        let candidate_price: f64 = names.iter().map(|n| prices[n]).sum();
        let worst: Vec<Option<f64>> = cmd
            .get("replacements")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|r| r.get("worstPrice").and_then(Value::as_f64))
            .collect();
        out.extend(check(method, &names.join(","), candidate_price, &worst));
    }
    out
}

/// One command: at least one replacement, each with a known worst price below the candidates'.
fn check(method: &str, candidates: &str, candidate_price: f64, worst: &[Option<f64>]) -> Option<String> {
    let dearest = worst.iter().try_fold(None::<f64>, |acc, w| w.map(|w| Some(acc.map_or(w, |a| a.max(w)))));
    match dearest {
        Some(Some(w)) if candidate_price - w > 0.0 => None,
        other => {
            let worst = other.flatten().map_or_else(|| "unknown".to_owned(), |w| format!("${w:.4}/h"));
            Some(format!(
                "{method} replaces [{candidates}] (${candidate_price:.4}/h) with a worst launch price of {worst}: no certain saving"
            ))
        }
    }
}

/// The guard over one in-process replay.
fn replay_violations(replay: &Replay) -> Vec<String> {
    let prices: BTreeMap<&str, f64> = replay.nodes.iter().map(|n| (n.name.as_str(), n.price.unwrap_or(0.0))).collect();
    replay
        .commands
        .iter()
        .filter(|c| CONSOLIDATION.contains(&c.method.as_str()) && !c.replacements.is_empty())
        .filter_map(|c| {
            let candidate_price: f64 =
                c.candidates.iter().map(|n| prices.get(n.as_str()).copied().unwrap_or(0.0)).sum();
            let worst: Vec<Option<f64>> = c.replacements.iter().map(|r| r.worst_price).collect();
            check(c.method.as_str(), &c.candidates.join(","), candidate_price, &worst)
        })
        .collect()
}

/// How a case shakes the generated catalogue: per offering, a price factor for spot, and the
/// odds (in 1/16) that it is unavailable or unpriced.
#[derive(Debug, Clone)]
struct Shake {
    spot_factor: f64,
    unavailable: u32,
    unpriced: u32,
    spot_to_spot: bool,
}

fn shaken(mut snapshot: Snapshot, shake: &Shake, seed: u64) -> Snapshot {
    let mut state = seed | 1;
    let mut roll = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % 16) as u32
    };
    for it in &mut snapshot.instance_types {
        for o in &mut it.offerings {
            if o.capacity_type == "spot" {
                o.price = o.price.map(|p| p * shake.spot_factor);
            }
            if roll() < shake.unavailable {
                o.available = false;
            }
            if roll() < shake.unpriced {
                o.price = None;
            }
        }
    }
    snapshot.info.feature_gates.insert("SpotToSpotConsolidation".into(), shake.spot_to_spot);
    snapshot
}

/// Drops the nodes a round disrupted (Node, NodeClaim and their pods), for the next round.
fn without(mut snapshot: Snapshot, gone: &[String]) -> Snapshot {
    let gone_claims: Vec<String> = snapshot
        .node_claims
        .iter()
        .filter(|c| c.status.node_name.as_ref().is_some_and(|n| gone.contains(n)) || gone.contains(&c.metadata.name))
        .map(|c| c.metadata.name.clone())
        .collect();
    snapshot.nodes.retain(|n| !gone.contains(&n.metadata.name));
    snapshot.node_claims.retain(|c| !gone_claims.contains(&c.metadata.name));
    snapshot.pods.retain(|p| p.spec.node_name.as_ref().is_none_or(|n| !gone.contains(n)));
    snapshot
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn no_consolidation_replaces_without_a_worst_case_saving(
        nodes in 6usize..30,
        pods_per_node in 4usize..24,
        pools in 1usize..4,
        seed in any::<u64>(),
        spot_factor in prop::sample::select(vec![0.3, 0.7, 1.0, 1.5, 3.0]),
        unavailable in 0u32..6,
        unpriced in 0u32..4,
        spot_to_spot in any::<bool>(),
    ) {
        let mut params = gen::Params::scaled(nodes, nodes * pods_per_node);
        params.pools = pools;
        params.seed = seed;
        params.empty_pct = 0.0;
        params.drifted_pct = 0.0;
        let shake = Shake { spot_factor, unavailable, unpriced, spot_to_spot };
        let mut snapshot = shaken(gen::generate(&params).snapshot, &shake, seed);
        let now = gen::CAPTURED_AT.parse().expect("the synthetic clock parses");
        for _round in 0..3 {
            let replay = engine::replay(&snapshot, now);
            let broken = replay_violations(&replay);
            prop_assert!(broken.is_empty(), "{}", broken.join("\n"));
            let gone: Vec<String> = replay.commands.iter().flat_map(|c| c.candidates.clone()).collect();
            if gone.is_empty() {
                break;
            }
            snapshot = without(snapshot, &gone);
        }
    }
}

#[test]
fn the_check_catches_a_replacement_that_saves_nothing() {
    let report = serde_json::json!({
        "commands": [
            {"method": "SingleNodeConsolidation", "decision": "replace", "candidates": ["a"],
             "replacements": [{"worstPrice": 1.0}]},
            {"method": "MultiNodeConsolidation", "decision": "replace", "candidates": ["a", "b"],
             "replacements": [{"worstPrice": null}]},
            {"method": "MultiNodeConsolidation", "decision": "replace", "candidates": ["a", "b"],
             "replacements": [{"worstPrice": 0.5}]},
            {"method": "Drift", "decision": "replace", "candidates": ["a"], "replacements": [{"worstPrice": 9.0}]}
        ],
        "nodes": [{"name": "a", "price": 1.0}, {"name": "b", "price": null}]
    });
    let found = violations(&report);
    assert_eq!(found.len(), 2, "{found:?}");
    assert!(found[0].contains("SingleNodeConsolidation replaces [a]"));
    assert!(found[1].contains("[a,b]") && found[1].contains("unknown"));
}
