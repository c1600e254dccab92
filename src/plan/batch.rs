//! The batch: plain pods and workload replicas of the `-f` inputs (not members of a gang),
//! placed together by the greedy solver (pod by pod, as kube-scheduler) or the min-cost-flow
//! solver of `systems::flow`, and optionally both, side by side.

use serde::Serialize;

use crate::manifest::ManifestSet;
use crate::model::{Object, ObjectMeta, Pod, PodStatus, Workload};
use crate::sched::Scheduler;
use crate::systems::flow::{self, Method, Metrics};
use crate::systems::gang::{self, SchedulerRoutes};

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

/// Replica `index` of a workload, named `<name>-<index>` (the names users see are hashed; these
/// are stable).
pub fn replica(w: &Workload, index: usize) -> Pod {
    Pod {
        metadata: ObjectMeta {
            name: format!("{}-{index}", w.metadata.name),
            namespace: w.metadata.namespace.clone(),
            labels: w.template.metadata.labels.clone(),
            annotations: w.template.metadata.annotations.clone(),
        },
        spec: w.template.spec.clone(),
        status: PodStatus::default(),
    }
}

/// The batch of the inputs, in input order: pods as they are, workloads as their replicas.
/// Pods that join a gang of any kind belong to their gang, not to the batch.
pub fn members(manifests: &ManifestSet) -> Vec<Member> {
    let mut members = Vec::new();
    for manifest in &manifests.manifests {
        match &manifest.object {
            Object::Pod(pod) if !gang::joins_any(pod) => members.push(Member {
                from: format!("Pod/{}", pod.metadata.name),
                pod: pod.clone(),
            }),
            Object::Workload(w) if !gang::joins_any(&replica(w, 0)) => {
                let replicas = usize::try_from(w.replicas).unwrap_or(0);
                members.extend((0..replicas).map(|i| Member {
                    from: format!("{}/{}", w.kind, w.metadata.name),
                    pod: replica(w, i),
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
}

/// `batch` in `plan -o json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchPlan {
    pub solver: Solver,
    pub pods: Vec<BatchPod>,
    pub placed: usize,
    /// Pods whose `schedulerName` maps to no modelled scheduler: reported, not planned.
    #[serde(skip_serializing_if = "is_zero")]
    pub not_modelled: usize,
    /// The flow solver's objective (placement costs plus the penalty of pods left pending).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_cost: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
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
        self.pods.len() - self.placed - self.not_modelled
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// Each pod's node and note as the greedy solver leaves them, each placement assumed into
/// `sched`.
fn greedy(sched: &mut Scheduler, pods: &[&Pod]) -> Vec<(Option<String>, String)> {
    flow::place_greedily(sched, pods)
        .into_iter()
        .map(|(node, summary)| {
            let note = match (&node, summary) {
                (None, Some(summary)) => format!("pending: {summary}"),
                _ => String::new(),
            };
            (node, note)
        })
        .collect()
}

/// Place the batch with `solver` (and with both solvers when `compare`) on top of what the
/// plan assumed before it; the chosen solver's placements stay assumed in `scheduler`. Pods
/// whose `schedulerName` no modelled scheduler answers are listed, not placed.
pub fn plan_batch(
    scheduler: &mut Scheduler,
    members: &[Member],
    routes: &SchedulerRoutes,
    solver: Solver,
    compare: bool,
) -> BatchPlan {
    let state = scheduler.state();
    let (planned, unplanned): (Vec<&Member>, Vec<&Member>) = members
        .iter()
        .partition(|m| routes.system(&m.pod.spec.scheduler_name).is_some());
    let pods: Vec<Pod> = planned.iter().map(|m| m.pod.clone()).collect();
    let refs: Vec<&Pod> = pods.iter().collect();
    let row = |m: &Member, node: Option<String>, method: Method, note: String| BatchPod {
        namespace: m.pod.metadata.namespace.clone(),
        name: m.pod.metadata.name.clone(),
        from: m.from.clone(),
        node,
        method,
        note,
    };
    let before = compare.then(|| scheduler.clone());
    let (mut rows, total_cost): (Vec<BatchPod>, Option<i64>) = match solver {
        Solver::Greedy => (
            planned
                .iter()
                .zip(greedy(scheduler, &refs))
                .map(|(m, (node, note))| row(m, node, Method::Greedy, note))
                .collect(),
            None,
        ),
        Solver::Flow => {
            let plan = flow::solve_batch_on(scheduler.clone(), &pods);
            for (pod, placement) in pods.iter().zip(&plan.placements) {
                if let Some(node) = &placement.node {
                    scheduler.assume(pod.clone(), node);
                }
            }
            let rows = planned
                .iter()
                .zip(plan.placements)
                .map(|(m, p)| row(m, p.node, p.method, p.note))
                .collect();
            (rows, Some(plan.total_cost))
        }
    };
    let comparison = before.map(|mut before| {
        let chosen: Vec<Option<String>> = rows.iter().map(|r| r.node.clone()).collect();
        let (greedy_nodes, flow_nodes) = match solver {
            Solver::Greedy => (chosen, flow::solve_batch_on(before, &pods).nodes()),
            Solver::Flow => (
                greedy(&mut before, &refs)
                    .into_iter()
                    .map(|(node, _)| node)
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
    for m in &unplanned {
        let note = format!(
            "not planned: schedulerName {} maps to no modelled scheduler",
            m.pod.spec.scheduler_name
        );
        rows.push(row(m, None, Method::Greedy, note));
    }
    BatchPlan {
        solver,
        placed: rows.iter().filter(|r| r.node.is_some()).count(),
        not_modelled: unplanned.len(),
        pods: rows,
        total_cost,
        comparison,
    }
}
