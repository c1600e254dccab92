//! The one orchestration behind `plan` and `explain-placement`. The inputs are classified once
//! into the planner that takes each pod (the scheduling queue of the state's Pending pods,
//! Fluid's flows, the gang schedulers, the batch), planned in that order against one assumed
//! state, and a pod `explain-placement` asks about is traced through that same planning
//! ([`Scheduler::trace`]): its explanation is the decision the plan made, never a second one.

use df_engine::sampling::SampleSize;
use df_engine::{PodTrace, Profiles, Scheduler};
use df_manifest::{ManifestSet, ObjectRef};
use df_model::storage::PersistentVolumeClaim;
use df_model::{OpKind, Pod};
use df_state::ClusterState;
use df_systems::fluid;
use df_systems::gang::{self, Gang, GangOptions, PodSource, SchedulerRoutes};
use df_systems::topology::hypernode;

use super::batch::{self, BatchPlan, Member};
use super::graph::{self, FlowGraph};
use super::pending::{self, Unit};
use super::{NodeRoom, Plan, PlanError, PlanOptions, drift, flow, namespace, operators, quota};

/// The planner that takes a pod, and where it is in that planner's input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Entry of the scheduling queue (`--pending`).
    Queue(usize),
    /// Operation of the flow graph.
    Operation(usize),
    /// Gang of the inputs.
    Gang(usize),
    /// Pod of the batch.
    Batch(usize),
}

/// The inputs, classified once: what each planner takes, in planning order.
struct Inputs<'a> {
    queue: Vec<Unit>,
    graph: FlowGraph<'a>,
    gangs: Vec<Gang>,
    members: Vec<Member>,
}

impl<'a> Inputs<'a> {
    fn classify(
        manifests: &'a ManifestSet,
        state: &'a ClusterState,
        opts: &PlanOptions,
        gang_opts: &GangOptions,
    ) -> Result<Inputs<'a>, PlanError> {
        // The API server admits the pods the inputs create in one order (the flows', the
        // gangs', the batch's), each counted in the quotas of the ones after it.
        let mut admission = quota::NamespaceAdmission::new(state);
        let mut graph = graph::build(&manifests.manifests, state)?;
        flow::admit_operations(&mut graph, &mut admission);
        // Without inputs, `gangs` reads the state's gangs, which the queue already holds.
        let mut gangs = if opts.pending && manifests.manifests.is_empty() {
            Vec::new()
        } else {
            gang::gangs(manifests, state, gang_opts)
        };
        for gang in &mut gangs {
            quota::admit_gang(gang, &mut admission);
        }
        let mut inputs = Inputs {
            queue: Vec::new(),
            graph,
            gangs,
            members: batch::members(manifests, state, &mut admission),
        };
        if opts.pending {
            // The gangs the inputs plan (they join pods of the inputs too) leave the queue.
            let same = |a: &Gang, b: &Gang| {
                a.kind.id == b.kind.id
                    && a.meta.namespace == b.meta.namespace
                    && a.meta.name == b.meta.name
            };
            let given = &inputs.gangs;
            inputs.queue = pending::queue(state, &gang_opts.routes, |g| {
                given.iter().any(|other| same(g, other))
            });
        }
        Ok(inputs)
    }

    /// Where `wanted` is planned, and its pod: an operation's pod, a gang's member, a pod of
    /// the batch (a workload: its first pod), a unit of the queue. `namespace` narrows the
    /// search when given.
    fn locate(&self, wanted: &ObjectRef, namespace: Option<&str>) -> Option<(Stage, Pod)> {
        let in_namespace = |pod: &Pod| namespace.is_none_or(|n| n == pod.metadata.namespace);
        let named = |pod: &Pod| pod.metadata.name == wanted.name && in_namespace(pod);
        if let Some(kind) = OpKind::ALL.into_iter().find(|k| wanted.is_kind(k.as_str())) {
            return self.graph.ops.iter().enumerate().find_map(|(i, g)| {
                let pod = fluid::pod_for(g.op, None);
                (g.key.kind == kind && g.key.name == wanted.name && in_namespace(&pod))
                    .then_some((Stage::Operation(i), pod))
            });
        }
        let gang_member = |is_it: &dyn Fn(&gang::Member) -> bool| {
            self.gangs.iter().enumerate().find_map(|(i, g)| {
                let member = g
                    .members
                    .iter()
                    .find(|m| is_it(m) && in_namespace(&m.pod))?;
                Some((Stage::Gang(i), member.pod.clone()))
            })
        };
        // A gang's pod the API server rejects: explained as its gang's plan reports it.
        let rejected_member = || {
            self.gangs.iter().enumerate().find_map(|(i, g)| {
                let rejected = g.rejected.iter().find(|r| named(&r.pod))?;
                Some((Stage::Gang(i), rejected.pod.clone()))
            })
        };
        if wanted.kind != "Pod" {
            let from = |label: &str| {
                label
                    .split_once('/')
                    .is_some_and(|(kind, name)| wanted.is_kind(kind) && name == wanted.name)
            };
            let batch = self.members.iter().enumerate().find_map(|(i, m)| {
                (from(&m.from) && in_namespace(&m.pod)).then(|| (Stage::Batch(i), m.pod.clone()))
            });
            return batch.or_else(|| {
                gang_member(&|m| matches!(&m.source, PodSource::Template(label) if from(label)))
            });
        }
        let batch = || {
            self.members
                .iter()
                .enumerate()
                .find_map(|(i, m)| named(&m.pod).then(|| (Stage::Batch(i), m.pod.clone())))
        };
        let queued = || {
            self.queue.iter().enumerate().find_map(|(i, unit)| {
                let pod = match unit {
                    Unit::Pod(pod) => Some(pod.as_ref()),
                    Unit::Gang(gang) => gang.members.iter().map(|m| &m.pod).find(|p| named(p)),
                };
                pod.filter(|p| named(p))
                    .map(|p| (Stage::Queue(i), p.clone()))
            })
        };
        gang_member(&|m| named(&m.pod))
            .or_else(rejected_member)
            .or_else(batch)
            .or_else(queued)
    }

    /// Plan in order (the queue, the flows, the gangs, the batch), every placement assumed
    /// for everything after it. With `until`, stop once that stage's unit is planned: what
    /// comes after cannot change its decision.
    fn plan(
        &self,
        scheduler: &mut Scheduler,
        opts: &PlanOptions,
        gang_opts: &GangOptions,
        until: Option<Stage>,
    ) -> Result<Plan, PlanError> {
        // Volcano plans its gangs in one session, queue by queue: a Volcano gang is planned
        // once every Volcano gang is.
        let routes = &gang_opts.routes;
        let last_volcano = |volcano: &dyn Fn(usize) -> bool, i: usize, len: usize| {
            if volcano(i) {
                (i..len).rev().find(|&j| volcano(j)).unwrap_or(i)
            } else {
                i
            }
        };
        let queue = match until {
            Some(Stage::Queue(i)) => {
                let volcano = |j: usize| self.queue[j].volcano(routes);
                &self.queue[..=last_volcano(&volcano, i, self.queue.len())]
            }
            _ => &self.queue[..],
        };
        let queued = pending::plan_queue(scheduler, queue, &gang_opts.routes, opts.compare)?;
        let mut plan = Plan {
            operations: Vec::new(),
            groups: queued.groups,
            batch: queued.batch,
            what_if_effect: None,
            drift: None,
            sampling: SampleSize::of(scheduler.profile(), scheduler.state().nodes.len()),
            notes: Vec::new(),
            held_by_kueue: 0,
            nodes: Vec::new(),
        };
        if matches!(until, Some(Stage::Queue(_))) {
            return Ok(plan);
        }
        plan.operations = flow::plan_operations(&self.graph, scheduler);
        let gangs = match until {
            Some(Stage::Operation(_)) => return Ok(plan),
            Some(Stage::Gang(i)) => {
                let volcano = |j: usize| gang::allocated_by_volcano(&self.gangs[j], routes);
                &self.gangs[..=last_volcano(&volcano, i, self.gangs.len())]
            }
            _ => &self.gangs[..],
        };
        plan.groups
            .extend(gang::plan_gangs(gangs, scheduler, gang_opts)?);
        if matches!(until, Some(Stage::Gang(_))) || self.members.is_empty() {
            return Ok(plan);
        }
        let batch = batch::plan_batch(
            scheduler,
            &self.members,
            &gang_opts.routes,
            opts.solver,
            opts.compare,
        );
        plan.batch = BatchPlan::concat(plan.batch.take(), Some(batch));
        Ok(plan)
    }
}

fn gang_options(opts: &PlanOptions) -> GangOptions {
    GangOptions {
        replicas: opts.replicas,
        compare: opts.compare,
        routes: SchedulerRoutes::with(&opts.routes),
    }
}

/// The scheduler a plan runs on: the state and what the inputs' controllers add to it (their
/// Services and controllers' selectors, a StatefulSet's claims, which `claims` holds).
fn scheduler_for<'a>(
    manifests: &ManifestSet,
    state: &'a ClusterState,
    profiles: Profiles,
    claims: &'a [PersistentVolumeClaim],
) -> Scheduler<'a> {
    let mut scheduler = Scheduler::new(state, profiles);
    scheduler.give(super::workload::given(manifests));
    scheduler.give_claims(claims);
    scheduler
}

/// Everything `plan` shows: with `--pending` first the Pending pods of the state in queue
/// order ([`pending`]), then the DataFlows of the manifests, their gangs and their batch of
/// plain pods, in that order, against one assumed state: every pod placed (an operation's, a
/// gang's, a batch pod's) takes its resources, ports and affinity effects for everything
/// planned after it, so no node is promised twice.
pub fn plan_all(
    manifests: &ManifestSet,
    state: &ClusterState,
    profiles: Profiles,
    opts: &PlanOptions,
) -> Result<Plan, PlanError> {
    let gang_opts = gang_options(opts);
    let (expanded, notes) = operators::expand(manifests, state);
    let manifests = &expanded;
    let state = &*hypernode::with_given(manifests, state);
    let inputs = Inputs::classify(manifests, state, opts, &gang_opts)?;
    let claims = super::workload::claims(manifests, state, opts.replicas);
    let mut scheduler = scheduler_for(manifests, state, profiles, &claims);
    let mut plan = inputs.plan(&mut scheduler, opts, &gang_opts, None)?;
    plan.notes = notes;
    if opts.pending {
        let (notes, held) = pending::kueue_waiting(state, opts.namespace.as_deref());
        plan.notes.extend(notes);
        plan.held_by_kueue = held;
    }
    plan.nodes = rooms(&scheduler);
    plan.drift = (opts.pending && opts.compare).then(|| {
        drift::summarize(
            state,
            scheduler.profiles().clone(),
            &gang_opts.routes,
            opts.namespace.as_deref(),
            &opts.selector,
        )
    });
    let origins = namespace::Origins::new(&opts.selector, manifests, state, &inputs.members);
    plan.retain_selected(opts.namespace.as_deref(), &opts.selector, &origins);
    Ok(plan)
}

/// Every node of the scheduler's state with the room its pods leave, in the state's order.
fn rooms(scheduler: &Scheduler) -> Vec<NodeRoom> {
    let state = scheduler.state();
    state
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(i, node)| {
            let (allocatable, _) = scheduler.scored_usage(i)?;
            Some(NodeRoom {
                name: node.metadata.name.clone(),
                labels: node.metadata.labels.clone(),
                allocatable: allocatable.clone(),
                free: scheduler.free(i)?,
            })
        })
        .collect()
}

/// The planner a traced pod went through, with what its explanation says about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// Position (0-based) in a queue of `units` Pending pods and gangs.
    Queue { position: usize, units: usize },
    /// An operation of a flow.
    Operation {
        kind: OpKind,
        namespace: String,
        name: String,
    },
    /// A member of a gang; `rule` says how its gang scheduler chooses beyond the engine.
    Gang {
        namespace: String,
        name: String,
        rule: &'static str,
    },
    /// A pod of the batch of `size` pods, made from the input object `from`; `notes` say
    /// what Fluid's webhook and the API server's admission did to it (LimitRange defaults...).
    Batch {
        from: String,
        size: usize,
        notes: Vec<String>,
    },
}

/// A pod traced through the one orchestration.
#[derive(Debug, Clone)]
pub struct Traced {
    /// The plan up to (and including) the planner that took the pod.
    pub plan: Plan,
    pub subject: Subject,
    /// The pod as its planner received it.
    pub pod: Pod,
    pub trace: PodTrace,
}

/// Plan as `plan` does, tracing the pod `wanted` names (see [`Inputs::locate`]); `node` is
/// explained in full in its decision. A Pending pod of the state that no input names (every
/// pod, without inputs) is looked for in the scheduling queue, planned as `plan --pending`
/// plans it. `None` when no planner takes such a pod.
pub fn trace(
    manifests: &ManifestSet,
    state: &ClusterState,
    profiles: Profiles,
    opts: &PlanOptions,
    wanted: &ObjectRef,
    node: Option<&str>,
) -> Result<Option<Traced>, PlanError> {
    let mut opts = opts.clone();
    opts.pending |= manifests.manifests.is_empty();
    let gang_opts = gang_options(&opts);
    let (expanded, _) = operators::expand(manifests, state);
    let manifests = &expanded;
    let state = &*hypernode::with_given(manifests, state);
    let mut inputs = Inputs::classify(manifests, state, &opts, &gang_opts)?;
    let namespace = opts.namespace.as_deref();
    let mut located = inputs.locate(wanted, namespace);
    if located.is_none() && wanted.kind == "Pod" && !opts.pending {
        opts.pending = true;
        inputs = Inputs::classify(manifests, state, &opts, &gang_opts)?;
        located = inputs.locate(wanted, namespace);
    }
    let Some((stage, pod)) = located else {
        return Ok(None);
    };
    let claims = super::workload::claims(manifests, state, opts.replicas);
    let mut scheduler = scheduler_for(manifests, state, profiles, &claims);
    scheduler.trace(&pod.metadata.namespace, &pod.metadata.name, node);
    let plan = inputs.plan(&mut scheduler, &opts, &gang_opts, Some(stage))?;
    let subject = match stage {
        Stage::Queue(position) => Subject::Queue {
            position,
            units: inputs.queue.len(),
        },
        Stage::Operation(i) => {
            let key = &inputs.graph.ops[i].key;
            Subject::Operation {
                kind: key.kind,
                namespace: key.namespace.clone(),
                name: key.name.clone(),
            }
        }
        Stage::Gang(i) => {
            let gang = &inputs.gangs[i];
            Subject::Gang {
                namespace: gang.meta.namespace.clone(),
                name: gang.meta.name.clone(),
                rule: gang.rule.beyond_the_engine(),
            }
        }
        Stage::Batch(i) => Subject::Batch {
            from: inputs.members[i].from.clone(),
            size: inputs.members.len(),
            notes: inputs.members[i].webhooked.notes.clone(),
        },
    };
    Ok(Some(Traced {
        plan,
        subject,
        pod,
        trace: scheduler.traced().unwrap_or_default(),
    }))
}
