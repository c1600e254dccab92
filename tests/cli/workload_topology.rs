//! Kubernetes topology-aware workload scheduling (KEP-5732) end to end on
//! testdata/topology/workload: a two-block, four-rack cluster whose racks hold 5, 6, 8 and 7
//! two-CPU pods, and v1alpha2 Workloads whose PodGroup must stay in one rack or block.

use serde_json::{Value, json};

use crate::support::cli::{Run, run, run_json};

const STATE: &str = "testdata/topology/workload/state.yaml";
/// KEP-5732 is a v1.36 feature and the files are v1alpha2 objects: the release that serves them.
const RELEASE: &str = "1.36";

/// The table with every gang in full (its pods, topology and turned-down domains).
fn plan(workload: &str) -> Run {
    let file = format!("testdata/topology/workload/{workload}.yaml");
    run(&[
        "plan",
        "-f",
        &file,
        "--state",
        STATE,
        "--show-all",
        "--kubernetes-version",
        RELEASE,
    ])
}

fn group(workload: &str) -> (i32, Value) {
    let file = format!("testdata/topology/workload/{workload}.yaml");
    let (code, plan) = run_json(&[
        "plan",
        "-f",
        &file,
        "--state",
        STATE,
        "--kubernetes-version",
        RELEASE,
    ]);
    (code, plan["groups"][0].clone())
}

/// The group: 6 pods of 2 CPUs and 4Gi, 12 CPUs and 24Gi. Each rack has 16 CPUs and 64Gi; the
/// running etl pods take 6 CPUs on node-0 (r1), 4 on node-2 (r2), 2 on node-6 (r4), 4Gi each.
/// r1 holds 1 + 4 = 5 pods. The placement score is pods (all 6 everywhere: 100) plus bin
/// packing, the mean of CPU and memory requested per 100 held once the group is there:
/// r2 (4 + 12) / 16 = 100 and (4 + 24) / 64 = 43, 71, so 171; r4 (2 + 12) / 16 = 87 and 43,
/// 65, so 165; r3 12 / 16 = 75 and 24 / 64 = 37, 56, so 156. In r2, node-3 (8 CPUs free)
/// takes the first two pods; then node-2 and node-3 both have 4 free and node-2 less memory
/// used (4Gi against 8Gi), so train-2 goes there, and so on, node-2 2 pods and node-3 4.
#[test]
fn a_rack_constraint_keeps_the_tightest_rack_that_holds_the_group() {
    let out = plan("train");
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
    assert_eq!(
        out.stdout,
        "\
PodGroup research/train-workers-0 (workload-podgroup, minMember 6): 6/6 pods placed in topology.example.com/rack=r2; nodes: node-2 x2, node-3 x4
 POD      NODE    TOPOLOGY.EXAMPLE.COM/RACK
 train-0  node-3  r2
 train-1  node-3  r2
 train-2  node-2  r2
 train-3  node-3  r2
 train-4  node-2  r2
 train-5  node-3  r2
Topology (workload-topology, required, topology key topology.example.com/rack): kept in r2 (topology.example.com/rack)
  r2 (topology.example.com/rack)
    node-2: train-2, train-4
    node-3: train-0, train-1, train-3, train-5
Rejected domains (up to topology.example.com/rack):
  r1 (topology.example.com/rack): 5 of 6 pods fit (free resources and pod slots of its 2 nodes)
  r4 (topology.example.com/rack): 6 pods fit, 6 needed; not placed: its placement score would be at most 165 (pods 100 + bin packing 65), and r2's is 171
  r3 (topology.example.com/rack): 6 pods fit, 6 needed; not placed: its placement score would be at most 156 (pods 100 + bin packing 56), and r2's is 171
"
    );
}

/// The group: 10 pods of 2 CPUs and 4Gi, 20 CPUs and 40Gi; each block has 32 CPUs and 128Gi.
/// Bin packing once placed: b1 (etl-0 and etl-1, 10 CPUs, 8Gi) (10 + 20) / 32 = 93 and
/// (8 + 40) / 128 = 37, 65, so 165; b2 (etl-2, 2 CPUs, 4Gi) 22 / 32 = 68 and 44 / 128 = 34,
/// 51, so 151. Both take all 10 pods (pods 100).
#[test]
fn the_json_names_the_chosen_domain_and_scores_the_others() {
    let (code, g) = group("block");
    assert_eq!(code, 0);
    assert_eq!(g["status"], "Scheduled");
    assert_eq!(
        g["topology"],
        json!({"system": "workload-topology", "mode": "required",
            "constraint": "topology key topology.example.com/block",
            "constrainingLevel": "topology.example.com/block",
            "chosen": [{"level": "topology.example.com/block", "domain": "b1"}]})
    );
    assert_eq!(
        g["rejected"],
        json!([{"level": "topology.example.com/block", "domain": "b2", "fit": 10, "needed": 10,
            "reason": "10 pods fit, 10 needed; not placed: its placement score would be at most 151 (pods 100 + bin packing 51), and b1's is 165"}])
    );
    assert_eq!(
        g["levels"],
        json!(["topology.example.com/block", "kubernetes.io/hostname"])
    );
    let blocks: Vec<&Value> = g["pods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| &p["domains"][0])
        .collect();
    assert_eq!(blocks, vec![&json!("b1"); 10]);
}

#[test]
fn a_group_no_rack_holds_stays_pending_and_names_the_closest_rack() {
    let (code, g) = group("too-big");
    assert_eq!(code, 1);
    assert_eq!(g["status"], "Unschedulable");
    assert_eq!(g["topology"]["chosen"], json!([]));
    let fits: Vec<(&str, u64)> = g["rejected"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["domain"].as_str().unwrap(), r["fit"].as_u64().unwrap()))
        .collect();
    // In the order tried: the best score each rack could reach, highest first (10 pods would
    // fill any rack's CPUs, so it is memory: 4Gi running in r1, r2 and r4, first by name, none
    // in r3). Pods of 2 CPUs each rack holds: r1 1 + 4, r2 2 + 4, r4 3 + 4, r3 4 + 4; r3 comes
    // closest with 8 of 10.
    assert_eq!(fits, [("r1", 5), ("r2", 6), ("r4", 7), ("r3", 8)]);
    let stdout = plan("too-big").stdout;
    assert!(
        stdout.contains(
            "  topology: topology key topology.example.com/rack (required): no domain up to level topology.example.com/rack takes the gang; the closest, r3 (topology.example.com/rack), fits 8 of 10 pods\n"
        ),
        "{stdout}"
    );
}

/// A scheduler configuration's `placementScore` weights weigh the two parts of the placement
/// score, as upstream: bin packing x 3 keeps the same rack here, with every score reweighed
/// (r2: 100 + 71 x 3 = 313).
#[test]
fn the_scheduler_configuration_weighs_the_placement_score() {
    let out = run(&[
        "plan",
        "-f",
        "testdata/topology/workload/train.yaml",
        "--state",
        STATE,
        "--show-all",
        "--scheduler-config",
        "testdata/topology/workload/placement-weights.yaml",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let rejected: Vec<&str> = out
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("Rejected domains"))
        .collect();
    assert_eq!(
        rejected,
        [
            "Rejected domains (up to topology.example.com/rack):",
            "  r1 (topology.example.com/rack): 5 of 6 pods fit (free resources and pod slots of its 2 nodes)",
            "  r4 (topology.example.com/rack): 6 pods fit, 6 needed; not placed: its placement score would be at most 295 (pods 100 x 1 + bin packing 65 x 3), and r2's is 313",
            "  r3 (topology.example.com/rack): 6 pods fit, 6 needed; not placed: its placement score would be at most 268 (pods 100 x 1 + bin packing 56 x 3), and r2's is 313",
        ]
    );
}

/// Lint measures the racks as the plan does: the group that stays pending is an error (DF509)
/// naming the same closest rack; the groups that fit get no finding.
#[test]
fn lint_names_the_rack_the_plan_comes_closest_in() {
    let lint = |workload: &str| {
        let file = format!("testdata/topology/workload/{workload}.yaml");
        run(&["lint", "-f", &file, "--state", STATE])
    };
    let out = lint("too-big");
    assert_eq!(
        (out.code, out.stdout.as_str()),
        (
            1,
            "\
testdata/topology/workload/too-big.yaml:33:12: error[DF509]: the largest topology.example.com/rack domain (r3) holds 8 of the 10 pods (free resources and pod slots of its 2 nodes): kube-scheduler finds no placement for the group and it stays pending
   |
33 |     - key: topology.example.com/rack
   |            ^^^^^^^^^^^^^^^^^^^^^^^^^

1 error, 0 warnings in 1 file
"
        )
    );
    for fits in ["train", "block"] {
        let out = lint(fits);
        assert_eq!(
            (out.code, out.stdout.as_str()),
            (0, "no problems found in 1 file\n"),
            "{fits}"
        );
    }
}

#[test]
fn explaining_a_group_pod_shows_its_domain_path() {
    let out = run(&[
        "explain-placement",
        "pod/train-2",
        "-f",
        "testdata/topology/workload/train.yaml",
        "--state",
        STATE,
        "--kubernetes-version",
        RELEASE,
    ]);
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
    assert!(
        out.stdout.starts_with(
            "Within PodGroup research/train-workers-0\nDecided within domain r2 (topology.example.com/rack) (2 nodes)\n"
        ),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("  its domain path: r2 (topology.example.com/rack) > node-2\n"),
        "{}",
        out.stdout
    );
}
