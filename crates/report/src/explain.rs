//! Human output of `explain-placement`.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::{render_table, table};
use df_engine::preemption::Preemption;
use df_engine::profile::DEFAULT_SCORE_WEIGHTS;
use df_engine::sampling::Sampling;
use df_engine::{NodeDetail, NodeVerdict};
use df_plan::explain::{Context, Explanation};

/// Short column names for the score plugins, in the default profile's order.
fn short_name(plugin: &str) -> &str {
    match plugin {
        "TaintToleration" => "TAINTS",
        "NodeAffinity" => "NODE-AFF",
        "PodTopologySpread" => "SPREAD",
        "InterPodAffinity" => "POD-AFF",
        "NodeResourcesFit" => "FIT",
        "NodeResourcesBalancedAllocation" => "BALANCED",
        "ImageLocality" => "IMAGES",
        other => other,
    }
}

/// How many node names a line or a rejection reason lists before it summarises them
/// (`-o wide` lists them all).
const NAMES_IN_LINE: usize = 5;

/// `names` in a line: all of them when few or `wide`, else their count as `what`s.
fn node_list(names: &[&str], what: &str, wide: bool) -> String {
    if wide || names.len() <= NAMES_IN_LINE {
        names.join(", ")
    } else {
        format!("{} (-o wide lists them)", super::plural(names.len(), what))
    }
}

/// kube-scheduler's node sampling, in a sentence.
fn sampling_line(sampling: &Sampling, wide: bool) -> String {
    let size = &sampling.size;
    let names: Vec<&str> = sampling.could_pick.iter().map(String::as_str).collect();
    let could_pick = match names.as_slice() {
        [only] => format!("only {only} could be its pick"),
        _ => format!(
            "any of {} could be its pick",
            node_list(&names, "node", wide)
        ),
    };
    format!(
        "kube-scheduler scores only the first {} feasible nodes it finds ({}), from where its previous cycle stopped; {could_pick}, judged by the scores over every feasible node.",
        size.nodes_to_find,
        size.describe()
    )
}

/// `-o name`: `node/NAME` of the selected node; nothing when the pod stays pending.
pub fn selected_name(explanation: &Explanation) -> String {
    explanation
        .decision
        .selected
        .as_ref()
        .map(|node| format!("node/{node}\n"))
        .unwrap_or_default()
}

/// The explanation for people, [`super::terminal_safe`]: names come from manifests and the
/// cluster. `headers: false` is `--no-headers`: the column header rows are left out.
pub fn render(explanation: &Explanation, top: usize, wide: bool, headers: bool) -> String {
    let mut out = explanation
        .context
        .as_ref()
        .map(|c| render_context(c, headers))
        .unwrap_or_default();
    let decision = &explanation.decision;
    let pod = &explanation.pod;
    if let Some(admission) = &explanation.admission {
        let verdict = if admission.admitted {
            "the kubelet admits it".to_string()
        } else {
            format!(
                "the kubelet would not admit it: {}",
                admission.reasons.join(", ")
            )
        };
        let _ = writeln!(
            out,
            "Pod {}/{} names node {} in spec.nodeName, so it is not scheduled; {verdict}.",
            pod.namespace, pod.name, admission.node
        );
        return out;
    }
    let feasible: Vec<&NodeVerdict> = decision.nodes.iter().filter(|v| v.feasible).collect();
    match decision.selected_verdict() {
        Some(selected) => {
            let _ = write!(
                out,
                "Pod {}/{} would land on node {} (score {}",
                pod.namespace,
                pod.name,
                selected.name,
                selected.score.unwrap_or(0)
            );
            if decision.tied.len() > 1 {
                let others: Vec<&str> = decision
                    .tied
                    .iter()
                    .copied()
                    .filter(|n| *n != selected.name)
                    .collect();
                let _ = write!(
                    out,
                    "; tied with {}, picked by name where the scheduler would pick at random",
                    node_list(&others, "other node", wide)
                );
            }
            let _ = writeln!(
                out,
                ").\n{} of {} nodes are feasible.",
                feasible.len(),
                decision.nodes.len()
            );
            if let Some(sampling) = &explanation.sampling {
                let _ = writeln!(out, "{}", sampling_line(sampling, wide));
            }
            if let Some(why) = why_line(
                selected,
                &feasible,
                &explanation.weights,
                explanation.chosen_by.as_deref(),
            ) {
                let _ = writeln!(out, "{why}");
            }
        }
        None => match explanation
            .preemption
            .as_ref()
            .and_then(|p| Some((p, p.node.as_ref()?)))
        {
            Some((preemption, node)) => {
                let _ = writeln!(
                    out,
                    "Pod {}/{} fits no node as it is; it would preempt {} on node {node} and be nominated there.",
                    pod.namespace,
                    pod.name,
                    super::plural(preemption.victims.len(), "pod")
                );
            }
            None => match &explanation.not_modelled {
                Some(scheduler) => {
                    let _ = writeln!(
                        out,
                        "Pod {}/{} goes to scheduler {scheduler:?}, which this preview does not model: it cannot say where, or whether, the pod lands.",
                        pod.namespace, pod.name
                    );
                    return out;
                }
                None => {
                    let _ = writeln!(
                        out,
                        "Pod {}/{} would stay Pending.",
                        pod.namespace, pod.name
                    );
                }
            },
        },
    }
    if !decision.problems.is_empty() {
        out.push_str("\nProblems in the pod spec (the terms involved match nothing):\n");
        for problem in &decision.problems {
            let _ = writeln!(out, "  {problem}");
        }
    }
    if !feasible.is_empty() {
        let mut ranked = feasible.clone();
        ranked.sort_by(|a, b| b.score.cmp(&a.score).then_with(|| a.name.cmp(b.name)));
        let plugins: Vec<&str> = DEFAULT_SCORE_WEIGHTS
            .iter()
            .map(|(p, _)| *p)
            .filter(|p| ranked[0].scores.contains_key(p))
            .collect();
        let mut header = vec!["NODE", "SCORE"];
        header.extend(plugins.iter().map(|p| short_name(p)));
        let mut t = table(&header);
        let shown = if wide {
            ranked.len()
        } else {
            top.min(ranked.len())
        };
        for verdict in &ranked[..shown] {
            let mut row = vec![
                verdict.name.to_string(),
                verdict.score.unwrap_or(0).to_string(),
            ];
            row.extend(plugins.iter().map(|p| verdict.scores[*p].to_string()));
            t.add_row(row);
        }
        out.push('\n');
        out.push_str(&render_table(&t, headers));
        if shown < ranked.len() {
            let _ = writeln!(
                out,
                "... and {} more feasible node(s) (-o wide lists all)",
                ranked.len() - shown
            );
        }
    }
    let mut rejected: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    for verdict in decision.nodes.iter().filter(|v| !v.feasible) {
        rejected
            .entry(verdict.reasons.first().map_or("", String::as_str))
            .or_default()
            .push(verdict.name);
    }
    if !rejected.is_empty() {
        let mut t = table(&["REJECTED", "REASON", "NODES"]);
        for (reason, nodes) in &rejected {
            let mut names = nodes[..nodes.len().min(NAMES_IN_LINE)].join(", ");
            if nodes.len() > NAMES_IN_LINE && !wide {
                let _ = write!(names, ", ... {} more", nodes.len() - NAMES_IN_LINE);
            } else if nodes.len() > NAMES_IN_LINE {
                names = nodes.join(", ");
            }
            t.add_row(vec![nodes.len().to_string(), reason.to_string(), names]);
        }
        out.push('\n');
        out.push_str(&render_table(&t, headers));
    }
    if let Some(summary) = &decision.summary {
        let _ = writeln!(out, "\n{summary}");
    }
    if let Some(preemption) = &explanation.preemption {
        out.push_str(&render_preemption(preemption, headers));
    }
    if let Some(detail) = &explanation.node_detail {
        out.push('\n');
        out.push_str(&render_node(detail, explanation, headers));
    }
    if let Some(drift) = &explanation.drift {
        out.push('\n');
        out.push_str(&super::drift::explain_section(
            drift,
            &explanation.weights,
            headers,
        ));
    }
    super::terminal_safe(&out).into_owned()
}

/// The candidates preemption weighed: victims, budget violations, and the rule each lost on.
fn render_preemption(preemption: &Preemption, headers: bool) -> String {
    let mut out = String::new();
    for note in &preemption.notes {
        let _ = writeln!(out, "Note: {note}");
    }
    if preemption.candidates.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "\nPreemption (pod priority {}): {} candidate node(s)",
        preemption.priority,
        preemption.candidates.len()
    );
    let mut t = table(&["CANDIDATE", "VICTIMS", "PDB-VIOLATIONS", "OUTCOME"]);
    for candidate in &preemption.candidates {
        let victims: Vec<String> = candidate
            .victims
            .iter()
            .map(|v| format!("{}/{} ({})", v.namespace, v.name, v.priority))
            .collect();
        t.add_row(vec![
            candidate.node.clone(),
            victims.join(", "),
            candidate.budget_violations.to_string(),
            match &candidate.lost {
                Some(lost) => format!("lost on {lost}"),
                None => "nominated".to_string(),
            },
        ]);
    }
    out.push_str(&render_table(&t, headers));
    out
}

/// The plan around the pod: what it is part of, what was placed before it, where its
/// inherited terms come from, and what the solvers say.
fn render_context(context: &Context, headers: bool) -> String {
    let mut out = format!("Within {}\n", context.within);
    if let Some(restricted) = &context.restricted_to {
        let _ = writeln!(out, "Decided within {restricted}");
    }
    if !context.assumed.is_empty() {
        out.push_str("Placed earlier in the plan (assumed):\n");
        for a in &context.assumed {
            let _ = writeln!(out, "  {} on {}", a.pod, a.node);
        }
    }
    if !context.inherited.is_empty() {
        out.push_str("Inherited terms:\n");
        let mut t = table(&["TERM", "EXPRESSION", "FROM", "RECORDED"]);
        for term in &context.inherited {
            t.add_row(vec![
                term.term.clone(),
                term.expression.clone(),
                format!(
                    "{}/{}/{}",
                    term.source.kind, term.source.namespace, term.source.name
                ),
                term.recorded.clone(),
            ]);
        }
        out.push_str(&render_table(&t, headers));
    }
    if let Some(solvers) = &context.solvers {
        let node = |n: &Option<String>| n.clone().unwrap_or_else(|| "<pending>".to_string());
        let _ = writeln!(
            out,
            "Flow solver: {} ({}; total cost of the batch {})",
            node(&solvers.flow),
            solvers.note,
            solvers.total_cost
        );
        let _ = writeln!(out, "Greedy solver: {}", node(&solvers.greedy));
    }
    if !context.notes.is_empty() {
        out.push_str("Notes:\n");
        for note in &context.notes {
            let _ = writeln!(out, "  {note}");
        }
    }
    out.push('\n');
    out
}

/// What set the winner apart from the best other node: weighted score differences by plugin.
/// Why the selected node beat the runner-up; `chosen_by` is what a planner adds to the
/// engine's scores when it picked a node that scores less.
fn why_line(
    selected: &NodeVerdict,
    feasible: &[&NodeVerdict],
    weights: &BTreeMap<String, i64>,
    chosen_by: Option<&str>,
) -> Option<String> {
    let runner_up = feasible
        .iter()
        .filter(|v| v.name != selected.name)
        .max_by(|a, b| a.score.cmp(&b.score).then_with(|| b.name.cmp(a.name)))?;
    let mut parts: Vec<(i64, String)> = selected
        .scores
        .iter()
        .filter_map(|(plugin, score)| {
            let weight = weights.get(plugin).copied().unwrap_or(0);
            let diff = (score - runner_up.scores.get(plugin).copied().unwrap_or(0)) * weight;
            (diff != 0).then(|| (diff, format!("{plugin} {diff:+}")))
        })
        .collect();
    parts.sort_by(|a, b| b.0.abs().cmp(&a.0.abs()).then_with(|| a.1.cmp(&b.1)));
    let lead = selected.score.unwrap_or(0) - runner_up.score.unwrap_or(0);
    if lead < 0
        && let Some(planner) = chosen_by
    {
        return Some(format!(
            "Why: {planner}; {} scores {} more.",
            runner_up.name, -lead
        ));
    }
    // Else only a nominated node is chosen over a better score (see `Scheduler::decide`).
    if lead < 0 {
        return Some(format!(
            "Why: it is the pod's nominated node (status.nominatedNodeName), which kube-scheduler \
             takes whenever it still fits; {} scores {} more.",
            runner_up.name, -lead
        ));
    }
    Some(if parts.is_empty() {
        format!(
            "Why: it scores the same as {} on every plugin.",
            runner_up.name
        )
    } else {
        format!(
            "Why: it leads {} by {lead}: {}.",
            runner_up.name,
            parts
                .into_iter()
                .map(|(_, p)| p)
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

fn render_node(detail: &NodeDetail, explanation: &Explanation, headers: bool) -> String {
    let mut out = String::new();
    let verdict = if detail.feasible {
        "feasible"
    } else {
        "rejected"
    };
    let selected = explanation.decision.selected.as_deref().unwrap_or("none");
    let _ = writeln!(
        out,
        "Node {}: {verdict}{} (selected: {selected})",
        detail.node,
        detail
            .total
            .map(|t| format!(", score {t}"))
            .unwrap_or_default()
    );
    let mut t = table(&["FILTER", "RESULT", "DETAIL"]);
    for f in &detail.filters {
        let result = if f.passed {
            "pass".to_string()
        } else {
            format!("FAIL: {}", f.reasons.join("; "))
        };
        t.add_row(vec![f.plugin.to_string(), result, f.detail.clone()]);
    }
    out.push_str(&render_table(&t, headers));
    out.push('\n');
    let mut t = table(&["SCORE", "RAW", "NORMALIZED", "WEIGHT", "WEIGHTED", "DETAIL"]);
    for s in &detail.scores {
        t.add_row(vec![
            s.plugin.clone(),
            s.raw.to_string(),
            s.normalized.to_string(),
            s.weight.to_string(),
            (s.normalized * s.weight).to_string(),
            s.detail.clone(),
        ]);
    }
    out.push_str(&render_table(&t, headers));
    out
}

/// The objects `explain-placement -o custom-columns` prints a row each for: the nodes.
pub fn rows(explanation: &serde_json::Value) -> Vec<&serde_json::Value> {
    explanation
        .get("nodes")
        .and_then(serde_json::Value::as_array)
        .map(|nodes| nodes.iter().collect())
        .unwrap_or_default()
}
