//! Which namespaces and pods a namespaced command looks at: built by `app.rs` from `-n`, `-A`
//! and `-l`, read by the audit. Holds no judgement beyond the namespace a missing one means.

/// Which namespaces and pods a namespaced command looks at.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Scope {
    /// `None` with `all_namespaces` false means the context's default namespace was unknown.
    pub namespace: Option<String>,
    pub all_namespaces: bool,
    /// `-l` label selector, kubectl syntax (`app=web,tier!=db`).
    pub selector: Option<String>,
}

impl Scope {
    /// Whether objects of `namespace` are in scope (an unknown namespace means `default`).
    pub(crate) fn includes(&self, namespace: &str) -> bool {
        self.all_namespaces || namespace == self.namespace.as_deref().unwrap_or("default")
    }

    /// The scope as audited: no namespace with `all_namespaces`, else the one looked at.
    #[must_use]
    pub(crate) fn audited(&self) -> Scope {
        Scope {
            namespace: if self.all_namespaces {
                None
            } else {
                Some(self.namespace.clone().unwrap_or_else(|| "default".to_owned()))
            },
            all_namespaces: self.all_namespaces,
            selector: self.selector.clone(),
        }
    }
}
