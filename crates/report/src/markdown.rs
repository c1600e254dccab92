//! `-o markdown`: a plan, an explanation or a lint report as a pull-request comment, the way
//! infrastructure plans are reviewed: a one-line verdict, a table of what lands where and what
//! does not and why, then one collapsible `<details>` per DataFlow and per gang with a Mermaid
//! diagram (GitHub draws them in comments).
//!
//! Everything shown comes from the same plan, explanation or lint report the tables and JSON
//! render; nothing is decided here. Names and messages come from manifests and the cluster, so
//! every piece of them is escaped for where it goes ([`text`] in Markdown, [`html`] inside HTML
//! tags, [`mermaid`] in a diagram label, [`fenced`] in a code block): a pod named
//! `<script>` or `a|b` reads as that name and cannot open a tag, a link or a table column.
//!
//! The HTML report ([`super::html`]) renders this same document, with its diagrams drawn
//! in plain HTML instead of Mermaid ([`Pictures::Html`]).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use df_lint::{LintReport, Severity};
use df_model::fluid::HOSTNAME_LABEL;
use df_plan::explain::Explanation;
use df_plan::{BatchPlan, OpRef, OpStatus, OperationPlan, Plan};
use df_systems::gang::{GangStatus, GroupPlan};

use crate::excerpt;
use crate::plan::{affinity_text, gang_reasons, method_name, node_text, op_ref};

/// How the diagrams of the document are drawn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pictures {
    /// Mermaid code blocks, which GitHub and GitLab draw in comments.
    Mermaid,
    /// Nested HTML lists, for the self-contained HTML report (no script to draw Mermaid).
    Html,
}

/// `plan -o markdown`: the verdict, what lands where, then a collapsible section per
/// DataFlow, gang and batch, and the what-if effect and drift when asked for.
pub fn plan(plan: &Plan) -> String {
    plan_document(plan, Pictures::Mermaid)
}

/// The plan document with its diagrams drawn as `pictures` says.
pub(crate) fn plan_document(plan: &Plan, pictures: Pictures) -> String {
    let mut out = format!("{}\n\n", plan_verdict(plan));
    let rows = landing_rows(plan);
    if !rows.is_empty() {
        out.push_str(&markdown_table(&["", "Object", "Where", "Why"], &rows));
    }
    let flows = plan.operations.iter().map(|o| o.flow).max().unwrap_or(0);
    for flow in 1..=flows {
        let ops: Vec<&OperationPlan> = plan.operations.iter().filter(|o| o.flow == flow).collect();
        out.push_str(&flow_details(flow, &ops, pictures));
    }
    for group in &plan.groups {
        out.push_str(&gang_details(group, pictures));
    }
    if let Some(batch) = &plan.batch {
        out.push_str(&batch_details(batch));
    }
    if let Some(diff) = &plan.what_if_effect {
        let table = super::capacity::diff_section("What-if effect", diff, true);
        out.push_str(&details("What-if effect", &fenced(&table)));
    }
    if let Some(drift) = &plan.drift {
        let table = super::drift::plan_section(drift, true);
        out.push_str(&details("Drift", &fenced(&table)));
    }
    let notes: Vec<String> = plan.notes.iter().map(|n| text(n)).collect();
    out.push_str(&list("Notes", &notes));
    if let Some(size) = &plan.sampling {
        let _ = writeln!(
            out,
            "Note: kube-scheduler scores only the first {} feasible nodes it finds for each pod ({}); this plan scores every feasible node and takes the best.\n",
            size.nodes_to_find,
            text(&size.describe())
        );
    }
    out
}

/// One line: whether everything lands (as the exit status says), and how much of each part
/// does: `(2/3 operations, 1/1 gang, 4/5 pods)`.
fn plan_verdict(plan: &Plan) -> String {
    let ops = plan.operations.len();
    let ops_landing = plan
        .operations
        .iter()
        .filter(|o| matches!(o.status, OpStatus::Planned | OpStatus::Complete))
        .count();
    let gangs = plan.groups.len();
    let gangs_landing = plan
        .groups
        .iter()
        .filter(|g| !g.leaves_pods_pending())
        .count();
    let (pods, pods_landing) = plan
        .batch
        .as_ref()
        .map_or((0, 0), |b| (b.pods.len(), b.placed));
    let mut parts = Vec::new();
    for (landing, total, what) in [
        (ops_landing, ops, "operation"),
        (gangs_landing, gangs, "gang"),
        (pods_landing, pods, "pod"),
    ] {
        if total > 0 {
            parts.push(format!("{landing}/{}", super::plural(total, what)));
        }
    }
    if let Some(drift) = plan.drift.as_ref().filter(|d| d.drifted > 0) {
        parts.push(format!(
            "{} drifted",
            super::plural(drift.drifted, "running pod")
        ));
    }
    if parts.is_empty() {
        return "**Plan: nothing to plan.**".to_string();
    }
    let (mark, verdict) = if plan.has_findings() {
        ("❌", "not everything lands")
    } else {
        ("✅", "everything lands")
    };
    format!("**{mark} Plan: {verdict}** ({}).", parts.join(", "))
}

/// A row per operation, per gang and per batch pod: whether it lands, where, and why (or why
/// not).
fn landing_rows(plan: &Plan) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    for op in &plan.operations {
        let lands = matches!(op.status, OpStatus::Planned | OpStatus::Complete);
        let mut place = node_text(op);
        if let Some(zone) = &op.zone {
            place.push_str(&format!(" ({zone})"));
        }
        let why = match (&op.summary, op.score) {
            (Some(summary), _) => summary.clone(),
            (None, Some(score)) => format!("score {score}"),
            (None, None) => op.status.as_str().to_string(),
        };
        rows.push(vec![
            mark(lands).to_string(),
            text(&format!(
                "{} {}/{} (flow {}, step {})",
                op.kind, op.namespace, op.name, op.flow, op.step
            )),
            text(&place),
            text(&why),
        ]);
    }
    for group in &plan.groups {
        let reasons = gang_reasons(group);
        rows.push(vec![
            mark(!group.leaves_pods_pending()).to_string(),
            text(&format!(
                "{} {}/{} ({}, minMember {})",
                group.kind, group.namespace, group.name, group.gang_kind, group.min_member
            )),
            text(&group.summary),
            text(if reasons.is_empty() {
                group.status.as_str()
            } else {
                &reasons
            }),
        ]);
    }
    for pod in plan.batch.iter().flat_map(|b| &b.pods) {
        rows.push(vec![
            mark(pod.node.is_some()).to_string(),
            text(&format!(
                "Pod {}/{} (from {})",
                pod.namespace, pod.name, pod.from
            )),
            text(pod.node.as_deref().unwrap_or("pending")),
            text(if pod.note.is_empty() { "-" } else { &pod.note }),
        ]);
    }
    rows
}

fn mark(lands: bool) -> &'static str {
    if lands { "✅" } else { "❌" }
}

/// A DataFlow: its diagram, a row per step, and its warnings.
fn flow_details(flow: usize, ops: &[&OperationPlan], pictures: Pictures) -> String {
    let landing = ops
        .iter()
        .filter(|o| matches!(o.status, OpStatus::Planned | OpStatus::Complete))
        .count();
    let summary = format!(
        "Flow {flow}: {landing} of {} land",
        super::plural(ops.len(), "operation")
    );
    let mut body = flow_graph(ops).draw(pictures);
    let rows: Vec<Vec<String>> = ops
        .iter()
        .map(|op| {
            vec![
                op.step.to_string(),
                text(&format!("{} {}/{}", op.kind, op.namespace, op.name)),
                text(&op.after.as_ref().map_or("-".to_string(), op_ref)),
                text(if op.policy.is_empty() {
                    "-"
                } else {
                    &op.policy
                }),
                text(&affinity_text(op.inherited_affinity.as_ref())),
                text(&node_text(op)),
                text(op.zone.as_deref().unwrap_or("-")),
                op.score.map_or("-".to_string(), |s| s.to_string()),
                op.status.as_str().to_string(),
            ]
        })
        .collect();
    body.push_str(&markdown_table(
        &[
            "Step",
            "Operation",
            "After",
            "Policy",
            "Inherited",
            "Node",
            "Zone",
            "Score",
            "Status",
        ],
        &rows,
    ));
    let notes: Vec<String> = crate::plan::operation_notes(ops)
        .map(|note| text(&note))
        .collect();
    body.push_str(&list("Warnings", &notes));
    details(&summary, &body)
}

/// The steps of a flow as boxes (step, operation, node and zone), each `runAfter` an arrow
/// labelled with the affinity the step inherits through it.
fn flow_graph(ops: &[&OperationPlan]) -> Graph {
    let mut graph = Graph::new("LR");
    let key = |r: &OpRef| (r.kind.clone(), r.namespace.clone(), r.name.clone());
    let mut ids = BTreeMap::new();
    for op in ops {
        let place = match &op.zone {
            Some(zone) => format!("{} · {zone}", node_text(op)),
            None => node_text(op),
        };
        let id = graph.node(
            vec![
                format!("{}. {} {}/{}", op.step, op.kind, op.namespace, op.name),
                place,
            ],
            matches!(op.status, OpStatus::Planned | OpStatus::Complete),
        );
        ids.insert((op.kind.clone(), op.namespace.clone(), op.name.clone()), id);
    }
    for (i, op) in ops.iter().enumerate() {
        let Some(after) = &op.after else {
            continue;
        };
        let from = match ids.get(&key(after)) {
            Some(&id) => id,
            None => {
                let id = graph.node(vec![format!("{} (not in the plan)", op_ref(after))], false);
                ids.insert(key(after), id);
                id
            }
        };
        let inherited = match &op.inherited_affinity {
            Some(affinity) => affinity_text(Some(affinity)),
            None => "nothing inherited".to_string(),
        };
        graph.edge(from, i, inherited);
    }
    graph
}

/// A gang: its topology diagram, a row per pod with its domains, why pods stay pending, and
/// the topology domains turned down.
fn gang_details(group: &GroupPlan, pictures: Pictures) -> String {
    let summary = format!(
        "{} {}/{}: {}",
        group.kind, group.namespace, group.name, group.summary
    );
    let mut body = gang_graph(group).draw(pictures);
    let shown: Vec<usize> = (0..group.levels.len())
        .filter(|&i| group.levels[i] != HOSTNAME_LABEL)
        .collect();
    let tasks = group.pods.iter().any(|p| p.task.is_some());
    let mut header = vec!["Pod"];
    if tasks {
        header.push("Task");
    }
    header.push("Node");
    header.extend(shown.iter().map(|&i| group.levels[i].as_str()));
    header.push("Pending because");
    let rows: Vec<Vec<String>> = group
        .pods
        .iter()
        .map(|pod| {
            let mut row = vec![text(&pod.pod)];
            if tasks {
                row.push(text(pod.task.as_deref().unwrap_or("-")));
            }
            row.push(text(&match (&pod.node, pod.running) {
                (Some(node), true) => format!("{node} (running)"),
                (Some(node), false) => node.clone(),
                (None, _) => "pending".into(),
            }));
            row.extend(shown.iter().map(|&i| {
                text(
                    pod.domains
                        .get(i)
                        .cloned()
                        .flatten()
                        .as_deref()
                        .unwrap_or("-"),
                )
            }));
            row.push(text(pod.reason.as_deref().unwrap_or("-")));
            row
        })
        .collect();
    body.push_str(&markdown_table(&header, &rows));
    match group.status {
        GangStatus::Scheduled => {}
        GangStatus::Unschedulable => {
            let _ = writeln!(
                body,
                "Unschedulable: {} of minMember {} fit; none of its pending pods is placed.\n",
                group.fit, group.min_member
            );
        }
        other => {
            let _ = writeln!(body, "{}: not planned.\n", other.as_str());
        }
    }
    let rejections: Vec<String> = group
        .rejections
        .iter()
        .map(|r| text(&format!("{}: {}", r.group, r.reason)))
        .collect();
    body.push_str(&list("Node groups turned down", &rejections));
    let rejected: Vec<String> = group
        .rejected
        .iter()
        .map(|r| text(&format!("{} ({}): {}", r.domain, r.level, r.reason)))
        .collect();
    body.push_str(&list("Topology domains turned down", &rejected));
    let warnings: Vec<String> = group.warnings.iter().map(|w| text(w)).collect();
    body.push_str(&list("Warnings", &warnings));
    details(&summary, &body)
}

/// The gang in its topology: the gang, then each domain its placed pods occupy, level by
/// level (widest first), down to the nodes with their pods.
fn gang_graph(group: &GroupPlan) -> Graph {
    let mut graph = Graph::new("TD");
    let root = graph.node(
        vec![format!("{} {}/{}", group.kind, group.namespace, group.name)],
        !group.leaves_pods_pending(),
    );
    let levels: Vec<usize> = (0..group.levels.len())
        .filter(|&i| group.levels[i] != HOSTNAME_LABEL)
        .collect();
    // Placed pods by the path of their domains and node, in domain order.
    let mut by_path: BTreeMap<Vec<String>, Vec<&str>> = BTreeMap::new();
    for pod in &group.pods {
        let Some(node) = &pod.node else {
            continue;
        };
        let mut path: Vec<String> = levels
            .iter()
            .map(|&i| {
                let domain = pod.domains.get(i).cloned().flatten();
                format!("{} ({})", domain.as_deref().unwrap_or("-"), group.levels[i])
            })
            .collect();
        path.push(node.clone());
        by_path.entry(path).or_default().push(&pod.pod);
    }
    let mut ids: BTreeMap<Vec<String>, usize> = BTreeMap::new();
    for (path, pods) in &by_path {
        let mut parent = root;
        for depth in 0..path.len() {
            let prefix = path[..=depth].to_vec();
            parent = match ids.get(&prefix) {
                Some(&id) => id,
                None => {
                    let mut label = vec![path[depth].clone()];
                    if depth + 1 == path.len() {
                        label.push(excerpt::name_list(pods));
                    }
                    let id = graph.node(label, true);
                    graph.edge(parent, id, String::new());
                    ids.insert(prefix, id);
                    id
                }
            };
        }
    }
    let pending = group.pods.iter().filter(|p| p.node.is_none()).count();
    if pending > 0 {
        let id = graph.node(
            vec![format!("pending: {}", super::plural(pending, "pod"))],
            false,
        );
        graph.edge(root, id, String::new());
    }
    graph
}

/// The batch of plain pods: a row per pod and the pods preemption would evict.
fn batch_details(batch: &BatchPlan) -> String {
    let solver = match batch.solver {
        df_plan::Solver::Greedy => "greedy",
        df_plan::Solver::Flow => "flow",
    };
    let summary = format!(
        "Batch (solver {solver}): {} of {} placed",
        batch.placed,
        super::plural(batch.pods.len(), "pod")
    );
    let rows: Vec<Vec<String>> = batch
        .pods
        .iter()
        .map(|pod| {
            vec![
                text(&format!("{}/{}", pod.namespace, pod.name)),
                text(&pod.from),
                text(pod.node.as_deref().unwrap_or("pending")),
                method_name(pod.method).to_string(),
                text(if pod.note.is_empty() { "-" } else { &pod.note }),
            ]
        })
        .collect();
    let mut body = markdown_table(&["Pod", "From", "Node", "Method", "Note"], &rows);
    let preemptions: Vec<String> = batch
        .pods
        .iter()
        .filter(|p| !p.preempts.is_empty())
        .map(|p| {
            let victims: Vec<String> = p
                .preempts
                .iter()
                .map(|v| format!("{}/{}", v.namespace, v.name))
                .collect();
            text(&format!(
                "{}/{} on {}: {}",
                p.namespace,
                p.name,
                p.node.as_deref().unwrap_or("-"),
                victims.join(", ")
            ))
        })
        .collect();
    body.push_str(&list("Would preempt", &preemptions));
    details(&summary, &body)
}

/// `explain-placement -o markdown`: the verdict, the best feasible nodes and why the others
/// are not, then the whole explanation as `-o table` prints it, folded.
pub fn explain(explanation: &Explanation, top: usize) -> String {
    let pod = format!("{}/{}", explanation.pod.namespace, explanation.pod.name);
    let decision = &explanation.decision;
    let feasible = decision.feasible_count();
    let verdict = if let Some(admission) = &explanation.admission {
        let (mark, what) = if admission.admitted {
            ("✅", "the kubelet admits it".to_string())
        } else {
            (
                "❌",
                format!(
                    "the kubelet would not admit it: {}",
                    admission.reasons.join(", ")
                ),
            )
        };
        format!(
            "**{mark} Pod {} names node {} in spec.nodeName:** {}.",
            text(&pod),
            text(&admission.node),
            text(&what)
        )
    } else if let Some(selected) = decision.selected_verdict() {
        format!(
            "**✅ Pod {} would land on node {}** (score {}; {} of {} nodes feasible).",
            text(&pod),
            text(selected.name),
            selected.score.unwrap_or(0),
            feasible,
            decision.nodes.len()
        )
    } else if let Some(scheduler) = &explanation.not_modelled {
        format!(
            "**❔ Pod {} goes to scheduler {}, which this preview does not model:** it cannot say where, or whether, the pod lands.",
            text(&pod),
            text(scheduler)
        )
    } else {
        format!(
            "**❌ Pod {} would stay Pending:** {}",
            text(&pod),
            text(decision.summary.as_deref().unwrap_or("no node fits"))
        )
    };
    let mut out = format!("{verdict}\n\n");
    let mut ranked: Vec<_> = decision.nodes.iter().filter(|v| v.feasible).collect();
    ranked.sort_by(|a, b| b.score.cmp(&a.score).then_with(|| a.name.cmp(b.name)));
    let mut rows: Vec<Vec<String>> = ranked
        .iter()
        .take(top)
        .map(|v| {
            let chosen = decision.selected.as_deref() == Some(v.name);
            vec![
                text(v.name),
                v.score.unwrap_or(0).to_string(),
                if chosen { "selected" } else { "feasible" }.to_string(),
            ]
        })
        .collect();
    if ranked.len() > top {
        rows.push(vec![
            format!("{} more feasible", ranked.len() - top),
            "-".into(),
            "feasible".into(),
        ]);
    }
    let mut rejected: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for verdict in decision.nodes.iter().filter(|v| !v.feasible) {
        let reason = verdict.reasons.first().map_or("", String::as_str);
        rejected.entry(reason).or_default().push(verdict.name);
    }
    for (reason, nodes) in &rejected {
        rows.push(vec![
            text(&excerpt::name_list(nodes)),
            "-".into(),
            text(&format!("rejected: {reason}")),
        ]);
    }
    if !rows.is_empty() {
        out.push_str(&markdown_table(&["Node", "Score", "Verdict"], &rows));
    }
    let full = super::explain::render(explanation, top, false, true);
    out.push_str(&details("The whole explanation", &fenced(&full)));
    out
}

/// `lint -o markdown`: the verdict, a row per finding, and the text report folded.
pub fn lint(report: &LintReport) -> String {
    let (errors, warnings) = (
        report.count(Severity::Error),
        report.count(Severity::Warning),
    );
    let files = super::plural(report.files, "file");
    let verdict = match (errors, warnings) {
        (0, 0) => format!("**✅ lint: no problems found in {files}.**"),
        (0, _) => format!(
            "**⚠️ lint: {} in {files}.**",
            super::plural(warnings, "warning")
        ),
        _ => format!(
            "**❌ lint: {}, {} in {files}.**",
            super::plural(errors, "error"),
            super::plural(warnings, "warning")
        ),
    };
    let mut out = format!("{verdict}\n\n");
    let rows: Vec<Vec<String>> = report
        .diagnostics
        .iter()
        .map(|d| {
            let mut message = d.message.clone();
            if let Some(hint) = &d.hint {
                message.push_str(&format!(" (hint: {hint})"));
            }
            vec![
                text(&format!("{}:{}:{}", d.file, d.pos.line, d.pos.column)),
                d.severity.as_str().to_string(),
                d.code.to_string(),
                text(&excerpt::bounded(&message)),
            ]
        })
        .collect();
    if !rows.is_empty() {
        out.push_str(&markdown_table(
            &["Where", "Severity", "Rule", "Message"],
            &rows,
        ));
    }
    out
}

/// A diagram: boxes of one or more lines, and labelled arrows between them.
struct Graph {
    /// Mermaid's direction: `LR` for a flow's run order, `TD` for a topology tree.
    direction: &'static str,
    /// Each box's lines and whether what it shows lands.
    nodes: Vec<(Vec<String>, bool)>,
    edges: Vec<(usize, usize, String)>,
}

impl Graph {
    fn new(direction: &'static str) -> Graph {
        Graph {
            direction,
            nodes: Vec::new(),
            edges: Vec::new(),
        }
    }

    fn node(&mut self, lines: Vec<String>, lands: bool) -> usize {
        self.nodes.push((lines, lands));
        self.nodes.len() - 1
    }

    fn edge(&mut self, from: usize, to: usize, label: String) {
        self.edges.push((from, to, label));
    }

    fn draw(&self, pictures: Pictures) -> String {
        match pictures {
            Pictures::Mermaid => self.mermaid(),
            Pictures::Html => self.html(),
        }
    }

    /// A Mermaid flowchart: boxes `n0`, `n1`... (ids never come from names), labels escaped
    /// by [`mermaid`], boxes that do not land outlined in red.
    fn mermaid(&self) -> String {
        let mut out = format!("```mermaid\nflowchart {}\n", self.direction);
        for (i, (lines, _)) in self.nodes.iter().enumerate() {
            let label: Vec<String> = lines.iter().map(|l| mermaid(l)).collect();
            let _ = writeln!(out, "  n{i}[\"{}\"]", label.join("<br/>"));
        }
        for (from, to, label) in &self.edges {
            if label.is_empty() {
                let _ = writeln!(out, "  n{from} --> n{to}");
            } else {
                let _ = writeln!(out, "  n{from} -->|\"{}\"| n{to}", mermaid(label));
            }
        }
        let pending: Vec<String> = (0..self.nodes.len())
            .filter(|&i| !self.nodes[i].1)
            .map(|i| format!("n{i}"))
            .collect();
        if !pending.is_empty() {
            out.push_str("  classDef pending stroke:#d1242f,stroke-width:2px\n");
            let _ = writeln!(out, "  class {} pending", pending.join(","));
        }
        out.push_str("```\n\n");
        out
    }

    /// The same diagram as nested lists: each box under the one its arrow comes from, the
    /// arrow's label before it. Every box has at most one arrow into it (a step runs after
    /// one step; a domain lies in one wider domain), so the lists hold every box once.
    fn html(&self) -> String {
        let mut children: BTreeMap<usize, Vec<(usize, &str)>> = BTreeMap::new();
        let mut has_parent = vec![false; self.nodes.len()];
        for (from, to, label) in &self.edges {
            children.entry(*from).or_default().push((*to, label));
            has_parent[*to] = true;
        }
        let mut out = String::from("<ul class=\"diagram\">");
        for root in (0..self.nodes.len()).filter(|&i| !has_parent[i]) {
            self.html_node(root, "", &children, &mut out);
        }
        // One line: a blank line would end the HTML block in Markdown.
        out.push_str("</ul>\n\n");
        out
    }

    fn html_node(
        &self,
        i: usize,
        label: &str,
        children: &BTreeMap<usize, Vec<(usize, &str)>>,
        out: &mut String,
    ) {
        let (lines, lands) = &self.nodes[i];
        out.push_str("<li>");
        if !label.is_empty() {
            let _ = write!(out, "<span class=\"edge\">{}</span>", html(label));
        }
        let class = if *lands { "box" } else { "box pending" };
        let lines: Vec<String> = lines.iter().map(|l| html(l)).collect();
        let _ = write!(out, "<span class=\"{class}\">{}</span>", lines.join("<br>"));
        if let Some(kids) = children.get(&i) {
            out.push_str("<ul>");
            for (kid, label) in kids {
                self.html_node(*kid, label, children, out);
            }
            out.push_str("</ul>");
        }
        out.push_str("</li>");
    }
}

/// A collapsible section; `summary` is plain text, escaped here.
fn details(summary: &str, body: &str) -> String {
    format!(
        "<details><summary>{}</summary>\n\n{body}</details>\n\n",
        html(summary)
    )
}

/// A bulleted list under a bold title; nothing when there are no items (already [`text`]).
fn list(title: &str, items: &[String]) -> String {
    if items.is_empty() {
        return String::new();
    }
    let mut out = format!("**{title}:**\n\n");
    for item in items {
        let _ = writeln!(out, "- {item}");
    }
    out.push('\n');
    out
}

/// A GitHub-flavoured table; cells are already [`text`].
fn markdown_table(header: &[&str], rows: &[Vec<String>]) -> String {
    let header: Vec<String> = header.iter().map(|h| text(h)).collect();
    let mut out = format!("| {} |\n", header.join(" | "));
    let _ = writeln!(out, "|{}", "---|".repeat(header.len()));
    for row in rows {
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    out.push('\n');
    out
}

/// Text from manifests or the cluster in Markdown (a table cell, a list item): control
/// characters as visible escapes, line breaks as spaces, `&`, `<` and `>` as entities (no tag
/// opens), and the characters Markdown acts on inline backslash-escaped (no emphasis, code,
/// link, strikethrough, math or table column starts). Text never begins a line here, so the
/// characters that only start a block (`#`, `-`, `>`) stay as they are.
pub(crate) fn text(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in super::terminal_safe(raw).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\n' | '\r' | '\t' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '|' | '~' | '$' | '!' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// Text inside HTML (a `<summary>`, a box of the HTML diagrams): control characters as
/// visible escapes and the five characters HTML acts on as entities.
pub(crate) fn html(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in super::terminal_safe(raw).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Text in a quoted Mermaid label: letters, digits and a few harmless characters as they are,
/// everything else as Mermaid's `#NNN;` entity code. A quote, a bracket, `|`, a backtick or
/// a tag in a name then cannot end the label, the arrow or the code block.
fn mermaid(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for c in raw.chars() {
        if c.is_alphanumeric() || " -./:,=()·+@".contains(c) {
            out.push(c);
        } else {
            let _ = write!(out, "#{};", u32::from(c));
        }
    }
    out
}

/// Text as a code block: a fence longer than any run of backticks in it, so nothing in the
/// text can close the block early ([`super::terminal_safe`] already, as the renderers give it).
fn fenced(body: &str) -> String {
    let longest = body.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat((longest + 1).max(3));
    let mut out = format!("{fence}text\n{body}");
    if !body.ends_with('\n') {
        out.push('\n');
    }
    let _ = write!(out, "{fence}\n\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Names and messages from hostile manifests stay text wherever they go.
    #[test]
    fn hostile_text_is_escaped_for_each_place() {
        let raw = "a|b <script>*x*</script> `c` [l](u) $m$ & \"q\" 'r'\n\u{1b}[31m";
        assert_eq!(
            text(raw),
            "a\\|b &lt;script&gt;\\*x\\*&lt;/script&gt; \\`c\\` \\[l\\](u) \\$m\\$ &amp; \"q\" 'r' \\\\u{1b}\\[31m"
        );
        assert_eq!(
            html(raw),
            "a|b &lt;script&gt;*x*&lt;/script&gt; `c` [l](u) $m$ &amp; &quot;q&quot; &#39;r&#39;\n\\u{1b}[31m"
        );
        assert_eq!(
            mermaid("x\"]-->y|`<b>` ok.-/:"),
            "x#34;#93;--#62;y#124;#96;#60;b#62;#96; ok.-/:"
        );
    }

    /// A fence is always longer than the longest run of backticks inside it.
    #[test]
    fn a_fence_outlasts_the_backticks_it_holds() {
        assert_eq!(fenced("plain"), "```text\nplain\n```\n\n");
        assert_eq!(fenced("a ```` b\n"), "`````text\na ```` b\n`````\n\n");
    }
}
