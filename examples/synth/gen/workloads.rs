//! Workloads before placement: which nodes each may use, its size, replicas, and the pod
//! template with its scheduling constraints and annotations.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::{
    Affinity, NodeAffinity, NodeSelector, NodeSelectorTerm, PodAffinityTerm, PodAntiAffinity, PreferredSchedulingTerm,
    TopologySpreadConstraint, WeightedPodAffinityTerm,
};
use kubectl_consolidation::quantity::Quantity;
use kubectl_consolidation::snapshot::{Container, ContainerPort, ContainerResources, PodSpec, Resources};

use super::cluster::{NodePlan, PoolPlan};
use super::{
    app_selector, default_tolerations, k8s_requirement, resources, toleration, Rng, APPS, ARCH, CAPACITY_TYPE,
    DO_NOT_DISRUPT, HOSTNAME, MIB, NODEPOOL, ROLES, ZONE,
};

/// Which nodes a workload's pods may land on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Class {
    General,
    Arm,
    OnDemand,
    Dedicated(usize),
}

/// Whether a workload's pods avoid sharing a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Spread {
    Free,
    /// Preferred anti-affinity or a `ScheduleAnyway` hostname spread.
    Soft,
    /// Required anti-affinity or a `DoNotSchedule` hostname spread.
    Hard,
}

impl Spread {
    pub(super) fn max_with(self, other: Spread) -> Spread {
        if self == Spread::Hard || other == Spread::Hard {
            Spread::Hard
        } else if self == Spread::Soft || other == Spread::Soft {
            Spread::Soft
        } else {
            Spread::Free
        }
    }
}

/// A workload before its pods are placed.
pub(super) struct WorkloadPlan {
    pub(super) namespace: String,
    pub(super) name: String,
    pub(super) stateful: bool,
    pub(super) replicas: usize,
    pub(super) class: Class,
    pub(super) cpu: i128,
    pub(super) memory: i128,
    /// How strictly its pods keep to one per node.
    pub(super) spread: Spread,
    pub(super) spec: PodSpec,
    pub(super) annotations: BTreeMap<String, String>,
    pub(super) hash: String,
    pub(super) uid: String,
    pub(super) rs_uid: String,
}

/// Node indices per class and zone.
pub(super) struct Groups {
    pub(super) by_class: BTreeMap<Class, [Vec<usize>; 3]>,
}

impl Groups {
    pub(super) fn new(nodes: &[NodePlan], pools: &[PoolPlan]) -> Groups {
        let mut by_class: BTreeMap<Class, [Vec<usize>; 3]> = BTreeMap::new();
        for (i, n) in nodes.iter().enumerate() {
            let mut classes = Vec::new();
            match n.pool {
                Some(p) if pools[p].taint.is_some() => classes.push(Class::Dedicated(p)),
                Some(p) => {
                    classes.push(Class::General);
                    if pools[p].arm {
                        classes.push(Class::Arm);
                    }
                    if !n.spot {
                        classes.push(Class::OnDemand);
                    }
                }
                None => classes.extend([Class::General, Class::OnDemand]),
            }
            for c in classes {
                by_class.entry(c).or_default()[n.zone].push(i);
            }
        }
        Groups { by_class }
    }

    /// Target cpu and memory of the nodes of a class, and how many nodes it has.
    pub(super) fn budget(&self, class: Class, nodes: &[NodePlan]) -> (f64, f64, usize) {
        self.by_class.get(&class).map_or((0.0, 0.0, 0), |zones| {
            let members = || zones.iter().flatten().map(|&i| &nodes[i]);
            (
                members().map(|n| n.cpu_free as f64).sum(),
                members().map(|n| n.memory_free as f64).sum(),
                members().count(),
            )
        })
    }
}

pub(super) fn workload_plans(
    app_pods: usize,
    nodes: &[NodePlan],
    pools: &[PoolPlan],
    groups: &Groups,
    stateful_pct: f64,
    rng: &mut Rng,
) -> Vec<WorkloadPlan> {
    let total_cpu: f64 = nodes.iter().map(|n| n.cpu_free as f64).sum();
    let total_memory: f64 = nodes.iter().map(|n| n.memory_free as f64).sum();
    // Constrained classes get pods in proportion to their nodes' targets (Arm and OnDemand
    // overlap General, so only half of theirs); what a class cannot take goes to General.
    let mut classes: Vec<Class> =
        (0..pools.len()).filter(|&i| pools[i].taint.is_some()).map(Class::Dedicated).collect();
    classes.extend([Class::Arm, Class::OnDemand, Class::General]);
    let mut budgets: BTreeMap<Class, (f64, f64, usize)> =
        classes.iter().map(|&c| (c, groups.budget(c, nodes))).collect();
    for c in [Class::Arm, Class::OnDemand] {
        if let Some(b) = budgets.get_mut(&c) {
            b.0 = (b.0 * 0.5).min(total_cpu * 0.08);
            b.1 *= 0.5;
        }
    }
    let weights: Vec<f64> =
        classes.iter().map(|c| if *c == Class::General { 0.0 } else { budgets[c].0 / total_cpu.max(1.0) }).collect();
    let general = (1.0 - weights.iter().sum::<f64>()).max(0.05);
    let weights: Vec<f64> =
        weights.iter().zip(&classes).map(|(w, c)| if *c == Class::General { general } else { *w }).collect();
    // Request menus (millicores, MiB per core), scaled so the pods fill the targets.
    let cpu_menu: [f64; 11] = [50.0, 100.0, 100.0, 150.0, 200.0, 250.0, 250.0, 500.0, 500.0, 1000.0, 2000.0];
    let ratio_menu: [f64; 7] = [1.0, 2.0, 2.0, 3.0, 4.0, 4.0, 6.0];
    let menu_cpu = cpu_menu.iter().sum::<f64>() / cpu_menu.len() as f64;
    let menu_ratio = ratio_menu.iter().sum::<f64>() / ratio_menu.len() as f64;
    let per_pod_cpu = total_cpu / app_pods.max(1) as f64 * 0.93;
    let cpu_scale = per_pod_cpu / menu_cpu;
    let per_pod_memory = total_memory / app_pods.max(1) as f64 * 0.75;
    let memory_scale = per_pod_memory / (MIB as f64 * per_pod_cpu * menu_ratio);
    let namespaces = (app_pods / 650).max(8);
    let mut out = Vec::new();
    let mut left = app_pods;
    while left > 0 {
        let index = out.len();
        let replicas = match rng.below(100) {
            0..=14 => 1,
            15..=34 => 2,
            35..=59 => 3,
            60..=84 => 4 + rng.below(7),
            85..=96 => 11 + rng.below(40),
            _ => 51 + rng.below(150),
        }
        .min(left);
        left -= replicas;
        let stateful = rng.chance(stateful_pct / 100.0) && replicas <= 5;
        let name = format!("{}-{}-{index}", rng.pick(&APPS), rng.pick(&ROLES));
        let cpu = ((rng.pick(&cpu_menu) * cpu_scale / 10.0).round() as i128 * 10).max(10);
        let memory_mib = ((cpu as f64 * rng.pick(&ratio_menu) * memory_scale) as i128).max(16);
        let (want_cpu, want_memory) = (cpu as f64 * replicas as f64, (memory_mib * MIB) as f64 * replicas as f64);
        let mut class = classes[rng.weighted(&weights)];
        let budget = budgets.get_mut(&class).filter(|b| b.0 >= want_cpu * 1.2 && b.1 >= want_memory * 1.2);
        match budget {
            Some(b) if class != Class::General => {
                b.0 -= want_cpu;
                b.1 -= want_memory;
            }
            _ => class = Class::General,
        }
        let class_nodes = budgets.get(&class).map_or(0, |b| b.2);
        let (spec, spread, annotations) =
            pod_spec(rng, Shape { app: &name, replicas, class, class_nodes, cpu, memory: memory_mib * MIB }, pools);
        out.push(WorkloadPlan {
            namespace: format!("ns-{:03}", rng.below(namespaces)),
            hash: rng.safe(10),
            uid: rng.uid(),
            rs_uid: rng.uid(),
            name,
            stateful,
            replicas,
            class,
            cpu,
            memory: memory_mib * MIB,
            spread,
            spec,
            annotations,
        });
    }
    out
}

/// What a workload's pod template is built from.
#[derive(Debug, Clone, Copy)]
struct Shape<'s> {
    app: &'s str,
    replicas: usize,
    class: Class,
    /// Nodes the class may use: hard one-per-node rules only where they fit easily.
    class_nodes: usize,
    cpu: i128,
    memory: i128,
}

/// The pod template of a workload: requests, scheduling constraints and annotations.
fn pod_spec(rng: &mut Rng, shape: Shape<'_>, pools: &[PoolPlan]) -> (PodSpec, Spread, BTreeMap<String, String>) {
    let Shape { app, replicas, class, class_nodes, cpu, memory } = shape;
    let mut spec = PodSpec { tolerations: default_tolerations(), priority: Some(0), ..PodSpec::default() };
    let sidecar = rng.chance(0.1) && cpu >= 40;
    let main_cpu = if sidecar { cpu - cpu / 10 } else { cpu };
    let main_memory = if sidecar { memory - memory / 8 } else { memory };
    spec.containers.push(Container {
        name: "app".into(),
        resources: ContainerResources {
            requests: resources(main_cpu, main_memory).into(),
            limits: Resources::from([("memory".to_owned(), Quantity::from_units(main_memory * 3 / 2))]).into(),
            ..ContainerResources::default()
        },
        ports: vec![ContainerPort { container_port: 8080, protocol: Some("TCP".into()), ..ContainerPort::default() }],
        ..Container::default()
    });
    if sidecar {
        spec.containers.push(Container {
            name: "istio-proxy".into(),
            resources: ContainerResources {
                requests: resources(cpu / 10, memory / 8).into(),
                limits: Resources::from([("memory".to_owned(), Quantity::from_units(memory / 4))]).into(),
                ..ContainerResources::default()
            },
            ..Container::default()
        });
    }
    if rng.chance(0.05) {
        spec.init_containers.push(Container {
            name: "migrate".into(),
            resources: ContainerResources {
                requests: resources(cpu / 2, memory / 2).into(),
                ..ContainerResources::default()
            },
            ..Container::default()
        });
    }
    match class {
        Class::General => {}
        Class::Arm => {
            spec.node_selector.insert(ARCH.into(), "arm64".into());
        }
        Class::OnDemand => {
            spec.affinity.get_or_insert_with(Affinity::default).node_affinity = Some(NodeAffinity {
                required_during_scheduling_ignored_during_execution: Some(NodeSelector {
                    node_selector_terms: vec![NodeSelectorTerm {
                        match_expressions: Some(vec![k8s_requirement(CAPACITY_TYPE, &["on-demand"])]),
                        match_fields: None,
                    }],
                }),
                preferred_during_scheduling_ignored_during_execution: None,
            });
        }
        Class::Dedicated(p) => {
            spec.node_selector.insert(NODEPOOL.into(), pools[p].name.clone());
            spec.tolerations.push(toleration("dedicated", "Equal", Some(&pools[p].name), "NoSchedule", None));
        }
    }
    if class == Class::General && rng.chance(0.1) {
        spec.affinity.get_or_insert_with(Affinity::default).node_affinity = Some(NodeAffinity {
            preferred_during_scheduling_ignored_during_execution: Some(vec![PreferredSchedulingTerm {
                weight: 50,
                preference: NodeSelectorTerm {
                    match_expressions: Some(vec![k8s_requirement(CAPACITY_TYPE, &["spot"])]),
                    match_fields: None,
                },
            }]),
            required_during_scheduling_ignored_during_execution: None,
        });
    }
    let mut spread = Spread::Free;
    // Hard rules only where the class has room for them (as a running cluster would).
    let hard_ok = replicas * 3 <= class_nodes;
    if replicas >= 2 {
        if rng.chance(0.4) {
            spec.topology_spread_constraints.push(TopologySpreadConstraint {
                max_skew: 1,
                topology_key: ZONE.into(),
                when_unsatisfiable: if rng.chance(0.7) { "DoNotSchedule" } else { "ScheduleAnyway" }.into(),
                label_selector: Some(app_selector(app)),
                match_label_keys: rng.chance(0.2).then(|| vec!["pod-template-hash".to_owned()]),
                ..TopologySpreadConstraint::default()
            });
        }
        if rng.chance(0.15) {
            let hard = hard_ok && rng.chance(0.3);
            spread = if hard { Spread::Hard } else { Spread::Soft };
            spec.topology_spread_constraints.push(TopologySpreadConstraint {
                max_skew: 1,
                topology_key: HOSTNAME.into(),
                when_unsatisfiable: if hard { "DoNotSchedule" } else { "ScheduleAnyway" }.into(),
                label_selector: Some(app_selector(app)),
                ..TopologySpreadConstraint::default()
            });
        }
        let term = PodAffinityTerm {
            label_selector: Some(app_selector(app)),
            topology_key: HOSTNAME.into(),
            ..PodAffinityTerm::default()
        };
        if hard_ok && replicas <= 20 && rng.chance(0.08) {
            spread = Spread::Hard;
            spec.affinity.get_or_insert_with(Affinity::default).pod_anti_affinity = Some(PodAntiAffinity {
                required_during_scheduling_ignored_during_execution: Some(vec![term]),
                preferred_during_scheduling_ignored_during_execution: None,
            });
        } else if rng.chance(0.2) {
            spread = spread.max_with(Spread::Soft);
            spec.affinity.get_or_insert_with(Affinity::default).pod_anti_affinity = Some(PodAntiAffinity {
                preferred_during_scheduling_ignored_during_execution: Some(vec![WeightedPodAffinityTerm {
                    weight: 100,
                    pod_affinity_term: term,
                }]),
                required_during_scheduling_ignored_during_execution: None,
            });
        }
    }
    if rng.chance(0.03) {
        spec.priority = Some(100_000);
        spec.priority_class_name = Some("high-priority".into());
    }
    let mut annotations = BTreeMap::new();
    let x = rng.unit();
    if x < 0.01 {
        annotations.insert(DO_NOT_DISRUPT.to_owned(), "true".to_owned());
    } else if x < 0.015 {
        annotations.insert(DO_NOT_DISRUPT.to_owned(), "30m".to_owned());
    }
    if rng.chance(0.05) {
        annotations.insert(
            "controller.kubernetes.io/pod-deletion-cost".to_owned(),
            (rng.below(1100) as i64 - 100).to_string(),
        );
    }
    (spec, spread, annotations)
}
