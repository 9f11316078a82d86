//! What the API server or Karpenter's CRD validation would have refused, found after decoding:
//! an object given twice, one providerID on two Nodes, negative resources and prices, selector
//! operators that do not exist, budgets the NodePool CRD rejects. Each is a [`DecodeError`]
//! naming the object and field; the file reader then finds the place in the text.
//!
//! One pass over what was decoded, no copies: the collections are sorted already, so an object
//! given twice sits beside its twin.

mod durations;

use std::collections::HashMap;

use k8s_openapi::api::core::v1::{Affinity, NodeSelectorTerm};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;

use super::decode_error::{DecodeError, Document};
use super::{NodeSelectorRequirement, ObjectMeta, ResourceList, Resources, Snapshot};

type Found = Result<(), DecodeError>;

/// The most an offering may cost per hour. No instance of any cloud costs near this (EC2's
/// largest are a few hundred dollars); a larger figure is a unit or a parsing mistake, and it
/// would print as a 300-digit saving.
const MAX_PRICE: f64 = 100_000.0;

/// The largest quantity the API server stores: `resource.Quantity` keeps an int64 of the
/// value's base units (`MaxInt64`), beyond which `ValidateResourceQuantityValue` and the
/// scheduler's int64 arithmetic cannot follow.
const MAX_QUANTITY_MILLI: i128 = i64::MAX as i128 * 1000;

/// Checks a decoded snapshot (see the module docs).
pub(super) fn validate(s: &Snapshot) -> Found {
    unique("Node", s.nodes.iter().map(|o| &o.metadata))?;
    unique("Pod", s.pods.iter().map(|o| &o.metadata))?;
    unique("NodeClaim", s.node_claims.iter().map(|o| &o.metadata))?;
    unique("NodePool", s.node_pools.iter().map(|o| &o.metadata))?;
    unique("PodDisruptionBudget", s.pdbs.iter().map(|o| &o.metadata))?;
    let mut provider_ids: HashMap<&str, &str> = HashMap::new();
    for node in &s.nodes {
        let name = &node.metadata.name;
        if let Some(id) = node.spec.provider_id.as_deref().filter(|id| !id.is_empty()) {
            if let Some(first) = provider_ids.insert(id, name) {
                return Err(found(
                    "Node",
                    &node.metadata,
                    "spec.providerID",
                    format!("has the providerID of Node `{first}` (`{id}`)"),
                    "a providerID names one cloud instance, and Karpenter tracks one node per providerID \
                     (state.Cluster): one of the two Nodes is stale or copied; remove it",
                ));
            }
        }
        non_negative_map("Node", &node.metadata, "status.capacity", &node.status.capacity)?;
        non_negative_map("Node", &node.metadata, "status.allocatable", &node.status.allocatable)?;
    }
    for pod in &s.pods {
        let spec = &pod.spec;
        for (list, containers) in [("containers", &spec.containers), ("initContainers", &spec.init_containers)] {
            for (i, c) in containers.iter().enumerate() {
                let at = |part: &str| format!("spec.{list}[{i}].resources.{part}");
                non_negative("Pod", &pod.metadata, &at("requests"), &c.resources.requests)?;
                non_negative("Pod", &pod.metadata, &at("limits"), &c.resources.limits)?;
            }
        }
        non_negative_map("Pod", &pod.metadata, "spec.overhead", &spec.overhead)?;
        if let Some(affinity) = &spec.affinity {
            affinity_operators(&pod.metadata, affinity)?;
        }
        for (i, constraint) in spec.topology_spread_constraints.iter().enumerate() {
            if constraint.max_skew < 1 {
                return Err(found(
                    "Pod",
                    &pod.metadata,
                    &format!("spec.topologySpreadConstraints[{i}].maxSkew"),
                    format!("is {}; the API server refuses a maxSkew below 1", constraint.max_skew),
                    "validateTopologySpreadConstraints (pkg/apis/core/validation): maxSkew must be greater than zero",
                ));
            }
            let field = format!("spec.topologySpreadConstraints[{i}].labelSelector");
            label_selector("Pod", &pod.metadata, &field, constraint.label_selector.as_ref())?;
        }
    }
    unique_uids(s)?;
    for (kind, workloads) in
        [("Deployment", &s.deployments), ("StatefulSet", &s.stateful_sets), ("ReplicaSet", &s.replica_sets)]
    {
        for w in workloads {
            if let Some(replicas) = w.spec.replicas.filter(|r| *r < 0) {
                return Err(found(
                    kind,
                    &w.metadata,
                    "spec.replicas",
                    format!("is {replicas}; the API server refuses a negative replica count"),
                    "ValidateNonnegativeField (pkg/apis/apps/validation): set 0 or more",
                ));
            }
        }
    }
    for hpa in &s.hpas {
        let min = hpa.spec.min_replicas.unwrap_or(1);
        if min < 1 || hpa.spec.max_replicas < min {
            return Err(found(
                "HorizontalPodAutoscaler",
                &hpa.metadata,
                if min < 1 { "spec.minReplicas" } else { "spec.maxReplicas" },
                format!("minReplicas {min} and maxReplicas {} are not 1 <= min <= max", hpa.spec.max_replicas),
                "ValidateHorizontalPodAutoscalerSpec (pkg/apis/autoscaling/validation) refuses them",
            ));
        }
    }
    for claim in &s.node_claims {
        claim_names_one_node(s, claim)?;
    }
    for pdb in &s.pdbs {
        label_selector("PodDisruptionBudget", &pdb.metadata, "spec.selector", pdb.spec.selector.as_ref())?;
    }
    for pool in &s.node_pools {
        let template = &pool.spec.template.spec;
        let disruption = pool.spec.disruption.as_ref();
        duration("NodePool", &pool.metadata, "spec.template.spec.expireAfter", template.expire_after.as_deref(), true)?;
        let grace = template.termination_grace_period.as_deref();
        duration("NodePool", &pool.metadata, "spec.template.spec.terminationGracePeriod", grace, false)?;
        let after = disruption.and_then(|d| d.consolidate_after.as_deref());
        duration("NodePool", &pool.metadata, "spec.disruption.consolidateAfter", after, true)?;
        let field = "spec.template.spec.requirements";
        karpenter_requirements("NodePool", &pool.metadata, field, &pool.spec.template.spec.requirements)?;
        let budgets = pool.spec.disruption.as_ref().and_then(|d| d.budgets.as_deref()).unwrap_or_default();
        for (i, budget) in budgets.iter().enumerate() {
            budget_fields(&pool.metadata, i, budget)?;
        }
    }
    for claim in &s.node_claims {
        duration("NodeClaim", &claim.metadata, "spec.expireAfter", claim.spec.expire_after.as_deref(), true)?;
        let grace = claim.spec.termination_grace_period.as_deref();
        duration("NodeClaim", &claim.metadata, "spec.terminationGracePeriod", grace, false)?;
        karpenter_requirements("NodeClaim", &claim.metadata, "spec.requirements", &claim.spec.requirements)?;
    }
    for it in &s.instance_types {
        let meta = ObjectMeta { name: it.name.clone(), ..ObjectMeta::default() };
        non_negative_map("InstanceTypes", &meta, "capacity", &it.capacity)?;
        non_negative_map("InstanceTypes", &meta, "overhead", &it.overhead)?;
        for (i, offering) in it.offerings.iter().enumerate() {
            if let Some(price) = offering.price.filter(|p| !(*p >= 0.0 && *p <= MAX_PRICE)) {
                return Err(found(
                    "InstanceTypes",
                    &meta,
                    &format!("offerings[{i}].price"),
                    format!("price {price:e} is not a price in dollars per hour"),
                    "a price is dollars per hour, from 0 to 100000 (the largest EC2 instance costs a few hundred)",
                ));
            }
        }
    }
    Ok(())
}

/// A Karpenter duration field (see [`durations`]): refused as the CRD or Go's parser would.
fn duration(kind: &str, meta: &ObjectMeta, field: &str, value: Option<&str>, never: bool) -> Found {
    let Some(value) = value else { return Ok(()) };
    match durations::check(value, never) {
        Ok(()) => Ok(()),
        Err(durations::Refusal::Pattern) => Err(found(
            kind,
            meta,
            field,
            format!("`{value}` is not a duration the {kind} CRD accepts"),
            if never {
                "whole seconds, minutes and hours (`30s`, `5m`, `1h30m`) or `Never` \
                 (the CRD's pattern in pkg/apis/v1, +kubebuilder:validation:Pattern)"
            } else {
                "whole seconds, minutes and hours (`30s`, `5m`, `1h30m`) \
                 (the CRD's pattern in pkg/apis/v1, +kubebuilder:validation:Pattern)"
            },
        )),
        Err(durations::Refusal::Overflow) => Err(found(
            kind,
            meta,
            field,
            "is longer than Go's time.Duration holds (about 2562047h)".to_owned(),
            "the API server stores it, but Karpenter's decoder (time.ParseDuration) refuses it, so \
             Karpenter cannot read this object; use `Never` or a shorter duration",
        )),
    }
}

fn found(kind: &str, meta: &ObjectMeta, field: &str, message: String, help: &str) -> DecodeError {
    let name = match &meta.namespace {
        Some(ns) => format!("{ns}/{}", meta.name),
        None => meta.name.clone(),
    };
    DecodeError {
        document: Document { index: 0, item_path: Vec::new() },
        kind: kind.to_owned(),
        name,
        field: field.to_owned(),
        message,
        help: help.to_owned(),
        offset: None,
    }
}

fn too_large(kind: &str, meta: &ObjectMeta, field: &str) -> DecodeError {
    found(
        kind,
        meta,
        field,
        "is larger than any quantity Kubernetes stores (an int64 of base units)".to_owned(),
        "the API server refuses it; is the value a typo (`1e300`, a missing unit)?",
    )
}

/// A pod UID names one pod: two pods with one UID are a copy or two captures joined.
fn unique_uids(s: &Snapshot) -> Found {
    let mut seen: HashMap<&str, &ObjectMeta> = HashMap::new();
    for pod in &s.pods {
        let uid = pod.metadata.uid.as_str();
        if uid.is_empty() {
            continue;
        }
        if let Some(first) = seen.insert(uid, &pod.metadata) {
            return Err(found(
                "Pod",
                &pod.metadata,
                "metadata.uid",
                format!("has the uid of Pod `{}` (`{uid}`)", first.key()),
                "the API server gives every object its own uid: one of the two pods is a copy; remove it",
            ));
        }
    }
    Ok(())
}

/// A NodeClaim's `status.providerID` and `status.nodeName` must name the same Node: Karpenter
/// joins them by providerID (`state.Cluster`), so a claim pointing at two nodes would be
/// attached to both.
fn claim_names_one_node(s: &Snapshot, claim: &super::NodeClaim) -> Found {
    let (Some(id), Some(node_name)) = (claim.status.provider_id.as_deref(), claim.status.node_name.as_deref()) else {
        return Ok(());
    };
    let by_id = s.nodes.iter().find(|n| n.spec.provider_id.as_deref() == Some(id));
    match by_id {
        Some(node) if node.metadata.name != node_name => Err(found(
            "NodeClaim",
            &claim.metadata,
            "status.nodeName",
            format!("names Node `{node_name}`, but its providerID `{id}` is Node `{}`'s", node.metadata.name),
            "Karpenter matches a NodeClaim to its Node by providerID; one of the two fields is stale: fix or drop it",
        )),
        _ => Ok(()),
    }
}

/// Sorted by namespace and name, so twins are neighbours.
fn unique<'a>(kind: &str, metas: impl Iterator<Item = &'a ObjectMeta>) -> Found {
    let mut previous: Option<&ObjectMeta> = None;
    for meta in metas {
        if previous.is_some_and(|p| p.namespace() == meta.namespace() && p.name == meta.name) {
            return Err(found(
                kind,
                meta,
                "metadata.name",
                "appears twice in the snapshot".to_owned(),
                "the API server holds one object per name: were two captures concatenated? keep one of them",
            ));
        }
        previous = Some(meta);
    }
    Ok(())
}

/// `ValidateResourceQuantityValue` (pkg/apis/core/validation): requests, limits, capacity and
/// allocatable must be `>= 0`.
fn non_negative(kind: &str, meta: &ObjectMeta, field: &str, list: &ResourceList) -> Found {
    for (name, quantity) in list.iter() {
        if quantity.milli() < 0 {
            return Err(negative(kind, meta, &format!("{field}.{name}"), &quantity.to_string()));
        }
        if quantity.milli() > MAX_QUANTITY_MILLI {
            return Err(too_large(kind, meta, &format!("{field}.{name}")));
        }
    }
    Ok(())
}

fn non_negative_map(kind: &str, meta: &ObjectMeta, field: &str, map: &Resources) -> Found {
    for (name, quantity) in map {
        if quantity.milli() < 0 {
            return Err(negative(kind, meta, &format!("{field}.{name}"), &quantity.to_string()));
        }
        if quantity.milli() > MAX_QUANTITY_MILLI {
            return Err(too_large(kind, meta, &format!("{field}.{name}")));
        }
    }
    Ok(())
}

fn negative(kind: &str, meta: &ObjectMeta, field: &str, value: &str) -> DecodeError {
    found(
        kind,
        meta,
        field,
        format!("`{value}` is negative"),
        "the API server refuses negative resources (must be greater than or equal to 0)",
    )
}

const NODE_OPERATORS: [&str; 6] = ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"];
/// Karpenter's NodePool and NodeClaim requirements (core v1.9+).
const KARPENTER_OPERATORS: [&str; 8] = ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt", "Gte", "Lte"];
const LABEL_OPERATORS: [&str; 4] = ["In", "NotIn", "Exists", "DoesNotExist"];

/// `ValidateNodeSelectorRequirement`: a known operator; `Gt`/`Lt` take one integer.
fn node_requirement(kind: &str, meta: &ObjectMeta, field: &str, operator: &str, values: &[String]) -> Found {
    node_requirement_among(kind, meta, field, operator, values, &NODE_OPERATORS)
}

/// [`node_requirement`] against a given operator set (Karpenter's adds `Gte` and `Lte`).
fn node_requirement_among(
    kind: &str,
    meta: &ObjectMeta,
    field: &str,
    operator: &str,
    values: &[String],
    operators: &[&str],
) -> Found {
    if !operators.contains(&operator) {
        return Err(found(
            kind,
            meta,
            &format!("{field}.operator"),
            format!("`{operator}` is not a node selector operator"),
            "use In, NotIn, Exists, DoesNotExist, Gt or Lt (the API server refuses others)",
        ));
    }
    if matches!(operator, "Gt" | "Lt" | "Gte" | "Lte")
        && !(values.len() == 1 && values[0].trim().parse::<i64>().is_ok())
    {
        return Err(found(
            kind,
            meta,
            &format!("{field}.values"),
            format!("{operator} needs exactly one integer value, not {values:?}"),
            "Gt and Lt compare a label as a 64-bit integer",
        ));
    }
    Ok(())
}

/// Karpenter's own requirements also take `Gte` and `Lte` (one integer, like `Gt`/`Lt`).
fn karpenter_requirements(kind: &str, meta: &ObjectMeta, field: &str, reqs: &[NodeSelectorRequirement]) -> Found {
    for (i, r) in reqs.iter().enumerate() {
        node_requirement_among(kind, meta, &format!("{field}[{i}]"), &r.operator, &r.values, &KARPENTER_OPERATORS)?;
    }
    Ok(())
}

fn node_selector_term(meta: &ObjectMeta, field: &str, term: &NodeSelectorTerm) -> Found {
    for (i, r) in term.match_expressions.iter().flatten().enumerate() {
        let values = r.values.as_deref().unwrap_or_default();
        node_requirement("Pod", meta, &format!("{field}.matchExpressions[{i}]"), &r.operator, values)?;
    }
    Ok(())
}

fn label_selector(kind: &str, meta: &ObjectMeta, field: &str, selector: Option<&LabelSelector>) -> Found {
    let Some(selector) = selector else { return Ok(()) };
    for (i, e) in selector.match_expressions.iter().flatten().enumerate() {
        if !LABEL_OPERATORS.contains(&e.operator.as_str()) {
            return Err(found(
                kind,
                meta,
                &format!("{field}.matchExpressions[{i}].operator"),
                format!("`{}` is not a label selector operator", e.operator),
                "use In, NotIn, Exists or DoesNotExist (the API server refuses others)",
            ));
        }
    }
    Ok(())
}

fn affinity_operators(meta: &ObjectMeta, affinity: &Affinity) -> Found {
    if let Some(node) = &affinity.node_affinity {
        let base = "spec.affinity.nodeAffinity";
        if let Some(required) = &node.required_during_scheduling_ignored_during_execution {
            for (i, term) in required.node_selector_terms.iter().enumerate() {
                let field = format!("{base}.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[{i}]");
                node_selector_term(meta, &field, term)?;
            }
        }
        for (i, preferred) in node.preferred_during_scheduling_ignored_during_execution.iter().flatten().enumerate() {
            let field = format!("{base}.preferredDuringSchedulingIgnoredDuringExecution[{i}].preference");
            node_selector_term(meta, &field, &preferred.preference)?;
        }
    }
    let pod_terms = [
        (
            "podAffinity",
            affinity.pod_affinity.as_ref().map(|a| {
                (
                    &a.required_during_scheduling_ignored_during_execution,
                    &a.preferred_during_scheduling_ignored_during_execution,
                )
            }),
        ),
        (
            "podAntiAffinity",
            affinity.pod_anti_affinity.as_ref().map(|a| {
                (
                    &a.required_during_scheduling_ignored_during_execution,
                    &a.preferred_during_scheduling_ignored_during_execution,
                )
            }),
        ),
    ];
    for (name, terms) in pod_terms {
        let Some((required, preferred)) = terms else { continue };
        for (i, term) in required.iter().flatten().enumerate() {
            let field =
                format!("spec.affinity.{name}.requiredDuringSchedulingIgnoredDuringExecution[{i}].labelSelector");
            label_selector("Pod", meta, &field, term.label_selector.as_ref())?;
        }
        for (i, weighted) in preferred.iter().flatten().enumerate() {
            let field = format!(
                "spec.affinity.{name}.preferredDuringSchedulingIgnoredDuringExecution[{i}].podAffinityTerm.labelSelector"
            );
            label_selector("Pod", meta, &field, weighted.pod_affinity_term.label_selector.as_ref())?;
        }
    }
    Ok(())
}

/// The NodePool CRD's validation of `spec.disruption.budgets[]` (karpenter
/// pkg/apis/v1/nodepool.go, `Budget`): reasons are an enum, `duration` matches
/// `^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$`, `nodes` a count or a percentage up to 100.
fn budget_fields(meta: &ObjectMeta, i: usize, budget: &super::Budget) -> Found {
    let field = |name: &str| format!("spec.disruption.budgets[{i}].{name}");
    for reason in budget.reasons.iter().flatten() {
        if !matches!(reason.as_str(), "Underutilized" | "Empty" | "Drifted") {
            return Err(found(
                "NodePool",
                meta,
                &field("reasons"),
                format!("`{reason}` is not a disruption reason"),
                "budget reasons are Underutilized, Empty or Drifted",
            ));
        }
    }
    if let Some(duration) = budget.duration.as_deref().filter(|d| !crd_duration(d)) {
        return Err(found(
            "NodePool",
            meta,
            &field("duration"),
            format!("`{duration}` is not a budget duration"),
            "a budget duration is whole hours and minutes, e.g. `10m`, `1h`, `1h30m` (never negative)",
        ));
    }
    if !crd_nodes(&budget.nodes) {
        return Err(found(
            "NodePool",
            meta,
            &field("nodes"),
            format!("`{}` is not a node count or percentage", budget.nodes),
            "nodes is a count (`5`) or a percentage from 0% to 100% (`10%`)",
        ));
    }
    Ok(())
}

/// `^((([0-9]+(h|m))|([0-9]+h[0-9]+m))(0s)?)$`, matched by hand.
fn crd_duration(text: &str) -> bool {
    let body = text.strip_suffix("0s").filter(|b| !b.is_empty()).unwrap_or(text);
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some((hours, minutes)) = body.split_once('h') {
        return digits(hours) && (minutes.is_empty() || minutes.strip_suffix('m').is_some_and(digits));
    }
    body.strip_suffix('m').is_some_and(digits)
}

/// `^((100|[0-9]{1,2})%|[0-9]+)$`.
fn crd_nodes(text: &str) -> bool {
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    match text.strip_suffix('%') {
        Some(p) => p == "100" || (digits(p) && p.len() <= 2),
        None => digits(text),
    }
}

#[cfg(test)]
mod tests {
    use super::{crd_duration, crd_nodes};

    #[test]
    fn budget_patterns_match_the_crd() {
        for ok in ["10m", "1h", "1h30m", "0m", "1h0s", "10m0s", "24h"] {
            assert!(crd_duration(ok), "{ok}");
        }
        for bad in ["-1h", "1s", "1h30", "m", "h", "1.5h", "", "0s", "30m1h"] {
            assert!(!crd_duration(bad), "{bad}");
        }
        for ok in ["0", "5", "0%", "10%", "100%", "99%"] {
            assert!(crd_nodes(ok), "{ok}");
        }
        for bad in ["101%", "-1", "1000%", "%", "", "a"] {
            assert!(!crd_nodes(bad), "{bad}");
        }
    }
}
