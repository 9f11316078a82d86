//! Object names for shell completion, read live: one page of one list, bounded by a deadline.
//!
//! Completion runs on every TAB, so it must never hang and never print: any failure (no
//! kubeconfig, an unreachable server, a slow one, 403) is an empty list.

use std::time::Duration;

use kube::core::params::ListParams;
use kube::core::DynamicObject;
use kube::Resource;
use serde_json::Value;

use super::http::Call;
use super::{connect, read_kubeconfig, Kind, NODE, NODE_CLAIM, NODE_POOL, POD};
use crate::source::ClusterArgs;

/// A completion asks for at most this many names (one page); a shell shows no more anyway.
const NAMES_LIMIT: u32 = 500;

/// What to list names of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NamesOf {
    Nodes,
    NodeClaims,
    NodePools,
    Namespaces,
    /// Pods of one namespace.
    Pods,
    /// Pods of every namespace (`-A`).
    AllPods,
    /// PodDisruptionBudgets of every namespace, as `NS/NAME` (`--set pdb/…`).
    PodDisruptionBudgets,
}

const NAMESPACE: Kind = Kind::new("", "v1", "Namespace", "namespaces");
const PDB: Kind = Kind::new("policy", "v1", "PodDisruptionBudget", "poddisruptionbudgets");

/// Names of `what` (`Pods`: in `namespace`), or nothing if the cluster does not answer within
/// `deadline` (connecting, authenticating and the one GET included).
pub fn names(args: &ClusterArgs, what: NamesOf, namespace: Option<&str>, deadline: Duration) -> Vec<String> {
    let Ok(runtime) = tokio::runtime::Builder::new_current_thread().enable_all().build() else {
        return Vec::new();
    };
    let mut args = args.clone();
    args.request_timeout = Some(deadline);
    args.progress = false;
    let kind = match what {
        NamesOf::Nodes => NODE,
        NamesOf::NodeClaims => NODE_CLAIM,
        NamesOf::NodePools => NODE_POOL,
        NamesOf::Namespaces => NAMESPACE,
        NamesOf::Pods | NamesOf::AllPods => POD,
        NamesOf::PodDisruptionBudgets => PDB,
    };
    let namespace = if what == NamesOf::Pods { Some(namespace.unwrap_or("default")) } else { None };
    let listed = runtime.block_on(async {
        tokio::time::timeout(deadline, async {
            let (http, _) = connect(&args).await.ok()?;
            let path = DynamicObject::url_path(&kind.api_resource(), namespace);
            let call = Call::List { path, params: ListParams::default().limit(NAMES_LIMIT) };
            http.get_json(&call).await.ok()
        })
        .await
        .ok()
        .flatten()
    });
    let mut names: Vec<String> = listed
        .as_ref()
        .and_then(|list| list.get("items"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|item| {
            let name = item.pointer("/metadata/name").and_then(Value::as_str)?;
            if what == NamesOf::PodDisruptionBudgets {
                let namespace = item.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or("default");
                return Some(format!("{namespace}/{name}"));
            }
            Some(name.to_owned())
        })
        .collect();
    names.sort();
    names
}

/// Context, cluster and user names of the kubeconfig kubectl would read (no network).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct KubeconfigNames {
    pub contexts: Vec<String>,
    pub clusters: Vec<String>,
    pub users: Vec<String>,
}

/// The names in the merged kubeconfig; empty when there is none or it does not parse.
pub fn kubeconfig_names(args: &ClusterArgs) -> KubeconfigNames {
    let Ok(Some(config)) = read_kubeconfig(args) else { return KubeconfigNames::default() };
    KubeconfigNames {
        contexts: config.contexts.into_iter().map(|c| c.name).collect(),
        clusters: config.clusters.into_iter().map(|c| c.name).collect(),
        users: config.auth_infos.into_iter().map(|u| u.name).collect(),
    }
}
