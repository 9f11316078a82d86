//! How deep a snapshot's JSON may nest, checked once over the text before any object is read.
//!
//! The JSON reader slices each List's items out of its text (`RawValue`), and slicing an item
//! reads everything inside it: a file of Lists inside Lists costs the depth times its size
//! before the List walker's own bound is reached. Kubernetes objects nest a dozen levels, so a
//! text nested past [`MAX_DEPTH`] is refused in one pass over its bytes, before that walk.

/// How deep objects and arrays may nest in a snapshot, JSON or YAML (the YAML parser's budget
/// says the same); Kubernetes objects nest about 12 deep.
pub const MAX_DEPTH: usize = 128;

/// The byte offset of the first `{` or `[` that opens a level deeper than [`MAX_DEPTH`],
/// outside strings; `None` when the text stays within it. Linear in the text, and it does not
/// judge the JSON otherwise (the parser still does).
pub(super) fn too_deep(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (at, byte) in text.bytes().enumerate() {
        if in_string {
            match byte {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        match byte {
            b'"' => in_string = true,
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Some(at);
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{too_deep, MAX_DEPTH};

    #[test]
    fn the_first_bracket_past_the_bound_is_found() {
        let text = "[".repeat(MAX_DEPTH + 5);
        assert_eq!(too_deep(&text), Some(MAX_DEPTH));
        assert_eq!(too_deep(&"[".repeat(MAX_DEPTH)), None);
    }

    #[test]
    fn brackets_inside_strings_do_not_count() {
        let inside = format!("{{\"name\": \"{}\"}}", "[{".repeat(MAX_DEPTH));
        assert_eq!(too_deep(&inside), None);
        // An escaped quote does not end the string.
        let escaped = format!("{{\"name\": \"\\\"{}\"}}", "[".repeat(MAX_DEPTH + 1));
        assert_eq!(too_deep(&escaped), None);
    }

    #[test]
    fn closing_brackets_give_the_depth_back() {
        let text = "[]".repeat(10 * MAX_DEPTH);
        assert_eq!(too_deep(&text), None);
    }
}
