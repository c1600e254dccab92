//! `--what-if` edits applied to the cluster state before planning, for the questions users
//! ask before running a flow: where does it go if this node is cordoned, drained or relabelled?

use std::fmt;
use std::str::FromStr;

use crate::cluster::ClusterState;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WhatIf {
    /// `cordon=NODE`: the node takes no new pods.
    Cordon(String),
    /// `drain=NODE`: cordon, and evict every pod bound to it. Evicted pods are dropped rather
    /// than rescheduled: where their controllers would recreate them is not knowable here.
    Drain(String),
    /// `label=NODE:key=value`: set (or overwrite) one node label.
    Label {
        node: String,
        key: String,
        value: String,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WhatIfError {
    #[error("--what-if {0:?}: expected cordon=NODE, drain=NODE or label=NODE:key=value")]
    Syntax(String),
    #[error("--what-if {what}: node {node:?} is not in the cluster state")]
    UnknownNode { what: String, node: String },
}

impl FromStr for WhatIf {
    type Err = WhatIfError;

    fn from_str(text: &str) -> Result<WhatIf, WhatIfError> {
        let syntax = || WhatIfError::Syntax(text.to_string());
        let (verb, arg) = text.split_once('=').ok_or_else(syntax)?;
        if arg.is_empty() {
            return Err(syntax());
        }
        match verb {
            "cordon" => Ok(WhatIf::Cordon(arg.to_string())),
            "drain" => Ok(WhatIf::Drain(arg.to_string())),
            "label" => {
                let (node, label) = arg.split_once(':').ok_or_else(syntax)?;
                let (key, value) = label.split_once('=').ok_or_else(syntax)?;
                if node.is_empty() || key.is_empty() {
                    return Err(syntax());
                }
                Ok(WhatIf::Label {
                    node: node.to_string(),
                    key: key.to_string(),
                    value: value.to_string(),
                })
            }
            _ => Err(syntax()),
        }
    }
}

impl fmt::Display for WhatIf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WhatIf::Cordon(node) => write!(f, "cordon={node}"),
            WhatIf::Drain(node) => write!(f, "drain={node}"),
            WhatIf::Label { node, key, value } => write!(f, "label={node}:{key}={value}"),
        }
    }
}

impl WhatIf {
    fn node(&self) -> &str {
        match self {
            WhatIf::Cordon(node) | WhatIf::Drain(node) | WhatIf::Label { node, .. } => node,
        }
    }
}

/// Apply the edits in order; the indexes are rebuilt once at the end.
pub fn apply(state: &mut ClusterState, edits: &[WhatIf]) -> Result<(), WhatIfError> {
    if edits.is_empty() {
        return Ok(());
    }
    for edit in edits {
        let index = state
            .node_index(edit.node())
            .ok_or_else(|| WhatIfError::UnknownNode {
                what: edit.to_string(),
                node: edit.node().to_string(),
            })?;
        let node = &mut state.nodes[index];
        match edit {
            WhatIf::Cordon(_) => node.spec.unschedulable = true,
            WhatIf::Drain(name) => {
                node.spec.unschedulable = true;
                state.pods.retain(|p| &p.spec.node_name != name);
            }
            WhatIf::Label { key, value, .. } => {
                node.metadata.labels.insert(key.clone(), value.clone());
            }
        }
    }
    state.rebuild_indexes();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Node, Object, ObjectMeta, Pod, PodSpec};

    fn state() -> ClusterState {
        let node = |name: &str| {
            Object::Node(Node {
                metadata: ObjectMeta {
                    name: name.into(),
                    ..ObjectMeta::default()
                },
                ..Node::default()
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
        ClusterState::from_objects([node("n1"), node("n2"), pod("a", "n1"), pod("b", "n2")])
    }

    #[test]
    fn parses_each_form_and_rejects_others() {
        let cases = [
            ("cordon=n1", Ok(WhatIf::Cordon("n1".into()))),
            ("drain=n2", Ok(WhatIf::Drain("n2".into()))),
            (
                "label=n1:topology.kubernetes.io/zone=z9",
                Ok(WhatIf::Label {
                    node: "n1".into(),
                    key: "topology.kubernetes.io/zone".into(),
                    value: "z9".into(),
                }),
            ),
            (
                "label=n1:gpu=",
                Ok(WhatIf::Label {
                    node: "n1".into(),
                    key: "gpu".into(),
                    value: String::new(),
                }),
            ),
            (
                "uncordon=n1",
                Err(WhatIfError::Syntax("uncordon=n1".into())),
            ),
            ("cordon=", Err(WhatIfError::Syntax("cordon=".into()))),
            ("label=n1", Err(WhatIfError::Syntax("label=n1".into()))),
            (
                "label=n1:=v",
                Err(WhatIfError::Syntax("label=n1:=v".into())),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(text.parse::<WhatIf>(), want, "{text}");
        }
        assert_eq!(
            WhatIfError::Syntax("x".into()).to_string(),
            "--what-if \"x\": expected cordon=NODE, drain=NODE or label=NODE:key=value"
        );
    }

    #[test]
    fn edits_change_the_state() {
        let mut s = state();
        let edits: Vec<WhatIf> = ["cordon=n1", "drain=n2", "label=n1:rack=r1"]
            .iter()
            .map(|e| e.parse().unwrap())
            .collect();
        apply(&mut s, &edits).unwrap();
        assert!(s.nodes[0].spec.unschedulable && s.nodes[1].spec.unschedulable);
        assert_eq!(s.nodes[0].metadata.labels["rack"], "r1");
        let pods: Vec<&str> = s.pods.iter().map(|p| p.metadata.name.as_str()).collect();
        assert_eq!(pods, ["a"]);
        assert_eq!(s.pods_on(0).count(), 1);
        assert_eq!(s.pods_on(1).count(), 0);

        let err = apply(&mut s, &["drain=n9".parse().unwrap()]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--what-if drain=n9: node \"n9\" is not in the cluster state"
        );
    }
}
