//! PLAIN DATA OUT: the documents the commands print, as serde data (`-o json|yaml` contract).
//!
//! Each module projects the replay (or, for `pdb-audit`, the audit's judgement) into one
//! document kind. Nothing here does I/O or decides Karpenter behaviour; renderers only read
//! these types.

pub(crate) mod budgets;
pub(crate) mod diff;
pub(crate) mod doctor;
pub mod explain;
pub(crate) mod forecast;
pub(crate) mod impact;
pub(crate) mod instance_types;
pub(crate) mod money;
pub(crate) mod pdb_audit;
pub(crate) mod placement;
pub(crate) mod plan;
pub(crate) mod plan_summary;
pub(crate) mod prescription;
pub(crate) mod score;
pub(crate) mod views;

use serde::Serialize;

use crate::snapshot::API_VERSION;
pub use views::{Action, StepKind, Verdict};

/// What every report states in its header (`assumed` in JSON/YAML): the Karpenter version
/// and each setting the replay assumed, with where it came from (see `crate::settings`).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Assumed {
    pub karpenter_version: AssumedSetting,
    pub settings: std::collections::BTreeMap<String, AssumedSetting>,
    /// The rule set replayed: the core version it follows and where that came from.
    pub rules: AssumedRules,
}

/// The rule set of `Assumed`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AssumedRules {
    /// The core version whose rules are replayed, e.g. `v1.12.1`.
    pub version: String,
    /// Where it came from: `deployment kube-system/karpenter image …:1.12.2`, `snapshot`, a flag.
    pub from: String,
    /// The provider → core table row used, e.g. `aws provider v1.12.2 → core v1.12.1`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_row: Option<String>,
    /// The rules whose value differs from the newest version's (v1.14.1): each off here.
    pub differs_from_newest: Vec<AssumedRule>,
}

/// One version-dependent rule not in force at the replayed version.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AssumedRule {
    pub field: String,
    pub active: bool,
    pub pr: u32,
    pub since: String,
    /// What this version does instead.
    pub behaviour: String,
}

impl AssumedRules {
    pub fn of(rules: &crate::rules::RuleSet, resolved: &crate::rules::version::Resolved) -> AssumedRules {
        AssumedRules {
            version: rules.version.to_string(),
            from: resolved.from.clone(),
            provider_row: resolved.row.clone(),
            differs_from_newest: rules
                .differing()
                .into_iter()
                .map(|r| AssumedRule {
                    field: r.field.into(),
                    active: rules.has(r.rule),
                    pr: r.pr,
                    since: r.since.to_string(),
                    behaviour: r.before.into(),
                })
                .collect(),
        }
    }
}

/// One setting's value and source.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct AssumedSetting {
    pub value: String,
    pub source: String,
    /// Whether it is v1.14's default (the text header names only the others).
    #[serde(skip)]
    pub default: bool,
}

impl Assumed {
    /// From the settings `settings::resolve` recorded in the snapshot.
    pub fn of(info: &crate::snapshot::SnapshotInfo, resolved: &crate::rules::version::Resolved) -> Assumed {
        let view = |s: &crate::snapshot::Setting| AssumedSetting {
            value: s.value.clone(),
            source: s.source.clone(),
            default: crate::settings::is_default_source(&s.source),
        };
        let version = crate::snapshot::controller::VERSION;
        Assumed {
            karpenter_version: info.settings.get(version).map(view).unwrap_or_default(),
            settings: info.settings.iter().filter(|(k, _)| *k != version).map(|(k, s)| (k.clone(), view(s))).collect(),
            rules: AssumedRules::of(&info.rules, resolved),
        }
    }

    /// The settings that differ from v1.14's defaults.
    pub fn changed(&self) -> impl Iterator<Item = (&String, &AssumedSetting)> {
        self.settings.iter().filter(|(_, s)| !s.default)
    }
}

/// Each kind the snapshot could not read, as an `Uncertain` reason saying what it makes
/// uncertain for this command: `affects(kind)` gives that, or `None` for the general sentence.
/// Every report carries these, in text and JSON: a kind that could not be read must never pass
/// for a kind that holds nothing.
pub fn uncertain(
    unread: &[crate::snapshot::UnreadKind],
    affects: impl Fn(&str) -> Option<&'static str>,
) -> Vec<crate::reason::Reason> {
    unread
        .iter()
        // Only `doctor` reads Karpenter's disruption metrics (it says so itself).
        .filter(|u| u.kind != crate::snapshot::DISRUPTION_METRICS)
        .map(|u| {
            let what = affects(&u.kind).unwrap_or("conclusions that depend on them are uncertain");
            crate::reason::Reason::new(
                crate::reason::Code::Uncertain,
                format!("{} could not be read ({}): {what}", u.kind, u.reason),
            )
        })
        .collect()
}

/// Every document a command can print.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum Report {
    Plan(plan::Plan),
    Explain(Box<explain::NodeExplanation>),
    Score(score::Score),
    PdbAudit(pdb_audit::PdbAudit),
    Budgets(budgets::Budgets),
    Doctor(Box<doctor::Doctor>),
    InstanceTypes(Box<instance_types::Catalogue>),
    Forecast(Box<forecast::ForecastDoc>),
    ForecastComparison(Box<forecast::ComparisonDoc>),
    Diff(Box<diff::DiffDoc>),
}
