//! The input pipeline's step that picks the rule set: the `version` setting `settings::resolve`
//! recorded (flag, snapshot, controller Deployment, or assumed) → its core version
//! ([`super::version::resolve`]) → `SnapshotInfo::rules`.

use super::version::{self, Origin, Refusal, Resolved};
use super::RuleSet;
use crate::snapshot::controller::VERSION;
use crate::snapshot::SnapshotInfo;

/// Where `--karpenter-version` says a version came from.
pub(crate) const FLAG_SOURCE: &str = "flag --karpenter-version";

/// How to read a version recorded with `source`: the AWS image or chart names a provider
/// release; a flag or the snapshot's `karpenterVersion` a core one.
fn origin(source: &str) -> Origin {
    if source.starts_with("assumed") {
        Origin::Nothing
    } else if let Some((_, image)) = source.starts_with("deployment ").then(|| source.split_once(" image ")).flatten() {
        let repo = image.rsplit_once(':').map_or(image, |(r, _)| r);
        if repo.ends_with("karpenter/controller") {
            Origin::AwsProvider
        } else {
            Origin::UnknownProvider
        }
    } else if source.starts_with("deployment ") {
        // The chart labels: only the AWS provider publishes a chart named `karpenter`.
        Origin::AwsProvider
    } else {
        Origin::Core
    }
}

/// Sets `info.rules` from the recorded version; the version as resolved, for the header.
pub(crate) fn select(info: &mut SnapshotInfo) -> Result<Resolved, Refusal> {
    let setting = info.settings.get(VERSION).cloned().unwrap_or_default();
    let origin = origin(&setting.source);
    let value = (origin != Origin::Nothing).then_some(setting.value.as_str());
    let resolved = version::resolve(value, &setting.source, &origin)?;
    info.rules = RuleSet::at(resolved.core);
    if origin == Origin::UnknownProvider {
        info.rules.node_classes = super::ProviderNodeClasses::Unknown;
    }
    Ok(resolved)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::CoreVersion;
    use crate::snapshot::Setting;

    fn with(value: &str, source: &str) -> SnapshotInfo {
        let mut info = SnapshotInfo::default();
        info.settings.insert(VERSION.into(), Setting { value: value.into(), source: source.into() });
        info
    }

    #[test]
    fn an_aws_image_is_a_provider_release_and_a_flag_a_core_one() {
        let mut info =
            with("1.0.14", "deployment kube-system/karpenter image public.ecr.aws/karpenter/controller:1.0.14");
        let r = select(&mut info).expect("known");
        assert_eq!(info.rules.version, CoreVersion::new(1, 0, 9));
        assert!(r.row.is_some());
        // A flag names core; 1.0.14 was never a core release (the 1.0 line ends at 1.0.9), but
        // it is an AWS provider tag, and the warning says which core that carries.
        let mut info = with("1.0.14", FLAG_SOURCE);
        let r = select(&mut info).expect("known");
        assert_eq!(info.rules.version, CoreVersion::new(1, 0, 9), "the release before it");
        assert!(
            r.warnings.iter().any(|w| w.contains("never released") && w.contains("v1.0.14 is an AWS provider release")),
            "{:?}",
            r.warnings
        );
        let mut info = with("1.12.3", "deployment karpenter/karpenter label helm.sh/chart");
        select(&mut info).expect("known");
        assert_eq!(
            info.rules.version,
            CoreVersion::new(1, 12, 1),
            "chart 1.12.3 is not in the table: nearest lower row"
        );
    }

    #[test]
    fn another_image_is_an_unknown_provider_and_nothing_assumes_the_newest() {
        let mut info = with(
            "1.3.0",
            "deployment kube-system/karpenter image mcr.microsoft.com/aks/karpenter/controller-azure:1.3.0",
        );
        let r = select(&mut info).expect("read as core");
        assert_eq!(info.rules.version, CoreVersion::new(1, 3, 0));
        assert!(r.warnings.iter().any(|w| w.contains("not the AWS provider")), "{:?}", r.warnings);
        // #1818: Azure's NodeClass kinds are not known, so no NodePool is left out for its kind.
        assert_eq!(info.rules.node_classes, crate::rules::ProviderNodeClasses::Unknown);
        let mut info =
            with("1.0.14", "deployment kube-system/karpenter image public.ecr.aws/karpenter/controller:1.0.14");
        select(&mut info).expect("known");
        assert_eq!(info.rules.node_classes, crate::rules::ProviderNodeClasses::Aws);
        let mut info = with("v1.14", "assumed (no Karpenter Deployment or version in the snapshot)");
        let r = select(&mut info).expect("assumed");
        assert_eq!(info.rules, RuleSet::default());
        assert!(r.from.starts_with("assumed"));
        assert!(select(&mut with("0.37.0", "snapshot")).is_err());
    }
}
