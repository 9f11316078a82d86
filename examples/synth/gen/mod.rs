//! The synthetic cluster generator shared by `examples/synth` and `benches/replay.rs`.
//!
//! Builds a deterministic [`Snapshot`] of a large Karpenter cluster from a seed: a catalogue of
//! 40 AWS instance types (m5/m6i/c5/c6i/r5/r6i/m6g/m7g/c7g/r7g, large..4xlarge, with
//! `docs/PRICING.md`'s capacities and us-east-1 prices, 3 zones × spot/on-demand), NodePools of mixed
//! policy, budgets and taints, Nodes paired with NodeClaims, DaemonSets with a pod per node, and
//! Deployments/StatefulSets whose pods are packed so that nodes are 30–90 % full (a few nearly
//! empty or empty), with zone/hostname spread, pod anti-affinity, node selectors, tolerations,
//! do-not-disrupt and deletion-cost annotations, priorities, PVC-bound zonal volumes and PDBs.
//!
//! [`write_json`] streams it as one `v1 List` (one item per line) that
//! `kubectl-consolidation --snapshot FILE` reads; nothing is held twice in memory.

use std::collections::BTreeMap;

use jiff::Timestamp;
use k8s_openapi::api::core::v1::{
    NodeSelectorRequirement as K8sRequirement, Toleration, TopologySelectorLabelRequirement, TopologySelectorTerm,
};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use kubectl_consolidation::quantity::Quantity;
use kubectl_consolidation::snapshot::{
    Condition, HorizontalPodAutoscaler, HpaSpec, NodeSelectorRequirement, ObjectMeta, OwnerReference, Pod, PodTemplate,
    Resources, ScaleTargetRef, Snapshot, SnapshotInfo, StorageClass, Workload, WorkloadSpec,
};

mod cluster;
mod pdbs;
mod pinning;
mod placement;
mod workloads;
mod write;

use cluster::{catalogue, daemon_spec, events, node_and_claim, node_pool, plan_nodes, pool_plans, DAEMONS};
use pdbs::pdbs;
use placement::{materialise, pod_status, Packer, Placed};
use workloads::{workload_plans, Class, Groups, WorkloadPlan};
pub(crate) use write::write_json;

/// The clock of every synthetic snapshot (`SnapshotInfo.capturedAt`): a Sunday, 10:00 UTC.
pub(crate) const CAPTURED_AT: &str = "2026-11-29T10:00:00Z";

const ZONES: [&str; 3] = ["us-east-1a", "us-east-1b", "us-east-1c"];
const ZONE_IDS: [&str; 3] = ["use1-az1", "use1-az2", "use1-az4"];
const SIZES: [&str; 4] = ["large", "xlarge", "2xlarge", "4xlarge"];
const VCPUS: [i128; 4] = [2, 4, 8, 16];
const MAX_PODS: [i128; 4] = [29, 58, 58, 234];
/// Capacity minus Karpenter's allocatable cpu (AL2023 defaults), in millicores.
const CPU_OVERHEAD: [i128; 4] = [70, 80, 90, 110];
const GIB: i128 = 1 << 30;
const MIB: i128 = 1 << 20;

const HOSTNAME: &str = "kubernetes.io/hostname";
const ZONE: &str = "topology.kubernetes.io/zone";
const CAPACITY_TYPE: &str = "karpenter.sh/capacity-type";
const NODEPOOL: &str = "karpenter.sh/nodepool";
const ARCH: &str = "kubernetes.io/arch";
const FAMILY: &str = "karpenter.k8s.aws/instance-family";
const DO_NOT_DISRUPT: &str = "karpenter.sh/do-not-disrupt";

/// One instance family of `docs/PRICING.md`'s table.
struct Family {
    name: &'static str,
    arch: &'static str,
    memory_gib: [i128; 4],
    allocatable_memory_mib: [i128; 4],
    on_demand: [f64; 4],
}

const FAMILIES: [Family; 10] = [
    fam("m5", "amd64", [8, 16, 32, 64], [6903, 14162, 29317, 57691], [0.096, 0.192, 0.384, 0.768]),
    fam("m6i", "amd64", [8, 16, 32, 64], [6903, 14162, 29317, 57691], [0.096, 0.192, 0.384, 0.768]),
    fam("c5", "amd64", [4, 8, 16, 32], [3114, 6584, 14162, 27381], [0.085, 0.17, 0.34, 0.68]),
    fam("c6i", "amd64", [4, 8, 16, 32], [3114, 6584, 14162, 27381], [0.085, 0.17, 0.34, 0.68]),
    fam("r5", "amd64", [16, 32, 64, 128], [14481, 29317, 59627, 118_312], [0.126, 0.252, 0.504, 1.008]),
    fam("r6i", "amd64", [16, 32, 64, 128], [14481, 29317, 59627, 118_312], [0.126, 0.252, 0.504, 1.008]),
    fam("m6g", "arm64", [8, 16, 32, 64], [6844, 14103, 29258, 57632], [0.077, 0.154, 0.308, 0.616]),
    fam("m7g", "arm64", [8, 16, 32, 64], [6844, 14103, 29258, 57632], [0.0816, 0.1632, 0.3264, 0.6528]),
    fam("c7g", "arm64", [4, 8, 16, 32], [3055, 6525, 14103, 27322], [0.0725, 0.145, 0.29, 0.58]),
    fam("r7g", "arm64", [16, 32, 64, 128], [14422, 29258, 59568, 118_253], [0.1071, 0.2142, 0.4284, 0.8568]),
];

const fn fam(
    name: &'static str,
    arch: &'static str,
    memory_gib: [i128; 4],
    allocatable_memory_mib: [i128; 4],
    on_demand: [f64; 4],
) -> Family {
    Family { name, arch, memory_gib, allocatable_memory_mib, on_demand }
}

/// NodePool flavours: name prefix and the families its requirements allow.
const FLAVOURS: [(&str, &[&str]); 5] = [
    ("general", &["m5", "m6i"]),
    ("compute", &["c5", "c6i"]),
    ("memory", &["r5", "r6i"]),
    ("graviton", &["m6g", "m7g", "c7g", "r7g"]),
    ("mixed", &["m5", "m6i", "c5", "c6i", "r5", "r6i"]),
];

const APPS: [&str; 20] = [
    "api",
    "web",
    "worker",
    "cache",
    "auth",
    "billing",
    "search",
    "cart",
    "checkout",
    "orders",
    "payments",
    "inventory",
    "notify",
    "reports",
    "gateway",
    "ingest",
    "stream",
    "ml",
    "feed",
    "media",
];
const ROLES: [&str; 8] = ["svc", "backend", "frontend", "consumer", "processor", "sync", "scheduler", "proxy"];
/// Kubernetes' `rand.SafeEncodeString` alphabet (no vowels, no look-alikes).
const SAFE: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";

/// What to generate.
#[derive(Debug, Clone)]
pub(crate) struct Params {
    /// Nodes in total (about 0.6 % of them unmanaged: a system node group without NodeClaims).
    pub nodes: usize,
    /// Pods in total, DaemonSet pods and a few pending pods included.
    pub pods: usize,
    /// NodePools.
    pub pools: usize,
    /// PodDisruptionBudgets.
    pub pdbs: usize,
    pub seed: u64,
    /// Percentage of managed nodes holding nothing but DaemonSet pods (Emptiness acts on them).
    pub empty_pct: f64,
    /// Percentage of NodeClaims with `Drifted=True`.
    pub drifted_pct: f64,
    /// Percentage of workloads (of at most 5 replicas) that are StatefulSets, each pod with
    /// its own PVC-bound zonal volume (a volume-heavy cluster: 100).
    pub stateful_pct: f64,
    /// Percentage of bound application pods pinned to their node by a required
    /// `kubernetes.io/hostname` node affinity (100: no candidate can be consolidated).
    pub pinned_pct: f64,
}

impl Params {
    /// The defaults of the scale (20 pools, 3,000 PDBs at 150,000 pods), scaled.
    pub(crate) fn scaled(nodes: usize, pods: usize) -> Params {
        Params {
            nodes,
            pods,
            pools: 20,
            pdbs: pods / 50,
            seed: 1,
            empty_pct: 3.0,
            drifted_pct: 1.0,
            stateful_pct: 3.0,
            pinned_pct: 0.0,
        }
    }
}

/// A generated snapshot, with a node worth explaining.
pub(crate) struct Synth {
    pub snapshot: Snapshot,
    /// A busy managed node of a `WhenEmptyOrUnderutilized` pool (for `explain node/X`).
    pub explain_node: String,
    /// One line of counts, for logs.
    pub summary: String,
}

/// SplitMix64: tiny, fast and the same everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Uniform in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }

    fn pick<'t, T>(&mut self, items: &'t [T]) -> &'t T {
        &items[self.below(items.len())]
    }

    /// An index drawn with the given weights.
    fn weighted(&mut self, weights: &[f64]) -> usize {
        let total: f64 = weights.iter().sum();
        let mut x = self.unit() * total;
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return i;
            }
            x -= w;
        }
        weights.len() - 1
    }

    fn uid(&mut self) -> String {
        let (a, b) = (self.next(), self.next());
        format!(
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            0x8000 | (b >> 48) & 0x3fff,
            b & 0xffff_ffff_ffff
        )
    }

    /// `len` characters of the safe alphabet.
    fn safe(&mut self, len: usize) -> String {
        (0..len).map(|_| char::from(SAFE[self.below(SAFE.len())])).collect()
    }
}

/// `n` in the safe alphabet, `len` characters (a bijection for `n < 27^len`).
fn safe_code(mut n: u64, len: usize) -> String {
    let mut out = vec![b'b'; len];
    for slot in out.iter_mut().rev() {
        *slot = SAFE[(n % SAFE.len() as u64) as usize];
        n /= SAFE.len() as u64;
    }
    String::from_utf8(out).unwrap_or_default()
}

fn labels<const N: usize>(pairs: [(&str, &str); N]) -> BTreeMap<String, String> {
    pairs.into_iter().map(|(k, v)| (k.to_owned(), v.to_owned())).collect()
}

fn resources(cpu_milli: i128, memory_bytes: i128) -> Resources {
    Resources::from([
        ("cpu".to_owned(), Quantity::from_milli(cpu_milli)),
        ("memory".to_owned(), Quantity::from_units(memory_bytes)),
    ])
}

fn condition(type_: &str, status: &str, at: Timestamp, reason: &str) -> Condition {
    Condition {
        type_: type_.to_owned(),
        status: status.to_owned(),
        reason: Some(reason.to_owned()),
        message: Some(String::new()),
        last_transition_time: Some(at),
    }
}

fn ago(now: Timestamp, seconds: i64) -> Timestamp {
    Timestamp::from_second(now.as_second() - seconds).unwrap_or(now)
}

fn owner(api_version: &str, kind: &str, name: &str, uid: &str) -> OwnerReference {
    OwnerReference {
        api_version: api_version.to_owned(),
        kind: kind.to_owned(),
        name: name.to_owned(),
        uid: uid.to_owned(),
        controller: Some(true),
    }
}

fn requirement(key: &str, operator: &str, values: &[&str]) -> NodeSelectorRequirement {
    NodeSelectorRequirement {
        key: key.to_owned(),
        operator: operator.to_owned(),
        values: values.iter().map(|v| (*v).to_owned()).collect(),
        min_values: None,
    }
}

fn k8s_requirement(key: &str, values: &[&str]) -> K8sRequirement {
    K8sRequirement {
        key: key.to_owned(),
        operator: "In".to_owned(),
        values: Some(values.iter().map(|v| (*v).to_owned()).collect()),
    }
}

fn app_selector(app: &str) -> LabelSelector {
    LabelSelector { match_labels: Some(labels([("app", app)])), match_expressions: None }
}

fn toleration(key: &str, operator: &str, value: Option<&str>, effect: &str, seconds: Option<i64>) -> Toleration {
    Toleration {
        key: (!key.is_empty()).then(|| key.to_owned()),
        operator: Some(operator.to_owned()),
        value: value.map(str::to_owned),
        effect: (!effect.is_empty()).then(|| effect.to_owned()),
        toleration_seconds: seconds,
    }
}

/// The tolerations the API server's admission adds to every pod.
fn default_tolerations() -> Vec<Toleration> {
    vec![
        toleration("node.kubernetes.io/not-ready", "Exists", None, "NoExecute", Some(300)),
        toleration("node.kubernetes.io/unreachable", "Exists", None, "NoExecute", Some(300)),
    ]
}

/// Generates the snapshot `p` describes. Deterministic in `p`.
pub(crate) fn generate(p: &Params) -> Synth {
    let mut rng = Rng(p.seed ^ 0x5eed_0000_c0ff_ee00);
    let now: Timestamp = CAPTURED_AT.parse().unwrap_or(Timestamp::UNIX_EPOCH);
    let nodes_wanted = p.nodes.max(1);
    let daemons = (p.pods / nodes_wanted / 5).min(DAEMONS.len());
    let ds_cpu: i128 = DAEMONS[..daemons].iter().map(|d| d.2).sum();
    let ds_memory: i128 = DAEMONS[..daemons].iter().map(|d| d.3 * MIB).sum();
    let pools = pool_plans(p.pools.max(1));
    let mut plans = plan_nodes(p, &pools, &mut rng, ds_cpu, ds_memory, daemons as i128);
    let mut snapshot = Snapshot {
        info: SnapshotInfo {
            captured_at: Some(now),
            karpenter_version: Some("v1.14.0".into()),
            ..SnapshotInfo::default()
        },
        instance_types: catalogue(&mut rng),
        node_pools: pools.iter().enumerate().map(|(i, x)| node_pool(i, x, now)).collect(),
        ..Snapshot::default()
    };
    for (i, plan) in plans.iter().enumerate() {
        let (node, claim) = node_and_claim(i, plan, &pools, p, now, &mut rng);
        snapshot.nodes.push(node);
        snapshot.node_claims.extend(claim);
    }
    // DaemonSets and their pods.
    for &(namespace, name, cpu, memory, port) in &DAEMONS[..daemons] {
        let uid = rng.uid();
        let spec = daemon_spec(cpu, memory, port, name);
        snapshot.daemon_sets.push(Workload {
            metadata: ObjectMeta {
                name: name.into(),
                namespace: Some(namespace.into()),
                uid: uid.clone(),
                labels: labels([("app", name)]),
                ..ObjectMeta::default()
            },
            spec: WorkloadSpec {
                replicas: None,
                selector: Some(app_selector(name)),
                template: PodTemplate {
                    metadata: ObjectMeta { labels: labels([("app", name)]), ..ObjectMeta::default() },
                    spec: spec.clone(),
                },
            },
        });
        for (k, plan) in plans.iter().enumerate() {
            let mut pod_spec = spec.clone();
            pod_spec.node_name = Some(plan.name.clone());
            let started = ago(now, 3600);
            snapshot.pods.push(Pod {
                metadata: ObjectMeta {
                    name: format!("{name}-{}", safe_code(k as u64 * 7919 + 11, 5)),
                    namespace: Some(namespace.into()),
                    uid: rng.uid(),
                    labels: labels([("app", name)]),
                    creation_timestamp: Some(started),
                    owner_references: vec![owner("apps/v1", "DaemonSet", name, &uid)],
                    ..ObjectMeta::default()
                },
                spec: pod_spec,
                status: pod_status(started, true),
            });
        }
    }
    // Application workloads.
    let app_pods = p.pods.saturating_sub(snapshot.pods.len());
    let groups = Groups::new(&plans, &pools);
    let workloads = workload_plans(app_pods, &plans, &pools, &groups, p.stateful_pct, &mut rng);
    let mut packer = Packer { nodes: &mut plans, groups, cursor: BTreeMap::new() };
    let mut placed = Placed::default();
    let mut counter = 0;
    let pending_every = if app_pods >= 5000 { 5000 } else { 0 };
    let mut order: Vec<&WorkloadPlan> = workloads.iter().collect();
    order.sort_by_key(|w| w.class == Class::General);
    for w in order {
        materialise(w, &mut packer, pending_every, &mut counter, now, &mut rng, &mut placed);
    }
    let pending = placed.pods.iter().filter(|p| p.spec.node_name.is_none()).count();
    snapshot.pods.append(&mut placed.pods);
    pinning::pin_to_nodes(&mut snapshot.pods, p.pinned_pct);
    snapshot.deployments = placed.deployments;
    snapshot.replica_sets = placed.replica_sets;
    snapshot.stateful_sets = placed.stateful_sets;
    snapshot.pvcs = placed.pvcs;
    snapshot.pvs = placed.pvs;
    snapshot.storage_classes.push(StorageClass {
        metadata: ObjectMeta { name: "gp3".into(), ..ObjectMeta::default() },
        provisioner: "ebs.csi.aws.com".into(),
        allowed_topologies: vec![TopologySelectorTerm {
            match_label_expressions: Some(vec![TopologySelectorLabelRequirement {
                key: ZONE.into(),
                values: ZONES.iter().map(|z| (*z).to_owned()).collect(),
            }]),
        }],
        volume_binding_mode: Some("WaitForFirstConsumer".into()),
    });
    snapshot.hpas = workloads
        .iter()
        .filter(|w| !w.stateful && w.replicas >= 3)
        .step_by(20)
        .map(|w| HorizontalPodAutoscaler {
            metadata: ObjectMeta {
                name: w.name.clone(),
                namespace: Some(w.namespace.clone()),
                ..ObjectMeta::default()
            },
            spec: HpaSpec {
                scale_target_ref: ScaleTargetRef {
                    api_version: "apps/v1".into(),
                    kind: "Deployment".into(),
                    name: w.name.clone(),
                },
                min_replicas: Some((w.replicas as i32 - 1).max(1)),
                max_replicas: w.replicas as i32 * 3,
            },
        })
        .collect();
    snapshot.pdbs = pdbs(p, &workloads, &mut rng, now);
    snapshot.events = events(&snapshot, &mut rng, now);
    let explain_node = packer
        .nodes
        .iter()
        .enumerate()
        .skip(packer.nodes.len() / 2)
        .chain(packer.nodes.iter().enumerate())
        .find(|(_, n)| {
            n.pool.is_some_and(|x| pools[x].policy == "WhenEmptyOrUnderutilized" && pools[x].taint.is_none())
                && n.initialized
                && (0.3..0.6).contains(&n.target)
        })
        .or_else(|| packer.nodes.iter().enumerate().next_back())
        .map(|(_, n)| n.name.clone())
        .unwrap_or_default();
    let summary = format!(
        "{} nodes ({} NodeClaims), {} pods ({} DaemonSet, {pending} pending), {} Deployments, {} StatefulSets, \
         {} PDBs, {} NodePools, {} instance types",
        snapshot.nodes.len(),
        snapshot.node_claims.len(),
        snapshot.pods.len(),
        daemons * p.nodes,
        snapshot.deployments.len(),
        snapshot.stateful_sets.len(),
        snapshot.pdbs.len(),
        snapshot.node_pools.len(),
        snapshot.instance_types.len(),
    );
    Synth { snapshot, explain_node, summary }
}
