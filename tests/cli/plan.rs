//! End-to-end tests of `kubectl-dataflow plan` on the bundled testdata.

use std::path::Path;

use serde_json::{Value, json};

use crate::support::cli::{self, Run};

const THREE_ZONE: &str = "testdata/clusters/three-zone.yaml";

/// `kubectl-dataflow plan ARGS...`.
fn plan(args: &[&str]) -> Run {
    cli::run(&[&["plan"], args].concat())
}

/// `plan ARGS... -o json`, which must print nothing on stderr.
fn plan_json(args: &[&str]) -> (i32, Value) {
    cli::run_json(&[&["plan"], args].concat())
}

fn term(pairs: &[(&str, &str)]) -> Value {
    let exprs: Vec<Value> = pairs
        .iter()
        .map(|(k, v)| json!({"key": k, "operator": "In", "values": [v]}))
        .collect();
    json!({"matchExpressions": exprs})
}

fn required(pairs: &[(&str, &str)]) -> Value {
    json!({"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term(pairs)]}})
}

/// The scores, with the default weights (TaintToleration 3, NodeAffinity 2, NodeResourcesFit
/// and BalancedAllocation 1; the others score 0 here), each step on node-b3 (31850m, 236Gi,
/// nothing running; a completed step no longer counts for the next):
/// - load-imagenet (500m, 1Gi): Fit (31850-500)*100/31850 = 98, (236-1)*100/236 = 99,
///   (98+99)/2 = 98; Balanced fractions 0.0157 and 0.0042, 100*(1-0.0057) = 99; 300 + 98 + 99
///   = 497. No node has more room: it is the largest node with nothing on it.
/// - preprocess-imagenet (2 CPUs, 4Gi), required to node-b3: Fit (31850-2000)*100/31850 = 93,
///   (236-4)*100/236 = 98, 95; Balanced 0.0628 and 0.0169, 100*(1-0.0229) = 97; 300 + 95 + 97
///   = 492 (NodeAffinity scores only preferred terms: 0).
/// - export-imagenet (1 CPU, 2Gi), preferring zone us-east-1b (80): NodeAffinity 80 of the
///   best 80, 100, weight 2; Fit (31850-1000)*100/31850 = 96, (236-2)*100/236 = 99, 97;
///   Balanced 0.0314 and 0.0085, 98; 300 + 200 + 97 + 98 = 695.
#[test]
fn three_step_flow_is_the_json_contract() {
    let (code, plan) = plan_json(&[
        "-f",
        "testdata/flows/three-step.yaml",
        "--state",
        THREE_ZONE,
    ]);
    assert_eq!(code, 0);
    let zone_b = json!({"preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 80, "preference": term(&[("topology.kubernetes.io/zone", "us-east-1b")])}
    ]});
    let host_b3 = required(&[("kubernetes.io/hostname", "node-b3")]);
    let expected = json!({
        "operations": [
            {
                "kind": "DataLoad", "namespace": "data", "name": "load-imagenet",
                "after": null, "policy": "", "inheritedAffinity": null, "affinity": null,
                "node": "node-b3",
                "recordedNodeAffinity": required(&[
                    ("kubernetes.io/hostname", "node-b3"),
                    ("topology.example.com/rack", "rack-b2"),
                    ("topology.kubernetes.io/region", "us-east-1"),
                    ("topology.kubernetes.io/zone", "us-east-1b"),
                ]),
                "warnings": [], "flow": 1, "step": 1, "status": "Planned",
                "dependOn": null, "score": 497, "zone": "us-east-1b", "tied": [], "summary": null,
                "source": "testdata/flows/three-step.yaml:9:9",
                "webhookAffinity": [], "datasets": []
            },
            {
                "kind": "DataProcess", "namespace": "data", "name": "preprocess-imagenet",
                "after": {"kind": "DataLoad", "namespace": "data", "name": "load-imagenet"},
                "policy": "Require",
                "inheritedAffinity": host_b3,
                "affinity": {"nodeAffinity": host_b3},
                "node": "node-b3", "recordedNodeAffinity": null,
                "warnings": [], "flow": 1, "step": 2, "status": "Planned",
                "dependOn": null, "score": 492, "zone": "us-east-1b", "tied": [], "summary": null,
                "source": "testdata/flows/three-step.yaml:29:9",
                "webhookAffinity": [], "datasets": []
            },
            {
                "kind": "DataMigrate", "namespace": "data", "name": "export-imagenet",
                "after": {"kind": "DataProcess", "namespace": "data", "name": "preprocess-imagenet"},
                "policy": "Prefer",
                "inheritedAffinity": zone_b,
                "affinity": {"nodeAffinity": zone_b},
                "node": "node-b3",
                "recordedNodeAffinity": required(&[
                    ("kubernetes.io/hostname", "node-b3"),
                    ("topology.kubernetes.io/region", "us-east-1"),
                    ("topology.kubernetes.io/zone", "us-east-1b"),
                ]),
                "warnings": [], "flow": 1, "step": 3, "status": "Planned",
                "dependOn": {"kind": "DataLoad", "namespace": "data", "name": "load-imagenet"},
                "score": 695, "zone": "us-east-1b", "tied": [], "summary": null,
                "source": "testdata/flows/three-step.yaml:57:9",
                "webhookAffinity": [], "datasets": []
            }
        ],
        "groups": [],
        "batch": null,
        "whatIfEffect": null,
        "drift": null,
        "sampling": null,
        "notes": []
    });
    assert_eq!(plan, expected);
}

#[test]
fn yaml_is_the_same_contract() {
    let args = [
        "-f",
        "testdata/flows/three-step.yaml",
        "--state",
        THREE_ZONE,
    ];
    let (_, json) = plan_json(&args);
    let run = plan(&[&args[..], &["-o", "yaml"]].concat());
    let yaml: Value = serde_saphyr::from_str(&run.stdout).expect("YAML output");
    assert_eq!(yaml, json);
}

/// The scores, with the default weights (TaintToleration 3, NodeAffinity 2, NodeResourcesFit
/// and BalancedAllocation 1), the completed warmup's Succeeded loader holding nothing:
/// - train-on-warm-cache (2 CPUs, 8Gi), required to rack-a1 (node-a1 and node-a2): node-a1
///   (coredns 100m, 70Mi and a web frontend 500m, 512Mi; 7910m, 30Gi) has Fit
///   (7910-2600)*100/7910 = 67 and (30720-8774)*100/30720 = 71, (67+71)/2 = 69; Balanced
///   0.329 and 0.286, 100*(1-0.0216) = 97; 300 + 69 + 97 = 466. node-a2 holds a 2-CPU, 8Gi
///   Alluxio worker, so it scores less (Fit 47).
/// - load-eval-set (no requests: scored as upstream's non-zero 100m and 200Mi, and not by
///   BalancedAllocation, which skips a pod that requests nothing), preferring zone us-east-1a
///   (100) and node-a2 (20): NodeAffinity 120 on node-a2, the best, so 100, weight 2; Fit on
///   node-a2 (the worker's 2 CPUs, 8Gi) (7910-2100)*100/7910 = 73, (30720-8392)*100/30720 =
///   72, (73+72)/2 = 72; 300 + 200 + 72 = 572.
#[test]
fn table_shows_each_step_with_its_inherited_terms() {
    let run = plan(&[
        "-f",
        "testdata/flows/inherit-existing.yaml",
        "--state",
        THREE_ZONE,
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let expected = "\
Flow 1 (3 operations)
 STEP  OPERATION                             AFTER                          POLICY   INHERITED                                                                                                        NODE                ZONE        SCORE
 1     DataLoad/data/warmup-imagenet         -                              -        -                                                                                                                node-a2 (complete)  -           -
 2     DataProcess/data/train-on-warm-cache  DataLoad/data/warmup-imagenet  Require  required: topology.example.com/rack In [rack-a1]                                                                 node-a1             us-east-1a  466
 3     DataLoad/ml/load-eval-set             DataLoad/data/warmup-imagenet  Prefer   preferred(100): topology.kubernetes.io/zone In [us-east-1a]; preferred(20): kubernetes.io/hostname In [node-a2]  node-a2             us-east-1a  572
";
    assert_eq!(run.stdout, expected);
}

#[test]
fn fan_out_flow_places_twelve_steps_and_flags_the_rejected_pod() {
    let (code, plan) = plan_json(&["-f", "testdata/flows/fan-out.yaml", "--state", THREE_ZONE]);
    assert_eq!(code, 1);
    let rows: Vec<String> = plan["operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            format!(
                "{} {} {} {}",
                o["step"],
                o["name"].as_str().unwrap(),
                o["node"].as_str().unwrap_or("-"),
                o["status"].as_str().unwrap()
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            "1 load-raw node-b3 Planned",
            "2 clean node-b3 Planned",
            "3 tokenize node-b3 Planned",
            "4 dedupe node-b3 Planned",
            "5 backup-raw node-a1 Planned",
            "6 load-features node-b3 Planned",
            "7 train-shard-0 node-b3 Planned",
            "8 train-shard-1 node-b3 Planned",
            "9 evaluate node-b3 Planned",
            "10 export-model node-c3 Planned",
            "11 backup-features node-b3 Planned",
            "12 reload-raw - Blocked",
        ]
    );
    assert_eq!(
        plan["operations"][11]["warnings"],
        json!([
            "the inherited preferred term (kubernetes.io/hostname In [node-b3]) has weight 0: the API server only accepts 1-100 and rejects the pod"
        ])
    );
}

#[test]
fn what_if_moves_the_flow() {
    // node-b3 held the whole flow; drained, the flow moves to node-c3 and its zone.
    let (code, moved) = plan_json(&[
        "-f",
        "testdata/flows/three-step.yaml",
        "--state",
        THREE_ZONE,
        "--what-if",
        "drain=node-b3",
        "--what-if",
        "label=node-a1:example.com/disk=ssd",
    ]);
    assert_eq!(code, 0);
    let placed: Vec<(Value, Value)> = moved["operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["node"].clone(), o["zone"].clone()))
        .collect();
    assert_eq!(placed, vec![(json!("node-c3"), json!("us-east-1c")); 3]);

    let run = plan(&[
        "-f",
        "testdata/flows/three-step.yaml",
        "--state",
        THREE_ZONE,
        "--what-if",
        "cordon=nope",
    ]);
    assert_eq!(
        (run.code, run.stderr.as_str()),
        (
            2,
            "error: what-if edit cordon=nope: node \"nope\" is not in the cluster state\n"
        )
    );
}

#[test]
fn bad_flows_exit_2_with_one_line_per_problem() {
    let dir = tempfile::tempdir().unwrap();
    let op = |name: &str, after_kind: &str, after: &str, policy: &str| {
        format!(
            "apiVersion: data.fluid.io/v1alpha1\nkind: DataLoad\nmetadata: {{name: {name}, namespace: ns}}\nspec:\n  runAfter: {{kind: {after_kind}, name: {after}, affinityStrategy: {{policy: {policy}}}}}\n"
        )
    };
    let cases = [
        (
            [
                op("a", "DataLoad", "b", "Require"),
                op("b", "DataLoad", "a", "Prefer"),
            ]
            .join("---\n"),
            "error: cycle in runAfter: DataLoad/ns/a (FILE:5:13) -> DataLoad/ns/b (FILE:11:13) -> DataLoad/ns/a (FILE:5:13)\n",
        ),
        (
            op("a", "DataLoad", "a", "Require"),
            "error: FILE:5:13: DataLoad/ns/a runs after itself (spec.runAfter)\n",
        ),
        (
            op("a", "DataSet", "b", "Sometimes"),
            "error: FILE:5:20: DataLoad/ns/a: spec.runAfter.kind: unknown kind \"DataSet\"; expected one of DataLoad, DataMigrate, DataProcess, DataBackup\n\
             error: FILE:5:65: DataLoad/ns/a: spec.runAfter.affinityStrategy.policy: unknown policy \"Sometimes\"; expected \"\", \"Require\" or \"Prefer\"\n",
        ),
    ];
    for (i, (text, expected)) in cases.into_iter().enumerate() {
        let file = dir.path().join(format!("bad-{i}.yaml"));
        std::fs::write(&file, text).unwrap();
        let name = file.display().to_string();
        let run = plan(&["-f", &name, "--state", THREE_ZONE]);
        assert_eq!(run.code, 2, "{name}");
        assert_eq!(run.stderr, expected.replace("FILE", &name));
    }
}

#[test]
fn plans_against_the_openb_production_state() {
    assert!(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/clusters/openb.json")
            .exists()
    );
    let dir = tempfile::tempdir().unwrap();
    let flow = dir.path().join("gpu-flow.yaml");
    std::fs::write(
        &flow,
        "apiVersion: data.fluid.io/v1alpha1
kind: DataLoad
metadata: {name: warm, namespace: ml, annotations: {affinity.dataflow.fluid.io/labels: tor}}
spec:
  resources: {requests: {cpu: '4', memory: 16Gi}}
---
apiVersion: data.fluid.io/v1alpha1
kind: DataProcess
metadata: {name: train, namespace: ml}
spec:
  runAfter:
    kind: DataLoad
    name: warm
    affinityStrategy: {policy: Require, requires: [{name: tor}]}
  processor:
    script: {image: trainer, resources: {requests: {cpu: '8', memory: 32Gi}}}
",
    )
    .unwrap();
    let name = flow.display().to_string();
    let (code, plan) = plan_json(&["-f", &name, "--state", "testdata/clusters/openb.json"]);
    assert_eq!(code, 0);
    let ops = plan["operations"].as_array().unwrap();
    let warm = &ops[0];
    let tor = warm["recordedNodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"][0]["matchExpressions"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["key"] == "tor")
        .map(|e| e["values"][0].clone())
        .unwrap();
    // The 8-CPU step starts once the loader is Complete, so it fits on the loader's own node.
    assert_eq!(tor, json!("tor-041"));
    assert_eq!(ops[1]["inheritedAffinity"], required(&[("tor", "tor-041")]));
    assert_eq!(
        (warm["node"].clone(), ops[1]["node"].clone()),
        (json!("openb-node-1328"), json!("openb-node-1328"))
    );
}

const GANG: &str = "testdata/clusters/gang.yaml";

/// `kubectl-dataflow COMMAND ARGS...`, fed `stdin`.
fn run(command: &str, args: &[&str], stdin: Option<&str>) -> Run {
    cli::run_with_stdin(&[&[command], args].concat(), stdin)
}

/// `COMMAND ARGS... -o json`, which must print nothing on stderr.
fn run_json(command: &str, args: &[&str]) -> (i32, Value) {
    cli::run_json(&[&[command], args].concat())
}

/// The gang: 8 pods of 4 GPUs are 32 GPUs, one tor's 4 nodes of 8. Of the bigPods (the
/// required level), bigPodB has the more GPUs available (128 less inference's 4 x 2 = 120;
/// bigPodA 128 less llm-pretrain's 3 x 8 + 4 + 4 = 96), of its miniPods miniPodB2 (64 free;
/// miniPodB1 56), and of its tors torB2-1 and torB2-2 tie at 32: the first, torB2-1,
/// gpu-node-24..27, 2 pods on each, alternating as each pod takes the emptiest node.
/// The default scheduler, pod by pod, takes the empty nodes first, first by name among equals:
/// gpu-node-04..07 (torA1-2 of miniPodA1), then past the half-used gpu-node-08, 09..12 (torA2-1
/// for 09..11, torA2-2 for 12, of miniPodA2): 1 bigPod, 2 miniPods, 3 tors.
#[test]
fn godel_gang_table_with_the_default_scheduler_beside_it() {
    let run = plan(&[
        "-f",
        "testdata/gangs/godel-podgroup.yaml",
        "--state",
        GANG,
        "--compare",
        "--show-all",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let expected = "\
PodGroup training/bert-large (godel, minMember 8): 8/8 pods placed in bigPod=bigPodB, miniPod=miniPodB2, tor=torB2-1
 POD           NODE         BIGPOD   MINIPOD    TOR
 bert-large-0  gpu-node-24  bigPodB  miniPodB2  torB2-1
 bert-large-1  gpu-node-25  bigPodB  miniPodB2  torB2-1
 bert-large-2  gpu-node-26  bigPodB  miniPodB2  torB2-1
 bert-large-3  gpu-node-27  bigPodB  miniPodB2  torB2-1
 bert-large-4  gpu-node-24  bigPodB  miniPodB2  torB2-1
 bert-large-5  gpu-node-25  bigPodB  miniPodB2  torB2-1
 bert-large-6  gpu-node-26  bigPodB  miniPodB2  torB2-1
 bert-large-7  gpu-node-27  bigPodB  miniPodB2  torB2-1
Node group: tor=torB2-1
Default scheduler (pod by pod, no group semantics): 8/8 pods placed
 LEVEL    DOMAINS (GANG)  DOMAINS (DEFAULT)
 bigPod   1               1
 miniPod  1               2
 tor      1               3
";
    assert_eq!(run.stdout, expected);
}

/// A flow and a gang in the same inputs both show; the group is the contract's `groups[]`.
#[test]
fn volcano_job_fills_groups_next_to_a_flow() {
    let (code, plan) = run_json(
        "plan",
        &[
            "-f",
            "testdata/gangs/volcano-job.yaml",
            "-f",
            "testdata/flows/three-step.yaml",
            "--state",
            GANG,
        ],
    );
    assert_eq!(code, 0);
    let ops: Vec<(&str, &str)> = plan["operations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["name"].as_str().unwrap(), o["status"].as_str().unwrap()))
        .collect();
    assert_eq!(
        ops,
        [
            ("load-imagenet", "Planned"),
            ("preprocess-imagenet", "Planned"),
            ("export-imagenet", "Planned")
        ]
    );
    let group = &plan["groups"][0];
    let contract: Value = [
        "kind",
        "namespace",
        "name",
        "placements",
        "scheduled",
        "minMember",
    ]
    .iter()
    .map(|k| (k.to_string(), group[*k].clone()))
    .collect::<serde_json::Map<_, _>>()
    .into();
    assert_eq!(
        contract,
        json!({
            "kind": "Job", "namespace": "training", "name": "tf-resnet",
            "placements": {
                "tf-resnet-ps-0": "gpu-node-05", "tf-resnet-ps-1": "gpu-node-06",
                "tf-resnet-worker-0": "gpu-node-05", "tf-resnet-worker-1": "gpu-node-06",
                "tf-resnet-worker-2": "gpu-node-05", "tf-resnet-worker-3": "gpu-node-06"
            },
            "scheduled": 6, "minMember": 6
        })
    );
    // One plan, one assumed state: the flow's operations, planned first, run on gpu-node-04,
    // so the job's least-allocated scoring moves it one node over.
    assert_eq!(
        group["summary"],
        "6/6 pods placed; nodes: gpu-node-05 x3, gpu-node-06 x3"
    );
    assert_eq!(plan["groups"].as_array().unwrap().len(), 1);
    assert!(plan["batch"].is_null());
}

/// 40 copies (`--replicas`) of an 8-GPU pod, all required in one bigPod of 16 nodes: no group
/// holds the unit, each one says why, and the plan exits 1.
#[test]
fn gang_below_min_member_exits_1_with_one_line_or_every_rejection() {
    let gang = "\
apiVersion: scheduling.godel.kubewharf.io/v1alpha1
kind: PodGroup
metadata: {name: huge, namespace: training}
spec:
  minMember: 40
  affinity:
    podGroupAffinity:
      required: [{topologyKey: bigPod}]
---
apiVersion: v1
kind: Pod
metadata:
  name: huge
  namespace: training
  labels: {godel.bytedance.com/pod-group-name: huge}
spec:
  schedulerName: godel-scheduler
  containers:
    - name: t
      image: trainer
      resources:
        requests: {cpu: \"8\", memory: 64Gi, nvidia.com/gpu: \"8\"}
        limits: {nvidia.com/gpu: \"8\"}
";
    let args = ["-f", "-", "--replicas", "40", "--state", GANG];
    let concise = run("plan", &args, Some(gang));
    assert_eq!(concise.code, 1, "{}", concise.stderr);
    assert_eq!(
        concise.stdout,
        "PodGroup training/huge (godel, minMember 40): 0/40 pods placed; pending: the unit fits no node group (40 pods)\n"
    );
    for expand in ["--show-all", "-owide"] {
        let run = run("plan", &[&args[..], &[expand]].concat(), Some(gang));
        assert_eq!(run.code, 1, "{}", run.stderr);
        expanded_gang_shows_every_pod_and_rejection(&run.stdout);
    }
}

fn expanded_gang_shows_every_pod_and_rejection(stdout: &str) {
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines[0],
        "PodGroup training/huge (godel, minMember 40): 0/40 pods placed; pending: the unit fits no node group (40 pods)"
    );
    assert_eq!(lines[2], " huge-0   <pending>  -");
    let notes = lines
        .iter()
        .position(|l| *l == "Pending:")
        .expect("a Pending section");
    assert_eq!(
        lines[notes..],
        [
            "Pending:",
            "  huge-0, huge-1, huge-2, huge-3, huge-4 and 35 more: the unit fits no node group",
            "Unschedulable: 0 of minMember 40 fit; none of its pending pods is placed",
            "Blocked (first reason per pod):",
            "  40 pods: the unit fits no node group",
            "Rejected:",
            "  bigPod=bigPodA: summed allocatable (cpu 1532800m, memory 17920Gi, nvidia.com/gpu 128) cannot hold the unit's minimum request (cpu 320, memory 2560Gi, nvidia.com/gpu 320)",
            "  bigPod=bigPodB: summed allocatable (cpu 1532800m, memory 17920Gi, nvidia.com/gpu 128) cannot hold the unit's minimum request (cpu 320, memory 2560Gi, nvidia.com/gpu 320)",
            "  -: no node group: 32 of 32 nodes match the nodeSelector and none is left after grouping by the topology keys and cutting off",
        ]
    );
}

const BATCH: &str = "testdata/pods/batch.yaml";

/// Greedy places shard-loaders on node-a3 before gpu-eval (which only fits there) comes; the
/// flow keeps them off it. oversized fits nowhere, so both exit 1.
#[test]
fn batch_flow_solver_against_greedy() {
    let (code, plan) = run_json(
        "plan",
        &[
            "-f",
            BATCH,
            "--state",
            THREE_ZONE,
            "--solver",
            "flow",
            "--compare",
        ],
    );
    assert_eq!(code, 1);
    let batch = &plan["batch"];
    assert_eq!(batch["solver"], "flow");
    assert_eq!(batch["placed"], 14);
    // The objective (crates/systems/src/flow.rs): placement arcs cost 1 + NodeAffinity's 2 x
    // (100 - the normalised preference): the 8 feature-extracts in zone us-east-1b 1 each, the
    // 4 shard-loaders and gpu-eval, which prefer nothing, 201 each: 8 + 5 x 201 = 1013. A
    // node's k-th pod costs first + (k-1) x step, NodeResourcesFit's utilisation by the mean
    // flow pod (136 CPUs and 192Gi over the 14: 9714m, 13.7Gi): a1 (73, 72) x 1, a3 (48, 13)
    // x 2, b1 (56, 41) x 2, b3 (17, 17) x 6, c3 (46, 41) x 2: 73 + 109 + 153 + 357 + 133 =
    // 825. oversized, left pending, costs the batch's 14 x (the dearest arc 201 + the dearest
    // unit, b1's 4th at 56 + 3 x 41 = 179) + 1 = 5321. 1013 + 825 + 5321 = 7159.
    assert_eq!(batch["totalCost"], 7159);
    // The metrics, from the placements in `batch_comparison_table` (pods per used node):
    // greedy node-b3 6 (five feature-extracts, shard-loader-2), node-b1 3, node-a3 2, node-c3 1,
    // node-a2 1: 13 placed on 5 nodes, at most 6, mean 2.6, variance (3.4^2 + 0.4^2 + 0.6^2 +
    // 1.6^2 + 1.6^2)/5 = 3.44, stddev 1.855. Flow node-b3 6, node-b1 2, node-a3 2 (shard-loader-1,
    // gpu-eval), node-c3 2, node-a1 1, node-a2 1: 14 on 6 nodes, mean 7/3, variance 52/18,
    // stddev 1.700. Both put all 8 feature-extracts in zone us-east-1b: 8 x 60 = 480 of preferred
    // weight. placed 14 = 15 less oversized (64 CPUs, more than any node).
    let comparison = &batch["comparison"];
    assert_eq!(
        comparison["greedy"],
        json!({"pods": 15, "placed": 13, "nodesUsed": 5, "preferredWeight": 480,
               "maxPodsPerNode": 6, "podsPerNodeStddev": 1.855})
    );
    assert_eq!(
        comparison["flow"],
        json!({"pods": 15, "placed": 14, "nodesUsed": 6, "preferredWeight": 480,
               "maxPodsPerNode": 6, "podsPerNodeStddev": 1.7})
    );
    let pods: Vec<Value> = batch["pods"].as_array().unwrap()[12..].to_vec();
    assert_eq!(
        pods,
        [
            json!({"namespace": "web", "name": "cache-probe", "from": "Pod/cache-probe",
                   "node": "node-a2", "method": "greedy",
                   "note": "greedy fall-back: inter-pod affinity depends on where other pods of the batch land",
                   "preempts": [], "webhookAffinity": [], "datasets": []}),
            json!({"namespace": "ml", "name": "gpu-eval", "from": "Pod/gpu-eval",
                   "node": "node-a3", "method": "flow",
                   "note": "min-cost flow: task class 2 (1 pod, 1 feasible node)",
                   "preempts": [], "webhookAffinity": [], "datasets": []}),
            // oversized (64 CPUs, 16Gi): as the state's own 64-CPU Pending pod in
            // testdata.rs, cordoned c2, tainted b2, 7 nodes short of CPU and c1 of memory.
            json!({"namespace": "ml", "name": "oversized", "from": "Pod/oversized",
                   "node": null, "method": "flow",
                   "note": "pending: 0/9 nodes are available: 1 Insufficient memory, 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable, 7 Insufficient cpu.",
                   "preempts": [], "webhookAffinity": [], "datasets": []}),
        ]
    );
}

#[test]
fn batch_comparison_table() {
    let run = plan(&["-f", BATCH, "--state", THREE_ZONE, "--compare"]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    let lines: Vec<&str> = run.stdout.lines().collect();
    assert_eq!(
        lines[0],
        "Batch (15 pods, solver greedy): 13/15 pods placed"
    );
    // The Deployment's replicas spread by their ReplicaSet's selector (kube-scheduler's system
    // default constraints): shard-loader-2 leaves node-a3, which shard-loader-1 holds.
    assert_eq!(
        lines[12..15],
        [
            " data/shard-loader-2     Deployment/shard-loader     node-b3    greedy  -",
            " data/shard-loader-3     Deployment/shard-loader     node-a3    greedy  -",
            " web/cache-probe         Pod/cache-probe             node-a2    greedy  -",
        ]
    );
    let compared = lines
        .iter()
        .position(|l| *l == "Greedy against flow:")
        .expect("a comparison");
    assert_eq!(
        lines[compared..compared + 7],
        [
            "Greedy against flow:",
            " METRIC                     GREEDY  FLOW",
            " pods placed                13/15   14/15",
            " nodes used                 5       6",
            " preferred-affinity weight  480     480",
            " max pods per node          6       6",
            " pods per node (stddev)     1.855   1.700",
        ]
    );
    assert!(lines.contains(&" gpu-eval *           <pending>  node-a3"));
}

/// The batch on the production trace's state: every CPU pod finds a node with either solver;
/// the T4 pod finds none (openb has no Tesla-T4 label).
#[test]
fn batch_on_the_openb_state() {
    let (code, plan) = run_json(
        "plan",
        &[
            "-f",
            BATCH,
            "--state",
            "testdata/clusters/openb.json",
            "--compare",
        ],
    );
    assert_eq!(code, 1);
    // 14 placed: the 15 pods less gpu-eval. 14 nodes used: with far more empty nodes than pods,
    // least-allocated scoring sends each pod to a node no earlier pod of the batch took.
    let comparison = &plan["batch"]["comparison"];
    let placed = |m: &Value| (m["placed"].clone(), m["nodesUsed"].clone());
    assert_eq!(placed(&comparison["greedy"]), (json!(14), json!(14)));
    assert_eq!(placed(&comparison["flow"]), (json!(14), json!(14)));
    let gpu = plan["batch"]["pods"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "gpu-eval")
        .cloned()
        .unwrap();
    assert_eq!(gpu["node"], Value::Null);
}

/// node-b3's 695 is derived at `three_step_flow_is_the_json_contract`. node-b1 (coredns 100m,
/// 70Mi, a web frontend 500m, 512Mi and an Alluxio worker 2 CPUs, 8Gi; 15890m, 61Gi), with
/// the pod's 1 CPU and 2Gi: Fit (15890-3600)*100/15890 = 77, (62464-10822)*100/62464 = 82,
/// (77+82)/2 = 79; Balanced 0.227 and 0.173, 100*(1-0.0266) = 97; in zone us-east-1b too, so
/// NodeAffinity 100: 300 + 200 + 79 + 97 = 676, 19 below (18 + 1).
#[test]
fn explain_an_operation_at_its_step_with_the_source_of_each_inherited_term() {
    let run = run(
        "explain-placement",
        &[
            "-f",
            "testdata/flows/three-step.yaml",
            "DataMigrate/export-imagenet",
            "--state",
            THREE_ZONE,
            "--top",
            "2",
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let expected = "\
Within DataMigrate/data/export-imagenet: step 3 of flow 1
Inherited terms:
 TERM           EXPRESSION                                   FROM                         RECORDED
 preferred(80)  topology.kubernetes.io/zone In [us-east-1b]  DataLoad/data/load-imagenet  topology.kubernetes.io/zone=us-east-1b
Notes:
  DataLoad/data/load-imagenet is Complete before this step starts: its pod no longer holds node-b3
  DataProcess/data/preprocess-imagenet is Complete before this step starts: its pod no longer holds node-b3

Pod data/export-imagenet-migrate would land on node node-b3 (score 695).
7 of 9 nodes are feasible.
Why: it leads node-b1 by 19: NodeResourcesFit +18, NodeResourcesBalancedAllocation +1.

 NODE     SCORE  TAINTS  NODE-AFF  SPREAD  POD-AFF  FIT  BALANCED  IMAGES
 node-b3  695    100     100       0       0        97   98        0
 node-b1  676    100     100       0       0        79   97        0
... and 5 more feasible node(s) (-o wide lists all)
";
    assert!(run.stdout.starts_with(expected), "{}", run.stdout);
}

/// The plan's score of the step and the explanation's agree: the same state at that step.
#[test]
fn explained_operation_matches_its_plan_row() {
    let args = [
        "-f",
        "testdata/flows/three-step.yaml",
        "--state",
        THREE_ZONE,
    ];
    let (_, plan) = run_json("plan", &args);
    let cases = [
        ("DataLoad/load-imagenet", 0),
        ("dataprocess/preprocess-imagenet", 1),
        ("DataMigrate/export-imagenet", 2),
    ];
    for (target, row) in cases {
        let (code, explanation) = run_json("explain-placement", &[&args[..], &[target]].concat());
        assert_eq!(code, 0, "{target}");
        let op = &plan["operations"][row];
        assert_eq!(explanation["selected"], op["node"], "{target}");
        let selected = explanation["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|n| n["name"] == op["node"])
            .unwrap();
        assert_eq!(selected["score"], op["score"], "{target}");
    }
}

#[test]
fn explain_a_gang_pod_inside_its_group() {
    let (code, explanation) = run_json(
        "explain-placement",
        &[
            "-f",
            "testdata/gangs/godel-podgroup.yaml",
            "pod/bert-large-5",
            "--state",
            GANG,
        ],
    );
    assert_eq!(code, 0);
    assert_eq!(
        explanation["context"],
        json!({
            "within": "PodGroup training/bert-large",
            "assumed": [
                {"pod": "training/bert-large-0", "node": "gpu-node-24"},
                {"pod": "training/bert-large-1", "node": "gpu-node-25"},
                {"pod": "training/bert-large-2", "node": "gpu-node-26"},
                {"pod": "training/bert-large-3", "node": "gpu-node-27"},
                {"pod": "training/bert-large-4", "node": "gpu-node-24"}
            ],
            "restrictedTo": "node group tor=torB2-1 (4 nodes)",
            "inherited": [],
            "solvers": null,
            "notes": ["the gang plan puts it on gpu-node-25"]
        })
    );
    // The pods before it alternate over the tor's nodes: gpu-node-24 holds two (8 of its 8
    // GPUs), 25, 26 and 27 one each (4 left), so 25 is the first by name of the emptiest.
    // Only the tor's 4 nodes are looked at.
    assert_eq!(explanation["selected"], "gpu-node-25");
    assert_eq!(explanation["totalNodes"], 4);
}

#[test]
fn explain_a_volcano_pod_says_why_the_plan_differs() {
    let (code, explanation) = run_json(
        "explain-placement",
        &[
            "-f",
            "testdata/gangs/volcano-job.yaml",
            "pod/tf-resnet-worker-1",
            "--state",
            GANG,
        ],
    );
    assert_eq!(code, 0);
    // Volcano places the job bucket by bucket (its task-topology plugin): the first bucket,
    // ps-0 with workers 0 and 2, all on gpu-node-04, then ps-1, whose bucket worker-1 joins.
    assert_eq!(
        explanation["context"]["assumed"],
        json!([
            {"pod": "training/tf-resnet-ps-0", "node": "gpu-node-04"},
            {"pod": "training/tf-resnet-worker-0", "node": "gpu-node-04"},
            {"pod": "training/tf-resnet-worker-2", "node": "gpu-node-04"},
            {"pod": "training/tf-resnet-ps-1", "node": "gpu-node-05"}
        ])
    );
    assert_eq!(
        explanation["context"]["notes"],
        json!([
            "the gang plan puts it on gpu-node-05",
            "this decision alone picks gpu-node-06; the gang plan picks gpu-node-05: Volcano adds its task-topology (bucket) score to the engine's"
        ])
    );
}

/// The flow solver places gpu-eval; greedy, after the pods before it, leaves it pending.
#[test]
fn explain_a_batch_pod_with_the_flow_solver() {
    let (code, explanation) = run_json(
        "explain-placement",
        &[
            "-f",
            BATCH,
            "pod/gpu-eval",
            "--solver",
            "flow",
            "--state",
            THREE_ZONE,
        ],
    );
    assert_eq!(code, 0);
    let context = &explanation["context"];
    assert_eq!(context["within"], "a batch of 15 pods (Pod/gpu-eval)");
    // The flow decides the whole batch at once, on the state before it: nothing is assumed
    // yet when the engine decides the pod's class.
    assert_eq!(context["assumed"], json!([]));
    assert_eq!(
        context["solvers"],
        json!({"flow": "node-a3", "method": "flow",
               "note": "min-cost flow: task class 2 (1 pod, 1 feasible node)",
               "totalCost": 7159, "greedy": null})
    );
    assert_eq!(explanation["selected"], "node-a3");
    let a3 = explanation["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["name"] == "node-a3")
        .cloned()
        .unwrap();
    assert_eq!(a3["feasible"], true);
}

const TWO_NODES: &str = "testdata/clusters/two-nodes.yaml";

/// `plan -f - -o json` with `manifests` on stdin.
fn plan_stdin_json(manifests: &str, args: &[&str]) -> (i32, Value) {
    let run = run(
        "plan",
        &[&["-f", "-", "-o", "json"], args].concat(),
        Some(manifests),
    );
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    (
        run.code,
        serde_json::from_str(&run.stdout).expect("JSON output"),
    )
}

/// Each kind's testdata example plans on the gang cluster with the groups[] contract filled.
/// The last column is each file's own minimum (minMember, the Job's minAvailable, the
/// Workload's minCount); each example has exactly that many pods, and all are placed.
#[test]
fn every_gang_kind_plans_from_its_testdata_example() {
    let cases = [
        (
            "kube-batch-podgroup.yaml",
            "PodGroup",
            "kube-batch",
            "scheduling.incubator.k8s.io/v1alpha1",
            "kube-batch",
            4,
        ),
        (
            "volcano-podgroup.yaml",
            "PodGroup",
            "volcano",
            "scheduling.volcano.sh/v1beta1",
            "volcano",
            3,
        ),
        (
            "coscheduling-podgroup.yaml",
            "PodGroup",
            "coscheduling",
            "scheduling.x-k8s.io/v1alpha1",
            "coscheduling",
            3,
        ),
        (
            "../workload-api/v1alpha1.yaml",
            "Workload",
            "workload",
            "scheduling.k8s.io/v1alpha1",
            "kube-scheduler",
            4,
        ),
        (
            "../workload-api/v1alpha2.yaml",
            "PodGroup",
            "workload-podgroup",
            "scheduling.k8s.io/v1alpha2",
            "kube-scheduler",
            2,
        ),
        (
            "../workload-api/v1beta1.yaml",
            "PodGroup",
            "workload-podgroup",
            "scheduling.k8s.io/v1beta1",
            "kube-scheduler",
            2,
        ),
        (
            "godel-podgroup.yaml",
            "PodGroup",
            "godel",
            "scheduling.godel.kubewharf.io/v1alpha1",
            "godel",
            8,
        ),
        (
            "volcano-job.yaml",
            "Job",
            "volcano-job",
            "batch.volcano.sh/v1alpha1",
            "volcano",
            6,
        ),
    ];
    for (file, kind, gang_kind, api_version, system, min) in cases {
        let path = format!("testdata/gangs/{file}");
        // The Workload API's files name their release (else a note says which is simulated).
        let release = match api_version {
            "scheduling.k8s.io/v1alpha1" => "1.35",
            "scheduling.k8s.io/v1alpha2" => "1.36",
            "scheduling.k8s.io/v1beta1" => "1.37",
            _ => "1.34",
        };
        let args = [
            "-f",
            &path,
            "--state",
            GANG,
            "--kubernetes-version",
            release,
        ];
        let (code, plan) = run_json("plan", &args);
        assert_eq!(code, 0, "{file}");
        let groups = plan["groups"].as_array().unwrap();
        assert_eq!(groups.len(), 1, "{file}");
        let g = &groups[0];
        let got = (
            g["kind"].as_str().unwrap(),
            g["gangKind"].as_str().unwrap(),
            g["apiVersion"].as_str().unwrap(),
            g["system"].as_str().unwrap(),
            g["minMember"].as_u64().unwrap(),
            g["scheduled"].as_u64().unwrap(),
            g["status"].as_str().unwrap(),
            g["placements"].as_object().unwrap().len(),
        );
        assert_eq!(
            got,
            (
                kind,
                gang_kind,
                api_version,
                system,
                min,
                min,
                "Scheduled",
                min as usize
            ),
            "{file}"
        );
        assert!(plan["batch"].is_null(), "{file}: members left the batch");
        if file == "volcano-podgroup.yaml" {
            assert_eq!(
                (&g["queue"], &g["priorityClassName"]),
                (&json!("research"), &json!("high"))
            );
        }
    }
}

/// A Workload API object of a version the chosen release does not serve is refused (exit 2),
/// naming both and the release that serves it; without a release named, the one that serves
/// the inputs is simulated and said.
#[test]
fn a_workload_api_version_the_release_does_not_serve_is_refused() {
    let cases = [
        (
            "1.37",
            "v1alpha2",
            2,
            "error: testdata/workload-api/v1alpha2.yaml:4:13: Workload/research/sim: scheduling.k8s.io/v1alpha2 is not served by Kubernetes 1.37 (it serves scheduling.k8s.io/v1alpha3 and scheduling.k8s.io/v1beta1); Kubernetes 1.36 serves it (--kubernetes-version)\n",
        ),
        (
            "1.34",
            "v1beta1",
            2,
            "error: testdata/workload-api/v1beta1.yaml:4:13: Workload/research/sim: scheduling.k8s.io/v1beta1 is not served by Kubernetes 1.34 (it serves no Workload API); Kubernetes 1.37 serves it (--kubernetes-version)\n",
        ),
        ("1.37", "v1beta1", 0, ""),
        (
            "",
            "v1alpha1",
            0,
            "note: simulating Kubernetes 1.35, the release that serves scheduling.k8s.io/v1alpha1 (--kubernetes-version chooses)\n",
        ),
    ];
    for (release, file, code, stderr) in cases {
        let path = format!("testdata/workload-api/{file}.yaml");
        let mut args = vec!["plan", "-f", &path, "--state", GANG, "-o", "json"];
        if !release.is_empty() {
            args.extend(["--kubernetes-version", release]);
        }
        let out = cli::run(&args);
        assert_eq!((out.code, out.stderr.as_str()), (code, stderr), "{args:?}");
        if code == 2 {
            assert_eq!(out.stdout, "", "{args:?}: nothing printed on refusal");
        }
    }
}

/// `patch` plans as `plan` does, with the same `--scheduler-config`: a pod of the scheduler
/// name a ConfigMap's profile declares is planned (and pinned to its node, node-b3 as `plan`
/// puts it: the least loaded of three-zone's nodes) only when the config is given.
#[test]
fn patch_plans_with_the_scheduler_config_too() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("config.yaml");
    std::fs::write(
        &config,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: batch-scheduler-config, namespace: kube-system}\ndata:\n  scheduler-config.yaml: |\n    apiVersion: kubescheduler.config.k8s.io/v1\n    kind: KubeSchedulerConfiguration\n    profiles:\n    - schedulerName: batch-scheduler\n",
    )
    .unwrap();
    let pod = dir.path().join("pod.yaml");
    std::fs::write(
        &pod,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: eval, namespace: default}\nspec:\n  schedulerName: batch-scheduler\n  containers: [{name: c, image: eval, resources: {requests: {cpu: \"1\"}}}]\n",
    )
    .unwrap();
    let (pod, config) = (pod.to_str().unwrap(), config.to_str().unwrap());
    let state = "testdata/clusters/three-zone.yaml";
    let without = run("patch", &["-f", pod, "--state", state], None);
    assert_eq!(
        (without.code, without.stderr.as_str()),
        (
            0,
            "note: not patched: pod default/eval gets no node in the plan, so there is no node to pin it to: not planned: schedulerName batch-scheduler maps to no modelled scheduler\nno changes: the files already carry the planned affinity\n"
        )
    );
    let with = run(
        "patch",
        &["-f", pod, "--state", state, "--scheduler-config", config],
        None,
    );
    assert_eq!(
        (with.code, with.stderr.as_str()),
        (1, "pass --write to rewrite the files\n")
    );
    assert!(
        with.stdout
            .ends_with("+            values:\n+            - node-b3\n"),
        "{}",
        with.stdout
    );
    let plan = run(
        "plan",
        &["-f", pod, "--state", state, "--scheduler-config", config],
        None,
    );
    assert!(
        plan.stdout
            .contains(" default/eval  Pod/eval  node-b3  greedy"),
        "{}",
        plan.stdout
    );
}

/// Two gangs that each fit alone, and a plain pod, on two 4-CPU nodes: the first gang takes 6
/// CPUs, so only one pod of the second fits; all or nothing, none of it is placed (exit 1),
/// and the plain pod gets what the first gang left. No node is promised more than it has.
///
/// etl-a's 3 pods of 2 CPUs alternate by least allocation, ties by name: small-1, small-2,
/// small-1, leaving 0 and 2 CPUs free. etl-b-0 fits small-2's 2 (fit 1); etl-b-1 fits neither
/// node (2 Insufficient cpu); etl-b-2 is not tried, since 1 placed + 1 left < minMember 3.
/// Nothing of etl-b is kept, and the plain pod's 1 CPU goes to small-2, the only node with
/// room: 4 CPUs promised on small-1, 2 + 1 = 3 on small-2.
#[test]
fn gangs_and_batch_pods_share_one_assumed_state() {
    let (code, plan) = run_json(
        "plan",
        &["-f", "testdata/gangs/two-gangs.yaml", "--state", TWO_NODES],
    );
    assert_eq!(code, 1);
    let groups: Vec<(&str, &str, u64, u64)> = plan["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["name"].as_str().unwrap(),
                g["status"].as_str().unwrap(),
                g["scheduled"].as_u64().unwrap(),
                g["fit"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        groups,
        [
            ("etl-a", "Scheduled", 3, 3),
            ("etl-b", "Unschedulable", 0, 1)
        ]
    );
    assert_eq!(
        plan["groups"][1]["blocked"],
        json!([
            {"reason": "0/2 nodes are available: 2 Insufficient cpu.", "pods": 1},
            {"reason": "not tried: the gang can no longer reach minMember 3", "pods": 1}
        ])
    );
    assert_eq!(
        plan["groups"][1]["placements"],
        json!({"etl-b-0": null, "etl-b-1": null, "etl-b-2": null})
    );
    assert_eq!(plan["batch"]["pods"][0]["node"], "small-2");
    assert_eq!(
        plan["groups"][0]["pods"][0]["source"],
        json!({"template": "Deployment/etl-a"})
    );
    // CPUs promised per node: 2 per gang pod, 1 for the plain pod; each node has 4.
    let mut cpus: std::collections::BTreeMap<String, u64> = Default::default();
    for g in plan["groups"].as_array().unwrap() {
        for node in g["placements"].as_object().unwrap().values() {
            if let Some(node) = node.as_str() {
                *cpus.entry(node.to_string()).or_default() += 2;
            }
        }
    }
    *cpus.entry("small-2".to_string()).or_default() += 1;
    assert_eq!(
        cpus,
        [("small-1".to_string(), 4), ("small-2".to_string(), 3)].into()
    );
    let concise = plan_table(&["-f", "testdata/gangs/two-gangs.yaml", "--state", TWO_NODES]);
    assert!(
        concise.contains(
            "PodGroup default/etl-b (volcano, minMember 3): 0/3 pods placed; pending: \
             0/2 nodes are available: 2 Insufficient cpu. (1 pod); \
             not tried: the gang can no longer reach minMember 3 (1 pod)\n\n"
        ),
        "{concise}"
    );
    let table = plan_table(&[
        "-f",
        "testdata/gangs/two-gangs.yaml",
        "--state",
        TWO_NODES,
        "--show-all",
    ]);
    assert!(
        table.contains(
            "Unschedulable: 1 of minMember 3 fit; none of its pending pods is placed\n\
             Blocked (first reason per pod):\n  \
             1 pod: 0/2 nodes are available: 2 Insufficient cpu.\n  \
             1 pod: not tried: the gang can no longer reach minMember 3\n"
        ),
        "{table}"
    );
}

fn plan_table(args: &[&str]) -> String {
    let run = plan(args);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    run.stdout
}

/// Without manifests, the gangs of the recorded state that still have pods to place: the
/// running member counts towards minMember. sweep-0 (1 CPU) runs on small-1; sweep-1 (2 CPUs)
/// takes the emptier small-2 (4 CPUs free against 3); sweep-2 (2 CPUs) then small-1 (3 free
/// against 2).
#[test]
fn recorded_state_gang_plans_with_its_running_member() {
    let (code, plan) = run_json(
        "plan",
        &[
            "--state",
            TWO_NODES,
            "--state",
            "testdata/clusters/two-nodes-sweep.yaml",
        ],
    );
    assert_eq!(code, 0);
    let g = &plan["groups"][0];
    assert_eq!(
        (
            g["gangKind"].as_str(),
            g["running"].as_u64(),
            g["status"].as_str()
        ),
        (Some("coscheduling"), Some(1), Some("Scheduled"))
    );
    assert_eq!(
        g["placements"],
        json!({"sweep-0": "small-1", "sweep-1": "small-2", "sweep-2": "small-1"})
    );
}

const COSCHEDULED: &str = "\
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: PodGroup
metadata: {name: pair, namespace: default}
spec: {minMember: 2, minResources: {cpu: \"3\"}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: pair, namespace: default}
spec:
  replicas: 2
  template:
    metadata:
      labels: {scheduling.x-k8s.io/pod-group: pair}
    spec:
      SCHEDULER
      containers:
        - {name: c, image: c, resources: {requests: {cpu: \"3\"}}}
";

/// schedulerName routing: each project's default name, a remap with --scheduler-name, a
/// scheduler that ignores the gang kind (warned, pods placed one by one), and a name nothing
/// models (reported, not planned).
#[test]
fn scheduler_names_route_gangs_to_the_system_that_honours_them() {
    struct Case {
        scheduler: &'static str,
        flags: &'static [&'static str],
        status: &'static str,
        system: Option<&'static str>,
        placed: bool,
        warnings: &'static [&'static str],
    }
    let cases = [
        Case {
            scheduler: "schedulerName: scheduler-plugins-scheduler",
            flags: &[],
            status: "Scheduled",
            system: Some("coscheduling"),
            placed: true,
            warnings: &[],
        },
        Case {
            scheduler: "schedulerName: default-scheduler",
            flags: &[],
            status: "Scheduled",
            system: Some("kube-scheduler"),
            placed: true,
            warnings: &[
                "its pods go to schedulerName default-scheduler (kube-scheduler), which \
                 does not honour coscheduling gangs: it places them one by one",
            ],
        },
        Case {
            scheduler: "schedulerName: default-scheduler",
            flags: &["--scheduler-name", "default-scheduler=coscheduling"],
            status: "Scheduled",
            system: Some("coscheduling"),
            placed: true,
            warnings: &[],
        },
        Case {
            scheduler: "schedulerName: my-scheduler",
            flags: &[],
            status: "NotModelled",
            system: None,
            placed: false,
            warnings: &[],
        },
    ];
    for case in cases {
        let name = format!("{} {:?}", case.scheduler, case.flags);
        let manifests = COSCHEDULED.replace("SCHEDULER", case.scheduler);
        let args = [&["--state", TWO_NODES], case.flags].concat();
        let (code, plan) = plan_stdin_json(&manifests, &args);
        assert_eq!(code, 0, "{name}");
        let g = &plan["groups"][0];
        assert_eq!(g["status"], case.status, "{name}");
        assert_eq!(g["system"].as_str(), case.system, "{name}");
        let warnings: Vec<Value> = case.warnings.iter().map(|w| json!(w)).collect();
        assert_eq!(
            g["warnings"].as_array().cloned().unwrap_or_default(),
            warnings,
            "{name}"
        );
        let nodes: Vec<Value> = g["placements"]
            .as_object()
            .unwrap()
            .values()
            .cloned()
            .collect();
        let want = if case.placed {
            vec![json!("small-1"), json!("small-2")]
        } else {
            vec![Value::Null, Value::Null]
        };
        assert_eq!(nodes, want, "{name}");
    }
}

/// The PodGroup's minResources (plus minMember pod slots) must fit the free capacity before
/// coscheduling tries any pod.
#[test]
fn coscheduling_prefilter_turns_away_a_group_whose_min_resources_exceed_the_cluster() {
    let manifests = COSCHEDULED
        .replace("SCHEDULER", "schedulerName: scheduler-plugins-scheduler")
        .replace("minResources: {cpu: \"3\"}", "minResources: {cpu: \"9\"}");
    let (code, plan) = plan_stdin_json(&manifests, &["--state", TWO_NODES]);
    assert_eq!(code, 1);
    let g = &plan["groups"][0];
    assert_eq!(g["status"], "Unschedulable");
    // minResources 9 CPUs against the two empty 4-CPU nodes' 8: a gap of 9 - 8 = 1, for both
    // of the Deployment's 2 pods.
    assert_eq!(
        g["blocked"],
        json!([{
            "reason": "resource gap: the cluster lacks cpu 1 for the group's minResources",
            "pods": 2
        }])
    );
}

/// Volcano's PodGroup CRD allows `minMember: 0`: the group is ready from the start and Volcano
/// commits each pod as it is allocated, so the pods that fit are placed and the rest wait.
/// Three 3-CPU pods on two 4-CPU nodes: one per node, the third pending, which is a finding
/// (exit 1) as any pod left pending is.
#[test]
fn a_volcano_group_of_zero_is_no_gang() {
    let group = "\
apiVersion: scheduling.volcano.sh/v1beta1
kind: PodGroup
metadata: {name: loose, namespace: default}
spec: {minMember: 0}
";
    let pod = |i: usize| {
        format!(
            "---\napiVersion: v1\nkind: Pod\nmetadata:\n  name: loose-{i}\n  namespace: default\n  annotations: {{scheduling.k8s.io/group-name: loose}}\nspec:\n  schedulerName: volcano\n  containers: [{{name: c, image: c, resources: {{requests: {{cpu: \"3\"}}}}}}]\n"
        )
    };
    let manifests = format!("{group}{}{}{}", pod(0), pod(1), pod(2));
    let (code, plan) = plan_stdin_json(&manifests, &["--state", TWO_NODES]);
    assert_eq!(code, 1);
    let g = &plan["groups"][0];
    assert_eq!(
        (
            &g["status"],
            &g["minMember"],
            &g["scheduled"],
            &g["summary"]
        ),
        (
            &json!("Scheduled"),
            &json!(0),
            &json!(2),
            &json!("2/3 pods placed; nodes: small-1 x1, small-2 x1")
        )
    );
    assert_eq!(
        g["placements"],
        json!({"loose-0": "small-1", "loose-1": "small-2", "loose-2": null})
    );
}

/// Gangs the scheduler cannot try yet: no member pods (waiting, nothing pending: exit 0), too
/// few (waiting, those stay pending: exit 1), and pods joined to a group that exists nowhere.
#[test]
fn gangs_waiting_for_pods_or_for_their_group_are_reported_as_such() {
    let group = "\
apiVersion: scheduling.incubator.k8s.io/v1alpha1
kind: PodGroup
metadata: {name: trio, namespace: default}
spec: {minMember: 3}
";
    let member = "\
---
apiVersion: v1
kind: Pod
metadata:
  name: NAME
  namespace: default
  annotations: {scheduling.k8s.io/group-name: GROUP}
spec:
  schedulerName: kube-batch
  containers: [{name: c, image: c, resources: {requests: {cpu: \"1\"}}}]
";
    let pod = |name: &str, group: &str| member.replace("NAME", name).replace("GROUP", group);
    let cases = [
        (
            group.to_string(),
            0,
            "WaitingForPods",
            "0/0 pods placed: waiting for pods: 0 of minMember 3 exist",
        ),
        (
            format!("{group}{}", pod("trio-0", "trio")),
            1,
            "WaitingForPods",
            "0/1 pods placed: waiting for pods: 1 of minMember 3 exist",
        ),
        (
            pod("solo-0", "nowhere"),
            1,
            "GroupNotFound",
            "0/1 pods placed: joins kube-batch PodGroup default/nowhere, which is in neither \
             the inputs nor the state",
        ),
    ];
    for (manifests, want_code, status, summary) in cases {
        let (code, plan) = plan_stdin_json(&manifests, &["--state", TWO_NODES]);
        assert_eq!(code, want_code, "{summary}");
        let g = &plan["groups"][0];
        assert_eq!(g["status"], status);
        assert_eq!(g["summary"], summary);
        assert!(plan["batch"].is_null());
    }
}
const CACHED_PIPELINE: &str = "testdata/flows/cached-pipeline.yaml";

/// The DataProcess of the cached pipeline: its node, the webhook's terms, its datasets.
fn train_step(plan: &Value) -> (Value, Value, Value) {
    let op = &plan["operations"][1];
    assert_eq!(op["name"], "train-resnet");
    (
        op["node"].clone(),
        op["webhookAffinity"].clone(),
        op["datasets"].clone(),
    )
}

fn cache_preference() -> Value {
    json!([{"plugin": "NodeAffinityWithCache", "nodeAffinity": {
    "preferredDuringSchedulingIgnoredDuringExecution": [
        {"weight": 100, "preference": term(&[("fluid.io/s-data-imagenet", "true")])}
    ]}}])
}

/// warm-imagenet (500m, 1Gi) scores 497 on node-b3 as load-imagenet does in
/// `three_step_flow_is_the_json_contract`. train-resnet (2 CPUs, 4Gi) on node-c1 (3920m, 14Gi,
/// a web frontend's 500m and 512Mi), the only node with the cache label, which the webhook
/// prefers at 100, the best: NodeAffinity 100 x 2; Fit (3920-2500)*100/3920 = 36,
/// (14336-4608)*100/14336 = 67, (36+67)/2 = 51; Balanced 0.638 and 0.321, 100*(1-0.158) = 84;
/// 300 + 200 + 51 + 84 = 635.
#[test]
fn assume_cached_lands_the_dataprocess_on_the_cache_node() {
    let run = plan(&[
        "-f",
        CACHED_PIPELINE,
        "--state",
        THREE_ZONE,
        "--assume-cached",
        "data/imagenet=node-c1",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let expected = "\
Flow 1 (2 operations)
 STEP  OPERATION                      AFTER                        POLICY  INHERITED  NODE     ZONE        SCORE  WEBHOOK                                                                    CACHE
 1     DataLoad/data/warm-imagenet    -                            -       -          node-b3  us-east-1b  497    -                                                                          -
 2     DataProcess/data/train-resnet  DataLoad/data/warm-imagenet  -       -          node-c1  us-east-1c  635    NodeAffinityWithCache: preferred(100): fluid.io/s-data-imagenet In [true]  imagenet: hit (cache on node-c1)
";
    assert_eq!(run.stdout, expected);

    let cases: &[(&[&str], Value, Value)] = &[
        (
            &["--assume-cached", "data/imagenet=node-c1"],
            json!("node-c1"),
            json!([{"namespace": "data", "name": "imagenet", "cacheNodes": ["node-c1"], "locality": "hit"}]),
        ),
        (
            // The namespace comes from -n when the dataset names none.
            &["-n", "data", "--assume-cached", "imagenet=node-a3,node-c1"],
            json!("node-a3"),
            json!([{"namespace": "data", "name": "imagenet", "cacheNodes": ["node-a3", "node-c1"], "locality": "hit"}]),
        ),
        (
            // Without -n the dataset is looked for in `default`: the data one is cached nowhere.
            &["--assume-cached", "imagenet=node-c1"],
            json!("node-b3"),
            json!([{"namespace": "data", "name": "imagenet", "cacheNodes": [], "locality": "not-cached"}]),
        ),
    ];
    for (extra, node, datasets) in cases {
        let mut args = vec!["-f", CACHED_PIPELINE, "--state", THREE_ZONE];
        args.extend_from_slice(extra);
        let (code, plan) = plan_json(&args);
        assert_eq!(code, 0, "{extra:?}");
        assert_eq!(
            train_step(&plan),
            (node.clone(), cache_preference(), datasets.clone()),
            "{extra:?}"
        );
    }

    let run = plan(&[
        "-f",
        CACHED_PIPELINE,
        "--state",
        THREE_ZONE,
        "--assume-cached",
        "data/imagenet=node-z9",
    ]);
    assert_eq!(run.code, 2);
    assert_eq!(
        run.stderr,
        "error: assumed cache data/imagenet=node-z9: node \"node-z9\" is not in the cluster state (--assume-cached)\n"
    );
}

#[test]
fn cache_labels_of_a_recorded_state_place_and_require() {
    // The runtime's worker labelled node-a3 in the recorded state, as Fluid does.
    let dir = tempfile::tempdir().unwrap();
    let state = std::fs::read_to_string(THREE_ZONE).unwrap().replacen(
        "      kubernetes.io/hostname: node-a3\n",
        "      kubernetes.io/hostname: node-a3\n      fluid.io/s-data-imagenet: \"true\"\n",
        1,
    );
    let state_path = dir.path().join("state.yaml");
    std::fs::write(&state_path, state).unwrap();
    let state_path = state_path.display().to_string();
    let (code, planned) = plan_json(&["-f", CACHED_PIPELINE, "--state", &state_path]);
    assert_eq!(code, 0);
    assert_eq!(
        train_step(&planned),
        (
            json!("node-a3"),
            cache_preference(),
            json!([{"namespace": "data", "name": "imagenet", "cacheNodes": ["node-a3"], "locality": "hit"}])
        )
    );

    // The runtime's recorded cache affinity gives the zone (50) and region (20) tiers; with no
    // node labelled yet, the zone tier alone moves the step into us-east-1a.
    let runtime_state = format!(
        "{}---\n{}",
        std::fs::read_to_string(THREE_ZONE).unwrap(),
        "apiVersion: data.fluid.io/v1alpha1
kind: AlluxioRuntime
metadata: {name: imagenet, namespace: data}
status:
  cacheAffinity:
    requiredDuringSchedulingIgnoredDuringExecution:
      nodeSelectorTerms:
      - matchExpressions:
        - {key: topology.kubernetes.io/zone, operator: In, values: [us-east-1a]}
        - {key: topology.kubernetes.io/region, operator: In, values: [us-east-1]}
"
    );
    let runtime_path = dir.path().join("runtime-state.yaml");
    std::fs::write(&runtime_path, runtime_state).unwrap();
    let runtime_path = runtime_path.display().to_string();
    let (code, planned) = plan_json(&["-f", CACHED_PIPELINE, "--state", &runtime_path]);
    assert_eq!(code, 0);
    let tier = |weight: i32, key: &str, value: &str| json!({"weight": weight, "preference": term(&[(key, value)])});
    assert_eq!(
        train_step(&planned),
        (
            json!("node-a1"),
            json!([{"plugin": "NodeAffinityWithCache", "nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [
                tier(100, "fluid.io/s-data-imagenet", "true"),
                tier(50, "topology.kubernetes.io/zone", "us-east-1a"),
                tier(20, "topology.kubernetes.io/region", "us-east-1"),
            ]}}]),
            json!([{"namespace": "data", "name": "imagenet", "cacheNodes": [], "locality": "not-cached"}])
        )
    );

    // `fluid.io/dataset.imagenet.sched: required` turns the preference into a requirement:
    // with the cache only on the cordoned node-c2, the step cannot run.
    let required_flow = dir.path().join("required.yaml");
    std::fs::write(
        &required_flow,
        std::fs::read_to_string(CACHED_PIPELINE).unwrap().replace(
            "        fuse.serverful.fluid.io/inject: \"true\"\n",
            "        fuse.serverful.fluid.io/inject: \"true\"\n        fluid.io/dataset.imagenet.sched: required\n",
        ),
    )
    .unwrap();
    let required_flow = required_flow.display().to_string();
    let (code, planned) = plan_json(&[
        "-f",
        &required_flow,
        "--state",
        THREE_ZONE,
        "--assume-cached",
        "data/imagenet=node-c2",
    ]);
    assert_eq!(code, 1);
    let op = &planned["operations"][1];
    assert_eq!(op["status"], "Unschedulable");
    assert_eq!(
        op["webhookAffinity"][0]["nodeAffinity"],
        required(&[("fluid.io/s-data-imagenet", "true")])
    );
    assert_eq!(
        op["datasets"],
        json!([{"namespace": "data", "name": "imagenet", "cacheNodes": ["node-c2"], "locality": null}])
    );
}

const PRIORITY: &str = "testdata/clusters/priority.yaml";

/// 1 of 3 placed: critical, by preempting batch-a (the candidates are compared in explain's
/// `preemption_preview_names_the_node_the_victims_and_why_others_lost`); research may not
/// preempt (preemptionPolicy Never) and huge finds no victims once critical holds node-1.
#[test]
fn a_high_priority_pod_preempts_and_the_others_say_why_not() {
    let run = plan(&["-f", "testdata/pods/preemption.yaml", "--state", PRIORITY]);
    assert_eq!(run.code, 1, "two pods stay pending");
    assert_eq!(
        run.stdout,
        "\
Batch (3 pods, solver greedy): 1/3 pods placed
 POD            FROM          NODE       METHOD  NOTE
 prod/critical  Pod/critical  node-1     greedy  would preempt 1 pod on node-1
 prod/research  Pod/research  <pending>  greedy  pending: 0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never.
 prod/huge      Pod/huge      <pending>  greedy  pending: 0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Insufficient cpu.
prod/critical would preempt on node-1: prod/batch-a
"
    );
    let (code, json) = plan_json(&["-f", "testdata/pods/preemption.yaml", "--state", PRIORITY]);
    assert_eq!(code, 1);
    let pods = &json["batch"]["pods"];
    assert_eq!(pods[0]["node"], "node-1");
    assert_eq!(
        pods[0]["preempts"],
        json!([{"namespace": "prod", "name": "batch-a", "priority": 100, "violatesBudget": false}])
    );
    assert_eq!(pods[1]["node"], Value::Null);
    assert_eq!(pods[1]["preempts"], json!([]));
}

/// The StatefulSet's second pod leaves kafka-0's node and zone: kube-scheduler's system
/// default constraints spread a StatefulSet's pods by its selector (hostname maxSkew 3, zone
/// maxSkew 5, ScheduleAnyway); the Job's and the CronJob's pods have no such controller.
/// The 16 pods: a node-exporter for each of the 9 nodes but node-b2, whose taint it does not
/// tolerate (cordoned node-c2 is tolerated, as the DaemonSet controller adds), 8; kafka,
/// reindex and nightly-report, 2 each; the two pods naming their node. 15 placed: all but
/// pinned-missing, whose node does not exist.
#[test]
fn every_workload_kind_is_planned_as_what_its_controller_creates() {
    let run = plan(&["-f", "testdata/pods/workloads.yaml", "--state", THREE_ZONE]);
    assert_eq!(
        run.code, 1,
        "the pod bound to a missing node is not admitted"
    );
    assert_eq!(
        run.stdout,
        "\
Batch (16 pods, solver greedy): 15/16 pods placed
 POD                                FROM                     NODE       METHOD   NOTE
 kube-system/node-exporter-node-a1  DaemonSet/node-exporter  node-a1    greedy   -
 kube-system/node-exporter-node-a2  DaemonSet/node-exporter  node-a2    greedy   -
 kube-system/node-exporter-node-a3  DaemonSet/node-exporter  node-a3    greedy   -
 kube-system/node-exporter-node-b1  DaemonSet/node-exporter  node-b1    greedy   -
 kube-system/node-exporter-node-b3  DaemonSet/node-exporter  node-b3    greedy   -
 kube-system/node-exporter-node-c1  DaemonSet/node-exporter  node-c1    greedy   -
 kube-system/node-exporter-node-c2  DaemonSet/node-exporter  node-c2    greedy   -
 kube-system/node-exporter-node-c3  DaemonSet/node-exporter  node-c3    greedy   -
 data/kafka-0                       StatefulSet/kafka        node-b3    greedy   -
 data/kafka-1                       StatefulSet/kafka        node-c3    greedy   -
 data/reindex-0                     Job/reindex              node-b3    greedy   -
 data/reindex-1                     Job/reindex              node-b3    greedy   -
 data/nightly-report-0              CronJob/nightly-report   node-b3    greedy   -
 data/nightly-report-1              CronJob/nightly-report   node-b3    greedy   -
 db/pinned-db-probe                 Pod/pinned-db-probe      node-b2    kubelet  spec.nodeName: admitted by the kubelet, not scheduled
 db/pinned-missing                  Pod/pinned-missing       <pending>  kubelet  spec.nodeName node-z9: not admitted: node \"node-z9\" does not exist
"
    );
    let (_, json) = plan_json(&["-f", "testdata/pods/workloads.yaml", "--state", THREE_ZONE]);
    let admitted = &json["batch"]["pods"][14];
    assert_eq!(admitted["name"], "pinned-db-probe");
    assert_eq!(admitted["method"], "kubelet");
    assert_eq!(
        admitted["node"], "node-b2",
        "the kubelet ignores NoSchedule taints"
    );
}

/// node-c1's 635 is derived at `assume_cached_lands_the_dataprocess_on_the_cache_node`; node-b3,
/// the runner-up, scores what preprocess-imagenet (the same 2 CPUs and 4Gi) does on it in
/// `three_step_flow_is_the_json_contract`, 492 (Fit 95, Balanced 97, no cache label): 635 -
/// 492 = 143 = 200 (NodeAffinity) + 51 - 95 (Fit) + 84 - 97 (Balanced).
#[test]
fn explain_names_the_webhook_and_the_cache() {
    let run = run(
        "explain-placement",
        &[
            "-f",
            CACHED_PIPELINE,
            "--state",
            THREE_ZONE,
            "--assume-cached",
            "data/imagenet=node-c1",
            "DataProcess/train-resnet",
        ],
        None,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    let expected = "\
Within DataProcess/data/train-resnet: step 2 of flow 1
Notes:
  Fluid's webhook (NodeAffinityWithCache) adds preferred(100): fluid.io/s-data-imagenet In [true]
  dataset data/imagenet is cached on node-c1
  DataLoad/data/warm-imagenet is Complete before this step starts: its pod no longer holds node-b3

Pod data/train-resnet-processor would land on node node-c1 (score 635).
7 of 9 nodes are feasible.
Why: it leads node-b3 by 143: NodeAffinity +200, NodeResourcesFit -44, NodeResourcesBalancedAllocation -13.
";
    assert!(run.stdout.starts_with(expected), "{}", run.stdout);
}

#[test]
fn a_greedy_fall_back_pod_of_the_flow_solver_preempts_too() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("spread.yaml");
    std::fs::write(
        &file,
        "apiVersion: v1\nkind: Pod\nmetadata: {name: critical-spread, namespace: prod, labels: {app: critical}}\nspec:\n  priorityClassName: critical\n  affinity:\n    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {matchLabels: {app: critical}}\n        topologyKey: kubernetes.io/hostname\n  containers: [{name: main, resources: {requests: {cpu: \"2\"}}}]\n",
    )
    .unwrap();
    let file = file.to_str().unwrap();
    let (code, json) = plan_json(&["-f", file, "--state", PRIORITY, "--solver", "flow"]);
    assert_eq!(code, 0);
    let pod = &json["batch"]["pods"][0];
    assert_eq!(pod["method"], "greedy");
    assert_eq!(pod["node"], "node-1");
    assert_eq!(
        pod["note"],
        "greedy fall-back: inter-pod affinity depends on where other pods of the batch land; would preempt 1 pod on node-1"
    );
    assert_eq!(
        pod["preempts"],
        json!([{"namespace": "prod", "name": "batch-a", "priority": 100, "violatesBudget": false}])
    );
}

/// `-o jsonpath=` and `-o custom-columns=` as kubectl users write them, over the JSON contract
/// of plan and explain-placement (and version); a bad template is a usage error (exit 2).
#[test]
fn jsonpath_and_custom_columns_outputs() {
    let flow = [
        "-f",
        "testdata/flows/three-step.yaml",
        "--state",
        THREE_ZONE,
    ];
    let pod = ["-f", "testdata/pods/affinity.yaml", "--state", THREE_ZONE];
    let cases: &[(&[&str], i32, &str)] = &[
        (
            &[
                &["plan"],
                &flow[..],
                &[
                    "-o",
                    "jsonpath={range .operations[*]}{.kind}/{.name}{\"\\t\"}{.node}{\"\\n\"}{end}",
                ],
            ]
            .concat(),
            0,
            "DataLoad/load-imagenet\tnode-b3\nDataProcess/preprocess-imagenet\tnode-b3\nDataMigrate/export-imagenet\tnode-b3\n",
        ),
        (
            &[
                &["plan"],
                &flow[..],
                &[
                    "-o",
                    "jsonpath={.operations[?(@.kind==\"DataProcess\")].step}",
                ],
            ]
            .concat(),
            0,
            "2",
        ),
        (
            &[
                &["plan"],
                &flow[..],
                &[
                    "-o",
                    "custom-columns=KIND:.kind,NAME:.metadata.name,NODE:node",
                ],
            ]
            .concat(),
            0,
            "KIND          NAME     NODE\nDataLoad      <none>   node-b3\nDataProcess   <none>   node-b3\nDataMigrate   <none>   node-b3\n",
        ),
        (
            &[
                &["explain-placement"],
                &pod[..],
                &["-o", "jsonpath={.selected} {.tied}"],
            ]
            .concat(),
            0,
            "node-b3 []",
        ),
        (
            &[
                &["explain-placement"],
                &pod[..],
                &[
                    "-o",
                    "custom-columns=NODE:.name,SCORE:.score",
                    "--no-headers",
                ],
            ]
            .concat(),
            0,
            // The scores derived at explain's `json_contract_on_the_three_zone_cluster`.
            "node-a1   <none>\nnode-a2   668\nnode-a3   663\nnode-b1   <none>\nnode-b2   <none>\nnode-b3   697\nnode-c1   <none>\nnode-c2   <none>\nnode-c3   489\n",
        ),
        (
            &["version", "-o", "jsonpath={.kubernetesSemantics}"],
            0,
            "v1.34",
        ),
        (
            &[
                &["plan"],
                &flow[..],
                &["-o", "jsonpath={.operations[?(@.step<>1)]}"],
            ]
            .concat(),
            2,
            "",
        ),
        (
            &[&["plan"], &flow[..], &["-o", "custom-columns=NAME"]].concat(),
            2,
            "",
        ),
    ];
    for (args, code, stdout) in cases {
        let out = cli::run(args);
        assert_eq!(out.code, *code, "{args:?}: {}", out.stderr);
        assert_eq!(out.stdout, *stdout, "{args:?}");
    }
}

/// A path that fails on the report (here an index past the three operations, and into an
/// empty list) fails the command as it fails kubectl, with client-go's error (exit 2, nothing
/// printed): jsonpath wrapped as kubectl's JSONPath printer wraps it, custom-columns bare.
#[test]
fn jsonpath_and_custom_columns_fail_on_an_index_out_of_range() {
    let flow = [
        "plan",
        "-f",
        "testdata/flows/three-step.yaml",
        "--state",
        THREE_ZONE,
    ];
    let cases: &[(&str, &str)] = &[
        (
            "jsonpath={.operations[5]}",
            "error: error executing jsonpath \"{.operations[5]}\": Error executing template: array index out of bounds: index 5, length 3.\n",
        ),
        (
            "jsonpath={range .operations[*]}{.name}{\"\\n\"}{end}{.operations[-4]}",
            "error: error executing jsonpath \"{range .operations[*]}{.name}{\\\"\\\\n\\\"}{end}{.operations[-4]}\": Error executing template: array index out of bounds: index -1, length 3.\n",
        ),
        (
            "custom-columns=NAME:.name,WARNING:.warnings[0]",
            "error: array index out of bounds: index 0, length 0\n",
        ),
    ];
    for (output, stderr) in cases {
        let out = cli::run(&[&flow[..], &["-o", output]].concat());
        assert_eq!(
            (out.code, out.stdout.as_str(), out.stderr.as_str()),
            (2, "", *stderr),
            "{output}"
        );
    }
}

/// The capacity example: worker-1 has 2 CPU free, worker-2 is tainted, ten 4-CPU pods. A
/// 16-CPU node holds 16 / 4 = 4 of them.
const CAPACITY: [&str; 4] = [
    "-f",
    "testdata/capacity/pods.yaml",
    "--state",
    "testdata/capacity/before.yaml",
];

fn capacity_plan(args: &[&str]) -> Run {
    plan(&[&CAPACITY[..], args].concat())
}

#[test]
fn capacity_what_ifs_show_what_moved() {
    let was =
        "was: 0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s)";
    let run = capacity_plan(&[
        "--what-if",
        "untaint=worker-2:dedicated",
        "--what-if",
        "add=1:like=worker-1",
        "--no-headers",
    ]);
    // Untainted worker-2 and the new empty worker-1 take 4 pods each: 8 placed, 10 - 8 = 2
    // pending. They alternate as each pod takes the emptier node, worker-1-whatif-1 first by
    // name on a tie.
    assert_eq!(run.code, 1, "two pods still pend: {}", run.stderr);
    let effect = run.stdout.split("\n\n").nth(1).unwrap();
    let rows: String = (0..8)
        .map(|i| {
            let node = if i % 2 == 0 {
                "worker-1-whatif-1"
            } else {
                "worker-2         "
            };
            format!(" Pod/default/crunch-{i}  Pending  {node}  {was}\n")
        })
        .collect();
    assert_eq!(
        effect,
        format!("What-if effect (placed: Pods 0 -> 8)\n{rows}")
    );

    // A selector cordons both nodes: nothing changes, as nothing was placed; JSON says so.
    let (code, json) = plan_json(
        &[
            &CAPACITY[..],
            &[
                "--what-if",
                "cordon=selector(topology.kubernetes.io/zone in (zone-a,zone-b))",
            ],
        ]
        .concat(),
    );
    assert_eq!(code, 1);
    assert_eq!(
        json["whatIfEffect"],
        json!({"placed": [{"part": "Pods", "before": 0, "after": 0}], "moved": []})
    );
    // Without what-if edits the effect is null.
    let (_, json) = plan_json(&CAPACITY);
    assert_eq!(json["whatIfEffect"], Value::Null);
}

#[test]
fn what_if_edits_naming_nothing_exit_2() {
    let cases = [
        (
            "cordon=selector(zone=x)",
            "error: what-if edit cordon=selector(zone=x): selector \"zone=x\" matches no node\n",
        ),
        (
            "remove=worker-9",
            "error: what-if edit remove=worker-9: node \"worker-9\" is not in the cluster state\n",
        ),
        (
            "untaint=worker-1:dedicated",
            "error: what-if edit untaint=worker-1:dedicated: no node it names has a taint dedicated\n",
        ),
        (
            "add=4294967296:like=worker-1",
            "error: invalid value 'add=4294967296:like=worker-1' for '--what-if <EDIT>': what-if edit \"add=4294967296:like=worker-1\": the node count must be a whole number from 1 to 10000\n\nFor more information, try '--help'.\n",
        ),
        (
            "taint=worker-1:k=v:Never",
            "error: invalid value 'taint=worker-1:k=v:Never' for '--what-if <EDIT>': what-if edit \"taint=worker-1:k=v:Never\": taint effect \"Never\" is not NoSchedule, PreferNoSchedule or NoExecute\n\nFor more information, try '--help'.\n",
        ),
    ];
    for (edit, want) in cases {
        let run = capacity_plan(&["--what-if", edit]);
        assert_eq!(
            (run.code, run.stderr.as_str(), run.stdout.as_str()),
            (2, want, ""),
            "{edit}"
        );
    }
}

#[test]
fn how_many_nodes_searches_the_smallest_count() {
    // 10 pods of 4 CPU, nodes of 16: exactly 3 new nodes (4 + 4 + 2), 2 are not enough. One
    // node places 4, so the estimate is 1 + ceil(6 / 4) = 3; 2 is tried to prove it.
    let run = capacity_plan(&["--how-many-nodes", "worker-1"]);
    assert_eq!(
        (run.code, run.stdout.as_str(), run.stderr.as_str()),
        (
            0,
            "3 nodes like worker-1 make every planned operation, gang and pod fit (2 do not).
 NODES  FITS  UNPLACED
 0      no    10
 1      no    6
 3      yes   0
 2      no    2
",
            ""
        )
    );
    // Untainting worker-2 first gives 4 places: 2 new nodes then do (10 - 4 = 6 unplaced with
    // none, 6 - 4 = 2 with one, none with two).
    let (code, json) = plan_json(
        &[
            &CAPACITY[..],
            &[
                "--how-many-nodes",
                "worker-1",
                "--what-if",
                "untaint=worker-2:dedicated:NoSchedule",
            ],
        ]
        .concat(),
    );
    assert_eq!(code, 0);
    assert_eq!(
        json,
        json!({"template": "worker-1", "max": 1000, "nodes": 2, "trials": [
            {"nodes": 0, "fits": false, "unplaced": 6},
            {"nodes": 1, "fits": false, "unplaced": 2},
            {"nodes": 2, "fits": true, "unplaced": 0},
        ], "blockingReason": null})
    );
    // Already fitting (3 x 4 = 12 places for 10 pods): 0, after one trial.
    let (code, json) = plan_json(&[
        "-f",
        "testdata/capacity/pods.yaml",
        "--state",
        "testdata/capacity/before.yaml",
        "--how-many-nodes",
        "worker-1",
        "--what-if",
        "add=3:like=worker-1",
    ]);
    assert_eq!(
        (
            code,
            &json["nodes"],
            json["trials"].as_array().unwrap().len()
        ),
        (0, &json!(0), 1)
    );
}

#[test]
fn how_many_nodes_names_what_no_count_fixes() {
    let run = plan(&[
        "-f",
        "testdata/capacity/ssd.yaml",
        "--state",
        "testdata/capacity/before.yaml",
        "--how-many-nodes",
        "worker-1",
        "--max-nodes",
        "5",
        "--no-headers",
    ]);
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (
            1,
            "Does not fit with any number of nodes like worker-1 up to 5: Pod/default/needs-ssd: pending: 0/7 nodes are available: 1 node(s) had untolerated taint(s), 6 node(s) didn't match Pod's node affinity/selector. no new claims to deallocate, preemption: 0/7 nodes are available: 7 Preemption is not helpful for scheduling.
 0  no  1
 1  no  1
 2  no  1
 4  no  1
 5  no  1
"
        )
    );
    let cases: [(&[&str], &str); 3] = [
        (
            &["--how-many-nodes", "worker-9"],
            "error: node count search: node \"worker-9\" to copy is not in the cluster state\n",
        ),
        (
            &["--how-many-nodes", "worker-1", "--max-nodes", "10001"],
            "error: invalid value '10001' for '--max-nodes <N>': 10001 is not in 1..=10000\n\nFor more information, try '--help'.\n",
        ),
        (
            &["--max-nodes", "3"],
            "error: the following required arguments were not provided:\n  --how-many-nodes <NODE>\n",
        ),
    ];
    for (args, want) in cases {
        let run = capacity_plan(args);
        assert_eq!(run.code, 2, "{args:?}");
        assert!(run.stderr.starts_with(want), "{args:?}: {}", run.stderr);
    }
}

#[test]
fn against_shows_only_what_moved_between_two_states() {
    // after.yaml is before.yaml with worker-2 untainted: its 16 CPUs take 4 of the 4-CPU pods,
    // crunch-0 to crunch-3 in order; worker-1's 2 free CPUs still take none.
    let run = capacity_plan(&["--against", "testdata/capacity/after.yaml"]);
    let was =
        "was: 0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s)";
    let rows: String = (0..4)
        .map(|i| format!(" Pod/default/crunch-{i}  Pending  worker-2  {was}\n"))
        .collect();
    assert_eq!(
        (run.code, run.stdout),
        (
            1,
            format!(
                "Plan against testdata/capacity/after.yaml (placed: Pods 0 -> 4)\n SUBJECT               BEFORE   AFTER     REASON\n{rows}"
            )
        )
    );
    // The other way round the pods lose worker-2, and the reason is the new one.
    let (code, json) = plan_json(&[
        "-f",
        "testdata/capacity/pods.yaml",
        "--state",
        "testdata/capacity/after.yaml",
        "--against",
        "testdata/capacity/before.yaml",
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        json["placed"],
        json!([{"part": "Pods", "before": 4, "after": 0}])
    );
    assert_eq!(
        json["moved"][0],
        json!({
            "subject": "Pod/default/crunch-0",
            "before": {"node": "worker-2", "status": "Placed"},
            "after": {"node": null, "status": "Pending"},
            "reason": "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s)"
        })
    );
    assert_eq!(json["moved"].as_array().unwrap().len(), 4);
    // The same state on both sides: nothing moved, exit 0.
    let run = capacity_plan(&["--against", "testdata/capacity/before.yaml"]);
    assert_eq!(
        (run.code, run.stdout.as_str()),
        (
            0,
            "Plan against testdata/capacity/before.yaml (placed: Pods 0 -> 0)\nNothing moved.\n"
        )
    );
    let run = capacity_plan(&[
        "--against",
        "testdata/capacity/after.yaml",
        "--what-if",
        "cordon=worker-1",
    ]);
    assert_eq!(run.code, 2);
    assert!(
        run.stderr.starts_with(
            "error: the argument '--against <FILE>' cannot be used with '--what-if <EDIT>'"
        ),
        "{}",
        run.stderr
    );
}

/// The default plugins profile end to end: a runtime whose fuse runs only on nodes labelled
/// `example.com/fluid-fuse: on` makes RequireNodeWithFuse pin the DataProcess there, ahead of
/// the cache preference; the serverful DataLoad mounts no dataset and gets
/// PreferNodesWithoutCache. Each plugin is listed as its own source.
///
/// The scores (TaintToleration 3, NodeAffinity 2, NodeResourcesFit and BalancedAllocation 1):
/// warm-imagenet (500m, 1Gi) prefers nodes without `fluid.io/dataset-num`, every node but
/// node-a3, so NodeAffinity 100 on node-b3, where Fit 98 and Balanced 99 as for load-imagenet
/// in `three_step_flow_is_the_json_contract`: 300 + 200 + 98 + 99 = 697. train-resnet (2 CPUs,
/// 4Gi) may run only on node-b1, the fuse node; the cache label is on node-a3 alone, so its
/// preference scores 0. node-b1 (2.6 CPUs and 8774Mi running; 15890m, 61Gi): Fit
/// (15890-4600)*100/15890 = 71, (62464-12870)*100/62464 = 79, (71+79)/2 = 75; Balanced 0.29
/// and 0.21, 100*(1-0.042) = 95; 300 + 0 + 75 + 95 = 470.
#[test]
fn the_webhook_plugins_are_each_a_source() {
    let dir = tempfile::tempdir().unwrap();
    let state = std::fs::read_to_string(THREE_ZONE)
        .unwrap()
        .replacen(
            "      kubernetes.io/hostname: node-a3\n",
            "      kubernetes.io/hostname: node-a3\n      fluid.io/s-data-imagenet: \"true\"\n      fluid.io/dataset-num: \"1\"\n",
            1,
        )
        .replacen(
            "      kubernetes.io/hostname: node-b1\n",
            "      kubernetes.io/hostname: node-b1\n      example.com/fluid-fuse: \"on\"\n",
            1,
        )
        + "---
apiVersion: data.fluid.io/v1alpha1
kind: AlluxioRuntime
metadata: {name: imagenet, namespace: data}
spec:
  fuse:
    nodeSelector: {example.com/fluid-fuse: \"on\"}
";
    let state_path = dir.path().join("state.yaml");
    std::fs::write(&state_path, state).unwrap();
    let flow = std::fs::read_to_string(CACHED_PIPELINE).unwrap().replacen(
        "  target:\n    - path: /train\n",
        "  target:\n    - path: /train\n  podMetadata:\n    labels:\n      fuse.serverful.fluid.io/inject: \"true\"\n",
        1,
    );
    let flow_path = dir.path().join("flow.yaml");
    std::fs::write(&flow_path, flow).unwrap();
    let (state_path, flow_path) = (
        state_path.display().to_string(),
        flow_path.display().to_string(),
    );
    let run = plan(&["-f", &flow_path, "--state", &state_path]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let expected = "\
Flow 1 (2 operations)
 STEP  OPERATION                      AFTER                        POLICY  INHERITED  NODE     ZONE        SCORE  WEBHOOK                                                                                                                                   CACHE
 1     DataLoad/data/warm-imagenet    -                            -       -          node-b3  us-east-1b  697    PreferNodesWithoutCache: preferred(100): fluid.io/dataset-num DoesNotExist                                                                -
 2     DataProcess/data/train-resnet  DataLoad/data/warm-imagenet  -       -          node-b1  us-east-1b  470    RequireNodeWithFuse: required: example.com/fluid-fuse In [on]; NodeAffinityWithCache: preferred(100): fluid.io/s-data-imagenet In [true]  imagenet: same-region (cache on node-a3)
";
    assert_eq!(run.stdout, expected);

    let (code, planned) = plan_json(&["-f", &flow_path, "--state", &state_path]);
    assert_eq!(code, 0);
    assert_eq!(
        planned["operations"][0]["webhookAffinity"],
        json!([{"plugin": "PreferNodesWithoutCache", "nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100, "preference": {
                "matchExpressions": [{"key": "fluid.io/dataset-num", "operator": "DoesNotExist"}]}}]}}])
    );
    let mut cache_then_fuse = json!([{"plugin": "RequireNodeWithFuse", "nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {
            "nodeSelectorTerms": [term(&[("example.com/fluid-fuse", "on")])]}}}]);
    cache_then_fuse
        .as_array_mut()
        .unwrap()
        .extend(cache_preference().as_array().unwrap().iter().cloned());
    assert_eq!(
        train_step(&planned),
        (
            json!("node-b1"),
            cache_then_fuse,
            json!([{"namespace": "data", "name": "imagenet", "cacheNodes": ["node-a3"], "locality": "same-region"}])
        )
    );
}

/// Issue 16, pods outside a flow: Fluid's webhook admits the injected Deployment replicas that
/// mount dataset data/imagenet through its claim (onto the cache node), leaves the unlabelled
/// reader alone while still saying where the cache is, and steers an injected pod that mounts
/// no dataset away from cache nodes.
#[test]
fn pods_outside_a_flow_go_through_the_webhook() {
    let args = [
        "-f",
        "testdata/pods/dataset-readers.yaml",
        "--state",
        THREE_ZONE,
        "--assume-cached",
        "data/imagenet=node-c1",
    ];
    let run = plan(&args);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout,
        "\
Batch (4 pods, solver greedy): 4/4 pods placed
 POD            FROM               NODE     METHOD  NOTE  WEBHOOK                                                                     CACHE
 data/reader-0  Deployment/reader  node-c1  greedy  -     NodeAffinityWithCache: preferred(100): fluid.io/s-data-imagenet In [true]   imagenet: hit (cache on node-c1)
 data/reader-1  Deployment/reader  node-c1  greedy  -     NodeAffinityWithCache: preferred(100): fluid.io/s-data-imagenet In [true]   imagenet: hit (cache on node-c1)
 data/report    Pod/report         node-b3  greedy  -     -                                                                           imagenet: same-region (cache on node-c1)
 data/indexer   Pod/indexer        node-b3  greedy  -     PreferNodesWithoutCache: preferred(100): fluid.io/dataset-num DoesNotExist  -
"
    );
    let (code, planned) = plan_json(&args);
    assert_eq!(code, 0);
    let pods = &planned["batch"]["pods"];
    let hit = json!([{"namespace": "data", "name": "imagenet", "cacheNodes": ["node-c1"], "locality": "hit"}]);
    assert_eq!(
        (
            pods[0]["node"].clone(),
            pods[0]["webhookAffinity"].clone(),
            pods[0]["datasets"].clone()
        ),
        (json!("node-c1"), cache_preference(), hit)
    );
    assert_eq!(pods[2]["webhookAffinity"], json!([]));
    assert_eq!(
        pods[2]["datasets"],
        json!([{"namespace": "data", "name": "imagenet", "cacheNodes": ["node-c1"], "locality": "same-region"}])
    );
    assert_eq!(
        pods[3]["webhookAffinity"],
        json!([{"plugin": "PreferNodesWithoutCache", "nodeAffinity": {
            "preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 100, "preference": {
                "matchExpressions": [{"key": "fluid.io/dataset-num", "operator": "DoesNotExist"}]}}]}}])
    );
    assert_eq!(pods[3]["datasets"], json!([]));

    // Nothing cached and no runtime: the claims are plain claims, and only the label counts.
    let (_, planned) = plan_json(&args[..4]);
    let pods = &planned["batch"]["pods"];
    assert_eq!(
        pods[0]["webhookAffinity"][0]["plugin"],
        "PreferNodesWithoutCache"
    );
    assert_eq!(pods[0]["datasets"], json!([]));
}

const VOLCANO_TOPOLOGY: &str = "testdata/topology/volcano/state.yaml";

/// The job: 6 workers of 4 CPUs, 24 in all. Idle CPUs of the 8-CPU nodes: node-0 2 (etl-0's
/// 6), node-4 2 (etl-1), node-5 6 (web-0's 2), the others 8. Per rack: r0 (node-0, node-1)
/// 2 + 8 = 10, r1 (node-2, node-3) 16, r2 (node-4, node-5) 2 + 6 = 8, r3 (node-6, node-7)
/// 16; each under 24, so no rack is eligible. s0 (r0, r1) holds 0 + 2 + 2 + 2 = 6 pods of 4
/// CPUs; s1 (r2, r3) has 24 idle CPUs but holds only 0 + 1 + 2 + 2 = 5. In s0 the pods go
/// to the emptiest of node-1, node-2, node-3 (8 CPUs each, then 4), the first by name on a
/// tie: node-1, node-2, node-3, twice; r0 gets 2, r1 4.
#[test]
fn volcano_job_is_kept_in_the_lowest_tier_hypernode_that_holds_it() {
    let run = plan(&[
        "-f",
        "testdata/topology/volcano/job.yaml",
        "--state",
        VOLCANO_TOPOLOGY,
        "--show-all",
    ]);
    assert_eq!((run.code, run.stderr.as_str()), (0, ""));
    assert_eq!(
        run.stdout,
        "\
Job training/allreduce (volcano-job, minMember 6): 6/6 pods placed in tier2=s0; tier1s: r0 x2, r1 x4; nodes: node-1 x2, node-2 x2, node-3 x2
 POD                 TASK    NODE    TIER2  TIER1
 allreduce-worker-0  worker  node-1  s0     r0
 allreduce-worker-1  worker  node-2  s0     r1
 allreduce-worker-2  worker  node-3  s0     r1
 allreduce-worker-3  worker  node-1  s0     r0
 allreduce-worker-4  worker  node-2  s0     r1
 allreduce-worker-5  worker  node-3  s0     r1
Topology (volcano-hypernodes, hard, highestTierAllowed 2): kept in s0 (tier2)
  s0 (tier2)
    r0 (tier1)
      node-1: allreduce-worker-0, allreduce-worker-3
    r1 (tier1)
      node-2: allreduce-worker-1, allreduce-worker-4
      node-3: allreduce-worker-2, allreduce-worker-5
Rejected domains (up to tier2):
  r0 (tier1): not eligible: idle cpu 10 < 24 its pending pods request (Volcano's HyperNode pre-filter)
  r1 (tier1): not eligible: idle cpu 16 < 24 its pending pods request (Volcano's HyperNode pre-filter)
  r2 (tier1): not eligible: idle cpu 8 < 24 its pending pods request (Volcano's HyperNode pre-filter)
  r3 (tier1): not eligible: idle cpu 16 < 24 its pending pods request (Volcano's HyperNode pre-filter)
  s1 (tier2): 5 of 6 pods fit (free resources and pod slots of its 4 nodes)
"
    );
}

#[test]
fn volcano_hard_tier_no_hypernode_holds_exits_1_naming_the_closest() {
    let (code, json) = plan_json(&[
        "-f",
        "testdata/topology/volcano/job-one-rack.yaml",
        "--state",
        VOLCANO_TOPOLOGY,
    ]);
    assert_eq!(code, 1);
    let group = &json["groups"][0];
    assert_eq!(group["status"], "Unschedulable");
    assert_eq!(
        group["topology"],
        json!({"system": "volcano-hypernodes", "mode": "hard",
            "constraint": "highestTierAllowed 1", "constrainingLevel": "tier1", "chosen": []})
    );
    let rejected: Vec<String> = group["rejected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            format!(
                "{} {} {}/{}",
                r["level"], r["domain"], r["fit"], r["needed"]
            )
        })
        .collect();
    assert_eq!(
        rejected,
        [
            // By bin-packing score (Volcano's order), all turned down. Pods of 4 CPUs each
            // rack holds (idle CPUs at `volcano_job_is_kept_...`): r0 0 + 2, r1 2 + 2, r2
            // 0 + 1, r3 2 + 2; the closest is the first of the 4s tried, r1.
            "\"tier1\" \"r0\" 2/6",
            "\"tier1\" \"r1\" 4/6",
            "\"tier1\" \"r2\" 1/6",
            "\"tier1\" \"r3\" 4/6"
        ]
    );
    assert_eq!(
        group["rejections"][1]["reason"],
        "highestTierAllowed 1 (hard): no domain up to level tier1 takes the gang; the closest, \
         r1 (tier1), fits 4 of 6 pods"
    );
    assert_eq!(
        group["levels"],
        json!(["tier2", "tier1", "kubernetes.io/hostname"])
    );
}

/// No message names a Rust type (issue 17): values of the wrong shape, anywhere in the kinds
/// the tool models (a list where an object belongs, a list of lists, a string where a number
/// or a list belongs, a scalar where an object belongs), are said in Kubernetes terms by
/// `lint`, and by `plan` when it refuses them.
#[test]
fn wrong_shapes_are_said_in_kubernetes_terms() {
    let pod = |spec: &str| {
        format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec:\n  containers: [{{name: c, image: x}}]\n{spec}"
        )
    };
    let documents = [
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: [a]\n".to_string(),
        "apiVersion: v1\nkind: Pod\nmetadata: [p]\n".to_string(),
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: {name: c}\n"
            .to_string(),
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [[c]]\n".to_string(),
        pod("  priority: high\n"),
        pod("  nodeSelector: [a]\n"),
        pod("  tolerations: [{key: a, tolerationSeconds: soon}]\n"),
        pod("  affinity: 3\n"),
        pod("  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: [a]}}\n"),
        pod("  topologySpreadConstraints: [{maxSkew: one, topologyKey: k, whenUnsatisfiable: DoNotSchedule}]\n"),
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, labels: {a: [b]}}\nspec:\n  containers: [{name: c, image: x}]\n".to_string(),
        "apiVersion: data.fluid.io/v1alpha1\nkind: DataLoad\nmetadata: {name: l}\nspec: [x]\n".to_string(),
        "apiVersion: data.fluid.io/v1alpha1\nkind: DataLoad\nmetadata: {name: l}\nspec:\n  dataset: {name: d}\n  runAfter: x\n".to_string(),
        "apiVersion: data.fluid.io/v1alpha1\nkind: DataLoad\nmetadata: {name: l}\nspec:\n  dataset: {name: d}\n  runAfter: {kind: DataLoad, name: a, affinityStrategy: {policy: Require, requires: x}}\n".to_string(),
        "apiVersion: batch.volcano.sh/v1alpha1\nkind: Job\nmetadata: {name: j}\nspec:\n  minAvailable: many\n  tasks: [[x]]\n".to_string(),
        "apiVersion: scheduling.godel.kubewharf.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g}\nspec:\n  minMember: [1]\n".to_string(),
        "apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\nmetadata: {name: g}\nspec: {minMember: true}\n".to_string(),
    ];
    let rust = regex::Regex::new(
        r"\b(struct|enum|i8|i16|i32|i64|u8|u16|u32|u64|usize|f32|f64|bool|Vec|Option|String|HashMap|BTreeMap|Box)\b|::|`",
    )
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (index, document) in documents.iter().enumerate() {
        let file = dir.path().join(format!("doc-{index}.yaml"));
        std::fs::write(&file, document).unwrap();
        let file = file.display().to_string();
        let lint = cli::run(&["lint", "-f", &file]);
        let plan = plan(&["-f", &file, "--state", THREE_ZONE]);
        assert_eq!(
            (lint.code, plan.code),
            (1, 2),
            "{document}\n{}{}",
            lint.stdout,
            plan.stderr
        );
        for text in [&lint.stdout, &lint.stderr, &plan.stderr] {
            assert!(!rust.is_match(text), "{document}\n{text}");
        }
    }
}

/// A second scheduler's configuration, mounted as scheduler-plugins' charts mount it (a
/// ConfigMap), routes its profile's name: the profile enables Coscheduling, so the gang whose
/// pods name it is planned all or nothing by coscheduling; the out-of-tree plugin it also
/// enables is named in a warning. Without the configuration the name is not modelled.
#[test]
fn a_configuration_in_a_config_map_routes_its_profile() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("scheduler-config.yaml");
    std::fs::write(
        &config,
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: batch-scheduler-config, namespace: kube-system}\ndata:\n  scheduler-config.yaml: |\n    apiVersion: kubescheduler.config.k8s.io/v1\n    kind: KubeSchedulerConfiguration\n    profiles:\n    - schedulerName: batch-scheduler\n      plugins:\n        multiPoint:\n          enabled: [{name: Coscheduling}, {name: NodeResourceTopologyMatch}]\n",
    )
    .unwrap();
    let gang = dir.path().join("gang.yaml");
    let text = std::fs::read_to_string("testdata/gangs/coscheduling-podgroup.yaml").unwrap();
    std::fs::write(
        &gang,
        text.replace(
            "schedulerName: scheduler-plugins-scheduler",
            "schedulerName: batch-scheduler",
        ),
    )
    .unwrap();
    let (gang, config) = (gang.to_str().unwrap(), config.to_str().unwrap());
    let without = run("plan", &["-f", gang, "--state", GANG], None);
    assert!(
        without.stdout.contains("batch-scheduler"),
        "{}",
        without.stdout
    );
    assert!(
        !without.stdout.contains("3/3 pods placed"),
        "{}",
        without.stdout
    );
    let with = run(
        "plan",
        &["-f", gang, "--state", GANG, "--scheduler-config", config],
        None,
    );
    assert_eq!(with.code, 0, "{}", with.stderr);
    assert_eq!(
        with.stdout.lines().next(),
        Some(
            // The Deployment's replicas are its ReplicaSet's: default spreading by that
            // selector sends the third to the other zone (gpu-node-20, us-west-2b).
            "PodGroup inference/batch-eval (coscheduling, minMember 3): 3/3 pods placed; nodes: gpu-node-04 x1, gpu-node-05 x1, gpu-node-20 x1"
        )
    );
    assert_eq!(
        with.stderr,
        format!(
            "warning: {config}: not modelled, left out of this preview: NodeResourceTopologyMatch (scheduler-plugins: NUMA filter and score)\n"
        )
    );
}

/// A StatefulSet's `volumeClaimTemplates` (issue 29): each replica `db-<i>` mounts claim
/// `data-db-<i>`. On zonal-statefulset.yaml, `data-db-1` exists, bound to a local volume on
/// node-a2: db-1 runs there only. `data-db-0` and `data-db-2` are new; the template names no
/// class, so they get the default class zonal-a, provisioned in zone a only: node-b1 is out for
/// them. db-0 ties on the empty node-a1 and node-a2 (first name: node-a1); db-2 finds one
/// replica on each (another tie: node-a1).
#[test]
fn a_stateful_sets_claims_keep_its_replicas_where_their_volumes_can_be() {
    let files = [
        "-f",
        "testdata/volumes/statefulset.yaml",
        "--state",
        "testdata/volumes/zonal-statefulset.yaml",
    ];
    let out = plan(&files);
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
    assert_eq!(
        out.stdout,
        "Batch (3 pods, solver greedy): 3/3 pods placed
 POD           FROM            NODE     METHOD  NOTE
 default/db-0  StatefulSet/db  node-a1  greedy  -
 default/db-1  StatefulSet/db  node-a2  greedy  -
 default/db-2  StatefulSet/db  node-a1  greedy  -
"
    );
    // (pod, the rejection table's rows)
    let cases = [
        (
            "pod/db-0",
            " 1         node(s) didn't find available persistent volumes to bind  node-b1\n",
        ),
        (
            "pod/db-1",
            " 2         node(s) had volume node affinity conflict  node-a1, node-b1\n",
        ),
        (
            "pod/db-2",
            " 1         node(s) didn't find available persistent volumes to bind  node-b1\n",
        ),
    ];
    for (pod, rejected) in cases {
        let out = cli::run(&[&["explain-placement", pod], &files[..]].concat());
        assert_eq!((out.code, out.stderr.as_str()), (0, ""), "{pod}");
        assert!(out.stdout.ends_with(rejected), "{pod}: {}", out.stdout);
    }
}
