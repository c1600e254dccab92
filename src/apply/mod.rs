//! Writing changes: manifest files on disk (atomic, only changed documents) and, later, live
//! objects. The diff/confirm rules are shared by `patch` and `launch`.

pub mod file;
pub mod manifest;
