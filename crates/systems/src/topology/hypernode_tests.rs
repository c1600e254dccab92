//! The HyperNode tree as Volcano's cache builds it (members by exact name, regex and labels;
//! one parent each; no cycle), whether the plugin is on, and the request a job makes. Cases
//! follow `hyper_node_info_test.go` with data of our own.

use std::sync::Arc;

use super::*;
use crate::gang::{kube_batch, model::Gang as GangModel};
use crate::topology::binpack::Weights;

/// Nodes n0..n3 (rack label a for n0, n1; b for n2, n3) plus the given YAML documents.
fn state(extra: &str) -> ClusterState {
    let mut yaml = String::new();
    for (i, rack) in ["a", "a", "b", "b"].iter().enumerate() {
        yaml.push_str(&format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: n{i}\n  labels: {{rack: {rack}}}\nstatus:\n  allocatable: {{cpu: \"4\", memory: 8Gi, pods: \"110\"}}\n---\n"
        ));
    }
    yaml.push_str(extra);
    let (manifests, problems) = df_manifest::parse_text(&Arc::from("state.yaml"), &yaml);
    assert!(problems.is_empty(), "{problems:?}");
    ClusterState::from_objects(manifests.into_iter().map(|m| m.object))
}

/// A HyperNode document: `members` are `(type, selector)` in flow YAML.
fn hyper_node(name: &str, tier: i32, members: &[(&str, &str)]) -> String {
    let members: String = members
        .iter()
        .map(|(t, selector)| format!("  - type: {t}\n    selector: {selector}\n"))
        .collect();
    format!(
        "apiVersion: topology.volcano.sh/v1alpha1\nkind: HyperNode\nmetadata:\n  name: {name}\nspec:\n  tier: {tier}\n  members:\n{members}---\n"
    )
}

fn built(tree: &Tree) -> Vec<String> {
    tree.hyper_nodes
        .iter()
        .map(|h| format!("{} tier{} {:?}", h.name, h.tier, h.nodes))
        .collect()
}

#[test]
fn members_by_exact_name_regex_and_labels_make_the_tier_tree() {
    let yaml = [
        hyper_node(
            "s0",
            2,
            &[
                ("HyperNode", "{exactMatch: {name: r0}}"),
                ("HyperNode", "{exactMatch: {name: r1}}"),
            ],
        ),
        hyper_node(
            "r0",
            1,
            &[
                ("Node", "{exactMatch: {name: n0}}"),
                ("Node", "{exactMatch: {name: n1}}"),
            ],
        ),
        // Unanchored, as Go's MatchString: n2 and n3 both contain "[23]".
        hyper_node("r1", 1, &[("Node", "{regexMatch: {pattern: \"[23]\"}}")]),
        hyper_node(
            "lb",
            1,
            &[("Node", "{labelMatch: {matchLabels: {rack: b}}}")],
        ),
    ]
    .concat();
    let tree = Tree::build(&state(&yaml)).unwrap();
    assert_eq!(
        built(&tree),
        [
            "lb tier1 [2, 3]",
            "r0 tier1 [0, 1]",
            "r1 tier1 [2, 3]",
            "s0 tier2 [0, 1, 2, 3]",
        ]
    );
    assert_eq!(tree.tiers(), [1, 2]);
    let request = tree.request(Mode::Hard, 1, 4, Weights::default());
    assert_eq!(request.levels, ["tier2", "tier1"]);
    // A node in two racks of one tier takes the first by name.
    assert_eq!(
        request.node_domains[2],
        [Some("s0".to_string()), Some("lb".to_string())]
    );
    let rounds: Vec<(String, Vec<String>)> = request
        .rounds
        .iter()
        .map(|r| {
            (
                r.level.clone(),
                r.domains.iter().map(|d| d.name.clone()).collect(),
            )
        })
        .collect();
    assert_eq!(
        rounds,
        [(
            "tier1".to_string(),
            vec!["lb".into(), "r0".into(), "r1".into()]
        )]
    );
    // Up to tier 3, the virtual top HyperNode (tier 2 + 1) holds every node: a level and the
    // last round.
    let whole = tree.request(Mode::Hard, 3, 4, Weights::default());
    assert_eq!(whole.levels, ["tier3", "tier2", "tier1"]);
    let last = whole.rounds.last().unwrap();
    assert_eq!(
        (last.level.as_str(), last.domains.len()),
        ("tier3", 1),
        "{last:?}"
    );
    assert_eq!(
        (last.domains[0].name.as_str(), &last.domains[0].nodes),
        (CLUSTER_TOP, &vec![0, 1, 2, 3])
    );
}

#[test]
fn a_topology_volcano_cannot_build_is_an_error_naming_the_member() {
    let cases: &[(&str, String, &str)] = &[
        (
            "a Node member selector that matches no node",
            hyper_node("r0", 1, &[("Node", "{regexMatch: {pattern: \"^gpu-\"}}")]),
            "HyperNode r0: spec.members[0].selector matches no node",
        ),
        (
            "an empty label selector matches nothing",
            hyper_node("r0", 1, &[("Node", "{labelMatch: {}}")]),
            "HyperNode r0: spec.members[0].selector matches no node",
        ),
        (
            "an exact name that is no node",
            hyper_node("r0", 1, &[("Node", "{exactMatch: {name: n9}}")]),
            "HyperNode r0: spec.members[0].selector matches no node",
        ),
        (
            "a bad regex",
            hyper_node("r0", 1, &[("Node", "{regexMatch: {pattern: \"(\"}}")]),
            "HyperNode r0: spec.members[0].selector: regexMatch.pattern \"(\": regex parse error:",
        ),
        (
            "a HyperNode member selected by regex",
            [
                hyper_node("r0", 1, &[("Node", "{exactMatch: {name: n0}}")]),
                hyper_node("s0", 2, &[("HyperNode", "{regexMatch: {pattern: r}}")]),
            ]
            .concat(),
            "HyperNode s0: spec.members[0].selector: a HyperNode member is selected by exactMatch only",
        ),
        (
            "a HyperNode member that does not exist",
            hyper_node("s0", 2, &[("HyperNode", "{exactMatch: {name: r9}}")]),
            "HyperNode s0: spec.members[0].selector.exactMatch.name: no HyperNode \"r9\"",
        ),
        (
            "a HyperNode in two parents",
            [
                hyper_node("r0", 1, &[("Node", "{exactMatch: {name: n0}}")]),
                hyper_node("s0", 2, &[("HyperNode", "{exactMatch: {name: r0}}")]),
                hyper_node("s1", 2, &[("HyperNode", "{exactMatch: {name: r0}}")]),
            ]
            .concat(),
            "HyperNode s1: spec.members[0].selector.exactMatch.name: HyperNode r0 already has the parent s0, and cannot have another",
        ),
        (
            "a cycle",
            [
                hyper_node("a", 1, &[("HyperNode", "{exactMatch: {name: b}}")]),
                hyper_node("b", 2, &[("HyperNode", "{exactMatch: {name: a}}")]),
            ]
            .concat(),
            "HyperNode a: cyclic membership a -> b -> a",
        ),
        (
            "an unknown member type",
            hyper_node("r0", 1, &[("Rack", "{exactMatch: {name: n0}}")]),
            "HyperNode r0: spec.members[0].type: unknown member type \"Rack\" (expected Node or HyperNode)",
        ),
    ];
    for (name, yaml, want) in cases {
        let error = Tree::build(&state(yaml)).unwrap_err();
        assert!(error.starts_with(want), "{name}: {error}");
    }
}

/// A kube-batch-shaped gang carrying a Volcano networkTopology.
fn gang_with(spec: NetworkTopologySpec) -> GangModel {
    let mut gang = GangModel::new(&kube_batch::KIND, "", &Default::default(), 1);
    gang.network_topology = Some(spec);
    gang
}

fn config(plugins: &[&str]) -> String {
    let plugins: String = plugins
        .iter()
        .map(|p| format!("        - name: {p}\n"))
        .collect();
    format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {{name: {CONFIG_NAME}, namespace: {CONFIG_NAMESPACE}}}\ndata:\n  {CONFIG_KEY}: |\n    tiers:\n    - plugins:\n{plugins}---\n"
    )
}

#[test]
fn the_scheduler_configuration_turns_hypernodes_on_or_off() {
    let rack = hyper_node("r0", 1, &[("Node", "{exactMatch: {name: n0}}")]);
    let spec = NetworkTopologySpec {
        mode: String::new(),
        highest_tier_allowed: Some(1),
        ..NetworkTopologySpec::default()
    };
    let cases: &[(&str, String, &str)] = &[
        (
            "plugin on",
            config(&["gang", PLUGIN]),
            "planned: hard highestTierAllowed 1 []",
        ),
        (
            "plugin off",
            config(&["gang", "binpack"]),
            "ignored: networkTopology ignored: the volcano-scheduler configuration \
             (volcano-system/volcano-scheduler-configmap) does not enable the \
             network-topology-aware plugin",
        ),
        (
            "no configuration",
            String::new(),
            "planned: hard highestTierAllowed 1 [\"the state has no volcano-scheduler \
             configuration (volcano-system/volcano-scheduler-configmap): the \
             network-topology-aware plugin is assumed on\"]",
        ),
    ];
    for (name, extra, want) in cases {
        let state = state(&format!("{rack}{extra}"));
        let got = match HyperNodes.constraint(&gang_with(spec.clone()), &state) {
            Ok(Some(Constraint::Planned(r))) => format!(
                "planned: {} {} {:?}",
                r.mode.as_str(),
                r.constraint,
                r.warnings
            ),
            Ok(Some(Constraint::Ignored(w))) => format!("ignored: {w}"),
            other => format!("{other:?}"),
        };
        assert_eq!(got, *want, "{name}");
    }
    let bad = NetworkTopologySpec {
        mode: "strict".into(),
        highest_tier_allowed: Some(2),
        ..NetworkTopologySpec::default()
    };
    assert_eq!(
        HyperNodes.constraint(&gang_with(bad), &state(&rack)),
        Err("spec.networkTopology.mode: unknown mode \"strict\" (expected hard or soft)".into())
    );
}
