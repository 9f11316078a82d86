//! JSON snapshots: the streaming decoder and the text decoder agree (when the stream decodes,
//! the text decodes to the same snapshot), and neither panics.
#![no_main]

use kubectl_consolidation::snapshot::Snapshot;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let streamed = Snapshot::from_json_reader(data);
    if let Ok(text) = std::str::from_utf8(data) {
        let whole = Snapshot::from_json(text);
        if let Some(streamed) = streamed {
            assert_eq!(whole.as_ref().ok(), Some(&streamed), "the two decoders disagree");
        }
    }
    let _ = kubectl_consolidation::source::file::read_bytes(data.to_vec(), "fuzz.json");
});
