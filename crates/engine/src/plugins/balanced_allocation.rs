//! NodeResourcesBalancedAllocation: nodes whose resource fractions stay close score higher
//! (Score: 1 - standard deviation of the fractions of the profile's resources, CPU and memory
//! by default).

use crate::framework::{Context, MAX_NODE_SCORE, PreScore, Score};

/// PreScore: whether the pod requests anything of the balanced resources (best-effort pods are
/// not scored: otherwise they would all pile onto one node).
pub(crate) struct BalancedAllocation {
    best_effort: bool,
}

impl PreScore for BalancedAllocation {
    fn pre_score(cx: &Context, _: &[usize]) -> Self {
        BalancedAllocation {
            best_effort: cx
                .profile
                .balanced_resources
                .iter()
                .all(|name| cx.requests.get(name) == 0),
        }
    }
}

impl Score for BalancedAllocation {
    fn score(&self, cx: &Context, node: usize) -> i64 {
        if self.best_effort {
            return 0;
        }
        let with_pod = balance(&fractions(cx, node, true));
        if cx.profile.version.balanced_allocation_scores_the_change() {
            let without_pod = balance(&fractions(cx, node, false));
            MAX_NODE_SCORE / 2 + (MAX_NODE_SCORE / 2 + with_pod - without_pod) / 2
        } else {
            with_pod
        }
    }

    fn describe_score(&self, cx: &Context, _: usize) -> String {
        let resources = cx.profile.balanced_resources.join(" and ");
        if cx.profile.version.balanced_allocation_scores_the_change() {
            format!(
                "50 + (50 + balance with the pod - balance without it) / 2, each balance 1 - \
                 standard deviation of {resources} fractions"
            )
        } else {
            format!("1 - standard deviation of {resources} fractions")
        }
    }
}

/// Upstream's `calculateResourceAllocatableRequest` for each balanced resource: requested (with
/// the pod's requests when `with_pod`) over allocatable, capped at 1. A resource the node has
/// none of is left out, and so is an extended resource the pod does not ask for.
fn fractions(cx: &Context, node: usize, with_pod: bool) -> Vec<f64> {
    let info = &cx.sched.nodes[node];
    cx.profile
        .balanced_resources
        .iter()
        .filter_map(|name| {
            let pod = cx.requests.get(name);
            let native = matches!(name.as_str(), "cpu" | "memory" | "ephemeral-storage");
            let capacity = info.allocatable.get(name);
            if (!native && pod == 0) || capacity == 0 {
                return None;
            }
            let requested = info.requested.get(name) + if with_pod { pod } else { 0 };
            Some((requested as f64 / capacity as f64).min(1.0))
        })
        .collect()
}

/// Upstream's `balancedResourceScorer`: `(1 - std) * 100` of the fractions; for two, the
/// standard deviation is half their difference.
fn balance(fractions: &[f64]) -> i64 {
    let std = match fractions {
        [a, b] => ((a - b) / 2.0).abs(),
        [_, _, ..] => {
            let mean = fractions.iter().sum::<f64>() / fractions.len() as f64;
            let variance = fractions
                .iter()
                .map(|f| (f - mean) * (f - mean))
                .sum::<f64>()
                / fractions.len() as f64;
            variance.sqrt()
        }
        _ => 0.0,
    };
    ((1.0 - std) * MAX_NODE_SCORE as f64) as i64
}

#[cfg(test)]
mod tests {
    use crate::tests::*;

    /// Upstream balanced_allocation_test.go, on a 4 CPU / 8Gi node holding nothing: before 1.36
    /// the balance with the pod, `(1 - |cpu fraction - memory fraction| / 2) * 100`; from 1.36
    /// `50 + (50 + with - without) / 2`, where the empty node's balance `without` is 100.
    #[test]
    fn closer_fractions_score_higher() {
        let cluster = nodes(&["zone: a"]);
        let cases: &[(&str, &str, i64, i64)] = &[
            // 0.25 / 0.25: std 0 -> 100; 1.36: 50 + (50 + 100 - 100) / 2 = 75.
            (
                "equal fractions 0.25 / 0.25",
                "cpu: \"1\", memory: 2Gi",
                100,
                75,
            ),
            // 0.5 and 0.125: std 0.1875 -> 81; 1.36: 50 + (50 + 81 - 100) / 2 = 65.
            ("cpu heavy", "cpu: \"2\", memory: 1Gi", 81, 65),
            // 0.0625 and 0.75: std 0.34375 -> 65; 1.36: 50 + (50 + 65 - 100) / 2 = 57.
            ("memory heavy", "cpu: 250m, memory: 6Gi", 65, 57),
        ];
        for (name, requests, before_1_36, from_1_36) in cases {
            let pod = format!(
                "spec:\n  containers: [{{name: c, resources: {{requests: {{{requests}}}}}}}]\n"
            );
            for (minor, want) in [(35, before_1_36), (36, from_1_36)] {
                assert_eq!(
                    scores(
                        &decide_on(minor, &cluster, &pod),
                        "NodeResourcesBalancedAllocation"
                    ),
                    [*want],
                    "1.{minor} {name}"
                );
            }
        }
    }

    /// From 1.36 a node the pod leaves better balanced scores above 75: 2 CPU of 4 already
    /// requested and no memory (0.5 / 0: balance 75), then a pod of 4Gi memory (0.5 / 0.5:
    /// balance 100) scores 50 + (50 + 100 - 75) / 2 = 87.
    #[test]
    fn from_1_36_the_change_in_balance_scores() {
        let cluster = nodes(&["zone: a"])
            + &running(
                "busy",
                "n1",
                "",
                "  containers: [{name: c, resources: {requests: {cpu: \"2\"}}}]\n",
            );
        let pod = "spec:\n  containers: [{name: c, resources: {requests: {memory: 4Gi}}}]\n";
        assert_eq!(
            scores(
                &decide_on(36, &cluster, pod),
                "NodeResourcesBalancedAllocation"
            ),
            [87]
        );
        // Before 1.36 only the balance with the pod counts: 100.
        assert_eq!(
            scores(
                &decide_on(35, &cluster, pod),
                "NodeResourcesBalancedAllocation"
            ),
            [100]
        );
    }
}
