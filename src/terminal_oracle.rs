//! The promise of the terminal output (issue #30), as a check: whatever names, labels and
//! messages a snapshot holds, what `plan`, `explain`, `pdb-audit` and `forecast` print in text,
//! wide and Markdown with colour off — warnings and errors included — holds no raw control, bidi
//! or zero-width character; line feeds between lines are the only control characters.
//!
//! The characters are listed here on their own, not taken from `terminal.rs`: a character the
//! escaping forgot must fail this check. Used by `tests/it/fuzz_regressions.rs` (a property
//! over hostile snapshots and every input in `fuzz/seeds/render` and
//! `tests/fuzz-regressions/render`) and the fuzz target `fuzz/fuzz_targets/render.rs`.

use crate::cli::{Cli, Output};
use crate::commands::Failure;
use crate::prepare::{self, Inputs};
use crate::snapshot::Snapshot;
use crate::source::Source;
use clap::Parser;

/// The formats a person reads.
const FORMATS: [&str; 3] = ["text", "wide", "markdown"];

/// Every raw character of the output of each command in each terminal format over `snapshot`,
/// one line each (`plan -o wide: U+001B at char 120`); empty when the promise holds. The
/// replay's instant is the snapshot's capture time (else `2026-11-29T10:00:00Z`), so that a
/// failure replays.
pub fn raw_characters(snapshot: &Snapshot) -> Vec<String> {
    let now = snapshot.info.captured_at.unwrap_or_else(|| "2026-11-29T10:00:00Z".parse().unwrap_or_default());
    let explain = snapshot.nodes.first().map(|n| format!("node/{}", n.metadata.name));
    let mut commands: Vec<Vec<String>> = vec![
        vec!["plan".into()],
        vec!["pdb-audit".into(), "-A".into()],
        // A few rounds render every part of the forecast; the bound itself is `forecast_oracle`'s.
        vec!["forecast".into(), "--rounds".into(), "3".into()],
    ];
    commands.extend(explain.map(|target| vec!["explain".into(), target]));
    let mut found = Vec::new();
    for command in &commands {
        for format in FORMATS {
            let mut args: Vec<String> = vec!["kubectl-consolidation".into()];
            args.extend(command.iter().cloned());
            args.extend([
                "-o".into(),
                format.into(),
                "--color".into(),
                "never".into(),
                "--now".into(),
                now.to_string(),
            ]);
            // A target the command line cannot name is the user's input, not the cluster's.
            let Ok(cli) = Cli::try_parse_from(&args) else { continue };
            let printed = printed(&cli, snapshot.clone());
            found.extend(raw_in(&printed).map(|at| format!("{} -o {format}: {at}", command.join(" "))));
        }
    }
    found
}

/// Everything the binary would print for `cli` once `snapshot` is loaded: the warnings, then
/// the answer or the error, each through the same functions `app.rs` writes with.
fn printed(cli: &Cli, mut snapshot: Snapshot) -> String {
    let Output::Format(format) = cli.output.output else { return String::new() };
    let inputs = Inputs {
        prices: None,
        karpenter_settings: &cli.input.karpenter_settings,
        karpenter_version: cli.input.karpenter_version.as_deref(),
    };
    let answer = prepare::complete(&mut snapshot, inputs).and_then(|completed| {
        let warnings = crate::app::warning_lines(&completed.warnings);
        let (text, _exit) = crate::app::answer(
            cli,
            &Source::Demo,
            format,
            &completed.assumed,
            &mut snapshot,
            &crate::progress::Progress::new(false, false, false),
        )?;
        Ok(warnings + &text)
    });
    match answer {
        Ok(text) => text,
        Err(Failure::Usage(message)) => message,
        Err(Failure::Error(e)) => crate::app::error_text(&e, false),
    }
}

/// Where `text` holds a raw character: each as `U+XXXX at char N`.
fn raw_in(text: &str) -> impl Iterator<Item = String> + '_ {
    text.chars().enumerate().filter(|&(_, c)| is_raw(c)).map(|(i, c)| format!("U+{:04X} at char {i}", u32::from(c)))
}

/// A character that must never reach the terminal as it is: C0 controls but the line feed,
/// DEL, C1 controls, bidi controls and zero-width characters.
fn is_raw(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c, '\u{061c}' | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_check_sees_what_the_escaping_must_catch() {
        let raw: Vec<String> = raw_in("ok\nstill ok\x1b[2K\u{202e}\u{200b}\t\u{85}").collect();
        assert_eq!(
            raw,
            ["U+001B at char 11", "U+202E at char 15", "U+200B at char 16", "U+0009 at char 17", "U+0085 at char 18"]
        );
    }

    #[test]
    fn the_demo_prints_nothing_raw() {
        assert_eq!(raw_characters(&crate::testing::demo()), Vec::<String>::new());
    }
}
