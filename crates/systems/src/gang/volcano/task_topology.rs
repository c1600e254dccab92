//! Volcano task-topology (`batch.volcano.sh/v1alpha1` Job), as the shipped `task-topology`
//! plugin does it. The seed design passed the topology as plugin arguments; the shipped plugin
//! reads three annotations of the job's PodGroup (copied from the Job), which is what we read.
//!
//! Tasks named in an affinity group are put into buckets (tasks that like each other share one,
//! anti-affine ones are kept apart, others balance by requested resources). Pods are ordered
//! bucket by bucket, and a node scores by how much of the pod's bucket it already holds plus
//! how much of the rest of the bucket it could still take, scaled by the largest bucket to
//! 0..100 and added to the ordinary node scores.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::partitions::Among;
use crate::gang::place::{Chooser, decide_in};
use df_engine::{NodeVerdict, Resources, Scheduler};
use df_model::gang::{
    VOLCANO_AFFINITY_ANNOTATION, VOLCANO_ANTI_AFFINITY_ANNOTATION, VOLCANO_TASK_ORDER_ANNOTATION,
};
use df_model::{Annotations, Pod};

/// Upstream's `MaxNodeScore`, the top of the task-topology node score.
const MAX_NODE_SCORE: f64 = 100.0;

/// The affinity as the three annotations spell it: groups split by `;`, names by `,`, empty
/// names kept (Volcano skips them when checking and they match no task).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct TaskTopology {
    pub affinity: Vec<Vec<String>>,
    pub anti_affinity: Vec<Vec<String>>,
    pub task_order: Vec<String>,
}

/// Annotation errors, worded as Volcano words them.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum TopologyError {
    #[error("task {task} do not exist in job <{namespace}/{job}>")]
    UnknownTask {
        task: String,
        namespace: String,
        job: String,
    },
    #[error("task {task} is duplicate in job <{namespace}/{job}>")]
    Duplicate {
        task: String,
        namespace: String,
        job: String,
    },
}

/// Read the topology from the annotations; `None` when none of the three is set. Affinity is
/// checked first, then anti-affinity, then the task order, and the first error wins.
pub(crate) fn read_topology(
    annotations: &Annotations,
    tasks: &BTreeSet<String>,
    namespace: &str,
    job: &str,
) -> Result<Option<TaskTopology>, TopologyError> {
    let affinity = annotations.get(VOLCANO_AFFINITY_ANNOTATION);
    let anti_affinity = annotations.get(VOLCANO_ANTI_AFFINITY_ANNOTATION);
    let task_order = annotations.get(VOLCANO_TASK_ORDER_ANNOTATION);
    if affinity.is_none() && anti_affinity.is_none() && task_order.is_none() {
        return Ok(None);
    }
    let check = |groups: &[Vec<String>]| -> Result<(), TopologyError> {
        for group in groups {
            let mut seen = BTreeSet::new();
            for task in group.iter().filter(|t| !t.is_empty()) {
                if !tasks.contains(task) {
                    return Err(TopologyError::UnknownTask {
                        task: task.clone(),
                        namespace: namespace.to_string(),
                        job: job.to_string(),
                    });
                }
                if !seen.insert(task) {
                    return Err(TopologyError::Duplicate {
                        task: task.clone(),
                        namespace: namespace.to_string(),
                        job: job.to_string(),
                    });
                }
            }
        }
        Ok(())
    };
    let split = |text: &str| -> Vec<Vec<String>> {
        text.split(';')
            .map(|group| group.split(',').map(str::to_string).collect())
            .collect()
    };
    let mut topology = TaskTopology::default();
    if let Some(text) = affinity {
        topology.affinity = split(text);
        check(&topology.affinity)?;
    }
    if let Some(text) = anti_affinity {
        topology.anti_affinity = split(text);
        check(&topology.anti_affinity)?;
    }
    if let Some(text) = task_order {
        topology.task_order = text.split(',').map(str::to_string).collect();
        check(std::slice::from_ref(&topology.task_order))?;
    }
    Ok(Some(topology))
}

/// Resources as Volcano's scheduler holds them: CPU in millicores, memory and ephemeral
/// storage in bytes, every other resource in thousandths.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct VResource {
    pub milli_cpu: i64,
    pub memory: i64,
    pub ephemeral: i64,
    pub scalars: BTreeMap<String, i64>,
}

impl VResource {
    /// From the engine's resources, whose extended resources are whole units.
    pub(crate) fn from_resources(r: &Resources) -> VResource {
        VResource {
            milli_cpu: r.milli_cpu,
            memory: r.memory,
            ephemeral: r.ephemeral_storage,
            scalars: r
                .scalar
                .iter()
                .map(|(name, v)| (name.clone(), v.saturating_mul(1000)))
                .collect(),
        }
    }

    pub fn add(&mut self, other: &VResource) {
        self.milli_cpu += other.milli_cpu;
        self.memory += other.memory;
        self.ephemeral += other.ephemeral;
        for (name, v) in &other.scalars {
            *self.scalars.entry(name.clone()).or_default() += v;
        }
    }

    pub fn sub(&mut self, other: &VResource) {
        self.milli_cpu -= other.milli_cpu;
        self.memory -= other.memory;
        self.ephemeral -= other.ephemeral;
        for (name, v) in &other.scalars {
            *self.scalars.entry(name.clone()).or_default() -= v;
        }
    }

    /// Every resource at most what `capacity` has (a resource it lacks counts as zero).
    pub(crate) fn fits_in(&self, capacity: &VResource) -> bool {
        self.milli_cpu <= capacity.milli_cpu
            && self.memory <= capacity.memory
            && self.ephemeral <= capacity.ephemeral
            && self
                .scalars
                .iter()
                .all(|(name, v)| *v <= capacity.scalars.get(name).copied().unwrap_or(0))
    }

    /// Upstream's bucket weight: 1 CPU millicore, 1 MiB and one thousandth of any other
    /// resource count the same.
    fn score(&self) -> i64 {
        const MI: i64 = 1 << 20;
        self.milli_cpu + self.memory / MI + self.ephemeral / MI + self.scalars.values().sum::<i64>()
    }
}

/// One pod of the job: `<job>-<task>-<index>`, bound when it already runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TaskPod {
    pub name: String,
    pub task: String,
    pub request: VResource,
    pub node: Option<String>,
}

/// Why a task has topology; a larger number wins when a task has several.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TopologyKind {
    AntiSelf = 4,
    LikeOther = 3,
    LikeSelf = 2,
    AntiOther = 1,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Bucket {
    pub index: usize,
    /// Pending pods (indexes into the job's pods), in the order they joined.
    pub pending: Vec<usize>,
    task_names: BTreeMap<String, i64>,
    request: VResource,
    req_score: i64,
    bound: usize,
    nodes: BTreeMap<String, i64>,
}

/// The job's buckets and affinity relations (upstream's `JobManager`).
#[derive(Debug, Clone, Default)]
pub(crate) struct JobManager {
    pub buckets: Vec<Bucket>,
    bucket_of: Vec<Option<usize>>,
    priority: BTreeMap<String, i32>,
    exist_order: BTreeMap<String, usize>,
    inter_affinity: BTreeSet<(String, String)>,
    self_affinity: BTreeSet<String>,
    inter_anti_affinity: BTreeSet<(String, String)>,
    self_anti_affinity: BTreeSet<String>,
    /// The largest bucket ever built; node scores are scaled by it.
    pub max_size: usize,
    node_tasks: BTreeMap<String, BTreeMap<String, i64>>,
}

impl JobManager {
    pub fn new(topology: &TaskTopology, pods: &[TaskPod]) -> JobManager {
        let mut jm = JobManager {
            bucket_of: vec![None; pods.len()],
            ..Default::default()
        };
        jm.apply(topology);
        let mut order: Vec<usize> = (0..pods.len())
            .filter(|&i| jm.priority.contains_key(&pods[i].task))
            .collect();
        order.sort_by(|&a, &b| {
            let (l, r) = (&pods[a], &pods[b]);
            match (&l.node, &r.node) {
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (Some(x), Some(y)) => x.cmp(y).then_with(|| l.name.cmp(&r.name)),
                (None, None) => jm
                    .affinity_order(&r.task, &l.task)
                    .then_with(|| l.name.cmp(&r.name)),
            }
        });
        jm.build_buckets(&order, pods);
        jm
    }

    fn mark(&mut self, task: &str, kind: TopologyKind) {
        let p = self.priority.entry(task.to_string()).or_insert(0);
        *p = (*p).max(kind as i32);
    }

    fn apply(&mut self, topology: &TaskTopology) {
        for (groups, anti) in [(&topology.affinity, false), (&topology.anti_affinity, true)] {
            for group in groups {
                if let [task] = group.as_slice() {
                    if anti {
                        self.self_anti_affinity.insert(task.clone());
                        self.mark(task, TopologyKind::AntiSelf);
                    } else {
                        self.self_affinity.insert(task.clone());
                        self.mark(task, TopologyKind::LikeSelf);
                    }
                    continue;
                }
                for (i, src) in group.iter().enumerate() {
                    for dst in &group[..i] {
                        let set = if anti {
                            &mut self.inter_anti_affinity
                        } else {
                            &mut self.inter_affinity
                        };
                        set.insert((src.clone(), dst.clone()));
                        set.insert((dst.clone(), src.clone()));
                    }
                    let kind = if anti {
                        TopologyKind::AntiOther
                    } else {
                        TopologyKind::LikeOther
                    };
                    self.mark(src, kind);
                }
            }
        }
        let n = topology.task_order.len();
        for (i, task) in topology.task_order.iter().enumerate() {
            self.exist_order.insert(task.clone(), n - i);
        }
    }

    /// How strongly `left` goes before `right`: the user's task order first, then the kind of
    /// topology the task has. Greater means earlier.
    fn affinity_order(&self, left: &str, right: &str) -> std::cmp::Ordering {
        if left == right {
            return std::cmp::Ordering::Equal;
        }
        let order = |t: &str| self.exist_order.get(t).copied().unwrap_or(0);
        let priority = |t: &str| self.priority.get(t).copied().unwrap_or(0);
        order(left)
            .cmp(&order(right))
            .then_with(|| priority(left).cmp(&priority(right)))
    }

    /// Net affinity of `task` to a set of task counts: +count for liked tasks (unless
    /// `only_anti`), -count for anti-affine ones.
    fn set_affinity(&self, task: &str, set: &BTreeMap<String, i64>, only_anti: bool) -> i64 {
        let mut total = 0;
        for (other, count) in set {
            let same = other == task;
            let pair = (task.to_string(), other.clone());
            if !only_anti {
                let likes = if same {
                    self.self_affinity.contains(task)
                } else {
                    self.inter_affinity.contains(&pair)
                };
                if likes {
                    total += count;
                }
            }
            let dislikes = if same {
                self.self_anti_affinity.contains(task)
            } else {
                self.inter_anti_affinity.contains(&pair)
            };
            if dislikes {
                total -= count;
            }
        }
        total
    }

    fn build_buckets(&mut self, order: &[usize], pods: &[TaskPod]) {
        let mut by_node: BTreeMap<String, usize> = BTreeMap::new();
        for &i in order {
            let pod = &pods[i];
            let (best, affinity) = match &pod.node {
                Some(node) => (by_node.get(node).copied(), 0),
                None => {
                    let mut best: Option<usize> = None;
                    let mut max = i64::MIN;
                    for b in &self.buckets {
                        let aff = self.set_affinity(&pod.task, &b.task_names, false);
                        let lighter = best.is_some_and(|s| b.req_score < self.buckets[s].req_score);
                        if aff > max || (aff == max && lighter) {
                            max = aff;
                            best = Some(b.index);
                        }
                    }
                    (best, max)
                }
            };
            let index = match best {
                Some(index) if affinity >= 0 => index,
                _ => {
                    let index = self.buckets.len();
                    self.buckets.push(Bucket {
                        index,
                        ..Default::default()
                    });
                    if let Some(node) = &pod.node {
                        by_node.insert(node.clone(), index);
                    }
                    index
                }
            };
            self.bucket_of[i] = Some(index);
            let bucket = &mut self.buckets[index];
            *bucket.task_names.entry(pod.task.clone()).or_default() += 1;
            match &pod.node {
                Some(node) => {
                    *bucket.nodes.entry(node.clone()).or_default() += 1;
                    bucket.bound += 1;
                }
                None => {
                    bucket.pending.push(i);
                    bucket.request.add(&pod.request);
                    bucket.req_score += pod.request.score();
                }
            }
            self.max_size = self.max_size.max(bucket.pending.len() + bucket.bound);
        }
    }

    pub(crate) fn bucket_of(&self, pod: usize) -> Option<usize> {
        self.bucket_of.get(pod).copied().flatten()
    }

    /// The order pods are allocated in (upstream's `TaskOrderFn`): pods in buckets first,
    /// larger buckets first, older buckets first, by task order inside a bucket, then by name.
    pub(crate) fn task_order(&self, pending: &[usize], pods: &[TaskPod]) -> Vec<usize> {
        let mut order = pending.to_vec();
        order.sort_by(|&a, &b| {
            let (ba, bb) = (self.bucket_of(a), self.bucket_of(b));
            let by_bucket = match (ba, bb) {
                (Some(x), Some(y)) => {
                    let (x, y) = (&self.buckets[x], &self.buckets[y]);
                    y.pending.len().cmp(&x.pending.len()).then_with(|| {
                        if x.index == y.index {
                            self.affinity_order(&pods[b].task, &pods[a].task)
                        } else {
                            x.index.cmp(&y.index)
                        }
                    })
                }
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            };
            by_bucket.then_with(|| pods[a].name.cmp(&pods[b].name))
        });
        order
    }

    /// Upstream's `calcBucketScore` for pod `pod` on `node` with `idle` resources left: the
    /// bucket's pods already there, minus anti-affine pods of the job there, plus the bucket's
    /// pending pods, minus those that would not fit. Upstream drops pods in random (map)
    /// order; we drop the most recently added first, so the plan is reproducible.
    pub(crate) fn bucket_score(
        &self,
        pod: usize,
        node: &str,
        idle: &VResource,
        pods: &[TaskPod],
    ) -> i64 {
        if !pods[pod].request.fits_in(idle) {
            return 0;
        }
        let Some(bucket) = self.bucket_of(pod).map(|b| &self.buckets[b]) else {
            return 0;
        };
        let mut score = bucket.nodes.get(node).copied().unwrap_or(0);
        if let Some(set) = self.node_tasks.get(node) {
            score += self.set_affinity(&pods[pod].task, set, true).min(0);
        }
        score += bucket.pending.len() as i64;
        if bucket.request.fits_in(idle) {
            return score;
        }
        let mut remains = bucket.request.clone();
        for &other in bucket.pending.iter().rev() {
            if other == pod {
                continue;
            }
            remains.sub(&pods[other].request);
            score -= 1;
            if remains.fits_in(idle) {
                break;
            }
        }
        score
    }

    /// The task-topology node score (`NodeOrderFn`) with plugin weight `weight`.
    pub fn node_score(&self, pod: usize, node: &str, idle: &VResource, pods: &[TaskPod]) -> f64 {
        let raw = self.bucket_score(pod, node, idle, pods) as f64;
        if self.max_size == 0 {
            raw
        } else {
            raw * MAX_NODE_SCORE / self.max_size as f64
        }
    }

    /// Record that `pod` was placed on `node` (upstream's `AllocateFunc`).
    pub fn bound(&mut self, pod: usize, node: &str, pods: &[TaskPod]) {
        *self
            .node_tasks
            .entry(node.to_string())
            .or_default()
            .entry(pods[pod].task.clone())
            .or_default() += 1;
        if let Some(b) = self.bucket_of(pod) {
            let bucket = &mut self.buckets[b];
            *bucket.nodes.entry(node.to_string()).or_default() += 1;
            bucket.bound += 1;
            bucket.pending.retain(|&p| p != pod);
            bucket.request.sub(&pods[pod].request);
            bucket.req_score -= pods[pod].request.score();
        }
    }
}

/// The task-topology node choice: the feasible node with the best sum of the engine's
/// weighted score and the bucket score, ties to the smallest name.
#[derive(Clone)]
pub(super) struct Buckets<'p> {
    pub manager: JobManager,
    pub idle: Vec<VResource>,
    pub task_pods: &'p [TaskPod],
    /// Planning position -> index into `task_pods`.
    pub order: &'p [usize],
    pub node_names: BTreeMap<&'p str, usize>,
    /// The topology domain the job is restricted to, if any.
    pub within: Option<&'p [usize]>,
}

impl Chooser for Buckets<'_> {
    fn choose(&mut self, scheduler: &Scheduler, at: usize, pod: &Pod) -> Result<String, String> {
        self.choose_in(scheduler, at, pod, self.within)
    }

    fn placed(&mut self, at: usize, node: &str) {
        let i = self.order[at];
        if let Some(index) = self.idle_index(node) {
            self.idle[index].sub(&self.task_pods[i].request);
        }
        self.manager.bound(i, node, self.task_pods);
    }
}

impl Among for Buckets<'_> {
    fn choose_among(
        &mut self,
        scheduler: &Scheduler,
        at: usize,
        pod: &Pod,
        nodes: &[usize],
    ) -> Result<String, String> {
        self.choose_in(scheduler, at, pod, Some(nodes))
    }
}

impl Buckets<'_> {
    /// The best node for the pod at `at` among `within` (every node for `None`).
    fn choose_in(
        &self,
        scheduler: &Scheduler,
        at: usize,
        pod: &Pod,
        within: Option<&[usize]>,
    ) -> Result<String, String> {
        let i = self.order[at];
        let decision = decide_in(scheduler, pod, within);
        let best = decision
            .nodes
            .iter()
            .filter(|v| v.feasible)
            .map(|v| {
                let topology =
                    self.manager
                        .node_score(i, v.name, &self.idle[v.index], self.task_pods);
                (v.score.unwrap_or(0) as f64 + topology, v)
            })
            .max_by(|(a, va), (b, vb)| {
                let rank = |v: &NodeVerdict| scheduler.name_rank(v.index);
                a.total_cmp(b).then_with(|| rank(vb).cmp(&rank(va)))
            });
        match best {
            Some((_, verdict)) => Ok(verdict.name.to_string()),
            None => Err(decision.summary.unwrap_or_default()),
        }
    }

    fn idle_index(&self, node: &str) -> Option<usize> {
        self.node_names.get(node).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tasks(names: &[&str]) -> BTreeSet<String> {
        names.iter().map(|s| s.to_string()).collect()
    }

    fn groups(gs: &[&[&str]]) -> Vec<Vec<String>> {
        gs.iter()
            .map(|g| g.iter().map(|s| s.to_string()).collect())
            .collect()
    }

    #[test]
    fn annotations_parse_like_volcano() {
        let ann = |a: &str, anti: &str, order: &str| {
            let mut m = Annotations::new();
            for (k, v) in [
                (VOLCANO_AFFINITY_ANNOTATION, a),
                (VOLCANO_ANTI_AFFINITY_ANNOTATION, anti),
                (VOLCANO_TASK_ORDER_ANNOTATION, order),
            ] {
                if v != "-" {
                    m.insert(k.into(), v.into());
                }
            }
            m
        };
        let four = tasks(&["ps", "worker", "chief", "evaluator"]);
        let dashed = tasks(&["ps-some", "worker-another-some", "chief-kk", "evaluator-tt"]);
        let two = tasks(&["ps", "worker"]);
        let ok = |a: &[&[&str]], anti: &[&[&str]], order: &[&str]| {
            Ok(Some(TaskTopology {
                affinity: groups(a),
                anti_affinity: groups(anti),
                task_order: order.iter().map(|s| s.to_string()).collect(),
            }))
        };
        let unknown = |t: &str| {
            Err(TopologyError::UnknownTask {
                task: t.into(),
                namespace: "default".into(),
                job: "job1".into(),
            })
        };
        type Want = Result<Option<TaskTopology>, TopologyError>;
        type Case<'a> = (&'a str, Annotations, &'a BTreeSet<String>, Want);
        let cases: Vec<Case> = vec![
            (
                "correct annotations",
                ann(
                    "ps,worker;ps,chief",
                    "ps;worker,chief",
                    "ps,worker,chief,evaluator",
                ),
                &four,
                ok(
                    &[&["ps", "worker"], &["ps", "chief"]],
                    &[&["ps"], &["worker", "chief"]],
                    &["ps", "worker", "chief", "evaluator"],
                ),
            ),
            (
                "task names containing dashes",
                ann(
                    "ps-some,worker-another-some;ps-some,chief-kk",
                    "ps-some;worker-another-some,chief-kk",
                    "ps-some,worker-another-some,chief-kk,evaluator-tt",
                ),
                &dashed,
                ok(
                    &[
                        &["ps-some", "worker-another-some"],
                        &["ps-some", "chief-kk"],
                    ],
                    &[&["ps-some"], &["worker-another-some", "chief-kk"]],
                    &["ps-some", "worker-another-some", "chief-kk", "evaluator-tt"],
                ),
            ),
            ("no annotations", ann("-", "-", "-"), &four, Ok(None)),
            (
                "garbage is an unknown task, affinity checked first",
                ann(
                    "$%GF$^trtqwrg^",
                    "ps;worker,chief;#@FGEW^vfa897bgs;;",
                    "ps,,,",
                ),
                &four,
                unknown("$%GF$^trtqwrg^"),
            ),
            (
                "unknown task in the task order",
                ann("ps,worker", "ps", "ps,worker,chief"),
                &two,
                unknown("chief"),
            ),
            (
                "duplicate inside one group",
                ann("ps,worker", "ps,ps", "ps,worker"),
                &two,
                Err(TopologyError::Duplicate {
                    task: "ps".into(),
                    namespace: "default".into(),
                    job: "job1".into(),
                }),
            ),
            (
                "the same task in two groups is fine",
                ann("ps,worker;ps", "-", "-"),
                &two,
                ok(&[&["ps", "worker"], &["ps"]], &[], &[]),
            ),
            (
                "redundant punctuation keeps empty names",
                ann(
                    "ps,worker;ps,,chief,;",
                    "ps;worker,chief;;;",
                    "ps,worker,chief,evaluator,,,",
                ),
                &four,
                ok(
                    &[&["ps", "worker"], &["ps", "", "chief", ""], &[""]],
                    &[&["ps"], &["worker", "chief"], &[""], &[""], &[""]],
                    &["ps", "worker", "chief", "evaluator", "", "", ""],
                ),
            ),
        ];
        for (name, annotations, known, want) in cases {
            assert_eq!(
                read_topology(&annotations, known, "default", "job1"),
                want,
                "{name}"
            );
        }
        assert_eq!(
            unknown("chief").unwrap_err().to_string(),
            "task chief do not exist in job <default/job1>"
        );
        assert_eq!(
            TopologyError::Duplicate {
                task: "ps".into(),
                namespace: "default".into(),
                job: "job1".into()
            }
            .to_string(),
            "task ps is duplicate in job <default/job1>"
        );
    }

    fn pod(name: &str, task: &str, cpu: i64, node: Option<&str>) -> TaskPod {
        TaskPod {
            name: name.into(),
            task: task.into(),
            request: VResource {
                milli_cpu: cpu,
                ..Default::default()
            },
            node: node.map(str::to_string),
        }
    }

    fn topology(a: &[&[&str]], anti: &[&[&str]], order: &[&str]) -> TaskTopology {
        TaskTopology {
            affinity: groups(a),
            anti_affinity: groups(anti),
            task_order: order.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// Buckets as lists of pod names.
    fn render(jm: &JobManager, pods: &[TaskPod]) -> Vec<Vec<String>> {
        jm.buckets
            .iter()
            .map(|b| b.pending.iter().map(|&i| pods[i].name.clone()).collect())
            .collect()
    }

    #[test]
    fn buckets_follow_affinity_and_balance() {
        let ps_worker = vec![
            pod("j-ps-0", "ps", 1000, None),
            pod("j-ps-1", "ps", 1000, None),
            pod("j-worker-0", "worker", 2000, None),
            pod("j-worker-1", "worker", 2000, None),
            pod("j-worker-2", "worker", 2000, None),
            pod("j-worker-3", "worker", 2000, None),
        ];
        type Case = (
            &'static str,
            TaskTopology,
            Vec<TaskPod>,
            Vec<Vec<&'static str>>,
            usize,
        );
        let cases: Vec<Case> = vec![
            (
                // ps first (task order); ps anti-affine to itself so each ps opens a bucket;
                // workers like ps and join the lighter bucket with the most ps.
                "ps/worker affinity with self anti-affine ps: one ps per bucket",
                topology(&[&["ps", "worker"]], &[&["ps"]], &["ps", "worker"]),
                ps_worker.clone(),
                vec![
                    vec!["j-ps-0", "j-worker-0", "j-worker-2"],
                    vec!["j-ps-1", "j-worker-1", "j-worker-3"],
                ],
                3,
            ),
            (
                "plain ps/worker affinity: one bucket",
                topology(&[&["ps", "worker"]], &[], &[]),
                ps_worker.clone(),
                vec![vec![
                    "j-ps-0",
                    "j-ps-1",
                    "j-worker-0",
                    "j-worker-1",
                    "j-worker-2",
                    "j-worker-3",
                ]],
                6,
            ),
            (
                "self anti-affinity: every pod its own bucket",
                topology(&[], &[&["worker"]], &[]),
                ps_worker.clone(),
                vec![
                    vec!["j-worker-0"],
                    vec!["j-worker-1"],
                    vec!["j-worker-2"],
                    vec!["j-worker-3"],
                ],
                1,
            ),
            (
                "running pods seed buckets by node",
                topology(&[&["ps", "worker"]], &[&["ps"]], &["ps", "worker"]),
                vec![
                    pod("j-ps-0", "ps", 1000, Some("n2")),
                    pod("j-ps-1", "ps", 1000, None),
                    pod("j-worker-0", "worker", 2000, None),
                ],
                vec![vec!["j-worker-0"], vec!["j-ps-1"]],
                2,
            ),
        ];
        for (name, topo, pods, want, max) in cases {
            let jm = JobManager::new(&topo, &pods);
            assert_eq!(render(&jm, &pods), want, "{name}");
            assert_eq!(jm.max_size, max, "{name}");
        }
    }

    #[test]
    fn task_order_is_bucket_by_bucket() {
        let pods = vec![
            pod("j-ps-0", "ps", 1000, None),
            pod("j-ps-1", "ps", 1000, None),
            pod("j-worker-0", "worker", 2000, None),
            pod("j-worker-1", "worker", 2000, None),
            pod("j-worker-2", "worker", 2000, None),
            pod("j-eval-0", "eval", 500, None),
        ];
        let jm = JobManager::new(
            &topology(&[&["ps", "worker"]], &[&["ps"]], &["ps", "worker"]),
            &pods,
        );
        let order: Vec<&str> = jm
            .task_order(&[0, 1, 2, 3, 4, 5], &pods)
            .into_iter()
            .map(|i| pods[i].name.as_str())
            .collect();
        assert_eq!(
            order,
            [
                "j-ps-0",
                "j-worker-0",
                "j-worker-2",
                "j-ps-1",
                "j-worker-1",
                "j-eval-0"
            ]
        );
    }

    #[test]
    fn node_score_favours_nodes_holding_the_bucket() {
        let pods = vec![
            pod("j-ps-0", "ps", 1000, None),
            pod("j-worker-0", "worker", 1000, None),
            pod("j-worker-1", "worker", 1000, None),
            pod("j-ps-1", "ps", 1000, None),
        ];
        let mut jm = JobManager::new(
            &topology(&[&["ps", "worker"]], &[&["ps"]], &["ps", "worker"]),
            &pods,
        );
        let idle = |cpu: i64| VResource {
            milli_cpu: cpu,
            ..Default::default()
        };
        // Buckets: [ps-0, worker-0] and [ps-1, worker-1]; the largest holds 2.
        assert_eq!(jm.max_size, 2);
        let cases = [
            ("the whole bucket fits: 2 of 2", 0, "n1", 10_000, 100.0),
            ("only the pod itself fits: 1 of 2", 0, "n1", 1_500, 50.0),
            ("the pod itself does not fit", 0, "n1", 500, 0.0),
        ];
        for (name, p, node, cpu, want) in cases {
            assert_eq!(jm.node_score(p, node, &idle(cpu), &pods), want, "{name}");
        }
        jm.bound(0, "n1", &pods);
        let worker = jm.buckets[0].pending[0];
        // n1 already holds one pod of the bucket; n2 holds none.
        let on_n1 = jm.bucket_score(worker, "n1", &idle(10_000), &pods);
        let on_n2 = jm.bucket_score(worker, "n2", &idle(10_000), &pods);
        assert_eq!(on_n1, on_n2 + 1);
        // The other ps is anti-affine to the ps on n1.
        let ps1 = 3;
        assert_eq!(jm.bucket_score(ps1, "n1", &idle(10_000), &pods), 1);
        assert_eq!(jm.bucket_score(ps1, "n2", &idle(10_000), &pods), 2);
    }
}
