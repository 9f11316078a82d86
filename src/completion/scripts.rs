//! The bash, zsh and fish scripts `completion SHELL` prints. Each is a thin client of the
//! binary's `__complete` (see the module above): it sends the words, reads cobra's directive
//! and hands the candidates to the shell. They are files beside this one so they can be read
//! and linted as shell.

use crate::cli::Shell;

/// The script for `shell`.
pub(crate) const fn script(shell: Shell) -> &'static str {
    match shell {
        Shell::Bash => include_str!("scripts/kubectl-consolidation.bash"),
        Shell::Zsh => include_str!("scripts/kubectl-consolidation.zsh"),
        Shell::Fish => include_str!("scripts/kubectl-consolidation.fish"),
    }
}
