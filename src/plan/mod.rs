//! Plans built from manifests and a cluster state, used by plan, explain and lint.

pub mod explain;
