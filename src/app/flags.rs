//! What the flags ask for, read once: the output format, the source, the namespaces in scope,
//! and the warning for a `-n` that names no namespace of the snapshot.

use crate::cli::{Cli, Command, Output};
use crate::commands::{Failure, Scope};
use crate::render::Format;
use crate::snapshot::Snapshot;
use crate::source::{self, ClusterArgs, Source};

/// The document format `-o` asks for (`-o name` and `-o jsonpath` read the JSON document).
/// `snapshot` chooses its own encoding and sink (`commands::snapshot::plan`) from `-o`; the
/// `Yaml` given for it here is not read past the format check.
pub(super) fn format(cli: &Cli) -> Result<Format, Failure> {
    match (&cli.command, &cli.output.output) {
        (Command::Snapshot { .. }, _) => Ok(Format::Yaml),
        (_, Output::Format(f)) => Ok(*f),
        (_, Output::Name | Output::JsonPath(_)) => Ok(Format::Json),
        (_, Output::File(path)) => Err(Failure::Usage(format!(
            "-o {}: only `snapshot` writes to a file; use -o text|wide|json|yaml|markdown|name|jsonpath=TEMPLATE",
            path.display()
        ))),
    }
}

/// Where the cluster is read from: `--snapshot`, `--demo`, else the kubeconfig's cluster.
pub(super) fn source_of(cli: &Cli, progress: bool) -> Source {
    if let Some(path) = &cli.input.snapshot {
        return Source::File { path: path.clone(), max_bytes: cli.input.max_input_size.0 };
    }
    if cli.input.demo {
        return Source::Demo;
    }
    Source::Cluster(ClusterArgs {
        kubeconfig: cli.kube.kubeconfig.as_ref().map(Into::into),
        context: cli.kube.context.clone(),
        cluster: cli.kube.cluster.clone(),
        user: cli.kube.user.clone(),
        request_timeout: cli.kube.request_timeout,
        progress,
        prices_given: cli.input.prices.is_some(),
    })
}

/// `-` (stdin) names one input at most: the snapshot or one `diff -f`.
pub(super) fn stdin_read_once(cli: &Cli, files: &[std::path::PathBuf]) -> Result<(), Failure> {
    let stdin = |p: &std::path::PathBuf| p.as_os_str() == "-";
    if files.iter().filter(|p| stdin(p)).count() > 1
        || (files.iter().any(stdin) && cli.input.snapshot.as_ref().is_some_and(stdin))
    {
        return Err(Failure::Usage(
            "stdin (`-`) can be read once: pass the snapshot or one -f from it, not both".into(),
        ));
    }
    Ok(())
}

/// `pdb-audit`'s namespaces: `-n`, else (live) the kubeconfig context's namespace, else all.
pub(super) fn scope(cli: &Cli, source: &Source) -> Scope {
    let namespace = cli.kube.namespace.clone().or_else(|| match source {
        Source::Cluster(args) if !cli.kube.all_namespaces && matches!(cli.command, Command::PdbAudit { .. }) => {
            source::default_namespace(args).or(Some("default".into()))
        }
        _ => None,
    });
    Scope {
        all_namespaces: cli.kube.all_namespaces || namespace.is_none(),
        namespace: if cli.kube.all_namespaces { None } else { namespace },
        selector: cli.kube.selector.clone(),
    }
}

/// kubectl's "No resources found in NS namespace." as a warning: `-n` names a namespace that
/// holds no pod of the snapshot (a typo, or the wrong cluster), so every answer scoped by it is
/// empty. `None` when `-A` is given or the namespace has pods.
pub(super) fn empty_namespace(cli: &Cli, snapshot: &Snapshot) -> Option<String> {
    let namespace = cli.kube.namespace.as_deref().filter(|_| !cli.kube.all_namespaces)?;
    if snapshot.pods.iter().any(|p| p.metadata.namespace() == namespace) {
        return None;
    }
    let mut with_pods: Vec<&str> = snapshot.pods.iter().map(|p| p.metadata.namespace()).collect();
    with_pods.sort_unstable();
    with_pods.dedup();
    let known = match with_pods.len() {
        0 => "the snapshot has no pods".to_owned(),
        n if n <= 5 => format!("namespaces with pods: {}", with_pods.join(", ")),
        n => format!("namespaces with pods: {}, … ({n} in all)", with_pods[..5].join(", ")),
    };
    Some(format!("no pods in namespace `{namespace}` in the snapshot ({known}); -A looks in every namespace"))
}
