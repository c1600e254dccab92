//! Two plans of the same inputs compared: what a what-if edit changes, and what moves between
//! two snapshots of a cluster (`plan --against`). Only what moved is kept: an operation, gang or
//! pod that lands on another node, or whose status changes, with the first reason that differs.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{OpStatus, Plan};
use df_systems::gang::GangStatus;

/// What changed from one plan to the other (`whatIfEffect` in `plan -o json`, and the whole
/// answer of `plan --against -o json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlanDiff {
    /// Placed pods per part of the plan (a flow, a gang, the batch), before and after.
    pub placed: Vec<PlacedCount>,
    /// Everything that moved, in plan order (then what only the second plan holds).
    pub moved: Vec<Move>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlacedCount {
    /// `Flow 1`, `PodGroup ns/name`, `Pods`.
    pub part: String,
    pub before: usize,
    pub after: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Move {
    /// `DataLoad/ns/name`, `PodGroup/ns/name`, `Pod/ns/name`.
    pub subject: String,
    pub before: Spot,
    pub after: Spot,
    /// The first reason that differs: why it no longer fits, or what held it back before.
    pub reason: Option<String>,
}

/// Where one subject stands in one plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Spot {
    pub node: Option<String>,
    /// An operation's or gang's status; `Placed`, `Pending` or `Running` for a pod; `Absent`
    /// when the plan does not hold it.
    pub status: String,
}

impl PlanDiff {
    /// Nothing moved (then every part also placed as many pods).
    pub fn is_empty(&self) -> bool {
        self.moved.is_empty()
    }
}

/// One subject of a plan with where it stands and why.
struct Entry {
    part: String,
    subject: String,
    spot: Spot,
    /// Placed (a gang: scheduled as a whole).
    placed: bool,
    /// Counted in its part's placed pods (a gang counts through its pods).
    counted: bool,
    reason: Option<String>,
}

/// Every subject of `plan`: its operations, its gangs and their pods, its batch pods.
fn entries(plan: &Plan) -> Vec<Entry> {
    let mut out = Vec::new();
    for op in &plan.operations {
        out.push(Entry {
            part: format!("Flow {}", op.flow),
            subject: format!("{}/{}/{}", op.kind, op.namespace, op.name),
            spot: Spot {
                node: op.node.clone(),
                status: op.status.as_str().to_string(),
            },
            placed: op.status == OpStatus::Planned,
            counted: true,
            reason: op.summary.clone().or_else(|| op.warnings.first().cloned()),
        });
    }
    for group in &plan.groups {
        let part = format!("{} {}/{}", group.kind, group.namespace, group.name);
        let first_blocked = group.blocked.first().map(|b| b.reason.clone());
        out.push(Entry {
            part: part.clone(),
            subject: format!("{}/{}/{}", group.kind, group.namespace, group.name),
            spot: Spot {
                node: None,
                status: group.status.as_str().to_string(),
            },
            placed: group.status == GangStatus::Scheduled,
            counted: false,
            reason: (group.status != GangStatus::Scheduled).then(|| {
                first_blocked
                    .clone()
                    .unwrap_or_else(|| group.summary.clone())
            }),
        });
        for pod in &group.pods {
            out.push(Entry {
                part: part.clone(),
                subject: format!("Pod/{}/{}", group.namespace, pod.pod),
                spot: pod_spot(&pod.node, pod.running),
                placed: pod.node.is_some(),
                counted: true,
                reason: pod.reason.clone().or_else(|| first_blocked.clone()),
            });
        }
    }
    for pod in plan.batch.iter().flat_map(|b| &b.pods) {
        out.push(Entry {
            part: "Pods".to_string(),
            subject: format!("Pod/{}/{}", pod.namespace, pod.name),
            spot: pod_spot(&pod.node, false),
            placed: pod.node.is_some(),
            counted: true,
            reason: pod.node.is_none().then(|| pod.note.clone()),
        });
    }
    out
}

fn pod_spot(node: &Option<String>, running: bool) -> Spot {
    let status = match (node, running) {
        (_, true) => "Running",
        (Some(_), false) => "Placed",
        (None, false) => "Pending",
    };
    Spot {
        node: node.clone(),
        status: status.to_string(),
    }
}

/// Compare two plans of the same inputs.
pub fn diff(before: &Plan, after: &Plan) -> PlanDiff {
    let before = entries(before);
    let after = entries(after);
    let mut placed: Vec<PlacedCount> = Vec::new();
    let mut count = |part: &str, side: fn(&mut PlacedCount) -> &mut usize, add: bool| {
        let index = match placed.iter().position(|p| p.part == part) {
            Some(index) => index,
            None => {
                placed.push(PlacedCount {
                    part: part.to_string(),
                    before: 0,
                    after: 0,
                });
                placed.len() - 1
            }
        };
        *side(&mut placed[index]) += usize::from(add);
    };
    for entry in &before {
        count(
            &entry.part,
            |p| &mut p.before,
            entry.placed && entry.counted,
        );
    }
    for entry in &after {
        count(&entry.part, |p| &mut p.after, entry.placed && entry.counted);
    }
    let after_by_subject: BTreeMap<&str, &Entry> =
        after.iter().map(|e| (e.subject.as_str(), e)).collect();
    let absent = Spot {
        node: None,
        status: "Absent".to_string(),
    };
    let mut moved = Vec::new();
    for old in &before {
        let new = after_by_subject.get(old.subject.as_str()).copied();
        let new_spot = new.map_or(&absent, |e| &e.spot);
        if &old.spot == new_spot {
            continue;
        }
        moved.push(Move {
            subject: old.subject.clone(),
            before: old.spot.clone(),
            after: new_spot.clone(),
            reason: first_differing_reason(Some(old), new),
        });
    }
    let before_subjects: std::collections::BTreeSet<&str> =
        before.iter().map(|e| e.subject.as_str()).collect();
    for new in after
        .iter()
        .filter(|e| !before_subjects.contains(e.subject.as_str()))
    {
        moved.push(Move {
            subject: new.subject.clone(),
            before: absent.clone(),
            after: new.spot.clone(),
            reason: first_differing_reason(None, Some(new)),
        });
    }
    PlanDiff { placed, moved }
}

/// Why the subject moved: the reason of the side where it has no place (`was: ...` when it is
/// the first plan), or, when it has none in either, the first part of the second plan's reason
/// the first plan did not give. Reasons are upstream summaries (`0/3 nodes are available: 1
/// Insufficient cpu, 2 node(s) ...`), cut before what the PostFilter plugins added.
fn first_differing_reason(before: Option<&Entry>, after: Option<&Entry>) -> Option<String> {
    let main_clause = |e: Option<&Entry>| {
        let reason = e?.reason.as_deref()?;
        let reason = reason.strip_prefix("pending: ").unwrap_or(reason);
        let reason = df_engine::preemption::without_post_filter(reason);
        Some(reason.trim_end_matches('.').to_string())
    };
    let parts = |e: Option<&Entry>| -> Vec<String> {
        let Some(reason) = main_clause(e) else {
            return Vec::new();
        };
        let body = reason
            .split_once("nodes are available: ")
            .map_or(reason.as_str(), |(_, body)| body);
        body.split(", ").map(str::to_string).collect()
    };
    let unplaced = |e: Option<&Entry>| e.is_some_and(|e| !e.placed);
    match (unplaced(before), unplaced(after)) {
        (true, true) => {
            let old = parts(before);
            parts(after).into_iter().find(|part| !old.contains(part))
        }
        (false, true) => main_clause(after),
        (true, false) => main_clause(before).map(|reason| format!("was: {reason}")),
        (false, false) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(placed: bool, reason: Option<&str>) -> Entry {
        Entry {
            part: "Pods".into(),
            subject: "Pod/ns/p".into(),
            spot: Spot {
                node: placed.then(|| "n1".to_string()),
                status: String::new(),
            },
            placed,
            counted: true,
            reason: reason.map(str::to_string),
        }
    }

    #[test]
    fn the_reason_is_the_unplaced_side_or_the_first_new_part() {
        let taint = "pending: 0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.";
        let cpu = "0/2 nodes are available: 2 Insufficient cpu.";
        let cases = [
            // Placed before, pending after: why not now, preemption clause cut.
            (
                Some(entry(true, None)),
                Some(entry(false, Some(taint))),
                Some(
                    "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s)",
                ),
            ),
            // Pending before, placed after: what held it back.
            (
                Some(entry(false, Some(cpu))),
                Some(entry(true, None)),
                Some("was: 0/2 nodes are available: 2 Insufficient cpu"),
            ),
            // Pending on both sides (a status change): the first part the first plan lacked.
            (
                Some(entry(false, Some(cpu))),
                Some(entry(false, Some(taint))),
                Some("1 Insufficient cpu"),
            ),
            (
                Some(entry(false, Some("1 node(s) had untolerated taint(s), x"))),
                Some(entry(false, Some("1 node(s) had untolerated taint(s), y"))),
                Some("y"),
            ),
            // Placed on both sides: a move between nodes has no failure reason.
            (Some(entry(true, None)), Some(entry(true, None)), None),
            // Only in the second plan, pending.
            (
                None,
                Some(entry(false, Some(cpu))),
                Some("0/2 nodes are available: 2 Insufficient cpu"),
            ),
            // Only in the first plan, placed there.
            (Some(entry(true, None)), None, None),
        ];
        for (before, after, want) in cases {
            assert_eq!(
                first_differing_reason(before.as_ref(), after.as_ref()).as_deref(),
                want
            );
        }
    }
}
