//! Flow collections (`{requests: {cpu: 1m, memory: 1Mi}}`, `[a, b]`), as generators and people
//! write them inside block YAML, read straight into JSON like the rest of an entry.
//!
//! What is taken: flow mappings and sequences over one line or several (each line below deeper
//! than the key or dash the collection belongs to), a trailing comma, keys without a value,
//! comments; plain scalars on one line, quoted scalars closed on their line, plain and quoted
//! keys, anchors and aliases. What is declined, for the full parser to read or refuse: a plain
//! scalar folded over lines, a `:` that could be read two ways (`a:[`, `a:,`), single-pair
//! mappings in a sequence (`[a: b]`), explicit keys, tags, empty entries, an unclosed
//! collection, duplicate keys.

use super::{Field, KeyText, Line, Reader};

/// Where reading a flow collection has got to: a byte, and the line it is on.
struct Cursor {
    at: usize,
    line: Line,
    /// The column of the key or dash the collection belongs to: every line below must be
    /// deeper.
    parent: usize,
}

/// A flow indicator: it ends a plain scalar, and may not follow a `:` that ends a key.
fn indicator(b: u8) -> bool {
    matches!(b, b',' | b'[' | b']' | b'{' | b'}')
}

impl Reader<'_, '_> {
    /// The flow collection opening at `at` on `line` (taken), under a key or dash in column
    /// `parent`; the lines it goes on over are taken, and nothing but a comment may follow it.
    pub(super) fn flow(
        &mut self,
        line: Line,
        at: usize,
        parent: usize,
        field: Field,
    ) -> Option<()> {
        let mut cursor = Cursor { at, line, parent };
        self.flow_collection(&mut cursor, field)?;
        let last = cursor.line;
        self.rest_is_empty(last, cursor.at).then_some(())?;
        self.take(last);
        Some(())
    }

    /// Skip blanks, line breaks and comments up to the next token; `None` at a line not deeper
    /// than the parent and at the end of the text (the collection is not closed).
    fn flow_space(&self, c: &mut Cursor) -> Option<()> {
        loop {
            match self.bytes.get(c.at) {
                Some(b' ') => c.at += 1,
                Some(b'#') if self.bytes[c.at - 1] == b' ' || c.at == c.line.start => {
                    c.at = c.line.end;
                }
                Some(b'\n') => {
                    c.line = self.line_at(c.line.end + 1)?;
                    let blank = c.line.start + c.line.indent == c.line.end;
                    if !blank && c.line.indent <= c.parent {
                        return None;
                    }
                    c.at = c.line.start;
                }
                Some(_) => return Some(()),
                None => return None,
            }
        }
    }

    /// A flow mapping or sequence at `c.at`.
    fn flow_collection(&mut self, c: &mut Cursor, field: Field) -> Option<()> {
        self.enter()?;
        let mapping = self.bytes[c.at] == b'{';
        self.out.push(self.bytes[c.at]);
        c.at += 1;
        match mapping {
            true => self.flow_mapping(c, field)?,
            false => self.flow_sequence(c)?,
        }
        self.depth -= 1;
        Some(())
    }

    /// The entries of a flow sequence, after its `[`, to its `]`.
    fn flow_sequence(&mut self, c: &mut Cursor) -> Option<()> {
        let mut first = true;
        loop {
            self.flow_space(c)?;
            if self.bytes[c.at] == b']' {
                break;
            }
            if !std::mem::take(&mut first) {
                self.out.push(b',');
            }
            self.flow_node(c, Field::Other)?;
            self.flow_space(c)?;
            match self.bytes[c.at] {
                b',' => c.at += 1,
                b']' => break,
                _ => return None,
            }
        }
        c.at += 1;
        self.out.push(b']');
        Some(())
    }

    /// The entries of a flow mapping, after its `{`, to its `}`.
    fn flow_mapping(&mut self, c: &mut Cursor, field: Field) -> Option<()> {
        let keys_from = self.keys.len();
        let mut first = true;
        loop {
            self.flow_space(c)?;
            if self.bytes[c.at] == b'}' {
                break;
            }
            if !std::mem::take(&mut first) {
                self.out.push(b',');
            }
            let key = self.flow_key(c)?;
            self.check_unique(keys_from, key.clone())?;
            let child = field.child(&self.out[key]);
            self.out.push(b':');
            self.flow_pair_value(c, child)?;
            match self.bytes[c.at] {
                b',' => c.at += 1,
                b'}' => break,
                _ => return None,
            }
        }
        c.at += 1;
        self.keys.truncate(keys_from);
        self.out.push(b'}');
        Some(())
    }

    /// The value after a flow mapping's key, up to the `,` or `}` after it: after a `:` on
    /// the key's line, or none (null).
    fn flow_pair_value(&mut self, c: &mut Cursor, field: Field) -> Option<()> {
        while self.bytes.get(c.at) == Some(&b' ') {
            c.at += 1;
        }
        if self.bytes.get(c.at) == Some(&b':') {
            c.at += 1;
            self.flow_space(c)?;
            if !matches!(self.bytes[c.at], b',' | b'}') {
                self.flow_node(c, field)?;
                return self.flow_space(c);
            }
        } else {
            self.flow_space(c)?;
        }
        self.out.extend_from_slice(b"null");
        Some(())
    }

    /// A flow mapping's key: a plain or quoted string on one line.
    fn flow_key(&mut self, c: &mut Cursor) -> Option<std::ops::Range<usize>> {
        let at = c.at;
        let key = match self.bytes[at] {
            quote @ (b'"' | b'\'') => {
                let close = self.closing_quote(c.line, at + 1, quote)?;
                c.at = close + 1;
                match quote {
                    b'"' => KeyText::DoubleQuoted(at + 1..close),
                    _ => KeyText::SingleQuoted(at + 1..close),
                }
            }
            _ => {
                c.at = self.flow_plain_end(c)?;
                KeyText::Plain(at..c.at)
            }
        };
        self.write_key(key)
    }

    /// A node in a flow collection: a collection, a quoted or plain scalar, or an alias, with
    /// an anchor before it.
    fn flow_node(&mut self, c: &mut Cursor, field: Field) -> Option<()> {
        let at = c.at;
        match self.bytes[at] {
            b'{' | b'[' => self.flow_collection(c, field),
            b'"' | b'\'' => self.flow_quoted(c, field),
            b'&' | b'*' if field == Field::Other => self.flow_property(c),
            _ => self.flow_plain(c, field),
        }
    }

    /// An anchored node, or an alias, at `c.at`.
    fn flow_property(&mut self, c: &mut Cursor) -> Option<()> {
        let name = self.anchor_name(c.at + 1, c.line.end)?;
        let alias = self.bytes[c.at] == b'*';
        c.at = name.end;
        let after = self.bytes.get(c.at).copied();
        if alias {
            return match after {
                None | Some(b' ' | b'\n' | b',' | b']' | b'}') => self.alias(name),
                Some(_) => None,
            };
        }
        if !matches!(after, Some(b' ' | b'\n')) {
            return None;
        }
        self.flow_space(c)?;
        if matches!(self.bytes[c.at], b'&' | b'*' | b',' | b']' | b'}') {
            return None;
        }
        let (index, start) = (self.anchor(name), self.out.len());
        self.flow_node(c, Field::Other)?;
        self.anchored(index, start);
        Some(())
    }

    /// A quoted scalar closed on its line.
    fn flow_quoted(&mut self, c: &mut Cursor, field: Field) -> Option<()> {
        let at = c.at;
        let quote = self.bytes[at];
        let close = self.closing_quote(c.line, at + 1, quote)?;
        let start = self.out.len();
        let body = &self.text[at + 1..close];
        match quote {
            b'"' => self.double_quoted(body)?,
            _ => self.single_quoted(body),
        }
        // An empty string is `""`, two bytes.
        let non_empty = self.out.len() - start > 2;
        self.note_string(field, at, non_empty);
        c.at = close + 1;
        Some(())
    }

    /// A plain scalar on one line, resolved as the full parser resolves it.
    fn flow_plain(&mut self, c: &mut Cursor, field: Field) -> Option<()> {
        let (at, text) = (c.at, self.text);
        c.at = self.flow_plain_end(c)?;
        self.plain_scalar(at, &text[at..c.at], field)
    }

    /// Where the plain scalar at `c.at` ends, before the blanks after it: at a flow indicator,
    /// a `: `, a comment or the line's end. `None` for a text this reader does not vouch for
    /// as a plain scalar, or a `:` followed by an indicator (read otherwise after a quoted key).
    fn flow_plain_end(&self, c: &Cursor) -> Option<usize> {
        let bytes = self.bytes;
        let first = bytes[c.at];
        let next = bytes.get(c.at + 1).copied();
        if b",[]{}#&*!|>'\"%@`?:".contains(&first)
            || (first == b'-' && next.is_none_or(|b| b == b' ' || b == b'\n' || indicator(b)))
        {
            return None;
        }
        let mut i = c.at;
        while i < c.line.end {
            match bytes[i] {
                b if indicator(b) => break,
                b':' => match bytes.get(i + 1) {
                    Some(b' ' | b'\n') => break,
                    Some(&b) if !indicator(b) => {}
                    _ => return None,
                },
                b'#' if bytes[i - 1] == b' ' => break,
                0x80.. => return None,
                _ => {}
            }
            i += 1;
        }
        Some(c.at + bytes[c.at..i].trim_ascii_end().len())
    }
}
