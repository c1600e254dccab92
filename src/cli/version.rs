//! `kubectl dataflow version`

use clap::Args;

use super::common::ReportFormat;
use super::{CommandError, Outcome};

/// The Kubernetes release whose scheduler semantics the engine reproduces.
pub const KUBERNETES_SEMANTICS: &str = "v1.34";

/// Print the version, the git commit and the Kubernetes semantics simulated
#[derive(Debug, Args)]
pub struct VersionArgs {
    /// Output format (table prints plain text)
    #[arg(short = 'o', long = "output", value_enum, default_value = "table")]
    pub output: ReportFormat,
}

pub fn run(args: &VersionArgs) -> Result<Outcome, CommandError> {
    let version = env!("CARGO_PKG_VERSION");
    let commit = option_env!("KUBECTL_DATAFLOW_GIT_COMMIT").unwrap_or("unknown");
    match args.output {
        ReportFormat::Json | ReportFormat::Yaml => {
            let value = serde_json::json!({
                "version": version,
                "gitCommit": commit,
                "kubernetesSemantics": KUBERNETES_SEMANTICS,
            });
            println!(
                "{}",
                serde_json::to_string_pretty(&value).expect("plain JSON")
            );
        }
        ReportFormat::Table | ReportFormat::Wide => {
            println!(
                "kubectl-dataflow {version} (commit {commit}), Kubernetes {KUBERNETES_SEMANTICS} scheduler semantics"
            );
        }
    }
    Ok(Outcome::Clean)
}
