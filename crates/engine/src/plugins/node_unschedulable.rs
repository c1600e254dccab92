//! NodeUnschedulable: a cordoned node takes only pods that tolerate its unschedulable taint.

use super::taint_toleration::tolerates;
use crate::framework::{Code, Context, Filter, PreFilter, Status};
use df_model::Taint;

pub const REASON: &str = "node(s) were unschedulable";

pub(crate) struct NodeUnschedulable;

impl PreFilter for NodeUnschedulable {
    fn pre_filter(_: &Context) -> Self {
        NodeUnschedulable
    }
}

impl Filter for NodeUnschedulable {
    fn filter(&self, cx: &Context, node: usize) -> Status {
        let unschedulable_taint = Taint {
            key: "node.kubernetes.io/unschedulable".into(),
            value: String::new(),
            effect: "NoSchedule".into(),
        };
        let tolerated = cx
            .pod
            .spec
            .tolerations
            .iter()
            .any(|t| tolerates(t, &unschedulable_taint));
        if cx.node(node).spec.unschedulable && !tolerated {
            Status::new(Code::UnschedulableAndUnresolvable, REASON)
        } else {
            Status::success()
        }
    }

    fn describe_filter(&self, cx: &Context, node: usize) -> String {
        format!("node unschedulable: {}", cx.node(node).spec.unschedulable)
    }
}

#[cfg(test)]
mod tests {
    use crate::tests::*;

    /// Upstream node_unschedulable_test.go: a cordoned node takes only pods tolerating
    /// `node.kubernetes.io/unschedulable:NoSchedule`.
    #[test]
    fn cordoned_nodes_need_the_toleration() {
        let cluster = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec: {unschedulable: true}\nstatus: {allocatable: {cpu: \"1\", memory: 1Gi, pods: \"10\"}}\n";
        let cases: &[(&str, &str, &str)] = &[
            (
                "no toleration",
                "spec: {}\n",
                "n1: node(s) were unschedulable",
            ),
            (
                "exact toleration",
                "spec:\n  tolerations: [{key: node.kubernetes.io/unschedulable, operator: Exists, effect: NoSchedule}]\n",
                "n1",
            ),
            (
                "tolerate everything",
                "spec:\n  tolerations: [{operator: Exists}]\n",
                "n1",
            ),
            (
                "wrong effect",
                "spec:\n  tolerations: [{key: node.kubernetes.io/unschedulable, operator: Exists, effect: NoExecute}]\n",
                "n1: node(s) were unschedulable",
            ),
        ];
        for (name, spec, want) in cases {
            assert_eq!(verdicts(&decide(cluster, spec)), [*want], "{name}");
        }
    }
}
