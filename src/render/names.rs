//! `-o name`: one `resource/name` line per object a command lists, as `kubectl get -o name`
//! prints them (`node/node-a`, `nodepool.karpenter.sh/default`, `poddisruptionbudget.policy/web`:
//! the resource, with its API group unless it is core, and the name without its namespace, so
//! each line can be handed back to `kubectl get`). kubectl: staging/src/k8s.io/cli-runtime/pkg/
//! printers/name.go (NamePrinter.PrintObj).
//!
//! Which objects, per command (README, "Output formats"):
//! - `plan`: every node of the table; `explain`: the node explained; `score`: the candidates;
//! - `budgets`: the NodePools; `forecast`: the nodes the forecast removes, in order;
//! - `pdb-audit`: the PDBs with findings, and for `NoPDB` the workload without one.
//!
//! `instance-types` and `doctor` list no Kubernetes objects: they refuse `-o name`.

use crate::report::Report;

/// The lines, or why the command has no objects to name.
pub(crate) fn names(report: &Report, escape: bool) -> Result<String, String> {
    let names: Vec<String> = match report {
        Report::Plan(p) => p.nodes.iter().map(|n| node(&n.name)).collect(),
        Report::Explain(e) => vec![node(&e.node.name)],
        Report::Score(s) => s.candidates.iter().map(|c| node(&c.node)).collect(),
        Report::Budgets(b) => b.node_pools.iter().map(|p| format!("nodepool.karpenter.sh/{}", p.node_pool)).collect(),
        Report::Forecast(f) => removed(f),
        Report::ForecastComparison(c) => removed(&c.with),
        Report::PdbAudit(a) => a
            .findings
            .iter()
            .filter_map(|f| match (&f.pdb, &f.workload) {
                (Some(pdb), _) => Some(format!("poddisruptionbudget.policy/{}", last_segment(pdb))),
                (None, Some(workload)) => Some(workload_name(workload)),
                (None, None) => None,
            })
            .collect(),
        Report::InstanceTypes(_) => {
            return Err("-o name: instance-types lists instance types, not Kubernetes objects; \
                        use -o jsonpath='{.instanceTypes[*].name}'"
                .to_owned())
        }
        Report::Diff(d) => d.nodes.iter().map(|n| node(&n.name)).collect(),
        Report::Doctor(_) => {
            return Err("-o name: doctor lists findings, not Kubernetes objects; use -o json".to_owned())
        }
    };
    let mut seen = std::collections::HashSet::new();
    let mut out = String::new();
    for name in names.into_iter().filter(|n| seen.insert(n.clone())) {
        if escape {
            out.push_str(&crate::terminal::escape_value(&name));
        } else {
            out.push_str(&name);
        }
        out.push('\n');
    }
    Ok(out)
}

fn node(name: &str) -> String {
    format!("node/{name}")
}

/// The nodes every round's commands take away, in the order the forecast removes them.
fn removed(forecast: &crate::report::forecast::ForecastDoc) -> Vec<String> {
    forecast.rounds.iter().flat_map(|r| &r.commands).flat_map(|c| &c.candidates).map(|n| node(n)).collect()
}

fn last_segment(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// `Deployment/ns/web` → `deployment.apps/web` (kubectl's resource and group for each kind a
/// finding names).
fn workload_name(workload: &str) -> String {
    let kind = workload.split('/').next().unwrap_or_default();
    let resource = match kind {
        "Deployment" => "deployment.apps",
        "StatefulSet" => "statefulset.apps",
        "ReplicaSet" => "replicaset.apps",
        "DaemonSet" => "daemonset.apps",
        "Job" => "job.batch",
        "CronJob" => "cronjob.batch",
        "ReplicationController" => "replicationcontroller",
        "Pod" => "pod",
        other => return format!("{}/{}", other.to_lowercase(), last_segment(workload)),
    };
    format!("{resource}/{}", last_segment(workload))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workloads_are_named_as_kubectl_names_them() {
        assert_eq!(workload_name("Deployment/tenant-a/app-b"), "deployment.apps/app-b");
        assert_eq!(workload_name("Pod/default/bare"), "pod/bare");
        assert_eq!(workload_name("Rollout/ns/canary"), "rollout/canary");
        assert_eq!(last_segment("ns/web"), "web");
    }
}
