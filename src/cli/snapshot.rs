//! `kubectl dataflow snapshot`

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, ValueEnum};

use super::common::print_stdout;
use super::{CommandError, GlobalArgs, Outcome};
use crate::apply::file::write_atomic;
use crate::cluster::snapshot::{self, Format};

const EXAMPLES: &str = "\
Examples:
  # Record the current cluster for offline plans
  kubectl dataflow snapshot -o json --output-file cluster.json
  kubectl dataflow plan -f flow.yaml --state cluster.json

  # A snapshot safe to attach to a bug report
  kubectl dataflow snapshot --redact > cluster.yaml

  # Redact a state recorded earlier
  kubectl dataflow snapshot --state dump.json --redact -o json";

/// Record the cluster state placement depends on, for offline plans and bug reports
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
pub struct SnapshotArgs {
    /// Output format
    #[arg(short = 'o', long = "output", value_enum, default_value = "yaml")]
    pub output: SnapshotFormat,
    /// Write to this file (atomically) instead of stdout
    #[arg(long, value_name = "FILE")]
    pub output_file: Option<PathBuf>,
    /// Replace names and label values with stable hashes, for sharing
    #[arg(long)]
    pub redact: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SnapshotFormat {
    Yaml,
    Json,
}

pub fn run(global: &GlobalArgs, args: &SnapshotArgs) -> Result<Outcome, CommandError> {
    let state = global.snapshot_state()?;
    let format = match args.output {
        SnapshotFormat::Yaml => Format::Yaml,
        SnapshotFormat::Json => Format::Json,
    };
    let text = snapshot::render(&state, format, args.redact).map_err(anyhow::Error::from)?;
    match &args.output_file {
        Some(path) => write_atomic(path, text.as_bytes())
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => print_stdout(&text)?,
    }
    Ok(Outcome::Clean)
}
