//! Snapshot files: YAML or JSON, one object, a `List` (nested too) or a multi-document stream,
//! from a path or stdin. Errors point at the file, line and column, object and field.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek};
use std::path::Path;

use miette::SourceSpan;
use serde_json::Value;

use super::window::SourceWindow;
use crate::error::Error;
use crate::snapshot::{yaml_options, DecodeError, Snapshot, REPLAY_FACTOR};

/// The default of `--max-input-size`: four times the largest snapshot measured (150,000 pods,
/// 265 MiB of JSON), and small enough that `/dev/zero` ends in an error, not in the OOM killer.
pub const DEFAULT_MAX_INPUT_BYTES: u64 = 1 << 30;

/// [`read_path_limited`] with the default size limit.
pub fn read_path(path: &Path) -> Result<Snapshot, Error> {
    read_path_limited(path, DEFAULT_MAX_INPUT_BYTES)
}

/// Reads a snapshot from a path, or stdin for `-`, refusing more than `max_bytes` (`0`: no
/// limit). The path is opened once. A regular JSON file is decoded as it is read, without
/// holding its text; only an error has it read again, whole, for the diagnostic to point into.
/// Anything else (stdin, a pipe, `<(…)`, a FIFO, a device) can be read only once: it is read
/// whole, up to the limit, and decoded from memory.
pub fn read_path_limited(path: &Path, max_bytes: u64) -> Result<Snapshot, Error> {
    let io = |source| Error::Io { path: path.to_owned(), source };
    let limit = if max_bytes == 0 { u64::MAX } else { max_bytes };
    if path.as_os_str() == "-" {
        return read_stream(std::io::stdin().lock(), "<stdin>", limit).map_err(io)?;
    }
    let name = path.display().to_string();
    let mut file = File::open(path).map_err(io)?;
    let metadata = file.metadata().map_err(io)?;
    if !metadata.is_file() {
        return read_stream(file, &name, limit).map_err(io)?;
    }
    if metadata.len() > limit {
        return Err(too_large(&name, limit));
    }
    let mut reader = BufReader::new(file.try_clone().map_err(io)?);
    if starts_json(&mut reader).map_err(io)? {
        if let Some(snapshot) = Snapshot::from_json_reader(reader) {
            return non_empty(snapshot, &name);
        }
    }
    // YAML, or JSON that did not decode: read the text, which diagnostics point into. The
    // clone shares the file offset, so rewind the handle that was opened, not the path.
    file.rewind().map_err(io)?;
    match read_all(file, &name, limit, metadata.len()) {
        Ok(result) => result,
        Err(e) => Err(io(e)),
    }
}

/// Reads a stream that cannot be rewound, once and whole, up to `limit` bytes.
fn read_stream(reader: impl Read, name: &str, limit: u64) -> std::io::Result<Result<Snapshot, Error>> {
    read_all(reader, name, limit, 0)
}

/// Reads `reader` whole, up to `limit` bytes, and decodes it. `size` is what the file says it
/// holds (0 for a stream): memory for it is reserved at once, fallibly, so a file the system
/// cannot hold is an [`Error::OutOfMemory`], not an abort.
fn read_all(mut reader: impl Read, name: &str, limit: u64, size: u64) -> std::io::Result<Result<Snapshot, Error>> {
    // A first look, so that `/dev/zero` or a binary is refused before the limit is read.
    let mut bytes = Vec::new();
    if let Err(error) = reserve(&mut bytes, limit.min(1 << 16), name) {
        return Ok(Err(error));
    }
    (&mut reader).take(limit.min(1 << 16)).read_to_end(&mut bytes)?;
    if let Some(error) = binary(&bytes, name) {
        return Ok(Err(error));
    }
    let rest = size.min(limit).saturating_sub(bytes.len() as u64);
    if let Err(error) = reserve(&mut bytes, rest, name) {
        return Ok(Err(error));
    }
    // `read_to_end` grows the buffer fallibly too: it says `OutOfMemory` when it cannot.
    match reader.take(limit.saturating_add(1) - bytes.len() as u64).read_to_end(&mut bytes) {
        Err(e) if e.kind() == std::io::ErrorKind::OutOfMemory => {
            return Ok(Err(out_of_memory(name, (bytes.len() as u64).saturating_mul(2))));
        }
        read => read?,
    };
    if bytes.len() as u64 > limit {
        return Ok(Err(too_large(name, limit)));
    }
    Ok(read_bytes(bytes, name))
}

/// Reserves room for `more` bytes, or says the system has not that much memory to give.
fn reserve(bytes: &mut Vec<u8>, more: u64, name: &str) -> Result<(), Error> {
    let wanted = bytes.len() as u64 + more;
    match usize::try_from(more) {
        Ok(more) if bytes.try_reserve_exact(more).is_ok() => Ok(()),
        _ => Err(out_of_memory(name, wanted)),
    }
}

fn out_of_memory(name: &str, bytes: u64) -> Error {
    Error::OutOfMemory { path: name.to_owned(), bytes }
}

/// Two NUL bytes in a row: no YAML, JSON or UTF-16 text has them.
fn binary(bytes: &[u8], name: &str) -> Option<Error> {
    let at = bytes.windows(2).position(|w| w == [0, 0])?;
    let lossy = String::from_utf8_lossy(&bytes[..at]);
    let (line, column) = line_column(&lossy, at);
    Some(Error::Encoding {
        path: name.to_owned(),
        line,
        column,
        message: "binary data (NUL bytes), not a YAML or JSON snapshot".to_owned(),
        help: "pass the file `kubectl get -o yaml` or `kubectl consolidation snapshot` wrote".to_owned(),
        src: SourceWindow::empty(name),
        span: None,
    })
}

fn too_large(name: &str, limit: u64) -> Error {
    let suggested = format!("{}Mi", (limit / (1 << 20)).saturating_mul(4).max(1));
    Error::TooLarge { path: name.to_owned(), limit, suggested }
}

/// Decodes the bytes as UTF-8 text (a UTF-8 byte-order mark is dropped, as kubectl's YAML and
/// JSON readers drop it), then parses it. UTF-16 and invalid UTF-8 are located errors.
pub fn read_bytes(mut bytes: Vec<u8>, name: &str) -> Result<Snapshot, Error> {
    if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        bytes.drain(..3);
    }
    if let Some(error) = binary(&bytes, name) {
        return Err(error);
    }
    if let Some(encoding) = utf16(&bytes) {
        return Err(Error::Encoding {
            path: name.to_owned(),
            line: 1,
            column: 1,
            message: format!("the file is {encoding}; snapshots are UTF-8"),
            help: format!("convert it: `iconv -f {encoding} -t UTF-8 {name} > snapshot.yaml`"),
            src: SourceWindow::empty(name),
            span: None,
        });
    }
    match String::from_utf8(bytes) {
        Ok(text) => read_text(&text, name),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let lossy = String::from_utf8_lossy(e.as_bytes());
            // The lossy text has the same bytes up to `at`, so the place is the same.
            let (line, column) = line_column(&lossy, at);
            Err(Error::Encoding {
                path: name.to_owned(),
                line,
                column,
                message: format!("invalid UTF-8 (byte 0x{:02X})", e.as_bytes()[at]),
                help: "Kubernetes objects are UTF-8; fix or remove the value there (a label or annotation \
                       copied from another encoding?)"
                    .to_owned(),
                src: SourceWindow::around(name, &lossy, at),
                span: Some(SourceSpan::from((at, 1))),
            })
        }
    }
}

/// `UTF-16LE` / `UTF-16BE` by the byte-order mark, or by the zero byte beside the first ASCII one.
fn utf16(bytes: &[u8]) -> Option<&'static str> {
    match bytes {
        [0xFF, 0xFE, ..] | [_, 0, _, 0, ..] if bytes[0] != 0 => Some("UTF-16LE"),
        [0xFE, 0xFF, ..] | [0, _, 0, _, ..] => Some("UTF-16BE"),
        _ => None,
    }
}

/// Parses snapshot text; `name` is used in diagnostics.
pub fn read_text(text: &str, name: &str) -> Result<Snapshot, Error> {
    let snapshot = if is_json(text) {
        match Snapshot::from_json(text) {
            Ok(snapshot) => snapshot,
            Err(_) if json_then_yaml(text) => {
                let documents = parse_documents(text, name)?;
                Snapshot::from_documents(documents).map_err(|e| locate(&e, text, name))?
            }
            Err(e) => return Err(locate(&e, text, name)),
        }
    } else {
        // Decoded as it is parsed; a stream it cannot read so is parsed whole, as before.
        let decoded = match Snapshot::from_yaml(text, yaml_options(text)) {
            Some(decoded) => decoded,
            None => Snapshot::from_documents(parse_documents(text, name)?),
        };
        decoded.map_err(|e| locate(&e, text, name))?
    };
    non_empty(snapshot, name)
}

fn non_empty(snapshot: Snapshot, name: &str) -> Result<Snapshot, Error> {
    if snapshot.nodes.is_empty() && snapshot.node_claims.is_empty() && snapshot.node_pools.is_empty() {
        return Err(Error::EmptySnapshot { path: name.to_owned() });
    }
    Ok(snapshot)
}

/// Whether the reader's first byte after JSON's blanks (which it skips) is `{` or `[`: then
/// [`is_json`] says the same of the text, whose other blanks JSON does not allow anyway.
fn starts_json(reader: &mut impl BufRead) -> std::io::Result<bool> {
    loop {
        let buffer = reader.fill_buf()?;
        if buffer.is_empty() {
            return Ok(false);
        }
        if let Some(first) = buffer.iter().position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r')) {
            let json = matches!(buffer[first], b'{' | b'[');
            reader.consume(first);
            return Ok(json);
        }
        let blanks = buffer.len();
        reader.consume(blanks);
    }
}

/// JSON when the first non-space character is `{` or `[`.
fn is_json(text: &str) -> bool {
    matches!(text.trim_start().as_bytes().first(), Some(b'{' | b'['))
}

/// Splits the text into documents: JSON when it starts with `{` or `[`, else YAML.
pub fn parse_documents(text: &str, name: &str) -> Result<Vec<Value>, Error> {
    if is_json(text) {
        let mut documents = Vec::new();
        let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
        loop {
            let parsed_to = stream.byte_offset();
            match stream.next() {
                None => return Ok(documents),
                Some(Ok(Value::Array(items))) => documents.extend(items),
                Some(Ok(value)) => documents.push(value),
                // JSON documents, then YAML ones (`---`): the rest is read as YAML, as
                // Kubernetes' YAML-or-JSON decoder does.
                Some(Err(_)) if yaml_follows(&text[parsed_to..]) => {
                    documents.extend(parse_yaml(text, parsed_to, name)?);
                    return Ok(documents);
                }
                Some(Err(e)) => {
                    let offset = offset_of(text, e.line(), e.column());
                    return Err(syntax(text, name, e.to_string(), Some(offset)));
                }
            }
        }
    }
    parse_yaml(text, 0, name)
}

/// Whether the text is JSON documents followed by YAML ones: the JSON stream stops at `---`.
fn json_then_yaml(text: &str) -> bool {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<serde::de::IgnoredAny>();
    loop {
        let parsed_to = stream.byte_offset();
        match stream.next() {
            None => return false,
            Some(Ok(_)) => {}
            Some(Err(_)) => return parsed_to > 0 && yaml_follows(&text[parsed_to..]),
        }
    }
}

/// Whether `rest`, what follows a complete JSON document, starts a YAML document (`---`).
fn yaml_follows(rest: &str) -> bool {
    let rest = rest.trim_start();
    rest.starts_with("---") || rest.starts_with("%YAML")
}

/// Parses `full[from..]` as a YAML stream; errors point into `full`.
fn parse_yaml(full: &str, from: usize, name: &str) -> Result<Vec<Value>, Error> {
    let text = &full[from..];
    serde_saphyr::from_multiple_with_options::<Value>(text, yaml_options(text)).map_err(|e| {
        let offset = e.location().map(|l| from + offset_of_char(text, l.line() as usize, l.column() as usize));
        let message = e.to_string();
        let (message, help) = yaml_message(&message);
        let mut error = syntax(full, name, message, offset);
        if let (Some(help), Error::Syntax { help: h, .. }) = (help, &mut error) {
            help.clone_into(h);
        }
        error
    })
}

/// How deep objects and lists may nest in a snapshot (the JSON reader's bound too).
pub use crate::snapshot::MAX_DEPTH;

/// The first line of a YAML error, without the library's own wording where we know better, and
/// the help that fits it.
fn yaml_message(full: &str) -> (String, Option<&'static str>) {
    let first = full.lines().next().unwrap_or_default().trim();
    let lower = first.to_ascii_lowercase();
    if lower.contains("unknown anchor") {
        return (
            "an alias (`*name`) refers to an anchor (`&name`) this document does not define".to_owned(),
            Some("anchors hold within one document, not across `---` (kubectl refuses it too); define the anchor in the same document, or expand it: `yq 'explode(.)' file.yaml`"),
        );
    }
    if lower.contains("alias") || lower.contains("replay") {
        return (
            format!("YAML aliases (`*name`) expand to more than {REPLAY_FACTOR} times the input"),
            Some("kubectl never writes aliases; expand them first, e.g. `yq 'explode(.)' file.yaml`"),
        );
    }
    if lower.contains("depth") || lower.contains("nesting") {
        return (
            format!("nested more than {MAX_DEPTH} levels deep"),
            Some("Kubernetes objects nest a dozen levels; the file is not a snapshot"),
        );
    }
    if lower.contains("duplicate") {
        return (first.to_owned(), Some("a key appears twice in one mapping; keep one of them"));
    }
    (first.to_owned(), None)
}

fn syntax(text: &str, name: &str, message: String, offset: Option<usize>) -> Error {
    Error::Syntax {
        path: name.to_owned(),
        message,
        help: if is_json(text) {
            "check the JSON near the marked place (a comma, quote or bracket?); `kubectl get -o json` output always parses"
        } else {
            "check the indentation and quoting near the marked place; `kubectl get -o yaml` output always parses"
        }
        .to_owned(),
        src: offset.map_or_else(|| SourceWindow::empty(name), |o| SourceWindow::around(name, text, o)),
        span: offset.map(|o| SourceSpan::from((o, 1))),
    }
}

/// Maps a decode error to a diagnostic with the best location we can find in the text.
pub(crate) fn locate(e: &DecodeError, text: &str, name: &str) -> Error {
    if e.kind == "document" {
        let offset = e.offset;
        return syntax(text, name, e.message.clone(), offset);
    }
    let offset = e.offset.or_else(|| find_field(text, e));
    let (line, column) = offset.map_or((0, 0), |o| line_column(text, o));
    Error::Object {
        path: name.to_owned(),
        line,
        column,
        kind: e.kind.clone(),
        name: e.name.clone(),
        field: e.field.clone(),
        message: e.message.clone(),
        help: e.help.clone(),
        src: offset.map_or_else(|| SourceWindow::empty(name), |o| SourceWindow::around(name, text, o)),
        span: offset.map(|o| SourceSpan::from((o, 1))),
    }
}

/// Finds the failing field: first the object (`kind: X` then its `name:`), then each key of
/// the field path in order after it. Falls back to the object, then to nothing.
fn find_field(text: &str, e: &DecodeError) -> Option<usize> {
    let object_name = e.name.rsplit('/').next().unwrap_or_default();
    // Every place an object of this kind starts (`kind: Node`, not `kind: NodeClaim`), in order.
    let kinds = value_places(text, "kind", &e.kind);
    let mut found_object = None;
    for (i, &pos) in kinds.iter().enumerate() {
        let next = kinds.get(i + 1).copied().unwrap_or(text.len());
        if object_name == "<unnamed>" || name_in(&text[pos..next], object_name).is_some() {
            found_object = Some(pos);
            break;
        }
    }
    let object = found_object.or_else(|| name_in(text, object_name))?;
    let end = text[object + 1..].find("\n---").map_or(text.len(), |p| p + object + 1);
    // An item found by its own name (`items[1].offerings…` of an InstanceTypes document) is
    // searched from there: its `items` key lies before it.
    let field =
        e.field.strip_prefix("items[").and_then(|rest| rest.split_once("].")).map_or(e.field.as_str(), |(_, f)| f);
    let mut keys: Vec<&str> =
        field.split('.').flat_map(|s| s.split('[')).filter(|s| !s.is_empty() && !s.ends_with(']')).collect();
    if e.message.starts_with("has no") {
        keys.pop();
    }
    // Start from the object's name: past `metadata` in kubectl's output, and the item itself
    // when the object is one entry of a document (an InstanceTypes item).
    let named_at = name_in(&text[object..end], object_name);
    if e.field == "metadata.name" {
        return Some(object + named_at.unwrap_or(0));
    }
    let past_name = if e.field.starts_with("metadata") { None } else { named_at };
    let mut cursor = object + past_name.unwrap_or(0);
    for key in keys {
        let window = &text[cursor..end];
        let yaml = window.find(&format!("{key}:"));
        let json = window.find(&format!("\"{key}\""));
        match yaml.into_iter().chain(json).min() {
            Some(p) => cursor += p,
            None => break,
        }
    }
    Some(cursor)
}

/// Where `key: VALUE` (YAML, plain or quoted) or `"key":"VALUE"` (JSON, compact or not) sits
/// in `text`, the whole value only, in order.
fn value_places(text: &str, key: &str, value: &str) -> Vec<usize> {
    let needles = [
        format!("{key}: {value}"),
        format!("{key}: '{value}'"),
        format!("{key}: \"{value}\""),
        format!("\"{key}\":\"{value}\""),
        format!("\"{key}\": \"{value}\""),
    ];
    let mut places: Vec<usize> = needles
        .iter()
        .enumerate()
        .flat_map(|(i, needle)| {
            text.match_indices(needle.as_str())
                .filter(move |(at, _)| {
                    i > 0
                        || matches!(
                            text.as_bytes().get(at + needle.len()),
                            None | Some(b'\n' | b'\r' | b' ' | b'}' | b',')
                        )
                })
                .map(|(at, _)| at)
        })
        .collect();
    places.sort_unstable();
    places
}

/// Where `name: NAME` (YAML, plain or quoted) or `"name":"NAME"` (JSON) is in `window`, the
/// whole value only (`node-a` is not found in `default-node-a`).
fn name_in(window: &str, name: &str) -> Option<usize> {
    value_places(window, "name", name).first().copied()
}

/// Byte offset of a 1-based line and byte column (serde_json counts bytes), on a char boundary.
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize = text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum();
    floor_char(text, (line_start + column.saturating_sub(1)).min(text.len().saturating_sub(1)))
}

/// Byte offset of a 1-based line and character column (the YAML parser counts characters).
fn offset_of_char(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize = text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum();
    let line_start = line_start.min(text.len());
    let within =
        text[line_start..].char_indices().nth(column.saturating_sub(1)).map_or(text.len() - line_start, |(at, _)| at);
    floor_char(text, (line_start + within).min(text.len().saturating_sub(1)))
}

fn floor_char(text: &str, mut at: usize) -> usize {
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..floor_char(text, offset)];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |p| p + 1) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::read_text;
    use crate::error::Error;

    const NODE: &str = "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n";

    #[test]
    fn reads_yaml_stream_and_nested_lists() {
        let text = format!(
            "{NODE}---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: List\n  items:\n  - apiVersion: v1\n    kind: Node\n    metadata: {{name: b}}\n"
        );
        let snapshot = read_text(&text, "t.yaml").unwrap();
        let names: Vec<_> = snapshot.nodes.iter().map(|n| n.metadata.name.as_str()).collect();
        assert_eq!(names, ["a", "b"]);
    }

    #[test]
    fn reads_json_list() {
        let text =
            r#"{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"x"}}]}"#;
        assert_eq!(read_text(text, "t.json").unwrap().nodes.len(), 1);
    }

    #[test]
    fn bad_quantity_names_line_object_and_field() {
        let text = format!(
            "{NODE}---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  namespace: ns\nspec:\n  containers:\n  - name: c\n    resources:\n      requests:\n        cpu: lots\n"
        );
        match read_text(&text, "t.yaml").unwrap_err() {
            Error::Object { line, kind, name, field, .. } => {
                assert_eq!((kind.as_str(), name.as_str()), ("Pod", "ns/p"));
                assert_eq!(field, "spec.containers[0].resources.requests.cpu");
                assert_eq!(line, 16);
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn a_bad_catalogue_item_is_named_and_placed_at_its_own_field() {
        let text = "apiVersion: kubectl-consolidation/v1alpha1\nkind: InstanceTypes\nitems:\n\
                    - name: a.small\n  offerings:\n  - {zone: z1, capacityType: spot, price: 0.1}\n\
                    - name: b.small\n  offerings:\n  - {zone: z1, capacityType: spot, price: NaN}\n";
        match read_text(text, "t.yaml").unwrap_err() {
            Error::Object { line, name, field, .. } => {
                assert_eq!((line, name.as_str(), field.as_str()), (9, "b.small", "items[1].offerings[0].price"));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn pod_without_name_is_an_error() {
        let text = format!("{NODE}---\napiVersion: v1\nkind: Pod\nmetadata:\n  namespace: ns\n");
        assert!(matches!(read_text(&text, "t.yaml"), Err(Error::Object { field, .. }) if field == "metadata.name"));
    }

    #[test]
    fn old_nodepool_api_version_is_an_error() {
        let text = format!("{NODE}---\napiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata:\n  name: d\n");
        assert!(matches!(read_text(&text, "t.yaml"), Err(Error::Object { field, .. }) if field == "apiVersion"));
    }

    #[test]
    fn json_errors_point_at_the_exact_field() {
        let text = "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"a\"}},\n{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\n \"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"lots\"}}}]}}]}";
        match read_text(text, "t.json").unwrap_err() {
            Error::Object { line, field, name, .. } => {
                assert_eq!((line, name.as_str()), (4, "p"));
                assert_eq!(field, "spec.containers[0].resources.requests.cpu");
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(matches!(read_text("{\"kind\": ", "t.json"), Err(Error::Syntax { span: Some(_), .. })));
    }

    #[test]
    fn files_stream_json_and_point_into_it_on_errors() {
        use super::read_path;
        let dir = tempfile::tempdir().unwrap();
        let file = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        let good =
            r#"{"apiVersion":"v1","items":[{"apiVersion":"v1","kind":"Node","metadata":{"name":"x"}}],"kind":"List"}"#;
        assert_eq!(read_path(&file("good.json", &format!("\n {good}"))).unwrap().nodes.len(), 1);
        let bad = "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"a\"}},\n{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p\"},\n \"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{\"requests\":{\"cpu\":\"lots\"}}}]}}]}";
        match read_path(&file("bad.json", bad)).unwrap_err() {
            Error::Object { path, line, field, .. } => {
                assert!(path.ends_with("bad.json"));
                assert_eq!((line, field.as_str()), (4, "spec.containers[0].resources.requests.cpu"));
            }
            other => panic!("unexpected {other:?}"),
        }
        assert!(matches!(read_path(&file("cut.json", "{\"kind\": ")), Err(Error::Syntax { span: Some(_), .. })));
        let empty = r#"{"apiVersion":"v1","kind":"List","items":[]}"#;
        assert!(matches!(read_path(&file("empty.json", empty)), Err(Error::EmptySnapshot { .. })));
        assert_eq!(read_path(&file("n.yaml", NODE)).unwrap().nodes.len(), 1);
        assert!(matches!(read_path(&dir.path().join("missing.json")), Err(Error::Io { .. })));
    }

    #[test]
    fn places_after_multibyte_characters_stay_on_char_boundaries() {
        // The YAML parser counts characters; `é` is two bytes. Found by the fuzzer as a panic.
        let text = "apiVersion: v1\nkind: Node\nmetadata:\n  name: x\n  labels: {a: é, b: [x}\n";
        match read_text(text, "t.yaml") {
            Err(Error::Syntax { span: Some(span), .. }) => assert_eq!(&text[span.offset()..=span.offset()], "["),
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(super::line_column("aé", 2), (1, 2), "inside `é`: floored to its start");
    }

    #[test]
    fn memory_the_system_refuses_is_a_diagnostic_not_an_abort() {
        // More than any allocator gives: `try_reserve` fails at once, nothing is allocated.
        let mut bytes = Vec::new();
        match super::reserve(&mut bytes, u64::MAX / 2, "big.yaml") {
            Err(Error::OutOfMemory { path, bytes }) => assert_eq!((path.as_str(), bytes), ("big.yaml", u64::MAX / 2)),
            other => panic!("unexpected {other:?}"),
        }
        // A file that says it is that large, read through the same path.
        match super::read_all(NODE.as_bytes(), "big.yaml", u64::MAX, u64::MAX / 2) {
            Ok(Err(Error::OutOfMemory { .. })) => {}
            other => panic!("unexpected {other:?}"),
        }
        assert!(super::reserve(&mut bytes, 16, "small.yaml").is_ok());
    }

    #[test]
    fn a_json_document_then_yaml_documents_is_one_stream() {
        let text = format!("{{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{{\"name\":\"j\"}}}}\n---\n{NODE}");
        let names: Vec<_> = read_text(&text, "t.yaml").unwrap().nodes.into_iter().map(|n| n.metadata.name).collect();
        assert_eq!(names, ["a", "j"]);
        // A YAML error after the JSON still points into the whole text.
        let bad = "{\"kind\":\"Node\"}\n---\na: [b\n".to_owned();
        match read_text(&bad, "t.yaml") {
            Err(Error::Syntax { span: Some(span), .. }) => assert!(span.offset() > 20, "{span:?}"),
            other => panic!("unexpected {other:?}"),
        }
        // Broken JSON is still a JSON error.
        assert!(matches!(read_text("{\"kind\": }\n", "t.json"), Err(Error::Syntax { .. })));
    }

    #[test]
    fn an_integer_name_is_a_wrong_type_not_a_missing_name() {
        let text = format!("{NODE}---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: 12345\n  namespace: ns\n");
        match read_text(&text, "t.yaml").unwrap_err() {
            Error::Object { line, field, message, .. } => {
                assert_eq!((line, field.as_str()), (9, "metadata.name"));
                assert!(message.contains("is a number"), "{message}");
            }
            other => panic!("unexpected {other:?}"),
        }
    }

    #[test]
    fn invalid_yaml_is_a_syntax_error() {
        assert!(matches!(read_text("a: [b\n", "t.yaml"), Err(Error::Syntax { span: Some(_), .. })));
    }

    #[test]
    fn unknown_kinds_and_fields_are_ignored() {
        let text =
            format!("{NODE}  surprise: 1\n---\napiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\n");
        assert_eq!(read_text(&text, "t.yaml").unwrap().nodes.len(), 1);
    }
}
