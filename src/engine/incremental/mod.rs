//! No upstream twin: what makes `plan` and `forecast` fast. Karpenter recomputes these per
//! simulation or per round; we compute them once and reuse them while what they were computed
//! from is unchanged. The twins in [`crate::engine::scheduling`] read these through plain
//! accessors, so they read as upstream's code does.
//!
//! Every cache here states what it keys on, and each is checked against a fresh computation:
//!
//! | file | what it holds | keyed on / valid while | how it is checked |
//! |---|---|---|---|
//! | `world.rs` (`world/fit_key.rs`: what a static fit is memoised from) | what every simulation of one replay shares: each node as a destination, every pod's fit, the NodePools' templates, memoised topology counts | one replay of one snapshot (built per round) | a simulation records only its own changes on top; the scheduler's tests compare against a pass that rebuilds |
//! | `world/counts.rs` | the topology counts every simulation starts from | topology key and pod filter, per world | debug builds recount a reused tally and assert equality |
//! | `fit_list.rs` | the nodes that statically accept a class of pods, with room bounds | the pod's fit key (requirements, tolerations) | unit tests of the pruning bound (a zero request is never refused) |
//! | `pod_index.rs` | pods in place by namespace and label | the pods' namespaces and labels | unit tests against a scan of every pod |
//! | `pod_requests.rs` | each pod's requests, shared per controller | the pod's containers (fixed for a snapshot) | computed from the same function as a lone pod's |
//! | `anti_affinity_index.rs` | required anti-affinity terms of the pods in place, by label | the terms' selectors | the scheduler's differential tests |
//! | `shared_pods.rs` (its `Baseline` and `Tracker` types: `shared_pods/baseline.rs`) | the pending and deleting nodes' pods placed once with no candidate removed | a proof per pod that the candidate cannot change its first attempt (see the file) | `shared_pods/tests.rs`: random clusters, the reuse against placing every pod again |
//! | `world_memo.rs` | across a forecast's rounds: requests, each node's destination parts, static answers, kept counts | a copy of each node's inputs (Node, NodeClaim, its pods) and a stamp per node | debug builds compare every node and assert that nothing changed unannounced; kept fit keys are re-derived and compared |
//! | `kept_pod_index.rs` | the pod index across rounds | positions in `snapshot.pods` (a forecast only appends pods and never relabels one) | rebuilt and compared in `world_memo/tests.rs` |
//! | `pod_table.rs` | per pod of a forecast's snapshot: the PDBs selecting it, the facts its candidacy gates read | position in `snapshot.pods` (a forecast never changes a pod's labels, owners or annotations, nor a PDB's selector) | `round_cache.rs` tests: an appended pod and its PDB |
//! | `refusal_memo.rs` | across rounds: each SingleNode candidate's decision-only refusal | every node's parts reused since it was kept, the same pods' status bytes, pending pods, deleting nodes and their movers, `under_consolidate_after` per node; per candidate its held pods and price | debug builds simulate again on every hit and assert the same refusal; `refusal_memo/tests.rs` |
//! | `round_cache.rs` | across rounds: the PDBs per pod, the candidacy facts, the memo above | what the forecast says it changed, verified in debug builds | `round_cache.rs` tests: a round with the cache gives the bytes of one without |
//!
//! A new cache goes here, not among the twins, with its row in this table: what it keys on,
//! and the test or debug assertion that holds it against a fresh computation.
//!
//! The caches import the twins' plain types, never the simulation; only `shared_pods.rs`, which
//! runs simulations to build its baseline, sits above it. What the world and the scheduler both
//! name of a cache (`Baseline`, `Tracker`, `FitKey`) lives in a file that imports neither.

pub(crate) mod anti_affinity_index;
pub(crate) mod fit_list;
pub(crate) mod kept_pod_index;
pub(crate) mod pod_index;
pub(crate) mod pod_requests;
pub(crate) mod pod_table;
pub(crate) mod refusal_memo;
pub(crate) mod round_cache;
pub(crate) mod shared_pods;
#[cfg(test)]
pub(crate) mod test_clusters;
pub(crate) mod world;
pub(crate) mod world_memo;
