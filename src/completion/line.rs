//! Reads the words typed so far against the clap model: which subcommand, which flags (with
//! their values), which positionals, and what the word under the cursor is.

use clap::{Arg, ArgAction, Command};

/// What the word under the cursor is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Cursor {
    /// A subcommand name (none given yet).
    Subcommand,
    /// A flag name (the word starts with `-`).
    Flag,
    /// The value of the flag with this id; `prefix` is what must precede each candidate
    /// (`--sort-by=` when typed in one word, else empty).
    FlagValue { id: String, prefix: String },
    /// The positional argument at this index (0 = first) of the subcommand.
    Positional(usize),
}

/// The command line, as far as it is typed.
#[derive(Debug, Clone)]
pub(super) struct Line {
    /// The subcommand given, by name.
    pub subcommand: Option<String>,
    /// Flags given before the cursor: (arg id, value if it takes one).
    pub flags: Vec<(String, Option<String>)>,
    /// Positionals given before the cursor (after the subcommand).
    pub positionals: Vec<String>,
    /// The partial word under the cursor (after any `--flag=`).
    pub current: String,
    pub cursor: Cursor,
}

impl Line {
    /// The value given for the flag `id` (last one wins, as clap reads it).
    pub(super) fn value(&self, id: &str) -> Option<&str> {
        self.flags.iter().rev().find(|(i, _)| i == id).and_then(|(_, v)| v.as_deref())
    }

    /// Whether the flag `id` was given.
    pub(super) fn has(&self, id: &str) -> bool {
        self.flags.iter().any(|(i, _)| i == id)
    }
}

fn takes_value(arg: &Arg) -> bool {
    arg.get_action().takes_values()
}

/// The flags that apply: the root's (global) and the subcommand's own, each once (a built
/// command also lists the globals under each subcommand).
pub(super) fn flags_of<'a>(root: &'a Command, subcommand: Option<&'a Command>) -> Vec<&'a Arg> {
    let mut flags: Vec<&Arg> = Vec::new();
    for arg in root.get_arguments().chain(subcommand.into_iter().flat_map(Command::get_arguments)) {
        if !arg.is_positional() && flags.iter().all(|f| f.get_id() != arg.get_id()) {
            flags.push(arg);
        }
    }
    flags
}

/// Whether `arg` may be given again (so completion still offers it).
pub(super) fn repeatable(arg: &Arg) -> bool {
    matches!(arg.get_action(), ArgAction::Append | ArgAction::Count)
}

/// Splits `words` (the last one is under the cursor, possibly empty) against `root`.
pub(super) fn parse(root: &Command, words: &[String]) -> Line {
    let (current, before) = words.split_last().map_or(("", &[][..]), |(c, b)| (c.as_str(), b));
    let mut line = Line {
        subcommand: None,
        flags: Vec::new(),
        positionals: Vec::new(),
        current: String::new(),
        cursor: Cursor::Flag,
    };
    let mut pending: Option<String> = None;
    let mut only_positionals = false;
    for word in before {
        let subcommand = line.subcommand.as_deref().and_then(|name| root.find_subcommand(name));
        if let Some(id) = pending.take() {
            line.flags.push((id, Some(word.clone())));
            continue;
        }
        if only_positionals || !word.starts_with('-') || word == "-" {
            match (&line.subcommand, root.find_subcommand(word)) {
                (None, Some(found)) => line.subcommand = Some(found.get_name().to_owned()),
                _ => line.positionals.push(word.clone()),
            }
            continue;
        }
        if word == "--" {
            only_positionals = true;
            continue;
        }
        let flags = flags_of(root, subcommand);
        if let Some(long) = word.strip_prefix("--") {
            let (name, inline) = long.split_once('=').map_or((long, None), |(n, v)| (n, Some(v)));
            let Some(arg) = flags.iter().find(|a| a.get_long() == Some(name)) else { continue };
            let id = arg.get_id().to_string();
            match (takes_value(arg), inline) {
                (true, None) => pending = Some(id),
                (_, inline) => line.flags.push((id, inline.map(str::to_owned))),
            }
            continue;
        }
        // `-A`, `-nkube-system`, `-An`: shorts in one word; a value-taking one ends the run.
        let shorts: Vec<char> = word[1..].chars().collect();
        for (at, short) in shorts.iter().enumerate() {
            let Some(arg) = flags.iter().find(|a| a.get_short() == Some(*short)) else { break };
            let id = arg.get_id().to_string();
            if takes_value(arg) {
                let rest: String = shorts[at + 1..].iter().collect();
                let rest = rest.strip_prefix('=').map_or(rest.clone(), str::to_owned);
                if rest.is_empty() {
                    pending = Some(id);
                } else {
                    line.flags.push((id, Some(rest)));
                }
                break;
            }
            line.flags.push((id, None));
        }
    }
    current.clone_into(&mut line.current);
    line.cursor = if let Some(id) = pending {
        Cursor::FlagValue { id, prefix: String::new() }
    } else if !only_positionals && current.starts_with("--") && current.contains('=') {
        let (name, value) = current.split_once('=').unwrap_or_default();
        let subcommand = line.subcommand.as_deref().and_then(|name| root.find_subcommand(name));
        let flags = flags_of(root, subcommand);
        match flags.iter().find(|a| a.get_long() == Some(&name[2..]) && takes_value(a)) {
            Some(arg) => {
                let prefix = format!("{name}=");
                value.clone_into(&mut line.current);
                Cursor::FlagValue { id: arg.get_id().to_string(), prefix }
            }
            None => Cursor::Flag,
        }
    } else if !only_positionals && current.starts_with('-') && current != "-" {
        Cursor::Flag
    } else if line.subcommand.is_none() {
        Cursor::Subcommand
    } else {
        Cursor::Positional(line.positionals.len())
    };
    line
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;
    use crate::cli::Cli;

    fn line(words: &[&str]) -> Line {
        let words: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
        parse(&Cli::command(), &words)
    }

    #[test]
    fn the_first_bare_word_is_the_subcommand() {
        assert_eq!(line(&[""]).cursor, Cursor::Subcommand);
        let l = line(&["--demo", "explain", "no"]);
        assert_eq!(l.subcommand.as_deref(), Some("explain"));
        assert_eq!(l.cursor, Cursor::Positional(0));
        assert!(l.has("demo"));
    }

    #[test]
    fn a_value_taking_flag_consumes_the_next_word() {
        let l = line(&["--snapshot", "explain", "plan", ""]);
        assert_eq!(l.value("snapshot"), Some("explain"), "`explain` is the snapshot's path here");
        assert_eq!(l.subcommand.as_deref(), Some("plan"));
        assert_eq!(
            line(&["explain", "--snapshot", ""]).cursor,
            Cursor::FlagValue { id: "snapshot".into(), prefix: String::new() }
        );
    }

    #[test]
    fn inline_and_short_values() {
        let l = line(&["-nkube-system", "-A", "plan", "--sort-by=pr"]);
        assert_eq!(l.value("namespace"), Some("kube-system"));
        assert!(l.has("all_namespaces"));
        assert_eq!(l.cursor, Cursor::FlagValue { id: "sort_by".into(), prefix: "--sort-by=".into() });
        assert_eq!(l.current, "pr");
        assert_eq!(line(&["plan", "-o", "j"]).cursor, Cursor::FlagValue { id: "output".into(), prefix: String::new() });
    }

    #[test]
    fn positionals_are_counted_after_the_subcommand() {
        let l = line(&["explain", "node/x", ""]);
        assert_eq!(l.positionals, ["node/x"]);
        assert_eq!(l.cursor, Cursor::Positional(1));
        assert_eq!(line(&["plan", "-"]).cursor, Cursor::Positional(0), "a lone dash is a value, not a flag");
        assert_eq!(line(&["plan", "--"]).cursor, Cursor::Flag);
    }
}
