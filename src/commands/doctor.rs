//! `doctor [node/NAME]`: the replay held against Karpenter's own events, conditions and
//! metrics (`doctor.rs`), with `--fail-on`'s gate.

use super::{Context, Failure, Outcome};
use crate::audit::Severity;
use crate::engine;
use crate::error::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK};
use crate::object_ref::{Kind, ObjectRef};
use crate::report::Report;
use crate::snapshot::Snapshot;
use crate::target::{not_found, resolve};

pub(super) fn run(
    ctx: &Context<'_>,
    snapshot: &Snapshot,
    target: Option<&ObjectRef>,
    fail_on: Option<Severity>,
) -> Result<Outcome, Failure> {
    let node = match target {
        Some(t) if t.kind != Kind::Node => return Err(Failure::Usage(format!("doctor takes node/NAME, not {t}"))),
        Some(t) => {
            let kube = &ctx.cli.kube;
            let (name, _) = resolve(snapshot, t, kube.namespace.as_deref(), kube.all_namespaces)?;
            Some(name)
        }
        None => None,
    };
    let replay = engine::replay(snapshot, ctx.now);
    if let Some(name) = &node {
        if !replay.nodes.iter().any(|n| &n.name == name) {
            return Err(not_found(Kind::Node, name, replay.nodes.iter().map(|n| n.name.as_str())).into());
        }
    }
    let doctor = crate::doctor::doctor(snapshot, &replay, ctx.now, node.as_deref());
    let exit = match fail_on {
        // A gate must not pass on what it could not see (as `pdb-audit`).
        Some(_) if !doctor.could_not_judge.is_empty() => EXIT_ERROR,
        Some(threshold) if doctor.fails_at(threshold.into()) => EXIT_FINDINGS,
        _ => EXIT_OK,
    };
    Ok(Outcome { report: Report::Doctor(Box::new(doctor)), exit })
}
