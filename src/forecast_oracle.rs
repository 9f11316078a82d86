//! The promise that `forecast` ends (issue #30), as a check: on any snapshot it stops within
//! its round bound (`--rounds N` rounds that act, else [`crate::forecast::MAX_ROUNDS`]; a budget
//! window that never opens is "blocked for good" after at most `MAX_WINDOW_HOPS` window
//! changes, not a round each) and within a wall-clock limit. Used by
//! `tests/it/fuzz_regressions.rs` (a property over hostile budgets and every input in
//! `fuzz/seeds/forecast` and `tests/fuzz-regressions/forecast`) and the fuzz target
//! `fuzz/fuzz_targets/forecast.rs`.

use std::sync::mpsc;
use std::time::Duration;

use crate::forecast::clock::Delays;
use crate::forecast::{forecast, Limits, Stop, MAX_ROUNDS};
use crate::snapshot::Snapshot;

/// How the forecast of `snapshot` with `rounds` (`--rounds`) broke its bound, or `None` when
/// it ended within it. The forecast runs on its own thread so that a hang is reported after
/// `limit` instead of hanging the caller (the thread is then left to the process's end).
pub fn forecast_overrun(snapshot: &Snapshot, rounds: Option<usize>, limit: Duration) -> Option<String> {
    let now = snapshot.info.captured_at.unwrap_or_else(|| "2026-11-29T10:00:00Z".parse().unwrap_or_default());
    let snapshot = snapshot.clone();
    let (done, ended) = mpsc::channel();
    let spawned = std::thread::Builder::new().name("forecast".into()).spawn(move || {
        let f = forecast(snapshot, now, &Delays::default(), Limits { rounds, until: None });
        // The receiver is gone only after a timeout, which is already the finding.
        let _ = done.send((f.rounds.len(), f.max_rounds, f.stop));
    });
    if let Err(e) = spawned {
        return Some(format!("could not start the forecast's thread: {e}"));
    }
    let bound = rounds.unwrap_or(MAX_ROUNDS);
    match ended.recv_timeout(limit) {
        Err(mpsc::RecvTimeoutError::Timeout) => Some(format!("did not end within {limit:?} (--rounds {rounds:?})")),
        Err(mpsc::RecvTimeoutError::Disconnected) => Some(format!("panicked (--rounds {rounds:?})")),
        Ok((acted, max, _)) if max != bound || acted > bound => {
            Some(format!("{acted} rounds acted, bound {max}, expected at most {bound}"))
        }
        Ok((_, _, Stop::Bound)) if rounds.is_some() => Some("stopped by the safety bound despite --rounds".into()),
        Ok(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demo_forecast_ends_within_its_bound() {
        for rounds in [None, Some(1), Some(3)] {
            assert_eq!(forecast_overrun(&crate::testing::demo(), rounds, Duration::from_secs(60)), None);
        }
    }
}
