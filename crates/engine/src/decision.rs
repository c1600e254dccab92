//! What one scheduling cycle decides: a verdict per node and the node chosen. A plan makes one
//! decision per pod over every node, so a verdict allocates nothing of its own: the node's
//! name is shared with the scheduler, and the scores are kept inline.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, OnceLock};

use serde::Serialize;
use serde::ser::SerializeMap;

use crate::framework::Code;
use crate::plugins::REGISTRY;

/// The verdict on one node for one pod.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeVerdict {
    /// Interned ([`intern`]): copied into every decision's verdict on this node.
    pub name: &'static str,
    #[serde(skip)]
    pub index: usize,
    pub feasible: bool,
    /// Upstream failure messages of the first failing filter (several for NodeResourcesFit).
    pub reasons: Reasons,
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

/// `name`, stored once for the whole process. Node names are interned: a plan makes a
/// verdict per node per pod, and a borrowed name is copied for free where an owned or shared
/// one would be allocated or counted each time. What is kept is bounded by the distinct node
/// names the process reads, which it holds anyway.
pub(crate) fn intern(name: &str) -> &'static str {
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut names = NAMES
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if let Some(name) = names.get(name) {
        return name;
    }
    let name: &'static str = Box::leak(name.into());
    names.insert(name);
    name
}

/// A rejected node's failure messages, shared by the copies of its verdict: a template's
/// kept verdicts are copied into every decision of its replicas.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reasons(Option<Arc<[String]>>);

/// A list, empty for a feasible node, as the `Vec` it replaced.
impl Serialize for Reasons {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl std::ops::Deref for Reasons {
    type Target = [String];
    fn deref(&self) -> &[String] {
        self.0.as_deref().unwrap_or_default()
    }
}

impl From<Vec<String>> for Reasons {
    fn from(reasons: Vec<String>) -> Self {
        Reasons((!reasons.is_empty()).then(|| reasons.into()))
    }
}

impl<'r> IntoIterator for &'r Reasons {
    type Item = &'r String;
    type IntoIter = std::slice::Iter<'r, String>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<const N: usize> PartialEq<[&str; N]> for Reasons {
    fn eq(&self, other: &[&str; N]) -> bool {
        self.len() == N && self.iter().zip(other).all(|(a, b)| a == b)
    }
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

/// The scoring plugins' names in name order: each one's slot in [`NodeScores`].
fn scorer_names() -> &'static [&'static str] {
    static NAMES: OnceLock<Vec<&'static str>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let mut names: Vec<&'static str> = REGISTRY
            .iter()
            .filter(|r| r.score)
            .map(|r| r.name)
            .collect();
        names.sort_unstable();
        names
    })
}

/// Normalised scores by plugin name, in name order as a map keeps them, and serialised as a
/// map. Inline and small, since a decision holds one per node: a score per scoring plugin,
/// by its slot in name order, and which of them are set.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct NodeScores {
    scores: [i64; SCORERS],
    set: u16,
}

impl NodeScores {
    /// The slot of `plugin`'s score, `None` for a plugin that cannot score.
    pub(crate) fn slot(plugin: &str) -> Option<usize> {
        scorer_names().iter().position(|name| *name == plugin)
    }

    /// Set the score in `slot` (from [`slot`](Self::slot)): a cycle looks its plugins' slots up
    /// once, then fills each node's scores without comparing names.
    pub(crate) fn set(&mut self, slot: usize, score: i64) {
        self.scores[slot] = score;
        self.set |= 1 << slot;
    }

    /// Set `plugin`'s score. Only the registry's scoring plugins score.
    pub fn insert(&mut self, plugin: &str, score: i64) {
        let slot = Self::slot(plugin).unwrap_or_else(|| panic!("{plugin} does not score"));
        self.set(slot, score);
    }

    pub fn get(&self, plugin: &str) -> Option<&i64> {
        let slot = Self::slot(plugin)?;
        (self.set & (1 << slot) != 0).then(|| &self.scores[slot])
    }

    pub fn contains_key(&self, plugin: &str) -> bool {
        self.get(plugin).is_some()
    }

    /// Each plugin with its score, in name order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, i64)> + '_ {
        scorer_names()
            .iter()
            .enumerate()
            .filter(|(slot, _)| self.set & (1 << slot) != 0)
            .map(|(slot, name)| (*name, self.scores[slot]))
    }

    pub fn is_empty(&self) -> bool {
        self.set == 0
    }

    pub fn len(&self) -> usize {
        self.set.count_ones() as usize
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
        let mut map = serializer.serialize_map(Some(self.len()))?;
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
    pub tied: Vec<&'static str>,
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
        self.nodes.iter().find(|v| v.name == node)
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
    fn a_verdict_serialises_as_the_map_and_vectors_it_was() {
        let mut verdict = NodeVerdict {
            name: "n1",
            index: 0,
            feasible: true,
            reasons: Reasons::default(),
            failed_plugin: None,
            code: None,
            scores: [("NodeAffinity", 7)].into_iter().collect(),
            score: Some(14),
        };
        let json = |v: &NodeVerdict| serde_json::to_string(v).unwrap();
        assert_eq!(
            json(&verdict),
            r#"{"name":"n1","feasible":true,"reasons":[],"failedPlugin":null,"scores":{"NodeAffinity":7},"score":14}"#
        );
        verdict.feasible = false;
        verdict.reasons = vec!["Insufficient cpu".to_string()].into();
        verdict.scores = NodeScores::default();
        verdict.score = None;
        assert_eq!(
            json(&verdict),
            r#"{"name":"n1","feasible":false,"reasons":["Insufficient cpu"],"failedPlugin":null,"scores":{},"score":null}"#
        );
    }

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
