//! KEP-5732 pod group topology on a rack cluster built here: which domains kube-scheduler's
//! `TopologyPlacement` generates (ported from its `TestGeneratePlacements` table, own data),
//! and which one the scored placement keeps.

use std::sync::Arc;

use super::*;
use crate::gang::{GangStatus, Member, PodSource, kube_batch, place};
use crate::topology::plan_in_domains;
use df_engine::{Profile, Scheduler};
use df_model::gang::TopologyTerm;
use df_model::{Object, ObjectMeta, Pod};

const RACK: &str = "topology.example.com/rack";

/// Racks r1 {n1, n2} and r2 {n3}, n4 without a rack label; every node 4 CPU. `running` pods
/// (name, node, CPU) of the group are bound.
fn cluster(running: &[(&str, &str, &str)]) -> ClusterState {
    let node = |name: &str, rack: Option<&str>| {
        let rack = rack.map(|r| format!(", {RACK}: {r}")).unwrap_or_default();
        format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels: {{kubernetes.io/hostname: {name}{rack}}}\nstatus:\n  allocatable: {{cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n---\n"
        )
    };
    let mut yaml = [
        node("n1", Some("r1")),
        node("n2", Some("r1")),
        node("n3", Some("r2")),
        node("n4", None),
    ]
    .concat();
    for (name, node, cpu) in running {
        yaml.push_str(&pod_yaml(name, cpu, &format!("  nodeName: {node}\n")));
        yaml.push_str("status: {phase: Running}\n---\n");
    }
    let (manifests, problems) = df_manifest::parse_text(&Arc::from("cluster.yaml"), &yaml);
    assert!(problems.is_empty(), "{problems:?}");
    ClusterState::from_objects(manifests.into_iter().map(|m| m.object))
}

fn pod_yaml(name: &str, cpu: &str, extra: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata:\n  name: {name}\n  namespace: default\nspec:\n{extra}  schedulingGroup: {{podGroupName: train}}\n  containers: [{{name: c, resources: {{requests: {{cpu: \"{cpu}\"}}}}}}]\n"
    )
}

fn pod(name: &str, cpu: &str) -> Pod {
    let (mut parsed, _) = df_manifest::parse_text(&Arc::from("pod.yaml"), &pod_yaml(name, cpu, ""));
    let Some(Object::Pod(pod)) = parsed.pop().map(|m| m.object) else {
        panic!("pod")
    };
    pod
}

/// A v1alpha2 PodGroup `train` of `pods` pending pods of `cpu` each, minCount `min`, its
/// topology keys `keys`, and the bound pods of `state`.
fn gang(state: &ClusterState, keys: &[&str], pods: usize, cpu: &str, min: i64) -> Gang {
    let meta = ObjectMeta {
        name: "train".into(),
        namespace: "default".into(),
        ..ObjectMeta::default()
    };
    let mut gang = Gang::new(&POD_GROUP_KIND, "scheduling.k8s.io/v1alpha2", &meta, min);
    gang.topology = keys
        .iter()
        .map(|k| TopologyTerm {
            topology_key: k.to_string(),
        })
        .collect();
    gang.running = state.pods.clone();
    gang.members = (0..pods)
        .map(|i| Member {
            pod: pod(&format!("train-{i}"), cpu),
            task: None,
            source: PodSource::Manifest,
        })
        .collect();
    gang
}

/// Candidate domains: each one's name and node names.
type Candidates = Vec<(String, Vec<String>)>;

/// The candidate domains of the request, or the error.
fn candidates(state: &ClusterState, gang: &Gang) -> Result<Option<Candidates>, String> {
    let Some(constraint) = PodGroupTopology.constraint(gang, state)? else {
        return Ok(None);
    };
    let Constraint::Planned(request) = constraint else {
        panic!("never ignored")
    };
    assert_eq!(request.levels, [gang.topology[0].topology_key.as_str()]);
    Ok(Some(
        request.rounds[0]
            .domains
            .iter()
            .map(|d| {
                let nodes = d
                    .nodes
                    .iter()
                    .map(|&n| state.nodes[n].metadata.name.clone());
                (d.name.clone(), nodes.collect())
            })
            .collect(),
    ))
}

#[test]
fn candidate_domains_are_the_label_values_and_bound_pods_pin_theirs() {
    type Domains = Option<Vec<(&'static str, Vec<&'static str>)>>;
    struct Case {
        name: &'static str,
        keys: &'static [&'static str],
        running: &'static [(&'static str, &'static str, &'static str)],
        expected: Result<Domains, &'static str>,
    }
    let cases = [
        Case {
            name: "no topology constraint: not this system's gang",
            keys: &[],
            running: &[],
            expected: Ok(None),
        },
        Case {
            name: "one domain per rack value; the unlabelled node is in none",
            keys: &[RACK],
            running: &[],
            expected: Ok(Some(vec![("r1", vec!["n1", "n2"]), ("r2", vec!["n3"])])),
        },
        Case {
            name: "a key no node carries gives no domain",
            keys: &["topology.example.com/block"],
            running: &[],
            expected: Ok(Some(vec![])),
        },
        Case {
            name: "bound pods of the group keep the rest in their domain",
            keys: &[RACK],
            running: &[("old-0", "n2", "1"), ("old-1", "n1", "1")],
            expected: Ok(Some(vec![("r1", vec!["n1", "n2"])])),
        },
        Case {
            name: "bound pods in two domains stop the group",
            keys: &[RACK],
            running: &[("old-0", "n1", "1"), ("old-1", "n3", "1")],
            expected: Err(
                "pods of the group run in two topology.example.com/rack domains (r1 for pod old-0, r2 for pod old-1): kube-scheduler places no more of them",
            ),
        },
        Case {
            name: "a bound pod on a node without the label stops the group",
            keys: &[RACK],
            running: &[("old-0", "n4", "1")],
            expected: Err(
                "pod old-0 runs on node n4, which has no topology.example.com/rack label: kube-scheduler cannot find the group's domain",
            ),
        },
    ];
    for case in cases {
        let state = cluster(case.running);
        let gang = gang(&state, case.keys, 1, "1", 1);
        let expected = case
            .expected
            .map(|domains| {
                domains.map(|ds| {
                    ds.into_iter()
                        .map(|(d, nodes)| {
                            let nodes = nodes.into_iter().map(String::from).collect();
                            (d.to_string(), nodes)
                        })
                        .collect()
                })
            })
            .map_err(String::from);
        assert_eq!(candidates(&state, &gang), expected, "{}", case.name);
    }
}

#[test]
fn only_workload_pod_groups_are_this_systems_gangs() {
    let state = cluster(&[]);
    let mut gang = gang(&state, &[RACK], 1, "1", 1);
    gang.kind = &kube_batch::KIND;
    assert_eq!(candidates(&state, &gang), Ok(None));
}

/// The chosen rack, its path, the rejected racks' reasons and the warnings of a plan.
fn plan(state: &ClusterState, gang: &Gang) -> (GangStatus, Vec<String>, Vec<String>, Vec<String>) {
    let Ok(Some(Constraint::Planned(request))) = PodGroupTopology.constraint(gang, state) else {
        panic!("a planned request")
    };
    let mut scheduler = Scheduler::new(state, Profile::default());
    let plan = plan_in_domains(&mut scheduler, gang, &request, false, &mut |s, within| {
        Ok(place::plan_pod_by_pod(s, gang, false, None, within))
    })
    .unwrap();
    let topology = plan.topology.as_ref().expect("a topology plan");
    let chosen = topology
        .chosen
        .iter()
        .map(|d| format!("{}={}", d.level, d.domain))
        .chain(
            plan.pods
                .iter()
                .map(|p| format!("{} on {}", p.pod, p.node.as_deref().unwrap_or("-"))),
        )
        .collect();
    let rejected = plan
        .rejected
        .iter()
        .map(|r| format!("{}: {}", r.domain, r.reason))
        .chain(
            plan.rejections
                .iter()
                .map(|r| format!("{}: {}", r.group, r.reason)),
        )
        .collect();
    (plan.status, chosen, rejected, plan.warnings.clone())
}

#[test]
fn the_highest_scored_rack_that_takes_the_group_wins() {
    struct Case {
        name: &'static str,
        running: &'static [(&'static str, &'static str, &'static str)],
        pods: usize,
        cpu: &'static str,
        min: i64,
        status: GangStatus,
        chosen: &'static [&'static str],
        rejected: &'static [&'static str],
    }
    let cases = [
        Case {
            // Both racks hold two 2-CPU pods; r2 (one node) ends fuller. Bin packing averages
            // CPU and memory (200Mi counted per pod that sets none): r2 (4 of 4 CPU = 100, 400Mi
            // of 8Gi = 4) 52, r1 (4 of 8 CPU = 50, 400Mi of 16Gi = 2) 26.
            name: "the tighter of two racks that fit",
            running: &[],
            pods: 2,
            cpu: "2",
            min: 2,
            status: GangStatus::Scheduled,
            chosen: &[
                "topology.example.com/rack=r2",
                "train-0 on n3",
                "train-1 on n3",
            ],
            rejected: &[
                "r1: 2 pods fit, 2 needed; not placed: its placement score would be at most 126 (pods 100 + bin packing 26), and r2's is 152",
            ],
        },
        Case {
            // r2 could score higher, but takes two of the three pods only: pods 66 (2 of
            // the most, 3) + bin packing 52 = 118, below r1's 100 + 39 (6 of 8 CPU = 75,
            // 600Mi of 16Gi = 3).
            name: "a rack that takes fewer pods scores lower",
            running: &[],
            pods: 3,
            cpu: "2",
            min: 2,
            status: GangStatus::Scheduled,
            chosen: &[
                "topology.example.com/rack=r1",
                "train-0 on n1",
                "train-1 on n2",
                "train-2 on n1",
            ],
            rejected: &[
                "r2: 2 pods fit, 2 needed; placement score 118 (pods 66 + bin packing 52) is below r1's 139",
            ],
        },
        Case {
            name: "only r1 holds three pods of 2 CPU",
            running: &[],
            pods: 3,
            cpu: "2",
            min: 3,
            status: GangStatus::Scheduled,
            chosen: &[
                "topology.example.com/rack=r1",
                "train-0 on n1",
                "train-1 on n2",
                "train-2 on n1",
            ],
            rejected: &["r2: 2 of 3 pods fit (free resources and pod slots of its 1 node)"],
        },
        Case {
            name: "no rack holds five: pending, the closest named",
            running: &[],
            pods: 5,
            cpu: "2",
            min: 5,
            status: GangStatus::Unschedulable,
            chosen: &[
                "train-0 on -",
                "train-1 on -",
                "train-2 on -",
                "train-3 on -",
                "train-4 on -",
            ],
            rejected: &[
                // Tried from the best score a rack could reach: r2 (one node) first.
                "r2: 2 of 5 pods fit (free resources and pod slots of its 1 node)",
                "r1: 4 of 5 pods fit (free resources and pod slots of its 2 nodes)",
                "gang: only 4 of minMember 5 pods fit (0 running); the gang binds none of its pending pods",
                "topology: topology key topology.example.com/rack (required): no domain up to level topology.example.com/rack takes the gang; the closest, r1 (topology.example.com/rack), fits 4 of 5 pods",
            ],
        },
        Case {
            name: "a bound pod in r1 keeps the group there though r2 is tighter",
            running: &[("old-0", "n1", "2")],
            pods: 1,
            cpu: "2",
            min: 2,
            status: GangStatus::Scheduled,
            chosen: &[
                "topology.example.com/rack=r1",
                "old-0 on n1",
                "train-0 on n2",
            ],
            rejected: &[],
        },
    ];
    for case in cases {
        let state = cluster(case.running);
        let gang = gang(&state, &[RACK], case.pods, case.cpu, case.min);
        let (status, chosen, rejected, _) = plan(&state, &gang);
        assert_eq!(status, case.status, "{}", case.name);
        assert_eq!(chosen, case.chosen, "{}", case.name);
        assert_eq!(rejected, case.rejected, "{}", case.name);
    }
}

#[test]
fn equal_scores_keep_the_first_rack_and_say_the_tie_is_random() {
    // Two one-node racks of the same size: both score alike.
    let mut state = cluster(&[]);
    state.nodes.retain(|n| n.metadata.name != "n2");
    let index = state
        .nodes
        .iter()
        .position(|n| n.metadata.name == "n4")
        .unwrap();
    state.nodes[index]
        .metadata
        .labels
        .insert(RACK.into(), "r3".into());
    let state = ClusterState::from_objects(state.nodes.iter().cloned().map(Object::Node));
    let gang = gang(&state, &[RACK], 1, "2", 1);
    let (status, chosen, rejected, _) = plan(&state, &gang);
    assert_eq!(status, GangStatus::Scheduled);
    assert_eq!(chosen, ["topology.example.com/rack=r1", "train-0 on n1"]);
    // 2 of 4 CPU = 50, 200Mi of 8Gi = 2: bin packing 26 on every rack.
    // r1 takes the pod and scores what r2 and r3 could at best: they are not placed.
    let tie = "1 pods fit, 1 needed; not placed: its placement score would be at most 126 (pods 100 + bin packing 26), and r1's is 126 (kube-scheduler breaks the tie at random; the plan keeps the first by name)";
    assert_eq!(rejected, [format!("r2: {tie}"), format!("r3: {tie}")]);
}

/// v1.36 spells the constraint `topology: [{key}]`; the v1alpha2 of the development branch
/// spelled it `topologyConstraints: [{topologyKey}]`. Both read the same.
#[test]
fn both_spellings_of_the_constraint_read_the_same() {
    for constraints in [
        "topology: [{key: topology.example.com/rack}]",
        "topologyConstraints: [{topologyKey: topology.example.com/rack}]",
    ] {
        let yaml = format!(
            "apiVersion: scheduling.k8s.io/v1alpha2\nkind: PodGroup\nmetadata: {{name: train, namespace: default}}\nspec:\n  schedulingPolicy: {{gang: {{minCount: 2}}}}\n  schedulingConstraints: {{{constraints}}}\n"
        );
        let (mut parsed, problems) = df_manifest::parse_text(&Arc::from("group.yaml"), &yaml);
        assert!(problems.is_empty(), "{problems:?}");
        let Some(Object::PodGroup(group)) = parsed.pop().map(|m| m.object) else {
            panic!("a PodGroup")
        };
        let keys: Vec<&str> = group
            .spec
            .scheduling_constraints
            .iter()
            .flat_map(|c| &c.topology)
            .map(|t| t.key.as_str())
            .collect();
        assert_eq!(keys, [RACK], "{constraints}");
    }
}
