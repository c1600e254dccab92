//! How a gang plan reads, whatever the kind: the `groups[]` entry of the plan contract, the
//! per-level domain counts behind the summary line, and the comparison with the plain default
//! scheduler. Every kind reports in exactly this shape.

use std::collections::BTreeMap;

use serde::Serialize;

use df_engine::Scheduler;
use df_model::fluid::HOSTNAME_LABEL;
use df_model::{Node, Pod};
use df_state::ClusterState;

use super::model::{Gang, PodSource, System};
use crate::topology::output::{RejectedDomain, TopologyPlan};

/// One gang in `plan -o json` (`groups[]`). The first six fields are the contract; the rest
/// explain the plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupPlan {
    /// The object kind: `PodGroup`, `Job` (Volcano) or `Workload`.
    pub kind: &'static str,
    pub namespace: String,
    pub name: String,
    /// Every pod of the gang, running ones included; `null` when it would stay pending.
    pub placements: BTreeMap<String, Option<String>>,
    /// Pods with a node once the plan is applied (running ones included).
    pub scheduled: usize,
    pub min_member: usize,
    /// Which gang kind (`godel`, `volcano-job`, `kube-batch`...) and its apiVersion.
    pub gang_kind: &'static str,
    pub api_version: String,
    /// The gang's queue and priority class, as its kind spells them (empty when unset).
    pub queue: String,
    pub priority_class_name: String,
    /// The `schedulerName` its pods ask for and the system that answers it.
    pub scheduler_name: String,
    pub system: Option<System>,
    pub status: GangStatus,
    /// Pods of the gang that would be placed if the gang were placed pod by pod up to its
    /// first shortfall: with `minMember`, the "how many fit" of an unschedulable gang.
    pub fit: usize,
    /// For an unschedulable gang: each pod's first blocking reason, counted.
    pub blocked: Vec<Blocked>,
    /// Pods of the gang that already run; they count towards `minMember`.
    pub running: usize,
    /// Topology keys shown per pod, largest scope first.
    pub levels: Vec<String>,
    /// Table rows in the order the pods were planned.
    pub pods: Vec<PodRow>,
    /// Godel: the node group (topology domain) that took the unit.
    pub node_group: Option<String>,
    /// Godel: the chosen node group's nodes (state indexes), so that one pod can be explained
    /// inside its group's plan.
    #[serde(skip)]
    pub group_nodes: Vec<usize>,
    /// Volcano: the HyperNode each partition of a task with its own network topology went to.
    pub partitions: Vec<PartitionHome>,
    /// Pods per domain at each level of `levels`.
    pub domains: Vec<LevelCount>,
    /// Why candidate groups (or the gang as a whole) were turned down.
    pub rejections: Vec<Rejection>,
    /// The network topology domain the gang was kept in (Volcano HyperNodes, Kueue TAS...).
    pub topology: Option<TopologyPlan>,
    /// Domains at the constraining level the gang was not placed in, and why.
    pub rejected: Vec<RejectedDomain>,
    pub summary: String,
    /// Pods of the gang the API server rejects (LimitRange, ResourceQuota), by name, with its
    /// words: they are never created, so neither placed nor counted.
    pub rejected_at_admission: BTreeMap<String, String>,
    pub warnings: Vec<String>,
    pub comparison: Option<Comparison>,
    /// Kueue's admission of the job (`null` when no Kueue queue manages it).
    pub admission: Option<crate::kueue::Decision>,
}

/// One partition of a Volcano Job task and the HyperNode that took it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PartitionHome {
    pub task: String,
    pub partition: usize,
    pub hyper_node: String,
}

/// What becomes of the gang as a whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum GangStatus {
    /// At least the minimum is placed (or runs).
    Scheduled,
    /// Fewer than the minimum fit: none of its pending pods is placed.
    Unschedulable,
    /// Fewer pods exist than the minimum (none at all, or too few): the scheduler waits.
    WaitingForPods,
    /// Its pods join a group that is in neither the inputs nor the state.
    GroupNotFound,
    /// Its pods' `schedulerName` maps to no modelled scheduler: not planned.
    NotModelled,
}

impl GangStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            GangStatus::Scheduled => "Scheduled",
            GangStatus::Unschedulable => "Unschedulable",
            GangStatus::WaitingForPods => "WaitingForPods",
            GangStatus::GroupNotFound => "GroupNotFound",
            GangStatus::NotModelled => "NotModelled",
        }
    }
}

/// `pods` pods of the gang were first blocked by `reason`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Blocked {
    pub reason: String,
    pub pods: usize,
}

/// Each pod's first blocking reason, counted; most frequent first, then by reason.
pub fn summarise_blocked<'a>(reasons: impl IntoIterator<Item = &'a str>) -> Vec<Blocked> {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for reason in reasons {
        *counts.entry(reason).or_default() += 1;
    }
    let mut blocked: Vec<Blocked> = counts
        .into_iter()
        .map(|(reason, pods)| Blocked {
            reason: reason.to_string(),
            pods,
        })
        .collect();
    blocked.sort_by(|a, b| b.pods.cmp(&a.pods).then_with(|| a.reason.cmp(&b.reason)));
    blocked
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodRow {
    pub pod: String,
    /// Volcano task name; Godel pods have none.
    pub task: Option<String>,
    pub node: Option<String>,
    /// The pod's domain at each of the plan's `levels` (None when unplaced or unlabelled).
    pub domains: Vec<Option<String>>,
    pub running: bool,
    /// Where a pending pod comes from (the inputs, a template's replicas, the state, a task).
    pub source: Option<PodSource>,
    pub reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LevelCount {
    pub key: String,
    pub pods: BTreeMap<String, usize>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Rejection {
    pub group: String,
    pub reason: String,
}

/// The same pods placed by the plain default scheduler, one by one, without group semantics.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    pub placements: BTreeMap<String, Option<String>>,
    pub scheduled: usize,
    /// How many domains each placement spans at each level.
    pub levels: Vec<LevelSpread>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LevelSpread {
    pub key: String,
    /// Domains the gang-aware plan uses.
    pub gang: usize,
    /// Domains the default scheduler uses.
    pub default: usize,
}

/// Pods per domain at each level; pods without a node, or on nodes without the label, are not
/// counted.
pub(crate) fn count_domains<'a>(
    levels: &[String],
    nodes_of_pods: impl IntoIterator<Item = &'a Node> + Clone,
) -> Vec<LevelCount> {
    levels
        .iter()
        .map(|key| {
            let mut pods = BTreeMap::new();
            for node in nodes_of_pods.clone() {
                if let Some(value) = node.metadata.labels.get(key) {
                    *pods.entry(value.to_string()).or_insert(0) += 1;
                }
            }
            LevelCount {
                key: key.clone(),
                pods,
            }
        })
        .collect()
}

/// `8/8 pods placed in bigPod=a, miniPod=a1; tors: a1-t1 x6, a1-t2 x2`: levels the gang fills
/// with one domain are named, levels it spreads over are counted.
pub fn summary_line(placed: usize, total: usize, domains: &[LevelCount]) -> String {
    let mut line = format!("{placed}/{total} pods placed");
    let single: Vec<String> = domains
        .iter()
        .filter(|level| level.pods.len() == 1)
        .flat_map(|level| level.pods.keys().map(move |v| format!("{}={v}", level.key)))
        .collect();
    if !single.is_empty() {
        line.push_str(" in ");
        line.push_str(&single.join(", "));
    }
    for level in domains.iter().filter(|level| level.pods.len() > 1) {
        let counts: Vec<String> = level
            .pods
            .iter()
            .map(|(value, n)| format!("{value} x{n}"))
            .collect();
        line.push_str(&format!("; {}: {}", plural(&level.key), counts.join(", ")));
    }
    line
}

/// `tor` -> `tors`, `topology.kubernetes.io/zone` -> `zones`, the hostname label -> `nodes`.
fn plural(key: &str) -> String {
    if key == HOSTNAME_LABEL {
        return "nodes".to_string();
    }
    let short = key.rsplit('/').next().unwrap_or(key);
    format!("{short}s")
}

/// How many distinct domains the placed pods occupy at each level, gang plan against default.
pub fn spread(levels: &[String], gang: &[LevelCount], default: &[LevelCount]) -> Vec<LevelSpread> {
    levels
        .iter()
        .zip(gang.iter().zip(default))
        .map(|(key, (g, d))| LevelSpread {
            key: key.clone(),
            gang: g.pods.len(),
            default: d.pods.len(),
        })
        .collect()
}

/// How one pod of a gang ends up in the plan.
#[derive(Debug, Clone)]
pub struct PodOutcome<'a> {
    pub pod: &'a Pod,
    pub task: Option<String>,
    /// The node, or why the pod stays pending.
    pub result: Result<String, String>,
    pub running: bool,
    pub source: Option<PodSource>,
}

impl<'a> PodOutcome<'a> {
    /// A member already running on its node: it counts toward the minimum as it is.
    pub fn running(pod: &'a Pod) -> PodOutcome<'a> {
        PodOutcome {
            pod,
            task: None,
            result: Ok(pod.spec.node_name.clone()),
            running: true,
            source: None,
        }
    }
}

impl GroupPlan {
    /// The plan of a gang from its pods' outcomes, in planning order.
    pub fn assemble(
        gang: &Gang,
        state: &ClusterState,
        levels: Vec<String>,
        outcomes: &[PodOutcome],
        min_member: usize,
    ) -> GroupPlan {
        let domain = |node: &str, key: &str| -> Option<String> {
            state
                .node(node)?
                .metadata
                .labels
                .get(key)
                .map(ToString::to_string)
        };
        let pods: Vec<PodRow> = outcomes
            .iter()
            .map(|o| PodRow {
                pod: o.pod.metadata.name.clone(),
                task: o.task.clone(),
                node: o.result.as_ref().ok().cloned(),
                domains: levels
                    .iter()
                    .map(|key| o.result.as_ref().ok().and_then(|n| domain(n, key)))
                    .collect(),
                running: o.running,
                source: o.source.clone(),
                reason: o.result.as_ref().err().filter(|r| !r.is_empty()).cloned(),
            })
            .collect();
        let placements: BTreeMap<String, Option<String>> = pods
            .iter()
            .map(|r| (r.pod.clone(), r.node.clone()))
            .collect();
        let domains = count_domains(&levels, placed_nodes(state, &placements));
        let scheduled = placements.values().flatten().count();
        let status = if scheduled >= min_member {
            GangStatus::Scheduled
        } else {
            GangStatus::Unschedulable
        };
        GroupPlan {
            kind: gang.kind.kind,
            namespace: gang.meta.namespace.clone(),
            name: gang.meta.name.clone(),
            summary: summary_line(scheduled, placements.len(), &domains),
            placements,
            scheduled,
            min_member,
            gang_kind: gang.kind.id,
            api_version: gang.api_version.clone(),
            queue: gang.queue.clone(),
            priority_class_name: gang.priority_class_name.clone(),
            scheduler_name: gang.scheduler_name().to_string(),
            system: None,
            status,
            fit: scheduled,
            blocked: Vec::new(),
            running: outcomes.iter().filter(|o| o.running).count(),
            levels,
            pods,
            node_group: None,
            partitions: Vec::new(),
            group_nodes: Vec::new(),
            domains,
            rejections: Vec::new(),
            topology: None,
            rejected: Vec::new(),
            rejected_at_admission: BTreeMap::new(),
            warnings: Vec::new(),
            comparison: None,
            admission: gang.admission.as_deref().cloned(),
        }
    }
}

/// A gang the scheduler would not try at all: its running pods stay, every pending pod waits
/// for `reason`.
pub fn unplanned(
    gang: &Gang,
    state: &ClusterState,
    status: GangStatus,
    reason: String,
) -> GroupPlan {
    let outcomes: Vec<PodOutcome> = gang
        .running
        .iter()
        .map(PodOutcome::running)
        .chain(gang.members.iter().map(|m| PodOutcome {
            pod: &m.pod,
            task: m.task.clone(),
            result: Err(reason.clone()),
            running: false,
            source: Some(m.source.clone()),
        }))
        .collect();
    let mut plan = GroupPlan::assemble(
        gang,
        state,
        vec![HOSTNAME_LABEL.to_string()],
        &outcomes,
        gang.minimum(),
    );
    plan.status = status;
    plan.fit = gang.running.len();
    if !gang.members.is_empty() {
        plan.blocked = vec![Blocked {
            reason: reason.clone(),
            pods: gang.members.len(),
        }];
    }
    plan.summary = format!("{}: {reason}", plan.summary);
    plan
}

impl GroupPlan {
    /// Some pod of the gang exists and stays pending: the plan's exit 1. A group without a
    /// minimum (a Kueue workload the scheduler takes pod by pod) is scheduled whatever fits,
    /// and each pod that does not stays pending.
    pub fn leaves_pods_pending(&self) -> bool {
        match self.status {
            GangStatus::Scheduled => {
                self.min_member == 0 && self.placements.values().any(Option::is_none)
            }
            GangStatus::NotModelled => false,
            GangStatus::Unschedulable | GangStatus::GroupNotFound => true,
            GangStatus::WaitingForPods => self.placements.values().any(Option::is_none),
        }
    }
}

pub(crate) fn placed_nodes<'a>(
    state: &'a ClusterState,
    placements: &'a BTreeMap<String, Option<String>>,
) -> impl Iterator<Item = &'a Node> + Clone {
    placements
        .values()
        .flatten()
        .filter_map(|node| state.node(node))
}

/// Place the same pending pods with the plain default scheduler, one by one over all nodes
/// (each placed pod assumed, as the default scheduler would have bound it), starting from the
/// plan's state `before` the gang, and count the domains each plan spans.
pub(crate) fn compare_with_default(
    before: &Scheduler,
    pods: &[Pod],
    running: &[&Pod],
    plan: &GroupPlan,
) -> Comparison {
    let state = before.state();
    let mut scheduler = before.clone();
    let mut placements: BTreeMap<String, Option<String>> = running
        .iter()
        .map(|p| (p.metadata.name.clone(), Some(p.spec.node_name.clone())))
        .collect();
    for pod in pods {
        let node = scheduler.decide(pod).selected;
        if let Some(node) = &node {
            scheduler.assume(pod.clone(), node);
        }
        placements.insert(pod.metadata.name.clone(), node);
    }
    let default = count_domains(&plan.levels, placed_nodes(state, &placements));
    Comparison {
        scheduled: placements.values().flatten().count(),
        levels: spread(&plan.levels, &plan.domains, &default),
        placements,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn level(key: &str, pods: &[(&str, usize)]) -> LevelCount {
        LevelCount {
            key: key.into(),
            pods: pods.iter().map(|(v, n)| (v.to_string(), *n)).collect(),
        }
    }

    #[test]
    fn summary_names_single_domains_and_counts_spread_ones() {
        let cases = [
            (
                8,
                8,
                vec![
                    level("bigPod", &[("a", 8)]),
                    level("miniPod", &[("a1", 8)]),
                    level("tor", &[("a1-t1", 6), ("a1-t2", 2)]),
                ],
                "8/8 pods placed in bigPod=a, miniPod=a1; tors: a1-t1 x6, a1-t2 x2",
            ),
            (
                3,
                4,
                vec![level(
                    "topology.kubernetes.io/zone",
                    &[("z1", 1), ("z2", 2)],
                )],
                "3/4 pods placed; zones: z1 x1, z2 x2",
            ),
            (
                2,
                2,
                vec![level(HOSTNAME_LABEL, &[("n1", 1), ("n2", 1)])],
                "2/2 pods placed; nodes: n1 x1, n2 x1",
            ),
            (0, 5, vec![level("bigPod", &[])], "0/5 pods placed"),
        ];
        for (placed, total, domains, want) in cases {
            assert_eq!(summary_line(placed, total, &domains), want);
        }
    }
}
