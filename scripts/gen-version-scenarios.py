#!/usr/bin/env python3
"""Writes the version-sensitive scenarios of issue 35: for each rule the replay builds per core
version (src/rules/mod.rs RULES), one small cluster, replayed under a version on each side of
the rule's boundary. Each (cluster, version) is a folder tests/scenarios/own-version-<rule>-<v>/
whose snapshot.yaml is the same for both versions and whose expect.json passes
`--karpenter-version <v>`; the verdicts come from upstream's code at both tags (docs/VERSION-RULES.md,
cited in "source"). tests/it/version_matrix.rs replays every cluster under every era and
compares with tests/version-matrix.tsv.

Usage: scripts/gen-version-scenarios.py   (rewrites the folders; run from the repository root)
"""
import json
import os

import yaml

T0 = "2026-11-29T08:00:00Z"
NOW = "2026-11-29T10:00:00Z"
ZONE = "us-east-1a"

# name: (cpu, memory, pods, on-demand price)
TYPES = {
    "m5.small": ("1", "2Gi", "110", 0.025),
    "m5.large": ("2", "8Gi", "110", 0.096),
    "m5.xlarge": ("4", "16Gi", "110", 0.192),
    "m5.4xlarge": ("16", "64Gi", "110", 2.00),
    "r9.source": ("4", "16Gi", "110", 0.50),
    "c5.xlarge": ("4", "8Gi", "110", 0.25),
}


def instance_types(names, extra=()):
    items = list(extra)
    for n in names:
        cpu, mem, pods, price = TYPES[n]
        items.append({"name": n, "capacity": {"cpu": cpu, "memory": mem, "pods": pods},
                      "offerings": [{"zone": ZONE, "capacityType": "on-demand", "price": price}],
                      "labels": {"karpenter.k8s.aws/instance-family": "m5"}})
    return {"apiVersion": "kubectl-consolidation/v1alpha1", "kind": "InstanceTypes", "items": items}


def cond(t, status="True", at=T0):
    return {"type": t, "status": status, "lastTransitionTime": at, "reason": t, "message": ""}


def node_pool(name, consolidate_after="0s", budget="100%", budgets=None, limits=None):
    pool = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name, "uid": f"uid-np-{name}"},
            "spec": {"template": {"metadata": {"labels": {}}, "spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                "requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}],
                "expireAfter": "Never"}},
                "disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": consolidate_after,
                               "budgets": budgets or [{"nodes": budget}]}},
            "status": {"conditions": [cond("ValidationSucceeded"), cond("NodeClassReady"),
                                      cond("NodeRegistrationHealthy"), cond("Ready")]}}
    if limits:
        pool["spec"]["limits"] = limits
    return pool


def node(name, itype, pool="default", consolidatable=True, drifted=False, last_pod_event=T0, drifted_at=T0):
    cpu, mem, pods, _ = TYPES[itype]
    labels = {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
              "node.kubernetes.io/instance-type": itype, "topology.kubernetes.io/zone": ZONE,
              "topology.kubernetes.io/region": "us-east-1", "karpenter.k8s.aws/instance-family": "m5",
              "karpenter.sh/nodepool": pool, "karpenter.sh/capacity-type": "on-demand",
              "karpenter.sh/registered": "true", "karpenter.sh/initialized": "true"}
    capacity = {"cpu": cpu, "memory": mem, "pods": pods}
    provider = f"aws:///{ZONE}/i-{name}"
    conditions = [cond("Launched"), cond("Registered"), cond("Initialized")]
    if consolidatable:
        conditions.append(cond("Consolidatable"))
    if drifted:
        conditions.append(cond("Drifted", at=drifted_at))
    conditions.append(cond("Ready"))
    k8s_node = {"apiVersion": "v1", "kind": "Node",
                "metadata": {"name": name, "uid": f"uid-node-{name}", "labels": labels, "creationTimestamp": T0},
                "spec": {"providerID": provider},
                "status": {"capacity": capacity, "allocatable": capacity,
                           "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": T0}]}}
    claim = {"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
             "metadata": {"name": f"{pool}-{name}", "uid": f"uid-nc-{name}", "labels": labels, "creationTimestamp": T0,
                          "ownerReferences": [{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "name": pool,
                                               "uid": f"uid-np-{pool}", "blockOwnerDeletion": True}]},
             "spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                      "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": [itype]}],
                      "expireAfter": "Never"},
             "status": {"nodeName": name, "providerID": provider, "capacity": capacity, "allocatable": capacity,
                        "conditions": conditions, "lastPodEventTime": last_pod_event}}
    return [k8s_node, claim]


def pod(name, node_name, cpu="500m", annotations=None, started=T0, labels=None, priority=None):
    p = {"apiVersion": "v1", "kind": "Pod",
         "metadata": {"name": name, "namespace": "default", "uid": f"uid-pod-{name}",
                      "annotations": annotations or {}, "creationTimestamp": started},
         "spec": {"nodeName": node_name,
                  "containers": [{"name": "app", "image": "app", "resources": {"requests": {"cpu": cpu, "memory": "128Mi"}}}]},
         "status": {"phase": "Running", "startTime": started,
                    "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": started}]}}
    if labels:
        p["metadata"]["labels"] = labels
    if priority is not None:
        p["spec"]["priority"] = priority
    return p


def pdb(name, app, allowed, max_unavailable=1):
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-pdb-{name}", "generation": 1},
            "spec": {"selector": {"matchLabels": {"app": app}}, "maxUnavailable": max_unavailable},
            "status": {"observedGeneration": 1, "expectedPods": 1, "currentHealthy": 1,
                       "desiredHealthy": 1 - max_unavailable if max_unavailable < 1 else 0,
                       "disruptionsAllowed": allowed}}


def write(name, header, objects, types, expectations, extra_types=()):
    """`expectations`: version -> (source, expect)."""
    docs = [{"apiVersion": "kubectl-consolidation/v1alpha1", "kind": "SnapshotInfo", "capturedAt": NOW},
            instance_types(types, extra_types), {"apiVersion": "v1", "kind": "List", "items": objects}]
    text = "".join(f"# {line}\n" for line in header) + "".join(
        "---\n" + yaml.safe_dump(d, sort_keys=False, default_flow_style=False) for d in docs)
    write_folders(name, text, expectations)


def write_folders(name, text, expectations):
    """One folder per version: the same snapshot text, that version's expectation."""
    for version, (source, expect) in expectations.items():
        folder = f"tests/scenarios/own-version-{name}-v{version}"
        os.makedirs(folder, exist_ok=True)
        with open(f"{folder}/snapshot.yaml", "w") as f:
            f.write(text)
        spec = {"source": source, "args": ["--karpenter-version", version, "plan"], "expect": expect}
        with open(f"{folder}/expect.json", "w") as f:
            f.write(json.dumps(spec, indent=1) + "\n")


K = "kubernetes-sigs/karpenter"

# #2180: one pool, budget 1 node per reason; node-d drifted with a pod, node-e empty.
write("method-order", ["own-version-method-order: #2180 Emptiness before Drift (v1.5.0)",
                       "node-d is drifted and holds a pod; node-e is empty; the budget allows 1 node"],
      [node_pool("default", budget="1")] + node("node-d", "m5.xlarge", drifted=True) + node("node-e", "m5.xlarge")
      + [pod("web-1", "node-d")],
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.4.2": (f"{K}@v1.4.2 pkg/controllers/disruption/controller.go:84 NewController (its methods list; NewMethods from v1.7) lists Drift before Emptiness; "
                 "drift.go ComputeCommand simulates the first non-empty drifted candidate: its pod fits on node-e, so Drift deletes node-d "
                 "and the round stops at the first method with a command",
                 {"method": "Drift", "commands": [{"method": "Drift", "decision": "delete", "candidates": ["node-d"]}]}),
       "1.5.0": (f"{K}@v1.5.0 pkg/controllers/disruption/controller.go:85 NewController lists Emptiness first (#2180); "
                 "emptiness.go ComputeCommand deletes the empty consolidatable node-e and the round stops there",
                 {"method": "Emptiness", "commands": [{"method": "Emptiness", "decision": "delete", "candidates": ["node-e"]}]})})

# #2874: node-a's only pod has do-not-disrupt "2h" and started 30 min ago; node-b is held by "true".
STARTED = "2026-11-29T09:30:00Z"
write("do-not-disrupt-duration", ["own-version-do-not-disrupt-duration: #2874 duration-valued do-not-disrupt (v1.12.0)",
                                  "node-a's pod has karpenter.sh/do-not-disrupt: 2h, started 30 min ago; node-b is held by \"true\""],
      [node_pool("default")] + node("node-a", "m5.xlarge") + node("node-b", "m5.xlarge")
      + [pod("web-a", "node-a", annotations={"karpenter.sh/do-not-disrupt": "2h"}, started=STARTED),
         pod("web-b", "node-b", annotations={"karpenter.sh/do-not-disrupt": "true"})],
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.11.2": (f"{K}@v1.11.2 pkg/utils/pod/scheduling.go:185 HasDoNotDisrupt counts only \"true\", so "
                  "pkg/controllers/state/statenode.go ValidatePodsDisruptable lets node-a through; its pod fits on node-b and "
                  "singlenodeconsolidation.go ComputeCommands deletes node-a (node-b is held by its \"true\" pod)",
                  {"commands": [{"decision": "delete", "candidates": ["node-a"]}],
                   "nodes": {"node-a": {"action": "delete"}, "node-b": {"verdict": "Blocked", "blockersInclude": ["DoNotDisruptPod"]}}}),
       "1.12.0": (f"{K}@v1.12.0 pkg/utils/pod/scheduling.go:206 IsDoNotDisruptActive: \"2h\" from startTime 09:30 holds until 11:30 (#2874); "
                  "statenode.go ValidatePodsDisruptable blocks node-a, node-b is held by \"true\": no command",
                  {"commands": [],
                   "nodes": {"node-a": {"verdict": "Blocked", "blockersInclude": ["DoNotDisruptPod"]},
                             "node-b": {"verdict": "Blocked", "blockersInclude": ["DoNotDisruptPod"]}}})})

# #3006: node-a (the cheapest type, one pod) could move to node-b, whose last pod event was 2 min ago.
write("destination-consolidate-after", ["own-version-destination-consolidate-after: #3006 consolidateAfter blocks destinations (v1.14.0)",
                                        "pool consolidateAfter 10m; node-a (m5.small) quiet for 2h; node-b had a pod event 2 min ago and has room"],
      [node_pool("default", consolidate_after="10m")]
      + node("node-a", "m5.small")
      + node("node-b", "m5.xlarge", consolidatable=False, last_pod_event="2026-11-29T09:58:00Z")
      + [pod("web-a", "node-a", cpu="600m"), pod("web-b", "node-b")],
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.13.0": (f"{K}@v1.13.0 pkg/controllers/disruption/helpers.go SimulateScheduling: no consolidateAfter filter on destinations, "
                  "so node-a's pod fits on node-b and singlenodeconsolidation.go ComputeCommands deletes node-a; node-b is not Consolidatable yet",
                  {"commands": [{"decision": "delete", "candidates": ["node-a"]}],
                   "nodes": {"node-a": {"action": "delete"}, "node-b": {"blockersInclude": ["NotConsolidatableYet"]}}}),
       "1.14.0": (f"{K}@v1.14.0 pkg/utils/disruption/disruption.go:79 IsUnderConsolidateAfter and "
                  "pkg/controllers/provisioning/scheduling/scheduler.go addToExistingNode (#3006): node-b takes no moved pod; "
                  "node-a is already the cheapest type, so consolidation.go computeConsolidation finds nothing cheaper",
                  {"commands": [],
                   "nodes": {"node-a": {"action": "none", "reasonsInclude": ["NotCheaper"]},
                             "node-b": {"blockersInclude": ["NotConsolidatableYet"]}}})})

# #2962: node-a $2.00/h with 10 pods, node-b $0.20/h-class with 1 pod, node-c holds room; 1 node per round.
write("candidate-order", ["own-version-candidate-order: #2962 candidates by savings ratio (v1.14.0)",
                          "node-a m5.4xlarge ($2.00/h) with 10 pods, node-b m5.large ($0.096/h) with 1 pod, node-c held by do-not-disrupt with room; budget 1"],
      [node_pool("default", budget="1")]
      + node("node-a", "m5.4xlarge") + node("node-b", "m5.large") + node("node-c", "m5.4xlarge")
      + [pod(f"a-{i}", "node-a", cpu="100m") for i in range(10)]
      + [pod("b-0", "node-b", cpu="100m"), pod("c-0", "node-c", annotations={"karpenter.sh/do-not-disrupt": "true"})],
      ["m5.small", "m5.large", "m5.xlarge", "m5.4xlarge"],
      {"1.13.0": (f"{K}@v1.13.0 pkg/controllers/disruption/consolidation.go:126 sortCandidates: DisruptionCost ascending "
                  "(types.go NewCandidate: ReschedulingCost × LifetimeRemaining = 10 for node-a, 1 for node-b); the budget of 1 leaves "
                  "multinodeconsolidation.go one candidate (< 2: nothing), and singlenodeconsolidation.go deletes the first that works: node-b",
                  {"method": "SingleNodeConsolidation", "commands": [{"decision": "delete", "candidates": ["node-b"]}]}),
       "1.14.0": (f"{K}@v1.14.0 pkg/controllers/disruption/consolidation.go:149 sortCandidates by SavingsRatio descending (#2962; "
                  "types.go SavingsRatio = price / (1 + Σ eviction cost): node-a 2.00/11 = 0.18, node-b 0.096/2 = 0.048): "
                  "singlenodeconsolidation.go deletes node-a first, its pods fit on node-c",
                  {"method": "SingleNodeConsolidation", "commands": [{"decision": "delete", "candidates": ["node-a"]}]})})

# #2379: node-a's one pod is selected by two PDBs that both allow a disruption; node-b has room.
write("multiple-pdbs", ["own-version-multiple-pdbs: #2379 a pod under several PDBs blocks its node (v1.7.0)",
                        "node-a's pod web-a is selected by PDBs web-1 and web-2, each allowing 1 disruption; node-b has room"],
      [node_pool("default")] + node("node-a", "m5.xlarge") + node("node-b", "m5.xlarge")
      + [pod("web-a", "node-a", labels={"app": "web"}),
         pod("web-b", "node-b", annotations={"karpenter.sh/do-not-disrupt": "true"}),
         pdb("web-1", "web", 1), pdb("web-2", "web", 1)],
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.6.4": (f"{K}@v1.6.4 pkg/utils/pdb/pdb.go:86 Limits.isEvictable walks the PDBs one by one and blocks only on one "
                 "with disruptionsAllowed 0: both allow 1, so pkg/controllers/state/statenode.go:246 ValidatePodsDisruptable "
                 "lets node-a through; its pod fits on node-b and singlenodeconsolidation.go ComputeCommands deletes node-a",
                 {"commands": [{"decision": "delete", "candidates": ["node-a"]}],
                  "nodes": {"node-a": {"action": "delete"}}}),
       "1.7.0": (f"{K}@v1.7.0 pkg/utils/pdb/pdb.go:99 Limits.isEvictable refuses a pod matched by more than one PDB (#2379); "
                 "statenode.go:248 ValidatePodsDisruptable: \"eviction does not support multiple PDBs\"; test suite_test.go "
                 "\"Candidate Filtering > should not consider candidates that have multiple PDBs on the same pod\": no command",
                 {"commands": [],
                  "nodes": {"node-a": {"verdict": "Blocked", "blockersInclude": ["MultiplePDBs"]}}})})

# #2526: a pool lowered to limits.nodes 1 still runs 2 nodes; node-a's pod needs new capacity.
write("node-limits", ["own-version-node-limits: #2526 limits.nodes in the simulation (v1.11.0)",
                      "pool limits nodes: 1 with 2 nodes; node-a (m5.xlarge) has a 1500m pod that fits only a new m5.large; node-b is full and held"],
      [node_pool("default", limits={"nodes": "1"})] + node("node-a", "m5.xlarge") + node("node-b", "m5.xlarge")
      + [pod("web-a", "node-a", cpu="1500m"),
         pod("web-b", "node-b", cpu="3", annotations={"karpenter.sh/do-not-disrupt": "true"})],
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.10.1": (f"{K}@v1.10.1 pkg/controllers/provisioning/scheduling/scheduler.go:854 filterByRemainingResources compares each "
                  "limit with an instance type's capacity, which has no `nodes`, and addToNewNodeClaim has no node check: the "
                  "replacement m5.large opens and consolidation.go computeConsolidation replaces node-a (cheaper)",
                  {"commands": [{"decision": "replace", "candidates": ["node-a"]}],
                   "nodes": {"node-a": {"action": "replace"}}}),
       "1.11.0": (f"{K}@v1.11.0 pkg/controllers/state/statenode.go:364 Capacity counts 1 node per state node and "
                  "scheduler.go:607 addToNewNodeClaim refuses a NodeClaim when `nodes` remaining is 0 (#2526): 1 − 1 (node-b; "
                  "the candidate is not counted) = 0, \"node limits have been exhausted for nodepool\", so node-a's pod cannot "
                  "move and no command starts",
                  {"commands": [],
                   "nodes": {"node-a": {"action": "none", "reasonsInclude": ["PodsCannotReschedule"]}}})})

# #2180 / #2423: a consolidateAfter: Never pool (no Emptiness, no consolidation) with two empty drifted
# nodes and one drifted node with a pod; the budget allows 2.
DRIFT_1 = "2026-11-29T08:10:00Z"
DRIFT_2 = "2026-11-29T08:20:00Z"
DRIFT_3 = "2026-11-29T08:30:00Z"
drift_empties = {
    "1.4.2": (f"{K}@v1.4.2 pkg/controllers/disruption/drift.go:59 Drift.ComputeCommand: every empty drifted candidate the "
              "budget allows goes into one command with no simulation (test drift_test.go \"Drift > Budgets > should disrupt "
              "all empty drifted nodes in parallel\"): node-e1 and node-e2 deleted together",
              {"method": "Drift", "commands": [{"method": "Drift", "decision": "delete", "candidates": ["node-e1", "node-e2"]}]}),
    "1.5.0": (f"{K}@v1.5.0 pkg/controllers/disruption/drift.go:66 Drift.ComputeCommand skips empty candidates, left to "
              "Emptiness (#2180), which emptiness.go ShouldDisrupt refuses under consolidateAfter: Never; Drift simulates node-d, "
              "whose pod fits on an empty node: Drift deletes node-d and the empty nodes stay (fixed by #2423 in v1.5.4)",
              {"method": "Drift", "commands": [{"method": "Drift", "decision": "delete", "candidates": ["node-d"]}]}),
    "1.5.4": (f"{K}@v1.5.4 pkg/controllers/disruption/drift.go:67 Drift.ComputeCommand (#2423, backport #2450): empty "
              "candidates first, oldest drift first, one per command (test \"Drift > Drift > should delete drifted nodes when "
              "they are empty and consolidation is disabled\"): node-e1",
              {"method": "Drift", "commands": [{"method": "Drift", "decision": "delete", "candidates": ["node-e1"]}]}),
    "1.6.1": (f"{K}@v1.6.1 pkg/controllers/disruption/drift.go (same blob as v1.6.0) still skips empty candidates: "
              "the 1.6 line got #2423 only at v1.6.2 (#2459); Drift deletes node-d",
              {"method": "Drift", "commands": [{"method": "Drift", "decision": "delete", "candidates": ["node-d"]}]}),
    "1.6.2": (f"{K}@v1.6.2 pkg/controllers/disruption/drift.go:66 Drift.ComputeCommand (#2459 backport of #2423): "
              "empty candidates first: node-e1",
              {"method": "Drift", "commands": [{"method": "Drift", "decision": "delete", "candidates": ["node-e1"]}]}),
}
write("drift-empties", ["own-version-drift-empties: #2180 / #2423 Drift and empty drifted nodes (v1.5.0, v1.5.4, v1.6.2, v1.7.0)",
                        "pool consolidateAfter Never, budget 2; node-e1 and node-e2 empty and drifted, node-d drifted with a pod"],
      [node_pool("default", consolidate_after="Never", budget="2")]
      + node("node-e1", "m5.xlarge", consolidatable=False, drifted=True, drifted_at=DRIFT_1)
      + node("node-e2", "m5.xlarge", consolidatable=False, drifted=True, drifted_at=DRIFT_2)
      + node("node-d", "m5.xlarge", consolidatable=False, drifted=True, drifted_at=DRIFT_3)
      + [pod("web-d", "node-d")],
      ["m5.small", "m5.large", "m5.xlarge"],
      drift_empties)

# #2962: node-a holds one pod of priority -40,000,000 (eviction cost 1 - 40e6/2^25 < 0); the Empty budget is 0.
write("empty-by-eviction-cost", ["own-version-empty-by-eviction-cost: #2962 empty = no pod with a positive eviction cost (v1.14.0)",
                                 "node-a's only pod has priority -40000000; budgets: Empty 0, others 100%; node-b has room"],
      [node_pool("default", budgets=[{"nodes": "0", "reasons": ["Empty"]}, {"nodes": "100%"}])]
      + node("node-a", "m5.xlarge") + node("node-b", "m5.xlarge")
      + [pod("batch-a", "node-a", priority=-40000000),
         pod("web-b", "node-b", annotations={"karpenter.sh/do-not-disrupt": "true"})],
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.13.0": (f"{K}@v1.13.0 pkg/controllers/disruption/emptiness.go:52 Emptiness.ShouldDisrupt wants no reschedulable pod, "
                  "so node-a is not empty; consolidation.go ShouldDisrupt has no empty check and singlenodeconsolidation.go "
                  "deletes node-a under the Underutilized budget (its pod fits on node-b)",
                  {"method": "SingleNodeConsolidation", "commands": [{"decision": "delete", "candidates": ["node-a"]}]}),
       "1.14.0": (f"{K}@v1.14.0 pkg/controllers/disruption/types.go:155 Candidate.IsEmpty (RescheduleDisruptionCost <= 1; the pod's "
                  "eviction cost is clamped below 0) makes node-a empty (#2962): emptiness.go:73 holds it under the Empty "
                  "budget of 0 and consolidation.go:127 ShouldDisrupt leaves empty candidates to Emptiness: no command",
                  {"commands": [],
                   "nodes": {"node-a": {"action": "none", "reasonsInclude": ["BudgetExhausted"]}}})})

# #2430: the pool wants 70 distinct instance types (minValues); 100 small types are cheaper than node-a.
SMALL = [{"name": f"c9.n{i:03d}", "capacity": {"cpu": "2", "memory": "8Gi", "pods": "110"},
          "offerings": [{"zone": ZONE, "capacityType": "on-demand", "price": round(0.05 + i * 0.0001, 4)}],
          "labels": {"karpenter.k8s.aws/instance-family": "c9"}} for i in range(100)]
wide_pool = node_pool("default")
wide_pool["spec"]["template"]["spec"]["requirements"].append(
    {"key": "node.kubernetes.io/instance-type", "operator": "Exists", "minValues": 70})
write("max-instance-types", ["own-version-max-instance-types: #2430 MaxInstanceTypes 60 -> 600 (v1.7.0)",
                             "pool instance-type minValues 70; 100 two-CPU types cheaper than node-a (m5.xlarge); node-a's 1500m pod needs a new node"],
      [wide_pool] + node("node-a", "m5.xlarge") + node("node-b", "m5.xlarge")
      + [pod("web-a", "node-a", cpu="1500m"),
         pod("web-b", "node-b", cpu="3", annotations={"karpenter.sh/do-not-disrupt": "true"})],
      ["m5.xlarge"],
      {"1.6.4": (f"{K}@v1.6.4 pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go:40 MaxInstanceTypes = 60; "
                 "pkg/controllers/disruption/helpers.go:119 SimulateScheduling calls scheduler.go:325 Results.TruncateInstanceTypes, "
                 "whose InstanceTypes.Truncate keeps the 60 cheapest and fails minValues 70: node-a's pod cannot schedule, no command",
                 {"commands": [],
                  "nodes": {"node-a": {"action": "none", "reasonsInclude": ["PodsCannotReschedule"]}}}),
       "1.7.0": (f"{K}@v1.7.0 pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go:41 MaxInstanceTypes = 600 (#2430): "
                 "the 100 types satisfy minValues 70 and consolidation.go computeConsolidation replaces node-a with a cheaper one",
                 {"commands": [{"decision": "replace", "candidates": ["node-a"]}],
                  "nodes": {"node-a": {"action": "replace"}}})},
      extra_types=SMALL)

# #2035: pools alpha (a1, a2) and beta (b1); a1's pod is pinned to a1 by hostname; node-h has room for a2's or b1's pods.
pinned = pod("pinned-a1", "node-a1")
pinned["spec"]["nodeSelector"] = {"kubernetes.io/hostname": "node-a1"}
write("single-node-order", ["own-version-single-node-order: #2035 SingleNodeConsolidation interleaves NodePools (v1.4.0)",
                            "pool alpha: node-a1 (1 pod pinned to it by hostname), node-a2 (2 pods); pool beta: node-b1 (3 pods); "
                            "node-h (pool hold, do-not-disrupt) has room for all; every node m5.xlarge"],
      [node_pool("alpha"), node_pool("beta"), node_pool("hold")]
      + node("node-a1", "m5.xlarge", pool="alpha") + node("node-a2", "m5.xlarge", pool="alpha")
      + node("node-b1", "m5.xlarge", pool="beta") + node("node-h", "m5.4xlarge", pool="hold")
      + [pinned, pod("a2-0", "node-a2"), pod("a2-1", "node-a2"),
         pod("b1-0", "node-b1"), pod("b1-1", "node-b1"), pod("b1-2", "node-b1"),
         pod("h-0", "node-h", annotations={"karpenter.sh/do-not-disrupt": "true"})],
      ["m5.small", "m5.large", "m5.xlarge", "m5.4xlarge"],
      {"1.3.5": (f"{K}@v1.3.5 pkg/controllers/disruption/consolidation.go:123 sortCandidates orders one list by "
                 "disruptionCost (node-a1 1, node-a2 2, node-b1 3: one eviction each, expireAfter Never); "
                 "multinodeconsolidation.go:110 firstNConsolidationOption fails on every prefix, all of which hold node-a1, whose "
                 "pod no other node and no new NodeClaim can take (provisioning/scheduling/nodeclaim.go:96 NewNodeClaim adds a "
                 "hostname-placeholder requirement); singlenodeconsolidation.go:48 ComputeCommand walks that list: node-a1 fails, "
                 "node-a2's pods fit on node-h and it is deleted",
                 {"method": "SingleNodeConsolidation", "commands": [{"decision": "delete", "candidates": ["node-a2"]}]}),
       "1.4.0": (f"{K}@v1.4.0 pkg/controllers/disruption/singlenodeconsolidation.go:138 SortCandidates groups the sorted "
                 "candidates by NodePool and :148 shuffleCandidates takes the i-th of each pool in turn (#2035): whichever of alpha "
                 "and beta goes first (map order), node-b1 comes before node-a2; node-a1 fails as before and node-b1 is deleted "
                 "(its pods fit on node-h)",
                 {"method": "SingleNodeConsolidation", "commands": [{"decision": "delete", "candidates": ["node-b1"]}]})})

# #2384 / #3124: node-a's one pod asks for a DRA device; node-b (held) has room for it.
def dra_pod(name, node_name, by_container):
    p = pod(name, node_name)
    p["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": "gpu-template"}]
    if by_container:
        p["spec"]["containers"][0]["resources"]["claims"] = [{"name": "gpu"}]
    return p


def dra_cluster(by_container):
    return ([node_pool("default")] + node("node-a", "m5.xlarge") + node("node-b", "m5.xlarge")
            + [dra_pod("gpu-a", "node-a", by_container),
               pod("web-b", "node-b", annotations={"karpenter.sh/do-not-disrupt": "true"})])


NOT_PLACED = {"commands": [], "nodes": {"node-a": {"action": "none", "reasonsInclude": ["PodsCannotReschedule"]}}}
MOVED = {"method": "SingleNodeConsolidation", "commands": [{"decision": "delete", "candidates": ["node-a"]}]}
write("dra-container-claims", ["own-version-dra-container-claims: #2384 a pod asking for DRA devices is never placed (v1.7.0)",
                               "node-a's pod gpu-a has a container resources.claims entry (and the pod's resourceClaims); node-b is held and has room"],
      dra_cluster(True), ["m5.small", "m5.large", "m5.xlarge"],
      {"1.6.4": (f"{K}@v1.6.4 pkg/controllers/provisioning/scheduling/scheduler.go (Scheduler.add has no DRA check; "
                 "pkg/utils/pod/scheduling.go has no HasDRARequirements): gpu-a is scheduled like any pod, onto node-b, and "
                 "singlenodeconsolidation.go deletes node-a", MOVED),
       "1.7.0": (f"{K}@v1.7.0 pkg/controllers/provisioning/scheduling/scheduler.go:488 Scheduler.add returns a DRAError for a pod "
                 "with pkg/utils/pod/scheduling.go:212 HasDRARequirements (a container's resources.claims) while IGNORE_DRA_REQUESTS "
                 "(default true) is on (#2384); test suite_test.go \"Scheduling > Dynamic Resource Allocation (DRA) > should handle DRA "
                 "pods correctly\" (container with resource claims): gpu-a cannot be rescheduled, no command", NOT_PLACED)})
write("dra-pod-level-claims", ["own-version-dra-pod-level-claims: #3124 pod-level resourceClaims make a DRA pod (v1.14.0)",
                               "node-a's pod gpu-a has only a pod-level resourceClaims entry (no container names it); node-b is held and has room"],
      dra_cluster(False), ["m5.small", "m5.large", "m5.xlarge"],
      {"1.13.0": (f"{K}@v1.13.0 pkg/utils/pod/scheduling.go:270 HasDRARequirements reads only init containers' and containers' "
                  "resources.claims: gpu-a is no DRA pod, it is scheduled onto node-b and singlenodeconsolidation.go deletes node-a", MOVED),
       "1.14.0": (f"{K}@v1.14.0 pkg/utils/pod/scheduling.go:275 HasDRARequirements also counts pod.Spec.ResourceClaims (#3124); "
                  "scheduler.go Scheduler.add returns the DRAError under IGNORE_DRA_REQUESTS (default true): no command", NOT_PLACED)})
# #1735: node-a's instance is terminating (NodeClaim deleting, InstanceTerminating=True); node-b is
# empty; the budget is 50%.
gone_node, gone_claim = node("node-a", "m5.xlarge")
gone_claim["metadata"]["deletionTimestamp"] = "2026-11-29T09:55:00Z"
gone_claim["metadata"]["finalizers"] = ["karpenter.sh/termination"]
gone_claim["status"]["conditions"].append(cond("InstanceTerminating", at="2026-11-29T09:58:00Z"))
write("budget-terminating", ["own-version-budget-terminating: #1735 InstanceTerminating NodeClaims leave the budget (v1.0.4, v1.1.0)",
                             "budget 50%; node-a's NodeClaim is deleting with InstanceTerminating=True; node-b is empty"],
      [node_pool("default", budget="50%"), gone_node, gone_claim] + node("node-b", "m5.xlarge"),
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.0.3": (f"{K}@v1.0.3 pkg/controllers/disruption/helpers.go:199 BuildDisruptionBudgets counts every managed, initialized "
                 "node: 2 nodes, 50% rounds up to 1, and node-a is disrupting (statenode.go:408 MarkedForDeletion: the NodeClaim "
                 "has a deletionTimestamp), so 1 − 1 = 0 disruptions are allowed and emptiness.go leaves node-b: no command",
                 {"commands": [],
                  "nodes": {"node-b": {"action": "none", "reasonsInclude": ["BudgetExhausted"]}}}),
       "1.0.4": (f"{K}@v1.0.4 pkg/controllers/disruption/helpers.go:218 BuildDisruptionBudgets skips a NodeClaim with "
                 "InstanceTerminating=True (#1735, backport #1736; test suite_test.go:670 \"should not consider nodes that have "
                 "the terminating status condition as part of disruption count\"): 1 node, 50% rounds up to 1, none disrupting, "
                 "so emptiness.go deletes node-b",
                 {"method": "Emptiness", "commands": [{"method": "Emptiness", "decision": "delete", "candidates": ["node-b"]}]})})

# #2033: node-a is drifted, its NodeClaim has terminationGracePeriod 1h (eventual disruption), and
# its only pod is under a PDB with maxUnavailable 0; no other node.
held_node, held_claim = node("node-a", "m5.xlarge", consolidatable=False, drifted=True)
held_claim["spec"]["terminationGracePeriod"] = "1h"
# (tag, backport) -> helpers.go line of the IsCurrentlyReschedulable filter, drift_test.go line of the It.
BLOCKED_AT = {"v1.0.7": ("backport #2210", 85, 576), "v1.1.3": ("backport #2211", 83, 578), "v1.3.3": ("backport #2213", 83, 578),
              "v1.4.0": ("first minor", 85, 578)}
# tag -> helpers.go line appending every reschedulable pod, drift_test.go line of the It before #2033.
SIMULATED_AT = {"v1.0.6": (81, 576), "v1.1.2": (79, 578), "v1.3.2": (79, 578)}


def blocked(tag):
    how, helpers, test = BLOCKED_AT[tag]
    return (f"{K}@{tag} pkg/controllers/disruption/helpers.go:{helpers} SimulateScheduling keeps only the pods "
            f"pkg/utils/pdb/pdb.go:127 Limits.IsCurrentlyReschedulable lets go (#2033, {how}): db-a is fully blocked "
            "(maxUnavailable 0, pdb.go:161 isFullyBlocking), so nothing needs a place and drift.go ComputeCommand deletes "
            f"node-a without a replacement (test drift_test.go:{test} \"Drift > Drift > should not create replacements for "
            "drifted nodes that have pods with the blocking PDBs when the NodePool's TerminationGracePeriod is not nil\")",
            {"method": "Drift", "commands": [{"method": "Drift", "decision": "delete", "candidates": ["node-a"]}]})


def simulated(tag):
    helpers, test = SIMULATED_AT[tag]
    return (f"{K}@{tag} pkg/controllers/disruption/helpers.go:{helpers} SimulateScheduling appends every reschedulable pod "
            "of the candidate: types.go NewCandidate lets node-a through (eventual Drift with terminationGracePeriod), db-a "
            f"needs a new node and drift.go ComputeCommand replaces node-a (test drift_test.go:{test} \"Drift > Drift > should "
            "drift nodes that have pods with the blocking PDBs when the NodePool's TerminationGracePeriod is not nil\": a "
            "replacement is created)",
            {"method": "Drift", "commands": [{"method": "Drift", "decision": "replace", "candidates": ["node-a"]}]})


write("fully-blocked-pods", ["own-version-fully-blocked-pods: #2033 the simulation leaves fully blocked pods (v1.4.0; v1.0.7, v1.1.3, v1.2.3, v1.3.3)",
                             "node-a is drifted with terminationGracePeriod 1h; its pod db-a is under a PDB maxUnavailable 0; no other node"],
      [node_pool("default"), held_node, held_claim, pod("db-a", "node-a", labels={"app": "db"}),
       pdb("db", "db", 0, max_unavailable=0)],
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.0.6": simulated("v1.0.6"), "1.0.7": blocked("v1.0.7"), "1.1.2": simulated("v1.1.2"),
       "1.1.3": blocked("v1.1.3"), "1.3.2": simulated("v1.3.2"), "1.3.3": blocked("v1.3.3"), "1.4.0": blocked("v1.4.0")})

# #3238 (#3217): a Balanced, on-demand-only pool; node-a ($0.50/h) holds 3 pods that only a new
# r9.dest fits, whose offerings are spot $0.10/h and on-demand $0.40/h; node-b is full and held.
balanced_pool = node_pool("default")
balanced_pool["spec"]["disruption"]["consolidationPolicy"] = "Balanced"
DEST = [{"name": "r9.dest", "capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
         "offerings": [{"zone": ZONE, "capacityType": "spot", "price": 0.10},
                       {"zone": ZONE, "capacityType": "on-demand", "price": 0.40}],
         "labels": {"karpenter.k8s.aws/instance-family": "m5"}}]
SCORE = ("balanced.go:47 computeNodePoolTotals: total cost $1.00/h (node-a and node-b, the cost tracker), total "
         "disruption cost 6 (node-a 1 + 3 pods, node-b 1 + 1 pod; types.go:136 RescheduleDisruptionCost, expireAfter Never); "
         "node-a's move disrupts 4/6 = 66.7 %, and balanced.go:108 ScoreMove approves when savings/1.00 ÷ 0.667 >= 1/k = 0.5 "
         "(nodepool.go BalancedK = 2); multinodeconsolidation.go:119 firstNConsolidationOption needs 2 candidates, so "
         "singlenodeconsolidation.go decides")
write("estimated-savings", ["own-version-estimated-savings: #3238 EstimatedSavings prices only offerings the NodeClaim allows (v1.14.1)",
                            "Balanced on-demand-only pool; node-a r9.source ($0.50/h) with 3 pods needs a new r9.dest (spot $0.10/h, on-demand $0.40/h); node-b is full and held"],
      [balanced_pool] + node("node-a", "r9.source") + node("node-b", "r9.source")
      + [pod(f"a-{i}", "node-a") for i in range(3)]
      + [pod("b-0", "node-b", cpu="3900m", annotations={"karpenter.sh/do-not-disrupt": "true"})],
      ["r9.source"],
      {"1.14.0": (f"{K}@v1.14.0 pkg/controllers/disruption/types.go:360 Command.EstimatedSavings prices the replacement at the "
                  "cheapest Available() offering of its first type, the spot $0.10/h the NodeClaim cannot launch: savings "
                  f"$0.40/h, score 0.40 ÷ 0.667 = 0.60; {SCORE}: node-a is replaced",
                  {"method": "SingleNodeConsolidation", "commands": [{"decision": "replace", "candidates": ["node-a"]}]}),
       "1.14.1": (f"{K}@v1.14.1 pkg/controllers/disruption/types.go:363 Command.EstimatedSavings keeps the offerings "
                  "Compatible(nodeClaim.Requirements) (#3238, carrying #3217; test balanced_scoring_test.go:473 \"Balanced "
                  "Scoring > ScoreMove (SavingsRatio) > should REJECT a move when EstimatedSavings excludes spot offerings for "
                  "an on-demand-only NodePool\"): the on-demand $0.40/h, savings $0.10/h, score 0.10 ÷ 0.667 = 0.15; "
                  f"{SCORE}: rejected, no command",
                  {"commands": [],
                   "nodes": {"node-a": {"action": "none", "reasonsInclude": ["BalancedScoreTooLow"]}}})},
      extra_types=DEST)

# #2962: a WhenEmpty pool's node with a pod: consolidation refuses it in the version's words.
when_empty_pool = node_pool("batch")
when_empty_pool["spec"]["disruption"]["consolidationPolicy"] = "WhenEmpty"
OLD_WORDING = ("NodePool \"batch\" has non-empty consolidation disabled (v1.13.0's wording; the policy is named by the rule "
               "of #2962 (pkg/controllers/disruption/consolidation.go consolidation.ShouldDisrupt), active since v1.14.0)")
write("when-empty-message", ["own-version-when-empty-message: #2962 the WhenEmpty refusal names the policy (v1.14.0)",
                             "pool batch is WhenEmpty; node-a holds one pod, node-b has room"],
      [when_empty_pool] + node("node-a", "m5.xlarge", pool="batch") + node("node-b", "m5.xlarge", pool="batch")
      + [pod("job-a", "node-a"), pod("job-b", "node-b", annotations={"karpenter.sh/do-not-disrupt": "true"})],
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.13.0": (f"{K}@v1.13.0 pkg/controllers/disruption/consolidation.go:118 consolidation.ShouldDisrupt: a policy other "
                  "than WhenEmptyOrUnderutilized is Unconsolidatable \"NodePool %q has non-empty consolidation disabled\"; "
                  "emptiness.go ShouldDisrupt wants an empty node: no command",
                  {"commands": [],
                   "nodes": {"node-a": {"action": "none",
                                        "reasonsInclude": [{"code": "PolicyWhenEmpty", "message": OLD_WORDING}]}}}),
       "1.14.0": (f"{K}@v1.14.0 pkg/controllers/disruption/consolidation.go:132 consolidation.ShouldDisrupt (#2962): after "
                  "the IsEmpty check, WhenEmpty is Unconsolidatable \"NodePool %q has consolidation policy WhenEmpty, but "
                  "node is not empty\": no command",
                  {"commands": [],
                   "nodes": {"node-a": {"action": "none", "reasonsInclude": [
                       {"code": "PolicyWhenEmpty",
                        "message": "NodePool \"batch\" has consolidation policy WhenEmpty, but node is not empty"}]}}})})

# #2812: node-a's type c5.xlarge is no longer offered in node-a's zone (only us-east-1b); its
# 1500m pod needs a new node. node-b's pod fits on node-h (held).
GONE = [{"name": "c5.xlarge", "capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
         "offerings": [{"zone": "us-east-1b", "capacityType": "on-demand", "price": 0.25}],
         "labels": {"karpenter.k8s.aws/instance-family": "c5"}}]
UNPRICED_SETUP = ("node-a (c5.xlarge, its us-east-1a offering gone) holds a 1500m pod that neither node-b (m5.large, 1000m "
                  "free) nor node-h (1200m free) can take; node-b's 1000m pod fits on node-h")
write("unpriced-candidate", ["own-version-unpriced-candidate: #2812 a candidate with no compatible offering is priced 0 (v1.9.0)",
                             UNPRICED_SETUP],
      [node_pool("default")] + node("node-a", "c5.xlarge") + node("node-b", "m5.large") + node("node-h", "m5.xlarge")
      + [pod("web-a", "node-a", cpu="1500m"), pod("web-b", "node-b", cpu="1000m"),
         pod("hold-h", "node-h", cpu="2800m", annotations={"karpenter.sh/do-not-disrupt": "true"})],
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.8.3": (f"{K}@v1.8.3 pkg/controllers/disruption/multinodeconsolidation.go:135 firstNConsolidationOption tries both "
                 "candidates (min 1, max 1): node-a's pod needs one new NodeClaim, so consolidation.go computeConsolidation "
                 "prices the candidates and consolidation.go:314 getCandidatePrices finds no offering of c5.xlarge compatible "
                 "with node-a's labels (zone us-east-1a, on-demand, not reserved): \"unable to determine offering\"; the "
                 "error is returned (multinodeconsolidation.go:148) and controller.go:167 Reconcile ends the round with it, "
                 "so singlenodeconsolidation.go never runs: no command",
                 {"commands": []}),
       "1.9.0": (f"{K}@v1.9.0 pkg/controllers/disruption/consolidation.go:319 getCandidatePrices prices the command at 0 "
                 "when a candidate has no compatible offering (#2812): the two-node move finds nothing cheaper than 0 and "
                 "singlenodeconsolidation.go goes on: node-a is not cheaper to replace, node-b's pod fits on node-h, "
                 "so node-b is deleted",
                 {"method": "SingleNodeConsolidation", "commands": [{"decision": "delete", "candidates": ["node-b"]}]})},
      extra_types=GONE)

# #2962: the same vanished offering, now with node-b (m5.xlarge, $0.192/h) beside node-a; node-a's
# 600m pod and node-b's two 300m pods fit one new m5.large ($0.096/h); node-h is full.
write("candidate-price", ["own-version-candidate-price: #2962 each candidate carries its own price (v1.14.0)",
                          "node-a (c5.xlarge, its us-east-1a offering gone) holds a 600m pod, node-b (m5.xlarge) two 300m pods; node-h is full"],
      [node_pool("default")] + node("node-a", "c5.xlarge") + node("node-b", "m5.xlarge") + node("node-h", "m5.xlarge")
      + [pod("web-a", "node-a", cpu="600m"), pod("web-b1", "node-b", cpu="300m"), pod("web-b2", "node-b", cpu="300m"),
         pod("hold-h", "node-h", cpu="3900m", annotations={"karpenter.sh/do-not-disrupt": "true"})],
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.13.0": (f"{K}@v1.13.0 pkg/controllers/disruption/multinodeconsolidation.go:137 firstNConsolidationOption tries both "
                  "candidates: the three pods need one new node and consolidation.go:319 getCandidatePrices prices the "
                  "command at 0, since node-a has no offering compatible with its labels, so nothing is cheaper (\"Can't "
                  "replace with a cheaper node\"); singlenodeconsolidation.go then takes the lowest disruption cost first "
                  "(consolidation.go sortCandidates: node-a, 1 pod) and its pod fits on node-b: node-a is deleted, no price needed",
                  {"method": "SingleNodeConsolidation", "commands": [{"decision": "delete", "candidates": ["node-a"]}]}),
       "1.14.0": (f"{K}@v1.14.0 pkg/controllers/disruption/types.go:116 resolveNodePrice gives node-a 0 and node-b $0.192/h "
                  "(#2962), and consolidation.go:199 sums them (balanced.go:185 sumCandidatePrices): the three pods fit one "
                  "m5.large at $0.096/h < $0.192/h, so multinodeconsolidation.go replaces both",
                  {"method": "MultiNodeConsolidation",
                   "commands": [{"decision": "replace", "candidates": ["node-a", "node-b"]}]})},
      extra_types=GONE)

# #2383: node-a's pod asks for 2 CPUs at pod level (spec.resources), its container for 100m;
# node-b (held) has 1500m free.
sized = pod("batch-a", "node-a", cpu="100m")
sized["spec"]["resources"] = {"requests": {"cpu": "2", "memory": "1Gi"}}
write("pod-level-resources", ["own-version-pod-level-resources: #2383 pod-level spec.resources count (v1.8.0)",
                              "node-a's pod batch-a: spec.resources.requests cpu 2, its container 100m; node-b is held with 1500m free"],
      [node_pool("default")] + node("node-a", "m5.xlarge") + node("node-b", "m5.xlarge")
      + [sized, pod("web-b", "node-b", cpu="2500m", annotations={"karpenter.sh/do-not-disrupt": "true"})],
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.7.2": (f"{K}@v1.7.2 pkg/utils/resources/resources.go:114 podRequests sums the containers (limits filling missing "
                 "requests) and ignores spec.resources: batch-a needs 100m, fits on node-b, and singlenodeconsolidation.go "
                 "deletes node-a",
                 {"method": "SingleNodeConsolidation", "commands": [{"decision": "delete", "candidates": ["node-a"]}]}),
       "1.8.0": (f"{K}@v1.8.0 pkg/utils/resources/resources.go:113 Ceiling calls k8s.io/component-helpers/resource PodRequests "
                 "(#2383), where pod-level cpu and memory requests replace the containers' sum: batch-a needs 2 CPUs, node-b "
                 "has 1500m, and consolidation.go computeConsolidation replaces node-a with an m5.large ($0.096/h < $0.192/h)",
                 {"method": "SingleNodeConsolidation", "commands": [{"decision": "replace", "candidates": ["node-a"]}]})})

# #1787: node-a is empty, of a type the provider no longer lists; node-b lacks the zone label and
# its pod would fit on node-h (held).
retired = node("node-a", "m5.large")
retired[0]["metadata"]["labels"]["node.kubernetes.io/instance-type"] = "m4.retired"
zoneless = node("node-b", "m5.large")
del zoneless[0]["metadata"]["labels"]["topology.kubernetes.io/zone"]
write("price-labels", ["own-version-price-labels: #1787 only consolidation needs the price labels and a known type (v1.1.0)",
                       "node-a is empty and labelled with a type the provider does not list (m4.retired); node-b has no "
                       "zone label and a 500m pod that node-h (held, 1500m free) could take"],
      [node_pool("default")] + retired + zoneless + node("node-h", "m5.xlarge")
      + [pod("web-b", "node-b"), pod("hold-h", "node-h", cpu="2500m", annotations={"karpenter.sh/do-not-disrupt": "true"})],
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.0.9": (f"{K}@v1.0.9 pkg/controllers/disruption/types.go:94 NewCandidate publishes Blocked \"Instance Type %q not "
                 "found\" for node-a, and pkg/controllers/state/statenode.go:216 ValidateNodeDisruptable refuses node-b "
                 "(\"state node doesn't have required label %q\", topology.kubernetes.io/zone): neither is a candidate of "
                 "any method (suite_test.go:1691 and :1729, Candidate Filtering): no command",
                 {"commands": [],
                  "nodes": {"node-a": {"verdict": "Blocked", "action": "none", "reasonsInclude": [
                                {"code": "InstanceTypeUnknown", "message": "Instance Type \"m4.retired\" not found"}]},
                            "node-b": {"verdict": "Blocked", "action": "none", "reasonsInclude": [
                                {"code": "MissingLabels",
                                 "message": "state node doesn't have required label \"topology.kubernetes.io/zone\""}]}}}),
       "1.1.0": (f"{K}@v1.1.0 pkg/controllers/state/statenode.go:197 ValidateNodeDisruptable requires only the nodepool "
                 "label and types.go:94 NewCandidate keeps a nil instance type (#1787; suite_test.go:1697 and :1731 "
                 "\"should consider candidates …\"); consolidation.go:102 ShouldDisrupt refuses node-b (\"Node does not "
                 "have label %q\"), while emptiness.go:51 ShouldDisrupt takes node-a, empty and Consolidatable: "
                 "Emptiness deletes node-a",
                 {"method": "Emptiness", "commands": [{"decision": "delete", "candidates": ["node-a"]}],
                  "nodes": {"node-b": {"action": "none", "reasonsInclude": [
                      {"code": "MissingLabels", "message": "Node does not have label \"topology.kubernetes.io/zone\""}]}}})})

# #1818: pool `lab` names another provider's NodeClass kind; its node-f is empty and
# Consolidatable. node-h (pool default, held) is the provider's.
FOREIGN_CLASS = {"group": "example.com", "kind": "FooClass", "name": "default"}
lab = node_pool("lab")
lab["spec"]["template"]["spec"]["nodeClassRef"] = FOREIGN_CLASS
foreign = node("node-f", "m5.large", pool="lab")
foreign[1]["spec"]["nodeClassRef"] = FOREIGN_CLASS
write("provider-node-classes", ["own-version-provider-node-classes: #1818 only the provider's NodeClass kinds are Karpenter's (v1.1.0)",
                                "NodePool lab's nodeClassRef is example.com/FooClass; its node-f is empty; node-h (pool default) is held"],
      [node_pool("default"), lab] + foreign + node("node-h", "m5.xlarge")
      + [pod("hold-h", "node-h", cpu="2500m", annotations={"karpenter.sh/do-not-disrupt": "true"})],
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.0.9": (f"{K}@v1.0.9 pkg/controllers/disruption/helpers.go:182 BuildNodePoolMap lists every NodePool, and "
                 "aws/karpenter-provider-aws@v1.0.14 (core v1.0.9) pkg/cloudprovider/cloudprovider.go:261 "
                 "resolveNodeClassFromNodePool gets the EC2NodeClass by name alone, so lab and node-f are Karpenter's: "
                 "emptiness.go ShouldDisrupt takes the empty node-f and Emptiness deletes it",
                 {"method": "Emptiness", "commands": [{"decision": "delete", "candidates": ["node-f"]}]}),
       "1.1.0": (f"{K}@v1.1.0 pkg/utils/nodeclaim/nodeclaim.go:39 IsManaged (#1818) compares nodeClassRef's group and kind "
                 "with GetSupportedNodeClasses (aws/karpenter-provider-aws@v1.1.0 pkg/cloudprovider/cloudprovider.go:233: "
                 "EC2NodeClass): pkg/controllers/state/informer/nodeclaim.go:64 keeps node-f's NodeClaim out of cluster "
                 "state and helpers.go:166 BuildNodePoolMap lists managed pools only, so node-f is an unmanaged node, no "
                 "candidate: no command",
                 {"commands": [],
                  "nodes": {"node-f": {"action": "none", "reasonsInclude": [{"code": "NotManaged"}]}}})})

# #3065: node-a's pod web-a asks for 500m in its spec, but an in-place resize has allocated and
# actuated 2 CPUs; node-b (held) has 1500m free.
resized = pod("web-a", "node-a", cpu="500m")
resized["status"]["containerStatuses"] = [{"name": "app", "ready": True, "restartCount": 0,
                                           "allocatedResources": {"cpu": "2", "memory": "128Mi"},
                                           "resources": {"requests": {"cpu": "2", "memory": "128Mi"}}}]
write("status-resources", ["own-version-status-resources: #3065 a pod resized in place is sized by its status (v1.14.0)",
                           "node-a's pod web-a: spec cpu 500m, containerStatuses allocated and actuated cpu 2; node-b is held with 1500m free"],
      [node_pool("default")] + node("node-a", "m5.xlarge") + node("node-b", "m5.xlarge")
      + [resized, pod("web-b", "node-b", cpu="2500m", annotations={"karpenter.sh/do-not-disrupt": "true"})],
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.13.0": (f"{K}@v1.13.0 pkg/utils/resources/resources.go:113 Ceiling calls component-helpers PodRequests with no "
                  "options: web-a needs its spec's 500m, fits on node-b, and singlenodeconsolidation.go deletes node-a",
                  {"method": "SingleNodeConsolidation", "commands": [{"decision": "delete", "candidates": ["node-a"]}]}),
       "1.14.0": (f"{K}@v1.14.0 pkg/utils/resources/resources.go:115 Ceiling passes UseStatusResources (#3065), and "
                  "kubernetes/component-helpers@v0.35.0 resource/helpers.go:191 AggregateContainerRequests sizes app by "
                  ":287 determineEffectiveRequests, max(spec, actuated, allocated) = 2 CPUs: node-b has 1500m, and "
                  "consolidation.go computeConsolidation replaces node-a with an m5.large ($0.096/h < $0.192/h)",
                  {"method": "SingleNodeConsolidation", "commands": [{"decision": "replace", "candidates": ["node-a"]}]})})


def daemon_set(name, cpu, affinity):
    """A DaemonSet whose pods ask for `cpu` and need `affinity` (one required node-affinity term)."""
    template_spec = {"containers": [{"name": "agent", "image": "agent", "resources": {"requests": {"cpu": cpu}}}],
                     "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                         "nodeSelectorTerms": [{"matchExpressions": [affinity]}]}}}}
    ds = {"apiVersion": "apps/v1", "kind": "DaemonSet",
          "metadata": {"name": name, "namespace": "default", "uid": f"uid-ds-{name}"},
          "spec": {"selector": {"matchLabels": {"ds": name}},
                   "template": {"metadata": {"labels": {"ds": name}}, "spec": template_spec}}}
    return ds, template_spec


def daemon_pod(ds, template_spec, node_name):
    p = pod(f"{ds['metadata']['name']}-{node_name}", node_name, labels={"ds": ds["metadata"]["name"]})
    p["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": ds["metadata"]["name"],
                                         "uid": ds["metadata"]["uid"], "controller": True}]
    p["spec"]["containers"] = template_spec["containers"]
    p["spec"]["affinity"] = template_spec["affinity"]
    return p


def daemon_cluster(affinity):
    """node-a (m5.xlarge) runs the DaemonSet's 1500m pod and a 1200m web pod; node-h (m5.xlarge)
    the DaemonSet's pod and a held 2400m pod (100m free)."""
    ds, spec = daemon_set("agent", "1500m", affinity)
    return ([node_pool("default"), ds] + node("node-a", "m5.xlarge") + node("node-h", "m5.xlarge")
            + [daemon_pod(ds, spec, "node-a"), daemon_pod(ds, spec, "node-h"), pod("web-a", "node-a", cpu="1200m"),
               pod("hold-h", "node-h", cpu="2400m", annotations={"karpenter.sh/do-not-disrupt": "true"})])


DAEMON_SETUP = ("node-a (m5.xlarge, $0.192/h) runs DaemonSet agent's 1500m pod and web-a (1200m), which node-h (100m "
                "free) cannot take; the cheaper m5.large (2 CPUs, $0.096/h) holds web-a only without agent's overhead")

# #2975: agent is pinned to m5.xlarge.
write("daemon-overhead-per-type", ["own-version-daemon-overhead-per-type: #2975 DaemonSet overhead per instance type (v1.14.0)",
                                   "DaemonSet agent requires node.kubernetes.io/instance-type In [m5.xlarge]; " + DAEMON_SETUP],
      daemon_cluster({"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m5.xlarge"]}),
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.13.0": (f"{K}@v1.13.0 pkg/controllers/provisioning/scheduling/scheduler.go:873 getDaemonOverhead gives the "
                  "template one overhead of every DaemonSet isDaemonPodCompatible admits (:906: the template leaves the "
                  "instance type open, so agent is admitted), 1500m on every type: web-a fits no m5.large, the m5.xlarge "
                  "it fits is not cheaper (consolidation.go computeConsolidation): no command",
                  {"commands": []}),
       "1.14.0": (f"{K}@v1.14.0 pkg/controllers/provisioning/scheduling/scheduler.go:972 buildDaemonOverheadGroups "
                  "(#2975) asks :1020 isDaemonPodCompatible per instance type (it.Requirements.Intersects): agent counts "
                  "on m5.xlarge only, so web-a fits an m5.large at $0.096/h < $0.192/h and singlenodeconsolidation.go "
                  "replaces node-a",
                  {"method": "SingleNodeConsolidation", "commands": [{"decision": "replace", "candidates": ["node-a"]}]})})

# #2161: agent requires karpenter.sh/initialized.
write("template-registered-initialized",
      ["own-version-template-registered-initialized: #2161 templates carry registered and initialized (v1.14.0)",
       "DaemonSet agent requires karpenter.sh/initialized In [true]; " + DAEMON_SETUP],
      daemon_cluster({"key": "karpenter.sh/initialized", "operator": "In", "values": ["true"]}),
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.13.0": (f"{K}@v1.13.0 pkg/controllers/provisioning/scheduling/scheduler.go:906 isDaemonPodCompatible: the "
                  "template's requirements have no karpenter.sh/initialized, which is not a well-known label "
                  "(pkg/apis/v1/labels.go:71 WellKnownLabels), so agent is not counted: web-a fits an m5.large at "
                  "$0.096/h < $0.192/h and singlenodeconsolidation.go replaces node-a",
                  {"method": "SingleNodeConsolidation", "commands": [{"decision": "replace", "candidates": ["node-a"]}]}),
       "1.14.0": (f"{K}@v1.14.0 pkg/controllers/provisioning/scheduling/nodeclaimtemplate.go NewNodeClaimTemplate adds "
                  "karpenter.sh/registered and karpenter.sh/initialized In [true] (#2161; suite_test.go \"Should properly "
                  "handle DaemonSet resources with Node Affinity for karpenter.sh/initialized and karpenter.sh/registered\"): "
                  "agent's 1500m counts on every type, web-a fits no m5.large and the m5.xlarge is not cheaper: no command",
                  {"commands": []})})


def initializing(name, itype, taint):
    """A node launched by an earlier command, registered but not initialized: no
    karpenter.sh/initialized label, Initialized Unknown on its NodeClaim, not Ready, `taint` on it."""
    k8s_node, claim = node(name, itype, consolidatable=False)
    for obj in (k8s_node, claim):
        obj["metadata"]["labels"] = {k: v for k, v in obj["metadata"]["labels"].items() if k != "karpenter.sh/initialized"}
    k8s_node["spec"]["taints"] = [taint]
    k8s_node["status"]["conditions"] = [{"type": "Ready", "status": "False", "lastTransitionTime": T0}]
    claim["status"]["conditions"] = [cond("Launched"), cond("Registered"),
                                     {**cond("Initialized", status="Unknown"), "reason": "KnownEphemeralTaintsExist"},
                                     cond("Ready", status="Unknown")]
    return [k8s_node, claim]


EPHEMERAL_SETUP = ("node-a (m5.xlarge, $0.192/h) runs web-a (500m, no tolerations); node-n (m5.xlarge) was launched "
                   "by an earlier command, is registered but not initialized, and carries ")
UNINITIALIZED = (f"{K}@%s pkg/controllers/disruption/helpers.go:%d SimulateScheduling turns a pod placed on an "
                 "uninitialized node into a pod error (\"would schedule against uninitialized\"), so no command")
REPLACED = ("the taint is not a known ephemeral one, so statenode.go StateNode.Taints keeps it and web-a cannot go to "
            "node-n: it needs a new NodeClaim, and consolidation.go computeConsolidation replaces node-a with an "
            "m5.small ($0.025/h < $0.192/h)")

# #2265: node.kubernetes.io/not-ready:NoExecute is ephemeral from v1.7.0.
write("ephemeral-not-ready",
      ["own-version-ephemeral-not-ready: #2265 not-ready:NoExecute is a known ephemeral taint (v1.7.0)",
       EPHEMERAL_SETUP + "node.kubernetes.io/not-ready:NoExecute (web-a has no default toleration for it)"],
      [node_pool("default")] + node("node-a", "m5.xlarge")
      + initializing("node-n", "m5.xlarge", {"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"})
      + [pod("web-a", "node-a")],
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.6.4": (f"{K}@v1.6.4 pkg/scheduling/taints.go:36 KnownEphemeralTaints holds not-ready with NoSchedule only: "
                 + REPLACED,
                 {"method": "SingleNodeConsolidation", "commands": [{"decision": "replace", "candidates": ["node-a"]}]}),
       "1.7.0": (f"{K}@v1.7.0 pkg/scheduling/taints.go:36 KnownEphemeralTaints adds not-ready:NoExecute (#2265), so "
                 "pkg/controllers/state/statenode.go StateNode.Taints leaves it out while node-n is uninitialized and "
                 "web-a goes to node-n; " + UNINITIALIZED % ("v1.7.0", 127),
                 {"commands": [],
                  "nodes": {"node-a": {"action": "none", "reasonsInclude": [{"code": "UninitializedDestination"}]}}})})

# #3025: readiness.k8s.io/ taints are ephemeral from v1.13.0.
write("ephemeral-readiness",
      ["own-version-ephemeral-readiness: #3025 readiness.k8s.io/ taints are known ephemeral taints (v1.13.0)",
       EPHEMERAL_SETUP + "readiness.k8s.io/network-ready=pending:NoSchedule (the Node Readiness Controller's)"],
      [node_pool("default")] + node("node-a", "m5.xlarge")
      + initializing("node-n", "m5.xlarge",
                     {"key": "readiness.k8s.io/network-ready", "value": "pending", "effect": "NoSchedule"})
      + [pod("web-a", "node-a")],
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.12.1": (f"{K}@v1.12.1 pkg/scheduling/taints.go:37 KnownEphemeralTaints has no readiness.k8s.io/ entry and "
                  "there is no prefix list: " + REPLACED,
                  {"method": "SingleNodeConsolidation", "commands": [{"decision": "replace", "candidates": ["node-a"]}]}),
       "1.13.0": (f"{K}@v1.13.0 pkg/scheduling/taints.go:49 KnownEphemeralTaintKeyPrefixes holds readiness.k8s.io/ "
                  "(#3025) and :57 IsKnownEphemeralTaint matches by prefix, so statenode.go StateNode.Taints leaves it "
                  "out while node-n is uninitialized and web-a goes to node-n; " + UNINITIALIZED % ("v1.13.0", 126),
                  {"commands": [],
                   "nodes": {"node-a": {"action": "none", "reasonsInclude": [{"code": "UninitializedDestination"}]}}})})


def write_from(name, header, scenario, expectations, drop=()):
    """Like `write`, on the snapshot of an existing scenario folder (an upstream test's shape),
    without the lines that start with one of `drop`."""
    with open(f"tests/scenarios/{scenario}/snapshot.yaml") as f:
        kept = "".join(line for line in f if not line.startswith(tuple(drop)))
        text = "".join(f"# {line}\n" for line in header) + f"# snapshot of tests/scenarios/{scenario}\n" + kept
    write_folders(name, text, expectations)


VT = "pkg/controllers/provisioning/scheduling/volumetopology.go"
PENDING_PROBE = ("the candidate cand's pod p fits the existing node dest; the pending pod q does not tolerate dest's "
                 "taint, so a q kept by provisioner.go GetPendingPods needs a new NodeClaim")
KEPT = ("so GetPendingPods keeps q and disruption/helpers.go SimulateScheduling places it: " + PENDING_PROBE
        + ", and consolidation.go computeConsolidation replaces cand")
DROPPED = "so GetPendingPods drops q, p fits dest and cand is deleted"
REPLACE_CAND = {"commands": [{"decision": "replace", "candidates": ["cand"]}]}
DELETE_CAND = {"commands": [{"decision": "delete", "candidates": ["cand"]}]}

for cluster, scenario, pr, what, before_tag, before_line, after_tag, after_line in [
    ("immediate-unbound-claim", "upstream-scheduling-pending-unbound-immediate-pvc", 2415,
     "q's claim is unbound and its StorageClass binds Immediate", "v1.6.4", 171, "v1.7.0", 201),
    ("deleting-claim", "upstream-scheduling-pending-deleting-pvc", 2488,
     "q's claim has a deletionTimestamp", "v1.6.4", 153, "v1.7.0", 174),
    ("lost-claim", "upstream-scheduling-pending-lost-pvc", 2488,
     "q's claim is in phase Lost", "v1.6.4", 153, "v1.7.0", 177),
    ("bind-completed", "upstream-scheduling-pending-pvc-without-bind-completed", 2487,
     "q's claim names a volume but has no pv.kubernetes.io/bind-completed annotation", "v1.6.4", 164, "v1.7.0", 188),
    ("deleting-volume", "upstream-scheduling-pending-deleting-pv", 2851,
     "q's claim is bound to a PersistentVolume with a deletionTimestamp", "v1.9.1", 202, "v1.10.0", 223),
]:
    write_from(cluster, [f"own-version-{cluster}: #{pr} {what}: Provisioner.Validate ignores the pending pod from "
                         f"{after_tag}", PENDING_PROBE], scenario,
               {before_tag[1:]: (f"{K}@{before_tag} {VT}:{before_line} ValidatePersistentVolumeClaims does not check "
                                 f"this ({what}), " + KEPT, REPLACE_CAND),
                after_tag[1:]: (f"{K}@{after_tag} {VT}:{after_line} ValidatePersistentVolumeClaims (#{pr}) rejects q "
                                f"({what}), " + DROPPED, DELETE_CAND)})

FIRST_TERM = ("only the first is read (\"Terms are ORed, only use the first term\"), so db needs zone-a, where the "
              "only node is the candidate node-x: a new zone-a NodeClaim, cheaper than node-x, and "
              "consolidation.go computeConsolidation replaces node-x")
EVERY_TERM = "every entry is an alternative and the zone-b one lets db move to node-b: node-x is deleted"
for cluster, scenario, function, line_before, line_after, what in [
    ("volume-node-affinity-terms", "own-pv-node-affinity-any-term", "getPersistentVolumeRequirements", 136, 217,
     "db's PersistentVolume has two required node-selector terms, zone-a and zone-b"),
    ("class-allowed-topologies", "own-storage-class-any-allowed-topology", "getStorageClassRequirements", 115, 153,
     "db's claim is unbound and its StorageClass allows zone-a or zone-b (two allowedTopologies entries)"),
]:
    write_from(cluster, [f"own-version-{cluster}: #2743 every volume topology term is an alternative (v1.12.1, v1.13.0)",
                         what], scenario,
               {"1.12.0": (f"{K}@v1.12.0 {VT}:{line_before} {function}: {what}; " + FIRST_TERM,
                           {"commands": [{"decision": "replace", "candidates": ["node-x"]}]}),
                "1.12.1": (f"{K}@v1.12.1 {VT} GetRequirements:65 and {function} (#2743, backport 10bf73d60): {what}; "
                           + EVERY_TERM, {"commands": [{"decision": "delete", "candidates": ["node-x"]}]})})


def with_host_port(p, port):
    p["spec"]["containers"][0]["ports"] = [{"containerPort": port, "hostPort": port, "protocol": "TCP"}]
    return p


def pending(name, cpu):
    """An unbound pod kube-scheduler gave up on (PodScheduled=False, Unschedulable): provisionable."""
    p = pod(name, None, cpu=cpu)
    del p["spec"]["nodeName"]
    p["status"] = {"phase": "Pending", "conditions": [{"type": "PodScheduled", "status": "False",
                                                       "reason": "Unschedulable", "lastTransitionTime": T0}]}
    return p


SCHED = "pkg/controllers/provisioning/scheduling"
# #2102 and #3022: web-a (1 CPU) and the pending web-p (500m) both ask for hostPort 8080; the queue
# takes web-a first (queue.go byCPUAndMemoryDescending).
TWO_CLAIMS = ("so disruption/consolidation.go computeConsolidation refuses (\"Can't remove without creating 2 "
              "candidates\"): no command")
write("host-ports-per-claim",
      ["own-version-host-ports-per-claim: host ports of new NodeClaims (#2102 v1.4.0 shared per template, #3022 "
       "v1.13.0 per claim)",
       "node-a (m5.xlarge, $0.192/h) runs web-a (1 CPU, hostPort 8080); web-p (500m, hostPort 8080) is pending"],
      [node_pool("default")] + node("node-a", "m5.xlarge")
      + [with_host_port(pod("web-a", "node-a", cpu="1"), 8080), with_host_port(pending("web-p", "500m"), 8080)],
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.3.5": (f"{K}@v1.3.5 {SCHED}/nodeclaim.go:101 NewNodeClaim gives each new NodeClaim an empty "
                 "HostPortUsage: web-a opens one, web-p clashes with it (:119) and opens a second, " + TWO_CLAIMS,
                 {"commands": [],
                  "nodes": {"node-a": {"action": "none", "reasonsInclude": [{"code": "MultipleReplacementsNeeded"}]}}}),
       "1.12.1": (f"{K}@v1.12.1 {SCHED}/scheduler.go:624 addToNewNodeClaim hands every NodeClaim of the template "
                  "the one usage of :795 getDaemonHostPortUsage (#2102), and nodeclaim.go:215 Add records web-a's 8080 "
                  "in it: web-p clashes with every NodeClaim of the pool (:121) and, pending, is left out "
                  "(scheduler.go:330 AllNonPendingPodsScheduled); one NodeClaim, cheaper than node-a: "
                  "singlenodeconsolidation.go replaces node-a",
                  {"method": "SingleNodeConsolidation", "commands": [{"decision": "replace", "candidates": ["node-a"]}]}),
       "1.13.0": (f"{K}@v1.13.0 {SCHED}/nodeclaim.go:101 NewNodeClaim deep-copies the usage (#3022; suite_test.go:2475 "
                  "\"should schedule pods with the same host port to different nodes\"): web-p opens a second NodeClaim, "
                  + TWO_CLAIMS,
                  {"commands": [],
                   "nodes": {"node-a": {"action": "none", "reasonsInclude": [{"code": "MultipleReplacementsNeeded"}]}}})})

# #2102: DaemonSet agent (100m, hostPort 9100) runs on node-a; web-p (2 CPUs, hostPort 9100) is pending.
agent = {"apiVersion": "apps/v1", "kind": "DaemonSet",
         "metadata": {"name": "agent", "namespace": "default", "uid": "uid-ds-agent"},
         "spec": {"selector": {"matchLabels": {"ds": "agent"}},
                  "template": {"metadata": {"labels": {"ds": "agent"}}, "spec": {"containers": [
                      {"name": "agent", "image": "agent", "resources": {"requests": {"cpu": "100m"}},
                       "ports": [{"containerPort": 9100, "hostPort": 9100, "protocol": "TCP"}]}]}}}}
agent_a = pod("agent-node-a", "node-a", cpu="100m", labels={"ds": "agent"})
agent_a["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent",
                                           "uid": "uid-ds-agent", "controller": True}]
agent_a["spec"]["containers"] = agent["spec"]["template"]["spec"]["containers"]
write("daemon-host-ports",
      ["own-version-daemon-host-ports: #2102 a new NodeClaim holds its DaemonSets' host ports (v1.4.0)",
       "node-a (m5.xlarge, $0.192/h) runs DaemonSet agent (100m, hostPort 9100) and web-a (1 CPU); web-p (2 CPUs, "
       "hostPort 9100) is pending"],
      [node_pool("default"), agent] + node("node-a", "m5.xlarge")
      + [agent_a, pod("web-a", "node-a", cpu="1"), with_host_port(pending("web-p", "2"), 9100)],
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.3.5": (f"{K}@v1.3.5 {SCHED}/nodeclaim.go:101 NewNodeClaim starts from an empty HostPortUsage, so agent's "
                 "9100 is not checked on new NodeClaims: web-p (2 CPUs) joins web-a's NodeClaim, which with agent's "
                 "100m needs an m5.xlarge, not cheaper than node-a (consolidation.go computeConsolidation): no command",
                 {"commands": []}),
       "1.4.0": (f"{K}@v1.4.0 {SCHED}/scheduler.go getDaemonHostPortUsage (#2102) seeds every new NodeClaim with agent's "
                 "9100 (provisioning/suite_test.go:837 \"should account for daemonset hostports\"): web-p fits no new "
                 "NodeClaim and, pending, is left out; web-a and agent fit an m5.large ($0.096/h < $0.192/h): "
                 "singlenodeconsolidation.go replaces node-a",
                 {"method": "SingleNodeConsolidation", "commands": [{"decision": "replace", "candidates": ["node-a"]}]})})


def controller(env):
    """Karpenter's controller Deployment (image pinned by digest alone: the version comes from the flag)."""
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "karpenter", "namespace": "kube-system", "labels": {"app.kubernetes.io/name": "karpenter"}},
            "spec": {"template": {"spec": {"containers": [
                {"name": "controller", "image": "public.ecr.aws/karpenter/controller@sha256:" + "0" * 64,
                 "env": [{"name": k, "value": v} for k, v in env.items()]}]}}}}


OPTIONS = "pkg/operator/options/options.go"
# #2365: the ReservedCapacity gate defaults on from v1.6.0.
write_from("reserved-capacity-default",
           ["own-version-reserved-capacity-default: #2365 the ReservedCapacity feature gate is on by default (v1.6.0)",
            "node-a is an on-demand 64-cpu-128-mem, whose type also has a reserved offering at a millionth of the price; "
            "FEATURE_GATES is not set (the upstream test's featureGates line is dropped)"],
           "upstream-disruption-consolidation-into-reserved-on-demand",
           {"1.5.5": (f"{K}@v1.5.5 {OPTIONS}:115 the feature-gates default has ReservedCapacity=false (options "
                      "suite_test.go:94), so provisioning/scheduling/nodeclaim.go:200 offeringsToReserve reserves nothing "
                      "and the replacement is not pinned to the reservation: consolidation.go:197 "
                      "RemoveInstanceTypeOptionsByPriceAndMinValues prices it at its worst compatible offering, the "
                      "on-demand one, which is not cheaper than node-a: no command",
                      {"commands": []}),
            "1.6.0": (f"{K}@v1.6.0 {OPTIONS}:125 DefaultFeatureGates has ReservedCapacity=true (#2365; options "
                      "suite_test.go:98): the replacement reserves the offering and is pinned to it "
                      "(consolidation_test.go:4714 \"can consolidate into reserved capacity for the same instance pool\"): "
                      "replace node-a by a reserved 64-cpu-128-mem",
                      {"commands": [{"decision": "replace", "candidates": ["node-a"],
                                     "replacements": [{"capacityType": "reserved"}]}]})},
           drop=("featureGates:",))

# #2299: MIN_VALUES_POLICY from v1.6.0. web-a (3 CPUs) fits m5.xlarge and r9.source only; the pool asks for 3
# instance types.
min_values_pool = node_pool("default")
min_values_pool["spec"]["template"]["spec"]["requirements"].append(
    {"key": "node.kubernetes.io/instance-type", "operator": "In",
     "values": ["m5.small", "m5.large", "m5.xlarge", "r9.source"], "minValues": 3})
write("min-values-policy",
      ["own-version-min-values-policy: #2299 MIN_VALUES_POLICY exists from v1.6.0",
       "the controller sets MIN_VALUES_POLICY=BestEffort; the pool asks instance-type minValues 3; node-a (m5.4xlarge, "
       "$2.00/h) runs web-a (3 CPUs), which only m5.xlarge and r9.source of the pool's types can hold"],
      [min_values_pool, controller({"MIN_VALUES_POLICY": "BestEffort"})] + node("node-a", "m5.4xlarge")
      + [pod("web-a", "node-a", cpu="3")],
      ["m5.small", "m5.large", "m5.xlarge", "m5.4xlarge", "r9.source"],
      {"1.5.5": (f"{K}@v1.5.5 {OPTIONS} has no MIN_VALUES_POLICY (the env var is not read), and "
                 "provisioning/scheduling/nodeclaim.go:423 filterInstanceTypesByRequirements empties the options when "
                 "minValues is missed (2 of 3 types fit web-a): web-a fits nowhere, no command",
                 {"commands": []}),
       "1.6.0": (f"{K}@v1.6.0 {OPTIONS}:124 MIN_VALUES_POLICY (#2299) is BestEffort: nodeclaim.go:429 keeps the 2 types "
                 "and :146 relaxes the claim's minValues to 2, which consolidation.go:197 "
                 "RemoveInstanceTypeOptionsByPriceAndMinValues meets with both cheaper than $2.00/h "
                 "(provisioning suite_test.go:2682 \"should schedule even when minValues requirement is not met\"): "
                 "replace node-a",
                 {"method": "SingleNodeConsolidation", "commands": [{"decision": "replace", "candidates": ["node-a"]}]})})

# #2122: PREFERENCE_POLICY from v1.4.0. web-a prefers m5.large; node-h (m5.xlarge, held) has room.
preferring = pod("web-a", "node-a", cpu="1")
preferring["spec"]["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": 1, "preference": {"matchExpressions": [
        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m5.large"]}]}}]}}
write("preference-policy",
      ["own-version-preference-policy: #2122 PREFERENCE_POLICY exists from v1.4.0",
       "the controller sets PREFERENCE_POLICY=Ignore; node-a (m5.xlarge, $0.192/h) runs web-a (1 CPU), which prefers "
       "instance type m5.large; node-h (m5.xlarge) is held and has 2 CPUs free"],
      [node_pool("default"), controller({"PREFERENCE_POLICY": "Ignore"})] + node("node-a", "m5.xlarge")
      + node("node-h", "m5.xlarge")
      + [preferring, pod("hold-h", "node-h", cpu="2", annotations={"karpenter.sh/do-not-disrupt": "true"})],
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.3.5": (f"{K}@v1.3.5 {OPTIONS} has no PREFERENCE_POLICY, so preferences are respected: "
                 "pkg/scheduling/requirements.go newPodRequirements makes web-a's preferred term a requirement, node-h "
                 "(m5.xlarge) does not meet it and a new m5.large NodeClaim does ($0.096/h < $0.192/h): "
                 "singlenodeconsolidation.go replaces node-a",
                 {"method": "SingleNodeConsolidation", "commands": [{"decision": "replace", "candidates": ["node-a"]}]}),
       "1.4.0": (f"{K}@v1.4.0 {OPTIONS}:112 PREFERENCE_POLICY (#2122) is Ignore: disruption/helpers.go:98 "
                 "SimulateScheduling passes IgnorePreferences, so web-a's preference is dropped and it fits node-h "
                 "(consolidation_test.go \"should consolidate a node through deletion when ignoring preferences\"): "
                 "delete node-a",
                 {"method": "SingleNodeConsolidation", "commands": [{"decision": "delete", "candidates": ["node-a"]}]})})


ZONES = ["us-east-1a", "us-east-1b", "us-east-1c"]


def zonal_types(names):
    """Instance types with an on-demand offering in each of ZONES."""
    items = []
    for n in names:
        cpu, mem, pods, price = TYPES[n]
        items.append({"name": n, "capacity": {"cpu": cpu, "memory": mem, "pods": pods},
                      "offerings": [{"zone": z, "capacityType": "on-demand", "price": price} for z in ZONES],
                      "labels": {"karpenter.k8s.aws/instance-family": "m5"}})
    return items


def in_zones(pool, zones, labels=None, taints=None):
    spec = pool["spec"]["template"]
    spec["spec"]["requirements"].append({"key": "topology.kubernetes.io/zone", "operator": "In", "values": zones})
    if labels:
        spec["metadata"]["labels"] = labels
    if taints:
        spec["spec"]["taints"] = taints
    return pool


def spread_pod(name, node_name, node_selector=None, **policies):
    p = pod(name, node_name, labels={"app": "web"})
    p["spec"]["topologySpreadConstraints"] = [dict({"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                                                    "whenUnsatisfiable": "DoNotSchedule",
                                                    "labelSelector": {"matchLabels": {"app": "web"}}}, **policies)]
    if node_selector:
        p["spec"]["nodeSelector"] = node_selector
    return p


def labelled(objs, labels):
    for o in objs:
        o["metadata"]["labels"].update(labels)
    return objs


TG = f"{K}@%s {SCHED}/%s"
SPREAD_SETUP = ("node-a (held) and cand, both m5.large in us-east-1a, run web-1 and web-2 (app=web, zone spread "
                "maxSkew 1); m5.large is the only type, so cand can only be deleted, and only if web-2 fits node-a")
SKEW_REFUSED = ("us-east-1a holds web-1 and the emptiest domain none: web-2 on node-a (or a new us-east-1a NodeClaim) "
                "makes a skew of 2 > 1, so web-2 fits nowhere: no command")
SKEW_OK = "the only domain is us-east-1a, whose count 1 is the minimum: web-2 on node-a makes a skew of 1: delete cand"
DELETE_CAND_SINGLE = {"method": "SingleNodeConsolidation", "commands": [{"decision": "delete", "candidates": ["cand"]}]}

# #852: nodeTaintsPolicy read from v1.3.0. Pool batch (us-east-1b) is tainted; the pods do not tolerate it.
write("spread-taints-policy",
      ["own-version-spread-taints-policy: #852 spreads read nodeTaintsPolicy (v1.3.0)",
       "pool default offers us-east-1a; pool batch offers us-east-1b and is tainted dedicated=batch:NoSchedule; "
       "the spread says nodeTaintsPolicy: Honor; " + SPREAD_SETUP],
      [in_zones(node_pool("default"), ["us-east-1a"]),
       in_zones(node_pool("batch"), ["us-east-1b"], taints=[{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}])]
      + node("node-a", "m5.large", consolidatable=False) + node("cand", "m5.large")
      + [spread_pod("web-1", "node-a", nodeTaintsPolicy="Honor"), spread_pod("web-2", "cand", nodeTaintsPolicy="Honor")],
      [], {"1.2.5": (TG % ("v1.2.5", "topologynodefilter.go:33") + " MakeTopologyNodeFilter takes the pod alone (no "
                     "taint policy), and provisioner.go:251 NewScheduler seeds every NodePool's zones, batch's "
                     "us-east-1b included: " + SKEW_REFUSED, {"commands": []}),
                     "1.3.0": (TG % ("v1.3.0", "topologygroup.go:87") + " NewTopologyGroup reads nodeTaintsPolicy "
                               "(#852), and topologydomaingroup.go:56 ForEachDomain leaves out batch's us-east-1b, "
                               "whose taint web-2 does not tolerate (topology_test.go:1395 \"…discovered from the "
                               "nodepool (NodeTaintsPolicy=honor)\"): " + SKEW_OK, DELETE_CAND_SINGLE)},
      extra_types=zonal_types(["m5.large"]))

# #2639 (v1.8.1 only) and #2671 (v1.11.0 only): pool x (team=x, us-east-1a), pool y (team=y, us-east-1b/c);
# the pods select team=x.
team_x = {"team": "x"}
write("spread-domain-filter",
      ["own-version-spread-domain-filter: #2639 (v1.8.1 only) and #2671 (v1.11.0 only) filter a spread's domains "
       "by the pod's node affinity",
       "pool x (label team=x) offers us-east-1a, pool y (label team=y) us-east-1b and us-east-1c; the pods select "
       "team=x (nodeAffinityPolicy defaults to Honor); " + SPREAD_SETUP],
      [in_zones(node_pool("x"), ["us-east-1a"], labels=team_x),
       in_zones(node_pool("y"), ["us-east-1b", "us-east-1c"], labels={"team": "y"})]
      + labelled(node("node-a", "m5.large", pool="x", consolidatable=False), team_x)
      + labelled(node("cand", "m5.large", pool="x"), team_x)
      + [spread_pod("web-1", "node-a", node_selector=team_x), spread_pod("web-2", "cand", node_selector=team_x)],
      [], {"1.8.0": (TG % ("v1.8.0", "topologydomaingroup.go:56") + " ForEachDomain filters the pools' zones by "
                     "taints only, so y's us-east-1b and us-east-1c count: " + SKEW_REFUSED, {"commands": []}),
           "1.8.1": (TG % ("v1.8.1", "topologydomaingroup.go:74") + " matches (#2639) keeps a zone only when a "
                     "requirement set that produced it is compatible with web-2's team=x: y's (team In [y]) are not "
                     "(topology_test.go:1689 \"should ignore domains from incompatible NodePools when honoring node "
                     "affinity\"): " + SKEW_OK, DELETE_CAND_SINGLE),
           "1.8.2": (TG % ("v1.8.2", "topologydomaingroup.go") + " is v1.8.0's again (#2791 reverts #2639): "
                     + SKEW_REFUSED, {"commands": []}),
           "1.11.0": (TG % ("v1.11.0", "topologydomaingroup.go:109") + " isDomainCompatible (#2671) keeps a pool's "
                      "zones only when its requirements are compatible with web-2's team=x: y's are not "
                      "(topology_test.go:2022 \"should only consider zones from NodePool matching pod's "
                      "nodeSelector\"): " + SKEW_OK, DELETE_CAND_SINGLE),
           "1.11.1": (TG % ("v1.11.1", "topologydomaingroup.go") + " is the v1.3.0 one again (#2957 reverts #2671): "
                      + SKEW_REFUSED, {"commands": []})},
      extra_types=zonal_types(["m5.large"]))


def zoned(objs, zone):
    """A node's Node and NodeClaim (from `node`) moved to `zone`."""
    for o in objs:
        o["metadata"]["labels"]["topology.kubernetes.io/zone"] = zone
    return objs


def zonal_volume(name, zone):
    """A bound claim `name` and its PersistentVolume pinned to `zone`."""
    pv = {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": f"pv-{name}"},
          "spec": {"nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
              {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [zone]}]}]}}}}
    pvc = {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
           "metadata": {"name": name, "namespace": "default",
                        "annotations": {"pv.kubernetes.io/bind-completed": "yes"}},
           "spec": {"volumeName": f"pv-{name}"}, "status": {"phase": "Bound"}}
    return [pv, pvc]


VOLUME_SPREAD = "a pod with a zonal volume and a zone spread"
# #2780, with minDomains: the upstream test's shape.
write_from("volume-spread-min-domains",
           ["own-version-volume-spread-min-domains: #2780 a volume's zone stays out of the pod's spreads (v1.9.0)",
            "one pod per zone; cand's pod has a claim bound to test-zone-1 and a zone spread with minDomains 3; n1, "
            "the only other node in test-zone-1, is full"],
           "upstream-topology-pvc-zone-with-min-domains",
           {"1.8.3": (f"{K}@v1.8.3 pkg/controllers/provisioning/provisioner.go:526 injectVolumeTopologyRequirements "
                      f"and {VT}:51 Inject write test-zone-1 into the pod's node affinity, so topology.go AddRequirements "
                      "takes its domains from it: one domain, fewer than minDomains 3, so the minimum is 0 and "
                      "test-zone-1 already holds one pod: a skew of 2 > 1 everywhere the pod may go: no command",
                      {"commands": []}),
            "1.9.0": (f"{K}@v1.9.0 {VT}:56 GetRequirements (#2780) keeps the volume's zone out of the pod (topology_test.go "
                      ":3060 \"should schedule pod with PVC and TSC minDomains=3 when pods are spread across 3 zones\"): "
                      "three domains at 1/1/1, and the pod lands on a new test-zone-1 NodeClaim: replace cand",
                      {"commands": [{"decision": "replace", "candidates": ["cand"]}]})})

# #2780 without minDomains: db-1 (on node-x, us-east-1a) and db-0 (node-a, us-east-1a) both have volumes in us-east-1a.
db = lambda name, node_name, claim: dict(
    spread_pod(name, node_name),
    spec=dict(spread_pod(name, node_name)["spec"],
              volumes=[{"name": "data", "persistentVolumeClaim": {"claimName": claim}}]))
hold = lambda name, node_name: pod(name, node_name, cpu="1", annotations={"karpenter.sh/do-not-disrupt": "true"})
write("volume-spread-zone",
      ["own-version-volume-spread-zone: #2780 a volume's zone stays out of the pod's spreads (v1.9.0)",
       "node-a (us-east-1a), node-b (us-east-1b) and node-c (us-east-1c) are held; db-0 on node-a and db-1 on node-x "
       "(the candidate, us-east-1a) have claims bound to us-east-1a and a zone spread maxSkew 1 over app=web"],
      [node_pool("default")] + zoned(node("node-a", "m5.large", consolidatable=False), "us-east-1a")
      + zoned(node("node-b", "m5.large", consolidatable=False), "us-east-1b")
      + zoned(node("node-c", "m5.large", consolidatable=False), "us-east-1c")
      + zoned(node("node-x", "m5.xlarge"), "us-east-1a")
      + zonal_volume("data-0", "us-east-1a") + zonal_volume("data-1", "us-east-1a")
      + [hold("hold-a", "node-a"), hold("hold-b", "node-b"), hold("hold-c", "node-c"),
         db("db-0", "node-a", "data-0"), db("db-1", "node-x", "data-1")],
      [], {"1.8.3": (f"{K}@v1.8.3 {VT}:51 Inject writes us-east-1a into db-1's node affinity: its spread counts only "
                     "us-east-1a nodes (topologynodefilter.go) and its domains are us-east-1a alone (topology.go "
                     "AddRequirements), whose count 1 (db-0) is the minimum: db-1 on node-a makes a skew of 1: "
                     "delete node-x",
                     {"method": "SingleNodeConsolidation", "commands": [{"decision": "delete", "candidates": ["node-x"]}]}),
                     "1.9.0": (f"{K}@v1.9.0 {VT}:56 GetRequirements (#2780) keeps the volume out of the spread: the "
                               "domains are the three zones at 1/0/0, so db-1 in us-east-1a (where its volume is: node-a "
                               "or a new NodeClaim) makes a skew of 2 > 1: no command",
                               {"commands": []})},
      extra_types=zonal_types(["m5.large", "m5.xlarge"]))


# #2119: one relaxation step per attempt before v1.4.0. X (1 CPU) prefers to avoid app=db's node and needs
# legacy=true, which no NodePool sets; Y (500m) goes anywhere; node-h (legacy=true) has 1.2 CPUs free and runs db-h.
relax_x = pod("x", "node-a", cpu="1")
relax_x["spec"]["nodeSelector"] = {"legacy": "true"}
relax_x["spec"]["affinity"] = {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": 100, "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": "db"}},
                                        "topologyKey": "kubernetes.io/hostname"}}]}}
write("relax-per-attempt",
      ["own-version-relax-per-attempt: #2119 an attempt relaxes a pod fully (v1.4.0)",
       "node-a (m5.xlarge, $0.192/h) runs x (1 CPU, nodeSelector legacy=true, preferred anti-affinity to app=db by "
       "hostname) and y (500m); node-h (m5.xlarge, legacy=true, held) runs db-h (app=db) with 1.2 CPUs free; no "
       "NodePool sets legacy, so x can only go to node-h"],
      [node_pool("default")] + labelled(node("node-a", "m5.xlarge"), {"legacy": "true"})
      + labelled(node("node-h", "m5.xlarge", consolidatable=False), {"legacy": "true"})
      + [relax_x, pod("y", "node-a", cpu="500m"),
         pod("db-h", "node-h", cpu="2800m", labels={"app": "db"}, annotations={"karpenter.sh/do-not-disrupt": "true"})],
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.3.5": (f"{K}@v1.3.5 {SCHED}/scheduler.go:269 Solve: x (queued first, queue.go byCPUAndMemoryDescending) "
                 "fails on node-h (its preferred anti-affinity, a requirement until relaxed) and on every NodeClaim "
                 "(legacy), is relaxed one step in place (preferences.go Relax) and pushed back (queue.go:63 Push with "
                 "relaxed: every pod's progress reset); y then takes 500m of node-h's 1.2 CPUs, and x (1 CPU) no "
                 "longer fits: not all pods would schedule, no command",
                 {"commands": [],
                  "nodes": {"node-a": {"action": "none", "reasonsInclude": [{"code": "PodsCannotReschedule"}]}}}),
       "1.4.0": (f"{K}@v1.4.0 {SCHED}/scheduler.go:348 trySchedule (#2119) relaxes x's copy until it fits: x lands on "
                 "node-h, y (0.2 CPUs left there) opens one NodeClaim, an m5.small ($0.025/h < $0.192/h): "
                 "singlenodeconsolidation.go replaces node-a",
                 {"method": "SingleNodeConsolidation", "commands": [{"decision": "replace", "candidates": ["node-a"]}]})})


PROV = "pkg/controllers/provisioning/provisioner.go"
PENDING_TAKES_ROOM = ("q (3.2 CPUs, queued first) takes node-b's room and web-a opens a NodeClaim: an m5.small "
                      "($0.025/h < $0.192/h), so singlenodeconsolidation.go replaces node-a")
PENDING_IGNORED = "q is ignored (GetPendingPods), web-a fits node-b and node-a is deleted"
VALIDATION_SETUP = ("node-a (m5.xlarge, $0.192/h) runs web-a (500m); node-b (m5.xlarge, held) has 3.5 CPUs free; "
                    "q (3.2 CPUs) is pending")

# #2182: preferred node-affinity terms are no longer validated from v1.5.0.
q_preferring = pending("q", "3200m")
q_preferring["spec"]["affinity"] = {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
    {"weight": 1, "preference": {"matchExpressions": [
        {"key": "kubernetes.io/hostname", "operator": "In", "values": ["elsewhere"]}]}}]}}
write("preferred-affinity-validated",
      ["own-version-preferred-affinity-validated: #2182 a pending pod's preferred node affinity is not validated (v1.5.0)",
       VALIDATION_SETUP + " and prefers kubernetes.io/hostname In [elsewhere], a restricted label"],
      [node_pool("default")] + node("node-a", "m5.xlarge") + node("node-b", "m5.xlarge", consolidatable=False)
      + [pod("web-a", "node-a"), pod("web-b", "node-b"), q_preferring],
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.4.2": (f"{K}@v1.4.2 {PROV}:528 validateAffinity runs validateNodeSelectorTerm on every preferred term, and "
                 "pkg/apis/v1/labels.go IsRestrictedLabel refuses kubernetes.io/hostname: " + PENDING_IGNORED,
                 {"method": "SingleNodeConsolidation", "commands": [{"decision": "delete", "candidates": ["node-a"]}]}),
       "1.5.0": (f"{K}@v1.5.0 {PROV}:521 validateAffinity checks required terms only (#2182; provisioning "
                 "suite_test.go:2244 \"should ignore node preferredDuringSchedulingIgnoredDuringExecution affinity\"): "
                 "q is simulated, its preference relaxed: " + PENDING_TAKES_ROOM,
                 {"method": "SingleNodeConsolidation", "commands": [{"decision": "replace", "candidates": ["node-a"]}]})})

# #2586: node-role.kubernetes.io/… is no longer restricted from v1.9.0.
q_worker = pending("q", "3200m")
q_worker["spec"]["nodeSelector"] = {"node-role.kubernetes.io/worker": "true"}
write("restricted-label-domains",
      ["own-version-restricted-label-domains: #2586 only karpenter.sh labels and the hostname are restricted (v1.9.0)",
       VALIDATION_SETUP + " and selects node-role.kubernetes.io/worker=true, which node-b carries"],
      [node_pool("default")] + node("node-a", "m5.xlarge")
      + labelled(node("node-b", "m5.xlarge", consolidatable=False), {"node-role.kubernetes.io/worker": "true"})
      + [pod("web-a", "node-a"), pod("web-b", "node-b"), q_worker],
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.8.3": (f"{K}@v1.8.3 pkg/apis/v1/labels.go IsRestrictedNodeLabel restricts every kubernetes.io domain "
                 "(RestrictedLabelDomains) but node.kubernetes.io and node-restriction.kubernetes.io "
                 f"(LabelDomainExceptions), so {PROV} validateNodeSelector refuses q: " + PENDING_IGNORED,
                 {"method": "SingleNodeConsolidation", "commands": [{"decision": "delete", "candidates": ["node-a"]}]}),
       "1.9.0": (f"{K}@v1.9.0 pkg/apis/v1/labels.go IsRestrictedLabel (#2586) restricts only the karpenter.sh domain "
                 "and kubernetes.io/hostname: q is simulated and goes to node-b, the node it selects: " + PENDING_TAKES_ROOM,
                 {"method": "SingleNodeConsolidation", "commands": [{"decision": "replace", "candidates": ["node-a"]}]})})


# #1727: agent's first required term (example.com/gpu Exists) fits no template; its second (kubernetes.io/os In
# [linux]) does.
two_terms_agent, two_terms_spec = daemon_set("agent", "1500m", {"key": "example.com/gpu", "operator": "Exists"})
two_terms_spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"].append(
    {"matchExpressions": [{"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]}]})
write("daemon-overhead-terms",
      ["own-version-daemon-overhead-terms: #1727 each required term of a DaemonSet is tried for a new NodeClaim's "
       "overhead (v1.1.1)",
       "DaemonSet agent requires example.com/gpu Exists OR kubernetes.io/os In [linux]; " + DAEMON_SETUP],
      [node_pool("default"), two_terms_agent] + node("node-a", "m5.xlarge") + node("node-h", "m5.xlarge")
      + [daemon_pod(two_terms_agent, two_terms_spec, "node-a"), daemon_pod(two_terms_agent, two_terms_spec, "node-h"),
         pod("web-a", "node-a", cpu="1200m"),
         pod("hold-h", "node-h", cpu="2400m", annotations={"karpenter.sh/do-not-disrupt": "true"})],
      ["m5.small", "m5.large", "m5.xlarge"],
      {"1.1.0": (f"{K}@v1.1.0 {SCHED}/scheduler.go getDaemonOverhead checks the template against NewPodRequirements "
                 "(the first required term): example.com/gpu Exists is not a key the template defines, so agent adds "
                 "no overhead: web-a fits an m5.large at $0.096/h < $0.192/h and singlenodeconsolidation.go replaces "
                 "node-a",
                 {"method": "SingleNodeConsolidation", "commands": [{"decision": "replace", "candidates": ["node-a"]}]}),
       "1.1.1": (f"{K}@v1.1.1 {SCHED}/scheduler.go isDaemonPodCompatible (#1727, 8f8e75926) tries each required term "
                 "(removeRequiredNodeAffinityTerm): kubernetes.io/os In [linux] fits, so agent's 1500m counts on every "
                 "type: web-a fits no m5.large and the m5.xlarge is not cheaper: no command",
                 {"commands": []})})
