//! The promise of `snapshot --redact` (`snapshot/redact/`), as a check: the redacted snapshot, written out and read
//! back, replays to the same verdicts as the original, and `pdb-audit` files the same finding
//! codes against the same (redacted) workloads. Used by the tests over every scenario, the
//! demo and synthetic clusters, and by the fuzzer (`fuzz/fuzz_targets/replay.rs`); the tests
//! are in `tests/it/redaction.rs`.

use std::collections::BTreeMap;

use jiff::Timestamp;

use crate::audit::{pdb_audit, Scope};
use crate::engine::{replay, NodeVerdict, Replay};
use crate::snapshot::redact::{redact_with_names, Replacements};
use crate::snapshot::Snapshot;

/// What differs between the replay of `snapshot` and that of its redaction, one line per
/// difference; empty when the promise holds. Nodes are matched through the replacements.
pub fn redaction_differences(snapshot: &Snapshot, now: Timestamp) -> Vec<String> {
    let (redacted, names) = redact_with_names(snapshot);
    let read_back = match Snapshot::from_documents(vec![redacted.to_document()]) {
        Ok(read) => read,
        Err(e) => return vec![format!("the redacted snapshot does not read back: {e}")],
    };
    let mut differences = verdict_differences(snapshot, &read_back, &names, now);
    differences.extend(audit_differences(snapshot, &read_back, &names, now));
    differences
}

fn verdict_differences(snapshot: &Snapshot, read_back: &Snapshot, names: &Replacements, now: Timestamp) -> Vec<String> {
    let (before, after) = (replay(snapshot, now), replay(read_back, now));
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

/// `pdb-audit -A` over both snapshots: the codes filed against each workload (a PDB that
/// selects no pod is keyed by the PDB), the original's keys spelled as the redaction names them.
fn audit_differences(snapshot: &Snapshot, read_back: &Snapshot, names: &Replacements, now: Timestamp) -> Vec<String> {
    let everywhere = Scope { namespace: None, all_namespaces: true, selector: None };
    let before = codes_by_workload(snapshot, now, &everywhere, |kind, key| names.object_key(kind, key));
    let after = codes_by_workload(read_back, now, &everywhere, |_, key| key.to_owned());
    let mut differences = Vec::new();
    for key in before.keys().chain(after.keys().filter(|k| !before.contains_key(*k))) {
        let (was, is) = (before.get(key), after.get(key));
        if was != is {
            differences.push(format!("pdb-audit on {key}: {was:?} became {is:?}"));
        }
    }
    differences
}

fn codes_by_workload(
    snapshot: &Snapshot,
    now: Timestamp,
    scope: &Scope,
    spell: impl Fn(&str, &str) -> String,
) -> BTreeMap<String, Vec<&'static str>> {
    let mut out: BTreeMap<String, Vec<&'static str>> = BTreeMap::new();
    for finding in pdb_audit(snapshot, now, scope).findings {
        let subject = &finding.subject;
        let mut keys: Vec<String> = subject.workload.iter().chain(&subject.workloads).map(|w| spell("", w)).collect();
        if keys.is_empty() {
            keys.extend(subject.pdb.iter().chain(&subject.pdbs).map(|p| spell("PodDisruptionBudget", p)));
        }
        keys.sort();
        keys.dedup();
        for key in keys {
            out.entry(key).or_default().push(finding.code.as_str());
        }
    }
    for codes in out.values_mut() {
        codes.sort_unstable();
    }
    out
}

type Summary = (Option<crate::engine::method::Method>, Vec<(crate::engine::nodepool::DisruptionReason, usize, usize)>);

fn summary(replay: &Replay) -> Summary {
    let commands = replay.commands.iter().map(|c| (c.reason, c.candidates.len(), c.replacements.len())).collect();
    (replay.method, commands)
}

fn verdict(node: &NodeVerdict) -> impl PartialEq + std::fmt::Debug + '_ {
    (node.verdict, node.action, node.method, node.reason, &node.blockers)
}
