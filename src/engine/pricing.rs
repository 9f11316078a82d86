//! Prices of running nodes and of offerings, from the snapshot's instance-type catalogue.
//!
//! Mirrors karpenter `pkg/controllers/disruption/types.go` `resolveNodePrice` and
//! `pkg/cloudprovider/types.go` (`Offerings.Cheapest`, `WorstLaunchPrice`).

use super::labels::{CAPACITY_TYPE, INSTANCE_TYPE, ZONE};
use super::state::StateNode;
use crate::snapshot::{InstanceType, Offering};

/// The price Karpenter gives a running node, or `None` when it cannot know it (Karpenter then
/// uses 0: the node can be deleted but never replaced).
///
/// Mirrors [`crate::upstream::RESOLVE_NODE_PRICE`]: the first offering whose zone and capacity
/// type match the node's labels, availability ignored.
pub(crate) fn node_price(node: &StateNode<'_>, instance_type: Option<&InstanceType>) -> Option<f64> {
    let it = instance_type?;
    let zone = node.label(ZONE)?;
    let capacity_type = node.label(CAPACITY_TYPE)?;
    it.offerings
        .iter()
        .find(|o| o.zone == zone && o.capacity_type == capacity_type)
        .and_then(|o| o.price)
        .filter(|p| p.is_finite())
}

/// The instance-type label of a node.
pub(crate) fn instance_type_name<'n>(node: &'n StateNode<'_>) -> Option<&'n str> {
    node.label(INSTANCE_TYPE)
}

/// The order Karpenter prefers capacity types in when it prices a launch.
pub(crate) const CAPACITY_TYPE_ORDER: [&str; 3] = ["reserved", "spot", "on-demand"];

/// The worst-case price of launching this type under the given offering filter: among the
/// available compatible offerings of the first capacity type (reserved, spot, on-demand) that
/// has any, the most expensive. `None` when nothing is available.
///
/// Mirrors karpenter `pkg/cloudprovider/types.go` `Offerings.WorstLaunchPrice`.
pub(crate) fn worst_launch_price<'a>(offerings: impl Iterator<Item = &'a Offering>) -> Option<f64> {
    let offerings: Vec<&Offering> = offerings.collect();
    CAPACITY_TYPE_ORDER.iter().find_map(|ct| {
        offerings
            .iter()
            .filter(|o| o.available && o.capacity_type == *ct)
            .filter_map(|o| o.price)
            .max_by(f64::total_cmp)
    })
}

/// The cheapest available compatible offering's price.
pub(crate) fn cheapest_price<'a>(offerings: impl Iterator<Item = &'a Offering>) -> Option<f64> {
    offerings.filter(|o| o.available).filter_map(|o| o.price).min_by(f64::total_cmp)
}

#[cfg(test)]
mod tests {
    use super::{cheapest_price, worst_launch_price};
    use crate::snapshot::Offering;

    fn offering(ct: &str, zone: &str, price: f64, available: bool) -> Offering {
        Offering {
            zone: zone.into(),
            capacity_type: ct.into(),
            price: Some(price),
            available,
            reservation_id: None,
            source: None,
        }
    }

    #[test]
    fn worst_launch_price_prefers_spot_and_takes_the_dearest_zone() {
        let offerings = [
            offering("on-demand", "a", 1.0, true),
            offering("spot", "a", 0.3, true),
            offering("spot", "b", 0.4, true),
            offering("spot", "c", 0.9, false),
        ];
        assert_eq!(worst_launch_price(offerings.iter()), Some(0.4));
        assert_eq!(cheapest_price(offerings.iter()), Some(0.3));
        assert_eq!(worst_launch_price(offerings[..1].iter()), Some(1.0));
        assert_eq!(worst_launch_price(offerings[3..].iter()), None);
    }
}
