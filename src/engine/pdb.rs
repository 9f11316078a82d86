//! PodDisruptionBudgets as Karpenter judges them before it disrupts a node.
//!
//! Mirrors karpenter `pkg/utils/pdb/pdb.go` (`NewLimits`, `Limits.CanEvictPods`, `isEvictable`,
//! `IsCurrentlyReschedulable`). One implementation, used by the candidate gates, the
//! simulation's pod selection and `pdb-audit`.

use std::sync::Arc;

use foldhash::HashMap;
use jiff::Timestamp;
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

use super::incremental::pod_table::{position_in, PodTable};
use super::labels::selector_matches;
use super::pod;
use crate::snapshot::{is_true, Pod, PodDisruptionBudget};

/// Why a pod cannot be evicted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EvictionBlock {
    /// More than one PDB selects the pod: the eviction API refuses it.
    MultiplePdbs { pod: String, pdbs: Vec<String> },
    /// The one PDB that selects it allows no disruption now.
    NoDisruptionsAllowed { pod: String, pdb: String },
}

impl EvictionBlock {
    /// Karpenter's own error text.
    pub fn message(&self) -> String {
        match self {
            EvictionBlock::MultiplePdbs { pdbs, .. } => {
                format!("eviction does not support multiple PDBs (PodDisruptionBudget(s)=[{}])", pdbs.join(" "))
            }
            EvictionBlock::NoDisruptionsAllowed { pdb, .. } => {
                format!("pdb prevents pod evictions (PodDisruptionBudget=[{pdb}])")
            }
        }
    }
}

/// An [`EvictionBlock`] by reference, spelled out only when someone reads it.
enum Block<'a> {
    MultiplePdbs(Vec<&'a PodDisruptionBudget>),
    NoDisruptionsAllowed(&'a PodDisruptionBudget),
}

/// The PDBs of the snapshot, indexed so that a pod is matched only against the PDBs of its
/// namespace that may select it: each PDB is filed under one label its `matchLabels` requires
/// (a pod without that label cannot match), or, without `matchLabels`, under its namespace.
#[derive(Debug, Clone)]
pub struct Limits<'a> {
    pdbs: &'a [PodDisruptionBudget],
    /// `(namespace, label key, label value)` → positions in `pdbs`.
    by_label: HashMap<(&'a str, &'a str, &'a str), Vec<usize>>,
    /// namespace → positions of the PDBs without `matchLabels`.
    unindexed: HashMap<&'a str, Vec<usize>>,
    /// What a forecast already knows of these pods (see [`PodTable`]).
    known: Option<(&'a [Pod], Arc<PodTable>)>,
    /// The round's terminal and terminating bits per pod position, when read (0: active).
    status: Option<Arc<[u8]>>,
    /// Whether a duration-valued do-not-disrupt counts (from v1.12.0, #2874).
    durations: bool,
    /// Whether several PDBs on one pod block it whatever they allow (from v1.7.0, #2379).
    multiple_block: bool,
}

impl<'a> Limits<'a> {
    pub fn new(pdbs: &'a [PodDisruptionBudget]) -> Self {
        let mut by_label: HashMap<(&'a str, &'a str, &'a str), Vec<usize>> = HashMap::default();
        let mut unindexed: HashMap<&'a str, Vec<usize>> = HashMap::default();
        for (i, pdb) in pdbs.iter().enumerate() {
            let ns = pdb.metadata.namespace();
            let required = pdb.spec.selector.as_ref().and_then(|s| s.match_labels.as_ref()?.iter().next());
            match required {
                Some((k, v)) => by_label.entry((ns, k.as_str(), v.as_str())).or_default().push(i),
                None => unindexed.entry(ns).or_default().push(i),
            }
        }
        Limits { pdbs, by_label, unindexed, known: None, status: None, durations: true, multiple_block: true }
    }

    /// The same limits under `rules`: before v1.12.0 a duration-valued do-not-disrupt does not
    /// keep a pod from eviction (#2874); before v1.7.0 several PDBs on one pod are asked one by
    /// one (#2379).
    pub(crate) fn with_rules(mut self, rules: &crate::rules::RuleSet) -> Self {
        self.durations = rules.has(crate::rules::Rule::DoNotDisruptDuration);
        self.multiple_block = rules.has(crate::rules::Rule::MultiplePdbsBlock);
        self
    }

    /// The same, answering for the pods of `pods` from `table` (which must cover them, as
    /// [`PodTable::cover`] leaves it) instead of matching selectors again.
    pub(crate) fn with_table(pdbs: &'a [PodDisruptionBudget], pods: &'a [Pod], table: Arc<PodTable>) -> Self {
        Limits { known: Some((pods, table)), ..Limits::new(pdbs) }
    }

    /// The same limits, reading whether a pod the table knows is active from the round's
    /// status bytes (`Cluster::read_pod_status_from`) instead of from the pod.
    pub(crate) fn with_status(self, status: Option<Arc<[u8]>>) -> Self {
        Limits { status, ..self }
    }

    /// The pod's row in the table, when there is one and it covers the pod.
    fn known_position(&self, pod: &Pod) -> Option<(usize, &PodTable)> {
        let (pods, table) = self.known.as_ref()?;
        position_in(pods, pod).filter(|&at| at < table.len()).map(|at| (at, &**table))
    }

    /// Every PDB that selects the pod (same namespace, selector matches), in snapshot order.
    pub fn matching(&self, pod: &Pod) -> Vec<&'a PodDisruptionBudget> {
        if let Some((at, table)) = self.known_position(pod) {
            return table.pdbs_of(at).iter().map(|&i| &self.pdbs[i]).collect();
        }
        self.positions(pod).into_iter().map(|i| &self.pdbs[i]).collect()
    }

    /// The positions in `pdbs` of the PDBs that select the pod, ascending.
    pub(crate) fn positions(&self, pod: &Pod) -> Vec<usize> {
        let ns = pod.metadata.namespace();
        let labelled = pod.metadata.labels.iter().filter_map(|(k, v)| self.by_label.get(&(ns, k.as_str(), v.as_str())));
        let mut positions: Vec<usize> = self.unindexed.get(ns).into_iter().chain(labelled).flatten().copied().collect();
        positions.sort_unstable();
        positions.retain(|&i| selector_matches(self.pdbs[i].spec.selector.as_ref(), &pod.metadata.labels));
        positions
    }

    /// Every eviction block among `pods` (Karpenter stops at the first; we list them all).
    ///
    /// Mirrors [`crate::upstream::CAN_EVICT_PODS`].
    pub fn can_evict_pods(&self, pods: &[&Pod], now: Timestamp) -> Vec<EvictionBlock> {
        pods.iter().filter_map(|pod| self.is_evictable(pod, now, Blocker::ZeroDisruptions).err()).collect()
    }

    /// The one test behind both uses of PDBs, in upstream's order: a pod Karpenter would not
    /// evict at all (`IsEvictable` false) is never blocked; then several PDBs block whatever
    /// they allow (the eviction API refuses them); then, for the one PDB, a not-Ready pod under
    /// `unhealthyPodEvictionPolicy: AlwaysAllow` passes; then the blocker decides.
    ///
    /// Mirrors karpenter `pkg/utils/pdb/pdb.go` `Limits.isEvictable`.
    fn is_evictable(&self, pod: &Pod, now: Timestamp, blocker: Blocker) -> Result<(), EvictionBlock> {
        match self.block(pod, now, blocker) {
            None => Ok(()),
            Some(Block::MultiplePdbs(pdbs)) => Err(EvictionBlock::MultiplePdbs {
                pod: pod.metadata.key(),
                pdbs: pdbs.iter().map(|p| p.metadata.key()).collect(),
            }),
            Some(Block::NoDisruptionsAllowed(one)) => {
                Err(EvictionBlock::NoDisruptionsAllowed { pod: pod.metadata.key(), pdb: one.metadata.key() })
            }
        }
    }

    /// What [`Limits::is_evictable`] decides, before its error is spelled out: the simulation
    /// asks only whether a pod is blocked, for every pod of every candidate.
    fn block(&self, pod: &Pod, now: Timestamp, blocker: Blocker) -> Option<Block<'a>> {
        let known = self.known_position(pod);
        // No PDB selects the pod: nothing blocks it, evictable or not. Asked first when the
        // forecast's table answers it, which spares reading the pod.
        if known.is_some_and(|(at, table)| table.pdbs_of(at).is_empty()) {
            return None;
        }
        let evictable = match known.and_then(|(at, table)| Some((at, table.facts_of(at)?))) {
            Some((at, facts)) => {
                let active =
                    self.status.as_ref().and_then(|s| s.get(at)).map_or_else(|| pod::is_active(pod), |&s| s == 0);
                facts.is_evictable(active, pod, now, self.durations)
            }
            None => pod::is_evictable(pod, now, self.durations),
        };
        if !evictable {
            return None;
        }
        // With the table, the one-PDB case (the common one) needs no list of matches.
        let one = if let Some((at, table)) = known {
            match table.pdbs_of(at) {
                [] => return None,
                [one] => &self.pdbs[*one],
                _ => return self.several(self.matching(pod), pod, blocker),
            }
        } else {
            let matching = self.matching(pod);
            match matching.len() {
                0 => return None,
                1 => matching[0],
                _ => return self.several(matching, pod, blocker),
            }
        };
        one_blocks(one, pod, blocker).then_some(Block::NoDisruptionsAllowed(one))
    }

    /// Several PDBs select the pod. From v1.7.0 (#2379) that alone blocks it: the eviction API
    /// refuses such a pod. Before, `isEvictable` asked them in snapshot (list) order and the first
    /// that decided won: an unhealthy-pod exemption let the pod go, a blocking one held it.
    fn several(&self, matching: Vec<&'a PodDisruptionBudget>, pod: &Pod, blocker: Blocker) -> Option<Block<'a>> {
        if self.multiple_block {
            return Some(Block::MultiplePdbs(matching));
        }
        for pdb in matching {
            if unhealthy_exempt(pdb, pod) {
                return None;
            }
            if one_blocks(pdb, pod, blocker) {
                return Some(Block::NoDisruptionsAllowed(pdb));
            }
        }
        None
    }

    /// Whether the simulation must find the pod a place: reschedulable, not do-not-disrupt,
    /// and not fully blocked (a fully blocking PDB, or several PDBs at once).
    ///
    /// Mirrors karpenter `pkg/utils/pdb/pdb.go` `IsCurrentlyReschedulable` / `isFullyBlocked`.
    pub fn is_currently_reschedulable(&self, pod: &Pod, now: Timestamp) -> bool {
        self.is_currently_reschedulable_given(pod, now, pod::is_reschedulable(pod))
    }

    /// [`Self::is_currently_reschedulable`] of a pod whose [`pod::is_reschedulable`] the
    /// caller already knows.
    pub fn is_currently_reschedulable_given(&self, pod: &Pod, now: Timestamp, reschedulable: bool) -> bool {
        reschedulable
            && pod::is_disruptable(pod, now, self.durations)
            && self.block(pod, now, Blocker::FullyBlocking).is_none()
    }
}

/// What makes a single PDB block (upstream's `evictionBlocker`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Blocker {
    /// `status.disruptionsAllowed == 0`: the candidate gate (`CanEvictPods`).
    ZeroDisruptions,
    /// [`is_fully_blocking`]: which pods the simulation moves (`isFullyBlocked`).
    FullyBlocking,
}

/// Whether one PDB holds the pod: not exempt as unhealthy, and blocking as `blocker` asks.
fn one_blocks(pdb: &PodDisruptionBudget, pod: &Pod, blocker: Blocker) -> bool {
    !unhealthy_exempt(pdb, pod)
        && match blocker {
            Blocker::ZeroDisruptions => pdb.status.disruptions_allowed == 0,
            Blocker::FullyBlocking => is_fully_blocking(pdb),
        }
}

/// `unhealthyPodEvictionPolicy: AlwaysAllow` lets a not-Ready pod go whatever the budget.
fn unhealthy_exempt(pdb: &PodDisruptionBudget, pod: &Pod) -> bool {
    pdb.spec.unhealthy_pod_eviction_policy.as_deref() == Some("AlwaysAllow")
        && crate::snapshot::condition(&pod.status.conditions, "Ready").is_some_and(|c| c.status == "False")
}

/// `maxUnavailable: 0` (an integer), `maxUnavailable: "0%"` or `minAvailable: "100%"`.
///
/// As upstream (`newPdb`), the type of the intstr decides: the string `"0"` is neither the
/// integer 0 nor `"0%"`, so it does not fully block (apimachinery `IntOrString.UnmarshalJSON`
/// keeps a quoted value as a string).
pub(crate) fn is_fully_blocking(pdb: &PodDisruptionBudget) -> bool {
    let max_zero = match &pdb.spec.max_unavailable {
        Some(IntOrString::Int(0)) => true,
        Some(IntOrString::String(s)) => s == "0%",
        _ => false,
    };
    let min_all = matches!(&pdb.spec.min_available, Some(IntOrString::String(s)) if s == "100%");
    max_zero || min_all
}

/// Whether the pod is Ready (used by `pdb-audit` for healthy counts).
pub(crate) fn is_ready(pod: &Pod) -> bool {
    is_true(&pod.status.conditions, "Ready")
}

impl PodTable {
    /// Adds the pods the table does not cover yet, matching them against `pdbs` as
    /// [`Limits::matching`] would.
    pub(crate) fn cover(&mut self, pods: &[Pod], pdbs: &[PodDisruptionBudget]) {
        self.cover_with(pods, || {
            let limits = Limits::new(pdbs);
            move |p: &Pod| limits.positions(p)
        });
    }
}

#[cfg(test)]
mod tests {
    use super::{is_fully_blocking, EvictionBlock, Limits};
    use crate::snapshot::{Pod, PodDisruptionBudget};
    use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
    use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;

    fn pod(name: &str, app: &str) -> Pod {
        let mut p = Pod::default();
        p.metadata.name = name.into();
        p.metadata.namespace = Some("ns".into());
        p.metadata.labels.insert("app".into(), app.into());
        p
    }

    fn pdb(name: &str, app: &str, allowed: i32) -> PodDisruptionBudget {
        let mut b = PodDisruptionBudget::default();
        b.metadata.name = name.into();
        b.metadata.namespace = Some("ns".into());
        b.spec.selector = Some(LabelSelector {
            match_labels: Some([("app".to_owned(), app.to_owned())].into()),
            ..LabelSelector::default()
        });
        b.status.disruptions_allowed = allowed;
        b
    }

    fn now() -> jiff::Timestamp {
        "2026-11-29T10:00:00Z".parse().unwrap()
    }

    #[test]
    fn matching_finds_what_a_scan_finds_in_snapshot_order() {
        let mut everything = pdb("all", "x", 1);
        everything.spec.selector = Some(LabelSelector::default());
        let mut expression = pdb("expr", "x", 1);
        expression.spec.selector = Some(LabelSelector {
            match_labels: None,
            match_expressions: Some(vec![k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelectorRequirement {
                key: "app".into(),
                operator: "In".into(),
                values: Some(vec!["web".into()]),
            }]),
        });
        let mut elsewhere = pdb("other-ns", "web", 1);
        elsewhere.metadata.namespace = Some("other".into());
        let mut none = pdb("none", "web", 1);
        none.spec.selector = None;
        let pdbs = [everything, pdb("api", "api", 1), expression, elsewhere, none, pdb("web", "web", 1)];
        let limits = Limits::new(&pdbs);
        let names = |p: &Pod| limits.matching(p).iter().map(|b| b.metadata.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&pod("1", "web")), ["all", "expr", "web"]);
        assert_eq!(names(&pod("2", "api")), ["all", "api"]);
    }

    #[test]
    fn zero_allowed_blocks_and_two_pdbs_block() {
        let pdbs = [pdb("a", "web", 0), pdb("b", "api", 1), pdb("c", "api", 1)];
        let limits = Limits::new(&pdbs);
        let web = pod("w", "web");
        let api = pod("x", "api");
        let blocks = limits.can_evict_pods(&[&web, &api], now());
        assert_eq!(blocks.len(), 2);
        assert_eq!(blocks[0].message(), "pdb prevents pod evictions (PodDisruptionBudget=[ns/a])");
        assert!(matches!(&blocks[1], EvictionBlock::MultiplePdbs { pdbs, .. } if pdbs.len() == 2));
    }

    #[test]
    fn before_v1_7_several_pdbs_are_asked_in_turn() {
        // karpenter v1.6.4 pkg/utils/pdb/pdb.go isEvictable: the first matching PDB that blocks
        // decides; v1.7.0 (#2379) refuses any pod under more than one.
        let rules = crate::rules::RuleSet::at(crate::rules::CoreVersion::new(1, 6, 4));
        let allowing = [pdb("b", "api", 1), pdb("c", "api", 1)];
        let api = pod("x", "api");
        assert!(Limits::new(&allowing).with_rules(&rules).can_evict_pods(&[&api], now()).is_empty());
        assert_eq!(Limits::new(&allowing).can_evict_pods(&[&api], now()).len(), 1, "v1.14 blocks");
        let one_at_zero = [pdb("b", "api", 1), pdb("c", "api", 0)];
        let blocks = Limits::new(&one_at_zero).with_rules(&rules).can_evict_pods(&[&api], now());
        assert_eq!(blocks.len(), 1);
        assert_eq!(blocks[0].message(), "pdb prevents pod evictions (PodDisruptionBudget=[ns/c])");
    }

    #[test]
    fn one_allowed_does_not_block_two_pods() {
        let pdbs = [pdb("a", "web", 1)];
        let (p1, p2) = (pod("1", "web"), pod("2", "web"));
        assert!(Limits::new(&pdbs).can_evict_pods(&[&p1, &p2], now()).is_empty());
    }

    #[test]
    fn unhealthy_pods_pass_with_always_allow() {
        let mut budget = pdb("a", "web", 0);
        budget.spec.unhealthy_pod_eviction_policy = Some("AlwaysAllow".into());
        let mut p = pod("1", "web");
        p.status.conditions.push(crate::snapshot::Condition {
            type_: "Ready".into(),
            status: "False".into(),
            ..Default::default()
        });
        let pdbs = [budget];
        assert!(Limits::new(&pdbs).can_evict_pods(&[&p], now()).is_empty());
    }

    #[test]
    fn terminal_pods_are_exempt() {
        let pdbs = [pdb("a", "web", 0)];
        let mut p = pod("1", "web");
        p.status.phase = Some("Succeeded".into());
        assert!(Limits::new(&pdbs).can_evict_pods(&[&p], now()).is_empty());
    }

    fn fully_blocking(name: &str, app: &str) -> PodDisruptionBudget {
        let mut b = pdb(name, app, 0);
        b.spec.max_unavailable = Some(IntOrString::Int(0));
        b
    }

    fn not_ready(mut p: Pod) -> Pod {
        p.status.conditions.push(crate::snapshot::Condition {
            type_: "Ready".into(),
            status: "False".into(),
            ..Default::default()
        });
        p
    }

    /// `isEvictable`: AlwaysAllow lets a not-Ready pod through `isFullyBlocked` too.
    #[test]
    fn always_allow_unready_pod_is_simulated_despite_a_fully_blocking_pdb() {
        let mut budget = fully_blocking("a", "web");
        budget.spec.unhealthy_pod_eviction_policy = Some("AlwaysAllow".into());
        let pdbs = [budget];
        let limits = Limits::new(&pdbs);
        assert!(limits.is_currently_reschedulable(&not_ready(pod("1", "web")), now()));
        assert!(!limits.is_currently_reschedulable(&pod("2", "web"), now()));
    }

    /// `isEvictable` returns "evictable" first for pods `IsEvictable` rejects (here: one that
    /// tolerates the disrupted taint), before any PDB is looked at.
    #[test]
    fn a_pod_karpenter_would_not_evict_is_not_fully_blocked() {
        let pdbs = [fully_blocking("a", "web")];
        let mut p = pod("1", "web");
        p.spec.tolerations.push(k8s_openapi::api::core::v1::Toleration {
            key: Some("karpenter.sh/disrupted".into()),
            operator: Some("Exists".into()),
            ..Default::default()
        });
        assert!(Limits::new(&pdbs).is_currently_reschedulable(&p, now()));
    }

    /// `isEvictable`: more than one PDB blocks under either blocker.
    #[test]
    fn a_pod_under_two_pdbs_is_fully_blocked() {
        let pdbs = [pdb("a", "web", 5), pdb("b", "web", 5)];
        assert!(!Limits::new(&pdbs).is_currently_reschedulable(&pod("1", "web"), now()));
    }

    /// `newPdb`: only an integer 0 (or "0%") for maxUnavailable fully blocks.
    #[test]
    fn the_string_zero_does_not_fully_block() {
        let mut string_zero = pdb("a", "web", 1);
        string_zero.spec.max_unavailable = Some(IntOrString::String("0".into()));
        assert!(!is_fully_blocking(&string_zero));
        string_zero.spec.max_unavailable = Some(IntOrString::String("0%".into()));
        assert!(is_fully_blocking(&string_zero));
        string_zero.spec.max_unavailable = None;
        string_zero.spec.min_available = Some(IntOrString::String("100%".into()));
        assert!(is_fully_blocking(&string_zero));
        assert!(is_fully_blocking(&fully_blocking("b", "web")));
    }
}
