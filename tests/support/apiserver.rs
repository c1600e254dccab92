//! A small Kubernetes API server for end-to-end tests: plain HTTP/1.1 on 127.0.0.1 with a random
//! port, speaking the REST paths the tool uses (discovery, paged lists with `limit`/`continue`/
//! `resourceVersion`, get, create, server-side apply and JSON patch with `dryRun=All`), with
//! injectable 403s, slow responses and scripted status changes. Each connection gets a thread;
//! the server lives as long as the test process.

use std::collections::{BTreeMap, VecDeque};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Value, json};

/// A resource the server serves: where, and under which kind.
#[derive(Clone)]
pub struct Served {
    pub group_version: &'static str,
    pub plural: &'static str,
    pub kind: &'static str,
    pub namespaced: bool,
}

pub const NODES: Served = core("nodes", "Node", false);
pub const NAMESPACES: Served = core("namespaces", "Namespace", false);
pub const PODS: Served = core("pods", "Pod", true);
pub const RESOURCE_QUOTAS: Served = core("resourcequotas", "ResourceQuota", true);
pub const LIMIT_RANGES: Served = core("limitranges", "LimitRange", true);
pub const DATALOADS: Served = custom("data.fluid.io/v1alpha1", "dataloads", "DataLoad");
pub const DATAPROCESSES: Served = custom("data.fluid.io/v1alpha1", "dataprocesses", "DataProcess");
pub const ALLUXIO_RUNTIMES: Served = custom(
    "data.fluid.io/v1alpha1",
    "alluxioruntimes",
    "AlluxioRuntime",
);
pub const VOLCANO_JOBS: Served = custom("batch.volcano.sh/v1alpha1", "jobs", "Job");
pub const COSCHEDULING_POD_GROUPS: Served =
    custom("scheduling.x-k8s.io/v1alpha1", "podgroups", "PodGroup");
pub const PRIORITY_CLASSES: Served = Served {
    group_version: "scheduling.k8s.io/v1",
    plural: "priorityclasses",
    kind: "PriorityClass",
    namespaced: false,
};
pub const PDBS: Served = custom("policy/v1", "poddisruptionbudgets", "PodDisruptionBudget");
pub const HYPERNODES: Served = Served {
    group_version: "topology.volcano.sh/v1alpha1",
    plural: "hypernodes",
    kind: "HyperNode",
    namespaced: false,
};

pub const PERSISTENT_VOLUMES: Served = core("persistentvolumes", "PersistentVolume", false);
pub const PERSISTENT_VOLUME_CLAIMS: Served =
    core("persistentvolumeclaims", "PersistentVolumeClaim", true);
pub const STORAGE_CLASSES: Served =
    cluster_scoped("storage.k8s.io/v1", "storageclasses", "StorageClass");
pub const CSI_NODES: Served = cluster_scoped("storage.k8s.io/v1", "csinodes", "CSINode");
pub const CSI_DRIVERS: Served = cluster_scoped("storage.k8s.io/v1", "csidrivers", "CSIDriver");
pub const CSI_STORAGE_CAPACITIES: Served = custom(
    "storage.k8s.io/v1",
    "csistoragecapacities",
    "CSIStorageCapacity",
);
pub const VOLUME_ATTACHMENTS: Served =
    cluster_scoped("storage.k8s.io/v1", "volumeattachments", "VolumeAttachment");
/// DRA as a 1.33 cluster serves it with the beta API turned on: `v1beta1` only.
pub const DEVICE_CLASSES_V1BETA1: Served =
    cluster_scoped("resource.k8s.io/v1beta1", "deviceclasses", "DeviceClass");
pub const RESOURCE_SLICES_V1BETA1: Served =
    cluster_scoped("resource.k8s.io/v1beta1", "resourceslices", "ResourceSlice");
pub const RESOURCE_CLAIMS_V1BETA1: Served =
    custom("resource.k8s.io/v1beta1", "resourceclaims", "ResourceClaim");
pub const RESOURCE_CLAIM_TEMPLATES_V1BETA1: Served = custom(
    "resource.k8s.io/v1beta1",
    "resourceclaimtemplates",
    "ResourceClaimTemplate",
);

pub const CONFIG_MAPS: Served = core("configmaps", "ConfigMap", true);
pub const SERVICES: Served = core("services", "Service", true);
pub const REPLICA_SETS: Served = custom("apps/v1", "replicasets", "ReplicaSet");
pub const STATEFUL_SETS: Served = custom("apps/v1", "statefulsets", "StatefulSet");

/// What every API server serves besides what a test names: the built-in kinds a live read
/// lists that no test here is about (empty unless a test adds objects).
const ALWAYS_SERVED: [Served; 10] = [
    SERVICES,
    REPLICA_SETS,
    STATEFUL_SETS,
    PERSISTENT_VOLUMES,
    PERSISTENT_VOLUME_CLAIMS,
    STORAGE_CLASSES,
    CSI_NODES,
    CSI_DRIVERS,
    CSI_STORAGE_CAPACITIES,
    VOLUME_ATTACHMENTS,
];
pub const KUEUE_TOPOLOGIES: Served =
    cluster_scoped("kueue.x-k8s.io/v1beta1", "topologies", "Topology");
pub const RESOURCE_FLAVORS: Served = cluster_scoped(
    "kueue.x-k8s.io/v1beta1",
    "resourceflavors",
    "ResourceFlavor",
);
pub const CLUSTER_QUEUES: Served =
    cluster_scoped("kueue.x-k8s.io/v1beta1", "clusterqueues", "ClusterQueue");
pub const LOCAL_QUEUES: Served = custom("kueue.x-k8s.io/v1beta1", "localqueues", "LocalQueue");
pub const COHORTS: Served = cluster_scoped("kueue.x-k8s.io/v1beta1", "cohorts", "Cohort");
pub const WORKLOAD_PRIORITY_CLASSES: Served = cluster_scoped(
    "kueue.x-k8s.io/v1beta1",
    "workloadpriorityclasses",
    "WorkloadPriorityClass",
);
pub const KUEUE_WORKLOADS: Served = custom("kueue.x-k8s.io/v1beta1", "workloads", "Workload");
pub const WORKLOADS: Served = custom("scheduling.k8s.io/v1alpha2", "workloads", "Workload");
pub const WORKLOAD_POD_GROUPS: Served =
    custom("scheduling.k8s.io/v1alpha2", "podgroups", "PodGroup");

const fn cluster_scoped(
    group_version: &'static str,
    plural: &'static str,
    kind: &'static str,
) -> Served {
    Served {
        group_version,
        plural,
        kind,
        namespaced: false,
    }
}

const fn core(plural: &'static str, kind: &'static str, namespaced: bool) -> Served {
    Served {
        group_version: "v1",
        plural,
        kind,
        namespaced,
    }
}

const fn custom(group_version: &'static str, plural: &'static str, kind: &'static str) -> Served {
    Served {
        group_version,
        plural,
        kind,
        namespaced: true,
    }
}

impl Served {
    fn group_path(&self) -> String {
        if self.group_version == "v1" {
            "/api/v1".into()
        } else {
            format!("/apis/{}", self.group_version)
        }
    }
}

#[derive(Default)]
pub struct Behaviour {
    /// Largest page the server returns, whatever `limit` asks (a legal server choice).
    pub max_page: Option<usize>,
    /// Paths (without query) answered with 403.
    pub forbidden: Vec<String>,
    /// Paths (without query) answered only after this delay.
    pub slow: Vec<(String, Duration)>,
    /// Paths (without query) answered with this status code and a Status body.
    pub failing: Vec<(String, u16)>,
    /// Every list page carries the same `continue` token: a server paging forever.
    pub repeat_continue: bool,
    /// Whitespace put before every list body, to make answers of any size.
    pub list_padding: usize,
    /// `/version`'s `gitVersion`; none: `/version` is not found.
    pub version: Option<&'static str>,
}

struct State {
    served: Vec<Served>,
    /// (served index, namespace, name) -> object JSON, as the API stores it.
    objects: BTreeMap<(usize, String, String), Value>,
    resource_version: u64,
    behaviour: Behaviour,
    log: Vec<String>,
    /// Content type and body of every request with a body, in order.
    bodies: Vec<(String, String, Value)>,
    /// Statuses an object takes on successive GETs, e.g. an operation running to completion.
    scripts: BTreeMap<(usize, String, String), VecDeque<Value>>,
}

#[derive(Clone)]
pub struct ApiServer {
    pub url: String,
    state: Arc<Mutex<State>>,
}

impl ApiServer {
    pub fn start(mut served: Vec<Served>, behaviour: Behaviour) -> ApiServer {
        for always in ALWAYS_SERVED {
            if !served
                .iter()
                .any(|s| s.plural == always.plural && s.group_version == always.group_version)
            {
                served.push(always);
            }
        }
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let url = format!("http://{}", listener.local_addr().unwrap());
        let state = Arc::new(Mutex::new(State {
            served,
            objects: BTreeMap::new(),
            resource_version: 100,
            behaviour,
            log: Vec::new(),
            bodies: Vec::new(),
            scripts: BTreeMap::new(),
        }));
        let shared = Arc::clone(&state);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let state = Arc::clone(&shared);
                std::thread::spawn(move || serve_connection(stream, &state));
            }
        });
        ApiServer { url, state }
    }

    /// Store an object (as JSON without apiVersion/kind, like list items) under `served`.
    pub fn add(&self, served: &Served, object: Value) {
        let mut state = self.state.lock().unwrap();
        let index = state.index(served);
        let namespace = object["metadata"]["namespace"]
            .as_str()
            .unwrap_or("")
            .to_string();
        let name = object["metadata"]["name"].as_str().unwrap().to_string();
        state.resource_version += 1;
        state.objects.insert((index, namespace, name), object);
    }

    /// The stored object, as a GET returns it.
    pub fn get(&self, served: &Served, namespace: &str, name: &str) -> Option<Value> {
        let state = self.state.lock().unwrap();
        let key = (state.index(served), namespace.to_string(), name.to_string());
        state.objects.get(&key).map(|o| with_type(served, o))
    }

    /// Each later GET of this object (once it exists) sets its `status` to the next of
    /// `statuses`; the last one stays.
    pub fn script_status(
        &self,
        served: &Served,
        namespace: &str,
        name: &str,
        statuses: Vec<Value>,
    ) {
        let mut state = self.state.lock().unwrap();
        let key = (state.index(served), namespace.to_string(), name.to_string());
        state.scripts.insert(key, statuses.into());
    }

    /// `(request line, content type, body)` of every request that carried a body.
    pub fn bodies(&self) -> Vec<(String, String, Value)> {
        self.state.lock().unwrap().bodies.clone()
    }

    /// Request lines (`GET /api/v1/pods?limit=500`) in the order received.
    pub fn log(&self) -> Vec<String> {
        self.state.lock().unwrap().log.clone()
    }

    /// A kubeconfig with one context `test` (current) pointing at this server.
    pub fn kubeconfig(&self, dir: &Path, file: &str) -> PathBuf {
        let path = dir.join(file);
        std::fs::write(&path, kubeconfig_text(&[("test", &self.url)], "test")).unwrap();
        path
    }
}

/// A kubeconfig with one context (and cluster and user) per entry.
pub fn kubeconfig_text(contexts: &[(&str, &str)], current: &str) -> String {
    let mut text = String::from("apiVersion: v1\nkind: Config\nclusters:\n");
    for (name, url) in contexts {
        text.push_str(&format!("- name: {name}\n  cluster:\n    server: {url}\n"));
    }
    text.push_str("users:\n");
    for (name, _) in contexts {
        text.push_str(&format!(
            "- name: {name}\n  user:\n    token: secret-{name}\n"
        ));
    }
    text.push_str("contexts:\n");
    for (name, _) in contexts {
        text.push_str(&format!(
            "- name: {name}\n  context:\n    cluster: {name}\n    user: {name}\n"
        ));
    }
    text.push_str(&format!("current-context: {current}\n"));
    text
}

impl State {
    fn index(&self, served: &Served) -> usize {
        self.served
            .iter()
            .position(|s| s.plural == served.plural && s.group_version == served.group_version)
            .expect("resource is served")
    }
}

#[derive(Clone)]
struct Request {
    method: String,
    path: String,
    query: BTreeMap<String, String>,
    content_type: String,
    body: Vec<u8>,
}

fn serve_connection(stream: TcpStream, state: &Mutex<State>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    while let Some(request) = read_request(&mut reader) {
        let (code, body) = respond(&request, state);
        let reason = match code {
            200 => "OK",
            201 => "Created",
            400 => "Bad Request",
            403 => "Forbidden",
            404 => "Not Found",
            405 => "Method Not Allowed",
            409 => "Conflict",
            410 => "Gone",
            422 => "Unprocessable Entity",
            429 => "Too Many Requests",
            _ => "Error",
        };
        let head = format!(
            "HTTP/1.1 {code} {reason}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
            body.len()
        );
        if writer.write_all(head.as_bytes()).is_err() || writer.write_all(body.as_bytes()).is_err()
        {
            return;
        }
    }
}

fn read_request(reader: &mut BufReader<TcpStream>) -> Option<Request> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next()?.to_string();
    let target = parts.next()?.to_string();
    let mut content_length = 0;
    let mut content_type = String::new();
    loop {
        let mut header = String::new();
        reader.read_line(&mut header).ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                content_length = value.trim().parse().ok()?;
            } else if name.eq_ignore_ascii_case("content-type") {
                content_type = value.trim().to_string();
            }
        }
    }
    let mut body = vec![0; content_length];
    reader.read_exact(&mut body).ok()?;
    let (path, query) = target.split_once('?').unwrap_or((&target, ""));
    let query = query
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (k.to_string(), percent_decode(v)))
        .collect();
    Some(Request {
        method,
        path: path.to_string(),
        query,
        content_type,
        body,
    })
}

fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(byte) = u8::from_str_radix(&text[i + 1..i + 3], 16)
        {
            out.push(byte);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap()
}

fn status(code: u16, reason: &str, message: &str) -> (u16, String) {
    let body = json!({"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                      "message": message, "reason": reason, "code": code});
    (code, body.to_string())
}

fn respond(request: &Request, state: &Mutex<State>) -> (u16, String) {
    let delay = {
        let mut state = state.lock().unwrap();
        let query: Vec<String> = request
            .query
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let line = if query.is_empty() {
            format!("{} {}", request.method, request.path)
        } else {
            format!("{} {}?{}", request.method, request.path, query.join("&"))
        };
        if !request.body.is_empty() {
            let body = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
            state
                .bodies
                .push((line.clone(), request.content_type.clone(), body));
        }
        state.log.push(line);
        state
            .behaviour
            .slow
            .iter()
            .find(|(path, _)| *path == request.path)
            .map(|(_, delay)| *delay)
    };
    if let Some(delay) = delay {
        std::thread::sleep(delay);
    }
    let mut state = state.lock().unwrap();
    if state.behaviour.forbidden.contains(&request.path) {
        return status(
            403,
            "Forbidden",
            &format!(
                "{} is forbidden: User \"alice\" cannot {} resource at the cluster scope",
                request.path,
                match request.method.as_str() {
                    "GET" => "list".to_string(),
                    other => other.to_ascii_lowercase(),
                }
            ),
        );
    }
    if let Some((_, code)) = state
        .behaviour
        .failing
        .iter()
        .find(|(path, _)| *path == request.path)
    {
        return status(
            *code,
            "Failure",
            &format!("scripted {code} for {}", request.path),
        );
    }
    match request.method.as_str() {
        "GET" => {
            advance_script(request, &mut state);
            // A repeated token reads the first page again.
            let mut request = request.clone();
            if state.behaviour.repeat_continue {
                request.query.remove("continue");
            }
            let (code, body) = route(&request, &state);
            if code != 200 || !body.contains("\"items\"") {
                return (code, body);
            }
            let mut body = body;
            if state.behaviour.repeat_continue {
                let mut page: Value = serde_json::from_str(&body).unwrap();
                page["metadata"]["continue"] = json!("again");
                body = page.to_string();
            }
            (code, " ".repeat(state.behaviour.list_padding) + &body)
        }
        "POST" => create(request, &mut state),
        "PATCH" => patch(request, &mut state),
        _ => status(
            405,
            "MethodNotAllowed",
            "only GET, POST and PATCH are served",
        ),
    }
}

/// The served resource, namespace and (for one object) name a path addresses.
fn address(state: &State, path: &str) -> Option<(usize, Option<String>, Option<String>)> {
    for (index, served) in state.served.iter().enumerate() {
        let Some(rest) = path.strip_prefix(&served.group_path()) else {
            continue;
        };
        let segments: Vec<&str> = rest.trim_start_matches('/').split('/').collect();
        let (namespace, tail) = match segments.as_slice() {
            ["namespaces", ns, tail @ ..] if served.namespaced && !tail.is_empty() => {
                (Some(ns.to_string()), tail)
            }
            tail => (None, tail),
        };
        match tail {
            [plural] if *plural == served.plural => return Some((index, namespace, None)),
            [plural, name] if *plural == served.plural => {
                return Some((index, namespace, Some(name.to_string())));
            }
            _ => {}
        }
    }
    None
}

fn advance_script(request: &Request, state: &mut State) {
    let Some((index, namespace, Some(name))) = address(state, &request.path) else {
        return;
    };
    let key = (index, namespace.unwrap_or_default(), name);
    if !state.objects.contains_key(&key) {
        return;
    }
    let next = state.scripts.get_mut(&key).and_then(|script| {
        if script.len() > 1 {
            script.pop_front()
        } else {
            script.front().cloned()
        }
    });
    if let Some(next) = next {
        state.objects.get_mut(&key).unwrap()["status"] = next;
    }
}

fn dry_run(request: &Request) -> bool {
    request.query.get("dryRun").is_some_and(|v| v == "All")
}

/// POST to a collection: 409 when the name is taken; `dryRun=All` validates only.
fn create(request: &Request, state: &mut State) -> (u16, String) {
    let Some((index, Some(namespace), None)) = address(state, &request.path) else {
        return status(
            405,
            "MethodNotAllowed",
            "POST needs a namespaced collection",
        );
    };
    let Ok(mut object) = serde_json::from_slice::<Value>(&request.body) else {
        return status(400, "BadRequest", "the body is not JSON");
    };
    let served = state.served[index].clone();
    let Some(name) = object["metadata"]["name"].as_str().map(String::from) else {
        return status(422, "Invalid", "metadata.name: Required value");
    };
    let key = (index, namespace.clone(), name.clone());
    if state.objects.contains_key(&key) {
        return status(
            409,
            "AlreadyExists",
            &format!("{} \"{name}\" already exists", served.plural),
        );
    }
    object["metadata"]["namespace"] = json!(namespace);
    if !dry_run(request) {
        state.resource_version += 1;
        state.objects.insert(key, object.clone());
    }
    (201, with_type(&served, &object).to_string())
}

/// PATCH of one object: server-side apply (the body merged into the stored object; real
/// apply also tracks field ownership) or a JSON patch of test/add/replace/remove.
fn patch(request: &Request, state: &mut State) -> (u16, String) {
    let Some((index, namespace, Some(name))) = address(state, &request.path) else {
        return status(405, "MethodNotAllowed", "PATCH needs an object path");
    };
    let served = state.served[index].clone();
    let key = (index, namespace.unwrap_or_default(), name.clone());
    let Some(stored) = state.objects.get(&key) else {
        return status(
            404,
            "NotFound",
            &format!("{} \"{name}\" not found", served.plural),
        );
    };
    let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
        return status(400, "BadRequest", "the body is not JSON");
    };
    let mut object = stored.clone();
    match request.content_type.as_str() {
        "application/apply-patch+yaml" => {
            if !request.query.contains_key("fieldManager") {
                return status(
                    400,
                    "BadRequest",
                    "PATCH, application/apply-patch+yaml requires fieldManager",
                );
            }
            merge(&mut object, &body);
            if let Some(meta) = object.as_object_mut() {
                meta.remove("apiVersion");
                meta.remove("kind");
            }
        }
        "application/json-patch+json" => {
            if let Err(message) = json_patch(&mut object, &body) {
                return status(422, "Invalid", &message);
            }
        }
        other => {
            return status(
                415,
                "UnsupportedMediaType",
                &format!("the body of type {other:?} is not supported"),
            );
        }
    }
    if !dry_run(request) {
        state.resource_version += 1;
        state.objects.insert(key, object.clone());
    }
    (200, with_type(&served, &object).to_string())
}

/// JSON merge (RFC 7386): maps merge key by key, null removes, anything else replaces.
fn merge(target: &mut Value, patch: &Value) {
    match (target.as_object_mut(), patch.as_object()) {
        (Some(target), Some(patch)) => {
            for (key, value) in patch {
                if value.is_null() {
                    target.remove(key);
                } else {
                    merge(target.entry(key.clone()).or_insert(Value::Null), value);
                }
            }
        }
        _ => *target = patch.clone(),
    }
}

fn json_patch(object: &mut Value, operations: &Value) -> Result<(), String> {
    for operation in operations.as_array().ok_or("a JSON patch is an array")? {
        let path = operation["path"].as_str().ok_or("op without path")?;
        let (parent, last) = path.rsplit_once('/').ok_or("bad path")?;
        match operation["op"].as_str() {
            Some("test") => {
                if object.pointer(path) != Some(&operation["value"]) {
                    return Err(format!("the test of {path} failed"));
                }
            }
            Some("remove") => match object.pointer_mut(parent) {
                Some(Value::Array(items)) => {
                    let i: usize = last.parse().map_err(|_| "bad index")?;
                    if i >= items.len() {
                        return Err(format!("{path} does not exist"));
                    }
                    items.remove(i);
                }
                Some(Value::Object(map)) => {
                    map.remove(last).ok_or(format!("{path} does not exist"))?;
                }
                _ => return Err(format!("{path} does not exist")),
            },
            Some("add" | "replace") => match object.pointer_mut(parent) {
                Some(Value::Object(map)) => {
                    map.insert(last.to_string(), operation["value"].clone());
                }
                _ => return Err(format!("{parent} does not exist")),
            },
            other => return Err(format!("unsupported op {other:?}")),
        }
    }
    Ok(())
}

fn route(request: &Request, state: &State) -> (u16, String) {
    let path = request.path.as_str();
    if let ("/version", Some(version)) = (path, state.behaviour.version) {
        return (
            200,
            json!({"major": "1", "minor": version.split('.').nth(1), "gitVersion": version})
                .to_string(),
        );
    }
    if path == "/api" {
        return (
            200,
            json!({"kind": "APIVersions", "versions": ["v1"]}).to_string(),
        );
    }
    if path == "/apis" {
        let mut versions: Vec<&str> = state
            .served
            .iter()
            .map(|s| s.group_version)
            .filter(|gv| *gv != "v1")
            .collect();
        versions.dedup();
        let groups: Vec<Value> = versions
            .iter()
            .map(|gv| {
                let group = gv.split('/').next().unwrap();
                json!({"name": group, "versions": [{"groupVersion": gv, "version": gv.split('/').nth(1)}]})
            })
            .collect();
        return (
            200,
            json!({"kind": "APIGroupList", "groups": groups}).to_string(),
        );
    }
    let discovered: Vec<&Served> = state
        .served
        .iter()
        .filter(|s| s.group_path() == path)
        .collect();
    if !discovered.is_empty() {
        let resources: Vec<Value> = discovered
            .iter()
            .map(|s| json!({"name": s.plural, "kind": s.kind, "namespaced": s.namespaced, "verbs": ["get", "list"]}))
            .collect();
        let gv = discovered[0].group_version;
        return (
            200,
            json!({"kind": "APIResourceList", "groupVersion": gv, "resources": resources})
                .to_string(),
        );
    }
    match address(state, path) {
        Some((index, namespace, None)) => {
            return list(
                state,
                index,
                &state.served[index],
                namespace.as_deref(),
                &request.query,
            );
        }
        Some((index, namespace, Some(name))) => {
            let served = &state.served[index];
            let key = (index, namespace.unwrap_or_default(), name.clone());
            return match state.objects.get(&key) {
                Some(object) => (200, with_type(served, object).to_string()),
                None => status(
                    404,
                    "NotFound",
                    &format!("{} \"{name}\" not found", served.plural),
                ),
            };
        }
        None => {}
    }
    status(
        404,
        "NotFound",
        "the server could not find the requested resource",
    )
}

/// The object with apiVersion and kind first, as the API server writes it.
fn with_type(served: &Served, object: &Value) -> Value {
    let mut typed = json!({"apiVersion": served.group_version, "kind": served.kind});
    if let (Some(typed), Some(fields)) = (typed.as_object_mut(), object.as_object()) {
        for (key, value) in fields {
            if key != "apiVersion" && key != "kind" {
                typed.insert(key.clone(), value.clone());
            }
        }
    }
    typed
}

/// Continue tokens carry the list's resourceVersion and offset, base64-like so the client must
/// percent-encode them; a token from an older resourceVersion is answered 410 like etcd does.
fn list(
    state: &State,
    index: usize,
    served: &Served,
    namespace: Option<&str>,
    query: &BTreeMap<String, String>,
) -> (u16, String) {
    let items: Vec<&Value> = state
        .objects
        .iter()
        .filter(|((i, ns, _), _)| *i == index && namespace.is_none_or(|n| n == ns))
        .map(|(_, object)| object)
        .collect();
    let start = match query.get("continue") {
        Some(token) => {
            let Some((rv, offset)) = token
                .strip_prefix("rv=")
                .and_then(|t| t.split_once("+off/"))
            else {
                return status(400, "BadRequest", "invalid continue token");
            };
            if rv != state.resource_version.to_string() {
                return status(410, "Expired", "the provided continue parameter is too old");
            }
            offset.parse::<usize>().unwrap()
        }
        None => 0,
    };
    let limit = query
        .get("limit")
        .and_then(|l| l.parse::<usize>().ok())
        .unwrap_or(usize::MAX)
        .min(state.behaviour.max_page.unwrap_or(usize::MAX));
    let end = items.len().min(start.saturating_add(limit));
    let mut metadata = json!({"resourceVersion": state.resource_version.to_string()});
    if end < items.len() {
        metadata["continue"] = json!(format!("rv={}+off/{end}", state.resource_version));
    }
    let list_kind = format!("{}List", served.kind);
    // Core lists carry no apiVersion/kind per item, as the real API server does.
    let page: Vec<Value> = items[start..end]
        .iter()
        .map(|o| {
            if served.group_version == "v1" {
                (*o).clone()
            } else {
                with_type(served, o)
            }
        })
        .collect();
    (
        200,
        json!({"kind": list_kind, "apiVersion": served.group_version, "metadata": metadata, "items": page})
            .to_string(),
    )
}
