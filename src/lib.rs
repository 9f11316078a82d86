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

pub mod app;
pub mod audit;
pub mod catalogue;
pub mod cli;
pub mod completion;
pub mod engine;
pub mod error;
pub mod object_ref;
pub mod quantity;
pub mod reason;
pub mod render;
pub mod report;
pub mod settings;
pub mod sink;
pub mod snapshot;
pub mod source;
pub mod target;
pub mod upstream;
pub mod version;
pub mod whatif;

#[cfg(test)]
mod testing;
