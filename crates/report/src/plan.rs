//! Rendering a [`Plan`]: one table per flow, per gang and for the batch, each with its notes
//! under it, or the JSON/YAML contract.

use crate::excerpt;
use df_engine::sampling::SampleSize;
use df_model::NodeAffinity;
use df_model::fluid::HOSTNAME_LABEL;
use df_plan::flow::recorded_host;
use df_plan::{
    BatchPlan, DatasetLocality, OpRef, OpStatus, OperationPlan, Plan, Solver, WebhookAffinity,
};
use df_systems::flow::{Method, Metrics};
use df_systems::fluid::describe_inherited;
use df_systems::gang::outcome::summarise_blocked;
use df_systems::gang::{GangStatus, GroupPlan};

/// How a plan's tables read.
#[derive(Debug, Clone, Copy)]
pub struct TableOptions {
    /// Flows with the status, dependOn, recorded affinity and ties columns, and every gang
    /// in full (as `all_pods`).
    pub wide: bool,
    /// Column header rows; false is kubectl's `--no-headers`.
    pub headers: bool,
    /// Each gang's pods one row each, with its pending reasons, turned-down node groups and
    /// topology; otherwise one line per gang (a 150-pod gang reads as one line).
    pub all_pods: bool,
}

/// `-o table` (or `wide`): the flows, then the gangs, then the batch, each with its notes
/// under it; [`super::terminal_safe`], as names and messages come from manifests and the
/// cluster.
pub fn table(plan: &Plan, options: TableOptions) -> String {
    let TableOptions { wide, headers, .. } = options;
    let mut sections = Vec::new();
    let flows = plan.operations.iter().map(|o| o.flow).max().unwrap_or(0);
    for flow in 1..=flows {
        let ops: Vec<&OperationPlan> = plan.operations.iter().filter(|o| o.flow == flow).collect();
        sections.push(flow_section(flow, &ops, wide, headers));
    }
    let all_pods = options.wide || options.all_pods;
    sections.extend(
        plan.groups
            .iter()
            .map(|g| group_section(g, headers, all_pods)),
    );
    sections.extend(plan.batch.iter().map(|b| batch_section(b, headers)));
    sections.extend(
        plan.what_if_effect
            .iter()
            .map(|d| super::capacity::diff_section("What-if effect", d, headers)),
    );
    sections.extend(
        plan.drift
            .iter()
            .map(|d| super::drift::plan_section(d, headers)),
    );
    sections.extend(plan.notes.iter().map(|note| format!("Note: {note}\n")));
    if let Some(size) = plan.sampling.as_ref().filter(|_| !sections.is_empty()) {
        sections.push(sampling_note(size));
    }
    super::terminal_safe(&sections.join("\n")).into_owned()
}

/// Said once under a plan of a cluster of 100 nodes or more: kube-scheduler scores a sample.
fn sampling_note(size: &SampleSize) -> String {
    format!(
        "Note: kube-scheduler scores only the first {} feasible nodes it finds for each pod ({}), from where its previous cycle stopped; this plan scores every feasible node and takes the best (explain-placement names the nodes kube-scheduler could pick).\n",
        size.nodes_to_find,
        size.describe()
    )
}

/// `-o name`: one `kind/name` per planned object (operations, gangs, batch pods), the form
/// `explain-placement KIND/NAME` takes.
pub fn names(plan: &Plan) -> String {
    let operations = plan.operations.iter().map(|o| (o.kind.as_str(), &o.name));
    let groups = plan.groups.iter().map(|g| (g.kind, &g.name));
    let pods = plan
        .batch
        .iter()
        .flat_map(|b| &b.pods)
        .map(|p| ("Pod", &p.name));
    operations
        .chain(groups)
        .chain(pods)
        .map(|(kind, name)| format!("{}/{name}\n", kind.to_ascii_lowercase()))
        .collect()
}

/// Each operation's summary and warnings, as `KIND/NAMESPACE/NAME: TEXT`, in order: the notes
/// under a flow in every format.
pub(crate) fn operation_notes<'a>(ops: &'a [&OperationPlan]) -> impl Iterator<Item = String> + 'a {
    ops.iter().flat_map(|o| {
        let name = format!("{}/{}/{}", o.kind, o.namespace, o.name);
        o.summary
            .iter()
            .chain(&o.warnings)
            .map(move |w| format!("{name}: {w}"))
    })
}

fn flow_section(flow: usize, ops: &[&OperationPlan], wide: bool, headers: bool) -> String {
    let mut out = format!("Flow {flow} ({})\n", super::plural(ops.len(), "operation"));
    out.push_str(&super::render_table(&flow_table(ops, wide), headers));
    let notes: Vec<String> = operation_notes(ops)
        .map(|note| format!("  {note}\n"))
        .collect();
    if !notes.is_empty() {
        out.push_str("Warnings:\n");
        out.extend(notes);
    }
    out
}

/// How many blocking reasons a gang's one-line summary names before counting the rest.
const REASONS_PER_GANG: usize = 3;

/// A gang's one line: kind, name, placed/minimum and domains, and [`gang_reasons`].
fn group_line(group: &GroupPlan) -> String {
    let mut line = format!(
        "{} {}/{} ({}, minMember {}): {}",
        group.kind, group.namespace, group.name, group.gang_kind, group.min_member, group.summary
    );
    let reasons = gang_reasons(group);
    if !reasons.is_empty() {
        line.push_str(&format!("; pending: {reasons}"));
    }
    line.push('\n');
    if let Some(admission) = &group.admission {
        line.push_str(&admission.line());
        line.push('\n');
    }
    line
}

/// The most frequent reasons a gang's pods stay pending (each pod's first), with their
/// counts: folded as upstream's "0/N nodes are available: 3 Insufficient cpu, ..." summary
/// folds its nodes. Empty when none, or when the one reason is what the summary says already
/// (waiting for pods).
pub(crate) fn gang_reasons(group: &GroupPlan) -> String {
    let reasons = if group.blocked.is_empty() {
        summarise_blocked(group.pods.iter().filter_map(|p| p.reason.as_deref()))
    } else {
        group.blocked.clone()
    };
    let said = matches!(reasons.as_slice(), [only] if group.summary.contains(&only.reason));
    if reasons.is_empty() || said {
        return String::new();
    }
    let mut folded: Vec<String> = reasons
        .iter()
        .take(REASONS_PER_GANG)
        .map(|b| format!("{} ({})", b.reason, super::plural(b.pods, "pod")))
        .collect();
    if reasons.len() > REASONS_PER_GANG {
        let rest = reasons.len() - REASONS_PER_GANG;
        folded.push(format!("{} more", super::plural(rest, "reason")));
    }
    folded.join("; ")
}

/// One gang: its line; in full (`all_pods`) a row per pod with its domain at each level, then
/// why pods stay pending and why node groups were turned down. Warnings and the `--compare`
/// table are shown either way.
fn group_section(group: &GroupPlan, headers: bool, all_pods: bool) -> String {
    let mut out = group_line(group);
    if all_pods {
        out.push_str(&group_details(group, headers));
    }
    if !group.warnings.is_empty() {
        out.push_str("Warnings:\n");
        out.extend(group.warnings.iter().map(|w| format!("  {w}\n")));
    }
    if let Some(c) = &group.comparison {
        out.push_str(&format!(
            "Default scheduler (pod by pod, no group semantics): {}/{} pods placed\n",
            c.scheduled,
            c.placements.len()
        ));
        let mut t = super::table(&["LEVEL", "DOMAINS (GANG)", "DOMAINS (DEFAULT)"]);
        for level in &c.levels {
            t.add_row(vec![
                level.key.clone(),
                level.gang.to_string(),
                level.default.to_string(),
            ]);
        }
        out.push_str(&super::render_table(&t, headers));
    }
    out
}

/// The pod rows, pending reasons, turned-down node groups and topology of a gang.
fn group_details(group: &GroupPlan, headers: bool) -> String {
    let mut out = String::new();
    let tasks = group.pods.iter().any(|p| p.task.is_some());
    let mut header = vec!["POD"];
    if tasks {
        header.push("TASK");
    }
    header.push("NODE");
    // The hostname level is the node column already.
    let shown: Vec<usize> = (0..group.levels.len())
        .filter(|&i| group.levels[i] != HOSTNAME_LABEL)
        .collect();
    header.extend(shown.iter().map(|&i| group.levels[i].as_str()));
    let mut t = super::table(&header);
    for pod in &group.pods {
        let mut row = vec![pod.pod.clone()];
        if tasks {
            row.push(pod.task.clone().unwrap_or_else(|| "-".into()));
        }
        row.push(match (&pod.node, pod.running) {
            (Some(node), true) => format!("{node} (running)"),
            (Some(node), false) => node.clone(),
            (None, _) => "<pending>".into(),
        });
        row.extend(shown.iter().map(|&i| {
            pod.domains
                .get(i)
                .cloned()
                .flatten()
                .unwrap_or_else(|| "-".into())
        }));
        t.add_row(row);
    }
    out.push_str(&super::render_table(&t, headers));
    if let Some(node_group) = &group.node_group {
        out.push_str(&format!("Node group: {node_group}\n"));
    }
    if !group.partitions.is_empty() {
        let homes: Vec<String> = group
            .partitions
            .iter()
            .map(|p| format!("{} {} in {}", p.task, p.partition, p.hyper_node))
            .collect();
        out.push_str(&format!("Partitions: {}\n", homes.join(", ")));
    }
    // Pods of a unit often stay pending for one shared reason: one line per reason.
    let mut pending: Vec<(&str, Vec<&str>)> = Vec::new();
    for pod in &group.pods {
        let Some(reason) = pod.reason.as_deref() else {
            continue;
        };
        match pending.iter_mut().find(|(r, _)| *r == reason) {
            Some((_, pods)) => pods.push(&pod.pod),
            None => pending.push((reason, vec![&pod.pod])),
        }
    }
    if !pending.is_empty() {
        out.push_str("Pending:\n");
        for (reason, pods) in pending {
            out.push_str(&format!("  {}: {reason}\n", excerpt::name_list(&pods)));
        }
    }
    match group.status {
        GangStatus::Scheduled => {}
        GangStatus::Unschedulable => out.push_str(&format!(
            "Unschedulable: {} of minMember {} fit; none of its pending pods is placed\n",
            group.fit, group.min_member
        )),
        other => out.push_str(&format!("{}: not planned\n", other.as_str())),
    }
    if !group.blocked.is_empty() {
        out.push_str("Blocked (first reason per pod):\n");
        for b in &group.blocked {
            out.push_str(&format!(
                "  {}: {}\n",
                super::plural(b.pods, "pod"),
                b.reason
            ));
        }
    }
    if !group.rejections.is_empty() {
        out.push_str("Rejected:\n");
        for r in &group.rejections {
            out.push_str(&format!("  {}: {}\n", r.group, r.reason));
        }
    }
    out.push_str(&super::topology::section(group));
    out
}

fn batch_section(batch: &BatchPlan, headers: bool) -> String {
    let solver = match batch.solver {
        Solver::Greedy => "greedy",
        Solver::Flow => "flow",
    };
    let mut out = format!(
        "Batch ({}, solver {solver}): {}/{} pods placed",
        super::plural(batch.pods.len(), "pod"),
        batch.placed,
        batch.pods.len()
    );
    if let Some(cost) = batch.total_cost {
        out.push_str(&format!(", total cost {cost}"));
    }
    out.push('\n');
    // Fluid's webhook columns appear only when some pod mounts a dataset or was admitted.
    let webhook = batch.pods.iter().any(|p| !p.webhook_affinity.is_empty());
    let datasets = batch.pods.iter().any(|p| !p.datasets.is_empty());
    let mut header = vec!["POD", "FROM", "NODE", "METHOD", "NOTE"];
    if webhook {
        header.push("WEBHOOK");
    }
    if datasets {
        header.push("CACHE");
    }
    let mut t = super::table(&header);
    for pod in &batch.pods {
        let mut row = vec![
            format!("{}/{}", pod.namespace, pod.name),
            pod.from.clone(),
            pod.node.clone().unwrap_or_else(|| "<pending>".into()),
            method_name(pod.method).to_string(),
            if pod.note.is_empty() {
                "-".into()
            } else {
                pod.note.clone()
            },
        ];
        if webhook {
            row.push(webhook_text(&pod.webhook_affinity));
        }
        if datasets {
            row.push(cache_text(&pod.datasets));
        }
        t.add_row(row);
    }
    out.push_str(&super::render_table(&t, headers));
    for pod in batch.pods.iter().filter(|p| !p.preempts.is_empty()) {
        let victims: Vec<String> = pod
            .preempts
            .iter()
            .map(|v| format!("{}/{}", v.namespace, v.name))
            .collect();
        out.push_str(&format!(
            "{}/{} would preempt on {}: {}\n",
            pod.namespace,
            pod.name,
            pod.node.as_deref().unwrap_or("-"),
            victims.join(", ")
        ));
    }
    if let Some(c) = &batch.comparison {
        out.push_str("Greedy against flow:\n");
        let mut t = super::table(&["METRIC", "GREEDY", "FLOW"]);
        type Column = fn(&Metrics) -> String;
        let rows: [(&str, Column); 5] = [
            ("pods placed", |m| format!("{}/{}", m.placed, m.pods)),
            ("nodes used", |m| m.nodes_used.to_string()),
            ("preferred-affinity weight", |m| {
                m.preferred_weight.to_string()
            }),
            ("max pods per node", |m| m.max_pods_per_node.to_string()),
            ("pods per node (stddev)", |m| {
                format!("{:.3}", m.pods_per_node_stddev)
            }),
        ];
        for (name, value) in rows {
            t.add_row(vec![name.to_string(), value(&c.greedy), value(&c.flow)]);
        }
        out.push_str(&super::render_table(&t, headers));
        let mut t = super::table(&["POD", "GREEDY", "FLOW"]);
        let node = |n: &Option<String>| n.clone().unwrap_or_else(|| "<pending>".into());
        for pod in &c.pods {
            let mut name = pod.name.clone();
            if pod.greedy != pod.flow {
                name.push_str(" *");
            }
            t.add_row(vec![name, node(&pod.greedy), node(&pod.flow)]);
        }
        out.push_str(&super::render_table(&t, headers));
    }
    out
}

pub(crate) fn method_name(method: Method) -> &'static str {
    match method {
        Method::Flow => "flow",
        Method::Greedy => "greedy",
        Method::Kubelet => "kubelet",
    }
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
    // Fluid's webhook columns appear only for flows whose pods mount datasets.
    let webhook = ops.iter().any(|op| !op.webhook_affinity.is_empty());
    let datasets = ops.iter().any(|op| !op.datasets.is_empty());
    if webhook {
        header.push("WEBHOOK");
    }
    if datasets {
        header.push("CACHE");
    }
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
        if webhook {
            row.push(webhook_text(&op.webhook_affinity));
        }
        if datasets {
            row.push(cache_text(&op.datasets));
        }
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

/// `NodeAffinityWithCache: preferred(100): ...` per plugin that added terms.
fn webhook_text(added: &[WebhookAffinity]) -> String {
    if added.is_empty() {
        return "-".to_string();
    }
    added
        .iter()
        .map(|w| format!("{}: {}", w.plugin, describe_inherited(&w.node_affinity)))
        .collect::<Vec<_>>()
        .join("; ")
}

/// `imagenet: hit (cache on node-b3)` per mounted dataset.
fn cache_text(datasets: &[DatasetLocality]) -> String {
    if datasets.is_empty() {
        return "-".to_string();
    }
    datasets
        .iter()
        .map(|d| match (d.cache_nodes.is_empty(), &d.locality) {
            (true, _) => format!("{}: not cached", d.name),
            (false, Some(locality)) => {
                format!(
                    "{}: {locality} (cache on {})",
                    d.name,
                    d.cache_nodes.join(",")
                )
            }
            (false, None) => format!("{}: cache on {}", d.name, d.cache_nodes.join(",")),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

pub(crate) fn op_ref(r: &OpRef) -> String {
    format!("{}/{}/{}", r.kind, r.namespace, r.name)
}

pub(crate) fn affinity_text(affinity: Option<&NodeAffinity>) -> String {
    affinity.map_or("-".to_string(), describe_inherited)
}

pub(crate) fn node_text(op: &OperationPlan) -> String {
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

/// The objects `plan -o custom-columns` prints a row each for, in the plan's order: each
/// operation, each gang, each pod of the batch.
pub fn rows(plan: &serde_json::Value) -> Vec<&serde_json::Value> {
    fn list(value: Option<&serde_json::Value>) -> impl Iterator<Item = &serde_json::Value> {
        value
            .and_then(serde_json::Value::as_array)
            .into_iter()
            .flatten()
    }
    list(plan.get("operations"))
        .chain(list(plan.get("groups")))
        .chain(list(plan.get("batch").and_then(|b| b.get("pods"))))
        .collect()
}
