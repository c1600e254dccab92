//! Rendering what moved between two plans (the what-if effect, `plan --against`) and the
//! node-count search's answer.

use df_plan::capacity::NodeCount;
use df_plan::diff::{PlanDiff, Spot};

/// `title`, the placed pods of each part before and after, then one row per subject that
/// moved (or `Nothing moved.`).
pub fn diff_section(title: &str, diff: &PlanDiff, headers: bool) -> String {
    let placed: Vec<String> = diff
        .placed
        .iter()
        .map(|p| format!("{} {} -> {}", p.part, p.before, p.after))
        .collect();
    let mut out = format!("{title} (placed: {})\n", placed.join(", "));
    if diff.moved.is_empty() {
        out.push_str("Nothing moved.\n");
        return out;
    }
    let mut t = super::table(&["SUBJECT", "BEFORE", "AFTER", "REASON"]);
    for m in &diff.moved {
        t.add_row(vec![
            m.subject.clone(),
            spot_text(&m.before),
            spot_text(&m.after),
            m.reason.clone().unwrap_or_else(|| "-".into()),
        ]);
    }
    out.push_str(&super::render_table(&t, headers));
    out
}

/// The node, or the status where there is none.
fn spot_text(spot: &Spot) -> String {
    spot.node.clone().unwrap_or_else(|| spot.status.clone())
}

/// The answer on one line, then every count tried.
pub fn node_count_table(count: &NodeCount, headers: bool) -> String {
    let mut out = match (count.nodes, &count.blocking_reason) {
        (Some(0), _) => format!(
            "Everything fits without new nodes like {}.\n",
            count.template
        ),
        (Some(n), _) => format!(
            "{} like {} {} every planned operation, gang and pod fit ({} {} not).\n",
            super::plural(n, "node"),
            count.template,
            if n == 1 { "makes" } else { "make" },
            n - 1,
            if n == 2 { "does" } else { "do" }
        ),
        (None, reason) => format!(
            "Does not fit with any number of nodes like {} up to {}: {}\n",
            count.template,
            count.max,
            reason.as_deref().unwrap_or("-")
        ),
    };
    let mut t = super::table(&["NODES", "FITS", "UNPLACED"]);
    for trial in &count.trials {
        t.add_row(vec![
            trial.nodes.to_string(),
            if trial.fits { "yes" } else { "no" }.to_string(),
            trial.unplaced.to_string(),
        ]);
    }
    out.push_str(&super::render_table(&t, headers));
    super::terminal_safe(&out).into_owned()
}
