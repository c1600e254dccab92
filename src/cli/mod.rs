//! Command-line definitions: one file per command, wiring only. The work lives in the library
//! modules; each command turns parsed flags into library calls and a rendered report.

mod common;
mod complete;
mod completion;
mod explain;
mod hints;
mod launch;
mod lint;
mod patch;
mod plan;
mod progress;
mod snapshot;
mod version;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

pub use common::{CommandError, GlobalArgs, InputArgs, Outcome};

const ABOUT: &str =
    "Preview where Fluid DataFlow operations and gang-scheduled pods land, before anything runs";

const LONG_ABOUT: &str = "\
kubectl-dataflow makes Kubernetes placement visible before anything runs.

It reads manifests (-f) and a cluster state (--state FILE recorded with
`kubectl get -o json`, or the live cluster of your kubeconfig) and reproduces
what the schedulers would do: the Kubernetes v1.34 default profile, Fluid's
DataFlow affinity inheritance, Godel job-level affinity and Volcano
task-topology.";

/// The widest help line, examples included (a test holds every command to it).
pub const HELP_COLUMNS: usize = 80;

const EXAMPLES: &str = "\
Examples:
  # Where does each step of this DataFlow run, and what does it inherit?
  kubectl dataflow plan -f testdata/flows/three-step.yaml \\
      --state testdata/clusters/three-zone.yaml

  # Check manifests in CI, with file:line:column
  kubectl dataflow lint -f manifests/ -R -o github

  # Why would this pod land on that node, and not the others?
  kubectl dataflow explain-placement -f pod.yaml --state cluster.json";

#[derive(Debug, Parser)]
#[command(
    name = "kubectl-dataflow",
    bin_name = "kubectl dataflow",
    version,
    about = ABOUT,
    long_about = LONG_ABOUT,
    after_help = EXAMPLES,
    propagate_version = true,
    arg_required_else_help = true,
    // Help reads the same on every terminal: kubectl's users keep 80 columns.
    max_term_width = HELP_COLUMNS
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    Lint(lint::LintArgs),
    Plan(plan::PlanArgs),
    ExplainPlacement(explain::ExplainArgs),
    Snapshot(snapshot::SnapshotArgs),
    Patch(patch::PatchArgs),
    Launch(launch::LaunchArgs),
    Completion(completion::CompletionArgs),
    Version(version::VersionArgs),
}

/// Parse arguments, run the command, and map the outcome to kubectl-style exit codes:
/// 0 clean, 1 findings (lint errors, unschedulable plan, diff found), 2 usage or runtime error.
pub fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|first| first == complete::NAME) {
        return exit(complete::run(&args[2..]));
    }
    let cli = Cli::parse_from(args);
    if let Err(error) = cli.global.validate() {
        return exit(Err(error));
    }
    exit(match &cli.command {
        Command::Lint(args) => lint::run(&cli.global, args),
        Command::Plan(args) => plan::run(&cli.global, args),
        Command::ExplainPlacement(args) => explain::run(&cli.global, args),
        Command::Snapshot(args) => snapshot::run(&cli.global, args),
        Command::Patch(args) => patch::run(&cli.global, args),
        Command::Launch(args) => launch::run(&cli.global, args),
        Command::Completion(args) => completion::run(args),
        Command::Version(args) => version::run(&cli.global, args),
    })
}

fn exit(result: Result<Outcome, CommandError>) -> ExitCode {
    match result {
        Ok(Outcome::Clean) => ExitCode::SUCCESS,
        Ok(Outcome::Findings) => ExitCode::from(1),
        Err(error) => {
            common::print_error(&error);
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use clap::{CommandFactory, Parser};

    use super::Cli;

    /// Every command's help has examples, and every example is a command line the parser accepts.
    #[test]
    fn every_help_example_parses() {
        let commands = [
            "lint",
            "plan",
            "explain-placement",
            "snapshot",
            "patch",
            "launch",
            "completion",
            "version",
        ];
        // The raw texts: help output wraps long lines at the terminal's width.
        let cli = Cli::command();
        for command in commands {
            let help = cli
                .find_subcommand(command)
                .and_then(|sub| sub.get_after_help())
                .map(|text| text.to_string())
                .unwrap_or_default();
            let (_, examples) = help
                .split_once("Examples:\n")
                .unwrap_or_else(|| panic!("{command} --help has no examples:\n{help}"));
            // Continuation lines (ending in `\`) belong to the line before.
            let joined = examples.replace("\\\n", " ");
            let lines: Vec<&str> = joined
                .lines()
                .map(str::trim)
                .filter(|line| line.starts_with("kubectl dataflow "))
                .collect();
            assert!(
                lines.iter().any(|line| line.contains(command)),
                "{command}: {examples}"
            );
            for line in lines {
                // Shell redirections and pipes are not the tool's arguments.
                let line = line.split([';', '>', '|']).next().unwrap();
                let words = line
                    .split_whitespace()
                    .skip(2)
                    .map(|w| w.trim_matches('"').trim_matches('\''));
                let parsed = Cli::try_parse_from(std::iter::once("kubectl-dataflow").chain(words));
                if let Err(error) = parsed {
                    panic!("{command}: `{line}`: {error}");
                }
            }
        }
    }
}
