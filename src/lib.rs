//! kubectl-dataflow: preview Kubernetes placement of Fluid DataFlows and gangs before they run.
//!
//! Data flows one way: `manifest` (inputs) -> `model` -> `sched` (engine) -> `plan` -> `report`.

pub mod cli;
pub mod cluster;
pub mod manifest;
pub mod model;
pub mod sched;
pub mod systems;
