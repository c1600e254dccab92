//! Typed objects: what the tool understands of each manifest or state item.

pub mod core;
pub mod fluid;
pub mod gang;
pub mod hypernode;
pub mod kinds;
pub mod kueue;
pub mod policy;
pub mod quantity;
pub mod quota;
pub mod registry;
pub mod resources;
pub(crate) mod sorted_map;
pub mod text;
pub mod workload;

pub use self::core::*;
pub use fluid::{FluidOp, OpKind};
pub use gang::{GodelPodGroup, PodGroup, SchedulingWorkload, VolcanoJob, VolcanoPodGroup};

pub use hypernode::{ConfigMap, HyperNode};
pub use kinds::{DecodeError, Kind, KindObject, TypeMeta};
pub use policy::{PodDisruptionBudget, PriorityClass};
pub use quantity::Quantity;
pub use quota::{LimitRange, ResourceQuota};
pub use registry::{Object, ObjectLists};
pub use workload::{
    JOB_NAME_LABELS, JobCounts, POD_INDEX_LABEL, STATEFULSET_POD_NAME_LABEL, Workload,
};
