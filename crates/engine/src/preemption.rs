//! Preemption as kube-scheduler's DefaultPreemption PostFilter plugin does it, run when no node
//! fits a pod: which nodes preemption might help, the victims it would evict on each
//! (`SelectVictimsOnNode`), the node it would nominate (`pickOneNodeForPreemption`), and,
//! when it cannot help, upstream's `preemption: ...` message that ends the pod's summary.
//!
//! Not modelled: nominated pods of other pending pods (the preview has none), extenders, and
//! upstream's random start offset over the candidate nodes (we start at the first node, so the
//! preview is deterministic; it matters only past 100 candidate nodes).

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde::Serialize;

use super::selector::label_selector_matches;
use super::{Code, Decision, NodeVerdict, Scheduler};
use crate::profile::{DEFAULT_PREEMPTION, DYNAMIC_RESOURCES, Point};
use df_model::{CompactString, Pod, PodDisruptionBudget};

/// DynamicResources' PostFilter for a pod without resource claims (1.34 and later).
pub(crate) const DRA_NO_CLAIMS: &str = "no new claims to deallocate";
/// DynamicResources' PostFilter when its PreFilter never ran (an earlier PreFilter rejected the
/// pod as UnschedulableAndUnresolvable): the cycle state's `ErrNotFound`.
pub(crate) const DRA_STATE_NOT_FOUND: &str = "not found";
/// A FailedScheduling summary without what the PostFilter plugins added: `0/N nodes are
/// available: ...` as the filters left it.
pub fn without_post_filter(summary: &str) -> &str {
    [DRA_NO_CLAIMS, DRA_STATE_NOT_FOUND, "preemption:"]
        .iter()
        .filter_map(|opening| summary.find(&format!(". {opening}")))
        .min()
        .map_or(summary, |end| &summary[..=end])
}

/// Upstream's status message for nodes where removing pods cannot make the pod fit.
pub(crate) const NOT_HELPFUL: &str = "Preemption is not helpful for scheduling";
/// Upstream's status message for nodes without lower-priority pods.
pub(crate) const NO_VICTIMS: &str = "No preemption victims found for incoming pod";
/// `PodEligibleToPreemptOthers` for `preemptionPolicy: Never`.
pub(crate) const NOT_ELIGIBLE_NEVER: &str = "not eligible due to preemptionPolicy=Never.";
/// `PodEligibleToPreemptOthers` while the victims of an earlier preemption are still leaving
/// the pod's nominated node.
pub(crate) const NOT_ELIGIBLE_TERMINATING: &str =
    "not eligible due to a terminating pod on the nominated node.";

/// DefaultPreemptionArgs defaults: at least 10% of the potential nodes, and at least 100 of
/// them, are dry-run before a node is picked.
const MIN_CANDIDATE_NODES_PERCENTAGE: usize = 10;
const MIN_CANDIDATE_NODES_ABSOLUTE: usize = 100;

/// A pod preemption would evict.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Victim {
    pub namespace: String,
    pub name: String,
    pub priority: i32,
    /// Evicting it would take a PodDisruptionBudget below its allowed disruptions.
    pub violates_budget: bool,
}

/// A node where evicting lower-priority pods makes room, and why it was or was not chosen.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    pub node: String,
    /// Most important first, as upstream orders them.
    pub victims: Vec<Victim>,
    pub budget_violations: usize,
    /// The ordering rule this candidate lost on, against the nominated node (`None` for it).
    pub lost: Option<String>,
}

/// The PostFilter's outcome for a pod no node fits.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Preemption {
    /// The node the pod would be nominated to, once the victims are gone.
    pub node: Option<String>,
    pub victims: Vec<Victim>,
    /// The pod's priority, as admission resolves it from the state's PriorityClasses.
    pub priority: i32,
    /// Every node where preemption would make room, the nominated one first.
    pub candidates: Vec<Candidate>,
    /// Upstream's PostFilter message when preemption cannot help (`preemption: ...`).
    pub message: Option<String>,
    /// What the preview had to assume (a PriorityClass missing from the state).
    pub notes: Vec<String>,
}

/// A potential victim while victims are selected: where it is placed and how important it is.
#[derive(Debug, Clone)]
struct Ranked {
    placed: usize,
    priority: i32,
    /// `None` (not started) counts as now, the latest possible start, as upstream's
    /// `GetPodStartTime` does.
    start_time: Option<CompactString>,
    violates_budget: bool,
}

/// Upstream's `MoreImportantPod`: higher priority first, then the one running longer.
fn more_important(a: &Ranked, b: &Ranked) -> Ordering {
    b.priority
        .cmp(&a.priority)
        .then_with(|| start_key(&a.start_time).cmp(&start_key(&b.start_time)))
}

/// Orders start times, unknown ones last (RFC 3339 UTC strings order as the times do).
fn start_key(start: &Option<CompactString>) -> (bool, &str) {
    (start.is_none(), start.as_deref().unwrap_or(""))
}

/// `calculateNumCandidates` with the default arguments.
fn candidates_wanted(potential_nodes: usize) -> usize {
    (potential_nodes * MIN_CANDIDATE_NODES_PERCENTAGE / 100)
        .max(MIN_CANDIDATE_NODES_ABSOLUTE)
        .min(potential_nodes)
}

/// Whether removing pods could make a node that failed the filters fit: upstream's
/// `nodesWherePreemptionMightHelp` keeps nodes whose status is `Unschedulable` and skips the
/// `UnschedulableAndUnresolvable` ones (wrong node name, taints, node affinity, an
/// unschedulable node, a missing topology label, unmatched required pod affinity).
fn preemption_might_help(verdict: &NodeVerdict) -> bool {
    !verdict.feasible && verdict.code == Some(Code::Unschedulable)
}

/// Split victims (already most important first) into those whose eviction would violate a
/// PodDisruptionBudget and the others, spending each budget's recorded allowance in order, as
/// upstream's `filterPodsWithPDBViolation` does.
fn mark_budget_violations(victims: &mut [Ranked], pods: &[&Pod], budgets: &[PodDisruptionBudget]) {
    let mut allowed: Vec<i64> = budgets
        .iter()
        .map(|b| i64::from(b.status.disruptions_allowed))
        .collect();
    for (victim, pod) in victims.iter_mut().zip(pods) {
        if pod.metadata.labels.is_empty() {
            continue;
        }
        for (i, budget) in budgets.iter().enumerate() {
            if budget.metadata.namespace != pod.metadata.namespace {
                continue;
            }
            let Some(selector) = &budget.spec.selector else {
                continue;
            };
            if selector.is_empty()
                || !label_selector_matches(selector, &pod.metadata.labels).unwrap_or(false)
            {
                continue;
            }
            if budget
                .status
                .disrupted_pods
                .contains_key(&pod.metadata.name)
            {
                continue;
            }
            allowed[i] -= 1;
            if allowed[i] < 0 {
                victim.violates_budget = true;
            }
        }
    }
}

/// Why a node gives preemption no candidate.
enum Unusable {
    /// No pod on it has a lower priority: counted as such, without its words per node.
    NoVictims,
    /// With every lower-priority pod off it, the pod still does not fit, for these reasons.
    StillUnfit(Vec<String>),
}

/// A candidate while the node is picked.
struct Found {
    node: usize,
    victims: Vec<Ranked>,
    budget_violations: usize,
}

/// One of `pickOneNodeForPreemption`'s rules: a score (higher wins) and how to show it.
struct Rule {
    what: &'static str,
    score: fn(&Found) -> (i64, String),
    show: fn(&Found) -> String,
}

const PICK_RULES: [Rule; 5] = [
    Rule {
        what: "fewer PodDisruptionBudget violations",
        score: |c| (-(c.budget_violations as i64), String::new()),
        show: |c| c.budget_violations.to_string(),
    },
    Rule {
        what: "a lower highest victim priority",
        score: |c| (-i64::from(c.victims[0].priority), String::new()),
        show: |c| c.victims[0].priority.to_string(),
    },
    Rule {
        // Upstream adds 2^31 to each priority so that more victims never sum lower.
        what: "a lower sum of victim priorities (each + 2^31)",
        score: |c| (-priority_sum(c), String::new()),
        show: |c| priority_sum(c).to_string(),
    },
    Rule {
        what: "fewer victims",
        score: |c| (-(c.victims.len() as i64), String::new()),
        show: |c| c.victims.len().to_string(),
    },
    Rule {
        what: "a later start of its earliest highest-priority victim",
        score: |c| {
            let (unknown, time) = start_key(earliest_top_start(c));
            (i64::from(unknown), time.to_string())
        },
        show: |c| {
            earliest_top_start(c)
                .as_deref()
                .unwrap_or("not started")
                .to_string()
        },
    },
];

fn priority_sum(c: &Found) -> i64 {
    c.victims
        .iter()
        .map(|v| i64::from(v.priority) + (1i64 << 31))
        .sum()
}

/// Upstream's `GetEarliestPodStartTime`: the earliest start among the highest-priority victims.
fn earliest_top_start(c: &Found) -> &Option<CompactString> {
    let top = c.victims[0].priority;
    c.victims
        .iter()
        .filter(|v| v.priority == top)
        .map(|v| &v.start_time)
        .min_by(|a, b| start_key(a).cmp(&start_key(b)))
        .unwrap_or(&c.victims[0].start_time)
}

/// Pick the node as `pickOneNodeForPreemption` does: each rule keeps the candidates with its
/// best score until one is left; past the last rule the first candidate wins (upstream: the
/// first of a map's random order; here node order). Returns the winner's index into `found`
/// and, per candidate, the index of the rule it lost on.
fn pick_one_node(found: &[Found]) -> (usize, Vec<Option<usize>>) {
    let mut lost_on: Vec<Option<usize>> = vec![None; found.len()];
    let mut remaining: Vec<usize> = (0..found.len()).collect();
    for (rule_index, rule) in PICK_RULES.iter().enumerate() {
        if remaining.len() == 1 {
            break;
        }
        let scores: Vec<(i64, String)> =
            remaining.iter().map(|&i| (rule.score)(&found[i])).collect();
        let Some(best) = scores.iter().max().cloned() else {
            break;
        };
        let mut kept = Vec::new();
        for (&i, score) in remaining.iter().zip(&scores) {
            if *score == best {
                kept.push(i);
            } else {
                lost_on[i] = Some(rule_index);
            }
        }
        remaining = kept;
    }
    let winner = remaining[0];
    for &i in &remaining[1..] {
        lost_on[i] = Some(PICK_RULES.len());
    }
    (winner, lost_on)
}

/// Upstream's `0/N nodes are available: ...` over per-reason node counts.
fn nodes_available(total: usize, counts: &BTreeMap<String, usize>) -> String {
    let mut parts: Vec<String> = counts
        .iter()
        .map(|(reason, count)| format!("{count} {reason}"))
        .collect();
    parts.sort();
    format!("0/{total} nodes are available: {}.", parts.join(", "))
}

impl<'a> Scheduler<'a> {
    /// The PostFilter: when `decision` placed nothing, preview preemption for `pod` and, when it
    /// cannot help, end the summary with upstream's `preemption: ...` message. `None` when the
    /// pod fits somewhere. The scheduler is left exactly as it was.
    pub fn preempt(&mut self, pod: &Pod, decision: &mut Decision) -> Option<Preemption> {
        if decision.selected.is_some() {
            return None;
        }
        let profile = self.profile_for(pod);
        // DynamicResources' PostFilter runs before DefaultPreemption's, in the releases that
        // enable DRA (the cycle says what it would say), each when the profile keeps it.
        let dra = decision
            .dra_post_filter
            .filter(|_| profile.runs(Point::PostFilter, DYNAMIC_RESOURCES));
        let default_preemption = profile.runs(Point::PostFilter, DEFAULT_PREEMPTION);
        if self.state.nodes.is_empty() || decision.aborted || !(dra.is_some() || default_preemption)
        {
            // Upstream's ErrNoNodesAvailable ends the cycle before any PostFilter runs; a pod
            // PreEnqueue holds never reaches one, nor does an attempt a filter error ended; a
            // profile without PostFilter plugins adds nothing.
            return None;
        }
        let preemption = if dra == Some(DRA_STATE_NOT_FOUND) {
            // DynamicResources' PreFilter never ran, so its PostFilter finds no cycle state and
            // fails with the state's error: the PostFilter plugins stop there and
            // DefaultPreemption never runs.
            Preemption {
                message: Some(DRA_STATE_NOT_FOUND.to_string()),
                ..Preemption::default()
            }
        } else if default_preemption {
            self.preemption(pod, &decision.nodes)
        } else {
            Preemption::default()
        };
        if let Some(summary) = &mut decision.summary
            && preemption.node.is_none()
        {
            // A PostFilter that succeeds ends the run with no message. Otherwise the framework
            // joins the PostFilter plugins' reasons with ", " and FitError appends them as they
            // are (`" %v"`).
            let mut reasons: Vec<&str> = Vec::new();
            reasons.extend(dra.filter(|r| *r != DRA_STATE_NOT_FOUND));
            reasons.extend(preemption.message.as_deref());
            if !reasons.is_empty() {
                summary.push(' ');
                summary.push_str(&reasons.join(", "));
            }
        }
        self.record_preemption(pod, decision, &preemption);
        Some(preemption)
    }

    fn preemption(&mut self, pod: &Pod, verdicts: &[NodeVerdict]) -> Preemption {
        let total = self.state.nodes.len();
        self.resolve_placed_priorities();
        let resolved = self.state.pod_priority(pod);
        let mut preemption = Preemption {
            node: None,
            victims: Vec::new(),
            priority: resolved.value,
            candidates: Vec::new(),
            message: None,
            notes: resolved
                .missing_class
                .iter()
                .map(|class| {
                    if self.state.priority_classes_unread {
                        format!(
                            "PriorityClass {class:?} could not be read (forbidden); priority 0 assumed"
                        )
                    } else {
                        format!(
                            "PriorityClass {class:?} is not in the state (admission would reject the pod); priority 0 assumed"
                        )
                    }
                })
                .collect(),
        };
        if !resolved.may_preempt {
            preemption.message = Some(format!("preemption: {NOT_ELIGIBLE_NEVER}"));
            return preemption;
        }
        if self.waits_for_its_victims(pod, resolved.value, verdicts) {
            preemption.message = Some(format!("preemption: {NOT_ELIGIBLE_TERMINATING}"));
            return preemption;
        }
        let potential: Vec<usize> = verdicts
            .iter()
            .filter(|v| preemption_might_help(v))
            .map(|v| v.index)
            .collect();
        let wanted = candidates_wanted(potential.len());
        let mut found: Vec<Found> = Vec::new();
        let mut failures: BTreeMap<String, usize> = BTreeMap::new();
        let mut failed_nodes = 0;
        let mut without_victims = 0;
        for &node in &potential {
            match self.select_victims_on_node(pod, resolved.value, node) {
                Ok((victims, budget_violations)) => {
                    found.push(Found {
                        node,
                        victims,
                        budget_violations,
                    });
                    let clean = found.iter().filter(|c| c.budget_violations == 0).count();
                    if clean > 0 && found.len() >= wanted {
                        break;
                    }
                }
                Err(Unusable::NoVictims) => {
                    failed_nodes += 1;
                    without_victims += 1;
                }
                Err(Unusable::StillUnfit(reasons)) => {
                    failed_nodes += 1;
                    for reason in reasons {
                        *failures.entry(reason).or_default() += 1;
                    }
                }
            }
        }
        if without_victims > 0 {
            *failures.entry(NO_VICTIMS.to_string()).or_default() += without_victims;
        }
        if found.is_empty() {
            if total > failed_nodes {
                failures.insert(NOT_HELPFUL.to_string(), total - failed_nodes);
            }
            preemption.message = Some(format!("preemption: {}", nodes_available(total, &failures)));
            return preemption;
        }
        // Upstream lists the candidates without budget violations first.
        found.sort_by_key(|c| c.budget_violations > 0);
        let (winner, lost_on) = pick_one_node(&found);
        let chosen = &found[winner];
        let mut candidates: Vec<Candidate> = found
            .iter()
            .zip(&lost_on)
            .map(|(c, lost)| Candidate {
                node: self.state.nodes[c.node].metadata.name.clone(),
                victims: self.victims(&c.victims),
                budget_violations: c.budget_violations,
                lost: lost.map(|rule| match PICK_RULES.get(rule) {
                    Some(rule) => format!(
                        "{}: {} against {}",
                        rule.what,
                        (rule.show)(c),
                        (rule.show)(chosen)
                    ),
                    None => "equal on every rule; the first candidate in node order wins (the scheduler picks among them at random)".to_string(),
                }),
            })
            .collect();
        candidates.sort_by_key(|c| c.lost.is_some());
        preemption.node = Some(candidates[0].node.clone());
        preemption.victims = candidates[0].victims.clone();
        preemption.candidates = candidates;
        preemption
    }

    /// The rest of upstream's `PodEligibleToPreemptOthers`: a pod that already preempted
    /// (`status.nominatedNodeName`) does not preempt again while a lower-priority pod that the
    /// scheduler's preemption is terminating is still on that node, unless the filters now
    /// find the node unresolvable (a node absent from the verdicts counts as unresolvable, as
    /// upstream's absent nodes do).
    fn waits_for_its_victims(&self, pod: &Pod, priority: i32, verdicts: &[NodeVerdict]) -> bool {
        let Some(node) = pod
            .status
            .nominated_node_name
            .as_deref()
            .and_then(|name| self.state.node_index(name))
        else {
            return false;
        };
        let resolvable = verdicts
            .iter()
            .find(|v| v.index == node)
            .is_some_and(|v| v.code != Some(Code::UnschedulableAndUnresolvable));
        resolvable
            && self.nodes[node].pods.iter().any(|&placed| {
                self.placed_priority[placed] < priority
                    && self.placed[placed].pod.terminating_by_preemption()
            })
    }

    fn victims(&self, ranked: &[Ranked]) -> Vec<Victim> {
        ranked
            .iter()
            .map(|r| {
                let pod = &self.placed[r.placed].pod;
                Victim {
                    namespace: pod.metadata.namespace.clone(),
                    name: pod.metadata.name.clone(),
                    priority: r.priority,
                    violates_budget: r.violates_budget,
                }
            })
            .collect()
    }

    /// Whether `pod` passes every filter on `node` as the node is now.
    fn fits_on(&self, pod: &Pod, node: usize) -> Result<(), Vec<String>> {
        match self.decide_over(pod, &[node]).nodes.into_iter().next() {
            Some(verdict) if verdict.feasible => Ok(()),
            Some(verdict) => Err(verdict.reasons.to_vec()),
            None => Err(Vec::new()),
        }
    }

    /// Every placed pod's resolved priority, read once (placed pods never change their spec):
    /// preemption compares them on every node for every pod that fits nowhere, and plans that
    /// never preempt never read them.
    fn resolve_placed_priorities(&mut self) {
        let state = self.state;
        let unread = self.placed[self.placed_priority.len()..]
            .iter()
            .map(|placed| state.pod_priority(&placed.pod).value);
        let unread: Vec<i32> = unread.collect();
        self.placed_priority.extend(unread);
    }

    /// Upstream's `SelectVictimsOnNode`: take every lower-priority pod off the node; if the pod
    /// then fits, put them back one by one, most important first and budget-violating ones
    /// before the others, keeping off only those without which the pod no longer fits. The
    /// victims (most important first) and how many of them violate a budget; or why the node
    /// stays unusable. The node is restored before returning.
    fn select_victims_on_node(
        &mut self,
        pod: &Pod,
        priority: i32,
        node: usize,
    ) -> Result<(Vec<Ranked>, usize), Unusable> {
        let mut potential: Vec<Ranked> = self.nodes[node]
            .pods
            .iter()
            .filter_map(|&placed| {
                let victim = &self.placed[placed].pod;
                let victim_priority = self.placed_priority[placed];
                (victim_priority < priority).then(|| Ranked {
                    placed,
                    priority: victim_priority,
                    start_time: victim.status.start_time.clone(),
                    violates_budget: false,
                })
            })
            .collect();
        if potential.is_empty() {
            return Err(Unusable::NoVictims);
        }
        for victim in &potential {
            self.take_off(victim.placed);
        }
        if let Err(reasons) = self.fits_on(pod, node) {
            for victim in &potential {
                self.put_back(victim.placed);
            }
            return Err(Unusable::StillUnfit(reasons));
        }
        potential.sort_by(more_important);
        let pods: Vec<&Pod> = potential
            .iter()
            .map(|v| &*self.placed[v.placed].pod)
            .collect();
        let mut ranked = potential.clone();
        mark_budget_violations(&mut ranked, &pods, &self.state.pod_disruption_budgets);
        let (violating, clean): (Vec<Ranked>, Vec<Ranked>) =
            ranked.into_iter().partition(|v| v.violates_budget);
        let reorder = !violating.is_empty() && !clean.is_empty();
        let mut victims = Vec::new();
        for victim in violating.into_iter().chain(clean) {
            self.put_back(victim.placed);
            if self.fits_on(pod, node).is_err() {
                self.take_off(victim.placed);
                victims.push(victim);
            }
        }
        if reorder {
            victims.sort_by(more_important);
        }
        for victim in &victims {
            self.put_back(victim.placed);
        }
        let violations = victims.iter().filter(|v| v.violates_budget).count();
        Ok((victims, violations))
    }

    /// One cycle as kube-scheduler runs it for a plan: decide; when no node fits, preempt;
    /// then count the pod on its node (or its nominated node, with the victims evicted) for
    /// every later decision. The node is the selected or the nominated one.
    pub fn schedule_and_assume(&mut self, pod: &Pod) -> (Decision, Option<Preemption>) {
        let mut decision = self.decide(pod);
        if let Some(node) = &decision.selected {
            self.assume(pod.clone(), node);
            return (decision, None);
        }
        let preemption = self.preempt(pod, &mut decision);
        if let Some((node, preemption)) = preemption
            .as_ref()
            .and_then(|p| p.node.as_deref().map(|node| (node, p)))
        {
            for victim in &preemption.victims {
                self.forget(&victim.namespace, &victim.name);
            }
            self.assume(pod.clone(), node);
        }
        (decision, preemption)
    }
}

#[cfg(test)]
mod tests;
