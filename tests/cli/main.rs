//! The binary run on the bundled testdata and on files written at test time, one module per
//! command or concern, and the library checks of the same files (testdata, lint fixtures,
//! explain agreeing with plan). One test binary: each would otherwise link the whole workspace
//! again.

#[path = "../support/mod.rs"]
pub mod support;

mod apply;
mod conventions;
mod coscheduling;
mod dist;
mod docs;
mod drift;
mod explain;
mod invariants;
mod json_contract;
mod kueue;
mod kueue_tables;
mod lint;
mod operators;
mod pending;
mod plan;
mod quota;
mod review;
mod testdata;
mod volcano;
mod workload_topology;
