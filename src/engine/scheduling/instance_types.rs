//! Instance types as the scheduler reads them: their label values, which of them and of their
//! offerings a NodeClaim's requirements admit, their allocatable resources, their price order.
//!
//! Mirrors karpenter `pkg/cloudprovider/types.go` (`InstanceType.Allocatable`,
//! `Offerings.Compatible`, `InstanceTypes.OrderByPrice`) and `scheduling/nodeclaim.go`
//! (`compatible`, `fits`).

use super::requirements::{Requirement, Requirements};
use crate::engine::labels::{CAPACITY_TYPE, INSTANCE_TYPE, RESERVATION_ID, ZONE};
use crate::quantity::Quantity;
use crate::snapshot::{InstanceType, Offering, Resources};

/// The values an instance type offers for a well-known key.
pub fn instance_type_values(it: &InstanceType, key: &str) -> Vec<String> {
    match key {
        ZONE => it.offerings.iter().map(|o| o.zone.clone()).collect(),
        CAPACITY_TYPE => it.offerings.iter().map(|o| o.capacity_type.clone()).collect(),
        INSTANCE_TYPE => vec![it.name.clone()],
        _ => it.labels.get(key).cloned().into_iter().collect(),
    }
}

/// An instance type survives when its labels fit the requirements and some available offering
/// matches the zone and capacity-type requirements.
pub fn instance_type_compatible(it: &InstanceType, reqs: &Requirements) -> bool {
    labels_intersect(it, reqs) && it.offerings.iter().any(|o| offering_compatible(o, reqs) && o.available)
}

/// Whether the type's requirements intersect `reqs`, availability aside: its labels, and some
/// offering's zone and capacity type (`InstanceType.Requirements.Intersects`).
pub(crate) fn instance_type_intersects(it: &InstanceType, reqs: &Requirements) -> bool {
    labels_intersect(it, reqs) && it.offerings.iter().any(|o| offering_compatible(o, reqs))
}

fn labels_intersect(it: &InstanceType, reqs: &Requirements) -> bool {
    if reqs.get(INSTANCE_TYPE).is_some_and(|r| !r.allows(&it.name)) {
        return false;
    }
    if it.labels.iter().any(|(k, v)| reqs.get(k).is_some_and(|r| !r.allows(v))) {
        return false;
    }
    // The AWS provider gives every type every `karpenter.k8s.aws/instance-*` key, absent ones
    // as `DoesNotExist` (`instancetype/types.go computeRequirements`): a type that carries
    // those labels but not this one fails `Exists`, `In`, `Gt`… on it (a GPU requirement
    // excludes CPU-only types).
    let from = (std::ops::Bound::Included(AWS_INSTANCE_LABEL), std::ops::Bound::Unbounded);
    let mut on_aws_keys = reqs.0.range::<str, _>(from).take_while(|(k, _)| k.starts_with(AWS_INSTANCE_LABEL));
    if on_aws_keys.any(|(k, r)| !it.labels.contains_key(k) && !r.allows_absent())
        && it.labels.range::<str, _>(from).next().is_some_and(|(k, _)| k.starts_with(AWS_INSTANCE_LABEL))
    {
        return false;
    }
    true
}

/// The prefix of the AWS provider's instance-type labels (`pkg/apis/v1/labels.go`).
const AWS_INSTANCE_LABEL: &str = "karpenter.k8s.aws/instance-";

/// Whether an offering's zone, capacity type and (for a NodeClaim pinned to its reservations)
/// reservation ID satisfy the requirements.
pub fn offering_compatible(o: &Offering, reqs: &Requirements) -> bool {
    OfferingRequirements::of(reqs).admit(o)
}

/// The requirements an offering is held to (zone, capacity type, reservation), looked up once
/// for all the offerings asked about.
struct OfferingRequirements<'r> {
    zone: Option<&'r Requirement>,
    capacity_type: Option<&'r Requirement>,
    reservation_id: Option<&'r Requirement>,
}

impl<'r> OfferingRequirements<'r> {
    fn of(reqs: &'r Requirements) -> Self {
        OfferingRequirements {
            zone: reqs.get(ZONE),
            capacity_type: reqs.get(CAPACITY_TYPE),
            reservation_id: reqs.get(RESERVATION_ID),
        }
    }

    fn admit(&self, o: &Offering) -> bool {
        self.zone.is_none_or(|r| r.allows(&o.zone))
            && self.capacity_type.is_none_or(|r| r.allows(&o.capacity_type))
            && self.reservation_id.is_none_or(|r| o.reservation_id.as_deref().is_some_and(|id| r.allows(id)))
    }
}

/// Capacity minus kube/system reserved and eviction thresholds.
pub fn allocatable(it: &InstanceType) -> Resources {
    let mut out = it.capacity.clone();
    for (k, v) in &it.overhead {
        let entry = out.entry(k.clone()).or_insert(Quantity::ZERO);
        *entry = entry.minus(*v);
    }
    out
}

/// Orders instance types by their cheapest available offering compatible with `reqs`.
///
/// Mirrors karpenter `pkg/cloudprovider/types.go` `InstanceTypes.OrderByPrice`.
pub fn sort_by_cheapest(types: &mut [&InstanceType], reqs: &Requirements) {
    let offerings = OfferingRequirements::of(reqs);
    let price = |it: &InstanceType| {
        crate::engine::pricing::cheapest_price(it.offerings.iter().filter(|o| offerings.admit(o))).unwrap_or(f64::MAX)
    };
    // Each type's price once, not once per comparison: a new NodeClaim sorts hundreds of types
    // at every pod it takes.
    let mut priced: Vec<(f64, &InstanceType)> = types.iter().map(|it| (price(it), *it)).collect();
    priced.sort_by(|(pa, a), (pb, b)| pa.total_cmp(pb).then_with(|| a.name.cmp(&b.name)));
    for (slot, (_, it)) in types.iter_mut().zip(priced) {
        *slot = it;
    }
}
