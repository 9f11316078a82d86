//! JSON decoded as it is read, a List's items one at a time, so that a load never holds the
//! whole text: at 150,000 pods the text alone is a fifth of the peak memory.
//!
//! The input is read in large chunks, and serde_json parses each value from the chunk (its
//! reader interface goes byte by byte, which made a load a quarter slower). Only the document
//! structure around the items is walked here; every item goes through the same code as in
//! [`super::decode::decode_json`]. This is only the fast path: it gives up on an error, or on a
//! document whose shape it cannot be sure of, and the caller then decodes the text, which
//! errors point into.

use std::io::Read;

use serde::ser::{Serialize, Serializer};
use serde_json::value::RawValue;

use super::decode::{list_items, Builder, DecodeError};
use super::{Snapshot, API_VERSION};

/// Decodes a stream of JSON documents; `None` when anything failed (see the module docs).
pub(super) fn decode_reader(reader: impl Read) -> Option<Snapshot> {
    decode(Input::new(reader, CHUNK))
}

fn decode(mut input: Input<impl Read>) -> Option<Snapshot> {
    let mut builder = Builder::default();
    documents(&mut input, &mut builder).ok()?;
    let snapshot = builder.finish();
    // A snapshot the API server would have refused: the text decoder says where.
    super::validate::validate(&snapshot).ok()?;
    Some(snapshot)
}

/// Why the fast path stopped; the text decoder finds out again, and says where.
struct Stop;

impl From<std::io::Error> for Stop {
    fn from(_: std::io::Error) -> Self {
        Stop
    }
}

impl From<serde_json::Error> for Stop {
    fn from(_: serde_json::Error) -> Self {
        Stop
    }
}

impl From<DecodeError> for Stop {
    fn from(_: DecodeError) -> Self {
        Stop
    }
}

/// Top-level documents: objects (a List's items stream), arrays of them, or `null`.
fn documents(input: &mut Input<impl Read>, builder: &mut Builder) -> Result<(), Stop> {
    while let Some(next) = input.peek()? {
        match next {
            b'{' => object(input, builder)?,
            b'[' => array(input, |item| builder.add_json(item))?,
            b'n' => input.value(|null| if null.get() == "null" { Ok(()) } else { Err(Stop) })??,
            _ => return Err(Stop),
        }
    }
    Ok(())
}

/// Keeps every field's text but `items`, which streams while the object may be a List
/// (`kubectl get -o json` writes `kind` after `items`). The object as read decides then: a
/// List's items are in already; any other object is decoded from its fields' text.
fn object(input: &mut Input<impl Read>, builder: &mut Builder) -> Result<(), Stop> {
    input.expect(b'{')?;
    let mut fields: Vec<(String, Box<RawValue>)> = Vec::new();
    let mut streamed = false;
    while !input.close(b'}', fields.is_empty())? {
        let key: String = input.value(|key| serde_json::from_str(key.get()))??;
        input.expect(b':')?;
        let value = if key == "items" && may_be_list(&fields) && input.peek()? == Some(b'[') {
            array(input, |item| builder.add_json(item))?;
            streamed = true;
            RawValue::from_string("[]".to_owned())?
        } else {
            input.value(ToOwned::to_owned)?
        };
        fields.push((key, value));
    }
    let object = serde_json::value::to_raw_value(&Fields(&fields))?;
    if !streamed {
        builder.add_json(&object)?;
    } else if list_items(&object).is_none() {
        // The items went in as objects, which is right only for a List.
        return Err(Stop);
    }
    Ok(())
}

/// Hands each element of an array to `each` as soon as it is read.
fn array(input: &mut Input<impl Read>, mut each: impl FnMut(&RawValue) -> Result<(), DecodeError>) -> Result<(), Stop> {
    input.expect(b'[')?;
    let mut first = true;
    while !input.close(b']', first)? {
        input.value(&mut each)??;
        first = false;
    }
    Ok(())
}

/// Whether an object whose fields so far are `fields` may turn out to be a List: not one of
/// ours (our InstanceTypes document keeps its `items`), and no `kind` yet or a `…List` one.
fn may_be_list(fields: &[(String, Box<RawValue>)]) -> bool {
    let text = |name: &str| {
        let (_, value) = fields.iter().find(|(key, _)| key == name)?;
        serde_json::from_str::<String>(value.get()).ok()
    };
    text("apiVersion").as_deref() != Some(API_VERSION) && text("kind").is_none_or(|kind| kind.ends_with("List"))
}

/// An object's fields, written back as one JSON object in the order they were read.
struct Fields<'a>(&'a [(String, Box<RawValue>)]);

impl Serialize for Fields<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(self.0.iter().map(|(key, value)| (key, value)))
    }
}

/// How much is read at a time: large reads, and a value cut at the end of a chunk (parsed
/// again once the next one is in) once per this many bytes only.
const CHUNK: usize = 1 << 20;

/// The input, read a chunk at a time into a buffer that holds what is not consumed yet.
struct Input<R> {
    reader: R,
    chunk: usize,
    buffer: Vec<u8>,
    /// Where the unconsumed part of `buffer` starts.
    start: usize,
    exhausted: bool,
}

impl<R: Read> Input<R> {
    fn new(reader: R, chunk: usize) -> Self {
        Input { reader, chunk, buffer: Vec::new(), start: 0, exhausted: false }
    }

    /// The next byte after JSON whitespace (which is consumed); `None` at the end of the input.
    fn peek(&mut self) -> Result<Option<u8>, Stop> {
        loop {
            let rest = &self.buffer[self.start..];
            if let Some(at) = rest.iter().position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r')) {
                self.start += at;
                return Ok(Some(self.buffer[self.start]));
            }
            self.start = self.buffer.len();
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// Consumes `byte`, the next one after whitespace.
    fn expect(&mut self, byte: u8) -> Result<(), Stop> {
        if self.peek()? != Some(byte) {
            return Err(Stop);
        }
        self.start += 1;
        Ok(())
    }

    /// Whether the object or array ends here (consuming `close`); else consumes the comma
    /// before the next member, unless it is the `first`.
    fn close(&mut self, close: u8, first: bool) -> Result<bool, Stop> {
        if self.peek()? == Some(close) {
            self.start += 1;
            return Ok(true);
        }
        if !first {
            self.expect(b',')?;
        }
        Ok(false)
    }

    /// Parses the next JSON value and hands it to `f`, reading more input until it is whole.
    fn value<T>(&mut self, f: impl FnOnce(&RawValue) -> T) -> Result<T, Stop> {
        self.peek()?;
        loop {
            let rest = &self.buffer[self.start..];
            let mut values = serde_json::Deserializer::from_slice(rest).into_iter::<&RawValue>();
            match values.next() {
                // A number at the end of the buffer may go on in the next chunk.
                Some(Ok(value)) if values.byte_offset() < rest.len() || self.exhausted => {
                    let end = values.byte_offset();
                    let out = f(value);
                    self.start += end;
                    return Ok(out);
                }
                Some(Err(e)) if !e.is_eof() => return Err(Stop),
                _ => {}
            }
            if !self.fill()? {
                return Err(Stop);
            }
        }
    }

    /// Reads another chunk (or as much as is buffered, for a value larger than a chunk) after
    /// the unconsumed part; `false` at the end of the input.
    fn fill(&mut self) -> Result<bool, Stop> {
        if self.exhausted {
            return Ok(false);
        }
        self.buffer.drain(..self.start);
        self.start = 0;
        let want = self.buffer.len().max(self.chunk) as u64;
        let read = (&mut self.reader).take(want).read_to_end(&mut self.buffer)?;
        self.exhausted = read == 0;
        Ok(read > 0)
    }
}

#[cfg(test)]
mod tests {
    use super::{decode, decode_reader, Input};
    use crate::snapshot::Snapshot;

    const NODE: &str = r#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}"#;
    const POD: &str = r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"a"}}"#;

    /// The streamed snapshot, checked against the text decoder's.
    fn streamed(text: &str) -> Option<Snapshot> {
        let snapshot = decode_reader(text.as_bytes())?;
        assert_eq!(Snapshot::from_json(text).ok().as_ref(), Some(&snapshot), "{text}");
        Some(snapshot)
    }

    #[test]
    fn streams_lists_in_either_key_order_arrays_and_documents() {
        for text in [
            format!(r#"{{"apiVersion":"v1","kind":"List","items":[{NODE},{POD}]}}"#),
            format!(" {{ \"apiVersion\" : \"v1\", \"items\" : [ {NODE} ,\n{POD} ] , \"kind\":\"List\",\"metadata\":{{}}}}\n"),
            format!(r#"{{"items":[{NODE},{POD}],"kind":"NodeList"}}"#),
            format!("[{NODE}, {POD}]"),
            format!("{NODE}\n{POD}\nnull\n"),
            format!(r#"{{"apiVersion":"v1","kind":"List","items":[[{NODE}],{{"kind":"List","items":[{POD}]}}]}}"#),
        ] {
            let snapshot = streamed(&text).expect(&text);
            assert_eq!((snapshot.nodes.len(), snapshot.pods.len()), (1, 1), "{text}");
        }
    }

    #[test]
    fn objects_with_items_that_are_not_lists() {
        let types = r#"{"name":"m5.large","capacity":{"cpu":"2"}}"#;
        let ours =
            format!(r#"{{"apiVersion":"kubectl-consolidation/v1alpha1","kind":"InstanceTypes","items":[{types}]}}"#);
        assert_eq!(streamed(&format!("{NODE}{ours}")).unwrap().instance_types.len(), 1);
        // `kind` after `items`: the items were taken for objects, so the text decoder decides.
        let late = format!(r#"{{"apiVersion":"example.com/v1","items":[{NODE}],"kind":"Widget"}}"#);
        assert!(decode_reader(late.as_bytes()).is_none());
        assert!(Snapshot::from_json(&late).unwrap().nodes.is_empty());
        // A List's `items` may be null (no items); any other non-array is an error, located by
        // the text decoder.
        let null = format!(r#"{NODE}{{"kind":"List","items":null}}"#);
        assert_eq!(streamed(&null).unwrap().nodes.len(), 1);
        let odd = format!(r#"{NODE}{{"kind":"List","items":{{}}}}"#);
        assert!(decode_reader(odd.as_bytes()).is_none());
        assert!(Snapshot::from_json(&odd).unwrap_err().message.contains("invalid type"));
    }

    #[test]
    fn values_cut_anywhere_by_chunks() {
        let event = r#"{"apiVersion":"v1","kind":"Event","metadata":{"name":"e"},"count":1234567}"#;
        let text = format!(r#"{{"apiVersion":"v1","kind":"List","items":[{NODE},{POD}]}}{event} {event}"#);
        let whole = Snapshot::from_json(&text).unwrap();
        assert_eq!(whole.events[0].count, Some(1_234_567));
        for chunk in 1..=17 {
            assert_eq!(decode(Input::new(text.as_bytes(), chunk)).as_ref(), Some(&whole), "chunk {chunk}");
        }
    }

    #[test]
    fn gives_up_on_errors_and_values_it_does_not_read() {
        let bad = r#"{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"},"status":{"capacity":{"cpu":"lots"}}}]}"#;
        for text in [
            bad,
            "{\"kind\": ",
            "1",
            "\"x\"",
            "nul",
            r#"{"kind":"List","items":[{},]}"#,
            r#"{"a":1,}"#,
            r#"{"a":1 "b":2}"#,
            "{} x",
            "{},{}",
        ] {
            assert!(decode_reader(text.as_bytes()).is_none(), "{text}");
        }
    }
}
