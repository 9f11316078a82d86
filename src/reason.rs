//! Reasons: what the replay found, in words for people (`message`), a stable code for scripts
//! (`code`) and the upstream function that makes the same decision (`ref`).
//!
//! Codes are an interface (docs/DESIGN.md): never rename one. [`Code::upstream`] is an exhaustive
//! match, so a new code cannot compile without naming where upstream decides it.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::upstream::{self, Upstream};

/// Every reason and blocker code. Serialised as its PascalCase name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub enum Code {
    // Candidate gates (blockers).
    NotManaged,
    NodeNotFound,
    NodePoolNotFound,
    MissingNodePoolLabel,
    NotInitialized,
    MarkedForDeletion,
    AlreadyDisrupting,
    Nominated,
    DoNotDisruptNode,
    DoNotDisruptPod,
    #[serde(rename = "PDBBlocked")]
    PdbBlocked,
    #[serde(rename = "MultiplePDBs")]
    MultiplePdbs,
    StaticNodePool,
    // Per-method filters (blockers).
    ConsolidateAfterNever,
    NotConsolidatableYet,
    InstanceTypeUnknown,
    MissingLabels,
    BudgetExhausted,
    /// Emptiness: the node hosts capacity buffers' virtual pods.
    HasBufferPods,
    /// StaticDrift: the static NodePool has more NodeClaims than `replicas` and waits for the
    /// scale-down to finish.
    StaticPoolOverscaled,
    /// StaticDrift: `limits.nodes` leaves no room to reserve the replacement.
    NodeLimitReached,
    // Outcomes.
    Empty,
    Drifted,
    Underutilized,
    PolicyWhenEmpty,
    PodsCannotReschedule,
    MultipleReplacementsNeeded,
    NotCheaper,
    SameInstanceType,
    MinValuesNotMet,
    PriceUnknown,
    SpotToSpotDisabled,
    SpotFlexibilityTooLow,
    BalancedScoreTooLow,
    UninitializedDestination,
    NoPositiveSavings,
    NoReadyNodePool,
    // Findings that explain a step without deciding it.
    Candidate,
    DisruptionCost,
    BudgetAllowed,
    NotEmpty,
    NotDrifted,
    PodsReschedule,
    Replacement,
    BalancedScoreApproved,
    WaitingForOtherMethod,
    InvalidDoNotDisrupt,
    KarpenterEvent,
    EventDisagrees,
    Uncertain,
}

impl Code {
    /// The upstream function that makes this decision.
    pub fn upstream(self) -> Upstream {
        use Code::{
            AlreadyDisrupting, BalancedScoreApproved, BalancedScoreTooLow, BudgetAllowed, BudgetExhausted, Candidate,
            ConsolidateAfterNever, DisruptionCost, DoNotDisruptNode, DoNotDisruptPod, Drifted, Empty, EventDisagrees,
            HasBufferPods, InstanceTypeUnknown, InvalidDoNotDisrupt, KarpenterEvent, MarkedForDeletion,
            MinValuesNotMet, MissingLabels, MissingNodePoolLabel, MultiplePdbs, MultipleReplacementsNeeded,
            NoPositiveSavings, NoReadyNodePool, NodeLimitReached, NodeNotFound, NodePoolNotFound, Nominated,
            NotCheaper, NotConsolidatableYet, NotDrifted, NotEmpty, NotInitialized, NotManaged, PdbBlocked,
            PodsCannotReschedule, PodsReschedule, PolicyWhenEmpty, PriceUnknown, Replacement, SameInstanceType,
            SpotFlexibilityTooLow, SpotToSpotDisabled, StaticNodePool, StaticPoolOverscaled, Uncertain, Underutilized,
            UninitializedDestination, WaitingForOtherMethod,
        };
        match self {
            NotManaged | NodeNotFound | NodePoolNotFound | MissingNodePoolLabel | NotInitialized
            | MarkedForDeletion | AlreadyDisrupting | Nominated | DoNotDisruptNode | StaticNodePool | Candidate => {
                upstream::NEW_CANDIDATE
            }
            DoNotDisruptPod | InvalidDoNotDisrupt => upstream::IS_DO_NOT_DISRUPT_ACTIVE,
            PdbBlocked | MultiplePdbs => upstream::CAN_EVICT_PODS,
            ConsolidateAfterNever | InstanceTypeUnknown | MissingLabels | PolicyWhenEmpty => {
                upstream::CONSOLIDATION_SHOULD_DISRUPT
            }
            NotConsolidatableYet => upstream::IS_UNDER_CONSOLIDATE_AFTER,
            BudgetExhausted | BudgetAllowed => upstream::GET_ALLOWED_DISRUPTIONS,
            StaticPoolOverscaled => upstream::STATIC_DRIFT_COMPUTE,
            HasBufferPods => upstream::EMPTINESS_SHOULD_DISRUPT,
            NodeLimitReached => upstream::RESERVE_NODE_COUNT,
            Empty | NotEmpty => upstream::IS_EMPTY,
            Drifted | NotDrifted => upstream::DRIFT_SHOULD_DISRUPT,
            Underutilized | Replacement | MultipleReplacementsNeeded | NoPositiveSavings => {
                upstream::COMPUTE_CONSOLIDATION
            }
            PodsCannotReschedule | PodsReschedule => upstream::SIMULATE_SCHEDULING,
            NoReadyNodePool => upstream::NEW_SCHEDULER,
            NotCheaper | PriceUnknown | MinValuesNotMet => upstream::FILTER_BY_PRICE,
            SameInstanceType => upstream::FILTER_SAME_INSTANCE_TYPE,
            SpotToSpotDisabled | SpotFlexibilityTooLow => upstream::SPOT_TO_SPOT,
            BalancedScoreTooLow | BalancedScoreApproved => upstream::SCORE_MOVE,
            UninitializedDestination => upstream::UNINITIALIZED_NODE_ERROR,
            DisruptionCost => upstream::RESCHEDULE_DISRUPTION_COST,
            WaitingForOtherMethod => upstream::RECONCILE,
            KarpenterEvent | EventDisagrees => upstream::EVENTS,
            Uncertain => upstream::GET_CANDIDATES,
        }
    }

    /// Whether this code is a gate that stops disruption (listed in `blockers[]`).
    pub fn is_blocker(self) -> bool {
        use Code::{
            AlreadyDisrupting, BudgetExhausted, ConsolidateAfterNever, DoNotDisruptNode, DoNotDisruptPod,
            HasBufferPods, InstanceTypeUnknown, MarkedForDeletion, MissingLabels, MissingNodePoolLabel, MultiplePdbs,
            NodeLimitReached, NodeNotFound, NodePoolNotFound, Nominated, NotConsolidatableYet, NotInitialized,
            NotManaged, PdbBlocked, StaticNodePool, StaticPoolOverscaled,
        };
        matches!(
            self,
            NotManaged
                | NodeNotFound
                | NodePoolNotFound
                | MissingNodePoolLabel
                | NotInitialized
                | MarkedForDeletion
                | AlreadyDisrupting
                | Nominated
                | DoNotDisruptNode
                | DoNotDisruptPod
                | PdbBlocked
                | MultiplePdbs
                | StaticNodePool
                | ConsolidateAfterNever
                | NotConsolidatableYet
                | InstanceTypeUnknown
                | MissingLabels
                | BudgetExhausted
                | StaticPoolOverscaled
                | NodeLimitReached
                | HasBufferPods
        )
    }

    /// The code as it appears in JSON.
    pub fn as_str(self) -> String {
        serde_json::to_value(self).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.as_str())
    }
}

/// One finding: `{"code", "message", "ref"}` on the wire, plus an optional hint for people.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Reason {
    pub code: Code,
    pub message: String,
    #[serde(rename = "ref")]
    pub upstream: Upstream,
    /// What would change this finding (remove the annotation, wait 3m, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

impl Reason {
    /// A finding whose reference is the code's own upstream function.
    pub fn new(code: Code, message: impl Into<String>) -> Reason {
        Reason { code, message: message.into(), upstream: code.upstream(), hint: None }
    }

    /// A finding decided by another upstream function than the code's default.
    #[must_use]
    pub fn at(mut self, upstream: Upstream) -> Reason {
        self.upstream = upstream;
        self
    }

    /// Adds what the user could do to change it.
    #[must_use]
    pub fn hint(mut self, hint: impl Into<String>) -> Reason {
        self.hint = Some(hint.into());
        self
    }
}

/// The first few names and a count (`a b c … +12 more`), for messages and tables.
pub fn abbreviate(names: &[String]) -> String {
    if names.len() <= 4 {
        return names.join(" ");
    }
    format!("{} … +{} more", names[..3].join(" "), names.len() - 3)
}

#[cfg(test)]
mod tests {
    use super::{Code, Reason};

    #[test]
    fn serialises_code_message_ref() {
        let reason = Reason::new(Code::PdbBlocked, "pdb prevents pod evictions (PodDisruptionBudget=[a/b])");
        let json = serde_json::to_value(&reason).unwrap();
        assert_eq!(json["code"], "PDBBlocked");
        assert_eq!(json["ref"], "karpenter: pkg/utils/pdb/pdb.go Limits.CanEvictPods");
        assert_eq!(Code::MultiplePdbs.as_str(), "MultiplePDBs");
    }

    #[test]
    fn outcomes_are_not_blockers() {
        assert!(Code::BudgetExhausted.is_blocker());
        assert!(!Code::NotCheaper.is_blocker());
    }
}
