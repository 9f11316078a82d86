//! The instance types Karpenter would consider, completed from every source the snapshot has.
//!
//! Owns filling `Snapshot::instance_types` before the replay, figure by figure, from these
//! sources in precedence order (each figure tagged in `InstanceType::sources`/`Offering::source`):
//!
//! 1. an `InstanceTypes` document (the snapshot's own or `--prices FILE`): untagged, never changed;
//! 2. Nodes and NodeClaims of the type: NodeClaim `status.capacity`/`allocatable` (Karpenter's
//!    own figures), else the Node's, and the node's instance labels;
//! 3. the embedded AWS catalogue ([`aws`]), shaped by the pool's EC2NodeClass and Karpenter's
//!    `VM_MEMORY_OVERHEAD_PERCENT`/`RESERVED_ENIS`, with static on-demand prices;
//! 4. Karpenter's metrics: prices and availability per offering (always preferred to static
//!    prices), and cpu/memory for types the embedded catalogue does not know. Their memory is
//!    the raw EC2 figure (no VM overhead), which is why the catalogue's formula ranks above it.
//!
//! Which types exist: the document's when there is one; else those Karpenter's metrics name
//! (what `GetInstanceTypes` returned), else (a plain `kubectl get` capture) every type of the
//! embedded catalogue; plus, without a document, the types of existing nodes. Pure: reads the
//! snapshot, writes the snapshot, no I/O.

pub(crate) mod aws;
pub(crate) mod nodeclass;
mod sources;

use std::collections::{BTreeMap, BTreeSet};

pub(crate) use aws::CapacitySettings;
pub(crate) use sources::Source;

use crate::snapshot::Snapshot;

/// What the catalogue had to estimate or could not find: one line each, for warnings and for
/// the `Uncertain` reasons of every verdict.
pub(crate) type Findings = Vec<String>;

/// Completes the snapshot's instance types in place; returns what is estimated or missing.
pub(crate) fn complete(snapshot: &mut Snapshot, settings: &CapacitySettings) -> Findings {
    let mut builder = sources::Builder::new(snapshot, *settings);
    builder.fill();
    let findings = builder.findings();
    let types = builder.finish();
    snapshot.instance_types = types;
    findings
}

/// The zones of every node and NodeClaim in the snapshot (for offerings when no NodeClass says).
fn node_zones(snapshot: &Snapshot) -> BTreeSet<String> {
    snapshot
        .nodes
        .iter()
        .map(|n| &n.metadata.labels)
        .chain(snapshot.node_claims.iter().map(|c| &c.metadata.labels))
        .filter_map(|l| l.get("topology.kubernetes.io/zone").cloned())
        .collect()
}

/// The region most nodes are labelled with.
fn region(snapshot: &Snapshot) -> Option<String> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for labels in snapshot.nodes.iter().map(|n| &n.metadata.labels) {
        if let Some(r) = labels.get("topology.kubernetes.io/region") {
            *counts.entry(r.as_str()).or_default() += 1;
        }
    }
    counts.into_iter().max_by_key(|(_, n)| *n).map(|(r, _)| r.to_owned())
}

/// Whether the cluster runs Karpenter's AWS provider: an EC2NodeClass, a NodePool pointing at
/// one, or a node with an `aws://` provider ID.
pub(crate) fn is_aws(snapshot: &Snapshot) -> bool {
    !snapshot.node_classes.is_empty()
        || snapshot.node_pools.iter().any(|p| {
            p.spec
                .template
                .spec
                .node_class_ref
                .as_ref()
                .and_then(|r| r.get("group"))
                .and_then(serde_json::Value::as_str)
                == Some("karpenter.k8s.aws")
        })
        || snapshot.nodes.iter().any(|n| n.spec.provider_id.as_deref().is_some_and(|p| p.starts_with("aws://")))
}

#[cfg(test)]
mod tests;
