//! The precedence merge of [`super::complete`]: one pass per (type, NodeClass variant).

use std::collections::{BTreeMap, BTreeSet};

use super::aws::{self, CapacitySettings};
use super::nodeclass::{self, NodeClassShape};
use crate::snapshot::{InstanceType, Offering, Resources, Snapshot, StringMap};

const INSTANCE_TYPE: &str = "node.kubernetes.io/instance-type";
const ZONE: &str = "topology.kubernetes.io/zone";
const CAPACITY_TYPE: &str = "karpenter.sh/capacity-type";
const NODE_CLASS_LABEL: &str = "karpenter.k8s.aws/ec2nodeclass";

/// Where a figure came from (the tag written into `sources` and `Offering::source`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Source {
    /// A NodeClaim's `status.capacity`/`allocatable` (Karpenter's own figures for the type).
    NodeClaim,
    /// A Node's `status.capacity`/`allocatable` and labels (the kubelet's real figures).
    Node,
    /// Karpenter's `/metrics` (price and availability per offering; cpu and raw memory).
    Metrics,
    /// The embedded AWS catalogue and the provider's formulas.
    AwsCatalogue,
    /// The embedded static on-demand price list.
    StaticPrice,
    /// A guess: spot priced at on-demand, as Karpenter does before its first spot refresh.
    Estimate,
}

impl Source {
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Source::NodeClaim => "nodeclaim",
            Source::Node => "node",
            Source::Metrics => "metrics",
            Source::AwsCatalogue => "aws-catalogue",
            Source::StaticPrice => "aws-static-price",
            Source::Estimate => "estimate",
        }
    }
}

/// Counts behind the findings.
#[derive(Debug, Default)]
struct Tally {
    from_catalogue: usize,
    static_prices: usize,
    spot_estimates: usize,
    region_fallback: Option<String>,
    no_pods: BTreeSet<String>,
    no_price: BTreeSet<String>,
    no_zone: BTreeSet<String>,
    /// Types without a static price in the region: Karpenter offers them nowhere
    /// (`offering/base_resolver.go`: an offering without a price is unavailable).
    not_offered: BTreeSet<String>,
}

pub(super) struct Builder<'s> {
    snapshot: &'s Snapshot,
    settings: CapacitySettings,
    aws: bool,
    region: Option<String>,
    /// Whether an `InstanceTypes` document (with pods) is the catalogue.
    document: bool,
    /// Shapes of the NodeClasses the pools use, by name; `None` key = the default shape.
    shapes: BTreeMap<Option<String>, NodeClassShape>,
    /// Zones per variant (the NodeClasses' subnets), else every node's zone.
    zones: BTreeMap<Option<String>, BTreeSet<String>>,
    types: BTreeMap<(String, Option<String>), InstanceType>,
    tally: Tally,
    /// Positions of the NodeClaims and Nodes of each instance type (one pass, not one per type).
    claims_of: BTreeMap<&'s str, Vec<usize>>,
    nodes_of: BTreeMap<&'s str, Vec<usize>>,
}

impl<'s> Builder<'s> {
    pub(super) fn new(snapshot: &'s Snapshot, settings: CapacitySettings) -> Self {
        let document = snapshot.instance_types.iter().any(|it| it.capacity.contains_key("pods"));
        let node_zones = super::node_zones(snapshot);
        let mut shapes: BTreeMap<Option<String>, NodeClassShape> = BTreeMap::new();
        let mut zones: BTreeMap<Option<String>, BTreeSet<String>> = BTreeMap::new();
        shapes.insert(None, NodeClassShape::default());
        for class in &snapshot.node_classes {
            let shape = NodeClassShape::of(class);
            let key = (!shape.is_default()).then(|| class.metadata.name.clone());
            zones.entry(key.clone()).or_default().extend(nodeclass::zones(class));
            shapes.insert(key, shape);
        }
        for z in zones.values_mut() {
            if z.is_empty() {
                z.clone_from(&node_zones);
            }
        }
        zones.entry(None).or_insert(node_zones);
        let mut claims_of: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, c) in snapshot.node_claims.iter().enumerate() {
            if let Some(t) = c.metadata.labels.get(INSTANCE_TYPE) {
                claims_of.entry(t.as_str()).or_default().push(i);
            }
        }
        let mut nodes_of: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (i, n) in snapshot.nodes.iter().enumerate() {
            if let Some(t) = n.metadata.labels.get(INSTANCE_TYPE) {
                nodes_of.entry(t.as_str()).or_default().push(i);
            }
        }
        Builder {
            claims_of,
            nodes_of,
            snapshot,
            settings,
            aws: super::is_aws(snapshot),
            region: super::region(snapshot),
            document,
            shapes,
            zones,
            types: BTreeMap::new(),
            tally: Tally::default(),
        }
    }

    /// The variant a NodeClass name stands for.
    fn variant_of(&self, class: Option<&str>) -> Option<String> {
        class.map(str::to_owned).filter(|c| self.shapes.contains_key(&Some(c.clone())))
    }

    pub(super) fn fill(&mut self) {
        if self.document {
            // The document is the catalogue, NodeClass variants included (a type may be listed
            // once per variant: keyed by name alone, all but one would be lost).
            let snapshot = self.snapshot;
            for it in &snapshot.instance_types {
                self.check(it);
                self.types.insert((it.name.clone(), it.node_class.clone()), it.clone());
            }
            return;
        }
        let existing: BTreeMap<&str, &InstanceType> =
            self.snapshot.instance_types.iter().map(|it| (it.name.as_str(), it)).collect();
        let mut names: BTreeSet<String> = existing.keys().map(|n| (*n).to_owned()).collect();
        if !self.document {
            let labelled = self.snapshot.nodes.iter().map(|n| &n.metadata.labels);
            let claimed = self.snapshot.node_claims.iter().map(|c| &c.metadata.labels);
            names.extend(labelled.chain(claimed).filter_map(|l| l.get(INSTANCE_TYPE).cloned()));
            if existing.is_empty() && self.aws {
                names.extend(aws::catalogue().keys().cloned());
            }
        }
        let variants: Vec<Option<String>> =
            if self.document { vec![None] } else { self.shapes.keys().cloned().collect() };
        for name in &names {
            for variant in &variants {
                let mut it = existing
                    .get(name.as_str())
                    .map_or_else(|| InstanceType { name: name.clone(), ..InstanceType::default() }, |e| (*e).clone());
                if variant.is_some() {
                    if !aws::catalogue().contains_key(name) {
                        continue;
                    }
                    it.node_class.clone_from(variant);
                }
                if !self.document {
                    self.fill_from_cluster(&mut it, variant.as_ref());
                    self.fill_from_catalogue(&mut it, variant.as_ref());
                }
                self.check(&it);
                self.types.insert((name.clone(), variant.clone()), it);
            }
        }
    }

    /// Source 2: a NodeClaim or Node of this type (and NodeClass variant).
    fn fill_from_cluster(&self, it: &mut InstanceType, variant: Option<&String>) {
        let claims = self.claims_of.get(it.name.as_str()).map(Vec::as_slice).unwrap_or_default();
        let nodes = self.nodes_of.get(it.name.as_str()).map(Vec::as_slice).unwrap_or_default();
        let claim = claims.iter().map(|&i| &self.snapshot.node_claims[i]).find(|c| {
            !c.status.capacity.is_empty()
                && self.variant_of(class_ref_name(c.spec.node_class_ref.as_ref())).as_ref() == variant
        });
        let matching: Vec<&crate::snapshot::Node> = nodes
            .iter()
            .map(|&i| &self.snapshot.nodes[i])
            .filter(|n| {
                let class = n.metadata.labels.get(NODE_CLASS_LABEL).map(String::as_str);
                !n.status.capacity.is_empty() && self.variant_of(class).as_ref() == variant
            })
            .collect();
        let node = matching.first().copied();
        // The provider knows the type: a running Node teaches it only its memory, the smallest
        // any Node of the type (and NodeClass) reports (aws `UpdateInstanceTypeCapacityFromNode`,
        // read back by `DefaultProvider.get`); cpu, pods and overhead stay the provider's formula.
        let catalogued = self.aws && aws::catalogue().contains_key(&it.name);
        if claim.is_none() && catalogued {
            if let Some(memory) = matching.iter().filter_map(|n| n.status.capacity.get("memory")).min() {
                fill_capacity(it, &Resources::from([("memory".to_owned(), *memory)]), Source::Node);
            }
        }
        let figures = claim
            .map(|c| (&c.status.capacity, &c.status.allocatable, &c.metadata.labels, super::Source::NodeClaim))
            .or_else(|| {
                node.filter(|_| !catalogued)
                    .map(|n| (&n.status.capacity, &n.status.allocatable, &n.metadata.labels, Source::Node))
            });
        if let Some((capacity, allocatable, labels, source)) = figures {
            fill_capacity(it, capacity, source);
            let overhead: Resources =
                capacity.iter().filter_map(|(k, c)| Some((k.clone(), c.minus(*allocatable.get(k)?)))).collect();
            fill_overhead(it, &overhead, source);
            let instance_labels = labels.iter().filter(|(k, _)| is_instance_label(k));
            fill_labels(it, instance_labels.map(|(k, v)| (k.clone(), v.clone())), source);
        }
        // Labels from a node of this type even when its status is empty (a young NodeClaim).
        if let Some(labels) = node.map(|n| &n.metadata.labels).or(claim.map(|c| &c.metadata.labels)) {
            let instance_labels = labels.iter().filter(|(k, _)| is_instance_label(k));
            fill_labels(it, instance_labels.map(|(k, v)| (k.clone(), v.clone())), Source::Node);
        }
    }

    /// Sources 3 and 4: the embedded AWS catalogue, then static prices when metrics had none.
    fn fill_from_catalogue(&mut self, it: &mut InstanceType, variant: Option<&String>) {
        let Some(facts) = self.aws.then(|| aws::catalogue().get(&it.name)).flatten() else {
            self.offerings_from_nodes(it);
            return;
        };
        let shape = self.shapes.get(&variant.cloned()).cloned().unwrap_or_default();
        let before = it.sources.get("pods").cloned();
        fill_capacity(it, &facts.capacity(&shape, &self.settings), Source::AwsCatalogue);
        fill_overhead(it, &facts.overhead(&shape, &self.settings), Source::AwsCatalogue);
        fill_labels(it, facts.requirement_labels(self.region.as_deref()), Source::AwsCatalogue);
        if before.is_none() && it.sources.get("pods").map(String::as_str) == Some(Source::AwsCatalogue.as_str()) {
            self.tally.from_catalogue += usize::from(variant.is_none());
        }
        if !it.offerings.is_empty() {
            return;
        }
        let region = self.region.clone().unwrap_or_else(|| aws::FALLBACK_REGION.to_owned());
        let Some((price, fallback)) = facts.on_demand_price(&region) else {
            self.tally.not_offered.insert(it.name.clone());
            self.offerings_from_nodes(it);
            return;
        };
        if fallback {
            self.tally.region_fallback = Some(region);
        }
        let zones = self.zones.get(&variant.cloned()).cloned().unwrap_or_default();
        for zone in &zones {
            for (capacity_type, source) in [("on-demand", Source::StaticPrice), ("spot", Source::Estimate)] {
                it.offerings.push(Offering {
                    zone: zone.clone(),
                    capacity_type: capacity_type.to_owned(),
                    price: Some(price),
                    source: Some(source.as_str().to_owned()),
                    ..Offering::default()
                });
            }
        }
        if variant.is_none() && !zones.is_empty() {
            self.tally.static_prices += 1;
            self.tally.spot_estimates += 1;
        }
    }

    /// Without any price source: the offerings existing nodes of the type show, unpriced.
    fn offerings_from_nodes(&self, it: &mut InstanceType) {
        if !it.offerings.is_empty() {
            return;
        }
        let mut seen = BTreeSet::new();
        let nodes = self.nodes_of.get(it.name.as_str()).map(Vec::as_slice).unwrap_or_default();
        for labels in nodes.iter().map(|&i| &self.snapshot.nodes[i].metadata.labels) {
            if let (Some(zone), Some(ct)) = (labels.get(ZONE), labels.get(CAPACITY_TYPE)) {
                if seen.insert((zone.clone(), ct.clone())) {
                    it.offerings.push(Offering {
                        zone: zone.clone(),
                        capacity_type: ct.clone(),
                        source: Some(Source::Node.as_str().to_owned()),
                        ..Offering::default()
                    });
                }
            }
        }
    }

    fn check(&mut self, it: &InstanceType) {
        if it.node_class.is_some() {
            return;
        }
        if !it.capacity.contains_key("pods") {
            self.tally.no_pods.insert(it.name.clone());
        }
        if it.offerings.is_empty() && !self.tally.not_offered.contains(&it.name) {
            self.tally.no_zone.insert(it.name.clone());
        } else if !it.offerings.is_empty() && it.offerings.iter().all(|o| o.price.is_none()) {
            self.tally.no_price.insert(it.name.clone());
        }
    }

    pub(super) fn findings(&self) -> super::Findings {
        let t = &self.tally;
        let mut out = Vec::new();
        let sample = |s: &BTreeSet<String>| crate::reason::abbreviate(&s.iter().cloned().collect::<Vec<_>>());
        if t.from_catalogue > 0 {
            let origin = aws::origin();
            out.push(format!(
                "capacity and overhead of {} instance types are Karpenter's pre-launch estimate, computed from the \
                 embedded AWS catalogue ({origin})",
                t.from_catalogue
            ));
        }
        if t.static_prices > 0 {
            out.push(format!(
                "prices of {} instance types are static on-demand list prices (Karpenter refreshes them from the \
                 Pricing API) and their spot prices are estimated at on-demand: pass --prices FILE or let the \
                 plugin read Karpenter's /metrics for real ones",
                t.static_prices
            ));
        }
        if let Some(region) = &t.region_fallback {
            out.push(format!(
                "no static prices ship for region {region}: us-east-1's are used, as Karpenter's pricing provider does"
            ));
        }
        if !t.no_pods.is_empty() {
            let provider = if self.aws {
                "the embedded AWS catalogue does not know them"
            } else {
                "no embedded catalogue for this cloud provider"
            };
            out.push(format!(
                "{} instance types have no pods capacity, overhead or requirement labels ({provider}; only nodes, \
                 NodeClaims and Karpenter's metrics were read): {}",
                t.no_pods.len(),
                sample(&t.no_pods)
            ));
        }
        if !t.no_price.is_empty() {
            out.push(format!(
                "prices are unknown for {} instance types: {}; pass --prices FILE",
                t.no_price.len(),
                sample(&t.no_price)
            ));
        }
        if !t.no_zone.is_empty() && !self.document {
            out.push(format!(
                "{} instance types have no offering (no zone is known from NodeClasses, nodes or metrics): {}",
                t.no_zone.len(),
                sample(&t.no_zone)
            ));
        }
        out
    }

    pub(super) fn finish(self) -> Vec<InstanceType> {
        // BTreeMap order: by name, the default variant (`None`) first.
        self.types.into_values().collect()
    }
}

fn class_ref_name(r: Option<&serde_json::Value>) -> Option<&str> {
    r.and_then(|r| r.get("name")).and_then(serde_json::Value::as_str)
}

/// Labels that describe the instance type itself (not the node, zone or pool).
fn is_instance_label(key: &str) -> bool {
    matches!(key, INSTANCE_TYPE | "kubernetes.io/arch" | "kubernetes.io/os" | "topology.kubernetes.io/region")
        || key.starts_with(aws::LABEL_PREFIX)
}

/// A figure is replaced only when absent or from a lower source (metrics' raw cpu/memory).
fn replaceable(it: &InstanceType, key: &str) -> bool {
    !it.capacity.contains_key(key) || it.sources.get(key).map(String::as_str) == Some(Source::Metrics.as_str())
}

fn fill_capacity(it: &mut InstanceType, from: &Resources, source: Source) {
    for (k, v) in from {
        if replaceable(it, k) {
            it.capacity.insert(k.clone(), *v);
            it.sources.insert(k.clone(), source.as_str().to_owned());
        }
    }
}

fn fill_overhead(it: &mut InstanceType, from: &Resources, source: Source) {
    let mut added = false;
    for (k, v) in from {
        if !it.overhead.contains_key(k) {
            it.overhead.insert(k.clone(), *v);
            added = true;
        }
    }
    if added {
        it.sources.entry("overhead".into()).or_insert_with(|| source.as_str().to_owned());
    }
}

fn fill_labels(it: &mut InstanceType, from: impl IntoIterator<Item = (String, String)>, source: Source) {
    let mut added = false;
    let labels: &mut StringMap = &mut it.labels;
    for (k, v) in from {
        if let std::collections::btree_map::Entry::Vacant(slot) = labels.entry(k) {
            slot.insert(v);
            added = true;
        }
    }
    if added {
        it.sources.entry("labels".into()).or_insert_with(|| source.as_str().to_owned());
    }
}
