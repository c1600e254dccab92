//! Kueue's own tables (`pkg/scheduler/flavorassigner/flavorassigner_test.go`,
//! `pkg/scheduler/scheduler_test.go`, `pkg/scheduler/preemption/preemption_test.go`) in our
//! data, through `plan`: each row is a state of Kueue objects (ResourceFlavors, ClusterQueues
//! with a LocalQueue `ns/<cq>` each, Cohorts, admitted Workloads) and batch Jobs labelled with
//! their queue, and asserts the `admission` the plan's JSON gives each Job. The flavors,
//! reasons and messages are upstream's; each row's comment re-derives its numbers.
//!
//! A batch Job is one pod set, `main` (Kueue's job integration), so upstream's pod-set names
//! read `main` here. Upstream's rows of several pod sets with minimum counts have no job kind
//! behind them (only a batch Job admits partially); they are state Workloads Kueue has not
//! admitted yet, which `plan --pending` decides.

use serde_json::{Value, json};

use crate::support::cli::bin;

const KUEUE: &str = "kueue.x-k8s.io/v1beta2";
const MI: &str = "Mi";

fn flavor(name: &str, spec: Value) -> Value {
    json!({"apiVersion": KUEUE, "kind": "ResourceFlavor", "metadata": {"name": name}, "spec": spec})
}

/// A flavor whose nodes carry `key: <name>`.
fn labelled(name: &str, key: &str) -> Value {
    flavor(name, json!({"nodeLabels": {key: name}}))
}

/// A flavor whose nodes carry a `NoSchedule` taint the pods do not tolerate.
fn tainted(name: &str) -> Value {
    flavor(
        name,
        json!({"nodeTaints": [{"key": "instance", "value": "spot", "effect": "NoSchedule"}]}),
    )
}

/// `(resource, nominal, borrowingLimit)`.
type Quota<'a> = (&'a str, &'a str, Option<&'a str>);

/// A resource group of `flavors`, each `(flavor, [quota])`.
fn rg(covered: &[&str], flavors: &[(&str, &[Quota])]) -> Value {
    json!({
        "coveredResources": covered,
        "flavors": flavors.iter().map(|(name, quotas)| json!({
            "name": name,
            "resources": quotas.iter().map(|(r, nominal, borrowing)| {
                let mut q = json!({"name": r, "nominalQuota": nominal});
                if let Some(b) = borrowing { q["borrowingLimit"] = json!(b); }
                q
            }).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

/// A ClusterQueue (namespaceSelector `{}` unless `spec` says otherwise; `null` drops it) and
/// its LocalQueue `ns/<name>`.
fn cq(name: &str, mut spec: Value) -> [Value; 2] {
    match spec.get("namespaceSelector") {
        None => spec["namespaceSelector"] = json!({}),
        Some(Value::Null) => {
            spec.as_object_mut().unwrap().remove("namespaceSelector");
        }
        Some(_) => {}
    }
    [
        json!({"apiVersion": KUEUE, "kind": "ClusterQueue", "metadata": {"name": name},
            "spec": spec}),
        json!({"apiVersion": KUEUE, "kind": "LocalQueue",
            "metadata": {"name": name, "namespace": "ns"}, "spec": {"clusterQueue": name}}),
    ]
}

fn cohort(name: &str, parent: Option<&str>, quota: &[Value]) -> Value {
    let mut spec = json!({"resourceGroups": quota});
    if let Some(parent) = parent {
        spec["parentName"] = json!(parent);
    }
    json!({"apiVersion": KUEUE, "kind": "Cohort", "metadata": {"name": name}, "spec": spec})
}

/// A Workload of `cq` Kueue admitted, of priority `priority`, holding `usage` as
/// `(resource, flavor, quantity)`.
fn admitted(name: &str, cq: &str, priority: i32, usage: &[(&str, &str, &str)]) -> Value {
    let flavors: serde_json::Map<String, Value> = usage
        .iter()
        .map(|(r, f, _)| (r.to_string(), json!(f)))
        .collect();
    let amounts: serde_json::Map<String, Value> = usage
        .iter()
        .map(|(r, _, q)| (r.to_string(), json!(q)))
        .collect();
    json!({
        "apiVersion": KUEUE, "kind": "Workload",
        "metadata": {"name": name, "namespace": "ns"},
        "spec": {"queueName": cq, "priority": priority},
        "status": {
            "admission": {"clusterQueue": cq, "podSetAssignments": [
                {"name": "main", "count": 1, "flavors": flavors, "resourceUsage": amounts}]},
            "conditions": [{"type": "QuotaReserved", "status": "True"},
                {"type": "Admitted", "status": "True"}],
        },
    })
}

/// A suspended batch Job of `queue`: `count` pods, each requesting `requests`, with `pod`'s
/// fields merged into their spec.
struct Job {
    name: &'static str,
    queue: &'static str,
    count: i32,
    requests: Value,
    pod: Value,
    /// Its WorkloadPriorityClass's value (a class `p<value>` is added to the state).
    priority: Option<i32>,
    /// `kueue.x-k8s.io/job-min-parallelism`.
    min_parallelism: Option<i32>,
}

fn job(name: &'static str, queue: &'static str, count: i32, requests: Value) -> Job {
    Job {
        name,
        queue,
        count,
        requests,
        pod: json!({}),
        priority: None,
        min_parallelism: None,
    }
}

impl Job {
    fn priority(mut self, value: i32) -> Job {
        self.priority = Some(value);
        self
    }

    fn min_parallelism(mut self, min: i32) -> Job {
        self.min_parallelism = Some(min);
        self
    }

    fn pod(mut self, fields: Value) -> Job {
        self.pod = fields;
        self
    }

    /// The manifest; `index` orders creation, so equal priorities keep the row's order.
    fn manifest(&self, index: usize) -> Value {
        let mut labels = json!({"kueue.x-k8s.io/queue-name": self.queue});
        if let Some(p) = self.priority {
            labels["kueue.x-k8s.io/priority-class"] = json!(format!("p{p}"));
        }
        let mut meta = json!({"name": self.name, "namespace": "ns", "labels": labels,
            "creationTimestamp": format!("2026-01-01T00:00:{index:02}Z")});
        if let Some(min) = self.min_parallelism {
            meta["annotations"] = json!({"kueue.x-k8s.io/job-min-parallelism": min.to_string()});
        }
        let mut pod = json!({"restartPolicy": "Never", "containers": [
            {"name": "c", "image": "busybox", "resources": {"requests": self.requests}}]});
        for (k, v) in self.pod.as_object().unwrap() {
            pod[k] = v.clone();
        }
        json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": meta,
            "spec": {"parallelism": self.count, "completions": self.count, "suspend": true,
                "template": {"spec": pod}}})
    }
}

fn list(items: Vec<Value>) -> Value {
    json!({"apiVersion": "v1", "kind": "List", "items": items})
}

/// The state: one large unlabelled node (admission is on quota; where the admitted pods land
/// is not what these rows test), the namespace `ns`, the Kueue objects and a
/// WorkloadPriorityClass for each priority the jobs name.
fn state(kueue: Vec<Value>, jobs: &[Job]) -> Value {
    let mut items = vec![
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1",
            "labels": {"kubernetes.io/hostname": "n1"}},
            "status": {"allocatable": {"cpu": "1000", "memory": "1Ti", "pods": "1000",
                "example.com/gpu": "100"}}}),
        json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "ns"}}),
    ];
    items.extend(kueue);
    let mut priorities: Vec<i32> = jobs.iter().filter_map(|j| j.priority).collect();
    priorities.sort_unstable();
    priorities.dedup();
    items.extend(priorities.into_iter().map(|p| {
        json!({"apiVersion": KUEUE, "kind": "WorkloadPriorityClass",
            "metadata": {"name": format!("p{p}")}, "value": p})
    }));
    list(items)
}

/// `plan -o json` of `jobs` against `kueue`: each Job's admission, in input order.
fn admissions(kueue: Vec<Value>, jobs: &[Job]) -> Vec<Value> {
    let dir = tempfile::tempdir().unwrap();
    let state_file = dir.path().join("state.json");
    let jobs_file = dir.path().join("jobs.json");
    std::fs::write(&state_file, state(kueue, jobs).to_string()).unwrap();
    let manifests = jobs
        .iter()
        .enumerate()
        .map(|(i, j)| j.manifest(i))
        .collect();
    std::fs::write(&jobs_file, list(manifests).to_string()).unwrap();
    let run = bin(["plan", "-o", "json", "-f"])
        .arg(&jobs_file)
        .arg("--state")
        .arg(&state_file)
        .run();
    assert!(run.code < 2, "{}", run.stderr);
    let plan: Value = serde_json::from_str(&run.stdout).expect("JSON output");
    let groups = plan["groups"].as_array().unwrap();
    assert_eq!(groups.len(), jobs.len());
    jobs.iter()
        .map(|j| {
            let group = groups.iter().find(|g| g["name"] == j.name).unwrap();
            group["admission"].clone()
        })
        .collect()
}

/// A pod set Kueue admits: its name, count and `(resource, flavor)`s.
type PodSet<'a> = (&'a str, i32, &'a [(&'a str, &'a str)]);

/// The admission of a job Kueue admits, with its victims as `(name, reason)`.
fn admitted_as(cq: &str, pod_sets: &[PodSet], borrowing: bool, victims: &[(&str, &str)]) -> Value {
    json!({
        "admitted": true, "localQueue": cq, "clusterQueue": cq,
        "podSets": pod_sets.iter().map(|(name, count, flavors)| json!({
            "name": name, "count": count,
            "flavors": flavors.iter().map(|(r, f)| (r.to_string(), json!(f)))
                .collect::<serde_json::Map<_, _>>(),
        })).collect::<Vec<_>>(),
        "reason": "QuotaReserved", "message": format!("Quota reserved in ClusterQueue {cq}"),
        "borrowing": borrowing,
        "victims": victims.iter().map(|(name, reason)| json!({"name": name, "reason": reason}))
            .collect::<Vec<_>>(),
    })
}

/// An admission with each victim's message dropped (rows assert it apart) and namespace
/// (always `ns`).
fn without_victim_messages(mut admission: Value) -> Value {
    for v in admission["victims"].as_array_mut().into_iter().flatten() {
        let v = v.as_object_mut().unwrap();
        assert_eq!(v.remove("namespace"), Some(json!("ns")));
        v.remove("message");
    }
    admission
}

/// `(reason, message)` of a job Kueue does not admit.
fn refusal(admission: &Value) -> (bool, &str, &str) {
    (
        admission["admitted"].as_bool().unwrap(),
        admission["reason"].as_str().unwrap(),
        admission["message"].as_str().unwrap(),
    )
}

fn one_group(kueue: Vec<Value>, job: Job) -> Value {
    let mut all = admissions(kueue, &[job]);
    assert_eq!(all.len(), 1);
    all.remove(0)
}

fn cpu_mem(cpu: &str, memory_mi: u32) -> Value {
    json!({"cpu": cpu, "memory": format!("{memory_mi}{MI}")})
}

/// F5: the two resource groups are assigned apart. cpu 3 exceeds flavor one's 2, so cpu goes
/// to two; memory 10Mi fits b_one's 1Gi, its first flavor.
#[test]
fn f5_each_resource_group_takes_its_first_flavor_that_fits() {
    let kueue = [
        vec![
            labelled("one", "type"),
            labelled("two", "type"),
            labelled("b_one", "b_type"),
            labelled("b_two", "b_type"),
        ],
        cq(
            "cq",
            json!({"resourceGroups": [
                rg(&["cpu"], &[("one", &[("cpu", "2", None)]), ("two", &[("cpu", "4", None)])]),
                rg(&["memory"], &[("b_one", &[("memory", "1Gi", None)]),
                    ("b_two", &[("memory", "5Gi", None)])]),
            ]}),
        )
        .to_vec(),
    ]
    .concat();
    let admission = one_group(kueue, job("j", "cq", 1, cpu_mem("3", 10)));
    assert_eq!(
        without_victim_messages(admission),
        admitted_as(
            "cq",
            &[("main", 1, &[("cpu", "two"), ("memory", "b_one")])],
            false,
            &[]
        )
    );
}

/// F6, F7, F23 and F26: what a job no flavor holds is told, each row in upstream's words.
#[test]
fn f6_f7_f23_f26_a_job_no_flavor_holds_gets_the_assigners_reasons() {
    let labelled_pair = |a: &str, b: &str| vec![labelled(a, "type"), labelled(b, "b_type")];
    let rows: Vec<(&str, Vec<Value>, Job, &str, &str)> = vec![
        (
            // F6: memory comes before cpu in Kueue's resource order; its group fails (10Mi >
            // 1Mi) and the cpu group is never tried, so its reason is the whole message.
            "F6",
            [
                labelled_pair("one", "b_one"),
                cq(
                    "cq",
                    json!({"resourceGroups": [
                        rg(&["cpu"], &[("one", &[("cpu", "3", None)])]),
                        rg(&["memory"], &[("b_one", &[("memory", "1Mi", None)])]),
                    ]}),
                )
                .to_vec(),
            ]
            .concat(),
            job("j", "cq", 1, cpu_mem("3", 10)),
            "ExceedsMaxQuota",
            "couldn't assign flavors to pod set main: insufficient quota for memory in flavor \
             b_one, previously considered podsets requests (0) + current podset request (10Mi) \
             > maximum capacity (1Mi)",
        ),
        (
            // F7: one group, two flavors: cpu 3 > 2 on one, memory 10Mi > 5Mi on two; the
            // reasons of both flavors, sorted.
            "F7",
            [
                vec![labelled("one", "type"), labelled("two", "type")],
                cq(
                    "cq",
                    json!({"resourceGroups": [rg(&["cpu", "memory"], &[
                        ("one", &[("cpu", "2", None), ("memory", "1Gi", None)]),
                        ("two", &[("cpu", "4", None), ("memory", "5Mi", None)]),
                    ])]}),
                )
                .to_vec(),
            ]
            .concat(),
            job("j", "cq", 1, cpu_mem("3", 10)),
            "ExceedsMaxQuota",
            "couldn't assign flavors to pod set main: insufficient quota for cpu in flavor one, \
             previously considered podsets requests (0) + current podset request (3) > maximum \
             capacity (2), insufficient quota for memory in flavor two, previously considered \
             podsets requests (0) + current podset request (10Mi) > maximum capacity (5Mi)",
        ),
        (
            // F23: no resource group covers example.com/gpu.
            "F23",
            [
                vec![flavor("default", json!({}))],
                cq(
                    "cq",
                    json!({"resourceGroups": [rg(&["cpu"], &[("default", &[("cpu", "4", None)])])]}),
                )
                .to_vec(),
            ]
            .concat(),
            job("j", "cq", 1, json!({"example.com/gpu": "2"})),
            "NoMatchingFlavor",
            "couldn't assign flavors to pod set main: resource example.com/gpu unavailable in \
             ClusterQueue",
        ),
        (
            // F26: a group covering `pods` counts them: 3 pods > 2.
            "F26",
            [
                vec![flavor("default", json!({}))],
                cq(
                    "cq",
                    json!({"resourceGroups": [rg(&["pods", "cpu"], &[("default",
                        &[("pods", "2", None), ("cpu", "10", None)])])]}),
                )
                .to_vec(),
            ]
            .concat(),
            job("j", "cq", 3, json!({"cpu": "1"})),
            "ExceedsMaxQuota",
            "couldn't assign flavors to pod set main: insufficient quota for pods in flavor \
             default, previously considered podsets requests (0) + current podset request (3) > \
             maximum capacity (2)",
        ),
    ];
    for (row, kueue, job, reason, message) in rows {
        let admission = one_group(kueue, job);
        assert_eq!(refusal(&admission), (false, reason, message), "{row}");
    }
}

/// F8 and F14: an untolerated taint passes the flavor over (3 cpu go to two), and a required
/// node affinity no flavor's labels match leaves no flavor.
#[test]
fn f8_f14_taints_and_node_affinity_filter_flavors() {
    let kueue = [
        vec![
            tainted("tainted"),
            labelled("one", "type"),
            labelled("two", "type"),
        ],
        cq(
            "a",
            json!({"resourceGroups": [rg(&["cpu"], &[("tainted", &[("cpu", "4", None)]),
                ("two", &[("cpu", "4", None)])])]}),
        )
        .to_vec(),
        cq(
            "b",
            json!({"resourceGroups": [rg(&["cpu"], &[("one", &[("cpu", "4", None)]),
                ("two", &[("cpu", "4", None)])])]}),
        )
        .to_vec(),
    ]
    .concat();
    let affinity = json!({"affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "type", "operator": "In", "values": ["three"]}]}]}}}});
    let jobs = [
        job("f8", "a", 1, json!({"cpu": "3"})),
        job("f14", "b", 1, json!({"cpu": "1"})).pod(affinity),
    ];
    let got = admissions(kueue, &jobs);
    assert_eq!(
        without_victim_messages(got[0].clone()),
        admitted_as("a", &[("main", 1, &[("cpu", "two")])], false, &[])
    );
    assert_eq!(
        refusal(&got[1]),
        (
            false,
            "NoMatchingFlavor",
            "couldn't assign flavors to pod set main: flavor one doesn't match node affinity, \
             flavor two doesn't match node affinity"
        )
    );
}

/// F29: 9 cpu on one (10 nominal, 2 held) would need preemption; the default whenCanPreempt
/// (TryNextFlavor) goes on to two, where 9 ≤ 10 fits.
#[test]
fn f29_default_fungibility_prefers_a_fit_over_preemption() {
    let kueue = [
        vec![
            labelled("one", "type"),
            labelled("two", "type"),
            admitted("old", "cq", 0, &[("cpu", "one", "2")]),
        ],
        cq(
            "cq",
            json!({"resourceGroups": [rg(&["cpu"], &[("one", &[("cpu", "10", None)]),
                ("two", &[("cpu", "10", None)])])]}),
        )
        .to_vec(),
    ]
    .concat();
    let admission = one_group(kueue, job("j", "cq", 1, json!({"cpu": "9"})));
    assert_eq!(
        without_victim_messages(admission),
        admitted_as("cq", &[("main", 1, &[("cpu", "two")])], false, &[])
    );
}

/// The scheduler tables' ClusterQueues (scheduler_test.go): sales (StrictFIFO, 50 cpu on
/// default, no cohort); eng-alpha and eng-beta in cohort eng (on-demand 50 each; spot 100 on
/// alpha, 0 on beta with borrowingLimit 100; beta also has 20 example.com/gpu on model-a and
/// preempts lower priorities and reclaims in the cohort); and `workloads`.
fn scheduler_fixture(workloads: Vec<Value>) -> Vec<Value> {
    [
        vec![
            flavor("default", json!({})),
            flavor("on-demand", json!({})),
            flavor("spot", json!({})),
            flavor("model-a", json!({})),
        ],
        cq(
            "sales",
            json!({"queueingStrategy": "StrictFIFO",
                "resourceGroups": [rg(&["cpu"], &[("default", &[("cpu", "50", None)])])]}),
        )
        .to_vec(),
        cq(
            "eng-alpha",
            json!({"cohort": "eng", "queueingStrategy": "StrictFIFO", "resourceGroups": [
                rg(&["cpu"], &[("on-demand", &[("cpu", "50", Some("50"))]),
                    ("spot", &[("cpu", "100", Some("0"))])])]}),
        )
        .to_vec(),
        cq(
            "eng-beta",
            json!({"cohortName": "eng", "queueingStrategy": "StrictFIFO",
            "preemption": {"reclaimWithinCohort": "Any", "withinClusterQueue": "LowerPriority"},
            "resourceGroups": [
                rg(&["cpu"], &[("on-demand", &[("cpu", "50", Some("10"))]),
                    ("spot", &[("cpu", "0", Some("100"))])]),
                rg(&["example.com/gpu"], &[("model-a", &[("example.com/gpu", "20", Some("0"))])]),
            ]}),
        )
        .to_vec(),
        workloads,
    ]
    .concat()
}

/// S1: sales holds 40 of its 50; 11 more is 1 too many, and sales has no cohort: nominal 50 ≥
/// 51 fails, so there is no preemption to try and the job waits, "1 more needed".
#[test]
fn s1_no_room_left_is_waiting_for_quota() {
    let kueue = scheduler_fixture(vec![admitted(
        "assigned",
        "sales",
        0,
        &[("cpu", "default", "40")],
    )]);
    let admission = one_group(kueue, job("new", "sales", 11, json!({"cpu": "1"})));
    assert_eq!(
        refusal(&admission),
        (
            false,
            "WaitingForQuota",
            "couldn't assign flavors to pod set main: insufficient unused quota for cpu in \
             flavor default, 1 more needed"
        )
    );
}

/// S3: eng-alpha takes 51 > its nominal 50 on on-demand, borrowing 1 of eng-beta's unused 50.
#[test]
fn s3_a_job_over_its_nominal_quota_borrows_from_the_cohort() {
    let admission = one_group(
        scheduler_fixture(vec![]),
        job("a", "eng-alpha", 51, json!({"cpu": "1"})),
    );
    assert_eq!(
        without_victim_messages(admission),
        admitted_as(
            "eng-alpha",
            &[("main", 51, &[("cpu", "on-demand")])],
            true,
            &[]
        )
    );
}

/// S5: a (45, within alpha's nominal) and b (56 > beta's nominal 50, so borrowing) both fit
/// on-demand alone, but 45 + 56 = 101 > the cohort's 100 and the borrowing entry goes second
/// in a cycle, so b loses the cycle. In the next one on-demand is 5 short for b (100 - 45 =
/// 55 < 56), and spot, where beta may borrow 100 of alpha's 100, takes it.
#[test]
fn s5_borrowing_entries_go_last_in_a_cycle() {
    let got = admissions(
        scheduler_fixture(vec![]),
        &[
            job("a", "eng-alpha", 45, json!({"cpu": "1"})),
            job("b", "eng-beta", 56, json!({"cpu": "1"})),
        ],
    );
    assert_eq!(
        without_victim_messages(got[0].clone()),
        admitted_as(
            "eng-alpha",
            &[("main", 45, &[("cpu", "on-demand")])],
            false,
            &[]
        )
    );
    assert_eq!(
        without_victim_messages(got[1].clone()),
        admitted_as("eng-beta", &[("main", 56, &[("cpu", "spot")])], true, &[])
    );
}

/// S9: eng-beta's preemptor needs 20 on on-demand, where beta holds 40 of its 50 and the
/// cohort is full (alpha borrows 10 over its 50). Reclaim takes the borrower first (60 on
/// alpha, over its nominal), then beta's lowest priority, low-2 (-2, 10); low-1 (-1, 30) is
/// not needed: 40 - 10 + 20 = 50 ≤ 50.
#[test]
fn s9_reclaim_and_preemption_name_their_victims() {
    let kueue = scheduler_fixture(vec![
        admitted("use-all-spot", "eng-alpha", 0, &[("cpu", "spot", "100")]),
        admitted("low-1", "eng-beta", -1, &[("cpu", "on-demand", "30")]),
        admitted("low-2", "eng-beta", -2, &[("cpu", "on-demand", "10")]),
        admitted("borrower", "eng-alpha", 0, &[("cpu", "on-demand", "60")]),
    ]);
    let admission = one_group(kueue, job("preemptor", "eng-beta", 1, json!({"cpu": "20"})));
    assert_eq!(
        admission["victims"][0]["message"],
        "Preempted to accommodate a workload (UID: UNKNOWN, JobUID: UNKNOWN) due to \
         reclamation within the cohort; preemptor path: /eng/eng-beta; preemptee path: \
         /eng/eng-alpha"
    );
    assert_eq!(
        without_victim_messages(admission),
        admitted_as(
            "eng-beta",
            &[("main", 1, &[("cpu", "on-demand")])],
            false,
            &[
                ("borrower", "InCohortReclamation"),
                ("low-2", "InClusterQueue")
            ]
        )
    );
}

/// S14: partial admission finds the largest count that fits: 50 pods of 2 cpu need 100 of
/// sales' 50, so 50 / 2 = 25 pods (at least the minimum 20).
#[test]
fn s14_partial_admission_admits_the_largest_count_that_fits() {
    let admission = one_group(
        scheduler_fixture(vec![]),
        job("new", "sales", 50, json!({"cpu": "2"})).min_parallelism(20),
    );
    assert_eq!(
        without_victim_messages(admission),
        admitted_as("sales", &[("main", 25, &[("cpu", "default")])], false, &[])
    );
}

/// S17: full-size preemption comes before partial admission: 20 gpus need beta's 20, old (-4)
/// holds 10, so old is evicted and all 20 pods are admitted rather than 10.
#[test]
fn s17_full_size_preemption_comes_before_partial_admission() {
    let kueue = scheduler_fixture(vec![admitted(
        "old",
        "eng-beta",
        -4,
        &[("example.com/gpu", "model-a", "10")],
    )]);
    let admission = one_group(
        kueue,
        job("new", "eng-beta", 20, json!({"example.com/gpu": "1"}))
            .priority(4)
            .min_parallelism(10),
    );
    assert_eq!(
        without_victim_messages(admission),
        admitted_as(
            "eng-beta",
            &[("main", 20, &[("example.com/gpu", "model-a")])],
            false,
            &[("old", "InClusterQueue")]
        )
    );
}

/// S2 and the queue chain: a ClusterQueue without namespaceSelector matches no namespace, and
/// a LocalQueue that does not exist.
#[test]
fn s2_queue_chain_and_namespace_selector_messages() {
    let mut kueue = scheduler_fixture(vec![]);
    let sales = kueue
        .iter_mut()
        .find(|o| o["kind"] == "ClusterQueue" && o["metadata"]["name"] == "sales")
        .unwrap();
    sales["spec"]
        .as_object_mut()
        .unwrap()
        .remove("namespaceSelector");
    let got = admissions(
        kueue,
        &[
            job("a", "sales", 1, json!({"cpu": "1"})),
            job("b", "nowhere", 1, json!({"cpu": "1"})),
        ],
    );
    assert_eq!(
        refusal(&got[0]),
        (
            false,
            "Misconfigured",
            "workload namespace doesn't match ClusterQueue selector"
        )
    );
    assert_eq!(
        refusal(&got[1]),
        // The workload controller keeps the queue blocker's message but sets the condition's
        // reason to Inadmissible (workload_controller.go, getQueueBlocker's caller).
        (false, "Inadmissible", "LocalQueue nowhere doesn't exist")
    );
}

/// StrictFIFO: the head (priority 5, 60 cpu > sales' 50) never fits and blocks the 1-cpu job
/// behind it; under BestEffortFIFO the small one is admitted.
#[test]
fn strict_fifo_heads_block_their_queue() {
    let jobs = [
        job("big", "sales", 1, json!({"cpu": "60"})).priority(5),
        job("small", "sales", 1, json!({"cpu": "1"})),
    ];
    let got = admissions(scheduler_fixture(vec![]), &jobs);
    assert!(!got[0]["admitted"].as_bool().unwrap());
    assert_eq!(
        got[1]["message"],
        "waiting in ClusterQueue sales behind its StrictFIFO head"
    );
    let mut kueue = scheduler_fixture(vec![]);
    for o in &mut kueue {
        if o["kind"] == "ClusterQueue" && o["metadata"]["name"] == "sales" {
            o["spec"]["queueingStrategy"] = json!("BestEffortFIFO");
        }
    }
    let got = admissions(kueue, &jobs);
    assert!(!got[0]["admitted"].as_bool().unwrap());
    assert_eq!(
        without_victim_messages(got[1].clone()),
        admitted_as("sales", &[("main", 1, &[("cpu", "default")])], false, &[])
    );
}

/// P6 (preemption_test.go): 2 cpu in a full 6: low (-1, 1) and mid (0, 2) are taken in order
/// of priority until 2 are free (1 + 2 = 3 ≥ 2), then fill-back returns low, which 2 ≤ 2
/// without it does not need: only mid is preempted.
#[test]
fn p6_fill_back_returns_victims_not_needed() {
    let kueue = [
        vec![
            flavor("default", json!({})),
            admitted("low", "standalone", -1, &[("cpu", "default", "1")]),
            admitted("mid", "standalone", 0, &[("cpu", "default", "2")]),
            admitted("high", "standalone", 1, &[("cpu", "default", "3")]),
        ],
        cq(
            "standalone",
            json!({"preemption": {"withinClusterQueue": "LowerPriority"},
                "resourceGroups": [rg(&["cpu"], &[("default", &[("cpu", "6", None)])])]}),
        )
        .to_vec(),
    ]
    .concat();
    let admission = one_group(
        kueue,
        job("in", "standalone", 1, json!({"cpu": "2"})).priority(1),
    );
    assert_eq!(
        without_victim_messages(admission),
        admitted_as(
            "standalone",
            &[("main", 1, &[("cpu", "default")])],
            false,
            &[("mid", "InClusterQueue")]
        )
    );
}

/// H2: hierarchical cohorts three > two > one lend 4 cpu each on their own flavor; the queue
/// (0 nominal everywhere) already borrows one's 4, so 4 more come from two, the next cohort
/// up, and the first borrowing fit stops the search (whenCanBorrow MayStopSearch).
#[test]
fn h2_hierarchical_cohorts_lend_down_the_tree() {
    let lends = |f: &str| vec![rg(&["cpu"], &[(f, &[("cpu", "4", None)])])];
    let kueue = [
        vec![
            flavor("one", json!({})),
            flavor("two", json!({})),
            flavor("three", json!({})),
            cohort("three", None, &lends("three")),
            cohort("two", Some("three"), &lends("two")),
            cohort("one", Some("two"), &lends("one")),
            admitted("w", "test", 0, &[("cpu", "one", "4")]),
        ],
        cq(
            "test",
            json!({"cohortName": "one", "resourceGroups": [rg(&["cpu"], &[
                ("one", &[("cpu", "0", None)]), ("two", &[("cpu", "0", None)]),
                ("three", &[("cpu", "0", None)])])]}),
        )
        .to_vec(),
    ]
    .concat();
    let admission = one_group(kueue, job("j", "test", 1, json!({"cpu": "4"})));
    assert_eq!(
        without_victim_messages(admission),
        admitted_as("test", &[("main", 1, &[("cpu", "two")])], true, &[])
    );
}

/// S15: partial admission over three pod sets in sales' 50 cpu, of a Workload Kueue has not
/// admitted yet: one (20, fixed), two (30, at least 10), three (15, at least 5), 1 cpu each.
/// 65 > 50; the counts above the minimums shrink together until 20 + 20 + 10 = 50 fits.
#[test]
fn s15_partial_admission_shrinks_every_pod_set_with_a_minimum() {
    let pod_set = |name: &str, count: i32, min: Option<i32>| {
        let mut set = json!({"name": name, "count": count, "template": {"spec": {
            "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}});
        if let Some(min) = min {
            set["minCount"] = json!(min);
        }
        set
    };
    let waiting = json!({"apiVersion": KUEUE, "kind": "Workload",
        "metadata": {"name": "new", "namespace": "ns"},
        "spec": {"queueName": "sales", "podSets": [
            pod_set("one", 20, None), pod_set("two", 30, Some(10)),
            pod_set("three", 15, Some(5))]}});
    let dir = tempfile::tempdir().unwrap();
    let state_file = dir.path().join("state.json");
    let kueue = [scheduler_fixture(vec![]), vec![waiting]].concat();
    std::fs::write(&state_file, state(kueue, &[]).to_string()).unwrap();
    let run = bin(["plan", "--pending", "-o", "json", "--state"])
        .arg(&state_file)
        .run();
    assert_eq!(run.code, 0, "{}", run.stderr);
    let plan: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(
        plan["notes"],
        json!([
            "Kueue Workload ns/new (LocalQueue sales) is suspended; Kueue would now have it \
            admitted by ClusterQueue sales: one x20 on default (cpu); two x20 on default (cpu); \
            three x10 on default (cpu): its job starts and creates its pods"
        ])
    );
}
