#!/usr/bin/env python3
"""Writes the acceptance scenarios of the scheduler rules (tests/scenarios/own-*) from compact
descriptions; each expectation is derived from the upstream function its source cites."""
import json, os, sys
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests', 'scenarios')
T = "2026-11-29T08:00:00Z"
def offers(price, zones=("zone-a","zone-b"), cts=("on-demand",), extra=()):
    out=[{"zone":z,"capacityType":c,"price":price} for z in zones for c in cts]
    return out+list(extra)
def itype(name, cpu, mem, price, **kw):
    return {"name":name,"capacity":{"cpu":str(cpu),"memory":mem,"pods":"110"},"overhead":{"cpu":"100m","memory":"100Mi"},
            "offerings":kw.get('offerings') or offers(price)}
def pool(name="default", reqs=None, taints=None, labels=None, limits=None, weight=None):
    reqs = reqs if reqs is not None else [{"key":"karpenter.sh/capacity-type","operator":"In","values":["on-demand"]}]
    spec={"template":{"spec":{"requirements":reqs,"nodeClassRef":{"group":"karpenter.k8s.aws","kind":"EC2NodeClass","name":"default"}}},
          "disruption":{"consolidationPolicy":"WhenEmptyOrUnderutilized","consolidateAfter":"0s"}}
    if taints: spec["template"]["spec"]["taints"]=taints
    if labels: spec["template"]["metadata"]={"labels":labels}
    if limits: spec["limits"]=limits
    if weight: spec["weight"]=weight
    return {"apiVersion":"karpenter.sh/v1","kind":"NodePool","metadata":{"name":name},"spec":spec}
def node(name, itype, cpu, mem, zone="zone-a", pool="default", ct="on-demand", taints=None, labels=None):
    l={"kubernetes.io/hostname":name,"node.kubernetes.io/instance-type":itype,"topology.kubernetes.io/zone":zone,
       "karpenter.sh/capacity-type":ct,"karpenter.sh/nodepool":pool,"karpenter.sh/registered":"true","karpenter.sh/initialized":"true"}
    l.update(labels or {})
    res={"cpu":str(cpu),"memory":mem,"pods":"110"}
    n={"apiVersion":"v1","kind":"Node","metadata":{"name":name,"labels":l,"creationTimestamp":T},
       "spec":{"providerID":f"aws:///{zone}/i-{name}"},
       "status":{"allocatable":res,"capacity":res,"conditions":[{"type":"Ready","status":"True","lastTransitionTime":T}]}}
    if taints: n["spec"]["taints"]=taints
    cl={k:v for k,v in l.items() if k!="kubernetes.io/hostname"}
    c={"apiVersion":"karpenter.sh/v1","kind":"NodeClaim","metadata":{"name":f"{pool}-{name}","labels":cl},
       "spec":{"nodeClassRef":{"group":"karpenter.k8s.aws","kind":"EC2NodeClass","name":"default"}},
       "status":{"nodeName":name,"providerID":f"aws:///{zone}/i-{name}","conditions":[
           {"type":t,"status":"True","lastTransitionTime":T} for t in ("Launched","Registered","Initialized","Consolidatable")],
           "lastPodEventTime":T}}
    return [n,c]
def pod(name, node, cpu="100m", mem="64Mi", labels=None, owner=None, ns="default", **spec):
    p={"apiVersion":"v1","kind":"Pod","metadata":{"name":name,"namespace":ns,"labels":labels or {"app":name},"creationTimestamp":T,
        "ownerReferences":[{"apiVersion":"apps/v1","kind":owner[0] if owner else "ReplicaSet","name":owner[1] if owner else name+"-rs","controller":True}]},
       "spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":cpu,"memory":mem}}}],"nodeName":node},"status":{"phase":"Running"}}
    ports=spec.pop("ports",None)
    if ports: p["spec"]["containers"][0]["ports"]=ports
    p["spec"].update(spec)
    return p
def daemonset(name, cpu="500m", mem="64Mi", **spec):
    s={"containers":[{"name":"c","resources":{"requests":{"cpu":cpu,"memory":mem}}}],"tolerations":[{"operator":"Exists"}]}
    ports=spec.pop("ports",None)
    if ports: s["containers"][0]["ports"]=ports
    s.update(spec)
    return {"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":name,"namespace":"kube-system"},
            "spec":{"selector":{"matchLabels":{"app":name}},"template":{"metadata":{"labels":{"app":name}},"spec":s}}}
def ds_pod(dsname, node, cpu="500m", mem="64Mi", **spec):
    p=pod(dsname+"-"+node, node, cpu, mem, labels={"app":dsname}, owner=("DaemonSet",dsname), ns="kube-system", **spec)
    p["metadata"]["ownerReferences"][0]["apiVersion"]="apps/v1"
    return p
def write(name, source, types, objects, args, expect):
    d=os.path.join(ROOT,name); os.makedirs(d,exist_ok=True)
    docs=[{"apiVersion":"kubectl-consolidation/v1alpha1","kind":"SnapshotInfo","capturedAt":"2026-11-29T10:00:00Z"},
          {"apiVersion":"kubectl-consolidation/v1alpha1","kind":"InstanceTypes","items":types},
          {"apiVersion":"v1","kind":"List","items":objects}]
    with open(os.path.join(d,"snapshot.yaml"),"w") as f:
        f.write(f"# {name}\n# {source}\n")
        for doc in docs: f.write("---\n"+json.dumps(doc,indent=1)+"\n")
    with open(os.path.join(d,"expect.json"),"w") as f:
        f.write(json.dumps({"source":source,"args":args,"expect":expect},indent=1)+"\n")
K='pkg/controllers/provisioning/scheduling'
U='kubernetes-sigs/karpenter@v1.14.0 '
small=itype("c.small",2,"8Gi",0.10); large=itype("c.large",8,"32Gi",0.40)
def ex(node="node-a", *extra): return list(extra)+["explain", f"node/{node}"]
filler=lambda n: pod("filler-"+n, n, "100m", annotations=None) if False else pod("filler-"+n, n, "100m")
zone_aff=lambda vals:{"nodeSelectorTerms":[{"matchExpressions":[{"key":"topology.kubernetes.io/zone","operator":"In","values":v}]} for v in vals]}

# 1 queue
write("own-queue-affinity-target-lands-later",
 U+K+"/queue.go Queue.Pop/Push and scheduler.go Solve (a failed pod is pushed back and retried while the queue makes progress); topology.go countDomains excludes the pods being scheduled, so the follower's required pod affinity has no target until the leader (queued after it, smaller cpu) lands on node-b; on the retry the follower joins it: node-a can be deleted",
 [small,large],
 [pool()]+node("node-a","c.large",8,"32Gi")+node("node-b","c.large",8,"32Gi")+[
  pod("follower","node-a","500m",affinity={"podAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":"leader"}},"topologyKey":"topology.kubernetes.io/zone"}]}}),
  pod("leader","node-a","100m"),
  pod("filler","node-b","1")],
 ex(), {"verdict":"Underutilized","podsInclude":[{"pod":"default/follower","to":"node-b"},{"pod":"default/leader","to":"node-b"}]})

# 2 OR terms, first term first
write("own-preferences-first-or-term-first",
 U+"pkg/scheduling/requirements.go newPodRequirements (only NodeSelectorTerms[0] joins the pod's requirements) and "+K+"/preferences.go removeRequiredNodeAffinityTerm (the first term is dropped only after a failure): the pod's first term (zone-b) is tried first on every destination and a new NodeClaim in zone-b takes it, although node-b in zone-a has room for its second term; the same-priced replacement is not cheaper, so node-a stays",
 [small],
 [pool()]+node("node-a","c.small",2,"8Gi")+node("node-b","c.small",2,"8Gi")+[
  pod("picky","node-a","500m",affinity={"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":zone_aff([["zone-b"],["zone-a"]])}}),
  pod("filler","node-b","100m")],
 ex(), {"verdict":"Safe","podsInclude":[{"pod":"default/picky","to":"new NodeClaim #1"}]})

pref={"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":50,"preference":{"matchExpressions":[{"key":"topology.kubernetes.io/zone","operator":"In","values":["zone-b"]}]}}]}}
# 3 preferred node affinity treated as required
write("own-preferences-preferred-node-affinity-first",
 U+"pkg/scheduling/requirements.go newPodRequirements (podRequirementTypeAll adds the heaviest preferred term) and "+K+"/scheduler.go trySchedule (relaxation only after add fails): the preference for zone-b binds while a new NodeClaim in zone-b can take the pod, so it does not go to node-b in zone-a; the same-priced replacement is not cheaper",
 [small],
 [pool()]+node("node-a","c.small",2,"8Gi")+node("node-b","c.small",2,"8Gi")+[
  pod("prefers-b","node-a","500m",affinity=pref), pod("filler","node-b","100m")],
 ex(), {"verdict":"Safe","podsInclude":[{"pod":"default/prefers-b","to":"new NodeClaim #1"}]})

# 4 PREFERENCE_POLICY=Ignore
write("own-preference-policy-ignore",
 U+K+"/scheduler.go updateCachedPodData (PreferencePolicyIgnore builds NewStrictPodRequirements, without the preferred node-affinity term) and pkg/controllers/disruption/helpers.go SimulateScheduling (scheduling.IgnorePreferences): with PREFERENCE_POLICY=Ignore the zone-b preference is dropped up front, the pod goes to node-b and node-a is deleted (contrast own-preferences-preferred-node-affinity-first)",
 [small],
 [pool()]+node("node-a","c.small",2,"8Gi")+node("node-b","c.small",2,"8Gi")+[
  pod("prefers-b","node-a","500m",affinity=pref), pod("filler","node-b","100m")],
 ex("node-a","--karpenter-setting","PREFERENCE_POLICY=Ignore"), {"verdict":"Underutilized","action":"delete","podsInclude":[{"pod":"default/prefers-b","to":"node-b"}]})

soft=[{"key":"soft","value":"x","effect":"PreferNoSchedule"}]
# 5/6 PreferNoSchedule
for name, taints, verdict, src in [
 ("own-prefer-no-schedule-not-tolerated", None, {"verdict":"Safe","podsInclude":[{"pod":"default/app","to":"nowhere"}]},
  "scheduler.go NewScheduler (ToleratePreferNoSchedule only when some NodePool template has a PreferNoSchedule taint) and pkg/scheduling/taints.go Taints.ToleratesPod (every effect must be tolerated): no template has such a taint, so the pod never tolerates node-b's PreferNoSchedule taint; the pool's cpu limit leaves no room for a new NodeClaim; node-a stays"),
 ("own-prefer-no-schedule-tolerated-when-template-has-it", [{"key":"soft","value":"y","effect":"PreferNoSchedule"}], {"verdict":"Underutilized","action":"delete","podsInclude":[{"pod":"default/app","to":"node-b"}]},
  "scheduler.go NewScheduler (a template with a PreferNoSchedule taint turns on ToleratePreferNoSchedule) and preferences.go toleratePreferNoScheduleTaints (the last relaxation adds an Exists toleration for PreferNoSchedule): the pod then fits node-b and node-a is deleted (contrast own-prefer-no-schedule-not-tolerated)")]:
  write(name, U+K+"/"+src, [small],
   [pool(taints=taints, limits={"cpu":"3"})]+node("node-a","c.small",2,"8Gi")+node("node-b","c.small",2,"8Gi",taints=soft)+[
    pod("app","node-a","500m"), pod("filler","node-b","100m",tolerations=[{"key":"soft","operator":"Exists"}])],
   ex(), verdict)

# 7 hostname placeholder
write("own-hostname-placeholder-keeps-pod-home",
 U+K+"/nodeclaim.go NewNodeClaim (each new NodeClaim requires kubernetes.io/hostname In [hostname-placeholder-NNNN]) and NodeClaim.CanAdd (Compatible with the pod's requirements): a pod whose nodeSelector names node-a's hostname fits no new NodeClaim, so the cheaper replacement cannot take it and node-a stays",
 [small,large],
 [pool()]+node("node-a","c.large",8,"32Gi")+[
  pod("pinned","node-a","500m",nodeSelector={"kubernetes.io/hostname":"node-a"})],
 ex(), {"verdict":"Safe","podsInclude":[{"pod":"default/pinned","to":"nowhere"}]})

agent=daemonset("agent","1")
# 8 DS headroom on existing nodes
write("own-daemonset-headroom-on-existing-node",
 U+K+"/scheduler.go calculateExistingNodeClaims/getCompatibleDaemonPods and existingnode.go NewExistingNode (remainingResources keeps room for compatible DaemonSet pods not yet on the node): node-b must keep 1 cpu for the agent DaemonSet pod it does not run yet, so the 1200m pod does not fit there (1.9 - 1 < 1.2); nor does it fit a new c.small with the agent (1.2 + 1 > 1.9): node-a stays",
 [small],
 [pool(), agent]+node("node-a","c.small",2,"8Gi")+node("node-b","c.small",2,"8Gi")+[
  ds_pod("agent","node-a","1"), pod("app","node-a","1200m"), pod("filler","node-b","100m")],
 ex(), {"verdict":"Safe","podsInclude":[{"pod":"default/app","to":"nowhere"}]})

# 9 DS overhead per instance-type group
only_large={"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"node.kubernetes.io/instance-type","operator":"In","values":["c.large"]}]}]}}}
write("own-daemonset-overhead-per-instance-type",
 U+K+"/scheduler.go buildDaemonOverheadGroups/isDaemonPodCompatible (a DaemonSet counts only on the instance types its requirements intersect) and nodeclaim.go filterInstanceTypesByRequirements (each group's overhead on its own types): the large-agent DaemonSet runs only on c.large, so c.small (1.9 cpu allocatable) takes the 1500m pod without it and replaces the c.large node",
 [small,large],
 [pool(), daemonset("large-agent","1500m",affinity=only_large)]+node("node-a","c.large",8,"32Gi")+[
  ds_pod("large-agent","node-a","1500m"), pod("app","node-a","1500m")],
 ex(), {"verdict":"Underutilized","action":"replace"})

# 10 DS host ports on new claims
write("own-daemonset-host-port-on-new-claim",
 U+K+"/scheduler.go buildDaemonOverheadGroups (HostPortUsage of the group's DaemonSet pods) and nodeclaim.go filterInstanceTypesByRequirements (a group whose host ports conflict with the pod is skipped): every new NodeClaim of the pool runs the exporter DaemonSet (nodeSelector role=new, a template label) on hostPort 9100, which the pod also needs, so no new NodeClaim takes it and node-a (without the label, so without the exporter) stays",
 [small,large],
 [pool(labels={"role":"new"}), daemonset("exporter","100m",nodeSelector={"role":"new"},ports=[{"containerPort":9100,"hostPort":9100}])]+node("node-a","c.large",8,"32Gi")+[
  pod("app","node-a","500m",ports=[{"containerPort":9100,"hostPort":9100}])],
 ex(), {"verdict":"Safe","podsInclude":[{"pod":"default/app","to":"nowhere"}]})

# 11/12 minValues
def fam(name,cpu,mem,price,f):
    t=itype(name,cpu,mem,price); t["labels"]={"karpenter.k8s.aws/instance-family":f}; return t
mv_types=[fam("a.small",2,"8Gi",0.10,"a"),fam("a.large",8,"32Gi",0.40,"a"),fam("b.large",8,"32Gi",0.45,"b"),fam("a.xlarge",16,"64Gi",0.80,"a")]
mv_pool=pool(reqs=[{"key":"karpenter.sh/capacity-type","operator":"In","values":["on-demand"]},{"key":"karpenter.k8s.aws/instance-family","operator":"Exists","minValues":3}])
mv_objs=[mv_pool]+node("node-a","a.xlarge",16,"64Gi",labels={"karpenter.k8s.aws/instance-family":"a"})+[pod("app","node-a","3")]
write("own-min-values-strict-in-can-add",
 U+K+"/nodeclaim.go filterInstanceTypesByRequirements (Requirements.HasMinValues → SatisfiesMinValues; without relaxMinValues the remaining types are dropped): the 3-cpu pod fits a.large, b.large and a.xlarge, only 2 instance families where the pool asks minValues 3, so under MIN_VALUES_POLICY=Strict (the default) no NodeClaim can take it and node-a stays",
 mv_types, mv_objs, ex(), {"verdict":"Safe","podsInclude":[{"pod":"default/app","to":"nowhere"}]})
write("own-min-values-best-effort-relaxes",
 U+K+"/nodeclaim.go filterInstanceTypesByRequirements (relaxMinValues lowers the requirement's MinValues to what the types reach) and nodeclaim.go RemoveInstanceTypeOptionsByPriceAndMinValues (the price filter checks the relaxed value): under MIN_VALUES_POLICY=BestEffort the claim keeps a.large, b.large and a.xlarge with minValues 2; a.large and b.large are cheaper than a.xlarge and span 2 families, so node-a is replaced (contrast own-min-values-strict-in-can-add)",
 mv_types, mv_objs, ex("node-a","--karpenter-setting","MIN_VALUES_POLICY=BestEffort"), {"verdict":"Underutilized","action":"replace"})

# 13 reserved
rs=itype("c.small",2,"8Gi",0.10,offerings=[{"zone":"zone-a","capacityType":"spot","price":0.05},{"zone":"zone-a","capacityType":"reserved","price":0.02,"reservationId":"cr-1"}])
rl=itype("c.large",8,"32Gi",0.40,offerings=[{"zone":"zone-a","capacityType":"spot","price":0.15}])
write("own-reserved-offering-pinned",
 U+K+"/nodeclaim.go offeringsToReserve (the NodeClaim reserves the available compatible reserved offerings) and FinalizeScheduling (it is pinned to capacity type reserved and their reservation IDs before the price filter): the spot node's replacement is a reserved c.small (cr-1), not a spot-to-spot move",
 [rs,rl],
 [pool(reqs=[{"key":"karpenter.sh/capacity-type","operator":"In","values":["spot","reserved"]}])]+node("node-a","c.large",8,"32Gi",ct="spot")+[pod("app","node-a","500m")],
 ["plan"], {"commands":[{"decision":"replace","candidates":["node-a"],"replacements":[{"capacityType":"reserved","instanceTypes":["c.small"]}]}]})

# 14/15 DRA
claims=[{"name":"gpu","resourceClaimName":"gpu-claim"}]
dra_objs=[pool()]+node("node-a","c.small",2,"8Gi")+node("node-b","c.small",2,"8Gi")+[pod("trainer","node-a","500m",resourceClaims=claims),pod("filler","node-b","100m")]
write("own-dra-pod-blocks-consolidation",
 U+K+"/scheduler.go Scheduler.add (with IgnoreDRARequests, the default, a pod with resource claims gets a DRAError) and trySchedule (a DRAError is returned without relaxation): the trainer pod cannot be rescheduled, so node-a stays although node-b has room",
 [small], dra_objs, ex(), {"verdict":"Safe","podsInclude":[{"pod":"default/trainer","to":"nowhere","whyInclude":["pod has Dynamic Resource Allocation requirements that are not yet supported by Karpenter"]}]})
write("own-dra-ignore-false-moves-pod",
 U+K+"/scheduler.go Scheduler.add (the DRAError is raised only while IgnoreDRARequests is true): with IGNORE_DRA_REQUESTS=false upstream allocates the claims from ResourceSlices, which the replay does not read; it places the pod as an ordinary one and says so, so node-a is deleted (contrast own-dra-pod-blocks-consolidation)",
 [small], dra_objs, ex("node-a","--karpenter-setting","IGNORE_DRA_REQUESTS=false"), {"verdict":"Underutilized","action":"delete","podsInclude":[{"pod":"default/trainer","to":"node-b"}]})

# 16 limits: each opened NodeClaim is subtracted
spread_anti={"podAntiAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":[{"labelSelector":{"matchLabels":{"app":"spread"}},"topologyKey":"kubernetes.io/hostname"}]}}
write("own-limits-subtract-opened-claims",
 U+K+"/scheduler.go addToNewNodeClaim (remainingResources = subtractMax(remaining, the new NodeClaim's instance types)) and filterByRemainingResources: with limits cpu 3 and the candidate's own capacity not counted (calculateExistingNodeClaims), the first replacement c.small takes 2 cpu of the limit; the second pod, kept apart by hostname anti-affinity, finds every instance type over the 1 cpu left, so node-a stays",
 [small,large],
 [pool(limits={"cpu":"3"})]+node("node-a","c.large",8,"32Gi")+[
  pod("spread-1","node-a","1500m",labels={"app":"spread"},affinity=spread_anti),
  pod("spread-2","node-a","1500m",labels={"app":"spread"},affinity=spread_anti)],
 ex(), {"verdict":"Safe","podsInclude":[{"pod":"default/spread-1","to":"new NodeClaim #1"},{"pod":"default/spread-2","to":"nowhere","whyInclude":["nodepool/default: all available instance types exceed limits for nodepool, NodePool=default"]}]})
