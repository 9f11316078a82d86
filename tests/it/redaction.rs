//! The promise of `snapshot --redact` over every scenario and the tie reproducer: the redacted
//! snapshot, written out and read back, replays to the original's verdicts.

use std::path::{Path, PathBuf};

use kubectl_consolidation::redaction_oracle::redaction_differences;
use kubectl_consolidation::source::file::read_path;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn replays_the_same(path: &Path) {
    let snapshot = read_path(path).unwrap();
    let now = snapshot.info.captured_at.unwrap_or_else(|| "2026-11-29T10:00:00Z".parse().unwrap());
    let differences = redaction_differences(&snapshot, now);
    assert!(differences.is_empty(), "{}: {differences:#?}", path.display());
}

#[test]
fn every_scenario_replays_the_same_after_redaction() {
    let mut count = 0;
    for entry in std::fs::read_dir(root().join("tests/scenarios")).unwrap() {
        replays_the_same(&entry.unwrap().path().join("snapshot.yaml"));
        count += 1;
    }
    assert!(count >= 30, "only {count} scenarios");
}

#[test]
fn nodes_that_tie_keep_their_order_through_redaction() {
    // Two nodes of equal savings: MultiNode became SingleNode once the names were hashed.
    replays_the_same(&root().join("tests/bad-input/redact-tie-changes-verdict.json"));
}
