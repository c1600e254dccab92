//! Rules for anything that schedules pods (DF4xx): pods, workload templates, Volcano tasks,
//! Fluid operations and Godel PodGroup node selectors.

use super::{Context, Finding, join};
use crate::manifest::Manifest;
use crate::model::{
    Affinity, Labels, LabelSelector, NodeSelector, NodeSelectorRequirement, Object, PodAffinity,
    PodAffinityTerm, PodSpec,
};

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
            affinity: spec.affinity.as_ref(),
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
            .map(|(i, t)| Scheduling::of(format!("spec.tasks[{i}].template.spec"), &t.template.spec))
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
            .spec
            .affinity
            .as_ref()
            .and_then(|a| a.pod_group_affinity.as_ref())
            .and_then(|a| a.node_selector.as_ref())
    {
        check_node_selector(ctx, m, "spec.affinity.podGroupAffinity.nodeSelector", selector);
    }
    for scheduling in scheduling_of(m) {
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
                let path = format!("{node_base}.preferredDuringSchedulingIgnoredDuringExecution[{i}]");
                check_weight(ctx, m, &path, term.weight);
                let preference = join(&path, "preference");
                for (j, r) in term.preference.match_expressions.iter().enumerate() {
                    check_node_requirement(ctx, m, &format!("{preference}.matchExpressions[{j}]"), r);
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
        let message = "no nodeSelectorTerms: the API server rejects it and it would match no node".to_string();
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
            format!("unknown operator {operator:?}: must be one of {}", names.join(", ")),
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
        let finding = if m.root.lookup(&crate::manifest::parse_path(&values_path)).is_some() {
            Finding::at(m, "DF401", &values_path, message)
        } else {
            Finding::at(m, "DF401", &join(path, "operator"), message)
        };
        ctx.emit(m, finding);
    }
    Some(*arity)
}

fn check_node_requirement(ctx: &mut Context<'_>, m: &Manifest, path: &str, r: &NodeSelectorRequirement) {
    let arity = check_operator(ctx, m, path, &r.operator, &r.values, NODE_OPERATORS);
    if matches!(arity, Some(Arity::One))
        && let [value] = &r.values[..]
        && value.trim().parse::<i64>().is_err()
    {
        let message = format!("{} value {value:?} is not an integer", r.operator);
        ctx.emit(m, Finding::at(m, "DF402", &format!("{path}.values[0]"), message));
    }
}

fn check_field_requirement(ctx: &mut Context<'_>, m: &Manifest, path: &str, r: &NodeSelectorRequirement) {
    if r.key != "metadata.name" {
        let message = format!("matchFields key {:?} is not supported: only metadata.name is", r.key);
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
