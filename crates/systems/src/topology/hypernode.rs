//! Volcano network-topology-aware scheduling (volcano-sh/volcano `pkg/scheduler/api/
//! hyper_node_info.go`, the `allocate` action's hypernode path, the `network-topology-aware`
//! plugin). HyperNodes form a tier tree: a HyperNode's members are nodes (by exact name, name
//! regex or labels) or lower HyperNodes (by exact name only), and each HyperNode holds the
//! nodes of its whole subtree. Above them all, each session adds a virtual HyperNode,
//! `<cluster-top-hypernode>`, holding every node, one tier above the highest (tier 1 when
//! there are none: `framework/session.go` addClusterTopHyperNode). A Job or PodGroup with
//! `spec.networkTopology` is placed, in `hard` mode, inside one HyperNode: the allocate action
//! walks the tiers from the lowest up to `highestTierAllowed` (or the tier `highestTierName`
//! names), tries the job in every eligible HyperNode of a tier, and keeps the one of those
//! that hold it with the highest bin-packing score ([`super::binpack`]); a tier where none
//! does passes to the next; no tier holds it: the job stays pending. Since v1.14 a `hard`
//! spec without either field is no constraint at all, and v1.15 turns `soft` into `hard` up
//! to the top tier (`convertSoftToHardTopology`).
//!
//! A job whose pods already run is pinned (`AllocatedHyperNode`, which Volcano keeps in memory
//! and recovers each session from its bound pods' nodes: `framework/session.go`
//! recoverAllocatedHyperNode): to the lowest-tier HyperNode holding all of them, the virtual top
//! included. The rest of the job is searched for only under that HyperNode's highest ancestor
//! within `highestTierAllowed`, without the eligibility pre-filter; a pinned HyperNode above
//! `highestTierAllowed` leaves the rest of the job unplaced (`network_topology_aware.go`
//! getSearchRoot, getHighestAllowedHyperNode, isEligibleHyperNode).
//!
//! Deviation, said here and in the docs: a topology Volcano could not build (a member matching
//! nothing, two parents, a cycle) is an error here, where Volcano logs it and stops scheduling
//! hard-mode jobs.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use regex::Regex;

use super::binpack::Weights;
use super::{Constraint, Domain, Mode, Order, Pin, Request, Round, TopologySystem, pending_pods};
use crate::gang::Gang;
use crate::volcano_conf::SchedulerConf;
use df_engine::selector::label_selector_matches;
use df_manifest::ManifestSet;
use df_model::gang::NetworkTopologySpec;
use df_model::{HyperNode, Object};
use df_state::ClusterState;

/// `groups[].topology.system` for Volcano HyperNodes.
pub const SYSTEM: &str = "volcano-hypernodes";
/// The plugin that must be in the scheduler's tiers for HyperNodes to count.
pub const PLUGIN: &str = "network-topology-aware";
pub use df_model::hypernode::{CONFIG_KEY, CONFIG_NAME, CONFIG_NAMESPACE};
/// The virtual HyperNode above all others, holding every node.
pub const CLUSTER_TOP: &str = "<cluster-top-hypernode>";

/// Volcano's HyperNode topology as a [`TopologySystem`].
pub struct HyperNodes;

impl TopologySystem for HyperNodes {
    fn constraint(&self, gang: &Gang, state: &ClusterState) -> Result<Option<Constraint>, String> {
        let Some(spec) = &gang.network_topology else {
            return Ok(None);
        };
        let mut warnings = Vec::new();
        let weights = match plugin_enabled(state) {
            Plugin::Off => {
                return Ok(Some(Constraint::Ignored(format!(
                    "networkTopology ignored: the volcano-scheduler configuration \
                     ({CONFIG_NAMESPACE}/{CONFIG_NAME}) does not enable the {PLUGIN} plugin"
                ))));
            }
            Plugin::Assumed => {
                warnings.push(format!(
                    "the state has no volcano-scheduler configuration ({CONFIG_NAMESPACE}/\
                     {CONFIG_NAME}): the {PLUGIN} plugin is assumed on"
                ));
                Weights::default()
            }
            Plugin::Unreadable(e) => {
                warnings.push(format!(
                    "{CONFIG_NAMESPACE}/{CONFIG_NAME} {CONFIG_KEY}: {e}; the {PLUGIN} plugin is \
                     assumed on"
                ));
                Weights::default()
            }
            Plugin::On(weights) => weights,
        };
        let tree = Tree::build(state)?;
        let Some((mode, highest)) = read_spec(spec, &state.hyper_nodes)? else {
            return Ok(Some(Constraint::Ignored(
                "networkTopology hard without highestTierAllowed or highestTierName: Volcano \
                 (1.14 and later) keeps the job in no HyperNode"
                    .into(),
            )));
        };
        let mut request = tree.request(mode, highest, state.nodes.len(), weights);
        request.warnings = warnings;
        let (_, bound) = pending_pods(gang, state);
        let on: BTreeSet<&str> = bound.iter().map(|p| p.spec.node_name.as_str()).collect();
        let nodes: Option<Vec<usize>> = on.iter().map(|n| state.node_index(n)).collect();
        if let Some(pinned) = nodes.and_then(|nodes| tree.allocated(&nodes)) {
            let on: Vec<&str> = on.into_iter().collect();
            tree.pin(&mut request, pinned, highest, &on.join(", "));
        }
        Ok(Some(Constraint::Planned(request)))
    }
}

/// The tier of [`CLUSTER_TOP`] over HyperNodes of `tiers`: one above the highest, 1 without
/// HyperNodes.
pub fn top_tier(tiers: impl IntoIterator<Item = i32>) -> i32 {
    tiers.into_iter().max().unwrap_or(0) + 1
}

/// A job's mode and highest tier as Volcano reads them against `hyper_nodes`: `hard` by
/// default, the tier a `highestTierName` names (by the HyperNodes' `tierName`), and `soft` as
/// `hard` up to the top tier; `None` for a hard spec that names no tier (no constraint since
/// v1.14, whose CRD dropped the default of 1).
pub fn read_spec(
    spec: &NetworkTopologySpec,
    hyper_nodes: &[HyperNode],
) -> Result<Option<(Mode, i32)>, String> {
    let mode = match spec.mode.as_str() {
        "" | "hard" => Mode::Hard,
        "soft" => {
            let top = top_tier(hyper_nodes.iter().map(|h| h.spec.tier));
            return Ok(Some((Mode::Soft, top)));
        }
        other => {
            return Err(format!(
                "spec.networkTopology.mode: unknown mode {other:?} (expected hard or soft)"
            ));
        }
    };
    if let Some(tier) = spec.highest_tier_allowed {
        return Ok(Some((mode, tier)));
    }
    if spec.highest_tier_name.is_empty() {
        return Ok(None);
    }
    let named = hyper_nodes
        .iter()
        .find(|h| h.spec.tier_name == spec.highest_tier_name);
    match named {
        Some(h) => Ok(Some((mode, h.spec.tier))),
        None => Err(format!(
            "spec.networkTopology.highestTierName: no HyperNode has tierName {:?}; Volcano \
             fails to find the tier and does not schedule the job",
            spec.highest_tier_name
        )),
    }
}

/// Whether the scheduler configuration turns the plugin on, and with which weights.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Plugin {
    On(Weights),
    Off,
    /// The state has no configuration: assumed on.
    Assumed,
    /// The configuration cannot be read: assumed on.
    Unreadable(String),
}

/// Whether the state's volcano-scheduler configuration leaves the plugin out, so that
/// Volcano ignores every `networkTopology` (a missing or unreadable configuration counts as on).
pub fn plugin_off(state: &ClusterState) -> bool {
    plugin_enabled(state) == Plugin::Off
}

fn plugin_enabled(state: &ClusterState) -> Plugin {
    match SchedulerConf::of(state) {
        None => Plugin::Assumed,
        Some(Err(e)) => Plugin::Unreadable(e),
        Some(Ok(conf)) => match conf.plugin(PLUGIN) {
            Some(p) => Plugin::On(Weights::from_arguments(&p.arguments)),
            None => Plugin::Off,
        },
    }
}

/// One HyperNode of the built tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Built {
    pub name: String,
    pub tier: i32,
    /// The HyperNode it is a member of (none: only the virtual top is above it).
    pub parent: Option<String>,
    /// Every node of its subtree (state indexes, sorted).
    pub nodes: Vec<usize>,
}

/// The HyperNodes of a state as Volcano's cache builds them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tree {
    /// Sorted by tier, then name.
    pub hyper_nodes: Vec<Built>,
}

impl Tree {
    /// Build the tree: resolve every member selector, check that each HyperNode has at most
    /// one parent and that membership has no cycle, and gather each subtree's nodes.
    pub fn build(state: &ClusterState) -> Result<Tree, String> {
        let mut sources: Vec<&HyperNode> = state.hyper_nodes.iter().collect();
        sources.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
        let index: BTreeMap<&str, usize> = sources
            .iter()
            .enumerate()
            .map(|(i, h)| (h.metadata.name.as_str(), i))
            .collect();
        let mut direct_nodes: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); sources.len()];
        let mut children: Vec<Vec<usize>> = vec![Vec::new(); sources.len()];
        let mut parent: Vec<Option<usize>> = vec![None; sources.len()];
        for (i, hyper_node) in sources.iter().enumerate() {
            let name = &hyper_node.metadata.name;
            for (m, member) in hyper_node.spec.members.iter().enumerate() {
                let at = |field: &str| format!("HyperNode {name}: spec.members[{m}]{field}");
                match member.member_type.as_str() {
                    "Node" => {
                        let matched = member_nodes(state, &member.selector)
                            .map_err(|e| format!("{}: {e}", at(".selector")))?;
                        if matched.is_empty() {
                            return Err(format!("{} matches no node", at(".selector")));
                        }
                        direct_nodes[i].extend(matched);
                    }
                    "HyperNode" => {
                        let Some(exact) = &member.selector.exact_match else {
                            return Err(format!(
                                "{}: a HyperNode member is selected by exactMatch only",
                                at(".selector")
                            ));
                        };
                        let Some(&child) = index.get(exact.name.as_str()) else {
                            return Err(format!(
                                "{}: no HyperNode {:?}",
                                at(".selector.exactMatch.name"),
                                exact.name
                            ));
                        };
                        if let Some(other) = parent[child].filter(|&p| p != i) {
                            return Err(format!(
                                "{}: HyperNode {} already has the parent {}, and cannot have \
                                 another",
                                at(".selector.exactMatch.name"),
                                exact.name,
                                sources[other].metadata.name
                            ));
                        }
                        parent[child] = Some(i);
                        children[i].push(child);
                    }
                    other => {
                        return Err(format!(
                            "{}: unknown member type {other:?} (expected Node or HyperNode)",
                            at(".type")
                        ));
                    }
                }
            }
        }
        // With one parent each, a cycle is a HyperNode that is its own ancestor.
        for start in 0..sources.len() {
            let mut chain = vec![start];
            let mut at = start;
            while let Some(up) = parent[at] {
                chain.push(up);
                if up == start {
                    let names: Vec<&str> = chain
                        .iter()
                        .rev()
                        .map(|&i| sources[i].metadata.name.as_str())
                        .collect();
                    return Err(format!(
                        "HyperNode {}: cyclic membership {}",
                        sources[start].metadata.name,
                        names.join(" -> ")
                    ));
                }
                at = up;
            }
        }
        let mut subtree: Vec<Option<BTreeSet<usize>>> = vec![None; sources.len()];
        for i in 0..sources.len() {
            gather(i, &children, &direct_nodes, &mut subtree);
        }
        let mut hyper_nodes: Vec<Built> = sources
            .iter()
            .zip(subtree)
            .zip(&parent)
            .map(|((h, nodes), up)| Built {
                name: h.metadata.name.clone(),
                tier: h.spec.tier,
                parent: up.map(|p| sources[p].metadata.name.clone()),
                nodes: nodes.unwrap_or_default().into_iter().collect(),
            })
            .collect();
        hyper_nodes.sort_by(|a, b| a.tier.cmp(&b.tier).then_with(|| a.name.cmp(&b.name)));
        Ok(Tree { hyper_nodes })
    }

    /// The distinct tiers, lowest first.
    pub fn tiers(&self) -> Vec<i32> {
        let tiers: BTreeSet<i32> = self.hyper_nodes.iter().map(|h| h.tier).collect();
        tiers.into_iter().collect()
    }

    /// The request of a job in `mode` up to tier `highest`: levels are the tiers (widest
    /// first), each node's domain at a tier is the first HyperNode (by name) of that tier
    /// holding it, and the rounds are the tiers up to `highest`, lowest first, each choosing
    /// by `weights`. The virtual top HyperNode is a level and the last round when `highest`
    /// reaches its tier.
    pub fn request(&self, mode: Mode, highest: i32, nodes: usize, weights: Weights) -> Request {
        let mut tiers = self.tiers();
        let top = top_tier(self.hyper_nodes.iter().map(|h| h.tier));
        let mut hyper_nodes: Cow<[Built]> = Cow::Borrowed(&self.hyper_nodes);
        if top <= highest {
            tiers.push(top);
            hyper_nodes.to_mut().push(Built {
                name: CLUSTER_TOP.to_string(),
                tier: top,
                parent: None,
                nodes: (0..nodes).collect(),
            });
        }
        let levels: Vec<String> = tiers.iter().rev().map(|&t| level_name(t)).collect();
        let mut node_domains = vec![vec![None; levels.len()]; nodes];
        for hyper_node in hyper_nodes.iter() {
            let level = levels
                .iter()
                .position(|l| *l == level_name(hyper_node.tier))
                .expect("every tier is a level");
            for &n in &hyper_node.nodes {
                node_domains[n][level].get_or_insert_with(|| hyper_node.name.clone());
            }
        }
        let rounds = tiers
            .iter()
            .filter(|&&t| t <= highest)
            .map(|&tier| Round {
                level: level_name(tier),
                domains: hyper_nodes
                    .iter()
                    .filter(|h| h.tier == tier)
                    .map(|h| Domain {
                        name: h.name.clone(),
                        nodes: h.nodes.clone(),
                    })
                    .collect(),
                order: Order::BinPack(weights.clone()),
            })
            .collect();
        Request {
            system: SYSTEM,
            mode,
            constraint: format!("highestTierAllowed {highest}"),
            levels,
            node_domains,
            rounds,
            warnings: Vec::new(),
            pinned: None,
        }
    }
}

impl Tree {
    /// The tier of the virtual top HyperNode over this tree.
    fn top(&self) -> i32 {
        top_tier(self.hyper_nodes.iter().map(|h| h.tier))
    }

    /// A job's `AllocatedHyperNode` when its bound pods run on `nodes` (state indexes, at
    /// least one): the lowest-tier HyperNode holding all of them, the virtual top (which holds
    /// every node) at last; of several in one tier the first by name, where Volcano takes any.
    /// Volcano recovers it from a job's bound pods each session; a pod bound to a node the
    /// state lacks (in no HyperNode, so none is found) pins nothing: `None`.
    pub fn allocated(&self, nodes: &[usize]) -> Option<(String, i32)> {
        if nodes.is_empty() {
            return None;
        }
        let holding = self
            .hyper_nodes
            .iter()
            .find(|h| nodes.iter().all(|n| h.nodes.binary_search(n).is_ok()));
        Some(match holding {
            Some(h) => (h.name.clone(), h.tier),
            None => (CLUSTER_TOP.to_string(), self.top()),
        })
    }

    /// `name` and its ancestors with their tiers, lowest first, ending with the virtual top.
    fn ancestors(&self, name: &str) -> Vec<(String, i32)> {
        let mut chain = Vec::new();
        let mut at = self.hyper_nodes.iter().find(|h| h.name == name);
        while let Some(h) = at {
            chain.push((h.name.clone(), h.tier));
            at = h
                .parent
                .as_ref()
                .and_then(|p| self.hyper_nodes.iter().find(|h| &h.name == p));
        }
        chain.push((CLUSTER_TOP.to_string(), self.top()));
        chain
    }

    /// Keep `request` where a job pinned to `pinned` (name, tier) may still go: the domains
    /// under the highest ancestor of `pinned` within `highest` (the search root), or none at
    /// all when `pinned` is above `highest`. `on` names the nodes of the bound pods.
    pub fn pin(&self, request: &mut Request, pinned: (String, i32), highest: i32, on: &str) {
        let (name, tier) = pinned;
        let root = self
            .ancestors(&name)
            .into_iter()
            .take_while(|(_, t)| *t <= highest)
            .last();
        let said = format!(
            "its pods already run on {on}, in HyperNode {name} ({}), Volcano's \
             AllocatedHyperNode for the job",
            level_name(tier)
        );
        let Some((root, root_tier)) = root else {
            request.rounds.clear();
            request.pinned = Some(Pin {
                stuck: Some(format!(
                    "{said}, above highestTierAllowed {highest}: Volcano places none of its \
                     other pods (allocated hyperNode {name} tier is greater than highest allowed \
                     tier {highest})"
                )),
            });
            return;
        };
        let under = |domain: &str| {
            root == CLUSTER_TOP || self.ancestors(domain).iter().any(|(a, _)| *a == root)
        };
        for round in &mut request.rounds {
            round.domains.retain(|d| under(&d.name));
        }
        request.rounds.retain(|r| !r.domains.is_empty());
        request.warnings.push(format!(
            "{said}: the rest is placed within {root} ({})",
            level_name(root_tier)
        ));
        request.pinned = Some(Pin { stuck: None });
    }
}

/// `tier1`, `tier2`: how a tier is named as a level of the plan.
pub fn level_name(tier: i32) -> String {
    format!("tier{tier}")
}

/// The nodes a member selector picks: an exact name, a name regex (unanchored, as Go's
/// `MatchString`), a label selector (an empty one picks none); several set are unioned.
fn member_nodes(
    state: &ClusterState,
    selector: &df_model::hypernode::MemberSelector,
) -> Result<BTreeSet<usize>, String> {
    let mut nodes = BTreeSet::new();
    if let Some(exact) = &selector.exact_match {
        nodes.extend(state.node_index(&exact.name));
    }
    if let Some(regex) = &selector.regex_match {
        let pattern = Regex::new(&regex.pattern)
            .map_err(|e| format!("regexMatch.pattern {:?}: {e}", regex.pattern))?;
        nodes.extend(
            (0..state.nodes.len()).filter(|&i| pattern.is_match(&state.nodes[i].metadata.name)),
        );
    }
    if let Some(labels) = &selector.label_match
        && !labels.is_empty()
    {
        for (i, node) in state.nodes.iter().enumerate() {
            let matched = label_selector_matches(labels, &node.metadata.labels)
                .map_err(|e| format!("labelMatch.{}: {}", e.path, e.message))?;
            if matched {
                nodes.insert(i);
            }
        }
    }
    Ok(nodes)
}

/// The nodes of `i`'s subtree, memoised in `subtree` (the tree has no cycle).
fn gather(
    i: usize,
    children: &[Vec<usize>],
    direct: &[BTreeSet<usize>],
    subtree: &mut [Option<BTreeSet<usize>>],
) {
    if subtree[i].is_some() {
        return;
    }
    let mut nodes = direct[i].clone();
    for &child in &children[i] {
        gather(child, children, direct, subtree);
        nodes.extend(subtree[child].iter().flatten().copied());
    }
    subtree[i] = Some(nodes);
}

/// `state` with the HyperNodes, ConfigMaps and Volcano Queues (the enqueue gate reads them)
/// given as inputs (`-f`) added, each replacing the state's object of the same name; the state
/// itself when the inputs have none.
pub fn with_given<'s>(manifests: &ManifestSet, state: &'s ClusterState) -> Cow<'s, ClusterState> {
    let given = manifests.manifests.iter().filter(|m| {
        matches!(
            m.object,
            Object::HyperNode(_) | Object::ConfigMap(_) | Object::VolcanoQueue(_)
        )
    });
    let mut merged: Option<ClusterState> = None;
    for manifest in given {
        let state = merged.get_or_insert_with(|| state.clone());
        match &manifest.object {
            Object::HyperNode(h) => {
                state
                    .hyper_nodes
                    .retain(|o| o.metadata.name != h.metadata.name);
                state.hyper_nodes.push(h.clone());
            }
            Object::ConfigMap(c) => {
                state.config_maps.retain(|o| {
                    (&o.metadata.namespace, &o.metadata.name)
                        != (&c.metadata.namespace, &c.metadata.name)
                });
                state.config_maps.push(c.clone());
            }
            Object::VolcanoQueue(q) => {
                state
                    .volcano_queues
                    .retain(|o| o.metadata.name != q.metadata.name);
                state.volcano_queues.push(q.clone());
            }
            _ => {}
        }
    }
    merged.map_or(Cow::Borrowed(state), Cow::Owned)
}

#[cfg(test)]
#[path = "hypernode_tests.rs"]
mod tests;
