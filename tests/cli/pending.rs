//! End-to-end tests of `plan --pending` and `explain-placement` of Pending pods on
//! testdata/clusters/pending.yaml (described in testdata/README.md).

use serde_json::{Value, json};

use crate::support::cli::{run, run_json};

const PENDING: &str = "testdata/clusters/pending.yaml";

/// The queue order is priority, then creationTimestamp (namespace and name on ties): checkout
/// (critical) first, then the standard pods from the oldest; the ml/train gang (created
/// 09:00:00) pops before import-0 (also 09:00:00) on its namespace. checkout-0 fits nowhere and
/// preempts the batch-priority report-0 on node-1; search-0 takes its nominated node-2 though
/// node-3 scores higher; the web pods fill what is left.
#[test]
fn pending_pods_are_planned_in_queue_order() {
    let out = run(&["plan", "--pending", "--state", PENDING, "-A"]);
    assert_eq!(
        out.code, 1,
        "import-0 and the gang stay pending: {}",
        out.stderr
    );
    assert_eq!(out.stderr, "");
    assert_eq!(
        out.stdout,
        "\
PodGroup ml/train (coscheduling, minMember 3): 0/2 pods placed: waiting for pods: 2 of minMember 3 exist

Batch (6 pods, solver greedy): 4/6 pods placed
 POD              FROM           NODE       METHOD  NOTE
 shop/checkout-0  cluster state  node-1     greedy  would preempt 1 pod on node-1
 shop/audit-0     cluster state  <pending>  greedy  not planned: schedulerName audit-scheduler maps to no modelled scheduler
 shop/import-0    cluster state  <pending>  greedy  pending: 0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.
 shop/search-0    cluster state  node-2     greedy  -
 shop/web-0       cluster state  node-3     greedy  -
 shop/web-1       cluster state  node-1     greedy  -
shop/checkout-0 would preempt on node-1: shop/report-0
"
    );
}

fn rows(plan: &Value) -> Vec<(String, Value)> {
    plan["batch"]["pods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap().to_string(), p["node"].clone()))
        .collect()
}

/// `-n` shows the namespace's part of the one shared queue: shop's pods land where they land
/// with -A (the ml gang is planned too, and holds nothing); ml shows only its gang.
#[test]
fn a_namespace_keeps_its_part_of_the_queue() {
    let (code, all) = run_json(&["plan", "--pending", "--state", PENDING, "-A"]);
    assert_eq!(code, 1);
    let (code, shop) = run_json(&["plan", "--pending", "--state", PENDING, "-n", "shop"]);
    assert_eq!(code, 1);
    assert_eq!(shop["groups"], json!([]));
    assert_eq!(rows(&shop), rows(&all));
    assert_eq!(
        (&shop["batch"]["placed"], &shop["batch"]["notModelled"]),
        (&json!(4), &json!(1))
    );
    assert_eq!(
        shop["batch"]["pods"][0]["preempts"],
        json!([{"namespace": "shop", "name": "report-0", "priority": 100, "violatesBudget": false}])
    );
    assert_eq!(all["groups"][0]["status"], "WaitingForPods");
    let (code, ml) = run_json(&["plan", "--pending", "--state", PENDING, "-n", "ml"]);
    assert_eq!(code, 1);
    assert_eq!(ml["batch"], Value::Null);
    assert_eq!(ml["groups"], all["groups"]);
}

/// `-l` and `--field-selector` narrow what the one queue shows, as `-n` does: the selected pods
/// land where they land in the whole queue (web-1 still after checkout-0's preemption), and
/// nothing left out of the selection is pending, so the exit code is 0.
#[test]
fn selectors_keep_their_part_of_the_queue() {
    let out = run(&[
        "plan",
        "--pending",
        "--state",
        PENDING,
        "-A",
        "-l",
        "app in (web,search)",
    ]);
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
    assert_eq!(
        out.stdout,
        "\
Batch (3 pods, solver greedy): 3/3 pods placed
 POD            FROM           NODE    METHOD  NOTE
 shop/search-0  cluster state  node-2  greedy  -
 shop/web-0     cluster state  node-3  greedy  -
 shop/web-1     cluster state  node-1  greedy  -
"
    );
    let (code, named) = run_json(&[
        "plan",
        "--pending",
        "--state",
        PENDING,
        "-A",
        "--field-selector",
        "metadata.name=import-0",
    ]);
    assert_eq!(code, 1);
    assert_eq!(named["groups"], json!([]));
    assert_eq!(rows(&named), vec![("import-0".to_string(), Value::Null)]);
}

/// Without --pending the state's Pending plain pods are not planned (its gangs are, as
/// before): the mode is asked for.
#[test]
fn pending_pods_are_planned_only_when_asked() {
    let (_, plan) = run_json(&["plan", "--state", PENDING, "-A"]);
    assert_eq!(plan["batch"], Value::Null);
    assert_eq!(plan["groups"][0]["name"], "train");
}

/// explain-placement of a Pending pod of the state explains it in place: the pods and gangs
/// ahead of it in the queue are placed first, the ones behind hold nothing.
#[test]
fn a_pending_pod_is_explained_at_its_place_in_the_queue() {
    let cases: [(&str, Value, &str, Value); 3] = [
        (
            "checkout-0",
            Value::Null,
            "the scheduling queue: position 1 of 7",
            json!([]),
        ),
        (
            "search-0",
            json!("node-2"),
            "the scheduling queue: position 5 of 7",
            json!([{"pod": "shop/checkout-0", "node": "node-1"}]),
        ),
        (
            "web-1",
            json!("node-1"),
            "the scheduling queue: position 7 of 7",
            json!([
                {"pod": "shop/checkout-0", "node": "node-1"},
                {"pod": "shop/search-0", "node": "node-2"},
                {"pod": "shop/web-0", "node": "node-3"}
            ]),
        ),
    ];
    for (pod, selected, within, assumed) in cases {
        let target = format!("pod/{pod}");
        let (code, explained) = run_json(&[
            "explain-placement",
            &target,
            "-n",
            "shop",
            "--state",
            PENDING,
        ]);
        assert_eq!(code, 0, "{pod}");
        assert_eq!(explained["selected"], selected, "{pod}");
        assert_eq!(explained["context"]["within"], within, "{pod}");
        assert_eq!(explained["context"]["assumed"], assumed, "{pod}");
    }
}

/// A pod nominated by an earlier preemption takes its nominated node whenever it still fits
/// there, and the table says why it is not the best-scored node.
#[test]
fn a_nominated_pod_keeps_its_nominated_node() {
    let out = run(&[
        "explain-placement",
        "pod/search-0",
        "-n",
        "shop",
        "--state",
        PENDING,
    ]);
    assert_eq!(out.code, 0);
    assert!(
        out.stdout.contains(
            "Pod shop/search-0 would land on node node-2 (score 398).\n3 of 3 nodes are feasible.\n\
             Why: it is the pod's nominated node (status.nominatedNodeName), which kube-scheduler \
             takes whenever it still fits; node-3 scores 25 more.\n"
        ),
        "{}",
        out.stdout
    );
    let (_, checkout) = run_json(&[
        "explain-placement",
        "pod/checkout-0",
        "-n",
        "shop",
        "--state",
        PENDING,
    ]);
    assert_eq!(checkout["preemption"]["node"], "node-1");
}
