//! The model: typed Kubernetes objects (the slim subset placement reads), quantities and pod
//! requests, and the one registry of object kinds ([`kinds`], [`registry`]): how the API names
//! each kind and how it is decoded, from which every per-kind list of the other crates derives.
//!
//! The bottom layer: it imports no other crate of the workspace, does no I/O and knows no
//! scheduler.

pub mod core;
pub mod dra;
pub mod fluid;
pub mod gang;
pub mod hypernode;
pub mod kinds;
pub mod kueue;
pub mod operators;
pub mod policy;
pub mod quantity;
pub mod quota;
pub mod registry;
pub mod resources;
pub mod service;
pub(crate) mod sorted_map;
pub mod storage;
pub mod text;
pub mod workload;

pub use self::core::*;
pub use dra::{DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceSlice};
pub use fluid::{FluidOp, OpKind};
pub use gang::{
    GodelPodGroup, PodGroup, SchedulingWorkload, VolcanoJob, VolcanoPodGroup, VolcanoQueue,
};

pub use hypernode::{ConfigMap, HyperNode};
pub use kinds::{DecodeError, Kind, KindObject, TypeMeta};
pub use policy::{PodDisruptionBudget, PriorityClass};
pub use quantity::{Bytes, Quantity};
pub use quota::{LimitRange, ResourceQuota};
pub use registry::{Object, ObjectLists};
pub use service::Service;
pub use workload::{
    JOB_NAME_LABELS, JobCounts, POD_INDEX_LABEL, POD_TEMPLATE_HASH_LABEL,
    STATEFULSET_POD_NAME_LABEL, Workload,
};
