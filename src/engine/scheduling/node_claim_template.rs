//! What a new NodeClaim of a NodePool starts from: its requirements, taints, instance types
//! and the DaemonSet pods that would run on it.
//!
//! Mirrors karpenter `scheduling/nodeclaimtemplate.go` (`NewNodeClaimTemplate`), the template
//! filtering of `scheduler.go NewScheduler` and its `buildDaemonOverheadGroups`.

use std::collections::BTreeMap;

use foldhash::HashMap;

use super::host_port_usage::{host_ports, HostPort};
use super::instance_types::{instance_type_compatible, instance_type_intersects, sort_by_cheapest};
use super::pod_data::{has_dra_requirements, pod_requirements, strict_alternatives};
use super::preferences::prefer_no_schedule_toleration;
use super::requirements::{Requirement, Requirements};
use super::taints;
use crate::engine::labels::{is_well_known, INITIALIZED, NODEPOOL, REGISTERED};
use crate::engine::min_values::MinValues;
use crate::engine::pod;
use crate::engine::state::Cluster;
use crate::rules::Rule;
use crate::snapshot::{is_true, InstanceType, NodePool, Pod, Resources, Taint};

/// A NodePool that can launch capacity, with what a new NodeClaim of it starts from.
#[derive(Debug, Clone)]
pub struct Template<'a> {
    pub pool: &'a NodePool,
    pub requirements: Requirements,
    pub taints: Vec<Taint>,
    /// Compatible instance types with an available offering, cheapest first.
    pub instance_types: Vec<&'a InstanceType>,
    /// The instance types grouped by the DaemonSet pods that would run on them.
    pub daemon_groups: Vec<DaemonGroup>,
    /// Instance type name → its group in `daemon_groups`.
    group_of: HashMap<String, usize>,
    /// The template's minValues (`NodeClaim.CanAdd` checks them on every add).
    pub(crate) min_values: MinValues,
}

/// Instance types of one template on which the same DaemonSet pods would run, with their
/// requests and host ports (`DaemonOverheadGroup`).
#[derive(Debug, Clone, Default)]
pub struct DaemonGroup {
    pub overhead: Resources,
    pub host_ports: Vec<HostPort>,
}

impl Template<'_> {
    /// The DaemonSet group of one of the template's instance types.
    pub(in crate::engine) fn group_of(&self, it: &InstanceType) -> Option<usize> {
        self.group_of.get(&it.name).copied()
    }

    /// The per-resource minimum of the overhead of the groups `types` still span, as
    /// `NodeClaim.addDaemonRequests` adds it; `None` when no DaemonSet runs there.
    pub(in crate::engine) fn min_daemon_overhead(&self, types: &[&InstanceType]) -> Option<Resources> {
        let mut spanned: Vec<usize> = types.iter().filter_map(|it| self.group_of(it)).collect();
        spanned.sort_unstable();
        spanned.dedup();
        let mut out: Option<Resources> = None;
        for g in spanned {
            let overhead = &self.daemon_groups[g].overhead;
            out = Some(match out {
                None => overhead.clone(),
                Some(min) => min_resources(&min, overhead),
            });
        }
        out.filter(|r| !r.is_empty())
    }
}

/// `resources.MinResources`: per resource the smaller quantity, a resource missing on one side
/// counting as zero.
fn min_resources(a: &Resources, b: &Resources) -> Resources {
    a.keys()
        .chain(b.keys())
        .map(|k| {
            let (x, y) = (a.get(k).copied().unwrap_or_default(), b.get(k).copied().unwrap_or_default());
            (k.clone(), x.min(y))
        })
        .collect()
}

/// The NodePools' templates, heaviest first, from the cluster and the DaemonSet pods the
/// shared world keeps (`daemon_pods`).
pub(in crate::engine) fn templates<'a>(cluster: &Cluster<'a>, daemon_pods: &[Pod]) -> Vec<Template<'a>> {
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
            // `NewNodeClaimTemplate` (#2161, v1.14.0): a new node will be registered and
            // initialized, so pods (DaemonSets included) selecting on those labels count on it.
            if cluster.rules().has(Rule::TemplateRegisteredInitialized) {
                requirements.add(REGISTERED, &Requirement::in_values(["true".to_owned()]));
                requirements.add(INITIALIZED, &Requirement::in_values(["true".to_owned()]));
            }
            let mut instance_types: Vec<&'a InstanceType> = pool_catalogue(cluster, pool)
                .into_iter()
                .filter(|it| instance_type_compatible(it, &requirements))
                .collect();
            sort_by_cheapest(&mut instance_types, &requirements);
            let (daemon_groups, group_of) =
                daemon_overhead_groups(cluster, daemon_pods, &requirements, &template.spec.taints, &instance_types);
            Template {
                pool,
                requirements,
                taints: template.spec.taints.clone(),
                instance_types,
                daemon_groups,
                group_of,
                min_values: MinValues::of_pool(Some(pool)),
            }
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

/// Whether the scheduler uses the pool: only its `Ready` condition counts, and a pool without
/// one is not ready (`NewScheduler` asks `StatusConditions().IsTrue(Ready)`).
pub(in crate::engine) fn pool_ready(pool: &NodePool) -> bool {
    is_true(&pool.status.conditions, "Ready")
}

/// The pods the DaemonSets would run (their templates), less those asking for DRA devices
/// while `IGNORE_DRA_REQUESTS` is on (`scheduler.go shouldSkipDaemonPod`).
pub(in crate::engine) fn daemon_pods(cluster: &Cluster<'_>, ignore_dra: bool) -> Vec<Pod> {
    cluster
        .snapshot
        .daemon_sets
        .iter()
        .map(|ds| Pod { spec: ds.spec.template.spec.clone(), ..Pod::default() })
        .filter(|p| !(ignore_dra && has_dra_requirements(p, cluster.rules())))
        .collect()
}

/// The template's instance types grouped by the DaemonSet pods that would run on them: a pod
/// counts on a type when it tolerates the template's taints (`PreferNoSchedule` ones aside)
/// and one of its required node-affinity terms fits both the template and the type.
///
/// Before v1.14.0 (#2975) the instance type is not asked: every type of the template gets the
/// overhead of every DaemonSet the template admits (v1.13.0 `scheduler.go:873`
/// `getDaemonOverhead`), one group.
///
/// Mirrors karpenter `scheduler.go` `buildDaemonOverheadGroups` and `isDaemonPodCompatible`.
fn daemon_overhead_groups(
    cluster: &Cluster<'_>,
    daemons: &[Pod],
    labels: &Requirements,
    template_taints: &[Taint],
    types: &[&InstanceType],
) -> (Vec<DaemonGroup>, HashMap<String, usize>) {
    let sizing = pod::Sizing::of(cluster.rules());
    let per_type = cluster.rules().has(Rule::DaemonOverheadPerInstanceType);
    // Before #2102 (v1.4.0) a new NodeClaim's host-port usage starts empty.
    let daemon_ports = cluster.rules().has(Rule::DaemonHostPortsOnNewClaims);
    // Per DaemonSet: its required terms the template admits (none if it does not tolerate it).
    // From #1727 (v1.1.1) `isDaemonPodCompatible`: PreferNoSchedule taints tolerated, the strict
    // requirements (no preference) of each required term in turn. Before, v1.1.0
    // `getDaemonOverhead`: the pod's own tolerations, and its `NewPodRequirements` (heaviest
    // preferred and first required term) alone.
    let strict_terms = cluster.rules().has(Rule::DaemonOverheadStrictTerms);
    let admitted: Vec<Vec<Requirements>> = daemons
        .iter()
        .map(|p| {
            let mut tolerations = p.spec.tolerations.clone();
            if strict_terms {
                tolerations.push(prefer_no_schedule_toleration());
            }
            if taints::untolerated(&tolerations, template_taints).is_some() {
                return Vec::new();
            }
            let alternatives = if strict_terms { strict_alternatives(p) } else { pod_requirements(p) };
            alternatives.into_iter().filter(|r| labels.compatible(r, &is_well_known).is_ok()).collect()
        })
        .collect();
    let mut groups: Vec<DaemonGroup> = Vec::new();
    let mut by_members: HashMap<Vec<usize>, usize> = HashMap::default();
    let mut group_of = HashMap::default();
    for it in types {
        let members: Vec<usize> = (0..daemons.len())
            .filter(|&d| admitted[d].iter().any(|r| !per_type || instance_type_intersects(it, r)))
            .collect();
        let g = *by_members.entry(members).or_insert_with_key(|members| {
            let mut group = DaemonGroup::default();
            for &d in members {
                pod::add(&mut group.overhead, &pod::requests(&daemons[d], sizing));
                if daemon_ports {
                    group.host_ports.extend(host_ports(&daemons[d]));
                }
            }
            groups.push(group);
            groups.len() - 1
        });
        group_of.insert(it.name.clone(), g);
    }
    (groups, group_of)
}
