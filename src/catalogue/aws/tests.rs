//! The embedded catalogue against every row of PRICING.md §5: vCPU, memory, ENIs, max pods,
//! Karpenter's allocatable cpu and memory (AL2023, defaults), and the us-east-1 on-demand price.
//! The table's figures come from Karpenter's generated instance-type reference
//! (`website/content/en/preview/reference/instance-types.md`, v1.14.0) and
//! `zz_generated.pricing_aws.go`; its ap-northeast-2 column is not in any Karpenter file, so
//! Seoul falls back to us-east-1 as `pricing.go Reset` does (last test).

use super::{catalogue, CapacitySettings};
use crate::catalogue::nodeclass::NodeClassShape;
use crate::engine::scheduling::allocatable;
use crate::quantity::Quantity;
use crate::snapshot::InstanceType;

/// (type, arch, vCPU, memory GiB, max pods, ENIs, IPv4 per ENI, allocatable milli-CPU,
/// allocatable memory MiB, us-east-1 USD/h)
#[rustfmt::skip]
#[allow(clippy::unreadable_literal, clippy::type_complexity, reason = "the table's rows, as PRICING.md prints them")]
const FACTS: [(&str, &str, i64, i64, i64, i64, i64, i128, i128, f64); 56] = [
    ("m5.large", "amd64", 2, 8, 29, 3, 10, 1930, 6903, 0.096),
    ("m5.xlarge", "amd64", 4, 16, 58, 4, 15, 3920, 14162, 0.192),
    ("m5.2xlarge", "amd64", 8, 32, 58, 4, 15, 7910, 29317, 0.384),
    ("m5.4xlarge", "amd64", 16, 64, 234, 8, 30, 15890, 57691, 0.768),
    ("m6i.large", "amd64", 2, 8, 29, 3, 10, 1930, 6903, 0.096),
    ("m6i.xlarge", "amd64", 4, 16, 58, 4, 15, 3920, 14162, 0.192),
    ("m6i.2xlarge", "amd64", 8, 32, 58, 4, 15, 7910, 29317, 0.384),
    ("m6i.4xlarge", "amd64", 16, 64, 234, 8, 30, 15890, 57691, 0.768),
    ("m7i.large", "amd64", 2, 8, 29, 3, 10, 1930, 6903, 0.1008),
    ("m7i.xlarge", "amd64", 4, 16, 58, 4, 15, 3920, 14162, 0.2016),
    ("m7i.2xlarge", "amd64", 8, 32, 58, 4, 15, 7910, 29317, 0.4032),
    ("m7i.4xlarge", "amd64", 16, 64, 234, 8, 30, 15890, 57691, 0.8064),
    ("c5.large", "amd64", 2, 4, 29, 3, 10, 1930, 3114, 0.085),
    ("c5.xlarge", "amd64", 4, 8, 58, 4, 15, 3920, 6584, 0.17),
    ("c5.2xlarge", "amd64", 8, 16, 58, 4, 15, 7910, 14162, 0.34),
    ("c5.4xlarge", "amd64", 16, 32, 234, 8, 30, 15890, 27381, 0.68),
    ("c6i.large", "amd64", 2, 4, 29, 3, 10, 1930, 3114, 0.085),
    ("c6i.xlarge", "amd64", 4, 8, 58, 4, 15, 3920, 6584, 0.17),
    ("c6i.2xlarge", "amd64", 8, 16, 58, 4, 15, 7910, 14162, 0.34),
    ("c6i.4xlarge", "amd64", 16, 32, 234, 8, 30, 15890, 27381, 0.68),
    ("c7i.large", "amd64", 2, 4, 29, 3, 10, 1930, 3114, 0.08925),
    ("c7i.xlarge", "amd64", 4, 8, 58, 4, 15, 3920, 6584, 0.1785),
    ("c7i.2xlarge", "amd64", 8, 16, 58, 4, 15, 7910, 14162, 0.357),
    ("c7i.4xlarge", "amd64", 16, 32, 234, 8, 30, 15890, 27381, 0.714),
    ("r5.large", "amd64", 2, 16, 29, 3, 10, 1930, 14481, 0.126),
    ("r5.xlarge", "amd64", 4, 32, 58, 4, 15, 3920, 29317, 0.252),
    ("r5.2xlarge", "amd64", 8, 64, 58, 4, 15, 7910, 59627, 0.504),
    ("r5.4xlarge", "amd64", 16, 128, 234, 8, 30, 15890, 118312, 1.008),
    ("r6i.large", "amd64", 2, 16, 29, 3, 10, 1930, 14481, 0.126),
    ("r6i.xlarge", "amd64", 4, 32, 58, 4, 15, 3920, 29317, 0.252),
    ("r6i.2xlarge", "amd64", 8, 64, 58, 4, 15, 7910, 59627, 0.504),
    ("r6i.4xlarge", "amd64", 16, 128, 234, 8, 30, 15890, 118312, 1.008),
    ("r7i.large", "amd64", 2, 16, 29, 3, 10, 1930, 14481, 0.1323),
    ("r7i.xlarge", "amd64", 4, 32, 58, 4, 15, 3920, 29317, 0.2646),
    ("r7i.2xlarge", "amd64", 8, 64, 58, 4, 15, 7910, 59627, 0.5292),
    ("r7i.4xlarge", "amd64", 16, 128, 234, 8, 30, 15890, 118312, 1.0584),
    ("t3.medium", "amd64", 2, 4, 17, 3, 6, 1930, 3246, 0.0416),
    ("t3.large", "amd64", 2, 8, 35, 3, 12, 1930, 6837, 0.0832),
    ("t3.xlarge", "amd64", 4, 16, 58, 4, 15, 3920, 14162, 0.1664),
    ("t3.2xlarge", "amd64", 8, 32, 58, 4, 15, 7910, 29317, 0.3328),
    ("m6g.large", "arm64", 2, 8, 29, 3, 10, 1930, 6844, 0.077),
    ("m6g.xlarge", "arm64", 4, 16, 58, 4, 15, 3920, 14103, 0.154),
    ("m6g.2xlarge", "arm64", 8, 32, 58, 4, 15, 7910, 29258, 0.308),
    ("m6g.4xlarge", "arm64", 16, 64, 234, 8, 30, 15890, 57632, 0.616),
    ("m7g.large", "arm64", 2, 8, 29, 3, 10, 1930, 6844, 0.0816),
    ("m7g.xlarge", "arm64", 4, 16, 58, 4, 15, 3920, 14103, 0.1632),
    ("m7g.2xlarge", "arm64", 8, 32, 58, 4, 15, 7910, 29258, 0.3264),
    ("m7g.4xlarge", "arm64", 16, 64, 234, 8, 30, 15890, 57632, 0.6528),
    ("c7g.large", "arm64", 2, 4, 29, 3, 10, 1930, 3055, 0.0725),
    ("c7g.xlarge", "arm64", 4, 8, 58, 4, 15, 3920, 6525, 0.145),
    ("c7g.2xlarge", "arm64", 8, 16, 58, 4, 15, 7910, 14103, 0.29),
    ("c7g.4xlarge", "arm64", 16, 32, 234, 8, 30, 15890, 27322, 0.58),
    ("r7g.large", "arm64", 2, 16, 29, 3, 10, 1930, 14422, 0.1071),
    ("r7g.xlarge", "arm64", 4, 32, 58, 4, 15, 3920, 29258, 0.2142),
    ("r7g.2xlarge", "arm64", 8, 64, 58, 4, 15, 7910, 59568, 0.4284),
    ("r7g.4xlarge", "arm64", 16, 128, 234, 8, 30, 15890, 118253, 0.8568),
];

const MIB: i128 = 1 << 20;

#[test]
fn every_row_of_the_facts_table_is_reproduced() {
    let settings = CapacitySettings::default();
    let shape = NodeClassShape::default();
    for (name, arch, vcpu, gib, pods, enis, ipv4, cpu_milli, memory_mib, price) in FACTS {
        let it = catalogue().get(name).unwrap_or_else(|| panic!("{name} is not in the catalogue"));
        assert_eq!((it.arch.as_str(), it.vcpu, it.memory_mib), (arch, vcpu, gib * 1024), "{name}");
        assert_eq!((it.enis, it.ipv4_per_eni), (enis, ipv4), "{name}");
        let built = InstanceType {
            capacity: it.capacity(&shape, &settings),
            overhead: it.overhead(&shape, &settings),
            ..InstanceType::default()
        };
        let alloc = allocatable(&built);
        assert_eq!(alloc.get("pods"), Some(&Quantity::from_units(pods.into())), "{name} pods");
        assert_eq!(alloc.get("cpu"), Some(&Quantity::from_milli(cpu_milli)), "{name} cpu");
        assert_eq!(alloc.get("memory"), Some(&Quantity::from_units(memory_mib * MIB)), "{name} memory");
        assert_eq!(alloc.get("ephemeral-storage"), Some(&Quantity::from_units(17 << 30)), "{name} storage");
        assert_eq!(it.on_demand_price("us-east-1"), Some((price, false)), "{name} price");
    }
}

#[test]
fn regions_without_static_prices_fall_back_to_us_east_1() {
    let m5 = &catalogue()["m5.large"];
    assert_eq!(m5.on_demand_price("ap-northeast-2"), Some((0.096, true)));
    assert_eq!(m5.on_demand_price("us-gov-west-1"), Some((0.121, false)));
}

#[test]
fn settings_and_kubelet_change_the_figures_as_upstream_does() {
    let m5 = &catalogue()["m5.large"];
    let shape = NodeClassShape::default();
    // RESERVED_ENIS=1: (3 − 1) × 9 + 2 = 20 pods; kube-reserved memory keeps 29 pods (ENILimitedPods(…, 0, …)).
    let reserved = CapacitySettings { reserved_enis: 1, ..CapacitySettings::default() };
    assert_eq!(m5.pods(&shape, &reserved), 20);
    assert_eq!(m5.overhead(&shape, &reserved), m5.overhead(&shape, &CapacitySettings::default()));
    // VM_MEMORY_OVERHEAD_PERCENT=0.1: 8192 − ceil(819.2) = 7372 MiB.
    let vm = CapacitySettings { vm_memory_overhead_percent: 0.1, ..CapacitySettings::default() };
    assert_eq!(m5.memory_capacity_mib(&vm), 7372);
    // maxPods 110 capped by podsPerCore 10 on 2 vCPU.
    let kubelet = NodeClassShape { max_pods: Some(110), pods_per_core: Some(10), ..NodeClassShape::default() };
    assert_eq!(m5.pods(&kubelet, &CapacitySettings::default()), 20);
    // evictionHard memory.available 10% of 7577Mi capacity replaces the 100Mi default.
    let eviction = NodeClassShape {
        eviction_hard: [("memory.available".to_owned(), "10%".to_owned())].into(),
        ..NodeClassShape::default()
    };
    let overhead = m5.overhead(&eviction, &CapacitySettings::default());
    let expected = (574 * MIB) + (7577 * MIB / 10 + 1);
    assert_eq!(overhead.get("memory"), Some(&Quantity::from_units(expected)));
}

#[test]
fn gpu_types_carry_their_labels_and_resources() {
    let p4d = &catalogue()["p4d.24xlarge"];
    let labels = p4d.requirement_labels(Some("us-east-1"));
    assert_eq!(labels.get("karpenter.k8s.aws/instance-gpu-name").map(String::as_str), Some("a100"));
    assert_eq!(labels.get("karpenter.k8s.aws/instance-gpu-count").map(String::as_str), Some("8"));
    let capacity = p4d.capacity(&NodeClassShape::default(), &CapacitySettings::default());
    assert_eq!(capacity.get("nvidia.com/gpu"), Some(&Quantity::from_units(8)));
    assert!(catalogue().len() > 1000, "the whole EC2 catalogue, not a sample");
}

#[test]
fn windows_types_carry_private_ipv4_addresses_and_others_do_not() {
    // types.go NewInstanceType: os=windows (a Windows AMI family on amd64) adds
    // vpc.amazonaws.com/PrivateIPv4Address = IPv4 per interface - 1 (privateIPv4Address).
    use crate::catalogue::nodeclass::AmiFamily;
    let key = super::PRIVATE_IPV4_ADDRESS;
    let windows = NodeClassShape { ami_family: AmiFamily::Windows, ..NodeClassShape::default() };
    let settings = CapacitySettings::default();
    let m5 = &catalogue()["m5.large"];
    assert_eq!(m5.capacity(&windows, &settings).get(key), Some(&Quantity::from_units(9)));
    assert_eq!(m5.capacity(&NodeClassShape::default(), &settings).get(key), None, "AL2023: linux only");
    let graviton = catalogue().values().find(|t| t.arch == "arm64").expect("an arm64 type");
    assert_eq!(graviton.capacity(&windows, &settings).get(key), None, "getOS: no windows on arm64");
}
