//! The input pipeline: what happens to a loaded snapshot before any command reads it.
//!
//! Live and file inputs meet before it (both are a [`Snapshot`] by then), so nothing after
//! [`complete`] can tell them apart. The stages run in the order Karpenter would see them:
//!
//! 1. [`apply_prices`]: `--prices` — an `InstanceTypes` document is the catalogue (it replaces
//!    what the snapshot carried); Karpenter's metrics text is merged into it, as a scrape is.
//! 2. [`resolve_settings`]: Karpenter's settings and version (`settings.rs`), from the
//!    controller Deployment, `--karpenter-version`, `--karpenter-setting` and the defaults; then
//!    the rule set of that core version (`rules::select`) into `SnapshotInfo::rules`.
//! 3. [`complete_catalogue`]: every instance-type figure the replay needs (`catalogue/`), with
//!    what was estimated recorded so the replay can say `Uncertain`.
//! 4. [`materialize_virtual_pods`]: the capacity buffers' virtual pods, when the version and
//!    its `CapacityBuffer` gate simulate them.
//! 5. [`apply_what_ifs`]: `--set` overrides — last, after `snapshot` has written the state as
//!    it was read (a what-if is never written into a snapshot). The pods they add are then
//!    scheduled as Karpenter's provisioner would, before the round
//!    ([`apply_changes_and_place`], `engine/provisioner.rs`).
//!
//! Pure: no I/O. The prices file is read by the caller; warnings are returned, not printed.

use jiff::Timestamp;

use crate::catalogue;
use crate::commands::Failure;
use crate::engine::provisioner::Placement;
use crate::error::Error;
use crate::report::Assumed;
use crate::rules::select;
use crate::settings;
use crate::snapshot::Snapshot;
pub(crate) use crate::source::prices::PricesFile as Prices;

/// The flags the pipeline reads, gathered by `app.rs`.
#[derive(Debug, Default)]
pub(crate) struct Inputs<'a> {
    pub prices: Option<Prices>,
    pub karpenter_settings: &'a [String],
    /// `--karpenter-version`: wins over every other source of the version.
    pub karpenter_version: Option<&'a str>,
}

/// The snapshot after stages 1–3, and what the user is told about it.
#[derive(Debug)]
pub(crate) struct Completed {
    /// What the replay assumed (version and settings, with their sources) for the header.
    pub assumed: Assumed,
    /// Lines for stderr: settings that were ignored or guessed, catalogue estimates.
    pub warnings: Vec<String>,
}

/// Stages 1–3 on `snapshot`, in place. An unusable `--karpenter-setting` is a usage error (in
/// the flag's words); a Karpenter older than v1.0.0 an error.
pub(crate) fn complete(snapshot: &mut Snapshot, inputs: Inputs<'_>) -> Result<Completed, Failure> {
    if let Some(prices) = inputs.prices {
        apply_prices(snapshot, prices);
    }
    let (mut warnings, resolved) = resolve_settings(snapshot, inputs.karpenter_settings, inputs.karpenter_version)?;
    let assumed = Assumed::of(&snapshot.info, &resolved);
    warnings.extend(complete_catalogue(snapshot));
    Ok(Completed { assumed, warnings })
}

/// Stage 1. A document replaces the catalogue whole: the figures, sources and offering order a
/// metrics scrape or an earlier snapshot left must not survive under it, or a live replay and a
/// file replay of the same state would differ (FIDELITY: the `--prices` document row).
pub(crate) fn apply_prices(snapshot: &mut Snapshot, prices: Prices) {
    match prices {
        Prices::Document(types) => {
            let mut types = types;
            types.sort_by(|a, b| a.name.cmp(&b.name));
            snapshot.instance_types = types;
        }
        Prices::Metrics(types) => snapshot.merge_instance_types(types),
    }
    snapshot.info.price_source = Some("file".into());
}

/// Stage 2: Karpenter's version and settings into `SnapshotInfo.settings`, and the rule set of
/// that version into `SnapshotInfo.rules` (built once here; the engine only reads it).
pub(crate) fn resolve_settings(
    snapshot: &mut Snapshot,
    flags: &[String],
    karpenter_version: Option<&str>,
) -> Result<(Vec<String>, crate::rules::version::Resolved), Failure> {
    let mut warnings = settings::resolve(snapshot, flags).map_err(Failure::Usage)?;
    if let Some(v) = karpenter_version {
        let setting = crate::snapshot::Setting { value: v.trim().to_owned(), source: select::FLAG_SOURCE.to_owned() };
        snapshot.info.settings.insert(crate::snapshot::controller::VERSION.into(), setting);
    }
    let resolved = select::select(&mut snapshot.info)
        .map_err(|r| Failure::from(Error::UnsupportedKarpenter { version: r.version, from: r.from }))?;
    warnings.extend(resolved.warnings.iter().cloned());
    warnings.extend(settings::apply_version(&mut snapshot.info));
    warnings.extend(crate::rules::crd::warnings(snapshot, &snapshot.info.rules));
    Ok((warnings, resolved))
}

/// Stage 3: the catalogue completed; each estimate recorded once in `SnapshotInfo.estimated`
/// (a snapshot this plugin wrote keeps what its catalogue estimated then).
pub(crate) fn complete_catalogue(snapshot: &mut Snapshot) -> Vec<String> {
    let findings = catalogue::complete(snapshot, &settings::capacity(snapshot));
    for f in &findings {
        if !snapshot.info.estimated.contains(f) {
            snapshot.info.estimated.push(f.clone());
        }
    }
    findings
}

/// Stage 4's outcome: what the report lists about the what-ifs.
#[derive(Debug, Default)]
pub(crate) struct WhatIfs {
    /// A description of each `--set`, as applied.
    pub overrides: Vec<String>,
    /// Where the pods they added went.
    pub placements: Vec<Placement>,
}

/// The capacity buffers' virtual pods (`engine/virtual_pods.rs`) into
/// `Snapshot::virtual_pods`, once the rules and gates are final and the objects are as the
/// replay will read them (escaped for a terminal); lines for stderr about buffers skipped or
/// approximated.
pub(crate) fn materialize_virtual_pods(snapshot: &mut Snapshot, now: Timestamp) -> Vec<String> {
    let built = crate::engine::virtual_pods::build(snapshot, now);
    snapshot.virtual_pods = built.pods;
    built.notes
}

/// Stage 4: the `--set` what-ifs, then the pods they added placed at `now`.
pub(crate) fn apply_what_ifs(snapshot: &mut Snapshot, overrides: &[String], now: Timestamp) -> Result<WhatIfs, String> {
    let (overrides, placements) = apply_changes_and_place(snapshot, now, |s| crate::whatif::apply(s, overrides))?;
    Ok(WhatIfs { overrides, placements })
}

/// Applies `change`, then places the pods it added ([`crate::engine::provisioner::apply_and_place`]):
/// the step `--set` and `diff -f` share.
pub(crate) fn apply_changes_and_place<T>(
    snapshot: &mut Snapshot,
    now: Timestamp,
    change: impl FnOnce(&mut Snapshot) -> Result<T, String>,
) -> Result<(T, Vec<Placement>), String> {
    crate::engine::provisioner::apply_and_place(snapshot, now, change)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::snapshot::InstanceType;
    use crate::testing::{managed_node, node_pool, snapshot};

    fn priced(name: &str, zone: &str, source: &str) -> InstanceType {
        let mut it = InstanceType { name: name.into(), ..InstanceType::default() };
        it.offerings.push(crate::snapshot::Offering {
            zone: zone.into(),
            capacity_type: "on-demand".into(),
            price: Some(0.2),
            source: Some(source.into()),
            ..crate::snapshot::Offering::default()
        });
        it.sources.insert("cpu".into(), source.into());
        it
    }

    fn cluster() -> Snapshot {
        let mut objects = vec![node_pool("default")];
        objects.extend(managed_node("a"));
        snapshot(objects)
    }

    #[test]
    fn a_prices_document_replaces_the_catalogue() {
        let mut s = cluster();
        s.instance_types = vec![priced("m5.large", "zone-a", "metrics"), priced("c5.large", "zone-a", "metrics")];
        apply_prices(&mut s, Prices::Document(vec![priced("m5.large", "zone-b", "file")]));
        assert_eq!(s.instance_types.len(), 1, "a metrics-only type does not survive a document");
        let it = &s.instance_types[0];
        assert_eq!(it.offerings.len(), 1, "the document's offerings, not the scrape's plus the document's");
        assert_eq!(it.offerings[0].zone, "zone-b");
        assert_eq!(it.sources.get("cpu").map(String::as_str), Some("file"), "no metrics source tag survives");
        assert_eq!(s.info.price_source.as_deref(), Some("file"));
    }

    #[test]
    fn metrics_text_merges_over_the_catalogue() {
        let mut s = cluster();
        s.instance_types = vec![priced("c5.large", "zone-a", "nodeclaim")];
        apply_prices(&mut s, Prices::Metrics(vec![priced("m5.large", "zone-a", "metrics")]));
        let names: Vec<&str> = s.instance_types.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(names, ["c5.large", "m5.large"]);
    }

    #[test]
    fn an_unknown_setting_is_refused_in_the_flags_words() {
        let mut s = cluster();
        let Err(Failure::Usage(err)) = resolve_settings(&mut s, &["NO_SUCH_SETTING=1".to_owned()], None) else {
            panic!("a usage error")
        };
        assert!(err.contains("NO_SUCH_SETTING"), "{err}");
    }

    #[test]
    fn the_rule_set_follows_the_version_and_the_flag_wins() {
        let mut s = cluster();
        s.info.karpenter_version = Some("v1.13.0".into());
        let Ok((_, resolved)) = resolve_settings(&mut s, &[], None) else { panic!("a known version") };
        assert_eq!(s.info.rules, crate::rules::RuleSet::at(crate::rules::CoreVersion::new(1, 13, 0)));
        assert_eq!(resolved.from, "snapshot");
        assert!(resolve_settings(&mut s, &["version=1.12.0".to_owned()], Some("1.5.0")).is_ok());
        assert_eq!(s.info.rules.version, crate::rules::CoreVersion::new(1, 5, 0));
        assert!(matches!(resolve_settings(&mut s, &[], Some("0.37.0")), Err(Failure::Error(_))), "below v1 is refused");
    }

    #[test]
    fn the_catalogue_records_each_estimate_once() {
        let mut s = cluster();
        s.instance_types.clear();
        complete_catalogue(&mut s);
        let recorded = s.info.estimated.clone();
        complete_catalogue(&mut s);
        assert_eq!(s.info.estimated, recorded, "a second completion adds nothing twice");
    }

    #[test]
    fn what_ifs_come_back_as_the_overrides_listed() {
        let mut s = cluster();
        let applied =
            apply_what_ifs(&mut s, &["budgets=0".to_owned()], crate::testing::now()).expect("a valid what-if");
        assert_eq!(applied.overrides.len(), 1);
        assert!(applied.placements.is_empty(), "a budget adds no pod");
        assert!(apply_what_ifs(&mut s, &["nodepool/none.budgets=0".to_owned()], crate::testing::now()).is_err());
    }
}
