//! The live cluster: the one crate that talks to an API server (tokio, kube, HTTP). It reads the
//! objects placement depends on into a `ClusterState` and applies changes (`apply`).
//!
//! Lists are read as raw JSON pages (`limit` + `continue`) and every item is decoded by the same
//! `Object::decode` the recorded path uses, so the `ClusterState` built here is indistinguishable
//! from one loaded with `--state`. Raw pages rather than typed k8s-openapi lists keep memory at
//! the slim model's size on clusters with 100,000+ pods.
//!
//! Above `model`, `manifest` and `state`; the engine and everything that plans must not import
//! it (only `apply` and the binary do).

use std::path::PathBuf;
use std::time::Duration;

use http_body_util::BodyExt as _;
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};
use serde::Deserialize;
use serde_json::value::RawValue;

pub mod apply;
mod forbidden;
pub mod secrets;

use df_model::{Object, TypeMeta};
use df_state::ClusterState;

use crate::forbidden::Unread;
use crate::secrets::Redactor;

/// Items per page; kubectl uses 500 too.
const PAGE_SIZE: usize = 500;
/// The largest answer read from the API server. A page of 500 pods is a few MiB; a server
/// sending more is broken or hostile, and reading on would take the memory of the machine.
pub(crate) const MAX_RESPONSE_BYTES: usize = 128 * 1024 * 1024;

/// A context of a kubeconfig file, as shell completion offers it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KubeconfigContext {
    pub name: String,
    /// The namespace the context names, if any.
    pub namespace: Option<String>,
}

/// The contexts of the kubeconfig files at `paths`, in order; files that cannot be read or
/// parsed are skipped (completion offers what it can).
pub fn kubeconfig_contexts(paths: &[PathBuf]) -> Vec<KubeconfigContext> {
    paths
        .iter()
        .filter_map(|path| Kubeconfig::read_from(path).ok())
        .flat_map(|config| config.contexts)
        .map(|context| KubeconfigContext {
            namespace: context.context.and_then(|c| c.namespace),
            name: context.name,
        })
        .collect()
}

/// Which kubeconfig and context to use, and how long one request may take.
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions {
    /// `--kubeconfig`; else `KUBECONFIG` (a path list, merged), else `~/.kube/config`.
    pub kubeconfig: Option<PathBuf>,
    pub context: Option<String>,
    /// `None` waits forever (kubectl's `--request-timeout=0`).
    pub request_timeout: Option<Duration>,
}

/// Which namespaced objects to read. Nodes and namespaces are cluster-scoped and always read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    All,
    Namespace(String),
    /// What placement needs: every namespace, since pods of all namespaces take node resources
    /// and count for affinity and spread. Kinds that RBAC does not let the user list
    /// cluster-wide are read from this namespace instead (the context's when `None`); kinds it
    /// does not let the user list at all are left out (except nodes and pods, which no answer
    /// goes without); and one note says what the answer may be missing.
    Placement(Option<String>),
}

/// One kind the tool reads, and where the API serves it.
#[derive(Debug, Clone, Copy)]
pub struct Resource {
    pub group: &'static str,
    pub version: &'static str,
    pub kind: &'static str,
    pub plural: &'static str,
    pub namespaced: bool,
    /// Another version of the kind comes after this one, to list when this one is not served
    /// (only the first served version is listed).
    pub fallback: bool,
    /// Every version tried for the kind, when only the first served one is listed.
    pub alternatives: &'static [&'static str],
}

impl Resource {
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.to_string()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }

    /// `/api/v1` or `/apis/<group>/<version>`.
    pub fn group_path(&self) -> String {
        if self.group.is_empty() {
            format!("/api/{}", self.version)
        } else {
            format!("/apis/{}/{}", self.group, self.version)
        }
    }

    fn list_path(&self, scope: &Scope) -> String {
        match scope {
            Scope::Namespace(ns) if self.namespaced => {
                format!("{}/namespaces/{ns}/{}", self.group_path(), self.plural)
            }
            _ => format!("{}/{}", self.group_path(), self.plural),
        }
    }

    /// `pods`, `dataloads.data.fluid.io`: how kubectl names it.
    pub fn display(&self) -> String {
        if self.group.is_empty() {
            self.plural.to_string()
        } else {
            format!("{}.{}", self.plural, self.group)
        }
    }
}

/// Everything placement depends on, in the order it is read: every registered kind a live read
/// lists ([`df_model::kinds`]), one resource per listed version. Secrets are never read.
pub fn resources() -> &'static [Resource] {
    static RESOURCES: std::sync::OnceLock<Vec<Resource>> = std::sync::OnceLock::new();
    RESOURCES.get_or_init(|| {
        df_model::registry::registry()
            .flat_map(|kind| {
                kind.live
                    .iter()
                    .enumerate()
                    .map(move |(i, api_version)| Resource {
                        group: df_model::kinds::group_of(api_version),
                        version: api_version.rsplit('/').next().unwrap_or(api_version),
                        kind: kind.kind,
                        plural: kind.plural,
                        namespaced: kind.namespaced,
                        fallback: kind.live_first_served && i + 1 < kind.live.len(),
                        alternatives: if kind.live_first_served {
                            kind.live
                        } else {
                            &[]
                        },
                    })
            })
            .collect()
    })
}

#[derive(Debug, thiserror::Error)]
pub enum LiveError {
    #[error("cannot load the kubeconfig: {0}")]
    Kubeconfig(String),
    #[error(
        "cannot reach the API server at {server}: {message}; check the kubeconfig's server address and your network"
    )]
    Unreachable { server: String, message: String },
    #[error(
        "the API server at {server} did not answer {what} within {timeout:?}; raise the timeout or check the server"
    )]
    Timeout {
        server: String,
        what: String,
        timeout: Duration,
    },
    #[error(
        "unauthorized ({what}): the API server at {server} rejected the credentials of the current context; refresh them (log in again) or pick another context"
    )]
    Unauthorized { server: String, what: String },
    #[error(
        "forbidden: cannot {what}: {message}; ask for list permission, or record the state elsewhere"
    )]
    Forbidden { what: String, message: String },
    #[error("the API server refused to {what}: {code} {message}")]
    Api {
        what: String,
        code: u16,
        message: String,
    },
    #[error("cannot decode {what}: {message}")]
    Decode { what: String, message: String },
    #[error(
        "rate limited: the API server at {server} answered {what} with 429 Too Many Requests; retry later"
    )]
    RateLimited { server: String, what: String },
    #[error(
        "the API server's answer to {what} is larger than {} MiB; not read further", MAX_RESPONSE_BYTES / 1024 / 1024
    )]
    TooLarge { what: String },
    #[error(
        "the API server repeated the continue token of {what} after {pages} pages; the list would never end"
    )]
    RepeatedContinue { what: String, pages: usize },
    #[error(
        "TLS with the API server at {server} failed: {message}; check the CA (certificate-authority or certificate-authority-data of the kubeconfig's cluster) and that the server address is the HTTPS one"
    )]
    Tls { server: String, message: String },
}

/// An API client bound to one server, with the per-request timeout applied to every call.
pub(crate) struct Session {
    client: Client,
    /// Shown in messages, its userinfo redacted.
    server: String,
    redactor: Redactor,
    timeout: Option<Duration>,
    /// The context's namespace, for commands that default to it.
    pub default_namespace: String,
}

impl Session {
    /// Every message built here goes through the kubeconfig's [`Redactor`]: parser errors
    /// quote the file, HTTP errors the server URL, exec plugins their output.
    pub async fn connect(options: &ConnectOptions) -> Result<Session, LiveError> {
        let redactor = Redactor::for_kubeconfig(options.kubeconfig.as_deref());
        // The parser's first line says what and where; the snippet under it quotes the file.
        let first_line = |chain: &str| redactor.redact(chain.lines().next().unwrap_or_default());
        let kubeconfig = read_kubeconfig(options).map_err(|e| match e {
            LiveError::Kubeconfig(chain) => LiveError::Kubeconfig(first_line(&chain)),
            other => other,
        })?;
        let kube_options = KubeConfigOptions {
            context: options.context.clone(),
            ..Default::default()
        };
        let mut config = Config::from_custom_kubeconfig(kubeconfig, &kube_options)
            .await
            .map_err(|e| LiveError::Kubeconfig(first_line(&error_chain(&e))))?;
        // kube retries 429/503/504 for up to 15 attempts with growing delays, which outlasts
        // --request-timeout and turns "rate limited" into "did not answer": report the cause.
        config.default_retry = false;
        if let Some(timeout) = options.request_timeout {
            config.read_timeout = Some(timeout);
            config.connect_timeout = Some(timeout);
        }
        let server = redactor.redact(config.cluster_url.to_string().trim_end_matches('/'));
        let default_namespace = config.default_namespace.clone();
        let client = Client::try_from(config).map_err(|e| LiveError::Unreachable {
            server: server.clone(),
            message: redactor.redact(&error_chain(&e)),
        })?;
        Ok(Session {
            client,
            server,
            redactor,
            timeout: options.request_timeout,
            default_namespace,
        })
    }

    /// Send one request; `what` names it in errors ("list pods in all namespaces").
    pub async fn send(
        &self,
        request: http::Request<Vec<u8>>,
        what: &str,
    ) -> Result<String, RequestError> {
        let call = read_bounded(&self.client, request);
        let result = match self.timeout {
            Some(timeout) => match tokio::time::timeout(timeout, call).await {
                Ok(result) => result,
                Err(_) => {
                    return Err(RequestError::Failed(LiveError::Timeout {
                        server: self.server.clone(),
                        what: what.to_string(),
                        timeout,
                    }));
                }
            },
            None => call.await,
        };
        let bytes = result.map_err(|e| self.classify(e, what))?;
        if bytes.len() > MAX_RESPONSE_BYTES {
            return Err(RequestError::Failed(LiveError::TooLarge {
                what: what.to_string(),
            }));
        }
        String::from_utf8(bytes).map_err(|_| {
            RequestError::Failed(LiveError::Decode {
                what: what.to_string(),
                message: "the answer is not UTF-8 text".into(),
            })
        })
    }

    pub async fn get(&self, path: &str, what: &str) -> Result<String, RequestError> {
        let request = http::Request::get(path)
            .header("Accept", "application/json")
            .body(Vec::new())
            .map_err(|e| RequestError::Failed(self.api_error(what, 0, e.to_string())))?;
        self.send(request, what).await
    }

    fn api_error(&self, what: &str, code: u16, message: String) -> LiveError {
        LiveError::Api {
            what: what.to_string(),
            code,
            message,
        }
    }

    fn classify(&self, error: kube::Error, what: &str) -> RequestError {
        let kube::Error::Api(status) = error else {
            let message = self.redactor.redact(&error_chain(&error));
            if message.contains("timed out") || message.contains("deadline") {
                return RequestError::Failed(LiveError::Timeout {
                    server: self.server.clone(),
                    what: what.to_string(),
                    timeout: self.timeout.unwrap_or_default(),
                });
            }
            if is_tls_failure(&message) {
                return RequestError::Failed(LiveError::Tls {
                    server: self.server.clone(),
                    message,
                });
            }
            return RequestError::Failed(LiveError::Unreachable {
                server: self.server.clone(),
                message,
            });
        };
        let message = self.redactor.redact(status.message.trim());
        RequestError::from_status(status.code, message, what, &self.server)
    }
}

/// Send a request and read at most [`MAX_RESPONSE_BYTES`] + 1 bytes of the answer (the caller
/// refuses longer ones); an error status becomes kube's `Error::Api` as kube's own readers do.
async fn read_bounded(
    client: &Client,
    request: http::Request<Vec<u8>>,
) -> Result<Vec<u8>, kube::Error> {
    let response = client.send(request.map(kube::client::Body::from)).await?;
    let status = response.status();
    let mut body = response.into_body();
    let mut bytes = Vec::new();
    while bytes.len() <= MAX_RESPONSE_BYTES {
        let Some(frame) = body.frame().await else {
            break;
        };
        if let Ok(data) = frame?.into_data() {
            bytes.extend_from_slice(&data);
        }
    }
    if status.is_client_error() || status.is_server_error() {
        let text = String::from_utf8_lossy(&bytes);
        let status = serde_json::from_str::<kube::core::Status>(&text).unwrap_or_else(|_| {
            kube::core::Status::failure(text.trim(), "the answer is not a Status")
                .with_code(status.as_u16())
        });
        return Err(kube::Error::Api(status.boxed()));
    }
    Ok(bytes)
}

/// A request failure: `NotFound` is kept apart because a missing CRD is not an error here.
#[derive(Debug)]
pub(crate) enum RequestError {
    NotFound,
    Failed(LiveError),
}

impl RequestError {
    fn from_status(code: u16, message: String, what: &str, server: &str) -> RequestError {
        RequestError::Failed(match code {
            404 => return RequestError::NotFound,
            401 => LiveError::Unauthorized {
                server: server.to_string(),
                what: what.to_string(),
            },
            403 => LiveError::Forbidden {
                what: what.to_string(),
                message,
            },
            429 => LiveError::RateLimited {
                server: server.to_string(),
                what: what.to_string(),
            },
            _ => LiveError::Api {
                what: what.to_string(),
                code,
                message,
            },
        })
    }

    pub(crate) fn into_live(self, what: &str) -> LiveError {
        match self {
            RequestError::NotFound => LiveError::Api {
                what: what.to_string(),
                code: 404,
                message: "not found".into(),
            },
            RequestError::Failed(e) => e,
        }
    }
}

/// Whether a transport failure happened in TLS (rustls and hyper-rustls name it so): the
/// usual cause is a CA that did not sign the server's certificate.
fn is_tls_failure(message: &str) -> bool {
    [
        "invalid peer certificate",
        "certificate",
        "tls",
        "TLS",
        "handshake",
    ]
    .iter()
    .any(|needle| message.contains(needle))
}

/// The whole error chain on one line (kube's top-level messages hide the cause).
fn error_chain(error: &dyn std::error::Error) -> String {
    let mut message = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(": ");
            message.push_str(&text);
        }
        source = cause.source();
    }
    message
}

#[derive(Deserialize)]
struct Page<'a> {
    #[serde(default)]
    metadata: PageMeta,
    #[serde(borrow, default)]
    items: Option<Vec<&'a RawValue>>,
}

#[derive(Deserialize, Default)]
struct PageMeta {
    #[serde(default, rename = "continue")]
    continue_token: Option<String>,
}

#[derive(Deserialize)]
struct ApiResourceList {
    #[serde(default)]
    resources: Vec<ApiResource>,
}

#[derive(Deserialize)]
struct ApiResource {
    name: String,
}

/// Reports what the read skipped (CRDs not installed) and shows progress on a terminal.
pub trait Progress {
    fn note(&mut self, message: &str);
    fn read(&mut self, resource: &Resource, total: usize);
    fn done(&mut self);
}

/// Read every object placement depends on, decoded through the model, and what RBAC kept
/// from being read.
async fn read_objects(
    session: &Session,
    scope: &Scope,
    progress: &mut dyn Progress,
) -> Result<(Vec<Object>, Unread), LiveError> {
    let mut objects = Vec::new();
    let mut installed: Vec<(String, Option<Vec<String>>)> = Vec::new();
    let mut unread = Unread::default();
    let fallback = match scope {
        Scope::Placement(namespace) => Some(
            namespace
                .clone()
                .unwrap_or_else(|| session.default_namespace.clone()),
        ),
        Scope::All | Scope::Namespace(_) => None,
    };
    // Kinds listed in one served version of several: (group, kind) once one was found.
    let mut served: Vec<(&str, &str)> = Vec::new();
    for resource in resources() {
        if served.contains(&(resource.group, resource.kind)) {
            continue;
        }
        if !resource.group.is_empty() {
            let group_path = resource.group_path();
            let known = match installed.iter().find(|(path, _)| *path == group_path) {
                Some((_, known)) => known.clone(),
                None => {
                    let known = discover(session, &group_path).await?;
                    installed.push((group_path, known.clone()));
                    known
                }
            };
            if !known.is_some_and(|plurals| plurals.iter().any(|p| p == resource.plural)) {
                if resource.fallback {
                    continue;
                }
                let versions = if resource.alternatives.is_empty() {
                    resource.api_version()
                } else {
                    resource.alternatives.join(", ")
                };
                progress.note(&format!(
                    "{} ({versions}) is not installed in the cluster; skipping {} objects",
                    resource.display(),
                    resource.kind
                ));
                continue;
            }
        }
        served.push((resource.group, resource.kind));
        let mut result = list(session, resource, scope, &mut objects, progress).await;
        if let (true, Some(namespace)) = (is_forbidden(&result), &fallback)
            && resource.namespaced
        {
            let narrow = Scope::Namespace(namespace.clone());
            result = list(session, resource, &narrow, &mut objects, progress).await;
            if result.is_ok() {
                unread.narrowed(resource);
            }
        }
        match result {
            Ok(()) => {}
            Err(RequestError::NotFound) if !resource.group.is_empty() => progress.note(&format!(
                "{} ({}) is not served by the cluster; skipping {} objects",
                resource.display(),
                resource.api_version(),
                resource.kind
            )),
            // Placement goes on without what RBAC hides, and says what that leaves out.
            Err(_) if is_forbidden(&result) && fallback.is_some() && unread.skipped(resource) => {}
            Err(e) => {
                progress.done();
                return Err(e.into_live(&list_what(resource, scope)));
            }
        }
    }
    read_volcano_config(session, &mut objects, &mut unread).await?;
    progress.done();
    if let Some(note) = unread.note(fallback.as_deref().unwrap_or_default()) {
        progress.note(&note);
    }
    Ok((objects, unread))
}

fn is_forbidden(result: &Result<(), RequestError>) -> bool {
    matches!(
        result,
        Err(RequestError::Failed(LiveError::Forbidden { .. }))
    )
}

/// Volcano's scheduler configuration, the one ConfigMap read (it says whether HyperNodes
/// count): absent or not readable, the plan says it assumed the defaults.
async fn read_volcano_config(
    session: &Session,
    objects: &mut Vec<Object>,
    unread: &mut Unread,
) -> Result<(), LiveError> {
    use df_model::hypernode::{CONFIG_NAME, CONFIG_NAMESPACE};
    let path = format!("/api/v1/namespaces/{CONFIG_NAMESPACE}/configmaps/{CONFIG_NAME}");
    let what = format!("get configmap {CONFIG_NAMESPACE}/{CONFIG_NAME}");
    let text = match session.get(&path, &what).await {
        Ok(text) => text,
        Err(RequestError::NotFound) => return Ok(()),
        Err(RequestError::Failed(LiveError::Forbidden { .. })) => {
            unread.other(format!(
                "not allowed to {what}; Volcano's plugins are assumed on"
            ));
            return Ok(());
        }
        Err(e) => return Err(e.into_live(&what)),
    };
    let type_meta = TypeMeta {
        api_version: "v1".into(),
        kind: "ConfigMap".into(),
    };
    let mut de = serde_json::Deserializer::from_str(&text);
    let object = Object::decode(type_meta, &mut de).map_err(|e| LiveError::Decode {
        what,
        message: format!("{}: {}", e.path, e.message),
    })?;
    objects.push(object);
    Ok(())
}

/// The resource names a group version serves; `None` when the group is not installed.
async fn discover(session: &Session, group_path: &str) -> Result<Option<Vec<String>>, LiveError> {
    let what = format!("discover {group_path}");
    match session.get(group_path, &what).await {
        Ok(text) => {
            let list: ApiResourceList =
                serde_json::from_str(&text).map_err(|e| LiveError::Decode {
                    what: what.clone(),
                    message: e.to_string(),
                })?;
            Ok(Some(list.resources.into_iter().map(|r| r.name).collect()))
        }
        Err(RequestError::NotFound) => Ok(None),
        // Authorization comes before lookup, so a group that does not exist is forbidden too
        // for a user without discovery rights: the group list says whether it exists at all.
        Err(RequestError::Failed(LiveError::Forbidden { .. }))
            if !group_listed(session, group_path).await =>
        {
            Ok(None)
        }
        Err(e) => Err(e.into_live(&what)),
    }
}

#[derive(Deserialize)]
struct ApiGroupList {
    #[serde(default)]
    groups: Vec<ApiGroup>,
}

#[derive(Deserialize)]
struct ApiGroup {
    #[serde(default)]
    versions: Vec<GroupVersion>,
}

#[derive(Deserialize)]
struct GroupVersion {
    #[serde(rename = "groupVersion")]
    group_version: String,
}

/// Whether `/apis` lists the group version of `group_path` (`/apis/<group>/<version>`); true
/// when the list itself cannot be read, so that the original error stands.
pub(crate) async fn group_listed(session: &Session, group_path: &str) -> bool {
    let Ok(text) = session.get("/apis", "discover /apis").await else {
        return true;
    };
    let Ok(list) = serde_json::from_str::<ApiGroupList>(&text) else {
        return true;
    };
    let wanted = group_path.trim_start_matches("/apis/");
    list.groups
        .iter()
        .flat_map(|g| &g.versions)
        .any(|v| v.group_version == wanted)
}

fn list_what(resource: &Resource, scope: &Scope) -> String {
    match scope {
        Scope::Namespace(ns) if resource.namespaced => {
            format!("list {} in namespace {ns:?}", resource.display())
        }
        _ if resource.namespaced => format!("list {} in all namespaces", resource.display()),
        _ => format!("list {}", resource.display()),
    }
}

/// Page through one resource; each page is decoded and dropped before the next is fetched.
async fn list(
    session: &Session,
    resource: &Resource,
    scope: &Scope,
    objects: &mut Vec<Object>,
    progress: &mut dyn Progress,
) -> Result<(), RequestError> {
    let what = list_what(resource, scope);
    let type_meta = TypeMeta {
        api_version: resource.api_version(),
        kind: resource.kind.to_string(),
    };
    let base = resource.list_path(scope);
    let mut continue_token: Option<String> = None;
    let mut seen_tokens = std::collections::HashSet::new();
    let mut total = 0;
    loop {
        let mut path = format!("{base}?limit={PAGE_SIZE}");
        if let Some(token) = &continue_token {
            path.push_str("&continue=");
            path.push_str(&percent_encode(token));
        }
        let text = session.get(&path, &what).await?;
        let decode_error = |message: String| {
            RequestError::Failed(LiveError::Decode {
                what: what.clone(),
                message,
            })
        };
        let page: Page<'_> =
            serde_json::from_str(&text).map_err(|e| decode_error(e.to_string()))?;
        let items = page.items.unwrap_or_default();
        for (index, item) in items.iter().enumerate() {
            let mut de = serde_json::Deserializer::from_str(item.get());
            let mut object = Object::decode(type_meta.clone(), &mut de).map_err(|e| {
                decode_error(format!(
                    "items[{}].{}: {}",
                    total + index,
                    e.path,
                    e.message
                ))
            })?;
            if object.is_namespaced() && object.metadata().namespace.is_empty() {
                object.metadata_mut().namespace = "default".into();
            }
            objects.push(object);
        }
        total += items.len();
        progress.read(resource, total);
        match page.metadata.continue_token {
            Some(token) if !token.is_empty() => {
                if !seen_tokens.insert(token.clone()) {
                    return Err(RequestError::Failed(LiveError::RepeatedContinue {
                        what,
                        pages: seen_tokens.len() + 1,
                    }));
                }
                continue_token = Some(token);
            }
            _ => return Ok(()),
        }
    }
}

/// Continue tokens are base64 (`+`, `/`, `=`), which must not reach the query string raw.
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'_' | b'.' | b'~') {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// The kubeconfig as kubectl reads it: `--kubeconfig`; else every file of the `KUBECONFIG`
/// path list that exists, merged (the first file to set a value wins; missing files are
/// skipped, as kubectl does); else `~/.kube/config`.
fn read_kubeconfig(options: &ConnectOptions) -> Result<Kubeconfig, LiveError> {
    let error = |e: kube::config::KubeconfigError| LiveError::Kubeconfig(error_chain(&e));
    if let Some(path) = &options.kubeconfig {
        return Kubeconfig::read_from(path).map_err(error);
    }
    let listed: Vec<PathBuf> = std::env::var_os("KUBECONFIG")
        .map(|value| {
            std::env::split_paths(&value)
                .filter(|p| !p.as_os_str().is_empty())
                .collect()
        })
        .unwrap_or_default();
    if listed.is_empty() {
        return Kubeconfig::read().map_err(error);
    }
    let existing: Vec<&PathBuf> = listed.iter().filter(|p| p.exists()).collect();
    if existing.is_empty() {
        let names: Vec<String> = listed.iter().map(|p| p.display().to_string()).collect();
        return Err(LiveError::Kubeconfig(format!(
            "none of the KUBECONFIG files exist: {}",
            names.join(", ")
        )));
    }
    existing
        .into_iter()
        .try_fold(Kubeconfig::default(), |merged, path| {
            Kubeconfig::read_from(path).and_then(|next| merged.merge(next))
        })
        .map_err(error)
}

/// The namespace of the kubeconfig context (`--context` or the current one), read without
/// contacting the cluster; `None` when the context sets none or there is no kubeconfig.
pub fn context_namespace(options: &ConnectOptions) -> Option<String> {
    let kubeconfig = read_kubeconfig(options).ok()?;
    let name = options
        .context
        .clone()
        .or_else(|| kubeconfig.current_context.clone())?;
    kubeconfig
        .contexts
        .into_iter()
        .find(|c| c.name == name)?
        .context?
        .namespace
        .filter(|ns| !ns.is_empty())
}

/// Read the live cluster into a `ClusterState`, blocking: the CLI is synchronous and this is
/// the only place it needs an async runtime.
pub fn load(
    options: &ConnectOptions,
    scope: &Scope,
    progress: &mut dyn Progress,
) -> Result<ClusterState, LiveError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| LiveError::Unreachable {
            server: String::new(),
            message: format!("cannot start the I/O runtime: {e}"),
        })?;
    let (objects, unread, server_version) = runtime.block_on(async {
        let session = Session::connect(options).await?;
        let (objects, unread) = read_objects(&session, scope, progress).await?;
        Ok::<_, LiveError>((objects, unread, server_version(&session).await))
    })?;
    let mut state = ClusterState::from_objects(objects);
    state.priority_classes_unread = unread.skipped_kind("PriorityClass");
    state.server_version = server_version;
    Ok(state)
}

/// The API server's `gitVersion` (`v1.34.2`), from `/version`; `None` when it does not say
/// (the answer then simulates the default release, and says so).
async fn server_version(session: &Session) -> Option<String> {
    #[derive(Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Info {
        git_version: String,
    }
    let text = session
        .get("/version", "get the server version")
        .await
        .ok()?;
    serde_json::from_str::<Info>(&text)
        .ok()
        .map(|info| info.git_version)
}

/// The longest timeout accepted (8784h, a leap year): anything longer is surely a typo, and
/// the bound keeps duration and deadline arithmetic from overflowing.
pub(crate) const MAX_TIMEOUT: Duration = Duration::from_secs(366 * 24 * 3600);

/// Parse kubectl's `--request-timeout`: a bare number of seconds or a Go duration (`1m30s`,
/// `500ms`); zero means no timeout. The error names the value; the caller names its flag.
pub fn parse_timeout(text: &str) -> Result<Option<Duration>, String> {
    let invalid = || format!("{text:?}: expected a duration such as 30s, 1m or 500ms");
    let text = text.trim();
    let mut seconds = 0f64;
    if let Ok(whole) = text.parse::<u64>() {
        seconds = whole as f64;
    } else {
        let mut rest = text;
        if rest.is_empty() {
            return Err(invalid());
        }
        while !rest.is_empty() {
            let digits = rest
                .find(|c: char| !(c.is_ascii_digit() || c == '.'))
                .ok_or_else(invalid)?;
            let number: f64 = rest[..digits].parse().map_err(|_| invalid())?;
            rest = &rest[digits..];
            let unit_len = rest
                .find(|c: char| c.is_ascii_digit() || c == '.')
                .unwrap_or(rest.len());
            let seconds_per_unit = match &rest[..unit_len] {
                "h" => 3600.0,
                "m" => 60.0,
                "s" => 1.0,
                "ms" => 1e-3,
                "us" | "µs" => 1e-6,
                "ns" => 1e-9,
                _ => return Err(invalid()),
            };
            rest = &rest[unit_len..];
            seconds += number * seconds_per_unit;
        }
    }
    if seconds > MAX_TIMEOUT.as_secs_f64() {
        return Err(format!(
            "{text:?}: longer than the maximum of {}h",
            MAX_TIMEOUT.as_secs() / 3600
        ));
    }
    let total = Duration::from_secs_f64(seconds);
    Ok((!total.is_zero()).then_some(total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_request_timeouts_like_kubectl() {
        let cases = [
            ("30s", Ok(Some(Duration::from_secs(30)))),
            ("5", Ok(Some(Duration::from_secs(5)))),
            ("1m30s", Ok(Some(Duration::from_secs(90)))),
            ("500ms", Ok(Some(Duration::from_millis(500)))),
            ("0", Ok(None)),
            ("0s", Ok(None)),
            (
                "soon",
                Err("\"soon\": expected a duration such as 30s, 1m or 500ms"),
            ),
            (
                "10x",
                Err("\"10x\": expected a duration such as 30s, 1m or 500ms"),
            ),
            ("8784h", Ok(Some(MAX_TIMEOUT))),
            (
                "8784h1s",
                Err("\"8784h1s\": longer than the maximum of 8784h"),
            ),
            (
                "18446744073709551615",
                Err("\"18446744073709551615\": longer than the maximum of 8784h"),
            ),
            (
                "99999999999999999999999999h",
                Err("\"99999999999999999999999999h\": longer than the maximum of 8784h"),
            ),
            (
                "1.5.5s",
                Err("\"1.5.5s\": expected a duration such as 30s, 1m or 500ms"),
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(
                parse_timeout(text),
                expected.map_err(String::from),
                "{text}"
            );
        }
    }

    #[test]
    fn list_paths_follow_the_scope() {
        let all = Scope::All;
        let team = Scope::Namespace("team".into());
        let resource = |kind: &str| resources().iter().find(|r| r.kind == kind).unwrap();
        let cases = [
            (resource("Node"), &team, "/api/v1/nodes", "list nodes"),
            (
                resource("Pod"),
                &all,
                "/api/v1/pods",
                "list pods in all namespaces",
            ),
            (
                resource("Pod"),
                &team,
                "/api/v1/namespaces/team/pods",
                "list pods in namespace \"team\"",
            ),
            (
                resource("PriorityClass"),
                &team,
                "/apis/scheduling.k8s.io/v1/priorityclasses",
                "list priorityclasses.scheduling.k8s.io",
            ),
            (
                resource("PodDisruptionBudget"),
                &team,
                "/apis/policy/v1/namespaces/team/poddisruptionbudgets",
                "list poddisruptionbudgets.policy in namespace \"team\"",
            ),
            (
                resource("ResourceQuota"),
                &team,
                "/api/v1/namespaces/team/resourcequotas",
                "list resourcequotas in namespace \"team\"",
            ),
            (
                resource("DataLoad"),
                &team,
                "/apis/data.fluid.io/v1alpha1/namespaces/team/dataloads",
                "list dataloads.data.fluid.io in namespace \"team\"",
            ),
        ];
        for (resource, scope, path, what) in cases {
            assert_eq!(resource.list_path(scope), path);
            assert_eq!(list_what(resource, scope), what);
        }
    }

    #[test]
    fn continue_tokens_are_percent_encoded() {
        assert_eq!(percent_encode("eyJ2Ijo+/=="), "eyJ2Ijo%2B%2F%3D%3D");
    }
}
