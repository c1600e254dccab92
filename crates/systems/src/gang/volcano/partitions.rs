//! A Volcano Job task's `partitionPolicy` as the scheduler runs it (v1.15): the job controller
//! gives the PodGroup one `subGroupPolicy` per partitioned task (`subGroupSize =
//! partitionSize`, `minSubGroups = minPartitions`, pods matched by their task and
//! `volcano.sh/partition-id`), and the scheduler makes each partition a sub-job
//! (`api/job_info.go` getOrCreateSubJob) that `allocate` places all or nothing
//! (`allocateResourcesForTasks` keeps a sub-job's pods only once `partitionSize` of them are
//! placed, and gives up on it at its first pod that fits nowhere, every one of its pods being
//! needed). The job is ready (gang's `JobReady`) with its minimum, its tasks' minimums and, per
//! partitioned task, `minPartitions` whole partitions.
//!
//! Order (`organizeJobWorksheet`): the first `minPartitions` partitions of each task are
//! required and come first; then the pods of tasks without a policy (the default sub-job),
//! then the other partitions; partitions by number, then task name. Every sub-job is tried in
//! one turn (Volcano stops once the job is ready and comes back for the rest later).
//!
//! Not modelled: a partition's own `networkTopology` (a HyperNode per partition inside the
//! job's): partitions are placed anywhere in the job's nodes, with a warning.

use std::collections::{BTreeMap, BTreeSet};

use super::allocate::Allocate;
use crate::gang::place::{Attempt, Chooser, Persist, Quorum};
use df_engine::Scheduler;
use df_model::{Pod, VolcanoJob};

/// A partition: its task and number.
pub(crate) type Key = (String, usize);

/// The partitions of one job.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Partitions {
    /// Per pod of the job (in expansion order): its partition, if its task has a policy.
    pub of: Vec<Option<Key>>,
    /// Per partitioned task: pods per partition, and partitions needed.
    pub size: BTreeMap<String, usize>,
    pub min: BTreeMap<String, usize>,
    /// Whether a partitioned task asks for its own network topology.
    pub topology: bool,
}

impl Partitions {
    /// The partitions of `job`, whose pods are `tasks` (each pod's task, in expansion order);
    /// `None` when no task has a partition policy.
    pub(crate) fn of(job: &VolcanoJob, tasks: &[&str]) -> Option<Partitions> {
        let mut out = Partitions::default();
        let mut ordinal: BTreeMap<&str, usize> = BTreeMap::new();
        for task in tasks {
            let spec = job.spec.tasks.iter().find(|t| t.name == *task);
            let index = ordinal.entry(task).or_default();
            out.of.push(
                spec.and_then(|t| t.partition_of(*index))
                    .map(|id| (task.to_string(), id)),
            );
            *index += 1;
        }
        for task in &job.spec.tasks {
            let Some(policy) = &task.partition_policy else {
                continue;
            };
            let count = |v: i32| usize::try_from(v).unwrap_or(0);
            out.size
                .insert(task.name.clone(), count(policy.partition_size).max(1));
            out.min
                .insert(task.name.clone(), count(policy.min_partitions));
            out.topology |= policy.network_topology.is_some();
        }
        (!out.size.is_empty()).then_some(out)
    }

    /// `pending` (indexes of the job's pods) in the order allocate takes their sub-jobs.
    pub(crate) fn order(&self, pending: &[usize]) -> Vec<usize> {
        let required = |key: &Key| key.1 < self.min.get(&key.0).copied().unwrap_or(0);
        let mut order = pending.to_vec();
        order.sort_by_key(|&i| match &self.of[i] {
            Some(key) if required(key) => (0, key.1, key.0.clone(), i),
            None => (1, 0, String::new(), i),
            Some(key) => (2, key.1, key.0.clone(), i),
        });
        order
    }

    /// Whole partitions per task: those whose pods all run or are `placed` (`placed[i]` for
    /// pod `i` of the job; running pods count as placed).
    fn whole(&self, placed: &[bool]) -> BTreeMap<String, usize> {
        let mut members: BTreeMap<&Key, (usize, usize)> = BTreeMap::new();
        for (key, placed) in self.of.iter().zip(placed) {
            if let Some(key) = key {
                let entry = members.entry(key).or_default();
                entry.0 += 1;
                entry.1 += usize::from(*placed);
            }
        }
        let mut whole: BTreeMap<String, usize> = BTreeMap::new();
        for (key, (_, placed)) in members {
            if placed >= self.size[&key.0] {
                *whole.entry(key.0.clone()).or_default() += 1;
            }
        }
        whole
    }

    /// The partitioned tasks short of `minPartitions` whole partitions (gang's
    /// `CheckSubJobReady`), as `task t0 has 1 of minPartitions 2 partitions`.
    pub(crate) fn short(&self, placed: &[bool]) -> Vec<String> {
        let whole = self.whole(placed);
        self.min
            .iter()
            .filter(|(task, min)| whole.get(*task).copied().unwrap_or(0) < **min)
            .map(|(task, min)| {
                format!(
                    "task {task} has {} of minPartitions {min} partitions",
                    whole.get(task).copied().unwrap_or(0)
                )
            })
            .collect()
    }
}

/// One attempt at a partitioned job's pending pods, in `order` (indexes of the job's pods;
/// `pods[at]` is the pod at planning position `at`): a partition's pods are kept only when the
/// whole partition is placed (its running pods counted), else they are taken back and the
/// partition's other pods are not tried; a pod of a task without a policy is placed alone,
/// with `persist`'s queue and failed-task rules, and a failure ends the attempt only when the
/// job needs every pod. The placements stay when the job is then ready (`quorum`, and
/// `minPartitions` whole partitions per task; `running[i]` says pod `i` of the job runs).
#[allow(clippy::too_many_arguments)]
pub(crate) fn place<C: Chooser + Clone>(
    scheduler: &mut Scheduler,
    pods: &[&Pod],
    tasks: &[Option<&str>],
    order: &[usize],
    partitions: &Partitions,
    running: &[bool],
    quorum: &Quorum,
    persist: &mut Allocate,
    chooser: &mut C,
    every_pod_needed: bool,
) -> (Attempt, Vec<String>) {
    let mut outcomes: Vec<Option<Result<String, String>>> = vec![None; pods.len()];
    let mut placed = vec![false; pods.len()];
    let mut gave_up: BTreeSet<Key> = BTreeSet::new();
    // The partition being placed: its key, its first position, and the chooser before it.
    let mut current: Option<(Key, usize, C)> = None;
    let mut stopped = false;
    for (at, pod) in pods.iter().enumerate() {
        let key = partitions.of[order[at]].clone();
        if current.as_ref().map(|c| &c.0) != key.as_ref() {
            current = key.clone().map(|k| (k, at, chooser.clone()));
        }
        if let Some(k) = &key
            && gave_up.contains(k)
        {
            continue;
        }
        let outcome = match persist.skip(at, &placed) {
            Some(reason) => Err(reason),
            None => chooser.choose(scheduler, at, pod),
        };
        match (&outcome, &key) {
            (Ok(node), _) => {
                scheduler.assume((*pod).clone(), node);
                chooser.placed(at, node);
                placed[at] = true;
                outcomes[at] = Some(outcome);
            }
            (Err(_), Some(k)) => {
                let (_, first, before) = current.take().expect("a partition being placed");
                outcomes[at] = Some(outcome);
                let not_whole = format!(
                    "partition {} of task {} not placed: {} was not, and a partition binds \
                     all its {} pods or none",
                    k.1, k.0, pod.metadata.name, partitions.size[&k.0]
                );
                for back in first..at {
                    if placed[back] {
                        scheduler.forget(&pods[back].metadata.namespace, &pods[back].metadata.name);
                        placed[back] = false;
                        outcomes[back] = Some(Err(not_whole.clone()));
                    }
                }
                for later in at + 1..pods.len() {
                    if partitions.of[order[later]].as_ref() == Some(k) {
                        outcomes[later] = Some(Err(not_whole.clone()));
                    }
                }
                *chooser = before;
                gave_up.insert(k.clone());
            }
            (Err(_), None) => {
                outcomes[at] = Some(outcome);
                // Recorded as a failed task (its later pods are skipped); whether to go on is
                // decided here: a job with partitions goes on unless it needs every pod.
                persist.go_on(at, &placed);
                stopped = every_pod_needed;
            }
        }
        if stopped {
            break;
        }
    }
    // Whole partitions count their running pods.
    let mut whole_placed = running.to_vec();
    for (at, p) in placed.iter().enumerate() {
        whole_placed[order[at]] |= *p;
    }
    let short = partitions.short(&whole_placed);
    let ready = quorum.met(&placed, tasks) && short.is_empty();
    if !ready {
        for (pod, _) in pods.iter().zip(&placed).filter(|(_, p)| **p) {
            scheduler.forget(&pod.metadata.namespace, &pod.metadata.name);
        }
    }
    let fit = placed.iter().filter(|p| **p).count();
    (
        Attempt {
            outcomes,
            fit,
            ready,
        },
        short,
    )
}

#[cfg(test)]
#[path = "partitions_tests.rs"]
mod tests;
