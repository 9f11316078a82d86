//! Snapshot files: YAML or JSON, one object, a `List` (nested too) or a multi-document stream,
//! from a path or stdin. Errors point at the file, line and column, object and field.

use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

use miette::{NamedSource, SourceSpan};
use serde_json::Value;

use crate::error::Error;
use crate::snapshot::{DecodeError, Snapshot};

/// Reads a snapshot from a path, or stdin for `-`. A JSON file is decoded as it is read, without
/// holding its text; only an error has it read whole, for the diagnostic to point into.
pub fn read_path(path: &Path) -> Result<Snapshot, Error> {
    let io = |source| Error::Io { path: path.to_owned(), source };
    if path.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin().read_to_string(&mut text).map_err(io)?;
        return read_text(&text, "<stdin>");
    }
    let name = path.display().to_string();
    let mut reader = BufReader::new(File::open(path).map_err(io)?);
    if starts_json(&mut reader).map_err(io)? {
        if let Some(snapshot) = Snapshot::from_json_reader(reader) {
            return non_empty(snapshot, &name);
        }
    }
    // YAML, or JSON that did not decode: read the text, which diagnostics point into.
    read_text(&std::fs::read_to_string(path).map_err(io)?, &name)
}

/// Parses snapshot text; `name` is used in diagnostics.
pub fn read_text(text: &str, name: &str) -> Result<Snapshot, Error> {
    let snapshot = if is_json(text) {
        Snapshot::from_json(text).map_err(|e| locate(&e, text, name))?
    } else {
        let documents = parse_documents(text, name)?;
        Snapshot::from_documents(documents).map_err(|e| locate(&e, text, name))?
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
        for value in serde_json::Deserializer::from_str(text).into_iter::<Value>() {
            match value {
                Ok(Value::Array(items)) => documents.extend(items),
                Ok(value) => documents.push(value),
                Err(e) => {
                    let offset = offset_of(text, e.line(), e.column());
                    return Err(syntax(text, name, e.to_string(), Some(offset)));
                }
            }
        }
        return Ok(documents);
    }
    let mut budget = serde_saphyr::Budget::default();
    budget.max_events = usize::MAX;
    budget.max_nodes = usize::MAX;
    budget.max_total_scalar_bytes = usize::MAX;
    budget.max_documents = usize::MAX;
    budget.max_depth = 256;
    let mut options = serde_saphyr::Options::default();
    options.budget = Some(budget);
    options.strict_booleans = true;
    options.leading_zero_numbers_as_strings = true;
    serde_saphyr::from_multiple_with_options::<Value>(text, options).map_err(|e| {
        let offset = e.location().map(|l| offset_of(text, l.line() as usize, l.column() as usize));
        let message = e.to_string().lines().next().unwrap_or_default().to_owned();
        syntax(text, name, message, offset)
    })
}

fn syntax(text: &str, name: &str, message: String, offset: Option<usize>) -> Error {
    Error::Syntax {
        path: name.to_owned(),
        message,
        help: "check the indentation and quoting near the marked place; `kubectl get -o yaml` output always parses"
            .to_owned(),
        src: NamedSource::new(name, text.to_owned()),
        span: offset.map(|o| SourceSpan::from((o, 1))),
    }
}

/// Maps a decode error to a diagnostic with the best location we can find in the text.
fn locate(e: &DecodeError, text: &str, name: &str) -> Error {
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
        src: NamedSource::new(name, text.to_owned()),
        span: offset.map(|o| SourceSpan::from((o, 1))),
    }
}

/// Finds the failing field: first the object (`kind: X` then its `name:`), then each key of
/// the field path in order after it. Falls back to the object, then to nothing.
fn find_field(text: &str, e: &DecodeError) -> Option<usize> {
    let object_name = e.name.rsplit('/').next().unwrap_or_default();
    let mut start = 0;
    let mut found_object = None;
    while let Some(pos) = text[start..]
        .find(&format!("kind: {}", e.kind))
        .map(|p| p + start)
        .or_else(|| text[start..].find(&format!("\"kind\":\"{}\"", e.kind)).map(|p| p + start))
    {
        let next = text[pos + 1..].find("kind:").map_or(text.len(), |p| p + pos + 1);
        let window = &text[pos..next];
        let named = object_name == "<unnamed>"
            || window.contains(&format!("name: {object_name}"))
            || window.contains(&format!("name: '{object_name}'"))
            || window.contains(&format!("name: \"{object_name}\""))
            || window.contains(&format!("\"name\":\"{object_name}\""));
        if named {
            found_object = Some(pos);
            break;
        }
        start = pos + 1;
    }
    let object = found_object.or_else(|| text.find(&format!("name: {object_name}")))?;
    let end = text[object + 1..].find("\n---").map_or(text.len(), |p| p + object + 1);
    let mut keys: Vec<&str> =
        e.field.split('.').flat_map(|s| s.split('[')).filter(|s| !s.is_empty() && !s.ends_with(']')).collect();
    if e.message.starts_with("has no") {
        keys.pop();
    }
    let mut cursor = object;
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

fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let line_start: usize = text.split_inclusive('\n').take(line.saturating_sub(1)).map(str::len).sum();
    (line_start + column.saturating_sub(1)).min(text.len().saturating_sub(1))
}

fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
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
