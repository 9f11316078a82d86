//! kubectl's plugin completion protocol (cobra's): when the binary runs as
//! `kubectl_complete-consolidation`, print candidates for the last word, one per line, then
//! `:<directive>`. Object names come from `--snapshot`/`--demo` when given (no cluster call).

use clap::CommandFactory;

use crate::cli::Cli;

/// Cobra's "don't fall back to file completion".
const NO_FILE_COMP: u8 = 4;

/// Completion candidates for `kubectl consolidation <words…>`, in cobra's format.
pub fn cobra(words: &[String]) -> String {
    let (current, before) = words.split_last().map_or(("", &[][..]), |(c, b)| (c.as_str(), b));
    let cmd = Cli::command();
    let sub = before.iter().find_map(|w| cmd.get_subcommands().find(|s| s.get_name() == w));
    let mut out = Vec::new();
    if current.starts_with('-') {
        let args = sub.map_or_else(
            || cmd.get_arguments().collect::<Vec<_>>(),
            |s| s.get_arguments().chain(cmd.get_arguments()).collect(),
        );
        for arg in args {
            if let Some(long) = arg.get_long() {
                let help = arg.get_help().map(ToString::to_string).unwrap_or_default();
                out.push(format!("--{long}\t{}", help.lines().next().unwrap_or_default()));
            }
        }
    } else if let Some(sub) = sub {
        out.extend(targets(sub.get_name(), before));
    } else {
        for s in cmd.get_subcommands() {
            let about = s.get_about().map(ToString::to_string).unwrap_or_default();
            out.push(format!("{}\t{about}", s.get_name()));
        }
    }
    let mut text: String = out.into_iter().filter(|c| c.starts_with(current)).map(|c| c + "\n").collect();
    text.push_str(&format!(":{NO_FILE_COMP}\n"));
    text
}

fn targets(sub: &str, before: &[String]) -> Vec<String> {
    let snapshot = before
        .iter()
        .position(|w| w == "--snapshot")
        .and_then(|i| before.get(i + 1))
        .and_then(|p| crate::source::file::read_path(std::path::Path::new(p)).ok())
        .or_else(|| {
            before
                .iter()
                .any(|w| w == "--demo")
                .then(|| crate::source::file::read_text(crate::source::DEMO_SNAPSHOT, "demo").ok())
                .flatten()
        });
    let Some(s) = snapshot else {
        return match sub {
            "explain" => vec!["node/".into(), "nodeclaim/".into(), "pod/".into()],
            "score" | "budgets" => vec!["nodepool/".into()],
            _ => Vec::new(),
        };
    };
    match sub {
        "explain" => s
            .nodes
            .iter()
            .map(|n| format!("node/{}", n.metadata.name))
            .chain(s.node_claims.iter().map(|c| format!("nodeclaim/{}", c.metadata.name)))
            .collect(),
        "score" | "budgets" => s.node_pools.iter().map(|p| format!("nodepool/{}", p.metadata.name)).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::cobra;

    #[test]
    fn completes_subcommands_and_targets() {
        let out = cobra(&["pl".into()]);
        assert!(out.starts_with("plan\t"), "{out}");
        assert!(out.ends_with(":4\n"));
        let out = cobra(&["--demo".into(), "explain".into(), "node/node-".into()]);
        assert!(out.contains("node/node-x\n"), "{out}");
    }
}
