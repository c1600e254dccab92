//! `explain-placement`: the decision the plan made for one pod, read from the one
//! orchestration ([`super::orchestrate::trace`]), with everything the explanation needs. A pod
//! is never decided a second time beside the plan: the explanation and `plan` agree by
//! construction. What the placements themselves must satisfy is checked by property tests
//! (`tests/cli/invariants.rs`, the engine's `fidelity` module, the topology `prune_tests`).

mod context;

use std::collections::BTreeMap;

use serde::Serialize;

use super::batch::NOT_MODELLED;
use super::orchestrate::{self, Traced};
use super::{OpRef, PlanError, PlanOptions, Solver, workload};
use df_engine::object_selector::ObjectSelector;
use df_engine::preemption::Preemption;
use df_engine::sampling::{self, Sampling};
use df_engine::{Decision, NodeDetail, PodTrace, Profiles, Scheduler};
use df_manifest::{ManifestSet, ObjectRef, ObjectRefError};
use df_model::{Object, OpKind, Pod};
use df_state::ClusterState;
use df_systems::flow::Method;
use df_systems::gang::{SchedulerRoutes, System};

pub use df_engine::Assumed;

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
    /// The engine's decision as the plan made it; `selected` is where the plan puts the pod.
    #[serde(flatten)]
    pub decision: Decision,
    pub node_detail: Option<NodeDetail>,
    /// Nodes considered (the `N` of `0/N nodes are available`).
    pub total_nodes: usize,
    /// The score weights the totals were computed with.
    pub weights: BTreeMap<String, i64>,
    /// DefaultPreemption's preview, when the plan ran it (no node fits a pod the default
    /// scheduler places): the node it would nominate (or `null`) and the pods it would evict.
    pub preemption: Option<Preemption>,
    /// For a pod that names its node (`spec.nodeName`): the kubelet's verdict, instead of a
    /// scheduling decision.
    pub admission: Option<Admission>,
    /// Why `selected` is not the engine's best-scored node: what the planner adds to it (a
    /// gang's domain order, Volcano's bucket score, the min-cost flow).
    pub chosen_by: Option<String>,
    /// The plan the pod is part of (a flow step, a gang, a batch, the queue), when it is part
    /// of one.
    pub context: Option<Context>,
    /// `--compare`, for a pod bound in the state: its node against the one chosen now.
    pub drift: Option<super::drift::Drift>,
    /// When kube-scheduler would score only a sample of the feasible nodes: how many, and
    /// which nodes could be its pick.
    pub sampling: Option<Sampling>,
    /// The pod's `schedulerName`, when no modelled scheduler answers it: the preview cannot
    /// say where or whether the pod lands.
    pub not_modelled: Option<String>,
}

/// The kubelet's admission of a pod bound by `spec.nodeName`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Admission {
    pub node: String,
    pub admitted: bool,
    /// Why the kubelet would reject it (or that the node does not exist).
    pub reasons: Vec<String>,
}

/// The plan around an explained pod.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Context {
    /// `DataLoad/data/load: step 1 of flow 1`, `PodGroup training/bert-large`, ...
    pub within: String,
    /// What the plan placed before this pod (`namespace/name`); the decision sees it.
    pub assumed: Vec<Assumed>,
    /// The nodes the decision is restricted to (a gang's node group).
    pub restricted_to: Option<String>,
    pub inherited: Vec<InheritedTerm>,
    pub solvers: Option<Solvers>,
    pub notes: Vec<String>,
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

impl Explanation {
    /// `--compare` found the pod's node is not where the engine would put it now.
    pub fn drifted(&self) -> bool {
        self.drift.as_ref().is_some_and(|d| d.status.drifted())
    }

    /// Whether the pod gets a node: the node the plan puts it on, or the one preemption
    /// nominates (the pod runs once the victims are gone).
    pub fn placed(&self) -> bool {
        self.node().is_some()
    }

    /// The node the pod ends up on: selected, else nominated by preemption.
    pub fn node(&self) -> Option<&str> {
        self.decision
            .selected
            .as_deref()
            .or_else(|| self.preemption.as_ref()?.node.as_deref())
    }
}

/// What `explain-placement` explains a pod inside of.
pub struct Scope<'a> {
    pub manifests: &'a ManifestSet,
    pub state: &'a ClusterState,
    pub profiles: Profiles,
    /// `--scheduler-config`'s scheduler names, on top of the default routes.
    pub routes: Vec<(String, System)>,
    pub solver: Solver,
    /// `-n`, when given: the namespace the target is looked up in.
    pub namespace: Option<&'a str>,
    /// The namespace of a `pod/NAME` of the cluster state when `-n` is not given.
    pub default_namespace: &'a str,
    /// `-l`/`--field-selector`: which object of the inputs to explain when none is named.
    pub selector: &'a ObjectSelector,
}

/// What the explanation adds about who schedules `pod`: nothing modelled (its scheduler
/// name), or kube-scheduler's node sampling.
fn about_the_scheduler(scope: &Scope, pod: &Pod, explanation: &mut Explanation) {
    let system = SchedulerRoutes::with(&scope.routes).system(&pod.spec.scheduler_name);
    if system.is_none() && explanation.admission.is_none() {
        // Whatever the engine would say is not that scheduler's answer.
        let name = &pod.spec.scheduler_name;
        explanation.decision = Decision {
            summary: Some(format!(
                "{NOT_MODELLED} {name} maps to no modelled scheduler"
            )),
            ..Decision::default()
        };
        explanation.node_detail = None;
        explanation.preemption = None;
        explanation.not_modelled = Some(name.clone());
        return;
    }
    explanation.sampling = sampling(scope, pod, system, explanation);
}

/// kube-scheduler's node sampling for the decision, when the kube-scheduler framework (the
/// default scheduler or coscheduling) picks the pod's node by its scores.
fn sampling(
    scope: &Scope,
    pod: &Pod,
    system: Option<System>,
    explanation: &Explanation,
) -> Option<Sampling> {
    let framework = matches!(system, Some(System::KubeScheduler | System::Coscheduling));
    if !framework || explanation.chosen_by.is_some() || explanation.admission.is_some() {
        return None;
    }
    let profile = scope.profiles.for_scheduler(&pod.spec.scheduler_name);
    sampling::of(profile, &scope.state.nodes, &explanation.decision)
}

/// Explain `target` (`KIND/NAME`; optional when the inputs create exactly one pod) as the
/// plan places it, with `node` explained in full.
pub fn explain(
    scope: &Scope,
    target: Option<&str>,
    node: Option<&str>,
) -> Result<Explanation, PlanError> {
    if let Some(name) = node
        && scope.state.node(name).is_none()
    {
        return Err(TargetError::UnknownNode(name.to_string()).into());
    }
    let wanted = match target {
        Some(target) => ObjectRef::parse(target).map_err(TargetError::from)?,
        None => only_candidate(scope)?,
    };
    let opts = PlanOptions {
        solver: scope.solver,
        // The greedy answer beside the flow's, for a pod of the batch.
        compare: scope.solver == Solver::Flow,
        namespace: scope.namespace.map(str::to_string),
        routes: scope.routes.clone(),
        ..PlanOptions::default()
    };
    let traced = orchestrate::trace(
        scope.manifests,
        scope.state,
        scope.profiles.clone(),
        &opts,
        &wanted,
        node,
    )?;
    if let Some(traced) = traced {
        let weights = scope
            .profiles
            .for_scheduler(&traced.pod.spec.scheduler_name)
            .score_weights
            .clone();
        let pod = traced.pod.clone();
        let mut explanation = from_plan(traced, weights);
        about_the_scheduler(scope, &pod, &mut explanation);
        return Ok(explanation);
    }
    let namespace = scope.namespace.unwrap_or(scope.default_namespace);
    let name = &wanted.name;
    let kind = wanted.kind;
    match scope.state.pod(namespace, name) {
        Some(pod) if kind == "Pod" => {
            let mut explanation = as_if_pending(scope, pod, node);
            about_the_scheduler(scope, pod, &mut explanation);
            Ok(explanation)
        }
        None if kind == "Pod" => Err(TargetError::NotFound(format!(
            "pod {namespace}/{name} is neither in the inputs nor in the cluster state"
        ))
        .into()),
        _ if OpKind::ALL.iter().any(|k| wanted.is_kind(k.as_str())) => Err(TargetError::NotFound(
            format!("{kind}/{name} is neither in the inputs nor in the cluster state"),
        )
        .into()),
        _ => Err(TargetError::NotFound(format!("{kind}/{name} is not in the inputs")).into()),
    }
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

/// The one object of the inputs (among those `-l`/`--field-selector` select) that creates
/// pods, when the target is not named.
fn only_candidate(scope: &Scope) -> Result<ObjectRef, TargetError> {
    let mut candidates = candidates(scope.manifests, scope.state);
    super::select_candidates(&mut candidates, scope.selector);
    match candidates.as_slice() {
        [] => Err(TargetError::NotFound(
            "nothing to explain: no input creates a Pod, a workload or an operation, and no pod/NAME is named".into(),
        )),
        [only] => Ok(ObjectRef::parse(&only.label)?),
        [first, ..] => Err(TargetError::Ambiguous {
            count: candidates.len(),
            first: first.label.clone(),
            names: candidates
                .iter()
                .map(|c| c.label.as_str())
                .collect::<Vec<_>>()
                .join(", "),
        }),
    }
}

/// A pod of the state that no plan places (it is bound, or has finished): decided as if it
/// were pending again, taken off its node first so that it does not compete with itself.
fn as_if_pending(scope: &Scope, pod: &Pod, node: Option<&str>) -> Explanation {
    let mut scheduler = Scheduler::new(scope.state, scope.profiles.clone());
    scheduler.forget(&pod.metadata.namespace, &pod.metadata.name);
    let mut pending = pod.clone();
    pending.spec.node_name.clear();
    scheduler.trace(&pending.metadata.namespace, &pending.metadata.name, node);
    let mut decision = scheduler.decide(&pending);
    scheduler.preempt(&pending, &mut decision);
    let trace = scheduler.traced().unwrap_or_default();
    let placement = Placement {
        node: decision.selected.clone(),
        reason: decision.summary.clone(),
        rule: None,
    };
    assemble(
        &pending,
        trace,
        &placement,
        scope
            .profiles
            .for_scheduler(&pending.spec.scheduler_name)
            .score_weights
            .clone(),
    )
}

/// Where the plan puts the pod, and why not when it does not.
struct Placement {
    node: Option<String>,
    /// Why it stays pending (the plan's own words), when it does.
    reason: Option<String>,
    /// What the planner adds to the engine's choice.
    rule: Option<&'static str>,
}

fn from_plan(traced: Traced, weights: BTreeMap<String, i64>) -> Explanation {
    let (placement, context) = context::of(&traced);
    let mut explanation = assemble(&traced.pod, traced.trace, &placement, weights);
    // A kubelet verdict needs no plan around it.
    if explanation.admission.is_none() {
        explanation.context = context;
    }
    explanation
}

/// The explanation of the traced decision, with `selected` the node the plan chose.
fn assemble(
    pod: &Pod,
    trace: PodTrace,
    placement: &Placement,
    weights: BTreeMap<String, i64>,
) -> Explanation {
    let pod_ref = PodRef {
        namespace: pod.metadata.namespace.clone(),
        name: pod.metadata.name.clone(),
    };
    let mut explanation = Explanation {
        pod: pod_ref,
        decision: Decision::default(),
        node_detail: None,
        total_nodes: 0,
        weights,
        preemption: None,
        admission: None,
        chosen_by: None,
        context: None,
        drift: None,
        sampling: None,
        not_modelled: None,
    };
    if let Some(verdict) = trace.admission {
        let admitted = verdict.is_ok();
        explanation.decision.selected = placement.node.clone();
        explanation.admission = Some(Admission {
            node: pod.spec.node_name.clone(),
            admitted,
            reasons: verdict.err().unwrap_or_default(),
        });
        return explanation;
    }
    let Some(decided) = trace.decided else {
        // The plan never decided it (a blocked step, a gang that was not tried...).
        explanation.decision.summary.clone_from(&placement.reason);
        return explanation;
    };
    explanation.total_nodes = decided.decision.nodes.len();
    explanation.decision = decided.decision;
    explanation.node_detail = decided.node_detail;
    explanation.preemption = decided.preemption;
    let engine = explanation.decision.selected.clone();
    let nominated = explanation.preemption.as_ref().and_then(|p| p.node.clone());
    let agrees = engine == placement.node || (engine.is_none() && nominated == placement.node);
    if !agrees {
        let decision = &mut explanation.decision;
        decision.selected.clone_from(&placement.node);
        decision.tied.clear();
        if placement.node.is_none() {
            decision.summary.clone_from(&placement.reason);
        }
        if let (Some(_), Some(_)) = (&engine, &placement.node) {
            explanation.chosen_by = placement.rule.map(str::to_string);
        }
    }
    explanation
}
