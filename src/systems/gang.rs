//! What Godel and Volcano plans have in common: the `groups[]` entry of the plan contract, the
//! per-level domain counts behind the summary line, and the comparison with the plain default
//! scheduler. Kept apart from the two systems so both report in exactly the same shape.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::Node;
use crate::model::fluid::HOSTNAME_LABEL;

/// One gang in `plan -o json` (`groups[]`). The first six fields are the contract; the rest
/// explain the plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupPlan {
    /// `PodGroup` (Godel) or `Job` (Volcano).
    pub kind: &'static str,
    pub namespace: String,
    pub name: String,
    /// Every pod of the gang, running ones included; `null` when it would stay pending.
    pub placements: BTreeMap<String, Option<String>>,
    /// Pods with a node once the plan is applied (running ones included).
    pub scheduled: usize,
    pub min_member: usize,
    /// Pods of the gang that already run; they count towards `minMember`.
    pub running: usize,
    /// Topology keys shown per pod, largest scope first.
    pub levels: Vec<String>,
    /// Table rows in the order the pods were planned.
    pub pods: Vec<PodRow>,
    /// Godel: the node group (topology domain) that took the unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_group: Option<String>,
    /// Pods per domain at each level of `levels`.
    pub domains: Vec<LevelCount>,
    /// Why candidate groups (or the gang as a whole) were turned down.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rejections: Vec<Rejection>,
    pub summary: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comparison: Option<Comparison>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodRow {
    pub pod: String,
    /// Volcano task name; Godel pods have none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    pub node: Option<String>,
    /// The pod's domain at each of the plan's `levels` (None when unplaced or unlabelled).
    pub domains: Vec<Option<String>>,
    pub running: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LevelCount {
    pub key: String,
    pub pods: BTreeMap<String, usize>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rejection {
    pub group: String,
    pub reason: String,
}

/// The same pods placed by the plain default scheduler, one by one, without group semantics.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    pub placements: BTreeMap<String, Option<String>>,
    pub scheduled: usize,
    /// How many domains each placement spans at each level.
    pub levels: Vec<LevelSpread>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LevelSpread {
    pub key: String,
    /// Domains the gang-aware plan uses.
    pub gang: usize,
    /// Domains the default scheduler uses.
    pub default: usize,
}

/// Pods per domain at each level; pods without a node, or on nodes without the label, are not
/// counted.
pub fn count_domains<'a>(
    levels: &[String],
    nodes_of_pods: impl IntoIterator<Item = &'a Node> + Clone,
) -> Vec<LevelCount> {
    levels
        .iter()
        .map(|key| {
            let mut pods = BTreeMap::new();
            for node in nodes_of_pods.clone() {
                if let Some(value) = node.metadata.labels.get(key) {
                    *pods.entry(value.clone()).or_insert(0) += 1;
                }
            }
            LevelCount {
                key: key.clone(),
                pods,
            }
        })
        .collect()
}

/// `8/8 pods placed in bigPod=a, miniPod=a1; tors: a1-t1 x6, a1-t2 x2`: levels the gang fills
/// with one domain are named, levels it spreads over are counted.
pub fn summary_line(placed: usize, total: usize, domains: &[LevelCount]) -> String {
    let mut line = format!("{placed}/{total} pods placed");
    let single: Vec<String> = domains
        .iter()
        .filter(|level| level.pods.len() == 1)
        .flat_map(|level| level.pods.keys().map(move |v| format!("{}={v}", level.key)))
        .collect();
    if !single.is_empty() {
        line.push_str(" in ");
        line.push_str(&single.join(", "));
    }
    for level in domains.iter().filter(|level| level.pods.len() > 1) {
        let counts: Vec<String> = level
            .pods
            .iter()
            .map(|(value, n)| format!("{value} x{n}"))
            .collect();
        line.push_str(&format!("; {}: {}", plural(&level.key), counts.join(", ")));
    }
    line
}

/// `tor` -> `tors`, `topology.kubernetes.io/zone` -> `zones`, the hostname label -> `nodes`.
fn plural(key: &str) -> String {
    if key == HOSTNAME_LABEL {
        return "nodes".to_string();
    }
    let short = key.rsplit('/').next().unwrap_or(key);
    format!("{short}s")
}

/// How many distinct domains the placed pods occupy at each level, gang plan against default.
pub fn spread(levels: &[String], gang: &[LevelCount], default: &[LevelCount]) -> Vec<LevelSpread> {
    levels
        .iter()
        .zip(gang.iter().zip(default))
        .map(|(key, (g, d))| LevelSpread {
            key: key.clone(),
            gang: g.pods.len(),
            default: d.pods.len(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(key: &str, pods: &[(&str, usize)]) -> LevelCount {
        LevelCount {
            key: key.into(),
            pods: pods.iter().map(|(v, n)| (v.to_string(), *n)).collect(),
        }
    }

    #[test]
    fn summary_names_single_domains_and_counts_spread_ones() {
        let cases = [
            (
                8,
                8,
                vec![
                    level("bigPod", &[("a", 8)]),
                    level("miniPod", &[("a1", 8)]),
                    level("tor", &[("a1-t1", 6), ("a1-t2", 2)]),
                ],
                "8/8 pods placed in bigPod=a, miniPod=a1; tors: a1-t1 x6, a1-t2 x2",
            ),
            (
                3,
                4,
                vec![level(
                    "topology.kubernetes.io/zone",
                    &[("z1", 1), ("z2", 2)],
                )],
                "3/4 pods placed; zones: z1 x1, z2 x2",
            ),
            (
                2,
                2,
                vec![level(HOSTNAME_LABEL, &[("n1", 1), ("n2", 1)])],
                "2/2 pods placed; nodes: n1 x1, n2 x1",
            ),
            (0, 5, vec![level("bigPod", &[])], "0/5 pods placed"),
        ];
        for (placed, total, domains, want) in cases {
            assert_eq!(summary_line(placed, total, &domains), want);
        }
    }
}
