//! Volcano's `enqueue` action (`actions/enqueue/enqueue.go`): a PodGroup still `Pending` (a
//! new one, or one whose status says so) with `minResources` is let in (`Inqueue`) only when
//! the plugins that vote on it agree (`JobEnqueueable`: tier by tier, the first Reject refuses,
//! a tier with a Permit admits). A refused group stays Pending and the `allocate` action never
//! tries its pods. The votes modelled:
//!
//! - overcommit (`plugins/overcommit`): the group's minResources plus every Inqueue group's
//!   must fit `allocatable x overcommit-factor (default 1.2) - used` of the whole cluster;
//! - proportion (`plugins/proportion`), and capacity read the same way: the queue must be
//!   `Open`, and the group's minResources plus what the queue's groups hold (allocated and
//!   inqueue, less their elastic part) must fit the queue's real capability: the cluster less
//!   every other queue's guarantee, within its own `capability`.
//!
//! Each comparison is only in the resources the group's minResources names. Each group let in
//! counts for the next, in plan order (Volcano's queue and job order is not modelled). A
//! Volcano Job's PodGroup gets its minResources from the job controller
//! ([`job_min_resources`]); a Job of the state with a pod bound counts as enqueued.

use std::collections::BTreeMap;

use super::super::model::{Gang, PlacementRule};
use super::JOB_NAME_LABEL;
use crate::volcano_conf::{Argument, SchedulerConf};
use df_engine::{Resources, Scheduler, pod_requests};
use df_model::gang::GROUP_NAME_ANNOTATION;
use df_model::gang::VolcanoTask;
use df_model::resources::node_allocatable;
use df_model::{Pod, ResourceList, VolcanoJob, VolcanoQueue};
use df_state::ClusterState;

/// The queue a group names when it names none.
const DEFAULT_QUEUE: &str = "default";
/// overcommit's `overcommit-factor` when unset or below 1.
const DEFAULT_FACTOR: f64 = 1.2;

/// The vote of one plugin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Voter {
    Overcommit,
    /// proportion or capacity: the queue's capability.
    Queue,
}

/// The `enqueue` step of one plan: the scheduler configuration's voters and the totals each
/// group let in adds to.
pub struct Session {
    /// None: the configuration has no `enqueue` action, so every group is let in.
    tiers: Option<Vec<Vec<Voter>>>,
    /// `allocatable x factor - used` over every node.
    idle: Resources,
    /// overcommit's inqueue total.
    inqueue: Resources,
    /// The whole cluster's allocatable.
    total: Resources,
    /// Every queue's guarantee, summed.
    guarantees: Resources,
    queues: BTreeMap<String, QueueTotals>,
    /// Whether the state lists Queues at all: without any, every group's queue counts as an
    /// open queue without limits (Volcano always creates `default`).
    queues_known: bool,
}

/// What proportion counts for one queue.
#[derive(Debug, Clone, Default)]
struct QueueTotals {
    queue: Option<VolcanoQueue>,
    allocated: Resources,
    inqueue: Resources,
    elastic: Resources,
    /// Whether a group of the state or of the plan is in it (proportion shares the cluster
    /// only among queues with jobs).
    has_jobs: bool,
}

impl Session {
    /// The session over `scheduler`'s cluster as planned so far, with the state's queues,
    /// PodGroups and their pods, and the state's volcano-scheduler configuration (Volcano's
    /// default one when missing or unreadable: enqueue, overcommit and proportion on).
    pub fn new(scheduler: &Scheduler) -> Session {
        let state = scheduler.state();
        let (tiers, factor) = read_conf(state);
        let mut total = Resources::default();
        let mut used = Resources::default();
        for (i, node) in state.nodes.iter().enumerate() {
            let allocatable = node_allocatable(node);
            if let Some(free) = scheduler.free(i) {
                let mut taken = allocatable.clone();
                taken.sub(&free);
                used.add(&taken);
            }
            total.add(&allocatable);
        }
        let mut idle = scale(&total, factor);
        idle.sub(&used);
        let mut session = Session {
            tiers,
            idle,
            inqueue: Resources::default(),
            total,
            guarantees: Resources::default(),
            queues: BTreeMap::new(),
            queues_known: !state.volcano_queues.is_empty(),
        };
        for queue in &state.volcano_queues {
            if let Some(g) = &queue.spec.guarantee {
                session.guarantees.add(&Resources::from_list(&g.resource));
            }
            session
                .queues
                .entry(queue.metadata.name.clone())
                .or_default()
                .queue = Some(queue.clone());
        }
        session.count_state_groups(state);
        session.count_state_jobs(state);
        session
    }

    /// Inqueue and Running groups of the state: their pods' requests, what they reserve beyond
    /// them, and their elastic part.
    fn count_state_groups(&mut self, state: &ClusterState) {
        for group in &state.volcano_pod_groups {
            let (bound, allocated) = bound_pods(state, &group.metadata.namespace, |p| {
                p.metadata
                    .annotations
                    .get(GROUP_NAME_ANNOTATION)
                    .is_some_and(|name| *name == group.metadata.name)
            });
            let min = Resources::from_list(&group.spec.min_resources);
            let has_min = !group.spec.min_resources.is_empty();
            let phase = group.status.phase.as_str();
            let quorum = bound.len() >= usize::try_from(group.spec.min_member).unwrap_or(0);
            let reserved = exceeding(&min, &allocated);
            if has_min && phase == "Inqueue" {
                self.inqueue.add(&min);
            } else if has_min && phase == "Running" && quorum {
                self.inqueue.add(&reserved);
            }
            let queue = self.queue_mut(&group.spec.queue);
            queue.allocated.add(&allocated);
            if has_min && (phase == "Inqueue" || (phase == "Running" && quorum)) {
                queue.inqueue.add(&reserved);
            }
            queue.elastic.add(&exceeding(&allocated, &min));
        }
    }

    /// Volcano Jobs of the state with bound pods and no PodGroup in the state: `Running` once
    /// `minAvailable` of them are, else `Inqueue`, counted as their PodGroups would be.
    fn count_state_jobs(&mut self, state: &ClusterState) {
        for job in &state.volcano_jobs {
            let (bound, allocated) = bound_pods(state, &job.metadata.namespace, |p| {
                p.metadata
                    .labels
                    .get(JOB_NAME_LABEL)
                    .is_some_and(|name| *name == job.metadata.name)
            });
            // A live cluster also holds the Job's PodGroup, which its pods join by annotation:
            // counted with the PodGroups already.
            let has_group = bound.iter().any(|p| {
                p.metadata
                    .annotations
                    .get(GROUP_NAME_ANNOTATION)
                    .is_some_and(|group| {
                        state.volcano_pod_groups.iter().any(|g| {
                            g.metadata.namespace == job.metadata.namespace
                                && g.metadata.name == **group
                        })
                    })
            });
            if bound.is_empty() || has_group {
                continue;
            }
            let min = job_min_resources(job, state);
            let reserved = exceeding(&min, &allocated);
            let running =
                i64::try_from(bound.len()).unwrap_or(i64::MAX) >= i64::from(job.spec.min_available);
            self.inqueue.add(if running { &reserved } else { &min });
            let queue = self.queue_mut(&job.spec.queue);
            queue.allocated.add(&allocated);
            queue.inqueue.add(&reserved);
            queue.elastic.add(&exceeding(&allocated, &min));
        }
    }

    fn queue_mut(&mut self, name: &str) -> &mut QueueTotals {
        let totals = self.queues.entry(queue_name(name).to_string()).or_default();
        totals.has_jobs = true;
        totals
    }

    /// The whole cluster's allocatable.
    pub(crate) fn total(&self) -> &Resources {
        &self.total
    }

    /// Every queue's guarantee, summed.
    pub(crate) fn guarantees(&self) -> &Resources {
        &self.guarantees
    }

    /// The queues with groups in the state, each with its Queue object (when the state has
    /// it) and what its groups' bound pods request.
    pub(crate) fn queues_with_jobs(
        &self,
    ) -> impl Iterator<Item = (&str, Option<&VolcanoQueue>, &Resources)> {
        self.queues
            .iter()
            .filter(|(_, q)| q.has_jobs)
            .map(|(name, q)| (name.as_str(), q.queue.as_ref(), &q.allocated))
    }

    /// The state's Queue named `name`.
    pub(crate) fn queue(&self, name: &str) -> Option<&VolcanoQueue> {
        self.queues.get(name).and_then(|q| q.queue.as_ref())
    }

    /// Let `gang` in, counting its minResources for the groups after it, or say why Volcano
    /// leaves it Pending. Only Volcano PodGroups and Jobs not yet enqueued in the state are
    /// gated; one without minResources (a Job whose pods request nothing) is let in.
    pub fn enqueue(&mut self, gang: &Gang, state: &ClusterState) -> Result<(), String> {
        let Some(tiers) = &self.tiers else {
            return Ok(());
        };
        let (min_resources, enqueued) = match &gang.rule {
            PlacementRule::VolcanoPodGroup => {
                let enqueued = state
                    .volcano_pod_groups
                    .iter()
                    .find(|g| {
                        g.metadata.namespace == gang.meta.namespace
                            && g.metadata.name == gang.meta.name
                    })
                    .is_some_and(|g| !matches!(g.status.phase.as_str(), "" | "Pending"));
                (Resources::from_list(&gang.min_resources), enqueued)
            }
            PlacementRule::VolcanoJob(job) => (
                job_min_resources(job, state),
                !gang.running.is_empty() || job_runs(job, state),
            ),
            _ => return Ok(()),
        };
        if enqueued {
            return Ok(());
        }
        let queue_name = queue_name(&gang.queue);
        if self.queues_known
            && queue_name != DEFAULT_QUEUE
            && self
                .queues
                .get(queue_name)
                .is_none_or(|q| q.queue.is_none())
        {
            return Err(format!(
                "not enqueued: queue {queue_name} does not exist, so Volcano's enqueue action \
                 leaves the PodGroup Pending"
            ));
        }
        let names = requested_names(&min_resources);
        if names.is_empty() {
            return Ok(());
        }
        let min = min_resources;
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        for tier in tiers {
            let mut permit = false;
            for voter in tier {
                match self.vote(*voter, queue_name, &min, &names) {
                    Ok(()) => permit = true,
                    Err(reason) => {
                        return Err(format!(
                            "not enqueued: {reason} (Volcano's enqueue action leaves the \
                             PodGroup Pending)"
                        ));
                    }
                }
            }
            if permit {
                break;
            }
        }
        self.inqueue.add(&min);
        self.queue_mut(queue_name).inqueue.add(&min);
        Ok(())
    }

    fn vote(
        &self,
        voter: Voter,
        queue_name: &str,
        min: &Resources,
        names: &[&str],
    ) -> Result<(), String> {
        match voter {
            Voter::Overcommit => {
                let mut want = self.inqueue.clone();
                want.add(min);
                match short(&want, &self.idle, names) {
                    short if short.is_empty() => Ok(()),
                    short => Err(format!(
                        "resource in cluster is overused: {}",
                        list("overused", &short)
                    )),
                }
            }
            Voter::Queue => {
                let totals = self.queues.get(queue_name).cloned().unwrap_or_default();
                let queue = totals.queue.as_ref();
                let state = queue.map_or("", |q| q.status.state.as_str());
                if !matches!(state, "" | "Open") {
                    return Err(format!("queue {queue_name} is {state}"));
                }
                let mut real = exceeding(&self.total, &self.guarantees);
                if let Some(g) = queue.and_then(|q| q.spec.guarantee.as_ref()) {
                    real.add(&Resources::from_list(&g.resource));
                }
                let capability = queue.map(|q| &q.spec.capability);
                let mut want = min.clone();
                want.add(&totals.allocated);
                want.add(&totals.inqueue);
                want.sub(&totals.elastic);
                let limit = |name: &str| {
                    let cap = capability.and_then(|c| capped(c, name));
                    cap.map_or(real.get(name), |c| c.min(real.get(name)))
                };
                let short: Vec<&str> = names
                    .iter()
                    .copied()
                    .filter(|name| want.get(name) > limit(name))
                    .collect();
                if short.is_empty() {
                    Ok(())
                } else {
                    Err(format!(
                        "queue resource quota insufficient: {}",
                        list("insufficient", &short)
                    ))
                }
            }
        }
    }
}

/// The queue a group is in: `default` when it names none.
pub(crate) fn queue_name(name: &str) -> &str {
    if name.is_empty() { DEFAULT_QUEUE } else { name }
}

/// The bound, not terminated pods of `namespace` that `member` picks, and their requests
/// summed (what Volcano's session counts as a job's allocated resources).
fn bound_pods<'s>(
    state: &'s ClusterState,
    namespace: &str,
    member: impl Fn(&Pod) -> bool,
) -> (Vec<&'s Pod>, Resources) {
    let bound: Vec<&Pod> = state
        .pods_in_namespace(namespace)
        .filter(|p| !p.spec.node_name.is_empty() && !p.is_terminated() && member(p))
        .collect();
    let mut allocated = Resources::default();
    for pod in &bound {
        allocated.add(&pod_requests(&pod.spec, false));
    }
    (bound, allocated)
}

/// Whether a pod of `job` is bound in the state (the job is past the enqueue gate).
fn job_runs(job: &VolcanoJob, state: &ClusterState) -> bool {
    state.pods_in_namespace(&job.metadata.namespace).any(|p| {
        !p.spec.node_name.is_empty()
            && !p.is_terminated()
            && p.metadata
                .labels
                .get(JOB_NAME_LABEL)
                .is_some_and(|name| *name == job.metadata.name)
    })
}

/// The minResources Volcano's job controller gives a Job's PodGroup
/// (`calcPGMinResources`): tasks by their priority class's value, higher first (ties in task
/// order); below the tasks' summed minimums, the requests of the first `minAvailable` pods;
/// else each task's minimum, then more replicas up to `minAvailable`.
pub fn job_min_resources(job: &VolcanoJob, state: &ClusterState) -> Resources {
    let priority = |name: &str| {
        state
            .priority_classes
            .iter()
            .find(|pc| pc.metadata.name == name)
            .map_or(0, |pc| pc.value)
    };
    let mut tasks: Vec<&VolcanoTask> = job.spec.tasks.iter().collect();
    tasks.sort_by_key(|t| std::cmp::Reverse(priority(&t.template.spec.priority_class_name)));
    let mut total = Resources::default();
    let mut add = |task: &VolcanoTask, count: i32| {
        let one = pod_requests(&task.template.spec, false);
        for _ in 0..count.max(0) {
            total.add(&one);
        }
    };
    let task_min = |t: &VolcanoTask| t.min_available_or_default();
    let wanted = if job.spec.min_available > 0 {
        job.spec.min_available
    } else {
        tasks.iter().map(|t| task_min(t)).sum()
    };
    let minimums: i32 = tasks.iter().map(|t| task_min(t)).sum();
    let mut left = wanted;
    if wanted < minimums {
        for task in &tasks {
            let take = left.min(task.replicas);
            add(task, take);
            left -= take;
            if left <= 0 {
                break;
            }
        }
        return total;
    }
    for task in &tasks {
        let take = left.min(task_min(task));
        add(task, take);
        left -= take;
    }
    for task in &tasks {
        if left <= 0 {
            break;
        }
        let take = left.min(task.replicas - task_min(task));
        add(task, take);
        left -= take;
    }
    total
}

/// The resources `min` asks for, as Volcano compares them: CPU, memory and extended ones.
fn requested_names(min: &Resources) -> Vec<String> {
    let mut names = Vec::new();
    if min.milli_cpu > 0 {
        names.push("cpu".to_string());
    }
    if min.memory > 0 {
        names.push("memory".to_string());
    }
    if min.ephemeral_storage > 0 {
        names.push("ephemeral-storage".to_string());
    }
    names.extend(
        min.scalar
            .iter()
            .filter(|(_, v)| **v > 0)
            .map(|(k, _)| k.to_string()),
    );
    names
}

/// A queue capability's limit in `name`, when it sets a positive one (0 and below: unlimited).
fn capped(capability: &ResourceList, name: &str) -> Option<i64> {
    let limit = Resources::from_list(capability).get(name);
    (capability.contains_key(name) && limit > 0).then_some(limit)
}

/// The names among `names` where `want` is above `have`.
fn short<'n>(want: &Resources, have: &Resources, names: &[&'n str]) -> Vec<&'n str> {
    names
        .iter()
        .copied()
        .filter(|name| want.get(name) > have.get(name))
        .collect()
}

/// `overused cpu, overused memory`, as `util.FormatResourceNames` writes them.
fn list(word: &str, names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("{word} {n}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// `a - b` per resource, never below 0 (Volcano's `ExceededPart`).
fn exceeding(a: &Resources, b: &Resources) -> Resources {
    let mut out = a.clone();
    out.sub(b);
    out.milli_cpu = out.milli_cpu.max(0);
    out.memory = out.memory.max(0);
    out.ephemeral_storage = out.ephemeral_storage.max(0);
    out.pods = out.pods.max(0);
    for value in out.scalar.values_mut() {
        *value = (*value).max(0);
    }
    out
}

/// `r x factor`, rounded down.
fn scale(r: &Resources, factor: f64) -> Resources {
    let times = |v: i64| (v as f64 * factor) as i64;
    let mut out = r.clone();
    out.milli_cpu = times(r.milli_cpu);
    out.memory = times(r.memory);
    out.ephemeral_storage = times(r.ephemeral_storage);
    out.pods = times(r.pods);
    for value in out.scalar.values_mut() {
        *value = times(*value);
    }
    out
}

/// The voters of each tier and overcommit's factor, from the state's volcano-scheduler
/// configuration; `None` tiers when its actions leave `enqueue` out.
fn read_conf(state: &ClusterState) -> (Option<Vec<Vec<Voter>>>, f64) {
    let conf = SchedulerConf::of(state).and_then(Result::ok);
    let Some(conf) = conf else {
        // Volcano's default configuration: tier 2 holds overcommit, then proportion.
        return (
            Some(vec![vec![Voter::Overcommit, Voter::Queue]]),
            DEFAULT_FACTOR,
        );
    };
    if !conf.runs("enqueue") {
        return (None, DEFAULT_FACTOR);
    }
    let mut factor = DEFAULT_FACTOR;
    let tiers = conf
        .tiers
        .iter()
        .map(|tier| {
            tier.plugins
                .iter()
                .filter(|p| p.enabled_job_enqueued != Some(false))
                .filter_map(|p| match p.name.as_str() {
                    "overcommit" => {
                        let set = match p.arguments.get("overcommit-factor") {
                            Some(Argument::Int(v)) => Some(*v as f64),
                            Some(Argument::Float(v)) => Some(*v),
                            Some(Argument::Text(t)) => t.parse().ok(),
                            Some(Argument::Other(_)) | None => None,
                        };
                        factor = set.filter(|f| *f >= 1.0).unwrap_or(DEFAULT_FACTOR);
                        Some(Voter::Overcommit)
                    }
                    "proportion" | "capacity" => Some(Voter::Queue),
                    _ => None,
                })
                .collect()
        })
        .collect();
    (Some(tiers), factor)
}

#[cfg(test)]
#[path = "enqueue_tests.rs"]
mod tests;
