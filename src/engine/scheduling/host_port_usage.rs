//! Host ports a pod asks for, and whether they clash with the ports already taken on a node.
//!
//! Mirrors karpenter `pkg/scheduling/hostportusage.go` (`GetHostPorts`, `HostPortUsage.Conflicts`),
//! which follows kube-scheduler's NodePorts filter.

use std::borrow::Cow;
use std::cell::OnceCell;

use crate::engine::incremental::pod_table::position_in;
use crate::snapshot::Pod;

/// `(port, protocol, host IP)`.
pub(crate) type HostPort = (i32, String, String);

/// The host ports the pod's containers and init containers ask for (`GetHostPorts`): the
/// protocol defaults to TCP and the host IP to `0.0.0.0`.
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

/// Every snapshot pod's host ports, by position in `snapshot.pods`, worked out when first
/// asked: the first-fit checks ask on every node they try, and each landing asks again.
#[derive(Debug)]
pub(crate) struct HostPortTable<'a> {
    pods: &'a [Pod],
    ports: Vec<OnceCell<Box<[HostPort]>>>,
}

impl<'a> HostPortTable<'a> {
    pub(crate) fn new(pods: &'a [Pod]) -> Self {
        HostPortTable { pods, ports: std::iter::repeat_with(OnceCell::new).take(pods.len()).collect() }
    }

    /// [`host_ports`] of `pod`: kept for a pod of the snapshot, worked out for any other (a
    /// copy with preferences relaxed).
    pub(crate) fn of<'s>(&'s self, pod: &Pod) -> Cow<'s, [HostPort]> {
        match position_in(self.pods, pod).and_then(|at| self.ports.get(at)) {
            Some(cell) => Cow::Borrowed(cell.get_or_init(|| host_ports(pod).into_boxed_slice())),
            None => Cow::Owned(host_ports(pod)),
        }
    }
}

/// Whether any of `wanted` clashes with a port in `used`: same port and protocol, and the same
/// host IP or either one a wildcard (`HostPortUsage.Conflicts`).
pub(crate) fn host_port_conflict<'p>(wanted: &[HostPort], mut used: impl Iterator<Item = &'p HostPort>) -> bool {
    if wanted.is_empty() {
        return false;
    }
    let wild = |ip: &str| ip == "0.0.0.0" || ip == "::" || ip.is_empty();
    used.any(|(p, pr, i)| {
        wanted.iter().any(|(port, proto, ip)| p == port && pr == proto && (i == ip || wild(i) || wild(ip)))
    })
}

#[cfg(test)]
mod tests {
    use super::{host_port_conflict, HostPort};

    fn port(port: i32, protocol: &str, ip: &str) -> HostPort {
        (port, protocol.to_owned(), ip.to_owned())
    }

    #[test]
    fn same_port_and_protocol_clash_unless_both_ips_are_specific_and_differ() {
        let used = [port(80, "TCP", "0.0.0.0")];
        assert!(host_port_conflict(&[port(80, "TCP", "10.0.0.1")], used.iter()), "a wildcard holds every IP");
        assert!(!host_port_conflict(&[port(80, "UDP", "0.0.0.0")], used.iter()), "another protocol is free");
        assert!(!host_port_conflict(&[port(81, "TCP", "0.0.0.0")], used.iter()));
        let specific = [port(80, "TCP", "10.0.0.1")];
        assert!(!host_port_conflict(&[port(80, "TCP", "10.0.0.2")], specific.iter()));
        assert!(host_port_conflict(&[port(80, "TCP", "::")], specific.iter()));
        assert!(!host_port_conflict(&[], used.iter()), "a pod without host ports never clashes");
    }
}
