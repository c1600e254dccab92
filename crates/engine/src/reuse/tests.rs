//! The fast path against the straightforward one: the same plan, pod by pod, by a scheduler
//! that keeps templates' work and by one that judges every node every time, must give equal
//! decisions (every verdict, score, tie and summary) and equal preemptions. Plans are
//! generated: replicas of a few templates, interleaved, with (anti-)affinity towards
//! themselves and from the running pods, host ports, taints, spreading, and pods taken off
//! again, as preemption and drains do.

use proptest::prelude::*;

use crate::plugins::pod_topology_spread::HardSpread;
use crate::tests::{pod, state};
use crate::*;

const ZONE: &str = "topology.kubernetes.io/zone";

#[derive(Debug, Clone)]
struct GenNode {
    zone: Option<u8>,
    cpus: u8,
    prefer_no_schedule: bool,
    /// Running pods: (app index, milli-CPU, anti-affinity to `batch` on this node's zone).
    pods: Vec<(u8, u16, bool)>,
}

/// What a template's replicas carry; each changes what a placement can touch.
#[derive(Debug, Clone)]
struct Template {
    app: u8,
    other_namespace: bool,
    milli_cpu: u16,
    host_port: bool,
    zone_selector: Option<u8>,
    /// Required anti-affinity to its own app: by hostname (true) or zone (false).
    anti_affinity: Option<bool>,
    /// Preferred affinity to its own app by zone, with this weight.
    preferred_affinity: Option<u8>,
    required_affinity: bool,
    spread: bool,
    tolerates: bool,
    priority: bool,
}

const APPS: [&str; 3] = ["batch", "web", "db"];

fn gen_node() -> impl Strategy<Value = GenNode> {
    (
        proptest::option::weighted(0.85, 0u8..3),
        2u8..8,
        proptest::bool::weighted(0.2),
        proptest::collection::vec((0u8..3, 100u16..1500, proptest::bool::weighted(0.15)), 0..3),
    )
        .prop_map(|(zone, cpus, prefer_no_schedule, pods)| GenNode {
            zone,
            cpus,
            prefer_no_schedule,
            pods,
        })
}

fn gen_template() -> impl Strategy<Value = Template> {
    (
        (0u8..3, proptest::bool::weighted(0.2), 100u16..2000),
        (
            proptest::bool::weighted(0.2),
            proptest::option::weighted(0.2, 0u8..3),
            proptest::option::weighted(0.3, any::<bool>()),
            proptest::option::weighted(0.3, 1u8..100),
        ),
        (
            proptest::bool::weighted(0.1),
            proptest::bool::weighted(0.25),
            proptest::bool::weighted(0.3),
            proptest::bool::weighted(0.2),
        ),
    )
        .prop_map(
            |(
                (app, other_namespace, milli_cpu),
                (host_port, zone_selector, anti_affinity, preferred_affinity),
                (required_affinity, spread, tolerates, priority),
            )| Template {
                app,
                other_namespace,
                milli_cpu,
                host_port,
                zone_selector,
                anti_affinity,
                preferred_affinity,
                required_affinity,
                spread,
                tolerates,
                priority,
            },
        )
}

/// One step of a plan: schedule a replica of template `n`; decide one among the nodes a
/// mask keeps, as gang planners decide within a domain (nothing assumed); or forget the `n`-th
/// pod placed.
#[derive(Debug, Clone, Copy)]
enum Step {
    Schedule(usize),
    Within(usize, u16),
    Forget(usize),
}

fn gen_step() -> impl Strategy<Value = Step> {
    prop_oneof![
        8 => (0usize..3).prop_map(Step::Schedule),
        2 => (0usize..3, any::<u16>()).prop_map(|(t, mask)| Step::Within(t, mask)),
        1 => (0usize..64).prop_map(Step::Forget),
    ]
}

fn cluster_yaml(nodes: &[GenNode]) -> String {
    let mut out = String::from(
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n---\n",
    );
    for (i, node) in nodes.iter().enumerate() {
        let zone = node
            .zone
            .map(|z| format!(", {ZONE}: z{z}"))
            .unwrap_or_default();
        let taints = if node.prefer_no_schedule {
            "[{key: spot, value: \"true\", effect: PreferNoSchedule}]"
        } else {
            "[]"
        };
        out += &format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: n{i}\n  labels: {{kubernetes.io/hostname: n{i}{zone}}}\nspec: {{taints: {taints}}}\nstatus:\n  allocatable: {{cpu: \"{}\", memory: 8Gi, pods: \"110\"}}\n---\n",
            node.cpus
        );
        for (p, (app, milli, anti)) in node.pods.iter().enumerate() {
            let affinity = if *anti {
                format!(
                    "  affinity: {{podAntiAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: [{{labelSelector: {{matchLabels: {{app: batch}}}}, topologyKey: {ZONE}}}]}}}}\n"
                )
            } else {
                String::new()
            };
            out += &format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}-{p}, namespace: default, labels: {{app: {}}}}}\nspec:\n  nodeName: n{i}\n  containers: [{{name: c, resources: {{requests: {{cpu: {milli}m}}}}}}]\n{affinity}status: {{phase: Running}}\n---\n",
                APPS[usize::from(*app)]
            );
        }
    }
    out
}

/// Replica `index` of `template`: only its name differs from the other replicas.
fn replica(template: &Template, index: usize) -> Pod {
    let app = APPS[usize::from(template.app)];
    let namespace = if template.other_namespace {
        "other"
    } else {
        "default"
    };
    let mut spec = String::from("spec:\n");
    if template.priority {
        spec += "  priorityClassName: high\n";
    }
    let ports = if template.host_port {
        ", ports: [{containerPort: 80, hostPort: 80}]"
    } else {
        ""
    };
    spec += &format!(
        "  containers: [{{name: c, resources: {{requests: {{cpu: {}m}}}}{ports}}}]\n",
        template.milli_cpu
    );
    if let Some(zone) = template.zone_selector {
        spec += &format!("  nodeSelector: {{{ZONE}: z{zone}}}\n");
    }
    if template.tolerates {
        spec += "  tolerations: [{key: spot, operator: Exists}]\n";
    }
    let own = format!("labelSelector: {{matchLabels: {{app: {app}}}}}");
    let mut affinity = Vec::new();
    if let Some(by_host) = template.anti_affinity {
        let key = if by_host {
            "kubernetes.io/hostname"
        } else {
            ZONE
        };
        affinity.push(format!(
            "podAntiAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: [{{{own}, topologyKey: {key}}}]}}"
        ));
    }
    let mut pod_affinity = Vec::new();
    if let Some(weight) = template.preferred_affinity {
        pod_affinity.push(format!(
            "preferredDuringSchedulingIgnoredDuringExecution: [{{weight: {weight}, podAffinityTerm: {{{own}, topologyKey: {ZONE}}}}}]"
        ));
    }
    if template.required_affinity {
        pod_affinity.push(format!(
            "requiredDuringSchedulingIgnoredDuringExecution: [{{{own}, topologyKey: {ZONE}}}]"
        ));
    }
    if !pod_affinity.is_empty() {
        affinity.push(format!("podAffinity: {{{}}}", pod_affinity.join(", ")));
    }
    if !affinity.is_empty() {
        spec += &format!("  affinity: {{{}}}\n", affinity.join(", "));
    }
    if template.spread {
        spec += &format!(
            "  topologySpreadConstraints: [{{maxSkew: 1, topologyKey: {ZONE}, whenUnsatisfiable: DoNotSchedule, {own}}}]\n"
        );
    }
    let mut pod = pod(&format!("  labels: {{app: {app}}}\n{spec}"));
    pod.metadata.name = format!("r{index}");
    pod.metadata.namespace = namespace.to_string();
    pod
}

/// What a plan exercised, for the companion test.
#[derive(Default)]
struct Exercised {
    /// Decisions that took a template's kept work.
    reused: usize,
    /// Of those, decisions on a node other than the one the last placement took.
    reused_with_domain: usize,
    decisions: usize,
    /// Decisions within a subset of the nodes.
    within: usize,
    /// Decisions that took kept work for a template with a DoNotSchedule spread constraint.
    reused_spread: usize,
    forgotten: usize,
    preempted: usize,
}

fn check(
    nodes: &[GenNode],
    templates: &[Template],
    steps: &[Step],
) -> Result<Exercised, TestCaseError> {
    let mut seen = Exercised::default();
    let cluster = state(&cluster_yaml(nodes));
    let mut fast = Scheduler::new(&cluster, Profile::default());
    let mut plain = fast.clone();
    plain.memory.off = true;
    let mut placed: Vec<(String, String)> = Vec::new();
    for (index, step) in steps.iter().enumerate() {
        match *step {
            Step::Schedule(t) => {
                let template = &templates[t % templates.len()];
                let pod = replica(template, index);
                let changes = fast.changes.len();
                let all: Vec<usize> = (0..nodes.len()).collect();
                if let Some((kept_at, kept)) = fast.memory.take(&pod, &all) {
                    // Only counting here: as the cycle will take it, then put back as it was.
                    let reachable = {
                        let cx = framework::Context::new(&fast, &pod);
                        let spread: HardSpread = framework::PreFilter::pre_filter(&cx);
                        (kept.spread_minimum == spread.minimum())
                            .then(|| reuse::changed_since(&cx, &spread, kept_at, &all))
                            .flatten()
                    };
                    fast.memory.keep(&pod, &all, kept_at, kept);
                    if let Some(changed) = reachable {
                        seen.reused += 1;
                        seen.reused_with_domain +=
                            usize::from(changed.iter().filter(|c| **c).count() > changes - kept_at);
                        seen.reused_spread += usize::from(template.spread);
                    }
                }
                let (want, want_preemption) = plain.schedule_and_assume(&pod);
                let (got, got_preemption) = fast.schedule_and_assume(&pod);
                prop_assert_eq!(&got, &want, "{} of {:?}", pod.metadata.name, template);
                prop_assert_eq!(&got_preemption, &want_preemption);
                seen.decisions += 1;
                seen.preempted += usize::from(want_preemption.is_some_and(|p| p.node.is_some()));
                if got.selected.is_some() {
                    placed.push((pod.metadata.namespace.clone(), pod.metadata.name.clone()));
                }
            }
            Step::Within(t, mask) => {
                let pod = replica(&templates[t % templates.len()], index);
                let within: Vec<usize> =
                    (0..nodes.len()).filter(|i| mask & (1 << i) != 0).collect();
                prop_assert_eq!(
                    fast.decide_within(&pod, &within),
                    plain.decide_within(&pod, &within)
                );
                seen.within += 1;
            }
            Step::Forget(n) if !placed.is_empty() => {
                let (namespace, name) = placed.remove(n % placed.len());
                prop_assert_eq!(
                    fast.forget(&namespace, &name),
                    plain.forget(&namespace, &name)
                );
                seen.forgotten += 1;
            }
            Step::Forget(_) => {}
        }
    }
    Ok(seen)
}

fn case() -> impl Strategy<Value = (Vec<GenNode>, Vec<Template>, Vec<Step>)> {
    (
        proptest::collection::vec(gen_node(), 2..10),
        proptest::collection::vec(gen_template(), 1..4),
        proptest::collection::vec(gen_step(), 1..40),
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn kept_work_gives_the_decisions_of_judging_every_node((nodes, templates, steps) in case()) {
        check(&nodes, &templates, &steps)?;
    }
}

/// The property is not vacuous: of plans drawn with a fixed seed, most take kept work, many
/// take it where a placement changed a whole domain, and some forget or preempt pods, decide
/// within some nodes or keep the work of a template that spreads.
#[test]
fn the_generated_plans_reach_the_fast_path() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(
        ProptestConfig::default(),
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let n = 96;
    let mut plans = [0usize; 6];
    let (mut reused, mut decisions) = (0, 0);
    for _ in 0..n {
        let (nodes, templates, steps) = case().new_tree(&mut runner).unwrap().current();
        let seen = check(&nodes, &templates, &steps)
            .unwrap_or_else(|e| panic!("{e}: {nodes:?} {templates:?} {steps:?}"));
        reused += seen.reused;
        decisions += seen.decisions;
        for (count, hit) in plans.iter_mut().zip([
            seen.reused > 0,
            seen.reused_with_domain > 0,
            seen.forgotten > 0,
            seen.preempted > 0,
            seen.within > 0,
            seen.reused_spread > 0,
        ]) {
            *count += usize::from(hit);
        }
    }
    eprintln!("reused {reused} of {decisions} decisions; plans {plans:?} of {n}");
    assert!(
        reused * 100 >= decisions * 30,
        "kept work taken: {reused} of {decisions}"
    );
    for (what, hits, min_percent) in [
        ("plans that take kept work", plans[0], 60),
        ("plans that take it past a changed domain", plans[1], 15),
        ("plans that forget a pod", plans[2], 20),
        ("plans that preempt", plans[3], 3),
        ("plans that decide within some nodes", plans[4], 30),
        ("plans that keep a spread template's work", plans[5], 10),
    ] {
        assert!(hits * 100 >= n * min_percent, "{what}: {hits} of {n}");
    }
}

/// The change log starts over once full: work kept before that has no changes to go by (it is
/// judged again in full), work kept after sees exactly the changes since.
#[test]
fn the_change_log_is_bounded_and_forgets_what_it_dropped() {
    let mut log = reuse::ChangeLog::default();
    for placed in 0..reuse::LOGGED_CHANGES {
        log.push(placed);
    }
    assert_eq!(
        log.since(reuse::LOGGED_CHANGES - 2),
        Some(&[65534, 65535][..])
    );
    log.push(7);
    log.push(8);
    // 65,536 dropped, 2 kept: 65,538 changes in all.
    assert_eq!(log.len(), reuse::LOGGED_CHANGES + 2);
    for (seen, want) in [
        (0, None),
        (reuse::LOGGED_CHANGES - 1, None),
        (reuse::LOGGED_CHANGES, Some(&[7, 8][..])),
        (reuse::LOGGED_CHANGES + 1, Some(&[8][..])),
        (reuse::LOGGED_CHANGES + 2, Some(&[][..])),
    ] {
        assert_eq!(log.since(seen), want, "seen {seen}");
    }
}
