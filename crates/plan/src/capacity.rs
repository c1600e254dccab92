//! The node-count search (`plan --how-many-nodes NODE`): the smallest number of new nodes
//! shaped like NODE that lets every planned operation, gang and pod fit, found by planning
//! with the engine, not estimated.
//!
//! cluster-capacity answers the opposite question (how many copies of one pod fit the nodes
//! there are) by scheduling copies until one fails. Here the plan is rerun for a node count
//! that doubles from 1 until everything fits, then the count is bisected between the last
//! count that did not fit and the first that did. That assumes more identical empty nodes
//! never make a plan worse, which holds for resources, filters and gangs; scores that spread
//! pods (topology spread, anti-affinity) can in principle make a larger count place worse, so
//! the answer is the count N the search proves (N fits, N-1 does not), shown with every
//! trial, and a smaller count could fit in such a plan.

use std::cell::OnceCell;
use std::collections::BTreeMap;

use serde::Serialize;

use super::what_if::{MAX_ADDED_NODES, NodeCopies};
use super::{OpStatus, Plan, PlanError, PlanOptions, plan_all};
use df_engine::Profiles;
use df_manifest::ManifestSet;
use df_model::Node;
use df_state::ClusterState;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CapacityError {
    #[error("node count search: node {0:?} to copy is not in the cluster state")]
    UnknownTemplate(String),
    #[error(
        "node count search: the most nodes to try must be from 1 to {MAX_ADDED_NODES}, not {0}"
    )]
    Bound(usize),
}

/// The search's answer (`plan --how-many-nodes -o json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NodeCount {
    /// The node the new nodes are shaped like.
    pub template: String,
    /// The most new nodes tried.
    pub max: usize,
    /// The smallest count found that makes everything fit; `null` when `max` does not.
    pub nodes: Option<usize>,
    /// Every count planned, in the order tried.
    pub trials: Vec<Trial>,
    /// When even `max` nodes leave something out: the first thing left out, and why.
    pub blocking_reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Trial {
    /// New nodes added.
    pub nodes: usize,
    pub fits: bool,
    /// Operations and pods left without a node (a gang waiting for pods counts as one).
    pub unplaced: usize,
}

/// Search the smallest number of nodes like `template` (at most `max`) that makes the plan of
/// `manifests` fit. The nodes are added to `state` and dropped again one by one, so the state is
/// read once; it is left as it came. `progress` hears of each trial as it ends.
pub fn how_many_nodes(
    manifests: &ManifestSet,
    state: &mut ClusterState,
    template: &str,
    max: usize,
    profiles: &Profiles,
    opts: &PlanOptions,
    progress: &mut dyn FnMut(&Trial),
) -> Result<NodeCount, PlanError> {
    if !(1..=MAX_ADDED_NODES).contains(&max) {
        return Err(CapacityError::Bound(max).into());
    }
    let template_node = state
        .node(template)
        .ok_or_else(|| CapacityError::UnknownTemplate(template.to_string()))?;
    let mut search = Search {
        base: state.nodes.len(),
        copies: NodeCopies::new(state, template_node),
        made: Vec::new(),
        tried: BTreeMap::new(),
        trials: Vec::new(),
    };
    // The first pod the API server rejects in the plan without new nodes.
    let rejected = OnceCell::new();
    let mut fits = |state: &mut ClusterState, count: usize| -> Result<bool, PlanError> {
        search.resize(state, count);
        if let Some(&(fits, _)) = search.tried.get(&count) {
            return Ok(fits);
        }
        let plan = plan_all(manifests, state, profiles.clone(), opts)?;
        let (unplaced, reason) = left_out(&plan);
        if let Some(first) = rejected_at_admission(&plan).filter(|_| count == 0) {
            // Nodes cannot change admission: the search stops after this trial.
            let _ = rejected.set(first);
        }
        let trial = Trial {
            nodes: count,
            fits: !plan.has_findings(),
            unplaced,
        };
        progress(&trial);
        search.tried.insert(count, (trial.fits, reason));
        let fits = trial.fits;
        search.trials.push(trial);
        Ok(fits)
    };
    let answer = 'search: {
        if fits(state, 0)? {
            break 'search Some(0);
        }
        if rejected.get().is_some() {
            break 'search None;
        }
        let (mut low, mut high) = (0, 1);
        while !fits(state, high)? {
            if high == max {
                break 'search None;
            }
            low = high;
            high = (high * 2).min(max);
        }
        while high - low > 1 {
            let middle = low + (high - low) / 2;
            if fits(state, middle)? {
                high = middle;
            } else {
                low = middle;
            }
        }
        Some(high)
    };
    let blocking_reason = match answer {
        None => rejected.get().cloned().or_else(|| {
            search
                .tried
                .get(&max)
                .and_then(|(_, reason)| reason.clone())
        }),
        Some(_) => None,
    };
    search.resize(state, 0);
    Ok(NodeCount {
        template: template.to_string(),
        max,
        nodes: answer,
        trials: search.trials,
        blocking_reason,
    })
}

/// The search's nodes and what each count gave.
struct Search {
    /// Nodes in the state before the search.
    base: usize,
    copies: NodeCopies,
    /// The copies made so far, in order: count N uses the first N.
    made: Vec<Node>,
    /// Per count tried: whether it fits and the first thing left out.
    tried: BTreeMap<usize, (bool, Option<String>)>,
    trials: Vec<Trial>,
}

impl Search {
    /// Leave exactly `count` copies in the state.
    fn resize(&mut self, state: &mut ClusterState, count: usize) {
        state.truncate_empty_nodes(self.base + count.min(state.nodes.len() - self.base));
        while self.made.len() < count {
            let node = self.copies.next().expect("copies never run out");
            self.made.push(node);
        }
        for node in &self.made[state.nodes.len() - self.base..count] {
            state.push_empty_node(node.clone());
        }
    }
}

/// The first operation, gang pod or pod the API server rejects at admission (LimitRange,
/// ResourceQuota), with its words and why more nodes cannot help.
fn rejected_at_admission(plan: &Plan) -> Option<String> {
    const REJECTED: &str = "rejected at admission: ";
    let operations = plan.operations.iter().find_map(|op| {
        let warning = op.warnings.iter().find(|w| w.starts_with(REJECTED))?;
        Some(format!(
            "{}/{}/{}: {warning}",
            op.kind, op.namespace, op.name
        ))
    });
    let gangs = || {
        plan.groups.iter().find_map(|g| {
            let reason = g.rejected_at_admission.values().next()?;
            Some(format!(
                "{} {}/{}: {REJECTED}{reason}",
                g.kind, g.namespace, g.name
            ))
        })
    };
    let pods = || {
        plan.batch.iter().flat_map(|b| &b.pods).find_map(|pod| {
            pod.note
                .starts_with(REJECTED)
                .then(|| format!("Pod/{}/{}: {}", pod.namespace, pod.name, pod.note))
        })
    };
    let first = operations.or_else(gangs).or_else(pods)?;
    Some(format!(
        "{first} (new nodes do not change what the API server admits)"
    ))
}

/// How many operations and pods the plan leaves without a node, and the first of them with why.
fn left_out(plan: &Plan) -> (usize, Option<String>) {
    let mut count = 0;
    let mut first = None;
    let mut note = |subject: String, reason: &str| {
        count += 1;
        first.get_or_insert_with(|| format!("{subject}: {reason}"));
    };
    for op in &plan.operations {
        if matches!(op.status, OpStatus::Unschedulable | OpStatus::Blocked) {
            let reason = op
                .summary
                .as_deref()
                .or(op.warnings.first().map(String::as_str));
            note(
                format!("{}/{}/{}", op.kind, op.namespace, op.name),
                reason.unwrap_or(op.status.as_str()),
            );
        }
    }
    for group in plan.groups.iter().filter(|g| g.leaves_pods_pending()) {
        let reason = group
            .blocked
            .first()
            .map_or(group.summary.as_str(), |b| b.reason.as_str());
        let subject = format!("{} {}/{}", group.kind, group.namespace, group.name);
        let pending = group.pods.iter().filter(|p| p.node.is_none()).count();
        for _ in 0..pending.max(1) {
            note(subject.clone(), reason);
        }
    }
    for pod in plan.batch.iter().flat_map(|b| &b.pods) {
        if pod.node.is_none() {
            note(format!("Pod/{}/{}", pod.namespace, pod.name), &pod.note);
        }
    }
    (count, first)
}
