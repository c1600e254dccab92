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
///
/// The numbers, from testdata/clusters/pending.yaml (three 4-CPU nodes; running report-0 3 CPUs
/// on node-1, db-0 3 on node-2, cache-0 2 on node-3, so 1, 1 and 2 CPUs free):
/// - the gang: 2 pods (train-0, train-1) exist of minMember 3, so none is placed: 0/2;
/// - the batch: the 6 plain Pending pods (checkout, audit, import, search, web-0, web-1); 4
///   placed = 6 less audit-0 (not modelled) and import-0 (8 CPUs, more than any node's 4
///   allocatable: "3 Insufficient cpu" on all 3 nodes, and preemption cannot help, since no
///   node has 8 CPUs even empty);
/// - checkout-0 (3 CPUs) fits no node's 1, 1 or 2 free; every node has a victim of lower
///   priority that frees room (report-0 at 100 on node-1, db-0 and cache-0 at 1000), and the
///   node whose highest victim priority is lowest wins: node-1, 1 pod (report-0);
/// - search-0 (1 CPU) fits its nominated node-2 (1 free): kept there;
/// - web-0 (1 CPU): node-2 is now full, node-1 has 1 free (4 less checkout's 3), node-3 2:
///   node-3 scores 25 more (see `a_nominated_pod_keeps_its_nominated_node`);
/// - web-1 (1 CPU): node-1 and node-3 each have 1 CPU free and score the same on every plugin;
///   the tie goes to the first by name, node-1, where kube-scheduler picks at random.
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
    // Placed: the 6 shop pods less audit-0 and import-0 (see above); not modelled: audit-0
    // (schedulerName audit-scheduler). report-0's priority is its PriorityClass batch's 100.
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
    // The selection is search-0, web-0 and web-1, all three placed as in the whole queue.
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
/// ahead of it in the queue are placed first, the ones behind hold nothing. The queue has 7
/// entries, the 6 plain Pending pods and the ml/train gang as one, in the order
/// checkout-0 (critical), then by creationTimestamp audit-0 (08:00), the gang (09:00, before
/// import-0's 09:00 on its namespace ml), import-0, search-0 (09:30), web-0 (10:00), web-1
/// (10:01): search-0 is 5th and web-1 7th; only the placed ones ahead of each are assumed.
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
///
/// The scores, with the default weights (TaintToleration 3, NodeResourcesFit and
/// BalancedAllocation 1; the other plugins score 0 here): search-0 asks for 1 CPU and no
/// memory, counted as 200Mi by NodeResourcesFit (upstream's non-zero default) and as 0 by
/// BalancedAllocation. Once checkout-0 has replaced report-0 on node-1:
/// - node-2 (db-0 3 CPUs): CPU 4000m of 4000m, so (4000-4000)*100/4000 = 0; memory 400Mi
///   (db-0's and the pod's 200Mi) of 16Gi, (16384-400)*100/16384 = 97; Fit (0+97)/2 = 48.
///   Balanced: CPU fraction 1, memory 0, deviation |1-0|/2 = 0.5, 100*(1-0.5) = 50.
///   Total 3*100 + 48 + 50 = 398.
/// - node-3 (cache-0 2 CPUs): CPU 3000m, (4000-3000)*100/4000 = 25; memory 97; Fit
///   (25+97)/2 = 61. Balanced: |0.75-0|/2 = 0.375, 62. Total 300 + 61 + 62 = 423, 25 more.
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
