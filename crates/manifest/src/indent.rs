//! Three shapes that kubectl's YAML parser (go-yaml, after libyaml) accepts and saphyr's
//! scanner refuses. libyaml does not check indentation inside flow collections or on the
//! continuation lines of a quoted scalar, and takes a tab as the blank after a mapping's `:`
//! (YAML's separator is a space or a tab); saphyr does not. Real manifests have all three:
//! `args: ["a", "b",` ... `]` with the closing bracket back at the key's column, CRD
//! descriptions written as one long single-quoted scalar over several lines, and
//! `image:<TAB>nginx` from editors that insert tabs.
//!
//! Rather than fork the scanner, the parser retries with the offending lines indented further,
//! or the tab replaced by a space. In each shape the change carries no meaning (a quoted scalar
//! folds the leading blanks of its continuation lines away; a closing bracket has no value; the
//! blanks before a plain value are not part of it), so the parsed tree is the one go-yaml
//! builds. Only the repaired lines change, no node starts on an indented one and a replaced tab
//! keeps every column, so every position the tree reports is still a position in the original
//! text.

/// What saphyr says about the two shapes.
const QUOTED_SCALAR: &str = "invalid indentation in quoted scalar";
const INDENTATION: &str = "invalid indentation";
const TAB_AFTER_COLON: &str = "':' must be followed by a valid YAML whitespace";

/// How many lines one text may have repaired: each retry re-parses the text.
pub(crate) const MAX_REPAIRS: usize = 64;

/// `text` with the lines behind `message` at `line` (1-based) and `column` (0-based, in
/// characters) changed so saphyr accepts them, or `None` when the error is not one of the three
/// shapes go-yaml accepts.
pub(crate) fn repair(text: &str, message: &str, line: usize, column: usize) -> Option<String> {
    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
    let index = line.checked_sub(1)?;
    let at = lines.get(index)?;
    let mut repaired: Vec<String> = Vec::new();
    let first_changed;
    match message {
        QUOTED_SCALAR => {
            let start = at.char_indices().nth(column)?.0;
            let quote = at[start..].chars().next()?;
            let last = closing_line(&lines, index, start, quote)?;
            first_changed = index + 1;
            // Past the quote's own column: deeper than any block the scalar belongs to.
            let margin = " ".repeat(column + 1);
            for continuation in &lines[index + 1..=last] {
                repaired.push(if continuation.trim().is_empty() {
                    continuation.to_string()
                } else {
                    format!("{margin}{continuation}")
                });
            }
        }
        INDENTATION if at.trim_start().starts_with([']', '}']) => {
            // As deep as the line before it, which the scanner accepted inside the same flow.
            let previous = lines[..index].iter().rev().find(|l| !l.trim().is_empty())?;
            let wanted = indentation(previous).max(indentation(at) + 1);
            first_changed = index;
            repaired.push(format!("{}{}", " ".repeat(wanted), at.trim_start()));
        }
        TAB_AFTER_COLON => {
            // The `:` the scanner stopped after is the last one before `column` that a tab
            // follows; spaces for the tabs of the blanks after it keep every column.
            let chars: Vec<char> = at.chars().collect();
            let colon = (0..column.min(chars.len()))
                .rev()
                .find(|&i| chars[i] == ':' && chars.get(i + 1) == Some(&'\t'))?;
            let mut line: String = chars[..=colon].iter().collect();
            let blanks = chars[colon + 1..]
                .iter()
                .take_while(|c| matches!(c, ' ' | '\t'))
                .count();
            line.push_str(&" ".repeat(blanks));
            line.extend(&chars[colon + 1 + blanks..]);
            first_changed = index;
            repaired.push(line);
        }
        _ => return None,
    }
    let count = repaired.len();
    let mut out = String::with_capacity(text.len() + count * (column + 2));
    for (i, line) in lines.drain(..).enumerate() {
        match i.checked_sub(first_changed) {
            Some(offset) if offset < count => out.push_str(&repaired[offset]),
            _ => out.push_str(line),
        }
    }
    Some(out)
}

fn indentation(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// The index of the line holding the quote that closes the scalar opened at byte `start` of
/// line `index` (`''` is an escaped quote in single quotes, `\"` in double quotes).
fn closing_line(lines: &[&str], index: usize, start: usize, quote: char) -> Option<usize> {
    let mut escaped = false;
    for (i, line) in lines.iter().enumerate().skip(index) {
        let from = if i == index { start + 1 } else { 0 };
        let mut chars = line[from..].chars().peekable();
        while let Some(c) = chars.next() {
            if escaped {
                escaped = false;
            } else if quote == '"' && c == '\\' {
                escaped = true;
            } else if c == quote {
                if quote == '\'' && chars.peek() == Some(&'\'') {
                    chars.next();
                } else {
                    return Some(i);
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repairs_only_the_two_shapes_and_only_their_lines() {
        let cases: &[(&str, &str, usize, usize, Option<&str>)] = &[
            (
                "data:\n  x: 'a long\n  scalar'\nnext: 1\n",
                QUOTED_SCALAR,
                2,
                5,
                Some("data:\n  x: 'a long\n        scalar'\nnext: 1\n"),
            ),
            (
                "x: 'it''s\n\nlong'\n",
                QUOTED_SCALAR,
                1,
                3,
                Some("x: 'it''s\n\n    long'\n"),
            ),
            (
                "x: \"a \\\"q\\\"\nb\"\n",
                QUOTED_SCALAR,
                1,
                3,
                Some("x: \"a \\\"q\\\"\n    b\"\n"),
            ),
            (
                "  args: [\"a\",\n    \"b\"\n  ]\n",
                INDENTATION,
                3,
                2,
                Some("  args: [\"a\",\n    \"b\"\n    ]\n"),
            ),
            ("a:\n b: 1\n  c: 2\n", INDENTATION, 3, 2, None),
            // saphyr stops past the tab after `image:`, at column 9 (0-based).
            (
                "- name: a\n  image:\tnginx\n",
                TAB_AFTER_COLON,
                2,
                9,
                Some("- name: a\n  image: nginx\n"),
            ),
            ("a:\t \tb\n", TAB_AFTER_COLON, 1, 5, Some("a:   b\n")),
            // A tab that follows no `:` is not this shape.
            ("a: b\tc\n", TAB_AFTER_COLON, 1, 5, None),
            ("x: 'never closed\n", QUOTED_SCALAR, 1, 3, None),
            (
                "x: 1\n",
                "mapping values are not allowed in this context",
                1,
                1,
                None,
            ),
        ];
        for (text, message, line, column, want) in cases {
            assert_eq!(
                repair(text, message, *line, *column).as_deref(),
                *want,
                "{text:?}"
            );
        }
    }

    /// The tree of each shape is the tree of the same text indented as saphyr wants it, node
    /// positions included: the repair moves no node.
    #[test]
    fn parses_what_go_yaml_parses() {
        use crate::tree::parse_documents;
        let cases = [
            (
                "command: [\"sh\", \"-c\",\n  \"echo hi\"\n]\nnext: 1\n",
                "command: [\"sh\", \"-c\",\n  \"echo hi\"\n  ]\nnext: 1\n",
            ),
            (
                "spec:\n  d: 'one\n  two ''x''\n\n  three'\n  t: string\n",
                "spec:\n  d: 'one\n     two ''x''\n\n     three'\n  t: string\n",
            ),
        ];
        for (as_written, as_saphyr_wants) in cases {
            let refused = saphyr_parser::Parser::new_from_str(as_written).any(|e| e.is_err());
            assert!(refused, "saphyr alone parses {as_written:?}");
            assert_eq!(
                parse_documents(as_written).unwrap(),
                parse_documents(as_saphyr_wants).unwrap(),
                "{as_written:?}"
            );
        }
    }
}
