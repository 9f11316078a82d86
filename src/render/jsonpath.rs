//! `-o jsonpath=TEMPLATE`: kubectl's JSONPath templates over a command's JSON document.
//!
//! The template language is kubectl's (client-go `util/jsonpath`, documented at
//! <https://kubernetes.io/docs/reference/kubectl/jsonpath/>): text outside braces is printed as it
//! is; `{.a.b}`, `{.items[*].x}`, `{..name}`, `{.a[0:2]}`, `{.a[?(@.x=="y")].z}` print what the
//! path selects (several results separated by a space); `{range PATH}…{end}` repeats its body
//! for each result, with paths inside relative to it; `{"\n"}` and `{'\t'}` are quoted text.
//! `$` is the document's root, a path starting with `.`, `[` or `@` the current object.
//!
//! Each path is translated to RFC 9535 JSONPath and run by `jsonpath-rust` (already in the tree
//! through kube's client, which reads kubeconfig token paths with it): `.name` segments become
//! `['name']` (so `kubernetes\.io/hostname` works as in kubectl), brackets pass through.
//!
//! What a value prints as follows client-go `JSONPath.PrintResults`: strings raw, objects and
//! arrays as JSON, numbers and booleans as Go's `fmt.Print` writes them. A key that is not there
//! prints nothing, as kubectl with its default `--allow-missing-template-keys=true`.

use jsonpath_rust::JsonPath;
use serde_json::Value;

/// One piece of a parsed template.
#[derive(Debug, Clone, PartialEq)]
enum Node {
    /// Printed as it is (outside braces, or a quoted `{"…"}`).
    Text(String),
    /// A path, translated to RFC 9535 (`$…`), and whether it starts at the root (`$`).
    Path { query: String, from_root: bool },
    /// `{range PATH}` … `{end}`.
    Range { query: String, from_root: bool, body: Vec<Node> },
}

/// The text `template` makes of `document`, or what is wrong with the template. `escape`: each
/// string value is written as a terminal may show it (`terminal::escape_value`); the template's
/// own text (`{"\t"}`) never is.
pub(crate) fn render(template: &str, document: &Value, escape: bool) -> Result<String, String> {
    let nodes = parse(template)?;
    let mut out = String::new();
    walk(&Walk { root: document, escape }, &nodes, document, &mut out)?;
    Ok(out)
}

/// What every step of the walk reads.
struct Walk<'a> {
    root: &'a Value,
    escape: bool,
}

fn walk(w: &Walk<'_>, nodes: &[Node], current: &Value, out: &mut String) -> Result<(), String> {
    let root = w.root;
    for node in nodes {
        match node {
            Node::Text(text) => out.push_str(text),
            Node::Path { query, from_root } => {
                let results = run(query, if *from_root { root } else { current })?;
                let texts: Vec<String> = results
                    .into_iter()
                    .map(|v| match v {
                        Value::String(s) if w.escape => crate::terminal::escape_value(s).into_owned(),
                        other => text_of(other),
                    })
                    .collect();
                out.push_str(&texts.join(" "));
            }
            Node::Range { query, from_root, body } => {
                for value in run(query, if *from_root { root } else { current })? {
                    // client-go ranges over an array's elements when the path selects one array.
                    match value {
                        Value::Array(items) => {
                            for item in items {
                                walk(w, body, item, out)?;
                            }
                        }
                        other => walk(w, body, other, out)?,
                    }
                }
            }
        }
    }
    Ok(())
}

fn run<'a>(query: &str, value: &'a Value) -> Result<Vec<&'a Value>, String> {
    value.query(query).map_err(|e| format!("`{query}`: {e}"))
}

/// A value as client-go prints one result.
fn text_of(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        // A null prints nothing, as a missing key does.
        Value::Null => String::new(),
        Value::Number(n) => match (n.as_i64(), n.as_u64(), n.as_f64()) {
            (Some(i), _, _) => i.to_string(),
            (None, Some(u), _) => u.to_string(),
            (None, None, Some(f)) => go_float(f),
            _ => n.to_string(),
        },
        Value::Array(_) | Value::Object(_) => serde_json::to_string(value).unwrap_or_default(),
    }
}

/// A float as Go's `fmt.Print` writes it (`%v`, i.e. `strconv.FormatFloat(f, 'g', -1, 64)`):
/// the shortest digits that read back, in exponent form when the exponent is below -4 or
/// at least 6 (`2`, `1.92`, `1e+06`, `1.5e-05`).
fn go_float(f: f64) -> String {
    if !f.is_finite() {
        return if f.is_nan() {
            "NaN".into()
        } else if f > 0.0 {
            "+Inf".into()
        } else {
            "-Inf".into()
        };
    }
    if f == 0.0 {
        return if f.is_sign_negative() { "-0".into() } else { "0".into() };
    }
    // Rust's `{:e}` writes the shortest round-tripping digits: `1.92e0`, `1e6`.
    let scientific = format!("{f:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    if !(-4..6).contains(&exponent) {
        let sign = if exponent < 0 { '-' } else { '+' };
        return format!("{mantissa}e{sign}{:02}", exponent.unsigned_abs());
    }
    // Plain form: Rust's `{}` is shortest too and never uses an exponent in this range.
    format!("{f}")
}

// ---- parsing ----

/// An open `{range}` (its translated path, from the root or not; `None` for the template
/// itself) and the nodes of its body so far.
type Frame = (Option<(String, bool)>, Vec<Node>);

fn parse(template: &str) -> Result<Vec<Node>, String> {
    // A stack of open `range`s: each frame holds the nodes of its body so far.
    let mut frames: Vec<Frame> = vec![(None, Vec::new())];
    let mut rest = template;
    while !rest.is_empty() {
        let Some(open) = rest.find('{') else {
            push_text(&mut frames, rest);
            break;
        };
        push_text(&mut frames, &rest[..open]);
        let after = &rest[open + 1..];
        let close =
            action_end(after).ok_or_else(|| format!("unclosed action in `{template}` (a `{{` without `}}`)"))?;
        let action = after[..close].trim();
        rest = &after[close + 1..];
        if action == "end" {
            if frames.len() == 1 {
                return Err(format!("`{{end}}` without a `{{range}}` in `{template}`"));
            }
            let (Some((query, from_root)), body) = frames.pop().expect("more than one frame") else {
                unreachable!("only the first frame has no range")
            };
            frames.last_mut().expect("the outer frame").1.push(Node::Range { query, from_root, body });
        } else if let Some(path) = action.strip_prefix("range ").or_else(|| action.strip_prefix("range\t")) {
            let (query, from_root) = translate(path.trim())?;
            frames.push((Some((query, from_root)), Vec::new()));
        } else if action.starts_with('"') || action.starts_with('\'') {
            let text = unquote(action)?;
            frames.last_mut().expect("a frame").1.push(Node::Text(text));
        } else {
            let (query, from_root) = translate(action)?;
            frames.last_mut().expect("a frame").1.push(Node::Path { query, from_root });
        }
    }
    if frames.len() > 1 {
        return Err(format!("a `{{range}}` without its `{{end}}` in `{template}`"));
    }
    Ok(frames.pop().map(|(_, nodes)| nodes).unwrap_or_default())
}

fn push_text(frames: &mut [Frame], text: &str) {
    if !text.is_empty() {
        if let Some(frame) = frames.last_mut() {
            frame.1.push(Node::Text(text.to_owned()));
        }
    }
}

/// Where the action that `text` starts inside ends (the index of its `}`), skipping quoted
/// strings, so `{"}"}` and `{.a[?(@.b=="}")]}` hold their braces.
fn action_end(text: &str) -> Option<usize> {
    outside_quotes(text).find(|&(_, c)| c == '}').map(|(i, _)| i)
}

/// The characters of `text` outside `"…"` and `'…'` strings (a backslash escapes inside them),
/// with their byte index; the quotes themselves are not yielded.
fn outside_quotes(text: &str) -> impl Iterator<Item = (usize, char)> + '_ {
    let (mut quote, mut escaped) = (None::<char>, false);
    text.char_indices().filter(move |&(_, c)| match quote {
        Some(_) if escaped => {
            escaped = false;
            false
        }
        Some(_) if c == '\\' => {
            escaped = true;
            false
        }
        Some(q) => {
            if c == q {
                quote = None;
            }
            false
        }
        None if c == '"' || c == '\'' => {
            quote = Some(c);
            false
        }
        None => true,
    })
}

/// `"a\tb"` or `'a\tb'` → the text, with Go's escapes (`\n`, `\t`, `\r`, `\\`, `\"`, `\'`,
/// `\uXXXX`).
fn unquote(quoted: &str) -> Result<String, String> {
    let quote = quoted.chars().next().unwrap_or('"');
    let inner = quoted
        .strip_prefix(quote)
        .and_then(|q| q.strip_suffix(quote))
        .ok_or_else(|| format!("unterminated quoted text {quoted}"))?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\\') => out.push('\\'),
            Some('"') => out.push('"'),
            Some('\'') => out.push('\''),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                let c = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32);
                out.push(c.ok_or_else(|| format!("`\\u{hex}` in {quoted} is not a character"))?);
            }
            other => {
                return Err(format!("unknown escape `\\{}` in {quoted}", other.map(String::from).unwrap_or_default()))
            }
        }
    }
    Ok(out)
}

/// kubectl's path (`.a.b[*]`, `$.a`, `@`, `..name`, `.labels.kubernetes\.io/os`) → an RFC 9535
/// query (`$['a']['b'][*]`), and whether it starts at the root.
fn translate(path: &str) -> Result<(String, bool), String> {
    let (from_root, mut rest) = match path.strip_prefix('$') {
        Some(rest) => (true, rest),
        None => (false, path.strip_prefix('@').unwrap_or(path)),
    };
    let mut query = String::from("$");
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("..") {
            query.push_str("..");
            rest = after;
            if !rest.starts_with('[') {
                rest =
                    push_named_step(&mut query, rest, || format!("`{path}`: `..` needs a name or a bracket after it"))?;
            }
        } else if let Some(after) = rest.strip_prefix('.') {
            if let Some(after) = after.strip_prefix('*') {
                query.push_str("[*]");
                rest = after;
            } else {
                rest = push_named_step(&mut query, after, || format!("`{path}`: a `.` without a name after it"))?;
            }
        } else if rest.starts_with('[') {
            let end = bracket_end(rest).ok_or_else(|| format!("`{path}`: a `[` without its `]`"))?;
            query.push_str(&rest[..=end]);
            rest = &rest[end + 1..];
        } else {
            // A bare first name, as kubectl reads `{kind}` like `{.kind}`.
            rest = push_named_step(&mut query, rest, || format!("`{path}`: cannot read `{rest}` as a path"))?;
        }
    }
    Ok((query, from_root))
}

/// Reads one member name from `text` onto `query` as `['name']` and returns what follows;
/// `missing` words the error when no name is there.
fn push_named_step<'t>(query: &mut String, text: &'t str, missing: impl FnOnce() -> String) -> Result<&'t str, String> {
    let (name, after) = member(text);
    if name.is_empty() {
        return Err(missing());
    }
    query.push('[');
    push_member(query, &name);
    query.push(']');
    Ok(after)
}

/// One member name up to the next unescaped `.` or `[` (`\.` is a dot inside the name).
fn member(text: &str) -> (String, &str) {
    let mut name = String::new();
    let mut chars = text.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '\\' if chars.peek().is_some_and(|(_, n)| *n == '.') => {
                name.push('.');
                chars.next();
            }
            '.' | '[' => return (name, &text[i..]),
            c => name.push(c),
        }
    }
    (name, "")
}

/// `'name'` with `'` and `\` escaped, as RFC 9535 single-quoted strings take them.
fn push_member(query: &mut String, name: &str) {
    query.push('\'');
    for c in name.chars() {
        if c == '\'' || c == '\\' {
            query.push('\\');
        }
        query.push(c);
    }
    query.push('\'');
}

/// The index of the `]` closing the bracket `text` starts with (quotes and nested brackets
/// inside filters skipped).
fn bracket_end(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in outside_quotes(text) {
        match c {
            '[' => depth += 1,
            ']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The input of kubectl's JSONPath page (kubernetes.io/docs/reference/kubectl/jsonpath/).
    fn kubectl_docs_input() -> Value {
        serde_json::json!({
          "kind": "List",
          "items": [
            {"kind": "None", "metadata": {"name": "127.0.0.1", "labels": {"kubernetes.io/hostname": "127.0.0.1"}},
             "status": {"capacity": {"cpu": "4"}, "addresses": [{"type": "LegacyHostIP", "address": "127.0.0.1"}]}},
            {"kind": "None", "metadata": {"name": "127.0.0.2"},
             "status": {"capacity": {"cpu": "8"}, "addresses": [
               {"type": "LegacyHostIP", "address": "127.0.0.2"}, {"type": "another", "address": "127.0.0.3"}]}}
          ],
          "users": [
            {"name": "myself", "user": {}},
            {"name": "e2e", "user": {"username": "admin", "password": "secret"}}
          ]
        })
    }

    fn docs(template: &str) -> String {
        render(template, &kubectl_docs_input(), false).unwrap_or_else(|e| panic!("{template}: {e}"))
    }

    /// The rows of the page's table, with the results it gives (objects as JSON, as kubectl
    /// prints them today: client-go JSONPath.PrintResults marshals maps and slices).
    #[test]
    fn the_examples_of_kubectls_jsonpath_page() {
        assert_eq!(docs("kind is {.kind}"), "kind is List");
        assert_eq!(docs("{@}"), serde_json::to_string(&kubectl_docs_input()).expect("json"));
        assert_eq!(docs("{.kind}"), "List");
        assert_eq!(docs("{['kind']}"), "List");
        assert_eq!(docs("{..name}"), "127.0.0.1 127.0.0.2 myself e2e");
        assert_eq!(docs("{.items[*].metadata.name}"), "127.0.0.1 127.0.0.2");
        assert_eq!(docs("{.users[0].name}"), "myself");
        assert_eq!(docs(r#"{.users[?(@.name=="e2e")].user.password}"#), "secret");
        assert_eq!(
            docs("{range .items[*]}[{.metadata.name}, {.status.capacity}] {end}"),
            r#"[127.0.0.1, {"cpu":"4"}] [127.0.0.2, {"cpu":"8"}] "#
        );
        assert_eq!(docs(r#"{range .items[*]}{.metadata.name}{"\t"}{end}"#), "127.0.0.1\t127.0.0.2\t");
        assert_eq!(docs(r"{.items[0].metadata.labels.kubernetes\.io/hostname}"), "127.0.0.1");
        // Negative indices step back from the end.
        assert_eq!(docs("{.users[-1:].name}"), "e2e");
        assert_eq!(docs("{.items[0:1].metadata.name}"), "127.0.0.1");
    }

    #[test]
    fn ranges_nest_and_root_paths_escape_them() {
        let t = r#"{range .items[*]}{.metadata.name}:{range .status.addresses[*]} {.address}{end}{"\n"}{end}"#;
        assert_eq!(docs(t), "127.0.0.1: 127.0.0.1\n127.0.0.2: 127.0.0.2 127.0.0.3\n");
        assert_eq!(docs("{range .users[*]}{$.kind}/{.name} {end}"), "List/myself List/e2e ");
    }

    #[test]
    fn missing_keys_print_nothing_and_braces_in_quotes_stay() {
        assert_eq!(docs("[{.nope.deeper}]"), "[]");
        assert_eq!(docs(r#"{"{}"}"#), "{}");
        assert_eq!(docs(r#"{.users[?(@.name=="}")].name}x"#), "x");
    }

    #[test]
    fn values_print_as_kubectl_prints_them() {
        let doc = serde_json::json!({"a": 2.0, "b": 1.92, "c": 1_000_000.5, "d": 0.000_015, "e": true, "f": 7, "g": null, "h": [1, "x"]});
        let r = |t: &str| render(t, &doc, false).expect("renders");
        assert_eq!(r("{.a} {.b} {.c} {.d}"), "2 1.92 1.0000005e+06 1.5e-05");
        assert_eq!(r("{.e} {.f}|{.g}|{.h}"), r#"true 7||[1,"x"]"#);
    }

    #[test]
    fn broken_templates_say_what_is_wrong() {
        let doc = kubectl_docs_input();
        assert!(render("{.kind", &doc, false).unwrap_err().contains("unclosed action"));
        assert!(render("{range .items[*]}{.kind}", &doc, false).unwrap_err().contains("without its `{end}`"));
        assert!(render("{.kind}{end}", &doc, false).unwrap_err().contains("without a `{range}`"));
        assert!(render("{.items[}", &doc, false).unwrap_err().contains("without its `]`"));
        assert!(render(r#"{"\q"}"#, &doc, false).unwrap_err().contains("unknown escape"));
        assert!(render("{.items[?(@.x ==)]}", &doc, false).is_err());
    }

    #[test]
    fn on_a_terminal_values_are_escaped_and_the_template_is_not() {
        let doc = serde_json::json!({"n": "evil\u{1b}[2Jname"});
        assert_eq!(render(r#"{.n}{"\t"}"#, &doc, true).expect("renders"), "\"evil\\x1b[2Jname\"\t");
        assert_eq!(render(r"{.n}", &doc, false).expect("renders"), "evil\u{1b}[2Jname");
    }

    #[test]
    fn paths_translate_to_rfc_9535() {
        assert_eq!(translate(".a.b[*].c").expect("ok"), ("$['a']['b'][*]['c']".to_owned(), false));
        assert_eq!(translate("$.a").expect("ok"), ("$['a']".to_owned(), true));
        assert_eq!(translate("@").expect("ok"), ("$".to_owned(), false));
        assert_eq!(translate("..name").expect("ok"), ("$..['name']".to_owned(), false));
        assert_eq!(translate(r".l.a\.b/c").expect("ok"), (r"$['l']['a.b/c']".to_owned(), false));
        assert_eq!(translate(".it's").expect("ok"), (r"$['it\'s']".to_owned(), false));
    }
}
