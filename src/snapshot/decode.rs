//! Documents → [`Snapshot`]: flatten Lists, dispatch on `apiVersion` + `kind`, keep what we read.

use std::cmp::Ordering;

use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::Value;

use super::{InstanceType, Snapshot, SnapshotInfo, API_VERSION};

pub use super::decode_error::{DecodeError, Document};

/// Decodes every document into one snapshot.
pub(super) fn decode(documents: Vec<Value>) -> Result<Snapshot, DecodeError> {
    let mut objects = Vec::new();
    for (index, document) in documents.into_iter().enumerate() {
        flatten(document, index, &mut objects);
    }
    assemble(objects)
}

/// Decodes JSON text without building a `serde_json::Value` per object: each object is
/// deserialised straight from its slice of the text, which is several times faster on
/// snapshots of 100,000 pods and lets errors point at the exact byte.
pub(super) fn decode_json(text: &str) -> Result<Snapshot, DecodeError> {
    let mut objects = Vec::new();
    for (index, document) in serde_json::Deserializer::from_str(text).into_iter::<&RawValue>().enumerate() {
        let document = document.map_err(|e| DecodeError {
            document: Document { index, item_path: Vec::new() },
            kind: "document".into(),
            name: "<unnamed>".into(),
            field: String::new(),
            message: e.to_string(),
            help: "the file is not valid JSON".into(),
            offset: Some(offset_in(text, e.line(), e.column())),
        })?;
        flatten_raw(text, document, index, &mut objects)?;
    }
    assemble(objects)
}

fn assemble(objects: Vec<Flat<'_>>) -> Result<Snapshot, DecodeError> {
    let mut builder = Builder::default();
    for (location, object, head) in objects {
        match head {
            Some(head) => builder.add_headed(object, &head, &location)?,
            None => builder.add(object, &location)?,
        }
    }
    let snapshot = builder.finish();
    super::validate::validate(&snapshot)?;
    Ok(snapshot)
}

/// An object found while flattening Lists: where it was, the object, and its head when the
/// flattening read it already (JSON), so that it is not parsed twice.
type Flat<'t> = (Document, Object<'t>, Option<Head<'t>>);

/// How deep Lists (and JSON arrays) may nest around an object. `kubectl get -o json` writes one
/// level; nesting is walked with a stack of this size, never by recursion.
pub(super) const MAX_LIST_DEPTH: usize = 64;

/// Collects decoded objects into a snapshot, in the order they arrive.
#[derive(Default)]
pub(super) struct Builder {
    snapshot: Snapshot,
    /// Whether a `SnapshotInfo` set feature gates (else the controller's env decides them).
    explicit_gates: bool,
    /// Whether a `SnapshotInfo` was read (a second one is refused: two captures concatenated
    /// would otherwise silently take one's time and settings).
    info_read: bool,
}

impl Builder {
    fn add(&mut self, object: Object<'_>, at: &Document) -> Result<(), DecodeError> {
        if let Some(e) = wrong_head_type(&object, at) {
            return Err(e);
        }
        let head = object.head().map_err(|message| bad_head(&object, at, message))?;
        self.add_headed(object, &head, at)
    }

    fn add_headed(&mut self, object: Object<'_>, head: &Head<'_>, at: &Document) -> Result<(), DecodeError> {
        let info = head.kind == "SnapshotInfo" && head.api_version.starts_with("kubectl-consolidation");
        if info && std::mem::replace(&mut self.info_read, true) {
            return Err(error(
                head,
                at,
                "kind",
                "is one of two SnapshotInfo documents in the stream".to_owned(),
                "a snapshot has one SnapshotInfo (its capture time and settings): were two snapshots \
                 concatenated? keep one of them",
                object.offset(),
            ));
        }
        self.explicit_gates |= add(&mut self.snapshot, object, head, at)?;
        Ok(())
    }

    /// Adds every object of one JSON value (an object, a List or an array, nested or not).
    /// Error locations are relative to `raw`, so they only say that it failed.
    pub(super) fn add_json(&mut self, raw: &RawValue) -> Result<(), DecodeError> {
        let at = Document { index: 0, item_path: Vec::new() };
        if raw.get().starts_with('{') {
            let object = Object::Raw { text: raw.get(), raw };
            let head = Head::of(raw).map_err(|e| bad_json_head(&object, &at, &e))?;
            if !head.is_list() {
                // The common case, one object: its head is read once, not again in `add`.
                return self.add_headed(object, &head, &at);
            }
        }
        let mut objects = Vec::new();
        flatten_raw(raw.get(), raw, 0, &mut objects)?;
        for (location, object, head) in objects {
            match head {
                Some(head) => self.add_headed(object, &head, &location)?,
                None => self.add(object, &location)?,
            }
        }
        Ok(())
    }

    /// Adds every object of one parsed YAML value (an object, or a List, nested or not) as
    /// [`decode`] adds it in its turn: item `item_path` of document `index`, for locations.
    pub(super) fn add_value(&mut self, value: Value, index: usize, item_path: &[usize]) -> Result<(), DecodeError> {
        let mut objects = Vec::new();
        flatten(value, index, &mut objects);
        for (mut at, object, _) in objects {
            at.item_path.splice(..0, item_path.iter().copied());
            self.add(object, &at)?;
        }
        Ok(())
    }

    /// Appends what `other` collected, as if its objects had been added here after ours.
    fn absorb(&mut self, other: Builder) {
        let (to, from) = (&mut self.snapshot, other.snapshot);
        for (k, v) in from.info.settings {
            to.info.settings.entry(k).or_insert(v);
        }
        if !from.instance_types.is_empty() {
            to.merge_instance_types(from.instance_types);
        }
        append(&mut to.nodes, from.nodes);
        append(&mut to.pods, from.pods);
        append(&mut to.pdbs, from.pdbs);
        append(&mut to.daemon_sets, from.daemon_sets);
        append(&mut to.replica_sets, from.replica_sets);
        append(&mut to.deployments, from.deployments);
        append(&mut to.stateful_sets, from.stateful_sets);
        append(&mut to.hpas, from.hpas);
        append(&mut to.pvcs, from.pvcs);
        append(&mut to.pvs, from.pvs);
        append(&mut to.storage_classes, from.storage_classes);
        append(&mut to.csi_nodes, from.csi_nodes);
        append(&mut to.events, from.events);
        append(&mut to.node_pools, from.node_pools);
        append(&mut to.node_claims, from.node_claims);
        append(&mut to.node_classes, from.node_classes);
        append(&mut to.capacity_buffers, from.capacity_buffers);
        append(&mut to.pod_templates, from.pod_templates);
        self.explicit_gates |= other.explicit_gates;
    }

    pub(super) fn finish(mut self) -> Snapshot {
        if !self.explicit_gates {
            if let Some(gates) = controller_feature_gates(&self.snapshot) {
                self.snapshot.info.feature_gates = gates;
            }
        }
        sort(&mut self.snapshot);
        self.snapshot
    }
}

/// The items of one kind's lists as an API server sends them (without `apiVersion` and
/// `kind`), decoded as each page arrives into the same model the file decoder builds: live
/// mode holds no generic JSON tree of the cluster. One per list, merged in a fixed order by
/// [`Snapshot::from_lists`](super::Snapshot::from_lists) so that the result does not depend
/// on which list finished first.
pub struct ListDecoder {
    api_version: String,
    kind: String,
    builder: Builder,
    /// The first object that failed; later ones are not decoded.
    failed: Option<DecodeError>,
}

impl ListDecoder {
    pub fn new(api_version: &str, kind: &str) -> ListDecoder {
        ListDecoder {
            api_version: api_version.to_owned(),
            kind: kind.to_owned(),
            builder: Builder::default(),
            failed: None,
        }
    }

    /// Decodes one listed item, as if it carried the list's `apiVersion` and `kind`.
    pub fn add(&mut self, item: &RawValue) {
        #[derive(Default, serde::Deserialize)]
        #[serde(default)]
        struct ItemHead {
            metadata: HeadMeta,
        }
        if self.failed.is_some() {
            return;
        }
        let at = Document { index: 0, item_path: Vec::new() };
        let object = Object::Raw { text: item.get(), raw: item };
        let added = match serde_json::from_str::<ItemHead>(item.get()) {
            Ok(head) => {
                let head = Head {
                    api_version: self.api_version.clone(),
                    kind: self.kind.clone(),
                    metadata: head.metadata,
                    items: None,
                };
                self.builder.add_headed(object, &head, &at)
            }
            Err(e) => Err(bad_json_head(&object, &at, &e)),
        };
        if let Err(e) = added {
            self.failed = Some(e);
        }
    }

    /// Forgets every item (the list restarts from its first page).
    pub fn clear(&mut self) {
        *self = ListDecoder::new(&self.api_version, &self.kind);
    }

    /// Builds the snapshot of every list, in the order given (what decoding their items one
    /// after the other as documents would build), validated like a file.
    pub(super) fn merge(lists: Vec<ListDecoder>) -> Result<Snapshot, DecodeError> {
        let mut merged = Builder::default();
        for list in lists {
            if let Some(e) = list.failed {
                return Err(e);
            }
            merged.absorb(list.builder);
        }
        let snapshot = merged.finish();
        super::validate::validate(&snapshot)?;
        Ok(snapshot)
    }
}

/// `to` followed by `from`; the vector itself moves when `to` is empty (one list per kind is
/// the common case), so 150,000 pods are not copied into a new buffer.
fn append<T>(to: &mut Vec<T>, mut from: Vec<T>) {
    if to.is_empty() {
        *to = from;
    } else {
        to.append(&mut from);
    }
}

/// One object to decode: a parsed value (YAML), or a slice of JSON text.
enum Object<'t> {
    Value(Value),
    Raw { text: &'t str, raw: &'t RawValue },
}

/// What is read of every object before it is decoded.
#[derive(Default, serde::Deserialize)]
#[serde(default, rename_all = "camelCase")]
struct Head<'t> {
    api_version: String,
    kind: String,
    metadata: HeadMeta,
    #[serde(borrow)]
    items: Option<Vec<&'t RawValue>>,
}

#[derive(Default, serde::Deserialize)]
#[serde(default)]
struct HeadMeta {
    name: String,
    namespace: Option<String>,
}

impl<'t> Head<'t> {
    /// The head of a JSON object; an error for a value that is no object, a field of the wrong
    /// type, or a key given twice (`{"name":"a","name":"b"}`: which is meant?).
    fn of(raw: &'t RawValue) -> Result<Head<'t>, serde_json::Error> {
        serde_json::from_str(raw.get())
    }

    fn is_list(&self) -> bool {
        self.items.is_some() && is_list(&self.api_version, &self.kind)
    }
}

impl<'t> Object<'t> {
    fn head(&self) -> Result<Head<'t>, String> {
        match self {
            Object::Value(v) if !v.is_object() => Err("is not an object".to_owned()),
            Object::Value(v) => {
                let text = |p: &str| v.pointer(p).and_then(Value::as_str).map(str::to_owned);
                Ok(Head {
                    api_version: text("/apiVersion").unwrap_or_default(),
                    kind: text("/kind").unwrap_or_default(),
                    metadata: HeadMeta {
                        name: text("/metadata/name").unwrap_or_default(),
                        namespace: text("/metadata/namespace"),
                    },
                    items: None,
                })
            }
            Object::Raw { raw, .. } => Head::of(raw).map_err(|e| without_position(&e.to_string())),
        }
    }

    /// Where the object starts in the text, when it is a slice of it.
    fn offset(&self) -> Option<usize> {
        match self {
            Object::Value(_) => None,
            Object::Raw { text, raw } => Some(raw.get().as_ptr() as usize - text.as_ptr() as usize),
        }
    }

    /// Deserialises the object (or its `items` for our InstanceTypes document).
    fn decode<T: DeserializeOwned>(self, items: bool) -> Result<T, (String, String, Option<usize>)> {
        // A list's field path starts at its `items` (`items[1].offerings[0].price`): the place
        // is found in the text by that path, and `[1]` alone would name the first item's field.
        let within = |path: String| if items { format!("items{path}") } else { path };
        match self {
            Object::Value(mut v) => {
                let v = if items { v.get_mut("items").map_or(Value::Array(Vec::new()), Value::take) } else { v };
                serde_path_to_error::deserialize(v)
                    .map_err(|e| (within(e.path().to_string()), e.inner().to_string(), None))
            }
            Object::Raw { text, raw } => {
                let start = raw.get().as_ptr() as usize - text.as_ptr() as usize;
                let failed = |path: String, e: &serde_json::Error, base: &str| {
                    let local = offset_in(base, e.line(), e.column());
                    let at = base.as_ptr() as usize - text.as_ptr() as usize + local;
                    (path, without_position(&e.to_string()), Some(at.max(start)))
                };
                let json = if items {
                    #[derive(serde::Deserialize)]
                    struct Items<'a> {
                        #[serde(borrow)]
                        items: Option<&'a RawValue>,
                    }
                    serde_json::from_str::<Items<'_>>(raw.get())
                        .map_err(|e| failed(String::new(), &e, raw.get()))?
                        .items
                        .map_or("[]", RawValue::get)
                } else {
                    raw.get()
                };
                // Tracking the field path costs an eighth of a load: only an error needs it, so
                // decode plainly and decode again with tracking once something has failed.
                T::deserialize(&mut serde_json::Deserializer::from_str(json)).or_else(|_| {
                    serde_path_to_error::deserialize(&mut serde_json::Deserializer::from_str(json))
                        .map_err(|e| failed(within(e.path().to_string()), e.inner(), json))
                })
            }
        }
    }
}

/// serde_json's message without its ` at line L column C`, which counts within the object's own
/// text: the diagnostic gives the place in the file.
fn without_position(message: &str) -> String {
    message.rsplit_once(" at line ").map_or(message, |(text, _)| text).to_owned()
}

/// Byte offset of a 1-based line and column in `text`.
fn offset_in(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize = text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum();
    let mut at = (line_start + column.saturating_sub(1)).min(text.len());
    // serde_json counts bytes, but may stop inside a character it rejects.
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

pub(super) fn is_list(api_version: &str, kind: &str) -> bool {
    (kind == "List" || kind.ends_with("List")) && api_version != API_VERSION
}

/// Walks YAML Lists down to their objects with an explicit stack (the YAML parser already
/// bounds nesting, see the file reader's `MAX_DEPTH`; the stack keeps this walk flat anyway).
fn flatten(value: Value, index: usize, out: &mut Vec<Flat<'_>>) {
    let mut stack: Vec<(std::vec::IntoIter<Value>, usize)> = Vec::new();
    let mut next = Some(value);
    loop {
        if let Some(value) = next.take() {
            let list = is_list(
                value.get("apiVersion").and_then(Value::as_str).unwrap_or_default(),
                value.get("kind").and_then(Value::as_str).unwrap_or_default(),
            ) && value.get("items").is_some_and(Value::is_array);
            if list {
                if let Value::Object(mut map) = value {
                    if let Some(Value::Array(items)) = map.remove("items") {
                        stack.push((items.into_iter(), 0));
                    }
                }
            } else if !value.is_null() {
                let at = Document { index, item_path: stack.iter().map(|(_, i)| i - 1).collect() };
                out.push((at, Object::Value(value), None));
            }
        }
        let Some((items, position)) = stack.last_mut() else { return };
        match items.next() {
            Some(item) => {
                *position += 1;
                next = Some(item);
            }
            None => {
                stack.pop();
            }
        }
    }
}

/// Walks JSON Lists and arrays down to their objects with an explicit stack (a file of 30,000
/// `[` must not overflow ours), refusing nesting deeper than [`MAX_LIST_DEPTH`].
///
/// The nesting is first bounded over the text in one pass ([`super::nesting`]): slicing a List's
/// items reads the whole of each, so without it Lists inside Lists cost their depth times the
/// file before the walk below reaches its own bound.
fn flatten_raw<'t>(text: &'t str, raw: &'t RawValue, index: usize, out: &mut Vec<Flat<'t>>) -> Result<(), DecodeError> {
    if let Some(at) = super::nesting::too_deep(raw.get()) {
        return Err(too_deep(text, raw, at, index));
    }
    // Each frame: the items of one List or array still to visit, and the index of the next.
    let mut stack: Vec<(std::vec::IntoIter<&'t RawValue>, usize)> = Vec::new();
    let mut next = Some(raw);
    loop {
        if let Some(value) = next.take() {
            let at = || Document { index, item_path: stack.iter().map(|(_, i)| i - 1).collect() };
            let items = match value.get().as_bytes().first() {
                Some(b'[') => Some(
                    serde_json::from_str::<Vec<&RawValue>>(value.get())
                        .map_err(|e| raw_error(text, value, &at(), "is not a JSON array of objects", &e.to_string()))?,
                ),
                _ if value.get() == "null" => None,
                Some(b'{') => {
                    let object = Object::Raw { text, raw: value };
                    let head = Head::of(value).map_err(|e| bad_json_head(&object, &at(), &e))?;
                    if head.is_list() {
                        head.items
                    } else {
                        out.push((at(), object, Some(head)));
                        None
                    }
                }
                _ => return Err(bad_head(&Object::Raw { text, raw: value }, &at(), "is not an object".to_owned())),
            };
            if let Some(items) = items {
                if stack.len() >= MAX_LIST_DEPTH {
                    return Err(raw_error(
                        text,
                        value,
                        &at(),
                        &format!("Lists or arrays nested more than {MAX_LIST_DEPTH} deep"),
                        "",
                    ));
                }
                stack.push((items.into_iter(), 0));
            }
        }
        let Some((items, position)) = stack.last_mut() else { return Ok(()) };
        match items.next() {
            Some(item) => {
                *position += 1;
                next = Some(item);
            }
            None => {
                stack.pop();
            }
        }
    }
}

/// An error about a JSON value that is not an object we can read, located at its start.
/// A value nested past [`super::nesting::MAX_DEPTH`], `at` bytes into `raw`.
fn too_deep(text: &str, raw: &RawValue, at: usize, index: usize) -> DecodeError {
    DecodeError {
        document: Document { index, item_path: Vec::new() },
        kind: "document".into(),
        name: "<unnamed>".into(),
        field: String::new(),
        message: format!("nested more than {} levels deep", super::nesting::MAX_DEPTH),
        help: "Kubernetes objects nest a dozen levels; the file is not a snapshot".into(),
        offset: Some(raw.get().as_ptr() as usize - text.as_ptr() as usize + at),
    }
}

fn raw_error(text: &str, value: &RawValue, at: &Document, message: &str, detail: &str) -> DecodeError {
    let offset = value.get().as_ptr() as usize - text.as_ptr() as usize;
    let detail = without_position(detail);
    DecodeError {
        document: at.clone(),
        kind: "object".into(),
        name: "<unnamed>".into(),
        field: "items".into(),
        message: if detail.is_empty() { message.to_owned() } else { format!("{message}: {detail}") },
        help: "a snapshot is objects, Lists of objects, or arrays of them, as `kubectl get -o json` writes".into(),
        offset: Some(offset),
    }
}

/// `apiVersion`, `kind`, `metadata.name` or `metadata.namespace` given as something other
/// than a string (`name: 12345`): the field, its type and the object, not "has no name".
fn wrong_head_type(object: &Object<'_>, at: &Document) -> Option<DecodeError> {
    let parsed;
    let value = match object {
        Object::Value(v) => v,
        Object::Raw { raw, .. } => {
            parsed = serde_json::from_str::<Value>(raw.get()).ok()?;
            &parsed
        }
    };
    let (field, wrong) =
        ["/apiVersion", "/kind", "/metadata/name", "/metadata/namespace"].into_iter().find_map(|p| {
            let v = value.pointer(p)?;
            (!v.is_string() && !v.is_null()).then(|| (p[1..].replace('/', "."), v))
        })?;
    let what = match wrong {
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
        Value::Null | Value::String(_) => "a string",
    };
    let shown = crate::echo::capped(&wrong.to_string());
    let text = |p: &str| value.pointer(p).and_then(Value::as_str);
    // Named by the wrong value, so that the diagnostic finds `name: 12345` in the text.
    let name = match (field.as_str(), text("/metadata/namespace")) {
        ("metadata.name", Some(ns)) => format!("{ns}/{shown}"),
        ("metadata.name", None) => shown.clone(),
        _ => text("/metadata/name").unwrap_or("<unnamed>").to_owned(),
    };
    let offset = match object {
        Object::Value(_) => None,
        Object::Raw { text: whole, raw } => {
            let json = raw.get();
            let key = field.rsplit('.').next().unwrap_or_default();
            let from = if field.starts_with("metadata") { json.find("\"metadata\"").unwrap_or(0) } else { 0 };
            let at = json[from..].find(&format!("\"{key}\"")).map_or(0, |p| from + p);
            Some(raw.get().as_ptr() as usize - whole.as_ptr() as usize + at)
        }
    };
    Some(DecodeError {
        document: at.clone(),
        kind: text("/kind").unwrap_or("object").to_owned(),
        name,
        field: field.clone(),
        message: format!("is {what} (`{shown}`), not a string"),
        help: format!("Kubernetes requires `{field}` to be a string; quote it, e.g. `'{shown}'`"),
        offset,
    })
}

/// [`bad_head`] for JSON, pointing at the byte where serde_json stopped (the second key).
fn bad_json_head(object: &Object<'_>, at: &Document, e: &serde_json::Error) -> DecodeError {
    let mut error =
        wrong_head_type(object, at).unwrap_or_else(|| bad_head(object, at, without_position(&e.to_string())));
    error.offset = object.offset();
    if let (Object::Raw { text, raw }, Some(start)) = (object, error.offset) {
        let local = offset_in(raw.get(), e.line(), e.column());
        // serde_json stops after the key: step back to its opening quote.
        let upto = &raw.get()[..(local + 1).min(raw.get().len())];
        let key = upto.rfind('"').and_then(|end| upto[..end].rfind('"')).unwrap_or(local);
        error.offset = Some(start + key);
        debug_assert!(start + key <= text.len());
    }
    error
}

/// An object whose `apiVersion`, `kind` or `metadata` cannot be read.
fn bad_head(object: &Object<'_>, at: &Document, message: String) -> DecodeError {
    let help = if message.contains("duplicate field") {
        "a key appears twice in one object; kubectl's decoder would take the last silently, \
         which hides the other: keep one of them"
    } else {
        "every object needs `apiVersion`, `kind` and `metadata.name` as strings"
    };
    let field = message
        .strip_prefix("duplicate field `")
        .and_then(|rest| rest.split('`').next())
        .map_or_else(|| "(the object)".to_owned(), |key| format!("metadata.{key}"));
    DecodeError {
        document: at.clone(),
        kind: "object".into(),
        name: "<unnamed>".into(),
        field,
        message,
        help: help.into(),
        offset: object.offset(),
    }
}

/// The items of a JSON List object; `None` for any other value.
pub(super) fn list_items(raw: &RawValue) -> Option<Vec<&RawValue>> {
    let head = Head::of(raw).ok()?;
    if head.is_list() {
        head.items
    } else {
        None
    }
}

/// Adds one object. Returns whether it was a `SnapshotInfo` that set feature gates.
fn add(snapshot: &mut Snapshot, object: Object<'_>, head: &Head<'_>, at: &Document) -> Result<bool, DecodeError> {
    let (api_version, kind) = (head.api_version.as_str(), head.kind.as_str());
    if kind.is_empty() {
        return Err(error(
            head,
            at,
            "kind",
            "has no kind".to_owned(),
            "every object needs `apiVersion` and `kind`, as kubectl requires (`Object 'Kind' is missing`)",
            object.offset(),
        ));
    }
    let group = api_version.rsplit_once('/').map_or("", |(g, _)| g);
    match (group, kind) {
        ("", "Node") => snapshot.nodes.push(typed(object, at, head)?),
        ("", "Pod") => {
            let mut pod: super::Pod = typed(object, at, head)?;
            for c in pod.spec.containers.iter_mut().chain(pod.spec.init_containers.iter_mut()) {
                c.env = Vec::new();
            }
            pod.keep_resizing_statuses();
            snapshot.pods.push(pod);
        }
        ("", "PersistentVolumeClaim") => snapshot.pvcs.push(typed(object, at, head)?),
        ("", "PodTemplate") => {
            let mut template: super::PodTemplateObject = typed(object, at, head)?;
            // Env never decides a placement; a template's may hold secrets (as a pod's).
            for c in template.template.spec.containers.iter_mut().chain(&mut template.template.spec.init_containers) {
                c.env.clear();
            }
            snapshot.pod_templates.push(template);
        }
        ("autoscaling.x-k8s.io", "CapacityBuffer") => snapshot.capacity_buffers.push(typed(object, at, head)?),
        ("", "PersistentVolume") => snapshot.pvs.push(typed(object, at, head)?),
        ("", "Event") => snapshot.events.push(typed(object, at, head)?),
        ("policy", "PodDisruptionBudget") => snapshot.pdbs.push(typed(object, at, head)?),
        ("apps", "DaemonSet") => snapshot.daemon_sets.push(typed(object, at, head)?),
        ("apps", "ReplicaSet") => snapshot.replica_sets.push(lean_workload(typed(object, at, head)?)),
        ("apps", "StatefulSet") => snapshot.stateful_sets.push(lean_workload(typed(object, at, head)?)),
        ("apps", "Deployment") => {
            let controller: Option<super::controller::Deployment> = match &object {
                Object::Value(v) => serde_json::from_value(v.clone()).ok(),
                Object::Raw { raw, .. } => serde_json::from_str(raw.get()).ok(),
            };
            for (k, v) in controller.and_then(|c| c.settings()).into_iter().flatten() {
                snapshot.info.settings.entry(k).or_insert(v);
            }
            snapshot.deployments.push(lean_workload(typed(object, at, head)?));
        }
        ("autoscaling", "HorizontalPodAutoscaler") => snapshot.hpas.push(typed(object, at, head)?),
        ("storage.k8s.io", "StorageClass") => snapshot.storage_classes.push(typed(object, at, head)?),
        ("storage.k8s.io", "CSINode") => snapshot.csi_nodes.push(typed(object, at, head)?),
        ("karpenter.sh", "NodePool" | "NodeClaim") if api_version != "karpenter.sh/v1" => {
            return Err(error(
                head,
                at,
                "apiVersion",
                format!("apiVersion `{api_version}` is not supported"),
                "Karpenter >= 1.0 serves karpenter.sh/v1; capture the snapshot with \
                 `kubectl get nodepools.v1.karpenter.sh -o yaml` or upgrade Karpenter",
                object.offset(),
            ))
        }
        ("karpenter.sh", "NodePool") => snapshot.node_pools.push(typed(object, at, head)?),
        ("karpenter.sh", "NodeClaim") => snapshot.node_claims.push(typed(object, at, head)?),
        ("karpenter.k8s.aws", "EC2NodeClass") => snapshot.node_classes.push(typed(object, at, head)?),
        ("kubectl-consolidation", "SnapshotInfo") => {
            let mut info: SnapshotInfo = typed_unnamed(object, at, head, false)?;
            let explicit = !info.feature_gates.is_empty();
            // Settings a Deployment already gave stay unless this document sets them too.
            for (k, v) in std::mem::take(&mut snapshot.info.settings) {
                info.settings.entry(k).or_insert(v);
            }
            snapshot.info = info;
            return Ok(explicit);
        }
        ("kubectl-consolidation", "InstanceTypes") => {
            let types: Vec<InstanceType> = typed_unnamed(object, at, head, true)?;
            snapshot.merge_instance_types(types);
        }
        ("kubectl-consolidation", "DisruptionMetrics") => {
            let metrics: super::DisruptionMetrics = typed_unnamed(object, at, head, false)?;
            let mut all = snapshot.disruption_metrics.take().unwrap_or_default();
            all.samples.extend(metrics.samples);
            snapshot.disruption_metrics = Some(all);
        }
        _ => {}
    }
    Ok(false)
}

/// Only the Karpenter controller's `FEATURE_GATES` matters in a workload's template.
fn lean_workload(mut workload: super::Workload) -> super::Workload {
    let spec = &mut workload.spec.template.spec;
    let mut containers = std::mem::take(&mut spec.containers);
    *spec = super::PodSpec::default();
    containers.retain_mut(|c| {
        c.env.retain(|e| e.name == "FEATURE_GATES");
        c.ports.clear();
        c.resources = super::ContainerResources::default();
        c.env.shrink_to_fit();
        !c.env.is_empty()
    });
    containers.shrink_to_fit();
    spec.containers = containers;
    workload.spec.template.metadata = super::ObjectMeta::default();
    workload
}

/// Feature gates from a Karpenter controller Deployment's `FEATURE_GATES` env (`A=true,B=false`).
fn controller_feature_gates(snapshot: &Snapshot) -> Option<std::collections::BTreeMap<String, bool>> {
    let value = snapshot
        .deployments
        .iter()
        .flat_map(|d| &d.spec.template.spec.containers)
        .flat_map(|c| &c.env)
        .find(|e| e.name == "FEATURE_GATES")?
        .value
        .clone()?;
    Some(
        value
            .split(',')
            .filter_map(|pair| {
                let (k, v) = pair.split_once('=')?;
                Some((k.trim().to_owned(), v.trim().eq_ignore_ascii_case("true")))
            })
            .collect(),
    )
}

fn typed<T: DeserializeOwned>(object: Object<'_>, at: &Document, head: &Head<'_>) -> Result<T, DecodeError> {
    if head.metadata.name.is_empty() {
        return Err(error(
            head,
            at,
            "metadata.name",
            "has no metadata.name".to_owned(),
            "every object needs a name; was the document cut short?",
            object.offset(),
        ));
    }
    typed_unnamed(object, at, head, false)
}

fn typed_unnamed<T: DeserializeOwned>(
    object: Object<'_>,
    at: &Document,
    head: &Head<'_>,
    items: bool,
) -> Result<T, DecodeError> {
    // The names of a parsed list's items (a handful: the catalogue), read before decoding takes
    // the object, so that a failing `items[3].…` names its item and is found by that name.
    // (A raw JSON object's errors are placed by offset instead.)
    let names: Option<Vec<Option<String>>> = match &object {
        Object::Value(v) if items => v
            .get("items")
            .and_then(Value::as_array)
            .map(|list| list.iter().map(|item| item.get("name").and_then(Value::as_str).map(str::to_owned)).collect()),
        _ => None,
    };
    object.decode(items).map_err(|(field, message, offset)| {
        let item = field
            .strip_prefix("items[")
            .and_then(|rest| rest.split_once(']'))
            .and_then(|(i, _)| i.parse::<usize>().ok())
            .and_then(|i| names.as_ref()?.get(i).cloned().flatten());
        let help = if message.contains("quantity") {
            "quantities look like `500m`, `2`, `1.5Gi` or `1e3`"
        } else if message.contains("timestamp") || message.contains("RFC") {
            "timestamps are RFC 3339, e.g. `2026-11-29T10:00:00Z`"
        } else {
            "fix or remove that field; `kubectl get -o yaml` output always parses"
        };
        let mut e = error(head, at, &field, message, help, offset);
        if let Some(name) = item {
            e.name = name;
        }
        e
    })
}

fn error(
    head: &Head<'_>,
    at: &Document,
    field: &str,
    message: String,
    help: &str,
    offset: Option<usize>,
) -> DecodeError {
    let name = if head.metadata.name.is_empty() { "<unnamed>" } else { head.metadata.name.as_str() };
    let name = match &head.metadata.namespace {
        Some(ns) => format!("{ns}/{name}"),
        None => name.to_owned(),
    };
    DecodeError {
        document: at.clone(),
        kind: if head.kind.is_empty() { "object".to_owned() } else { head.kind.clone() },
        name,
        field: field.to_owned(),
        message,
        help: help.to_owned(),
        offset,
    }
}

/// Puts every collection in namespace/name order (events by time): the canonical order.
pub(super) fn sort(s: &mut Snapshot) {
    fn by_key<T>(items: &mut [T], meta: impl Fn(&T) -> &super::ObjectMeta) {
        sort_stable(items, |a, b| {
            let (a, b) = (meta(a), meta(b));
            (a.namespace(), &a.name).cmp(&(b.namespace(), &b.name))
        });
    }
    by_key(&mut s.nodes, |o| &o.metadata);
    by_key(&mut s.pods, |o| &o.metadata);
    by_key(&mut s.pdbs, |o| &o.metadata);
    by_key(&mut s.daemon_sets, |o| &o.metadata);
    by_key(&mut s.replica_sets, |o| &o.metadata);
    by_key(&mut s.deployments, |o| &o.metadata);
    by_key(&mut s.stateful_sets, |o| &o.metadata);
    by_key(&mut s.hpas, |o| &o.metadata);
    by_key(&mut s.pvcs, |o| &o.metadata);
    by_key(&mut s.pvs, |o| &o.metadata);
    by_key(&mut s.storage_classes, |o| &o.metadata);
    by_key(&mut s.csi_nodes, |o| &o.metadata);
    by_key(&mut s.node_pools, |o| &o.metadata);
    by_key(&mut s.node_claims, |o| &o.metadata);
    by_key(&mut s.node_classes, |o| &o.metadata);
    by_key(&mut s.capacity_buffers, |o| &o.metadata);
    by_key(&mut s.pod_templates, |o| &o.metadata);
    sort_stable(&mut s.events, |a, b| (a.seen_at(), &a.metadata.name).cmp(&(b.seen_at(), &b.metadata.name)));
    sort_stable(&mut s.instance_types, |a, b| a.name.cmp(&b.name));
    if let Some(m) = &mut s.disruption_metrics {
        m.sort();
    }
}

/// `slice::sort_by`'s order (stable: equal keys keep their arrival order) without its scratch
/// copy of half the slice, tens of megabytes for 150,000 pods at the peak of a load: sorts the
/// indices, then swaps the items into place.
fn sort_stable<T>(items: &mut [T], mut compare: impl FnMut(&T, &T) -> Ordering) {
    let mut order: Vec<usize> = (0..items.len()).collect();
    order.sort_by(|&a, &b| compare(&items[a], &items[b]));
    // Position `i` takes the item at `order[i]`; follow each cycle of the permutation once,
    // marking positions done by pointing them at themselves.
    for start in 0..items.len() {
        let mut at = start;
        loop {
            let from = order[at];
            order[at] = at;
            if from == start {
                break;
            }
            items.swap(at, from);
            at = from;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{decode_json, sort_stable, MAX_LIST_DEPTH};
    use crate::snapshot::MAX_DEPTH;

    /// A node wrapped in `depth` arrays.
    fn wrapped(depth: usize) -> String {
        let node = r#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}"#;
        format!("{}{node}{}", "[".repeat(depth), "]".repeat(depth))
    }

    #[test]
    fn arrays_within_the_text_bound_meet_the_list_bound() {
        let depth = MAX_LIST_DEPTH + 10;
        assert!(depth + 2 < MAX_DEPTH, "the case must stay under the text's bound");
        let error = decode_json(&wrapped(depth)).unwrap_err();
        assert!(error.message.contains("nested more than 64 deep"), "{}", error.message);
    }

    #[test]
    fn nesting_past_the_text_bound_is_refused_where_it_goes_too_deep() {
        let text = wrapped(MAX_DEPTH + 1);
        let error = decode_json(&text).unwrap_err();
        assert!(error.message.contains("nested more than 128 levels deep"), "{}", error.message);
        assert_eq!(error.offset, Some(MAX_DEPTH));
    }

    #[test]
    fn sort_stable_matches_sort_by() {
        let mut seed = 7_u64;
        for len in [0, 1, 2, 3, 10, 257] {
            let items: Vec<(u64, usize)> = (0..len)
                .map(|i| {
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    (seed >> 61, i)
                })
                .collect();
            let (mut ours, mut std) = (items.clone(), items);
            sort_stable(&mut ours, |a, b| a.0.cmp(&b.0));
            std.sort_by_key(|a| a.0);
            assert_eq!(ours, std, "len {len}");
        }
    }
}
