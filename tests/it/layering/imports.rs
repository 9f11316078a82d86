//! The file-level import graph of the library: which file takes which name from which other
//! file, read from the source text the way rustc resolves a path, and the circles in it.
//!
//! Modules are found as rustc finds them, from `src/lib.rs` down its `mod` declarations
//! (`#[path]` included). A name is followed through `use` re-exports (and globs) to the file
//! that defines it, so `use crate::engine::scheduling::World` ties the importer to the file
//! where `World` is defined, not to the module that re-exports it; the re-export is an arrow
//! of its own. Imports and paths written inline (`crate::a::b::f()`, `super::x::Y`, a child
//! module's `counts::f`) both count; comments, strings and attributes do not. Test code is
//! left out (`#[cfg(test)]` items, modules and the files they bring in): a test may use what
//! uses the code under test.
//!
//! Crude on purpose: no macro expansion and no type inference. A name that cannot be followed
//! ties the importer to the module it was looked up in, which errs towards a circle.

use std::collections::{BTreeMap, BTreeSet};

/// Who takes names from whom: (importing file, imported file) → the names taken.
pub(crate) type Edges = BTreeMap<(String, String), BTreeSet<String>>;

/// The import edges between the files of the crate rooted at `root` (e.g. `src/lib.rs`).
/// `read` returns a file's text given its path, or `None` when it does not exist.
pub(crate) fn edges(root: &str, read: &dyn Fn(&str) -> Option<String>) -> Edges {
    let mut crate_ = Crate::default();
    crate_.load(root, None, None, Vec::new(), read);
    let mut out = Edges::new();
    for reference in &crate_.references {
        let from = crate_.modules[reference.module].file;
        if let Some((file, name)) = crate_.resolve_path(reference.module, &reference.path, 0) {
            if file != from && !crate_.ancestor_files(reference.module).contains(&file) {
                let key = (crate_.files[from].clone(), crate_.files[file].clone());
                out.entry(key).or_default().insert(name);
            }
        }
    }
    out
}

/// Every set of two or more files that import each other in a circle (the strongly connected
/// components of the graph), each sorted, in a stable order.
pub(crate) fn circles(edges: &Edges) -> Vec<Vec<String>> {
    let mut graph: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        graph.entry(from).or_default().push(to);
        graph.entry(to).or_default();
    }
    let mut tarjan = Tarjan {
        graph: &graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for node in graph.keys() {
        if !tarjan.index.contains_key(node) {
            tarjan.visit(node);
        }
    }
    let mut out: Vec<Vec<String>> = tarjan
        .out
        .into_iter()
        .filter(|c| c.len() > 1)
        .map(|c| {
            let mut files: Vec<String> = c.into_iter().map(str::to_owned).collect();
            files.sort();
            files
        })
        .collect();
    out.sort();
    out
}

/// One circle spelled out: its files, then every arrow between two of them with the names
/// that the first takes from the second.
pub(crate) fn describe(circle: &[String], edges: &Edges) -> String {
    let members: BTreeSet<&str> = circle.iter().map(String::as_str).collect();
    let mut text = format!("{} files: {}\n", circle.len(), circle.join(", "));
    for ((from, to), names) in edges {
        if members.contains(from.as_str()) && members.contains(to.as_str()) {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            text.push_str(&format!("  {from} -> {to}: {}\n", names.join(", ")));
        }
    }
    text
}

struct Tarjan<'g> {
    graph: &'g BTreeMap<&'g str, Vec<&'g str>>,
    index: BTreeMap<&'g str, usize>,
    low: BTreeMap<&'g str, usize>,
    stack: Vec<&'g str>,
    on_stack: BTreeSet<&'g str>,
    next: usize,
    out: Vec<Vec<&'g str>>,
}

impl<'g> Tarjan<'g> {
    fn visit(&mut self, node: &'g str) {
        self.index.insert(node, self.next);
        self.low.insert(node, self.next);
        self.next += 1;
        self.stack.push(node);
        self.on_stack.insert(node);
        for &next in &self.graph[node] {
            if !self.index.contains_key(next) {
                self.visit(next);
                let low = self.low[node].min(self.low[next]);
                self.low.insert(node, low);
            } else if self.on_stack.contains(next) {
                let low = self.low[node].min(self.index[next]);
                self.low.insert(node, low);
            }
        }
        if self.low[node] == self.index[node] {
            let mut component = Vec::new();
            while let Some(top) = self.stack.pop() {
                self.on_stack.remove(top);
                component.push(top);
                if top == node {
                    break;
                }
            }
            self.out.push(component);
        }
    }
}

/// A module (a file, or an inline `mod x { … }` inside one) and what it names.
#[derive(Default)]
struct Module {
    file: usize,
    parent: Option<usize>,
    children: BTreeMap<String, usize>,
    /// Items defined here: structs, enums, functions, traits, types, constants, macros.
    defs: BTreeSet<String>,
    /// `use` at module level: local name → path as written.
    imports: BTreeMap<String, Vec<String>>,
    globs: Vec<Vec<String>>,
}

/// A path written in a module, to be resolved once every module is known.
struct Reference {
    module: usize,
    path: Vec<String>,
}

#[derive(Default)]
struct Crate {
    files: Vec<String>,
    modules: Vec<Module>,
    references: Vec<Reference>,
}

#[derive(Clone, Copy)]
enum Target {
    Module(usize),
    Item(usize),
}

/// How deep re-exports are followed before giving up (a `use` circle, which rustc rejects).
const MAX_HOPS: usize = 32;

impl Crate {
    /// Reads `path` as a module named by `parent`'s `mod name;` and everything it declares.
    /// `dir` is where its own `mod x;` files live.
    fn load(
        &mut self,
        path: &str,
        parent: Option<usize>,
        name: Option<&str>,
        dir: Vec<String>,
        read: &dyn Fn(&str) -> Option<String>,
    ) {
        let Some(text) = read(path) else { return };
        let file = self.files.len();
        self.files.push(path.to_owned());
        let module = self.new_module(file, parent, name);
        let tokens = tokenize(&text);
        let mut parser = Parser { tokens: &tokens, at: 0 };
        let dir = if dir.is_empty() { own_dir(path) } else { dir };
        self.items(&mut parser, module, &dir, path, false, read);
    }

    fn new_module(&mut self, file: usize, parent: Option<usize>, name: Option<&str>) -> usize {
        let id = self.modules.len();
        self.modules.push(Module { file, parent, ..Module::default() });
        if let (Some(parent), Some(name)) = (parent, name) {
            self.modules[parent].children.insert(name.to_owned(), id);
        }
        id
    }

    /// The items of one module, up to the end of the tokens or (`inline`) its closing brace.
    fn items(
        &mut self,
        p: &mut Parser,
        module: usize,
        dir: &[String],
        file_path: &str,
        inline: bool,
        read: &dyn Fn(&str) -> Option<String>,
    ) {
        loop {
            let mut test_only = false;
            let mut path_attr = None;
            while p.is_punct('#') {
                p.bump();
                if p.is_punct('!') {
                    p.bump();
                }
                let attr = p.group();
                test_only |= is_test_cfg(&attr);
                if let [Tok::Ident(key), Tok::Punct('='), Tok::Str(value), ..] = attr.as_slice() {
                    if key == "path" {
                        path_attr = Some(value.clone());
                    }
                }
            }
            match p.peek() {
                None => return,
                Some(Tok::Punct('}')) if inline => {
                    p.bump();
                    return;
                }
                _ => {}
            }
            if p.is_ident("pub") {
                p.bump();
                if p.is_punct('(') {
                    p.group();
                }
            }
            while p.is_ident("async") || p.is_ident("unsafe") || p.is_ident("extern") || p.is_ident("default") {
                p.bump();
                if matches!(p.peek(), Some(Tok::Str(_))) {
                    p.bump(); // extern "C"
                }
            }
            if test_only {
                p.skip_item();
                continue;
            }
            let Some(Tok::Ident(word)) = p.peek().cloned() else {
                p.bump();
                continue;
            };
            match word.as_str() {
                "mod" => {
                    p.bump();
                    let Some(Tok::Ident(name)) = p.peek().cloned() else { continue };
                    p.bump();
                    if p.is_punct('{') {
                        p.bump();
                        let child = self.new_module(self.modules[module].file, Some(module), Some(&name));
                        let mut child_dir = dir.to_vec();
                        child_dir.push(name);
                        self.items(p, child, &child_dir, file_path, true, read);
                    } else {
                        p.bump(); // `;`
                        let (file, child_dir) = if let Some(relative) = path_attr {
                            let mut base = parent_dir(file_path);
                            base.extend(relative.split('/').map(str::to_owned));
                            let file = base.join("/");
                            let child_dir = own_dir(&file);
                            (file, child_dir)
                        } else {
                            let mut base = dir.to_vec();
                            base.push(name.clone());
                            let flat = format!("{}.rs", base.join("/"));
                            if read(&flat).is_some() {
                                (flat, base)
                            } else {
                                (format!("{}/mod.rs", base.join("/")), base)
                            }
                        };
                        self.load(&file, Some(module), Some(&name), child_dir, read);
                    }
                }
                "use" => {
                    p.bump();
                    let mut uses = Vec::new();
                    use_tree(p, Vec::new(), &mut uses);
                    for (path, name) in uses {
                        match name {
                            UseName::Glob => self.modules[module].globs.push(path.clone()),
                            UseName::Named(local) => {
                                self.modules[module].imports.insert(local, path.clone());
                            }
                            UseName::Hidden => {}
                        }
                        self.references.push(Reference { module, path });
                    }
                }
                "struct" | "enum" | "union" | "trait" | "type" | "fn" | "static" | "const" | "macro_rules" => {
                    p.bump();
                    if word == "const" && p.is_ident("fn") {
                        p.bump();
                    }
                    if p.is_punct('!') {
                        p.bump();
                    }
                    if let Some(Tok::Ident(name)) = p.peek().cloned() {
                        self.modules[module].defs.insert(name);
                    }
                    self.scan_item(p, module);
                }
                _ => self.scan_item(p, module),
            }
        }
    }

    /// Consumes one item, recording every path it writes.
    fn scan_item(&mut self, p: &mut Parser, module: usize) {
        let mut depth = 0usize;
        while let Some(tok) = p.peek().cloned() {
            match tok {
                Tok::Punct('{' | '(' | '[') => {
                    depth += 1;
                    p.bump();
                }
                Tok::Punct('}' | ')' | ']') => {
                    if depth == 0 {
                        return; // the enclosing module's brace
                    }
                    depth -= 1;
                    p.bump();
                    if depth == 0 && tok == Tok::Punct('}') {
                        return;
                    }
                }
                Tok::Punct(';') if depth == 0 => {
                    p.bump();
                    return;
                }
                Tok::Punct('#') => {
                    p.bump(); // an attribute inside the item: not a path
                    if p.is_punct('!') {
                        p.bump();
                    }
                    if p.is_punct('[') {
                        p.group();
                    }
                }
                Tok::Ident(word) if word == "use" => {
                    p.bump();
                    let mut uses = Vec::new();
                    use_tree(p, Vec::new(), &mut uses);
                    for (path, _) in uses {
                        self.references.push(Reference { module, path });
                    }
                }
                Tok::Ident(word) if word == "pub" => {
                    p.bump();
                    if p.is_punct('(') {
                        p.group(); // `pub(in crate::x)` names no dependency
                    }
                }
                Tok::Ident(_) => {
                    let after_separator = p.at > 0 && p.tokens[p.at - 1] == Tok::Sep;
                    let path = p.path();
                    if !after_separator && path.len() > 1 {
                        self.references.push(Reference { module, path });
                    }
                }
                _ => p.bump(),
            }
        }
    }

    /// The files of the modules above `module` (its own file left out).
    fn ancestor_files(&self, module: usize) -> BTreeSet<usize> {
        let own = self.modules[module].file;
        let mut files = BTreeSet::new();
        let mut at = self.modules[module].parent;
        while let Some(m) = at {
            if self.modules[m].file != own {
                files.insert(self.modules[m].file);
            }
            at = self.modules[m].parent;
        }
        files
    }

    fn root_of(&self, mut module: usize) -> usize {
        while let Some(parent) = self.modules[module].parent {
            module = parent;
        }
        module
    }

    fn file_of(&self, target: Target) -> usize {
        match target {
            Target::Module(m) => self.modules[m].file,
            Target::Item(f) => f,
        }
    }

    /// The file `path` (written in `module`) names, and the name it is taken by. `None` for a
    /// path outside the crate.
    fn resolve_path(&self, module: usize, path: &[String], hops: usize) -> Option<(usize, String)> {
        if hops > MAX_HOPS || path.is_empty() {
            return None;
        }
        let mut at = 0;
        let mut current = match path[0].as_str() {
            "crate" => {
                at = 1;
                Target::Module(self.root_of(module))
            }
            "self" => {
                at = 1;
                Target::Module(module)
            }
            "super" => {
                let mut m = module;
                while path.get(at).is_some_and(|s| s == "super") {
                    m = self.modules[m].parent?;
                    at += 1;
                }
                Target::Module(m)
            }
            first => {
                at = 1;
                self.resolve_name(module, first, hops + 1)?
            }
        };
        let mut name = path[at.saturating_sub(1)].clone();
        for segment in &path[at..] {
            let Target::Module(m) = current else { break };
            name.clone_from(segment);
            let Some(next) = self.resolve_name(m, segment, hops + 1) else {
                break; // not followed: the module it was looked up in
            };
            current = next;
        }
        Some((self.file_of(current), name))
    }

    /// What `name` means inside `module`: a child module, an item, or whatever it imports.
    fn resolve_name(&self, module: usize, name: &str, hops: usize) -> Option<Target> {
        if hops > MAX_HOPS {
            return None;
        }
        let m = &self.modules[module];
        if let Some(&child) = m.children.get(name) {
            return Some(Target::Module(child));
        }
        if m.defs.contains(name) {
            return Some(Target::Item(m.file));
        }
        if let Some(path) = m.imports.get(name) {
            return self.resolve_target(module, path, hops + 1);
        }
        for glob in &m.globs {
            if let Some(Target::Module(source)) = self.resolve_target(module, glob, hops + 1) {
                if let Some(found) = self.resolve_name(source, name, hops + 1) {
                    return Some(found);
                }
            }
        }
        None
    }

    /// Like [`Self::resolve_path`], but keeps a module as a module so that a path can go on
    /// through it.
    fn resolve_target(&self, module: usize, path: &[String], hops: usize) -> Option<Target> {
        if hops > MAX_HOPS || path.is_empty() {
            return None;
        }
        let (mut current, rest) = match path[0].as_str() {
            "crate" => (Target::Module(self.root_of(module)), &path[1..]),
            "self" => (Target::Module(module), &path[1..]),
            "super" => {
                let mut m = module;
                let mut at = 0;
                while path.get(at).is_some_and(|s| s == "super") {
                    m = self.modules[m].parent?;
                    at += 1;
                }
                (Target::Module(m), &path[at..])
            }
            first => (self.resolve_name(module, first, hops + 1)?, &path[1..]),
        };
        for segment in rest {
            let Target::Module(m) = current else { break };
            current = self.resolve_name(m, segment, hops + 1).unwrap_or(Target::Item(self.modules[m].file));
        }
        Some(current)
    }
}

/// The directory holding the `mod x;` files of the module in `path`: its own directory for
/// `lib.rs`, `main.rs` and `mod.rs`, else a directory named after the file.
fn own_dir(path: &str) -> Vec<String> {
    let mut parts: Vec<String> = path.split('/').map(str::to_owned).collect();
    let file = parts.pop().unwrap_or_default();
    if !matches!(file.as_str(), "lib.rs" | "main.rs" | "mod.rs") {
        parts.push(file.trim_end_matches(".rs").to_owned());
    }
    parts
}

fn parent_dir(path: &str) -> Vec<String> {
    let mut parts: Vec<String> = path.split('/').map(str::to_owned).collect();
    parts.pop();
    parts
}

/// `cfg(test)` (or any `cfg(...)` that needs `test` and has no `not`).
fn is_test_cfg(attr: &[Tok]) -> bool {
    matches!(attr.first(), Some(Tok::Ident(word)) if word == "cfg")
        && attr.iter().any(|t| matches!(t, Tok::Ident(w) if w == "test"))
        && !attr.iter().any(|t| matches!(t, Tok::Ident(w) if w == "not"))
}

enum UseName {
    Named(String),
    Glob,
    Hidden,
}

/// One `use` tree, up to and including its `;` (or the `,`/`}` that ends a nested one):
/// every leaf as a full path and the name it brings in.
fn use_tree(p: &mut Parser, prefix: Vec<String>, out: &mut Vec<(Vec<String>, UseName)>) {
    let mut path = prefix;
    if p.peek() == Some(&Tok::Sep) {
        p.bump(); // `::std`: another crate
        return skip_to_semicolon(p);
    }
    loop {
        match p.peek().cloned() {
            Some(Tok::Ident(segment)) if segment == "as" => {
                p.bump();
                let alias = match p.peek().cloned() {
                    Some(Tok::Ident(alias)) if alias != "_" => UseName::Named(alias),
                    _ => UseName::Hidden,
                };
                p.bump();
                out.push((path.clone(), alias));
                break;
            }
            Some(Tok::Ident(segment)) => {
                p.bump();
                path.push(segment);
                if p.peek() == Some(&Tok::Sep) {
                    p.bump();
                    continue;
                }
                if !matches!(p.peek(), Some(Tok::Ident(w)) if w == "as") {
                    let mut full = path.clone();
                    let local = if full.last().is_some_and(|s| s == "self") {
                        full.pop();
                        full.last().cloned()
                    } else {
                        full.last().cloned()
                    };
                    out.push((full, local.map_or(UseName::Hidden, UseName::Named)));
                    break;
                }
            }
            Some(Tok::Punct('*')) => {
                p.bump();
                out.push((path.clone(), UseName::Glob));
                break;
            }
            Some(Tok::Punct('{')) => {
                p.bump();
                while !p.is_punct('}') && p.peek().is_some() {
                    use_tree(p, path.clone(), out);
                    if p.is_punct(',') {
                        p.bump();
                    }
                }
                p.bump();
                break;
            }
            _ => break,
        }
    }
    if p.is_punct(';') {
        p.bump();
    }
}

fn skip_to_semicolon(p: &mut Parser) {
    while let Some(tok) = p.peek() {
        let end = *tok == Tok::Punct(';');
        p.bump();
        if end {
            return;
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    /// `::`
    Sep,
    Str(String),
    Punct(char),
}

struct Parser<'t> {
    tokens: &'t [Tok],
    at: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.tokens.get(self.at)
    }

    fn bump(&mut self) {
        self.at += 1;
    }

    fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }

    fn is_ident(&self, word: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(w)) if w == word)
    }

    /// A bracketed group (`(…)`, `[…]` or `{…}`) starting here: its inner tokens.
    fn group(&mut self) -> Vec<Tok> {
        let start = self.at + 1;
        let mut depth = 0usize;
        while let Some(tok) = self.peek() {
            match tok {
                Tok::Punct('{' | '(' | '[') => depth += 1,
                Tok::Punct('}' | ')' | ']') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        self.bump();
                        return self.tokens[start..self.at - 1].to_vec();
                    }
                }
                _ => {}
            }
            self.bump();
        }
        self.tokens[start.min(self.tokens.len())..].to_vec()
    }

    /// Skips one item without reading it (test code).
    fn skip_item(&mut self) {
        let mut depth = 0usize;
        while let Some(tok) = self.peek().cloned() {
            self.bump();
            match tok {
                Tok::Punct('{' | '(' | '[') => depth += 1,
                Tok::Punct('}' | ')' | ']') => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 && tok == Tok::Punct('}') {
                        return;
                    }
                }
                Tok::Punct(';') if depth == 0 => return,
                _ => {}
            }
        }
    }

    /// `a::b::c` from here (stopping before `::<` or `::{`).
    fn path(&mut self) -> Vec<String> {
        let mut path = Vec::new();
        while let Some(Tok::Ident(segment)) = self.peek().cloned() {
            path.push(segment);
            self.bump();
            if self.peek() == Some(&Tok::Sep) && matches!(self.tokens.get(self.at + 1), Some(Tok::Ident(_))) {
                self.bump();
            } else {
                break;
            }
        }
        path
    }
}

/// Identifiers, `::`, string literals and single punctuation; comments, numbers, character
/// literals and lifetimes dropped.
fn tokenize(text: &str) -> Vec<Tok> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c.is_whitespace() {
            i += 1;
        } else if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0usize;
            while i < chars.len() {
                if chars[i] == '/' && chars.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if chars[i] == '*' && chars.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == '"' {
            let (value, end) = quoted(&chars, i + 1);
            out.push(Tok::Str(value));
            i = end;
        } else if (c == 'r' || c == 'b') && raw_string_start(&chars, i).is_some() {
            let (start, hashes) = raw_string_start(&chars, i).unwrap_or((i, 0));
            let mut j = start;
            let mut value = String::new();
            while j < chars.len() {
                if chars[j] == '"' && (0..hashes).all(|h| chars.get(j + 1 + h) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                value.push(chars[j]);
                j += 1;
            }
            out.push(Tok::Str(value));
            i = j;
        } else if c == 'b' && next == Some('"') {
            let (value, end) = quoted(&chars, i + 2);
            out.push(Tok::Str(value));
            i = end;
        } else if c == 'b' && next == Some('\'') {
            i = char_literal_end(&chars, i + 1);
        } else if c == '\'' {
            if next == Some('\\') || chars.get(i + 2) == Some(&'\'') {
                i = char_literal_end(&chars, i);
            } else {
                i += 1; // a lifetime or label: its name follows and is dropped with it
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
            }
        } else if c.is_ascii_digit() {
            while i < chars.len()
                && (chars[i].is_alphanumeric()
                    || chars[i] == '_'
                    || chars[i] == '.' && chars.get(i + 1).is_some_and(char::is_ascii_digit))
            {
                i += 1;
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let word: String = chars[start..i].iter().collect();
            let word = word.strip_prefix("r#").map(str::to_owned).unwrap_or(word);
            out.push(Tok::Ident(word));
        } else if c == ':' && next == Some(':') {
            out.push(Tok::Sep);
            i += 2;
        } else {
            out.push(Tok::Punct(c));
            i += 1;
        }
    }
    out
}

/// A `"…"` body starting at `start`: its text and the index after the closing quote.
fn quoted(chars: &[char], start: usize) -> (String, usize) {
    let mut value = String::new();
    let mut j = start;
    while j < chars.len() && chars[j] != '"' {
        if chars[j] == '\\' {
            j += 1;
        }
        if let Some(&c) = chars.get(j) {
            value.push(c);
        }
        j += 1;
    }
    (value, j + 1)
}

/// `r"`, `r#"`, `br"`, `br##"` … at `i`: the index after the opening quote and the hash count.
fn raw_string_start(chars: &[char], i: usize) -> Option<(usize, usize)> {
    let mut j = i;
    if chars.get(j) == Some(&'b') {
        j += 1;
    }
    if chars.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let mut hashes = 0;
    while chars.get(j) == Some(&'#') {
        hashes += 1;
        j += 1;
    }
    (chars.get(j) == Some(&'"')).then_some((j + 1, hashes))
}

/// A character literal whose opening quote is at `i`: the index after its closing quote.
fn char_literal_end(chars: &[char], i: usize) -> usize {
    let mut j = i + 1;
    if chars.get(j) == Some(&'\\') {
        j += 2;
    } else {
        j += 1;
    }
    while j < chars.len() && chars[j] != '\'' {
        j += 1;
    }
    j + 1
}
