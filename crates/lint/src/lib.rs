//! Lint: rules with stable codes run over manifests (and a cluster state when given), each
//! finding pointing at the file, line, column and field path of the offending value.
//!
//! Rules read the typed objects for meaning and the positioned tree for locations, so a
//! diagnostic in the fifth document of a file points into the fifth document.
//!
//! Above the planner (rules plan to find what never fits); it must not import the reports,
//! the network or clap.

mod dra;
mod field_issue;
mod fluid;
mod gang;
mod godel;
mod kueue;
mod operators;
mod podspec;
pub mod rules;
mod schema;
pub mod strict;
mod topology;
mod typed;
mod volcano;
mod workload_topology;

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use df_engine::object_selector::{ObjectSelector, SelectedObject};
use df_manifest::{LoadError, Manifest, ManifestSet, Node, PathSegment, Pos, parse_path};
use df_state::ClusterState;
pub use rules::{RULES, Rule, Severity};

/// One finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub file: Arc<str>,
    pub pos: Pos,
    pub severity: Severity,
    pub code: &'static str,
    pub message: String,
    /// The field path (`spec.runAfter.name`); empty for whole-file problems.
    pub path: String,
    pub hint: Option<String>,
    /// First line of the object the finding belongs to: a suppression comment there
    /// silences the finding too.
    pub object_line: Option<usize>,
}

/// Which rules run. `--disable`/`--enable` take codes or code prefixes (`DF3` is every
/// Volcano rule); an explicit enable wins over a disable, so `--disable DF3 --enable DF301`
/// keeps only DF301 of that family.
#[derive(Debug, Clone, Default)]
pub struct LintOptions {
    pub disable: Vec<String>,
    pub enable: Vec<String>,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("unknown rule code {0:?} (see `kubectl dataflow lint --explain DF101` and the rule table)")]
pub struct UnknownCode(pub String);

impl LintOptions {
    /// The set of enabled codes; every pattern must name at least one rule.
    pub fn enabled_codes(&self) -> Result<BTreeSet<&'static str>, UnknownCode> {
        let matches = |pattern: &str, rule: &Rule| {
            let pattern = pattern.trim().to_ascii_uppercase();
            let pattern = pattern.trim_end_matches('X');
            !pattern.is_empty() && rule.code.starts_with(pattern)
        };
        for pattern in self.disable.iter().chain(&self.enable) {
            if !RULES.iter().any(|r| matches(pattern, r)) {
                return Err(UnknownCode(pattern.clone()));
            }
        }
        Ok(RULES
            .iter()
            .filter(|rule| {
                self.enable.iter().any(|p| matches(p, rule))
                    || (rule.default_enabled && !self.disable.iter().any(|p| matches(p, rule)))
            })
            .map(|rule| rule.code)
            .collect())
    }
}

/// The result of a lint run, sorted by file, position and code.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LintReport {
    pub diagnostics: Vec<Diagnostic>,
    /// How many files were read.
    pub files: usize,
}

impl LintReport {
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }

    /// Keep the findings about the objects `selector` selects (`-l`, `--field-selector`) and
    /// those about whole files (a file that does not parse holds no object to select).
    pub fn retain_selected(&mut self, set: &ManifestSet, selector: &ObjectSelector) {
        if selector.is_everything() {
            return;
        }
        let selected: HashSet<(&str, usize)> = set
            .manifests
            .iter()
            .filter(|m| selector.matches(&SelectedObject::of(&m.object)))
            .map(|m| (&*m.file, m.root.pos.line))
            .collect();
        self.diagnostics.retain(|d| {
            d.object_line
                .is_none_or(|line| selected.contains(&(&*d.file, line)))
        });
    }
}

/// A finding before the catalogue and the manifest fill in severity, file and object line.
pub(crate) struct Finding {
    pub code: &'static str,
    pub pos: Pos,
    pub path: String,
    pub message: String,
    pub hint: Option<String>,
}

impl Finding {
    /// A finding at the value of `path` (or its closest existing parent).
    pub fn at(m: &Manifest, code: &'static str, path: &str, message: String) -> Finding {
        Finding {
            code,
            pos: m.pos_of(path),
            path: path.to_string(),
            message,
            hint: None,
        }
    }

    /// A finding at the key of `path`, for fields that should not be there at all.
    pub(crate) fn at_key(m: &Manifest, code: &'static str, path: &str, message: String) -> Finding {
        let pos = m
            .root
            .key_pos(&parse_path(path))
            .unwrap_or_else(|| m.pos_of(path));
        Finding {
            code,
            pos,
            path: path.to_string(),
            message,
            hint: None,
        }
    }

    /// A finding at the value of `key` in the map at `map` (labels, annotations, resource
    /// lists: keys with dots and slashes that a path cannot address), or at the map when the
    /// key is not written literally there.
    pub(crate) fn at_map_entry(
        m: &Manifest,
        code: &'static str,
        map: &str,
        key: &str,
        message: String,
    ) -> Finding {
        let pos =
            literal_key(node_at(m, map), key).map_or_else(|| m.pos_of(map), |(_, value)| value.pos);
        Finding {
            code,
            pos,
            path: format!("{map}[{key}]"),
            message,
            hint: None,
        }
    }

    pub fn hint(mut self, hint: impl Into<String>) -> Finding {
        self.hint = Some(hint.into());
        self
    }
}

/// What rules see: the optional cluster state, the source lines, and the sink for findings.
/// Cross-object rules look other manifests up through their own indexes.
pub(crate) struct Context<'a> {
    pub state: Option<&'a ClusterState>,
    /// Source lines by file name, split once (suppression and scalar positions read them).
    lines: HashMap<&'a str, Vec<&'a str>>,
    enabled: BTreeSet<&'static str>,
    out: Vec<Diagnostic>,
}

impl<'a> Context<'a> {
    pub fn enabled(&self, code: &str) -> bool {
        self.enabled.contains(code)
    }

    pub(crate) fn emit(&mut self, m: &Manifest, finding: Finding) {
        if !self.enabled(finding.code) {
            return;
        }
        let Some(rule) = rules::find(finding.code) else {
            return;
        };
        self.out.push(Diagnostic {
            file: m.file.clone(),
            pos: finding.pos,
            severity: rule.severity,
            code: rule.code,
            message: finding.message,
            path: finding.path,
            hint: finding.hint,
            object_line: Some(m.root.pos.line),
        });
    }

    /// The source text of line `line` of `file`, for positions inside scalar values.
    pub(crate) fn line_text(&self, file: &str, line: usize) -> Option<&'a str> {
        self.lines.get(file)?.get(line.checked_sub(1)?).copied()
    }

    /// The position of byte `offset` inside the string scalar `node`, when the scalar sits on
    /// one line with no escapes (plain or simply quoted); else the scalar's own position.
    pub(crate) fn pos_in_scalar(&self, m: &Manifest, node: &Node, offset: usize) -> Pos {
        let Some(value) = node.as_str() else {
            return node.pos;
        };
        let Some(line) = self.line_text(&m.file, node.pos.line) else {
            return node.pos;
        };
        let rest: String = line.chars().skip(node.pos.column - 1).collect();
        let (quote, body) = match rest.chars().next() {
            Some('"' | '\'') => (1, &rest[1..]),
            _ => (0, rest.as_str()),
        };
        if !body.starts_with(value) || offset > value.len() {
            return node.pos;
        }
        Pos {
            line: node.pos.line,
            column: node.pos.column + quote + value[..offset].chars().count(),
        }
    }
}

/// Lint every manifest of `set`, with `state` for the rules that need a cluster.
pub fn lint(
    set: &ManifestSet,
    state: Option<&ClusterState>,
    options: &LintOptions,
) -> Result<LintReport, UnknownCode> {
    let enabled = options.enabled_codes()?;
    let mut ctx = Context {
        state,
        lines: set
            .sources
            .iter()
            .map(|s| (&*s.name, s.text.lines().collect()))
            .collect(),
        enabled,
        out: Vec::new(),
    };
    load_diagnostics(set, &mut ctx);
    strict::lint(&mut ctx, &set.manifests);
    let fluid_index = fluid::Index::new(&set.manifests, state);
    let godel_index = godel::Index::new(&set.manifests, state);
    let gang_index = gang::Index::new(set, state);
    let kueue_index = kueue::Index::new(&set.manifests);
    let topology_index = topology::Index::new(set, state);
    let workload_topology_index = workload_topology::Index::new(set, state);
    let dra_index = dra::Index::new(&set.manifests, state);
    for m in &set.manifests {
        fluid::check(&mut ctx, &fluid_index, m);
        godel::check(&mut ctx, &godel_index, m);
        gang::check(&mut ctx, &gang_index, m);
        volcano::check(&mut ctx, m);
        podspec::check(&mut ctx, m);
        kueue::check(&mut ctx, &kueue_index, m);
        topology::check(&mut ctx, &topology_index, m);
        workload_topology::check(&mut ctx, &workload_topology_index, m);
        dra::check(&mut ctx, &dra_index, m);
        operators::check(&mut ctx, m);
    }
    let mut diagnostics = ctx.out;
    diagnostics.retain(|d| !suppressed(d, &ctx.lines));
    diagnostics.sort_by(|a, b| {
        (&a.file, a.pos, a.code, &a.message).cmp(&(&b.file, b.pos, b.code, &b.message))
    });
    diagnostics.dedup();
    let files = set
        .sources
        .iter()
        .map(|s| &*s.name)
        .chain(set.problems.iter().map(LoadError::file))
        .collect::<BTreeSet<_>>()
        .len();
    Ok(LintReport { diagnostics, files })
}

/// Input problems become diagnostics: lint reports a broken file and goes on with the rest.
fn load_diagnostics(set: &ManifestSet, ctx: &mut Context<'_>) {
    for problem in &set.problems {
        let (code, path, message) = match problem {
            LoadError::Io { message, .. } => ("DF004", String::new(), message.clone()),
            LoadError::Syntax { message, .. } => ("DF001", String::new(), message.clone()),
            LoadError::Decode { path, message, .. } => ("DF002", path.clone(), message.clone()),
        };
        push_file_diagnostic(ctx, problem.file(), problem.pos(), code, path, message);
    }
    for source in &set.sources {
        let name = &*source.name;
        let has_objects = set.manifests.iter().any(|m| &*m.file == name)
            || set.problems.iter().any(|p| p.file() == name);
        if !has_objects {
            let message = "file contains no objects".to_string();
            push_file_diagnostic(
                ctx,
                name,
                Pos { line: 1, column: 1 },
                "DF003",
                String::new(),
                message,
            );
        }
    }
}

fn push_file_diagnostic(
    ctx: &mut Context<'_>,
    file: &str,
    pos: Pos,
    code: &'static str,
    path: String,
    message: String,
) {
    if !ctx.enabled(code) {
        return;
    }
    let Some(rule) = rules::find(code) else {
        return;
    };
    ctx.out.push(Diagnostic {
        file: file.into(),
        pos,
        severity: rule.severity,
        code,
        message,
        path,
        hint: None,
        object_line: None,
    });
}

const SUPPRESSION_MARKER: &str = "kubectl-dataflow: ignore";

/// Whether a `# kubectl-dataflow: ignore DF101[,DF102]` comment silences `d`: on the
/// offending line, on the object's first line, or in the comment block right above it.
/// `ignore` with no codes silences every rule there.
fn suppressed(d: &Diagnostic, lines: &HashMap<&str, Vec<&str>>) -> bool {
    let Some(lines) = lines.get(&*d.file) else {
        return false;
    };
    let silences = |line: usize| {
        line.checked_sub(1)
            .and_then(|i| lines.get(i))
            .is_some_and(|l| comment_silences(l, d.code))
    };
    if silences(d.pos.line) {
        return true;
    }
    let Some(first) = d.object_line else {
        return false;
    };
    if silences(first) {
        return true;
    }
    let mut line = first;
    while line > 1 {
        line -= 1;
        let text = lines.get(line - 1).map_or("", |l| l.trim());
        if !text.starts_with('#') {
            return false;
        }
        if silences(line) {
            return true;
        }
    }
    false
}

fn comment_silences(line: &str, code: &str) -> bool {
    let Some(hash) = line.find('#') else {
        return false;
    };
    let comment = &line[hash + 1..];
    let Some(at) = comment.find(SUPPRESSION_MARKER) else {
        return false;
    };
    let codes: Vec<&str> = comment[at + SUPPRESSION_MARKER.len()..]
        .split(|c: char| c == ',' || c.is_whitespace())
        .filter(|c| !c.is_empty())
        .collect();
    codes.is_empty() || codes.iter().any(|c| c.eq_ignore_ascii_case(code))
}

/// Whether any node of `state` has the label `key`: a topology key no node carries makes
/// every level built on it empty.
pub(crate) fn node_carries(state: &ClusterState, key: &str) -> bool {
    state
        .nodes
        .iter()
        .any(|n| n.metadata.labels.contains_key(key))
}

/// `prefix.field` as a path string.
pub(crate) fn join(prefix: &str, field: &str) -> String {
    if prefix.is_empty() {
        field.to_string()
    } else {
        format!("{prefix}.{field}")
    }
}

/// The key position of a literal map key (annotation and label keys contain dots, so they
/// cannot go through `parse_path`).
pub(crate) fn literal_key<'n>(map: Option<&'n Node>, key: &str) -> Option<(Pos, &'n Node)> {
    map?.entries()
        .iter()
        .find(|e| e.key == key)
        .map(|e| (e.key_pos, &e.value))
}

/// The tree node at a path given as segments.
pub(crate) fn node_at<'n>(m: &'n Manifest, path: &str) -> Option<&'n Node> {
    let segments: Vec<PathSegment> = parse_path(path);
    m.root.lookup(&segments)
}
