//! `kubectl dataflow explain-placement`

use clap::Args;

use super::common::ReportFormat;
use super::{CommandError, GlobalArgs, InputArgs, Outcome};

const EXAMPLES: &str = "\
Examples:
  # Why would this pod land where it lands?
  kubectl dataflow explain-placement -f testdata/pods/affinity.yaml --state testdata/clusters/three-zone.yaml

  # Everything about one node: each filter's verdict and each score's inputs
  kubectl dataflow explain-placement -f pod.yaml --state cluster.json --node worker-3";

/// Explain why a pod or operation lands on a node, and why not on the others
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
pub struct ExplainArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Output format
    #[arg(short = 'o', long = "output", value_enum, default_value = "table")]
    pub output: ReportFormat,
}

pub fn run(_global: &GlobalArgs, _args: &ExplainArgs) -> Result<Outcome, CommandError> {
    Err(CommandError::NotImplemented("explain-placement"))
}
