//! Renderers: tables for people, the JSON/YAML contracts for scripts, Markdown and HTML for
//! reviews, jsonpath and custom-columns, lint's SARIF and GitHub annotations, terminal-safe
//! stderr lines.
//!
//! Above the planner and lint, whose results it renders; it must not import the network or
//! clap, and decides nothing itself.

pub mod capacity;
pub mod columns;
pub mod drift;
pub(crate) mod excerpt;
pub mod explain;
pub mod html;
pub mod jsonpath;
pub mod lint;
pub mod markdown;
pub mod plan;
pub mod topology;

use std::borrow::Cow;
use std::io::Write as _;

use serde::Serialize;

/// Machine-readable output in one place, so every command's `-o json|yaml` is the same shape.
pub fn to_json<T: Serialize>(value: &T) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("report types serialize to JSON");
    text.push('\n');
    text
}

pub fn to_yaml<T: Serialize>(value: &T) -> String {
    // Going through JSON keeps YAML and JSON field-for-field identical.
    let json = serde_json::to_value(value).expect("report types serialize to JSON");
    serde_saphyr::to_string(&json).expect("JSON values serialize to YAML")
}

pub(crate) use df_model::text::plural;

/// comfy-table with kubectl's borderless look and no wrapping.
fn borderless() -> comfy_table::Table {
    let mut table = comfy_table::Table::new();
    table
        .load_preset(comfy_table::presets::NOTHING)
        .set_content_arrangement(comfy_table::ContentArrangement::Disabled);
    table
}

/// A table with kubectl's borderless look. Cells may hold any text: [`render_table`] makes
/// them safe for the terminal before it measures them.
pub fn table(header: &[&str]) -> comfy_table::Table {
    let mut table = borderless();
    table.set_header(header.iter().map(|h| h.to_uppercase()));
    table
}

/// The lines of `table`, every column aligned as the terminal shows it: each cell is escaped
/// ([`cell_text`]) before comfy-table measures its display width, so an escaped control
/// character, a CJK name or an emoji cannot shift the columns after it. comfy-table pads every
/// line, including the last column; kubectl does not. Without `headers` (kubectl's
/// `--no-headers`) the header row is left out, and does not widen the columns either.
pub(crate) fn render_table(table: &comfy_table::Table, headers: bool) -> String {
    let safe_cells = |row: &comfy_table::Row| -> Vec<String> {
        row.cell_iter()
            .map(|cell| cell_text(&cell.content()).into_owned())
            .collect()
    };
    let mut safe = borderless();
    if let (true, Some(header)) = (headers, table.header()) {
        safe.set_header(safe_cells(header));
    }
    safe.add_rows(table.row_iter().map(safe_cells));
    let mut out = String::new();
    for line in safe.to_string().lines() {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// How many terminal columns `text` takes (a CJK character or an emoji two, a combining mark
/// none), for text that is already [`cell_text`].
pub(crate) fn display_width(text: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(text)
}

/// One table cell as the terminal shows it: [`terminal_safe`], and a tab or line break escaped
/// too, so that every cell is one line of the width the aligner measures (a name with a line
/// break would otherwise start a row of its own; a tab jumps to the terminal's next stop).
pub(crate) fn cell_text(text: &str) -> Cow<'_, str> {
    escape_chars(text, |c| unsafe_char(c) || matches!(c, '\n' | '\t'))
}

/// Text from manifests or the API server made safe for a terminal: control characters other
/// than newline and tab, and the bidirectional overrides that reorder what is shown, become
/// visible `\u{..}` escapes. An escape sequence in a pod name or an error body then cannot
/// recolour, retitle or rewrite the user's terminal. Every human output goes through it (the
/// tables and texts of the commands, and every stderr line); JSON escapes on its own.
pub fn terminal_safe(text: &str) -> Cow<'_, str> {
    escape_chars(text, unsafe_char)
}

/// Control characters other than newline and tab, and the bidirectional overrides.
pub(crate) fn unsafe_char(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every character `escaped` picks written as a visible `\u{..}` escape.
fn escape_chars(text: &str, escaped: impl Fn(char) -> bool) -> Cow<'_, str> {
    if !text.contains(&escaped) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if escaped(c) {
            out.extend(c.escape_unicode());
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Write a command's output to stdout. A reader that went away (`... | head -1`) is not a
/// failure: the rest of the output is not wanted, so a broken pipe ends the writing quietly
/// and the command still exits with its own status. Other write errors (a full disk) are.
pub fn write_stdout(bytes: &[u8]) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        result => result,
    }
}

/// One line for people on stderr (notes, warnings, errors), [`excerpt::bounded`] (a value it
/// quotes may be a megabyte long) and made [`terminal_safe`]. A closed or failing stderr is
/// ignored: there is nowhere left to report it, and it must not panic.
pub fn stderr_line(line: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{}", terminal_safe(&excerpt::bounded(line)));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names from hostile manifests: every column after them still starts at the same terminal
    /// column. (A CJK character and an emoji take two columns, `é` written as `e` plus a
    /// combining accent one; control characters, tabs and line breaks are escaped first.)
    #[test]
    fn table_columns_align_whatever_the_names_hold() {
        let names = [
            "web-0",
            "数据-0",
            "🚀-pod",
            "cafe\u{301}",
            "bad\u{1b}[31m",
            "tab\there",
            "two\nlines",
            "\u{202e}rtl",
        ];
        let mut t = table(&["pod", "node"]);
        for name in names {
            t.add_row(vec![name, "node-a"]);
        }
        let want = [
            " POD            NODE",
            " web-0          node-a",
            " 数据-0         node-a",
            " 🚀-pod         node-a",
            " cafe\u{301}           node-a",
            " bad\\u{1b}[31m  node-a",
            " tab\\u{9}here   node-a",
            " two\\u{a}lines  node-a",
            " \\u{202e}rtl    node-a",
            "",
        ]
        .join("\n");
        assert_eq!(render_table(&t, true), want);
        let node_columns: Vec<usize> = render_table(&t, true)
            .lines()
            .map(|line| display_width(&line[..line.rfind(['n', 'N']).unwrap_or(line.len())]))
            .collect();
        assert!(
            node_columns.iter().all(|&c| c == node_columns[0]),
            "{node_columns:?}"
        );
    }

    /// Without headers the header row neither prints nor widens a column (kubectl's
    /// `--no-headers`).
    #[test]
    fn no_headers_leaves_the_header_out_of_the_widths() {
        let mut t = table(&["a-long-header", "b"]);
        t.add_row(vec!["x", "y"]);
        t.add_row(vec!["数", "z"]);
        let cases = [
            (
                true,
                " A-LONG-HEADER  B\n x              y\n 数             z\n",
            ),
            (false, " x   y\n 数  z\n"),
        ];
        for (headers, want) in cases {
            assert_eq!(render_table(&t, headers), want, "headers {headers}");
        }
    }

    #[test]
    fn cells_and_texts_escape_what_the_terminal_would_act_on() {
        let cases = [
            ("plain", "plain", "plain"),
            ("a\tb\nc", "a\tb\nc", "a\\u{9}b\\u{a}c"),
            ("\u{1b}]0;x\u{7}", "\\u{1b}]0;x\\u{7}", "\\u{1b}]0;x\\u{7}"),
            (
                "\u{2066}x\u{2069}",
                "\\u{2066}x\\u{2069}",
                "\\u{2066}x\\u{2069}",
            ),
            ("数据 🚀", "数据 🚀", "数据 🚀"),
        ];
        for (text, terminal, cell) in cases {
            assert_eq!(terminal_safe(text), terminal, "{text:?}");
            assert_eq!(cell_text(text), cell, "{text:?}");
        }
    }
}
