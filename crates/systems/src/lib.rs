//! The schedulers and controllers beside kube-scheduler, each in its own folder over the one
//! engine: Fluid (DataFlow inheritance, webhook cache locality), the gangs (Godel, Volcano,
//! kube-batch, coscheduling, the Workload API, Kueue), network topology (Volcano HyperNodes,
//! Kueue TAS, the Workload API's constraints) and the min-cost-flow solver.
//!
//! Above the engine; it must not import the planner, lint, the reports or the network.

pub mod flow;
pub mod fluid;
pub mod gang;
pub mod kueue;
pub mod operators;
pub mod topology;
pub mod volcano_conf;
