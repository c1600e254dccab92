//! A YAML/JSON document tree that remembers where every node came from.
//!
//! saphyr gives us marked nodes; we convert them once into this owned tree so the rest of the
//! tool (typed decoding, lint rules, error messages) can ask "where is `spec.runAfter.name`?"
//! without caring about saphyr's lifetimes or hash-map keyed representation.

use std::fmt;

use saphyr::{MarkedYaml, Scalar, YamlData, YamlLoader};
use saphyr_parser::Parser;

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

/// How many nodes alias expansion may produce before we call the input a YAML bomb.
const ALIAS_EXPANSION_LIMIT: usize = 100_000;
/// How deep a document may nest; deeper input is refused instead of overflowing the stack.
/// Real manifests nest a few dozen levels.
const MAX_DEPTH: usize = 1024;
/// The parser recurses once per nesting level; this stack holds [`MAX_DEPTH`] levels with a
/// wide margin in debug builds too.
const PARSER_STACK_BYTES: usize = 256 * 1024 * 1024;

/// Parse every document of a YAML (or JSON) text.
pub fn parse_documents(text: &str) -> Result<Vec<Node>, SyntaxError> {
    check_nesting(text)?;
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("yaml-parser".into())
            .stack_size(PARSER_STACK_BYTES)
            .spawn_scoped(scope, || parse_on_this_thread(text))
            .map_err(|e| SyntaxError {
                pos: Pos { line: 1, column: 1 },
                message: format!("cannot start the parser: {e}"),
            })?
            .join()
            .unwrap_or_else(|_| {
                Err(SyntaxError {
                    pos: Pos { line: 1, column: 1 },
                    message: "the YAML parser failed on this input".into(),
                })
            })
    })
}

fn parse_on_this_thread(text: &str) -> Result<Vec<Node>, SyntaxError> {
    let mut loader: YamlLoader<'_, MarkedYaml<'_>> = YamlLoader::default();
    loader.alias_limit(ALIAS_EXPANSION_LIMIT);
    let mut parser = Parser::new_from_str(text);
    parser.load(&mut loader, true).map_err(|e| scan_error(&e))?;
    if let Some(e) = loader.error() {
        return Err(scan_error(e));
    }
    Ok(loader
        .into_documents()
        .iter()
        .map(|doc| convert(doc, 0))
        .filter(|node| node.value != Value::Null)
        .collect())
}

fn scan_error(e: &saphyr_parser::ScanError) -> SyntaxError {
    SyntaxError {
        pos: Pos {
            line: e.marker().line(),
            column: e.marker().col() + 1,
        },
        message: e.info().to_string(),
    }
}

/// saphyr's parser recurses per nesting level; refuse pathological nesting before it gets
/// there. A line's block depth is at most its indentation plus the `- ` / `? ` indicators
/// that open it (each nested block collection needs one more column or one more indicator);
/// flow collections add their bracket depth.
fn check_nesting(text: &str) -> Result<(), SyntaxError> {
    let mut flow_depth = 0usize;
    let mut in_quote: Option<char> = None;
    for (index, line) in text.lines().enumerate() {
        let line_number = index + 1;
        let refuse = |column: usize| SyntaxError {
            pos: Pos {
                line: line_number,
                column,
            },
            message: format!("document nests deeper than {MAX_DEPTH} levels"),
        };
        if in_quote.is_none() && flow_depth == 0 {
            let indent = line.len() - line.trim_start_matches(' ').len();
            let mut rest = &line[indent..];
            let mut depth = indent;
            while let Some(after) = rest.strip_prefix("- ").or_else(|| rest.strip_prefix("? ")) {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(refuse(line.len() - rest.len() + 1));
                }
                rest = after.trim_start_matches(' ');
            }
            if depth > MAX_DEPTH {
                return Err(refuse(1));
            }
        }
        for (column, c) in line.chars().enumerate() {
            match (in_quote, c) {
                (Some(q), c) if c == q => in_quote = None,
                (Some(_), _) => {}
                (None, '"') | (None, '\'') => in_quote = Some(c),
                (None, '#') => break,
                (None, '[') | (None, '{') => {
                    flow_depth += 1;
                    if flow_depth > MAX_DEPTH {
                        return Err(refuse(column + 1));
                    }
                }
                (None, ']') | (None, '}') => flow_depth = flow_depth.saturating_sub(1),
                _ => {}
            }
        }
    }
    Ok(())
}

fn pos_of(node: &MarkedYaml<'_>) -> Pos {
    Pos {
        line: node.span.start.line(),
        column: node.span.start.col() + 1,
    }
}

fn convert(node: &MarkedYaml<'_>, depth: usize) -> Node {
    let pos = pos_of(node);
    let value = if depth > MAX_DEPTH {
        Value::Null
    } else {
        match &node.data {
            YamlData::Value(scalar) => scalar_value(scalar),
            YamlData::Representation(text, _, _) => Value::Str(text.to_string()),
            YamlData::Sequence(items) => {
                Value::Seq(items.iter().map(|n| convert(n, depth + 1)).collect())
            }
            YamlData::Mapping(map) => Value::Map(
                map.iter()
                    .map(|(k, v)| Entry {
                        key: key_text(k),
                        key_pos: pos_of(k),
                        value: convert(v, depth + 1),
                    })
                    .collect(),
            ),
            YamlData::Tagged(_, inner) => return convert(inner, depth + 1),
            YamlData::Alias(_) | YamlData::BadValue => Value::Null,
        }
    };
    Node { pos, value }
}

fn scalar_value(scalar: &Scalar<'_>) -> Value {
    match scalar {
        Scalar::Null => Value::Null,
        Scalar::Boolean(b) => Value::Bool(*b),
        Scalar::Integer(i) => Value::Int(*i),
        Scalar::FloatingPoint(f) => Value::Float(f.into_inner()),
        Scalar::String(s) => Value::Str(s.to_string()),
    }
}

fn key_text(key: &MarkedYaml<'_>) -> String {
    match &key.data {
        YamlData::Value(Scalar::String(s)) => s.to_string(),
        YamlData::Value(Scalar::Integer(i)) => i.to_string(),
        YamlData::Value(Scalar::Boolean(b)) => b.to_string(),
        YamlData::Value(Scalar::FloatingPoint(f)) => f.to_string(),
        YamlData::Value(Scalar::Null) => "null".into(),
        YamlData::Representation(text, _, _) => text.to_string(),
        _ => "<complex key>".into(),
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

    #[test]
    fn syntax_errors_carry_positions() {
        let err = parse_documents("a: 1\nb: [1, 2\n").unwrap_err();
        assert!(err.pos.line >= 2, "{err:?}");
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let text = "[".repeat(100_000);
        let err = parse_documents(&text).unwrap_err();
        assert!(err.message.contains("nests deeper"));
    }

    #[test]
    fn deep_block_nesting_is_refused_not_overflowed() {
        let sequences = format!("{}x\n", "- ".repeat(10_000));
        let err = parse_documents(&sequences).unwrap_err();
        assert_eq!(
            err.to_string(),
            "1:2049: document nests deeper than 1024 levels"
        );
        let mut mappings = String::new();
        for i in 0..3_000 {
            mappings.push_str(&format!("{}k:\n", " ".repeat(i)));
        }
        let err = parse_documents(&mappings).unwrap_err();
        assert_eq!(
            err.to_string(),
            "1026:1: document nests deeper than 1024 levels"
        );
        // Just under the limit still parses, on any thread's stack.
        let deep = format!("{}x\n", "- ".repeat(MAX_DEPTH - 1));
        assert_eq!(parse_documents(&deep).unwrap().len(), 1);
    }

    #[test]
    fn alias_bombs_are_refused() {
        let mut text = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 0..9 {
            let prev = if i == 0 {
                "a".to_string()
            } else {
                format!("l{}", i - 1)
            };
            text.push_str(&format!(
                "l{i}: &l{i} [*{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}, *{prev}]\n"
            ));
        }
        assert!(parse_documents(&text).is_err());
    }
}
