//! Keeps data flowing one way (docs/STYLE.md convention 1): core modules never mention an edge.
//! The check is crude on purpose: a banned word anywhere in a file (code, test or comment) of
//! the module fails the test. Known exceptions live in [`ALLOWED`], each with its reason, and an
//! exception that no longer matches anything fails too, so the list cannot rot.
//!
//! Second rule: no import circle between the library's files ([`imports`] reads which file takes
//! which name from which). A module's own submodules may use its items through `super::`; any
//! other arrow counts, so two files never need each other.

mod imports;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::support::root;

/// What the pure core (the engine, the PDB judgement, the forecast) must not mention: no edge,
/// no clock, and no output format (documents and their serde live in report/). The edges come
/// first: [`EDGES`] is that part alone.
const PURE: &[&str] = &[
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
    "SystemTime",
    "Instant",
    "Serialize",
    "serde::",
];

/// [`PURE`]'s edges and "now", without the clock types and serde (which `src/manifest` reads
/// documents with).
const EDGES: &[&str] = PURE.split_at(11).0;

/// Each core module and the words it must not contain.
const RULES: &[(&str, &[&str])] = &[
    ("src/engine", PURE),
    ("src/audit", PURE),
    ("src/forecast", PURE),
    ("src/prescription", PURE),
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
    ("src/manifest", EDGES),
    // The wiring parses, reads, prepares, dispatches and writes: a decision it reached for
    // would be a command's flow living outside `commands/`.
    ("src/app", &["crate::engine", "crate::audit", "crate::forecast", "crate::unlock", "crate::whatif::apply"]),
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

/// `app.rs` stays wiring (docs/ARCHITECTURE.md): a new command is a file in `commands/`, not an
/// arm here; past this size the file is growing a command's flow again.
#[test]
fn the_edges_are_pures_first_words() {
    assert_eq!(EDGES.last(), Some(&"Timestamp::now"), "PURE was reordered: EDGES must end at its edges");
}

#[test]
fn the_wiring_stays_small() {
    const MAX_LINES: usize = 220;
    let text = std::fs::read_to_string(root().join("src/app.rs")).expect("src/app.rs is readable");
    let lines = text.lines().count();
    assert!(
        lines <= MAX_LINES,
        "src/app.rs has {lines} lines (at most {MAX_LINES}): move the new logic to commands/ or app/"
    );
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

/// The `.rs` files of a module: its folder's, and the module's own file beside it
/// (`src/app` is `src/app.rs` and `src/app/`).
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = module_file(dir);
    if dir.is_dir() {
        out.extend(files_under(dir));
    }
    out.sort();
    out
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            out.extend(files_under(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}

fn module_file(dir: &Path) -> Vec<PathBuf> {
    let file = dir.with_extension("rs");
    if file.is_file() {
        vec![file]
    } else {
        Vec::new()
    }
}

#[test]
fn no_import_circle_between_files() {
    let edges = imports::edges("src/lib.rs", &|path| std::fs::read_to_string(root().join(path)).ok());
    assert!(edges.len() > 100, "only {} import arrows read from src/: the reader is broken", edges.len());
    let circles: Vec<String> = imports::circles(&edges).iter().map(|c| imports::describe(c, &edges)).collect();
    assert!(
        circles.is_empty(),
        "files that import each other in a circle: move what both need to a file of its own \
         (CONTRIBUTING.md, \"Imports go one way\"):\n{}",
        circles.join("\n")
    );
}

/// A tree of four files in memory: `a.rs` takes a name from `b.rs`, which takes one back
/// through the re-export in `lib.rs`; `c.rs` uses its parent `lib.rs` only through `super::`.
fn circular_tree(path: &str) -> Option<String> {
    let text = match path {
        "src/lib.rs" => "mod a;\nmod b;\nmod c;\npub use a::Shared;\npub struct Root;\n",
        "src/a.rs" => "use crate::b::helper;\n// use crate::c::Nothing; a comment names no file\npub struct Shared;\n",
        "src/b.rs" => "pub fn helper() -> crate::Shared { let _ = \"crate::c::Gone\"; crate::Shared }\n",
        "src/c.rs" => "use super::Root;\n#[cfg(test)]\nmod tests { use crate::a::Shared; }\n",
        _ => return None,
    };
    Some(text.to_owned())
}

#[test]
fn the_circle_check_follows_re_exports_to_the_defining_file() {
    let edges = imports::edges("src/lib.rs", &circular_tree);
    let arrows: BTreeSet<(&str, &str)> = edges.keys().map(|(from, to)| (from.as_str(), to.as_str())).collect();
    // lib.rs re-exports a.rs; b.rs names `crate::Shared`, defined in a.rs; c.rs's `super::Root`
    // is its parent's, and its test module, the comment and the string count for nothing.
    let expected: BTreeSet<(&str, &str)> =
        [("src/a.rs", "src/b.rs"), ("src/b.rs", "src/a.rs"), ("src/lib.rs", "src/a.rs")].into();
    assert_eq!(arrows, expected);
    assert_eq!(imports::circles(&edges), [vec!["src/a.rs".to_owned(), "src/b.rs".to_owned()]]);
    let described = imports::describe(&imports::circles(&edges)[0], &edges);
    assert!(described.contains("src/a.rs -> src/b.rs: helper"), "{described}");
    assert!(described.contains("src/b.rs -> src/a.rs: Shared"), "{described}");
}
