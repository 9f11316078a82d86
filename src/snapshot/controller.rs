//! Karpenter's settings as its controller Deployment sets them: the container's env and args
//! (`pkg/operator/options/options.go` in core and the AWS provider: a flag wins over its env
//! var, which wins over the default), and the version from the image tag, else the chart's
//! `app.kubernetes.io/version` or `helm.sh/chart` label. Only reading: defaults and their effect
//! live in `crate::settings`, the provider → core mapping in `crate::rules::version`.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::catalog::Setting;
use super::meta::{ObjectMeta, StringMap};

/// Each setting the replay records: (env var, flag).
pub const SETTINGS: [(&str, &str); 6] = [
    ("FEATURE_GATES", "--feature-gates"),
    ("MIN_VALUES_POLICY", "--min-values-policy"),
    ("PREFERENCE_POLICY", "--preference-policy"),
    ("IGNORE_DRA_REQUESTS", "--ignore-dra-requests"),
    ("VM_MEMORY_OVERHEAD_PERCENT", "--vm-memory-overhead-percent"),
    ("RESERVED_ENIS", "--reserved-enis"),
];
/// The pseudo-setting holding the Karpenter version.
pub const VERSION: &str = "version";

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
pub(super) struct Deployment {
    metadata: ObjectMeta,
    spec: DeploymentSpec,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct DeploymentSpec {
    template: Template,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Template {
    spec: PodSpec,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct PodSpec {
    containers: Vec<Container>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Container {
    name: String,
    image: String,
    env: Vec<Env>,
    args: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default)]
struct Env {
    name: String,
    value: Option<String>,
}

impl Deployment {
    /// Whether this is Karpenter's controller: the chart's name label, or its image.
    fn is_karpenter(&self) -> bool {
        self.metadata.labels.get("app.kubernetes.io/name").is_some_and(|n| n == "karpenter")
            || self.spec.template.spec.containers.iter().any(|c| c.image.contains("karpenter/controller"))
    }

    /// The settings it sets, each with where it was read; `None` when it is not Karpenter's.
    pub(super) fn settings(&self) -> Option<BTreeMap<String, Setting>> {
        if !self.is_karpenter() {
            return None;
        }
        let who = format!("deployment {}/{}", self.metadata.namespace(), self.metadata.name);
        let containers = &self.spec.template.spec.containers;
        let controller = containers.iter().find(|c| c.name == "controller").or(containers.first())?;
        let mut out = BTreeMap::new();
        for (env, flag) in SETTINGS {
            let from_env = controller.env.iter().find(|e| e.name == env).and_then(|e| e.value.clone());
            let from_args = flag_value(&controller.args, flag);
            if let Some(value) = from_args {
                out.insert(env.to_owned(), Setting { value, source: format!("{who} args {flag}") });
            } else if let Some(value) = from_env {
                out.insert(env.to_owned(), Setting { value, source: format!("{who} env {env}") });
            }
        }
        // The image tag first (what runs), then the chart's labels: the AWS chart sets
        // `app.kubernetes.io/version` and `helm.sh/chart: karpenter-<version>`.
        let labels: &StringMap = &self.metadata.labels;
        if let Some((repo, tag)) = image_tag(&controller.image) {
            out.insert(VERSION.into(), Setting { value: tag.clone(), source: format!("{who} image {repo}:{tag}") });
        } else if let Some(v) = labels.get("app.kubernetes.io/version") {
            out.insert(
                VERSION.into(),
                Setting { value: v.clone(), source: format!("{who} label app.kubernetes.io/version") },
            );
        } else if let Some(v) = labels.get("helm.sh/chart").and_then(|c| c.strip_prefix("karpenter-")) {
            out.insert(VERSION.into(), Setting { value: v.to_owned(), source: format!("{who} label helm.sh/chart") });
        }
        Some(out)
    }
}

/// `--flag=value` or `--flag value` (Go's flag package accepts both, and `-flag`); a bare
/// boolean flag means `true`.
fn flag_value(args: &[String], flag: &str) -> Option<String> {
    let single = &flag[1..];
    let mut found = None;
    let mut iter = args.iter().peekable();
    while let Some(arg) = iter.next() {
        let name = arg.split_once('=').map_or(arg.as_str(), |(n, _)| n);
        if name != flag && name != single {
            continue;
        }
        found = Some(match arg.split_once('=') {
            Some((_, v)) => v.to_owned(),
            None if flag == "--ignore-dra-requests" => "true".to_owned(),
            None => iter.next().cloned().unwrap_or_default(),
        });
    }
    found
}

/// `public.ecr.aws/karpenter/controller:1.14.0@sha256:…` → (`public.ecr.aws/karpenter/controller`,
/// `1.14.0`); `None` for an image pinned by digest alone or without a tag.
fn image_tag(image: &str) -> Option<(String, String)> {
    let image = image.split('@').next()?;
    let (repo, tag) = image.rsplit_once(':').filter(|(_, tag)| !tag.contains('/') && !tag.is_empty())?;
    Some((repo.to_owned(), tag.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::{flag_value, image_tag, Deployment};

    #[test]
    fn args_win_over_env_and_the_version_comes_from_label_or_tag() {
        let d: Deployment = serde_json::from_value(serde_json::json!({
            "metadata": {"name": "karpenter", "namespace": "kube-system", "labels": {"app.kubernetes.io/name": "karpenter"}},
            "spec": {"template": {"spec": {"containers": [{
                "name": "controller", "image": "public.ecr.aws/karpenter/controller:1.13.2@sha256:ab",
                "env": [{"name": "RESERVED_ENIS", "value": "1"}, {"name": "MIN_VALUES_POLICY", "value": "BestEffort"}],
                "args": ["--reserved-enis=2", "--ignore-dra-requests"]}]}}}
        }))
        .expect("deployment");
        let s = d.settings().expect("karpenter");
        assert_eq!(s["RESERVED_ENIS"].value, "2");
        assert!(s["RESERVED_ENIS"].source.ends_with("args --reserved-enis"));
        assert_eq!(s["MIN_VALUES_POLICY"].value, "BestEffort");
        assert_eq!(s["IGNORE_DRA_REQUESTS"].value, "true");
        assert_eq!(s["version"].value, "1.13.2", "the image tag wins over the chart label");
        assert_eq!(
            s["version"].source,
            "deployment kube-system/karpenter image public.ecr.aws/karpenter/controller:1.13.2"
        );
        assert_eq!(
            flag_value(&["--feature-gates".into(), "A=true".into()], "--feature-gates").as_deref(),
            Some("A=true")
        );
        assert_eq!(image_tag("registry:5000/karpenter"), None);
        assert_eq!(image_tag("public.ecr.aws/karpenter/controller@sha256:ab"), None);
        assert_eq!(
            image_tag("registry:5000/karpenter/controller:1.12.3@sha256:ab"),
            Some(("registry:5000/karpenter/controller".into(), "1.12.3".into()))
        );
    }

    #[test]
    fn without_a_tag_the_chart_labels_name_the_version() {
        let with = |labels: serde_json::Value| -> Option<String> {
            let d: Deployment = serde_json::from_value(serde_json::json!({
                "metadata": {"name": "karpenter", "namespace": "karpenter", "labels": labels},
                "spec": {"template": {"spec": {"containers": [{
                    "name": "controller", "image": "public.ecr.aws/karpenter/controller@sha256:ab"}]}}}
            }))
            .expect("deployment");
            d.settings().expect("karpenter").get("version").map(|s| format!("{} ({})", s.value, s.source))
        };
        assert_eq!(
            with(serde_json::json!({"app.kubernetes.io/name": "karpenter", "app.kubernetes.io/version": "1.12.3", "helm.sh/chart": "karpenter-1.12.2"})).as_deref(),
            Some("1.12.3 (deployment karpenter/karpenter label app.kubernetes.io/version)")
        );
        assert_eq!(
            with(serde_json::json!({"app.kubernetes.io/name": "karpenter", "helm.sh/chart": "karpenter-1.12.2"}))
                .as_deref(),
            Some("1.12.2 (deployment karpenter/karpenter label helm.sh/chart)")
        );
    }
}
