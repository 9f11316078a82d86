//! The embedded AWS catalogue: every EC2 type Karpenter's AWS provider can launch, and the
//! provider's formulas that turn those facts into capacity and overhead.
//!
//! The facts live in `data/aws-instance-types.tsv`, compiled by `scripts/gen-aws-catalogue.py`
//! from aws/karpenter-provider-aws (commit and dates in the file's header). The formulas are
//! the twins of `pkg/providers/instancetype/types.go`: `memory` (arm64 CMA reserve, VM memory
//! overhead), `pods` and `ENILimitedPods` (reserved ENIs), `kubeReservedResources` (CPU tiers,
//! `11 × pods + 255` MiB), `systemReservedResources`, `evictionThreshold` (100Mi, 10 % nodefs,
//! `evictionHard` overrides) and `ephemeralStorage` (20Gi root volume unless the NodeClass
//! maps one). The data is parsed once, on first use.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use crate::quantity::Quantity;
use crate::snapshot::Resources;

use super::nodeclass::{AmiFamily, NodeClassShape};

/// The compiled facts (tab-separated; see the file's header for the columns).
const DATA: &str = include_str!("../../data/aws-instance-types.tsv");
/// Where Karpenter's label keys for instance facts start (`pkg/apis/v1/labels.go`).
pub(crate) const LABEL_PREFIX: &str = "karpenter.k8s.aws/instance-";
/// `pricing.go` `Reset`: a region without static prices uses us-east-1's.
pub(crate) const FALLBACK_REGION: &str = "us-east-1";
const MIB: i128 = 1024 * 1024;

/// The Windows IP resource the VPC resource controller advertises (`v1.ResourcePrivateIPv4Address`).
pub(crate) const PRIVATE_IPV4_ADDRESS: &str = "vpc.amazonaws.com/PrivateIPv4Address";

/// One EC2 instance type's facts.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AwsType {
    pub name: String,
    pub arch: String,
    pub os: String,
    pub vcpu: i64,
    pub memory_mib: i64,
    /// ENIs on the default network card and IPv4 addresses per ENI (`zz_generated.vpclimits.go`).
    pub enis: i64,
    pub ipv4_per_eni: i64,
    /// Branch ENIs (`vpc.amazonaws.com/pod-eni`), 0 when not trunking-compatible.
    pub pod_eni: i64,
    /// `karpenter.k8s.aws/instance-*` labels (key suffix → value).
    pub labels: Vec<(String, String)>,
    /// GPUs, Neuron devices, EFA: resource name → count.
    pub extended: Vec<(String, i64)>,
    /// Static on-demand USD/h per region.
    pub prices: Vec<(String, f64)>,
}

/// Karpenter's settings that shape capacity (`pkg/operator/options/options.go`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct CapacitySettings {
    /// `VM_MEMORY_OVERHEAD_PERCENT` (default 0.075).
    pub vm_memory_overhead_percent: f64,
    /// `RESERVED_ENIS` (default 0).
    pub reserved_enis: i64,
}

impl Default for CapacitySettings {
    fn default() -> Self {
        CapacitySettings { vm_memory_overhead_percent: 0.075, reserved_enis: 0 }
    }
}

/// Every type of the embedded catalogue, by name.
pub(crate) fn catalogue() -> &'static BTreeMap<String, AwsType> {
    static PARSED: OnceLock<BTreeMap<String, AwsType>> = OnceLock::new();
    PARSED.get_or_init(|| parse(DATA))
}

/// The provenance lines of the data file (its `#` header).
pub(crate) fn provenance() -> impl Iterator<Item = &'static str> {
    DATA.lines().take_while(|l| l.starts_with('#')).map(|l| l.trim_start_matches('#').trim())
}

/// `aws/karpenter-provider-aws@1d927085dd81`: where the facts were compiled from.
pub(crate) fn origin() -> String {
    let commit = provenance()
        .find_map(|l| l.split_once("aws/karpenter-provider-aws @ ").map(|(_, c)| c.trim().to_owned()))
        .unwrap_or_default();
    format!("aws/karpenter-provider-aws@{}", commit.get(..12).unwrap_or(&commit))
}

fn parse(text: &str) -> BTreeMap<String, AwsType> {
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let Some(header) = lines.next() else { return BTreeMap::new() };
    let columns: Vec<&str> = header.split('\t').collect();
    let mut out = BTreeMap::new();
    for line in lines {
        let cells: Vec<&str> = line.split('\t').collect();
        let get = |name: &str| columns.iter().position(|c| *c == name).and_then(|i| cells.get(i)).copied();
        let number = |name: &str| get(name).and_then(|v| v.parse::<i64>().ok()).unwrap_or(0);
        let Some(name) = get("name") else { continue };
        let mut it = AwsType {
            name: name.to_owned(),
            arch: get("arch").unwrap_or("amd64").to_owned(),
            os: get("os").unwrap_or("linux").to_owned(),
            vcpu: number("cpu"),
            memory_mib: number("memory"),
            enis: number("enis"),
            ipv4_per_eni: number("ipv4"),
            pod_eni: number("pod-eni"),
            labels: Vec::new(),
            extended: Vec::new(),
            prices: Vec::new(),
        };
        for (column, cell) in columns.iter().zip(&cells) {
            if *cell == "-" {
                continue;
            }
            if let Some(region) = column.strip_prefix("price.") {
                if let Ok(price) = cell.parse::<f64>() {
                    it.prices.push((region.to_owned(), price));
                }
            } else if *column == "extended" {
                it.extended = cell
                    .split(',')
                    .filter_map(|kv| kv.split_once('='))
                    .filter_map(|(k, v)| Some((k.to_owned(), v.parse().ok()?)))
                    .collect();
            } else if !matches!(*column, "name" | "arch" | "os" | "enis" | "ipv4" | "pod-eni") {
                it.labels.push(((*column).to_owned(), (*cell).to_owned()));
            }
        }
        out.insert(it.name.clone(), it);
    }
    out
}

impl AwsType {
    /// `types.go memory`: MiB less the arm64 CMA reserve, less the VM overhead (rounded up).
    pub(crate) fn memory_capacity_mib(&self, settings: &CapacitySettings) -> i64 {
        let mib = self.memory_mib - if self.arch == "arm64" { 64 } else { 0 };
        // Upstream computes in bytes: ceil(bytes × percent / 1024 / 1024).
        #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
        let overhead =
            ((i128::from(mib) * MIB) as f64 * settings.vm_memory_overhead_percent / 1024.0 / 1024.0).ceil() as i64;
        mib - overhead
    }

    /// `types.go ENILimitedPods`: usable ENIs × (IPv4 per ENI − 1) + 2, 0 with no usable ENI.
    pub(crate) fn eni_limited_pods(&self, reserved_enis: i64, efa_only_interfaces: i64) -> i64 {
        let usable = (self.enis - reserved_enis - efa_only_interfaces).max(0);
        if usable == 0 {
            0
        } else {
            usable * (self.ipv4_per_eni - 1) + 2
        }
    }

    /// `types.go pods`: kubelet maxPods, else ENI-limited (110 on Windows), capped by podsPerCore.
    pub(crate) fn pods(&self, shape: &NodeClassShape, settings: &CapacitySettings) -> i64 {
        let mut count = match shape.max_pods {
            Some(n) => n,
            None if shape.ami_family.supports_eni_limited_pod_density() => {
                self.eni_limited_pods(settings.reserved_enis, shape.efa_only_interfaces)
            }
            None => 110,
        };
        if let Some(per_core) = shape.pods_per_core.filter(|p| *p > 0) {
            if shape.ami_family.pods_per_core_enabled() {
                count = count.min(per_core * self.vcpu);
            }
        }
        count
    }

    /// `computeCapacity`: cpu, memory, ephemeral-storage, pods and the extended resources.
    pub(crate) fn capacity(&self, shape: &NodeClassShape, settings: &CapacitySettings) -> Resources {
        let mut out = Resources::new();
        out.insert("cpu".into(), Quantity::from_units(i128::from(self.vcpu)));
        out.insert("memory".into(), Quantity::from_units(i128::from(self.memory_capacity_mib(settings)) * MIB));
        out.insert("ephemeral-storage".into(), shape.root_volume);
        out.insert("pods".into(), Quantity::from_units(i128::from(self.pods(shape, settings))));
        if self.pod_eni > 0 {
            out.insert("vpc.amazonaws.com/pod-eni".into(), Quantity::from_units(i128::from(self.pod_eni)));
        }
        for (name, count) in &self.extended {
            out.insert(name.clone(), Quantity::from_units(i128::from(*count)));
        }
        if self.runs_windows(shape) {
            out.insert(PRIVATE_IPV4_ADDRESS.into(), Quantity::from_units(i128::from(self.private_ipv4_addresses())));
        }
        out
    }

    /// Whether the type may run Windows under `shape`: `NewInstanceType` adds the private IPv4
    /// resource when the type's requirements admit `kubernetes.io/os=windows`, which `getOS`
    /// gives for a Windows AMI family on amd64 only.
    fn runs_windows(&self, shape: &NodeClassShape) -> bool {
        shape.ami_family == AmiFamily::Windows && self.arch == "amd64"
    }

    /// `types.go privateIPv4Address`: IPv4 addresses per interface less one, 0 when unknown.
    fn private_ipv4_addresses(&self) -> i64 {
        (self.ipv4_per_eni - 1).max(0)
    }

    /// kubeReserved + systemReserved + evictionThreshold, summed per resource (core
    /// `InstanceType.computeAllocatable` subtracts exactly this sum).
    pub(crate) fn overhead(&self, shape: &NodeClassShape, settings: &CapacitySettings) -> Resources {
        // AL2/AL2023/Custom size kube-reserved memory by ENI-limited pods with no reserved ENI.
        let pods_for_memory = if shape.ami_family.uses_eni_limited_memory_overhead() {
            self.eni_limited_pods(0, shape.efa_only_interfaces)
        } else {
            self.pods(shape, settings)
        };
        let mut kube = Resources::new();
        kube.insert("memory".into(), Quantity::from_units(i128::from(11 * pods_for_memory + 255) * MIB));
        kube.insert("ephemeral-storage".into(), Quantity::from_units(1024 * MIB));
        kube.insert("cpu".into(), Quantity::from_milli(i128::from(kube_reserved_cpu_milli(self.vcpu * 1000))));
        kube.extend(shape.kube_reserved.iter().map(|(k, v)| (k.clone(), *v)));

        let memory = Quantity::from_units(i128::from(self.memory_capacity_mib(settings)) * MIB);
        let mut eviction = Resources::new();
        eviction.insert("memory".into(), Quantity::from_units(100 * MIB));
        eviction.insert("ephemeral-storage".into(), percent_of(shape.root_volume, 10.0));
        if let Some(v) = shape.eviction_hard.get("memory.available") {
            eviction.insert("memory".into(), eviction_signal(memory, v));
        }
        if let Some(v) = shape.eviction_hard.get("nodefs.available") {
            eviction.insert("ephemeral-storage".into(), eviction_signal(shape.root_volume, v));
        }

        let mut out = Resources::new();
        for part in [&kube, &shape.system_reserved, &eviction] {
            for (k, v) in part {
                let entry = out.entry(k.clone()).or_insert(Quantity::ZERO);
                *entry = entry.plus(*v);
            }
        }
        out
    }

    /// The well-known labels this type carries (`computeRequirements`' single values).
    pub(crate) fn requirement_labels(&self, region: Option<&str>) -> BTreeMap<String, String> {
        let mut out: BTreeMap<String, String> =
            self.labels.iter().map(|(k, v)| (format!("{LABEL_PREFIX}{k}"), v.clone())).collect();
        out.insert("node.kubernetes.io/instance-type".into(), self.name.clone());
        out.insert("kubernetes.io/arch".into(), self.arch.clone());
        out.insert("kubernetes.io/os".into(), self.os.clone());
        if let Some(region) = region {
            out.insert("topology.kubernetes.io/region".into(), region.to_owned());
        }
        out
    }

    /// The static on-demand price in `region`, else us-east-1's (`pricing.go Reset`); the
    /// second value says whether the fallback was used.
    pub(crate) fn on_demand_price(&self, region: &str) -> Option<(f64, bool)> {
        let find = |r: &str| self.prices.iter().find(|(name, _)| name == r).map(|(_, p)| *p);
        find(region).map(|p| (p, false)).or_else(|| find(FALLBACK_REGION).map(|p| (p, region != FALLBACK_REGION)))
    }
}

impl AmiFamily {
    /// `FeatureFlags().SupportsENILimitedPodDensity`: all but Windows.
    fn supports_eni_limited_pod_density(self) -> bool {
        !matches!(self, AmiFamily::Windows)
    }

    /// `FeatureFlags().PodsPerCoreEnabled`: all but Bottlerocket.
    fn pods_per_core_enabled(self) -> bool {
        !matches!(self, AmiFamily::Bottlerocket)
    }

    /// `FeatureFlags().UsesENILimitedMemoryOverhead`: AL2, AL2023 and Custom.
    fn uses_eni_limited_memory_overhead(self) -> bool {
        matches!(self, AmiFamily::Al2 | AmiFamily::Al2023 | AmiFamily::Custom)
    }
}

/// `kubeReservedResources`' CPU: 6 % of the first core, 1 % of the second, 0.5 % of cores 3–4,
/// 0.25 % of the rest; each tier truncated to whole millicores as upstream does.
fn kube_reserved_cpu_milli(milli: i64) -> i64 {
    let tiers: [(i64, i64, f64); 4] =
        [(0, 1000, 0.06), (1000, 2000, 0.01), (2000, 4000, 0.005), (4000, 1 << 31, 0.0025)];
    let mut total = 0;
    for (start, end, percent) in tiers {
        if milli >= start {
            #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
            let part = ((milli.min(end) - start) as f64 * percent) as i64;
            total += part;
        }
    }
    total
}

/// `computeEvictionSignal`: a percentage of `capacity` (rounded up; 100 % disables), else a
/// quantity.
fn eviction_signal(capacity: Quantity, value: &str) -> Quantity {
    match value.strip_suffix('%') {
        Some(p) => {
            let p = p.trim().parse::<f64>().unwrap_or(0.0);
            percent_of(capacity, if (p - 100.0).abs() < f64::EPSILON { 0.0 } else { p })
        }
        None => value.parse::<Quantity>().unwrap_or(Quantity::ZERO),
    }
}

fn percent_of(q: Quantity, percent: f64) -> Quantity {
    #[allow(clippy::cast_precision_loss, clippy::cast_possible_truncation)]
    let units = (q.units_ceil() as f64 / 100.0 * percent).ceil() as i128;
    Quantity::from_units(units)
}

#[cfg(test)]
mod tests;
