//! Writing a computed affinity back into manifest files.
//!
//! Only the documents whose affinity changes are re-emitted; every other byte of the file,
//! other documents, separators and comments between them, stays as it was. The changed
//! document is re-serialized from its tree (key order kept), so comments inside that one
//! document are lost: the diff shown first makes that visible.

use std::io::IsTerminal;
use std::path::PathBuf;

use similar::TextDiff;

use super::file::{WriteError, check_unchanged, write_atomic};
use crate::manifest::{Manifest, ManifestSet, tree};
use crate::model::{Affinity, Object, OpKind};

#[derive(Debug, thiserror::Error)]
pub enum PatchError {
    #[error("{file}: {kind} objects carry no pod affinity the tool can set")]
    Unsupported { file: String, kind: String },
    #[error("{file}: cannot patch an item of a List document; split the List into documents first")]
    InList { file: String },
    #[error("{file}: manifests read from stdin cannot be written back; pass the file with -f")]
    NoPath { file: String },
    #[error("{file}: cannot render the new document: {message}")]
    Render { file: String, message: String },
    #[error("refusing to write without confirmation: stdin is not a terminal; pass --yes")]
    NoTerminal,
    #[error("cannot ask for confirmation: {0}")]
    Prompt(String),
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// One object to patch and the affinity its pods should get.
pub struct Edit<'a> {
    pub manifest: &'a Manifest,
    pub affinity: &'a Affinity,
}

/// A file whose text changes.
#[derive(Debug, Clone, PartialEq)]
pub struct FileChange {
    pub file: String,
    pub path: PathBuf,
    pub before: String,
    pub after: String,
}

impl FileChange {
    /// A unified diff, as `git diff` shows it.
    pub fn diff(&self) -> String {
        unified_diff(&self.before, &self.after, &self.file)
    }
}

/// A unified diff of two texts under `a/<label>` and `b/<label>`, as `git diff` shows it.
pub fn unified_diff(before: &str, after: &str, label: &str) -> String {
    TextDiff::from_lines(before, after)
        .unified_diff()
        .context_radius(3)
        .header(
            &format!("a/{}", label.trim_start_matches('/')),
            &format!("b/{}", label.trim_start_matches('/')),
        )
        .to_string()
}

/// Where the pod affinity of an object lives in its manifest. A DataBackup and a script
/// DataProcess have no affinity field: Fluid gives their pods none of their own.
pub fn affinity_path(object: &Object) -> Option<&'static [&'static str]> {
    Some(match object {
        Object::Pod(_) => &["spec", "affinity"],
        Object::FluidOp(op) => match op.kind {
            OpKind::DataLoad | OpKind::DataMigrate => &["spec", "affinity"],
            OpKind::DataProcess if op.spec.processor.as_ref().is_some_and(|p| p.job.is_some()) => {
                &["spec", "processor", "job", "podSpec", "affinity"]
            }
            OpKind::DataProcess | OpKind::DataBackup => return None,
        },
        Object::Workload(w) if w.kind == "CronJob" => &[
            "spec",
            "jobTemplate",
            "spec",
            "template",
            "spec",
            "affinity",
        ],
        Object::Workload(_) => &["spec", "template", "spec", "affinity"],
        _ => return None,
    })
}

/// A byte range of a file's original text and what replaces it.
type Splice = (usize, usize, String);

/// Compute the new text of every file that changes. Files and documents with nothing to change
/// are left out, so the caller can say "no changes" and exit clean.
pub fn rewrite(set: &ManifestSet, edits: &[Edit<'_>]) -> Result<Vec<FileChange>, PatchError> {
    // Per file: the new text of each changed document, as byte ranges of the original text.
    let mut files: Vec<(FileChange, Vec<Splice>)> = Vec::new();
    for edit in edits {
        let manifest = edit.manifest;
        let file = manifest.file.to_string();
        let path = affinity_path(&manifest.object).ok_or_else(|| PatchError::Unsupported {
            file: file.clone(),
            kind: manifest.object.kind().to_string(),
        })?;
        let source = set
            .source(&file)
            .ok_or_else(|| PatchError::NoPath { file: file.clone() })?;
        let file_path = source
            .path
            .clone()
            .ok_or_else(|| PatchError::NoPath { file: file.clone() })?;
        let mut document = manifest.root.to_json();
        let new_value = serde_json::to_value(edit.affinity).map_err(|e| PatchError::Render {
            file: file.clone(),
            message: e.to_string(),
        })?;
        if !set_path(&mut document, path, new_value) {
            continue;
        }
        let text = source.text.to_string();
        let splice = replace_document(&text, manifest, &document)?;
        match files.iter_mut().find(|(c, _)| c.file == file) {
            Some((_, splices)) => splices.push(splice),
            None => files.push((
                FileChange {
                    file,
                    path: file_path,
                    before: text.clone(),
                    after: text,
                },
                vec![splice],
            )),
        }
    }
    let mut changes = Vec::with_capacity(files.len());
    for (mut change, mut splices) in files {
        // From the last document to the first, so earlier ranges stay valid.
        splices.sort_by_key(|(start, _, _)| std::cmp::Reverse(*start));
        for (start, end, text) in splices {
            change.after.replace_range(start..end, &text);
        }
        if change.before != change.after {
            changes.push(change);
        }
    }
    Ok(changes)
}

/// Set `path` to `value`, creating maps on the way; false when it already had that value.
pub fn set_path(document: &mut serde_json::Value, path: &[&str], value: serde_json::Value) -> bool {
    let mut node = document;
    for key in &path[..path.len() - 1] {
        if !node.get(*key).is_some_and(serde_json::Value::is_object) {
            node[*key] = serde_json::json!({});
        }
        node = &mut node[*key];
    }
    let last = path[path.len() - 1];
    if node.get(last) == Some(&value) {
        return false;
    }
    node[last] = value;
    true
}

/// Byte range of each YAML document: separated by `---` lines.
fn document_ranges(text: &str) -> Vec<(usize, usize, usize)> {
    let mut ranges = Vec::new();
    let mut start = 0;
    let mut start_line = 1;
    let mut offset = 0;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        let separator =
            line.starts_with("---") && line[3..].chars().next().is_none_or(char::is_whitespace);
        if separator {
            ranges.push((start, offset, start_line));
            start = offset + line.len();
            start_line = i + 2;
        }
        offset += line.len();
    }
    ranges.push((start, text.len(), start_line));
    ranges
}

/// The byte range of `manifest`'s document in `text` and its new text.
fn replace_document(
    text: &str,
    manifest: &Manifest,
    document: &serde_json::Value,
) -> Result<Splice, PatchError> {
    let file = manifest.file.to_string();
    let render = |e: String| PatchError::Render {
        file: file.clone(),
        message: e,
    };
    let json = text.trim_start().starts_with('{');
    let (start, end) = if json {
        (0, text.len())
    } else {
        let line = manifest.root.pos.line;
        let ranges = document_ranges(text);
        let &(start, end, _) = ranges
            .iter()
            .rev()
            .find(|(_, _, first)| *first <= line)
            .unwrap_or(&ranges[0]);
        (start, end)
    };
    let segment = &text[start..end];
    let in_list = tree::parse_documents(segment)
        .ok()
        .and_then(|roots| roots.into_iter().next())
        .is_some_and(|root| {
            root.get("items").is_some()
                && root
                    .get("kind")
                    .and_then(tree::Node::as_str)
                    .is_some_and(|k| k.ends_with("List"))
        });
    if in_list {
        return Err(PatchError::InList { file });
    }
    if json {
        let mut out = serde_json::to_string_pretty(document).map_err(|e| render(e.to_string()))?;
        out.push('\n');
        return Ok((start, end, out));
    }
    // Comment lines before the object's first key stay, as they describe the document.
    let kept: usize = segment
        .split_inclusive('\n')
        .take_while(|l| {
            let t = l.trim();
            t.is_empty() || t.starts_with('#')
        })
        .map(str::len)
        .sum();
    let yaml = serde_saphyr::to_string(document).map_err(|e| render(e.to_string()))?;
    Ok((start, end, format!("{}{yaml}", &segment[..kept])))
}

/// Ask before writing: `--yes` skips the question; without a terminal there is nobody to ask,
/// so the answer is no (an error), never a silent yes.
pub fn confirm(prompt: &str, yes: bool) -> Result<bool, PatchError> {
    let terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if !must_ask(yes, terminal)? {
        return Ok(true);
    }
    dialoguer::Confirm::new()
        .with_prompt(prompt)
        .default(false)
        .interact()
        .map_err(|e| PatchError::Prompt(e.to_string()))
}

fn must_ask(yes: bool, terminal: bool) -> Result<bool, PatchError> {
    match (yes, terminal) {
        (true, _) => Ok(false),
        (false, true) => Ok(true),
        (false, false) => Err(PatchError::NoTerminal),
    }
}

/// Write every change atomically. Every file is checked first (writable, unchanged since it
/// was read), so a refusal writes nothing at all; a failure names the file.
pub fn write(changes: &[FileChange]) -> Result<(), PatchError> {
    for change in changes {
        check_unchanged(&change.path, Some(change.before.as_bytes()))?;
    }
    for change in changes {
        write_atomic(
            &change.path,
            change.after.as_bytes(),
            Some(change.before.as_bytes()),
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm};

    const FILE: &str = "\
# the warm-up step
apiVersion: v1
kind: Pod
metadata: {name: a}   # keep me
spec:
  containers: [{name: c}]
---
# train
apiVersion: data.fluid.io/v1alpha1
kind: DataProcess
metadata:
  name: train
spec:
  processor:
    job:
      podSpec:
        containers: [{name: c}]
---
apiVersion: v1
kind: Pod
metadata: {name: b}
spec: {containers: [{name: c}]}
";

    fn zone(value: &str) -> Affinity {
        Affinity {
            node_affinity: Some(NodeAffinity {
                required: Some(NodeSelector {
                    node_selector_terms: vec![NodeSelectorTerm {
                        match_expressions: vec![NodeSelectorRequirement {
                            key: "topology.kubernetes.io/zone".into(),
                            operator: "In".into(),
                            values: vec![value.into()],
                        }],
                        ..Default::default()
                    }],
                }),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    fn load(dir: &std::path::Path, name: &str, text: &str) -> ManifestSet {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        crate::manifest::load(&[path.to_string_lossy().into_owned()], false).unwrap()
    }

    const TRAIN_AFTER: &str = "\
# train
apiVersion: data.fluid.io/v1alpha1
kind: DataProcess
metadata:
  name: train
spec:
  processor:
    job:
      podSpec:
        containers:
        - name: c
        affinity:
          nodeAffinity:
            requiredDuringSchedulingIgnoredDuringExecution:
              nodeSelectorTerms:
              - matchExpressions:
                - key: topology.kubernetes.io/zone
                  operator: In
                  values:
                  - a
";

    #[test]
    fn only_the_changed_document_is_rewritten() {
        let dir = tempfile::tempdir().unwrap();
        let set = load(dir.path(), "flow.yaml", FILE);
        let affinity = zone("a");
        let edits = [Edit {
            manifest: &set.manifests[1],
            affinity: &affinity,
        }];
        let changes = rewrite(&set, &edits).unwrap();
        assert_eq!(changes.len(), 1);
        let (first, rest) = FILE.split_once("---\n").unwrap();
        let (_, last) = rest.split_once("---\n").unwrap();
        assert_eq!(
            changes[0].after,
            format!("{first}---\n{TRAIN_AFTER}---\n{last}")
        );
        let diff = changes[0].diff();
        assert!(diff.contains("+        affinity:\n"), "{diff}");
        assert!(
            diff.contains("-        containers: [{name: c}]\n"),
            "{diff}"
        );
        write(&changes).unwrap();
        assert_eq!(
            std::fs::read_to_string(&changes[0].path).unwrap(),
            changes[0].after
        );
        // Applying the same affinity again changes nothing.
        let set = load(dir.path(), "flow.yaml", &changes[0].after);
        let edits = [Edit {
            manifest: &set.manifests[1],
            affinity: &affinity,
        }];
        assert_eq!(rewrite(&set, &edits).unwrap(), []);
    }

    #[test]
    fn objects_that_cannot_be_patched_say_why() {
        let dir = tempfile::tempdir().unwrap();
        let list = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n";
        let node = "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n";
        let cases = [
            (
                "list.yaml",
                list,
                "cannot patch an item of a List document; split the List into documents first",
            ),
            (
                "node.yaml",
                node,
                "Node objects carry no pod affinity the tool can set",
            ),
        ];
        let affinity = zone("a");
        for (name, text, message) in cases {
            let set = load(dir.path(), name, text);
            let edits = [Edit {
                manifest: &set.manifests[0],
                affinity: &affinity,
            }];
            let err = rewrite(&set, &edits).unwrap_err().to_string();
            assert!(err.ends_with(&format!("{name}: {message}")), "{err}");
        }
    }

    #[test]
    fn json_files_are_rewritten_whole() {
        let dir = tempfile::tempdir().unwrap();
        let set = load(
            dir.path(),
            "pod.json",
            r#"{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}}"#,
        );
        let affinity = Affinity::default();
        let edits = [Edit {
            manifest: &set.manifests[0],
            affinity: &affinity,
        }];
        let changes = rewrite(&set, &edits).unwrap();
        assert_eq!(
            changes[0].after,
            "{\n  \"apiVersion\": \"v1\",\n  \"kind\": \"Pod\",\n  \"metadata\": {\n    \"name\": \"a\"\n  },\n  \"spec\": {\n    \"affinity\": {}\n  }\n}\n"
        );
    }

    #[test]
    fn confirmation_needs_yes_or_a_terminal() {
        let cases = [
            (true, false, false),
            (true, true, false),
            (false, true, true),
        ];
        for (yes, terminal, expected) in cases {
            assert_eq!(
                must_ask(yes, terminal).ok(),
                Some(expected),
                "{yes} {terminal}"
            );
        }
        assert_eq!(
            must_ask(false, false).unwrap_err().to_string(),
            "refusing to write without confirmation: stdin is not a terminal; pass --yes"
        );
    }
}
