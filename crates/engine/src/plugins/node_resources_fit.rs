//! NodeResourcesFit: the pod's requests must fit the node's free allocatable (Filter); the
//! scoring strategy (LeastAllocated / MostAllocated) ranks nodes by what is left (Score).

use crate::framework::{Code, Context, Filter, MAX_NODE_SCORE, PreFilter, PreScore, Score, Status};
use crate::profile::ScoringStrategyType;
use crate::resources::format_bytes;

pub(crate) const REASON_TOO_MANY_PODS: &str = "Too many pods";

pub(crate) struct NodeResourcesFit;

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
        // The reasons of the three fixed resources are written out: most nodes of a busy
        // cluster fail on one of them, for every pod.
        for (reason, wanted, capacity, in_use) in [
            (
                "Insufficient cpu",
                req.milli_cpu,
                alloc.milli_cpu,
                used.milli_cpu,
            ),
            ("Insufficient memory", req.memory, alloc.memory, used.memory),
            (
                "Insufficient ephemeral-storage",
                req.ephemeral_storage,
                alloc.ephemeral_storage,
                used.ephemeral_storage,
            ),
        ] {
            if wanted > 0 && wanted > capacity - in_use {
                fail(reason.to_string(), wanted > capacity);
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
        for (name, weight) in &cx.profile.fit_resources {
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
            let score = match cx.profile.strategy {
                ScoringStrategyType::LeastAllocated if requested > capacity => 0,
                ScoringStrategyType::LeastAllocated => {
                    (capacity - requested) * MAX_NODE_SCORE / capacity
                }
                ScoringStrategyType::MostAllocated => {
                    requested.min(capacity) * MAX_NODE_SCORE / capacity
                }
                ScoringStrategyType::RequestedToCapacityRatio => {
                    let utilization = scaled_utilization(requested, capacity);
                    let score = broken_linear(&cx.profile.capacity_ratio_shape, utilization);
                    // Only resources that score count towards the weights.
                    if score <= 0 {
                        continue;
                    }
                    score
                }
            };
            total += score * weight;
            weights += weight;
        }
        match (weights, cx.profile.strategy) {
            (0, _) => 0,
            // math.Round of the weighted mean.
            (_, ScoringStrategyType::RequestedToCapacityRatio) => {
                (total as f64 / weights as f64).round() as i64
            }
            _ => total / weights,
        }
    }

    fn describe_score(&self, cx: &Context, node: usize) -> String {
        let info = &cx.sched.nodes[node];
        format!(
            "{:?}: cpu {}m of {}m, memory {} of {} after placing (non-zero requests)",
            cx.profile.strategy,
            info.non_zero_requested.milli_cpu + cx.fit_score_requests.milli_cpu,
            info.allocatable.milli_cpu,
            format_bytes(info.non_zero_requested.memory + cx.fit_score_requests.memory),
            format_bytes(info.allocatable.memory)
        )
    }
}

/// Upstream's `scaledUtilization`: requested over capacity in percent, clamped to 0..=100,
/// without overflow.
fn scaled_utilization(requested: i64, capacity: i64) -> i64 {
    const MAX_UTILIZATION: i64 = 100;
    if capacity <= 0 || requested <= 0 {
        return 0;
    }
    if requested >= capacity {
        return MAX_UTILIZATION;
    }
    (i128::from(requested) * i128::from(MAX_UTILIZATION) / i128::from(capacity)) as i64
}

/// Upstream's `BuildBrokenLinearFunction`: the first point's score below it, the last's above
/// it, and linear between points.
fn broken_linear(shape: &[(i64, i64)], p: i64) -> i64 {
    for (i, &(utilization, score)) in shape.iter().enumerate() {
        if p <= utilization {
            if i == 0 {
                return score;
            }
            let (u0, s0) = shape[i - 1];
            return s0 + (score - s0) * (p - u0) / (utilization - u0);
        }
    }
    shape.last().map_or(0, |&(_, score)| score)
}

#[cfg(test)]
mod tests {
    use crate::tests::*;
    use crate::*;

    #[test]
    fn resources_fit_filter_reasons() {
        let cluster = format!(
            "{}{}{}",
            "apiVersion: v1\nkind: Node\nmetadata: {name: small}\nstatus: {allocatable: {cpu: \"1\", memory: 1Gi, pods: \"2\"}}\n---\n",
            "apiVersion: v1\nkind: Node\nmetadata: {name: gpu}\nstatus: {allocatable: {cpu: \"8\", memory: 32Gi, pods: \"110\", nvidia.com/gpu: \"4\"}}\n---\n",
            running("existing", "small", "app: x", "")
                + &running(
                    "existing2",
                    "gpu",
                    "app: x",
                    "  overhead: {nvidia.com/gpu: \"3\"}\n"
                )
        );
        let cases: &[(&str, &str, [&str; 2])] = &[
            (
                "fits",
                "spec:\n  containers: [{name: c, resources: {requests: {cpu: 500m}}}]\n",
                ["", ""],
            ),
            (
                "cpu and memory both short",
                "spec:\n  containers: [{name: c, resources: {requests: {cpu: \"2\", memory: 2Gi}}}]\n",
                ["Insufficient cpu; Insufficient memory", ""],
            ),
            (
                "init container is the peak",
                "spec:\n  initContainers: [{name: i, resources: {requests: {cpu: \"3\"}}}]\n  containers: [{name: c, resources: {requests: {cpu: 100m}}}]\n",
                ["Insufficient cpu", ""],
            ),
            (
                "extended resources",
                "spec:\n  containers: [{name: c, resources: {limits: {nvidia.com/gpu: \"2\"}}}]\n",
                ["Insufficient nvidia.com/gpu", "Insufficient nvidia.com/gpu"],
            ),
        ];
        for (name, spec, want) in cases {
            let decision = decide(&cluster, spec);
            let got = reasons(&decision);
            assert_eq!(got, want, "{name}");
        }
        let full = format!("{cluster}{}", running("third", "small", "app: y", ""));
        assert_eq!(
            decide(&full, "spec: {}\n").nodes[0].reasons,
            ["Too many pods"]
        );
    }

    #[test]
    fn resource_scores_least_allocated_and_balanced() {
        let cluster = nodes(&["zone: a", "zone: b"])
            + &running(
                "busy",
                "n2",
                "app: x",
                "  containers: [{name: c, resources: {requests: {cpu: \"2\", memory: 1Gi}}}]\n",
            );
        let decision = decide(
            &cluster,
            "spec:\n  containers: [{name: c, resources: {requests: {cpu: \"1\", memory: 2Gi}}}]\n",
        );
        // n1: cpu (4-1)/4 = 75, memory (8-2)/8 = 75 -> 75; balanced: |0.25 - 0.25| -> 100.
        // n2: cpu (4-3)/4 = 25, memory (8-3)/8 = 62 -> 43; balanced: |0.75 - 0.375|/2 -> 81.
        assert_eq!(scores(&decision, "NodeResourcesFit"), [75, 43]);
        assert_eq!(
            scores(&decision, "NodeResourcesBalancedAllocation"),
            [100, 81]
        );
        // Best-effort pods: non-zero defaults for the fit score, no balanced score at all.
        let best_effort = decide(&cluster, "spec:\n  containers: [{name: c}]\n");
        assert_eq!(
            scores(&best_effort, "NodeResourcesBalancedAllocation"),
            [0, 0]
        );
        // n1: cpu (4000-100)/4000 = 97, memory (8192-200)/8192 = 97.
        // n2: cpu (4000-2100)/4000 = 47, memory (8192-1224)/8192 = 85 -> 66.
        assert_eq!(scores(&best_effort, "NodeResourcesFit"), [97, 66]);
    }

    /// Upstream fit_test.go / balanced_allocation_test.go with pod-level resources (v1.34, on by
    /// default): the filter and the node's ledger read `spec.resources`, BalancedAllocation reads
    /// it, NodeResourcesFit's score does not (its scorer is built without the feature).
    #[test]
    fn pod_level_resources_where_upstream_reads_them() {
        let pod_level = "  resources: {requests: {cpu: \"3\", memory: 1Gi}}\n";
        let cluster = nodes(&["zone: a", "zone: b"])
            + &running(
                "pod-level",
                "n2",
                "app: x",
                &format!(
                    "  containers: [{{name: c, resources: {{requests: {{cpu: 500m}}}}}}]\n{pod_level}"
                ),
            );
        let cases: &[(&str, String, [&str; 2])] = &[
            (
                "pod-level requests replace the containers' sum in the filter",
                "spec:\n  containers: [{name: c, resources: {requests: {cpu: 100m}}}]\n  resources: {requests: {cpu: \"4500m\"}}\n".into(),
                ["Insufficient cpu", "Insufficient cpu"],
            ),
            (
                "an existing pod holds its pod-level requests (3 of 4 CPUs)",
                "spec:\n  containers: [{name: c, resources: {requests: {cpu: \"2\"}}}]\n".into(),
                ["", "Insufficient cpu"],
            ),
            (
                "overhead is added to pod-level requests",
                "spec:\n  containers: [{name: c}]\n  resources: {requests: {cpu: \"3900m\"}}\n  overhead: {cpu: 200m}\n".into(),
                ["Insufficient cpu", "Insufficient cpu"],
            ),
            (
                "pod-level limits stand for requests when no container sets the resource",
                "spec:\n  containers: [{name: c}]\n  resources: {limits: {cpu: \"5\"}}\n".into(),
                ["Insufficient cpu", "Insufficient cpu"],
            ),
            (
                "a container's own request wins over a pod-level limit",
                "spec:\n  containers: [{name: c, resources: {requests: {cpu: \"1500m\"}}}]\n  resources: {limits: {cpu: \"5\"}}\n".into(),
                ["", "Insufficient cpu"],
            ),
        ];
        for (name, spec, want) in cases {
            let got = reasons(&decide(&cluster, spec));
            assert_eq!(got, want, "{name}");
        }
        let empty = nodes(&["zone: a"]);
        let decision = decide(
            &empty,
            "spec:\n  containers: [{name: c}]\n  resources: {requests: {cpu: \"2\", memory: 4Gi}}\n",
        );
        // Fit scores the containers' non-zero defaults: cpu (4000-100)/4000 = 97, memory
        // (8192-200)/8192 = 97. Balanced reads the pod level: 0.5 and 0.5 -> 100 (the
        // containers alone would make it a best-effort pod, scored 0).
        assert_eq!(scores(&decision, "NodeResourcesFit"), [97]);
        assert_eq!(scores(&decision, "NodeResourcesBalancedAllocation"), [100]);
    }

    #[test]
    fn most_allocated_profile_packs() {
        let state = state(
            &(nodes(&["zone: a", "zone: b"])
                + &running(
                    "busy",
                    "n2",
                    "app: x",
                    "  containers: [{name: c, resources: {requests: {cpu: \"2\", memory: 4Gi}}}]\n",
                )),
        );
        let profile = Profile {
            strategy: profile::ScoringStrategyType::MostAllocated,
            ..Profile::default()
        };
        let decision = Scheduler::new(&state, profile).decide(&pod(
            "spec:\n  containers: [{name: c, resources: {requests: {cpu: \"1\", memory: 2Gi}}}]\n",
        ));
        assert_eq!(scores(&decision, "NodeResourcesFit"), [25, 75]);
        assert_eq!(decision.selected.as_deref(), Some("n2"));
    }
}
