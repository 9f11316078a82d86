//! Which Karpenter **core** version the cluster runs, and where that was read.
//!
//! The controller Deployment names a *provider* release (the AWS image
//! `public.ecr.aws/karpenter/controller:1.0.14` carries core 1.0.9): the provider's tag is mapped
//! to core through `data/karpenter-versions/provider-core.tsv` (generated from each provider
//! tag's `go.mod` by `scripts/karpenter-provider-core.sh`), embedded here. A version given with
//! `--karpenter-version` or in the snapshot's `karpenterVersion` is read as a core version.
//! Pure: strings in, a [`Resolved`] (or a refusal) out.

use std::fmt;
use std::sync::LazyLock;

/// A core release, `major.minor.patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CoreVersion {
    pub major: u32,
    pub minor: u32,
    pub patch: u32,
}

impl CoreVersion {
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        CoreVersion { major, minor, patch }
    }

    /// `v1.12.3`, `1.12.3`, `1.12.3-rc.1`, a Go pseudo-version, `1.12` (patch 0; `patch_given`
    /// false). `None` when it does not start with a number.
    pub fn parse(text: &str) -> Option<(CoreVersion, bool)> {
        let bare = text.trim().trim_start_matches('v');
        let core = bare.split(['-', '+', '@']).next()?;
        let mut parts = core.split('.');
        let major = parts.next()?.parse().ok()?;
        let minor = parts.next()?.parse().ok()?;
        let patch = parts.next();
        if parts.next().is_some() {
            return None;
        }
        match patch {
            None => Some((CoreVersion::new(major, minor, 0), false)),
            Some(p) => Some((CoreVersion::new(major, minor, p.parse().ok()?), true)),
        }
    }
}

impl fmt::Display for CoreVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// The oldest core version replayed: v1.0.0 serves `karpenter.sh/v1`; older ones v1beta1.
pub const OLDEST: CoreVersion = CoreVersion::new(1, 0, 0);
/// The newest core version whose rules are known.
pub const NEWEST: CoreVersion = CoreVersion::new(1, 14, 1);

/// One row of the provider table: an AWS provider tag and the core version its `go.mod` requires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProviderRow {
    pub provider_tag: String,
    pub provider: CoreVersion,
    pub core: CoreVersion,
}

const PROVIDER_CORE_TSV: &str = include_str!("../../data/karpenter-versions/provider-core.tsv");

/// The AWS provider → core table, parsed once (comment lines and the header skipped).
pub fn provider_table() -> &'static [ProviderRow] {
    static TABLE: LazyLock<Vec<ProviderRow>> = LazyLock::new(|| parse_table(PROVIDER_CORE_TSV));
    TABLE.as_slice()
}

fn parse_table(text: &str) -> Vec<ProviderRow> {
    let mut rows: Vec<ProviderRow> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("provider_tag") && !l.trim().is_empty())
        .filter_map(|l| {
            let mut cols = l.split('\t');
            let tag = cols.next()?;
            let core = CoreVersion::parse(cols.next()?)?.0;
            // `v1.7.3-hash-fix-backport` is not a release of the 1.7.x line: it is kept only under
            // its exact tag, never as "provider 1.7.3".
            let provider = if tag.contains('-') { None } else { CoreVersion::parse(tag).map(|(v, _)| v) };
            Some(ProviderRow {
                provider_tag: tag.to_owned(),
                provider: provider.unwrap_or(CoreVersion::new(0, 0, 0)),
                core,
            })
        })
        .collect();
    rows.sort_by_key(|r| r.provider);
    rows
}

/// Where a version came from, as the settings recorded it (`Setting.source`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// `--karpenter-version`, `--karpenter-setting version=…` or the snapshot's
    /// `karpenterVersion`: a core version.
    Core,
    /// The AWS provider's controller image or chart labels: a provider version.
    AwsProvider,
    /// A Deployment whose image is not the AWS provider's (Azure, GCP, kwok, a fork): the tag
    /// is read as a core version, which it may not be.
    UnknownProvider,
    /// Nothing named a version.
    Nothing,
}

/// The core version a replay follows, and what the user is told about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The rule set's version (clamped to [`NEWEST`]).
    pub core: CoreVersion,
    /// The version as read, e.g. `1.12.3` (provider) or `v1.13.2`.
    pub read: String,
    /// Where it came from, for the header: `deployment kube-system/karpenter image 1.12.3`.
    pub from: String,
    /// The provider table row used, when one was: `aws provider v1.0.14 → core v1.0.9`.
    pub row: Option<String>,
    /// What was assumed and why (stderr).
    pub warnings: Vec<String>,
}

/// Why no rule set applies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub version: String,
    pub from: String,
}

/// The core version `value` (read from `from`, of kind `origin`) stands for.
pub fn resolve(value: Option<&str>, from: &str, origin: &Origin) -> Result<Resolved, Refusal> {
    let Some(value) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(Resolved {
            core: NEWEST,
            read: String::new(),
            from: "assumed: no Karpenter Deployment or version in the snapshot".into(),
            row: None,
            // The header says so; no stderr line for every snapshot without a version.
            warnings: Vec::new(),
        });
    };
    let mut warnings = Vec::new();
    let parsed = CoreVersion::parse(value);
    let Some((version, patch_given)) = parsed else {
        warnings
            .push(format!("Karpenter version `{value}` ({from}) is not a release number; {NEWEST} rules are assumed"));
        return Ok(Resolved { core: NEWEST, read: value.into(), from: from.into(), row: None, warnings });
    };
    let (mut core, row) = match origin {
        Origin::AwsProvider => {
            let (core, row, note) = provider_to_core(value, version);
            warnings.extend(note);
            (core, row)
        }
        Origin::UnknownProvider => {
            warnings.push(format!(
                "the Karpenter controller ({from}) is not the AWS provider's image, so its tag `{value}` is read as a \
                 core version; if it is a provider release, pass the core version it carries with --karpenter-version"
            ));
            (version, None)
        }
        Origin::Core | Origin::Nothing => (version, None),
    };
    if !patch_given && row.is_none() {
        warnings.push(format!("Karpenter version `{value}` ({from}) names no patch; {core} is assumed"));
    }
    if core < OLDEST {
        return Err(Refusal { version: value.into(), from: from.into() });
    }
    if core > NEWEST {
        warnings.push(format!(
            "Karpenter core {core} ({from}) is newer than the newest release whose rules this replay knows; \
             {NEWEST} rules are used and rules that changed since are not replayed"
        ));
        core = NEWEST;
    }
    Ok(Resolved { core, read: value.into(), from: from.into(), row, warnings })
}

/// The core version an AWS provider release carries: its exact row, else (a tag the table
/// does not list) the nearest lower row of the same minor, else the number read as core.
fn provider_to_core(tag: &str, provider: CoreVersion) -> (CoreVersion, Option<String>, Option<String>) {
    let table = provider_table();
    let bare = tag.trim().trim_start_matches('v').split('@').next().unwrap_or_default();
    let describe = |r: &ProviderRow| format!("aws provider {} → core {}", r.provider_tag, r.core);
    if let Some(r) = table.iter().find(|r| r.provider_tag.trim_start_matches('v') == bare) {
        return (r.core, Some(describe(r)), None);
    }
    if let Some(r) = table.iter().find(|r| r.provider == provider && !r.provider_tag.contains('-')) {
        return (r.core, Some(describe(r)), None);
    }
    let lower = table
        .iter()
        .filter(|r| r.provider.major == provider.major && r.provider.minor == provider.minor && r.provider < provider)
        .max_by_key(|r| r.provider);
    match lower {
        Some(r) => (
            r.core,
            Some(describe(r)),
            Some(format!(
                "AWS provider {tag} is not in the provider → core table; the nearest lower release {} (core {}) is assumed",
                r.provider_tag, r.core
            )),
        ),
        None => (
            provider,
            None,
            Some(format!("AWS provider {tag} is not in the provider → core table; it is read as core {provider}")),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_with_and_without_v_patch_or_suffix() {
        assert_eq!(CoreVersion::parse("v1.12.3"), Some((CoreVersion::new(1, 12, 3), true)));
        assert_eq!(CoreVersion::parse("1.12.3@sha256:ab"), Some((CoreVersion::new(1, 12, 3), true)));
        assert_eq!(
            CoreVersion::parse("1.14.1-0.20260819221709-6e7eab7a0f48"),
            Some((CoreVersion::new(1, 14, 1), true))
        );
        assert_eq!(CoreVersion::parse("v1.14"), Some((CoreVersion::new(1, 14, 0), false)));
        assert_eq!(CoreVersion::parse("latest"), None);
        assert_eq!(CoreVersion::parse("1.2.3.4"), None);
        assert!(CoreVersion::new(1, 9, 0) < CoreVersion::new(1, 10, 0));
    }

    #[test]
    fn the_provider_table_parses_every_row_once() {
        let t = provider_table();
        assert_eq!(t.len(), 101, "provider-core.tsv lists 101 provider tags");
        let find = |tag: &str| t.iter().find(|r| r.provider_tag == tag).map(|r| r.core);
        assert_eq!(find("v1.0.14"), Some(CoreVersion::new(1, 0, 9)));
        assert_eq!(find("v1.11.2"), Some(CoreVersion::new(1, 11, 0)), "a real step back (VERSION-RULES W2)");
        assert_eq!(find("v1.5.0"), Some(CoreVersion::new(1, 5, 0)), "a pseudo-version resolved to the tag");
        assert_eq!(find("v1.7.3-hash-fix-backport"), Some(CoreVersion::new(1, 8, 0)));
        assert_eq!(find("v1.14.1"), Some(CoreVersion::new(1, 14, 1)));
        assert!(t.iter().all(|r| r.core >= OLDEST && r.core <= NEWEST));
    }

    #[test]
    fn an_aws_image_tag_maps_to_core_and_names_the_row() {
        let r = resolve(Some("1.0.14"), "deployment kube-system/karpenter image 1.0.14", &Origin::AwsProvider)
            .expect("known");
        assert_eq!(r.core, CoreVersion::new(1, 0, 9));
        assert_eq!(r.row.as_deref(), Some("aws provider v1.0.14 → core v1.0.9"));
        assert!(r.warnings.is_empty(), "{:?}", r.warnings);
        // v1.7.3 is the 1.7.x release, not the hash-fix tag that carries core 1.8.0.
        let r = resolve(Some("v1.7.3"), "d", &Origin::AwsProvider).expect("known");
        assert_eq!(r.core, CoreVersion::new(1, 7, 1));
    }

    #[test]
    fn a_provider_tag_outside_the_table_says_what_was_assumed() {
        let r = resolve(Some("1.12.9"), "d", &Origin::AwsProvider).expect("assumed");
        assert_eq!(r.core, CoreVersion::new(1, 12, 1), "nearest lower 1.12 row: provider 1.12.2 → core 1.12.1");
        assert!(r.warnings[0].contains("not in the provider → core table"), "{:?}", r.warnings);
        let r = resolve(Some("1.20.0"), "d", &Origin::AwsProvider).expect("newer");
        assert_eq!(r.core, NEWEST);
        assert!(r.warnings.iter().any(|w| w.contains("newer than the newest")), "{:?}", r.warnings);
    }

    #[test]
    fn below_v1_is_refused_and_nothing_assumes_the_newest() {
        assert!(resolve(Some("0.37.0"), "flag", &Origin::Core).is_err());
        assert!(resolve(Some("v0.37.5"), "d", &Origin::AwsProvider).is_err());
        let r = resolve(None, "", &Origin::Nothing).expect("assumed");
        assert_eq!(r.core, NEWEST);
        assert!(r.from.starts_with("assumed"));
        let r = resolve(Some("latest"), "d", &Origin::AwsProvider).expect("assumed");
        assert_eq!(r.core, NEWEST);
        assert_eq!(r.warnings.len(), 1);
        let r = resolve(Some("1.3.0"), "d", &Origin::UnknownProvider).expect("read as core");
        assert_eq!(r.core, CoreVersion::new(1, 3, 0));
        assert!(r.warnings[0].contains("not the AWS provider"));
        let r = resolve(Some("v1.14"), "snapshot", &Origin::Core).expect("minor only");
        assert_eq!(r.core, CoreVersion::new(1, 14, 0));
    }
}
