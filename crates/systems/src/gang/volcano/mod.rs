//! Volcano's gangs: `batch.volcano.sh/v1alpha1` Jobs (their tasks' pods, placed with the
//! task-topology plugin's buckets, [`task_topology`]) and `scheduling.volcano.sh/v1beta1`
//! PodGroups (pods that join by annotation), both placed as the `allocate` action places a job.

pub mod admission;
mod allocate;
pub mod enqueue;
mod partitions;
mod proportion;
pub(crate) mod queues;
mod task_topology;

use std::collections::{BTreeMap, BTreeSet};

use super::model::{
    Adapter, Gang, GangKind, GangObjects, JoinField, Member, PlacementRule, PodSource, System,
    task_of,
};
use super::outcome::{GroupPlan, PartitionHome, PodOutcome, Rejection, compare_with_default};
use super::place::{AnyNode, Quorum, all_or_nothing, plan_members};
use allocate::Allocate;
use df_engine::{Scheduler, pod_requests};
use df_model::gang::{
    GROUP_NAME_ANNOTATION, PARTITION_ID_LABEL, VOLCANO_JOB_API_VERSION,
    VOLCANO_POD_GROUP_API_VERSION,
};
use df_model::{Pod, VolcanoJob};
use proportion::{Amount, QueueAttr};
use task_topology::{Buckets, JobManager, TaskPod, TaskTopology, VResource, read_topology};

pub static JOB_KIND: GangKind = GangKind {
    id: "volcano-job",
    kind: "Job",
    api_versions: &[VOLCANO_JOB_API_VERSION],
    joining: "the Job's own tasks (`spec.tasks[].template`, `replicas` pods each)",
    join_field: JoinField::Own,
    honoured_by: System::Volcano,
};

pub static POD_GROUP_KIND: GangKind = GangKind {
    id: "volcano",
    kind: "PodGroup",
    api_versions: &[VOLCANO_POD_GROUP_API_VERSION],
    joining: "annotation `scheduling.k8s.io/group-name: <group>`",
    join_field: JoinField::Annotation(GROUP_NAME_ANNOTATION),
    honoured_by: System::Volcano,
};

/// Volcano Jobs: their pods are their tasks' replicas; placed with task-topology buckets.
pub(crate) struct VolcanoJobs;

impl Adapter for VolcanoJobs {
    fn kind(&self) -> &'static GangKind {
        &JOB_KIND
    }

    fn define(&self, objects: &GangObjects) -> Vec<Gang> {
        objects
            .volcano_jobs
            .iter()
            .map(|job| job_gang(job))
            .collect()
    }

    /// A Job's pods are its own tasks: no pod joins it from outside.
    fn joins(&self, _: &Pod) -> Option<String> {
        None
    }
}

/// A Volcano Job read into the gang model as Volcano's admission webhook and job controller
/// default it: a task without `minAvailable` needs all its `replicas` (`minTaskMember`), and a
/// job `minAvailable` of 0 (or a negative one, which the webhook rejects) is the sum of its
/// tasks' minimums.
pub(crate) fn job_gang(job: &VolcanoJob) -> Gang {
    let members: Vec<Member> = expand_job(job)
        .into_iter()
        .map(|(task, pod)| Member {
            pod,
            task: Some(task),
            source: PodSource::Task,
        })
        .collect();
    let task_min: BTreeMap<String, i64> = job
        .spec
        .tasks
        .iter()
        .map(|t| (t.name.clone(), i64::from(t.min_available_or_default())))
        .collect();
    let min = if job.spec.min_available > 0 {
        i64::from(job.spec.min_available)
    } else {
        task_min.values().sum()
    };
    let mut gang = Gang::new(&JOB_KIND, VOLCANO_JOB_API_VERSION, &job.metadata, min);
    gang.min_task_member = task_min;
    gang.queue = job.spec.queue.clone();
    gang.network_topology = job.spec.network_topology.clone();
    gang.members = members;
    gang.rule = PlacementRule::VolcanoJob(Box::new(job.clone()));
    gang
}

/// Volcano PodGroups: pods join by the group-name annotation; placed pod by pod with the
/// gang plugin's readiness (`minMember`, `minTaskMember`) and the allocate action's rule for
/// going on past a pod that fits nowhere.
pub struct VolcanoPodGroups;

impl Adapter for VolcanoPodGroups {
    fn kind(&self) -> &'static GangKind {
        &POD_GROUP_KIND
    }

    fn define(&self, objects: &GangObjects) -> Vec<Gang> {
        objects
            .volcano_pod_groups
            .iter()
            .map(|g| {
                let mut gang = Gang::new(
                    &POD_GROUP_KIND,
                    VOLCANO_POD_GROUP_API_VERSION,
                    &g.metadata,
                    i64::from(g.spec.min_member),
                );
                gang.min_task_member = g
                    .spec
                    .min_task_member
                    .iter()
                    .map(|(task, n)| (task.clone(), i64::from(*n)))
                    .collect();
                gang.min_resources = g.spec.min_resources.clone();
                gang.queue = g.spec.queue.clone();
                gang.priority_class_name = g.spec.priority_class_name.clone();
                gang.network_topology = g.spec.network_topology.clone();
                gang.rule = PlacementRule::VolcanoPodGroup;
                gang
            })
            .collect()
    }

    fn joins(&self, pod: &Pod) -> Option<String> {
        pod.metadata
            .annotations
            .get(GROUP_NAME_ANNOTATION)
            .map(ToString::to_string)
    }
}

/// Plan a Volcano PodGroup as the `allocate` action does: its pods in order over every node
/// (or only `within` a HyperNode's nodes), each placed pod counted for the next, going on past
/// a pod that fits nowhere as [`Allocate`] says, and passing over a pod its `queue` cannot
/// take.
pub(crate) fn plan_pod_group(
    scheduler: &mut Scheduler,
    gang: &Gang,
    compare: bool,
    within: Option<&[usize]>,
    queue: Option<&QueueAttr>,
) -> GroupPlan {
    let tasks: Vec<Option<&str>> = gang.members.iter().map(|m| m.task.as_deref()).collect();
    let quorum = Quorum::of(gang);
    let running_of: BTreeMap<String, usize> = gang
        .min_task_member
        .keys()
        .map(|task| {
            let of_task = gang
                .running
                .iter()
                .filter(|p| task_of(p).as_deref() == Some(task));
            (task.clone(), of_task.count())
        })
        .collect();
    let mut persist = Allocate::new(
        &tasks,
        &quorum,
        gang.minimum(),
        gang.running.len(),
        &gang.min_task_member,
        running_of,
    )
    .in_queue(queue, requests(gang.members.iter().map(|m| &m.pod)));
    let mut chooser = AnyNode { within };
    plan_members(scheduler, gang, compare, None, &mut chooser, &mut persist)
}

/// What each of `pods` requests, as proportion counts it.
fn requests<'p>(pods: impl Iterator<Item = &'p Pod>) -> Vec<Amount> {
    pods.map(|p| Amount::of(&pod_requests(&p.spec, false)))
        .collect()
}

/// `<job>-<task>-<index>`, the pod name the Volcano job controller gives.
pub fn pod_name(job: &str, task: &str, index: usize) -> String {
    format!("{job}-{task}-{index}")
}

/// The pods a Volcano job creates: `<job>-<task>-<index>` from each task's template, labelled
/// and annotated as the job controller does (a partitioned task's pods also with their
/// `volcano.sh/partition-id`), in task order.
pub(crate) fn expand_job(job: &VolcanoJob) -> Vec<(String, Pod)> {
    let mut pods = Vec::new();
    for task in &job.spec.tasks {
        for index in 0..usize::try_from(task.replicas).unwrap_or(0) {
            let mut metadata = task.template.metadata.clone();
            metadata.name = pod_name(&job.metadata.name, &task.name, index);
            metadata.namespace = job.metadata.namespace.clone();
            metadata
                .labels
                .insert(JOB_NAME_LABEL.into(), job.metadata.name.as_str().into());
            metadata
                .labels
                .insert(TASK_SPEC_KEY.into(), task.name.as_str().into());
            metadata
                .annotations
                .insert(TASK_SPEC_KEY.into(), task.name.as_str().into());
            if let Some(partition) = task.partition_of(index) {
                metadata
                    .labels
                    .insert(PARTITION_ID_LABEL.into(), partition.to_string().into());
            }
            let mut spec = task.template.spec.clone();
            if spec.scheduler_name.is_empty() {
                spec.scheduler_name = job.spec.scheduler_name.clone();
            }
            pods.push((
                task.name.clone(),
                Pod {
                    metadata,
                    spec,
                    status: Default::default(),
                },
            ));
        }
    }
    pods
}

/// The job controller's labels: which job and which task a pod belongs to.
pub(crate) const JOB_NAME_LABEL: &str = "volcano.sh/job-name";
pub use super::model::TASK_SPEC_KEY;

/// Plan a Volcano job as the `allocate` action does with the task-topology and nodeorder
/// plugins: pods in task order, each to the feasible node with the best sum of the engine's
/// weighted score and the task-topology score; past a pod that fits nowhere, go on as
/// [`Allocate`] says; keep the placements only when `minAvailable` pods (running ones
/// counted), and each task's minimum when `minAvailable` is at least their sum, fit. Task-topology annotations Volcano cannot read are skipped with a
/// warning, as its plugin logs and skips them. `within` restricts the job to a hypernode's
/// nodes; a pod its `queue` cannot take is passed over. A task's `partitionPolicy` makes
/// each of its partitions a sub-gang placed all or nothing ([`partitions`]).
pub(crate) fn plan_job(
    scheduler: &mut Scheduler,
    gang: &Gang,
    job: &VolcanoJob,
    compare: bool,
    within: Option<&[usize]>,
    queue: Option<&QueueAttr>,
) -> GroupPlan {
    let state = scheduler.state();
    let before = compare.then(|| scheduler.clone());
    let expanded: Vec<(String, Pod)> = gang
        .members
        .iter()
        .map(|m| (m.task.clone().unwrap_or_default(), m.pod.clone()))
        .collect();
    let namespace = &job.metadata.namespace;
    let task_pods: Vec<TaskPod> = expanded
        .iter()
        .map(|(task, pod)| TaskPod {
            name: pod.metadata.name.clone(),
            task: task.clone(),
            request: VResource::from_resources(&pod_requests(&pod.spec, false)),
            node: state
                .pod(namespace, &pod.metadata.name)
                .filter(|p| !p.spec.node_name.is_empty() && !p.is_terminated())
                .map(|p| p.spec.node_name.clone()),
        })
        .collect();
    let task_names: BTreeSet<String> = job.spec.tasks.iter().map(|t| t.name.clone()).collect();
    let mut warnings = Vec::new();
    let topology = match read_topology(
        &job.metadata.annotations,
        &task_names,
        namespace,
        &job.metadata.name,
    ) {
        Ok(topology) => topology.unwrap_or_default(),
        Err(e) => {
            warnings.push(format!(
                "{e}: like Volcano's task-topology plugin, the job is planned without its \
                 task-topology annotations"
            ));
            TaskTopology::default()
        }
    };
    let job_tasks: Vec<&str> = expanded.iter().map(|(task, _)| task.as_str()).collect();
    let partitions = partitions::Partitions::of(job, &job_tasks);
    let mut nesting = BTreeMap::new();
    for (task, topology) in partitions.iter().flat_map(|p| &p.topology) {
        match partitions::Nesting::of(gang, topology, state, within) {
            Ok(Some(nest)) => {
                nesting.insert(task.clone(), nest);
            }
            Ok(None) => {}
            Err(warning) => warnings.push(format!("task {task}'s partitions: {warning}")),
        }
    }
    let manager = JobManager::new(&topology, &task_pods);
    let idle: Vec<VResource> = (0..state.nodes.len())
        .map(|i| {
            scheduler
                .free(i)
                .map(|free| VResource::from_resources(&free))
                .unwrap_or_default()
        })
        .collect();
    let pending: Vec<usize> = (0..task_pods.len())
        .filter(|&i| task_pods[i].node.is_none())
        .collect();
    let order = match &partitions {
        Some(p) => p.order(&pending),
        None => manager.task_order(&pending, &task_pods),
    };
    let total = task_pods.len();
    let min_available = gang.minimum();
    let running = total - pending.len();
    let running_of = |task: &str| {
        task_pods
            .iter()
            .filter(|p| p.node.is_some() && p.task == task)
            .count()
    };
    let quorum = Quorum::less_running(gang, running, running_of);
    let pods: Vec<&Pod> = order.iter().map(|&i| &expanded[i].1).collect();
    let tasks: Vec<Option<&str>> = order
        .iter()
        .map(|&i| Some(expanded[i].0.as_str()))
        .collect();
    let mut chooser = Buckets {
        manager,
        idle,
        task_pods: &task_pods,
        order: &order,
        node_names: state
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.metadata.name.as_str(), i))
            .collect(),
        within,
    };
    let running_of: BTreeMap<String, usize> = gang
        .min_task_member
        .keys()
        .map(|task| (task.clone(), running_of(task)))
        .collect();
    let mut persist = Allocate::new(
        &tasks,
        &quorum,
        min_available,
        running,
        &gang.min_task_member,
        running_of,
    )
    .in_queue(queue, requests(pods.iter().copied()));
    let (attempt, short_partitions, homes) = match &partitions {
        Some(p) => {
            let running: Vec<bool> = task_pods.iter().map(|t| t.node.is_some()).collect();
            let pending = partitions::Pending {
                pods: &pods,
                tasks: &tasks,
                order: &order,
                partitions: p,
                nesting: &nesting,
                running: &running,
                quorum: &quorum,
                every_pod_needed: min_available >= total,
            };
            partitions::place(scheduler, &pending, &mut persist, &mut chooser)
        }
        None => (
            all_or_nothing(
                scheduler,
                &pods,
                &tasks,
                &quorum,
                &mut persist,
                &mut chooser,
            ),
            Vec::new(),
            BTreeMap::new(),
        ),
    };
    let blocker = pods
        .iter()
        .zip(&attempt.outcomes)
        .find(|(_, o)| matches!(o, Some(Err(_))))
        .map(|(pod, _)| pod.metadata.name.clone());
    let not_tried = blocker
        .as_ref()
        .map(|pod| format!("not tried: {pod} fits no node"))
        .unwrap_or_default();
    let mut results: BTreeMap<usize, Result<String, String>> = BTreeMap::new();
    for (at, outcome) in attempt.outcomes.iter().enumerate() {
        let result = match outcome {
            Some(Ok(_)) if !attempt.ready => Err("gang not ready (minAvailable)".to_string()),
            Some(other) => other.clone(),
            None => Err(not_tried.clone()),
        };
        results.insert(order[at], result);
    }
    let mut rejections = Vec::new();
    if !attempt.ready {
        let short_tasks: Vec<String> = quorum
            .per_task
            .iter()
            .filter(|(task, need)| {
                let fit = order
                    .iter()
                    .zip(&attempt.outcomes)
                    .filter(|(i, o)| matches!(o, Some(Ok(_))) && expanded[**i].0 == **task)
                    .count();
                fit < **need
            })
            .map(|(task, need)| format!("task {task} needs {need} more"))
            .chain(short_partitions)
            .collect();
        let mut reason = format!(
            "only {} of minAvailable {min_available} pods fit ({running} running)",
            running + attempt.fit
        );
        if !short_tasks.is_empty() {
            reason.push_str(&format!(" and {}", short_tasks.join(", ")));
        }
        reason.push_str("; the gang binds none of its pending pods");
        rejections.push(Rejection {
            group: "job".into(),
            reason,
        });
    }
    let mut outcomes: Vec<PodOutcome> = (0..total)
        .filter_map(|i| {
            let (task, pod) = &expanded[i];
            let result = match &task_pods[i].node {
                Some(node) => Ok(node.clone()),
                None => results.remove(&i)?,
            };
            Some(PodOutcome {
                pod,
                task: Some(task.clone()),
                running: task_pods[i].node.is_some(),
                source: task_pods[i].node.is_none().then_some(PodSource::Task),
                result,
            })
        })
        .collect();
    // Running pods first, then pending ones in the order they were planned.
    let rank: BTreeMap<usize, usize> = order.iter().enumerate().map(|(r, &i)| (i, r)).collect();
    let index_of: BTreeMap<&str, usize> = task_pods
        .iter()
        .enumerate()
        .map(|(i, p)| (p.name.as_str(), i))
        .collect();
    outcomes.sort_by_key(|o| {
        let i = index_of[o.pod.metadata.name.as_str()];
        (!o.running, rank.get(&i).copied().unwrap_or(0), i)
    });
    let mut plan = attempt.group_plan(gang, state, &outcomes, min_available, running, &not_tried);
    plan.rejections = rejections;
    plan.warnings = warnings;
    if attempt.ready {
        plan.partitions = homes
            .into_iter()
            .map(|((task, partition), hyper_node)| PartitionHome {
                task,
                partition,
                hyper_node,
            })
            .collect();
    }
    if let Some(before) = before {
        let running_pods: Vec<&Pod> = outcomes
            .iter()
            .filter(|o| o.running)
            .map(|o| o.pod)
            .collect();
        let pending_pods: Vec<Pod> = order.iter().map(|&i| expanded[i].1.clone()).collect();
        plan.comparison = Some(compare_with_default(
            &before,
            &pending_pods,
            &running_pods,
            &plan,
        ));
    }
    plan
}

#[cfg(test)]
mod test_support;
#[cfg(test)]
mod tests;
