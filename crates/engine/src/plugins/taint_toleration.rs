//! TaintToleration: NoSchedule/NoExecute taints must be tolerated (Filter); fewer untolerated
//! PreferNoSchedule taints score higher (Score, reversed by NormalizeScore).

use crate::framework::{
    Code, Context, Filter, PreFilter, PreScore, Score, Status, default_normalize,
};
use df_model::{Node, Taint, Toleration};

pub const REASON: &str = "node(s) had untolerated taint(s)";

pub(crate) struct TaintToleration;

impl PreFilter for TaintToleration {
    fn pre_filter(_: &Context) -> Self {
        TaintToleration
    }
}

impl Filter for TaintToleration {
    fn filter(&self, cx: &Context, node: usize) -> Status {
        match untolerated_taint(cx.node(node), &cx.pod.spec.tolerations) {
            Some(taint) if cx.profile.version.taint_reason_names_the_taint() => {
                let reason = format!(
                    "node(s) had untolerated taint {{{}: {}}}",
                    taint.key, taint.value
                );
                Status::new(Code::UnschedulableAndUnresolvable, &reason)
            }
            Some(_) => Status::new(Code::UnschedulableAndUnresolvable, REASON),
            None => Status::success(),
        }
    }

    fn describe_filter(&self, cx: &Context, node: usize) -> String {
        let node = cx.node(node);
        match untolerated_taint(node, &cx.pod.spec.tolerations) {
            Some(t) => format!("untolerated taint {}={}:{}", t.key, t.value, t.effect),
            None => format!(
                "{} taint(s), all NoSchedule/NoExecute ones tolerated",
                node.spec.taints.len()
            ),
        }
    }
}

/// PreScore: the pod's tolerations that can cover a PreferNoSchedule taint.
pub(crate) struct PreferNoScheduleTolerations(Vec<Toleration>);

impl PreScore for PreferNoScheduleTolerations {
    fn pre_score(cx: &Context, _: &[usize]) -> Self {
        PreferNoScheduleTolerations(
            cx.pod
                .spec
                .tolerations
                .iter()
                .filter(|t| t.effect.is_empty() || t.effect == "PreferNoSchedule")
                .cloned()
                .collect(),
        )
    }
}

impl PreferNoScheduleTolerations {
    fn intolerable(&self, node: &Node) -> i64 {
        node.spec
            .taints
            .iter()
            .filter(|t| t.effect == "PreferNoSchedule")
            .filter(|t| !self.0.iter().any(|tol| tolerates(tol, t)))
            .count() as i64
    }
}

impl Score for PreferNoScheduleTolerations {
    fn score(&self, cx: &Context, node: usize) -> i64 {
        self.intolerable(cx.node(node))
    }

    fn normalize(&self, scores: &mut [(usize, i64)]) {
        default_normalize(scores, true);
    }

    fn describe_score(&self, cx: &Context, node: usize) -> String {
        format!(
            "{} untolerated PreferNoSchedule taint(s)",
            self.intolerable(cx.node(node))
        )
    }
}

/// Upstream's ToleratesTaint.
pub fn tolerates(toleration: &Toleration, taint: &Taint) -> bool {
    if !toleration.effect.is_empty() && toleration.effect != taint.effect {
        return false;
    }
    if !toleration.key.is_empty() && toleration.key != taint.key {
        return false;
    }
    match toleration.operator.as_str() {
        "" | "Equal" => toleration.value == taint.value,
        "Exists" => true,
        _ => false,
    }
}

/// The first NoSchedule/NoExecute taint no toleration covers.
pub fn untolerated_taint<'n>(node: &'n Node, tolerations: &[Toleration]) -> Option<&'n Taint> {
    node.spec.taints.iter().find(|taint| {
        matches!(taint.effect.as_str(), "NoSchedule" | "NoExecute")
            && !tolerations.iter().any(|t| tolerates(t, taint))
    })
}

#[cfg(test)]
mod tests {
    use crate::tests::*;

    #[test]
    fn taint_toleration_filter_and_score() {
        let cluster = "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: n1}, spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}}\n- {apiVersion: v1, kind: Node, metadata: {name: n2}, spec: {taints: [{key: a, effect: PreferNoSchedule}, {key: b, effect: PreferNoSchedule}]}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}}\n- {apiVersion: v1, kind: Node, metadata: {name: n3}, spec: {taints: [{key: a, effect: PreferNoSchedule}]}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}}\n- {apiVersion: v1, kind: Node, metadata: {name: n4}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}}\n";
        let untolerated = "node(s) had untolerated taint(s)";
        let cases: &[(&str, &str, &str)] = &[
            ("no tolerations", "spec: {}\n", untolerated),
            (
                "Equal with the right value",
                "spec:\n  tolerations: [{key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}]\n",
                "",
            ),
            (
                "Equal with another value",
                "spec:\n  tolerations: [{key: dedicated, value: cpu}]\n",
                untolerated,
            ),
            (
                "Exists on the key",
                "spec:\n  tolerations: [{key: dedicated, operator: Exists}]\n",
                "",
            ),
            (
                "Exists without a key tolerates everything",
                "spec:\n  tolerations: [{operator: Exists}]\n",
                "",
            ),
            (
                "wrong effect",
                "spec:\n  tolerations: [{key: dedicated, operator: Exists, effect: NoExecute}]\n",
                untolerated,
            ),
        ];
        for (name, spec, want) in cases {
            let decision = decide(cluster, spec);
            assert_eq!(decision.nodes[0].reasons.join(""), *want, "{name}");
            assert!(
                decision.nodes[1..].iter().all(|v| v.feasible),
                "{name}: PreferNoSchedule never filters"
            );
        }
        // Two, one and zero untolerated PreferNoSchedule taints, reversed: 0, 50, 100.
        assert_eq!(
            scores(&decide(cluster, "spec: {}\n"), "TaintToleration"),
            [0, 50, 100]
        );
        let tolerate_a = decide(
            cluster,
            "spec:\n  tolerations: [{key: a, operator: Exists, effect: PreferNoSchedule}]\n",
        );
        assert_eq!(scores(&tolerate_a, "TaintToleration"), [0, 100, 100]);
    }

    /// Before 1.34 the reason names the first untolerated taint (taint_toleration.go's
    /// `node(s) had untolerated taint {%s: %s}`); the summary counts nodes per reason, so two
    /// nodes with different taints are two reasons there.
    #[test]
    fn before_1_34_the_reason_names_the_taint() {
        let cluster = "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: n1}, spec: {taints: [{key: dedicated, value: gpu, effect: NoSchedule}]}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}}\n- {apiVersion: v1, kind: Node, metadata: {name: n2}, spec: {taints: [{key: spot, effect: NoExecute}]}, status: {allocatable: {cpu: \"4\", memory: 8Gi, pods: \"110\"}}}\n";
        let cases = [
            (
                33,
                "0/2 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 1 node(s) had untolerated taint {spot: }.",
            ),
            (
                34,
                "0/2 nodes are available: 2 node(s) had untolerated taint(s).",
            ),
        ];
        for (minor, summary) in cases {
            let decision = decide_on(minor, cluster, "spec: {}\n");
            assert_eq!(decision.summary.as_deref(), Some(summary), "1.{minor}");
        }
    }
}
