//! Hostile input and hostile conditions, end to end, and the property tests of the loaders and
//! the patch writer: attacks generated at test time and run through the real binary (under a
//! memory limit), writes that must never damage a file, and generated manifests.
//!
//! Proptest keeps the seeds of past failures beside this directory, not in it: with a
//! `main.rs` here, its `FileFailurePersistence::SourceParallel` maps `tests/hostile/NAME.rs` to
//! `tests/proptest-regressions/NAME.txt`, and replays those seeds before any new case.

#[path = "../support/mod.rs"]
pub mod support;

mod fuzz;
mod input;
mod special_files;
mod writes;
