//! How Volcano chooses among the HyperNodes of a tier (volcano-sh/volcano v1.14+,
//! `plugins/network-topology-aware`: `isEligibleHyperNode`, `HyperNodeOrderFn`,
//! `getSubJobHyperNodeBinPackingScore`). The allocate action tries the job in every eligible
//! HyperNode of the lowest tier and keeps, of those that hold it, the one with the highest
//! bin-packing score: the fullest after placement. The score is computed from the
//! HyperNode's usage before the job, so trying the HyperNodes from the highest score down and
//! keeping the first that holds the job is the same choice.
//!
//! Eligibility (a pre-filter before any dry run): the PodGroup's `minResources` and the sum
//! of the pending pods' requests must each fit the HyperNode's idle resources (summed over its
//! nodes, per resource). A job pinned by its bound pods (`AllocatedHyperNode`, see
//! [`super::hypernode`]) skips it, as upstream does.

use std::collections::BTreeMap;

use crate::volcano_conf::Argument;

use super::{Capacity, Domain};
use crate::gang::Gang;
use df_engine::{Resources, Scheduler, pod_requests};
use df_model::gang::PARTITION_ID_LABEL;
use df_model::resources::format_bytes;

/// The plugin's weights (`weight`, `hypernode.binpack.cpu`, `hypernode.binpack.memory`,
/// `hypernode.binpack.resources` with `hypernode.binpack.resources.<name>`), each 1 unless
/// its argument is a non-negative integer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Weights {
    pub global: i64,
    /// cpu and memory first, then the listed extended resources; others are ignored.
    pub resources: Vec<(String, i64)>,
}

impl Default for Weights {
    fn default() -> Self {
        Weights {
            global: 1,
            resources: vec![("cpu".into(), 1), ("memory".into(), 1)],
        }
    }
}

impl Weights {
    /// The weights `arguments` set, as `getPriorityWeight` reads them: only a YAML integer is
    /// an int (`GetInt` ignores a quoted number, with a warning in its log).
    pub fn from_arguments(arguments: &BTreeMap<String, Argument>) -> Weights {
        let int = |key: &str| match arguments.get(key) {
            Some(Argument::Int(v)) if *v >= 0 => *v,
            _ => 1,
        };
        let mut resources = vec![
            ("cpu".to_string(), int("hypernode.binpack.cpu")),
            ("memory".to_string(), int("hypernode.binpack.memory")),
        ];
        if let Some(Argument::Text(listed)) = arguments.get("hypernode.binpack.resources") {
            for name in listed.split(',').map(str::trim).filter(|n| !n.is_empty()) {
                let weight = int(&format!("hypernode.binpack.resources.{name}"));
                match resources.iter_mut().find(|(n, _)| n == name) {
                    Some(entry) => entry.1 = weight,
                    None => resources.push((name.to_string(), weight)),
                }
            }
        }
        Weights {
            global: int("weight"),
            resources,
        }
    }

    /// The HyperNode's score for a job asking `request` (all its tasks, running ones too):
    /// per weighted resource the job asks for, (used + request) / allocatable over the
    /// HyperNode's nodes, weighted and averaged, times 100 and the global weight; 0 when the
    /// job would overflow one of them.
    pub fn score(&self, scheduler: &Scheduler, nodes: &[usize], request: &Resources) -> f64 {
        let (allocatable, used) = usage(scheduler, nodes);
        let (mut total, mut weights) = (0.0, 0);
        for (name, weight) in &self.resources {
            let asked = request.get(name);
            if asked <= 0 {
                continue;
            }
            let (held, taken) = (allocatable.get(name), used.get(name));
            if taken + asked > held {
                return 0.0;
            }
            total += *weight as f64 * (taken + asked) as f64 / held as f64;
            weights += weight;
        }
        if weights <= 0 {
            return 0.0;
        }
        100.0 * self.global as f64 * total / weights as f64
    }
}

/// Allocatable and requested resources summed over `nodes`.
fn usage(scheduler: &Scheduler, nodes: &[usize]) -> (Resources, Resources) {
    let (mut allocatable, mut used) = (Resources::default(), Resources::default());
    for &n in nodes {
        if let (Some((held, _)), Some(free)) = (scheduler.scored_usage(n), scheduler.free(n)) {
            allocatable.add(held);
            let mut taken = held.clone();
            taken.sub(&free);
            used.add(&taken);
        }
    }
    (allocatable, used)
}

/// A domain of a bin-packing round: its score, and why Volcano skips it, if it does.
pub(super) struct Ranked<'d> {
    pub domain: &'d Domain,
    pub score: f64,
    pub ineligible: Option<String>,
}

/// The round's domains as Volcano tries them: highest score first; on a tie, the one holding
/// more of the job's bound pods (`scoreWithTaskNum`), then by name where Volcano picks at
/// random. A `pinned` job skips the eligibility pre-filter.
pub(super) fn rank<'d>(
    scheduler: &Scheduler,
    capacity: &Capacity,
    gang: &Gang,
    weights: &Weights,
    domains: &'d [Domain],
    pinned: bool,
) -> Vec<Ranked<'d>> {
    // The pre-filter asks for the pending pods of the job's default sub-job: a Volcano Job's
    // partitions are sub-jobs of their own, each filtered inside the HyperNode the job takes
    // (`api/job_info.go` getOrCreateSubJob).
    let (mut pending_asks, mut partitioned) = (Resources::default(), Resources::default());
    for pod in &capacity.pending {
        let asks = if pod.metadata.labels.contains_key(PARTITION_ID_LABEL) {
            &mut partitioned
        } else {
            &mut pending_asks
        };
        asks.add(&pod_requests(&pod.spec, false));
    }
    // Every task of the job counts in the score, the bound ones too (their requests are in
    // the HyperNode's usage as well: upstream counts them twice).
    let state = scheduler.state();
    let mut all_tasks = pending_asks.clone();
    all_tasks.add(&partitioned);
    let mut bound_nodes = Vec::new();
    for placed in &capacity.bound {
        all_tasks.add(&pod_requests(&placed.spec, false));
        bound_nodes.extend(state.node_index(&placed.spec.node_name));
    }
    let minimum = Resources::from_list(&gang.min_resources);
    let mut ranked: Vec<(Ranked, usize)> = domains
        .iter()
        .map(|domain| {
            let ineligible = (!pinned)
                .then(|| {
                    let idle = idle(scheduler, &domain.nodes);
                    short_of(&minimum, &idle, "the PodGroup's minResources")
                        .or_else(|| short_of(&pending_asks, &idle, "its pending pods"))
                })
                .flatten();
            let holding = bound_nodes
                .iter()
                .filter(|n| domain.nodes.contains(n))
                .count();
            let score = weights.score(scheduler, &domain.nodes, &all_tasks);
            (
                Ranked {
                    domain,
                    score,
                    ineligible,
                },
                holding,
            )
        })
        .collect();
    ranked.sort_by(|(a, held_a), (b, held_b)| {
        b.score
            .total_cmp(&a.score)
            .then(held_b.cmp(held_a))
            .then_with(|| a.domain.name.cmp(&b.domain.name))
    });
    ranked.into_iter().map(|(r, _)| r).collect()
}

/// Idle resources summed over `nodes`.
fn idle(scheduler: &Scheduler, nodes: &[usize]) -> Resources {
    let mut idle = Resources::default();
    for free in nodes.iter().filter_map(|&n| scheduler.free(n)) {
        idle.add(&free);
    }
    idle
}

/// Why `asked` does not fit `idle` (`LessEqual`: every resource `asked` names), if it does not.
fn short_of(asked: &Resources, idle: &Resources, who: &str) -> Option<String> {
    let mut names = vec!["cpu".to_string(), "memory".to_string()];
    names.extend(asked.scalar.keys().cloned());
    names.into_iter().find_map(|name| {
        let (want, have) = (asked.get(&name), idle.get(&name));
        (want > have).then(|| {
            format!(
                "not eligible: idle {name} {} < {} {who} request (Volcano's HyperNode pre-filter)",
                show(&name, have),
                show(&name, want)
            )
        })
    })
}

/// A resource amount as a manifest writes it: CPU in cores or millicores, memory in bytes.
fn show(name: &str, amount: i64) -> String {
    match name {
        "cpu" if amount % 1000 == 0 => (amount / 1000).to_string(),
        "cpu" => format!("{amount}m"),
        "memory" | "ephemeral-storage" => format_bytes(amount),
        _ => amount.to_string(),
    }
}

/// A score as the plan shows it: to one decimal.
pub(super) fn shown(score: f64) -> String {
    format!("{score:.1}")
}
