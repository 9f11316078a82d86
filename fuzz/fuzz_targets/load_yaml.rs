//! The snapshot loader on any text (YAML unless it starts like JSON): an error or a snapshot,
//! never a panic, and the error renders.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(e) = kubectl_consolidation::source::file::read_bytes(data.to_vec(), "fuzz.yaml") {
        let _ = format!("{:?}", miette_report(e));
    }
});

fn miette_report(e: kubectl_consolidation::error::Error) -> String {
    let mut out = String::new();
    let handler = miette::GraphicalReportHandler::new();
    let _ = handler.render_report(&mut out, &e);
    out
}
