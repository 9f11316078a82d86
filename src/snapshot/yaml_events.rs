//! YAML read straight from the parser's events: the fast path in front of [`super::yaml_stream`].
//!
//! serde-saphyr's deserializer is two thirds of a YAML load: granit-parser (its parser) gives
//! every event of a 50 MB snapshot in about 2.3 s, serde-saphyr's whole path to the same
//! `serde_json::Value`s takes 6–8 s (`bench/PROFILE.md`, 2026-12-07). This reader takes the
//! events itself, builds each object's `Value` as serde-saphyr would with the project's options
//! ([`super::yaml_options()`]), and hands the objects to the same builder in the same order as
//! [`super::yaml_stream`] does (a List's items one by one, with the same document index and item
//! path).
//!
//! It reads only the plain shape snapshots and manifests have: untagged, unanchored nodes,
//! mappings at the top of every document, string keys. It gives up (`None`) on anything else —
//! a parser error, an alias, an anchor, a tag, a merge key, a duplicate key, a key that is not
//! surely a string, an empty or non-mapping document, a `%YAML` directive, nesting past half
//! of [`super::MAX_DEPTH`] — and the caller then takes serde-saphyr's path, so every diagnostic and
//! every unusual construct is decided where it always was. A plain scalar whose type is not
//! obvious from its first bytes (anything starting with a sign, a dot or a digit that is not a
//! plain decimal, and the words a float parser may read) is resolved by serde-saphyr itself,
//! on its own text, with the same options. Debug builds decode every stream both ways and
//! assert the same answer ([`super::Snapshot::from_yaml`]).

use std::borrow::Cow;

use granit_parser::{Event, ScalarStyle};
use serde_json::{Map, Number, Value};

use super::decode::{is_list, DecodeError};
use super::yaml_stream::{may_be_list, text, Sink, RAW_VALUE_TOKEN};
use super::Snapshot;

/// Nesting past this gives up: well inside the budget serde-saphyr enforces
/// ([`super::MAX_DEPTH`]), so that the limit is only ever reported by it.
const MAX_NESTING: usize = super::MAX_DEPTH / 2;

/// The snapshot decoded from `text`'s events, or `None` when the stream has a shape this reader
/// leaves to serde-saphyr (see the module docs). `options` are [`super::yaml_options()`]'s.
pub(super) fn decode_text(text: &str, options: &serde_saphyr::Options) -> Option<Result<Snapshot, DecodeError>> {
    if !options_are_the_projects(options) {
        return None;
    }
    let mut reader =
        Reader { events: granit_parser::Parser::new_from_str_with_options(text, parser_options(options)), options };
    let mut sink = Sink::default();
    reader.stream(&mut sink)?;
    Some(sink.finish())
}

/// The scalar rules below are serde-saphyr's under these settings only (property interpolation
/// and includes are features this build of serde-saphyr does not have).
fn options_are_the_projects(options: &serde_saphyr::Options) -> bool {
    options.strict_booleans
        && options.leading_zero_numbers_as_strings
        && !options.legacy_octal_numbers
        && !options.underscored_numbers_as_strings
        && !options.null_as_string
        && !options.no_schema
        && !options.angle_conversions
        && matches!(options.duplicate_keys, serde_saphyr::DuplicateKeyPolicy::Error)
        && matches!(options.require_indent, serde_saphyr::RequireIndent::Unchecked)
}

/// The parser's settings as serde-saphyr derives them from `options` (`Options::parser_options`):
/// the same input is accepted or refused by both.
fn parser_options(options: &serde_saphyr::Options) -> granit_parser::Options {
    let default_budget = serde_saphyr::Budget::default();
    let budget = options.budget.as_ref().unwrap_or(&default_budget);
    let mut parser = granit_parser::Options::default();
    parser.simple_key_max_lookahead = budget.simple_key_max_lookahead;
    parser.flow_nesting_limit = budget.flow_nesting_limit;
    parser.block_nesting_limit = parser.block_nesting_limit.max(budget.max_depth.saturating_add(1));
    parser.max_buffered_comment_events = budget.max_buffered_comment_events;
    parser.emit_comments = options.emit_comments;
    parser.strict_indentation = options.strict_indentation;
    parser.bom_inside_document_as_content = options.bom_inside_document_as_content;
    parser
}

struct Reader<'t, 'o> {
    events: granit_parser::Parser<'t, granit_parser::StrInput<'t>>,
    options: &'o serde_saphyr::Options,
}

impl<'t> Reader<'t, '_> {
    /// The next event that is a node or a boundary (comments skipped); `None` on a parser
    /// error or the end of the input.
    fn next(&mut self) -> Option<Event<'t>> {
        loop {
            let (event, _) = self.events.next()?.ok()?;
            if !is_comment(&event) {
                return Some(event);
            }
        }
    }

    /// Every document of the stream into `sink`.
    fn stream(&mut self, sink: &mut Sink) -> Option<()> {
        let Event::StreamStart = self.next()? else { return None };
        loop {
            match self.next()? {
                Event::StreamEnd => return Some(()),
                // A `%YAML` directive may change how serde-saphyr reads the document.
                Event::DocumentStart(_, None) => {
                    let Event::MappingStart(_, 0, None) = self.next()? else { return None };
                    let index = sink.documents;
                    sink.documents += 1;
                    self.top_mapping(sink, index)?;
                    let Event::DocumentEnd = self.next()? else { return None };
                }
                _ => return None,
            }
        }
    }

    /// The mapping at the top of document `index`, as `yaml_stream`'s `TopMapping` walks it: a
    /// List's `items` go to the sink one by one, any other document whole.
    fn top_mapping(&mut self, sink: &mut Sink, index: usize) -> Option<()> {
        let mut fields = Map::new();
        let mut streamed = false;
        loop {
            let event = self.next()?;
            if let Event::MappingEnd = event {
                break;
            }
            let key = Self::key(event)?;
            let value = if key == "items" && may_be_list(&fields) {
                match self.next()? {
                    Event::SequenceStart(_, 0, None) => {
                        let mut position = 0;
                        loop {
                            let event = self.next()?;
                            if let Event::SequenceEnd = event {
                                break;
                            }
                            let item = self.value(event, 2)?;
                            sink.add(item, index, &[position]);
                            position += 1;
                        }
                        streamed = true;
                        Value::Array(Vec::new())
                    }
                    Event::Scalar(text, ScalarStyle::Plain, 0, None) if is_null(&text) => Value::Null,
                    _ => return None,
                }
            } else {
                let event = self.next()?;
                self.value(event, 1)?
            };
            if fields.insert(key, value).is_some() {
                return None;
            }
        }
        if !streamed {
            sink.add(Value::Object(fields), index, &[]);
        } else if !is_list(text(&fields, "apiVersion"), text(&fields, "kind")) {
            return None;
        }
        Some(())
    }

    /// The node that starts with `event`, `depth` levels down, as `Value`'s visitor builds it.
    fn value(&mut self, event: Event<'t>, depth: usize) -> Option<Value> {
        if depth > MAX_NESTING {
            return None;
        }
        match event {
            Event::Scalar(text, style, 0, None) => self.scalar(text, style),
            Event::SequenceStart(_, 0, None) => {
                let mut items = Vec::new();
                loop {
                    let event = self.next()?;
                    if let Event::SequenceEnd = event {
                        return Some(Value::Array(items));
                    }
                    items.push(self.value(event, depth + 1)?);
                }
            }
            Event::MappingStart(_, 0, None) => {
                let mut fields = Map::new();
                loop {
                    let event = self.next()?;
                    if let Event::MappingEnd = event {
                        return Some(Value::Object(fields));
                    }
                    let key = Self::key(event)?;
                    let event = self.next()?;
                    let value = self.value(event, depth + 1)?;
                    if fields.insert(key, value).is_some() {
                        return None;
                    }
                }
            }
            _ => None,
        }
    }

    /// A mapping key that is surely a string as serde-saphyr reads it; `None` for any other
    /// (a number, a boolean, a null, a merge key, a collection, the `RawValue` marker).
    fn key(event: Event<'t>) -> Option<String> {
        let Event::Scalar(text, style, 0, None) = event else { return None };
        let plain = matches!(style, ScalarStyle::Plain);
        if (plain && !matches!(plain_scalar(&text), Plain::Str)) || text == "<<" || text == RAW_VALUE_TOKEN {
            return None;
        }
        Some(text.into_owned())
    }

    /// An untagged scalar's value: quoted and block scalars are strings; a plain one is
    /// resolved by [`plain_scalar`], or by serde-saphyr on its own text when that cannot tell.
    fn scalar(&self, text: Cow<'t, str>, style: ScalarStyle) -> Option<Value> {
        if !matches!(style, ScalarStyle::Plain) {
            return Some(Value::String(text.into_owned()));
        }
        Some(match plain_scalar(&text) {
            Plain::Null => Value::Null,
            Plain::Bool(b) => Value::Bool(b),
            Plain::Unsigned(n) => Value::Number(n.into()),
            Plain::Signed(n) => Value::Number(n.into()),
            Plain::Float(x) => Value::Number(Number::from_f64(x)?),
            Plain::Str => Value::String(text.into_owned()),
            Plain::Ask => {
                // Alone, the text parses as the same plain scalar; anything that comes back as
                // a null or a collection (`-`, `---`) was not one, so give up.
                let value: Value = serde_saphyr::from_str_with_options(&text, self.options.clone()).ok()?;
                if value.is_null() || value.is_array() || value.is_object() {
                    return None;
                }
                value
            }
        })
    }
}

/// Comments are emitted as serde-saphyr has the parser emit them (`parser_options`) and carry
/// no data; any other event the reader does not know reaches the node walk, which gives up.
fn is_comment(event: &Event<'_>) -> bool {
    matches!(event, Event::Comment(..))
}

/// What a plain scalar is, by serde-saphyr's typeless rules (`deserialize_any`: null, then
/// `parse_yaml12_bool`, then the spellings kept as strings, then integers, then floats, else a
/// string) with strict booleans and leading zeros kept as strings.
#[derive(Debug, PartialEq)]
enum Plain {
    Null,
    Bool(bool),
    Unsigned(u64),
    Signed(i64),
    Float(f64),
    Str,
    /// Not told from its bytes here: serde-saphyr decides.
    Ask,
}

fn plain_scalar(text: &str) -> Plain {
    match text {
        "" | "~" | "null" | "Null" | "NULL" => return Plain::Null,
        "true" | "True" | "TRUE" => return Plain::Bool(true),
        "false" | "False" | "FALSE" => return Plain::Bool(false),
        _ => {}
    }
    let bytes = text.as_bytes();
    match bytes.first() {
        Some(b'0'..=b'9') => {}
        Some(b'-') if bytes.get(1).is_some_and(u8::is_ascii_digit) => {
            return match decimal(&text[1..]) {
                Some(Decimal::Integer) => text.parse().map_or(Plain::Ask, Plain::Signed),
                Some(Decimal::Fraction) => float(text),
                None => Plain::Ask,
            };
        }
        Some(b'+' | b'-' | b'.') => return Plain::Ask,
        // The words a float parser reads (`inf`, `infinity`, `nan`, any case).
        _ if ["inf", "infinity", "nan"].iter().any(|w| text.eq_ignore_ascii_case(w)) => return Plain::Ask,
        _ => return Plain::Str,
    }
    match decimal(text) {
        Some(Decimal::Integer) => text.parse().map_or(Plain::Ask, Plain::Unsigned),
        Some(Decimal::Fraction) => float(text),
        None => digits_and_more(bytes),
    }
}

/// A scalar that starts with a digit but is no plain decimal: a string when it has what no
/// number has — a letter that is no hex digit (`100m`, `128Mi`, `2026-11-29T10:00:00Z`), or,
/// with no exponent, a second dot, a dash, a colon, a space or a slash (`10.0.0.1`,
/// `2026-11-29`) — unless a radix prefix (`0x`, `0o`, `0b`) makes it an integer's spelling.
fn digits_and_more(bytes: &[u8]) -> Plain {
    if matches!(bytes.get(1), Some(b'x' | b'X' | b'o' | b'O' | b'b' | b'B')) {
        return Plain::Ask;
    }
    if bytes.iter().any(|b| b.is_ascii_alphabetic() && !b.is_ascii_hexdigit()) {
        return Plain::Str;
    }
    let exponent = bytes.iter().any(|b| matches!(b, b'e' | b'E'));
    let second_dot = bytes.iter().position(|&b| b == b'.').is_some_and(|i| bytes[i + 1..].contains(&b'.'));
    if !exponent && (second_dot || bytes.iter().any(|b| matches!(b, b'-' | b':' | b' ' | b'/'))) {
        return Plain::Str;
    }
    Plain::Ask
}

enum Decimal {
    /// `0` or `[1-9][0-9]*`.
    Integer,
    /// `(0|[1-9][0-9]*)\.[0-9]+`.
    Fraction,
}

/// The two plain decimal spellings read here; `None` for any other (leading zeros, exponents,
/// underscores, radix prefixes, a bare dot…).
fn decimal(digits: &str) -> Option<Decimal> {
    let (whole, fraction) = match digits.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (digits, None),
    };
    let whole_ok =
        !whole.is_empty() && whole.bytes().all(|b| b.is_ascii_digit()) && (whole == "0" || !whole.starts_with('0'));
    if !whole_ok {
        return None;
    }
    match fraction {
        None => Some(Decimal::Integer),
        Some(f) if !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()) => Some(Decimal::Fraction),
        Some(_) => None,
    }
}

fn float(text: &str) -> Plain {
    match text.parse::<f64>() {
        Ok(x) if x.is_finite() => Plain::Float(x),
        _ => Plain::Ask,
    }
}

fn is_null(text: &str) -> bool {
    plain_scalar(text) == Plain::Null
}

#[cfg(test)]
mod tests {
    use super::{decode_text, plain_scalar, Plain};
    use crate::snapshot::yaml_options;

    /// Every plain spelling read here, against serde-saphyr's own reading of it.
    #[test]
    fn plain_scalars_read_as_serde_saphyr_reads_them() {
        let spellings = [
            "",
            "~",
            "null",
            "Null",
            "NULL",
            "nULL",
            "true",
            "True",
            "TRUE",
            "tRUE",
            "false",
            "yes",
            "no",
            "on",
            "off",
            "y",
            "n",
            "0",
            "7",
            "42",
            "18446744073709551615",
            "18446744073709551616",
            "-1",
            "-0",
            "-42",
            "-9223372036854775808",
            "-9223372036854775809",
            "00",
            "007",
            "-007",
            "0.5",
            "10.25",
            "-0.5",
            "-10.0",
            "00.5",
            "1.",
            ".5",
            "1e3",
            "1E3",
            "1.5e-3",
            "+1",
            "+.5",
            "0x1F",
            "0X1F",
            "0o17",
            "0b101",
            "1_000",
            ".inf",
            "-.inf",
            "+.inf",
            ".nan",
            ".NaN",
            "-.nan",
            "inf",
            "Infinity",
            "NaN",
            "nan",
            "100m",
            "128Mi",
            "2Gi",
            "1a2b",
            "2026-11-29T10:00:00Z",
            "2026-11-29",
            "1:20",
            "10.0.0.1",
            "ip-10-0-1-2",
            "a b",
            "m5.large",
            "1.5.3",
            "v1.14.1",
            "1 2",
            "1/2",
            "1-2",
            "-",
            "--",
            "---",
            "-x",
            "1e999",
        ];
        for s in spellings {
            let theirs: Result<serde_json::Value, _> = serde_saphyr::from_str_with_options(s, yaml_options(s));
            let ours = match plain_scalar(s) {
                Plain::Null => Some(serde_json::Value::Null),
                Plain::Bool(b) => Some(b.into()),
                Plain::Unsigned(n) => Some(n.into()),
                Plain::Signed(n) => Some(n.into()),
                Plain::Float(x) => Some(x.into()),
                Plain::Str => Some(s.into()),
                Plain::Ask => None,
            };
            if let Some(ours) = ours {
                assert_eq!(theirs.ok(), Some(ours), "{s:?}");
            }
        }
        // What is read here without asking, so that the common spellings stay fast.
        for (s, want) in [
            ("100m", Plain::Str),
            ("2026-11-29T10:00:00Z", Plain::Str),
            ("42", Plain::Unsigned(42)),
            ("-3", Plain::Signed(-3)),
            ("0.096", Plain::Float(0.096)),
            ("10.0.0.1", Plain::Str),
            ("2026-11-29", Plain::Str),
            ("web", Plain::Str),
            ("", Plain::Null),
        ] {
            assert_eq!(plain_scalar(s), want, "{s:?}");
        }
    }

    /// What this reader leaves to serde-saphyr; and a stream it reads, the same as the slow path.
    #[test]
    fn gives_up_on_every_shape_it_does_not_read() {
        let node = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n";
        for text in [
            format!("{node}  labels: &l {{a: b}}\n"),
            format!("{node}  labels: !!map {{a: b}}\n"),
            format!("{node}  labels: {{<<: {{a: b}}}}\n"),
            format!("{node}  labels: {{a: b, a: c}}\n"),
            format!("{node}  labels: {{1: b}}\n"),
            format!("{node}  labels: {{true: b}}\n"),
            format!("{node}---\n"),
            format!("{node}---\n- a\n"),
            format!("{node}---\nhello\n"),
            format!("{node}  labels: [b\n"),
            format!("{node}  annotations: {{x: .inf}}\n"),
            format!("%YAML 1.2\n---\n{node}"),
        ] {
            let text = &text;
            assert!(decode_text(text, &yaml_options(text)).is_none(), "{text}");
        }
        let list = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a, labels: {zone: \"1\", n: 2}}\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p, namespace: x}\n  spec: {nodeName: a, containers: [{name: c, resources: {requests: {cpu: 100m, memory: 0.5Gi}}}]}\n";
        let fast = decode_text(list, &yaml_options(list)).expect("read here").expect("decodes");
        assert_eq!((fast.nodes.len(), fast.pods.len()), (1, 1));
        let slow =
            super::super::yaml_stream::decode_text(list, yaml_options(list)).expect("streamed").expect("decodes");
        assert_eq!(fast, slow);
    }
}
