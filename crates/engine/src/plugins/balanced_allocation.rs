//! NodeResourcesBalancedAllocation: nodes whose CPU and memory fractions stay close score
//! higher (Score: 1 - standard deviation of the fractions).

use crate::framework::{Context, MAX_NODE_SCORE, PreScore, Score};

/// PreScore: whether the pod requests anything at all (best-effort pods are not scored:
/// otherwise they would all pile onto one node).
pub(crate) struct BalancedAllocation {
    best_effort: bool,
}

impl PreScore for BalancedAllocation {
    fn pre_score(cx: &Context, _: &[usize]) -> Self {
        BalancedAllocation {
            best_effort: cx.requests.milli_cpu == 0 && cx.requests.memory == 0,
        }
    }
}

impl Score for BalancedAllocation {
    fn score(&self, cx: &Context, node: usize) -> i64 {
        if self.best_effort {
            return 0;
        }
        let info = &cx.sched.nodes[node];
        let fractions: Vec<f64> = [
            (
                info.requested.milli_cpu + cx.requests.milli_cpu,
                info.allocatable.milli_cpu,
            ),
            (
                info.requested.memory + cx.requests.memory,
                info.allocatable.memory,
            ),
        ]
        .into_iter()
        .filter(|(_, capacity)| *capacity != 0)
        .map(|(requested, capacity)| (requested as f64 / capacity as f64).min(1.0))
        .collect();
        let std = match fractions.as_slice() {
            [a, b] => ((a - b) / 2.0).abs(),
            _ => 0.0,
        };
        ((1.0 - std) * MAX_NODE_SCORE as f64) as i64
    }

    fn describe_score(&self, _: &Context, _: usize) -> String {
        "1 - standard deviation of cpu and memory fractions".into()
    }
}

#[cfg(test)]
mod tests {
    use crate::tests::*;

    /// Upstream balanced_allocation_test.go: (1 - |cpu fraction - memory fraction| / 2) * 100
    /// with the pod placed, on a 4 CPU / 8Gi node.
    #[test]
    fn closer_fractions_score_higher() {
        let cluster = nodes(&["zone: a"]);
        let cases: &[(&str, &str, i64)] = &[
            (
                "equal fractions 0.25 / 0.25",
                "cpu: \"1\", memory: 2Gi",
                100,
            ),
            // 0.5 and 0.125: std 0.1875 -> 81.
            ("cpu heavy", "cpu: \"2\", memory: 1Gi", 81),
            // 0.0625 and 0.75: std 0.34375 -> 65.
            ("memory heavy", "cpu: 250m, memory: 6Gi", 65),
        ];
        for (name, requests, want) in cases {
            let decision = decide(
                &cluster,
                &format!(
                    "spec:\n  containers: [{{name: c, resources: {{requests: {{{requests}}}}}}}]\n"
                ),
            );
            assert_eq!(
                scores(&decision, "NodeResourcesBalancedAllocation"),
                [*want],
                "{name}"
            );
        }
    }
}
