//! The one all-or-nothing path every gang is placed through. Pods are placed one by one, each
//! assumed into the plan's one scheduler so that it counts for the resources, ports and
//! (anti-)affinity of every pod after it (kube-batch's in-session rule, which Volcano, Godel
//! and the Workload gang plugin share); a kind-specific [`Chooser`] says where each pod may go.
//! When fewer than the quorum fit, every placement of the attempt is undone, as the gang
//! schedulers discard a session whose job is not ready.

use std::collections::BTreeMap;

use super::model::{Gang, task_of};
use super::outcome::{
    GangStatus, GroupPlan, PodOutcome, Rejection, compare_with_default, summarise_blocked,
};
use df_engine::{Decision, Scheduler};
use df_model::Pod;
use df_model::fluid::HOSTNAME_LABEL;
use df_state::ClusterState;

/// Where one pod of the gang goes, given everything assumed so far.
pub(crate) trait Chooser {
    /// The node for pod `index`, or why none fits.
    fn choose(&mut self, scheduler: &Scheduler, index: usize, pod: &Pod) -> Result<String, String>;
    /// Pod `index` was assumed on `node`.
    fn placed(&mut self, _index: usize, _node: &str) {}
}

/// The engine's decision for `pod` over every node, or only over `within` (state node indexes:
/// the topology domain a network-topology-aware system gave the gang).
pub(crate) fn decide_in(scheduler: &Scheduler, pod: &Pod, within: Option<&[usize]>) -> Decision {
    match within {
        Some(nodes) => scheduler.decide_within(pod, nodes),
        None => scheduler.decide(pod),
    }
}

/// Plain pod-by-pod placement: the engine's own decision, over every node or only `within`.
pub(crate) struct AnyNode<'n> {
    pub within: Option<&'n [usize]>,
}

impl Chooser for AnyNode<'_> {
    fn choose(&mut self, scheduler: &Scheduler, _: usize, pod: &Pod) -> Result<String, String> {
        let decision = decide_in(scheduler, pod, self.within);
        decision
            .selected
            .ok_or_else(|| decision.summary.unwrap_or_default())
    }
}

/// Pod-by-pod placement that stages exclusive placement's followers (JobSet,
/// LeaderWorkerSet): their operator creates them only once their leader is bound, and the
/// pod webhook then gives each its leader's topology domain as a nodeSelector; a follower
/// whose leader found no node is not created (upstream's reason). For pods the scheduler
/// takes one by one (a Kueue workload), not for a gang, which binds no leader before the
/// followers exist.
pub(crate) struct StagingFollowers<'p> {
    pub pods: &'p [&'p Pod],
    pub within: Option<&'p [usize]>,
    /// The node each placed pod (by index) took.
    pub placed: BTreeMap<usize, String>,
}

impl Chooser for StagingFollowers<'_> {
    fn choose(&mut self, scheduler: &Scheduler, index: usize, pod: &Pod) -> Result<String, String> {
        let mut any = AnyNode {
            within: self.within,
        };
        let Some(follower) = crate::operators::leader_of(pod) else {
            return any.choose(scheduler, index, pod);
        };
        let namespace = &pod.metadata.namespace;
        let leader_node = self
            .pods
            .iter()
            .position(|p| p.metadata.name == follower.leader && &p.metadata.namespace == namespace)
            .and_then(|leader| self.placed.get(&leader))
            .and_then(|node| scheduler.state().node(node));
        let mut pod = pod.clone();
        crate::operators::follow(&mut pod, &follower, leader_node)?;
        any.choose(scheduler, index, &pod)
    }

    fn placed(&mut self, index: usize, node: &str) {
        self.placed.insert(index, node.to_string());
    }
}

/// How many of the pending pods must fit: in total, and per task for the kinds that count
/// tasks (Volcano `minTaskMember`, a Job task's `minAvailable`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Quorum {
    pub total: usize,
    pub per_task: BTreeMap<String, usize>,
}

impl Quorum {
    pub(crate) fn met(&self, placed: &[bool], tasks: &[Option<&str>]) -> bool {
        let count = placed.iter().filter(|p| **p).count();
        count >= self.total
            && self.per_task.iter().all(|(task, need)| {
                let of_task = placed
                    .iter()
                    .zip(tasks)
                    .filter(|(p, t)| **p && **t == Some(task.as_str()))
                    .count();
                of_task >= *need
            })
    }
}

/// Whether an attempt goes on past a pod that fits nowhere, and which pods it no longer tries:
/// the one place the gang kinds differ in how far an attempt goes.
pub(crate) trait Persist {
    /// Why pod `index` is not tried at all, when the attempt passes it over; `placed` says
    /// which pods of the attempt fit so far.
    fn skip(&self, _index: usize, _placed: &[bool]) -> Option<String> {
        None
    }
    /// Pod `index` fit nowhere; `placed` says which pods of the attempt fit so far. Whether
    /// the attempt tries the pods after it.
    fn go_on(&mut self, index: usize, placed: &[bool]) -> bool;
}

/// Go on while the quorum can still be met: the pods that fit plus those not yet tried reach
/// its total (kube-batch, coscheduling, Godel and the Workload gang plugin try every pod that
/// could still matter).
pub(crate) struct WhileReachable {
    pub total: usize,
}

impl Persist for WhileReachable {
    fn go_on(&mut self, index: usize, placed: &[bool]) -> bool {
        let fit = placed.iter().filter(|p| **p).count();
        fit + (placed.len() - index - 1) >= self.total
    }
}

/// One attempt at placing a gang's pending pods.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Attempt {
    /// Per pod: its node, why it fit nowhere, or `None` when it was not tried.
    pub outcomes: Vec<Option<Result<String, String>>>,
    /// Pods that fit (whether or not the attempt was kept).
    pub fit: usize,
    /// The quorum was met and the placements stay assumed.
    pub ready: bool,
}

impl Attempt {
    /// The group's plan once the attempt is made, for gangs placed node by node (hostname
    /// level): how many fit counting the `running` members, and, when the quorum is missed,
    /// the group is Unschedulable with each unplaced pod's first blocking reason summarised.
    pub(crate) fn group_plan(
        &self,
        gang: &Gang,
        state: &ClusterState,
        outcomes: &[PodOutcome],
        min: usize,
        running: usize,
        not_tried: &str,
    ) -> GroupPlan {
        let mut plan =
            GroupPlan::assemble(gang, state, vec![HOSTNAME_LABEL.to_string()], outcomes, min);
        plan.fit = running + self.fit;
        if !self.ready {
            plan.status = GangStatus::Unschedulable;
            plan.blocked = summarise_blocked(self.first_reasons(not_tried));
        }
        plan
    }

    /// The first reason each unplaced pod was blocked by (`not_tried` for pods never tried).
    pub(crate) fn first_reasons<'a>(&'a self, not_tried: &'a str) -> impl Iterator<Item = &'a str> {
        self.outcomes.iter().filter_map(move |o| match o {
            Some(Ok(_)) => None,
            Some(Err(reason)) => Some(reason.as_str()),
            None => Some(not_tried),
        })
    }
}

/// Place `pods` in order through `chooser`, passing over the pods `persist` skips and
/// stopping at a pod that fits nowhere when `persist` says so. Placements are kept only when
/// the quorum is met.
pub(crate) fn all_or_nothing(
    scheduler: &mut Scheduler,
    pods: &[&Pod],
    tasks: &[Option<&str>],
    quorum: &Quorum,
    persist: &mut dyn Persist,
    chooser: &mut dyn Chooser,
) -> Attempt {
    let mut outcomes: Vec<Option<Result<String, String>>> = vec![None; pods.len()];
    let mut placed = vec![false; pods.len()];
    for (i, pod) in pods.iter().enumerate() {
        if let Some(reason) = persist.skip(i, &placed) {
            outcomes[i] = Some(Err(reason));
            continue;
        }
        let outcome = chooser.choose(scheduler, i, pod);
        let failed = outcome.is_err();
        if let Ok(node) = &outcome {
            scheduler.assume((*pod).clone(), node);
            chooser.placed(i, node);
            placed[i] = true;
        }
        outcomes[i] = Some(outcome);
        if failed && !persist.go_on(i, &placed) {
            break;
        }
    }
    let fit = placed.iter().filter(|p| **p).count();
    let ready = quorum.met(&placed, tasks);
    if !ready {
        for (pod, _) in pods.iter().zip(&placed).filter(|(_, p)| **p) {
            scheduler.forget(&pod.metadata.namespace, &pod.metadata.name);
        }
    }
    Attempt {
        outcomes,
        fit,
        ready,
    }
}

impl Quorum {
    /// What `gang` still needs of its pending pods: its minimum and per-task minimums, less
    /// the pods that already run.
    pub fn of(gang: &Gang) -> Quorum {
        let running_of = |task: &str| {
            gang.running
                .iter()
                .filter(|p| task_of(p).as_deref() == Some(task))
                .count()
        };
        Quorum::less_running(gang, gang.running.len(), running_of)
    }

    /// `gang`'s minimum and per-task minimums less `running` pods, `running_of(task)` of them
    /// of each task. The per-task minimums count only when the minimum is at least their sum:
    /// Volcano's gang plugin, the only one that has them, skips them otherwise
    /// (`CheckTaskReady`: a job may then start with any mix of tasks).
    pub fn less_running(gang: &Gang, running: usize, running_of: impl Fn(&str) -> usize) -> Quorum {
        let per_task = if gang.min_member >= gang.min_task_member.values().sum::<i64>() {
            gang.min_task_member
                .iter()
                .map(|(task, n)| {
                    let need = usize::try_from(*n).unwrap_or(0);
                    (task.clone(), need.saturating_sub(running_of(task)))
                })
                .collect()
        } else {
            BTreeMap::new()
        };
        Quorum {
            total: gang.minimum().saturating_sub(running),
            per_task,
        }
    }
}

/// Plan a gang pod by pod over every node through the all-or-nothing path (kube-batch,
/// coscheduling, Workload gangs, and any gang sent to a scheduler that ignores its group),
/// trying pods while the quorum can still be met. `refused` is a reason the scheduler turns
/// the whole group away before trying any pod (coscheduling's PreFilter). `within` restricts
/// the pods to a topology domain's nodes.
pub(crate) fn plan_pod_by_pod(
    scheduler: &mut Scheduler,
    gang: &Gang,
    compare: bool,
    refused: Option<String>,
    within: Option<&[usize]>,
) -> GroupPlan {
    let total = Quorum::of(gang).total;
    let mut persist = WhileReachable { total };
    let mut chooser = AnyNode { within };
    plan_members(
        scheduler,
        gang,
        compare,
        refused,
        &mut chooser,
        &mut persist,
    )
}

/// [`plan_pod_by_pod`] with exclusive placement's followers staged ([`StagingFollowers`]):
/// pods the scheduler takes one by one, as they are created.
pub(crate) fn plan_staging_followers(
    scheduler: &mut Scheduler,
    gang: &Gang,
    compare: bool,
    within: Option<&[usize]>,
) -> GroupPlan {
    let total = Quorum::of(gang).total;
    let mut persist = WhileReachable { total };
    let pods: Vec<&Pod> = gang.members.iter().map(|m| &m.pod).collect();
    let mut chooser = StagingFollowers {
        pods: &pods,
        within,
        placed: BTreeMap::new(),
    };
    plan_members(scheduler, gang, compare, None, &mut chooser, &mut persist)
}

/// [`plan_pod_by_pod`] with the kind's own rule for going on past a pod that fits nowhere
/// (`persist`, over the gang's members in order) and its way of choosing each pod's node.
pub(crate) fn plan_members(
    scheduler: &mut Scheduler,
    gang: &Gang,
    compare: bool,
    refused: Option<String>,
    chooser: &mut dyn Chooser,
    persist: &mut dyn Persist,
) -> GroupPlan {
    let state = scheduler.state();
    let before = compare.then(|| scheduler.clone());
    let pods: Vec<&Pod> = gang.members.iter().map(|m| &m.pod).collect();
    let tasks: Vec<Option<&str>> = gang.members.iter().map(|m| m.task.as_deref()).collect();
    let min = gang.minimum();
    let quorum = Quorum::of(gang);
    let attempt = match &refused {
        Some(reason) => Attempt {
            outcomes: vec![Some(Err(reason.clone())); pods.len()],
            fit: 0,
            ready: false,
        },
        None => all_or_nothing(scheduler, &pods, &tasks, &quorum, persist, chooser),
    };
    let running = gang.running.len();
    let not_tried = format!("not tried: the gang can no longer reach minMember {min}");
    let shortfall = format!(
        "only {} of minMember {min} pods fit ({running} running)",
        running + attempt.fit
    );
    let not_ready = format!("gang not ready: {shortfall}");
    let outcomes: Vec<PodOutcome> = gang
        .running
        .iter()
        .map(PodOutcome::running)
        .chain(gang.members.iter().zip(&attempt.outcomes).map(|(m, o)| {
            let result = match o {
                Some(Ok(_)) if !attempt.ready => Err(not_ready.clone()),
                Some(other) => other.clone(),
                None => Err(not_tried.clone()),
            };
            PodOutcome {
                pod: &m.pod,
                task: m.task.clone(),
                result,
                running: false,
                source: Some(m.source.clone()),
            }
        }))
        .collect();
    let mut plan = attempt.group_plan(gang, state, &outcomes, min, running, &not_tried);
    if !attempt.ready {
        plan.rejections.push(Rejection {
            group: "gang".into(),
            reason: refused.unwrap_or(format!(
                "{shortfall}; the gang binds none of its pending pods"
            )),
        });
    }
    if let Some(before) = before {
        let pending: Vec<Pod> = gang.members.iter().map(|m| m.pod.clone()).collect();
        let running: Vec<&Pod> = gang.running.iter().collect();
        plan.comparison = Some(compare_with_default(&before, &pending, &running, &plan));
    }
    plan
}
