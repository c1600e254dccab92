//! kube-scheduler's node sampling. From 100 nodes up it stops filtering once it has found
//! `numFeasibleNodesToFind` feasible nodes, and scores only those. It starts where its previous
//! cycle stopped (`nextStartNodeIndex`), which depends on every pod scheduled before, so the
//! node it picks is the best of a window of feasible nodes the preview cannot know. The preview
//! scores every feasible node and picks the best; this module says how many nodes
//! kube-scheduler would score and which nodes could be its pick.

use serde::Serialize;

use crate::Decision;
use crate::profile::Profile;
use df_model::Node;

/// Below this many nodes kube-scheduler evaluates all of them, and it never stops at fewer
/// feasible nodes than this (`minFeasibleNodesToFind`).
pub const MIN_FEASIBLE_NODES_TO_FIND: usize = 100;
/// The adaptive percentage never goes below this (`minFeasibleNodesPercentageToFind`).
const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND: i64 = 5;

/// How many feasible nodes kube-scheduler scores for one pod.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SampleSize {
    /// The feasible nodes it stops at.
    pub nodes_to_find: usize,
    /// Of this many nodes.
    pub nodes: usize,
    /// The percentage of the nodes, and whether it is the adaptive one (no
    /// `percentageOfNodesToScore` in the profile, or 0).
    pub percentage: i64,
    pub adaptive: bool,
}

impl SampleSize {
    /// Upstream `numFeasibleNodesToFind`: every node below 100 nodes (`None`); else the
    /// profile's `percentageOfNodesToScore`, or `50 - nodes / 125` (at least 5), of the nodes,
    /// and never fewer than 100.
    pub fn of(profile: &Profile, nodes: usize) -> Option<SampleSize> {
        if nodes < MIN_FEASIBLE_NODES_TO_FIND {
            return None;
        }
        let configured = profile
            .percentage_of_nodes_to_score
            .filter(|&p| p != 0)
            .map(i64::from);
        let adaptive = configured.is_none();
        let percentage = configured.unwrap_or_else(|| {
            (50 - nodes as i64 / 125).max(MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
        });
        let nodes_to_find = (nodes as i64 * percentage / 100) as usize;
        Some(SampleSize {
            nodes_to_find: nodes_to_find.max(MIN_FEASIBLE_NODES_TO_FIND),
            nodes,
            percentage,
            adaptive,
        })
    }

    /// Where the size comes from, in words: `10% of 5000 nodes, the adaptive
    /// percentageOfNodesToScore`.
    pub fn describe(&self) -> String {
        let source = if self.adaptive {
            "the adaptive percentageOfNodesToScore"
        } else {
            "percentageOfNodesToScore"
        };
        format!("{}% of {} nodes, {source}", self.percentage, self.nodes)
    }

    /// Whether scoring a sample can change the pick: when there are more feasible nodes than
    /// it stops at.
    pub fn samples(&self, feasible: usize) -> bool {
        feasible > self.nodes_to_find
    }
}

/// What sampling means for one decision.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sampling {
    #[serde(flatten)]
    pub size: SampleSize,
    pub feasible: usize,
    /// The feasible nodes that have the top score of some window of `nodes_to_find`
    /// consecutive feasible nodes in kube-scheduler's node order, best first (by the scores
    /// over every feasible node: kube-scheduler normalises within its sample).
    pub could_pick: Vec<String>,
}

/// Sampling for `decision`, made against `nodes` (the state's, in its order); `None` when
/// kube-scheduler would score every feasible node.
pub fn of(profile: &Profile, nodes: &[Node], decision: &Decision) -> Option<Sampling> {
    let size = SampleSize::of(profile, nodes.len())?;
    let scores: Vec<Option<i64>> = {
        let mut by_index = vec![None; nodes.len()];
        for verdict in decision.nodes.iter().filter(|v| v.feasible) {
            if let Some(slot) = by_index.get_mut(verdict.index) {
                *slot = verdict.score;
            }
        }
        by_index
    };
    let feasible: Vec<(usize, i64)> = tree_order(nodes)
        .into_iter()
        .filter_map(|i| scores[i].map(|score| (i, score)))
        .collect();
    if !size.samples(feasible.len()) {
        return None;
    }
    let window = size.nodes_to_find;
    let mut pickable = vec![false; nodes.len()];
    for start in 0..feasible.len() {
        let members = (start..start + window).map(|k| feasible[k % feasible.len()]);
        let best = members.clone().map(|(_, s)| s).max().unwrap_or(0);
        for (i, _) in members.filter(|&(_, s)| s == best) {
            pickable[i] = true;
        }
    }
    let mut could_pick: Vec<(i64, &str)> = feasible
        .iter()
        .filter(|(i, _)| pickable[*i])
        .map(|&(i, score)| (score, nodes[i].metadata.name.as_str()))
        .collect();
    could_pick.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
    Some(Sampling {
        size,
        feasible: feasible.len(),
        could_pick: could_pick.into_iter().map(|(_, n)| n.to_string()).collect(),
    })
}

/// Upstream `GetZoneKey`: region and zone, the GA labels before the beta ones; "" without
/// either.
fn zone_key(node: &Node) -> String {
    let labels = &node.metadata.labels;
    let either = |ga: &str, beta: &str| {
        labels
            .get(ga)
            .or_else(|| labels.get(beta))
            .map_or("", |v| v.as_str())
    };
    let zone = either(
        "topology.kubernetes.io/zone",
        "failure-domain.beta.kubernetes.io/zone",
    );
    let region = either(
        "topology.kubernetes.io/region",
        "failure-domain.beta.kubernetes.io/region",
    );
    if zone.is_empty() && region.is_empty() {
        String::new()
    } else {
        format!("{region}:\0:{zone}")
    }
}

/// The order kube-scheduler's snapshot lists nodes in (upstream `nodeTree.list`): nodes
/// grouped by zone in the order the scheduler's informer added them (the API server lists
/// them by name), zones in the order they first appear, then one node of each zone in turn.
fn tree_order(nodes: &[Node]) -> Vec<usize> {
    let mut by_name: Vec<usize> = (0..nodes.len()).collect();
    by_name.sort_by(|&a, &b| nodes[a].metadata.name.cmp(&nodes[b].metadata.name));
    let mut zones: Vec<(String, Vec<usize>)> = Vec::new();
    for i in by_name {
        let key = zone_key(&nodes[i]);
        match zones.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(i),
            None => zones.push((key, vec![i])),
        }
    }
    let deepest = zones.iter().map(|(_, m)| m.len()).max().unwrap_or(0);
    (0..deepest)
        .flat_map(|depth| zones.iter().filter_map(move |(_, m)| m.get(depth).copied()))
        .collect()
}

#[cfg(test)]
mod tests;
