//! Topology-aware gangs planned against a live cluster, for each of the three systems: the
//! test API server serves a bundled topology state (nodes, pods and the system's topology
//! objects, read through discovery like every custom kind), and `plan` of the gang over the
//! kubeconfig chooses the same domain at each level, and turns down the same domains for the
//! same reasons, as the plan of the recorded state does.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::apiserver::{
    ApiServer, Behaviour, CLUSTER_QUEUES, COHORTS, CONFIG_MAPS, HYPERNODES, KUEUE_TOPOLOGIES,
    KUEUE_WORKLOADS, LIMIT_RANGES, LOCAL_QUEUES, NAMESPACES, NODES, PDBS, PODS, PRIORITY_CLASSES,
    RESOURCE_FLAVORS, RESOURCE_QUOTAS, Served, WORKLOAD_POD_GROUPS, WORKLOAD_PRIORITY_CLASSES,
    WORKLOADS,
};
use crate::support::cli::{bin, text};

/// Every kind the bundled topology states and gangs hold that the server can serve.
const SERVED: &[Served] = &[
    NODES,
    NAMESPACES,
    PODS,
    PRIORITY_CLASSES,
    PDBS,
    RESOURCE_QUOTAS,
    LIMIT_RANGES,
    CONFIG_MAPS,
    HYPERNODES,
    KUEUE_TOPOLOGIES,
    RESOURCE_FLAVORS,
    CLUSTER_QUEUES,
    LOCAL_QUEUES,
    // Kueue's other kinds: an installed Kueue serves them all, whether the state has some.
    COHORTS,
    WORKLOAD_PRIORITY_CLASSES,
    KUEUE_WORKLOADS,
    WORKLOADS,
    WORKLOAD_POD_GROUPS,
];

/// The documents of a YAML file (a `v1` List counts as its items).
fn documents(file: &str) -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
    let text = std::fs::read_to_string(path).unwrap();
    text.split("\n---\n")
        .map(|doc| serde_saphyr::from_str::<Value>(doc).unwrap())
        .flat_map(|doc| match doc["kind"].as_str() {
            Some("List") => doc["items"].as_array().unwrap().clone(),
            _ => vec![doc],
        })
        .collect()
}

/// Where the server keeps an object of this apiVersion and kind, if it serves it.
fn served(object: &Value) -> Option<&'static Served> {
    SERVED.iter().find(|s| {
        s.group_version == object["apiVersion"].as_str().unwrap()
            && s.kind == object["kind"].as_str().unwrap()
    })
}

/// A server holding the objects of `state` and the served objects of `gang`; the rest of
/// `gang` (the pods to plan) is written to `inputs`.
fn live_cluster(state: &str, gang: &str, inputs: &Path) -> ApiServer {
    let server = ApiServer::start(SERVED.to_vec(), Behaviour::default());
    let mut given = Vec::new();
    for object in documents(state).into_iter().chain(documents(gang)) {
        match served(&object) {
            Some(kind) => server.add(kind, object),
            None => given.push(serde_json::to_string(&object).unwrap()),
        }
    }
    // JSON documents are YAML documents.
    std::fs::write(inputs, given.join("\n---\n")).unwrap();
    server
}

fn plan(args: &[&str]) -> (i32, Value, String) {
    let out = bin([&["plan", "-o", "json"][..], args].concat())
        .without_user_kubeconfig()
        .output();
    let stderr = text(&out.stderr);
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|_| panic!("{stderr}"));
    (
        out.status.code().unwrap_or(-1),
        plan["groups"][0].clone(),
        stderr,
    )
}

/// A group's placement: status, chosen domains, rejected domains, pods and their domains,
/// and the warnings (a Volcano plan whose scheduler configuration was not read says it
/// assumed the plugin on).
fn placement(group: &Value) -> Value {
    let pods: Vec<Value> = group["pods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| json!([p["pod"], p["node"], p["domains"]]))
        .collect();
    json!({"status": group["status"], "topology": group["topology"],
        "rejected": group["rejected"], "pods": pods, "warnings": group["warnings"]})
}

/// Plan `gang` against `state` live and recorded; both must agree and choose `chosen`
/// (`[level, domain]` widest first). Returns the live plan's stderr.
fn live_equals_recorded(state: &str, gang: &str, chosen: Value) -> String {
    let dir = tempfile::tempdir().unwrap();
    let inputs = dir.path().join("pods.yaml");
    let server = live_cluster(state, gang, &inputs);
    let kubeconfig = server.kubeconfig(dir.path(), "config");
    let inputs = inputs.display().to_string();
    let kubeconfig = kubeconfig.display().to_string();
    let (code, live, stderr) = plan(&["-f", &inputs, "--kubeconfig", &kubeconfig]);
    assert_eq!(code, 0, "{stderr}");
    let (recorded_code, recorded, _) = plan(&["-f", gang, "--state", state]);
    assert_eq!(recorded_code, 0);
    let chosen: Vec<Value> = chosen
        .as_array()
        .unwrap()
        .iter()
        .map(|pair| json!({"level": pair[0], "domain": pair[1]}))
        .collect();
    assert_eq!(live["topology"]["chosen"], json!(chosen), "{stderr}");
    assert_eq!(placement(&live), placement(&recorded));
    stderr
}

#[test]
fn volcano_hypernodes_and_scheduler_configuration_are_read_live() {
    let stderr = live_equals_recorded(
        "testdata/topology/volcano/state.yaml",
        "testdata/topology/volcano/job.yaml",
        json!([["tier2", "s0"]]),
    );
    assert!(!stderr.contains("hypernodes"), "{stderr}");
}

#[test]
fn kueue_topology_flavor_and_queues_are_read_live() {
    let stderr = live_equals_recorded(
        "testdata/topology/kueue/state.yaml",
        "testdata/topology/kueue/train.yaml",
        json!([
            ["topology.example.com/block", "b2"],
            ["topology.example.com/rack", "r3"]
        ]),
    );
    assert!(!stderr.contains("kueue.x-k8s.io"), "{stderr}");
}

#[test]
fn workload_pod_groups_and_their_topology_are_read_live() {
    let stderr = live_equals_recorded(
        "testdata/topology/workload/state.yaml",
        "testdata/topology/workload/train.yaml",
        json!([["topology.example.com/rack", "r2"]]),
    );
    // The cluster serves the Workload API in v1alpha2: the other versions are alternatives
    // (one release serves one), tried first or not at all, and never noted missing.
    let noted_missing =
        |l: &str| l.contains("(scheduling.k8s.io/v1") && l.contains("not installed");
    assert!(!stderr.lines().any(noted_missing), "{stderr}");
    // The test server answers no /version: the release is the one that serves the objects.
    assert!(
        stderr.contains("note: simulating Kubernetes 1.36, the release that serves scheduling.k8s.io/v1alpha2 (--kubernetes-version chooses)\n"),
        "{stderr}"
    );
}
