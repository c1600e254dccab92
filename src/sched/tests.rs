//! Conformance tables: the behaviour of upstream's plugin tests, in our own cases and data.

use std::sync::Arc;

use super::*;
use crate::manifest;
use crate::model::Object;

fn objects(yaml: &str) -> Vec<Object> {
    let (manifests, problems) = manifest::parse_text(&Arc::from("t.yaml"), yaml);
    assert!(problems.is_empty(), "{problems:?}");
    manifests.into_iter().map(|m| m.object).collect()
}

fn state(yaml: &str) -> ClusterState {
    ClusterState::from_objects(objects(yaml))
}

fn pod(yaml: &str) -> Pod {
    let text = format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: incoming\n  namespace: default\n{yaml}"
    );
    match objects(&text).pop() {
        Some(Object::Pod(p)) => p,
        other => panic!("{other:?}"),
    }
}

/// Nodes named n1..nN with the given label lines, 4 CPUs, 8Gi, 110 pods.
fn nodes(labels: &[&str]) -> String {
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
fn running(name: &str, node: &str, labels: &str, extra: &str) -> String {
    let containers = if extra.contains("containers:") {
        ""
    } else {
        "  containers: [{name: c}]\n"
    };
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: default\n  labels: {{{labels}}}\nspec:\n  nodeName: {node}\n{containers}{extra}status:\n  phase: Running\n---\n"
    )
}

/// `node: reason` for infeasible nodes, `node` for feasible ones.
fn verdicts(decision: &Decision) -> Vec<String> {
    decision
        .nodes
        .iter()
        .map(|v| {
            if v.feasible {
                v.name.clone()
            } else {
                format!("{}: {}", v.name, v.reasons.join("; "))
            }
        })
        .collect()
}

fn decide(state_yaml: &str, pod_yaml: &str) -> Decision {
    let state = state(state_yaml);
    Scheduler::new(&state, Profile::default()).decide(&pod(pod_yaml))
}

fn scores(decision: &Decision, plugin: &str) -> Vec<i64> {
    decision
        .nodes
        .iter()
        .filter(|v| v.feasible)
        .map(|v| v.scores[plugin])
        .collect()
}

#[test]
fn node_affinity_filter() {
    let cluster = nodes(&["zone: a, gpus: \"2\"", "zone: b, gpus: \"8\"", "zone: c"]);
    let miss = "node(s) didn't match Pod's node affinity/selector";
    let cases: &[(&str, &str, Vec<String>)] = &[
        (
            "no constraints",
            "spec: {}\n",
            vec!["n1".into(), "n2".into(), "n3".into()],
        ),
        (
            "nodeSelector",
            "spec:\n  nodeSelector: {zone: b}\n",
            vec![format!("n1: {miss}"), "n2".into(), format!("n3: {miss}")],
        ),
        (
            "In",
            "spec:\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions: [{key: zone, operator: In, values: [a, c]}]\n",
            vec!["n1".into(), format!("n2: {miss}"), "n3".into()],
        ),
        (
            "NotIn is true on absent keys",
            "spec:\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions: [{key: gpus, operator: NotIn, values: [\"2\"]}]\n",
            vec![format!("n1: {miss}"), "n2".into(), "n3".into()],
        ),
        (
            "Gt",
            "spec:\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions: [{key: gpus, operator: Gt, values: [\"4\"]}]\n",
            vec![format!("n1: {miss}"), "n2".into(), format!("n3: {miss}")],
        ),
        (
            "DoesNotExist",
            "spec:\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions: [{key: gpus, operator: DoesNotExist}]\n",
            vec![format!("n1: {miss}"), format!("n2: {miss}"), "n3".into()],
        ),
        (
            "terms are ORed",
            "spec:\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions: [{key: zone, operator: In, values: [a]}]\n        - matchFields: [{key: metadata.name, operator: In, values: [n3]}]\n",
            vec!["n1".into(), format!("n2: {miss}"), "n3".into()],
        ),
        (
            "an empty term matches nothing",
            "spec:\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - {}\n",
            vec![
                format!("n1: {miss}"),
                format!("n2: {miss}"),
                format!("n3: {miss}"),
            ],
        ),
        (
            "nodeSelector and affinity must both hold",
            "spec:\n  nodeSelector: {zone: a}\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions: [{key: zone, operator: In, values: [b]}]\n",
            vec![
                format!("n1: {miss}"),
                format!("n2: {miss}"),
                format!("n3: {miss}"),
            ],
        ),
    ];
    for (name, spec, want) in cases {
        assert_eq!(&verdicts(&decide(&cluster, spec)), want, "{name}");
    }
}

/// Upstream node_affinity_test.go (PreFilter) and schedule_one_test.go (findNodesThatFitPod):
/// `matchFields: metadata.name In` in every required term narrows the candidates before any
/// filter runs; nodes left out get one status, counted in the summary; names that cannot all
/// hold reject the pod at PreFilter, said once. (The API allows one name per requirement, so
/// several nodes are named by several terms.)
#[test]
fn node_affinity_pre_filter_narrows_by_node_name() {
    let mut cluster = nodes(&["zone: a", "zone: b", "zone: a", "zone: b"]);
    // n3 is cordoned: left out at PreFilter, it is not reported as unschedulable.
    cluster = cluster.replacen(
        "name: n3\n  labels: {kubernetes.io/hostname: n3, zone: a}\n",
        "name: n3\n  labels: {kubernetes.io/hostname: n3, zone: a}\nspec: {unschedulable: true}\n",
        1,
    );
    assert!(cluster.contains("unschedulable"));
    let term = |fields: &str, expressions: &str| {
        let mut term = format!("        - matchFields: [{fields}]\n");
        if !expressions.is_empty() {
            term += &format!("          matchExpressions: [{expressions}]\n");
        }
        term
    };
    let required = |terms: &[String]| {
        format!(
            "spec:\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n{}",
            terms.concat()
        )
    };
    let names = |list: &str| format!("{{key: metadata.name, operator: In, values: [{list}]}}");
    let left_out = "node(s) didn't satisfy plugin(s) [NodeAffinity]";
    let miss = "node(s) didn't match Pod's node affinity/selector";
    let conflict = "pod affinity terms conflict";
    let cases: Vec<(&str, String, [&str; 4], Option<String>)> = vec![
        (
            "named nodes are filtered, the rest left out",
            required(&[
                term(&names("n1"), "{key: zone, operator: In, values: [a]}"),
                term(&names("n2"), "{key: zone, operator: In, values: [a]}"),
            ]),
            ["", miss, left_out, left_out],
            None,
        ),
        (
            "terms are ORed: the union of their names",
            required(&[
                term(&names("n1"), ""),
                term(&names("n4"), ""),
                term(&names("ghost"), ""),
            ]),
            ["", left_out, left_out, ""],
            None,
        ),
        (
            "a term without names lets every node through to the filter",
            required(&[
                term(&names("n1"), ""),
                "        - matchExpressions: [{key: zone, operator: In, values: [b]}]\n".into(),
            ]),
            ["", "", "node(s) were unschedulable", ""],
            None,
        ),
        (
            "names of no existing node leave every node out",
            required(&[term(&names("ghost"), "")]),
            [left_out, left_out, left_out, left_out],
            Some(format!("0/4 nodes are available: 4 {left_out}.")),
        ),
        (
            "requirements in one term are ANDed: no common name is a conflict",
            required(&[term(&format!("{}, {}", names("n1"), names("n2")), "")]),
            [conflict, conflict, conflict, conflict],
            Some(format!("0/4 nodes are available: {conflict}.")),
        ),
        (
            "explicit and left-out statuses add up in the summary",
            required(&[
                term(&names("n1"), "{key: zone, operator: In, values: [c]}"),
                term(&names("n2"), "{key: zone, operator: In, values: [c]}"),
            ]),
            [miss, miss, left_out, left_out],
            Some(format!("0/4 nodes are available: 2 {miss}, 2 {left_out}.")),
        ),
    ];
    for (name, spec, want, summary) in cases {
        let decision = decide(&cluster, &spec);
        let got: Vec<String> = decision
            .nodes
            .iter()
            .map(|v| v.reasons.join("; "))
            .collect();
        assert_eq!(got, want, "{name}");
        assert_eq!(decision.summary, summary, "{name}");
    }
    // explain --node shows the PreFilter verdict alone: no filter ran on a left-out node.
    let state = state(&cluster);
    let scheduler = Scheduler::new(&state, Profile::default());
    let incoming = pod(&required(&[term(&names("n1"), "")]));
    let decision = scheduler.decide(&incoming);
    let detail = scheduler.explain_node(&incoming, "n3", &decision).unwrap();
    assert_eq!(detail.filters.len(), 1);
    assert_eq!(detail.filters[0].plugin, "NodeAffinity");
    assert_eq!(detail.filters[0].reasons, [left_out]);
    assert_eq!(
        detail.filters[0].detail,
        "PreFilter: required terms name only node(s) n1"
    );
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
fn node_affinity_score_normalises_by_the_best_node() {
    let cluster = nodes(&["zone: a, disk: ssd", "zone: a", "zone: b"]);
    let decision = decide(
        &cluster,
        "spec:\n  affinity:\n    nodeAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n      - weight: 2\n        preference:\n          matchExpressions: [{key: zone, operator: In, values: [a]}]\n      - weight: 3\n        preference:\n          matchExpressions: [{key: disk, operator: Exists}]\n",
    );
    assert_eq!(scores(&decision, "NodeAffinity"), [100, 40, 0]);
    assert_eq!(decision.selected.as_deref(), Some("n1"));
    // No preferred terms: every node scores 0.
    assert_eq!(
        scores(&decide(&cluster, "spec: {}\n"), "NodeAffinity"),
        [0, 0, 0]
    );
}

#[test]
fn taint_toleration_filter_and_score() {
    let cluster = "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: n1}, spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}}\n- {apiVersion: v1, kind: Node, metadata: {name: n2}, spec: {taints: [{key: a, effect: PreferNoSchedule}, {key: b, effect: PreferNoSchedule}]}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}}\n- {apiVersion: v1, kind: Node, metadata: {name: n3}, spec: {taints: [{key: a, effect: PreferNoSchedule}]}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}}\n- {apiVersion: v1, kind: Node, metadata: {name: n4}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}}\n";
    let untolerated = "node(s) had untolerated taint(s)";
    let cases: &[(&str, &str, &str)] = &[
        ("no tolerations", "spec: {}\n", untolerated),
        (
            "Equal with the right value",
            "spec:\n  tolerations: [{key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}]\n",
            "",
        ),
        (
            "Equal with another value",
            "spec:\n  tolerations: [{key: dedicated, value: cpu}]\n",
            untolerated,
        ),
        (
            "Exists on the key",
            "spec:\n  tolerations: [{key: dedicated, operator: Exists}]\n",
            "",
        ),
        (
            "Exists without a key tolerates everything",
            "spec:\n  tolerations: [{operator: Exists}]\n",
            "",
        ),
        (
            "wrong effect",
            "spec:\n  tolerations: [{key: dedicated, operator: Exists, effect: NoExecute}]\n",
            untolerated,
        ),
    ];
    for (name, spec, want) in cases {
        let decision = decide(cluster, spec);
        assert_eq!(decision.nodes[0].reasons.join(""), *want, "{name}");
        assert!(
            decision.nodes[1..].iter().all(|v| v.feasible),
            "{name}: PreferNoSchedule never filters"
        );
    }
    // Two, one and zero untolerated PreferNoSchedule taints, reversed: 0, 50, 100.
    assert_eq!(
        scores(&decide(cluster, "spec: {}\n"), "TaintToleration"),
        [0, 50, 100]
    );
    let tolerate_a = decide(
        cluster,
        "spec:\n  tolerations: [{key: a, operator: Exists, effect: PreferNoSchedule}]\n",
    );
    assert_eq!(scores(&tolerate_a, "TaintToleration"), [0, 100, 100]);
}

#[test]
fn resources_fit_filter_reasons() {
    let cluster = format!(
        "{}{}{}",
        "apiVersion: v1\nkind: Node\nmetadata: {name: small}\nstatus: {allocatable: {cpu: \"1\", memory: 1Gi, pods: \"2\"}}\n---\n",
        "apiVersion: v1\nkind: Node\nmetadata: {name: gpu}\nstatus: {allocatable: {cpu: \"8\", memory: 32Gi, pods: \"110\", nvidia.com/gpu: \"4\"}}\n---\n",
        running("existing", "small", "app: x", "")
            + &running(
                "existing2",
                "gpu",
                "app: x",
                "  overhead: {nvidia.com/gpu: \"3\"}\n"
            )
    );
    let cases: &[(&str, &str, [&str; 2])] = &[
        (
            "fits",
            "spec:\n  containers: [{name: c, resources: {requests: {cpu: 500m}}}]\n",
            ["", ""],
        ),
        (
            "cpu and memory both short",
            "spec:\n  containers: [{name: c, resources: {requests: {cpu: \"2\", memory: 2Gi}}}]\n",
            ["Insufficient cpu; Insufficient memory", ""],
        ),
        (
            "init container is the peak",
            "spec:\n  initContainers: [{name: i, resources: {requests: {cpu: \"3\"}}}]\n  containers: [{name: c, resources: {requests: {cpu: 100m}}}]\n",
            ["Insufficient cpu", ""],
        ),
        (
            "extended resources",
            "spec:\n  containers: [{name: c, resources: {limits: {nvidia.com/gpu: \"2\"}}}]\n",
            ["Insufficient nvidia.com/gpu", "Insufficient nvidia.com/gpu"],
        ),
    ];
    for (name, spec, want) in cases {
        let decision = decide(&cluster, spec);
        let got: Vec<String> = decision
            .nodes
            .iter()
            .map(|v| v.reasons.join("; "))
            .collect();
        assert_eq!(got, want, "{name}");
    }
    let full = format!("{cluster}{}", running("third", "small", "app: y", ""));
    assert_eq!(
        decide(&full, "spec: {}\n").nodes[0].reasons,
        ["Too many pods"]
    );
}

#[test]
fn resource_scores_least_allocated_and_balanced() {
    let cluster = nodes(&["zone: a", "zone: b"])
        + &running(
            "busy",
            "n2",
            "app: x",
            "  containers: [{name: c, resources: {requests: {cpu: \"2\", memory: 1Gi}}}]\n",
        );
    let decision = decide(
        &cluster,
        "spec:\n  containers: [{name: c, resources: {requests: {cpu: \"1\", memory: 2Gi}}}]\n",
    );
    // n1: cpu (4-1)/4 = 75, memory (8-2)/8 = 75 -> 75; balanced: |0.25 - 0.25| -> 100.
    // n2: cpu (4-3)/4 = 25, memory (8-3)/8 = 62 -> 43; balanced: |0.75 - 0.375|/2 -> 81.
    assert_eq!(scores(&decision, "NodeResourcesFit"), [75, 43]);
    assert_eq!(
        scores(&decision, "NodeResourcesBalancedAllocation"),
        [100, 81]
    );
    // Best-effort pods: non-zero defaults for the fit score, no balanced score at all.
    let best_effort = decide(&cluster, "spec:\n  containers: [{name: c}]\n");
    assert_eq!(
        scores(&best_effort, "NodeResourcesBalancedAllocation"),
        [0, 0]
    );
    // n1: cpu (4000-100)/4000 = 97, memory (8192-200)/8192 = 97.
    // n2: cpu (4000-2100)/4000 = 47, memory (8192-1224)/8192 = 85 -> 66.
    assert_eq!(scores(&best_effort, "NodeResourcesFit"), [97, 66]);
}

/// Upstream fit_test.go / balanced_allocation_test.go with pod-level resources (v1.34, on by
/// default): the filter and the node's ledger read `spec.resources`, BalancedAllocation reads
/// it, NodeResourcesFit's score does not (its scorer is built without the feature).
#[test]
fn pod_level_resources_where_upstream_reads_them() {
    let pod_level = "  resources: {requests: {cpu: \"3\", memory: 1Gi}}\n";
    let cluster = nodes(&["zone: a", "zone: b"])
        + &running(
            "pod-level",
            "n2",
            "app: x",
            &format!(
                "  containers: [{{name: c, resources: {{requests: {{cpu: 500m}}}}}}]\n{pod_level}"
            ),
        );
    let cases: &[(&str, String, [&str; 2])] = &[
        (
            "pod-level requests replace the containers' sum in the filter",
            "spec:\n  containers: [{name: c, resources: {requests: {cpu: 100m}}}]\n  resources: {requests: {cpu: \"4500m\"}}\n".into(),
            ["Insufficient cpu", "Insufficient cpu"],
        ),
        (
            "an existing pod holds its pod-level requests (3 of 4 CPUs)",
            "spec:\n  containers: [{name: c, resources: {requests: {cpu: \"2\"}}}]\n".into(),
            ["", "Insufficient cpu"],
        ),
        (
            "overhead is added to pod-level requests",
            "spec:\n  containers: [{name: c}]\n  resources: {requests: {cpu: \"3900m\"}}\n  overhead: {cpu: 200m}\n".into(),
            ["Insufficient cpu", "Insufficient cpu"],
        ),
        (
            "pod-level limits stand for requests when no container sets the resource",
            "spec:\n  containers: [{name: c}]\n  resources: {limits: {cpu: \"5\"}}\n".into(),
            ["Insufficient cpu", "Insufficient cpu"],
        ),
        (
            "a container's own request wins over a pod-level limit",
            "spec:\n  containers: [{name: c, resources: {requests: {cpu: \"1500m\"}}}]\n  resources: {limits: {cpu: \"5\"}}\n".into(),
            ["", "Insufficient cpu"],
        ),
    ];
    for (name, spec, want) in cases {
        let got: Vec<String> = decide(&cluster, spec)
            .nodes
            .iter()
            .map(|v| v.reasons.join("; "))
            .collect();
        assert_eq!(got, want, "{name}");
    }
    let empty = nodes(&["zone: a"]);
    let decision = decide(
        &empty,
        "spec:\n  containers: [{name: c}]\n  resources: {requests: {cpu: \"2\", memory: 4Gi}}\n",
    );
    // Fit scores the containers' non-zero defaults: cpu (4000-100)/4000 = 97, memory
    // (8192-200)/8192 = 97. Balanced reads the pod level: 0.5 and 0.5 -> 100 (the
    // containers alone would make it a best-effort pod, scored 0).
    assert_eq!(scores(&decision, "NodeResourcesFit"), [97]);
    assert_eq!(scores(&decision, "NodeResourcesBalancedAllocation"), [100]);
}

#[test]
fn most_allocated_profile_packs() {
    let state = state(
        &(nodes(&["zone: a", "zone: b"])
            + &running(
                "busy",
                "n2",
                "app: x",
                "  containers: [{name: c, resources: {requests: {cpu: \"2\", memory: 4Gi}}}]\n",
            )),
    );
    let profile = Profile {
        strategy: profile::ScoringStrategyType::MostAllocated,
        ..Profile::default()
    };
    let decision = Scheduler::new(&state, profile).decide(&pod(
        "spec:\n  containers: [{name: c, resources: {requests: {cpu: \"1\", memory: 2Gi}}}]\n",
    ));
    assert_eq!(scores(&decision, "NodeResourcesFit"), [25, 75]);
    assert_eq!(decision.selected.as_deref(), Some("n2"));
}

#[test]
fn inter_pod_affinity_filter() {
    let cluster = nodes(&["zone: a", "zone: a", "zone: b", "team: x"])
        + &running("db", "n1", "app: db", "")
        + &running(
            "lonely",
            "n3",
            "app: lonely",
            "  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {matchLabels: {app: web}}\n        topologyKey: zone\n",
        );
    let affinity = "node(s) didn't match pod affinity rules";
    let anti = "node(s) didn't match pod anti-affinity rules";
    let existing = "node(s) didn't satisfy existing pods anti-affinity rules";
    let cases: &[(&str, &str, [&str; 4])] = &[
        (
            "affinity to the zone of app=db",
            "  labels: {app: api}\nspec:\n  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {matchLabels: {app: db}}\n        topologyKey: zone\n",
            ["", "", affinity, affinity],
        ),
        (
            "anti-affinity per host",
            "  labels: {app: api}\nspec:\n  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {matchLabels: {app: db}}\n        topologyKey: kubernetes.io/hostname\n",
            [anti, "", "", ""],
        ),
        (
            "existing pods' anti-affinity is symmetric",
            "  labels: {app: web}\nspec: {}\n",
            ["", "", existing, ""],
        ),
        (
            "first pod of a self-affine group goes anywhere with the key",
            "  labels: {app: cache}\nspec:\n  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {matchLabels: {app: cache}}\n        topologyKey: zone\n",
            ["", "", "", affinity],
        ),
        (
            "no exception when the pod does not match its own term",
            "  labels: {app: other}\nspec:\n  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {matchLabels: {app: cache}}\n        topologyKey: zone\n",
            [affinity, affinity, affinity, affinity],
        ),
        (
            "a term in another namespace sees no db pod",
            "  labels: {app: api}\nspec:\n  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {matchLabels: {app: db}}\n        namespaces: [other]\n        topologyKey: zone\n",
            [affinity, affinity, affinity, affinity],
        ),
        (
            "an empty namespaceSelector selects every namespace",
            "  labels: {app: api}\nspec:\n  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {matchLabels: {app: db}}\n        namespaces: [other]\n        namespaceSelector: {}\n        topologyKey: zone\n",
            ["", "", affinity, affinity],
        ),
    ];
    for (name, spec, want) in cases {
        let decision = decide(&cluster, spec);
        let got: Vec<String> = decision
            .nodes
            .iter()
            .map(|v| v.reasons.join("; "))
            .collect();
        assert_eq!(got, want, "{name}");
    }
}

/// Upstream filtering_test.go: with several required affinity terms, one existing pod must
/// match them all; pods that each match one term do not add up.
#[test]
fn inter_pod_affinity_terms_must_all_match_one_pod() {
    let cluster = nodes(&["zone: a", "zone: a", "zone: b", "zone: c"])
        + &running("db", "n1", "app: db", "")
        + &running("metrics", "n2", "role: metrics", "")
        + &running("both", "n3", "app: db, role: metrics", "");
    let affinity = "node(s) didn't match pod affinity rules";
    let two_terms = |first_key: &str| {
        format!(
            "  labels: {{app: api}}\nspec:\n  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {{matchLabels: {{app: db}}}}\n        topologyKey: {first_key}\n      - labelSelector: {{matchLabels: {{role: metrics}}}}\n        topologyKey: zone\n"
        )
    };
    let cases: &[(&str, String, [&str; 4])] = &[
        (
            "only the pod matching both terms counts: zone a's two half-matches do not",
            two_terms("zone"),
            [affinity, affinity, "", affinity],
        ),
        (
            "the matching pod counts in each term's own topology",
            two_terms("kubernetes.io/hostname"),
            [affinity, affinity, "", affinity],
        ),
    ];
    for (name, spec, want) in cases {
        let got: Vec<String> = decide(&cluster, spec)
            .nodes
            .iter()
            .map(|v| v.reasons.join("; "))
            .collect();
        assert_eq!(got, want, "{name}");
    }
    // Without the pod that matches both, nothing counts: the terms are not satisfiable, and the
    // incoming pod (app=api) does not match them itself.
    let halves = nodes(&["zone: a", "zone: a"])
        + &running("db", "n1", "app: db", "")
        + &running("metrics", "n2", "role: metrics", "");
    let got: Vec<String> = decide(&halves, &two_terms("zone"))
        .nodes
        .iter()
        .map(|v| v.reasons.join("; "))
        .collect();
    assert_eq!(got, [affinity, affinity]);
}

#[test]
fn namespace_selector_uses_namespace_labels() {
    let cluster = nodes(&["zone: a", "zone: b"])
        + "apiVersion: v1\nkind: Namespace\nmetadata: {name: data, labels: {tier: storage}}\n---\n"
        + "apiVersion: v1\nkind: Pod\nmetadata: {name: db, namespace: data, labels: {app: db}}\nspec: {nodeName: n2, containers: [{name: c}]}\nstatus: {phase: Running}\n";
    let spec = |selector: &str| {
        format!(
            "spec:\n  affinity:\n    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {{matchLabels: {{app: db}}}}\n        namespaceSelector: {selector}\n        topologyKey: zone\n"
        )
    };
    let feasible = |d: &Decision| {
        d.nodes
            .iter()
            .filter(|v| v.feasible)
            .map(|v| v.name.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        feasible(&decide(&cluster, &spec("{matchLabels: {tier: storage}}"))),
        ["n2"]
    );
    assert_eq!(
        feasible(&decide(
            &cluster,
            &spec("{matchLabels: {kubernetes.io/metadata.name: data}}")
        )),
        Vec::<String>::new()
    );
    assert_eq!(
        feasible(&decide(&cluster, &spec("{matchLabels: {tier: web}}"))),
        Vec::<String>::new()
    );
}

#[test]
fn inter_pod_affinity_score() {
    let cluster = nodes(&["zone: a", "zone: b", "zone: c"])
        + &running("web1", "n1", "app: web", "")
        + &running("web2", "n1", "app: web", "")
        + &running("web3", "n2", "app: web", "");
    let decision = decide(
        &cluster,
        "spec:\n  affinity:\n    podAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n      - weight: 10\n        podAffinityTerm:\n          labelSelector: {matchLabels: {app: web}}\n          topologyKey: zone\n",
    );
    // Raw 20, 10, 0 -> min-max normalised.
    assert_eq!(scores(&decision, "InterPodAffinity"), [100, 50, 0]);
    let anti = decide(
        &cluster,
        "spec:\n  affinity:\n    podAntiAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n      - weight: 10\n        podAffinityTerm:\n          labelSelector: {matchLabels: {app: web}}\n          topologyKey: zone\n",
    );
    assert_eq!(scores(&anti, "InterPodAffinity"), [0, 50, 100]);
    // All equal: 0 everywhere.
    assert_eq!(
        scores(
            &decide(&nodes(&["zone: a", "zone: b"]), "spec: {}\n"),
            "InterPodAffinity"
        ),
        [0, 0]
    );
}

#[test]
fn topology_spread_filter() {
    let cluster = nodes(&["zone: a", "zone: a", "zone: b", "zone: c", "rack: r1"])
        + &running("w1", "n1", "app: web", "")
        + &running("w2", "n2", "app: web", "")
        + &running("w3", "n3", "app: web", "");
    let constraint = |skew: i32, extra: &str| {
        format!(
            "  labels: {{app: web}}\nspec:\n  topologySpreadConstraints:\n  - maxSkew: {skew}\n    topologyKey: zone\n    whenUnsatisfiable: DoNotSchedule\n    labelSelector: {{matchLabels: {{app: web}}}}\n{extra}"
        )
    };
    let skew = "node(s) didn't match pod topology spread constraints";
    let label = "node(s) didn't match pod topology spread constraints (missing required label)";
    let cases: Vec<(&str, String, [&str; 5])> = vec![
        // zone a has 2, b 1, c 0: only c keeps the skew at 1.
        (
            "maxSkew 1",
            constraint(1, ""),
            [skew, skew, skew, "", label],
        ),
        ("maxSkew 2", constraint(2, ""), [skew, skew, "", "", label]),
        // Fewer domains than minDomains: the minimum counts as 0.
        (
            "minDomains above the domain count",
            constraint(2, "    minDomains: 4\n"),
            [skew, skew, "", "", label],
        ),
    ];
    for (name, spec, want) in cases {
        let decision = decide(&cluster, &spec);
        let got: Vec<String> = decision
            .nodes
            .iter()
            .map(|v| v.reasons.join("; "))
            .collect();
        assert_eq!(got, want, "{name}");
    }
    // Nodes the pod's nodeSelector excludes are no domain (nodeAffinityPolicy Honor): zone a
    // is then the only domain, its count is the minimum, and the skew stays within 1.
    let honor = decide(
        &cluster,
        &constraint(1, "").replace("spec:\n", "spec:\n  nodeSelector: {zone: a}\n"),
    );
    let miss = "node(s) didn't match Pod's node affinity/selector";
    let got: Vec<String> = honor.nodes.iter().map(|v| v.reasons.join("; ")).collect();
    assert_eq!(got, ["", "", miss, miss, miss]);
}

#[test]
fn topology_spread_score() {
    let cluster = nodes(&["zone: a", "zone: b", "zone: c", "rack: r1"])
        + &running("w1", "n1", "app: web", "")
        + &running("w2", "n1", "app: web", "");
    let decision = decide(
        &cluster,
        "  labels: {app: web}\nspec:\n  topologySpreadConstraints:\n  - maxSkew: 1\n    topologyKey: zone\n    whenUnsatisfiable: ScheduleAnyway\n    labelSelector: {matchLabels: {app: web}}\n",
    );
    // Raw: a = 2 * ln(3 + 2) = 3.2 -> 3, b = c = 0; the keyless node scores 0.
    assert_eq!(scores(&decision, "PodTopologySpread"), [0, 100, 100, 0]);
    assert_eq!(decision.selected.as_deref(), Some("n2"));
    assert_eq!(decision.tied, ["n2", "n3"]);
}

/// Upstream scoring_test.go (initPreScoreState / PreScore): only domains holding a feasible
/// node are counted and sized; with `nodeAffinityPolicy: Ignore` pods on nodes the pod's
/// required affinity excludes still count in those domains, with `Honor` they do not.
#[test]
fn topology_spread_score_counts_feasible_domains_under_the_inclusion_policy() {
    // n1, n2, n5 are feasible (type x); n3 (zone a) and n4 (zone c) are excluded by affinity.
    let cluster = nodes(&[
        "zone: a, type: x",
        "zone: b, type: x",
        "zone: a, type: y",
        "zone: c, type: y",
        "zone: b, type: x",
    ]) + &running("w1", "n3", "app: web", "")
        + &running("w2", "n3", "app: web", "")
        + &running("w3", "n3", "app: web", "")
        + &running("w4", "n4", "app: web", "")
        + &running("w5", "n5", "app: web", "");
    let spec = |policy: &str| {
        format!(
            "  labels: {{app: web}}\nspec:\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions: [{{key: type, operator: In, values: [x]}}]\n  topologySpreadConstraints:\n  - maxSkew: 1\n    topologyKey: zone\n    whenUnsatisfiable: ScheduleAnyway\n    nodeAffinityPolicy: {policy}\n    labelSelector: {{matchLabels: {{app: web}}}}\n"
        )
    };
    // Ignore: zone a = 3 (n3's pods), zone b = 1; zone c has no feasible node, so two domains,
    // weight ln(2 + 2): raw a = round(4.16) = 4, b = round(1.39) = 1 -> 100 * (4 + 1 - s) / 4.
    assert_eq!(
        scores(&decide(&cluster, &spec("Ignore")), "PodTopologySpread"),
        [25, 100, 100]
    );
    // Honor: only n5's pod counts: a = 0, b = round(1.39) = 1.
    assert_eq!(
        scores(&decide(&cluster, &spec("Honor")), "PodTopologySpread"),
        [100, 0, 0]
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

/// Upstream node_ports_test.go: a host port conflicts only when protocol and port match and
/// the host IPs overlap (0.0.0.0, the default, overlaps every address); only containers and
/// sidecar init containers hold ports.
#[test]
fn host_ports_conflict() {
    let port = |ip: &str, protocol: &str, host_port: u16| {
        let mut fields = format!("containerPort: 80, hostPort: {host_port}");
        if !ip.is_empty() {
            fields += &format!(", hostIP: {ip}");
        }
        if !protocol.is_empty() {
            fields += &format!(", protocol: {protocol}");
        }
        format!("{{{fields}}}")
    };
    let busy = "node(s) didn't have free ports for the requested pod ports";
    // existing container port, incoming container port, conflict?
    let cases: &[(&str, String, String, bool)] = &[
        (
            "same default port",
            port("", "", 8080),
            port("", "", 8080),
            true,
        ),
        ("other port", port("", "", 8080), port("", "", 8081), false),
        (
            "other protocol",
            port("", "", 8080),
            port("", "UDP", 8080),
            false,
        ),
        (
            "explicit TCP is the default",
            port("", "TCP", 8080),
            port("", "", 8080),
            true,
        ),
        (
            "existing on all addresses",
            port("", "", 8080),
            port("10.0.0.1", "", 8080),
            true,
        ),
        (
            "incoming on all addresses",
            port("10.0.0.1", "", 8080),
            port("0.0.0.0", "", 8080),
            true,
        ),
        (
            "same address",
            port("10.0.0.1", "", 8080),
            port("10.0.0.1", "", 8080),
            true,
        ),
        (
            "different addresses",
            port("10.0.0.1", "", 8080),
            port("10.0.0.2", "", 8080),
            false,
        ),
        (
            "different addresses and protocol",
            port("10.0.0.1", "UDP", 8080),
            port("0.0.0.0", "TCP", 8080),
            false,
        ),
    ];
    for (name, existing, incoming, conflict) in cases {
        let cluster = nodes(&["zone: a"])
            + &running(
                "proxy",
                "n1",
                "app: p",
                &format!("  containers: [{{name: c, ports: [{existing}]}}]\n"),
            );
        let decision = decide(
            &cluster,
            &format!("spec:\n  containers: [{{name: c, ports: [{incoming}]}}]\n"),
        );
        let want = if *conflict {
            format!("n1: {busy}")
        } else {
            "n1".to_string()
        };
        assert_eq!(verdicts(&decision), [want], "{name}");
    }
    // Init containers: a sidecar's port is held (on both sides), a plain init container's is not.
    let init = |restart: &str| {
        format!(
            "  initContainers: [{{name: i, {restart}ports: [{}]}}]\n  containers: [{{name: c}}]\n",
            port("", "", 8080)
        )
    };
    let with_container_port = nodes(&["zone: a"])
        + &running(
            "proxy",
            "n1",
            "app: p",
            &format!(
                "  containers: [{{name: c, ports: [{}]}}]\n",
                port("", "", 8080)
            ),
        );
    for (restart, want) in [
        ("restartPolicy: Always, ", format!("n1: {busy}")),
        ("", "n1".to_string()),
    ] {
        assert_eq!(
            verdicts(&decide(
                &with_container_port,
                &format!("spec:\n{}", init(restart))
            )),
            std::slice::from_ref(&want),
            "incoming {restart:?}"
        );
        let with_init_port =
            nodes(&["zone: a"]) + &running("proxy", "n1", "app: p", &init(restart));
        let incoming = format!(
            "spec:\n  containers: [{{name: c, ports: [{}]}}]\n",
            port("", "", 8080)
        );
        assert_eq!(
            verdicts(&decide(&with_init_port, &incoming)),
            [want],
            "existing {restart:?}"
        );
    }
}

#[test]
fn filters_stop_at_the_first_failure_in_upstream_order() {
    let cluster = "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {zone: a}}\nspec: {unschedulable: true, taints: [{key: k, effect: NoSchedule}]}\nstatus: {allocatable: {cpu: \"1\", memory: 1Gi, pods: \"10\"}}\n";
    let decision = decide(cluster, "spec:\n  nodeSelector: {zone: b}\n");
    assert_eq!(decision.nodes[0].failed_plugin, Some("NodeUnschedulable"));
    let state = state(cluster);
    let scheduler = Scheduler::new(&state, Profile::default());
    let incoming = pod("spec:\n  nodeSelector: {zone: b}\n");
    let detail = scheduler
        .explain_node(&incoming, "n1", &scheduler.decide(&incoming))
        .unwrap();
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
    let detail = scheduler
        .explain_node(&incoming, "n1", &scheduler.decide(&incoming))
        .unwrap();
    assert!(
        detail.filters[5].detail.ends_with("; pods 0 of 110"),
        "{}",
        detail.filters[5].detail
    );
}
