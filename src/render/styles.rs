//! Colours, decided once at the edge: every style is plain unless colour is on.

use owo_colors::Style;

#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Styles {
    pub critical: Style,
    pub warning: Style,
    pub info: Style,
    pub ok: Style,
    pub bad: Style,
    pub code: Style,
    pub dim: Style,
    pub bold: Style,
    /// Charts drawn with Unicode block characters; plain ASCII when off (with colour off:
    /// piped text, `--color never`, `NO_COLOR`).
    pub blocks: bool,
}

impl Styles {
    /// No escape codes (pipes, tests, `--color never`, `NO_COLOR`).
    pub(crate) fn plain() -> Self {
        Self::default()
    }

    pub(crate) fn colored() -> Self {
        Styles {
            critical: Style::new().red().bold(),
            warning: Style::new().yellow(),
            info: Style::new().blue(),
            ok: Style::new().green().bold(),
            bad: Style::new().red().bold(),
            code: Style::new().cyan(),
            dim: Style::new().dimmed(),
            bold: Style::new().bold(),
            blocks: true,
        }
    }

    /// Applies a style to text.
    pub(crate) fn paint(style: Style, text: impl std::fmt::Display) -> String {
        use owo_colors::OwoColorize;
        text.style(style).to_string()
    }
}
