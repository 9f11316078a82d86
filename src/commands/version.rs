//! `version`: what `kubectl version --client` says for kubectl, for this plugin — the client
//! version and build, and the Karpenter rule set the replay follows. Reads no cluster and no
//! snapshot (the rule set a snapshot picks is in every report's header and `assumed`).

use serde::Serialize;

use crate::rules::version::{self, Origin, NEWEST, OLDEST};
use crate::upstream::Project;

/// The `Version` document (`-o json|yaml`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct VersionDoc {
    pub api_version: &'static str,
    pub kind: &'static str,
    /// As `kubectl version -o json` names its own.
    pub client_version: ClientVersion,
    pub rules: Rules,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ClientVersion {
    /// `v0.1.0`.
    pub git_version: String,
    /// 12 hex digits, or `unknown` (a build outside a checkout).
    pub git_commit: &'static str,
    pub platform: &'static str,
    pub profile: &'static str,
    pub compiler: &'static str,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Rules {
    /// The Karpenter core releases whose rules the replay knows.
    pub oldest: String,
    pub newest: String,
    /// The core version replayed: `--karpenter-version`'s, else `null` (each input's own:
    /// its controller Deployment or snapshot, else `newest`).
    pub replayed: Option<String>,
    /// Where `replayed` comes from, in words.
    pub from: String,
    /// The upstream tags every `ref` of the reports points into.
    pub karpenter_source: String,
    pub kubernetes_source: String,
}

/// The document; `karpenter_version` is `--karpenter-version`, when given.
pub(crate) fn run(karpenter_version: Option<&str>) -> Result<VersionDoc, String> {
    let (karpenter_repo, karpenter_tag) = Project::Karpenter.pinned();
    let (kubernetes_repo, kubernetes_tag) = Project::Kubernetes.pinned();
    let (replayed, from) = match karpenter_version {
        Some(v) => {
            if crate::rules::CoreVersion::parse(v).is_none() {
                return Err(format!("--karpenter-version {v}: not a release number (e.g. `1.12.3`)"));
            }
            let resolved = version::resolve(Some(v), "--karpenter-version", &Origin::Core).map_err(|r| {
                format!("--karpenter-version {}: older than {OLDEST}, whose v1 APIs this replay starts at", r.version)
            })?;
            // What was assumed (a version never released, one newer than the newest) is part of
            // the answer: `version` prints no report whose header would carry it.
            let from = if resolved.warnings.is_empty() {
                "--karpenter-version".to_owned()
            } else {
                resolved.warnings.join("; ")
            };
            (Some(resolved.core.to_string()), from)
        }
        None => (
            None,
            format!(
                "each input's: the Karpenter controller Deployment's image, else the snapshot's karpenterVersion, \
                 else {NEWEST}"
            ),
        ),
    };
    Ok(VersionDoc {
        api_version: crate::snapshot::API_VERSION,
        kind: "Version",
        client_version: ClientVersion {
            git_version: format!("v{}", crate::version::VERSION),
            git_commit: crate::version::COMMIT,
            platform: crate::version::TARGET,
            profile: crate::version::PROFILE,
            compiler: crate::version::RUSTC,
        },
        rules: Rules {
            oldest: OLDEST.to_string(),
            newest: NEWEST.to_string(),
            replayed,
            from,
            karpenter_source: format!("{karpenter_repo} {karpenter_tag}"),
            kubernetes_source: format!("{kubernetes_repo} {kubernetes_tag}"),
        },
    })
}

/// `kubectl version`'s `Key: value` lines; `label` styles the keys.
pub(crate) fn text(doc: &VersionDoc, label: impl Fn(&str) -> String) -> String {
    let c = &doc.client_version;
    let r = &doc.rules;
    let replayed = match &r.replayed {
        Some(v) => format!("Karpenter core {v} ({})", r.from),
        None => format!("Karpenter core {} to {}, {}", r.oldest, r.newest, r.from),
    };
    let lines = [
        ("Client Version", c.git_version.clone()),
        ("Commit", c.git_commit.to_owned()),
        ("Rules Replayed", replayed),
        ("Upstream Sources", format!("{} (kube-scheduler filters of {})", r.karpenter_source, r.kubernetes_source)),
        ("Build", format!("{} {}, {}", c.platform, c.profile, c.compiler)),
    ];
    let mut out = String::new();
    for (key, value) in lines {
        out.push_str(&format!("{} {value}\n", label(&format!("{key}:"))));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_client_the_rule_range_and_the_build() {
        let doc = run(None).expect("no flag, no error");
        assert_eq!(doc.client_version.git_version, format!("v{}", env!("CARGO_PKG_VERSION")));
        assert_eq!((doc.rules.oldest.as_str(), doc.rules.newest.as_str()), ("v1.0.0", "v1.14.1"));
        assert_eq!(doc.rules.replayed, None);
        let text = text(&doc, str::to_owned);
        assert!(text.starts_with(&format!("Client Version: v{}\n", env!("CARGO_PKG_VERSION"))), "{text}");
        assert!(text.contains("Rules Replayed: Karpenter core v1.0.0 to v1.14.1"), "{text}");
        assert!(text.contains(&format!("Build: {}", crate::version::TARGET)), "{text}");
    }

    #[test]
    fn karpenter_version_names_the_rule_set_replayed() {
        let doc = run(Some("1.12.1")).expect("a supported version");
        assert_eq!(doc.rules.replayed.as_deref(), Some("v1.12.1"));
        let doc = run(Some("1.12.3")).expect("never released: the release before it");
        assert_eq!(doc.rules.replayed.as_deref(), Some("v1.12.1"));
        assert!(run(Some("0.37.0")).unwrap_err().contains("older than v1.0.0"));
        assert!(run(Some("soon")).unwrap_err().contains("not a release number"));
    }
}
