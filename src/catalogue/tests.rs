//! The precedence of the catalogue's sources, on small snapshots.

use super::{complete, CapacitySettings};
use crate::quantity::Quantity;
use crate::snapshot::Snapshot;

fn snapshot(yaml: &str) -> Snapshot {
    let docs: Vec<serde_json::Value> = serde_saphyr::from_multiple(yaml).expect("test yaml");
    Snapshot::from_documents(docs).expect("test snapshot")
}

const CAPTURE: &str = r"
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: default}
spec: {amiSelectorTerms: [{alias: al2023@latest}]}
status: {subnets: [{id: subnet-a, zone: us-west-2a}, {id: subnet-b, zone: us-west-2b}]}
---
apiVersion: karpenter.k8s.aws/v1
kind: EC2NodeClass
metadata: {name: dense}
spec: {amiSelectorTerms: [{alias: al2023@latest}], kubelet: {maxPods: 110}}
---
apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/region: us-west-2,
           topology.kubernetes.io/zone: us-west-2a, karpenter.sh/capacity-type: on-demand,
           karpenter.k8s.aws/ec2nodeclass: default}
spec: {providerID: 'aws:///us-west-2a/i-1'}
status:
  capacity: {cpu: '2', memory: 7800Mi, pods: '29'}
  allocatable: {cpu: 1930m, memory: 7000Mi, pods: '29'}
";

#[test]
fn a_capture_without_document_gets_the_whole_aws_catalogue_with_nodes_first() {
    let mut s = snapshot(CAPTURE);
    let findings = complete(&mut s, &CapacitySettings::default());
    assert!(s.instance_types.len() > 1000, "{}", s.instance_types.len());
    let m5 = s.instance_types.iter().find(|t| t.name == "m5.large" && t.node_class.is_none()).expect("m5.large");
    // The Node's real memory outranks the catalogue's estimate (7577Mi).
    assert_eq!(m5.capacity.get("memory"), Some(&Quantity::from_units(7800 << 20)));
    assert_eq!(m5.sources.get("memory").map(String::as_str), Some("node"));
    assert_eq!(m5.sources.get("ephemeral-storage").map(String::as_str), Some("aws-catalogue"));
    assert_eq!(m5.labels.get("karpenter.k8s.aws/instance-family").map(String::as_str), Some("m5"));
    // Zones from the NodeClass's subnets; us-west-2 has no static prices: us-east-1's.
    let zones: Vec<&str> = m5.offerings.iter().map(|o| o.zone.as_str()).collect();
    assert_eq!(zones, ["us-west-2a", "us-west-2a", "us-west-2b", "us-west-2b"]);
    assert!(m5.offerings.iter().all(|o| o.price == Some(0.096)));
    assert!(findings.iter().any(|f| f.contains("us-west-2")), "{findings:?}");
    // The `dense` NodeClass's variant: maxPods 110 and no node figures.
    let dense = s.instance_types.iter().find(|t| t.name == "m5.large" && t.node_class.as_deref() == Some("dense"));
    assert_eq!(dense.and_then(|t| t.capacity.get("pods")), Some(&Quantity::from_units(110)));
}

#[test]
fn a_document_is_the_catalogue_and_is_left_alone() {
    let doc = r"
apiVersion: kubectl-consolidation/v1alpha1
kind: InstanceTypes
items:
- name: m5.large
  capacity: {cpu: '2', memory: 8Gi, pods: '5'}
  offerings: [{zone: us-west-2a, capacityType: on-demand, price: 1.0}]
";
    let mut s = snapshot(&format!("{CAPTURE}---{doc}"));
    let before = s.instance_types.clone();
    let findings = complete(&mut s, &CapacitySettings::default());
    assert_eq!(s.instance_types, before);
    assert!(findings.is_empty(), "{findings:?}");
}

#[test]
fn metrics_prices_outrank_static_ones_and_their_raw_memory_yields_to_the_formula() {
    let metrics = "karpenter_cloudprovider_instance_type_offering_price_estimate{capacity_type=\"spot\",instance_type=\"m5.large\",zone=\"us-west-2a\"} 0.031\n\
karpenter_cloudprovider_instance_type_memory_bytes{instance_type=\"m5.large\"} 8589934592\n";
    let mut s = snapshot(CAPTURE);
    s.nodes.clear();
    s.merge_instance_types(crate::source::prices::parse_prices(metrics, "m").expect("metrics"));
    complete(&mut s, &CapacitySettings::default());
    let m5 = s.instance_types.iter().find(|t| t.name == "m5.large" && t.node_class.is_none()).expect("m5.large");
    assert_eq!(s.instance_types.iter().filter(|t| t.node_class.is_none()).count(), 1, "metrics name the types");
    assert_eq!(m5.capacity.get("memory"), Some(&Quantity::from_units(7577 << 20)));
    assert_eq!(m5.offerings.len(), 1);
    assert_eq!(m5.offerings[0].price, Some(0.031));
    assert_eq!(m5.offerings[0].source.as_deref(), Some("metrics"));
}

#[test]
fn another_provider_gets_only_node_figures_and_a_warning_naming_what_is_missing() {
    let yaml = r"
apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {node.kubernetes.io/instance-type: Standard_D2s_v5, topology.kubernetes.io/zone: eastus-1,
           karpenter.sh/capacity-type: on-demand}
spec: {providerID: 'azure:///subscriptions/x'}
status:
  capacity: {cpu: '2', memory: 8Gi, pods: '30'}
  allocatable: {cpu: 1900m, memory: 6Gi, pods: '30'}
";
    let mut s = snapshot(yaml);
    let findings = complete(&mut s, &CapacitySettings::default());
    assert_eq!(s.instance_types.len(), 1);
    let it = &s.instance_types[0];
    assert_eq!(it.overhead.get("cpu"), Some(&Quantity::from_milli(100)));
    assert_eq!(it.sources.get("pods").map(String::as_str), Some("node"));
    assert!(findings.iter().any(|f| f.starts_with("prices are unknown for 1")), "{findings:?}");
}

#[test]
fn a_key_the_type_lacks_fails_every_operator_but_not_in_and_does_not_exist() {
    use crate::engine::scheduling::instance_type_compatible;
    use crate::engine::scheduling::requirements::Requirements;
    use crate::snapshot::NodeSelectorRequirement;
    let mut s = snapshot(CAPTURE);
    complete(&mut s, &CapacitySettings::default());
    let get = |name: &str| s.instance_types.iter().find(|t| t.name == name && t.node_class.is_none()).expect(name);
    let reqs = |op: &str, values: &[&str]| {
        Requirements::from_karpenter(&[NodeSelectorRequirement {
            key: "karpenter.k8s.aws/instance-gpu-count".into(),
            operator: op.into(),
            values: values.iter().map(|v| (*v).to_owned()).collect(),
            min_values: None,
        }])
    };
    // instancetype/types.go: gpu-count is DoesNotExist on CPU-only types.
    assert!(!instance_type_compatible(get("m5.large"), &reqs("Exists", &[])));
    assert!(!instance_type_compatible(get("m5.large"), &reqs("Gte", &["1"])));
    assert!(instance_type_compatible(get("m5.large"), &reqs("DoesNotExist", &[])));
    assert!(instance_type_compatible(get("m5.large"), &reqs("NotIn", &["8"])));
    assert!(instance_type_compatible(get("p4d.24xlarge"), &reqs("Gte", &["8"])));
    assert!(!instance_type_compatible(get("p4d.24xlarge"), &reqs("Lte", &["7"])));
}

#[test]
fn a_running_node_teaches_only_its_memory_the_smallest_of_its_type() {
    // aws instancetype.go UpdateInstanceTypeCapacityFromNode caches a Node's memory capacity
    // (kept when smaller) and DefaultProvider.get overrides only Capacity[memory].
    let second = r"
---
apiVersion: v1
kind: Node
metadata:
  name: n2
  labels: {node.kubernetes.io/instance-type: m5.large, topology.kubernetes.io/region: us-west-2,
           topology.kubernetes.io/zone: us-west-2a, karpenter.k8s.aws/ec2nodeclass: default}
spec: {providerID: 'aws:///us-west-2a/i-2'}
status:
  capacity: {cpu: '3', memory: 7700Mi, pods: '110'}
  allocatable: {cpu: 2900m, memory: 7600Mi, pods: '110'}
";
    let mut s = snapshot(&format!("{CAPTURE}{second}"));
    complete(&mut s, &CapacitySettings::default());
    let m5 = s.instance_types.iter().find(|t| t.name == "m5.large" && t.node_class.is_none()).expect("m5.large");
    assert_eq!(m5.capacity.get("memory"), Some(&Quantity::from_units(7700 << 20)));
    assert_eq!(m5.capacity.get("pods"), Some(&Quantity::from_units(29)), "pods stay the ENI formula");
    assert_eq!(m5.capacity.get("cpu"), Some(&Quantity::from_units(2)));
    assert_eq!(m5.sources.get("pods").map(String::as_str), Some("aws-catalogue"));
    assert_eq!(m5.sources.get("overhead").map(String::as_str), Some("aws-catalogue"));
}
