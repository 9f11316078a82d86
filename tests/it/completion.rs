//! Shell completion end to end: through kubectl's own plugin protocol (`kubectl __complete
//! consolidation …` runs `kubectl_complete-consolidation` from PATH), against a live cluster
//! (the fake API server on 127.0.0.1), and through the scripts `completion bash|zsh|fish`
//! print, in the real shells. A shell or kubectl that is not installed skips its test.
//!
//! Expectations follow cobra's protocol (spf13/cobra completions.go: one candidate per line,
//! then `:<ShellCompDirective>`; NoSpace = 2, NoFileComp = 4, FilterFileExt = 8) and kubectl's
//! plugin completion (kubectl/pkg/cmd/plugin: it passes the words after the plugin name).

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::json;

use crate::support::fake_apiserver::{Config, FakeApiServer};
use crate::support::{root, BIN};

const SNAPSHOT: &str = "tests/scenarios/seed-incident-underutilized/snapshot.yaml";

fn find_on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(program)).find(|p| p.is_file())
}

/// A directory with the binary under both names kubectl looks for, and PATH with it first.
struct Installed {
    dir: tempfile::TempDir,
    path: std::ffi::OsString,
}

fn installed() -> Installed {
    let dir = tempfile::tempdir().expect("temp dir");
    for name in ["kubectl-consolidation", "kubectl_complete-consolidation"] {
        std::os::unix::fs::symlink(BIN, dir.path().join(name)).expect("symlinks the binary");
    }
    let path = std::env::join_paths(
        std::iter::once(dir.path().to_path_buf())
            .chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .expect("joins PATH");
    Installed { dir, path }
}

/// cobra's answer: the candidates' values and the directive.
#[derive(Debug)]
struct Answer {
    values: Vec<String>,
    directive: u8,
}

fn read_answer(stdout: &[u8]) -> Answer {
    let text = String::from_utf8_lossy(stdout);
    let mut lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    let last = lines.pop().unwrap_or_default();
    let directive =
        last.strip_prefix(':').and_then(|d| d.parse().ok()).unwrap_or_else(|| panic!("no directive: {text}"));
    Answer { values: lines.iter().map(|l| l.split('\t').next().unwrap_or_default().to_owned()).collect(), directive }
}

/// `kubectl __complete consolidation WORDS…`, with KUBECONFIG pointing at `kubeconfig`.
fn through_kubectl(kubectl: &Path, at: &Installed, kubeconfig: &Path, words: &[&str]) -> Answer {
    let output = Command::new(kubectl)
        .arg("__complete")
        .arg("consolidation")
        .args(words)
        .current_dir(root())
        .env("PATH", &at.path)
        .env("KUBECONFIG", kubeconfig)
        .output()
        .expect("runs kubectl");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    read_answer(&output.stdout)
}

#[test]
fn kubectl_completes_the_plugin_through_its_protocol() {
    let Some(kubectl) = find_on_path("kubectl") else {
        println!("skipped: kubectl is not on PATH");
        return;
    };
    let at = installed();
    let nowhere = at.dir.path().join("no-kubeconfig");
    let ask = |words: &[&str]| through_kubectl(&kubectl, &at, &nowhere, words);

    let a = ask(&[""]);
    assert!(a.values.iter().any(|v| v == "explain") && a.directive == 4, "subcommands: {a:?}");
    let a = ask(&["explain", "po"]);
    assert_eq!((a.values.as_slice(), a.directive), (&["pod/".to_owned()][..], 2 | 4), "KIND/ with NoSpace");
    let a = ask(&["--snapshot", SNAPSHOT, "explain", "node/"]);
    assert!(a.values.iter().all(|v| v.starts_with("node/")) && a.values.len() > 1 && a.directive == 4, "{a:?}");
    let a = ask(&["--demo", "explain", "nodeclaim/default-node-x"]);
    assert_eq!(a.values, ["nodeclaim/default-node-x"]);
    let a = ask(&["--demo", "explain", "node/node-x", ""]);
    assert!(a.values.is_empty() && a.directive == 4, "nothing after a complete target: {a:?}");
    let a = ask(&["plan", "--sort-by", "p"]);
    assert_eq!(a.values, ["price", "pool"]);
    let a = ask(&["plan", "-o", ""]);
    assert!(a.values.contains(&"markdown".to_owned()) && a.directive == 4, "{a:?}");
    let a = ask(&["pdb-audit", "--fail-on", "w"]);
    assert_eq!(a.values, ["warning"]);
    let a = ask(&["--color=a"]);
    assert_eq!(a.values, ["--color=auto", "--color=always"]);
    let a = ask(&["--snapshot", ""]);
    assert_eq!((a.values.join(","), a.directive), ("yaml,yml,json".to_owned(), 8), "files, not subcommands");
    let a = ask(&["plan", "--kubeconfig", ""]);
    assert!(a.values.is_empty() && a.directive == 0, "kubectl's shells fall back to files: {a:?}");
}

fn live_objects() -> Vec<serde_json::Value> {
    vec![
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "ip-10-0-1-1"}}),
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "ip-10-0-1-2"}}),
        json!({"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "general"}}),
        json!({"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim", "metadata": {"name": "general-abc12"}}),
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}}),
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-b"}}),
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-1", "namespace": "team-a"}, "spec": {"containers": []}}),
        json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "db-1", "namespace": "team-b"}, "spec": {"containers": []}}),
    ]
}

/// The binary under kubectl's completion name, with KUBECONFIG set; (answer, stderr, elapsed).
fn complete_live(kubeconfig: &Path, words: &[&str]) -> (Answer, String, Duration) {
    let at = installed();
    let started = Instant::now();
    let output = Command::new(at.dir.path().join("kubectl_complete-consolidation"))
        .args(words)
        .env("KUBECONFIG", kubeconfig)
        .output()
        .expect("runs");
    let elapsed = started.elapsed();
    assert!(output.status.success());
    (read_answer(&output.stdout), String::from_utf8_lossy(&output.stderr).into_owned(), elapsed)
}

#[test]
fn names_come_from_the_live_cluster_without_a_snapshot() {
    let server = FakeApiServer::start(Config::new(&live_objects()));
    let dir = tempfile::tempdir().expect("temp dir");
    let kubeconfig = server.write_kubeconfig(dir.path());
    let (a, stderr, _) = complete_live(&kubeconfig, &["explain", "node/ip-10-0-1-"]);
    assert_eq!(
        (a.values.as_slice(), a.directive),
        (&["node/ip-10-0-1-1".to_owned(), "node/ip-10-0-1-2".to_owned()][..], 4)
    );
    assert!(stderr.is_empty(), "{stderr}");
    assert_eq!(complete_live(&kubeconfig, &["score", "nodepool/"]).0.values, ["nodepool/general"]);
    assert_eq!(complete_live(&kubeconfig, &["explain", "nodeclaim/"]).0.values, ["nodeclaim/general-abc12"]);
    assert_eq!(complete_live(&kubeconfig, &["-n", "team-b", "explain", "pod/"]).0.values, ["pod/db-1"]);
    assert_eq!(complete_live(&kubeconfig, &["pdb-audit", "-n", "team-"]).0.values, ["team-a", "team-b"]);
    assert_eq!(complete_live(&kubeconfig, &["--context", ""]).0.values, ["fake"], "contexts from the kubeconfig");
    let lists = server.log().into_iter().filter(|r| r.path == "/api/v1/nodes").count();
    assert_eq!(lists, 1, "one list for one TAB");
    assert!(server.log().iter().all(|r| r.method == "GET"));
}

#[test]
fn a_slow_or_missing_cluster_gives_no_names_quickly_and_silently() {
    let server = FakeApiServer::start(Config::new(&live_objects()).delay("nodes", Duration::from_secs(20)));
    let dir = tempfile::tempdir().expect("temp dir");
    let kubeconfig = server.write_kubeconfig(dir.path());
    let (a, stderr, elapsed) = complete_live(&kubeconfig, &["explain", "node/"]);
    assert!(a.values.is_empty() && a.directive == 4, "{a:?}");
    assert!(stderr.is_empty(), "{stderr}");
    assert!(elapsed < Duration::from_secs(6), "bounded by the completion deadline, took {elapsed:?}");

    let (a, stderr, _) = complete_live(&dir.path().join("missing"), &["explain", "node/"]);
    assert!(a.values.is_empty() && stderr.is_empty(), "{a:?} {stderr}");
    let broken = dir.path().join("broken");
    std::fs::write(&broken, "not: [a kubeconfig").expect("writes");
    let (a, stderr, _) = complete_live(&broken, &["--context", ""]);
    assert!(a.values.is_empty() && stderr.is_empty(), "{a:?} {stderr}");
}

// ---- The shell scripts, in the real shells ----

fn script_path(shell: &str) -> PathBuf {
    root().join(format!("completions/kubectl-consolidation.{shell}"))
}

fn shell(program: &str) -> Option<PathBuf> {
    let found = find_on_path(program);
    if found.is_none() {
        println!("skipped: {program} is not on PATH");
    }
    found
}

fn run_shell(program: &Path, args: &[&str], at: &Installed) -> String {
    let output = Command::new(program)
        .args(args)
        .current_dir(root())
        .env("PATH", &at.path)
        .env("KUBECONFIG", at.dir.path().join("no-kubeconfig"))
        .output()
        .expect("runs the shell");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// bash: the script registers with `complete`, and its function fills COMPREPLY after a
/// subcommand. COMP_WORDS is split as bash splits it (at `=` too); `compopt` is recorded.
#[test]
fn bash_completes_after_a_subcommand() {
    let Some(bash) = shell("bash") else { return };
    let at = installed();
    let harness = format!(
        r#"compopt() {{ OPTS+="$*;"; }}
source '{script}'
complete -p kubectl-consolidation
ask() {{
  OPTS=""; COMP_LINE="$1"; COMP_POINT=${{#COMP_LINE}}; shift; COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 ))
  COMPREPLY=(); _kubectl_consolidation; echo "${{COMPREPLY[*]}}|$OPTS"
}}
ask 'kubectl-consolidation explain po' kubectl-consolidation explain po
ask 'kubectl-consolidation --demo explain node/node-x' kubectl-consolidation --demo explain node/node-x
ask 'kubectl-consolidation plan --sort-by=p' kubectl-consolidation plan --sort-by = p
ask 'kubectl-consolidation completion ' kubectl-consolidation completion ''
ask 'kubectl-consolidation --demo explain node/node-x ' kubectl-consolidation --demo explain node/node-x ''
ask 'kubectl-consolidation --snapshot tests/scenarios/seed-incident-underutilized/s' kubectl-consolidation --snapshot tests/scenarios/seed-incident-underutilized/s
"#,
        script = script_path("bash").display()
    );
    let out = run_shell(&bash, &["--norc", "--noprofile", "-c", &harness], &at);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "complete -F _kubectl_consolidation kubectl-consolidation",
            "pod/|-o nospace;",
            "node/node-x|",
            "price pool|",
            "bash zsh fish|",
            "|",
            "tests/scenarios/seed-incident-underutilized/snapshot.yaml|-o filenames;",
        ],
        "{out}"
    );
}

/// zsh: the script's function against stubs of compsys's `_describe` and `_files` (what it
/// hands zsh), with `words` and `CURRENT` as zsh sets them.
#[test]
fn zsh_completes_after_a_subcommand() {
    let Some(zsh) = shell("zsh") else { return };
    let at = installed();
    let harness = format!(
        r#"compdef() {{ print -r -- "compdef $*"; }}
_describe() {{ print -r -- "describe ${{(j: :)@[5,-1]}}: ${{(j:,:)${{(@P)4}}}}"; }}
_files() {{ print -r -- "files $*"; }}
source '{script}'
ask() {{ words=("$@"); CURRENT=$#; _kubectl_consolidation || print "none"; }}
ask kubectl-consolidation explain po
ask kubectl-consolidation --demo explain node/node-x
ask kubectl-consolidation completion ''
ask kubectl-consolidation --snapshot ''
ask kubectl-consolidation plan --prices ''
ask kubectl-consolidation --demo explain node/node-x ''
ask kubectl-consolidation --pri
"#,
        script = script_path("zsh").display()
    );
    let out = run_shell(&zsh, &["-f", "-c", &harness], &at);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "compdef _kubectl_consolidation kubectl-consolidation",
            "describe -S : pod/",
            "describe : node/node-x",
            "describe : bash,zsh,fish",
            "files -g *.(yaml|yml|json)",
            "files ",
            "none",
            "describe : --prices:Add prices: an InstanceTypes document or Karpenter's /metrics text",
        ],
        "{out}"
    );
}

/// fish: its own completion engine (`complete -C`) runs the registered function.
#[test]
fn fish_completes_after_a_subcommand() {
    let Some(fish) = shell("fish") else { return };
    let at = installed();
    let harness = format!(
        r#"source '{script}'
for line in 'kubectl-consolidation explain po' 'kubectl-consolidation --demo explain node/node-x' 'kubectl-consolidation completion ' 'kubectl-consolidation --demo explain node/node-x ' 'kubectl-consolidation --snapshot tests/scenarios/seed-incident-underutilized/s'
    echo "== $line"
    complete -C"$line"
end
"#,
        script = script_path("fish").display()
    );
    let out = run_shell(&fish, &["--no-config", "-c", &harness], &at);
    let expected = "== kubectl-consolidation explain po\npod/\n\
                    == kubectl-consolidation --demo explain node/node-x\nnode/node-x\n\
                    == kubectl-consolidation completion \nbash\nfish\nzsh\n\
                    == kubectl-consolidation --demo explain node/node-x \n\
                    == kubectl-consolidation --snapshot tests/scenarios/seed-incident-underutilized/s\n\
                    tests/scenarios/seed-incident-underutilized/snapshot.yaml\n";
    assert_eq!(out, expected);
}

// ---- The committed scripts ----

#[test]
fn committed_completion_scripts_are_up_to_date() {
    let mut stale = Vec::new();
    for shell in ["bash", "zsh", "fish"] {
        let path = script_path(shell);
        let output = Command::new(BIN).args(["completion", shell]).output().expect("runs");
        assert!(output.status.success());
        if std::env::var_os("UPDATE_COMPLETIONS").is_some() {
            std::fs::write(&path, &output.stdout).expect("writes the completion script");
            continue;
        }
        if std::fs::read(&path).ok().as_deref() != Some(output.stdout.as_slice()) {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "stale completion scripts; regenerate with `UPDATE_COMPLETIONS=1 cargo test --test it committed_completion`: {stale:?}"
    );
}
