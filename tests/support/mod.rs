// Each test crate uses part of the support code; the rest would warn as dead there.
#[allow(dead_code)]
pub mod apiserver;
#[allow(dead_code)]
pub mod cli;
