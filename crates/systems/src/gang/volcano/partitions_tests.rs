//! Partitioned tasks end to end (`gangs` then `plan_gangs`), issue 31's rows 4.3, 4.4 and 4.6
//! without HyperNodes (a partition's own network topology is not modelled), in data of our
//! own: node `n0` of 8 CPUs free, node `n1` of 8 CPUs with `used` CPUs taken by a plain pod;
//! task `t0` of 8 pods of 2 CPUs in 2 partitions of 4.

use std::sync::Arc;

use df_engine::{Profile, Scheduler};
use df_manifest::ManifestSet;
use df_model::gang::PARTITION_ID_LABEL;
use df_state::ClusterState;

use super::Partitions;
use crate::gang::volcano::expand_job;
use crate::gang::{GangOptions, gangs, plan_gangs};

fn parse(yaml: &str) -> Vec<df_manifest::Manifest> {
    let (manifests, problems) = df_manifest::parse_text(&Arc::from("test.yaml"), yaml);
    assert!(problems.is_empty(), "{problems:?}");
    manifests
}

fn job_of(yaml: &str) -> df_model::VolcanoJob {
    match parse(yaml).remove(0).object {
        df_model::Object::VolcanoJob(job) => job,
        _ => panic!("a Volcano Job"),
    }
}

/// Job `J` with `tasks`, each `(name, replicas, cpu, extra)` (`extra`: more task fields, flow
/// YAML entries with a leading comma).
fn job(tasks: &[(&str, i32, &str, &str)]) -> String {
    let tasks: String = tasks
        .iter()
        .map(|(name, replicas, cpu, extra)| {
            format!(
                "  - {{name: {name}, replicas: {replicas}{extra}, template: {{spec: {{containers: [{{name: c, resources: {{requests: {{cpu: \"{cpu}\"}}}}}}]}}}}}}\n"
            )
        })
        .collect();
    format!(
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {{name: j, namespace: default}}\nspec:\n  schedulerName: volcano\n  tasks:\n{tasks}---\n"
    )
}

/// n0 (8 CPUs, free) and n1 (8 CPUs, `used` of them taken by a running plain pod).
fn cluster(used: &str) -> ClusterState {
    let mut yaml = String::new();
    for n in ["n0", "n1"] {
        yaml.push_str(&format!(
            "apiVersion: v1\nkind: Node\nmetadata: {{name: {n}}}\nstatus: {{allocatable: {{cpu: \"8\", memory: 8Gi, pods: \"110\"}}}}\n---\n"
        ));
    }
    yaml.push_str(&format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: other, namespace: default}}\nspec: {{nodeName: n1, containers: [{{name: c, resources: {{requests: {{cpu: \"{used}\"}}}}}}]}}\nstatus: {{phase: Running}}\n---\n"
    ));
    ClusterState::from_objects(parse(&yaml).into_iter().map(|m| m.object))
}

/// The job's status, minimum and each pod as `pod@node` or `pod: reason`, in planning order.
fn plan(state: &ClusterState, yaml: &str) -> (String, Vec<String>) {
    let manifests = ManifestSet {
        manifests: parse(yaml),
        ..ManifestSet::default()
    };
    let opts = GangOptions::default();
    let mut scheduler = Scheduler::new(state, Profile::default());
    let plan = plan_gangs(&gangs(&manifests, state, &opts), &mut scheduler, &opts)
        .unwrap()
        .remove(0);
    let rows = plan
        .pods
        .iter()
        .map(|r| match (&r.node, &r.reason) {
            (Some(node), _) => format!("{}@{node}", r.pod),
            (None, reason) => format!("{}: {}", r.pod, reason.as_deref().unwrap_or("")),
        })
        .collect();
    (
        format!("{} min {}", plan.status.as_str(), plan.min_member),
        rows,
    )
}

/// 4.6: the job controller's `volcano.sh/partition-id` is the pod's ordinal / partitionSize.
#[test]
fn pods_are_labelled_with_their_partition() {
    // 7 replicas in partitions of 3 (the webhook would ask for 3 x 3 = 9; the label does not).
    let job = job_of(&job(&[(
        "t0",
        7,
        "1",
        ", partitionPolicy: {totalPartitions: 3, partitionSize: 3}",
    )]));
    let ids: Vec<String> = expand_job(&job)
        .iter()
        .map(|(_, pod)| {
            pod.metadata
                .labels
                .get(PARTITION_ID_LABEL)
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(ids, ["0", "0", "0", "1", "1", "1", "2"]);
}

/// Required partitions (the first `minPartitions` of each task) first, then the pods of tasks
/// without a policy, then the other partitions; partitions by number, then task.
#[test]
fn sub_jobs_are_taken_required_first() {
    let job = job_of(&job(&[
        (
            "a",
            4,
            "1",
            ", partitionPolicy: {totalPartitions: 2, partitionSize: 2, minPartitions: 1}",
        ),
        ("ps", 1, "1", ""),
        (
            "b",
            4,
            "1",
            ", partitionPolicy: {totalPartitions: 2, partitionSize: 2}",
        ),
    ]));
    let tasks: Vec<&str> = ["a", "a", "a", "a", "ps", "b", "b", "b", "b"].into();
    let partitions = Partitions::of(&job, &tasks).unwrap();
    // a's partition 0 (pods 0, 1) is required; then ps (4); then partition 0 of b (5, 6),
    // partition 1 of a (2, 3) and of b (7, 8).
    assert_eq!(
        partitions.order(&(0..9).collect::<Vec<_>>()),
        [0, 1, 4, 5, 6, 2, 3, 7, 8]
    );
}

/// A row: its name, the cluster, the job, and its status and pods.
type Case = (
    &'static str,
    ClusterState,
    String,
    (&'static str, Vec<String>),
);

#[test]
fn each_partition_binds_all_its_pods_or_none() {
    let partitioned = |min: &str| {
        job(&[(
            "t0",
            8,
            "2",
            &format!(", partitionPolicy: {{totalPartitions: 2, partitionSize: 4{min}}}"),
        )])
    };
    // n1 with 8 CPUs taken: nothing of it is left.
    const FULL: &str = "0/2 nodes are available: 2 Insufficient cpu.";
    let gave_up = |failed: &str| {
        format!(
            "partition 1 of task t0 not placed: {failed} was not, and a partition binds all \
             its 4 pods or none"
        )
    };
    const NOT_ENQUEUED: &str = "not enqueued: resource in cluster is overused: overused cpu \
                                (Volcano's enqueue action leaves the PodGroup Pending)";
    let cases: [Case; 4] = [
        (
            // 4.3: minPartitions 1 -> the task's minAvailable 1 x 4 = 4, the job's 4. Partition
            // 0 fills n0 (4 x 2 = 8 CPUs); partition 1 finds no room: the job runs on one.
            "4.3 one partition of minPartitions 1",
            cluster("8"),
            partitioned(", minPartitions: 1"),
            (
                "Scheduled min 4",
                vec![
                    "j-t0-0@n0".into(),
                    "j-t0-1@n0".into(),
                    "j-t0-2@n0".into(),
                    "j-t0-3@n0".into(),
                    format!("j-t0-4: {FULL}"),
                    format!("j-t0-5: {}", gave_up("j-t0-4")),
                    format!("j-t0-6: {}", gave_up("j-t0-4")),
                    format!("j-t0-7: {}", gave_up("j-t0-4")),
                ],
            ),
        ),
        (
            // 4.4: no minPartitions -> minAvailable 8 (the replicas), minResources 8 x 2 = 16
            // CPUs. n1 keeps 8 - 2 = 6 CPUs: partition 1's first three pods fit, the fourth
            // not; one whole partition is not enough, so nothing binds.
            "4.4 without minPartitions every pod is needed",
            cluster("2"),
            partitioned(""),
            (
                "Unschedulable min 8",
                vec![
                    "j-t0-0: gang not ready (minAvailable)".into(),
                    "j-t0-1: gang not ready (minAvailable)".into(),
                    "j-t0-2: gang not ready (minAvailable)".into(),
                    "j-t0-3: gang not ready (minAvailable)".into(),
                    format!("j-t0-4: {}", gave_up("j-t0-7")),
                    format!("j-t0-5: {}", gave_up("j-t0-7")),
                    format!("j-t0-6: {}", gave_up("j-t0-7")),
                    format!("j-t0-7: {FULL}"),
                ],
            ),
        ),
        (
            // 4.4 with n1 full: the job's minResources of 16 CPUs is above overcommit's
            // 16 x 1.2 - 8 used = 11.2, so the enqueue action never lets it in.
            "4.4 on a cluster too full to enqueue",
            cluster("8"),
            partitioned(""),
            (
                "Unschedulable min 8",
                (0..8)
                    .map(|i| format!("j-t0-{i}: {NOT_ENQUEUED}"))
                    .collect(),
            ),
        ),
        (
            // n1 keeps 8 - 4 = 4 CPUs. The default scores spread partition 0 (n0 3 pods, n1
            // one: at 4 CPUs each, the third pod's nodes tie and go to n1), leaving 2 + 2 CPUs:
            // two pods of partition 1 would fit, not the third, so both are taken back.
            "a partition that half fits binds none",
            cluster("4"),
            partitioned(", minPartitions: 1"),
            (
                "Scheduled min 4",
                vec![
                    "j-t0-0@n0".into(),
                    "j-t0-1@n0".into(),
                    "j-t0-2@n1".into(),
                    "j-t0-3@n0".into(),
                    format!("j-t0-4: {}", gave_up("j-t0-6")),
                    format!("j-t0-5: {}", gave_up("j-t0-6")),
                    format!("j-t0-6: {FULL}"),
                    format!("j-t0-7: {}", gave_up("j-t0-6")),
                ],
            ),
        ),
    ];
    for (name, state, yaml, (status, rows)) in cases {
        assert_eq!(plan(&state, &yaml), (status.to_string(), rows), "{name}");
    }
}
