//! Kueue Topology Aware Scheduling.

pub mod tas;
