//! `placements[]`: where the pods a what-if added went before the round (the provisioning
//! step, `engine/provisioner.rs`), as `plan`, `explain` and `forecast` report it.

use serde::Serialize;

use crate::engine::provisioner::{Placed, Placement};
use crate::upstream::{self, Upstream};

/// One new pod's placement.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlacementView {
    /// `ns/name`.
    pub pod: String,
    /// `existing` (a node the snapshot had), `launched` (a NodeClaim created for it) or
    /// `pending` (it fits nowhere).
    pub placed: &'static str,
    /// The node it is bound to; `null` when pending.
    pub node: Option<String>,
    /// The NodeClaim launched for it (`launched` only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub launch: Option<LaunchView>,
    /// Seconds until the destination is consolidatable again: the pod's bind is a pod event
    /// that restarts its consolidateAfter (`null`: no window, e.g. consolidateAfter `0s`).
    pub consolidatable_in_seconds: Option<i64>,
    /// Why it stays pending (the scheduler's words); `null` when placed.
    pub why: Option<String>,
    /// The upstream function that makes the same decision.
    #[serde(rename = "ref")]
    pub reference: Upstream,
}

/// A NodeClaim the provisioning step launched.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LaunchView {
    pub node_pool: String,
    pub instance_type: String,
    pub zone: String,
    pub capacity_type: String,
    /// $/h; `null` when the catalogue has no price for the offering.
    pub price: Option<f64>,
}

impl From<&Placement> for PlacementView {
    fn from(p: &Placement) -> Self {
        let seconds = |d: &Option<jiff::SignedDuration>| d.map(|d| d.as_secs());
        let (placed, node, launch, consolidatable_in_seconds, why, reference) = match &p.to {
            Placed::Existing { node, consolidatable_in } => {
                ("existing", Some(node.clone()), None, seconds(consolidatable_in), None, upstream::PROVISIONER_SCHEDULE)
            }
            Placed::Launched { launch, consolidatable_in } => (
                "launched",
                Some(launch.node.clone()),
                Some(LaunchView {
                    node_pool: launch.node_pool.clone(),
                    instance_type: launch.instance_type.clone(),
                    zone: launch.zone.clone(),
                    capacity_type: launch.capacity_type.clone(),
                    price: launch.price,
                }),
                seconds(consolidatable_in),
                None,
                upstream::CREATE_NODE_CLAIMS,
            ),
            Placed::Pending { why } => ("pending", None, None, None, Some(why.clone()), upstream::PROVISIONER_SCHEDULE),
        };
        PlacementView { pod: p.pod.clone(), placed, node, launch, consolidatable_in_seconds, why, reference }
    }
}

/// The views of `placements`, in their order (the order of the pods the what-ifs added).
pub(crate) fn views(placements: &[Placement]) -> Vec<PlacementView> {
    placements.iter().map(PlacementView::from).collect()
}
