//! [`RefusalClass`]: the shared [`crate::engine::incremental::world::World`] keeps one per class
//! of pods, so it lives apart from the simulation code in `fit_error.rs` that builds it.

use std::borrow::Cow;
use std::collections::BTreeMap;

/// Every node's answer to the checks before its labels, for one class of pods, against the
/// nodes as a simulation finds them.
#[derive(Debug)]
pub(crate) struct RefusalClass {
    /// Per node (cluster index): the reason it refuses, as an index into `reasons`.
    per_node: Vec<Option<u16>>,
    reasons: Vec<Cow<'static, str>>,
    /// Nodes per reason, over every node.
    pub(super) tally: BTreeMap<String, usize>,
    /// Nodes that pass every check before the labels.
    pub(super) passing: usize,
}

impl RefusalClass {
    pub(super) fn new(answers: impl Iterator<Item = Result<(), Cow<'static, str>>>) -> Self {
        let mut class = RefusalClass { per_node: Vec::new(), reasons: Vec::new(), tally: BTreeMap::new(), passing: 0 };
        for answer in answers {
            let id = answer.err().map(|reason| {
                *class.tally.entry(reason.to_string()).or_default() += 1;
                let known = class.reasons.iter().position(|r| *r == reason);
                known.unwrap_or_else(|| {
                    class.reasons.push(reason);
                    class.reasons.len() - 1
                })
            });
            class.passing += usize::from(id.is_none());
            class.per_node.push(id.map(|i| u16::try_from(i).unwrap_or(u16::MAX)));
        }
        class
    }

    pub(super) fn reason(&self, i: usize) -> Option<&str> {
        self.per_node[i].map(|id| self.reasons.get(usize::from(id)).map_or("", |r| r.as_ref()))
    }
}
