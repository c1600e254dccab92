//! `kubectl dataflow launch`

use clap::Args;

use super::{CommandError, GlobalArgs, Outcome};

/// Create an operation with its computed affinity and follow it
#[derive(Debug, Args)]
pub struct LaunchArgs {}

pub fn run(_global: &GlobalArgs, _args: &LaunchArgs) -> Result<Outcome, CommandError> {
    Err(CommandError::NotImplemented("launch"))
}
