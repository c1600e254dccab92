//! Changing live objects: get, server-side apply, JSON patch and create, each optionally as a
//! server dry run. With `cluster/live.rs`, the only place that talks to an API server.
//!
//! Affinity goes in by server-side apply with field manager `kubectl-dataflow` (`force`, as
//! `kubectl apply --server-side --force-conflicts`), so the fields we set are ours and other
//! managers' fields stay. A scheduling gate is removed with a JSON patch that first tests the
//! gate is still at that index: apply cannot remove a list entry another manager owns.

use std::time::Duration;

use serde_json::Value;

use crate::{ConnectOptions, LiveError, RequestError, Resource, Session, resources};
use df_manifest::ObjectRef;
use df_model::OpKind;

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
    #[error(
        "cannot {what}: the cluster does not serve {api_version} (its API group is not installed; the API server answered 403 because authorization runs before the lookup)"
    )]
    NotInstalled { what: String, api_version: String },
    #[error("the API server rejected {what}: {message}")]
    Rejected { what: String, message: String },
    #[error(
        "{kind} objects are not changed by this tool: it patches Pods and the Fluid operations DataLoad, DataMigrate, DataProcess and DataBackup"
    )]
    UnknownKind { kind: String },
    #[error("cannot start the I/O runtime: {0}")]
    Runtime(String),
}

/// One live object to change: the resource of its kind, its namespace and name. Made from the
/// [`ObjectRef`] the user typed (read by the one `KIND/NAME` parser) or an object of the inputs.
#[derive(Debug, Clone)]
pub struct LiveObject {
    pub resource: &'static Resource,
    pub namespace: String,
    pub name: String,
}

impl LiveObject {
    /// `target` in `namespace`, if its kind is one the tool changes: a Pod (its affinity, its
    /// scheduling gates) or a Fluid operation (its affinity, or created by `launch`).
    pub fn new(target: &ObjectRef, namespace: &str) -> Result<LiveObject, ApplyError> {
        let changeable =
            target.is_kind("Pod") || OpKind::ALL.iter().any(|k| target.is_kind(k.as_str()));
        let resource = resources()
            .iter()
            .filter(|r| r.group.is_empty() || r.group == "data.fluid.io")
            .find(|r| changeable && target.is_kind(r.kind))
            .ok_or_else(|| ApplyError::UnknownKind {
                kind: target.kind.to_string(),
            })?;
        Ok(LiveObject {
            resource,
            namespace: namespace.to_string(),
            name: target.name.clone(),
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

impl std::fmt::Display for LiveObject {
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
    pub fn get(&self, object: &LiveObject) -> Result<Value, ApplyError> {
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
        object: &LiveObject,
        body: &Value,
        dry_run: bool,
    ) -> Result<Value, ApplyError> {
        self.change(Change::Apply, object, body, dry_run)
    }

    /// A JSON patch (RFC 6902) of `operations`.
    pub fn json_patch(
        &self,
        object: &LiveObject,
        operations: &Value,
        dry_run: bool,
    ) -> Result<Value, ApplyError> {
        self.change(Change::JsonPatch, object, operations, dry_run)
    }

    /// Create `body`; an existing object of that name is an error, never overwritten.
    pub fn create(
        &self,
        object: &LiveObject,
        body: &Value,
        dry_run: bool,
    ) -> Result<Value, ApplyError> {
        self.change(Change::Create, object, body, dry_run)
    }

    fn change(
        &self,
        change: Change,
        object: &LiveObject,
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
        object: &LiveObject,
        what: &str,
        verb: &'static str,
    ) -> ApplyError {
        match error {
            RequestError::NotFound => ApplyError::NotFound {
                object: object.to_string(),
            },
            // Authorization runs before the lookup: a resource of a group the cluster does not
            // serve (Fluid's CRDs not installed) is forbidden, not missing, for most users.
            // Discovery tells the two apart, as the live read does.
            RequestError::Failed(LiveError::Forbidden { .. })
                if !object.resource.group.is_empty()
                    && !self.runtime.block_on(crate::group_listed(
                        &self.session,
                        &object.resource.group_path(),
                    )) =>
            {
                ApplyError::NotInstalled {
                    what: what.to_string(),
                    api_version: object.resource.api_version(),
                }
            }
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

    /// What users type for `patch KIND/NAME`, read by the one parser, to the API path changed
    /// or the refusal in Kubernetes terms.
    #[test]
    fn typed_references_resolve_to_the_objects_the_tool_changes() {
        let refused = |kind: &str| {
            format!(
                "{kind} objects are not changed by this tool: it patches Pods and the Fluid operations DataLoad, DataMigrate, DataProcess and DataBackup"
            )
        };
        let cases = [
            ("web-0", Ok("/api/v1/namespaces/shop/pods/web-0")),
            ("pod/web-0", Ok("/api/v1/namespaces/shop/pods/web-0")),
            ("Pod/web-0", Ok("/api/v1/namespaces/shop/pods/web-0")),
            ("po/web-0", Ok("/api/v1/namespaces/shop/pods/web-0")),
            ("pods/web-0", Ok("/api/v1/namespaces/shop/pods/web-0")),
            (
                "dataload/warm",
                Ok("/apis/data.fluid.io/v1alpha1/namespaces/shop/dataloads/warm"),
            ),
            (
                "dataloads.data.fluid.io/warm",
                Ok("/apis/data.fluid.io/v1alpha1/namespaces/shop/dataloads/warm"),
            ),
            (
                "DataProcesses/prep",
                Ok("/apis/data.fluid.io/v1alpha1/namespaces/shop/dataprocesses/prep"),
            ),
            (
                "databackup/nightly",
                Ok("/apis/data.fluid.io/v1alpha1/namespaces/shop/databackups/nightly"),
            ),
            ("node/node-1", Err(refused("Node"))),
            ("pg/bert", Err(refused("PodGroup"))),
            ("deploy/api", Err(refused("Deployment"))),
            ("vcjob/tf", Err(refused("Job"))),
        ];
        for (typed, expected) in cases {
            let target = ObjectRef::parse(typed).unwrap();
            let got = LiveObject::new(&target, "shop")
                .map(|o| o.path())
                .map_err(|e| e.to_string());
            assert_eq!(got, expected.map(String::from), "{typed}");
        }
    }
}
