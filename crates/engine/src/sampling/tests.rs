use super::*;
use crate::NodeVerdict;

/// Upstream `numFeasibleNodesToFind`, its test table's shapes in our numbers: below 100 nodes
/// every node; the adaptive percentage `50 - nodes / 125`, at least 5; a configured one; never
/// fewer than 100.
#[test]
fn nodes_to_find_as_upstream() {
    /// (percentageOfNodesToScore, nodes, (nodes to find, percentage, adaptive)).
    type Case = (Option<u8>, usize, Option<(usize, i64, bool)>);
    let cases: [Case; 9] = [
        (None, 99, None),
        (Some(40), 10, None),
        // 50 - 100/125 = 50%: 50 nodes, raised to 100.
        (None, 100, Some((100, 50, true))),
        // 50 - 1000/125 = 42%: 420.
        (None, 1000, Some((420, 42, true))),
        (Some(40), 1000, Some((400, 40, false))),
        // 0 is the adaptive percentage.
        (Some(0), 1000, Some((420, 42, true))),
        // 50 - 5000/125 = 10%: 500.
        (None, 5000, Some((500, 10, true))),
        // 50 - 6000/125 = 2%, raised to 5%: 300.
        (None, 6000, Some((300, 5, true))),
        // 10% of 150 is 15, raised to 100.
        (Some(10), 150, Some((100, 10, false))),
    ];
    for (percentage, nodes, want) in cases {
        let profile = Profile {
            percentage_of_nodes_to_score: percentage,
            ..Profile::default()
        };
        let got = SampleSize::of(&profile, nodes).map(|s| {
            assert_eq!(s.nodes, nodes);
            (s.nodes_to_find, s.percentage, s.adaptive)
        });
        assert_eq!(got, want, "{percentage:?} of {nodes}");
    }
}

fn node(name: &str, zone: Option<&str>) -> Node {
    let mut node = Node::default();
    node.metadata.name = name.into();
    if let Some(zone) = zone {
        node.metadata
            .labels
            .insert("topology.kubernetes.io/zone".into(), zone.into());
    }
    node
}

/// The node tree lists one node of each zone in turn, zones in the order their first node
/// comes by name, each zone's nodes by name; nodes without a zone form the "" zone.
#[test]
fn nodes_in_the_node_trees_order() {
    let nodes = [
        node("x", None),
        node("c1", Some("c")),
        node("a3", Some("a")),
        node("b1", Some("b")),
        node("a1", Some("a")),
        node("a2", Some("a")),
    ];
    let names: Vec<&str> = tree_order(&nodes)
        .into_iter()
        .map(|i| nodes[i].metadata.name.as_str())
        .collect();
    assert_eq!(names, ["a1", "b1", "c1", "x", "a2", "a3"]);
}

/// 120 nodes without zones, all feasible, node i scoring i: kube-scheduler scores windows of
/// 100 consecutive nodes (50% of 120 raised to 100). The 20 windows that start at n000..n019
/// miss n119 and pick their last node, n099..n118; every other window holds n119. So 21 nodes
/// could be picked, n119 first.
#[test]
fn the_nodes_some_window_would_pick() {
    let nodes: Vec<Node> = (0..120).map(|i| node(&format!("n{i:03}"), None)).collect();
    let decision = |score: &dyn Fn(usize) -> i64, feasible: usize| Decision {
        nodes: (0..120)
            .map(|i| NodeVerdict {
                name: crate::decision::intern(&format!("n{i:03}")),
                index: i,
                feasible: i < feasible,
                reasons: crate::Reasons::default(),
                failed_plugin: None,
                code: None,
                scores: Default::default(),
                score: (i < feasible).then(|| score(i)),
            })
            .collect(),
        ..Decision::default()
    };
    let profile = Profile::default();
    let sampling = of(&profile, &nodes, &decision(&|i| i as i64, 120)).unwrap();
    let want: Vec<String> = (99..120).rev().map(|i| format!("n{i:03}")).collect();
    assert_eq!(sampling.could_pick, want);
    assert_eq!((sampling.size.nodes_to_find, sampling.feasible), (100, 120));
    // Equal scores: any node could be picked.
    let tied = of(&profile, &nodes, &decision(&|_| 7, 120)).unwrap();
    assert_eq!(tied.could_pick.len(), 120);
    // 100 feasible nodes: kube-scheduler scores them all.
    assert_eq!(of(&profile, &nodes, &decision(&|i| i as i64, 100)), None);
}
