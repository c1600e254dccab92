//! Table tests after upstream `tas_flavor_snapshot_test.go` (`TestSortedDomains`,
//! `TestFindTopologyAssignment`), on our own small cluster:
//!
//! ```text
//! block b1: rack r1: n1 (2 pods fit), n2 (1)    rack r2: n3 (3)
//! block b2: rack r3: n4 (4), n5 (1)
//! ```

use super::*;

fn levels() -> Vec<String> {
    ["block", "rack", "kubernetes.io/hostname"]
        .map(String::from)
        .to_vec()
}

fn leaf(block: &str, rack: &str, node: &str, fits: i32) -> (Vec<String>, i32) {
    (vec![block.into(), rack.into(), node.into()], fits)
}

fn cluster() -> Tree {
    let leaves = [
        leaf("b1", "r1", "n1", 2),
        leaf("b1", "r1", "n2", 1),
        leaf("b1", "r2", "n3", 3),
        leaf("b2", "r3", "n4", 4),
        leaf("b2", "r3", "n5", 1),
    ];
    Tree::new("default", &levels(), &leaves)
}

fn request(count: i32, mode: LevelMode, level: usize) -> PodSetRequest {
    PodSetRequest {
        count,
        mode,
        level,
        slice_size: 1,
        slice_level: 2,
    }
}

/// `node:count` of an assignment, in its order.
fn placed(assignment: &Assignment) -> Vec<String> {
    assignment
        .domains
        .iter()
        .map(|(values, n)| format!("{}:{n}", values.last().unwrap()))
        .collect()
}

#[test]
fn assignments_follow_kueue() {
    use LevelMode::*;
    let slices = |count, level, slice_size, slice_level| PodSetRequest {
        count,
        mode: Required,
        level,
        slice_size,
        slice_level,
    };
    let cases: Vec<(&str, PodSetRequest, usize, Vec<&str>)> = vec![
        (
            "required rack: the tightest rack that holds all (r1 over r2 by name, not r3)",
            request(3, Required, 1),
            1,
            vec!["n1:2", "n2:1"],
        ),
        (
            "required rack: only r3 holds 4; inside it the tightest node n4",
            request(4, Required, 1),
            1,
            vec!["n4:4"],
        ),
        (
            "preferred rack no rack holds: one block up, b1 holds 6, racks filled in order",
            request(6, Preferred, 1),
            0,
            vec!["n1:2", "n2:1", "n3:3"],
        ),
        (
            "preferred block none holds: most free first, the racks below taken across blocks",
            request(8, Preferred, 0),
            0,
            vec!["n1:2", "n2:1", "n4:4", "n5:1"],
        ),
        (
            "unconstrained: least free node that holds all",
            request(3, Unconstrained, 2),
            2,
            vec!["n3:3"],
        ),
        (
            "unconstrained none holds: least free first, no best-fit swap",
            request(6, Unconstrained, 2),
            2,
            vec!["n1:2", "n2:1", "n3:2", "n5:1"],
        ),
        (
            "slices of 2 per rack in one block: b2 (2 slices, fewer pods), nodes smallest first",
            slices(4, 0, 2, 1),
            0,
            vec!["n4:3", "n5:1"],
        ),
        (
            "zero pods: nothing assigned",
            request(0, Required, 1),
            1,
            vec![],
        ),
    ];
    for (name, request, fit_level, want) in cases {
        let got = cluster()
            .assign(&request, &Exclusions::default())
            .unwrap_or_else(|e| panic!("{name}: {}", e.reason));
        assert_eq!(got.fit_level, fit_level, "{name}");
        assert_eq!(placed(&got), want, "{name}");
    }
}

#[test]
fn failures_use_kueue_messages() {
    use LevelMode::*;
    let tainted = Exclusions {
        total_nodes: 6,
        taints: BTreeMap::from([("gpu=true:NoSchedule".to_string(), 1)]),
        resources: BTreeMap::from([("cpu".to_string(), 2)]),
        ..Exclusions::default()
    };
    let cases: Vec<(&str, PodSetRequest, Exclusions, &str)> = vec![
        (
            "required rack larger than every rack",
            request(6, Required, 1),
            Exclusions::default(),
            r#"topology "default" allows to fit only 5 out of 6 pod(s)"#,
        ),
        (
            "preferred block larger than the cluster",
            request(12, Preferred, 0),
            Exclusions::default(),
            r#"topology "default" allows to fit only 11 out of 12 pod(s)"#,
        ),
        (
            "excluded nodes are counted in the message",
            request(6, Required, 1),
            tainted,
            r#"topology "default" allows to fit only 5 out of 6 pod(s). Total nodes: 6; excluded: resource "cpu": 2, taint "gpu=true:NoSchedule": 1"#,
        ),
        (
            "slices: 3 slices of 2 in one rack",
            PodSetRequest {
                count: 6,
                mode: Required,
                level: 1,
                slice_size: 2,
                slice_level: 1,
            },
            Exclusions::default(),
            r#"topology "default" allows to fit only 2 out of 3 slice(s)"#,
        ),
    ];
    for (name, request, excluded, want) in cases {
        let got = cluster().assign(&request, &excluded).unwrap_err();
        assert_eq!(got.reason, want, "{name}");
    }
    let empty = Tree::new("default", &levels(), &[leaf("b1", "r1", "n1", 0)]);
    let got = empty
        .assign(&request(2, Required, 1), &Exclusions::default())
        .unwrap_err();
    assert_eq!(
        got.reason,
        r#"topology "default" doesn't allow to fit any of 2 pod(s)"#
    );
}

#[test]
fn candidates_list_the_requested_level_most_free_first() {
    let got = cluster()
        .assign(&request(6, LevelMode::Required, 1), &Exclusions::default())
        .unwrap_err();
    let racks: Vec<(String, i32)> = got
        .candidates
        .iter()
        .map(|c| (c.values.join("/"), c.pods))
        .collect();
    assert_eq!(
        racks,
        [
            ("b2/r3".to_string(), 5),
            ("b1/r1".into(), 3),
            ("b1/r2".into(), 3)
        ]
    );
}

/// Upstream `TestSortedDomains`: slices descending (BestFit) or ascending
/// (LeastFreeCapacity), then pods ascending, then values.
#[test]
fn domains_sort_as_upstream() {
    let one_level = ["rack".to_string()];
    let racks = [
        (vec!["a".to_string()], 5),
        (vec!["b".to_string()], 4),
        (vec!["c".to_string()], 7),
        (vec!["d".to_string()], 4),
    ];
    let mut tree = Tree::new("t", &one_level, &racks);
    tree.fill_counts(2, 0);
    let names = |ids: Vec<usize>| -> Vec<String> {
        ids.into_iter()
            .map(|d| tree.domains[d].values[0].clone())
            .collect()
    };
    let all = tree.per_level[0].clone();
    assert_eq!(names(tree.sorted(all.clone(), false)), ["c", "b", "d", "a"]);
    assert_eq!(names(tree.sorted(all, true)), ["b", "d", "a", "c"]);
}
