//! The cluster as the forecast carries it from round to round: the snapshot, changed in place
//! by each command (nothing is rebuilt from the original), the clock, and what is in flight.

use std::collections::{BTreeMap, BTreeSet};

use foldhash::HashMap;
use jiff::Timestamp;

use super::disruptions::Ledger;
use crate::audit::budget::Rule;
use crate::engine::incremental::pod_table::PodTable;
use crate::engine::state::PodsByNode;
use crate::snapshot::{Condition, Snapshot};

/// A command Karpenter started and has not finished: its replacements are launching, or its
/// candidates draining. Its candidates count against the budget until they are gone.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct InFlight {
    pub candidates: Vec<String>,
    pub replacements: Vec<String>,
    /// The replacements are initialized and the candidates' NodeClaims deleted (a delete
    /// command's start).
    pub drain_at: Timestamp,
    /// The candidates' last pods have terminated: the nodes are gone (`None`: a pod no budget
    /// ever lets go holds them, and no `terminationGracePeriod` ends the wait).
    pub gone_at: Option<Timestamp>,
    pub drained: bool,
    /// Each moving pod (`ns/name`), where it lands (`None`: nowhere, it stays pending), and when
    /// its new copy is Ready.
    pub landing: Vec<Landing>,
}

#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Landing {
    pub pod: String,
    pub to: Option<String>,
    /// When it is evicted (its PDB may make it wait for copies to be Ready), or deleted as its
    /// node's `terminationGracePeriod` runs out.
    pub evicted_at: Timestamp,
    pub ready_at: Timestamp,
}

/// The forecast's state.
#[derive(Debug, Clone)]
pub(crate) struct State {
    pub snapshot: Snapshot,
    pub now: Timestamp,
    pub in_flight: Vec<InFlight>,
    /// Pods evicted and recreated, not Ready yet: (`ns/name`, Ready at).
    pub starting: Vec<(String, Timestamp)>,
    /// Replacement NodeClaims launched so far (their names are numbered).
    pub launched: usize,
    /// Nodes launched before the snapshot that initialize later, and when
    /// ([`super::launch::launching`]).
    pub initializing: Vec<(String, Timestamp)>,
    /// Pods that found no place, by the command time they were evicted.
    pub pending: BTreeMap<String, Timestamp>,
    /// `ns/name` → position in `snapshot.pods`, kept up to date as pods come and go.
    pub pod_index: HashMap<String, usize>,
    /// Node name → positions in `snapshot.pods` of the pods bound to it, ascending; kept up to
    /// date by [`State::bind`] and [`State::push_pod`], so that a command's step and each
    /// round's cluster read a node's pods without a pass over every pod.
    pods_on: PodsByNode,
    /// Per pod, the PDBs that select it (extended as pods are added).
    pods_known: PodTable,
    /// Every PDB's allowance over time, across all drains in flight.
    pub ledger: Ledger,
    /// Nodes whose Node or NodeClaim changed since the last [`State::take_touched`]: what the
    /// next round's cache compares again ([`crate::engine::RoundCache::nodes_changed`]).
    touched: BTreeSet<String>,
    /// Pods ended since the last [`State::take_ended`] (the only change the forecast makes to
    /// a pod's phase or deletion timestamp): what the next round reads the status of again.
    ended: Vec<usize>,
}

impl State {
    pub(crate) fn new(snapshot: Snapshot, now: Timestamp) -> State {
        let mut state = State {
            snapshot,
            now,
            in_flight: Vec::new(),
            starting: Vec::new(),
            launched: 0,
            initializing: Vec::new(),
            pending: BTreeMap::new(),
            pod_index: HashMap::default(),
            pods_on: HashMap::default(),
            pods_known: PodTable::default(),
            ledger: Ledger::default(),
            touched: BTreeSet::new(),
            ended: Vec::new(),
        };
        state.ledger = Ledger::new(&state.snapshot.pdbs);
        state.pod_index = state.snapshot.pods.iter().enumerate().map(|(i, p)| (p.metadata.key(), i)).collect();
        for (i, p) in state.snapshot.pods.iter().enumerate() {
            if let Some(node) = &p.spec.node_name {
                state.pods_on.entry(node.clone()).or_default().push(i);
            }
        }
        state
    }

    /// Records that node `name`'s Node or NodeClaim changed (every change to either goes with
    /// one of these).
    pub(crate) fn touch(&mut self, name: &str) {
        if !self.touched.contains(name) {
            self.touched.insert(name.to_owned());
        }
    }

    /// The nodes touched since the last call.
    pub(crate) fn take_touched(&mut self) -> BTreeSet<String> {
        std::mem::take(&mut self.touched)
    }

    /// Every node's pods (see [`PodsByNode`]).
    pub(crate) fn bindings(&self) -> &PodsByNode {
        &self.pods_on
    }

    /// Positions of the pods bound to `node`, ascending.
    pub(crate) fn pods_on(&self, node: &str) -> &[usize] {
        self.pods_on.get(node).map_or(&[], Vec::as_slice)
    }

    /// Binds pod `i` to `node` (`None`: unbinds it).
    pub(crate) fn bind(&mut self, i: usize, node: Option<&str>) {
        let pod = &mut self.snapshot.pods[i];
        if pod.spec.node_name.as_deref() == node {
            return;
        }
        if let Some(old) = pod.spec.node_name.take() {
            if let Some(list) = self.pods_on.get_mut(&old) {
                list.retain(|&p| p != i);
            }
        }
        if let Some(node) = node {
            pod.spec.node_name = Some(node.to_owned());
            let list = self.pods_on.entry(node.to_owned()).or_default();
            if let Err(at) = list.binary_search(&i) {
                list.insert(at, i);
            }
        }
    }

    /// Unbinds every pod of `node` (it is gone); returns their positions.
    pub(crate) fn unbind_node(&mut self, node: &str) -> Vec<usize> {
        let positions = self.pods_on.remove(node).unwrap_or_default();
        for &i in &positions {
            self.snapshot.pods[i].spec.node_name = None;
        }
        positions
    }

    /// Ends pod `i` as the pod garbage collector does when its node is gone: `Failed`, with no
    /// conditions (kept in place, so that positions stay valid).
    pub(crate) fn end_pod(&mut self, i: usize) {
        let p = &mut self.snapshot.pods[i];
        p.status.phase = Some("Failed".into());
        p.status.conditions.clear();
        self.ended.push(i);
    }

    /// The pods ended since the last call.
    pub(crate) fn take_ended(&mut self) -> Vec<usize> {
        std::mem::take(&mut self.ended)
    }

    /// Appends a pod (bound where its `spec.nodeName` says).
    pub(crate) fn push_pod(&mut self, pod: crate::snapshot::Pod) {
        let i = self.snapshot.pods.len();
        self.pod_index.insert(pod.metadata.key(), i);
        if let Some(node) = &pod.spec.node_name {
            self.pods_on.entry(node.clone()).or_default().push(i);
        }
        self.snapshot.pods.push(pod);
    }

    /// The earliest thing not yet applied: a node initialized, a drain, a node gone, a pod Ready.
    pub(crate) fn next_due(&self) -> Option<Timestamp> {
        let flights = self.in_flight.iter().filter_map(|f| if f.drained { f.gone_at } else { Some(f.drain_at) });
        let initializing = self.initializing.iter().map(|(_, t)| *t);
        flights.chain(self.starting.iter().map(|(_, t)| *t)).chain(initializing).min()
    }

    /// The positions of the PDBs that select pod `i`.
    pub(crate) fn pdbs_of(&mut self, i: usize) -> Vec<usize> {
        self.pods_known.cover(&self.snapshot.pods, &self.snapshot.pdbs);
        self.pods_known.pdbs_of(i).to_vec()
    }

    /// Marks a pod Ready or not, and moves the healthy count of every PDB that selects it, as
    /// the disruption controller recounts `status.currentHealthy` (kubernetes
    /// `pkg/controller/disruption/disruption.go` `countHealthyPods`, `updatePdbStatus`).
    pub(crate) fn set_ready(&mut self, pod: usize, ready: bool, at: Timestamp) {
        let p = &mut self.snapshot.pods[pod];
        let was = crate::snapshot::is_true(&p.status.conditions, "Ready");
        p.status.conditions.retain(|c| c.type_ != "Ready");
        p.status.conditions.push(Condition {
            type_: "Ready".into(),
            status: if ready { "True" } else { "False" }.into(),
            last_transition_time: Some(at),
            ..Condition::default()
        });
        if was == ready {
            return;
        }
        self.pods_known.cover(&self.snapshot.pods, &self.snapshot.pdbs);
        for &b in self.pods_known.pdbs_of(pod) {
            let pdb = &mut self.snapshot.pdbs[b];
            pdb.status.current_healthy += if ready { 1 } else { -1 };
            let rule = Rule::of(&pdb.spec);
            pdb.status.desired_healthy = rule.desired_healthy(pdb.status.expected_pods);
            pdb.status.disruptions_allowed =
                rule.disruptions_allowed(pdb.status.expected_pods, pdb.status.current_healthy);
        }
    }
}
