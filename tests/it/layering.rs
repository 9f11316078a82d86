//! Keeps data flowing one way (docs/STYLE.md convention 1): core modules never mention an edge.
//! The check is crude on purpose: a banned word anywhere in a file (code, test or comment) of
//! the module fails the test. Known exceptions live in [`ALLOWED`], each with its reason, and an
//! exception that no longer matches anything fails too, so the list cannot rot.

use std::path::{Path, PathBuf};

use crate::support::root;

/// What the pure core (the engine, the PDB judgement, the forecast) must not mention: no edge,
/// no clock, and no output format (documents and their serde live in report/).
const PURE: &[&str] = &[
    "kube::",
    "tokio",
    "clap",
    "std::fs",
    "std::env",
    "SystemTime",
    "Instant",
    "crate::source",
    "crate::report",
    "crate::render",
    "crate::app",
    "crate::cli",
    "Timestamp::now",
    "Serialize",
    "serde::",
];

/// Each core module and the words it must not contain.
const RULES: &[(&str, &[&str])] = &[
    ("src/engine", PURE),
    ("src/audit", PURE),
    ("src/forecast", PURE),
    (
        "src/report",
        &[
            "kube::",
            "tokio",
            "clap",
            "std::fs",
            "crate::source",
            "crate::render",
            "crate::app",
            // render/ may import only report/: a re-export would hand it engine types.
            "pub use crate::engine",
            "pub use crate::audit",
            "pub use crate::snapshot",
        ],
    ),
    (
        "src/render",
        &["kube::", "crate::engine", "crate::audit", "crate::snapshot", "crate::source", "crate::app", "std::fs"],
    ),
    ("src/snapshot", &["kube::", "tokio", "crate::engine", "crate::render", "crate::source", "crate::app", "std::fs"]),
    // A command takes the prepared snapshot and returns its report: no I/O, no rendering.
    (
        "src/commands",
        &["kube::", "tokio", "std::fs", "std::io", "crate::source", "crate::render::render", "Timestamp::now"],
    ),
    // A manifest is applied to the snapshot without reading a file or printing: the edge
    // (`source/manifests.rs`) reads and locates, `commands/diff.rs` replays.
    (
        "src/manifest",
        &[
            "kube::",
            "tokio",
            "clap",
            "std::fs",
            "std::env",
            "crate::source",
            "crate::report",
            "crate::render",
            "crate::app",
            "crate::cli",
            "Timestamp::now",
        ],
    ),
    // The edge in reads the world into a Snapshot; it never decides or prints.
    ("src/source", &["crate::engine", "crate::report", "crate::render", "crate::app"]),
];

/// Known violations: (file, banned word, why it is tolerated for now).
const ALLOWED: &[(&str, &str, &str)] = &[];

#[test]
fn core_modules_do_not_mention_edges() {
    let mut found = Vec::new();
    for (dir, banned) in RULES {
        let files = rust_files(&root().join(dir));
        assert!(!files.is_empty(), "{dir} has no .rs file: the rule for it checks nothing");
        for file in files {
            let relative = relative(&file);
            let text = std::fs::read_to_string(&file).expect("source file is readable");
            for (line, word) in violations(&text, banned) {
                if !is_allowed(&relative, word) {
                    found.push(format!("{relative}:{line}: mentions `{word}`, which {dir} must not"));
                }
            }
        }
    }
    assert!(found.is_empty(), "core modules reach for an edge (docs/STYLE.md convention 1):\n{}", found.join("\n"));
}

#[test]
fn every_allowed_violation_still_exists() {
    let stale: Vec<String> = ALLOWED
        .iter()
        .filter(|(file, word, _)| {
            let text = std::fs::read_to_string(root().join(file)).unwrap_or_default();
            violations(&text, &[word]).is_empty()
        })
        .map(|(file, word, _)| {
            format!("{file} no longer mentions `{word}`: remove it from ALLOWED in tests/layering.rs")
        })
        .collect();
    assert!(stale.is_empty(), "{}", stale.join("\n"));
}

#[test]
fn the_checker_flags_a_violating_file() {
    let text = "//! The engine.\nuse crate::snapshot::Snapshot;\n\nfn now() { let _ = std::time::SystemTime::now(); }\nuse kube::Api;\n";
    let banned = RULES.iter().find(|(dir, _)| *dir == "src/engine").expect("engine rule").1;
    assert_eq!(violations(text, banned), [(4, "SystemTime"), (5, "kube::")]);
    assert_eq!(violations("use crate::snapshot::Snapshot;\n", banned), []);
    assert!(!is_allowed("src/engine/replay.rs", "crate::source"), "no file is excepted today");
    let audit = RULES.iter().find(|(dir, _)| *dir == "src/audit").expect("audit rule").1;
    let judged = "use crate::report::pdb_audit::PdbAudit;\nlet t = Timestamp::now();\n#[derive(Serialize)]\n";
    assert_eq!(violations(judged, audit), [(1, "crate::report"), (2, "Timestamp::now"), (3, "Serialize")]);
    let render = RULES.iter().find(|(dir, _)| *dir == "src/render").expect("render rule").1;
    let rendering = "use crate::audit::Severity;\nuse crate::report::pdb_audit::Severity;\n";
    assert_eq!(violations(rendering, render), [(1, "crate::audit")]);
}

/// Every (1-based line, banned word) found in `text`.
fn violations<'a>(text: &str, banned: &[&'a str]) -> Vec<(usize, &'a str)> {
    text.lines()
        .enumerate()
        .flat_map(|(i, line)| banned.iter().filter(|word| line.contains(**word)).map(move |word| (i + 1, *word)))
        .collect()
}

fn is_allowed(file: &str, word: &str) -> bool {
    ALLOWED.iter().any(|(f, w, _)| *f == file && *w == word)
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root()).unwrap_or(path).to_string_lossy().replace('\\', "/")
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            out.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}
