//! `kubectl dataflow patch`

use clap::Args;

use super::common::DryRun;
use super::{CommandError, GlobalArgs, InputArgs, Outcome};
use crate::completion::OBJECT_VALUE_NAME;

const EXAMPLES: &str = "\
Examples:
  # Show the affinity each operation of a flow inherits, as a diff of the file
  kubectl dataflow patch -f testdata/flows/three-step.yaml --state testdata/clusters/three-zone.yaml --dry-run=client

  # Write it into the file (only the changed documents are rewritten)
  kubectl dataflow patch -f flow.yaml --state cluster.json --write

  # Patch a live operation that has not started yet, without asking
  kubectl dataflow patch dataload/load-imagenet -n data --yes

  # Patch a pod held by a scheduling gate, then release the gate
  kubectl dataflow patch pod/web-0 -n shop --ungate example.com/placement";

/// Write the computed affinity into manifests or live objects, after a diff
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
pub struct PatchArgs {
    /// What to patch: KIND/NAME from the -f inputs, or a live operation or gated pod
    /// (optional when the inputs hold exactly one)
    #[arg(value_name = OBJECT_VALUE_NAME)]
    pub target: Option<String>,
    #[command(flatten)]
    pub input: InputArgs,
    /// Rewrite the -f files in place instead of patching live objects
    #[arg(long)]
    pub write: bool,
    /// Apply without asking for confirmation (required without a terminal)
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Only show the change (client) or have the API server validate it (server)
    #[arg(long, value_enum, value_name = "MODE", default_value = "none")]
    pub dry_run: DryRun,
    /// Remove this scheduling gate from the pod once it is patched
    #[arg(long, value_name = "GATE")]
    pub ungate: Option<String>,
}

pub fn run(_global: &GlobalArgs, _args: &PatchArgs) -> Result<Outcome, CommandError> {
    Err(CommandError::NotImplemented("patch"))
}
