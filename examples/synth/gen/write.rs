//! Streaming the snapshot as one JSON `v1 List`, one object per line.

use std::io::{self, Write};

use kubectl_consolidation::snapshot::{InstanceType, Snapshot, API_VERSION};
use serde::Serialize;

/// An object with `apiVersion` and `kind` first, as kubectl prints them.
#[derive(Serialize)]
struct Typed<'a, T: Serialize> {
    #[serde(rename = "apiVersion")]
    api_version: &'a str,
    kind: &'a str,
    #[serde(flatten)]
    object: &'a T,
}

#[derive(Serialize)]
struct Items<'a> {
    items: &'a [InstanceType],
}

struct ListWriter<W: Write> {
    out: W,
    first: bool,
}

impl<W: Write> ListWriter<W> {
    fn item<T: Serialize>(&mut self, api_version: &str, kind: &str, object: &T) -> io::Result<()> {
        self.out.write_all(if self.first { b"\n" } else { b",\n" })?;
        self.first = false;
        serde_json::to_writer(&mut self.out, &Typed { api_version, kind, object }).map_err(io::Error::other)
    }

    fn all<T: Serialize>(&mut self, api_version: &str, kind: &str, objects: &[T]) -> io::Result<()> {
        objects.iter().try_for_each(|o| self.item(api_version, kind, o))
    }
}

/// Writes the snapshot as one JSON `v1 List`, one object per line (the shape
/// `Snapshot::to_document` produces, without building it in memory).
pub(crate) fn write_json<W: Write>(s: &Snapshot, out: W) -> io::Result<()> {
    let mut w = ListWriter { out: io::BufWriter::with_capacity(1 << 20, out), first: true };
    w.out.write_all(br#"{"apiVersion":"v1","kind":"List","items":["#)?;
    w.item(API_VERSION, "SnapshotInfo", &s.info)?;
    w.item(API_VERSION, "InstanceTypes", &Items { items: &s.instance_types })?;
    w.all("karpenter.sh/v1", "NodePool", &s.node_pools)?;
    w.all("karpenter.sh/v1", "NodeClaim", &s.node_claims)?;
    w.all("v1", "Node", &s.nodes)?;
    w.all("v1", "Pod", &s.pods)?;
    w.all("policy/v1", "PodDisruptionBudget", &s.pdbs)?;
    w.all("apps/v1", "DaemonSet", &s.daemon_sets)?;
    w.all("apps/v1", "Deployment", &s.deployments)?;
    w.all("apps/v1", "ReplicaSet", &s.replica_sets)?;
    w.all("apps/v1", "StatefulSet", &s.stateful_sets)?;
    w.all("autoscaling/v2", "HorizontalPodAutoscaler", &s.hpas)?;
    w.all("v1", "PersistentVolumeClaim", &s.pvcs)?;
    w.all("v1", "PersistentVolume", &s.pvs)?;
    w.all("storage.k8s.io/v1", "StorageClass", &s.storage_classes)?;
    w.all("v1", "Event", &s.events)?;
    w.out.write_all(b"\n]}\n")?;
    w.out.flush()
}
