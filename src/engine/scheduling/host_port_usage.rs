//! Host ports a pod asks for, and whether they clash with the ports already taken on a node.
//!
//! Mirrors karpenter `pkg/scheduling/hostportusage.go` (`GetHostPorts`, `HostPortUsage.Conflicts`),
//! which follows kube-scheduler's NodePorts filter.

use crate::snapshot::Pod;

/// `(port, protocol, host IP)`.
pub(crate) type HostPort = (i32, String, String);

pub(crate) fn host_ports(pod: &Pod) -> Vec<HostPort> {
    pod.spec
        .containers
        .iter()
        .chain(&pod.spec.init_containers)
        .flat_map(|c| &c.ports)
        .filter_map(|p| {
            let port = p.host_port.filter(|p| *p > 0)?;
            let protocol = p.protocol.clone().unwrap_or_else(|| "TCP".into());
            Some((port, protocol, p.host_ip.clone().unwrap_or_else(|| "0.0.0.0".into())))
        })
        .collect()
}

pub(crate) fn host_port_conflict<'p>(pod: &Pod, mut used: impl Iterator<Item = &'p HostPort>) -> bool {
    let wanted = host_ports(pod);
    if wanted.is_empty() {
        return false;
    }
    let wild = |ip: &str| ip == "0.0.0.0" || ip == "::" || ip.is_empty();
    used.any(|(p, pr, i)| {
        wanted.iter().any(|(port, proto, ip)| p == port && pr == proto && (i == ip || wild(i) || wild(ip)))
    })
}
