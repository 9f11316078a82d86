//! Fitting text to the screen: the visible width of a string (escape codes and wide characters
//! counted as a terminal shows them), cutting with `…`, and wrapping a line under its own
//! indentation. Only layout: nothing here reads or decides a figure.

use unicode_width::UnicodeWidthChar;

/// Columns a string takes on a terminal (ANSI escape sequences take none).
pub(super) fn visible_width(s: &str) -> usize {
    let mut width = 0;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            skip_escape(&mut chars);
        } else {
            width += c.width().unwrap_or(0);
        }
    }
    width
}

/// Skips the rest of a CSI sequence (`ESC [ … letter`).
fn skip_escape(chars: &mut std::str::Chars<'_>) {
    if chars.next() == Some('[') {
        for c in chars.by_ref() {
            if c.is_ascii_alphabetic() {
                break;
            }
        }
    }
}

/// `s` cut to `max` columns, ending in `…` when cut (escape codes kept, and closed).
pub(super) fn cut(s: &str, max: usize) -> String {
    if visible_width(s) <= max {
        return s.to_owned();
    }
    let mut out = String::new();
    let mut width = 0;
    let mut styled = false;
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\x1b' {
            styled = true;
            out.push(c);
            while let Some(&next) = chars.peek() {
                out.push(next);
                chars.next();
                if next.is_ascii_alphabetic() {
                    break;
                }
            }
            continue;
        }
        let w = c.width().unwrap_or(0);
        if width + w + 1 > max {
            break;
        }
        width += w;
        out.push(c);
    }
    if max > 0 {
        out.push('…');
    }
    if styled {
        out.push_str("\x1b[0m");
    }
    out
}

/// Wraps one line to `width` columns at spaces; continuation lines are indented under the
/// line's own indentation plus `hang`. A word longer than the room is broken where it must be.
/// A `kubectl …` command is wrapped only between its words outside quotes, each broken line
/// ending in ` \`, so it still runs when pasted.
pub(super) fn wrap(line: &str, width: usize, hang: usize) -> Vec<String> {
    if visible_width(line) <= width || width < 20 {
        return vec![line.to_owned()];
    }
    let indent = line.len() - line.trim_start().len();
    let body = &line[indent..];
    // "do this: kubectl …": the words, then the command on lines of its own.
    if let Some(at) = body.find(": kubectl ").filter(|at| !body.starts_with("kubectl ") && is_command(&body[at + 2..]))
    {
        let (prose, command) = (&line[..=(indent + at)], &body[at + 2..]);
        let mut out = wrap(prose, width, hang);
        out.extend(wrap(&format!("{}{command}", " ".repeat(indent + hang)), width, 2));
        return out;
    }
    let command = is_command(body);
    let lead = " ".repeat(indent);
    let next_lead = " ".repeat((indent + hang).min(width / 2));
    let words = if command { shell_words(body) } else { body.split(' ').map(str::to_owned).collect() };
    let reserve = usize::from(command) * 2;
    let mut out: Vec<String> = Vec::new();
    let mut current = lead.clone();
    let mut current_has_word = false;
    for word in words {
        let room = width.saturating_sub(reserve);
        let candidate = visible_width(&current) + usize::from(current_has_word) + visible_width(&word);
        if current_has_word && candidate > room {
            if command {
                current.push_str(" \\");
            }
            out.push(std::mem::replace(&mut current, next_lead.clone()));
            current_has_word = false;
        }
        if current_has_word {
            current.push(' ');
        }
        let mut word = word;
        // A word wider than a whole line is broken (never inside a command: it must paste).
        while !command && visible_width(&current) + visible_width(&word) > width {
            let room = width - visible_width(&current);
            let head: String = take_columns(&word, room);
            word = word[head.len()..].to_owned();
            current.push_str(&head);
            out.push(std::mem::replace(&mut current, next_lead.clone()));
        }
        current.push_str(&word);
        current_has_word = true;
    }
    out.push(current);
    out
}

/// A `kubectl …` command and nothing else: no `: ` sentence outside quotes after it.
fn is_command(text: &str) -> bool {
    text.starts_with("kubectl ") && !shell_words(text).iter().any(|w| w.ends_with(':') && !w.starts_with(['\'', '"']))
}

/// The longest prefix of `s` at most `columns` wide (at least one character).
fn take_columns(s: &str, columns: usize) -> String {
    let mut out = String::new();
    let mut width = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if width + w > columns && !out.is_empty() {
            break;
        }
        width += w;
        out.push(c);
    }
    out
}

/// Splits at spaces outside single or double quotes.
fn shell_words(s: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    for c in s.chars() {
        match (c, quote) {
            ('\'' | '"', None) => {
                quote = Some(c);
                current.push(c);
            }
            (q, Some(open)) if q == open => {
                quote = None;
                current.push(c);
            }
            (' ', None) => words.push(std::mem::take(&mut current)),
            _ => current.push(c),
        }
    }
    words.push(current);
    words
}

/// Every line of `text` wrapped to `width` (`hang` columns deeper for continuations).
pub(super) fn wrap_text(text: &str, width: usize, hang: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        for piece in wrap(line, width, hang) {
            out.push_str(piece.trim_end());
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{cut, visible_width, wrap, wrap_text};

    #[test]
    fn width_ignores_escape_codes() {
        assert_eq!(visible_width("\x1b[1;31mBlocked\x1b[0m"), 7);
        assert_eq!(visible_width("✓ → …"), 5);
    }

    #[test]
    fn cut_ends_in_an_ellipsis_within_the_width() {
        assert_eq!(cut("NotCheaper: can't replace", 10), "NotCheape…");
        assert_eq!(visible_width(&cut("NotCheaper: can't replace", 10)), 10);
        assert_eq!(cut("short", 10), "short");
        assert_eq!(cut("\x1b[31mBlocked\x1b[0m", 4), "\x1b[31mBlo…\x1b[0m");
    }

    #[test]
    fn wrap_keeps_the_indentation_and_the_width() {
        let line = "  critical  Deployment/tenant-a/app-b  loses 1 of 1 replica on node-x; 0 ready left";
        let lines = wrap(line, 40, 4);
        assert!(lines.iter().all(|l| visible_width(l) <= 40), "{lines:#?}");
        assert!(lines[1].starts_with("      "), "{lines:#?}");
        assert_eq!(lines.join(" ").split_whitespace().collect::<Vec<_>>(), line.split_whitespace().collect::<Vec<_>>());
    }

    #[test]
    fn a_command_wraps_between_words_with_continuations() {
        let line = "   kubectl patch pdb app-b -n tenant-a --type=merge -p '{\"spec\":{\"maxUnavailable\":null,\"minAvailable\":1}}'";
        let lines = wrap(line, 60, 2);
        assert!(lines.len() > 1);
        assert!(lines[..lines.len() - 1].iter().all(|l| l.ends_with(" \\")), "{lines:#?}");
        assert!(lines.last().unwrap().trim_start().starts_with("'{"), "the quoted patch stays whole: {lines:#?}");
    }

    #[test]
    fn a_sentence_that_starts_with_kubectl_is_prose() {
        let line = "  - PDBBlocked: kubectl get pdb app-b -n tenant-a: it allows 0 disruptions now; raise replicas or loosen it";
        let lines = wrap(line, 60, 4);
        assert!(lines.iter().all(|l| !l.ends_with('\\')), "{lines:#?}");
    }

    #[test]
    fn a_long_word_is_broken_to_fit() {
        let text = wrap_text(&format!("why: {}", "x".repeat(50)), 20, 2);
        assert!(text.lines().all(|l| visible_width(l) <= 20), "{text}");
    }
}
