//! NodeAffinity: nodeSelector and required node affinity (PreFilter narrows by node name,
//! Filter matches labels), preferred node affinity (Score, normalised by the best node).

use std::collections::BTreeSet;

use crate::framework::{
    Code, Context, Filter, PreFilter, PreScore, Score, Status, default_normalize,
};
use crate::selector;
use df_model::NodeSelector;

pub const REASON: &str = "node(s) didn't match Pod's node affinity/selector";
/// PreFilter: the `metadata.name` fields of the required terms share no node.
pub(crate) const REASON_CONFLICT: &str = "pod affinity terms conflict";
/// The status upstream gives nodes a PreFilter result left out of the candidate set.
pub(crate) const REASON_PRE_FILTER: &str = "node(s) didn't satisfy plugin(s) [NodeAffinity]";

/// What NodeAffinity's PreFilter makes of the pod's required terms (upstream
/// `PreFilterResult`): when every term names nodes by `matchFields: metadata.name In`, only
/// those nodes are filtered at all; when those names cannot all hold, no node is.
#[derive(Debug, PartialEq)]
pub(crate) enum NodeNameSet {
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
    pub(crate) fn excludes(&self, node: &str) -> Option<&'static str> {
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
pub(crate) struct PreferredNodeAffinity;

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

#[cfg(test)]
mod tests {
    use crate::tests::*;
    use crate::*;

    #[test]
    fn node_affinity_filter() {
        let cluster = nodes(&["zone: a, gpus: \"2\"", "zone: b, gpus: \"8\"", "zone: c"]);
        let miss = "node(s) didn't match Pod's node affinity/selector";
        let cases: &[(&str, &str, Vec<String>)] = &[
            (
                "no constraints",
                "spec: {}\n",
                vec!["n1".into(), "n2".into(), "n3".into()],
            ),
            (
                "nodeSelector",
                "spec:\n  nodeSelector: {zone: b}\n",
                vec![format!("n1: {miss}"), "n2".into(), format!("n3: {miss}")],
            ),
            (
                "In",
                "spec:\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions: [{key: zone, operator: In, values: [a, c]}]\n",
                vec!["n1".into(), format!("n2: {miss}"), "n3".into()],
            ),
            (
                "NotIn is true on absent keys",
                "spec:\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions: [{key: gpus, operator: NotIn, values: [\"2\"]}]\n",
                vec![format!("n1: {miss}"), "n2".into(), "n3".into()],
            ),
            (
                "Gt",
                "spec:\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions: [{key: gpus, operator: Gt, values: [\"4\"]}]\n",
                vec![format!("n1: {miss}"), "n2".into(), format!("n3: {miss}")],
            ),
            (
                "DoesNotExist",
                "spec:\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions: [{key: gpus, operator: DoesNotExist}]\n",
                vec![format!("n1: {miss}"), format!("n2: {miss}"), "n3".into()],
            ),
            (
                "terms are ORed",
                "spec:\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions: [{key: zone, operator: In, values: [a]}]\n        - matchFields: [{key: metadata.name, operator: In, values: [n3]}]\n",
                vec!["n1".into(), format!("n2: {miss}"), "n3".into()],
            ),
            (
                "an empty term matches nothing",
                "spec:\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - {}\n",
                vec![
                    format!("n1: {miss}"),
                    format!("n2: {miss}"),
                    format!("n3: {miss}"),
                ],
            ),
            (
                "nodeSelector and affinity must both hold",
                "spec:\n  nodeSelector: {zone: a}\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions: [{key: zone, operator: In, values: [b]}]\n",
                vec![
                    format!("n1: {miss}"),
                    format!("n2: {miss}"),
                    format!("n3: {miss}"),
                ],
            ),
        ];
        for (name, spec, want) in cases {
            assert_eq!(&verdicts(&decide(&cluster, spec)), want, "{name}");
        }
    }

    /// Upstream node_affinity_test.go (PreFilter) and schedule_one_test.go (findNodesThatFitPod):
    /// `matchFields: metadata.name In` in every required term narrows the candidates before any
    /// filter runs; nodes left out get one status, counted in the summary; names that cannot all
    /// hold reject the pod at PreFilter, said once. (The API allows one name per requirement, so
    /// several nodes are named by several terms.)
    #[test]
    fn node_affinity_pre_filter_narrows_by_node_name() {
        let mut cluster = nodes(&["zone: a", "zone: b", "zone: a", "zone: b"]);
        // n3 is cordoned: left out at PreFilter, it is not reported as unschedulable.
        cluster = cluster.replacen(
            "name: n3\n  labels: {kubernetes.io/hostname: n3, zone: a}\n",
            "name: n3\n  labels: {kubernetes.io/hostname: n3, zone: a}\nspec: {unschedulable: true}\n",
            1,
        );
        assert!(cluster.contains("unschedulable"));
        let term = |fields: &str, expressions: &str| {
            let mut term = format!("        - matchFields: [{fields}]\n");
            if !expressions.is_empty() {
                term += &format!("          matchExpressions: [{expressions}]\n");
            }
            term
        };
        let required = |terms: &[String]| {
            format!(
                "spec:\n  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n{}",
                terms.concat()
            )
        };
        let names = |list: &str| format!("{{key: metadata.name, operator: In, values: [{list}]}}");
        let left_out = "node(s) didn't satisfy plugin(s) [NodeAffinity]";
        let miss = "node(s) didn't match Pod's node affinity/selector";
        let conflict = "pod affinity terms conflict";
        let cases: Vec<(&str, String, [&str; 4], Option<String>)> = vec![
            (
                "named nodes are filtered, the rest left out",
                required(&[
                    term(&names("n1"), "{key: zone, operator: In, values: [a]}"),
                    term(&names("n2"), "{key: zone, operator: In, values: [a]}"),
                ]),
                ["", miss, left_out, left_out],
                None,
            ),
            (
                "terms are ORed: the union of their names",
                required(&[
                    term(&names("n1"), ""),
                    term(&names("n4"), ""),
                    term(&names("ghost"), ""),
                ]),
                ["", left_out, left_out, ""],
                None,
            ),
            (
                "a term without names lets every node through to the filter",
                required(&[
                    term(&names("n1"), ""),
                    "        - matchExpressions: [{key: zone, operator: In, values: [b]}]\n".into(),
                ]),
                ["", "", "node(s) were unschedulable", ""],
                None,
            ),
            (
                "names of no existing node leave every node out",
                required(&[term(&names("ghost"), "")]),
                [left_out, left_out, left_out, left_out],
                Some(format!("0/4 nodes are available: 4 {left_out}.")),
            ),
            (
                "requirements in one term are ANDed: no common name is a conflict",
                required(&[term(&format!("{}, {}", names("n1"), names("n2")), "")]),
                [conflict, conflict, conflict, conflict],
                Some(format!("0/4 nodes are available: {conflict}.")),
            ),
            (
                "explicit and left-out statuses add up in the summary",
                required(&[
                    term(&names("n1"), "{key: zone, operator: In, values: [c]}"),
                    term(&names("n2"), "{key: zone, operator: In, values: [c]}"),
                ]),
                [miss, miss, left_out, left_out],
                Some(format!("0/4 nodes are available: 2 {miss}, 2 {left_out}.")),
            ),
        ];
        for (name, spec, want, summary) in cases {
            let decision = decide(&cluster, &spec);
            let got = reasons(&decision);
            assert_eq!(got, want, "{name}");
            assert_eq!(decision.summary, summary, "{name}");
        }
        // explain --node shows the PreFilter verdict alone: no filter ran on a left-out node.
        let state = state(&cluster);
        let scheduler = Scheduler::new(&state, Profile::default());
        let incoming = pod(&required(&[term(&names("n1"), "")]));
        let detail = explain_node(&scheduler, &incoming, "n3");
        assert_eq!(detail.filters.len(), 1);
        assert_eq!(detail.filters[0].plugin, "NodeAffinity");
        assert_eq!(detail.filters[0].reasons, [left_out]);
        assert_eq!(
            detail.filters[0].detail,
            "PreFilter: required terms name only node(s) n1"
        );
    }

    #[test]
    fn node_affinity_score_normalises_by_the_best_node() {
        let cluster = nodes(&["zone: a, disk: ssd", "zone: a", "zone: b"]);
        let decision = decide(
            &cluster,
            "spec:\n  affinity:\n    nodeAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n      - weight: 2\n        preference:\n          matchExpressions: [{key: zone, operator: In, values: [a]}]\n      - weight: 3\n        preference:\n          matchExpressions: [{key: disk, operator: Exists}]\n",
        );
        assert_eq!(scores(&decision, "NodeAffinity"), [100, 40, 0]);
        assert_eq!(decision.selected.as_deref(), Some("n1"));
        // No preferred terms: every node scores 0.
        assert_eq!(
            scores(&decide(&cluster, "spec: {}\n"), "NodeAffinity"),
            [0, 0, 0]
        );
    }
}
