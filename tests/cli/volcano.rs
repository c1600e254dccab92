//! `plan` of Volcano Jobs that Volcano's admission webhook denies (lint's DF305-DF315): the
//! job is never created, so none of its pods is placed, and the plan quotes the denial; of
//! PodGroups the enqueue action leaves Pending; and of queues sharing the nodes.

use crate::support::cli::run_with_stdin;

const TWO_NODES: &str = "testdata/clusters/two-nodes.yaml";

/// A Job `render` with two one-CPU tasks `a` and `b` of two replicas each: four pods that fit
/// the two 4-CPU nodes, unless `edit` makes the webhook deny it.
fn job(edit: &str) -> String {
    let task = |name: &str| {
        format!(
            "  - name: {name}\n    replicas: 2\n    template:\n      spec:\n        containers:\n        - name: c\n          image: c\n          resources: {{requests: {{cpu: \"1\"}}}}\n"
        )
    };
    let yaml = format!(
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {{name: render, namespace: default}}\nspec:\n  schedulerName: volcano\n  minAvailable: 4\n  tasks:\n{}{}",
        task("a"),
        task("b")
    );
    match edit {
        "minAvailable" => yaml.replace("minAvailable: 4", "minAvailable: 5"),
        "task name" => yaml.replace("- name: b", "- name: a"),
        "policies" => format!(
            "{yaml}  policies:\n  - {{event: PodEvicted, action: RestartJob}}\n  - {{event: PodEvicted, action: AbortJob}}\n"
        ),
        _ => yaml,
    }
}

/// Rows after upstream's `example/invalid_jobs/` (minAvailable above the replicas, a task
/// name twice, one event in two policies), in our own job; the valid job places its four pods.
/// The valid job's 4 one-CPU pods (2 tasks x 2 replicas) on the two empty 4-CPU nodes: each
/// pod goes to the emptier node (the plan scores Volcano's nodeorder with the default
/// profile's least-allocated NodeResourcesFit; the first by name on a tie), so they
/// alternate, 2 on each. A denied job counts its pods (4, or 2 when the second
/// task's replicas take the first's names) and places none.
#[test]
fn a_job_the_webhook_denies_places_no_pod() {
    let denied = "admission webhook \"validatejob.volcano.sh\" denied the request";
    let rows = [
        (
            "",
            0,
            "Job default/render (volcano-job, minMember 4): 4/4 pods placed; nodes: small-1 x2, small-2 x2".to_string(),
        ),
        (
            "minAvailable",
            1,
            format!("Job default/render (volcano-job, minMember 5): 0/4 pods placed: {denied}: job 'minAvailable' should not be greater than total replicas in tasks"),
        ),
        // The second task's pods take the first's names: two distinct pods.
        (
            "task name",
            1,
            format!("Job default/render (volcano-job, minMember 4): 0/2 pods placed: {denied}: duplicated task name a"),
        ),
        (
            "policies",
            1,
            format!("Job default/render (volcano-job, minMember 4): 0/4 pods placed: {denied}: duplicate event PodEvicted  across different policy"),
        ),
    ];
    for (edit, code, want) in rows {
        let out = run_with_stdin(&["plan", "-f", "-", "--state", TWO_NODES], Some(&job(edit)));
        assert_eq!(
            (out.code, out.stdout.trim_end(), out.stderr.as_str()),
            (code, want.as_str(), ""),
            "{edit}"
        );
    }
}

/// A Queue given with `-f` gates the PodGroups that name it: `lab` caps its jobs at 3 CPU, so a
/// group of minResources 4 CPU stays Pending (4 > 3), though the two 4-CPU nodes could hold
/// it; without the Queue (none in the state either) the group is let in and its pod placed,
/// on small-1: both nodes are empty and score alike, and the tie goes to the first by name.
#[test]
fn a_queue_given_as_input_gates_its_pod_groups() {
    let queue = "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {name: lab}\nspec: {weight: 1, capability: {cpu: \"3\"}}\n---\n";
    let group = "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {name: sweep, namespace: default}\nspec: {minMember: 1, queue: lab, minResources: {cpu: \"4\"}}\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: sweep-0\n  namespace: default\n  annotations: {scheduling.k8s.io/group-name: sweep}\nspec: {schedulerName: volcano, containers: [{name: c, image: c, resources: {requests: {cpu: \"1\"}}}]}\n";
    let rows = [
        (
            format!("{queue}{group}"),
            1,
            "PodGroup default/sweep (volcano, minMember 1): 0/1 pods placed: not enqueued: queue resource quota insufficient: insufficient cpu (Volcano's enqueue action leaves the PodGroup Pending)",
        ),
        (
            group.to_string(),
            0,
            "PodGroup default/sweep (volcano, minMember 1): 1/1 pods placed in kubernetes.io/hostname=small-1",
        ),
    ];
    for (manifests, code, want) in rows {
        let out = run_with_stdin(&["plan", "-f", "-", "--state", TWO_NODES], Some(&manifests));
        assert_eq!(
            (out.code, out.stdout.trim_end(), out.stderr.as_str()),
            (code, want, ""),
            "{manifests}"
        );
    }
}

/// Two queues given with `-f` share the two 4-CPU nodes by weight (issue 31, row 8.2 on 8
/// CPUs): `qa` (weight 1) deserves 8 x 1/4 = 2 CPUs and `qb` (weight 3) 8 x 3/4 = 6, both
/// asking 8; each group's other pods are passed over by proportion.
#[test]
fn queues_share_the_nodes_by_weight() {
    let queue = |name: &str, weight: u32| {
        format!(
            "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {{name: {name}}}\nspec: {{weight: {weight}}}\n---\n"
        )
    };
    let group = |name: &str, queue: &str| {
        let mut yaml = format!(
            "apiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {{name: {name}, namespace: default}}\nspec: {{minMember: 1, queue: {queue}}}\n---\n"
        );
        for i in 0..8 {
            yaml.push_str(&format!("apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}-{i}\n  namespace: default\n  annotations: {{scheduling.k8s.io/group-name: {name}}}\nspec: {{schedulerName: volcano, containers: [{{name: c, image: c, resources: {{requests: {{cpu: \"1\"}}}}}}]}}\n---\n"));
        }
        yaml
    };
    let manifests = format!(
        "{}{}{}{}",
        queue("qa", 1),
        queue("qb", 3),
        group("ga", "qa"),
        group("gb", "qb")
    );
    // ga's third pod would take qa to 2 + 1 = 3 CPUs, gb's seventh qb to 6 + 1 = 7; the
    // default scores spread each group over both nodes.
    let over = |queue: &str, over: &str| {
        format!("not allocated: queue {queue} is over its deserved share with this pod: {over}")
    };
    let want = format!(
        "PodGroup default/ga (volcano, minMember 1): 2/8 pods placed; nodes: small-1 x1, small-2 x1; pending: {} (6 pods)\n\nPodGroup default/gb (volcano, minMember 1): 6/8 pods placed; nodes: small-1 x3, small-2 x3; pending: {} (2 pods)",
        over("qa", "cpu 3 > 2 deserved"),
        over("qb", "cpu 7 > 6 deserved")
    );
    let out = run_with_stdin(&["plan", "-f", "-", "--state", TWO_NODES], Some(&manifests));
    assert_eq!(
        (out.code, out.stdout.trim_end(), out.stderr.as_str()),
        (0, want.as_str(), ""),
    );
}

/// A Job whose task keeps each partition in one HyperNode (issue 31 item 4): HyperNodes `h0`
/// (small-1) and `h1` (small-2) given with `-f`, 4 CPUs each; two partitions of two 2-CPU
/// pods. The job's 8 CPUs fit neither HyperNode, so it takes the virtual top; partition 0
/// goes to h0 (a tie with h1, by name), which it fills, and partition 1 to h1.
#[test]
fn partitions_are_listed_with_their_hyper_nodes() {
    let hyper_node = |name: &str, node: &str| {
        format!(
            "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {{name: {name}}}\nspec:\n  tier: 1\n  members:\n  - {{type: Node, selector: {{exactMatch: {{name: {node}}}}}}}\n---\n"
        )
    };
    let job = "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: ring, namespace: default}\nspec:\n  schedulerName: volcano\n  networkTopology: {mode: hard, highestTierAllowed: 2}\n  tasks:\n  - name: t0\n    replicas: 4\n    partitionPolicy: {totalPartitions: 2, partitionSize: 2, networkTopology: {mode: hard, highestTierAllowed: 1}}\n    template:\n      spec:\n        containers:\n        - {name: c, image: c, resources: {requests: {cpu: \"2\"}}}\n";
    let manifests = format!(
        "{}{}{job}",
        hyper_node("h0", "small-1"),
        hyper_node("h1", "small-2")
    );
    let out = run_with_stdin(
        &["plan", "-f", "-", "--state", TWO_NODES, "--show-all"],
        Some(&manifests),
    );
    let partitions = out
        .stdout
        .lines()
        .find(|l| l.starts_with("Partitions:"))
        .unwrap_or_default();
    assert_eq!(
        (out.code, partitions, out.stderr.as_str()),
        (0, "Partitions: t0 0 in h0, t0 1 in h1", ""),
        "{}",
        out.stdout
    );
}
