//! Volcano Jobs and PodGroups planned end to end (`gangs` then `plan_gangs`) as the allocate
//! action places them past a pod that fits nowhere: `allocate_test.go`'s "prepredicate failed"
//! rows and `job_info.go` NeedContinueAllocating, with the job webhook's minimums, in data of
//! our own.

use df_state::ClusterState;

use super::job_gang;
use crate::gang::GroupPlan;
use crate::gang::volcano::test_support::{parse, plan_given, pod_row, state_of};

/// Nodes `(role, cpu)` labelled `role: <role>`, named `n-<role>`.
fn nodes(roles: &[(&str, &str)]) -> ClusterState {
    let yaml: String = roles
        .iter()
        .map(|(role, cpu)| {
            format!(
                "apiVersion: v1\nkind: Node\nmetadata: {{name: n-{role}, labels: {{role: {role}}}}}\nstatus:\n  allocatable: {{cpu: \"{cpu}\", memory: 4Gi, pods: \"110\"}}\n---\n"
            )
        })
        .collect();
    state_of(&yaml)
}

/// The spec of a 1-CPU pod for nodes labelled `role: <role>` (flow YAML).
fn spec(role: &str) -> String {
    format!(
        "{{schedulerName: volcano, nodeSelector: {{role: {role}}}, containers: [{{name: c, resources: {{requests: {{cpu: \"1\"}}}}}}]}}"
    )
}

/// A Volcano PodGroup `pg` of `min` with `min_task_member` (flow YAML), and pods
/// `(name, task)`: task `ps` selects `role: ps`, any other `role: worker`.
fn pod_group(min: i32, min_task_member: &str, pods: &[(&str, &str)]) -> String {
    let mut yaml = format!(
        "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {{name: pg, namespace: default}}\nspec: {{minMember: {min}, minTaskMember: {min_task_member}}}\n---\n"
    );
    for (name, task) in pods {
        let role = if *task == "ps" { "ps" } else { "worker" };
        yaml.push_str(&format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: default\n  annotations: {{scheduling.k8s.io/group-name: pg, volcano.sh/task-spec: {task}}}\nspec: {}\n---\n",
            spec(role)
        ));
    }
    yaml
}

/// A Volcano Job `tf` of `min_available` with tasks `(name, replicas, minAvailable)`; task
/// `ps` selects `role: ps`, `worker` selects `role: worker`.
fn job(min_available: i32, tasks: &[(&str, i32, Option<i32>)]) -> String {
    let tasks: String = tasks
        .iter()
        .map(|(name, replicas, min)| {
            let min = min
                .map(|m| format!(", minAvailable: {m}"))
                .unwrap_or_default();
            format!(
                "  - {{name: {name}, replicas: {replicas}{min}, template: {{spec: {}}}}}\n",
                spec(name)
            )
        })
        .collect();
    format!(
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {{name: tf, namespace: default}}\nspec:\n  schedulerName: volcano\n  minAvailable: {min_available}\n  tasks:\n{tasks}---\n"
    )
}

/// The one group of `yaml` planned on `state`.
fn plan(state: &ClusterState, yaml: &str) -> GroupPlan {
    let mut plans = plan_given(state, yaml);
    assert_eq!(plans.len(), 1);
    plans.remove(0)
}

/// Each pod as `name@node`, or `name: reason` when it is not placed.
fn rows(plan: &GroupPlan) -> Vec<String> {
    plan.pods.iter().map(pod_row).collect()
}

/// Why a 1-CPU pod fits neither node of [`both`] once its own node is full.
const FULL: &str = "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't match Pod's node affinity/selector.";
/// Why a pod of [`both`] is not tried once ps-0 and w-0 hold the cluster's 2 CPUs: its queue
/// (`default`, the only one) deserves 2 CPUs (the cluster's 2, below its request of 4 pods x
/// 1 CPU), and proportion's `Allocatable` is checked before any node (`allocate.go`
/// allocateResourcesForTasks): 2 + 1 = 3 > 2.
const QUEUE_FULL: &str =
    "not allocated: queue default is over its deserved share with this pod: cpu 3 > 2 deserved";
/// Why a `ps` pod fits the one worker node of [`workers`].
const NO_PS_NODE: &str =
    "0/1 nodes are available: 1 node(s) didn't match Pod's node affinity/selector.";

/// n-ps and n-worker, 1 CPU each: one pod of each task.
fn both() -> ClusterState {
    nodes(&[("ps", "1"), ("worker", "1")])
}

/// Only n-worker, of `cpu` CPUs: no `ps` pod fits.
fn workers(cpu: &str) -> ClusterState {
    nodes(&[("worker", cpu)])
}

fn strings(rows: &[&str]) -> Vec<String> {
    rows.iter().map(|r| r.to_string()).collect()
}

struct Case {
    name: &'static str,
    state: ClusterState,
    group: String,
    status: &'static str,
    rows: Vec<String>,
}

fn check(cases: Vec<Case>) {
    for case in cases {
        let plan = plan(&case.state, &case.group);
        assert_eq!(
            (plan.status.as_str(), rows(&plan)),
            (case.status, case.rows),
            "{}",
            case.name
        );
    }
}

#[test]
fn pod_groups_go_on_past_a_failed_task_until_their_minimums_are_met() {
    let four = [
        ("ps-0", "ps"),
        ("ps-1", "ps"),
        ("w-0", "worker"),
        ("w-1", "worker"),
    ];
    check(vec![
        Case {
            // min 1, no task minimums: ps-0 fits nowhere, ps has no minimum, so w-0 is tried
            // and makes the group ready ("prepredicate failed: node selector does not match").
            name: "a task without a minimum fails: the next task is tried",
            state: workers("1"),
            group: pod_group(1, "{}", &[("ps-0", "ps"), ("w-0", "worker")]),
            status: "Scheduled",
            rows: vec![format!("ps-0: {NO_PS_NODE}"), "w-0@n-worker".into()],
        },
        Case {
            // min 2 = ps 1 + worker 1: ps-1 fails but ps has its 1 (ps-0), so the workers go
            // on and w-0 makes 2 ("continue on until min member meet"); w-1 is still
            // considered, as Volcano comes back for a ready job's other pods, but its queue
            // has no room left.
            name: "the failed task already has its minimum: go on",
            state: both(),
            group: pod_group(2, "{ps: 1, worker: 1}", &four),
            status: "Scheduled",
            rows: vec![
                "ps-0@n-ps".into(),
                format!("ps-1: {FULL}"),
                "w-0@n-worker".into(),
                format!("w-1: {QUEUE_FULL}"),
            ],
        },
        Case {
            // min 2 = ps 2 + worker 0: ps-1 fails with ps at 1 of 2: the group can never be
            // ready, Volcano breaks off and binds nothing ("master's min member can not be
            // allocated").
            name: "the failed task is short of its minimum: break off",
            state: both(),
            group: pod_group(2, "{ps: 2, worker: 0}", &four),
            status: "Unschedulable",
            rows: vec![
                "ps-0: gang not ready: only 1 of minMember 2 pods fit (0 running)".into(),
                format!("ps-1: {FULL}"),
                "w-0: not tried: the gang can no longer reach minMember 2".into(),
                "w-1: not tried: the gang can no longer reach minMember 2".into(),
            ],
        },
        Case {
            // min 1 < ps 1 + worker 1 = 2: the task minimums are skipped. ps-0 fails (no ps
            // node), ps-1 is skipped, 0 fit + 2 workers left >= 1: w-0 binds alone. The queue
            // deserves the cluster's 1 CPU: w-1 would take it to 1 + 1 = 2.
            name: "minMember below the task minimums' sum: any pods will do",
            state: workers("1"),
            group: pod_group(1, "{ps: 1, worker: 1}", &four),
            status: "Scheduled",
            rows: strings(&[
                &format!("ps-0: {NO_PS_NODE}"),
                "ps-1: not tried: a pod of task ps already fit no node, so Volcano skips the task's other pods",
                "w-0@n-worker",
                "w-1: not allocated: queue default is over its deserved share with this pod: cpu 2 > 1 deserved",
            ]),
        },
        Case {
            // min 3 = all 3 pods: ps-1 fails and every pod is needed: w-0 is not tried.
            name: "every pod needed: the first failure ends the attempt",
            state: both(),
            group: pod_group(
                3,
                "{}",
                &[("ps-0", "ps"), ("ps-1", "ps"), ("w-0", "worker")],
            ),
            status: "Unschedulable",
            rows: vec![
                "ps-0: gang not ready: only 1 of minMember 3 pods fit (0 running)".into(),
                format!("ps-1: {FULL}"),
                "w-0: not tried: the gang can no longer reach minMember 3".into(),
            ],
        },
    ]);
}

#[test]
fn jobs_go_on_past_a_failed_task_with_the_webhook_minimums() {
    let ps_worker = [("ps", 2, Some(1)), ("worker", 2, Some(1))];
    // The same outcome for minAvailable 2 and for minAvailable unset (the webhook's sum of the
    // tasks' minimums, 1 + 1): tf-ps-1 fails with ps at its minimum, tf-worker-0 makes 2.
    let go_on = |name, min| Case {
        name,
        state: both(),
        group: job(min, &ps_worker),
        status: "Scheduled",
        rows: vec![
            "tf-ps-0@n-ps".into(),
            format!("tf-ps-1: {FULL}"),
            "tf-worker-0@n-worker".into(),
            format!("tf-worker-1: {QUEUE_FULL}"),
        ],
    };
    check(vec![
        go_on("task minimums met: go on", 2),
        go_on("minAvailable unset: the sum of the task minimums", 0),
        Case {
            // Tasks without minAvailable need their replicas: ps 1 + worker 3 = 4 > min 2, so
            // the task minimums are skipped; tf-ps-0 fails, 3 workers are left for 2. The queue
            // deserves the cluster's 2 CPUs: tf-worker-2 would take it to 2 + 1 = 3.
            name: "minAvailable below the tasks' replicas: any pods will do",
            state: workers("2"),
            group: job(2, &[("ps", 1, None), ("worker", 3, None)]),
            status: "Scheduled",
            rows: strings(&[
                &format!("tf-ps-0: {NO_PS_NODE}"),
                "tf-worker-0@n-worker",
                "tf-worker-1@n-worker",
                "tf-worker-2: not allocated: queue default is over its deserved share with this pod: cpu 3 > 2 deserved",
            ]),
        },
        Case {
            // min 4 = all 4 pods: tf-ps-0 fails and the workers are not tried. (4 CPU, so that
            // the job's 4-CPU minResources passes the enqueue gate.)
            name: "every pod needed: the first failure ends the job",
            state: workers("4"),
            group: job(4, &[("ps", 1, None), ("worker", 3, None)]),
            status: "Unschedulable",
            rows: strings(&[
                &format!("tf-ps-0: {NO_PS_NODE}"),
                "tf-worker-0: not tried: tf-ps-0 fits no node",
                "tf-worker-1: not tried: tf-ps-0 fits no node",
                "tf-worker-2: not tried: tf-ps-0 fits no node",
            ]),
        },
    ]);
}

/// The webhook's `minAvailable` and the controller's `minTaskMember` (`mutate_job.go`
/// patchDefaultMinAvailable and mutateSpec, `getMinTaskMember`).
#[test]
fn job_minimums_default_as_the_webhook_sets_them() {
    type Tasks<'a> = &'a [(&'a str, i32, Option<i32>)];
    type Case<'a> = (&'a str, i32, Tasks<'a>, i64, &'a [(&'a str, i64)]);
    let cases: [Case; 4] = [
        // 1 + 1.
        (
            "unset: the tasks' minAvailable",
            0,
            &[("ps", 2, Some(1)), ("worker", 2, Some(1))],
            2,
            &[("ps", 1), ("worker", 1)],
        ),
        // No task minimum: each task's replicas, 2 + 3.
        (
            "unset: the tasks' replicas",
            0,
            &[("ps", 2, None), ("worker", 3, None)],
            5,
            &[("ps", 2), ("worker", 3)],
        ),
        // Given: kept; the worker task's minimum is its 3 replicas.
        (
            "given",
            3,
            &[("ps", 2, Some(1)), ("worker", 3, None)],
            3,
            &[("ps", 1), ("worker", 3)],
        ),
        // Rejected by the webhook; read as unset.
        ("negative", -1, &[("ps", 2, None)], 2, &[("ps", 2)]),
    ];
    for (name, min, tasks, want_min, want_tasks) in cases {
        let manifest = parse(&job(min, tasks)).remove(0);
        let df_model::Object::VolcanoJob(job) = manifest.object else {
            panic!("a Volcano Job")
        };
        let gang = job_gang(&job);
        let per_task: Vec<(&str, i64)> = gang
            .min_task_member
            .iter()
            .map(|(t, n)| (t.as_str(), *n))
            .collect();
        assert_eq!(
            (gang.min_member, per_task.as_slice()),
            (want_min, want_tasks),
            "{name}"
        );
    }
}

/// A Job's running tasks pin it like a PodGroup's bound pods: here to spine s0 (tier 2, over
/// racks r-a and r-b) while the job allows tier 1 only, so its third worker is never placed,
/// and the two running ones are shown running.
#[test]
fn a_job_whose_running_tasks_pin_it_above_its_highest_tier_places_no_more() {
    let mut yaml = String::new();
    for n in ["a1", "b1"] {
        yaml.push_str(&format!(
            "apiVersion: v1\nkind: Node\nmetadata: {{name: {n}, labels: {{role: worker}}}}\nstatus:\n  allocatable: {{cpu: \"4\", memory: 4Gi, pods: \"110\"}}\n---\n"
        ));
    }
    for (name, tier, kind, members) in [
        ("r-a", 1, "Node", "a1"),
        ("r-b", 1, "Node", "b1"),
        ("s0", 2, "HyperNode", "r-a"),
    ] {
        let mut list =
            format!("  - {{type: {kind}, selector: {{exactMatch: {{name: {members}}}}}}}\n");
        if name == "s0" {
            list.push_str("  - {type: HyperNode, selector: {exactMatch: {name: r-b}}}\n");
        }
        yaml.push_str(&format!(
            "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {{name: {name}}}\nspec:\n  tier: {tier}\n  members:\n{list}---\n"
        ));
    }
    for (i, on) in ["a1", "b1"].iter().enumerate() {
        yaml.push_str(&format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: tf-worker-{i}, namespace: default, annotations: {{volcano.sh/task-spec: worker}}}}\nspec: {{schedulerName: volcano, nodeName: {on}, containers: [{{name: c, resources: {{requests: {{cpu: \"1\"}}}}}}]}}\nstatus: {{phase: Running}}\n---\n"
        ));
    }
    let state = state_of(&yaml);
    let mut job = job(2, &[("worker", 3, None)]);
    job = job.replace(
        "  minAvailable: 2\n",
        "  minAvailable: 2\n  networkTopology: {mode: hard, highestTierAllowed: 1}\n",
    );
    let plan = plan(&state, &job);
    // 2 running = minAvailable 2: the job runs; only tf-worker-2 waits.
    assert_eq!(plan.status.as_str(), "Scheduled");
    assert_eq!(
        rows(&plan),
        [
            "tf-worker-0@a1",
            "tf-worker-1@b1",
            "tf-worker-2: its pods already run on a1, b1, in HyperNode s0 (tier2), Volcano's \
             AllocatedHyperNode for the job, above highestTierAllowed 1: Volcano places none of \
             its other pods (allocated hyperNode s0 tier is greater than highest allowed tier 1)",
        ]
    );
}
