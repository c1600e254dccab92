//! `kubectl dataflow launch`

use clap::Args;

use super::common::DryRun;
use super::{CommandError, GlobalArgs, InputArgs, Outcome};
use crate::completion::OBJECT_VALUE_NAME;

const EXAMPLES: &str = "\
Examples:
  # Create an operation with the affinity it inherits, after a diff and a confirmation
  kubectl dataflow launch -f testdata/flows/three-step.yaml DataProcess/preprocess-imagenet

  # Follow it until it is Complete or Failed, then tell where it ran and whether the plan was right
  kubectl dataflow launch -f op.yaml --wait

  # Only show what would be created
  kubectl dataflow launch -f op.yaml --dry-run=client";

/// Create an operation with its computed affinity and follow it
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
pub struct LaunchArgs {
    /// Which operation of the -f inputs to create (optional when they hold exactly one)
    #[arg(value_name = OBJECT_VALUE_NAME)]
    pub target: Option<String>,
    #[command(flatten)]
    pub input: InputArgs,
    /// Create without asking for confirmation (required without a terminal)
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Only show the object (client) or have the API server validate it (server)
    #[arg(long, value_enum, value_name = "MODE", default_value = "none")]
    pub dry_run: DryRun,
    /// Wait until the operation is Complete or Failed and report the node it ran on
    #[arg(long)]
    pub wait: bool,
}

pub fn run(_global: &GlobalArgs, _args: &LaunchArgs) -> Result<Outcome, CommandError> {
    Err(CommandError::NotImplemented("launch"))
}
