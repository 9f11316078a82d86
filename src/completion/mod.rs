//! Shell completion, one engine for every shell: cobra's `__complete` protocol.
//!
//! kubectl (1.26+) completes `kubectl consolidation …` by running `kubectl_complete-consolidation`
//! with the words typed so far (the last one, possibly empty, is under the cursor) and reading
//! cobra's answer: one candidate per line (`value\tdescription`), then `:<directive>`. The binary
//! answers that protocol under that name, or as `kubectl-consolidation __complete …`, which the
//! bash, zsh and fish scripts of [`scripts`] call, so every shell and kubectl see the same
//! candidates. (clap_complete's dynamic engine speaks its own protocol, not cobra's, so it
//! cannot serve kubectl; one engine for both is this module.)
//!
//! Object names after `KIND/` come from `--snapshot FILE` or `--demo` when given, else from the
//! live cluster, bounded by [`names::LIVE_DEADLINE`] and silent on failure.

mod line;
mod names;
pub(crate) mod scripts;

use clap::{Arg, Command, CommandFactory, ValueEnum};

use self::line::{flags_of, parse, repeatable, Cursor, Line};
use self::names::Names;
use crate::cli::{Cli, Shell};
use crate::object_ref::Kind;
use crate::render::Format;

/// cobra's ShellCompDirective bits (spf13/cobra completions.go).
pub(crate) mod directive {
    /// Let the shell complete files if there are no candidates.
    pub(crate) const DEFAULT: u8 = 0;
    /// Don't add a space after the candidate.
    pub(crate) const NO_SPACE: u8 = 2;
    /// Don't fall back to file completion.
    pub(crate) const NO_FILE_COMP: u8 = 4;
    /// Complete files whose extension is one of the candidates.
    pub(crate) const FILTER_FILE_EXT: u8 = 8;
}

/// Candidates and cobra's directive for them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Completion {
    /// `value` or `value\tdescription`.
    pub candidates: Vec<String>,
    pub directive: u8,
}

impl Completion {
    fn none() -> Self {
        Completion { candidates: Vec::new(), directive: directive::NO_FILE_COMP }
    }

    fn files() -> Self {
        Completion { candidates: Vec::new(), directive: directive::DEFAULT }
    }

    fn files_with_extensions(extensions: &[&str]) -> Self {
        Completion {
            candidates: extensions.iter().map(|e| (*e).to_owned()).collect(),
            directive: directive::FILTER_FILE_EXT,
        }
    }

    /// The candidates that start with `current`, each with `prefix` (`--flag=`) in front.
    fn matching(values: impl IntoIterator<Item = String>, current: &str, prefix: &str, directive: u8) -> Self {
        let candidates = values
            .into_iter()
            .filter(|v| v.split('\t').next().is_some_and(|value| value.starts_with(current)))
            .map(|v| format!("{prefix}{v}"))
            .collect();
        Completion { candidates, directive }
    }

    /// cobra's wire format.
    pub(crate) fn to_cobra(&self) -> String {
        let mut text = String::new();
        for candidate in &self.candidates {
            text.push_str(candidate);
            text.push('\n');
        }
        text.push_str(&format!(":{}\n", self.directive));
        text
    }
}

/// The name kubectl runs to complete this plugin's arguments.
pub(crate) const KUBECTL_COMPLETE_NAME: &str = "kubectl_complete-consolidation";
/// The hidden first argument the shell scripts pass.
pub(crate) const COMPLETE_ARG: &str = "__complete";

/// The words to complete, when the process was started for completion: under kubectl's
/// name for it (`kubectl_complete-consolidation WORDS…`) or as `kubectl-consolidation
/// __complete WORDS…` (the shell scripts). `None` for a normal run.
pub(crate) fn request(mut args: impl Iterator<Item = std::ffi::OsString>) -> Option<Vec<String>> {
    let argv0 = args.next()?;
    let invoked_as = std::path::Path::new(&argv0).file_stem().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
    let mut rest: Vec<String> = args.map(|a| a.to_string_lossy().into_owned()).collect();
    if invoked_as == KUBECTL_COMPLETE_NAME {
        return Some(rest);
    }
    if rest.first().is_some_and(|a| a == COMPLETE_ARG) {
        rest.remove(0);
        return Some(rest);
    }
    None
}

/// Completion for `kubectl consolidation <words…>`, in cobra's format.
pub(crate) fn cobra(words: &[String]) -> String {
    complete(words).to_cobra()
}

/// Completion for `kubectl consolidation <words…>`.
pub(crate) fn complete(words: &[String]) -> Completion {
    let mut root = Cli::command();
    root.build();
    let line = parse(&root, words);
    let subcommand = line.subcommand.as_deref().and_then(|name| root.find_subcommand(name));
    let mut names = Names::new(&line);
    match &line.cursor {
        Cursor::Subcommand => Completion::matching(
            root.get_subcommands().filter(|s| !s.is_hide_set()).map(|s| described(s.get_name(), s.get_about())),
            &line.current,
            "",
            directive::NO_FILE_COMP,
        ),
        Cursor::Flag => flag_names(&root, subcommand, &line),
        Cursor::FlagValue { id, prefix } => {
            let arg = flags_of(&root, subcommand).into_iter().find(|a| a.get_id() == id.as_str());
            arg.map_or_else(Completion::none, |arg| flag_value(arg, &line, prefix, &mut names))
        }
        Cursor::Positional(index) => positional(subcommand.map(Command::get_name), *index, &line, &mut names),
    }
}

fn described(value: &str, about: Option<&clap::builder::StyledStr>) -> String {
    match about.map(ToString::to_string) {
        Some(about) if !about.is_empty() => format!("{value}\t{}", about.lines().next().unwrap_or_default()),
        _ => value.to_owned(),
    }
}

fn flag_names(root: &Command, subcommand: Option<&Command>, line: &Line) -> Completion {
    let mut values = Vec::new();
    for arg in flags_of(root, subcommand) {
        if arg.is_hide_set() || (line.has(arg.get_id().as_str()) && !repeatable(arg)) {
            continue;
        }
        if let Some(long) = arg.get_long() {
            values.push(described(&format!("--{long}"), arg.get_help()));
        }
        if let (Some(short), false) = (arg.get_short(), line.current.starts_with("--")) {
            values.push(described(&format!("-{short}"), arg.get_help()));
        }
    }
    Completion::matching(values, &line.current, "", directive::NO_FILE_COMP)
}

/// What `--set` accepts (see `whatif`): keys to complete, then the value is typed.
const SET_KEYS: [&str; 8] = [
    "consolidationPolicy=",
    "consolidateAfter=",
    "budgets=",
    "pod-deletion-cost=",
    "nodepool/",
    "pdb/",
    "deployment/",
    "statefulset/",
];
/// The fields `pdb/NS/NAME.` sets (whatif.rs).
const SET_PDB_KEYS: [&str; 2] = ["minAvailable=", "maxUnavailable="];
/// The keys `nodepool/NAME.` may prefix.
const SET_POOL_KEYS: [&str; 3] = ["consolidationPolicy=", "consolidateAfter=", "budgets="];
const SET_POLICIES: [&str; 3] = ["WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"];
/// What a snapshot file may be called.
const SNAPSHOT_EXTENSIONS: [&str; 3] = ["yaml", "yml", "json"];

fn flag_value(arg: &Arg, line: &Line, prefix: &str, names: &mut Names) -> Completion {
    let current = line.current.as_str();
    let possible: Vec<String> = arg
        .get_possible_values()
        .iter()
        .filter(|v| !v.is_hide_set())
        .map(|v| described(v.get_name(), v.get_help()))
        .collect();
    if !possible.is_empty() {
        return Completion::matching(possible, current, prefix, directive::NO_FILE_COMP);
    }
    match arg.get_id().as_str() {
        "snapshot" => Completion::files_with_extensions(&SNAPSHOT_EXTENSIONS),
        "prices" | "kubeconfig" => Completion::files(),
        "output" => {
            let mut formats: Vec<String> = Format::value_variants()
                .iter()
                .filter_map(ValueEnum::to_possible_value)
                .map(|v| v.get_name().to_owned())
                .collect();
            formats.push("name".to_owned());
            let mut matched = Completion::matching(formats, current, prefix, directive::NO_FILE_COMP);
            // `jsonpath=` is followed by the template (the user's): no space after it, and
            // nothing to offer once it is typed.
            if current.starts_with("jsonpath=") {
                return Completion::none();
            }
            if "jsonpath=".starts_with(current) {
                matched.candidates.push(format!("{prefix}jsonpath="));
                if matched.candidates.len() == 1 {
                    matched.directive |= directive::NO_SPACE;
                }
            }
            // `snapshot -o FILE` writes a file; its name is the user's.
            match line.subcommand.as_deref() {
                Some("snapshot") if matched.candidates.is_empty() => {
                    Completion::files_with_extensions(&SNAPSHOT_EXTENSIONS)
                }
                _ => matched,
            }
        }
        "namespace" => Completion::matching(names.namespaces(), current, prefix, directive::NO_FILE_COMP),
        "context" => Completion::matching(names.kubeconfig().contexts, current, prefix, directive::NO_FILE_COMP),
        "cluster" => Completion::matching(names.kubeconfig().clusters, current, prefix, directive::NO_FILE_COMP),
        "user" => Completion::matching(names.kubeconfig().users, current, prefix, directive::NO_FILE_COMP),
        "overrides" => set_value(current, prefix, names),
        _ => Completion::none(),
    }
}

/// `--set`: a key (a pool's own keys after `nodepool/NAME.`), then the policy's values.
fn set_value(current: &str, prefix: &str, names: &mut Names) -> Completion {
    let no_space = directive::NO_SPACE | directive::NO_FILE_COMP;
    if let Some((key, _)) = current.split_once('=') {
        if key == "consolidationPolicy" || key.ends_with(".consolidationPolicy") {
            let full = SET_POLICIES.iter().map(|p| format!("{key}={p}"));
            return Completion::matching(full, current, prefix, directive::NO_FILE_COMP);
        }
        return Completion::none();
    }
    if let Some(after) = current.strip_prefix("nodepool/") {
        let full: Vec<String> = match after.split_once('.') {
            Some((pool, _)) => SET_POOL_KEYS.iter().map(|k| format!("nodepool/{pool}.{k}")).collect(),
            None => names.of(Kind::NodePool).into_iter().map(|p| format!("nodepool/{p}.")).collect(),
        };
        return Completion::matching(full, current, prefix, no_space);
    }
    if let Some(after) = current.strip_prefix("pdb/") {
        let full: Vec<String> = match after.split_once('.') {
            Some((pdb, _)) => SET_PDB_KEYS.iter().map(|k| format!("pdb/{pdb}.{k}")).collect(),
            None => names.pdbs().into_iter().map(|p| format!("pdb/{p}.")).collect(),
        };
        return Completion::matching(full, current, prefix, no_space);
    }
    Completion::matching(SET_KEYS.iter().map(|k| (*k).to_owned()), current, prefix, no_space)
}

/// The kinds each subcommand's target may name.
fn target_kinds(subcommand: &str) -> &'static [Kind] {
    match subcommand {
        "explain" => &[Kind::Node, Kind::NodeClaim, Kind::Pod],
        "score" | "budgets" | "instance-types" => &[Kind::NodePool],
        "doctor" => &[Kind::Node],
        _ => &[],
    }
}

fn positional(subcommand: Option<&str>, index: usize, line: &Line, names: &mut Names) -> Completion {
    let current = line.current.as_str();
    match (subcommand, index) {
        (Some("completion"), 0) => Completion::matching(
            Shell::value_variants().iter().filter_map(ValueEnum::to_possible_value).map(|v| v.get_name().to_owned()),
            current,
            "",
            directive::NO_FILE_COMP,
        ),
        (Some(sub @ ("explain" | "score" | "budgets" | "doctor" | "instance-types")), 0) => {
            target(target_kinds(sub), current, names)
        }
        // Nothing after a complete target, and nothing for subcommands without positionals.
        _ => Completion::none(),
    }
}

/// `KIND/` (no space after, so the name can follow), then `KIND/NAME` for the kind typed.
/// A bare word that no kind starts with completes node names (a bare name means a node).
fn target(kinds: &[Kind], current: &str, names: &mut Names) -> Completion {
    if let Some((typed, _)) = current.split_once('/') {
        let Some(kind) = typed.parse::<Kind>().ok().filter(|k| kinds.contains(k)) else {
            return Completion::none();
        };
        let full = names.of(kind).into_iter().map(|n| format!("{typed}/{n}"));
        return Completion::matching(full, current, "", directive::NO_FILE_COMP);
    }
    let prefixes = Completion::matching(
        kinds.iter().map(|k| format!("{k}/")),
        current,
        "",
        directive::NO_SPACE | directive::NO_FILE_COMP,
    );
    if !prefixes.candidates.is_empty() || current.is_empty() || !kinds.contains(&Kind::Node) {
        return prefixes;
    }
    Completion::matching(names.of(Kind::Node), current, "", directive::NO_FILE_COMP)
}

#[cfg(test)]
mod tests;
