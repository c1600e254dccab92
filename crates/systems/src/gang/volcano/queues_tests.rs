//! Queues sharing nodes, end to end (`gangs` then `plan_gangs`): issue 31's rows 8.1-8.6 (8.1
//! and 8.4 after `actions/allocate/allocate_test.go` TestAllocate) and rows after
//! `plugins/proportion/proportion_test.go` (TestEnqueueAndAllocable, TestAllocate), in data of
//! our own; and proportion's water-filling on its own.

use super::super::proportion::{Amount, QueueAttr, deserve};
use crate::gang::volcano::test_support::{plan_given, pod_row, state_of};

/// A node `name` of `cpu` and `memory`.
fn node(name: &str, cpu: &str, memory: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Node\nmetadata: {{name: {name}}}\nstatus: {{allocatable: {{cpu: \"{cpu}\", memory: {memory}, pods: \"110\"}}}}\n---\n"
    )
}

/// A Queue `name` with `spec` (flow YAML), Open.
fn queue(name: &str, spec: &str) -> String {
    format!(
        "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {{name: {name}}}\nspec: {spec}\nstatus: {{state: Open}}\n---\n"
    )
}

/// A Volcano PodGroup `name` in `queue` of minMember `min` (more spec fields in `extra`, flow
/// YAML entries with a leading comma; its phase in `status`, empty: none) and its pods
/// `(name, cpu, memory, node)` (node empty: pending).
fn group(
    name: &str,
    queue: &str,
    min: i32,
    extra: &str,
    status: &str,
    pods: &[(&str, &str, &str, &str)],
) -> String {
    let status = if status.is_empty() {
        String::new()
    } else {
        format!("status: {{phase: {status}}}\n")
    };
    let mut yaml = format!(
        "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {{name: {name}, namespace: default}}\nspec: {{minMember: {min}, queue: {queue}{extra}}}\n{status}---\n"
    );
    for (pod, cpu, memory, node) in pods {
        let node = if node.is_empty() {
            String::new()
        } else {
            format!("nodeName: {node}, ")
        };
        yaml.push_str(&format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {pod}\n  namespace: default\n  annotations: {{scheduling.k8s.io/group-name: {name}}}\nspec: {{{node}schedulerName: volcano, containers: [{{name: c, resources: {{requests: {{cpu: \"{cpu}\", memory: \"{memory}\"}}}}}}]}}\n---\n"
        ));
    }
    yaml
}

/// `n` pending pods `<prefix>-1`.. of `cpu` CPU and no memory.
fn pending(prefix: &str, n: usize, cpu: &'static str) -> Vec<(String, &'static str)> {
    (1..=n).map(|i| (format!("{prefix}-{i}"), cpu)).collect()
}

/// A PodGroup of [`pending`] pods.
fn simple(name: &str, queue: &str, min: i32, pods: &[(String, &str)]) -> String {
    let pods: Vec<(&str, &str, &str, &str)> = pods
        .iter()
        .map(|(p, cpu)| (p.as_str(), *cpu, "0", ""))
        .collect();
    group(name, queue, min, "", "", &pods)
}

/// The volcano-scheduler ConfigMap with `actions` and one tier of `plugins` (flow YAML).
fn config(actions: &str, plugins: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: volcano-scheduler-configmap, namespace: volcano-system}}\ndata:\n  volcano-scheduler.conf: |\n    actions: \"{actions}\"\n    tiers:\n    - plugins: {plugins}\n---\n"
    )
}

/// Each given group as `name status` and its pods as `pod@node` or `pod: reason`.
fn outcome(state: &str, given: &str) -> Vec<(String, Vec<String>)> {
    plan_given(&state_of(state), given)
        .into_iter()
        .map(|p| {
            let rows = p.pods.iter().filter(|r| !r.running).map(pod_row).collect();
            (format!("{} {}", p.name, p.status.as_str()), rows)
        })
        .collect()
}

/// `not allocated: queue <q> is over its deserved share with this pod: <over>`.
fn over(queue: &str, over: &str) -> String {
    format!("not allocated: queue {queue} is over its deserved share with this pod: {over}")
}

fn strings(rows: &[&str]) -> Vec<String> {
    rows.iter().map(ToString::to_string).collect()
}

struct Case {
    name: &'static str,
    state: String,
    given: String,
    want: Vec<(&'static str, Vec<String>)>,
}

fn check(cases: Vec<Case>) {
    for case in cases {
        let got = outcome(&case.state, &case.given);
        let want: Vec<(String, Vec<String>)> = case
            .want
            .into_iter()
            .map(|(g, rows)| (g.to_string(), rows))
            .collect();
        assert_eq!(got, want, "{}", case.name);
    }
}

#[test]
fn queues_take_turns_within_their_deserved_share() {
    let two = || {
        format!(
            "{}{}{}",
            node("n", "2", "4Gi"),
            queue("qa", "{weight: 1}"),
            queue("qb", "{weight: 1}")
        )
    };
    let four = |qa: &str, qb: &str| {
        format!(
            "{}{}{}",
            node("n", "4", "8Gi"),
            queue("qa", qa),
            queue("qb", qb)
        )
    };
    check(vec![
        Case {
            // 8.1 ("two Jobs on one node"): 2 CPUs, two queues of weight 1 asking 2 each:
            // each deserves 2 x 1/2 = 1 CPU. qa (named first, both at share 0) places ga-1;
            // ga-2 would take qa to 2 > 1. qb (share 0 < qa's 1/1) places gb-1 the same way.
            name: "8.1 two queues of weight 1 share one node",
            state: two(),
            given: format!(
                "{}{}",
                simple("ga", "qa", 0, &pending("ga", 2, "1")),
                simple("gb", "qb", 0, &pending("gb", 2, "1"))
            ),
            want: vec![
                (
                    "ga Scheduled",
                    vec![
                        "ga-1@n".into(),
                        format!("ga-2: {}", over("qa", "cpu 2 > 1 deserved")),
                    ],
                ),
                (
                    "gb Scheduled",
                    vec![
                        "gb-1@n".into(),
                        format!("gb-2: {}", over("qb", "cpu 2 > 1 deserved")),
                    ],
                ),
            ],
        },
        Case {
            // 8.2: 4 CPUs by weight 1 : 3 = 1 and 3 CPUs (both ask 4, more than their share).
            name: "8.2 weights split the node",
            state: four("{weight: 1}", "{weight: 3}"),
            given: format!(
                "{}{}",
                simple("ga", "qa", 1, &pending("a", 4, "1")),
                simple("gb", "qb", 1, &pending("b", 4, "1"))
            ),
            want: vec![
                (
                    "ga Scheduled",
                    vec![
                        "a-1@n".into(),
                        format!("a-2: {}", over("qa", "cpu 2 > 1 deserved")),
                        format!("a-3: {}", over("qa", "cpu 2 > 1 deserved")),
                        format!("a-4: {}", over("qa", "cpu 2 > 1 deserved")),
                    ],
                ),
                (
                    "gb Scheduled",
                    vec![
                        "b-1@n".into(),
                        "b-2@n".into(),
                        "b-3@n".into(),
                        format!("b-4: {}", over("qb", "cpu 4 > 3 deserved")),
                    ],
                ),
            ],
        },
        Case {
            // 8.3: 3 CPUs by two weights of 1 = 1.5 each: a second 1-CPU pod makes 2 > 1.5,
            // so one CPU stays idle.
            name: "8.3 a share between whole pods leaves a CPU idle",
            state: format!(
                "{}{}{}",
                node("n", "3", "8Gi"),
                queue("qa", "{weight: 1}"),
                queue("qb", "{weight: 1}")
            ),
            given: format!(
                "{}{}",
                simple("ga", "qa", 1, &pending("a", 2, "1")),
                simple("gb", "qb", 1, &pending("b", 2, "1"))
            ),
            want: vec![
                (
                    "ga Scheduled",
                    vec![
                        "a-1@n".into(),
                        format!("a-2: {}", over("qa", "cpu 2 > 1.5 deserved")),
                    ],
                ),
                (
                    "gb Scheduled",
                    vec![
                        "b-1@n".into(),
                        format!("b-2: {}", over("qb", "cpu 2 > 1.5 deserved")),
                    ],
                ),
            ],
        },
        Case {
            // 8.4 ("high priority queue should not block others"): 2 CPUs, qa asks 3 and qb 1:
            // the first round gives each 1; qb's request is met; nothing remains. qa's 3-CPU
            // pod would take it to 3 > 1: qa's job fails alone and qb's pod binds.
            name: "8.4 a job its queue cannot hold does not block the other queue",
            state: two(),
            given: format!(
                "{}{}",
                simple("ga", "qa", 1, &pending("a", 1, "3")),
                simple("gb", "qb", 1, &pending("b", 1, "1"))
            ),
            want: vec![
                (
                    "ga Unschedulable",
                    vec![format!("a-1: {}", over("qa", "cpu 3 > 1 deserved"))],
                ),
                ("gb Scheduled", vec!["b-1@n".into()]),
            ],
        },
        Case {
            // 8.5: qhi (priority 10) goes first but deserves 2 of the 4 CPUs (it asks 6, qlo
            // asks 2: 4 / 2 each): its 6-CPU pod is passed over; qlo's two pods bind.
            name: "8.5 a higher-priority queue goes first but within its share",
            state: format!(
                "{}{}{}",
                node("n", "4", "8Gi"),
                queue("qhi", "{priority: 10}"),
                queue("qlo", "{}")
            ),
            given: format!(
                "{}{}",
                simple("hi", "qhi", 1, &pending("h", 1, "6")),
                simple("lo", "qlo", 1, &pending("l", 2, "1"))
            ),
            want: vec![
                (
                    "hi Unschedulable",
                    vec![format!("h-1: {}", over("qhi", "cpu 6 > 2 deserved"))],
                ),
                ("lo Scheduled", vec!["l-1@n".into(), "l-2@n".into()]),
            ],
        },
        Case {
            // 8.6: 4 CPUs, qa asks 3 and qb 4: 2 each. qa's minimum of 3 cannot be reached
            // within 2 (a-3 would make 3 > 2): it binds nothing. qb binds 2; 2 CPUs stay idle.
            name: "8.6 a deserved share below a job's minimum",
            state: four("{}", "{}"),
            given: format!(
                "{}{}",
                simple("ga", "qa", 3, &pending("a", 3, "1")),
                simple("gb", "qb", 1, &pending("b", 4, "1"))
            ),
            want: vec![
                (
                    "ga Unschedulable",
                    vec![
                        "a-1: gang not ready: only 2 of minMember 3 pods fit (0 running)".into(),
                        "a-2: gang not ready: only 2 of minMember 3 pods fit (0 running)".into(),
                        format!("a-3: {}", over("qa", "cpu 3 > 2 deserved")),
                    ],
                ),
                (
                    "gb Scheduled",
                    vec![
                        "b-1@n".into(),
                        "b-2@n".into(),
                        format!("b-3: {}", over("qb", "cpu 3 > 2 deserved")),
                        format!("b-4: {}", over("qb", "cpu 3 > 2 deserved")),
                    ],
                ),
            ],
        },
    ]);
}

#[test]
fn an_overused_queue_is_skipped_with_its_jobs() {
    // 4 CPUs; qa already runs 2 pods of 1 CPU (group ra) and asks 1 more, qb asks 2: the
    // first round gives each 2, which meets qb's request; nothing remains. qa holds its
    // deserved 2 already: overused. qb (share 0 < qa's 2 / 2) goes first and binds both pods;
    // then qa is dropped with ga.
    let state = format!(
        "{}{}{}{}",
        node("n", "4", "8Gi"),
        queue("qa", "{}"),
        queue("qb", "{}"),
        group(
            "ra",
            "qa",
            1,
            "",
            "Running",
            &[("ra-1", "1", "0", "n"), ("ra-2", "1", "0", "n")]
        ),
    );
    check(vec![Case {
        name: "overused",
        state,
        given: format!(
            "{}{}",
            simple("ga", "qa", 1, &pending("a", 1, "1")),
            simple("gb", "qb", 1, &pending("b", 2, "1"))
        ),
        want: vec![
            (
                "ga Unschedulable",
                vec!["a-1: not tried: queue qa is overused (its deserved cpu 2 is allocated), so Volcano's allocate action skips its jobs".into()],
            ),
            ("gb Scheduled", strings(&["b-1@n", "b-2@n"])),
        ],
    }]);
}

#[test]
fn without_proportion_queues_only_take_turns() {
    // Row 8.1's groups with a configuration whose tiers leave proportion out: no share is
    // enforced; the queues take turns by name (no creation times), and qa's group, first,
    // takes the node's 2 CPUs.
    let state = format!(
        "{}{}{}{}",
        node("n", "2", "4Gi"),
        queue("qa", "{weight: 1}"),
        queue("qb", "{weight: 1}"),
        config("enqueue, allocate", "[{name: gang}, {name: predicates}]"),
    );
    check(vec![Case {
        name: "no proportion",
        state,
        given: format!(
            "{}{}",
            simple("ga", "qa", 0, &pending("ga", 2, "1")),
            simple("gb", "qb", 0, &pending("gb", 2, "1"))
        ),
        want: vec![
            ("ga Scheduled", strings(&["ga-1@n", "ga-2@n"])),
            (
                "gb Scheduled",
                strings(&[
                    "gb-1: 0/1 nodes are available: 1 Insufficient cpu.",
                    "gb-2: 0/1 nodes are available: 1 Insufficient cpu.",
                ]),
            ),
        ],
    }]);
}

/// Nodes n1 and n2 of 2 CPUs and 2G each, and two running groups: pg1 in q1 (1 CPU, 2G on n1)
/// and pg2 in q2 (2 CPUs, 1G on n2), with `queues` and `conf` (TestEnqueueAndAllocable).
fn running_groups(queues: &str, conf: &str) -> String {
    format!(
        "{}{}{queues}{conf}{}{}",
        node("n1", "2", "2G"),
        node("n2", "2", "2G"),
        group(
            "pg1",
            "q1",
            1,
            ", minResources: {cpu: 1, memory: 2G}",
            "Running",
            &[("pod1", "1", "2G", "n1")]
        ),
        group(
            "pg2",
            "q2",
            1,
            ", minResources: {cpu: 2, memory: 1G}",
            "Running",
            &[("pod2", "2", "1G", "n2")]
        ),
    )
}

#[test]
fn proportion_rows_after_upstream() {
    let capped = format!(
        "{}{}",
        queue("q1", "{weight: 1, capability: {cpu: 2, memory: 2G}}"),
        queue("q2", "{weight: 1, capability: {cpu: 3, memory: 3G}}")
    );
    let allocatable_only = config(
        "enqueue, allocate",
        "[{name: proportion, enableJobEnqueued: false, enabledOverused: false}]",
    );
    let new = |name: &str, q: &str, cpu: &str, memory: &str| {
        group(
            name,
            q,
            1,
            &format!(", minResources: {{cpu: \"{cpu}\", memory: \"{memory}\"}}"),
            "",
            &[(&format!("{name}-pod"), cpu, memory, "")],
        )
    };
    // The cluster: 4 CPUs, 4G. q1 asks 1 CPU 2G bound + the new pod; q2 2 CPUs 1G bound (+ the
    // new pod in case1). First round: 2 CPUs 2G each, within q1's capability (2, 2G) and
    // q2's (3, 3G), cut to each request.
    check(vec![
        Case {
            // case0: q1 deserves min(2, 1+1) = 2 CPUs, min(2G, 2G+0) = 2G; its new pod asks only
            // CPU: 1 + 1 = 2 <= 2 (memory, already at its share, is not asked). n1 has 1 CPU
            // and no memory left: it fits there.
            name: "case0: memory at the share, a pod asking only CPU is allocated",
            state: running_groups(&capped, ""),
            given: new("pg3", "q1", "1", "0"),
            want: vec![("pg3 Scheduled", strings(&["pg3-pod@n1"]))],
        },
        Case {
            // case1: q2 deserves min(2, 2+0) = 2 CPUs, min(2G, 1G+1G) = 2G; its new pod asks
            // only memory: 1G + 1G = 2G <= 2G. n2 has no CPU and 1G left.
            name: "case1: CPU at the share, a pod asking only memory is allocated",
            state: running_groups(&capped, ""),
            given: new("pg4", "q2", "0", "1G"),
            want: vec![("pg4 Scheduled", strings(&["pg4-pod@n2"]))],
        },
        Case {
            // case3 (only proportion's allocatable on): q1 asks 2 CPUs 3G. Round one: 2 CPUs,
            // min(2G, 2G cap, 3G) = 2G; q2 is met at 2 CPUs 1G, leaving 1G; round two gives
            // q1 that 1G but its capability keeps it at 2G. The pod: 2G + 1G = 3G > 2G
            // (2.8Gi > 1.9Gi).
            name: "case3: a pod beyond the deserved memory is not allocated",
            state: running_groups(&capped, &allocatable_only),
            given: new("pg5", "q1", "1", "1G"),
            want: vec![(
                "pg5 Unschedulable",
                vec![format!(
                    "pg5-pod: {}",
                    over("q1", "memory 2.8Gi > 1.9Gi deserved")
                )],
            )],
        },
    ]);
}

#[test]
fn queue_priority_orders_the_queues() {
    // proportion_test.go TestAllocate: n1 and n2 of 2 CPUs 4Gi; q1 (priority 5) runs a 2-CPU
    // 4Gi pod on n1; q2 (priority 1) and q3 (priority 10) each have one such pod pending.
    let state = |conf: &str| {
        format!(
            "{}{}{}{}{}{conf}{}",
            node("n1", "2", "4Gi"),
            node("n2", "2", "4Gi"),
            queue("q1", "{priority: 5}"),
            queue("q2", "{priority: 1}"),
            queue("q3", "{priority: 10}"),
            group("pg1", "q1", 1, "", "Running", &[("p1", "2", "4Gi", "n1")]),
        )
    };
    let given = format!(
        "{}{}",
        group("pg2", "q2", 1, "", "", &[("p2", "2", "4Gi", "")]),
        group("pg3", "q3", 1, "", "", &[("p3", "2", "4Gi", "")])
    );
    check(vec![
        Case {
            // Only proportion's queue order on (as upstream's test tiers): q3 first takes n2;
            // q2's pod then finds both nodes full.
            name: "queue order alone: the highest priority takes the free node",
            state: state(&config(
                "allocate",
                "[{name: proportion, enabledOverused: false, enabledAllocatable: false}]",
            )),
            given: given.clone(),
            want: vec![
                (
                    "pg2 Unschedulable",
                    strings(&[
                        "p2: 0/2 nodes are available: 2 Insufficient cpu, 2 Insufficient memory.",
                    ]),
                ),
                ("pg3 Scheduled", strings(&["p3@n2"])),
            ],
        },
        Case {
            // Volcano's default configuration also checks each pod: 4 CPUs 8Gi shared by three
            // queues each asking 2 CPUs 4Gi give 4/3 CPU and 8/3Gi each; 2 > 1.333 and
            // 4Gi > 2.7Gi, so neither pending pod is allocated.
            name: "with allocatable on, no queue's share holds a 2-CPU pod",
            state: state(""),
            given,
            want: vec![
                (
                    "pg2 Unschedulable",
                    vec![format!(
                        "p2: {}",
                        over("q2", "cpu 2 > 1.333 deserved, memory 4Gi > 2.7Gi deserved")
                    )],
                ),
                (
                    "pg3 Unschedulable",
                    vec![format!(
                        "p3: {}",
                        over("q3", "cpu 2 > 1.333 deserved, memory 4Gi > 2.7Gi deserved")
                    )],
                ),
            ],
        },
    ]);
}

/// A queue for [`deserve`]: `weight`, CPU `request`, capability and guarantee (millicores).
fn attr(
    name: &str,
    weight: i64,
    request: f64,
    capability: Option<f64>,
    guarantee: f64,
) -> QueueAttr {
    let cpu = |v: f64| {
        Amount::of(&df_engine::Resources {
            milli_cpu: v as i64,
            ..Default::default()
        })
    };
    QueueAttr {
        name: name.into(),
        weight,
        priority: 0,
        created: String::new(),
        closed: None,
        real_capability: capability
            .map(|c| [("cpu".to_string(), c)].into())
            .unwrap_or_default(),
        guarantee: cpu(guarantee),
        allocated: Amount::default(),
        request: cpu(request),
        deserved: Amount::default(),
    }
}

#[test]
fn deserved_shares_fill_by_weight_within_capability_and_request() {
    struct Row {
        name: &'static str,
        total: f64,
        queues: Vec<QueueAttr>,
        want: Vec<f64>,
    }
    let rows = [
        Row {
            // 10 CPUs, weights 1 : 1 : 2. Round one: qa 2.5, qb 2.5, qc min(5, request 1) = 1,
            // raised to its guarantee 2 (met); 3 remain. Round two (weights 1 : 1): qa
            // 2.5 + 1.5 = 4, cut to its capability 3; qb 4; 1 remains. Round three: qa stays at
            // 3 (met), qb 4.5; 0.5 remains. Round four: qb 5; nothing remains.
            name: "capability, guarantee and request",
            total: 10_000.0,
            queues: vec![
                attr("qa", 1, 8_000.0, Some(3_000.0), 0.0),
                attr("qb", 1, 8_000.0, None, 0.0),
                attr("qc", 2, 1_000.0, None, 2_000.0),
            ],
            want: vec![3_000.0, 5_000.0, 2_000.0],
        },
        Row {
            // Both requests fit: each gets its request, and 1 CPU is left unshared.
            name: "requests below the cluster",
            total: 4_000.0,
            queues: vec![
                attr("qa", 1, 1_000.0, None, 0.0),
                attr("qb", 3, 2_000.0, None, 0.0),
            ],
            want: vec![1_000.0, 2_000.0],
        },
    ];
    for row in rows {
        let mut queues = row.queues;
        let total = df_engine::Resources {
            milli_cpu: row.total as i64,
            ..Default::default()
        };
        deserve(&Amount::of(&total), &mut queues);
        let got: Vec<f64> = queues.iter().map(|q| q.deserved.get("cpu")).collect();
        assert_eq!(got, row.want, "{}", row.name);
    }
}
