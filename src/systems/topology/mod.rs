//! Network-topology-aware gang placement.

pub mod kueue;
