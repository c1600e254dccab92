//! `kubectl dataflow launch`

use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

use anyhow::anyhow;
use clap::Args;
use serde_json::Value;

use super::common::{DryRun, SchedulerConfigArgs, SchemaArgs, print_stdout};
use super::patch::find_operation;
use super::{CommandError, GlobalArgs, InputArgs, Outcome};
use crate::completion::OBJECT_VALUE_NAME;
use df_apply::desired;
use df_apply::manifest::{affinity_path, set_path, unified_diff};
use df_live::apply::{Api, LiveObject};
use df_live::parse_timeout;
use df_manifest::Manifest;
use df_model::fluid::HOSTNAME_LABEL;
use df_model::{FluidOp, NodeAffinity, Object};
use df_plan::{OpStatus, PlanOptions};
use df_report::stderr_line;

/// How often `--wait` reads the operation.
const POLL_INTERVAL: Duration = Duration::from_millis(500);

const EXAMPLES: &str = "\
Examples:
  # Create an operation with the affinity it inherits, after a confirmation
  kubectl dataflow launch -f testdata/flows/three-step.yaml \\
      DataProcess/preprocess-imagenet

  # Follow it until Complete or Failed: where it ran, and was the plan right?
  kubectl dataflow launch -f op.yaml --wait

  # Only show what would be created
  kubectl dataflow launch -f op.yaml --dry-run=client";

/// Create an operation with its computed affinity and follow it
#[derive(Debug, Args)]
#[command(after_help = EXAMPLES)]
pub struct LaunchArgs {
    /// Which operation of the -f inputs to create (optional when they hold exactly one)
    #[arg(value_name = OBJECT_VALUE_NAME)]
    pub target: Option<String>,
    #[command(flatten)]
    pub input: InputArgs,
    #[command(flatten)]
    pub schema: SchemaArgs,
    /// Create without asking for confirmation (required without a terminal)
    #[arg(short = 'y', long)]
    pub yes: bool,
    /// Only show the object (client) or have the API server validate it (server)
    #[arg(long, value_enum, value_name = "MODE", default_value = "none")]
    pub dry_run: DryRun,
    /// Wait until the operation is Complete or Failed and report the node it ran on
    #[arg(long)]
    pub wait: bool,
    /// How long --wait waits (e.g. 90s, 10m, 1h)
    #[arg(long, value_name = "DURATION", default_value = "10m")]
    pub timeout: String,
    #[command(flatten)]
    pub config: SchedulerConfigArgs,
}

pub fn run(global: &GlobalArgs, args: &LaunchArgs) -> Result<Outcome, CommandError> {
    let timeout = parse_timeout(&args.timeout).map_err(|e| anyhow!("invalid --timeout {e}"))?;
    let set = args.input.load_strict(&args.schema, &global.namespace())?;
    let ops: Vec<(&Manifest, &FluidOp)> = set
        .manifests
        .iter()
        .filter_map(|m| match &m.object {
            Object::FluidOp(op) => Some((m, &**op)),
            _ => None,
        })
        .collect();
    let (manifest, op) = match (&args.target, ops.as_slice()) {
        (None, [only]) => *only,
        (None, []) => return Err(anyhow!("the -f inputs hold no Fluid operation to launch").into()),
        (None, many) => {
            return Err(anyhow!(
                "the -f inputs hold {} operations ({}); name the one to launch as KIND/NAME",
                many.len(),
                many.iter()
                    .map(|(_, op)| format!("{}/{}", op.kind, op.metadata.name))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
            .into());
        }
        (Some(target), _) => {
            let wanted = df_manifest::ObjectRef::parse(target).map_err(anyhow::Error::new)?;
            ops.iter()
                .find(|(_, op)| wanted.is_kind(op.kind.as_str()) && op.metadata.name == wanted.name)
                .copied()
                .ok_or_else(|| anyhow!("{target} is not an operation of the -f inputs"))?
        }
    };
    let label = manifest.display_name();
    let path = affinity_path(&manifest.object).ok_or_else(|| {
        anyhow!(
            "{label}: {} objects carry no pod affinity the tool can set",
            op.kind
        )
    })?;
    let state = global.cluster_state()?;
    let (profiles, routes) = global.planning(&args.config, &state, &set)?;
    let opts = PlanOptions {
        routes,
        ..PlanOptions::default()
    };
    let plan = df_plan::plan_all(&set, &state, profiles, &opts)?;
    let namespace = &op.metadata.namespace;
    let name = &op.metadata.name;
    let planned = find_operation(&plan.operations, op.kind.as_str(), namespace, name)
        .ok_or_else(|| anyhow!("{label} is not in the plan"))?;
    if planned.status == OpStatus::Unschedulable {
        return Err(anyhow!(
            "{label} fits no node: {}; see `kubectl dataflow explain-placement {}/{name}`",
            planned.summary.clone().unwrap_or_default(),
            op.kind
        )
        .into());
    }
    let affinity = desired::for_operation(planned).map_err(|e| anyhow!(e))?;
    let before = manifest.root.to_json();
    let mut body = before.clone();
    if let Some(object) = body.as_object_mut() {
        object.remove("status");
    }
    body["metadata"]["namespace"] = Value::from(namespace.as_str());
    if let Some(affinity) = &affinity {
        set_path(
            &mut body,
            path,
            serde_json::to_value(affinity).map_err(anyhow::Error::from)?,
        );
    }
    let yaml = |value: &Value| serde_saphyr::to_string(value).map_err(anyhow::Error::from);
    print_stdout(unified_diff(&yaml(&before)?, &yaml(&body)?, &label))?;
    if args.dry_run == DryRun::Client {
        return Ok(Outcome::Findings);
    }
    let target = df_manifest::ObjectRef::of(op.kind.as_str(), name);
    let object = LiveObject::new(&target, namespace).map_err(anyhow::Error::from)?;
    let api = Api::connect(&global.connect_options()?).map_err(anyhow::Error::from)?;
    if args.dry_run == DryRun::Server {
        api.create(&object, &body, true)
            .map_err(anyhow::Error::from)?;
        stderr_line(&format!(
            "server dry run: the API server accepts {object}; nothing was created"
        ));
        return Ok(Outcome::Findings);
    }
    if !super::hints::confirm(&format!("Create {label}?"), args.yes)? {
        stderr_line("nothing created");
        return Ok(Outcome::Findings);
    }
    api.create(&object, &body, false)
        .map_err(anyhow::Error::from)?;
    stderr_line(&format!("{object} created"));
    if !args.wait {
        return Ok(Outcome::Clean);
    }
    let planned_host = planned.node.as_deref().map(|node| {
        state
            .node(node)
            .and_then(|n| n.metadata.labels.get(HOSTNAME_LABEL))
            .map_or(node, |v| v.as_str())
    });
    let (phase, ran_on) = wait(&api, &object, &label, timeout)?;
    print_stdout(format!(
        "{}\n",
        report(&label, &phase, ran_on.as_deref(), planned_host)
    ))?;
    Ok(
        if phase == "Complete" && (ran_on.is_none() || ran_on.as_deref() == planned_host) {
            Outcome::Clean
        } else {
            Outcome::Findings
        },
    )
}

/// Poll the operation until it is Complete or Failed; its phase and recorded hostname.
fn wait(
    api: &Api,
    object: &LiveObject,
    label: &str,
    timeout: Option<Duration>,
) -> Result<(String, Option<String>), CommandError> {
    let started = Instant::now();
    let terminal = std::io::stderr().is_terminal();
    loop {
        let current = api.get(object).map_err(anyhow::Error::from)?;
        let phase = current["status"]["phase"]
            .as_str()
            .unwrap_or("")
            .to_string();
        if terminal {
            let mut err = std::io::stderr().lock();
            let shown = if phase.is_empty() { "Pending" } else { &phase };
            let _ = write!(
                err,
                "\r\x1b[2Kwaiting for {label}: {shown} ({}s)",
                started.elapsed().as_secs()
            );
            let _ = err.flush();
        }
        if matches!(phase.as_str(), "Complete" | "Failed") {
            if terminal {
                let _ = write!(std::io::stderr(), "\r\x1b[2K");
            }
            let record: Option<NodeAffinity> =
                serde_json::from_value(current["status"]["nodeAffinity"].clone()).ok();
            return Ok((phase, record.as_ref().and_then(recorded_host)));
        }
        if let Some(timeout) = timeout
            && started.elapsed() >= timeout
        {
            if terminal {
                let _ = write!(std::io::stderr(), "\r\x1b[2K");
            }
            return Err(anyhow!(
                "{label} is still {} after {timeout:?} (--timeout); follow it with `kubectl get {} {} -n {} -w`",
                if phase.is_empty() { "Pending" } else { &phase },
                object.resource.kind.to_ascii_lowercase(),
                object.name,
                object.namespace
            )
            .into());
        }
        api.sleep(POLL_INTERVAL);
    }
}

/// The hostname in a recorded `status.nodeAffinity`.
fn recorded_host(record: &NodeAffinity) -> Option<String> {
    record
        .required
        .iter()
        .flat_map(|r| &r.node_selector_terms)
        .flat_map(|t| &t.match_expressions)
        .find(|e| e.key == HOSTNAME_LABEL)
        .and_then(|e| e.values.first().cloned())
}

/// One line: how it ended, where it ran, and whether that is where the plan put it.
fn report(label: &str, phase: &str, ran_on: Option<&str>, planned: Option<&str>) -> String {
    let verdict = match (ran_on, planned) {
        (None, _) => {
            "it records no node (only single-pod DataLoad and DataMigrate record where they ran)"
                .to_string()
        }
        (Some(ran), Some(planned)) if ran == planned => format!("it ran on {ran}, as planned"),
        (Some(ran), Some(planned)) => format!("it ran on {ran}, the plan chose {planned}"),
        (Some(ran), None) => format!("it ran on {ran}; the plan chose no node"),
    };
    format!("{label} is {phase}: {verdict}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_where_it_ran_against_the_plan() {
        let cases = [
            (
                Some("a"),
                Some("a"),
                "DataLoad/d/x is Complete: it ran on a, as planned",
            ),
            (
                Some("a"),
                Some("b"),
                "DataLoad/d/x is Complete: it ran on a, the plan chose b",
            ),
            (
                Some("a"),
                None,
                "DataLoad/d/x is Complete: it ran on a; the plan chose no node",
            ),
            (
                None,
                Some("b"),
                "DataLoad/d/x is Complete: it records no node (only single-pod DataLoad and DataMigrate record where they ran)",
            ),
        ];
        for (ran, planned, expected) in cases {
            assert_eq!(report("DataLoad/d/x", "Complete", ran, planned), expected);
        }
    }
}
