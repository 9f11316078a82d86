//! Which of Karpenter's options a core version has, and their defaults there
//! (`pkg/operator/options/options.go` at each tag): the settings the replay reads and the
//! feature gates. A setting the version lacks is never read by that controller (an env var it
//! does not know is ignored), so the replay drops it with a warning; a gate it lacks is off.
//!
//! Read at every tag v1.0.0 … v1.14.1 (docs/VERSION-RULES.md §7, `data/karpenter-versions/options.tsv`).
//! Pure.

use super::{Rule, RuleSet};

/// A setting that did not exist at every supported version.
#[derive(Debug, Clone, Copy)]
pub struct VersionedSetting {
    /// The env name (`PREFERENCE_POLICY`).
    pub name: &'static str,
    /// The rule whose version added it: the setting exists exactly where the rule is in force.
    pub rule: Rule,
    /// Its value where it does not exist: what that version does without it.
    pub implied: &'static str,
}

/// The settings the replay reads that a version may lack; `FEATURE_GATES`,
/// `VM_MEMORY_OVERHEAD_PERCENT` and `RESERVED_ENIS` exist at every supported version.
pub const VERSIONED_SETTINGS: [VersionedSetting; 3] = [
    // v1.4.0 options.go:112 (#2122); before, preferences were always respected.
    VersionedSetting { name: "PREFERENCE_POLICY", rule: Rule::PreferencePolicySetting, implied: "Respect" },
    // v1.6.0 options.go:124 (#2299); before, minValues was always strict.
    VersionedSetting { name: "MIN_VALUES_POLICY", rule: Rule::MinValuesPolicySetting, implied: "Strict" },
    // v1.7.0 options.go:130, with #2384's DRA handling; before, DRA claims were ignored.
    VersionedSetting { name: "IGNORE_DRA_REQUESTS", rule: Rule::DraPodsUnschedulable, implied: "false" },
];

/// Feature gates by the first minor that has them (`FeatureGates` in options.go: v1.0.0 :102,
/// v1.1.0 :101, v1.3.0 :102, v1.7.0 :131, v1.14.1 :134), in the order of options.go's
/// `feature-gates` default string. None was backported.
const GATES: [(&str, u32); 6] = [
    ("NodeRepair", 1),
    ("ReservedCapacity", 3),
    ("SpotToSpotConsolidation", 0),
    ("NodeOverlay", 7),
    ("StaticCapacity", 7),
    ("CapacityBuffer", 14),
];

/// The setting `name` if a version may lack it.
pub fn versioned(name: &str) -> Option<&'static VersionedSetting> {
    VERSIONED_SETTINGS.iter().find(|s| s.name == name)
}

/// Whether the version of `rules` reads the setting `name`.
pub fn setting_exists(rules: &RuleSet, name: &str) -> bool {
    versioned(name).is_none_or(|s| rules.has(s.rule))
}

/// A gate's default at the version of `rules`; `None` where the gate does not exist (an
/// unknown gate name is ignored by `ParseFeatureGates`). Only `ReservedCapacity` ever
/// defaulted on, from v1.6.0 (#2365).
pub fn gate_default(rules: &RuleSet, name: &str) -> Option<bool> {
    let (_, minor) = GATES.iter().find(|(gate, _)| *gate == name)?;
    if rules.version.minor < *minor {
        return None;
    }
    Some(name == "ReservedCapacity" && rules.has(Rule::ReservedCapacityDefaultOn))
}

/// The version's default `FEATURE_GATES` string, in options.go's order.
pub fn default_feature_gates(rules: &RuleSet) -> String {
    GATES
        .iter()
        .filter_map(|(gate, _)| gate_default(rules, gate).map(|on| format!("{gate}={on}")))
        .collect::<Vec<_>>()
        .join(",")
}

/// The first minor with gate `name`, for a warning.
pub fn gate_since(name: &str) -> Option<u32> {
    GATES.iter().find(|(gate, _)| *gate == name).map(|(_, minor)| *minor)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::CoreVersion;

    fn at(minor: u32, patch: u32) -> RuleSet {
        RuleSet::at(CoreVersion::new(1, minor, patch))
    }

    #[test]
    fn settings_exist_from_the_version_that_added_them() {
        assert!(!setting_exists(&at(3, 5), "PREFERENCE_POLICY") && setting_exists(&at(4, 0), "PREFERENCE_POLICY"));
        assert!(!setting_exists(&at(5, 5), "MIN_VALUES_POLICY") && setting_exists(&at(6, 0), "MIN_VALUES_POLICY"));
        assert!(!setting_exists(&at(6, 4), "IGNORE_DRA_REQUESTS") && setting_exists(&at(7, 0), "IGNORE_DRA_REQUESTS"));
        assert!(setting_exists(&at(0, 0), "FEATURE_GATES") && setting_exists(&at(0, 0), "RESERVED_ENIS"));
    }

    #[test]
    fn gate_defaults_follow_options_go() {
        // v1.5.5 options.go:115 and its suite_test.go:94; v1.6.0 :125 and suite_test.go:98.
        assert_eq!(default_feature_gates(&at(0, 9)), "SpotToSpotConsolidation=false");
        assert_eq!(
            default_feature_gates(&at(5, 5)),
            "NodeRepair=false,ReservedCapacity=false,SpotToSpotConsolidation=false"
        );
        assert_eq!(
            default_feature_gates(&at(6, 0)),
            "NodeRepair=false,ReservedCapacity=true,SpotToSpotConsolidation=false"
        );
        assert_eq!(
            default_feature_gates(&at(14, 1)),
            "NodeRepair=false,ReservedCapacity=true,SpotToSpotConsolidation=false,NodeOverlay=false,StaticCapacity=false,CapacityBuffer=false"
        );
        assert_eq!(gate_default(&at(2, 5), "ReservedCapacity"), None, "no reserved capacity before v1.3.0");
        assert_eq!(gate_default(&at(6, 4), "NodeOverlay"), None);
    }
}
