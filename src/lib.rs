//! kubectl-dataflow: preview Kubernetes placement of Fluid DataFlows and gangs before they run.
//!
//! Data flows one way: `manifest` (inputs) -> `model` -> `sched` (engine) -> `plan` -> `report`.

pub mod apply;
pub mod cli;
pub mod cluster;
pub mod completion;
pub mod lint;
pub mod manifest;
pub mod model;
mod parallel;
pub mod plan;
pub mod report;
pub mod sched;
pub mod synth;
pub mod systems;
pub mod text;
