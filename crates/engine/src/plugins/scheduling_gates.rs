//! SchedulingGates: a pod with scheduling gates never enters the scheduling queue (PreEnqueue),
//! so no cycle runs for it, it holds no node and nothing preempts for it, until every gate is
//! removed. Upstream's status is UnschedulableAndUnresolvable `waiting for scheduling gates:
//! [g1 g2]` (Go's `%v` of the gate names); it reaches no event, only the scheduler's log.

use df_model::Pod;

/// The gates that hold a pod (each removed by the controller that set it), with the system that
/// removes it when this tool knows it.
pub(crate) const KNOWN_GATES: &[(&str, &str)] = &[
    (
        "kueue.x-k8s.io/admission",
        "Kueue, when it admits the pod's workload",
    ),
    (
        "kueue.x-k8s.io/topology",
        "Kueue, when Topology Aware Scheduling has assigned the pod's domain",
    ),
    (
        "kueue.x-k8s.io/elastic-job",
        "Kueue, when the elastic job's scale-up is admitted",
    ),
];

/// The plugin's name in a profile.
pub(crate) const NAME: &str = "SchedulingGates";

/// PreEnqueue: upstream's message when `pod` has gates, `None` when it may be scheduled.
pub(crate) fn pre_enqueue(pod: &Pod) -> Option<String> {
    let gates = &pod.spec.scheduling_gates;
    (!gates.is_empty()).then(|| {
        let names: Vec<&str> = gates.iter().map(|g| g.name.as_str()).collect();
        format!("waiting for scheduling gates: [{}]", names.join(" "))
    })
}

/// Who removes `gate`, when it is one of [`KNOWN_GATES`].
pub fn gate_owner(gate: &str) -> Option<&'static str> {
    KNOWN_GATES
        .iter()
        .find(|(name, _)| *name == gate)
        .map(|(_, owner)| *owner)
}

#[cfg(test)]
mod tests {
    use crate::tests::*;

    /// Upstream scheduling_gates_test.go: no gates enqueue the pod; any gate holds it with the
    /// gate names in order, space separated, in brackets.
    #[test]
    fn gated_pods_wait_and_hold_nothing() {
        let cluster = nodes(&["zone: a"]);
        let cases: &[(&str, &str, Option<&str>)] = &[
            ("no gates", "spec: {}\n", None),
            (
                "one gate",
                "spec:\n  schedulingGates: [{name: example.com/quota}]\n",
                Some("waiting for scheduling gates: [example.com/quota]"),
            ),
            (
                "two gates, in their order",
                "spec:\n  schedulingGates: [{name: kueue.x-k8s.io/admission}, {name: b}]\n",
                Some("waiting for scheduling gates: [kueue.x-k8s.io/admission b]"),
            ),
        ];
        for (name, spec, want) in cases {
            let decision = decide(&cluster, spec);
            assert_eq!(decision.summary.as_deref(), *want, "{name}");
            // A gated pod runs no cycle: no node is looked at, none is chosen.
            assert_eq!(decision.selected.is_none(), want.is_some(), "{name}");
            assert_eq!(decision.nodes.is_empty(), want.is_some(), "{name}");
        }
        assert_eq!(
            super::gate_owner("kueue.x-k8s.io/admission"),
            Some("Kueue, when it admits the pod's workload")
        );
        assert_eq!(super::gate_owner("example.com/quota"), None);
    }
}
