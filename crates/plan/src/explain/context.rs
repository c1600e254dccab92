//! The plan around an explained pod, read from the plan the orchestration made: where the
//! plan puts the pod and, in words, what placed it there.

use super::{Context, InheritedTerm, Placement, Solvers};
use crate::orchestrate::{Subject, Traced};
use crate::pending::FROM_STATE;
use crate::{OpStatus, OperationPlan, Solver};
use df_model::text::plural;
use df_model::{NodeSelectorRequirement, OpKind};
use df_systems::fluid;
use df_systems::gang::GroupPlan;
use df_systems::gang::outcome::PodRow;
use df_systems::topology;

/// Where the plan puts the traced pod, and the context to show (`None` when it would say
/// nothing: a lone pod of the batch).
pub(super) fn of(traced: &Traced) -> (Placement, Option<Context>) {
    match &traced.subject {
        Subject::Operation {
            kind,
            namespace,
            name,
        } => operation(traced, *kind, namespace, name),
        Subject::Gang {
            namespace,
            name,
            rule,
        } => gang(traced, namespace, name, rule),
        Subject::Batch { from, size, notes } => batch(traced, from, *size, notes),
        Subject::Queue { position, units } => queue(traced, *position, *units),
    }
}

/// The assumed pods of the traced decision, and whether it ran over a subset of the nodes.
fn seen(traced: &Traced) -> (Vec<super::Assumed>, bool) {
    traced
        .trace
        .decided
        .as_ref()
        .map(|d| (d.assumed.clone(), d.restricted))
        .unwrap_or_default()
}

fn context(within: String, traced: &Traced, notes: Vec<String>) -> Context {
    Context {
        within,
        assumed: seen(traced).0,
        restricted_to: None,
        inherited: Vec::new(),
        solvers: None,
        notes,
    }
}

/// The operation at its step of its flow: the steps before it placed and assumed, and each
/// inherited term with the step it comes from.
fn operation(
    traced: &Traced,
    kind: OpKind,
    namespace: &str,
    name: &str,
) -> (Placement, Option<Context>) {
    let operations = &traced.plan.operations;
    let Some(index) = operations
        .iter()
        .position(|o| o.kind == kind.as_str() && o.namespace == namespace && o.name == name)
    else {
        return (unplanned(), None);
    };
    let op = &operations[index];
    let mut notes = Vec::new();
    match op.status {
        OpStatus::Complete => notes
            .push("already Complete in the cluster state: Fluid does not run its pod again".into()),
        OpStatus::Blocked | OpStatus::Failed => notes.push(format!(
            "the plan marks it {}: Fluid never runs this pod",
            op.status.as_str()
        )),
        OpStatus::Planned | OpStatus::Unschedulable => {}
    }
    let placement = Placement {
        node: op.node.clone(),
        reason: op.summary.clone().or_else(|| notes.first().cloned()),
        rule: None,
    };
    notes.extend(op.warnings.iter().cloned());
    for webhook in &op.webhook_affinity {
        notes.push(format!(
            "Fluid's webhook ({}) adds {}",
            webhook.plugin,
            fluid::describe_inherited(&webhook.node_affinity)
        ));
    }
    for dataset in &op.datasets {
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
    let (assumed, _) = seen(traced);
    if traced.trace.decided.is_some() {
        // Steps placed earlier whose pods the decision no longer saw: they had completed.
        for done in &operations[..index] {
            let (Some(node), Some(kind)) = (&done.node, OpKind::parse(&done.kind)) else {
                continue;
            };
            let pod = format!("{}/{}", done.namespace, fluid::pod_name(kind, &done.name));
            if !assumed.iter().any(|a| a.pod == pod) {
                notes.push(format!(
                    "{}/{}/{} is Complete before this step starts: its pod no longer holds {node}",
                    done.kind, done.namespace, done.name
                ));
            }
        }
    }
    let mut context = context(
        format!(
            "{}/{}/{}: step {} of flow {}",
            op.kind, op.namespace, op.name, op.step, op.flow
        ),
        traced,
        notes,
    );
    context.inherited = inherited_terms(op);
    (placement, Some(context))
}

/// No plan entry: only when the orchestration's classification and its plan disagree.
fn unplanned() -> Placement {
    Placement {
        node: None,
        reason: Some("the plan has no entry for it".to_string()),
        rule: None,
    }
}

/// Each inherited expression with the operation it comes from and the value it recorded.
fn inherited_terms(op: &OperationPlan) -> Vec<InheritedTerm> {
    let (Some(affinity), Some(source)) = (
        op.inherited_affinity.as_ref(),
        op.depend_on.as_ref().or(op.after.as_ref()),
    ) else {
        return Vec::new();
    };
    let term = |kind: String, e: &NodeSelectorRequirement| InheritedTerm {
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

/// Where Kueue admitted the pod's pod set: the flavors whose node labels and tolerations the
/// pod inherits, which decide its node before any score.
fn kueue_flavor_note(group: &GroupPlan, pod: &df_model::Pod) -> Option<String> {
    let admission = group.admission.as_ref().filter(|a| a.admitted)?;
    let name = df_systems::kueue::pod_set_of(pod);
    let pod_set = admission.pod_sets.iter().find(|ps| ps.name == name)?;
    let flavors: std::collections::BTreeSet<&str> =
        pod_set.flavors.values().map(String::as_str).collect();
    let flavors: Vec<&str> = flavors.into_iter().collect();
    Some(format!(
        "Kueue admits its pod set {name} on ResourceFlavor {}: it inherits the flavor's node \
         labels and tolerations",
        flavors.join(", ")
    ))
}

/// The group and the row of pod `name` of the gang `namespace/gang`.
fn gang_row<'p>(
    traced: &'p Traced,
    namespace: &str,
    gang: &str,
) -> Option<(&'p GroupPlan, &'p PodRow)> {
    let name = &traced.pod.metadata.name;
    traced
        .plan
        .groups
        .iter()
        .filter(|g| g.namespace == namespace && g.name == gang)
        .find_map(|g| Some((g, g.pods.iter().find(|r| &r.pod == name)?)))
}

/// A gang's pod inside its group's plan: a Godel pod decided within the node group the unit
/// was given, a topology gang's within its domain.
fn gang(
    traced: &Traced,
    namespace: &str,
    name: &str,
    rule: &'static str,
) -> (Placement, Option<Context>) {
    let Some((group, row)) = gang_row(traced, namespace, name) else {
        return rejected_gang_pod(traced, namespace, name, rule);
    };
    let placement = Placement {
        node: row.node.clone(),
        reason: row.reason.clone().or_else(|| Some(group.summary.clone())),
        rule: Some(rule),
    };
    let mut notes = Vec::new();
    match &row.node {
        Some(node) => notes.push(format!("the gang plan puts it on {node}")),
        None => notes.push(format!(
            "the gang plan leaves it pending: {}",
            placement.reason.clone().unwrap_or_default()
        )),
    }
    if let Some(path) = topology::domain_path(group, row) {
        notes.push(format!("its domain path: {path}"));
    }
    if let Some(note) = kueue_flavor_note(group, &traced.pod) {
        notes.push(note);
    }
    if group.scheduled < group.min_member {
        notes.push(format!(
            "the gang reaches {} of minMember {}: none of its pending pods is bound",
            group.scheduled, group.min_member
        ));
    }
    let engine = traced
        .trace
        .decided
        .as_ref()
        .and_then(|d| d.decision.selected.as_ref());
    if let (Some(planned), Some(alone)) = (&row.node, engine)
        && planned != alone
    {
        notes.push(format!(
            "this decision alone picks {alone}; the gang plan picks {planned}: {rule}"
        ));
    }
    let (_, restricted) = seen(traced);
    let mut context = context(
        format!("{} {}/{}", group.kind, group.namespace, group.name),
        traced,
        notes,
    );
    context.restricted_to = group
        .node_group
        .clone()
        .map(|g| format!("node group {g}"))
        .or_else(|| topology::chosen_domain(group))
        .filter(|_| restricted && !group.group_nodes.is_empty())
        .map(|g| format!("{g} ({})", plural(group.group_nodes.len(), "node")));
    (placement, Some(context))
}

/// A gang's pod the API server rejects: never created, so never scheduled.
fn rejected_gang_pod(
    traced: &Traced,
    namespace: &str,
    name: &str,
    rule: &'static str,
) -> (Placement, Option<Context>) {
    let pod = &traced.pod.metadata.name;
    let Some((group, reason)) = traced
        .plan
        .groups
        .iter()
        .filter(|g| g.namespace == namespace && g.name == name)
        .find_map(|g| Some((g, g.rejected_at_admission.get(pod)?)))
    else {
        return (unplanned(), None);
    };
    let placement = Placement {
        node: None,
        reason: Some(format!("rejected at admission: {reason}")),
        rule: Some(rule),
    };
    let notes = vec![format!("the gang: {}", group.summary)];
    let within = format!("{} {}/{}", group.kind, group.namespace, group.name);
    (placement, Some(context(within, traced, notes)))
}

/// A pod of the batch of the inputs: placed with the batch's solver after everything the plan
/// placed before the batch and the batch pods before it.
fn batch(
    traced: &Traced,
    from: &str,
    size: usize,
    notes: &[String],
) -> (Placement, Option<Context>) {
    let name = &traced.pod.metadata.name;
    let namespace = &traced.pod.metadata.namespace;
    let Some(batch) = &traced.plan.batch else {
        return (unplanned(), None);
    };
    let Some(row) = batch
        .pods
        .iter()
        .rev()
        .find(|r| &r.name == name && &r.namespace == namespace && r.from == from)
    else {
        return (unplanned(), None);
    };
    let flow = batch.solver == Solver::Flow;
    let placement = Placement {
        node: row.node.clone(),
        reason: Some(row.note.clone()),
        rule: flow.then_some("the min-cost flow places the whole batch at once"),
    };
    let context = context(
        format!("a batch of {} ({from})", plural(size, "pod")),
        traced,
        notes.to_vec(),
    );
    if !flow {
        let says_something = size > 1 || !context.assumed.is_empty() || !context.notes.is_empty();
        return (placement, says_something.then_some(context));
    }
    let greedy = batch
        .comparison
        .as_ref()
        .and_then(|c| c.pods.iter().find(|p| &p.name == name))
        .and_then(|p| p.greedy.clone());
    let context = Context {
        solvers: Some(Solvers {
            flow: row.node.clone(),
            method: row.method,
            note: row.note.clone(),
            total_cost: batch.total_cost.unwrap_or_default(),
            greedy,
        }),
        notes: vec![
            "the table below is the engine's decision for the pod (and the alike pods of its \
             class) before the batch is placed; the flow solver places the whole batch at once \
             and has no per-node scores of its own"
                .to_string(),
        ],
        ..context
    };
    (placement, Some(context))
}

/// A Pending pod of the state, in place: the pods and gangs ahead of it in the scheduling
/// queue are placed first, as `plan --pending` places them; the Pending pods behind it hold
/// nothing.
fn queue(traced: &Traced, position: usize, units: usize) -> (Placement, Option<Context>) {
    let pod = &traced.pod;
    let (namespace, name) = (&pod.metadata.namespace, &pod.metadata.name);
    let batch_row = traced
        .plan
        .batch
        .iter()
        .flat_map(|b| &b.pods)
        .find(|r| &r.name == name && &r.namespace == namespace && r.from == FROM_STATE);
    let group_row = traced
        .plan
        .groups
        .iter()
        .filter(|g| &g.namespace == namespace)
        .find_map(|g| Some((g, g.pods.iter().find(|r| &r.pod == name)?)));
    let placement = match (batch_row, group_row) {
        (Some(row), _) => Placement {
            node: row.node.clone(),
            reason: Some(row.note.clone()),
            rule: None,
        },
        (None, Some((group, row))) => Placement {
            node: row.node.clone(),
            reason: row.reason.clone().or_else(|| Some(group.summary.clone())),
            rule: None,
        },
        (None, None) => unplanned(),
    };
    let mut notes = vec![format!(
        "Pending in the cluster state: {position} of the queue's {units} pods and gangs come \
         before it (priority, then creationTimestamp) and are placed first"
    )];
    if let Some(nominated) = &pod.status.nominated_node_name {
        notes.push(format!(
            "nominated to {nominated} by an earlier preemption: kube-scheduler tries that node first"
        ));
    }
    let within = format!("the scheduling queue: position {} of {units}", position + 1);
    (placement, Some(context(within, traced, notes)))
}
