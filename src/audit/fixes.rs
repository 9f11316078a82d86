//! The concrete changes findings propose (`kubectl` commands a user can paste, the `change` of
//! a [`super::finding::Fix`]) and the small wording helpers messages share. The commands come
//! from the prescription engine's builders ([`crate::prescription::commands`]), so `pdb-audit`
//! and `plan` quote names the same way; JSON payloads go through `serde_json`.

use serde_json::{json, Value};

use super::budget::Rule;
use super::nodes::HOURS_PER_MONTH;
use super::workloads::Workload;
use crate::prescription::commands;
use crate::snapshot::{PodDisruptionBudget, StringMap};

/// `kubectl patch pdb NAME -n NS --type=merge -p '{"spec":…}'`.
pub(super) fn patch_pdb(pdb: &PodDisruptionBudget, spec: &Value) -> String {
    commands::merge_patch("pdb", Some(pdb.metadata.namespace()), &pdb.metadata.name, &json!({ "spec": spec }))
}

/// The merge patch that makes the budget `field: value`, clearing the other field when it is
/// the one set (both can't coexist; a merge patch's `null` removes a field, RFC 7386), so the
/// command is short enough to paste from a narrow terminal.
pub(super) fn set_budget(pdb: &PodDisruptionBudget, rule: &Rule, field: &str, value: &Value) -> String {
    let mut spec = serde_json::Map::new();
    if let Some(other) = rule.field().filter(|other| *other != field) {
        spec.insert(other.to_owned(), Value::Null);
    }
    spec.insert(field.to_owned(), value.clone());
    patch_pdb(pdb, &Value::Object(spec))
}

/// `maxUnavailable: 1`, the budget that scales with replicas.
pub(super) fn to_max_unavailable_one(pdb: &PodDisruptionBudget, rule: &Rule) -> String {
    set_budget(pdb, rule, "maxUnavailable", &json!(1))
}

/// `minAvailable: 1`, the seed's fix for a single replica.
pub(super) fn to_min_available_one(pdb: &PodDisruptionBudget, rule: &Rule) -> String {
    set_budget(pdb, rule, "minAvailable", &json!(1))
}

/// The command that raises a workload's floor to `replicas`: the HPA's `minReplicas` when one
/// scales it, else `kubectl scale`.
pub(super) fn raise_replicas(workload: &Workload<'_>, replicas: i32) -> String {
    let id = &workload.id;
    if id.is_daemon_set() {
        // `kubectl scale` refuses DaemonSets: they run one pod per matching node.
        return format!("DaemonSet {}/{} runs one pod per node and cannot be scaled", id.namespace, id.name);
    }
    match (&workload.hpa, id.is_bare_pod()) {
        (_, true) => format!("run pod {}/{} under a Deployment with {replicas} replicas", id.namespace, id.name),
        (Some(hpa), false) => {
            let name = hpa.name.rsplit('/').next().unwrap_or(&hpa.name);
            commands::hpa_min_replicas(&id.namespace, name, replicas)
        }
        (None, false) if id.kind == "ReplicaSet" && !workload.controller_known => format!(
            "{} (or its Deployment, if one owns it)",
            commands::scale(&id.kind, &id.namespace, &id.name, replicas)
        ),
        (None, false) => commands::scale(&id.kind, &id.namespace, &id.name, replicas),
    }
}

/// The standard advice for one replica: two, on different nodes.
pub(super) fn two_replicas_spread(workload: &Workload<'_>) -> String {
    format!(
        "raise replicas to 2 and add a topology spread over kubernetes.io/hostname: {}",
        raise_replicas(workload, 2)
    )
}

/// A `topologySpreadConstraints` patch that prefers one pod per node.
pub(super) fn spread_patch(workload: &Workload<'_>) -> String {
    let id = &workload.id;
    let constraint = json!([{
        "op": "add",
        "path": "/spec/template/spec/topologySpreadConstraints",
        "value": [{
            "maxSkew": 1,
            "topologyKey": "kubernetes.io/hostname",
            "whenUnsatisfiable": "ScheduleAnyway",
            "labelSelector": {"matchLabels": workload.selector},
        }],
    }]);
    commands::json_patch(&id.kind.to_lowercase(), &id.namespace, &id.name, &constraint)
}

/// `k=v,k2=v2`, kubectl's `--selector` syntax.
pub(super) fn selector_arg(labels: &StringMap) -> String {
    if labels.is_empty() {
        return "<labels of its pods>".to_owned();
    }
    labels.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(",")
}

/// `$0.192/h`: up to four decimals, at least two.
pub(super) fn per_hour(price: f64) -> String {
    let mut text = format!("{price:.4}");
    while text.ends_with('0') && text.split_once('.').is_some_and(|(_, d)| d.len() > 2) {
        text.pop();
    }
    format!("${text}/h")
}

/// `$140.16/month` (730 hours).
pub(super) fn per_month(price: f64) -> String {
    format!("${:.2}/month", price * HOURS_PER_MONTH)
}

/// `a`, `a and b`, `a, b and 3 more`.
pub(super) fn list(items: &[String], max: usize) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        _ if items.len() <= max => {
            let (last, rest) = items.split_last().map_or((String::new(), &[][..]), |(l, r)| (l.clone(), r));
            format!("{} and {last}", rest.join(", "))
        }
        _ => format!("{} and {} more", items[..max].join(", "), items.len() - max),
    }
}

/// `1 replica`, `3 replicas`.
pub(super) fn replicas(n: i32) -> String {
    if n == 1 {
        "1 replica".to_owned()
    } else {
        format!("{n} replicas")
    }
}

#[cfg(test)]
mod tests {
    use super::{list, per_hour, per_month};

    #[test]
    fn money_and_lists_read_naturally() {
        assert_eq!(per_hour(0.192), "$0.192/h");
        assert_eq!(per_hour(0.0288), "$0.0288/h");
        assert_eq!(per_hour(1.5), "$1.50/h");
        assert_eq!(per_month(0.192), "$140.16/month");
        let names: Vec<String> = ["a", "b", "c", "d"].iter().map(|s| (*s).to_owned()).collect();
        assert_eq!(list(&names[..1], 3), "a");
        assert_eq!(list(&names[..3], 3), "a, b and c");
        assert_eq!(list(&names, 2), "a, b and 2 more");
    }
}
