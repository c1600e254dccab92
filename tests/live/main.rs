//! The binary and the live-cluster library against the small API server of
//! tests/support/apiserver.rs on 127.0.0.1: snapshots, plans and what-ifs of a live cluster,
//! and topology-aware gangs planned live as from their recorded state.

#[path = "../support/mod.rs"]
pub mod support;

mod cluster;
mod topology;
