//! `kubectl dataflow explain-placement`

use anyhow::anyhow;
use clap::Args;

use super::common::{
    ReportFormat, ReportFormatParser, SchedulerConfigArgs, SchemaArgs, SelectorArgs, SolverArg,
    TableArgs, print_stdout,
};
use super::{CommandError, GlobalArgs, InputArgs, Outcome};

use df_plan::drift;
use df_plan::explain::{self, Scope};
use df_systems::fluid::webhook::{self, AssumeCached};

const EXAMPLES: &str = "\
Examples:
  # Why would this pod land where it lands?
  kubectl dataflow explain-placement -f testdata/pods/affinity.yaml \\
      --state testdata/clusters/three-zone.yaml

  # One object among several in the inputs (short names work too: deploy/web)
  kubectl dataflow explain-placement -f manifests/ Deployment/web \\
      --state cluster.json

  # A pod already in the recorded state, as if it were pending again
  kubectl dataflow explain-placement pod/web-0 -n shop --state cluster.json

  # One operation of a flow: earlier steps placed, each inherited term's origin
  kubectl dataflow explain-placement -f testdata/flows/three-step.yaml \\
      DataProcess/preprocess-imagenet --state testdata/clusters/three-zone.yaml

  # One pod of a gang, inside its group's plan
  kubectl dataflow explain-placement -f testdata/gangs/godel-podgroup.yaml \\
      pod/bert-large-3 --state testdata/clusters/gang.yaml

  # One pod of a batch: the min-cost-flow placement next to the greedy one
  kubectl dataflow explain-placement -f testdata/pods/batch.yaml \\
      pod/gpu-eval --solver flow --state testdata/clusters/three-zone.yaml

  # Does a running pod still sit where the engine would put it? (exit 1 if not)
  kubectl dataflow explain-placement pod/api-0 -n shop --compare \\
      --state testdata/clusters/drift.yaml

  # Everything about one node: each filter's verdict and each score's inputs
  kubectl dataflow explain-placement -f pod.yaml --state cluster.json \\
      --node worker-3";

/// Explain why a pod or operation lands on a node, and why not on the others
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
pub struct ExplainArgs {
    /// What to explain: KIND/NAME from the -f inputs, or pod/NAME from the cluster state
    /// (optional when the inputs create exactly one pod, or -l/--field-selector select one)
    #[arg(value_name = "KIND/NAME", conflicts_with_all = ["selector", "field_selector"])]
    pub target: Option<String>,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub schema: SchemaArgs,
    #[command(flatten)]
    pub select: SelectorArgs,
    /// Explain this node in full: every filter's verdict and every score with its inputs
    #[arg(long, value_name = "NODE")]
    pub node: Option<String>,
    /// How many feasible nodes the table shows [default: 10]
    #[arg(long, value_name = "N")]
    pub top: Option<usize>,
    #[command(flatten)]
    pub config: SchedulerConfigArgs,
    /// Output format: table, wide, json, yaml, name, markdown, html, jsonpath=TEMPLATE or
    /// custom-columns=HEADER:PATH,... (one row per node)
    #[arg(
        short = 'o',
        long = "output",
        value_parser = ReportFormatParser,
        default_value = "table",
        value_name = "FORMAT"
    )]
    pub output: ReportFormat,
    #[command(flatten)]
    pub table: TableArgs,
    /// With flow, a pod of the -f batch is shown with its min-cost-flow placement next to
    /// the greedy decision
    #[arg(long, value_enum, value_name = "SOLVER", default_value = "greedy")]
    pub solver: SolverArg,
    /// Explain as if a Fluid dataset were already cached on these nodes (as `plan
    /// --assume-cached`); repeatable
    #[arg(
        long = "assume-cached",
        value_name = "[NAMESPACE/]DATASET=NODE[,NODE...]"
    )]
    pub assume_cached: Vec<AssumeCached>,
    /// For a pod running in the cluster state: its node against the node the engine would
    /// choose now, with both nodes' scores (exit 1 when they differ)
    #[arg(long)]
    pub compare: bool,
}

pub fn run(global: &GlobalArgs, args: &ExplainArgs) -> Result<Outcome, CommandError> {
    let selector = args.select.parse()?;
    let tables = matches!(
        args.output,
        ReportFormat::Table | ReportFormat::Wide | ReportFormat::Markdown | ReportFormat::Html
    );
    if args.top.is_some() && !tables {
        df_report::stderr_line(
            "warning: --top only shortens the table; -o json, yaml and name list every node",
        );
    }
    let manifests = args.input.load_strict(&args.schema, &global.namespace())?;
    let mut state = global.cluster_state()?;
    let (profiles, routes) = global.planning(&args.config, &state, &manifests)?;
    let namespace = global.namespace.as_deref().unwrap_or("default");
    webhook::assume_cached(&mut state, &args.assume_cached, namespace)
        .map_err(df_plan::PlanError::from)?;
    let default_namespace = global.namespace();
    let scope = Scope {
        manifests: &manifests,
        state: &state,
        profiles,
        routes,
        solver: args.solver.into(),
        namespace: global.namespace.as_deref(),
        default_namespace: &default_namespace,
        selector: &selector,
    };
    let working = super::progress::Working::start("planning");
    let explanation = explain::explain(&scope, args.target.as_deref(), args.node.as_deref());
    drop(working);
    let mut explanation = explanation?;
    if args.compare {
        explanation.drift = Some(
            drift::of_bound_pod(
                &state,
                &explanation.pod.namespace,
                &explanation.pod.name,
                &explanation.decision,
            )
            .map_err(|e| anyhow!(e))?,
        );
    }
    let top = args.top.unwrap_or(10);
    let headers = args.table.headers(&args.output);
    let text = match &args.output {
        ReportFormat::Json => df_report::to_json(&explanation),
        ReportFormat::Yaml => df_report::to_yaml(&explanation),
        ReportFormat::Table => df_report::explain::render(&explanation, top, false, headers),
        ReportFormat::Wide => df_report::explain::render(&explanation, top, true, headers),
        ReportFormat::Name => df_report::explain::selected_name(&explanation),
        ReportFormat::Markdown => df_report::markdown::explain(&explanation, top),
        ReportFormat::Html => df_report::html::explain(&explanation, top),
        templated => templated
            .templated(&explanation, df_report::explain::rows, headers)
            .expect("the other formats are matched above")?,
    };
    print_stdout(&text)?;
    // A pod whose scheduler is not modelled is no finding: its outcome is unknown.
    let answered = explanation.placed() || explanation.not_modelled.is_some();
    Ok(if answered && !explanation.drifted() {
        Outcome::Clean
    } else {
        Outcome::Findings
    })
}
