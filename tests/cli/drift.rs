//! End-to-end tests of drift (`explain-placement --compare`, `plan --pending --compare`) on
//! testdata/clusters/drift.yaml (described in testdata/README.md).

use serde_json::json;

use crate::support::cli::{run, run_json};

const DRIFT: &str = "testdata/clusters/drift.yaml";

/// api-0 prefers zone-c (NodeAffinity weight 2 x 100) but runs on node-a: taken off node-a, it
/// would go to node-c, 200 points ahead; the per-plugin table says where the points come from.
///
/// api-0 asks for 1 CPU and 2Gi on 4-CPU, 16Gi nodes (16384Mi). node-a, api-0 taken off,
/// keeps web-0 (500m, 1Gi) and custom-0 (500m, no memory: 200Mi for NodeResourcesFit, 0 for
/// BalancedAllocation): Fit CPU (4000-2000)*100/4000 = 50, memory (16384-3272)*100/16384 = 80,
/// (50+80)/2 = 65; Balanced 0.5 and 3072/16384 = 0.1875, 100*(1-0.156) = 84. node-c holds
/// db-0 (1 CPU, 4Gi): Fit 50 and (16384-6144)*100/16384 = 62, 56; Balanced 0.5 and 0.375, 93.
/// Totals: 3*100 + 65 + 84 = 449; 300 + 2*100 + 56 + 93 = 649.
#[test]
fn explain_compare_shows_both_nodes_scores_per_plugin() {
    let out = run(&[
        "explain-placement",
        "pod/api-0",
        "-n",
        "shop",
        "--compare",
        "--state",
        DRIFT,
    ]);
    assert_eq!(out.code, 1, "a drifted pod is a finding: {}", out.stderr);
    assert_eq!(out.stderr, "");
    let drift = out
        .stdout
        .split_once("\nDrift: ")
        .expect("a drift section")
        .1;
    assert_eq!(
        drift,
        "\
shop/api-0 runs on node-a (score 449); the engine would put it on node-c (score 649) now (+200).
 PLUGIN                           WEIGHT  NODE-A (RUNS)  NODE-C (CHOSEN)  WEIGHTED DIFFERENCE
 TaintToleration                  3       100            100              +0
 NodeAffinity                     2       0              100              +200
 PodTopologySpread                2       0              0                +0
 InterPodAffinity                 2       0              0                +0
 NodeResourcesFit                 1       65             56               -9
 NodeResourcesBalancedAllocation  1       84             93               +9
 ImageLocality                    1       0              0                +0
 TOTAL                                    449            649              +200
"
    );
}

/// db-0's nodeSelector wants disk=ssd, which node-c no longer has: NodeAffinity filters its own
/// node out, and node-b (the only ssd node) is the engine's choice.
#[test]
fn explain_compare_json_says_why_the_node_is_filtered_out() {
    let (code, explanation) = run_json(&[
        "explain-placement",
        "pod/db-0",
        "-n",
        "shop",
        "--compare",
        "--state",
        DRIFT,
    ]);
    assert_eq!(code, 1);
    let drift = &explanation["drift"];
    assert_eq!(
        (
            &drift["node"],
            &drift["chosen"],
            &drift["status"],
            &drift["nodeScore"],
            &drift["difference"],
            &drift["nodeScores"],
            &drift["reasons"],
        ),
        (
            &json!("node-c"),
            &json!("node-b"),
            &json!("filteredOut"),
            &json!(null),
            &json!(null),
            &json!({}),
            &json!(["node(s) didn't match Pod's node affinity/selector"]),
        )
    );
    assert_eq!(drift["chosenScore"], explanation["nodes"][1]["score"]);
}

/// A pod that still sits where the engine would put it is no finding; a Pending pod has no node
/// to compare (exit 2, one line). web-0 (500m, 1Gi, preferring its zone-a) on node-a beside
/// api-0 and custom-0: the same 2000m CPU and 3272Mi (3072Mi actual) as api-0 sees there in
/// `explain_compare_shows_both_nodes_scores_per_plugin`, so Fit 65 and Balanced 84, and
/// NodeAffinity 100: 300 + 200 + 65 + 84 = 649.
#[test]
fn explain_compare_on_an_undrifted_and_a_pending_pod() {
    let stays = run(&[
        "explain-placement",
        "pod/web-0",
        "-n",
        "shop",
        "--compare",
        "--state",
        DRIFT,
    ]);
    assert_eq!(stays.code, 0, "{}", stays.stderr);
    assert!(
        stays.stdout.ends_with(
            "\nDrift: shop/web-0 runs on node-a (score 649), where the engine would put it now.\n"
        ),
        "{}",
        stays.stdout
    );
    let pending = run(&[
        "explain-placement",
        "pod/cart-0",
        "-n",
        "shop",
        "--compare",
        "--state",
        DRIFT,
    ]);
    assert_eq!(pending.code, 2);
    assert_eq!(
        pending.stderr,
        "error: pod shop/cart-0 is not bound to a node in the cluster state: only a running pod has a node to compare\n"
    );
}

/// shop's four kube-scheduler pods are compared (custom-0's scheduler is not kube-scheduler):
/// db-0 (filtered out) is listed before api-0 (outscored), and the Pending cart-0 is planned as
/// `--pending` plans it.
///
/// db-0 (1 CPU, 4Gi) on node-b, the only ssd node, beside web-1 (500m, 1Gi) and agent-0 (100m,
/// no memory): Fit (4000-1600)*100/4000 = 60, (16384-5320)*100/16384 = 67, (60+67)/2 = 63;
/// Balanced 0.4 and 5120/16384 = 0.3125, 100*(1-0.044) = 95; 300 + 63 + 95 = 458. api-0's
/// 449 and 649 as in `explain_compare_shows_both_nodes_scores_per_plugin`. cart-0 (500m) goes
/// to node-b, the node with the most room (3400m free; node-c 3000m, node-a 2000m): its Fit
/// lead over node-c outweighs node-c's better balance. 2 of 4:
/// web-0, web-1, api-0 and db-0 are kube-scheduler's; web-0 and web-1 stay.
#[test]
fn plan_pending_compare_summarises_the_namespace() {
    let out = run(&[
        "plan",
        "--pending",
        "--compare",
        "-n",
        "shop",
        "--state",
        DRIFT,
    ]);
    assert_eq!(out.code, 1, "drift is a finding: {}", out.stderr);
    assert_eq!(out.stderr, "");
    assert_eq!(
        out.stdout,
        "\
Batch (1 pod, solver greedy): 1/1 pods placed
 POD          FROM           NODE    METHOD  NOTE
 shop/cart-0  cluster state  node-b  greedy  -

Drift in namespace shop: 2 of 4 running kube-scheduler pods sit where the engine would not put them now.
 POD         RUNS ON             ENGINE NOW          WHY
 shop/db-0   node-c              node-b (score 458)  node(s) didn't match Pod's node affinity/selector
 shop/api-0  node-a (score 449)  node-c (score 649)  outscored by +200
This may mean: the pods lack a constraint the engine sees or carry one it does not model, a custom scheduler placed them, or the cluster changed since they were scheduled (labels, taints, other pods).
"
    );
}

/// `-A` compares every namespace (ops/agent-0 too); `-n ops` only agent-0, which sits where the
/// engine would put it: no finding; `-l app=api` only api-0.
#[test]
fn plan_pending_compare_respects_the_namespace() {
    let (code, plan) = run_json(&["plan", "--pending", "--compare", "-A", "--state", DRIFT]);
    assert_eq!(code, 1);
    let drifted: Vec<&str> = plan["drift"]["pods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        (
            &plan["drift"]["namespace"],
            &plan["drift"]["compared"],
            &plan["drift"]["skipped"],
            &plan["drift"]["drifted"],
            drifted
        ),
        (
            &json!(null),
            &json!(5),
            &json!(0),
            &json!(2),
            vec!["db-0", "api-0"]
        )
    );
    let ops = run(&[
        "plan",
        "--pending",
        "--compare",
        "-n",
        "ops",
        "--state",
        DRIFT,
    ]);
    assert_eq!(
        (ops.code, ops.stdout.as_str()),
        (
            0,
            "Drift in namespace ops: 0 of 1 running kube-scheduler pod sit where the engine would not put them now.\n"
        )
    );
    let (code, selected) = run_json(&[
        "plan",
        "--pending",
        "--compare",
        "-n",
        "shop",
        "-l",
        "app=api",
        "--state",
        DRIFT,
    ]);
    assert_eq!(
        (
            code,
            &selected["drift"]["compared"],
            &selected["drift"]["pods"][0]["name"]
        ),
        (1, &json!(1), &json!("api-0"))
    );
}
