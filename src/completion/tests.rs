//! The engine against the built-in demo snapshot (no cluster, no files): what each cursor
//! position offers, and the directive cobra's shells act on.

use super::directive::{DEFAULT, FILTER_FILE_EXT, NO_FILE_COMP, NO_SPACE};
use super::{complete, Completion};

fn at(words: &[&str]) -> Completion {
    complete(&words.iter().map(|w| (*w).to_owned()).collect::<Vec<_>>())
}

fn values(c: &Completion) -> Vec<&str> {
    c.candidates.iter().map(|c| c.split('\t').next().unwrap_or_default()).collect()
}

#[test]
fn subcommands_with_their_help_and_no_files() {
    let c = at(&[""]);
    assert!(values(&c).contains(&"explain") && values(&c).contains(&"pdb-audit"), "{c:?}");
    assert!(c.candidates.iter().any(|c| c.starts_with("plan\tThe round")), "{c:?}");
    assert_eq!(c.directive, NO_FILE_COMP);
    assert_eq!(values(&at(&["pl"])), ["plan"]);
}

#[test]
fn kind_prefixes_ask_for_no_space() {
    let c = at(&["explain", "po"]);
    assert_eq!(values(&c), ["pod/"]);
    assert_eq!(c.directive, NO_SPACE | NO_FILE_COMP);
    assert_eq!(values(&at(&["explain", ""])), ["node/", "nodeclaim/", "pod/"]);
    assert_eq!(values(&at(&["score", ""])), ["nodepool/"]);
    assert_eq!(values(&at(&["budgets", "n"])), ["nodepool/"]);
    assert_eq!(values(&at(&["doctor", ""])), ["node/"]);
}

#[test]
fn names_after_the_kind_come_from_the_snapshot() {
    let c = at(&["--demo", "explain", "node/node-x"]);
    assert_eq!(values(&c), ["node/node-x"]);
    assert_eq!(c.directive, NO_FILE_COMP, "a complete name takes a space after it");
    assert_eq!(values(&at(&["--demo", "explain", "no/node-x"])), ["no/node-x"], "the kind is kept as typed");
    assert_eq!(values(&at(&["--demo", "explain", "nodeclaim/default-node-x"])), ["nodeclaim/default-node-x"]);
    assert_eq!(values(&at(&["--demo", "score", "nodepool/"])), ["nodepool/default"]);
    assert!(values(&at(&["--demo", "score", "node/"])).is_empty(), "score takes NodePools only");
}

#[test]
fn pod_names_are_those_of_the_namespace() {
    assert!(values(&at(&["--demo", "explain", "pod/"])).is_empty(), "the demo has no pods in `default`");
    let c = at(&["--demo", "-n", "tenant-a", "explain", "pod/app-c"]);
    assert_eq!(values(&c), ["pod/app-c-7c9d-x1"]);
}

#[test]
fn a_bare_word_completes_node_names() {
    assert_eq!(values(&at(&["--demo", "explain", "node-x"])), ["node-x"]);
}

#[test]
fn nothing_after_a_complete_target() {
    for words in [&["--demo", "explain", "node/node-x", ""][..], &["--demo", "plan", ""], &["score", "nodepool/a", "n"]]
    {
        let c = at(words);
        assert!(c.candidates.is_empty(), "{words:?}: {c:?}");
        assert_eq!(c.directive, NO_FILE_COMP, "{words:?}");
    }
}

#[test]
fn flag_values_from_their_enums() {
    assert_eq!(values(&at(&["plan", "--sort-by", ""])), ["name", "verdict", "price", "cost", "pool"]);
    assert_eq!(values(&at(&["plan", "--sort-by", "p"])), ["price", "pool"]);
    assert_eq!(values(&at(&["plan", "--sort-by=p"])), ["--sort-by=price", "--sort-by=pool"]);
    assert_eq!(values(&at(&["--color", ""])), ["auto", "always", "never"]);
    assert_eq!(values(&at(&["pdb-audit", "--fail-on", ""])), ["info", "warning", "critical"]);
    let c = at(&["plan", "-o", ""]);
    assert_eq!(values(&c), ["text", "wide", "json", "yaml", "markdown", "name", "jsonpath="]);
    assert_eq!(c.directive, NO_FILE_COMP);
    assert_eq!(values(&at(&["completion", ""])), ["bash", "zsh", "fish"]);
}

#[test]
fn file_flags_complete_files() {
    let c = at(&["--snapshot", ""]);
    assert_eq!((values(&c), c.directive), (vec!["yaml", "yml", "json"], FILTER_FILE_EXT));
    assert_eq!(at(&["explain", "--snapshot", "tests/"]).directive, FILTER_FILE_EXT, "not subcommands or targets");
    for flag in ["--prices", "--kubeconfig"] {
        let c = at(&["plan", flag, ""]);
        assert!(c.candidates.is_empty() && c.directive == DEFAULT, "{flag}: {c:?}");
    }
    assert_eq!(at(&["snapshot", "-o", "out/snap"]).directive, FILTER_FILE_EXT, "snapshot -o also writes a file");
}

#[test]
fn flags_once_each_except_repeatable_ones() {
    let c = at(&["plan", "--so"]);
    assert_eq!(values(&c), ["--sort-by"]);
    assert!(c.candidates[0].contains('\t'), "with its help: {c:?}");
    assert!(values(&at(&["--demo", "plan", "--d"])).is_empty(), "--demo is given already");
    assert_eq!(values(&at(&["--set", "budgets=1", "plan", "--se"])), ["--set", "--selector"], "--set repeats");
    assert!(values(&at(&["pdb-audit", "--"])).contains(&"--fail-on"), "the subcommand's own flags");
    assert!(!values(&at(&["plan", "--"])).contains(&"--fail-on"));
}

#[test]
fn namespaces_and_set_keys() {
    assert_eq!(values(&at(&["--demo", "-n", ""])), ["tenant-a"]);
    let c = at(&["--set", ""]);
    assert!(values(&c).contains(&"consolidationPolicy=") && c.directive == NO_SPACE | NO_FILE_COMP, "{c:?}");
    assert_eq!(values(&at(&["--demo", "--set", "nodepool/d"])), ["nodepool/default."]);
    assert_eq!(values(&at(&["--set", "consolidationPolicy=B"])), ["consolidationPolicy=Balanced"]);
    assert_eq!(values(&at(&["--set", "nodepool/p.consolidationPolicy=W"])).len(), 2);
}

#[test]
fn stdin_snapshots_are_never_read() {
    assert!(values(&at(&["--snapshot", "-", "explain", "node/"])).is_empty());
}

#[test]
fn the_wire_format_ends_with_the_directive() {
    let text = at(&["explain", "po"]).to_cobra();
    assert_eq!(text, "pod/\n:6\n");
}

#[test]
fn requests_come_under_kubectls_name_or_as_complete() {
    use std::ffi::OsString;
    let args = |a: &[&str]| a.iter().map(OsString::from).collect::<Vec<_>>().into_iter();
    assert_eq!(
        super::request(args(&["/bin/kubectl_complete-consolidation", "explain", ""])),
        Some(vec!["explain".into(), String::new()])
    );
    assert_eq!(super::request(args(&["kubectl-consolidation", "__complete", "pl"])), Some(vec!["pl".into()]));
    assert_eq!(super::request(args(&["kubectl-consolidation", "plan"])), None);
}

#[test]
fn all_namespaces_completes_pods_of_every_namespace() {
    let c = at(&["--demo", "-A", "explain", "pod/app-c"]);
    assert_eq!(values(&c), ["pod/app-c-7c9d-x1"]);
    assert!(!values(&at(&["--demo", "-A", "explain", "pod/"])).is_empty(), "every namespace's pods");
    assert!(values(&at(&["--demo", "explain", "pod/"])).is_empty(), "without -A: `default` only");
}

#[test]
fn set_completes_pdbs_and_their_fields() {
    let c = at(&["--demo", "--set", "pdb/"]);
    assert!(values(&c).contains(&"pdb/tenant-a/app-b."), "{c:?}");
    assert_eq!(c.directive, NO_SPACE | NO_FILE_COMP);
    assert_eq!(
        values(&at(&["--demo", "--set", "pdb/tenant-a/app-b.m"])),
        ["pdb/tenant-a/app-b.minAvailable=", "pdb/tenant-a/app-b.maxUnavailable="]
    );
    assert_eq!(values(&at(&["--demo", "--set=pdb/tenant-a/app-b.max"])), ["--set=pdb/tenant-a/app-b.maxUnavailable="]);
}

#[test]
fn instance_types_takes_a_nodepool() {
    assert_eq!(values(&at(&["instance-types", ""])), ["nodepool/"]);
    assert_eq!(values(&at(&["--demo", "instance-types", "nodepool/"])), ["nodepool/default"]);
}

#[test]
fn output_offers_name_and_jsonpath() {
    let c = at(&["plan", "-o", ""]);
    assert!(values(&c).contains(&"name") && values(&c).contains(&"jsonpath="), "{c:?}");
    let j = at(&["plan", "-o", "jsonp"]);
    assert_eq!((values(&j), j.directive), (vec!["jsonpath="], NO_SPACE | NO_FILE_COMP));
    assert!(values(&at(&["plan", "-o", "jsonpath={.n"])).is_empty());
}

#[test]
fn contexts_come_from_the_kubeconfig() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("config");
    let config = "apiVersion: v1\nkind: Config\ncurrent-context: dev\n\
        clusters:\n- name: c1\n  cluster: {server: 'https://127.0.0.1:1'}\n\
        users:\n- name: u1\n  user: {token: t}\n\
        contexts:\n- name: dev\n  context: {cluster: c1, user: u1}\n- name: prod-eu\n  context: {cluster: c1, user: u1}\n";
    std::fs::write(&path, config).expect("writes the kubeconfig");
    let kubeconfig = path.to_string_lossy().into_owned();
    let c = at(&["--kubeconfig", &kubeconfig, "--context", ""]);
    assert_eq!(values(&c), ["dev", "prod-eu"]);
    assert_eq!(values(&at(&["--kubeconfig", &kubeconfig, "--context", "pr"])), ["prod-eu"]);
    assert_eq!(values(&at(&["--kubeconfig", &kubeconfig, "--cluster", ""])), ["c1"]);
}
