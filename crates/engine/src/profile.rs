//! The scheduler profile: which default plugins run, score weights, the resource scoring
//! strategy and the plugins' arguments, as read from a KubeSchedulerConfiguration
//! (`--scheduler-config`, [`crate::config`]); and the profiles of one configuration by
//! `schedulerName`.

use crate::versions::KubeVersion;
use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;

use super::plugins;

pub(crate) const TAINT_TOLERATION: &str = "TaintToleration";
pub(crate) const NODE_AFFINITY: &str = "NodeAffinity";
pub(crate) const POD_TOPOLOGY_SPREAD: &str = "PodTopologySpread";
pub(crate) const INTER_POD_AFFINITY: &str = "InterPodAffinity";
pub const NODE_RESOURCES_FIT: &str = "NodeResourcesFit";
pub(crate) const BALANCED_ALLOCATION: &str = "NodeResourcesBalancedAllocation";
pub(crate) const IMAGE_LOCALITY: &str = "ImageLocality";

/// kube-scheduler's placement scorers for topology-aware workload scheduling (KEP-5732).
pub const POD_GROUP_PODS_COUNT: &str = "PodGroupPodsCount";

/// The placement score plugins and their default weights (v1.36: 1 each, as the
/// "Topology-Aware Workload Scheduling" page of the Kubernetes documentation says).
pub(crate) const DEFAULT_PLACEMENT_SCORE_WEIGHTS: [(&str, i64); 2] =
    [(NODE_RESOURCES_FIT, 1), (POD_GROUP_PODS_COUNT, 1)];

/// The default profile's score plugins and weights (v1.34).
pub const DEFAULT_SCORE_WEIGHTS: [(&str, i64); 7] = [
    (TAINT_TOLERATION, 3),
    (NODE_AFFINITY, 2),
    (POD_TOPOLOGY_SPREAD, 2),
    (INTER_POD_AFFINITY, 2),
    (NODE_RESOURCES_FIT, 1),
    (BALANCED_ALLOCATION, 1),
    (IMAGE_LOCALITY, 1),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum ScoringStrategyType {
    LeastAllocated,
    MostAllocated,
    /// A piecewise-linear function of each resource's utilisation ([`Profile::capacity_ratio_shape`]).
    RequestedToCapacityRatio,
}

/// The extension points whose default plugins a profile may turn off, as far as the engine
/// runs them (score plugins are turned off through [`Profile::score_weights`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Point {
    PreEnqueue,
    /// PreFilter and Filter: a filter's PreFilter state goes with it.
    Filter,
    PostFilter,
}

/// A profile without `schedulerName`, and a pod without one, are the default scheduler's.
pub const DEFAULT_SCHEDULER_NAME: &str = "default-scheduler";

/// kube-scheduler's DynamicResources plugin; its PostFilter runs before DefaultPreemption's.
pub const DYNAMIC_RESOURCES: &str = "DynamicResources";
pub const DEFAULT_PREEMPTION: &str = "DefaultPreemption";

impl Point {
    pub(crate) const ALL: [Point; 3] = [Point::PreEnqueue, Point::Filter, Point::PostFilter];

    /// The default plugins at this point that the engine runs.
    pub(crate) fn defaults(self) -> Vec<&'static str> {
        match self {
            Point::PreEnqueue => plugins::PRE_ENQUEUE.to_vec(),
            Point::Filter => plugins::filters().map(|r| r.name).collect(),
            Point::PostFilter => vec![DYNAMIC_RESOURCES, DEFAULT_PREEMPTION],
        }
    }
}

/// Where PodTopologySpread's default constraints come from, for pods without constraints of
/// their own (PodTopologySpreadArgs `defaultingType`).
#[derive(Debug, Clone, PartialEq, Default)]
pub enum SpreadDefaulting {
    /// kube-scheduler's built-in constraints: ScheduleAnyway, hostname maxSkew 3, zone 5.
    #[default]
    System,
    /// The configuration's `defaultConstraints` (none: no default spreading).
    List(Vec<DefaultSpread>),
}

/// One of `defaultConstraints`: a topology spread constraint whose selector is deduced for
/// each pod.
#[derive(Debug, Clone, PartialEq)]
pub struct DefaultSpread {
    pub max_skew: i64,
    pub topology_key: String,
    /// `DoNotSchedule` (a filter) rather than `ScheduleAnyway` (a score).
    pub hard: bool,
    pub min_domains: i64,
    pub honor_node_affinity: bool,
    pub honor_taints: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// Enabled score plugins and their weights; a plugin absent here does not score.
    pub score_weights: BTreeMap<String, i64>,
    pub strategy: ScoringStrategyType,
    /// Resources NodeResourcesFit scores, with their weights.
    pub fit_resources: Vec<(String, i64)>,
    /// Weight of an existing pod's *required* affinity towards the incoming pod in scoring.
    pub hard_pod_affinity_weight: i64,
    /// Enabled placement score plugins (`plugins.placementScore`) and their weights.
    pub placement_score_weights: BTreeMap<String, i64>,
    /// The Kubernetes release whose scheduler this profile is.
    pub version: KubeVersion,
    /// Default plugins this profile turns off, by extension point.
    pub disabled: BTreeSet<(Point, &'static str)>,
    /// RequestedToCapacityRatio's shape: (utilisation %, score 0..100) points in increasing
    /// utilisation.
    pub capacity_ratio_shape: Vec<(i64, i64)>,
    /// Resources NodeResourcesBalancedAllocation balances.
    pub balanced_resources: Vec<String>,
    pub spread_defaulting: SpreadDefaulting,
    /// `percentageOfNodesToScore`: `None` (or 0) is kube-scheduler's adaptive percentage.
    pub percentage_of_nodes_to_score: Option<u8>,
}

impl Default for Profile {
    fn default() -> Self {
        Profile {
            score_weights: DEFAULT_SCORE_WEIGHTS
                .iter()
                .map(|(n, w)| (n.to_string(), *w))
                .collect(),
            strategy: ScoringStrategyType::LeastAllocated,
            fit_resources: vec![("cpu".into(), 1), ("memory".into(), 1)],
            hard_pod_affinity_weight: 1,
            placement_score_weights: DEFAULT_PLACEMENT_SCORE_WEIGHTS
                .iter()
                .map(|(n, w)| (n.to_string(), *w))
                .collect(),
            version: KubeVersion::DEFAULT,
            disabled: BTreeSet::new(),
            capacity_ratio_shape: Vec::new(),
            balanced_resources: vec!["cpu".into(), "memory".into()],
            spread_defaulting: SpreadDefaulting::System,
            percentage_of_nodes_to_score: None,
        }
    }
}

impl Profile {
    pub fn weight(&self, plugin: &str) -> Option<i64> {
        self.score_weights.get(plugin).copied()
    }

    /// Whether the default plugin `name` runs at `point` in this profile.
    pub fn runs(&self, point: Point, name: &str) -> bool {
        !self.disabled.iter().any(|(p, n)| *p == point && *n == name)
    }

    /// A placement score plugin's weight; 0 when it is disabled.
    pub fn placement_weight(&self, plugin: &str) -> i64 {
        self.placement_score_weights
            .get(plugin)
            .copied()
            .unwrap_or(0)
    }
}

/// The profiles of one scheduler configuration by `schedulerName`. A pod whose scheduler the
/// configuration does not name is scheduled by the default profile: the cluster's own
/// kube-scheduler, which a configuration of a second scheduler does not change.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Profiles {
    named: Vec<(String, Profile)>,
    default: Profile,
}

/// One profile for every pod.
impl From<Profile> for Profiles {
    fn from(profile: Profile) -> Profiles {
        Profiles {
            named: Vec::new(),
            default: profile,
        }
    }
}

impl Profiles {
    pub fn new(named: Vec<(String, Profile)>) -> Profiles {
        Profiles {
            named,
            default: Profile::default(),
        }
    }

    /// The profile of pods whose `schedulerName` is `name` (empty: the default scheduler).
    pub fn for_scheduler(&self, name: &str) -> &Profile {
        let name = if name.is_empty() {
            DEFAULT_SCHEDULER_NAME
        } else {
            name
        };
        self.named
            .iter()
            .find(|(n, _)| n == name)
            .map_or(&self.default, |(_, p)| p)
    }

    /// The default scheduler's profile.
    pub fn default_scheduler(&self) -> &Profile {
        self.for_scheduler("")
    }

    /// Simulate `version` in every profile.
    pub fn set_version(&mut self, version: KubeVersion) {
        self.default.version = version;
        for (_, profile) in &mut self.named {
            profile.version = version;
        }
    }
}

#[cfg(test)]
mod tests;
