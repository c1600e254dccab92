//! Which HyperNode Volcano (v1.14+) keeps a hard-topology gang in: the eligible HyperNodes of
//! the lowest tier that holds it, by bin-packing score (`network_topology_aware_test.go`,
//! `allocate_test.go` network-topology rows, in data of our own), and the virtual top
//! HyperNode (`session.go` addClusterTopHyperNode).

use std::sync::Arc;

use df_engine::{Profile, Scheduler};
use df_model::gang::NetworkTopologySpec;
use df_model::quantity::Quantity;
use df_model::{Object, ObjectMeta};
use df_state::ClusterState;

use super::hypernode::{CLUSTER_TOP, HyperNodes};
use super::{Constraint, TopologySystem, plan_in_domains};
use crate::gang::{Gang, GangStatus, Member, PodSource, kube_batch, place};

pub(super) fn parse(yaml: &str) -> Vec<Object> {
    let (manifests, problems) = df_manifest::parse_text(&Arc::from("state.yaml"), yaml);
    assert!(problems.is_empty(), "{problems:?}");
    manifests.into_iter().map(|m| m.object).collect()
}

pub(super) fn node(name: &str, cpu: &str, memory: &str, gpus: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Node\nmetadata: {{name: {name}}}\nstatus:\n  allocatable: {{cpu: \"{cpu}\", memory: {memory}, pods: \"110\", nvidia.com/gpu: \"{gpus}\"}}\n---\n"
    )
}

pub(super) fn bound(name: &str, node: &str, cpu: &str, memory: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: other}}\nspec:\n  nodeName: {node}\n  containers: [{{name: c, resources: {{requests: {{cpu: \"{cpu}\", memory: \"{memory}\"}}}}}}]\nstatus: {{phase: Running}}\n---\n"
    )
}

/// A HyperNode of tier `tier` over nodes, or over HyperNodes when `of_hyper_nodes`.
pub(super) fn hyper_node(
    name: &str,
    tier: i32,
    tier_name: &str,
    members: &[&str],
    of_hyper_nodes: bool,
) -> String {
    let kind = if of_hyper_nodes { "HyperNode" } else { "Node" };
    let members: String = members
        .iter()
        .map(|m| format!("  - {{type: {kind}, selector: {{exactMatch: {{name: {m}}}}}}}\n"))
        .collect();
    format!(
        "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata: {{name: {name}}}\nspec:\n  tier: {tier}\n  tierName: \"{tier_name}\"\n  members:\n{members}---\n"
    )
}

/// The volcano-scheduler configuration with the plugin and `arguments` (flow YAML).
fn config(arguments: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: volcano-scheduler-configmap, namespace: volcano-system}}\ndata:\n  volcano-scheduler.conf: |\n    tiers:\n    - plugins:\n      - name: network-topology-aware\n        arguments: {arguments}\n---\n"
    )
}

/// Topology T1: racks r-a (a1, a2) and r-b (b1, b2) of 4 CPU / 8Gi nodes with 4 GPUs, r-c
/// (c1, c2) of 8 CPU / 16Gi nodes with 8 GPUs, all under spine s0 (tier 2); 3 CPU / 2Gi bound
/// on a1 and (with `b1_busy`) 1 CPU on b1.
fn t1(b1_busy: bool, extra: &str) -> ClusterState {
    let mut yaml = String::new();
    for n in ["a1", "a2", "b1", "b2"] {
        yaml.push_str(&node(n, "4", "8Gi", "4"));
    }
    for n in ["c1", "c2"] {
        yaml.push_str(&node(n, "8", "16Gi", "8"));
    }
    yaml.push_str(&hyper_node("r-a", 1, "rack", &["a1", "a2"], false));
    yaml.push_str(&hyper_node("r-b", 1, "rack", &["b1", "b2"], false));
    yaml.push_str(&hyper_node("r-c", 1, "rack", &["c1", "c2"], false));
    yaml.push_str(&hyper_node("s0", 2, "spine", &["r-a", "r-b", "r-c"], true));
    yaml.push_str(&bound("busy-a", "a1", "3", "2Gi"));
    if b1_busy {
        yaml.push_str(&bound("busy-b", "b1", "1", "0"));
    }
    yaml.push_str(extra);
    ClusterState::from_objects(parse(&yaml))
}

/// A gang of `pods` pods asking `requests` (flow YAML) each, all needed, kept by `topology`.
fn gang(pods: usize, requests: &str, topology: NetworkTopologySpec, min_cpu: Option<&str>) -> Gang {
    let meta = ObjectMeta {
        name: "job".into(),
        namespace: "default".into(),
        ..ObjectMeta::default()
    };
    let mut gang = Gang::new(&kube_batch::KIND, "", &meta, pods as i64);
    gang.network_topology = Some(topology);
    if let Some(cpu) = min_cpu {
        gang.min_resources
            .insert("cpu".into(), Quantity::parse(cpu).unwrap());
    }
    gang.members = (0..pods)
        .map(|i| {
            let yaml = format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: job-{i}, namespace: default}}\nspec:\n  containers: [{{name: c, resources: {{requests: {requests}}}}}]\n"
            );
            let Some(Object::Pod(pod)) = parse(&yaml).pop() else {
                panic!("a pod")
            };
            Member {
                pod,
                task: None,
                source: PodSource::Manifest,
            }
        })
        .collect();
    gang
}

pub(super) fn hard(highest: i32) -> NetworkTopologySpec {
    NetworkTopologySpec {
        mode: "hard".into(),
        highest_tier_allowed: Some(highest),
        ..NetworkTopologySpec::default()
    }
}

/// The domain the gang is kept in (or its status) and every domain turned down, with why.
fn outcome(state: &ClusterState, gang: &Gang) -> (String, Vec<String>) {
    let Ok(Some(Constraint::Planned(request))) = HyperNodes.constraint(gang, state) else {
        panic!("a planned constraint")
    };
    let mut scheduler = Scheduler::new(state, Profile::default());
    let plan = plan_in_domains(&mut scheduler, gang, &request, false, &mut |s, within| {
        Ok(place::plan_pod_by_pod(s, gang, false, None, within))
    })
    .unwrap();
    let kept = match (
        &plan.status,
        plan.topology.as_ref().and_then(|t| t.chosen.last()),
    ) {
        (GangStatus::Scheduled, Some(domain)) => domain.domain.clone(),
        (status, _) => format!("{status:?}"),
    };
    let rejected = plan
        .rejected
        .iter()
        .map(|r| format!("{}: {}", r.domain, r.reason))
        .collect();
    (kept, rejected)
}

#[test]
fn the_fullest_eligible_hyper_node_that_holds_the_job_wins() {
    struct Case {
        name: &'static str,
        b1_busy: bool,
        extra: String,
        pods: usize,
        requests: &'static str,
        min_cpu: Option<&'static str>,
        kept: &'static str,
        rejected: &'static [&'static str],
    }
    let two_cpu = "{cpu: \"2\", memory: 2Gi}";
    let cases = [
        Case {
            // r-a: cpu (3 + 4) / 8 = .875, memory (2 + 4) / 16 = .375: 62.5; r-b: (1 + 4) / 8
            // and 4 / 16: 43.75; r-c: 4 / 16 and 4 / 32: 18.75. Volcano packs r-a.
            name: "two pods: the busiest rack that holds them",
            b1_busy: true,
            extra: String::new(),
            pods: 2,
            requests: two_cpu,
            min_cpu: None,
            kept: "r-a",
            rejected: &[
                "r-b: not tried: its bin-packing score 43.8 is below r-a's 62.5",
                "r-c: not tried: its bin-packing score 18.8 is below r-a's 62.5",
            ],
        },
        Case {
            // 8 CPU pending: r-a has 1 + 4 idle, r-b 3 + 4; only r-c (16) is eligible, and
            // scores 8 / 16 and 8 / 32: 37.5.
            name: "four pods: the pre-filter leaves only the big rack",
            b1_busy: true,
            extra: String::new(),
            pods: 4,
            requests: two_cpu,
            min_cpu: None,
            kept: "r-c",
            rejected: &[
                "r-a: not eligible: idle cpu 5 < 8 its pending pods request (Volcano's HyperNode pre-filter)",
                "r-b: not eligible: idle cpu 7 < 8 its pending pods request (Volcano's HyperNode pre-filter)",
            ],
        },
        Case {
            // r-b idle now 8: (0 + 8) / 8 and 8 / 16 = 75 beats r-c's 37.5; r-a (5 idle) is
            // still not eligible.
            name: "four pods and an idle small rack: the small rack fills up",
            b1_busy: false,
            extra: String::new(),
            pods: 4,
            requests: two_cpu,
            min_cpu: None,
            kept: "r-b",
            rejected: &[
                "r-c: not tried: its bin-packing score 37.5 is below r-b's 75.0",
                "r-a: not eligible: idle cpu 5 < 8 its pending pods request (Volcano's HyperNode pre-filter)",
            ],
        },
        Case {
            // cpu weighs 3: r-a (3 * .875 + .375) / 4 = 75; r-b (3 * .625 + .25) / 4 = 53.1;
            // r-c (3 * .25 + .125) / 4 = 21.9.
            name: "the cpu weight of the plugin's arguments",
            b1_busy: true,
            extra: config("{hypernode.binpack.cpu: 3}"),
            pods: 2,
            requests: two_cpu,
            min_cpu: None,
            kept: "r-a",
            rejected: &[
                "r-b: not tried: its bin-packing score 53.1 is below r-a's 75.0",
                "r-c: not tried: its bin-packing score 21.9 is below r-a's 75.0",
            ],
        },
        Case {
            // GPUs are not listed: cpu alone decides ((3 + 1) / 8 = 50, (1 + 1) / 8 = 25,
            // 1 / 16 = 6.25).
            name: "an extended resource not listed in the arguments does not count",
            b1_busy: true,
            extra: String::new(),
            pods: 1,
            requests: "{cpu: \"1\", nvidia.com/gpu: \"4\"}",
            min_cpu: None,
            kept: "r-a",
            rejected: &[
                "r-b: not tried: its bin-packing score 25.0 is below r-a's 50.0",
                "r-c: not tried: its bin-packing score 6.2 is below r-a's 50.0",
            ],
        },
        Case {
            // Listed with weight 5: r-a (.5 + 5 * 4 / 8) / 6 = 50, r-b (.25 + 2.5) / 6 = 45.8,
            // r-c (1 / 16 + 5 * 4 / 16) / 6 = 21.9.
            name: "a listed extended resource counts with its weight",
            b1_busy: true,
            extra: config(
                "{hypernode.binpack.resources: nvidia.com/gpu, hypernode.binpack.resources.nvidia.com/gpu: 5}",
            ),
            pods: 1,
            requests: "{cpu: \"1\", nvidia.com/gpu: \"4\"}",
            min_cpu: None,
            kept: "r-a",
            rejected: &[
                "r-b: not tried: its bin-packing score 45.8 is below r-a's 50.0",
                "r-c: not tried: its bin-packing score 21.9 is below r-a's 50.0",
            ],
        },
        Case {
            // minResources 6 CPU: r-a (5 idle) is not eligible; r-b (1 + 1) / 8 = 25 beats
            // r-c's 1 / 16.
            name: "the PodGroup's minResources pre-filter",
            b1_busy: true,
            extra: String::new(),
            pods: 1,
            requests: "{cpu: \"1\"}",
            min_cpu: Some("6"),
            kept: "r-b",
            rejected: &[
                "r-a: not eligible: idle cpu 5 < 6 the PodGroup's minResources request (Volcano's HyperNode pre-filter)",
                "r-c: not tried: its bin-packing score 6.2 is below r-b's 25.0",
            ],
        },
    ];
    for case in cases {
        let state = t1(case.b1_busy, &case.extra);
        let gang = gang(case.pods, case.requests, hard(1), case.min_cpu);
        let (kept, rejected) = outcome(&state, &gang);
        assert_eq!(kept, case.kept, "{}", case.name);
        assert_eq!(rejected, case.rejected, "{}", case.name);
    }
}

#[test]
fn equal_scores_keep_the_first_by_name_and_say_volcano_picks_at_random() {
    let mut yaml = String::new();
    for n in ["x1", "y1"] {
        yaml.push_str(&node(n, "4", "8Gi", "0"));
    }
    yaml.push_str(&hyper_node("r-y", 1, "", &["y1"], false));
    yaml.push_str(&hyper_node("r-x", 1, "", &["x1"], false));
    let state = ClusterState::from_objects(parse(&yaml));
    // 2 pods of 1 CPU on an empty 4-CPU rack: 2 / 4 = 50 each.
    let gang = gang(2, "{cpu: \"1\"}", hard(1), None);
    assert_eq!(
        outcome(&state, &gang),
        (
            "r-x".to_string(),
            vec![
                "r-y: not tried: its bin-packing score 50.0 ties with r-x's (Volcano picks one \
                 of them at random; the plan keeps the first by name)"
                    .to_string()
            ]
        )
    );
}

#[test]
fn the_virtual_top_hyper_node_holds_every_node_one_tier_up() {
    let three_nodes: String = ["n1", "n2", "n3"]
        .iter()
        .map(|n| node(n, "4", "8Gi", "0"))
        .collect();
    let three_cpu = "{cpu: \"3\"}";
    // No HyperNodes: the top is tier 1, so highestTierAllowed 1 places the job cluster-wide.
    let state = ClusterState::from_objects(parse(&three_nodes));
    let (kept, rejected) = outcome(&state, &gang(3, three_cpu, hard(1), None));
    assert_eq!((kept.as_str(), rejected.len()), (CLUSTER_TOP, 0));
    // highestTierAllowed 0: no HyperNode is low enough; the job stays pending.
    let (kept, _) = outcome(&state, &gang(3, three_cpu, hard(0), None));
    assert_eq!(kept, "Unschedulable");
    // T1 with a node in no HyperNode: the top (tier 3) holds it too. Of eight pods of 3 CPU,
    // s0 holds seven (a2, b1, b2 one each, c1 and c2 two each; a1 has 1 CPU free); the top,
    // with n-free, all eight.
    let state = t1(false, &node("n-free", "4", "8Gi", "0"));
    let (kept, _) = outcome(&state, &gang(8, three_cpu, hard(3), None));
    assert_eq!(kept, CLUSTER_TOP);
    let (kept, _) = outcome(&state, &gang(8, three_cpu, hard(2), None));
    assert_eq!(kept, "Unschedulable");
}

#[test]
fn a_tier_name_stands_for_its_tier_and_hard_without_a_tier_is_no_constraint() {
    let state = t1(true, "");
    // tierName "rack" is tier 1: as with highestTierAllowed 1, only r-c is eligible for the
    // 8 CPU of 4 pods.
    let by_name = NetworkTopologySpec {
        mode: "hard".into(),
        highest_tier_name: "rack".into(),
        ..NetworkTopologySpec::default()
    };
    let (kept, _) = outcome(&state, &gang(4, "{cpu: \"2\", memory: 2Gi}", by_name, None));
    assert_eq!(kept, "r-c");
    let unknown = NetworkTopologySpec {
        mode: "hard".into(),
        highest_tier_name: "pod".into(),
        ..NetworkTopologySpec::default()
    };
    assert_eq!(
        HyperNodes.constraint(&gang(1, "{cpu: \"1\"}", unknown, None), &state),
        Err(
            "spec.networkTopology.highestTierName: no HyperNode has tierName \"pod\"; Volcano \
             fails to find the tier and does not schedule the job"
                .to_string()
        )
    );
    let no_tier = NetworkTopologySpec {
        mode: "hard".into(),
        ..NetworkTopologySpec::default()
    };
    assert_eq!(
        HyperNodes.constraint(&gang(1, "{cpu: \"1\"}", no_tier, None), &state),
        Ok(Some(Constraint::Ignored(
            "networkTopology hard without highestTierAllowed or highestTierName: Volcano (1.14 \
             and later) keeps the job in no HyperNode"
                .to_string()
        )))
    );
}
