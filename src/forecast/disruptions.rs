//! One ledger per PodDisruptionBudget across every drain in flight: when the eviction API would
//! let each pod of a draining node go.
//!
//! The eviction API admits an eviction only while the budget's `status.disruptionsAllowed` is
//! positive and takes one off at once (kubernetes `pkg/registry/core/pod/storage/eviction.go`
//! `checkAndDecrement`); the disruption controller recounts it as `currentHealthy −
//! desiredHealthy` (`pkg/controller/disruption/disruption.go` `updatePdbStatus`), so an evicted
//! pod's copy gives it back once Ready. A pod that is not Ready takes nothing: it goes while the
//! budget is met (`currentHealthy ≥ desiredHealthy`, with `desiredHealthy > 0`), or always under
//! `unhealthyPodEvictionPolicy: AlwaysAllow`. The termination controller retries a refused
//! eviction until it passes (karpenter `pkg/controllers/node/termination/terminator/eviction.go`).
//!
//! The ledger holds, per budget, the allowance at the forecast's start and every change the
//! forecast has planned since (−1 when a healthy pod leaves, +1 when its copy is Ready). Drains
//! are planned as their commands start; a pod is let through at the first moment the allowance
//! stays positive until its copy is Ready, so a plan never takes what an earlier plan counted on.

use jiff::Timestamp;

use crate::snapshot::PodDisruptionBudget;

/// The allowances of every budget, over time.
#[derive(Debug, Clone, Default)]
pub(crate) struct Ledger {
    budgets: Vec<Budget>,
}

#[derive(Debug, Clone, Default)]
struct Budget {
    /// `currentHealthy − desiredHealthy` at the start (`disruptionsAllowed` when the status's
    /// counts do not add up to it).
    start: i64,
    desired_healthy: i64,
    always_allow_unhealthy: bool,
    /// Changes to the allowance, in time order (equal times in the order planned).
    changes: Vec<(Timestamp, i64)>,
}

impl Budget {
    fn of(pdb: &PodDisruptionBudget) -> Budget {
        let s = &pdb.status;
        let margin = i64::from(s.current_healthy) - i64::from(s.desired_healthy);
        let consistent = margin.max(0) == i64::from(s.disruptions_allowed);
        Budget {
            start: if consistent { margin } else { i64::from(s.disruptions_allowed) },
            desired_healthy: i64::from(s.desired_healthy),
            always_allow_unhealthy: pdb.spec.unhealthy_pod_eviction_policy.as_deref() == Some("AlwaysAllow"),
            changes: Vec::new(),
        }
    }

    /// The allowance at `t`, every change at or before `t` counted.
    fn at(&self, t: Timestamp) -> i64 {
        self.start + self.changes.iter().take_while(|(at, _)| *at <= t).map(|(_, d)| d).sum::<i64>()
    }

    /// The least allowance over `[from, until)` (`None`: for good).
    fn least(&self, from: Timestamp, until: Option<Timestamp>) -> i64 {
        let mut least = self.at(from);
        let mut running = least;
        for (at, delta) in self.changes.iter().skip_while(|(at, _)| *at <= from) {
            if until.is_some_and(|u| *at >= u) {
                break;
            }
            running += delta;
            least = least.min(running);
        }
        least
    }

    fn add(&mut self, at: Timestamp, delta: i64) {
        let i = self.changes.partition_point(|(t, _)| *t <= at);
        self.changes.insert(i, (at, delta));
    }
}

/// One pod asking to be evicted.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Ask {
    /// It counts as healthy now (Ready), so its eviction takes one off.
    pub healthy: bool,
    /// How long its copy takes to be Ready once it is evicted; `None`: the copy has no place
    /// and never is.
    pub startup: Option<jiff::SignedDuration>,
}

impl Ledger {
    pub(crate) fn new(pdbs: &[PodDisruptionBudget]) -> Ledger {
        Ledger { budgets: pdbs.iter().map(Budget::of).collect() }
    }

    /// The first moment at or after `from` the eviction API lets a pod selected by budget
    /// `pdb` go; `None`: nothing planned so far ever lets it.
    pub(crate) fn earliest(&self, pdb: usize, from: Timestamp, ask: Ask) -> Option<Timestamp> {
        let budget = self.budgets.get(pdb)?;
        let lets_go = |t: Timestamp| {
            if ask.healthy {
                budget.least(t, ask.startup.map(|s| t + s)) >= 1
            } else {
                // Met (`currentHealthy ≥ desiredHealthy > 0`), or else one disruption to spare.
                let met = budget.desired_healthy > 0 && budget.at(t) >= 0;
                budget.always_allow_unhealthy || met || budget.at(t) >= 1
            }
        };
        // The allowance only rises when a change lands: those moments are the only other ones
        // worth trying.
        let later = budget.changes.iter().filter(|(at, d)| *at > from && *d > 0).map(|(at, _)| *at);
        std::iter::once(from).chain(later).find(|&t| lets_go(t))
    }

    /// Records that a pod selected by `pdbs` left at `at` (healthy: the allowance drops) and
    /// that its copy is Ready at `ready_at` (the allowance rises).
    pub(crate) fn record(&mut self, pdbs: &[usize], at: Timestamp, healthy: bool, ready_at: Option<Timestamp>) {
        for &b in pdbs {
            let Some(budget) = self.budgets.get_mut(b) else { continue };
            if healthy {
                budget.add(at, -1);
            }
            if let Some(ready) = ready_at {
                budget.add(ready, 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use jiff::SignedDuration;

    use super::{Ask, Ledger};
    use crate::snapshot::PodDisruptionBudget;
    use crate::testing::now;

    fn pdb(allowed: i32, healthy: i32, desired: i32) -> PodDisruptionBudget {
        let mut p = PodDisruptionBudget::default();
        p.status.disruptions_allowed = allowed;
        p.status.current_healthy = healthy;
        p.status.desired_healthy = desired;
        p
    }

    fn secs(s: i64) -> SignedDuration {
        SignedDuration::from_secs(s)
    }

    const READY_IN_60: Ask = Ask { healthy: true, startup: Some(SignedDuration::from_secs(60)) };

    #[test]
    fn one_allowed_lets_one_go_and_the_next_when_its_copy_is_ready() {
        let mut l = Ledger::new(&[pdb(1, 2, 1)]);
        let t0 = now();
        assert_eq!(l.earliest(0, t0, READY_IN_60), Some(t0));
        l.record(&[0], t0, true, Some(t0 + secs(60)));
        assert_eq!(l.earliest(0, t0, READY_IN_60), Some(t0 + secs(60)), "a second drain waits");
        assert_eq!(l.earliest(0, t0 + secs(70), READY_IN_60), Some(t0 + secs(70)));
    }

    #[test]
    fn zero_allowed_never_lets_a_healthy_pod_go_but_an_unhealthy_one_goes() {
        let l = Ledger::new(&[pdb(0, 2, 2)]);
        assert_eq!(l.earliest(0, now(), READY_IN_60), None);
        assert_eq!(l.earliest(0, now(), Ask { healthy: false, startup: Some(secs(60)) }), Some(now()));
    }

    #[test]
    fn a_plan_never_takes_what_an_earlier_plan_counted_on() {
        // Planned first: a pod leaves at 100, its copy Ready at 160.
        let mut l = Ledger::new(&[pdb(1, 3, 2)]);
        let t0 = now();
        l.record(&[0], t0 + secs(100), true, Some(t0 + secs(160)));
        // A pod asking at 0 whose copy is Ready at 60 fits before it; one Ready at 120 does not.
        assert_eq!(l.earliest(0, t0, READY_IN_60), Some(t0));
        let slow = Ask { healthy: true, startup: Some(secs(120)) };
        assert_eq!(l.earliest(0, t0, slow), Some(t0 + secs(160)));
        let never_ready = Ask { healthy: true, startup: None };
        assert_eq!(l.earliest(0, t0, never_ready), Some(t0 + secs(160)));
    }

    #[test]
    fn status_counts_that_do_not_add_up_fall_back_to_disruptions_allowed() {
        let l = Ledger::new(&[pdb(2, 0, 0)]);
        let mut l2 = l.clone();
        assert_eq!(l.earliest(0, now(), READY_IN_60), Some(now()));
        l2.record(&[0], now(), true, None);
        l2.record(&[0], now(), true, None);
        assert_eq!(l2.earliest(0, now(), READY_IN_60), None);
    }
}
