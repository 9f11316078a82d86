//! Which upstream function writes each Karpenter Event reason (docs/DOCTOR-SIGNALS.md §2–§4,
//! read at kubernetes-sigs/karpenter v1.14.0 and aws/karpenter-provider-aws v1.14.0): what
//! `doctor` cites as a finding's evidence and `explain` beside the node's latest events.
//!
//! Pure: a table from the reason (and, where one reason has two writers, the message) to
//! `repository path function`.

const CORE: &str = "kubernetes-sigs/karpenter";
const AWS: &str = "aws/karpenter-provider-aws";

/// The AWS provider's interruption reasons (§4.1): involuntary disruption, not a verdict.
pub(crate) const INTERRUPTION: [&str; 7] = [
    "SpotInterrupted",
    "SpotRebalanceRecommendation",
    "CapacityReservationInstanceInterrupted",
    "InstanceStopping",
    "InstanceTerminating",
    "InstanceUnhealthy",
    "TerminatingOnInterruption",
];

/// `repository path function` of the code that publishes an Event of `reason` with `message`.
pub(crate) fn of(reason: &str, message: &str) -> String {
    let (repo, at) = match reason {
        "DisruptionBlocked" => {
            (CORE, "pkg/controllers/disruption/events/events.go Blocked / NodePoolBlockedForDisruptionReason")
        }
        "Unconsolidatable" => (CORE, "pkg/controllers/disruption/events/events.go Unconsolidatable"),
        "ConsolidationCandidate" => (CORE, "pkg/controllers/disruption/types.go Command.EmitCandidateEvents"),
        "ConsolidationRejected" => (CORE, "pkg/controllers/disruption/types.go Command.EmitRejectedEvents"),
        "ConsolidationApproved" => (CORE, "pkg/controllers/disruption/balanced.go balancedEvaluator.ApproveCommand"),
        "DisruptionLaunching" | "DisruptionWaitingReadiness" | "DisruptionTerminating" => {
            (CORE, "pkg/controllers/disruption/queue.go Queue.waitOrTerminate")
        }
        // A refused eviction is published by the eviction queue (terminator/eviction.go:206 at
        // v1.14.0); the pods-still-waiting text by the termination controller (controller.go:211).
        "FailedDraining" if message.contains("PDB") => {
            (CORE, "pkg/controllers/node/termination/terminator/eviction.go Queue.Reconcile")
        }
        "FailedDraining" => (CORE, "pkg/controllers/node/termination/controller.go Controller.awaitDrain"),
        "AwaitingVolumeDetachment" => {
            (CORE, "pkg/controllers/node/termination/controller.go Controller.awaitVolumeDetachment")
        }
        "Evicted" => (CORE, "pkg/controllers/node/termination/terminator/eviction.go Queue.Reconcile"),
        "Disrupted" => {
            (CORE, "pkg/controllers/node/termination/terminator/terminator.go Terminator.DeleteExpiringPods")
        }
        "TerminationGracePeriodExpiring" => {
            (CORE, "pkg/controllers/node/termination/controller.go nodeTerminationTime")
        }
        "NodeRepairBlocked" => (CORE, "pkg/controllers/node/health/controller.go Controller.Reconcile"),
        "InsufficientCapacityError" => (CORE, "pkg/controllers/nodeclaim/lifecycle/launch.go Launch.launchNodeClaim"),
        "UnregisteredTaintMissing" => {
            (CORE, "pkg/controllers/nodeclaim/lifecycle/registration.go Registration.Reconcile")
        }
        "FailedConsistencyCheck" => (CORE, "pkg/controllers/nodeclaim/consistency/controller.go Controller.Reconcile"),
        "Nominated" | "FailedScheduling" | "NoCompatibleInstanceTypes" => {
            (CORE, "pkg/controllers/provisioning/scheduling/events.go")
        }
        "InvalidDoNotDisruptAnnotation" | "DoNotDisruptUntil" | "DoNotDisruptGracePeriodElapsed" => {
            (CORE, "pkg/utils/pod/events.go")
        }
        r if INTERRUPTION.contains(&r) => (AWS, "pkg/controllers/interruption/events/events.go"),
        _ => (CORE, "pkg/events/recorder.go"),
    };
    format!("{repo} {at}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_writer_by_reason_and_by_message_where_two_write_one_reason() {
        assert_eq!(
            of("DisruptionTerminating", "Disrupting Node: Underutilized"),
            "kubernetes-sigs/karpenter pkg/controllers/disruption/queue.go Queue.waitOrTerminate"
        );
        assert!(of("FailedDraining", "Failed to drain node, evicting pod violates a PDB (Pod=a/b)")
            .ends_with("terminator/eviction.go Queue.Reconcile"));
        assert!(of("FailedDraining", "Failed to drain node, 2 pods are waiting to be evicted")
            .ends_with("termination/controller.go Controller.awaitDrain"));
        assert!(of("SpotInterrupted", "").starts_with("aws/karpenter-provider-aws "));
        assert!(of("SomethingNew", "").ends_with("pkg/events/recorder.go"));
    }
}
