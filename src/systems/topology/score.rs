//! kube-scheduler's placement scorers (KEP-5732, v1.36): once the gang has been placed in every
//! candidate domain, each domain that took it is scored by the sum of
//! - `PodGroupPodsCount`: the group's pods placed there (bound ones counted), normalised so the
//!   domain that takes the most scores 100;
//! - `NodeResourcesFit`'s placement score, bin packing: over CPU and memory (weight 1 each),
//!   what the domain's nodes request once the gang is placed (non-zero defaults for pods that
//!   request nothing) per 100 of what they hold, so the tightest domain scores highest.
//!
//! The highest total wins; kube-scheduler breaks a tie at random, the plan by domain order.

use std::fmt;

use crate::sched::{Resources, Scheduler};

/// A domain that took the gang, as the scorers see it.
pub struct Placement<'p, 'a> {
    /// Pods of the group placed or bound there.
    pub pods: usize,
    /// The domain's nodes (state indexes).
    pub nodes: &'p [usize],
    /// The state with the gang placed there.
    pub scheduler: &'p Scheduler<'a>,
}

/// One placement's score: its total and the two parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Score {
    pub total: i64,
    pub pods: i64,
    pub bin_packing: i64,
}

impl fmt::Display for Score {
    /// `130 (pods 100 + bin packing 30)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} (pods {} + bin packing {})",
            self.total, self.pods, self.bin_packing
        )
    }
}

/// The highest score a scorer gives (`framework.MaxNodeScore`).
pub const MAX_SCORE: i64 = 100;

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
            Score {
                total: pods + bin_packing,
                pods,
                bin_packing,
            }
        })
        .collect()
}

/// MostAllocated over the whole domain: per resource, requested (capped at allocatable) per
/// 100 of allocatable, averaged over the resources the domain has. `extra` is added to what
/// the nodes request (the pods still to place there, for a domain's best possible score).
pub fn bin_packing(scheduler: &Scheduler, nodes: &[usize], extra: &Resources) -> i64 {
    let (mut allocatable, mut requested) = ([0i64; 2], [extra.milli_cpu, extra.memory]);
    for (held, asked) in nodes.iter().filter_map(|&n| scheduler.scored_usage(n)) {
        allocatable[0] += held.milli_cpu;
        allocatable[1] += held.memory;
        requested[0] += asked.milli_cpu;
        requested[1] += asked.memory;
    }
    let scores: Vec<i64> = allocatable
        .iter()
        .zip(requested)
        .filter(|&(&held, _)| held > 0)
        .map(|(&held, asked)| asked.min(held) * MAX_SCORE / held)
        .collect();
    if scores.is_empty() {
        0
    } else {
        scores.iter().sum::<i64>() / scores.len() as i64
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::cluster::ClusterState;
    use crate::manifest;
    use crate::model::Object;
    use crate::sched::Profile;

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
        let (manifests, problems) = manifest::parse_text(&Arc::from("state.yaml"), &yaml);
        assert!(problems.is_empty(), "{problems:?}");
        ClusterState::from_objects(manifests.into_iter().map(|m| m.object))
    }

    fn pod(name: &str, cpu: &str, memory: &str) -> crate::model::Pod {
        let yaml = format!(
            "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default}}\nspec:\n  containers: [{{name: c, resources: {{requests: {{cpu: \"{cpu}\", memory: \"{memory}\"}}}}}}]\n"
        );
        let (mut parsed, _) = manifest::parse_text(&Arc::from("pod.yaml"), &yaml);
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
            Score {
                total: 130,
                pods: 100,
                bin_packing: 30
            }
            .to_string(),
            "130 (pods 100 + bin packing 30)"
        );
    }
}
