//! Synthetic recorded cluster states for benchmarks and tests: the size of a large production
//! cluster (5,000 nodes, 150,000 pods), with the variety placement depends on, generated
//! deterministically from a seed.
//!
//! The output is a `v1 List` as `kubectl get nodes,namespaces,pods -A -o json` prints it (one
//! item per line), so it goes through the same loader as a user's recorded state.
//!
//! Topology follows `testdata/clusters/gang.yaml`: node `i` is in tor `i / 16` (also its rack),
//! miniPod `i / 128` and bigPod `i / 512`; zones are whole bigPods (`zone-a|b|c` by bigPod
//! modulo 3) in `region-1`. Pods come in apps (`app`, `tier` labels, 1 to 40 replicas each);
//! an app may carry required or preferred pod anti-affinity, pod affinity to another app, or a
//! zone spread constraint. Pods are bound the way a scheduler could have bound them: within
//! each node's allocatable cpu, memory, GPUs and pod slots, tolerating the node's taints,
//! never two replicas of an app with required hostname anti-affinity on one node. A pod that
//! finds no such node stays Pending.

use std::collections::HashSet;
use std::fmt::Write as _;

/// What to generate. Same spec, same bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SynthSpec {
    pub seed: u64,
    pub nodes: usize,
    pub pods: usize,
    pub namespaces: usize,
}

impl Default for SynthSpec {
    /// The benchmark size: 5,000 nodes and 150,000 pods in 20 namespaces.
    fn default() -> Self {
        SynthSpec {
            seed: 1,
            nodes: 5_000,
            pods: 150_000,
            namespaces: 20,
        }
    }
}

/// splitmix64: tiny, fast and good enough to vary test data; no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0); the modulo bias is irrelevant here.
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True with probability `percent`/100.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

const NODES_PER_TOR: usize = 16;
const NODES_PER_MINIPOD: usize = 128;
const NODES_PER_BIGPOD: usize = 512;
const ZONES: [&str; 3] = ["zone-a", "zone-b", "zone-c"];
const MAX_PODS: u32 = 110;
const TIERS: [&str; 4] = ["frontend", "backend", "cache", "batch"];

/// Instance types: (name, cores, memory GiB, GPUs, GPU product, weight out of 100).
const INSTANCE_TYPES: [(&str, u64, u64, u32, &str, u64); 7] = [
    ("m5.2xlarge", 8, 32, 0, "", 25),
    ("m5.4xlarge", 16, 64, 0, "", 25),
    ("m5.8xlarge", 32, 128, 0, "", 15),
    ("r5.4xlarge", 16, 128, 0, "", 12),
    ("c5.9xlarge", 36, 72, 0, "", 13),
    ("p3.8xlarge", 32, 244, 4, "Tesla-V100-SXM2-16GB", 6),
    ("p4d.24xlarge", 96, 1152, 8, "NVIDIA-A100-SXM4-40GB", 4),
];

/// Requests drawn uniformly from these lists (repeats weight them): about 0.5 CPU and 1 GiB per
/// pod on average, so 30 pods per node use some 70% of the average node's CPU.
const CPU_REQUESTS_MILLI: [u64; 8] = [50, 100, 100, 250, 250, 500, 1000, 2000];
const MEMORY_REQUESTS_MI: [u64; 9] = [64, 128, 256, 256, 512, 512, 1024, 2048, 4096];

#[derive(Clone, Copy)]
enum NodeTaint {
    None,
    Dedicated(usize),
    Gpu,
}

struct SynthNode {
    instance: usize,
    taint: NodeTaint,
    cordoned: bool,
    free_cpu_milli: u64,
    free_memory_mi: u64,
    free_gpus: u32,
    free_pods: u32,
}

impl SynthNode {
    fn cpu_milli(&self) -> u64 {
        INSTANCE_TYPES[self.instance].1 * 1000 - 90
    }

    fn memory_mi(&self) -> u64 {
        (INSTANCE_TYPES[self.instance].2 - 2) * 1024
    }

    fn gpus(&self) -> u32 {
        INSTANCE_TYPES[self.instance].3
    }
}

/// How the pods of one app behave; every replica shares it.
struct App {
    id: usize,
    namespace: usize,
    tier: &'static str,
    cpu_milli: u64,
    memory_mi: u64,
    gpus: u32,
    /// Tolerates `dedicated=team-N` (and lands on such nodes); GPU apps tolerate the GPU taint.
    team: Option<usize>,
    anti_affinity: AntiAffinity,
    /// Preferred pod affinity (zone) to the pods of this earlier app.
    affinity_to: Option<usize>,
    spread: Option<&'static str>,
}

#[derive(PartialEq)]
enum AntiAffinity {
    None,
    Required,
    Preferred,
}

const TEAMS: usize = 4;

fn make_nodes(spec: &SynthSpec, rng: &mut Rng) -> Vec<SynthNode> {
    (0..spec.nodes)
        .map(|_| {
            let mut roll = rng.below(100) as u64;
            let instance = INSTANCE_TYPES
                .iter()
                .position(|t| {
                    let hit = roll < t.5;
                    roll = roll.saturating_sub(t.5);
                    hit
                })
                .unwrap_or(0);
            let gpus = INSTANCE_TYPES[instance].3;
            let taint = if gpus > 0 && rng.chance(50) {
                NodeTaint::Gpu
            } else if gpus == 0 && rng.chance(4) {
                NodeTaint::Dedicated(rng.below(TEAMS))
            } else {
                NodeTaint::None
            };
            let mut node = SynthNode {
                instance,
                taint,
                cordoned: rng.chance(1),
                free_cpu_milli: 0,
                free_memory_mi: 0,
                free_gpus: gpus,
                free_pods: MAX_PODS,
            };
            node.free_cpu_milli = node.cpu_milli();
            node.free_memory_mi = node.memory_mi();
            node
        })
        .collect()
}

fn make_app(id: usize, spec: &SynthSpec, rng: &mut Rng) -> App {
    let gpus = match rng.below(400) {
        0..3 => 1,
        3 => 2,
        _ => 0,
    };
    let anti_affinity = match rng.below(100) {
        0..10 => AntiAffinity::Required,
        10..20 => AntiAffinity::Preferred,
        _ => AntiAffinity::None,
    };
    App {
        id,
        namespace: rng.below(spec.namespaces.max(1)),
        tier: TIERS[rng.below(TIERS.len())],
        cpu_milli: CPU_REQUESTS_MILLI[rng.below(CPU_REQUESTS_MILLI.len())],
        memory_mi: MEMORY_REQUESTS_MI[rng.below(MEMORY_REQUESTS_MI.len())],
        gpus,
        team: rng.chance(5).then(|| rng.below(TEAMS)),
        anti_affinity,
        affinity_to: (id > 0 && rng.chance(5)).then(|| rng.below(id)),
        spread: match rng.below(100) {
            0..5 => Some("DoNotSchedule"),
            5..12 => Some("ScheduleAnyway"),
            _ => None,
        },
    }
}

impl App {
    fn tolerates(&self, taint: NodeTaint) -> bool {
        match taint {
            NodeTaint::None => true,
            NodeTaint::Dedicated(team) => self.team == Some(team),
            NodeTaint::Gpu => self.gpus > 0,
        }
    }

    fn fits(&self, node: &SynthNode) -> bool {
        node.free_pods > 0
            && node.free_cpu_milli >= self.cpu_milli
            && node.free_memory_mi >= self.memory_mi
            && node.free_gpus >= self.gpus
            && self.tolerates(node.taint)
    }
}

/// Generate the state. Fast enough for 150,000 pods in well under a second (release).
pub fn cluster_json(spec: &SynthSpec) -> String {
    let mut rng = Rng(spec.seed);
    let mut nodes = make_nodes(spec, &mut rng);
    let mut out = String::with_capacity(spec.nodes * 700 + spec.pods * 450 + 256);
    out.push_str(
        "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"},\"items\":[",
    );
    let mut first = true;
    let mut item = |out: &mut String| {
        out.push_str(if first { "\n" } else { ",\n" });
        first = false;
    };
    for (i, node) in nodes.iter().enumerate() {
        item(&mut out);
        write_node(&mut out, i, node);
    }
    for ns in 0..spec.namespaces {
        item(&mut out);
        let env = if ns % 3 == 0 { "dev" } else { "prod" };
        let _ = write!(
            out,
            "{{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{{\"name\":\"ns-{ns:02}\",\"labels\":{{\"env\":\"{env}\",\"kubernetes.io/metadata.name\":\"ns-{ns:02}\",\"team\":\"team-{}\"}}}}}}",
            ns % TEAMS
        );
    }
    // Nodes holding a replica of an app with required hostname anti-affinity.
    let mut exclusive: HashSet<(usize, usize)> = HashSet::new();
    let gpu_nodes: Vec<usize> = (0..nodes.len()).filter(|&i| nodes[i].gpus() > 0).collect();
    let mut made = 0;
    let mut app_id = 0;
    while made < spec.pods {
        let app = make_app(app_id, spec, &mut rng);
        let replicas = (1 + rng.below(40)).min(spec.pods - made);
        let candidates = if app.gpus > 0 {
            gpu_nodes.len()
        } else {
            nodes.len()
        };
        for replica in 0..replicas {
            // Probe from a random start; the candidate count bounds the search.
            let start = if candidates == 0 {
                0
            } else {
                rng.below(candidates)
            };
            let chosen = (0..candidates)
                .map(|k| {
                    let c = (start + k) % candidates;
                    if app.gpus > 0 { gpu_nodes[c] } else { c }
                })
                .find(|&n| {
                    app.fits(&nodes[n])
                        && !(app.anti_affinity == AntiAffinity::Required
                            && exclusive.contains(&(n, app.id)))
                });
            if let Some(n) = chosen {
                let node = &mut nodes[n];
                node.free_pods -= 1;
                node.free_cpu_milli -= app.cpu_milli;
                node.free_memory_mi -= app.memory_mi;
                node.free_gpus -= app.gpus;
                if app.anti_affinity == AntiAffinity::Required {
                    exclusive.insert((n, app.id));
                }
            }
            item(&mut out);
            write_pod(&mut out, &app, replica, chosen);
        }
        made += replicas;
        app_id += 1;
    }
    out.push_str("\n]}\n");
    out
}

fn write_node(out: &mut String, i: usize, node: &SynthNode) {
    let (instance, _, _, gpus, product, _) = INSTANCE_TYPES[node.instance];
    let bigpod = i / NODES_PER_BIGPOD;
    let minipod = i / NODES_PER_MINIPOD;
    let tor = i / NODES_PER_TOR;
    let _ = write!(
        out,
        "{{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{{\"name\":\"node-{i:05}\",\"labels\":{{\"bigPod\":\"bigPod{bigpod:02}\",\"kubernetes.io/arch\":\"amd64\",\"kubernetes.io/hostname\":\"node-{i:05}\",\"kubernetes.io/os\":\"linux\",\"miniPod\":\"miniPod{minipod:03}\",\"node.kubernetes.io/instance-type\":\"{instance}\","
    );
    if gpus > 0 {
        let _ = write!(out, "\"nvidia.com/gpu.product\":\"{product}\",");
    }
    let _ = write!(
        out,
        "\"topology.example.com/rack\":\"rack-{tor:04}\",\"topology.kubernetes.io/region\":\"region-1\",\"topology.kubernetes.io/zone\":\"{}\",\"tor\":\"tor{tor:04}\"}}}},\"spec\":{{",
        ZONES[bigpod % ZONES.len()]
    );
    let mut taints = Vec::new();
    match node.taint {
        NodeTaint::None => {}
        NodeTaint::Dedicated(team) => taints.push(format!(
            "{{\"key\":\"dedicated\",\"value\":\"team-{team}\",\"effect\":\"NoSchedule\"}}"
        )),
        NodeTaint::Gpu => {
            taints.push("{\"key\":\"nvidia.com/gpu\",\"effect\":\"NoSchedule\"}".to_string())
        }
    }
    if node.cordoned {
        taints.push(
            "{\"key\":\"node.kubernetes.io/unschedulable\",\"effect\":\"NoSchedule\"}".to_string(),
        );
        out.push_str("\"unschedulable\":true,");
    }
    let _ = write!(
        out,
        "\"taints\":[{}]}},\"status\":{{\"allocatable\":{{\"cpu\":\"{}m\",\"memory\":\"{}Mi\",\"pods\":\"{MAX_PODS}\"",
        taints.join(","),
        node.cpu_milli(),
        node.memory_mi()
    );
    if gpus > 0 {
        let _ = write!(out, ",\"nvidia.com/gpu\":\"{gpus}\"");
    }
    out.push_str("}}}");
}

fn write_pod(out: &mut String, app: &App, replica: usize, node: Option<usize>) {
    let a = app.id;
    let _ = write!(
        out,
        "{{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{{\"name\":\"app-{a:05}-{replica}\",\"namespace\":\"ns-{:02}\",\"labels\":{{\"app\":\"app-{a:05}\",\"tier\":\"{}\"}}}},\"spec\":{{",
        app.namespace, app.tier
    );
    if let Some(n) = node {
        let _ = write!(out, "\"nodeName\":\"node-{n:05}\",");
    }
    let _ = write!(
        out,
        "\"containers\":[{{\"name\":\"main\",\"image\":\"example.com/app-{a:05}:1.0\",\"resources\":{{\"requests\":{{\"cpu\":\"{}m\",\"memory\":\"{}Mi\"",
        app.cpu_milli, app.memory_mi
    );
    if app.gpus > 0 {
        let _ = write!(
            out,
            ",\"nvidia.com/gpu\":\"{0}\"}},\"limits\":{{\"nvidia.com/gpu\":\"{0}\"",
            app.gpus
        );
    }
    out.push_str("}}}]");
    let selector = format!("{{\"matchLabels\":{{\"app\":\"app-{a:05}\"}}}}");
    let mut affinity = Vec::new();
    if let Some(other) = app.affinity_to {
        affinity.push(format!(
            "\"podAffinity\":{{\"preferredDuringSchedulingIgnoredDuringExecution\":[{{\"weight\":50,\"podAffinityTerm\":{{\"labelSelector\":{{\"matchLabels\":{{\"app\":\"app-{other:05}\"}}}},\"namespaceSelector\":{{}},\"topologyKey\":\"topology.kubernetes.io/zone\"}}}}]}}"
        ));
    }
    match app.anti_affinity {
        AntiAffinity::None => {}
        AntiAffinity::Required => affinity.push(format!(
            "\"podAntiAffinity\":{{\"requiredDuringSchedulingIgnoredDuringExecution\":[{{\"labelSelector\":{selector},\"topologyKey\":\"kubernetes.io/hostname\"}}]}}"
        )),
        AntiAffinity::Preferred => affinity.push(format!(
            "\"podAntiAffinity\":{{\"preferredDuringSchedulingIgnoredDuringExecution\":[{{\"weight\":100,\"podAffinityTerm\":{{\"labelSelector\":{selector},\"topologyKey\":\"kubernetes.io/hostname\"}}}}]}}"
        )),
    }
    if !affinity.is_empty() {
        let _ = write!(out, ",\"affinity\":{{{}}}", affinity.join(","));
    }
    if let Some(when) = app.spread {
        let _ = write!(
            out,
            ",\"topologySpreadConstraints\":[{{\"maxSkew\":1,\"topologyKey\":\"topology.kubernetes.io/zone\",\"whenUnsatisfiable\":\"{when}\",\"labelSelector\":{selector}}}]"
        );
    }
    let mut tolerations = Vec::new();
    if let Some(team) = app.team {
        tolerations.push(format!(
            "{{\"key\":\"dedicated\",\"operator\":\"Equal\",\"value\":\"team-{team}\",\"effect\":\"NoSchedule\"}}"
        ));
    }
    if app.gpus > 0 {
        tolerations.push(
            "{\"key\":\"nvidia.com/gpu\",\"operator\":\"Exists\",\"effect\":\"NoSchedule\"}"
                .to_string(),
        );
    }
    if !tolerations.is_empty() {
        let _ = write!(out, ",\"tolerations\":[{}]", tolerations.join(","));
    }
    let phase = if node.is_some() { "Running" } else { "Pending" };
    let _ = write!(out, "}},\"status\":{{\"phase\":\"{phase}\"}}}}");
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashSet};

    use super::*;
    use crate::cluster::ClusterState;
    use crate::cluster::recorded::parse_state;
    use crate::model::{Node, Pod};

    fn spec(seed: u64, nodes: usize, pods: usize) -> SynthSpec {
        SynthSpec {
            seed,
            nodes,
            pods,
            namespaces: 5,
        }
    }

    fn state(spec: &SynthSpec) -> ClusterState {
        let json = cluster_json(spec);
        ClusterState::from_objects(parse_state("synth.json", json.as_bytes()).unwrap())
    }

    fn count<T>(items: &[T], f: impl Fn(&T) -> bool) -> usize {
        items.iter().filter(|i| f(i)).count()
    }

    #[test]
    fn same_seed_same_bytes_other_seed_other_bytes() {
        assert_eq!(
            cluster_json(&spec(7, 60, 1_500)),
            cluster_json(&spec(7, 60, 1_500))
        );
        assert_ne!(
            cluster_json(&spec(7, 60, 1_500)),
            cluster_json(&spec(8, 60, 1_500))
        );
    }

    #[test]
    fn loads_with_exact_counts_and_variety() {
        // (seed, nodes, pods) -> (nodes, namespaces, pods, bound, Running)
        let cases = [
            ((7, 60, 1_500), (60, 5, 1_500, 1_500, 1_500)),
            // Far more pods than fit: the rest stay Pending and unbound.
            ((7, 3, 1_000), (3, 5, 1_000, 210, 210)),
        ];
        for ((seed, nodes, pods), expected) in cases {
            let state = state(&spec(seed, nodes, pods));
            assert!(state.warnings.is_empty(), "{:?}", state.warnings);
            let bound = count(&state.pods, |p| !p.spec.node_name.is_empty());
            let running = count(&state.pods, |p| p.status.phase == "Running");
            let counts = (
                state.nodes.len(),
                state.namespaces.len(),
                state.pods.len(),
                bound,
                running,
            );
            assert_eq!(counts, expected, "{nodes} nodes, {pods} pods");
        }

        let state = state(&spec(7, 60, 1_500));
        let anti = |p: &Pod| {
            p.spec
                .affinity
                .as_ref()
                .and_then(|a| a.pod_anti_affinity.clone())
        };
        let pods = &state.pods;
        let variety = [
            count(pods, |p| anti(p).is_some_and(|a| !a.required.is_empty())),
            count(pods, |p| anti(p).is_some_and(|a| !a.preferred.is_empty())),
            count(pods, |p| {
                p.spec
                    .affinity
                    .as_ref()
                    .is_some_and(|a| a.pod_affinity.is_some())
            }),
            count(pods, |p| !p.spec.topology_spread_constraints.is_empty()),
            count(pods, |p| !p.spec.tolerations.is_empty()),
            count(&state.nodes, |n| !n.spec.taints.is_empty()),
            count(&state.nodes, |n| n.spec.unschedulable),
            count(&state.nodes, |n| {
                n.allocatable().contains_key("nvidia.com/gpu")
            }),
        ];
        assert_eq!(variety, [86, 131, 86, 150, 85, 6, 1, 4]);
    }

    /// The bound pods are a state a scheduler could have produced.
    #[test]
    fn bound_pods_respect_capacity_taints_and_required_anti_affinity() {
        let state = state(&spec(11, 40, 1_200));
        for (i, node) in state.nodes.iter().enumerate() {
            let on_node: Vec<&Pod> = state.pods_on(i).collect();
            let mut used: BTreeMap<&str, i64> = BTreeMap::new();
            for pod in &on_node {
                for (resource, q) in &pod.spec.containers[0].resources.requests {
                    *used.entry(resource).or_default() += q.milli_value();
                }
            }
            let allocatable = node.allocatable();
            for (resource, milli) in &used {
                assert!(
                    *milli <= allocatable[*resource].milli_value(),
                    "{} {resource}",
                    node.metadata.name
                );
            }
            assert!(on_node.len() <= 110);
            for pod in &on_node {
                assert!(
                    tolerated(node, pod),
                    "{} on {}",
                    pod.metadata.name,
                    node.metadata.name
                );
            }
            let exclusive: Vec<&str> = on_node
                .iter()
                .filter(|p| {
                    p.spec
                        .affinity
                        .as_ref()
                        .and_then(|a| a.pod_anti_affinity.as_ref())
                        .is_some_and(|a| !a.required.is_empty())
                })
                .map(|p| p.metadata.labels["app"].as_str())
                .collect();
            let distinct: HashSet<&str> = exclusive.iter().copied().collect();
            assert_eq!(distinct.len(), exclusive.len(), "{}", node.metadata.name);
        }
    }

    /// Every NoSchedule taint has a toleration naming its key (the generator's only patterns:
    /// `Equal` with the value, `Exists` without one).
    fn tolerated(node: &Node, pod: &Pod) -> bool {
        node.spec
            .taints
            .iter()
            .filter(|t| t.key != "node.kubernetes.io/unschedulable")
            .all(|t| {
                pod.spec.tolerations.iter().any(|tol| {
                    tol.key == t.key && (tol.operator == "Exists" || tol.value == t.value)
                })
            })
    }
}
