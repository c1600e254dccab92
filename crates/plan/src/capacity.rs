//! The node-count search (`plan --how-many-nodes NODE`): the smallest number of new nodes
//! shaped like NODE that lets every planned operation, gang and pod fit, found by planning
//! with the engine, not estimated.
//!
//! cluster-capacity answers the opposite question (how many copies of one pod fit the nodes
//! there are) by scheduling copies until one fails. Here the plan is rerun for node counts
//! chosen by what the trials so far placed: after 0 and 1 new nodes, the count that would
//! place the rest at the pods per new node seen (doubling while new nodes place nothing), then
//! that estimate and bisection take turns between the last count that did not fit and the
//! first that did ([`Bracket`]). A backlog of like pods is answered in four plans: 0, 1, the
//! estimate, and one fewer to prove it. That assumes more identical empty nodes
//! never make a plan worse, which holds for resources, filters and gangs; scores that spread
//! pods (topology spread, anti-affinity) can in principle make a larger count place worse, so
//! the answer is the count N the search proves (N fits, N-1 does not), shown with every
//! trial, and a smaller count could fit in such a plan.

use std::cell::OnceCell;

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
        last_reason: None,
        trials: Vec::new(),
    };
    // The first pod the API server rejects in the plan without new nodes.
    let rejected = OnceCell::new();
    // Whether `count` new nodes make everything fit, and what they leave unplaced.
    let fits = |count: usize| -> Result<(bool, usize), PlanError> {
        search.resize(state, count);
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
        search.last_reason = reason;
        let answer = (trial.fits, trial.unplaced);
        search.trials.push(trial);
        Ok(answer)
    };
    let answer = smallest_count(max, fits, || rejected.get().is_some())?;
    // The search gives up after the rejecting plan without nodes, or after `max` did not fit.
    let blocking_reason = match answer {
        None => rejected
            .get()
            .cloned()
            .or_else(|| search.last_reason.clone()),
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

/// The smallest count that `fits` (count -> whether it fits, and what it leaves unplaced)
/// proves, at most `max`: 0 first, then 1, then what [`Bracket`] asks for. `None` when `max`
/// does not fit, or when `give_up` says so after 0.
fn smallest_count<E>(
    max: usize,
    mut fits: impl FnMut(usize) -> Result<(bool, usize), E>,
    give_up: impl Fn() -> bool,
) -> Result<Option<usize>, E> {
    let (none_needed, unplaced_without) = fits(0)?;
    if none_needed {
        return Ok(Some(0));
    }
    if give_up() {
        return Ok(None);
    }
    let mut bracket = Bracket::new(unplaced_without);
    let mut count = 1;
    loop {
        let (count_fits, unplaced) = fits(count)?;
        if !count_fits && count == max {
            return Ok(None);
        }
        bracket.record(count, count_fits, unplaced);
        match bracket.next(max) {
            Some(next) => count = next,
            None => return Ok(bracket.fits),
        }
    }
}

/// What the counts tried so far say: the largest that does not fit (at first 0), the
/// smallest that fits, and so how many pods each new node places.
struct Bracket {
    /// The largest count known not to fit, with what it leaves unplaced.
    short: (usize, usize),
    /// What no new node leaves unplaced.
    unplaced_without: usize,
    /// The smallest count known to fit.
    fits: Option<usize>,
    /// Whether the last probe inside the bracket was the estimate: the next one halves it.
    estimated: bool,
}

impl Bracket {
    fn new(unplaced_without: usize) -> Bracket {
        Bracket {
            short: (0, unplaced_without),
            unplaced_without,
            fits: None,
            estimated: false,
        }
    }

    fn record(&mut self, count: usize, fits: bool, unplaced: usize) {
        if fits {
            self.fits = Some(self.fits.map_or(count, |f| f.min(count)));
        } else if count >= self.short.0 {
            self.short = (count, unplaced);
        }
    }

    /// The count to try next, `None` once the answer is proved (it fits, one fewer does not).
    /// The estimate: the count that places the rest at the pods per new node seen so far.
    /// Until a count fits it is tried (or the count doubles, while new nodes place nothing);
    /// then the estimate and the middle of the bracket take turns, so that a wrong estimate
    /// costs at most the bisection's trials twice over.
    fn next(&mut self, max: usize) -> Option<usize> {
        let (short, unplaced) = self.short;
        let placed = self.unplaced_without.saturating_sub(unplaced);
        let estimate = (short > 0 && placed > 0).then(|| {
            let per_node = placed as f64 / short as f64;
            short + (unplaced as f64 / per_node).ceil() as usize
        });
        match self.fits {
            Some(fits) if fits - short <= 1 => None,
            Some(fits) => {
                let middle = short + (fits - short) / 2;
                let guess = match estimate.filter(|_| !self.estimated) {
                    Some(estimate) => {
                        self.estimated = true;
                        estimate.clamp(short + 1, fits - 1)
                    }
                    None => {
                        self.estimated = false;
                        middle
                    }
                };
                Some(guess)
            }
            None => {
                let doubled = (short * 2).max(short + 1);
                Some(estimate.unwrap_or(doubled).max(short + 1).min(max))
            }
        }
    }
}

/// The search's nodes and what each count gave.
struct Search {
    /// Nodes in the state before the search.
    base: usize,
    copies: NodeCopies,
    /// The copies made so far, in order: count N uses the first N.
    made: Vec<Node>,
    /// The first thing the latest trial left out.
    last_reason: Option<String>,
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

#[cfg(test)]
mod tests {
    use super::smallest_count;

    /// The counts the search tries for a plan that leaves `unplaced(count)` pods out, up to
    /// `max`, and its answer.
    fn trials(unplaced: impl Fn(usize) -> usize, max: usize) -> (Vec<usize>, Option<usize>) {
        let mut tried = Vec::new();
        let fits = |count: usize| -> Result<(bool, usize), ()> {
            tried.push(count);
            Ok((unplaced(count) == 0, unplaced(count)))
        };
        let answer = smallest_count(max, fits, || false).unwrap();
        (tried, answer)
    }

    #[test]
    fn the_search_follows_the_pods_each_node_places() {
        type Case = (
            &'static str,
            fn(usize) -> usize,
            usize,
            &'static [usize],
            Option<usize>,
        );
        let cases: &[Case] = &[
            // 1,000 pods, 4 a node: 1 node leaves 996, so 4 a node, 1 + 996/4 = 250 fits;
            // 249 leaves 4 out: proved in four plans (the doubling took 0..512 then 9 more).
            (
                "like pods",
                |n| 1000usize.saturating_sub(4 * n),
                1000,
                &[0, 1, 250, 249],
                Some(250),
            ),
            // The CLI's table: 10 pods, 4 a node; 1 + ceil(6/4) = 3 fits, 2 does not.
            (
                "ten pods",
                |n| 10usize.saturating_sub(4 * n),
                1000,
                &[0, 1, 3, 2],
                Some(3),
            ),
            // A gang of 8 that needs 8 nodes at once: nothing is placed until then, so the
            // count doubles (1, 2, 4, 8), then 5..7 are bisected (6, then 7).
            (
                "gang of eight",
                |n| if n >= 8 { 0 } else { 8 },
                1000,
                &[0, 1, 2, 4, 8, 6, 7],
                Some(8),
            ),
            // Nodes place fewer pods than the first one did (the first takes 10, each later 1,
            // so n nodes leave 91 - n): the estimate comes up from below. 1 leaves 90 (10 a
            // node): 1 + 90/10 = 10; 10 leaves 81 (1.9 a node): 10 + ceil(42.6) = 53; 53 leaves
            // 38 (62/53 a node): 53 + ceil(32.5) = 86; 86 leaves 5 (95/86): 86 + ceil(4.5) = 91,
            // which fits; the estimate inside (86, 91) is 91, clamped to 90, which leaves 1.
            (
                "diminishing",
                |n| {
                    if n == 0 {
                        100
                    } else {
                        91usize.saturating_sub(n)
                    }
                },
                1000,
                &[0, 1, 10, 53, 86, 91, 90],
                Some(91),
            ),
            // One pod a node, more than `max` needed: the estimate is `max`, tried once.
            (
                "beyond max",
                |n| 1578usize.saturating_sub(n),
                1000,
                &[0, 1, 1000],
                None,
            ),
            // Nothing ever placed: doubling to `max`.
            ("never", |_| 1, 5, &[0, 1, 2, 4, 5], None),
            ("already fits", |_| 0, 5, &[0], Some(0)),
        ];
        for (name, unplaced, max, want, answer) in cases {
            assert_eq!(trials(unplaced, *max), (want.to_vec(), *answer), "{name}");
        }
    }
}
