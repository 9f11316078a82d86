//! The forecast on any snapshot that loads ends within its round bound, with and without
//! `--rounds` (`forecast_oracle::forecast_overrun`; libFuzzer's `-timeout` backs the
//! oracle's own limit).
#![no_main]

use std::time::Duration;

use kubectl_consolidation::forecast_oracle::forecast_overrun;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(snapshot) = kubectl_consolidation::source::file::read_bytes(data.to_vec(), "fuzz") else { return };
    for rounds in [None, Some(2)] {
        let overrun = forecast_overrun(&snapshot, rounds, Duration::from_secs(15));
        assert!(overrun.is_none(), "the forecast broke its bound: {overrun:?}");
    }
});
