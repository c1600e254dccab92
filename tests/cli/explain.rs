//! End-to-end tests of `explain-placement`: the JSON contract, the summary of unschedulable
//! pods, the node detail, pods from the state, and the openb-based production state.

use std::path::Path;
use std::process::Output;

use serde_json::Value;

use crate::support::cli::output;

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn write_pod(dir: &Path, name: &str, yaml: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, yaml).unwrap();
    path.display().to_string()
}

/// `name: reason` for rejected nodes and `name=score` for feasible ones.
fn verdicts(json: &Value) -> Vec<String> {
    json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| match n["feasible"].as_bool().unwrap() {
            true => format!("{}={}", n["name"].as_str().unwrap(), n["score"]),
            false => format!(
                "{}: {}",
                n["name"].as_str().unwrap(),
                n["reasons"][0].as_str().unwrap()
            ),
        })
        .collect()
}

/// web-cache (500m, 1Gi; required anti-affinity to `app: web` per host, required affinity to a
/// `app: web` pod with a tier per zone, preferred affinity 70 to the ml teams' Alluxio workers
/// per zone, preferred anti-affinity 30 to kube-dns per host) on testdata/clusters/three-zone.yaml.
/// Rejected: the three hosts of the web frontends (a1, b1, c1), b2 (its taint), c2
/// (cordoned). The scores, with the default weights (TaintToleration 3, InterPodAffinity 2,
/// NodeResourcesFit and BalancedAllocation 1; the others score 0 here), the Succeeded loader
/// on node-a2 holding nothing:
/// - InterPodAffinity: the Alluxio workers run in zones a (node-a2) and b (node-b1), so a2, a3
///   and b3 have 70, c3 0 (no kube-dns pod on any of the four); normalised (70-0)*100/(70-0):
///   100, 100, 100 and 0.
/// - node-b3 (empty; 31850m, 236Gi): Fit (31850-500)*100/31850 = 98, (236-1)*100/236 = 99,
///   (98+99)/2 = 98; Balanced 0.0157 and 0.0042, 100*(1-0.0057) = 99; 300+200+98+99 = 697.
/// - node-a2 (a 2-CPU, 8Gi worker; 7910m, 30Gi): Fit (7910-2500)*100/7910 = 68, (30-9)*100/30
///   = 70, 69; Balanced 0.316 and 0.3, 99; 300+200+69+99 = 668.
/// - node-a3 (the 16-CPU, 64Gi trainer; 47800m, 180Gi): Fit (47800-16500)*100/47800 = 65,
///   (180-65)*100/180 = 63, 64; Balanced 0.345 and 0.361, 99; 300+200+64+99 = 663.
/// - node-c3 (the 1-CPU, 2Gi api; 15890m, 61Gi): Fit (15890-1500)*100/15890 = 90, (61-3)*100/61
///   = 95, 92; Balanced 0.094 and 0.049, 100*(1-0.0226) = 97; 300+0+92+97 = 489.
#[test]
fn json_contract_on_the_three_zone_cluster() {
    let out = output(&[
        "explain-placement",
        "-f",
        "testdata/pods/affinity.yaml",
        "--state",
        "testdata/clusters/three-zone.yaml",
        "-o",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        json["pod"],
        serde_json::json!({"namespace": "web", "name": "web-cache"})
    );
    assert_eq!(json["selected"], "node-b3");
    assert_eq!(json["summary"], Value::Null);
    assert_eq!(json["totalNodes"], 9);
    assert_eq!(
        verdicts(&json),
        [
            "node-a1: node(s) didn't match pod anti-affinity rules",
            "node-a2=668",
            "node-a3=663",
            "node-b1: node(s) didn't match pod anti-affinity rules",
            "node-b2: node(s) had untolerated taint(s)",
            "node-b3=697",
            "node-c1: node(s) didn't match pod anti-affinity rules",
            "node-c2: node(s) were unschedulable",
            "node-c3=489",
        ]
    );
    // Every feasible node carries all seven upstream score plugins, each in 0..100, and the
    // total is their weighted sum.
    let weights = json["weights"].as_object().unwrap();
    for node in json["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["feasible"] == true)
    {
        let scores = node["scores"].as_object().unwrap();
        assert_eq!(scores.len(), 7, "{node}");
        let total: i64 = scores
            .iter()
            .map(|(plugin, s)| {
                let s = s.as_i64().unwrap();
                assert!((0..=100).contains(&s), "{plugin} {s}");
                s * weights[plugin].as_i64().unwrap()
            })
            .sum();
        assert_eq!(node["score"], total);
    }
    let yaml = output(&[
        "explain-placement",
        "-f",
        "testdata/pods/affinity.yaml",
        "--state",
        "testdata/clusters/three-zone.yaml",
        "-o",
        "yaml",
    ]);
    let from_yaml: Value = serde_saphyr::from_str(&stdout(&yaml)).unwrap();
    assert_eq!(from_yaml, json);
}

#[test]
fn unschedulable_pods_get_the_upstream_summary_and_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let pod = write_pod(
        dir.path(),
        "huge.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: huge, namespace: web}\nspec:\n  nodeSelector: {topology.kubernetes.io/zone: us-east-1a}\n  containers: [{name: c, image: x, resources: {requests: {cpu: \"64\"}}}]\n",
    );
    let out = output(&[
        "explain-placement",
        "-f",
        &pod,
        "--state",
        "testdata/clusters/three-zone.yaml",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    // Each of the 9 nodes counted once, by the first filter that rejects it (NodeUnschedulable,
    // TaintToleration, NodeAffinity, then NodeResourcesFit): c2 cordoned, b2 tainted, the four
    // other nodes outside zone a (b1, b3, c1, c3) by the selector, and zone a's three (7910m,
    // 7910m, 47800m allocatable) short of 64 CPUs; 1 + 1 + 4 + 3 = 9. Preemption cannot help on
    // any: evicting every pod of a zone-a node leaves at most 47800m.
    assert!(
        text.starts_with("Pod web/huge would stay Pending.\n"),
        "{text}"
    );
    assert!(
        text.ends_with("\n0/9 nodes are available: 1 node(s) had untolerated taint(s), 1 node(s) were unschedulable, 3 Insufficient cpu, 4 node(s) didn't match Pod's node affinity/selector. no new claims to deallocate, preemption: 0/9 nodes are available: 9 Preemption is not helpful for scheduling.\n"),
        "{text}"
    );
}

/// kube-scheduler's VolumeBinding keeps the pods of a claim bound to a zonal volume in its
/// zone, with upstream's reason; VolumeZone, after it, would reject the node too. A claim the
/// state does not hold rejects the pod at PreFilter, said once.
///
/// db (1 CPU, 2Gi) on the empty 4-CPU, 16Gi node-a scores 474 = TaintToleration 3*100 +
/// NodeResourcesFit ((4000-1000)*100/4000 = 75, (16-2)*100/16 = 87, (75+87)/2 = 81) +
/// BalancedAllocation (fractions 0.25 and 0.125, deviation 0.0625, 93).
#[test]
fn a_bound_zonal_volume_keeps_its_pod_in_its_zone() {
    let args = |extra: &[&'static str]| {
        let mut args = vec![
            "explain-placement",
            "-f",
            "testdata/volumes/db.yaml",
            "--state",
            "testdata/clusters/zonal-volume.yaml",
        ];
        args.extend(extra);
        output(&args)
    };
    let out = args(&[]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    let text = stdout(&out);
    assert!(
        text.starts_with("Pod default/db would land on node node-a (score 474).\n"),
        "{text}"
    );
    assert!(
        text.contains(" 1         node(s) had volume node affinity conflict  node-b\n"),
        "{text}"
    );
    let out = args(&["--node", "node-b", "-o", "json"]);
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        verdicts(&json),
        [
            "node-a=474",
            "node-b: node(s) had volume node affinity conflict"
        ]
    );
    let failed: Vec<(&str, &str)> = json["nodeDetail"]["filters"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["passed"] == false)
        .map(|f| {
            (
                f["plugin"].as_str().unwrap(),
                f["reasons"][0].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        failed,
        [
            ("VolumeBinding", "node(s) had volume node affinity conflict"),
            ("VolumeZone", "node(s) had no available volume zone"),
        ]
    );
    let dir = tempfile::tempdir().unwrap();
    let pod = write_pod(
        dir.path(),
        "orphan.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: orphan, namespace: default}\nspec:\n  containers: [{name: c, image: x}]\n  volumes: [{name: data, persistentVolumeClaim: {claimName: nope}}]\n",
    );
    // DynamicResources (on since 1.34) runs its PreFilter after the volume plugins: rejected
    // before it, the pod meets its PostFilter without cycle state, and preemption never runs.
    for (version, post_filter) in [
        ("1.34", "not found"),
        (
            "1.33",
            "preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
        ),
    ] {
        let out = output(&[
            "explain-placement",
            "-f",
            &pod,
            "--state",
            "testdata/clusters/zonal-volume.yaml",
            "--kubernetes-version",
            version,
        ]);
        assert_eq!(out.status.code(), Some(1));
        let want = format!(
            "\n0/2 nodes are available: persistentvolumeclaim \"nope\" not found. {post_filter}\n"
        );
        assert!(stdout(&out).ends_with(&want), "{version}: {}", stdout(&out));
    }
}

#[test]
fn node_detail_runs_every_filter() {
    let out = output(&[
        "explain-placement",
        "-f",
        "testdata/pods/affinity.yaml",
        "--state",
        "testdata/clusters/three-zone.yaml",
        "--node",
        "node-b2",
        "-o",
        "json",
    ]);
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let detail = &json["nodeDetail"];
    assert_eq!(detail["node"], "node-b2");
    assert_eq!(detail["feasible"], false);
    let filters: Vec<(String, bool)> = detail["filters"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["plugin"].as_str().unwrap().to_string(),
                f["passed"].as_bool().unwrap(),
            )
        })
        .collect();
    let plugins: Vec<&str> = filters.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(
        plugins,
        [
            "NodeUnschedulable",
            "NodeName",
            "TaintToleration",
            "NodeAffinity",
            "NodePorts",
            "NodeResourcesFit",
            "PodTopologySpread",
            "InterPodAffinity"
        ]
    );
    assert!(!filters[2].1, "the taint rejects node-b2");
    let unknown = output(&[
        "explain-placement",
        "-f",
        "testdata/pods/affinity.yaml",
        "--state",
        "testdata/clusters/three-zone.yaml",
        "--node",
        "nope",
    ]);
    assert_eq!(unknown.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&unknown.stderr),
        "error: node \"nope\" is not in the cluster state\n"
    );
}

#[test]
fn invalid_selectors_are_explained_with_their_path() {
    let dir = tempfile::tempdir().unwrap();
    let pod = write_pod(
        dir.path(),
        "bad.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: bad}\nspec:\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions: [{key: cores, operator: Gt, values: [many]}]\n  containers: [{name: c}]\n",
    );
    let out = output(&[
        "explain-placement",
        "-f",
        &pod,
        "--state",
        "testdata/clusters/three-zone.yaml",
        "-o",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(
        json["problems"],
        serde_json::json!([
            "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0]: operator Gt needs an integer value, got \"many\""
        ])
    );
}

#[test]
fn a_running_pod_of_the_state_is_explained_as_if_pending() {
    let out = output(&[
        "explain-placement",
        "pod/web-5c9f8b7d6-hx2lq",
        "-n",
        "web",
        "--state",
        "testdata/clusters/three-zone.yaml",
        "-o",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    // Its own node is free of it again; its siblings' hostname anti-affinity still holds.
    let rejected: Vec<String> = verdicts(&json)
        .into_iter()
        .filter(|v| v.contains("anti-affinity"))
        .collect();
    assert_eq!(rejected.len(), 2, "{rejected:?}");
    let missing = output(&[
        "explain-placement",
        "pod/nope",
        "--state",
        "testdata/clusters/three-zone.yaml",
    ]);
    assert_eq!(missing.status.code(), Some(2));
}

#[test]
fn a_gpu_pod_on_the_openb_production_state() {
    let dir = tempfile::tempdir().unwrap();
    let pod = write_pod(
        dir.path(),
        "t4.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: train, namespace: default}\nspec:\n  nodeSelector: {nvidia.com/gpu.product: T4}\n  containers:\n  - name: c\n    resources:\n      requests: {cpu: \"8\", memory: 32Gi}\n      limits: {nvidia.com/gpu: \"2\"}\n",
    );
    let out = output(&[
        "explain-placement",
        "-f",
        &pod,
        "--state",
        "testdata/clusters/openb.json",
        "-o",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["totalNodes"], 1523);
    let nodes = json["nodes"].as_array().unwrap();
    let reasons: std::collections::BTreeSet<&str> = nodes
        .iter()
        .filter(|n| n["feasible"] == false)
        .flat_map(|n| n["reasons"].as_array().unwrap())
        .map(|r| r.as_str().unwrap())
        .collect();
    // The trace's nodes are busy: only the nodeSelector and the resources reject, each in
    // upstream's wording.
    assert_eq!(
        reasons.into_iter().collect::<Vec<_>>(),
        [
            "Insufficient cpu",
            "Insufficient memory",
            "Insufficient nvidia.com/gpu",
            "node(s) didn't match Pod's node affinity/selector"
        ]
    );
    // The selected node is a best-scored one, the smallest name among equals.
    let best = nodes
        .iter()
        .filter_map(|n| n["score"].as_i64())
        .max()
        .unwrap();
    let first_best = nodes
        .iter()
        .filter(|n| n["score"].as_i64() == Some(best))
        .map(|n| n["name"].as_str().unwrap())
        .min()
        .unwrap();
    assert_eq!(json["selected"], first_best);
}

#[test]
fn state_warnings_and_verbose_reading_go_to_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let state = write_pod(
        dir.path(),
        "state.yaml",
        "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: n1}, status: {allocatable: {cpu: \"2\", memory: 4Gi, pods: \"10\"}}}\n- {apiVersion: v1, kind: Pod, metadata: {name: orphan, namespace: default}, spec: {nodeName: gone, containers: [{name: c}]}, status: {phase: Running}}\n",
    );
    let pod = write_pod(
        dir.path(),
        "pod.yaml",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c}]\n",
    );
    let out = output(&[
        "explain-placement",
        "-f",
        &pod,
        "--state",
        &state,
        "-v",
        "1",
        "-o",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr)
            .lines()
            .map(|l| match l.strip_prefix("read ") {
                // The duration varies: drop it.
                Some(_) => l.rsplit_once(" in ").map_or(l, |(head, _)| head).to_string(),
                None => l.to_string(),
            })
            .collect::<Vec<_>>(),
        [
            "warning: pod default/orphan is bound to node \"gone\", which is not in the state; ignoring the pod".to_string(),
            format!("read 1 node, 0 pods, 0 namespaces and 0 data operations from {state}"),
        ]
    );
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["selected"], "n1");
}

/// Targets read like kubectl's: short names, plurals and `resource.group` name the same
/// object as the kind does; a mistyped kind gets a suggestion and exit 2.
#[test]
fn targets_take_kubectl_short_names() {
    let explain = |target: &str, file: Option<&str>, namespace: &str| {
        let mut args = vec![
            "explain-placement",
            target,
            "-n",
            namespace,
            "--state",
            "testdata/clusters/three-zone.yaml",
            "-o",
            "json",
        ];
        if let Some(file) = file {
            args.extend(["-f", file]);
        }
        output(&args)
    };
    let deployment = Some("testdata/pods/deployment.yaml");
    let full = stdout(&explain("Deployment/checkout", deployment, "web"));
    assert!(full.contains("\"selected\""), "{full}");
    for short in [
        "deploy/checkout",
        "deployments/checkout",
        "deployments.apps/checkout",
    ] {
        assert_eq!(stdout(&explain(short, deployment, "web")), full, "{short}");
    }
    let pod = stdout(&explain("pod/web-5c9f8b7d6-hx2lq", None, "web"));
    assert_eq!(stdout(&explain("po/web-5c9f8b7d6-hx2lq", None, "web")), pod);
    let typo = explain("deplyment/checkout", deployment, "web");
    assert_eq!(typo.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&typo.stderr)
            .starts_with("error: unknown kind \"deplyment\" in \"deplyment/checkout\" (did you mean \"Deployment\"?)"),
        "{}",
        String::from_utf8_lossy(&typo.stderr)
    );
}

/// The candidates are compared by upstream's pickOneNodeForPreemption: fewest budget
/// violations (node-3's api-1 violates one, so it loses), then the lowest highest-victim
/// priority (100 on node-1 and node-2: a tie), then the lowest sum of victim priorities, each
/// raised by 2^31 = 2147483648: node-1 100 + 2^31 = 2147483748, node-2 2 x (100 + 2^31) =
/// 4294967496.
#[test]
fn preemption_preview_names_the_node_the_victims_and_why_others_lost() {
    let args = |pod: &'static str, output: &'static str| {
        [
            "explain-placement",
            "-f",
            "testdata/pods/preemption.yaml",
            pod,
            "--state",
            "testdata/clusters/priority.yaml",
            "-o",
            output,
        ]
    };
    let out = output(&args("pod/critical", "table"));
    assert_eq!(
        out.status.code(),
        Some(0),
        "the pod runs once the victims are gone"
    );
    assert_eq!(
        stdout(&out),
        "\
Within a batch of 3 pods (Pod/critical)

Pod prod/critical fits no node as it is; it would preempt 1 pod on node node-1 and be nominated there.

 REJECTED  REASON            NODES
 3         Insufficient cpu  node-1, node-2, node-3

0/3 nodes are available: 3 Insufficient cpu.

Preemption (pod priority 100000): 3 candidate node(s)
 CANDIDATE  VICTIMS                                 PDB-VIOLATIONS  OUTCOME
 node-1     prod/batch-a (100)                      0               nominated
 node-2     prod/batch-b (100), prod/batch-c (100)  0               lost on a lower sum of victim priorities (each + 2^31): 4294967496 against 2147483748
 node-3     prod/api-1 (1000)                       1               lost on fewer PodDisruptionBudget violations: 1 against 0
"
    );
    let out = output(&args("pod/critical", "json"));
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["preemption"]["node"], "node-1");
    assert_eq!(
        json["preemption"]["victims"],
        serde_json::json!([{"namespace": "prod", "name": "batch-a", "priority": 100, "violatesBudget": false}])
    );
    assert_eq!(json["selected"], Value::Null);
    // (pod, preemption.node, summary)
    let cases = [
        (
            "pod/research",
            Value::Null,
            "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never.",
        ),
        (
            "pod/huge",
            Value::Null,
            // After pod/critical, placed before it in the batch, took node-1 (evicting batch-a).
            "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Insufficient cpu.",
        ),
    ];
    for (pod, node, summary) in cases {
        let out = output(&args(pod, "json"));
        assert_eq!(out.status.code(), Some(1), "{pod}");
        let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(json["preemption"]["node"], node, "{pod}");
        assert_eq!(
            json["preemption"]["victims"],
            serde_json::json!([]),
            "{pod}"
        );
        assert_eq!(json["summary"], summary, "{pod}");
    }
    // A pod that fits has no preemption part.
    let out = output(&[
        "explain-placement",
        "-f",
        "testdata/pods/affinity.yaml",
        "--state",
        "testdata/clusters/three-zone.yaml",
        "-o",
        "json",
    ]);
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["preemption"], Value::Null);
}

#[test]
fn a_pod_that_names_its_node_is_admitted_by_the_kubelet_not_scheduled() {
    // (pod, exit code, text)
    let cases = [
        (
            "pod/pinned-db-probe",
            0,
            "Pod db/pinned-db-probe names node node-b2 in spec.nodeName, so it is not scheduled; the kubelet admits it.\n",
        ),
        (
            "pod/pinned-missing",
            1,
            "Pod db/pinned-missing names node node-z9 in spec.nodeName, so it is not scheduled; the kubelet would not admit it: node \"node-z9\" does not exist.\n",
        ),
    ];
    for (pod, code, text) in cases {
        let out = output(&[
            "explain-placement",
            "-f",
            "testdata/pods/workloads.yaml",
            pod,
            "--state",
            "testdata/clusters/three-zone.yaml",
        ]);
        assert_eq!(out.status.code(), Some(code), "{pod}");
        assert_eq!(stdout(&out), text, "{pod}");
    }
    let out = output(&[
        "explain-placement",
        "-f",
        "testdata/pods/workloads.yaml",
        "pod/pinned-db-probe",
        "--state",
        "testdata/clusters/three-zone.yaml",
        "-o",
        "json",
    ]);
    let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(json["selected"], "node-b2");
    assert_eq!(
        json["admission"],
        serde_json::json!({"node": "node-b2", "admitted": true, "reasons": []})
    );
}

/// Objects named by `generateName` are addressed as kubectl users write the prefix
/// (`job/pi-`) or as the tool shows them (`pod/web-<generated>`).
#[test]
fn generate_name_objects_are_addressable() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_pod(
        dir.path(),
        "generated.yaml",
        "apiVersion: batch/v1\nkind: Job\nmetadata:\n  generateName: pi-\nspec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: pi\n        image: perl\n---\napiVersion: v1\nkind: Pod\nmetadata:\n  generateName: web-\nspec:\n  containers:\n  - name: web\n    image: nginx\n",
    );
    for (target, pod) in [
        ("job/pi-", "pi-<generated>-0"),
        ("pod/web-", "web-<generated>"),
        ("pod/web-<generated>", "web-<generated>"),
    ] {
        let out = output(&[
            "explain-placement",
            "-f",
            &file,
            target,
            "--state",
            "testdata/clusters/three-zone.yaml",
            "-o",
            "json",
        ]);
        assert_eq!(out.status.code(), Some(0), "{target}: {out:?}");
        let json: Value = serde_json::from_str(&stdout(&out)).unwrap();
        assert_eq!(json["pod"]["name"], pod, "{target}");
    }
}

/// On the 1,523-node openb state kube-scheduler scores a sample: 50 - 1523 / 125 = 38% of the
/// nodes, 1523 x 38 / 100 = 578 feasible nodes, found from where its previous cycle stopped.
/// 456 nodes share the top score; every window of 578 of the 1,202 feasible nodes holds one of
/// them, so those 456 are the nodes it could pick. A tie of more than 5 nodes is counted, and
/// `-o wide` lists the names.
#[test]
fn a_large_cluster_is_sampled_and_long_ties_are_counted() {
    let args = [
        "explain-placement",
        "-f",
        "testdata/pods/deployment.yaml",
        "--state",
        "testdata/clusters/openb.json",
    ];
    let out = output(&args);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().skip(2).take(3).collect();
    assert_eq!(
        lines,
        [
            "Pod web/checkout-0 would land on node openb-node-0577 (score 698; tied with 455 other nodes (-o wide lists them), picked by name where the scheduler would pick at random).",
            "1202 of 1523 nodes are feasible.",
            "kube-scheduler scores only the first 578 feasible nodes it finds (38% of 1523 nodes, the adaptive percentageOfNodesToScore), from where its previous cycle stopped; any of 456 nodes (-o wide lists them) could be its pick, judged by the scores over every feasible node.",
        ]
    );
    let wide = stdout(&output(&[&args[..], &["-o", "wide"]].concat()));
    let tie_line = wide.lines().nth(2).unwrap();
    assert!(
        tie_line.contains("tied with openb-node-0578, "),
        "{tie_line}"
    );
    // 455 names joined by ", " (454), then ", picked by name".
    assert_eq!(tie_line.matches(", ").count(), 455, "{tie_line}");
}

/// A pod for a scheduler nothing models gets no prediction: neither a node nor "would stay
/// Pending", and exit 0 (its outcome is unknown, not a finding).
#[test]
fn a_pod_of_an_unmodelled_scheduler_gets_no_prediction() {
    let out = output(&[
        "explain-placement",
        "-f",
        "testdata/pods/custom-scheduler.yaml",
        "--state",
        "testdata/clusters/three-zone.yaml",
    ]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout(&out),
        "Pod default/yunikorn-job goes to scheduler \"yunikorn\", which this preview does not model: it cannot say where, or whether, the pod lands.\n"
    );
}
