//! NodeResourcesFit: the pod's requests must fit the node's free allocatable (Filter); the
//! scoring strategy (LeastAllocated / MostAllocated) ranks nodes by what is left (Score).

use crate::sched::framework::{
    Code, Context, Filter, MAX_NODE_SCORE, PreFilter, PreScore, Score, Status,
};
use crate::sched::profile::ScoringStrategyType;
use crate::sched::resources::format_bytes;

pub const REASON_TOO_MANY_PODS: &str = "Too many pods";

pub(in crate::sched) struct NodeResourcesFit;

impl PreFilter for NodeResourcesFit {
    fn pre_filter(_: &Context) -> Self {
        NodeResourcesFit
    }
}

impl Filter for NodeResourcesFit {
    /// Every insufficient resource is a reason; a request larger than the node's whole
    /// allocatable makes it UnschedulableAndUnresolvable (no eviction can help).
    fn filter(&self, cx: &Context, node: usize) -> Status {
        let info = &cx.sched.nodes[node];
        let mut status = Status::success();
        let mut fail = |reason: String, unresolvable: bool| {
            status.reasons.push(reason);
            if unresolvable {
                status.code = Code::UnschedulableAndUnresolvable;
            } else if status.code == Code::Success {
                status.code = Code::Unschedulable;
            }
        };
        if info.pods.len() as i64 + 1 > cx.sched.max_pods(node) {
            fail(REASON_TOO_MANY_PODS.to_string(), false);
        }
        let (req, alloc, used) = (&cx.requests, &info.allocatable, &info.requested);
        for (name, wanted, capacity, in_use) in [
            ("cpu", req.milli_cpu, alloc.milli_cpu, used.milli_cpu),
            ("memory", req.memory, alloc.memory, used.memory),
            (
                "ephemeral-storage",
                req.ephemeral_storage,
                alloc.ephemeral_storage,
                used.ephemeral_storage,
            ),
        ] {
            if wanted > 0 && wanted > capacity - in_use {
                fail(format!("Insufficient {name}"), wanted > capacity);
            }
        }
        for (name, &wanted) in &req.scalar {
            let capacity = alloc.scalar(name);
            if wanted > 0 && wanted > capacity - used.scalar(name) {
                fail(format!("Insufficient {name}"), wanted > capacity);
            }
        }
        status
    }

    fn describe_filter(&self, cx: &Context, node: usize) -> String {
        let info = &cx.sched.nodes[node];
        format!(
            "cpu {}m requested + {}m used of {}m; memory {} + {} of {}; pods {} of {}",
            cx.requests.milli_cpu,
            info.requested.milli_cpu,
            info.allocatable.milli_cpu,
            format_bytes(cx.requests.memory),
            format_bytes(info.requested.memory),
            format_bytes(info.allocatable.memory),
            info.pods.len(),
            cx.sched.max_pods(node)
        )
    }
}

impl PreScore for NodeResourcesFit {
    fn pre_score(_: &Context, _: &[usize]) -> Self {
        NodeResourcesFit
    }
}

impl Score for NodeResourcesFit {
    fn score(&self, cx: &Context, node: usize) -> i64 {
        let info = &cx.sched.nodes[node];
        let pod = &cx.fit_score_requests;
        let (mut total, mut weights) = (0, 0);
        for (name, weight) in &cx.sched.profile.fit_resources {
            let is_native = matches!(name.as_str(), "cpu" | "memory");
            // Extended resources the pod does not ask for are not scored.
            if !is_native && pod.get(name) == 0 {
                continue;
            }
            let capacity = info.allocatable.get(name);
            if capacity == 0 {
                continue;
            }
            let requested = if is_native {
                info.non_zero_requested.get(name) + pod.get(name)
            } else {
                info.requested.get(name) + pod.get(name)
            };
            let score = match cx.sched.profile.strategy {
                ScoringStrategyType::LeastAllocated if requested > capacity => 0,
                ScoringStrategyType::LeastAllocated => {
                    (capacity - requested) * MAX_NODE_SCORE / capacity
                }
                ScoringStrategyType::MostAllocated => {
                    requested.min(capacity) * MAX_NODE_SCORE / capacity
                }
            };
            total += score * weight;
            weights += weight;
        }
        if weights == 0 { 0 } else { total / weights }
    }

    fn describe_score(&self, cx: &Context, node: usize) -> String {
        let info = &cx.sched.nodes[node];
        format!(
            "{:?}: cpu {}m of {}m, memory {} of {} after placing (non-zero requests)",
            cx.sched.profile.strategy,
            info.non_zero_requested.milli_cpu + cx.fit_score_requests.milli_cpu,
            info.allocatable.milli_cpu,
            format_bytes(info.non_zero_requested.memory + cx.fit_score_requests.memory),
            format_bytes(info.allocatable.memory)
        )
    }
}
