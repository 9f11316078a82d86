//! What-if overrides (`--set`), applied to the snapshot before the replay. Pure.
//!
//! `consolidationPolicy=Balanced`, `consolidateAfter=5m`, `budgets=20%` apply to every NodePool,
//! or to one with a `nodepool/NAME.` prefix; `pod-deletion-cost=ns/pod=N` sets one pod's
//! `controller.kubernetes.io/pod-deletion-cost`.

use crate::snapshot::{Budget, Disruption, NodePool, Snapshot};

/// Applies every override; returns a description of each, for the report.
pub(crate) fn apply(snapshot: &mut Snapshot, overrides: &[String]) -> Result<Vec<String>, String> {
    overrides.iter().map(|o| apply_one(snapshot, o)).collect()
}

fn apply_one(snapshot: &mut Snapshot, text: &str) -> Result<String, String> {
    let (key, value) = text.split_once('=').ok_or_else(|| format!("`{text}`: expected KEY=VALUE"))?;
    if key == "pod-deletion-cost" {
        let (pod, cost) =
            value.rsplit_once('=').ok_or_else(|| format!("`{text}`: expected pod-deletion-cost=NS/POD=N"))?;
        cost.parse::<f64>().map_err(|_| format!("`{text}`: `{cost}` is not a number"))?;
        let target = snapshot
            .pods
            .iter_mut()
            .find(|p| p.metadata.key() == pod || (pod.split_once('/').is_none() && p.metadata.name == pod))
            .ok_or_else(|| format!("`{text}`: no pod `{pod}` in the snapshot"))?;
        target.metadata.annotations.insert("controller.kubernetes.io/pod-deletion-cost".into(), cost.into());
        return Ok(format!("pod {pod}: pod-deletion-cost={cost}"));
    }
    let (pool, field) = match key.split_once('.') {
        Some((prefix, field)) => {
            let name = prefix.split_once('/').map_or(prefix, |(_, n)| n);
            (Some(name.to_owned()), field)
        }
        None => (None, key),
    };
    let pools: Vec<&mut NodePool> =
        snapshot.node_pools.iter_mut().filter(|p| pool.as_deref().is_none_or(|n| n == p.metadata.name)).collect();
    if pools.is_empty() {
        return Err(format!("`{text}`: no NodePool {}", pool.unwrap_or_default()));
    }
    let mut names = Vec::new();
    for p in pools {
        let disruption = p.spec.disruption.get_or_insert_with(Disruption::default);
        match field {
            "consolidationPolicy" => {
                if !matches!(value, "WhenEmpty" | "WhenEmptyOrUnderutilized" | "Balanced") {
                    return Err(format!("`{text}`: policy must be WhenEmpty, WhenEmptyOrUnderutilized or Balanced"));
                }
                disruption.consolidation_policy = Some(value.to_owned());
            }
            "consolidateAfter" => {
                if value != "Never" && value.parse::<jiff::SignedDuration>().is_err() {
                    return Err(format!("`{text}`: expected a duration like 30s or 5m, or Never"));
                }
                disruption.consolidate_after = Some(value.to_owned());
            }
            "budgets" => {
                disruption.budgets = Some(vec![Budget { nodes: value.to_owned(), ..Budget::default() }]);
            }
            other => {
                return Err(format!(
                "`{text}`: unknown key `{other}` (consolidationPolicy, consolidateAfter, budgets, pod-deletion-cost)"
            ))
            }
        }
        names.push(p.metadata.name.clone());
    }
    Ok(format!("nodepool {}: {field}={value}", names.join(",")))
}

#[cfg(test)]
mod tests {
    use super::apply;
    use crate::snapshot::{NodePool, Pod, Snapshot};

    fn snapshot() -> Snapshot {
        let mut s = Snapshot::default();
        for name in ["a", "b"] {
            let mut p = NodePool::default();
            p.metadata.name = name.into();
            s.node_pools.push(p);
        }
        let mut pod = Pod::default();
        pod.metadata.name = "web".into();
        pod.metadata.namespace = Some("ns".into());
        s.pods.push(pod);
        s
    }

    #[test]
    fn sets_policy_everywhere_or_on_one_pool() {
        let mut s = snapshot();
        apply(&mut s, &["nodepool/b.consolidateAfter=5m".into(), "consolidationPolicy=Balanced".into()]).unwrap();
        let d = |i: usize| s.node_pools[i].spec.disruption.clone().unwrap();
        assert_eq!(d(0).consolidation_policy.as_deref(), Some("Balanced"));
        assert_eq!(d(0).consolidate_after, None);
        assert_eq!(d(1).consolidate_after.as_deref(), Some("5m"));
    }

    #[test]
    fn sets_pod_deletion_cost_and_rejects_nonsense() {
        let mut s = snapshot();
        apply(&mut s, &["pod-deletion-cost=ns/web=1000".into()]).unwrap();
        assert_eq!(s.pods[0].metadata.annotations["controller.kubernetes.io/pod-deletion-cost"], "1000");
        assert!(apply(&mut s, &["consolidationPolicy=Sometimes".into()]).is_err());
        assert!(apply(&mut s, &["colour=blue".into()]).is_err());
        assert!(apply(&mut s, &["pod-deletion-cost=ns/none=1".into()]).is_err());
    }
}
