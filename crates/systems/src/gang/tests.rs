//! End-to-end gang plans over the engine, on clusters built here.

use std::collections::BTreeMap;

use df_engine::Profile;
use df_model::gang::{
    GODEL_POD_GROUP_LABEL, GodelAffinity, GodelPodGroupSpec, PodGroupAffinity, TopologyTerm,
    VOLCANO_AFFINITY_ANNOTATION, VOLCANO_ANTI_AFFINITY_ANNOTATION, VOLCANO_TASK_ORDER_ANNOTATION,
    VolcanoJobSpec, VolcanoTask,
};
use df_model::{
    Container, GodelPodGroup, Labels, Node, NodeStatus, Object, ObjectMeta, Pod, PodSpec,
    PodTemplateSpec, Quantity, ResourceList, ResourceRequirements, VolcanoJob,
};
use df_state::ClusterState;

use super::model::Adapter;
use super::outcome::GroupPlan;
use super::{GangOptions, gangs, godel, plan_gangs, volcano};
use df_engine::Scheduler;

/// A Godel PodGroup planned alone on `state`.
fn plan_pod_group(
    state: &ClusterState,
    group: &GodelPodGroup,
    pending: &[Pod],
    running: &[&Pod],
    compare: bool,
) -> GroupPlan {
    let mut gang = godel::gang(group);
    gang.members = pending
        .iter()
        .map(|pod| super::Member {
            pod: pod.clone(),
            task: None,
            source: super::PodSource::Manifest,
        })
        .collect();
    gang.running = running.iter().map(|&p| p.clone()).collect();
    let mut scheduler = Scheduler::new(state, Profile::default());
    godel::plan_pod_group(&mut scheduler, &gang, group, compare).unwrap()
}

/// A Volcano Job planned alone on `state`.
fn plan_job(state: &ClusterState, job: &VolcanoJob) -> GroupPlan {
    let gang = volcano::job_gang(job);
    let mut scheduler = Scheduler::new(state, Profile::default());
    volcano::plan_job(&mut scheduler, &gang, job, false, None, None)
}

fn resources(cpu: &str, memory: &str) -> ResourceList {
    ResourceList::from([
        ("cpu".to_string(), Quantity::parse(cpu).unwrap()),
        ("memory".to_string(), Quantity::parse(memory).unwrap()),
        ("pods".to_string(), Quantity::parse("110").unwrap()),
    ])
}

fn node(name: &str, labels: &[(&str, &str)], cpu: &str) -> Object {
    let mut all: Labels = labels
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    all.insert("kubernetes.io/hostname".into(), name.into());
    Object::Node(Node {
        metadata: ObjectMeta {
            name: name.into(),
            labels: all,
            ..Default::default()
        },
        status: NodeStatus {
            allocatable: resources(cpu, "32Gi"),
            ..Default::default()
        },
        ..Default::default()
    })
}

fn pod(name: &str, cpu: &str, labels: &[(&str, &str)], node: &str) -> Pod {
    Pod {
        metadata: ObjectMeta {
            name: name.into(),
            namespace: "default".into(),
            labels: labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Default::default()
        },
        spec: PodSpec {
            node_name: node.into(),
            containers: vec![Container {
                name: "c".into(),
                resources: ResourceRequirements {
                    requests: ResourceList::from([
                        ("cpu".to_string(), Quantity::parse(cpu).unwrap()),
                        ("memory".to_string(), Quantity::parse("1Gi").unwrap()),
                    ]),
                    ..Default::default()
                },
                ..Default::default()
            }],
            ..Default::default()
        },
        status: Default::default(),
    }
}

/// bigPods a, b; miniPods a1, a2, b1, b2; two tors each; two 8-CPU nodes per tor, each with
/// 2 CPU already taken: 3 pods of 2 CPU fit per node, 6 per tor.
fn topology_cluster(extra: Vec<Object>) -> ClusterState {
    let mut objects = Vec::new();
    for big in ["a", "b"] {
        for mini in 1..=2 {
            for tor in 1..=2 {
                for n in 0..2 {
                    let mini = format!("{big}{mini}");
                    let tor = format!("{mini}-t{tor}");
                    let name = format!("{tor}-n{n}");
                    objects.push(node(
                        &name,
                        &[("bigPod", big), ("miniPod", &mini), ("tor", &tor)],
                        "8",
                    ));
                    objects.push(Object::Pod(pod(&format!("filler-{name}"), "2", &[], &name)));
                }
            }
        }
    }
    objects.extend(extra);
    ClusterState::from_objects(objects)
}

fn pod_group(min_member: i32, required: &[&str], preferred: &[&str]) -> GodelPodGroup {
    let terms = |keys: &[&str]| {
        keys.iter()
            .map(|k| TopologyTerm {
                topology_key: k.to_string(),
            })
            .collect()
    };
    GodelPodGroup {
        metadata: ObjectMeta {
            name: "train".into(),
            namespace: "default".into(),
            ..Default::default()
        },
        spec: GodelPodGroupSpec {
            min_member,
            affinity: Some(GodelAffinity {
                pod_group_affinity: Some(PodGroupAffinity {
                    required: terms(required),
                    preferred: terms(preferred),
                    ..Default::default()
                }),
            }),
        },
    }
}

fn members(n: usize, cpu: &str) -> Vec<Pod> {
    (0..n)
        .map(|i| {
            pod(
                &format!("train-{i}"),
                cpu,
                &[(GODEL_POD_GROUP_LABEL, "train")],
                "",
            )
        })
        .collect()
}

#[test]
fn godel_fills_a_circle_and_spills_within_the_preferred_domain() {
    let state = topology_cluster(vec![]);
    let group = pod_group(8, &["bigPod"], &["miniPod", "tor"]);
    let plan = plan_pod_group(&state, &group, &members(8, "2"), &[], true);
    assert_eq!(
        plan.summary,
        "8/8 pods placed in bigPod=a, miniPod=a1; tors: a1-t1 x6, a1-t2 x2"
    );
    assert_eq!(plan.node_group.as_deref(), Some("miniPod=a1"));
    assert_eq!(plan.scheduled, 8);
    // Every single tor holds only 6 of the 8 pods.
    let rejected: Vec<&str> = plan.rejections.iter().map(|r| r.group.as_str()).collect();
    assert_eq!(
        rejected,
        [
            "tor=a1-t1",
            "tor=a1-t2",
            "tor=a2-t1",
            "tor=a2-t2",
            "tor=b1-t1",
            "tor=b1-t2",
            "tor=b2-t1",
            "tor=b2-t2"
        ]
    );
    assert_eq!(
        plan.rejections[0].reason,
        "free resources and pod slots fit at most 6 of the 8 pods still needed"
    );
    let comparison = plan.comparison.unwrap();
    let spread: Vec<(String, usize, usize)> = comparison
        .levels
        .iter()
        .map(|l| (l.key.clone(), l.gang, l.default))
        .collect();
    assert_eq!(spread[0], ("bigPod".to_string(), 1, spread[0].2));
    assert_eq!(spread[2].1, 2);
    assert!(spread[2].2 > 2, "{spread:?}");
}

#[test]
fn godel_running_pods_pin_the_unit_to_their_domains() {
    let running = pod(
        "train-0",
        "2",
        &[(GODEL_POD_GROUP_LABEL, "train")],
        "b2-t1-n0",
    );
    let state = topology_cluster(vec![Object::Pod(running.clone())]);
    let group = pod_group(4, &["bigPod"], &["miniPod", "tor"]);
    let pending: Vec<Pod> = members(4, "2").into_iter().skip(1).collect();
    let plan = plan_pod_group(&state, &group, &pending, &[&running], false);
    assert_eq!(
        plan.summary,
        "4/4 pods placed in bigPod=b, miniPod=b2, tor=b2-t1"
    );
    assert_eq!(plan.running, 1);
    assert_eq!(plan.node_group.as_deref(), Some("tor=b2-t1"));
}

#[test]
fn godel_unit_larger_than_any_bigpod_is_cut_off_everywhere() {
    let state = topology_cluster(vec![]);
    let group = pod_group(40, &["bigPod"], &["miniPod"]);
    let plan = plan_pod_group(&state, &group, &members(40, "2"), &[], false);
    assert_eq!(plan.scheduled, 0);
    assert_eq!(plan.node_group, None);
    let rejected: Vec<&str> = plan.rejections.iter().map(|r| r.group.as_str()).collect();
    assert_eq!(rejected, ["bigPod=a", "bigPod=b", "-"]);
    assert_eq!(
        plan.rejections[0].reason,
        "summed allocatable (cpu 64, memory 256Gi, nvidia.com/gpu 0) cannot hold the unit's minimum request (cpu 80, memory 40Gi, nvidia.com/gpu 0)"
    );
    assert_eq!(plan.summary, "0/40 pods placed");
}

fn job(tasks: &[(&str, i32, &str)], annotations: &[(&str, &str)]) -> VolcanoJob {
    VolcanoJob {
        metadata: ObjectMeta {
            name: "tf".into(),
            namespace: "default".into(),
            annotations: annotations
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ..Default::default()
        },
        spec: VolcanoJobSpec {
            min_available: 0,
            tasks: tasks
                .iter()
                .map(|(name, replicas, cpu)| VolcanoTask {
                    name: name.to_string(),
                    replicas: *replicas,
                    min_available: None,
                    template: PodTemplateSpec {
                        metadata: ObjectMeta::default(),
                        spec: pod("x", cpu, &[], "").spec,
                    },
                    policies: Vec::new(),
                    partition_policy: None,
                })
                .collect(),
            ..Default::default()
        },
    }
}

fn flat_cluster(nodes: usize, cpu: &str) -> ClusterState {
    ClusterState::from_objects((0..nodes).map(|i| node(&format!("n{i}"), &[], cpu)))
}

fn placements(plan: &GroupPlan) -> Vec<String> {
    plan.pods
        .iter()
        .map(|r| format!("{}@{}", r.pod, r.node.as_deref().unwrap_or("-")))
        .collect()
}

#[test]
fn volcano_buckets_co_locate_split_and_spread() {
    let ps_worker = [
        (VOLCANO_AFFINITY_ANNOTATION, "ps,worker"),
        (VOLCANO_ANTI_AFFINITY_ANNOTATION, "ps"),
        (VOLCANO_TASK_ORDER_ANNOTATION, "ps,worker"),
    ];
    let tasks = [("ps", 2, "1"), ("worker", 4, "2")];
    let cases: Vec<(&str, ClusterState, VolcanoJob, Vec<&str>)> = vec![
        (
            "each bucket (5 CPU) fits one node: co-located",
            flat_cluster(4, "8"),
            job(&tasks, &ps_worker),
            vec![
                "tf-ps-0@n0",
                "tf-worker-0@n0",
                "tf-worker-2@n0",
                "tf-ps-1@n1",
                "tf-worker-1@n1",
                "tf-worker-3@n1",
            ],
        ),
        (
            // ps-0 and worker-2 share n0, worker-0 goes next door; the same for ps-1.
            "buckets do not fit a 4-CPU node: split",
            flat_cluster(4, "4"),
            job(&tasks, &ps_worker),
            vec![
                "tf-ps-0@n0",
                "tf-worker-0@n1",
                "tf-worker-2@n0",
                "tf-ps-1@n2",
                "tf-worker-1@n3",
                "tf-worker-3@n2",
            ],
        ),
        (
            "self anti-affinity spreads",
            flat_cluster(4, "8"),
            job(
                &[("worker", 4, "1")],
                &[(VOLCANO_ANTI_AFFINITY_ANNOTATION, "worker")],
            ),
            vec![
                "tf-worker-0@n0",
                "tf-worker-1@n1",
                "tf-worker-2@n2",
                "tf-worker-3@n3",
            ],
        ),
    ];
    for (name, state, job, want) in cases {
        let plan = plan_job(&state, &job);
        assert_eq!(placements(&plan), want, "{name}: {}", plan.summary);
    }
}

#[test]
fn volcano_skips_annotations_it_cannot_read_and_still_plans_the_job() {
    let state = flat_cluster(1, "8");
    let job = job(
        &[("ps", 1, "1")],
        &[(VOLCANO_AFFINITY_ANNOTATION, "ps,chief")],
    );
    let plan = plan_job(&state, &job);
    assert_eq!(
        plan.warnings,
        [
            "task chief do not exist in job <default/tf>: like Volcano's task-topology plugin, \
          the job is planned without its task-topology annotations"
        ]
    );
    assert_eq!(placements(&plan), ["tf-ps-0@n0"]);
}

fn testdata(path: &str) -> String {
    format!("{}/../../testdata/{path}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn testdata_gangs_plan_on_the_gang_cluster() {
    let state = df_state::recorded::load_files(&[testdata("clusters/gang.yaml")]).unwrap();
    let manifests = df_manifest::load(
        &[
            testdata("gangs/godel-podgroup.yaml"),
            testdata("gangs/volcano-job.yaml"),
        ],
        false,
    )
    .unwrap();
    let opts = GangOptions {
        compare: true,
        ..GangOptions::default()
    };
    let mut scheduler = Scheduler::new(&state, Profile::default());
    let plans = plan_gangs(&gangs(&manifests, &state, &opts), &mut scheduler, &opts).unwrap();
    let summaries: Vec<(&str, &str, String)> = plans
        .iter()
        .map(|p| (p.kind, p.name.as_str(), p.summary.clone()))
        .collect();
    // bigPodA holds the running llm-pretrain gang, so the GPU-available-descending rule puts
    // bigPodB first. Volcano's anti-affinity is only a score: the buckets (ps + two workers)
    // still land whole on one node each.
    assert_eq!(
        summaries,
        vec![
            (
                "Job",
                "tf-resnet",
                "6/6 pods placed; nodes: gpu-node-04 x3, gpu-node-05 x3".to_string()
            ),
            (
                "PodGroup",
                "bert-large",
                "8/8 pods placed in bigPod=bigPodB, miniPod=miniPodB2, tor=torB2-1".to_string()
            ),
        ]
    );
}

/// Upstream's `TestCheckClusterResource` (scheduler-plugins coscheduling core): two 3-CPU nodes,
/// minResources 4 CPUs; the group's own bound pods do not count as using anything.
#[test]
fn coscheduling_resource_gap_follows_check_cluster_resource() {
    use df_model::gang::COSCHEDULING_POD_GROUP_LABEL;
    let member = [(COSCHEDULING_POD_GROUP_LABEL, "pg1")];
    let cases: [(&str, Vec<Pod>, Option<&str>); 3] = [
        (
            "cluster resource enough",
            vec![pod("p1", "2", &[], "node-a")],
            None,
        ),
        (
            "cluster resource not enough",
            vec![pod("p1", "2", &[], "node-a"), pod("p2", "1", &[], "node-b")],
            Some("resource gap: the cluster lacks cpu 1 for the group's minResources"),
        ),
        (
            "enough once the group's own pod is given back",
            vec![
                pod("p1", "2", &member, "node-a"),
                pod("p2", "1", &[], "node-b"),
            ],
            None,
        ),
    ];
    for (name, pods, want) in cases {
        let mut objects = vec![node("node-a", &[], "3"), node("node-b", &[], "3")];
        objects.extend(pods.iter().cloned().map(Object::Pod));
        let state = ClusterState::from_objects(objects);
        let group = df_model::PodGroup {
            api_version: df_model::gang::COSCHEDULING_API_VERSION.into(),
            metadata: ObjectMeta {
                name: "pg1".into(),
                namespace: "default".into(),
                ..Default::default()
            },
            spec: df_model::gang::PodGroupSpec {
                min_member: Some(2),
                min_resources: ResourceList::from([("cpu", Quantity::parse("4").unwrap())]),
                ..Default::default()
            },
        };
        let objects = super::model::GangObjects {
            pod_groups: vec![&group],
            ..Default::default()
        };
        let mut gang = super::coscheduling::Coscheduling.define(&objects).remove(0);
        gang.running = pods
            .into_iter()
            .filter(|p| p.metadata.labels.contains_key(COSCHEDULING_POD_GROUP_LABEL))
            .collect();
        let scheduler = Scheduler::new(&state, Profile::default());
        assert_eq!(
            super::coscheduling::resource_gap(&scheduler, &gang).as_deref(),
            want,
            "{name}"
        );
    }
}

/// Volcano's readiness (`job_info.go` IsReady + CheckTaskReady): enough pods in total and,
/// for every task with a minimum, enough of that task.
#[test]
fn quorum_counts_the_total_and_each_task_minimum() {
    use super::place::Quorum;
    let quorum = Quorum {
        total: 3,
        per_task: BTreeMap::from([("worker".to_string(), 2)]),
    };
    let tasks = [Some("master"), Some("worker"), Some("worker"), Some("ps")];
    let cases = [
        ("all placed", [true, true, true, true], true),
        ("three, both workers", [true, true, true, false], true),
        ("three, one worker short", [true, true, false, true], false),
        ("two workers only", [false, true, true, false], false),
    ];
    for (name, placed, want) in cases {
        assert_eq!(quorum.met(&placed, &tasks), want, "{name}");
    }
}

/// How a pod joins each kind's group: label, annotation, workloadRef or schedulingGroup; a pod
/// may (wrongly) join several, and the registry order says which wins.
#[test]
fn pods_join_groups_by_each_kinds_rule() {
    use df_model::{PodSchedulingGroup, WorkloadReference};
    let with = |labels: &[(&str, &str)], annotations: &[(&str, &str)]| {
        let mut p = pod("p", "1", labels, "");
        p.metadata.annotations = annotations
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        p
    };
    let kinds = |joined: Vec<(usize, String)>| -> Vec<(&'static str, String)> {
        joined
            .into_iter()
            .map(|(k, name)| (super::ADAPTERS[k].kind().id, name))
            .collect()
    };
    let mut workload = with(&[], &[]);
    workload.spec.workload_ref = Some(Box::new(WorkloadReference {
        name: "train".into(),
        pod_group: "workers".into(),
        pod_group_replica_key: String::new(),
    }));
    let mut runtime = with(&[], &[]);
    runtime.spec.scheduling_group = Some(PodSchedulingGroup {
        pod_group_name: Some("train-workers-0".into()),
    });
    let cases = [
        ("plain pod", with(&[], &[]), vec![]),
        (
            "godel label",
            with(&[(GODEL_POD_GROUP_LABEL, "g")], &[]),
            vec![("godel", "g".to_string())],
        ),
        (
            "group-name annotation: Volcano and kube-batch both read it",
            with(&[], &[("scheduling.k8s.io/group-name", "b")]),
            vec![
                ("volcano", "b".to_string()),
                ("kube-batch", "b".to_string()),
            ],
        ),
        (
            "coscheduling label",
            with(&[("scheduling.x-k8s.io/pod-group", "c")], &[]),
            vec![("coscheduling", "c".to_string())],
        ),
        (
            "workloadRef",
            workload,
            vec![("workload", "train/workers".to_string())],
        ),
        (
            "schedulingGroup",
            runtime,
            vec![("workload-podgroup", "train-workers-0".to_string())],
        ),
        (
            "two groups",
            with(
                &[
                    (GODEL_POD_GROUP_LABEL, "g"),
                    ("scheduling.x-k8s.io/pod-group", "c"),
                ],
                &[],
            ),
            vec![
                ("godel", "g".to_string()),
                ("coscheduling", "c".to_string()),
            ],
        ),
    ];
    for (name, pod, want) in cases {
        assert_eq!(kinds(super::joined(&pod)), want, "{name}");
    }
}

/// A KubeSchedulerConfiguration's profiles route their schedulerNames: the scheduler-plugins
/// profile that enables Coscheduling (at any extension point) goes to coscheduling, the
/// others to kube-scheduler.
#[test]
fn scheduler_config_profiles_route_their_names() {
    use super::model::{System, scheduler_config_routes};
    let config = "\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- plugins:
    score:
      enabled: [{name: NodeAffinity, weight: 2}]
- schedulerName: scheduler-plugins-scheduler
  plugins:
    multiPoint:
      enabled: [{name: Coscheduling}]
- schedulerName: batch
  plugins:
    queueSort:
      enabled: [{name: Coscheduling}]
    permit:
      enabled: [{name: Coscheduling}]
";
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), config).unwrap();
    let config =
        df_engine::config::SchedulerConfig::from_file(file.path().to_str().unwrap()).unwrap();
    assert_eq!(
        scheduler_config_routes(&config),
        [
            ("default-scheduler".to_string(), System::KubeScheduler),
            (
                "scheduler-plugins-scheduler".to_string(),
                System::Coscheduling
            ),
            ("batch".to_string(), System::Coscheduling),
        ]
    );
}

/// Without manifests, every kind's gang is found in a recorded state (the `kubectl get -o
/// json` shape) with its pending and running members, and planned on one scheduler.
#[test]
fn every_kind_is_read_from_recorded_state() {
    let pod = |name: &str, meta: &str, spec: &str, node: &str| {
        format!(
            r#"{{"apiVersion": "v1", "kind": "Pod", "metadata": {{"name": "{name}", "namespace": "ns", {meta}}},
               "spec": {{"nodeName": "{node}", {spec} "containers": [{{"name": "c", "resources": {{"requests": {{"cpu": "1"}}}}}}]}}}}"#
        )
    };
    let group = |api: &str, kind: &str, name: &str, spec: &str| {
        format!(
            r#"{{"apiVersion": "{api}", "kind": "{kind}", "metadata": {{"name": "{name}", "namespace": "ns"}}, "spec": {spec}}}"#
        )
    };
    let items = [
        r#"{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "16", "memory": "64Gi", "pods": "110"}}}"#.to_string(),
        group("scheduling.incubator.k8s.io/v1alpha1", "PodGroup", "kb", r#"{"minMember": 2}"#),
        pod("kb-0", r#""annotations": {"scheduling.k8s.io/group-name": "kb"}"#, r#""schedulerName": "kube-batch","#, "n1"),
        pod("kb-1", r#""annotations": {"scheduling.k8s.io/group-name": "kb"}"#, r#""schedulerName": "kube-batch","#, ""),
        group("scheduling.sigs.dev/v1alpha2", "PodGroup", "kb2", r#"{"minMember": 1}"#),
        pod("kb2-0", r#""annotations": {"scheduling.k8s.io/group-name": "kb2"}"#, r#""schedulerName": "kube-batch","#, ""),
        group("scheduling.volcano.sh/v1beta1", "PodGroup", "vc", r#"{"minMember": 1, "minTaskMember": {"w": 1}}"#),
        pod("vc-0", r#""annotations": {"scheduling.k8s.io/group-name": "vc", "volcano.sh/task-spec": "w"}"#, r#""schedulerName": "volcano","#, ""),
        group("scheduling.x-k8s.io/v1alpha1", "PodGroup", "co", r#"{"minMember": 1, "minResources": {"cpu": "1"}}"#),
        pod("co-0", r#""labels": {"scheduling.x-k8s.io/pod-group": "co"}"#, r#""schedulerName": "scheduler-plugins-scheduler","#, ""),
        group("scheduling.k8s.io/v1alpha1", "Workload", "wl", r#"{"podGroups": [{"name": "g", "policy": {"gang": {"minCount": 1}}}]}"#),
        pod("wl-0", r#""labels": {}"#, r#""workloadRef": {"name": "wl", "podGroup": "g"},"#, ""),
        group("scheduling.k8s.io/v1alpha2", "PodGroup", "pg", r#"{"schedulingPolicy": {"gang": {"minCount": 1}}}"#),
        pod("pg-0", r#""labels": {}"#, r#""schedulingGroup": {"podGroupName": "pg"},"#, ""),
        group("scheduling.godel.kubewharf.io/v1alpha1", "PodGroup", "gd", r#"{"minMember": 1}"#),
        pod("gd-0", r#""labels": {"godel.bytedance.com/pod-group-name": "gd"}"#, r#""schedulerName": "godel-scheduler","#, ""),
    ];
    let json = format!(
        r#"{{"apiVersion": "v1", "kind": "List", "items": [{}]}}"#,
        items.join(",")
    );
    let objects = df_state::recorded::parse_state("state.json", json.as_bytes()).unwrap();
    let state = ClusterState::from_objects(objects);
    let manifests = df_manifest::ManifestSet::default();
    let mut scheduler = Scheduler::new(&state, Profile::default());
    let opts = GangOptions::default();
    let plans = plan_gangs(&gangs(&manifests, &state, &opts), &mut scheduler, &opts).unwrap();
    let got: Vec<(&str, &str, usize, usize, &str)> = plans
        .iter()
        .map(|p| {
            (
                p.gang_kind,
                p.name.as_str(),
                p.running,
                p.scheduled,
                p.status.as_str(),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("coscheduling", "co", 0, 1, "Scheduled"),
            ("godel", "gd", 0, 1, "Scheduled"),
            ("kube-batch", "kb", 1, 2, "Scheduled"),
            ("kube-batch", "kb2", 0, 1, "Scheduled"),
            ("workload-podgroup", "pg", 0, 1, "Scheduled"),
            ("volcano", "vc", 0, 1, "Scheduled"),
            ("workload", "wl/g", 0, 1, "Scheduled"),
        ]
    );
}
