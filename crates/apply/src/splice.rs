//! Faithful edits of a YAML (or JSON) text: set one field and leave every other byte alone.
//!
//! A GitOps reviewer must see exactly the lines the tool changed, so the field is spliced into
//! the original text instead of re-serializing the document: comments, key order, quoting,
//! indentation and line endings (CRLF included) of everything else stay as they were. Where
//! the field lives in block style, its new value is rendered as a block at the key's
//! indentation; inside a flow mapping (`{...}`, which is also every JSON document) it is
//! written as compact JSON, which is valid YAML flow.

use serde_json::Value as Json;

use df_manifest::tree::{Entry, Node, Pos, Value};

/// A byte range of the original text and what replaces it.
pub(crate) type Splice = (usize, usize, String);

/// The splice that sets `path` (under `root`, a node parsed from `text`) to `value`, creating
/// missing mappings on the way.
/// `lines` indexes `text`.
pub fn set_field(
    text: &str,
    lines: &LineIndex,
    root: &Node,
    path: &[&str],
    value: &Json,
) -> Result<Splice, String> {
    let mut parent = root;
    for (depth, key) in path.iter().enumerate() {
        let Value::Map(entries) = &parent.value else {
            return Err(format!(
                "{} is not a mapping at line {}",
                path[..depth].join("."),
                parent.pos.line
            ));
        };
        let rest = &path[depth + 1..];
        match entries.iter().find(|e| e.key == *key) {
            Some(entry) if !rest.is_empty() && matches!(entry.value.value, Value::Map(_)) => {
                parent = &entry.value;
            }
            Some(entry) => {
                let value = nest(rest, value);
                return replace_entry(text, lines, parent, entry, &value);
            }
            None => {
                return insert_entry(text, lines, parent, entries, key, &nest(rest, value));
            }
        }
    }
    Err("empty field path".into())
}

/// `value` under the mappings `keys`, outermost first.
fn nest(keys: &[&str], value: &Json) -> Json {
    keys.iter().rev().fold(value.clone(), |inner, key| {
        let mut map = serde_json::Map::new();
        map.insert((*key).to_string(), inner);
        Json::Object(map)
    })
}

fn replace_entry(
    text: &str,
    lines: &LineIndex,
    parent: &Node,
    entry: &Entry,
    value: &Json,
) -> Result<Splice, String> {
    if is_flow(text, lines, parent) {
        let start = lines.offset(text, entry.value.pos);
        let end = flow_value_end(text, start);
        return Ok((start, end, compact(value)?));
    }
    let start = lines.offset(text, entry.key_pos);
    let line = lines.line_of(start);
    let indent = entry.key_pos.column - 1;
    let end = block_entry_end(text, lines, line, indent);
    let eol = lines.eol(text, line);
    let mut rendered = render_block(&entry.key, value, indent, eol)?;
    // The key keeps its place on its line (after `- ` in a sequence item, for instance).
    rendered.drain(..indent);
    if end == text.len() && !text.ends_with('\n') {
        rendered.truncate(rendered.len() - eol.len());
    }
    Ok((start, end, rendered))
}

/// Add `key: value` to the mapping `parent`, whose entries are `entries`.
fn insert_entry(
    text: &str,
    lines: &LineIndex,
    parent: &Node,
    entries: &[Entry],
    key: &str,
    value: &Json,
) -> Result<Splice, String> {
    if is_flow(text, lines, parent) {
        let open = lines.offset(text, parent.pos);
        let close = flow_value_end(text, open) - 1;
        let at = text[..close].trim_end().len();
        let json_keys = text.trim_start().starts_with('{');
        let key = if json_keys {
            serde_json::to_string(key).map_err(|e| e.to_string())?
        } else {
            key.to_string()
        };
        let separator = if entries.is_empty() { "" } else { ", " };
        return Ok((at, at, format!("{separator}{key}: {}", compact(value)?)));
    }
    let (first, last) = match (entries.first(), entries.last()) {
        (Some(first), Some(last)) => (first, last),
        _ => return Err(format!("empty mapping at line {}", parent.pos.line)),
    };
    let indent = first.key_pos.column - 1;
    let last_line = lines.line_of(lines.offset(text, last.key_pos));
    let at = block_entry_end(text, lines, last_line, last.key_pos.column - 1);
    let eol = lines.eol(text, last_line);
    let rendered = render_block(key, value, indent, eol)?;
    if at == text.len() && !text.ends_with('\n') {
        return Ok((
            at,
            at,
            format!("{eol}{}", &rendered[..rendered.len() - eol.len()]),
        ));
    }
    Ok((at, at, rendered))
}

/// Whether a mapping node is written in flow style (`{...}`).
fn is_flow(text: &str, lines: &LineIndex, node: &Node) -> bool {
    text[lines.offset(text, node.pos)..].starts_with('{')
}

fn compact(value: &Json) -> Result<String, String> {
    serde_json::to_string(value).map_err(|e| e.to_string())
}

/// `key: value` as a YAML block, every line indented by `indent` spaces and ended by `eol`.
fn render_block(key: &str, value: &Json, indent: usize, eol: &str) -> Result<String, String> {
    let mut map = serde_json::Map::new();
    map.insert(key.to_string(), value.clone());
    let yaml = serde_saphyr::to_string(&Json::Object(map)).map_err(|e| e.to_string())?;
    let mut out = String::with_capacity(yaml.len() + indent * 8);
    for line in yaml.lines() {
        out.extend(std::iter::repeat_n(' ', indent));
        out.push_str(line);
        out.push_str(eol);
    }
    Ok(out)
}

/// Where the block entry whose key is on line `line` at column `indent` (0-based) ends: after
/// its last line, the lines under it being those indented deeper, or at the same column and
/// starting a compact sequence (`- `). Trailing blank and comment lines are left out: they
/// usually describe what follows.
fn block_entry_end(text: &str, lines: &LineIndex, line: usize, indent: usize) -> usize {
    let mut end = lines.end_of_line(text, line);
    let mut offset = end;
    for next in text[end..].split_inclusive('\n') {
        offset += next.len();
        let content = next.trim_end_matches(['\n', '\r']);
        let rest = content.trim_start_matches(' ');
        let depth = content.len() - rest.len();
        if rest.is_empty() || rest.starts_with('#') {
            continue;
        }
        let compact_sequence = depth == indent && (rest == "-" || rest.starts_with("- "));
        if depth > indent || compact_sequence {
            end = offset;
        } else {
            break;
        }
    }
    end
}

/// Where a flow value starting at `start` ends (exclusive, trailing blanks left out): at the
/// `,`, `}` or `]` that closes it, brackets and quotes inside skipped. A collection ends after
/// its closing bracket.
fn flow_value_end(text: &str, start: usize) -> usize {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = start;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'\'' => {
                i += 1;
                while i < bytes.len() {
                    if bytes[i] == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                        i += 2;
                    } else if bytes[i] == b'\'' {
                        break;
                    } else {
                        i += 1;
                    }
                }
            }
            b'#' if i == 0 || bytes[i - 1].is_ascii_whitespace() => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth <= 1 => {
                if depth == 1 {
                    return i + 1;
                }
                break;
            }
            b'}' | b']' => depth -= 1,
            b',' if depth == 0 => break,
            _ => {}
        }
        i += 1;
    }
    let end = i.min(bytes.len());
    start + text[start..end].trim_end().len()
}

/// Byte offsets of line starts, to turn parser positions (1-based line, 1-based column in
/// characters) into offsets. Built once per file.
pub struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        LineIndex { starts }
    }

    fn offset(&self, text: &str, pos: Pos) -> usize {
        let start = self.starts[(pos.line.max(1) - 1).min(self.starts.len() - 1)];
        text[start..]
            .char_indices()
            .nth(pos.column.saturating_sub(1))
            .map_or(text.len(), |(i, _)| start + i)
    }

    /// 0-based line of a byte offset.
    fn line_of(&self, offset: usize) -> usize {
        self.starts.partition_point(|&s| s <= offset) - 1
    }

    fn end_of_line(&self, text: &str, line: usize) -> usize {
        self.starts.get(line + 1).copied().unwrap_or(text.len())
    }

    /// The line ending the file uses on `line` (CRLF files keep CRLF); for a last line without
    /// one, the file's first line ending.
    fn eol(&self, text: &str, line: usize) -> &'static str {
        let end = self.end_of_line(text, line);
        let ending = if text[..end].ends_with('\n') {
            &text[..end]
        } else {
            text.find('\n').map_or("", |i| &text[..=i])
        };
        if ending.ends_with("\r\n") {
            "\r\n"
        } else {
            "\n"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use df_manifest::tree::parse_documents;

    fn apply(text: &str, path: &[&str], value: Json) -> String {
        let root = parse_documents(text).unwrap().remove(0);
        let lines = LineIndex::new(text);
        let (start, end, new) = set_field(text, &lines, &root, path, &value).unwrap();
        format!("{}{new}{}", &text[..start], &text[end..])
    }

    #[test]
    fn only_the_field_changes() {
        let zone = serde_json::json!({"nodeAffinity": {"x": ["a"]}});
        let cases: [(&str, &[&str], &str); 9] = [
            // Inserted after the last entry of a block mapping, comments kept.
            (
                "spec:\n  # the one container\n  containers:\n  - name: c # main\n    image: 'i'\n# trailing\n",
                &["spec", "affinity"],
                "spec:\n  # the one container\n  containers:\n  - name: c # main\n    image: 'i'\n  affinity:\n    nodeAffinity:\n      x:\n      - a\n# trailing\n",
            ),
            // An existing block value is replaced in place, siblings after it untouched.
            (
                "spec:\n    affinity:\n        old: 1\n    containers: []\n",
                &["spec", "affinity"],
                "spec:\n    affinity:\n      nodeAffinity:\n        x:\n        - a\n    containers: []\n",
            ),
            // CRLF stays CRLF.
            (
                "spec:\r\n  containers: []\r\n",
                &["spec", "affinity"],
                "spec:\r\n  containers: []\r\n  affinity:\r\n    nodeAffinity:\r\n      x:\r\n      - a\r\n",
            ),
            // Missing parents are created.
            (
                "kind: Job\nspec:\n  template: {}\n",
                &["spec", "template", "spec", "affinity"],
                "kind: Job\nspec:\n  template: {spec: {\"affinity\":{\"nodeAffinity\":{\"x\":[\"a\"]}}}}\n",
            ),
            (
                "kind: Job\n",
                &["spec", "affinity"],
                "kind: Job\nspec:\n  affinity:\n    nodeAffinity:\n      x:\n      - a\n",
            ),
            // Flow mappings get flow JSON, in place.
            (
                "spec: {containers: [{name: c}]}  # pod\n",
                &["spec", "affinity"],
                "spec: {containers: [{name: c}], affinity: {\"nodeAffinity\":{\"x\":[\"a\"]}}}  # pod\n",
            ),
            (
                "spec: {affinity: {a: '}'}, containers: []}\n",
                &["spec", "affinity"],
                "spec: {affinity: {\"nodeAffinity\":{\"x\":[\"a\"]}}, containers: []}\n",
            ),
            // JSON stays JSON.
            (
                "{\n  \"kind\": \"Pod\",\n  \"spec\": {\n    \"containers\": []\n  }\n}\n",
                &["spec", "affinity"],
                "{\n  \"kind\": \"Pod\",\n  \"spec\": {\n    \"containers\": [], \"affinity\": {\"nodeAffinity\":{\"x\":[\"a\"]}}\n  }\n}\n",
            ),
            // A file without a final newline stays without one.
            (
                "spec:\n  containers: []",
                &["spec", "affinity"],
                "spec:\n  containers: []\n  affinity:\n    nodeAffinity:\n      x:\n      - a",
            ),
        ];
        for (text, path, expected) in cases {
            assert_eq!(apply(text, path, zone.clone()), expected, "{text}");
        }
    }
}
