//! NodeAffinity: nodeSelector and required node affinity (PreFilter narrows by node name,
//! Filter matches labels), preferred node affinity (Score, normalised by the best node).

use std::collections::BTreeSet;

use crate::model::NodeSelector;
use crate::sched::framework::{
    Code, Context, Filter, PreFilter, PreScore, Score, Status, default_normalize,
};
use crate::sched::selector;

pub const REASON: &str = "node(s) didn't match Pod's node affinity/selector";
/// PreFilter: the `metadata.name` fields of the required terms share no node.
pub const REASON_CONFLICT: &str = "pod affinity terms conflict";
/// The status upstream gives nodes a PreFilter result left out of the candidate set.
pub const REASON_PRE_FILTER: &str = "node(s) didn't satisfy plugin(s) [NodeAffinity]";

/// What NodeAffinity's PreFilter makes of the pod's required terms (upstream
/// `PreFilterResult`): when every term names nodes by `matchFields: metadata.name In`, only
/// those nodes are filtered at all; when those names cannot all hold, no node is.
#[derive(Debug, PartialEq)]
pub(in crate::sched) enum NodeNameSet {
    AllNodes,
    Only(BTreeSet<String>),
    Conflict,
}

impl NodeNameSet {
    pub fn of(required: Option<&NodeSelector>) -> NodeNameSet {
        let Some(required) = required.filter(|r| !r.node_selector_terms.is_empty()) else {
            return NodeNameSet::AllNodes;
        };
        let mut union = BTreeSet::new();
        for term in &required.node_selector_terms {
            // Requirements in a term are ANDed: intersect their name lists.
            let mut names: Option<BTreeSet<String>> = None;
            for requirement in &term.match_fields {
                if requirement.key != "metadata.name" || requirement.operator != "In" {
                    continue;
                }
                let values = requirement.values.iter().cloned().collect();
                names = Some(match names {
                    None => values,
                    Some(names) => names.intersection(&values).cloned().collect(),
                });
            }
            // Terms are ORed: one term without names lets every node through.
            let Some(names) = names else {
                return NodeNameSet::AllNodes;
            };
            union.extend(names);
        }
        if union.is_empty() {
            NodeNameSet::Conflict
        } else {
            NodeNameSet::Only(union)
        }
    }

    pub fn describe(&self) -> String {
        match self {
            NodeNameSet::AllNodes => "every node is a candidate".into(),
            NodeNameSet::Only(names) => format!(
                "required terms name only node(s) {}",
                names.iter().cloned().collect::<Vec<_>>().join(", ")
            ),
            NodeNameSet::Conflict => {
                "the required terms' metadata.name fields share no node".into()
            }
        }
    }

    /// Why PreFilter left `node` out, if it did.
    pub fn excludes(&self, node: &str) -> Option<&'static str> {
        match self {
            NodeNameSet::AllNodes => None,
            NodeNameSet::Only(names) if names.contains(node) => None,
            NodeNameSet::Only(_) => Some(REASON_PRE_FILTER),
            NodeNameSet::Conflict => Some(REASON_CONFLICT),
        }
    }
}

impl PreFilter for NodeNameSet {
    fn pre_filter(cx: &Context) -> Self {
        NodeNameSet::of(cx.required_node_affinity())
    }
}

impl NodeNameSet {
    /// PreFilter's verdict on `node`, when it leaves the node out (upstream gives every such
    /// node UnschedulableAndUnresolvable).
    pub fn status(&self, node: &str) -> Option<Status> {
        self.excludes(node)
            .map(|reason| Status::new(Code::UnschedulableAndUnresolvable, reason))
    }
}

impl Filter for NodeNameSet {
    fn filter(&self, cx: &Context, node: usize) -> Status {
        if cx.node_affinity_matches(cx.node(node)) {
            Status::success()
        } else {
            Status::new(Code::UnschedulableAndUnresolvable, REASON)
        }
    }

    fn describe_filter(&self, cx: &Context, _: usize) -> String {
        format!(
            "nodeSelector {:?}; required node affinity {}",
            cx.pod.spec.node_selector,
            if cx.required_node_affinity().is_some() {
                "set"
            } else {
                "unset"
            }
        )
    }
}

/// PreScore: nothing to precompute beyond the pod's preferred terms, read in place.
pub(in crate::sched) struct PreferredNodeAffinity;

impl PreScore for PreferredNodeAffinity {
    fn pre_score(_: &Context, _: &[usize]) -> Self {
        PreferredNodeAffinity
    }
}

impl Score for PreferredNodeAffinity {
    /// The sum of the weights of the preferred terms the node matches.
    fn score(&self, cx: &Context, node: usize) -> i64 {
        let node = cx.node(node);
        cx.pod
            .spec
            .affinity
            .as_ref()
            .and_then(|a| a.node_affinity.as_ref())
            .map(|n| {
                n.preferred
                    .iter()
                    .filter(|t| t.weight != 0)
                    .filter(|t| {
                        selector::node_selector_term_matches(
                            &t.preference,
                            &node.metadata.name,
                            &node.metadata.labels,
                        )
                        .unwrap_or(false)
                    })
                    .map(|t| i64::from(t.weight))
                    .sum()
            })
            .unwrap_or(0)
    }

    fn normalize(&self, scores: &mut [(usize, i64)]) {
        default_normalize(scores, false);
    }

    fn describe_score(&self, _: &Context, _: usize) -> String {
        "sum of the weights of matching preferred terms".into()
    }
}
