//! `kubectl dataflow completion`

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::{Cli, CommandError, Outcome};

const EXAMPLES: &str = "\
Examples:
  # Load completion into the current bash session
  source <(kubectl dataflow completion bash)";

/// Print a shell completion script
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
pub struct CompletionArgs {
    /// The shell to generate the script for
    #[arg(value_enum)]
    pub shell: Shell,
}

pub fn run(args: &CompletionArgs) -> Result<Outcome, CommandError> {
    let mut command = Cli::command();
    clap_complete::generate(
        args.shell,
        &mut command,
        "kubectl-dataflow",
        &mut std::io::stdout(),
    );
    Ok(Outcome::Clean)
}
