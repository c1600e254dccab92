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

use crate::core::{ObjectMeta, null_as_default};

/// `apiVersion` and `kind`, read first to decide how to decode the rest.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TypeMeta {
    #[serde(deserialize_with = "null_as_default")]
    pub api_version: String,
    #[serde(deserialize_with = "null_as_default")]
    pub kind: String,
}

impl TypeMeta {
    pub fn group(&self) -> &str {
        self.api_version
            .rsplit_once('/')
            .map_or("", |(group, _)| group)
    }
}

/// Why an object could not be decoded; `path` names the field (`spec.runAfter.name`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{message}")]
pub struct DecodeError {
    pub path: String,
    pub message: String,
}

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
    /// The `live` versions are alternatives, preferred first: only the first one the cluster
    /// serves is listed (each served version returns the same objects).
    pub live_first_served: bool,
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
            live_first_served: false,
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

    /// Listed live in the first of these versions the cluster serves.
    pub const fn live_first_served(mut self, api_versions: &'static [&'static str]) -> Kind {
        self.live = api_versions;
        self.live_first_served = true;
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
        $crate::kind_object!($ty, $kind, metadata);
    };
    // `$meta`: where the type keeps its `ObjectMeta` (inside a richer metadata of its own).
    ($ty:ty, $kind:expr, $($meta:ident).+) => {
        impl $crate::kinds::KindObject for $ty {
            const KINDS: &'static [$crate::kinds::Kind] = &[$kind];

            fn decode<'de, D: ::serde::Deserializer<'de>>(
                _: &$crate::TypeMeta,
                read: $crate::kinds::Reader<D>,
            ) -> Result<Self, $crate::DecodeError> {
                read.get()
            }

            fn metadata(&self) -> &$crate::ObjectMeta {
                &self.$($meta).+
            }

            fn metadata_mut(&mut self) -> &mut $crate::ObjectMeta {
                &mut self.$($meta).+
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
            VolcanoQueue($crate::VolcanoQueue) in volcano_queues;
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
            Cohort($crate::kueue::Cohort) in kueue.cohorts;
            WorkloadPriorityClass($crate::kueue::WorkloadPriorityClass) in kueue.priority_classes;
            KueueWorkload($crate::kueue::KueueWorkload) in kueue.workloads;
            HyperNode($crate::HyperNode) in hyper_nodes;
            ConfigMap($crate::ConfigMap) in config_maps;
            Service($crate::Service) in services;
            PersistentVolume($crate::storage::PersistentVolume) in storage.volumes;
            PersistentVolumeClaim($crate::storage::PersistentVolumeClaim) in storage.claims;
            StorageClass($crate::storage::StorageClass) in storage.classes;
            CSINode($crate::storage::CSINode) in storage.csi_nodes;
            CSIDriver($crate::storage::CSIDriver) in storage.csi_drivers;
            CSIStorageCapacity($crate::storage::CSIStorageCapacity) in storage.capacities;
            VolumeAttachment($crate::storage::VolumeAttachment) in storage.attachments;
            DeviceClass($crate::DeviceClass) in dra.device_classes;
            ResourceSlice($crate::ResourceSlice) in dra.resource_slices;
            ResourceClaim($crate::ResourceClaim) in dra.resource_claims;
            ResourceClaimTemplate($crate::ResourceClaimTemplate) in dra.resource_claim_templates;
            Workload(Box<$crate::Workload>) in workloads;
            Operator(Box<$crate::operators::OperatorObject>) in operators;
        }
    };
}
