//! What the API server would refuse in a manifest, among the fields the replay reads: an apply
//! that the server rejects changes nothing, so its replay would be a confident wrong answer.
//!
//! Each check names the validation it mirrors:
//! - kubernetes `pkg/apis/policy/validation/validation.go` `ValidatePodDisruptionBudgetSpec`
//!   (not both `minAvailable` and `maxUnavailable`; each a non-negative count or a percentage
//!   from 0% to 100%);
//! - kubernetes `pkg/apis/apps/validation/validation.go` `ValidateDeploymentSpec`,
//!   `ValidateStatefulSetSpec`, `ValidateReplicaSetSpec`, `ValidateDaemonSetSpec` (non-negative
//!   `replicas`; a non-empty `selector` that selects the template's labels);
//! - karpenter `pkg/apis/v1/nodepool.go` (the CRD's OpenAPI patterns and CEL rules: the
//!   consolidation policy's enum, `consolidateAfter`'s pattern, a budget's `nodes` pattern,
//!   `schedule` and `duration` together, `reasons`' enum, `weight` from 1 to 100).

use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::{Manifest, Object};
use crate::engine::labels::selector_matches;
use crate::snapshot::{NodePool, PodDisruptionBudget, Workload};

/// One refused field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Invalid {
    /// The object's kind as written (`PodDisruptionBudget`).
    pub kind: &'static str,
    /// `namespace/name` (or `name`).
    pub name: String,
    /// The field as users write it (`spec.minAvailable`).
    pub field: String,
    pub message: String,
    pub help: String,
}

/// Every refused field of the manifest's objects, in the order they were written.
pub(crate) fn validate(manifest: &Manifest) -> Vec<Invalid> {
    let mut found = Vec::new();
    for object in &manifest.objects {
        match object {
            Object::Pdb(pdb) => pdb_spec(pdb, &mut found),
            Object::Workload { kind, workload } => workload_spec(kind.as_str(), workload, &mut found),
            Object::NodePool(pool) => node_pool_spec(pool, &mut found),
            Object::NodeClass(_) | Object::Pod(_) => {}
        }
    }
    found
}

fn invalid(kind: &'static str, name: String, field: &str, message: String, help: &str) -> Invalid {
    Invalid { kind, name, field: field.to_owned(), message, help: help.to_owned() }
}

fn pdb_spec(pdb: &PodDisruptionBudget, found: &mut Vec<Invalid>) {
    let name = pdb.metadata.key();
    let spec = &pdb.spec;
    if spec.min_available.is_some() && spec.max_unavailable.is_some() {
        found.push(invalid(
            "PodDisruptionBudget",
            name.clone(),
            "spec.maxUnavailable",
            "may not be set with spec.minAvailable (the API server refuses both)".into(),
            "keep one of them: maxUnavailable lets the budget follow the replica count",
        ));
    }
    for (field, value) in [("spec.minAvailable", &spec.min_available), ("spec.maxUnavailable", &spec.max_unavailable)] {
        if let Some(why) = value.as_ref().and_then(count_or_percent_problem) {
            found.push(invalid(
                "PodDisruptionBudget",
                name.clone(),
                field,
                why,
                "a count (0, 1, 2 …) or a percentage from 0% to 100%",
            ));
        }
    }
}

/// Why a PDB amount is refused, if it is (`ValidatePositiveIntOrPercent`, `IsNotMoreThan100Percent`).
fn count_or_percent_problem(value: &IntOrString) -> Option<String> {
    match value {
        IntOrString::Int(n) if *n < 0 => Some(format!("{n} is negative")),
        IntOrString::Int(_) => None,
        IntOrString::String(s) => match s.strip_suffix('%').map(str::parse::<u32>) {
            Some(Ok(p)) if p <= 100 => None,
            Some(Ok(p)) => Some(format!("{p}% is more than 100%")),
            _ => Some(format!("`{s}` is not a percentage (e.g. 50%)")),
        },
    }
}

fn workload_spec(kind: &'static str, workload: &Workload, found: &mut Vec<Invalid>) {
    let name = workload.metadata.key();
    let spec = &workload.spec;
    if let Some(replicas) = spec.replicas.filter(|r| *r < 0) {
        found.push(invalid(kind, name.clone(), "spec.replicas", format!("{replicas} is negative"), "0 or more"));
    }
    let empty = spec.selector.as_ref().is_none_or(|s| {
        s.match_labels.as_ref().is_none_or(std::collections::BTreeMap::is_empty)
            && s.match_expressions.as_ref().is_none_or(Vec::is_empty)
    });
    if empty {
        found.push(invalid(
            kind,
            name,
            "spec.selector",
            "is empty (the API server refuses an empty selector for this kind)".into(),
            "select the pod template's labels, e.g. matchLabels: {app: NAME}",
        ));
    } else if !selector_matches(spec.selector.as_ref(), &spec.template.metadata.labels) {
        found.push(invalid(
            kind,
            name,
            "spec.template.metadata.labels",
            "do not match spec.selector (the API server refuses a template its selector does not select)".into(),
            "give the template every label the selector asks for",
        ));
    }
}

fn node_pool_spec(pool: &NodePool, found: &mut Vec<Invalid>) {
    let name = pool.metadata.name.clone();
    let mut refuse = |field: &str, message: String, help: &str| {
        found.push(invalid("NodePool", name.clone(), field, message, help));
    };
    if let Some(weight) = pool.spec.weight.filter(|w| !(1..=100).contains(w)) {
        refuse("spec.weight", format!("{weight} is outside 1–100"), "a weight from 1 to 100, or none");
    }
    let Some(disruption) = &pool.spec.disruption else { return };
    if let Some(policy) = disruption.consolidation_policy.as_deref() {
        if !matches!(policy, "WhenEmpty" | "WhenEmptyOrUnderutilized" | "Balanced") {
            refuse(
                "spec.disruption.consolidationPolicy",
                format!("`{policy}` is not a consolidation policy"),
                "WhenEmpty, WhenEmptyOrUnderutilized or Balanced",
            );
        }
    }
    if let Some(after) = disruption.consolidate_after.as_deref().filter(|a| !is_crd_duration(a)) {
        refuse(
            "spec.disruption.consolidateAfter",
            format!("`{after}` does not match the CRD's pattern"),
            "a duration of whole s, m or h units (30s, 5m, 1h30m), or Never",
        );
    }
    for (i, budget) in disruption.budgets.iter().flatten().enumerate() {
        if !is_budget_nodes(&budget.nodes) {
            refuse(
                &format!("spec.disruption.budgets[{i}].nodes"),
                format!("`{}` is not a node count or a percentage", budget.nodes),
                "a count (0, 3) or a percentage from 0% to 100%",
            );
        }
        if budget.schedule.is_some() != budget.duration.is_some() {
            refuse(
                &format!("spec.disruption.budgets[{i}].schedule"),
                "'schedule' must be set with 'duration' (the CRD's rule)".into(),
                "set both schedule and duration, or neither",
            );
        }
        for (j, reason) in budget.reasons.iter().flatten().enumerate() {
            if !matches!(reason.as_str(), "Underutilized" | "Empty" | "Drifted") {
                refuse(
                    &format!("spec.disruption.budgets[{i}].reasons[{j}]"),
                    format!("`{reason}` is not a disruption reason"),
                    "Underutilized, Empty or Drifted",
                );
            }
        }
    }
}

/// The CRD's `consolidateAfter` pattern: `^(([0-9]+(s|m|h))+|Never)$`.
fn is_crd_duration(value: &str) -> bool {
    if value == "Never" {
        return true;
    }
    let mut digits = false;
    for b in value.bytes() {
        match b {
            b'0'..=b'9' => digits = true,
            b's' | b'm' | b'h' if digits => digits = false,
            _ => return false,
        }
    }
    !value.is_empty() && !digits
}

/// A budget's `nodes` pattern: `^((100|[0-9]{1,2})%|[0-9]+)$`.
fn is_budget_nodes(value: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match value.strip_suffix('%') {
        Some(p) => digits(p) && (p.len() <= 2 || p == "100"),
        None => digits(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::WorkloadKind;
    use crate::snapshot::{Budget, Disruption};

    fn manifest(objects: Vec<Object>) -> Manifest {
        Manifest { file: "m.yaml".into(), objects, ignored: Vec::new() }
    }

    fn pdb(min: Option<IntOrString>, max: Option<IntOrString>) -> Object {
        let mut p = PodDisruptionBudget::default();
        p.metadata.name = "web".into();
        p.metadata.namespace = Some("ns".into());
        p.spec.min_available = min;
        p.spec.max_unavailable = max;
        Object::Pdb(Box::new(p))
    }

    #[test]
    fn a_pdb_with_both_rules_is_refused_at_max_unavailable() {
        let found = validate(&manifest(vec![pdb(Some(IntOrString::Int(1)), Some(IntOrString::Int(1)))]));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].field, "spec.maxUnavailable");
        assert_eq!(found[0].name, "ns/web");
    }

    #[test]
    fn pdb_amounts_follow_the_api_servers_ranges() {
        assert!(validate(&manifest(vec![pdb(Some(IntOrString::String("100%".into())), None)])).is_empty());
        assert!(validate(&manifest(vec![pdb(None, Some(IntOrString::Int(0)))])).is_empty());
        assert_eq!(validate(&manifest(vec![pdb(Some(IntOrString::Int(-1)), None)])).len(), 1);
        assert_eq!(validate(&manifest(vec![pdb(None, Some(IntOrString::String("101%".into())))])).len(), 1);
        assert_eq!(validate(&manifest(vec![pdb(None, Some(IntOrString::String("half".into())))])).len(), 1);
    }

    fn deployment(selector: Option<(&str, &str)>, template: Option<(&str, &str)>, replicas: i32) -> Object {
        let mut w = Workload::default();
        w.metadata.name = "app".into();
        w.metadata.namespace = Some("ns".into());
        w.spec.replicas = Some(replicas);
        w.spec.selector = selector.map(|(k, v)| k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector {
            match_labels: Some([(k.to_owned(), v.to_owned())].into()),
            ..Default::default()
        });
        if let Some((k, v)) = template {
            w.spec.template.metadata.labels.insert(k.into(), v.into());
        }
        Object::Workload { kind: WorkloadKind::Deployment, workload: Box::new(w) }
    }

    #[test]
    fn a_workload_needs_a_selector_that_selects_its_template() {
        assert!(validate(&manifest(vec![deployment(Some(("app", "a")), Some(("app", "a")), 2)])).is_empty());
        let fields = |o| validate(&manifest(vec![o])).into_iter().map(|i| i.field).collect::<Vec<_>>();
        assert_eq!(fields(deployment(None, Some(("app", "a")), 2)), ["spec.selector"]);
        assert_eq!(fields(deployment(Some(("app", "a")), Some(("app", "b")), 2)), ["spec.template.metadata.labels"]);
        assert_eq!(fields(deployment(Some(("app", "a")), Some(("app", "a")), -1)), ["spec.replicas"]);
    }

    #[test]
    fn node_pool_fields_follow_the_crd() {
        let mut pool = NodePool::default();
        pool.metadata.name = "default".into();
        pool.spec.weight = Some(0);
        pool.spec.disruption = Some(Disruption {
            consolidation_policy: Some("Sometimes".into()),
            consolidate_after: Some("5 minutes".into()),
            budgets: Some(vec![
                Budget { nodes: "110%".into(), ..Budget::default() },
                Budget { nodes: "1".into(), schedule: Some("0 9 * * *".into()), ..Budget::default() },
                Budget { nodes: "1".into(), reasons: Some(vec!["Expired".into()]), ..Budget::default() },
            ]),
        });
        let fields: Vec<String> =
            validate(&manifest(vec![Object::NodePool(Box::new(pool))])).into_iter().map(|i| i.field).collect();
        assert_eq!(
            fields,
            [
                "spec.weight",
                "spec.disruption.consolidationPolicy",
                "spec.disruption.consolidateAfter",
                "spec.disruption.budgets[0].nodes",
                "spec.disruption.budgets[1].schedule",
                "spec.disruption.budgets[2].reasons[0]",
            ]
        );
    }

    #[test]
    fn consolidate_after_takes_the_crds_pattern() {
        for ok in ["30s", "5m", "1h30m", "Never", "0s"] {
            assert!(is_crd_duration(ok), "{ok}");
        }
        for bad in ["", "5", "m", "1.5h", "5ms", "-1s", "never"] {
            assert!(!is_crd_duration(bad), "{bad}");
        }
    }
}
