//! What a new NodeClaim of a NodePool starts from: its requirements, taints, instance types
//! and the DaemonSet pods that would run on it.
//!
//! Mirrors karpenter `scheduling/nodeclaimtemplate.go` (`NewNodeClaimTemplate`), the template
//! filtering of `scheduler.go NewScheduler` and its `buildDaemonOverheadGroups`.

use std::collections::BTreeMap;

use super::instance_types::{instance_type_compatible, sort_by_cheapest};
use super::node_claim::is_well_known;
use super::pod_data::pod_requirements;
use super::requirements::{Requirement, Requirements};
use super::taints;
use super::world::World;
use crate::engine::labels::NODEPOOL;
use crate::engine::pod;
use crate::engine::state::Cluster;
use crate::snapshot::{is_true, InstanceType, NodePool, Pod, Resources, Taint};

/// A NodePool that can launch capacity, with what a new NodeClaim of it starts from.
#[derive(Debug, Clone)]
pub struct Template<'a> {
    pub pool: &'a NodePool,
    pub requirements: Requirements,
    pub taints: Vec<Taint>,
    /// Compatible instance types with an available offering, cheapest first.
    pub instance_types: Vec<&'a InstanceType>,
    pub daemon_overhead: Resources,
}

pub(super) fn templates<'a>(world: &World<'_, 'a>) -> Vec<Template<'a>> {
    let cluster = world.cluster;
    let mut pools: Vec<&'a NodePool> = cluster
        .pools
        .values()
        .copied()
        .filter(|p| p.spec.replicas.is_none() && pool_ready(p) && p.metadata.deletion_timestamp.is_none())
        .collect();
    pools.sort_by(|a, b| {
        b.spec.weight.unwrap_or(0).cmp(&a.spec.weight.unwrap_or(0)).then_with(|| b.metadata.name.cmp(&a.metadata.name))
    });
    pools
        .into_iter()
        .map(|pool| {
            let template = &pool.spec.template;
            let mut requirements = Requirements::from_karpenter(&template.spec.requirements);
            for (k, v) in &template.metadata.labels {
                requirements.add(k, &Requirement::in_values([v.clone()]));
            }
            requirements.add(NODEPOOL, &Requirement::in_values([pool.metadata.name.clone()]));
            let mut instance_types: Vec<&'a InstanceType> = pool_catalogue(cluster, pool)
                .into_iter()
                .filter(|it| instance_type_compatible(it, &requirements))
                .collect();
            sort_by_cheapest(&mut instance_types, &requirements);
            let daemon_overhead = daemon_overhead(cluster, &requirements, &template.spec.taints);
            Template { pool, requirements, taints: template.spec.taints.clone(), instance_types, daemon_overhead }
        })
        .collect()
}

/// The pool's instance types: its EC2NodeClass's variant of a type where the catalogue has
/// one (kubelet settings change pods and overhead), else the default figures. Mirrors the
/// provider's `GetInstanceTypes(nodePool)` resolving types per `nodeClassRef`.
fn pool_catalogue<'a>(cluster: &Cluster<'a>, pool: &NodePool) -> Vec<&'a InstanceType> {
    let class = pool
        .spec
        .template
        .spec
        .node_class_ref
        .as_ref()
        .and_then(|r| r.get("name"))
        .and_then(serde_json::Value::as_str)
        .map(str::to_owned);
    let variants: BTreeMap<&'a str, &'a InstanceType> = class
        .as_deref()
        .map(|c| {
            cluster
                .snapshot
                .instance_types
                .iter()
                .filter(|it| it.node_class.as_deref() == Some(c))
                .map(|it| (it.name.as_str(), it))
                .collect()
        })
        .unwrap_or_default();
    cluster.instance_types.values().map(|&it| variants.get(it.name.as_str()).copied().unwrap_or(it)).collect()
}

/// The instance types a NodePool's template admits (its requirements and labels, its
/// NodeClass's variant), cheapest first: what `instance-types nodepool/P` lists. `None` when
/// the snapshot has no such pool.
pub(crate) fn pool_instance_types<'a>(cluster: &Cluster<'a>, pool_name: &str) -> Option<Vec<&'a InstanceType>> {
    let pool = cluster.pools.get(pool_name).copied()?;
    let template = &pool.spec.template;
    let mut requirements = Requirements::from_karpenter(&template.spec.requirements);
    for (k, v) in &template.metadata.labels {
        requirements.add(k, &Requirement::in_values([v.clone()]));
    }
    let mut types: Vec<&'a InstanceType> =
        pool_catalogue(cluster, pool).into_iter().filter(|it| instance_type_compatible(it, &requirements)).collect();
    sort_by_cheapest(&mut types, &requirements);
    Some(types)
}

fn pool_ready(pool: &NodePool) -> bool {
    let conditions = &pool.status.conditions;
    let known = |t: &str| crate::snapshot::condition(conditions, t).is_none() || is_true(conditions, t);
    known("ValidationSucceeded") && known("NodeClassReady")
}

/// Requests of DaemonSet pods that would land on a node of this template.
fn daemon_overhead(cluster: &Cluster<'_>, labels: &Requirements, template_taints: &[Taint]) -> Resources {
    let mut out = Resources::new();
    for ds in &cluster.snapshot.daemon_sets {
        let spec = &ds.spec.template.spec;
        if taints::untolerated(&spec.tolerations, template_taints, true).is_some() {
            continue;
        }
        let fake = Pod { spec: spec.clone(), ..Pod::default() };
        let fits = pod_requirements(&fake, false).iter().any(|r| labels.compatible(r, &is_well_known).is_ok());
        if fits {
            pod::add(&mut out, &pod::requests(&fake));
        }
    }
    out
}
