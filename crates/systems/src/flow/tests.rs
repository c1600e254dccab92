//! Exact placements on small hand-built states.

use std::sync::Arc;

use super::*;
use df_model::Object;

fn objects(yaml: &str) -> Vec<Object> {
    let (manifests, problems) = df_manifest::parse_text(&Arc::from("t.yaml"), yaml);
    assert!(problems.is_empty(), "{problems:?}");
    manifests.into_iter().map(|m| m.object).collect()
}

/// Nodes n1..nN: 4 CPUs, 8Gi, 110 pods; `extra[i]` is spliced into node i+1's metadata/spec
/// (a `labels:` line, or `spec:` with taints).
fn cluster(extra: &[&str], running: &str) -> ClusterState {
    let mut yaml = String::new();
    for (i, e) in extra.iter().enumerate() {
        let n = i + 1;
        yaml += &format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: n{n}\n  labels: {{kubernetes.io/hostname: n{n}{e}}}\nstatus:\n  allocatable: {{cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n---\n"
        );
    }
    yaml += running;
    ClusterState::from_objects(objects(&yaml))
}

/// `count` pods named `{prefix}-0..` requesting `cpu` with extra spec lines.
fn pods(prefix: &str, count: usize, cpu: &str, spec: &str) -> Vec<Pod> {
    (0..count)
        .map(|i| {
            let yaml = format!(
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {prefix}-{i}\n  namespace: default\n  labels: {{app: {prefix}}}\nspec:\n  containers: [{{name: c, resources: {{requests: {{cpu: \"{cpu}\"}}}}}}]\n{spec}"
            );
            match objects(&yaml).pop() {
                Some(Object::Pod(p)) => p,
                other => panic!("{other:?}"),
            }
        })
        .collect()
}

/// `name=node` (or `name=-`) per pod, in input order.
fn placed(plan: &FlowPlan) -> Vec<String> {
    plan.placements
        .iter()
        .map(|p| format!("{}={}", p.name, p.node.as_deref().unwrap_or("-")))
        .collect()
}

const RUNNING_2CPU_ON_N1: &str = "apiVersion: v1\nkind: Pod\nmetadata: {name: busy, namespace: default}\nspec:\n  nodeName: n1\n  containers: [{name: c, resources: {requests: {cpu: \"2\", memory: 1Gi}}}]\nstatus: {phase: Running}\n";

#[test]
fn placements_follow_cost_and_constraints() {
    struct Case {
        name: &'static str,
        nodes: Vec<&'static str>,
        running: &'static str,
        pods: Vec<Pod>,
        expected: Vec<&'static str>,
    }
    let cases = vec![
        Case {
            name: "equal nodes share the batch evenly",
            nodes: vec!["", "", ""],
            running: "",
            pods: pods("web", 6, "1", ""),
            expected: vec![
                "web-0=n1", "web-1=n1", "web-2=n2", "web-3=n2", "web-4=n3", "web-5=n3",
            ],
        },
        Case {
            name: "an already busy node gets fewer",
            nodes: vec!["", ""],
            running: RUNNING_2CPU_ON_N1,
            pods: pods("web", 4, "1", ""),
            expected: vec!["web-0=n1", "web-1=n2", "web-2=n2", "web-3=n2"],
        },
        Case {
            name: "nodeSelector leaves arcs out",
            nodes: vec![", disk: ssd", "", ", disk: ssd"],
            running: "",
            pods: pods("db", 4, "500m", "  nodeSelector: {disk: ssd}\n"),
            expected: vec!["db-0=n1", "db-1=n1", "db-2=n3", "db-3=n3"],
        },
        Case {
            name: "preferred node affinity wins over spreading while the preferred node has room",
            nodes: vec!["", "", ", disk: ssd"],
            running: "",
            pods: pods(
                "cache",
                5,
                "1",
                "  affinity:\n    nodeAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n      - weight: 50\n        preference: {matchExpressions: [{key: disk, operator: In, values: [ssd]}]}\n",
            ),
            expected: vec![
                "cache-0=n1",
                "cache-1=n3",
                "cache-2=n3",
                "cache-3=n3",
                "cache-4=n3",
            ],
        },
        Case {
            name: "untolerated taints leave arcs out; a toleration puts them back",
            nodes: vec!["", ""],
            running: "apiVersion: v1\nkind: Node\nmetadata: {name: n3, labels: {kubernetes.io/hostname: n3}}\nspec:\n  taints: [{key: gpu, value: \"yes\", effect: NoSchedule}]\nstatus:\n  allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}\n",
            pods: [
                pods("plain", 2, "2", ""),
                pods(
                    "gpu",
                    1,
                    "2",
                    "  tolerations: [{key: gpu, operator: Exists}]\n",
                ),
            ]
            .concat(),
            expected: vec!["plain-0=n1", "plain-1=n2", "gpu-0=n3"],
        },
        Case {
            name: "pods beyond the cluster's room stay pending",
            nodes: vec!["", ""],
            running: "",
            pods: pods("big", 5, "2", ""),
            expected: vec!["big-0=n1", "big-1=n1", "big-2=n2", "big-3=n2", "big-4=-"],
        },
        Case {
            name: "infeasible classes stay pending while the rest are placed",
            nodes: vec!["", ""],
            running: "",
            pods: [
                pods("huge", 1, "16", ""),
                pods("nowhere", 1, "1", "  nodeSelector: {zone: mars}\n"),
                pods("ok", 1, "1", ""),
            ]
            .concat(),
            expected: vec!["huge-0=-", "nowhere-0=-", "ok-0=n1"],
        },
    ];
    for case in cases {
        let state = cluster(&case.nodes, case.running);
        let plan = solve_batch(&state, &Profile::default(), &case.pods);
        assert_eq!(placed(&plan), case.expected, "{}", case.name);
        assert!(
            plan.placements.iter().all(|p| p.method == Method::Flow),
            "{}",
            case.name
        );
    }
}

#[test]
fn most_allocated_packs_the_batch_onto_fuller_nodes() {
    // n1 already runs 2 CPUs: with MostAllocated it is the cheapest node for every pod while
    // it has room, and the cost no longer rises per pod.
    let state = cluster(&["", "", ""], RUNNING_2CPU_ON_N1);
    let profile = Profile {
        strategy: ScoringStrategyType::MostAllocated,
        ..Profile::default()
    };
    let plan = solve_batch(&state, &profile, &pods("web", 4, "1", ""));
    assert_eq!(
        placed(&plan),
        vec!["web-0=n1", "web-1=n1", "web-2=n2", "web-3=n2"]
    );
}

#[test]
fn notes_say_why_a_pod_is_pending() {
    let state = cluster(&["", ""], "");
    let batch = [
        pods("huge", 1, "16", ""),
        pods("nowhere", 1, "1", "  nodeSelector: {zone: mars}\n"),
        pods("big", 5, "2", ""),
    ]
    .concat();
    let plan = solve_batch(&state, &Profile::default(), &batch);
    let notes: Vec<(&str, &str)> = plan
        .placements
        .iter()
        .filter(|p| p.node.is_none())
        .map(|p| (p.name.as_str(), p.note.as_str()))
        .collect();
    assert_eq!(
        notes,
        vec![
            (
                "huge-0",
                "pending: 0/2 nodes are available: 2 Insufficient cpu."
            ),
            (
                "nowhere-0",
                "pending: 0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector."
            ),
            (
                "big-4",
                "pending: the 2 nodes that fit task class 2 have no room left for it in this batch"
            ),
        ]
    );
    assert_eq!(
        plan.classes,
        vec![
            ClassSummary {
                pods: 1,
                feasible_nodes: 0,
                representative: "default/huge-0".into()
            },
            ClassSummary {
                pods: 1,
                feasible_nodes: 0,
                representative: "default/nowhere-0".into()
            },
            ClassSummary {
                pods: 5,
                feasible_nodes: 2,
                representative: "default/big-0".into()
            },
        ]
    );
}

#[test]
fn total_cost_is_the_objective_of_the_placement() {
    // Six 1-CPU pods on three empty 4-CPU/8Gi nodes. Every class arc costs 1 + 2 * 100 (no
    // preference satisfied); a node's k-th pod costs 13 * k (25% CPU and 2% of memory for the
    // 200Mi scoring default, averaged).
    let state = cluster(&["", "", ""], "");
    let plan = solve_batch(&state, &Profile::default(), &pods("web", 6, "1", ""));
    assert_eq!(plan.total_cost, 6 * 201 + 3 * (13 + 26));
    assert_eq!(plan.rounds, 1);
}

#[test]
fn a_node_overfilled_across_classes_is_repaired_in_a_second_round() {
    // n1 has 3 CPUs and 3Gi, n2 is large. "b" (1.5 CPU, 2.5Gi) must go to n1; the "a" pods
    // (1 CPU) prefer it. Each class fits n1 on its own, so the first round sends b and two a
    // to n1: 3.5 CPUs. The check keeps b (one feasible node) and one a, and the second round
    // moves the other a to n2.
    let yaml = "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {kubernetes.io/hostname: n1}}\nstatus: {allocatable: {cpu: \"3\", memory: 3Gi, pods: \"110\"}}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n2, labels: {kubernetes.io/hostname: n2}}\nstatus: {allocatable: {cpu: \"16\", memory: 64Gi, pods: \"110\"}}\n";
    let state = ClusterState::from_objects(objects(yaml));
    let mut batch = pods(
        "a",
        3,
        "1",
        "  affinity:\n    nodeAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n      - weight: 100\n        preference: {matchFields: [{key: metadata.name, operator: In, values: [n1]}]}\n",
    );
    let mut b = pods(
        "b",
        1,
        "1500m",
        "  nodeSelector: {kubernetes.io/hostname: n1}\n",
    );
    b[0].spec.containers[0].resources.requests.insert(
        "memory".into(),
        df_model::Quantity::parse("2560Mi").unwrap(),
    );
    batch.append(&mut b);
    let plan = solve_batch(&state, &Profile::default(), &batch);
    assert_eq!(placed(&plan), vec!["a-0=n1", "a-1=n2", "a-2=n2", "b-0=n1"]);
    assert_eq!(plan.rounds, 2);
}

#[test]
fn pods_the_flow_cannot_express_fall_back_to_the_engine() {
    // Required hostname anti-affinity among the "solo" pods: one per node, placed greedily
    // after the flow pods, which they see (n1 is full of "web").
    let state = cluster(&["", "", ""], "");
    let anti = "  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {matchLabels: {app: solo}}\n        topologyKey: kubernetes.io/hostname\n";
    let batch = [
        pods("solo", 4, "1", anti),
        pods("web", 4, "1", "  nodeSelector: {kubernetes.io/hostname: n1}\n"),
        pods(
            "spread",
            1,
            "1",
            "  topologySpreadConstraints: [{maxSkew: 1, topologyKey: kubernetes.io/hostname, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {app: spread}}}]\n",
        ),
    ]
    .concat();
    let plan = solve_batch(&state, &Profile::default(), &batch);
    assert_eq!(
        placed(&plan),
        vec![
            "solo-0=n2",
            "solo-1=n3",
            "solo-2=-",
            "solo-3=-",
            "web-0=n1",
            "web-1=n1",
            "web-2=n1",
            "web-3=n1",
            "spread-0=n2"
        ]
    );
    let methods: Vec<(Method, &str)> = plan
        .placements
        .iter()
        .filter(|p| p.method == Method::Greedy)
        .map(|p| (p.method, p.note.as_str()))
        .collect();
    let affinity =
        "greedy fall-back: inter-pod affinity depends on where other pods of the batch land";
    assert_eq!(
        methods,
        vec![
            (Method::Greedy, affinity),
            (Method::Greedy, affinity),
            (
                Method::Greedy,
                "greedy fall-back: inter-pod affinity depends on where other pods of the batch land; pending: 0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match pod anti-affinity rules. no new claims to deallocate, preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
            ),
            (
                Method::Greedy,
                "greedy fall-back: inter-pod affinity depends on where other pods of the batch land; pending: 0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match pod anti-affinity rules. no new claims to deallocate, preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."
            ),
            (
                Method::Greedy,
                "greedy fall-back: topology spread depends on where other pods of the batch land"
            ),
        ]
    );
}

#[test]
fn comparison_shows_where_the_batch_view_places_more() {
    // Greedy puts the 2-CPU "flex" pod on the emptier ssd node n2 (n1 runs 2 CPUs already);
    // the 3-CPU ssd-only pod then fits nowhere. The flow gives n2 to the pod that needs it.
    let state = cluster(&["", ", disk: ssd"], RUNNING_2CPU_ON_N1);
    let batch = [
        pods("flex", 1, "2", ""),
        pods("ssd", 1, "3", "  nodeSelector: {disk: ssd}\n"),
    ]
    .concat();
    let comparison = compare(&state, &Profile::default(), &batch);
    let node = |n: &str| Some(n.to_string());
    assert_eq!(comparison.greedy_nodes, vec![node("n2"), None]);
    assert_eq!(comparison.flow_plan.nodes(), vec![node("n1"), node("n2")]);
    let metrics = |placed, nodes_used| Metrics {
        pods: 2,
        placed,
        nodes_used,
        preferred_weight: 0,
        max_pods_per_node: 1,
        pods_per_node_stddev: 0.0,
    };
    assert_eq!(comparison.greedy, metrics(1, 1));
    assert_eq!(comparison.flow, metrics(2, 2));
}

#[test]
fn metrics_count_spread_and_preference() {
    let state = cluster(&["", ", disk: ssd", ""], "");
    let batch = pods(
        "p",
        4,
        "1",
        "  affinity:\n    nodeAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n      - weight: 10\n        preference: {matchExpressions: [{key: disk, operator: Exists}]}\n",
    );
    let node = |n: &str| Some(n.to_string());
    let cases = vec![
        (
            vec![node("n1"), node("n1"), node("n1"), None],
            (3, 1, 0, 3, 0.0),
        ),
        (
            vec![node("n1"), node("n2"), node("n2"), node("n3")],
            (4, 3, 20, 2, 0.471),
        ),
        (vec![None, None, None, None], (0, 0, 0, 0, 0.0)),
    ];
    for (nodes, (placed, used, weight, max, stddev)) in cases {
        assert_eq!(
            metrics(&state, &batch, &nodes),
            Metrics {
                pods: 4,
                placed,
                nodes_used: used,
                preferred_weight: weight,
                max_pods_per_node: max,
                pods_per_node_stddev: stddev,
            },
            "{nodes:?}"
        );
    }
}
