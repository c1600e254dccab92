//! The source line a lint diagnostic quotes, and the carets under its offending token.
//!
//! A manifest line can be a megabyte long (a generated flow mapping, an inlined certificate):
//! quoting it whole would bury the message. So at most [`WIDTH`] terminal columns are shown,
//! [`BEFORE`] of them leading up to the token, with `…` where text is left out; the
//! diagnostic's `line:column` still names the exact position in the file. What is shown is
//! [`super::terminal_safe`], and the carets are placed by display width (a CJK character takes two
//! columns, an escaped control character its escape's), so they sit under the token.

use std::borrow::Cow;

use unicode_width::UnicodeWidthChar as _;

use super::unsafe_char;

/// Terminal columns of source shown at most.
const WIDTH: usize = 100;
/// Columns shown before the token when the line is cut.
const BEFORE: usize = 40;
/// Marks text left out at either end.
const ELLIPSIS: char = '…';

/// A quoted line: `text` to print after the gutter, `indent` to print after the gutter of the
/// next line (tabs where the text has tabs, so both meet the same tab stops), then `carets`
/// carets.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Excerpt {
    pub text: String,
    pub indent: String,
    pub carets: usize,
}

/// `line` around 1-based `column`, with a token `token_chars` characters long there.
pub(crate) fn excerpt(line: &str, column: usize, token_chars: usize) -> Excerpt {
    let chars: Vec<char> = line.chars().collect();
    let at = column.saturating_sub(1).min(chars.len());
    let (start, end) = window(&chars, at);
    let mut text = String::new();
    let mut indent = String::new();
    if start > 0 {
        text.push(ELLIPSIS);
        indent.push(' ');
    }
    for &c in &chars[start..end] {
        if unsafe_char(c) {
            text.extend(c.escape_unicode());
        } else {
            text.push(c);
        }
    }
    for &c in &chars[start..at] {
        if c == '\t' {
            indent.push('\t');
        } else {
            indent.extend(std::iter::repeat_n(' ', width(c)));
        }
    }
    if end < chars.len() {
        text.push(ELLIPSIS);
    }
    let token_end = (at + token_chars).min(end);
    let carets = chars[at.min(token_end)..token_end]
        .iter()
        .map(|&c| width(c))
        .sum::<usize>()
        .max(1);
    Excerpt {
        text,
        indent,
        carets,
    }
}

/// The character range shown: the whole line when it fits, else [`BEFORE`] columns before
/// `at` and as much after as fits in [`WIDTH`].
fn window(chars: &[char], at: usize) -> (usize, usize) {
    let mut total = 0;
    let fits = chars.iter().all(|&c| {
        total += width(c);
        total <= WIDTH
    });
    if fits {
        return (0, chars.len());
    }
    let mut start = at;
    let mut before = 0;
    while start > 0 && before + width(chars[start - 1]) <= BEFORE {
        start -= 1;
        before += width(chars[start]);
    }
    let mut end = start;
    let mut shown_width = 0;
    while end < chars.len() && (end <= at || shown_width + width(chars[end]) <= WIDTH) {
        shown_width += width(chars[end]);
        end += 1;
    }
    (start, end)
}

/// Terminal columns `c` takes as printed (a tab counts one: the indent repeats it).
fn width(c: char) -> usize {
    match c {
        '\t' => 1,
        c if unsafe_char(c) => c.escape_unicode().count(),
        c => c.width().unwrap_or(0),
    }
}

/// Characters of a quoted value a message shows at most.
const QUOTED: usize = 60;
/// Characters of one message line shown at most, whatever it quotes.
const MESSAGE: usize = 2000;

/// A message or error line bounded for people: a double-quoted value longer than [`QUOTED`]
/// characters (a megabyte-long quantity, label or key) is cut with `…` inside its quotes, and
/// a line still longer than [`MESSAGE`] is cut and says how much was left out. The JSON
/// outputs keep the whole text.
pub fn bounded(message: &str) -> Cow<'_, str> {
    if message.len() <= QUOTED {
        return Cow::Borrowed(message);
    }
    let mut out = String::with_capacity(message.len().min(2 * MESSAGE));
    let mut chars = message.chars();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '"' {
            out.push_str(&quoted_value(&mut chars));
        }
    }
    let total = out.chars().count();
    if total > MESSAGE {
        let cut = out
            .char_indices()
            .nth(MESSAGE)
            .map_or(out.len(), |(i, _)| i);
        out.truncate(cut);
        out.push_str(&format!("… ({} more characters)", total - MESSAGE));
    }
    if out == message {
        Cow::Borrowed(message)
    } else {
        Cow::Owned(out)
    }
}

/// The rest of a quoted value up to and with its closing quote, cut to [`QUOTED`] characters
/// (a backslash escape counts as one and is never split).
fn quoted_value(chars: &mut std::str::Chars<'_>) -> String {
    let mut value = String::new();
    let mut units = 0;
    while let Some(c) = chars.next() {
        if c == '"' {
            if units > QUOTED {
                value.push('…');
            }
            value.push('"');
            return value;
        }
        let escaped = if c == '\\' { chars.next() } else { None };
        units += 1;
        if units <= QUOTED {
            value.push(c);
            value.extend(escaped);
        }
    }
    if units > QUOTED {
        value.push('…');
    }
    value
}

/// How many pod names to list per pending reason before counting the rest.
const NAMES_PER_REASON: usize = 5;

/// `a, b, c`, or the first few names and how many more.
pub(crate) fn name_list(names: &[&str]) -> String {
    match names.len() {
        n if n <= NAMES_PER_REASON => names.join(", "),
        n => format!(
            "{} and {} more",
            names[..NAMES_PER_REASON].join(", "),
            n - NAMES_PER_REASON
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quoted(line: &str, column: usize, token: usize) -> (String, String) {
        let e = excerpt(line, column, token);
        (e.text, format!("{}{}", e.indent, "^".repeat(e.carets)))
    }

    #[test]
    fn short_lines_are_quoted_whole_with_carets_by_display_width() {
        let cases = [
            (
                "  nodeSelecter: {a: b}",
                3,
                12,
                "  nodeSelecter: {a: b}",
                "  ^^^^^^^^^^^^",
            ),
            ("  名前: 数据", 7, 2, "  名前: 数据", "        ^^^^"),
            ("\tkey: v", 2, 3, "\tkey: v", "\t^^^"),
            (
                "a: \"\u{1b}[2J\" b",
                11,
                1,
                "a: \"\\u{1b}[2J\" b",
                "               ^",
            ),
            ("key:", 5, 1, "key:", "    ^"),
            ("", 1, 1, "", "^"),
        ];
        for (line, column, token, text, carets) in cases {
            assert_eq!(
                quoted(line, column, token),
                (text.to_string(), carets.to_string()),
                "{line:?}"
            );
        }
    }

    /// A megabyte-long line: 40 columns before the token, 100 in all, `…` at each cut end;
    /// a token longer than the window is underlined to the window's end.
    #[test]
    fn long_lines_are_cut_around_the_column() {
        let filler = "x".repeat(1_000_000);
        let line = format!("metadata: {{a: \"{filler}\", labelz: {{a: b}}}}");
        let column = line.find("labelz").unwrap() + 1;
        let (text, carets) = quoted(&line, column, 6);
        assert_eq!(text, format!("…{}\", labelz: {{a: b}}}}", "x".repeat(37)));
        assert_eq!(carets, format!("{}^^^^^^", " ".repeat(41)));

        let (text, carets) = quoted(&line, 11, 1_000_002);
        assert_eq!(text, format!("metadata: {{a: \"{}…", "x".repeat(85)));
        assert_eq!(carets, format!("{}{}", " ".repeat(10), "^".repeat(90)));

        let wide = format!("k: {}", "数".repeat(500_000));
        let (text, carets) = quoted(&wide, 200_000, 1);
        assert_eq!(text, format!("…{}…", "数".repeat(50)));
        assert_eq!(carets, format!("{}^^", " ".repeat(41)));
    }

    #[test]
    fn messages_cut_long_quoted_values_and_long_lines() {
        let long = "y".repeat(1_000);
        let sixty = "y".repeat(60);
        let cases = [
            (
                "unknown field \"labelz\"; did you mean \"labels\"?".to_string(),
                "unknown field \"labelz\"; did you mean \"labels\"?".to_string(),
            ),
            (
                format!("invalid quantity \"{long}\": expected a number"),
                format!("invalid quantity \"{sixty}…\": expected a number"),
            ),
            (
                format!("key \"{}\\\"{long}\" and \"b\"", "z".repeat(59)),
                format!("key \"{}\\\"…\" and \"b\"", "z".repeat(59)),
            ),
            (
                format!("unterminated \"{long}"),
                format!("unterminated \"{sixty}…"),
            ),
            (
                format!("plain {}", "w".repeat(3_000)),
                format!("plain {}… (1006 more characters)", "w".repeat(1_994)),
            ),
        ];
        for (message, want) in cases {
            assert_eq!(bounded(&message), want);
        }
    }
}
