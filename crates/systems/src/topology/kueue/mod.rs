//! Kueue Topology Aware Scheduling on a Job's pod set. Kueue admits the Job through its
//! LocalQueue and ClusterQueue onto a ResourceFlavor; when that flavor names a `Topology`, it
//! also computes how many pods go to each lowest-level domain ([`tas`]), and its ungater then
//! gives each pod a node selector for its domain. kube-scheduler (the one engine) places each
//! pod inside its domain.
//!
//! Modelled: the queue chain, flavor order (the first flavor that fits; quotas are not read),
//! implied TAS (no annotation on a topology flavor: unconstrained at the lowest level), the
//! flavor's node labels and tolerations injected into the pods, and the snapshot's free
//! capacity per domain (allocatable less every bound pod's requests).

pub mod tas;

use std::collections::{BTreeMap, BTreeSet};

use crate::gang::outcome::{self, GangStatus, GroupPlan, Rejection};
use crate::gang::{Gang, place};
use crate::kueue::pod_set_of;
use crate::topology::Request;
use crate::topology::output::{DomainRef, Mode, RejectedDomain, TopologyPlan};
use df_engine::Scheduler;
use df_engine::plugins::taint_toleration::untolerated_taint;
use df_engine::selector::{node_selector_map_matches, node_selector_matches};
use df_model::fluid::HOSTNAME_LABEL;
use df_model::kueue::{self, ClusterQueue, KueueObjects, LocalQueue, ResourceFlavor, Topology};
use df_model::resources::{Resources, pod_requests};
use df_model::{Node, Pod, Toleration};
use tas::{Exclusions, LevelMode, PodSetRequest, Tree};

/// Kueue objects looked up in the inputs first, then in the state.
#[derive(Debug, Clone, Copy)]
pub struct Queues<'a> {
    pub given: &'a KueueObjects,
    pub state: &'a KueueObjects,
}

impl<'a> Queues<'a> {
    pub fn local_queue(&self, namespace: &str, name: &str) -> Option<&'a LocalQueue> {
        self.given
            .local_queue(namespace, name)
            .or_else(|| self.state.local_queue(namespace, name))
    }

    pub fn cluster_queue(&self, name: &str) -> Option<&'a ClusterQueue> {
        self.given
            .cluster_queue(name)
            .or_else(|| self.state.cluster_queue(name))
    }

    pub fn flavor(&self, name: &str) -> Option<&'a ResourceFlavor> {
        self.given.flavor(name).or_else(|| self.state.flavor(name))
    }

    pub fn topology(&self, name: &str) -> Option<&'a Topology> {
        self.given
            .topology(name)
            .or_else(|| self.state.topology(name))
    }
}

/// A flavor Kueue may admit the pod set on, with its topology when it has one.
#[derive(Debug, Clone, Copy)]
pub struct Candidate<'a> {
    pub flavor: &'a ResourceFlavor,
    pub topology: Option<&'a Topology>,
}

/// The flavors Kueue would try for a pod set of `namespace` sent to LocalQueue `queue`, in
/// order, or why Kueue cannot admit it at all. A pod set that asks for topology only goes to
/// flavors with one; any other pod set takes the first flavor (TAS is then implied when that
/// flavor has a topology).
pub fn candidates<'a>(
    queues: Queues<'a>,
    namespace: &str,
    queue: &str,
    asks_topology: bool,
) -> Result<Vec<Candidate<'a>>, String> {
    let local = queues.local_queue(namespace, queue).ok_or_else(|| {
        format!("LocalQueue {namespace}/{queue} not found: Kueue keeps it suspended")
    })?;
    let cq_name = &local.spec.cluster_queue;
    let cq = queues.cluster_queue(cq_name).ok_or_else(|| {
        format!(
            "ClusterQueue {cq_name:?} of LocalQueue {namespace}/{queue} not found: Kueue keeps it \
             suspended"
        )
    })?;
    let mut all = Vec::new();
    for name in cq.flavor_names() {
        let flavor = queues.flavor(name).ok_or_else(|| {
            format!("ResourceFlavor {name:?} of ClusterQueue {cq_name:?} not found: the ClusterQueue is inactive")
        })?;
        let topology = match &flavor.spec.topology_name {
            Some(t) => Some(queues.topology(t).ok_or_else(|| {
                format!("Topology {t:?} of ResourceFlavor {name:?} not found: the ClusterQueue is inactive")
            })?),
            None => None,
        };
        all.push(Candidate { flavor, topology });
    }
    if asks_topology {
        all.retain(|c| c.topology.is_some());
        if all.is_empty() {
            return Err(format!(
                "ClusterQueue {cq_name:?} has no ResourceFlavor with a topologyName: Kueue cannot \
                 admit a pod set that asks for topology"
            ));
        }
        return Ok(all);
    }
    all.truncate(1);
    if all.is_empty() {
        return Err(format!("ClusterQueue {cq_name:?} lists no flavor"));
    }
    Ok(all)
}

/// Whether the pod template asks for topology through any pod-set annotation.
pub fn asks_topology(pod: &Pod) -> bool {
    let annotations = &pod.metadata.annotations;
    [
        kueue::REQUIRED_TOPOLOGY,
        kueue::PREFERRED_TOPOLOGY,
        kueue::UNCONSTRAINED_TOPOLOGY,
        kueue::SLICE_REQUIRED_TOPOLOGY,
    ]
    .iter()
    .any(|key| annotations.contains_key(key))
}

/// The pod set's request from its annotations against `levels` (upstream `levelKey`,
/// `isUnconstrained`, `getSliceSizeWithSinglePodAsDefault`), or upstream's reason it is
/// invalid.
pub fn request(pod: &Pod, levels: &[String], count: i32) -> Result<PodSetRequest, String> {
    let annotations = &pod.metadata.annotations;
    let index = |key: &str| levels.iter().position(|l| l == key);
    let lowest = levels.len().saturating_sub(1);
    let slice_key = annotations.get(kueue::SLICE_REQUIRED_TOPOLOGY);
    let (mode, level_key) = if let Some(key) = annotations.get(kueue::REQUIRED_TOPOLOGY) {
        (LevelMode::Required, key.to_string())
    } else if let Some(key) = annotations.get(kueue::PREFERRED_TOPOLOGY) {
        (LevelMode::Preferred, key.to_string())
    } else if slice_key.is_some() {
        (LevelMode::Unconstrained, levels[0].clone())
    } else {
        (LevelMode::Unconstrained, levels[lowest].clone())
    };
    let level =
        index(&level_key).ok_or_else(|| format!("no requested topology level: {level_key}"))?;
    let (slice_size, slice_level) = match slice_key {
        None => (1, lowest),
        Some(key) => {
            let size = annotations
                .get(kueue::SLICE_SIZE)
                .ok_or("slice topology requested, but slice size not provided")?;
            let size: i32 = size.parse().ok().filter(|n| *n > 0).ok_or_else(|| {
                format!(
                    "{} must be a positive integer, not {size:?}",
                    kueue::SLICE_SIZE
                )
            })?;
            let slice_level = index(key)
                .ok_or_else(|| format!("no requested topology level for slices: {key}"))?;
            (size, slice_level)
        }
    };
    if level > slice_level {
        return Err(format!(
            "podset slice topology {} is above the podset topology {level_key}",
            levels[slice_level]
        ));
    }
    Ok(PodSetRequest {
        count,
        mode,
        level,
        slice_size,
        slice_level,
    })
}

/// The nodes a flavor's snapshot holds: those with the flavor's node labels, every level's
/// label, and not cordoned.
fn in_snapshot(node: &Node, flavor: &ResourceFlavor, levels: &[String]) -> bool {
    let labels = &node.metadata.labels;
    !node.spec.unschedulable
        && node_selector_map_matches(&flavor.spec.node_labels, labels)
        && levels.iter().all(|l| labels.contains_key(l))
}

/// Pods of `one` that fit in `free`, and the resource that fits none (upstream
/// `CountInWithLimitingResource`; ties go to the first name).
fn pods_that_fit(free: &Resources, one: &Resources) -> (i32, Option<String>) {
    let mut names = vec!["cpu", "memory", "ephemeral-storage", "pods"];
    names.extend(one.scalar.keys().map(String::as_str));
    names.sort_unstable();
    let mut best: Option<(i64, &str)> = None;
    for name in names {
        let need = one.get(name);
        if need <= 0 {
            continue;
        }
        let fit = (free.get(name) / need).max(0);
        if best.is_none_or(|(b, _)| fit < b) {
            best = Some((fit, name));
        }
    }
    match best {
        Some((fit, name)) => (
            i32::try_from(fit).unwrap_or(i32::MAX),
            (fit == 0).then(|| name.to_string()),
        ),
        None => (i32::MAX, None),
    }
}

/// Why upstream's `matchNode` leaves a node out for a pod.
enum Excluded {
    /// `key=value:Effect` of the first untolerated NoSchedule/NoExecute taint.
    Taint(String),
    NodeSelector,
    Affinity,
}

fn exclusion(node: &Node, pod: &Pod, tolerations: &[Toleration]) -> Option<Excluded> {
    if let Some(taint) = untolerated_taint(node, tolerations) {
        let value = if taint.value.is_empty() {
            String::new()
        } else {
            format!("={}", taint.value)
        };
        return Some(Excluded::Taint(format!(
            "{}{value}:{}",
            taint.key, taint.effect
        )));
    }
    let labels = &node.metadata.labels;
    if !node_selector_map_matches(&pod.spec.node_selector, labels) {
        return Some(Excluded::NodeSelector);
    }
    let required = pod
        .spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
        .and_then(|n| n.required.as_ref());
    match required {
        Some(r) if !node_selector_matches(r, &node.metadata.name, labels).0 => {
            Some(Excluded::Affinity)
        }
        _ => None,
    }
}

/// The snapshot of one flavor for one pod: its domain tree with the pods that fit in each
/// lowest-level domain, the nodes of each such domain, and what was left out.
pub struct Snapshot {
    pub tree: Tree,
    pub nodes: BTreeMap<Vec<String>, Vec<usize>>,
    pub excluded: Exclusions,
}

/// Build the snapshot of `flavor` / `topology` for pods like `pod`, on what `scheduler`
/// has assumed so far. When the lowest level is the hostname, nodes the pod cannot use
/// (untolerated taint, nodeSelector, required node affinity) count no pods, as upstream's
/// `matchNode`; above that, free capacity is summed per domain first.
pub fn snapshot(
    scheduler: &Scheduler,
    flavor: &ResourceFlavor,
    topology: &Topology,
    pod: &Pod,
) -> Snapshot {
    let state = scheduler.state();
    let levels = topology.level_keys();
    let per_node = levels.last().map(String::as_str) == Some(HOSTNAME_LABEL);
    let mut one = pod_requests(&pod.spec, false);
    one.pods = 1;
    let tolerations: Vec<Toleration> = pod
        .spec
        .tolerations
        .iter()
        .chain(&flavor.spec.tolerations)
        .cloned()
        .collect();
    let mut excluded = Exclusions::default();
    let mut free: BTreeMap<Vec<String>, Resources> = BTreeMap::new();
    let mut nodes: BTreeMap<Vec<String>, Vec<usize>> = BTreeMap::new();
    let mut blocked: BTreeSet<Vec<String>> = BTreeSet::new();
    for (i, node) in state.nodes.iter().enumerate() {
        if !in_snapshot(node, flavor, &levels) {
            continue;
        }
        let values: Vec<String> = levels
            .iter()
            .map(|l| node.metadata.labels[l].to_string())
            .collect();
        nodes.entry(values.clone()).or_default().push(i);
        excluded.total_nodes += 1;
        let room = free.entry(values.clone()).or_default();
        let reason = per_node
            .then(|| exclusion(node, pod, &tolerations))
            .flatten();
        if let Some(reason) = reason {
            match reason {
                Excluded::Taint(taint) => *excluded.taints.entry(taint).or_default() += 1,
                Excluded::NodeSelector => excluded.node_selector += 1,
                Excluded::Affinity => excluded.affinity += 1,
            }
            blocked.insert(values);
            continue;
        }
        if let Some(node_free) = scheduler.free(i) {
            room.add(&node_free);
        }
    }
    let mut leaves = Vec::new();
    for (values, room) in free {
        let (fit, limiting) = pods_that_fit(&room, &one);
        if let Some(resource) = limiting.filter(|_| per_node && !blocked.contains(&values)) {
            *excluded.resources.entry(resource).or_default() += 1;
        }
        leaves.push((values, fit));
    }
    Snapshot {
        tree: Tree::new(&topology.metadata.name, &levels, &leaves),
        nodes,
        excluded,
    }
}

/// One flavor's outcome for the pod set.
struct Tried<'a> {
    candidate: Candidate<'a>,
    levels: Vec<String>,
    /// State node indexes of each lowest-level domain.
    nodes: BTreeMap<Vec<String>, Vec<usize>>,
    request: Option<PodSetRequest>,
    result: Result<tas::Assignment, tas::NoFit>,
}

/// The flavors Kueue assigned to each pod set, by pod set name.
type PodSetFlavors<'a> = BTreeMap<String, Vec<&'a ResourceFlavor>>;

/// The pods Kueue starts for `gang` on its pod sets' flavors: its node labels and tolerations injected,
/// and with an assignment, each pod (in order) given the node selector of its domain (all
/// levels, or only the hostname when that is the lowest level, as Kueue's ungater writes it).
fn admitted(
    gang: &Gang,
    flavors: &PodSetFlavors,
    assignment: Option<(&[String], &tas::Assignment)>,
) -> Gang {
    let mut slots: Vec<Vec<(String, String)>> = Vec::new();
    if let Some((levels, assignment)) = assignment {
        let from = if levels.last().map(String::as_str) == Some(HOSTNAME_LABEL) {
            levels.len() - 1
        } else {
            0
        };
        for (values, count) in &assignment.domains {
            let selector: Vec<(String, String)> = levels[from..]
                .iter()
                .cloned()
                .zip(values[from..].iter().cloned())
                .collect();
            for _ in 0..*count {
                slots.push(selector.clone());
            }
        }
    }
    let mut admitted = gang.clone();
    for (i, member) in admitted.members.iter_mut().enumerate() {
        let pod_set = pod_set_of(&member.pod).to_string();
        let spec = &mut member.pod.spec;
        for flavor in flavors.get(&pod_set).into_iter().flatten() {
            spec.node_selector.extend(flavor.spec.node_labels.clone());
            for toleration in &flavor.spec.tolerations {
                if !spec.tolerations.contains(toleration) {
                    spec.tolerations.push(toleration.clone());
                }
            }
        }
        if let Some(selector) = slots.get(i) {
            spec.node_selector.extend(selector.iter().cloned());
        }
    }
    admitted
}

/// Plan a Kueue Job's pod set: Kueue's admission decision ([`crate::kueue`]) first, then the
/// admitted pods with their flavor's node labels and tolerations: with the topology
/// assignment when the flavor has a topology (all or nothing), else placed one by one, as
/// Kueue admits on quota alone and kube-scheduler knows no gang.
pub fn plan(
    scheduler: &mut Scheduler,
    gang: &Gang,
    given: &KueueObjects,
    compare: bool,
    within: Option<&[usize]>,
) -> GroupPlan {
    let state = scheduler.state();
    let queues = Queues {
        given,
        state: &state.kueue,
    };
    let Some(template) = gang.members.first().map(|m| m.pod.clone()) else {
        return place::plan_pod_by_pod(scheduler, gang, compare, None, within);
    };
    let Some(decision) = gang.admission.as_deref() else {
        let mut plan = place::plan_staging_followers(scheduler, gang, compare, within);
        plan.warnings.push(
            "no Kueue LocalQueue, ClusterQueue, ResourceFlavor or Topology in the inputs or the \
             state: planned as if Kueue admits the Job on a flavor without topology"
                .to_string(),
        );
        return plan;
    };
    if !decision.admitted {
        let reason = format!(
            "Kueue keeps the {} suspended: {}",
            gang.kind.kind, decision.message
        );
        return outcome::unplanned(gang, state, GangStatus::Unschedulable, reason);
    }
    let assigned: BTreeSet<&str> = decision
        .pod_sets
        .iter()
        .flat_map(|ps| ps.flavors.values().map(String::as_str))
        .collect();
    let flavors: Vec<&ResourceFlavor> = assigned.iter().filter_map(|f| queues.flavor(f)).collect();
    let pod_set_flavors: PodSetFlavors = decision
        .pod_sets
        .iter()
        .map(|ps| {
            let names: BTreeSet<&str> = ps.flavors.values().map(String::as_str).collect();
            let flavors = names.iter().filter_map(|f| queues.flavor(f)).collect();
            (ps.name.clone(), flavors)
        })
        .collect();
    let mut gang = gang.clone();
    // Kueue's topology assignment is all or nothing over the admitted pods.
    gang.min_member = i64::try_from(gang.members.len()).unwrap_or(i64::MAX);
    let mut notes = Vec::new();
    let flavor_names: Vec<&str> = assigned.iter().copied().collect();
    let checks = decision
        .cluster_queue
        .as_deref()
        .and_then(|cq| queues.cluster_queue(cq))
        .map(|cq| cq.admission_checks_for(&flavor_names))
        .unwrap_or_default();
    if !checks.is_empty() {
        notes.push(format!(
            "Kueue reserves the quota, then admits the {} only once its AdmissionChecks ({}) \
             are Ready: they are not modelled, and its pods are placed as if they were",
            gang.kind.kind,
            checks.join(", ")
        ));
    }
    // Partial admission: only a Job's one pod set has a minimum count below its count.
    if let [main] = decision.pod_sets.as_slice()
        && let count = main.count
        && let admitted_count = usize::try_from(count).unwrap_or(0)
        && admitted_count < gang.members.len()
    {
        notes.push(format!(
            "Kueue admits {admitted_count} of {} pods (partial admission): the Job runs with \
             parallelism {admitted_count}",
            gang.members.len()
        ));
        gang.members.truncate(admitted_count);
        gang.min_member = gang.min_member.min(i64::from(count));
    }
    let topology = flavors.iter().find_map(|f| {
        let name = f.spec.topology_name.as_ref()?;
        Some((*f, queues.topology(name)?))
    });
    let several = decision.pod_sets.len() > 1;
    if let (Some((flavor, _)), true) = (topology, several) {
        notes.push(format!(
            "ResourceFlavor {} has a topology: Topology Aware Scheduling of a workload of {} pod \
             sets is not modelled; its pods are placed one by one with their flavors' node labels",
            flavor.metadata.name,
            decision.pod_sets.len()
        ));
    }
    let topology = topology.filter(|_| !several);
    let Some((tas_flavor, topology)) = topology else {
        let mut admitted = admitted(&gang, &pod_set_flavors, None);
        admitted.min_member = 0;
        let mut plan = place::plan_staging_followers(scheduler, &admitted, compare, within);
        plan.min_member = 0;
        let flavors = match flavor_names.as_slice() {
            [] => "no ResourceFlavor".to_string(),
            names => format!("ResourceFlavor {}, no topologyName", names.join(", ")),
        };
        notes.push(format!(
            "Kueue admits it on quota alone ({flavors}): the scheduler places its pods one by \
             one, not as a gang"
        ));
        plan.warnings.extend(notes);
        return plan;
    };
    let followers = gang
        .members
        .iter()
        .filter(|m| crate::operators::leader_of(&m.pod).is_some())
        .count();
    if followers > 0 {
        notes.push(format!(
            "{followers} pods follow their leader's topology domain (exclusive placement): \
             Topology Aware Scheduling assigns them with the leader, before they exist; the \
             operator's staging is not modelled with a topology"
        ));
    }
    let candidate = Candidate {
        flavor: tas_flavor,
        topology: Some(topology),
    };
    let count = i32::try_from(gang.members.len()).unwrap_or(i32::MAX);
    let levels = topology.level_keys();
    let snapshot = snapshot(scheduler, tas_flavor, topology, &template);
    let (request, result) = match request(&template, &levels, count) {
        Err(reason) => (
            None,
            Err(tas::NoFit {
                reason,
                candidates: Vec::new(),
            }),
        ),
        Ok(request) => (
            Some(request),
            snapshot.tree.assign(&request, &snapshot.excluded),
        ),
    };
    let tried = vec![Tried {
        candidate,
        levels,
        nodes: snapshot.nodes,
        request,
        result,
    }];
    let mut plan = report(scheduler, &gang, &pod_set_flavors, tried, compare, within);
    plan.warnings.extend(notes);
    plan
}

/// The nodes of the assignment's domains (within `within`, when the plan is narrowed): every
/// admitted pod's node selector names one of these domains, so a node outside them fails its
/// NodeAffinity filter, and deciding over these alone gives the same answer without
/// evaluating the whole cluster 1,000 times for a 1,000-pod set.
fn assigned_nodes(
    domain_nodes: &BTreeMap<Vec<String>, Vec<usize>>,
    assignment: &tas::Assignment,
    within: Option<&[usize]>,
) -> Vec<usize> {
    let mut nodes: Vec<usize> = assignment
        .domains
        .iter()
        .filter_map(|(values, _)| domain_nodes.get(values))
        .flatten()
        .copied()
        .filter(|node| within.is_none_or(|allowed| allowed.contains(node)))
        .collect();
    nodes.sort_unstable();
    nodes.dedup();
    nodes
}

/// The plan of the last flavor tried (the one that fits, or the last that does not), in the
/// shared topology output: the chosen domain per level, every domain of the requested level
/// Kueue did not use with its numbers, and each pod's domain path.
fn report(
    scheduler: &mut Scheduler,
    gang: &Gang,
    flavors: &PodSetFlavors,
    tried: Vec<Tried>,
    compare: bool,
    within: Option<&[usize]>,
) -> GroupPlan {
    let state = scheduler.state();
    let last = tried.last().expect("at least one flavor is tried");
    let mut warnings: Vec<String> = tried[..tried.len() - 1]
        .iter()
        .filter_map(|t| {
            let reason = &t.result.as_ref().err()?.reason;
            Some(format!(
                "ResourceFlavor {}: {reason}",
                t.candidate.flavor.metadata.name
            ))
        })
        .collect();
    let topology = last.candidate.topology.expect("TAS flavors only");
    let levels = &last.levels;
    let mut plan = match &last.result {
        Ok(assignment) => {
            let admitted = admitted(gang, flavors, Some((levels, assignment)));
            let assigned = assigned_nodes(&last.nodes, assignment, within);
            place::plan_pod_by_pod(scheduler, &admitted, compare, None, Some(&assigned))
        }
        Err(no_fit) => {
            let reason = format!("Kueue TAS: {}", no_fit.reason);
            outcome::unplanned(gang, state, GangStatus::Unschedulable, reason)
        }
    };
    let Some(request) = last.request else {
        plan.warnings.extend(warnings);
        return plan;
    };
    let (candidates, leaves) = match &last.result {
        Ok(a) => (&a.candidates, a.domains.iter().map(|(v, _)| v).collect()),
        Err(e) => (&e.candidates, Vec::new()),
    };
    let unit = if request.slice_size == 1 {
        "pods"
    } else {
        "slices"
    };
    let needed = usize::try_from(request.count / request.slice_size).unwrap_or(0);
    let level = &levels[request.level];
    // Whether a candidate holds some of the pods: the one that took them at the requested
    // level, when one did, is the others' measure.
    let took = |values: &[String]| leaves.iter().any(|leaf| leaf.starts_with(values));
    let kept = candidates.iter().find(|c| took(&c.values));
    for candidate in candidates {
        if took(&candidate.values) {
            continue;
        }
        let fit = usize::try_from(candidate.slices).unwrap_or(0);
        let tied_with = kept.filter(|k| k.slices == candidate.slices && fit >= needed);
        let reason = if fit < needed {
            format!("{fit} of {needed} {unit} fit")
        } else if let Some(kept) = tied_with {
            // Equal room: the choice is Kueue's tie break, not the topology's.
            format!(
                "{fit} {unit} fit, {needed} needed: as tight as {}, which comes first in Kueue's \
                 order (fewer pods, then by name)",
                kept.values[request.level]
            )
        } else if request.mode == LevelMode::Unconstrained {
            format!(
                "{fit} {unit} fit, {needed} needed: Kueue takes the least free domain that holds them"
            )
        } else {
            format!(
                "{fit} {unit} fit, {needed} needed: Kueue takes the tightest domain that holds them"
            )
        };
        plan.rejected.push(RejectedDomain {
            level: level.clone(),
            domain: candidate.values[request.level].clone(),
            fit,
            needed,
            reason,
        });
    }
    let fit_level = match &last.result {
        Ok(a) => a.fit_level,
        Err(_) => request.level,
    };
    // The domain at the fit level that took the pods, when it is one.
    let mut taken: Vec<&[String]> = leaves.iter().map(|v| &v[..=fit_level]).collect();
    taken.dedup();
    let chosen = match taken.as_slice() {
        [one] => levels[..=fit_level]
            .iter()
            .zip(one.iter())
            .map(|(level, domain)| DomainRef {
                level: level.clone(),
                domain: domain.clone(),
            })
            .collect(),
        _ => Vec::new(),
    };
    if taken.len() > 1 {
        warnings.push(format!(
            "no single {} domain holds the pod set: Kueue spreads it over {}",
            levels[fit_level],
            taken
                .iter()
                .map(|d| d[fit_level].as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    if let Err(no_fit) = &last.result
        && let Some(closest) = plan.rejected.iter().rev().max_by_key(|r| r.fit)
    {
        plan.rejections.push(Rejection {
            group: "topology".into(),
            reason: format!(
                "{}; the closest, {} ({}), fits {} of {} {unit}",
                no_fit.reason, closest.domain, closest.level, closest.fit, closest.needed
            ),
        });
    }
    plan.group_nodes = leaves
        .iter()
        .flat_map(|values| last.nodes.get(*values).into_iter().flatten().copied())
        .collect();
    let mode = match request.mode {
        LevelMode::Required => Mode::Required,
        LevelMode::Preferred => Mode::Preferred,
        LevelMode::Unconstrained => Mode::Unconstrained,
    };
    let shown = shown_levels(levels);
    let shared = Request {
        system: SYSTEM,
        mode,
        constraint: constraint_text(&gang_template(gang), levels, &request),
        levels: shown.to_vec(),
        node_domains: state
            .nodes
            .iter()
            .map(|node| {
                shown
                    .iter()
                    .map(|key| node.metadata.labels.get(key).map(ToString::to_string))
                    .collect()
            })
            .collect(),
        rounds: Vec::new(),
        warnings: Vec::new(),
        pinned: None,
    };
    super::with_domains(&mut plan, &shared, state);
    plan.topology = Some(TopologyPlan {
        system: SYSTEM,
        mode,
        constraint: shared.constraint,
        constraining_level: levels[fit_level].clone(),
        chosen,
    });
    match &last.result {
        Ok(_) => warnings.insert(
            0,
            format!(
                "Kueue admits it on ResourceFlavor {} (Topology {})",
                last.candidate.flavor.metadata.name, topology.metadata.name
            ),
        ),
        // Kueue assigns the topology with the flavor: a pod set the topology cannot hold is
        // not admitted, whatever the quota says.
        Err(no_fit) => {
            if let Some(admission) = plan.admission.as_mut() {
                let pod_set = admission.pod_sets.first().map_or("main", |ps| &ps.name);
                admission.message = format!(
                    "couldn't assign flavors to pod set {pod_set}: {}",
                    no_fit.reason
                );
                admission.admitted = false;
                admission.reason = "Pending".into();
                admission.pod_sets.clear();
                admission.borrowing = false;
                admission.victims.clear();
            }
        }
    }
    plan.warnings.extend(warnings);
    plan
}

/// How the plan names this system (`groups[].topology.system`).
pub const SYSTEM: &str = "kueue-tas";

/// The Topology's levels as the plan shows them: the hostname level is the plan's own last
/// level, so it is left out here.
fn shown_levels(levels: &[String]) -> &[String] {
    match levels.split_last() {
        Some((last, rest)) if last == HOSTNAME_LABEL => rest,
        _ => levels,
    }
}

fn gang_template(gang: &Gang) -> Pod {
    gang.members
        .first()
        .map(|m| m.pod.clone())
        .unwrap_or_default()
}

/// The request as the pod template wrote it: `required topology.example.com/rack`, with the
/// slice pair when set; `implied lowest level <key>` without annotations.
fn constraint_text(pod: &Pod, levels: &[String], request: &PodSetRequest) -> String {
    let annotations = &pod.metadata.annotations;
    let level = &levels[request.level];
    let mut text = if asks_topology(pod) {
        format!("{} {level}", request.mode.as_str())
    } else {
        format!("implied, lowest level {level}")
    };
    if let Some(slice) = annotations.get(kueue::SLICE_REQUIRED_TOPOLOGY) {
        text.push_str(&format!(", slices of {} per {slice}", request.slice_size));
    }
    text
}
