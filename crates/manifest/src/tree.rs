//! A YAML/JSON document tree that remembers where every node came from.
//!
//! saphyr gives us marked nodes; we convert them once into this owned tree so the rest of the
//! tool (typed decoding, lint rules, error messages) can ask "where is `spec.runAfter.name`?"
//! without caring about saphyr's lifetimes or hash-map keyed representation.

use std::fmt;

use rustc_hash::{FxHashMap, FxHashSet};
use saphyr::Scalar;
use saphyr_parser::{Event, Marker, Parser};

/// A 1-based line and column in a source file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default, serde::Serialize)]
pub struct Pos {
    pub line: usize,
    pub column: usize,
}

impl fmt::Display for Pos {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.line, self.column)
    }
}

/// A node of the document with its position.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub pos: Pos,
    pub value: Value,
}

/// A mapping entry; the key keeps its own position so lint can point at a misspelled field name.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub key: String,
    pub key_pos: Pos,
    pub value: Node,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Seq(Vec<Node>),
    Map(Vec<Entry>),
}

/// The position of a byte offset in a text (for errors found before or without parsing).
pub fn position_at(bytes: &[u8], offset: usize) -> Pos {
    let before = &bytes[..offset.min(bytes.len())];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    Pos {
        line,
        column: before.len() - line_start + 1,
    }
}

/// One segment of a field path such as `spec.runAfter.prefers[0].weight`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathSegment {
    Field(String),
    Index(usize),
}

/// Render a path the way kubectl and users write it: `spec.containers[0].image`.
pub fn format_path(path: &[PathSegment]) -> String {
    let mut out = String::new();
    for segment in path {
        match segment {
            PathSegment::Field(name) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(name);
            }
            PathSegment::Index(i) => {
                out.push_str(&format!("[{i}]"));
            }
        }
    }
    out
}

/// Parse `spec.containers[0].image` back into segments.
pub fn parse_path(path: &str) -> Vec<PathSegment> {
    let mut segments = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (name, rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !name.is_empty() {
            segments.push(PathSegment::Field(name.to_string()));
        }
        for index in rest.split('[').filter(|s| !s.is_empty()) {
            match index.trim_end_matches(']').parse() {
                Ok(i) => segments.push(PathSegment::Index(i)),
                Err(_) => segments.push(PathSegment::Field(index.trim_end_matches(']').into())),
            }
        }
    }
    segments
}

/// Why a document could not be parsed as YAML.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{pos}: {message}")]
pub struct SyntaxError {
    pub pos: Pos,
    pub message: String,
}

/// How deep a document may nest. Real manifests nest a few dozen levels; everything that later
/// walks the tree (decoding, lint, drop) recurses per level, so depth is bounded for every
/// syntax (block, flow, quoted, JSON) from the parser's own events.
pub const MAX_DEPTH: usize = 1024;
/// How deep `[...]`/`{...}` (and so JSON) may nest: saphyr's scanner stops there.
pub(crate) const MAX_FLOW_DEPTH: usize = u8::MAX as usize;
/// How many nodes alias expansion may add to one text before we call the input a YAML bomb.
pub(crate) const ALIAS_EXPANSION_NODES: usize = 100_000;
/// How many bytes of scalars and keys alias expansion may add to one text: a few aliases of a
/// long string expand exponentially in bytes while adding few nodes.
pub(crate) const ALIAS_EXPANSION_BYTES: usize = 16 * 1024 * 1024;

/// Parse every document of a YAML (or JSON) text.
///
/// The tree is built from saphyr-parser's event stream with an explicit stack (the parser is
/// a state machine; its own `load` and saphyr's loader recurse per level), so nesting and
/// alias expansion are checked at the event that would exceed them and parsing stops there.
///
/// The indentation shapes go-yaml accepts and saphyr refuses are parsed as go-yaml does (see
/// [`super::indent`]); any other error is reported at its place in `text` (repairs move no
/// node), and the first one when a text needs more repairs than the budget.
pub fn parse_documents(text: &str) -> Result<Vec<Node>, SyntaxError> {
    let mut first_error = None;
    let mut attempt = std::borrow::Cow::Borrowed(text);
    for _ in 0..=super::indent::MAX_REPAIRS {
        let error = match parse_once(&attempt) {
            Ok(documents) => return Ok(documents),
            Err(Failure::Tree(error)) => return Err(error),
            Err(Failure::Scan(error)) => error,
        };
        let marker = *error.marker();
        first_error.get_or_insert_with(|| scan_error(&error, text));
        match super::indent::repair(&attempt, error.info(), marker.line(), marker.col()) {
            Some(repaired) => attempt = std::borrow::Cow::Owned(repaired),
            None => return Err(scan_error(&error, &attempt)),
        }
    }
    Err(first_error.expect("the loop runs at least once"))
}

/// Why one parse of a text stopped: the scanner's errors may be one of the shapes
/// [`parse_documents`] retries, the tree builder's refusals are final.
enum Failure {
    Scan(saphyr_parser::ScanError),
    Tree(SyntaxError),
}

fn parse_once(text: &str) -> Result<Vec<Node>, Failure> {
    let mut builder = TreeBuilder::default();
    for event in Parser::new_from_str(text) {
        let (event, span) = event.map_err(Failure::Scan)?;
        builder
            .on_event(event, marker_pos(span.start))
            .map_err(Failure::Tree)?;
    }
    Ok(builder.documents)
}

fn scan_error(e: &saphyr_parser::ScanError, text: &str) -> SyntaxError {
    // The scanner counts flow levels in a `u8` and says only "recursion limit exceeded".
    let message = match e.info() {
        "recursion limit exceeded" => {
            format!("flow collections nest deeper than {MAX_FLOW_DEPTH} levels")
        }
        info => info.to_string(),
    };
    let mut pos = marker_pos(*e.marker());
    if message.contains("tab") {
        pos.column = offending_tab(text, pos).unwrap_or(pos.column);
    }
    SyntaxError { pos, message }
}

/// The 1-based column of the tab a tab error is about. The scanner reports some of them (tabs
/// in block indentation) where it stopped, after the blanks it skipped; the tab is the first
/// one of those blanks. `None` when no tab ends right before `pos` on its line.
fn offending_tab(text: &str, pos: Pos) -> Option<usize> {
    let line: Vec<char> = text
        .lines()
        .nth(pos.line.checked_sub(1)?)?
        .chars()
        .collect();
    let stop = (pos.column - 1).min(line.len());
    if line.get(stop) == Some(&'\t') {
        return None;
    }
    let blanks_from = line[..stop]
        .iter()
        .rposition(|c| !matches!(c, ' ' | '\t'))
        .map_or(0, |i| i + 1);
    let tab = line[blanks_from..stop].iter().position(|&c| c == '\t')?;
    Some(blanks_from + tab + 1)
}

fn marker_pos(marker: Marker) -> Pos {
    Pos {
        line: marker.line(),
        column: marker.col() + 1,
    }
}

/// What a subtree costs once expanded: alias expansion is budgeted in both.
#[derive(Debug, Clone, Copy, Default)]
struct Size {
    nodes: usize,
    bytes: usize,
}

impl Size {
    fn add(&mut self, other: Size) {
        self.nodes += other.nodes;
        self.bytes += other.bytes;
    }
}

/// A collection whose end event has not arrived yet.
struct Open {
    pos: Pos,
    anchor: usize,
    size: Size,
    items: OpenItems,
}

enum OpenItems {
    Seq(Vec<Node>),
    Map {
        entries: Vec<Entry>,
        /// The key read since the last value, waiting for its value.
        pending_key: Option<(String, Pos)>,
        /// Scalar keys seen so far (typed, so `1` and `"1"` differ as in YAML).
        seen: FxHashSet<(u8, String)>,
    },
}

#[derive(Default)]
struct TreeBuilder {
    documents: Vec<Node>,
    stack: Vec<Open>,
    root: Option<Node>,
    /// Anchored subtrees of the current document, by the parser's anchor id.
    anchors: FxHashMap<usize, (Node, Size)>,
    /// What aliases have added so far in this text.
    expanded: Size,
}

impl TreeBuilder {
    fn on_event(&mut self, event: Event<'_>, pos: Pos) -> Result<(), SyntaxError> {
        let refuse = |message: String| SyntaxError { pos, message };
        match event {
            Event::StreamStart | Event::StreamEnd | Event::Nothing => {}
            Event::DocumentStart(_) => {
                self.anchors.clear();
                self.root = None;
            }
            Event::DocumentEnd => {
                if let Some(root) = self.root.take()
                    && root.value != Value::Null
                {
                    self.documents.push(root);
                }
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                if self.stack.len() >= MAX_DEPTH {
                    return Err(refuse(format!(
                        "document nests deeper than {MAX_DEPTH} levels"
                    )));
                }
                let items = if matches!(event, Event::SequenceStart(..)) {
                    OpenItems::Seq(Vec::new())
                } else {
                    OpenItems::Map {
                        entries: Vec::new(),
                        pending_key: None,
                        seen: FxHashSet::default(),
                    }
                };
                self.stack.push(Open {
                    pos,
                    anchor,
                    size: Size { nodes: 1, bytes: 0 },
                    items,
                });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let open = self
                    .stack
                    .pop()
                    .expect("the parser balances start and end events");
                let value = match open.items {
                    OpenItems::Seq(items) => Value::Seq(items),
                    OpenItems::Map { entries, .. } => Value::Map(entries),
                };
                let node = Node {
                    pos: open.pos,
                    value,
                };
                self.insert(node, open.size, open.anchor)?;
            }
            Event::Scalar(text, style, anchor, tag) => {
                let value = match Scalar::parse_from_cow_and_metadata(text, style, tag.as_ref()) {
                    Some(Scalar::Null) | None => Value::Null,
                    Some(Scalar::Boolean(b)) => Value::Bool(b),
                    Some(Scalar::Integer(i)) => Value::Int(i),
                    Some(Scalar::FloatingPoint(f)) => Value::Float(f.into_inner()),
                    Some(Scalar::String(s)) => Value::Str(s.into_owned()),
                };
                let bytes = match &value {
                    Value::Str(s) => s.len(),
                    _ => 0,
                };
                self.insert(Node { pos, value }, Size { nodes: 1, bytes }, anchor)?;
            }
            Event::Alias(id) => {
                let Some((node, size)) = self.anchors.get(&id) else {
                    return Err(refuse("alias to an anchor of another document".into()));
                };
                let size = *size;
                let mut expanded = self.expanded;
                expanded.add(size);
                if expanded.nodes > ALIAS_EXPANSION_NODES || expanded.bytes > ALIAS_EXPANSION_BYTES
                {
                    return Err(refuse(format!(
                        "alias expansion exceeds {ALIAS_EXPANSION_NODES} nodes or {} MiB (a YAML bomb?)",
                        ALIAS_EXPANSION_BYTES / 1024 / 1024
                    )));
                }
                self.expanded = expanded;
                let node = Node {
                    pos,
                    value: node.value.clone(),
                };
                self.insert(node, size, 0)?;
            }
        }
        Ok(())
    }

    /// Attach a finished node to the open collection (or make it the document root).
    fn insert(&mut self, node: Node, size: Size, anchor: usize) -> Result<(), SyntaxError> {
        if anchor > 0 {
            self.anchors.insert(anchor, (node.clone(), size));
        }
        let Some(parent) = self.stack.last_mut() else {
            self.root = Some(node);
            return Ok(());
        };
        parent.size.add(size);
        match &mut parent.items {
            OpenItems::Seq(items) => items.push(node),
            OpenItems::Map {
                entries,
                pending_key,
                seen,
            } => match pending_key.take() {
                None => {
                    let (kind, key) = key_text(&node.value);
                    if kind != COMPLEX_KEY && !seen.insert((kind, key.clone())) {
                        return Err(SyntaxError {
                            pos: node.pos,
                            message: format!("duplicated key {key:?} in mapping"),
                        });
                    }
                    parent.size.bytes += key.len();
                    *pending_key = Some((key, node.pos));
                }
                Some((key, key_pos)) => entries.push(Entry {
                    key,
                    key_pos,
                    value: node,
                }),
            },
        }
        Ok(())
    }
}

/// The kind tag [`key_text`] gives keys that are collections: never checked for duplicates.
const COMPLEX_KEY: u8 = u8::MAX;

/// A mapping key as text, with its scalar kind so that typed duplicates can be told apart.
fn key_text(value: &Value) -> (u8, String) {
    match value {
        Value::Str(s) => (0, s.clone()),
        Value::Int(i) => (1, i.to_string()),
        Value::Bool(b) => (2, b.to_string()),
        Value::Float(f) => (3, f.to_string()),
        Value::Null => (4, "null".into()),
        Value::Seq(_) | Value::Map(_) => (COMPLEX_KEY, "<complex key>".into()),
    }
}

impl Node {
    /// The child at `path`, if every segment exists.
    pub fn lookup(&self, path: &[PathSegment]) -> Option<&Node> {
        let mut node = self;
        for segment in path {
            node = match (segment, &node.value) {
                (PathSegment::Field(name), Value::Map(entries)) => {
                    &entries.iter().find(|e| &e.key == name)?.value
                }
                (PathSegment::Index(i), Value::Seq(items)) => items.get(*i)?,
                _ => return None,
            };
        }
        Some(node)
    }

    /// The position of the deepest node along `path` that exists: errors about a missing or
    /// mistyped field still point as close to it as the document allows.
    pub fn closest_pos(&self, path: &[PathSegment]) -> Pos {
        let mut node = self;
        for segment in path {
            let next = match (segment, &node.value) {
                (PathSegment::Field(name), Value::Map(entries)) => {
                    entries.iter().find(|e| &e.key == name).map(|e| &e.value)
                }
                (PathSegment::Index(i), Value::Seq(items)) => items.get(*i),
                _ => None,
            };
            match next {
                Some(n) => node = n,
                None => break,
            }
        }
        node.pos
    }

    /// The position of the key `name` in this mapping (for "unknown field" style messages).
    pub fn key_pos(&self, path: &[PathSegment]) -> Option<Pos> {
        let (last, parent) = path.split_last()?;
        let PathSegment::Field(name) = last else {
            return self.lookup(path).map(|n| n.pos);
        };
        match &self.lookup(parent)?.value {
            Value::Map(entries) => entries.iter().find(|e| &e.key == name).map(|e| e.key_pos),
            _ => None,
        }
    }

    pub fn get(&self, field: &str) -> Option<&Node> {
        match &self.value {
            Value::Map(entries) => entries.iter().find(|e| e.key == field).map(|e| &e.value),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match &self.value {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    pub fn entries(&self) -> &[Entry] {
        match &self.value {
            Value::Map(entries) => entries,
            _ => &[],
        }
    }

    pub fn items(&self) -> &[Node] {
        match &self.value {
            Value::Seq(items) => items,
            _ => &[],
        }
    }

    /// Plain JSON for typed decoding with serde.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match &self.value {
            Value::Null => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::Float(f) => serde_json::Number::from_f64(*f).map_or(J::Null, J::Number),
            Value::Str(s) => J::String(s.clone()),
            Value::Seq(items) => J::Array(items.iter().map(Node::to_json).collect()),
            Value::Map(entries) => J::Object(
                entries
                    .iter()
                    .map(|e| (e.key.clone(), e.value.to_json()))
                    .collect(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_of_nested_fields_in_later_documents() {
        let text = "a: 1\n---\nkind: Pod\nspec:\n  containers:\n  - name: x\n    image: y\n";
        let docs = parse_documents(text).unwrap();
        assert_eq!(docs.len(), 2);
        let image = docs[1]
            .lookup(&parse_path("spec.containers[0].image"))
            .unwrap();
        assert_eq!(
            image.pos,
            Pos {
                line: 7,
                column: 12
            }
        );
        assert_eq!(
            docs[1].key_pos(&parse_path("spec.containers[0].image")),
            Some(Pos { line: 7, column: 5 })
        );
    }

    #[test]
    fn paths_round_trip() {
        for path in ["spec.runAfter.prefers[0].weight", "a", "a[1][2].b"] {
            assert_eq!(format_path(&parse_path(path)), path);
        }
    }

    #[test]
    fn empty_documents_are_dropped() {
        assert!(parse_documents("").unwrap().is_empty());
        assert_eq!(parse_documents("---\n---\na: 1\n").unwrap().len(), 1);
    }

    /// Tab errors point at the tab: in block indentation the scanner stops at the content after
    /// the tabs (column 3 below), the tab that breaks the indentation is the first blank.
    /// A tab after a mapping's `:` is YAML's separator, as go-yaml reads it.
    #[test]
    fn tab_errors_point_at_the_tab_and_a_tab_separator_parses() {
        let cases = [("a:\n\tb: 1\n", (2, 1)), ("a:\n  b:\n \t\tc: 1\n", (3, 2))];
        for (text, (line, column)) in cases {
            let err = parse_documents(text).unwrap_err();
            assert_eq!(
                (err.pos.line, err.pos.column),
                (line, column),
                "{text:?}: {err:?}"
            );
            assert!(err.message.contains("tab"), "{err:?}");
        }
        let docs = parse_documents("spec:\n  image:\tnginx\n  tag:\t \tv1\n").unwrap();
        let value = |path| docs[0].lookup(&parse_path(path)).unwrap().as_str().unwrap();
        assert_eq!((value("spec.image"), value("spec.tag")), ("nginx", "v1"));
    }

    #[test]
    fn syntax_errors_carry_positions() {
        let err = parse_documents("a: 1\nb: [1, 2\n").unwrap_err();
        assert!(err.pos.line >= 2, "{err:?}");
    }

    #[test]
    fn deep_nesting_is_refused_for_every_syntax() {
        let mut indented_mappings = String::new();
        for i in 0..3_000 {
            indented_mappings.push_str(&format!("{}k:\n", " ".repeat(i)));
        }
        let cases = [
            // Block sequences on one line.
            (
                format!("{}x\n", "- ".repeat(10_000)),
                "1:2049: document nests deeper than 1024 levels",
            ),
            // The same with a quote in a plain scalar, which fooled a text pre-scan.
            (
                format!("a: don't\nb:\n{}x\n", "- ".repeat(10_000)),
                "3:2047: document nests deeper than 1024 levels",
            ),
            // Quoted scalars before and at the bottom of the nesting.
            (
                format!("- 'a'\n{}'x'\n", "- ".repeat(5_000)),
                "2:2049: document nests deeper than 1024 levels",
            ),
            (
                indented_mappings,
                "1025:1025: document nests deeper than 1024 levels",
            ),
            // Flow and JSON: the scanner itself stops at 255 flow levels.
            (
                "[".repeat(100_000),
                "1:256: flow collections nest deeper than 255 levels",
            ),
            (
                "{\"a\": ".repeat(10_000),
                "1:1531: flow collections nest deeper than 255 levels",
            ),
            // Flow inside block counts block levels too.
            (
                format!("{}[[x]]\n", "- ".repeat(1_023)),
                "1:2048: document nests deeper than 1024 levels",
            ),
        ];
        for (text, expected) in cases {
            let err = parse_documents(&text).unwrap_err();
            assert_eq!(err.to_string(), expected, "{}", &text[..40.min(text.len())]);
        }
        // Just under the limit still parses.
        let deep = format!("{}x\n", "- ".repeat(MAX_DEPTH - 1));
        assert_eq!(parse_documents(&deep).unwrap().len(), 1);
    }

    #[test]
    fn alias_bombs_are_refused_by_bytes_and_by_nodes() {
        // Few nodes, many bytes: ten levels of ten aliases of a 100 kB string.
        let mut strings = format!("s0: &s0 \"{}\"\n", "x".repeat(100_000));
        for i in 1..10 {
            let prev = format!("*s{}", i - 1);
            strings.push_str(&format!("s{i}: &s{i} [{}]\n", vec![prev; 10].join(", ")));
        }
        // Many nodes, few bytes.
        let mut nodes = String::from("n0: &n0 [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]\n");
        for i in 1..10 {
            let prev = format!("*n{}", i - 1);
            nodes.push_str(&format!("n{i}: &n{i} [{}]\n", vec![prev; 10].join(", ")));
        }
        for (text, expected) in [
            (
                strings,
                "4:10: alias expansion exceeds 100000 nodes or 16 MiB (a YAML bomb?)",
            ),
            (
                nodes,
                "5:45: alias expansion exceeds 100000 nodes or 16 MiB (a YAML bomb?)",
            ),
        ] {
            assert_eq!(parse_documents(&text).unwrap_err().to_string(), expected);
        }
        // Ordinary reuse of anchors expands and keeps the alias's position.
        let docs = parse_documents("a: &x {k: v}\nb: *x\n").unwrap();
        assert_eq!(
            docs[0].get("b").unwrap().get("k").unwrap().as_str(),
            Some("v")
        );
        assert_eq!(docs[0].get("b").unwrap().pos, Pos { line: 2, column: 4 });
    }

    #[test]
    fn duplicate_keys_and_cross_document_aliases_are_refused() {
        for (text, expected) in [
            ("a: 1\nb: 2\na: 3\n", "3:1: duplicated key \"a\" in mapping"),
            (
                "a: &x 1\n---\nb: *x\n",
                "3:4: alias to an anchor of another document",
            ),
        ] {
            assert_eq!(parse_documents(text).unwrap_err().to_string(), expected);
        }
        // Keys of different types are different keys, as in YAML.
        assert_eq!(
            parse_documents("1: a\n\"1\": b\n").unwrap()[0]
                .entries()
                .len(),
            2
        );
    }
}
