//! NodeResourcesBalancedAllocation: nodes whose CPU and memory fractions stay close score
//! higher (Score: 1 - standard deviation of the fractions).

use crate::sched::framework::{Context, MAX_NODE_SCORE, PreScore, Score};

/// PreScore: whether the pod requests anything at all (best-effort pods are not scored:
/// otherwise they would all pile onto one node).
pub(in crate::sched) struct BalancedAllocation {
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
