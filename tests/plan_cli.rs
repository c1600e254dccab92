//! End-to-end tests of `kubectl-dataflow plan` on the bundled testdata.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

const THREE_ZONE: &str = "testdata/clusters/three-zone.yaml";

struct Run {
    code: i32,
    stdout: String,
    stderr: String,
}

fn plan(args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_kubectl-dataflow"))
        .arg("plan")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the binary runs");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn plan_json(args: &[&str]) -> (i32, Value) {
    let run = plan(&[args, &["-o", "json"]].concat());
    assert!(run.stderr.is_empty(), "{}", run.stderr);
    (
        run.code,
        serde_json::from_str(&run.stdout).expect("JSON output"),
    )
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
                "score": 497, "zone": "us-east-1b",
                "source": "testdata/flows/three-step.yaml:9:9"
            },
            {
                "kind": "DataProcess", "namespace": "data", "name": "preprocess-imagenet",
                "after": {"kind": "DataLoad", "namespace": "data", "name": "load-imagenet"},
                "policy": "Require",
                "inheritedAffinity": host_b3,
                "affinity": {"nodeAffinity": host_b3},
                "node": "node-b3", "recordedNodeAffinity": null,
                "warnings": [], "flow": 1, "step": 2, "status": "Planned",
                "score": 491, "zone": "us-east-1b",
                "source": "testdata/flows/three-step.yaml:29:9"
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
                "score": 688, "zone": "us-east-1b",
                "source": "testdata/flows/three-step.yaml:57:9"
            }
        ],
        "groups": []
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
            "9 evaluate node-b1 Planned",
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
            "error: --what-if cordon=nope: node \"nope\" is not in the cluster state\n"
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
    // The 8-CPU step does not fit beside the loader; it stays within the loader's tor.
    assert_eq!(tor, json!("tor-041"));
    assert_eq!(ops[1]["inheritedAffinity"], required(&[("tor", "tor-041")]));
    assert_eq!(
        (warm["node"].clone(), ops[1]["node"].clone()),
        (json!("openb-node-1328"), json!("openb-node-1329"))
    );
}
