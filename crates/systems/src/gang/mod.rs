//! Gangs, every kind through one model: [`model`] holds what every gang shares, [`place`] the
//! one all-or-nothing placement path, [`outcome`] the one report shape, and one adapter file
//! per kind says only how that kind is read. A new gang kind is one file implementing
//! [`model::Adapter`] plus one line in [`ADAPTERS`].
//!
//! Module graph (no cycle): `model` and `outcome` are leaves; `place` uses both; each adapter
//! uses those three; this module uses the adapters.

pub mod coscheduling;
pub mod godel;
pub(crate) mod kube_batch;
pub mod kueue;
pub mod model;
pub mod outcome;
pub mod place;
pub mod volcano;
pub mod workload;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;

use crate::topology::{self, Constraint};
use df_engine::{Resources, Scheduler, pod_requests};
use df_manifest::ManifestSet;
use df_model::{Object, ObjectMeta, Pod};
use df_state::ClusterState;
pub use model::{
    Adapter, Gang, Member, PlacementRule, PodSource, RejectedPod, SchedulerRoutes, System,
};
pub use outcome::{GangStatus, GroupPlan};

/// Every gang kind. The order is the order in which a pod's joining rules are tried.
pub static ADAPTERS: &[&dyn Adapter] = &[
    &godel::Godel,
    &volcano::VolcanoJobs,
    &volcano::VolcanoPodGroups,
    &kube_batch::KubeBatch,
    &coscheduling::Coscheduling,
    &workload::Workloads,
    &workload::WorkloadPodGroups,
    &kueue::KueueJobs,
    &kueue::KUEUE_WORKLOADS[0],
    &kueue::KUEUE_WORKLOADS[1],
    &kueue::KUEUE_WORKLOADS[2],
    &kueue::KUEUE_WORKLOADS[3],
    &kueue::KUEUE_WORKLOADS[4],
    &kueue::KUEUE_WORKLOADS[5],
    &kueue::KUEUE_WORKLOADS[6],
    &kueue::KUEUE_WORKLOADS[7],
    &kueue::KUEUE_WORKLOADS[8],
    &kueue::KUEUE_WORKLOADS[9],
    &kueue::KUEUE_WORKLOADS[10],
    &kueue::KUEUE_WORKLOADS[11],
    &kueue::KUEUE_WORKLOADS[12],
    &kueue::KueuePods,
];

/// Options of `plan` that shape gang plans.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GangOptions {
    /// `--replicas N`: plan N copies of each pod template that joins a gang.
    pub replicas: Option<usize>,
    /// `--compare`: also place the pods with the plain default scheduler.
    pub compare: bool,
    /// `schedulerName` -> system.
    pub routes: SchedulerRoutes,
}

/// A gang that cannot be planned at all (running pods in conflicting domains), named by kind,
/// namespace and name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind} {namespace}/{name}: {message}")]
pub struct GangError {
    pub kind: &'static str,
    pub namespace: String,
    pub name: String,
    pub message: String,
}

impl GangError {
    /// `message` about `gang`.
    pub fn of(gang: &Gang, message: String) -> GangError {
        GangError {
            kind: gang.kind.kind,
            namespace: gang.meta.namespace.clone(),
            name: gang.meta.name.clone(),
            message,
        }
    }
}

/// Every group `pod` joins, as (index into [`ADAPTERS`], group name). More than one means the
/// pod is joined to several groups; the first wins.
pub fn joined(pod: &Pod) -> Vec<(usize, String)> {
    ADAPTERS
        .iter()
        .enumerate()
        .filter_map(|(k, adapter)| Some((k, adapter.joins(pod)?)))
        .collect()
}

/// The one group `pod` joins among `joined(pod)`: a group that exists (`exists`) first, then
/// one of a kind its scheduler honours (Volcano and kube-batch read the same annotation), then
/// the first in registry order.
pub fn group_of(
    pod: &Pod,
    routes: &SchedulerRoutes,
    exists: impl Fn(usize, &str) -> bool,
) -> Option<(usize, String)> {
    let candidates = joined(pod);
    let system = routes.system(&pod.spec.scheduler_name);
    candidates
        .iter()
        .find(|(k, name)| exists(*k, name))
        .or_else(|| {
            candidates
                .iter()
                .find(|(k, _)| Some(ADAPTERS[*k].kind().honoured_by) == system)
        })
        .or(candidates.first())
        .cloned()
}

/// Whether `pod` belongs to some gang rather than to the batch.
pub fn joins_any(pod: &Pod) -> bool {
    !joined(pod).is_empty()
}

type Key = (usize, String, String);

/// A pod of the inputs, or replicas of a template (`--replicas N`, else the template's own).
fn input_pods(manifests: &ManifestSet, replicas: Option<usize>) -> Vec<(Pod, PodSource)> {
    let mut pods = Vec::new();
    for manifest in &manifests.manifests {
        match &manifest.object {
            Object::Pod(pod) => match replicas {
                Some(n) => {
                    pods.extend(copies(pod, n).into_iter().map(|p| (p, PodSource::Manifest)))
                }
                None => pods.push((pod.clone(), PodSource::Manifest)),
            },
            Object::Workload(w) => {
                let n = replicas.unwrap_or(usize::try_from(w.replicas).unwrap_or(0));
                let from = PodSource::Template(format!("{}/{}", w.kind, w.metadata.name));
                pods.extend((0..n).map(|i| {
                    let mut pod = w.replica(i);
                    kueue::mark_job_pod(w, &mut pod);
                    (pod, from.clone())
                }));
            }
            _ => {}
        }
    }
    pods
}

/// The gangs of the manifests (given, or in the state and joined by a given pod) with their
/// members: pods of the inputs and pending pods of the state that join them, and their running
/// pods. A given pod whose group exists nowhere makes a gang with `defined == false`. Without
/// any manifests, the gangs of the state that still have pods to place. Sorted by kind,
/// namespace and name.
pub fn gangs(manifests: &ManifestSet, state: &ClusterState, opts: &GangOptions) -> Vec<Gang> {
    let given = model::GangObjects::from_manifests(manifests);
    let stored = model::GangObjects::from_state(state);
    let from_state = manifests.manifests.is_empty();
    let mut found: BTreeMap<Key, Gang> = BTreeMap::new();
    let mut in_state: BTreeMap<Key, Gang> = BTreeMap::new();
    for (k, adapter) in ADAPTERS.iter().enumerate() {
        for gang in adapter.define(&given) {
            found.insert(
                (k, gang.meta.namespace.clone(), gang.meta.name.clone()),
                gang,
            );
        }
        for gang in adapter.define(&stored) {
            in_state.insert(
                (k, gang.meta.namespace.clone(), gang.meta.name.clone()),
                gang,
            );
        }
    }
    let mut given_members: BTreeMap<Key, Vec<Member>> = BTreeMap::new();
    for (pod, source) in input_pods(manifests, opts.replicas) {
        let namespace = pod.metadata.namespace.clone();
        let exists = |k: usize, name: &str| {
            let key = (k, namespace.clone(), name.to_string());
            found.contains_key(&key) || in_state.contains_key(&key)
        };
        let Some((k, name)) = group_of(&pod, &opts.routes, exists) else {
            continue;
        };
        let chosen = (k, namespace.clone(), name);
        let members = given_members.entry(chosen).or_default();
        // The same pod given twice (a directory and a file in it) is one pod.
        members.retain(|m| m.pod.metadata.name != pod.metadata.name);
        members.push(Member {
            task: model::task_of(&pod),
            pod,
            source,
        });
    }
    for (key, gang) in in_state {
        if !found.contains_key(&key) && (from_state || given_members.contains_key(&key)) {
            found.insert(key, gang);
        }
    }
    for (key, members) in &given_members {
        if !found.contains_key(key) {
            let (k, namespace, name) = key.clone();
            let implied = members
                .first()
                .and_then(|first| ADAPTERS[k].implied(&given, &name, &first.pod));
            let gang = implied.unwrap_or_else(|| {
                let meta = ObjectMeta {
                    name,
                    namespace,
                    ..ObjectMeta::default()
                };
                let mut gang = Gang::new(ADAPTERS[k].kind(), "", &meta, 0);
                gang.defined = false;
                gang
            });
            found.insert(key.clone(), gang);
        }
    }
    let mut gangs = Vec::new();
    for (key, mut gang) in found {
        let given = given_members.remove(&key).unwrap_or_default();
        if let PlacementRule::VolcanoJob(job) = &gang.rule {
            // A Job's pods are its tasks; which of them already run is read by its planner.
            let waiting = gang.members.iter().any(|m| {
                state
                    .pod(&job.metadata.namespace, &m.pod.metadata.name)
                    .is_none_or(|p| p.spec.node_name.is_empty())
            });
            if !from_state || waiting {
                gangs.push(gang);
            }
            continue;
        }
        let adapter = ADAPTERS[key.0];
        let name = &key.2;
        let (state_pods, finished): (Vec<&Pod>, Vec<&Pod>) = state
            .pods_in_namespace(&key.1)
            .filter(|p| adapter.joins(p).as_ref() == Some(name))
            .partition(|p| !p.is_terminated());
        gang.finished = finished.len();
        gang.running = state_pods
            .iter()
            .filter(|p| !p.spec.node_name.is_empty())
            .map(|&p| p.clone())
            .collect();
        let is_given = |p: &Pod| given.iter().any(|g| g.pod.metadata.name == p.metadata.name);
        gang.members = state_pods
            .iter()
            .filter(|p| p.spec.node_name.is_empty() && !is_given(p))
            .map(|&p| Member {
                pod: p.clone(),
                task: model::task_of(p),
                source: PodSource::State,
            })
            .collect();
        let running = &gang.running;
        gang.members.extend(given.into_iter().filter(|g| {
            !running
                .iter()
                .any(|r| r.metadata.name == g.pod.metadata.name)
        }));
        if from_state && gang.members.is_empty() {
            continue;
        }
        gangs.push(gang);
    }
    gangs.sort_by(|a, b| {
        let key = |g: &Gang| {
            (
                g.kind.kind,
                g.meta.namespace.clone(),
                g.meta.name.clone(),
                g.kind.id,
            )
        };
        key(a).cmp(&key(b))
    });
    gangs
}

/// Plan one gang against the plan's one assumed state: its placements stay in `scheduler` for
/// everything planned after it. Gangs that cannot be tried (group missing, scheduler not
/// modelled, pods still missing) are reported as such, and nothing is assumed. Pods the API
/// server rejected are warned about, whatever becomes of the gang.
pub fn plan_gang(
    scheduler: &mut Scheduler,
    gang: &Gang,
    routes: &SchedulerRoutes,
    compare: bool,
    enqueue: &mut volcano::enqueue::Session,
) -> Result<GroupPlan, GangError> {
    let plan = match gate(scheduler, gang, routes, enqueue) {
        Gate::Done(plan) => *plan,
        Gate::Place(system) => place_gang(scheduler, gang, system, compare, None)?,
    };
    Ok(with_rejected(gang, plan))
}

/// `plan` with the warnings about the gang's pods the API server rejected.
fn with_rejected(gang: &Gang, mut plan: GroupPlan) -> GroupPlan {
    for rejected in &gang.rejected {
        plan.warnings
            .push(format!("rejected at admission: {}", rejected.reason));
        plan.rejected_at_admission
            .insert(rejected.pod.metadata.name.clone(), rejected.reason.clone());
    }
    plan
}

/// What becomes of a gang before any of its pods is tried.
enum Gate {
    /// It is not planned: its plan says why.
    Done(Box<GroupPlan>),
    /// Its pods go to this system.
    Place(System),
}

/// Whether `gang` can be tried at all: its group exists, its Volcano Job is admitted, its
/// scheduler is modelled, Volcano's enqueue action lets it in, and enough of its pods exist.
fn gate(
    scheduler: &Scheduler,
    gang: &Gang,
    routes: &SchedulerRoutes,
    enqueue: &mut volcano::enqueue::Session,
) -> Gate {
    let state = scheduler.state();
    let scheduler_name = gang.scheduler_name().to_string();
    let system = routes.system(&scheduler_name);
    let coscheduled = matches!(gang.rule, PlacementRule::Coscheduling);
    let existing =
        gang.members.len() + gang.running.len() + if coscheduled { gang.finished } else { 0 };
    let kind = gang.kind;
    let not_planned = |status: GangStatus, reason: String| {
        let mut plan = outcome::unplanned(gang, state, status, reason);
        plan.system = system;
        Gate::Done(Box::new(plan))
    };
    if !gang.defined {
        return not_planned(
            GangStatus::GroupNotFound,
            format!(
                "joins {} {} {}/{}, which is in neither the inputs nor the state",
                kind.id, kind.kind, gang.meta.namespace, gang.meta.name
            ),
        );
    }
    if let PlacementRule::VolcanoJob(job) = &gang.rule
        && let Some(denial) = volcano::admission::denied(job)
    {
        // The Job is never created, so none of its pods is.
        return not_planned(GangStatus::Unschedulable, denial);
    }
    let Some(system) = system else {
        return not_planned(
            GangStatus::NotModelled,
            format!(
                "schedulerName {} maps to no modelled scheduler: not planned",
                shown_name(gang)
            ),
        );
    };
    if system == kind.honoured_by
        && let Err(reason) = enqueue.enqueue(gang, state)
    {
        // Volcano leaves the PodGroup Pending: allocate never tries its pods.
        return not_planned(GangStatus::Unschedulable, reason);
    }
    if existing < gang.minimum() {
        let mut reason = format!(
            "waiting for pods: {existing} of minMember {} exist",
            gang.minimum()
        );
        if let Some(first) = gang.rejected.first().map(|r| &r.reason) {
            let more = gang.rejected.len() - 1;
            reason.push_str(&format!(
                "; {} rejected at admission: {first}{}",
                gang.rejected.len(),
                if more > 0 {
                    format!(" (and {more} more)")
                } else {
                    String::new()
                }
            ));
        }
        let Gate::Done(mut plan) = not_planned(GangStatus::WaitingForPods, reason) else {
            unreachable!("not_planned is Done")
        };
        if coscheduled {
            // Each pod is turned away by coscheduling's PreFilter in its own name.
            for row in plan.pods.iter_mut().filter(|row| !row.running) {
                row.reason = Some(format!(
                    "pre-filter pod {} cannot find enough sibling pods, current pods number: \
                     {existing}, minMember of group: {}",
                    row.pod, gang.min_member
                ));
            }
        }
        return Gate::Done(plan);
    }
    Gate::Place(system)
}

/// The `schedulerName` a gang's pods ask for, the default scheduler's when empty.
fn shown_name(gang: &Gang) -> &str {
    match gang.scheduler_name() {
        "" => model::DEFAULT_SCHEDULER_NAME,
        name => name,
    }
}

/// Place a gang [`gate`] let through to `system`: by its kind's rule when the system honours
/// its kind (within its topology constraint, and checking each pod against its Volcano
/// `queue` when given), else pod by pod.
fn place_gang(
    scheduler: &mut Scheduler,
    gang: &Gang,
    system: System,
    compare: bool,
    queue: Option<&volcano::queues::QueueRoom>,
) -> Result<GroupPlan, GangError> {
    let state = scheduler.state();
    let shown_name = shown_name(gang);
    let kind = gang.kind;
    let error = |message: String| GangError::of(gang, message);
    let honoured = system == kind.honoured_by;
    let mut plan = if !honoured {
        // The scheduler knows nothing of the group: it places the pods one by one.
        let mut alone = gang.clone();
        alone.min_member = 0;
        alone.min_task_member.clear();
        let mut plan = place::plan_pod_by_pod(scheduler, &alone, compare, None, None);
        plan.min_member = gang.minimum();
        plan.status = if plan.scheduled >= plan.min_member {
            GangStatus::Scheduled
        } else {
            GangStatus::Unschedulable
        };
        plan.warnings.push(format!(
            "its pods go to schedulerName {shown_name} ({system}), which does not honour {} \
             gangs: it places them one by one",
            kind.id
        ));
        plan
    } else {
        match topology::constraint_for(gang, state).map_err(error)? {
            Some(Constraint::Planned(request)) => topology::plan_in_domains(
                scheduler,
                gang,
                &request,
                compare,
                &mut |scheduler, within| place_by_rule(scheduler, gang, false, within, queue),
            )?,
            Some(Constraint::Ignored(warning)) => {
                let mut plan = place_by_rule(scheduler, gang, compare, None, queue)?;
                plan.warnings.push(warning);
                plan
            }
            None => place_by_rule(scheduler, gang, compare, None, queue)?,
        }
    };
    plan.scheduler_name = shown_name.to_string();
    plan.system = Some(system);
    Ok(plan)
}

/// Place `gang` by its kind's rule, over every node or only `within` a topology domain's
/// nodes (Godel node groups are their own topology and ignore it); a Volcano gang's pods are
/// checked against its `queue` when given.
fn place_by_rule(
    scheduler: &mut Scheduler,
    gang: &Gang,
    compare: bool,
    within: Option<&[usize]>,
    queue: Option<&volcano::queues::QueueRoom>,
) -> Result<GroupPlan, GangError> {
    Ok(match &gang.rule {
        PlacementRule::PodByPod => place::plan_pod_by_pod(scheduler, gang, compare, None, within),
        PlacementRule::VolcanoPodGroup => {
            volcano::plan_pod_group(scheduler, gang, compare, within, queue)
        }
        PlacementRule::Coscheduling => {
            let gap = coscheduling::resource_gap(scheduler, gang);
            place::plan_pod_by_pod(scheduler, gang, compare, gap, within)
        }
        PlacementRule::Godel(group) => godel::plan_pod_group(scheduler, gang, group, compare)
            .map_err(|e| GangError {
                kind: gang.kind.kind,
                namespace: gang.meta.namespace.clone(),
                name: gang.meta.name.clone(),
                message: e.to_string(),
            })?,
        PlacementRule::VolcanoJob(job) => {
            volcano::plan_job(scheduler, gang, job, compare, within, queue)
        }
        PlacementRule::Kueue(given) => {
            topology::kueue::plan(scheduler, gang, given, compare, within)
        }
    })
}

/// Whether Volcano's `allocate` action takes `gang` along with its other jobs: a Volcano Job or
/// PodGroup that exists and whose pods go to Volcano.
pub fn allocated_by_volcano(gang: &Gang, routes: &SchedulerRoutes) -> bool {
    gang.defined
        && gang.kind.honoured_by == System::Volcano
        && routes.system(gang.scheduler_name()) == Some(System::Volcano)
}

/// Plan Volcano's gangs (each [`allocated_by_volcano`]) as one `allocate` session: every one
/// through the gate first, then the ones let through queue by queue, each queue taking turns
/// by its share and each pod checked against its queue's deserved share
/// ([`volcano::queues`]). The plans come back in the order of `gangs`.
pub fn plan_volcano(
    scheduler: &mut Scheduler,
    gangs: &[&Gang],
    routes: &SchedulerRoutes,
    compare: bool,
    enqueue: &mut volcano::enqueue::Session,
) -> Result<Vec<GroupPlan>, GangError> {
    let state = scheduler.state();
    let mut plans: Vec<Option<GroupPlan>> = vec![None; gangs.len()];
    let mut jobs = Vec::new();
    let mut pending = Vec::new();
    for (i, gang) in gangs.iter().enumerate() {
        let denied = matches!(&gang.rule, PlacementRule::VolcanoJob(job)
            if volcano::admission::denied(job).is_some());
        if !denied {
            // Every created job's pending pods count for its queue's request.
            for member in &gang.members {
                let bound = state
                    .pod(&gang.meta.namespace, &member.pod.metadata.name)
                    .is_some_and(|p| !p.spec.node_name.is_empty() && !p.is_terminated());
                if !bound {
                    pending.push((gang.queue.clone(), pod_requests(&member.pod.spec, false)));
                }
            }
        }
        match gate(scheduler, gang, routes, enqueue) {
            Gate::Done(plan) => plans[i] = Some(with_rejected(gang, *plan)),
            Gate::Place(_) => jobs.push((i, gang.queue.clone())),
        }
    }
    let mut queues = volcano::queues::Queues::new(enqueue, state, &pending);
    queues.allocate(&jobs, |i, turn| {
        let gang = gangs[i];
        let plan = match turn {
            volcano::queues::Turn::Place(queue) => {
                place_gang(scheduler, gang, System::Volcano, compare, queue)?
            }
            volcano::queues::Turn::Skip(reason) => {
                let mut plan = outcome::unplanned(gang, state, GangStatus::Unschedulable, reason);
                plan.scheduler_name = shown_name(gang).to_string();
                plan.system = Some(System::Volcano);
                plan
            }
        };
        let mut placed = Resources::default();
        for row in plan.pods.iter().filter(|r| r.node.is_some() && !r.running) {
            if let Some(m) = gang.members.iter().find(|m| m.pod.metadata.name == row.pod) {
                placed.add(&pod_requests(&m.pod.spec, false));
            }
        }
        plans[i] = Some(with_rejected(gang, plan));
        Ok(placed)
    })?;
    Ok(plans
        .into_iter()
        .map(|p| p.expect("every gang planned"))
        .collect())
}

/// Plan `gangs` (from [`gangs`]), in order, each seeing the placements of the ones before it;
/// Volcano's gangs together when the first of them comes ([`plan_volcano`]).
pub fn plan_gangs(
    gangs: &[Gang],
    scheduler: &mut Scheduler,
    opts: &GangOptions,
) -> Result<Vec<GroupPlan>, GangError> {
    let gangs = kueue::admit_gangs(gangs, scheduler.state());
    let mut enqueue = volcano::enqueue::Session::new(scheduler);
    let volcano: Vec<usize> = (0..gangs.len())
        .filter(|&i| allocated_by_volcano(&gangs[i], &opts.routes))
        .collect();
    let mut plans: Vec<Option<GroupPlan>> = vec![None; gangs.len()];
    for (i, gang) in gangs.iter().enumerate() {
        if plans[i].is_some() {
            continue;
        }
        if volcano.first() == Some(&i) {
            let session: Vec<&Gang> = volcano.iter().map(|&j| &gangs[j]).collect();
            let planned = plan_volcano(
                scheduler,
                &session,
                &opts.routes,
                opts.compare,
                &mut enqueue,
            )?;
            for (&j, plan) in volcano.iter().zip(planned) {
                plans[j] = Some(plan);
            }
            continue;
        }
        plans[i] = Some(plan_gang(
            scheduler,
            gang,
            &opts.routes,
            opts.compare,
            &mut enqueue,
        )?);
    }
    Ok(plans
        .into_iter()
        .map(|p| p.expect("every gang planned"))
        .collect())
}

/// `n` copies of a pod template named `<name>-0` .. `<name>-(n-1)`.
fn copies(pod: &Pod, n: usize) -> Vec<Pod> {
    (0..n)
        .map(|i| {
            let mut copy = pod.clone();
            copy.metadata.name = format!("{}-{i}", pod.metadata.name);
            copy
        })
        .collect()
}
