//! `kubectl dataflow lint`

use clap::Args;

use super::{CommandError, GlobalArgs, InputArgs, Outcome};

const EXAMPLES: &str = "\
Examples:
  # Lint every manifest below a directory
  kubectl dataflow lint -f deploy/ -R

  # Annotate a pull request from GitHub Actions
  kubectl dataflow lint -f deploy/ -R -o github";

/// Validate DataFlow / PodGroup / Job / Pod manifests, with exact file:line:column
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
pub struct LintArgs {
    #[command(flatten)]
    pub input: InputArgs,
}

pub fn run(_global: &GlobalArgs, _args: &LintArgs) -> Result<Outcome, CommandError> {
    Err(CommandError::NotImplemented("lint"))
}
