//! A redacted snapshot is a state that places pods exactly like the original: every name,
//! label key and value is hashed the same way wherever it appears, so the engine and the
//! planner give the same answers, renamed.

use df_engine::{Profile, Profiles, Scheduler};
use df_state::ClusterState;
use df_state::recorded::parse_state;
use df_state::snapshot::{Format, RedactKey, Redaction, render};

fn testdata(path: &str) -> String {
    format!("{}/../../testdata/{path}", env!("CARGO_MANIFEST_DIR"))
}

/// The key of the tests: bytes 0..16.
const KEY: &str = "000102030405060708090a0b0c0d0e0f";

fn redaction(state: &ClusterState) -> Redaction {
    Redaction::new(RedactKey::parse(KEY).unwrap(), state)
}

fn redacted(state: &ClusterState) -> ClusterState {
    let text = render(state, Format::Json, Some(&redaction(state))).unwrap();
    ClusterState::from_objects(parse_state("snap", text.as_bytes()).unwrap())
}

/// The three-zone cluster with the bundled flows as operations waiting in it, and pending
/// pods that use every kind of reference: a toleration of the tainted node, spread and
/// anti-affinity over a custom rack key, a `Gt` node selector, a node name pin.
fn busy_cluster() -> ClusterState {
    let cluster = std::fs::read(testdata("clusters/three-zone.yaml")).unwrap();
    let mut objects = parse_state("three-zone.yaml", &cluster).unwrap();
    let flows = [
        testdata("flows/three-step.yaml"),
        testdata("flows/fan-out.yaml"),
    ];
    let set = df_manifest::load(&flows, false).unwrap();
    objects.extend(set.manifests.into_iter().map(|m| m.object));
    let pods = r#"{"apiVersion": "v1", "kind": "List", "items": [
  {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "batch-high"}, "value": 1000},
  {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "db", "namespace": "default"},
   "spec": {"selector": {"matchLabels": {"app": "db"}}}},
  {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "db-2", "namespace": "default", "labels": {"app": "db"}},
   "spec": {"priorityClassName": "batch-high", "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "database", "effect": "NoSchedule"}],
        "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
          {"matchExpressions": [{"key": "node.example.com/cpu-generation", "operator": "Gt", "values": ["3"]}]}]}},
          "podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": "db"}}, "topologyKey": "topology.example.com/rack"}]}},
        "containers": [{"name": "pg", "image": "postgres", "resources": {"requests": {"cpu": "1"}}}]},
   "status": {"phase": "Pending"}},
  {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web-1", "namespace": "default", "labels": {"app": "web"}},
   "spec": {"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.example.com/rack",
          "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "web"}}}],
        "containers": [{"name": "nginx", "image": "nginx:1.25", "resources": {"requests": {"cpu": "500m"}}}]},
   "status": {"phase": "Pending"}},
  {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "pinned", "namespace": "default"},
   "spec": {"priorityClassName": "system-cluster-critical", "nodeSelector": {"topology.example.com/rack": "rack-b1"},
        "containers": [{"name": "c", "image": "busybox"}]},
   "status": {"phase": "Pending"}}
]}"#;
    objects.extend(parse_state("pods.json", pods.as_bytes()).unwrap());
    ClusterState::from_objects(objects)
}

#[test]
fn a_redacted_snapshot_plans_and_explains_the_same_placements() {
    // Compared with the unredacted snapshot: a snapshot lists objects sorted, and the
    // engine plans in list order, so the snapshot (not the input files) is the reference.
    let original = busy_cluster();
    let text = render(&original, Format::Json, None).unwrap();
    let state = ClusterState::from_objects(parse_state("snap", text.as_bytes()).unwrap());
    let r = redaction(&state);
    let hidden = redacted(&state);
    // Priority classes: the custom one hashed on the class and its pod, the system one kept.
    let class = r.value("batch-high");
    assert!(!class.contains("batch"));
    assert_eq!(hidden.priority_classes[0].metadata.name, class);
    let classes: Vec<&str> = hidden
        .pods
        .iter()
        .map(|p| p.spec.priority_class_name.as_str())
        .filter(|c| !c.is_empty())
        .collect();
    assert!(
        classes
            .iter()
            .all(|c| c.starts_with("system-") || c.starts_with('x')),
        "{classes:?}"
    );
    assert!(classes.contains(&class.as_str()) && classes.contains(&"system-cluster-critical"));
    assert_eq!(
        hidden.pod_disruption_budgets[0].metadata.name,
        r.value("db")
    );
    let name = |value: &Option<String>| value.as_deref().map(|v| r.value(v));
    // plan: every operation has the same status, node (renamed) and score.
    let plan_of = |state: &ClusterState| {
        let nothing = df_manifest::ManifestSet::default();
        let opts = df_plan::PlanOptions::default();
        df_plan::plan_all(&nothing, state, Profiles::default(), &opts).unwrap()
    };
    let (plan, hidden_plan) = (plan_of(&state), plan_of(&hidden));
    assert_eq!(plan.operations.len(), 15);
    assert_eq!(hidden_plan.operations.len(), plan.operations.len());
    for op in &plan.operations {
        let twin = hidden_plan
            .operations
            .iter()
            .find(|h| h.name == r.value(&op.name) && h.namespace == r.value(&op.namespace))
            .unwrap_or_else(|| panic!("{} missing", op.name));
        assert_eq!(twin.status, op.status, "{}", op.name);
        assert_eq!(twin.node, name(&op.node), "{}", op.name);
        assert_eq!(twin.score, op.score, "{}", op.name);
        assert_eq!(twin.zone, name(&op.zone), "{}", op.name);
    }
    assert!(plan.operations.iter().any(|op| op.node.is_some()));
    // explain: every pending pod gets the same node, or the same reason it fits none.
    let mut placed = 0;
    for pod in state
        .pods
        .iter()
        .filter(|p| p.spec.node_name.is_empty() && !p.is_terminated())
    {
        let twin = hidden
            .pods
            .iter()
            .find(|h| h.metadata.name == r.value(&pod.metadata.name))
            .unwrap();
        let original = Scheduler::new(&state, Profile::default()).decide(pod);
        let redacted = Scheduler::new(&hidden, Profile::default()).decide(twin);
        match (original.selected, redacted.selected) {
            (Some(node), Some(twin_node)) => {
                assert_eq!(twin_node, r.value(&node), "{}", pod.metadata.name);
                placed += 1;
            }
            (None, None) => {
                assert_eq!(redacted.summary, original.summary, "{}", pod.metadata.name);
            }
            (a, b) => panic!("{}: {a:?} vs {b:?}", pod.metadata.name),
        }
    }
    assert!(placed >= 3, "{placed}");
}
