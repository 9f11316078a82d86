//! Embeds the commit the binary is built from, for `--version`.
//!
//! Sources, first that answers: `KUBECTL_CONSOLIDATION_COMMIT` (release builds may set it),
//! `git rev-parse HEAD` in a checkout, the `.cargo_vcs_info.json` that `cargo package` writes
//! into a crate tarball, else `unknown`. A build from a tarball without `.git` never fails.

use std::path::Path;
use std::process::Command;

/// What `cargo package` writes into a crate tarball.
const VCS_INFO: &str = ".cargo_vcs_info.json";

fn main() {
    println!("cargo:rerun-if-env-changed=KUBECTL_CONSOLIDATION_COMMIT");
    if Path::new(VCS_INFO).exists() {
        println!("cargo:rerun-if-changed={VCS_INFO}");
    }
    let commit = std::env::var("KUBECTL_CONSOLIDATION_COMMIT")
        .ok()
        .filter(|c| !c.trim().is_empty())
        .or_else(git_head)
        .or_else(cargo_vcs_info)
        .unwrap_or_else(|| "unknown".to_owned());
    let commit: String = commit.trim().chars().take(12).collect();
    println!("cargo:rustc-env=KUBECTL_CONSOLIDATION_COMMIT={commit}");
    // `version`'s build info: the target, the profile and the compiler (cargo sets all three
    // for build scripts).
    let env = |key: &str| std::env::var(key).unwrap_or_else(|_| "unknown".to_owned());
    println!("cargo:rustc-env=KUBECTL_CONSOLIDATION_TARGET={}", env("TARGET"));
    println!("cargo:rustc-env=KUBECTL_CONSOLIDATION_PROFILE={}", env("PROFILE"));
    let rustc = Command::new(env("RUSTC"))
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map_or_else(|| "unknown".to_owned(), |o| String::from_utf8_lossy(&o.stdout).trim().to_owned());
    println!("cargo:rustc-env=KUBECTL_CONSOLIDATION_RUSTC={rustc}");
}

fn git(args: &[&str]) -> Option<String> {
    let output = Command::new("git").args(args).output().ok()?;
    output.status.success().then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned()).filter(|s| !s.is_empty())
}

/// HEAD of the checkout being built; reruns when HEAD or the branch it names moves.
fn git_head() -> Option<String> {
    let commit = git(&["rev-parse", "--verify", "HEAD"])?;
    let branch = git(&["symbolic-ref", "-q", "HEAD"]);
    for path in ["HEAD", "packed-refs"].into_iter().chain(branch.as_deref()) {
        // Only files that exist: a missing one would rerun this script on every build.
        if let Some(p) = git(&["rev-parse", "--git-path", path]).filter(|p| Path::new(p).exists()) {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    Some(commit)
}

/// `{"git": {"sha1": "…"}, …}` as `cargo package` writes it; read without a JSON parser
/// (build scripts keep no dependencies).
fn cargo_vcs_info() -> Option<String> {
    let text = std::fs::read_to_string(VCS_INFO).ok()?;
    let after = &text[text.find("\"sha1\"")? + "\"sha1\"".len()..];
    let start = after.find('"')? + 1;
    let sha: String = after[start..].chars().take_while(char::is_ascii_hexdigit).collect();
    (sha.len() >= 7).then_some(sha)
}
