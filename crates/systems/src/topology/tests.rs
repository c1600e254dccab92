//! The shared placement over candidate domains, on a two-spine cluster built here: which
//! domain takes a gang, the numbers behind every domain turned down, hard and soft failures,
//! and how the plan reads in JSON (the table's tree is tested in df-report).

use super::fixtures::{cluster, gang, plan, request};
use super::*;

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
    let row = &plan.pods[2];
    assert_eq!(
        domain_path(&plan, row).as_deref(),
        Some("s0 (tier2) > r2 (tier1) > n3")
    );
    assert_eq!(chosen_domain(&plan).as_deref(), Some("domain s0 (tier2)"));
}
