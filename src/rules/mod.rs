//! The rules of one Karpenter core version: which of the behaviour changes between v1.0.0 and
//! v1.14.1 that this replay builds are in force.
//!
//! [`RULES`] is the one table: each row names the field, the upstream PR, the upstream function
//! it changed, the first minor release that has it and the patch releases it was backported to
//! (docs/VERSION-RULES.md, read at the tags on both sides). A [`RuleSet`] is derived from it once
//! per run, in the input pipeline (`prepare::resolve_settings`), stored in
//! `SnapshotInfo::rules`, and read by the engine where a rule differs: one engine, a branch per
//! rule. Pure.

pub(crate) mod crd;
pub mod options;
pub(crate) mod select;
pub mod version;

use serde::Serialize;

pub use version::CoreVersion;

use crate::upstream::{self, Upstream};

/// A behaviour that changed between core versions (one per [`RULES`] row).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Rule {
    /// Emptiness runs before Drift (`NewMethods`); before, Drift ran first.
    EmptinessBeforeDrift,
    /// `karpenter.sh/do-not-disrupt` on a pod may be a duration; before, only `"true"` counted.
    DoNotDisruptDuration,
    /// A consolidation simulation puts no moved pod on a node still under its pool's
    /// `consolidateAfter`.
    DestinationConsolidateAfter,
    /// Candidates are tried by savings ratio, highest first; before, by disruption cost,
    /// lowest first.
    CandidateOrderSavingsRatio,
    /// A pod selected by more than one PDB cannot be evicted, whatever they allow; before, each
    /// PDB was asked in turn and two that allow a disruption let the pod go.
    MultiplePdbsBlock,
    /// `limits.nodes` counts in the simulation: a NodePool with no node left opens no NodeClaim;
    /// before, the `nodes` key had no effect there.
    NodeLimits,
    /// Drift no longer takes empty drifted nodes in one batch command; before, it deleted every
    /// empty one the budget allowed, with no simulation.
    DriftUnbatchesEmpties,
    /// Drift tries empty drifted nodes first, one per command; before (with the rule above),
    /// Drift skipped them and left them to Emptiness.
    DriftEmptiesFirst,
    /// "Empty" means no reschedulable pod with a positive eviction cost, and consolidation
    /// leaves empty nodes to Emptiness; before, "empty" meant no reschedulable pod at all and
    /// consolidation took empty nodes too.
    EmptyByEvictionCost,
    /// A new NodeClaim keeps its 600 cheapest instance types; before, 60 (minValues is checked
    /// on what is kept).
    MaxInstanceTypes600,
    /// SingleNodeConsolidation interleaves the sorted candidates NodePool by NodePool (the i-th
    /// of each pool, then the next); before, it walked the one sorted list across pools.
    SingleNodeInterleavesPools,
    /// With `IGNORE_DRA_REQUESTS` (default on) a pod asking for DRA devices is never placed by
    /// the simulation; before, such a pod was scheduled like any other, its claims ignored.
    DraPodsUnschedulable,
    /// A pod-level `resourceClaims` entry makes a pod a DRA pod; before, only containers'
    /// `resources.claims` did.
    DraPodLevelClaims,
    /// A NodeClaim with `InstanceTerminating=True` counts neither in its NodePool's budget total
    /// nor as disrupting, and is marked for deletion (never a candidate); before, it counted in
    /// both like any node, and only a deletion timestamp marked it.
    BudgetSkipsInstanceTerminating,
    /// A disruption simulation leaves out the pods that cannot go now (do-not-disrupt, or fully
    /// blocked by a PDB), on its candidates and on deleting nodes; before, every reschedulable
    /// pod was placed.
    SimulateExcludesFullyBlockedPods,
    /// A replacement's estimated savings price the replacement at the cheapest available
    /// offering of its first type that the NodeClaim's requirements allow; before, at the
    /// cheapest available one, even of a capacity type or zone the NodeClaim cannot launch.
    EstimatedSavingsCompatibleOfferings,
    /// The Unconsolidatable event of a WhenEmpty pool's node names the policy
    /// ("…has consolidation policy WhenEmpty, but node is not empty"), after the empty check;
    /// before, "…has non-empty consolidation disabled".
    WhenEmptyMessageNamesPolicy,
    /// A candidate's price is the first offering with its zone and capacity type (none: 0 for
    /// that candidate alone); before, the cheapest offering compatible with all its labels,
    /// and one candidate without any decided the whole command's price.
    CandidatePriceFirstOffering,
    /// A candidate with no compatible offering prices the command at 0 (nothing is cheaper);
    /// before, it was an error: the single-node attempt was skipped and a multi-node one ended
    /// the round, unless the candidate was reserved (priced 0).
    UnpricedCandidateFree,
    /// A pod's pod-level `spec.resources` requests (cpu, memory, hugepages) stand for its
    /// containers' sum; before, they were ignored.
    PodLevelResources,
    /// A candidate needs only the `karpenter.sh/nodepool` label and may have an instance type
    /// the provider no longer lists: the consolidation methods refuse it (Unconsolidatable),
    /// Emptiness and Drift take it; before, a missing capacity-type, zone, instance-type or
    /// nodepool label, or an unknown type, blocked it for every method.
    PriceLabelsOnlyForConsolidation,
    /// Only NodePools and NodeClaims whose `nodeClassRef` names a NodeClass kind of the cloud
    /// provider (AWS: `karpenter.k8s.aws/EC2NodeClass`) are Karpenter's: the others are left out
    /// of cluster state, budgets and the simulation, and their nodes are unmanaged; before, every
    /// NodePool and NodeClaim was the controller's own.
    ProviderNodeClassesOnly,
    /// A container (or sidecar) whose status reports resources is sized by the larger of its
    /// spec and its allocated and actuated requests (in-place resize; only those when the resize
    /// is infeasible); before, by its spec alone.
    StatusResources,
    /// A new NodeClaim's DaemonSet overhead is counted per instance type, from the DaemonSets
    /// whose required terms that type can meet; before, one overhead per NodePool template, of
    /// every DaemonSet compatible with the template, on every type.
    DaemonOverheadPerInstanceType,
    /// A NodePool template requires `karpenter.sh/registered` and `karpenter.sh/initialized`
    /// `In [true]`, so pods and DaemonSets selecting on them count on a new NodeClaim; before,
    /// such a requirement was incompatible with the template.
    TemplateRegisteredInitialized,
    /// `node.kubernetes.io/not-ready:NoExecute` on an uninitialized managed node is a known
    /// ephemeral taint, so the simulation looks past it; before, only `not-ready:NoSchedule` was,
    /// and a pod not tolerating the NoExecute one could not go there.
    NotReadyNoExecuteEphemeral,
    /// Taints keyed `readiness.k8s.io/…` (the Node Readiness Controller's) on an uninitialized
    /// managed node are known ephemeral taints; before, they kept pods off the node.
    ReadinessTaintsEphemeral,
    /// A pending pod whose claim is unbound on an `Immediate` StorageClass is ignored (it needs
    /// no capacity); before, it was kept and pinned to the class's first allowed topology.
    ImmediateUnboundClaimIgnored,
    /// A pending pod whose claim names a volume without `pv.kubernetes.io/bind-completed` is
    /// ignored; before, an existing volume was enough.
    BindCompletedRequired,
    /// A pending pod whose claim is being deleted or `Lost` is ignored; before, neither counted.
    DeletingOrLostClaimIgnored,
    /// A pending pod whose bound PersistentVolume is being deleted is ignored; before, the
    /// volume only had to exist.
    DeletingVolumeIgnored,
    /// Every node-selector term of a PersistentVolume and every `allowedTopologies` entry of a
    /// StorageClass is an alternative placement; before, only the first of each counted.
    VolumeTopologyAlternatives,
    /// A new NodeClaim's host ports start with those of the DaemonSets its template admits, so
    /// a pod asking for a DaemonSet's port cannot open one; before, a new NodeClaim checked the
    /// ports of its own pods only.
    DaemonHostPortsOnNewClaims,
    /// Each new NodeClaim has its own host-port usage; before (from #2102), every NodeClaim of
    /// one template shared one, so a port taken on one was taken on all of them.
    HostPortsPerNewClaim,
    /// `PREFERENCE_POLICY` exists (`Ignore` drops preferences from the simulation); before,
    /// preferences were always respected and the env var was not read.
    PreferencePolicySetting,
    /// `MIN_VALUES_POLICY` exists (`BestEffort` relaxes minValues in the simulation); before,
    /// minValues was always strict and the env var was not read.
    MinValuesPolicySetting,
    /// The `ReservedCapacity` feature gate is on unless `FEATURE_GATES` turns it off; before,
    /// off unless turned on (and absent before v1.3.0).
    ReservedCapacityDefaultOn,
    /// A spread reads `nodeTaintsPolicy`, `nodeAffinityPolicy` and `matchLabelKeys`, and its
    /// domains are the NodePools' values whose taints it accepts plus the existing nodes' values
    /// it counts on; before, its node filter always honoured the pod's node affinity and ignored
    /// taints, `matchLabelKeys` was not read, and the domains were every NodePool's values.
    SpreadInclusionPolicies,
    /// (v1.8.1 only) a spread with `nodeAffinityPolicy: Honor` registers a NodePool value only
    /// when a requirement set that produced it (pool, labels, instance type) is strictly
    /// compatible with the pod's node affinity.
    SpreadDomainsBySourceAffinity,
    /// (v1.11.0 only) a spread with `nodeAffinityPolicy: Honor` registers a NodePool's values only
    /// when that pool's requirements are compatible with the pod's node affinity and, with
    /// `nodeTaintsPolicy: Honor`, the pod tolerates that same pool.
    SpreadDomainsByPoolAffinity,
    /// A pod's volume topology constrains only where it lands, not its topology spreads; before,
    /// it was written into the pod's node affinity, so a spread counted only the volume's zone
    /// (its minimum over that zone alone) and filtered nodes by it.
    VolumeRequirementsOutsideSpreads,
    /// An attempt relaxes a copy of the pod until it fits or nothing is left to relax, and a
    /// failed pod is queued unrelaxed; before, an attempt placed the pod once and relaxed the
    /// queued pod itself one step, every other pod trying in between.
    RelaxFullyPerAttempt,
    /// The provisioner validates a pending pod's nodeSelector and required node-affinity terms
    /// only; before, its preferred terms too, so a preferred term on a restricted label (or with
    /// `matchFields`) made it ignore the pod.
    PreferredAffinityUnvalidated,
    /// A pending pod whose `karpenter.sh/capacity-type In` names no known capacity type is
    /// ignored; before, such a requirement was accepted.
    CapacityTypeValuesValidated,
    /// Only the `karpenter.sh` (and the provider's) label domain and `kubernetes.io/hostname` are
    /// restricted; before, every `kubernetes.io` and `k8s.io` domain too (but for
    /// `node.kubernetes.io`, `node-restriction.kubernetes.io` and `kops.k8s.io`).
    RestrictedLabelsNarrowed,
    /// A DaemonSet counts in a new NodeClaim's overhead when one of its required node-affinity
    /// terms fits the template (preferences ignored, PreferNoSchedule taints tolerated);
    /// before, only its first required term with its heaviest preferred one, and an untolerated
    /// PreferNoSchedule taint kept it out.
    DaemonOverheadStrictTerms,
    /// With the `CapacityBuffer` gate on, every scheduling pass adds the ready capacity
    /// buffers' virtual pods to its pending pods, and Emptiness leaves a node that hosts some;
    /// before, no buffer was read (and the gate did not exist).
    CapacityBufferPods,
    /// A buffer's virtual pods carry its template's labels (spreads and affinities count them
    /// as the workload's); before, only the buffer's name and namespace labels.
    VirtualPodTemplateLabels,
}

/// One row of the table.
#[derive(Debug, Clone, Copy)]
pub struct RuleRow {
    pub rule: Rule,
    /// The field name, as `RuleSet` JSON and docs/VERSION-RULES.md name it.
    pub field: &'static str,
    pub pr: u32,
    pub upstream: Upstream,
    /// The first minor release that has it (every later minor has it too).
    pub since: CoreVersion,
    /// Earlier patch releases that got it as a backport: that patch and later ones of its line.
    pub backported_to: &'static [CoreVersion],
    /// The release that reverted it, for a rule in force only from `since` up to that one (then
    /// it is not the newest version's, and explanations cite it where it is in force).
    pub reverted_in: Option<CoreVersion>,
    /// What the version before it does, in a few words (for explain and docs).
    pub before: &'static str,
}

impl RuleRow {
    /// Whether `v` has it.
    pub fn active_at(&self, v: CoreVersion) -> bool {
        if let Some(reverted) = self.reverted_in {
            return v >= self.since && v < reverted;
        }
        v >= self.since
            || self.backported_to.iter().any(|b| b.major == v.major && b.minor == v.minor && v.patch >= b.patch)
    }

    /// `rule of #3006 (pkg/…/disruption.go IsUnderConsolidateAfter), active since v1.14.0`.
    pub fn cite(&self) -> String {
        let backports = if self.backported_to.is_empty() {
            String::new()
        } else {
            let list: Vec<String> = self.backported_to.iter().map(ToString::to_string).collect();
            format!(" (backported to {})", list.join(", "))
        };
        let when = match self.reverted_in {
            Some(reverted) => format!("in force only from {} until {reverted}, which reverted it", self.since),
            None => format!("active since {}{backports}", self.since),
        };
        format!("rule of #{} ({} {}), {when}", self.pr, self.upstream.path, self.upstream.function)
    }
}

const fn v(major: u32, minor: u32, patch: u32) -> CoreVersion {
    CoreVersion::new(major, minor, patch)
}

/// Every version-dependent rule the replay builds. docs/KARPENTER.md lists the same rows.
pub const RULES: [RuleRow; 48] = [
    RuleRow {
        rule: Rule::EmptinessBeforeDrift,
        field: "methodOrder",
        pr: 2180,
        upstream: upstream::NEW_METHODS,
        since: v(1, 5, 0),
        backported_to: &[],
        reverted_in: None,
        before: "Drift ran before Emptiness",
    },
    RuleRow {
        rule: Rule::DoNotDisruptDuration,
        field: "doNotDisruptDuration",
        pr: 2874,
        upstream: upstream::IS_DO_NOT_DISRUPT_ACTIVE,
        since: v(1, 12, 0),
        backported_to: &[],
        reverted_in: None,
        before: "only karpenter.sh/do-not-disrupt: \"true\" protected a pod",
    },
    RuleRow {
        rule: Rule::DestinationConsolidateAfter,
        field: "destinationConsolidateAfter",
        pr: 3006,
        upstream: upstream::IS_UNDER_CONSOLIDATE_AFTER,
        since: v(1, 14, 0),
        backported_to: &[],
        reverted_in: None,
        before: "any node with room could take a moved pod",
    },
    RuleRow {
        rule: Rule::CandidateOrderSavingsRatio,
        field: "candidateOrder",
        pr: 2962,
        upstream: upstream::SORT_CANDIDATES,
        since: v(1, 14, 0),
        backported_to: &[],
        reverted_in: None,
        before: "candidates were tried by disruption cost, lowest first",
    },
    RuleRow {
        rule: Rule::MultiplePdbsBlock,
        field: "multiplePdbsBlock",
        pr: 2379,
        upstream: upstream::PDB_IS_EVICTABLE,
        since: v(1, 7, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a pod under several PDBs was blocked only by one that allowed no disruption",
    },
    RuleRow {
        rule: Rule::NodeLimits,
        field: "nodeLimits",
        pr: 2526,
        upstream: upstream::SCHEDULER_ADD_NEW,
        since: v(1, 11, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a NodePool's limits.nodes did not limit the simulation",
    },
    RuleRow {
        rule: Rule::DriftUnbatchesEmpties,
        field: "driftUnbatchesEmpties",
        pr: 2180,
        upstream: upstream::DRIFT_COMPUTE,
        since: v(1, 5, 0),
        backported_to: &[],
        reverted_in: None,
        before: "Drift deleted every empty drifted node the budget allowed in one command",
    },
    RuleRow {
        rule: Rule::DriftEmptiesFirst,
        field: "driftEmptiesFirst",
        pr: 2423,
        upstream: upstream::DRIFT_COMPUTE,
        since: v(1, 7, 0),
        backported_to: &[v(1, 5, 4), v(1, 6, 2)],
        reverted_in: None,
        before: "Drift skipped empty drifted nodes and left them to Emptiness",
    },
    RuleRow {
        rule: Rule::EmptyByEvictionCost,
        field: "emptyByEvictionCost",
        pr: 2962,
        upstream: upstream::IS_EMPTY,
        since: v(1, 14, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a node was empty only with no reschedulable pod, and consolidation took empty nodes too",
    },
    RuleRow {
        rule: Rule::MaxInstanceTypes600,
        field: "maxInstanceTypes",
        pr: 2430,
        upstream: upstream::MAX_INSTANCE_TYPES,
        since: v(1, 7, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a new NodeClaim kept its 60 cheapest instance types",
    },
    RuleRow {
        rule: Rule::SingleNodeInterleavesPools,
        field: "singleNodeOrder",
        pr: 2035,
        upstream: upstream::SINGLE_NODE_SORT,
        since: v(1, 4, 0),
        backported_to: &[],
        reverted_in: None,
        before: "SingleNodeConsolidation walked one sorted list across NodePools",
    },
    RuleRow {
        rule: Rule::DraPodsUnschedulable,
        field: "draPodsUnschedulable",
        pr: 2384,
        upstream: upstream::SCHEDULER_ADD,
        since: v(1, 7, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a pod asking for DRA devices was scheduled like any other, its claims ignored",
    },
    RuleRow {
        rule: Rule::DraPodLevelClaims,
        field: "draPodLevelClaims",
        pr: 3124,
        upstream: upstream::HAS_DRA_REQUIREMENTS,
        since: v(1, 14, 0),
        backported_to: &[],
        reverted_in: None,
        before: "only containers' resources.claims made a pod a DRA pod",
    },
    RuleRow {
        rule: Rule::BudgetSkipsInstanceTerminating,
        field: "budgetSkipsInstanceTerminating",
        pr: 1735,
        upstream: upstream::BUILD_BUDGET_MAPPING,
        since: v(1, 1, 0),
        backported_to: &[v(1, 0, 4)],
        reverted_in: None,
        before: "a node whose NodeClaim is InstanceTerminating still counted in its NodePool's budget, and in flight when deleting",
    },
    RuleRow {
        rule: Rule::SimulateExcludesFullyBlockedPods,
        field: "simulateExcludesFullyBlockedPods",
        pr: 2033,
        upstream: upstream::IS_CURRENTLY_RESCHEDULABLE,
        since: v(1, 4, 0),
        backported_to: &[v(1, 0, 7), v(1, 1, 3), v(1, 2, 3), v(1, 3, 3)],
        reverted_in: None,
        before: "every reschedulable pod went into the simulation, do-not-disrupt and fully PDB-blocked ones too",
    },
    RuleRow {
        rule: Rule::EstimatedSavingsCompatibleOfferings,
        field: "estimatedSavingsCompatibleOfferings",
        // #3238 carries #3217 into the release branch.
        pr: 3238,
        upstream: upstream::ESTIMATED_SAVINGS,
        since: v(1, 14, 1),
        backported_to: &[],
        reverted_in: None,
        before: "a replacement's savings were priced at its cheapest available offering, allowed or not",
    },
    RuleRow {
        rule: Rule::WhenEmptyMessageNamesPolicy,
        field: "whenEmptyMessage",
        pr: 2962,
        upstream: upstream::CONSOLIDATION_SHOULD_DISRUPT,
        since: v(1, 14, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a WhenEmpty pool's node was \"non-empty consolidation disabled\"",
    },
    RuleRow {
        rule: Rule::CandidatePriceFirstOffering,
        field: "candidatePrice",
        pr: 2962,
        upstream: upstream::RESOLVE_NODE_PRICE,
        since: v(1, 14, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a candidate was priced at its cheapest offering compatible with its labels, and one without any priced the whole command",
    },
    RuleRow {
        rule: Rule::UnpricedCandidateFree,
        field: "unpricedCandidateFree",
        pr: 2812,
        upstream: upstream::GET_CANDIDATE_PRICES,
        since: v(1, 9, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a candidate with no compatible offering was an error (\"unable to determine offering\"): no single-node command for it, and a multi-node attempt ended the round; a reserved one was priced 0",
    },
    RuleRow {
        rule: Rule::PodLevelResources,
        field: "podLevelResources",
        pr: 2383,
        upstream: upstream::RESOURCES_CEILING,
        since: v(1, 8, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a pod's pod-level spec.resources were ignored: its containers' requests counted",
    },
    RuleRow {
        rule: Rule::PriceLabelsOnlyForConsolidation,
        field: "priceLabelsOnlyForConsolidation",
        pr: 1787,
        upstream: upstream::VALIDATE_NODE_DISRUPTABLE,
        since: v(1, 1, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a node without the capacity-type, zone, instance-type or nodepool label, or of an instance type the provider does not list, was blocked for every method",
    },
    RuleRow {
        rule: Rule::ProviderNodeClassesOnly,
        field: "providerNodeClassesOnly",
        pr: 1818,
        upstream: upstream::NODECLAIM_IS_MANAGED,
        since: v(1, 1, 0),
        backported_to: &[],
        reverted_in: None,
        before: "every NodePool and NodeClaim was the controller's own, whatever NodeClass kind it names (the AWS provider resolved an EC2NodeClass by name alone)",
    },
    RuleRow {
        rule: Rule::StatusResources,
        field: "statusResources",
        pr: 3065,
        upstream: upstream::RESOURCES_CEILING,
        since: v(1, 14, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a pod was sized by its spec alone, whatever an in-place resize had allocated",
    },
    RuleRow {
        rule: Rule::DaemonOverheadPerInstanceType,
        field: "daemonOverheadPerInstanceType",
        pr: 2975,
        upstream: upstream::BUILD_DAEMON_OVERHEAD_GROUPS,
        since: v(1, 14, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a new NodeClaim carried one DaemonSet overhead per NodePool, of every DaemonSet the template admits, on every instance type",
    },
    RuleRow {
        rule: Rule::TemplateRegisteredInitialized,
        field: "templateRegisteredInitialized",
        pr: 2161,
        upstream: upstream::NEW_NODE_CLAIM_TEMPLATE,
        since: v(1, 14, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a pod or DaemonSet requiring karpenter.sh/registered or karpenter.sh/initialized did not fit a new NodeClaim",
    },
    RuleRow {
        rule: Rule::NotReadyNoExecuteEphemeral,
        field: "notReadyNoExecuteEphemeral",
        pr: 2265,
        upstream: upstream::KNOWN_EPHEMERAL_TAINTS,
        since: v(1, 7, 0),
        backported_to: &[],
        reverted_in: None,
        before: "node.kubernetes.io/not-ready:NoExecute on an initializing node kept pods that do not tolerate it off the node",
    },
    RuleRow {
        rule: Rule::ReadinessTaintsEphemeral,
        field: "readinessTaintsEphemeral",
        pr: 3025,
        upstream: upstream::KNOWN_EPHEMERAL_TAINTS,
        since: v(1, 13, 0),
        backported_to: &[],
        reverted_in: None,
        before: "readiness.k8s.io/ taints on an initializing node kept pods that do not tolerate them off the node",
    },
    RuleRow {
        rule: Rule::ImmediateUnboundClaimIgnored,
        field: "immediateUnboundClaimIgnored",
        pr: 2415,
        upstream: upstream::VALIDATE_PERSISTENT_VOLUME_CLAIMS,
        since: v(1, 7, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a pending pod with an unbound claim of an Immediate StorageClass still asked for capacity",
    },
    RuleRow {
        rule: Rule::BindCompletedRequired,
        field: "bindCompletedRequired",
        pr: 2487,
        upstream: upstream::VALIDATE_PERSISTENT_VOLUME_CLAIMS,
        since: v(1, 7, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a pending pod whose claim names an existing volume asked for capacity, bind-completed or not",
    },
    RuleRow {
        rule: Rule::DeletingOrLostClaimIgnored,
        field: "deletingOrLostClaimIgnored",
        pr: 2488,
        upstream: upstream::VALIDATE_PERSISTENT_VOLUME_CLAIMS,
        since: v(1, 7, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a pending pod whose claim is being deleted or Lost still asked for capacity",
    },
    RuleRow {
        rule: Rule::DeletingVolumeIgnored,
        field: "deletingVolumeIgnored",
        pr: 2851,
        upstream: upstream::VALIDATE_PERSISTENT_VOLUME_CLAIMS,
        since: v(1, 10, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a pending pod whose bound PersistentVolume is being deleted still asked for capacity",
    },
    RuleRow {
        rule: Rule::VolumeTopologyAlternatives,
        field: "volumeTopologyAlternatives",
        pr: 2743,
        upstream: upstream::VOLUME_TOPOLOGY_REQUIREMENTS,
        since: v(1, 13, 0),
        backported_to: &[v(1, 12, 1)],
        reverted_in: None,
        before: "only a PersistentVolume's first node-selector term and a StorageClass's first allowedTopologies entry placed a pod",
    },
    RuleRow {
        rule: Rule::DaemonHostPortsOnNewClaims,
        field: "daemonHostPortsOnNewClaims",
        pr: 2102,
        upstream: upstream::GET_DAEMON_HOST_PORT_USAGE,
        since: v(1, 4, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a new NodeClaim checked only its own pods' host ports, not its DaemonSets'",
    },
    RuleRow {
        rule: Rule::HostPortsPerNewClaim,
        field: "hostPortsPerNewClaim",
        pr: 3022,
        upstream: upstream::NEW_NODE_CLAIM,
        since: v(1, 13, 0),
        backported_to: &[],
        reverted_in: None,
        before: "the new NodeClaims of one NodePool shared one host-port usage: a port taken on one was taken on every one",
    },
    RuleRow {
        rule: Rule::PreferencePolicySetting,
        field: "preferencePolicySetting",
        pr: 2122,
        upstream: upstream::OPTIONS_ADD_FLAGS,
        since: v(1, 4, 0),
        backported_to: &[],
        reverted_in: None,
        before: "PREFERENCE_POLICY did not exist: preferences were always respected",
    },
    RuleRow {
        rule: Rule::MinValuesPolicySetting,
        field: "minValuesPolicySetting",
        pr: 2299,
        upstream: upstream::OPTIONS_ADD_FLAGS,
        since: v(1, 6, 0),
        backported_to: &[],
        reverted_in: None,
        before: "MIN_VALUES_POLICY did not exist: minValues was always strict",
    },
    RuleRow {
        rule: Rule::ReservedCapacityDefaultOn,
        field: "reservedCapacityDefaultOn",
        pr: 2365,
        upstream: upstream::DEFAULT_FEATURE_GATES,
        since: v(1, 6, 0),
        backported_to: &[],
        reverted_in: None,
        before: "the ReservedCapacity feature gate was off unless FEATURE_GATES turned it on",
    },
    RuleRow {
        rule: Rule::SpreadInclusionPolicies,
        field: "spreadInclusionPolicies",
        pr: 852,
        upstream: upstream::MAKE_TOPOLOGY_NODE_FILTER,
        since: v(1, 3, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a topology spread ignored nodeTaintsPolicy, nodeAffinityPolicy and matchLabelKeys, and counted every NodePool's domains",
    },
    RuleRow {
        rule: Rule::SpreadDomainsBySourceAffinity,
        field: "spreadDomainsBySourceAffinity",
        pr: 2639,
        upstream: upstream::TOPOLOGY_DOMAIN_GROUP_FOR_EACH,
        since: v(1, 8, 1),
        backported_to: &[],
        reverted_in: Some(v(1, 8, 2)),
        before: "a spread registered every NodePool value whatever the pod's node affinity (taints aside)",
    },
    RuleRow {
        rule: Rule::SpreadDomainsByPoolAffinity,
        field: "spreadDomainsByPoolAffinity",
        pr: 2671,
        upstream: upstream::TOPOLOGY_DOMAIN_GROUP_FOR_EACH,
        since: v(1, 11, 0),
        backported_to: &[],
        reverted_in: Some(v(1, 11, 1)),
        before: "a spread registered every NodePool value whatever the pod's node affinity (taints aside)",
    },
    RuleRow {
        rule: Rule::VolumeRequirementsOutsideSpreads,
        field: "volumeRequirementsOutsideSpreads",
        pr: 2780,
        upstream: upstream::VOLUME_TOPOLOGY_REQUIREMENTS,
        since: v(1, 9, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a pod's volume zone was part of its node affinity, so its spreads counted that zone alone",
    },
    RuleRow {
        rule: Rule::RelaxFullyPerAttempt,
        field: "relaxFullyPerAttempt",
        pr: 2119,
        upstream: upstream::SCHEDULER_TRY_SCHEDULE,
        since: v(1, 4, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a pod that did not fit was relaxed one preference and queued again, the other pods trying before its next attempt",
    },
    RuleRow {
        rule: Rule::PreferredAffinityUnvalidated,
        field: "preferredAffinityUnvalidated",
        pr: 2182,
        upstream: upstream::PROVISIONER_VALIDATE,
        since: v(1, 5, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a pending pod whose preferred node-affinity term used a restricted label or matchFields was ignored",
    },
    RuleRow {
        rule: Rule::CapacityTypeValuesValidated,
        field: "capacityTypeValuesValidated",
        pr: 2164,
        upstream: upstream::VALIDATE_REQUIREMENT,
        since: v(1, 5, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a pending pod's karpenter.sh/capacity-type In with no known value was accepted",
    },
    RuleRow {
        rule: Rule::RestrictedLabelsNarrowed,
        field: "restrictedLabelsNarrowed",
        pr: 2586,
        upstream: upstream::IS_RESTRICTED_LABEL,
        since: v(1, 9, 0),
        backported_to: &[],
        reverted_in: None,
        before: "a pending pod selecting a kubernetes.io or k8s.io label (node-role.kubernetes.io/…) was ignored",
    },
    RuleRow {
        rule: Rule::DaemonOverheadStrictTerms,
        field: "daemonOverheadStrictTerms",
        pr: 1727,
        upstream: upstream::IS_DAEMON_POD_COMPATIBLE,
        since: v(1, 1, 1),
        backported_to: &[],
        reverted_in: None,
        before: "a DaemonSet counted in a new NodeClaim's overhead only if its first required term and heaviest preference fit the template",
    },
    RuleRow {
        rule: Rule::CapacityBufferPods,
        field: "capacityBufferPods",
        pr: 3028,
        upstream: upstream::GET_PENDING_PODS,
        since: v(1, 14, 0),
        backported_to: &[],
        reverted_in: None,
        before: "no CapacityBuffer was read: no virtual pods, and Emptiness took a node whatever buffer it held",
    },
    RuleRow {
        rule: Rule::VirtualPodTemplateLabels,
        field: "virtualPodTemplateLabels",
        pr: 3238,
        upstream: upstream::BUILD_VIRTUAL_PODS,
        since: v(1, 14, 1),
        backported_to: &[],
        reverted_in: None,
        before: "virtual pods carried only the buffer's name and namespace labels, so no spread or affinity counted them",
    },
];

/// The row of `rule`.
pub fn row(rule: Rule) -> &'static RuleRow {
    RULES.iter().find(|r| r.rule == rule).expect("every Rule has a row")
}

/// The NodeClass kinds of the replayed cloud provider (`CloudProvider.GetSupportedNodeClasses`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderNodeClasses {
    /// The AWS provider's: `karpenter.k8s.aws/EC2NodeClass` (aws/karpenter-provider-aws v1.1.0
    /// `pkg/cloudprovider/cloudprovider.go:233`). The replay's prices and instance types are
    /// AWS's, so it is assumed unless the controller's image says otherwise.
    Aws,
    /// A controller image of another provider: its kinds are not known, every NodePool and
    /// NodeClaim is taken as its own.
    Unknown,
}

/// The AWS provider's one NodeClass kind, as (group, kind).
pub const AWS_NODE_CLASS: (&str, &str) = ("karpenter.k8s.aws", "EC2NodeClass");

/// The rules of one core version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleSet {
    pub version: CoreVersion,
    /// Whether each rule is in force, indexed by the [`Rule`]'s discriminant (every rule has
    /// one row, so there are as many as rows): `has` is read on the simulation's hot paths.
    active: [bool; RULES.len()],
    /// Whose NodeClass kinds [`Rule::ProviderNodeClassesOnly`] keeps.
    pub node_classes: ProviderNodeClasses,
}

impl Default for RuleSet {
    /// The newest known version's: what a replay that never resolved a version follows.
    fn default() -> Self {
        RuleSet::at(version::NEWEST)
    }
}

impl RuleSet {
    pub fn at(version: CoreVersion) -> RuleSet {
        let mut active = [false; RULES.len()];
        for row in &RULES {
            active[row.rule as usize] = row.active_at(version);
        }
        RuleSet { version, active, node_classes: ProviderNodeClasses::Aws }
    }

    /// Whether the controller owns an object whose `nodeClassRef` is `class_ref` (v1.1.0
    /// `pkg/utils/nodeclaim/nodeclaim.go:39` and `pkg/utils/nodepool/nodepool.go:36` `IsManaged`:
    /// its group and kind are one of the provider's). An object without one is kept: the v1 CRDs
    /// require the field, so only a hand-written snapshot lacks it.
    pub fn owns_node_class(&self, class_ref: Option<&serde_json::Value>) -> bool {
        if !self.has(Rule::ProviderNodeClassesOnly) || self.node_classes == ProviderNodeClasses::Unknown {
            return true;
        }
        let Some(class_ref) = class_ref else { return true };
        let field = |key: &str| class_ref.get(key).and_then(serde_json::Value::as_str).unwrap_or_default();
        (field("group"), field("kind")) == AWS_NODE_CLASS
    }

    /// Whether `rule` is in force.
    pub fn has(&self, rule: Rule) -> bool {
        self.active[rule as usize]
    }

    /// This rule set with `rule` in force or not (`diff` flips one rule at a time to find the
    /// one that moves a verdict).
    #[must_use]
    pub fn with(mut self, rule: Rule, on: bool) -> RuleSet {
        self.active[rule as usize] = on;
        self
    }

    /// The rules whose value differs between two rule sets, with `other`'s value.
    pub fn differences(&self, other: &RuleSet) -> Vec<(&'static RuleRow, bool)> {
        RULES.iter().filter(|r| self.has(r.rule) != other.has(r.rule)).map(|r| (r, other.has(r.rule))).collect()
    }

    /// The rows whose value differs from the newest version's: what JSON lists and what an
    /// explanation cites.
    pub fn differing(&self) -> Vec<&'static RuleRow> {
        let newest = RuleSet::default();
        RULES.iter().filter(|r| self.has(r.rule) != newest.has(r.rule)).collect()
    }

    /// `rule`'s citation when the rule is in force at this version but not at every supported
    /// one (so the verdict it decided is version-dependent).
    pub fn cite_if_active(&self, rule: Rule) -> Option<String> {
        self.has(rule).then(|| row(rule).cite())
    }

    /// `… not in force at v1.13.0 (rule of #3006 …)`: why a newer rule did not decide.
    pub fn cite_if_inactive(&self, rule: Rule) -> Option<String> {
        (!self.has(rule)).then(|| {
            let r = row(rule);
            format!("{} at {} ({}); {}", "not in force", self.version, r.cite(), r.before)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_rule_has_one_row_and_the_newest_has_them_all() {
        assert!(RULES.iter().all(|r| (r.rule as usize) < RULES.len()), "a rule without a row");
        let mut seen: Vec<Rule> = RULES.iter().map(|r| r.rule).collect();
        seen.sort();
        seen.dedup();
        assert_eq!(seen.len(), RULES.len());
        let newest = RuleSet::default();
        assert!(RULES.iter().all(|r| newest.has(r.rule) != r.reverted_in.is_some()));
        assert!(newest.differing().is_empty());
    }

    #[test]
    fn boundaries_fall_where_the_table_says() {
        assert!(!RuleSet::at(v(1, 4, 2)).has(Rule::EmptinessBeforeDrift));
        assert!(RuleSet::at(v(1, 5, 0)).has(Rule::EmptinessBeforeDrift));
        assert!(!RuleSet::at(v(1, 11, 2)).has(Rule::DoNotDisruptDuration));
        assert!(RuleSet::at(v(1, 12, 0)).has(Rule::DoNotDisruptDuration));
        let v113 = RuleSet::at(v(1, 13, 0));
        assert!(!v113.has(Rule::DestinationConsolidateAfter) && !v113.has(Rule::CandidateOrderSavingsRatio));
        let fields: Vec<&str> = v113.differing().iter().map(|r| r.field).collect();
        assert_eq!(
            fields,
            [
                "destinationConsolidateAfter",
                "candidateOrder",
                "emptyByEvictionCost",
                "draPodLevelClaims",
                "estimatedSavingsCompatibleOfferings",
                "whenEmptyMessage",
                "candidatePrice",
                "statusResources",
                "daemonOverheadPerInstanceType",
                "templateRegisteredInitialized",
                "capacityBufferPods",
                "virtualPodTemplateLabels"
            ]
        );
        let v1140 = RuleSet::at(v(1, 14, 0));
        let fields: Vec<&str> = v1140.differing().iter().map(|r| r.field).collect();
        assert_eq!(
            fields,
            ["estimatedSavingsCompatibleOfferings", "virtualPodTemplateLabels"],
            "1.14.1 differs from 1.14.0 by #3238 alone"
        );
        assert!(RuleSet::at(v(1, 14, 0)).has(Rule::DestinationConsolidateAfter));
    }

    #[test]
    fn the_drift_empties_rules_follow_their_patch_lines() {
        let drift = |major, minor, patch| {
            let r = RuleSet::at(v(major, minor, patch));
            (r.has(Rule::DriftUnbatchesEmpties), r.has(Rule::DriftEmptiesFirst))
        };
        assert_eq!(drift(1, 4, 2), (false, false), "batch");
        assert_eq!(drift(1, 5, 0), (true, false), "skip");
        assert_eq!(drift(1, 5, 3), (true, false), "skip");
        assert_eq!(drift(1, 5, 4), (true, true), "#2450 backport");
        assert_eq!(drift(1, 6, 1), (true, false), "the 1.6 line got it at 1.6.2");
        assert_eq!(drift(1, 6, 2), (true, true), "#2459 backport");
        assert_eq!(drift(1, 7, 0), (true, true));
        assert!(!RuleSet::at(v(1, 6, 4)).has(Rule::MultiplePdbsBlock));
        assert!(RuleSet::at(v(1, 7, 0)).has(Rule::MultiplePdbsBlock));
        assert!(!RuleSet::at(v(1, 10, 1)).has(Rule::NodeLimits));
        assert!(RuleSet::at(v(1, 11, 0)).has(Rule::NodeLimits));
        assert!(!RuleSet::at(v(1, 6, 4)).has(Rule::MaxInstanceTypes600));
        assert!(RuleSet::at(v(1, 7, 0)).has(Rule::MaxInstanceTypes600));
        assert!(!RuleSet::at(v(1, 3, 5)).has(Rule::SingleNodeInterleavesPools));
        assert!(RuleSet::at(v(1, 4, 0)).has(Rule::SingleNodeInterleavesPools));
        assert!(!RuleSet::at(v(1, 6, 4)).has(Rule::DraPodsUnschedulable));
        assert!(RuleSet::at(v(1, 7, 0)).has(Rule::DraPodsUnschedulable));
        assert!(!RuleSet::at(v(1, 13, 0)).has(Rule::DraPodLevelClaims));
        assert!(RuleSet::at(v(1, 14, 0)).has(Rule::DraPodLevelClaims));
        assert!(!RuleSet::at(v(1, 8, 3)).has(Rule::UnpricedCandidateFree));
        assert!(RuleSet::at(v(1, 9, 0)).has(Rule::UnpricedCandidateFree));
        assert!(!RuleSet::at(v(1, 13, 0)).has(Rule::CandidatePriceFirstOffering));
        assert!(!RuleSet::at(v(1, 7, 2)).has(Rule::PodLevelResources));
        assert!(RuleSet::at(v(1, 8, 0)).has(Rule::PodLevelResources));
        assert!(!RuleSet::at(v(1, 0, 9)).has(Rule::PriceLabelsOnlyForConsolidation));
        assert!(RuleSet::at(v(1, 1, 0)).has(Rule::PriceLabelsOnlyForConsolidation));
        assert!(!RuleSet::at(v(1, 0, 9)).has(Rule::ProviderNodeClassesOnly));
        assert!(RuleSet::at(v(1, 1, 0)).has(Rule::ProviderNodeClassesOnly));
        assert!(!RuleSet::at(v(1, 13, 0)).has(Rule::StatusResources));
        assert!(RuleSet::at(v(1, 14, 0)).has(Rule::StatusResources));
        for rule in [Rule::DaemonOverheadPerInstanceType, Rule::TemplateRegisteredInitialized] {
            assert!(!RuleSet::at(v(1, 13, 0)).has(rule) && RuleSet::at(v(1, 14, 0)).has(rule));
        }
    }

    #[test]
    fn from_v1_1_only_the_provider_s_node_class_kinds_are_owned() {
        let ec2 = serde_json::json!({"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"});
        let foreign = serde_json::json!({"group": "example.com", "kind": "FooClass", "name": "default"});
        let old = RuleSet::at(v(1, 0, 9));
        let new = RuleSet::at(v(1, 1, 0));
        assert!(old.owns_node_class(Some(&foreign)), "1.0.x resolves an EC2NodeClass by name alone");
        assert!(new.owns_node_class(Some(&ec2)) && !new.owns_node_class(Some(&foreign)));
        assert!(new.owns_node_class(None), "a hand-written object without nodeClassRef is kept");
        let unknown = RuleSet { node_classes: ProviderNodeClasses::Unknown, ..new };
        assert!(unknown.owns_node_class(Some(&foreign)), "another provider's kinds are not known");
    }

    #[test]
    fn the_budget_and_blocked_pod_rules_follow_their_backports() {
        let has = |rule, major, minor, patch| RuleSet::at(v(major, minor, patch)).has(rule);
        let budget = Rule::BudgetSkipsInstanceTerminating;
        assert!(!has(budget, 1, 0, 3));
        assert!(has(budget, 1, 0, 4), "#1736 backport");
        assert!(has(budget, 1, 1, 0));
        let blocked = Rule::SimulateExcludesFullyBlockedPods;
        for (minor, last_without) in [(0, 6), (1, 2), (2, 2), (3, 2)] {
            assert!(!has(blocked, 1, minor, last_without), "v1.{minor}.{last_without}");
            assert!(has(blocked, 1, minor, last_without + 1), "v1.{minor}.{} has the backport", last_without + 1);
        }
        assert!(!has(blocked, 1, 2, 0), "the 1.2 line starts without it");
        assert!(has(blocked, 1, 4, 0));
        let fields: Vec<&str> = RuleSet::at(v(1, 0, 3)).differing().iter().map(|r| r.field).collect();
        assert!(
            fields.contains(&"budgetSkipsInstanceTerminating") && fields.contains(&"simulateExcludesFullyBlockedPods")
        );
    }

    #[test]
    fn a_backport_counts_from_its_patch_on_its_line_only() {
        const BACKPORTS: [CoreVersion; 2] = [v(1, 0, 7), v(1, 3, 3)];
        let row = RuleRow { backported_to: &BACKPORTS, since: v(1, 4, 0), ..RULES[0] };
        assert!(!row.active_at(v(1, 0, 6)));
        assert!(row.active_at(v(1, 0, 7)));
        assert!(!row.active_at(v(1, 1, 9)), "the 1.1 line has no backport");
        assert!(!row.active_at(v(1, 3, 2)));
        assert!(row.active_at(v(1, 3, 3)));
        assert!(row.active_at(v(1, 4, 0)));
        assert!(row.cite().contains("backported to v1.0.7, v1.3.3"), "{}", row.cite());
    }

    #[test]
    fn a_reverted_rule_is_in_force_only_until_its_revert() {
        let by_source = Rule::SpreadDomainsBySourceAffinity;
        let by_pool = Rule::SpreadDomainsByPoolAffinity;
        let has = |rule, minor, patch| RuleSet::at(v(1, minor, patch)).has(rule);
        assert!(!has(by_source, 8, 0) && has(by_source, 8, 1) && !has(by_source, 8, 2) && !has(by_source, 9, 0));
        assert!(!has(by_pool, 10, 1) && has(by_pool, 11, 0) && !has(by_pool, 11, 1) && !has(by_pool, 14, 1));
        let fields: Vec<&str> = RuleSet::at(v(1, 11, 0)).differing().iter().map(|r| r.field).collect();
        assert!(fields.contains(&"spreadDomainsByPoolAffinity"), "{fields:?}");
        assert!(row(by_pool).cite().ends_with("in force only from v1.11.0 until v1.11.1, which reverted it"));
    }

    #[test]
    fn a_citation_names_the_pr_function_and_version() {
        let text = row(Rule::DestinationConsolidateAfter).cite();
        assert_eq!(
            text,
            "rule of #3006 (pkg/utils/disruption/disruption.go IsUnderConsolidateAfter), active since v1.14.0"
        );
    }
}
