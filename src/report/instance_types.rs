//! `instance-types nodepool/P`: the catalogue a NodePool's replacements are chosen from, each
//! figure with its source (see `catalogue`).

use std::collections::BTreeMap;

use serde::Serialize;

use crate::engine::scheduling::{allocatable, pool_instance_types};
use crate::engine::state::Cluster;
use crate::snapshot::{Snapshot, API_VERSION};

/// The `InstanceTypeCatalogue` document.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Catalogue {
    pub api_version: &'static str,
    pub kind: &'static str,
    pub node_pool: String,
    /// The pool's `nodeClassRef` name, when it has one.
    pub node_class: Option<String>,
    pub instance_types: Vec<TypeEntry>,
    /// What the catalogue estimated or could not find.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub estimated: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TypeEntry {
    pub name: String,
    pub capacity: BTreeMap<String, String>,
    pub allocatable: BTreeMap<String, String>,
    pub pods: Option<String>,
    pub labels: BTreeMap<String, String>,
    pub offerings: Vec<OfferingEntry>,
    /// Figure → source (`node`, `nodeclaim`, `metrics`, `aws-catalogue`); none = a document's.
    pub sources: BTreeMap<String, String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OfferingEntry {
    pub zone: String,
    pub capacity_type: String,
    #[serde(serialize_with = "super::money::hourly")]
    pub price: Option<f64>,
    pub available: bool,
    pub source: Option<String>,
}

/// The pool's catalogue, or `None` when the snapshot has no such NodePool.
pub(crate) fn catalogue(snapshot: &Snapshot, now: jiff::Timestamp, pool: &str) -> Option<Catalogue> {
    let cluster = Cluster::new(snapshot, now);
    let types = pool_instance_types(&cluster, pool)?;
    let node_class = cluster.pools.get(pool).and_then(|p| {
        let r = p.spec.template.spec.node_class_ref.as_ref()?;
        r.get("name").and_then(serde_json::Value::as_str).map(str::to_owned)
    });
    let strings = |r: &crate::snapshot::Resources| r.iter().map(|(k, v)| (k.clone(), v.to_string())).collect();
    let instance_types = types
        .into_iter()
        .map(|it| {
            let alloc = allocatable(it);
            TypeEntry {
                name: it.name.clone(),
                capacity: strings(&it.capacity),
                pods: alloc.get("pods").map(ToString::to_string),
                allocatable: strings(&alloc),
                labels: it.labels.clone(),
                offerings: it
                    .offerings
                    .iter()
                    .map(|o| OfferingEntry {
                        zone: o.zone.clone(),
                        capacity_type: o.capacity_type.clone(),
                        price: o.price,
                        available: o.available,
                        source: o.source.clone(),
                    })
                    .collect(),
                sources: it.sources.clone(),
            }
        })
        .collect();
    Some(Catalogue {
        api_version: API_VERSION,
        kind: "InstanceTypeCatalogue",
        node_pool: pool.to_owned(),
        node_class,
        instance_types,
        estimated: snapshot.info.estimated.clone(),
    })
}
