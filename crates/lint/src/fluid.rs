//! Fluid DataFlow rules (DF1xx): the API as shipped, the runAfter graph and what an
//! operation can inherit from the one it depends on.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};

use super::{Context, Finding, literal_key, node_at};
use crate::field_issue::Issue;
use crate::schema::{OP_SPEC, check_shape};
use df_manifest::{Manifest, Node, Value};
use df_model::fluid::{
    AFFINITY_LABELS_ANNOTATION, DOCS_AFFINITY_LABELS_ANNOTATION, HOSTNAME_LABEL,
    OLD_AFFINITY_LABELS_ANNOTATION, ObjectRef,
};
use df_model::{FluidOp, Object, OpKind};
use df_plan::graph::RunAfterForest;
use df_state::ClusterState;

type Key<'a> = (OpKind, &'a str, &'a str);

/// Every known operation, from the manifests (which win) and the state, with the runAfter
/// links resolved once into a [`RunAfterForest`] so chain questions cost constant time.
pub(crate) struct Index<'a> {
    ops: Vec<&'a FluidOp>,
    position: HashMap<Key<'a>, usize>,
    forest: RunAfterForest,
    has_state: bool,
}

impl<'a> Index<'a> {
    pub fn new(manifests: &'a [Manifest], state: Option<&'a ClusterState>) -> Index<'a> {
        let mut ops = Vec::new();
        let mut position = HashMap::new();
        let state_ops = state.map_or(&[][..], |s| &s.fluid_ops[..]);
        let manifest_ops = manifests.iter().filter_map(|m| match &m.object {
            Object::FluidOp(op) => Some(&**op),
            _ => None,
        });
        for op in state_ops.iter().chain(manifest_ops) {
            match position.entry(key_of(op)) {
                Entry::Occupied(at) => ops[*at.get()] = op,
                Entry::Vacant(at) => {
                    at.insert(ops.len());
                    ops.push(op);
                }
            }
        }
        let mut index = Index {
            ops,
            position,
            forest: RunAfterForest::default(),
            has_state: state.is_some(),
        };
        let upstream: Vec<Option<usize>> = index.ops.iter().map(|op| index.upstream(op)).collect();
        index.forest = RunAfterForest::new(&upstream);
        index
    }

    fn find(&self, key: &Key<'_>) -> Option<usize> {
        self.position.get(key).copied()
    }

    /// The position of the operation `op` runs after, if it names a known kind and exists.
    fn upstream(&self, op: &FluidOp) -> Option<usize> {
        let run_after = op.spec.run_after.as_ref()?;
        let kind = OpKind::parse(&run_after.kind)?;
        self.find(&(
            kind,
            namespace_or(&run_after.namespace, op),
            &run_after.name,
        ))
    }

    /// The runAfter chain above `op`, nearest first, stopping at a missing operation or
    /// when it comes back to an operation already seen. Only for messages: questions about
    /// the chain go to the forest.
    fn chain(&self, op: &'a FluidOp) -> Vec<&'a FluidOp> {
        let mut seen = HashSet::from([key_of(op)]);
        let mut chain = Vec::new();
        let mut current = op;
        while let Some(next) = self.upstream(current).map(|i| self.ops[i]) {
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

/// The affinity labels annotation under a name Fluid does not read: the design's old name,
/// the spelling of Fluid's English docs, or a near-miss. Fluid reads it from the operation and
/// from `spec.podMetadata.annotations`, so both are checked.
fn check_annotations(ctx: &mut Context<'_>, m: &Manifest, op: &FluidOp) {
    let pod = op
        .spec
        .pod_metadata
        .as_ref()
        .map(|pod| ("spec.podMetadata.annotations", &pod.annotations));
    let maps = std::iter::once(("metadata.annotations", &op.metadata.annotations)).chain(pod);
    for (base, annotations) in maps {
        for key in annotations.keys() {
            let Some(why) = misspelled_affinity_labels(key) else {
                continue;
            };
            let Some((pos, _)) = literal_key(node_at(m, base), key) else {
                continue;
            };
            let finding = Finding {
                code: "DF111",
                pos,
                path: format!("{base}[{key}]"),
                message: format!(
                    "annotation {key:?} {why}; Fluid reads only {AFFINITY_LABELS_ANNOTATION:?}, so the keys it lists are not recorded"
                ),
                hint: Some(format!(
                    "rename the annotation to {AFFINITY_LABELS_ANNOTATION}"
                )),
            };
            ctx.emit(m, finding);
        }
    }
}

/// Why `key` looks like the affinity labels annotation without being it, if it does: the
/// known wrong spellings, any key naming both "affinity" and "label", or one within a few
/// edits of the right name.
fn misspelled_affinity_labels(key: &str) -> Option<&'static str> {
    if key == AFFINITY_LABELS_ANNOTATION {
        return None;
    }
    if key == OLD_AFFINITY_LABELS_ANNOTATION {
        return Some("is the design's name");
    }
    if key == DOCS_AFFINITY_LABELS_ANNOTATION {
        return Some("is how Fluid's docs spell it, but not what its code reads");
    }
    let lower = key.to_ascii_lowercase();
    let near = strsim::osa_distance(&lower, AFFINITY_LABELS_ANNOTATION) <= 4
        || (lower.contains("affinity") && lower.contains("label"));
    near.then_some("looks like a misspelling")
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
    if let Some(found) = index.find(&(kind, namespace, name)) {
        return Some(index.ops[found]);
    }
    let where_ = if index.has_state {
        "among the manifests or in the cluster state"
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
        finding = finding.hint("lint the whole DataFlow together, or against a cluster state that holds the operations already in the cluster");
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
    let Some(cycle) = index
        .find(&key_of(op))
        .and_then(|i| index.forest.cycle_from(i))
    else {
        return;
    };
    let names: Vec<String> = cycle
        .iter()
        .chain(cycle.first())
        .map(|&i| display(index.ops[i]))
        .collect();
    let message = format!("runAfter forms a cycle: {}", names.join(" -> "));
    ctx.emit(m, Finding::at(m, "DF107", "spec.runAfter.name", message));
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
    let upstream = index.find(&key_of(op)).zip(index.find(&key_of(source)));
    if !upstream.is_some_and(|(op, source)| index.forest.runs_after(op, source)) {
        let chain = index.chain(op);
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
        let misspelled = source
            .metadata
            .annotations
            .iter()
            .chain(source.spec.pod_metadata.iter().flat_map(|p| &p.annotations))
            .find(|(name, value)| {
                misspelled_affinity_labels(name).is_some()
                    && value.split(',').any(|k| k.trim() == key)
            });
        let hint = match misspelled {
            Some((name, _)) => format!(
                "{} lists it under the annotation {name}, which Fluid does not read; rename it to {AFFINITY_LABELS_ANNOTATION}",
                display(source)
            ),
            None => format!(
                "add it to the annotation {AFFINITY_LABELS_ANNOTATION} of {}",
                display(source)
            ),
        };
        ctx.emit(m, Finding::at(m, "DF110", &path, message).hint(hint));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use crate::{LintOptions, lint};
    use df_manifest::{ManifestSet, Source, parse_text};

    fn lint_messages(text: String) -> Vec<(String, &'static str, String)> {
        let name: Arc<str> = Arc::from("flow.yaml");
        let (manifests, problems) = parse_text(&name, &text);
        assert!(problems.is_empty(), "{problems:?}");
        let set = ManifestSet {
            sources: vec![Source {
                name,
                path: None,
                text: Arc::from(text.as_str()),
            }],
            manifests,
            problems: Vec::new(),
            skipped: Vec::new(),
        };
        let report = lint(&set, None, &LintOptions::default()).unwrap();
        report
            .diagnostics
            .into_iter()
            .filter(|d| d.code == "DF107" || d.code == "DF108")
            .map(|d| {
                (
                    format!("{}:{}", d.pos.line, d.pos.column),
                    d.code,
                    d.message,
                )
            })
            .collect()
    }

    /// `s0 <- s1 <- ... <- s{n-1}`, each step inheriting from `s0` through dependOn, and the
    /// first step running after `first_after` when given.
    fn chain(n: usize, first_after: Option<&str>) -> String {
        let mut text = String::new();
        for i in 0..n {
            text.push_str(&format!(
                "apiVersion: data.fluid.io/v1alpha1\nkind: DataLoad\nmetadata: {{name: s{i}, namespace: ns}}\nspec:\n  dataset: {{name: d}}\n"
            ));
            let after = match i {
                0 => first_after.map(str::to_string),
                _ => Some(format!("s{}", i - 1)),
            };
            if let Some(after) = after {
                text.push_str(&format!(
                    "  runAfter:\n    kind: DataLoad\n    name: {after}\n    affinityStrategy:\n      policy: Require\n      dependOn: {{kind: DataLoad, name: s0}}\n"
                ));
            }
            text.push_str("---\n");
        }
        text
    }

    #[test]
    fn cycle_and_depend_on_checks_follow_the_forest() {
        /// `line:column`, code, message.
        type Want = &'static [(&'static str, &'static str, &'static str)];
        let cases: &[(&str, String, Want)] = &[
            (
                "a chain whose steps all inherit from its head",
                chain(4, None),
                &[],
            ),
            (
                "a closed chain: every member is on the cycle and dependOn s0 is upstream",
                chain(3, Some("s2")),
                &[
                    (
                        "8:11",
                        "DF107",
                        "runAfter forms a cycle: DataLoad/s0 -> DataLoad/s2 -> DataLoad/s1 -> DataLoad/s0",
                    ),
                    (
                        "20:11",
                        "DF107",
                        "runAfter forms a cycle: DataLoad/s1 -> DataLoad/s0 -> DataLoad/s2 -> DataLoad/s1",
                    ),
                    (
                        "32:11",
                        "DF107",
                        "runAfter forms a cycle: DataLoad/s2 -> DataLoad/s1 -> DataLoad/s0 -> DataLoad/s2",
                    ),
                ],
            ),
            (
                "dependOn on a sibling branch is not upstream",
                chain(2, None)
                    + &chain(2, None)
                        .replace("s0", "t0")
                        .replace("s1", "t1")
                        .replace(
                            "dependOn: {kind: DataLoad, name: t0}",
                            "dependOn: {kind: DataLoad, name: s1}",
                        ),
                &[(
                    "35:40",
                    "DF108",
                    "dependOn DataLoad/s1 is not upstream of DataLoad/t1 (runAfter chain: DataLoad/t0)",
                )],
            ),
        ];
        for (name, text, want) in cases {
            let got = lint_messages(text.clone());
            let want: Vec<(String, &str, String)> = want
                .iter()
                .map(|(at, code, message)| (at.to_string(), *code, message.to_string()))
                .collect();
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn affinity_label_annotation_misspellings() {
        let cases: &[(&str, bool)] = &[
            ("affinity.dataflow.fluid.io/labels", false),
            ("fluid.io/affinity.labels", true),
            ("data-operation.fluid.io/affinity.labels", true),
            ("affinity.dataflow.fluid.io/label", true),
            ("affinity.dataflow.fluid.io.labels", true),
            ("Affinity.DataFlow.fluid.io/Labels", true),
            ("dataflow.fluid.io/affinity-labels", true),
            ("affinity.dataflow.fluid.io/inject", false),
            ("fluid.io/dataset.imagenet.sched", false),
            ("example.com/rack", false),
        ];
        for &(key, want) in cases {
            assert_eq!(
                super::misspelled_affinity_labels(key).is_some(),
                want,
                "{key}"
            );
        }
    }

    #[test]
    fn a_ten_thousand_step_chain_lints_in_linear_work() {
        const N: usize = 10_000;
        let text = chain(N, None);
        // Every step asks whether s0 is upstream: one forest, built once, answers all of them
        // (its linear work is tested in `df_plan::graph`). Walking the chain per step instead
        // is N * N / 2 = 50,000,000 visits.
        assert_eq!(lint_messages(text), []);
    }
}
