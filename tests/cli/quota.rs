//! End-to-end tests of the API server's namespace admission (LimitRange, ResourceQuota) of
//! planned pods, on testdata/clusters/quota.yaml and testdata/pods/quota.yaml (described in
//! testdata/README.md).

use crate::support::cli::run;

const STATE: &str = "testdata/clusters/quota.yaml";
const PODS: &str = "testdata/pods/quota.yaml";

/// In input order: small gets the LimitRange's defaults (250m, so the quota holds 1250m of 2
/// CPUs with the running api-0; the Succeeded job-0 counts for nothing); big's 1500m would pass
/// 2 CPUs; huge's 4-CPU limit is past the 2-CPU maximum; roomy's 1Gi request is above the
/// 512Mi default limit it gets (the pod fails validation); medium fits (1750m, and only its
/// limits are defaulted); extra would be the quota's fourth pod. Rejected pods are never
/// scheduled: exit 1, the reason in upstream's words.
///
/// The quota's arithmetic (requests.cpu 2, pods 3; api-0 uses 1 CPU and 1 pod, the Succeeded
/// job-0 nothing): small adds 250m, so 1250m and 2 pods; big's 1250m + 1500m = 2750m > 2, the
/// "used: requests.cpu=1250m"; huge's limit 4 > the maximum 2; roomy's 1Gi request > the
/// default limit 512Mi; medium's 1250m + 500m = 1750m <= 2, and 3 pods <= 3; extra's 3 + 1 =
/// 4 pods > 3, the "used: pods=3". Placed: small and medium, 2 of the 6. Both go to node-2,
/// where the Succeeded job-0 holds nothing and node-1 has api-0's 1 CPU (the scores in
/// `explain_placement_admits_like_plan`; medium's 500m leaves node-2 the emptier again).
#[test]
fn pods_the_api_server_rejects_are_not_placed() {
    let out = run(&["plan", "-f", PODS, "--state", STATE]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(out.stderr, "");
    assert_eq!(
        out.stdout,
        "\
Batch (6 pods, solver greedy): 2/6 pods placed
 POD          FROM        NODE       METHOD  NOTE
 team/small   Pod/small   node-2     greedy  LimitRange defaults: LimitRanger plugin set: cpu, memory request for container main; cpu, memory limit for container main
 team/big     Pod/big     <pending>  greedy  rejected at admission: pods \"big\" is forbidden: exceeded quota: compute, requested: requests.cpu=1500m, used: requests.cpu=1250m, limited: requests.cpu=2
 team/huge    Pod/huge    <pending>  greedy  rejected at admission: pods \"huge\" is forbidden: maximum cpu usage per Container is 2, but limit is 4
 team/roomy   Pod/roomy   <pending>  greedy  rejected at admission: Pod \"roomy\" is invalid: spec.containers[0].resources.requests: Invalid value: \"1Gi\": must be less than or equal to memory limit of 512Mi
 team/medium  Pod/medium  node-2     greedy  LimitRange defaults: LimitRanger plugin set: cpu, memory limit for container main
 team/extra   Pod/extra   <pending>  greedy  rejected at admission: pods \"extra\" is forbidden: exceeded quota: compute, requested: pods=1, used: pods=3, limited: pods=3
"
    );
}

/// A snapshot of a state keeps its ResourceQuotas and LimitRanges (and their binary cache
/// beside it too): planning against it admits the same pods.
#[test]
fn quotas_and_limit_ranges_are_read_from_the_state_and_kept_in_snapshots() {
    let dir = tempfile::tempdir().unwrap();
    let snapshot = dir.path().join("snapshot.json");
    let snapshot = snapshot.to_str().unwrap();
    let out = run(&[
        "snapshot",
        "--state",
        STATE,
        "-o",
        "json",
        "--output-file",
        snapshot,
    ]);
    assert_eq!((out.code, out.stderr.as_str()), (0, ""));
    let again = run(&["plan", "-f", PODS, "--state", snapshot]);
    let first = run(&["plan", "-f", PODS, "--state", STATE]);
    assert_eq!((again.stdout, again.stderr), (first.stdout, first.stderr));
}

/// Pods of flows and gangs pass the same admission, in one order (flows, gangs, the batch):
/// the DataProcess's 3-CPU limit is past the LimitRange's maximum, so its operation is blocked;
/// of the gang's three pods the quota admits one, so the gang waits for pods never created,
/// the quota named.
///
/// The quota: api-0 (1 CPU, 1 pod) and warm's defaulted 250m make 1250m and 2 pods; train-0's
/// 500m makes 1750m and 3 pods; train-1 and train-2 would make 4 pods > 3 and 2250m > 2, the
/// "used: pods=3,requests.cpu=1750m". The gang: 1 pod (train-0) exists of minMember 3, none
/// placed, 2 rejected (the "(and 1 more)" is train-2). warm's 495 is small's below: the same
/// LimitRange defaults (250m, 256Mi) on node-2.
#[test]
fn gangs_and_operations_are_admitted_too() {
    let out = run(&[
        "plan",
        "-f",
        "testdata/pods/quota-gang.yaml",
        "--state",
        STATE,
    ]);
    assert_eq!(out.code, 1, "{}", out.stderr);
    assert_eq!(out.stderr, "");
    let rejected = |pod: &str| {
        format!(
            "rejected at admission: pods \"{pod}\" is forbidden: exceeded quota: compute, requested: pods=1,requests.cpu=500m, used: pods=3,requests.cpu=1750m, limited: pods=3,requests.cpu=2"
        )
    };
    assert_eq!(
        out.stdout,
        format!(
            "\
Flow 1 (2 operations)
 STEP  OPERATION                AFTER               POLICY  INHERITED  NODE       ZONE    SCORE
 1     DataLoad/team/warm       -                   -       -          node-2     zone-b  495
 2     DataProcess/team/crunch  DataLoad/team/warm  -       -          <blocked>  -       -
Warnings:
  DataProcess/team/crunch: rejected at admission: pods \"crunch-processor\" is forbidden: maximum cpu usage per Container is 2, but limit is 3

PodGroup team/train (coscheduling, minMember 3): 0/1 pods placed: waiting for pods: 1 of minMember 3 exist; 2 {} (and 1 more)
Warnings:
  {}
  {}
",
            rejected("train-1"),
            rejected("train-1"),
            rejected("train-2")
        )
    );
}

/// `explain-placement -f` explains a pod of the inputs as admission leaves it: with the
/// LimitRange's defaults (said in its notes, and sized by them), or rejected, the quota named,
/// whether it is a batch pod or a gang's.
///
/// small's scores, sized by the defaults (250m CPU, 256Mi) on 8-CPU, 32Gi nodes, with the
/// default weights (TaintToleration 3, NodeResourcesFit and BalancedAllocation 1):
/// - node-2 (the Succeeded job-0 counts nothing): Fit CPU (8000-250)*100/8000 = 96, memory
///   (32768-256)*100/32768 = 99, (96+99)/2 = 97; Balanced: fractions 250/8000 = 0.03125 and
///   256/32768 = 0.0078, deviation 0.0117, 100*(1-0.0117) = 98; 3*100 + 97 + 98 = 495.
/// - node-1 (api-0's 1 CPU, 1Gi): Fit CPU (8000-1250)*100/8000 = 84, memory
///   (32768-1280)*100/32768 = 96, (84+96)/2 = 90; Balanced: 0.15625 and 0.0391, deviation
///   0.0586, 94; 300 + 90 + 94 = 484. node-2 leads by 11 = 7 (97-90) + 4 (98-94).
#[test]
fn explain_placement_admits_like_plan() {
    let small = run(&[
        "explain-placement",
        "-f",
        PODS,
        "pod/small",
        "--state",
        STATE,
    ]);
    assert_eq!((small.code, small.stderr.as_str()), (0, ""));
    assert_eq!(
        small.stdout,
        "\
Within a batch of 6 pods (Pod/small)
Notes:
  LimitRange defaults: LimitRanger plugin set: cpu, memory request for container main; cpu, memory limit for container main

Pod team/small would land on node node-2 (score 495).
2 of 2 nodes are feasible.
Why: it leads node-1 by 11: NodeResourcesFit +7, NodeResourcesBalancedAllocation +4.

 NODE    SCORE  TAINTS  NODE-AFF  SPREAD  POD-AFF  FIT  BALANCED  IMAGES
 node-2  495    100     0         0       0        97   98        0
 node-1  484    100     0         0       0        90   94        0
"
    );
    let gang = "testdata/pods/quota-gang.yaml";
    let rejected = run(&[
        "explain-placement",
        "-f",
        gang,
        "pod/train-2",
        "--state",
        STATE,
    ]);
    assert_eq!((rejected.code, rejected.stderr.as_str()), (1, ""));
    assert_eq!(
        rejected.stdout,
        "\
Within PodGroup team/train
Notes:
  the gang: 0/1 pods placed: waiting for pods: 1 of minMember 3 exist; 2 rejected at admission: pods \"train-1\" is forbidden: exceeded quota: compute, requested: pods=1,requests.cpu=500m, used: pods=3,requests.cpu=1750m, limited: pods=3,requests.cpu=2 (and 1 more)

Pod team/train-2 would stay Pending.

rejected at admission: pods \"train-2\" is forbidden: exceeded quota: compute, requested: pods=1,requests.cpu=500m, used: pods=3,requests.cpu=1750m, limited: pods=3,requests.cpu=2
"
    );
    let plan = run(&["plan", "-f", gang, "--state", STATE, "-o", "json"]);
    let plan: serde_json::Value = serde_json::from_str(&plan.stdout).unwrap();
    let group = &plan["groups"][0];
    assert_eq!(
        (
            &group["status"],
            &group["placements"],
            group["rejectedAtAdmission"]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>()
        ),
        (
            &serde_json::json!("WaitingForPods"),
            &serde_json::json!({"train-0": null}),
            vec![&"train-1".to_string(), &"train-2".to_string()]
        )
    );
}

/// New nodes do not change what the API server admits: `--how-many-nodes` stops after the
/// plan without new nodes and names the first rejection (an operation's, then a gang's, then a
/// batch pod's). Unplaced with no new nodes: big, huge, roomy and extra (4, the rejected batch
/// pods); for the gang file, the blocked DataProcess crunch and the gang's one pending pod
/// train-0 (2; its rejected pods were never created).
#[test]
fn the_node_count_search_stops_at_an_admission_rejection() {
    let out = run(&[
        "plan",
        "-f",
        PODS,
        "--state",
        STATE,
        "--how-many-nodes",
        "node-1",
    ]);
    assert_eq!((out.code, out.stderr.as_str()), (1, ""));
    assert_eq!(
        out.stdout,
        "\
Does not fit with any number of nodes like node-1 up to 1000: Pod/team/big: rejected at admission: pods \"big\" is forbidden: exceeded quota: compute, requested: requests.cpu=1500m, used: requests.cpu=1250m, limited: requests.cpu=2 (new nodes do not change what the API server admits)
 NODES  FITS  UNPLACED
 0      no    4
"
    );
    let gang = "testdata/pods/quota-gang.yaml";
    let (code, count) = crate::support::cli::run_json(&[
        "plan",
        "-f",
        gang,
        "--state",
        STATE,
        "--how-many-nodes",
        "node-1",
    ]);
    assert_eq!(code, 1);
    assert_eq!(
        count,
        serde_json::json!({
            "template": "node-1", "max": 1000, "nodes": null,
            "trials": [{"nodes": 0, "fits": false, "unplaced": 2}],
            "blockingReason": "DataProcess/team/crunch: rejected at admission: pods \"crunch-processor\" is forbidden: maximum cpu usage per Container is 2, but limit is 3 (new nodes do not change what the API server admits)"
        })
    );
}
