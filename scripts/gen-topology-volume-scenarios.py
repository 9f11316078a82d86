#!/usr/bin/env python3
"""Writes the topology / volume / requirement scenarios of issue 15 under tests/scenarios/.

Each scenario's expectation is derived from the upstream function named in its `source`
(kubernetes-sigs/karpenter v1.14.0-20, 2266468104f3), never from this tool's output.
Run from the repository root: python3 scripts/gen-topology-volume-scenarios.py
"""
import copy
import json
import os

ZONES = ["zone-a", "zone-b", "zone-c"]
T0 = "2026-11-29T08:00:00Z"


def types():
    out = []
    for name, cpu, mem, price in [("c.big", "8", "32Gi", 1.0), ("c.mid", "4", "16Gi", 0.5), ("c.small", "2", "8Gi", 0.25)]:
        out.append({"name": name, "capacity": {"cpu": cpu, "memory": mem, "pods": "110"},
                    "overhead": {"cpu": "100m", "memory": "100Mi"},
                    "offerings": [{"zone": z, "capacityType": "on-demand", "price": price} for z in ZONES]})
    return {"apiVersion": "kubectl-consolidation/v1alpha1", "kind": "InstanceTypes", "items": out}


def pool():
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
            "spec": {"template": {"spec": {
                "requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["on-demand"]}],
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}},
                "disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s"}},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}}


def node(name, zone, itype="c.mid", extra_labels=None):
    cpu, mem = {"c.big": ("8", "32Gi"), "c.mid": ("4", "16Gi"), "c.small": ("2", "8Gi")}[itype]
    labels = {"kubernetes.io/hostname": name, "node.kubernetes.io/instance-type": itype,
              "topology.kubernetes.io/zone": zone, "karpenter.sh/capacity-type": "on-demand",
              "karpenter.sh/nodepool": "default", "karpenter.sh/registered": "true",
              "karpenter.sh/initialized": "true"}
    labels.update(extra_labels or {})
    claim_labels = {k: v for k, v in labels.items() if k != "kubernetes.io/hostname"}
    res = {"cpu": cpu, "memory": mem, "pods": "110"}
    cond = lambda t: {"type": t, "status": "True", "lastTransitionTime": T0}
    return [
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name, "labels": labels, "creationTimestamp": T0},
         "spec": {"providerID": f"aws:///{zone}/i-{name}"},
         "status": {"allocatable": res, "capacity": res, "conditions": [cond("Ready")]}},
        {"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim", "metadata": {"name": f"default-{name}", "labels": claim_labels},
         "spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}},
         "status": {"nodeName": name, "providerID": f"aws:///{zone}/i-{name}",
                    "conditions": [cond(t) for t in ["Launched", "Registered", "Initialized", "Consolidatable"]],
                    "lastPodEventTime": T0}},
    ]


def pod(name, node_name, spec=None, labels=None, cpu="500m", pin=False):
    meta = {"name": name, "namespace": "default", "labels": labels or {"app": name}, "creationTimestamp": T0,
            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": f"{name}-rs", "controller": True}]}
    if pin:
        meta["annotations"] = {"karpenter.sh/do-not-disrupt": "true"}
    s = {"containers": [{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": "128Mi"}}}], "nodeName": node_name}
    s.update(spec or {})
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": s, "status": {"phase": "Running"}}


def write(name, source, objects, expect, args=("plan",)):
    folder = os.path.join("tests/scenarios", name)
    os.makedirs(folder, exist_ok=True)
    info = {"apiVersion": "kubectl-consolidation/v1alpha1", "kind": "SnapshotInfo", "capturedAt": "2026-11-29T10:00:00Z"}
    docs = [info, types(), {"apiVersion": "v1", "kind": "List", "items": [pool()] + objects}]
    with open(os.path.join(folder, "snapshot.yaml"), "w") as f:
        f.write(f"# {name}\n# {source}\n")
        for d in docs:
            f.write("---\n" + json.dumps(d, indent=1) + "\n")
    with open(os.path.join(folder, "expect.json"), "w") as f:
        json.dump({"source": source, "args": list(args), "expect": expect}, f, indent=1)
        f.write("\n")


def spread(extra=None):
    c = {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": {"matchLabels": {"app": "web"}}}
    c.update(extra or {})
    return c


ZONE_AB = {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
    {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["zone-a", "zone-b"]}]}]}}}}


def spread_cluster(constraint_extra=None):
    """web pods spread by zone, allowed only in zones a and b: web-1 on node-a (zone-a), web-2 on
    node-b (zone-b), web-3 on node-x (zone-b, the only candidate: node-a and node-b hold a
    do-not-disrupt pod). Zone c has a node too (holding no web pod)."""
    web = lambda n, at: pod(n, at, dict(ZONE_AB, topologySpreadConstraints=[spread(constraint_extra)]), labels={"app": "web"})
    objs = node("node-a", "zone-a") + node("node-b", "zone-b") + node("node-c", "zone-c") + node("node-x", "zone-b", "c.small")
    objs += [pod("keep-a", "node-a", pin=True), pod("keep-b", "node-b", pin=True), pod("keep-c", "node-c", pin=True)]
    objs += [web("web-1", "node-a"), web("web-2", "node-b"), web("web-3", "node-x")]
    return objs


def main():
    write("own-spread-min-over-pod-domains",
          "topologygroup.go domainMinCount: the global minimum is over the domains the pod may use (podDomains); "
          "zone-c (empty) is outside web's node affinity, so the minimum is 1 and web-3 fits on node-a (1+1-1 <= 1): delete node-x",
          spread_cluster(), {"commands": [{"decision": "delete", "candidates": ["node-x"]}]})
    write("own-spread-min-domains",
          "topologygroup.go domainMinCount: minDomains 3 with only zones a and b allowed makes the global minimum 0, "
          "so web-3 fits neither node-a nor a new NodeClaim: node-x stays",
          spread_cluster({"minDomains": 3}),
          {"commands": [], "nodes": {"node-x": {"verdict": "Safe", "reasonsInclude": ["PodsCannotReschedule"]}}})

    # Volumes. node-x (c.big, zone-a) holds one pod with a claim; node-b (zone-b) has room but
    # holds a do-not-disrupt pod, so node-x is the only candidate.
    def vol_cluster(volume, extra, x_zone="zone-a"):
        objs = node("node-b", "zone-b") + node("node-x", x_zone, "c.big")
        objs += [pod("keep-b", "node-b", pin=True), pod("db", "node-x", {"volumes": [volume]})]
        return objs + extra

    pv = lambda name, terms, csi=None: {"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": name},
                                        "spec": dict({"nodeAffinity": {"required": {"nodeSelectorTerms": [
                                            {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": [z]}]}
                                            for z in terms]}}}, **({"csi": {"driver": csi}} if csi else {}))}
    pvc = lambda name, volume=None, sc=None: {"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                                              "metadata": {"name": name, "namespace": "default"},
                                              "spec": {k: v for k, v in {"volumeName": volume, "storageClassName": sc}.items() if v}}
    write("own-ephemeral-volume-zone",
          "utils/volume/volume.go GetPersistentVolumeClaim: a generic ephemeral volume's claim is <pod>-<volume>; "
          "volumetopology.go getPersistentVolumeRequirements pins db to its PV's zone-a, so it cannot move to node-b: "
          "node-x is replaced by a cheaper node in zone-a",
          vol_cluster({"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {"storageClassName": "gp3"}}}},
                      [pvc("db-scratch", "pv-db"), pv("pv-db", ["zone-a"])]),
          {"commands": [{"decision": "replace", "candidates": ["node-x"], "replacements": [{"zones": ["zone-a"]}]}]})
    write("own-pv-node-affinity-any-term",
          "volumetopology.go getPersistentVolumeRequirements: each NodeSelectorTerm of the PV is an alternative (ORed); "
          "the second term (zone-b) lets db move to node-b: delete node-x",
          vol_cluster({"name": "data", "persistentVolumeClaim": {"claimName": "data"}},
                      [pvc("data", "pv-data"), pv("pv-data", ["zone-a", "zone-b"])]),
          {"commands": [{"decision": "delete", "candidates": ["node-x"]}]})
    write("own-storage-class-any-allowed-topology",
          "volumetopology.go getStorageClassRequirements: each allowedTopologies entry is an alternative; "
          "an unbound claim of a class allowing zone-a or zone-b lets db move to node-b: delete node-x",
          vol_cluster({"name": "data", "persistentVolumeClaim": {"claimName": "data"}},
                      [pvc("data", sc="gp3"),
                       {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "gp3"},
                        "provisioner": "ebs.csi.aws.com", "volumeBindingMode": "WaitForFirstConsumer",
                        "allowedTopologies": [{"matchLabelExpressions": [{"key": "topology.kubernetes.io/zone", "values": ["zone-a"]}]},
                                              {"matchLabelExpressions": [{"key": "topology.kubernetes.io/zone", "values": ["zone-b"]}]}]}]),
          {"commands": [{"decision": "delete", "candidates": ["node-x"]}]})
    # The EBS CSI driver's own zone key: the AWS provider normalises it to topology.kubernetes.io/zone.
    ebs_pv = pv("pv-data", ["zone-a"])
    ebs_pv["spec"]["nodeAffinity"]["required"]["nodeSelectorTerms"][0]["matchExpressions"][0]["key"] = \
        "topology.ebs.csi.aws.com/zone"
    write("own-pv-ebs-csi-zone-key",
          "aws/karpenter-provider-aws pkg/operator/operator.go:81 (v1.14.1; :69 at v1.0.0) adds "
          "topology.ebs.csi.aws.com/zone to karpenter's NormalizedLabels as topology.kubernetes.io/zone, so "
          "volumetopology.go getPersistentVolumeRequirements pins db to zone-a: node-x is replaced by a cheaper node "
          "in zone-a (without the alias the key is unknown to every NodeClaim and db could not move at all)",
          vol_cluster({"name": "data", "persistentVolumeClaim": {"claimName": "data"}}, [pvc("data", "pv-data"), ebs_pv]),
          {"commands": [{"decision": "replace", "candidates": ["node-x"], "replacements": [{"zones": ["zone-a"]}]}]})
    # CSI limits: node-b's CSINode allows one EBS volume and keep-b holds one; db's claim would be a second.
    csi = [pvc("data", "pv-data"), pv("pv-data", ["zone-b"], "ebs.csi.aws.com"),
           pvc("kept", "pv-kept"), pv("pv-kept", ["zone-b"], "ebs.csi.aws.com"),
           {"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "node-b"},
            "spec": {"drivers": [{"name": "ebs.csi.aws.com", "nodeID": "i-node-b", "allocatable": {"count": 1}}]}}]
    objs = vol_cluster({"name": "data", "persistentVolumeClaim": {"claimName": "data"}}, csi, x_zone="zone-b")
    for o in objs:
        if o["kind"] == "Pod" and o["metadata"]["name"] == "keep-b":
            o["spec"]["volumes"] = [{"name": "kept", "persistentVolumeClaim": {"claimName": "kept"}}]
    write("own-csi-attach-limit",
          "existingnode.go CanAdd → volumeusage.go ExceedsLimits: node-b's CSINode allows 1 ebs.csi.aws.com volume and holds one, "
          "so db (a second claim) cannot move there: node-x (zone-b, like its volume) is replaced by a cheaper node instead of deleted",
          objs, {"commands": [{"decision": "replace", "candidates": ["node-x"]}]})

    # Legacy labels: db selects the beta zone key; nodes carry only the stable label.
    beta = {"nodeSelector": {"failure-domain.beta.kubernetes.io/zone": "zone-b"}}
    objs = node("node-b", "zone-b") + node("node-x", "zone-b", "c.big")
    objs += [pod("keep-b", "node-b", pin=True), pod("db", "node-x", beta)]
    write("own-beta-zone-label-normalised",
          "pkg/apis/v1/labels.go NormalizedLabels via requirement.go NewRequirementWithFlexibility: "
          "failure-domain.beta.kubernetes.io/zone is topology.kubernetes.io/zone, so db fits node-b (zone-b): delete node-x",
          objs, {"commands": [{"decision": "delete", "candidates": ["node-x"]}]})


if __name__ == "__main__":
    main()
