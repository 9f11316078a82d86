//! The part of an input that a diagnostic shows: a window around the error, never the whole text.
//!
//! `kubectl get -o json | jq -c` writes a whole cluster on one line. Handing that line to miette
//! prints all of it, and miette's renderer panics once a label sits past column 65,535 (a format
//! width). The window keeps a few hundred bytes around the error, and reports lines and columns
//! as they are in the whole input, so the header still says `file:line:col`.

use miette::{MietteError, MietteSpanContents, SourceCode, SourceSpan, SpanContents};

/// How many bytes of the error's line are kept on each side of it.
const AROUND: usize = 80;
/// Context lines before and after the error's line are kept only while they are this short.
const CONTEXT_LINE: usize = 160;
/// At most this many context lines on each side.
const CONTEXT_LINES: usize = 2;

/// An excerpt of the input, placed where it was in the whole text.
#[derive(Debug, Clone)]
pub struct SourceWindow {
    name: String,
    text: String,
    /// Byte offset of `text` in the whole input.
    start: usize,
    /// Zero-based line and byte column of `text`'s first byte in the whole input.
    line: usize,
    column: usize,
}

impl SourceWindow {
    /// The window of `text` around byte `offset`.
    pub fn around(name: &str, text: &str, offset: usize) -> SourceWindow {
        let offset = floor_char(text, offset.min(text.len()));
        let line_start = text[..offset].rfind('\n').map_or(0, |p| p + 1);
        let line_end = text[offset..].find('\n').map_or(text.len(), |p| p + offset);
        let mut from = floor_char(text, offset.saturating_sub(AROUND).max(line_start));
        let mut to = ceil_char(text, (offset + AROUND).min(line_end));
        if from == line_start {
            for _ in 0..CONTEXT_LINES {
                let Some(before) = from.checked_sub(1) else { break };
                let previous = text[..before].rfind('\n').map_or(0, |p| p + 1);
                if before - previous > CONTEXT_LINE {
                    break;
                }
                from = previous;
            }
        }
        if to == line_end {
            for _ in 0..CONTEXT_LINES {
                if to >= text.len() {
                    break;
                }
                let next = text[to + 1..].find('\n').map_or(text.len(), |p| p + to + 1);
                if next - to - 1 > CONTEXT_LINE {
                    break;
                }
                to = next;
            }
        }
        let before = &text.as_bytes()[..from];
        let line = memchr_count(before);
        let column = from - before.iter().rposition(|&b| b == b'\n').map_or(0, |p| p + 1);
        SourceWindow { name: name.to_owned(), text: text[from..to].to_owned(), start: from, line, column }
    }

    /// An empty window, for an error with no place in the text.
    pub fn empty(name: &str) -> SourceWindow {
        SourceWindow { name: name.to_owned(), text: String::new(), start: 0, line: 0, column: 0 }
    }

    /// The excerpt (for tests and messages).
    pub fn text(&self) -> &str {
        &self.text
    }
}

fn memchr_count(bytes: &[u8]) -> usize {
    // Lines, counted as text: `str::lines` would split on `\r\n` the same way.
    String::from_utf8_lossy(bytes).matches('\n').count()
}

fn floor_char(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ceil_char(text: &str, mut at: usize) -> usize {
    while !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

impl SourceCode for SourceWindow {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        context_lines_before: usize,
        context_lines_after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let relative = span.offset().saturating_sub(self.start).min(self.text.len());
        let len = span.len().min(self.text.len() - relative);
        let inner = self.text.as_str().read_span(
            &SourceSpan::from((relative, len)),
            context_lines_before,
            context_lines_after,
        )?;
        let column = if inner.line() == 0 { inner.column() + self.column } else { inner.column() };
        let data: &'a [u8] = inner.data();
        Ok(Box::new(MietteSpanContents::new_named(
            self.name.clone(),
            data,
            SourceSpan::from((inner.span().offset() + self.start, inner.span().len())),
            inner.line() + self.line,
            column,
            inner.line_count(),
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::SourceWindow;
    use miette::{SourceCode, SourceSpan};

    #[test]
    fn a_long_line_is_cut_around_the_error_and_keeps_its_place() {
        let text = format!("a\n{}X{}\nb\n", "y".repeat(100_000), "z".repeat(100_000));
        let offset = text.find('X').unwrap();
        let window = SourceWindow::around("f", &text, offset);
        assert!(window.text().len() <= 2 * super::AROUND + 1, "{}", window.text().len());
        let contents = window.read_span(&SourceSpan::from((offset, 1)), 0, 0).unwrap();
        assert_eq!((contents.line(), contents.column()), (1, 100_000));
        let around = window.read_span(&SourceSpan::from((offset, 1)), 1, 1).unwrap();
        assert_eq!(around.data()[super::AROUND], b'X');
    }

    #[test]
    fn short_lines_keep_their_neighbours() {
        let text = "one\ntwo\nthree\nfour\nfive\nsix\n";
        let offset = text.find("four").unwrap();
        let window = SourceWindow::around("f", text, offset + 1);
        assert_eq!(window.text(), "two\nthree\nfour\nfive\nsix");
        let contents = window.read_span(&SourceSpan::from((offset + 1, 1)), 1, 1).unwrap();
        assert_eq!((contents.line(), contents.column()), (2, 0));
        assert_eq!(std::str::from_utf8(contents.data()).unwrap(), "three\nfour\nfive\n");
    }

    #[test]
    fn multibyte_text_is_cut_on_char_boundaries() {
        let text = "é".repeat(1000);
        for offset in [0, 1, 999, 1001, 2000, 5000] {
            let window = SourceWindow::around("f", &text, offset);
            assert!(window.text().chars().all(|c| c == 'é'));
        }
    }
}
