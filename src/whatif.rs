//! What-if overrides (`--set`), applied to the snapshot before the replay. Pure.
//!
//! `consolidationPolicy=Balanced`, `consolidateAfter=5m`, `budgets=20%` apply to every NodePool,
//! or to one with a `nodepool/NAME.` prefix; `pod-deletion-cost=ns/pod=N` sets one pod's
//! `controller.kubernetes.io/pod-deletion-cost`; `pdb/NS/NAME.minAvailable=1` (or
//! `.maxUnavailable=25%`) rewrites a PodDisruptionBudget and its status as the disruption
//! controller would recount it; `deployment/NS/NAME.replicas=N` (or `statefulset/…`) scales a
//! workload: extra pods are removed (highest names first), new ones join as pending copies;
//! `deployment/NS/NAME.spread=hostname` gives its template a topology spread over
//! `kubernetes.io/hostname` and rolls its pods as that template patch would (each replaced by
//! a pending copy with the spread, placed before the round); `pod/NS/NAME.do-not-disrupt=true` (or `false`) sets or removes one
//! pod's `karpenter.sh/do-not-disrupt`.

use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use crate::audit::budget::Rule;
use crate::snapshot::{Budget, Disruption, NodePool, Snapshot};

/// The forms `--set` takes, for error messages.
const FORMS: &str = "consolidationPolicy=WhenEmpty|WhenEmptyOrUnderutilized|Balanced, consolidateAfter=30s|5m|Never, budgets=N|N% (0–100%), each optionally prefixed by nodepool/NAME.; pod-deletion-cost=NS/POD=N; pdb/NS/NAME.minAvailable|maxUnavailable=N|N%; deployment|statefulset/NS/NAME.replicas=N; deployment|statefulset/NS/NAME.spread=hostname; pod/NS/NAME.do-not-disrupt=true|false";

/// Checks every override's key and value before anything is read, so a typo is exit 2 at
/// once, with the valid forms.
pub(crate) fn validate(overrides: &[String]) -> Result<(), String> {
    for text in overrides {
        validate_one(text).map_err(|why| format!("--set {text}: {why}; valid forms: {FORMS}"))?;
    }
    Ok(())
}

fn validate_one(text: &str) -> Result<(), String> {
    let (key, value) = text.split_once('=').ok_or("expected KEY=VALUE")?;
    if key == "pod-deletion-cost" {
        let (pod, cost) = value.rsplit_once('=').ok_or("expected pod-deletion-cost=NS/POD=N")?;
        if pod.is_empty() {
            return Err("no pod named".into());
        }
        // The annotation is an int32 (kubernetes `pkg/controller/controller_utils.go` `getPodDeletionCost`).
        return cost.parse::<i32>().map(drop).map_err(|_| format!("`{cost}` is not a whole number (int32)"));
    }
    if let Some(rest) = key.strip_prefix("pdb/") {
        return validate_pdb(rest, value);
    }
    if let Some(rest) = key.strip_prefix("deployment/").or_else(|| key.strip_prefix("statefulset/")) {
        let (object, field) = rest.split_once('.').ok_or("expected deployment|statefulset/NS/NAME.replicas")?;
        if object.split_once('/').is_none_or(|(ns, name)| ns.is_empty() || name.is_empty()) {
            return Err("expected deployment|statefulset/NS/NAME.replicas".into());
        }
        return match field {
            "replicas" => replica_count(value).map(drop),
            "spread" => spread_key(value).map(drop),
            _ => Err("expected deployment|statefulset/NS/NAME.replicas or .spread".into()),
        };
    }
    if let Some(rest) = key.strip_prefix("pod/") {
        return validate_pod_annotation(rest, value);
    }
    let field = key.split_once('.').map_or(key, |(prefix, field)| {
        if prefix.starts_with("nodepool/") || !prefix.contains('/') {
            field
        } else {
            ""
        }
    });
    match field {
        "consolidationPolicy" if matches!(value, "WhenEmpty" | "WhenEmptyOrUnderutilized" | "Balanced") => Ok(()),
        "consolidationPolicy" => Err(format!("`{value}` is not a consolidation policy")),
        "consolidateAfter"
            if value == "Never" || value.parse::<jiff::SignedDuration>().is_ok_and(|d| !d.is_negative()) =>
        {
            Ok(())
        }
        "consolidateAfter" => Err(format!("`{value}` is not a duration or Never")),
        "budgets" if is_budget_nodes(value) => Ok(()),
        "budgets" => Err(format!("`{value}` is not a node count or a percentage from 0% to 100%")),
        _ => Err(format!("unknown key `{key}`")),
    }
}

/// `pdb/NS/NAME.minAvailable|maxUnavailable=N|N%`: the shape only (the PDB is looked up when applied).
fn validate_pdb(rest: &str, value: &str) -> Result<(), String> {
    let (object, field) = rest.split_once('.').ok_or("expected pdb/NS/NAME.minAvailable|maxUnavailable")?;
    if object.split_once('/').is_none_or(|(ns, name)| ns.is_empty() || name.is_empty()) {
        return Err("expected pdb/NS/NAME".into());
    }
    if !matches!(field, "minAvailable" | "maxUnavailable") {
        return Err(format!("unknown PodDisruptionBudget field `{field}` (minAvailable, maxUnavailable)"));
    }
    pdb_amount(value).map(drop)
}

/// A NodePool budget's `nodes`: the CRD's pattern `^((100|[0-9]{1,2})%|[0-9]+)$`
/// (karpenter `pkg/apis/v1/nodepool.go` `Budget.Nodes`).
fn is_budget_nodes(value: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match value.strip_suffix('%') {
        Some(p) => digits(p) && (p.len() <= 2 || p == "100"),
        None => digits(value),
    }
}

/// Applies every override; returns a description of each, for the report.
pub(crate) fn apply(snapshot: &mut Snapshot, overrides: &[String]) -> Result<Vec<String>, String> {
    overrides.iter().map(|o| apply_one(snapshot, o)).collect()
}

fn apply_one(snapshot: &mut Snapshot, text: &str) -> Result<String, String> {
    let (key, value) = text.split_once('=').ok_or_else(|| format!("`{text}`: expected KEY=VALUE"))?;
    if key == "pod-deletion-cost" {
        let (pod, cost) =
            value.rsplit_once('=').ok_or_else(|| format!("`{text}`: expected pod-deletion-cost=NS/POD=N"))?;
        cost.parse::<f64>().map_err(|_| format!("`{text}`: `{cost}` is not a number"))?;
        let target = snapshot
            .pods
            .iter_mut()
            .find(|p| p.metadata.key() == pod || (pod.split_once('/').is_none() && p.metadata.name == pod))
            .ok_or_else(|| format!("`{text}`: no pod `{pod}` in the snapshot"))?;
        target.metadata.annotations.insert("controller.kubernetes.io/pod-deletion-cost".into(), cost.into());
        return Ok(format!("pod {pod}: pod-deletion-cost={cost}"));
    }
    if let Some(rest) = key.strip_prefix("pdb/") {
        return set_pdb(snapshot, text, rest, value);
    }
    for kind in ["deployment/", "statefulset/"] {
        if let Some(rest) = key.strip_prefix(kind) {
            if rest.ends_with(".spread") {
                return set_spread(snapshot, text, kind, rest, value);
            }
            return set_replicas(snapshot, text, kind, rest, value);
        }
    }
    if let Some(rest) = key.strip_prefix("pod/") {
        return set_do_not_disrupt(snapshot, text, rest, value);
    }
    let (pool, field) = match key.split_once('.') {
        Some((prefix, field)) => {
            let name = prefix.split_once('/').map_or(prefix, |(_, n)| n);
            (Some(name.to_owned()), field)
        }
        None => (None, key),
    };
    let pools: Vec<&mut NodePool> =
        snapshot.node_pools.iter_mut().filter(|p| pool.as_deref().is_none_or(|n| n == p.metadata.name)).collect();
    if pools.is_empty() {
        return Err(format!("`{text}`: no NodePool {}", pool.unwrap_or_default()));
    }
    let mut names = Vec::new();
    for p in pools {
        let disruption = p.spec.disruption.get_or_insert_with(Disruption::default);
        match field {
            "consolidationPolicy" => {
                if !matches!(value, "WhenEmpty" | "WhenEmptyOrUnderutilized" | "Balanced") {
                    return Err(format!("`{text}`: policy must be WhenEmpty, WhenEmptyOrUnderutilized or Balanced"));
                }
                disruption.consolidation_policy = Some(value.to_owned());
            }
            "consolidateAfter" => {
                if value != "Never" && value.parse::<jiff::SignedDuration>().is_err() {
                    return Err(format!("`{text}`: expected a duration like 30s or 5m, or Never"));
                }
                disruption.consolidate_after = Some(value.to_owned());
            }
            "budgets" => {
                disruption.budgets = Some(vec![Budget { nodes: value.to_owned(), ..Budget::default() }]);
            }
            other => {
                return Err(format!(
                "`{text}`: unknown key `{other}` (consolidationPolicy, consolidateAfter, budgets, pod-deletion-cost, pdb/NS/NAME.minAvailable|maxUnavailable, deployment/NS/NAME.replicas)"
            ))
            }
        }
        names.push(p.metadata.name.clone());
    }
    Ok(format!("nodepool {}: {field}={value}", names.join(",")))
}

/// `NS/NAME.field` → (namespace, name, field).
fn split_target<'t>(text: &str, rest: &'t str, shape: &str) -> Result<(&'t str, &'t str, &'t str), String> {
    let (target, field) = rest.split_once('.').ok_or_else(|| format!("`{text}`: expected {shape}"))?;
    let (ns, name) = target.split_once('/').ok_or_else(|| format!("`{text}`: expected {shape}"))?;
    Ok((ns, name, field))
}

/// A PDB's `minAvailable`/`maxUnavailable` value: a non-negative integer or a percentage.
fn pdb_amount(value: &str) -> Result<IntOrString, String> {
    match value.strip_suffix('%') {
        Some(p) if p.parse::<u32>().is_ok() => Ok(IntOrString::String(value.to_owned())),
        _ => value
            .parse::<i32>()
            .ok()
            .filter(|v| *v >= 0)
            .map(IntOrString::Int)
            .ok_or_else(|| format!("`{value}` is not a count or a percentage (1, 50%)")),
    }
}

/// A workload's `replicas` value.
fn replica_count(value: &str) -> Result<usize, String> {
    value.parse().map_err(|_| format!("`{value}` is not a replica count"))
}

/// `minAvailable` or `maxUnavailable` (an integer or a percentage; the other is cleared, as the
/// API allows one), and the status the disruption controller would then write
/// (kubernetes `pkg/controller/disruption/disruption.go` `updatePdbStatus`).
fn set_pdb(snapshot: &mut Snapshot, text: &str, rest: &str, value: &str) -> Result<String, String> {
    let (ns, name, field) = split_target(text, rest, "pdb/NS/NAME.minAvailable=VALUE")?;
    let amount = pdb_amount(value).map_err(|why| format!("`{text}`: {why}"))?;
    let pdb = snapshot
        .pdbs
        .iter_mut()
        .find(|p| p.metadata.namespace() == ns && p.metadata.name == name)
        .ok_or_else(|| format!("`{text}`: no PodDisruptionBudget {ns}/{name} in the snapshot"))?;
    match field {
        "minAvailable" => {
            pdb.spec.min_available = Some(amount);
            pdb.spec.max_unavailable = None;
        }
        "maxUnavailable" => {
            pdb.spec.max_unavailable = Some(amount);
            pdb.spec.min_available = None;
        }
        other => {
            return Err(format!("`{text}`: unknown PodDisruptionBudget field `{other}` (minAvailable, maxUnavailable)"))
        }
    }
    recount(pdb, 0, 0);
    Ok(format!("pdb {ns}/{name}: {field}={value}"))
}

/// Moves a PDB's expected and healthy counts by the deltas and recomputes what it allows
/// (also when the provisioning step makes a new pod Ready, `engine/provisioner.rs`).
pub(crate) fn recount(pdb: &mut crate::snapshot::PodDisruptionBudget, expected: i32, healthy: i32) {
    let status = &mut pdb.status;
    status.expected_pods = (status.expected_pods + expected).max(0);
    status.current_healthy = (status.current_healthy + healthy).max(0);
    let rule = Rule::of(&pdb.spec);
    status.desired_healthy = rule.desired_healthy(status.expected_pods);
    status.disruptions_allowed = rule.disruptions_allowed(status.expected_pods, status.current_healthy);
}

/// Scales a Deployment or StatefulSet to `value` replicas (`--set deployment/NS/NAME.replicas=N`).
fn set_replicas(snapshot: &mut Snapshot, text: &str, kind: &str, rest: &str, value: &str) -> Result<String, String> {
    let (ns, name, field) = split_target(text, rest, "deployment/NS/NAME.replicas=N")?;
    if field != "replicas" {
        return Err(format!("`{text}`: unknown field `{field}` (replicas)"));
    }
    let wanted = replica_count(value).map_err(|why| format!("`{text}`: {why}"))?;
    let kind_name = if kind == "deployment/" { "Deployment" } else { "StatefulSet" };
    scale_workload(snapshot, kind_name, ns, name, wanted).map_err(|why| format!("`{text}`: {why}"))?;
    Ok(format!("{} {ns}/{name}: replicas={wanted}", kind.trim_end_matches('/')))
}

/// Scales the workload `kind_name/ns/name` (`kind_name` is `Deployment`, `StatefulSet` or
/// `ReplicaSet`) to `wanted` replicas: extra pods are removed (highest names first), new ones
/// join as pending copies of an existing pod, and the PDBs over them are recounted. Returns the
/// keys (`ns/name`) of the pods it added, which `prepare::apply_changes_and_place` then
/// schedules (`engine/provisioner.rs`). Shared by `--set` and `diff -f`.
pub(crate) fn scale_workload(
    snapshot: &mut Snapshot,
    kind_name: &str,
    ns: &str,
    name: &str,
    wanted: usize,
) -> Result<Vec<String>, String> {
    let id = format!("{kind_name}/{ns}/{name}");
    let mut keys = crate::forecast::impact::pods_of_workload(snapshot, &id);
    if keys.is_empty() {
        return Err(format!("no pods of {id} in the snapshot"));
    }
    keys.sort();
    let items = match kind_name {
        "Deployment" => &mut snapshot.deployments,
        "ReplicaSet" => &mut snapshot.replica_sets,
        _ => &mut snapshot.stateful_sets,
    };
    if let Some(obj) = items.iter_mut().find(|d| d.metadata.namespace() == ns && d.metadata.name == name) {
        obj.spec.replicas = Some(i32::try_from(wanted).unwrap_or(i32::MAX));
    }
    let limits_of = |snapshot: &Snapshot, key: &str| -> Vec<String> {
        let limits = crate::engine::pdb::Limits::new(&snapshot.pdbs);
        snapshot
            .pods
            .iter()
            .find(|p| p.metadata.key() == key)
            .map(|p| limits.matching(p).iter().map(|b| b.metadata.key()).collect())
            .unwrap_or_default()
    };
    let pdbs = keys.first().map(|k| limits_of(snapshot, k)).unwrap_or_default();
    let mut added_keys = Vec::new();
    let (expected, healthy) = if wanted < keys.len() {
        let removed: std::collections::BTreeSet<&String> = keys[wanted..].iter().collect();
        let ready = snapshot
            .pods
            .iter()
            .filter(|p| removed.contains(&p.metadata.key()) && crate::snapshot::is_true(&p.status.conditions, "Ready"))
            .count();
        snapshot.pods.retain(|p| !removed.contains(&p.metadata.key()));
        (-(i32::try_from(removed.len()).unwrap_or(0)), -(i32::try_from(ready).unwrap_or(0)))
    } else {
        let template = keys
            .first()
            .and_then(|k| snapshot.pods.iter().find(|p| p.metadata.key() == *k))
            .cloned()
            .ok_or_else(|| format!("no pod of {id} to copy"))?;
        let added = wanted - keys.len();
        for i in 0..added {
            let mut copy = template.clone();
            copy.metadata.name = format!("{}-whatif-{i}", template.metadata.name);
            copy.spec.node_name = None;
            copy.status = crate::snapshot::PodStatus { phase: Some("Pending".into()), ..Default::default() };
            added_keys.push(copy.metadata.key());
            snapshot.pods.push(copy);
        }
        (i32::try_from(added).unwrap_or(0), 0)
    };
    for pdb in snapshot.pdbs.iter_mut().filter(|p| pdbs.contains(&p.metadata.key())) {
        recount(pdb, expected, healthy);
    }
    Ok(added_keys)
}

/// The topology key a `.spread=` value names: only `hostname` (`kubernetes.io/hostname`), the
/// spread that keeps replicas on different nodes so one node's disruption takes one of them.
fn spread_key(value: &str) -> Result<&'static str, String> {
    match value {
        "hostname" | "kubernetes.io/hostname" => Ok("kubernetes.io/hostname"),
        other => Err(format!("`{other}` is not a spread this what-if knows (hostname)")),
    }
}

/// `pod/NS/NAME.do-not-disrupt=true|false`: the shape only (the pod is looked up when applied).
fn validate_pod_annotation(rest: &str, value: &str) -> Result<(), String> {
    let (object, field) = rest.split_once('.').ok_or("expected pod/NS/NAME.do-not-disrupt")?;
    if object.split_once('/').is_none_or(|(ns, name)| ns.is_empty() || name.is_empty()) {
        return Err("expected pod/NS/NAME".into());
    }
    if field != "do-not-disrupt" {
        return Err(format!("unknown pod field `{field}` (do-not-disrupt)"));
    }
    do_not_disrupt_value(value).map(drop)
}

/// `true` sets the annotation, `false` removes it.
fn do_not_disrupt_value(value: &str) -> Result<bool, String> {
    match value {
        "true" => Ok(true),
        "false" => Ok(false),
        other => Err(format!("`{other}` is not true or false")),
    }
}

/// The constraint `.spread=hostname` adds: at most one more pod of the workload on any node than
/// on the emptiest, preferred (`ScheduleAnyway`, as `pdb-audit` proposes it; Karpenter's
/// scheduler honours it and relaxes it only when a pod cannot be placed otherwise,
/// karpenter `pkg/controllers/provisioning/scheduling/preferences.go` `Preferences.Relax`).
pub(crate) fn hostname_spread(
    selector: &crate::snapshot::StringMap,
) -> k8s_openapi::api::core::v1::TopologySpreadConstraint {
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
    k8s_openapi::api::core::v1::TopologySpreadConstraint {
        max_skew: 1,
        topology_key: "kubernetes.io/hostname".into(),
        when_unsatisfiable: "ScheduleAnyway".into(),
        label_selector: Some(LabelSelector { match_labels: Some(selector.clone()), ..LabelSelector::default() }),
        ..Default::default()
    }
}

/// The labels a workload's spread selects its pods by: the controller's `matchLabels` when the
/// snapshot has it, else the labels its pods share (less `pod-template-hash`, which changes on
/// every rollout).
fn spread_selector(
    snapshot: &Snapshot,
    kind_name: &str,
    ns: &str,
    name: &str,
    pods: &[String],
) -> crate::snapshot::StringMap {
    let items = if kind_name == "Deployment" { &snapshot.deployments } else { &snapshot.stateful_sets };
    let declared = items
        .iter()
        .find(|d| d.metadata.namespace() == ns && d.metadata.name == name)
        .and_then(|d| d.spec.selector.as_ref()?.match_labels.clone())
        .filter(|labels| !labels.is_empty());
    if let Some(labels) = declared {
        return labels;
    }
    let mut shared: Option<crate::snapshot::StringMap> = None;
    for pod in snapshot.pods.iter().filter(|p| pods.contains(&p.metadata.key())) {
        let labels = &pod.metadata.labels;
        shared = Some(match shared {
            None => labels.clone(),
            Some(s) => s.into_iter().filter(|(k, v)| labels.get(k) == Some(v)).collect(),
        });
    }
    let mut shared = shared.unwrap_or_default();
    shared.remove("pod-template-hash");
    shared.remove("controller-revision-hash");
    shared
}

/// Gives the Deployment or StatefulSet's template a topology spread over
/// `kubernetes.io/hostname` (`--set deployment/NS/NAME.spread=hostname`) and rolls its pods to
/// it ([`roll_with`]), as `kubectl patch` of the template does. Pods added later by
/// `.replicas=` copy an existing (rolled) pod, so they carry it when this comes first.
fn set_spread(snapshot: &mut Snapshot, text: &str, kind: &str, rest: &str, value: &str) -> Result<String, String> {
    let (ns, name, _) = split_target(text, rest, "deployment/NS/NAME.spread=hostname")?;
    let topology_key = spread_key(value).map_err(|why| format!("`{text}`: {why}"))?;
    let kind_name = if kind == "deployment/" { "Deployment" } else { "StatefulSet" };
    let id = format!("{kind_name}/{ns}/{name}");
    let pods = crate::forecast::impact::pods_of_workload(snapshot, &id);
    if pods.is_empty() {
        return Err(format!("`{text}`: no pods of {id} in the snapshot"));
    }
    let constraint = hostname_spread(&spread_selector(snapshot, kind_name, ns, name, &pods));
    let add = |spreads: &mut Vec<k8s_openapi::api::core::v1::TopologySpreadConstraint>| {
        spreads.retain(|c| c.topology_key != topology_key);
        spreads.push(constraint.clone());
    };
    let items = if kind_name == "Deployment" { &mut snapshot.deployments } else { &mut snapshot.stateful_sets };
    if let Some(obj) = items.iter_mut().find(|d| d.metadata.namespace() == ns && d.metadata.name == name) {
        add(&mut obj.spec.template.spec.topology_spread_constraints);
    }
    let rolled = roll_with(snapshot, &pods, add);
    Ok(format!("{} {ns}/{name}: spread over {topology_key}, its {rolled} pod(s) rolled", kind.trim_end_matches('/')))
}

/// Replaces each of `pods` by a pending copy that `change` has edited, as a template patch
/// rolls a workload: the Deployment controller replaces every pod of the old template
/// (kubernetes `pkg/controller/deployment/rolling.go` `rolloutRolling`), and the scheduler
/// places the new ones (here the provisioning step that follows every `--set`,
/// `engine/provisioner.rs`). The budgets over them count the old pods gone and the new ones
/// not yet healthy. Returns how many pods were rolled. `diff -f` rolls a changed template the
/// same way (`manifest/apply.rs` `roll`).
fn roll_with(
    snapshot: &mut Snapshot,
    pods: &[String],
    change: impl Fn(&mut Vec<k8s_openapi::api::core::v1::TopologySpreadConstraint>),
) -> usize {
    let old: std::collections::BTreeSet<&String> = pods.iter().collect();
    let taken: std::collections::BTreeSet<String> = snapshot.pods.iter().map(|p| p.metadata.key()).collect();
    let mut fresh = Vec::new();
    let mut ready = 0;
    for pod in snapshot.pods.iter().filter(|p| old.contains(&p.metadata.key())) {
        ready += usize::from(crate::snapshot::is_true(&pod.status.conditions, "Ready"));
        let mut new = pod.clone();
        let mut name = format!("{}-rolled", pod.metadata.name);
        let mut n = 1;
        while taken.contains(&format!("{}/{name}", pod.metadata.namespace())) {
            n += 1;
            name = format!("{}-rolled-{n}", pod.metadata.name);
        }
        new.metadata.name = name;
        new.metadata.uid = String::new();
        change(&mut new.spec.topology_spread_constraints);
        new.spec.node_name = None;
        new.status = crate::snapshot::PodStatus { phase: Some("Pending".into()), ..Default::default() };
        fresh.push(new);
    }
    let limits = crate::engine::pdb::Limits::new(&snapshot.pdbs);
    let over: Vec<String> = fresh.iter().flat_map(|p| limits.matching(p)).map(|b| b.metadata.key()).collect();
    snapshot.pods.retain(|p| !old.contains(&p.metadata.key()));
    let rolled = fresh.len();
    snapshot.pods.extend(fresh);
    let unready = -(i32::try_from(ready).unwrap_or(0));
    for pdb in snapshot.pdbs.iter_mut().filter(|p| over.contains(&p.metadata.key())) {
        recount(pdb, 0, unready);
    }
    rolled
}

/// Sets (`true`) or removes (`false`) one pod's `karpenter.sh/do-not-disrupt`
/// (`--set pod/NS/NAME.do-not-disrupt=true`), which the replay reads as Karpenter does
/// (karpenter `pkg/utils/pod/scheduling.go` `IsDoNotDisruptActive`).
fn set_do_not_disrupt(snapshot: &mut Snapshot, text: &str, rest: &str, value: &str) -> Result<String, String> {
    let (ns, name, field) = split_target(text, rest, "pod/NS/NAME.do-not-disrupt=true")?;
    if field != "do-not-disrupt" {
        return Err(format!("`{text}`: unknown pod field `{field}` (do-not-disrupt)"));
    }
    let on = do_not_disrupt_value(value).map_err(|why| format!("`{text}`: {why}"))?;
    let pod = snapshot
        .pods
        .iter_mut()
        .find(|p| p.metadata.namespace() == ns && p.metadata.name == name)
        .ok_or_else(|| format!("`{text}`: no pod {ns}/{name} in the snapshot"))?;
    let annotation = crate::engine::labels::DO_NOT_DISRUPT;
    if on {
        pod.metadata.annotations.insert(annotation.into(), "true".into());
    } else {
        pod.metadata.annotations.remove(annotation);
    }
    Ok(format!("pod {ns}/{name}: {annotation}={value}"))
}

#[cfg(test)]
mod tests {
    use super::apply;
    use crate::snapshot::{NodePool, Pod, Snapshot};

    fn snapshot() -> Snapshot {
        let mut s = Snapshot::default();
        for name in ["a", "b"] {
            let mut p = NodePool::default();
            p.metadata.name = name.into();
            s.node_pools.push(p);
        }
        let mut pod = Pod::default();
        pod.metadata.name = "web".into();
        pod.metadata.namespace = Some("ns".into());
        s.pods.push(pod);
        s
    }

    #[test]
    fn sets_policy_everywhere_or_on_one_pool() {
        let mut s = snapshot();
        apply(&mut s, &["nodepool/b.consolidateAfter=5m".into(), "consolidationPolicy=Balanced".into()]).unwrap();
        let d = |i: usize| s.node_pools[i].spec.disruption.clone().unwrap();
        assert_eq!(d(0).consolidation_policy.as_deref(), Some("Balanced"));
        assert_eq!(d(0).consolidate_after, None);
        assert_eq!(d(1).consolidate_after.as_deref(), Some("5m"));
    }

    #[test]
    fn sets_pod_deletion_cost_and_rejects_nonsense() {
        let mut s = snapshot();
        apply(&mut s, &["pod-deletion-cost=ns/web=1000".into()]).unwrap();
        assert_eq!(s.pods[0].metadata.annotations["controller.kubernetes.io/pod-deletion-cost"], "1000");
        assert!(apply(&mut s, &["consolidationPolicy=Sometimes".into()]).is_err());
        assert!(apply(&mut s, &["colour=blue".into()]).is_err());
        assert!(apply(&mut s, &["pod-deletion-cost=ns/none=1".into()]).is_err());
    }

    #[test]
    fn pdb_fields_rewrite_the_spec_and_recount_the_status() {
        let mut s = crate::testing::demo();
        apply(&mut s, &["pdb/tenant-a/app-b.minAvailable=1".into()]).unwrap();
        let pdb = s.pdbs.iter().find(|p| p.metadata.name == "app-b").unwrap();
        assert_eq!(pdb.spec.max_unavailable, None);
        // One replica, one must stay: nothing may go (disruption.go updatePdbStatus).
        assert_eq!((pdb.status.desired_healthy, pdb.status.disruptions_allowed), (1, 0));
        apply(&mut s, &["pdb/tenant-a/app-b.maxUnavailable=100%".into()]).unwrap();
        let pdb = s.pdbs.iter().find(|p| p.metadata.name == "app-b").unwrap();
        assert_eq!(pdb.status.disruptions_allowed, 1);
        assert!(apply(&mut s, &["pdb/tenant-a/ghost.minAvailable=1".into()]).is_err());
        assert!(apply(&mut s, &["pdb/tenant-a/app-b.minAvailable=many".into()]).is_err());
        assert!(apply(&mut s, &["pdb/tenant-a/app-b.selector=x".into()]).is_err());
    }

    #[test]
    fn replicas_add_pending_copies_or_remove_pods() {
        use crate::testing::{managed_node, node_pool, pod, set, snapshot};
        let web = |name: &str| {
            let p = set(pod(name, "node-a"), "/metadata/labels/pod-template-hash", serde_json::json!("abc"));
            let owner = serde_json::json!([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-abc", "controller": true}]);
            set(p, "/metadata/ownerReferences", owner)
        };
        let mut objects = vec![node_pool("default")];
        objects.extend(managed_node("node-a"));
        objects.extend([web("web-abc-1"), web("web-abc-2")]);
        let mut s = snapshot(objects);
        apply(&mut s, &["deployment/default/web.replicas=3".into()]).unwrap();
        let copies: Vec<_> = s.pods.iter().filter(|p| p.spec.node_name.is_none()).collect();
        assert_eq!(copies.len(), 1);
        apply(&mut s, &["deployment/default/web.replicas=1".into()]).unwrap();
        let left: Vec<&str> = s.pods.iter().map(|p| p.metadata.name.as_str()).collect();
        assert_eq!(left, ["web-abc-1"]);
        assert!(apply(&mut s, &["deployment/default/ghost.replicas=1".into()]).is_err());
    }

    #[test]
    fn values_are_checked_before_the_replay_with_the_valid_forms() {
        use super::validate;
        let ok = [
            "budgets=20%",
            "budgets=100%",
            "budgets=0",
            "budgets=3",
            "nodepool/a.budgets=0%",
            "consolidateAfter=Never",
            "nodepool/b.consolidateAfter=5m",
            "consolidationPolicy=Balanced",
            "pod-deletion-cost=ns/web=-5",
            "pdb/tenant-a/app-b.minAvailable=1",
            "pdb/tenant-a/app-b.maxUnavailable=25%",
            "deployment/tenant-a/app-b.replicas=2",
            "statefulset/db/pg.replicas=0",
            "deployment/tenant-a/app-b.spread=hostname",
            "pod/tenant-a/app-b-1.do-not-disrupt=true",
            "pod/tenant-a/app-b-1.do-not-disrupt=false",
        ];
        for o in ok {
            assert_eq!(validate(&[o.to_owned()]), Ok(()), "{o}");
        }
        for bad in [
            "budgets=abc",
            "budgets=200%",
            "budgets=-1",
            "budgets=1.5%",
            "consolidateAfter=soon",
            "consolidationPolicy=Sometimes",
            "colour=blue",
            "budgets",
            "pod-deletion-cost=ns/web=1.5",
            "pdb/tenant-a/app-b.selector=x",
            "pdb/app-b.minAvailable=1",
            "pdb/tenant-a/app-b.minAvailable=many",
            "deployment/tenant-a/app-b.replicas=-1",
            "deployment/tenant-a/app-b.image=x",
            "deployment/tenant-a/app-b.spread=zone",
            "pod/tenant-a/app-b-1.do-not-disrupt=yes",
            "pod/app-b-1.do-not-disrupt=true",
            "pod/tenant-a/app-b-1.deletion-cost=1",
        ] {
            let e = validate(&[bad.to_owned()]).unwrap_err();
            assert!(e.starts_with(&format!("--set {bad}: ")) && e.contains("valid forms: "), "{e}");
        }
    }

    #[test]
    fn do_not_disrupt_sets_and_removes_the_pod_annotation() {
        let mut s = snapshot();
        apply(&mut s, &["pod/ns/web.do-not-disrupt=true".into()]).unwrap();
        assert_eq!(s.pods[0].metadata.annotations["karpenter.sh/do-not-disrupt"], "true");
        apply(&mut s, &["pod/ns/web.do-not-disrupt=false".into()]).unwrap();
        assert!(!s.pods[0].metadata.annotations.contains_key("karpenter.sh/do-not-disrupt"));
        assert!(apply(&mut s, &["pod/ns/ghost.do-not-disrupt=true".into()]).is_err());
    }

    #[test]
    fn spread_reaches_the_pods_and_the_copies_scaled_after_it() {
        let mut s = crate::testing::demo();
        apply(
            &mut s,
            &["deployment/tenant-a/app-b.spread=hostname".into(), "deployment/tenant-a/app-b.replicas=2".into()],
        )
        .unwrap();
        let app_b: Vec<_> = s.pods.iter().filter(|p| p.metadata.name.starts_with("app-b")).collect();
        assert_eq!(app_b.len(), 2, "the rolled pod and its copy");
        assert!(app_b
            .iter()
            .all(|p| p.spec.node_name.is_none() && p.metadata.name.starts_with("app-b-7c9d-x1-rolled")));
        assert!(!s.pods.iter().any(|p| p.metadata.name == "app-b-7c9d-x1"), "the old pod is replaced");
        for pod in app_b {
            let spreads = &pod.spec.topology_spread_constraints;
            assert_eq!(spreads.len(), 1, "{}", pod.metadata.name);
            assert_eq!(spreads[0].topology_key, "kubernetes.io/hostname");
            assert_eq!(spreads[0].max_skew, 1);
            let labels = spreads[0].label_selector.as_ref().and_then(|l| l.match_labels.clone()).unwrap_or_default();
            assert!(!labels.is_empty() && !labels.contains_key("pod-template-hash"), "{labels:?}");
        }
        assert!(apply(&mut s, &["deployment/tenant-a/ghost.spread=hostname".into()]).is_err());
    }
}
