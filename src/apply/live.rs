//! Changing live objects: get, server-side apply, JSON patch and create, each optionally as a
//! server dry run. With `cluster/live.rs`, the only place that talks to an API server.
//!
//! Affinity goes in by server-side apply with field manager `kubectl-dataflow` (`force`, as
//! `kubectl apply --server-side --force-conflicts`), so the fields we set are ours and other
//! managers' fields stay. A scheduling gate is removed with a JSON patch that first tests the
//! gate is still at that index: apply cannot remove a list entry another manager owns.

use std::time::Duration;

use serde_json::Value;

use crate::cluster::live::{ConnectOptions, LiveError, RESOURCES, RequestError, Resource, Session};

/// The field manager of every change the tool makes.
pub const FIELD_MANAGER: &str = "kubectl-dataflow";

#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    #[error(transparent)]
    Live(#[from] LiveError),
    #[error("{object} not found; check the name and the namespace")]
    NotFound { object: String },
    #[error(
        "{object} already exists; delete it first (`kubectl delete {kind} {name} -n {namespace}`) or give the new one another name"
    )]
    AlreadyExists {
        object: String,
        kind: String,
        name: String,
        namespace: String,
    },
    #[error(
        "forbidden: cannot {what}: {message}; ask for {verb} permission on {resource} in namespace {namespace}"
    )]
    Forbidden {
        what: String,
        message: String,
        verb: &'static str,
        resource: String,
        namespace: String,
    },
    #[error("the API server rejected {what}: {message}")]
    Rejected { what: String, message: String },
    #[error("{kind} is not a kind the tool can change (Pod, DataLoad, DataMigrate, DataProcess)")]
    UnknownKind { kind: String },
    #[error("cannot start the I/O runtime: {0}")]
    Runtime(String),
}

/// One live object: its kind's resource, namespace and name.
#[derive(Debug, Clone)]
pub struct ObjectRef {
    pub resource: &'static Resource,
    pub namespace: String,
    pub name: String,
}

impl ObjectRef {
    /// `kind` as written in manifests or on the command line (`DataLoad`, `dataload`, `pod`).
    pub fn new(kind: &str, namespace: &str, name: &str) -> Result<ObjectRef, ApplyError> {
        let resource = RESOURCES
            .iter()
            .filter(|r| r.group.is_empty() || r.group == "data.fluid.io")
            .find(|r| {
                r.kind.eq_ignore_ascii_case(kind)
                    || r.plural.eq_ignore_ascii_case(kind)
                    || (r.kind == "Pod" && kind.eq_ignore_ascii_case("po"))
            })
            .filter(|r| r.namespaced)
            .ok_or_else(|| ApplyError::UnknownKind {
                kind: kind.to_string(),
            })?;
        Ok(ObjectRef {
            resource,
            namespace: namespace.to_string(),
            name: name.to_string(),
        })
    }

    fn collection_path(&self) -> String {
        format!(
            "{}/namespaces/{}/{}",
            self.resource.group_path(),
            self.namespace,
            self.resource.plural
        )
    }

    fn path(&self) -> String {
        format!("{}/{}", self.collection_path(), self.name)
    }
}

impl std::fmt::Display for ObjectRef {
    /// `dataloads.data.fluid.io "warm" in namespace "data"`, as kubectl names objects.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} {:?} in namespace {:?}",
            self.resource.display(),
            self.name,
            self.namespace
        )
    }
}

/// A connection to the cluster of the kubeconfig, with its own single-thread runtime: the
/// commands stay synchronous.
pub struct Api {
    runtime: tokio::runtime::Runtime,
    session: Session,
}

/// Which kind of change a request makes, for the query string and error messages.
#[derive(Debug, Clone, Copy)]
enum Change {
    Apply,
    JsonPatch,
    Create,
}

impl Api {
    pub fn connect(options: &ConnectOptions) -> Result<Api, ApplyError> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| ApplyError::Runtime(e.to_string()))?;
        let session = runtime.block_on(Session::connect(options))?;
        Ok(Api { runtime, session })
    }

    /// The namespace of the kubeconfig's context, for objects that name none.
    pub fn default_namespace(&self) -> &str {
        &self.session.default_namespace
    }

    /// The object as the API server stores it.
    pub fn get(&self, object: &ObjectRef) -> Result<Value, ApplyError> {
        let what = format!("get {object}");
        let text = self
            .runtime
            .block_on(self.session.get(&object.path(), &what))
            .map_err(|e| self.error(e, object, &what, "get"))?;
        decode(&text, &what)
    }

    /// Server-side apply of `body` (apiVersion, kind, metadata.name/namespace and the fields
    /// we own).
    pub fn apply(
        &self,
        object: &ObjectRef,
        body: &Value,
        dry_run: bool,
    ) -> Result<Value, ApplyError> {
        self.change(Change::Apply, object, body, dry_run)
    }

    /// A JSON patch (RFC 6902) of `operations`.
    pub fn json_patch(
        &self,
        object: &ObjectRef,
        operations: &Value,
        dry_run: bool,
    ) -> Result<Value, ApplyError> {
        self.change(Change::JsonPatch, object, operations, dry_run)
    }

    /// Create `body`; an existing object of that name is an error, never overwritten.
    pub fn create(
        &self,
        object: &ObjectRef,
        body: &Value,
        dry_run: bool,
    ) -> Result<Value, ApplyError> {
        self.change(Change::Create, object, body, dry_run)
    }

    fn change(
        &self,
        change: Change,
        object: &ObjectRef,
        body: &Value,
        dry_run: bool,
    ) -> Result<Value, ApplyError> {
        let (method, path, content_type, verb, mut query) = match change {
            Change::Apply => (
                http::Method::PATCH,
                object.path(),
                "application/apply-patch+yaml",
                "patch",
                format!("fieldManager={FIELD_MANAGER}&force=true"),
            ),
            Change::JsonPatch => (
                http::Method::PATCH,
                object.path(),
                "application/json-patch+json",
                "patch",
                format!("fieldManager={FIELD_MANAGER}"),
            ),
            Change::Create => (
                http::Method::POST,
                object.collection_path(),
                "application/json",
                "create",
                format!("fieldManager={FIELD_MANAGER}"),
            ),
        };
        if dry_run {
            query.push_str("&dryRun=All");
        }
        let what = format!(
            "{verb} {object}{}",
            if dry_run { " (server dry run)" } else { "" }
        );
        let request = http::Request::builder()
            .method(method)
            .uri(format!("{path}?{query}"))
            .header("Accept", "application/json")
            .header("Content-Type", content_type)
            .body(body.to_string().into_bytes())
            .map_err(|e| ApplyError::Rejected {
                what: what.clone(),
                message: e.to_string(),
            })?;
        let text = self
            .runtime
            .block_on(self.session.send(request, &what))
            .map_err(|e| self.error(e, object, &what, verb))?;
        decode(&text, &what)
    }

    /// Wait `interval` on the runtime (polling loops stay off busy waits).
    pub fn sleep(&self, interval: Duration) {
        self.runtime
            .block_on(async { tokio::time::sleep(interval).await });
    }

    /// One line naming the object and what to do.
    fn error(
        &self,
        error: RequestError,
        object: &ObjectRef,
        what: &str,
        verb: &'static str,
    ) -> ApplyError {
        match error {
            RequestError::NotFound => ApplyError::NotFound {
                object: object.to_string(),
            },
            RequestError::Failed(LiveError::Forbidden { message, .. }) => ApplyError::Forbidden {
                what: what.to_string(),
                message,
                verb,
                resource: object.resource.display(),
                namespace: object.namespace.clone(),
            },
            RequestError::Failed(LiveError::Api { code: 409, .. }) if verb == "create" => {
                ApplyError::AlreadyExists {
                    object: object.to_string(),
                    kind: object.resource.kind.to_ascii_lowercase(),
                    name: object.name.clone(),
                    namespace: object.namespace.clone(),
                }
            }
            RequestError::Failed(LiveError::Api { code, message, .. }) => ApplyError::Rejected {
                what: what.to_string(),
                message: format!("{code} {message}"),
            },
            RequestError::Failed(other) => ApplyError::Live(other),
        }
    }
}

fn decode(text: &str, what: &str) -> Result<Value, ApplyError> {
    serde_json::from_str(text).map_err(|e| {
        ApplyError::Live(LiveError::Decode {
            what: what.to_string(),
            message: e.to_string(),
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_resolve_to_their_resources() {
        let cases = [
            ("pod", Ok("/api/v1/namespaces/shop/pods/web-0")),
            ("Pod", Ok("/api/v1/namespaces/shop/pods/web-0")),
            ("po", Ok("/api/v1/namespaces/shop/pods/web-0")),
            (
                "dataload",
                Ok("/apis/data.fluid.io/v1alpha1/namespaces/shop/dataloads/web-0"),
            ),
            (
                "DataProcesses",
                Ok("/apis/data.fluid.io/v1alpha1/namespaces/shop/dataprocesses/web-0"),
            ),
            (
                "node",
                Err(
                    "node is not a kind the tool can change (Pod, DataLoad, DataMigrate, DataProcess)",
                ),
            ),
            (
                "podgroup",
                Err(
                    "podgroup is not a kind the tool can change (Pod, DataLoad, DataMigrate, DataProcess)",
                ),
            ),
        ];
        for (kind, expected) in cases {
            let got = ObjectRef::new(kind, "shop", "web-0")
                .map(|o| o.path())
                .map_err(|e| e.to_string());
            assert_eq!(
                got,
                expected.map(String::from).map_err(String::from),
                "{kind}"
            );
        }
    }
}
