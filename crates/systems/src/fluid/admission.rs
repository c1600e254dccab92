//! Which of Fluid's webhook plugins run for a pod, and what each adds to its node affinity
//! (fluid-cloudnative/fluid `pkg/webhook/handler/mutating`, `pkg/webhook/plugins`, the chart's
//! `MutatingWebhookConfiguration` and default plugins profile).
//!
//! What the code does, which the docs leave out:
//! - The chart registers the webhook only for pods labelled `serverless.fluid.io/inject: "true"`
//!   or `fuse.serverful.fluid.io/inject: "true"` (object selectors; the namespace label
//!   `fluid.io/enable-injection` of older docs is no longer read). The pod label
//!   `fluid.io/enable-injection: "false"` opts a selected pod out, and so does
//!   `fluid.io/inject-sidecar-done: "true"`.
//! - A pod labelled serverless (or `fuse.sidecar.fluid.io/inject: "true"`) takes the serverless
//!   plugins even when it is also labelled serverful.
//! - The default profile: serverful pods mounting a dataset run RequireNodeWithFuse,
//!   NodeAffinityWithCache, MountPropagationInjector; serverless pods mounting one run
//!   FuseSidecar; pods of either kind mounting none run PreferNodesWithoutCache. Only
//!   RequireNodeWithFuse, NodeAffinityWithCache and PreferNodesWithoutCache touch placement.
//! - RequireNodeWithFuse requires, per mounted dataset, the runtime's `spec.fuse.nodeSelector`
//!   as one term (`key In [value]`; Fluid builds it from a Go map, we sort by key); a runtime
//!   without a fuse selector adds no term. The terms go through `InjectNodeSelectorTerms`
//!   before NodeAffinityWithCache runs, so its required cache terms are ANDed with them.
//! - PreferNodesWithoutCache prefers (weight 100) nodes without the label
//!   `fluid.io/dataset-num`, which Fluid puts on every node holding some dataset's cache.

use df_model::{
    Affinity, Labels, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm,
    PreferredSchedulingTerm,
};

use super::in_requirement;
use super::webhook::{self, MountedDataset};

/// The pod labels the chart's object selectors match.
pub(crate) const SERVERLESS_INJECT_LABEL: &str = "serverless.fluid.io/inject";
pub(crate) const SERVERFUL_INJECT_LABEL: &str = "fuse.serverful.fluid.io/inject";
/// Also marks a pod serverless, but does not make the webhook see it.
const FUSE_SIDECAR_INJECT_LABEL: &str = "fuse.sidecar.fluid.io/inject";
/// `"false"` opts a pod out.
const ENABLE_INJECTION_LABEL: &str = "fluid.io/enable-injection";
/// `"true"` once the sidecar was injected: the webhook leaves the pod alone.
const INJECTION_DONE_LABEL: &str = "fluid.io/inject-sidecar-done";
/// The label on every node that holds the cache of at least one dataset.
pub(crate) const DATASET_NUM_LABEL: &str = "fluid.io/dataset-num";

pub(crate) const REQUIRE_NODE_WITH_FUSE: &str = "RequireNodeWithFuse";
pub(crate) const PREFER_NODES_WITHOUT_CACHE: &str = "PreferNodesWithoutCache";
const FUSE_SIDECAR: &str = "FuseSidecar";

/// How the webhook treats a pod it sees.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Injection {
    /// The fuse runs on the node (a DaemonSet); the pod gets node affinity.
    Serverful,
    /// The fuse is injected into the pod as a sidecar.
    Serverless,
}

fn is_true(labels: &Labels, key: &str) -> bool {
    labels.get(key).map(|v| v.as_str()) == Some("true")
}

/// Whether Fluid's webhook mutates a pod with these labels, and how.
pub fn injection(labels: &Labels) -> Option<Injection> {
    let selected =
        is_true(labels, SERVERLESS_INJECT_LABEL) || is_true(labels, SERVERFUL_INJECT_LABEL);
    let opted_out = labels.get(ENABLE_INJECTION_LABEL).map(|v| v.as_str()) == Some("false")
        || is_true(labels, INJECTION_DONE_LABEL);
    if !selected || opted_out {
        return None;
    }
    if is_true(labels, SERVERLESS_INJECT_LABEL) || is_true(labels, FUSE_SIDECAR_INJECT_LABEL) {
        Some(Injection::Serverless)
    } else {
        Some(Injection::Serverful)
    }
}

/// Terms one plugin added, kept apart so the plan can say where each came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Added {
    pub plugin: &'static str,
    pub node_affinity: NodeAffinity,
}

/// The pod after the webhook.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Admission {
    pub affinity: Option<Affinity>,
    /// In the order the plugins ran.
    pub added: Vec<Added>,
    /// What a plugin did that the plan does not model, or why it added nothing.
    pub notes: Vec<String>,
}

/// Run the chart's default plugins for a pod in `namespace` with `labels`, `affinity` and
/// `node_selector`, mounting `datasets` (each with its runtime when known).
pub fn admit(
    namespace: &str,
    labels: &Labels,
    affinity: Option<Affinity>,
    node_selector: &Labels,
    datasets: &[MountedDataset<'_>],
) -> Admission {
    let mut admission = Admission {
        affinity,
        ..Admission::default()
    };
    let Some(injection) = injection(labels) else {
        return admission;
    };
    if datasets.is_empty() {
        admission.apply(PREFER_NODES_WITHOUT_CACHE, prefer_nodes_without_cache());
        return admission;
    }
    if injection == Injection::Serverless {
        admission.notes.push(format!(
            "Fluid's {FUSE_SIDECAR} adds a fuse sidecar container to the pod; its resources are not counted here"
        ));
        return admission;
    }
    if let Some(fuse) = require_node_with_fuse(datasets) {
        admission.apply(REQUIRE_NODE_WITH_FUSE, fuse);
    }
    let own = admission.affinity.as_ref();
    let cache = webhook::node_affinity_with_cache(namespace, labels, own, node_selector, datasets);
    admission.notes.extend(cache.skipped);
    if let Some(added) = cache.added {
        admission.apply(webhook::NODE_AFFINITY_WITH_CACHE, added);
    }
    admission
}

impl Admission {
    fn apply(&mut self, plugin: &'static str, node_affinity: NodeAffinity) {
        self.affinity = webhook::inject(self.affinity.take(), &node_affinity);
        self.added.push(Added {
            plugin,
            node_affinity,
        });
    }
}

/// RequireNodeWithFuse: one required term per dataset whose runtime pins its fuse with a node
/// selector; `None` when no runtime does.
fn require_node_with_fuse(datasets: &[MountedDataset<'_>]) -> Option<NodeAffinity> {
    let terms: Vec<NodeSelectorTerm> = datasets
        .iter()
        .filter_map(|d| d.fuse_node_selector)
        .filter(|selector| !selector.is_empty())
        .map(|selector| NodeSelectorTerm {
            // A BTreeMap: sorted by key.
            match_expressions: selector
                .iter()
                .map(|(key, value)| in_requirement(key, value))
                .collect(),
            match_fields: Vec::new(),
        })
        .collect();
    (!terms.is_empty()).then(|| NodeAffinity {
        required: Some(NodeSelector {
            node_selector_terms: terms,
        }),
        preferred: Vec::new(),
    })
}

/// PreferNodesWithoutCache: keep pods that read no dataset off the cache nodes.
fn prefer_nodes_without_cache() -> NodeAffinity {
    NodeAffinity {
        required: None,
        preferred: vec![PreferredSchedulingTerm {
            weight: 100,
            preference: NodeSelectorTerm {
                match_expressions: vec![NodeSelectorRequirement {
                    key: DATASET_NUM_LABEL.to_string(),
                    operator: "DoesNotExist".to_string(),
                    values: Vec::new(),
                }],
                match_fields: Vec::new(),
            },
        }],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::fluid::tests::{labels, term};

    fn required(terms: Vec<NodeSelectorTerm>) -> NodeAffinity {
        NodeAffinity {
            required: Some(NodeSelector {
                node_selector_terms: terms,
            }),
            preferred: Vec::new(),
        }
    }

    fn preferred(weight: i32, pairs: &[(&str, &str)]) -> PreferredSchedulingTerm {
        PreferredSchedulingTerm {
            weight,
            preference: term(pairs),
        }
    }

    fn with_node_affinity(node_affinity: NodeAffinity) -> Option<Affinity> {
        Some(Affinity {
            node_affinity: Some(node_affinity),
            ..Affinity::default()
        })
    }

    /// The chart's object selectors, the opt-out labels and the serverless switch of
    /// upstream's mutating handler, with our own label sets.
    #[test]
    fn injection_follows_the_selectors_and_opt_outs() {
        let cases: &[(&str, Pairs, Option<Injection>)] = &[
            ("no label: the webhook never sees the pod", &[], None),
            (
                "serverful label",
                &[(SERVERFUL_INJECT_LABEL, "true")],
                Some(Injection::Serverful),
            ),
            (
                "the value must be exactly true",
                &[(SERVERFUL_INJECT_LABEL, "True")],
                None,
            ),
            (
                "serverless label",
                &[(SERVERLESS_INJECT_LABEL, "true")],
                Some(Injection::Serverless),
            ),
            (
                "serverless wins over serverful",
                &[
                    (SERVERFUL_INJECT_LABEL, "true"),
                    (SERVERLESS_INJECT_LABEL, "true"),
                ],
                Some(Injection::Serverless),
            ),
            (
                "the fuse sidecar label makes a selected pod serverless",
                &[
                    (SERVERFUL_INJECT_LABEL, "true"),
                    (FUSE_SIDECAR_INJECT_LABEL, "true"),
                ],
                Some(Injection::Serverless),
            ),
            (
                "the fuse sidecar label alone is not selected",
                &[(FUSE_SIDECAR_INJECT_LABEL, "true")],
                None,
            ),
            (
                "enable-injection false opts out",
                &[
                    (SERVERFUL_INJECT_LABEL, "true"),
                    (ENABLE_INJECTION_LABEL, "false"),
                ],
                None,
            ),
            (
                "enable-injection true changes nothing",
                &[
                    (SERVERFUL_INJECT_LABEL, "true"),
                    (ENABLE_INJECTION_LABEL, "true"),
                ],
                Some(Injection::Serverful),
            ),
            (
                "an injected sidecar is not injected again",
                &[
                    (SERVERLESS_INJECT_LABEL, "true"),
                    (INJECTION_DONE_LABEL, "true"),
                ],
                None,
            ),
        ];
        for (name, pairs, want) in cases {
            assert_eq!(injection(&labels(pairs)), *want, "{name}");
        }
    }

    type Pairs = &'static [(&'static str, &'static str)];
    /// A mounted dataset and its runtime's fuse node selector.
    type Mount = (&'static str, Pairs);

    /// The default plugins profile, with the cases of upstream's RequireNodeWithFuse and
    /// PreferNodesWithoutCache tests in our own data.
    #[test]
    fn admit_runs_the_default_profile() {
        struct Case {
            name: &'static str,
            labels: &'static [(&'static str, &'static str)],
            own: Option<Affinity>,
            datasets: &'static [Mount],
            want_added: Vec<(&'static str, NodeAffinity)>,
            want_affinity: Option<Affinity>,
            notes: usize,
        }
        let serverful: &[(&str, &str)] = &[(SERVERFUL_INJECT_LABEL, "true")];
        let required_imagenet: &[(&str, &str)] = &[
            (SERVERFUL_INJECT_LABEL, "true"),
            ("fluid.io/dataset.imagenet.sched", "required"),
        ];
        let without_cache = prefer_nodes_without_cache();
        let cache_imagenet = NodeAffinity {
            required: None,
            preferred: vec![preferred(100, &[("fluid.io/s-ml-imagenet", "true")])],
        };
        let fuse_pool = required(vec![term(&[
            ("example.com/fuse", "on"),
            ("example.com/pool", "io"),
        ])]);
        let own_disk = preferred(5, &[("example.com/disk", "ssd")]);
        let cases = [
            Case {
                name: "not selected: untouched",
                labels: &[],
                own: None,
                datasets: &[("imagenet", &[])],
                want_added: vec![],
                want_affinity: None,
                notes: 0,
            },
            Case {
                name: "serverful without dataset: prefer nodes without cache, after its own",
                labels: serverful,
                own: with_node_affinity(NodeAffinity {
                    required: None,
                    preferred: vec![own_disk.clone()],
                }),
                datasets: &[],
                want_added: vec![(PREFER_NODES_WITHOUT_CACHE, without_cache.clone())],
                want_affinity: with_node_affinity(NodeAffinity {
                    required: None,
                    preferred: vec![own_disk.clone(), without_cache.preferred[0].clone()],
                }),
                notes: 0,
            },
            Case {
                name: "serverless without dataset: the same preference",
                labels: &[(SERVERLESS_INJECT_LABEL, "true")],
                own: None,
                datasets: &[],
                want_added: vec![(PREFER_NODES_WITHOUT_CACHE, without_cache.clone())],
                want_affinity: with_node_affinity(without_cache.clone()),
                notes: 0,
            },
            Case {
                name: "serverless with a dataset: a sidecar, no affinity",
                labels: &[(SERVERLESS_INJECT_LABEL, "true")],
                own: None,
                datasets: &[("imagenet", &[("example.com/fuse", "on")])],
                want_added: vec![],
                want_affinity: None,
                notes: 1,
            },
            Case {
                name: "runtime without fuse selector: only the cache preference",
                labels: serverful,
                own: None,
                datasets: &[("imagenet", &[])],
                want_added: vec![(webhook::NODE_AFFINITY_WITH_CACHE, cache_imagenet.clone())],
                want_affinity: with_node_affinity(cache_imagenet.clone()),
                notes: 0,
            },
            Case {
                name: "fuse selector required (sorted by key), then the cache preferred",
                labels: serverful,
                own: None,
                datasets: &[(
                    "imagenet",
                    &[("example.com/pool", "io"), ("example.com/fuse", "on")],
                )],
                want_added: vec![
                    (REQUIRE_NODE_WITH_FUSE, fuse_pool.clone()),
                    (webhook::NODE_AFFINITY_WITH_CACHE, cache_imagenet.clone()),
                ],
                want_affinity: with_node_affinity(NodeAffinity {
                    required: fuse_pool.required.clone(),
                    preferred: cache_imagenet.preferred.clone(),
                }),
                notes: 0,
            },
            Case {
                name: "required cache mode is ANDed with the fuse term",
                labels: required_imagenet,
                own: None,
                datasets: &[("imagenet", &[("example.com/fuse", "on")])],
                want_added: vec![
                    (
                        REQUIRE_NODE_WITH_FUSE,
                        required(vec![term(&[("example.com/fuse", "on")])]),
                    ),
                    (
                        webhook::NODE_AFFINITY_WITH_CACHE,
                        required(vec![term(&[("fluid.io/s-ml-imagenet", "true")])]),
                    ),
                ],
                want_affinity: with_node_affinity(required(vec![term(&[
                    ("example.com/fuse", "on"),
                    ("fluid.io/s-ml-imagenet", "true"),
                ])])),
                notes: 0,
            },
            Case {
                name: "two datasets with fuse selectors: either term",
                labels: serverful,
                own: None,
                datasets: &[
                    ("imagenet", &[("example.com/fuse", "a")]),
                    ("coco", &[("example.com/fuse", "b")]),
                ],
                want_added: vec![
                    (
                        REQUIRE_NODE_WITH_FUSE,
                        required(vec![
                            term(&[("example.com/fuse", "a")]),
                            term(&[("example.com/fuse", "b")]),
                        ]),
                    ),
                    (
                        webhook::NODE_AFFINITY_WITH_CACHE,
                        NodeAffinity {
                            required: None,
                            preferred: vec![
                                preferred(100, &[("fluid.io/s-ml-imagenet", "true")]),
                                preferred(100, &[("fluid.io/s-ml-coco", "true")]),
                            ],
                        },
                    ),
                ],
                want_affinity: with_node_affinity(NodeAffinity {
                    required: Some(NodeSelector {
                        node_selector_terms: vec![
                            term(&[("example.com/fuse", "a")]),
                            term(&[("example.com/fuse", "b")]),
                        ],
                    }),
                    preferred: vec![
                        preferred(100, &[("fluid.io/s-ml-imagenet", "true")]),
                        preferred(100, &[("fluid.io/s-ml-coco", "true")]),
                    ],
                }),
                notes: 0,
            },
        ];
        for case in cases {
            let selectors: Vec<Labels> = case.datasets.iter().map(|(_, s)| labels(s)).collect();
            let mounted: Vec<MountedDataset> = case
                .datasets
                .iter()
                .zip(&selectors)
                .map(|((name, _), selector)| MountedDataset {
                    name,
                    cache_affinity: None,
                    fuse_node_selector: Some(selector),
                })
                .collect();
            let got = admit(
                "ml",
                &labels(case.labels),
                case.own.clone(),
                &Labels::default(),
                &mounted,
            );
            let added: Vec<(&str, NodeAffinity)> = got
                .added
                .iter()
                .map(|a| (a.plugin, a.node_affinity.clone()))
                .collect();
            assert_eq!(added, case.want_added, "{}", case.name);
            assert_eq!(got.affinity, case.want_affinity, "{}", case.name);
            assert_eq!(got.notes.len(), case.notes, "{}", case.name);
        }
    }
}
