//! `kubectl dataflow version`

use clap::Args;
use serde::Serialize;

use super::common::print_stdout;
use super::common::{ReportFormat, ReportFormatParser};
use super::{CommandError, Outcome};

/// The Kubernetes release whose scheduler semantics the engine reproduces.
pub const KUBERNETES_SEMANTICS: &str = "v1.34";

const EXAMPLES: &str = "\
Examples:
  # Which build is this, and which Kubernetes release does it simulate?
  kubectl dataflow version

  # The same as JSON, for bug reports and scripts
  kubectl dataflow version -o json";

/// Print the version, the git commit and the Kubernetes semantics simulated
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
pub struct VersionArgs {
    /// Output format (table prints plain text)
    #[arg(
        short = 'o',
        long = "output",
        value_parser = ReportFormatParser,
        default_value = "table",
        value_name = "FORMAT"
    )]
    pub output: ReportFormat,
}

/// The `-o json|yaml` contract.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct VersionInfo {
    version: &'static str,
    /// `git rev-parse --short HEAD` at build time (build.rs), or "unknown".
    git_commit: &'static str,
    kubernetes_semantics: &'static str,
}

pub fn run(args: &VersionArgs) -> Result<Outcome, CommandError> {
    let info = VersionInfo {
        version: env!("CARGO_PKG_VERSION"),
        git_commit: env!("KUBECTL_DATAFLOW_GIT_COMMIT"),
        kubernetes_semantics: KUBERNETES_SEMANTICS,
    };
    let text = match &args.output {
        ReportFormat::Json => df_report::to_json(&info),
        ReportFormat::Yaml => df_report::to_yaml(&info),
        ReportFormat::Table | ReportFormat::Wide => format!(
            "kubectl-dataflow {} (commit {}), Kubernetes {} scheduler semantics\n",
            info.version, info.git_commit, info.kubernetes_semantics
        ),
        ReportFormat::Name => {
            return Err(anyhow::anyhow!(
                "-o name does not apply to version: use table, json or yaml"
            )
            .into());
        }
        templated => templated
            .templated(&info, |info| vec![info], true)
            .expect("the other formats are matched above")?,
    };
    print_stdout(&text)?;
    Ok(Outcome::Clean)
}
