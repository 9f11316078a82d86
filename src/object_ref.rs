//! `KIND/NAME` arguments as kubectl spells them (`node/x`, `no/x`, `nodeclaim/x`, `np/p`,
//! `pod/x`); a bare name means a node. Shared vocabulary, so the core never imports `cli`.

use std::fmt;
use std::str::FromStr;

/// The kinds a command can target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Kind {
    Node,
    NodeClaim,
    NodePool,
    Pod,
}

const SPELLINGS: &[(&str, Kind)] = &[
    ("node", Kind::Node),
    ("nodes", Kind::Node),
    ("no", Kind::Node),
    ("nodeclaim", Kind::NodeClaim),
    ("nodeclaims", Kind::NodeClaim),
    ("nc", Kind::NodeClaim),
    ("nodepool", Kind::NodePool),
    ("nodepools", Kind::NodePool),
    ("np", Kind::NodePool),
    ("pod", Kind::Pod),
    ("pods", Kind::Pod),
    ("po", Kind::Pod),
];

impl Kind {
    /// The singular lower-case name (`kubectl get <kind>`).
    pub(crate) const fn as_str(self) -> &'static str {
        match self {
            Kind::Node => "node",
            Kind::NodeClaim => "nodeclaim",
            Kind::NodePool => "nodepool",
            Kind::Pod => "pod",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Kind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let lower = s.to_ascii_lowercase();
        let lower = lower.split('.').next().unwrap_or_default();
        if let Some((_, kind)) = SPELLINGS.iter().find(|(name, _)| *name == lower) {
            return Ok(*kind);
        }
        let names: Vec<&str> = SPELLINGS.iter().map(|(n, _)| *n).collect();
        Err(match did_you_mean(lower, names.iter().copied()) {
            Some(best) => format!("unknown kind `{s}`; did you mean `{best}`?"),
            None => format!("unknown kind `{s}`; expected node, nodeclaim, nodepool or pod"),
        })
    }
}

/// A target object.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct ObjectRef {
    pub kind: Kind,
    pub namespace: Option<String>,
    pub name: String,
}

impl FromStr for ObjectRef {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (kind, name) = match s.split_once('/') {
            Some((kind, name)) => (kind.parse()?, name),
            None => (Kind::Node, s),
        };
        if name.is_empty() {
            return Err(format!("`{s}` has no name; expected KIND/NAME, e.g. node/ip-10-0-1-7"));
        }
        Ok(ObjectRef { kind, namespace: None, name: name.to_owned() })
    }
}

impl fmt::Display for ObjectRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.kind, self.name)
    }
}

/// The closest candidate to `input` if it is close enough to be a typo.
pub(crate) fn did_you_mean<'a>(input: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(input, c), c))
        .filter(|(score, _)| *score > 0.8)
        .max_by(|a, b| a.0.total_cmp(&b.0).then_with(|| b.1.cmp(a.1)))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::{Kind, ObjectRef};

    #[test]
    fn parses_kubectl_short_names() {
        for (text, kind) in
            [("no/a", Kind::Node), ("nc/a", Kind::NodeClaim), ("np/a", Kind::NodePool), ("po/a", Kind::Pod)]
        {
            assert_eq!(text.parse::<ObjectRef>().unwrap().kind, kind);
        }
        assert_eq!("nodes.v1/a".parse::<ObjectRef>().unwrap().kind, Kind::Node);
    }

    #[test]
    fn bare_name_is_a_node() {
        let r: ObjectRef = "ip-10-0-1-7".parse().unwrap();
        assert_eq!((r.kind, r.name.as_str()), (Kind::Node, "ip-10-0-1-7"));
    }

    #[test]
    fn suggests_a_kind_for_typos() {
        let err = "nodepoll/x".parse::<ObjectRef>().unwrap_err();
        assert!(err.contains("did you mean `nodepool`"), "{err}");
        assert!("node/".parse::<ObjectRef>().is_err());
    }
}
