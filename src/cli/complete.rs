//! `kubectl dataflow __complete WORDS...`: hidden. kubectl's own completion runs
//! `kubectl_complete-dataflow` (completions/), which hands the words over to this command.
//!
//! It is dispatched before clap parses anything: the words are raw command-line fragments,
//! and clap would read `-n` or `--help` among them as flags of `__complete` itself.

use std::ffi::OsString;

use clap::CommandFactory;

use super::common::print_stdout;
use super::{Cli, CommandError, Outcome};
use crate::completion::{self, Environment};

/// The first argument that selects this command.
pub const NAME: &str = "__complete";

pub fn run(words: &[OsString]) -> Result<Outcome, CommandError> {
    let words: Vec<String> = words
        .iter()
        .map(|word| word.to_string_lossy().into_owned())
        .collect();
    let completion = completion::complete(&Cli::command(), &words, &Environment::from_process());
    print_stdout(completion.to_string())?;
    Ok(Outcome::Clean)
}
