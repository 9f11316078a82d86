//! Resolves a command's `KIND/NAME` target against the snapshot, kubectl-style: the node a
//! pod or NodeClaim stands for, the NodePool a command names, and a did-you-mean hint when the
//! name is not there.

use crate::error::Error;
use crate::object_ref::{did_you_mean, Kind, ObjectRef};
use crate::snapshot::Snapshot;

/// A target → the node name it stands for (a pod's node, a NodeClaim's node). Pods are looked
/// up in `namespace` (`default` when none is given).
pub(crate) fn resolve_node(snapshot: &Snapshot, target: &ObjectRef, namespace: Option<&str>) -> Result<String, Error> {
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
        Kind::Pod => {
            let ns = namespace.unwrap_or("default");
            let pod = snapshot
                .pods
                .iter()
                .find(|p| p.metadata.name == target.name && p.metadata.namespace() == ns)
                .ok_or_else(|| {
                    not_found(
                        Kind::Pod,
                        &format!("{ns}/{}", target.name),
                        snapshot.pods.iter().filter(|p| p.metadata.namespace() == ns).map(|p| p.metadata.name.as_str()),
                    )
                })?;
            pod.spec.node_name.clone().ok_or_else(|| Error::TargetNotFound {
                kind: "node of pod".into(),
                name: format!("{ns}/{}", target.name),
                help: "the pod is not bound to a node: nothing to explain until it is scheduled".into(),
            })
        }
        Kind::NodePool => Err(Error::TargetNotFound {
            kind: "node".into(),
            name: target.to_string(),
            help: "explain takes node/NAME, nodeclaim/NAME or pod/NAME; for a NodePool use `score nodepool/NAME` or `budgets nodepool/NAME`".into(),
        }),
    }
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
    use super::resolve_node;
    use crate::error::Error;
    use crate::object_ref::ObjectRef;
    use crate::testing::{managed_node, node_pool, pod, snapshot};

    fn target(s: &str) -> ObjectRef {
        s.parse().expect("a target")
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
