//! Godel job-level affinity (`scheduling.godel.kubewharf.io/v1alpha1` PodGroup), as the shipped
//! `JobLevelAffinity` unit plugin does it:
//!
//! 1. nodes are narrowed by the PodGroup's `nodeSelector`;
//! 2. they are divided into domains by the required topology keys (all keys together), then
//!    each domain again by every preferred key in turn (largest scope first);
//! 3. at every level, domains whose summed allocatable cannot hold the unit's minimum request
//!    are cut off (with everything below them), the rest sorted by `sortRules`;
//! 4. every remaining domain becomes a node group, deepest level first: the unit is tried in a
//!    single tor, then a single miniPod, then a bigPod. A group's node circles are its leaf
//!    domains in sorted order; pods fill a circle and spill to the next;
//! 5. the first group where at least `minMember` pods fit (running ones counted) wins.
//!
//! Pods of the unit that already run pin the required domain (and a preferred one when they
//! all share it), and then no sorting or cutting off happens, as upstream.

use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

use super::model::{Adapter, Gang, GangKind, GangObjects, JoinField, PlacementRule, System};
use super::outcome::{
    GangStatus, GroupPlan, PodOutcome, Rejection, compare_with_default, summarise_blocked,
};
use super::place::{Chooser, Quorum, WhileReachable, all_or_nothing};
use df_engine::resources::node_allocatable;
use df_engine::selector::node_selector_matches;
use df_engine::{Resources, Scheduler, pod_requests};
use df_model::fluid::HOSTNAME_LABEL;
use df_model::gang::{GODEL_API_VERSION, GODEL_POD_GROUP_LABEL, SortRule, TopologyTerm};
use df_model::{GodelPodGroup, Node, Pod, Quantity};

pub static KIND: GangKind = GangKind {
    id: "godel",
    kind: "PodGroup",
    api_versions: &[GODEL_API_VERSION],
    joining: "label `godel.bytedance.com/pod-group-name: <group>`",
    join_field: JoinField::Label(GODEL_POD_GROUP_LABEL),
    honoured_by: System::Godel,
};

/// Godel PodGroups: pods join by label; placed in node groups and circles.
pub struct Godel;

impl Adapter for Godel {
    fn kind(&self) -> &'static GangKind {
        &KIND
    }

    fn define(&self, objects: &GangObjects) -> Vec<Gang> {
        objects.godel.iter().map(|g| gang(g)).collect()
    }

    fn joins(&self, pod: &Pod) -> Option<String> {
        pod.metadata
            .labels
            .get(GODEL_POD_GROUP_LABEL)
            .map(ToString::to_string)
    }
}

/// A Godel PodGroup read into the gang model (members are gathered by the planner).
pub fn gang(group: &GodelPodGroup) -> Gang {
    let mut gang = Gang::new(
        &KIND,
        GODEL_API_VERSION,
        &group.metadata,
        i64::from(group.spec.min_member),
    );
    gang.topology = group
        .pod_group_affinity()
        .map(|a| a.required.clone())
        .unwrap_or_default();
    gang.rule = PlacementRule::Godel(Box::new(group.clone()));
    gang
}

/// The GPU resource Godel pre-checks and sorts by.
pub(crate) const GPU_RESOURCE: &str = "nvidia.com/gpu";

/// The three resources Godel pre-checks a topology domain against (its `preCheckResource`):
/// CPU in millicores, memory in bytes, GPUs in units.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Demand {
    pub milli_cpu: i64,
    pub memory: i64,
    pub gpu: i64,
}

impl Demand {
    pub(crate) fn from_resources(r: &Resources) -> Demand {
        Demand {
            milli_cpu: r.milli_cpu,
            memory: r.memory,
            gpu: r.scalar(GPU_RESOURCE),
        }
    }

    fn add(&mut self, other: &Demand) {
        self.milli_cpu = self.milli_cpu.saturating_add(other.milli_cpu);
        self.memory = self.memory.saturating_add(other.memory);
        self.gpu = self.gpu.saturating_add(other.gpu);
    }

    fn times(self, n: i64) -> Demand {
        Demand {
            milli_cpu: self.milli_cpu.saturating_mul(n),
            memory: self.memory.saturating_mul(n),
            gpu: self.gpu.saturating_mul(n),
        }
    }

    fn min_with(&mut self, other: &Demand) {
        self.milli_cpu = self.milli_cpu.min(other.milli_cpu);
        self.memory = self.memory.min(other.memory);
        self.gpu = self.gpu.min(other.gpu);
    }

    /// Godel's `greater`: more than `capacity` in any of the three resources.
    pub fn exceeds(&self, capacity: &Demand) -> bool {
        self.milli_cpu > capacity.milli_cpu
            || self.memory > capacity.memory
            || self.gpu > capacity.gpu
    }
}

impl fmt::Display for Demand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const GI: i64 = 1 << 30;
        const MI: i64 = 1 << 20;
        let memory = if self.memory % GI == 0 {
            format!("{}Gi", self.memory / GI)
        } else if self.memory % MI == 0 {
            format!("{}Mi", self.memory / MI)
        } else {
            self.memory.to_string()
        };
        write!(
            f,
            "cpu {}, memory {memory}, {GPU_RESOURCE} {}",
            Quantity::from_milli(self.milli_cpu),
            self.gpu
        )
    }
}

/// What a node offers and what is already requested on it, in Godel's three resources.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct NodeCapacity {
    pub allocatable: Demand,
    pub requested: Demand,
}

/// The unit's minimum request, which every candidate domain must be able to hold. Once the
/// unit has ever been scheduled (pods of it run) that is the smallest single pod; otherwise all
/// pods when `minMember` covers them all, else `minMember` copies of the first pod (upstream
/// assumes the pods of a unit are alike). A resource a pod does not request counts as zero.
pub(crate) fn unit_min_request(pods: &[Demand], min_member: usize, ever_scheduled: bool) -> Demand {
    let Some(first) = pods.first() else {
        return Demand::default();
    };
    if ever_scheduled {
        let mut min = *first;
        for pod in pods {
            min.min_with(pod);
        }
        return min;
    }
    if min_member == pods.len() {
        let mut sum = Demand::default();
        for pod in pods {
            sum.add(pod);
        }
        return sum;
    }
    first.times(i64::try_from(min_member).unwrap_or(i64::MAX))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortResource {
    Cpu,
    Memory,
    Gpu,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortDimension {
    Capacity,
    Available,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    pub resource: SortResource,
    pub dimension: SortDimension,
    pub descending: bool,
}

/// Godel's default when a PodGroup names no rule.
pub(crate) const DEFAULT_RULE: Rule = Rule {
    resource: SortResource::Cpu,
    dimension: SortDimension::Capacity,
    descending: false,
};

/// The PodGroup's sort rules, or why one is invalid. Upstream logs an invalid rule and then
/// neither sorts nor cuts off; the planner does the same and reports the message.
pub(crate) fn parse_sort_rules(rules: &[SortRule]) -> Result<Vec<Rule>, String> {
    if rules.is_empty() {
        return Ok(vec![DEFAULT_RULE]);
    }
    rules
        .iter()
        .enumerate()
        .map(|(i, rule)| {
            let resource = match rule.resource.as_str() {
                "CPU" => SortResource::Cpu,
                "Memory" => SortResource::Memory,
                "GPU" => SortResource::Gpu,
                other => {
                    return Err(format!(
                        "sortRules[{i}].resource {other:?} is not one of CPU, Memory, GPU"
                    ));
                }
            };
            let dimension = match rule.dimension.as_str() {
                "" | "Capacity" => SortDimension::Capacity,
                "Available" => SortDimension::Available,
                other => {
                    return Err(format!(
                        "sortRules[{i}].dimension {other:?} is not one of Capacity, Available"
                    ));
                }
            };
            let descending = match rule.order.as_str() {
                "Ascending" => false,
                "Descending" => true,
                other => {
                    return Err(format!(
                        "sortRules[{i}].order {other:?} is not one of Ascending, Descending"
                    ));
                }
            };
            Ok(Rule {
                resource,
                dimension,
                descending,
            })
        })
        .collect()
}

/// A set of nodes sharing topology values, named like `bigPod=a` (required keys together:
/// `bigPod=a,zone=z1`, keys sorted).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Circle {
    pub label: String,
    pub nodes: Vec<usize>,
}

/// A candidate domain for the whole unit: either all of its pods that fit go here or none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct NodeGroup {
    pub label: String,
    pub circles: Vec<Circle>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Grouping {
    /// In the order the unit tries them.
    pub groups: Vec<NodeGroup>,
    /// Domains cut off for capacity, with the reason (only the top of a cut-off subtree).
    pub cut_off: Vec<(String, String)>,
    /// Why sorting and cutting off were skipped, when they were.
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GroupingError {
    /// Upstream's wording when running pods of the unit sit in different required domains.
    #[error("assigned pods are in different topologies: {0}, {1}")]
    DifferentTopologies(String, String),
    /// Upstream's wording when a node lacks a topology key.
    #[error("topology key {0} not exist")]
    MissingKey(String),
}

/// The inputs of node grouping: nodes already narrowed by the PodGroup's nodeSelector.
pub(crate) struct GroupingInput<'a> {
    pub nodes: &'a [Node],
    pub capacity: &'a [NodeCapacity],
    pub candidates: &'a [usize],
    pub required: &'a [String],
    pub preferred: &'a [String],
    pub sort_rules: &'a [SortRule],
    pub min_request: Demand,
    /// Nodes where pods of the unit already run (indexes into `nodes`), sorted.
    pub assigned: &'a [usize],
}

struct Elem {
    label: String,
    nodes: Vec<usize>,
    cut_off: bool,
    children: Vec<usize>,
}

impl GroupingInput<'_> {
    /// The `key=value,...` label of a node for `keys`, or the first key it lacks.
    fn domain_of(&self, node: usize, keys: &[&str]) -> Result<String, String> {
        let labels = &self.nodes[node].metadata.labels;
        let mut sorted: Vec<&str> = keys.to_vec();
        sorted.sort_unstable();
        let mut parts = Vec::with_capacity(sorted.len());
        for key in sorted {
            match labels.get(key) {
                Some(value) => parts.push(format!("{key}={value}")),
                None => return Err(key.to_string()),
            }
        }
        Ok(parts.join(","))
    }

    /// Split `nodes` by their values of `keys`; nodes lacking a key belong to no domain.
    fn split(&self, nodes: &[usize], keys: &[&str]) -> Vec<Elem> {
        let mut domains: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for &node in nodes {
            if let Ok(label) = self.domain_of(node, keys) {
                domains.entry(label).or_default().push(node);
            }
        }
        domains
            .into_iter()
            .map(|(label, nodes)| Elem {
                label,
                nodes,
                cut_off: false,
                children: Vec::new(),
            })
            .collect()
    }

    /// The one domain all assigned nodes share for `keys`, if they share one.
    fn assigned_domain(&self, keys: &[&str]) -> Result<Option<String>, GroupingError> {
        let mut shared: Option<String> = None;
        for &node in self.assigned {
            let label = self
                .domain_of(node, keys)
                .map_err(GroupingError::MissingKey)?;
            match &shared {
                None => shared = Some(label),
                Some(first) if *first != label => {
                    return Err(GroupingError::DifferentTopologies(label, first.clone()));
                }
                Some(_) => {}
            }
        }
        Ok(shared)
    }

    fn totals(&self, nodes: &[usize]) -> (Demand, Demand) {
        let mut allocatable = Demand::default();
        let mut requested = Demand::default();
        for &node in nodes {
            allocatable.add(&self.capacity[node].allocatable);
            requested.add(&self.capacity[node].requested);
        }
        (allocatable, requested)
    }

    /// Mark domains that cannot hold the unit as cut off, then stable-sort by the rules.
    /// Domains arrive sorted by label, so equal keys keep a deterministic order.
    fn sort_and_mark(
        &self,
        elems: &mut [Elem],
        rules: &[Rule],
        parent_cut_off: bool,
        cut_off: &mut Vec<(String, String)>,
    ) {
        let totals: BTreeMap<String, (Demand, Demand)> = elems
            .iter()
            .map(|e| (e.label.clone(), self.totals(&e.nodes)))
            .collect();
        for elem in elems.iter_mut() {
            let (allocatable, _) = totals[&elem.label];
            if parent_cut_off {
                elem.cut_off = true;
            } else if self.min_request.exceeds(&allocatable) {
                elem.cut_off = true;
                cut_off.push((
                    elem.label.clone(),
                    format!(
                        "summed allocatable ({allocatable}) cannot hold the unit's minimum request ({})",
                        self.min_request
                    ),
                ));
            }
        }
        let key = |label: &str, rule: &Rule| -> i64 {
            let (allocatable, requested) = totals[label];
            let pick = |d: &Demand| match rule.resource {
                SortResource::Cpu => d.milli_cpu,
                SortResource::Memory => d.memory,
                SortResource::Gpu => d.gpu,
            };
            match rule.dimension {
                SortDimension::Capacity => pick(&allocatable),
                SortDimension::Available => (pick(&allocatable) - pick(&requested)).max(0),
            }
        };
        elems.sort_by(|a, b| {
            for rule in rules {
                let (x, y) = (key(&a.label, rule), key(&b.label, rule));
                if x != y {
                    return if rule.descending {
                        y.cmp(&x)
                    } else {
                        x.cmp(&y)
                    };
                }
            }
            std::cmp::Ordering::Equal
        });
    }
}

/// Divide the candidate nodes into the node groups the unit tries, in order.
pub(crate) fn node_groups(input: &GroupingInput) -> Result<Grouping, GroupingError> {
    let mut grouping = Grouping::default();
    let rules = match parse_sort_rules(input.sort_rules) {
        Ok(rules) => Some(rules),
        Err(message) => {
            grouping.warnings.push(format!(
                "{message}; like Godel, node groups are neither sorted nor cut off"
            ));
            None
        }
    };
    let has_assigned = !input.assigned.is_empty();
    let mut elems: Vec<Elem> = Vec::new();
    let mut levels: Vec<Vec<usize>> = Vec::new();

    let required: Vec<&str> = input.required.iter().map(String::as_str).collect();
    let mut top = if required.is_empty() {
        vec![Elem {
            label: "all nodes".to_string(),
            nodes: input.candidates.to_vec(),
            cut_off: false,
            children: Vec::new(),
        }]
    } else if has_assigned {
        let domain = input.assigned_domain(&required)?;
        input
            .split(input.candidates, &required)
            .into_iter()
            .filter(|e| Some(&e.label) == domain.as_ref())
            .collect()
    } else {
        let mut top = input.split(input.candidates, &required);
        if let Some(rules) = &rules {
            input.sort_and_mark(&mut top, rules, false, &mut grouping.cut_off);
        }
        top
    };
    levels.push((0..top.len()).collect());
    elems.append(&mut top);

    for key in input.preferred {
        let keys = [key.as_str()];
        // Running pods spread over several preferred domains leave the level undivided.
        let pinned = if has_assigned {
            match input.assigned_domain(&keys) {
                Ok(domain) => Some(domain),
                Err(_) => break,
            }
        } else {
            None
        };
        let parents = levels.last().cloned().unwrap_or_default();
        let mut level = Vec::new();
        for parent in parents {
            let mut children = input.split(&elems[parent].nodes, &keys);
            match &pinned {
                Some(domain) => children.retain(|e| Some(&e.label) == domain.as_ref()),
                None => {
                    if let Some(rules) = &rules {
                        let parent_cut_off = elems[parent].cut_off;
                        input.sort_and_mark(
                            &mut children,
                            rules,
                            parent_cut_off,
                            &mut grouping.cut_off,
                        );
                    }
                }
            }
            for child in children {
                let id = elems.len();
                elems[parent].children.push(id);
                level.push(id);
                elems.push(child);
            }
        }
        if level.is_empty() {
            break;
        }
        levels.push(level);
    }

    // Leaf circles of each domain, computed bottom-up; a domain whose children miss some of
    // its nodes (they lack the finer key) stays one circle, as upstream.
    let mut circles: Vec<Vec<usize>> = vec![Vec::new(); elems.len()];
    for level in levels.iter().rev() {
        for &id in level {
            let elem = &elems[id];
            let covered: usize = elem.children.iter().map(|&c| elems[c].nodes.len()).sum();
            circles[id] = if elem.children.is_empty() || covered < elem.nodes.len() {
                vec![id]
            } else {
                elem.children
                    .iter()
                    .flat_map(|&c| circles[c].clone())
                    .collect()
            };
            if !elem.cut_off {
                grouping.groups.push(NodeGroup {
                    label: elem.label.clone(),
                    circles: circles[id]
                        .iter()
                        .map(|&c| Circle {
                            label: elems[c].label.clone(),
                            nodes: elems[c].nodes.clone(),
                        })
                        .collect(),
                });
            }
        }
    }
    Ok(grouping)
}

/// Plan a Godel PodGroup: the gang's members are the unit's pending pods in planning order,
/// its running pods the unit's pods already bound. Pods placed earlier (of this gang and of
/// everything planned before it) count for the resources, affinity, anti-affinity and spread
/// of later ones: they are assumed into `scheduler`, and stay there when the unit is placed.
pub fn plan_pod_group(
    scheduler: &mut Scheduler,
    gang: &Gang,
    group: &GodelPodGroup,
    compare: bool,
) -> Result<GroupPlan, GroupingError> {
    let state = scheduler.state();
    let before = compare.then(|| scheduler.clone());
    let pods: Vec<Pod> = gang.members.iter().map(|m| m.pod.clone()).collect();
    let pods = pods.as_slice();
    let running: Vec<&Pod> = gang.running.iter().collect();
    let affinity = group.pod_group_affinity().cloned().unwrap_or_default();
    let min_member = usize::try_from(group.spec.min_member).unwrap_or(0);
    let mut warnings = Vec::new();
    let candidates: Vec<usize> = match &affinity.node_selector {
        None => (0..state.nodes.len()).collect(),
        Some(selector) => {
            let mut problems = std::collections::BTreeSet::new();
            let matched = (0..state.nodes.len())
                .filter(|&i| {
                    let node = &state.nodes[i];
                    let (ok, errors) =
                        node_selector_matches(selector, &node.metadata.name, &node.metadata.labels);
                    problems.extend(
                        errors
                            .into_iter()
                            .map(|e| format!("{}: {}", e.path, e.message)),
                    );
                    ok
                })
                .collect();
            warnings.extend(
                problems
                    .into_iter()
                    .map(|p| format!("spec.affinity.podGroupAffinity.nodeSelector.{p}")),
            );
            matched
        }
    };
    // What is requested on each node includes every pod the plan assumed before this unit.
    let capacity: Vec<NodeCapacity> = (0..state.nodes.len())
        .map(|i| {
            let allocatable = node_allocatable(&state.nodes[i]);
            let mut requested = allocatable.clone();
            if let Some(free) = scheduler.free(i) {
                requested.sub(&free);
            }
            NodeCapacity {
                allocatable: Demand::from_resources(&allocatable),
                requested: Demand::from_resources(&requested),
            }
        })
        .collect();
    let demands: Vec<Demand> = pods
        .iter()
        .map(|p| Demand::from_resources(&pod_requests(&p.spec, false)))
        .collect();
    let mut assigned: Vec<usize> = running
        .iter()
        .filter_map(|p| state.node_index(&p.spec.node_name))
        .collect();
    assigned.sort_unstable();
    assigned.dedup();
    let input = GroupingInput {
        nodes: &state.nodes,
        capacity: &capacity,
        candidates: &candidates,
        required: &keys(&affinity.required),
        preferred: &keys(&affinity.preferred),
        sort_rules: &affinity.sort_rules,
        min_request: unit_min_request(&demands, min_member, !running.is_empty()),
        assigned: &assigned,
    };
    let grouping = node_groups(&input)?;
    warnings.extend(grouping.warnings.iter().cloned());

    let mut rejections: Vec<Rejection> = grouping
        .cut_off
        .iter()
        .map(|(group, reason)| Rejection {
            group: group.clone(),
            reason: reason.clone(),
        })
        .collect();
    let mut chosen: Option<(&NodeGroup, Vec<Result<String, String>>)> = None;
    // The most pods (running ones counted) any node group could take, for the answer "how
    // many fit" when none takes the unit.
    let mut best_fit = running.len();
    // Nodes the first pod cannot use now (taints, node affinity, full) stay unusable for its
    // alike siblings, unless the pods need each other (required pod affinity).
    let mut usable = vec![true; state.nodes.len()];
    if let Some(first) = pods.first() {
        let needs_siblings = first
            .spec
            .affinity
            .as_ref()
            .and_then(|a| a.pod_affinity.as_ref())
            .is_some_and(|a| !a.required.is_empty());
        if !needs_siblings {
            for verdict in scheduler.decide_within(first, &candidates).nodes {
                usable[verdict.index] = verdict.feasible;
            }
        }
    }
    let floor = FreeFloor::new(
        scheduler,
        &capacity,
        &demands,
        &usable,
        min_member.saturating_sub(running.len()),
    );
    for group in &grouping.groups {
        if let Some(reason) = floor.shortfall(group) {
            rejections.push(Rejection {
                group: group.label.clone(),
                reason,
            });
            continue;
        }
        match fill_group(scheduler, group, pods, running.len(), min_member) {
            Ok(outcome) => {
                chosen = Some((group, outcome));
                break;
            }
            Err((fit, reason)) => {
                best_fit = best_fit.max(fit);
                rejections.push(Rejection {
                    group: group.label.clone(),
                    reason,
                });
            }
        }
    }
    if grouping.groups.is_empty() {
        rejections.push(Rejection {
            group: "-".into(),
            reason: format!(
                "no node group: {} of {} nodes match the nodeSelector and none is left after \
                 grouping by the topology keys and cutting off",
                candidates.len(),
                state.nodes.len()
            ),
        });
    }
    let mut levels: Vec<String> = input.required.to_vec();
    levels.extend(input.preferred.iter().cloned());
    if levels.is_empty() {
        levels.push(HOSTNAME_LABEL.to_string());
    }
    let (node_group, results) = match chosen {
        Some((group, results)) => (Some(group), results),
        None => (
            None,
            vec![Err("the unit fits no node group".to_string()); pods.len()],
        ),
    };
    let outcomes: Vec<PodOutcome> = running
        .iter()
        .map(|pod| PodOutcome::running(pod))
        .chain(
            gang.members
                .iter()
                .zip(results)
                .map(|(member, result)| PodOutcome {
                    pod: &member.pod,
                    task: None,
                    result,
                    running: false,
                    source: Some(member.source.clone()),
                }),
        )
        .collect();
    let mut plan = GroupPlan::assemble(gang, state, levels, &outcomes, min_member);
    plan.node_group = node_group.map(|g| g.label.clone());
    plan.group_nodes = node_group
        .map(|g| {
            g.circles
                .iter()
                .flat_map(|c| c.nodes.iter().copied())
                .collect()
        })
        .unwrap_or_default();
    if plan.status == GangStatus::Unschedulable {
        plan.fit = best_fit;
        plan.blocked = summarise_blocked(plan.pods.iter().filter_map(|p| p.reason.as_deref()));
    }
    plan.rejections = rejections;
    plan.warnings = warnings;
    if let Some(before) = before {
        plan.comparison = Some(compare_with_default(&before, pods, &running, &plan));
    }
    Ok(plan)
}

/// A necessary condition checked before placing pods one by one: counting on each usable node
/// how many pods of the smallest request (per resource) its free resources and pod slots could
/// take, the group must reach the pods still needed for `minMember`. Godel does not check
/// this (it cuts off by allocatable only and then fails pod by pod); the outcome is the same,
/// found without thousands of placements.
struct FreeFloor {
    /// Per node: how many of the smallest pods would fit.
    fits: Vec<i64>,
    needed: i64,
}

impl FreeFloor {
    fn new(
        scheduler: &Scheduler,
        capacity: &[NodeCapacity],
        demands: &[Demand],
        usable: &[bool],
        k: usize,
    ) -> Self {
        let mut smallest = demands.first().copied().unwrap_or_default();
        for d in demands {
            smallest.min_with(d);
        }
        let fits = (0..capacity.len())
            .map(|i| {
                if !usable[i] {
                    return 0;
                }
                let c = &capacity[i];
                let slots = scheduler.free(i).map_or(0, |free| free.pods);
                [
                    (
                        c.allocatable.milli_cpu - c.requested.milli_cpu,
                        smallest.milli_cpu,
                    ),
                    (c.allocatable.memory - c.requested.memory, smallest.memory),
                    (c.allocatable.gpu - c.requested.gpu, smallest.gpu),
                ]
                .iter()
                .filter(|(_, need)| *need > 0)
                .map(|(free, need)| free / need)
                .fold(slots, i64::min)
                .max(0)
            })
            .collect();
        FreeFloor {
            fits,
            needed: i64::try_from(k).unwrap_or(i64::MAX),
        }
    }

    fn shortfall(&self, group: &NodeGroup) -> Option<String> {
        let fit: i64 = group
            .circles
            .iter()
            .flat_map(|c| &c.nodes)
            .map(|&n| self.fits[n])
            .sum();
        (fit < self.needed).then(|| {
            format!(
                "free resources and pod slots fit at most {fit} of the {} pods still needed",
                self.needed
            )
        })
    }
}

fn keys(terms: &[TopologyTerm]) -> Vec<String> {
    terms.iter().map(|t| t.topology_key.clone()).collect()
}

/// Godel's node circles: each pod takes the first circle of the group with a feasible node.
struct Circles<'g>(&'g NodeGroup);

impl Chooser for Circles<'_> {
    fn choose(&mut self, scheduler: &Scheduler, _: usize, pod: &Pod) -> Result<String, String> {
        let mut reason = String::new();
        for circle in &self.0.circles {
            let decision = scheduler.decide_within(pod, &circle.nodes);
            match decision.selected {
                Some(node) => return Ok(node),
                None => reason = decision.summary.unwrap_or_default(),
            }
        }
        Err(reason)
    }
}

/// Place the unit in one node group through the all-or-nothing path. Keeps the placements
/// when at least `min_member` pods (running ones counted) fit; otherwise they are undone and
/// the error says why.
fn fill_group(
    scheduler: &mut Scheduler,
    group: &NodeGroup,
    pods: &[Pod],
    running: usize,
    min_member: usize,
) -> Result<Vec<Result<String, String>>, (usize, String)> {
    let refs: Vec<&Pod> = pods.iter().collect();
    let quorum = Quorum {
        total: min_member.saturating_sub(running),
        ..Quorum::default()
    };
    let tasks = vec![None; pods.len()];
    let attempt = all_or_nothing(
        scheduler,
        &refs,
        &tasks,
        &quorum,
        &mut WhileReachable {
            total: quorum.total,
        },
        &mut Circles(group),
    );
    if attempt.ready {
        return Ok(attempt
            .outcomes
            .into_iter()
            .map(|o| o.unwrap_or_else(|| Err("not tried".into())))
            .collect());
    }
    let first_failure = pods
        .iter()
        .zip(&attempt.outcomes)
        .find_map(|(pod, o)| match o {
            Some(Err(reason)) => Some(format!("pod {}: {reason}", pod.metadata.name)),
            _ => None,
        })
        .unwrap_or_default();
    let fit = running + attempt.fit;
    Err((
        fit,
        format!(
            "only {fit} of minMember {min_member} pods fit ({running} running); {first_failure}"
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use df_model::{Labels, ObjectMeta};

    fn demand(cpu: i64, mem_gi: i64, gpu: i64) -> Demand {
        Demand {
            milli_cpu: cpu * 1000,
            memory: mem_gi << 30,
            gpu,
        }
    }

    #[test]
    fn min_request_follows_godel() {
        let a = demand(2, 4, 1);
        let b = demand(1, 8, 0);
        let cases: &[(&str, Vec<Demand>, usize, bool, Demand)] = &[
            ("no pods", vec![], 3, false, Demand::default()),
            ("min == all sums", vec![a, b], 2, false, demand(3, 12, 1)),
            (
                "min < all multiplies the first",
                vec![a, b, b],
                2,
                false,
                demand(4, 8, 2),
            ),
            (
                "ever scheduled takes the smallest",
                vec![a, b],
                2,
                true,
                demand(1, 4, 0),
            ),
        ];
        for (name, pods, min, ever, want) in cases {
            assert_eq!(unit_min_request(pods, *min, *ever), *want, "{name}");
        }
    }

    #[test]
    fn sort_rules_parse_with_defaults_and_reject_unknowns() {
        let rule = |r: &str, d: &str, o: &str| SortRule {
            resource: r.into(),
            dimension: d.into(),
            order: o.into(),
        };
        assert_eq!(parse_sort_rules(&[]), Ok(vec![DEFAULT_RULE]));
        assert_eq!(
            parse_sort_rules(&[rule("GPU", "", "Descending")]),
            Ok(vec![Rule {
                resource: SortResource::Gpu,
                dimension: SortDimension::Capacity,
                descending: true
            }])
        );
        assert_eq!(
            parse_sort_rules(&[rule("CPU", "Available", "Up")]),
            Err("sortRules[0].order \"Up\" is not one of Ascending, Descending".into())
        );
        assert_eq!(
            parse_sort_rules(&[rule("Disk", "", "Ascending")]),
            Err("sortRules[0].resource \"Disk\" is not one of CPU, Memory, GPU".into())
        );
    }

    /// bigPod a: miniPods a1 (tors a1-t1, a1-t2), a2 (tor a2-t1); bigPod b: miniPod b1 (tor
    /// b1-t1). Two nodes per tor except a2-t1 (one); n-b* nodes are twice as big.
    fn cluster() -> (Vec<Node>, Vec<NodeCapacity>) {
        let layout = [
            ("n-a1-t1-0", "a", "a1", "a1-t1"),
            ("n-a1-t1-1", "a", "a1", "a1-t1"),
            ("n-a1-t2-0", "a", "a1", "a1-t2"),
            ("n-a1-t2-1", "a", "a1", "a1-t2"),
            ("n-a2-t1-0", "a", "a2", "a2-t1"),
            ("n-b1-t1-0", "b", "b1", "b1-t1"),
            ("n-b1-t1-1", "b", "b1", "b1-t1"),
            ("n-bare", "", "", ""),
        ];
        let nodes = layout
            .iter()
            .map(|(name, big, mini, tor)| {
                let mut labels = Labels::new();
                for (k, v) in [("bigPod", big), ("miniPod", mini), ("tor", tor)] {
                    if !v.is_empty() {
                        labels.insert(k.into(), (*v).into());
                    }
                }
                Node {
                    metadata: ObjectMeta {
                        name: name.to_string(),
                        labels,
                        ..Default::default()
                    },
                    ..Default::default()
                }
            })
            .collect();
        let capacity = layout
            .iter()
            .map(|(name, ..)| {
                let scale = if name.starts_with("n-b") { 2 } else { 1 };
                NodeCapacity {
                    allocatable: demand(8 * scale, 32 * scale, 0),
                    requested: demand(2, 4, 0),
                }
            })
            .collect();
        (nodes, capacity)
    }

    /// Groups as `label: circle|circle` with circles as `label[n]` (n = node count).
    fn render(grouping: &Grouping) -> Vec<String> {
        grouping
            .groups
            .iter()
            .map(|g| {
                let circles: Vec<String> = g
                    .circles
                    .iter()
                    .map(|c| format!("{}[{}]", c.label, c.nodes.len()))
                    .collect();
                format!("{}: {}", g.label, circles.join("|"))
            })
            .collect()
    }

    #[test]
    fn groups_come_from_the_topology_tree_deepest_first() {
        let (nodes, capacity) = cluster();
        let all: Vec<usize> = (0..nodes.len()).collect();
        let keys = |ks: &[&str]| ks.iter().map(|k| k.to_string()).collect::<Vec<_>>();
        let rule = |r: &str, d: &str, o: &str| SortRule {
            resource: r.into(),
            dimension: d.into(),
            order: o.into(),
        };
        struct Case {
            name: &'static str,
            required: Vec<String>,
            preferred: Vec<String>,
            rules: Vec<SortRule>,
            min_request: Demand,
            assigned: Vec<usize>,
            want: Vec<&'static str>,
            want_cut: Vec<&'static str>,
        }
        let cases = vec![
            Case {
                name: "no terms: one group of all nodes",
                required: vec![],
                preferred: vec![],
                rules: vec![],
                min_request: demand(1, 1, 0),
                assigned: vec![],
                want: vec!["all nodes: all nodes[8]"],
                want_cut: vec![],
            },
            Case {
                name: "required bigPod, preferred miniPod and tor, default CPU capacity ascending",
                required: keys(&["bigPod"]),
                preferred: keys(&["miniPod", "tor"]),
                rules: vec![],
                min_request: demand(4, 4, 0),
                assigned: vec![],
                want: vec![
                    "tor=b1-t1: tor=b1-t1[2]",
                    "tor=a2-t1: tor=a2-t1[1]",
                    "tor=a1-t1: tor=a1-t1[2]",
                    "tor=a1-t2: tor=a1-t2[2]",
                    "miniPod=b1: tor=b1-t1[2]",
                    "miniPod=a2: tor=a2-t1[1]",
                    "miniPod=a1: tor=a1-t1[2]|tor=a1-t2[2]",
                    "bigPod=b: tor=b1-t1[2]",
                    "bigPod=a: tor=a2-t1[1]|tor=a1-t1[2]|tor=a1-t2[2]",
                ],
                want_cut: vec![],
            },
            Case {
                name: "a 20-cpu unit cuts off a2 and the a1 tors; b (32 cpu) sorts before a (40)",
                required: keys(&["bigPod"]),
                preferred: keys(&["miniPod", "tor"]),
                rules: vec![],
                min_request: demand(20, 4, 0),
                assigned: vec![],
                want: vec![
                    "tor=b1-t1: tor=b1-t1[2]",
                    "miniPod=b1: tor=b1-t1[2]",
                    "miniPod=a1: tor=a1-t1[2]|tor=a1-t2[2]",
                    "bigPod=b: tor=b1-t1[2]",
                    "bigPod=a: tor=a2-t1[1]|tor=a1-t1[2]|tor=a1-t2[2]",
                ],
                want_cut: vec!["miniPod=a2", "tor=a1-t1", "tor=a1-t2"],
            },
            Case {
                name: "a unit bigger than bigPod b cuts off its whole subtree",
                required: keys(&["bigPod"]),
                preferred: keys(&["miniPod"]),
                rules: vec![],
                min_request: demand(33, 4, 0),
                assigned: vec![],
                want: vec!["bigPod=a: miniPod=a2[1]|miniPod=a1[4]"],
                want_cut: vec!["bigPod=b", "miniPod=a1", "miniPod=a2"],
            },
            Case {
                name: "descending memory: a has 160Gi, b 128Gi",
                required: keys(&["bigPod"]),
                preferred: vec![],
                rules: vec![rule("Memory", "Capacity", "Descending")],
                min_request: demand(1, 1, 0),
                assigned: vec![],
                want: vec!["bigPod=a: bigPod=a[5]", "bigPod=b: bigPod=b[2]"],
                want_cut: vec![],
            },
            Case {
                name: "available cpu ascending: a has 5*6, b 2*14",
                required: keys(&["bigPod"]),
                preferred: vec![],
                rules: vec![rule("CPU", "Available", "Ascending")],
                min_request: demand(1, 1, 0),
                assigned: vec![],
                want: vec!["bigPod=b: bigPod=b[2]", "bigPod=a: bigPod=a[5]"],
                want_cut: vec![],
            },
            Case {
                name: "an invalid rule neither sorts nor cuts off",
                required: keys(&["bigPod"]),
                preferred: vec![],
                rules: vec![rule("Disk", "", "Ascending")],
                min_request: demand(1000, 1, 0),
                assigned: vec![],
                want: vec!["bigPod=a: bigPod=a[5]", "bigPod=b: bigPod=b[2]"],
                want_cut: vec![],
            },
            Case {
                name: "running pods pin the required and preferred domains",
                required: keys(&["bigPod"]),
                preferred: keys(&["miniPod", "tor"]),
                rules: vec![],
                min_request: demand(1000, 1, 0),
                assigned: vec![0, 2],
                want: vec!["miniPod=a1: miniPod=a1[4]", "bigPod=a: bigPod=a[5]"],
                want_cut: vec![],
            },
        ];
        for case in cases {
            let input = GroupingInput {
                nodes: &nodes,
                capacity: &capacity,
                candidates: &all,
                required: &case.required,
                preferred: &case.preferred,
                sort_rules: &case.rules,
                min_request: case.min_request,
                assigned: &case.assigned,
            };
            let grouping = node_groups(&input).unwrap();
            assert_eq!(render(&grouping), case.want, "{}", case.name);
            let cut: Vec<&str> = grouping.cut_off.iter().map(|(l, _)| l.as_str()).collect();
            assert_eq!(cut, case.want_cut, "{}", case.name);
        }
    }

    #[test]
    fn running_pods_in_different_required_domains_are_an_error() {
        let (nodes, capacity) = cluster();
        let all: Vec<usize> = (0..nodes.len()).collect();
        let required = vec!["bigPod".to_string()];
        let input = GroupingInput {
            nodes: &nodes,
            capacity: &capacity,
            candidates: &all,
            required: &required,
            preferred: &[],
            sort_rules: &[],
            min_request: Demand::default(),
            assigned: &[0, 5],
        };
        assert_eq!(
            node_groups(&input).unwrap_err().to_string(),
            "assigned pods are in different topologies: bigPod=b, bigPod=a"
        );
    }

    #[test]
    fn cut_off_reason_names_both_sides() {
        let (nodes, capacity) = cluster();
        let all: Vec<usize> = (0..nodes.len()).collect();
        let required = vec!["bigPod".to_string()];
        let input = GroupingInput {
            nodes: &nodes,
            capacity: &capacity,
            candidates: &all,
            required: &required,
            preferred: &[],
            sort_rules: &[],
            min_request: demand(33, 1, 0),
            assigned: &[],
        };
        let grouping = node_groups(&input).unwrap();
        assert_eq!(
            grouping.cut_off,
            [(
                "bigPod=b".to_string(),
                "summed allocatable (cpu 32, memory 128Gi, nvidia.com/gpu 0) cannot hold the unit's minimum request (cpu 33, memory 1Gi, nvidia.com/gpu 0)".to_string()
            )]
        );
    }
}
