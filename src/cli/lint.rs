//! `kubectl dataflow lint`

use std::io::IsTerminal;

use clap::{Args, ValueEnum};

use super::common::{SelectorArgs, print_stdout};
use super::{CommandError, GlobalArgs, InputArgs, Outcome};
use df_lint::{LintOptions, Severity, rules};

const EXAMPLES: &str = "\
Examples:
  # Lint every manifest below a directory
  kubectl dataflow lint -f deploy/ -R

  # Annotate a pull request from GitHub Actions
  kubectl dataflow lint -f deploy/ -R -o github

  # Check satisfiability against a recorded cluster, for code scanning
  kubectl dataflow lint -f flow.yaml --state cluster.json -o sarif > lint.sarif

  # What does a rule check?
  kubectl dataflow lint --explain DF101

Suppress a finding with `# kubectl-dataflow: ignore DF101` on its line or on
the object's first line. Exit status: 0 clean, 1 errors (or warnings with
--strict), 2 the tool could not run.";

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LintFormat {
    /// file:line:col with the source line and a caret
    Text,
    /// The JSON contract (diagnostics and summary)
    Json,
    /// SARIF 2.1.0 for code scanning
    Sarif,
    /// GitHub Actions workflow commands
    Github,
    /// A pull-request comment: verdict and a row per finding
    Markdown,
}

/// Validate DataFlow / PodGroup / Job / Pod manifests, with exact file:line:column
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
pub struct LintArgs {
    /// Manifest files, as with -f (the form pre-commit and xargs pass them in)
    #[arg(value_name = "FILE", value_hint = clap::ValueHint::FilePath)]
    pub files: Vec<String>,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub select: SelectorArgs,
    /// Output format
    #[arg(short = 'o', long = "output", value_enum, default_value = "text")]
    pub output: LintFormat,
    /// Fail (exit 1) on warnings too
    #[arg(long)]
    pub strict: bool,
    /// Rule codes or prefixes to turn off (DF113, DF3), comma separated or repeated
    #[arg(long, value_name = "CODES", value_delimiter = ',')]
    pub disable: Vec<String>,
    /// Rule codes or prefixes to turn on (including opt-in rules); wins over --disable
    #[arg(long, value_name = "CODES", value_delimiter = ',')]
    pub enable: Vec<String>,
    /// Print the documentation of one rule and exit
    #[arg(long, value_name = "CODE")]
    pub explain: Option<String>,
}

pub fn run(global: &GlobalArgs, args: &LintArgs) -> Result<Outcome, CommandError> {
    if let Some(code) = &args.explain {
        let rule = rules::find(code)
            .ok_or_else(|| anyhow::Error::new(df_lint::UnknownCode(code.clone())))?;
        print_stdout(df_report::lint::explain(rule))?;
        return Ok(Outcome::Clean);
    }
    let mut input = args.input.clone();
    input.filenames.extend(args.files.iter().cloned());
    if input.filenames.is_empty() {
        return Err(anyhow::anyhow!(
            "no input: give manifests with -f PATH (a file, a directory or - for stdin)"
        )
        .into());
    }
    let selector = args.select.parse()?;
    let options = LintOptions {
        disable: args.disable.clone(),
        enable: args.enable.clone(),
    };
    let enabled = options.enabled_codes().map_err(anyhow::Error::new)?;
    let set = input.load()?;
    let state = global.recorded_state()?;
    if state.is_none() {
        let skipped: Vec<&str> = rules::needing_state()
            .filter(|rule| enabled.contains(rule.code))
            .map(|rule| rule.code)
            .collect();
        if !skipped.is_empty() {
            df_report::stderr_line(&format!(
                "warning: no --state given: skipped the checks against a cluster ({}); pass --state FILE to run them",
                skipped.join(", ")
            ));
        }
    }
    let mut result = df_lint::lint(&set, state.as_deref(), &options).map_err(anyhow::Error::new)?;
    result.retain_selected(&set, &selector);
    let color = global.color() && std::io::stdout().is_terminal();
    let rendered = match args.output {
        LintFormat::Text => df_report::lint::text(&result, &set.sources, color),
        LintFormat::Json => df_report::lint::json(&result),
        LintFormat::Sarif => df_report::lint::sarif(&result),
        LintFormat::Github => df_report::lint::github(&result),
        LintFormat::Markdown => df_report::markdown::lint(&result),
    };
    print_stdout(&rendered)?;
    let failing =
        result.count(Severity::Error) > 0 || (args.strict && result.count(Severity::Warning) > 0);
    Ok(if failing {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}
