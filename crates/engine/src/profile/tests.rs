//! How the engine honours a profile: default plugins turned off, PodTopologySpread's listed
//! defaults, RequestedToCapacityRatio, the balanced resources, and a profile per scheduler
//! name. Profiles are built as `crate::config` reads them (its tests cover the reading).

use super::*;
use crate::Scheduler;
use crate::tests::{nodes, pod, running, scores, state, verdicts};

/// 4 CPUs / 8Gi nodes n1 and n2; n1 runs a pod of 3 CPUs.
fn one_busy_node() -> String {
    nodes(&["zone: a", "zone: a"])
        + &running(
            "busy",
            "n1",
            "app: db",
            "  containers: [{name: c, resources: {requests: {cpu: \"3\"}}}]\n",
        )
}

/// 4 CPU / 8Gi nodes n1, empty, and n2, holding 2 CPU / 4Gi.
fn half_full_n2() -> String {
    nodes(&["zone: a", "zone: a"])
        + &running(
            "half",
            "n2",
            "",
            "  containers: [{name: c, resources: {requests: {cpu: \"2\", memory: 4Gi}}}]\n",
        )
}

fn off(point: Point, name: &'static str) -> Profile {
    Profile {
        disabled: BTreeSet::from([(point, name)]),
        ..Profile::default()
    }
}

/// With NodeResourcesFit's filter off (scheduler-plugins' network-aware profile disables the
/// plugin in multiPoint), a node without room is feasible; with it on, it is not.
#[test]
fn a_filter_turned_off_does_not_filter() {
    let state = state(&one_busy_node());
    let incoming = pod("spec:\n  containers: [{name: c, resources: {requests: {cpu: \"2\"}}}]\n");
    let cases = [
        (Profile::default(), vec!["n1: Insufficient cpu", "n2"]),
        (off(Point::Filter, NODE_RESOURCES_FIT), vec!["n1", "n2"]),
    ];
    for (profile, want) in cases {
        let decision = Scheduler::new(&state, profile).decide(&incoming);
        assert_eq!(verdicts(&decision), want);
    }
}

/// The PostFilter plugins a profile keeps decide the FailedScheduling message's tail and
/// whether preemption runs: DynamicResources' reason first (1.34 enables DRA), then
/// DefaultPreemption's, joined by ", "; with neither, the message ends at the filters' part.
/// The node has 1 CPU and the pod asks for 2, so evicting everything would not help.
#[test]
fn post_filter_plugins_turned_off_add_nothing() {
    let state = state(&nodes(&["zone: a"]).replace("cpu: \"4\"", "cpu: \"1\""));
    let equal = pod("spec:\n  containers: [{name: c, resources: {requests: {cpu: \"2\"}}}]\n");
    let everything_off = Profile {
        disabled: BTreeSet::from([
            (Point::PostFilter, DYNAMIC_RESOURCES),
            (Point::PostFilter, DEFAULT_PREEMPTION),
        ]),
        ..Profile::default()
    };
    let filters = "0/1 nodes are available: 1 Insufficient cpu.";
    let cases = [
        (
            Profile::default(),
            format!(
                "{filters} no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
            ),
        ),
        (
            off(Point::PostFilter, DEFAULT_PREEMPTION),
            format!("{filters} no new claims to deallocate"),
        ),
        (
            off(Point::PostFilter, DYNAMIC_RESOURCES),
            format!(
                "{filters} preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
            ),
        ),
        (everything_off, filters.to_string()),
    ];
    for (profile, want) in cases {
        let mut scheduler = Scheduler::new(&state, profile);
        let mut decision = scheduler.decide(&equal);
        scheduler.preempt(&equal, &mut decision);
        assert_eq!(decision.summary.as_deref(), Some(want.as_str()));
    }
}

/// A pod that outranks the node's pod preempts it, unless the profile turns
/// DefaultPreemption off.
#[test]
fn default_preemption_turned_off_preempts_nothing() {
    let state = state(&one_busy_node());
    let urgent = pod(
        "spec:\n  priority: 1000\n  containers: [{name: c, resources: {requests: {cpu: \"2\"}}}]\n  nodeSelector: {kubernetes.io/hostname: n1}\n",
    );
    for (profile, nominated) in [
        (Profile::default(), Some("n1")),
        (off(Point::PostFilter, DEFAULT_PREEMPTION), None),
    ] {
        let mut scheduler = Scheduler::new(&state, profile);
        let mut decision = scheduler.decide(&urgent);
        let preemption = scheduler.preempt(&urgent, &mut decision);
        assert_eq!(
            preemption.and_then(|p| p.node).as_deref(),
            nominated,
            "{:?}",
            decision.summary
        );
    }
}

/// A gated pod waits at PreEnqueue, unless the profile turns SchedulingGates off.
#[test]
fn scheduling_gates_turned_off_let_gated_pods_through() {
    let state = state(&nodes(&["zone: a"]));
    let gated =
        pod("spec:\n  schedulingGates: [{name: example.com/hold}]\n  containers: [{name: c}]\n");
    let held = Scheduler::new(&state, Profile::default()).decide(&gated);
    assert_eq!(
        held.summary.as_deref(),
        Some("waiting for scheduling gates: [example.com/hold]")
    );
    let through = Scheduler::new(&state, off(Point::PreEnqueue, "SchedulingGates")).decide(&gated);
    assert_eq!(through.selected.as_deref(), Some("n1"));
}

/// PodTopologySpreadArgs `defaultingType: List`: a DoNotSchedule default constraint filters
/// the pods of a Service that have no constraints of their own, where the System defaults
/// only score. Two `app: web` pods run in zone a (n1, n2), none in zone b (n3): zone a
/// after placement has skew 3 - 0 = 3 > maxSkew 1.
#[test]
fn listed_default_constraints_can_filter() {
    let cluster = nodes(&["zone: a", "zone: a", "zone: b"])
        + "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: default}\nspec:\n  selector: {app: web}\n---\n"
        + &running("web-1", "n1", "app: web", "")
        + &running("web-2", "n2", "app: web", "");
    let state = state(&cluster);
    let incoming = pod("  labels: {app: web}\nspec:\n  containers: [{name: c}]\n");
    let listed = Profile {
        spread_defaulting: SpreadDefaulting::List(vec![DefaultSpread {
            max_skew: 1,
            topology_key: "zone".into(),
            hard: true,
            min_domains: 1,
            honor_node_affinity: true,
            honor_taints: false,
        }]),
        ..Profile::default()
    };
    let spread = crate::plugins::pod_topology_spread::REASON;
    let cases = [
        (
            Profile::default(),
            vec!["n1".to_string(), "n2".into(), "n3".into()],
        ),
        (
            listed,
            vec![
                format!("n1: {spread}"),
                format!("n2: {spread}"),
                "n3".into(),
            ],
        ),
        // An empty list turns default spreading off altogether.
        (
            Profile {
                spread_defaulting: SpreadDefaulting::List(Vec::new()),
                ..Profile::default()
            },
            vec!["n1".to_string(), "n2".into(), "n3".into()],
        ),
    ];
    for (profile, want) in cases {
        let decision = Scheduler::new(&state, profile).decide(&incoming);
        assert_eq!(verdicts(&decision), want);
    }
}

/// RequestedToCapacityRatio (upstream `buildRequestedToCapacityRatioScorerFunction`): each
/// resource's utilisation after placement through the shape, scores of resources that score
/// 0 left out of the weighted mean, rounded. A pod of 1 CPU / 2Gi on an empty 4 CPU / 8Gi n1
/// (utilisation 25% of each) and on n2 already holding 2 CPU / 4Gi (75% of each).
#[test]
fn requested_to_capacity_ratio_scores_through_the_shape() {
    let state = state(&half_full_n2());
    let incoming =
        pod("spec:\n  containers: [{name: c, resources: {requests: {cpu: \"1\", memory: 2Gi}}}]\n");
    /// (utilisation, score) points, and n1's and n2's scores.
    type Case = (&'static [(i64, i64)], [i64; 2]);
    let cases: [Case; 3] = [
        // Bin packing, 0 -> 0 and 100 -> 100: the utilisation itself.
        (&[(0, 0), (100, 100)], [25, 75]),
        // Spreading, 0 -> 100 and 100 -> 0.
        (&[(0, 100), (100, 0)], [75, 25]),
        // Nothing below 50%: n1's resources both score 0 and count for nothing; n2's score
        // (75 - 50) * 100 / (100 - 50) = 50.
        (&[(50, 0), (100, 100)], [0, 50]),
    ];
    for (shape, want) in cases {
        let profile = Profile {
            strategy: ScoringStrategyType::RequestedToCapacityRatio,
            capacity_ratio_shape: shape.to_vec(),
            ..Profile::default()
        };
        let decision = Scheduler::new(&state, profile).decide(&incoming);
        assert_eq!(scores(&decision, NODE_RESOURCES_FIT), want, "{shape:?}");
    }
}

/// NodeResourcesBalancedAllocation over three resources (upstream `balancedResourceScorer`):
/// a pod of 1 CPU, 2Gi and 3 GPUs on a 4 CPU / 8Gi / 4 GPU node has fractions 0.25, 0.25 and
/// 0.75: mean 5/12, standard deviation sqrt(((1/6)^2 * 2 + (1/3)^2) / 3) = 0.2357, score
/// (1 - 0.2357) * 100 = 76 (1.34: the balance with the pod). Over CPU and memory only, the
/// fractions are equal: 100.
#[test]
fn balanced_allocation_balances_the_profiles_resources() {
    let state = state(
        &nodes(&["zone: a"]).replace("pods: \"110\"", "pods: \"110\", nvidia.com/gpu: \"4\""),
    );
    let incoming = pod(
        "spec:\n  containers: [{name: c, resources: {requests: {cpu: \"1\", memory: 2Gi, nvidia.com/gpu: \"3\"}}}]\n",
    );
    let with_gpu = Profile {
        balanced_resources: vec!["cpu".into(), "memory".into(), "nvidia.com/gpu".into()],
        ..Profile::default()
    };
    for (profile, want) in [(Profile::default(), [100]), (with_gpu, [76])] {
        let decision = Scheduler::new(&state, profile).decide(&incoming);
        assert_eq!(scores(&decision, BALANCED_ALLOCATION), want);
    }
}

/// A pod is scheduled by the profile of its `schedulerName`; a name the configuration does
/// not have gets the default profile. LeastAllocated scores n1 (empty) 75 and n2 (half full)
/// 25 for a pod of 1 CPU / 2Gi; MostAllocated the reverse.
#[test]
fn each_pod_gets_its_schedulers_profile() {
    let state = state(&half_full_n2());
    let packer = Profile {
        strategy: ScoringStrategyType::MostAllocated,
        ..Profile::default()
    };
    let scheduler = Scheduler::new(&state, Profiles::new(vec![("packer".into(), packer)]));
    let requests = "  containers: [{name: c, resources: {requests: {cpu: \"1\", memory: 2Gi}}}]\n";
    for (scheduler_name, want) in [("packer", [25, 75]), ("", [75, 25]), ("other", [75, 25])] {
        let incoming = pod(&format!(
            "spec:\n  schedulerName: \"{scheduler_name}\"\n{requests}"
        ));
        let decision = scheduler.decide(&incoming);
        assert_eq!(
            scores(&decision, NODE_RESOURCES_FIT),
            want,
            "{scheduler_name:?}"
        );
    }
}
