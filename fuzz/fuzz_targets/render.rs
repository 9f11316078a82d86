//! The text renderer on any snapshot that loads: `plan`, `explain`, `pdb-audit` and `forecast`
//! in text, wide and Markdown (colour off), warnings and errors included, print no raw
//! control, bidi or zero-width character (`terminal_oracle::raw_characters`).
#![no_main]

use kubectl_consolidation::terminal_oracle::raw_characters;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(snapshot) = kubectl_consolidation::source::file::read_bytes(data.to_vec(), "fuzz") else { return };
    let raw = raw_characters(&snapshot);
    assert!(raw.is_empty(), "raw characters reached the terminal: {raw:#?}");
});
