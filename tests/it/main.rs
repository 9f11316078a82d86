//! The integration tests: one binary, one module per concern (cargo builds and links each
//! `tests/*.rs` file as its own binary, so one binary keeps the suite's link time flat).
//!
//! - `cli`: the binary's contract — flags, exit codes, streams, plugin discovery.
//! - `flags`: `-l`/`-n`/`-A` on plan, score, budgets; `explain pod/X`; `--set`; fixes; errors; the README sample.
//! - `completion`: kubectl's completion protocol, live names, the bash/zsh/fish scripts.
//! - `krew`: the krew manifest `scripts/krew-local.sh` renders, against krew's rules.
//! - `golden`: rendered output of every command, byte for byte (insta snapshots).
//! - `habits`: kubectl habits (`-o name`, `-o jsonpath`, `version`, `-n`, colour), one error
//!   style, money without float noise.
//! - `impact`: what `explain` and `plan` say disrupting nodes costs the workloads.
//! - `provisioning`: new replicas from `--set` scheduled before the round, on the demo.
//! - `acceptance`: every `tests/scenarios/*` folder replayed and matched against its `expect.json`.
//! - `live`: live mode over real HTTP against the fake API server in `support`.
//! - `savings_guard`: no consolidation replacement without a saving at its worst launch price,
//!   on every scenario's report and as a property over synthetic clusters.
//! - `screen`: every answer fits `COLUMNS` (goldens at 80 and 200 columns, no line too wide).
//! - `layering`: the one-way data flow and no import circle between files, checked on the source text.
//! - `redaction`: `snapshot --redact` replays to the same verdicts, on every scenario.
//! - `bad_input`: hostile and broken files through the binary, bounded in time and memory.
//! - `fuzz_regressions`: every input a fuzz target failed on, with that target's oracle; the
//!   `render` and `forecast` oracles also as properties over hostile snapshots.

mod acceptance;
mod bad_input;
mod cli;
#[cfg(unix)]
mod completion;
mod diff;
mod doctor_live;
mod flags;
mod forecast;
mod fuzz_regressions;
mod golden;
mod habits;
mod impact;
#[cfg(unix)]
mod krew;
mod layering;
mod live;
mod provisioning;
mod redaction;
mod savings_guard;
mod screen;
mod support;
mod version_matrix;
