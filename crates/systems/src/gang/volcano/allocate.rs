//! How far Volcano's `allocate` action goes with a job whose pod fits nowhere
//! (volcano-sh/volcano `actions/allocate/allocate.go` allocateResourcesForTasks and
//! `api/job_info.go` NeedContinueAllocating, v1.15): a later pod of a task (role) that already
//! failed is skipped, and after a failure the job goes on only while it can still become ready.
//! Once the job is ready Volcano commits it and comes back for the rest in later rounds, so
//! every remaining pod is still tried. Before any of that, a pod its queue cannot take
//! (proportion's `Allocatable`) is passed over without counting as a failure.

use std::collections::{BTreeMap, BTreeSet};

use super::proportion::{Amount, QueueAttr};
use crate::gang::place::{Persist, Quorum};

/// Volcano's rule for one attempt at a job's pending pods, in planning order.
pub(crate) struct Allocate<'a> {
    /// The task (role) of each pending pod; a pod without one is of the empty role.
    tasks: &'a [Option<&'a str>],
    /// What the pending pods must still reach (the job is ready once it is met).
    quorum: &'a Quorum,
    /// The job's `minAvailable` (`minMember`).
    min: usize,
    /// Every pod of the job: running and pending.
    all: usize,
    /// Pods of the job already bound.
    running: usize,
    /// Each task's minimum (`minTaskMember`) and how many of its pods already run.
    task_min: &'a BTreeMap<String, i64>,
    running_of: BTreeMap<String, usize>,
    /// Roles with a pod that fit nowhere (`FitFailedRoles`); the empty role is `""`.
    failed: BTreeSet<&'a str>,
    /// The job's queue, when proportion checks each pod against it, and each pending pod's
    /// requests.
    queue: Option<(&'a QueueAttr, Vec<Amount>)>,
}

impl<'a> Allocate<'a> {
    /// The rule for pending pods of `tasks`, of a job of `running` bound pods
    /// (`running_of` per task) with minimum `min` and per-task minimums `task_min`.
    pub(crate) fn new(
        tasks: &'a [Option<&'a str>],
        quorum: &'a Quorum,
        min: usize,
        running: usize,
        task_min: &'a BTreeMap<String, i64>,
        running_of: BTreeMap<String, usize>,
    ) -> Allocate<'a> {
        Allocate {
            tasks,
            quorum,
            min,
            all: running + tasks.len(),
            running,
            task_min,
            running_of,
            failed: BTreeSet::new(),
            queue: None,
        }
    }

    /// Check each pod against `queue` first (`ssn.Allocatable`), `requests` being what each
    /// pending pod asks for.
    pub(crate) fn in_queue(mut self, queue: Option<&'a QueueAttr>, requests: Vec<Amount>) -> Self {
        self.queue = queue.map(|q| (q, requests));
        self
    }

    fn role(&self, index: usize) -> &'a str {
        self.tasks[index].unwrap_or("")
    }

    /// Upstream's `NeedContinueAllocating` after a failure, with `placed` the pods allocated so
    /// far: never when every pod is needed; when the job's minimum is below the sum of its
    /// tasks' minimums, while the pods that fit plus the untried ones of roles that have not
    /// failed can reach it; otherwise unless a failed role is short of its own minimum.
    fn need_continue(&self, placed: &[bool]) -> bool {
        if self.min >= self.all {
            return false;
        }
        let task_total: i64 = self.task_min.values().sum();
        let ready = self.running + placed.iter().filter(|p| **p).count();
        if (self.min as i64) < task_total {
            let left = (0..placed.len())
                .filter(|&i| !placed[i] && !self.failed.contains(self.role(i)))
                .count();
            return ready + left >= self.min;
        }
        self.failed.iter().all(|role| {
            let need = self.task_min.get(*role).copied().unwrap_or(0);
            let allocated = self.running_of.get(*role).copied().unwrap_or(0)
                + (0..placed.len())
                    .filter(|&i| placed[i] && self.role(i) == *role)
                    .count();
            need <= 0 || allocated as i64 >= need
        })
    }
}

impl Persist for Allocate<'_> {
    /// A pod of a task that already failed (`TaskHasFitErrors`; pods without a task are
    /// always tried).
    fn skip(&self, index: usize, placed: &[bool]) -> Option<String> {
        if let Some((queue, requests)) = &self.queue {
            let mut more = Amount::default();
            for (request, _) in requests.iter().zip(placed).filter(|(_, p)| **p) {
                more.add(request);
            }
            if let Err(reason) = queue.allocatable(&more, &requests[index]) {
                return Some(format!("not allocated: {reason}"));
            }
        }
        let task = self.tasks[index]?;
        self.failed.contains(task).then(|| {
            format!(
                "not tried: a pod of task {task} already fit no node, so Volcano skips the \
                 task's other pods"
            )
        })
    }

    fn go_on(&mut self, index: usize, placed: &[bool]) -> bool {
        self.failed.insert(self.role(index));
        self.quorum.met(placed, self.tasks) || self.need_continue(placed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `NeedContinueAllocating` case by case (`job_info.go`), in data of our own: four pending
    /// pods ps, ps, worker, worker; the second ps just failed (the first fit, unless said).
    #[test]
    fn need_continue_follows_the_job_and_task_minimums() {
        let tasks = [Some("ps"), Some("ps"), Some("worker"), Some("worker")];
        let ps_fit = [true, false, false, false];
        let mins = |m: &[(&str, i64)]| -> BTreeMap<String, i64> {
            m.iter().map(|(t, n)| (t.to_string(), *n)).collect()
        };
        struct Case {
            name: &'static str,
            min: usize,
            running: usize,
            task_min: BTreeMap<String, i64>,
            placed: [bool; 4],
            want: bool,
        }
        let cases = [
            Case {
                // min 4 = all 4 pods: every pod is needed, the first failure ends the job.
                name: "every pod needed",
                min: 4,
                running: 0,
                placed: ps_fit,
                task_min: mins(&[]),
                want: false,
            },
            Case {
                // 2 running + 4 pending = 6 = min.
                name: "every pod needed, running ones counted",
                min: 6,
                running: 2,
                placed: ps_fit,
                task_min: mins(&[]),
                want: false,
            },
            Case {
                // min 2 >= sum 2; ps has 1 of its 1: the workers may still make the job.
                name: "the failed task has its minimum",
                min: 2,
                running: 0,
                placed: ps_fit,
                task_min: mins(&[("ps", 1), ("worker", 1)]),
                want: true,
            },
            Case {
                // min 2 >= sum 2; ps has 1 of its 2: the job cannot become ready.
                name: "the failed task is short of its minimum",
                min: 2,
                running: 0,
                placed: ps_fit,
                task_min: mins(&[("ps", 2), ("worker", 0)]),
                want: false,
            },
            Case {
                // min 3 < sum 4: 1 fit + 2 untried workers = 3 >= 3.
                name: "below the tasks' sum: enough untried pods of other tasks",
                min: 3,
                running: 0,
                placed: ps_fit,
                task_min: mins(&[("ps", 2), ("worker", 2)]),
                want: true,
            },
            Case {
                // min 4 < sum 6, 1 running: 1 + 0 fit + 2 untried workers = 3 < 4 (ps-0 did
                // not fit either, so ps, the failed role, counts for nothing).
                name: "below the tasks' sum: too few left",
                min: 4,
                running: 1,
                task_min: mins(&[("ps", 3), ("worker", 3)]),
                placed: [false; 4],
                want: false,
            },
            Case {
                // Tasks without minimums (sum 0 <= min 3, min 3 < 4 pods): the failed ps has no
                // minimum, so the workers are tried.
                name: "no task minimums",
                min: 3,
                running: 0,
                placed: ps_fit,
                task_min: mins(&[]),
                want: true,
            },
        ];
        for case in cases {
            let quorum = Quorum {
                total: case.min.saturating_sub(case.running),
                per_task: BTreeMap::new(),
            };
            let mut rule = Allocate::new(
                &tasks,
                &quorum,
                case.min,
                case.running,
                &case.task_min,
                BTreeMap::new(),
            );
            assert_eq!(rule.go_on(1, &case.placed), case.want, "{}", case.name);
            // The other ps is skipped from now on; the workers are not.
            assert!(
                rule.skip(0, &case.placed).is_some() && rule.skip(2, &case.placed).is_none(),
                "{}",
                case.name
            );
        }
    }
}
