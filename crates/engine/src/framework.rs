//! The scheduling framework's vocabulary, as upstream's: typed statuses, the extension points
//! a plugin implements (PreFilter, Filter, PreScore, Score, NormalizeScore), and what a cycle
//! knows about the incoming pod before any plugin runs.

use serde::Serialize;

use super::resources::{self, Resources};
use super::selector::{self, node_selector_map_matches};
use super::terms::{PodTerms, Term};
use super::{Profile, Scheduler};
use df_model::{Labels, Node, NodeSelector, Pod};

pub const MAX_NODE_SCORE: i64 = 100;

/// Upstream's status codes (`fwk.Code`) for the outcomes the engine produces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Code {
    Success,
    /// The node may fit once other pods are gone (preemption can help).
    Unschedulable,
    /// Nothing on the node can change that (preemption cannot help).
    UnschedulableAndUnresolvable,
    Error,
}

/// A plugin's verdict: its code and upstream's reason messages.
#[derive(Debug, Clone, PartialEq)]
pub struct Status {
    pub code: Code,
    pub reasons: Vec<String>,
}

impl Status {
    pub fn success() -> Status {
        Status {
            code: Code::Success,
            reasons: Vec::new(),
        }
    }

    pub fn new(code: Code, reason: &str) -> Status {
        Status {
            code,
            reasons: vec![reason.to_string()],
        }
    }

    pub(crate) fn is_success(&self) -> bool {
        self.code == Code::Success
    }
}

/// What the cycle knows of the incoming pod, shared by every plugin: computed once.
pub(super) struct Context<'s, 'a> {
    pub sched: &'s Scheduler<'a>,
    pub pod: &'s Pod,
    /// The profile of the pod's scheduler.
    pub profile: &'s Profile,
    /// The pod's requests, pod-level ones included (the filter's and the node ledger's view).
    pub requests: Resources,
    /// The pod as NodeResourcesFit's scorer sizes it: non-zero defaults, pod-level ignored.
    pub fit_score_requests: Resources,
    pub terms: PodTerms,
    /// Problems in the pod's own spec, said once per decision with their path.
    pub problems: Vec<String>,
}

impl<'s, 'a> Context<'s, 'a> {
    pub fn new(sched: &'s Scheduler<'a>, pod: &'s Pod) -> Self {
        let mut cx = Context {
            sched,
            pod,
            profile: sched.profile_for(pod),
            requests: resources::pod_requests(&pod.spec, false),
            fit_score_requests: resources::container_level_requests(&pod.spec, true),
            terms: PodTerms::of(pod),
            problems: Vec::new(),
        };
        cx.problems = cx.own_selector_problems();
        cx
    }

    pub fn node(&self, index: usize) -> &'s Node {
        &self.sched.state.nodes[index]
    }

    /// Invalid selectors, weights and topology keys in the pod's own spec.
    fn own_selector_problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let affinity = self.pod.spec.affinity.as_ref();
        if let Some(required) = self.required_node_affinity() {
            for (i, term) in required.node_selector_terms.iter().enumerate() {
                if let Err(e) = selector::node_selector_term_matches(term, "", &Labels::new()) {
                    problems.push(format!(
                        "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[{i}].{e}"
                    ));
                }
            }
        }
        if let Some(node_affinity) = affinity.and_then(|a| a.node_affinity.as_ref()) {
            for (i, term) in node_affinity.preferred.iter().enumerate() {
                let path = format!(
                    "spec.affinity.nodeAffinity.preferredDuringSchedulingIgnoredDuringExecution[{i}]"
                );
                if !(1..=100).contains(&term.weight) {
                    problems.push(format!(
                        "{path}.weight: must be in 1..100, got {}",
                        term.weight
                    ));
                }
                if let Err(e) =
                    selector::node_selector_term_matches(&term.preference, "", &Labels::new())
                {
                    problems.push(format!("{path}.preference.{e}"));
                }
            }
        }
        for (kind, terms) in [
            ("podAffinity.required", &self.terms.required_affinity),
            (
                "podAntiAffinity.required",
                &self.terms.required_anti_affinity,
            ),
            ("podAffinity.preferred", &self.terms.preferred_affinity),
            (
                "podAntiAffinity.preferred",
                &self.terms.preferred_anti_affinity,
            ),
        ] {
            for (i, term) in terms.iter().enumerate() {
                let no_labels = Labels::new();
                if let Err(e) = term.matches(self.pod, || &no_labels) {
                    problems.push(format!("spec.affinity.{kind}[{i}].labelSelector.{e}"));
                }
                if kind.ends_with("preferred") && !(1..=100).contains(&term.weight) {
                    problems.push(format!(
                        "spec.affinity.{kind}[{i}].weight: must be in 1..100, got {}",
                        term.weight
                    ));
                }
                if term.topology_key.is_empty() {
                    problems.push(format!(
                        "spec.affinity.{kind}[{i}].topologyKey: must not be empty"
                    ));
                }
            }
        }
        problems
    }

    /// Whether `term` selects `pod`, its namespace's labels looked up as needed.
    pub(crate) fn term_matches(&self, term: &Term, pod: &Pod) -> bool {
        term.matches(pod, || self.sched.namespace_labels(&pod.metadata.namespace))
            .unwrap_or(false)
    }

    pub(crate) fn required_node_affinity(&self) -> Option<&'s NodeSelector> {
        self.pod
            .spec
            .affinity
            .as_ref()
            .and_then(|a| a.node_affinity.as_ref())
            .and_then(|n| n.required.as_ref())
    }

    /// nodeSelector AND required node affinity (upstream `GetRequiredNodeAffinity().Match`).
    pub(crate) fn node_affinity_matches(&self, node: &Node) -> bool {
        let labels = &node.metadata.labels;
        if !node_selector_map_matches(&self.pod.spec.node_selector, labels) {
            return false;
        }
        match self.required_node_affinity() {
            Some(required) => {
                selector::node_selector_matches(required, &node.metadata.name, labels).0
            }
            None => true,
        }
    }
}

/// PreFilter: the plugin's per-cycle state, computed once before any node is filtered.
pub(super) trait PreFilter: Sized {
    fn pre_filter(cx: &Context) -> Self;
}

/// Filter: one node's verdict, from the PreFilter state.
pub(super) trait Filter {
    fn filter(&self, cx: &Context, node: usize) -> Status;
    /// The inputs that decided it, in words (`explain-placement --node`).
    fn describe_filter(&self, cx: &Context, node: usize) -> String;
}

/// PreScore: the plugin's per-cycle scoring state, from the nodes that passed the filters.
pub(super) trait PreScore: Sized {
    fn pre_score(cx: &Context, feasible: &[usize]) -> Self;
}

/// Score and NormalizeScore.
pub(super) trait Score {
    fn score(&self, cx: &Context, node: usize) -> i64;
    /// Scale the raw scores of every feasible node to 0..100; by default they already are.
    fn normalize(&self, _scores: &mut [(usize, i64)]) {}
    fn describe_score(&self, cx: &Context, node: usize) -> String;
}

/// Upstream's DefaultNormalizeScore: scale to 0..100 by the maximum; `reverse` flips it.
pub(super) fn default_normalize(scores: &mut [(usize, i64)], reverse: bool) {
    let max = scores.iter().map(|(_, s)| *s).max().unwrap_or(0);
    for (_, score) in scores.iter_mut() {
        let scaled = if max == 0 {
            *score
        } else {
            MAX_NODE_SCORE * *score / max
        };
        *score = if !reverse {
            scaled
        } else if max == 0 {
            MAX_NODE_SCORE
        } else {
            MAX_NODE_SCORE - scaled
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_normalize_scales_by_the_maximum_and_reverses() {
        let cases: &[(&[i64], bool, &[i64])] = &[
            (&[2, 4, 0], false, &[50, 100, 0]),
            (&[2, 4, 0], true, &[50, 0, 100]),
            (&[0, 0], false, &[0, 0]),
            (&[0, 0], true, &[100, 100]),
        ];
        for (raw, reverse, want) in cases {
            let mut scores: Vec<(usize, i64)> = raw.iter().copied().enumerate().collect();
            default_normalize(&mut scores, *reverse);
            let got: Vec<i64> = scores.iter().map(|(_, s)| *s).collect();
            assert_eq!(&got, want, "{raw:?} reverse={reverse}");
        }
    }
}
