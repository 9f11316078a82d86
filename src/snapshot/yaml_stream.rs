//! YAML decoded as it is parsed: each document goes to the snapshot's builder as soon as it is
//! read, and a List's items one at a time, so that a load holds the text and the snapshot but
//! never the whole stream as one tree of values (that tree was 3.3–3.7× JSON's peak memory).
//!
//! Every object goes through the same code as in [`super::decode::decode`], in the same order,
//! as the same `serde_json::Value`: serde-saphyr builds each item's value from the same events
//! with the same options, and only the mapping at the top of each document is walked here, the
//! way `Value`'s own visitor walks it. Like the JSON reader ([`super::stream`]), this is only
//! the fast path: it gives up on a document whose shape it cannot be sure of (a List whose
//! `kind` turns out, after its items went in, not to be a List; anything at the top that is not
//! a mapping), and on any error of the parser; the caller then parses the stream whole, as
//! before, and every diagnostic is the one it always was. An object that fails to decode is
//! kept as the answer, and the rest of the stream is still parsed: a syntax error further on
//! takes precedence, as it does when the whole stream is parsed first.
//!
//! serde-saphyr hands each document of a stream to a `Deserialize` impl, which takes no state;
//! the builder those documents go into is lent to them through a thread-local slot for the
//! length of one [`decode_text`] call.

use std::cell::RefCell;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use super::decode::{is_list, Builder, DecodeError};
use super::{Snapshot, API_VERSION};

/// Decodes a YAML stream parsed with `options`. `None`: the fast path gave up (see the module
/// docs); `Some` is the answer the whole-stream decoder gives, the snapshot or its first error.
pub(super) fn decode_text(text: &str, options: serde_saphyr::Options) -> Option<Result<Snapshot, DecodeError>> {
    let lent = Lent::new()?;
    let parsed = serde_saphyr::from_str_multiple_with_options::<Document, Vec<Document>>(text, options);
    let sink = lent.take()?;
    parsed.ok()?;
    Some(sink.finish())
}

/// What the documents of one stream went into.
#[derive(Default)]
pub(super) struct Sink {
    builder: Builder,
    /// The first object that failed to decode; later ones are parsed, not decoded.
    failed: Option<DecodeError>,
    /// Documents seen so far (serde-saphyr skips empty ones, as the whole-stream path does).
    pub(super) documents: usize,
}

impl Sink {
    pub(super) fn add(&mut self, value: Value, index: usize, item_path: &[usize]) {
        if self.failed.is_none() {
            self.failed = self.builder.add_value(value, index, item_path).err();
        }
    }

    /// The answer once the whole stream is read: the first object that failed, else the
    /// snapshot, validated.
    pub(super) fn finish(self) -> Result<Snapshot, DecodeError> {
        if let Some(failed) = self.failed {
            return Err(failed);
        }
        let snapshot = self.builder.finish();
        super::validate::validate(&snapshot).map(|()| snapshot)
    }
}

thread_local! {
    /// The sink of the [`decode_text`] call running on this thread, if any.
    static SINK: RefCell<Option<Sink>> = const { RefCell::new(None) };
}

/// A fresh [`Sink`] in [`SINK`] for as long as this lives; emptied when it is dropped.
struct Lent;

impl Lent {
    /// `None` if a sink is lent already (a call inside a call, which nothing makes).
    fn new() -> Option<Lent> {
        SINK.with(|slot| {
            let mut slot = slot.borrow_mut();
            if slot.is_some() {
                return None;
            }
            *slot = Some(Sink::default());
            Some(Lent)
        })
    }

    /// The sink back; `None` if a document kept it (it gave up with an error then).
    fn take(self) -> Option<Sink> {
        let sink = SINK.with(|slot| slot.borrow_mut().take());
        drop(self);
        sink
    }
}

impl Drop for Lent {
    fn drop(&mut self) {
        SINK.with(|slot| slot.borrow_mut().take());
    }
}

/// Why the walk gave up; only the fast path sees it.
const GIVE_UP: &str = "the streaming YAML reader does not read this shape";

/// One document of the stream, added to the lent sink while it is parsed.
struct Document;

impl<'de> de::Deserialize<'de> for Document {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Document, D::Error> {
        let Some(mut sink) = SINK.with(|slot| slot.borrow_mut().take()) else {
            return Err(de::Error::custom(GIVE_UP));
        };
        let index = sink.documents;
        sink.documents += 1;
        // As `Value` asks for it, so the parser takes the same path through the document.
        let walked = deserializer.deserialize_any(TopMapping { sink: &mut sink, index });
        SINK.with(|slot| *slot.borrow_mut() = Some(sink));
        walked.map(|()| Document)
    }
}

/// The mapping at the top of a document: its fields read as `Value`'s visitor reads them, but
/// a List's `items` handed to the sink one by one instead of kept.
struct TopMapping<'s> {
    sink: &'s mut Sink,
    index: usize,
}

impl<'de> Visitor<'de> for TopMapping<'_> {
    type Value = ();

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a mapping")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut fields = Map::new();
        let mut streamed = false;
        // `Value` reads its first key as a `str` and the others as `String`s: so do we.
        let mut next = map.next_key_seed(FirstKey)?;
        while let Some(key) = next {
            if key == "items" && may_be_list(&fields) {
                let items = ItemsOrValue { sink: &mut *self.sink, index: self.index };
                if let Some(value) = map.next_value_seed(items)? {
                    fields.insert(key, value);
                } else {
                    streamed = true;
                    fields.insert(key, Value::Array(Vec::new()));
                }
            } else {
                let value: Value = map.next_value()?;
                fields.insert(key, value);
            }
            next = map.next_key::<String>()?;
        }
        if !streamed {
            self.sink.add(Value::Object(fields), self.index, &[]);
        } else if !is_list(text(&fields, "apiVersion"), text(&fields, "kind")) {
            // The items went in as objects, which is right only for a List.
            return Err(de::Error::custom(GIVE_UP));
        }
        Ok(())
    }
}

/// Whether an object whose fields so far are `fields` may turn out to be a List: not one of
/// ours (our InstanceTypes document keeps its `items`), and no `kind` yet or a `…List` one.
pub(super) fn may_be_list(fields: &Map<String, Value>) -> bool {
    text(fields, "apiVersion") != API_VERSION
        && fields.get("kind").is_none_or(|_| text(fields, "kind").ends_with("List"))
}

/// A field's text, `""` when it is absent or no string (as the whole-stream decoder reads it).
pub(super) fn text<'f>(fields: &'f Map<String, Value>, name: &str) -> &'f str {
    fields.get(name).and_then(Value::as_str).unwrap_or_default()
}

/// The first key of the top mapping, read as `Value`'s visitor reads it (`deserialize_str`).
struct FirstKey;

/// The key `serde_json` (feature `raw_value`) reads as "the value is JSON text": `Value` then
/// parses the value, which is not a mapping any more; the whole-stream path decides that one.
pub(super) const RAW_VALUE_TOKEN: &str = "$serde_json::private::RawValue";

impl<'de> DeserializeSeed<'de> for FirstKey {
    type Value = String;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<String, D::Error> {
        deserializer.deserialize_str(self)
    }
}

impl Visitor<'_> for FirstKey {
    type Value = String;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a string key")
    }

    fn visit_str<E: de::Error>(self, key: &str) -> Result<String, E> {
        if key == RAW_VALUE_TOKEN {
            return Err(E::custom(GIVE_UP));
        }
        Ok(key.to_owned())
    }
}

/// A possible List's `items`: a sequence goes to the sink item by item (`None` back), a null
/// is kept as `Value` keeps it; anything else gives up.
struct ItemsOrValue<'s> {
    sink: &'s mut Sink,
    index: usize,
}

impl<'de> DeserializeSeed<'de> for ItemsOrValue<'_> {
    type Value = Option<Value>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Option<Value>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for ItemsOrValue<'_> {
    type Value = Option<Value>;

    fn expecting(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str("a sequence of objects")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<Value>, A::Error> {
        let mut position = 0;
        while let Some(item) = seq.next_element::<Value>()? {
            self.sink.add(item, self.index, &[position]);
            position += 1;
        }
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<Value>, E> {
        Ok(Some(Value::Null))
    }

    fn visit_none<E: de::Error>(self) -> Result<Option<Value>, E> {
        Ok(Some(Value::Null))
    }
}

#[cfg(test)]
mod tests {
    use super::decode_text;
    use crate::snapshot::yaml_options;
    use crate::snapshot::Snapshot;

    /// The streamed answer, checked against the whole-stream decoder's; `None` if it gave up.
    fn streamed(text: &str) -> Option<Result<Snapshot, crate::snapshot::DecodeError>> {
        let answer = decode_text(text, yaml_options(text))?;
        let documents = serde_saphyr::from_multiple_with_options::<serde_json::Value>(text, yaml_options(text));
        let whole = Snapshot::from_documents(documents.expect("the fast path parsed it, so does the whole path"));
        assert_eq!(answer, whole, "{text}");
        Some(answer)
    }

    const NODE: &str = "apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n";
    const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: a\n";

    fn indented(object: &str) -> String {
        let mut lines = object.lines();
        let first = lines.next().unwrap_or_default();
        std::iter::once(format!("- {first}\n")).chain(lines.map(|l| format!("  {l}\n"))).collect()
    }

    #[test]
    fn lists_in_either_key_order_typed_lists_nested_lists_and_documents() {
        let items = format!("{}{}", indented(NODE), indented(POD));
        for text in [
            format!("apiVersion: v1\nkind: List\nitems:\n{items}"),
            format!("apiVersion: v1\nitems:\n{items}kind: List\nmetadata:\n  resourceVersion: \"\"\n"),
            format!("items:\n{items}kind: NodeList\n"),
            format!("{NODE}---\n{POD}---\n"),
            format!("---\n{NODE}...\n---\n# only a comment\n---\n{POD}"),
            format!(
                "apiVersion: v1\nkind: List\nitems:\n{}- apiVersion: v1\n  kind: List\n  items:\n  - apiVersion: v1\n    kind: Pod\n    metadata: {{name: p, namespace: a}}\n",
                indented(NODE)
            ),
        ] {
            let snapshot = streamed(&text).expect(&text).expect(&text);
            assert_eq!((snapshot.nodes.len(), snapshot.pods.len()), (1, 1), "{text}");
        }
    }

    #[test]
    fn objects_with_items_that_are_not_lists() {
        let ours = "apiVersion: kubectl-consolidation/v1alpha1\nkind: InstanceTypes\nitems:\n- name: m5.large\n  capacity: {cpu: \"2\"}\n";
        assert_eq!(streamed(&format!("{NODE}---\n{ours}")).unwrap().unwrap().instance_types.len(), 1);
        // `kind` after `items`: the items went in as objects, so the whole-stream path decides.
        let late = format!("apiVersion: example.com/v1\nitems:\n{}kind: Widget\n", indented(NODE));
        assert!(decode_text(&late, yaml_options(&late)).is_none());
        // `kind` before `items`, or `items` null: one object, of a kind skipped.
        for text in [
            format!("{NODE}---\napiVersion: example.com/v1\nkind: Widget\nitems:\n{}", indented(NODE)),
            format!("{NODE}---\nkind: List\nitems: null\n"),
            format!("{NODE}---\nkind: List\nitems: {{}}\n"),
        ] {
            if let Some(answer) = streamed(&text) {
                assert_eq!(answer.unwrap().nodes.len(), 1, "{text}");
            }
        }
    }

    #[test]
    fn anchors_across_items_and_merge_keys() {
        let text = "apiVersion: v1\nkind: List\nitems:\n- &node\n  apiVersion: v1\n  kind: Node\n  metadata:\n    name: a\n    labels: &labels {zone: z1}\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: b\n    labels: *labels\n- <<: *node\n  metadata: {name: c}\n";
        let snapshot = streamed(text).unwrap().unwrap();
        let names: Vec<_> = snapshot.nodes.iter().map(|n| n.metadata.name.as_str()).collect();
        assert_eq!(names, ["a", "b", "c"]);
    }

    #[test]
    fn the_first_failing_object_is_the_answer_unless_the_parser_fails_later() {
        let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: a\nspec:\n  containers:\n  - name: c\n    resources: {requests: {cpu: lots}}\n";
        let list = format!("apiVersion: v1\nkind: List\nitems:\n{}{}", indented(NODE), indented(pod));
        let error = streamed(&list).unwrap().unwrap_err();
        assert_eq!(error.field, "spec.containers[0].resources.requests.cpu");
        assert_eq!(error.document.item_path, [1]);
        let bad = format!("{NODE}---\n{pod}");
        assert!(streamed(&bad).unwrap().is_err());
        // Broken YAML after the failing object: the parser's error, from the whole path.
        assert!(decode_text(&format!("{bad}---\na: [b\n"), yaml_options(&bad)).is_none());
        // Two SnapshotInfo documents, a duplicate key, a top-level sequence, a scalar.
        let info = "apiVersion: kubectl-consolidation/v1alpha1\nkind: SnapshotInfo\n";
        assert!(streamed(&format!("{NODE}---\n{info}---\n{info}")).unwrap().is_err());
        assert!(decode_text(&format!("{NODE}  name: m\n"), yaml_options(NODE)).is_none());
        assert!(decode_text(&format!("{NODE}---\n- {NODE}"), yaml_options(NODE)).is_none());
        assert!(decode_text(&format!("{NODE}---\nhello\n"), yaml_options(NODE)).is_none());
    }
}
