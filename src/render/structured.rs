//! JSON and YAML. A report holds only string-keyed maps and plain values, so serialising it
//! cannot fail; the `expect`s say so.

use crate::report::Report;

pub(super) fn json(report: &Report) -> String {
    let mut out = serde_json::to_string_pretty(report).expect("reports serialise to JSON");
    out.push('\n');
    out
}

pub(super) fn yaml(report: &Report) -> String {
    let value = serde_json::to_value(report).expect("reports serialise");
    serde_saphyr::to_string(&value).expect("reports serialise to YAML")
}
