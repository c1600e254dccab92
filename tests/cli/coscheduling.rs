//! coscheduling's QueueSort and non-blocking gangs through `plan --pending`: rows after
//! scheduler-plugins' `test/integration/coscheduling_test.go` (`TestCoschedulingPlugin`), in our
//! own pods on one node `solo` (3Gi of memory, 32 pods). A gang pops as one unit keyed by its
//! highest member priority, then its PodGroup's creationTimestamp; plain pods by their own.

use serde_json::Value;

use crate::support::cli::run_json;

const MID: i32 = 100;
const HIGH: i32 = 1000;

/// A PodGroup: name, minMember, creation minute, minResources memory (empty: none).
type Group = (&'static str, u32, u32, &'static str);
/// A pod: name, group (empty: a plain pod), memory, priority, creation minute.
type PodSpec = (&'static str, &'static str, &'static str, i32, u32);

fn state(groups: &[Group], pods: &[PodSpec], finished: &[(&str, &str)]) -> String {
    let mut items = vec![
        "- {apiVersion: v1, kind: Node, metadata: {name: solo, labels: {kubernetes.io/hostname: solo}}, status: {allocatable: {cpu: \"16\", memory: 3Gi, pods: \"32\"}}}".to_string(),
    ];
    for (name, min, minute, memory) in groups {
        let resources = if memory.is_empty() {
            String::new()
        } else {
            format!(", minResources: {{memory: {memory}}}")
        };
        items.push(format!(
            "- {{apiVersion: scheduling.x-k8s.io/v1alpha1, kind: PodGroup, metadata: {{name: {name}, namespace: lab, creationTimestamp: \"2025-03-01T10:{minute:02}:00Z\"}}, spec: {{minMember: {min}{resources}}}}}"
        ));
    }
    let pod = |name: &str, group: &str, memory: &str, priority: i32, minute: u32, phase: &str| {
        let labels = if group.is_empty() {
            String::new()
        } else {
            format!(", labels: {{scheduling.x-k8s.io/pod-group: {group}}}")
        };
        format!(
            "- {{apiVersion: v1, kind: Pod, metadata: {{name: {name}, namespace: lab, creationTimestamp: \"2025-03-01T10:{minute:02}:00Z\"{labels}}}, spec: {{schedulerName: scheduler-plugins-scheduler, priority: {priority}, containers: [{{name: c, image: c, resources: {{requests: {{memory: {memory}}}}}}}]}}, status: {{phase: {phase}}}}}"
        )
    };
    for (name, group, memory, priority, minute) in pods {
        items.push(pod(name, group, memory, *priority, *minute, "Pending"));
    }
    for (name, group) in finished {
        items.push(pod(name, group, "1Gi", 0, 0, "Succeeded"));
    }
    format!("apiVersion: v1\nkind: List\nitems:\n{}\n", items.join("\n"))
}

/// The pods placed, sorted, and each unplaced group pod's reason.
fn outcome(plan: &Value) -> (Vec<String>, Vec<(String, String)>) {
    let mut placed = Vec::new();
    let mut reasons = Vec::new();
    for group in plan["groups"].as_array().unwrap() {
        for row in group["pods"].as_array().unwrap() {
            let name = row["pod"].as_str().unwrap().to_string();
            match row["node"].as_str() {
                Some(_) => placed.push(name),
                None => reasons.push((name, row["reason"].as_str().unwrap_or("").to_string())),
            }
        }
    }
    if let Some(pods) = plan["batch"]["pods"].as_array() {
        for row in pods {
            if row["node"].is_string() {
                placed.push(row["name"].as_str().unwrap().to_string());
            }
        }
    }
    placed.sort();
    (placed, reasons)
}

fn gang(
    prefix: &'static [&'static str],
    group: &'static str,
    memory: &'static str,
) -> Vec<PodSpec> {
    prefix.iter().map(|p| (*p, group, memory, 0, 5)).collect()
}

#[test]
fn queue_sort_orders_gangs_and_no_gang_blocks_a_smaller_one() {
    let sibling = |pod: &str, n: usize, min: usize| {
        format!(
            "pre-filter pod {pod} cannot find enough sibling pods, current pods number: {n}, \
             minMember of group: {min}"
        )
    };
    struct Row {
        name: &'static str,
        groups: Vec<Group>,
        pods: Vec<PodSpec>,
        finished: Vec<(&'static str, &'static str)>,
        placed: Vec<&'static str>,
        /// Reasons checked for these unplaced pods (others: only unplaced).
        reasons: Vec<(&'static str, String)>,
    }
    let rows = vec![
        // gB (created first) needs 4 x 1Gi = 4Gi > 3Gi and places none; gA's 3 x 0.5Gi fit.
        Row {
            name: "a gang that cannot fit does not block the next",
            groups: vec![("ga", 3, 2, ""), ("gb", 4, 1, "")],
            pods: [
                gang(&["a1", "a2", "a3"], "ga", "512Mi"),
                gang(&["b1", "b2", "b3", "b4"], "gb", "1Gi"),
            ]
            .concat(),
            finished: vec![],
            placed: vec!["a1", "a2", "a3"],
            reasons: vec![],
        },
        // Pods created interleaved: only the groups' creation times order the gangs.
        Row {
            name: "interleaved creation",
            groups: vec![("ga", 3, 2, ""), ("gb", 4, 1, "")],
            pods: vec![
                ("a1", "ga", "512Mi", 0, 10),
                ("b1", "gb", "1Gi", 0, 11),
                ("a2", "ga", "512Mi", 0, 12),
                ("b2", "gb", "1Gi", 0, 13),
                ("a3", "ga", "512Mi", 0, 14),
                ("b3", "gb", "1Gi", 0, 15),
                ("b4", "gb", "1Gi", 0, 16),
            ],
            finished: vec![],
            placed: vec!["a1", "a2", "a3"],
            reasons: vec![],
        },
        // gC has 3 of its 4 pods: PreFilter turns each away; the plain pods take 2 x 1Gi.
        Row {
            name: "too few siblings",
            groups: vec![("gc", 4, 1, "")],
            pods: [
                gang(&["c1", "c2", "c3"], "gc", "512Mi"),
                vec![("p1", "", "1Gi", 0, 6), ("p2", "", "1Gi", 0, 7)],
            ]
            .concat(),
            finished: vec![],
            placed: vec!["p1", "p2"],
            reasons: vec![("c1", sibling("c1", 3, 4)), ("c3", sibling("c3", 3, 4))],
        },
        // A Succeeded pod of gC is a sibling too (4 >= 4): the group gets past PreFilter, but
        // only 3 pods can ever be assigned, so none is.
        Row {
            name: "a finished pod counts as a sibling",
            groups: vec![("gc", 4, 1, "")],
            pods: gang(&["c1", "c2", "c3"], "gc", "512Mi"),
            finished: vec![("c0", "gc")],
            placed: vec![],
            reasons: vec![],
        },
        // gE (high) pops first and takes 3 x 0.5Gi; gD (mid) then needs 3Gi of the 1.5Gi left.
        Row {
            name: "higher-priority gang first",
            groups: vec![("gd", 3, 1, ""), ("ge", 3, 2, "")],
            pods: vec![
                ("d1", "gd", "1Gi", MID, 5),
                ("d2", "gd", "1Gi", MID, 5),
                ("d3", "gd", "1Gi", MID, 5),
                ("e1", "ge", "512Mi", HIGH, 5),
                ("e2", "ge", "512Mi", HIGH, 5),
                ("e3", "ge", "512Mi", HIGH, 5),
            ],
            finished: vec![],
            placed: vec!["e1", "e2", "e3"],
            reasons: vec![],
        },
        // The high plain pods take 3 x 1Gi = all of solo before the mid gang gF.
        Row {
            name: "higher-priority plain pods before a gang",
            groups: vec![("gf", 3, 1, "")],
            pods: vec![
                ("f1", "gf", "512Mi", MID, 2),
                ("f2", "gf", "512Mi", MID, 2),
                ("f3", "gf", "512Mi", MID, 2),
                ("h1", "", "1Gi", HIGH, 3),
                ("h2", "", "1Gi", HIGH, 3),
                ("h3", "", "1Gi", HIGH, 3),
            ],
            finished: vec![],
            placed: vec!["h1", "h2", "h3"],
            reasons: vec![],
        },
        // gH and gI (created first) each need 4Gi; gG's 1.5Gi fits behind them.
        Row {
            name: "three gangs interleaved",
            groups: vec![("gg", 3, 3, ""), ("gh", 4, 1, ""), ("gi", 4, 2, "")],
            pods: vec![
                ("g1", "gg", "512Mi", 0, 10),
                ("h1", "gh", "1Gi", 0, 11),
                ("i1", "gi", "1Gi", 0, 12),
                ("g2", "gg", "512Mi", 0, 13),
                ("h2", "gh", "1Gi", 0, 14),
                ("i2", "gi", "1Gi", 0, 15),
                ("g3", "gg", "512Mi", 0, 16),
                ("h3", "gh", "1Gi", 0, 17),
                ("i3", "gi", "1Gi", 0, 18),
                ("h4", "gh", "1Gi", 0, 19),
                ("i4", "gi", "1Gi", 0, 20),
            ],
            finished: vec![],
            placed: vec!["g1", "g2", "g3"],
            reasons: vec![],
        },
        // With minResources, PreFilter turns gH and gI away: 4Gi wanted, 3Gi free, 1Gi short.
        Row {
            name: "minResources gap",
            groups: vec![
                ("gg", 3, 3, "1536Mi"),
                ("gh", 4, 1, "4Gi"),
                ("gi", 4, 2, "4Gi"),
            ],
            pods: vec![
                ("g1", "gg", "512Mi", 0, 10),
                ("h1", "gh", "1Gi", 0, 11),
                ("i1", "gi", "1Gi", 0, 12),
                ("g2", "gg", "512Mi", 0, 13),
                ("h2", "gh", "1Gi", 0, 14),
                ("i2", "gi", "1Gi", 0, 15),
                ("g3", "gg", "512Mi", 0, 16),
                ("h3", "gh", "1Gi", 0, 17),
                ("i3", "gi", "1Gi", 0, 18),
                ("h4", "gh", "1Gi", 0, 19),
                ("i4", "gi", "1Gi", 0, 20),
            ],
            finished: vec![],
            placed: vec!["g1", "g2", "g3"],
            reasons: vec![
                (
                    "h1",
                    "resource gap: the cluster lacks memory 1Gi for the group's minResources"
                        .into(),
                ),
                (
                    "i4",
                    "resource gap: the cluster lacks memory 1Gi for the group's minResources"
                        .into(),
                ),
            ],
        },
        // gJ's group was created at 10:00, its pods at 10:05; plain q at 10:01. solo has room
        // for two 1.5Gi pods: gJ pops first on its group's time and takes both.
        Row {
            name: "the group's creation time, not its pods'",
            groups: vec![("gj", 2, 0, "")],
            pods: vec![
                ("j1", "gj", "1536Mi", 0, 5),
                ("j2", "gj", "1536Mi", 0, 5),
                ("q", "", "1536Mi", 0, 1),
            ],
            finished: vec![],
            placed: vec!["j1", "j2"],
            reasons: vec![],
        },
    ];
    let dir = tempfile::tempdir().unwrap();
    for row in rows {
        let path = dir.path().join("state.yaml");
        std::fs::write(&path, state(&row.groups, &row.pods, &row.finished)).unwrap();
        let (_, plan) = run_json(&["plan", "--pending", "--state", path.to_str().unwrap(), "-A"]);
        let (placed, reasons) = outcome(&plan);
        assert_eq!(placed, row.placed, "{}", row.name);
        for (pod, want) in &row.reasons {
            let got = reasons
                .iter()
                .find(|(p, _)| p == pod)
                .map(|(_, r)| r.as_str());
            assert_eq!(got, Some(want.as_str()), "{}: {pod}", row.name);
        }
    }
}
