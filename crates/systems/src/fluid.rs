//! Fluid DataFlow affinity inheritance, as the shipped controllers compute it
//! (fluid-cloudnative/fluid `pkg/dataflow`, `pkg/controllers/v1alpha1/dataflowaffinity`).
//!
//! Where the shipped code differs from the seed design (and from what DESIGN.md 2.2 reads
//! like), we follow the code:
//! - The API is `requires: [{name}]` / `prefers: [{name, weight}]` plus `dependOn`, not the
//!   seed's `require: [string]`. `dependOn`, when set, replaces `runAfter` as the source of the
//!   inherited affinity; its namespace, like runAfter's, defaults to the operation's own.
//! - The source must be `Complete`, else the operation does not start (Fluid returns an error
//!   and retries). A source that records no `status.nodeAffinity` gives nothing.
//! - Inheritance copies the source's recorded expressions (`key In [value]`) whose key is
//!   asked for, in the order of `requires`/`prefers`; a key that was not recorded is skipped
//!   without a word. A `prefers` entry without a weight keeps weight 0 (no default).
//! - Merging (`utils.InjectNodeSelectorRequirements`): inherited required expressions become
//!   the pod's only required term when the operation has no required terms of its own. When
//!   it has some, the upstream loop appends to a *copy* of each term (`for _, term := range`),
//!   so the inherited requirements are silently lost. We reproduce that and warn about it.
//!   Preferred terms are appended after the operation's own.
//! - What is recorded: the DataOpJob controller copies, from the node the succeeded pod ran
//!   on, the labels `kubernetes.io/hostname`, `topology.kubernetes.io/region`,
//!   `topology.kubernetes.io/zone` and the keys of the `affinity.dataflow.fluid.io/labels`
//!   annotation that the node has; the operation then records one required term of
//!   `key In [value]`. Fluid builds it from a Go map, so its order is random; we sort by key.
//!   Only single-pod DataLoad and DataMigrate jobs are recorded: DataProcess does not
//!   generate one, DataBackup runs a bare pod the job controller never sees, and parallel
//!   jobs are skipped. A node with none of those labels leaves the operation unable to
//!   record anything, and Fluid retries forever instead of completing it.

pub mod admission;
pub mod webhook;

use std::collections::BTreeMap;
use std::fmt;

use df_model::fluid::{AffinityStrategy, HOSTNAME_LABEL, Prefer};
use df_model::{
    Affinity, Container, FluidOp, Node, NodeAffinity, NodeSelector, NodeSelectorRequirement,
    NodeSelectorTerm, ObjectMeta, OpKind, Pod, PodSpec, PreferredSchedulingTerm,
};

/// The weight of the default `Prefer` term (hostname).
pub(crate) const DEFAULT_PREFER_WEIGHT: i32 = 100;

/// An operation as `Kind/namespace/name`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OpKey {
    pub kind: OpKind,
    pub namespace: String,
    pub name: String,
}

impl OpKey {
    pub fn of(op: &FluidOp) -> OpKey {
        OpKey {
            kind: op.kind,
            namespace: op.metadata.namespace.clone(),
            name: op.metadata.name.clone(),
        }
    }
}

impl fmt::Display for OpKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}/{}", self.kind, self.namespace, self.name)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Policy {
    /// `""`: inherit nothing.
    Default,
    Require,
    Prefer,
}

impl Policy {
    pub fn parse(text: &str) -> Option<Policy> {
        match text {
            "" => Some(Policy::Default),
            "Require" => Some(Policy::Require),
            "Prefer" => Some(Policy::Prefer),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Policy::Default => "",
            Policy::Require => "Require",
            Policy::Prefer => "Prefer",
        }
    }
}

/// A reference in `spec.runAfter` or `affinityStrategy.dependOn` that cannot be resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RefProblem {
    UnknownKind { field: &'static str, kind: String },
    MissingName { field: &'static str },
    UnknownPolicy { policy: String },
}

impl RefProblem {
    /// The field to point at, as a path under the operation.
    pub fn path(&self) -> String {
        match self {
            RefProblem::UnknownKind { field, .. } => format!("{field}.kind"),
            RefProblem::MissingName { field } => format!("{field}.name"),
            RefProblem::UnknownPolicy { .. } => "spec.runAfter.affinityStrategy.policy".into(),
        }
    }
}

impl fmt::Display for RefProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RefProblem::UnknownKind { field, kind } => write!(
                f,
                "{field}.kind: unknown kind {kind:?}; expected one of DataLoad, DataMigrate, DataProcess, DataBackup"
            ),
            RefProblem::MissingName { field } => write!(f, "{field}.name: required"),
            RefProblem::UnknownPolicy { policy } => write!(
                f,
                "spec.runAfter.affinityStrategy.policy: unknown policy {policy:?}; expected \"\", \"Require\" or \"Prefer\""
            ),
        }
    }
}

/// The references of one operation, resolved to keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refs {
    /// `spec.runAfter`: the operation waits until it is Complete.
    pub after: Option<OpKey>,
    /// Where the affinity comes from: `dependOn` if set, else `runAfter` (when policy is set).
    pub source: Option<OpKey>,
    /// Whether `source` came from `dependOn`.
    pub depend_on: bool,
    pub policy: Policy,
}

impl Refs {
    /// An operation that runs after nothing and inherits nothing.
    pub fn none() -> Refs {
        Refs {
            after: None,
            source: None,
            depend_on: false,
            policy: Policy::Default,
        }
    }
}

/// Resolve `spec.runAfter` and its affinity strategy; every problem is returned.
pub fn refs(op: &FluidOp) -> Result<Refs, Vec<RefProblem>> {
    let Some(run_after) = &op.spec.run_after else {
        return Ok(Refs {
            after: None,
            source: None,
            depend_on: false,
            policy: Policy::Default,
        });
    };
    let mut problems = Vec::new();
    let own_namespace = op.namespace();
    let after = key_of(
        "spec.runAfter",
        &run_after.kind,
        &run_after.name,
        &run_after.namespace,
        own_namespace,
    )
    .map_err(|p| problems.push(p))
    .ok();
    let strategy = &run_after.affinity_strategy;
    let policy = Policy::parse(&strategy.policy)
        .ok_or_else(|| {
            problems.push(RefProblem::UnknownPolicy {
                policy: strategy.policy.clone(),
            })
        })
        .ok();
    let depend_on = match &strategy.depend_on {
        Some(d) => key_of(
            "spec.runAfter.affinityStrategy.dependOn",
            &d.kind,
            &d.name,
            &d.namespace,
            own_namespace,
        )
        .map_err(|p| problems.push(p))
        .ok(),
        None => None,
    };
    if !problems.is_empty() {
        return Err(problems);
    }
    let policy = policy.unwrap_or(Policy::Default);
    let source = match policy {
        // Fluid returns before looking at the source when the policy is "".
        Policy::Default => None,
        _ => depend_on.clone().or_else(|| after.clone()),
    };
    Ok(Refs {
        after,
        source,
        depend_on: depend_on.is_some() && policy != Policy::Default,
        policy,
    })
}

fn key_of(
    field: &'static str,
    kind: &str,
    name: &str,
    namespace: &str,
    own_namespace: &str,
) -> Result<OpKey, RefProblem> {
    let kind = OpKind::parse(kind).ok_or_else(|| RefProblem::UnknownKind {
        field,
        kind: kind.to_string(),
    })?;
    if name.is_empty() {
        return Err(RefProblem::MissingName { field });
    }
    let namespace = if namespace.is_empty() {
        own_namespace
    } else {
        namespace
    };
    Ok(OpKey {
        kind,
        namespace: namespace.to_string(),
        name: name.to_string(),
    })
}

/// What an operation inherits from its source's record.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Inheritance {
    /// `inheritedAffinity` of the plan: one required term, or preferred terms, or nothing.
    pub affinity: Option<NodeAffinity>,
    /// Keys asked for (`requires`/`prefers`, or the hostname default) that the record lacks.
    pub missing_keys: Vec<String>,
}

/// The first recorded term: Fluid only ever records one and only reads the first.
pub fn recorded_term(record: &NodeAffinity) -> Option<&NodeSelectorTerm> {
    record.required.as_ref()?.node_selector_terms.first()
}

/// Compute the inherited node affinity from the source's recorded term.
pub fn inherit(
    policy: Policy,
    strategy: &AffinityStrategy,
    recorded: &NodeSelectorTerm,
) -> Inheritance {
    let matching = |key: &str| -> Vec<NodeSelectorRequirement> {
        recorded
            .match_expressions
            .iter()
            .filter(|e| e.key == key)
            .cloned()
            .collect()
    };
    let mut missing_keys = Vec::new();
    let mut note_missing = |key: &str, found: bool| {
        if !found && !missing_keys.iter().any(|k| k == key) {
            missing_keys.push(key.to_string());
        }
    };
    let affinity =
        match policy {
            Policy::Default => None,
            Policy::Require => {
                let keys: Vec<&str> = if strategy.requires.is_empty() {
                    vec![HOSTNAME_LABEL]
                } else {
                    strategy.requires.iter().map(|r| r.name.as_str()).collect()
                };
                let mut expressions = Vec::new();
                for key in keys {
                    let before = expressions.len();
                    expressions.extend(matching(key));
                    note_missing(key, expressions.len() > before);
                }
                (!expressions.is_empty()).then(|| NodeAffinity {
                    required: Some(NodeSelector {
                        node_selector_terms: vec![NodeSelectorTerm {
                            match_expressions: expressions,
                            match_fields: Vec::new(),
                        }],
                    }),
                    preferred: Vec::new(),
                })
            }
            Policy::Prefer => {
                let default = [Prefer {
                    name: HOSTNAME_LABEL.to_string(),
                    weight: DEFAULT_PREFER_WEIGHT,
                }];
                let prefers: &[Prefer] = if strategy.prefers.is_empty() {
                    &default
                } else {
                    &strategy.prefers
                };
                let mut terms = Vec::new();
                for prefer in prefers {
                    let before = terms.len();
                    terms.extend(matching(&prefer.name).into_iter().map(|e| {
                        PreferredSchedulingTerm {
                            weight: prefer.weight,
                            preference: NodeSelectorTerm {
                                match_expressions: vec![e],
                                match_fields: Vec::new(),
                            },
                        }
                    }));
                    note_missing(&prefer.name, terms.len() > before);
                }
                (!terms.is_empty()).then_some(NodeAffinity {
                    required: None,
                    preferred: terms,
                })
            }
        };
    Inheritance {
        affinity,
        missing_keys,
    }
}

/// The pod's affinity after Fluid merges the inherited terms into the operation's own.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Merged {
    pub affinity: Option<Affinity>,
    /// Inherited required expressions Fluid drops because the operation has required terms.
    pub dropped_required: Vec<NodeSelectorRequirement>,
}

pub fn merge(own: Option<&Affinity>, inherited: Option<&NodeAffinity>) -> Merged {
    let mut affinity = own.cloned();
    let mut dropped_required = Vec::new();
    let Some(inherited) = inherited else {
        return Merged {
            affinity,
            dropped_required,
        };
    };
    let required: Vec<NodeSelectorRequirement> = inherited
        .required
        .iter()
        .flat_map(|r| &r.node_selector_terms)
        .flat_map(|t| t.match_expressions.iter().cloned())
        .collect();
    if !required.is_empty() {
        let node_affinity = affinity
            .get_or_insert_with(Affinity::default)
            .node_affinity
            .get_or_insert_with(NodeAffinity::default);
        let selector = node_affinity
            .required
            .get_or_insert_with(NodeSelector::default);
        if selector.node_selector_terms.is_empty() {
            selector.node_selector_terms = vec![NodeSelectorTerm {
                match_expressions: required,
                match_fields: Vec::new(),
            }];
        } else {
            dropped_required = required;
        }
    }
    if !inherited.preferred.is_empty() {
        affinity
            .get_or_insert_with(Affinity::default)
            .node_affinity
            .get_or_insert_with(NodeAffinity::default)
            .preferred
            .extend(inherited.preferred.iter().cloned());
    }
    Merged {
        affinity,
        dropped_required,
    }
}

/// The affinity the operation's own pod template carries before inheritance.
pub fn own_affinity(op: &FluidOp) -> Option<&Affinity> {
    match op.kind {
        OpKind::DataLoad | OpKind::DataMigrate => op.spec.affinity.as_ref(),
        OpKind::DataProcess => op
            .spec
            .processor
            .as_ref()
            .and_then(|p| p.job.as_ref())
            .and_then(|j| j.pod_spec.affinity.as_deref()),
        OpKind::DataBackup => None,
    }
}

/// The nodeSelector the operation's own pod template carries (as [`pod_for`] gives the pod).
pub fn own_node_selector(op: &FluidOp) -> Option<&df_model::Labels> {
    match op.kind {
        OpKind::DataLoad | OpKind::DataMigrate => Some(&op.spec.node_selector),
        OpKind::DataProcess => op
            .spec
            .processor
            .as_ref()
            .and_then(|p| p.job.as_ref())
            .map(|j| &j.pod_spec.node_selector),
        OpKind::DataBackup => None,
    }
}

/// Whether Fluid can create a pod for the operation at all (a DataProcess needs a processor).
pub fn has_pod(op: &FluidOp) -> bool {
    op.kind != OpKind::DataProcess
        || op
            .spec
            .processor
            .as_ref()
            .is_some_and(|p| p.job.is_some() || p.script.is_some())
}

/// The name of the pod Fluid creates for operation `name` of `kind`.
pub fn pod_name(kind: OpKind, name: &str) -> String {
    format!("{name}-{}", pod_suffix(kind))
}

fn pod_suffix(kind: OpKind) -> &'static str {
    match kind {
        OpKind::DataLoad => "loader",
        OpKind::DataMigrate => "migrate",
        OpKind::DataProcess => "processor",
        OpKind::DataBackup => "backup",
    }
}

/// The pod the operation would create, with the merged affinity.
pub fn pod_for(op: &FluidOp, affinity: Option<Affinity>) -> Pod {
    let suffix = pod_suffix(op.kind);
    let container = |image: &str, resources| Container {
        name: suffix.into(),
        image: image.into(),
        resources,
        ..Container::default()
    };
    let spec = match op.kind {
        OpKind::DataLoad | OpKind::DataMigrate => PodSpec {
            node_selector: op.spec.node_selector.clone(),
            tolerations: op.spec.tolerations.clone(),
            scheduler_name: op.spec.scheduler_name.clone(),
            containers: vec![container(&op.spec.image, op.spec.resources.clone())],
            ..PodSpec::default()
        },
        OpKind::DataProcess => {
            let processor = op.spec.processor.as_ref();
            match (
                processor.and_then(|p| p.job.as_ref()),
                processor.and_then(|p| p.script.as_ref()),
            ) {
                (Some(job), _) => job.pod_spec.clone(),
                (None, Some(script)) => PodSpec {
                    containers: vec![container(&script.image, script.resources.clone())],
                    ..PodSpec::default()
                },
                (None, None) => PodSpec::default(),
            }
        }
        OpKind::DataBackup => PodSpec {
            containers: vec![container("", Default::default())],
            ..PodSpec::default()
        },
    };
    Pod {
        metadata: ObjectMeta {
            name: pod_name(op.kind, &op.metadata.name),
            namespace: op.metadata.namespace.clone(),
            labels: pod_labels(op).cloned().unwrap_or_default(),
            ..ObjectMeta::default()
        },
        spec: PodSpec {
            affinity: affinity.map(Box::new),
            ..spec
        },
        status: Default::default(),
    }
}

/// The labels of the operation's pod: `spec.podMetadata` (DataLoad, DataMigrate) or
/// `spec.processor.podMetadata` (DataProcess).
pub fn pod_labels(op: &FluidOp) -> Option<&df_model::Labels> {
    let metadata = match op.kind {
        OpKind::DataProcess => op
            .spec
            .processor
            .as_ref()
            .and_then(|p| p.pod_metadata.as_ref()),
        _ => op.spec.pod_metadata.as_ref(),
    };
    metadata.map(|m| &m.labels)
}

/// The datasets the operation's pod mounts through Fluid's fuse: a DataProcess mounts its
/// `spec.dataset`; loaders and migrations talk to the runtime instead.
pub fn mounted_datasets(op: &FluidOp) -> Vec<(String, String)> {
    match (op.kind, &op.spec.dataset) {
        (OpKind::DataProcess, Some(d)) if !d.name.is_empty() => {
            let namespace = if d.namespace.is_empty() {
                op.metadata.namespace.clone()
            } else {
                d.namespace.clone()
            };
            vec![(namespace, d.name.clone())]
        }
        _ => Vec::new(),
    }
}

/// The `status.nodeAffinity` Fluid records once the operation's pod succeeded on `node`;
/// `None` when the kind does not record or the node has none of the recorded labels.
pub fn recorded_node_affinity(op: &FluidOp, node: &Node) -> Option<NodeAffinity> {
    if !op.records_node_affinity() {
        return None;
    }
    let labels: BTreeMap<&str, &str> = op
        .recorded_label_keys()
        .iter()
        .filter_map(|key| {
            node.metadata
                .labels
                .get_key_value(key.as_str())
                .map(|(k, v)| (k.as_str(), v.as_str()))
        })
        .collect();
    if labels.is_empty() {
        return None;
    }
    Some(NodeAffinity {
        required: Some(NodeSelector {
            node_selector_terms: vec![NodeSelectorTerm {
                match_expressions: labels
                    .into_iter()
                    .map(|(key, value)| in_requirement(key, value))
                    .collect(),
                match_fields: Vec::new(),
            }],
        }),
        preferred: Vec::new(),
    })
}

pub(crate) fn in_requirement(key: &str, value: &str) -> NodeSelectorRequirement {
    NodeSelectorRequirement {
        key: key.to_string(),
        operator: "In".to_string(),
        values: vec![value.to_string()],
    }
}

/// `key In [a,b]` as one short phrase, for tables and warnings.
pub fn describe_requirement(r: &NodeSelectorRequirement) -> String {
    if r.values.is_empty() {
        format!("{} {}", r.key, r.operator)
    } else {
        format!("{} {} [{}]", r.key, r.operator, r.values.join(","))
    }
}

/// The inherited terms in one line: `required: a In [x], b In [y]; preferred(100): ...`.
pub fn describe_inherited(affinity: &NodeAffinity) -> String {
    let mut parts = Vec::new();
    for term in affinity
        .required
        .iter()
        .flat_map(|r| &r.node_selector_terms)
    {
        let exprs: Vec<String> = term
            .match_expressions
            .iter()
            .map(describe_requirement)
            .collect();
        parts.push(format!("required: {}", exprs.join(", ")));
    }
    for term in &affinity.preferred {
        let exprs: Vec<String> = term
            .preference
            .match_expressions
            .iter()
            .map(describe_requirement)
            .collect();
        parts.push(format!("preferred({}): {}", term.weight, exprs.join(", ")));
    }
    parts.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use df_model::fluid::{
        AFFINITY_LABELS_ANNOTATION, JobProcessor, ObjectRef, OpSpec, OpStatus, OperationRef,
        Processor, REGION_LABEL, Require, ScriptProcessor, ZONE_LABEL,
    };
    use df_model::{Quantity, ResourceRequirements};

    /// Labels from pairs; shared with the webhook and admission tests.
    pub(super) fn labels(pairs: &[(&str, &str)]) -> df_model::Labels {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    /// One node selector term requiring each `key In [value]`; shared with the webhook and
    /// admission tests.
    pub(super) fn term(pairs: &[(&str, &str)]) -> NodeSelectorTerm {
        NodeSelectorTerm {
            match_expressions: pairs.iter().map(|(k, v)| in_requirement(k, v)).collect(),
            match_fields: Vec::new(),
        }
    }

    fn required(pairs: &[(&str, &str)]) -> NodeAffinity {
        NodeAffinity {
            required: Some(NodeSelector {
                node_selector_terms: vec![term(pairs)],
            }),
            preferred: Vec::new(),
        }
    }

    fn preferred(terms: &[(i32, &str, &str)]) -> NodeAffinity {
        NodeAffinity {
            required: None,
            preferred: terms
                .iter()
                .map(|(w, k, v)| PreferredSchedulingTerm {
                    weight: *w,
                    preference: term(&[(k, v)]),
                })
                .collect(),
        }
    }

    fn strategy(requires: &[&str], prefers: &[(&str, i32)]) -> AffinityStrategy {
        AffinityStrategy {
            requires: requires
                .iter()
                .map(|n| Require {
                    name: n.to_string(),
                })
                .collect(),
            prefers: prefers
                .iter()
                .map(|(n, w)| Prefer {
                    name: n.to_string(),
                    weight: *w,
                })
                .collect(),
            ..AffinityStrategy::default()
        }
    }

    const RECORD: &[(&str, &str)] = &[
        ("kubernetes.io/hostname", "node-a"),
        ("topology.kubernetes.io/region", "r1"),
        ("topology.kubernetes.io/zone", "z1"),
        ("example.com/rack", "rack-7"),
    ];

    #[test]
    fn inheritance_follows_fluid() {
        struct Case {
            name: &'static str,
            policy: Policy,
            strategy: AffinityStrategy,
            want: Option<NodeAffinity>,
            missing: &'static [&'static str],
        }
        let cases = [
            Case {
                name: "default policy inherits nothing",
                policy: Policy::Default,
                strategy: strategy(&["example.com/rack"], &[]),
                want: None,
                missing: &[],
            },
            Case {
                name: "require defaults to hostname",
                policy: Policy::Require,
                strategy: strategy(&[], &[]),
                want: Some(required(&[("kubernetes.io/hostname", "node-a")])),
                missing: &[],
            },
            Case {
                name: "require a customised key",
                policy: Policy::Require,
                strategy: strategy(&["example.com/rack"], &[]),
                want: Some(required(&[("example.com/rack", "rack-7")])),
                missing: &[],
            },
            Case {
                name: "several requires are ANDed into one term, in requires order",
                policy: Policy::Require,
                strategy: strategy(&["topology.kubernetes.io/zone", "example.com/rack"], &[]),
                want: Some(required(&[
                    ("topology.kubernetes.io/zone", "z1"),
                    ("example.com/rack", "rack-7"),
                ])),
                missing: &[],
            },
            Case {
                name: "a key never recorded is skipped",
                policy: Policy::Require,
                strategy: strategy(&["example.com/gpu", "topology.kubernetes.io/zone"], &[]),
                want: Some(required(&[("topology.kubernetes.io/zone", "z1")])),
                missing: &["example.com/gpu"],
            },
            Case {
                name: "only unrecorded keys: nothing inherited",
                policy: Policy::Require,
                strategy: strategy(&["example.com/gpu"], &[]),
                want: None,
                missing: &["example.com/gpu"],
            },
            Case {
                name: "prefer defaults to hostname with weight 100",
                policy: Policy::Prefer,
                strategy: strategy(&[], &[]),
                want: Some(preferred(&[(100, "kubernetes.io/hostname", "node-a")])),
                missing: &[],
            },
            Case {
                name: "prefer zone with its weight",
                policy: Policy::Prefer,
                strategy: strategy(&[], &[("topology.kubernetes.io/zone", 10)]),
                want: Some(preferred(&[(10, "topology.kubernetes.io/zone", "z1")])),
                missing: &[],
            },
            Case {
                name: "several prefers give one term each",
                policy: Policy::Prefer,
                strategy: strategy(
                    &[],
                    &[
                        ("kubernetes.io/hostname", 80),
                        ("example.com/missing", 50),
                        ("topology.kubernetes.io/region", 20),
                    ],
                ),
                want: Some(preferred(&[
                    (80, "kubernetes.io/hostname", "node-a"),
                    (20, "topology.kubernetes.io/region", "r1"),
                ])),
                missing: &["example.com/missing"],
            },
            Case {
                name: "requires are ignored under Prefer",
                policy: Policy::Prefer,
                strategy: strategy(&["example.com/rack"], &[]),
                want: Some(preferred(&[(100, "kubernetes.io/hostname", "node-a")])),
                missing: &[],
            },
            Case {
                name: "a prefer without weight keeps weight 0",
                policy: Policy::Prefer,
                strategy: strategy(&[], &[("topology.kubernetes.io/zone", 0)]),
                want: Some(preferred(&[(0, "topology.kubernetes.io/zone", "z1")])),
                missing: &[],
            },
        ];
        let recorded = term(RECORD);
        for case in cases {
            let got = inherit(case.policy, &case.strategy, &recorded);
            assert_eq!(got.affinity, case.want, "{}", case.name);
            assert_eq!(got.missing_keys, case.missing, "{}", case.name);
        }
    }

    #[test]
    fn merge_into_own_affinity_as_fluid_does() {
        let own_required = Affinity {
            node_affinity: Some(required(&[("example.com/pool", "batch")])),
            ..Affinity::default()
        };
        let own_preferred = Affinity {
            node_affinity: Some(preferred(&[(5, "example.com/disk", "ssd")])),
            ..Affinity::default()
        };
        let inherited_required = required(&[("kubernetes.io/hostname", "node-a")]);
        let inherited_preferred = preferred(&[(100, "kubernetes.io/hostname", "node-a")]);
        let cases: Vec<(&str, Option<&Affinity>, Option<&NodeAffinity>, Merged)> = vec![
            (
                "nothing inherited keeps the own affinity",
                Some(&own_required),
                None,
                Merged {
                    affinity: Some(own_required.clone()),
                    dropped_required: vec![],
                },
            ),
            (
                "required into no affinity becomes the only term",
                None,
                Some(&inherited_required),
                Merged {
                    affinity: Some(Affinity {
                        node_affinity: Some(inherited_required.clone()),
                        ..Affinity::default()
                    }),
                    dropped_required: vec![],
                },
            ),
            (
                "required next to own preferred terms",
                Some(&own_preferred),
                Some(&inherited_required),
                Merged {
                    affinity: Some(Affinity {
                        node_affinity: Some(NodeAffinity {
                            required: inherited_required.required.clone(),
                            preferred: own_preferred.node_affinity.clone().unwrap().preferred,
                        }),
                        ..Affinity::default()
                    }),
                    dropped_required: vec![],
                },
            ),
            (
                "required with own required terms is dropped (upstream range-copy)",
                Some(&own_required),
                Some(&inherited_required),
                Merged {
                    affinity: Some(own_required.clone()),
                    dropped_required: vec![in_requirement("kubernetes.io/hostname", "node-a")],
                },
            ),
            (
                "preferred terms are appended after the own ones",
                Some(&own_preferred),
                Some(&inherited_preferred),
                Merged {
                    affinity: Some(Affinity {
                        node_affinity: Some(preferred(&[
                            (5, "example.com/disk", "ssd"),
                            (100, "kubernetes.io/hostname", "node-a"),
                        ])),
                        ..Affinity::default()
                    }),
                    dropped_required: vec![],
                },
            ),
            (
                "preferred next to own required terms keeps both",
                Some(&own_required),
                Some(&inherited_preferred),
                Merged {
                    affinity: Some(Affinity {
                        node_affinity: Some(NodeAffinity {
                            required: own_required.node_affinity.clone().unwrap().required,
                            preferred: inherited_preferred.preferred.clone(),
                        }),
                        ..Affinity::default()
                    }),
                    dropped_required: vec![],
                },
            ),
        ];
        for (name, own, inherited, want) in cases {
            assert_eq!(merge(own, inherited), want, "{name}");
        }
    }

    fn op(kind: OpKind, namespace: &str, name: &str) -> FluidOp {
        FluidOp {
            kind,
            metadata: ObjectMeta {
                name: name.into(),
                namespace: namespace.into(),
                ..ObjectMeta::default()
            },
            spec: OpSpec::default(),
            status: OpStatus::default(),
        }
    }

    fn run_after(kind: &str, name: &str, namespace: &str, policy: &str) -> OperationRef {
        OperationRef {
            kind: kind.into(),
            name: name.into(),
            namespace: namespace.into(),
            affinity_strategy: AffinityStrategy {
                policy: policy.into(),
                ..AffinityStrategy::default()
            },
            ..OperationRef::default()
        }
    }

    fn key(kind: OpKind, namespace: &str, name: &str) -> OpKey {
        OpKey {
            kind,
            namespace: namespace.into(),
            name: name.into(),
        }
    }

    #[test]
    fn references_resolve_namespaces_and_depend_on() {
        let mut same_ns = op(OpKind::DataProcess, "team", "b");
        same_ns.spec.run_after = Some(run_after("DataLoad", "a", "", "Require"));
        let mut cross_ns = op(OpKind::DataLoad, "team", "b");
        cross_ns.spec.run_after = Some(run_after("DataMigrate", "a", "shared", "Prefer"));
        let mut depend = op(OpKind::DataLoad, "team", "c");
        let mut r = run_after("DataProcess", "b", "", "Require");
        r.affinity_strategy.depend_on = Some(ObjectRef {
            kind: "DataLoad".into(),
            name: "a".into(),
            namespace: "shared".into(),
            ..ObjectRef::default()
        });
        depend.spec.run_after = Some(r.clone());
        let mut depend_default = op(OpKind::DataLoad, "team", "c");
        r.affinity_strategy.policy = String::new();
        depend_default.spec.run_after = Some(r);
        let cases = [
            (
                &same_ns,
                Refs {
                    after: Some(key(OpKind::DataLoad, "team", "a")),
                    source: Some(key(OpKind::DataLoad, "team", "a")),
                    depend_on: false,
                    policy: Policy::Require,
                },
            ),
            (
                &cross_ns,
                Refs {
                    after: Some(key(OpKind::DataMigrate, "shared", "a")),
                    source: Some(key(OpKind::DataMigrate, "shared", "a")),
                    depend_on: false,
                    policy: Policy::Prefer,
                },
            ),
            (
                &depend,
                Refs {
                    after: Some(key(OpKind::DataProcess, "team", "b")),
                    source: Some(key(OpKind::DataLoad, "shared", "a")),
                    depend_on: true,
                    policy: Policy::Require,
                },
            ),
            (
                &depend_default,
                Refs {
                    after: Some(key(OpKind::DataProcess, "team", "b")),
                    source: None,
                    depend_on: false,
                    policy: Policy::Default,
                },
            ),
        ];
        for (op, want) in cases {
            assert_eq!(refs(op).unwrap(), want, "{}", op.metadata.name);
        }
    }

    #[test]
    fn bad_references_are_all_reported() {
        let mut bad = op(OpKind::DataLoad, "ns", "x");
        let mut r = run_after("Dataload", "", "", "require");
        r.affinity_strategy.depend_on = Some(ObjectRef {
            kind: "DataLoad".into(),
            ..ObjectRef::default()
        });
        bad.spec.run_after = Some(r);
        let problems: Vec<String> = refs(&bad)
            .unwrap_err()
            .iter()
            .map(|p| format!("{} | {}", p.path(), p))
            .collect();
        assert_eq!(
            problems,
            [
                "spec.runAfter.kind | spec.runAfter.kind: unknown kind \"Dataload\"; expected one of DataLoad, DataMigrate, DataProcess, DataBackup",
                "spec.runAfter.affinityStrategy.policy | spec.runAfter.affinityStrategy.policy: unknown policy \"require\"; expected \"\", \"Require\" or \"Prefer\"",
                "spec.runAfter.affinityStrategy.dependOn.name | spec.runAfter.affinityStrategy.dependOn.name: required",
            ]
        );
    }

    fn node(labels: &[(&str, &str)]) -> Node {
        Node {
            metadata: ObjectMeta {
                name: "node-a".into(),
                labels: labels
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
                ..ObjectMeta::default()
            },
            ..Node::default()
        }
    }

    #[test]
    fn records_what_the_job_controller_copies() {
        let full = node(&[
            (HOSTNAME_LABEL, "host-a"),
            (ZONE_LABEL, "z1"),
            (REGION_LABEL, "r1"),
            ("example.com/rack", "rack-7"),
            ("example.com/other", "x"),
        ]);
        let mut annotated = op(OpKind::DataLoad, "ns", "a");
        annotated.metadata.annotations.insert(
            AFFINITY_LABELS_ANNOTATION.into(),
            " example.com/rack ,,example.com/absent".into(),
        );
        let mut parallel = op(OpKind::DataMigrate, "ns", "m");
        parallel.spec.parallelism = Some(3);
        let cases = [
            (
                op(OpKind::DataLoad, "ns", "a"),
                &full,
                Some(required(&[
                    ("kubernetes.io/hostname", "host-a"),
                    ("topology.kubernetes.io/region", "r1"),
                    ("topology.kubernetes.io/zone", "z1"),
                ])),
            ),
            (
                annotated,
                &full,
                Some(required(&[
                    ("example.com/rack", "rack-7"),
                    ("kubernetes.io/hostname", "host-a"),
                    ("topology.kubernetes.io/region", "r1"),
                    ("topology.kubernetes.io/zone", "z1"),
                ])),
            ),
            (
                op(OpKind::DataMigrate, "ns", "m"),
                &node(&[(HOSTNAME_LABEL, "host-a")]),
                Some(required(&[("kubernetes.io/hostname", "host-a")])),
            ),
            (parallel, &full, None),
            (op(OpKind::DataProcess, "ns", "p"), &full, None),
            (op(OpKind::DataBackup, "ns", "b"), &full, None),
            (op(OpKind::DataLoad, "ns", "a"), &node(&[("x", "y")]), None),
        ];
        for (op, node, want) in cases {
            assert_eq!(
                recorded_node_affinity(&op, node),
                want,
                "{}",
                op.metadata.name
            );
        }
    }

    #[test]
    fn pods_carry_the_operation_template() {
        let requests = ResourceRequirements {
            requests: [("cpu".to_string(), Quantity::parse("2").unwrap())].into(),
            ..ResourceRequirements::default()
        };
        let mut load = op(OpKind::DataLoad, "ns", "warm");
        load.spec.node_selector = [("pool".to_string(), "io".to_string())].into();
        load.spec.resources = requests.clone();
        let pod = pod_for(&load, None);
        assert_eq!(
            (pod.metadata.name.as_str(), pod.metadata.namespace.as_str()),
            ("warm-loader", "ns")
        );
        assert_eq!(pod.spec.node_selector, load.spec.node_selector);
        assert_eq!(pod.spec.containers[0].resources, requests);

        let mut job = op(OpKind::DataProcess, "ns", "train");
        let mut pod_spec = PodSpec {
            node_selector: [("gpu".to_string(), "a100".to_string())].into(),
            ..PodSpec::default()
        };
        pod_spec.affinity = Some(Box::default());
        job.spec.processor = Some(Processor {
            job: Some(JobProcessor { pod_spec }),
            ..Processor::default()
        });
        let merged = Some(Affinity {
            node_affinity: Some(required(&[(HOSTNAME_LABEL, "n")])),
            ..Affinity::default()
        });
        let pod = pod_for(&job, merged.clone());
        assert_eq!(pod.spec.affinity.as_deref(), merged.as_ref());
        assert_eq!(pod.spec.node_selector["gpu"], "a100");
        assert_eq!(own_affinity(&job), Some(&Affinity::default()));

        let mut script = op(OpKind::DataProcess, "ns", "s");
        script.spec.processor = Some(Processor {
            script: Some(ScriptProcessor {
                resources: requests.clone(),
                ..ScriptProcessor::default()
            }),
            ..Processor::default()
        });
        assert_eq!(
            pod_for(&script, None).spec.containers[0].resources,
            requests
        );
        assert!(has_pod(&script));
        assert!(!has_pod(&op(OpKind::DataProcess, "ns", "none")));
        assert_eq!(own_affinity(&op(OpKind::DataBackup, "ns", "b")), None);
    }

    #[test]
    fn descriptions_are_one_line() {
        let mut both = required(&[("a", "1"), ("b", "2")]);
        both.preferred = preferred(&[(100, "c", "3")]).preferred;
        assert_eq!(
            describe_inherited(&both),
            "required: a In [1], b In [2]; preferred(100): c In [3]"
        );
    }
}
