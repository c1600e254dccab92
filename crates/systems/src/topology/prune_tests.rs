//! The pruned domain choice equals trying every domain (issue 31 item 18). [`plan_in_domains`]
//! turns a domain down on capacity without placing its pods, and in a scored round leaves
//! untried the domains whose ceiling cannot beat a domain already placed. Here, on generated
//! racks and spines, gangs and modes, an oracle places the gang in every domain of every
//! round on its own copy of the scheduler, keeps the first that takes it (or, in a scored
//! round, the best scored of all that take it), and the plan must keep the same domain with
//! the same placements.

use proptest::prelude::*;

use super::scored::ScoredRound;
use super::*;
use crate::gang::{Gang, place};
use df_engine::{Profile, Scheduler};

/// A generated cluster: per node its CPU, its pods' CPU already bound, whether it carries a
/// taint the gang does not tolerate, and its rack; per rack its spine.
#[derive(Debug, Clone)]
struct Cluster {
    nodes: Vec<(u32, u32, bool, usize)>,
    spines: Vec<usize>,
}

fn cluster() -> impl Strategy<Value = Cluster> {
    (2usize..=4).prop_flat_map(|racks| {
        let node = (
            prop_oneof![Just(2u32), Just(4), Just(8)],
            0u32..=3,
            prop::bool::weighted(0.15),
            0..racks,
        );
        (
            prop::collection::vec(node, 2..=7),
            prop::collection::vec(0usize..2, racks),
        )
            .prop_map(|(nodes, spines)| Cluster { nodes, spines })
    })
}

fn state(cluster: &Cluster) -> ClusterState {
    let mut yaml = String::new();
    for (i, (cpu, used, tainted, _)) in cluster.nodes.iter().enumerate() {
        let taint = if *tainted {
            "{key: gpu, effect: NoSchedule}"
        } else {
            ""
        };
        yaml.push_str(&format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: n{i}\n  labels: {{kubernetes.io/hostname: n{i}}}\nspec:\n  taints: [{taint}]\nstatus:\n  allocatable: {{cpu: \"{cpu}\", memory: 8Gi, pods: \"110\"}}\n---\n"
        ));
        let used = *used.min(cpu);
        if used > 0 {
            yaml.push_str(&format!(
                "apiVersion: v1\nkind: Pod\nmetadata:\n  name: busy-{i}\n  namespace: default\nspec:\n  nodeName: n{i}\n  containers: [{{name: c, resources: {{requests: {{cpu: \"{used}\"}}}}}}]\nstatus:\n  phase: Running\n---\n"
            ));
        }
    }
    let (manifests, problems) = df_manifest::parse_text(&std::sync::Arc::from("c.yaml"), &yaml);
    assert!(problems.is_empty(), "{problems:?}");
    ClusterState::from_objects(manifests.into_iter().map(|m| m.object))
}

/// Racks, then spines, each round in `order`.
fn request(cluster: &Cluster, mode: Mode, order: &Order, rounds: usize) -> Request {
    let racks = cluster.spines.len();
    let rack_nodes = |rack: usize| -> Vec<usize> {
        (0..cluster.nodes.len())
            .filter(|&n| cluster.nodes[n].3 == rack)
            .collect()
    };
    let rack_round = Round {
        level: "rack".into(),
        domains: (0..racks)
            .map(|r| Domain {
                name: format!("r{r}"),
                nodes: rack_nodes(r),
            })
            .collect(),
        order: order.clone(),
    };
    let spine_round = Round {
        level: "spine".into(),
        domains: (0..2)
            .map(|s| Domain {
                name: format!("s{s}"),
                nodes: (0..racks)
                    .filter(|&r| cluster.spines[r] == s)
                    .flat_map(rack_nodes)
                    .collect(),
            })
            .collect(),
        order: order.clone(),
    };
    let node_domains = cluster
        .nodes
        .iter()
        .map(|(_, _, _, rack)| {
            vec![
                Some(format!("s{}", cluster.spines[*rack])),
                Some(format!("r{rack}")),
            ]
        })
        .collect();
    Request {
        system: "test-topology",
        mode,
        constraint: format!("highest {rounds}"),
        levels: vec!["spine".into(), "rack".into()],
        node_domains,
        rounds: [rack_round, spine_round].into_iter().take(rounds).collect(),
        warnings: Vec::new(),
        pinned: None,
    }
}

/// The domain every round's every domain tried would keep, and the gang's placements there:
/// `None` when no domain takes it.
fn oracle(
    scheduler: &Scheduler,
    gang: &Gang,
    request: &Request,
) -> Option<(String, BTreeMap<String, Option<String>>)> {
    let (pending, bound) = pending_pods(gang, scheduler.state());
    for round in &request.rounds {
        let mut scored = ScoredRound::new(scheduler, &pending, bound.len(), &round.domains);
        for domain in &round.domains {
            let mut trial = scheduler.branch();
            let plan = place::plan_pod_by_pod(&mut trial, gang, false, None, Some(&domain.nodes));
            if plan.status != GangStatus::Scheduled {
                continue;
            }
            if round.order == Order::Given {
                return Some((domain.name.clone(), plan.placements));
            }
            scored.took(domain, plan, trial);
        }
        if let Some(best) = scored.best(gang.minimum(), &round.level, &mut Vec::new()) {
            return Some((best.domain.name.clone(), best.plan.placements));
        }
    }
    None
}

/// A generated case: the cluster, the gang's pods, CPUs each and spare members (its minimum
/// is the pods less the spares, at least one), hard or soft, scored or in the given order,
/// racks only or racks then spines.
type Case = (Cluster, usize, u32, usize, bool, bool, usize);

fn case() -> impl Strategy<Value = Case> {
    (
        cluster(),
        1usize..=6,
        1u32..=3,
        0usize..=2,
        any::<bool>(),
        any::<bool>(),
        1usize..=2,
    )
}

/// What a case exercised: a domain chosen or none, and the pruning the property is about (a
/// domain turned down on capacity, a scored domain left untried under its ceiling) that a case
/// where the first domain takes the gang never reaches.
#[derive(Debug, Default)]
struct Exercised {
    chosen: bool,
    capacity_turn_down: bool,
    ceiling_untried: bool,
    scored_against_another: bool,
}

fn check(
    (cluster, pods, cpu, spare, hard, scored, rounds): &Case,
) -> Result<Exercised, TestCaseError> {
    let state = state(cluster);
    let min = i64::try_from(pods.saturating_sub(*spare).max(1)).unwrap();
    let gang = super::fixtures::cpu_gang("g", *pods, *cpu, min);
    let order = if *scored {
        Order::BestScore
    } else {
        Order::Given
    };
    let mode = if *hard { Mode::Hard } else { Mode::Soft };
    let request = request(cluster, mode, &order, *rounds);
    let scheduler = Scheduler::new(&state, Profile::default());
    let expected = oracle(&scheduler, &gang, &request);
    let mut planned = scheduler.branch();
    let plan = plan_in_domains(&mut planned, &gang, &request, false, &mut |s, within| {
        Ok(place::plan_pod_by_pod(s, &gang, false, None, within))
    })
    .map_err(|e| TestCaseError::fail(format!("plan_in_domains: {e:?}")))?;
    let chosen = plan
        .topology
        .as_ref()
        .and_then(|t| t.chosen.last())
        .map(|d| d.domain.clone());
    let reasons = |what: &str| plan.rejected.iter().any(|r| r.reason.contains(what));
    let seen = Exercised {
        chosen: expected.is_some(),
        capacity_turn_down: reasons("pods fit (free resources and pod slots"),
        ceiling_untried: reasons("not placed: its placement score would be at most"),
        scored_against_another: reasons("needed; placement score"),
    };
    match expected {
        Some((domain, placements)) => {
            prop_assert_eq!(chosen, Some(domain));
            prop_assert_eq!(plan.placements, placements);
        }
        None => prop_assert_eq!(chosen, None),
    }
    Ok(seen)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn the_pruned_choice_equals_trying_every_domain(case in case()) {
        check(&case)?;
    }
}

/// The property is not vacuous: of 300 cases drawn with a fixed seed, many keep a domain and
/// some keep none, many turn a domain down on capacity, and scored rounds both leave a domain
/// untried under its ceiling and compare the scores of domains that took the gang.
#[test]
fn the_generated_cases_prune() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(
        ProptestConfig::default(),
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let n = 300;
    let (mut chosen, mut capacity, mut ceiling, mut compared) = (0, 0, 0, 0);
    for _ in 0..n {
        let case = case().new_tree(&mut runner).unwrap().current();
        let seen = check(&case).unwrap_or_else(|e| panic!("{e}: {case:?}"));
        chosen += usize::from(seen.chosen);
        capacity += usize::from(seen.capacity_turn_down);
        ceiling += usize::from(seen.ceiling_untried);
        compared += usize::from(seen.scored_against_another);
    }
    eprintln!(
        "chosen {chosen}, capacity {capacity}, ceiling {ceiling}, compared {compared} of {n}"
    );
    for (what, hits, min_percent) in [
        ("a domain chosen", chosen, 50),
        ("no domain chosen", n - chosen, 15),
        ("a domain turned down on capacity", capacity, 50),
        ("a scored domain left untried under its ceiling", ceiling, 5),
        ("scored domains compared", compared, 2),
    ] {
        assert!(hits * 100 >= n * min_percent, "{what}: {hits} of {n}");
    }
}
