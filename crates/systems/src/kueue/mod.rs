//! Kueue admission (kubernetes-sigs/kueue `pkg/scheduler`, `pkg/cache`, `pkg/workload`): which
//! jobs Kueue admits, on which ResourceFlavor per pod set, whom it preempts, and its own
//! message for the others. The entry point is [`admit`]: every integration (batch Job,
//! Deployment and StatefulSet through the pod integration, plain pods and pod groups, and
//! later JobSet and the rest) only hands over its [`Job`] with its pod sets.
//!
//! Modelled: the quota tree with cohorts and their hierarchy ([`quota`]), borrowing and
//! lending limits, the flavor assigner with fungibility ([`assign`]), classical preemption and
//! reclaim ([`preempt`]), partial admission, namespace selectors, stop policies, and the
//! scheduling cycle to a fixpoint: one head per ClusterQueue, ordered by priority then
//! creation, StrictFIFO heads blocking their queue, evictions freeing quota for the next
//! cycle. Not modelled: fair sharing, admission checks, WaitForPodsReady, flavor-scan resume.

pub mod assign;
pub mod preempt;
pub mod quota;

#[cfg(test)]
mod tests;

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use df_engine::selector::label_selector_matches;
use df_model::kueue::POD_SET_LABEL;
use df_model::kueue::{KueueObjects, ResourceGroup};
use df_model::{Labels, Pod};

use assign::{Assigner, Assignment, Fungibility, Group, Mode, PodSetShape, QueueShape};
use preempt::{Policies, Policy, Preemptor, Reserved, Search, SearchOracle, Target};
use quota::{Fr, Limits, Tree};

/// The Kueue pod set a pod is counted in: its [`POD_SET_LABEL`], else a Job's `main`.
pub fn pod_set_of(pod: &Pod) -> &str {
    pod.metadata
        .labels
        .get(POD_SET_LABEL)
        .map_or("main", |v| v.as_str())
}

/// A job handed to Kueue, as its integration derives the Workload.
#[derive(Debug, Clone, Default)]
pub struct Job {
    /// `Job`, `Deployment`, `StatefulSet`, `Pod`...: how the plan names it.
    pub kind: String,
    pub namespace: String,
    pub name: String,
    pub uid: String,
    /// `kueue.x-k8s.io/queue-name`: the LocalQueue of its namespace.
    pub queue: String,
    pub priority: i32,
    /// `metadata.creationTimestamp` (RFC 3339 sorts as text); empty sorts first.
    pub created: String,
    pub pod_sets: Vec<PodSetShape>,
}

/// One pod set's admission.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodSetDecision {
    pub name: String,
    /// Pods admitted (below the pod set's count under partial admission).
    pub count: i32,
    /// The flavor of each resource.
    pub flavors: BTreeMap<String, String>,
}

/// A workload Kueue evicts to make room, with its `Preempted` reason and message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Victim {
    pub namespace: String,
    pub name: String,
    pub reason: String,
    pub message: String,
}

/// What Kueue decides for one job: the `admission` object of the plan contract.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    pub admitted: bool,
    pub local_queue: String,
    pub cluster_queue: Option<String>,
    pub pod_sets: Vec<PodSetDecision>,
    /// The `QuotaReserved` condition's reason (`QuotaReserved` when admitted).
    pub reason: String,
    /// Kueue's own message.
    pub message: String,
    /// Whether the admission borrows quota from the cohort.
    pub borrowing: bool,
    pub victims: Vec<Victim>,
}

impl Decision {
    fn pending(job: &Job, cq: Option<&str>, reason: &str, message: String) -> Decision {
        Decision {
            admitted: false,
            local_queue: job.queue.clone(),
            cluster_queue: cq.map(str::to_string),
            pod_sets: Vec::new(),
            reason: reason.to_string(),
            message,
            borrowing: false,
            victims: Vec::new(),
        }
    }

    /// The plan table's one line: whether Kueue admits the job, where, and whom it evicts.
    pub fn line(&self) -> String {
        let cq = self.cluster_queue.as_deref().unwrap_or("");
        if !self.admitted {
            // The message itself is the gang's pending reason, on the line above.
            return format!("Kueue: not admitted ({}): it stays suspended", self.reason);
        }
        let sets: Vec<String> = self
            .pod_sets
            .iter()
            .map(|ps| {
                let mut by_flavor: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
                for (resource, flavor) in &ps.flavors {
                    by_flavor.entry(flavor).or_default().push(resource);
                }
                let flavors: Vec<String> = by_flavor
                    .iter()
                    .map(|(f, rs)| format!("{f} ({})", rs.join(", ")))
                    .collect();
                if flavors.is_empty() {
                    // Nothing requested that a resource group covers: no flavor to assign.
                    return format!("{} x{} (no flavor: nothing requested)", ps.name, ps.count);
                }
                format!("{} x{} on {}", ps.name, ps.count, flavors.join(", "))
            })
            .collect();
        let mut line = format!(
            "Kueue: admitted by ClusterQueue {cq}{}: {}",
            if self.borrowing { ", borrowing" } else { "" },
            sets.join("; ")
        );
        if !self.victims.is_empty() {
            let victims: Vec<String> = self
                .victims
                .iter()
                .map(|v| format!("{}/{} ({})", v.namespace, v.name, v.reason))
                .collect();
            line.push_str(&format!("; preempts {}", victims.join(", ")));
        }
        line
    }
}

/// A ClusterQueue as the cycle uses it.
struct Queue {
    name: String,
    shape: QueueShape,
    strict_fifo: bool,
    selector: Option<df_model::LabelSelector>,
    inactive: Option<String>,
    reclaim_any: bool,
}

fn quantity(resource: &str, q: df_model::Quantity) -> i64 {
    if resource == "cpu" {
        q.milli_value()
    } else {
        q.value()
    }
}

fn add_quotas(tree: &mut Tree, node: usize, groups: &[ResourceGroup]) {
    for group in groups {
        for flavor in &group.flavors {
            for r in &flavor.resources {
                let limits = Limits {
                    nominal: quantity(&r.name, r.nominal_quota),
                    borrowing: r.borrowing_limit.map(|q| quantity(&r.name, q)),
                    lending: r.lending_limit.map(|q| quantity(&r.name, q)),
                };
                tree.nodes[node]
                    .quota
                    .insert((flavor.name.clone(), r.name.clone()), limits);
            }
        }
    }
}

/// The cluster as Kueue's cache holds it: the quota tree, the queues, and the workloads that
/// hold quota.
struct Cache<'a> {
    objects: &'a KueueObjects,
    tree: Tree,
    queues: BTreeMap<usize, Queue>,
    policies: BTreeMap<usize, Policies>,
    reserved: Vec<Reserved>,
    /// For each reserved workload made by this plan, the job it is.
    reserved_job: BTreeMap<usize, usize>,
    gone: Vec<usize>,
}

impl<'a> Cache<'a> {
    fn new(objects: &'a KueueObjects) -> Cache<'a> {
        let mut tree = Tree::default();
        let mut cycles = BTreeSet::new();
        for cohort in &objects.cohorts {
            let n = tree.node(&cohort.metadata.name, false);
            add_quotas(&mut tree, n, &cohort.spec.resource_groups);
        }
        for cohort in &objects.cohorts {
            if cohort.spec.parent_name.is_empty() {
                continue;
            }
            let n = tree.node(&cohort.metadata.name, false);
            let p = tree.node(&cohort.spec.parent_name, false);
            if !tree.attach(n, p) {
                cycles.insert(n);
            }
        }
        let mut queues = BTreeMap::new();
        let mut policies = BTreeMap::new();
        for cq in &objects.cluster_queues {
            let spec = &cq.spec;
            let n = tree.node(&cq.metadata.name, true);
            add_quotas(&mut tree, n, &spec.resource_groups);
            if !spec.cohort_name.is_empty() {
                let c = tree.node(&spec.cohort_name, false);
                tree.attach(n, c);
            }
            let flavors: Vec<&str> = cq.flavor_names().collect();
            let missing: Vec<&str> = flavors
                .iter()
                .copied()
                .filter(|f| objects.flavor(f).is_none())
                .collect();
            let mut inactive = Vec::new();
            if spec.stop_policy.as_deref().is_some_and(|p| p != "None") {
                inactive.push("Stopped".to_string());
            }
            if !missing.is_empty() {
                inactive.push(format!(
                    "references missing ResourceFlavor(s): {}",
                    missing.join(",")
                ));
            }
            let tas_only = !flavors.is_empty()
                && flavors.iter().all(|f| {
                    objects
                        .flavor(f)
                        .is_some_and(|rf| rf.spec.topology_name.is_some())
                });
            let fungibility = spec.flavor_fungibility.clone().unwrap_or_default();
            let preemption = spec.preemption.clone().unwrap_or_default();
            let bwc = preemption
                .borrow_within_cohort
                .clone()
                .filter(|b| b.policy.as_deref() == Some("LowerPriority"))
                .map(|b| b.max_priority_threshold);
            let reclaim = Policy::parse(preemption.reclaim_within_cohort.as_deref());
            policies.insert(
                n,
                Policies {
                    within_cluster_queue: Policy::parse(preemption.within_cluster_queue.as_deref()),
                    reclaim_within_cohort: reclaim,
                    borrow_within_cohort: bwc,
                },
            );
            let shape = QueueShape {
                node: n,
                groups: spec
                    .resource_groups
                    .iter()
                    .map(|g| Group {
                        covered: g.covered_resources.clone(),
                        flavors: g.flavors.iter().map(|f| f.name.clone()).collect(),
                    })
                    .collect(),
                fungibility: Fungibility {
                    // v1beta1's deprecated `Borrow` / `Preempt` mean MayStopSearch.
                    borrow_try_next: fungibility.when_can_borrow.as_deref()
                        == Some("TryNextFlavor"),
                    preempt_try_next: !matches!(
                        fungibility.when_can_preempt.as_deref(),
                        Some("MayStopSearch" | "Preempt")
                    ),
                    preemption_over_borrowing: fungibility.preference.as_deref()
                        == Some("PreemptionOverBorrowing"),
                },
                preempt_while_borrowing: bwc.is_some(),
                tas_only,
            };
            queues.insert(
                n,
                Queue {
                    name: cq.metadata.name.clone(),
                    shape,
                    strict_fifo: spec.queueing_strategy.as_deref() == Some("StrictFIFO"),
                    selector: spec.namespace_selector.clone(),
                    inactive: (!inactive.is_empty()).then(|| inactive.join(", ")),
                    reclaim_any: reclaim == Policy::Any,
                },
            );
        }
        for (&n, queue) in queues.iter_mut() {
            if tree.ancestors(n).iter().any(|a| cycles.contains(a)) {
                queue.inactive = Some("cohort cycle".into());
            }
        }
        let mut cache = Cache {
            objects,
            tree,
            queues,
            policies,
            reserved: Vec::new(),
            reserved_job: BTreeMap::new(),
            gone: Vec::new(),
        };
        for wl in &objects.workloads {
            let Some(admission) = wl.reserved() else {
                continue;
            };
            let Some(cq) = cache.tree.find(&admission.cluster_queue, true) else {
                continue;
            };
            let mut usage: BTreeMap<Fr, i64> = BTreeMap::new();
            for psa in &admission.pod_set_assignments {
                for (resource, q) in psa.resource_usage.iter() {
                    if let Some(flavor) = psa.flavors.get(resource) {
                        *usage
                            .entry((flavor.clone(), resource.to_string()))
                            .or_default() += quantity(resource, *q);
                    }
                }
            }
            cache.tree.add_usage(cq, &usage);
            cache.reserved.push(Reserved {
                namespace: wl.metadata.namespace.clone(),
                name: wl.metadata.name.clone(),
                uid: String::new(),
                cq,
                priority: wl.spec.priority.unwrap_or(0),
                created: wl
                    .metadata
                    .creation_timestamp
                    .as_deref()
                    .unwrap_or("")
                    .to_string(),
                reserved_at: wl.reserved_at().unwrap_or("").to_string(),
                usage,
            });
        }
        cache
    }

    fn search(&self) -> Search<'_> {
        Search {
            tree: &self.tree,
            reserved: &self.reserved,
            gone: &self.gone,
            policies: &self.policies,
        }
    }

    fn assign(&self, queue: &Queue, job: &Job, counts: Option<&[i32]>) -> Assignment {
        let oracle = SearchOracle {
            search: self.search(),
            preemptor: preemptor(queue, job),
        };
        let objects = self.objects;
        let flavor = |name: &str| objects.flavor(name);
        Assigner {
            tree: &self.tree,
            queue: &queue.shape,
            flavor: &flavor,
            oracle: &oracle,
        }
        .assign(&job.pod_sets, counts)
    }

    /// Upstream `getInitialAssignments`: the full size first, its preemption targets when it
    /// needs some, and only then partial admission (a binary search for the largest counts
    /// that fit or can preempt).
    fn nominate(&self, queue: &Queue, job: &Job) -> (Assignment, Vec<Target>) {
        let full = self.assign(queue, job, None);
        let targets = |a: &Assignment| match a.mode() {
            Mode::Preempt => {
                self.search()
                    .targets(&preemptor(queue, job), &a.usage, &a.needs_preemption())
            }
            _ => Vec::new(),
        };
        if full.mode() == Mode::Fit {
            return (full, Vec::new());
        }
        let full_targets = targets(&full);
        if !full_targets.is_empty() {
            return (full, full_targets);
        }
        let deltas: Vec<i32> = job
            .pod_sets
            .iter()
            .map(|ps| (ps.count - ps.min_count.unwrap_or(ps.count)).max(0))
            .collect();
        let total: i64 = deltas.iter().map(|d| i64::from(*d)).sum();
        if total == 0 {
            return (full, Vec::new());
        }
        let counts = |i: i64| -> Vec<i32> {
            job.pod_sets
                .iter()
                .zip(&deltas)
                .map(|(ps, d)| {
                    let cut = i64::from(*d) * i / total;
                    ps.count - i32::try_from(cut).unwrap_or(*d)
                })
                .collect()
        };
        let try_at = |i: i64| {
            let a = self.assign(queue, job, Some(&counts(i)));
            match a.mode() {
                Mode::Fit => Some((a, Vec::new())),
                Mode::Preempt => {
                    let t = targets(&a);
                    (!t.is_empty()).then_some((a, t))
                }
                Mode::NoFit => None,
            }
        };
        let (mut lo, mut hi) = (0i64, total);
        let mut found = None;
        while lo <= hi {
            let mid = lo + (hi - lo) / 2;
            match try_at(mid) {
                Some(fit) => {
                    found = Some(fit);
                    hi = mid - 1;
                }
                None => lo = mid + 1,
            }
        }
        found.unwrap_or((full, Vec::new()))
    }
}

fn preemptor(queue: &Queue, job: &Job) -> Preemptor {
    Preemptor {
        cq: queue.shape.node,
        priority: job.priority,
        created: job.created.clone(),
    }
}

/// The labels of a namespace: the state's, else the one the API server always sets.
pub type NamespaceLabels<'a> = &'a dyn Fn(&str) -> Option<Labels>;

/// Kueue's decision for each of `jobs` (in the same order), admitting them cycle by cycle
/// against the quota the state's admitted Workloads already hold.
pub fn admit(objects: &KueueObjects, namespaces: NamespaceLabels, jobs: &[Job]) -> Vec<Decision> {
    let mut cache = Cache::new(objects);
    let mut decisions: Vec<Option<Decision>> = vec![None; jobs.len()];
    // Jobs waiting in each ClusterQueue.
    let mut waiting: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (j, job) in jobs.iter().enumerate() {
        match route(&cache, namespaces, job) {
            Ok(cq) => waiting.entry(cq).or_default().push(j),
            Err(d) => decisions[j] = Some(*d),
        }
    }
    let mut victims: Vec<Vec<Victim>> = vec![Vec::new(); jobs.len()];
    let mut inadmissible: BTreeSet<usize> = BTreeSet::new();
    let mut blocked: BTreeSet<usize> = BTreeSet::new();
    let mut last: BTreeMap<usize, Decision> = BTreeMap::new();
    let order = |j: &usize| {
        let job = &jobs[*j];
        (
            -i64::from(job.priority),
            job.created.clone(),
            job.namespace.clone(),
            job.name.clone(),
        )
    };
    let limit = 4 * jobs.len() + 8;
    for _ in 0..limit {
        let mut heads: Vec<(usize, usize)> = Vec::new();
        for (&cq, queued) in &waiting {
            if blocked.contains(&cq) {
                continue;
            }
            let strict = cache.queues[&cq].strict_fifo;
            let head = queued
                .iter()
                .filter(|j| decisions[**j].is_none() && (strict || !inadmissible.contains(j)))
                .min_by_key(|j| order(j));
            if let Some(&j) = head {
                heads.push((cq, j));
            }
        }
        if heads.is_empty() {
            break;
        }
        let mut entries: Vec<(usize, usize, Assignment, Vec<Target>)> = heads
            .into_iter()
            .map(|(cq, j)| {
                let (a, t) = cache.nominate(&cache.queues[&cq], &jobs[j]);
                (cq, j, a, t)
            })
            .collect();
        entries.sort_by_key(|(cq, j, a, _)| (a.borrowing, order(j), cache.queues[cq].name.clone()));
        let mut changed = false;
        let mut claimed: Vec<usize> = Vec::new();
        let mut held: Vec<(usize, BTreeMap<Fr, i64>)> = Vec::new();
        for (cq, j, assignment, targets) in entries {
            let queue = &cache.queues[&cq];
            let job = &jobs[j];
            let strict = queue.strict_fifo;
            let mut fail = |cache: &Cache, reason: &str, message: String| {
                last.insert(
                    j,
                    Decision::pending(job, Some(&cache.queues[&cq].name), reason, message),
                );
                if strict {
                    blocked.insert(cq);
                } else {
                    inadmissible.insert(j);
                }
            };
            match assignment.mode() {
                Mode::NoFit => {
                    fail(
                        &cache,
                        assignment.no_fit_reason().as_str(),
                        assignment.message(),
                    );
                }
                Mode::Preempt if targets.is_empty() => {
                    if !queue.reclaim_any {
                        let hold = to_reserve(&cache.tree, cq, &assignment);
                        cache.tree.add_usage(cq, &hold);
                        held.push((cq, hold));
                    }
                    fail(&cache, "WaitingForQuota", assignment.message());
                }
                Mode::Preempt => {
                    if targets.iter().any(|t| claimed.contains(&t.index)) {
                        let message =
                            "Workload has overlapping preemption targets with another workload";
                        fail(&cache, "WaitingForQuota", message.into());
                        continue;
                    }
                    let path = cache.tree.path(cq);
                    for t in &targets {
                        claimed.push(t.index);
                        let r = cache.reserved[t.index].clone();
                        cache.tree.remove_usage(r.cq, &r.usage);
                        cache.gone.push(t.index);
                        let message = format!(
                            "Preempted to accommodate a workload (UID: {}, JobUID: {}) due to {}; \
                             preemptor path: {path}; preemptee path: {}",
                            or_unknown(&job.uid),
                            or_unknown(&job.uid),
                            t.variant.words(),
                            cache.tree.path(r.cq)
                        );
                        victims[j].push(Victim {
                            namespace: r.namespace.clone(),
                            name: r.name.clone(),
                            reason: t.variant.reason().into(),
                            message: message.clone(),
                        });
                        // A job this plan admitted goes back to its queue.
                        if let Some(&v) = cache.reserved_job.get(&t.index) {
                            decisions[v] = None;
                            last.insert(
                                v,
                                Decision::pending(
                                    &jobs[v],
                                    Some(&cache.queues[&r.cq].name),
                                    "Preempted",
                                    message,
                                ),
                            );
                        }
                    }
                    let message = format!(
                        "{}. Pending the preemption of {} workload(s)",
                        assignment.message(),
                        targets.len()
                    );
                    last.insert(
                        j,
                        Decision::pending(
                            job,
                            Some(&queue.name),
                            "WaitingForPreemptedWorkloads",
                            message,
                        ),
                    );
                    changed = true;
                }
                Mode::Fit => {
                    let fits = assignment
                        .usage
                        .iter()
                        .all(|(fr, v)| cache.tree.available(cq, fr) >= *v);
                    if !fits {
                        fail(
                            &cache,
                            "WaitingForQuota",
                            "Workload no longer fits after processing another workload".into(),
                        );
                        continue;
                    }
                    cache.tree.add_usage(cq, &assignment.usage);
                    cache.reserved_job.insert(cache.reserved.len(), j);
                    cache.reserved.push(Reserved {
                        namespace: job.namespace.clone(),
                        name: job.name.clone(),
                        uid: job.uid.clone(),
                        cq,
                        priority: job.priority,
                        created: job.created.clone(),
                        reserved_at: String::new(),
                        usage: assignment.usage.clone(),
                    });
                    decisions[j] = Some(admitted(job, &cache.queues[&cq].name, &assignment));
                    changed = true;
                }
            }
        }
        for (cq, hold) in held {
            cache.tree.remove_usage(cq, &hold);
        }
        if changed {
            inadmissible.clear();
            blocked.clear();
        }
    }
    decisions
        .into_iter()
        .enumerate()
        .map(|(j, d)| {
            let mut d = d.or_else(|| last.remove(&j)).unwrap_or_else(|| {
                let job = &jobs[j];
                let cq = waiting
                    .iter()
                    .find(|(_, q)| q.contains(&j))
                    .map(|(cq, _)| cache.queues[cq].name.clone());
                let message = format!(
                    "waiting in ClusterQueue {} behind its StrictFIFO head",
                    cq.as_deref().unwrap_or("")
                );
                Decision::pending(job, cq.as_deref(), "Pending", message)
            });
            d.victims = std::mem::take(&mut victims[j]);
            d
        })
        .collect()
}

fn or_unknown(uid: &str) -> &str {
    if uid.is_empty() { "UNKNOWN" } else { uid }
}

/// Upstream `resourcesToReserve`: what a head that must wait for preemption keeps from the
/// jobs behind it in the same cycle.
fn to_reserve(tree: &Tree, cq: usize, assignment: &Assignment) -> BTreeMap<Fr, i64> {
    assignment
        .usage
        .iter()
        .map(|(fr, v)| {
            let usage = tree.usage(cq, fr);
            let nominal = tree.nominal(cq, fr);
            let keep = if assignment.borrowing > 0 {
                let limit = tree.nodes[cq].quota.get(fr).and_then(|l| l.borrowing);
                match limit {
                    Some(b) => (*v).min(nominal.saturating_add(b) - usage),
                    None => *v,
                }
            } else {
                (*v).min(nominal - usage).max(0)
            };
            (fr.clone(), keep.max(0))
        })
        .collect()
}

fn admitted(job: &Job, cq: &str, assignment: &Assignment) -> Decision {
    Decision {
        admitted: true,
        local_queue: job.queue.clone(),
        cluster_queue: Some(cq.to_string()),
        pod_sets: assignment
            .pod_sets
            .iter()
            .map(|ps| PodSetDecision {
                name: ps.name.clone(),
                count: ps.count,
                flavors: ps
                    .flavors
                    .iter()
                    .map(|(r, c)| (r.clone(), c.flavor.clone()))
                    .collect(),
            })
            .collect(),
        reason: "QuotaReserved".into(),
        message: format!("Quota reserved in ClusterQueue {cq}"),
        borrowing: assignment.borrowing > 0,
        victims: Vec::new(),
    }
}

/// The ClusterQueue a job waits in, or Kueue's reason it waits nowhere (the workload
/// controller's and the scheduler's nominate step's messages).
fn route(cache: &Cache, namespaces: NamespaceLabels, job: &Job) -> Result<usize, Box<Decision>> {
    let objects = cache.objects;
    let pending = |cq: Option<&str>, reason: &str, message: String| {
        Box::new(Decision::pending(job, cq, reason, message))
    };
    let Some(lq) = objects.local_queue(&job.namespace, &job.queue) else {
        return Err(pending(
            None,
            "Inadmissible",
            format!("LocalQueue {} doesn't exist", job.queue),
        ));
    };
    if lq.spec.stop_policy.as_deref().is_some_and(|p| p != "None") {
        return Err(pending(
            None,
            "Inadmissible",
            format!("LocalQueue {} is stopped", job.queue),
        ));
    }
    let name = &lq.spec.cluster_queue;
    let Some(cq) = cache.tree.find(name, true) else {
        return Err(pending(
            None,
            "Inadmissible",
            format!("ClusterQueue {name} doesn't exist"),
        ));
    };
    let queue = &cache.queues[&cq];
    if queue.inactive.is_some() {
        return Err(pending(
            Some(name),
            "Suspended",
            format!("ClusterQueue {name} is inactive"),
        ));
    }
    let labels = namespaces(&job.namespace).unwrap_or_else(|| {
        let mut labels = Labels::default();
        labels.insert(
            "kubernetes.io/metadata.name".into(),
            job.namespace.as_str().into(),
        );
        labels
    });
    let matches = queue
        .selector
        .as_ref()
        .is_some_and(|s| label_selector_matches(s, &labels).unwrap_or(false));
    if !matches {
        return Err(pending(
            Some(name),
            "Misconfigured",
            "workload namespace doesn't match ClusterQueue selector".into(),
        ));
    }
    Ok(cq)
}
