//! Renderers: tables for people, the JSON/YAML contracts for scripts.

pub mod capacity;
pub mod columns;
pub mod drift;
pub mod explain;
pub mod jsonpath;
pub mod lint;
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

pub(crate) use crate::text::plural;

/// A table with kubectl's borderless look.
pub fn table(header: &[&str]) -> comfy_table::Table {
    let mut table = comfy_table::Table::new();
    table
        .load_preset(comfy_table::presets::NOTHING)
        .set_content_arrangement(comfy_table::ContentArrangement::Disabled)
        .set_header(header.iter().map(|h| h.to_uppercase()));
    table
}

/// comfy-table pads every line, including the last column; kubectl does not. Without
/// `headers` (kubectl's `--no-headers`) the header row is left out.
pub fn render_table(table: &comfy_table::Table, headers: bool) -> String {
    let mut out = String::new();
    let skip = usize::from(!headers && table.header().is_some());
    for line in table.to_string().lines().skip(skip) {
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Text from manifests or the API server made safe for a terminal: control characters other
/// than newline and tab, and the bidirectional overrides that reorder what is shown, become
/// visible `\u{..}` escapes. An escape sequence in a pod name or an error body then cannot
/// recolour, retitle or rewrite the user's terminal. Every human output goes through it (the
/// tables and texts of the commands, and every stderr line); JSON escapes on its own.
pub fn terminal_safe(text: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| {
        (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
    };
    if !text.contains(unsafe_char) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            out.push_str(&c.escape_unicode().to_string());
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

/// One line for people on stderr (notes, warnings, errors), made [`terminal_safe`]. A closed or
/// failing stderr is ignored: there is nowhere left to report it, and it must not panic.
pub fn stderr_line(line: &str) {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{}", terminal_safe(line));
}
