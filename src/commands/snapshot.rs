//! `snapshot [--redact]`: where and in which format the state that was read is written. The
//! writing itself is `app.rs`'s (it streams object by object through a `Sink`).

use std::path::Path;

use super::Failure;
use crate::cli::Output;
use crate::render::Format;
use crate::sink::Sink;
use crate::snapshot::Snapshot;

/// From this many pods, `snapshot` without `-o` writes JSON: a YAML snapshot of 10,000 pods
/// and more takes over ten times as long as the same JSON to read back (bench/RESULTS.md).
const JSON_BY_DEFAULT_FROM_PODS: usize = 10_000;

/// How to write the snapshot, and a note for stderr when the format was chosen for the user.
pub(crate) struct Plan {
    pub json: bool,
    pub sink: Sink,
    pub note: Option<String>,
}

pub(crate) fn plan(output: &Output, snapshot: &Snapshot) -> Result<Plan, Failure> {
    let stdout = |json: bool| Plan { json, sink: Sink::Stdout, note: None };
    Ok(match output {
        Output::Format(Format::Json) => stdout(true),
        Output::Format(Format::Text) if snapshot.pods.len() >= JSON_BY_DEFAULT_FROM_PODS => Plan {
            note: Some(format!(
                "{} pods: writing JSON, which reads back over ten times faster than YAML at this size; -o yaml writes YAML",
                snapshot.pods.len()
            )),
            ..stdout(true)
        },
        Output::Format(Format::Yaml | Format::Text) => stdout(false),
        Output::Format(other) => {
            return Err(Failure::Usage(format!("snapshot writes yaml or json, not {other:?}").to_lowercase()))
        }
        Output::Name | Output::JsonPath(_) => {
            return Err(Failure::Usage(
                "snapshot writes a document: -o yaml, -o json or -o FILE, not -o name or jsonpath".to_owned(),
            ))
        }
        Output::File(path) => Plan { json: is_json(path), sink: Sink::File(path.clone()), note: None },
    })
}

fn is_json(path: &Path) -> bool {
    path.extension().is_some_and(|e| e == "json")
}
