//! The forecast's clock: the delays between Karpenter deciding a command and its nodes being
//! gone, each a stated default that a flag may replace.
//!
//! Upstream figures are constants of kubernetes-sigs/karpenter v1.14:
//! `pkg/controllers/disruption/controller.go` `pollingPeriod` (10 s between rounds that found
//! nothing; a round that started a command requeues at once, `singleton.RequeueImmediately`),
//! `pkg/controllers/disruption/consolidation.go` `commandValidationDelay` (15 s: Emptiness and
//! both consolidation methods wait that long and re-validate before the command starts; drift
//! does not wait). The launch delay, the pod startup and the termination grace are properties
//! of the cloud and the workloads, not of Karpenter: they are estimates.

use jiff::{SignedDuration, Timestamp};

use crate::engine::method::Method;

/// One delay and whether it is our default (the forecast says which figures are).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Figure {
    pub value: SignedDuration,
    pub default: bool,
}

impl Figure {
    pub(crate) const fn default_of(secs: i64) -> Figure {
        Figure { value: SignedDuration::from_secs(secs), default: true }
    }

    /// The flag's value when one was given, else the default.
    pub(crate) fn or_flag(self, flag: Option<SignedDuration>) -> Figure {
        flag.map_or(self, |value| Figure { value, default: false })
    }
}

/// Every delay the forecast uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Delays {
    /// Between rounds that found nothing to do (`pollingPeriod`).
    pub polling: Figure,
    /// Before an Emptiness or consolidation command starts (`commandValidationDelay`).
    pub validation: Figure,
    /// A replacement NodeClaim's launch, registration and initialization.
    pub launch: Figure,
    /// A pod's start → Ready when its workload's pods do not show it.
    pub pod_startup: Figure,
    /// A pod's termination grace when it does not set `terminationGracePeriodSeconds`
    /// (Kubernetes' default, 30 s).
    pub termination_grace: Figure,
}

impl Default for Delays {
    fn default() -> Self {
        Delays {
            polling: Figure::default_of(10),
            validation: Figure::default_of(15),
            launch: Figure::default_of(90),
            // The default of the global `--pod-startup` (`explain` and `plan` read it too).
            pod_startup: Figure::default_of(60),
            termination_grace: Figure::default_of(30),
        }
    }
}

impl Delays {
    /// How long a command of `method` waits before it starts.
    ///
    /// Mirrors karpenter `emptiness.go`, `singlenodeconsolidation.go` and
    /// `multinodeconsolidation.go` `ComputeCommands` (`Validate(ctx, cmd,
    /// commandValidationDelay)`); `drift.go` computes without validating.
    pub(crate) fn validation_of(&self, method: Method) -> SignedDuration {
        match method {
            Method::Emptiness | Method::MultiNode | Method::SingleNode => self.validation.value,
            Method::Drift | Method::StaticDrift => SignedDuration::ZERO,
        }
    }
}

/// When the next round runs: at once after a round that started commands (its validation wait
/// already passed inside the round), else one polling period later, but never before `earliest`
/// when something is due then (a node gone, a replacement ready, a window opening).
pub(crate) fn next_round(now: Timestamp, acted: bool, due: Option<Timestamp>, delays: &Delays) -> Option<Timestamp> {
    if acted {
        return Some(now);
    }
    let due = due?;
    // Rounds run on the polling grid: the first one at or after `due`.
    let step = delays.polling.value.as_secs().max(1);
    let behind = now.duration_until(due).as_secs().max(0);
    let periods = (behind + step - 1) / step;
    Some(now + SignedDuration::from_secs(periods.max(1) * step))
}

#[cfg(test)]
mod tests {
    use jiff::SignedDuration;

    use super::{next_round, Delays, Figure};
    use crate::engine::method::Method;

    #[test]
    fn validation_waits_for_consolidation_and_emptiness_only() {
        let d = Delays::default();
        assert_eq!(d.validation_of(Method::SingleNode), SignedDuration::from_secs(15));
        assert_eq!(d.validation_of(Method::Emptiness), SignedDuration::from_secs(15));
        assert_eq!(d.validation_of(Method::Drift), SignedDuration::ZERO);
    }

    #[test]
    fn a_flag_replaces_a_default_and_says_so() {
        let f = Figure::default_of(90).or_flag(Some(SignedDuration::from_secs(30)));
        assert_eq!(f, Figure { value: SignedDuration::from_secs(30), default: false });
        assert!(Figure::default_of(90).or_flag(None).default);
    }

    #[test]
    fn rounds_follow_the_polling_grid_after_nothing_acted() {
        let d = Delays::default();
        let t0 = crate::testing::now();
        assert_eq!(next_round(t0, true, None, &d), Some(t0));
        assert_eq!(next_round(t0, false, None, &d), None, "nothing due: settled");
        let due = t0 + SignedDuration::from_secs(95);
        assert_eq!(next_round(t0, false, Some(due), &d), Some(t0 + SignedDuration::from_secs(100)));
        assert_eq!(next_round(t0, false, Some(t0), &d), Some(t0 + SignedDuration::from_secs(10)));
    }
}
