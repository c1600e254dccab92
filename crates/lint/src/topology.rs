//! Network topology rules shared by Volcano HyperNodes and Kueue Topology Aware Scheduling:
//! a `highestTierAllowed` no HyperNode has (DF501, DF502), and with a state, a required or
//! preferred level whose largest domain cannot hold the gang (DF505, DF506) and topology labels
//! no node carries (DF507). The domains and their capacity come from the planner itself
//! ([`df_systems::topology`]), so lint and plan agree on what fits.

use std::collections::{BTreeMap, BTreeSet};

use super::{Context, Finding, literal_key, node_at, node_carries};
use df_engine::{Profile, Scheduler};
use df_manifest::{Manifest, ManifestSet};
use df_model::gang::NetworkTopologySpec;
use df_model::kueue::{PREFERRED_TOPOLOGY, REQUIRED_TOPOLOGY};
use df_model::text::plural;
use df_model::{HyperNode, Object};
use df_state::ClusterState;
use df_systems::gang::kueue::KUEUE_KIND;
use df_systems::gang::model::PlacementRule;
use df_systems::gang::volcano::{JOB_KIND, POD_GROUP_KIND};
use df_systems::gang::{Gang, GangOptions, gangs};
use df_systems::topology::hypernode::{self, CLUSTER_TOP, level_name, top_tier};
use df_systems::topology::kueue::tas::LevelMode;
use df_systems::topology::kueue::{self as kueue_tas, Queues};
use df_systems::topology::{self, Constraint, Mode, Request, Round, pods_that_fit};

/// A gang by its kind's id, namespace and name.
pub(super) type GangKey = (&'static str, String, String);

/// What the topology rules check against, worked out once per lint run.
pub(crate) struct Index {
    /// The HyperNodes of the state and the inputs; `None` when there is nothing to check
    /// against (no state and no HyperNode among the inputs) or Volcano's configuration turns
    /// the plugin off (it then ignores every `networkTopology`).
    hyper_nodes: Option<Vec<HyperNode>>,
    /// Gangs whose largest domain at the level they ask for cannot hold them (with a state).
    too_small: BTreeMap<GangKey, Shortfall>,
}

/// A level whose largest domain is too small for a gang.
struct Shortfall {
    /// Hard (Volcano) or required (Kueue): the gang stays pending.
    strict: bool,
    message: String,
}

impl Index {
    pub fn new(set: &ManifestSet, state: Option<&ClusterState>) -> Index {
        let empty = ClusterState::default();
        let merged = hypernode::with_given(set, state.unwrap_or(&empty));
        let unknown = state.is_none() && merged.hyper_nodes.is_empty();
        let hyper_nodes =
            (!unknown && !hypernode::plugin_off(&merged)).then(|| merged.hyper_nodes.clone());
        let too_small = match state {
            Some(_) => shortfalls(set, &merged),
            None => BTreeMap::new(),
        };
        Index {
            hyper_nodes,
            too_small,
        }
    }
}

/// Every gang of the inputs that asks for a topology, measured against the planner's domains.
fn shortfalls(set: &ManifestSet, state: &ClusterState) -> BTreeMap<GangKey, Shortfall> {
    let asks = |g: &Gang| g.network_topology.is_some() || matches!(g.rule, PlacementRule::Kueue(_));
    measure_gangs(set, state, asks, |scheduler, gang| {
        if gang.network_topology.is_some() {
            hyper_node_shortfall(scheduler, gang)
        } else {
            kueue_shortfall(scheduler, gang)
        }
    })
}

/// The gangs of the inputs that `asks` keeps, each measured by `measure` with one scheduler
/// over `state` (built only when a gang asks), keyed by kind, namespace and name.
pub(super) fn measure_gangs<T>(
    set: &ManifestSet,
    state: &ClusterState,
    asks: impl Fn(&Gang) -> bool,
    measure: impl Fn(&Scheduler, &Gang) -> Option<T>,
) -> BTreeMap<GangKey, T> {
    let all = gangs(set, state, &GangOptions::default());
    let asking: Vec<&Gang> = all.iter().filter(|g| asks(g)).collect();
    if asking.is_empty() {
        return BTreeMap::new();
    }
    let scheduler = Scheduler::new(state, Profile::default());
    asking
        .into_iter()
        .filter_map(|gang| {
            let measured = measure(&scheduler, gang)?;
            let key = (
                gang.kind.id,
                gang.meta.namespace.clone(),
                gang.meta.name.clone(),
            );
            Some((key, measured))
        })
        .collect()
}

/// A Volcano gang against the HyperNodes of its highest allowed tier (the widest it may use).
fn hyper_node_shortfall(scheduler: &Scheduler, gang: &Gang) -> Option<Shortfall> {
    let state = scheduler.state();
    let (request, needed) = planned_request(gang, state)?;
    // The planner's own rounds, at the tier the gang names (a soft gang may go higher: Volcano
    // makes it hard up to the top tier), else the widest it may use.
    let written = gang.network_topology.as_ref()?.highest_tier_allowed;
    let round = written
        .and_then(|tier| request.rounds.iter().find(|r| r.level == level_name(tier)))
        .or(request.rounds.last())?;
    let largest = largest_too_small(scheduler, gang, round, "HyperNode", needed)?;
    let strict = request.mode.is_strict();
    let message = format!(
        "{largest}: {}",
        if strict {
            "in hard mode the gang stays pending"
        } else {
            "in soft mode Volcano keeps it in a HyperNode of a higher tier, or the whole cluster"
        }
    );
    Some(Shortfall { strict, message })
}

/// The topology a gang's planner keeps it in, and the pods it needs at least; `None` when it
/// asks for none (or its scheduler ignores it) or has no pods to place.
pub(super) fn planned_request(gang: &Gang, state: &ClusterState) -> Option<(Request, usize)> {
    let Ok(Some(Constraint::Planned(request))) = topology::constraint_for(gang, state) else {
        return None;
    };
    let needed = gang.minimum();
    (!gang.members.is_empty() && needed > 0).then_some((request, needed))
}

/// When even the largest domain of `round` (by the planner's own capacity count; the first by
/// name among equals) holds fewer than `needed` of the gang's pods, says so: "the largest
/// LEVEL `what` (NAME) holds FIT of the NEEDED pods (free resources and pod slots of its N
/// nodes)".
pub(super) fn largest_too_small(
    scheduler: &Scheduler,
    gang: &Gang,
    round: &Round,
    what: &str,
    needed: usize,
) -> Option<String> {
    let fits = pods_that_fit(scheduler, gang, &round.domains);
    let (domain, fit) = round
        .domains
        .iter()
        .zip(fits)
        .rev()
        .max_by_key(|(_, fit)| *fit)?;
    (fit < needed).then(|| {
        format!(
            "the largest {} {what} ({}) holds {fit} of the {needed} pods (free resources and pod \
             slots of its {})",
            round.level,
            domain.name,
            plural(domain.nodes.len(), "node"),
        )
    })
}

/// A Kueue pod set against the domains of its required or preferred level, on each flavor
/// Kueue may admit it on (in order); the first flavor's shortfall is reported when none fits.
fn kueue_shortfall(scheduler: &Scheduler, gang: &Gang) -> Option<Shortfall> {
    let PlacementRule::Kueue(given) = &gang.rule else {
        return None;
    };
    let state = scheduler.state();
    let template = &gang.members.first()?.pod;
    let queues = Queues {
        given,
        state: &state.kueue,
    };
    let namespace = &gang.meta.namespace;
    let asks = kueue_tas::asks_topology(template);
    let flavors = kueue_tas::candidates(queues, namespace, &gang.queue, asks).ok()?;
    let count = i32::try_from(gang.members.len()).ok()?;
    let mut first: Option<Shortfall> = None;
    for candidate in flavors {
        let topology = candidate.topology?;
        let levels = topology.level_keys();
        let Ok(request) = kueue_tas::request(template, &levels, count) else {
            continue;
        };
        if request.mode == LevelMode::Unconstrained {
            return None;
        }
        let snapshot = kueue_tas::snapshot(scheduler, candidate.flavor, topology, template);
        let domains = match snapshot.tree.assign(&request, &snapshot.excluded) {
            Ok(assignment) => assignment.candidates,
            Err(no_fit) => no_fit.candidates,
        };
        let needed = request.count / request.slice_size;
        // Most free first.
        let largest = domains.first();
        if largest.is_some_and(|d| d.slices >= needed) {
            return None;
        }
        let level = &levels[request.level];
        let unit = if request.slice_size == 1 {
            "pods".to_string()
        } else {
            format!("slices of {}", request.slice_size)
        };
        let held = match largest {
            Some(d) => format!(
                "the largest {level} domain ({}) holds {} of the {needed} {unit}",
                d.values[request.level], d.slices
            ),
            None => format!("no {level} domain has nodes"),
        };
        let strict = request.mode == LevelMode::Required;
        let message = format!(
            "{held} (ResourceFlavor {}, Topology {}): {}",
            candidate.flavor.metadata.name,
            topology.metadata.name,
            if strict {
                "Kueue does not admit the Job"
            } else {
                "Kueue goes up to a wider level"
            }
        );
        first.get_or_insert(Shortfall { strict, message });
    }
    first
}

const HIGHEST_TIER_PATH: &str = "spec.networkTopology.highestTierAllowed";

pub(crate) fn check(ctx: &mut Context<'_>, index: &Index, m: &Manifest) {
    let (kind, spec) = match &m.object {
        Object::VolcanoJob(job) => (&JOB_KIND, job.spec.network_topology.as_ref()),
        Object::VolcanoPodGroup(group) => (&POD_GROUP_KIND, group.spec.network_topology.as_ref()),
        Object::Workload(job) if job.is_kueue_job() => (&KUEUE_KIND, None),
        Object::KueueTopology(topology) => {
            let labels = topology.level_keys();
            let keys = labels
                .iter()
                .enumerate()
                .map(|(i, label)| (format!("spec.levels[{i}].nodeLabel"), label.as_str()));
            let consequence = "the TAS snapshot of a flavor with this Topology keeps no node";
            check_labels(ctx, m, consequence, keys);
            return;
        }
        Object::HyperNode(hyper_node) => {
            check_hyper_node_labels(ctx, m, hyper_node);
            return;
        }
        _ => return,
    };
    if let Some(spec) = spec {
        check_tier(ctx, index, m, spec);
    }
    let meta = m.object.metadata();
    let key = (kind.id, meta.namespace.clone(), meta.name.clone());
    let Some(shortfall) = index.too_small.get(&key) else {
        return;
    };
    let code = if shortfall.strict { "DF505" } else { "DF506" };
    let finding = if kind.id == KUEUE_KIND.id {
        let annotation = if shortfall.strict {
            REQUIRED_TOPOLOGY
        } else {
            PREFERRED_TOPOLOGY
        };
        super::kueue::annotation_finding(m, code, annotation, shortfall.message.clone())
    } else {
        Finding::at(m, code, HIGHEST_TIER_PATH, shortfall.message.clone())
    };
    ctx.emit(m, finding);
}

/// DF501 / DF502: a hard `highestTierAllowed` against the HyperNodes' tiers, Volcano's
/// virtual top HyperNode (every node, one tier above the others) included. A soft spec is
/// hard up to the top tier since Volcano 1.15, so it always has a domain.
fn check_tier(ctx: &mut Context<'_>, index: &Index, m: &Manifest, spec: &NetworkTopologySpec) {
    let Some(hyper_nodes) = &index.hyper_nodes else {
        return;
    };
    let Ok(Some((Mode::Hard, highest))) = hypernode::read_spec(spec, hyper_nodes) else {
        return;
    };
    let tiers: BTreeSet<i32> = hyper_nodes.iter().map(|h| h.spec.tier).collect();
    let top = top_tier(tiers.iter().copied());
    if tiers.contains(&highest) || highest == top {
        return;
    }
    let existing = if tiers.is_empty() {
        "there is no HyperNode in the cluster state or the inputs".to_string()
    } else {
        let listed: Vec<String> = tiers.iter().map(i32::to_string).collect();
        let plural = if listed.len() == 1 { "" } else { "s" };
        format!("the HyperNodes have tier{plural} {}", listed.join(", "))
    };
    let below = tiers.range(..highest).next_back();
    let (code, consequence) = match below {
        _ if highest > top => (
            "DF502",
            format!(
                "Volcano's virtual {CLUSTER_TOP} ({}, every node) is within it: the gang may \
                 span the whole cluster",
                level_name(top)
            ),
        ),
        Some(&tier) => (
            "DF502",
            format!(
                "Volcano keeps the gang within the highest tier below it, {}",
                level_name(tier)
            ),
        ),
        None => (
            "DF501",
            "in hard mode no HyperNode can hold the gang and it stays pending".to_string(),
        ),
    };
    let message = format!("highestTierAllowed is {highest} but {existing}: {consequence}");
    ctx.emit(m, Finding::at(m, code, HIGHEST_TIER_PATH, message));
}

/// DF507: topology labels (with their paths) that no node of the state carries.
fn check_labels<'k>(
    ctx: &mut Context<'_>,
    m: &Manifest,
    consequence: &str,
    labels: impl Iterator<Item = (String, &'k str)>,
) {
    let Some(state) = ctx.state.filter(|s| !s.nodes.is_empty()) else {
        return;
    };
    let nodes = state.nodes.len();
    for (path, label) in labels {
        if node_carries(state, label) {
            continue;
        }
        let message = format!(
            "no node of the {nodes} in the state carries the label {label:?}: {consequence}"
        );
        ctx.emit(m, Finding::at(m, "DF507", &path, message));
    }
}

/// DF507 for the label keys a HyperNode's `labelMatch` member selectors select on, each at
/// its key.
fn check_hyper_node_labels(ctx: &mut Context<'_>, m: &Manifest, hyper_node: &HyperNode) {
    let Some(state) = ctx.state.filter(|s| !s.nodes.is_empty()) else {
        return;
    };
    let nodes = state.nodes.len();
    for (i, member) in hyper_node.spec.members.iter().enumerate() {
        let Some(selector) = &member.selector.label_match else {
            continue;
        };
        let base = format!("spec.members[{i}].selector.labelMatch");
        let match_labels = format!("{base}.matchLabels");
        let mut keys: Vec<(String, df_manifest::Pos, &str)> = selector
            .match_labels
            .keys()
            .map(|key| {
                let pos = literal_key(node_at(m, &match_labels), key)
                    .map_or_else(|| m.pos_of(&match_labels), |(at, _)| at);
                (format!("{match_labels}[{key}]"), pos, key.as_str())
            })
            .collect();
        keys.extend(selector.match_expressions.iter().enumerate().map(|(j, e)| {
            let path = format!("{base}.matchExpressions[{j}].key");
            (path.clone(), m.pos_of(&path), e.key.as_str())
        }));
        for (path, pos, key) in keys {
            if node_carries(state, key) {
                continue;
            }
            let message = format!(
                "no node of the {nodes} in the state carries the label {key:?}: the member \
                 selects no node by it"
            );
            ctx.emit(
                m,
                Finding {
                    code: "DF507",
                    pos,
                    path,
                    message,
                    hint: None,
                },
            );
        }
    }
}
