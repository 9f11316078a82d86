//! The infrastructure half: the instance-type catalogue, NodePools, Nodes paired with
//! NodeClaims, DaemonSets and Karpenter's Events.

use std::collections::BTreeMap;

use jiff::Timestamp;
use kubectl_consolidation::quantity::Quantity;
use kubectl_consolidation::snapshot::{
    Budget, Container, ContainerPort, ContainerResources, Disruption, Event, InstanceType, InvolvedObject, Node,
    NodeClaim, NodeClaimSpec, NodeClaimStatus, NodeClaimTemplate, NodeClaimTemplateSpec, NodePool, NodePoolSpec,
    NodePoolStatus, NodeSpec, NodeStatus, ObjectMeta, Offering, OwnerReference, PodSpec, Resources, Snapshot, Taint,
    TemplateMetadata,
};

use super::{
    ago, condition, labels, owner, requirement, resources, safe_code, toleration, Params, Rng, APPS, ARCH,
    CAPACITY_TYPE, CPU_OVERHEAD, DO_NOT_DISRUPT, FAMILIES, FAMILY, FLAVOURS, GIB, HOSTNAME, MAX_PODS, MIB, NODEPOOL,
    SIZES, VCPUS, ZONE, ZONES, ZONE_IDS,
};

pub(super) fn instance_type_name(family: usize, size: usize) -> String {
    format!("{}.{}", FAMILIES[family].name, SIZES[size])
}

pub(super) fn catalogue(rng: &mut Rng) -> Vec<InstanceType> {
    let mut out = Vec::new();
    for (f, family) in FAMILIES.iter().enumerate() {
        for size in 0..SIZES.len() {
            let capacity = Resources::from([
                ("cpu".to_owned(), Quantity::from_units(VCPUS[size])),
                ("memory".to_owned(), Quantity::from_units(family.memory_gib[size] * GIB)),
                ("pods".to_owned(), Quantity::from_units(MAX_PODS[size])),
                ("ephemeral-storage".to_owned(), Quantity::from_units(20 * GIB)),
            ]);
            let overhead = Resources::from([
                ("cpu".to_owned(), Quantity::from_milli(CPU_OVERHEAD[size])),
                (
                    "memory".to_owned(),
                    Quantity::from_units((family.memory_gib[size] * 1024 - family.allocatable_memory_mib[size]) * MIB),
                ),
                ("ephemeral-storage".to_owned(), Quantity::from_units(2 * GIB)),
            ]);
            let category = &family.name[..1];
            let generation = &family.name[1..2];
            let cpu = VCPUS[size].to_string();
            let memory = (family.memory_gib[size] * 1024).to_string();
            let type_labels = labels([
                (FAMILY, family.name),
                ("karpenter.k8s.aws/instance-size", SIZES[size]),
                ("karpenter.k8s.aws/instance-category", category),
                ("karpenter.k8s.aws/instance-generation", generation),
                ("karpenter.k8s.aws/instance-cpu", cpu.as_str()),
                ("karpenter.k8s.aws/instance-memory", memory.as_str()),
                (ARCH, family.arch),
                ("kubernetes.io/os", "linux"),
            ]);
            let mut offerings = Vec::new();
            for zone in ZONES {
                let price = family.on_demand[size];
                offerings.push(Offering {
                    zone: zone.to_owned(),
                    capacity_type: "on-demand".to_owned(),
                    price: Some(price),
                    available: true,
                    reservation_id: None,
                    source: None,
                });
                let spot = (price * rng.range(0.28, 0.45) * 10_000.0).round() / 10_000.0;
                offerings.push(Offering {
                    zone: zone.to_owned(),
                    capacity_type: "spot".to_owned(),
                    price: Some(spot),
                    available: rng.below(23) != 0,
                    reservation_id: None,
                    source: None,
                });
            }
            out.push(InstanceType {
                name: instance_type_name(f, size),
                capacity,
                overhead,
                labels: type_labels,
                offerings,
                ..InstanceType::default()
            });
        }
    }
    out
}

/// What the generator remembers about one NodePool.
pub(super) struct PoolPlan {
    pub(super) name: String,
    pub(super) families: Vec<usize>,
    pub(super) capacity_types: &'static [&'static str],
    pub(super) policy: &'static str,
    pub(super) taint: Option<Taint>,
    pub(super) template_labels: BTreeMap<String, String>,
    pub(super) termination_grace_period: Option<String>,
    pub(super) consolidate_after_secs: i64,
    pub(super) arm: bool,
    pub(super) weight: f64,
}

pub(super) fn pool_plans(count: usize) -> Vec<PoolPlan> {
    (0..count)
        .map(|i| {
            let (flavour, families) = FLAVOURS[i % FLAVOURS.len()];
            let name = format!("{flavour}-{i:02}");
            let families: Vec<usize> =
                families.iter().map(|f| FAMILIES.iter().position(|x| x.name == *f).unwrap_or(0)).collect();
            let capacity_types: &'static [&'static str] = match i % 3 {
                0 => &["on-demand"],
                1 => &["spot", "on-demand"],
                _ => &["spot"],
            };
            let policy = match i % 10 {
                0..=5 => "WhenEmptyOrUnderutilized",
                6 | 7 => "Balanced",
                _ => "WhenEmpty",
            };
            let taint = (i % 7 == 3).then(|| Taint {
                key: "dedicated".to_owned(),
                value: Some(name.clone()),
                effect: "NoSchedule".to_owned(),
            });
            PoolPlan {
                template_labels: labels([("workload-class", flavour), ("team", APPS[i % APPS.len()])]),
                termination_grace_period: (i % 4 == 1).then(|| "48h".to_owned()),
                consolidate_after_secs: [0, 30, 60, 120, 300][i % 5],
                arm: flavour == "graviton",
                weight: f64::from(1 + ((i as u32 * 37) % 7)),
                name,
                families,
                capacity_types,
                policy,
                taint,
            }
        })
        .collect()
}

pub(super) fn node_pool(i: usize, plan: &PoolPlan, now: Timestamp) -> NodePool {
    let family_names: Vec<&str> = plan.families.iter().map(|&f| FAMILIES[f].name).collect();
    let arch = if plan.arm { "arm64" } else { "amd64" };
    let mut requirements = vec![
        requirement(CAPACITY_TYPE, "In", plan.capacity_types),
        requirement(FAMILY, "In", &family_names),
        requirement(ARCH, "In", &[arch]),
        requirement("kubernetes.io/os", "In", &["linux"]),
    ];
    if i % 5 == 4 {
        requirements[1].min_values = Some(2);
    }
    if i % 6 == 5 {
        requirements.push(requirement("karpenter.k8s.aws/instance-size", "NotIn", &["nano", "micro", "small"]));
    }
    let budgets = match i % 4 {
        0 => None,
        1 => Some(vec![Budget { nodes: "20%".into(), ..Budget::default() }]),
        2 if i == 2 => Some(vec![
            Budget { nodes: "10%".into(), ..Budget::default() },
            Budget {
                nodes: "0".into(),
                reasons: Some(vec!["Underutilized".into()]),
                schedule: Some("0 9 * * *".into()),
                duration: Some("8h".into()),
            },
        ]),
        2 => Some(vec![
            Budget { nodes: "5".into(), ..Budget::default() },
            Budget { nodes: "0".into(), reasons: Some(vec!["Drifted".into()]), ..Budget::default() },
        ]),
        _ => Some(vec![Budget { nodes: "5".into(), ..Budget::default() }]),
    };
    let after = match plan.consolidate_after_secs {
        0 => "0s".to_owned(),
        s if s % 60 == 0 => format!("{}m", s / 60),
        s => format!("{s}s"),
    };
    let ready_at = ago(now, 90 * 86_400);
    NodePool {
        metadata: ObjectMeta {
            name: plan.name.clone(),
            uid: format!("uid-np-{}", plan.name),
            creation_timestamp: Some(ready_at),
            ..ObjectMeta::default()
        },
        spec: NodePoolSpec {
            template: NodeClaimTemplate {
                metadata: TemplateMetadata { labels: plan.template_labels.clone(), annotations: BTreeMap::new() },
                spec: NodeClaimTemplateSpec {
                    requirements,
                    taints: plan.taint.iter().cloned().collect(),
                    startup_taints: Vec::new(),
                    node_class_ref: Some(serde_json::json!({
                        "group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"
                    })),
                    expire_after: Some("720h".into()),
                    termination_grace_period: plan.termination_grace_period.clone(),
                },
            },
            disruption: Some(Disruption {
                consolidation_policy: Some(plan.policy.into()),
                consolidate_after: Some(after),
                budgets,
            }),
            limits: if i.is_multiple_of(5) {
                Resources::from([("cpu".to_owned(), Quantity::from_units(200_000))])
            } else {
                Resources::new()
            },
            weight: i.is_multiple_of(6).then_some(10),
            replicas: None,
        },
        status: NodePoolStatus {
            conditions: ["ValidationSucceeded", "NodeClassReady", "NodeRegistrationHealthy", "Ready"]
                .iter()
                .map(|t| condition(t, "True", ready_at, t))
                .collect(),
        },
    }
}

/// What the generator remembers about one node while packing pods.
pub(super) struct NodePlan {
    pub(super) name: String,
    /// `None` for the unmanaged system node group.
    pub(super) pool: Option<usize>,
    pub(super) family: usize,
    pub(super) size: usize,
    pub(super) zone: usize,
    pub(super) spot: bool,
    /// Target share of allocatable (after DaemonSets) the app pods may request.
    pub(super) target: f64,
    pub(super) cpu_free: i128,
    pub(super) memory_free: i128,
    /// Hard room left (allocatable minus what is placed), for the overflow pass.
    pub(super) cpu_room: i128,
    pub(super) memory_room: i128,
    pub(super) slots: i128,
    pub(super) initialized: bool,
}

pub(super) fn plan_nodes(
    p: &Params,
    pools: &[PoolPlan],
    rng: &mut Rng,
    ds_cpu: i128,
    ds_memory: i128,
    ds_pods: i128,
) -> Vec<NodePlan> {
    let unmanaged = if p.nodes >= 50 { (p.nodes * 6).div_ceil(1000) } else { 0 };
    let weights: Vec<f64> = pools.iter().map(|x| x.weight).collect();
    (0..p.nodes)
        .map(|i| {
            let managed = i >= unmanaged;
            let (pool, family, size, spot) = if managed {
                let pool = rng.weighted(&weights);
                let plan = &pools[pool];
                let family = *rng.pick(&plan.families);
                let size = rng.weighted(&[15.0, 35.0, 35.0, 15.0]);
                let spot = match plan.capacity_types {
                    ["spot"] => true,
                    ["on-demand"] => false,
                    _ => rng.chance(0.55),
                };
                (Some(pool), family, size, spot)
            } else {
                (None, 0, 1, false)
            };
            let zone = rng.weighted(&[36.0, 34.0, 30.0]);
            let x = rng.unit();
            let empty = p.empty_pct / 100.0;
            let target = if !managed {
                rng.range(0.4, 0.7)
            } else if x < empty {
                0.0
            } else if x < empty + 0.06 {
                rng.range(0.03, 0.15)
            } else {
                rng.range(0.30, 0.90)
            };
            let cpu = VCPUS[size] * 1000 - CPU_OVERHEAD[size] - ds_cpu;
            let memory = FAMILIES[family].allocatable_memory_mib[size] * MIB - ds_memory;
            let octet = 16 + zone * 16 + (i >> 16);
            NodePlan {
                name: format!("ip-10-{octet}-{}-{}.ec2.internal", (i >> 8) & 255, i & 255),
                pool,
                family,
                size,
                zone,
                spot,
                target,
                cpu_free: (cpu as f64 * target) as i128,
                memory_free: (memory as f64 * target) as i128,
                cpu_room: cpu,
                memory_room: memory,
                slots: MAX_PODS[size] - ds_pods,
                initialized: !managed || !rng.chance(0.003),
            }
        })
        .collect()
}

pub(super) fn node_and_claim(
    i: usize,
    plan: &NodePlan,
    pools: &[PoolPlan],
    p: &Params,
    now: Timestamp,
    rng: &mut Rng,
) -> (Node, Option<NodeClaim>) {
    let family = &FAMILIES[plan.family];
    let it = instance_type_name(plan.family, plan.size);
    let zone = ZONES[plan.zone];
    let capacity_type = if plan.spot { "spot" } else { "on-demand" };
    let age = if plan.initialized { rng.below(45 * 86_400) as i64 + 1800 } else { rng.below(240) as i64 + 30 };
    let created = ago(now, age);
    let instance_id = format!("i-0{:016x}", rng.next() >> 4);
    let provider_id = format!("aws:///{zone}/{instance_id}");
    let cpu = VCPUS[plan.size].to_string();
    let memory_mib = (family.memory_gib[plan.size] * 1024).to_string();
    let mut node_labels = labels([
        (HOSTNAME, plan.name.as_str()),
        ("node.kubernetes.io/instance-type", it.as_str()),
        ("beta.kubernetes.io/instance-type", it.as_str()),
        (ZONE, zone),
        ("topology.kubernetes.io/region", "us-east-1"),
        ("topology.k8s.aws/zone-id", ZONE_IDS[plan.zone]),
        (ARCH, family.arch),
        ("kubernetes.io/os", "linux"),
        (FAMILY, family.name),
        ("karpenter.k8s.aws/instance-size", SIZES[plan.size]),
        ("karpenter.k8s.aws/instance-cpu", cpu.as_str()),
        ("karpenter.k8s.aws/instance-memory", memory_mib.as_str()),
    ]);
    let capacity = Resources::from([
        ("cpu".to_owned(), Quantity::from_units(VCPUS[plan.size])),
        ("memory".to_owned(), Quantity::from_units(family.memory_gib[plan.size] * GIB)),
        ("pods".to_owned(), Quantity::from_units(MAX_PODS[plan.size])),
        ("ephemeral-storage".to_owned(), Quantity::from_units(20 * GIB)),
    ]);
    let allocatable = Resources::from([
        ("cpu".to_owned(), Quantity::from_milli(VCPUS[plan.size] * 1000 - CPU_OVERHEAD[plan.size])),
        ("memory".to_owned(), Quantity::from_units(family.allocatable_memory_mib[plan.size] * MIB)),
        ("pods".to_owned(), Quantity::from_units(MAX_PODS[plan.size])),
        ("ephemeral-storage".to_owned(), Quantity::from_units(18 * GIB)),
    ]);
    let ready = vec![condition("Ready", "True", created, "KubeletReady")];
    let Some(pool_index) = plan.pool else {
        node_labels.insert("eks.amazonaws.com/nodegroup".into(), "system".into());
        node_labels.insert("eks.amazonaws.com/capacityType".into(), "ON_DEMAND".into());
        let node = Node {
            metadata: ObjectMeta {
                name: plan.name.clone(),
                uid: rng.uid(),
                labels: node_labels,
                creation_timestamp: Some(created),
                ..ObjectMeta::default()
            },
            spec: NodeSpec { provider_id: Some(provider_id), taints: Vec::new(), unschedulable: false },
            status: NodeStatus { capacity, allocatable, conditions: ready },
        };
        return (node, None);
    };
    let pool = &pools[pool_index];
    let claim_name = format!("{}-{}", pool.name, safe_code((i as u64).wrapping_mul(7919).wrapping_add(p.seed), 5));
    node_labels.insert(NODEPOOL.into(), pool.name.clone());
    node_labels.insert(CAPACITY_TYPE.into(), capacity_type.into());
    node_labels.insert("karpenter.k8s.aws/instance-category".into(), family.name[..1].to_owned());
    node_labels.insert("karpenter.k8s.aws/instance-generation".into(), family.name[1..2].to_owned());
    node_labels.insert("karpenter.sh/registered".into(), "true".into());
    if plan.initialized {
        node_labels.insert("karpenter.sh/initialized".into(), "true".into());
    }
    node_labels.extend(pool.template_labels.clone());
    let mut taints: Vec<Taint> = pool.taint.iter().cloned().collect();
    let mut annotations = BTreeMap::new();
    if rng.chance(0.003) {
        annotations.insert(DO_NOT_DISRUPT.to_owned(), "true".to_owned());
    }
    let disrupting = rng.chance(0.001);
    if disrupting {
        taints.push(Taint { key: "karpenter.sh/disrupted".into(), value: None, effect: "NoSchedule".into() });
    }
    let mut claim_labels = node_labels.clone();
    claim_labels.remove(HOSTNAME);
    let last_pod_event = ago(now, rng.below(3 * 3600) as i64);
    let consolidatable =
        plan.initialized && now.as_second() - last_pod_event.as_second() >= pool.consolidate_after_secs;
    let initialized_at = ago(now, age - 60);
    let mut conditions = vec![
        condition("Launched", "True", created, "Launched"),
        condition("Registered", "True", created, "Registered"),
        if plan.initialized {
            condition("Initialized", "True", initialized_at, "Initialized")
        } else {
            condition("Initialized", "Unknown", created, "NotInitialized")
        },
        if consolidatable {
            condition("Consolidatable", "True", last_pod_event, "Consolidatable")
        } else {
            condition("Consolidatable", "False", last_pod_event, "ConsolidateAfterNotElapsed")
        },
        condition("Ready", "True", created, "Ready"),
    ];
    if rng.chance(p.drifted_pct / 100.0) {
        conditions.push(condition("Drifted", "True", ago(now, 600), "NodePoolDrifted"));
    }
    let claim = NodeClaim {
        metadata: ObjectMeta {
            name: claim_name.clone(),
            uid: rng.uid(),
            labels: claim_labels,
            annotations: annotations.clone(),
            creation_timestamp: Some(created),
            owner_references: vec![OwnerReference {
                controller: None,
                ..owner("karpenter.sh/v1", "NodePool", &pool.name, &format!("uid-np-{}", pool.name))
            }],
            ..ObjectMeta::default()
        },
        spec: NodeClaimSpec {
            requirements: vec![
                requirement("node.kubernetes.io/instance-type", "In", &[it.as_str()]),
                requirement(NODEPOOL, "In", &[pool.name.as_str()]),
                requirement(CAPACITY_TYPE, "In", &[capacity_type]),
                requirement(ZONE, "In", &[zone]),
            ],
            taints: pool.taint.iter().cloned().collect(),
            startup_taints: Vec::new(),
            node_class_ref: Some(serde_json::json!({
                "group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"
            })),
            termination_grace_period: pool.termination_grace_period.clone(),
            expire_after: Some("720h".into()),
        },
        status: NodeClaimStatus {
            node_name: Some(plan.name.clone()),
            provider_id: Some(provider_id.clone()),
            capacity: capacity.clone(),
            allocatable: allocatable.clone(),
            conditions,
            last_pod_event_time: Some(last_pod_event),
        },
    };
    let node = Node {
        metadata: ObjectMeta {
            name: plan.name.clone(),
            uid: rng.uid(),
            labels: node_labels,
            annotations,
            creation_timestamp: Some(created),
            owner_references: vec![OwnerReference {
                controller: None,
                ..owner("karpenter.sh/v1", "NodeClaim", &claim_name, &claim.metadata.uid)
            }],
            ..ObjectMeta::default()
        },
        spec: NodeSpec { provider_id: Some(provider_id), taints, unschedulable: false },
        status: NodeStatus { capacity, allocatable, conditions: ready },
    };
    (node, Some(claim))
}

/// `(namespace, name, cpu millicores, memory MiB, host port)` of the DaemonSets, in order.
pub(super) const DAEMONS: [(&str, &str, i128, i128, Option<i32>); 4] = [
    ("kube-system", "kube-proxy", 100, 128, None),
    ("kube-system", "aws-node", 25, 64, None),
    ("kube-system", "ebs-csi-node", 30, 120, None),
    ("monitoring", "node-exporter", 100, 180, Some(9100)),
];

pub(super) fn daemon_spec(cpu: i128, memory_mib: i128, host_port: Option<i32>, name: &str) -> PodSpec {
    PodSpec {
        containers: vec![Container {
            name: name.to_owned(),
            resources: ContainerResources {
                requests: resources(cpu, memory_mib * MIB).into(),
                limits: Resources::from([("memory".to_owned(), Quantity::from_units(2 * memory_mib * MIB))]).into(),
                ..ContainerResources::default()
            },
            ports: host_port
                .map(|port| ContainerPort {
                    container_port: port,
                    host_port: Some(port),
                    host_ip: None,
                    protocol: Some("TCP".into()),
                })
                .into_iter()
                .collect(),
            ..Container::default()
        }],
        tolerations: vec![toleration("", "Exists", None, "", None)],
        priority: Some(2_000_001_000),
        priority_class_name: Some("system-node-critical".into()),
        ..PodSpec::default()
    }
}

/// Karpenter's recent Events on about 2 % of the nodes.
pub(super) fn events(snapshot: &Snapshot, rng: &mut Rng, now: Timestamp) -> Vec<Event> {
    let messages = [
        ("Unconsolidatable", "Can't replace with a cheaper node"),
        ("DisruptionBlocked", "Cannot disrupt Node: pdb prevents pod evictions"),
        ("Unconsolidatable", "SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node"),
    ];
    snapshot
        .nodes
        .iter()
        .filter(|n| n.metadata.labels.contains_key(NODEPOOL))
        .step_by(50)
        .map(|n| {
            let (reason, message) = *rng.pick(&messages);
            let at = ago(now, rng.below(3000) as i64 + 60);
            Event {
                metadata: ObjectMeta {
                    name: format!("{}.{:016x}", n.metadata.name, rng.next()),
                    namespace: Some("default".into()),
                    creation_timestamp: Some(at),
                    ..ObjectMeta::default()
                },
                involved_object: InvolvedObject { kind: "Node".into(), name: n.metadata.name.clone(), namespace: None },
                reason: reason.into(),
                message: message.into(),
                type_: "Normal".into(),
                last_timestamp: Some(at),
                first_timestamp: Some(ago(at, 3600)),
                event_time: None,
                count: Some(rng.below(40) as i32 + 1),
                ..Event::default()
            }
        })
        .collect()
}
