//! The promise of `snapshot --redact` (`snapshot/redact/`), as a check: the redacted snapshot, written out and read
//! back, replays to the same verdicts as the original. Used by the tests over every scenario
//! and by the fuzzer (`fuzz/fuzz_targets/replay.rs`); the tests are in `tests/redaction.rs`.

use jiff::Timestamp;

use crate::engine::{replay, NodeVerdict, Replay};
use crate::snapshot::redact::redact_with_names;
use crate::snapshot::Snapshot;

/// What differs between the replay of `snapshot` and that of its redaction, one line per
/// difference; empty when the promise holds. Nodes are matched through the replacements.
pub fn redaction_differences(snapshot: &Snapshot, now: Timestamp) -> Vec<String> {
    let (redacted, names) = redact_with_names(snapshot);
    let read_back = match Snapshot::from_documents(vec![redacted.to_document()]) {
        Ok(read) => read,
        Err(e) => return vec![format!("the redacted snapshot does not read back: {e}")],
    };
    let (before, after) = (replay(snapshot, now), replay(&read_back, now));
    let mut differences = Vec::new();
    if summary(&before) != summary(&after) {
        differences.push(format!("round: {:?} became {:?}", summary(&before), summary(&after)));
    }
    if before.nodes.len() != after.nodes.len() {
        differences.push(format!("{} nodes became {}", before.nodes.len(), after.nodes.len()));
    }
    for a in &before.nodes {
        // A row is named by its Node, or by its NodeClaim when it has no Node.
        let category = if snapshot.nodes.iter().any(|n| n.metadata.name == a.name) { "node" } else { "nodeclaim" };
        let renamed = names.get(category, &a.name).unwrap_or(&a.name);
        match after.nodes.iter().find(|b| b.name == renamed) {
            Some(b) if verdict(a) != verdict(b) => {
                differences.push(format!("{} ({renamed}): {:?} became {:?}", a.name, verdict(a), verdict(b)));
            }
            Some(_) => {}
            None => differences.push(format!("{} ({renamed}) has no verdict after redaction", a.name)),
        }
    }
    differences
}

type Summary = (Option<crate::engine::method::Method>, Vec<(crate::engine::nodepool::DisruptionReason, usize, usize)>);

fn summary(replay: &Replay) -> Summary {
    let commands = replay.commands.iter().map(|c| (c.reason, c.candidates.len(), c.replacements.len())).collect();
    (replay.method, commands)
}

fn verdict(node: &NodeVerdict) -> impl PartialEq + std::fmt::Debug + '_ {
    (node.verdict, node.action, node.method, node.reason, &node.blockers)
}
