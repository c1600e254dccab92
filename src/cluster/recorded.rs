//! Recorded cluster state: the output of `kubectl get nodes,pods,... -A -o json|yaml`.
//!
//! JSON is the format of large states, so it takes a fast path: the file is read into one
//! buffer, list items are borrowed as raw slices (skipping is cheap), and each item is decoded
//! straight into the slim model types. YAML goes through the positioned tree, like manifests.

use std::sync::Arc;

use serde::Deserialize;
use serde_json::value::RawValue;

use super::ClusterState;
use crate::manifest::tree::position_at;
use crate::manifest::{self, LoadError, Pos};
use crate::model::{Object, TypeMeta};

/// Load and merge several state files, in order (later objects win).
pub fn load_files(paths: &[String]) -> Result<ClusterState, LoadError> {
    let mut objects = Vec::new();
    for path in paths {
        let bytes = if path == "-" {
            let mut bytes = Vec::new();
            std::io::Read::read_to_end(&mut std::io::stdin(), &mut bytes).map(|_| bytes)
        } else {
            std::fs::read(path)
        }
        .map_err(|e| LoadError::Io {
            file: manifest::display_name(path).to_string(),
            message: if e.kind() == std::io::ErrorKind::NotFound {
                "no such file or directory".into()
            } else {
                e.to_string()
            },
        })?;
        objects.extend(parse_state(manifest::display_name(path), &bytes)?);
    }
    Ok(ClusterState::from_objects(objects))
}

/// Decode one state file's objects.
pub fn parse_state(file: &str, bytes: &[u8]) -> Result<Vec<Object>, LoadError> {
    let text = std::str::from_utf8(bytes).map_err(|e| LoadError::Syntax {
        file: file.to_string(),
        pos: position_at(bytes, e.valid_up_to()),
        message: "invalid UTF-8; expected a JSON or YAML state".into(),
    })?;
    if text.trim_start().starts_with('{') {
        parse_json(file, text)
    } else {
        parse_yaml(file, text)
    }
}

#[derive(Deserialize)]
struct ListShape<'a> {
    #[serde(default)]
    kind: String,
    #[serde(borrow, default)]
    items: Option<Vec<&'a RawValue>>,
}

fn parse_json(file: &str, text: &str) -> Result<Vec<Object>, LoadError> {
    let syntax = |e: serde_json::Error| LoadError::Syntax {
        file: file.to_string(),
        pos: Pos {
            line: e.line(),
            column: e.column(),
        },
        message: e
            .to_string()
            .split(" at line ")
            .next()
            .unwrap_or("")
            .to_string(),
    };
    let shape: ListShape<'_> = serde_json::from_str(text).map_err(syntax)?;
    let items: Vec<&str> = match shape.items {
        Some(items) if shape.kind.ends_with("List") => items.iter().map(|r| r.get()).collect(),
        _ => vec![text],
    };
    let mut objects = Vec::with_capacity(items.len());
    for (index, item) in items.into_iter().enumerate() {
        let offset = item.as_ptr() as usize - text.as_ptr() as usize;
        let decoded = serde_json::from_str::<TypeMeta>(item)
            .map_err(|e| (String::from("kind"), e.to_string()))
            .and_then(|type_meta| {
                let mut de = serde_json::Deserializer::from_str(item);
                Object::decode_untracked(type_meta.clone(), &mut de).or_else(|_| {
                    // Decode again, slower, to learn which field is wrong.
                    let mut de = serde_json::Deserializer::from_str(item);
                    Object::decode(type_meta, &mut de).map_err(|e| (e.path, e.message))
                })
            });
        match decoded {
            Ok(mut object) => {
                if object.is_namespaced() && object.metadata().namespace.is_empty() {
                    object.metadata_mut().namespace = "default".into();
                }
                objects.push(object)
            }
            Err((path, message)) => {
                let item_start = position_at(text.as_bytes(), offset);
                let (message, pos) = split_json_position(&message, item_start);
                return Err(LoadError::Decode {
                    file: file.to_string(),
                    pos,
                    path: if text.len() == item.len() {
                        path
                    } else {
                        format!("items[{index}].{path}")
                    },
                    message,
                });
            }
        }
    }
    Ok(objects)
}

/// serde_json appends " at line L column C" (relative to the item) to its messages; turn that
/// into a position in the whole file.
fn split_json_position(message: &str, item_start: Pos) -> (String, Pos) {
    let Some((text, at)) = message.rsplit_once(" at line ") else {
        return (message.to_string(), item_start);
    };
    let Some((line, column)) = at.split_once(" column ") else {
        return (message.to_string(), item_start);
    };
    let (Ok(line), Ok(column)) = (line.parse::<usize>(), column.parse::<usize>()) else {
        return (message.to_string(), item_start);
    };
    let pos = if line <= 1 {
        Pos {
            line: item_start.line,
            column: item_start.column + column.saturating_sub(1),
        }
    } else {
        Pos {
            line: item_start.line + line - 1,
            column,
        }
    };
    (text.to_string(), pos)
}

fn parse_yaml(file: &str, text: &str) -> Result<Vec<Object>, LoadError> {
    let (manifests, mut problems) = manifest::parse_text(&Arc::from(file), text);
    if !problems.is_empty() {
        return Err(problems.swap_remove(0));
    }
    Ok(manifests.into_iter().map(|m| m.object).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    const JSON_LIST: &str = r#"{
  "apiVersion": "v1",
  "kind": "List",
  "items": [
    {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"zone": "a"}},
     "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}},
    {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p1", "namespace": "team"},
     "spec": {"nodeName": "n1", "containers": [{"name": "c", "resources": {"requests": {"cpu": "500m"}}}]},
     "status": {"phase": "Running"}}
  ]
}"#;

    #[test]
    fn json_and_yaml_lists_give_the_same_objects() {
        let from_json = parse_state("s.json", JSON_LIST.as_bytes()).unwrap();
        let yaml = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: n1\n    labels: {zone: a}\n  status:\n    allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p1, namespace: team}\n  spec:\n    nodeName: n1\n    containers:\n    - name: c\n      resources: {requests: {cpu: 500m}}\n  status: {phase: Running}\n";
        let from_yaml = parse_state("s.yaml", yaml.as_bytes()).unwrap();
        assert_eq!(from_json, from_yaml);
        assert_eq!(from_json.len(), 2);
    }

    #[test]
    fn json_errors_point_at_the_item_and_field() {
        let broken = JSON_LIST.replace("\"500m\"", "\"five\"");
        let err = parse_state("s.json", broken.as_bytes()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "s.json:8:101: items[1].spec.containers[0].resources.requests.cpu: invalid quantity \"five\": expected a number"
        );
        let err = parse_state("s.json", b"{\"kind\": \"List\", \"items\": [}").unwrap_err();
        assert_eq!(err.to_string(), "s.json:1:28: expected value");
    }
}
