//! Lint renderers: text for people, JSON (the DESIGN.md contract), SARIF 2.1.0 for code
//! scanning, and GitHub Actions workflow commands.

use std::collections::HashMap;
use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::excerpt::{bounded, excerpt};
use crate::terminal_safe;
use df_lint::{Diagnostic, LintReport, RULES, Rule, Severity};
use df_manifest::Source;

const SARIF_SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// `file:line:col: error[DF101]: message`, the source line (an [`excerpt`] of a long one)
/// with carets under the offending token, and `= hint:` lines; then a one-line summary.
/// Messages and hints are [`bounded`]; what comes from the files is [`terminal_safe`] (the
/// only escape sequences are the colours painted here).
pub fn text(report: &LintReport, sources: &[Source], color: bool) -> String {
    let texts: HashMap<&str, &str> = sources.iter().map(|s| (&*s.name, &*s.text)).collect();
    let mut out = String::new();
    for d in &report.diagnostics {
        let severity = paint(d.severity.as_str(), d.severity, color);
        let _ = writeln!(
            out,
            "{}:{}:{}: {severity}[{}]: {}",
            terminal_safe(&d.file),
            d.pos.line,
            d.pos.column,
            d.code,
            terminal_safe(&bounded(&d.message))
        );
        let line = texts
            .get(&*d.file)
            .and_then(|t| t.lines().nth(d.pos.line.saturating_sub(1)));
        let number = d.pos.line.to_string();
        let gutter = " ".repeat(number.len());
        if let Some(line) = line {
            let quoted = excerpt(line, d.pos.column, token_width(line, d.pos.column));
            let carets = "^".repeat(quoted.carets);
            let _ = writeln!(out, "{gutter} |");
            let _ = writeln!(out, "{number} | {}", quoted.text);
            let _ = writeln!(
                out,
                "{gutter} | {}{}",
                quoted.indent,
                paint(&carets, d.severity, color)
            );
        }
        if let Some(hint) = &d.hint {
            let _ = writeln!(out, "{gutter} = hint: {}", terminal_safe(&bounded(hint)));
        }
        out.push('\n');
    }
    out.push_str(&summary_line(report));
    out.push('\n');
    out
}

fn summary_line(report: &LintReport) -> String {
    let (errors, warnings) = (
        report.count(Severity::Error),
        report.count(Severity::Warning),
    );
    let files = super::plural(report.files, "file");
    if errors + warnings == 0 {
        return format!("no problems found in {files}");
    }
    format!(
        "{}, {} in {files}",
        super::plural(errors, "error"),
        super::plural(warnings, "warning")
    )
}

fn paint(text: &str, severity: Severity, color: bool) -> String {
    if !color {
        return text.to_string();
    }
    let code = match severity {
        Severity::Error => "1;31",
        Severity::Warning => "1;33",
    };
    format!("\x1b[{code}m{text}\x1b[0m")
}

/// How many characters the token at `column` spans: a quoted scalar to its closing quote, else
/// up to the next space, `:`, `,` or bracket.
fn token_width(line: &str, column: usize) -> usize {
    let rest: Vec<char> = line.chars().skip(column.saturating_sub(1)).collect();
    let width = match rest.first() {
        Some(&q @ ('"' | '\'')) => rest[1..]
            .iter()
            .position(|&c| c == q)
            .map_or(rest.len(), |i| i + 2),
        _ => rest
            .iter()
            .position(|&c| c.is_whitespace() || matches!(c, ':' | ',' | ']' | '}' | '#'))
            .unwrap_or(rest.len()),
    };
    width.max(1)
}

/// The JSON contract of DESIGN.md section 4, plus `hint`.
pub fn json(report: &LintReport) -> String {
    let diagnostics: Vec<Value> = report
        .diagnostics
        .iter()
        .map(|d| {
            json!({
                "file": &*d.file,
                "line": d.pos.line,
                "column": d.pos.column,
                "severity": d.severity.as_str(),
                "code": d.code,
                "message": d.message,
                "path": d.path,
                "hint": d.hint,
            })
        })
        .collect();
    let value = json!({
        "diagnostics": diagnostics,
        "summary": {
            "errors": report.count(Severity::Error),
            "warnings": report.count(Severity::Warning),
            "files": report.files,
        }
    });
    super::to_json(&value)
}

fn sarif_level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

fn sarif_rule(rule: &Rule) -> Value {
    json!({
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": rule.explanation},
        "help": {
            "text": rule.help,
            "markdown": format!("**{}** ({})\n\n{}\n\n**Fix:** {}", rule.title, rule.code, rule.explanation, rule.help),
        },
        "defaultConfiguration": {"level": sarif_level(rule.severity), "enabled": rule.default_enabled},
        "properties": {"tags": ["kubernetes", "scheduling"]},
    })
}

/// A relative URI for a path as the user named it (GitHub resolves it against the checkout).
fn artifact_uri(file: &str) -> String {
    let file = file.replace('\\', "/");
    let file = file.strip_prefix("./").unwrap_or(&file);
    let mut uri = String::with_capacity(file.len());
    for byte in file.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            uri.push(byte as char);
        } else {
            let _ = write!(uri, "%{byte:02X}");
        }
    }
    uri
}

fn sarif_result(d: &Diagnostic, rule_index: usize) -> Value {
    let text = match &d.hint {
        Some(hint) => format!("{}\nhint: {hint}", d.message),
        None => d.message.clone(),
    };
    let mut location = json!({
        "physicalLocation": {
            "artifactLocation": {"uri": artifact_uri(&d.file)},
            "region": {"startLine": d.pos.line, "startColumn": d.pos.column},
        }
    });
    if !d.path.is_empty() {
        location["logicalLocations"] = json!([{"fullyQualifiedName": d.path, "kind": "member"}]);
    }
    json!({
        "ruleId": d.code,
        "ruleIndex": rule_index,
        "level": sarif_level(d.severity),
        "message": {"text": text},
        "locations": [location],
    })
}

/// SARIF 2.1.0: every rule of the catalogue in `tool.driver.rules`, one result per finding.
pub fn sarif(report: &LintReport) -> String {
    let rules: Vec<Value> = RULES.iter().map(sarif_rule).collect();
    let results: Vec<Value> = report
        .diagnostics
        .iter()
        .map(|d| {
            let index = RULES.iter().position(|r| r.code == d.code).unwrap_or(0);
            sarif_result(d, index)
        })
        .collect();
    let value = json!({
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "kubectl-dataflow",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }]
    });
    super::to_json(&value)
}

/// Workflow-command escaping of the actions toolkit: data escapes `%`, CR and LF; property
/// values also `:` and `,`.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// `::error file=...,line=...,col=...,title=DF101::message` per finding.
pub fn github(report: &LintReport) -> String {
    let mut out = String::new();
    for d in &report.diagnostics {
        let message = match &d.hint {
            Some(hint) => format!("{}\nhint: {hint}", d.message),
            None => d.message.clone(),
        };
        let _ = writeln!(
            out,
            "::{} file={},line={},col={},title={}::{}",
            d.severity.as_str(),
            escape_property(&d.file),
            d.pos.line,
            d.pos.column,
            d.code,
            escape_data(&message)
        );
    }
    out
}

/// `--explain DF101`: the rule's documentation.
pub fn explain(rule: &Rule) -> String {
    let mut notes = Vec::new();
    if rule.needs_state {
        notes.push("runs only with --state");
    }
    if !rule.default_enabled {
        notes.push("off by default: --enable it");
    }
    let notes = if notes.is_empty() {
        String::new()
    } else {
        format!(" ({})", notes.join("; "))
    };
    format!(
        "{} {} [{}]{notes}\n{}\n\n{}\n\nHow to fix: {}\n\nSuppress: `# kubectl-dataflow: ignore {}` on the line or on the object's first line, or --disable {}\n",
        rule.code,
        rule.name,
        rule.severity,
        rule.title,
        rule.explanation,
        rule.help,
        rule.code,
        rule.code
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_widths() {
        let cases = [
            ("    require:", 5, 7),
            ("  key: \"a b\" # c", 8, 5),
            ("  values: [x, yy]", 15, 2),
            ("", 1, 1),
        ];
        for (line, column, width) in cases {
            assert_eq!(token_width(line, column), width, "{line:?}");
        }
    }

    #[test]
    fn uris_and_escapes() {
        assert_eq!(
            artifact_uri("./deploy/my flow.yaml"),
            "deploy/my%20flow.yaml"
        );
        assert_eq!(escape_property("a:b,c%"), "a%3Ab%2Cc%25");
        assert_eq!(escape_data("x\ny"), "x%0Ay");
    }
}
