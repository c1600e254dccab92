//! Scheduler-level conformance tables (summary, ties, assume/forget, filter order), and the
//! helpers every plugin's table tests build their clusters and pods with.

use std::sync::Arc;

use super::*;
use df_model::Object;

pub(super) fn objects(yaml: &str) -> Vec<Object> {
    let (manifests, problems) = df_manifest::parse_text(&Arc::from("t.yaml"), yaml);
    assert!(problems.is_empty(), "{problems:?}");
    manifests.into_iter().map(|m| m.object).collect()
}

pub(super) fn state(yaml: &str) -> ClusterState {
    ClusterState::from_objects(objects(yaml))
}

pub(super) fn pod(yaml: &str) -> Pod {
    let text = format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: incoming\n  namespace: default\n{yaml}"
    );
    match objects(&text).pop() {
        Some(Object::Pod(p)) => p,
        other => panic!("{other:?}"),
    }
}

/// Nodes named n1..nN with the given label lines, 4 CPUs, 8Gi, 110 pods.
pub(super) fn nodes(labels: &[&str]) -> String {
    labels
        .iter()
        .enumerate()
        .map(|(i, l)| {
            format!(
                "apiVersion: v1\nkind: Node\nmetadata:\n  name: n{}\n  labels: {{kubernetes.io/hostname: n{}, {l}}}\nstatus:\n  allocatable: {{cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n---\n",
                i + 1,
                i + 1
            )
        })
        .collect()
}

/// A running pod on `node`; `extra` adds spec lines (a default container unless it has some).
pub(super) fn running(name: &str, node: &str, labels: &str, extra: &str) -> String {
    let containers = if extra.contains("containers:") {
        ""
    } else {
        "  containers: [{name: c}]\n"
    };
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: default\n  labels: {{{labels}}}\nspec:\n  nodeName: {node}\n{containers}{extra}status:\n  phase: Running\n---\n"
    )
}

/// A pod as [`running`] puts it, being deleted (`metadata.deletionTimestamp`).
pub(super) fn terminating(name: &str, node: &str, labels: &str, extra: &str) -> String {
    running(name, node, labels, extra).replace(
        "  namespace: default\n",
        "  namespace: default\n  deletionTimestamp: \"2024-05-01T10:00:00Z\"\n",
    )
}

/// A PersistentVolumeClaim in `default`: `meta` adds metadata fields (`, annotations: {...}`),
/// `spec` is the body of its spec's flow mapping.
pub(super) fn claim(name: &str, meta: &str, spec: &str) -> String {
    format!(
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {{name: {name}, namespace: default{meta}}}\nspec: {{{spec}}}\n---\n"
    )
}

/// A PersistentVolume in `phase`: `meta` adds metadata fields, `spec` is its spec's body.
pub(super) fn volume(name: &str, meta: &str, spec: &str, phase: &str) -> String {
    format!(
        "apiVersion: v1\nkind: PersistentVolume\nmetadata: {{name: {name}{meta}}}\nspec: {{{spec}}}\nstatus: {{phase: {phase}}}\n---\n"
    )
}

/// A StorageClass with its binding mode and provisioner; `extra` adds top-level fields.
pub(super) fn class(name: &str, mode: &str, provisioner: &str, extra: &str) -> String {
    format!(
        "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {{name: {name}}}\nprovisioner: {provisioner}\nvolumeBindingMode: {mode}\n{extra}---\n"
    )
}

/// Pod spec lines with one container and `volumes` (flow mappings, one per list item).
pub(super) fn with_volumes(volumes: &[&str]) -> String {
    let mut spec = String::from("spec:\n  containers: [{name: c}]\n  volumes:\n");
    for (i, v) in volumes.iter().enumerate() {
        spec += &format!("  - {{name: v{i}, {v}}}\n");
    }
    spec
}

/// A pod volume using claim `name`.
pub(super) fn uses(name: &str) -> String {
    format!("persistentVolumeClaim: {{claimName: {name}}}")
}

/// `node: reason` for infeasible nodes, `node` for feasible ones.
pub(super) fn verdicts(decision: &Decision) -> Vec<String> {
    decision
        .nodes
        .iter()
        .map(|v| {
            if v.feasible {
                v.name.to_string()
            } else {
                format!("{}: {}", v.name, v.reasons.join("; "))
            }
        })
        .collect()
}

pub(super) fn decide(state_yaml: &str, pod_yaml: &str) -> Decision {
    decide_on(
        crate::versions::KubeVersion::DEFAULT.minor,
        state_yaml,
        pod_yaml,
    )
}

/// [`decide`] by the scheduler of Kubernetes `1.<minor>`.
pub(super) fn decide_on(minor: u32, state_yaml: &str, pod_yaml: &str) -> Decision {
    let state = state(state_yaml);
    let profile = Profile {
        version: crate::versions::KubeVersion { minor },
        ..Profile::default()
    };
    Scheduler::new(&state, profile).decide(&pod(pod_yaml))
}

/// Each node's failure reasons, joined, in node order (empty for a feasible node).
pub(super) fn reasons(decision: &Decision) -> Vec<String> {
    decision
        .nodes
        .iter()
        .map(|v| v.reasons.join("; "))
        .collect()
}

pub(super) fn scores(decision: &Decision, plugin: &str) -> Vec<i64> {
    decision
        .nodes
        .iter()
        .filter(|v| v.feasible)
        .map(|v| v.scores[plugin])
        .collect()
}

#[test]
fn invalid_selectors_are_explained_not_crashed_on() {
    let decision = decide(
        &nodes(&["zone: a"]),
        "spec:\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions: [{key: gpus, operator: Gt, values: [lots]}]\n      preferredDuringSchedulingIgnoredDuringExecution:\n      - weight: 101\n        preference:\n          matchExpressions: [{key: zone, operator: In, values: [a]}]\n",
    );
    assert_eq!(decision.selected, None);
    assert_eq!(
        decision.problems,
        [
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]: operator Gt needs an integer value, got \"lots\"",
            "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].weight: must be in 1..100, got 101",
        ]
    );
}

#[test]
fn unschedulable_summary_counts_reasons_string_sorted() {
    let cluster = "apiVersion: v1\nkind: Node\nmetadata: {name: a, labels: {zone: x}}\nstatus: {allocatable: {cpu: 100m, memory: 1Gi, pods: \"10\"}}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: b, labels: {zone: y}}\nspec: {unschedulable: true}\nstatus: {allocatable: {cpu: \"4\", memory: 1Gi, pods: \"10\"}}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: c, labels: {zone: y}}\nstatus: {allocatable: {cpu: \"4\", memory: 1Gi, pods: \"10\"}}\n";
    let decision = decide(
        cluster,
        "spec:\n  nodeSelector: {zone: x}\n  containers: [{name: c, resources: {requests: {cpu: \"1\", memory: 2Gi}}}]\n",
    );
    assert_eq!(decision.selected, None);
    assert_eq!(
        decision.summary.as_deref(),
        Some(
            "0/3 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) were unschedulable."
        )
    );
}

#[test]
fn ties_pick_the_smallest_name_and_are_reported() {
    let decision = decide(&nodes(&["zone: a", "zone: a", "zone: a"]), "spec: {}\n");
    assert_eq!(decision.selected.as_deref(), Some("n1"));
    assert_eq!(decision.tied, ["n1", "n2", "n3"]);
}

#[test]
fn assumed_pods_count_for_later_decisions_and_can_be_forgotten() {
    let state = state(&nodes(&["zone: a", "zone: b"]));
    let mut scheduler = Scheduler::new(&state, Profile::default());
    let replica = |name: &str| {
        let mut p = pod(
            "  labels: {app: web}\nspec:\n  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {matchLabels: {app: web}}\n        topologyKey: zone\n  containers: [{name: c, resources: {requests: {cpu: \"1\"}}}]\n",
        );
        p.metadata.name = name.into();
        p
    };
    let first = scheduler.decide(&replica("web-0"));
    assert_eq!(first.selected.as_deref(), Some("n1"));
    scheduler.assume(replica("web-0"), "n1");
    let second = scheduler.decide(&replica("web-1"));
    assert_eq!(
        verdicts(&second),
        ["n1: node(s) didn't match pod anti-affinity rules", "n2"]
    );
    scheduler.assume(replica("web-1"), "n2");
    assert_eq!(scheduler.decide(&replica("web-2")).selected, None);
    assert!(scheduler.forget("default", "web-0"));
    assert_eq!(
        scheduler.decide(&replica("web-2")).selected.as_deref(),
        Some("n1")
    );
    assert!(!scheduler.forget("default", "nope"));
}

#[test]
fn filters_stop_at_the_first_failure_in_upstream_order() {
    let cluster = "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {zone: a}}\nspec: {unschedulable: true, taints: [{key: k, effect: NoSchedule}]}\nstatus: {allocatable: {cpu: \"1\", memory: 1Gi, pods: \"10\"}}\n";
    let decision = decide(cluster, "spec:\n  nodeSelector: {zone: b}\n");
    assert_eq!(decision.nodes[0].failed_plugin, Some("NodeUnschedulable"));
    let state = state(cluster);
    let scheduler = Scheduler::new(&state, Profile::default());
    let incoming = pod("spec:\n  nodeSelector: {zone: b}\n");
    let detail = explain_node(&scheduler, &incoming, "n1");
    let failed: Vec<&str> = detail
        .filters
        .iter()
        .filter(|f| !f.passed)
        .map(|f| f.plugin)
        .collect();
    assert_eq!(
        failed,
        ["NodeUnschedulable", "TaintToleration", "NodeAffinity"]
    );
    assert_eq!(detail.filters[2].detail, "untolerated taint k=:NoSchedule");
    // A node that reports no pod capacity gets the kubelet's default, in the filter and its detail.
    let no_pod_count = super::tests::state(
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus: {allocatable: {cpu: \"1\", memory: 1Gi}}\n",
    );
    let scheduler = Scheduler::new(&no_pod_count, Profile::default());
    let incoming = pod("spec: {}\n");
    let detail = explain_node(&scheduler, &incoming, "n1");
    assert!(
        detail.filters[5].detail.ends_with("; pods 0 of 110"),
        "{}",
        detail.filters[5].detail
    );
}

/// What explain shows for `node`: every filter's verdict and score, from the decision's own
/// plugin calls over every node.
pub(crate) fn explain_node(scheduler: &Scheduler, pod: &Pod, node: &str) -> NodeDetail {
    let (_, detail) = scheduler.decide_explained(pod, None, node).unwrap();
    detail
}
