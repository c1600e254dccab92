//! The enqueue gate end to end (`gangs` then `plan_gangs`): rows after Volcano's
//! `actions/enqueue/enqueue_test.go`, `plugins/overcommit/overcommit_test.go` and
//! `plugins/proportion/proportion_test.go`, in data of our own. The cluster: nodes `e-1` and
//! `e-2` of 4 CPU and 8Gi each (8 CPU, 16Gi in all), Volcano's default configuration
//! (overcommit-factor 1.2, so overcommit lets in up to 9.6 CPU and 19.2Gi) unless a row gives
//! its own.

use crate::gang::GangStatus;
use crate::gang::volcano::test_support::{plan_given, state_of};

const NODES: &str = "\
apiVersion: v1
kind: Node
metadata: {name: e-1}
status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}
---
apiVersion: v1
kind: Node
metadata: {name: e-2}
status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}
---
";

/// A Volcano PodGroup `name` in `queue` (empty: none named) with `min_resources` (flow YAML,
/// empty: none), `phase` (empty: none), minMember 1, and its one pod of `cpu` CPU.
fn group(name: &str, queue: &str, min_resources: &str, cpu: &str) -> String {
    let queue = if queue.is_empty() {
        String::new()
    } else {
        format!(", queue: {queue}")
    };
    let min = if min_resources.is_empty() {
        String::new()
    } else {
        format!(", minResources: {min_resources}")
    };
    format!(
        "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {{name: {name}, namespace: default}}\nspec: {{minMember: 1{queue}{min}}}\n---\n{}",
        pod(&format!("{name}-0"), name, cpu, "")
    )
}

/// A pod of `cpu` CPU joining Volcano PodGroup `group` (empty: none), bound to `node` (empty:
/// pending).
fn pod(name: &str, group: &str, cpu: &str, node: &str) -> String {
    let annotations = if group.is_empty() {
        String::new()
    } else {
        format!("\n  annotations: {{scheduling.k8s.io/group-name: {group}}}")
    };
    let node = if node.is_empty() {
        String::new()
    } else {
        format!("nodeName: {node}, ")
    };
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: default{annotations}\nspec: {{{node}schedulerName: volcano, containers: [{{name: c, resources: {{requests: {{cpu: \"{cpu}\"}}}}}}]}}\n---\n"
    )
}

/// A state PodGroup already past the gate: `phase`, `min_resources`, minMember `min`.
fn enqueued(name: &str, phase: &str, min: i32, min_resources: &str) -> String {
    format!(
        "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {{name: {name}, namespace: default}}\nspec: {{minMember: {min}, minResources: {min_resources}}}\nstatus: {{phase: {phase}}}\n---\n"
    )
}

fn queue(name: &str, spec: &str, state: &str) -> String {
    format!(
        "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {{name: {name}}}\nspec: {spec}\nstatus: {{state: {state}}}\n---\n"
    )
}

/// The volcano-scheduler ConfigMap with `actions` and one tier of `plugins` (flow YAML).
fn config(actions: &str, plugins: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: volcano-scheduler-configmap, namespace: volcano-system}}\ndata:\n  volcano-scheduler.conf: |\n    actions: \"{actions}\"\n    tiers:\n    - plugins: [{{name: priority}}, {{name: gang}}]\n    - plugins: {plugins}\n---\n"
    )
}

/// A Volcano Job `name` of `min_available` with tasks `(task, replicas, cpu, priorityClassName)`.
fn job(name: &str, min_available: i32, tasks: &[(&str, i32, &str, &str)]) -> String {
    let tasks: String = tasks
        .iter()
        .map(|(task, replicas, cpu, class)| {
            format!(
                "  - {{name: {task}, replicas: {replicas}, template: {{spec: {{priorityClassName: '{class}', containers: [{{name: c, resources: {{requests: {{cpu: \"{cpu}\"}}}}}}]}}}}}}\n"
            )
        })
        .collect();
    format!(
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {{name: {name}, namespace: default}}\nspec:\n  schedulerName: volcano\n  minAvailable: {min_available}\n  tasks:\n{tasks}---\n"
    )
}

/// A bound pod of Volcano Job `job` (the job controller's label) of `cpu` CPU.
fn job_pod(name: &str, job: &str, cpu: &str, node: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: default\n  labels: {{volcano.sh/job-name: {job}}}\nspec: {{nodeName: {node}, schedulerName: volcano, containers: [{{name: c, resources: {{requests: {{cpu: \"{cpu}\"}}}}}}]}}\n---\n"
    )
}

const HIGH: &str = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n---\n";

const QUOTA: &str = "not enqueued: queue resource quota insufficient: insufficient cpu \
                     (Volcano's enqueue action leaves the PodGroup Pending)";

/// A group's name, status and first blocking reason (empty when none).
type Outcome = (String, GangStatus, String);

/// Each given group's status and, when not scheduled, its first blocking reason.
fn outcome(state_extra: &str, given: &str) -> Vec<Outcome> {
    let state = state_of(&format!("{NODES}{state_extra}"));
    plan_given(&state, given)
        .into_iter()
        .map(|p| {
            let reason = p
                .blocked
                .first()
                .map(|b| b.reason.clone())
                .unwrap_or_default();
            (p.name, p.status, reason)
        })
        .collect()
}

#[test]
fn a_pod_group_is_enqueued_only_when_overcommit_and_proportion_permit() {
    use GangStatus::{Scheduled, Unschedulable};
    let ok = |name: &str| (name.to_string(), Scheduled, String::new());
    let refused = |name: &str, reason: &str| (name.to_string(), Unschedulable, reason.to_string());
    let rows: Vec<(&str, String, String, Vec<Outcome>)> = vec![
        // 6 <= 9.6 (overcommit) and 6 <= 8 (proportion).
        (
            "fits both",
            String::new(),
            group("six", "", "{cpu: 6}", "1"),
            vec![ok("six")],
        ),
        // overcommit permits 9 <= 9.6; proportion rejects 9 > 8.
        (
            "above the queue",
            String::new(),
            group("nine", "", "{cpu: 9}", "1"),
            vec![refused("nine", QUOTA)],
        ),
        // a (5) is let in first and counted: b's 4 + 5 = 9 > 8 for proportion (9 <= 9.6 for
        // overcommit).
        (
            "one session",
            String::new(),
            format!(
                "{}{}",
                group("a", "", "{cpu: 5}", "1"),
                group("b", "", "{cpu: 4}", "1")
            ),
            vec![ok("a"), refused("b", QUOTA)],
        ),
        // 6 CPU of pods Volcano does not manage: proportion's queue holds nothing (3 <= 8) and
        // overcommit's idle is 9.6 - 6 = 3.6 >= 3; the 1-CPU pod fits the 2 CPU left.
        (
            "other pods",
            format!(
                "{}{}",
                pod("web-0", "", "3", "e-1"),
                pod("web-1", "", "3", "e-2")
            ),
            group("three", "", "{cpu: 3}", "1"),
            vec![ok("three")],
        ),
        // A Running group of the default queue holds its 6 CPU minimum: 3 + 6 > 8.
        (
            "running group",
            format!(
                "{}{}{}",
                enqueued("busy", "Running", 2, "{cpu: 6}"),
                pod("busy-0", "busy", "3", "e-1"),
                pod("busy-1", "busy", "3", "e-2")
            ),
            group("three", "", "{cpu: 3}", "1"),
            vec![refused("three", QUOTA)],
        ),
        // The queue's capability caps it at 4 CPU: 5 > 4.
        (
            "capability",
            queue("default", "{weight: 1, capability: {cpu: 4}}", "Open"),
            group("five", "", "{cpu: 5}", "1"),
            vec![refused("five", QUOTA)],
        ),
        // A closed queue lets nothing in (upstream records no event).
        (
            "closed queue",
            format!(
                "{}{}",
                queue("default", "{weight: 1}", "Open"),
                queue("shut", "{weight: 1}", "Closed")
            ),
            group("one", "shut", "{cpu: 1}", "1"),
            vec![refused(
                "one",
                "not enqueued: queue shut is Closed (Volcano's enqueue action leaves the PodGroup Pending)",
            )],
        ),
        // No minResources: the gate is skipped; allocate then passes the 100-CPU pod over, as
        // its queue deserves only the cluster's 8 CPUs (proportion's Allocatable comes before
        // any node is tried).
        (
            "no minResources",
            String::new(),
            group("huge", "", "", "100"),
            vec![refused(
                "huge",
                "not allocated: queue default is over its deserved share with this pod: cpu \
                 100 > 8 deserved",
            )],
        ),
        // overcommit-factor 1.0 and an Inqueue group of 4: overcommit rejects 4 + 5 > 8 first,
        // and proportion is not asked.
        (
            "overcommit first",
            format!(
                "{}{}",
                config(
                    "enqueue, allocate, backfill",
                    "[{name: overcommit, arguments: {overcommit-factor: 1.0}}, {name: proportion}]"
                ),
                enqueued("held", "Inqueue", 1, "{cpu: 4}")
            ),
            group("five", "", "{cpu: 5}", "1"),
            vec![refused(
                "five",
                "not enqueued: resource in cluster is overused: overused cpu (Volcano's enqueue action leaves the PodGroup Pending)",
            )],
        ),
        // 20Gi > 16Gi x 1.2 = 19.2Gi; CPU is not named, so not compared.
        (
            "memory only",
            String::new(),
            group("mem", "", "{memory: 20Gi}", "1"),
            vec![refused(
                "mem",
                "not enqueued: resource in cluster is overused: overused memory (Volcano's enqueue action leaves the PodGroup Pending)",
            )],
        ),
        // Without the enqueue action every group is let in: the 9-CPU minimum is not checked.
        (
            "no enqueue action",
            config(
                "allocate, backfill",
                "[{name: overcommit}, {name: proportion}]",
            ),
            group("nine", "", "{cpu: 9}", "1"),
            vec![ok("nine")],
        ),
        // A Job's PodGroup asks for its first minAvailable pods: 3 x 3 = 9 CPU > 8.
        (
            "job minimum",
            String::new(),
            job("big", 3, &[("w", 3, "3", "")]),
            vec![refused("big", QUOTA)],
        ),
        // minAvailable 2 below the tasks' minimums (2 + 2): the first 2 pods by priority,
        // `hi`'s 2 x 4.5 = 9 CPU > 8 (in task order they would be `lo`'s 2 x 1 CPU).
        (
            "job by priority",
            HIGH.to_string(),
            job(
                "mixed",
                2,
                &[("lo", 2, "1", ""), ("hi", 2, "4500m", "high")],
            ),
            vec![refused("mixed", QUOTA)],
        ),
        // A running Job of the default queue holds its 2 x 3 = 6 CPU minimum: 3 + 6 > 8.
        (
            "running job",
            format!(
                "{}{}{}",
                job("busy", 2, &[("w", 2, "3", "")]),
                job_pod("busy-w-0", "busy", "3", "e-1"),
                job_pod("busy-w-1", "busy", "3", "e-2")
            ),
            group("three", "", "{cpu: 3}", "1"),
            vec![refused("three", QUOTA)],
        ),
        // A live cluster's running Job with its PodGroup `busy-pg`, which its pods join:
        // counted once, 2 + 6 <= 8 (counted twice it would be 2 + 12).
        (
            "job with its pod group",
            format!(
                "{}{}{}{}",
                job("busy", 2, &[("w", 2, "3", "")]),
                enqueued("busy-pg", "Running", 2, "{cpu: 6}"),
                job_pod("busy-w-0", "busy", "3", "e-1").replace(
                    "labels:",
                    "annotations: {scheduling.k8s.io/group-name: busy-pg}\n  labels:"
                ),
                job_pod("busy-w-1", "busy", "3", "e-2").replace(
                    "labels:",
                    "annotations: {scheduling.k8s.io/group-name: busy-pg}\n  labels:"
                )
            ),
            group("two", "", "{cpu: 2}", "1"),
            vec![ok("two")],
        ),
    ];
    for (name, state, given, want) in rows {
        assert_eq!(outcome(&state, &given), want, "{name}");
    }
}
