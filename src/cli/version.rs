//! `kubectl dataflow version`

use clap::Args;
use serde::Serialize;

use super::common::GlobalArgs;
use super::common::print_stdout;
use super::common::{ReportFormat, ReportFormatParser};
use super::{CommandError, Outcome};
use df_engine::versions::{DIFFERENCES, NEWEST_MINOR, OLDEST_MINOR};

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
    /// The release simulated (`--kubernetes-version`, else the default).
    kubernetes_semantics: String,
    /// The releases the engine reproduces.
    supported: String,
    /// What changes between them, by the release each change starts in.
    differences: Vec<Difference>,
}

#[derive(Debug, Serialize)]
struct Difference {
    since: String,
    change: &'static str,
}

pub fn run(global: &GlobalArgs, args: &VersionArgs) -> Result<Outcome, CommandError> {
    let simulated = global.kubernetes_version.unwrap_or_default();
    let info = VersionInfo {
        version: env!("CARGO_PKG_VERSION"),
        git_commit: env!("KUBECTL_DATAFLOW_GIT_COMMIT"),
        kubernetes_semantics: format!("v{simulated}"),
        supported: format!("1.{OLDEST_MINOR} to 1.{NEWEST_MINOR}"),
        differences: DIFFERENCES
            .iter()
            .map(|(since, change)| Difference {
                since: format!("1.{since}"),
                change,
            })
            .collect(),
    };
    let text = match &args.output {
        ReportFormat::Json => df_report::to_json(&info),
        ReportFormat::Yaml => df_report::to_yaml(&info),
        ReportFormat::Table => format!(
            "kubectl-dataflow {} (commit {}), Kubernetes {} scheduler semantics\n",
            info.version, info.git_commit, info.kubernetes_semantics
        ),
        ReportFormat::Wide => {
            let mut text = format!(
                "kubectl-dataflow {} (commit {}), Kubernetes {} scheduler semantics \
                 (--kubernetes-version: {})\n",
                info.version, info.git_commit, info.kubernetes_semantics, info.supported
            );
            for d in &info.differences {
                text.push_str(&format!("  since {}: {}\n", d.since, d.change));
            }
            text
        }
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
