//! Fluid DataFlow rules (DF1xx): the API as shipped, the runAfter graph and what an
//! operation can inherit from the one it depends on.

use std::collections::{HashMap, HashSet};

use super::schema::{Issue, OP_SPEC, check_shape};
use super::{Context, Finding, literal_key, node_at};
use crate::cluster::ClusterState;
use crate::manifest::{Manifest, Node, Value};
use crate::model::fluid::{
    AFFINITY_LABELS_ANNOTATION, HOSTNAME_LABEL, OLD_AFFINITY_LABELS_ANNOTATION, ObjectRef,
};
use crate::model::{FluidOp, Object, OpKind};

type Key<'a> = (OpKind, &'a str, &'a str);

/// Every known operation, from the manifests (which win) and the state.
pub(crate) struct Index<'a> {
    ops: HashMap<Key<'a>, &'a FluidOp>,
    has_state: bool,
}

impl<'a> Index<'a> {
    pub fn new(manifests: &'a [Manifest], state: Option<&'a ClusterState>) -> Index<'a> {
        let mut ops = HashMap::new();
        let state_ops = state.map_or(&[][..], |s| &s.fluid_ops[..]);
        let manifest_ops = manifests.iter().filter_map(|m| match &m.object {
            Object::FluidOp(op) => Some(op),
            _ => None,
        });
        for op in state_ops.iter().chain(manifest_ops) {
            ops.insert(key_of(op), op);
        }
        Index {
            ops,
            has_state: state.is_some(),
        }
    }

    /// The operation `op` runs after, if it names a known kind and exists.
    fn upstream(&self, op: &'a FluidOp) -> Option<&'a FluidOp> {
        let run_after = op.spec.run_after.as_ref()?;
        let kind = OpKind::parse(&run_after.kind)?;
        self.ops
            .get(&(
                kind,
                namespace_or(&run_after.namespace, op),
                &run_after.name,
            ))
            .copied()
    }

    /// The runAfter chain above `op`, nearest first, stopping at a missing operation or
    /// when it comes back to an operation already seen (a cycle).
    fn chain(&self, op: &'a FluidOp) -> Vec<&'a FluidOp> {
        let mut seen = HashSet::from([key_of(op)]);
        let mut chain = Vec::new();
        let mut current = op;
        while let Some(next) = self.upstream(current) {
            chain.push(next);
            if !seen.insert(key_of(next)) {
                break;
            }
            current = next;
        }
        chain
    }
}

fn key_of(op: &FluidOp) -> Key<'_> {
    (op.kind, &op.metadata.namespace, &op.metadata.name)
}

fn namespace_or<'a>(namespace: &'a str, op: &'a FluidOp) -> &'a str {
    if namespace.is_empty() {
        &op.metadata.namespace
    } else {
        namespace
    }
}

fn display(op: &FluidOp) -> String {
    format!("{}/{}", op.kind, op.metadata.name)
}

pub(crate) fn check<'a>(ctx: &mut Context<'_>, index: &Index<'a>, m: &'a Manifest) {
    let Object::FluidOp(op) = &m.object else {
        return;
    };
    check_fields(ctx, m);
    check_annotations(ctx, m, op);
    check_datasets(ctx, m, op);
    if op.spec.run_after.is_some() {
        check_run_after(ctx, index, m, op);
    }
}

fn check_fields(ctx: &mut Context<'_>, m: &Manifest) {
    let Some(spec) = m.root.get("spec") else {
        return;
    };
    let mut issues = Vec::new();
    check_shape(spec, &OP_SPEC, "spec", &mut issues);
    // Values of the wrong shape are DF005's (the strict check of every object).
    let unknown = issues.into_iter().filter_map(|issue| match issue {
        Issue::Unknown(field) => Some(field),
        Issue::Invalid(_) => None,
    });
    for field in unknown {
        let message = super::strict::unknown_message(&field);
        let mut finding = Finding::at_key(m, "DF101", &field.path, message);
        let rewrite = match (field.suggestion, &field.value.value) {
            (Some(to @ ("requires" | "prefers")), Value::Seq(items)) => {
                let names: Vec<String> = items
                    .iter()
                    .filter_map(|i| i.as_str().or_else(|| i.get("name").and_then(Node::as_str)))
                    .map(|name| match to {
                        "requires" => format!("{{name: {name}}}"),
                        _ => format!("{{name: {name}, weight: 100}}"),
                    })
                    .collect();
                (!names.is_empty()).then(|| format!("write `{to}: [{}]`", names.join(", ")))
            }
            _ => None,
        };
        let hint = [field.note.map(str::to_string), rewrite]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join("; ");
        if !hint.is_empty() {
            finding = finding.hint(hint);
        }
        ctx.emit(m, finding);
    }
}

fn check_annotations(ctx: &mut Context<'_>, m: &Manifest, op: &FluidOp) {
    if !op
        .metadata
        .annotations
        .contains_key(OLD_AFFINITY_LABELS_ANNOTATION)
    {
        return;
    }
    let annotations = node_at(m, "metadata.annotations");
    let Some((pos, _)) = literal_key(annotations, OLD_AFFINITY_LABELS_ANNOTATION) else {
        return;
    };
    let path = format!("metadata.annotations[{OLD_AFFINITY_LABELS_ANNOTATION}]");
    let finding = Finding {
        code: "DF111",
        pos,
        path,
        message: format!(
            "annotation {OLD_AFFINITY_LABELS_ANNOTATION:?} is the design's name; Fluid reads {AFFINITY_LABELS_ANNOTATION:?}"
        ),
        hint: Some(format!(
            "rename the annotation to {AFFINITY_LABELS_ANNOTATION}"
        )),
    };
    ctx.emit(m, finding);
}

fn check_datasets(ctx: &mut Context<'_>, m: &Manifest, op: &FluidOp) {
    for path in ["spec.dataset", "spec.from.dataset", "spec.to.dataset"] {
        let Some(namespace) = node_at(m, &format!("{path}.namespace")).and_then(Node::as_str)
        else {
            continue;
        };
        if !namespace.is_empty() && namespace != op.metadata.namespace {
            let path = format!("{path}.namespace");
            let message = format!(
                "dataset namespace {namespace:?} differs from the operation's namespace {:?}",
                op.metadata.namespace
            );
            ctx.emit(m, Finding::at(m, "DF112", &path, message));
        }
    }
}

const REQUIRE: &str = "Require";
const PREFER: &str = "Prefer";

fn check_run_after<'a>(ctx: &mut Context<'_>, index: &Index<'a>, m: &Manifest, op: &'a FluidOp) {
    let Some(run_after) = &op.spec.run_after else {
        return;
    };
    let strategy = &run_after.affinity_strategy;
    let upstream = check_reference(
        ctx,
        index,
        m,
        op,
        "spec.runAfter",
        &run_after.kind,
        &run_after.namespace,
        &run_after.name,
    );
    if let Some(upstream) = upstream {
        check_cycle(ctx, index, m, op, upstream);
    }
    let base = "spec.runAfter.affinityStrategy";
    let policy = strategy.policy.as_str();
    if !matches!(policy, "" | REQUIRE | PREFER) {
        let mut finding = Finding::at(
            m,
            "DF102",
            &format!("{base}.policy"),
            format!("invalid policy {policy:?}: must be \"\", \"Require\" or \"Prefer\""),
        );
        if let Some(fixed) = [REQUIRE, PREFER]
            .into_iter()
            .find(|p| p.eq_ignore_ascii_case(policy))
        {
            finding = finding.hint(format!("policies are case-sensitive: write {fixed:?}"));
        }
        ctx.emit(m, finding);
    }
    for (list, len, reads) in [
        ("requires", strategy.requires.len(), REQUIRE),
        ("prefers", strategy.prefers.len(), PREFER),
    ] {
        if len > 0 && policy != reads && matches!(policy, "" | REQUIRE | PREFER) {
            let shown = if policy.is_empty() { "empty" } else { policy };
            let message =
                format!("`{list}` is ignored: policy is {shown}, and only policy {reads} reads it");
            ctx.emit(
                m,
                Finding::at_key(m, "DF103", &format!("{base}.{list}"), message),
            );
        }
    }
    if policy == PREFER {
        for (i, prefer) in strategy.prefers.iter().enumerate() {
            if !(1..=100).contains(&prefer.weight) {
                let path = format!("{base}.prefers[{i}].weight");
                let message = format!("prefer weight {} is outside 1..100", prefer.weight);
                let finding = Finding::at(m, "DF104", &path, message);
                let finding = if prefer.weight == 0 && node_at(m, &path).is_none() {
                    finding.hint("the weight is missing; Kubernetes needs 1..100")
                } else {
                    finding
                };
                ctx.emit(m, finding);
            }
        }
    }
    let source = match &strategy.depend_on {
        Some(depend_on) => check_depend_on(ctx, index, m, op, depend_on),
        None => upstream,
    };
    let inherits = policy == REQUIRE || policy == PREFER;
    if policy.is_empty() && strategy.requires.is_empty() && strategy.prefers.is_empty() {
        let message = format!(
            "runs after {} without an affinity strategy: it inherits no locality",
            run_after.name
        );
        ctx.emit(m, Finding::at_key(m, "DF113", "spec.runAfter", message));
    }
    if !inherits {
        return;
    }
    let source_kind_path = match &strategy.depend_on {
        Some(_) => format!("{base}.dependOn.kind"),
        None => "spec.runAfter.kind".to_string(),
    };
    let source_kind = match &strategy.depend_on {
        Some(d) => OpKind::parse(&d.kind),
        None => OpKind::parse(&run_after.kind),
    };
    let records = match (source, source_kind) {
        (Some(s), _) => s.records_node_affinity(),
        (None, Some(kind)) => matches!(kind, OpKind::DataLoad | OpKind::DataMigrate),
        (None, None) => true,
    };
    if !records {
        let kind = source
            .map(|s| s.kind)
            .or(source_kind)
            .map_or("", OpKind::as_str);
        let why = if kind == OpKind::DataMigrate.as_str() {
            "a parallel DataMigrate (parallelism > 1) records no node"
        } else {
            "DataProcess and DataBackup record no node"
        };
        let message =
            format!("policy {policy} inherits from a {kind}, but {why}: nothing is inherited");
        let finding = Finding::at(m, "DF109", &source_kind_path, message)
            .hint("inherit from an earlier DataLoad or single-pod DataMigrate with affinityStrategy.dependOn");
        ctx.emit(m, finding);
        return;
    }
    let Some(source) = source else {
        return;
    };
    check_recorded_keys(ctx, m, op, source);
}

/// Check that a reference names a supported kind and an existing operation; the operation
/// when it does.
#[allow(clippy::too_many_arguments)]
fn check_reference<'a>(
    ctx: &mut Context<'_>,
    index: &Index<'a>,
    m: &Manifest,
    op: &FluidOp,
    path: &str,
    kind: &str,
    namespace: &str,
    name: &str,
) -> Option<&'a FluidOp> {
    let Some(kind) = OpKind::parse(kind) else {
        let mut finding = Finding::at(
            m,
            "DF106",
            &format!("{path}.kind"),
            format!(
                "unsupported kind {kind:?}: must be DataLoad, DataMigrate, DataProcess or DataBackup"
            ),
        );
        if let Some(k) = OpKind::ALL
            .iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(kind))
        {
            finding = finding.hint(format!("kinds are case-sensitive: write {k}"));
        }
        ctx.emit(m, finding);
        return None;
    };
    let namespace = if namespace.is_empty() {
        op.metadata.namespace.as_str()
    } else {
        namespace
    };
    if let Some(found) = index.ops.get(&(kind, namespace, name)) {
        return Some(found);
    }
    let where_ = if index.has_state {
        "among the manifests or in the --state"
    } else {
        "among the manifests"
    };
    let mut finding = Finding::at(
        m,
        "DF105",
        &format!("{path}.name"),
        format!("{kind} {namespace}/{name} not found {where_}"),
    );
    if !index.has_state {
        finding = finding.hint("lint the whole DataFlow together, or pass --state with the operations already in the cluster");
    }
    ctx.emit(m, finding);
    None
}

fn check_cycle(
    ctx: &mut Context<'_>,
    index: &Index<'_>,
    m: &Manifest,
    op: &FluidOp,
    upstream: &FluidOp,
) {
    if key_of(upstream) == key_of(op) {
        let message = format!("{} runs after itself", display(op));
        ctx.emit(m, Finding::at(m, "DF107", "spec.runAfter.name", message));
        return;
    }
    let chain = index.chain(op);
    if chain.last().is_some_and(|last| key_of(last) == key_of(op)) {
        let names: Vec<String> = std::iter::once(op)
            .chain(chain.iter().copied())
            .map(display)
            .collect();
        let message = format!("runAfter forms a cycle: {}", names.join(" -> "));
        ctx.emit(m, Finding::at(m, "DF107", "spec.runAfter.name", message));
    }
}

/// dependOn must exist and be on the runAfter chain; returns it when it exists.
fn check_depend_on<'a>(
    ctx: &mut Context<'_>,
    index: &Index<'a>,
    m: &Manifest,
    op: &'a FluidOp,
    depend_on: &ObjectRef,
) -> Option<&'a FluidOp> {
    let path = "spec.runAfter.affinityStrategy.dependOn";
    let source = check_reference(
        ctx,
        index,
        m,
        op,
        path,
        &depend_on.kind,
        &depend_on.namespace,
        &depend_on.name,
    )?;
    let chain = index.chain(op);
    if !chain.iter().any(|o| key_of(o) == key_of(source)) {
        let upstream: Vec<String> = chain.iter().map(|o| display(o)).collect();
        let message = format!(
            "dependOn {} is not upstream of {} (runAfter chain: {})",
            display(source),
            display(op),
            if upstream.is_empty() {
                "none".to_string()
            } else {
                upstream.join(" -> ")
            }
        );
        ctx.emit(m, Finding::at(m, "DF108", &format!("{path}.name"), message));
    }
    Some(source)
}

fn check_recorded_keys(ctx: &mut Context<'_>, m: &Manifest, op: &FluidOp, source: &FluidOp) {
    let Some(run_after) = &op.spec.run_after else {
        return;
    };
    let strategy = &run_after.affinity_strategy;
    let recorded = source.recorded_label_keys();
    let base = "spec.runAfter.affinityStrategy";
    let keys: Vec<(String, &str)> = if strategy.policy == REQUIRE {
        strategy
            .requires
            .iter()
            .enumerate()
            .map(|(i, r)| (format!("{base}.requires[{i}].name"), r.name.as_str()))
            .collect()
    } else {
        strategy
            .prefers
            .iter()
            .enumerate()
            .map(|(i, p)| (format!("{base}.prefers[{i}].name"), p.name.as_str()))
            .collect()
    };
    for (path, key) in keys {
        if key.is_empty() || key == HOSTNAME_LABEL || recorded.iter().any(|r| r == key) {
            continue;
        }
        let message = format!(
            "label key {key:?} is never recorded by {}: it is skipped and nothing is inherited for it",
            display(source)
        );
        let in_old = source
            .metadata
            .annotations
            .get(OLD_AFFINITY_LABELS_ANNOTATION)
            .is_some_and(|v| v.split(',').any(|k| k.trim() == key));
        let hint = if in_old {
            format!(
                "{} lists it under the old annotation {OLD_AFFINITY_LABELS_ANNOTATION}; rename it to {AFFINITY_LABELS_ANNOTATION}",
                display(source)
            )
        } else {
            format!(
                "add it to the annotation {AFFINITY_LABELS_ANNOTATION} of {}",
                display(source)
            )
        };
        ctx.emit(m, Finding::at(m, "DF110", &path, message).hint(hint));
    }
}
