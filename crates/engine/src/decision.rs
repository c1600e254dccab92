//! What one scheduling cycle decides: a verdict per node and the node chosen. A plan makes one
//! decision per pod over every node, so a verdict allocates nothing of its own: the node's
//! name is shared with the scheduler, and the scores are kept inline.

use std::sync::Arc;

use serde::Serialize;
use serde::ser::SerializeMap;

use crate::framework::Code;
use crate::plugins::REGISTRY;

/// The verdict on one node for one pod.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeVerdict {
    /// Shared with every other decision's verdict on this node.
    pub name: Arc<str>,
    #[serde(skip)]
    pub index: usize,
    pub feasible: bool,
    /// Upstream failure messages of the first failing filter (several for NodeResourcesFit).
    pub reasons: Vec<String>,
    /// The plugin that rejected the node.
    pub failed_plugin: Option<&'static str>,
    /// That plugin's status code (UnschedulableAndUnresolvable: preemption cannot help).
    #[serde(skip)]
    pub code: Option<Code>,
    /// Normalised 0..100 scores by plugin (feasible nodes only).
    pub scores: NodeScores,
    /// Weighted total of `scores`.
    pub score: Option<i64>,
}

/// How many plugins can score: each registered scorer at most once.
const SCORERS: usize = {
    let mut count = 0;
    let mut i = 0;
    while i < REGISTRY.len() {
        if REGISTRY[i].score {
            count += 1;
        }
        i += 1;
    }
    count
};

/// Normalised scores by plugin name, in name order as a map keeps them, and serialised as a
/// map. Inline, since a decision holds one per node.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct NodeScores {
    entries: [(&'static str, i64); SCORERS],
    len: usize,
}

impl NodeScores {
    /// Set `plugin`'s score (a plugin scores once per cycle: a second call replaces it).
    pub fn insert(&mut self, plugin: &'static str, score: i64) {
        let at = self.entries[..self.len].partition_point(|(name, _)| *name < plugin);
        if at < self.len && self.entries[at].0 == plugin {
            self.entries[at].1 = score;
            return;
        }
        assert!(self.len < SCORERS, "more scores than scoring plugins");
        self.entries.copy_within(at..self.len, at + 1);
        self.entries[at] = (plugin, score);
        self.len += 1;
    }

    /// Add `plugin`'s score after every plugin already in, which sort before it by name: a
    /// cycle sorts its plugins once, then fills each node's scores without comparing names.
    pub(crate) fn push_in_order(&mut self, plugin: &'static str, score: i64) {
        debug_assert!(self.iter().all(|(name, _)| name < plugin));
        self.entries[self.len] = (plugin, score);
        self.len += 1;
    }

    pub fn get(&self, plugin: &str) -> Option<&i64> {
        self.entries[..self.len]
            .iter()
            .find(|(name, _)| *name == plugin)
            .map(|(_, score)| score)
    }

    pub fn contains_key(&self, plugin: &str) -> bool {
        self.get(plugin).is_some()
    }

    /// Each plugin with its score, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, i64)> + '_ {
        self.entries[..self.len].iter().copied()
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn len(&self) -> usize {
        self.len
    }
}

impl FromIterator<(&'static str, i64)> for NodeScores {
    fn from_iter<I: IntoIterator<Item = (&'static str, i64)>>(scores: I) -> Self {
        let mut all = NodeScores::default();
        for (plugin, score) in scores {
            all.insert(plugin, score);
        }
        all
    }
}

impl std::ops::Index<&str> for NodeScores {
    type Output = i64;
    fn index(&self, plugin: &str) -> &i64 {
        self.get(plugin)
            .unwrap_or_else(|| panic!("no score of {plugin}"))
    }
}

impl Serialize for NodeScores {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.len))?;
        for (plugin, score) in self.iter() {
            map.serialize_entry(plugin, &score)?;
        }
        map.end()
    }
}

/// The outcome of scheduling one pod against the state.
#[derive(Default, Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    pub nodes: Vec<NodeVerdict>,
    pub selected: Option<String>,
    /// Every node that had the top score, in name order (upstream picks one at random; we
    /// pick the smallest name and say which others were equal).
    pub tied: Vec<Arc<str>>,
    /// `0/N nodes are available: ...` when no node fits.
    pub summary: Option<String>,
    /// Problems in the pod's own spec (invalid selectors...) that made terms fail.
    pub problems: Vec<String>,
    /// What DynamicResources' PostFilter says when no node fits, in the releases that enable
    /// it (said before preemption's message, when the profile runs it).
    #[serde(skip)]
    pub dra_post_filter: Option<&'static str>,
    /// No PostFilter runs: a PreEnqueue plugin held the pod, or a filter failed with an error
    /// (the summary is then upstream's `running "<plugin>" filter plugin: <error>`).
    #[serde(skip)]
    pub aborted: bool,
}

impl Decision {
    pub fn verdict(&self, node: &str) -> Option<&NodeVerdict> {
        self.nodes.iter().find(|v| &*v.name == node)
    }

    pub fn selected_verdict(&self) -> Option<&NodeVerdict> {
        self.selected.as_deref().and_then(|n| self.verdict(n))
    }

    pub fn feasible_count(&self) -> usize {
        self.nodes.iter().filter(|v| v.feasible).count()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_keep_name_order_and_serialise_as_a_map() {
        let mut scores = NodeScores::default();
        for (plugin, score) in [
            ("TaintToleration", 100),
            ("ImageLocality", 0),
            ("NodeAffinity", 7),
        ] {
            scores.insert(plugin, score);
        }
        scores.insert("NodeAffinity", 9);
        let order: Vec<(&str, i64)> = scores.iter().collect();
        assert_eq!(
            order,
            [
                ("ImageLocality", 0),
                ("NodeAffinity", 9),
                ("TaintToleration", 100)
            ]
        );
        assert_eq!(scores["NodeAffinity"], 9);
        assert!(!scores.contains_key("InterPodAffinity"));
        assert_eq!(
            serde_json::to_string(&scores).unwrap(),
            r#"{"ImageLocality":0,"NodeAffinity":9,"TaintToleration":100}"#
        );
    }
}
