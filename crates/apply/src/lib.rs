//! Writing changes: manifest files on disk (atomic, only changed documents) and live objects
//! (server-side apply, dry run first, through `df-live`). The diff/confirm rules are shared by
//! `patch` and `launch`.
//!
//! Above the planner (what to write) and `df-live` (where); it must not import lint, the
//! reports or clap.

pub mod change;
pub mod desired;
pub mod manifest;
pub mod splice;
