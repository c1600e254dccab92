//! Kueue's own tables (flavorassigner_test.go, scheduler_test.go, preemption_test.go) in our
//! data, through [`admit`]: the expected flavors, reasons and messages are upstream's, with
//! the numbers re-derived in each row's comment.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::assign::{PodSetShape, in_hash_order};
use super::*;
use df_model::Pod;

fn cq(name: &str, spec: Value) -> Value {
    json!({"metadata": {"name": name}, "spec": spec})
}

/// `(resource, nominal, borrowingLimit, lendingLimit)`.
type Quota<'a> = (&'a str, &'a str, Option<&'a str>, Option<&'a str>);

/// A resource group of `flavors`, each `(flavor, [quota])`.
fn rg(covered: &[&str], flavors: &[(&str, &[Quota])]) -> Value {
    json!({
        "coveredResources": covered,
        "flavors": flavors.iter().map(|(name, rs)| json!({
            "name": name,
            "resources": rs.iter().map(|(r, n, b, l)| {
                let mut q = json!({"name": r, "nominalQuota": n});
                if let Some(b) = b { q["borrowingLimit"] = json!(b); }
                if let Some(l) = l { q["lendingLimit"] = json!(l); }
                q
            }).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

fn flavor(name: &str, spec: Value) -> Value {
    json!({"metadata": {"name": name}, "spec": spec})
}

/// Kueue objects: flavors, ClusterQueues (namespaceSelector `{}` unless set), a LocalQueue
/// `<cq>` in namespace `ns` for each, cohorts and admitted workloads.
fn objects(flavors: Vec<Value>, queues: Vec<Value>, extra: Value) -> KueueObjects {
    let mut o = KueueObjects::default();
    for f in flavors {
        o.flavors.push(serde_json::from_value(f).unwrap());
    }
    for mut q in queues {
        if q["spec"].get("namespaceSelector").is_none() {
            q["spec"]["namespaceSelector"] = json!({});
        }
        let name = q["metadata"]["name"].as_str().unwrap().to_string();
        o.cluster_queues.push(serde_json::from_value(q).unwrap());
        o.local_queues.push(
            serde_json::from_value(json!({"metadata": {"name": name, "namespace": "ns"},
                "spec": {"clusterQueue": name}}))
            .unwrap(),
        );
    }
    for c in extra["cohorts"].as_array().into_iter().flatten() {
        o.cohorts.push(serde_json::from_value(c.clone()).unwrap());
    }
    for w in extra["workloads"].as_array().into_iter().flatten() {
        o.workloads.push(serde_json::from_value(w.clone()).unwrap());
    }
    o
}

/// An admitted Workload in `cq` holding `usage` as `(resource, flavor, quantity)`.
fn admitted_wl(name: &str, cq: &str, priority: i32, usage: &[(&str, &str, &str)]) -> Value {
    let flavors: BTreeMap<&str, &str> = usage.iter().map(|(r, f, _)| (*r, *f)).collect();
    let amounts: BTreeMap<&str, &str> = usage.iter().map(|(r, _, q)| (*r, *q)).collect();
    json!({
        "metadata": {"name": name, "namespace": "ns"},
        "spec": {"queueName": cq, "priority": priority},
        "status": {
            "admission": {"clusterQueue": cq, "podSetAssignments": [
                {"name": "main", "flavors": flavors, "resourceUsage": amounts}]},
            "conditions": [{"type": "QuotaReserved", "status": "True"}],
        },
    })
}

fn pod(spec: Value) -> Pod {
    serde_json::from_value(json!({"metadata": {}, "spec": spec})).unwrap()
}

/// A pod set of `count` pods of `per_pod` (`cpu` in millicores, the rest in units).
fn ps(name: &str, count: i32, per_pod: &[(&str, i64)], spec: Value) -> PodSetShape {
    PodSetShape {
        name: name.into(),
        count,
        min_count: None,
        per_pod: per_pod.iter().map(|(r, v)| (r.to_string(), *v)).collect(),
        pod: pod(spec),
        asks_topology: false,
    }
}

fn job(name: &str, queue: &str, priority: i32, pod_sets: Vec<PodSetShape>) -> Job {
    Job {
        kind: "Job".into(),
        namespace: "ns".into(),
        name: name.into(),
        uid: String::new(),
        queue: queue.into(),
        priority,
        created: String::new(),
        pod_sets,
    }
}

fn run(o: &KueueObjects, jobs: &[Job]) -> Vec<Decision> {
    admit(o, &|_| None, jobs)
}

fn flavors_of(d: &Decision) -> Vec<(String, String, String)> {
    d.pod_sets
        .iter()
        .flat_map(|ps| {
            ps.flavors
                .iter()
                .map(|(r, f)| (ps.name.clone(), r.clone(), f.clone()))
        })
        .collect()
}

const MI: i64 = 1024 * 1024;

fn labelled(name: &str, key: &str) -> Value {
    flavor(name, json!({"nodeLabels": {key: name}}))
}

fn tainted(name: &str) -> Value {
    flavor(
        name,
        json!({"nodeTaints": [{"key": "instance", "value": "spot", "effect": "NoSchedule"}]}),
    )
}

#[test]
fn resources_go_in_kueues_hash_order() {
    let names: Vec<String> = [
        "cpu",
        "gpu",
        "example.com/gpu",
        "pods",
        "nvidia.com/gpu",
        "memory",
        "ephemeral-storage",
    ]
    .map(String::from)
    .to_vec();
    let order: Vec<&str> = in_hash_order(&names)
        .into_iter()
        .map(|s| s.as_str())
        .collect();
    assert_eq!(
        order,
        [
            "ephemeral-storage",
            "memory",
            "nvidia.com/gpu",
            "pods",
            "example.com/gpu",
            "gpu",
            "cpu"
        ]
    );
}

/// F5: cpu 3 exceeds flavor one's 2, so cpu goes to two; memory takes b_one, its first flavor.
#[test]
fn f5_each_resource_group_takes_its_first_flavor_that_fits() {
    let o = objects(
        vec![
            labelled("one", "type"),
            labelled("two", "type"),
            labelled("b_one", "b_type"),
            labelled("b_two", "b_type"),
        ],
        vec![cq(
            "cq",
            json!({"resourceGroups": [
                rg(&["cpu"], &[("one", &[("cpu", "2", None, None)]), ("two", &[("cpu", "4", None, None)])]),
                rg(&["memory"], &[("b_one", &[("memory", "1Gi", None, None)]), ("b_two", &[("memory", "5Gi", None, None)])]),
            ]}),
        )],
        json!({}),
    );
    let d = &run(
        &o,
        &[job(
            "j",
            "cq",
            0,
            vec![ps(
                "main",
                1,
                &[("cpu", 3000), ("memory", 10 * MI)],
                json!({}),
            )],
        )],
    )[0];
    assert!(d.admitted, "{d:?}");
    assert_eq!(
        flavors_of(d),
        [
            ("main".into(), "cpu".into(), "two".into()),
            ("main".into(), "memory".into(), "b_one".into())
        ]
    );
}

/// F6: memory is iterated before cpu, its group fails on capacity 1Mi < 10Mi, and the cpu
/// group is never evaluated, so the message holds memory's reason alone.
#[test]
fn f6_the_first_failing_group_is_the_whole_message() {
    let o = objects(
        vec![labelled("one", "type"), labelled("b_one", "b_type")],
        vec![cq(
            "cq",
            json!({"resourceGroups": [
                rg(&["cpu"], &[("one", &[("cpu", "3", None, None)])]),
                rg(&["memory"], &[("b_one", &[("memory", "1Mi", None, None)])]),
            ]}),
        )],
        json!({}),
    );
    let d = &run(
        &o,
        &[job(
            "j",
            "cq",
            0,
            vec![ps(
                "main",
                1,
                &[("cpu", 3000), ("memory", 10 * MI)],
                json!({}),
            )],
        )],
    )[0];
    assert!(!d.admitted);
    assert_eq!(d.reason, "ExceedsMaxQuota");
    assert_eq!(
        d.message,
        "couldn't assign flavors to pod set main: insufficient quota for memory in flavor b_one, \
         previously considered podsets requests (0) + current podset request (10Mi) > maximum \
         capacity (1Mi)"
    );
}

/// F7: one group of two flavors: cpu 3 > 2 on one, memory 10Mi > 5Mi on two; reasons sorted.
#[test]
fn f7_reasons_of_every_flavor_are_sorted() {
    let o = objects(
        vec![labelled("one", "type"), labelled("two", "type")],
        vec![cq(
            "cq",
            json!({"resourceGroups": [rg(&["cpu", "memory"], &[
                ("one", &[("cpu", "2", None, None), ("memory", "1Gi", None, None)]),
                ("two", &[("cpu", "4", None, None), ("memory", "5Mi", None, None)]),
            ])]}),
        )],
        json!({}),
    );
    let d = &run(
        &o,
        &[job(
            "j",
            "cq",
            0,
            vec![ps(
                "main",
                1,
                &[("cpu", 3000), ("memory", 10 * MI)],
                json!({}),
            )],
        )],
    )[0];
    assert_eq!(
        d.message,
        "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor one, \
         previously considered podsets requests (0) + current podset request (3) > maximum \
         capacity (2), insufficient quota for memory in flavor two, previously considered \
         podsets requests (0) + current podset request (10Mi) > maximum capacity (5Mi)"
    );
    assert_eq!(d.reason, "ExceedsMaxQuota");
}

/// F8 and F14: an untolerated taint and a selector no flavor matches.
#[test]
fn f8_f14_taints_and_node_affinity_filter_flavors() {
    let o = objects(
        vec![
            tainted("tainted"),
            labelled("one", "type"),
            labelled("two", "type"),
        ],
        vec![
            cq(
                "a",
                json!({"resourceGroups": [rg(&["cpu"], &[("tainted", &[("cpu", "4", None, None)]), ("two", &[("cpu", "4", None, None)])])]}),
            ),
            cq(
                "b",
                json!({"resourceGroups": [rg(&["cpu"], &[("one", &[("cpu", "4", None, None)]), ("two", &[("cpu", "4", None, None)])])]}),
            ),
        ],
        json!({}),
    );
    let affinity = json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution":
        {"nodeSelectorTerms": [{"matchExpressions": [{"key": "type", "operator": "In", "values": ["three"]}]}]}}}});
    let d = run(
        &o,
        &[
            job(
                "f8",
                "a",
                0,
                vec![ps("main", 1, &[("cpu", 3000)], json!({}))],
            ),
            job(
                "f14",
                "b",
                0,
                vec![ps("main", 1, &[("cpu", 1000)], affinity)],
            ),
        ],
    );
    assert_eq!(
        flavors_of(&d[0]),
        [("main".into(), "cpu".into(), "two".into())]
    );
    assert!(!d[1].admitted);
    assert_eq!(d[1].reason, "NoMatchingFlavor");
    assert_eq!(
        d[1].message,
        "couldn't assign flavors to pod set main: flavor one doesn't match node affinity, flavor \
         two doesn't match node affinity"
    );
}

/// F23: a resource no group covers.
#[test]
fn f23_an_uncovered_resource_is_unavailable() {
    let o = objects(
        vec![flavor("default", json!({}))],
        vec![cq(
            "cq",
            json!({"resourceGroups": [rg(&["cpu"], &[("default", &[("cpu", "4", None, None)])])]}),
        )],
        json!({}),
    );
    let d = &run(
        &o,
        &[job(
            "j",
            "cq",
            0,
            vec![ps("main", 1, &[("example.com/gpu", 2)], json!({}))],
        )],
    )[0];
    assert_eq!(
        d.message,
        "couldn't assign flavors to pod set main: resource example.com/gpu unavailable in ClusterQueue"
    );
    assert_eq!(d.reason, "NoMatchingFlavor");
}

/// F26: a group covering `pods` counts the pods: 3 > 2.
#[test]
fn f26_covered_pods_count() {
    let o = objects(
        vec![flavor("default", json!({}))],
        vec![cq(
            "cq",
            json!({"resourceGroups": [rg(&["pods", "cpu"], &[("default", &[("pods", "2", None, None), ("cpu", "10", None, None)])])]}),
        )],
        json!({}),
    );
    let d = &run(
        &o,
        &[job(
            "j",
            "cq",
            0,
            vec![ps("main", 3, &[("cpu", 1000)], json!({}))],
        )],
    )[0];
    assert_eq!(
        d.message,
        "couldn't assign flavors to pod set main: insufficient quota for pods in flavor default, \
         previously considered podsets requests (0) + current podset request (3) > maximum capacity (2)"
    );
}

/// F29: cpu 9 on one (10, 2 used) needs preemption; the default whenCanPreempt
/// (TryNextFlavor) goes on to two, where it fits.
#[test]
fn f29_default_fungibility_prefers_a_fit_over_preemption() {
    let o = objects(
        vec![labelled("one", "type"), labelled("two", "type")],
        vec![cq(
            "cq",
            json!({"resourceGroups": [rg(&["cpu"], &[("one", &[("cpu", "10", None, None)]), ("two", &[("cpu", "10", None, None)])])]}),
        )],
        json!({"workloads": [admitted_wl("old", "cq", 0, &[("cpu", "one", "2")])]}),
    );
    let d = &run(
        &o,
        &[job(
            "j",
            "cq",
            0,
            vec![ps("main", 1, &[("cpu", 9000)], json!({}))],
        )],
    )[0];
    assert_eq!(flavors_of(d), [("main".into(), "cpu".into(), "two".into())]);
}

/// The scheduler tables' ClusterQueues (scheduler_test.go), namespaceSelector `{}`.
fn scheduler_fixture(workloads: Value) -> KueueObjects {
    objects(
        vec![
            flavor("default", json!({})),
            flavor("on-demand", json!({})),
            flavor("spot", json!({})),
            flavor("model-a", json!({})),
        ],
        vec![
            cq(
                "sales",
                json!({"queueingStrategy": "StrictFIFO", "resourceGroups": [rg(&["cpu"], &[("default", &[("cpu", "50", None, None)])])]}),
            ),
            cq(
                "eng-alpha",
                json!({"cohort": "eng", "queueingStrategy": "StrictFIFO", "resourceGroups": [rg(&["cpu"], &[
                ("on-demand", &[("cpu", "50", Some("50"), None)]), ("spot", &[("cpu", "100", Some("0"), None)])])]}),
            ),
            cq(
                "eng-beta",
                json!({"cohortName": "eng", "queueingStrategy": "StrictFIFO",
                "preemption": {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
                "resourceGroups": [
                    rg(&["cpu"], &[("on-demand", &[("cpu", "50", Some("10"), None)]), ("spot", &[("cpu", "0", Some("100"), None)])]),
                    rg(&["example.com/gpu"], &[("model-a", &[("example.com/gpu", "20", Some("0"), None)])]),
                ]}),
            ),
        ],
        json!({"workloads": workloads}),
    )
}

/// S1: sales holds 40 of 50; 11 more is 1 too many, and sales has no cohort to preempt in:
/// nominal 50 ≥ 51 fails, so no oracle, NoFit with "1 more needed".
#[test]
fn s1_no_room_left_is_waiting_for_quota() {
    let o = scheduler_fixture(json!([admitted_wl(
        "assigned",
        "sales",
        0,
        &[("cpu", "default", "40")]
    )]));
    let d = &run(
        &o,
        &[job(
            "new",
            "sales",
            0,
            vec![ps("one", 11, &[("cpu", 1000)], json!({}))],
        )],
    )[0];
    assert!(!d.admitted);
    assert_eq!(d.reason, "WaitingForQuota");
    assert_eq!(
        d.message,
        "couldn't assign flavors to pod set one: insufficient unused quota for cpu in flavor default, 1 more needed"
    );
}

/// S3 and S5: eng-alpha borrows 1 (51 > 50). In S5's first cycle 45 + 56 = 101 > 100 on
/// on-demand and the borrowing entry goes second, so eng-beta no longer fits (upstream's
/// one-cycle answer); the next cycle finds on-demand short by 1 (nominal 50 < 56: no fit) and
/// admits it on spot, where eng-alpha lends its 100 (borrowingLimit 100 for eng-beta).
#[test]
fn s3_s5_borrowing_entries_go_last_in_a_cycle() {
    let o = scheduler_fixture(json!([]));
    let d = run(
        &o,
        &[job(
            "a",
            "eng-alpha",
            0,
            vec![ps("one", 51, &[("cpu", 1000)], json!({}))],
        )],
    );
    assert!(d[0].admitted && d[0].borrowing);
    let d = run(
        &o,
        &[
            job(
                "a",
                "eng-alpha",
                0,
                vec![ps("one", 45, &[("cpu", 1000)], json!({}))],
            ),
            job(
                "b",
                "eng-beta",
                0,
                vec![ps("one", 56, &[("cpu", 1000)], json!({}))],
            ),
        ],
    );
    assert!(d[0].admitted);
    assert_eq!(
        flavors_of(&d[1]),
        [("one".into(), "cpu".into(), "spot".into())]
    );
    assert!(d[1].borrowing);
}

/// S9: eng-beta needs 20 on on-demand (50 nominal, 40 used, the cohort full at 100): the
/// borrower (eng-alpha over its nominal with 60) is reclaimed, then low-2 (prio -2) in the
/// queue; low-1 survives. Once they are gone the preemptor is admitted.
#[test]
fn s9_reclaim_and_preemption_name_their_victims() {
    let o = scheduler_fixture(json!([
        admitted_wl("use-all-spot", "eng-alpha", 0, &[("cpu", "spot", "100")]),
        admitted_wl("low-1", "eng-beta", -1, &[("cpu", "on-demand", "30")]),
        admitted_wl("low-2", "eng-beta", -2, &[("cpu", "on-demand", "10")]),
        admitted_wl("borrower", "eng-alpha", 0, &[("cpu", "on-demand", "60")]),
    ]));
    let mut j = job(
        "preemptor",
        "eng-beta",
        0,
        vec![ps("main", 1, &[("cpu", 20000)], json!({}))],
    );
    j.uid = "wl-preemptor".into();
    let d = &run(&o, &[j])[0];
    assert!(d.admitted, "{d:?}");
    let victims: Vec<(&str, &str)> = d
        .victims
        .iter()
        .map(|v| (v.name.as_str(), v.reason.as_str()))
        .collect();
    assert_eq!(
        victims,
        [
            ("borrower", "InCohortReclamation"),
            ("low-2", "InClusterQueue")
        ]
    );
    assert_eq!(
        d.victims[0].message,
        "Preempted to accommodate a workload (UID: wl-preemptor, JobUID: wl-preemptor) due to \
         reclamation within the cohort; preemptor path: /eng/eng-beta; preemptee path: /eng/eng-alpha"
    );
}

/// S14 and S15: partial admission finds the largest counts that fit: 2 cpu × 25 = 50; and
/// over three pod sets (20 fixed, 30 min 10, 15 min 5) in 50 cpu: 20 / 20 / 10.
#[test]
fn s14_s15_partial_admission_admits_the_largest_counts_that_fit() {
    let o = scheduler_fixture(json!([]));
    let mut one = ps("one", 50, &[("cpu", 2000)], json!({}));
    one.min_count = Some(20);
    let d = &run(&o, &[job("new", "sales", 0, vec![one])])[0];
    assert!(d.admitted);
    assert_eq!(d.pod_sets[0].count, 25);
    let mut two = ps("two", 30, &[("cpu", 1000)], json!({}));
    two.min_count = Some(10);
    let mut three = ps("three", 15, &[("cpu", 1000)], json!({}));
    three.min_count = Some(5);
    let sets = vec![ps("one", 20, &[("cpu", 1000)], json!({})), two, three];
    let d = &run(&o, &[job("new", "sales", 0, sets)])[0];
    let counts: Vec<i32> = d.pod_sets.iter().map(|p| p.count).collect();
    assert_eq!(counts, [20, 20, 10]);
}

/// S17: full-size preemption wins over partial admission: old (prio -4) is evicted and the
/// whole 20 are admitted after it.
#[test]
fn s17_full_size_preemption_comes_before_partial_admission() {
    let o = scheduler_fixture(json!([admitted_wl(
        "old",
        "eng-beta",
        -4,
        &[("example.com/gpu", "model-a", "10")]
    )]));
    let mut one = ps("one", 20, &[("example.com/gpu", 1)], json!({}));
    one.min_count = Some(10);
    let d = &run(&o, &[job("new", "eng-beta", 4, vec![one])])[0];
    assert!(d.admitted);
    assert_eq!(d.pod_sets[0].count, 20);
    assert_eq!(d.victims[0].name, "old");
    assert_eq!(d.victims[0].reason, "InClusterQueue");
}

/// S2 and the queue chain: a selector that leaves the namespace out, a missing LocalQueue, and
/// a ClusterQueue without namespaceSelector (it matches no namespace).
#[test]
fn s2_queue_chain_and_namespace_selector_messages() {
    let mut o = scheduler_fixture(json!([]));
    o.cluster_queues[0].spec.namespace_selector = None;
    let d = run(
        &o,
        &[
            job(
                "a",
                "sales",
                0,
                vec![ps("main", 1, &[("cpu", 1000)], json!({}))],
            ),
            job(
                "b",
                "nowhere",
                0,
                vec![ps("main", 1, &[("cpu", 1000)], json!({}))],
            ),
        ],
    );
    assert_eq!(
        d[0].message,
        "workload namespace doesn't match ClusterQueue selector"
    );
    assert_eq!(d[0].reason, "Misconfigured");
    assert_eq!(d[1].message, "LocalQueue nowhere doesn't exist");
}

/// StrictFIFO: a high-priority head that does not fit blocks a small job behind it; with
/// BestEffortFIFO the small one is admitted.
#[test]
fn strict_fifo_heads_block_their_queue() {
    let mut o = scheduler_fixture(json!([]));
    let jobs = [
        job(
            "big",
            "sales",
            5,
            vec![ps("main", 1, &[("cpu", 60000)], json!({}))],
        ),
        job(
            "small",
            "sales",
            0,
            vec![ps("main", 1, &[("cpu", 1000)], json!({}))],
        ),
    ];
    let d = run(&o, &jobs);
    assert!(!d[0].admitted && !d[1].admitted);
    assert_eq!(
        d[1].message,
        "waiting in ClusterQueue sales behind its StrictFIFO head"
    );
    o.cluster_queues[0].spec.queueing_strategy = Some("BestEffortFIFO".into());
    let d = run(&o, &jobs);
    assert!(!d[0].admitted && d[1].admitted);
}

/// P6: low (-1, 1 cpu) and mid (0, 2 cpu) are removed to fit 2 cpu in 6 (6 used), then low is
/// given back: only mid is preempted.
#[test]
fn p6_fill_back_returns_victims_not_needed() {
    let o = objects(
        vec![flavor("default", json!({}))],
        vec![cq(
            "standalone",
            json!({"preemption": {"withinClusterQueue": "LowerPriority"},
            "resourceGroups": [rg(&["cpu"], &[("default", &[("cpu", "6", None, None)])])]}),
        )],
        json!({"workloads": [
            admitted_wl("low", "standalone", -1, &[("cpu", "default", "1")]),
            admitted_wl("mid", "standalone", 0, &[("cpu", "default", "2")]),
            admitted_wl("high", "standalone", 1, &[("cpu", "default", "3")]),
        ]}),
    );
    let d = &run(
        &o,
        &[job(
            "in",
            "standalone",
            1,
            vec![ps("main", 1, &[("cpu", 2000)], json!({}))],
        )],
    )[0];
    let victims: Vec<&str> = d.victims.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(victims, ["mid"]);
    assert!(d.admitted);
}

/// H1/H2: hierarchical cohorts: the borrowing level is the height of the cohort whose quota
/// is used, and the first borrowing fit stops the search (whenCanBorrow MayStopSearch).
#[test]
fn h2_hierarchical_cohorts_lend_down_the_tree() {
    let cohort = |name: &str, parent: Option<&str>, f: &str| {
        let mut c = json!({"metadata": {"name": name}, "spec": {"resourceGroups": [
            rg(&["cpu"], &[(f, &[("cpu", "4", None, None)])])]}});
        if let Some(p) = parent {
            c["spec"]["parentName"] = json!(p);
        }
        c
    };
    let zero = |f| (f, &[("cpu", "0", None, None)][..]);
    let o = objects(
        vec![
            flavor("one", json!({})),
            flavor("two", json!({})),
            flavor("three", json!({})),
        ],
        vec![cq(
            "test",
            json!({"cohortName": "one", "resourceGroups": [rg(&["cpu"], &[zero("one"), zero("two"), zero("three")])]}),
        )],
        json!({"cohorts": [cohort("three", None, "three"), cohort("two", Some("three"), "two"), cohort("one", Some("two"), "one")],
            "workloads": [admitted_wl("w", "test", 0, &[("cpu", "one", "4")])]}),
    );
    let d = &run(
        &o,
        &[job(
            "j",
            "test",
            0,
            vec![ps("main", 1, &[("cpu", 4000)], json!({}))],
        )],
    )[0];
    assert_eq!(flavors_of(d), [("main".into(), "cpu".into(), "two".into())]);
    assert!(d.borrowing);
}
