//! Karpenter's settings the replay assumes: read from the controller Deployment (see
//! `snapshot::controller`), overridden by `--karpenter-setting NAME=VALUE`, else Karpenter
//! v1.14's defaults (`pkg/operator/options/options.go` in core and in the AWS provider). Pure:
//! reads and writes the snapshot's `SnapshotInfo`, so `snapshot` records what a replay assumed.

use std::collections::BTreeMap;

use crate::catalogue::CapacitySettings;
use crate::rules::{options, RuleSet};
use crate::snapshot::controller::{SETTINGS, VERSION};
use crate::snapshot::{Setting, Snapshot, SnapshotInfo};

/// The version whose rules this replay implements.
pub(crate) const PINNED_VERSION: &str = "v1.14";
const DEFAULT_SOURCE: &str = "default (Karpenter v1.14)";
const FLAG_SOURCE: &str = "flag --karpenter-setting";

/// v1.14's defaults, by env name.
const DEFAULTS: [(&str, &str); 6] = [
    (
        "FEATURE_GATES",
        "NodeRepair=false,ReservedCapacity=true,SpotToSpotConsolidation=false,NodeOverlay=false,StaticCapacity=false,CapacityBuffer=false",
    ),
    ("MIN_VALUES_POLICY", "Strict"),
    ("PREFERENCE_POLICY", "Respect"),
    ("IGNORE_DRA_REQUESTS", "true"),
    ("VM_MEMORY_OVERHEAD_PERCENT", "0.075"),
    ("RESERVED_ENIS", "0"),
];

/// Whether a setting's source says it is the replayed version's default.
pub(crate) fn is_default_source(source: &str) -> bool {
    source.starts_with("default (Karpenter ")
}

/// Applies what the resolved version has (stage 2, after the version is chosen): a setting it
/// does not have is ignored, as that controller never reads the env var (an explicit one keeps
/// its value, marked ignored, with a warning; a default one is dropped), `FEATURE_GATES` at its
/// default becomes that version's default string, and a gate it does not have is ignored with a
/// warning when set on. The engine reads both through `rules::options`, so this is what the
/// report shows and warns about.
pub(crate) fn apply_version(info: &mut SnapshotInfo) -> Vec<String> {
    let rules = info.rules.clone();
    let mut warnings = refused_versioned_settings(info, &rules);
    warnings.extend(ignore_absent_settings(info, &rules));
    default_feature_gates(info, &rules);
    warnings.extend(absent_gates_set_on(info, &rules));
    warnings
}

/// The settings the version has, each value it would refuse at startup.
fn refused_versioned_settings(info: &SnapshotInfo, rules: &RuleSet) -> Vec<String> {
    options::VERSIONED_SETTINGS
        .iter()
        .filter(|s| rules.has(s.rule))
        .filter_map(|s| info.settings.get(s.name).and_then(|setting| refused(s.name, setting)))
        .collect()
}

/// The settings the version lacks: a default one is dropped, an explicit one is marked ignored
/// (its value kept, so `diff` can flip the rule that adds it) with a warning.
fn ignore_absent_settings(info: &mut SnapshotInfo, rules: &RuleSet) -> Vec<String> {
    let version = rules.version;
    let mut warnings = Vec::new();
    for versioned in options::VERSIONED_SETTINGS.iter().filter(|s| !rules.has(s.rule)) {
        let Some(setting) = info.settings.get_mut(versioned.name) else { continue };
        if is_default_source(&setting.source) {
            info.settings.remove(versioned.name);
            continue;
        }
        let row = crate::rules::row(versioned.rule);
        warnings.push(format!(
            "{}={} (from {}) is ignored: Karpenter {version} has no {} (added in {} by #{}), so the replay follows {}={}",
            versioned.name,
            crate::echo::capped(&setting.value),
            setting.source,
            versioned.name,
            row.since,
            row.pr,
            versioned.name,
            versioned.implied
        ));
        setting.source = format!("{}; ignored: Karpenter {version} has no {}", setting.source, versioned.name);
    }
    warnings
}

/// `FEATURE_GATES` at its default becomes the version's default string, said the same way
/// whichever version wrote the snapshot: v1.14's string under v1.14's source, another
/// version's under its own.
fn default_feature_gates(info: &mut SnapshotInfo, rules: &RuleSet) {
    // A value derived from the snapshot's `featureGates` (a snapshot this plugin wrote) is
    // derived again: the version may differ now.
    let derived = |s: &Setting| is_default_source(&s.source) || s.source.starts_with(SNAPSHOT_GATES_SOURCE);
    let Some(gates) = info.settings.get_mut("FEATURE_GATES").filter(|s| derived(s)) else {
        return;
    };
    let default = options::default_feature_gates(rules);
    let newest = DEFAULTS.iter().find(|(name, _)| *name == "FEATURE_GATES").map(|(_, v)| *v);
    gates.source = if Some(default.as_str()) == newest {
        DEFAULT_SOURCE.to_owned()
    } else {
        format!("default (Karpenter {})", rules.version)
    };
    // Gates the snapshot itself sets (`SnapshotInfo.featureGates`) are what the replay reads
    // (`Snapshot::feature_gate`): say them, not the default they override.
    let mut overridden = Vec::new();
    let effective: Vec<String> = parse_gate_list(&default)
        .into_iter()
        .map(|(name, default_on)| {
            let on = info.feature_gates.get(&name).copied().unwrap_or(default_on);
            if on != default_on {
                overridden.push(format!("{name}={on}"));
            }
            format!("{name}={on}")
        })
        .collect();
    if overridden.is_empty() {
        gates.value = default;
    } else {
        gates.value = effective.join(",");
        gates.source = format!("{SNAPSHOT_GATES_SOURCE} {}", overridden.join(","));
    }
}

/// The start of `FEATURE_GATES`' source when the snapshot's `featureGates` override the
/// version's defaults (the gates that differ follow).
pub(crate) const SNAPSHOT_GATES_SOURCE: &str = "snapshot featureGates";

/// `A=true,B=false` as (name, value) pairs, in order.
fn parse_gate_list(text: &str) -> Vec<(String, bool)> {
    text.split(',')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (k.trim().to_owned(), v.trim().eq_ignore_ascii_case("true")))
        .collect()
}

/// A warning for each gate set on that the version does not have.
fn absent_gates_set_on(info: &SnapshotInfo, rules: &RuleSet) -> Vec<String> {
    info.feature_gates
        .iter()
        .filter(|(gate, on)| **on && options::gate_default(rules, gate).is_none())
        .map(|(gate, _)| {
            let since = options::gate_since(gate)
                .map_or_else(|| "no Karpenter release".to_owned(), |minor| format!("v1.{minor}.0"));
            format!(
                "FEATURE_GATES {gate}=true is ignored: Karpenter {} has no {gate} gate (it is in {since} on)",
                rules.version
            )
        })
        .collect()
}

/// Resolves every setting into `snapshot.info.settings` (flags first, `version` included),
/// applies `FEATURE_GATES`, and returns the warnings (a refused value).
pub(crate) fn resolve(snapshot: &mut Snapshot, flags: &[String]) -> Result<Vec<String>, String> {
    let info = &mut snapshot.info;
    for flag in flags {
        let (name, value) =
            flag.split_once('=').ok_or_else(|| format!("--karpenter-setting {flag}: expected NAME=VALUE"))?;
        let name = name.trim();
        if name != VERSION && !SETTINGS.iter().any(|(env, _)| *env == name) {
            let known: Vec<&str> = SETTINGS.iter().map(|(env, _)| *env).chain([VERSION]).collect();
            return Err(format!("--karpenter-setting {name}: unknown setting; known: {}", known.join(", ")));
        }
        validate(name, value.trim())?;
        let setting = Setting { value: value.trim().to_owned(), source: FLAG_SOURCE.to_owned() };
        if name == "FEATURE_GATES" {
            info.feature_gates.extend(parse_gates(&setting.value));
        }
        info.settings.insert(name.to_owned(), setting);
    }
    if let Some(v) = &info.karpenter_version {
        info.settings.entry(VERSION.into()).or_insert_with(|| Setting { value: v.clone(), source: "snapshot".into() });
    }
    for (name, value) in DEFAULTS {
        info.settings
            .entry(name.into())
            .or_insert_with(|| Setting { value: value.into(), source: DEFAULT_SOURCE.into() });
    }
    info.settings.entry(VERSION.into()).or_insert_with(|| Setting {
        value: PINNED_VERSION.into(),
        source: "assumed (no Karpenter Deployment or version in the snapshot)".into(),
    });
    // Which rules that version means is `rules::select`'s, the next step of the pipeline; a
    // setting not every version has is checked by `apply_version`, once the version is known
    // (a version without it never reads it, so never refuses it).
    let mut warnings = Vec::new();
    for (name, s) in
        info.settings.iter().filter(|(k, _)| *k != VERSION && crate::rules::options::versioned(k).is_none())
    {
        if let Some(warning) = refused(name, s) {
            warnings.push(warning);
        }
    }
    Ok(warnings)
}

/// The warning for a value Karpenter would refuse at startup.
fn refused(name: &str, s: &Setting) -> Option<String> {
    validate(name, &s.value)
        .err()
        .map(|e| format!("{e} (from {}); Karpenter would refuse to start, the default is assumed", s.source))
}

/// `VM_MEMORY_OVERHEAD_PERCENT` and `RESERVED_ENIS` as the catalogue needs them.
pub(crate) fn capacity(snapshot: &Snapshot) -> CapacitySettings {
    let get = |k: &str| snapshot.info.settings.get(k).map(|s| s.value.trim().to_owned());
    let defaults = CapacitySettings::default();
    CapacitySettings {
        vm_memory_overhead_percent: get("VM_MEMORY_OVERHEAD_PERCENT")
            .and_then(|v| v.parse().ok())
            .filter(|p: &f64| (0.0..1.0).contains(p))
            .unwrap_or(defaults.vm_memory_overhead_percent),
        reserved_enis: get("RESERVED_ENIS").and_then(|v| v.parse().ok()).filter(|n| *n >= 0).unwrap_or(0),
    }
}

/// The value Karpenter's option parsing would accept (`options.go Validate`).
fn validate(name: &str, value: &str) -> Result<(), String> {
    let ok = match name {
        "MIN_VALUES_POLICY" => matches!(value, "Strict" | "BestEffort"),
        "PREFERENCE_POLICY" => matches!(value, "Respect" | "Ignore"),
        "IGNORE_DRA_REQUESTS" => value.parse::<bool>().is_ok(),
        "VM_MEMORY_OVERHEAD_PERCENT" => value.parse::<f64>().is_ok_and(|p| (0.0..1.0).contains(&p)),
        "RESERVED_ENIS" => value.parse::<u32>().is_ok(),
        "FEATURE_GATES" => value
            .split(',')
            .filter(|p| !p.trim().is_empty())
            .all(|p| p.split_once('=').is_some_and(|(_, v)| v.trim().parse::<bool>().is_ok())),
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("{name}={} is not a value Karpenter accepts", crate::echo::capped(value)))
    }
}

fn parse_gates(value: &str) -> BTreeMap<String, bool> {
    parse_gate_list(value).into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::{capacity, resolve};
    use crate::snapshot::{Setting, Snapshot};

    #[test]
    fn flags_win_and_defaults_fill() {
        let mut s = Snapshot::default();
        s.info.settings.insert("version".into(), Setting { value: "1.13.2".into(), source: "deployment".into() });
        s.info.settings.insert("RESERVED_ENIS".into(), Setting { value: "1".into(), source: "deployment".into() });
        let flags = ["RESERVED_ENIS=2".to_owned(), "FEATURE_GATES=SpotToSpotConsolidation=true".to_owned()];
        let warnings = resolve(&mut s, &flags).expect("valid");
        assert_eq!(s.info.settings["RESERVED_ENIS"].value, "2");
        assert_eq!(s.info.settings["RESERVED_ENIS"].source, "flag --karpenter-setting");
        assert_eq!(s.info.settings["MIN_VALUES_POLICY"].value, "Strict");
        assert_eq!(capacity(&s).reserved_enis, 2);
        assert!(s.feature_gate("SpotToSpotConsolidation"));
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(s.info.settings["version"].value, "1.13.2");
        assert!(resolve(&mut Snapshot::default(), &["MIN_VALUES_POLICY=Sometimes".to_owned()]).is_err());
    }

    #[test]
    fn a_setting_is_refused_only_by_a_version_that_reads_it() {
        let with = |version: &str| {
            let mut s = Snapshot::default();
            let from_env = Setting { value: "Sometimes".into(), source: "deployment env".into() };
            s.info.settings.insert("MIN_VALUES_POLICY".into(), from_env);
            let mut warnings = resolve(&mut s, &[]).expect("valid");
            s.info.rules = crate::rules::RuleSet::at(crate::rules::CoreVersion::parse(version).expect("version").0);
            warnings.extend(super::apply_version(&mut s.info));
            warnings
        };
        let new = with("1.6.0");
        assert!(new.len() == 1 && new[0].contains("would refuse to start"), "{new:?}");
        let old = with("1.5.5");
        assert!(old.len() == 1 && old[0].contains("is ignored: Karpenter v1.5.5 has no MIN_VALUES_POLICY"), "{old:?}");
        assert!(resolve(&mut Snapshot::default(), &["NOPE=1".to_owned()]).is_err());
    }
}
