//! `kubectl dataflow patch`

use clap::Args;

use super::{CommandError, GlobalArgs, Outcome};

/// Write the computed affinity into manifests or live objects, after a diff
#[derive(Debug, Args)]
pub struct PatchArgs {}

pub fn run(_global: &GlobalArgs, _args: &PatchArgs) -> Result<Outcome, CommandError> {
    Err(CommandError::NotImplemented("patch"))
}
