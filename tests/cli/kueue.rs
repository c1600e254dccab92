//! Kueue Topology Aware Scheduling end to end on testdata/topology/kueue: a two-block,
//! four-rack cluster whose racks hold 5, 8, 6 and 8 two-CPU pods.

use serde_json::{Value, json};

use crate::support::cli::bin;

const STATE: &str = "testdata/topology/kueue/state.yaml";

fn plan(job: &str, output: &[&str]) -> (i32, String, String) {
    let file = format!("testdata/topology/kueue/{job}.yaml");
    let run = bin([&["plan", "-f", &file, "--state", STATE][..], output].concat()).run();
    (run.code, run.stdout, run.stderr)
}

fn group(job: &str) -> (i32, Value) {
    let (code, stdout, stderr) = plan(job, &["-o", "json"]);
    assert_eq!(stderr, "");
    let plan: Value = serde_json::from_str(&stdout).expect("JSON output");
    (code, plan["groups"][0].clone())
}

/// The job: 6 pods of 2 CPUs. The 8-CPU nodes' room for them: n2 (etl-0's 6 CPUs) 1, n6
/// (etl-1's 4) 2, the others 4; so r1 holds 4 + 1 = 5 (too few), r2 and r4 8, r3 4 + 2 = 6,
/// the tightest that holds 6. Kueue fills r3's nodes by their room: n5 4, n6 the last 2.
#[test]
fn a_required_rack_takes_the_tightest_rack_that_holds_the_job() {
    let (code, stdout, stderr) = plan("train", &["--show-all"]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(
        stdout,
        "\
Job team-a/train (kueue, minMember 6): 6/6 pods placed in topology.example.com/block=b2, topology.example.com/rack=r3; nodes: n5 x4, n6 x2
Kueue: admitted by ClusterQueue cluster-queue: main x6 on tas-flavor (cpu, memory)
 POD      NODE  TOPOLOGY.EXAMPLE.COM/BLOCK  TOPOLOGY.EXAMPLE.COM/RACK
 train-0  n5    b2                          r3
 train-1  n5    b2                          r3
 train-2  n5    b2                          r3
 train-3  n5    b2                          r3
 train-4  n6    b2                          r3
 train-5  n6    b2                          r3
Topology (kueue-tas, required, required topology.example.com/rack): kept in b2 (topology.example.com/block) > r3 (topology.example.com/rack)
  b2 (topology.example.com/block)
    r3 (topology.example.com/rack)
      n5: train-0, train-1, train-2, train-3
      n6: train-4, train-5
Rejected domains (up to topology.example.com/rack):
  r2 (topology.example.com/rack): 8 pods fit, 6 needed: Kueue takes the tightest domain that holds them
  r4 (topology.example.com/rack): 8 pods fit, 6 needed: Kueue takes the tightest domain that holds them
  r1 (topology.example.com/rack): 5 of 6 pods fit
Warnings:
  Kueue admits it on ResourceFlavor tas-flavor (Topology default)
"
    );
    let (_, g) = group("train");
    assert_eq!(
        g["topology"],
        json!({"system": "kueue-tas", "mode": "required",
            "constraint": "required topology.example.com/rack",
            "constrainingLevel": "topology.example.com/rack",
            "chosen": [{"level": "topology.example.com/block", "domain": "b2"},
                {"level": "topology.example.com/rack", "domain": "r3"}]})
    );
    assert_eq!(
        g["rejected"][2],
        json!({"level": "topology.example.com/rack", "domain": "r1",
        "fit": 5, "needed": 6, "reason": "5 of 6 pods fit"})
    );
}

#[test]
fn a_required_rack_no_rack_holds_is_unschedulable_with_the_closest_named() {
    let (code, g) = group("too-big");
    assert_eq!(code, 1);
    assert_eq!(g["status"], "Unschedulable");
    assert_eq!(g["scheduled"], 0);
    assert_eq!(g["topology"]["chosen"], json!([]));
    let rejected: Vec<(String, u64)> = g["rejected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["domain"].as_str().unwrap().to_string(),
                r["fit"].as_u64().unwrap(),
            )
        })
        .collect();
    // 10 pods of 2 CPUs; the racks hold r1 5, r2 8, r3 6, r4 8 (see above), listed roomiest
    // first, and none 10: the closest is the first of the 8s, r2.
    let want = [("r2", 8), ("r4", 8), ("r3", 6), ("r1", 5)].map(|(d, n)| (d.to_string(), n));
    assert_eq!(rejected, want);
    assert_eq!(
        g["rejections"],
        json!([{"group": "topology", "reason": "topology \"default\" allows to fit only 8 out of 10 pod(s); the closest, r2 (topology.example.com/rack), fits 8 of 10 pods"}])
    );
    // The quota fits, the topology does not: Kueue assigns both together, so the Job is not
    // admitted, and no warning says it is.
    assert_eq!(
        (
            &g["admission"]["admitted"],
            &g["admission"]["reason"],
            &g["admission"]["message"]
        ),
        (
            &json!(false),
            &json!("Pending"),
            &json!(
                "couldn't assign flavors to pod set main: topology \"default\" allows to fit only 8 out of 10 pod(s)"
            )
        )
    );
    assert_eq!(g["warnings"], json!([]));
}

/// 10 pods of 2 CPUs: no rack holds them (at most 8), so Kueue goes up to the blocks: b1 holds
/// 5 + 8 = 13, b2 6 + 8 = 14, and b1 is the tighter. Its nodes hold n1 4, n2 1, n3 4, n4 4;
/// Kueue takes the roomiest until the rest fits in one, then the tightest that takes the
/// rest: n1 4, n3 4, then n4 (4, the least room of those holding 2) 2.
#[test]
fn a_preferred_rack_no_rack_holds_goes_one_level_up() {
    let (code, g) = group("preferred");
    assert_eq!(code, 0);
    assert_eq!(
        g["topology"]["constrainingLevel"],
        "topology.example.com/block"
    );
    assert_eq!(
        g["topology"]["chosen"],
        json!([{"level": "topology.example.com/block", "domain": "b1"}])
    );
    assert_eq!(
        g["domains"][2],
        json!({"key": "kubernetes.io/hostname", "pods": {"n1": 4, "n3": 4, "n4": 2}})
    );
}

#[test]
fn a_job_whose_local_queue_is_missing_stays_suspended() {
    let job = std::fs::read_to_string(format!(
        "{}/testdata/topology/kueue/train.yaml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
    .replace("queue-name: user-queue", "queue-name: other-queue");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("job.yaml");
    std::fs::write(&file, job).unwrap();
    let out = bin([
        "plan",
        "-f",
        file.to_str().unwrap(),
        "--state",
        STATE,
        "-o",
        "json",
    ])
    .output();
    assert_eq!(out.status.code(), Some(1));
    let plan: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        plan["groups"][0]["blocked"],
        json!([{"reason": "Kueue keeps the Job suspended: LocalQueue other-queue doesn't exist", "pods": 6}])
    );
}

/// Admission on quota (testdata/kueue): ClusterQueue cluster-queue has on-demand 9 CPU (4
/// held by the admitted Workload `running`) and spot 8 CPU.
fn plan_quota(job: &str) -> (i32, String) {
    let file = format!("testdata/kueue/{job}.yaml");
    let run = bin(["plan", "-f", &file, "--state", "testdata/kueue/state.yaml"]).run();
    assert_eq!(run.stderr, "");
    (run.code, run.stdout)
}

#[test]
fn a_job_larger_than_any_flavor_stays_suspended_with_kueues_message() {
    // 20 CPU > 9 (on-demand) and > 8 (spot): ExceedsMaxQuota on both, reasons sorted.
    let (code, stdout) = plan_quota("sample-job");
    assert_eq!(code, 1);
    assert_eq!(
        stdout,
        "\
Job default/sample-job (kueue, minMember 20): 0/20 pods placed: Kueue keeps the Job suspended: couldn't assign flavors to pod set main: insufficient quota for cpu in flavor on-demand, previously considered podsets requests (0) + current podset request (20) > maximum capacity (9), insufficient quota for cpu in flavor spot, previously considered podsets requests (0) + current podset request (20) > maximum capacity (8)
Kueue: not admitted (ExceedsMaxQuota): it stays suspended
"
    );
}

#[test]
fn partial_admission_takes_the_largest_count_that_fits_and_the_flavors_node_labels() {
    // on-demand: 5 CPU unused, nominal 9, no preemption; spot holds 8. Counts 20 - i for
    // i in 0..=17: the smallest i that fits is 12 (8 pods on spot), which land on n3, the
    // one node with the flavor's label, through its toleration of the spot taint.
    let (code, stdout) = plan_quota("partial-job");
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        "\
Job default/partial-job (kueue, minMember 0): 8/8 pods placed in kubernetes.io/hostname=n3
Kueue: admitted by ClusterQueue cluster-queue: main x8 on spot (cpu, memory)
Warnings:
  Kueue admits 8 of 20 pods (partial admission): the Job runs with parallelism 8
  Kueue admits it on quota alone (ResourceFlavor spot, no topologyName): the scheduler places its pods one by one, not as a gang
"
    );
}

#[test]
fn each_pod_set_of_a_jobset_takes_its_own_flavor() {
    // Pod sets in replicated-Job order: workers 2 Jobs x 2 pods x 1 CPU = 4, driver 2 CPU.
    // on-demand has 9 - 4 (`running`) = 5 unused: workers take 4 of it; the driver's 2 would
    // make 4 + 4 + 2 = 10 > 9, and `running` has the JobSet's priority (0), which
    // withinClusterQueue LowerPriority cannot preempt, so the driver goes to spot (8 CPU).
    // The workers inherit instance-type on-demand (n1, n2), the driver instance-type spot and
    // the spot toleration (n3).
    let (code, stdout) = plan_quota("jobset");
    assert_eq!(code, 0);
    assert_eq!(
        stdout,
        "\
JobSet default/trainer (kueue, minMember 0): 5/5 pods placed; nodes: n1 x2, n2 x2, n3 x1
Kueue: admitted by ClusterQueue cluster-queue: workers x4 on on-demand (cpu, memory); driver x1 on spot (cpu, memory)
Warnings:
  Kueue admits it on quota alone (ResourceFlavor on-demand, spot, no topologyName): the scheduler places its pods one by one, not as a gang
"
    );
}

/// Explaining a pod of the JobSet names the flavor its pod set was admitted on, whose node
/// labels put the driver on n3 before any score (see the test above).
#[test]
fn explaining_a_kueue_pod_names_the_flavor_it_inherits() {
    let run = bin([
        "explain-placement",
        "pod/trainer-driver-0-0",
        "-f",
        "testdata/kueue/jobset.yaml",
        "--state",
        "testdata/kueue/state.yaml",
    ])
    .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let notes: Vec<&str> = run
        .stdout
        .lines()
        .skip_while(|l| *l != "Notes:")
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .collect();
    assert_eq!(
        notes,
        [
            "  the gang plan puts it on n3",
            "  Kueue admits its pod set driver on ResourceFlavor spot: it inherits the flavor's node labels and tolerations",
        ]
    );
}

#[test]
fn a_kubeflow_job_no_flavor_holds_stays_suspended() {
    // Pod sets master x1, worker x10 (1 CPU each). master fits on-demand (1 <= 5 unused);
    // worker: 1 + 10 = 11 > 9 on on-demand, 10 > 8 on spot: ExceedsMaxQuota, no pod created.
    let (code, stdout) = plan_quota("pytorchjob-too-big");
    assert_eq!(code, 1);
    assert_eq!(
        stdout.lines().take(2).collect::<Vec<_>>(),
        [
            "PyTorchJob default/pytorch-simple (kueue, minMember 0): 0/11 pods placed: Kueue keeps \
             the PyTorchJob suspended: couldn't assign flavors to pod set worker: insufficient \
             quota for cpu in flavor on-demand, previously considered podsets requests (1) + \
             current podset request (10) > maximum capacity (9), insufficient quota for cpu in \
             flavor spot, previously considered podsets requests (0) + current podset request \
             (10) > maximum capacity (8)",
            "Kueue: not admitted (ExceedsMaxQuota): it stays suspended",
        ]
    );
}

/// Kueue's own job examples (testdata/kueue/examples, from its site): each is one Workload
/// of the pod sets Kueue's integration derives (`PodSets` of `pkg/controller/jobs/<kind>`):
/// a JobSet's replicated Jobs (replicas x parallelism), a Kubeflow job's replica types in the
/// operator's order (replicas default 1), a Ray cluster's `head` and worker groups (replicas x
/// hosts) and a RayService's, a RayJob's `submitter` last. All fit the 5 unused on-demand CPUs.
#[test]
fn kueues_job_examples_are_admitted_with_their_integrations_pod_sets() {
    let cases = [
        (
            "sample-jobset",
            "JobSet default/sleep-job-<generated>",
            "workers x1 on on-demand (cpu, memory); driver x1 on on-demand (cpu, memory)",
        ),
        (
            "sample-pytorchjob",
            "PyTorchJob default/pytorch-simple",
            "master x1 on on-demand (cpu, memory); worker x1 on on-demand (cpu, memory)",
        ),
        (
            "sample-tfjob",
            "TFJob default/tensorflow-dist-mnist",
            "ps x1 on on-demand (cpu, memory); worker x2 on on-demand (cpu, memory)",
        ),
        (
            "sample-jaxjob",
            "JAXJob default/jax-simple",
            "worker x2 on on-demand (cpu, memory)",
        ),
        (
            "sample-paddlejob",
            "PaddleJob default/paddle-simple-cpu",
            "worker x2 on on-demand (cpu, memory)",
        ),
        (
            "sample-xgboostjob",
            "XGBoostJob default/xgboost-dist-iris-test-train",
            "master x1 on on-demand (cpu, memory); worker x2 on on-demand (cpu, memory)",
        ),
        (
            // Created suspended, as Kueue holds it; Kueue starts it on admission. 3 nodes of
            // 2 CPU: 6 > the 5 unused on-demand CPUs (the `running` Workload has the same
            // priority: no preemption), so the next flavor, spot (8).
            "trainjob-kueue-integration",
            "TrainJob default/kueue-example",
            "node x3 on spot (cpu, memory)",
        ),
        (
            // Kueue lists the launcher first (orderedReplicaTypes); mpi-operator creates the
            // workers first.
            "sample-mpijob",
            "MPIJob default/pi",
            "launcher x1 on on-demand (cpu, memory); worker x2 on on-demand (cpu, memory)",
        ),
        (
            "ray-cluster-sample",
            "RayCluster default/raycluster-complete",
            "head x1 on on-demand (cpu, memory); small-group x1 on on-demand (cpu, memory)",
        ),
        (
            "ray-service-sample",
            "RayService default/test-rayservice",
            "head x1 on on-demand (cpu, memory); small-group x1 on on-demand (cpu, memory)",
        ),
        (
            "ray-job-sample",
            "RayJob default/rayjob-sample",
            "head x1 on on-demand (cpu); small-group x1 on on-demand (cpu, memory); submitter x1 \
             on on-demand (cpu, memory)",
        ),
    ];
    for (example, group, pod_sets) in cases {
        let (code, stdout) = plan_quota(&format!("examples/{example}"));
        assert_eq!(code, 0, "{example}");
        let mut lines = stdout.lines();
        let header = lines.next().unwrap_or_default();
        assert!(
            header.starts_with(&format!("{group} (kueue, minMember 0): ")),
            "{example}: {header}"
        );
        assert_eq!(
            lines.next(),
            Some(format!("Kueue: admitted by ClusterQueue cluster-queue: {pod_sets}").as_str()),
            "{example}"
        );
    }
}

/// Kueue's pod integration on its own examples: each pod of a Deployment (the queue label
/// on the Deployment) and a lone pod are workloads of one pod; a StatefulSet is one workload
/// of its replicas (its reconciler's `main` pod set); a pod group one workload of its pods,
/// one pod set per role. The group's two pods ask 3 CPU each: 6 > the 5 unused on-demand CPUs,
/// so it goes to spot (n3); the others fit on-demand.
#[test]
fn kueues_pod_integration_examples_are_admitted_as_its_workloads() {
    let cases: [(&str, &[(&str, &str)]); 5] = [
        // Kueue's LeaderWorkerSet integration: a Workload per group (replicas 2), pod sets
        // `leader` x1 and `worker` x(size 3 - 1).
        (
            "sample-leaderworkerset",
            &[
                (
                    "LeaderWorkerSet default/nginx-leaderworkerset-0",
                    "leader x1 on on-demand (cpu); worker x2 on on-demand (cpu)",
                ),
                (
                    "LeaderWorkerSet default/nginx-leaderworkerset-1",
                    "leader x1 on on-demand (cpu); worker x2 on on-demand (cpu)",
                ),
            ],
        ),
        (
            "sample-deployment",
            &[
                (
                    "Pod default/nginx-deployment-0",
                    "main x1 on on-demand (cpu)",
                ),
                (
                    "Pod default/nginx-deployment-1",
                    "main x1 on on-demand (cpu)",
                ),
                (
                    "Pod default/nginx-deployment-2",
                    "main x1 on on-demand (cpu)",
                ),
            ],
        ),
        (
            "sample-statefulset",
            &[(
                "StatefulSet default/nginx-statefulset",
                "main x3 on on-demand (cpu)",
            )],
        ),
        (
            "kueue-pod",
            &[(
                "Pod default/kueue-sleep-<generated>",
                "main x1 on on-demand (cpu)",
            )],
        ),
        (
            "kueue-pod-group",
            &[("Pod default/sample-group", "main x2 on spot (cpu)")],
        ),
    ];
    for (example, workloads) in cases {
        let (code, stdout) = plan_quota(&format!("examples/{example}"));
        assert_eq!(code, 0, "{example}");
        let got: Vec<(&str, &str)> = stdout
            .lines()
            .collect::<Vec<_>>()
            .windows(2)
            .filter_map(|pair| {
                let (group, _) = pair[0].split_once(" (kueue, ")?;
                let pod_sets =
                    pair[1].strip_prefix("Kueue: admitted by ClusterQueue cluster-queue: ")?;
                Some((group, pod_sets))
            })
            .collect();
        assert_eq!(got, workloads.to_vec(), "{example}");
        assert!(
            !stdout.contains("Batch ("),
            "{example}: planned twice\n{stdout}"
        );
    }
}

/// A pod group has no Workload until `pod-group-total-count` of its pods exist; then its pod
/// sets are its roles (pods of one shape).
#[test]
fn a_pod_group_waits_for_its_pods_and_admits_a_pod_set_per_role() {
    let dir = tempfile::tempdir().unwrap();
    let group = |name: &str, cpu: &str, total: usize| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: default\n  labels: {{kueue.x-k8s.io/queue-name: user-queue, kueue.x-k8s.io/pod-group-name: grp}}\n  annotations: {{kueue.x-k8s.io/pod-group-total-count: \"{total}\"}}\nspec:\n  containers: [{{name: c, image: i, resources: {{requests: {{cpu: \"{cpu}\"}}}}}}]\n"
        )
    };
    let file = dir.path().join("group.yaml");
    let plan = |total: usize| {
        let text = [group("leader", "2", total), group("worker", "3", total)].join("---\n");
        std::fs::write(&file, text).unwrap();
        let file = file.to_str().unwrap();
        let run = bin(["plan", "-f", file, "--state", "testdata/kueue/state.yaml"]).run();
        (run.code, run.stdout)
    };
    // Three expected, two exist: Kueue creates no Workload; nothing is admitted or placed.
    let (code, stdout) = plan(3);
    assert_eq!(code, 1);
    assert_eq!(
        stdout.lines().next(),
        Some(
            "Pod default/grp (kueue, minMember 3): 0/2 pods placed: waiting for pods: 2 of minMember 3 exist"
        )
    );
    // Both exist: roles 2 CPU (`main`) and 3 CPU (`role-2`), 5 <= 5 unused on on-demand.
    let (code, stdout) = plan(2);
    assert_eq!(code, 0);
    assert_eq!(
        stdout.lines().nth(1),
        Some(
            "Kueue: admitted by ClusterQueue cluster-queue: main x1 on on-demand (cpu); role-2 x1 on on-demand (cpu)"
        )
    );
}

/// `plan --pending` shows the state's Workloads Kueue has not admitted, whose jobs are
/// suspended and have no pods, with what Kueue decides for them now: in Kueue's order (priority
/// 0 both, then creation), `job-huge` (20 CPU > 9 and > 8) stays suspended, which does not
/// block `job-small` (BestEffortFIFO, the default): 2 CPU fit the 5 unused on on-demand.
#[test]
fn pending_shows_the_workloads_kueue_keeps_suspended() {
    let run = bin([
        "plan",
        "--pending",
        "-A",
        "--state",
        "testdata/kueue/state.yaml",
        "--state",
        "testdata/kueue/waiting.yaml",
        "-o",
        "json",
    ])
    .run();
    // job-huge stays suspended: pending work, exit 1 as a Pending pod that fits nowhere.
    assert_eq!(run.code, 1, "{}", run.stderr);
    let plan: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        plan["notes"],
        json!([
            "Kueue Workload default/job-small-1a2b3 (LocalQueue user-queue) is suspended; Kueue would now have it admitted by ClusterQueue cluster-queue: main x2 on on-demand (cpu): its job starts and creates its pods",
            "Kueue Workload default/job-huge-4c5d6 (LocalQueue user-queue) is suspended and stays so (ExceedsMaxQuota): couldn't assign flavors to pod set main: insufficient quota for cpu in flavor on-demand, previously considered podsets requests (0) + current podset request (20) > maximum capacity (9), insufficient quota for cpu in flavor spot, previously considered podsets requests (0) + current podset request (20) > maximum capacity (8)"
        ])
    );
}

#[test]
fn a_higher_priority_job_preempts_within_its_cluster_queue() {
    // 9 CPU on on-demand: 5 unused, nominal 9 >= 9, so the oracle evicts `running` (priority
    // 0 < 1000, withinClusterQueue LowerPriority); spot (8) cannot hold 9.
    let (code, stdout) = plan_quota("urgent-job");
    assert_eq!(code, 0);
    assert_eq!(
        stdout.lines().nth(1),
        Some(
            "Kueue: admitted by ClusterQueue cluster-queue: main x9 on on-demand (cpu, memory); \
             preempts default/running (InClusterQueue)"
        )
    );
}

#[test]
fn an_admitted_job_reports_its_admission_in_json() {
    let run = bin([
        "plan",
        "-f",
        "testdata/kueue/small-job.yaml",
        "--state",
        "testdata/kueue/state.yaml",
        "-o",
        "json",
    ])
    .run();
    assert_eq!(run.code, 0);
    let plan: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        plan["groups"][0]["admission"],
        json!({"admitted": true, "localQueue": "user-queue", "clusterQueue": "cluster-queue",
            "podSets": [{"name": "main", "count": 5,
                "flavors": {"cpu": "on-demand", "memory": "on-demand"}}],
            "reason": "QuotaReserved", "message": "Quota reserved in ClusterQueue cluster-queue",
            "borrowing": false, "victims": []})
    );
}

/// Two racks with the same room for the pod set: Kueue keeps the first in its order (fewer
/// pods, then by name), and the plan says the other lost on that tie break, not on topology.
#[test]
fn racks_with_equal_room_are_a_tie_break_not_a_topology_choice() {
    let (code, g) = group("tie");
    assert_eq!(code, 0);
    assert_eq!(
        g["topology"]["chosen"][1],
        json!({"level": "topology.example.com/rack", "domain": "r2"})
    );
    assert_eq!(
        g["rejected"][0]["reason"],
        "8 pods fit, 8 needed: as tight as r2, which comes first in Kueue's order (fewer pods, \
         then by name)"
    );
}

/// A state List of `nodes` (an item, or none), the flavor `default-flavor`, the ClusterQueue
/// `cluster-queue` covering `covered` with `quota` on that flavor and `extra` lines of spec,
/// and the LocalQueue `default/user-queue` pointing at it.
fn one_queue(nodes: &str, covered: &str, quota: &str, extra: &str) -> String {
    let nodes = if nodes.is_empty() {
        String::new()
    } else {
        format!("  - {nodes}\n")
    };
    format!(
        "apiVersion: v1
kind: List
items:
{nodes}  - {{apiVersion: kueue.x-k8s.io/v1beta2, kind: ResourceFlavor, metadata: {{name: default-flavor}}}}
  - apiVersion: kueue.x-k8s.io/v1beta2
    kind: ClusterQueue
    metadata: {{name: cluster-queue}}
    spec:
      namespaceSelector: {{}}
      resourceGroups:
        - coveredResources: {covered}
          flavors: [{{name: default-flavor, resources: [{quota}]}}]
{extra}  - {{apiVersion: kueue.x-k8s.io/v1beta2, kind: LocalQueue, metadata: {{name: user-queue, namespace: default}}, spec: {{clusterQueue: cluster-queue}}}}
"
    )
}

/// A ClusterQueue with AdmissionChecks (Kueue's provisioning example, `onFlavors` naming the
/// flavor): Kueue reserves the quota and admits the Job only once the
/// checks are Ready, which the plan cannot know and says.
#[test]
fn admission_checks_are_named_as_not_modelled() {
    let state = one_queue(
        r#"{apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: "8", memory: 32Gi, pods: "110"}}}"#,
        "[cpu, memory]",
        "{name: cpu, nominalQuota: 9}, {name: memory, nominalQuota: 36Gi}",
        "      admissionChecksStrategy:
        admissionChecks:
          - {name: sample-prov, onFlavors: [default-flavor]}
          - {name: other-flavor-check, onFlavors: [spot]}
",
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state.yaml");
    std::fs::write(&path, state).unwrap();
    let run = bin([
        "plan",
        "-f",
        "testdata/kueue/small-job.yaml",
        "-o",
        "json",
        "--state",
    ])
    .arg(&path)
    .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let plan: Value = serde_json::from_str(&run.stdout).unwrap();
    // `other-flavor-check` is for spot only, which the Job is not admitted on.
    assert_eq!(
        plan["groups"][0]["warnings"][0],
        "Kueue reserves the quota, then admits the Job only once its AdmissionChecks \
         (sample-prov) are Ready: they are not modelled, and its pods are placed as if they were"
    );
}

/// JobSet's exclusive placement under Kueue: Kueue admits the JobSet, the scheduler takes its
/// pods one by one as they are created, and each follower is created once its Job's leader is
/// bound, with the leader's node pool as its nodeSelector. One Job of 3 pods of 5 CPU on the
/// 8-CPU nodes: the leader takes np-a-1 (all empty, first by name), the first follower
/// np-a-2; the second fits in no node of pool np-a (8 - 5 < 5) and may not leave it, where
/// without the nodeSelector it would take an empty node of another pool.
#[test]
fn exclusive_placement_followers_under_kueue_keep_to_their_leaders_pool() {
    let dir = tempfile::tempdir().unwrap();
    let jobset = std::fs::read_to_string(format!(
        "{}/testdata/operators/jobset-exclusive-placement.yaml",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
    .replace(
        "  name: exclusive-placement\n",
        "  name: exclusive-placement\n  labels: {kueue.x-k8s.io/queue-name: user-queue}\n",
    )
    .replace("replicas: 3", "replicas: 1")
    .replace(
        "            - name: sleep\n",
        "            - name: sleep\n              resources: {requests: {cpu: \"5\"}}\n",
    );
    let queues = one_queue("", "[cpu]", "{name: cpu, nominalQuota: 15}", "");
    let (job_file, queue_file) = (dir.path().join("js.yaml"), dir.path().join("kq.yaml"));
    std::fs::write(&job_file, jobset).unwrap();
    std::fs::write(&queue_file, queues).unwrap();
    let run = bin([
        "plan",
        "-o",
        "json",
        "--state",
        "testdata/clusters/nodepools.yaml",
    ])
    .arg("--state")
    .arg(&queue_file)
    .arg("-f")
    .arg(&job_file)
    .run();
    assert_eq!(run.code, 1, "{}", run.stderr);
    let plan: Value = serde_json::from_str(&run.stdout).unwrap();
    let group = &plan["groups"][0];
    // 3 pods of 5 CPU = 15, the ClusterQueue's nominal quota.
    assert_eq!(group["admission"]["admitted"], true);
    let placed: Vec<Option<&str>> = (0..3)
        .map(|i| group["placements"][format!("exclusive-placement-workers-0-{i}")].as_str())
        .collect();
    assert_eq!(placed, [Some("np-a-1"), Some("np-a-2"), None]);
}
