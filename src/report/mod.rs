//! Renderers: tables for people, the JSON/YAML contracts for scripts.

pub mod explain;
pub mod lint;
pub mod plan;

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

/// `1 node`, `3 nodes`.
pub(crate) fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

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
