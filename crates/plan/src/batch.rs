//! The batch: plain pods and workload replicas of the `-f` inputs (not members of a gang),
//! placed together by the greedy solver (pod by pod, as kube-scheduler) or the min-cost-flow
//! solver of `systems::flow`, and optionally both, side by side.

use df_model::text::plural;
use serde::Serialize;

use super::datasets::{self, Webhooked};
use super::{DatasetLocality, WebhookAffinity, operators, quota, workload};
use df_engine::Scheduler;
use df_engine::preemption::Victim;
use df_manifest::ManifestSet;
use df_model::{Object, Pod};
use df_state::ClusterState;
use df_systems::flow::{self, Method, Metrics};
use df_systems::gang::{self, SchedulerRoutes};

/// Which solver places the batch.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Solver {
    /// One pod at a time, each seeing the ones before it (kube-scheduler).
    #[default]
    Greedy,
    /// Min-cost flow over the whole batch (Firmament); pods it cannot express fall back to
    /// greedy.
    Flow,
}

/// A pod of the batch and the object it comes from.
#[derive(Debug, Clone)]
pub struct Member {
    /// `Pod/name`, `Deployment/name`...
    pub from: String,
    /// As Fluid's admission webhook leaves it.
    pub pod: Pod,
    pub webhooked: Webhooked,
    /// The API server's rejection (LimitRange, ResourceQuota), upstream's words: the pod is
    /// never created, so never scheduled.
    pub rejected: Option<String>,
}

/// The batch of the inputs, in input order: pods as they are, workloads as the pods their
/// controllers create against `state`, each as Fluid's webhook and then the namespace's
/// LimitRanges and ResourceQuotas ([`quota`], after what `admission` admitted before) admit
/// it. Pods that join a gang of any kind belong to their gang, not to the batch.
pub fn members(
    manifests: &ManifestSet,
    state: &ClusterState,
    admission: &mut quota::NamespaceAdmission,
) -> Vec<Member> {
    let runtimes = datasets::runtimes(&manifests.manifests, state);
    let mut member = |from: String, mut pod: Pod| {
        let mut webhooked = datasets::admit_pod(&mut pod, &runtimes, &state.nodes);
        let priority = state.pod_priority(&pod).value;
        webhooked
            .notes
            .extend(df_systems::operators::admit(&mut pod, priority));
        let rejected = match admission.admit(&mut pod) {
            Ok(admitted) => {
                webhooked.notes.extend(admitted.notes);
                None
            }
            Err(reason) => Some(reason),
        };
        Member {
            from,
            pod,
            webhooked,
            rejected,
        }
    };
    let mut members = Vec::new();
    for manifest in &manifests.manifests {
        match &manifest.object {
            Object::Pod(pod) if !gang::joins_any(pod) => {
                let from = operators::origin(manifest, &pod.metadata.name);
                members.push(member(from, pod.clone()));
            }
            Object::Workload(w) => {
                let pods = workload::pods(w, state);
                members.extend(
                    pods.into_iter()
                        .filter(|pod| !gang::joins_any(pod))
                        .map(|pod| member(format!("{}/{}", w.kind, w.metadata.name), pod)),
                );
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
    pub preempts: Vec<Victim>,
    /// Terms Fluid's admission webhook added, per plugin (as for operations).
    pub webhook_affinity: Vec<WebhookAffinity>,
    /// The Fluid datasets it mounts, where each is cached, and how close its node is.
    pub datasets: Vec<DatasetLocality>,
}

/// How the note of a pod no modelled scheduler answers begins.
pub(crate) const NOT_MODELLED: &str = "not planned: schedulerName";

impl BatchPod {
    /// Whether the pod was listed, not planned: its `schedulerName` maps to no modelled
    /// scheduler.
    pub(crate) fn not_modelled(&self) -> bool {
        self.node.is_none() && self.note.starts_with(NOT_MODELLED)
    }
}

/// `batch` in `plan -o json`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BatchPlan {
    pub solver: Solver,
    pub pods: Vec<BatchPod>,
    pub placed: usize,
    /// Pods whose `schedulerName` maps to no modelled scheduler: reported, not planned.
    pub not_modelled: usize,
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

impl BatchPod {
    /// The row of `member`; the webhook's terms and datasets are filled in once placed.
    fn new(member: &Member, node: Option<String>, method: Method, note: String) -> BatchPod {
        BatchPod {
            namespace: member.pod.metadata.namespace.clone(),
            name: member.pod.metadata.name.clone(),
            from: member.from.clone(),
            node,
            method,
            note,
            preempts: Vec::new(),
            webhook_affinity: Vec::new(),
            datasets: Vec::new(),
        }
    }
}

impl BatchPlan {
    pub fn pending(&self) -> usize {
        self.pods.len() - self.placed - self.not_modelled
    }

    /// One batch of `first`'s rows followed by `then`'s, both placed already against the same
    /// scheduler. The solver, cost and comparison are `then`'s: the batch of the inputs comes
    /// after the Pending pods of the state, which are always placed greedily.
    pub fn concat(first: Option<BatchPlan>, then: Option<BatchPlan>) -> Option<BatchPlan> {
        match (first, then) {
            (Some(mut first), Some(then)) => {
                first.pods.extend(then.pods);
                first.placed += then.placed;
                first.not_modelled += then.not_modelled;
                first.solver = then.solver;
                first.total_cost = then.total_cost;
                first.comparison = then.comparison;
                Some(first)
            }
            (first, then) => first.or(then),
        }
    }
}

/// Each pod's node, note and victims as the greedy solver leaves them, each placement assumed
/// into `sched`.
fn greedy(sched: &mut Scheduler, pods: &[&Pod]) -> Vec<(Option<String>, String, Vec<Victim>)> {
    flow::place_greedily(sched, pods)
        .into_iter()
        .map(|outcome| {
            let note = match (&outcome.node, outcome.summary) {
                (Some(node), _) if !outcome.preempts.is_empty() => {
                    format!(
                        "would preempt {} on {node}",
                        plural(outcome.preempts.len(), "pod")
                    )
                }
                (None, Some(summary)) => format!("pending: {summary}"),
                _ => String::new(),
            };
            (outcome.node, note, outcome.preempts)
        })
        .collect()
}

/// Place the batch with `solver` (and with both solvers when `compare`) on top of what the
/// plan assumed before it; its placements stay assumed in `scheduler`. Pods that already name
/// their node are not scheduled: the kubelet admits them first, in input order, and the
/// solvers place the rest around the admitted ones. Pods whose `schedulerName` no modelled
/// scheduler answers are listed, not placed. Rows keep the input order.
pub(crate) fn plan_batch(
    scheduler: &mut Scheduler,
    members: &[Member],
    routes: &SchedulerRoutes,
    solver: Solver,
    compare: bool,
) -> BatchPlan {
    let mut rows: Vec<Option<BatchPod>> = vec![None; members.len()];
    let mut scheduled: Vec<(usize, &Member)> = Vec::new();
    let mut not_modelled = 0;
    for (i, member) in members.iter().enumerate() {
        let pod = &member.pod;
        let row = |node, method, note| BatchPod::new(member, node, method, note);
        if let Some(rejected) = &member.rejected {
            let note = format!("rejected at admission: {rejected}");
            rows[i] = Some(row(None, Method::Greedy, note));
        } else if !pod.spec.node_name.is_empty() {
            let node = pod.spec.node_name.clone();
            rows[i] = Some(match scheduler.admit(pod) {
                Ok(()) => {
                    scheduler.assume(pod.clone(), &node);
                    row(
                        Some(node),
                        Method::Kubelet,
                        "spec.nodeName: admitted by the kubelet, not scheduled".to_string(),
                    )
                }
                Err(reasons) => row(
                    None,
                    Method::Kubelet,
                    format!("spec.nodeName {node}: not admitted: {}", reasons.join(", ")),
                ),
            });
        } else if routes.system(&pod.spec.scheduler_name).is_none() {
            not_modelled += 1;
            let note = format!(
                "{NOT_MODELLED} {} maps to no modelled scheduler",
                pod.spec.scheduler_name
            );
            rows[i] = Some(row(None, Method::Greedy, note));
        } else {
            scheduled.push((i, member));
        }
    }
    let mut plan = place_in_runs(scheduler, members, &mut rows, &scheduled, solver, compare);
    plan.pods = rows.into_iter().flatten().collect();
    let state = scheduler.state();
    for (row, member) in plan.pods.iter_mut().zip(members) {
        let webhooked = &member.webhooked;
        row.webhook_affinity = webhooked.webhook_affinity.clone();
        row.datasets = webhooked.datasets.clone();
        if let Some(node) = row.node.as_deref().and_then(|n| state.node(n)) {
            datasets::locate(&mut row.datasets, node, &state.nodes);
        }
        for note in &webhooked.notes {
            row.note = if row.note.is_empty() {
                note.clone()
            } else {
                format!("{}; {note}", row.note)
            };
        }
    }
    plan.placed = plan.pods.iter().filter(|r| r.node.is_some()).count();
    plan.not_modelled = not_modelled;
    plan
}

/// Place the `scheduled` members (of `members`) in runs: a follower of exclusive placement
/// (JobSet, LeaderWorkerSet) is created only once its leader is bound, so the run before it
/// is placed first and the follower gets its leader's topology domain as a nodeSelector, or
/// is not created (upstream's reason). Without followers this is one run.
fn place_in_runs(
    scheduler: &mut Scheduler,
    members: &[Member],
    rows: &mut [Option<BatchPod>],
    scheduled: &[(usize, &Member)],
    solver: Solver,
    compare: bool,
) -> BatchPlan {
    let mut plan = None;
    let mut run: Vec<(usize, Member)> = Vec::new();
    let mut follow_notes = Vec::new();
    for (i, member) in scheduled {
        let Some(follower) = df_systems::operators::leader_of(&member.pod) else {
            run.push((*i, (*member).clone()));
            continue;
        };
        let namespace = &member.pod.metadata.namespace;
        let is_leader = |m: &Member| {
            m.pod.metadata.name == follower.leader && &m.pod.metadata.namespace == namespace
        };
        if run.iter().any(|(_, m)| is_leader(m)) {
            place_run(scheduler, &mut run, rows, &mut plan, solver, compare);
        }
        let leader_node = members
            .iter()
            .zip(rows.iter())
            .find(|(m, _)| is_leader(m))
            .and_then(|(_, row)| row.as_ref()?.node.clone());
        let node = leader_node
            .as_deref()
            .and_then(|n| scheduler.state().node(n));
        let mut member = (*member).clone();
        match df_systems::operators::follow(&mut member.pod, &follower, node) {
            Ok(note) => {
                follow_notes.push((*i, note));
                run.push((*i, member));
            }
            Err(reason) => rows[*i] = Some(BatchPod::new(&member, None, Method::Greedy, reason)),
        }
    }
    place_run(scheduler, &mut run, rows, &mut plan, solver, compare);
    for (i, note) in follow_notes {
        if let Some(row) = &mut rows[i] {
            row.note = if row.note.is_empty() {
                note
            } else {
                format!("{}; {note}", row.note)
            };
        }
    }
    plan.unwrap_or(BatchPlan {
        solver,
        pods: Vec::new(),
        placed: 0,
        not_modelled: 0,
        total_cost: None,
        comparison: None,
    })
}

/// Place one run, its rows into `rows`, merged into `plan` (a comparison is kept only for a
/// batch placed in one run: solvers compared over part of it would mislead).
fn place_run(
    scheduler: &mut Scheduler,
    run: &mut Vec<(usize, Member)>,
    rows: &mut [Option<BatchPod>],
    plan: &mut Option<BatchPlan>,
    solver: Solver,
    compare: bool,
) {
    if run.is_empty() {
        return;
    }
    let members: Vec<Member> = run.iter().map(|(_, m)| m.clone()).collect();
    let mut placed = plan_scheduled(scheduler, &members, solver, compare);
    for ((i, _), row) in run.iter().zip(std::mem::take(&mut placed.pods)) {
        rows[*i] = Some(row);
    }
    run.clear();
    *plan = Some(match plan.take() {
        None => placed,
        Some(mut before) => {
            before.total_cost = match (before.total_cost, placed.total_cost) {
                (Some(a), Some(b)) => Some(a + b),
                (a, b) => a.or(b),
            };
            before.comparison = None;
            before
        }
    });
}

/// Place pods that go through the scheduler with `solver` (and with both when `compare`),
/// the chosen solver's placements assumed into `scheduler`.
fn plan_scheduled(
    scheduler: &mut Scheduler,
    members: &[Member],
    solver: Solver,
    compare: bool,
) -> BatchPlan {
    let state = scheduler.state();
    let pods: Vec<Pod> = members.iter().map(|m| m.pod.clone()).collect();
    let refs: Vec<&Pod> = pods.iter().collect();
    let row = BatchPod::new;
    let before = compare.then(|| scheduler.clone());
    let (rows, total_cost): (Vec<BatchPod>, Option<i64>) = match solver {
        Solver::Greedy => (
            members
                .iter()
                .zip(greedy(scheduler, &refs))
                .map(|(m, (node, note, preempts))| BatchPod {
                    preempts,
                    ..row(m, node, Method::Greedy, note)
                })
                .collect(),
            None,
        ),
        Solver::Flow => {
            let plan = flow::solve_batch_on(scheduler.fork(), &pods);
            for (pod, placement) in pods.iter().zip(&plan.placements) {
                if let Some(node) = &placement.node {
                    scheduler.assume(pod.clone(), node);
                }
            }
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
    let comparison = before.map(|mut before| {
        let chosen: Vec<Option<String>> = rows.iter().map(|r| r.node.clone()).collect();
        let (greedy_nodes, flow_nodes) = match solver {
            Solver::Greedy => (chosen, flow::solve_batch_on(before, &pods).nodes()),
            Solver::Flow => (
                greedy(&mut before, &refs)
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
        not_modelled: 0,
        pods: rows,
        total_cost,
        comparison,
    }
}
