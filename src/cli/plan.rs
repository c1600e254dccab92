//! `kubectl dataflow plan`

use clap::Args;

use super::common::{
    ReportFormat, ReportFormatParser, SchedulerConfigArgs, SchemaArgs, SelectorArgs, SolverArg,
    TableArgs, print_stdout,
};
use super::{CommandError, GlobalArgs, InputArgs, Outcome};
use df_engine::Profiles;
use df_plan::what_if::MAX_ADDED_NODES;
use df_plan::{PlanOptions, WhatIf, capacity, diff, what_if};
use df_systems::fluid::webhook::{self, AssumeCached};
use df_systems::gang::System;
use df_systems::gang::model::parse_route;

const EXAMPLES: &str = "\
Examples:
  # Preview a DataFlow against a recorded cluster
  kubectl dataflow plan -f testdata/flows/three-step.yaml \\
      --state testdata/clusters/three-zone.yaml

  # The same as JSON for scripts
  kubectl dataflow plan -f flow.yaml --state cluster.json -o json

  # A Godel PodGroup or a Volcano Job: where the gang lands, per topology level
  kubectl dataflow plan -f testdata/gangs/godel-podgroup.yaml \\
      --state testdata/clusters/gang.yaml

  # What job-level affinity buys: the same gang by the plain default scheduler
  kubectl dataflow plan -f testdata/gangs/godel-podgroup.yaml \\
      --state testdata/clusters/gang.yaml --compare

  # A batch of pods placed by min-cost flow, against the greedy scheduler
  kubectl dataflow plan -f testdata/pods/batch.yaml \\
      --state testdata/clusters/three-zone.yaml --solver flow --compare

  # Why is each Pending pod of the cluster pending? (in scheduling queue order)
  kubectl dataflow plan --pending -A \\
      --state testdata/clusters/pending.yaml

  # Which running pods sit where the engine would not put them now? (drift)
  kubectl dataflow plan --pending --compare -n shop \\
      --state testdata/clusters/drift.yaml

  # Where does the flow go if worker-1 is drained and worker-2 moves zone?
  kubectl dataflow plan -f flow.yaml --state cluster.json \\
      --what-if drain=worker-1 \\
      --what-if label=worker-2:topology.kubernetes.io/zone=zone-c

  # Lose zone a, gain two nodes like node-b1: what moves?
  kubectl dataflow plan -f testdata/pods/batch.yaml \\
      --state testdata/clusters/three-zone.yaml \\
      --what-if 'remove=selector(topology.kubernetes.io/zone=us-east-1a)' \\
      --what-if add=2:like=node-b1

  # How many nodes like node-a1 does the batch need?
  kubectl dataflow plan -f testdata/pods/batch.yaml \\
      --state testdata/clusters/three-zone.yaml --how-many-nodes node-a1

  # What moved between two snapshots (exit 1 when something did)
  kubectl dataflow plan -f flow.yaml --state before.json --against after.json";

/// Preview where every operation of a DataFlow and every pod of a gang lands
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
pub struct PlanArgs {
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub schema: SchemaArgs,
    #[command(flatten)]
    pub select: SelectorArgs,
    /// Output format: table, wide, json, yaml, name, markdown, html, jsonpath=TEMPLATE or
    /// custom-columns=HEADER:PATH,... (one row per operation, gang and batch pod)
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
    /// Show every pod of each gang (its row, domains, pending reason), the node groups turned
    /// down and the topology, not one line per gang (as -o wide)
    #[arg(long)]
    pub show_all: bool,
    /// Change the cluster state before planning, and show what moves: add=N:like=NODE,
    /// cordon=NODES, drain=NODES (cordon and evict their pods), remove=NODES,
    /// label=NODES:key=value, unlabel=NODES:key, taint=NODES:key[=value]:Effect,
    /// untaint=NODES:key[:Effect]; NODES is a node name or selector(LABEL-SELECTOR);
    /// repeatable, applied in order
    #[arg(long = "what-if", value_name = "EDIT")]
    pub what_if: Vec<WhatIf>,
    /// Search the smallest number of new nodes shaped like NODE that makes every planned
    /// operation, gang and pod fit
    #[arg(
        long = "how-many-nodes",
        value_name = "NODE",
        conflicts_with = "against"
    )]
    pub how_many_nodes: Option<String>,
    /// The most new nodes --how-many-nodes tries
    #[arg(long = "max-nodes", value_name = "N", default_value_t = 1000, requires = "how_many_nodes",
        value_parser = clap::value_parser!(u32).range(1..=MAX_ADDED_NODES as i64))]
    pub max_nodes: u32,
    /// Plan the same inputs against this second recorded state too and show only what moved
    /// (exit 1 when something did); repeatable like --state
    #[arg(long = "against", value_name = "FILE", conflicts_with = "what_if")]
    pub against: Vec<String>,
    /// Plan as if a Fluid dataset were already cached on these nodes (gives them the cache
    /// label `fluid.io/s-<namespace>-<dataset>=true`); the namespace defaults to -n or
    /// `default`; repeatable
    #[arg(
        long = "assume-cached",
        value_name = "[NAMESPACE/]DATASET=NODE[,NODE...]"
    )]
    pub assume_cached: Vec<AssumeCached>,
    #[command(flatten)]
    pub config: SchedulerConfigArgs,
    /// Plan N copies (NAME-0 .. NAME-(N-1)) of each pod or template that joins a gang
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=MAX_REPLICAS))]
    pub replicas: Option<u32>,
    /// Send pods with schedulerName NAME to SYSTEM (kube-scheduler, coscheduling, kube-batch,
    /// volcano, godel); repeatable, on top of each project's default names
    #[arg(long = "scheduler-name", value_name = "NAME=SYSTEM", value_parser = parse_route)]
    pub scheduler_names: Vec<(String, System)>,
    /// Also place gangs with the plain default scheduler (domains crossed per level), and the
    /// batch of plain pods with both solvers (pods placed, nodes used, preferred weight, spread);
    /// with --pending, also count the running pods that sit where the engine would not put them
    /// now (drift; exit 1 when some do)
    #[arg(long)]
    pub compare: bool,
    /// How the batch of plain pods and workload replicas in the inputs is placed
    #[arg(long, value_enum, value_name = "SOLVER", default_value = "greedy")]
    pub solver: SolverArg,
    /// Also plan the Pending pods of the cluster state (of -n, or every namespace with -A),
    /// before the inputs, in the order kube-scheduler's queue pops them: priority, then
    /// creationTimestamp (a dump records no queue timestamp; creation time stands in); gangs
    /// as units
    #[arg(long)]
    pub pending: bool,
}

/// The most copies `--replicas` plans: each is a pod the engine places against every node.
const MAX_REPLICAS: i64 = 100_000;

pub fn run(global: &GlobalArgs, args: &PlanArgs) -> Result<Outcome, CommandError> {
    let document = matches!(args.output, ReportFormat::Markdown | ReportFormat::Html);
    if document && (args.how_many_nodes.is_some() || !args.against.is_empty()) {
        return Err(anyhow::anyhow!(
            "-o markdown and html show a plan; --how-many-nodes and --against print a table, json or yaml"
        )
        .into());
    }
    let selector = args.select.parse()?;
    let set = args.input.load_strict(&args.schema, &global.namespace())?;
    let mut state = global.cluster_state()?;
    let (profiles, mut routes) = global.planning(&args.config, &state, &set)?;
    let namespace = global.namespace.as_deref().unwrap_or("default");
    webhook::assume_cached(&mut state, &args.assume_cached, namespace)
        .map_err(df_plan::PlanError::from)?;
    routes.extend(args.scheduler_names.iter().cloned());
    let opts = PlanOptions {
        replicas: args.replicas.map(|n| n as usize),
        compare: args.compare,
        solver: args.solver.into(),
        routes,
        namespace: global.planned_namespace(),
        pending: args.pending,
        selector,
    };
    if let Some(template) = &args.how_many_nodes {
        what_if::apply(&mut state, &args.what_if).map_err(df_plan::PlanError::from)?;
        return how_many_nodes(args, &set, &mut state, template, &profiles, &opts);
    }
    if !args.against.is_empty() {
        let mut after = global.load_recorded(&args.against)?;
        webhook::assume_cached(&mut after, &args.assume_cached, namespace)
            .map_err(df_plan::PlanError::from)?;
        let before = df_plan::plan_all(&set, &state, profiles.clone(), &opts)?;
        let after = df_plan::plan_all(&set, &after, profiles, &opts)?;
        return print_diff(args, &diff::diff(&before, &after));
    }
    let working = super::progress::Working::start("planning");
    let plan = what_if::plan(&set, &state, &args.what_if, profiles, &opts);
    drop(working);
    let plan = plan?;
    let headers = args.table.headers(&args.output);
    let text = match &args.output {
        ReportFormat::Table | ReportFormat::Wide => {
            let options = df_report::plan::TableOptions {
                wide: args.output == ReportFormat::Wide,
                headers,
                all_pods: args.show_all,
            };
            df_report::plan::table(&plan, options)
        }
        ReportFormat::Json => df_report::to_json(&plan),
        ReportFormat::Yaml => df_report::to_yaml(&plan),
        ReportFormat::Name => df_report::plan::names(&plan),
        ReportFormat::Markdown => df_report::markdown::plan(&plan),
        ReportFormat::Html => df_report::html::plan(&plan),
        templated => templated
            .templated(&plan, df_report::plan::rows, headers)
            .expect("the other formats are matched above")?,
    };
    print_stdout(&text)?;
    if let Some(reason) = plan.empty_reason(&opts) {
        let all = if opts.namespace.is_some() {
            " (-A plans every namespace)"
        } else {
            ""
        };
        df_report::stderr_line(&format!("{reason}{all}"));
        return Ok(Outcome::Findings);
    }
    Ok(if plan.has_findings() {
        Outcome::Findings
    } else {
        Outcome::Clean
    })
}

/// After this long, each trial of the node-count search is reported on stderr as it ends.
const QUIET_SEARCH: std::time::Duration = std::time::Duration::from_secs(1);

fn how_many_nodes(
    args: &PlanArgs,
    set: &df_manifest::ManifestSet,
    state: &mut df_state::ClusterState,
    template: &str,
    profiles: &Profiles,
    opts: &PlanOptions,
) -> Result<Outcome, CommandError> {
    let started = std::time::Instant::now();
    let mut progress = |trial: &capacity::Trial| {
        if started.elapsed() >= QUIET_SEARCH {
            df_report::stderr_line(&format!(
                "how many nodes: {} new: {} ({} unplaced, {:.1?} so far)",
                trial.nodes,
                if trial.fits { "fits" } else { "does not fit" },
                trial.unplaced,
                started.elapsed()
            ));
        }
    };
    let max = args.max_nodes as usize;
    let count = capacity::how_many_nodes(set, state, template, max, profiles, opts, &mut progress)?;
    let text = match args.output {
        ReportFormat::Json => df_report::to_json(&count),
        ReportFormat::Yaml => df_report::to_yaml(&count),
        _ => df_report::capacity::node_count_table(&count, args.table.headers(&args.output)),
    };
    print_stdout(&text)?;
    Ok(if count.nodes.is_some() {
        Outcome::Clean
    } else {
        Outcome::Findings
    })
}

fn print_diff(args: &PlanArgs, diff: &diff::PlanDiff) -> Result<Outcome, CommandError> {
    let text = match args.output {
        ReportFormat::Json => df_report::to_json(diff),
        ReportFormat::Yaml => df_report::to_yaml(diff),
        _ => {
            let title = format!("Plan against {}", args.against.join(", "));
            let table =
                df_report::capacity::diff_section(&title, diff, args.table.headers(&args.output));
            df_report::terminal_safe(&table).into_owned()
        }
    };
    print_stdout(&text)?;
    Ok(if diff.is_empty() {
        Outcome::Clean
    } else {
        Outcome::Findings
    })
}
