//! The krew manifest: `scripts/krew-local.sh` packs the host's archive and renders
//! `consolidation.yaml` from `krew-manifest.yaml`, and the result must pass krew's own rules, which
//! this file re-implements (krew is not installable here): kubernetes-sigs/krew
//! `internal/index/validation/validate.go` (ValidatePlugin, validatePlatform, validateFiles,
//! validateSelector, IsSafePluginName), `cmd/validate-krew-manifest/main.go`
//! (validateManifestFile: the name from the file name, every selector matching a supported
//! platform, no overlap, and installing each platform, which must extract a LICENSE file),
//! `internal/installation/semver` (a `v`-prefixed semantic version) and
//! `internal/installation/move.go` (how `files` moves the archive's contents). On top, this
//! project's rules: `bin` ends in `.exe` exactly on Windows, and every platform krew-index
//! users run (linux, darwin, windows × amd64, arm64) is there.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::support::{root, BIN};

// ---- krew's rules ----

const API_VERSION: &str = "krew.googlecontainertools.github.com/v1alpha2";
/// validate-krew-manifest's allPlatforms.
const KREW_PLATFORMS: [(&str, &str); 11] = [
    ("windows", "386"),
    ("windows", "amd64"),
    ("windows", "arm64"),
    ("linux", "386"),
    ("linux", "amd64"),
    ("linux", "arm"),
    ("linux", "arm64"),
    ("linux", "ppc64le"),
    ("darwin", "386"),
    ("darwin", "amd64"),
    ("darwin", "arm64"),
];
/// The platforms this project ships.
const SHIPPED: [(&str, &str); 6] = [
    ("linux", "amd64"),
    ("linux", "arm64"),
    ("darwin", "amd64"),
    ("darwin", "arm64"),
    ("windows", "amd64"),
    ("windows", "arm64"),
];
/// validate-krew-manifest's licenseFiles (compared lower-case).
const LICENSE_FILES: [&str; 6] = ["license", "license.txt", "license.md", "licenses", "licenses.txt", "licenses.md"];
const WINDOWS_FORBIDDEN: [&str; 22] = [
    "CON", "PRN", "AUX", "NUL", "COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9", "LPT1", "LPT2",
    "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9",
];

fn str_at<'a>(v: &'a Value, pointer: &str) -> &'a str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or_default()
}

/// k8s.io/apimachinery's ParseSemantic after krew's `v` check: MAJOR.MINOR.PATCH, numbers
/// without leading zeros, then optional `-pre` and `+build` of dot-separated identifiers.
fn is_semver(version: &str) -> bool {
    let Some(rest) = version.strip_prefix('v') else { return false };
    let (rest, build) = rest.split_once('+').map_or((rest, None), |(r, b)| (r, Some(b)));
    let (core, pre) = rest.split_once('-').map_or((rest, None), |(c, p)| (c, Some(p)));
    let number = |n: &str| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && (n == "0" || !n.starts_with('0'));
    let identifiers =
        |s: &str| s.split('.').all(|i| !i.is_empty() && i.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-'));
    let parts: Vec<&str> = core.split('.').collect();
    parts.len() == 3 && parts.iter().all(|p| number(p)) && pre.is_none_or(identifiers) && build.is_none_or(identifiers)
}

fn is_safe_plugin_name(name: &str) -> bool {
    !name.is_empty()
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && !WINDOWS_FORBIDDEN.iter().any(|f| f.eq_ignore_ascii_case(name))
}

/// A label selector (matchLabels and matchExpressions) against `os` and `arch`.
fn selects(selector: &Value, os: &str, arch: &str) -> bool {
    let label = |key: &str| match key {
        "os" => Some(os),
        "arch" => Some(arch),
        _ => None,
    };
    let labels_match = selector
        .get("matchLabels")
        .and_then(Value::as_object)
        .is_none_or(|m| m.iter().all(|(k, v)| label(k) == v.as_str()));
    let expressions_match = selector.get("matchExpressions").and_then(Value::as_array).is_none_or(|exprs| {
        exprs.iter().all(|e| {
            let value = label(str_at(e, "/key"));
            let values: Vec<&str> =
                e.get("values").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
            match str_at(e, "/operator") {
                "In" => value.is_some_and(|v| values.contains(&v)),
                "NotIn" => value.is_none_or(|v| !values.contains(&v)),
                "Exists" => value.is_some(),
                "DoesNotExist" => value.is_none(),
                _ => false,
            }
        })
    });
    labels_match && expressions_match
}

fn validate_selector(selector: Option<&Value>) -> Result<(), String> {
    let Some(selector) = selector.filter(|s| !s.is_null()) else { return Err("nil selector is not supported".into()) };
    let labels = selector.get("matchLabels").and_then(Value::as_object);
    let exprs = selector.get("matchExpressions").and_then(Value::as_array);
    if labels.is_none() && exprs.is_none_or(Vec::is_empty) {
        return Err("empty selector is not supported".into());
    }
    let keys = labels
        .into_iter()
        .flat_map(|m| m.keys().map(String::as_str))
        .chain(exprs.into_iter().flatten().map(|e| str_at(e, "/key")));
    if let Some(key) = keys.into_iter().find(|k| *k != "os" && *k != "arch") {
        return Err(format!("key {key:?} not supported"));
    }
    if labels.is_some_and(serde_json::Map::is_empty) {
        return Err("`matchLabels` specified but empty".into());
    }
    if exprs.is_some_and(Vec::is_empty) {
        return Err("`matchExpressions` specified but empty".into());
    }
    Ok(())
}

fn validate_platform(p: &Value) -> Result<(), String> {
    if str_at(p, "/uri").is_empty() {
        return Err("`uri` has to be set".into());
    }
    let sha = str_at(p, "/sha256");
    if sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)) {
        return Err(format!("`sha256` value {sha:?} is not valid, must match ^[a-f0-9]{{64}}$"));
    }
    if str_at(p, "/bin").is_empty() {
        return Err("`bin` has to be set".into());
    }
    if let Some(files) = p.get("files").filter(|f| !f.is_null()) {
        let files = files.as_array().ok_or("`files` is not a list")?;
        if files.is_empty() {
            return Err("`files` has to be unspecified or non-empty".into());
        }
        for op in files {
            if str_at(op, "/from").is_empty() || str_at(op, "/to").is_empty() {
                return Err("`files`: `from` and `to` have to be set".into());
            }
        }
    }
    validate_selector(p.get("selector"))
}

/// validateManifestFile without the install step: the file name, ValidatePlugin, platform use.
fn validate_manifest(file_name: &str, m: &Value) -> Result<(), String> {
    let name =
        file_name.strip_suffix(".yaml").ok_or_else(|| format!("expected manifest extension .yaml: {file_name}"))?;
    if str_at(m, "/apiVersion") != API_VERSION {
        return Err(format!("apiVersion {:?} is not supported", str_at(m, "/apiVersion")));
    }
    if str_at(m, "/kind") != "Plugin" {
        return Err("kind must be Plugin".into());
    }
    if !is_safe_plugin_name(name) {
        return Err(format!("the plugin name {name:?} is not allowed"));
    }
    if str_at(m, "/metadata/name") != name {
        return Err(format!("plugin should be named {name:?}, not {:?}", str_at(m, "/metadata/name")));
    }
    let short = str_at(m, "/spec/shortDescription");
    if short.is_empty() || short.contains(['\r', '\n']) {
        return Err("should have a short description without line breaks".into());
    }
    let platforms = m
        .pointer("/spec/platforms")
        .and_then(Value::as_array)
        .filter(|p| !p.is_empty())
        .ok_or("should have a platform specified")?;
    if !is_semver(str_at(m, "/spec/version")) {
        return Err(format!("failed to parse plugin version {:?}", str_at(m, "/spec/version")));
    }
    for (i, p) in platforms.iter().enumerate() {
        validate_platform(p).map_err(|e| format!("platform {i} is badly constructed: {e}"))?;
        if !KREW_PLATFORMS.iter().any(|(os, arch)| selects(&p["selector"], os, arch)) {
            return Err(format!("spec.platform[{i}]'s selector doesn't match any supported platforms"));
        }
        // This project's rule: kubectl runs `kubectl-consolidation.exe` on Windows only.
        let windows = KREW_PLATFORMS.iter().any(|(os, arch)| *os == "windows" && selects(&p["selector"], os, arch));
        let exe = Path::new(str_at(p, "/bin")).extension().is_some_and(|e| e.eq_ignore_ascii_case("exe"));
        if exe != windows {
            return Err(format!("spec.platform[{i}]: bin {:?} must end in .exe exactly on windows", str_at(p, "/bin")));
        }
    }
    for (os, arch) in KREW_PLATFORMS {
        let matching: Vec<usize> =
            platforms.iter().enumerate().filter(|(_, p)| selects(&p["selector"], os, arch)).map(|(i, _)| i).collect();
        if matching.len() > 1 {
            return Err(format!("multiple spec.platforms (at indexes {matching:?}) select os={os}/arch={arch}"));
        }
    }
    Ok(())
}

/// The platform krew picks for `os`/`arch`.
fn platform_for<'a>(m: &'a Value, os: &str, arch: &str) -> Option<&'a Value> {
    m.pointer("/spec/platforms")?.as_array()?.iter().find(|p| selects(&p["selector"], os, arch))
}

/// What `kubectl krew install --manifest --archive` does with the archive: check its sha256,
/// extract it, apply `files` (move.go: a file path, else a glob; `to: .` keeps the name), find
/// `bin` in the install directory, then validate-krew-manifest's LICENSE check.
fn install(platform: &Value, archive: &Path, into: &Path) -> Result<PathBuf, String> {
    let bytes = std::fs::read(archive).map_err(|e| e.to_string())?;
    let sha = format!("{:x}", Sha256::digest(&bytes));
    if sha != str_at(platform, "/sha256") {
        return Err(format!("checksum does not match: archive {sha}, manifest {}", str_at(platform, "/sha256")));
    }
    let extracted = into.join("extracted");
    let installed = into.join("installed");
    std::fs::create_dir_all(&extracted)
        .and_then(|()| std::fs::create_dir_all(&installed))
        .map_err(|e| e.to_string())?;
    let status =
        Command::new("tar").arg("-xzf").arg(archive).arg("-C").arg(&extracted).status().map_err(|e| e.to_string())?;
    if !status.success() {
        return Err("the archive does not extract".into());
    }
    let default = vec![serde_json::json!({"from": "*", "to": "."})];
    let files = platform.get("files").and_then(Value::as_array).unwrap_or(&default);
    for op in files {
        let (from, to) = (str_at(op, "/from"), str_at(op, "/to"));
        if from.contains("..") || to.contains("..") {
            return Err(format!("move target {from} -> {to} is out of bounds"));
        }
        let direct = extracted.join(from);
        let sources: Vec<PathBuf> = if direct.exists() {
            vec![direct]
        } else if from == "*" {
            std::fs::read_dir(&extracted).map_err(|e| e.to_string())?.filter_map(|e| e.ok().map(|e| e.path())).collect()
        } else {
            return Err(format!("no file {from:?} in the archive"));
        };
        for source in sources {
            let name = source.file_name().unwrap_or_default();
            let target = if to == "." { installed.join(name) } else { installed.join(to) };
            std::fs::rename(&source, &target).map_err(|e| e.to_string())?;
        }
    }
    let bin = installed.join(str_at(platform, "/bin"));
    if !bin.is_file() {
        return Err(format!(
            "can't create symbolic link, source binary ({}) cannot be found in extracted archive",
            bin.display()
        ));
    }
    let names: Vec<String> = std::fs::read_dir(&installed)
        .map_err(|e| e.to_string())?
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    if !names.iter().any(|n| LICENSE_FILES.contains(&n.to_ascii_lowercase().as_str())) {
        return Err(format!(
            "LICENSE (or alike) file is not extracted from the archive: could not find license file among {names:?}"
        ));
    }
    Ok(bin)
}

// ---- The project's manifest ----

fn have(program: &str) -> bool {
    let found = std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()).any(|d| d.join(program).is_file());
    if !found {
        println!("skipped: {program} is not on PATH");
    }
    found
}

fn host() -> (&'static str, &'static str) {
    let os = match std::env::consts::OS {
        "macos" => "darwin",
        other => other,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        other => other,
    };
    (os, arch)
}

fn cargo_field(key: &str) -> String {
    let text = std::fs::read_to_string(root().join("Cargo.toml")).expect("Cargo.toml");
    let prefix = format!("{key} = \"");
    text.lines().find_map(|l| l.strip_prefix(&prefix).and_then(|r| r.strip_suffix('"'))).map(str::to_owned).expect(key)
}

/// `scripts/krew-local.sh` with the test's binary: (archive, manifest path, manifest).
fn krew_local(dist: &Path) -> (PathBuf, PathBuf, Value) {
    let output = Command::new("bash")
        .arg(root().join("scripts/krew-local.sh"))
        .env("KREW_LOCAL_BIN", BIN)
        .env("DIST", dist)
        .output()
        .expect("runs krew-local.sh");
    assert!(output.status.success(), "krew-local.sh: {}", String::from_utf8_lossy(&output.stderr));
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut lines = stdout.lines();
    let archive = PathBuf::from(lines.next().expect("the archive's path"));
    let path = PathBuf::from(lines.next().expect("the manifest's path"));
    let manifest = serde_saphyr::from_str(&std::fs::read_to_string(&path).expect("reads the manifest")).expect("YAML");
    (archive, path, manifest)
}

#[test]
fn the_local_manifest_passes_krews_rules_and_installs_the_archive() {
    if !(have("bash") && have("python3") && have("tar")) {
        return;
    }
    let dist = tempfile::tempdir().expect("temp dir");
    let (archive, path, manifest) = krew_local(dist.path());
    let file_name = path.file_name().and_then(|n| n.to_str()).expect("file name");
    assert_eq!(file_name, "consolidation.yaml", "krew-index names the plugin after its file");
    validate_manifest(file_name, &manifest).expect("krew's rules");

    let (os, arch) = host();
    assert_eq!(
        archive.file_name().and_then(|n| n.to_str()),
        Some(format!("kubectl-consolidation-{os}-{arch}.tar.gz").as_str())
    );
    let platform = platform_for(&manifest, os, arch).expect("a platform for the host");
    let version = format!("v{}", env!("CARGO_PKG_VERSION"));
    assert_eq!(str_at(&manifest, "/spec/version"), version);
    let homepage = cargo_field("repository");
    assert_eq!(str_at(&manifest, "/spec/homepage"), homepage, "the homepage is Cargo.toml's repository");
    assert_eq!(
        str_at(platform, "/uri"),
        format!("{homepage}/releases/download/{version}/kubectl-consolidation-{os}-{arch}.tar.gz"),
        "the release pipeline uploads the archive under this name"
    );

    let into = tempfile::tempdir().expect("temp dir");
    let bin = install(platform, &archive, into.path()).expect("installs as krew would");
    let output = Command::new(&bin).arg("--version").output().expect("the installed binary runs");
    assert!(String::from_utf8_lossy(&output.stdout).contains(env!("CARGO_PKG_VERSION")));
}

/// The template krew-release-bot renders covers every shipped platform; rendered with an
/// archive per platform, it passes krew's rules.
#[test]
fn the_template_renders_every_shipped_platform() {
    if !have("python3") {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let archives: Vec<PathBuf> = SHIPPED
        .iter()
        .map(|(os, arch)| {
            let ext = if *os == "windows" { "zip" } else { "tar.gz" };
            let path = dir.path().join(format!("kubectl-consolidation-{os}-{arch}.{ext}"));
            std::fs::write(&path, format!("{os}/{arch}")).expect("writes");
            path
        })
        .collect();
    let output = Command::new("python3")
        .arg(root().join("scripts/render-krew-manifest.py"))
        .arg("--template")
        .arg(root().join("krew-manifest.yaml"))
        .args(["--tag", "v1.2.3"])
        .args(&archives)
        .output()
        .expect("runs the renderer");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let manifest: Value = serde_saphyr::from_str(&String::from_utf8_lossy(&output.stdout)).expect("YAML");
    validate_manifest("consolidation.yaml", &manifest).expect("krew's rules");
    let platforms = manifest.pointer("/spec/platforms").and_then(Value::as_array).expect("platforms");
    assert_eq!(platforms.len(), SHIPPED.len());
    for ((os, arch), archive) in SHIPPED.iter().zip(&archives) {
        let p = platform_for(&manifest, os, arch).unwrap_or_else(|| panic!("no platform for {os}/{arch}"));
        let sha = format!("{:x}", Sha256::digest(std::fs::read(archive).expect("reads")));
        assert_eq!(str_at(p, "/sha256"), sha, "{os}/{arch}");
        let files: Vec<&str> = p["files"].as_array().expect("files").iter().map(|f| str_at(f, "/from")).collect();
        assert!(files.contains(&"LICENSE") && files.contains(&str_at(p, "/bin")), "{os}/{arch}: {files:?}");
        assert!(str_at(p, "/uri").ends_with(archive.file_name().and_then(|n| n.to_str()).unwrap_or_default()));
    }
}

/// Each rule rejects the manifest that breaks it (so the checks above can fail).
#[test]
fn the_rules_reject_what_krew_rejects() {
    let good: Value = serde_json::json!({
        "apiVersion": API_VERSION, "kind": "Plugin", "metadata": {"name": "consolidation"},
        "spec": {"version": "v0.1.0", "shortDescription": "short", "platforms": [
            {"selector": {"matchLabels": {"os": "linux", "arch": "amd64"}}, "uri": "https://x/a.tar.gz",
             "sha256": "a".repeat(64), "bin": "kubectl-consolidation",
             "files": [{"from": "kubectl-consolidation", "to": "."}, {"from": "LICENSE", "to": "."}]}]}});
    validate_manifest("consolidation.yaml", &good).expect("the good manifest");
    let broken = |pointer: &str, value: Value| {
        let mut m = good.clone();
        *m.pointer_mut(pointer).expect(pointer) = value;
        validate_manifest("consolidation.yaml", &m)
    };
    assert!(validate_manifest("krew-manifest.yaml", &good).is_err(), "name from the file name");
    assert!(validate_manifest("consolidation.yml", &good).is_err(), ".yaml only");
    assert!(broken("/spec/version", "0.1.0".into()).is_err(), "a v prefix");
    assert!(broken("/spec/version", "v0.1".into()).is_err(), "three numbers");
    assert!(broken("/spec/version", "v01.0.0".into()).is_err(), "no leading zero");
    assert!(is_semver("v1.2.3-rc.1+build.5"));
    assert!(broken("/spec/shortDescription", "two\nlines".into()).is_err());
    assert!(broken("/spec/platforms", serde_json::json!([])).is_err());
    assert!(broken("/spec/platforms/0/sha256", "0".repeat(63).into()).is_err(), "64 hex digits");
    assert!(broken("/spec/platforms/0/sha256", "A".repeat(64).into()).is_err(), "lower-case hex");
    assert!(broken("/spec/platforms/0/bin", "".into()).is_err());
    assert!(broken("/spec/platforms/0/bin", "kubectl-consolidation.exe".into()).is_err(), ".exe only on windows");
    assert!(broken("/spec/platforms/0/files", serde_json::json!([])).is_err());
    assert!(broken("/spec/platforms/0/selector", serde_json::json!({"matchLabels": {}})).is_err());
    assert!(
        broken("/spec/platforms/0/selector", serde_json::json!({"matchLabels": {"os": "linux", "cpu": "x"}})).is_err()
    );
    assert!(
        broken("/spec/platforms/0/selector", serde_json::json!({"matchLabels": {"os": "plan9"}})).is_err(),
        "unsupported"
    );
    let mut overlapping = good.clone();
    let mut second = good["spec"]["platforms"][0].clone();
    second["selector"] =
        serde_json::json!({"matchExpressions": [{"key": "os", "operator": "In", "values": ["linux"]}]});
    overlapping["spec"]["platforms"].as_array_mut().expect("platforms").push(second);
    assert!(validate_manifest("consolidation.yaml", &overlapping).is_err(), "two platforms select linux/amd64");

    if !have("tar") {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(dir.path().join("kubectl-consolidation"), "bin").expect("writes");
    let archive = dir.path().join("a.tar.gz");
    assert!(Command::new("tar")
        .arg("-czf")
        .arg(&archive)
        .arg("-C")
        .arg(dir.path())
        .arg("kubectl-consolidation")
        .status()
        .expect("tar")
        .success());
    let mut platform = good["spec"]["platforms"][0].clone();
    platform["sha256"] = format!("{:x}", Sha256::digest(std::fs::read(&archive).expect("reads"))).into();
    let into = tempfile::tempdir().expect("temp dir");
    let error = install(&platform, &archive, into.path()).expect_err("no LICENSE in the archive");
    assert!(error.contains("no file \"LICENSE\""), "{error}");
    platform["files"] = serde_json::json!([{"from": "kubectl-consolidation", "to": "."}]);
    let into = tempfile::tempdir().expect("temp dir");
    let error = install(&platform, &archive, into.path()).expect_err("no LICENSE installed");
    assert!(error.contains("LICENSE (or alike)"), "{error}");
    platform["sha256"] = "0".repeat(64).into();
    assert!(install(&platform, &archive, tempfile::tempdir().expect("dir").path())
        .expect_err("sha")
        .contains("checksum"));
}

/// krew-release-bot reads `.krew.yaml` unless its `krew_template_file` input names another file
/// (rajatjindal/krew-release-bot `action.yml`): the release workflow must name the template
/// this repository keeps, and the old name must be gone so nothing renders a stale copy.
#[test]
fn the_release_workflow_hands_the_bot_the_template() {
    let template = "krew-manifest.yaml";
    assert!(root().join(template).is_file(), "{template} at the top level");
    assert!(!root().join(".krew.yaml").exists(), ".krew.yaml is gone (renamed to {template})");
    let workflow = std::fs::read_to_string(root().join(".github/workflows/release.yml")).expect("release.yml");
    let workflow: Value = serde_saphyr::from_str(&workflow).expect("release.yml is YAML");
    let steps = workflow.pointer("/jobs/krew/steps").and_then(Value::as_array).expect("a krew job with steps");
    let bot = steps
        .iter()
        .find(|s| s["uses"].as_str().is_some_and(|u| u.starts_with("rajatjindal/krew-release-bot@")))
        .expect("the krew-release-bot step");
    assert_eq!(bot.pointer("/with/krew_template_file").and_then(Value::as_str), Some(template));
    let script = std::fs::read_to_string(root().join("scripts/krew-local.sh")).expect("krew-local.sh");
    assert!(script.contains(&format!("--template \"$root/{template}\"")), "krew-local.sh renders {template}");
}
