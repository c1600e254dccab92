//! Human output of drift: one running pod against the engine's choice now
//! (`explain-placement --compare`), and a namespace's summary (`plan --pending --compare`).

use std::collections::BTreeMap;
use std::fmt::Write;

use super::{render_table, table};
use df_engine::profile::DEFAULT_SCORE_WEIGHTS;
use df_plan::drift::{Drift, DriftStatus, DriftSummary};

/// How many drifted pods the plan's table lists (JSON lists them all).
const LISTED: usize = 5;

/// `node (score N)`, or the node alone when it has no score.
fn scored(node: &str, score: Option<i64>) -> String {
    match score {
        Some(score) => format!("{node} (score {score})"),
        None => node.to_string(),
    }
}

/// The one-line verdict on a pod's node.
fn headline(drift: &Drift) -> String {
    let pod = format!("{}/{}", drift.namespace, drift.name);
    let chosen = drift.chosen.as_deref().unwrap_or_default();
    match drift.status {
        DriftStatus::Same => format!(
            "{pod} runs on {}, where the engine would put it now.",
            scored(&drift.node, drift.node_score)
        ),
        DriftStatus::Tied => format!(
            "{pod} runs on {}, tied for the top score with {chosen}: no drift.",
            scored(&drift.node, drift.node_score)
        ),
        DriftStatus::Outscored => format!(
            "{pod} runs on {}; the engine would put it on {} now ({:+}).",
            scored(&drift.node, drift.node_score),
            scored(chosen, drift.chosen_score),
            drift.difference.unwrap_or_default()
        ),
        DriftStatus::FilteredOut => {
            let now = match &drift.chosen {
                Some(node) => format!("it would put it on {}", scored(node, drift.chosen_score)),
                None => "no node fits it now".to_string(),
            };
            format!(
                "{pod} runs on {}, which the engine would now filter out ({}); {now}.",
                drift.node,
                drift.reasons.join(", ")
            )
        }
    }
}

/// `explain-placement --compare`: the verdict, then both nodes' scores per plugin with the
/// weighted difference, when both nodes are feasible and differ.
pub(crate) fn explain_section(
    drift: &Drift,
    weights: &BTreeMap<String, i64>,
    headers: bool,
) -> String {
    let mut out = format!("Drift: {}\n", headline(drift));
    let Some(chosen) = drift.chosen.as_deref().filter(|c| *c != drift.node) else {
        return out;
    };
    if drift.node_scores.is_empty() || drift.chosen_scores.is_empty() {
        return out;
    }
    let runs = format!("{} (runs)", drift.node);
    let picks = format!("{chosen} (chosen)");
    let mut t = table(&["PLUGIN", "WEIGHT", &runs, &picks, "WEIGHTED DIFFERENCE"]);
    // The default profile's order, as the explanation's own table.
    let plugins = DEFAULT_SCORE_WEIGHTS
        .iter()
        .filter_map(|(plugin, _)| Some((*plugin, drift.node_scores.get(plugin)?)));
    for (plugin, mine) in plugins {
        let theirs = drift.chosen_scores.get(plugin).copied().unwrap_or_default();
        let weight = weights.get(plugin).copied().unwrap_or_default();
        t.add_row(vec![
            plugin.to_string(),
            weight.to_string(),
            mine.to_string(),
            theirs.to_string(),
            format!("{:+}", weight * (theirs - mine)),
        ]);
    }
    t.add_row(vec![
        "TOTAL".to_string(),
        String::new(),
        drift.node_score.unwrap_or_default().to_string(),
        drift.chosen_score.unwrap_or_default().to_string(),
        format!("{:+}", drift.difference.unwrap_or_default()),
    ]);
    out.push_str(&render_table(&t, headers));
    out
}

/// `plan --pending --compare`: how many running pods drifted, the first few, and what it may
/// mean.
pub(crate) fn plan_section(summary: &DriftSummary, headers: bool) -> String {
    let scope = match &summary.namespace {
        Some(ns) => format!("in namespace {ns}"),
        None => "in every namespace".to_string(),
    };
    let mut out = format!(
        "Drift {scope}: {} of {} sit where the engine would not put them now",
        summary.drifted,
        super::plural(summary.compared, "running kube-scheduler pod")
    );
    if summary.skipped > 0 {
        let _ = write!(
            out,
            " ({} more not compared: each costs a scheduling cycle)",
            summary.skipped
        );
    }
    out.push_str(".\n");
    if summary.pods.is_empty() {
        return out;
    }
    let mut t = table(&["POD", "RUNS ON", "ENGINE NOW", "WHY"]);
    for drift in summary.pods.iter().take(LISTED) {
        let why = match drift.status {
            DriftStatus::FilteredOut => drift.reasons.join(", "),
            _ => format!("outscored by {:+}", drift.difference.unwrap_or_default()),
        };
        t.add_row(vec![
            format!("{}/{}", drift.namespace, drift.name),
            scored(&drift.node, drift.node_score),
            drift
                .chosen
                .as_deref()
                .map(|node| scored(node, drift.chosen_score))
                .unwrap_or_else(|| "<none fits>".to_string()),
            why,
        ]);
    }
    out.push_str(&render_table(&t, headers));
    if summary.pods.len() > LISTED {
        let _ = writeln!(
            out,
            "... and {} more (-o json lists all)",
            summary.pods.len() - LISTED
        );
    }
    if let Some(note) = &summary.note {
        let _ = writeln!(out, "This may mean: {note}.");
    }
    out
}
