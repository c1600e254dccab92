//! Partitioned tasks end to end (`gangs` then `plan_gangs`), issue 31's rows 4.3, 4.4 and 4.6
//! without HyperNodes (a partition's own network topology is not modelled), in data of our
//! own: node `n0` of 8 CPUs free, node `n1` of 8 CPUs with `used` CPUs taken by a plain pod;
//! task `t0` of 8 pods of 2 CPUs in 2 partitions of 4.

use df_model::gang::PARTITION_ID_LABEL;
use df_state::ClusterState;

use super::Partitions;
use crate::gang::volcano::expand_job;
use crate::gang::volcano::test_support::{parse, plan_given, pod_row, state_of};

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
    state_of(&yaml)
}

/// The job's status, minimum and each pod as `pod@node` or `pod: reason`, in planning order.
fn plan(state: &ClusterState, yaml: &str) -> (String, Vec<String>) {
    let plan = plan_given(state, yaml).remove(0);
    let rows = plan.pods.iter().map(pod_row).collect();
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
    for (name, state, yaml, (status, rows)) in cases.into_iter().chain([(
        // A task without a policy beside a partitioned one: t0's required partition 0 first
        // (4 of n0's 8 CPUs), then ps (2 more), then partition 1: its first pod takes n0's
        // last 2 CPUs, its second fits nowhere, so both are taken back. The job's minimum is
        // ps 1 + t0 1 x 2 = 3: ready with partition 0 and ps.
        "a task without a policy goes between the required partitions and the others",
        cluster("8"),
        job(&[
            (
                "t0",
                4,
                "2",
                ", partitionPolicy: {totalPartitions: 2, partitionSize: 2, minPartitions: 1}",
            ),
            ("ps", 1, "2", ""),
        ]),
        (
            "Scheduled min 3",
            vec![
                "j-t0-0@n0".to_string(),
                "j-t0-1@n0".into(),
                "j-ps-0@n0".into(),
                "j-t0-2: partition 1 of task t0 not placed: j-t0-3 was not, and a partition \
                 binds all its 2 pods or none"
                    .into(),
                format!("j-t0-3: {FULL}"),
            ],
        ),
    )]) {
        assert_eq!(plan(&state, &yaml), (status.to_string(), rows), "{name}");
    }
}

/// Topology T3 of issue 31: tier-1 HyperNodes `h0` (n0-n3) and `h1` (n4-n7) under tier-2 `h2`;
/// nodes of `cpu` CPUs; `bound` CPUs taken on n0 by a running plain pod.
fn t3(cpu: &str, bound: &str) -> ClusterState {
    let mut yaml = String::new();
    for i in 0..8 {
        yaml.push_str(&format!(
            "apiVersion: v1\nkind: Node\nmetadata: {{name: n{i}}}\nstatus: {{allocatable: {{cpu: \"{cpu}\", memory: 64Gi, pods: \"110\"}}}}\n---\n"
        ));
    }
    let hyper_node = |name: &str, tier: i32, kind: &str, members: &[String]| {
        let members: String = members
            .iter()
            .map(|m| format!("  - {{type: {kind}, selector: {{exactMatch: {{name: {m}}}}}}}\n"))
            .collect();
        format!(
            "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {{name: {name}}}\nspec:\n  tier: {tier}\n  members:\n{members}---\n"
        )
    };
    let nodes = |range: std::ops::Range<usize>| range.map(|i| format!("n{i}")).collect::<Vec<_>>();
    yaml.push_str(&hyper_node("h0", 1, "Node", &nodes(0..4)));
    yaml.push_str(&hyper_node("h1", 1, "Node", &nodes(4..8)));
    yaml.push_str(&hyper_node(
        "h2",
        2,
        "HyperNode",
        &["h0".into(), "h1".into()],
    ));
    if !bound.is_empty() {
        yaml.push_str(&format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: other, namespace: default}}\nspec: {{nodeName: n0, containers: [{{name: c, resources: {{requests: {{cpu: \"{bound}\"}}}}}}]}}\nstatus: {{phase: Running}}\n---\n"
        ));
    }
    state_of(&yaml)
}

/// Job `j` (hard, up to tier `job_tier`) with task t0 of `partitions` partitions of 4 pods of
/// `cpu` CPUs, each partition hard up to tier 1 when `nested`.
fn topology_job(job_tier: i32, partitions: i32, cpu: &str, nested: bool) -> String {
    let topology = if nested {
        ", networkTopology: {mode: hard, highestTierAllowed: 1}"
    } else {
        ""
    };
    job(&[(
        "t0",
        partitions * 4,
        cpu,
        &format!(", partitionPolicy: {{totalPartitions: {partitions}, partitionSize: 4{topology}}}"),
    )])
    .replace(
        "  schedulerName: volcano\n",
        &format!("  schedulerName: volcano\n  networkTopology: {{mode: hard, highestTierAllowed: {job_tier}}}\n"),
    )
}

/// The job's status, its HyperNode, each partition's, and the HyperNode of each pod's node.
fn homes(state: &ClusterState, yaml: &str) -> (String, Option<String>, Vec<String>, Vec<String>) {
    let plan = plan_given(state, yaml).remove(0);
    let partitions = plan
        .partitions
        .iter()
        .map(|p| format!("{} {} in {}", p.task, p.partition, p.hyper_node))
        .collect();
    let tier1 = |node: &str| {
        let i: usize = node[1..].parse().unwrap();
        if i < 4 { "h0" } else { "h1" }
    };
    let pods = plan
        .pods
        .iter()
        .map(|r| match &r.node {
            Some(node) => format!("{}@{}", r.pod, tier1(node)),
            None => format!("{}: pending", r.pod),
        })
        .collect();
    let chosen = crate::topology::chosen_domain(&plan);
    (plan.status.as_str().to_string(), chosen, partitions, pods)
}

/// Rows 4.1, 4.2 and 4.5, and rows of our own where binpack packs partitions the default
/// scores alone would spread.
#[test]
fn partitions_go_to_their_own_hyper_nodes() {
    let at = |pods: &[(std::ops::Range<usize>, &str)]| -> Vec<String> {
        pods.iter()
            .flat_map(|(range, home)| range.clone().map(move |i| format!("j-t0-{i}@{home}")))
            .collect()
    };
    struct Row {
        name: &'static str,
        state: ClusterState,
        job: String,
        want: (
            &'static str,
            Option<&'static str>,
            Vec<&'static str>,
            Vec<String>,
        ),
    }
    let rows = [
        Row {
            // 4.1: the job asks 8 x 4 = 32 CPUs, above h0's and h1's 16: only h2 takes it.
            // Partition 0: h0 and h1 both take it at the same score, (0 + 16) / 16: the first
            // by name. Partition 1: h0 is full, h1 takes it.
            name: "4.1 one partition per tier-1 HyperNode",
            state: t3("4", ""),
            job: topology_job(2, 2, "4", true),
            want: (
                "Scheduled",
                Some("domain h2 (tier2)"),
                vec!["t0 0 in h0", "t0 1 in h1"],
                at(&[(0..4, "h0"), (4..8, "h1")]),
            ),
        },
        Row {
            // Ours: 3 partitions of 4 x 2 CPUs, 24 CPUs: h2 again. Partition 0: h0 by name at
            // (0 + 8) / 16 each; partition 1: h0 (8 + 8) / 16 = 1 beats h1 (0 + 8) / 16 = 0.5;
            // partition 2: only h1 has room.
            name: "partitions are packed into the fullest HyperNode",
            state: t3("4", ""),
            job: topology_job(2, 3, "2", true),
            want: (
                "Scheduled",
                Some("domain h2 (tier2)"),
                vec!["t0 0 in h0", "t0 1 in h0", "t0 2 in h1"],
                at(&[(0..8, "h0"), (8..12, "h1")]),
            ),
        },
        Row {
            // The same job without a partition topology: each pod goes to the least
            // allocated node (ties by name), so partition 0 takes n0-n3, partition 1 n4-n7
            // (h1, where binpack packed it into h0) and partition 2 n0-n3 again.
            name: "without a partition topology, the default scores spread the partitions",
            state: t3("4", ""),
            job: topology_job(2, 3, "2", false),
            want: (
                "Scheduled",
                Some("domain h2 (tier2)"),
                vec![],
                at(&[(0..4, "h0"), (4..8, "h1"), (8..12, "h0")]),
            ),
        },
        Row {
            // 4.2: nodes of 8 CPUs, 2 taken on n0; 8 pods of 2 CPUs (16) fit h0 (30 idle) or
            // h1 (32): the job's binpack, (2 + 16) / 32 = 0.5625 against 16 / 32 = 0.5, keeps
            // h0, and both partitions nest in it (h0 is the only tier-1 HyperNode inside).
            name: "4.2 both partitions in the fuller HyperNode",
            state: t3("8", "2"),
            job: topology_job(2, 2, "2", true),
            want: (
                "Scheduled",
                Some("domain h0 (tier1)"),
                vec!["t0 0 in h0", "t0 1 in h0"],
                at(&[(0..8, "h0")]),
            ),
        },
        Row {
            // Soft partition topology: the plugin's sub-job gradient is the job's HyperNode
            // alone, so the partitions go as without one.
            name: "a soft partition topology nests nothing",
            state: t3("4", ""),
            job: topology_job(2, 3, "2", true).replace(
                "{mode: hard, highestTierAllowed: 1}",
                "{mode: soft, highestTierAllowed: 1}",
            ),
            want: (
                "Scheduled",
                Some("domain h2 (tier2)"),
                vec![],
                at(&[(0..4, "h0"), (4..8, "h1"), (8..12, "h0")]),
            ),
        },
        Row {
            // 2 CPUs taken on n0: h0 holds 3 pods of 4 CPUs, h1 4. With minPartitions 1 the job
            // asks 4 x 4 = 16 CPUs: h0 (14 idle) is not eligible, h1 takes it. Partition 0
            // fills h1; partition 1 finds no tier-1 HyperNode inside h1 with room.
            name: "a partition no HyperNode in the job's takes is left out",
            state: t3("4", "2"),
            job: topology_job(2, 2, "4", true)
                .replace("partitionSize: 4", "partitionSize: 4, minPartitions: 1"),
            want: (
                "Scheduled",
                Some("domain h1 (tier1)"),
                vec!["t0 0 in h1"],
                at(&[(0..4, "h1")])
                    .into_iter()
                    .chain((4..8).map(|i| format!("j-t0-{i}: pending")))
                    .collect(),
            ),
        },
        Row {
            // 4.5: no partition topology, the job hard up to tier 1: 32 CPUs fit neither
            // 16-CPU HyperNode.
            name: "4.5 partitions without topology inside a job held to tier 1",
            state: t3("4", ""),
            job: topology_job(1, 2, "4", false),
            want: (
                "Unschedulable",
                None,
                vec![],
                (0..8).map(|i| format!("j-t0-{i}: pending")).collect(),
            ),
        },
    ];
    for row in rows {
        let (status, chosen, partitions, pods) = row.want;
        let want = (
            status.to_string(),
            chosen.map(str::to_string),
            partitions
                .into_iter()
                .map(str::to_string)
                .collect::<Vec<_>>(),
            pods,
        );
        assert_eq!(homes(&row.state, &row.job), want, "{}", row.name);
    }
}
