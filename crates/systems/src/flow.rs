//! Batch placement as min-cost flow, after Firmament/Poseidon (seed 003, DESIGN 2.6): the
//! alternative to placing a batch one pod at a time.
//!
//! The network: source -> task equivalence class (supply = its pods) -> machine -> sink, plus
//! an "unscheduled" arc from every class to the sink. Pods of one class are interchangeable,
//! so the class carries their supply rather than one vertex per pod.
//!
//! - Task classes are keyed by everything the engine's filters read from a pod without
//!   looking at other pods of the batch: namespace and labels (existing pods' anti-affinity
//!   selects on them), requests, nodeSelector, node affinity, tolerations and nodeName. One
//!   representative per class is decided by the engine ([`Scheduler::decide`]); its feasible
//!   nodes get an arc, the rest none. That is how hard constraints (selectors, taints,
//!   resources, cordons) are expressed: by leaving arcs out, never by a second matcher.
//! - Class -> machine arcs carry the soft constraints: `1 + w * (100 - preferred)`, where
//!   `preferred` is the class's preferred node-affinity weight on that node normalised to
//!   0..100 as upstream's NodeAffinity score is, and `w` its profile weight. Their capacity is
//!   how many pods of the class the node's free resources hold.
//! - Machine -> sink arcs stand for the seed's machine equivalence classes: one unit per pod
//!   slot, each unit dearer than the last (a convex arc). The k-th new pod costs the node's
//!   utilisation percentage after it (profile fit resources and weights, an average pod of the
//!   batch per unit), so the cheapest flow spreads the batch as LeastAllocated would; with
//!   MostAllocated the cost falls with utilisation instead and does not rise per unit.
//! - The unscheduled arc costs more than any whole placement of the batch can, so the
//!   solution first places as many pods as possible, then minimises cost; infeasible pods
//!   stay pending instead of making the problem infeasible. All costs are non-negative, which
//!   the solver needs for Dijkstra.
//!
//! Several resources do not fit one flow capacity: each class's arcs are sized for that class
//! alone, so two classes could together overfill a node. Rather than approximate the node with
//! one normalised number (which would reject placements that fit), every solution is checked
//! node by node against the exact free resources, the classes with the fewest feasible nodes
//! first; pods that do not fit are sent back, and a new round solves for just them on what is
//! left. Each round either keeps everything or
//! keeps at least one pod per overfilled node, so this ends; it rarely takes a second round.
//!
//! What the model cannot express: inter-pod (anti-)affinity and topology spread constraints
//! make one pod's cost or feasibility depend on where other pods of the batch land, and host
//! ports conflict between pods of one class. Such pods are placed after the flow, one at a
//! time by the engine (seeing the flow's placements), and each says so in its note.

mod mcmf;

use df_model::text::plural;
use std::collections::{BTreeMap, HashMap, VecDeque};

use serde::Serialize;

use df_engine::preemption::Victim;
use df_engine::profile::ScoringStrategyType;
use df_engine::{Profile, Resources, Scheduler, pod_requests, selector};
use df_model::Pod;
use df_state::ClusterState;
use mcmf::{ArcId, Network};

/// Utilisation and NodeAffinity scores are on upstream's 0..100 scale.
const MAX_SCORE: i64 = 100;
const SOURCE: usize = 0;
const SINK: usize = 1;

/// Which solver placed a pod.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Method {
    Flow,
    Greedy,
    /// Not scheduled: the pod names its node (`spec.nodeName`) and that node's kubelet admits
    /// or rejects it.
    Kubelet,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodPlacement {
    pub namespace: String,
    pub name: String,
    pub node: Option<String>,
    pub method: Method,
    /// Index into [`FlowPlan::classes`] for pods the flow handled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub class: Option<usize>,
    pub note: String,
    /// Pods a greedy fall-back pod would preempt on `node`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub preempts: Vec<Victim>,
}

/// A task equivalence class, as reported.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClassSummary {
    pub pods: usize,
    pub feasible_nodes: usize,
    /// `namespace/name` of the pod the engine decided for the class.
    pub representative: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FlowPlan {
    /// One per input pod, in input order.
    pub placements: Vec<PodPlacement>,
    pub classes: Vec<ClassSummary>,
    /// The objective of the final flow placement in the first round's network (placement
    /// costs plus the unscheduled penalty of pods the flow left pending).
    pub total_cost: i64,
    /// Flow rounds solved (more than one when a solution overfilled a node).
    pub rounds: usize,
}

impl FlowPlan {
    /// The node of every input pod, in input order.
    pub fn nodes(&self) -> Vec<Option<String>> {
        self.placements.iter().map(|p| p.node.clone()).collect()
    }

    pub fn placed(&self) -> usize {
        self.placements.iter().filter(|p| p.node.is_some()).count()
    }
}

struct TaskClass {
    /// Pod indexes, in input order.
    members: Vec<usize>,
    requests: Resources,
    /// Feasible nodes (state indexes, ascending) with the class -> machine arc cost.
    arcs: Vec<(usize, u32)>,
    /// Why no node fits, from the engine.
    summary: Option<String>,
}

/// The cost of the pods a node takes from the batch: the k-th (0-based) costs `first + step * k`.
#[derive(Debug, Clone, Copy, Default)]
struct SinkCost {
    first: u32,
    step: u32,
}

impl SinkCost {
    fn after(self, units: u32) -> SinkCost {
        SinkCost {
            first: self.first.saturating_add(self.step.saturating_mul(units)),
            step: self.step,
        }
    }

    fn total(self, units: i64) -> i64 {
        i64::from(self.first) * units + i64::from(self.step) * units * (units - 1) / 2
    }

    fn last_unit(self, units: u32) -> i64 {
        i64::from(self.first) + i64::from(self.step) * i64::from(units.saturating_sub(1))
    }
}

/// Place `pods` as one batch against `state`: min-cost flow for what it can express, the
/// engine pod by pod for the rest.
pub fn solve_batch(state: &ClusterState, profile: &Profile, pods: &[Pod]) -> FlowPlan {
    solve_batch_on(Scheduler::new(state, profile.clone()), pods)
}

/// [`solve_batch`] on top of a scheduler that already holds assumed pods (the gangs a plan
/// placed before its batch): the flow's capacities start from what they left free.
pub fn solve_batch_on(mut sched: Scheduler, pods: &[Pod]) -> FlowPlan {
    let state = sched.state();
    let profile = &sched.profile().clone();
    let mut placements: Vec<PodPlacement> = pods
        .iter()
        .map(|p| PodPlacement {
            namespace: p.metadata.namespace.clone(),
            name: p.metadata.name.clone(),
            node: None,
            method: Method::Flow,
            class: None,
            note: String::new(),
            preempts: Vec::new(),
        })
        .collect();
    let mut fallback = Vec::new();
    let mut keys: HashMap<String, usize> = HashMap::new();
    let mut classes: Vec<TaskClass> = Vec::new();
    for (i, pod) in pods.iter().enumerate() {
        if let Some(reason) = inexpressible(pod) {
            fallback.push((i, reason));
            continue;
        }
        let next = classes.len();
        let c = *keys.entry(class_key(pod)).or_insert(next);
        if c == next {
            classes.push(TaskClass {
                members: Vec::new(),
                requests: pod_requests(&pod.spec, false),
                arcs: Vec::new(),
                summary: None,
            });
        }
        classes[c].members.push(i);
    }
    decide_classes(&sched, profile, pods, &mut classes);

    let mut free: Vec<Resources> = (0..state.nodes.len())
        .map(|i| sched.free(i).unwrap_or_default())
        .collect();
    let flow_pods: Vec<&Pod> = classes
        .iter()
        .flat_map(|c| c.members.iter().map(|&i| &pods[i]))
        .collect();
    let sink_costs = sink_costs(&sched, profile, &flow_pods);
    let mut taken = vec![0u32; state.nodes.len()];
    let mut pending: Vec<VecDeque<usize>> = classes
        .iter()
        .map(|c| c.members.iter().copied().collect())
        .collect();
    let mut node_of: Vec<Option<usize>> = vec![None; pods.len()];
    let mut rounds = 0;
    let mut unscheduled_cost = None;
    while pending.iter().any(|p| !p.is_empty()) {
        rounds += 1;
        let round = solve_round(&classes, &pending, &free, &sink_costs, &taken);
        unscheduled_cost.get_or_insert(round.unscheduled_cost);
        let mut by_node: BTreeMap<usize, Vec<(usize, i64)>> = BTreeMap::new();
        for (c, flows) in round.flows.iter().enumerate() {
            for &(node, units) in flows {
                by_node.entry(node).or_default().push((c, units));
            }
        }
        let (mut kept, mut returned) = (0, 0);
        for (node, mut list) in by_node {
            // The most constrained classes keep their place; the others have more
            // alternatives in the next round.
            list.sort_by_key(|&(c, _)| (classes[c].arcs.len(), c));
            for (c, units) in list {
                for _ in 0..units {
                    if fit_count(&free[node], &classes[c].requests) == 0 {
                        returned += 1;
                        continue;
                    }
                    let Some(pod) = pending[c].pop_front() else {
                        break;
                    };
                    free[node].sub(&classes[c].requests);
                    free[node].pods -= 1;
                    taken[node] += 1;
                    node_of[pod] = Some(node);
                    kept += 1;
                }
            }
        }
        if returned == 0 || kept == 0 {
            break;
        }
    }

    let unscheduled_cost = i64::from(unscheduled_cost.unwrap_or(0));
    let class_summaries: Vec<ClassSummary> = classes
        .iter()
        .map(|class| {
            let pod = &pods[class.members[0]];
            ClassSummary {
                pods: class.members.len(),
                feasible_nodes: class.arcs.len(),
                representative: format!("{}/{}", pod.metadata.namespace, pod.metadata.name),
            }
        })
        .collect();
    let mut total_cost = 0;
    for (c, (class, summary)) in classes.iter().zip(&class_summaries).enumerate() {
        for &i in &class.members {
            let placement = &mut placements[i];
            placement.class = Some(c);
            match node_of[i] {
                Some(node) => {
                    placement.node = Some(state.nodes[node].metadata.name.clone());
                    placement.note = format!(
                        "min-cost flow: task class {c} ({}, {})",
                        plural(summary.pods, "pod"),
                        plural(summary.feasible_nodes, "feasible node")
                    );
                    total_cost += class
                        .arcs
                        .binary_search_by_key(&node, |a| a.0)
                        .map_or(0, |k| i64::from(class.arcs[k].1));
                }
                None => {
                    placement.note = match &class.summary {
                        Some(why) => format!("pending: {why}"),
                        None => format!(
                            "pending: the {} that fit task class {c} have no room left for it in this batch",
                            plural(summary.feasible_nodes, "node")
                        ),
                    };
                    total_cost += unscheduled_cost;
                }
            }
        }
    }
    for (node, &units) in taken.iter().enumerate() {
        total_cost += sink_costs[node].total(i64::from(units));
    }

    if !fallback.is_empty() {
        for (i, node) in node_of.iter().enumerate() {
            if let Some(node) = node {
                sched.assume(pods[i].clone(), &state.nodes[*node].metadata.name);
            }
        }
        let order: Vec<&Pod> = fallback.iter().map(|&(i, _)| &pods[i]).collect();
        let outcomes = place_greedily(&mut sched, &order);
        for ((i, reason), outcome) in fallback.into_iter().zip(outcomes) {
            let placement = &mut placements[i];
            placement.method = Method::Greedy;
            placement.note = match (&outcome.node, outcome.summary) {
                (Some(node), _) if !outcome.preempts.is_empty() => format!(
                    "greedy fall-back: {reason}; would preempt {} on {node}",
                    plural(outcome.preempts.len(), "pod")
                ),
                (Some(_), _) => format!("greedy fall-back: {reason}"),
                (None, Some(summary)) => format!("greedy fall-back: {reason}; pending: {summary}"),
                (None, None) => format!("greedy fall-back: {reason}; pending"),
            };
            placement.node = outcome.node;
            placement.preempts = outcome.preempts;
        }
    }
    FlowPlan {
        placements,
        classes: class_summaries,
        total_cost,
        rounds,
    }
}

/// Why the flow model cannot place a pod, if it cannot.
fn inexpressible(pod: &Pod) -> Option<&'static str> {
    let affinity = pod.spec.affinity.as_ref();
    let has_terms = |a: Option<&df_model::PodAffinity>| {
        a.is_some_and(|a| !a.required.is_empty() || !a.preferred.is_empty())
    };
    if has_terms(affinity.and_then(|a| a.pod_affinity.as_ref()))
        || has_terms(affinity.and_then(|a| a.pod_anti_affinity.as_ref()))
    {
        return Some("inter-pod affinity depends on where other pods of the batch land");
    }
    if !pod.spec.topology_spread_constraints.is_empty() {
        return Some("topology spread depends on where other pods of the batch land");
    }
    let host_ports = pod
        .spec
        .containers
        .iter()
        .chain(&pod.spec.init_containers)
        .flat_map(|c| &c.ports)
        .any(|p| p.host_port.is_some_and(|h| h > 0));
    if host_ports {
        return Some("host ports conflict between pods of the batch");
    }
    None
}

/// Pods with equal keys get the same verdict and scores from every filter the flow relies on.
fn class_key(pod: &Pod) -> String {
    let spec = &pod.spec;
    let requests = (
        pod_requests(spec, false),
        pod_requests(spec, true),
        &spec.node_name,
    );
    let parts = (
        &pod.metadata.namespace,
        &pod.metadata.labels,
        &spec.node_selector,
        &spec.affinity,
        &spec.tolerations,
    );
    format!(
        "{:?}{}",
        requests,
        serde_json::to_string(&parts).unwrap_or_default()
    )
}

/// The engine decides one representative per class: its feasible nodes become arcs, priced by
/// the class's preferred node-affinity weight there. Decisions are independent and each scans
/// every node, so classes are split over the available cores.
fn decide_classes(sched: &Scheduler, profile: &Profile, pods: &[Pod], classes: &mut [TaskClass]) {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = classes.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        for part in classes.chunks_mut(chunk) {
            scope.spawn(move || {
                for class in part {
                    // The members of a class are alike to the engine, so any of them decides
                    // for all: the pod `explain-placement` traces, when it is one, so that its
                    // own decision is the one the plan keeps.
                    let representative = class
                        .members
                        .iter()
                        .copied()
                        .find(|&m| sched.is_traced(&pods[m]))
                        .unwrap_or(class.members[0]);
                    decide_class(sched, profile, &pods[representative], class);
                }
            });
        }
    });
}

fn decide_class(sched: &Scheduler, profile: &Profile, pod: &Pod, class: &mut TaskClass) {
    let weight = profile.weight("NodeAffinity").unwrap_or(0);
    let state = sched.state();
    let decision = sched.decide(pod);
    let feasible: Vec<usize> = decision
        .nodes
        .iter()
        .filter(|v| v.feasible)
        .map(|v| v.index)
        .collect();
    let preferred: Vec<i64> = feasible
        .iter()
        .map(|&n| preferred_weight(pod, &state.nodes[n]))
        .collect();
    let best = preferred.iter().copied().max().unwrap_or(0);
    let mut arcs: Vec<(usize, u32)> = feasible
        .iter()
        .zip(&preferred)
        .map(|(&node, &p)| {
            let normalised = if best > 0 { p * MAX_SCORE / best } else { 0 };
            let cost = 1 + weight * (MAX_SCORE - normalised);
            (node, u32::try_from(cost).unwrap_or(u32::MAX))
        })
        .collect();
    arcs.sort_unstable();
    class.arcs = arcs;
    class.summary = decision.summary;
}

/// The sum of the weights of the pod's preferred node-affinity terms the node matches (an
/// invalid term matches nothing, as in the engine).
pub fn preferred_weight(pod: &Pod, node: &df_model::Node) -> i64 {
    let Some(affinity) = pod
        .spec
        .affinity
        .as_ref()
        .and_then(|a| a.node_affinity.as_ref())
    else {
        return 0;
    };
    affinity
        .preferred
        .iter()
        .filter(|t| {
            selector::node_selector_term_matches(
                &t.preference,
                &node.metadata.name,
                &node.metadata.labels,
            ) == Ok(true)
        })
        .map(|t| i64::from(t.weight))
        .sum()
}

/// How many pods with `requests` fit into `free`.
pub(crate) fn fit_count(free: &Resources, requests: &Resources) -> i64 {
    let mut count = free.pods.max(0);
    let native = [
        (requests.milli_cpu, free.milli_cpu),
        (requests.memory, free.memory),
        (requests.ephemeral_storage, free.ephemeral_storage),
    ];
    let scalars = requests
        .scalar
        .iter()
        .map(|(name, &wanted)| (wanted, free.scalar(name)));
    for (wanted, room) in native.into_iter().chain(scalars) {
        if wanted > 0 {
            count = count.min((room / wanted).max(0));
        }
    }
    count
}

/// Per node, the cost of its k-th new pod from the batch, from its utilisation with an average
/// batch pod added per unit.
fn sink_costs(sched: &Scheduler, profile: &Profile, flow_pods: &[&Pod]) -> Vec<SinkCost> {
    let nodes = sched.state().nodes.len();
    let weight = profile.weight("NodeResourcesFit").unwrap_or(0);
    if flow_pods.is_empty() || weight == 0 {
        return vec![SinkCost::default(); nodes];
    }
    let mut unit = Resources::default();
    for pod in flow_pods {
        unit.add(&pod_requests(&pod.spec, true));
    }
    let count = flow_pods.len() as i64;
    let unit: Vec<(i64, i64, &str)> = profile
        .fit_resources
        .iter()
        .map(|(name, w)| (unit.get(name) / count, *w, name.as_str()))
        .filter(|(amount, _, name)| *amount > 0 || matches!(*name, "cpu" | "memory"))
        .collect();
    let utilisation = |alloc: &Resources, used: Option<&Resources>, units: i64| {
        let (mut total, mut weights) = (0, 0);
        for &(amount, w, name) in &unit {
            let capacity = alloc.get(name);
            if capacity == 0 {
                continue;
            }
            let requested = used.map_or(0, |u| u.get(name)) + amount * units;
            total += w * (requested.min(capacity) * MAX_SCORE / capacity);
            weights += w;
        }
        if weights == 0 { 0 } else { total / weights }
    };
    (0..nodes)
        .map(|node| {
            let Some((alloc, used)) = sched.scored_usage(node) else {
                return SinkCost::default();
            };
            let after_one = utilisation(alloc, Some(used), 1);
            let (first, step) = match profile.strategy {
                ScoringStrategyType::LeastAllocated => {
                    (after_one, utilisation(alloc, None, 1).max(1))
                }
                ScoringStrategyType::MostAllocated => (MAX_SCORE - after_one, 0),
                // A shape of any form is not a convex cost: the solver leaves this score out
                // (docs/src/flow-solver.md says so).
                ScoringStrategyType::RequestedToCapacityRatio => (0, 0),
            };
            let to_u32 = |v: i64| u32::try_from(v * weight).unwrap_or(u32::MAX);
            SinkCost {
                first: to_u32(first),
                step: to_u32(step),
            }
        })
        .collect()
}

struct Round {
    /// Per class: (node, pods) the flow sends there.
    flows: Vec<Vec<(usize, i64)>>,
    unscheduled_cost: u32,
}

/// Build and solve the network for the pods still pending, on what is still free.
fn solve_round(
    classes: &[TaskClass],
    pending: &[VecDeque<usize>],
    free: &[Resources],
    sink_costs: &[SinkCost],
    taken: &[u32],
) -> Round {
    let mut net = Network::new(2 + classes.len());
    let mut vertex_of = vec![usize::MAX; free.len()];
    let mut node_units = vec![0u32; free.len()];
    let mut machines: Vec<usize> = Vec::new();
    let mut arcs: Vec<Vec<(usize, ArcId)>> = vec![Vec::new(); classes.len()];
    let mut batch: i64 = 0;
    let mut dearest_arc: i64 = 0;
    for (c, class) in classes.iter().enumerate() {
        let supply = pending[c].len() as i64;
        if supply == 0 {
            continue;
        }
        batch += supply;
        let vertex = 2 + c;
        for &(node, cost) in &class.arcs {
            let units = fit_count(&free[node], &class.requests).min(supply);
            let Ok(units) = u32::try_from(units) else {
                continue;
            };
            if units == 0 {
                continue;
            }
            if vertex_of[node] == usize::MAX {
                vertex_of[node] = net.add_vertex();
                machines.push(node);
            }
            node_units[node] = node_units[node].max(units);
            dearest_arc = dearest_arc.max(i64::from(cost));
            arcs[c].push((node, net.add_arc(vertex, vertex_of[node], units, cost)));
        }
    }
    let mut dearest_unit: i64 = 0;
    for &node in &machines {
        let cost = sink_costs[node].after(taken[node]);
        dearest_unit = dearest_unit.max(cost.last_unit(node_units[node]));
        net.add_convex_arc(
            vertex_of[node],
            SINK,
            node_units[node],
            cost.first,
            cost.step,
        );
    }
    // More than the dearest possible placement of the whole batch, so that placing one more
    // pod always beats any cost saved by leaving one out.
    let unscheduled_cost =
        u32::try_from(batch * (dearest_arc + dearest_unit) + 1).unwrap_or(u32::MAX);
    for (c, queue) in pending.iter().enumerate() {
        let supply = u32::try_from(queue.len()).unwrap_or(u32::MAX);
        if supply > 0 {
            net.add_arc(SOURCE, 2 + c, supply, 0);
            net.add_arc(2 + c, SINK, supply, unscheduled_cost);
        }
    }
    net.solve(SOURCE, SINK);
    let flows = arcs
        .into_iter()
        .map(|list| {
            list.into_iter()
                .map(|(node, arc)| (node, net.flow(arc)))
                .filter(|&(_, units)| units > 0)
                .collect()
        })
        .collect();
    Round {
        flows,
        unscheduled_cost,
    }
}

/// One pod as the greedy solver leaves it.
#[derive(Debug, Clone, PartialEq)]
pub struct GreedyOutcome {
    /// The selected node, or the node preemption would nominate.
    pub node: Option<String>,
    /// Why no node fits (with upstream's `preemption: ...` part when preemption cannot help).
    pub summary: Option<String>,
    /// The pods evicted to make room, when the pod preempts.
    pub preempts: Vec<Victim>,
}

/// Place pods one at a time, as kube-scheduler does: each decision sees the pods placed
/// before it, and a pod that fits nowhere preempts lower-priority pods when that helps.
pub fn place_greedily(sched: &mut Scheduler, pods: &[&Pod]) -> Vec<GreedyOutcome> {
    pods.iter()
        .map(|pod| {
            let (decision, preemption) = sched.schedule_and_assume(pod);
            let (nominated, preempts) = preemption.map(|p| (p.node, p.victims)).unwrap_or_default();
            GreedyOutcome {
                node: decision.selected.or(nominated),
                summary: decision.summary,
                preempts,
            }
        })
        .collect()
}

/// The greedy solver's placement of the batch, in input order.
pub(crate) fn greedy_batch(
    state: &ClusterState,
    profile: &Profile,
    pods: &[Pod],
) -> Vec<Option<String>> {
    let mut sched = Scheduler::new(state, profile.clone());
    let order: Vec<&Pod> = pods.iter().collect();
    place_greedily(&mut sched, &order)
        .into_iter()
        .map(|outcome| outcome.node)
        .collect()
}

/// How a placement of the batch scores on what the two solvers trade off.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Metrics {
    pub pods: usize,
    pub placed: usize,
    pub nodes_used: usize,
    /// Sum over placed pods of the preferred node-affinity weight their node satisfies.
    pub preferred_weight: i64,
    pub max_pods_per_node: usize,
    /// Standard deviation of batch pods per used node (0 is perfectly even), to 3 decimals.
    pub pods_per_node_stddev: f64,
}

/// `nodes[i]` is where `pods[i]` goes.
pub fn metrics(state: &ClusterState, pods: &[Pod], nodes: &[Option<String>]) -> Metrics {
    let mut per_node: BTreeMap<&str, usize> = BTreeMap::new();
    let mut preferred = 0;
    for (pod, node) in pods.iter().zip(nodes) {
        let Some(node) = node else { continue };
        *per_node.entry(node).or_default() += 1;
        if let Some(n) = state.node(node) {
            preferred += preferred_weight(pod, n);
        }
    }
    let placed: usize = per_node.values().sum();
    let used = per_node.len();
    let stddev = if used == 0 {
        0.0
    } else {
        let mean = placed as f64 / used as f64;
        let variance = per_node
            .values()
            .map(|&k| (k as f64 - mean).powi(2))
            .sum::<f64>()
            / used as f64;
        (variance.sqrt() * 1000.0).round() / 1000.0
    };
    Metrics {
        pods: pods.len(),
        placed,
        nodes_used: used,
        preferred_weight: preferred,
        max_pods_per_node: per_node.values().copied().max().unwrap_or(0),
        pods_per_node_stddev: stddev,
    }
}

/// Greedy and flow side by side, for `plan --compare`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    pub greedy: Metrics,
    pub flow: Metrics,
    pub greedy_nodes: Vec<Option<String>>,
    pub flow_plan: FlowPlan,
}

pub fn compare(state: &ClusterState, profile: &Profile, pods: &[Pod]) -> Comparison {
    let greedy_nodes = greedy_batch(state, profile, pods);
    let flow_plan = solve_batch(state, profile, pods);
    Comparison {
        greedy: metrics(state, pods, &greedy_nodes),
        flow: metrics(state, pods, &flow_plan.nodes()),
        greedy_nodes,
        flow_plan,
    }
}

#[cfg(test)]
mod tests;
