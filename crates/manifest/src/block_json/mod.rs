//! Block YAML as `kubectl get -o yaml` prints it, read straight into JSON text.
//!
//! The positioned tree of [`super::tree`] costs an allocation per node and about thirty times
//! its text; a large YAML state spent nearly all of its load building and dropping trees. What
//! kubectl (go-yaml) prints is a small part of YAML: block mappings and sequences (sequences
//! in a mapping at the key's own indentation or deeper), plain, single- and double-quoted
//! scalars (go-yaml folds long ones over deeper lines), literal `|` / `|-` block scalars and
//! empty `{}` / `[]`. Generators and people add flow collections (`{cpu: 1m}`, `[a, b]`: see
//! `flow.rs`) and anchors and aliases within an entry (see `anchors.rs`). This reader understands
//! exactly that part and writes the JSON the tree's [`super::tree::Node::to_json`] would give,
//! for the JSON decoder to read.
//!
//! Anything else (folded or kept block scalars, tags, complex or non-string keys, duplicate
//! keys, tabs and control characters, floats, escaped line breaks, folded lines that could be
//! read another way, unusual indentation, broken flow collections, nesting deeper than
//! [`MAX_DEPTH`]) makes it answer `None`: the caller then parses the text with the full parser,
//! which gives the objects or the error (and its position) it always gave. So the reader never
//! has to be right about YAML it does not fully understand; where it answers, it must give
//! what the full parser gives, which the tests check shape by shape and
//! `tests/hostile/fuzz.rs` on edited entries.

use std::borrow::Cow;
use std::io::Write as _;
use std::ops::Range;

use saphyr::Scalar;

use super::Pos;

mod anchors;
mod flow;

/// How deep the reader follows nesting; deeper texts go to the full parser (serde_json's
/// decoder stops at 128 levels, the full parser at [`super::tree::MAX_DEPTH`]).
pub const MAX_DEPTH: usize = 100;

/// What the caller needs to know about the object beyond its JSON: the facts the full path
/// reads from the tree (the type, the node's position, `generateName`).
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Identity {
    /// `apiVersion` is a non-empty string.
    pub api_version: bool,
    /// `kind` is a non-empty string.
    pub kind: bool,
    /// Where the value of `metadata.name` starts (line 1 is the text's first line), when it is
    /// a non-empty string on one line.
    pub name: Option<Pos>,
    /// `metadata.generateName` is present, whatever its value.
    pub generate_name: bool,
}

/// Write the JSON of the one sequence entry `entry` (its first line holds its `-`, and it must
/// be a mapping) into `out`; `None` when the text is beyond what this reader vouches for.
pub fn entry_to_json(entry: &str, out: &mut Vec<u8>) -> Option<Identity> {
    if !plain_characters(entry) {
        return None;
    }
    let mut reader = Reader {
        bytes: entry.as_bytes(),
        text: entry,
        next: 0,
        out,
        keys: Vec::new(),
        depth: 0,
        identity: Identity::default(),
        scratch: String::new(),
        anchors: Vec::new(),
        expanded: 0,
    };
    let first = reader.peek_content()?;
    if !reader.is_dash(first) {
        return None;
    }
    reader.take(first);
    let start = reader.out.len();
    reader.entry(first, Field::Object)?;
    if reader.peek_content().is_some() || reader.out.get(start) != Some(&b'{') {
        return None;
    }
    Some(reader.identity)
}

/// No tab, no control character, none of the characters YAML treats specially (NEL, the line
/// and paragraph separators, a byte-order mark): kubectl escapes all of them in quotes.
fn plain_characters(text: &str) -> bool {
    // In chunks without an early exit, so that the common all-ASCII case vectorises.
    let ascii = text.as_bytes().chunks(64).all(|chunk| {
        chunk.iter().fold(true, |ok, &b| {
            ok & ((0x20..0x7f).contains(&b) | (b == b'\n'))
        })
    });
    ascii
        || text.chars().all(|c| {
            (c == '\n' || !c.is_control()) && !matches!(c, '\u{2028}' | '\u{2029}' | '\u{feff}')
        })
}

/// One line of the text, without its line break.
#[derive(Debug, Clone, Copy)]
struct Line {
    start: usize,
    end: usize,
    indent: usize,
}

/// The field a value belongs to, as far as [`Identity`] cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Object,
    Metadata,
    ApiVersion,
    Kind,
    Name,
    GenerateName,
    Other,
}

impl Field {
    /// The field of the value under `json_key` (the key as written into the JSON) in `self`.
    fn child(self, json_key: &[u8]) -> Field {
        // The field first: most keys are in neither mapping and need no comparison.
        match self {
            Field::Object => match json_key {
                b"\"apiVersion\"" => Field::ApiVersion,
                b"\"kind\"" => Field::Kind,
                b"\"metadata\"" => Field::Metadata,
                _ => Field::Other,
            },
            Field::Metadata => match json_key {
                b"\"name\"" => Field::Name,
                b"\"generateName\"" => Field::GenerateName,
                _ => Field::Other,
            },
            _ => Field::Other,
        }
    }
}

/// How a mapping key is written.
enum KeyText {
    Plain(Range<usize>),
    SingleQuoted(Range<usize>),
    DoubleQuoted(Range<usize>),
}

struct Reader<'t, 'o> {
    text: &'t str,
    bytes: &'t [u8],
    /// Where the first line not yet taken starts.
    next: usize,
    out: &'o mut Vec<u8>,
    /// The keys (as written into `out`) of the mappings being read, innermost last.
    keys: Vec<Range<usize>>,
    depth: usize,
    identity: Identity,
    /// Reused for decoded quoted and block scalars.
    scratch: String,
    /// The anchors defined so far, in the order of the text: each name (in `text`) and its
    /// value's JSON (in `out`) once it is read.
    anchors: Vec<(Range<usize>, Option<Range<usize>>)>,
    /// The bytes of JSON aliases have copied so far.
    expanded: usize,
}

impl Reader<'_, '_> {
    fn line_at(&self, start: usize) -> Option<Line> {
        if start >= self.bytes.len() {
            return None;
        }
        let end =
            memchr::memchr(b'\n', &self.bytes[start..]).map_or(self.bytes.len(), |i| start + i);
        let indent = self.bytes[start..end]
            .iter()
            .take_while(|&&b| b == b' ')
            .count();
        Some(Line { start, end, indent })
    }

    fn take(&mut self, line: Line) {
        self.next = line.end + 1;
    }

    /// The next line with content, taking the blank and comment lines before it.
    fn peek_content(&mut self) -> Option<Line> {
        loop {
            let line = self.line_at(self.next)?;
            let body = line.start + line.indent;
            if body < line.end && self.bytes[body] != b'#' {
                return Some(line);
            }
            self.take(line);
        }
    }

    /// A sequence entry: `-` then a space or the line's end.
    fn is_dash(&self, line: Line) -> bool {
        let at = line.start + line.indent;
        self.bytes.get(at) == Some(&b'-') && (at + 1 == line.end || self.bytes[at + 1] == b' ')
    }

    /// The first byte at or after `at` on `line` that is not a space.
    fn skip_spaces(&self, line: Line, mut at: usize) -> usize {
        while at < line.end && self.bytes[at] == b' ' {
            at += 1;
        }
        at
    }

    /// Nothing but spaces and a comment from `at` to the line's end.
    fn rest_is_empty(&self, line: Line, at: usize) -> bool {
        let body = self.skip_spaces(line, at);
        body == line.end || (self.bytes[body] == b'#' && body > at)
    }

    fn enter(&mut self) -> Option<()> {
        self.depth += 1;
        (self.depth <= MAX_DEPTH).then_some(())
    }

    /// A block sequence whose first entry is `line` (taken), its dashes at `line.indent`.
    fn sequence(&mut self, mut line: Line) -> Option<()> {
        self.enter()?;
        self.out.push(b'[');
        loop {
            self.entry(line, Field::Other)?;
            match self.peek_content() {
                Some(next) if next.indent == line.indent && self.is_dash(next) => {
                    self.take(next);
                    self.out.push(b',');
                    line = next;
                }
                Some(next) if next.indent > line.indent => return None,
                _ => break,
            }
        }
        self.out.push(b']');
        self.depth -= 1;
        Some(())
    }

    /// The value of the sequence entry on `line` (taken): after its `-`, or on the lines below.
    fn entry(&mut self, line: Line, field: Field) -> Option<()> {
        let dash = line.start + line.indent;
        if self.rest_is_empty(line, dash + 1) {
            return self.nested(line.indent, false, field);
        }
        let at = self.skip_spaces(line, dash + 1);
        if self.bytes[at] == b'-' && (at + 1 == line.end || self.bytes[at + 1] == b' ') {
            return None;
        }
        // A flow collection or a node's properties start a value, never a key this reader takes.
        if !matches!(self.bytes[at], b'{' | b'[' | b'&' | b'*') && self.key_at(line, at)?.is_some()
        {
            return self.mapping(line, at, field);
        }
        self.value(line, dash + 1, line.indent, false, field)
    }

    /// The value after a key's `:` or an entry's `-` at `after` on `line` (taken), under a key
    /// or dash in column `parent`: an anchor, then an alias, a value on the line, or the lines
    /// below (a sequence there may sit in column `parent` when `indentless`).
    fn value(
        &mut self,
        line: Line,
        after: usize,
        parent: usize,
        indentless: bool,
        field: Field,
    ) -> Option<()> {
        let (anchor, after) = match self.bytes.get(self.skip_spaces(line, after)) {
            Some(b'&') if field == Field::Other => {
                let name = self.anchor_name(self.skip_spaces(line, after) + 1, line.end)?;
                let end = name.end;
                (Some(self.anchor(name)), end)
            }
            Some(b'&') => return None,
            _ => (None, after),
        };
        let start = self.out.len();
        if self.rest_is_empty(line, after) {
            self.nested(parent, indentless, field)?;
        } else {
            let at = self.skip_spaces(line, after);
            // An anchor needs a blank after it, and before an implicit key it is the key's.
            let flow = matches!(self.bytes[at], b'{' | b'[');
            if anchor.is_some() && (at == after || (!flow && self.key_at(line, at)?.is_some())) {
                return None;
            }
            match self.bytes[at] {
                // An alias has no properties of its own.
                b'*' if field == Field::Other && anchor.is_none() => {
                    let name = self.anchor_name(at + 1, line.end)?;
                    self.rest_is_empty(line, name.end).then_some(())?;
                    self.alias(name)?;
                }
                b'*' => return None,
                _ => self.inline_value(line, at, parent, field)?,
            }
        }
        if let Some(index) = anchor {
            self.anchored(index, start);
        }
        Some(())
    }

    /// A block mapping whose first key starts at `at` on `line` (taken); its keys all start in
    /// that column.
    fn mapping(&mut self, mut line: Line, mut at: usize, field: Field) -> Option<()> {
        let indent = at - line.start;
        self.enter()?;
        self.out.push(b'{');
        let keys_from = self.keys.len();
        loop {
            let (key, after) = self.key_at(line, at)??;
            let key = self.write_key(key)?;
            self.check_unique(keys_from, key.clone())?;
            let child = field.child(&self.out[key]);
            self.out.push(b':');
            self.value(line, after, indent, true, child)?;
            match self.peek_content() {
                Some(next) if next.indent == indent && !self.is_dash(next) => {
                    self.take(next);
                    self.out.push(b',');
                    line = next;
                    at = next.start + indent;
                }
                Some(next) if next.indent >= indent => return None,
                _ => break,
            }
        }
        self.keys.truncate(keys_from);
        self.out.push(b'}');
        self.depth -= 1;
        Some(())
    }

    /// A value on the lines below its key (whose column is `parent`) or dash: a mapping or
    /// sequence indented deeper (a sequence may also sit at the key's own column when
    /// `indentless` allows it), else nothing at all, which is null.
    fn nested(&mut self, parent: usize, indentless: bool, field: Field) -> Option<()> {
        match self.peek_content() {
            Some(next)
                if self.is_dash(next)
                    && (next.indent > parent || (indentless && next.indent == parent)) =>
            {
                self.take(next);
                self.sequence(next)
            }
            Some(next) if next.indent > parent => {
                self.take(next);
                let at = next.start + next.indent;
                self.key_at(next, at)??;
                self.mapping(next, at, field)
            }
            _ => {
                self.out.extend_from_slice(b"null");
                Some(())
            }
        }
    }

    /// The key starting at `at` on `line` and where its `:` ends, `Some(None)` when the text
    /// there is not a key (a scalar, for an entry to read as one), `None` when it is beyond
    /// this reader.
    fn key_at(&self, line: Line, at: usize) -> Option<Option<(KeyText, usize)>> {
        let bytes = self.bytes;
        let colon_at =
            |i: usize| bytes.get(i) == Some(&b':') && (i + 1 == line.end || bytes[i + 1] == b' ');
        if let quote @ (b'"' | b'\'') = bytes[at] {
            let close = self.quoted_end(line, at)?;
            let colon = self.skip_spaces(line, close + 1);
            if !colon_at(colon) {
                return Some(None);
            }
            let body = at + 1..close;
            let key = match quote {
                b'"' => KeyText::DoubleQuoted(body),
                _ => KeyText::SingleQuoted(body),
            };
            return Some(Some((key, colon + 1)));
        }
        for i in at..line.end {
            if colon_at(i) {
                let end = at + bytes[at..i].trim_ascii_end().len();
                return Some(Some((KeyText::Plain(at..end), i + 1)));
            }
            if bytes[i] == b'#' && i > at && bytes[i - 1] == b' ' {
                return Some(None);
            }
        }
        Some(None)
    }

    /// Where the quoted scalar opening at `at` closes on its line; `None` when it goes on past
    /// the line (folded over lines, or an escaped line break).
    fn quoted_end(&self, line: Line, at: usize) -> Option<usize> {
        self.closing_quote(line, at + 1, self.bytes[at])
    }

    /// Where `quote` closes a quoted scalar on `line`, looking from `from`.
    fn closing_quote(&self, line: Line, from: usize, quote: u8) -> Option<usize> {
        let mut i = from;
        while i < line.end {
            match self.bytes[i] {
                b'\\' if quote == b'"' => i += 2,
                b'\'' if quote == b'\'' && self.bytes.get(i + 1) == Some(&b'\'') => i += 2,
                b if b == quote => return Some(i),
                _ => i += 1,
            }
        }
        None
    }

    /// Write a key as a JSON string; the range it takes in `out`.
    fn write_key(&mut self, key: KeyText) -> Option<Range<usize>> {
        let start = self.out.len();
        match key {
            KeyText::Plain(range) => {
                let text = &self.text[range];
                if !starts_plain(text) || !matches!(resolve(text), Scalar::String(_)) {
                    return None;
                }
                json_string(self.out, text);
            }
            KeyText::SingleQuoted(range) => self.single_quoted(&self.text[range]),
            KeyText::DoubleQuoted(range) => self.double_quoted(&self.text[range])?,
        }
        Some(start..self.out.len())
    }

    /// Refuse a key the mapping already has: a strictly increasing run (kubectl sorts keys)
    /// needs one comparison per key.
    fn check_unique(&mut self, keys_from: usize, key: Range<usize>) -> Option<()> {
        let new = &self.out[key.clone()];
        let siblings = &self.keys[keys_from..];
        let increasing = siblings
            .last()
            .is_none_or(|last| &self.out[last.clone()] < new);
        if !increasing && siblings.iter().any(|k| &self.out[k.clone()] == new) {
            return None;
        }
        self.keys.push(key);
        Some(())
    }

    /// A value starting at `at` on `line`, after a key or dash in column `parent`: a scalar,
    /// a literal block scalar, or an empty flow collection.
    fn inline_value(&mut self, line: Line, at: usize, parent: usize, field: Field) -> Option<()> {
        let bytes = self.bytes;
        match bytes[at] {
            quote @ (b'"' | b'\'') => {
                let start = self.out.len();
                let body = match self.quoted_end(line, at) {
                    Some(close) if self.rest_is_empty(line, close + 1) => {
                        Cow::Borrowed(&self.text[at + 1..close])
                    }
                    Some(_) => return None,
                    None => Cow::Owned(self.folded_quoted(line, at, parent)?),
                };
                match quote {
                    b'"' => self.double_quoted(&body)?,
                    _ => self.single_quoted(&body),
                }
                // An empty string is `""`, two bytes.
                let non_empty = self.out.len() - start > 2;
                self.note_string(field, at, non_empty);
            }
            b'|' => self.literal(line, at, parent)?,
            b'{' | b'[' => self.flow(line, at, parent, field)?,
            _ => {
                let end = self.plain_end(line, at);
                let first = &self.text[at..end];
                if !plain_line(first) {
                    return None;
                }
                // A comment ends the scalar; else it may go on, folded, on deeper lines.
                let text = match self.skip_spaces(line, end) == line.end {
                    true => self.folded_plain(first, parent)?,
                    false => Cow::Borrowed(first),
                };
                self.plain_scalar(at, &text, field)?;
            }
        }
        Some(())
    }

    /// The plain scalar `text` that starts at `at`, resolved as the full parser resolves it;
    /// `None` for a float (the JSON text of a float need not read back to the same bits).
    fn plain_scalar(&mut self, at: usize, text: &str, field: Field) -> Option<()> {
        match resolve(text) {
            Scalar::Null => self.out.extend_from_slice(b"null"),
            Scalar::Boolean(b) => self
                .out
                .extend_from_slice(if b { b"true" } else { b"false" }),
            Scalar::Integer(i) => write!(self.out, "{i}").ok()?,
            Scalar::FloatingPoint(_) => return None,
            Scalar::String(s) => {
                json_string(self.out, &s);
                self.note_string(field, at, true);
            }
        }
        Some(())
    }

    /// The lines below a quoted scalar opened at `at` on `line` (taken), up to its closing
    /// quote, taken and folded as YAML folds them (a line break is a space, or as many line
    /// breaks as there are empty lines, and the spaces around it go) into the scalar's body,
    /// its escapes unresolved. `None` for a line not deeper than `parent`, an escape at a
    /// line's end, and anything after the closing quote.
    fn folded_quoted(&mut self, line: Line, at: usize, parent: usize) -> Option<String> {
        let quote = self.bytes[at];
        let mut body = String::from(self.text[at + 1..line.end].trim_end_matches(' '));
        let mut empty_lines = 0;
        loop {
            let next = self.line_at(self.next)?;
            self.take(next);
            if next.indent == next.end - next.start {
                empty_lines += 1;
                continue;
            }
            if next.indent <= parent || body.ends_with('\\') {
                return None;
            }
            fold(&mut body, empty_lines);
            empty_lines = 0;
            let from = next.start + next.indent;
            if let Some(close) = self.closing_quote(next, from, quote) {
                body.push_str(&self.text[from..close]);
                return self.rest_is_empty(next, close + 1).then_some(body);
            }
            body.push_str(self.text[from..next.end].trim_end_matches(' '));
        }
    }

    /// A plain scalar whose first line is `first`, with the lines below deeper than `parent`
    /// that go on with it (taken), folded; `None` for a line that could be read another way
    /// (a key, an entry, an indicator, a comment).
    fn folded_plain<'t>(&mut self, first: &'t str, parent: usize) -> Option<Cow<'t, str>> {
        let mut text = Cow::Borrowed(first);
        let mut empty_lines = 0;
        let mut probe = self.next;
        while probe < self.bytes.len() {
            // Most values end at a line no deeper than their key's: seen without finding its end.
            let indent = self.bytes[probe..]
                .iter()
                .take_while(|&&b| b == b' ')
                .count();
            if indent <= parent && self.bytes.get(probe + indent).is_some_and(|&b| b != b'\n') {
                break;
            }
            let next = self.line_at(probe)?;
            probe = next.end + 1;
            if next.indent == next.end - next.start {
                empty_lines += 1;
                continue;
            }
            let body = self.text[next.start + next.indent..next.end].trim_end_matches(' ');
            if next.indent <= parent || body.starts_with('#') {
                break;
            }
            if !plain_line(body) || body.contains(" #") {
                return None;
            }
            fold(text.to_mut(), empty_lines);
            empty_lines = 0;
            text.to_mut().push_str(body);
            self.take(next);
        }
        Some(text)
    }

    /// Where the plain scalar starting at `at` ends: before a comment and trailing spaces.
    fn plain_end(&self, line: Line, at: usize) -> usize {
        let bytes = &self.bytes[at..line.end];
        let end = memchr::memmem::find(bytes, b" #").unwrap_or(bytes.len());
        at + bytes[..end].trim_ascii_end().len()
    }

    /// Record a string value the [`Identity`] watches.
    fn note_string(&mut self, field: Field, at: usize, non_empty: bool) {
        match field {
            Field::ApiVersion => self.identity.api_version = non_empty,
            Field::Kind => self.identity.kind = non_empty,
            Field::Name if non_empty => {
                let before = &self.text[..at];
                let line_start = before.rfind('\n').map_or(0, |i| i + 1);
                self.identity.name = Some(Pos {
                    line: memchr::memchr_iter(b'\n', before.as_bytes()).count() + 1,
                    column: before[line_start..].chars().count() + 1,
                });
            }
            Field::GenerateName => self.identity.generate_name = true,
            _ => {}
        }
    }

    /// A single-quoted scalar's body (`''` is a quote) as a JSON string.
    fn single_quoted(&mut self, text: &str) {
        if text.contains("''") {
            json_string(self.out, &text.replace("''", "'"));
        } else {
            json_string(self.out, text);
        }
    }

    /// A double-quoted scalar's body, its escapes resolved as YAML's, as a JSON string;
    /// `None` for an escape YAML refuses.
    fn double_quoted(&mut self, text: &str) -> Option<()> {
        if !text.contains('\\') {
            json_string(self.out, text);
            return Some(());
        }
        self.scratch.clear();
        let mut rest = text;
        while let Some(i) = rest.find('\\') {
            self.scratch.push_str(&rest[..i]);
            let escape = rest.as_bytes().get(i + 1).copied()?;
            let (c, used) = match escape {
                b'x' => (hex_char(&rest[i + 2..], 2)?, 4),
                b'u' => (hex_char(&rest[i + 2..], 4)?, 6),
                b'U' => (hex_char(&rest[i + 2..], 8)?, 10),
                _ => (named_escape(escape)?, 2),
            };
            self.scratch.push(c);
            rest = &rest[i + used..];
        }
        self.scratch.push_str(rest);
        json_string(self.out, &self.scratch);
        Some(())
    }

    /// A literal block scalar whose `|` is at `at` on `line` (taken), under a key or dash in
    /// column `parent`: its lines are the ones below indented deeper than `parent`. Clip
    /// (`|`) and strip (`|-`) chomping, the indentation found from the first line.
    fn literal(&mut self, line: Line, at: usize, parent: usize) -> Option<()> {
        let bytes = self.bytes;
        let strip = bytes.get(at + 1) == Some(&b'-') && at + 1 < line.end;
        let header_end = at + 1 + usize::from(strip);
        if header_end < line.end && bytes[header_end] != b' ' {
            return None;
        }
        if !self.rest_is_empty(line, header_end) || line.end == bytes.len() {
            return None;
        }
        self.scratch.clear();
        let mut indent = None;
        let mut blank_lines = 0;
        let mut leading_blank_width = 0;
        while let Some(next) = self.line_at(self.next) {
            let width = next.end - next.start;
            if next.indent == width {
                match indent {
                    Some(indent) if width > indent => return None,
                    Some(_) => {}
                    None => leading_blank_width = leading_blank_width.max(width),
                }
                blank_lines += 1;
                self.take(next);
                continue;
            }
            let content = *indent.get_or_insert(next.indent);
            if next.indent < content {
                break;
            }
            if content <= parent || leading_blank_width > content || next.end == bytes.len() {
                return None;
            }
            if !self.scratch.is_empty() {
                self.scratch.push('\n');
            }
            self.scratch.extend(std::iter::repeat_n('\n', blank_lines));
            blank_lines = 0;
            self.scratch
                .push_str(&self.text[next.start + content..next.end]);
            self.take(next);
        }
        // A literal without a line of content is left to the full parser.
        indent?;
        if !strip {
            self.scratch.push('\n');
        }
        json_string(self.out, &self.scratch);
        Some(())
    }
}

/// A line of a plain scalar this reader takes: see [`starts_plain`], and nothing that would
/// make it a key.
fn plain_line(text: &str) -> bool {
    starts_plain(text)
        && memchr::memmem::find(text.as_bytes(), b": ").is_none()
        && !text.ends_with(':')
}

/// Join the next line of a folded scalar to `text`: a space, or the empty lines between.
fn fold(text: &mut String, empty_lines: usize) {
    match empty_lines {
        0 => text.push(' '),
        n => text.extend(std::iter::repeat_n('\n', n)),
    }
}

/// The scalar a plain text resolves to, exactly as the full parser resolves it (YAML 1.2's
/// core schema as saphyr reads it). Text that cannot be a null, boolean or number (it starts
/// with none of their first characters) is a string without asking.
fn resolve(text: &str) -> Scalar<'_> {
    match text.as_bytes().first() {
        Some(b'0'..=b'9' | b'+' | b'-' | b'.' | b'~' | b'n' | b'N' | b't' | b'T' | b'f' | b'F') => {
            Scalar::parse_from_cow(Cow::Borrowed(text))
        }
        Some(_) => Scalar::String(Cow::Borrowed(text)),
        None => Scalar::Null,
    }
}

/// A plain scalar this reader takes: not empty, printable ASCII (kubectl quotes the rest), not
/// starting with an indicator (`-` only before a space or the end: `-1` is a number).
fn starts_plain(text: &str) -> bool {
    let bytes = text.as_bytes();
    let Some(&first) = bytes.first() else {
        return false;
    };
    let lone_dash = first == b'-' && bytes.get(1).is_none_or(|&next| next == b' ');
    bytes.iter().all(|&b| (0x20..0x7f).contains(&b))
        && !b",[]{}#&*!|>'\"%@`?:".contains(&first)
        && !lone_dash
}

/// The character of a one-letter escape, as saphyr reads them; `None` for one it refuses (and
/// for an escaped tab, which the reader never sees).
fn named_escape(escape: u8) -> Option<char> {
    Some(match escape {
        b'0' => '\0',
        b'a' => '\x07',
        b'b' => '\x08',
        b't' => '\t',
        b'n' => '\n',
        b'v' => '\x0b',
        b'f' => '\x0c',
        b'r' => '\r',
        b'e' => '\x1b',
        b' ' => ' ',
        b'"' => '"',
        b'/' => '/',
        b'\\' => '\\',
        b'N' => '\u{85}',
        b'_' => '\u{a0}',
        b'L' => '\u{2028}',
        b'P' => '\u{2029}',
        _ => return None,
    })
}

/// The character of the `digits` hex digits at the start of `text`; `None` when they are not
/// all hex digits or name no character (a surrogate).
fn hex_char(text: &str, digits: usize) -> Option<char> {
    let hex = text.get(..digits)?;
    if !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    char::from_u32(u32::from_str_radix(hex, 16).ok()?)
}

/// `text` as a JSON string literal.
fn json_string(out: &mut Vec<u8>, text: &str) {
    out.push(b'"');
    let bytes = text.as_bytes();
    // Most strings need no escape: checked without an early exit, so that it vectorises.
    let clean = bytes.iter().fold(true, |ok, &b| {
        ok & (b >= 0x20) & (b != b'"') & (b != b'\\') & (b != 0x7f)
    });
    if clean {
        out.extend_from_slice(bytes);
        out.push(b'"');
        return;
    }
    let mut copied = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escaped: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\t' => b"\\t",
            b'\r' => b"\\r",
            0x08 => b"\\b",
            0x0c => b"\\f",
            0..0x20 | 0x7f => {
                out.extend_from_slice(&bytes[copied..i]);
                write!(out, "\\u{b:04x}").expect("writing to a Vec cannot fail");
                copied = i + 1;
                continue;
            }
            _ => continue,
        };
        out.extend_from_slice(&bytes[copied..i]);
        out.extend_from_slice(escaped);
        copied = i + 1;
    }
    out.extend_from_slice(&bytes[copied..]);
    out.push(b'"');
}

#[cfg(test)]
mod tests;
