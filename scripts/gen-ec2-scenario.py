#!/usr/bin/env python3
"""Writes tests/scenarios/<NAME>/snapshot.yaml for NAME in VARIANTS: one m5.2xlarge on-demand
node holding small pods, in a pool of the m5 family; with a complete InstanceTypes document,
or (`capture`) as a plain `kubectl get -o yaml` capture plus Karpenter's controller Deployment,
so that the embedded AWS catalogue and Karpenter's settings decide.

Usage: scripts/gen-ec2-scenario.py NAME > tests/scenarios/NAME/snapshot.yaml

The document's figures are Karpenter's own for these types, as its generated reference
(aws/karpenter-provider-aws website/content/en/v1.14/reference/instance-types.md, commit
692ccdd06) states them: allocatable cpu/memory/pods/ephemeral-storage = capacity - overhead;
capacity memory is the reference's memory + kube-reserved (11 x pods + 255 MiB) + eviction
(100 MiB), i.e. EC2 memory less the 7.5 % VM overhead. Prices: zz_generated.pricing_aws.go
(us-east-1, 2026-07-20)."""
import yaml

MI = 1 << 20
# name: (vCPU, EC2 MiB, pods, reference allocatable cpu milli, reference allocatable MiB, price)
TYPES = {
    "m5.large": (2, 8192, 29, 1930, 6903, 0.096),
    "m5.xlarge": (4, 16384, 58, 3920, 14162, 0.192),
    "m5.2xlarge": (8, 32768, 58, 7910, 29317, 0.384),
    "m5.4xlarge": (16, 65536, 234, 15890, 57691, 0.768),
}
ZONE, REGION = "us-east-1a", "us-east-1"
T0 = "2026-11-29T08:00:00Z"


def instance_type(name, facts):
    vcpu, mib, pods, cpu_alloc, mem_alloc, price = facts
    reserved_mem = 11 * pods + 255 + 100
    return {
        "name": name,
        "capacity": {"cpu": str(vcpu), "memory": f"{mem_alloc + reserved_mem}Mi", "pods": str(pods),
                     "ephemeral-storage": "20Gi"},
        "overhead": {"cpu": f"{vcpu * 1000 - cpu_alloc}m", "memory": f"{reserved_mem}Mi", "ephemeral-storage": "3Gi"},
        "labels": {"kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux",
                   "karpenter.k8s.aws/instance-family": "m5", "karpenter.k8s.aws/instance-category": "m",
                   "karpenter.k8s.aws/instance-cpu": str(vcpu), "karpenter.k8s.aws/instance-memory": str(mib)},
        "offerings": [{"zone": ZONE, "capacityType": "on-demand", "price": price},
                      {"zone": ZONE, "capacityType": "spot", "price": price}],
    }


def ready(kind):
    return [{"type": t, "status": "True", "lastTransitionTime": T0, "reason": t, "message": ""} for t in kind]


# name: (source line, capture?, extra pool requirements, pool limits, controller env, pods (count, cpu, memory))
VARIANTS = {
    "own-real-ec2-replace": ("kubernetes-sigs/karpenter@v1.14.0 pkg/controllers/disruption/consolidation_test.go Context(\"Replace\") \"can replace node\"",
                             False, [], {}, {}, (2, "500m", "512Mi")),
    "own-ec2-gte-lte-bounds": ("kubernetes-sigs/karpenter@v1.14.0 pkg/scheduling/requirement.go NewRequirementWithFlexibility: Gte/Lte are inclusive bounds",
                               False, [{"key": "karpenter.k8s.aws/instance-cpu", "operator": "Gte", "values": ["2"]},
                                       {"key": "karpenter.k8s.aws/instance-cpu", "operator": "Lte", "values": ["2"]}],
                               {}, {}, (2, "500m", "512Mi")),
    "own-ec2-limits-exclude-candidate": ("kubernetes-sigs/karpenter@v1.14.0 pkg/controllers/disruption/helpers.go SimulateScheduling (stateNodes exclude the candidates); "
                                         "provisioning/scheduling/scheduler.go calculateExistingNodeClaims, add",
                                         False, [], {"nodes": "1"}, {}, (2, "500m", "512Mi")),
    "own-ec2-limits-cpu-narrow": ("kubernetes-sigs/karpenter@v1.14.0 pkg/controllers/provisioning/scheduling/scheduler.go filterByRemainingResources: a type whose capacity "
                                  "exceeds what is left of spec.limits is dropped",
                                  False, [], {"cpu": "3"}, {}, (2, "500m", "512Mi")),
    "own-ec2-reserved-enis": ("aws/karpenter-provider-aws pkg/providers/instancetype/types.go ENILimitedPods: "
                              "RESERVED_ENIS=2 leaves m5.large 1 ENI, (1 x 9) + 2 = 11 pods < 15",
                              True, [], {}, {"RESERVED_ENIS": "2"}, (15, "50m", "64Mi")),
    "own-ec2-vm-memory-overhead": ("aws/karpenter-provider-aws pkg/providers/instancetype/types.go memory: "
                                   "VM_MEMORY_OVERHEAD_PERCENT=0.2 leaves m5.large 8192-1639-674 = 5879Mi < 6400Mi",
                                   True, [], {}, {"VM_MEMORY_OVERHEAD_PERCENT": "0.2"}, (2, "500m", "3200Mi")),
}


def main():
    import sys
    name = sys.argv[1] if len(sys.argv) > 1 else "own-real-ec2-replace"
    source, capture, extra_requirements, limits, env, (pod_count, pod_cpu, pod_memory) = VARIANTS[name]
    node_type = "m5.2xlarge"
    vcpu, mib, pods, cpu_alloc, mem_alloc, _ = TYPES[node_type]
    labels = {"kubernetes.io/hostname": "ip-10-0-1-1", "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
              "node.kubernetes.io/instance-type": node_type, "topology.kubernetes.io/zone": ZONE,
              "topology.kubernetes.io/region": REGION, "karpenter.sh/nodepool": "default",
              "karpenter.sh/capacity-type": "on-demand", "karpenter.k8s.aws/ec2nodeclass": "default",
              "karpenter.k8s.aws/instance-family": "m5", "karpenter.sh/registered": "true",
              "karpenter.sh/initialized": "true"}
    reserved_mem = 11 * pods + 255 + 100
    capacity = {"cpu": str(vcpu), "memory": f"{mem_alloc + reserved_mem}Mi", "pods": str(pods),
                "ephemeral-storage": "20Gi"}
    allocatable = {"cpu": f"{cpu_alloc}m", "memory": f"{mem_alloc}Mi", "pods": str(pods),
                   "ephemeral-storage": "17Gi"}
    objects = [
        {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
         "spec": {"amiSelectorTerms": [{"alias": "al2023@latest"}], "role": "KarpenterNodeRole"},
         "status": {"subnets": [{"id": "subnet-1", "zone": ZONE, "zoneID": "use1-az1"}],
                    "conditions": ready(["Ready"])}},
        {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
         "spec": {"template": {"spec": {
             "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
             "requirements": [
                 {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["m5"]},
                 {"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]},
                 {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [ZONE]}] + extra_requirements,
             "expireAfter": "Never"}},
             "disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s",
                            "budgets": [{"nodes": "100%"}]},
             **({"limits": limits} if limits else {})},
         "status": {"conditions": ready(["ValidationSucceeded", "NodeClassReady", "Ready"])}},
        {"apiVersion": "v1", "kind": "Node",
         "metadata": {"name": "ip-10-0-1-1", "labels": labels, "creationTimestamp": T0},
         "spec": {"providerID": f"aws:///{ZONE}/i-0123456789abcdef0"},
         "status": {"capacity": capacity, "allocatable": allocatable,
                    "conditions": [{"type": "Ready", "status": "True", "lastTransitionTime": T0}]}},
        {"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
         "metadata": {"name": "default-abcde", "labels": labels, "creationTimestamp": T0,
                      "ownerReferences": [{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "name": "default",
                                           "uid": "uid-np-default"}]},
         "spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                  "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In",
                                    "values": [node_type]}]},
         "status": {"nodeName": "ip-10-0-1-1", "providerID": f"aws:///{ZONE}/i-0123456789abcdef0",
                    "capacity": capacity, "allocatable": allocatable,
                    "conditions": ready(["Launched", "Registered", "Initialized", "Consolidatable", "Ready"]),
                    "lastPodEventTime": T0}},
    ]
    if env:
        objects.append(
            {"apiVersion": "apps/v1", "kind": "Deployment",
             "metadata": {"name": "karpenter", "namespace": "kube-system",
                          "labels": {"app.kubernetes.io/name": "karpenter", "app.kubernetes.io/version": "1.14.0"}},
             "spec": {"template": {"spec": {"containers": [
                 {"name": "controller", "image": "public.ecr.aws/karpenter/controller:1.14.0",
                  "env": [{"name": k, "value": v} for k, v in env.items()]}]}}}})
    for i in range(pod_count):
        objects.append(
            {"apiVersion": "v1", "kind": "Pod",
             "metadata": {"name": f"web-{i}", "namespace": "default", "labels": {"app": "web"},
                          "creationTimestamp": T0,
                          "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web",
                                               "uid": "uid-rs-web", "controller": True}]},
             "spec": {"nodeName": "ip-10-0-1-1", "containers": [
                 {"name": "web", "image": "registry.example/web:1",
                  "resources": {"requests": {"cpu": pod_cpu, "memory": pod_memory}}}]},
             "status": {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"},
                                                           {"type": "PodScheduled", "status": "True"}]}})
    info = {"apiVersion": "kubectl-consolidation/v1alpha1", "kind": "SnapshotInfo", "capturedAt": "2026-11-29T10:00:00Z"}
    if not capture:
        info["karpenterVersion"] = "v1.14.0"
    docs = [info]
    if not capture:
        docs.append({"apiVersion": "kubectl-consolidation/v1alpha1", "kind": "InstanceTypes",
                     "items": [instance_type(n, f) for n, f in TYPES.items()]})
    docs.append({"apiVersion": "v1", "kind": "List", "items": objects})
    header = f"# {name} (generated by scripts/gen-ec2-scenario.py {name})\n# source: {source}\n"
    print(header + yaml.safe_dump_all(docs, sort_keys=False, explicit_start=True), end="")


if __name__ == "__main__":
    main()
