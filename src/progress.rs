//! EDGE OUT (stderr): what is happening while the tool works, the way cargo and kubectl users
//! expect it — a spinner while the input loads, a bar of candidates judged, the forecast's
//! rounds and simulated time — drawn by indicatif on stderr, which it hides by itself when
//! stderr is not a terminal (or `TERM=dumb`). `-o json|yaml` and `snapshot` ask for none.
//!
//! The replay and the forecast stay pure: they call the [`Observer`] and [`ForecastObserver`]
//! hooks this type implements, handed to them by `app.rs` through the command's context.
//!
//! On a terminal in text mode, `forecast` also prints each round's line to stdout as it is
//! decided (above the spinner). The report that follows is the whole answer, its Timeline
//! table included: the streamed lines are a live log for the person watching, and a pipe,
//! which gets no live log, gets the same report byte for byte.

use std::io::Write;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use jiff::{SignedDuration, Timestamp};

use crate::engine::observe::Observer;
use crate::forecast::{ForecastObserver, Round};

/// Where streamed round lines go (stdout, or a buffer in tests).
type Lines = Mutex<Box<dyn Write + Send>>;

/// The progress display of one run.
pub(crate) struct Progress {
    bar: ProgressBar,
    /// `forecast`'s round lines, when they are streamed (text on a terminal).
    rounds: Option<Lines>,
    colour: bool,
}

impl Progress {
    /// The display for a run: drawn on stderr when `wanted` (indicatif draws nothing when
    /// stderr is not a terminal); `stream_rounds` prints the forecast's rounds to stdout.
    pub(crate) fn new(wanted: bool, stream_rounds: bool, colour: bool) -> Progress {
        let target = if wanted { ProgressDrawTarget::stderr() } else { ProgressDrawTarget::hidden() };
        let rounds: Option<Lines> =
            stream_rounds.then(|| Mutex::new(Box::new(std::io::stdout()) as Box<dyn Write + Send>));
        Progress::with(target, rounds, colour)
    }

    fn with(target: ProgressDrawTarget, rounds: Option<Lines>, colour: bool) -> Progress {
        let bar = ProgressBar::with_draw_target(None, target);
        bar.set_style(spinner_style());
        bar.enable_steady_tick(Duration::from_millis(120));
        Progress { bar, rounds, colour }
    }

    /// The display that shows nothing (tests, and commands that write a document).
    #[cfg(test)]
    pub(crate) fn hidden() -> Progress {
        Progress::with(ProgressDrawTarget::hidden(), None, false)
    }

    /// A spinner with what is being done: `reading cluster.yaml`, `preparing the snapshot`.
    pub(crate) fn stage(&self, what: &str) {
        self.bar.set_style(spinner_style());
        self.bar.set_length(0);
        self.bar.set_message(crate::terminal::sanitize_line(what).into_owned());
    }

    /// Runs `f` (a warning written to stderr) with the display off the screen.
    pub(crate) fn suspend<R>(&self, f: impl FnOnce() -> R) -> R {
        self.bar.suspend(f)
    }

    /// Takes the display off the screen before the answer is written.
    pub(crate) fn clear(&self) {
        self.bar.finish_and_clear();
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

fn spinner_style() -> ProgressStyle {
    ProgressStyle::with_template("{spinner} {msg} ({elapsed})").unwrap_or_else(|_| ProgressStyle::default_spinner())
}

fn bar_style() -> ProgressStyle {
    ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len} ({elapsed})")
        .map_or_else(|_| ProgressStyle::default_bar(), |s| s.progress_chars("=> "))
}

impl Observer for Progress {
    fn candidates_judged(&self, done: usize, total: usize) {
        if self.bar.length() != Some(total as u64) {
            self.bar.set_style(bar_style());
            self.bar.set_message("judging candidates");
            self.bar.set_length(total as u64);
        }
        self.bar.set_position(done as u64);
    }

    fn fixes_replayed(&self, done: usize, total: usize) {
        if self.bar.message() != "replaying fixes" {
            self.bar.set_style(bar_style());
            self.bar.set_message("replaying fixes");
            self.bar.set_length(total as u64);
        }
        self.bar.set_position(done as u64);
    }
}

impl ForecastObserver for Progress {
    fn round_decided(&self, start: Timestamp, round: &Round) {
        let Some(lines) = &self.rounds else { return };
        let text = crate::render::forecast_round_lines(&crate::report::forecast::round_view(start, round));
        let text = crate::terminal::sanitize_output(&text, self.colour).into_owned();
        self.bar.suspend(|| {
            if let Ok(mut out) = lines.lock() {
                // A closed stdout loses a live line; the report's own write reports it.
                let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
            }
        });
    }

    fn clock(&self, at: SignedDuration, rounds: usize) {
        self.bar.set_style(spinner_style());
        self.bar.set_message(format!(
            "forecast: {rounds} round(s) acted, simulated +{}",
            crate::render::duration_text(at.as_secs())
        ));
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;
    use std::sync::{Arc, Mutex};

    use indicatif::ProgressDrawTarget;

    use super::Progress;
    use crate::engine::observe::Observer;
    use crate::forecast::clock::Delays;
    use crate::forecast::{forecast_observed, Limits};
    use crate::testing::{demo, now};

    /// A buffer the test reads after the progress display wrote to it.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().expect("lock").extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_replay_drives_the_candidate_bar_to_its_end() {
        let progress = Progress::hidden();
        let replay = crate::engine::replay_observed(&demo(), now(), &progress);
        assert_eq!(progress.bar.length(), Some(replay.nodes.len() as u64));
        assert_eq!(progress.bar.position(), replay.nodes.len() as u64);
        assert_eq!(replay.nodes, crate::engine::replay(&demo(), now()).nodes, "an observer changes no verdict");
        progress.candidates_judged(3, 10);
        assert_eq!((progress.bar.position(), progress.bar.length()), (3, Some(10)));
    }

    #[test]
    fn a_forecast_streams_each_round_as_decided_and_its_clock() {
        let buffer = Shared::default();
        let lines = Mutex::new(Box::new(buffer.clone()) as Box<dyn Write + Send>);
        let progress = Progress::with(ProgressDrawTarget::hidden(), Some(lines), false);
        let observed = forecast_observed(demo(), now(), &Delays::default(), Limits::default(), &progress);
        let plain = crate::forecast::forecast(demo(), now(), &Delays::default(), Limits::default());
        assert_eq!(observed, plain, "an observer changes no forecast");
        let streamed = String::from_utf8(buffer.0.lock().expect("lock").clone()).expect("UTF-8");
        assert_eq!(streamed.lines().count(), plain.rounds.iter().map(|r| r.steps.len()).sum::<usize>(), "{streamed}");
        assert!(
            streamed.starts_with("round 1 at +15s: SingleNodeConsolidation delete node-x; gone at +45s"),
            "{streamed}"
        );
        assert!(
            progress.bar.message().starts_with("forecast: 1 round(s) acted, simulated +"),
            "{}",
            progress.bar.message()
        );
    }
}
