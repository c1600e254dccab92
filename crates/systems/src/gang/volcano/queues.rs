//! Volcano's `allocate` action over several queues (`actions/allocate/allocate.go`
//! allocateResources, v1.15): the queues in a priority queue ordered by `QueueOrderFn`
//! (proportion: `spec.priority` higher first, then the lower share; then creation time and
//! name); each pop takes one job of that queue, in job order, and pushes the queue back, so
//! queues take turns; a queue proportion calls `Overused` is dropped with the jobs it still
//! holds; each pod must pass proportion's `Allocatable` ([`proportion`]). Whether proportion's
//! queue order, overused and allocatable functions count follows the volcano-scheduler
//! configuration (Volcano's default one enables them).
//!
//! A job's turn places every pod it can at once: Volcano stops a ready job and comes back for
//! the rest in a later turn, which this plan does not model (as in [`super::allocate`]).

use std::collections::{BTreeMap, VecDeque};

use super::enqueue::{Session, queue_name};
pub(crate) use super::proportion::QueueAttr as QueueRoom;
use super::proportion::{Amount, deserve};
use crate::volcano_conf::SchedulerConf;
use df_engine::Resources;
use df_model::{ResourceList, VolcanoQueue};
use df_state::ClusterState;

/// Which of proportion's queue functions the configuration enables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Switches {
    order: bool,
    overused: bool,
    allocatable: bool,
}

impl Switches {
    /// From the state's volcano-scheduler configuration; Volcano's default one (also used when
    /// the ConfigMap cannot be read) enables all three.
    fn of(state: &ClusterState) -> Switches {
        let all = Switches {
            order: true,
            overused: true,
            allocatable: true,
        };
        let Some(conf) = SchedulerConf::of(state).and_then(Result::ok) else {
            return all;
        };
        match conf.plugin("proportion") {
            Some(p) => Switches {
                order: p.enable_queue_order != Some(false),
                overused: p.enabled_overused != Some(false),
                allocatable: p.enabled_allocatable != Some(false),
            },
            None => Switches {
                order: false,
                overused: false,
                allocatable: false,
            },
        }
    }
}

/// The session's queues, as proportion opens them.
pub(crate) struct Queues {
    attrs: BTreeMap<String, QueueRoom>,
    switches: Switches,
}

/// What a job's turn is.
pub(crate) enum Turn<'a> {
    /// Place the job; each pod must pass the queue's check, when proportion's allocatable
    /// function is on.
    Place(Option<&'a QueueRoom>),
    /// The job's queue is overused: the job is not tried, for this reason.
    Skip(String),
}

impl Queues {
    /// The queues of the state's groups (what their bound pods request, from `enqueue`) and
    /// of the plan's jobs, with `pending` (queue, a pending pod's requests) of the plan's
    /// jobs, each given its deserved share of the cluster.
    pub(crate) fn new(
        enqueue: &Session,
        state: &ClusterState,
        pending: &[(String, Resources)],
    ) -> Queues {
        let total = Amount::of(enqueue.total());
        let free = total.exceeding(&Amount::of(enqueue.guarantees()));
        let attr = |name: &str, queue: Option<&VolcanoQueue>, allocated: &Resources| {
            let guarantee = queue
                .and_then(|q| q.spec.guarantee.as_ref())
                .map(|g| Amount::of(&Resources::from_list(&g.resource)))
                .unwrap_or_default();
            let mut real = free.clone();
            real.add(&guarantee);
            QueueRoom {
                name: name.to_string(),
                weight: queue.and_then(|q| q.spec.weight).map_or(1, i64::from),
                priority: queue.and_then(|q| q.spec.priority).unwrap_or(0),
                created: queue
                    .and_then(|q| q.metadata.creation_timestamp.as_deref())
                    .unwrap_or("")
                    .to_string(),
                closed: queue
                    .map(|q| q.status.state.as_str())
                    .filter(|s| !matches!(*s, "" | "Open"))
                    .map(str::to_string),
                real_capability: capped(&real, queue.map(|q| &q.spec.capability)),
                guarantee,
                allocated: Amount::of(allocated),
                request: Amount::of(allocated),
                deserved: Amount::default(),
            }
        };
        let mut attrs: BTreeMap<String, QueueRoom> = enqueue
            .queues_with_jobs()
            .map(|(name, queue, allocated)| (name.to_string(), attr(name, queue, allocated)))
            .collect();
        for (queue, request) in pending {
            let name = queue_name(queue);
            let entry = attrs
                .entry(name.to_string())
                .or_insert_with(|| attr(name, enqueue.queue(name), &Resources::default()));
            entry.request.add(&Amount::of(request));
        }
        let mut list: Vec<QueueRoom> = attrs.into_values().collect();
        deserve(&total, &mut list);
        Queues {
            attrs: list.into_iter().map(|q| (q.name.clone(), q)).collect(),
            switches: Switches::of(state),
        }
    }

    /// The order of queues: proportion's (higher priority, then lower share) when enabled, then
    /// creation time, then name.
    fn key(&self, name: &str) -> (i64, f64, String, String) {
        let q = &self.attrs[name];
        let (priority, share) = if self.switches.order {
            (-i64::from(q.priority), q.share())
        } else {
            (0, 0.0)
        };
        (priority, share, q.created.clone(), q.name.clone())
    }

    /// Allocate `jobs` (an index and the group's queue, in job order) queue by queue: `turn`
    /// places a job (or reports it skipped) and answers what its placed pods request, which
    /// the queue then holds.
    pub(crate) fn allocate<E>(
        &mut self,
        jobs: &[(usize, String)],
        mut turn: impl FnMut(usize, Turn<'_>) -> Result<Resources, E>,
    ) -> Result<(), E> {
        let mut waiting: BTreeMap<String, VecDeque<usize>> = BTreeMap::new();
        for (job, queue) in jobs {
            waiting
                .entry(queue_name(queue).to_string())
                .or_default()
                .push_back(*job);
        }
        loop {
            let next = waiting.keys().min_by(|a, b| {
                let (ka, kb) = (self.key(a), self.key(b));
                ka.0.cmp(&kb.0)
                    .then(ka.1.total_cmp(&kb.1))
                    .then_with(|| ka.2.cmp(&kb.2))
                    .then_with(|| ka.3.cmp(&kb.3))
            });
            let Some(name) = next.cloned() else {
                return Ok(());
            };
            let attr = &self.attrs[&name];
            if self.switches.overused && attr.overused() {
                let reason = attr.overused_reason();
                for job in waiting.remove(&name).unwrap_or_default() {
                    turn(job, Turn::Skip(reason.clone()))?;
                }
                continue;
            }
            let jobs = waiting.get_mut(&name).expect("a waiting queue");
            let job = jobs.pop_front().expect("a queue waits with jobs");
            if jobs.is_empty() {
                waiting.remove(&name);
            }
            let room = self.switches.allocatable.then_some(attr);
            let placed = turn(job, Turn::Place(room))?;
            self.attrs
                .get_mut(&name)
                .expect("the queue popped")
                .allocated
                .add(&Amount::of(&placed));
        }
    }
}

/// `real` within a queue's `capability`: its CPU and memory when positive (Volcano reads 0 and
/// below as unlimited), its other resources as set; unnamed resources stay unlimited.
fn capped(real: &Amount, capability: Option<&ResourceList>) -> BTreeMap<String, f64> {
    let mut out = real.as_map();
    if let Some(capability) = capability.filter(|c| !c.is_empty()) {
        let cap = Amount::of(&Resources::from_list(capability));
        for name in capability.keys().filter(|n| *n != "pods") {
            let limit = cap.get(name);
            if matches!(name.as_str(), "cpu" | "memory") && limit <= 0.0 {
                continue;
            }
            let entry = out.entry(name.to_string()).or_insert(limit);
            *entry = entry.min(limit);
        }
    }
    out
}

#[cfg(test)]
#[path = "queues_tests.rs"]
mod tests;
