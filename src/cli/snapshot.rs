//! `kubectl dataflow snapshot`

use clap::Args;

use super::{CommandError, GlobalArgs, Outcome};

/// Record the cluster state placement depends on, for offline plans and bug reports
#[derive(Debug, Args)]
pub struct SnapshotArgs {}

pub fn run(_global: &GlobalArgs, _args: &SnapshotArgs) -> Result<Outcome, CommandError> {
    Err(CommandError::NotImplemented("snapshot"))
}
