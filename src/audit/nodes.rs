//! What the audit needs to know about the node a pod sits on: is it Karpenter's, which
//! NodePool, what it costs, and which `terminationGracePeriod` ends a PDB's hold on it.
//!
//! Built from [`crate::engine::state::Cluster`] (the Node/NodeClaim pairing the replay uses) and
//! priced with [`crate::engine::pricing::node_price`] (Karpenter's `resolveNodePrice`). Works
//! with whatever was readable: NodeClaims alone still name the node (`status.nodeName`), and
//! Nodes alone still carry the `karpenter.sh/nodepool` label.

use std::collections::BTreeMap;

use jiff::Timestamp;

use crate::engine::labels::CAPACITY_TYPE;
use crate::engine::pricing::{instance_type_name, node_price};
use crate::engine::state::Cluster;
use crate::snapshot::Snapshot;

/// Hours in a month, as cloud price pages count them (365 × 24 / 12).
pub(super) const HOURS_PER_MONTH: f64 = 730.0;

/// Kinds the audit reads beyond pods and PDBs, and whether each could be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Readable {
    pub nodes: bool,
    pub node_claims: bool,
    pub node_pools: bool,
}

impl Readable {
    /// Whether a pod's node can be told Karpenter's or not.
    pub(super) fn ownership(self) -> bool {
        self.nodes || self.node_claims
    }

    /// Whether a node's `terminationGracePeriod` can be known: from its NodeClaim, or from the
    /// NodePool its `karpenter.sh/nodepool` label names.
    pub(super) fn grace_periods(self) -> bool {
        self.node_claims || (self.nodes && self.node_pools)
    }
}

/// One node, as far as it could be read.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct NodeFacts {
    pub karpenter: bool,
    pub node_pool: Option<String>,
    pub instance_type: Option<String>,
    pub capacity_type: Option<String>,
    pub price: Option<f64>,
    pub termination_grace_period: Option<String>,
    pub consolidation_policy: Option<String>,
    pub consolidate_after: Option<String>,
}

impl NodeFacts {
    pub(super) fn price_per_month(&self) -> Option<f64> {
        self.price.map(|p| p * HOURS_PER_MONTH)
    }
}

/// Node facts by node name (the name pods carry in `spec.nodeName`).
#[derive(Debug, Clone, Default)]
pub(super) struct Nodes {
    by_name: BTreeMap<String, NodeFacts>,
}

impl Nodes {
    pub(super) fn new(snapshot: &Snapshot, now: Timestamp, readable: Readable) -> Nodes {
        let cluster = Cluster::new(snapshot, now);
        let mut by_name = BTreeMap::new();
        for state in &cluster.nodes {
            let name = match (state.node, state.claim) {
                (Some(node), _) => node.metadata.name.clone(),
                (None, Some(claim)) => claim.status.node_name.clone().unwrap_or_else(|| claim.metadata.name.clone()),
                (None, None) => continue,
            };
            let pool_name = state.node_pool_name().map(str::to_owned);
            let karpenter = state.managed() || (!readable.node_claims && pool_name.is_some());
            let pool = cluster.pool_of(state);
            let instance_type = instance_type_name(state).map(str::to_owned);
            let catalogue = instance_type.as_deref().and_then(|it| cluster.instance_types.get(it).copied());
            let termination_grace_period = state
                .claim
                .and_then(|c| c.spec.termination_grace_period.clone())
                .or_else(|| pool.and_then(|p| p.spec.template.spec.termination_grace_period.clone()));
            let disruption = pool.and_then(|p| p.spec.disruption.as_ref());
            let facts = NodeFacts {
                karpenter,
                node_pool: if karpenter { pool_name } else { None },
                instance_type,
                capacity_type: state.label(CAPACITY_TYPE).map(str::to_owned),
                price: node_price(state, catalogue),
                termination_grace_period: if karpenter { termination_grace_period } else { None },
                consolidation_policy: disruption.and_then(|d| d.consolidation_policy.clone()),
                consolidate_after: disruption.and_then(|d| d.consolidate_after.clone()),
            };
            by_name.insert(name, facts);
        }
        Nodes { by_name }
    }

    pub(super) fn get(&self, name: &str) -> Option<&NodeFacts> {
        self.by_name.get(name)
    }
}
