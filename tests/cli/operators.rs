//! The operators' upstream examples (testdata/operators, each from its project's site or
//! samples) planned on three GKE-style node pools: every pod their controllers create, where it
//! lands, and what the pod webhooks inject, as rows of `plan -o json`.

use serde_json::Value;

use crate::support::cli;

const POOLS: &str = "testdata/clusters/nodepools.yaml";

/// A batch row: pod, from, node, note.
type Row = (String, String, String, String);
/// An example file, the object its pods come from, and (pod, node) in creation order.
type Example = (
    &'static str,
    &'static str,
    &'static [(&'static str, &'static str)],
);

/// The rows of the batch of `plan -f FILE`.
fn rows(file: &str) -> (i32, Vec<Row>, Value) {
    let (code, plan) = cli::run_json(&["plan", "-f", file, "--state", POOLS]);
    let text = |v: &Value| v.as_str().unwrap_or("").to_string();
    let rows = plan["batch"]["pods"]
        .as_array()
        .map(|pods| {
            pods.iter()
                .map(|p| {
                    (
                        text(&p["name"]),
                        text(&p["from"]),
                        text(&p["node"]),
                        text(&p["note"]),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    (code, rows, plan)
}

#[test]
fn operator_examples_plan_every_pod_their_controllers_create() {
    // (file, from, pods in creation order with their node)
    // paralleljobs: `workers` (replicas default 1) × parallelism 4, then `driver` 1 (JobSet
    // names Job j of replicated Job r `<js>-<r>-<j>`, its pods `<job>-<index>`); no
    // exclusive placement, so greedy spreads them over the six 8-CPU nodes by least allocation.
    // raycluster-sample: the head `<c>-head` and `workergroup` replicas 1 (clamped to [1, 5]) × 1
    // host. pytorchjob-simple: Master 1, Worker 1 (`<job>-<type>-<i>`). The other
    // training-operator v1 examples the same way, master types first, then by type name:
    // tf dist-mnist Chief 1, PS 1, Worker 2; xgboost Master 1, Worker 2; paddle simple-cpu and
    // jax cpu-demo Worker 2 (in namespace kubeflow). None requests anything, so each pod takes
    // the next node in the order the first ones took. mpi-operator's v2beta1 pi: Worker 2
    // (`<job>-worker-<i>`), then the launcher Job `<job>-launcher`'s pod; 1 CPU each (limits
    // as requests) of 8 leaves the next node the least allocated again.
    let cases: [Example; 8] = [
        (
            "testdata/operators/jobset-paralleljobs.yaml",
            "JobSet/paralleljobs",
            &[
                ("paralleljobs-workers-0-0", "np-a-1"),
                ("paralleljobs-workers-0-1", "np-a-2"),
                ("paralleljobs-workers-0-2", "np-b-1"),
                ("paralleljobs-workers-0-3", "np-b-2"),
                ("paralleljobs-driver-0-0", "np-c-1"),
            ],
        ),
        (
            "testdata/operators/raycluster-sample.yaml",
            "RayCluster/raycluster-kuberay",
            &[
                ("raycluster-kuberay-head", "np-a-1"),
                ("raycluster-kuberay-workergroup-worker-0", "np-a-2"),
            ],
        ),
        (
            "testdata/operators/pytorchjob-simple.yaml",
            "PyTorchJob/pytorch-simple",
            &[
                ("pytorch-simple-master-0", "np-a-1"),
                ("pytorch-simple-worker-0", "np-a-2"),
            ],
        ),
        (
            "testdata/operators/tfjob-dist-mnist.yaml",
            "TFJob/dist-mnist-for-e2e-test",
            &[
                ("dist-mnist-for-e2e-test-chief-0", "np-a-1"),
                ("dist-mnist-for-e2e-test-ps-0", "np-a-2"),
                ("dist-mnist-for-e2e-test-worker-0", "np-b-1"),
                ("dist-mnist-for-e2e-test-worker-1", "np-b-2"),
            ],
        ),
        (
            "testdata/operators/xgboostjob-iris.yaml",
            "XGBoostJob/xgboost-dist-iris-test-train",
            &[
                ("xgboost-dist-iris-test-train-master-0", "np-a-1"),
                ("xgboost-dist-iris-test-train-worker-0", "np-a-2"),
                ("xgboost-dist-iris-test-train-worker-1", "np-b-1"),
            ],
        ),
        (
            "testdata/operators/paddlejob-simple-cpu.yaml",
            "PaddleJob/paddle-simple-cpu",
            &[
                ("paddle-simple-cpu-worker-0", "np-a-1"),
                ("paddle-simple-cpu-worker-1", "np-a-2"),
            ],
        ),
        (
            "testdata/operators/jaxjob-cpu-demo.yaml",
            "JAXJob/jaxjob-simple",
            &[
                ("jaxjob-simple-worker-0", "np-a-1"),
                ("jaxjob-simple-worker-1", "np-a-2"),
            ],
        ),
        (
            "testdata/operators/mpijob-pi.yaml",
            "MPIJob/pi",
            &[
                ("pi-worker-0", "np-a-1"),
                ("pi-worker-1", "np-a-2"),
                ("pi-launcher-0", "np-b-1"),
            ],
        ),
    ];
    for (file, from, expected) in cases {
        let (code, rows, _) = rows(file);
        assert_eq!(code, 0, "{file}");
        let got: Vec<(&str, &str, &str)> = rows
            .iter()
            .map(|(pod, f, node, _)| (pod.as_str(), f.as_str(), node.as_str()))
            .collect();
        let want: Vec<(&str, &str, &str)> = expected
            .iter()
            .map(|(pod, node)| (*pod, from, *node))
            .collect();
        assert_eq!(got, want, "{file}");
    }
}

#[test]
fn exclusive_placement_puts_each_job_or_group_in_its_own_pool() {
    // JobSet: 3 Jobs × 3 pods; LWS: 3 groups of size 4 (leader + workers 1..3). The leaders
    // (completion index 0 / worker index 0) come first with the webhook's affinity (job-key
    // and group-key are sha1("default/<job or leader name>"), upstream's values); each
    // follower then gets its leader's pool as a nodeSelector. With one pool per Job, the
    // anti-affinity keeps every leader out of the pools taken before it.
    let cases = [
        (
            "testdata/operators/jobset-exclusive-placement.yaml",
            vec![
                (
                    "exclusive-placement-workers-0-0",
                    "np-a-1",
                    "JobSet webhook: podAffinity jobset.sigs.k8s.io/job-key In [47496bba3739ec6245226520abb350acd62698dd]",
                ),
                (
                    "exclusive-placement-workers-1-0",
                    "np-b-1",
                    "JobSet webhook: podAffinity jobset.sigs.k8s.io/job-key In [5609b21b2bbfe633b0b3ae11509993c056c047a2]",
                ),
                (
                    "exclusive-placement-workers-2-0",
                    "np-c-1",
                    "JobSet webhook: podAffinity jobset.sigs.k8s.io/job-key In [2891df6698c4bece7aa3387d11e8a50261ebd0b3]",
                ),
                (
                    "exclusive-placement-workers-0-1",
                    "np-a-2",
                    "nodeSelector cloud.google.com/gke-nodepool=np-a (from leader exclusive-placement-workers-0-0)",
                ),
                (
                    "exclusive-placement-workers-0-2",
                    "np-a-1",
                    "nodeSelector cloud.google.com/gke-nodepool=np-a",
                ),
                (
                    "exclusive-placement-workers-1-1",
                    "np-b-2",
                    "nodeSelector cloud.google.com/gke-nodepool=np-b",
                ),
                (
                    "exclusive-placement-workers-1-2",
                    "np-b-1",
                    "nodeSelector cloud.google.com/gke-nodepool=np-b",
                ),
                (
                    "exclusive-placement-workers-2-1",
                    "np-c-2",
                    "nodeSelector cloud.google.com/gke-nodepool=np-c",
                ),
                (
                    "exclusive-placement-workers-2-2",
                    "np-c-1",
                    "nodeSelector cloud.google.com/gke-nodepool=np-c",
                ),
            ],
        ),
        (
            "testdata/operators/lws-exclusive-placement.yaml",
            vec![
                (
                    "leaderworkerset-sample-0",
                    "np-a-1",
                    "LeaderWorkerSet webhook: podAffinity leaderworkerset.sigs.k8s.io/group-key In [9e1316d2ae590d1547fdcd8e941a83be8889e7d4]",
                ),
                (
                    "leaderworkerset-sample-1",
                    "np-b-1",
                    "LeaderWorkerSet webhook: podAffinity leaderworkerset.sigs.k8s.io/group-key In [a3cbc54d7769bc2f4ca9d8b493c21c3533607e4c]",
                ),
                (
                    "leaderworkerset-sample-2",
                    "np-c-1",
                    "LeaderWorkerSet webhook: podAffinity leaderworkerset.sigs.k8s.io/group-key In [ee0d9ef1ac6e34b19b82b1ec3c9df8128b804444]",
                ),
                (
                    "leaderworkerset-sample-0-1",
                    "np-a-2",
                    "nodeSelector cloud.google.com/gke-nodepool=np-a (from leader leaderworkerset-sample-0)",
                ),
                (
                    "leaderworkerset-sample-0-2",
                    "np-a-1",
                    "nodeSelector cloud.google.com/gke-nodepool=np-a",
                ),
                (
                    "leaderworkerset-sample-0-3",
                    "np-a-1",
                    "nodeSelector cloud.google.com/gke-nodepool=np-a",
                ),
                (
                    "leaderworkerset-sample-1-1",
                    "np-b-2",
                    "nodeSelector cloud.google.com/gke-nodepool=np-b",
                ),
                (
                    "leaderworkerset-sample-1-2",
                    "np-b-1",
                    "nodeSelector cloud.google.com/gke-nodepool=np-b",
                ),
                (
                    "leaderworkerset-sample-1-3",
                    "np-b-1",
                    "nodeSelector cloud.google.com/gke-nodepool=np-b",
                ),
                (
                    "leaderworkerset-sample-2-1",
                    "np-c-2",
                    "nodeSelector cloud.google.com/gke-nodepool=np-c",
                ),
                (
                    "leaderworkerset-sample-2-2",
                    "np-c-1",
                    "nodeSelector cloud.google.com/gke-nodepool=np-c",
                ),
                (
                    "leaderworkerset-sample-2-3",
                    "np-c-1",
                    "nodeSelector cloud.google.com/gke-nodepool=np-c",
                ),
            ],
        ),
    ];
    for (file, expected) in cases {
        let (code, rows, _) = rows(file);
        assert_eq!(code, 0, "{file}");
        assert_eq!(rows.len(), expected.len(), "{file}");
        for ((pod, _, node, note), (want_pod, want_node, want_note)) in rows.iter().zip(&expected) {
            assert_eq!(
                (pod.as_str(), node.as_str()),
                (*want_pod, *want_node),
                "{file}"
            );
            assert!(note.starts_with(want_note), "{file} {pod}: {note}");
        }
    }
}

#[test]
fn a_train_job_is_its_runtimes_jobset_in_the_volcano_pod_group_it_makes() {
    // numNodes 4 (the TrainJob's, over the runtime's mlPolicy.numNodes 1) on the trainer
    // ancestor `node`: one Job `volcano-example-node-0` of 4 pods, each annotated with the
    // group name; minMember = Σ counts = 4.
    let (code, plan) = cli::run_json(&[
        "plan",
        "-f",
        "testdata/operators/trainjob-volcano.yaml",
        "--state",
        POOLS,
    ]);
    assert_eq!(code, 0);
    let group = &plan["groups"][0];
    assert_eq!(group["name"], "volcano-example");
    assert_eq!(group["minMember"], 4);
    let pods: Vec<(&str, &str)> = group["placements"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(pod, node)| (pod.as_str(), node.as_str().unwrap()))
        .collect();
    assert_eq!(
        pods,
        [
            ("volcano-example-node-0-0", "np-a-1"),
            ("volcano-example-node-0-1", "np-a-2"),
            ("volcano-example-node-0-2", "np-b-1"),
            ("volcano-example-node-0-3", "np-b-2"),
        ]
    );
}
