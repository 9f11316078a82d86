//! Resolves a command's `KIND/NAME` target against the snapshot, kubectl-style: the node a
//! pod or NodeClaim stands for, the NodePool a command names, and a did-you-mean hint when the
//! name is not there.

use crate::error::Error;
use crate::object_ref::{did_you_mean, Kind, ObjectRef};
use crate::snapshot::Snapshot;

/// A target → the node name it stands for (a pod's node, a NodeClaim's node), and for a pod
/// where it was looked for (`pod tenant-a/web runs on node-x (looked in namespace tenant-a)`).
/// Pods are looked up in `namespace` (`default` when none is given), or in every namespace with
/// `all`.
pub(crate) fn resolve(
    snapshot: &Snapshot,
    target: &ObjectRef,
    namespace: Option<&str>,
    all: bool,
) -> Result<(String, Option<String>), Error> {
    if target.kind == Kind::Pod {
        return resolve_pod(snapshot, &target.name, namespace, all).map(|(node, note)| (node, Some(note)));
    }
    resolve_other(snapshot, target).map(|node| (node, None))
}

fn resolve_pod(snapshot: &Snapshot, name: &str, namespace: Option<&str>, all: bool) -> Result<(String, String), Error> {
    let ns = namespace.unwrap_or("default");
    let looked = if all { "every namespace".to_owned() } else { format!("namespace {ns}") };
    let found: Vec<_> =
        snapshot.pods.iter().filter(|p| p.metadata.name == name && (all || p.metadata.namespace() == ns)).collect();
    let pod = match found.as_slice() {
        [one] => *one,
        [] => {
            let elsewhere: Vec<String> =
                snapshot.pods.iter().filter(|p| p.metadata.name == name).map(|p| p.metadata.key()).collect();
            let help = match (all, elsewhere.first()) {
                (false, Some(other)) => format!(
                    "looked in namespace {ns}; it is in {other}: add -n {} (or -A)",
                    other.split('/').next().unwrap_or_default()
                ),
                (false, None) => format!("looked in namespace {ns}; -A searches every namespace"),
                (true, _) => match did_you_mean(name, snapshot.pods.iter().map(|p| p.metadata.name.as_str())) {
                    Some(best) => format!("looked in every namespace; did you mean pod/{best}?"),
                    None => "looked in every namespace".to_owned(),
                },
            };
            let shown = if all { name.to_owned() } else { format!("{ns}/{name}") };
            return Err(Error::TargetNotFound { kind: "pod".into(), name: shown, help });
        }
        several => {
            let keys: Vec<String> = several.iter().map(|p| p.metadata.key()).collect();
            return Err(Error::TargetNotFound {
                kind: "one pod".into(),
                name: name.to_owned(),
                help: format!("looked in every namespace and found {}: name one with -n", keys.join(", ")),
            });
        }
    };
    let key = pod.metadata.key();
    let node = pod.spec.node_name.clone().ok_or_else(|| Error::TargetNotFound {
        kind: "node of pod".into(),
        name: key.clone(),
        help: "the pod is not bound to a node: nothing to explain until it is scheduled".into(),
    })?;
    Ok((node.clone(), format!("pod {key} runs on node {node} (looked in {looked})")))
}

fn resolve_other(snapshot: &Snapshot, target: &ObjectRef) -> Result<String, Error> {
    let nodes = || snapshot.nodes.iter().map(|n| n.metadata.name.as_str());
    let claims = || snapshot.node_claims.iter().map(|c| c.metadata.name.as_str());
    match target.kind {
        Kind::Node => nodes()
            .chain(claims())
            .find(|n| *n == target.name)
            .map(str::to_owned)
            .ok_or_else(|| not_found(Kind::Node, &target.name, nodes().chain(claims()))),
        Kind::NodeClaim => claims()
            .find(|n| *n == target.name)
            .map(str::to_owned)
            .ok_or_else(|| not_found(Kind::NodeClaim, &target.name, claims())),
        Kind::Pod => resolve_pod(snapshot, &target.name, None, false).map(|(node, _)| node),
        Kind::NodePool => Err(Error::TargetNotFound {
            kind: "node".into(),
            name: target.to_string(),
            help: "explain takes node/NAME, nodeclaim/NAME or pod/NAME; for a NodePool use `score nodepool/NAME` or `budgets nodepool/NAME`".into(),
        }),
    }
}

/// The nodes `plan`, `score` and `budgets` show under `-l` (nodes by label) and `-n` (nodes
/// hosting pods of that namespace; `-A` or no `-n`: every node), both when both are given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Selection {
    /// Node (or NodeClaim without a Node) names kept.
    pub nodes: std::collections::BTreeSet<String>,
    /// The NodePools of those nodes.
    pub pools: std::collections::BTreeSet<String>,
    /// `-l app=web, -n tenant-a: 3 of 10 nodes`, for the report.
    pub described: String,
}

/// `None` when neither `-l` nor `-n` narrows anything; an invalid selector is an error.
pub(crate) fn select_nodes(
    snapshot: &Snapshot,
    selector: Option<&str>,
    namespace: Option<&str>,
    all_namespaces: bool,
) -> Result<Option<Selection>, String> {
    let namespace = namespace.filter(|_| !all_namespaces);
    if selector.is_none() && namespace.is_none() {
        return Ok(None);
    }
    let parsed = match selector {
        Some(text) => Some(crate::audit::parse_selector(text).map_err(|e| format!("-l {text}: {e}"))?),
        None => None,
    };
    let hosting: Option<std::collections::BTreeSet<&str>> = namespace.map(|ns| {
        snapshot
            .pods
            .iter()
            .filter(|p| p.metadata.namespace() == ns && !crate::engine::pod::is_terminal(p))
            .filter_map(|p| p.spec.node_name.as_deref())
            .collect()
    });
    // Every Node, and every NodeClaim without one (as `plan` lists them).
    let node_names: std::collections::BTreeSet<&str> =
        snapshot.nodes.iter().map(|n| n.metadata.name.as_str()).collect();
    let everything = snapshot.nodes.iter().map(|n| (&n.metadata.name, &n.metadata.labels)).chain(
        snapshot
            .node_claims
            .iter()
            .filter(|c| c.status.node_name.as_deref().is_none_or(|n| !node_names.contains(n)))
            .map(|c| (&c.metadata.name, &c.metadata.labels)),
    );
    let mut total = 0;
    let mut nodes = std::collections::BTreeSet::new();
    let mut pools = std::collections::BTreeSet::new();
    for (name, labels) in everything {
        total += 1;
        let by_label = parsed.as_ref().is_none_or(|s| crate::engine::labels::selector_matches(Some(s), labels));
        let by_namespace = hosting.as_ref().is_none_or(|h| h.contains(name.as_str()));
        if by_label && by_namespace {
            nodes.insert(name.clone());
            if let Some(pool) = labels.get("karpenter.sh/nodepool") {
                pools.insert(pool.clone());
            }
        }
    }
    let mut by = Vec::new();
    if let Some(s) = selector {
        by.push(format!("-l {s}"));
    }
    if let Some(ns) = namespace {
        by.push(format!("-n {ns} (nodes hosting its pods)"));
    }
    let described = format!("{}: {} of {total} nodes", by.join(", "), nodes.len());
    Ok(Some(Selection { nodes, pools, described }))
}

/// `name` is not among `known`: the error, with the closest known name as a hint.
pub(crate) fn not_found<'a>(kind: Kind, name: &str, known: impl Iterator<Item = &'a str>) -> Error {
    let known: Vec<&str> = known.collect();
    let help = match did_you_mean(name, known.iter().copied()) {
        Some(best) => format!("did you mean {kind}/{best}?"),
        None if known.is_empty() => format!("the snapshot has no {kind}"),
        None => format!("known: {}", known.iter().take(8).copied().collect::<Vec<_>>().join(", ")),
    };
    Error::TargetNotFound { kind: kind.to_string(), name: name.to_owned(), help }
}

#[cfg(test)]
mod tests {
    use super::resolve;
    use crate::error::Error;
    use crate::object_ref::ObjectRef;
    use crate::snapshot::Snapshot;
    use crate::testing::{managed_node, node_pool, pod, snapshot};

    fn target(s: &str) -> ObjectRef {
        s.parse().expect("a target")
    }

    fn resolve_node(s: &Snapshot, t: &ObjectRef, namespace: Option<&str>) -> Result<String, Error> {
        resolve(s, t, namespace, false).map(|(node, _)| node)
    }

    #[test]
    fn a_pod_is_looked_for_in_its_namespace_or_everywhere_and_says_where() {
        let mut objects = vec![node_pool("default"), pod("web", "node-a")];
        objects.extend(managed_node("node-a"));
        let s = snapshot(objects);
        let ns = s.pods[0].metadata.namespace().to_owned();
        let (node, looked) = resolve(&s, &target("pod/web"), None, true).unwrap();
        assert_eq!(node, "node-a");
        assert_eq!(looked.unwrap(), format!("pod {ns}/web runs on node node-a (looked in every namespace)"));
        match resolve(&s, &target("pod/web"), Some("elsewhere"), false) {
            Err(Error::TargetNotFound { help, .. }) => {
                assert_eq!(help, format!("looked in namespace elsewhere; it is in {ns}/web: add -n {ns} (or -A)"));
            }
            other => panic!("{other:?}"),
        }
        match resolve(&s, &target("pod/nothing"), None, true) {
            Err(Error::TargetNotFound { help, .. }) => assert!(help.starts_with("looked in every namespace"), "{help}"),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_pod_stands_for_its_node_and_a_claim_for_itself() {
        let mut objects = vec![node_pool("default"), pod("web", "node-a")];
        objects.extend(managed_node("node-a"));
        let s = snapshot(objects);
        assert_eq!(resolve_node(&s, &target("pod/web"), None).unwrap(), "node-a");
        assert_eq!(resolve_node(&s, &target("node/node-a"), None).unwrap(), "node-a");
        let claim = s.node_claims[0].metadata.name.clone();
        assert_eq!(resolve_node(&s, &target(&format!("nodeclaim/{claim}")), None).unwrap(), claim);
    }

    #[test]
    fn a_misspelt_node_suggests_the_right_one() {
        let mut objects = vec![node_pool("default")];
        objects.extend(managed_node("node-a"));
        let s = snapshot(objects);
        match resolve_node(&s, &target("node/node-b"), None) {
            Err(Error::TargetNotFound { help, .. }) => assert_eq!(help, "did you mean node/node-a?"),
            other => panic!("{other:?}"),
        }
        assert!(resolve_node(&s, &target("pod/web"), Some("other")).is_err());
    }
}
