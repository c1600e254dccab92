//! Writing a computed affinity back into manifest files.
//!
//! Only the affinity field changes: it is spliced into the original text (see [`splice`]), so
//! every other byte of the file (comments, key order, quoting, indentation, CRLF line endings,
//! other documents) stays as it was and the diff shows only the affinity lines.

use std::path::PathBuf;

use similar::udiff::UnifiedHunkHeader;
use similar::{Algorithm, DiffOp, DiffTag};

use super::splice::{self, LineIndex, Splice};
use df_manifest::file::{WriteError, check_unchanged, write_atomic};
use df_manifest::{Manifest, ManifestSet};
use df_model::{Affinity, Object, OpKind};

#[derive(Debug, thiserror::Error)]
pub enum PatchError {
    #[error("{file}: {kind} objects carry no pod affinity the tool can set")]
    Unsupported { file: String, kind: String },
    #[error("{file}: manifests read from stdin cannot be written back")]
    NoPath { file: String },
    #[error("{file}: cannot render the new document: {message}")]
    Render { file: String, message: String },
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

/// Lines left between the common head and tail of two texts up to which a minimal (Myers)
/// diff is computed. Myers is quadratic when the texts differ everywhere; above this the
/// differing middle is shown as one replaced block, so a diff stays linear in the input size.
const MINIMAL_DIFF_LINES: usize = 4_000;

/// A unified diff of two texts under `a/<label>` and `b/<label>`, as `git diff` shows it.
///
/// The common first and last lines are matched in one linear pass; only the middle between
/// them is diffed line by line (see [`MINIMAL_DIFF_LINES`]). A patch changes a few lines of a
/// possibly huge file, so the middle is small.
pub fn unified_diff(before: &str, after: &str, label: &str) -> String {
    let old: Vec<&str> = before.split_inclusive('\n').collect();
    let new: Vec<&str> = after.split_inclusive('\n').collect();
    let head = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let tail = old[head..]
        .iter()
        .rev()
        .zip(new[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (old_end, new_end) = (old.len() - tail, new.len() - tail);
    let mut ops = Vec::new();
    if head > 0 {
        ops.push(DiffOp::Equal {
            old_index: 0,
            new_index: 0,
            len: head,
        });
    }
    let middle = (old_end - head) + (new_end - head);
    if middle <= MINIMAL_DIFF_LINES {
        ops.extend(similar::capture_diff(
            Algorithm::Myers,
            &old,
            head..old_end,
            &new,
            head..new_end,
        ));
    } else {
        ops.push(DiffOp::Replace {
            old_index: head,
            old_len: old_end - head,
            new_index: head,
            new_len: new_end - head,
        });
    }
    if tail > 0 {
        ops.push(DiffOp::Equal {
            old_index: old_end,
            new_index: new_end,
            len: tail,
        });
    }
    let mut out = String::new();
    for hunk in similar::group_diff_ops(ops, 3) {
        if out.is_empty() {
            let label = label.trim_start_matches('/');
            out.push_str(&format!("--- a/{label}\n+++ b/{label}\n"));
        }
        out.push_str(&format!("{}\n", UnifiedHunkHeader::new(&hunk)));
        for op in &hunk {
            let lines = [
                (' ', &old[op.old_range()]),
                ('-', &old[op.old_range()]),
                ('+', &new[op.new_range()]),
            ];
            let shown: &[(char, &[&str])] = match op.tag() {
                DiffTag::Equal => &lines[..1],
                _ => &lines[1..],
            };
            for &(sign, lines) in shown {
                for line in lines {
                    out.push(sign);
                    out.push_str(line);
                    if !line.ends_with('\n') {
                        out.push_str("\n\\ No newline at end of file\n");
                    }
                }
            }
        }
    }
    out
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

/// One file being edited: what is computed once per file (line offsets) and the splices found
/// so far, so many edits of one large file stay linear in its size.
struct FileEdits<'s> {
    file: String,
    path: PathBuf,
    text: &'s str,
    lines: LineIndex,
    splices: Vec<Splice>,
}

/// Compute the new text of every file that changes. Files and documents with nothing to change
/// are left out, so the caller can say "no changes" and exit clean.
pub fn rewrite(set: &ManifestSet, edits: &[Edit<'_>]) -> Result<Vec<FileChange>, PatchError> {
    let mut files: Vec<FileEdits<'_>> = Vec::new();
    for edit in edits {
        let manifest = edit.manifest;
        let file = manifest.file.to_string();
        let path = affinity_path(&manifest.object).ok_or_else(|| PatchError::Unsupported {
            file: file.clone(),
            kind: manifest.object.kind().to_string(),
        })?;
        let mut document = manifest.root.to_json();
        let new_value = serde_json::to_value(edit.affinity).map_err(|e| PatchError::Render {
            file: file.clone(),
            message: e.to_string(),
        })?;
        if !set_path(&mut document, path, new_value.clone()) {
            continue;
        }
        let index = match files.iter().position(|f| f.file == file) {
            Some(index) => index,
            None => {
                let source = set
                    .source(&file)
                    .ok_or_else(|| PatchError::NoPath { file: file.clone() })?;
                let file_path = source
                    .path
                    .clone()
                    .ok_or_else(|| PatchError::NoPath { file: file.clone() })?;
                files.push(FileEdits {
                    file,
                    path: file_path,
                    text: &source.text,
                    lines: LineIndex::new(&source.text),
                    splices: Vec::new(),
                });
                files.len() - 1
            }
        };
        let splice = replace_field(&files[index], manifest, path, &new_value)?;
        files[index].splices.push(splice);
    }
    let mut changes = Vec::with_capacity(files.len());
    for mut edits in files {
        edits.splices.sort_by_key(|(start, _, _)| *start);
        let mut after = String::with_capacity(edits.text.len());
        let mut copied = 0;
        for (start, end, text) in &edits.splices {
            after.push_str(&edits.text[copied..*start]);
            after.push_str(text);
            copied = *end;
        }
        after.push_str(&edits.text[copied..]);
        if after != edits.text {
            changes.push(FileChange {
                file: edits.file,
                path: edits.path,
                before: edits.text.to_string(),
                after,
            });
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

/// The splice that sets the field at `path` of `manifest` to `value`, every other byte of the
/// file kept. The manifest's tree knows its own positions, so an item of a `v1 List` is
/// patched in place like a document of its own.
fn replace_field(
    edits: &FileEdits<'_>,
    manifest: &Manifest,
    path: &[&str],
    value: &serde_json::Value,
) -> Result<Splice, PatchError> {
    splice::set_field(edits.text, &edits.lines, &manifest.root, path, value).map_err(|message| {
        PatchError::Render {
            file: manifest.file.to_string(),
            message,
        }
    })
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
    use df_model::{NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm};

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
        df_manifest::load(&[path.to_string_lossy().into_owned()], false).unwrap()
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
        containers: [{name: c}]
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
        let removed = diff
            .lines()
            .filter(|l| l.starts_with('-') && !l.starts_with("---"));
        assert_eq!(removed.count(), 0, "{diff}");
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
    fn nodes_cannot_be_patched_and_list_items_are_patched_in_place() {
        let dir = tempfile::tempdir().unwrap();
        let node = "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n";
        let set = load(dir.path(), "node.yaml", node);
        let affinity = Affinity::default();
        let edits = [Edit {
            manifest: &set.manifests[0],
            affinity: &affinity,
        }];
        let err = rewrite(&set, &edits).unwrap_err().to_string();
        assert!(
            err.ends_with("node.yaml: Node objects carry no pod affinity the tool can set"),
            "{err}"
        );
        let list = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: b}\n";
        let set = load(dir.path(), "list.yaml", list);
        let edits = [Edit {
            manifest: &set.manifests[1],
            affinity: &affinity,
        }];
        let changes = rewrite(&set, &edits).unwrap();
        assert_eq!(
            changes[0].after,
            format!("{list}  spec:\n    affinity: {{}}\n")
        );
    }

    #[test]
    fn json_files_get_the_field_in_place_as_json() {
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
            r#"{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}, "spec": {"affinity":{}}}"#
        );
    }

    #[test]
    fn diffs_match_git_and_stay_linear_when_everything_differs() {
        let similar_diff = |a: &str, b: &str| {
            similar::TextDiff::from_lines(a, b)
                .unified_diff()
                .context_radius(3)
                .header("a/f", "b/f")
                .to_string()
        };
        let lines = |range: std::ops::Range<usize>, tag: &str| -> String {
            range.map(|i| format!("{tag}{i}\n")).collect()
        };
        let cases = [
            ("a\nb\n", "a\nb\n"),
            ("a\nb\nc\n", "a\nB\nc\n"),
            ("a\nb", "a\nc"),
            ("", "x\n"),
            (
                &*format!("{}x\n{}", lines(0..50, "l"), lines(50..90, "l")),
                &*format!("{}y\nz\n{}", lines(0..50, "l"), lines(50..90, "l")),
            ),
        ];
        for (before, after) in cases {
            assert_eq!(
                unified_diff(before, after, "f"),
                similar_diff(before, after),
                "{before:?}"
            );
        }
        // Every line differs: one replaced block, not a quadratic search.
        let (before, after) = (lines(0..3000, "old"), lines(0..3000, "new"));
        let diff = unified_diff(&before, &after, "f");
        assert!(diff.starts_with("--- a/f\n+++ b/f\n@@ -1,3000 +1,3000 @@\n-old0\n"));
        assert_eq!(diff.lines().count(), 3 + 6000);
    }
}
