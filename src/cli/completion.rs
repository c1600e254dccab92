//! `kubectl dataflow completion`

use clap::{Args, CommandFactory};
use clap_complete::Shell;

use super::common::print_stdout;
use super::{Cli, CommandError, Outcome};

/// The name the scripts complete: shells complete the executable, and kubectl's own completion
/// reaches plugins only through `kubectl_complete-dataflow`.
const BIN_NAME: &str = "kubectl-dataflow";

const LONG_ABOUT: &str = "\
Print a shell completion script for the kubectl-dataflow executable.

The scripts complete `kubectl-dataflow ...` typed as one word. For `kubectl dataflow ...`,
kubectl (1.26 or later) completes plugins itself by running `kubectl_complete-dataflow` from
PATH: put completions/kubectl_complete-dataflow (in the release archive; krew's caveats show
where it lands) on PATH next to kubectl-dataflow, and keep kubectl's own completion loaded
(`source <(kubectl completion bash)`). That route also completes contexts and namespaces from
the kubeconfig and KIND/NAME from the -f files.";

const EXAMPLES: &str = "\
Examples:
  # Complete `kubectl dataflow ...` through kubectl itself (kubectl 1.26+)
  install -m 755 completions/kubectl_complete-dataflow ~/.local/bin/

  # Load completion of kubectl-dataflow into the current bash session
  source <(kubectl dataflow completion bash)

  # Install it for every bash session
  kubectl dataflow completion bash \\
      > ~/.local/share/bash-completion/completions/kubectl-dataflow

  # zsh: a file named _kubectl-dataflow in a directory of $fpath
  kubectl dataflow completion zsh > \"${fpath[1]}/_kubectl-dataflow\"

  # fish
  kubectl dataflow completion fish \\
      > ~/.config/fish/completions/kubectl-dataflow.fish

  # PowerShell: load it from your profile
  kubectl dataflow completion powershell >> $PROFILE";

/// Print a shell completion script
#[derive(Debug, Args)]
#[command(long_about = LONG_ABOUT, after_help = EXAMPLES)]
pub struct CompletionArgs {
    /// The shell to generate the script for
    #[arg(value_enum)]
    pub shell: Shell,
}

/// The script for `shell`, as checked in under completions/.
fn script(shell: Shell) -> Vec<u8> {
    // Subcommand names in the script derive from the top-level bin name, which the parser sets
    // to `kubectl dataflow` for help texts; the script must use the executable's name.
    let mut command = Cli::command().bin_name(BIN_NAME);
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, BIN_NAME, &mut script);
    if shell == Shell::Bash {
        // clap_complete's bash arms spell a hyphenated bin name differently from the state
        // they are matched against (clap-rs/clap#6421), so no subcommand's flags would ever
        // complete. Respell the arms the way the dispatch loop does; a no-op once fixed.
        let text = String::from_utf8_lossy(&script);
        let arms = format!("{}__subcmd__", BIN_NAME.replace('-', "__subcmd__"));
        let state = format!("{}__subcmd__", BIN_NAME.replace('-', "__"));
        return text.replace(&arms, &state).into_bytes();
    }
    script
}

pub fn run(args: &CompletionArgs) -> Result<Outcome, CommandError> {
    print_stdout(script(args.shell))?;
    Ok(Outcome::Clean)
}
