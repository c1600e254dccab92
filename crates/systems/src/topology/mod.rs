//! Network-topology-aware gang placement, shared by every system that keeps a gang inside one
//! domain (Volcano HyperNodes, Kueue Topology Aware Scheduling, KEP-5732 workload topology).
//!
//! A system is one file implementing [`TopologySystem`] plus one line in [`SYSTEMS`]: it reads
//! a gang's constraint and the cluster's topology into a [`Request`] (the topology's levels,
//! each node's domains, and the candidate domains in the order the system tries them). This
//! module then places the gang through the kind's own all-or-nothing path restricted to each
//! candidate in turn, keeps the first that takes the gang, explains every domain turned down
//! in numbers, and writes the outcome into the group's plan ([`output`]).
//!
//! Module graph: [`output`] is a leaf the gang report shape embeds; this module uses the gang
//! model, outcome and placement path; `gang::plan_gang` calls [`constraint_for`] and
//! [`plan_in_domains`].

pub mod binpack;
pub mod hypernode;
pub mod kueue;
pub mod output;
pub mod score;
mod scored;
pub mod workload;

use std::collections::{BTreeMap, HashMap};

pub use output::{DomainRef, Mode, RejectedDomain, TopologyPlan};

use crate::flow::fit_count;
use crate::gang::outcome::{
    GangStatus, GroupPlan, LevelCount, PodRow, Rejection, compare_with_default, summary_line,
    unplanned,
};
use crate::gang::{Gang, GangError};
use df_engine::{Resources, Scheduler, pod_requests};
use df_model::Pod;
use df_model::fluid::HOSTNAME_LABEL;
use df_state::ClusterState;

/// One network-topology-aware system: which gangs it constrains and how.
pub(crate) trait TopologySystem: Sync {
    /// What this system makes of `gang`, read from the gang and `state` (its topology objects
    /// and scheduler configuration): `None` when it does not constrain the gang; an error (one
    /// line naming the object and field) when its topology cannot be read.
    fn constraint(&self, gang: &Gang, state: &ClusterState) -> Result<Option<Constraint>, String>;
}

/// What a system makes of one gang.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Constraint {
    /// Keep the gang in the request's domains.
    Planned(Request),
    /// The gang asks for a topology its scheduler is configured to ignore: it is planned
    /// without one, and this warning says so.
    Ignored(String),
}

/// Every network-topology-aware system; the first that constrains a gang plans it.
pub(crate) static SYSTEMS: &[&dyn TopologySystem] =
    &[&hypernode::HyperNodes, &workload::PodGroupTopology];

/// What the first system in [`SYSTEMS`] that constrains `gang` makes of it.
pub fn constraint_for(gang: &Gang, state: &ClusterState) -> Result<Option<Constraint>, String> {
    for system in SYSTEMS {
        if let Some(constraint) = system.constraint(gang, state)? {
            return Ok(Some(constraint));
        }
    }
    Ok(None)
}

/// A candidate domain: its name and its nodes (state node indexes).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Domain {
    pub name: String,
    pub nodes: Vec<usize>,
}

/// The candidate domains of one level, in the order the system prefers them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Round {
    /// One of [`Request::levels`].
    pub level: String,
    pub domains: Vec<Domain>,
    pub order: Order,
}

/// How a round picks among its domains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Order {
    /// The first domain, in the given order, that takes the gang.
    Given,
    /// Keep the domain kube-scheduler's placement scorers rank highest ([`score`]) after
    /// placing the gang in each; ties keep the given order. Domains that cannot beat one
    /// already placed are not placed (module `scored`).
    BestScore,
    /// Volcano's HyperNode choice ([`binpack`]): the eligible domains from the highest
    /// bin-packing score down, the first that takes the gang.
    BinPack(binpack::Weights),
}

/// What a system asks for one gang.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// `volcano-hypernodes`, `kueue-tas`, `workload-topology`.
    pub system: &'static str,
    pub mode: Mode,
    /// The constraint as the gang wrote it (`highestTierAllowed 2`).
    pub constraint: String,
    /// The topology's levels, widest first.
    pub levels: Vec<String>,
    /// Per state node, its domain at each of `levels` (`None` outside any domain there).
    pub node_domains: Vec<Vec<Option<String>>>,
    /// The candidates, narrowest level first: within a round the first domain that takes the
    /// gang wins; a round where none does passes to the next. In a strict mode, a gang no
    /// round takes stays pending; otherwise it is placed over every node.
    pub rounds: Vec<Round>,
    /// What the system noticed while reading the request (plugin off, topology assumed...).
    pub warnings: Vec<String>,
    /// Where the gang's bound pods keep the rest, when the system pins a partly running gang
    /// (the rounds then hold only the domains it may still use).
    pub pinned: Option<Pin>,
}

/// A partly running gang kept where its bound pods are (Volcano's `AllocatedHyperNode`): the
/// plan skips the eligibility pre-filter for it and passes over a domain that places none of
/// its pending pods.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pin {
    /// Why the system places none of the other pods, when it places none.
    pub stuck: Option<String>,
}

/// The gang's pending pods (in planning order) and its pods already bound, as the state has
/// them. A Volcano Job's members include its running tasks, so each member is looked up in
/// `state` (the namespace's pods are indexed by name once: a 1,000-pod gang in a namespace of
/// 7,500 pods would otherwise scan it once per member).
fn pending_pods<'g>(gang: &'g Gang, state: &'g ClusterState) -> (Vec<&'g Pod>, Vec<&'g Pod>) {
    let mut by_name: HashMap<&str, &Pod> = HashMap::new();
    for pod in state.pods_in_namespace(&gang.meta.namespace) {
        // The first of a name, as `ClusterState::pod` finds it.
        by_name.entry(pod.metadata.name.as_str()).or_insert(pod);
    }
    let mut bound: Vec<&Pod> = gang.running.iter().collect();
    let mut pending = Vec::new();
    for member in &gang.members {
        let pod = &member.pod;
        let in_state = if pod.metadata.namespace == gang.meta.namespace {
            by_name.get(pod.metadata.name.as_str()).copied()
        } else {
            state.pod(&pod.metadata.namespace, &pod.metadata.name)
        };
        match in_state.filter(|p| !p.spec.node_name.is_empty() && !p.is_terminated()) {
            Some(running) => bound.push(running),
            None => pending.push(pod),
        }
    }
    (pending, bound)
}

/// How many of a gang's pods a domain could hold: its bound pods plus the pending pods the
/// free resources and pod slots of the domain's nodes take, counted on the nodes the first
/// pending pod passes the filters of (taints, node affinity, unschedulable): the numbers
/// behind "6 of 8 pods fit". A necessary condition only; the placement through the engine
/// decides. [`plan_in_domains`] turns a domain down by it before trying its pods, and lint
/// ([`pods_that_fit`]) says by it that even the largest domain of a required level is too
/// small: one count for both.
struct Capacity<'g> {
    /// The gang's pending pods, in planning order.
    pending: Vec<&'g Pod>,
    /// Its pods already bound (they count towards every domain's total).
    bound: Vec<&'g Pod>,
    usable: Vec<bool>,
    /// Distinct requests of the pending pods with how many pods ask for each, in order.
    classes: Vec<(Resources, usize)>,
}

impl<'g> Capacity<'g> {
    fn of<'a: 'g>(scheduler: &Scheduler<'a>, gang: &'g Gang) -> Capacity<'g> {
        let (pending, bound) = pending_pods(gang, scheduler.state());
        let nodes = scheduler.state().nodes.len();
        let mut usable = vec![true; nodes];
        // A pod that needs its siblings (required pod affinity) passes on no node before they
        // are placed: its filters say nothing about the domain.
        if let Some(first) = pending.first().filter(|p| !needs_siblings(p)) {
            for verdict in scheduler.decide(first).nodes {
                usable[verdict.index] = verdict.feasible;
            }
        }
        let mut classes: Vec<(Resources, usize)> = Vec::new();
        for pod in &pending {
            let request = pod_requests(&pod.spec, false);
            match classes.iter_mut().find(|(r, _)| *r == request) {
                Some((_, count)) => *count += 1,
                None => classes.push((request, 1)),
            }
        }
        Capacity {
            pending,
            bound,
            usable,
            classes,
        }
    }

    /// The gang's pods `nodes` could hold: the bound ones plus the pending ones that fit.
    fn pods_that_fit(&self, scheduler: &Scheduler, nodes: &[usize]) -> usize {
        self.bound.len() + self.fit(scheduler, nodes).min(self.pending.len())
    }

    /// Pods that fit on `nodes`, each request class filling the nodes in order.
    fn fit(&self, scheduler: &Scheduler, nodes: &[usize]) -> usize {
        let mut free: Vec<Resources> = nodes
            .iter()
            .filter(|&&n| self.usable[n])
            .filter_map(|&n| scheduler.free(n))
            .collect();
        let mut fit = 0;
        for (request, count) in &self.classes {
            let mut left = *count;
            for room in free.iter_mut() {
                if left == 0 {
                    break;
                }
                let n = usize::try_from(fit_count(room, request))
                    .unwrap_or(0)
                    .min(left);
                for _ in 0..n {
                    room.sub(request);
                }
                room.pods -= n as i64;
                left -= n;
                fit += n;
            }
        }
        fit
    }
}

fn needs_siblings(pod: &Pod) -> bool {
    pod.spec
        .affinity
        .as_ref()
        .and_then(|a| a.pod_affinity.as_ref())
        .is_some_and(|a| !a.required.is_empty())
}

/// How many of `gang`'s pods each of `domains` could hold ([`Capacity`]): the count
/// [`plan_in_domains`] turns a domain down by, for lint.
pub fn pods_that_fit(scheduler: &Scheduler, gang: &Gang, domains: &[Domain]) -> Vec<usize> {
    let capacity = Capacity::of(scheduler, gang);
    domains
        .iter()
        .map(|d| capacity.pods_that_fit(scheduler, &d.nodes))
        .collect()
}

/// The kind's own all-or-nothing placement of a gang, over every node (`None`) or only over
/// the given nodes (state indexes).
pub(crate) type PlaceFn<'p> =
    dyn FnMut(&mut Scheduler, Option<&[usize]>) -> Result<GroupPlan, GangError> + 'p;

/// Plan `gang` as `request` says: each candidate domain in turn, through `place` (the kind's
/// own all-or-nothing placement, restricted to the given nodes, or over every node for
/// `None`), keeping the first domain that takes the gang (in a `BestScore` round, the best
/// scored of those that take it). A domain whose free capacity cannot
/// hold the gang's minimum is turned down without trying its pods. `compare` adds the plain
/// default scheduler's placement of the same pods.
pub(crate) fn plan_in_domains(
    scheduler: &mut Scheduler,
    gang: &Gang,
    request: &Request,
    compare: bool,
    place: &mut PlaceFn,
) -> Result<GroupPlan, GangError> {
    let state = scheduler.state();
    let before = compare.then(|| scheduler.clone());
    let capacity = Capacity::of(scheduler, gang);
    let (pending, bound) = (&capacity.pending, capacity.bound.len());
    let needed = gang.minimum();
    let mut rejected: Vec<RejectedDomain> = Vec::new();
    // The domain that came closest (most pods fit), with its nodes, for a hard failure.
    let mut closest: Option<(usize, &[usize])> = None;
    let mut chosen: Option<(&Round, &Domain, GroupPlan)> = None;
    'rounds: for round in &request.rounds {
        let mut candidates: Vec<&Domain> = round.domains.iter().collect();
        // With `BinPack`: each domain's score and whether Volcano skips it, in its order.
        let mut ranked = Vec::new();
        if let Order::BinPack(weights) = &round.order {
            let pinned = request.pinned.is_some();
            ranked = binpack::rank(scheduler, &capacity, gang, weights, &round.domains, pinned);
            candidates = ranked.iter().map(|r| r.domain).collect();
        }
        // With `BestScore`: the domains in the order of the best score they could reach, and
        // every domain that took the gang, with the state it left.
        let mut scored = scored::ScoredRound::new(scheduler, pending, bound, &round.domains);
        if round.order == Order::BestScore {
            candidates = scored.order();
        }
        for (at, domain) in candidates.iter().copied().enumerate() {
            let fit = capacity.pods_that_fit(scheduler, &domain.nodes);
            let skipped = ranked.get(at).and_then(|r| r.ineligible.clone());
            let (fit, reason) = if let Some(why) = skipped {
                (fit, why)
            } else if fit < needed {
                let nodes = domain.nodes.len();
                let reason = format!(
                    "{fit} of {needed} pods fit (free resources and pod slots of its {nodes} {})",
                    if nodes == 1 { "node" } else { "nodes" }
                );
                (fit, reason)
            } else if round.order == Order::BestScore {
                if scored.settled(domain) {
                    scored.untried(domain, fit);
                    continue;
                }
                let mut trial = scheduler.branch();
                let plan = place(&mut trial, Some(&domain.nodes))?;
                if plan.status == GangStatus::Scheduled {
                    scored.took(domain, plan, trial);
                    continue;
                }
                turned_down(&plan, needed)
            } else {
                let plan = place(scheduler, Some(&domain.nodes))?;
                // A pinned gang already at its minimum that places none of its pending pods
                // here: Volcano keeps no HyperNode whose allocation is empty.
                let empty =
                    request.pinned.is_some() && !pending.is_empty() && plan.scheduled <= bound;
                if plan.status == GangStatus::Scheduled && empty {
                    (fit, placed_none(&plan, pending.len()))
                } else if plan.status == GangStatus::Scheduled {
                    if let Some(kept) = ranked.get(at) {
                        rejected.extend(ranked[at + 1..].iter().map(|r| {
                            let fit = capacity.pods_that_fit(scheduler, &r.domain.nodes);
                            untried_by_score(kept, r, fit, needed, &round.level)
                        }));
                    }
                    chosen = Some((round, domain, plan));
                    break 'rounds;
                } else {
                    turned_down(&plan, needed)
                }
            };
            if closest.is_none_or(|(best, _)| fit > best) {
                closest = Some((fit, &domain.nodes));
            }
            rejected.push(RejectedDomain {
                level: round.level.clone(),
                domain: domain.name.clone(),
                fit,
                needed,
                reason,
            });
        }
        if let Some(best) = scored.best(needed, &round.level, &mut rejected) {
            *scheduler = best.scheduler;
            chosen = Some((round, best.domain, best.plan));
            break 'rounds;
        }
    }
    let widest_allowed = request
        .rounds
        .last()
        .map(|r| r.level.clone())
        .unwrap_or_default();
    let mut topology = TopologyPlan {
        system: request.system,
        mode: request.mode,
        constraint: request.constraint.clone(),
        constraining_level: widest_allowed,
        chosen: Vec::new(),
    };
    let mut plan = match chosen {
        Some((round, domain, plan)) => {
            topology.constraining_level = round.level.clone();
            topology.chosen = chosen_path(request, &round.level, domain);
            let mut plan = plan;
            plan.group_nodes = domain.nodes.clone();
            plan
        }
        None if request.mode.is_strict() => {
            let shortfall = format!(
                "{} ({}): no domain up to level {} takes the gang",
                request.constraint,
                request.mode.as_str(),
                topology.constraining_level
            );
            let stuck = request.pinned.as_ref().and_then(|p| p.stuck.clone());
            let mut plan = match (closest, stuck) {
                // The pods' own reasons in the domain that came closest.
                (Some((_, nodes)), _) => place(scheduler, Some(nodes))?,
                (None, Some(reason)) => held_back(gang, state, reason),
                (None, None) => unplanned(
                    gang,
                    state,
                    GangStatus::Unschedulable,
                    format!("{shortfall}: the topology has no domain there"),
                ),
            };
            // A pinned gang whose bound pods meet its minimum keeps running; only the rest
            // waits.
            if request.pinned.is_none() || plan.scheduled < needed {
                // The first of the domains that came closest, in the order they were tried.
                if let Some(tightest) = rejected.iter().rev().max_by_key(|r| r.fit) {
                    plan.rejections.push(Rejection {
                        group: "topology".into(),
                        reason: format!(
                            "{shortfall}; the closest, {} ({}), fits {} of {} pods",
                            tightest.domain, tightest.level, tightest.fit, tightest.needed
                        ),
                    });
                }
                plan.status = GangStatus::Unschedulable;
            }
            plan
        }
        None => {
            let mut plan = place(scheduler, None)?;
            plan.warnings.push(format!(
                "{} ({}): no single domain takes the gang, so its pods are placed across domains",
                request.constraint,
                request.mode.as_str()
            ));
            plan
        }
    };
    with_domains(&mut plan, request, state);
    plan.topology = Some(topology);
    plan.rejected = rejected;
    plan.warnings.extend(request.warnings.iter().cloned());
    if let Some(before) = before {
        let pods: Vec<Pod> = pending.iter().map(|&p| p.clone()).collect();
        let running: Vec<&Pod> = gang.running.iter().collect();
        plan.comparison = Some(compare_with_default(&before, &pods, &running, &plan));
    }
    Ok(plan)
}

/// A domain of a bin-packing round left untried once `kept` took the gang: its score (a tie
/// is Volcano's random pick, which the plan makes by name), or why Volcano skips it.
fn untried_by_score(
    kept: &binpack::Ranked,
    domain: &binpack::Ranked,
    fit: usize,
    needed: usize,
    level: &str,
) -> RejectedDomain {
    let (score, top, name) = (
        binpack::shown(domain.score),
        binpack::shown(kept.score),
        &kept.domain.name,
    );
    let reason = match &domain.ineligible {
        Some(why) => why.clone(),
        None if domain.score == kept.score => format!(
            "not tried: its bin-packing score {score} ties with {name}'s (Volcano picks one of \
             them at random; the plan keeps the first by name)"
        ),
        None => format!("not tried: its bin-packing score {score} is below {name}'s {top}"),
    };
    RejectedDomain {
        level: level.to_string(),
        domain: domain.domain.name.clone(),
        fit,
        needed,
        reason,
    }
}

/// A domain where a pinned gang, already at its minimum, placed none of its `pending` pods,
/// with the first of their reasons.
fn placed_none(plan: &GroupPlan, pending: usize) -> String {
    let why = plan
        .pods
        .iter()
        .filter(|r| !r.running)
        .find_map(|r| r.reason.as_ref())
        .map(|reason| format!(": {reason}"))
        .unwrap_or_default();
    format!(
        "none of its {pending} pending pods fit (Volcano keeps no HyperNode that takes none){why}"
    )
}

/// The plan of a gang whose pending pods the system places nowhere, for `reason`: its bound
/// pods as they run (a Volcano Job's members include them), the others pending.
fn held_back(gang: &Gang, state: &ClusterState, reason: String) -> GroupPlan {
    let (_, bound) = pending_pods(gang, state);
    let mut split = gang.clone();
    split.running = bound.into_iter().cloned().collect();
    let running = &split.running;
    split.members.retain(|m| {
        !running
            .iter()
            .any(|r| r.metadata.name == m.pod.metadata.name)
    });
    let status = if split.running.len() >= gang.minimum() {
        GangStatus::Scheduled
    } else {
        GangStatus::Unschedulable
    };
    unplanned(&split, state, status, reason)
}

/// How many pods of a gang a domain's placement took, and the first reason it stopped.
fn turned_down(plan: &GroupPlan, needed: usize) -> (usize, String) {
    let why = plan
        .blocked
        .first()
        .map(|b| format!(": {}", b.reason))
        .unwrap_or_default();
    (plan.fit, format!("{} of {needed} pods fit{why}", plan.fit))
}

/// The chosen domain at `level` and its domains at every wider level, widest first.
fn chosen_path(request: &Request, level: &str, domain: &Domain) -> Vec<DomainRef> {
    let Some(at) = request.levels.iter().position(|l| l == level) else {
        return Vec::new();
    };
    let above = domain
        .nodes
        .first()
        .and_then(|&n| request.node_domains.get(n));
    let mut path: Vec<DomainRef> = request.levels[..at]
        .iter()
        .enumerate()
        .filter_map(|(i, level)| {
            Some(DomainRef {
                level: level.clone(),
                domain: above?.get(i)?.clone()?,
            })
        })
        .collect();
    path.push(DomainRef {
        level: level.to_string(),
        domain: domain.name.clone(),
    });
    path
}

/// Show each pod's domain path: the plan's levels become the topology's levels then the node,
/// each row's domains that node's domains, and the per-level counts and summary follow.
pub(crate) fn with_domains(plan: &mut GroupPlan, request: &Request, state: &ClusterState) {
    let path_of = |node: &str| -> Vec<Option<String>> {
        let mut path = state
            .node_index(node)
            .and_then(|i| request.node_domains.get(i).cloned())
            .unwrap_or_else(|| vec![None; request.levels.len()]);
        path.push(Some(node.to_string()));
        path
    };
    plan.levels = request.levels.clone();
    plan.levels.push(HOSTNAME_LABEL.to_string());
    for row in &mut plan.pods {
        row.domains = match &row.node {
            Some(node) => path_of(node),
            None => vec![None; plan.levels.len()],
        };
    }
    plan.domains = plan
        .levels
        .iter()
        .enumerate()
        .map(|(i, level)| {
            let mut pods: BTreeMap<String, usize> = BTreeMap::new();
            for domain in plan.pods.iter().filter_map(|r| r.domains[i].as_ref()) {
                *pods.entry(domain.clone()).or_default() += 1;
            }
            LevelCount {
                key: level.clone(),
                pods,
            }
        })
        .collect();
    if plan.status == GangStatus::Scheduled {
        plan.summary = summary_line(plan.scheduled, plan.placements.len(), &plan.domains);
    }
}

/// `hypernode r1 (tier1)`: the domain the gang was kept in, for the explanation of one of its
/// pods; `None` when no topology system placed it in one.
pub fn chosen_domain(plan: &GroupPlan) -> Option<String> {
    let topology = plan.topology.as_ref()?;
    let last = topology.chosen.last()?;
    Some(format!("domain {} ({})", last.domain, last.level))
}

/// `s0 (tier2) > r1 (tier1) > n3`: a placed pod's domains, widest first, then its node;
/// `None` for a pod not placed or a gang no topology system placed.
pub fn domain_path(plan: &GroupPlan, row: &PodRow) -> Option<String> {
    plan.topology.as_ref()?;
    let node = row.node.as_ref()?;
    let mut parts: Vec<String> = plan
        .levels
        .iter()
        .zip(&row.domains)
        .take(plan.levels.len().saturating_sub(1))
        .map(|(level, domain)| format!("{} ({level})", domain.as_deref().unwrap_or("-")))
        .collect();
    parts.push(node.clone());
    Some(parts.join(" > "))
}

#[cfg(test)]
mod binpack_tests;
/// The fixture of the topology tests, for the report's tests too (feature `fixtures`).
#[cfg(any(test, feature = "fixtures"))]
pub mod fixtures;
#[cfg(test)]
mod pinned_tests;
#[cfg(test)]
mod prune_tests;
#[cfg(test)]
mod tests;
