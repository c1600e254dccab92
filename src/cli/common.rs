//! Flags shared by every command, and the error/outcome types commands return.

use std::path::PathBuf;

use clap::{Args, ValueEnum, ValueHint};

use df_engine::Profiles;
use df_engine::config::SchedulerConfig;
use df_engine::versions::KubeVersion;
use df_live as live;
use df_live::secrets::redact;
use df_state::{ClusterState, recorded};

/// A cluster state kept until the process exits (see [`Global::cluster_state`]).
pub type KeptState = std::mem::ManuallyDrop<ClusterState>;
use df_engine::object_selector::ObjectSelector;
use df_lint::strict;
use df_manifest::{LoadError, ManifestSet};
use df_model::text::plural;
use df_report::columns::Columns;
use df_report::jsonpath::Template;

/// kubectl's global flags, accepted by every command.
#[derive(Debug, Clone, Args)]
pub struct GlobalArgs {
    /// The namespace scope for this request
    #[arg(short = 'n', long, global = true, value_name = "NAMESPACE")]
    pub namespace: Option<String>,
    /// Look across all namespaces
    #[arg(short = 'A', long, global = true)]
    pub all_namespaces: bool,
    /// The name of the kubeconfig context to use
    #[arg(long, global = true, value_name = "CONTEXT")]
    pub context: Option<String>,
    /// Path to the kubeconfig file to use
    #[arg(long, global = true, value_name = "PATH")]
    pub kubeconfig: Option<PathBuf>,
    /// Recorded cluster state (`kubectl get nodes,pods,... -A -o json|yaml`), repeatable;
    /// without it the live cluster of the kubeconfig is read
    #[arg(long = "state", global = true, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub state: Vec<String>,
    /// Refuse a --state file larger than this many bytes (bounds memory on hostile input)
    #[arg(long, global = true, value_name = "BYTES", default_value_t = recorded::DEFAULT_MAX_STATE_BYTES)]
    pub max_state_size: u64,
    /// Keep each --state file's decoded objects in FILE.dfcache beside it: read from there
    /// while FILE is unchanged, written when missing or stale
    #[arg(long, global = true)]
    pub state_cache: bool,
    /// How long to wait for a single request to the API server (e.g. 30s, 1m)
    #[arg(long, global = true, value_name = "DURATION", default_value = "30s")]
    pub request_timeout: String,
    /// Disable colored output (also honoured: the NO_COLOR environment variable)
    #[arg(long, global = true)]
    pub no_color: bool,
    /// The Kubernetes release whose schedulers to reproduce (1.32 to 1.37); by default the
    /// live cluster's, else 1.34
    #[arg(
        long = "kubernetes-version",
        global = true,
        value_name = "MAJOR.MINOR",
        value_parser = parse_kube_version
    )]
    pub kubernetes_version: Option<KubeVersion>,
    /// Log verbosity level, as kubectl's -v
    #[arg(
        short = 'v',
        long = "v",
        global = true,
        value_name = "LEVEL",
        default_value_t = 0
    )]
    pub verbosity: u8,
}

/// Inputs given with `-f`.
#[derive(Debug, Clone, Args)]
pub struct InputArgs {
    /// Manifest file, directory (.yaml, .yml, .json) or `-` for stdin; repeatable or comma
    /// separated (a.yaml,b.yaml)
    #[arg(
        short = 'f',
        long = "filename",
        value_name = "PATH",
        value_hint = ValueHint::AnyPath,
        value_delimiter = ','
    )]
    pub filenames: Vec<String>,
    /// Process the directories given with -f recursively
    #[arg(short = 'R', long)]
    pub recursive: bool,
}

/// `--lenient`, for the commands that plan from manifests.
#[derive(Debug, Clone, Args)]
pub struct SchemaArgs {
    /// Plan input with unknown fields or values of the wrong shape anyway (as warnings); by
    /// default it is refused, since the misspelled constraint would be silently dropped
    #[arg(long)]
    pub lenient: bool,
}

/// `-l` and `--field-selector`, for the commands that choose among objects.
#[derive(Debug, Clone, Args)]
pub struct SelectorArgs {
    /// Selector (label query) to filter on, as kubectl's: key=value, key!=value,
    /// 'key in (a,b)', 'key notin (a,b)', key, !key; comma separated, all must hold
    #[arg(short = 'l', long = "selector", value_name = "SELECTOR")]
    pub selector: Option<String>,
    /// Selector (field query) to filter on: metadata.name, metadata.namespace,
    /// spec.nodeName or status.phase with =, == or !=; comma separated, all must hold
    #[arg(long = "field-selector", value_name = "SELECTOR")]
    pub field_selector: Option<String>,
}

impl SelectorArgs {
    /// The parsed selectors (a bad one fails the command with exit 2).
    pub fn parse(&self) -> Result<ObjectSelector, CommandError> {
        ObjectSelector::parse(self.selector.as_deref(), self.field_selector.as_deref())
            .map_err(|e| CommandError::Other(anyhow::Error::new(e)))
    }
}

/// `-o` for commands that print a plan or an explanation.
#[derive(Debug, Clone, PartialEq)]
pub enum ReportFormat {
    /// Tables for people
    Table,
    /// Tables with extra columns
    Wide,
    /// The JSON contract (stable field names)
    Json,
    /// The same contract as YAML
    Yaml,
    /// KIND/NAME of each planned object (plan) or the selected node (explain-placement)
    Name,
    /// A pull-request comment: verdict, table, collapsible details, Mermaid diagrams
    Markdown,
    /// One self-contained HTML page: the Markdown document, and for a plan the cluster
    Html,
    /// `jsonpath=TEMPLATE`: kubectl's JSONPath template over the JSON contract
    JsonPath(Template),
    /// `custom-columns=HEADER:PATH,...`: one row per object of the JSON contract
    CustomColumns(Columns),
}

impl ReportFormat {
    /// The two template formats over `report`'s JSON contract (`rows` picks the objects that
    /// custom-columns prints a row each for); `None` for the other formats. A path that fails
    /// on the report (an index out of range) fails the command as it fails kubectl: jsonpath
    /// with kubectl's `error executing jsonpath` (without the dump of the object that kubectl
    /// adds after it), custom-columns with the bare error.
    pub fn templated<T: serde::Serialize>(
        &self,
        report: &T,
        rows: fn(&serde_json::Value) -> Vec<&serde_json::Value>,
        headers: bool,
    ) -> Option<Result<String, CommandError>> {
        let json = || serde_json::to_value(report).expect("report types serialize to JSON");
        let failed = |message: String| CommandError::Other(anyhow::anyhow!(message));
        match self {
            ReportFormat::JsonPath(template) => Some(template.render(&json()).map_err(|e| {
                failed(format!(
                    "error executing jsonpath {:?}: Error executing template: {e}.",
                    template.source()
                ))
            })),
            ReportFormat::CustomColumns(columns) => Some(
                columns
                    .render(&rows(&json()), headers)
                    .map_err(|e| failed(e.to_string())),
            ),
            _ => None,
        }
    }
}

/// Parses `-o` (clap's `ValueEnum` cannot carry the template of `jsonpath=`).
#[derive(Debug, Clone, Copy)]
pub struct ReportFormatParser;

/// The `-o` values with their help, for `--help` and shell completion.
const FORMATS: [(&str, &str); 9] = [
    ("table", "Tables for people"),
    ("wide", "Tables with extra columns"),
    ("json", "The JSON contract (stable field names)"),
    ("yaml", "The same contract as YAML"),
    (
        "name",
        "KIND/NAME of each planned object (plan) or the selected node (explain-placement)",
    ),
    (
        "markdown",
        "A pull-request comment: verdict, table, collapsible details, Mermaid diagrams",
    ),
    (
        "html",
        "One self-contained HTML page: the Markdown document, and for a plan the cluster",
    ),
    (
        "jsonpath=",
        "kubectl's JSONPath template over the JSON contract",
    ),
    (
        "custom-columns=",
        "HEADER:PATH,...: one row per object of the JSON contract",
    ),
];

impl clap::builder::TypedValueParser for ReportFormatParser {
    type Value = ReportFormat;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<ReportFormat, clap::Error> {
        let invalid = |message: String| {
            let arg = arg.map_or("-o".to_string(), ToString::to_string);
            clap::Error::raw(
                clap::error::ErrorKind::InvalidValue,
                format!(
                    "invalid value for '{arg}': {message}
"
                ),
            )
            .with_cmd(cmd)
        };
        let text = value.to_str().ok_or_else(|| invalid("not UTF-8".into()))?;
        let format = match text.split_once('=') {
            Some(("jsonpath", template)) => ReportFormat::JsonPath(
                Template::parse(template).map_err(|e| invalid(e.to_string()))?,
            ),
            Some(("custom-columns", spec)) => ReportFormat::CustomColumns(
                Columns::parse(spec).map_err(|e| invalid(e.to_string()))?,
            ),
            _ => match text {
                "table" => ReportFormat::Table,
                "wide" => ReportFormat::Wide,
                "json" => ReportFormat::Json,
                "yaml" => ReportFormat::Yaml,
                "name" => ReportFormat::Name,
                "markdown" => ReportFormat::Markdown,
                "html" => ReportFormat::Html,
                other => {
                    return Err(invalid(format!(
                        "{other:?}; one of {}",
                        FORMATS
                            .map(|(f, _)| if f.ends_with('=') {
                                format!("{f}...")
                            } else {
                                f.to_string()
                            })
                            .join(", ")
                    )));
                }
            },
        };
        Ok(format)
    }

    fn possible_values(
        &self,
    ) -> Option<Box<dyn Iterator<Item = clap::builder::PossibleValue> + '_>> {
        Some(Box::new(FORMATS.into_iter().map(|(name, help)| {
            clap::builder::PossibleValue::new(name).help(help)
        })))
    }
}

/// `--no-headers`, for the commands that print tables.
#[derive(Debug, Clone, Args)]
pub struct TableArgs {
    /// Leave out the column headers of tables (as kubectl's --no-headers)
    #[arg(long)]
    pub no_headers: bool,
}

impl TableArgs {
    /// Whether tables get their header rows; `--no-headers` outside a table says it does nothing.
    pub fn headers(&self, format: &ReportFormat) -> bool {
        let tables = matches!(
            format,
            ReportFormat::Table | ReportFormat::Wide | ReportFormat::CustomColumns(_)
        );
        if self.no_headers && !tables {
            df_report::stderr_line(
                "warning: --no-headers only applies to -o table, wide and custom-columns",
            );
        }
        !self.no_headers
    }
}

/// `--dry-run` of the commands that change objects, as kubectl's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DryRun {
    /// Change the objects
    None,
    /// Only show the diff
    Client,
    /// Let the API server validate the change without persisting it
    Server,
}

/// How a command ended when it did not fail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Exit 0.
    Clean,
    /// Exit 1: lint errors, an unschedulable plan, a diff found.
    Findings,
}

/// A failure of the tool itself (exit 2). Load problems keep one line each.
/// `--scheduler-config`, for every command that plans.
#[derive(Debug, Clone, Default, Args)]
pub struct SchedulerConfigArgs {
    /// KubeSchedulerConfiguration (or a ConfigMap holding one): its first profile sets plugin
    /// weights and scoring strategy; each profile's schedulerName also routes pods (to
    /// coscheduling when it enables Coscheduling)
    #[arg(long = "scheduler-config", value_name = "FILE")]
    pub scheduler_config: Option<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Load(Vec<LoadError>),
    #[error(transparent)]
    Plan(#[from] df_plan::PlanError),
    #[error(transparent)]
    Schema(#[from] df_lint::strict::SchemaErrors),
    #[error(transparent)]
    Other(#[from] anyhow::Error),
}

impl From<LoadError> for CommandError {
    fn from(e: LoadError) -> Self {
        CommandError::Load(vec![e])
    }
}

/// Print an error; credential patterns (URL userinfo, tokens) are redacted from every message,
/// whichever layer built it.
pub fn print_error(error: &CommandError) {
    let text = match error {
        CommandError::Other(e) => format!("{e:#}"),
        CommandError::Load(errors) => errors
            .iter()
            .map(|e| format!("{e}{}", super::hints::load_hint(e).unwrap_or_default()))
            .collect::<Vec<_>>()
            .join("\n"),
        other => other.to_string(),
    };
    let text = text + super::hints::flag_hint(error).unwrap_or_default();
    for line in redact(&text).lines() {
        df_report::stderr_line(&format!("error: {line}"));
    }
}

/// A command's output on stdout; a reader that stopped reading (`| head -1`) is fine.
pub fn print_stdout(output: impl AsRef<[u8]>) -> Result<(), CommandError> {
    df_report::write_stdout(output.as_ref())
        .map_err(|e| CommandError::Other(anyhow::anyhow!("cannot write to stdout: {e}")))
}

impl InputArgs {
    /// Load every `-f` input, saying on stderr which directory entries were not read.
    pub fn load(&self) -> Result<ManifestSet, CommandError> {
        let set = df_manifest::load(&self.filenames, self.recursive)?;
        for skipped in &set.skipped {
            df_report::stderr_line(&format!("note: {skipped}"));
        }
        Ok(set)
    }

    /// [`Self::load`], where any problem fails the command (lint loads on its own terms),
    /// and so does a schema problem unless `--lenient` (then it is a warning). Objects that
    /// name no namespace go to `namespace` (see [`GlobalArgs::namespace`]).
    pub fn load_strict(
        &self,
        schema: &SchemaArgs,
        namespace: &str,
    ) -> Result<ManifestSet, CommandError> {
        let mut set = self.load()?.into_plannable().map_err(CommandError::Load)?;
        set.default_namespace(namespace);
        for warning in strict::check_set(&set).enforce(schema.lenient)? {
            df_report::stderr_line(&format!("warning: {warning}"));
        }
        Ok(set)
    }
}

impl GlobalArgs {
    /// The namespace of objects that name none: `-n`, else the kubeconfig context's, else
    /// `default` (kubectl's order).
    pub fn namespace(&self) -> String {
        self.namespace
            .clone()
            .or_else(|| {
                let options = self.connect_options().ok()?;
                live::context_namespace(&options)
            })
            .unwrap_or_else(|| "default".to_string())
    }

    /// The namespace whose objects are planned, explained or patched: `-n` unless `-A`;
    /// `None` is every namespace.
    pub fn planned_namespace(&self) -> Option<String> {
        self.namespace.clone().filter(|_| !self.all_namespaces)
    }

    /// The profiles and scheduler-name routes of `--scheduler-config` on the release chosen
    /// for the flag, the cluster and `manifests`: what every planning command starts from.
    pub fn planning(
        &self,
        args: &SchedulerConfigArgs,
        state: &ClusterState,
        manifests: &ManifestSet,
    ) -> Result<(Profiles, Vec<(String, df_systems::gang::System)>), CommandError> {
        let config = self.scheduler_config(args.scheduler_config.as_deref())?;
        let profiles = self.profiles(&config, state, manifests)?;
        Ok((
            profiles,
            df_systems::gang::model::scheduler_config_routes(&config),
        ))
    }

    /// The scheduler configuration of `--scheduler-config` (what it asks for that the preview
    /// does not do is said on stderr, one line each), else kube-scheduler's default profile.
    fn scheduler_config(&self, path: Option<&str>) -> Result<SchedulerConfig, CommandError> {
        let Some(path) = path else {
            return Ok(SchedulerConfig::default());
        };
        let config = SchedulerConfig::from_file(path)?;
        for warning in &config.warnings {
            df_report::stderr_line(&format!("warning: {warning}"));
        }
        Ok(config)
    }

    /// The profiles every command plans with, by scheduler name, on the release
    /// [`df_plan::release::choose`] picks for the flag, the cluster and the inputs (what it
    /// says of its choice goes to stderr); an input that release does not serve is an error.
    fn profiles(
        &self,
        config: &SchedulerConfig,
        state: &ClusterState,
        manifests: &ManifestSet,
    ) -> Result<Profiles, CommandError> {
        let release = df_plan::release::choose(
            self.kubernetes_version,
            state.server_version.as_deref(),
            manifests,
            state,
        )
        .map_err(df_plan::PlanError::from)?;
        for note in &release.notes {
            df_report::stderr_line(&format!("{note} (--kubernetes-version chooses)"));
        }
        Ok(config.profiles(release.version))
    }

    /// The cluster state placement sees: recorded files when given, else the whole live
    /// cluster (`-n` only names the namespace to fall back to where RBAC forbids listing
    /// cluster-wide). What the input held that placement ignores is said on stderr; `-v 1`
    /// also says what was read and how long it took.
    ///
    /// The state is never freed: the process ends with the command, and freeing a 150,000-pod
    /// model one allocation at a time is a few percent of a whole run (profiled).
    pub fn cluster_state(&self) -> Result<KeptState, CommandError> {
        self.state_in(live::Scope::Placement(self.planned_namespace()))
    }

    /// The state `snapshot` records: as `kubectl get`, `-n` narrows the namespaced lists.
    pub fn snapshot_state(&self) -> Result<KeptState, CommandError> {
        let scope = match &self.namespace {
            Some(namespace) if !self.all_namespaces => live::Scope::Namespace(namespace.clone()),
            _ => live::Scope::All,
        };
        self.state_in(scope)
    }

    fn state_in(&self, scope: live::Scope) -> Result<KeptState, CommandError> {
        match self.recorded_state()? {
            Some(state) => Ok(state),
            None => {
                let start = std::time::Instant::now();
                let options = self.connect_options()?;
                let mut progress = super::progress::StderrProgress::default();
                let state = live::load(&options, &scope, &mut progress)
                    .map_err(|e| CommandError::Other(anyhow::Error::from(e)))?;
                self.report_state(&state, "the live cluster", start.elapsed());
                Ok(KeptState::new(state))
            }
        }
    }

    /// How `--state` files are read.
    pub fn state_load_options(&self) -> recorded::LoadOptions {
        recorded::LoadOptions {
            max_bytes: self.max_state_size,
            use_cache: self.state_cache,
        }
    }

    /// The `--state` files, if any were given (lint uses a state only when one is given).
    pub fn recorded_state(&self) -> Result<Option<KeptState>, CommandError> {
        if self.state.is_empty() {
            return Ok(None);
        }
        self.load_recorded(&self.state).map(Some)
    }

    /// Recorded state files other than `--state` (a second snapshot to compare with), read
    /// and reported the same way.
    pub fn load_recorded(&self, paths: &[String]) -> Result<KeptState, CommandError> {
        let start = std::time::Instant::now();
        let options = self.state_load_options();
        let state = recorded::load_files_with(paths, options)?;
        self.report_state(&state, &paths.join(", "), start.elapsed());
        Ok(KeptState::new(state))
    }

    fn report_state(&self, state: &ClusterState, source: &str, took: std::time::Duration) {
        for warning in &state.warnings {
            df_report::stderr_line(&format!("warning: {warning}"));
        }
        if state.nodes.is_empty() {
            df_report::stderr_line(&format!(
                "warning: {source} has no nodes: every pod is unschedulable against it"
            ));
        }
        if self.verbosity >= 1 {
            df_report::stderr_line(&format!(
                "read {}, {}, {} and {} from {source} in {} ms",
                plural(state.nodes.len(), "node"),
                plural(state.pods.len(), "pod"),
                plural(state.namespaces.len(), "namespace"),
                plural(state.fluid_ops.len(), "data operation"),
                took.as_millis()
            ));
        }
    }

    /// Check the global flags clap cannot type, before any command reads anything.
    pub fn validate(&self) -> Result<(), CommandError> {
        self.connect_options().map(drop)
    }

    /// The kubeconfig, context and request timeout of the flags.
    pub fn connect_options(&self) -> Result<live::ConnectOptions, CommandError> {
        let request_timeout = live::parse_timeout(&self.request_timeout)
            .map_err(|e| anyhow::anyhow!("invalid --request-timeout {e}"))?;
        Ok(live::ConnectOptions {
            kubeconfig: self.kubeconfig.clone(),
            context: self.context.clone(),
            request_timeout,
        })
    }

    pub fn color(&self) -> bool {
        !self.no_color && std::env::var_os("NO_COLOR").is_none()
    }
}

/// `--solver`: the library's [`df_plan::Solver`] as a flag value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SolverArg {
    /// One pod at a time, each seeing the ones before it (kube-scheduler)
    Greedy,
    /// Min-cost flow over the whole batch (Firmament); pods it cannot express fall back to greedy
    Flow,
}

impl From<SolverArg> for df_plan::Solver {
    fn from(arg: SolverArg) -> Self {
        match arg {
            SolverArg::Greedy => df_plan::Solver::Greedy,
            SolverArg::Flow => df_plan::Solver::Flow,
        }
    }
}

fn parse_kube_version(text: &str) -> Result<KubeVersion, String> {
    KubeVersion::parse(text).map_err(|e| e.to_string())
}
