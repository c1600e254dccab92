//! The fidelity layer's property tests: invariants upstream's framework guarantees, checked
//! over generated small clusters (the ported plugin tables live in each plugin's file).
//! - The unschedulable summary says `0/N` for the N candidates, and its per-reason counts add
//!   up to the reasons the nodes were rejected with (every rejected node has at least one).
//! - Removing a constraint from the pod never makes a feasible node infeasible.
//! - Every normalised score is within 0..100, and the selected node has the top total.

use proptest::prelude::*;

use super::tests::{pod, state};
use super::*;

#[derive(Debug, Clone)]
struct GenNode {
    zone: Option<u8>,
    tainted: bool,
    cordoned: bool,
    cpus: u8,
    /// (app label index, milli-CPU request, uses host port 80)
    pods: Vec<(u8, u16, bool)>,
}

/// The incoming pod's optional constraints; each `Some`/`true` can be removed on its own.
#[derive(Debug, Clone, Default)]
struct GenPod {
    milli_cpu: Option<u16>,
    zone_selector: Option<u8>,
    host_port: bool,
    anti_affinity_to_web: bool,
    affinity_to_db_zone: bool,
    hard_spread: bool,
    soft_spread: bool,
    preferred_zone: Option<u8>,
    named_node: Option<u8>,
    tolerates_taint: bool,
}

const APPS: [&str; 2] = ["web", "db"];

fn gen_node() -> impl Strategy<Value = GenNode> {
    (
        proptest::option::weighted(0.8, 0u8..3),
        proptest::bool::weighted(0.2),
        proptest::bool::weighted(0.1),
        1u8..6,
        proptest::collection::vec((0u8..2, 0u16..1500, proptest::bool::weighted(0.15)), 0..4),
    )
        .prop_map(|(zone, tainted, cordoned, cpus, pods)| GenNode {
            zone,
            tainted,
            cordoned,
            cpus,
            pods,
        })
}

fn gen_pod() -> impl Strategy<Value = GenPod> {
    (
        (
            proptest::option::of(100u16..3000),
            proptest::option::weighted(0.3, 0u8..3),
            proptest::bool::weighted(0.3),
            proptest::bool::weighted(0.3),
            proptest::bool::weighted(0.3),
        ),
        (
            proptest::bool::weighted(0.3),
            proptest::bool::weighted(0.3),
            proptest::option::weighted(0.3, 0u8..3),
            proptest::option::weighted(0.2, 0u8..7),
            proptest::bool::weighted(0.3),
        ),
    )
        .prop_map(
            |(
                (milli_cpu, zone_selector, host_port, anti_affinity_to_web, affinity_to_db_zone),
                (hard_spread, soft_spread, preferred_zone, named_node, tolerates_taint),
            )| GenPod {
                milli_cpu,
                zone_selector,
                host_port,
                anti_affinity_to_web,
                affinity_to_db_zone,
                hard_spread,
                soft_spread,
                preferred_zone,
                named_node,
                tolerates_taint,
            },
        )
}

fn cluster_yaml(nodes: &[GenNode]) -> String {
    let mut out = String::new();
    for (i, node) in nodes.iter().enumerate() {
        let zone = node
            .zone
            .map(|z| format!(", zone: z{z}"))
            .unwrap_or_default();
        let taints = if node.tainted {
            "[{key: dedicated, value: gpu, effect: NoSchedule}]"
        } else {
            "[]"
        };
        out += &format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: n{i}\n  labels: {{kubernetes.io/hostname: n{i}{zone}}}\nspec: {{unschedulable: {}, taints: {taints}}}\nstatus:\n  allocatable: {{cpu: \"{}\", memory: 8Gi, pods: \"110\"}}\n---\n",
            node.cordoned, node.cpus
        );
        for (p, (app, milli, port)) in node.pods.iter().enumerate() {
            let ports = if *port {
                ", ports: [{containerPort: 80, hostPort: 80}]"
            } else {
                ""
            };
            out += &format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: p{i}-{p}, namespace: default, labels: {{app: {}}}}}\nspec:\n  nodeName: n{i}\n  containers: [{{name: c, resources: {{requests: {{cpu: {milli}m}}}}{ports}}}]\nstatus: {{phase: Running}}\n---\n",
                APPS[usize::from(*app)]
            );
        }
    }
    out
}

fn pod_yaml(spec: &GenPod) -> String {
    let mut out = String::from("  labels: {app: api}\nspec:\n");
    let requests = spec
        .milli_cpu
        .map(|m| format!(", resources: {{requests: {{cpu: {m}m}}}}"))
        .unwrap_or_default();
    let ports = if spec.host_port {
        ", ports: [{containerPort: 80, hostPort: 80}]"
    } else {
        ""
    };
    out += &format!("  containers: [{{name: c{requests}{ports}}}]\n");
    if let Some(zone) = spec.zone_selector {
        out += &format!("  nodeSelector: {{zone: z{zone}}}\n");
    }
    if spec.tolerates_taint {
        out += "  tolerations: [{key: dedicated, operator: Exists}]\n";
    }
    let mut affinity = String::new();
    if spec.preferred_zone.is_some() || spec.named_node.is_some() {
        affinity += "    nodeAffinity:\n";
        if let Some(node) = spec.named_node {
            affinity += &format!(
                "      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchFields: [{{key: metadata.name, operator: In, values: [n{node}]}}]\n"
            );
        }
        if let Some(zone) = spec.preferred_zone {
            affinity += &format!(
                "      preferredDuringSchedulingIgnoredDuringExecution:\n      - weight: 10\n        preference: {{matchExpressions: [{{key: zone, operator: In, values: [z{zone}]}}]}}\n"
            );
        }
    }
    if spec.affinity_to_db_zone {
        affinity += "    podAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {matchLabels: {app: db}}\n        topologyKey: zone\n";
    }
    if spec.anti_affinity_to_web {
        affinity += "    podAntiAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n      - labelSelector: {matchLabels: {app: web}}\n        topologyKey: kubernetes.io/hostname\n";
    }
    if !affinity.is_empty() {
        out += &format!("  affinity:\n{affinity}");
    }
    let mut spread = String::new();
    for (on, when) in [
        (spec.hard_spread, "DoNotSchedule"),
        (spec.soft_spread, "ScheduleAnyway"),
    ] {
        if on {
            spread += &format!(
                "  - {{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: {when}, labelSelector: {{matchLabels: {{app: web}}}}}}\n"
            );
        }
    }
    if !spread.is_empty() {
        out += &format!("  topologySpreadConstraints:\n{spread}");
    }
    out
}

/// The pod with each of its constraints removed, one at a time. Not one of them when the pod
/// has a hard spread constraint and the removal widens the nodes it selects: under the default
/// `nodeAffinityPolicy: Honor`, PodTopologySpread counts only domains of nodes that match the
/// pod's nodeSelector and required node affinity (matchFields included), so a wider selection
/// can add an empty domain, lower the global minimum and rightly make a node infeasible, as
/// upstream does.
fn relaxations(spec: &GenPod) -> Vec<GenPod> {
    let mut out = Vec::new();
    let mut relax = |apply: &dyn Fn(&mut GenPod)| {
        let mut relaxed = spec.clone();
        apply(&mut relaxed);
        out.push(relaxed);
    };
    relax(&|p| p.milli_cpu = None);
    relax(&|p| p.host_port = false);
    relax(&|p| p.anti_affinity_to_web = false);
    relax(&|p| p.affinity_to_db_zone = false);
    relax(&|p| p.hard_spread = false);
    relax(&|p| p.tolerates_taint = true);
    if !spec.hard_spread {
        relax(&|p| p.zone_selector = None);
        relax(&|p| p.named_node = None);
    }
    out
}

fn feasible(decision: &Decision) -> Vec<&str> {
    decision
        .nodes
        .iter()
        .filter(|v| v.feasible)
        .map(|v| v.name.as_str())
        .collect()
}

/// `(N, [count per reason])` of `0/N nodes are available: c1 r1, c2 r2.`, or `None` for a
/// PreFilter rejection (one message, no counts).
fn summary_counts(summary: &str) -> Option<(usize, Vec<usize>)> {
    let rest = summary.strip_prefix("0/")?;
    let (total, rest) = rest.split_once(" nodes are available")?;
    let counts = rest
        .trim_start_matches(": ")
        .trim_end_matches('.')
        .split(", ")
        .filter(|part| !part.is_empty())
        .map(|part| part.split_once(' ').and_then(|(n, _)| n.parse().ok()))
        .collect::<Option<Vec<usize>>>()?;
    Some((total.parse().ok()?, counts))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn framework_invariants(nodes in proptest::collection::vec(gen_node(), 1..6), spec in gen_pod()) {
        let cluster = state(&cluster_yaml(&nodes));
        let scheduler = Scheduler::new(&cluster, Profile::default());
        let decision = scheduler.decide(&pod(&pod_yaml(&spec)));
        prop_assert_eq!(decision.nodes.len(), nodes.len());

        // The summary's counts add up.
        match &decision.summary {
            Some(summary) => {
                prop_assert!(decision.selected.is_none());
                let rejected: usize = decision.nodes.iter().map(|v| v.reasons.len()).sum();
                prop_assert!(decision.nodes.iter().all(|v| !v.feasible && !v.reasons.is_empty()));
                if let Some((total, counts)) = summary_counts(summary) {
                    prop_assert_eq!(total, nodes.len(), "{}", summary);
                    prop_assert_eq!(counts.iter().sum::<usize>(), rejected, "{}", summary);
                } else {
                    prop_assert_eq!(
                        summary.as_str(),
                        format!("0/{} nodes are available: pod affinity terms conflict.", nodes.len())
                    );
                }
            }
            None => prop_assert!(decision.selected.is_some()),
        }

        // Scores are normalised to 0..100; the selected node has the top total.
        let best = decision.nodes.iter().filter_map(|v| v.score).max();
        for verdict in decision.nodes.iter().filter(|v| v.feasible) {
            for (plugin, score) in &verdict.scores {
                prop_assert!((0..=100).contains(score), "{} {} on {}", plugin, score, verdict.name);
            }
        }
        if let Some(selected) = decision.selected_verdict() {
            prop_assert_eq!(selected.score, best);
        }

        // A node feasible for the pod stays feasible when a constraint is removed.
        let before = feasible(&decision);
        for relaxed in relaxations(&spec) {
            let after_decision = scheduler.decide(&pod(&pod_yaml(&relaxed)));
            let after = feasible(&after_decision);
            for node in &before {
                prop_assert!(after.contains(node), "{} lost by relaxing to {:?}", node, relaxed);
            }
        }
    }
}
