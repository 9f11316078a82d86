//! `kubectl-consolidation`: what will Karpenter do to my nodes, and why?
//!
//! Data flows one way:
//!
//! ```text
//! source (cluster | file) → snapshot::Snapshot → engine::replay (pure) → report → render
//!                                             ↘ audit (pure, pdb-audit) ↗
//! ```
//!
//! Only `source/` and `app.rs` touch the world; the engine is pure and deterministic.

// The docs are for contributors (`cargo doc --document-private-items`, CI denies warnings):
// a public item's doc may point at the private code that does the work.
#![allow(rustdoc::private_intra_doc_links)]

pub mod app;
pub(crate) mod audit;
pub(crate) mod catalogue;
pub(crate) mod cli;
pub(crate) mod commands;
pub(crate) mod completion;
pub(crate) mod doctor;
pub(crate) mod echo;
pub mod engine;
pub mod error;
pub(crate) mod error_style;
pub(crate) mod event_emitter;
pub mod forecast;
pub mod forecast_oracle;
pub(crate) mod manifest;
pub(crate) mod object_ref;
pub(crate) mod prepare;
pub(crate) mod prescription;
pub(crate) mod progress;
pub mod quantity;
pub mod reason;
pub mod redaction_oracle;
pub(crate) mod render;
pub mod report;
pub mod rules;
pub(crate) mod settings;
pub(crate) mod sink;
pub mod snapshot;
pub mod source;
pub(crate) mod target;
pub(crate) mod terminal;
pub mod terminal_oracle;
pub(crate) mod unlock;
pub mod upstream;
pub(crate) mod version;
pub(crate) mod whatif;

#[cfg(test)]
mod testing;
