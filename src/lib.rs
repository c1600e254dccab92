//! kubectl-dataflow: preview Kubernetes placement of Fluid DataFlows and gangs before they run.
//!
//! Data flows one way: `manifest` (inputs) -> `model` -> `sched` (engine) -> `plan` -> `report`.

pub mod manifest;
pub mod model;
pub mod cluster;
pub mod cli;
pub mod lint;
pub mod report;
