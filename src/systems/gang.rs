//! What Godel and Volcano plans have in common: the `groups[]` entry of the plan contract, the
//! per-level domain counts behind the summary line, and the comparison with the plain default
//! scheduler. Kept apart from the two systems so both report in exactly the same shape.

use std::collections::BTreeMap;

use serde::Serialize;

use super::godel::plan_pod_group;
use super::volcano::{expand_job, plan_job};
use crate::cluster::ClusterState;
use crate::manifest::ManifestSet;
use crate::model::fluid::HOSTNAME_LABEL;
use crate::model::gang::GODEL_POD_GROUP_LABEL;
use crate::model::{GodelPodGroup, Node, Object, ObjectMeta, Pod, VolcanoJob};
use crate::sched::{Profile, Scheduler};

/// One gang in `plan -o json` (`groups[]`). The first six fields are the contract; the rest
/// explain the plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupPlan {
    /// `PodGroup` (Godel) or `Job` (Volcano).
    pub kind: &'static str,
    pub namespace: String,
    pub name: String,
    /// Every pod of the gang, running ones included; `null` when it would stay pending.
    pub placements: BTreeMap<String, Option<String>>,
    /// Pods with a node once the plan is applied (running ones included).
    pub scheduled: usize,
    pub min_member: usize,
    /// Pods of the gang that already run; they count towards `minMember`.
    pub running: usize,
    /// Topology keys shown per pod, largest scope first.
    pub levels: Vec<String>,
    /// Table rows in the order the pods were planned.
    pub pods: Vec<PodRow>,
    /// Godel: the node group (topology domain) that took the unit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_group: Option<String>,
    /// Godel: the chosen node group's nodes (state indexes), so that one pod can be explained
    /// inside its group's plan.
    #[serde(skip)]
    pub group_nodes: Vec<usize>,
    /// Pods per domain at each level of `levels`.
    pub domains: Vec<LevelCount>,
    /// Why candidate groups (or the gang as a whole) were turned down.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rejections: Vec<Rejection>,
    pub summary: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub comparison: Option<Comparison>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodRow {
    pub pod: String,
    /// Volcano task name; Godel pods have none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task: Option<String>,
    pub node: Option<String>,
    /// The pod's domain at each of the plan's `levels` (None when unplaced or unlabelled).
    pub domains: Vec<Option<String>>,
    pub running: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
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
pub fn count_domains<'a>(
    levels: &[String],
    nodes_of_pods: impl IntoIterator<Item = &'a Node> + Clone,
) -> Vec<LevelCount> {
    levels
        .iter()
        .map(|key| {
            let mut pods = BTreeMap::new();
            for node in nodes_of_pods.clone() {
                if let Some(value) = node.metadata.labels.get(key) {
                    *pods.entry(value.clone()).or_insert(0) += 1;
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
}

impl GroupPlan {
    /// The plan of a gang from its pods' outcomes, in planning order.
    pub fn assemble(
        kind: &'static str,
        meta: &ObjectMeta,
        state: &ClusterState,
        levels: Vec<String>,
        outcomes: &[PodOutcome],
        min_member: usize,
    ) -> GroupPlan {
        let domain = |node: &str, key: &str| -> Option<String> {
            state.node(node)?.metadata.labels.get(key).cloned()
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
                reason: o.result.as_ref().err().filter(|r| !r.is_empty()).cloned(),
            })
            .collect();
        let placements: BTreeMap<String, Option<String>> = pods
            .iter()
            .map(|r| (r.pod.clone(), r.node.clone()))
            .collect();
        let domains = count_domains(&levels, placed_nodes(state, &placements));
        let scheduled = placements.values().flatten().count();
        GroupPlan {
            kind,
            namespace: meta.namespace.clone(),
            name: meta.name.clone(),
            summary: summary_line(scheduled, placements.len(), &domains),
            placements,
            scheduled,
            min_member,
            running: outcomes.iter().filter(|o| o.running).count(),
            levels,
            pods,
            node_group: None,
            group_nodes: Vec::new(),
            domains,
            rejections: Vec::new(),
            warnings: Vec::new(),
            comparison: None,
        }
    }
}

fn placed_nodes<'a>(
    state: &'a ClusterState,
    placements: &'a BTreeMap<String, Option<String>>,
) -> impl Iterator<Item = &'a Node> + Clone {
    placements
        .values()
        .flatten()
        .filter_map(|node| state.node(node))
}

/// Place the same pending pods with the plain default scheduler, one by one over all nodes
/// (each placed pod assumed, as the default scheduler would have bound it), and count the
/// domains each plan spans.
pub fn compare_with_default(
    state: &ClusterState,
    profile: &Profile,
    pods: &[Pod],
    running: &[&Pod],
    plan: &GroupPlan,
) -> Comparison {
    let mut scheduler = Scheduler::new(state, profile.clone());
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

/// Options of `plan` that shape gang plans.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GangOptions {
    /// `--replicas N`: plan N copies of each pod template that joins a PodGroup.
    pub replicas: Option<usize>,
    /// `--compare`: also place the pods with the plain default scheduler.
    pub compare: bool,
}

/// A gang that cannot be planned at all (bad annotations, running pods in conflicting
/// domains), named by kind, namespace and name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{kind} {namespace}/{name}: {message}")]
pub struct GangError {
    pub kind: &'static str,
    pub namespace: String,
    pub name: String,
    pub message: String,
}

/// A gang to plan, with the pods it is made of.
#[derive(Debug, Clone)]
pub enum Gang<'a> {
    /// A Godel PodGroup with its pending pods (planning order) and its running ones.
    Godel {
        group: GodelPodGroup,
        pending: Vec<Pod>,
        running: Vec<&'a Pod>,
    },
    /// A Volcano Job; its pods come from its tasks.
    Volcano(VolcanoJob),
}

impl Gang<'_> {
    pub fn kind(&self) -> &'static str {
        match self {
            Gang::Godel { .. } => "PodGroup",
            Gang::Volcano(_) => "Job",
        }
    }

    pub fn metadata(&self) -> &ObjectMeta {
        match self {
            Gang::Godel { group, .. } => &group.metadata,
            Gang::Volcano(job) => &job.metadata,
        }
    }

    /// Every pod the gang plans or counts: running and pending for Godel, all task pods for
    /// Volcano.
    pub fn pods(&self) -> Vec<Pod> {
        match self {
            Gang::Godel {
                pending, running, ..
            } => running
                .iter()
                .map(|&p| p.clone())
                .chain(pending.iter().cloned())
                .collect(),
            Gang::Volcano(job) => expand_job(job).into_iter().map(|(_, pod)| pod).collect(),
        }
    }

    pub fn plan(
        &self,
        state: &ClusterState,
        profile: &Profile,
        compare: bool,
    ) -> Result<GroupPlan, GangError> {
        let error = |message: String| GangError {
            kind: self.kind(),
            namespace: self.metadata().namespace.clone(),
            name: self.metadata().name.clone(),
            message,
        };
        match self {
            Gang::Godel {
                group,
                pending,
                running,
            } => plan_pod_group(state, profile, group, pending, running, compare)
                .map_err(|e| error(e.to_string())),
            Gang::Volcano(job) => {
                plan_job(state, profile, job, compare).map_err(|e| error(e.to_string()))
            }
        }
    }
}

/// The gangs of the manifests: Godel PodGroups (given, or in the state and joined by a given
/// pod) with their pods, and Volcano Jobs. Without any manifests, the gangs of the state that
/// still have pods to place. Sorted by kind, namespace and name.
pub fn gangs<'a>(
    manifests: &ManifestSet,
    state: &'a ClusterState,
    opts: &GangOptions,
) -> Vec<Gang<'a>> {
    let objects: Vec<&Object> = manifests.manifests.iter().map(|m| &m.object).collect();
    let mut groups: BTreeMap<(String, String), GodelPodGroup> = BTreeMap::new();
    let mut members: BTreeMap<(String, String), Vec<Pod>> = BTreeMap::new();
    let mut jobs: Vec<VolcanoJob> = Vec::new();
    for object in &objects {
        match object {
            Object::GodelPodGroup(g) => {
                let key = (g.metadata.namespace.clone(), g.metadata.name.clone());
                groups.insert(key, g.clone());
            }
            Object::VolcanoJob(job) => jobs.push(job.clone()),
            Object::Pod(pod) => {
                if let Some(group) = pod.metadata.labels.get(GODEL_POD_GROUP_LABEL) {
                    let key = (pod.metadata.namespace.clone(), group.clone());
                    let copies = opts
                        .replicas
                        .map(|n| copies(pod, n))
                        .unwrap_or_else(|| vec![pod.clone()]);
                    members.entry(key).or_default().extend(copies);
                }
            }
            Object::Workload(w) => {
                if let Some(group) = w.template.metadata.labels.get(GODEL_POD_GROUP_LABEL) {
                    let key = (w.metadata.namespace.clone(), group.clone());
                    let n = opts
                        .replicas
                        .unwrap_or(usize::try_from(w.replicas).unwrap_or(0));
                    let pod = Pod {
                        metadata: ObjectMeta {
                            name: w.metadata.name.clone(),
                            namespace: w.metadata.namespace.clone(),
                            ..w.template.metadata.clone()
                        },
                        spec: w.template.spec.clone(),
                        status: Default::default(),
                    };
                    members.entry(key).or_default().extend(copies(&pod, n));
                }
            }
            _ => {}
        }
    }
    let from_state = objects.is_empty();
    for g in &state.godel_pod_groups {
        let key = (g.metadata.namespace.clone(), g.metadata.name.clone());
        if !groups.contains_key(&key) && (from_state || members.contains_key(&key)) {
            groups.insert(key, g.clone());
        }
    }
    if from_state {
        jobs.extend(state.volcano_jobs.iter().cloned());
    }
    let mut found = Vec::new();
    for ((namespace, name), group) in groups {
        let in_group = |pod: &&Pod| {
            pod.metadata.labels.get(GODEL_POD_GROUP_LABEL) == Some(&name) && !pod.is_terminated()
        };
        let given = members
            .remove(&(namespace.clone(), name.clone()))
            .unwrap_or_default();
        let state_pods: Vec<&Pod> = state
            .pods_in_namespace(&namespace)
            .filter(in_group)
            .collect();
        let running: Vec<&Pod> = state_pods
            .iter()
            .copied()
            .filter(|p| !p.spec.node_name.is_empty())
            .collect();
        let mut pending: Vec<Pod> = state_pods
            .iter()
            .filter(|p| p.spec.node_name.is_empty())
            .filter(|p| !given.iter().any(|g| g.metadata.name == p.metadata.name))
            .map(|&p| p.clone())
            .collect();
        pending.extend(
            given
                .into_iter()
                .filter(|g| !running.iter().any(|r| r.metadata.name == g.metadata.name)),
        );
        if from_state && pending.is_empty() {
            continue;
        }
        found.push(Gang::Godel {
            group,
            pending,
            running,
        });
    }
    for job in jobs {
        let waiting = expand_job(&job).iter().any(|(_, pod)| {
            state
                .pod(&job.metadata.namespace, &pod.metadata.name)
                .is_none_or(|p| p.spec.node_name.is_empty())
        });
        if from_state && !waiting {
            continue;
        }
        found.push(Gang::Volcano(job));
    }
    found.sort_by(|a, b| {
        let key = |g: &Gang| {
            (
                g.kind(),
                g.metadata().namespace.clone(),
                g.metadata().name.clone(),
            )
        };
        key(a).cmp(&key(b))
    });
    found
}

/// Plan every gang of [`gangs`].
pub fn plan_gangs(
    manifests: &ManifestSet,
    state: &ClusterState,
    profile: &Profile,
    opts: &GangOptions,
) -> Result<Vec<GroupPlan>, GangError> {
    gangs(manifests, state, opts)
        .iter()
        .map(|gang| gang.plan(state, profile, opts.compare))
        .collect()
}

/// `n` copies of a pod template named `<name>-0` .. `<name>-(n-1)`.
fn copies(pod: &Pod, n: usize) -> Vec<Pod> {
    (0..n)
        .map(|i| {
            let mut copy = pod.clone();
            copy.metadata.name = format!("{}-{i}", pod.metadata.name);
            copy
        })
        .collect()
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
