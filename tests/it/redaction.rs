//! The promise of `snapshot --redact` over every scenario, the demo, synthetic clusters and
//! the reproducers: the redacted snapshot, written out and read back, replays to the
//! original's verdicts, and `pdb-audit` files the same codes against the same workloads.

use std::path::{Path, PathBuf};

use jiff::Timestamp;
use kubectl_consolidation::redaction_oracle::redaction_differences;
use kubectl_consolidation::snapshot::{Snapshot, UnreadKind};
use kubectl_consolidation::source::file::{read_path, read_text};
use kubectl_consolidation::source::DEMO_SNAPSHOT;
use proptest::prelude::*;

use crate::savings_guard::gen;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn at_capture(snapshot: &Snapshot) -> Timestamp {
    snapshot.info.captured_at.unwrap_or_else(|| "2026-11-29T10:00:00Z".parse().unwrap())
}

fn replays_the_same(path: &Path) {
    let snapshot = read_path(path).unwrap();
    let differences = redaction_differences(&snapshot, at_capture(&snapshot));
    assert!(differences.is_empty(), "{}: {differences:#?}", path.display());
}

/// The snapshot as a user without `list replicasets` reads it: the replay and `pdb-audit`
/// then recover each Deployment from its ReplicaSets' names.
fn without_replica_sets(mut snapshot: Snapshot) -> Snapshot {
    snapshot.replica_sets.clear();
    snapshot.info.unread.push(UnreadKind { kind: "ReplicaSet".to_owned(), reason: "403 Forbidden".to_owned() });
    snapshot
}

#[test]
fn every_scenario_replays_the_same_after_redaction() {
    let mut count = 0;
    for entry in std::fs::read_dir(root().join("tests/scenarios")).unwrap() {
        replays_the_same(&entry.unwrap().path().join("snapshot.yaml"));
        count += 1;
    }
    assert!(count >= 30, "only {count} scenarios");
}

#[test]
fn nodes_that_tie_keep_their_order_through_redaction() {
    // Two nodes of equal savings: MultiNode became SingleNode once the names were hashed.
    replays_the_same(&root().join("tests/bad-input/redact-tie-changes-verdict.json"));
}

#[test]
fn a_deployment_read_from_replica_set_names_survives_redaction() {
    // Two revisions of `web`, ReplicaSets unreadable: one Deployment, not two ReplicaSets.
    replays_the_same(&root().join("tests/bad-input/redact-derived-deployment.yaml"));
}

#[test]
fn the_demo_audits_the_same_after_redaction_with_and_without_its_replica_sets() {
    let demo = read_text(DEMO_SNAPSHOT, "<demo>").unwrap();
    let now = at_capture(&demo);
    for snapshot in [demo.clone(), without_replica_sets(demo)] {
        let differences = redaction_differences(&snapshot, now);
        assert!(differences.is_empty(), "{differences:#?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

    #[test]
    fn synthetic_clusters_replay_and_audit_the_same_after_redaction(
        nodes in 4usize..16,
        pods_per_node in 2usize..12,
        seed in any::<u64>(),
        replica_sets_readable in any::<bool>(),
    ) {
        let mut params = gen::Params::scaled(nodes, nodes * pods_per_node);
        params.seed = seed;
        let snapshot = gen::generate(&params).snapshot;
        let snapshot = if replica_sets_readable { snapshot } else { without_replica_sets(snapshot) };
        let now = gen::CAPTURED_AT.parse().expect("the synthetic clock parses");
        let differences = redaction_differences(&snapshot, now);
        prop_assert!(differences.is_empty(), "{differences:#?}");
    }
}
