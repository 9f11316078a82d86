//! The options every YAML snapshot is parsed with, streamed (`yaml_stream.rs`) or whole (the
//! file reader): the nesting bound shared with JSON, and an alias bound that scales with the
//! input. Pure: the reader passes the text it read.

use super::MAX_DEPTH;

/// The options every YAML stream `text` is parsed with, streamed or whole: no budget but
/// nesting and aliases.
pub fn yaml_options(text: &str) -> serde_saphyr::Options {
    let mut budget = serde_saphyr::Budget::default();
    budget.max_events = usize::MAX;
    budget.max_nodes = usize::MAX;
    budget.max_total_scalar_bytes = usize::MAX;
    budget.max_documents = usize::MAX;
    budget.max_reader_input_bytes = None;
    budget.max_depth = MAX_DEPTH;
    // kubectl never writes aliases, but PyYAML does (`&id001`). One alias can stand for a
    // megabyte of text, and ten thousand of them for ten gigabytes of values, so a count of
    // aliases bounds nothing: the events they replay are bounded so that, each at most as
    // large as the longest scalar can be, they add at most 8 times the input (per document:
    // the parser counts them afresh after each `---`).
    let mut alias_limits = serde_saphyr::options::AliasLimits::default();
    alias_limits.max_total_replayed_events = REPLAY_FACTOR * text.len() / longest_scalar(text).max(1) + 64;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options.alias_limits = alias_limits;
    options.strict_booleans = true;
    options.leading_zero_numbers_as_strings = true;
    options
}

/// Aliases may add at most this many times the input's size (the file reader's diagnostic
/// names it).
pub const REPLAY_FACTOR: usize = 8;

/// An upper bound on one scalar's size: the longest line, or the whole text when a block
/// scalar (`|`, `>`), which spans lines, is present.
fn longest_scalar(text: &str) -> usize {
    let block = text.lines().any(|l| {
        let t = l.trim_end();
        t.ends_with(['|', '>']) || t.ends_with("|-") || t.ends_with(">-") || t.ends_with("|+") || t.ends_with(">+")
    });
    if block {
        text.len()
    } else {
        text.lines().map(str::len).max().unwrap_or(0)
    }
}
