//! A partly running Volcano job kept where its bound pods are (`AllocatedHyperNode`:
//! `session.go` recoverAllocatedHyperNode, `network_topology_aware.go` getSearchRoot and
//! getHighestAllowedHyperNode), after `allocate_test.go`'s "tasks in job rescheduled" rows,
//! in data of our own.

use df_engine::{Profile, Scheduler};
use df_model::{Object, ObjectMeta, Pod};
use df_state::ClusterState;

use super::binpack_tests::{bound, hard, hyper_node, node, parse};
use super::hypernode::{CLUSTER_TOP, HyperNodes};
use super::{Constraint, TopologySystem, plan_in_domains};
use crate::gang::{Gang, Member, PodSource, kube_batch, place};

/// Topology T2: racks r-a (a1, a2), r-b (b1, b2), r-c (c1, c2) of 4-CPU nodes; spine s0 over
/// r-a and r-b, spine s1 over r-c; x1 in no HyperNode. `busy` are `(node, cpu)` taken by pods
/// of another namespace.
fn t2(busy: &[(&str, &str)]) -> String {
    let mut yaml = String::new();
    for n in ["a1", "a2", "b1", "b2", "c1", "c2", "x1"] {
        yaml.push_str(&node(n, "4", "8Gi", "0"));
    }
    yaml.push_str(&hyper_node("r-a", 1, "", &["a1", "a2"], false));
    yaml.push_str(&hyper_node("r-b", 1, "", &["b1", "b2"], false));
    yaml.push_str(&hyper_node("r-c", 1, "", &["c1", "c2"], false));
    yaml.push_str(&hyper_node("s0", 2, "", &["r-a", "r-b"], true));
    yaml.push_str(&hyper_node("s1", 2, "", &["r-c"], true));
    for (i, (on, cpu)) in busy.iter().enumerate() {
        yaml.push_str(&bound(&format!("busy-{i}"), on, cpu, "0"));
    }
    yaml
}

/// Pod `w-<i>` of the job, asking 2 CPU, bound to `on` when given.
fn worker(i: usize, on: Option<&str>) -> Pod {
    let node = on.map(|n| format!("nodeName: {n}, ")).unwrap_or_default();
    let yaml = format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: w-{i}, namespace: default}}\nspec: {{{node}containers: [{{name: c, resources: {{requests: {{cpu: \"2\"}}}}}}]}}\n"
    );
    let Some(Object::Pod(pod)) = parse(&yaml).pop() else {
        panic!("a pod")
    };
    pod
}

/// A job of `pods` workers, `min` of them needed, hard up to tier `highest`; worker `i` runs
/// on `running[i]`. Returns the state (T2 plus `busy` and the running workers) and the gang.
fn job(
    pods: usize,
    min: i64,
    highest: i32,
    running: &[&str],
    busy: &[(&str, &str)],
) -> (ClusterState, Gang) {
    let meta = ObjectMeta {
        name: "job".into(),
        namespace: "default".into(),
        ..ObjectMeta::default()
    };
    let mut gang = Gang::new(&kube_batch::KIND, "", &meta, min);
    gang.network_topology = Some(hard(highest));
    gang.running = running
        .iter()
        .enumerate()
        .map(|(i, on)| worker(i, Some(on)))
        .collect();
    gang.members = (running.len()..pods)
        .map(|i| Member {
            pod: worker(i, None),
            task: None,
            source: PodSource::Manifest,
        })
        .collect();
    let mut objects = parse(&t2(busy));
    objects.extend(gang.running.iter().cloned().map(Object::Pod));
    (ClusterState::from_objects(objects), gang)
}

/// The plan in short: status and chosen domain, each pending pod's node or reason, every
/// domain turned down, and the warnings.
struct Outcome {
    kept: String,
    pods: Vec<String>,
    rejected: Vec<String>,
    warnings: Vec<String>,
}

fn outcome(state: &ClusterState, gang: &Gang) -> Outcome {
    let Ok(Some(Constraint::Planned(request))) = HyperNodes.constraint(gang, state) else {
        panic!("a planned constraint")
    };
    let mut scheduler = Scheduler::new(state, Profile::default());
    let plan = plan_in_domains(&mut scheduler, gang, &request, false, &mut |s, within| {
        Ok(place::plan_pod_by_pod(s, gang, false, None, within))
    })
    .unwrap();
    let chosen = plan.topology.as_ref().and_then(|t| t.chosen.last());
    Outcome {
        kept: format!(
            "{} {}",
            plan.status.as_str(),
            chosen.map_or("-", |c| c.domain.as_str())
        ),
        pods: plan
            .pods
            .iter()
            .filter(|r| !r.running)
            .map(|r| match (&r.node, &r.reason) {
                (Some(node), _) => format!("{}@{node}", r.pod),
                (None, reason) => format!("{}: {}", r.pod, reason.as_deref().unwrap_or("")),
            })
            .collect(),
        rejected: plan
            .rejected
            .iter()
            .map(|r| format!("{}: {}", r.domain, r.reason))
            .collect(),
        warnings: plan.warnings,
    }
}

const NO_ROOM: &str = "0/2 nodes are available: 2 Insufficient cpu.";
const PLUGIN_ASSUMED: &str = "the state has no volcano-scheduler configuration \
    (volcano-system/volcano-scheduler-configmap): the network-topology-aware plugin is assumed on";

fn strings(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// Where the rest goes, by the pin's own words.
fn within(on: &str, pinned: &str, root: &str) -> String {
    format!(
        "its pods already run on {on}, in HyperNode {pinned}, Volcano's AllocatedHyperNode for \
         the job: the rest is placed within {root}"
    )
}

/// Why the rest never goes anywhere.
fn stuck(on: &str, pinned: &str, tier: i32, highest: i32) -> String {
    format!(
        "its pods already run on {on}, in HyperNode {pinned} (tier{tier}), Volcano's \
         AllocatedHyperNode for the job, above highestTierAllowed {highest}: Volcano places \
         none of its other pods (allocated hyperNode {pinned} tier is greater than highest \
         allowed tier {highest})"
    )
}

#[test]
fn a_partly_running_job_stays_under_its_allocated_hyper_node() {
    struct Case {
        name: &'static str,
        job: (ClusterState, Gang),
        kept: &'static str,
        pods: Vec<String>,
        rejected: Vec<String>,
        warnings: Vec<String>,
    }
    let stuck_s0 = stuck("a1, b1", "s0", 2, 1);
    let stuck_top = stuck("x1", CLUSTER_TOP, 3, 2);
    let cases = vec![
        Case {
            // w-0, w-1 fill a1 and a2 has 1 CPU left: r-a, the lowest HyperNode holding a1,
            // is the pin and, at highestTierAllowed 1, the only domain left. The job runs at
            // its minimum (2); w-2 and w-3 wait ("can not allocate job when cross
            // highestTierAllowed tier"), though r-b and r-c are empty.
            name: "pinned to a full rack within the highest tier: the rest waits",
            job: job(4, 2, 1, &["a1", "a1"], &[("a2", "3")]),
            kept: "Scheduled -",
            pods: vec![format!("w-2: {NO_ROOM}"), format!("w-3: {NO_ROOM}")],
            rejected: vec![format!(
                "r-a: none of its 2 pending pods fit (Volcano keeps no HyperNode that takes \
                 none): {NO_ROOM}"
            )],
            warnings: vec![
                PLUGIN_ASSUMED.into(),
                within("a1", "r-a (tier1)", "r-a (tier1)"),
            ],
        },
        Case {
            // Up to tier 2 the search root is s0 (r-a's parent): r-b, empty, scores (0 + 8) /
            // 8 = 100 against r-a's 0 (7 + 8 > 8 overflows); r-c, under s1, is never a
            // candidate ("can allocate job when highestTierAllowed not reached").
            name: "pinned to a full rack, one tier more allowed: the sibling rack",
            job: job(4, 2, 2, &["a1", "a1"], &[("a2", "3")]),
            kept: "Scheduled r-b",
            pods: strings(&["w-2@b1", "w-3@b2"]),
            rejected: strings(&["r-a: not tried: its bin-packing score 0.0 is below r-b's 100.0"]),
            warnings: vec![
                PLUGIN_ASSUMED.into(),
                within("a1", "r-a (tier1)", "s0 (tier2)"),
            ],
        },
        Case {
            // a2 is empty: both pending workers join the pinned rack (a1 is full).
            name: "pinned to a rack with room",
            job: job(4, 2, 1, &["a1", "a1"], &[]),
            kept: "Scheduled r-a",
            pods: strings(&["w-2@a2", "w-3@a2"]),
            rejected: vec![],
            warnings: vec![
                PLUGIN_ASSUMED.into(),
                within("a1", "r-a (tier1)", "r-a (tier1)"),
            ],
        },
        Case {
            // a1 and b1: the pin is s0. Racks first: r-a and r-b tie at 0 (2 + 8 > 8), each
            // holding one bound pod, so by name; r-c is outside s0.
            name: "bound pods in two racks: pinned to their spine",
            job: job(4, 2, 2, &["a1", "b1"], &[]),
            kept: "Scheduled r-a",
            pods: strings(&["w-2@a2", "w-3@a1"]),
            rejected: strings(&[
                "r-b: not tried: its bin-packing score 0.0 ties with r-a's (Volcano picks one of \
                 them at random; the plan keeps the first by name)",
            ]),
            warnings: vec![
                PLUGIN_ASSUMED.into(),
                within("a1, b1", "s0 (tier2)", "s0 (tier2)"),
            ],
        },
        Case {
            // s0 is tier 2 > 1: Volcano's gradient is empty; the job keeps running at its
            // minimum (2 bound) and the rest never goes anywhere.
            name: "pinned above the highest tier, minimum met: the rest waits",
            job: job(4, 2, 1, &["a1", "b1"], &[]),
            kept: "Scheduled -",
            pods: vec![format!("w-2: {stuck_s0}"), format!("w-3: {stuck_s0}")],
            rejected: vec![],
            warnings: vec![PLUGIN_ASSUMED.into()],
        },
        Case {
            name: "pinned above the highest tier, minimum not met",
            job: job(4, 4, 1, &["a1", "b1"], &[]),
            kept: "Unschedulable -",
            pods: vec![format!("w-2: {stuck_s0}"), format!("w-3: {stuck_s0}")],
            rejected: vec![],
            warnings: vec![PLUGIN_ASSUMED.into()],
        },
        Case {
            // x1 is in no HyperNode: only the virtual top (tier 2 + 1 = 3) holds it.
            name: "a bound pod outside every HyperNode: pinned to the virtual top",
            job: job(4, 2, 2, &["x1"], &[]),
            kept: "Unschedulable -",
            pods: vec![
                format!("w-1: {stuck_top}"),
                format!("w-2: {stuck_top}"),
                format!("w-3: {stuck_top}"),
            ],
            rejected: vec![],
            warnings: vec![PLUGIN_ASSUMED.into()],
        },
        Case {
            // Four workers fill r-c; up to tier 3 the root is the virtual top (r-c, s1, top):
            // every rack is a candidate. All score 0 (the job's 12 CPU overflow any 8-CPU
            // rack), r-c first as it holds the 4 bound pods, but places none; then r-a by name
            // ("can allocate job when LCAHyperNode is empty").
            name: "pinned to a full rack, the virtual top allowed: any rack",
            job: job(6, 4, 3, &["c1", "c1", "c2", "c2"], &[]),
            kept: "Scheduled r-a",
            pods: strings(&["w-4@a1", "w-5@a2"]),
            rejected: vec![
                format!(
                    "r-c: none of its 2 pending pods fit (Volcano keeps no HyperNode that takes \
                     none): {NO_ROOM}"
                ),
                "r-b: not tried: its bin-packing score 0.0 ties with r-a's (Volcano picks one \
                 of them at random; the plan keeps the first by name)"
                    .into(),
            ],
            warnings: vec![
                PLUGIN_ASSUMED.into(),
                within("c1, c2", "r-c (tier1)", &format!("{CLUSTER_TOP} (tier3)")),
            ],
        },
    ];
    for case in cases {
        let (state, gang) = &case.job;
        let o = outcome(state, gang);
        assert_eq!(o.kept, case.kept, "{}", case.name);
        assert_eq!(o.pods, case.pods, "{}", case.name);
        assert_eq!(o.rejected, case.rejected, "{}", case.name);
        assert_eq!(o.warnings, case.warnings, "{}", case.name);
    }
}
