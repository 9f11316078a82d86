//! What `--version` prints: the crate version, the commit it was built from (see `build.rs`)
//! and the upstream releases the replay is pinned to.

use std::sync::LazyLock;

use crate::upstream::Project;

/// The crate version, as in Cargo.toml.
pub(crate) const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The commit the binary was built from (12 hex digits), or `unknown` outside a checkout.
pub(crate) const COMMIT: &str = env!("KUBECTL_CONSOLIDATION_COMMIT");

/// The target triple, cargo profile and `rustc --version` of the build (see `build.rs`).
pub(crate) const TARGET: &str = env!("KUBECTL_CONSOLIDATION_TARGET");
pub(crate) const PROFILE: &str = env!("KUBECTL_CONSOLIDATION_PROFILE");
pub(crate) const RUSTC: &str = env!("KUBECTL_CONSOLIDATION_RUSTC");

/// `kubectl-consolidation --version`'s text after the program name (clap wants it `'static`).
pub(crate) fn long() -> &'static str {
    static LONG: LazyLock<String> = LazyLock::new(|| {
        let (karpenter_repo, karpenter) = Project::Karpenter.pinned();
        let (_, kubernetes) = Project::Kubernetes.pinned();
        format!(
            "{VERSION}\ncommit: {COMMIT}\nreplays: {karpenter_repo} {karpenter} \
             (kube-scheduler filters of kubernetes {kubernetes})"
        )
    });
    LONG.as_str()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_crate_version_commit_and_pinned_karpenter() {
        let text = long();
        let mut lines = text.lines();
        assert_eq!(lines.next(), Some(VERSION));
        let commit = lines.next().and_then(|l| l.strip_prefix("commit: ")).expect("a commit line");
        assert!(
            commit == "unknown" || (commit.len() == 12 && commit.bytes().all(|b| b.is_ascii_hexdigit())),
            "{commit}"
        );
        assert!(lines.next().is_some_and(|l| l.contains("kubernetes-sigs/karpenter v1.14.")), "{text}");
    }
}
