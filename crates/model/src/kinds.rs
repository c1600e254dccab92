//! The registry of object kinds: what the tool reads of the Kubernetes API, one descriptor per
//! kind, and one table ([`object_kinds!`]) from which every per-kind list is derived.
//!
//! A [`Kind`] says how the API names a kind (apiVersions, kind, plural, short names, scope),
//! whether `KIND/NAME` arguments may address it, which versions a live read lists and which
//! part of placement reads it. The Rust type that holds a kind implements [`KindObject`]
//! (its kinds, how it decodes, its metadata and identity). [`object_kinds!`] lists every such
//! type once, with the [`Object`] variant that carries it and the list of [`ObjectLists`]
//! that keeps it; each layer that needs per-kind code (the decoder here, the state's lists,
//! the snapshot and the cache) expands that one table with a macro of its own, so a kind
//! left out anywhere is a compile error rather than a silently dropped object.
//!
//! Adding a kind is: its type with a [`KindObject`] impl (usually through [`kind_object!`]),
//! one row of [`object_kinds!`], its list in [`ObjectLists`], and the code that uses it.

use serde::{Deserialize, Deserializer};

use crate::core::{Namespace, Node, ObjectMeta, Pod};
use crate::fluid::{FluidOp, FluidRuntime};
use crate::gang::{GodelPodGroup, PodGroup, SchedulingWorkload, VolcanoJob, VolcanoPodGroup};
use crate::hypernode::{ConfigMap, HyperNode};
use crate::kueue::{ClusterQueue, KueueObjects, LocalQueue, ResourceFlavor, Topology};
use crate::policy::{PodDisruptionBudget, PriorityClass};
use crate::quota::{LimitRange, ResourceQuota};
use crate::{DecodeError, TypeMeta};

/// How the API names one kind, and what the tool does with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kind {
    pub kind: &'static str,
    /// Every `apiVersion` read, oldest first; the last is the one a snapshot writes for types
    /// that do not record their own.
    pub api_versions: &'static [&'static str],
    /// The resource name of the API's paths (`pods`, `dataloads`).
    pub plural: &'static str,
    /// The short names the API's discovery lists (`po`, `vcjob`).
    pub short_names: &'static [&'static str],
    pub namespaced: bool,
    /// Whether `KIND/NAME` arguments may name objects of this kind (the ones plans address).
    pub addressable: bool,
    /// The `apiVersion`s a live read lists (each its own resource path); none: not read live.
    pub live: &'static [&'static str],
    /// Which part of placement reads it, for the notes on what was read and what was not.
    pub read_by: &'static str,
}

impl Kind {
    /// A kind of `api_versions` with the defaults of a namespaced, listed, unaddressable kind.
    pub const fn new(
        kind: &'static str,
        api_versions: &'static [&'static str],
        plural: &'static str,
        read_by: &'static str,
    ) -> Kind {
        Kind {
            kind,
            api_versions,
            plural,
            short_names: &[],
            namespaced: true,
            addressable: false,
            live: api_versions,
            read_by,
        }
    }

    pub const fn cluster_scoped(mut self) -> Kind {
        self.namespaced = false;
        self
    }

    pub const fn short(mut self, names: &'static [&'static str]) -> Kind {
        self.short_names = names;
        self
    }

    pub const fn addressable(mut self) -> Kind {
        self.addressable = true;
        self
    }

    /// Listed live in these versions only (the others are read from files alone).
    pub const fn live(mut self, api_versions: &'static [&'static str]) -> Kind {
        self.live = api_versions;
        self
    }

    /// The API group (`""` for the core group).
    pub fn group(&self) -> &'static str {
        group_of(self.api_versions[0])
    }

    /// Whether `api_version` is one this tool reads for the kind.
    pub fn reads(&self, api_version: &str) -> bool {
        self.api_versions.contains(&api_version)
    }

    /// The `apiVersion` a snapshot writes for objects that do not record theirs.
    pub fn api_version(&self) -> &'static str {
        self.api_versions[self.api_versions.len() - 1]
    }
}

/// The group of an `apiVersion`: `batch` of `batch/v1`, `""` of `v1`.
pub fn group_of(api_version: &str) -> &str {
    api_version.rsplit_once('/').map_or("", |(group, _)| group)
}

/// A type that holds objects of one or more kinds.
pub trait KindObject: Sized {
    /// The kinds decoded into this type.
    const KINDS: &'static [Kind];

    /// Decode the object's fields; `type_meta` says which of [`Self::KINDS`] it is.
    fn decode<'de, D: Deserializer<'de>>(
        type_meta: &TypeMeta,
        read: Reader<D>,
    ) -> Result<Self, DecodeError>;

    fn metadata(&self) -> &ObjectMeta;
    fn metadata_mut(&mut self) -> &mut ObjectMeta;

    /// The kind this object is (of [`Self::KINDS`]).
    fn kind_info(&self) -> &'static Kind {
        &Self::KINDS[0]
    }

    /// `apiVersion` as a snapshot and the cache write it.
    fn api_version(&self) -> &str {
        self.kind_info().api_version()
    }

    /// Two objects with one identity are one object listed twice (several `--state` files
    /// may overlap): the kind when a type holds several, and the namespace and name.
    fn identity(&self) -> (&str, &str, &str) {
        let kind = if Self::KINDS.len() > 1 {
            self.kind_info().kind
        } else {
            ""
        };
        let meta = self.metadata();
        (kind, &meta.namespace, &meta.name)
    }
}

/// Types decoded as their own serde shape, one kind each.
#[macro_export]
macro_rules! kind_object {
    ($ty:ty, $kind:expr) => {
        impl $crate::kinds::KindObject for $ty {
            const KINDS: &'static [$crate::kinds::Kind] = &[$kind];

            fn decode<'de, D: ::serde::Deserializer<'de>>(
                _: &$crate::TypeMeta,
                read: $crate::kinds::Reader<D>,
            ) -> Result<Self, $crate::DecodeError> {
                read.get()
            }

            fn metadata(&self) -> &$crate::ObjectMeta {
                &self.metadata
            }

            fn metadata_mut(&mut self) -> &mut $crate::ObjectMeta {
                &mut self.metadata
            }
        }
    };
}

/// Types that record the `apiVersion` they were read with (several projects share a kind
/// name in different groups): decoded as their own serde shape, then told their version.
#[macro_export]
macro_rules! versioned_kind_object {
    ($ty:ty, $($kind:expr),+ $(,)?) => {
        impl $crate::kinds::KindObject for $ty {
            const KINDS: &'static [$crate::kinds::Kind] = &[$($kind),+];

            fn decode<'de, D: ::serde::Deserializer<'de>>(
                type_meta: &$crate::TypeMeta,
                read: $crate::kinds::Reader<D>,
            ) -> Result<Self, $crate::DecodeError> {
                let mut object: Self = read.get()?;
                object.api_version = type_meta.api_version.clone();
                Ok(object)
            }

            fn metadata(&self) -> &$crate::ObjectMeta {
                &self.metadata
            }

            fn metadata_mut(&mut self) -> &mut $crate::ObjectMeta {
                &mut self.metadata
            }

            fn kind_info(&self) -> &'static $crate::kinds::Kind {
                let group = $crate::kinds::group_of(&self.api_version);
                Self::KINDS
                    .iter()
                    .find(|k| k.group() == group)
                    .unwrap_or(&Self::KINDS[0])
            }

            fn api_version(&self) -> &str {
                &self.api_version
            }

            /// The group, as projects share kind names: a kube-batch and a coscheduling
            /// PodGroup of one name are two objects; two versions of one group's are one.
            fn identity(&self) -> (&str, &str, &str) {
                let group = $crate::kinds::group_of(&self.api_version);
                (group, &self.metadata.namespace, &self.metadata.name)
            }
        }
    };
}

impl<T: KindObject> KindObject for Box<T> {
    const KINDS: &'static [Kind] = T::KINDS;

    fn decode<'de, D: Deserializer<'de>>(
        type_meta: &TypeMeta,
        read: Reader<D>,
    ) -> Result<Self, DecodeError> {
        T::decode(type_meta, read).map(Box::new)
    }

    fn metadata(&self) -> &ObjectMeta {
        (**self).metadata()
    }

    fn metadata_mut(&mut self) -> &mut ObjectMeta {
        (**self).metadata_mut()
    }

    fn kind_info(&self) -> &'static Kind {
        (**self).kind_info()
    }

    fn api_version(&self) -> &str {
        (**self).api_version()
    }

    fn identity(&self) -> (&str, &str, &str) {
        (**self).identity()
    }
}

/// A deserializer with the choice of tracking field paths (for errors that name the field).
pub struct Reader<D> {
    pub(crate) tracked: bool,
    pub(crate) d: D,
}

impl<'de, D: Deserializer<'de>> Reader<D> {
    pub fn get<T: Deserialize<'de>>(self) -> Result<T, DecodeError> {
        if self.tracked {
            serde_path_to_error::deserialize(self.d).map_err(|e| DecodeError {
                path: e.path().to_string().trim_start_matches('.').to_string(),
                message: e.inner().to_string(),
            })
        } else {
            T::deserialize(self.d).map_err(|e| DecodeError {
                path: String::new(),
                message: e.to_string(),
            })
        }
    }
}

/// The one table of object types: `Variant(Type) in list` (the list of [`ObjectLists`] that
/// keeps them; a type without one is counted among the ignored kinds). `$callback` is a macro
/// that turns the rows into code. The order is the order a snapshot writes the kinds in, and a
/// live read lists them in.
#[macro_export]
macro_rules! object_kinds {
    ($callback:ident) => {
        $callback! {
            Node($crate::Node) in nodes;
            Namespace($crate::Namespace) in namespaces;
            Pod($crate::Pod) in pods;
            FluidOp(Box<$crate::FluidOp>) in fluid_ops;
            FluidRuntime($crate::fluid::FluidRuntime) in fluid_runtimes;
            GodelPodGroup($crate::GodelPodGroup) in godel_pod_groups;
            VolcanoJob($crate::VolcanoJob) in volcano_jobs;
            VolcanoPodGroup($crate::VolcanoPodGroup) in volcano_pod_groups;
            PodGroup($crate::PodGroup) in pod_groups;
            SchedulingWorkload($crate::SchedulingWorkload) in scheduling_workloads;
            PriorityClass($crate::PriorityClass) in priority_classes;
            PodDisruptionBudget($crate::PodDisruptionBudget) in pod_disruption_budgets;
            ResourceQuota($crate::ResourceQuota) in resource_quotas;
            LimitRange($crate::LimitRange) in limit_ranges;
            KueueTopology($crate::kueue::Topology) in kueue.topologies;
            ResourceFlavor($crate::kueue::ResourceFlavor) in kueue.flavors;
            ClusterQueue($crate::kueue::ClusterQueue) in kueue.cluster_queues;
            LocalQueue($crate::kueue::LocalQueue) in kueue.local_queues;
            HyperNode($crate::HyperNode) in hyper_nodes;
            ConfigMap($crate::ConfigMap) in config_maps;
            Workload(Box<$crate::Workload>);
        }
    };
}

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

object_kinds!(define_object);

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

// The descriptors of the kinds whose types are decoded as their own serde shape.
kind_object!(
    Pod,
    Kind::new("Pod", &["v1"], "pods", "kube-scheduler and every planner")
        .short(&["po"])
        .addressable()
);
kind_object!(
    Node,
    Kind::new("Node", &["v1"], "nodes", "kube-scheduler and every planner")
        .cluster_scoped()
        .short(&["no"])
        .addressable()
);
kind_object!(
    Namespace,
    Kind::new(
        "Namespace",
        &["v1"],
        "namespaces",
        "inter-pod affinity's namespace selectors"
    )
    .cluster_scoped()
);
kind_object!(
    GodelPodGroup,
    Kind::new(
        "PodGroup",
        &["scheduling.godel.kubewharf.io/v1alpha1"],
        "podgroups",
        "Godel gangs"
    )
    .addressable()
);
kind_object!(
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
kind_object!(
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
kind_object!(
    PriorityClass,
    Kind::new(
        "PriorityClass",
        &["scheduling.k8s.io/v1"],
        "priorityclasses",
        "preemption and queue order"
    )
    .cluster_scoped()
);
kind_object!(
    PodDisruptionBudget,
    Kind::new(
        "PodDisruptionBudget",
        &["policy/v1"],
        "poddisruptionbudgets",
        "preemption"
    )
);
kind_object!(
    ResourceQuota,
    Kind::new(
        "ResourceQuota",
        &["v1"],
        "resourcequotas",
        "the API server's admission of planned pods"
    )
);
kind_object!(
    LimitRange,
    Kind::new(
        "LimitRange",
        &["v1"],
        "limitranges",
        "the API server's admission of planned pods"
    )
);
kind_object!(
    HyperNode,
    Kind::new(
        "HyperNode",
        &["topology.volcano.sh/v1alpha1"],
        "hypernodes",
        "Volcano network topology"
    )
    .cluster_scoped()
);
kind_object!(
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

versioned_kind_object!(
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
        &["scheduling.k8s.io/v1alpha2"],
        "podgroups",
        "Workload API gangs"
    )
    .addressable(),
);
versioned_kind_object!(
    SchedulingWorkload,
    Kind::new(
        "Workload",
        &["scheduling.k8s.io/v1alpha1", "scheduling.k8s.io/v1alpha2"],
        "workloads",
        "Workload API gangs"
    ),
);
versioned_kind_object!(
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
versioned_kind_object!(
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
versioned_kind_object!(
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
versioned_kind_object!(
    LocalQueue,
    Kind::new(
        "LocalQueue",
        &["kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2"],
        "localqueues",
        "Kueue Topology Aware Scheduling"
    )
    .live(&["kueue.x-k8s.io/v1beta1"]),
);
