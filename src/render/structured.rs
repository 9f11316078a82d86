//! JSON and YAML. A report holds only string-keyed maps and plain values, so serialising it
//! cannot fail; the `expect`s say so. Every document carries `assumed`: the Karpenter version
//! and settings the replay assumed.

use serde::Serialize;

use crate::report::Assumed;
use crate::report::Report;

#[derive(Serialize)]
struct Framed<'a> {
    #[serde(flatten)]
    report: &'a Report,
    assumed: &'a Assumed,
}

pub(super) fn json(report: &Report, assumed: &Assumed) -> String {
    let mut out = serde_json::to_string_pretty(&Framed { report, assumed }).expect("reports serialise to JSON");
    out.push('\n');
    out
}

pub(super) fn yaml(report: &Report, assumed: &Assumed) -> String {
    serde_saphyr::to_string(&value(report, assumed)).expect("reports serialise to YAML")
}

/// The document as a JSON value (what `-o yaml` and `-o jsonpath` read).
pub(super) fn value(report: &Report, assumed: &Assumed) -> serde_json::Value {
    serde_json::to_value(Framed { report, assumed }).expect("reports serialise")
}
