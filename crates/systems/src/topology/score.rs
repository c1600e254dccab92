//! kube-scheduler's placement scorers (KEP-5732, v1.36): once the gang has been placed in every
//! candidate domain, each domain that took it is scored by the weighted sum of
//! - `PodGroupPodsCount`: the group's pods placed there (bound ones counted), normalised so the
//!   domain that takes the most scores 100;
//! - `NodeResourcesFit`'s placement score, bin packing: always MostAllocated (whatever the
//!   profile's pod-by-pod strategy), over CPU and memory with the profile's resource weights,
//!   what the domain's nodes request once the gang is placed (non-zero defaults for pods that
//!   request nothing) per 100 of what they hold, so the tightest domain scores highest.
//!
//! The plugins' weights are the profile's `plugins.placementScore` ones (1 each by default), as
//! the Kubernetes documentation's "Topology-Aware Workload Scheduling" page describes them.
//! Extended resources in the profile's NodeResourcesFit resources are not scored here.
//! The highest total wins; kube-scheduler breaks a tie at random, the plan by domain order.

use std::fmt;

use df_engine::profile::{NODE_RESOURCES_FIT, POD_GROUP_PODS_COUNT};
use df_engine::{Profile, Resources, Scheduler};

/// A domain that took the gang, as the scorers see it.
pub struct Placement<'p, 'a> {
    /// Pods of the group placed or bound there.
    pub pods: usize,
    /// The domain's nodes (state indexes).
    pub nodes: &'p [usize],
    /// The state with the gang placed there.
    pub scheduler: &'p Scheduler<'a>,
}

/// One placement's score: its total and the two parts, with the weights they count by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Score {
    pub total: i64,
    pub pods: i64,
    pub bin_packing: i64,
    /// `PodGroupPodsCount`'s and `NodeResourcesFit`'s weights.
    pub weights: (i64, i64),
}

impl Score {
    /// The weighted total of the two parts under `profile`'s placement score weights.
    pub fn new(profile: &Profile, pods: i64, bin_packing: i64) -> Score {
        let weights = (
            profile.placement_weight(POD_GROUP_PODS_COUNT),
            profile.placement_weight(NODE_RESOURCES_FIT),
        );
        Score {
            total: pods * weights.0 + bin_packing * weights.1,
            pods,
            bin_packing,
            weights,
        }
    }
}

impl fmt::Display for Score {
    /// `130 (pods 100 + bin packing 30)`; with other weights `190 (pods 100 x 1 + bin packing
    /// 30 x 3)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (pods, bin_packing) = match self.weights {
            (1, 1) => (String::new(), String::new()),
            (p, b) => (format!(" x {p}"), format!(" x {b}")),
        };
        write!(
            f,
            "{} (pods {}{pods} + bin packing {}{bin_packing})",
            self.total, self.pods, self.bin_packing
        )
    }
}

/// The highest score a scorer gives (`framework.MaxNodeScore`).
pub(crate) const MAX_SCORE: i64 = 100;

/// Every placement's score, in order.
pub fn score(placements: &[Placement]) -> Vec<Score> {
    let most_pods = placements.iter().map(|p| p.pods).max().unwrap_or(0) as i64;
    placements
        .iter()
        .map(|placement| {
            let pods = if most_pods == 0 {
                0
            } else {
                placement.pods as i64 * MAX_SCORE / most_pods
            };
            let bin_packing =
                bin_packing(placement.scheduler, placement.nodes, &Resources::default());
            Score::new(placement.scheduler.profile(), pods, bin_packing)
        })
        .collect()
}

/// MostAllocated over the whole domain: per resource, requested (capped at allocatable) per
/// 100 of allocatable, averaged over the resources the domain has by the profile's
/// NodeResourcesFit resource weights (CPU and memory; 1 each by default). `extra` is added to
/// what the nodes request (the pods still to place there, for a domain's best possible score).
pub(crate) fn bin_packing(scheduler: &Scheduler, nodes: &[usize], extra: &Resources) -> i64 {
    let (mut allocatable, mut requested) = ([0i64; 2], [extra.milli_cpu, extra.memory]);
    for (held, asked) in nodes.iter().filter_map(|&n| scheduler.scored_usage(n)) {
        allocatable[0] += held.milli_cpu;
        allocatable[1] += held.memory;
        requested[0] += asked.milli_cpu;
        requested[1] += asked.memory;
    }
    let weight_of = |resource: &str| {
        scheduler
            .profile()
            .fit_resources
            .iter()
            .find(|(name, _)| name == resource)
            .map_or(0, |(_, weight)| *weight)
    };
    let weights = [weight_of("cpu"), weight_of("memory")];
    let (mut total, mut weight_sum) = (0, 0);
    for ((&held, asked), weight) in allocatable.iter().zip(requested).zip(weights) {
        if held > 0 && weight > 0 {
            total += asked.min(held) * MAX_SCORE / held * weight;
            weight_sum += weight;
        }
    }
    if weight_sum == 0 {
        0
    } else {
        total / weight_sum
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use df_model::Object;
    use df_state::ClusterState;

    /// Nodes of 5 CPU and 5000 bytes of memory, with the pods of `yaml` bound to them.
    fn state(nodes: &[&str], pods: &str) -> ClusterState {
        let mut yaml: String = nodes
            .iter()
            .map(|n| {
                format!(
                    "apiVersion: v1\nkind: Node\nmetadata: {{name: {n}}}\nstatus: {{allocatable: {{cpu: \"5\", memory: \"5000\", pods: \"110\"}}}}\n---\n"
                )
            })
            .collect();
        yaml.push_str(pods);
        let (manifests, problems) = df_manifest::parse_text(&Arc::from("state.yaml"), &yaml);
        assert!(problems.is_empty(), "{problems:?}");
        ClusterState::from_objects(manifests.into_iter().map(|m| m.object))
    }

    fn pod(name: &str, cpu: &str, memory: &str) -> df_model::Pod {
        let yaml = format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default}}\nspec:\n  containers: [{{name: c, resources: {{requests: {{cpu: \"{cpu}\", memory: \"{memory}\"}}}}}}]\n"
        );
        let (mut parsed, _) = df_manifest::parse_text(&Arc::from("pod.yaml"), &yaml);
        let Some(Object::Pod(pod)) = parsed.pop().map(|m| m.object) else {
            panic!("pod")
        };
        pod
    }

    /// Ported from upstream's placement bin-packing table (own numbers): what the gang asks
    /// plus what already runs, over what the placement's nodes hold; nodes outside the
    /// placement do not count.
    #[test]
    fn bin_packing_counts_the_gang_and_the_pods_already_there() {
        struct Case {
            name: &'static str,
            bound: &'static str,
            placement: &'static [usize],
            expected: i64,
        }
        let running = "apiVersion: v1\nkind: Pod\nmetadata: {name: old, namespace: default}\nspec:\n  nodeName: a\n  containers: [{name: c, resources: {requests: {cpu: \"1\", memory: \"1000\"}}}]\nstatus: {phase: Running}\n";
        let cases = [
            Case {
                // CPU 1 + 2 of 10 = 30, memory 500 + 1500 of 10000 = 20; node c is outside.
                name: "the gang's requests over the placement's two nodes",
                bound: "",
                placement: &[0, 1],
                expected: 25,
            },
            Case {
                // CPU 4 of 10 = 40, memory 3000 of 10000 = 30.
                name: "pods already running there count",
                bound: running,
                placement: &[0, 1],
                expected: 35,
            },
            Case {
                // Three nodes: CPU 3 of 15 = 20, memory 2000 of 15000 = 13.
                name: "a wider placement packs less tightly",
                bound: "",
                placement: &[0, 1, 2],
                expected: 16,
            },
        ];
        for case in cases {
            let state = state(&["a", "b", "c"], case.bound);
            let mut scheduler = Scheduler::new(&state, Profile::default());
            scheduler.assume(pod("g-0", "1", "500"), "a");
            scheduler.assume(pod("g-1", "2", "1500"), "b");
            let scores = score(&[Placement {
                pods: 2,
                nodes: case.placement,
                scheduler: &scheduler,
            }]);
            assert_eq!(scores[0].bin_packing, case.expected, "{}", case.name);
        }
    }

    /// Ported from upstream's PodGroupPodsCount normalisation: the placement with the most
    /// pods scores 100, the others in proportion; the totals add bin packing.
    #[test]
    fn pod_counts_are_normalised_to_the_most_placed() {
        let state = state(&["a", "b"], "");
        let scheduler = Scheduler::new(&state, Profile::default());
        let placements: Vec<Placement> = [4, 3, 0]
            .iter()
            .map(|&pods| Placement {
                pods,
                nodes: &[],
                scheduler: &scheduler,
            })
            .collect();
        let totals: Vec<(i64, i64)> = score(&placements)
            .iter()
            .map(|s| (s.pods, s.total))
            .collect();
        assert_eq!(totals, [(100, 100), (75, 75), (0, 0)]);
        assert_eq!(
            Score::new(&Profile::default(), 100, 30).to_string(),
            "130 (pods 100 + bin packing 30)"
        );
    }

    /// The profile's `plugins.placementScore` weights weigh the two parts, and its
    /// NodeResourcesFit resource weights weigh CPU against memory in bin packing (placement
    /// scoring is MostAllocated whatever the pod-by-pod strategy).
    #[test]
    fn the_profile_weighs_the_parts_and_the_resources() {
        let mut profile = Profile::default();
        profile
            .placement_score_weights
            .insert(NODE_RESOURCES_FIT.into(), 3);
        let weighted = Score::new(&profile, 100, 30);
        assert_eq!(
            (weighted.total, weighted.to_string()),
            (190, "190 (pods 100 x 1 + bin packing 30 x 3)".to_string())
        );
        profile.placement_score_weights.clear();
        assert_eq!(Score::new(&profile, 100, 30).total, 0);

        // CPU 1 + 2 of 10 = 30, memory 500 + 1500 of 10000 = 20: 25 with equal weights,
        // (30 x 3 + 20) / 4 = 27 with CPU weighing 3.
        let state = state(&["a", "b"], "");
        let by_cpu = Profile {
            fit_resources: vec![("cpu".into(), 3), ("memory".into(), 1)],
            ..Profile::default()
        };
        let cases = [(Profile::default(), 25), (by_cpu, 27)];
        for (profile, expected) in cases {
            let mut scheduler = Scheduler::new(&state, profile);
            scheduler.assume(pod("g-0", "1", "500"), "a");
            scheduler.assume(pod("g-1", "2", "1500"), "b");
            assert_eq!(
                bin_packing(&scheduler, &[0, 1], &Resources::default()),
                expected
            );
        }
    }
}
