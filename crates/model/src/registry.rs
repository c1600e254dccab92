//! Every object the tool decodes, and the lists a cluster state keeps them in: the expansion of
//! the one table of kinds ([`crate::object_kinds`]) into the [`Object`] enum, its decoder's
//! dispatch and [`ObjectLists`].

use serde::{Deserialize, Deserializer};

use crate::core::{Namespace, Node, ObjectMeta, Pod};
use crate::dra::DraObjects;
use crate::fluid::{FluidOp, FluidRuntime};
use crate::gang::{
    GodelPodGroup, PodGroup, SchedulingWorkload, VolcanoJob, VolcanoPodGroup, VolcanoQueue,
};
use crate::hypernode::{ConfigMap, HyperNode};
use crate::kinds::{DecodeError, TypeMeta};
use crate::kinds::{Kind, KindObject, Reader};
use crate::kueue::{
    ClusterQueue, Cohort, KueueObjects, KueueWorkload, LocalQueue, ResourceFlavor, Topology,
    WorkloadPriorityClass,
};
use crate::operators::OperatorObject;
use crate::policy::{PodDisruptionBudget, PriorityClass};
use crate::quota::{LimitRange, ResourceQuota};
use crate::storage::StorageObjects;
use crate::{Service, Workload, kinds};

/// Every object the tool decodes: one variant per row of [`object_kinds!`], and the kinds it
/// does not model, kept with their metadata so they can be reported, never silently dropped.
macro_rules! define_object {
    ($($variant:ident($ty:ty) $(in $($list:ident).+)?;)*) => {
        // Objects are decoded once and moved straight into typed lists; boxing pods would
        // cost an allocation per pod when loading 150,000 of them. Workloads and Fluid
        // operations, larger than a pod and rare in a state, are boxed: every object of a
        // loaded state is held as an `Object` until it is sorted into the lists, so the
        // enum's size is what that costs per pod.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug, Clone, PartialEq)]
        pub enum Object {
            $($variant($ty),)*
            /// Kept so callers can report it, never silently dropped.
            Unknown {
                type_meta: TypeMeta,
                metadata: ObjectMeta,
            },
        }

        /// Every registered kind, in the table's order.
        pub fn registry() -> impl Iterator<Item = &'static Kind> + Clone {
            [$(<$ty as KindObject>::KINDS),*].into_iter().flatten()
        }

        impl Object {
            pub(crate) fn decode_registered<'de, D: Deserializer<'de>>(
                type_meta: &TypeMeta,
                kind: &'static Kind,
                read: Reader<D>,
            ) -> Result<Object, DecodeError> {
                $(
                    if <$ty as KindObject>::KINDS.contains(kind) {
                        return Ok(Object::$variant(<$ty as KindObject>::decode(type_meta, read)?));
                    }
                )*
                unreachable!("every registered kind belongs to one row of the table")
            }

            pub fn metadata(&self) -> &ObjectMeta {
                match self {
                    $(Object::$variant(o) => o.metadata(),)*
                    Object::Unknown { metadata, .. } => metadata,
                }
            }

            pub fn metadata_mut(&mut self) -> &mut ObjectMeta {
                match self {
                    $(Object::$variant(o) => o.metadata_mut(),)*
                    Object::Unknown { metadata, .. } => metadata,
                }
            }

            /// The kind's descriptor; `None` for kinds the tool does not model.
            pub fn kind_info(&self) -> Option<&'static Kind> {
                match self {
                    $(Object::$variant(o) => Some(o.kind_info()),)*
                    Object::Unknown { .. } => None,
                }
            }
        }

        impl ObjectLists {
            /// Add `object` to its list; an object no list keeps is given back.
            pub fn push(&mut self, object: Object) -> Option<Object> {
                match object {
                    $($(Object::$variant(o) => self.$($list).+.push(o.into()),)?)*
                    other => return Some(other),
                }
                None
            }
        }
    };
}

crate::object_kinds!(define_object);

/// The objects of a cluster state, one list per kind (the rows of [`object_kinds!`]).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ObjectLists {
    pub nodes: Vec<Node>,
    /// Every pod that holds or wants a node: bound pods on existing nodes and pending pods.
    pub pods: Vec<Pod>,
    pub namespaces: Vec<Namespace>,
    pub fluid_ops: Vec<FluidOp>,
    /// Fluid cache runtimes (AlluxioRuntime, JuiceFSRuntime...), for the webhook's tiers.
    pub fluid_runtimes: Vec<FluidRuntime>,
    pub godel_pod_groups: Vec<GodelPodGroup>,
    pub volcano_jobs: Vec<VolcanoJob>,
    pub volcano_pod_groups: Vec<VolcanoPodGroup>,
    pub volcano_queues: Vec<VolcanoQueue>,
    /// kube-batch, coscheduling and Kubernetes runtime PodGroups.
    pub pod_groups: Vec<PodGroup>,
    pub scheduling_workloads: Vec<SchedulingWorkload>,
    /// Priorities of pods, for preemption.
    pub priority_classes: Vec<PriorityClass>,
    /// Budgets preemption tries not to violate, with their recorded status.
    pub pod_disruption_budgets: Vec<PodDisruptionBudget>,
    /// Namespace policies the API server applies to a pod before it is scheduled.
    pub resource_quotas: Vec<ResourceQuota>,
    pub limit_ranges: Vec<LimitRange>,
    /// Kueue's topologies, flavors and queues (Topology Aware Scheduling).
    pub kueue: KueueObjects,
    /// Volcano network topology domains.
    pub hyper_nodes: Vec<HyperNode>,
    /// ConfigMaps; Volcano's scheduler configuration is read from one.
    pub config_maps: Vec<ConfigMap>,
    /// The workload controllers' objects of the state; PodTopologySpread's default constraints
    /// select a pod's peers by its ReplicaSet's or StatefulSet's selector.
    pub workloads: Vec<Workload>,
    /// Services; PodTopologySpread's default constraints select a pod's peers by theirs.
    pub services: Vec<Service>,
    /// PersistentVolumes, their claims and the storage.k8s.io objects the volume plugins read.
    pub storage: StorageObjects,
    /// JobSets, LeaderWorkerSets, Kubeflow and KubeRay objects; a TrainJob reads its
    /// training runtime from here when the inputs do not hold it.
    pub operators: Vec<OperatorObject>,
    /// Dynamic Resource Allocation: devices, their classes and the claims on them.
    pub dra: DraObjects,
}

impl From<Box<FluidOp>> for FluidOp {
    fn from(op: Box<FluidOp>) -> FluidOp {
        *op
    }
}

/// The registered kind of `api_version`'s group and `kind`, whatever its version.
pub fn find(group: &str, kind: &str) -> Option<&'static Kind> {
    registry().find(|k| k.kind == kind && k.group() == group)
}

/// The distinct kind names `KIND/NAME` arguments may use, with the short names of each
/// (several groups may share a kind name: their short names are merged), sorted by name.
pub fn addressable() -> Vec<(&'static str, Vec<&'static str>)> {
    let mut kinds: Vec<(&'static str, Vec<&'static str>)> = Vec::new();
    for kind in registry().filter(|k| k.addressable) {
        match kinds.iter_mut().find(|(name, _)| *name == kind.kind) {
            Some((_, short)) => short.extend(kind.short_names),
            None => kinds.push((kind.kind, kind.short_names.to_vec())),
        }
    }
    kinds.sort();
    kinds
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct MetadataOnly {
    metadata: ObjectMeta,
}

impl Object {
    /// Decode an object whose `apiVersion`/`kind` were already read; errors name the field.
    pub fn decode<'de, D: Deserializer<'de>>(
        type_meta: TypeMeta,
        deserializer: D,
    ) -> Result<Object, DecodeError> {
        Object::decode_as(type_meta, deserializer, true)
    }

    /// The same without tracking field paths: what large states use first, decoding again with
    /// [`Object::decode`] only when an item fails, to say where.
    pub fn decode_untracked<'de, D: Deserializer<'de>>(
        type_meta: TypeMeta,
        deserializer: D,
    ) -> Result<Object, DecodeError> {
        Object::decode_as(type_meta, deserializer, false)
    }

    fn decode_as<'de, D: Deserializer<'de>>(
        type_meta: TypeMeta,
        deserializer: D,
        tracked: bool,
    ) -> Result<Object, DecodeError> {
        let read = kinds::Reader {
            tracked,
            d: deserializer,
        };
        // Every object of a large state comes through here: no allocation unless the
        // apiVersion is refused.
        let Some(kind) = find(type_meta.group(), &type_meta.kind) else {
            let body: MetadataOnly = read.get()?;
            return Ok(Object::Unknown {
                type_meta,
                metadata: body.metadata,
            });
        };
        if !kind.reads(&type_meta.api_version) {
            let expected = registry()
                .filter(|k| k.kind == kind.kind && k.group() == kind.group())
                .flat_map(|k| k.api_versions)
                .map(|api_version| format!("{api_version:?}"))
                .collect::<Vec<_>>()
                .join(" or ");
            return Err(DecodeError {
                path: "apiVersion".into(),
                message: format!(
                    "unsupported apiVersion {:?} for {} (expected {expected})",
                    type_meta.api_version, kind.kind
                ),
            });
        }
        Object::decode_registered(&type_meta, kind, read)
    }

    /// The kind as users write it (`DataLoad`, `PodGroup`, `Job`...).
    pub fn kind(&self) -> &str {
        match self {
            Object::Unknown { type_meta, .. } => &type_meta.kind,
            other => other.kind_info().map_or("", |k| k.kind),
        }
    }

    /// Namespaced kinds default to `default` when a manifest leaves the namespace out. A kind
    /// the tool does not model has no known scope (a ClusterRole has no namespace), so it keeps
    /// what its manifest says.
    pub fn is_namespaced(&self) -> bool {
        self.kind_info().is_some_and(|k| k.namespaced)
    }
}

// The descriptors of the kinds whose types are decoded as their own serde shape, by module.
crate::kind_object!(
    Pod,
    Kind::new("Pod", &["v1"], "pods", "kube-scheduler and every planner")
        .short(&["po"])
        .addressable()
);
crate::kind_object!(
    Node,
    Kind::new("Node", &["v1"], "nodes", "kube-scheduler and every planner")
        .cluster_scoped()
        .short(&["no"])
        .addressable()
);
crate::kind_object!(
    Namespace,
    Kind::new(
        "Namespace",
        &["v1"],
        "namespaces",
        "inter-pod affinity's namespace selectors"
    )
    .cluster_scoped()
);
crate::kind_object!(
    GodelPodGroup,
    Kind::new(
        "PodGroup",
        &["scheduling.godel.kubewharf.io/v1alpha1"],
        "podgroups",
        "Godel gangs"
    )
    .addressable()
);
crate::kind_object!(
    VolcanoJob,
    Kind::new(
        "Job",
        &["batch.volcano.sh/v1alpha1"],
        "jobs",
        "Volcano gangs"
    )
    .short(&["vcjob", "vj"])
    .addressable()
);
crate::kind_object!(
    VolcanoPodGroup,
    Kind::new(
        "PodGroup",
        &["scheduling.volcano.sh/v1beta1"],
        "podgroups",
        "Volcano gangs"
    )
    .short(&["pg", "podgroup-v1beta1"])
    .addressable()
);
crate::kind_object!(
    VolcanoQueue,
    Kind::new(
        "Queue",
        &["scheduling.volcano.sh/v1beta1"],
        "queues",
        "Volcano's enqueue gate"
    )
    .cluster_scoped()
);
crate::versioned_kind_object!(
    PodGroup,
    Kind::new(
        "PodGroup",
        &["scheduling.incubator.k8s.io/v1alpha1"],
        "podgroups",
        "kube-batch gangs"
    )
    .addressable(),
    Kind::new(
        "PodGroup",
        &["scheduling.sigs.dev/v1alpha2"],
        "podgroups",
        "kube-batch gangs"
    )
    .addressable(),
    Kind::new(
        "PodGroup",
        &["scheduling.x-k8s.io/v1alpha1"],
        "podgroups",
        "coscheduling gangs"
    )
    .addressable(),
    Kind::new(
        "PodGroup",
        crate::gang::POD_GROUP_API_VERSIONS,
        "podgroups",
        "Workload API gangs"
    )
    .addressable()
    // A release serves one of them (1.37: two, with the same objects).
    .live_first_served(&[
        "scheduling.k8s.io/v1beta1",
        "scheduling.k8s.io/v1alpha3",
        "scheduling.k8s.io/v1alpha2"
    ]),
);
crate::versioned_kind_object!(
    SchedulingWorkload,
    Kind::new(
        "Workload",
        &[
            "scheduling.k8s.io/v1alpha1",
            "scheduling.k8s.io/v1alpha2",
            "scheduling.k8s.io/v1alpha3",
            "scheduling.k8s.io/v1beta1"
        ],
        "workloads",
        "Workload API gangs"
    )
    .live_first_served(&[
        "scheduling.k8s.io/v1beta1",
        "scheduling.k8s.io/v1alpha3",
        "scheduling.k8s.io/v1alpha2",
        "scheduling.k8s.io/v1alpha1"
    ]),
);
crate::kind_object!(
    PriorityClass,
    Kind::new(
        "PriorityClass",
        &["scheduling.k8s.io/v1"],
        "priorityclasses",
        "preemption and queue order"
    )
    .cluster_scoped()
);
crate::kind_object!(
    PodDisruptionBudget,
    Kind::new(
        "PodDisruptionBudget",
        &["policy/v1"],
        "poddisruptionbudgets",
        "preemption"
    )
);
crate::kind_object!(
    ResourceQuota,
    Kind::new(
        "ResourceQuota",
        &["v1"],
        "resourcequotas",
        "the API server's admission of planned pods"
    )
);
crate::kind_object!(
    LimitRange,
    Kind::new(
        "LimitRange",
        &["v1"],
        "limitranges",
        "the API server's admission of planned pods"
    )
);
crate::kind_object!(
    HyperNode,
    Kind::new(
        "HyperNode",
        &["topology.volcano.sh/v1alpha1"],
        "hypernodes",
        "Volcano network topology"
    )
    .cluster_scoped()
);
crate::kind_object!(
    ConfigMap,
    // Read one by one (Volcano's scheduler configuration), never listed.
    Kind::new(
        "ConfigMap",
        &["v1"],
        "configmaps",
        "Volcano's scheduler configuration"
    )
    .live(&[])
);
crate::versioned_kind_object!(
    Topology,
    Kind::new(
        "Topology",
        &[
            "kueue.x-k8s.io/v1alpha1",
            "kueue.x-k8s.io/v1beta1",
            "kueue.x-k8s.io/v1beta2"
        ],
        "topologies",
        "Kueue Topology Aware Scheduling"
    )
    .cluster_scoped()
    .live(&["kueue.x-k8s.io/v1beta1"]),
);
crate::versioned_kind_object!(
    ResourceFlavor,
    Kind::new(
        "ResourceFlavor",
        &["kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2"],
        "resourceflavors",
        "Kueue Topology Aware Scheduling"
    )
    .cluster_scoped()
    .live(&["kueue.x-k8s.io/v1beta1"]),
);
crate::versioned_kind_object!(
    ClusterQueue,
    Kind::new(
        "ClusterQueue",
        &["kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2"],
        "clusterqueues",
        "Kueue Topology Aware Scheduling"
    )
    .cluster_scoped()
    .live(&["kueue.x-k8s.io/v1beta1"]),
);
crate::versioned_kind_object!(
    LocalQueue,
    Kind::new(
        "LocalQueue",
        &["kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2"],
        "localqueues",
        "Kueue Topology Aware Scheduling"
    )
    .live(&["kueue.x-k8s.io/v1beta1"]),
);
crate::versioned_kind_object!(
    Cohort,
    Kind::new(
        "Cohort",
        &[
            "kueue.x-k8s.io/v1alpha1",
            "kueue.x-k8s.io/v1beta1",
            "kueue.x-k8s.io/v1beta2"
        ],
        "cohorts",
        "Kueue admission (shared quota)"
    )
    .cluster_scoped()
    .live(&["kueue.x-k8s.io/v1beta1"]),
);
crate::versioned_kind_object!(
    WorkloadPriorityClass,
    Kind::new(
        "WorkloadPriorityClass",
        &["kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2"],
        "workloadpriorityclasses",
        "Kueue admission (queue order, preemption)"
    )
    .cluster_scoped()
    .live(&["kueue.x-k8s.io/v1beta1"]),
);
// Admitted Workloads are the quota already in use; a job's own Workload is derived from it.
crate::versioned_kind_object!(
    KueueWorkload,
    Kind::new(
        "Workload",
        &["kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2"],
        "workloads",
        "Kueue admission (quota in use)"
    )
    .live(&["kueue.x-k8s.io/v1beta1"]),
);

crate::kind_object!(
    Service,
    Kind::new(
        "Service",
        &["v1"],
        "services",
        "PodTopologySpread's default constraints"
    )
    .short(&["svc"])
);

impl KueueObjects {
    /// Keep a copy of `object` when it is one of Kueue's; whether it was.
    pub fn add(&mut self, object: &Object) -> bool {
        match object {
            Object::KueueTopology(o) => self.topologies.push(o.clone()),
            Object::ResourceFlavor(o) => self.flavors.push(o.clone()),
            Object::ClusterQueue(o) => self.cluster_queues.push(o.clone()),
            Object::LocalQueue(o) => self.local_queues.push(o.clone()),
            Object::Cohort(o) => self.cohorts.push(o.clone()),
            Object::WorkloadPriorityClass(o) => self.priority_classes.push(o.clone()),
            Object::KueueWorkload(o) => self.workloads.push(o.clone()),
            _ => return false,
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode_json(text: &str) -> Result<Object, DecodeError> {
        let value: serde_json::Value = serde_json::from_str(text).unwrap();
        let type_meta = TypeMeta::deserialize(&value).unwrap();
        Object::decode(type_meta, &value)
    }

    #[test]
    fn dispatches_on_group_and_kind() {
        let cases = [
            (
                r#"{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"}}"#,
                "Pod",
            ),
            (
                r#"{"apiVersion":"batch/v1","kind":"Job","spec":{"parallelism":3}}"#,
                "Job",
            ),
            (
                r#"{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"Job"}"#,
                "Job",
            ),
            (
                r#"{"apiVersion":"data.fluid.io/v1alpha1","kind":"DataLoad"}"#,
                "DataLoad",
            ),
            (
                r#"{"apiVersion":"example.com/v1","kind":"Widget"}"#,
                "Widget",
            ),
        ];
        for (text, kind) in cases {
            assert_eq!(decode_json(text).unwrap().kind(), kind, "{text}");
        }
        assert!(matches!(
            decode_json(r#"{"apiVersion":"batch.volcano.sh/v1alpha1","kind":"Job"}"#),
            Ok(Object::VolcanoJob(_))
        ));
        assert!(matches!(
            decode_json(r#"{"apiVersion":"example.com/v1","kind":"Widget"}"#),
            Ok(Object::Unknown { .. })
        ));
        match decode_json(r#"{"apiVersion":"batch/v1","kind":"Job","spec":{"parallelism":3}}"#) {
            Ok(Object::Workload(w)) => assert_eq!(w.replicas, 3),
            other => panic!("{other:?}"),
        }
    }

    /// An MPIJob's version says whose it is (training-operator's v1, mpi-operator's v2beta1),
    /// and a snapshot writes it back; an operator object's `spec: null` (a kubebuilder
    /// scaffold's sample) is no spec, as the API server prunes the null.
    #[test]
    fn operator_objects_keep_their_version_and_read_a_null_spec_as_none() {
        use crate::operators::OperatorSpec;
        let cases = [
            (
                r#"{"apiVersion":"kubeflow.org/v1","kind":"MPIJob"}"#,
                "kubeflow.org/v1",
                false,
            ),
            (
                r#"{"apiVersion":"kubeflow.org/v2beta1","kind":"MPIJob","spec":null}"#,
                "kubeflow.org/v2beta1",
                true,
            ),
        ];
        for (text, version, mpi_operator) in cases {
            let Ok(Object::Operator(object)) = decode_json(text) else {
                panic!("{text}");
            };
            assert_eq!(object.api_version(), version);
            assert_eq!(
                matches!(object.spec, OperatorSpec::MpiJobV2beta1(_)),
                mpi_operator
            );
        }
        let js = r#"{"apiVersion":"jobset.x-k8s.io/v1alpha2","kind":"JobSet","spec":null}"#;
        match decode_json(js) {
            Ok(Object::Operator(o)) => assert!(
                matches!(o.spec, OperatorSpec::JobSet(ref s) if s.replicated_jobs.is_empty())
            ),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn wrong_api_version_is_an_error_on_api_version() {
        let err =
            decode_json(r#"{"apiVersion":"data.fluid.io/v1beta1","kind":"DataLoad"}"#).unwrap_err();
        assert_eq!(err.path, "apiVersion");
        assert_eq!(
            err.message,
            "unsupported apiVersion \"data.fluid.io/v1beta1\" for DataLoad (expected \"data.fluid.io/v1alpha1\")"
        );
    }

    #[test]
    fn type_errors_name_the_field_path() {
        let err = decode_json(
            r#"{"apiVersion":"data.fluid.io/v1alpha1","kind":"DataLoad",
                "spec":{"runAfter":{"affinityStrategy":{"prefers":[{"name":"x","weight":"high"}]}}}}"#,
        )
        .unwrap_err();
        assert_eq!(err.path, "spec.runAfter.affinityStrategy.prefers[0].weight");
        let err = decode_json(
            r#"{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"resources":{"requests":{"cpu":"lots"}}}]}}"#,
        )
        .unwrap_err();
        assert_eq!(err.path, "spec.containers[0].resources.requests.cpu");
        assert!(
            err.message.contains("invalid quantity \"lots\""),
            "{}",
            err.message
        );
    }
}
