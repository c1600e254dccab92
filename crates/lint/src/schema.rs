//! Known fields of the custom resources this tool models (Fluid data operations for DF101,
//! the gang kinds for DF005), as outlines walked over the positioned tree.
//!
//! Typed decoding skips unknown fields on purpose (the API server prunes them too), so the
//! check walks the positioned tree against these outlines instead. Where a custom resource
//! embeds a Kubernetes type (a pod template, an affinity), the outline hands that subtree to
//! the strict check of k8s-openapi's types ([`super::strict`]).

use k8s_openapi::api::core::v1 as core;
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1 as meta;

use crate::field_issue::{InvalidValue, Issue, UnknownField, describe, suggest};
use crate::typed::kube;
use df_manifest::{Node, Value};

/// The outline of a YAML value: a map with known fields, a list of one shape, a Kubernetes
/// type checked against its k8s-openapi definition, or anything.
pub(crate) enum Shape {
    Any,
    Map(&'static [(&'static str, Shape)]),
    List(&'static Shape),
    Kube(KubeCheck),
}

/// The strict check of one Kubernetes type at `path`.
pub(crate) type KubeCheck = for<'n> fn(&'n Node, &str, &mut Vec<Issue<'n>>);

const OBJECT_REF: Shape = Shape::Map(&[
    ("apiVersion", Shape::Any),
    ("kind", Shape::Any),
    ("name", Shape::Any),
    ("namespace", Shape::Any),
]);

const RUN_AFTER: Shape = Shape::Map(&[
    ("apiVersion", Shape::Any),
    ("kind", Shape::Any),
    ("name", Shape::Any),
    ("namespace", Shape::Any),
    (
        "affinityStrategy",
        Shape::Map(&[
            ("dependOn", OBJECT_REF),
            ("policy", Shape::Any),
            (
                "requires",
                Shape::List(&Shape::Map(&[("name", Shape::Any)])),
            ),
            (
                "prefers",
                Shape::List(&Shape::Map(&[("name", Shape::Any), ("weight", Shape::Any)])),
            ),
        ]),
    ),
]);

/// `spec` of the four kinds together: a field valid for one kind is not reported on another
/// (that mistake is rare and the API server reports it), so no valid manifest is flagged.
pub(crate) const OP_SPEC: Shape = Shape::Map(&[
    ("affinity", Shape::Kube(kube::<core::Affinity>)),
    ("backupPath", Shape::Any),
    ("block", Shape::Any),
    ("dataset", Shape::Any),
    ("from", Shape::Any),
    ("image", Shape::Any),
    ("imagePullPolicy", Shape::Any),
    ("imagePullSecrets", Shape::Any),
    ("imageTag", Shape::Any),
    ("loadMetadata", Shape::Any),
    ("nodeSelector", Shape::Any),
    ("options", Shape::Any),
    ("parallelOptions", Shape::Any),
    ("parallelism", Shape::Any),
    ("podMetadata", Shape::Any),
    ("policy", Shape::Any),
    (
        "processor",
        Shape::Map(&[
            (
                "job",
                Shape::Map(&[("podSpec", Shape::Kube(kube::<core::PodSpec>))]),
            ),
            ("podMetadata", Shape::Any),
            ("script", Shape::Any),
            ("serviceAccountName", Shape::Any),
        ]),
    ),
    ("resources", Shape::Any),
    ("runAfter", RUN_AFTER),
    ("runAs", Shape::Any),
    ("runtimeType", Shape::Any),
    ("schedule", Shape::Any),
    ("schedulerName", Shape::Any),
    ("target", Shape::Any),
    ("to", Shape::Any),
    (
        "tolerations",
        Shape::List(&Shape::Kube(kube::<core::Toleration>)),
    ),
    ("ttlSecondsAfterFinished", Shape::Any),
]);

/// A whole custom resource: type meta, standard metadata, its `spec`, any `status`.
macro_rules! custom_resource {
    ($spec:expr) => {
        Shape::Map(&[
            ("apiVersion", Shape::Any),
            ("kind", Shape::Any),
            ("metadata", Shape::Kube(kube::<meta::ObjectMeta>)),
            ("spec", $spec),
            ("status", Shape::Any),
        ])
    };
}

mod operators;

const RESOURCE_LIST: Shape = Shape::Kube(kube::<std::collections::BTreeMap<String, Quantity>>);

const FLUID_OP: Shape = custom_resource!(OP_SPEC);

/// Fluid's Dataset (`data.fluid.io/v1alpha1`): its cache node affinity decides where every
/// pod that mounts it may run.
const FLUID_DATASET: Shape = custom_resource!(Shape::Map(&[
    ("mounts", Shape::Any),
    ("owner", Shape::Any),
    (
        "nodeAffinity",
        Shape::Map(&[("required", Shape::Kube(kube::<core::NodeSelector>))]),
    ),
    (
        "tolerations",
        Shape::List(&Shape::Kube(kube::<core::Toleration>))
    ),
    ("accessModes", Shape::Any),
    ("runtimes", Shape::Any),
    ("placement", Shape::Any),
    ("dataRestoreLocation", Shape::Any),
    ("sharedOptions", Shape::Any),
    ("sharedEncryptOptions", Shape::Any),
]));

/// Fluid's cache runtimes, read for their cache placement: metadata is checked, their large
/// and engine-specific `spec` is not outlined here yet.
const FLUID_RUNTIME: Shape = custom_resource!(Shape::Any);

/// Godel's PodGroup (`scheduling.godel.kubewharf.io/v1alpha1`, pkg/apis/scheduling).
const GODEL_POD_GROUP: Shape = custom_resource!(Shape::Map(&[
    ("minMember", Shape::Any),
    ("priorityClassName", Shape::Any),
    ("scheduleTimeoutSeconds", Shape::Any),
    (
        "affinity",
        Shape::Map(&[(
            "podGroupAffinity",
            Shape::Map(&[
                (
                    "required",
                    Shape::List(&Shape::Map(&[("topologyKey", Shape::Any)]))
                ),
                (
                    "preferred",
                    Shape::List(&Shape::Map(&[("topologyKey", Shape::Any)]))
                ),
                (
                    "sortRules",
                    Shape::List(&Shape::Map(&[
                        ("resource", Shape::Any),
                        ("dimension", Shape::Any),
                        ("order", Shape::Any),
                    ])),
                ),
                ("nodeSelector", Shape::Kube(kube::<core::NodeSelector>)),
            ]),
        )]),
    ),
]));

/// Volcano's Job (`batch.volcano.sh/v1alpha1`): every task's pod template is a Kubernetes
/// PodTemplateSpec, checked as strictly as a Pod.
const VOLCANO_JOB: Shape = custom_resource!(Shape::Map(&[
    ("schedulerName", Shape::Any),
    ("minAvailable", Shape::Any),
    ("volumes", Shape::Any),
    (
        "tasks",
        Shape::List(&Shape::Map(&[
            ("name", Shape::Any),
            ("replicas", Shape::Any),
            ("minAvailable", Shape::Any),
            ("template", Shape::Kube(kube::<core::PodTemplateSpec>)),
            ("policies", Shape::Any),
            ("topologyPolicy", Shape::Any),
            ("maxRetry", Shape::Any),
            ("dependsOn", Shape::Any),
            (
                "partitionPolicy",
                Shape::Map(&[
                    ("totalPartitions", Shape::Any),
                    ("partitionSize", Shape::Any),
                    ("networkTopology", NETWORK_TOPOLOGY),
                    ("minPartitions", Shape::Any),
                ]),
            ),
        ])),
    ),
    ("policies", Shape::Any),
    ("plugins", Shape::Any),
    ("runningEstimate", Shape::Any),
    ("queue", Shape::Any),
    ("maxRetry", Shape::Any),
    ("ttlSecondsAfterFinished", Shape::Any),
    ("priorityClassName", Shape::Any),
    ("minSuccess", Shape::Any),
    ("networkTopology", NETWORK_TOPOLOGY),
]));

/// Volcano's PodGroup (`scheduling.volcano.sh/v1beta1`).
const VOLCANO_POD_GROUP: Shape = custom_resource!(Shape::Map(&[
    ("minMember", Shape::Any),
    ("minTaskMember", Shape::Any),
    ("queue", Shape::Any),
    ("priorityClassName", Shape::Any),
    ("minResources", RESOURCE_LIST),
    ("networkTopology", NETWORK_TOPOLOGY),
    ("subGroupPolicy", Shape::Any),
]));

/// Volcano's Queue (`scheduling.volcano.sh/v1beta1`): the enqueue gate reads its capability,
/// guarantee and state.
const VOLCANO_QUEUE: Shape = custom_resource!(Shape::Map(&[
    ("weight", Shape::Any),
    ("capability", RESOURCE_LIST),
    ("guarantee", Shape::Map(&[("resource", RESOURCE_LIST)])),
    ("deserved", RESOURCE_LIST),
    ("reclaimable", Shape::Any),
    ("parent", Shape::Any),
    ("priority", Shape::Any),
    ("affinity", Shape::Any),
    ("extendClusters", Shape::Any),
    ("type", Shape::Any),
    ("dequeueStrategy", Shape::Any),
]));

/// The PodGroup of scheduler-plugins' coscheduling (`scheduling.x-k8s.io/v1alpha1`) and of
/// kube-batch (`scheduling.incubator.k8s.io/v1alpha1`, `scheduling.sigs.dev/v1alpha2`).
const PLUGIN_POD_GROUP: Shape = custom_resource!(Shape::Map(&[
    ("minMember", Shape::Any),
    ("minResources", RESOURCE_LIST),
    ("scheduleTimeoutSeconds", Shape::Any),
    ("queue", Shape::Any),
    ("priorityClassName", Shape::Any),
]));

/// The Kubernetes Workload API (`scheduling.k8s.io` v1alpha1 `Workload`, v1alpha2 `Workload`
/// and runtime `PodGroup`): alpha and changing from release to release, so only metadata is
/// checked; the gang adapter reports the fields it reads with their paths.
const SCHEDULING_WORKLOAD: Shape = custom_resource!(Shape::Any);

/// Kueue's objects: their fields are read by serde into the model (a wrong type is a decode
/// error with its path), so only metadata is checked here.
const KUEUE: Shape = custom_resource!(Shape::Any);
/// Kueue's WorkloadPriorityClass keeps its fields at the top level, as PriorityClass does.
const KUEUE_PRIORITY_CLASS: Shape = Shape::Map(&[
    ("apiVersion", Shape::Any),
    ("kind", Shape::Any),
    ("metadata", Shape::Kube(kube::<meta::ObjectMeta>)),
    ("value", Shape::Any),
    ("description", Shape::Any),
]);
/// Volcano `spec.networkTopology` of a Job or PodGroup.
const NETWORK_TOPOLOGY: Shape = Shape::Map(&[
    ("mode", Shape::Any),
    ("highestTierAllowed", Shape::Any),
    ("highestTierName", Shape::Any),
]);

/// Volcano's HyperNode (`topology.volcano.sh/v1alpha1`): a tier and its members.
const HYPERNODE: Shape = custom_resource!(Shape::Map(&[
    ("tier", Shape::Any),
    ("tierName", Shape::Any),
    (
        "members",
        Shape::List(&Shape::Map(&[
            ("type", Shape::Any),
            (
                "selector",
                Shape::Map(&[
                    ("exactMatch", Shape::Map(&[("name", Shape::Any)])),
                    ("regexMatch", Shape::Map(&[("pattern", Shape::Any)])),
                    ("labelMatch", Shape::Any),
                ]),
            ),
        ])),
    ),
]));

/// The custom resources this tool models, by apiVersion and kind.
pub(crate) const CUSTOM_RESOURCES: &[(&str, &str, Shape)] = &[
    ("data.fluid.io/v1alpha1", "DataLoad", FLUID_OP),
    ("data.fluid.io/v1alpha1", "DataMigrate", FLUID_OP),
    ("data.fluid.io/v1alpha1", "DataProcess", FLUID_OP),
    ("data.fluid.io/v1alpha1", "DataBackup", FLUID_OP),
    ("data.fluid.io/v1alpha1", "Dataset", FLUID_DATASET),
    ("data.fluid.io/v1alpha1", "AlluxioRuntime", FLUID_RUNTIME),
    ("data.fluid.io/v1alpha1", "JindoRuntime", FLUID_RUNTIME),
    ("data.fluid.io/v1alpha1", "GooseFSRuntime", FLUID_RUNTIME),
    ("data.fluid.io/v1alpha1", "JuiceFSRuntime", FLUID_RUNTIME),
    ("data.fluid.io/v1alpha1", "EFCRuntime", FLUID_RUNTIME),
    ("data.fluid.io/v1alpha1", "ThinRuntime", FLUID_RUNTIME),
    ("data.fluid.io/v1alpha1", "VineyardRuntime", FLUID_RUNTIME),
    (
        "scheduling.godel.kubewharf.io/v1alpha1",
        "PodGroup",
        GODEL_POD_GROUP,
    ),
    ("batch.volcano.sh/v1alpha1", "Job", VOLCANO_JOB),
    ("topology.volcano.sh/v1alpha1", "HyperNode", HYPERNODE),
    (
        "scheduling.volcano.sh/v1beta1",
        "PodGroup",
        VOLCANO_POD_GROUP,
    ),
    ("scheduling.volcano.sh/v1beta1", "Queue", VOLCANO_QUEUE),
    ("scheduling.x-k8s.io/v1alpha1", "PodGroup", PLUGIN_POD_GROUP),
    (
        "scheduling.sigs.k8s.io/v1alpha1",
        "PodGroup",
        PLUGIN_POD_GROUP,
    ),
    (
        "scheduling.incubator.k8s.io/v1alpha1",
        "PodGroup",
        PLUGIN_POD_GROUP,
    ),
    ("scheduling.sigs.dev/v1alpha2", "PodGroup", PLUGIN_POD_GROUP),
    (
        "scheduling.k8s.io/v1alpha1",
        "Workload",
        SCHEDULING_WORKLOAD,
    ),
    (
        "scheduling.k8s.io/v1alpha2",
        "Workload",
        SCHEDULING_WORKLOAD,
    ),
    (
        "scheduling.k8s.io/v1alpha2",
        "PodGroup",
        SCHEDULING_WORKLOAD,
    ),
    (
        "scheduling.k8s.io/v1alpha3",
        "Workload",
        SCHEDULING_WORKLOAD,
    ),
    (
        "scheduling.k8s.io/v1alpha3",
        "PodGroup",
        SCHEDULING_WORKLOAD,
    ),
    ("scheduling.k8s.io/v1beta1", "Workload", SCHEDULING_WORKLOAD),
    ("scheduling.k8s.io/v1beta1", "PodGroup", SCHEDULING_WORKLOAD),
    ("kueue.x-k8s.io/v1alpha1", "Topology", KUEUE),
    ("kueue.x-k8s.io/v1beta1", "Topology", KUEUE),
    ("kueue.x-k8s.io/v1beta2", "Topology", KUEUE),
    ("kueue.x-k8s.io/v1beta1", "ResourceFlavor", KUEUE),
    ("kueue.x-k8s.io/v1beta2", "ResourceFlavor", KUEUE),
    ("kueue.x-k8s.io/v1beta1", "ClusterQueue", KUEUE),
    ("kueue.x-k8s.io/v1beta2", "ClusterQueue", KUEUE),
    ("kueue.x-k8s.io/v1beta1", "LocalQueue", KUEUE),
    ("kueue.x-k8s.io/v1beta2", "LocalQueue", KUEUE),
    ("kueue.x-k8s.io/v1alpha1", "Cohort", KUEUE),
    ("kueue.x-k8s.io/v1beta1", "Cohort", KUEUE),
    ("kueue.x-k8s.io/v1beta2", "Cohort", KUEUE),
    (
        "kueue.x-k8s.io/v1beta1",
        "WorkloadPriorityClass",
        KUEUE_PRIORITY_CLASS,
    ),
    (
        "kueue.x-k8s.io/v1beta2",
        "WorkloadPriorityClass",
        KUEUE_PRIORITY_CLASS,
    ),
    ("kueue.x-k8s.io/v1beta1", "Workload", KUEUE),
    ("kueue.x-k8s.io/v1beta2", "Workload", KUEUE),
];

/// Every custom resource this tool models, with its outline.
pub(crate) fn custom_resources()
-> impl Iterator<Item = &'static (&'static str, &'static str, Shape)> {
    CUSTOM_RESOURCES.iter().chain(operators::OPERATORS)
}

/// The schema of a custom resource this tool models.
pub(crate) fn custom_resource_shape(api_version: &str, kind: &str) -> Option<&'static Shape> {
    custom_resources()
        .find(|(a, k, _)| *a == api_version && *k == kind)
        .map(|(_, _, shape)| shape)
}

/// Collect what `shape` finds wrong in `node` (at `path`): unknown fields, and whatever the
/// Kubernetes types embedded in the outline reject.
pub(crate) fn check_shape<'n>(node: &'n Node, shape: &Shape, path: &str, out: &mut Vec<Issue<'n>>) {
    match (shape, &node.value) {
        (Shape::Kube(check), _) => check(node, path, out),
        (Shape::Map(fields), Value::Map(entries)) => {
            for entry in entries {
                let child = super::join(path, &entry.key);
                match fields.iter().find(|(name, _)| *name == entry.key) {
                    Some((_, shape)) => check_shape(&entry.value, shape, &child, out),
                    None => {
                        let (suggestion, note) =
                            suggest(&entry.key, fields.iter().map(|(name, _)| *name));
                        out.push(Issue::Unknown(UnknownField {
                            path: child,
                            key: &entry.key,
                            key_pos: entry.key_pos,
                            suggestion,
                            note,
                            value: &entry.value,
                        }));
                    }
                }
            }
        }
        (Shape::List(item), Value::Seq(items)) => {
            for (i, value) in items.iter().enumerate() {
                check_shape(value, item, &format!("{path}[{i}]"), out);
            }
        }
        (Shape::Map(_) | Shape::List(_), Value::Null) | (Shape::Any, _) => {}
        (Shape::Map(_), other) => {
            out.push(wrong_shape(node, other, path, "an object (field: value)"))
        }
        (Shape::List(_), other) => out.push(wrong_shape(node, other, path, "a list")),
    }
}

fn wrong_shape<'n>(node: &Node, value: &Value, path: &str, expected: &str) -> Issue<'n> {
    Issue::Invalid(InvalidValue {
        path: path.to_string(),
        pos: node.pos,
        message: format!("expected {expected}, got {}", describe(value)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use df_manifest::tree::parse_documents;

    #[test]
    fn suggestions() {
        let text = "runAfter:\n  kind: DataLoad\n  nmae: a\n  affinityStratgey: {}\n  affinityStrategy:\n    require: [x]\n    polcy: Require\n    prefers: [{name: a, wieght: 3}]\n  zzz: 1\n";
        let doc = &parse_documents(text).unwrap()[0];
        let mut out = Vec::new();
        check_shape(doc, &OP_SPEC, "spec", &mut out);
        let got: Vec<_> = out
            .iter()
            .filter_map(|issue| match issue {
                Issue::Unknown(u) => Some((u.path.as_str(), u.suggestion, u.value.pos.line)),
                Issue::Invalid(_) => None,
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("spec.runAfter.nmae", Some("name"), 3),
                (
                    "spec.runAfter.affinityStratgey",
                    Some("affinityStrategy"),
                    4
                ),
                (
                    "spec.runAfter.affinityStrategy.require",
                    Some("requires"),
                    6
                ),
                ("spec.runAfter.affinityStrategy.polcy", Some("policy"), 7),
                (
                    "spec.runAfter.affinityStrategy.prefers[0].wieght",
                    Some("weight"),
                    8
                ),
                ("spec.runAfter.zzz", None, 9),
            ]
        );
    }
}
