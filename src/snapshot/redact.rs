//! `snapshot --redact`: the same cluster with every name and free-form value replaced, so a
//! snapshot can be attached to a public bug report.
//!
//! Owns the mapping, and the promise that it is consistent: one original name maps to one
//! replacement wherever it appears, so selectors still select, owner references, `nodeName`,
//! `providerID`, the `karpenter.sh/nodepool` label, claims and events still resolve, and the
//! replay of a redacted snapshot gives the same verdicts. Replacements are `{category}-{rank}`:
//! they keep the originals' order within a category, because the replay breaks ties by name
//! and UID (see [`redact`]). Names Kubernetes derives from other names (a ReplicaSet
//! `<deployment>-<hash>`, its pods `<replicaset>-…`) are rebuilt from their parts' replacements
//! ([`owners`], [`Redactor::rebuild_derived`]), so the owner the replay recovers from them is
//! the redacted one. Kept as they are: label and annotation keys, the values Karpenter
//! and the scheduler compare with instance types and prices (instance type, zone, region,
//! capacity type, arch, os, `karpenter.sh/*` labels, instance attributes), booleans, numbers
//! only under label keys that a `Gt`/`Lt` requirement compares, the `karpenter.sh/do-not-disrupt`
//! and `pod-deletion-cost` annotation values, quantities, times, and the well-known namespaces.
//! Free text (condition and event messages) keeps its words, with every name the snapshot knows
//! replaced; names it does not know stay visible there. Pure: no I/O.

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;

use k8s_openapi::api::core::v1::{
    Affinity, NodeSelector, NodeSelectorTerm, PodAffinityTerm, Toleration, TopologySpreadConstraint,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::{
    CapacityBuffer, Condition, Container, Event, HorizontalPodAutoscaler, InstanceType, Node, NodeClaim, NodePool,
    NodeSelectorRequirement, ObjectMeta, PersistentVolume, PersistentVolumeClaim, Pod, PodDisruptionBudget, PodSpec,
    PodTemplateObject, Snapshot, SnapshotInfo, StorageClass, StringMap, Taint, Workload,
};

/// Hex digits of a replacement.
const HASH_LEN: usize = 8;

/// Namespaces every cluster has: keeping them tells nothing and keeps system pods readable.
const KEPT_NAMESPACES: [&str; 4] = ["default", "kube-system", "kube-public", "kube-node-lease"];

/// Label keys whose values the replay compares with the catalogue and offerings.
const KEPT_VALUE_KEYS: [&str; 14] = [
    "node.kubernetes.io/instance-type",
    "beta.kubernetes.io/instance-type",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "topology.k8s.aws/zone-id",
    // The EBS CSI driver's zone key, which the AWS provider reads as topology.kubernetes.io/zone.
    "topology.ebs.csi.aws.com/zone",
    "kubernetes.io/arch",
    "kubernetes.io/os",
    "beta.kubernetes.io/arch",
    "beta.kubernetes.io/os",
    "karpenter.sh/capacity-type",
    "node.kubernetes.io/windows-build",
];

/// Label key prefixes whose values are kept (Karpenter's own labels, instance attributes).
const KEPT_VALUE_PREFIXES: [&str; 3] = ["karpenter.sh/", "karpenter.k8s.aws/instance-", "karpenter.azure.com/sku-"];

/// Label keys whose values are names of objects (or, for `pod-template-hash`, the part of
/// ReplicaSet names it is): they map like those names.
const NAME_VALUE_KEYS: [(&str, &str); 6] = [
    ("kubernetes.io/hostname", "node"),
    ("karpenter.sh/nodepool", "nodepool"),
    ("karpenter.k8s.aws/ec2nodeclass", "nodeclass"),
    ("karpenter.k8s.aws/capacity-reservation-id", "cr"),
    ("kubernetes.io/metadata.name", "ns"),
    (owners::POD_TEMPLATE_HASH, "hash"),
];

/// Returns a copy of `snapshot` with names and values replaced (see the module docs).
///
/// Replacements keep the order of the originals within each category (`node-0001` sorts before
/// `node-0002` as the originals did), so that every tie the replay breaks by name or UID (the
/// scheduling queue's `byCPUAndMemoryDescending` ends on the UID, candidates of equal savings
/// go by name) is broken the same way, and the redacted snapshot replays to the same verdicts.
/// A first pass only collects the names; the second replaces them.
pub fn redact(snapshot: &Snapshot) -> Snapshot {
    redact_with_names(snapshot).0
}

/// The replacements given out, by category (`node`, `nodeclaim`, `pod`, …) and original.
#[derive(Debug, Default)]
pub struct Replacements(HashMap<(String, String), String>);

impl Replacements {
    /// What `original` became in `category`, if it was replaced.
    pub fn get(&self, category: &str, original: &str) -> Option<&str> {
        self.0.get(&(category.to_owned(), original.to_owned())).map(String::as_str)
    }

    /// A `Kind/namespace/name` key (or `namespace/name` of `kind`) as the redacted snapshot
    /// spells it; a part that was not replaced (a kept namespace) stays as it was.
    pub fn object_key(&self, kind: &str, key: &str) -> String {
        let (kind, rest) = match key.split_once('/') {
            Some((head, rest)) if rest.contains('/') => (head, rest),
            _ => (kind, key),
        };
        let (namespace, name) = rest.split_once('/').unwrap_or(("", rest));
        let namespace = self.get("ns", namespace).unwrap_or(namespace);
        let name = self.get(kind_category(kind), name).unwrap_or(name);
        let object = if namespace.is_empty() { name.to_owned() } else { format!("{namespace}/{name}") };
        if rest == key {
            object
        } else {
            format!("{kind}/{object}")
        }
    }
}

/// [`redact`], and the replacements it made (for checks that compare the two replays).
pub fn redact_with_names(snapshot: &Snapshot) -> (Snapshot, Replacements) {
    let mut collected = snapshot.clone();
    let mut first = Redactor {
        collecting: Some(ByCategory::default()),
        numeric_keys: super::encode::numeric_keys(snapshot),
        derived: owners::DerivedNames::of(snapshot),
        ..Redactor::default()
    };
    first.snapshot(&mut collected);
    drop(collected);
    let mut r = Redactor::ordered(first.collecting.take().unwrap_or_default(), first.numeric_keys, first.derived);
    let mut out = snapshot.clone();
    r.snapshot(&mut out);
    let known = r.known_names();
    rewrite_messages(&mut out, &known);
    super::decode::sort(&mut out);
    let names = r
        .names
        .into_iter()
        .flat_map(|(category, names)| names.into_iter().map(move |(o, n)| ((category.clone(), o), n)))
        .collect();
    (out, Replacements(names))
}

/// `(namespace, <pod>-<volume>)` → `(pod, volume)` for every generic ephemeral volume: the
/// claims the ephemeral controller names after their pod.
fn ephemeral_claims(pods: &[super::Pod]) -> HashMap<(String, String), (String, String)> {
    let mut out = HashMap::new();
    for pod in pods {
        for volume in pod.spec.volumes.iter().filter(|v| v.ephemeral.is_some()) {
            let claim = format!("{}-{}", pod.metadata.name, volume.name);
            out.insert((pod.metadata.namespace().to_owned(), claim), (pod.metadata.name.clone(), volume.name.clone()));
        }
    }
    out
}

/// Category → originals (or original → replacement): looked up by `&str`, so asking for a
/// name already known allocates nothing.
type ByCategory<T> = foldhash::HashMap<String, T>;

/// The replacement table, filled as objects are visited.
#[derive(Default)]
pub(in crate::snapshot) struct Redactor {
    /// category → original → replacement.
    names: ByCategory<foldhash::HashMap<String, String>>,
    /// (category, replacement) already given out.
    used: HashSet<(String, String)>,
    /// The first pass: every (category, original) asked for; names are left as they are.
    collecting: Option<ByCategory<foldhash::HashSet<String>>>,
    /// Label keys that a `Gt`/`Lt` requirement compares as numbers: their numeric values stay.
    numeric_keys: HashSet<String>,
    /// The generic ephemeral volumes' claims ([`ephemeral_claims`] of the original pods).
    ephemeral: HashMap<(String, String), (String, String)>,
    /// ReplicaSet and pod names built from other names ([`owners::DerivedNames`]).
    derived: owners::DerivedNames,
}

impl Redactor {
    /// The replacement of `original` in `category` (`node`, `pod`, `ns`, …).
    fn name(&mut self, category: &str, original: &str) -> String {
        if original.is_empty() {
            return String::new();
        }
        if category == "ns" && KEPT_NAMESPACES.contains(&original) {
            return original.to_owned();
        }
        if self.collecting.is_some() {
            // The parts a derived name is rebuilt from get replacements of their own.
            if category == "rs" {
                if let Some((deployment, hash)) = self.derived.replica_set(original) {
                    let (deployment, hash) = (deployment.to_owned(), hash.to_owned());
                    self.name("deploy", &deployment);
                    self.name("hash", &hash);
                }
            }
            let collected = self.collecting.get_or_insert_with(ByCategory::default);
            let seen = match collected.get_mut(category) {
                Some(seen) => seen,
                None => collected.entry(category.to_owned()).or_default(),
            };
            if !seen.contains(original) {
                seen.insert(original.to_owned());
            }
            return original.to_owned();
        }
        if let Some(done) = self.names.get(category).and_then(|names| names.get(original)) {
            return done.clone();
        }
        let mut round = 0u32;
        let replacement = loop {
            let candidate = format!("{category}-{}", short_hash(category, original, round));
            if self.used.insert((category.to_owned(), candidate.clone())) {
                break candidate;
            }
            round += 1;
        };
        self.names.entry(category.to_owned()).or_default().insert(original.to_owned(), replacement.clone());
        replacement
    }

    /// The table for the second pass: in each category, the n-th original in sorted order gets
    /// `{category}-{n}`, zero-padded so that the replacements sort as the originals did.
    /// Namespaces keep the well-known ones, so theirs are placed in the gaps between them.
    /// Derived names are then rebuilt from their parts' replacements ([`Redactor::rebuild_derived`]).
    fn ordered(
        originals: ByCategory<foldhash::HashSet<String>>,
        numeric_keys: HashSet<String>,
        derived: owners::DerivedNames,
    ) -> Redactor {
        let mut r = Redactor { numeric_keys, derived, ..Redactor::default() };
        for (category, originals) in originals {
            let mut originals: Vec<String> = originals.into_iter().collect();
            originals.sort_unstable();
            let width = originals.len().to_string().len().max(4);
            let mut names = foldhash::HashMap::default();
            for (rank, original) in originals.into_iter().enumerate() {
                let replacement = if category == "ns" {
                    format!("{}ns-{rank:0width$}", namespace_gap(&original))
                } else {
                    format!("{category}-{rank:0width$}")
                };
                r.used.insert((category.clone(), replacement.clone()));
                names.insert(original, replacement);
            }
            r.names.insert(category, names);
        }
        r.rebuild_derived();
        r
    }

    /// A ReplicaSet `<deployment>-<hash>` becomes `<deployment's replacement>-<hash's>`, so
    /// that taking the redacted `pod-template-hash` off the redacted name gives the redacted
    /// Deployment, as it gave the original one. ReplicaSets may then sort otherwise than the
    /// originals did: nothing in the replay orders by a ReplicaSet's name.
    ///
    /// A pod `<replicaset>-<suffix>` becomes `<replicaset's replacement>-<its rank>`, but only
    /// when every pod still sorts as before: the scheduling queue breaks its last tie on the
    /// pod's name, and pods are otherwise replaced by rank.
    fn rebuild_derived(&mut self) {
        let mut rebuilt = Vec::new();
        for (original, plain) in self.names.get("rs").into_iter().flatten() {
            let Some((deployment, hash)) = self.derived.replica_set(original) else { continue };
            let part = |category: &str, name: &str| self.names.get(category).and_then(|names| names.get(name));
            if let (Some(deployment), Some(hash)) = (part("deploy", deployment), part("hash", hash)) {
                rebuilt.push((original.clone(), plain.clone(), format!("{deployment}-{hash}")));
            }
        }
        for (original, plain, replacement) in rebuilt {
            self.used.remove(&("rs".to_owned(), plain));
            self.used.insert(("rs".to_owned(), replacement.clone()));
            self.names.entry("rs".to_owned()).or_default().insert(original, replacement);
        }
        self.rebuild_pods();
    }

    /// See [`Redactor::rebuild_derived`].
    fn rebuild_pods(&mut self) {
        let Some(pods) = self.names.get("pod") else { return };
        let mut ordered: Vec<(&String, &String)> = pods.iter().collect();
        ordered.sort_unstable();
        let rs = self.names.get("rs");
        let width = ordered.len().to_string().len().max(4);
        let rebuilt: Vec<(String, String, String)> = ordered
            .iter()
            .enumerate()
            .map(|(rank, (original, plain))| {
                let owner = self.derived.pod(original).and_then(|owner| rs?.get(owner));
                let replacement = owner.map_or_else(|| (*plain).clone(), |owner| format!("{owner}-{rank:0width$}"));
                ((*original).clone(), (*plain).clone(), replacement)
            })
            .collect();
        if !rebuilt.windows(2).all(|w| w[0].2 < w[1].2) {
            return;
        }
        for (original, plain, replacement) in rebuilt.into_iter().filter(|(_, plain, new)| plain != new) {
            self.used.remove(&("pod".to_owned(), plain));
            self.used.insert(("pod".to_owned(), replacement.clone()));
            self.names.entry("pod".to_owned()).or_default().insert(original, replacement);
        }
    }

    fn names_in(&mut self, category: &str, names: &mut [String]) {
        for name in names {
            *name = self.name(category, name);
        }
    }

    /// A label value under `key`: kept, mapped like a name, or hashed.
    fn label_value(&mut self, key: &str, value: &str) -> String {
        if let Some((_, category)) = NAME_VALUE_KEYS.iter().find(|(k, _)| *k == key) {
            return self.name(category, value);
        }
        if keeps_value(key) || is_flag(value) || (self.numeric_keys.contains(key) && value.parse::<i64>().is_ok()) {
            return value.to_owned();
        }
        self.name("v", value)
    }

    fn labels(&mut self, labels: &mut StringMap) {
        for (key, value) in labels.iter_mut() {
            *value = self.label_value(key, value);
        }
    }

    fn annotations(&mut self, annotations: &mut StringMap) {
        for (key, value) in annotations.iter_mut() {
            // The replay reads these two: do-not-disrupt (`true` or a duration) and the cost.
            let kept = key == "karpenter.sh/do-not-disrupt" || key == "controller.kubernetes.io/pod-deletion-cost";
            if !kept && !is_flag(value) {
                *value = self.name("v", value);
            }
        }
    }

    fn meta(&mut self, category: &str, meta: &mut ObjectMeta) {
        meta.name = self.name(category, &meta.name);
        if let Some(ns) = &mut meta.namespace {
            *ns = self.name("ns", ns);
        }
        meta.uid = self.name("uid", &meta.uid);
        self.labels(&mut meta.labels);
        self.annotations(&mut meta.annotations);
        for owner in &mut meta.owner_references {
            owner.name = self.name(kind_category(&owner.kind), &owner.name);
            owner.uid = self.name("uid", &owner.uid);
        }
    }

    /// `aws:///us-east-1a/i-0abc` → `aws:///id-…/id-…`: the scheme stays, each segment maps.
    fn provider_id(&mut self, id: &mut String) {
        let (scheme, rest) = id.split_once("://").unwrap_or(("", id.as_str()));
        let segments: Vec<String> = rest.split('/').map(str::to_owned).collect();
        let mapped: Vec<String> = segments.iter().map(|s| self.name("id", s)).collect();
        *id = if scheme.is_empty() { mapped.join("/") } else { format!("{scheme}://{}", mapped.join("/")) };
    }

    fn selector(&mut self, selector: &mut LabelSelector) {
        if let Some(labels) = &mut selector.match_labels {
            self.labels(labels);
        }
        for expression in selector.match_expressions.iter_mut().flatten() {
            for value in expression.values.iter_mut().flatten() {
                *value = self.label_value(&expression.key, value);
            }
        }
    }

    fn node_selector_term(&mut self, term: &mut NodeSelectorTerm) {
        for expression in term.match_expressions.iter_mut().flatten() {
            for value in expression.values.iter_mut().flatten() {
                *value = self.label_value(&expression.key, value);
            }
        }
        for field in term.match_fields.iter_mut().flatten() {
            let category = if field.key == "metadata.name" { "node" } else { "v" };
            for value in field.values.iter_mut().flatten() {
                *value = self.name(category, value);
            }
        }
    }

    fn node_selector(&mut self, selector: &mut NodeSelector) {
        for term in &mut selector.node_selector_terms {
            self.node_selector_term(term);
        }
    }

    fn pod_affinity_term(&mut self, term: &mut PodAffinityTerm) {
        if let Some(selector) = &mut term.label_selector {
            self.selector(selector);
        }
        if let Some(selector) = &mut term.namespace_selector {
            self.selector(selector);
        }
        if let Some(namespaces) = &mut term.namespaces {
            self.names_in("ns", namespaces);
        }
    }

    fn affinity(&mut self, affinity: &mut Affinity) {
        if let Some(node) = &mut affinity.node_affinity {
            if let Some(required) = &mut node.required_during_scheduling_ignored_during_execution {
                self.node_selector(required);
            }
            for preferred in node.preferred_during_scheduling_ignored_during_execution.iter_mut().flatten() {
                self.node_selector_term(&mut preferred.preference);
            }
        }
        let pod_terms = [
            affinity.pod_affinity.as_mut().map(|a| {
                (
                    &mut a.required_during_scheduling_ignored_during_execution,
                    &mut a.preferred_during_scheduling_ignored_during_execution,
                )
            }),
            affinity.pod_anti_affinity.as_mut().map(|a| {
                (
                    &mut a.required_during_scheduling_ignored_during_execution,
                    &mut a.preferred_during_scheduling_ignored_during_execution,
                )
            }),
        ];
        for (required, preferred) in pod_terms.into_iter().flatten() {
            for term in required.iter_mut().flatten() {
                self.pod_affinity_term(term);
            }
            for weighted in preferred.iter_mut().flatten() {
                self.pod_affinity_term(&mut weighted.pod_affinity_term);
            }
        }
    }

    fn toleration(&mut self, toleration: &mut Toleration) {
        if let (Some(key), Some(value)) = (&toleration.key, &mut toleration.value) {
            *value = self.label_value(key, value);
        }
    }

    fn spread(&mut self, constraint: &mut TopologySpreadConstraint) {
        if let Some(selector) = &mut constraint.label_selector {
            self.selector(selector);
        }
    }

    fn taints(&mut self, taints: &mut [Taint]) {
        for taint in taints {
            if let Some(value) = &mut taint.value {
                *value = self.label_value(&taint.key, value);
            }
        }
    }

    fn requirements(&mut self, requirements: &mut [NodeSelectorRequirement]) {
        for requirement in requirements {
            for value in &mut requirement.values {
                *value = self.label_value(&requirement.key, value);
            }
        }
    }

    fn container(&mut self, container: &mut Container) {
        container.name = self.name("container", &container.name);
        for port in &mut container.ports {
            if let Some(ip) = &mut port.host_ip {
                if !matches!(ip.as_str(), "" | "0.0.0.0" | "::" | "127.0.0.1") {
                    *ip = self.name("ip", ip);
                }
            }
        }
        // Hashed as the pod's `resourceClaims` strings are (`value`), so a claim still names
        // the pod's entry after redaction.
        for claim in &mut container.resources.claims {
            if !is_flag(&claim.name) {
                claim.name = self.name("v", &claim.name);
            }
            if let Some(request) = claim.request.as_mut().filter(|r| !is_flag(r)) {
                *request = self.name("v", request);
            }
        }
        for env in &mut container.env {
            if env.name != "FEATURE_GATES" {
                if let Some(value) = &mut env.value {
                    *value = self.name("v", value);
                }
            }
        }
    }

    fn pod_spec(&mut self, spec: &mut PodSpec) {
        if let Some(node) = &mut spec.node_name {
            *node = self.name("node", node);
        }
        self.labels(&mut spec.node_selector);
        if let Some(affinity) = &mut spec.affinity {
            self.affinity(affinity);
        }
        for toleration in &mut spec.tolerations {
            self.toleration(toleration);
        }
        for constraint in &mut spec.topology_spread_constraints {
            self.spread(constraint);
        }
        if let Some(class) = &mut spec.priority_class_name {
            if !class.starts_with("system-") {
                *class = self.name("priorityclass", class);
            }
        }
        for container in spec.containers.iter_mut().chain(spec.init_containers.iter_mut()) {
            self.container(container);
        }
        for volume in &mut spec.volumes {
            volume.name = self.name("vol", &volume.name);
            if let Some(claim) = &mut volume.persistent_volume_claim {
                claim.claim_name = self.name("pvc", &claim.claim_name);
            }
            let template = volume.ephemeral.as_mut().and_then(|e| e.volume_claim_template.as_mut());
            if let Some(class) = template.and_then(|t| t.spec.storage_class_name.as_mut()) {
                *class = self.name("sc", class);
            }
        }
        for claim in &mut spec.resource_claims {
            self.value(claim);
        }
    }

    /// Untyped fields we keep whole: every string in them is hashed.
    fn value(&mut self, value: &mut Value) {
        match value {
            Value::String(s) if !is_flag(s) => *s = self.name("v", s),
            Value::Array(items) => items.iter_mut().for_each(|v| self.value(v)),
            Value::Object(map) => map.values_mut().for_each(|v| self.value(v)),
            _ => {}
        }
    }

    fn node_class_ref(&mut self, reference: &mut Value) {
        if let Some(Value::String(name)) = reference.get_mut("name") {
            *name = self.name("nodeclass", name);
        }
    }

    fn node(&mut self, node: &mut Node) {
        self.meta("node", &mut node.metadata);
        if let Some(id) = &mut node.spec.provider_id {
            self.provider_id(id);
        }
        self.taints(&mut node.spec.taints);
    }

    fn pod(&mut self, pod: &mut Pod) {
        self.meta("pod", &mut pod.metadata);
        self.pod_spec(&mut pod.spec);
        if let Some(node) = &mut pod.status.nominated_node_name {
            *node = self.name("node", node);
        }
        // Renamed as the containers are, so each status still names its container.
        let status = &mut pod.status;
        let lists = status.container_statuses.iter_mut().chain(status.init_container_statuses.iter_mut());
        for container in lists.flat_map(|l| l.iter_mut()) {
            container.name = self.name("container", &container.name);
        }
    }

    fn workload(&mut self, category: &str, workload: &mut Workload) {
        self.meta(category, &mut workload.metadata);
        if let Some(selector) = &mut workload.spec.selector {
            self.selector(selector);
        }
        self.meta("pod", &mut workload.spec.template.metadata);
        self.pod_spec(&mut workload.spec.template.spec);
    }

    fn node_pool(&mut self, pool: &mut NodePool) {
        self.meta("nodepool", &mut pool.metadata);
        let template = &mut pool.spec.template;
        self.labels(&mut template.metadata.labels);
        self.annotations(&mut template.metadata.annotations);
        self.requirements(&mut template.spec.requirements);
        self.taints(&mut template.spec.taints);
        self.taints(&mut template.spec.startup_taints);
        if let Some(reference) = &mut template.spec.node_class_ref {
            self.node_class_ref(reference);
        }
    }

    fn node_claim(&mut self, claim: &mut NodeClaim) {
        self.meta("nodeclaim", &mut claim.metadata);
        self.requirements(&mut claim.spec.requirements);
        self.taints(&mut claim.spec.taints);
        self.taints(&mut claim.spec.startup_taints);
        if let Some(reference) = &mut claim.spec.node_class_ref {
            self.node_class_ref(reference);
        }
        if let Some(node) = &mut claim.status.node_name {
            *node = self.name("node", node);
        }
        if let Some(id) = &mut claim.status.provider_id {
            self.provider_id(id);
        }
    }

    /// A metric's `nodepool` label is a NodePool name; `build_info`'s labels and every other
    /// label (reasons, decisions, codes) are Karpenter's own words and stay.
    fn disruption_metrics(&mut self, metrics: &mut crate::snapshot::DisruptionMetrics) {
        for sample in &mut metrics.samples {
            if let Some(pool) = sample.labels.get_mut("nodepool") {
                *pool = self.name("nodepool", pool);
            }
        }
        metrics.sort();
    }

    fn event(&mut self, event: &mut Event) {
        self.meta("event", &mut event.metadata);
        let involved = &mut event.involved_object;
        involved.name = self.name(kind_category(&involved.kind), &involved.name);
        if let Some(ns) = &mut involved.namespace {
            *ns = self.name("ns", ns);
        }
    }

    /// An EC2NodeClass keeps only what shapes capacity (AMI family or alias, kubelet, block
    /// device sizes, EFA-only interfaces) and its subnets' zones: roles, tags, selector terms
    /// and IDs go. Its name is hashed as every `nodeClassRef` to it is; the settings stay.
    fn node_class(&mut self, class: &mut crate::snapshot::NodeClass) {
        self.meta("nodeclass", &mut class.metadata);
        let mut spec = serde_json::Map::new();
        for key in ["amiFamily", "kubelet", "networkInterfaces"] {
            if let Some(v) = class.spec.get(key) {
                spec.insert(key.to_owned(), v.clone());
            }
        }
        if let Some(Value::Array(mappings)) = class.spec.get("blockDeviceMappings") {
            // Sizes only: snapshot and KMS key IDs are the account's.
            let sizes: Vec<Value> = mappings
                .iter()
                .map(|m| {
                    serde_json::json!({"deviceName": m.get("deviceName"), "rootVolume": m.get("rootVolume"),
                                       "ebs": {"volumeSize": m.pointer("/ebs/volumeSize")}})
                })
                .collect();
            spec.insert("blockDeviceMappings".to_owned(), Value::Array(sizes));
        }
        if let Some(Value::Array(terms)) = class.spec.get("amiSelectorTerms") {
            let aliases: Vec<Value> = terms
                .iter()
                .filter_map(|t| t.get("alias").cloned())
                .map(|alias| serde_json::json!({"alias": alias}))
                .collect();
            spec.insert("amiSelectorTerms".to_owned(), Value::Array(aliases));
        }
        class.spec = Value::Object(spec);
        let zones: Vec<Value> = class
            .status
            .get("subnets")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|subnet| subnet.get("zone").cloned())
            .map(|zone| serde_json::json!({"zone": zone}))
            .collect();
        class.status = if zones.is_empty() { Value::Null } else { serde_json::json!({"subnets": zones}) };
    }

    fn instance_type(&mut self, it: &mut InstanceType) {
        for offering in &mut it.offerings {
            if let Some(id) = &mut offering.reservation_id {
                *id = self.name("cr", id);
            }
        }
    }

    fn snapshot(&mut self, s: &mut Snapshot) {
        redact_info(&mut s.info);
        s.node_pools.iter_mut().for_each(|p| self.node_pool(p));
        if let Some(m) = &mut s.disruption_metrics {
            self.disruption_metrics(m);
        }
        s.nodes.iter_mut().for_each(|n| self.node(n));
        s.node_claims.iter_mut().for_each(|c| self.node_claim(c));
        s.instance_types.iter_mut().for_each(|it| self.instance_type(it));
        s.node_classes.iter_mut().for_each(|c| self.node_class(c));
        for it in &mut s.instance_types {
            self.instance_type_class(it);
        }
        self.ephemeral = ephemeral_claims(&s.pods);
        s.pods.iter_mut().for_each(|p| self.pod(p));
        s.pdbs.iter_mut().for_each(|b| self.pdb(b));
        s.daemon_sets.iter_mut().for_each(|w| self.workload("ds", w));
        s.replica_sets.iter_mut().for_each(|w| self.workload("rs", w));
        s.deployments.iter_mut().for_each(|w| self.workload("deploy", w));
        s.stateful_sets.iter_mut().for_each(|w| self.workload("sts", w));
        s.hpas.iter_mut().for_each(|h| self.hpa(h));
        s.pvcs.iter_mut().for_each(|c| self.pvc(c));
        s.pvs.iter_mut().for_each(|v| self.pv(v));
        s.storage_classes.iter_mut().for_each(|c| self.storage_class(c));
        s.csi_nodes.iter_mut().for_each(|c| self.meta("node", &mut c.metadata));
        s.capacity_buffers.iter_mut().for_each(|b| self.capacity_buffer(b));
        s.pod_templates.iter_mut().for_each(|t| self.pod_template(t));
        s.events.iter_mut().for_each(|e| self.event(e));
    }

    fn instance_type_class(&mut self, it: &mut InstanceType) {
        if let Some(class) = &mut it.node_class {
            *class = self.name("nodeclass", class);
        }
    }

    fn pdb(&mut self, pdb: &mut PodDisruptionBudget) {
        self.meta("pdb", &mut pdb.metadata);
        if let Some(selector) = &mut pdb.spec.selector {
            self.selector(selector);
        }
    }

    fn capacity_buffer(&mut self, buffer: &mut CapacityBuffer) {
        self.meta("capacitybuffer", &mut buffer.metadata);
        if let Some(reference) = &mut buffer.spec.pod_template_ref {
            reference.name = self.name("podtemplate", &reference.name);
        }
        if let Some(reference) = &mut buffer.spec.scalable_ref {
            reference.name = self.name(kind_category(&reference.kind), &reference.name);
        }
    }

    fn pod_template(&mut self, template: &mut PodTemplateObject) {
        self.meta("podtemplate", &mut template.metadata);
        self.meta("pod", &mut template.template.metadata);
        self.pod_spec(&mut template.template.spec);
    }

    fn hpa(&mut self, hpa: &mut HorizontalPodAutoscaler) {
        self.meta("hpa", &mut hpa.metadata);
        let target = &mut hpa.spec.scale_target_ref;
        target.name = self.name(kind_category(&target.kind), &target.name);
    }

    fn pvc(&mut self, pvc: &mut PersistentVolumeClaim) {
        let owner = self.ephemeral.get(&(pvc.metadata.namespace().to_owned(), pvc.metadata.name.clone())).cloned();
        self.meta("pvc", &mut pvc.metadata);
        // A generic ephemeral volume's claim is `<pod>-<volume>`: keep it named after both.
        if let Some((pod, volume)) = owner {
            pvc.metadata.name = format!("{}-{}", self.name("pod", &pod), self.name("vol", &volume));
        }
        if let Some(volume) = &mut pvc.spec.volume_name {
            *volume = self.name("pv", volume);
        }
        if let Some(class) = &mut pvc.spec.storage_class_name {
            *class = self.name("sc", class);
        }
    }

    fn pv(&mut self, pv: &mut PersistentVolume) {
        self.meta("pv", &mut pv.metadata);
        if let Some(required) = pv.spec.node_affinity.as_mut().and_then(|a| a.required.as_mut()) {
            self.node_selector(required);
        }
        if let Some(class) = &mut pv.spec.storage_class_name {
            *class = self.name("sc", class);
        }
        for source in
            [&mut pv.spec.local, &mut pv.spec.host_path, &mut pv.spec.aws_elastic_block_store].into_iter().flatten()
        {
            self.value(source);
        }
    }

    fn storage_class(&mut self, class: &mut StorageClass) {
        self.meta("sc", &mut class.metadata);
        for term in &mut class.allowed_topologies {
            for expression in term.match_label_expressions.iter_mut().flatten() {
                for value in &mut expression.values {
                    *value = self.label_value(&expression.key, value);
                }
            }
        }
    }

    /// Every original name seen → its replacement (label values included), for free text.
    fn known_names(&self) -> HashMap<String, String> {
        let mut known = HashMap::new();
        let mut entries: Vec<(&String, &String, &String)> = self
            .names
            .iter()
            .flat_map(|(category, names)| names.iter().map(move |(original, new)| (category, original, new)))
            .collect();
        entries.sort_by(|a, b| (category_rank(a.0), a.0, a.1).cmp(&(category_rank(b.0), b.0, b.1)));
        for (_, original, replacement) in entries {
            known.entry(original.clone()).or_insert_with(|| replacement.clone());
        }
        known
    }
}

/// Object names win over label values when one word is both.
fn category_rank(category: &str) -> u8 {
    match category {
        "node" | "pod" | "nodeclaim" | "nodepool" => 0,
        "v" | "uid" | "id" => 2,
        _ => 1,
    }
}

/// The category of a name by the kind that owns it.
fn kind_category(kind: &str) -> &'static str {
    match kind {
        "Node" => "node",
        "Pod" => "pod",
        "Namespace" => "ns",
        "NodePool" => "nodepool",
        "NodeClaim" => "nodeclaim",
        "PodDisruptionBudget" => "pdb",
        "DaemonSet" => "ds",
        "ReplicaSet" => "rs",
        "Deployment" => "deploy",
        "StatefulSet" => "sts",
        "HorizontalPodAutoscaler" => "hpa",
        "CapacityBuffer" => "capacitybuffer",
        "PodTemplate" => "podtemplate",
        "PersistentVolumeClaim" => "pvc",
        "PersistentVolume" => "pv",
        "StorageClass" => "sc",
        "Job" => "job",
        "CronJob" => "cronjob",
        "EC2NodeClass" | "AKSNodeClass" | "GCENodeClass" => "nodeclass",
        _ => "obj",
    }
}

fn keeps_value(key: &str) -> bool {
    KEPT_VALUE_KEYS.contains(&key) || KEPT_VALUE_PREFIXES.iter().any(|p| key.starts_with(p))
}

/// Empty strings and booleans identify nothing. Numbers can (an AWS account id), so they are
/// kept only under keys a `Gt`/`Lt` compares (see [`super::encode::numeric_keys`]).
fn is_flag(value: &str) -> bool {
    value.is_empty() || matches!(value, "true" | "false" | "True" | "False")
}

/// The prefix that places a redacted namespace between the kept ones around its original:
/// before `default` → `d-`, between `default` and `kube-node-lease` → `default-`, and so on
/// (`-` sorts before every letter and digit).
fn namespace_gap(original: &str) -> String {
    let mut kept = KEPT_NAMESPACES;
    kept.sort_unstable();
    match kept.iter().rev().find(|k| **k < original) {
        Some(before) => format!("{before}-"),
        None => format!("{}-", &kept[0][..1]),
    }
}

fn short_hash(category: &str, original: &str, round: u32) -> String {
    let mut hasher = Sha256::new();
    hasher.update(category.as_bytes());
    hasher.update([0]);
    hasher.update(original.as_bytes());
    if round > 0 {
        hasher.update([0]);
        hasher.update(round.to_be_bytes());
    }
    let digest = hasher.finalize();
    let mut hex = String::with_capacity(HASH_LEN);
    for byte in digest.iter().take(HASH_LEN / 2) {
        let _ = write!(hex, "{byte:02x}");
    }
    hex
}

/// Replaces every known name in free text, word by word (`[A-Za-z0-9._-]` runs).
fn rewrite_text(text: &str, known: &HashMap<String, String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let trimmed = word.trim_end_matches('.');
        match known.get(word.as_str()) {
            Some(replacement) => out.push_str(replacement),
            None => match known.get(trimmed) {
                Some(replacement) => {
                    out.push_str(replacement);
                    out.push_str(&word[trimmed.len()..]);
                }
                None => out.push_str(word),
            },
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// An `unread` reason keeps only its first part, before any `:` (the rest is the server's text).
fn redact_info(info: &mut SnapshotInfo) {
    for unread in &mut info.unread {
        let status = unread.reason.split(':').next().unwrap_or_default().trim();
        unread.reason = status.to_owned();
    }
}

fn rewrite_conditions(conditions: &mut [Condition], known: &HashMap<String, String>) {
    for Condition { message, .. } in conditions {
        if let Some(text) = message {
            *text = rewrite_text(text, known);
        }
    }
}

fn rewrite_messages(s: &mut Snapshot, known: &HashMap<String, String>) {
    let conditions = s
        .nodes
        .iter_mut()
        .flat_map(|n| n.status.conditions.iter_mut())
        .chain(s.pods.iter_mut().flat_map(|p| p.status.conditions.iter_mut()))
        .chain(s.node_pools.iter_mut().flat_map(|p| p.status.conditions.iter_mut()))
        .chain(s.node_claims.iter_mut().flat_map(|c| c.status.conditions.iter_mut()));
    for Condition { message, .. } in conditions {
        if let Some(text) = message {
            *text = rewrite_text(text, known);
        }
    }
    for event in &mut s.events {
        event.message = rewrite_text(&event.message, known);
    }
}

pub(super) mod objects;
mod owners;
#[cfg(test)]
mod tests;
