//! What-if edits applied to the cluster state before planning, for the questions users ask
//! before running a flow: where does it go if these nodes are cordoned, drained, removed,
//! relabelled or tainted, or if N more nodes like this one are added?
//!
//! Every node verb names its nodes either by name or by a label selector spelled
//! `selector(...)` (`cordon=selector(zone=a,disk!=ssd)`): node names never hold parentheses,
//! so the two cannot be confused, and the parentheses keep the selector's own `=`, `,` and
//! `:` apart from the edit's.

use std::fmt;
use std::str::FromStr;

use super::{Plan, PlanError, PlanOptions, diff, plan_all};
use df_engine::Profiles;
use df_engine::selector::{label_selector_matches, parse_label_selector};
use df_manifest::ManifestSet;
use df_model::fluid::HOSTNAME_LABEL;
use df_model::{LabelSelector, Node, NodeSpec, NodeStatus, ObjectMeta, ResourceSlice, Taint};
use df_state::ClusterState;

/// The most nodes one `add` edit (or the node-count search) creates: each is a node the engine
/// filters and scores for every pod.
pub const MAX_ADDED_NODES: usize = 10_000;

/// The taint effects the scheduler knows.
const TAINT_EFFECTS: [&str; 3] = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

#[derive(Debug, Clone, PartialEq)]
pub enum WhatIf {
    /// An edit of existing nodes.
    Nodes { nodes: NodeTarget, edit: NodeEdit },
    /// `add=N:like=NODE`: N new empty nodes shaped like NODE.
    Add { count: usize, like: String },
}

/// The nodes a node verb edits.
#[derive(Debug, Clone, PartialEq)]
pub enum NodeTarget {
    Name(String),
    /// `selector(...)`: every node whose labels match; it must match at least one.
    Selector {
        text: String,
        selector: LabelSelector,
    },
}

#[derive(Debug, Clone, PartialEq)]
pub enum NodeEdit {
    /// `cordon`: the nodes take no new pods.
    Cordon,
    /// `drain`: cordon, and evict every pod bound to the nodes. Evicted pods are dropped rather
    /// than rescheduled: where their controllers would recreate them is not knowable here.
    Drain,
    /// `remove`: the nodes and the pods bound to them are gone.
    Remove,
    /// `label=NODES:key=value`: set (or overwrite) one label.
    Label { key: String, value: String },
    /// `unlabel=NODES:key`: drop one label.
    Unlabel { key: String },
    /// `taint=NODES:key=value:Effect`: add the taint, replacing one with the same key and
    /// effect (as `kubectl taint --overwrite`).
    Taint(Taint),
    /// `untaint=NODES:key` (every effect) or `untaint=NODES:key:Effect`.
    Untaint { key: String, effect: Option<String> },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WhatIfError {
    #[error("what-if edit {edit:?}: expected {expected}")]
    Syntax { edit: String, expected: String },
    #[error(
        "what-if edit {edit:?}: unknown verb {verb:?} (expected add, cordon, drain, label, remove, taint, unlabel or untaint)"
    )]
    UnknownVerb { edit: String, verb: String },
    #[error(
        "what-if edit {edit:?}: taint effect {effect:?} is not NoSchedule, PreferNoSchedule or NoExecute"
    )]
    Effect { edit: String, effect: String },
    #[error("what-if edit {edit:?}: the node count must be a whole number from 1 to {max}")]
    Count { edit: String, max: usize },
    #[error("what-if edit {edit:?}: {message}")]
    Selector { edit: String, message: String },
    #[error("what-if edit {edit}: node {node:?} is not in the cluster state")]
    UnknownNode { edit: String, node: String },
    #[error("what-if edit {edit}: selector {selector:?} matches no node")]
    NoMatch { edit: String, selector: String },
    #[error("what-if edit {edit}: no node it names has {what}")]
    NothingToRemove { edit: String, what: String },
}

impl FromStr for WhatIf {
    type Err = WhatIfError;

    fn from_str(text: &str) -> Result<WhatIf, WhatIfError> {
        let Some((verb, arg)) = text.split_once('=') else {
            return Err(WhatIfError::UnknownVerb {
                edit: text.to_string(),
                verb: text.to_string(),
            });
        };
        let usage = |expected: &str| WhatIfError::Syntax {
            edit: text.to_string(),
            expected: expected.to_string(),
        };
        if verb == "add" {
            let usage = || usage("add=N:like=NODE");
            let (count, like) = arg.split_once(":like=").ok_or_else(usage)?;
            if like.is_empty() {
                return Err(usage());
            }
            let count = count
                .parse::<usize>()
                .ok()
                .filter(|n| (1..=MAX_ADDED_NODES).contains(n))
                .ok_or_else(|| WhatIfError::Count {
                    edit: text.to_string(),
                    max: MAX_ADDED_NODES,
                })?;
            return Ok(WhatIf::Add {
                count,
                like: like.to_string(),
            });
        }
        let (expected, takes_rest) = match verb {
            "cordon" | "drain" | "remove" => (format!("{verb}=NODE|selector(...)"), false),
            "label" => ("label=NODE|selector(...):key=value".to_string(), true),
            "unlabel" => ("unlabel=NODE|selector(...):key".to_string(), true),
            "taint" => (
                "taint=NODE|selector(...):key[=value]:Effect".to_string(),
                true,
            ),
            "untaint" => ("untaint=NODE|selector(...):key[:Effect]".to_string(), true),
            _ => {
                return Err(WhatIfError::UnknownVerb {
                    edit: text.to_string(),
                    verb: verb.to_string(),
                });
            }
        };
        let usage = || usage(&expected);
        let (nodes, rest) = split_target(arg).ok_or_else(usage)?;
        let nodes = match nodes.strip_prefix("selector(") {
            Some(inner) => {
                let inner = &inner[..inner.len() - 1];
                let selector =
                    parse_label_selector(inner).map_err(|message| WhatIfError::Selector {
                        edit: text.to_string(),
                        message,
                    })?;
                NodeTarget::Selector {
                    text: inner.to_string(),
                    selector,
                }
            }
            None => NodeTarget::Name(nodes.to_string()),
        };
        if rest.is_some() != takes_rest {
            return Err(usage());
        }
        let rest = rest.unwrap_or_default();
        let key_only = |key: &str| (!key.is_empty()).then(|| key.to_string());
        let effect = |effect: &str| {
            if TAINT_EFFECTS.contains(&effect) {
                Ok(effect.to_string())
            } else {
                Err(WhatIfError::Effect {
                    edit: text.to_string(),
                    effect: effect.to_string(),
                })
            }
        };
        let edit = match verb {
            "cordon" => NodeEdit::Cordon,
            "drain" => NodeEdit::Drain,
            "remove" => NodeEdit::Remove,
            "label" => {
                let (key, value) = rest.split_once('=').ok_or_else(usage)?;
                NodeEdit::Label {
                    key: key_only(key).ok_or_else(usage)?,
                    value: value.to_string(),
                }
            }
            "unlabel" => NodeEdit::Unlabel {
                key: key_only(rest).ok_or_else(usage)?,
            },
            "taint" => {
                let (pair, taint_effect) = rest.rsplit_once(':').ok_or_else(usage)?;
                let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                NodeEdit::Taint(Taint {
                    key: key_only(key).ok_or_else(usage)?,
                    value: value.to_string(),
                    effect: effect(taint_effect)?,
                })
            }
            _ => {
                let (key, taint_effect) = match rest.split_once(':') {
                    Some((key, taint_effect)) => (key, Some(effect(taint_effect)?)),
                    None => (rest, None),
                };
                NodeEdit::Untaint {
                    key: key_only(key).ok_or_else(usage)?,
                    effect: taint_effect,
                }
            }
        };
        Ok(WhatIf::Nodes { nodes, edit })
    }
}

/// `NODE` or `selector(...)`, then what follows its `:` if anything; `None` when the target is
/// empty or its parentheses do not close.
fn split_target(arg: &str) -> Option<(&str, Option<&str>)> {
    let end = if arg.starts_with("selector(") {
        let mut depth = 0usize;
        let close = arg.char_indices().find_map(|(i, c)| {
            match c {
                '(' => depth += 1,
                ')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i);
                    }
                }
                _ => {}
            }
            None
        })?;
        close + 1
    } else {
        arg.find(':').unwrap_or(arg.len())
    };
    let (nodes, rest) = arg.split_at(end);
    if nodes.is_empty() {
        return None;
    }
    match rest.strip_prefix(':') {
        Some(rest) => Some((nodes, Some(rest))),
        None if rest.is_empty() => Some((nodes, None)),
        None => None,
    }
}

impl fmt::Display for NodeTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeTarget::Name(name) => f.write_str(name),
            NodeTarget::Selector { text, .. } => write!(f, "selector({text})"),
        }
    }
}

impl fmt::Display for WhatIf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (nodes, edit) = match self {
            WhatIf::Add { count, like } => return write!(f, "add={count}:like={like}"),
            WhatIf::Nodes { nodes, edit } => (nodes, edit),
        };
        match edit {
            NodeEdit::Cordon => write!(f, "cordon={nodes}"),
            NodeEdit::Drain => write!(f, "drain={nodes}"),
            NodeEdit::Remove => write!(f, "remove={nodes}"),
            NodeEdit::Label { key, value } => write!(f, "label={nodes}:{key}={value}"),
            NodeEdit::Unlabel { key } => write!(f, "unlabel={nodes}:{key}"),
            NodeEdit::Taint(t) if t.value.is_empty() => {
                write!(f, "taint={nodes}:{}:{}", t.key, t.effect)
            }
            NodeEdit::Taint(t) => write!(f, "taint={nodes}:{}={}:{}", t.key, t.value, t.effect),
            NodeEdit::Untaint { key, effect: None } => write!(f, "untaint={nodes}:{key}"),
            NodeEdit::Untaint {
                key,
                effect: Some(effect),
            } => write!(f, "untaint={nodes}:{key}:{effect}"),
        }
    }
}

/// Apply the edits in order, keeping the state's indexes current after each (a later edit may
/// name a node an earlier one added).
pub fn apply(state: &mut ClusterState, edits: &[WhatIf]) -> Result<(), WhatIfError> {
    if edits.is_empty() {
        return Ok(());
    }
    for edit in edits {
        let (nodes, node_edit) = match edit {
            WhatIf::Add { count, like } => {
                let template = state.node(like).ok_or_else(|| WhatIfError::UnknownNode {
                    edit: edit.to_string(),
                    node: like.clone(),
                })?;
                let mut copies = NodeCopies::new(state, template);
                let added: Vec<Node> = copies.by_ref().take(*count).collect();
                for node in added {
                    let slices = copies.slices_of(&node.metadata.name);
                    state.push_empty_node(node);
                    state.dra.resource_slices.extend(slices);
                }
                continue;
            }
            WhatIf::Nodes { nodes, edit } => (nodes, edit),
        };
        let targets = targets(state, nodes, edit)?;
        edit_nodes(state, &targets, node_edit, edit)?;
        if matches!(node_edit, NodeEdit::Drain | NodeEdit::Remove) {
            state.rebuild_indexes();
        }
    }
    Ok(())
}

/// The indexes (into `state.nodes`) of the nodes `nodes` names, in state order.
fn targets(
    state: &ClusterState,
    nodes: &NodeTarget,
    edit: &WhatIf,
) -> Result<Vec<usize>, WhatIfError> {
    match nodes {
        NodeTarget::Name(name) => {
            state
                .node_index(name)
                .map(|i| vec![i])
                .ok_or_else(|| WhatIfError::UnknownNode {
                    edit: edit.to_string(),
                    node: name.clone(),
                })
        }
        NodeTarget::Selector { text, selector } => {
            let mut matched = Vec::new();
            for (i, node) in state.nodes.iter().enumerate() {
                let matches =
                    label_selector_matches(selector, &node.metadata.labels).map_err(|e| {
                        WhatIfError::Selector {
                            edit: edit.to_string(),
                            message: e.to_string(),
                        }
                    })?;
                if matches {
                    matched.push(i);
                }
            }
            if matched.is_empty() {
                return Err(WhatIfError::NoMatch {
                    edit: edit.to_string(),
                    selector: text.clone(),
                });
            }
            Ok(matched)
        }
    }
}

fn edit_nodes(
    state: &mut ClusterState,
    targets: &[usize],
    node_edit: &NodeEdit,
    edit: &WhatIf,
) -> Result<(), WhatIfError> {
    let names: Vec<String> = targets
        .iter()
        .map(|&i| state.nodes[i].metadata.name.clone())
        .collect();
    let mut removed_any = false;
    for &i in targets {
        let node = &mut state.nodes[i];
        match node_edit {
            NodeEdit::Cordon | NodeEdit::Drain => node.spec.unschedulable = true,
            NodeEdit::Remove => {}
            NodeEdit::Label { key, value } => {
                node.metadata.labels.insert(key.into(), value.into());
            }
            NodeEdit::Unlabel { key } => {
                removed_any |= node.metadata.labels.remove(key).is_some();
            }
            NodeEdit::Taint(taint) => {
                node.spec
                    .taints
                    .retain(|t| t.key != taint.key || t.effect != taint.effect);
                node.spec.taints.push(taint.clone());
            }
            NodeEdit::Untaint { key, effect } => {
                let before = node.spec.taints.len();
                node.spec
                    .taints
                    .retain(|t| &t.key != key || effect.as_ref().is_some_and(|e| &t.effect != e));
                removed_any |= node.spec.taints.len() != before;
            }
        }
    }
    let nothing_removed = |what: String| WhatIfError::NothingToRemove {
        edit: edit.to_string(),
        what,
    };
    match node_edit {
        NodeEdit::Drain | NodeEdit::Remove => {
            state.pods.retain(|p| !names.contains(&p.spec.node_name));
            if *node_edit == NodeEdit::Remove {
                state.nodes.retain(|n| !names.contains(&n.metadata.name));
            }
        }
        NodeEdit::Unlabel { key } if !removed_any => {
            return Err(nothing_removed(format!("label {key:?}")));
        }
        NodeEdit::Untaint { key, effect } if !removed_any => {
            let effect = effect
                .as_deref()
                .map(|e| format!(":{e}"))
                .unwrap_or_default();
            return Err(nothing_removed(format!("a taint {key}{effect}")));
        }
        _ => {}
    }
    Ok(())
}

/// The plan of `manifests` against `state` with `edits` applied, carrying what the edits
/// change against the plan on the state as it is (`whatIfEffect`). Without edits, the plain
/// plan.
pub fn plan(
    manifests: &ManifestSet,
    state: &ClusterState,
    edits: &[WhatIf],
    profiles: Profiles,
    opts: &PlanOptions,
) -> Result<Plan, PlanError> {
    if edits.is_empty() {
        return plan_all(manifests, state, profiles, opts);
    }
    let mut edited = state.clone();
    apply(&mut edited, edits)?;
    let before = plan_all(manifests, state, profiles.clone(), opts)?;
    let mut after = plan_all(manifests, &edited, profiles, opts)?;
    after.what_if_effect = Some(diff::diff(&before, &after));
    Ok(after)
}

/// An endless supply of new nodes shaped like a template: its labels (the hostname label
/// rewritten to the new name), taints, allocatable and capacity; schedulable, with no pods and
/// no images pulled. They are named `TEMPLATE-whatif-1`, `-2`... skipping names the state
/// already holds, so repeated `add` edits keep counting.
pub(crate) struct NodeCopies {
    template: Node,
    /// The ResourceSlices that name the template node: its devices, copied with each node.
    slices: Vec<ResourceSlice>,
    taken: rustc_hash::FxHashSet<String>,
    next: usize,
}

impl NodeCopies {
    pub fn new(state: &ClusterState, template: &Node) -> NodeCopies {
        let name = &template.metadata.name;
        NodeCopies {
            template: template.clone(),
            slices: state
                .dra
                .resource_slices
                .iter()
                .filter(|s| s.spec.node_name.as_ref() == Some(name))
                .cloned()
                .collect(),
            taken: state
                .nodes
                .iter()
                .map(|n| n.metadata.name.clone())
                .collect(),
            next: 1,
        }
    }
}

impl NodeCopies {
    /// The template's ResourceSlices for the copy `node`: the same devices, in a slice and a
    /// pool of the copy's own (a driver names a node's pool after the node; a pool of another
    /// name gets the copy's name appended, so that no pool lists a device twice).
    pub fn slices_of(&self, node: &str) -> Vec<ResourceSlice> {
        let template = &self.template.metadata.name;
        self.slices
            .iter()
            .map(|slice| {
                let mut copy = slice.clone();
                copy.metadata = ObjectMeta {
                    name: format!("{}-{node}", slice.metadata.name),
                    ..ObjectMeta::default()
                };
                copy.spec.node_name = Some(node.to_string());
                copy.spec.pool.name = if slice.spec.pool.name == *template {
                    node.to_string()
                } else {
                    format!("{}-{node}", slice.spec.pool.name)
                };
                copy
            })
            .collect()
    }
}

impl Iterator for NodeCopies {
    type Item = Node;

    fn next(&mut self) -> Option<Node> {
        let base = &self.template.metadata.name;
        let name = loop {
            let name = format!("{base}-whatif-{}", self.next);
            self.next += 1;
            if !self.taken.contains(&name) {
                break name;
            }
        };
        let mut labels = self.template.metadata.labels.clone();
        if let Some(host) = labels.get_mut(HOSTNAME_LABEL) {
            *host = name.as_str().into();
        }
        Some(Node {
            metadata: ObjectMeta {
                name,
                labels,
                ..ObjectMeta::default()
            },
            spec: NodeSpec {
                unschedulable: false,
                taints: self.template.spec.taints.clone(),
            },
            status: NodeStatus {
                allocatable: self.template.status.allocatable.clone(),
                capacity: self.template.status.capacity.clone(),
                ..NodeStatus::default()
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use df_model::{Object, Pod, PodSpec, Quantity};

    fn state() -> ClusterState {
        let node = |name: &str, zone: &str, taints: Vec<Taint>| {
            Object::Node(Node {
                metadata: ObjectMeta {
                    name: name.into(),
                    labels: [(HOSTNAME_LABEL, name), ("zone", zone)]
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), v.to_string()))
                        .collect(),
                    annotations: [("note", "kept on the template only")].into(),
                    ..ObjectMeta::default()
                },
                spec: NodeSpec {
                    unschedulable: true,
                    taints,
                },
                status: NodeStatus {
                    allocatable: [("cpu".to_string(), Quantity::parse("4").unwrap())].into(),
                    ..NodeStatus::default()
                },
            })
        };
        let pod = |name: &str, on: &str| {
            Object::Pod(Pod {
                metadata: ObjectMeta {
                    name: name.into(),
                    namespace: "ns".into(),
                    ..ObjectMeta::default()
                },
                spec: PodSpec {
                    node_name: on.into(),
                    ..PodSpec::default()
                },
                ..Pod::default()
            })
        };
        ClusterState::from_objects([
            node("n1", "a", vec![taint("gpu", "yes", "NoSchedule")]),
            node("n2", "b", vec![]),
            node("n3", "a", vec![taint("gpu", "", "NoExecute")]),
            pod("a", "n1"),
            pod("b", "n2"),
            pod("c", "n3"),
        ])
    }

    fn taint(key: &str, value: &str, effect: &str) -> Taint {
        Taint {
            key: key.into(),
            value: value.into(),
            effect: effect.into(),
        }
    }

    fn name(node: &str) -> NodeTarget {
        NodeTarget::Name(node.into())
    }

    #[test]
    fn parses_each_form_and_prints_it_back() {
        let zone_a = NodeTarget::Selector {
            text: "zone in (a,b),disk!=ssd".into(),
            selector: parse_label_selector("zone in (a,b),disk!=ssd").unwrap(),
        };
        let nodes = |nodes: NodeTarget, edit: NodeEdit| WhatIf::Nodes { nodes, edit };
        let cases = [
            ("cordon=n1", nodes(name("n1"), NodeEdit::Cordon)),
            ("drain=n2", nodes(name("n2"), NodeEdit::Drain)),
            ("remove=n2", nodes(name("n2"), NodeEdit::Remove)),
            (
                "cordon=selector(zone in (a,b),disk!=ssd)",
                nodes(zone_a.clone(), NodeEdit::Cordon),
            ),
            (
                "label=n1:topology.kubernetes.io/zone=z9",
                nodes(
                    name("n1"),
                    NodeEdit::Label {
                        key: "topology.kubernetes.io/zone".into(),
                        value: "z9".into(),
                    },
                ),
            ),
            (
                "label=selector(zone in (a,b),disk!=ssd):gpu=",
                nodes(
                    zone_a.clone(),
                    NodeEdit::Label {
                        key: "gpu".into(),
                        value: String::new(),
                    },
                ),
            ),
            (
                "unlabel=n1:zone",
                nodes(name("n1"), NodeEdit::Unlabel { key: "zone".into() }),
            ),
            (
                "taint=n1:dedicated=ml:NoSchedule",
                nodes(
                    name("n1"),
                    NodeEdit::Taint(taint("dedicated", "ml", "NoSchedule")),
                ),
            ),
            (
                "taint=selector(zone in (a,b),disk!=ssd):spot:PreferNoSchedule",
                nodes(
                    zone_a,
                    NodeEdit::Taint(taint("spot", "", "PreferNoSchedule")),
                ),
            ),
            (
                "untaint=n1:gpu",
                nodes(
                    name("n1"),
                    NodeEdit::Untaint {
                        key: "gpu".into(),
                        effect: None,
                    },
                ),
            ),
            (
                "untaint=n1:gpu:NoExecute",
                nodes(
                    name("n1"),
                    NodeEdit::Untaint {
                        key: "gpu".into(),
                        effect: Some("NoExecute".into()),
                    },
                ),
            ),
            (
                "add=3:like=n1",
                WhatIf::Add {
                    count: 3,
                    like: "n1".into(),
                },
            ),
        ];
        for (text, want) in cases {
            let parsed = text.parse::<WhatIf>();
            assert_eq!(parsed, Ok(want), "{text}");
            assert_eq!(parsed.unwrap().to_string(), text);
        }
    }

    #[test]
    fn refuses_malformed_edits_with_the_form_expected() {
        let cases = [
            (
                "uncordon=n1",
                "what-if edit \"uncordon=n1\": unknown verb \"uncordon\" (expected add, cordon, drain, label, remove, taint, unlabel or untaint)",
            ),
            (
                "cordon",
                "what-if edit \"cordon\": unknown verb \"cordon\" (expected add, cordon, drain, label, remove, taint, unlabel or untaint)",
            ),
            (
                "cordon=",
                "what-if edit \"cordon=\": expected cordon=NODE|selector(...)",
            ),
            (
                "drain=n1:x",
                "what-if edit \"drain=n1:x\": expected drain=NODE|selector(...)",
            ),
            (
                "label=n1",
                "what-if edit \"label=n1\": expected label=NODE|selector(...):key=value",
            ),
            (
                "label=n1:=v",
                "what-if edit \"label=n1:=v\": expected label=NODE|selector(...):key=value",
            ),
            (
                "unlabel=n1:",
                "what-if edit \"unlabel=n1:\": expected unlabel=NODE|selector(...):key",
            ),
            (
                "taint=n1:k=v",
                "what-if edit \"taint=n1:k=v\": expected taint=NODE|selector(...):key[=value]:Effect",
            ),
            (
                "taint=n1:k=v:NoScheduling",
                "what-if edit \"taint=n1:k=v:NoScheduling\": taint effect \"NoScheduling\" is not NoSchedule, PreferNoSchedule or NoExecute",
            ),
            (
                "untaint=n1:k:Evict",
                "what-if edit \"untaint=n1:k:Evict\": taint effect \"Evict\" is not NoSchedule, PreferNoSchedule or NoExecute",
            ),
            (
                "cordon=selector(zone=a",
                "what-if edit \"cordon=selector(zone=a\": expected cordon=NODE|selector(...)",
            ),
            (
                "cordon=selector(zone=a)x",
                "what-if edit \"cordon=selector(zone=a)x\": expected cordon=NODE|selector(...)",
            ),
            (
                "cordon=selector(zone=a b)",
                "what-if edit \"cordon=selector(zone=a b)\": requirement \"zone=a b\" has an invalid value",
            ),
            (
                "cordon=selector()",
                "what-if edit \"cordon=selector()\": selector \"\" has an empty requirement",
            ),
            (
                "add=4294967296:like=n1",
                "what-if edit \"add=4294967296:like=n1\": the node count must be a whole number from 1 to 10000",
            ),
            (
                "add=0:like=n1",
                "what-if edit \"add=0:like=n1\": the node count must be a whole number from 1 to 10000",
            ),
            (
                "add=-1:like=n1",
                "what-if edit \"add=-1:like=n1\": the node count must be a whole number from 1 to 10000",
            ),
            (
                "add=2:n1",
                "what-if edit \"add=2:n1\": expected add=N:like=NODE",
            ),
            (
                "add=2:like=",
                "what-if edit \"add=2:like=\": expected add=N:like=NODE",
            ),
        ];
        for (text, want) in cases {
            let err = text.parse::<WhatIf>().unwrap_err();
            assert_eq!(err.to_string(), want, "{text}");
        }
    }

    fn edited(edits: &[&str]) -> Result<ClusterState, String> {
        let mut s = state();
        let edits: Vec<WhatIf> = edits.iter().map(|e| e.parse().unwrap()).collect();
        apply(&mut s, &edits).map_err(|e| e.to_string())?;
        Ok(s)
    }

    /// Each node as `name cordoned? labels taints`, and each pod with its node.
    fn describe(s: &ClusterState) -> Vec<String> {
        let nodes = s.nodes.iter().enumerate().map(|(i, n)| {
            let labels: Vec<String> = n
                .metadata
                .labels
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            let taints: Vec<String> = n
                .spec
                .taints
                .iter()
                .map(|t| format!("{}={}:{}", t.key, t.value, t.effect))
                .collect();
            format!(
                "{} unschedulable={} [{}] [{}] pods={}",
                n.metadata.name,
                n.spec.unschedulable,
                labels.join(" "),
                taints.join(" "),
                s.pods_on(i).count()
            )
        });
        let pods = s
            .pods
            .iter()
            .map(|p| format!("pod {} on {}", p.metadata.name, p.spec.node_name));
        nodes.chain(pods).collect()
    }

    #[test]
    fn edits_change_the_state_in_order() {
        let n1 =
            "n1 unschedulable=true [kubernetes.io/hostname=n1 zone=a] [gpu=yes:NoSchedule] pods=1";
        let n2 = "n2 unschedulable=true [kubernetes.io/hostname=n2 zone=b] [] pods=1";
        let n3 = "n3 unschedulable=true [kubernetes.io/hostname=n3 zone=a] [gpu=:NoExecute] pods=1";
        let pods = ["pod a on n1", "pod b on n2", "pod c on n3"];
        let cases: &[(&[&str], Vec<&str>)] = &[
            (&[], [n1, n2, n3].into_iter().chain(pods).collect()),
            (
                &["remove=selector(zone=a)"],
                vec![n2, "pod b on n2"],
            ),
            (
                &["drain=n2", "label=selector(!rack,zone notin (a)):gpu=none"],
                vec![
                    n1,
                    "n2 unschedulable=true [gpu=none kubernetes.io/hostname=n2 zone=b] [] pods=0",
                    n3,
                    "pod a on n1",
                    "pod c on n3",
                ],
            ),
            (
                &["untaint=selector(zone in (a)):gpu", "unlabel=n3:zone"],
                vec![
                    "n1 unschedulable=true [kubernetes.io/hostname=n1 zone=a] [] pods=1",
                    n2,
                    "n3 unschedulable=true [kubernetes.io/hostname=n3] [] pods=1",
                ]
                .into_iter()
                .chain(pods)
                .collect(),
            ),
            (
                &["untaint=n3:gpu:NoExecute", "taint=n1:gpu=no:NoSchedule", "taint=n1:spot:NoExecute"],
                vec![
                    "n1 unschedulable=true [kubernetes.io/hostname=n1 zone=a] [gpu=no:NoSchedule spot=:NoExecute] pods=1",
                    n2,
                    "n3 unschedulable=true [kubernetes.io/hostname=n3 zone=a] [] pods=1",
                ]
                .into_iter()
                .chain(pods)
                .collect(),
            ),
            (
                &["add=2:like=n1", "remove=n1", "add=1:like=n1-whatif-2", "cordon=n1-whatif-1"],
                vec![
                    n2,
                    n3,
                    "n1-whatif-1 unschedulable=true [kubernetes.io/hostname=n1-whatif-1 zone=a] [gpu=yes:NoSchedule] pods=0",
                    "n1-whatif-2 unschedulable=false [kubernetes.io/hostname=n1-whatif-2 zone=a] [gpu=yes:NoSchedule] pods=0",
                    "n1-whatif-2-whatif-1 unschedulable=false [kubernetes.io/hostname=n1-whatif-2-whatif-1 zone=a] [gpu=yes:NoSchedule] pods=0",
                    "pod b on n2",
                    "pod c on n3",
                ],
            ),
            (
                &["add=1:like=n2", "add=2:like=n2"],
                vec![n1, n2, n3,
                    "n2-whatif-1 unschedulable=false [kubernetes.io/hostname=n2-whatif-1 zone=b] [] pods=0",
                    "n2-whatif-2 unschedulable=false [kubernetes.io/hostname=n2-whatif-2 zone=b] [] pods=0",
                    "n2-whatif-3 unschedulable=false [kubernetes.io/hostname=n2-whatif-3 zone=b] [] pods=0",
                ].into_iter().chain(pods).collect(),
            ),
        ];
        for (edits, want) in cases {
            assert_eq!(describe(&edited(edits).unwrap()), *want, "{edits:?}");
        }
        let copy = &edited(&["add=1:like=n1"]).unwrap().nodes[3];
        assert_eq!(
            copy.status.allocatable["cpu"],
            Quantity::parse("4").unwrap()
        );
        assert!(copy.metadata.annotations.is_empty());
        assert!(edited(&["add=1:like=n1"]).unwrap().warnings.is_empty());
    }

    #[test]
    fn edits_naming_nothing_are_refused() {
        let cases: &[(&[&str], &str)] = &[
            (
                &["drain=n9"],
                "what-if edit drain=n9: node \"n9\" is not in the cluster state",
            ),
            (
                &["add=2:like=n9"],
                "what-if edit add=2:like=n9: node \"n9\" is not in the cluster state",
            ),
            (
                &["remove=n1", "cordon=n1"],
                "what-if edit cordon=n1: node \"n1\" is not in the cluster state",
            ),
            (
                &["taint=selector(zone=c):k:NoSchedule"],
                "what-if edit taint=selector(zone=c):k:NoSchedule: selector \"zone=c\" matches no node",
            ),
            (
                &["unlabel=n1:rack"],
                "what-if edit unlabel=n1:rack: no node it names has label \"rack\"",
            ),
            (
                &["untaint=n1:gpu:NoExecute"],
                "what-if edit untaint=n1:gpu:NoExecute: no node it names has a taint gpu:NoExecute",
            ),
            (
                &["untaint=n2:gpu"],
                "what-if edit untaint=n2:gpu: no node it names has a taint gpu",
            ),
        ];
        for (edits, want) in cases {
            assert_eq!(edited(edits).unwrap_err(), *want, "{edits:?}");
        }
    }

    /// A copy of a node comes with the node's devices: its ResourceSlices, in a pool of its
    /// own; the DynamicResources plugin then finds them on the copy.
    #[test]
    fn added_nodes_copy_the_resource_slices_of_their_template() {
        let mut s = state();
        let slice = |name: &str, node: &str, pool: &str| ResourceSlice {
            metadata: ObjectMeta {
                name: name.into(),
                ..ObjectMeta::default()
            },
            spec: df_model::dra::ResourceSliceSpec {
                driver: "gpu.example.com".into(),
                node_name: Some(node.into()),
                pool: df_model::dra::ResourcePool {
                    name: pool.into(),
                    generation: 1,
                    resource_slice_count: 1,
                },
                ..df_model::dra::ResourceSliceSpec::default()
            },
        };
        s.dra.resource_slices = vec![
            slice("n1-gpus", "n1", "n1"),
            slice("n1-nics", "n1", "nics"),
            slice("n2-gpus", "n2", "n2"),
        ];
        apply(&mut s, &["add=2:like=n1".parse().unwrap()]).unwrap();
        let slices: Vec<(&str, &str, &str)> = s
            .dra
            .resource_slices
            .iter()
            .map(|x| {
                (
                    x.metadata.name.as_str(),
                    x.spec.node_name.as_deref().unwrap(),
                    x.spec.pool.name.as_str(),
                )
            })
            .collect();
        assert_eq!(
            slices,
            [
                ("n1-gpus", "n1", "n1"),
                ("n1-nics", "n1", "nics"),
                ("n2-gpus", "n2", "n2"),
                ("n1-gpus-n1-whatif-1", "n1-whatif-1", "n1-whatif-1"),
                ("n1-nics-n1-whatif-1", "n1-whatif-1", "nics-n1-whatif-1"),
                ("n1-gpus-n1-whatif-2", "n1-whatif-2", "n1-whatif-2"),
                ("n1-nics-n1-whatif-2", "n1-whatif-2", "nics-n1-whatif-2"),
            ]
        );
    }
}
