//! Where completion finds object names: the snapshot on the command line (`--snapshot FILE`,
//! `--demo`), else the live cluster through the kubeconfig flags on the line. Read only when
//! a candidate needs them, at most once per run; every failure is "no names".

use std::path::Path;
use std::time::Duration;

use super::line::Line;
use crate::object_ref::Kind;
use crate::snapshot::Snapshot;
use crate::source::cluster::names::{kubeconfig_names, names, KubeconfigNames, NamesOf};
use crate::source::{self, ClusterArgs};

/// The longest a TAB waits for the cluster (connect, auth and one list together).
pub(crate) const LIVE_DEADLINE: Duration = Duration::from_secs(2);

enum From {
    /// A snapshot file (`None`: the demo), read when first needed.
    Snapshot {
        path: Option<String>,
        read: Read,
    },
    Cluster(ClusterArgs),
}

enum Read {
    NotYet,
    Unreadable,
    Done(Box<Snapshot>),
}

/// The names one completion may ask for.
pub(super) struct Names {
    from: From,
    namespace: Option<String>,
    /// `-A`: pods of every namespace (`explain pod/NAME -A` searches them all).
    all_namespaces: bool,
    kubeconfig: ClusterArgs,
}

impl Names {
    pub(super) fn new(line: &Line) -> Names {
        let kubeconfig = ClusterArgs {
            kubeconfig: line.value("kubeconfig").map(Into::into),
            context: line.value("context").map(str::to_owned),
            cluster: line.value("cluster").map(str::to_owned),
            user: line.value("user").map(str::to_owned),
            request_timeout: Some(LIVE_DEADLINE),
            progress: false,
            prices_given: false,
        };
        let from = match line.value("snapshot") {
            Some(path) => From::Snapshot { path: Some(path.to_owned()), read: Read::NotYet },
            None if line.has("demo") => From::Snapshot { path: None, read: Read::NotYet },
            None => From::Cluster(kubeconfig.clone()),
        };
        Names {
            from,
            namespace: line.value("namespace").map(str::to_owned),
            all_namespaces: line.has("all_namespaces"),
            kubeconfig,
        }
    }

    fn snapshot(&mut self) -> Option<&Snapshot> {
        let From::Snapshot { path, read } = &mut self.from else { return None };
        if matches!(read, Read::NotYet) {
            let loaded = match path.as_deref() {
                // Completion never reads stdin: the shell owns it.
                Some("-") => None,
                Some(path) => source::file::read_path(Path::new(path)).ok(),
                None => source::file::read_text(source::DEMO_SNAPSHOT, "<demo>").ok(),
            };
            *read = loaded.map_or(Read::Unreadable, |s| Read::Done(Box::new(s)));
        }
        match read {
            Read::Done(snapshot) => Some(snapshot),
            Read::NotYet | Read::Unreadable => None,
        }
    }

    /// Names of `kind`; pods are those of `-n` (else `default`, as `explain pod/NAME` reads),
    /// or of every namespace with `-A`.
    pub(super) fn of(&mut self, kind: Kind) -> Vec<String> {
        let namespace = self.namespace.clone().unwrap_or_else(|| "default".to_owned());
        let all = self.all_namespaces;
        if let From::Cluster(args) = &self.from {
            let what = match kind {
                Kind::Node => NamesOf::Nodes,
                Kind::NodeClaim => NamesOf::NodeClaims,
                Kind::NodePool => NamesOf::NodePools,
                Kind::Pod if all => NamesOf::AllPods,
                Kind::Pod => NamesOf::Pods,
            };
            return names(args, what, Some(&namespace), LIVE_DEADLINE);
        }
        let Some(s) = self.snapshot() else { return Vec::new() };
        let mut names: Vec<String> = match kind {
            Kind::Node => s.nodes.iter().map(|n| n.metadata.name.clone()).collect(),
            Kind::NodeClaim => s.node_claims.iter().map(|c| c.metadata.name.clone()).collect(),
            Kind::NodePool => s.node_pools.iter().map(|p| p.metadata.name.clone()).collect(),
            Kind::Pod => s
                .pods
                .iter()
                .filter(|p| all || p.metadata.namespace() == namespace)
                .map(|p| p.metadata.name.clone())
                .collect(),
        };
        names.sort();
        names.dedup();
        names
    }

    /// PodDisruptionBudgets as `NS/NAME` (every namespace: a `--set pdb/…` names its own).
    pub(super) fn pdbs(&mut self) -> Vec<String> {
        if let From::Cluster(args) = &self.from {
            return names(args, NamesOf::PodDisruptionBudgets, None, LIVE_DEADLINE);
        }
        let Some(s) = self.snapshot() else { return Vec::new() };
        let mut names: Vec<String> =
            s.pdbs.iter().map(|p| format!("{}/{}", p.metadata.namespace(), p.metadata.name)).collect();
        names.sort();
        names.dedup();
        names
    }

    /// Namespaces: the cluster's, or those the snapshot's pods and PDBs live in.
    pub(super) fn namespaces(&mut self) -> Vec<String> {
        if let From::Cluster(args) = &self.from {
            return names(args, NamesOf::Namespaces, None, LIVE_DEADLINE);
        }
        let Some(s) = self.snapshot() else { return Vec::new() };
        let mut names: Vec<String> = s
            .pods
            .iter()
            .map(|p| p.metadata.namespace().to_owned())
            .chain(s.pdbs.iter().map(|p| p.metadata.namespace().to_owned()))
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// Contexts, clusters and users of the kubeconfig (never the network).
    pub(super) fn kubeconfig(&self) -> KubeconfigNames {
        kubeconfig_names(&self.kubeconfig)
    }
}
