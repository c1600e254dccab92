//! End-to-end tests of the live-cluster path against the test API server in tests/support.

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use df_live::{ConnectOptions, Progress, Resource, Scope};
use df_model::Object;
use df_state::{ClusterState, Run, cache, recorded};
use serde_json::json;

use crate::support::apiserver::{
    ALLUXIO_RUNTIMES, ApiServer, Behaviour, COSCHEDULING_POD_GROUPS, DATALOADS, DATAPROCESSES,
    DEVICE_CLASSES_V1BETA1, HYPERNODES, LIMIT_RANGES, NAMESPACES, NODES, PDBS, PODS,
    PRIORITY_CLASSES, RESOURCE_CLAIM_TEMPLATES_V1BETA1, RESOURCE_CLAIMS_V1BETA1, RESOURCE_QUOTAS,
    RESOURCE_SLICES_V1BETA1, VOLCANO_JOBS, kubeconfig_text,
};
use crate::support::cli::{bin, text};

fn cluster(behaviour: Behaviour) -> ApiServer {
    let server = ApiServer::start(
        vec![
            NODES,
            NAMESPACES,
            PODS,
            PRIORITY_CLASSES,
            PDBS,
            RESOURCE_QUOTAS,
            LIMIT_RANGES,
            DATALOADS,
            DATAPROCESSES,
            ALLUXIO_RUNTIMES,
            VOLCANO_JOBS,
            COSCHEDULING_POD_GROUPS,
            HYPERNODES,
            DEVICE_CLASSES_V1BETA1,
            RESOURCE_SLICES_V1BETA1,
            RESOURCE_CLAIMS_V1BETA1,
            RESOURCE_CLAIM_TEMPLATES_V1BETA1,
        ],
        behaviour,
    );
    // Devices of node-a, served only as resource.k8s.io/v1beta1 (fields under `basic`): the
    // live read falls back from v1 to the version served and reads them in the v1 shape.
    server.add(
        &RESOURCE_SLICES_V1BETA1,
        json!({"metadata": {"name": "node-a-gpus"},
        "spec": {"driver": "gpu.example.com", "nodeName": "node-a",
            "pool": {"name": "node-a", "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": "gpu-0", "basic": {"attributes": {"model": {"string": "a100"}}}}]}}),
    );
    // A rack of both nodes (cluster-scoped, read through discovery like every custom kind).
    server.add(
        &HYPERNODES,
        json!({"metadata": {"name": "rack-1"},
        "spec": {"tier": 1, "members": [
            {"type": "Node", "selector": {"regexMatch": {"pattern": "^node-"}}}]}}),
    );
    // The runtime of dataset team/imagenet, its workers pinned to zone b.
    server.add(
        &ALLUXIO_RUNTIMES,
        json!({"metadata": {"name": "imagenet", "namespace": "team"},
        "spec": {"replicas": 1},
        "status": {"cacheAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
            {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["b"]}]}]}}}}),
    );
    server.add(
        &COSCHEDULING_POD_GROUPS,
        json!({"metadata": {"name": "etl", "namespace": "team"},
        "spec": {"minMember": 2, "minResources": {"cpu": "1"}, "scheduleTimeoutSeconds": 60}}),
    );
    server.add(
        &PRIORITY_CLASSES,
        json!({"metadata": {"name": "critical"}, "value": 100000, "preemptionPolicy": "PreemptLowerPriority"}),
    );
    server.add(
        &PDBS,
        json!({"metadata": {"name": "loader", "namespace": "team"},
        "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "loader"}}},
        "status": {"disruptionsAllowed": 0, "currentHealthy": 1}}),
    );
    server.add(
        &NODES,
        json!({"metadata": {"name": "node-a", "managedFields": [{"manager": "kubelet"}],
        "labels": {"kubernetes.io/hostname": "node-a", "topology.kubernetes.io/zone": "a"}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}),
    );
    server.add(
        &NODES,
        json!({"metadata": {"name": "node-b",
        "labels": {"kubernetes.io/hostname": "node-b", "topology.kubernetes.io/zone": "b"}},
        "spec": {"taints": [{"key": "gpu", "effect": "NoSchedule"}]},
        "status": {"allocatable": {"cpu": "8", "memory": "16Gi", "pods": "110"}}}),
    );
    server.add(
        &NAMESPACES,
        json!({"metadata": {"name": "default",
        "labels": {"kubernetes.io/metadata.name": "default"}}}),
    );
    server.add(
        &NAMESPACES,
        json!({"metadata": {"name": "team",
        "labels": {"kubernetes.io/metadata.name": "team", "tier": "data"}}}),
    );
    server.add(
        &PODS,
        json!({"metadata": {"name": "db-0", "namespace": "default"},
        "spec": {"nodeName": "node-b", "containers": [{"name": "db", "image": "postgres:16",
            "env": [{"name": "PASSWORD", "value": "hunter2"}],
            "resources": {"requests": {"cpu": "2", "memory": "4Gi"}}}],
            "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}]},
        "status": {"phase": "Running"}}),
    );
    server.add(
        &PODS,
        json!({"metadata": {"name": "loader-0", "namespace": "team", "labels": {"app": "loader"}},
        "spec": {"nodeName": "node-a", "containers": [{"name": "c", "image": "fluid/loader",
            "resources": {"requests": {"cpu": "500m"}}}]},
        "status": {"phase": "Running"}}),
    );
    server.add(&PODS, json!({"metadata": {"name": "web-1", "namespace": "team"},
        "spec": {"containers": [{"name": "c", "image": "nginx"}],
            "affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": {"app": "loader"}}, "topologyKey": "kubernetes.io/hostname"}]}}},
        "status": {"phase": "Pending"}}));
    server.add(&DATALOADS, json!({"metadata": {"name": "warmup", "namespace": "team"},
        "spec": {"dataset": {"name": "imagenet"}},
        "status": {"phase": "Complete", "nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
            {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "kubernetes.io/hostname", "operator": "In", "values": ["node-a"]}]}]}}}}));
    server
}

/// `ARGS...`, with `--kubeconfig KUBECONFIG` when given, and nothing of the user's kubeconfig.
fn run(args: &[&str], kubeconfig: Option<&Path>) -> Output {
    match kubeconfig {
        Some(path) => bin(args).kubeconfig(path).output(),
        None => bin(args).without_user_kubeconfig().output(),
    }
}

const NOT_INSTALLED: &str = "\
note: datamigrates.data.fluid.io (data.fluid.io/v1alpha1) is not installed in the cluster; skipping DataMigrate objects
note: databackups.data.fluid.io (data.fluid.io/v1alpha1) is not installed in the cluster; skipping DataBackup objects
note: jindoruntimes.data.fluid.io (data.fluid.io/v1alpha1) is not installed in the cluster; skipping JindoRuntime objects
note: goosefsruntimes.data.fluid.io (data.fluid.io/v1alpha1) is not installed in the cluster; skipping GooseFSRuntime objects
note: juicefsruntimes.data.fluid.io (data.fluid.io/v1alpha1) is not installed in the cluster; skipping JuiceFSRuntime objects
note: efcruntimes.data.fluid.io (data.fluid.io/v1alpha1) is not installed in the cluster; skipping EFCRuntime objects
note: thinruntimes.data.fluid.io (data.fluid.io/v1alpha1) is not installed in the cluster; skipping ThinRuntime objects
note: vineyardruntimes.data.fluid.io (data.fluid.io/v1alpha1) is not installed in the cluster; skipping VineyardRuntime objects
note: podgroups.scheduling.godel.kubewharf.io (scheduling.godel.kubewharf.io/v1alpha1) is not installed in the cluster; skipping PodGroup objects
note: podgroups.scheduling.volcano.sh (scheduling.volcano.sh/v1beta1) is not installed in the cluster; skipping PodGroup objects
note: queues.scheduling.volcano.sh (scheduling.volcano.sh/v1beta1) is not installed in the cluster; skipping Queue objects
note: podgroups.scheduling.incubator.k8s.io (scheduling.incubator.k8s.io/v1alpha1) is not installed in the cluster; skipping PodGroup objects
note: podgroups.scheduling.sigs.dev (scheduling.sigs.dev/v1alpha2) is not installed in the cluster; skipping PodGroup objects
note: podgroups.scheduling.k8s.io (scheduling.k8s.io/v1beta1, scheduling.k8s.io/v1alpha3, scheduling.k8s.io/v1alpha2) is not installed in the cluster; skipping PodGroup objects
note: workloads.scheduling.k8s.io (scheduling.k8s.io/v1beta1, scheduling.k8s.io/v1alpha3, scheduling.k8s.io/v1alpha2, scheduling.k8s.io/v1alpha1) is not installed in the cluster; skipping Workload objects
note: topologies.kueue.x-k8s.io (kueue.x-k8s.io/v1beta1) is not installed in the cluster; skipping Topology objects
note: resourceflavors.kueue.x-k8s.io (kueue.x-k8s.io/v1beta1) is not installed in the cluster; skipping ResourceFlavor objects
note: clusterqueues.kueue.x-k8s.io (kueue.x-k8s.io/v1beta1) is not installed in the cluster; skipping ClusterQueue objects
note: localqueues.kueue.x-k8s.io (kueue.x-k8s.io/v1beta1) is not installed in the cluster; skipping LocalQueue objects
note: cohorts.kueue.x-k8s.io (kueue.x-k8s.io/v1beta1) is not installed in the cluster; skipping Cohort objects
note: workloadpriorityclasses.kueue.x-k8s.io (kueue.x-k8s.io/v1beta1) is not installed in the cluster; skipping WorkloadPriorityClass objects
note: workloads.kueue.x-k8s.io (kueue.x-k8s.io/v1beta1) is not installed in the cluster; skipping Workload objects
note: trainingruntimes.trainer.kubeflow.org (trainer.kubeflow.org/v1alpha1) is not installed in the cluster; skipping TrainingRuntime objects
note: clustertrainingruntimes.trainer.kubeflow.org (trainer.kubeflow.org/v1alpha1) is not installed in the cluster; skipping ClusterTrainingRuntime objects
";

const SNAPSHOT_YAML: &str = "\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: node-a
    labels:
      kubernetes.io/hostname: node-a
      topology.kubernetes.io/zone: a
  spec: {}
  status:
    allocatable:
      cpu: \"4\"
      memory: \"8589934592\"
      pods: \"110\"
- apiVersion: v1
  kind: Node
  metadata:
    name: node-b
    labels:
      kubernetes.io/hostname: node-b
      topology.kubernetes.io/zone: b
  spec:
    taints:
    - key: gpu
      effect: NoSchedule
  status:
    allocatable:
      cpu: \"8\"
      memory: \"17179869184\"
      pods: \"110\"
- apiVersion: v1
  kind: Namespace
  metadata:
    name: default
    labels:
      kubernetes.io/metadata.name: default
- apiVersion: v1
  kind: Namespace
  metadata:
    name: team
    labels:
      kubernetes.io/metadata.name: team
      tier: data
- apiVersion: v1
  kind: Pod
  metadata:
    name: db-0
    namespace: default
  spec:
    nodeName: node-b
    tolerations:
    - key: gpu
      operator: Exists
      effect: NoSchedule
    containers:
    - name: db
      image: postgres:16
      resources:
        requests:
          cpu: \"2\"
          memory: \"4294967296\"
  status:
    phase: Running
- apiVersion: v1
  kind: Pod
  metadata:
    name: loader-0
    namespace: team
    labels:
      app: loader
  spec:
    nodeName: node-a
    containers:
    - name: c
      image: fluid/loader
      resources:
        requests:
          cpu: 500m
  status:
    phase: Running
- apiVersion: v1
  kind: Pod
  metadata:
    name: web-1
    namespace: team
  spec:
    affinity:
      podAntiAffinity:
        requiredDuringSchedulingIgnoredDuringExecution:
        - labelSelector:
            matchLabels:
              app: loader
          topologyKey: kubernetes.io/hostname
    containers:
    - name: c
      image: nginx
      resources: {}
  status:
    phase: Pending
- apiVersion: data.fluid.io/v1alpha1
  kind: DataLoad
  metadata:
    name: warmup
    namespace: team
  spec:
    dataset:
      name: imagenet
    resources: {}
  status:
    phase: Complete
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - key: kubernetes.io/hostname
            operator: In
            values:
            - node-a
- apiVersion: data.fluid.io/v1alpha1
  kind: AlluxioRuntime
  metadata:
    name: imagenet
    namespace: team
  spec: {}
  status:
    cacheAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - key: topology.kubernetes.io/zone
            operator: In
            values:
            - b
- apiVersion: scheduling.x-k8s.io/v1alpha1
  kind: PodGroup
  metadata:
    name: etl
    namespace: team
  spec:
    minMember: 2
    minResources:
      cpu: \"1\"
    scheduleTimeoutSeconds: 60
- apiVersion: scheduling.k8s.io/v1
  kind: PriorityClass
  metadata:
    name: critical
  value: 100000
  preemptionPolicy: PreemptLowerPriority
- apiVersion: policy/v1
  kind: PodDisruptionBudget
  metadata:
    name: loader
    namespace: team
  spec:
    selector:
      matchLabels:
        app: loader
  status:
    disruptionsAllowed: 0
- apiVersion: topology.volcano.sh/v1alpha1
  kind: HyperNode
  metadata:
    name: rack-1
  spec:
    tier: 1
    members:
    - type: Node
      selector:
        regexMatch:
          pattern: ^node-
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata:
    name: node-a-gpus
  spec:
    driver: gpu.example.com
    pool:
      name: node-a
      generation: 1
      resourceSliceCount: 1
    nodeName: node-a
    devices:
    - name: gpu-0
      attributes:
        model:
          string: a100
";

#[test]
fn snapshot_reads_every_resource_page_by_page_and_skips_missing_crds() {
    let server = cluster(Behaviour {
        max_page: Some(2),
        ..Default::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.kubeconfig(dir.path(), "config");
    let out = run(&["snapshot"], Some(&kubeconfig));
    assert_eq!(text(&out.stderr), NOT_INSTALLED);
    assert!(out.status.success());
    let stdout = text(&out.stdout);
    assert_eq!(stdout, SNAPSHOT_YAML);
    let requests: Vec<String> = server
        .log()
        .into_iter()
        .filter(|line| line.contains("pods") || line.starts_with("GET /apis/"))
        .collect();
    assert_eq!(
        requests,
        [
            "GET /api/v1/pods?limit=500",
            // One more object in the server (the ResourceSlice) moves its resource version.
            "GET /api/v1/pods?continue=rv=114+off/2&limit=500",
            "GET /apis/data.fluid.io/v1alpha1",
            "GET /apis/data.fluid.io/v1alpha1/dataloads?limit=500",
            "GET /apis/data.fluid.io/v1alpha1/dataprocesses?limit=500",
            "GET /apis/data.fluid.io/v1alpha1/alluxioruntimes?limit=500",
            "GET /apis/scheduling.godel.kubewharf.io/v1alpha1",
            "GET /apis/batch.volcano.sh/v1alpha1",
            "GET /apis/batch.volcano.sh/v1alpha1/jobs?limit=500",
            "GET /apis/scheduling.volcano.sh/v1beta1",
            "GET /apis/scheduling.incubator.k8s.io/v1alpha1",
            "GET /apis/scheduling.sigs.dev/v1alpha2",
            "GET /apis/scheduling.x-k8s.io/v1alpha1",
            "GET /apis/scheduling.x-k8s.io/v1alpha1/podgroups?limit=500",
            "GET /apis/scheduling.k8s.io/v1beta1",
            "GET /apis/scheduling.k8s.io/v1alpha3",
            "GET /apis/scheduling.k8s.io/v1alpha2",
            "GET /apis/scheduling.k8s.io/v1alpha1",
            "GET /apis/scheduling.k8s.io/v1",
            "GET /apis/scheduling.k8s.io/v1/priorityclasses?limit=500",
            "GET /apis/policy/v1",
            "GET /apis/policy/v1/poddisruptionbudgets?limit=500",
            "GET /apis/kueue.x-k8s.io/v1beta1",
            "GET /apis/topology.volcano.sh/v1alpha1",
            "GET /apis/topology.volcano.sh/v1alpha1/hypernodes?limit=500",
            "GET /apis/storage.k8s.io/v1",
            "GET /apis/storage.k8s.io/v1/storageclasses?limit=500",
            "GET /apis/storage.k8s.io/v1/csinodes?limit=500",
            "GET /apis/storage.k8s.io/v1/csidrivers?limit=500",
            "GET /apis/storage.k8s.io/v1/csistoragecapacities?limit=500",
            "GET /apis/storage.k8s.io/v1/volumeattachments?limit=500",
            // DRA's versions, newest first, until one is served: it alone is listed.
            "GET /apis/resource.k8s.io/v1",
            "GET /apis/resource.k8s.io/v1beta2",
            "GET /apis/resource.k8s.io/v1beta1",
            "GET /apis/resource.k8s.io/v1beta1/deviceclasses?limit=500",
            "GET /apis/resource.k8s.io/v1beta1/resourceslices?limit=500",
            "GET /apis/resource.k8s.io/v1beta1/resourceclaims?limit=500",
            "GET /apis/resource.k8s.io/v1beta1/resourceclaimtemplates?limit=500",
            "GET /apis/apps/v1",
            "GET /apis/apps/v1/statefulsets?limit=500",
            "GET /apis/apps/v1/replicasets?limit=500",
            "GET /apis/trainer.kubeflow.org/v1alpha1",
        ]
    );
}

/// Decoded objects of a state, for comparing two states field by field.
fn objects(state: &ClusterState) -> String {
    format!(
        "{:#?}\n{:#?}\n{:#?}\n{:#?}\n{:#?}\n{:#?}\n{:#?}\n{:#?}\n{:#?}\n{:#?}\n{:#?}\n{:#?}",
        state.nodes,
        state.namespaces,
        state.pods,
        state.fluid_ops,
        state.fluid_runtimes,
        state.godel_pod_groups,
        state.volcano_jobs,
        state.volcano_pod_groups,
        state.pod_groups,
        state.scheduling_workloads,
        state.priority_classes,
        state.pod_disruption_budgets
    )
}

struct Quiet(Vec<String>);

impl Progress for Quiet {
    fn note(&mut self, message: &str) {
        self.0.push(message.to_string());
    }
    fn read(&mut self, _: &Resource, _: usize) {}
    fn done(&mut self) {}
}

#[test]
fn live_state_equals_the_state_read_back_from_its_snapshot() {
    let server = cluster(Behaviour::default());
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.kubeconfig(dir.path(), "config");
    let options = ConnectOptions {
        kubeconfig: Some(kubeconfig.clone()),
        context: None,
        request_timeout: Some(Duration::from_secs(10)),
    };
    let mut notes = Quiet(Vec::new());
    let live = df_live::load(&options, &Scope::All, &mut notes).unwrap();
    // One note per kind the test server does not serve: the lines of NOT_INSTALLED.
    assert_eq!(
        notes.0.len(),
        NOT_INSTALLED.lines().count(),
        "{:?}",
        notes.0
    );
    assert_eq!(live.pod_groups.len(), 1);
    let slices = &live.dra.resource_slices;
    assert_eq!(slices.len(), 1);
    assert!(slices[0].spec.devices[0].attributes.contains_key("model"));
    assert_eq!(live.hyper_nodes.len(), 1);
    assert_eq!(live.nodes.len(), 2);
    assert_eq!(live.pods.len(), 3);
    assert_eq!(live.fluid_ops.len(), 1);
    assert_eq!(live.fluid_runtimes.len(), 1);
    assert_eq!(live.priority_classes.len(), 1);
    assert_eq!(live.pod_disruption_budgets.len(), 1);
    for format in ["json", "yaml"] {
        let file = dir.path().join(format!("snap.{format}"));
        let out = run(
            &[
                "snapshot",
                "-o",
                format,
                "--output-file",
                file.to_str().unwrap(),
            ],
            Some(&kubeconfig),
        );
        assert!(out.status.success(), "{}", text(&out.stderr));
        assert_eq!(text(&out.stdout), "");
        let recorded = recorded::load_files(&[file.to_str().unwrap().to_string()]).unwrap();
        assert_eq!(objects(&recorded), objects(&live), "{format}");
        // The snapshot's binary cache is beside it, fresh, and holds the same state.
        let cached = cache::read(&file).unwrap();
        let text = std::fs::read(&file).unwrap();
        let decoded = recorded::parse_state("snap", &text).unwrap();
        // The pods come in one list of their own; every other object in the file's order.
        let mut from_cache: (Vec<Object>, Vec<Object>) = Default::default();
        assert_eq!(
            cached.server_version, None,
            "the test server has no /version"
        );
        for run in cached.runs {
            match run {
                Run::Objects(objects) => from_cache.1.extend(objects),
                Run::Pods { pods, .. } => from_cache.0.extend(pods.into_iter().map(Object::Pod)),
            }
        }
        let from_file = decoded
            .into_iter()
            .partition(|object| matches!(object, Object::Pod(_)));
        assert_eq!(from_cache, from_file, "{format}");
        let options = recorded::LoadOptions {
            use_cache: true,
            ..recorded::LoadOptions::default()
        };
        let from_cache =
            recorded::load_files_with(&[file.to_str().unwrap().to_string()], options).unwrap();
        assert_eq!(objects(&from_cache), objects(&live), "{format}");
    }
}

/// The API server's `/version` is the release simulated, and a snapshot records it: a plan
/// from the snapshot (file or cache) simulates the same release, which here does not serve the
/// v1.35 Workload API of the input.
#[test]
fn the_servers_version_is_simulated_live_and_from_its_snapshot() {
    let server = cluster(Behaviour {
        version: Some("v1.36.2"),
        ..Behaviour::default()
    });
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.kubeconfig(dir.path(), "config");
    let snapshot = dir.path().join("snap.yaml");
    let out = run(
        &["snapshot", "--output-file", snapshot.to_str().unwrap()],
        Some(&kubeconfig),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let written = std::fs::read_to_string(&snapshot).unwrap();
    assert!(
        written.starts_with("apiVersion: v1\nkind: List\nmetadata:\n  annotations:\n    kubectl-dataflow.io/server-version: v1.36.2\nitems:\n"),
        "{}",
        &written[..200]
    );
    let refused = "error: testdata/workload-api/v1alpha1.yaml:5:13: Workload/training/jax-train: scheduling.k8s.io/v1alpha1 is not served by Kubernetes 1.36 (it serves scheduling.k8s.io/v1alpha2); Kubernetes 1.35 serves it (--kubernetes-version)";
    let plan = ["plan", "-f", "testdata/workload-api/v1alpha1.yaml"];
    let state = ["--state", snapshot.to_str().unwrap()];
    let cases: [(&[&str], Option<&Path>); 3] = [
        (&[], Some(&kubeconfig)),
        (&state, None),
        // The snapshot's cache, written beside it.
        (&[&state[..], &["--state-cache"]].concat(), None),
    ];
    for (extra, kubeconfig) in cases {
        let out = run(&[&plan[..], extra].concat(), kubeconfig);
        // The live read notes first which kinds the test server does not serve.
        let stderr = text(&out.stderr);
        let last = stderr.lines().last().unwrap_or_default();
        assert_eq!((out.status.code(), last), (Some(2), refused), "{extra:?}");
        assert_eq!(text(&out.stdout), "", "nothing printed on refusal");
    }
}

#[test]
fn kubeconfig_path_lists_and_context_select_the_server() {
    let server = cluster(Behaviour::default());
    let dir = tempfile::tempdir().unwrap();
    // The first file's current context points at a closed port; the second holds `test`.
    let first = dir.path().join("first");
    std::fs::write(
        &first,
        kubeconfig_text(&[("dead", "http://127.0.0.1:9")], "dead"),
    )
    .unwrap();
    let second = dir.path().join("second");
    std::fs::write(&second, kubeconfig_text(&[("test", &server.url)], "test")).unwrap();
    let list = std::env::join_paths([&first, &second]).unwrap();
    let with_env = |args: &[&str]| bin(args).env("KUBECONFIG", &list).output();
    let out = with_env(&["snapshot", "-o", "json", "--context", "test"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("\"name\": \"node-a\""));
    let out = with_env(&["snapshot", "--request-timeout", "5s"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).starts_with("error: cannot reach the API server at http://127.0.0.1:9: "),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_namespace_narrows_the_namespaced_lists_only() {
    let server = cluster(Behaviour::default());
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.kubeconfig(dir.path(), "config");
    let out = run(&["snapshot", "-n", "team", "-o", "json"], Some(&kubeconfig));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let lists: Vec<String> = server
        .log()
        .into_iter()
        .filter(|line| line.contains("?limit"))
        .collect();
    assert_eq!(
        lists,
        [
            "GET /api/v1/nodes?limit=500",
            "GET /api/v1/namespaces?limit=500",
            "GET /api/v1/namespaces/team/pods?limit=500",
            "GET /apis/data.fluid.io/v1alpha1/namespaces/team/dataloads?limit=500",
            "GET /apis/data.fluid.io/v1alpha1/namespaces/team/dataprocesses?limit=500",
            "GET /apis/data.fluid.io/v1alpha1/namespaces/team/alluxioruntimes?limit=500",
            "GET /apis/batch.volcano.sh/v1alpha1/namespaces/team/jobs?limit=500",
            "GET /apis/scheduling.x-k8s.io/v1alpha1/namespaces/team/podgroups?limit=500",
            "GET /apis/scheduling.k8s.io/v1/priorityclasses?limit=500",
            "GET /apis/policy/v1/namespaces/team/poddisruptionbudgets?limit=500",
            "GET /api/v1/namespaces/team/resourcequotas?limit=500",
            "GET /api/v1/namespaces/team/limitranges?limit=500",
            "GET /apis/topology.volcano.sh/v1alpha1/hypernodes?limit=500",
            "GET /api/v1/namespaces/team/services?limit=500",
            "GET /api/v1/persistentvolumes?limit=500",
            "GET /api/v1/namespaces/team/persistentvolumeclaims?limit=500",
            "GET /apis/storage.k8s.io/v1/storageclasses?limit=500",
            "GET /apis/storage.k8s.io/v1/csinodes?limit=500",
            "GET /apis/storage.k8s.io/v1/csidrivers?limit=500",
            "GET /apis/storage.k8s.io/v1/namespaces/team/csistoragecapacities?limit=500",
            "GET /apis/storage.k8s.io/v1/volumeattachments?limit=500",
            // DRA: v1 and v1beta2 are not served, so v1beta1 is listed, once.
            "GET /apis/resource.k8s.io/v1beta1/deviceclasses?limit=500",
            "GET /apis/resource.k8s.io/v1beta1/resourceslices?limit=500",
            "GET /apis/resource.k8s.io/v1beta1/namespaces/team/resourceclaims?limit=500",
            "GET /apis/resource.k8s.io/v1beta1/namespaces/team/resourceclaimtemplates?limit=500",
            "GET /apis/apps/v1/namespaces/team/statefulsets?limit=500",
            "GET /apis/apps/v1/namespaces/team/replicasets?limit=500",
        ]
    );
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("\"loader-0\"") && !stdout.contains("\"db-0\""),
        "{stdout}"
    );
}

#[test]
fn api_failures_are_one_clear_line_and_exit_2() {
    let cases: [(Behaviour, &[&str], &str); 3] = [
        (
            Behaviour {
                slow: vec![("/api/v1/nodes".into(), Duration::from_secs(5))],
                ..Default::default()
            },
            &["snapshot", "--request-timeout", "300ms"],
            "error: the API server at {url} did not answer list nodes within 300ms; raise the timeout or check the server (--request-timeout)\n",
        ),
        (
            Behaviour {
                forbidden: vec!["/api/v1/pods".into()],
                ..Default::default()
            },
            &["snapshot"],
            "error: forbidden: cannot list pods in all namespaces: /api/v1/pods is forbidden: User \"alice\" cannot list resource at the cluster scope; ask for list permission, or record the state elsewhere and pass --state FILE\n",
        ),
        (
            Behaviour::default(),
            &["snapshot", "--request-timeout", "soon"],
            "error: invalid --request-timeout \"soon\": expected a duration such as 30s, 1m or 500ms\n",
        ),
    ];
    for (behaviour, args, expected) in cases {
        let server = cluster(behaviour);
        let dir = tempfile::tempdir().unwrap();
        let kubeconfig = server.kubeconfig(dir.path(), "config");
        let out = run(args, Some(&kubeconfig));
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert_eq!(
            text(&out.stderr),
            expected.replace("{url}", &server.url),
            "{args:?}"
        );
        assert_eq!(text(&out.stdout), "");
    }
}

#[test]
fn redacted_snapshots_hide_names_but_keep_references() {
    let server = cluster(Behaviour::default());
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.kubeconfig(dir.path(), "config");
    let out = run(&["snapshot", "--redact", "-o", "json"], Some(&kubeconfig));
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    for secret in [
        "node-a", "node-b", "team", "loader", "db-0", "warmup", "imagenet", "postgres",
    ] {
        assert!(!stdout.contains(secret), "{secret} leaked: {stdout}");
    }
    let state =
        ClusterState::from_objects(recorded::parse_state("snap", stdout.as_bytes()).unwrap());
    assert_eq!(state.warnings, Vec::<String>::new());
    let bound: Vec<usize> = (0..state.nodes.len())
        .map(|i| state.pods_on(i).count())
        .collect();
    assert_eq!(bound, [1, 1]);
}

/// The live state is the whole cluster whatever `-n` says: `plan -n team` places a pod that
/// needs a pod of namespace `default` exactly as `plan -A` does. Where RBAC forbids listing
/// pods cluster-wide, the namespace is read instead and one note says what is missing.
#[test]
fn a_namespace_plans_against_the_whole_live_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("reader.yaml");
    std::fs::write(
        &manifest,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: reader, namespace: team}\nspec:\n  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {matchLabels: {app: cache}}\n        namespaces: [default]\n        topologyKey: kubernetes.io/hostname\n  containers: [{name: c, image: reader}]\n",
    )
    .unwrap();
    let manifest = manifest.display().to_string();
    let with_cache = |behaviour: Behaviour| {
        let server = cluster(behaviour);
        server.add(
            &PODS,
            json!({"metadata": {"name": "cache-0", "namespace": "default", "labels": {"app": "cache"}},
            "spec": {"nodeName": "node-a", "containers": [{"name": "c", "image": "cache"}]},
            "status": {"phase": "Running"}}),
        );
        server
    };
    let placed = |out: &Output| -> Vec<(String, serde_json::Value)> {
        let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        plan["batch"]["pods"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                (
                    format!(
                        "{}/{}",
                        p["namespace"].as_str().unwrap(),
                        p["name"].as_str().unwrap()
                    ),
                    p["node"].clone(),
                )
            })
            .collect()
    };
    let server = with_cache(Behaviour::default());
    let kubeconfig = server.kubeconfig(dir.path(), "config");
    let plan = |namespace: &[&str]| {
        let args = [
            &["plan", "-f", manifest.as_str(), "-o", "json"][..],
            namespace,
        ]
        .concat();
        run(&args, Some(&kubeconfig))
    };
    let all = plan(&["-A"]);
    let team = plan(&["-n", "team"]);
    assert_eq!(team.status.code(), Some(0), "{}", text(&team.stderr));
    assert_eq!(
        placed(&all),
        vec![("team/reader".to_string(), json!("node-a"))]
    );
    assert_eq!(placed(&team), placed(&all));
    assert!(
        server
            .log()
            .iter()
            .any(|line| line == "GET /api/v1/pods?limit=500"),
        "-n team still lists pods cluster-wide"
    );

    let server = with_cache(Behaviour {
        forbidden: vec!["/api/v1/pods".into()],
        ..Default::default()
    });
    let kubeconfig = server.kubeconfig(dir.path(), "config");
    let out = run(
        &["plan", "-f", manifest.as_str(), "-n", "team", "-o", "json"],
        Some(&kubeconfig),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(placed(&out), vec![("team/reader".to_string(), json!(null))]);
    assert!(
        text(&out.stderr).contains(
            "note: not allowed to list pods in all namespaces; read namespace \"team\" only: pods of other namespaces (their resource use, affinity and spread) and their objects are missing from this answer\n"
        ),
        "{}",
        text(&out.stderr)
    );
    assert!(
        server
            .log()
            .iter()
            .any(|line| line == "GET /api/v1/namespaces/team/pods?limit=500")
    );
}

/// RBAC that hides whole lists: a live plan goes on with what the user may read and says once,
/// in one note, what the answer may be missing; nodes stay essential.
#[test]
fn forbidden_lists_leave_one_note_and_the_plan_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = dir.path().join("pod.yaml").display().to_string();
    std::fs::write(
        &manifest,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: reader, namespace: team}\nspec:\n  priorityClassName: critical\n  containers: [{name: c, image: x, resources: {requests: {cpu: 100m}}}]\n",
    )
    .unwrap();
    let forbid = |paths: &[&str]| Behaviour {
        forbidden: paths.iter().map(|p| p.to_string()).collect(),
        ..Default::default()
    };
    let cases: [(&[&str], i32, &str); 3] = [
        (
            &["/apis/scheduling.k8s.io/v1/priorityclasses"],
            0,
            "note: preemption: PriorityClasses could not be read (forbidden): pod priorities are taken from the pods' spec.priority; a planned pod's priorityClassName counts as priority 0\n",
        ),
        (
            &[
                "/apis/scheduling.k8s.io/v1/priorityclasses",
                "/apis/policy/v1/poddisruptionbudgets",
                "/apis/policy/v1/namespaces/team/poddisruptionbudgets",
                "/api/v1/resourcequotas",
                "/apis/topology.volcano.sh/v1alpha1/hypernodes",
            ],
            0,
            "note: not allowed to read all the cluster; this answer may be missing:
  not allowed to list resourcequotas in all namespaces; read namespace \"team\" only: objects of other namespaces are missing from this answer
  preemption: PriorityClasses could not be read (forbidden): pod priorities are taken from the pods' spec.priority; a planned pod's priorityClassName counts as priority 0
  preemption: PodDisruptionBudgets could not be read (forbidden): evicting a pod never counts as a budget violation
  hypernodes.topology.volcano.sh (topology.volcano.sh/v1alpha1) could not be read (forbidden): the plan takes the cluster to have none
",
        ),
        (
            &["/api/v1/nodes"],
            2,
            "error: forbidden: cannot list nodes: /api/v1/nodes is forbidden: User \"alice\" cannot list resource at the cluster scope; ask for list permission, or record the state elsewhere and pass --state FILE\n",
        ),
    ];
    for (paths, code, notes) in cases {
        let server = cluster(forbid(paths));
        let kubeconfig = server.kubeconfig(dir.path(), "config");
        let out = run(
            &["plan", "-f", &manifest, "-n", "team", "-o", "json"],
            Some(&kubeconfig),
        );
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(code), "{paths:?}: {stderr}");
        let expected = if code == 0 {
            format!("{NOT_INSTALLED}{notes}")
        } else {
            notes.to_string()
        };
        assert_eq!(stderr, expected, "{paths:?}");
    }
    // A pod naming a class that could not be read: preemption assumes priority 0 and says why,
    // not that admission would reject the pod.
    let big = manifest.replace("pod.yaml", "big.yaml");
    std::fs::write(
        &big,
        std::fs::read_to_string(&manifest)
            .unwrap()
            .replace("cpu: 100m", "cpu: 100"),
    )
    .unwrap();
    let server = cluster(forbid(&["/apis/scheduling.k8s.io/v1/priorityclasses"]));
    let kubeconfig = server.kubeconfig(dir.path(), "config");
    let out = run(
        &["explain-placement", "-f", &big, "-n", "team"],
        Some(&kubeconfig),
    );
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(
            "PriorityClass \"critical\" could not be read (forbidden); priority 0 assumed"
        ) && !stdout.contains("admission would reject"),
        "{stdout}"
    );
}

/// Issue 16 from a live cluster: a DataProcess mounting dataset team/imagenet, labelled for
/// Fluid's serverful webhook, plans onto node-c, the node Fluid labelled as holding the cache;
/// the plan names NodeAffinityWithCache as the source, with the zone tier taken from the live
/// runtime's recorded cache affinity.
#[test]
fn a_dataprocess_lands_on_the_live_cache_node() {
    let server = cluster(Behaviour::default());
    server.add(
        &NODES,
        json!({"metadata": {"name": "node-c",
        "labels": {"kubernetes.io/hostname": "node-c", "topology.kubernetes.io/zone": "c",
            "fluid.io/s-team-imagenet": "true"}},
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}),
    );
    server.add(
        &DATAPROCESSES,
        json!({"metadata": {"name": "train", "namespace": "team"},
        "spec": {"dataset": {"name": "imagenet", "namespace": "team", "mountPath": "/data"},
            "processor": {"podMetadata": {"labels": {"fuse.serverful.fluid.io/inject": "true"}},
                "job": {"podSpec": {"containers": [{"name": "train", "image": "train:1",
                    "resources": {"requests": {"cpu": "1"}}}]}}}}}),
    );
    let dir = tempfile::tempdir().unwrap();
    let kubeconfig = server.kubeconfig(dir.path(), "config");
    let out = run(&["plan", "-n", "team", "-o", "json"], Some(&kubeconfig));
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let train = plan["operations"]
        .as_array()
        .unwrap()
        .iter()
        .find(|op| op["name"] == "train")
        .unwrap();
    assert_eq!(train["node"], "node-c", "{}", text(&out.stderr));
    let tier = |weight: i32, key: &str, value: &str| {
        json!({"weight": weight, "preference": {"matchExpressions": [
            {"key": key, "operator": "In", "values": [value]}]}})
    };
    assert_eq!(
        train["webhookAffinity"],
        json!([{"plugin": "NodeAffinityWithCache", "nodeAffinity": {
        "preferredDuringSchedulingIgnoredDuringExecution": [
            tier(100, "fluid.io/s-team-imagenet", "true"),
            tier(50, "topology.kubernetes.io/zone", "b"),
        ]}}])
    );
    assert_eq!(
        train["datasets"],
        json!([{"namespace": "team", "name": "imagenet", "cacheNodes": ["node-c"], "locality": "hit"}])
    );
    let table = run(&["plan", "-n", "team"], Some(&kubeconfig));
    let row = text(&table.stdout)
        .lines()
        .find(|line| line.contains("DataProcess/team/train"))
        .map(|line| line.split_whitespace().collect::<Vec<_>>().join(" "))
        .unwrap();
    assert_eq!(
        row,
        "1 DataProcess/team/train - - - node-c c 673 NodeAffinityWithCache: preferred(100): fluid.io/s-team-imagenet In [true]; preferred(50): topology.kubernetes.io/zone In [b] imagenet: hit (cache on node-c)"
    );
}

/// `pods.yaml` in `dir`: work-0 and work-1, each asking for 3 CPUs, for the what-if tests.
fn write_work_pods(dir: &std::path::Path) -> std::path::PathBuf {
    let manifest = dir.join("pods.yaml");
    let pod = |name: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default}}\nspec:\n  containers: [{{name: c, image: work, resources: {{requests: {{cpu: \"3\"}}}}}}]\n"
        )
    };
    std::fs::write(&manifest, [pod("work-0"), pod("work-1")].join("---\n")).unwrap();
    manifest
}

/// Capacity what-ifs, the node-count search (in JSON and as a table) and the plan diff read the
/// live cluster as they read a recorded one: node-a has 3.5 of its 4 CPUs free and node-b is
/// tainted, so one of two 3-CPU pods fits.
#[test]
fn capacity_questions_answer_from_the_live_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = write_work_pods(dir.path());
    let manifest = manifest.display().to_string();
    let server = cluster(Behaviour::default());
    let kubeconfig = server.kubeconfig(dir.path(), "config");
    let json = |args: &[&str]| -> (Option<i32>, serde_json::Value) {
        let args = [&["plan", "-f", manifest.as_str(), "-o", "json"][..], args].concat();
        let out = run(&args, Some(&kubeconfig));
        let value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|_| panic!("{args:?}: {}", text(&out.stderr)));
        (out.status.code(), value)
    };

    let (code, plan) = json(&[
        "--what-if",
        "untaint=selector(topology.kubernetes.io/zone=b):gpu",
    ]);
    assert_eq!(code, Some(0));
    assert_eq!(
        plan["whatIfEffect"],
        // The untainted node-b is the emptier: work-0 moves there, work-1 takes node-a.
        json!({"placed": [{"part": "Pods", "before": 1, "after": 2}], "moved": [{
            "subject": "Pod/default/work-0",
            "before": {"node": "node-a", "status": "Placed"},
            "after": {"node": "node-b", "status": "Placed"},
            "reason": null,
        }, {
            "subject": "Pod/default/work-1",
            "before": {"node": null, "status": "Pending"},
            "after": {"node": "node-a", "status": "Placed"},
            "reason": "was: 0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s)"
        }]})
    );

    let (code, count) = json(&["--how-many-nodes", "node-a"]);
    assert_eq!(code, Some(0));
    assert_eq!(
        (&count["nodes"], &count["trials"]),
        (
            &json!(1),
            &json!([{"nodes": 0, "fits": false, "unplaced": 1}, {"nodes": 1, "fits": true, "unplaced": 0}])
        )
    );

    let table = run(
        &[
            "plan",
            "-f",
            manifest.as_str(),
            "--how-many-nodes",
            "node-a",
        ],
        Some(&kubeconfig),
    );
    assert_eq!(
        (table.status.code(), text(&table.stdout)),
        (
            Some(0),
            "\
1 node like node-a makes every planned operation, gang and pod fit (0 do not).
 NODES  FITS  UNPLACED
 0      no    1
 1      yes   0
"
            .to_string()
        )
    );

    let recorded = dir.path().join("after.yaml");
    std::fs::write(
        &recorded,
        "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: node-a}, status: {allocatable: {cpu: \"4\"}}}\n- {apiVersion: v1, kind: Node, metadata: {name: node-c}, status: {allocatable: {cpu: \"4\"}}}\n",
    )
    .unwrap();
    let (code, diff) = json(&["--against", recorded.to_str().unwrap()]);
    assert_eq!(code, Some(1));
    assert_eq!(
        diff["placed"],
        json!([{"part": "Pods", "before": 1, "after": 2}])
    );
    assert_eq!(diff["moved"][0]["subject"], "Pod/default/work-1");
    assert_eq!(diff["moved"][0]["after"]["node"], "node-c");
}

/// `plan --pending` reads the Pending pods of the live cluster and plans them in queue order:
/// the critical pod first although it was created last, then team/web-1, which its required
/// anti-affinity to loader-0 keeps off node-a (where no pod of lower priority could make room)
/// and the untolerated taint off node-b.
#[test]
fn pending_mode_plans_the_live_clusters_pending_pods() {
    let dir = tempfile::tempdir().unwrap();
    let server = cluster(Behaviour::default());
    server.add(
        &PODS,
        json!({"metadata": {"name": "urgent", "namespace": "team",
            "creationTimestamp": "2030-01-01T00:00:00Z"},
        "spec": {"priorityClassName": "critical", "priority": 100000,
            "containers": [{"name": "c", "image": "urgent",
                "resources": {"requests": {"cpu": "1"}}}]},
        "status": {"phase": "Pending"}}),
    );
    let kubeconfig = server.kubeconfig(dir.path(), "config");
    let out = run(
        &["plan", "--pending", "-A", "-o", "json"],
        Some(&kubeconfig),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows: Vec<(&str, &serde_json::Value, &str)> = plan["batch"]["pods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap(),
                &p["node"],
                p["note"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("urgent", &json!("node-a"), ""),
            (
                "web-1",
                &serde_json::Value::Null,
                "pending: 0/2 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 1 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling."
            ),
        ]
    );
}

/// Issue 18's other questions from a live cluster, in table form: a Pending pod of the live
/// cluster explained at its place in the queue, and drift (`explain-placement --compare`,
/// `plan --pending --compare`) of a running pod that prefers zone b and tolerates node-b's
/// taint, yet runs on node-a.
#[test]
fn pending_pods_and_drift_explain_from_the_live_cluster() {
    let dir = tempfile::tempdir().unwrap();
    let server = cluster(Behaviour::default());
    server.add(
        &PODS,
        json!({"metadata": {"name": "misplaced-0", "namespace": "team"},
        "spec": {"nodeName": "node-a",
            "tolerations": [{"key": "gpu", "operator": "Exists", "effect": "NoSchedule"}],
            "affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 100, "preference": {"matchExpressions": [
                    {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["b"]}]}}]}},
            "containers": [{"name": "c", "image": "work",
                "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]},
        "status": {"phase": "Running"}}),
    );
    let kubeconfig = server.kubeconfig(dir.path(), "config");
    let show = |args: &[&str]| {
        let out = run(args, Some(&kubeconfig));
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };

    let (code, stdout, _) = show(&["explain-placement", "pod/web-1", "-n", "team"]);
    assert_eq!(code, Some(1));
    assert_eq!(
        stdout,
        "\
Within the scheduling queue: position 1 of 1
Notes:
  Pending in the cluster state: 0 of the queue's 1 pods and gangs come before it (priority, then creationTimestamp) and are placed first

Pod team/web-1 would stay Pending.

 REJECTED  REASON                                        NODES
 1         node(s) didn't match pod anti-affinity rules  node-a
 1         node(s) had untolerated taint(s)              node-b

0/2 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 1 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.
"
    );

    let (code, stdout, _) = show(&[
        "explain-placement",
        "pod/misplaced-0",
        "-n",
        "team",
        "--compare",
    ]);
    assert_eq!(code, Some(1));
    assert_eq!(
        stdout,
        "\
Pod team/misplaced-0 would land on node node-b (score 661).
2 of 2 nodes are feasible.
Why: it leads node-a by 201: NodeAffinity +200, NodeResourcesBalancedAllocation +9, NodeResourcesFit -8.

 NODE    SCORE  TAINTS  NODE-AFF  SPREAD  POD-AFF  FIT  BALANCED  IMAGES
 node-b  661    100     100       0       0        65   96        0
 node-a  460    100     0         0       0        73   87        0

Drift: team/misplaced-0 runs on node-a (score 460); the engine would put it on node-b (score 661) now (+201).
 PLUGIN                           WEIGHT  NODE-A (RUNS)  NODE-B (CHOSEN)  WEIGHTED DIFFERENCE
 TaintToleration                  3       100            100              +0
 NodeAffinity                     2       0              100              +200
 PodTopologySpread                2       0              0                +0
 InterPodAffinity                 2       0              0                +0
 NodeResourcesFit                 1       73             65               -8
 NodeResourcesBalancedAllocation  1       87             96               +9
 ImageLocality                    1       0              0                +0
 TOTAL                                    460            661              +201
"
    );

    let (code, stdout, _) = show(&["plan", "--pending", "--compare", "-n", "team"]);
    assert_eq!(code, Some(1));
    assert_eq!(
        stdout,
        "\
Batch (1 pod, solver greedy): 0/1 pods placed
 POD         FROM           NODE       METHOD  NOTE
 team/web-1  cluster state  <pending>  greedy  pending: 0/2 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 1 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.

Drift in namespace team: 1 of 2 running kube-scheduler pods sit where the engine would not put them now.
 POD               RUNS ON             ENGINE NOW          WHY
 team/misplaced-0  node-a (score 460)  node-b (score 661)  outscored by +201
This may mean: the pods lack a constraint the engine sees or carry one it does not model, a custom scheduler placed them, or the cluster changed since they were scheduled (labels, taints, other pods).
"
    );
}

/// ResourceQuotas and LimitRanges served by the live cluster stop pods as the recorded ones
/// do: namespace team holds two non-terminal pods (loader-0 running, web-1 Pending) of its
/// quota's three, so of two new pods the first is admitted with the LimitRange's defaults
/// (200m requested, 500m limit: within the `type: Pod` maximum) and the second is rejected;
/// a pod whose containers' limits sum past that maximum is rejected by LimitRanger first.
#[test]
fn live_quotas_and_limit_ranges_reject_pods() {
    let dir = tempfile::tempdir().unwrap();
    let server = cluster(Behaviour::default());
    server.add(
        &LIMIT_RANGES,
        json!({"metadata": {"name": "bounds", "namespace": "team"},
        "spec": {"limits": [
            {"type": "Container", "default": {"cpu": "500m"}, "defaultRequest": {"cpu": "200m"}},
            {"type": "Pod", "max": {"cpu": "2"}}]}}),
    );
    server.add(
        &RESOURCE_QUOTAS,
        json!({"metadata": {"name": "team-pods", "namespace": "team"},
        "spec": {"hard": {"pods": "3"}}}),
    );
    let manifest = dir.path().join("pods.yaml");
    let pod = |name: &str, containers: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: team}}\nspec:\n  containers: {containers}\n"
        )
    };
    std::fs::write(
        &manifest,
        [
            pod(
                "wide",
                "[{name: a, image: w, resources: {limits: {cpu: 1500m}}}, {name: b, image: w, resources: {limits: {cpu: '1'}}}]",
            ),
            pod("first", "[{name: c, image: w}]"),
            pod("second", "[{name: c, image: w}]"),
        ]
        .join("---\n"),
    )
    .unwrap();
    let kubeconfig = server.kubeconfig(dir.path(), "config");
    let out = run(
        &["plan", "-f", manifest.to_str().unwrap()],
        Some(&kubeconfig),
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "\
Batch (3 pods, solver greedy): 1/3 pods placed
 POD          FROM        NODE       METHOD  NOTE
 team/wide    Pod/wide    <pending>  greedy  rejected at admission: pods \"wide\" is forbidden: maximum cpu usage per Pod is 2, but limit is 2500m
 team/first   Pod/first   node-a     greedy  LimitRange bounds: LimitRanger plugin set: cpu request for container c; cpu limit for container c
 team/second  Pod/second  <pending>  greedy  rejected at admission: pods \"second\" is forbidden: exceeded quota: team-pods, requested: pods=1, used: pods=3, limited: pods=3
"
    );
}

/// Every `--what-if` verb, with node names and `selector(...)`, edits the state read live as
/// it edits a recorded one, in order: node-a's copy is made after node-a is labelled (so it has
/// the label), then node-a is cordoned and removed, the copy tainted through the selector and
/// untainted and unlabelled by name, node-b drained. Only the copy is left for the two 3-CPU
/// pods: work-0 moves there from node-a, work-1 stays pending.
#[test]
fn every_what_if_verb_edits_the_live_state() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = write_work_pods(dir.path());
    let server = cluster(Behaviour::default());
    let kubeconfig = server.kubeconfig(dir.path(), "config");
    let edits = [
        "label=selector(topology.kubernetes.io/zone=a):disk=ssd",
        "add=1:like=node-a",
        "cordon=node-a",
        "taint=selector(disk=ssd):dedicated=x:NoSchedule",
        "untaint=node-a-whatif-1:dedicated",
        "unlabel=node-a-whatif-1:disk",
        "drain=selector(topology.kubernetes.io/zone in (b))",
        "remove=node-a",
    ];
    let mut args = vec!["plan", "-f", manifest.to_str().unwrap()];
    for edit in &edits {
        args.extend(["--what-if", edit]);
    }
    let table = run(&args, Some(&kubeconfig));
    assert_eq!(
        (table.status.code(), text(&table.stdout)),
        (
            Some(1),
            "\
Batch (2 pods, solver greedy): 1/2 pods placed
 POD             FROM        NODE             METHOD  NOTE
 default/work-0  Pod/work-0  node-a-whatif-1  greedy  -
 default/work-1  Pod/work-1  <pending>        greedy  pending: 0/2 nodes are available: 1 Insufficient cpu, 1 node(s) were unschedulable. no new claims to deallocate, preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.

What-if effect (placed: Pods 1 -> 1)
 SUBJECT             BEFORE  AFTER            REASON
 Pod/default/work-0  node-a  node-a-whatif-1  -
"
            .to_string()
        )
    );
    args.extend(["-o", "json"]);
    let out = run(&args, Some(&kubeconfig));
    let plan: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        plan["whatIfEffect"],
        json!({"placed": [{"part": "Pods", "before": 1, "after": 1}], "moved": [{
            "subject": "Pod/default/work-0",
            "before": {"node": "node-a", "status": "Placed"},
            "after": {"node": "node-a-whatif-1", "status": "Placed"},
            "reason": null,
        }]})
    );
}
