//! Reading manifests: files, directories and stdin, split into documents, decoded into typed
//! objects, each kept with its file, document index and source tree for exact positions; and
//! atomic file writes ([`file`]).
//!
//! Above `model` (and `parallel`); it must not import the state, the engine or anything above.

pub mod block_json;
pub mod file;
mod indent;
pub mod tree;
pub mod validate;

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use df_model::{DecodeError, Object, TypeMeta};
pub use tree::{Node, PathSegment, Pos, Value, format_path, parse_path};

/// Manifest files larger than this are refused: they are not hand-written manifests, and
/// parsing them with positions would take unbounded time and memory.
pub const MAX_MANIFEST_BYTES: usize = 64 * 1024 * 1024;

/// One problem found while reading input, always with a file and usually a position.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LoadError {
    #[error("{file}: {message}")]
    Io { file: String, message: String },
    #[error("{file}:{pos}: {message}")]
    Syntax {
        file: String,
        pos: Pos,
        message: String,
    },
    #[error("{file}:{pos}: {}{message}", if path.is_empty() { String::new() } else { format!("{path}: ") })]
    Decode {
        file: String,
        pos: Pos,
        path: String,
        message: String,
    },
}

impl LoadError {
    pub fn file(&self) -> &str {
        match self {
            LoadError::Io { file, .. }
            | LoadError::Syntax { file, .. }
            | LoadError::Decode { file, .. } => file,
        }
    }

    pub fn pos(&self) -> Pos {
        match self {
            LoadError::Io { .. } => Pos { line: 1, column: 1 },
            LoadError::Syntax { pos, .. } | LoadError::Decode { pos, .. } => *pos,
        }
    }
}

/// The text of one input, kept for caret rendering and for rewriting in place.
#[derive(Debug, Clone)]
pub struct Source {
    /// The path as the user named it (`-` is shown as `<stdin>`).
    pub name: Arc<str>,
    pub path: Option<PathBuf>,
    pub text: Arc<str>,
}

/// One decoded object with where it came from.
#[derive(Debug, Clone)]
pub struct Manifest {
    pub file: Arc<str>,
    /// 0-based index of the YAML document in its file.
    pub document: usize,
    /// The object's own tree (for a `v1 List` item, the item).
    pub root: Node,
    pub object: Object,
}

impl Manifest {
    /// Where `path` (for example `spec.runAfter.name`) is, or the closest existing parent.
    pub fn pos_of(&self, path: &str) -> Pos {
        self.root.closest_pos(&parse_path(path))
    }

    /// `Kind/namespace/name` as users recognise it in messages.
    pub fn display_name(&self) -> String {
        let meta = self.object.metadata();
        if meta.namespace.is_empty() {
            format!("{}/{}", self.object.kind(), meta.name)
        } else {
            format!("{}/{}/{}", self.object.kind(), meta.namespace, meta.name)
        }
    }
}

/// `KIND/NAME` as kubectl users type it: the kind in any case, singular, plural, short name
/// (`po`, `deploy`, `ds`, `pg`, `vcjob`...) or `plural.group`; a bare `NAME` is a pod; `NAME-`
/// is the object of `generateName: NAME-` (and `NAME-<generated>`, as it is shown). The one
/// parser of object references: explain, patch and launch all read targets through it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObjectRef {
    /// The kind as the API spells it (`Pod`, `Deployment`, `DataLoad`).
    pub kind: &'static str,
    pub name: String,
}

/// Why a `KIND/NAME` does not name an object this tool knows.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ObjectRefError {
    #[error("{0:?} names no object: write KIND/NAME, e.g. pod/web-0")]
    Empty(String),
    /// kubectl's own refusal of `deploy/api/extra`: a name cannot hold a `/`.
    #[error("{0:?}: arguments in resource/name form may not have more than one slash")]
    Slashes(String),
    #[error("unknown kind {kind:?} in {text:?}{}; known kinds: {}", .suggestion.map(|s| format!(" (did you mean {s:?}?)")).unwrap_or_default(), known_kinds())]
    UnknownKind {
        text: String,
        kind: String,
        suggestion: Option<&'static str>,
    },
}

impl ObjectRef {
    pub fn parse(text: &str) -> Result<ObjectRef, ObjectRefError> {
        let (kind, name) = text.split_once('/').unwrap_or(("pod", text));
        if name.is_empty() || kind.is_empty() {
            return Err(ObjectRefError::Empty(text.to_string()));
        }
        if name.contains('/') {
            return Err(ObjectRefError::Slashes(text.to_string()));
        }
        // A name cannot end with `-`, so `pod/pi-` can only mean the object generated from
        // `generateName: pi-`.
        let name = if name.ends_with('-') {
            format!("{name}{GENERATED_SUFFIX}")
        } else {
            name.to_string()
        };
        Ok(ObjectRef {
            kind: canonical_kind(kind).ok_or_else(|| ObjectRefError::UnknownKind {
                text: text.to_string(),
                kind: kind.to_string(),
                suggestion: df_model::text::closest(kind, kind_words()),
            })?,
            name,
        })
    }

    /// The reference to an object read from the inputs, whose kind the API already spells.
    pub fn of(kind: &'static str, name: &str) -> ObjectRef {
        ObjectRef {
            kind,
            name: name.to_string(),
        }
    }

    /// Whether `kind` (as the API spells it) is this reference's kind.
    pub fn is_kind(&self, kind: &str) -> bool {
        self.kind.eq_ignore_ascii_case(kind)
    }
}

/// The API spelling of a kind as users type it (its name, plural or a short name, as the
/// API's discovery lists them); `None` when it names no kind a target may name.
pub(crate) fn canonical_kind(word: &str) -> Option<&'static str> {
    // `jobs.batch.volcano.sh`, `podgroups.scheduling.volcano.sh`: the resource, then its group.
    let resource = word.split_once('.').map_or(word, |(resource, _)| resource);
    let lower = resource.to_ascii_lowercase();
    df_model::registry::registry()
        .filter(|k| k.addressable)
        .find(|k| {
            lower == k.kind.to_ascii_lowercase()
                || lower == k.plural
                || k.short_names.contains(&lower.as_str())
        })
        .map(|k| k.kind)
}

/// The kinds a target may name, for the error that lists them.
fn known_kinds() -> String {
    let names: Vec<&str> = df_model::registry::addressable()
        .into_iter()
        .map(|(kind, _)| kind)
        .collect();
    names.join(", ")
}

/// Every kind and short name a target may use, for did-you-mean.
fn kind_words() -> impl Iterator<Item = &'static str> + Clone {
    df_model::registry::registry()
        .filter(|k| k.addressable)
        .flat_map(|k| std::iter::once(k.kind).chain(k.short_names.iter().copied()))
}

/// Everything read from `-f` inputs: objects, sources and per-document problems.
#[derive(Debug, Default, Clone)]
pub struct ManifestSet {
    pub sources: Vec<Source>,
    pub manifests: Vec<Manifest>,
    pub problems: Vec<LoadError>,
    /// Directory entries not read (special files, directories reached twice).
    pub skipped: Vec<Skipped>,
}

impl ManifestSet {
    /// The same sources, problems and skipped entries, with no object yet: for a set whose
    /// objects are rewritten one by one.
    pub fn without_manifests(&self) -> ManifestSet {
        ManifestSet {
            sources: self.sources.clone(),
            manifests: Vec::new(),
            problems: self.problems.clone(),
            skipped: self.skipped.clone(),
        }
    }

    pub fn source(&self, name: &str) -> Option<&Source> {
        self.sources.iter().find(|s| &*s.name == name)
    }

    /// Put the objects whose manifest names no namespace into `namespace` (kubectl's `-n`, or
    /// the kubeconfig context's namespace), as `kubectl apply -f` does.
    pub fn default_namespace(&mut self, namespace: &str) {
        for m in &mut self.manifests {
            let written = m
                .root
                .get("metadata")
                .and_then(|meta| meta.get("namespace"))
                .and_then(Node::as_str)
                .is_some_and(|ns| !ns.is_empty());
            if m.object.is_namespaced() && !written {
                m.object.metadata_mut().namespace = namespace.to_string();
            }
        }
    }

    /// Fail on the first problem: commands other than lint cannot plan around a broken input.
    pub(crate) fn into_result(self) -> Result<ManifestSet, Vec<LoadError>> {
        if self.problems.is_empty() {
            Ok(self)
        } else {
            Err(self.problems)
        }
    }

    /// [`Self::into_result`], also refusing the values lint reports under rules of their own
    /// ([`validate::refused_for_planning`]), positioned: what every command but lint plans.
    pub fn into_plannable(self) -> Result<ManifestSet, Vec<LoadError>> {
        let set = self.into_result()?;
        let refused: Vec<LoadError> = set
            .manifests
            .iter()
            .filter_map(|m| {
                let e = validate::refused_for_planning(&m.object).err()?;
                Some(LoadError::Decode {
                    file: m.file.to_string(),
                    pos: m.pos_of(&e.path),
                    path: e.path,
                    message: e.message,
                })
            })
            .collect();
        if refused.is_empty() {
            Ok(set)
        } else {
            Err(refused)
        }
    }
}

/// A directory entry that `-f DIR` did not read, and why; commands say these on stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub path: String,
    pub reason: &'static str,
}

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "skipped {}: {}", self.path, self.reason)
    }
}

/// The files `-f` arguments name, and the directory entries passed over.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Inputs {
    pub files: Vec<String>,
    pub skipped: Vec<Skipped>,
}

/// Expand `-f` arguments into files: directories yield their `.yaml`, `.yml` and `.json`
/// files (recursively with `-R`), sorted so that output is deterministic. Named files are
/// read whatever they are (`-f <(cmd)` is a pipe); inside directories only regular files are,
/// as a FIFO would block the run and a device could be endless. Symbolic links are followed,
/// but a directory already read (a link back to a parent, or two links to one directory) is
/// read once.
pub fn expand_inputs(inputs: &[String], recursive: bool) -> Result<Inputs, LoadError> {
    let mut out = Inputs::default();
    let mut visited = std::collections::HashSet::new();
    for input in inputs {
        if input == "-" {
            out.files.push(input.clone());
            continue;
        }
        let path = Path::new(input);
        let meta = std::fs::metadata(path).map_err(|e| io_error(input, &e))?;
        if meta.is_dir() {
            collect_dir(path, recursive, &mut visited, &mut out)?;
        } else {
            out.files.push(input.clone());
        }
    }
    Ok(out)
}

fn collect_dir(
    dir: &Path,
    recursive: bool,
    visited: &mut std::collections::HashSet<PathBuf>,
    out: &mut Inputs,
) -> Result<(), LoadError> {
    let name = dir.display().to_string();
    let canonical = std::fs::canonicalize(dir).map_err(|e| io_error(&name, &e))?;
    if !visited.insert(canonical) {
        out.skipped.push(Skipped {
            path: name,
            reason: "directory already read (a symbolic link loop or a second link to it)",
        });
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| io_error(&name, &e))?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(|e| io_error(&name, &e))?;
    entries.sort();
    for path in entries {
        let manifest_name = matches!(
            path.extension().and_then(|e| e.to_str()),
            Some("yaml" | "yml" | "json")
        );
        let skip = |reason| Skipped {
            path: path.display().to_string(),
            reason,
        };
        // Follows symbolic links; a dangling one has no metadata.
        let Ok(meta) = std::fs::metadata(&path) else {
            if manifest_name {
                out.skipped.push(skip("broken symbolic link"));
            }
            continue;
        };
        if meta.is_dir() {
            if recursive {
                collect_dir(&path, recursive, visited, out)?;
            }
        } else if manifest_name {
            if meta.is_file() {
                out.files.push(path.display().to_string());
            } else {
                out.skipped
                    .push(skip("not a regular file (a FIFO, socket or device)"));
            }
        }
    }
    Ok(())
}

fn io_error(file: &str, e: &std::io::Error) -> LoadError {
    let message = match e.kind() {
        std::io::ErrorKind::NotFound => "no such file or directory".to_string(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => e.to_string(),
    };
    LoadError::Io {
        file: file.to_string(),
        message,
    }
}

/// Read a file (or stdin for `-`) as UTF-8 text, refusing binary and oversized input.
pub fn read_text(file: &str) -> Result<String, LoadError> {
    let mut bytes = Vec::new();
    let result = if file == "-" {
        std::io::stdin()
            .take(MAX_MANIFEST_BYTES as u64 + 1)
            .read_to_end(&mut bytes)
    } else {
        std::fs::File::open(file).and_then(|f| {
            f.take(MAX_MANIFEST_BYTES as u64 + 1)
                .read_to_end(&mut bytes)
        })
    };
    result.map_err(|e| io_error(display_name(file), &e))?;
    text_from_bytes(display_name(file), bytes)
}

pub fn display_name(file: &str) -> &str {
    if file == "-" { "<stdin>" } else { file }
}

fn text_from_bytes(file: &str, bytes: Vec<u8>) -> Result<String, LoadError> {
    if bytes.len() > MAX_MANIFEST_BYTES {
        return Err(LoadError::Io {
            file: file.to_string(),
            message: format!(
                "larger than {} MiB; not a manifest file",
                MAX_MANIFEST_BYTES / 1024 / 1024
            ),
        });
    }
    if let Some(offset) = bytes.iter().position(|&b| b == 0) {
        return Err(LoadError::Syntax {
            file: file.to_string(),
            pos: tree::position_at(&bytes, offset),
            message: "binary content (NUL byte); expected YAML or JSON text".into(),
        });
    }
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        LoadError::Syntax {
            file: file.to_string(),
            pos: tree::position_at(e.as_bytes(), offset),
            message: "invalid UTF-8; expected YAML or JSON text".into(),
        }
    })
}

/// Load every `-f` input. I/O errors stop everything; a document that does not parse or
/// decode is recorded as a problem and the rest is still loaded (lint reports them all).
///
/// Files are read and parsed on every core (parsing with positions is most of a lint of
/// many files) and join the set in the order given.
pub fn load(inputs: &[String], recursive: bool) -> Result<ManifestSet, LoadError> {
    let mut set = ManifestSet::default();
    let inputs = expand_inputs(inputs, recursive)?;
    set.skipped = inputs.skipped;
    let parsed = df_parallel::map(&inputs.files, |file| {
        let text = read_text(file)?;
        let name: Arc<str> = display_name(file).into();
        let path = (file != "-").then(|| PathBuf::from(file));
        Ok(ParsedSource::parse(name, path, text))
    });
    for (file, parsed) in inputs.files.iter().zip(parsed) {
        match parsed {
            Ok(parsed) => parsed.add_to(&mut set),
            Err(e @ LoadError::Io { .. }) if file != "-" && !Path::new(file).exists() => {
                return Err(e);
            }
            Err(e) => set.problems.push(e),
        }
    }
    Ok(set)
}

/// Parse one text into the set (used for files, stdin and tests).
pub fn add_source(set: &mut ManifestSet, name: Arc<str>, path: Option<PathBuf>, text: String) {
    ParsedSource::parse(name, path, text).add_to(set);
}

/// One text and what it decoded to, before it joins a set.
struct ParsedSource {
    source: Source,
    manifests: Vec<Manifest>,
    problems: Vec<LoadError>,
}

impl ParsedSource {
    fn parse(name: Arc<str>, path: Option<PathBuf>, text: String) -> ParsedSource {
        let text: Arc<str> = text.into();
        let (manifests, problems) = parse_text(&name, &text);
        ParsedSource {
            source: Source { name, path, text },
            manifests,
            problems,
        }
    }

    fn add_to(self, set: &mut ManifestSet) {
        let mut manifests = self.manifests;
        // Counted only when this text has generated names: they are rare, the set may be large.
        let mut counts: HashMap<(String, String), usize> = HashMap::new();
        if manifests.iter().any(|m| generated_key(m).is_some()) {
            for m in &set.manifests {
                if let Some(key) = generated_key(m) {
                    *counts.entry(key).or_default() += 1;
                }
            }
        }
        for m in &mut manifests {
            // A text's own objects are not numbered yet: `NAME-<generated>`.
            let Some(key) = generated_key(m) else {
                continue;
            };
            let prefix = key.1.clone();
            let seen = counts.entry(key).or_default();
            *seen += 1;
            if *seen > 1 {
                let numbered = format!("{prefix}<generated-{seen}>");
                m.object.metadata_mut().name = numbered;
            }
        }
        set.manifests.extend(manifests);
        set.problems.extend(self.problems);
        set.sources.push(self.source);
    }
}

/// What stands for the random suffix the API server appends to `metadata.generateName`:
/// `generateName: pi-` is planned and shown as `pi-<generated>`, the name kubectl prints once
/// the object exists being `pi-` and five random characters. Each `kubectl create` of such an
/// object makes a new one, so a second object of the same kind and `generateName` in the
/// inputs is another object: `pi-<generated-2>`, then `pi-<generated-3>`.
pub const GENERATED_SUFFIX: &str = "<generated>";

/// The kind and `generateName` of an object of the set named by one, numbered or not.
fn generated_key(m: &Manifest) -> Option<(String, String)> {
    let name = &m.object.metadata().name;
    let at = name.rfind("<generated")?;
    is_generated(name).then(|| (m.object.kind().to_string(), name[..at].to_string()))
}

/// Whether `name` stands for a generated one (`pi-<generated>`, `pi-<generated-2>`).
pub fn is_generated(name: &str) -> bool {
    name.ends_with('>') && name.contains("<generated")
}

impl Manifest {
    /// A decoded object; one named only by `generateName` gets the name it is shown and
    /// addressed by (see [`GENERATED_SUFFIX`]).
    fn decoded(file: Arc<str>, document: usize, root: Node, mut object: Object) -> Manifest {
        let meta = root.get("metadata");
        let generate_name = meta
            .and_then(|m| m.get("generateName"))
            .and_then(Node::as_str)
            .filter(|g| !g.is_empty());
        let named = meta
            .and_then(|m| m.get("name"))
            .and_then(Node::as_str)
            .is_some_and(|n| !n.is_empty());
        if let (Some(prefix), false) = (generate_name, named) {
            object.metadata_mut().name = format!("{prefix}{GENERATED_SUFFIX}");
        }
        Manifest {
            file,
            document,
            root,
            object,
        }
    }
}

/// Decode the documents of one text; `v1 List` documents are unwrapped into their items. A
/// problem in a Go template (a Helm chart's file) says so: the YAML error is only a symptom.
pub fn parse_text(file: &Arc<str>, text: &str) -> (Vec<Manifest>, Vec<LoadError>) {
    let (manifests, mut problems) = decode_text(file, text);
    for problem in &mut problems {
        if let LoadError::Syntax { pos, message, .. } | LoadError::Decode { pos, message, .. } =
            problem
            && is_template(text, pos.line)
        {
            message.push_str(TEMPLATE_HINT);
        }
    }
    (manifests, problems)
}

const TEMPLATE_HINT: &str = " (this file is a Go template, as in a Helm chart: render it first, \
     e.g. `helm template RELEASE CHART`, and pass the output with `-f -`)";

/// Whether a problem at `line` comes from Go template actions: the line holds one (`{{ ... }}`)
/// or a line of the file is one (`{{- if ... }}`). Quoted template strings of other tools
/// (`"{{inputs.parameters.x}}"`) parse as YAML and reach here only on a line that has one.
fn is_template(text: &str, line: usize) -> bool {
    let action = |l: &str| l.find("{{").is_some_and(|at| l[at..].contains("}}"));
    text.lines().nth(line.saturating_sub(1)).is_some_and(action)
        || text
            .lines()
            .any(|l| l.trim_start().starts_with("{{") && action(l))
}

fn decode_text(file: &Arc<str>, text: &str) -> (Vec<Manifest>, Vec<LoadError>) {
    let mut manifests = Vec::new();
    let mut problems = Vec::new();
    let documents = match tree::parse_documents(text) {
        Ok(docs) => docs,
        Err(e) => {
            problems.push(LoadError::Syntax {
                file: file.to_string(),
                pos: e.pos,
                message: e.message,
            });
            return (manifests, problems);
        }
    };
    for (document, root) in documents.into_iter().enumerate() {
        let is_list = root.get("kind").and_then(Node::as_str) == Some("List")
            || root
                .get("kind")
                .and_then(Node::as_str)
                .is_some_and(|k| k.ends_with("List") && root.get("items").is_some());
        if is_list {
            for (i, item) in root
                .get("items")
                .map(Node::items)
                .unwrap_or(&[])
                .iter()
                .enumerate()
            {
                match decode_node(item) {
                    Ok(object) => manifests.push(Manifest::decoded(
                        file.clone(),
                        document,
                        item.clone(),
                        object,
                    )),
                    Err(e) => problems.push(decode_problem(file, item, &format!("items[{i}]"), e)),
                }
            }
            continue;
        }
        match decode_node(&root) {
            Ok(object) => manifests.push(Manifest::decoded(file.clone(), document, root, object)),
            Err(e) => problems.push(decode_problem(file, &root, "", e)),
        }
    }
    (manifests, problems)
}

fn decode_problem(file: &str, root: &Node, prefix: &str, e: DecodeError) -> LoadError {
    let pos = root.closest_pos(&parse_path(&e.path));
    let path = match (prefix.is_empty(), e.path.is_empty()) {
        (true, _) => e.path,
        (false, true) => prefix.to_string(),
        (false, false) => format!("{prefix}.{}", e.path),
    };
    LoadError::Decode {
        file: file.to_string(),
        pos,
        path,
        message: in_kubernetes_terms(&e.message),
    }
}

/// serde's wording (`invalid type: string "3", expected i32`, `expected struct OpSpec`)
/// said as the Kubernetes API reference says it: `expected an integer, got the string "3"`.
fn in_kubernetes_terms(message: &str) -> String {
    let shape = |rust: &str| -> String {
        let rust = rust.trim();
        match rust {
            "i8" | "i16" | "i32" | "i64" | "u8" | "u16" | "u32" | "u64" | "usize" => {
                "an integer".into()
            }
            "f32" | "f64" => "a number".into(),
            "a string" | "a borrowed string" | "string" => "a string".into(),
            "a boolean" | "bool" => "true or false".into(),
            "a sequence" | "sequence" => "a list".into(),
            "a map" => "an object (field: value)".into(),
            "map" => "an object".into(),
            "unit value" | "null" => "null".into(),
            _ if rust.starts_with("struct ") || rust.starts_with("enum ") => {
                "an object (field: value)".into()
            }
            _ => {
                let value = rust
                    .replace("integer `", "the number `")
                    .replace("floating point `", "the number `")
                    .replace("boolean `", "the boolean `")
                    .replace("string ", "the string ");
                value.replace('`', "")
            }
        }
    };
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some(rest) = message.strip_prefix(prefix)
            && let Some((got, expected)) = rest.rsplit_once(", expected ")
        {
            return format!("expected {}, got {}", shape(expected), shape(got));
        }
    }
    if let Some(field) = message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.strip_suffix('`'))
    {
        return format!("missing required field {field:?}");
    }
    message.to_string()
}

/// Decode one document tree into a typed object.
pub(crate) fn decode_node(root: &Node) -> Result<Object, DecodeError> {
    if !matches!(root.value, Value::Map(_)) {
        return Err(DecodeError {
            path: String::new(),
            message: "expected a Kubernetes object (a mapping with apiVersion and kind)".into(),
        });
    }
    let json = root.to_json();
    let type_meta = TypeMeta::deserialize(&json).map_err(|e| DecodeError {
        path: "kind".into(),
        message: e.to_string(),
    })?;
    for (field, value) in [
        ("apiVersion", &type_meta.api_version),
        ("kind", &type_meta.kind),
    ] {
        if value.is_empty() {
            return Err(DecodeError {
                path: field.into(),
                message: format!("missing required field {field:?}"),
            });
        }
    }
    let mut object = Object::decode(type_meta, &json)?;
    validate::validate(&object)?;
    if object.is_namespaced() && object.metadata().namespace.is_empty() {
        object.metadata_mut().namespace = "default".into();
    }
    Ok(object)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each object of one kind and `generateName` is another object, as each `kubectl create`
    /// makes a new one: the first is `NAME-<generated>`, the next ones are numbered, per kind,
    /// across files.
    #[test]
    fn objects_sharing_a_generate_name_stay_distinct() {
        let job = "apiVersion: batch/v1\nkind: Job\nmetadata: {generateName: sample-job-}\nspec:\n  template:\n    spec:\n      containers: [{name: c, image: busybox}]\n";
        let pod = "apiVersion: v1\nkind: Pod\nmetadata: {generateName: sample-job-}\nspec:\n  containers: [{name: c, image: busybox}]\n";
        let mut set = ManifestSet::default();
        add_source(
            &mut set,
            "a.yaml".into(),
            None,
            format!("{job}---\n{pod}---\n{job}"),
        );
        add_source(&mut set, "b.yaml".into(), None, job.to_string());
        let names: Vec<String> = set.manifests.iter().map(|m| m.display_name()).collect();
        assert_eq!(
            names,
            [
                "Job/default/sample-job-<generated>",
                "Pod/default/sample-job-<generated>",
                "Job/default/sample-job-<generated-2>",
                "Job/default/sample-job-<generated-3>",
            ]
        );
        assert!(
            set.manifests
                .iter()
                .all(|m| is_generated(&m.object.metadata().name))
        );
    }

    fn parse(text: &str) -> (Vec<Manifest>, Vec<LoadError>) {
        parse_text(&Arc::from("m.yaml"), text)
    }

    #[test]
    fn lists_are_unwrapped_and_documents_counted() {
        let text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: n1\n";
        let (manifests, problems) = parse(text);
        assert!(problems.is_empty(), "{problems:?}");
        let summary: Vec<_> = manifests
            .iter()
            .map(|m| (m.document, m.display_name(), m.root.pos.line))
            .collect();
        assert_eq!(
            summary,
            vec![
                (0, "Pod/default/a".to_string(), 4),
                (1, "Node/n1".to_string(), 8)
            ]
        );
    }

    /// An object named only by `generateName` is shown as `PREFIX<generated>`; a written
    /// name wins over `generateName`, as on the API server.
    #[test]
    fn generate_name_objects_get_the_name_they_are_shown_by() {
        let text = "apiVersion: batch/v1\nkind: Job\nmetadata:\n  generateName: pi-\n  namespace: ml\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: web\n  generateName: ignored-\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  generateName: \"\"\n";
        let (manifests, problems) = parse(text);
        assert!(problems.is_empty(), "{problems:?}");
        let names: Vec<String> = manifests.iter().map(Manifest::display_name).collect();
        assert_eq!(
            names,
            ["Job/ml/pi-<generated>", "Pod/default/web", "Pod/default/"]
        );
    }

    #[test]
    fn problems_name_file_position_and_field() {
        let cases = [
            (
                "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: c\n    resources:\n      requests:\n        cpu: lots\n",
                "m.yaml:12:14: spec.containers[0].resources.requests.cpu: invalid quantity \"lots\": expected a number",
            ),
            (
                "apiVersion: data.fluid.io/v1\nkind: DataLoad\n",
                "m.yaml:1:13: apiVersion: unsupported apiVersion \"data.fluid.io/v1\" for DataLoad (expected \"data.fluid.io/v1alpha1\")",
            ),
            (
                "kind: Pod\n",
                "m.yaml:1:1: apiVersion: missing required field \"apiVersion\"",
            ),
            (
                "a: [1,\n",
                "m.yaml:2:1: while parsing a node, did not find expected node content",
            ),
            (
                "apiVersion: v1\nkind: Pod\nspec:\n  nodeSelector: [a]\n",
                "m.yaml:4:17: spec.nodeSelector: expected an object (field: value), got a list",
            ),
            (
                "apiVersion: apps/v1\nkind: Deployment\nspec:\n  replicas: \"3\"\n",
                "m.yaml:4:13: spec.replicas: expected an integer, got the string \"3\"",
            ),
        ];
        for (text, expected) in cases {
            let (_, problems) = parse(text);
            assert_eq!(problems.len(), 1, "{text}");
            assert_eq!(problems[0].to_string(), expected);
        }
    }

    #[test]
    fn object_references_read_like_kubectl() {
        let cases = [
            ("web-0", Ok(("Pod", "web-0"))),
            ("po/web-0", Ok(("Pod", "web-0"))),
            ("pods/web-0", Ok(("Pod", "web-0"))),
            ("deploy/api", Ok(("Deployment", "api"))),
            ("ds/agent", Ok(("DaemonSet", "agent"))),
            ("STS/db", Ok(("StatefulSet", "db"))),
            ("pg/bert", Ok(("PodGroup", "bert"))),
            (
                "podgroups.scheduling.volcano.sh/bert",
                Ok(("PodGroup", "bert")),
            ),
            ("vcjob/tf", Ok(("Job", "tf"))),
            ("dataload/warmup", Ok(("DataLoad", "warmup"))),
            ("job/pi-", Ok(("Job", "pi-<generated>"))),
            ("pod/web-<generated>", Ok(("Pod", "web-<generated>"))),
            (
                "deplyment/api",
                Err(
                    "unknown kind \"deplyment\" in \"deplyment/api\" (did you mean \"Deployment\"?); known kinds: CronJob, DaemonSet, DataBackup, DataLoad, DataMigrate, DataProcess, Deployment, JAXJob, Job, JobSet, LeaderWorkerSet, MPIJob, Node, PaddleJob, Pod, PodGroup, PyTorchJob, RayCluster, RayJob, RayService, ReplicaSet, StatefulSet, TFJob, TrainJob, XGBoostJob",
                ),
            ),
            (
                "pod/",
                Err("\"pod/\" names no object: write KIND/NAME, e.g. pod/web-0"),
            ),
            (
                "/web-0",
                Err("\"/web-0\" names no object: write KIND/NAME, e.g. pod/web-0"),
            ),
            (
                "",
                Err("\"\" names no object: write KIND/NAME, e.g. pod/web-0"),
            ),
            (
                "deploy/api/extra",
                Err(
                    "\"deploy/api/extra\": arguments in resource/name form may not have more than one slash",
                ),
            ),
            ("PO/web-0", Ok(("Pod", "web-0"))),
            ("dataloads.data.fluid.io/warm", Ok(("DataLoad", "warm"))),
            ("DataProcess/prep", Ok(("DataProcess", "prep"))),
            ("dataprocesses/prep", Ok(("DataProcess", "prep"))),
            ("daemonsets/agent", Ok(("DaemonSet", "agent"))),
            ("cj/nightly", Ok(("CronJob", "nightly"))),
            ("rs/api-5d9", Ok(("ReplicaSet", "api-5d9"))),
            ("no/node-1", Ok(("Node", "node-1"))),
        ];
        for (text, expected) in cases {
            let got = ObjectRef::parse(text)
                .map(|r| (r.kind, r.name))
                .map_err(|e| e.to_string());
            let expected = expected
                .map(|(kind, name)| (kind, name.to_string()))
                .map_err(str::to_string);
            assert_eq!(got, expected, "{text}");
        }
    }

    #[test]
    fn binary_and_invalid_utf8_are_refused_with_positions() {
        let err = text_from_bytes("b.yaml", b"a: 1\nb: \x00".to_vec()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "b.yaml:2:4: binary content (NUL byte); expected YAML or JSON text"
        );
        let err = text_from_bytes("u.yaml", b"a: \xff".to_vec()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "u.yaml:1:4: invalid UTF-8; expected YAML or JSON text"
        );
    }
}
