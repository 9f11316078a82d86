//! What a replay tells the edge while it runs, so a terminal can show progress. The replay
//! calls these hooks and nothing else: the observer is passed in by the caller (no global
//! state), draws wherever it likes (the engine does no I/O), and cannot change a result.

/// Called by the replay as it works; every method does nothing unless overridden.
pub trait Observer: Sync {
    /// `done` of `total` candidates have their verdict.
    fn candidates_judged(&self, done: usize, total: usize) {
        let _ = (done, total);
    }
    /// `done` of `total` fixes have been replayed (`src/prescription/`).
    fn fixes_replayed(&self, done: usize, total: usize) {
        let _ = (done, total);
    }
}

/// The observer that watches nothing: what every replay without a display uses.
#[derive(Debug, Clone, Copy, Default)]
pub struct Unobserved;

impl Observer for Unobserved {}
