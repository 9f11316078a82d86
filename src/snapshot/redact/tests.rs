//! Redaction keeps every reference resolvable and every selector selecting.

use k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use serde_json::json;

use super::{redact, rewrite_text};
use crate::snapshot::{Snapshot, StringMap};

fn snapshot() -> Snapshot {
    let labels = json!({
        "kubernetes.io/hostname": "ip-10-0-1-7", "node.kubernetes.io/instance-type": "m5.large",
        "topology.kubernetes.io/zone": "us-east-1a", "karpenter.sh/capacity-type": "spot",
        "karpenter.sh/nodepool": "payments", "kubernetes.io/arch": "amd64", "team": "payments",
        "karpenter.k8s.aws/instance-cpu": "2"
    });
    let documents = vec![
        json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "payments", "uid": "u-np"},
               "spec": {"template": {"spec": {
                   "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "secret-class"},
                   "requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In", "values": ["spot"]},
                                    {"key": "team", "operator": "In", "values": ["payments"]}]}}}}),
        json!({"apiVersion": "v1", "kind": "Node",
               "metadata": {"name": "ip-10-0-1-7", "uid": "u-node", "labels": labels,
                            "annotations": {"karpenter.sh/do-not-disrupt": "true", "owner": "alice@example.com"},
                            "ownerReferences": [{"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim", "name": "payments-x7k2p", "uid": "u-nc"}]},
               "spec": {"providerID": "aws:///us-east-1a/i-0123456789abcdef0",
                        "taints": [{"key": "dedicated", "value": "payments", "effect": "NoSchedule"}]}}),
        json!({"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
               "metadata": {"name": "payments-x7k2p", "uid": "u-nc", "labels": labels,
                            "ownerReferences": [{"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "name": "payments", "uid": "u-np"}]},
               "status": {"nodeName": "ip-10-0-1-7", "providerID": "aws:///us-east-1a/i-0123456789abcdef0",
                          "conditions": [{"type": "Drifted", "status": "True", "message": "NodePool payments drifted"}]}}),
        json!({"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "checkout-7d9f-abcde", "namespace": "shop", "uid": "u-pod",
                            "labels": {"app": "checkout", "tier": "web", "pod-template-hash": "7d9f"},
                            "annotations": {"controller.kubernetes.io/pod-deletion-cost": "-100"},
                            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "checkout-7d9f", "uid": "u-rs", "controller": true}]},
               "spec": {"nodeName": "ip-10-0-1-7",
                        "nodeSelector": {"team": "payments"},
                        "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "payments", "effect": "NoSchedule"}],
                        "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                            {"labelSelector": {"matchLabels": {"app": "checkout"}}, "topologyKey": "kubernetes.io/hostname",
                             "namespaces": ["shop"]}]},
                                     "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                            {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-east-1a"]},
                                                  {"key": "karpenter.k8s.aws/instance-cpu", "operator": "Gt", "values": ["1"]}],
                             "matchFields": [{"key": "metadata.name", "operator": "In", "values": ["ip-10-0-1-7"]}]}]}}},
                        "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                            "whenUnsatisfiable": "DoNotSchedule",
                            "labelSelector": {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["web", "api"]}]}}],
                        "containers": [{"name": "app", "resources": {"requests": {"cpu": "500m"}}}],
                        "volumes": [{"name": "data", "persistentVolumeClaim": {"claimName": "checkout-data"}}]},
               "status": {"containerStatuses": [{"name": "app", "allocatedResources": {"cpu": "1"},
                                                 "resources": {"requests": {"cpu": "1"}}}]}}),
        json!({"apiVersion": "policy/v1", "kind": "PodDisruptionBudget",
               "metadata": {"name": "checkout", "namespace": "shop"},
               "spec": {"maxUnavailable": 1, "selector": {"matchLabels": {"app": "checkout"},
                        "matchExpressions": [{"key": "tier", "operator": "In", "values": ["web"]}]}}}),
        json!({"apiVersion": "apps/v1", "kind": "ReplicaSet",
               "metadata": {"name": "checkout-7d9f", "namespace": "shop", "uid": "u-rs",
                            "ownerReferences": [{"apiVersion": "apps/v1", "kind": "Deployment", "name": "checkout", "uid": "u-d"}]},
               "spec": {"replicas": 3, "selector": {"matchLabels": {"app": "checkout", "pod-template-hash": "7d9f"}}}}),
        json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "checkout", "namespace": "shop", "uid": "u-d"},
               "spec": {"selector": {"matchLabels": {"app": "checkout"}}}}),
        json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "checkout-data", "namespace": "shop"},
               "spec": {"volumeName": "pvc-1234", "storageClassName": "gp3"}}),
        json!({"apiVersion": "v1", "kind": "PersistentVolume", "metadata": {"name": "pvc-1234"},
               "spec": {"storageClassName": "gp3", "nodeAffinity": {"required": {"nodeSelectorTerms": [
                   {"matchExpressions": [{"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["us-east-1a"]}]}]}}}}),
        json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "checkout-7d9f-abcde.17a", "namespace": "shop"},
               "involvedObject": {"kind": "Pod", "name": "checkout-7d9f-abcde", "namespace": "shop"},
               "reason": "DisruptionBlocked", "message": "Cannot disrupt Node ip-10-0-1-7: pdb shop/checkout prevents pod evictions"}),
        // v1.14.0 wording (`types.go` NewCandidate through `pretty.Sentence`, serrors suffix).
        json!({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "ip-10-0-1-7.18eda9817dc12ab8", "namespace": "default"},
               "involvedObject": {"kind": "Node", "name": "ip-10-0-1-7"}, "lastTimestamp": "2026-12-03T06:23:00Z",
               "source": {"component": "karpenter"}, "reportingComponent": "karpenter",
               "reason": "DisruptionBlocked", "message": "Pdb prevents pod evictions (PodDisruptionBudget=[shop/checkout])"}),
        json!({"apiVersion": "kubectl-consolidation/v1alpha1", "kind": "DisruptionMetrics", "samples": [
               {"name": "karpenter_nodepools_allowed_disruptions", "labels": {"nodepool": "payments", "reason": "Underutilized"}, "value": 0},
               {"name": "karpenter_voluntary_disruption_eligible_nodes", "labels": {"reason": "underutilized"}, "value": 1}]}),
        json!({"apiVersion": "kubectl-consolidation/v1alpha1", "kind": "InstanceTypes",
               "items": [{"name": "m5.large", "capacity": {"cpu": "2"}, "offerings": [{"zone": "us-east-1a", "capacityType": "spot", "price": 0.03}]}]}),
    ];
    let mut snapshot = Snapshot::from_documents(documents).unwrap();
    snapshot.info.unread.push(crate::snapshot::UnreadKind {
        kind: "PodDisruptionBudget".to_owned(),
        reason: "403 Forbidden: poddisruptionbudgets is forbidden: User \"alice@example.com\" cannot list".to_owned(),
    });
    snapshot
}

/// `LabelSelector` semantics for the operators the test uses.
fn matches(selector: &LabelSelector, labels: &StringMap) -> bool {
    let by_labels = selector.match_labels.iter().flatten().all(|(k, v)| labels.get(k) == Some(v));
    let by_expressions = selector.match_expressions.iter().flatten().all(|e| match e.operator.as_str() {
        "In" => labels.get(&e.key).is_some_and(|v| e.values.iter().flatten().any(|x| x == v)),
        "NotIn" => !labels.get(&e.key).is_some_and(|v| e.values.iter().flatten().any(|x| x == v)),
        "Exists" => labels.contains_key(&e.key),
        _ => false,
    });
    by_labels && by_expressions
}

#[test]
fn selectors_still_match_after_redaction() {
    let original = snapshot();
    let r = redact(&original);
    let pod = &r.pods[0];
    assert_ne!(pod.metadata.labels["app"], "checkout");
    let pdb = r.pdbs[0].spec.selector.as_ref().unwrap();
    assert!(matches(pdb, &pod.metadata.labels));
    for workload in r.replica_sets.iter().chain(&r.deployments) {
        assert!(matches(workload.spec.selector.as_ref().unwrap(), &pod.metadata.labels));
    }
    let anti = pod.spec.affinity.as_ref().unwrap().pod_anti_affinity.as_ref().unwrap();
    let term = &anti.required_during_scheduling_ignored_during_execution.as_ref().unwrap()[0];
    assert!(matches(term.label_selector.as_ref().unwrap(), &pod.metadata.labels));
    assert_eq!(term.namespaces.as_ref().unwrap()[0], *pod.metadata.namespace.as_ref().unwrap());
    let spread = &pod.spec.topology_spread_constraints[0];
    assert!(matches(spread.label_selector.as_ref().unwrap(), &pod.metadata.labels));
    let node = &r.nodes[0];
    assert!(pod.spec.node_selector.iter().all(|(k, v)| node.metadata.labels.get(k) == Some(v)));
    assert_eq!(pod.spec.tolerations[0].value, node.spec.taints[0].value);
    assert_ne!(pod.spec.tolerations[0].value.as_deref(), Some("payments"));
    let node_affinity = pod.spec.affinity.as_ref().unwrap().node_affinity.as_ref().unwrap();
    let required = node_affinity.required_during_scheduling_ignored_during_execution.as_ref().unwrap();
    let term = &required.node_selector_terms[0];
    assert_eq!(term.match_fields.as_ref().unwrap()[0].values.as_ref().unwrap()[0], node.metadata.name);
    let expressions = term.match_expressions.as_ref().unwrap();
    assert_eq!(expressions[0].values.as_ref().unwrap()[0], "us-east-1a");
    assert_eq!(expressions[1].values.as_ref().unwrap()[0], "1", "Gt compares numbers");
}

#[test]
fn references_still_resolve() {
    let r = redact(&snapshot());
    let (pool, node, claim, pod) = (&r.node_pools[0], &r.nodes[0], &r.node_claims[0], &r.pods[0]);
    assert!(pool.metadata.name.starts_with("nodepool-"));
    assert_eq!(node.metadata.labels["karpenter.sh/nodepool"], pool.metadata.name);
    assert_eq!(claim.metadata.labels["karpenter.sh/nodepool"], pool.metadata.name);
    assert_eq!(claim.metadata.owner_references[0].name, pool.metadata.name);
    assert_eq!(claim.metadata.owner_references[0].uid, pool.metadata.uid);
    assert_eq!(node.metadata.owner_references[0].name, claim.metadata.name);
    assert_eq!(claim.status.node_name.as_ref(), Some(&node.metadata.name));
    assert_eq!(claim.status.provider_id, node.spec.provider_id);
    assert!(node.spec.provider_id.as_deref().unwrap().starts_with("aws:///"));
    assert_eq!(node.metadata.labels["kubernetes.io/hostname"], node.metadata.name);
    assert_eq!(pod.spec.node_name.as_ref(), Some(&node.metadata.name));
    let rs = &r.replica_sets[0];
    assert_eq!(pod.metadata.owner_references[0].name, rs.metadata.name);
    assert_eq!(rs.metadata.owner_references[0].name, r.deployments[0].metadata.name);
    let claim_name = &pod.spec.volumes[0].persistent_volume_claim.as_ref().unwrap().claim_name;
    assert_eq!(claim_name, &r.pvcs[0].metadata.name);
    assert_eq!(r.pvcs[0].spec.volume_name.as_ref(), Some(&r.pvs[0].metadata.name));
    assert_eq!(r.pvcs[0].spec.storage_class_name, r.pvs[0].spec.storage_class_name);
    let event = &r.events[0];
    assert_eq!(event.involved_object.name, pod.metadata.name);
    assert_eq!(event.involved_object.namespace, pod.metadata.namespace);
    let class = pool.spec.template.spec.node_class_ref.as_ref().unwrap();
    assert!(class["name"].as_str().unwrap().starts_with("nodeclass-"));
    // An in-place resize's status still names its (renamed) container.
    assert_ne!(pod.spec.containers[0].name, "app");
    assert_eq!(pod.status.container_statuses.as_ref().expect("kept")[0].name, pod.spec.containers[0].name);
}

#[test]
fn keeps_what_the_replay_compares_and_hides_the_rest() {
    let original = snapshot();
    let r = redact(&original);
    let node = &r.nodes[0];
    for key in [
        "node.kubernetes.io/instance-type",
        "topology.kubernetes.io/zone",
        "karpenter.sh/capacity-type",
        "kubernetes.io/arch",
    ] {
        assert_eq!(node.metadata.labels[key], original.nodes[0].metadata.labels[key], "{key}");
    }
    assert_eq!(node.metadata.annotations["karpenter.sh/do-not-disrupt"], "true");
    assert_eq!(r.pods[0].metadata.annotations["controller.kubernetes.io/pod-deletion-cost"], "-100");
    assert_eq!(r.node_pools[0].spec.template.spec.requirements[0].values, ["spot"]);
    assert_eq!(r.instance_types, original.instance_types);
    assert_eq!(r.info.unread[0].reason, "403 Forbidden");
    let text = serde_json::to_string(&r.to_document()).unwrap();
    for secret in ["payments", "checkout", "ip-10-0-1-7", "shop", "alice", "i-0123456789abcdef0", "secret-class", "gp3"]
    {
        assert!(!text.contains(secret), "`{secret}` survived redaction");
    }
    assert!(r.events[0].message.starts_with("Cannot disrupt Node node-"), "{}", r.events[0].message);
    let blocked = &r.events[1].message;
    assert!(
        blocked.starts_with("Pdb prevents pod evictions (PodDisruptionBudget=[") && !blocked.contains("shop/"),
        "{blocked}"
    );
    assert_eq!(r.events[1].source, original.events[1].source, "Karpenter's component name stays");
    let metrics = r.disruption_metrics.as_ref().expect("metrics kept");
    let pool = metrics.samples.iter().find_map(|s| s.labels.get("nodepool")).expect("a pool label");
    assert_eq!(pool, &r.node_pools[0].metadata.name, "the label is the pool's redacted name");
    assert_eq!(metrics.samples.iter().find_map(|s| s.labels.get("reason")).map(String::as_str), Some("Underutilized"));
    assert!(r.node_claims[0].status.conditions[0].message.as_deref().unwrap().starts_with("NodePool nodepool-"));
}

#[test]
fn deterministic_and_sorted_and_round_trips() {
    let original = snapshot();
    let (a, b) = (redact(&original), redact(&original));
    assert_eq!(a, b);
    let reread = Snapshot::from_documents(vec![a.to_document()]).unwrap();
    assert_eq!(reread, a, "a redacted snapshot is a valid, sorted snapshot");
    assert_eq!(redact(&Snapshot::default()), Snapshot::default());
}

#[test]
fn free_text_keeps_unknown_words() {
    let known = [("web".to_owned(), "pod-1".to_owned())].into_iter().collect();
    assert_eq!(rewrite_text("pod ns/web is web-1, web.", &known), "pod ns/pod-1 is web-1, pod-1.");
}

#[test]
fn an_ec2nodeclass_keeps_what_shapes_capacity_and_loses_the_accounts_details() {
    let mut documents = vec![json!({"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass",
        "metadata": {"name": "secret-class"},
        "spec": {"role": "KarpenterNodeRole-prod", "tags": {"team": "payments"},
                 "amiSelectorTerms": [{"alias": "al2023@latest"}, {"id": "ami-0abc"}],
                 "kubelet": {"maxPods": 110},
                 "blockDeviceMappings": [{"deviceName": "/dev/xvda", "rootVolume": true,
                                          "ebs": {"volumeSize": "100Gi", "kmsKeyID": "arn:aws:kms:key"}}]},
        "status": {"subnets": [{"id": "subnet-0abc", "zone": "us-east-1a", "zoneID": "use1-az1"}]}})];
    documents.push(snapshot().to_document());
    let original = Snapshot::from_documents(documents).expect("snapshot");
    let redacted = redact(&original);
    let class = &redacted.node_classes[0];
    let text = serde_json::to_string(class).expect("json");
    for secret in ["secret-class", "KarpenterNodeRole", "payments", "ami-0abc", "kms", "subnet-0abc"] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    assert_eq!(class.spec["kubelet"]["maxPods"], 110);
    assert_eq!(class.spec["blockDeviceMappings"][0]["ebs"]["volumeSize"], "100Gi");
    assert_eq!(class.status["subnets"][0]["zone"], "us-east-1a");
    let reference = redacted.node_pools[0].spec.template.spec.node_class_ref.as_ref().expect("ref");
    assert_eq!(reference["name"], class.metadata.name.as_str(), "the pool still points at its class");
}

/// What `pdb-audit` and the forecast do without the ReplicaSet object (take the pod's
/// `pod-template-hash` off its ReplicaSet's name) gives the redacted Deployment.
#[test]
fn a_replica_set_is_renamed_after_its_deployment_and_hash() {
    let r = redact(&snapshot());
    let (pod, rs, deployment) = (&r.pods[0], &r.replica_sets[0], &r.deployments[0]);
    let hash = &pod.metadata.labels["pod-template-hash"];
    assert_ne!(hash, "7d9f");
    assert_eq!(rs.metadata.name, format!("{}-{hash}", deployment.metadata.name));
    assert_eq!(rs.spec.selector.as_ref().unwrap().match_labels.as_ref().unwrap()["pod-template-hash"], *hash);
    assert!(pod.metadata.name.starts_with(&format!("{}-", rs.metadata.name)), "{}", pod.metadata.name);
    let derived = pod.metadata.owner_references[0].name.strip_suffix(hash.as_str()).and_then(|n| n.strip_suffix('-'));
    assert_eq!(derived, Some(deployment.metadata.name.as_str()));
}

/// `snapshot` streams: the bytes it writes object by object are those of the whole document,
/// plain or redacted, in JSON and YAML.
#[test]
fn streamed_text_is_the_whole_documents_text() {
    let mut documents = vec![snapshot().to_document()];
    // Objects whose redacted names sort apart from their originals' order would be reordered.
    for (ns, name) in [("zeta", "a-pod"), ("alpha", "z-pod"), ("kube-system", "m-pod")] {
        documents.push(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": ns}}));
    }
    // A generic ephemeral volume's claim is renamed after its pod and volume, not mapped.
    documents.push(json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "y-pod", "namespace": "zeta"},
        "spec": {"volumes": [{"name": "scratch", "ephemeral": {"volumeClaimTemplate": {"spec": {}}}}]}}));
    for name in ["y-pod-scratch", "b-claim"] {
        documents.push(json!({"apiVersion": "v1", "kind": "PersistentVolumeClaim",
                              "metadata": {"name": name, "namespace": "zeta"}}));
    }
    let original = Snapshot::from_documents(documents).expect("snapshot");
    for json in [true, false] {
        let mut plain = Vec::new();
        original.write_text(json, false, &mut plain).expect("written");
        assert_eq!(String::from_utf8(plain).expect("utf-8"), original.to_text(json), "json: {json}");
        let mut redacted = Vec::new();
        original.write_text(json, true, &mut redacted).expect("written");
        assert_eq!(String::from_utf8(redacted).expect("utf-8"), redact(&original).to_text(json), "json: {json}");
    }
}
