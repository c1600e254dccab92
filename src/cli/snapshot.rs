//! `kubectl dataflow snapshot`

use std::path::PathBuf;

use clap::{Args, ValueEnum};

use super::common::print_stdout;
use super::{CommandError, GlobalArgs, Outcome};
use df_manifest::file::write_atomic;
use df_state::recorded;
use df_state::snapshot::{self, Format, RedactKey, Redaction};

const EXAMPLES: &str = "\
Examples:
  # Record the current cluster for offline plans
  kubectl dataflow snapshot -o json --output-file cluster.json
  kubectl dataflow plan -f flow.yaml --state cluster.json

  # A snapshot for a bug report (a fixed key makes two of them comparable)
  kubectl dataflow snapshot --redact > cluster.yaml
  kubectl dataflow snapshot --redact-key $KEY > cluster.yaml

  # Redact a state recorded earlier
  kubectl dataflow snapshot --state dump.json --redact -o json";

/// Record the cluster state placement depends on, for offline plans and bug reports
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
pub struct SnapshotArgs {
    /// Output format
    #[arg(short = 'o', long = "output", value_enum, default_value = "yaml")]
    pub output: SnapshotFormat,
    /// Write to this file (atomically) instead of stdout, with its binary cache FILE.dfcache
    /// beside it (see --state-cache)
    #[arg(long, value_name = "FILE")]
    pub output_file: Option<PathBuf>,
    /// Replace names, label values and keys with keyed hashes, for sharing (what is kept:
    /// README, "Redaction guarantees")
    #[arg(long)]
    pub redact: bool,
    /// Redact with this key, 32 hex digits: the same key gives the same hashes, so two
    /// redacted snapshots compare (--redact alone draws a random key per run)
    #[arg(long, value_name = "HEX")]
    pub redact_key: Option<String>,
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
    let redaction = match (&args.redact_key, args.redact) {
        (Some(key), _) => Some(RedactKey::parse(key)),
        (None, true) => Some(RedactKey::random()),
        (None, false) => None,
    }
    .transpose()
    .map_err(anyhow::Error::from)?
    .map(|key| Redaction::new(key, &state));
    let text = snapshot::render(&state, format, redaction.as_ref()).map_err(anyhow::Error::from)?;
    match &args.output_file {
        Some(path) => {
            write_atomic(path, text.as_bytes(), None).map_err(anyhow::Error::from)?;
            recorded::write_cache(path, global.state_load_options())?;
        }
        None => print_stdout(&text)?,
    }
    Ok(Outcome::Clean)
}
