//! Walking a flow graph as Fluid runs it: each operation starts once what it waits for is
//! Complete, inherits from its source's recorded `status.nodeAffinity`, and its pod is placed
//! by the engine and assumed, so later steps see it.

use df_engine::Scheduler;
use df_model::fluid::{HOSTNAME_LABEL, ZONE_LABEL};
use df_model::{Affinity, FluidOp, Labels, NodeAffinity, OpKind, Pod};
use df_systems::fluid::admission;
use df_systems::fluid::webhook::MountedDataset;
use df_systems::fluid::{self, Policy};

use super::datasets;
use super::graph::{FlowGraph, runs_after};
use super::{OpRef, OpStatus, OperationPlan, quota};

/// What later operations see of an earlier one.
#[derive(Debug, Clone)]
struct Outcome {
    status: OpStatus,
    /// Whether Fluid ever marks it Complete (so that operations waiting for it start).
    completes: bool,
    record: Option<NodeAffinity>,
    /// Whether its pod is assumed on a node in the scheduler (until what runs after it starts).
    holds_node: bool,
}

/// Plan every operation of the graph, flow by flow, in run order.
/// The API server's admission of each operation's pod (LimitRanges, ResourceQuotas of its
/// namespace), in flow order, counted in `admission` before what is admitted after it.
/// Operations that are over (Complete, Failed) or make no pod create nothing. An operation
/// admitted here and then blocked in the plan still counts: the quota is an upper bound.
pub(crate) fn admit_operations(graph: &mut FlowGraph, admission: &mut quota::NamespaceAdmission) {
    let mut admitted = vec![None; graph.ops.len()];
    for &i in graph.flows.iter().flatten() {
        let op = graph.ops[i].op;
        if matches!(op.status.phase.as_str(), "Complete" | "Failed") || !fluid::has_pod(op) {
            continue;
        }
        let mut pod = fluid::pod_for(op, None);
        admitted[i] = Some(admission.admit(&mut pod).map(|_| pod));
    }
    graph.admitted = admitted;
}

/// `pod` with the requests and limits admission gave the same pod in `admitted`.
fn with_admitted_resources(mut pod: Pod, admitted: &Pod) -> Pod {
    let pairs = pod
        .spec
        .containers
        .iter_mut()
        .zip(&admitted.spec.containers)
        .chain(
            pod.spec
                .init_containers
                .iter_mut()
                .zip(&admitted.spec.init_containers),
        );
    for (container, admitted) in pairs {
        container.resources = admitted.resources.clone();
    }
    pod
}

/// Plan every operation of the graph, flow by flow in run order: each step's pod is assumed
/// for the steps after it, and released once a later step starts after it finished.
pub(crate) fn plan_operations(graph: &FlowGraph, scheduler: &mut Scheduler) -> Vec<OperationPlan> {
    let mut outcomes: Vec<Option<Outcome>> = vec![None; graph.ops.len()];
    let mut plans = Vec::with_capacity(graph.ops.len());
    for (flow, members) in graph.flows.iter().enumerate() {
        for (step, &i) in members.iter().enumerate() {
            release_finished(graph, i, &mut outcomes, scheduler);
            let (plan, outcome) = plan_one(graph, i, &outcomes, scheduler, flow + 1, step + 1);
            outcomes[i] = Some(outcome);
            plans.push(plan);
        }
    }
    plans
}

/// Fluid starts an operation only once what it waits for is Complete, so those pods have
/// Succeeded and hold no resources: take them out of the scheduler before placing it.
/// Operations that run in parallel with it keep theirs.
fn release_finished(
    graph: &FlowGraph,
    i: usize,
    outcomes: &mut [Option<Outcome>],
    scheduler: &mut Scheduler,
) {
    for j in graph.ops[i].waits_for() {
        if let Some(outcome) = outcomes[j].as_mut().filter(|o| o.holds_node) {
            outcome.holds_node = false;
            let pod = fluid::pod_for(graph.ops[j].op, None);
            scheduler.forget(&pod.metadata.namespace, &pod.metadata.name);
        }
    }
}

fn plan_one(
    graph: &FlowGraph,
    i: usize,
    outcomes: &[Option<Outcome>],
    scheduler: &mut Scheduler,
    flow: usize,
    step: usize,
) -> (OperationPlan, Outcome) {
    let g = &graph.ops[i];
    let op = g.op;
    let mut plan = OperationPlan {
        kind: op.kind.to_string(),
        namespace: op.metadata.namespace.clone(),
        name: op.metadata.name.clone(),
        after: g.refs.after.as_ref().map(OpRef::from),
        policy: g.refs.policy.as_str().to_string(),
        inherited_affinity: None,
        affinity: None,
        node: None,
        recorded_node_affinity: None,
        warnings: Vec::new(),
        flow,
        step,
        status: OpStatus::Planned,
        depend_on: g
            .refs
            .source
            .as_ref()
            .filter(|_| g.refs.depend_on)
            .map(OpRef::from),
        score: None,
        zone: None,
        tied: Vec::new(),
        summary: None,
        source: g.locate("metadata.name"),
        webhook_affinity: Vec::new(),
        datasets: Vec::new(),
    };
    match op.status.phase.as_str() {
        "Complete" => {
            plan.status = OpStatus::Complete;
            plan.recorded_node_affinity = op.status.node_affinity.clone();
            let outcome = Outcome {
                status: OpStatus::Complete,
                completes: true,
                record: op.status.node_affinity.clone(),
                holds_node: false,
            };
            return (plan, outcome);
        }
        "Failed" => return failed(plan),
        _ => {}
    }
    if !waits_are_satisfiable(graph, i, outcomes, &mut plan.warnings) {
        return blocked(plan);
    }
    let inherited = match inherit(graph, i, outcomes, &mut plan.warnings) {
        Ok(inherited) => inherited,
        Err(()) => return blocked(plan),
    };
    if !fluid::has_pod(op) {
        plan.warnings.push(
            "spec.processor has neither job nor script: Fluid fails the operation".to_string(),
        );
        return failed(plan);
    }
    let merged = fluid::merge(fluid::own_affinity(op), inherited.as_ref());
    if !merged.dropped_required.is_empty() {
        plan.warnings.push(format!(
            "the inherited required terms ({}) are lost: the operation has required node affinity of its own, and Fluid's merge appends to a copy of each of its terms",
            describe_all(&merged.dropped_required)
        ));
    }
    for term in inherited.iter().flat_map(|a| &a.preferred) {
        if !(1..=100).contains(&term.weight) {
            plan.warnings.push(format!(
                "the inherited preferred term ({}) has weight {}: the API server only accepts 1-100 and rejects the pod",
                describe_all(&term.preference.match_expressions),
                term.weight
            ));
        }
    }
    plan.inherited_affinity = inherited.clone();
    let affinity = admit(graph, op, merged.affinity, &mut plan);
    plan.affinity = affinity.clone();
    if plan.warnings.iter().any(|w| w.contains("rejects the pod")) {
        return blocked(plan);
    }
    let state = scheduler.state();
    // A dataset is listed when it says something about locality: it is cached somewhere, or
    // the webhook sees the pod.
    let injected = fluid::pod_labels(op).is_some_and(|l| admission::injection(l).is_some());
    plan.datasets = fluid::mounted_datasets(op)
        .into_iter()
        .map(|(namespace, name)| datasets::cached_on(&state.nodes, &namespace, &name))
        .filter(|d| injected || !d.cache_nodes.is_empty())
        .collect();
    let mut pod = fluid::pod_for(op, affinity);
    match graph.admitted.get(i).and_then(Option::as_ref) {
        Some(Err(reason)) => {
            plan.warnings
                .push(format!("rejected at admission: {reason}"));
            return blocked(plan);
        }
        Some(Ok(admitted)) => pod = with_admitted_resources(pod, admitted),
        None => {}
    }
    let decision = scheduler.decide(&pod);
    let Some(node_name) = decision.selected.clone() else {
        plan.status = OpStatus::Unschedulable;
        plan.summary = decision.summary.clone();
        if let Some(warning) = require_leaves_no_node(op, inherited.as_ref(), scheduler) {
            plan.warnings.push(warning);
        }
        let outcome = Outcome {
            status: OpStatus::Unschedulable,
            completes: false,
            record: None,
            holds_node: false,
        };
        return (plan, outcome);
    };
    plan.score = decision.selected_verdict().and_then(|v| v.score);
    plan.tied = decision
        .tied
        .iter()
        .filter(|n| ***n != *node_name)
        .map(|n| n.to_string())
        .collect();
    let state = scheduler.state();
    let node = state
        .node(&node_name)
        .expect("the engine selects nodes of the state");
    plan.zone = node
        .metadata
        .labels
        .get(ZONE_LABEL)
        .map(ToString::to_string);
    datasets::locate(&mut plan.datasets, node, &state.nodes);
    let record = fluid::recorded_node_affinity(op, node);
    let mut completes = true;
    if op.records_node_affinity() && record.is_none() {
        completes = false;
        plan.warnings.push(format!(
            "node {node_name} has none of the labels {}: Fluid cannot record status.nodeAffinity and retries forever instead of completing the operation",
            op.recorded_label_keys().join(", ")
        ));
    }
    plan.recorded_node_affinity = record.clone();
    plan.node = Some(node_name.clone());
    scheduler.assume(pod, &node_name);
    (
        plan,
        Outcome {
            status: OpStatus::Planned,
            completes,
            record,
            holds_node: true,
        },
    )
}

/// The pod's affinity once Fluid's admission webhook has seen it (`admission::admit`). What
/// each plugin adds is kept in the plan as its own source, next to the inherited affinity.
fn admit(
    graph: &FlowGraph,
    op: &FluidOp,
    affinity: Option<Affinity>,
    plan: &mut OperationPlan,
) -> Option<Affinity> {
    let Some(labels) = fluid::pod_labels(op) else {
        return affinity;
    };
    let datasets = fluid::mounted_datasets(op);
    let mounted: Vec<MountedDataset> = datasets
        .iter()
        .map(|(namespace, name)| {
            let runtime = datasets::runtime_of(&graph.runtimes, namespace, name);
            MountedDataset {
                name,
                cache_affinity: runtime.and_then(|r| r.cache_affinity.as_ref()),
                fuse_node_selector: runtime.map(|r| &r.fuse_node_selector),
            }
        })
        .collect();
    let none = Labels::default();
    let node_selector = fluid::own_node_selector(op).unwrap_or(&none);
    let admission = admission::admit(op.namespace(), labels, affinity, node_selector, &mounted);
    plan.warnings.extend(admission.notes);
    plan.webhook_affinity = datasets::sources(admission.added);
    admission.affinity
}

fn blocked(mut plan: OperationPlan) -> (OperationPlan, Outcome) {
    plan.status = OpStatus::Blocked;
    let outcome = Outcome {
        status: OpStatus::Blocked,
        completes: false,
        record: None,
        holds_node: false,
    };
    (plan, outcome)
}

fn failed(mut plan: OperationPlan) -> (OperationPlan, Outcome) {
    plan.status = OpStatus::Failed;
    let outcome = Outcome {
        status: OpStatus::Failed,
        completes: false,
        record: None,
        holds_node: false,
    };
    (plan, outcome)
}

/// Why an operation Fluid waits for never lets it start, or `None` when it completes.
fn never_completes(outcome: Option<&Outcome>) -> Option<&'static str> {
    match outcome {
        None => Some("is neither in the input nor in the cluster state"),
        Some(o) if o.completes => None,
        Some(o) => Some(match o.status {
            OpStatus::Failed => "Failed",
            OpStatus::Unschedulable => "cannot be scheduled",
            OpStatus::Blocked => "never starts",
            OpStatus::Planned | OpStatus::Complete => "never completes",
        }),
    }
}

/// Check `runAfter` (and `dependOn`), warning when Fluid would wait forever.
fn waits_are_satisfiable(
    graph: &FlowGraph,
    i: usize,
    outcomes: &[Option<Outcome>],
    warnings: &mut Vec<String>,
) -> bool {
    let g = &graph.ops[i];
    let mut ok = true;
    let waits = [
        (g.refs.after.as_ref(), g.after, "runs after"),
        (
            g.refs.source.as_ref().filter(|_| g.refs.depend_on),
            g.source,
            "depends on (dependOn)",
        ),
    ];
    for (key, index, verb) in waits {
        let Some(key) = key else { continue };
        let outcome = index.and_then(|j| outcomes[j].as_ref());
        if let Some(why) = never_completes(outcome) {
            warnings.push(format!(
                "{verb} {key}, which {why}: Fluid waits for it forever"
            ));
            ok = false;
        }
    }
    if ok
        && g.refs.depend_on
        && let (Some(source), Some(key)) = (g.source, g.refs.source.as_ref())
        && !runs_after(graph, i, source)
    {
        warnings.push(format!(
            "dependOn {key} is not upstream of this operation in runAfter: Fluid starts it only once {key} happens to be Complete"
        ));
    }
    ok
}

/// The inherited node affinity, with warnings for everything Fluid skips silently.
/// `Err` when Fluid cannot compute it and does not start the operation.
fn inherit(
    graph: &FlowGraph,
    i: usize,
    outcomes: &[Option<Outcome>],
    warnings: &mut Vec<String>,
) -> Result<Option<NodeAffinity>, ()> {
    let g = &graph.ops[i];
    let (Some(key), policy) = (g.refs.source.as_ref(), g.refs.policy) else {
        return Ok(None);
    };
    let Some(j) = g.source else {
        warnings.push(format!(
            "inherits from {key}, which is neither in the input nor in the cluster state: Fluid waits for it forever"
        ));
        return Err(());
    };
    let Some(outcome) = outcomes[j].as_ref().filter(|o| o.completes) else {
        warnings.push(format!(
            "inherits from {key}, which never completes: Fluid waits for it forever"
        ));
        return Err(());
    };
    let strategy = &g
        .op
        .spec
        .run_after
        .as_ref()
        .expect("a source implies runAfter")
        .affinity_strategy;
    let Some(term) = outcome.record.as_ref().and_then(fluid::recorded_term) else {
        warnings.push(format!(
            "{} from {key}, which records no status.nodeAffinity ({}): nothing is inherited",
            policy.as_str(),
            why_no_record(graph.ops[j].op)
        ));
        return Ok(None);
    };
    let inheritance = fluid::inherit(policy, strategy, term);
    let recorded: Vec<&str> = term
        .match_expressions
        .iter()
        .map(|e| e.key.as_str())
        .collect();
    for missing in &inheritance.missing_keys {
        let field = if policy == Policy::Require {
            "requires"
        } else {
            "prefers"
        };
        warnings.push(format!(
            "{field} {missing:?}, which {key} does not record (it records {}): skipped",
            recorded.join(", ")
        ));
    }
    Ok(inheritance.affinity)
}

fn why_no_record(op: &FluidOp) -> String {
    match op.kind {
        OpKind::DataProcess | OpKind::DataBackup => format!("{} never records", op.kind),
        OpKind::DataMigrate if !op.records_node_affinity() => {
            "a parallel DataMigrate runs several pods and records nothing".to_string()
        }
        _ if op.status.phase == "Complete" => "none in its status".to_string(),
        _ => "its node has none of the recorded labels".to_string(),
    }
}

/// When an inherited Require made the pod unschedulable, say whether it is the cause.
fn require_leaves_no_node(
    op: &FluidOp,
    inherited: Option<&NodeAffinity>,
    scheduler: &Scheduler,
) -> Option<String> {
    let inherited = inherited?;
    let required = inherited.required.as_ref()?;
    let without = NodeAffinity {
        required: None,
        preferred: inherited.preferred.clone(),
    };
    let merged = fluid::merge(fluid::own_affinity(op), Some(&without));
    let fits = scheduler
        .decide(&fluid::pod_for(op, merged.affinity))
        .feasible_count();
    let terms: Vec<String> = required
        .node_selector_terms
        .iter()
        .map(|t| describe_all(&t.match_expressions))
        .collect();
    (fits > 0).then(|| {
        format!(
            "the inherited Require ({}) leaves no feasible node; {fits} node(s) would fit without it",
            terms.join(" | ")
        )
    })
}

fn describe_all(requirements: &[df_model::NodeSelectorRequirement]) -> String {
    requirements
        .iter()
        .map(fluid::describe_requirement)
        .collect::<Vec<_>>()
        .join(", ")
}

/// The hostname a record points at, for showing where a Complete operation ran.
pub fn recorded_host(record: &NodeAffinity) -> Option<&str> {
    fluid::recorded_term(record)?
        .match_expressions
        .iter()
        .find(|e| e.key == HOSTNAME_LABEL)
        .and_then(|e| e.values.first())
        .map(String::as_str)
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::{OpStatus, OperationPlan, PlanOptions, plan_all};
    use df_engine::Profiles;
    use df_manifest::parse_text;
    use df_model::Quantity;
    use df_state::{ClusterState, recorded};

    /// Three 4-CPU nodes: n1 and n2 in zone z1 (racks r1, r2), n3 in zone z2, and two
    /// operations that already ran: a Complete DataLoad in `shared` recorded on n2, and a
    /// Failed one.
    const STATE: &str = r#"
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
    labels: {kubernetes.io/hostname: n1, topology.kubernetes.io/zone: z1, topology.kubernetes.io/region: r, example.com/rack: r1}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata:
    name: n2
    labels: {kubernetes.io/hostname: n2, topology.kubernetes.io/zone: z1, topology.kubernetes.io/region: r, example.com/rack: r2}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Node
  metadata:
    name: n3
    labels: {kubernetes.io/hostname: n3, topology.kubernetes.io/zone: z2, topology.kubernetes.io/region: r, example.com/rack: r3}
  status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
- apiVersion: data.fluid.io/v1alpha1
  kind: DataLoad
  metadata: {name: warm, namespace: shared}
  status:
    phase: Complete
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
        - matchExpressions:
          - {key: kubernetes.io/hostname, operator: In, values: [n2]}
          - {key: topology.kubernetes.io/zone, operator: In, values: [z1]}
- apiVersion: data.fluid.io/v1alpha1
  kind: DataLoad
  metadata: {name: broken, namespace: shared}
  status: {phase: Failed}
"#;

    fn state(edit: impl FnOnce(&mut ClusterState)) -> ClusterState {
        let mut state = ClusterState::from_objects(
            recorded::parse_state("state.yaml", STATE.as_bytes()).unwrap(),
        );
        edit(&mut state);
        state
    }

    /// One operation document: `kind name [after-kind after-name [policy]]` plus extra spec.
    fn op(kind: &str, name: &str, run_after: &str, extra: &str) -> String {
        let mut doc = format!(
            "apiVersion: data.fluid.io/v1alpha1\nkind: {kind}\nmetadata: {{name: {name}, namespace: ns}}\nspec:\n  resources: {{requests: {{cpu: \"1\"}}}}\n"
        );
        if kind == "DataProcess" {
            doc = doc.replace(
                "  resources: {requests: {cpu: \"1\"}}\n",
                "  processor: {script: {image: busybox, resources: {requests: {cpu: \"1\"}}}}\n",
            );
        }
        if !run_after.is_empty() {
            doc.push_str(&format!("  runAfter: {run_after}\n"));
        }
        doc.push_str(extra);
        doc
    }

    fn run(docs: &[String], state: &ClusterState) -> Vec<OperationPlan> {
        let (manifests, problems) = parse_text(&Arc::from("flow.yaml"), &docs.join("---\n"));
        assert!(problems.is_empty(), "{problems:?}");
        let inputs = df_manifest::ManifestSet {
            manifests,
            ..Default::default()
        };
        plan_all(&inputs, state, Profiles::default(), &PlanOptions::default())
            .unwrap()
            .operations
    }

    /// `name@node status inherited` per operation, and every warning.
    fn summary(ops: &[OperationPlan]) -> (Vec<String>, Vec<String>) {
        let rows = ops
            .iter()
            .map(|o| {
                format!(
                    "{}@{} {} {}",
                    o.name,
                    o.node.as_deref().unwrap_or("-"),
                    o.status.as_str(),
                    o.inherited_affinity
                        .as_ref()
                        .map_or("-".to_string(), df_systems::fluid::describe_inherited)
                )
            })
            .collect();
        let warnings = ops
            .iter()
            .flat_map(|o| o.warnings.iter().map(move |w| format!("{}: {w}", o.name)))
            .collect();
        (rows, warnings)
    }

    #[test]
    fn flows_inherit_and_warn_as_fluid_behaves() {
        struct Case {
            name: &'static str,
            docs: Vec<String>,
            rows: &'static [&'static str],
            warnings: &'static [&'static str],
        }
        let cases = [
            Case {
                name: "require follows the loader's node; prefer zone; the default policy inherits nothing",
                docs: vec![
                    op("DataLoad", "a", "", ""),
                    op(
                        "DataProcess",
                        "b",
                        "{kind: DataLoad, name: a, affinityStrategy: {policy: Require}}",
                        "",
                    ),
                    op(
                        "DataMigrate",
                        "c",
                        "{kind: DataProcess, name: b, affinityStrategy: {policy: Prefer, dependOn: {kind: DataLoad, name: a}, prefers: [{name: topology.kubernetes.io/zone, weight: 50}]}}",
                        "",
                    ),
                    op("DataBackup", "d", "{kind: DataMigrate, name: c}", ""),
                ],
                rows: &[
                    "a@n1 Planned -",
                    "b@n1 Planned required: kubernetes.io/hostname In [n1]",
                    "c@n1 Planned preferred(50): topology.kubernetes.io/zone In [z1]",
                    "d@n1 Planned -",
                ],
                warnings: &[],
            },
            Case {
                name: "cross-namespace Complete referent uses its real record",
                docs: vec![op(
                    "DataLoad",
                    "b",
                    "{kind: DataLoad, name: warm, namespace: shared, affinityStrategy: {policy: Require, requires: [{name: topology.kubernetes.io/zone}, {name: example.com/rack}]}}",
                    "",
                )],
                rows: &[
                    "warm@- Complete -",
                    "b@n1 Planned required: topology.kubernetes.io/zone In [z1]",
                ],
                warnings: &[
                    "b: requires \"example.com/rack\", which DataLoad/shared/warm does not record (it records kubernetes.io/hostname, topology.kubernetes.io/zone): skipped",
                ],
            },
            Case {
                name: "inheriting from a DataProcess gets nothing",
                docs: vec![
                    op("DataProcess", "p", "", ""),
                    op(
                        "DataLoad",
                        "l",
                        "{kind: DataProcess, name: p, affinityStrategy: {policy: Prefer}}",
                        "",
                    ),
                ],
                rows: &["p@n1 Planned -", "l@n1 Planned -"],
                warnings: &[
                    "l: Prefer from DataProcess/ns/p, which records no status.nodeAffinity (DataProcess never records): nothing is inherited",
                ],
            },
            Case {
                name: "missing and Failed referents block the flow",
                docs: vec![
                    op("DataLoad", "x", "{kind: DataLoad, name: ghost}", ""),
                    op(
                        "DataLoad",
                        "y",
                        "{kind: DataLoad, name: broken, namespace: shared}",
                        "",
                    ),
                    op(
                        "DataLoad",
                        "z",
                        "{kind: DataLoad, name: y, affinityStrategy: {policy: Require}}",
                        "",
                    ),
                ],
                rows: &[
                    "x@- Blocked -",
                    "broken@- Failed -",
                    "y@- Blocked -",
                    "z@- Blocked -",
                ],
                warnings: &[
                    "x: runs after DataLoad/ns/ghost, which is neither in the input nor in the cluster state: Fluid waits for it forever",
                    "y: runs after DataLoad/shared/broken, which Failed: Fluid waits for it forever",
                    "z: runs after DataLoad/ns/y, which never starts: Fluid waits for it forever",
                ],
            },
            Case {
                name: "own required terms make Fluid lose the inherited ones",
                docs: vec![
                    op("DataLoad", "a", "", ""),
                    op(
                        "DataLoad",
                        "b",
                        "{kind: DataLoad, name: a, affinityStrategy: {policy: Require}}",
                        "  affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [{matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [z2]}]}]}}}\n",
                    ),
                ],
                rows: &[
                    "a@n1 Planned -",
                    "b@n3 Planned required: kubernetes.io/hostname In [n1]",
                ],
                warnings: &[
                    "b: the inherited required terms (kubernetes.io/hostname In [n1]) are lost: the operation has required node affinity of its own, and Fluid's merge appends to a copy of each of its terms",
                ],
            },
            Case {
                name: "a dependOn outside the runAfter chain",
                docs: vec![
                    op("DataLoad", "a", "", ""),
                    op("DataLoad", "side", "", ""),
                    op(
                        "DataLoad",
                        "b",
                        "{kind: DataLoad, name: a, affinityStrategy: {policy: Require, dependOn: {kind: DataLoad, name: side}}}",
                        "",
                    ),
                ],
                rows: &[
                    "a@n1 Planned -",
                    "side@n2 Planned -",
                    "b@n2 Planned required: kubernetes.io/hostname In [n2]",
                ],
                warnings: &[
                    "b: dependOn DataLoad/ns/side is not upstream of this operation in runAfter: Fluid starts it only once DataLoad/ns/side happens to be Complete",
                ],
            },
        ];
        let state = state(|_| {});
        for case in cases {
            let (rows, warnings) = summary(&run(&case.docs, &state));
            assert_eq!(rows, case.rows, "{}", case.name);
            assert_eq!(warnings, case.warnings, "{}", case.name);
        }
    }

    #[test]
    fn an_inherited_require_that_leaves_no_node_is_explained() {
        let cordoned = state(|s| {
            let n2 = s.node_index("n2").unwrap();
            s.nodes[n2].spec.unschedulable = true;
        });
        let ops = run(
            &[op(
                "DataLoad",
                "b",
                "{kind: DataLoad, name: warm, namespace: shared, affinityStrategy: {policy: Require}}",
                "",
            )],
            &cordoned,
        );
        let b = &ops[1];
        assert_eq!(b.status, OpStatus::Unschedulable);
        assert_eq!(
            b.summary.as_deref(),
            Some(
                "0/3 nodes are available: 1 node(s) were unschedulable, 2 node(s) didn't match Pod's node affinity/selector."
            )
        );
        assert_eq!(
            b.warnings,
            [
                "the inherited Require (kubernetes.io/hostname In [n2]) leaves no feasible node; 2 node(s) would fit without it"
            ]
        );
    }

    #[test]
    fn a_completed_step_releases_its_node_before_the_next_step() {
        // Fluid's two-DataLoad demo: 12 CPU per step on 16-CPU nodes. The second step starts
        // once the first is Complete (its pod Succeeded), so both fit on the same node; two
        // steps that run side by side do not.
        let big = state(|s| {
            for node in &mut s.nodes {
                node.status
                    .allocatable
                    .insert("cpu".into(), Quantity::parse("16").unwrap());
            }
        });
        let twelve = |doc: String| doc.replace("cpu: \"1\"", "cpu: \"12\"");
        let sequential = [
            twelve(op("DataLoad", "load-a", "", "")),
            twelve(op(
                "DataLoad",
                "load-b",
                "{kind: DataLoad, name: load-a, affinityStrategy: {policy: Require}}",
                "",
            )),
        ];
        let (rows, warnings) = summary(&run(&sequential, &big));
        assert_eq!(
            rows,
            [
                "load-a@n1 Planned -",
                "load-b@n1 Planned required: kubernetes.io/hostname In [n1]"
            ]
        );
        assert_eq!(warnings, Vec::<String>::new());
        let parallel = [
            twelve(op("DataLoad", "load-a", "", "")),
            twelve(op("DataLoad", "load-b", "", "")),
        ];
        let (rows, _) = summary(&run(&parallel, &big));
        assert_eq!(rows, ["load-a@n1 Planned -", "load-b@n2 Planned -"]);
    }

    #[test]
    fn fan_out_flows_assume_each_step() {
        // load-0 fans out to 4 processes pinned to its node (1 CPU each on 4-CPU nodes): they
        // start once load-0 is Complete, so all four fit where its pod ran, and they run side
        // by side, so they fill n1. The zone fan-out then fills n2, the only other z1 node; a
        // parallel DataMigrate records nothing, so the last step inherits nothing.
        let mut docs = vec![op("DataLoad", "load-0", "", "")];
        for i in 1..=4 {
            docs.push(op(
                "DataProcess",
                &format!("pin-{i}"),
                "{kind: DataLoad, name: load-0, affinityStrategy: {policy: Require}}",
                "",
            ));
        }
        for i in 1..=4 {
            docs.push(op(
                "DataLoad",
                &format!("near-{i}"),
                "{kind: DataLoad, name: load-0, affinityStrategy: {policy: Prefer, prefers: [{name: topology.kubernetes.io/zone, weight: 100}]}}",
                "",
            ));
        }
        docs.push(op("DataMigrate", "last", "{kind: DataLoad, name: near-4, affinityStrategy: {policy: Require, requires: [{name: example.com/rack}]}}", "  parallelism: 2\n"));
        docs.push(op(
            "DataBackup",
            "after-last",
            "{kind: DataMigrate, name: last, affinityStrategy: {policy: Require}}",
            "",
        ));
        let ops = run(&docs, &state(|_| {}));
        let placed: Vec<String> = ops
            .iter()
            .map(|o| {
                format!(
                    "{}@{}",
                    o.name,
                    o.node.as_deref().unwrap_or(o.status.as_str())
                )
            })
            .collect();
        assert_eq!(
            placed,
            [
                "load-0@n1",
                "pin-1@n1",
                "pin-2@n1",
                "pin-3@n1",
                "pin-4@n1",
                "near-1@n2",
                "near-2@n2",
                "near-3@n2",
                "near-4@n2",
                "last@n3",
                "after-last@n3",
            ]
        );
        assert_eq!(
            ops[10].warnings,
            [
                "Require from DataMigrate/ns/last, which records no status.nodeAffinity (a parallel DataMigrate runs several pods and records nothing): nothing is inherited"
            ]
        );
        assert_eq!(
            ops.iter().map(|o| o.step).collect::<Vec<_>>(),
            (1..=11).collect::<Vec<_>>()
        );
        assert_eq!(ops[9].recorded_node_affinity, None);
    }
}
