//! PURE: the replay of one round of Karpenter's disruption controller.
//!
//! Takes a [`crate::snapshot::Snapshot`] and a clock value, returns a [`Replay`]: the method that
//! acts this round, its commands, and a verdict per node with every finding that led to it.
//! No I/O, no wall clock, no async; deterministic (sorted collections, name tie-breaks). The
//! setup builds three independent parts on scoped threads ([`setup`]); each is a function of
//! the cluster alone, so the result does not depend on how the threads run.

pub(crate) mod balanced;
pub mod budget;
pub(crate) mod candidate;
pub(crate) mod controller;
pub(crate) mod cost;
pub(crate) mod cron;
pub(crate) mod estimates;
pub(crate) mod incremental;
pub mod labels;
pub(crate) mod method;
pub(crate) mod min_values;
pub(crate) mod nodepool;
pub mod observe;
pub(crate) mod pdb;
pub(crate) mod pod;
pub(crate) mod pricing;
pub(crate) mod provisioner;
pub mod scheduling;
pub(crate) mod scoring;
pub(crate) mod setup;
pub(crate) mod state;
pub(crate) mod verdict;
pub(crate) mod virtual_pods;

#[cfg(test)]
pub(crate) use controller::replay_round;
pub(crate) use controller::replay_round_with;
pub use controller::{replay, replay_focused, replay_observed, CommandView, Replay};
pub(crate) use incremental::round_cache::RoundCache;
pub use verdict::{Action, NodeVerdict, PodView, Step, StepKind, Verdict};
