//! Small clusters for the scheduler's differential tests: a fast path against the pass it
//! replaces, on clusters built to make them disagree if they can.

use serde_json::json;

use crate::engine::labels::{HOSTNAME, ZONE};
use crate::testing::{managed_node, node_pool, pod, set, snapshot};

/// A pod of `app` asking for `cpu`, on `node` ("" for pending).
pub(in crate::engine) fn sized(name: &str, app: &str, node: &str, cpu: &str) -> serde_json::Value {
    let containers = json!([{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": "128Mi"}}}]);
    let p = set(set(pod(name, node), "/spec/containers", containers), "/metadata/labels", json!({"app": app}));
    if node.is_empty() {
        let unschedulable = json!({"type": "PodScheduled", "status": "False", "reason": "Unschedulable"});
        set(
            set(p, "/spec/nodeName", json!(null)),
            "/status",
            json!({"phase": "Pending", "conditions": [unschedulable]}),
        )
    } else {
        p
    }
}

/// One zone spread per hostname over the pods of `app`.
pub(in crate::engine) fn spread(p: serde_json::Value, app: &str) -> serde_json::Value {
    set(
        p,
        "/spec/topologySpreadConstraints",
        json!([{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "DoNotSchedule",
                "labelSelector": {"matchLabels": {"app": app}}}]),
    )
}

/// A small random cluster: two zones, uneven loads, shared pods of every kind with affinity,
/// anti-affinity and spreads over a few apps.
pub(in crate::engine) fn random_cluster(seed: u64) -> crate::snapshot::Snapshot {
    let mut state = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
    let mut next = |n: u64| {
        state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) % n
    };
    let apps = ["db", "web", "cache"];
    let mut objects = vec![node_pool("default")];
    let nodes: Vec<String> = (1..=7).map(|i| format!("n{i}")).collect();
    for (i, n) in nodes.iter().enumerate() {
        let [node, claim] = managed_node(n);
        let zone = if i % 2 == 0 { "zone-a" } else { "zone-b" };
        objects.push(set(node, "/metadata/labels/topology.kubernetes.io~1zone", json!(zone)));
        objects.push(claim);
    }
    let [node, claim] = managed_node("gone");
    objects.push(set(node, "/spec/taints", json!([{"key": "karpenter.sh/disrupted", "effect": "NoSchedule"}])));
    objects.push(claim);
    let mut count = 0;
    let mut add = |objects: &mut Vec<serde_json::Value>, node: &str, next: &mut dyn FnMut(u64) -> u64| {
        count += 1;
        let app = apps[usize::try_from(next(3)).unwrap_or(0)];
        let cpu = format!("{}m", 100 + 100 * next(12));
        let p = sized(&format!("p{count}"), app, node, &cpu);
        let other = apps[usize::try_from(next(3)).unwrap_or(0)];
        let term = |key: &str| json!([{"topologyKey": key, "labelSelector": {"matchLabels": {"app": other}}}]);
        let (affinity, anti) = ("/spec/affinity/podAffinity/required", "/spec/affinity/podAntiAffinity/required");
        let pinned = format!("n{}", 1 + next(7));
        let p = match next(8) {
            0 => set(p, &format!("{affinity}DuringSchedulingIgnoredDuringExecution"), term(ZONE)),
            1 => set(p, &format!("{anti}DuringSchedulingIgnoredDuringExecution"), term(HOSTNAME)),
            2 => set(p, &format!("{anti}DuringSchedulingIgnoredDuringExecution"), term(ZONE)),
            3 => spread(p, app),
            // Pinned to a node or a zone by selector: most nodes refuse it on its labels.
            4 => set(p, "/spec/nodeSelector", json!({HOSTNAME: pinned})),
            5 => set(p, "/spec/nodeSelector", json!({ZONE: "zone-b"})),
            _ => p,
        };
        objects.push(p);
    };
    for n in &nodes {
        for _ in 0..next(5) {
            add(&mut objects, n, &mut next);
        }
    }
    for _ in 0..2 + next(5) {
        add(&mut objects, "gone", &mut next);
    }
    for _ in 0..=next(4) {
        add(&mut objects, "", &mut next);
    }
    snapshot(objects)
}
