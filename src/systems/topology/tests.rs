//! The shared placement over candidate domains, on a two-spine cluster built here: which
//! domain takes a gang, the numbers behind every domain turned down, hard and soft failures,
//! and how the plan reads (JSON fields and the table's tree).

use std::sync::Arc;

use super::*;
use crate::manifest;
use crate::model::{Object, ObjectMeta};
use crate::sched::Profile;
use crate::systems::gang::{Member, PodSource, kube_batch, place};

/// Spine s0 holds rack r1 (n1, n2: 4 CPU each) and rack r2 (n3, n4: 2 CPU each); spine s1
/// holds rack r3 (n5: 4 CPU, tainted NoSchedule).
fn cluster() -> ClusterState {
    let node = |name: &str, cpu: &str, taint: &str| {
        format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: {name}\n  labels: {{kubernetes.io/hostname: {name}}}\nspec:\n  taints: [{taint}]\nstatus:\n  allocatable: {{cpu: \"{cpu}\", memory: 8Gi, pods: \"110\"}}\n---\n"
        )
    };
    let yaml = [
        node("n1", "4", ""),
        node("n2", "4", ""),
        node("n3", "2", ""),
        node("n4", "2", ""),
        node("n5", "4", "{key: gpu, effect: NoSchedule}"),
    ]
    .concat();
    let (manifests, problems) = manifest::parse_text(&Arc::from("cluster.yaml"), &yaml);
    assert!(problems.is_empty(), "{problems:?}");
    ClusterState::from_objects(manifests.into_iter().map(|m| m.object))
}

/// A kube-batch gang of `pods` pods of 2 CPU each, `min` of which must fit.
fn gang(pods: usize, min: i64) -> Gang {
    let meta = ObjectMeta {
        name: "train".into(),
        namespace: "default".into(),
        ..ObjectMeta::default()
    };
    let mut gang = Gang::new(&kube_batch::KIND, "", &meta, min);
    gang.members = (0..pods)
        .map(|i| {
            let yaml = format!(
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: train-{i}\n  namespace: default\nspec:\n  containers: [{{name: c, resources: {{requests: {{cpu: \"2\"}}}}}}]\n"
            );
            let (mut parsed, _) = manifest::parse_text(&Arc::from("pod.yaml"), &yaml);
            let Some(Object::Pod(pod)) = parsed.pop().map(|m| m.object) else {
                panic!("pod")
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

/// Levels tier2 (spines) and tier1 (racks); rounds up to `highest` tier, racks in the order
/// r2, r1, r3 (the order a system would prefer them in).
fn request(mode: Mode, highest: usize) -> Request {
    let domains = |names: &[(&str, &[usize])]| -> Vec<Domain> {
        names
            .iter()
            .map(|(name, nodes)| Domain {
                name: name.to_string(),
                nodes: nodes.to_vec(),
            })
            .collect()
    };
    let racks = Round {
        level: "tier1".into(),
        domains: domains(&[("r2", &[2, 3]), ("r1", &[0, 1]), ("r3", &[4])]),
        order: Order::Given,
    };
    let spines = Round {
        level: "tier2".into(),
        domains: domains(&[("s0", &[0, 1, 2, 3]), ("s1", &[4])]),
        order: Order::Given,
    };
    let path = |spine: &str, rack: &str| vec![Some(spine.to_string()), Some(rack.to_string())];
    Request {
        system: "test-topology",
        mode,
        constraint: format!("highestTierAllowed {highest}"),
        levels: vec!["tier2".into(), "tier1".into()],
        node_domains: vec![
            path("s0", "r1"),
            path("s0", "r1"),
            path("s0", "r2"),
            path("s0", "r2"),
            path("s1", "r3"),
        ],
        rounds: [racks, spines].into_iter().take(highest).collect(),
        warnings: Vec::new(),
    }
}

fn plan(state: &ClusterState, gang: &Gang, request: &Request) -> GroupPlan {
    let mut scheduler = Scheduler::new(state, Profile::default());
    plan_in_domains(&mut scheduler, gang, request, false, &mut |s, within| {
        Ok(place::plan_pod_by_pod(s, gang, false, None, within))
    })
    .unwrap()
}

/// Every rack turned down for a gang of six.
const NO_RACK_HOLDS_SIX: &[&str] = &[
    "r2 (tier1): 2 of 6 pods fit (free resources and pod slots of its 2 nodes)",
    "r1 (tier1): 4 of 6 pods fit (free resources and pod slots of its 2 nodes)",
    "r3 (tier1): 0 of 6 pods fit (free resources and pod slots of its 1 node)",
];

#[test]
fn the_first_domain_that_takes_the_gang_wins_and_the_others_say_why() {
    struct Case {
        name: &'static str,
        pods: usize,
        min: i64,
        mode: Mode,
        highest: usize,
        status: GangStatus,
        chosen: &'static [(&'static str, &'static str)],
        placements: &'static [&'static str],
        rejected: &'static [&'static str],
        rejections: &'static [&'static str],
        warnings: &'static [&'static str],
    }
    let cases = [
        Case {
            name: "the smaller rack is turned down on capacity, the next rack takes the gang",
            pods: 4,
            min: 4,
            mode: Mode::Hard,
            highest: 2,
            status: GangStatus::Scheduled,
            chosen: &[("tier2", "s0"), ("tier1", "r1")],
            placements: &["n1", "n2", "n1", "n2"],
            rejected: &[
                "r2 (tier1): 2 of 4 pods fit (free resources and pod slots of its 2 nodes)",
            ],
            rejections: &[],
            warnings: &[],
        },
        Case {
            name: "no rack holds six pods: the spine does; the tainted rack fits none",
            pods: 6,
            min: 6,
            mode: Mode::Hard,
            highest: 2,
            status: GangStatus::Scheduled,
            chosen: &[("tier2", "s0")],
            placements: &["n1", "n2", "n3", "n4", "n1", "n2"],
            rejected: NO_RACK_HOLDS_SIX,
            rejections: &[],
            warnings: &[],
        },
        Case {
            name: "minMember 4 of 6: the rack that holds four takes the gang, two stay pending",
            pods: 6,
            min: 4,
            mode: Mode::Hard,
            highest: 1,
            status: GangStatus::Scheduled,
            chosen: &[("tier2", "s0"), ("tier1", "r1")],
            placements: &["n1", "n2", "n1", "n2", "-", "-"],
            rejected: &[
                "r2 (tier1): 2 of 4 pods fit (free resources and pod slots of its 2 nodes)",
            ],
            rejections: &[],
            warnings: &[],
        },
        Case {
            name: "hard at tier 1 and no rack holds six: unschedulable, the closest rack named",
            pods: 6,
            min: 6,
            mode: Mode::Hard,
            highest: 1,
            status: GangStatus::Unschedulable,
            chosen: &[],
            placements: &["-", "-", "-", "-", "-", "-"],
            rejected: NO_RACK_HOLDS_SIX,
            rejections: &[
                "gang: only 4 of minMember 6 pods fit (0 running); the gang binds none of its pending pods",
                "topology: highestTierAllowed 1 (hard): no domain up to level tier1 takes the gang; the closest, r1 (tier1), fits 4 of 6 pods",
            ],
            warnings: &[],
        },
        Case {
            name: "soft at tier 1 and no rack holds six: placed across racks",
            pods: 6,
            min: 6,
            mode: Mode::Soft,
            highest: 1,
            status: GangStatus::Scheduled,
            chosen: &[],
            placements: &["n1", "n2", "n3", "n4", "n1", "n2"],
            rejected: NO_RACK_HOLDS_SIX,
            rejections: &[],
            warnings: &[
                "highestTierAllowed 1 (soft): no single domain takes the gang, so its pods are placed across domains",
            ],
        },
    ];
    let state = cluster();
    for case in cases {
        let plan = plan(
            &state,
            &gang(case.pods, case.min),
            &request(case.mode, case.highest),
        );
        assert_eq!(plan.status, case.status, "{}", case.name);
        let topology = plan.topology.as_ref().unwrap();
        let chosen: Vec<(&str, &str)> = topology
            .chosen
            .iter()
            .map(|d| (d.level.as_str(), d.domain.as_str()))
            .collect();
        assert_eq!(chosen, case.chosen, "{}", case.name);
        let placements: Vec<&str> = plan
            .pods
            .iter()
            .map(|r| r.node.as_deref().unwrap_or("-"))
            .collect();
        assert_eq!(placements, case.placements, "{}", case.name);
        let rejected: Vec<String> = plan
            .rejected
            .iter()
            .map(|r| format!("{} ({}): {}", r.domain, r.level, r.reason))
            .collect();
        assert_eq!(rejected, case.rejected, "{}", case.name);
        let rejections: Vec<String> = plan
            .rejections
            .iter()
            .map(|r| format!("{}: {}", r.group, r.reason))
            .collect();
        assert_eq!(rejections, case.rejections, "{}", case.name);
        assert_eq!(plan.warnings, case.warnings, "{}", case.name);
    }
}

#[test]
fn each_pod_shows_its_domain_path_in_json_and_the_table_tree() {
    let state = cluster();
    let plan = plan(&state, &gang(6, 6), &request(Mode::Hard, 2));
    let json = serde_json::to_value(&plan).unwrap();
    assert_eq!(
        json["topology"],
        serde_json::json!({
            "system": "test-topology",
            "mode": "hard",
            "constraint": "highestTierAllowed 2",
            "constrainingLevel": "tier2",
            "chosen": [{"level": "tier2", "domain": "s0"}],
        })
    );
    assert_eq!(
        json["rejected"][1],
        serde_json::json!({
            "level": "tier1",
            "domain": "r1",
            "fit": 4,
            "needed": 6,
            "reason": "4 of 6 pods fit (free resources and pod slots of its 2 nodes)",
        })
    );
    assert_eq!(
        json["levels"],
        serde_json::json!(["tier2", "tier1", "kubernetes.io/hostname"])
    );
    assert_eq!(
        json["pods"][2]["domains"],
        serde_json::json!(["s0", "r2", "n3"])
    );
    assert_eq!(
        plan.summary,
        "6/6 pods placed in tier2=s0; tier1s: r1 x4, r2 x2; nodes: n1 x2, n2 x2, n3 x1, n4 x1"
    );
    assert_eq!(
        crate::report::topology::section(&plan),
        "Topology (test-topology, hard, highestTierAllowed 2): kept in s0 (tier2)\n\
         \x20 s0 (tier2)\n\
         \x20   r1 (tier1)\n\
         \x20     n1: train-0, train-4\n\
         \x20     n2: train-1, train-5\n\
         \x20   r2 (tier1)\n\
         \x20     n3: train-2\n\
         \x20     n4: train-3\n\
         Rejected domains (up to tier2):\n\
         \x20 r2 (tier1): 2 of 6 pods fit (free resources and pod slots of its 2 nodes)\n\
         \x20 r1 (tier1): 4 of 6 pods fit (free resources and pod slots of its 2 nodes)\n\
         \x20 r3 (tier1): 0 of 6 pods fit (free resources and pod slots of its 1 node)\n"
    );
    let row = &plan.pods[2];
    assert_eq!(
        domain_path(&plan, row).as_deref(),
        Some("s0 (tier2) > r2 (tier1) > n3")
    );
    assert_eq!(chosen_domain(&plan).as_deref(), Some("domain s0 (tier2)"));
}
