//! `explain-placement`: pick the pod to explain, schedule it, and keep everything the
//! explanation needs.

use crate::text::plural;
use std::collections::BTreeMap;

use serde::Serialize;

use crate::manifest::{ObjectRef, ObjectRefError};

use super::batch::{self, Solver};
use super::workload;
use super::{OpRef, OpStatus, OperationPlan, PlanError, flow, graph, pending};
use crate::cluster::ClusterState;
use crate::manifest::ManifestSet;
use crate::model::{Object, OpKind, Pod};
use crate::sched::preemption::Preemption;
use crate::sched::{Decision, NodeDetail, Profile, Scheduler};
use crate::systems::flow::{self as flow_solver, Method};
use crate::systems::fluid;
use crate::systems::gang::{self, GangOptions, PlacementRule, SchedulerRoutes};
use crate::systems::topology::{self, hypernode};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetError {
    #[error("{0}")]
    NotFound(String),
    #[error(
        "the inputs hold {count} objects that create pods ({names}); name one, e.g. `explain-placement {first}`"
    )]
    Ambiguous {
        count: usize,
        names: String,
        first: String,
    },
    #[error("node {0:?} is not in the cluster state")]
    UnknownNode(String),
    #[error(transparent)]
    Reference(#[from] ObjectRefError),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PodRef {
    pub namespace: String,
    pub name: String,
}

/// The explain contract (DESIGN.md section 4), plus the tie and the node detail.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Explanation {
    pub pod: PodRef,
    #[serde(flatten)]
    pub decision: Decision,
    pub node_detail: Option<NodeDetail>,
    /// Nodes considered (the `N` of `0/N nodes are available`).
    pub total_nodes: usize,
    /// The score weights the totals were computed with.
    pub weights: BTreeMap<String, i64>,
    /// DefaultPreemption's preview, whenever no node fits: the node it would nominate (or
    /// `null`) and the pods it would evict. Gang pods are left to their gang scheduler.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preemption: Option<Preemption>,
    /// For a pod that names its node (`spec.nodeName`): the kubelet's verdict, instead of a
    /// scheduling decision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub admission: Option<Admission>,
    /// The plan the pod is part of (a flow step, a gang, a batch), when it is part of one.
    pub context: Option<Context>,
    /// `--compare`, for a pod bound in the state: its node against the one chosen now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub drift: Option<super::drift::Drift>,
}

/// The kubelet's admission of a pod bound by `spec.nodeName`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Admission {
    pub node: String,
    pub admitted: bool,
    /// Why the kubelet would reject it (or that the node does not exist).
    pub reasons: Vec<String>,
}

/// A pod that an object in the inputs would create, with a name users recognise.
pub struct Candidate {
    /// `Pod/name`, `Deployment/name`...
    pub label: String,
    pub pod: Pod,
}

/// The pods the `-f` inputs would create: pods as they are, a workload as the first pod its
/// controller creates against `state`.
pub fn candidates(manifests: &ManifestSet, state: &ClusterState) -> Vec<Candidate> {
    manifests
        .manifests
        .iter()
        .filter_map(|m| match &m.object {
            Object::Pod(pod) => Some(Candidate {
                label: format!("Pod/{}", pod.metadata.name),
                pod: pod.clone(),
            }),
            Object::Workload(w) => Some(Candidate {
                label: format!("{}/{}", w.kind, w.metadata.name),
                pod: workload::pods(w, state).into_iter().next()?,
            }),
            _ => None,
        })
        .collect()
}

/// The pod chosen for explanation.
pub struct Target {
    pub pod: Pod,
    /// A pod read from the cluster state is explained as if it were pending again.
    pub from_state: bool,
}

/// Choose the pod to explain: `KIND/NAME` among the candidates, else `pod/NAME` from the
/// state, else the only candidate.
pub fn resolve_target(
    candidates: Vec<Candidate>,
    state: &ClusterState,
    target: Option<&str>,
    namespace: &str,
) -> Result<Target, TargetError> {
    let from_inputs = |pod: Pod| Target {
        pod,
        from_state: false,
    };
    let Some(target) = target else {
        let count = candidates.len();
        let mut candidates = candidates;
        return match count {
            0 => Err(TargetError::NotFound(
                "nothing to explain: give -f with a Pod, a workload or an operation, or name a pod as pod/NAME".into(),
            )),
            1 => Ok(from_inputs(candidates.remove(0).pod)),
            _ => Err(TargetError::Ambiguous {
                count,
                first: candidates[0].label.clone(),
                names: candidates
                    .iter()
                    .map(|c| c.label.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        };
    };
    let wanted = ObjectRef::parse(target)?;
    let name = wanted.name.as_str();
    let named = |label: &str| {
        label
            .split_once('/')
            .is_some_and(|(kind, label_name)| wanted.is_kind(kind) && label_name == name)
    };
    if let Some(found) = candidates.into_iter().find(|c| named(&c.label)) {
        return Ok(from_inputs(found.pod));
    }
    if wanted.kind == "Pod" {
        if let Some(pod) = state.pod(namespace, name) {
            return Ok(Target {
                pod: pod.clone(),
                from_state: true,
            });
        }
        return Err(TargetError::NotFound(format!(
            "pod {namespace}/{name} is neither in the -f inputs nor in the cluster state"
        )));
    }
    Err(TargetError::NotFound(format!(
        "{target} is not in the -f inputs"
    )))
}

/// Schedule the target as if it were pending now. A pod from the state is first taken off its
/// node, so it does not compete with itself.
pub fn explain(
    state: &ClusterState,
    profile: Profile,
    target: &Target,
    node: Option<&str>,
) -> Result<Explanation, TargetError> {
    let mut scheduler = Scheduler::new(state, profile);
    let mut pending = target.pod.clone();
    if target.from_state {
        scheduler.forget(&pending.metadata.namespace, &pending.metadata.name);
        pending.spec.node_name.clear();
    }
    if !pending.spec.node_name.is_empty() {
        return Ok(admitted(&scheduler, &pending));
    }
    decide_in(&mut scheduler, &pending, None, node)
}

/// A pod that names its node in `spec.nodeName` is never scheduled: the explanation is the
/// kubelet's admission verdict, with the node as `selected` when it admits the pod.
fn admitted(scheduler: &Scheduler, pod: &Pod) -> Explanation {
    let node = pod.spec.node_name.clone();
    let reasons = scheduler.admit(pod).err().unwrap_or_default();
    let admitted = reasons.is_empty();
    Explanation {
        pod: PodRef {
            namespace: pod.metadata.namespace.clone(),
            name: pod.metadata.name.clone(),
        },
        decision: Decision {
            nodes: Vec::new(),
            selected: admitted.then(|| node.clone()),
            tied: Vec::new(),
            summary: None,
            problems: Vec::new(),
        },
        node_detail: None,
        total_nodes: 0,
        weights: scheduler.profile().score_weights.clone(),
        preemption: None,
        admission: Some(Admission {
            node,
            admitted,
            reasons,
        }),
        context: None,
        drift: None,
    }
}

/// The explanation of one decision of `scheduler` (with whatever it has assumed), over all
/// nodes, with preemption when none fits, or over a gang's `within` (state node indexes).
fn decide_in(
    scheduler: &mut Scheduler,
    pod: &Pod,
    within: Option<&[usize]>,
    node: Option<&str>,
) -> Result<Explanation, TargetError> {
    let (mut decision, node_detail) = match (node, within) {
        (Some(name), _) => {
            let (decision, detail) = scheduler
                .decide_explained(pod, within, name)
                .ok_or_else(|| TargetError::UnknownNode(name.to_string()))?;
            (decision, Some(detail))
        }
        (None, Some(nodes)) => (scheduler.decide_within(pod, nodes), None),
        (None, None) => (scheduler.decide(pod), None),
    };
    // DefaultPreemption runs for pods the default scheduler places; gang pods (`within`) are
    // left to their gang scheduler.
    let preemption = match within {
        None => scheduler.preempt(pod, &mut decision),
        Some(_) => None,
    };
    Ok(Explanation {
        pod: PodRef {
            namespace: pod.metadata.namespace.clone(),
            name: pod.metadata.name.clone(),
        },
        total_nodes: decision.nodes.len(),
        decision,
        node_detail,
        preemption,
        admission: None,
        weights: scheduler.profile().score_weights.clone(),
        context: None,
        drift: None,
    })
}

impl Explanation {
    /// `--compare` found the pod's node is not where the engine would put it now.
    pub fn drifted(&self) -> bool {
        self.drift.as_ref().is_some_and(|d| d.status.drifted())
    }

    /// Whether the pod gets a node: under the flow solver, the flow's answer; else the
    /// selected node or the one preemption nominates (the pod runs once the victims are gone).
    pub fn placed(&self) -> bool {
        match self.context.as_ref().and_then(|c| c.solvers.as_ref()) {
            Some(solvers) => solvers.flow.is_some(),
            None => {
                self.decision.selected.is_some()
                    || self.preemption.as_ref().is_some_and(|p| p.node.is_some())
            }
        }
    }
}

/// What `explain-placement` explains a pod inside of, besides the bare cluster state.
pub struct PlanScope<'a> {
    pub manifests: &'a ManifestSet,
    pub state: &'a ClusterState,
    pub profile: Profile,
    pub solver: Solver,
    /// `-n`, when given: narrows which namespace the target is looked up in.
    pub namespace: Option<&'a str>,
}

/// Explain `target` inside the plan it belongs to: a Fluid operation at its step of its flow,
/// a gang's pod inside its group's plan, or (with the flow solver) a pod of the batch. `None`
/// when the target is none of these, so the caller explains it on its own.
pub fn explain_in_plan(
    scope: &PlanScope,
    target: Option<&str>,
    node: Option<&str>,
) -> Result<Option<Explanation>, PlanError> {
    let Some(target) = target else {
        return Ok(None);
    };
    let wanted = ObjectRef::parse(target).map_err(TargetError::from)?;
    let name = wanted.name.as_str();
    if let Some(kind) = OpKind::ALL.into_iter().find(|k| wanted.is_kind(k.as_str())) {
        return explain_operation(scope, kind, name, node).map(Some);
    }
    if wanted.kind != "Pod" {
        if scope.solver == Solver::Flow {
            let from = format!("{}/{name}", wanted.kind);
            return explain_batch_pod(scope, |m| m.from == from, node);
        }
        return Ok(None);
    }
    if let Some(explanation) = explain_gang_pod(scope, name, node)? {
        return Ok(Some(explanation));
    }
    if let Some(explanation) = explain_pending_pod(scope, name, node)? {
        return Ok(Some(explanation));
    }
    if scope.solver == Solver::Flow {
        return explain_batch_pod(scope, |m| m.pod.metadata.name == name, node);
    }
    Ok(None)
}

fn in_namespace(scope: &PlanScope, namespace: &str) -> bool {
    scope.namespace.is_none_or(|n| n == namespace)
}

/// The operation's pod with the state as the plan has it at that step: the operations that run
/// before it are placed and assumed, and its inherited terms say where each came from.
fn explain_operation(
    scope: &PlanScope,
    kind: OpKind,
    name: &str,
    node: Option<&str>,
) -> Result<Explanation, PlanError> {
    let graph = graph::build(&scope.manifests.manifests, scope.state)?;
    let index = graph
        .ops
        .iter()
        .position(|g| {
            g.key.kind == kind && g.key.name == name && in_namespace(scope, &g.key.namespace)
        })
        .ok_or_else(|| {
            TargetError::NotFound(format!(
                "{kind}/{name} is neither in the -f inputs nor in the cluster state"
            ))
        })?;
    let mut scheduler = Scheduler::new(scope.state, scope.profile.clone());
    let plans = flow::plan_through(&graph, &mut scheduler, index);
    let ((op_plan, _), earlier) = plans.split_last().expect("the target is planned last");
    let op = graph.ops[index].op;
    let affinity = op_plan
        .affinity
        .clone()
        .or_else(|| fluid::own_affinity(op).cloned());
    let pod = fluid::pod_for(op, affinity);
    let mut explanation = decide_in(&mut scheduler, &pod, None, node)?;
    let mut notes: Vec<String> = op_plan.warnings.clone();
    match op_plan.status {
        OpStatus::Complete => notes.insert(
            0,
            "already Complete in the cluster state: shown as if its pod were pending now".into(),
        ),
        OpStatus::Blocked | OpStatus::Failed => notes.insert(
            0,
            format!(
                "the plan marks it {}: Fluid never runs this pod",
                op_plan.status.as_str()
            ),
        ),
        OpStatus::Planned | OpStatus::Unschedulable => {}
    }
    for webhook in &op_plan.webhook_affinity {
        notes.push(format!(
            "Fluid's webhook ({}) adds {}",
            webhook.plugin,
            fluid::describe_inherited(&webhook.node_affinity)
        ));
    }
    for dataset in &op_plan.datasets {
        let cached = if dataset.cache_nodes.is_empty() {
            "no node".to_string()
        } else {
            dataset.cache_nodes.join(", ")
        };
        notes.push(format!(
            "dataset {}/{} is cached on {cached}",
            dataset.namespace, dataset.name
        ));
    }
    for (done, _) in earlier
        .iter()
        .filter(|(p, holds_node)| !holds_node && p.node.is_some())
    {
        notes.push(format!(
            "{}/{}/{} is Complete before this step starts: its pod no longer holds {}",
            done.kind,
            done.namespace,
            done.name,
            done.node.as_deref().unwrap_or_default()
        ));
    }
    explanation.context = Some(Context {
        within: format!(
            "{}/{}/{}: step {} of flow {}",
            op_plan.kind, op_plan.namespace, op_plan.name, op_plan.step, op_plan.flow
        ),
        assumed: earlier
            .iter()
            .filter(|(_, holds_node)| *holds_node)
            .filter_map(|(p, _)| {
                let node = p.node.clone()?;
                Some(Assumed {
                    pod: format!("{}/{}/{}", p.kind, p.namespace, p.name),
                    node,
                })
            })
            .collect(),
        restricted_to: None,
        inherited: inherited_terms(op_plan),
        solvers: None,
        notes,
    });
    Ok(explanation)
}

/// Each inherited expression with the operation it comes from and the value it recorded.
fn inherited_terms(op: &OperationPlan) -> Vec<InheritedTerm> {
    let (Some(affinity), Some(source)) = (
        op.inherited_affinity.as_ref(),
        op.depend_on.as_ref().or(op.after.as_ref()),
    ) else {
        return Vec::new();
    };
    let term = |kind: String, e: &crate::model::NodeSelectorRequirement| InheritedTerm {
        term: kind,
        expression: format!("{} {} [{}]", e.key, e.operator, e.values.join(", ")),
        source: source.clone(),
        recorded: format!("{}={}", e.key, e.values.join(",")),
    };
    let required = affinity
        .required
        .iter()
        .flat_map(|r| &r.node_selector_terms)
        .flat_map(|t| &t.match_expressions)
        .map(|e| term("required".into(), e));
    let preferred = affinity.preferred.iter().flat_map(|p| {
        p.preference
            .match_expressions
            .iter()
            .map(move |e| term(format!("preferred({})", p.weight), e))
    });
    required.chain(preferred).collect()
}

/// A pod of a gang, inside its group's plan: the gang's pods planned before it are assumed, and
/// a Godel pod is decided within the node group the unit was given.
fn explain_gang_pod(
    scope: &PlanScope,
    name: &str,
    node: Option<&str>,
) -> Result<Option<Explanation>, PlanError> {
    let gangs = gang::gangs(scope.manifests, scope.state, &GangOptions::default());
    let found = gangs.iter().find_map(|g| {
        let pods = g.pods();
        let pod = pods
            .into_iter()
            .find(|p| p.metadata.name == name && in_namespace(scope, &p.metadata.namespace))?;
        Some((g, pod))
    });
    let Some((gang, mut pod)) = found else {
        return Ok(None);
    };
    // HyperNodes given as inputs count for the gang's topology.
    let state = &*hypernode::with_given(scope.manifests, scope.state);
    let plan = gang::plan_alone(state, &scope.profile, gang, &SchedulerRoutes::default())?;
    let pods = gang.pods();
    let mut scheduler = Scheduler::new(state, scope.profile.clone());
    let mut assumed = Vec::new();
    for row in plan.pods.iter().take_while(|r| r.pod != name) {
        if let (Some(node), false) = (&row.node, row.running)
            && let Some(member) = pods.iter().find(|p| p.metadata.name == row.pod)
        {
            scheduler.assume(member.clone(), node);
            assumed.push(Assumed {
                pod: row.pod.clone(),
                node: node.clone(),
            });
        }
    }
    let row = plan.pods.iter().find(|r| r.pod == name);
    let mut notes = Vec::new();
    if row.is_some_and(|r| r.running) {
        scheduler.forget(&pod.metadata.namespace, &pod.metadata.name);
        pod.spec.node_name.clear();
        notes.push("already running: shown as if it were pending again".to_string());
    }
    match row.and_then(|r| r.node.as_ref()) {
        Some(node) => notes.push(format!("the gang plan puts it on {node}")),
        None => notes.push(format!(
            "the gang plan leaves it pending: {}",
            row.and_then(|r| r.reason.clone())
                .unwrap_or_else(|| plan.summary.clone())
        )),
    }
    if let Some(path) = row.and_then(|r| topology::domain_path(&plan, r)) {
        notes.push(format!("its domain path: {path}"));
    }
    if plan.scheduled < plan.min_member {
        notes.push(format!(
            "the gang reaches {} of minMember {}: none of its pending pods is bound",
            plan.scheduled, plan.min_member
        ));
    }
    let within = (!plan.group_nodes.is_empty()).then_some(plan.group_nodes.as_slice());
    let mut explanation = decide_in(&mut scheduler, &pod, within, node)?;
    let planned = row.and_then(|r| r.node.as_ref());
    if let (Some(planned), Some(alone)) = (planned, &explanation.decision.selected)
        && planned != alone
    {
        let why = match gang.rule {
            PlacementRule::VolcanoJob(_) => {
                "Volcano adds its task-topology (bucket) score to the engine's"
            }
            PlacementRule::Godel(_) => {
                "Godel fills the node group's circles (preferred domains) in order"
            }
            PlacementRule::PodByPod | PlacementRule::Coscheduling => {
                "the gang's pods placed before it count for its decision"
            }
            PlacementRule::Kueue(_) => {
                "Kueue's topology assignment gives it a node selector for its domain"
            }
        };
        notes.push(format!(
            "this decision alone picks {alone}; the gang plan picks {planned}: {why}"
        ));
    }
    explanation.context = Some(Context {
        within: format!("{} {}/{}", plan.kind, plan.namespace, plan.name),
        assumed,
        restricted_to: plan
            .node_group
            .clone()
            .map(|group| format!("node group {group}"))
            .or_else(|| topology::chosen_domain(&plan))
            .filter(|_| within.is_some())
            .map(|group| format!("{group} ({})", plural(plan.group_nodes.len(), "node"))),
        inherited: Vec::new(),
        solvers: None,
        notes,
    });
    Ok(Some(explanation))
}

/// A Pending pod of the state (not one of the inputs), in place: the pods and gangs ahead of it
/// in the scheduling queue are placed first, as `plan --pending` places them; the Pending pods
/// behind it hold nothing.
fn explain_pending_pod(
    scope: &PlanScope,
    name: &str,
    node: Option<&str>,
) -> Result<Option<Explanation>, PlanError> {
    let in_inputs = candidates(scope.manifests, scope.state)
        .iter()
        .any(|c| c.pod.metadata.name == name);
    let routes = SchedulerRoutes::default();
    let units = pending::queue(scope.state, &routes, |_| false);
    let Some(index) = units.iter().position(|unit| {
        unit.pod().is_some_and(|pod| {
            pod.metadata.name == name && in_namespace(scope, &pod.metadata.namespace)
        })
    }) else {
        return Ok(None);
    };
    if in_inputs {
        return Ok(None);
    }
    let mut scheduler = Scheduler::new(scope.state, scope.profile.clone());
    let ahead = pending::plan_queue(&mut scheduler, &units[..index], &routes, false)?;
    let batch_rows = ahead.batch.iter().flat_map(|b| &b.pods).filter_map(|row| {
        Some(Assumed {
            pod: format!("{}/{}", row.namespace, row.name),
            node: row.node.clone()?,
        })
    });
    let gang_rows = ahead.groups.iter().flat_map(|group| {
        group
            .pods
            .iter()
            .filter(|row| !row.running)
            .filter_map(|row| {
                Some(Assumed {
                    pod: format!("{}/{}", group.namespace, row.pod),
                    node: row.node.clone()?,
                })
            })
    });
    let assumed: Vec<Assumed> = batch_rows.chain(gang_rows).collect();
    let pod = units[index].pod().expect("the target is a pod");
    let mut explanation = decide_in(&mut scheduler, pod, None, node)?;
    let mut notes = vec![format!(
        "Pending in the cluster state: {index} of the queue's {} pods and gangs come before it \
         (priority, then creationTimestamp) and are placed first",
        units.len()
    )];
    if let Some(nominated) = &pod.status.nominated_node_name {
        notes.push(format!(
            "nominated to {nominated} by an earlier preemption: kube-scheduler tries that node first"
        ));
    }
    explanation.context = Some(Context {
        within: format!(
            "the scheduling queue: position {} of {}",
            index + 1,
            units.len()
        ),
        assumed,
        restricted_to: None,
        inherited: Vec::new(),
        solvers: None,
        notes,
    });
    Ok(Some(explanation))
}

/// A pod of the batch under the flow solver: where the flow puts it, next to the greedy
/// decision with the batch pods before it (input order) assumed where greedy put them.
fn explain_batch_pod(
    scope: &PlanScope,
    is_target: impl Fn(&batch::Member) -> bool,
    node: Option<&str>,
) -> Result<Option<Explanation>, PlanError> {
    let members = batch::members(scope.manifests, scope.state);
    let Some(index) = members
        .iter()
        .position(|m| is_target(m) && in_namespace(scope, &m.pod.metadata.namespace))
    else {
        return Ok(None);
    };
    let pods: Vec<Pod> = members.iter().map(|m| m.pod.clone()).collect();
    let flow_plan = flow_solver::solve_batch(scope.state, &scope.profile, &pods);
    let mut scheduler = Scheduler::new(scope.state, scope.profile.clone());
    let earlier: Vec<&Pod> = pods[..index].iter().collect();
    let placed = flow_solver::place_greedily(&mut scheduler, &earlier);
    let assumed = earlier
        .iter()
        .zip(placed)
        .filter_map(|(pod, outcome)| {
            Some(Assumed {
                pod: format!("{}/{}", pod.metadata.namespace, pod.metadata.name),
                node: outcome.node?,
            })
        })
        .collect();
    let mut explanation = decide_in(&mut scheduler, &pods[index], None, node)?;
    let placement = &flow_plan.placements[index];
    explanation.context = Some(Context {
        within: format!(
            "a batch of {} ({})",
            plural(pods.len(), "pod"),
            members[index].from
        ),
        assumed,
        restricted_to: None,
        inherited: Vec::new(),
        solvers: Some(Solvers {
            flow: placement.node.clone(),
            method: placement.method,
            note: placement.note.clone(),
            total_cost: flow_plan.total_cost,
            greedy: explanation.decision.selected.clone(),
        }),
        notes: vec![
            "the table below is the greedy decision; the flow solver places the whole batch at \
             once and has no per-node scores of its own"
                .to_string(),
        ],
    });
    Ok(Some(explanation))
}

/// The plan around an explained pod.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Context {
    /// `DataLoad/data/load: step 1 of flow 1`, `PodGroup training/bert-large`, ...
    pub within: String,
    /// What the plan placed before this pod; the decision sees it.
    pub assumed: Vec<Assumed>,
    /// The nodes the decision is restricted to (a gang's node group).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restricted_to: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub inherited: Vec<InheritedTerm>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solvers: Option<Solvers>,
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Assumed {
    pub pod: String,
    pub node: String,
}

/// One inherited expression and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct InheritedTerm {
    /// `required` or `preferred(<weight>)`.
    pub term: String,
    pub expression: String,
    /// The operation whose record it copies (`dependOn`, else `runAfter`).
    pub source: OpRef,
    /// What the source recorded: `key=value`.
    pub recorded: String,
}

/// `explain-placement --solver flow`: the two solvers' answers for the pod.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Solvers {
    pub flow: Option<String>,
    /// Whether the flow solver placed it itself or fell back to greedy.
    pub method: Method,
    pub note: String,
    pub total_cost: i64,
    pub greedy: Option<String>,
}
