//! Checks that run outside the scheduler but on the same filters: the kubelet's admission of a
//! pod that arrives with `spec.nodeName` already set (it is never scheduled), and the DaemonSet
//! controller's choice of the nodes that should run a daemon pod.

use super::plugins::taint_toleration::{tolerates, untolerated_taint};
use super::{FilterOutcome, Scheduler};
use df_model::{Node, Pod};

/// The kubelet's reason for an untolerated `NoExecute` taint (upstream reuses the
/// TaintToleration plugin's `ErrReasonNotMatch`).
pub(crate) const REASON_KUBELET_TAINT: &str = "node(s) had taints that the pod didn't tolerate";

/// The filters the kubelet runs again at admission, in upstream `AdmissionCheck`'s order:
/// resources and pod count, required node affinity and nodeSelector, node name, host ports.
const KUBELET_FILTERS: [&str; 4] = ["NodeResourcesFit", "NodeAffinity", "NodeName", "NodePorts"];

impl Scheduler<'_> {
    /// Every filter's verdict for `pod` on node `index`, without stopping at the first failure.
    fn all_filters(&self, pod: &Pod, index: usize) -> Vec<FilterOutcome> {
        let name = &self.state.nodes[index].metadata.name;
        self.decide_explained(pod, Some(&[index]), name)
            .map(|(_, detail)| detail.filters)
            .unwrap_or_default()
    }

    /// Whether the kubelet of `pod.spec.nodeName` admits the pod: upstream's `AdmissionCheck`
    /// (every failure, not only the first) plus untolerated `NoExecute` taints; the kubelet does
    /// not look at `NoSchedule` taints or at `spec.unschedulable`. `Err` holds the reasons, or
    /// says that the node does not exist (the pod would stay Pending, bound to nothing).
    pub fn admit(&self, pod: &Pod) -> Result<(), Vec<String>> {
        let verdict = self.kubelet_verdict(pod);
        self.record_admission(pod, &verdict);
        verdict
    }

    fn kubelet_verdict(&self, pod: &Pod) -> Result<(), Vec<String>> {
        let name = &pod.spec.node_name;
        let Some(index) = self.state.node_index(name) else {
            return Err(vec![format!("node {name:?} does not exist")]);
        };
        let outcomes = self.all_filters(pod, index);
        let mut reasons: Vec<String> = KUBELET_FILTERS
            .iter()
            .filter_map(|plugin| outcomes.iter().find(|f| f.plugin == *plugin))
            .flat_map(|f| f.reasons.iter().cloned())
            .collect();
        let node = &self.state.nodes[index];
        let no_execute = node.spec.taints.iter().any(|taint| {
            taint.effect == "NoExecute" && !pod.spec.tolerations.iter().any(|t| tolerates(t, taint))
        });
        if no_execute {
            reasons.push(REASON_KUBELET_TAINT.to_string());
        }
        if reasons.is_empty() {
            Ok(())
        } else {
            Err(reasons)
        }
    }

    /// The DaemonSet controller's `predicates`: the daemon pod (with the controller's
    /// tolerations already added) should run on `node` when its node name, required node
    /// affinity and nodeSelector match and no `NoSchedule`/`NoExecute` taint is untolerated.
    pub fn daemon_should_run(&self, pod: &Pod, node: &Node) -> bool {
        let Some(index) = self.state.node_index(&node.metadata.name) else {
            return false;
        };
        let affinity_and_name = self
            .all_filters(pod, index)
            .into_iter()
            .filter(|f| matches!(f.plugin, "NodeName" | "NodeAffinity"))
            .all(|f| f.passed);
        affinity_and_name && untolerated_taint(node, &pod.spec.tolerations).is_none()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::Profile;
    use df_model::Object;
    use df_state::ClusterState;

    fn objects(yaml: &str) -> Vec<Object> {
        let (manifests, problems) = df_manifest::parse_text(&Arc::from("t.yaml"), yaml);
        assert!(problems.is_empty(), "{problems:?}");
        manifests.into_iter().map(|m| m.object).collect()
    }

    const NODES: &str = "\
apiVersion: v1
kind: Node
metadata: {name: cordoned, labels: {disk: ssd}}
spec:
  unschedulable: true
  taints: [{key: dedicated, effect: NoSchedule}]
status: {allocatable: {cpu: \"2\", pods: \"110\"}}
---
apiVersion: v1
kind: Node
metadata: {name: evicting, labels: {disk: ssd}}
spec:
  taints: [{key: maintenance, effect: NoExecute}]
status: {allocatable: {cpu: \"2\", pods: \"110\"}}
---
apiVersion: v1
kind: Pod
metadata: {name: busy, namespace: default}
spec:
  nodeName: evicting
  containers: [{name: c, resources: {requests: {cpu: \"1500m\"}}}]
";

    #[test]
    fn the_kubelet_admits_by_its_own_checks_not_the_schedulers() {
        let state = ClusterState::from_objects(objects(NODES));
        let sched = Scheduler::new(&state, Profile::default());
        // (node, extra spec lines, cpu, reasons: none when admitted)
        let cases: [(&str, &str, &str, &[&str]); 6] = [
            ("cordoned", "", "1", &[]),
            ("evicting", "", "100m", &[REASON_KUBELET_TAINT]),
            (
                "evicting",
                "  tolerations: [{key: maintenance, operator: Exists, effect: NoExecute}]\n",
                "100m",
                &[],
            ),
            (
                "evicting",
                "  tolerations: [{operator: Exists}]\n",
                "1",
                &["Insufficient cpu"],
            ),
            (
                "cordoned",
                "  nodeSelector: {disk: hdd}\n",
                "3",
                &[
                    "Insufficient cpu",
                    "node(s) didn't match Pod's node affinity/selector",
                ],
            ),
            ("gone", "", "1", &["node \"gone\" does not exist"]),
        ];
        for (node, extra, cpu, reasons) in cases {
            let pod = match objects(&format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: default}}\nspec:\n  nodeName: {node}\n{extra}  containers: [{{name: c, resources: {{requests: {{cpu: \"{cpu}\"}}}}}}]\n"
            ))
            .pop()
            {
                Some(Object::Pod(pod)) => pod,
                other => panic!("{other:?}"),
            };
            let expected = match reasons {
                [] => Ok(()),
                _ => Err(reasons.iter().map(|s| s.to_string()).collect()),
            };
            assert_eq!(sched.admit(&pod), expected, "{node} {extra} {cpu}");
        }
    }
}
