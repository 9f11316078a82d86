//! The one escaping rule for everything printed to a terminal (text, wide, markdown, warnings,
//! errors): nothing read from a cluster or a snapshot may move the cursor, erase a line, forge
//! a line, or make one name read as another.
//!
//! Two layers, because they catch different things:
//! - [`escape_value`] works on one value (a name, a label, a message): control characters
//!   (newline included), DEL and C1, bidi controls and zero-width characters are written as
//!   `\x1b`, `\n`, `\u{202e}`, and the value is wrapped in double quotes so the reader sees it
//!   needed escaping (as `ls` and `git` quote odd file names). [`escape_snapshot`] applies it
//!   to every string of a snapshot before a text report is built, so a newline inside a pod
//!   name cannot start a line of its own. The rule is one-to-one (`\` and `"` in an escaped
//!   value are escaped too), so names that were equal stay equal and names that differed still
//!   differ: the replay's answer does not change.
//! - [`sanitize_output`] works on the finished text: whatever escaped the first layer (a value
//!   the engine built into a message, an error's text) still cannot reach the terminal raw.
//!   It keeps only line feeds and, when colour is on, the colour sequences we write ourselves.
//!
//! JSON and YAML keep every value exact: their own escaping makes them safe to print.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Whether `c` must never reach a terminal raw from data: C0 controls (newline and tab
/// included), DEL, C1 controls, the bidi controls (Unicode's `Bidi_Control`: the Arabic letter
/// mark, the directional marks, embeddings, overrides and isolates), the zero-width characters
/// and the byte-order mark.
pub(crate) fn is_unsafe(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' | '\u{61c}'
        | '\u{200b}'..='\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2069}'
        | '\u{feff}')
}

/// `c` as it is shown escaped.
fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\\' => out.push_str("\\\\"),
        '"' => out.push_str("\\\""),
        c if (c as u32) < 0x100 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// One value as a terminal may show it: unchanged when it holds nothing unsafe, else escaped
/// and quoted (`"evil\x1b[2Kname"`).
/// A value that starts with `"` is quoted too, so a name cannot pass for an escaped one (the
/// rule stays one-to-one).
pub(crate) fn escape_value(value: &str) -> Cow<'_, str> {
    if !value.starts_with('"') && !value.chars().any(is_unsafe) {
        return Cow::Borrowed(value);
    }
    let mut out = String::with_capacity(value.len() + 8);
    out.push('"');
    for c in value.chars() {
        if is_unsafe(c) || c == '\\' || c == '"' {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    out.push('"');
    Cow::Owned(out)
}

/// The finished text of a report, a warning or an error, with every unsafe character escaped
/// except line feeds and — when `colour` — the SGR colour sequences (`ESC [ digits ; m`) the
/// renderer writes. A colour sequence that came from data can at most recolour what follows.
pub(crate) fn sanitize_output(text: &str, colour: bool) -> Cow<'_, str> {
    sanitize(text, colour, true)
}

/// One line of stderr (a warning, a note): as [`sanitize_output`] without colour, and a line
/// feed inside it escaped too, so it cannot print a line that is not its own.
pub(crate) fn sanitize_line(text: &str) -> Cow<'_, str> {
    sanitize(text, false, false)
}

fn sanitize(text: &str, colour: bool, keep_line_feeds: bool) -> Cow<'_, str> {
    let clean = |c: char| (keep_line_feeds && c == '\n') || !is_unsafe(c);
    if text.chars().all(clean) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if colour && c == '\u{1b}' {
            if let Some(len) = sgr_len(rest) {
                out.push_str(&rest[..len]);
                rest = &rest[len..];
                continue;
            }
        }
        if clean(c) {
            out.push(c);
        } else {
            push_escaped(&mut out, c);
        }
        rest = &rest[c.len_utf8()..];
    }
    Cow::Owned(out)
}

/// The length of the SGR sequence `text` starts with (`ESC [ 0-9 ; * m`), if it starts with one.
fn sgr_len(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.get(1) != Some(&b'[') {
        return None;
    }
    let body = bytes[2..].iter().take_while(|b| b.is_ascii_digit() || **b == b';').count();
    (bytes.get(2 + body) == Some(&b'm')).then_some(3 + body)
}

/// Every string of `value` (keys too) escaped in place.
fn escape_strings(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::String(s) => {
            if let Cow::Owned(escaped) = escape_value(s) {
                *s = escaped;
            }
        }
        Value::Array(items) => items.iter_mut().for_each(escape_strings),
        Value::Object(map) => {
            let entries = std::mem::take(map);
            for (k, mut v) in entries {
                escape_strings(&mut v);
                map.insert(escape_value(&k).into_owned(), v);
            }
        }
        _ => {}
    }
}

/// A serde serializer that reads every string (map keys too) and writes nothing: whether a
/// snapshot needs escaping, found without building a document or any text.
struct UnsafeScan {
    found: bool,
}

/// Stops the walk at the first unsafe string (an error to serde, a finding to us).
#[derive(Debug)]
struct Found;

impl std::fmt::Display for Found {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an unsafe character")
    }
}

impl std::error::Error for Found {}

impl serde::ser::Error for Found {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Found
    }
}

macro_rules! ignore {
    ($($name:ident: $ty:ty),*) => {
        $(fn $name(self, _: $ty) -> Result<(), Found> { Ok(()) })*
    };
}

impl serde::Serializer for &mut UnsafeScan {
    type Ok = ();
    type Error = Found;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    ignore!(serialize_bool: bool, serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_i128: i128, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64,
        serialize_u128: u128, serialize_f32: f32, serialize_f64: f64, serialize_bytes: &[u8]);

    fn serialize_char(self, c: char) -> Result<(), Found> {
        self.check(c.encode_utf8(&mut [0; 4]))
    }
    fn serialize_str(self, s: &str) -> Result<(), Found> {
        self.check(s)
    }
    fn serialize_none(self) -> Result<(), Found> {
        Ok(())
    }
    fn serialize_some<T: ?Sized + serde::Serialize>(self, v: &T) -> Result<(), Found> {
        v.serialize(self)
    }
    fn serialize_unit(self) -> Result<(), Found> {
        Ok(())
    }
    fn serialize_unit_struct(self, _: &'static str) -> Result<(), Found> {
        Ok(())
    }
    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Found> {
        Ok(())
    }
    fn serialize_newtype_struct<T: ?Sized + serde::Serialize>(self, _: &'static str, v: &T) -> Result<(), Found> {
        v.serialize(self)
    }
    fn serialize_newtype_variant<T: ?Sized + serde::Serialize>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        v: &T,
    ) -> Result<(), Found> {
        v.serialize(self)
    }
    fn serialize_seq(self, _: Option<usize>) -> Result<Self, Found> {
        Ok(self)
    }
    fn serialize_tuple(self, _: usize) -> Result<Self, Found> {
        Ok(self)
    }
    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, Found> {
        Ok(self)
    }
    fn serialize_tuple_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Self, Found> {
        Ok(self)
    }
    fn serialize_map(self, _: Option<usize>) -> Result<Self, Found> {
        Ok(self)
    }
    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Found> {
        Ok(self)
    }
    fn serialize_struct_variant(self, _: &'static str, _: u32, _: &'static str, _: usize) -> Result<Self, Found> {
        Ok(self)
    }
}

impl UnsafeScan {
    fn check(&mut self, s: &str) -> Result<(), Found> {
        // A clean name cannot start with `"` once escaping is under way (see `escape_value`);
        // such a name alone needs no escaping, so only unsafe characters start it.
        if s.chars().any(is_unsafe) {
            self.found = true;
            return Err(Found);
        }
        Ok(())
    }
}

macro_rules! forward {
    ($trait:ident, $method:ident $(, $key:ident)?) => {
        impl serde::ser::$trait for &mut UnsafeScan {
            type Ok = ();
            type Error = Found;
            fn $method<T: ?Sized + serde::Serialize>(&mut self, $($key: &'static str,)? v: &T) -> Result<(), Found> {
                $(let _ = $key;)?
                v.serialize(&mut **self)
            }
            fn end(self) -> Result<(), Found> {
                Ok(())
            }
        }
    };
}

forward!(SerializeSeq, serialize_element);
forward!(SerializeTuple, serialize_element);
forward!(SerializeTupleStruct, serialize_field);
forward!(SerializeTupleVariant, serialize_field);
forward!(SerializeStruct, serialize_field, key);
forward!(SerializeStructVariant, serialize_field, key);

impl serde::ser::SerializeMap for &mut UnsafeScan {
    type Ok = ();
    type Error = Found;
    fn serialize_key<T: ?Sized + serde::Serialize>(&mut self, k: &T) -> Result<(), Found> {
        k.serialize(&mut **self)
    }
    fn serialize_value<T: ?Sized + serde::Serialize>(&mut self, v: &T) -> Result<(), Found> {
        v.serialize(&mut **self)
    }
    fn end(self) -> Result<(), Found> {
        Ok(())
    }
}

/// Whether any string of the snapshot needs escaping: one walk over its values through serde,
/// building nothing (a tenth of the cost of writing the snapshot as JSON).
fn snapshot_has_unsafe(s: &crate::snapshot::Snapshot) -> bool {
    use serde::Serialize;
    let mut scan = UnsafeScan { found: false };
    // Two tuples: serde implements tuples of up to 16.
    let objects = (&s.nodes, &s.pods, &s.pdbs, &s.daemon_sets, &s.replica_sets, &s.deployments, &s.stateful_sets);
    let rest = (&s.hpas, &s.pvcs, &s.pvs, &s.storage_classes, &s.csi_nodes, &s.events, &s.node_pools);
    let buffers = (&s.capacity_buffers, &s.pod_templates);
    let _ = (&s.info, &s.instance_types, &s.node_claims, &s.node_classes, objects, rest, buffers).serialize(&mut scan);
    scan.found
}

/// The snapshot as a text report may show it: every string of every object that holds an
/// unsafe character escaped by [`escape_value`], consistently everywhere it appears (a node's
/// name and the pods' `nodeName` alike), so the replay gives the same verdicts under the
/// escaped names. `None` — and no copy made — when nothing needs escaping, which one scan of
/// the snapshot decides. What the pipeline recorded in `SnapshotInfo` (resolved settings,
/// estimates) is kept as it was.
pub(crate) fn escape_snapshot(snapshot: &crate::snapshot::Snapshot) -> Option<crate::snapshot::Snapshot> {
    if !snapshot_has_unsafe(snapshot) {
        return None;
    }
    let mut document = snapshot.to_document();
    let items = document.get_mut("items").and_then(serde_json::Value::as_array_mut)?;
    // Every object, not only those with an unsafe string: a clean name that starts with `"`
    // is quoted by the rule, and must be quoted alike wherever it is referenced.
    items.iter_mut().for_each(escape_strings);
    let mut escaped = crate::snapshot::Snapshot::from_documents(vec![document]).ok()?;
    escaped.info = snapshot.info.clone();
    Some(escaped)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_values_are_borrowed_unchanged() {
        assert!(matches!(escape_value("ip-10-0-1-7.ec2.internal"), Cow::Borrowed(_)));
        assert!(matches!(escape_value("노드-가"), Cow::Borrowed(_)), "non-ASCII letters are not unsafe");
    }

    #[test]
    fn controls_newlines_bidi_and_zero_width_are_escaped_and_quoted() {
        assert_eq!(escape_value("a\u{1b}[2Kb"), "\"a\\x1b[2Kb\"");
        assert_eq!(escape_value("pod\nThis round saves $999999/h"), "\"pod\\nThis round saves $999999/h\"");
        assert_eq!(escape_value("node-\u{202e}a"), "\"node-\\u{202e}a\"");
        assert_eq!(escape_value("no\u{200b}de"), "\"no\\u{200b}de\"");
        assert_eq!(escape_value("c1\u{9b}x"), "\"c1\\x9bx\"");
        // The Arabic letter mark reorders text as U+200F does (found by the render property).
        assert_eq!(escape_value("a\u{61c}b"), "\"a\\u{61c}b\"");
    }

    #[test]
    fn escaping_is_one_to_one() {
        // A value that looks like an escaped one stays apart from the value it imitates.
        let forged = escape_value("\"a\\x1bb\"");
        let real = escape_value("a\u{1b}b");
        assert_ne!(forged, real);
        assert_eq!(escape_value("a\\b\u{1b}"), "\"a\\\\b\\x1b\"");
    }

    #[test]
    fn output_keeps_line_feeds_and_our_colours_only() {
        let text = "\u{1b}[1mplan\u{1b}[0m\nnode \u{1b}[2K\r\u{202e}x\n";
        assert_eq!(sanitize_output(text, true), "\u{1b}[1mplan\u{1b}[0m\nnode \\x1b[2K\\r\\u{202e}x\n");
        assert_eq!(sanitize_output(text, false), "\\x1b[1mplan\\x1b[0m\nnode \\x1b[2K\\r\\u{202e}x\n");
        assert!(matches!(sanitize_output("plain\ntext\n", false), Cow::Borrowed(_)));
        assert_eq!(sanitize_line("pod \"a\nb\" gone"), "pod \"a\\nb\" gone");
    }

    #[test]
    fn a_snapshot_without_unsafe_strings_is_not_copied() {
        assert!(escape_snapshot(&crate::testing::demo()).is_none());
    }

    #[test]
    fn a_hostile_node_name_is_escaped_everywhere_it_appears() {
        let mut objects = vec![crate::testing::node_pool("default")];
        objects.extend(crate::testing::managed_node("evil\u{1b}[2K\nnode"));
        objects.push(crate::testing::pod("web", "evil\u{1b}[2K\nnode"));
        let snapshot = crate::testing::snapshot(objects);
        let escaped = escape_snapshot(&snapshot).expect("something to escape");
        let name = escaped.nodes[0].metadata.name.clone();
        assert_eq!(name, "\"evil\\x1b[2K\\nnode\"");
        assert_eq!(escaped.pods[0].spec.node_name.as_deref(), Some(name.as_str()), "references escaped alike");
        assert!(!format!("{escaped:?}").contains('\u{1b}'));
    }
}
