//! `kubectl dataflow plan`

use clap::Args;

use super::common::ReportFormat;
use super::{CommandError, GlobalArgs, InputArgs, Outcome};

const EXAMPLES: &str = "\
Examples:
  # Preview a DataFlow against a recorded cluster
  kubectl dataflow plan -f testdata/flows/three-step.yaml --state testdata/clusters/three-zone.yaml

  # The same as JSON for scripts
  kubectl dataflow plan -f flow.yaml --state cluster.json -o json";

/// Preview where every operation of a DataFlow and every pod of a gang lands
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
pub struct PlanArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format
    #[arg(short = 'o', long = "output", value_enum, default_value = "table")]
    pub output: ReportFormat,
}

pub fn run(_global: &GlobalArgs, _args: &PlanArgs) -> Result<Outcome, CommandError> {
    Err(CommandError::NotImplemented("plan"))
}
