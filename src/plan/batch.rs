//! The batch: plain pods and workload replicas of the `-f` inputs (not members of a gang),
//! placed together by the greedy solver (pod by pod, as kube-scheduler) or the min-cost-flow
//! solver of `systems::flow`, and optionally both, side by side.

use serde::Serialize;

use super::workload;
use crate::cluster::ClusterState;
use crate::manifest::ManifestSet;
use crate::model::gang::GODEL_POD_GROUP_LABEL;
use crate::model::{Object, Pod};
use crate::sched::preemption::Victim;
use crate::sched::{Profile, Scheduler};
use crate::systems::flow::{self, Method, Metrics};

/// Which solver places the batch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "camelCase")]
pub enum Solver {
    /// One pod at a time, each seeing the ones before it (kube-scheduler)
    #[default]
    Greedy,
    /// Min-cost flow over the whole batch (Firmament); pods it cannot express fall back to greedy
    Flow,
}

/// A pod of the batch and the object it comes from.
#[derive(Debug, Clone)]
pub struct Member {
    /// `Pod/name`, `Deployment/name`...
    pub from: String,
    pub pod: Pod,
}

/// The batch of the inputs, in input order: pods as they are, workloads as the pods their
/// controllers create against `state`. Pods that join a Godel PodGroup belong to their gang,
/// not to the batch.
pub fn members(manifests: &ManifestSet, state: &ClusterState) -> Vec<Member> {
    let in_gang = |labels: &std::collections::BTreeMap<String, String>| {
        labels.contains_key(GODEL_POD_GROUP_LABEL)
    };
    let mut members = Vec::new();
    for manifest in &manifests.manifests {
        match &manifest.object {
            Object::Pod(pod) if !in_gang(&pod.metadata.labels) => members.push(Member {
                from: format!("Pod/{}", pod.metadata.name),
                pod: pod.clone(),
            }),
            Object::Workload(w) if !in_gang(&w.template.metadata.labels) => {
                members.extend(workload::pods(w, state).into_iter().map(|pod| Member {
                    from: format!("{}/{}", w.kind, w.metadata.name),
                    pod,
                }));
            }
            _ => {}
        }
    }
    members
}

/// One pod of the batch in the plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchPod {
    pub namespace: String,
    pub name: String,
    /// The input object: `Pod/name`, `Deployment/name`...
    pub from: String,
    pub node: Option<String>,
    /// The solver that placed it (the flow solver falls back to greedy for some pods).
    pub method: Method,
    /// How it was placed, or why it stays pending.
    pub note: String,
    /// The pods it would evict: set when no node fits and preemption nominates `node`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub preempts: Vec<Victim>,
}

/// `batch` in `plan -o json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchPlan {
    pub solver: Solver,
    pub pods: Vec<BatchPod>,
    pub placed: usize,
    /// The flow solver's objective (placement costs plus the penalty of pods left pending).
    pub total_cost: Option<i64>,
    pub comparison: Option<BatchComparison>,
}

/// `plan --compare` for a batch: the greedy and the flow placements, measured the same way.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchComparison {
    pub greedy: Metrics,
    pub flow: Metrics,
    pub pods: Vec<ComparedPod>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ComparedPod {
    pub name: String,
    pub greedy: Option<String>,
    pub flow: Option<String>,
}

impl BatchPlan {
    pub fn pending(&self) -> usize {
        self.pods.len() - self.placed
    }
}

/// Each pod's node, note and victims as the greedy solver leaves them.
fn greedy(
    state: &ClusterState,
    profile: &Profile,
    pods: &[&Pod],
) -> Vec<(Option<String>, String, Vec<Victim>)> {
    let mut sched = Scheduler::new(state, profile.clone());
    flow::place_greedily(&mut sched, pods)
        .into_iter()
        .map(|outcome| {
            let note = match (&outcome.node, outcome.summary) {
                (Some(node), _) if !outcome.preempts.is_empty() => {
                    format!("would preempt {} pods on {node}", outcome.preempts.len())
                }
                (None, Some(summary)) => format!("pending: {summary}"),
                _ => String::new(),
            };
            (outcome.node, note, outcome.preempts)
        })
        .collect()
}

/// Place the batch with `solver` (and with both solvers when `compare`). Pods that already name
/// their node are not scheduled: the kubelet admits them first, in input order, and the
/// solvers place the rest around the admitted ones. Rows keep the input order.
pub fn plan_batch(
    state: &ClusterState,
    profile: &Profile,
    members: &[Member],
    solver: Solver,
    compare: bool,
) -> BatchPlan {
    let (bound, scheduled): (Vec<&Member>, Vec<&Member>) = members
        .iter()
        .partition(|m| !m.pod.spec.node_name.is_empty());
    if bound.is_empty() {
        return plan_scheduled(state, profile, members, solver, compare);
    }
    let mut kubelet = Scheduler::new(state, profile.clone());
    let mut with_admitted = state.clone();
    let mut bound_rows = Vec::new();
    for member in bound {
        let pod = &member.pod;
        let node = pod.spec.node_name.clone();
        let (placed, note) = match kubelet.admit(pod) {
            Ok(()) => {
                kubelet.assume(pod.clone(), &node);
                with_admitted.pods.push(pod.clone());
                (
                    Some(node),
                    "spec.nodeName: admitted by the kubelet, not scheduled".to_string(),
                )
            }
            Err(reasons) => (
                None,
                format!("spec.nodeName {node}: not admitted: {}", reasons.join(", ")),
            ),
        };
        bound_rows.push(BatchPod {
            namespace: pod.metadata.namespace.clone(),
            name: pod.metadata.name.clone(),
            from: member.from.clone(),
            node: placed,
            method: Method::Kubelet,
            note,
            preempts: Vec::new(),
        });
    }
    with_admitted.rebuild_indexes();
    let scheduled: Vec<Member> = scheduled.into_iter().cloned().collect();
    let mut plan = plan_scheduled(&with_admitted, profile, &scheduled, solver, compare);
    let mut bound_rows = bound_rows.into_iter();
    let mut scheduled_rows = std::mem::take(&mut plan.pods).into_iter();
    plan.pods = members
        .iter()
        .filter_map(|m| match m.pod.spec.node_name.is_empty() {
            true => scheduled_rows.next(),
            false => bound_rows.next(),
        })
        .collect();
    plan.placed = plan.pods.iter().filter(|r| r.node.is_some()).count();
    plan
}

/// Place pods that go through the scheduler with `solver` (and with both when `compare`).
fn plan_scheduled(
    state: &ClusterState,
    profile: &Profile,
    members: &[Member],
    solver: Solver,
    compare: bool,
) -> BatchPlan {
    let pods: Vec<Pod> = members.iter().map(|m| m.pod.clone()).collect();
    let refs: Vec<&Pod> = pods.iter().collect();
    let row = |m: &Member, node: Option<String>, method: Method, note: String| BatchPod {
        namespace: m.pod.metadata.namespace.clone(),
        name: m.pod.metadata.name.clone(),
        from: m.from.clone(),
        node,
        method,
        note,
        preempts: Vec::new(),
    };
    let (rows, total_cost): (Vec<BatchPod>, Option<i64>) = match solver {
        Solver::Greedy => (
            members
                .iter()
                .zip(greedy(state, profile, &refs))
                .map(|(m, (node, note, preempts))| BatchPod {
                    preempts,
                    ..row(m, node, Method::Greedy, note)
                })
                .collect(),
            None,
        ),
        Solver::Flow => {
            let plan = flow::solve_batch(state, profile, &pods);
            let rows = members
                .iter()
                .zip(plan.placements)
                .map(|(m, p)| BatchPod {
                    preempts: p.preempts,
                    ..row(m, p.node, p.method, p.note)
                })
                .collect();
            (rows, Some(plan.total_cost))
        }
    };
    let comparison = compare.then(|| {
        let chosen: Vec<Option<String>> = rows.iter().map(|r| r.node.clone()).collect();
        let (greedy_nodes, flow_nodes) = match solver {
            Solver::Greedy => (chosen, flow::solve_batch(state, profile, &pods).nodes()),
            Solver::Flow => (
                greedy(state, profile, &refs)
                    .into_iter()
                    .map(|(node, _, _)| node)
                    .collect(),
                chosen,
            ),
        };
        BatchComparison {
            greedy: flow::metrics(state, &pods, &greedy_nodes),
            flow: flow::metrics(state, &pods, &flow_nodes),
            pods: pods
                .iter()
                .zip(greedy_nodes.into_iter().zip(flow_nodes))
                .map(|(pod, (greedy, flow))| ComparedPod {
                    name: pod.metadata.name.clone(),
                    greedy,
                    flow,
                })
                .collect(),
        }
    });
    BatchPlan {
        solver,
        placed: rows.iter().filter(|r| r.node.is_some()).count(),
        pods: rows,
        total_cost,
        comparison,
    }
}
