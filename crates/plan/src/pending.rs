//! `plan --pending`: the Pending pods the cluster state already holds (no `spec.nodeName`, not
//! terminated), planned in the order kube-scheduler's active queue pops them, through the same
//! gang and batch placement as the inputs.
//!
//! Queue order is upstream's PrioritySort: higher priority first, then the earlier queue
//! timestamp. A dump records no queue timestamp; `metadata.creationTimestamp` stands in (it is
//! what the timestamp starts as), and pods without one come last. Ties go by namespace and
//! name, so the order is deterministic. A gang is popped as one unit, keyed by its highest
//! member priority (the first member upstream, which sorts pods one by one, would pop) and its
//! group's creation time (coscheduling's QueueSort).
//!
//! Pending pods hold no node: the state indexes only bound pods, so a Pending pod never counts
//! against itself or the others until the plan places it. A pod nominated by an earlier
//! preemption (`status.nominatedNodeName`) is tried on that node first (see
//! [`Scheduler::decide`]); that the nomination also reserves the node for pods of lower
//! priority is not modelled beyond queue order (higher priorities are placed first anyway).

use std::cmp::Reverse;
use std::collections::BTreeMap;

use super::batch::{self, BatchPlan, Member, Solver};
use df_engine::Scheduler;
use df_manifest::ManifestSet;
use df_model::Pod;
use df_state::ClusterState;
use df_systems::gang::{self, Gang, GangError, GangOptions, GroupPlan, SchedulerRoutes};

/// What `batch.pods[].from` says of a Pending pod taken from the cluster state.
pub const FROM_STATE: &str = "cluster state";

/// One entry of the scheduling queue: a plain pod, or a gang popped as one unit.
pub(crate) enum Unit {
    Pod(Box<Pod>),
    Gang(Box<Gang>),
}

/// Upstream PrioritySort's order, made total: priority (higher first), queue timestamp
/// (earlier first, unknown last), then namespace and name.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord)]
struct QueueKey {
    priority: Reverse<i32>,
    unknown_time: bool,
    timestamp: String,
    namespace: String,
    name: String,
}

impl QueueKey {
    fn new(priority: i32, timestamp: Option<&str>, namespace: &str, name: &str) -> QueueKey {
        QueueKey {
            priority: Reverse(priority),
            unknown_time: timestamp.is_none(),
            timestamp: timestamp.unwrap_or_default().to_string(),
            namespace: namespace.to_string(),
            name: name.to_string(),
        }
    }
}

impl Unit {
    /// Whether Volcano's `allocate` action takes this unit with its other gangs.
    pub(crate) fn volcano(&self, routes: &SchedulerRoutes) -> bool {
        matches!(self, Unit::Gang(g) if gang::allocated_by_volcano(g, routes))
    }

    fn key(&self, state: &ClusterState) -> QueueKey {
        match self {
            Unit::Pod(pod) => QueueKey::new(
                state.pod_priority(pod).value,
                pod.metadata.creation_timestamp.as_deref(),
                &pod.metadata.namespace,
                &pod.metadata.name,
            ),
            Unit::Gang(gang) => {
                let pods = gang.members.iter().map(|m| &m.pod);
                let priority = pods
                    .clone()
                    .map(|pod| state.pod_priority(pod).value)
                    .max()
                    .unwrap_or_default();
                let created = gang.meta.creation_timestamp.as_deref().or_else(|| {
                    pods.filter_map(|pod| pod.metadata.creation_timestamp.as_deref())
                        .min()
                });
                QueueKey::new(priority, created, &gang.meta.namespace, &gang.meta.name)
            }
        }
    }
}

/// The state's Workloads Kueue has not admitted (their jobs suspended, without pods), each with
/// what Kueue decides for it now: one note each, in `namespace` when given, and how many of
/// them Kueue keeps suspended.
pub(crate) fn kueue_waiting(state: &ClusterState, namespace: Option<&str>) -> (Vec<String>, usize) {
    let mut held = 0;
    let notes = df_systems::gang::kueue::waiting_workloads(state)
        .into_iter()
        .filter(|(w, _)| namespace.is_none_or(|n| n == w.metadata.namespace))
        .map(|(w, decision)| {
            let name = format!(
                "Kueue Workload {}/{} (LocalQueue {})",
                w.metadata.namespace, w.metadata.name, w.spec.queue_name
            );
            if decision.admitted {
                let line = decision.line();
                let admitted = line.strip_prefix("Kueue: ").unwrap_or(&line);
                format!("{name} is suspended; Kueue would now have it {admitted}: its job starts and creates its pods")
            } else {
                held += 1;
                format!(
                    "{name} is suspended and stays so ({}): {}",
                    decision.reason, decision.message
                )
            }
        })
        .collect();
    (notes, held)
}

/// Whether kube-scheduler still has to place `pod`: it names no node and has not terminated.
pub(crate) fn is_pending(pod: &Pod) -> bool {
    pod.spec.node_name.is_empty() && !pod.is_terminated()
}

/// The Pending pods and gangs of `state` in queue order. Gangs `skip` says the inputs plan
/// (they join pods of the inputs too) are left out of the queue.
pub(crate) fn queue(
    state: &ClusterState,
    routes: &SchedulerRoutes,
    skip: impl Fn(&Gang) -> bool,
) -> Vec<Unit> {
    let opts = GangOptions {
        routes: routes.clone(),
        ..GangOptions::default()
    };
    let gangs = gang::gangs(&ManifestSet::default(), state, &opts);
    let pods = state
        .pods
        .iter()
        .filter(|pod| is_pending(pod) && !gang::joins_any(pod))
        .map(|pod| Unit::Pod(Box::new(pod.clone())));
    let mut units: Vec<(QueueKey, Unit)> = gangs
        .into_iter()
        .filter(|g| !skip(g))
        .map(|gang| Unit::Gang(Box::new(gang)))
        .chain(pods)
        .map(|unit| (unit.key(state), unit))
        .collect();
    units.sort_by(|a, b| a.0.cmp(&b.0));
    units.into_iter().map(|(_, unit)| unit).collect()
}

/// The queue's placements: its gangs' plans, and its plain pods as a greedy batch in queue
/// order (rows `from` [`FROM_STATE`]).
#[derive(Default)]
pub(crate) struct QueuePlan {
    pub groups: Vec<GroupPlan>,
    pub batch: Option<BatchPlan>,
}

/// Place `units` in order, each seeing every placement before it (kube-scheduler pops one pod
/// or gang at a time): runs of plain pods go through the batch's greedy path, gangs through
/// their gang scheduler, Volcano's gangs all together when the first of them comes (its
/// `allocate` action takes them queue by queue: [`gang::plan_volcano`]).
pub(crate) fn plan_queue(
    scheduler: &mut Scheduler,
    units: &[Unit],
    routes: &SchedulerRoutes,
    compare: bool,
) -> Result<QueuePlan, GangError> {
    let mut plan = QueuePlan::default();
    let mut enqueue = gang::volcano::enqueue::Session::new(scheduler);
    let mut run: Vec<Member> = Vec::new();
    let flush = |scheduler: &mut Scheduler, run: &mut Vec<Member>, plan: &mut QueuePlan| {
        if run.is_empty() {
            return;
        }
        let placed = batch::plan_batch(scheduler, run, routes, Solver::Greedy, false);
        run.clear();
        plan.batch = BatchPlan::concat(plan.batch.take(), Some(placed));
    };
    let volcano: Vec<usize> = (0..units.len())
        .filter(|&i| units[i].volcano(routes))
        .collect();
    let mut allocated: BTreeMap<usize, GroupPlan> = BTreeMap::new();
    for (i, unit) in units.iter().enumerate() {
        match unit {
            // A Pending pod of the state was admitted when it was created: Fluid's webhook
            // has nothing left to add, and its quota already counts it.
            Unit::Pod(pod) => run.push(Member {
                from: FROM_STATE.to_string(),
                pod: pod.as_ref().clone(),
                webhooked: Default::default(),
                rejected: None,
            }),
            Unit::Gang(gang) => {
                flush(scheduler, &mut run, &mut plan);
                if volcano.first() == Some(&i) {
                    let gangs: Vec<&Gang> = volcano
                        .iter()
                        .filter_map(|&j| match &units[j] {
                            Unit::Gang(g) => Some(g.as_ref()),
                            Unit::Pod(_) => None,
                        })
                        .collect();
                    let plans =
                        gang::plan_volcano(scheduler, &gangs, routes, compare, &mut enqueue)?;
                    allocated = volcano.iter().copied().zip(plans).collect();
                }
                if let Some(planned) = allocated.remove(&i) {
                    plan.groups.push(planned);
                    continue;
                }
                plan.groups.push(gang::plan_gang(
                    scheduler,
                    gang,
                    routes,
                    compare,
                    &mut enqueue,
                )?);
            }
        }
    }
    flush(scheduler, &mut run, &mut plan);
    Ok(plan)
}

#[cfg(test)]
mod tests {
    use super::*;
    use df_model::{ObjectMeta, PodSpec, PodStatus};

    fn pod(name: &str, priority: i32, created: Option<&str>, node: &str, phase: &str) -> Pod {
        Pod {
            metadata: ObjectMeta {
                name: name.into(),
                namespace: "ns".into(),
                creation_timestamp: created.map(df_model::CompactString::from),
                ..ObjectMeta::default()
            },
            spec: PodSpec {
                node_name: node.into(),
                priority: Some(priority),
                ..PodSpec::default()
            },
            status: PodStatus {
                phase: phase.into(),
                ..PodStatus::default()
            },
        }
    }

    #[test]
    fn queue_orders_by_priority_then_creation_time_then_name() {
        let pods = [
            pod("late", 10, Some("2024-05-02T00:00:00Z"), "", "Pending"),
            pod("early", 10, Some("2024-05-01T00:00:00Z"), "", "Pending"),
            pod("no-time", 10, None, "", "Pending"),
            pod("high", 100, Some("2024-06-01T00:00:00Z"), "", "Pending"),
            pod("b-same", 10, Some("2024-05-01T00:00:00Z"), "", "Pending"),
            pod("low", -5, Some("2020-01-01T00:00:00Z"), "", "Pending"),
        ];
        let state = ClusterState::from_objects(pods.map(df_model::Object::Pod));
        let order: Vec<String> = queue(&state, &SchedulerRoutes::default(), |_| false)
            .iter()
            .map(|u| match u {
                Unit::Pod(p) => p.metadata.name.clone(),
                Unit::Gang(g) => g.meta.name.clone(),
            })
            .collect();
        assert_eq!(order, ["high", "b-same", "early", "late", "no-time", "low"]);
    }

    /// Volcano's gangs of the state are allocated in one session, queue by queue: on one
    /// 2-CPU node, queues `qa` and `qb` (weight 1 each, both asking 2 CPUs) deserve 1 CPU
    /// each, so each group binds one of its two pods (issue 31, row 8.1), where planning the
    /// groups one after the other would give `ga` both.
    #[test]
    fn volcano_gangs_of_the_queue_share_by_queue() {
        let mut yaml = String::from(
            "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: \"2\", memory: 4Gi, pods: \"110\"}}\n---\n",
        );
        for (group, queue) in [("ga", "qa"), ("gb", "qb")] {
            yaml.push_str(&format!(
                "apiVersion: scheduling.volcano.sh/v1beta1\nkind: Queue\nmetadata: {{name: {queue}}}\nspec: {{weight: 1}}\n---\napiVersion: scheduling.volcano.sh/v1beta1\nkind: PodGroup\nmetadata: {{name: {group}, namespace: ns}}\nspec: {{minMember: 1, queue: {queue}}}\n---\n"
            ));
            for i in 0..2 {
                yaml.push_str(&format!(
                    "apiVersion: v1\nkind: Pod\nmetadata: {{name: {group}-{i}, namespace: ns, annotations: {{scheduling.k8s.io/group-name: {group}}}}}\nspec: {{schedulerName: volcano, containers: [{{name: c, resources: {{requests: {{cpu: \"1\"}}}}}}]}}\n---\n"
                ));
            }
        }
        let (manifests, problems) =
            df_manifest::parse_text(&std::sync::Arc::from("state.yaml"), &yaml);
        assert!(problems.is_empty(), "{problems:?}");
        let state = ClusterState::from_objects(manifests.into_iter().map(|m| m.object));
        let routes = SchedulerRoutes::default();
        let units = queue(&state, &routes, |_| false);
        let mut scheduler = Scheduler::new(&state, df_engine::Profile::default());
        let plan = plan_queue(&mut scheduler, &units, &routes, false).unwrap();
        let placed: Vec<(String, usize)> = plan
            .groups
            .iter()
            .map(|g| (g.name.clone(), g.scheduled))
            .collect();
        assert_eq!(placed, [("ga".to_string(), 1), ("gb".to_string(), 1)]);
    }

    #[test]
    fn only_unbound_live_pods_are_pending() {
        let cases = [
            ("", "Pending", true),
            ("", "", true),
            ("n1", "Pending", false),
            ("n1", "Running", false),
            ("", "Failed", false),
            ("", "Succeeded", false),
        ];
        for (node, phase, pending) in cases {
            assert_eq!(
                is_pending(&pod("p", 0, None, node, phase)),
                pending,
                "{node:?} {phase:?}"
            );
        }
    }
}
