//! PURE: the replay of one round of Karpenter's disruption controller.
//!
//! Takes a [`crate::snapshot::Snapshot`] and a clock value, returns a [`Replay`]: the method that
//! acts this round, its commands, and a verdict per node with every finding that led to it.
//! No I/O, no wall clock, no async; deterministic (sorted collections, name tie-breaks). The
//! setup builds three independent parts on scoped threads ([`setup`]); each is a function of
//! the cluster alone, so the result does not depend on how the threads run.

pub mod balanced;
pub mod budget;
pub mod candidate;
pub mod controller;
pub mod cost;
pub mod cron;
pub mod labels;
pub mod method;
pub mod min_values;
pub mod nodepool;
pub mod pdb;
pub mod pod;
pub mod pricing;
pub mod redaction_oracle;
pub mod scheduling;
pub mod scoring;
pub mod setup;
pub mod state;
pub mod verdict;
pub mod volumes;

pub use controller::{replay, replay_focused, CommandView, Replay};
pub use verdict::{Action, NodeVerdict, PodView, Step, StepKind, Verdict};
