//! Fluid's NodeAffinityWithCache webhook plugin (fluid-cloudnative/fluid
//! `pkg/webhook/plugins/nodeaffinitywithcache`, `pkg/utils` `InjectNodeSelectorTerms`), with
//! the chart's default tiers; which pods it sees is `admission`'s business.
//!
//! What the code does, which the docs leave out:
//! - NodeAffinityWithCache with the chart's default tiers (preferred `fluid.io/node` 100, zone
//!   50, region 20 (10 before Fluid's chart of 2023-10); required `fluid.io/node`). The `fluid.io/node` tier is the dataset's cache
//!   node label `fluid.io/s-<namespace>-<dataset> In [true]`; the zone and region tiers copy
//!   the expressions of the runtime's recorded `status.cacheAffinity` with those keys, never
//!   node labels, so without a runtime (or one that records none) they add nothing. Fluid
//!   skips a dataset whose runtime it cannot find; we keep the node tier then, since a state
//!   may simply not include runtimes. A dataset whose pod label `fluid.io/dataset.<name>.sched` is
//!   `required` gets a required term instead of a preferred one.
//! - A pod that already names a tier key is left alone (`hasRepeatedLocality`): in a preferred
//!   node-affinity expression, a required one, or a nodeSelector key; but a pod with node
//!   affinity and no required terms is not left alone for its nodeSelector (upstream returns
//!   before looking at it), and `matchFields` are never looked at.
//! - Required terms: with no required terms of its own the pod gets one term per required
//!   dataset, and terms are ORed, so two required datasets mean "either cache"; with terms of
//!   its own, each of its terms is combined (ANDed) with each new term.

use std::collections::BTreeSet;

use df_model::fluid::{REGION_LABEL, ZONE_LABEL};
use df_model::{
    Affinity, Labels, Node, NodeAffinity, NodeSelector, NodeSelectorTerm, PreferredSchedulingTerm,
};

use super::in_requirement;

/// The plugin name shown as the source of the affinity it adds.
pub(crate) const NODE_AFFINITY_WITH_CACHE: &str = "NodeAffinityWithCache";
/// The tier name for "a node that holds the dataset's cache".
const NODE_TIER: &str = "fluid.io/node";
/// The chart's default preferred tiers and their weights (`charts/fluid/fluid/values.yaml`).
const PREFERRED_TIERS: [(&str, i32); 3] = [(NODE_TIER, 100), (ZONE_LABEL, 50), (REGION_LABEL, 20)];
/// The chart's default required tiers.
const REQUIRED_TIERS: [&str; 1] = [NODE_TIER];

/// The node label Fluid puts on every node holding the dataset's cache (`GetCommonLabelName`).
pub(crate) fn cache_label(namespace: &str, dataset: &str) -> String {
    format!("fluid.io/s-{namespace}-{dataset}")
}

/// Whether the pod asks, through `fluid.io/dataset.<name>.sched: required`, to run only where
/// the dataset is cached.
fn requires_cache(labels: &Labels, dataset: &str) -> bool {
    labels
        .get(&format!("fluid.io/dataset.{dataset}.sched"))
        .is_some_and(|v| v == "required")
}

/// What NodeAffinityWithCache adds to one pod.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct CacheAffinity {
    /// The terms it adds, as a NodeAffinity (before merging into the pod's own).
    pub added: Option<NodeAffinity>,
    /// Why it added nothing although the pod mounts a dataset.
    pub skipped: Option<String>,
}

/// A dataset the pod mounts, with what the webhook reads of its runtime when the runtime is
/// known: the recorded `status.cacheAffinity` and `spec.fuse.nodeSelector`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MountedDataset<'a> {
    pub name: &'a str,
    pub cache_affinity: Option<&'a NodeAffinity>,
    pub fuse_node_selector: Option<&'a Labels>,
}

/// NodeAffinityWithCache for a pod in `namespace` with `labels`, its current `affinity` and
/// its `node_selector`, mounting `datasets`.
pub(crate) fn node_affinity_with_cache(
    namespace: &str,
    labels: &Labels,
    affinity: Option<&Affinity>,
    node_selector: &Labels,
    datasets: &[MountedDataset<'_>],
) -> CacheAffinity {
    if datasets.is_empty() {
        return CacheAffinity::default();
    }
    if let Some((field, key)) = repeated_tier_key(affinity, node_selector) {
        return CacheAffinity {
            added: None,
            skipped: Some(format!(
                "the pod's own {field} already uses the locality key {key}: Fluid's {NODE_AFFINITY_WITH_CACHE} adds no cache affinity"
            )),
        };
    }
    let mut required = Vec::new();
    let mut preferred = Vec::new();
    for dataset in datasets {
        let node_term = NodeSelectorTerm {
            match_expressions: vec![in_requirement(
                &cache_label(namespace, dataset.name),
                "true",
            )],
            match_fields: Vec::new(),
        };
        // The runtime's cache affinity expressions whose key is a tier.
        let recorded = dataset
            .cache_affinity
            .and_then(|a| a.required.as_ref())
            .into_iter()
            .flat_map(|r| &r.node_selector_terms)
            .flat_map(|t| &t.match_expressions);
        if requires_cache(labels, dataset.name) {
            required.push(node_term);
            required.extend(
                recorded
                    .filter(|e| REQUIRED_TIERS.contains(&e.key.as_str()))
                    .map(|e| NodeSelectorTerm {
                        match_expressions: vec![e.clone()],
                        match_fields: Vec::new(),
                    }),
            );
        } else {
            preferred.push(PreferredSchedulingTerm {
                weight: PREFERRED_TIERS[0].1,
                preference: node_term,
            });
            preferred.extend(recorded.filter_map(|e| {
                let (_, weight) = PREFERRED_TIERS.iter().find(|(tier, _)| *tier == e.key)?;
                Some(PreferredSchedulingTerm {
                    weight: *weight,
                    preference: NodeSelectorTerm {
                        match_expressions: vec![e.clone()],
                        match_fields: Vec::new(),
                    },
                })
            }));
        }
    }
    CacheAffinity {
        added: Some(NodeAffinity {
            required: (!required.is_empty()).then_some(NodeSelector {
                node_selector_terms: required,
            }),
            preferred,
        }),
        skipped: None,
    }
}

/// Where the pod already uses a tier key, and the key, as upstream's `hasRepeatedLocality`
/// looks: its preferred node-affinity expressions, then its required ones (when it has node
/// affinity without required terms upstream returns "no" here, so its nodeSelector is not
/// looked at), then its nodeSelector keys. `matchFields` are never looked at.
fn repeated_tier_key(
    affinity: Option<&Affinity>,
    node_selector: &Labels,
) -> Option<(&'static str, &'static str)> {
    let tier = |key: &str| {
        let tiers = PREFERRED_TIERS.iter().map(|(tier, _)| *tier);
        tiers.chain(REQUIRED_TIERS).find(|tier| *tier == key)
    };
    if let Some(node_affinity) = affinity.and_then(|a| a.node_affinity.as_ref()) {
        let required = node_affinity.required.as_ref();
        let preferred = node_affinity.preferred.iter().map(|t| &t.preference);
        let terms = preferred.chain(required.into_iter().flat_map(|r| &r.node_selector_terms));
        if let Some(key) = terms
            .flat_map(|t| &t.match_expressions)
            .find_map(|e| tier(&e.key))
        {
            return Some(("node affinity", key));
        }
        // Upstream's early "no" for node affinity without required terms.
        required?;
    }
    let key = node_selector.keys().find_map(|key| tier(key))?;
    Some(("nodeSelector", key))
}

/// The pod's affinity with the webhook's terms injected (`InjectNodeSelectorTerms`,
/// `InjectPreferredSchedulingTerms`).
pub fn inject(affinity: Option<Affinity>, added: &NodeAffinity) -> Option<Affinity> {
    let new_terms: Vec<&NodeSelectorTerm> = added
        .required
        .iter()
        .flat_map(|r| &r.node_selector_terms)
        .filter(|t| !t.match_expressions.is_empty() || !t.match_fields.is_empty())
        .collect();
    if new_terms.is_empty() && added.preferred.is_empty() {
        return affinity;
    }
    let mut affinity = affinity.unwrap_or_default();
    let node_affinity = affinity
        .node_affinity
        .get_or_insert_with(NodeAffinity::default);
    if !new_terms.is_empty() {
        let selector = node_affinity
            .required
            .get_or_insert_with(NodeSelector::default);
        let own: Vec<&NodeSelectorTerm> = selector
            .node_selector_terms
            .iter()
            .filter(|t| !t.match_expressions.is_empty() || !t.match_fields.is_empty())
            .collect();
        let combined: Vec<NodeSelectorTerm> = if own.is_empty() {
            new_terms.into_iter().cloned().collect()
        } else {
            own.iter()
                .flat_map(|own| {
                    new_terms.iter().map(move |new| NodeSelectorTerm {
                        match_expressions: own
                            .match_expressions
                            .iter()
                            .chain(&new.match_expressions)
                            .cloned()
                            .collect(),
                        match_fields: own
                            .match_fields
                            .iter()
                            .chain(&new.match_fields)
                            .cloned()
                            .collect(),
                    })
                })
                .collect()
        };
        selector.node_selector_terms = combined;
    }
    node_affinity
        .preferred
        .extend(added.preferred.iter().cloned());
    Some(affinity)
}

/// How close a node is to a dataset's cache.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Locality {
    /// The node holds the cache.
    Hit,
    SameZone,
    SameRegion,
    Miss,
    /// No node holds the cache (yet).
    NotCached,
}

impl Locality {
    pub fn as_str(self) -> &'static str {
        match self {
            Locality::Hit => "hit",
            Locality::SameZone => "same-zone",
            Locality::SameRegion => "same-region",
            Locality::Miss => "miss",
            Locality::NotCached => "not-cached",
        }
    }
}

/// The nodes that hold the dataset's cache, by name, as Fluid reads it: its cache node label.
pub fn cache_nodes<'a>(nodes: &'a [Node], namespace: &str, dataset: &str) -> Vec<&'a Node> {
    let key = cache_label(namespace, dataset);
    nodes
        .iter()
        .filter(|n| n.metadata.labels.get(&key).map(|v| v.as_str()) == Some("true"))
        .collect()
}

/// Where `node` stands against the cache nodes.
pub fn locality(node: &Node, cache: &[&Node]) -> Locality {
    if cache.is_empty() {
        return Locality::NotCached;
    }
    if cache.iter().any(|c| c.metadata.name == node.metadata.name) {
        return Locality::Hit;
    }
    let shares = |key: &str| {
        let values: BTreeSet<&str> = cache
            .iter()
            .filter_map(|c| c.metadata.labels.get(key).map(|v| v.as_str()))
            .collect();
        node.metadata
            .labels
            .get(key)
            .is_some_and(|v| values.contains(v.as_str()))
    };
    if shares(ZONE_LABEL) {
        Locality::SameZone
    } else if shares(REGION_LABEL) {
        Locality::SameRegion
    } else {
        Locality::Miss
    }
}

/// `--assume-cached [NAMESPACE/]DATASET=NODE[,NODE...]`: preview a flow as if the dataset's
/// cache were already on those nodes, by giving them the cache label Fluid would set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AssumeCached {
    pub namespace: Option<String>,
    pub dataset: String,
    pub nodes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AssumeCachedError {
    #[error("assumed cache {0:?}: expected [NAMESPACE/]DATASET=NODE[,NODE...]")]
    Syntax(String),
    #[error("assumed cache {what}: node {node:?} is not in the cluster state")]
    UnknownNode { what: String, node: String },
}

impl std::str::FromStr for AssumeCached {
    type Err = AssumeCachedError;

    fn from_str(text: &str) -> Result<AssumeCached, AssumeCachedError> {
        let syntax = || AssumeCachedError::Syntax(text.to_string());
        let (dataset, nodes) = text.split_once('=').ok_or_else(syntax)?;
        let (namespace, dataset) = match dataset.split_once('/') {
            Some((namespace, dataset)) => (Some(namespace), dataset),
            None => (None, dataset),
        };
        let nodes: Vec<String> = nodes.split(',').map(str::to_string).collect();
        let blank = |s: &str| s.is_empty() || s.contains(['/', '=', ',']);
        if blank(dataset) || namespace.is_some_and(blank) || nodes.iter().any(|n| blank(n)) {
            return Err(syntax());
        }
        Ok(AssumeCached {
            namespace: namespace.map(str::to_string),
            dataset: dataset.to_string(),
            nodes,
        })
    }
}

impl std::fmt::Display for AssumeCached {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(namespace) = &self.namespace {
            write!(f, "{namespace}/")?;
        }
        write!(f, "{}={}", self.dataset, self.nodes.join(","))
    }
}

/// Label the named nodes as holding each dataset's cache; a dataset without a namespace is in
/// `default_namespace`.
pub fn assume_cached(
    state: &mut df_state::ClusterState,
    edits: &[AssumeCached],
    default_namespace: &str,
) -> Result<(), AssumeCachedError> {
    if edits.is_empty() {
        return Ok(());
    }
    for edit in edits {
        let namespace = edit.namespace.as_deref().unwrap_or(default_namespace);
        let key = cache_label(namespace, &edit.dataset);
        for node in &edit.nodes {
            let index = state
                .node_index(node)
                .ok_or_else(|| AssumeCachedError::UnknownNode {
                    what: edit.to_string(),
                    node: node.clone(),
                })?;
            state.nodes[index]
                .metadata
                .labels
                .insert(key.as_str().into(), "true".into());
        }
    }
    state.rebuild_indexes();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use df_model::{ObjectMeta, PodAffinity};

    use crate::fluid::tests::{labels, term};

    fn preferred(weight: i32, key: &str) -> PreferredSchedulingTerm {
        PreferredSchedulingTerm {
            weight,
            preference: term(&[(key, "true")]),
        }
    }

    fn node_affinity(
        required: Vec<NodeSelectorTerm>,
        preferred: Vec<PreferredSchedulingTerm>,
    ) -> NodeAffinity {
        NodeAffinity {
            required: (!required.is_empty()).then_some(NodeSelector {
                node_selector_terms: required,
            }),
            preferred,
        }
    }

    fn affinity(
        required: Vec<NodeSelectorTerm>,
        preferred: Vec<PreferredSchedulingTerm>,
    ) -> Affinity {
        Affinity {
            node_affinity: Some(node_affinity(required, preferred)),
            ..Affinity::default()
        }
    }

    /// The cases of upstream's node_affinity_with_cache_test.go, with our own data: no
    /// dataset, a preferred dataset, a `.sched: required` dataset, two datasets of each
    /// kind, a label for a dataset the pod does not mount, and a pod that already names a
    /// locality tier.
    #[test]
    fn node_affinity_with_cache_follows_the_plugin() {
        struct Case {
            name: &'static str,
            labels: Labels,
            own: Option<Affinity>,
            node_selector: Labels,
            datasets: &'static [&'static str],
            /// The runtimes' recorded cache affinity (the same for every dataset of the case).
            runtime: Option<NodeAffinity>,
            want: CacheAffinity,
        }
        // A runtime whose workers are pinned to zone z1 of region r1 on SSD nodes.
        let pinned = node_affinity(
            vec![term(&[
                (ZONE_LABEL, "z1"),
                (REGION_LABEL, "r1"),
                ("example.com/disk", "ssd"),
            ])],
            vec![],
        );
        let tier = |weight: i32, key: &str, value: &str| PreferredSchedulingTerm {
            weight,
            preference: term(&[(key, value)]),
        };
        let added = |required, preferred| CacheAffinity {
            added: Some(node_affinity(required, preferred)),
            skipped: None,
        };
        let cases = [
            Case {
                name: "no mounted dataset: nothing",
                labels: labels(&[]),
                own: None,
                node_selector: labels(&[]),
                datasets: &[],
                runtime: None,
                want: CacheAffinity::default(),
            },
            Case {
                name: "a mounted dataset is preferred with the node tier's weight",
                labels: labels(&[]),
                own: None,
                node_selector: labels(&[]),
                datasets: &["hbase"],
                runtime: None,
                want: added(vec![], vec![preferred(100, "fluid.io/s-ns-hbase")]),
            },
            Case {
                name: "the sched label makes it required",
                labels: labels(&[("fluid.io/dataset.hbase.sched", "required")]),
                own: None,
                node_selector: labels(&[]),
                datasets: &["hbase"],
                runtime: None,
                want: added(vec![term(&[("fluid.io/s-ns-hbase", "true")])], vec![]),
            },
            Case {
                name: "a sched label of another value keeps it preferred",
                labels: labels(&[("fluid.io/dataset.hbase.sched", "preferred")]),
                own: None,
                node_selector: labels(&[]),
                datasets: &["hbase"],
                runtime: None,
                want: added(vec![], vec![preferred(100, "fluid.io/s-ns-hbase")]),
            },
            Case {
                name: "two required datasets give two terms, one preferred stays preferred",
                labels: labels(&[
                    ("fluid.io/dataset.a.sched", "required"),
                    ("fluid.io/dataset.b.sched", "required"),
                    ("fluid.io/dataset.absent.sched", "required"),
                ]),
                own: None,
                node_selector: labels(&[]),
                datasets: &["a", "b", "c"],
                runtime: None,
                want: added(
                    vec![
                        term(&[("fluid.io/s-ns-a", "true")]),
                        term(&[("fluid.io/s-ns-b", "true")]),
                    ],
                    vec![preferred(100, "fluid.io/s-ns-c")],
                ),
            },
            Case {
                name: "own affinity on a tier key: the plugin skips the pod",
                labels: labels(&[]),
                own: Some(affinity(vec![], vec![PreferredSchedulingTerm {
                    weight: 80,
                    preference: term(&[(ZONE_LABEL, "z1")]),
                }])),
                node_selector: labels(&[]),
                datasets: &["hbase"],
                runtime: None,
                want: CacheAffinity {
                    added: None,
                    skipped: Some("the pod's own node affinity already uses the locality key topology.kubernetes.io/zone: Fluid's NodeAffinityWithCache adds no cache affinity".into()),
                },
            },
            // hasRepeatedLocality also reads the nodeSelector (tiered_locaity_test.go).
            Case {
                name: "a nodeSelector on a tier key: the plugin skips the pod",
                labels: labels(&[]),
                own: None,
                node_selector: labels(&[(ZONE_LABEL, "z1")]),
                datasets: &["hbase"],
                runtime: None,
                want: CacheAffinity {
                    added: None,
                    skipped: Some("the pod's own nodeSelector already uses the locality key topology.kubernetes.io/zone: Fluid's NodeAffinityWithCache adds no cache affinity".into()),
                },
            },
            Case {
                name: "a nodeSelector on another key",
                labels: labels(&[]),
                own: None,
                node_selector: labels(&[("example.com/disk", "ssd")]),
                datasets: &["hbase"],
                runtime: None,
                want: added(vec![], vec![preferred(100, "fluid.io/s-ns-hbase")]),
            },
            Case {
                name: "pod affinity only: the nodeSelector is still read",
                labels: labels(&[]),
                own: Some(Affinity {
                    pod_affinity: Some(PodAffinity::default()),
                    ..Affinity::default()
                }),
                node_selector: labels(&[(ZONE_LABEL, "z1")]),
                datasets: &["hbase"],
                runtime: None,
                want: CacheAffinity {
                    added: None,
                    skipped: Some("the pod's own nodeSelector already uses the locality key topology.kubernetes.io/zone: Fluid's NodeAffinityWithCache adds no cache affinity".into()),
                },
            },
            // Upstream returns "no" once node affinity without required terms has no tier
            // key among its preferences, before it reads the nodeSelector.
            Case {
                name: "node affinity without required terms hides a nodeSelector tier",
                labels: labels(&[]),
                own: Some(affinity(vec![], vec![preferred(10, "example.com/disk")])),
                node_selector: labels(&[(ZONE_LABEL, "z1")]),
                datasets: &["hbase"],
                runtime: None,
                want: added(vec![], vec![preferred(100, "fluid.io/s-ns-hbase")]),
            },
            Case {
                name: "required terms without a tier key: the nodeSelector is read",
                labels: labels(&[]),
                own: Some(affinity(vec![term(&[("example.com/disk", "ssd")])], vec![])),
                node_selector: labels(&[(ZONE_LABEL, "z1")]),
                datasets: &["hbase"],
                runtime: None,
                want: CacheAffinity {
                    added: None,
                    skipped: Some("the pod's own nodeSelector already uses the locality key topology.kubernetes.io/zone: Fluid's NodeAffinityWithCache adds no cache affinity".into()),
                },
            },
            Case {
                name: "matchFields are not looked at",
                labels: labels(&[]),
                own: Some(affinity(
                    vec![NodeSelectorTerm {
                        match_expressions: Vec::new(),
                        match_fields: vec![in_requirement("metadata.name", "n1")],
                    }],
                    vec![],
                )),
                node_selector: labels(&[]),
                datasets: &["hbase"],
                runtime: None,
                want: added(vec![], vec![preferred(100, "fluid.io/s-ns-hbase")]),
            },
            Case {
                name: "a required tier expression",
                labels: labels(&[]),
                own: Some(affinity(vec![term(&[(REGION_LABEL, "r1")])], vec![])),
                node_selector: labels(&[]),
                datasets: &["hbase"],
                runtime: None,
                want: CacheAffinity {
                    added: None,
                    skipped: Some("the pod's own node affinity already uses the locality key topology.kubernetes.io/region: Fluid's NodeAffinityWithCache adds no cache affinity".into()),
                },
            },
            Case {
                name: "own hostname affinity is not a tier: the cache term is added",
                labels: labels(&[]),
                own: Some(affinity(vec![term(&[("kubernetes.io/hostname", "n1")])], vec![])),
                node_selector: labels(&[]),
                datasets: &["hbase"],
                runtime: None,
                want: added(vec![], vec![preferred(100, "fluid.io/s-ns-hbase")]),
            },
            Case {
                name: "tiered locality: zone and region terms from the runtime's cache affinity",
                labels: labels(&[]),
                own: None,
                node_selector: labels(&[]),
                datasets: &["hbase"],
                runtime: Some(pinned.clone()),
                want: added(
                    vec![],
                    vec![
                        preferred(100, "fluid.io/s-ns-hbase"),
                        tier(50, ZONE_LABEL, "z1"),
                        tier(20, REGION_LABEL, "r1"),
                    ],
                ),
            },
            Case {
                name: "required mode: zone and region are not required tiers",
                labels: labels(&[("fluid.io/dataset.hbase.sched", "required")]),
                own: None,
                node_selector: labels(&[]),
                datasets: &["hbase"],
                runtime: Some(pinned.clone()),
                want: added(vec![term(&[("fluid.io/s-ns-hbase", "true")])], vec![]),
            },
        ];
        for case in cases {
            let mounted: Vec<MountedDataset> = case
                .datasets
                .iter()
                .map(|name| MountedDataset {
                    name,
                    cache_affinity: case.runtime.as_ref(),
                    fuse_node_selector: None,
                })
                .collect();
            let got = node_affinity_with_cache(
                "ns",
                &case.labels,
                case.own.as_ref(),
                &case.node_selector,
                &mounted,
            );
            assert_eq!(got, case.want, "{}", case.name);
        }
    }

    /// `InjectNodeSelectorTerms` / `InjectPreferredSchedulingTerms`, as in upstream's
    /// utils tests: fill an empty pod, cross own terms with new ones, append preferences.
    #[test]
    fn inject_combines_terms_as_fluid_does() {
        let cache_a = term(&[("fluid.io/s-ns-a", "true")]);
        let cache_b = term(&[("fluid.io/s-ns-b", "true")]);
        let own_1 = term(&[("kubernetes.io/hostname", "n1")]);
        let own_2 = term(&[("example.com/pool", "gpu")]);
        let cases = [
            (
                "no affinity: the new terms",
                None,
                node_affinity(vec![cache_a.clone(), cache_b.clone()], vec![]),
                Some(affinity(vec![cache_a.clone(), cache_b.clone()], vec![])),
            ),
            (
                "own terms are each ANDed with each new term",
                Some(affinity(vec![own_1.clone(), own_2.clone()], vec![])),
                node_affinity(vec![cache_a.clone(), cache_b.clone()], vec![]),
                Some(affinity(
                    vec![
                        term(&[
                            ("kubernetes.io/hostname", "n1"),
                            ("fluid.io/s-ns-a", "true"),
                        ]),
                        term(&[
                            ("kubernetes.io/hostname", "n1"),
                            ("fluid.io/s-ns-b", "true"),
                        ]),
                        term(&[("example.com/pool", "gpu"), ("fluid.io/s-ns-a", "true")]),
                        term(&[("example.com/pool", "gpu"), ("fluid.io/s-ns-b", "true")]),
                    ],
                    vec![],
                )),
            ),
            (
                "an empty own term is dropped, not crossed",
                Some(affinity(vec![NodeSelectorTerm::default()], vec![])),
                node_affinity(vec![cache_a.clone()], vec![]),
                Some(affinity(vec![cache_a.clone()], vec![])),
            ),
            (
                "preferences are appended after the pod's own",
                Some(affinity(vec![], vec![preferred(5, "example.com/ssd")])),
                node_affinity(vec![], vec![preferred(100, "fluid.io/s-ns-a")]),
                Some(affinity(
                    vec![],
                    vec![
                        preferred(5, "example.com/ssd"),
                        preferred(100, "fluid.io/s-ns-a"),
                    ],
                )),
            ),
        ];
        for (name, own, added, want) in cases {
            assert_eq!(inject(own, &added), want, "{name}");
        }
    }

    fn node(name: &str, zone: &str, region: &str) -> Node {
        Node {
            metadata: ObjectMeta {
                name: name.into(),
                labels: labels(&[(ZONE_LABEL, zone), (REGION_LABEL, region)]),
                ..ObjectMeta::default()
            },
            ..Node::default()
        }
    }

    #[test]
    fn locality_against_the_cache_nodes() {
        let cache = node("c", "z1", "r1");
        let cases = [
            (node("c", "z1", "r1"), vec![&cache], Locality::Hit),
            (node("n", "z1", "r1"), vec![&cache], Locality::SameZone),
            (node("n", "z2", "r1"), vec![&cache], Locality::SameRegion),
            (node("n", "z3", "r2"), vec![&cache], Locality::Miss),
            (node("n", "z1", "r1"), vec![], Locality::NotCached),
        ];
        for (planned, cache, want) in cases {
            assert_eq!(locality(&planned, &cache), want, "{want:?}");
        }
    }

    #[test]
    fn assume_cached_parses_its_forms() {
        let ok = |namespace: Option<&str>, dataset: &str, nodes: &[&str]| {
            Ok(AssumeCached {
                namespace: namespace.map(str::to_string),
                dataset: dataset.into(),
                nodes: nodes.iter().map(|n| n.to_string()).collect(),
            })
        };
        let cases = [
            ("imagenet=n1", ok(None, "imagenet", &["n1"])),
            (
                "data/imagenet=n1,n2",
                ok(Some("data"), "imagenet", &["n1", "n2"]),
            ),
            (
                "imagenet",
                Err(AssumeCachedError::Syntax("imagenet".into())),
            ),
            (
                "imagenet=",
                Err(AssumeCachedError::Syntax("imagenet=".into())),
            ),
            (
                "imagenet=n1,,n2",
                Err(AssumeCachedError::Syntax("imagenet=n1,,n2".into())),
            ),
            (
                "/imagenet=n1",
                Err(AssumeCachedError::Syntax("/imagenet=n1".into())),
            ),
            (
                "a/b/c=n1",
                Err(AssumeCachedError::Syntax("a/b/c=n1".into())),
            ),
        ];
        for (text, want) in cases {
            assert_eq!(text.parse::<AssumeCached>(), want, "{text}");
        }
    }
}
