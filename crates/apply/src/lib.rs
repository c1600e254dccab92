//! Writing changes: manifest files on disk (atomic, only changed documents) and live objects
//! (server-side apply, dry run first). The diff/confirm rules are shared by `patch` and
//! `launch`.

pub mod change;
pub mod desired;
pub mod manifest;
pub mod splice;
