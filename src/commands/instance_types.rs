//! `instance-types nodepool/NAME`: the catalogue a NodePool's replacements are chosen from.

use super::{no_such_pool, node_pool_target, Context, Failure, Outcome};
use crate::object_ref::ObjectRef;
use crate::report::{self, Report};
use crate::snapshot::Snapshot;

pub(super) fn run(ctx: &Context<'_>, snapshot: &Snapshot, target: &ObjectRef) -> Result<Outcome, Failure> {
    let name = node_pool_target("instance-types", target)?;
    let catalogue =
        report::instance_types::catalogue(snapshot, ctx.now, name).ok_or_else(|| no_such_pool(snapshot, name))?;
    Ok(Outcome::ok(Report::InstanceTypes(Box::new(catalogue))))
}
