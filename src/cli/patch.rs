//! `kubectl dataflow patch`

use anyhow::anyhow;
use clap::Args;

use super::common::{DryRun, SchedulerConfigArgs, SchemaArgs, print_stdout};
use super::{CommandError, GlobalArgs, InputArgs, Outcome};
use crate::completion::OBJECT_VALUE_NAME;
use df_apply::change::{self, LiveChange};
use df_apply::desired::{self, DesiredError};
use df_apply::manifest::{self as files, Edit, affinity_path};
use df_live::apply::{Api, LiveObject};
use df_manifest::{Manifest, ManifestSet};
use df_model::{Affinity, Object};
use df_plan::{OperationPlan, Plan, PlanOptions};
use df_report::stderr_line;

const EXAMPLES: &str = "\
Examples:
  # Show the affinity each operation of a flow inherits, as a diff of the file
  kubectl dataflow patch -f testdata/flows/three-step.yaml \\
      --state testdata/clusters/three-zone.yaml --dry-run=client

  # Write it into the file (only the changed documents are rewritten)
  kubectl dataflow patch -f flow.yaml --state cluster.json --write

  # Patch a live operation that has not started yet, without asking
  kubectl dataflow patch dataload/load-imagenet -n data --yes

  # Patch a pod held by a scheduling gate, then release the gate
  kubectl dataflow patch pod/web-0 -n shop --ungate example.com/placement";

/// Write the computed affinity into manifests or live objects, after a diff
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
pub struct PatchArgs {
    /// What to patch: KIND/NAME from the -f inputs, or a live operation or gated pod
    /// (optional when the inputs hold exactly one)
    #[arg(value_name = OBJECT_VALUE_NAME)]
    pub target: Option<String>,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub schema: SchemaArgs,
    /// Rewrite the -f files in place (without it, -f only shows the diff)
    #[arg(long)]
    pub write: bool,
    /// Apply without asking for confirmation (required without a terminal)
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Only show the change (client) or have the API server validate it (server)
    #[arg(long, value_enum, value_name = "MODE", default_value = "none")]
    pub dry_run: DryRun,
    /// Remove this scheduling gate from the pod once it is patched
    #[arg(long, value_name = "GATE")]
    pub ungate: Option<String>,
    #[command(flatten)]
    pub config: SchedulerConfigArgs,
}

pub fn run(global: &GlobalArgs, args: &PatchArgs) -> Result<Outcome, CommandError> {
    if args.input.filenames.is_empty() {
        if args.write {
            return Err(anyhow!("--write rewrites the -f files; give them with -f").into());
        }
        return live(global, args);
    }
    if args.dry_run == DryRun::Server {
        return Err(anyhow!(
            "--dry-run=server validates changes to live objects; with -f the files are patched: use --dry-run=client, or name a live object without -f"
        )
        .into());
    }
    if args.ungate.is_some() {
        return Err(anyhow!("--ungate releases a live pod; name it without -f").into());
    }
    files_mode(global, args)
}

/// Patch the -f files: every operation gets its planned affinity, every pod its own affinity
/// pinned to the node the plan puts it on (as `plan -f` shows it: a gang's or the batch's
/// decision, not one made for the pod alone).
fn files_mode(global: &GlobalArgs, args: &PatchArgs) -> Result<Outcome, CommandError> {
    let set = args.input.load_strict(&args.schema, &global.namespace())?;
    let state = global.cluster_state()?;
    let (profiles, routes) = global.planning(&args.config, &state, &set)?;
    let opts = PlanOptions {
        routes,
        ..PlanOptions::default()
    };
    let plan = df_plan::plan_all(&set, &state, profiles, &opts)?;
    let wanted = args
        .target
        .as_deref()
        .map(df_manifest::ObjectRef::parse)
        .transpose()
        .map_err(anyhow::Error::new)?;
    let mut targets: Vec<(&Manifest, Affinity)> = Vec::new();
    let mut found = false;
    for manifest in &set.manifests {
        let meta = manifest.object.metadata();
        let named = wanted
            .as_ref()
            .is_some_and(|w| w.is_kind(manifest.object.kind()) && meta.name == w.name);
        if wanted.is_some() && !named {
            continue;
        }
        found |= named;
        let affinity = match &manifest.object {
            Object::FluidOp(op) => {
                let plan = plan
                    .operations
                    .iter()
                    .find(|p| {
                        p.kind == op.kind.as_str()
                            && p.namespace == op.metadata.namespace
                            && p.name == op.metadata.name
                    })
                    .ok_or_else(|| anyhow!("{} is not in the plan", manifest.display_name()))?;
                desired::for_operation(plan)
            }
            Object::Pod(pod) => desired::for_planned_pod(&plan, pod).map(|(_, a)| Some(a)),
            _ if named => {
                return Err(anyhow!(
                    "{}: patch sets the affinity of operations and pods, not of {} objects",
                    manifest.display_name(),
                    manifest.object.kind()
                )
                .into());
            }
            _ => continue,
        };
        let affinity = match affinity {
            Ok(Some(affinity)) => affinity,
            Ok(None) => continue,
            Err(e) if named => return Err(anyhow!(e).into()),
            Err(e) => {
                stderr_line(&format!("note: not patched: {e}"));
                continue;
            }
        };
        if affinity_path(&manifest.object).is_none() {
            if named {
                return Err(anyhow!(
                    "{}: {} objects carry no pod affinity the tool can set",
                    manifest.display_name(),
                    manifest.object.kind()
                )
                .into());
            }
            stderr_line(&format!(
                "note: skipping {}: it has no affinity field (Fluid gives its pod none of its own)",
                manifest.display_name()
            ));
            continue;
        }
        targets.push((manifest, affinity));
    }
    if let Some(target) = &args.target
        && !found
    {
        return Err(anyhow!("{target} is not in the -f inputs").into());
    }
    let edits: Vec<Edit<'_>> = targets
        .iter()
        .map(|(manifest, affinity)| Edit { manifest, affinity })
        .collect();
    let changes = files::rewrite(&set, &edits).map_err(anyhow::Error::from)?;
    if changes.is_empty() {
        stderr_line("no changes: the files already carry the planned affinity");
        return Ok(Outcome::Clean);
    }
    for change in &changes {
        print_stdout(change.diff())?;
    }
    if !args.write || args.dry_run == DryRun::Client {
        if !args.write {
            stderr_line("pass --write to rewrite the files");
        }
        return Ok(Outcome::Findings);
    }
    let prompt = format!("Rewrite {} file(s)?", changes.len());
    if !super::hints::confirm(&prompt, args.yes)? {
        stderr_line("nothing written");
        return Ok(Outcome::Findings);
    }
    files::write(&changes).map_err(anyhow::Error::from)?;
    for change in &changes {
        stderr_line(&format!("wrote {}", change.file));
    }
    Ok(Outcome::Clean)
}

/// Patch one live object: a Fluid operation that has not started, or a gated pod.
fn live(global: &GlobalArgs, args: &PatchArgs) -> Result<Outcome, CommandError> {
    let Some(target) = &args.target else {
        return Err(anyhow!(
            "name what to patch: KIND/NAME of a live operation or gated pod, or -f FILE"
        )
        .into());
    };
    let wanted = df_manifest::ObjectRef::parse(target).map_err(anyhow::Error::new)?;
    let name = wanted.name.as_str();
    let options = global.connect_options()?;
    let api = Api::connect(&options).map_err(anyhow::Error::from)?;
    let namespace = global
        .namespace
        .clone()
        .unwrap_or_else(|| api.default_namespace().to_string());
    let object = LiveObject::new(&wanted, &namespace).map_err(anyhow::Error::from)?;
    let current = api.get(&object).map_err(anyhow::Error::from)?;
    let decoded = change::decode(&object, &current).map_err(anyhow::Error::from)?;
    let affinity = match &decoded {
        Object::Pod(pod) => {
            if let Some(why) = desired::pod_unpatchable(pod) {
                return Err(anyhow!(why).into());
            }
            // The node it gets once released: planned with its gates taken off.
            let plan = live_plan(global, &args.config, true, Some((&namespace, name)))?;
            let (node, affinity) =
                desired::for_planned_pod(&plan, pod).map_err(anyhow::Error::from)?;
            desired::check_narrowing(pod.spec.affinity.as_deref(), Some(&affinity)).map_err(
                |why| {
                    anyhow!(
                        "cannot patch pod {namespace}/{name} to run on {node}: {why}; the API server allows a gated pod's node affinity only to narrow"
                    )
                },
            )?;
            Some(affinity)
        }
        Object::FluidOp(op) => {
            if args.ungate.is_some() {
                return Err(anyhow!("--ungate releases a pod; {target} is an operation").into());
            }
            if let Some(why) =
                desired::operation_unpatchable(op.kind.as_str(), &namespace, name, &op.status.phase)
            {
                return Err(anyhow!(why).into());
            }
            let plan = live_plan(global, &args.config, false, None)?;
            let planned = find_operation(&plan.operations, op.kind.as_str(), &namespace, name)
                .ok_or_else(|| {
                    anyhow!(
                        "{} {namespace}/{name} is not in the cluster state the plan was made from",
                        op.kind
                    )
                })?;
            desired::for_operation(planned).map_err(|e: DesiredError| anyhow!(e))?
        }
        other => {
            return Err(anyhow!(
                "patch sets the affinity of operations and pods, not of {} objects",
                other.kind()
            )
            .into());
        }
    };
    let change = LiveChange::new(object, &current, affinity.as_ref(), args.ungate.as_deref())
        .map_err(anyhow::Error::from)?;
    if change.is_empty() {
        stderr_line(&format!(
            "no changes: {target} already carries the planned affinity"
        ));
        return Ok(Outcome::Clean);
    }
    print_stdout(change.diff().map_err(anyhow::Error::from)?)?;
    apply_live(
        &api,
        &[change],
        args.dry_run,
        args.yes,
        &format!("Patch {target}?"),
    )
}

/// The plan of the cluster state alone, as `plan` makes it (with `pending`, as `plan --pending`
/// does: the Pending pods in queue order), for a live object to take its decision from;
/// `released`, a gated pod planned as if its gates were gone (where it lands once released).
fn live_plan(
    global: &GlobalArgs,
    config: &SchedulerConfigArgs,
    pending: bool,
    released: Option<(&str, &str)>,
) -> Result<Plan, CommandError> {
    let mut state = global.cluster_state()?;
    if let Some((namespace, name)) = released
        && let Some(pod) = state
            .pods
            .iter_mut()
            .find(|p| p.metadata.namespace == namespace && p.metadata.name == name)
    {
        pod.spec.scheduling_gates.clear();
    }
    let nothing = ManifestSet::default();
    let (profiles, routes) = global.planning(config, &state, &nothing)?;
    let opts = PlanOptions {
        pending,
        routes,
        ..PlanOptions::default()
    };
    Ok(df_plan::plan_all(&nothing, &state, profiles, &opts)?)
}

pub(super) fn find_operation<'p>(
    operations: &'p [OperationPlan],
    kind: &str,
    namespace: &str,
    name: &str,
) -> Option<&'p OperationPlan> {
    operations
        .iter()
        .find(|p| p.kind.eq_ignore_ascii_case(kind) && p.namespace == namespace && p.name == name)
}

/// The dry-run / confirm rules for live changes, once the diff is shown.
fn apply_live(
    api: &Api,
    changes: &[LiveChange],
    dry_run: DryRun,
    yes: bool,
    prompt: &str,
) -> Result<Outcome, CommandError> {
    match dry_run {
        DryRun::Client => return Ok(Outcome::Findings),
        DryRun::Server => {
            for change in changes {
                change.send(api, true).map_err(anyhow::Error::from)?;
            }
            stderr_line("server dry run: the API server accepts the change; nothing was persisted");
            return Ok(Outcome::Findings);
        }
        DryRun::None => {}
    }
    if !super::hints::confirm(prompt, yes)? {
        stderr_line("nothing changed");
        return Ok(Outcome::Findings);
    }
    change::send_all(api, changes).map_err(anyhow::Error::from)?;
    for change in changes {
        stderr_line(&change.summary().to_string());
    }
    Ok(Outcome::Clean)
}
