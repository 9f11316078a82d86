//! The end of a simulation: each NodeClaim finalized and its instance types truncated.
//!
//! Mirrors karpenter `nodeclaim.go` (`FinalizeScheduling`) and `scheduler.go`
//! (`Results.TruncateInstanceTypes`).

use super::super::results::{max_instance_types, truncate_instance_types, Destination};
use super::Simulation;

impl Simulation<'_, '_, '_> {
    /// `NodeClaim.FinalizeScheduling` on every claim, then `Results.TruncateInstanceTypes`: a
    /// claim whose cheapest 600 types break minValues (`Strict`) is dropped
    /// and its pods fail with upstream's error.
    pub(super) fn finalize(&mut self) {
        let best_effort = self.world.settings.min_values_best_effort;
        let max = max_instance_types(self.world.cluster.rules());
        let mut kept: Vec<Option<usize>> = Vec::with_capacity(self.claims.len());
        let mut new_claims = Vec::new();
        let mut dropped: Vec<Option<String>> = Vec::with_capacity(self.claims.len());
        for (i, claim) in self.claims.iter().enumerate() {
            let (requirements, requests) = claim.finalize();
            // The types are already cheapest first under the claim's labels; pinning to reservations
            // changes which offerings price them.
            let resort = !claim.reserved.is_empty();
            match truncate_instance_types(
                &claim.instance_types,
                &requirements,
                &claim.template.min_values,
                best_effort,
                resort,
                max,
            ) {
                Ok(types) => {
                    let mut out = std::mem::take(&mut self.results.new_claims[i]);
                    out.requirements = requirements;
                    out.requests = requests;
                    out.instance_types = types.iter().map(|it| it.name.clone()).collect();
                    out.pods = claim.pods.iter().map(|p| p.metadata.key()).collect();
                    out.min_values = if best_effort {
                        claim.template.min_values.relaxed_to(&types)
                    } else {
                        claim.template.min_values.clone()
                    };
                    kept.push(Some(new_claims.len()));
                    new_claims.push(out);
                    dropped.push(None);
                }
                Err(e) => {
                    kept.push(None);
                    let pool = &claim.template.pool.metadata.name;
                    dropped.push(Some(format!(
                        "pod didn't schedule because NodePool couldn't meet minValues requirements, {e}, NodePool={pool}"
                    )));
                }
            }
        }
        self.results.new_claims = new_claims;
        for m in &mut self.results.moves {
            if let Destination::New(i) = m.to {
                if let Some(j) = kept[i] {
                    m.to = Destination::New(j);
                } else {
                    m.to = Destination::Nowhere;
                    m.why = dropped[i].iter().cloned().collect();
                    m.rejections.clear();
                }
            }
        }
    }
}
