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
//! A task's own hard `networkTopology` keeps each of its partitions in one HyperNode inside
//! the job's nodes ([`Nesting`]): per tier from the lowest, the HyperNodes that take the
//! partition, the one binpack scores highest (earlier partitions counted) keeping it. A soft
//! one places the partition anywhere in the job's nodes, as the plugin's sub-job gradient is
//! then the job's HyperNode alone.

use std::collections::BTreeMap;

use super::allocate::Allocate;
use crate::gang::model::Gang;
use crate::gang::place::{Attempt, Chooser, Persist, Quorum};
use crate::topology::binpack::Weights;
use crate::topology::hypernode::HyperNodes;
use crate::topology::{Constraint, Domain, Order, TopologySystem};
use df_engine::{Resources, Scheduler, pod_requests};
use df_model::gang::NetworkTopologySpec;
use df_model::{Pod, VolcanoJob};
use df_state::ClusterState;

/// A partition: its task and number.
pub(crate) type Key = (String, usize);

/// The partitions of one job.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Partitions {
    /// Per pod of the job (in expansion order): its partition, if its task has a policy.
    pub of: Vec<Option<Key>>,
    /// Per partitioned task: pods per partition, and partitions needed.
    pub size: BTreeMap<String, usize>,
    pub min: BTreeMap<String, usize>,
    /// Per partitioned task, its own network topology, when it asks for one.
    pub topology: BTreeMap<String, NetworkTopologySpec>,
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
            if let Some(topology) = &policy.network_topology {
                out.topology.insert(task.name.clone(), topology.clone());
            }
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

/// A chooser that can also choose among given nodes only (a partition's HyperNode).
pub(crate) trait Among: Chooser + Clone {
    fn choose_among(
        &mut self,
        scheduler: &Scheduler,
        at: usize,
        pod: &Pod,
        nodes: &[usize],
    ) -> Result<String, String>;
}

/// Where a task's partitions may go when it asks for its own `networkTopology`: the
/// HyperNodes of each allowed tier (lowest first) inside the job's nodes, and the binpack
/// weights that choose among those that take a partition.
#[derive(Debug, Clone)]
pub(crate) struct Nesting {
    pub rounds: Vec<Vec<Domain>>,
    pub weights: Weights,
    /// `highestTierAllowed 1 (hard)`, for the reason a partition no HyperNode takes.
    pub constraint: String,
}

impl Nesting {
    /// The nesting of `task`'s partitions (its `networkTopology`) within `within` (the job's
    /// nodes, `None`: all), as the HyperNode system reads a job's; `None` in soft mode (the
    /// plugin's sub-job gradient is then the job's HyperNode alone); `Err` is why Volcano
    /// ignores it (a warning).
    pub(crate) fn of(
        gang: &Gang,
        topology: &NetworkTopologySpec,
        state: &ClusterState,
        within: Option<&[usize]>,
    ) -> Result<Option<Nesting>, String> {
        let mut sub = gang.clone();
        sub.network_topology = Some(topology.clone());
        sub.members.clear();
        sub.running.clear();
        let request = match HyperNodes.constraint(&sub, state)? {
            Some(Constraint::Planned(request)) if !request.mode.is_strict() => return Ok(None),
            Some(Constraint::Planned(request)) => request,
            Some(Constraint::Ignored(warning)) => return Err(warning),
            None => return Err("a partition's networkTopology is not read".into()),
        };
        let inside = |domain: &Domain| {
            within.is_none_or(|nodes| domain.nodes.iter().all(|n| nodes.contains(n)))
        };
        let mut weights = Weights::default();
        let rounds = request
            .rounds
            .iter()
            .map(|round| {
                if let Order::BinPack(w) = &round.order {
                    weights = w.clone();
                }
                round
                    .domains
                    .iter()
                    .filter(|d| inside(d))
                    .cloned()
                    .collect()
            })
            .collect();
        Ok(Some(Nesting {
            rounds,
            weights,
            constraint: format!("{} ({})", request.constraint, request.mode.as_str()),
        }))
    }
}

/// A partitioned job's pending pods, as one attempt takes them.
pub(crate) struct Pending<'a> {
    /// The pods in planning order, and each one's task.
    pub pods: &'a [&'a Pod],
    pub tasks: &'a [Option<&'a str>],
    /// Planning position -> index of the pod among the job's.
    pub order: &'a [usize],
    pub partitions: &'a Partitions,
    pub nesting: &'a BTreeMap<String, Nesting>,
    /// Per pod of the job: whether it already runs.
    pub running: &'a [bool],
    pub quorum: &'a Quorum,
    /// The job needs every one of its pods (`NeedContinueAllocating`'s first case).
    pub every_pod_needed: bool,
}

/// One attempt at a partitioned job's `pending` pods: a partition's pods are kept only when
/// the whole partition is placed (its running pods counted), in the HyperNode its task's
/// [`Nesting`] picks when it has one, else they are taken back (the chooser's state with them)
/// and the partition's other pods are not tried; a pod of a task without a policy is placed
/// alone, with `persist`'s queue and failed-task rules, and a failure ends the attempt only
/// when the job needs every pod. The placements stay when the job is then ready (its quorum,
/// and `minPartitions` whole partitions per task). Also answers each task short of its
/// partitions and the HyperNode of each partition placed in one.
pub(crate) fn place<C: Among>(
    scheduler: &mut Scheduler,
    pending: &Pending,
    persist: &mut Allocate,
    chooser: &mut C,
) -> (Attempt, Vec<String>, BTreeMap<Key, String>) {
    let Pending {
        pods,
        tasks,
        order,
        partitions,
        nesting,
        running,
        quorum,
        every_pod_needed,
    } = *pending;
    let mut outcomes: Vec<Option<Result<String, String>>> = vec![None; pods.len()];
    let mut placed = vec![false; pods.len()];
    let mut homes: BTreeMap<Key, String> = BTreeMap::new();
    let mut at = 0;
    while at < pods.len() {
        let Some(key) = partitions.of[order[at]].clone() else {
            let outcome = match persist.skip(at, &placed) {
                Some(reason) => Err(reason),
                None => chooser.choose(scheduler, at, pods[at]),
            };
            let failed = outcome.is_err();
            if let Ok(node) = &outcome {
                scheduler.assume(pods[at].clone(), node);
                chooser.placed(at, node);
                placed[at] = true;
            }
            outcomes[at] = Some(outcome);
            if failed {
                // Recorded as a failed task (its later pods are skipped); whether to go on is
                // decided here: a job with partitions goes on unless it needs every pod.
                persist.go_on(at, &placed);
                if every_pod_needed {
                    break;
                }
            }
            at += 1;
            continue;
        };
        let end = (at..pods.len())
            .find(|&i| partitions.of[order[i]].as_ref() != Some(&key))
            .unwrap_or(pods.len());
        let unit = Unit {
            pods,
            positions: at..end,
            persist,
        };
        let result = match nesting.get(&key.0) {
            Some(nest) => unit.place_nested(scheduler, chooser, &mut placed, nest),
            None => unit
                .place(scheduler, chooser, &mut placed, None)
                .map(|nodes| (nodes, None)),
        };
        match result {
            Ok((nodes, home)) => {
                for (i, node) in (at..end).zip(nodes) {
                    outcomes[i] = Some(Ok(node));
                }
                if let Some(home) = home {
                    homes.insert(key.clone(), home);
                }
            }
            Err(Failed { at: failed, reason }) => {
                let not_whole = match failed {
                    Some(failed) => format!(
                        "partition {} of task {} not placed: {} was not, and a partition binds \
                         all its {} pods or none",
                        key.1, key.0, pods[failed].metadata.name, partitions.size[&key.0]
                    ),
                    None => format!("partition {} of task {} not placed: {reason}", key.1, key.0),
                };
                for outcome in &mut outcomes[at..end] {
                    *outcome = Some(Err(not_whole.clone()));
                }
                if let Some(failed) = failed {
                    outcomes[failed] = Some(Err(reason));
                }
            }
        }
        at = end;
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
    let attempt = Attempt {
        outcomes,
        fit,
        ready,
    };
    (attempt, short, homes)
}

/// One partition's pods: planning positions `positions` of `pods`.
struct Unit<'u, 'a> {
    pods: &'u [&'u Pod],
    positions: std::ops::Range<usize>,
    persist: &'u Allocate<'a>,
}

/// Why a partition is not placed: the pod that was not (its position and reason), or `None`
/// with the reason no HyperNode took it.
struct Failed {
    at: Option<usize>,
    reason: String,
}

impl Unit<'_, '_> {
    /// Place every pod of the partition (among `nodes` when given) or none: on the first pod
    /// that is not placed, the others are taken back, the chooser too.
    fn place<C: Among>(
        &self,
        scheduler: &mut Scheduler,
        chooser: &mut C,
        placed: &mut [bool],
        nodes: Option<&[usize]>,
    ) -> Result<Vec<String>, Failed> {
        let before = chooser.clone();
        let mut chosen = Vec::new();
        for at in self.positions.clone() {
            let pod = self.pods[at];
            let outcome = match self.persist.skip(at, placed) {
                Some(reason) => Err(reason),
                None => match nodes {
                    Some(nodes) => chooser.choose_among(scheduler, at, pod, nodes),
                    None => chooser.choose(scheduler, at, pod),
                },
            };
            match outcome {
                Ok(node) => {
                    scheduler.assume(pod.clone(), &node);
                    chooser.placed(at, &node);
                    placed[at] = true;
                    chosen.push(node);
                }
                Err(reason) => {
                    let start = self.positions.start;
                    for (pod, placed) in self.pods[start..at].iter().zip(&mut placed[start..at]) {
                        scheduler.forget(&pod.metadata.namespace, &pod.metadata.name);
                        *placed = false;
                    }
                    *chooser = before;
                    return Err(Failed {
                        at: Some(at),
                        reason,
                    });
                }
            }
        }
        Ok(chosen)
    }

    /// Place the partition in one HyperNode of `nest` (`allocateForSubJob`): tier by tier,
    /// the partition is tried in each HyperNode on a copy; of those that take it, the one
    /// with the best binpack score (the fullest once it is in; ties by name) keeps it. A
    /// partition no HyperNode takes is left out.
    fn place_nested<C: Among>(
        &self,
        scheduler: &mut Scheduler,
        chooser: &mut C,
        placed: &mut [bool],
        nest: &Nesting,
    ) -> Result<(Vec<String>, Option<String>), Failed> {
        let mut request = Resources::default();
        for at in self.positions.clone() {
            request.add(&pod_requests(&self.pods[at].spec, false));
        }
        for round in &nest.rounds {
            let mut best: Option<(f64, &Domain)> = None;
            for domain in round {
                let mut trial = scheduler.branch();
                let mut c = chooser.clone();
                let mut p = placed.to_vec();
                if self
                    .place(&mut trial, &mut c, &mut p, Some(&domain.nodes))
                    .is_ok()
                {
                    let score = nest.weights.score(scheduler, &domain.nodes, &request);
                    if best.is_none_or(|(s, _)| score > s) {
                        best = Some((score, domain));
                    }
                }
            }
            if let Some((_, domain)) = best {
                let nodes = self.place(scheduler, chooser, placed, Some(&domain.nodes))?;
                return Ok((nodes, Some(domain.name.clone())));
            }
        }
        Err(Failed {
            at: None,
            reason: format!("{}: no HyperNode in the job's takes it", nest.constraint),
        })
    }
}

#[cfg(test)]
#[path = "partitions_tests.rs"]
mod tests;
