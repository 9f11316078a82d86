//! The whole replay on any snapshot that loads, with two oracles: it never panics, and the
//! replay of the redacted snapshot (as `snapshot --redact` writes it, read back) gives the
//! original's verdicts.
#![no_main]

use kubectl_consolidation::redaction_oracle::redaction_differences;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(snapshot) = kubectl_consolidation::source::file::read_bytes(data.to_vec(), "fuzz") else { return };
    let now = snapshot.info.captured_at.unwrap_or_else(|| "2026-11-29T10:00:00Z".parse().unwrap());
    let differences = redaction_differences(&snapshot, now);
    assert!(differences.is_empty(), "redaction changed the verdicts: {differences:#?}");
});
