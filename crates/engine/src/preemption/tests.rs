//! The behaviour of upstream's `default_preemption_test.go` (PostFilter messages, victim
//! selection with PodDisruptionBudgets, the node ordering rules), in our own cases and data,
//! plus a property test that every victim set is minimal.

use std::sync::Arc;

use proptest::prelude::*;

use super::*;
use crate::Profile;
use df_model::Object;
use df_state::ClusterState;

fn objects(yaml: &str) -> Vec<Object> {
    let (manifests, problems) = df_manifest::parse_text(&Arc::from("t.yaml"), yaml);
    assert!(problems.is_empty(), "{problems:?}");
    manifests.into_iter().map(|m| m.object).collect()
}

/// A node with `cpu` CPUs (and room for `pods` pods), optionally tainted so filters reject it
/// as unresolvable.
fn node(name: &str, cpu: &str, pods: u32, extra: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}\n{extra}status:\n  allocatable: {{cpu: \"{cpu}\", memory: 8Gi, pods: \"{pods}\"}}\n---\n"
    )
}

/// A running pod on `node` requesting `cpu`, with an admitted priority and optional start time
/// and labels.
fn running(name: &str, node: &str, cpu: &str, priority: i32, start: &str, labels: &str) -> String {
    let start = if start.is_empty() {
        String::new()
    } else {
        format!("  startTime: \"{start}\"\n")
    };
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default, labels: {{{labels}}}}}\nspec:\n  nodeName: {node}\n  priority: {priority}\n  containers: [{{name: c, resources: {{requests: {{cpu: \"{cpu}\"}}}}}}]\nstatus:\n  phase: Running\n{start}---\n"
    )
}

fn budget(name: &str, app: &str, allowed: i32, disrupted: &[&str]) -> String {
    let disrupted: String = disrupted
        .iter()
        .map(|p| format!("{p}: \"2024-01-01T00:00:00Z\", "))
        .collect();
    format!(
        "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {{name: {name}, namespace: default}}\nspec:\n  selector: {{matchLabels: {{app: {app}}}}}\nstatus:\n  disruptionsAllowed: {allowed}\n  disruptedPods: {{{disrupted}}}\n---\n"
    )
}

fn incoming(cpu: &str, extra: &str) -> Pod {
    let text = format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: incoming, namespace: default}}\nspec:\n  containers: [{{name: c, resources: {{requests: {{cpu: \"{cpu}\"}}}}}}]\n{extra}"
    );
    match objects(&text).pop() {
        Some(Object::Pod(p)) => p,
        other => panic!("{other:?}"),
    }
}

const CLASSES: &str = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n---\napiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high-never}\nvalue: 1000\npreemptionPolicy: Never\n---\n";

/// Decide and preempt; the nominated node, its victims, and the summary.
fn preview(state_yaml: &str, pod: &Pod) -> (Preemption, Option<String>) {
    let state = ClusterState::from_objects(objects(&format!("{CLASSES}{state_yaml}")));
    let mut sched = Scheduler::new(&state, Profile::default());
    let mut decision = sched.decide(pod);
    let preemption = sched.preempt(pod, &mut decision).expect("no node fits");
    (preemption, decision.summary)
}

fn victim_names(victims: &[Victim]) -> Vec<String> {
    victims.iter().map(|v| v.name.clone()).collect()
}

/// (case, state, incoming pod, nominated node, victims, summary)
type PostFilterCase = (
    &'static str,
    String,
    Pod,
    Option<&'static str>,
    Vec<&'static str>,
    Option<&'static str>,
);
/// (case, state, victims with their budget verdict, budget violations)
type BudgetCase = (&'static str, String, Vec<(&'static str, bool)>, usize);
/// (case, state, incoming CPU, nominated node, (node, the rule it lost on))
type PickCase = (
    &'static str,
    String,
    &'static str,
    &'static str,
    Vec<(&'static str, &'static str)>,
);

#[test]
fn post_filter_nominates_or_says_why_not() {
    let high = "  priorityClassName: high\n";
    let cases: Vec<PostFilterCase> = vec![
        (
            "a higher-priority pod is made schedulable",
            node("n1", "2", 110, "") + &running("low", "n1", "2", 0, "", ""),
            incoming("1", high),
            Some("n1"),
            vec!["low"],
            Some("0/1 nodes are available: 1 Insufficient cpu."),
        ),
        (
            "equal priority is never a victim",
            node("n1", "2", 110, "") + &running("peer", "n1", "2", 1000, "", ""),
            incoming("1", high),
            None,
            vec![],
            Some(
                "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
            ),
        ),
        (
            "unresolvable nodes are not candidates",
            node(
                "n1",
                "2",
                110,
                "spec:\n  taints: [{key: k, effect: NoSchedule}]\n",
            ) + &running("low", "n1", "2", 0, "", ""),
            incoming("1", high),
            None,
            vec![],
            Some(
                "0/1 nodes are available: 1 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
            ),
        ),
        (
            "not enough cpu even without the lower-priority pods",
            node("n1", "4", 110, "")
                + &node("n2", "4", 110, "")
                + &running("peer-1", "n1", "2", 5000, "", "")
                + &running("low-1", "n1", "1", 0, "", "")
                + &running("peer-2", "n2", "2", 5000, "", "")
                + &running("low-2", "n2", "1", 0, "", ""),
            incoming("3", high),
            None,
            vec![],
            Some(
                "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: 0/2 nodes are available: 2 Insufficient cpu.",
            ),
        ),
        (
            "a request larger than the node's allocatable is unresolvable",
            node("n1", "2", 110, "") + &running("low", "n1", "1", 0, "", ""),
            incoming("3", high),
            None,
            vec![],
            Some(
                "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.",
            ),
        ),
        (
            "mixed reasons: no victims on one node, not enough cpu on the other",
            node("n1", "2", 110, "")
                + &node("n2", "2", 110, "")
                + &running("peer", "n1", "2", 1000, "", "")
                + &running("peer-2", "n2", "1", 5000, "", "")
                + &running("low", "n2", "1", 0, "", ""),
            incoming("2", high),
            None,
            vec![],
            Some(
                "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: 0/2 nodes are available: 1 Insufficient cpu, 1 No preemption victims found for incoming pod.",
            ),
        ),
        (
            "mixed: two unresolvable nodes and two without enough cpu",
            node("n1", "2", 110, "spec:\n  unschedulable: true\n")
                + &node("n2", "2", 110, "spec:\n  unschedulable: true\n")
                + &node("n3", "2", 110, "")
                + &node("n4", "2", 110, "")
                + &running("peer-3", "n3", "1", 5000, "", "")
                + &running("low-3", "n3", "1", 0, "", "")
                + &running("peer-4", "n4", "1", 5000, "", "")
                + &running("low-4", "n4", "1", 0, "", ""),
            incoming("2", high),
            None,
            vec![],
            Some(
                "0/4 nodes are available: 2 Insufficient cpu, 2 node(s) were unschedulable. no new claims to deallocate, preemption: 0/4 nodes are available: 2 Insufficient cpu, 2 Preemption is not helpful for scheduling.",
            ),
        ),
        (
            "preemptionPolicy Never from the class",
            node("n1", "2", 110, "") + &running("low", "n1", "2", 0, "", ""),
            incoming("1", "  priorityClassName: high-never\n"),
            None,
            vec![],
            Some(
                "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never.",
            ),
        ),
        (
            "a too-many-pods node frees a slot",
            node("n1", "4", 1, "") + &running("low", "n1", "100m", 0, "", ""),
            incoming("1", high),
            Some("n1"),
            vec!["low"],
            Some("0/1 nodes are available: 1 Too many pods."),
        ),
    ];
    for (name, state, pod, node, victims, summary) in cases {
        let (preemption, got_summary) = preview(&state, &pod);
        assert_eq!(preemption.node.as_deref(), node, "{name}");
        assert_eq!(victim_names(&preemption.victims), victims, "{name}");
        assert_eq!(got_summary.as_deref(), summary, "{name}");
    }
}

/// A running pod (as [`running`]) that is being deleted, with `conditions` as its
/// `status.conditions`.
fn terminating(name: &str, node: &str, cpu: &str, priority: i32, conditions: &str) -> String {
    running(name, node, cpu, priority, "", "")
        .replace(
            "namespace: default,",
            "namespace: default, deletionTimestamp: \"2024-05-01T10:00:00Z\",",
        )
        .replace(
            "  phase: Running\n",
            &format!("  phase: Running\n  conditions: {conditions}\n"),
        )
}

/// Upstream's `PodEligibleToPreemptOthers` rows (default_preemption_test.go): a pod that
/// already preempted waits while a lower-priority victim of the scheduler's preemption is
/// terminating on its nominated node. Two 1-CPU nodes, each full; `high` (priority 1000) asks
/// for 1 CPU, so both nodes fail with Insufficient cpu (resolvable) unless tainted.
#[test]
fn a_pod_waits_for_the_victims_terminating_on_its_nominated_node() {
    let preempted = "[{type: DisruptionTarget, status: \"True\", reason: PreemptionByScheduler}]";
    let nominated =
        |node: &str| format!("  priorityClassName: high\nstatus: {{nominatedNodeName: {node}}}\n");
    let nodes = node("n1", "1", 110, "") + &node("n2", "1", 110, "");
    // n2's pod outranks every n1 victim, so when preemption runs it picks n1 by "a lower
    // highest victim priority" rather than by node order.
    let n2 = running("mid", "n2", "1", 500, "", "");
    let waits = Some(
        "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: not eligible due to a terminating pod on the nominated node.",
    );
    let resolved = Some("0/2 nodes are available: 2 Insufficient cpu.");
    let cases: Vec<PostFilterCase> = vec![
        (
            "a lower-priority victim of preemption is terminating on the nominated node",
            nodes.clone() + &terminating("leaving", "n1", "1", 10, preempted) + &n2,
            incoming("1", &nominated("n1")),
            None,
            vec![],
            waits,
        ),
        (
            "terminating without the DisruptionTarget condition: preempts again",
            nodes.clone()
                + &terminating(
                    "leaving",
                    "n1",
                    "1",
                    10,
                    "[{type: Ready, status: \"False\"}]",
                )
                + &n2,
            incoming("1", &nominated("n1")),
            Some("n1"),
            vec!["leaving"],
            resolved,
        ),
        (
            "a DisruptionTarget condition that is not the scheduler's preemption",
            nodes.clone()
                + &terminating(
                    "leaving",
                    "n1",
                    "1",
                    10,
                    "[{type: DisruptionTarget, status: \"True\", reason: EvictionByEvictionAPI}]",
                )
                + &n2,
            incoming("1", &nominated("n1")),
            Some("n1"),
            vec!["leaving"],
            resolved,
        ),
        (
            "only the first DisruptionTarget condition counts",
            nodes.clone()
                + &terminating(
                    "leaving",
                    "n1",
                    "1",
                    10,
                    "[{type: DisruptionTarget, status: \"False\"}, {type: DisruptionTarget, status: \"True\", reason: PreemptionByScheduler}]",
                )
                + &n2,
            incoming("1", &nominated("n1")),
            Some("n1"),
            vec!["leaving"],
            resolved,
        ),
        (
            "the condition without a deletionTimestamp is no terminating pod",
            nodes.clone()
                + &running("leaving", "n1", "1", 10, "", "").replace(
                    "  phase: Running\n",
                    &format!("  phase: Running\n  conditions: {preempted}\n"),
                )
                + &n2,
            incoming("1", &nominated("n1")),
            Some("n1"),
            vec!["leaving"],
            resolved,
        ),
        (
            "the terminating pod outranks the preemptor: no reason to wait",
            nodes.clone() + &terminating("leaving", "n1", "1", 2000, preempted) + &n2,
            incoming("1", &nominated("n1")),
            Some("n2"),
            vec!["mid"],
            resolved,
        ),
        (
            "the nominated node is now unresolvable (an untolerated taint): preempts elsewhere",
            node(
                "n1",
                "1",
                110,
                "spec:\n  taints: [{key: k, effect: NoSchedule}]\n",
            ) + &node("n2", "1", 110, "")
                + &terminating("leaving", "n1", "1", 10, preempted)
                + &n2,
            incoming("1", &nominated("n1")),
            Some("n2"),
            vec!["mid"],
            Some(
                "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s).",
            ),
        ),
        (
            "the terminating victim is on another node than the nominated one",
            nodes.clone()
                + &running("low", "n1", "1", 10, "", "")
                + &terminating("leaving", "n2", "1", 500, preempted),
            incoming("1", &nominated("n1")),
            Some("n1"),
            vec!["low"],
            resolved,
        ),
        (
            "no nominated node: terminating pods anywhere are victims like any other",
            nodes.clone() + &terminating("leaving", "n1", "1", 10, preempted) + &n2,
            incoming("1", "  priorityClassName: high\n"),
            Some("n1"),
            vec!["leaving"],
            resolved,
        ),
        (
            "a nominated node the state lacks",
            nodes.clone() + &terminating("leaving", "n1", "1", 10, preempted) + &n2,
            incoming("1", &nominated("gone")),
            Some("n1"),
            vec!["leaving"],
            resolved,
        ),
        (
            "preemptionPolicy Never is checked first",
            nodes.clone() + &terminating("leaving", "n1", "1", 10, preempted) + &n2,
            incoming(
                "1",
                "  priorityClassName: high-never\nstatus: {nominatedNodeName: n1}\n",
            ),
            None,
            vec![],
            Some(
                "0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never.",
            ),
        ),
    ];
    for (name, state, pod, node, victims, summary) in cases {
        let (preemption, got_summary) = preview(&state, &pod);
        assert_eq!(preemption.node.as_deref(), node, "{name}");
        assert_eq!(victim_names(&preemption.victims), victims, "{name}");
        assert_eq!(got_summary.as_deref(), summary, "{name}");
    }
}

#[test]
fn select_victims_reprieves_the_most_important_first() {
    let high = "  priorityClassName: high\n";
    let cases: Vec<(&str, String, Pod, Vec<&str>)> = vec![
        (
            "the medium pod goes, the small low one stays",
            node("n1", "4", 110, "")
                + &running("low-small", "n1", "1", 10, "", "")
                + &running("medium", "n1", "3", 100, "", ""),
            incoming("2", high),
            vec!["medium"],
        ),
        (
            "a reprieved important pod leaves the less important ones as victims",
            node("n1", "4", 110, "")
                + &running("low-small", "n1", "1", 10, "", "")
                + &running("medium", "n1", "2", 100, "", "")
                + &running("mid-small", "n1", "1", 50, "", ""),
            incoming("2", high),
            vec!["mid-small", "low-small"],
        ),
        (
            "equal priority: the later-started pod is evicted",
            node("n1", "2", 110, "")
                + &running("early", "n1", "1", 10, "2024-01-01T00:00:00Z", "")
                + &running("late", "n1", "1", 10, "2024-06-01T00:00:00Z", ""),
            incoming("1", high),
            vec!["late"],
        ),
        (
            "a pod without a start time counts as started now",
            node("n1", "2", 110, "")
                + &running("pending-start", "n1", "1", 10, "", "")
                + &running("started", "n1", "1", 10, "2024-06-01T00:00:00Z", ""),
            incoming("1", high),
            vec!["pending-start"],
        ),
        (
            "victims are listed most important first",
            node("n1", "3", 110, "")
                + &running("a", "n1", "1", 5, "", "")
                + &running("b", "n1", "1", 20, "", "")
                + &running("c", "n1", "1", 10, "", ""),
            incoming("3", high),
            vec!["b", "c", "a"],
        ),
    ];
    for (name, state, pod, victims) in cases {
        let (preemption, _) = preview(&state, &pod);
        assert_eq!(victim_names(&preemption.victims), victims, "{name}");
    }
}

#[test]
fn budget_violating_victims_are_reprieved_first() {
    let high = "  priorityClassName: high\n";
    // Two pods of app a on n1, the incoming pod needs one of the two slots. The budget is spent
    // on the victims most important first, so the later one of equals violates it; violating
    // pods are reprieved first, so that one stays.
    let cases: Vec<BudgetCase> = vec![
        (
            "the budget allows one eviction: no violation",
            node("n1", "2", 110, "")
                + &running("a-1", "n1", "1", 10, "", "app: a")
                + &running("a-2", "n1", "1", 10, "", "app: a")
                + &budget("pdb-a", "a", 1, &[]),
            vec![("a-1", false)],
            0,
        ),
        (
            "budget exhausted: the eviction violates it",
            node("n1", "2", 110, "")
                + &running("a-1", "n1", "1", 10, "", "app: a")
                + &running("a-2", "n1", "1", 10, "", "app: a")
                + &budget("pdb-a", "a", 0, &[]),
            vec![("a-2", true)],
            1,
        ),
        (
            "a pod already disrupted does not count against the budget",
            node("n1", "2", 110, "")
                + &running("a-1", "n1", "1", 10, "", "app: a")
                + &running("a-2", "n1", "1", 10, "", "app: a")
                + &budget("pdb-a", "a", 0, &["a-2"]),
            vec![("a-2", false)],
            0,
        ),
        (
            "the violating pod is reprieved first; a non-violating one goes instead",
            node("n1", "2", 110, "")
                + &running("guarded", "n1", "1", 50, "", "app: a")
                + &running("free", "n1", "1", 10, "", "app: b")
                + &budget("pdb-a", "a", 0, &[]),
            vec![("free", false)],
            0,
        ),
    ];
    for (name, state, victims, violations) in cases {
        let (preemption, _) = preview(&state, &incoming("1", high));
        let got: Vec<(&str, bool)> = preemption
            .victims
            .iter()
            .map(|v| (v.name.as_str(), v.violates_budget))
            .collect();
        assert_eq!(got, victims, "{name}");
        assert_eq!(
            preemption.candidates[0].budget_violations, violations,
            "{name}"
        );
    }
}

#[test]
fn the_node_is_picked_by_upstream_ordering_rules() {
    let high = "  priorityClassName: high\n";
    let cases: Vec<PickCase> = vec![
        (
            "fewer budget violations wins",
            node("n1", "1", 110, "")
                + &node("n2", "1", 110, "")
                + &running("guarded", "n1", "1", 1, "", "app: a")
                + &running("heavy", "n2", "1", 500, "", "")
                + &budget("pdb-a", "a", 0, &[]),
            "1",
            "n2",
            vec![("n1", "fewer PodDisruptionBudget violations: 1 against 0")],
        ),
        (
            "the lowest highest victim priority wins",
            node("n1", "2", 110, "")
                + &node("n2", "2", 110, "")
                + &node("n3", "2", 110, "")
                + &running("n1-mid", "n1", "1", 100, "", "")
                + &running("n1-low", "n1", "1", 1, "", "")
                + &running("n2-mid-1", "n2", "1", 100, "", "")
                + &running("n2-mid-2", "n2", "1", 100, "", "")
                + &running("n3-low-1", "n3", "1", 1, "", "")
                + &running("n3-low-2", "n3", "1", 1, "", ""),
            "2",
            "n3",
            vec![
                ("n1", "a lower highest victim priority: 100 against 1"),
                ("n2", "a lower highest victim priority: 100 against 1"),
            ],
        ),
        (
            "same highest priority: the smaller sum wins",
            node("n1", "3", 110, "")
                + &node("n2", "3", 110, "")
                + &running("n1-a", "n1", "1", 100, "", "")
                + &running("n1-b", "n1", "1", 50, "", "")
                + &running("n1-c", "n1", "1", 50, "", "")
                + &running("n2-a", "n2", "1", 100, "", "")
                + &running("n2-b", "n2", "1", 10, "", "")
                + &running("n2-c", "n2", "1", 10, "", ""),
            "3",
            "n2",
            vec![(
                "n1",
                "a lower sum of victim priorities (each + 2^31): 6442451144 against 6442451064",
            )],
        ),
        (
            "negative priorities: fewer pods still sum lower",
            node("n1", "2", 110, "")
                + &node("n2", "2", 110, "")
                + &running("n1-a", "n1", "1", -10, "", "")
                + &running("n1-b", "n1", "1", -10, "", "")
                + &running("n2-a", "n2", "2", -10, "", ""),
            "2",
            "n2",
            vec![(
                "n1",
                "a lower sum of victim priorities (each + 2^31): 4294967276 against 2147483638",
            )],
        ),
        (
            "same priorities and sums: the later-started victims win",
            node("n1", "1", 110, "")
                + &node("n2", "1", 110, "")
                + &running("old", "n1", "1", 10, "2024-01-01T00:00:00Z", "")
                + &running("new", "n2", "1", 10, "2024-03-01T00:00:00Z", ""),
            "1",
            "n2",
            vec![(
                "n1",
                "a later start of its earliest highest-priority victim: 2024-01-01T00:00:00Z against 2024-03-01T00:00:00Z",
            )],
        ),
        (
            "equal on every rule: node order",
            node("n1", "1", 110, "")
                + &node("n2", "1", 110, "")
                + &running("x", "n1", "1", 10, "2024-01-01T00:00:00Z", "")
                + &running("y", "n2", "1", 10, "2024-01-01T00:00:00Z", ""),
            "1",
            "n1",
            vec![(
                "n2",
                "equal on every rule; the first candidate in node order wins (the scheduler picks among them at random)",
            )],
        ),
    ];
    for (name, state, cpu, chosen, lost) in cases {
        let (preemption, _) = preview(&state, &incoming(cpu, high));
        assert_eq!(preemption.node.as_deref(), Some(chosen), "{name}");
        let got: Vec<(&str, &str)> = preemption
            .candidates
            .iter()
            .filter_map(|c| c.lost.as_deref().map(|l| (c.node.as_str(), l)))
            .collect();
        assert_eq!(got, lost, "{name}");
    }
}

#[test]
fn candidate_count_follows_the_default_arguments() {
    // max(10% of the potential nodes, 100), never more than there are.
    for (potential, wanted) in [(0, 0), (7, 7), (100, 100), (150, 100), (1523, 152)] {
        assert_eq!(candidates_wanted(potential), wanted, "{potential}");
    }
}

#[test]
fn the_scheduler_is_left_as_it_was() {
    let state = ClusterState::from_objects(objects(&format!(
        "{CLASSES}{}{}{}",
        node("n1", "2", 110, ""),
        running("a", "n1", "1", 0, "", ""),
        running("b", "n1", "1", 5, "", "")
    )));
    let mut sched = Scheduler::new(&state, Profile::default());
    let pod = incoming("1", "  priorityClassName: high\n");
    let before = sched.decide(&pod);
    let mut decision = before.clone();
    let preemption = sched.preempt(&pod, &mut decision).unwrap();
    assert_eq!(victim_names(&preemption.victims), ["a"]);
    assert_eq!(sched.decide(&pod), before);
    assert_eq!(sched.free(0).unwrap().milli_cpu, 0);
}

/// A node of 8 CPUs running up to six pods of 1 to 4 CPUs at priorities 0, 10 and 20 (the
/// `a0` ones under a budget allowing one disruption), and the CPUs the incoming pod of
/// priority 1000 wants.
type VictimCase = (Vec<(u32, i32, u8)>, u32);

fn victim_case() -> impl Strategy<Value = VictimCase> {
    (
        proptest::collection::vec((1u32..=4, 0i32..3, 0u8..3), 1..7),
        1u32..=6,
    )
}

/// What one case exercised: `None` when the pod fits without preemption (nothing to check
/// but that), else the victims and how many of them the budget covers.
fn check_victims((pods, wanted): &VictimCase) -> Result<Option<(usize, usize)>, TestCaseError> {
    let mut yaml = format!("{CLASSES}{}", node("n1", "8", 110, ""));
    for (i, (cpu, priority, app)) in pods.iter().enumerate() {
        yaml.push_str(&running(
            &format!("p{i}"),
            "n1",
            &format!("{cpu}"),
            *priority * 10,
            "",
            &format!("app: a{app}"),
        ));
    }
    yaml.push_str(&budget("pdb", "a0", 1, &[]));
    let state = ClusterState::from_objects(objects(&yaml));
    let mut sched = Scheduler::new(&state, Profile::default());
    let pod = incoming(&wanted.to_string(), "  priorityClassName: high\n");
    let mut decision = sched.decide(&pod);
    let fits = decision.selected.is_some();
    let Some(preemption) = sched.preempt(&pod, &mut decision) else {
        // Preemption has nothing to do only when the pod fits as it is.
        prop_assert!(
            fits,
            "no preemption for a pod that does not fit: {:?}",
            decision.summary
        );
        return Ok(None);
    };
    // Every running pod is of a lower priority and the node has the 8 CPUs the pod's at most
    // 6 need: once they are all gone it fits, so preemption always finds victims on n1.
    prop_assert!(!fits);
    prop_assert_eq!(
        preemption.node.as_deref(),
        Some("n1"),
        "{:?}",
        preemption.message
    );
    prop_assert!(!preemption.victims.is_empty());
    for victim in &preemption.victims {
        sched.forget(&victim.namespace, &victim.name);
    }
    prop_assert!(sched.decide(&pod).selected.is_some());
    let mut budgeted = 0;
    for victim in &preemption.victims {
        let back = state.pod("default", &victim.name);
        let mut back = back
            .ok_or_else(|| TestCaseError::fail(format!("{} is not in the state", victim.name)))?
            .clone();
        budgeted += usize::from(
            back.metadata
                .labels
                .get("app")
                .is_some_and(|app| app == "a0"),
        );
        back.spec.node_name.clear();
        sched.assume(back, "n1");
        prop_assert!(
            sched.decide(&pod).selected.is_none(),
            "{} is not needed",
            victim.name
        );
        sched.forget(&victim.namespace, &victim.name);
    }
    Ok(Some((preemption.victims.len(), budgeted)))
}

proptest! {
    /// Upstream's guarantee that SelectVictimsOnNode keeps a minimal set: the pod fits once the
    /// victims are gone, and putting back any one victim makes it unschedulable there again.
    #[test]
    fn victim_sets_are_minimal(case in victim_case()) {
        check_victims(&case)?;
    }
}

/// The property is not vacuous: of 96 cases drawn with a fixed seed, many preempt (one victim
/// and several), some take a victim the budget covers, and some fit as they are.
#[test]
fn the_generated_cases_preempt() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(
        ProptestConfig::default(),
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let n = 96;
    let (mut fits, mut one, mut several, mut budgeted) = (0, 0, 0, 0);
    for _ in 0..n {
        let case = victim_case().new_tree(&mut runner).unwrap().current();
        match check_victims(&case).unwrap_or_else(|e| panic!("{e}: {case:?}")) {
            None => fits += 1,
            Some((victims, in_budget)) => {
                one += usize::from(victims == 1);
                several += usize::from(victims > 1);
                budgeted += usize::from(in_budget > 0);
            }
        }
    }
    eprintln!("fits {fits}, one victim {one}, several {several}, budgeted {budgeted} of {n}");
    for (what, hits, min_percent) in [
        ("preempting one victim", one, 15),
        ("preempting several", several, 25),
        ("a victim under the budget", budgeted, 20),
        ("fitting without preemption", fits, 10),
    ] {
        assert!(hits * 100 >= n * min_percent, "{what}: {hits} of {n}");
    }
}

/// What the PostFilter plugins add to a FailedScheduling summary, per release. FitError
/// appends their joined reasons as they are (`" %v"`): one period, the preemption message's
/// own. Since 1.34 DynamicResources sits before DefaultPreemption in the default profile and,
/// for a pod without claims, says it has nothing to deallocate; when an earlier PreFilter
/// rejected the pod as UnschedulableAndUnresolvable, its PreFilter never ran and its PostFilter
/// fails with the cycle state's "not found", which ends the PostFilter plugins before
/// DefaultPreemption (dynamicresources.go, framework.go RunPostFilterPlugins, types.go FitError).
#[test]
fn post_filter_messages_follow_the_release() {
    use crate::versions::KubeVersion;
    let state = ClusterState::from_objects(objects(&format!(
        "{CLASSES}{}",
        node("n1", "2", 110, "") + &running("peer", "n1", "2", 1000, "", "")
    )));
    let full = incoming("1", "  priorityClassName: high\n");
    // One term names two disjoint node sets: NodeAffinity's PreFilter rejects the pod.
    let conflict = incoming(
        "0",
        "  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchFields: [{key: metadata.name, operator: In, values: [n1]}, {key: metadata.name, operator: In, values: [n2]}]\n",
    );
    let no_victims =
        "preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.";
    let cases = [
        (
            33,
            &full,
            format!("0/1 nodes are available: 1 Insufficient cpu. {no_victims}"),
        ),
        (
            34,
            &full,
            format!(
                "0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, {no_victims}"
            ),
        ),
        (
            37,
            &conflict,
            "0/1 nodes are available: pod affinity terms conflict. not found".to_string(),
        ),
    ];
    for (minor, pod, want) in cases {
        let profile = Profile {
            version: KubeVersion { minor },
            ..Profile::default()
        };
        let mut sched = Scheduler::new(&state, profile);
        let mut decision = sched.decide(pod);
        sched.preempt(pod, &mut decision);
        assert_eq!(
            decision.summary.as_deref(),
            Some(want.as_str()),
            "1.{minor}"
        );
        assert_eq!(
            super::without_post_filter(&want),
            want.split_once(". ")
                .map_or(want.as_str(), |(head, _)| head)
                .to_string()
                + ".",
            "1.{minor}"
        );
    }
}

/// A cluster without nodes ends the cycle before any filter (upstream's ErrNoNodesAvailable).
#[test]
fn a_cluster_without_nodes_says_so_and_preempts_nothing() {
    let state = ClusterState::from_objects(objects(CLASSES));
    let pod = incoming("1", "");
    let mut sched = Scheduler::new(&state, Profile::default());
    let mut decision = sched.decide(&pod);
    assert_eq!(sched.preempt(&pod, &mut decision), None);
    assert_eq!(
        decision.summary.as_deref(),
        Some("no nodes available to schedule pods")
    );
}
