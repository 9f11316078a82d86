//! `diff`: what a change does to the round. Two replays of one snapshot — before (as read) and
//! after (with every part of the change) — then, for each node that moves, the part that moves
//! it: one replay per part alone, and where no part does it alone, one per part left out.
//!
//! The parts: each object of `-f` that changes something the replay reads, each `--set`, each
//! `--karpenter-setting`, and (with `--karpenter-version`) each version rule whose value differs
//! between the two versions (`rules::RULES`). In `diff` these flags describe the after side
//! only; the before side is the cluster as read, with its own version and settings.
//!
//! Cost: 2 + P replays (P parts, at most [`MAX_ATTRIBUTED`]), plus up to P more when some node
//! needs parts together; each replay is one `plan`.

use super::{Context, Failure, Outcome};
use crate::cli::{DiffArgs, DiffFailOn};
use crate::forecast::{forecast, Limits};
use crate::manifest::apply::{apply, order, Applied};
use crate::manifest::{Manifest, Object};
use crate::prepare;
use crate::report::diff::{self as doc, ChangeView, DiffDoc, NodeChange};
use crate::report::plan::Plan;
use crate::report::{self, Assumed, Report};
use crate::rules::Rule;
use crate::snapshot::Snapshot;

/// Parts attributed one by one; beyond, the diff is still exact but says it did not attribute.
pub(crate) const MAX_ATTRIBUTED: usize = 16;

/// The diff's answer, and what the header says the after side assumed.
pub(crate) struct Diffed {
    pub outcome: Outcome,
    pub assumed: Assumed,
    pub warnings: Vec<String>,
}

/// One part of the change.
#[derive(Debug, Clone)]
enum Part<'a> {
    Object { file: &'a str, object: &'a Object },
    Set(&'a str),
    Setting(&'a str),
    Rule { rule: Rule, on: bool },
}

/// What one side is built from: the snapshot as read plus these parts.
#[derive(Debug, Clone, Default)]
struct Spec<'a> {
    parts: Vec<Part<'a>>,
    /// `--karpenter-version`, on the after side.
    version: Option<&'a str>,
}

/// One side, built.
struct Side {
    snapshot: Snapshot,
    applied: Vec<Applied>,
    sets: Vec<String>,
    placements: Vec<crate::engine::provisioner::Placement>,
    assumed: Assumed,
    warnings: Vec<String>,
}

pub(crate) fn run(
    ctx: &Context<'_>,
    args: &DiffArgs,
    raw: &Snapshot,
    manifests: &[Manifest],
    escape: bool,
) -> Result<Diffed, Failure> {
    let input = &ctx.cli.input;
    let version = input.karpenter_version.as_deref();
    if manifests.is_empty() && input.overrides.is_empty() && input.karpenter_settings.is_empty() && version.is_none() {
        return Err(Failure::Usage(
            "diff needs a change: -f FILE|DIR|-, --set KEY=VALUE, --karpenter-setting NAME=VALUE or --karpenter-version VERSION"
                .into(),
        ));
    }
    let mut parts: Vec<Part<'_>> = input.karpenter_settings.iter().map(|s| Part::Setting(s)).collect();
    let mut objects: Vec<(&str, &Object)> =
        manifests.iter().flat_map(|m| m.objects.iter().map(move |o| (m.file.as_str(), o))).collect();
    objects.sort_by_key(|(_, o)| order(o));
    parts.extend(objects.into_iter().map(|(file, object)| Part::Object { file, object }));
    parts.extend(input.overrides.iter().map(|s| Part::Set(s)));

    let build = |spec: &Spec<'_>| build(raw, spec, ctx.now, escape);
    let before = build(&Spec::default())?;
    let mut after = build(&Spec { parts: parts.clone(), version })?;
    // Objects that change nothing read are not parts (they would attribute nothing).
    let unchanged: Vec<String> = after.applied.iter().filter(|a| !a.changes()).map(|a| a.object.clone()).collect();
    parts.retain(|p| !matches!(p, Part::Object { object, .. } if unchanged.contains(&object.id())));
    for (row, on) in before.snapshot.info.rules.differences(&after.snapshot.info.rules) {
        parts.push(Part::Rule { rule: row.rule, on });
    }

    let plan_of = |s: &Snapshot| {
        let replay = crate::engine::replay(s, ctx.now);
        report::plan::plan(&replay, s, &[], input.pod_startup.0)
    };
    let (plan_before, plan_after) = (plan_of(&before.snapshot), plan_of(&after.snapshot));
    let mut nodes = doc::node_changes(&plan_before, &plan_after);
    let to_zero = doc::newly(&plan_after.summary.zero_ready, &plan_before.summary.zero_ready);
    let no_longer = doc::newly(&plan_before.summary.zero_ready, &plan_after.summary.zero_ready);
    let mut workloads = doc::workload_changes(&to_zero, &no_longer);
    let mut attribution = doc::AttributionView::default();
    let ids: Vec<String> = (1..=parts.len()).map(|i| format!("c{i}")).collect();
    if parts.len() > MAX_ATTRIBUTED {
        attribution.cut_short = Some(format!(
            "{} parts: attribution replays each part alone, up to {MAX_ATTRIBUTED}; diff fewer files at once to attribute",
            parts.len()
        ));
    } else if !nodes.is_empty() || !workloads.is_empty() {
        attribute(&mut nodes, &mut workloads, &parts, &ids, version, &mut attribution, &|spec: &Spec<'_>| {
            build(spec).map(|side| plan_of(&side.snapshot))
        })?;
    }

    let changes = change_views(&parts, &ids, &after, &before);
    let ignored: Vec<String> =
        manifests.iter().flat_map(|m| m.ignored.iter().map(|i| format!("{i} ({})", m.file))).collect();
    let forecast = args.forecast.then(|| {
        let delays = super::forecast::default_delays(input.pod_startup.0);
        let unread = after.snapshot.info.unread.clone();
        let limits = Limits::default();
        let descriptions: Vec<String> = changes.iter().map(|c| format!("{}: {}", c.target, c.description)).collect();
        let without =
            report::forecast::document(&forecast(before.snapshot.clone(), ctx.now, &delays, limits), &[], &unread);
        let with = report::forecast::document(
            &forecast(std::mem::take(&mut after.snapshot), ctx.now, &delays, limits),
            &descriptions,
            &unread,
        );
        Box::new(report::forecast::comparison(without, with, &descriptions))
    });
    let exit = match args.fail_on {
        Some(DiffFailOn::ZeroReady) if !to_zero.is_empty() => crate::error::EXIT_FINDINGS,
        Some(DiffFailOn::Change) if !nodes.is_empty() || !to_zero.is_empty() || !no_longer.is_empty() => {
            crate::error::EXIT_FINDINGS
        }
        _ => crate::error::EXIT_OK,
    };
    let mut warnings = after.warnings.clone();
    warnings.retain(|w| !before.warnings.contains(w));
    let document = DiffDoc {
        api_version: crate::snapshot::API_VERSION,
        kind: "Diff",
        captured_at: plan_after.captured_at,
        changes,
        ignored,
        placed: report::placement::views(&after.placements),
        before: doc::side_view(&plan_before, before.assumed.rules.version.clone()),
        after: doc::side_view(&plan_after, after.assumed.rules.version.clone()),
        command_changes: doc::command_changes(&plan_before, &plan_after),
        nodes,
        to_zero_ready: to_zero,
        no_longer_zero_ready: no_longer,
        workload_causes: workloads,
        attribution,
        forecast,
        uncertain: plan_after.uncertain.clone(),
    };
    Ok(Diffed {
        outcome: Outcome { report: Report::Diff(Box::new(document)), exit },
        assumed: after.assumed,
        warnings: before.warnings.into_iter().chain(warnings).collect(),
    })
}

/// Builds one side: the snapshot as read, its settings and version (the spec's over the
/// cluster's), the rule flips, the manifests' objects, the catalogue, the `--set` what-ifs,
/// and the pods they added placed before the round (`engine/provisioner.rs`).
fn build(raw: &Snapshot, spec: &Spec<'_>, now: jiff::Timestamp, escape: bool) -> Result<Side, Failure> {
    let mut snapshot = raw.clone();
    let settings: Vec<String> =
        spec.parts.iter().filter_map(|p| if let Part::Setting(s) = p { Some((*s).to_owned()) } else { None }).collect();
    let (mut warnings, resolved) = prepare::resolve_settings(&mut snapshot, &settings, spec.version)?;
    for part in &spec.parts {
        if let Part::Rule { rule, on } = part {
            snapshot.info.rules = snapshot.info.rules.clone().with(*rule, *on);
        }
    }
    let sets: Vec<String> =
        spec.parts.iter().filter_map(|p| if let Part::Set(s) = p { Some((*s).to_owned()) } else { None }).collect();
    // The manifests, the catalogue they may need (a new NodePool's types), the what-ifs; then
    // every pod they added is placed as the provisioner would, in one batch.
    let ((applied, sets, estimated), placements) = prepare::apply_changes_and_place(&mut snapshot, now, |s| {
        let mut applied = Vec::new();
        for part in &spec.parts {
            if let Part::Object { file, object } = part {
                applied.push(apply(s, file, object).map_err(|why| format!("{file}: {why}"))?);
            }
        }
        let estimated = prepare::complete_catalogue(s);
        let sets = crate::whatif::apply(s, &sets)?;
        Ok((applied, sets, estimated))
    })
    .map_err(Failure::Usage)?;
    warnings.extend(estimated);
    let assumed = Assumed::of(&snapshot.info, &resolved);
    if escape {
        if let Some(escaped) = crate::terminal::escape_snapshot(&snapshot) {
            snapshot = escaped;
        }
    }
    warnings.extend(prepare::materialize_virtual_pods(&mut snapshot, now));
    Ok(Side { snapshot, applied, sets, placements, assumed, warnings })
}

/// Names the parts behind each moved node and each workload that starts or stops going to
/// zero ready pods: those that move it alone; else those it needs (left out, it keeps its
/// before answer); else the whole change.
fn attribute(
    nodes: &mut [NodeChange],
    workloads: &mut [doc::WorkloadChange],
    parts: &[Part<'_>],
    ids: &[String],
    version: Option<&str>,
    attribution: &mut doc::AttributionView,
    plan: &dyn Fn(&Spec<'_>) -> Result<Plan, Failure>,
) -> Result<(), Failure> {
    let side_in = |p: &Plan, name: &str| p.nodes.iter().find(|n| n.name == name).map(doc::side_of);
    // Whether workload `w` is at zero in `p` as on the after side.
    let as_after = |p: &Plan, w: &doc::WorkloadChange| p.summary.zero_ready.contains(&w.name) == w.to_zero_ready;
    if parts.len() == 1 {
        for n in nodes.iter_mut().filter(|n| n.before.is_some()) {
            n.causes = vec![ids[0].clone()];
            n.attribution = "alone";
        }
        for w in workloads.iter_mut() {
            w.causes = vec![ids[0].clone()];
            w.attribution = "alone";
        }
        return Ok(());
    }
    let alone: Vec<Plan> = parts
        .iter()
        .map(|p| {
            attribution.replays += 1;
            plan(&Spec { parts: vec![p.clone()], version: None })
        })
        .collect::<Result<_, _>>()?;
    for n in nodes.iter_mut().filter(|n| n.before.is_some()) {
        let Some(target) = &n.after else { continue };
        n.causes = ids
            .iter()
            .zip(&alone)
            .filter(|(_, p)| side_in(p, &n.name).is_some_and(|s| doc::same(&s, target)))
            .map(|(id, _)| id.clone())
            .collect();
        if !n.causes.is_empty() {
            n.attribution = "alone";
        }
    }
    for w in workloads.iter_mut() {
        w.causes = ids.iter().zip(&alone).filter(|(_, p)| as_after(p, w)).map(|(id, _)| id.clone()).collect();
        if !w.causes.is_empty() {
            w.attribution = "alone";
        }
    }
    let pending_nodes = nodes.iter().any(|n| n.before.is_some() && n.attribution != "alone");
    if !pending_nodes && workloads.iter().all(|w| w.attribution == "alone") {
        return Ok(());
    }
    let mut left_out = Vec::new();
    for i in 0..parts.len() {
        attribution.replays += 1;
        let mut rest: Vec<Part<'_>> =
            parts.iter().enumerate().filter(|(j, _)| *j != i).map(|(_, p)| p.clone()).collect();
        // A rule is left out by flipping it back on the after version.
        if let Part::Rule { rule, on } = &parts[i] {
            rest.push(Part::Rule { rule: *rule, on: !on });
        }
        left_out.push(plan(&Spec { parts: rest, version })?);
    }
    let how = |causes: &mut Vec<String>| {
        let found = !causes.is_empty();
        if !found {
            *causes = ids.to_vec();
        }
        if found {
            "together"
        } else {
            "combined"
        }
    };
    for n in nodes.iter_mut().filter(|n| n.before.is_some() && n.attribution != "alone") {
        let Some(original) = &n.before else { continue };
        n.causes = ids
            .iter()
            .zip(&left_out)
            .filter(|(_, p)| side_in(p, &n.name).is_some_and(|s| doc::same(&s, original)))
            .map(|(id, _)| id.clone())
            .collect();
        n.attribution = how(&mut n.causes);
    }
    for w in workloads.iter_mut().filter(|w| w.attribution != "alone") {
        w.causes = ids.iter().zip(&left_out).filter(|(_, p)| !as_after(p, w)).map(|(id, _)| id.clone()).collect();
        w.attribution = how(&mut w.causes);
    }
    Ok(())
}

/// The parts as the document lists them.
fn change_views(parts: &[Part<'_>], ids: &[String], after: &Side, before: &Side) -> Vec<ChangeView> {
    parts
        .iter()
        .zip(ids)
        .map(|(part, id)| {
            let view = |kind: &'static str, target: String, description: String| ChangeView {
                id: id.clone(),
                kind,
                target,
                description,
                file: None,
                fields: Vec::new(),
                notes: Vec::new(),
                upstream: None,
            };
            match part {
                Part::Object { file, object } => {
                    let id_of = object.id();
                    let applied = after.applied.iter().find(|a| a.object == id_of && a.file == *file);
                    let created = applied.is_some_and(|a| a.created);
                    let mut v = view("manifest", id_of, if created { "created".into() } else { "changed".into() });
                    v.file = Some((*file).to_owned());
                    if let Some(a) = applied {
                        v.fields.clone_from(&a.fields);
                        v.notes.clone_from(&a.notes);
                    }
                    v
                }
                Part::Set(text) => {
                    // `--set`s are applied in order, each described once.
                    let nth = parts[..parts.iter().position(|p| std::ptr::eq(p, part)).unwrap_or(0)]
                        .iter()
                        .filter(|p| matches!(p, Part::Set(_)))
                        .count();
                    let described = after.sets.get(nth).cloned().unwrap_or_else(|| (*text).to_owned());
                    view("set", (*text).to_owned(), described)
                }
                Part::Setting(text) => view("setting", (*text).to_owned(), format!("--karpenter-setting {text}")),
                Part::Rule { rule, on } => {
                    let row = crate::rules::row(*rule);
                    let (from, to) = (&before.assumed.rules.version, &after.assumed.rules.version);
                    let description = if *on {
                        format!("in force at {to}, not at {from}")
                    } else {
                        format!("in force at {from}, not at {to}: {}", row.before)
                    };
                    let mut v = view("rule", row.field.to_owned(), description);
                    v.upstream = Some(format!("#{} {} {}", row.pr, row.upstream.path, row.upstream.function));
                    v
                }
            }
        })
        .collect()
}
