//! The fidelity layer's property tests: invariants upstream's framework guarantees, checked
//! over generated small clusters (the ported plugin tables live in each plugin's file).
//! - The unschedulable summary says `0/N` for the N candidates, and its per-reason counts add
//!   up to the reasons the nodes were rejected with (every rejected node has at least one).
//! - Removing a constraint from the pod never makes a feasible node infeasible.
//! - Every normalised score is within 0..100, and the selected node has the top total.
//! - A pod's inputs beyond its own spec count the same way: its volume claim (bound to a zonal
//!   volume, or waiting for its first consumer in a class limited to a zone), its controller
//!   (the default spreading of a ReplicaSet's pods) can be removed without losing a node.
//! - A gated pod runs no cycle (nothing looked at, nothing chosen); without its gates it gets
//!   exactly the decision of the same pod never gated.

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
    claim: Option<GenClaim>,
    /// Controlled by the ReplicaSet `api-rs`: the system default spreading applies.
    owned: bool,
}

/// The incoming pod's one PersistentVolumeClaim, `data`.
#[derive(Debug, Clone, Copy)]
enum GenClaim {
    /// Bound to a volume whose node affinity requires zone `z{0}`.
    Bound(u8),
    /// Unbound, of a WaitForFirstConsumer class that provisions in zone `z{0}` only, or
    /// anywhere.
    Delayed(Option<u8>),
}

fn gen_claim() -> impl Strategy<Value = GenClaim> {
    prop_oneof![
        (0u8..3).prop_map(GenClaim::Bound),
        proptest::option::of(0u8..3).prop_map(GenClaim::Delayed),
    ]
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
        (
            proptest::option::weighted(0.4, gen_claim()),
            proptest::bool::weighted(0.4),
        ),
    )
        .prop_map(
            |(
                (milli_cpu, zone_selector, host_port, anti_affinity_to_web, affinity_to_db_zone),
                (hard_spread, soft_spread, preferred_zone, named_node, tolerates_taint),
                (claim, owned),
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
                claim,
                owned,
            },
        )
}

/// The storage every generated cluster has: a WaitForFirstConsumer class per zone and one for
/// anywhere (a CSI provisioner, so claims are provisioned, not matched), the incoming pod's
/// claims in each form (the pod names the one it uses), the zonal volumes bound ones sit on,
/// and the ReplicaSet `api-rs` (selecting `app: api`).
fn storage_and_owner_yaml() -> String {
    let mut out = String::new();
    let class = |name: &str, allowed: &str| {
        format!(
            "apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {{name: {name}}}\nprovisioner: csi.example.io\nvolumeBindingMode: WaitForFirstConsumer\n{allowed}---\n"
        )
    };
    out += &class("anywhere", "");
    for z in 0..3 {
        out += &class(
            &format!("in-z{z}"),
            &format!(
                "allowedTopologies: [{{matchLabelExpressions: [{{key: zone, values: [z{z}]}}]}}]\n"
            ),
        );
        out += &format!(
            "apiVersion: v1\nkind: PersistentVolume\nmetadata: {{name: pv-z{z}}}\nspec:\n  storageClassName: anywhere\n  capacity: {{storage: 1Gi}}\n  accessModes: [ReadWriteOnce]\n  claimRef: {{namespace: default, name: bound-z{z}}}\n  nodeAffinity: {{required: {{nodeSelectorTerms: [{{matchExpressions: [{{key: zone, operator: In, values: [z{z}]}}]}}]}}}}\nstatus: {{phase: Bound}}\n---\n"
        );
        out += &claim_yaml(
            &format!("bound-z{z}"),
            &format!("storageClassName: anywhere, volumeName: pv-z{z}"),
            ", annotations: {pv.kubernetes.io/bind-completed: \"yes\"}",
        );
        out += &claim_yaml(
            &format!("later-z{z}"),
            &format!("storageClassName: in-z{z}"),
            "",
        );
    }
    out += &claim_yaml("later", "storageClassName: anywhere", "");
    out += "apiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: api-rs, namespace: default}\nspec:\n  selector: {matchLabels: {app: api}}\n---\n";
    out
}

fn claim_yaml(name: &str, spec: &str, annotations: &str) -> String {
    format!(
        "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {{name: {name}, namespace: default{annotations}}}\nspec: {{accessModes: [ReadWriteOnce], resources: {{requests: {{storage: 1Gi}}}}, {spec}}}\n---\n"
    )
}

fn cluster_yaml(nodes: &[GenNode]) -> String {
    let mut out = storage_and_owner_yaml();
    for (i, node) in nodes.iter().enumerate() {
        let zone = node
            .zone
            .map(|z| format!(", zone: z{z}, topology.kubernetes.io/zone: z{z}"))
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
    let mut out = String::from("  labels: {app: api}\n");
    if spec.owned {
        out += "  ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: api-rs, controller: true}]\n";
    }
    out += "spec:\n";
    if let Some(claim) = spec.claim {
        let name = match claim {
            GenClaim::Bound(z) => format!("bound-z{z}"),
            GenClaim::Delayed(Some(z)) => format!("later-z{z}"),
            GenClaim::Delayed(None) => "later".to_string(),
        };
        out +=
            &format!("  volumes: [{{name: data, persistentVolumeClaim: {{claimName: {name}}}}}]\n");
    }
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
    relax(&|p| p.claim = None);
    relax(&|p| p.owned = false);
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
        .map(|v| v.name)
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

/// The generated storage and controller are read as meant, so the properties below exercise
/// them: on nodes in z0, z1 and none, each claim form rejects the nodes outside its zone with
/// upstream's reason, and the owned pod's default spreading counts its ReplicaSet's pods.
#[test]
fn the_generated_storage_rejects_the_nodes_outside_its_zone() {
    let node = |zone: Option<u8>| GenNode {
        zone,
        tainted: false,
        cordoned: false,
        cpus: 4,
        pods: Vec::new(),
    };
    let cluster = state(&cluster_yaml(&[node(Some(0)), node(Some(1)), node(None)]));
    let scheduler = Scheduler::new(&cluster, Profile::default());
    let affinity = "node(s) had volume node affinity conflict";
    let bind = "node(s) didn't find available persistent volumes to bind";
    let cases = [
        (GenClaim::Bound(0), ["", affinity, affinity]),
        (GenClaim::Bound(1), [affinity, "", affinity]),
        (GenClaim::Delayed(Some(1)), [bind, "", bind]),
        (GenClaim::Delayed(None), ["", "", ""]),
    ];
    for (claim, want) in cases {
        let spec = GenPod {
            claim: Some(claim),
            ..GenPod::default()
        };
        let decision = scheduler.decide(&pod(&pod_yaml(&spec)));
        assert_eq!(super::tests::reasons(&decision), want, "{claim:?}");
    }
    // An `api` pod runs on n0: the ReplicaSet's pod scores n0 below n1 (both zoned), the pod
    // without a controller scores them alike.
    let running = "apiVersion: v1\nkind: Pod\nmetadata: {name: api-0, namespace: default, labels: {app: api}}\nspec: {nodeName: n0, containers: [{name: c}]}\nstatus: {phase: Running}\n";
    let cluster = state(&(cluster_yaml(&[node(Some(0)), node(Some(1))]) + running));
    let scheduler = Scheduler::new(&cluster, Profile::default());
    for (owned, n0_below_n1) in [(true, true), (false, false)] {
        let spec = GenPod {
            owned,
            ..GenPod::default()
        };
        let decision = scheduler.decide(&pod(&pod_yaml(&spec)));
        let spread = |i: usize| decision.nodes[i].scores["PodTopologySpread"];
        assert_eq!(spread(0) < spread(1), n0_below_n1, "owned: {owned}");
    }
}

/// What one generated case exercised: with no node selected the top-score check asserts
/// nothing, with no feasible node the relaxations check nothing, with a pod that fits the
/// summary's counts are not checked; the companion test counts these.
#[derive(Debug, Default)]
struct Exercised {
    selected: bool,
    feasible_kept: usize,
    rejected: bool,
}

fn case() -> impl Strategy<Value = (Vec<GenNode>, GenPod)> {
    (proptest::collection::vec(gen_node(), 1..6), gen_pod())
}

fn check(nodes: &[GenNode], spec: &GenPod) -> Result<Exercised, TestCaseError> {
    let mut seen = Exercised::default();
    let cluster = state(&cluster_yaml(nodes));
    let scheduler = Scheduler::new(&cluster, Profile::default());
    let decision = scheduler.decide(&pod(&pod_yaml(spec)));
    prop_assert_eq!(decision.nodes.len(), nodes.len());

    // The summary's counts add up.
    match &decision.summary {
        Some(summary) => {
            prop_assert!(decision.selected.is_none());
            let rejected: usize = decision.nodes.iter().map(|v| v.reasons.len()).sum();
            prop_assert!(
                decision
                    .nodes
                    .iter()
                    .all(|v| !v.feasible && !v.reasons.is_empty())
            );
            // The generator names at most one node in `matchFields`, so NodeAffinity's
            // PreFilter never finds terms that share no node ("pod affinity terms
            // conflict", the one summary without counts): every summary has them.
            let (total, counts) = summary_counts(summary)
                .ok_or_else(|| TestCaseError::fail(format!("no counts in {summary:?}")))?;
            seen.rejected = true;
            prop_assert_eq!(total, nodes.len(), "{}", summary);
            prop_assert_eq!(counts.iter().sum::<usize>(), rejected, "{}", summary);
        }
        None => prop_assert!(decision.selected.is_some()),
    }

    // Scores are normalised to 0..100; the selected node has the top total.
    let best = decision.nodes.iter().filter_map(|v| v.score).max();
    for verdict in decision.nodes.iter().filter(|v| v.feasible) {
        for (plugin, score) in verdict.scores.iter() {
            prop_assert!(
                (0..=100).contains(&score),
                "{} {} on {}",
                plugin,
                score,
                verdict.name
            );
        }
    }
    if let Some(selected) = decision.selected_verdict() {
        seen.selected = true;
        prop_assert_eq!(selected.score, best);
    }

    // A gated pod runs no cycle; ungated, it is the pod never gated.
    let text = pod_yaml(spec);
    prop_assert_eq!(text.matches("spec:\n").count(), 1, "{}", text);
    let gated = pod(&text.replace(
        "spec:\n",
        "spec:\n  schedulingGates: [{name: example.com/hold}]\n",
    ));
    let held = scheduler.decide(&gated);
    prop_assert_eq!(
        held.summary.as_deref(),
        Some("waiting for scheduling gates: [example.com/hold]")
    );
    prop_assert!(held.selected.is_none() && held.nodes.is_empty());
    let mut ungated = gated.clone();
    ungated.spec.scheduling_gates.clear();
    let again = scheduler.decide(&ungated);
    prop_assert_eq!(&again.selected, &decision.selected);
    prop_assert_eq!(feasible(&again), feasible(&decision));

    // A node feasible for the pod stays feasible when a constraint is removed.
    let before = feasible(&decision);
    for relaxed in relaxations(spec) {
        let after_decision = scheduler.decide(&pod(&pod_yaml(&relaxed)));
        let after = feasible(&after_decision);
        for node in &before {
            prop_assert!(
                after.contains(node),
                "{} lost by relaxing to {:?}",
                node,
                relaxed
            );
            seen.feasible_kept += 1;
        }
    }
    Ok(seen)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn framework_invariants((nodes, spec) in case()) {
        check(&nodes, &spec)?;
    }
}

/// The property is not vacuous: of 96 cases drawn with a fixed seed, many select a node (the
/// top-score check) and keep feasible nodes through the relaxations, many are rejected on
/// every node with counted reasons.
#[test]
fn the_generated_cases_reach_every_check() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::{RngAlgorithm, TestRng, TestRunner};
    let mut runner = TestRunner::new_with_rng(
        ProptestConfig::default(),
        TestRng::deterministic_rng(RngAlgorithm::ChaCha),
    );
    let n = 96;
    let (mut selected, mut relaxed, mut rejected) = (0, 0, 0);
    for _ in 0..n {
        let (nodes, spec) = case().new_tree(&mut runner).unwrap().current();
        let seen = check(&nodes, &spec).unwrap_or_else(|e| panic!("{e}: {nodes:?} {spec:?}"));
        selected += usize::from(seen.selected);
        relaxed += usize::from(seen.feasible_kept > 0);
        rejected += usize::from(seen.rejected);
    }
    eprintln!("selected {selected}, relaxed {relaxed}, rejected {rejected} of {n}");
    for (what, hits, min_percent) in [
        ("a node selected", selected, 30),
        ("feasible nodes kept through a relaxation", relaxed, 30),
        ("rejected on every node, with counted reasons", rejected, 20),
    ] {
        assert!(hits * 100 >= n * min_percent, "{what}: {hits} of {n}");
    }
}
