//! Where each replayed decision lives upstream: one constant per mirrored function.
//!
//! Every [`crate::reason::Reason`] carries one of these as its `ref`, so a reader can open the
//! Go function that makes the same decision. Paths are relative to the repository root at the
//! pinned tag.

use std::fmt;

use serde::{Serialize, Serializer};

/// The upstream project a function belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Project {
    Karpenter,
    KubeScheduler,
    Kubernetes,
}

impl Project {
    /// The repository and the tag every reference is pinned to. Bump it here when re-syncing.
    pub const fn pinned(self) -> (&'static str, &'static str) {
        match self {
            Project::Karpenter => ("kubernetes-sigs/karpenter", "v1.14.0"),
            Project::KubeScheduler | Project::Kubernetes => ("kubernetes/kubernetes", "v1.34.0"),
        }
    }

    const fn label(self) -> &'static str {
        match self {
            Project::Karpenter => "karpenter",
            Project::KubeScheduler => "kube-scheduler",
            Project::Kubernetes => "kubernetes",
        }
    }
}

/// One upstream function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Upstream {
    pub project: Project,
    pub path: &'static str,
    pub function: &'static str,
}

impl Upstream {
    /// A browsable link to the file at the pinned tag.
    pub fn url(&self) -> String {
        let (repo, tag) = self.project.pinned();
        format!("https://github.com/{repo}/blob/{tag}/{}", self.path)
    }
}

impl fmt::Display for Upstream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} {}", self.project.label(), self.path, self.function)
    }
}

impl Serialize for Upstream {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

const fn karpenter(path: &'static str, function: &'static str) -> Upstream {
    Upstream { project: Project::Karpenter, path, function }
}

const fn scheduler(path: &'static str, function: &'static str) -> Upstream {
    Upstream { project: Project::KubeScheduler, path, function }
}

pub const RECONCILE: Upstream = karpenter("pkg/controllers/disruption/controller.go", "Controller.Reconcile");
pub const NEW_METHODS: Upstream = karpenter("pkg/controllers/disruption/controller.go", "NewMethods");
pub const NEW_CANDIDATE: Upstream = karpenter("pkg/controllers/disruption/types.go", "NewCandidate");
pub const GET_CANDIDATES: Upstream = karpenter("pkg/controllers/disruption/helpers.go", "GetCandidates");
pub const BUILD_DAEMON_OVERHEAD_GROUPS: Upstream =
    karpenter("pkg/controllers/provisioning/scheduling/scheduler.go", "buildDaemonOverheadGroups");
pub const NEW_NODE_CLAIM_TEMPLATE: Upstream =
    karpenter("pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go", "NewNodeClaimTemplate");
pub const KNOWN_EPHEMERAL_TAINTS: Upstream = karpenter("pkg/scheduling/taints.go", "IsKnownEphemeralTaint");
pub const VALIDATE_PERSISTENT_VOLUME_CLAIMS: Upstream = karpenter(
    "pkg/controllers/provisioning/scheduling/volumetopology.go",
    "VolumeTopology.ValidatePersistentVolumeClaims",
);
pub const VOLUME_TOPOLOGY_REQUIREMENTS: Upstream =
    karpenter("pkg/controllers/provisioning/scheduling/volumetopology.go", "VolumeTopology.GetRequirements");
pub const GET_DAEMON_HOST_PORT_USAGE: Upstream =
    karpenter("pkg/controllers/provisioning/scheduling/scheduler.go", "getDaemonHostPortUsage");
pub const NEW_NODE_CLAIM: Upstream = karpenter("pkg/controllers/provisioning/scheduling/nodeclaim.go", "NewNodeClaim");
pub const OPTIONS_ADD_FLAGS: Upstream = karpenter("pkg/operator/options/options.go", "Options.AddFlags");
pub const DEFAULT_FEATURE_GATES: Upstream = karpenter("pkg/operator/options/options.go", "DefaultFeatureGates");
pub const MAKE_TOPOLOGY_NODE_FILTER: Upstream =
    karpenter("pkg/controllers/provisioning/scheduling/topologynodefilter.go", "MakeTopologyNodeFilter");
pub const TOPOLOGY_DOMAIN_GROUP_FOR_EACH: Upstream =
    karpenter("pkg/controllers/provisioning/scheduling/topologydomaingroup.go", "TopologyDomainGroup.ForEachDomain");
pub const SCHEDULER_TRY_SCHEDULE: Upstream =
    karpenter("pkg/controllers/provisioning/scheduling/scheduler.go", "Scheduler.trySchedule");
pub const PROVISIONER_VALIDATE: Upstream =
    karpenter("pkg/controllers/provisioning/provisioner.go", "Provisioner.Validate");
pub const VALIDATE_REQUIREMENT: Upstream = karpenter("pkg/apis/v1/nodeclaim_validation.go", "ValidateRequirement");
pub const IS_RESTRICTED_LABEL: Upstream = karpenter("pkg/apis/v1/labels.go", "IsRestrictedLabel");
pub const IS_DAEMON_POD_COMPATIBLE: Upstream =
    karpenter("pkg/controllers/provisioning/scheduling/scheduler.go", "isDaemonPodCompatible");
pub const NODECLAIM_IS_MANAGED: Upstream = karpenter("pkg/utils/nodeclaim/nodeclaim.go", "IsManaged");
pub const VALIDATE_NODE_DISRUPTABLE: Upstream =
    karpenter("pkg/controllers/state/statenode.go", "StateNode.ValidateNodeDisruptable");
pub const VALIDATE_PODS_DISRUPTABLE: Upstream =
    karpenter("pkg/controllers/state/statenode.go", "StateNode.ValidatePodsDisruptable");
pub const IS_DO_NOT_DISRUPT_ACTIVE: Upstream = karpenter("pkg/utils/pod/scheduling.go", "IsDoNotDisruptActive");
pub const IS_RESCHEDULABLE: Upstream = karpenter("pkg/utils/pod/scheduling.go", "IsReschedulable");
pub const HAS_DRA_REQUIREMENTS: Upstream = karpenter("pkg/utils/pod/scheduling.go", "HasDRARequirements");
pub const SCHEDULER_ADD: Upstream = karpenter("pkg/controllers/provisioning/scheduling/scheduler.go", "Scheduler.add");
pub const CAN_EVICT_PODS: Upstream = karpenter("pkg/utils/pdb/pdb.go", "Limits.CanEvictPods");
pub const PDB_IS_EVICTABLE: Upstream = karpenter("pkg/utils/pdb/pdb.go", "Limits.isEvictable");
pub const IS_CURRENTLY_RESCHEDULABLE: Upstream = karpenter("pkg/utils/pdb/pdb.go", "Limits.IsCurrentlyReschedulable");
pub const EVICTION_COST: Upstream = karpenter("pkg/utils/disruption/disruption.go", "EvictionCost");
pub const RESCHEDULE_DISRUPTION_COST: Upstream =
    karpenter("pkg/controllers/disruption/types.go", "computeRescheduleDisruptionCost");
pub const SORT_CANDIDATES: Upstream =
    karpenter("pkg/controllers/disruption/consolidation.go", "consolidation.sortCandidates");
pub const IS_EMPTY: Upstream = karpenter("pkg/controllers/disruption/types.go", "Candidate.IsEmpty");
pub const RESOLVE_NODE_PRICE: Upstream = karpenter("pkg/controllers/disruption/types.go", "resolveNodePrice");
pub const ESTIMATED_SAVINGS: Upstream = karpenter("pkg/controllers/disruption/types.go", "Command.EstimatedSavings");
pub const IS_UNDER_CONSOLIDATE_AFTER: Upstream =
    karpenter("pkg/utils/disruption/disruption.go", "IsUnderConsolidateAfter");
pub const CONSOLIDATABLE_CONDITION: Upstream =
    karpenter("pkg/controllers/nodeclaim/disruption/consolidation.go", "Consolidation.Reconcile");
pub const BUILD_BUDGET_MAPPING: Upstream =
    karpenter("pkg/controllers/disruption/helpers.go", "BuildDisruptionBudgetMapping");
pub const GET_ALLOWED_DISRUPTIONS: Upstream =
    karpenter("pkg/apis/v1/nodepool.go", "NodePool.GetAllowedDisruptionsByReason");
pub const BUDGET_IS_ACTIVE: Upstream = karpenter("pkg/apis/v1/nodepool.go", "Budget.IsActive");
pub const EMPTINESS_SHOULD_DISRUPT: Upstream =
    karpenter("pkg/controllers/disruption/emptiness.go", "Emptiness.ShouldDisrupt");
pub const EMPTINESS_COMPUTE: Upstream =
    karpenter("pkg/controllers/disruption/emptiness.go", "Emptiness.ComputeCommands");
pub const DRIFT_SHOULD_DISRUPT: Upstream = karpenter("pkg/controllers/disruption/drift.go", "Drift.ShouldDisrupt");
pub const DRIFT_COMPUTE: Upstream = karpenter("pkg/controllers/disruption/drift.go", "Drift.ComputeCommands");
pub const STATIC_DRIFT_COMPUTE: Upstream =
    karpenter("pkg/controllers/disruption/staticdrift.go", "StaticDrift.ComputeCommands");
pub const GET_PENDING_PODS: Upstream =
    karpenter("pkg/controllers/provisioning/provisioner.go", "Provisioner.GetPendingPods");
pub const BUILD_VIRTUAL_PODS: Upstream = karpenter("pkg/state/virtualpods/utilities.go", "BuildVirtualPods");
pub const HAS_BUFFER_PODS: Upstream = karpenter("pkg/controllers/state/cluster.go", "Cluster.HasBufferPods");
pub const RESERVE_NODE_COUNT: Upstream =
    karpenter("pkg/controllers/state/statenodepool.go", "NodePoolState.ReserveNodeCount");
pub const RESOURCES_CEILING: Upstream = karpenter("pkg/utils/resources/resources.go", "Ceiling");
pub const GET_CANDIDATE_PRICES: Upstream =
    karpenter("pkg/controllers/disruption/consolidation.go", "getCandidatePrices");
pub const CONSOLIDATION_SHOULD_DISRUPT: Upstream =
    karpenter("pkg/controllers/disruption/consolidation.go", "consolidation.ShouldDisrupt");
pub const COMPUTE_CONSOLIDATION: Upstream =
    karpenter("pkg/controllers/disruption/consolidation.go", "consolidation.computeConsolidation");
pub const SPOT_TO_SPOT: Upstream =
    karpenter("pkg/controllers/disruption/consolidation.go", "consolidation.computeSpotToSpotConsolidation");
pub const FILTER_BY_PRICE: Upstream = karpenter(
    "pkg/controllers/provisioning/scheduling/nodeclaim.go",
    "NodeClaim.RemoveInstanceTypeOptionsByPriceAndMinValues",
);
pub const MULTI_NODE_COMPUTE: Upstream =
    karpenter("pkg/controllers/disruption/multinodeconsolidation.go", "MultiNodeConsolidation.ComputeCommands");
pub const FILTER_SAME_INSTANCE_TYPE: Upstream =
    karpenter("pkg/controllers/disruption/multinodeconsolidation.go", "filterOutSameInstanceType");
pub const SINGLE_NODE_COMPUTE: Upstream =
    karpenter("pkg/controllers/disruption/singlenodeconsolidation.go", "SingleNodeConsolidation.ComputeCommands");
pub const SINGLE_NODE_SORT: Upstream =
    karpenter("pkg/controllers/disruption/singlenodeconsolidation.go", "SingleNodeConsolidation.SortCandidates");
pub const SIMULATE_SCHEDULING: Upstream = karpenter("pkg/controllers/disruption/helpers.go", "SimulateScheduling");
pub const PROVISIONER_SCHEDULE: Upstream =
    karpenter("pkg/controllers/provisioning/provisioner.go", "Provisioner.Schedule");
pub const CREATE_NODE_CLAIMS: Upstream =
    karpenter("pkg/controllers/provisioning/provisioner.go", "Provisioner.CreateNodeClaims");
pub const POD_EVENTS: Upstream = karpenter("pkg/controllers/nodeclaim/podevents/controller.go", "Controller.Reconcile");
pub const NEW_SCHEDULER: Upstream =
    karpenter("pkg/controllers/provisioning/provisioner.go", "Provisioner.NewScheduler");
pub const MAX_INSTANCE_TYPES: Upstream =
    karpenter("pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go", "MaxInstanceTypes");
pub const SCHEDULER_ADD_NEW: Upstream =
    karpenter("pkg/controllers/provisioning/scheduling/scheduler.go", "Scheduler.addToNewNodeClaim");
pub const SCHEDULER_ADD_EXISTING: Upstream =
    karpenter("pkg/controllers/provisioning/scheduling/scheduler.go", "Scheduler.addToExistingNode");
pub const EXISTING_NODE_CAN_ADD: Upstream =
    karpenter("pkg/controllers/provisioning/scheduling/existingnode.go", "ExistingNode.CanAdd");
pub const NODECLAIM_CAN_ADD: Upstream =
    karpenter("pkg/controllers/provisioning/scheduling/nodeclaim.go", "NodeClaim.CanAdd");
pub const UNINITIALIZED_NODE_ERROR: Upstream =
    karpenter("pkg/controllers/provisioning/scheduling/scheduler.go", "UninitializedNodeError");
pub const SCORE_MOVE: Upstream = karpenter("pkg/controllers/disruption/balanced.go", "ScoreMove");
pub const CAN_PASS_THRESHOLD: Upstream = karpenter("pkg/controllers/disruption/balanced.go", "CanPassThreshold");
pub const NODEPOOL_TOTALS: Upstream = karpenter("pkg/controllers/disruption/balanced.go", "computeNodePoolTotals");
pub const EVENTS: Upstream = karpenter("pkg/controllers/disruption/events/events.go", "events");

pub const FIT: Upstream = scheduler("pkg/scheduler/framework/plugins/noderesources/fit.go", "Fit.Filter");
pub const TAINT_TOLERATION: Upstream =
    scheduler("pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go", "TaintToleration.Filter");
pub const NODE_AFFINITY: Upstream =
    scheduler("pkg/scheduler/framework/plugins/nodeaffinity/node_affinity.go", "NodeAffinity.Filter");
pub const NODE_PORTS: Upstream =
    scheduler("pkg/scheduler/framework/plugins/nodeports/node_ports.go", "NodePorts.Filter");
pub const POD_TOPOLOGY_SPREAD: Upstream =
    scheduler("pkg/scheduler/framework/plugins/podtopologyspread/filtering.go", "PodTopologySpread.Filter");
pub const INTER_POD_AFFINITY: Upstream =
    scheduler("pkg/scheduler/framework/plugins/interpodaffinity/filtering.go", "InterPodAffinity.Filter");
pub const NODE_UNSCHEDULABLE: Upstream =
    scheduler("pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go", "NodeUnschedulable.Filter");
pub const VOLUME_ZONE: Upstream =
    scheduler("pkg/scheduler/framework/plugins/volumezone/volume_zone.go", "VolumeZone.Filter");
pub const PDB_DISRUPTIONS: Upstream = Upstream {
    project: Project::Kubernetes,
    path: "pkg/controller/disruption/disruption.go",
    function: "DisruptionController.getExpectedPodCount",
};
pub const DELETE_EXPIRING_PODS: Upstream =
    karpenter("pkg/controllers/node/termination/terminator/terminator.go", "Terminator.DeleteExpiringPods");

#[cfg(test)]
mod tests {
    #[test]
    fn displays_project_path_and_function() {
        assert_eq!(super::NEW_CANDIDATE.to_string(), "karpenter: pkg/controllers/disruption/types.go NewCandidate");
        assert!(super::FIT.url().starts_with("https://github.com/kubernetes/kubernetes/blob/"));
    }
}
