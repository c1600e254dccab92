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

/// How much of what `kubectl get -o json` prints goes into each object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// Only the fields placement reads: small and fast, for engine benchmarks and tests.
    Slim,
    /// Also the fields real objects carry and placement skips (managedFields, conditions,
    /// container statuses, env, volumes, owner references, node images and info...), about
    /// 3 KB per pod as in a real dump: what a state loader is measured on.
    Realistic,
}

/// Generate the state. Fast enough for 150,000 pods in well under a second (release).
pub fn cluster_json(spec: &SynthSpec) -> String {
    let mut out = String::new();
    generate(spec, Detail::Slim, usize::MAX, &mut |chunk| {
        out.push_str(chunk);
        Ok(())
    })
    .expect("writing to a String cannot fail");
    out
}

/// The DRA objects of the state [`cluster_json`] generates for `spec`: a DeviceClass
/// `gpu.nvidia.com`, one ResourceSlice per GPU node publishing 8 GPUs (its product, an index,
/// 40Gi or 16Gi of memory, a driver version), and a ResourceClaimTemplate `eight-gpus` in
/// namespace `default` that asks for 8 A100s: a second `v1 List`, loaded beside the state.
pub fn dra_json(spec: &SynthSpec) -> String {
    let nodes = make_nodes(spec, &mut Rng(spec.seed));
    let mut items = vec![
        r#"{"apiVersion":"resource.k8s.io/v1","kind":"DeviceClass","metadata":{"name":"gpu.nvidia.com"},"spec":{"selectors":[{"cel":{"expression":"device.driver == \"gpu.nvidia.com\""}}]}}"#.to_string(),
        r#"{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"eight-gpus","namespace":"default"},"spec":{"spec":{"devices":{"requests":[{"name":"gpus","exactly":{"deviceClassName":"gpu.nvidia.com","count":8,"selectors":[{"cel":{"expression":"device.attributes[\"gpu.nvidia.com\"].productName.startsWith(\"NVIDIA-A100\")"}}]}}]}}}}"#.to_string(),
    ];
    for (i, node) in nodes.iter().enumerate() {
        let (_, _, _, gpus, product, _) = INSTANCE_TYPES[node.instance];
        if gpus == 0 {
            continue;
        }
        let memory = if product.contains("16GB") {
            "16Gi"
        } else {
            "40Gi"
        };
        let devices: Vec<String> = (0..8)
            .map(|d| format!(
                "{{\"name\":\"gpu-{d}\",\"attributes\":{{\"productName\":{{\"string\":\"{product}\"}},\"index\":{{\"int\":{d}}},\"driverVersion\":{{\"version\":\"550.90.7\"}}}},\"capacity\":{{\"memory\":{{\"value\":\"{memory}\"}}}}}}"
            ))
            .collect();
        items.push(format!(
            "{{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceSlice\",\"metadata\":{{\"name\":\"node-{i:05}-gpu.nvidia.com\"}},\"spec\":{{\"driver\":\"gpu.nvidia.com\",\"nodeName\":\"node-{i:05}\",\"pool\":{{\"name\":\"node-{i:05}\",\"generation\":1,\"resourceSliceCount\":1}},\"devices\":[{}]}}}}",
            devices.join(",")
        ));
    }
    format!(
        "{{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[\n{}\n]}}\n",
        items.join(",\n")
    )
}

/// Generate the state into `sink` a megabyte at a time, so a multi-gigabyte state never has
/// to be held in memory.
pub fn write_cluster_json(
    spec: &SynthSpec,
    detail: Detail,
    sink: &mut impl std::io::Write,
) -> std::io::Result<()> {
    generate(spec, detail, 1 << 20, &mut |chunk| {
        sink.write_all(chunk.as_bytes())
    })
}

fn generate(
    spec: &SynthSpec,
    detail: Detail,
    flush_at: usize,
    sink: &mut dyn FnMut(&str) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut rng = Rng(spec.seed);
    let mut nodes = make_nodes(spec, &mut rng);
    let mut out = String::with_capacity((spec.nodes * 700 + spec.pods * 450 + 256).min(flush_at));
    out.push_str(
        "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"},\"items\":[",
    );
    let mut first = true;
    let mut item = |out: &mut String| -> std::io::Result<()> {
        if out.len() >= flush_at {
            sink(out)?;
            out.clear();
        }
        out.push_str(if first { "\n" } else { ",\n" });
        first = false;
        Ok(())
    };
    for (i, node) in nodes.iter().enumerate() {
        item(&mut out)?;
        write_node(&mut out, i, node, detail);
    }
    for ns in 0..spec.namespaces {
        item(&mut out)?;
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
            item(&mut out)?;
            write_pod(&mut out, &app, replica, chosen, detail);
        }
        made += replicas;
        app_id += 1;
    }
    out.push_str("\n]}\n");
    sink(&out)
}

fn write_node(out: &mut String, i: usize, node: &SynthNode, detail: Detail) {
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
        "\"topology.example.com/rack\":\"rack-{tor:04}\",\"topology.kubernetes.io/region\":\"region-1\",\"topology.kubernetes.io/zone\":\"{}\",\"tor\":\"tor{tor:04}\"}}",
        ZONES[bigpod % ZONES.len()]
    );
    if detail == Detail::Realistic {
        write_node_metadata_extras(out, i);
    }
    out.push_str("},\"spec\":{");
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
    out.push('}');
    if detail == Detail::Realistic {
        write_node_status_extras(out, i, node);
    }
    out.push_str("}}");
}

fn write_pod(out: &mut String, app: &App, replica: usize, node: Option<usize>, detail: Detail) {
    let a = app.id;
    let _ = write!(
        out,
        "{{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{{\"name\":\"app-{a:05}-{replica}\",\"namespace\":\"ns-{:02}\",\"labels\":{{\"app\":\"app-{a:05}\",\"tier\":\"{}\"}}",
        app.namespace, app.tier
    );
    let realistic = detail == Detail::Realistic;
    if realistic {
        write_pod_metadata_extras(out, app, replica);
    }
    out.push_str("},\"spec\":{");
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
    out.push_str("}}");
    if realistic {
        write_container_extras(out, app);
    }
    out.push_str("}]");
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
    if realistic {
        // The API server adds these two to every pod.
        for key in [
            "node.kubernetes.io/not-ready",
            "node.kubernetes.io/unreachable",
        ] {
            tolerations.push(format!(
                "{{\"key\":\"{key}\",\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":300}}"
            ));
        }
    }
    if !tolerations.is_empty() {
        let _ = write!(out, ",\"tolerations\":[{}]", tolerations.join(","));
    }
    if realistic {
        write_pod_spec_extras(out, app);
    }
    let phase = if node.is_some() { "Running" } else { "Pending" };
    let _ = write!(out, "}},\"status\":{{\"phase\":\"{phase}\"");
    if realistic {
        write_pod_status_extras(out, app, replica, node);
    }
    out.push_str("}}");
}

/// A timestamp that varies with `n`, in the API server's format.
fn timestamp(n: usize) -> String {
    format!(
        "2026-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        1 + n % 12,
        1 + n % 28,
        n % 24,
        n % 60,
        (n / 60) % 60
    )
}

/// A uid-shaped string that varies with `n`.
fn uid(kind: u32, n: usize) -> String {
    let h = (n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ u64::from(kind);
    format!(
        "{:08x}-{:04x}-4{:03x}-a{:03x}-{:012x}",
        h >> 32,
        (h >> 16) & 0xffff,
        h & 0xfff,
        (h >> 20) & 0xfff,
        h.rotate_left(17) & 0xffff_ffff_ffff
    )
}

fn write_node_metadata_extras(out: &mut String, i: usize) {
    let _ = write!(
        out,
        ",\"uid\":\"{}\",\"resourceVersion\":\"{}\",\"creationTimestamp\":\"{}\",\"annotations\":{{\"node.alpha.kubernetes.io/ttl\":\"0\",\"volumes.kubernetes.io/controller-managed-attach-detach\":\"true\",\"csi.volume.kubernetes.io/nodeid\":\"{{\\\"ebs.csi.aws.com\\\":\\\"i-0{i:016x}\\\"}}\"}},\"managedFields\":[{{\"manager\":\"kubelet\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"time\":\"{}\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{{\"f:status\":{{\"f:allocatable\":{{\"f:cpu\":{{}},\"f:memory\":{{}},\"f:pods\":{{}}}},\"f:conditions\":{{\"k:{{\\\"type\\\":\\\"Ready\\\"}}\":{{\"f:lastHeartbeatTime\":{{}},\"f:status\":{{}}}}}},\"f:images\":{{}},\"f:nodeInfo\":{{\"f:bootID\":{{}}}}}}}},\"subresource\":\"status\"}}]",
        uid(1, i),
        1_000_000 + i,
        timestamp(i),
        timestamp(i + 7)
    );
}

fn write_node_status_extras(out: &mut String, i: usize, node: &SynthNode) {
    let (_, cores, memory_gi, gpus, _, _) = INSTANCE_TYPES[node.instance];
    let _ = write!(
        out,
        ",\"capacity\":{{\"cpu\":\"{cores}\",\"ephemeral-storage\":\"104845292Ki\",\"memory\":\"{}Ki\",\"pods\":\"{MAX_PODS}\"",
        memory_gi * 1024 * 1024
    );
    if gpus > 0 {
        let _ = write!(out, ",\"nvidia.com/gpu\":\"{gpus}\"");
    }
    out.push_str("},\"conditions\":[");
    for (k, (kind, status, reason)) in [
        ("MemoryPressure", "False", "KubeletHasSufficientMemory"),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure"),
        ("PIDPressure", "False", "KubeletHasSufficientPID"),
        ("Ready", "True", "KubeletReady"),
    ]
    .into_iter()
    .enumerate()
    {
        let _ = write!(
            out,
            "{}{{\"type\":\"{kind}\",\"status\":\"{status}\",\"lastHeartbeatTime\":\"{}\",\"lastTransitionTime\":\"{}\",\"reason\":\"{reason}\",\"message\":\"kubelet is posting ready status\"}}",
            if k == 0 { "" } else { "," },
            timestamp(i + k),
            timestamp(i)
        );
    }
    let _ = write!(
        out,
        "],\"addresses\":[{{\"type\":\"InternalIP\",\"address\":\"10.{}.{}.{}\"}},{{\"type\":\"Hostname\",\"address\":\"node-{i:05}\"}}],\"daemonEndpoints\":{{\"kubeletEndpoint\":{{\"Port\":10250}}}},\"nodeInfo\":{{\"machineID\":\"{:032x}\",\"systemUUID\":\"{}\",\"bootID\":\"{}\",\"kernelVersion\":\"6.1.109-118.189.amzn2023.x86_64\",\"osImage\":\"Amazon Linux 2023.6.20241010\",\"containerRuntimeVersion\":\"containerd://1.7.22\",\"kubeletVersion\":\"v1.34.1\",\"kubeProxyVersion\":\"v1.34.1\",\"operatingSystem\":\"linux\",\"architecture\":\"amd64\"}},\"images\":[",
        i / 65536,
        (i / 256) % 256,
        i % 256,
        (i as u128).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835),
        uid(2, i),
        uid(3, i)
    );
    // Every node holds the system images and a few apps' images.
    for k in 0..12 {
        let image = if k < 4 {
            format!("registry.k8s.io/system-{k}")
        } else {
            format!("example.com/app-{:05}", (i * 7 + k * 131) % 4_000)
        };
        let _ = write!(
            out,
            "{}{{\"names\":[\"{image}@sha256:{:064x}\",\"{image}:1.0\"],\"sizeBytes\":{}}}",
            if k == 0 { "" } else { "," },
            (i as u128 * 31 + k as u128).wrapping_mul(0x2545_f491_4f6c_dd1d_9e37_79b9_7f4a_7c15),
            10_000_000 + k * 7_654_321
        );
    }
    out.push(']');
}

fn write_pod_metadata_extras(out: &mut String, app: &App, replica: usize) {
    let a = app.id;
    let n = a * 64 + replica;
    let _ = write!(
        out,
        ",\"generateName\":\"app-{a:05}-\",\"uid\":\"{}\",\"resourceVersion\":\"{}\",\"creationTimestamp\":\"{}\",\"annotations\":{{\"kubectl.kubernetes.io/restartedAt\":\"{}\",\"prometheus.io/scrape\":\"true\"}},\"ownerReferences\":[{{\"apiVersion\":\"apps/v1\",\"kind\":\"ReplicaSet\",\"name\":\"app-{a:05}-7d9f8b6c5\",\"uid\":\"{}\",\"controller\":true,\"blockOwnerDeletion\":true}}],\"managedFields\":[{{\"manager\":\"kube-controller-manager\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"time\":\"{}\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{{\"f:metadata\":{{\"f:generateName\":{{}},\"f:labels\":{{\".\":{{}},\"f:app\":{{}},\"f:tier\":{{}}}},\"f:ownerReferences\":{{\".\":{{}},\"k:{{\\\"uid\\\":\\\"{}\\\"}}\":{{}}}}}},\"f:spec\":{{\"f:containers\":{{\"k:{{\\\"name\\\":\\\"main\\\"}}\":{{\".\":{{}},\"f:env\":{{}},\"f:image\":{{}},\"f:imagePullPolicy\":{{}},\"f:name\":{{}},\"f:resources\":{{\".\":{{}},\"f:requests\":{{}}}},\"f:terminationMessagePath\":{{}},\"f:volumeMounts\":{{}}}}}},\"f:dnsPolicy\":{{}},\"f:enableServiceLinks\":{{}},\"f:restartPolicy\":{{}},\"f:schedulerName\":{{}},\"f:securityContext\":{{}},\"f:terminationGracePeriodSeconds\":{{}}}}}}}},{{\"manager\":\"kubelet\",\"operation\":\"Update\",\"apiVersion\":\"v1\",\"time\":\"{}\",\"fieldsType\":\"FieldsV1\",\"fieldsV1\":{{\"f:status\":{{\"f:conditions\":{{\"k:{{\\\"type\\\":\\\"Ready\\\"}}\":{{\".\":{{}},\"f:lastProbeTime\":{{}},\"f:lastTransitionTime\":{{}},\"f:status\":{{}},\"f:type\":{{}}}}}},\"f:containerStatuses\":{{}},\"f:hostIP\":{{}},\"f:phase\":{{}},\"f:podIP\":{{}},\"f:startTime\":{{}}}}}},\"subresource\":\"status\"}}]",
        uid(4, n),
        2_000_000 + n,
        timestamp(n),
        timestamp(a),
        uid(5, a),
        timestamp(n + 1),
        uid(5, a),
        timestamp(n + 2)
    );
}

fn write_container_extras(out: &mut String, app: &App) {
    let a = app.id;
    let _ = write!(
        out,
        ",\"env\":[{{\"name\":\"APP_NAME\",\"value\":\"app-{a:05}\"}},{{\"name\":\"LOG_LEVEL\",\"value\":\"info\"}},{{\"name\":\"POD_NAME\",\"valueFrom\":{{\"fieldRef\":{{\"apiVersion\":\"v1\",\"fieldPath\":\"metadata.name\"}}}}}},{{\"name\":\"POD_IP\",\"valueFrom\":{{\"fieldRef\":{{\"apiVersion\":\"v1\",\"fieldPath\":\"status.podIP\"}}}}}},{{\"name\":\"GOMAXPROCS\",\"valueFrom\":{{\"resourceFieldRef\":{{\"resource\":\"limits.cpu\",\"divisor\":\"1\"}}}}}}],\"imagePullPolicy\":\"IfNotPresent\",\"livenessProbe\":{{\"httpGet\":{{\"path\":\"/healthz\",\"port\":8080,\"scheme\":\"HTTP\"}},\"initialDelaySeconds\":10,\"timeoutSeconds\":1,\"periodSeconds\":10,\"successThreshold\":1,\"failureThreshold\":3}},\"terminationMessagePath\":\"/dev/termination-log\",\"terminationMessagePolicy\":\"File\",\"volumeMounts\":[{{\"name\":\"config\",\"mountPath\":\"/etc/app\",\"readOnly\":true}},{{\"name\":\"kube-api-access-{:05x}\",\"readOnly\":true,\"mountPath\":\"/var/run/secrets/kubernetes.io/serviceaccount\"}}]",
        a * 31 % 0xfffff
    );
}

fn write_pod_spec_extras(out: &mut String, app: &App) {
    let a = app.id;
    let _ = write!(
        out,
        ",\"volumes\":[{{\"name\":\"config\",\"configMap\":{{\"name\":\"app-{a:05}-config\",\"defaultMode\":420}}}},{{\"name\":\"kube-api-access-{:05x}\",\"projected\":{{\"sources\":[{{\"serviceAccountToken\":{{\"expirationSeconds\":3607,\"path\":\"token\"}}}},{{\"configMap\":{{\"name\":\"kube-root-ca.crt\",\"items\":[{{\"key\":\"ca.crt\",\"path\":\"ca.crt\"}}]}}}},{{\"downwardAPI\":{{\"items\":[{{\"path\":\"namespace\",\"fieldRef\":{{\"apiVersion\":\"v1\",\"fieldPath\":\"metadata.namespace\"}}}}]}}}}],\"defaultMode\":420}}}}],\"restartPolicy\":\"Always\",\"terminationGracePeriodSeconds\":30,\"dnsPolicy\":\"ClusterFirst\",\"serviceAccountName\":\"default\",\"serviceAccount\":\"default\",\"securityContext\":{{}},\"schedulerName\":\"default-scheduler\",\"priority\":0,\"enableServiceLinks\":true,\"preemptionPolicy\":\"PreemptLowerPriority\"",
        a * 31 % 0xfffff
    );
}

fn write_pod_status_extras(out: &mut String, app: &App, replica: usize, node: Option<usize>) {
    let a = app.id;
    let n = a * 64 + replica;
    let Some(node) = node else {
        let _ = write!(
            out,
            ",\"conditions\":[{{\"type\":\"PodScheduled\",\"status\":\"False\",\"lastProbeTime\":null,\"lastTransitionTime\":\"{}\",\"reason\":\"Unschedulable\",\"message\":\"0/5000 nodes are available: insufficient cpu.\"}}],\"qosClass\":\"Burstable\"",
            timestamp(n)
        );
        return;
    };
    out.push_str(",\"conditions\":[");
    for (k, kind) in [
        "PodReadyToStartContainers",
        "Initialized",
        "Ready",
        "ContainersReady",
        "PodScheduled",
    ]
    .into_iter()
    .enumerate()
    {
        let _ = write!(
            out,
            "{}{{\"type\":\"{kind}\",\"status\":\"True\",\"lastProbeTime\":null,\"lastTransitionTime\":\"{}\"}}",
            if k == 0 { "" } else { "," },
            timestamp(n + k)
        );
    }
    let ip = format!("10.{}.{}.{}", 100 + n / 65536 % 100, n / 256 % 256, n % 256);
    let _ = write!(
        out,
        "],\"hostIP\":\"10.{}.{}.{}\",\"hostIPs\":[{{\"ip\":\"10.{0}.{1}.{2}\"}}],\"podIP\":\"{ip}\",\"podIPs\":[{{\"ip\":\"{ip}\"}}],\"startTime\":\"{}\",\"containerStatuses\":[{{\"name\":\"main\",\"state\":{{\"running\":{{\"startedAt\":\"{}\"}}}},\"lastState\":{{}},\"ready\":true,\"restartCount\":{},\"image\":\"example.com/app-{a:05}:1.0\",\"imageID\":\"example.com/app-{a:05}@sha256:{:064x}\",\"containerID\":\"containerd://{:064x}\",\"started\":true}}],\"qosClass\":\"Burstable\"",
        node / 65536,
        (node / 256) % 256,
        node % 256,
        timestamp(n),
        timestamp(n + 3),
        n % 3,
        (a as u128).wrapping_mul(0x2545_f491_4f6c_dd1d_9e37_79b9_7f4a_7c15),
        (n as u128).wrapping_mul(0x9e37_79b9_7f4a_7c15_2545_f491_4f6c_dd1d)
    );
}

/// How [`write_state_yaml_in`] writes collections and strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum YamlStyle {
    /// As `kubectl get -o yaml` prints it: block collections, strings double-quoted.
    Block,
    /// As generators and people write it: every collection whose flow text fits on its line
    /// in [`FLOW_COLUMNS`] is a flow collection (`resources: {requests: {cpu: 1m, memory:
    /// 1Mi}}`, `labels: {app: web}`, `args: [a, b]`), and strings are plain where they read
    /// back as the same string.
    Flow,
}

/// The longest flow collection [`YamlStyle::Flow`] writes on one line.
pub const FLOW_COLUMNS: usize = 100;

/// Write a state generated by [`write_cluster_json`] as `kubectl get -o yaml` prints it
/// (block style, entries at the `items` indentation, strings double-quoted). The generator
/// writes one item per line, so the items are converted one at a time.
pub fn write_state_yaml(
    json: impl std::io::BufRead,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    write_state_yaml_in(YamlStyle::Block, json, out)
}

/// [`write_state_yaml`] in the given style.
pub fn write_state_yaml_in(
    style: YamlStyle,
    json: impl std::io::BufRead,
    out: &mut impl std::io::Write,
) -> std::io::Result<()> {
    out.write_all(b"apiVersion: v1\nitems:\n")?;
    let mut text = String::new();
    for line in json.lines() {
        let line = line?;
        let item = line.trim_end_matches(',');
        if !item.starts_with('{') || item.starts_with("{\"apiVersion\":\"v1\",\"kind\":\"List\"") {
            continue;
        }
        let value: serde_json::Value = serde_json::from_str(item)?;
        text.clear();
        text.push('-');
        yaml_block(&value, 2, true, style, &mut text);
        out.write_all(text.as_bytes())?;
    }
    out.write_all(b"kind: List\nmetadata:\n  resourceVersion: \"\"\n")
}

/// A non-empty map or list in block style at `indent`; `inline` when the first entry goes on
/// the current line (after a `-`).
fn yaml_block(
    value: &serde_json::Value,
    indent: usize,
    inline: bool,
    style: YamlStyle,
    out: &mut String,
) {
    use serde_json::Value;
    let pad = |out: &mut String, first: bool| {
        if first && inline {
            out.push(' ');
        } else {
            out.extend(std::iter::repeat_n(' ', indent));
        }
    };
    match value {
        Value::Object(map) => {
            for (i, (key, value)) in map.iter().enumerate() {
                pad(out, i == 0);
                let plain = key.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                    && key
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || "./_-".contains(c));
                if plain {
                    out.push_str(key);
                } else {
                    out.push_str(&Value::String(key.clone()).to_string());
                }
                out.push(':');
                yaml_nested(value, indent + 2, style, out);
            }
        }
        Value::Array(items) => {
            for (i, value) in items.iter().enumerate() {
                pad(out, i == 0);
                out.push('-');
                match value {
                    Value::Object(m) if !m.is_empty() && flow_text(value, style).is_none() => {
                        yaml_block(value, indent + 2, true, style, out)
                    }
                    _ => yaml_nested(value, indent + 2, style, out),
                }
            }
        }
        scalar => yaml_nested(scalar, indent, style, out),
    }
}

/// A value after `key:` or `-`: scalars, empty collections and, in the flow style, short
/// collections on the line; others below.
fn yaml_nested(value: &serde_json::Value, indent: usize, style: YamlStyle, out: &mut String) {
    use serde_json::Value;
    if let Some(flow) = flow_text(value, style) {
        out.push(' ');
        out.push_str(&flow);
        out.push('\n');
        return;
    }
    match value {
        Value::Object(m) if !m.is_empty() => {
            out.push('\n');
            yaml_block(value, indent, false, style, out);
        }
        Value::Array(a) if !a.is_empty() => {
            out.push('\n');
            yaml_block(value, indent, false, style, out);
        }
        scalar => {
            out.push(' ');
            out.push_str(&flow_scalar(scalar, style));
            out.push('\n');
        }
    }
}

/// A non-empty collection as one flow collection, in the flow style, when it fits in
/// [`FLOW_COLUMNS`].
fn flow_text(value: &serde_json::Value, style: YamlStyle) -> Option<String> {
    use serde_json::Value;
    let empty = match value {
        Value::Object(m) => m.is_empty(),
        Value::Array(a) => a.is_empty(),
        _ => true,
    };
    if style == YamlStyle::Block || empty {
        return None;
    }
    let mut text = String::new();
    write_flow(value, &mut text);
    (text.len() <= FLOW_COLUMNS).then_some(text)
}

fn write_flow(value: &serde_json::Value, out: &mut String) {
    use serde_json::Value;
    match value {
        Value::Object(map) => {
            out.push('{');
            for (i, (key, value)) in map.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&flow_scalar(&Value::String(key.clone()), YamlStyle::Flow));
                out.push_str(": ");
                write_flow(value, out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, value) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_flow(value, out);
            }
            out.push(']');
        }
        scalar => out.push_str(&flow_scalar(scalar, YamlStyle::Flow)),
    }
}

/// A scalar as JSON, or in the flow style a string as a plain scalar where it reads back as
/// the same string in a flow collection: a word of letters, digits and `./_-` that starts with
/// a letter (and is no boolean or null), or a quantity such as `500m` or `1Mi`.
fn flow_scalar(value: &serde_json::Value, style: YamlStyle) -> String {
    let serde_json::Value::String(s) = value else {
        return value.to_string();
    };
    let word = s.starts_with(|c: char| c.is_ascii_alphabetic())
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "./_-".contains(c))
        && !["true", "false", "null"].contains(&s.to_ascii_lowercase().as_str());
    let digits = s.trim_start_matches(|c: char| c.is_ascii_digit());
    let quantity = digits.len() < s.len() && ["m", "k", "Ki", "Mi", "Gi", "Ti"].contains(&digits);
    match style == YamlStyle::Flow && (word || quantity) {
        true => s.clone(),
        false => value.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashSet};

    use super::*;
    use df_model::{Node, Pod};
    use df_state::ClusterState;
    use df_state::recorded::parse_state;

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

    /// The realistic state is valid JSON of real objects' shape and decodes to the same nodes
    /// and pods as the slim one: its extra fields are ones placement skips, except what the
    /// API server and kubelet add (tolerations, annotations, scheduler name, priority, start
    /// time) and the node images.
    #[test]
    fn realistic_detail_adds_only_fields_placement_skips() {
        let spec = spec(7, 60, 1_500);
        let mut bytes = Vec::new();
        write_cluster_json(&spec, Detail::Realistic, &mut bytes).unwrap();
        let slim = cluster_json(&spec);
        assert!(
            bytes.len() > slim.len() * 5,
            "{} vs {}",
            bytes.len(),
            slim.len()
        );
        let mut realistic = ClusterState::from_objects(parse_state("synth.json", &bytes).unwrap());
        let slim = state(&spec);
        assert!(realistic.nodes.iter().all(|n| n.status.images.len() == 12));
        for node in &mut realistic.nodes {
            node.metadata.annotations.clear();
            node.metadata.creation_timestamp = None;
            node.status.images.clear();
            node.status.capacity.clear();
        }
        for pod in &mut realistic.pods {
            pod.metadata.annotations.clear();
            pod.metadata.creation_timestamp = None;
            pod.metadata.controller = None;
            pod.spec
                .tolerations
                .retain(|t| t.toleration_seconds.is_none());
            pod.spec.scheduler_name.clear();
            pod.spec.priority = None;
            pod.spec.preemption_policy = None;
            pod.status.start_time = None;
        }
        assert_eq!(realistic.nodes, slim.nodes);
        assert_eq!(realistic.pods, slim.pods);
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
