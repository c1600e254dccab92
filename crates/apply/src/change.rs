//! A change to one live object: what it looks like before and after (for the diff) and the
//! requests that make it. Built from the object as the API server returned it, so the diff
//! shows the object as `kubectl get -o yaml` would, minus managedFields.

use serde_json::{Value, json};

use super::manifest::{affinity_path, set_path, unified_diff};
use df_live::apply::{Api, ApplyError, FIELD_MANAGER, LiveObject};
use df_model::{Affinity, Object, TypeMeta};

#[derive(Debug, thiserror::Error)]
pub enum ChangeError {
    #[error("cannot read {object} as the API server returned it: {message}")]
    Decode { object: String, message: String },
    #[error("{kind} objects carry no pod affinity the tool can set")]
    Unsupported { kind: String },
    #[error("pod {object} has no scheduling gate {gate:?} (its gates: {gates})")]
    NoSuchGate {
        object: String,
        gate: String,
        gates: String,
    },
    #[error("cannot render {object}: {message}")]
    Render { object: String, message: String },
}

/// One live object's change.
#[derive(Debug, Clone)]
pub struct LiveChange {
    pub object: LiveObject,
    before: Value,
    after: Value,
    /// Server-side apply body; `None` when the affinity is already right.
    apply: Option<Value>,
    /// JSON patch removing the gate; `None` without `--ungate`.
    ungate: Option<Value>,
    gate: Option<String>,
}

/// Decode a live object through the model, as the state loader does.
pub fn decode(object: &LiveObject, live: &Value) -> Result<Object, ChangeError> {
    let type_meta = TypeMeta {
        api_version: live["apiVersion"].as_str().unwrap_or_default().to_string(),
        kind: live["kind"].as_str().unwrap_or_default().to_string(),
    };
    let type_meta = if type_meta.kind.is_empty() {
        TypeMeta {
            api_version: object.resource.api_version(),
            kind: object.resource.kind.to_string(),
        }
    } else {
        type_meta
    };
    Object::decode(type_meta, live).map_err(|e| ChangeError::Decode {
        object: object.to_string(),
        message: format!("{}: {}", e.path, e.message),
    })
}

impl LiveChange {
    /// Set the object's pod affinity to `affinity` and, for a pod, remove the gate `ungate`.
    pub fn new(
        object: LiveObject,
        live: &Value,
        affinity: Option<&Affinity>,
        ungate: Option<&str>,
    ) -> Result<LiveChange, ChangeError> {
        let decoded = decode(&object, live)?;
        let path = affinity_path(&decoded).ok_or_else(|| ChangeError::Unsupported {
            kind: decoded.kind().to_string(),
        })?;
        let mut before = live.clone();
        if let Some(metadata) = before.get_mut("metadata").and_then(Value::as_object_mut) {
            metadata.remove("managedFields");
        }
        let mut after = before.clone();
        let render = |e: serde_json::Error| ChangeError::Render {
            object: object.to_string(),
            message: e.to_string(),
        };
        let apply = match affinity {
            Some(affinity) => {
                let value = serde_json::to_value(affinity).map_err(render)?;
                set_path(&mut after, path, value.clone()).then(|| {
                    let mut body = json!({
                        "apiVersion": live["apiVersion"].as_str().map_or_else(|| object.resource.api_version(), String::from),
                        "kind": object.resource.kind,
                        "metadata": {"name": object.name, "namespace": object.namespace},
                    });
                    set_path(&mut body, path, value);
                    body
                })
            }
            None => None,
        };
        let ungate_name = ungate;
        let ungate = match ungate {
            Some(gate) => Some(remove_gate(&object, &mut after, gate)?),
            None => None,
        };
        Ok(LiveChange {
            object,
            before,
            after,
            apply,
            ungate,
            gate: ungate_name.map(String::from),
        })
    }

    /// What was done, once sent.
    pub fn summary(&self) -> String {
        let mut done = Vec::new();
        if self.apply.is_some() {
            done.push(format!(
                "affinity applied (server-side apply, field manager {FIELD_MANAGER})"
            ));
        }
        if let Some(gate) = &self.gate {
            done.push(format!("scheduling gate {gate} removed"));
        }
        format!("{}: {}", self.object, done.join(", "))
    }

    pub fn is_empty(&self) -> bool {
        self.apply.is_none() && self.ungate.is_none()
    }

    /// The unified diff of the object's YAML.
    pub fn diff(&self) -> Result<String, ChangeError> {
        let yaml = |value: &Value| {
            serde_saphyr::to_string(value).map_err(|e| ChangeError::Render {
                object: self.object.to_string(),
                message: e.to_string(),
            })
        };
        let label = format!(
            "{}/{}/{}",
            self.object.resource.kind.to_ascii_lowercase(),
            self.object.namespace,
            self.object.name
        );
        Ok(unified_diff(
            &yaml(&self.before)?,
            &yaml(&self.after)?,
            &label,
        ))
    }

    /// Send the requests; `dry_run` has the API server validate them without persisting.
    pub fn send(&self, api: &Api, dry_run: bool) -> Result<(), ApplyError> {
        if let Some(body) = &self.apply {
            api.apply(&self.object, body, dry_run)?;
        }
        if let Some(patch) = &self.ungate {
            api.json_patch(&self.object, patch, dry_run)?;
        }
        Ok(())
    }
}

/// Remove `gate` from `after` and return the JSON patch that does the same on the server,
/// guarded by a test that the gate is still where we saw it.
fn remove_gate(object: &LiveObject, after: &mut Value, gate: &str) -> Result<Value, ChangeError> {
    let gates = after["spec"]["schedulingGates"]
        .as_array_mut()
        .map(std::mem::take)
        .unwrap_or_default();
    let names: Vec<&str> = gates.iter().filter_map(|g| g["name"].as_str()).collect();
    let Some(index) = names.iter().position(|name| *name == gate) else {
        return Err(ChangeError::NoSuchGate {
            object: format!("{}/{}", object.namespace, object.name),
            gate: gate.to_string(),
            gates: if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            },
        });
    };
    let mut kept = gates.clone();
    kept.remove(index);
    let spec = after["spec"]
        .as_object_mut()
        .expect("a pod with gates has a spec");
    if kept.is_empty() {
        spec.remove("schedulingGates");
    } else {
        spec.insert("schedulingGates".into(), Value::Array(kept));
    }
    Ok(json!([
        {"op": "test", "path": format!("/spec/schedulingGates/{index}/name"), "value": gate},
        {"op": "remove", "path": format!("/spec/schedulingGates/{index}")},
    ]))
}

/// Validate every change with a server dry run, then make them: a change the server would
/// reject stops the run before anything is persisted.
pub fn send_all(api: &Api, changes: &[LiveChange]) -> Result<(), ApplyError> {
    for change in changes {
        change.send(api, true)?;
    }
    for change in changes {
        change.send(api, false)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::desired::pin;

    fn pod_ref() -> LiveObject {
        LiveObject::new(&df_manifest::ObjectRef::of("Pod", "web-0"), "shop").unwrap()
    }

    fn gated_pod() -> Value {
        json!({"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "web-0", "namespace": "shop", "managedFields": [{"manager": "x"}]},
               "spec": {"containers": [{"name": "c"}],
                        "schedulingGates": [{"name": "a"}, {"name": "example.com/placement"}]}})
    }

    #[test]
    fn a_gated_pod_gets_its_affinity_and_loses_its_gate() {
        let affinity = pin(None, "node-a");
        let change = LiveChange::new(
            pod_ref(),
            &gated_pod(),
            Some(&affinity),
            Some("example.com/placement"),
        )
        .unwrap();
        assert_eq!(
            change.apply,
            Some(json!({"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": "web-0", "namespace": "shop"},
                "spec": {"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
                    {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-a"]}]}]}}}}}))
        );
        assert_eq!(
            change.ungate,
            Some(json!([
                {"op": "test", "path": "/spec/schedulingGates/1/name", "value": "example.com/placement"},
                {"op": "remove", "path": "/spec/schedulingGates/1"}]))
        );
        assert_eq!(
            change.diff().unwrap(),
            "\
--- a/pod/shop/web-0
+++ b/pod/shop/web-0
@@ -8,4 +8,12 @@
   - name: c
   schedulingGates:
   - name: a
-  - name: example.com/placement
+  affinity:
+    nodeAffinity:
+      requiredDuringSchedulingIgnoredDuringExecution:
+        nodeSelectorTerms:
+        - matchFields:
+          - key: metadata.name
+            operator: In
+            values:
+            - node-a
"
        );
    }

    #[test]
    fn unchanged_objects_and_missing_gates() {
        let mut pinned = gated_pod();
        let affinity = pin(None, "node-a");
        pinned["spec"]["affinity"] = serde_json::to_value(&affinity).unwrap();
        let change = LiveChange::new(pod_ref(), &pinned, Some(&affinity), None).unwrap();
        assert!(change.is_empty());
        let err = LiveChange::new(pod_ref(), &pinned, Some(&affinity), Some("b")).unwrap_err();
        assert_eq!(
            err.to_string(),
            "pod shop/web-0 has no scheduling gate \"b\" (its gates: a, example.com/placement)"
        );
    }
}
