//! Rules for anything that schedules pods (DF4xx): pods, workload templates, Volcano tasks,
//! Fluid operations and Godel PodGroup node selectors.

use super::{Context, Finding, join, literal_key, node_at};
use df_engine::selector;
use df_manifest::Manifest;
use df_model::{
    Affinity, LabelSelector, Labels, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm,
    Object, PodAffinity, PodAffinityTerm, PodSpec,
};
use df_state::ClusterState;

/// The scheduling-relevant part of one pod spec (or what stands for it) and where it is.
pub(crate) struct Scheduling<'a> {
    /// Path of the object holding `nodeSelector` and `affinity`.
    pub path: String,
    pub node_selector: &'a Labels,
    pub affinity: Option<&'a Affinity>,
}

impl<'a> Scheduling<'a> {
    fn of(path: impl Into<String>, spec: &'a PodSpec) -> Scheduling<'a> {
        Scheduling {
            path: path.into(),
            node_selector: &spec.node_selector,
            affinity: spec.affinity.as_deref(),
        }
    }
}

/// Every pod spec of a manifest, with its path.
pub(crate) fn scheduling_of(m: &Manifest) -> Vec<Scheduling<'_>> {
    match &m.object {
        Object::Pod(pod) => vec![Scheduling::of("spec", &pod.spec)],
        Object::Workload(w) => {
            let path = if w.kind == "CronJob" {
                "spec.jobTemplate.spec.template.spec"
            } else {
                "spec.template.spec"
            };
            vec![Scheduling::of(path, &w.template.spec)]
        }
        Object::VolcanoJob(job) => job
            .spec
            .tasks
            .iter()
            .enumerate()
            .map(|(i, t)| {
                Scheduling::of(format!("spec.tasks[{i}].template.spec"), &t.template.spec)
            })
            .collect(),
        Object::FluidOp(op) => {
            let mut specs = vec![Scheduling {
                path: "spec".into(),
                node_selector: &op.spec.node_selector,
                affinity: op.spec.affinity.as_ref(),
            }];
            if let Some(job) = op.spec.processor.as_ref().and_then(|p| p.job.as_ref()) {
                specs.push(Scheduling::of("spec.processor.job.podSpec", &job.pod_spec));
            }
            specs
        }
        _ => Vec::new(),
    }
}

pub(crate) fn check(ctx: &mut Context<'_>, m: &Manifest) {
    if let Object::GodelPodGroup(group) = &m.object
        && let Some(selector) = group
            .pod_group_affinity()
            .and_then(|a| a.node_selector.as_ref())
    {
        let path = "spec.affinity.podGroupAffinity.nodeSelector";
        check_node_selector(ctx, m, path, selector);
        if let Some(state) = ctx.state {
            check_satisfiable(ctx, m, state, path, &Labels::new(), Some(selector));
        }
    }
    for scheduling in scheduling_of(m) {
        let required = scheduling
            .affinity
            .and_then(|a| a.node_affinity.as_ref())
            .and_then(|n| n.required.as_ref());
        let contradicts = required.is_some_and(|r| check_contradiction(ctx, m, &scheduling, r));
        // Structural problems (DF404) and contradictions (DF407) already say "no node".
        let well_formed = required.is_none_or(|r| {
            r.node_selector_terms
                .iter()
                .any(|t| !t.match_expressions.is_empty() || !t.match_fields.is_empty())
        });
        if let Some(state) = ctx.state
            && !contradicts
            && well_formed
            && (required.is_some() || !scheduling.node_selector.is_empty())
        {
            let at = if scheduling.node_selector.is_empty() {
                join(
                    &scheduling.path,
                    "affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution",
                )
            } else {
                join(&scheduling.path, "nodeSelector")
            };
            check_satisfiable(ctx, m, state, &at, scheduling.node_selector, required);
        }
        let Some(affinity) = scheduling.affinity else {
            continue;
        };
        let base = join(&scheduling.path, "affinity");
        if let Some(node) = &affinity.node_affinity {
            let node_base = join(&base, "nodeAffinity");
            if let Some(required) = &node.required {
                let path = join(&node_base, "requiredDuringSchedulingIgnoredDuringExecution");
                check_node_selector(ctx, m, &path, required);
            }
            for (i, term) in node.preferred.iter().enumerate() {
                let path =
                    format!("{node_base}.preferredDuringSchedulingIgnoredDuringExecution[{i}]");
                check_weight(ctx, m, &path, term.weight);
                let preference = join(&path, "preference");
                for (j, r) in term.preference.match_expressions.iter().enumerate() {
                    check_node_requirement(
                        ctx,
                        m,
                        &format!("{preference}.matchExpressions[{j}]"),
                        r,
                    );
                }
                for (j, r) in term.preference.match_fields.iter().enumerate() {
                    check_field_requirement(ctx, m, &format!("{preference}.matchFields[{j}]"), r);
                }
            }
        }
        for (field, pod_affinity) in [
            ("podAffinity", &affinity.pod_affinity),
            ("podAntiAffinity", &affinity.pod_anti_affinity),
        ] {
            if let Some(pod_affinity) = pod_affinity {
                check_pod_affinity(ctx, m, &join(&base, field), pod_affinity);
            }
        }
    }
}

fn check_node_selector(ctx: &mut Context<'_>, m: &Manifest, path: &str, selector: &NodeSelector) {
    if selector.node_selector_terms.is_empty() {
        let message = "no nodeSelectorTerms: the API server rejects it and it would match no node"
            .to_string();
        ctx.emit(m, Finding::at(m, "DF404", path, message));
    }
    for (i, term) in selector.node_selector_terms.iter().enumerate() {
        let term_path = format!("{path}.nodeSelectorTerms[{i}]");
        if term.match_expressions.is_empty() && term.match_fields.is_empty() {
            let message = "empty node selector term: it matches no node".to_string();
            ctx.emit(m, Finding::at(m, "DF404", &term_path, message));
        }
        for (j, r) in term.match_expressions.iter().enumerate() {
            check_node_requirement(ctx, m, &format!("{term_path}.matchExpressions[{j}]"), r);
        }
        for (j, r) in term.match_fields.iter().enumerate() {
            check_field_requirement(ctx, m, &format!("{term_path}.matchFields[{j}]"), r);
        }
    }
}

/// How many values an operator takes: at least one, none, or exactly one.
#[derive(Clone, Copy)]
enum Arity {
    AtLeastOne,
    None,
    One,
}

const NODE_OPERATORS: &[(&str, Arity)] = &[
    ("In", Arity::AtLeastOne),
    ("NotIn", Arity::AtLeastOne),
    ("Exists", Arity::None),
    ("DoesNotExist", Arity::None),
    ("Gt", Arity::One),
    ("Lt", Arity::One),
];
const LABEL_OPERATORS: &[(&str, Arity)] = &[
    ("In", Arity::AtLeastOne),
    ("NotIn", Arity::AtLeastOne),
    ("Exists", Arity::None),
    ("DoesNotExist", Arity::None),
];
const FIELD_OPERATORS: &[(&str, Arity)] = &[("In", Arity::One), ("NotIn", Arity::One)];

/// Check operator and value count; the operator's arity when the operator is known.
fn check_operator(
    ctx: &mut Context<'_>,
    m: &Manifest,
    path: &str,
    operator: &str,
    values: &[String],
    allowed: &[(&str, Arity)],
) -> Option<Arity> {
    let Some((_, arity)) = allowed.iter().find(|(op, _)| *op == operator) else {
        let names: Vec<&str> = allowed.iter().map(|(op, _)| *op).collect();
        let mut finding = Finding::at(
            m,
            "DF403",
            &join(path, "operator"),
            format!(
                "unknown operator {operator:?}: must be one of {}",
                names.join(", ")
            ),
        );
        if let Some(fixed) = names.iter().find(|n| n.eq_ignore_ascii_case(operator)) {
            finding = finding.hint(format!("operators are case-sensitive: write {fixed}"));
        }
        ctx.emit(m, finding);
        return None;
    };
    let wrong = match arity {
        Arity::AtLeastOne => values.is_empty().then_some("at least one value"),
        Arity::None => (!values.is_empty()).then_some("no values"),
        Arity::One => (values.len() != 1).then_some("exactly one value"),
    };
    if let Some(needs) = wrong {
        let message = format!("operator {operator} takes {needs}, got {}", values.len());
        let values_path = join(path, "values");
        let finding = if m
            .root
            .lookup(&df_manifest::parse_path(&values_path))
            .is_some()
        {
            Finding::at(m, "DF401", &values_path, message)
        } else {
            Finding::at(m, "DF401", &join(path, "operator"), message)
        };
        ctx.emit(m, finding);
    }
    Some(*arity)
}

fn check_node_requirement(
    ctx: &mut Context<'_>,
    m: &Manifest,
    path: &str,
    r: &NodeSelectorRequirement,
) {
    let arity = check_operator(ctx, m, path, &r.operator, &r.values, NODE_OPERATORS);
    if matches!(arity, Some(Arity::One))
        && let [value] = &r.values[..]
        && value.trim().parse::<i64>().is_err()
    {
        let message = format!("{} value {value:?} is not an integer", r.operator);
        ctx.emit(
            m,
            Finding::at(m, "DF402", &format!("{path}.values[0]"), message),
        );
    }
}

fn check_field_requirement(
    ctx: &mut Context<'_>,
    m: &Manifest,
    path: &str,
    r: &NodeSelectorRequirement,
) {
    if r.key != "metadata.name" {
        let message = format!(
            "matchFields key {:?} is not supported: only metadata.name is",
            r.key
        );
        ctx.emit(m, Finding::at(m, "DF406", &join(path, "key"), message));
    }
    check_operator(ctx, m, path, &r.operator, &r.values, FIELD_OPERATORS);
}

fn check_label_selector(ctx: &mut Context<'_>, m: &Manifest, path: &str, selector: &LabelSelector) {
    for (i, r) in selector.match_expressions.iter().enumerate() {
        let path = format!("{path}.matchExpressions[{i}]");
        check_operator(ctx, m, &path, &r.operator, &r.values, LABEL_OPERATORS);
    }
}

fn check_weight(ctx: &mut Context<'_>, m: &Manifest, path: &str, weight: i32) {
    if !(1..=100).contains(&weight) {
        let message = format!("weight {weight} is outside 1..100");
        ctx.emit(m, Finding::at(m, "DF405", &join(path, "weight"), message));
    }
}

fn check_pod_affinity(ctx: &mut Context<'_>, m: &Manifest, path: &str, affinity: &PodAffinity) {
    for (i, term) in affinity.required.iter().enumerate() {
        let path = format!("{path}.requiredDuringSchedulingIgnoredDuringExecution[{i}]");
        check_pod_affinity_term(ctx, m, &path, term, "required");
    }
    for (i, weighted) in affinity.preferred.iter().enumerate() {
        let path = format!("{path}.preferredDuringSchedulingIgnoredDuringExecution[{i}]");
        check_weight(ctx, m, &path, weighted.weight);
        let term_path = join(&path, "podAffinityTerm");
        check_pod_affinity_term(ctx, m, &term_path, &weighted.pod_affinity_term, "preferred");
    }
}

fn check_pod_affinity_term(
    ctx: &mut Context<'_>,
    m: &Manifest,
    path: &str,
    term: &PodAffinityTerm,
    kind: &str,
) {
    if term.topology_key.trim().is_empty() {
        let message = format!("{kind} pod affinity term without topologyKey");
        let finding = Finding::at(m, "DF408", &join(path, "topologyKey"), message)
            .hint("set topologyKey, e.g. kubernetes.io/hostname or topology.kubernetes.io/zone");
        ctx.emit(m, finding);
    }
    if let Some(selector) = &term.label_selector {
        check_label_selector(ctx, m, &join(path, "labelSelector"), selector);
    }
    if let Some(selector) = &term.namespace_selector {
        check_label_selector(ctx, m, &join(path, "namespaceSelector"), selector);
    }
}

/// The expressions of `term` on keys the nodeSelector fixes, evaluated by the engine against
/// those fixed values: `Some(key)` of the first failing one when the term can never hold
/// together with the nodeSelector. Terms with invalid expressions are left to DF401..DF403.
fn contradicting_key<'t>(term: &'t NodeSelectorTerm, node_selector: &Labels) -> Option<&'t str> {
    let fixed: Vec<&NodeSelectorRequirement> = term
        .match_expressions
        .iter()
        .filter(|r| node_selector.contains_key(&r.key))
        .collect();
    let failing = fixed.iter().find(|r| {
        let single = NodeSelectorTerm {
            match_expressions: vec![(**r).clone()],
            match_fields: Vec::new(),
        };
        selector::node_selector_term_matches(&single, "", node_selector) == Ok(false)
    })?;
    Some(&failing.key)
}

/// Whether the nodeSelector contradicts every required term (reported as DF407).
fn check_contradiction(
    ctx: &mut Context<'_>,
    m: &Manifest,
    scheduling: &Scheduling<'_>,
    required: &NodeSelector,
) -> bool {
    if scheduling.node_selector.is_empty() || required.node_selector_terms.is_empty() {
        return false;
    }
    let keys: Vec<Option<&str>> = required
        .node_selector_terms
        .iter()
        .map(|term| contradicting_key(term, scheduling.node_selector))
        .collect();
    if keys.iter().any(Option::is_none) {
        return false;
    }
    let Some(Some(key)) = keys.first() else {
        return false;
    };
    let selector_path = join(&scheduling.path, "nodeSelector");
    let value = &scheduling.node_selector[*key];
    let pos = literal_key(node_at(m, &selector_path), key)
        .map_or_else(|| m.pos_of(&selector_path), |(pos, _)| pos);
    let terms = if keys.len() == 1 {
        "the required node affinity term"
    } else {
        "every required node affinity term"
    };
    let finding = Finding {
        code: "DF407",
        pos,
        path: format!("{selector_path}[{key}]"),
        message: format!("nodeSelector {key}={value} contradicts {terms}: no node can match both"),
        hint: None,
    };
    ctx.emit(m, finding);
    true
}

/// With a state: does any node match the nodeSelector and the required node affinity?
fn check_satisfiable(
    ctx: &mut Context<'_>,
    m: &Manifest,
    state: &ClusterState,
    path: &str,
    node_selector: &Labels,
    required: Option<&NodeSelector>,
) {
    if state.nodes.is_empty() {
        return;
    }
    let mut errors = false;
    let matches = state.nodes.iter().any(|node| {
        let labels = &node.metadata.labels;
        if !selector::node_selector_map_matches(node_selector, labels) {
            return false;
        }
        let Some(required) = required else {
            return true;
        };
        let (matched, problems) =
            selector::node_selector_matches(required, &node.metadata.name, labels);
        errors |= !problems.is_empty();
        matched
    });
    if matches || errors {
        return;
    }
    let what = match (node_selector.is_empty(), required.is_some()) {
        (false, true) => "the nodeSelector and required node affinity",
        (false, false) => "the nodeSelector",
        _ => "the required node affinity",
    };
    let message = format!(
        "no node of the {} in the state matches {what}",
        state.nodes.len()
    );
    let finding = Finding::at(m, "DF409", path, message)
        .hint("`kubectl dataflow explain-placement` shows why each node is rejected");
    ctx.emit(m, finding);
}
