//! Rendering a [`Plan`]: one table per flow with its warnings under it, or the JSON/YAML
//! contract.

use crate::model::NodeAffinity;
use crate::plan::flow::recorded_host;
use crate::plan::{OpRef, OpStatus, OperationPlan, Plan};
use crate::systems::fluid::describe_inherited;

/// `-o table` (or `wide`, with the status, dependOn, recorded affinity and ties).
pub fn table(plan: &Plan, wide: bool) -> String {
    let mut out = String::new();
    let flows = plan.operations.iter().map(|o| o.flow).max().unwrap_or(0);
    if flows == 0 {
        return "No DataFlow operations found.\n".to_string();
    }
    for flow in 1..=flows {
        let ops: Vec<&OperationPlan> = plan.operations.iter().filter(|o| o.flow == flow).collect();
        if flow > 1 {
            out.push('\n');
        }
        out.push_str(&format!("Flow {flow} ({} operations)\n", ops.len()));
        out.push_str(&super::render_table(&flow_table(&ops, wide)));
        let notes: Vec<String> = ops
            .iter()
            .flat_map(|o| {
                let name = format!("{}/{}/{}", o.kind, o.namespace, o.name);
                o.summary
                    .iter()
                    .chain(&o.warnings)
                    .map(move |w| format!("  {name}: {w}\n"))
            })
            .collect();
        if !notes.is_empty() {
            out.push_str("Warnings:\n");
            out.extend(notes);
        }
    }
    out
}

fn flow_table(ops: &[&OperationPlan], wide: bool) -> comfy_table::Table {
    let mut header = vec![
        "STEP",
        "OPERATION",
        "AFTER",
        "POLICY",
        "INHERITED",
        "NODE",
        "ZONE",
        "SCORE",
    ];
    if wide {
        header.extend(["STATUS", "DEPENDON", "RECORDED", "TIED"]);
    }
    let mut table = super::table(&header);
    for op in ops {
        let mut row = vec![
            op.step.to_string(),
            format!("{}/{}/{}", op.kind, op.namespace, op.name),
            op.after.as_ref().map_or("-".to_string(), op_ref),
            if op.policy.is_empty() {
                "-".to_string()
            } else {
                op.policy.clone()
            },
            affinity_text(op.inherited_affinity.as_ref()),
            node_text(op),
            op.zone.clone().unwrap_or_else(|| "-".to_string()),
            op.score.map_or("-".to_string(), |s| s.to_string()),
        ];
        if wide {
            row.extend([
                op.status.as_str().to_string(),
                op.depend_on.as_ref().map_or("-".to_string(), op_ref),
                affinity_text(op.recorded_node_affinity.as_ref()),
                if op.tied.is_empty() {
                    "-".to_string()
                } else {
                    op.tied.join(",")
                },
            ]);
        }
        table.add_row(row);
    }
    table
}

fn op_ref(r: &OpRef) -> String {
    format!("{}/{}/{}", r.kind, r.namespace, r.name)
}

fn affinity_text(affinity: Option<&NodeAffinity>) -> String {
    affinity.map_or("-".to_string(), describe_inherited)
}

fn node_text(op: &OperationPlan) -> String {
    let recorded_host = op.recorded_node_affinity.as_ref().and_then(recorded_host);
    match (&op.node, op.status) {
        (Some(node), _) => node.clone(),
        (None, OpStatus::Complete) if recorded_host.is_some() => {
            format!("{} (complete)", recorded_host.unwrap_or_default())
        }
        (None, OpStatus::Planned) => "-".to_string(),
        (None, status) => format!("<{}>", status.as_str().to_lowercase()),
    }
}
