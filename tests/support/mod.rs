//! What the test binaries share: the runner of the built binary and the small API server.
//! Each binary declares it once, as `pub mod support`: every binary uses part of it, and a
//! public module of the test crate is not reported as dead where that binary leaves a part
//! unused (no `allow(dead_code)` needed).

pub mod apiserver;
pub mod cli;
pub mod draws;
