//! Build `testdata/clusters/openb.json`, a recorded cluster state (`v1 List`, as
//! `kubectl get nodes,pods -A -o json` prints it) from the openb production GPU trace
//! (Alibaba cluster-trace-gpu-v2023).
//!
//! ```text
//! cargo run --example gen_openb_state -- [DATA_DIR] [OUT]
//! cargo run --example gen_openb_state -- ../shared/data/openb testdata/clusters/openb.json
//! ```
//! DATA_DIR defaults to `../shared/data/openb`, OUT to `testdata/clusters/openb.json`.
//!
//! Nodes (one per row of `openb_node_list_all_node.csv`, index `i` in file order):
//! - allocatable: cpu from `cpu_milli`, memory `memory_mib`Mi, pods 110, and for GPU nodes
//!   `nvidia.com/gpu` = `gpu` and `alibabacloud.com/gpu-milli` = 1000 x `gpu`;
//! - labels: `kubernetes.io/hostname` = `sn`, `nvidia.com/gpu.product` = `model` (GPU nodes),
//!   and a topology the trace does not have, from the index:
//!   `topology.example.com/rack` = `rack-{i / 8}` (8 nodes per rack),
//!   `tor` = `tor-{i / 32}` (4 racks per switch),
//!   `topology.kubernetes.io/zone` = `zone-` + `a|b|c`[(i / 32) % 3] (whole switches per zone),
//!   `topology.kubernetes.io/region` = `region-1`; numbers are zero-padded to 3 digits.
//!
//! Pods (rows of `openb_pod_list_default.csv`, namespace `default`, label `qos`): Succeeded
//! and Failed pods are skipped. Requests: cpu, memory; a pod with `num_gpu` whole GPUs
//! (`gpu_milli` 1000) requests `nvidia.com/gpu: num_gpu`; every GPU pod requests
//! `alibabacloud.com/gpu-milli: num_gpu x gpu_milli`, so that GPU-sharing pods (a fraction of
//! one GPU) are counted on the node without claiming a whole device. `gpu_spec` (GPU models,
//! `|`-separated) becomes required node affinity on `nvidia.com/gpu.product`.
//! Running pods are bound first-fit in trace order (`creation_time`, then file order): the
//! first node, in file order, with room for every request, with pod slots left, and with a
//! matching GPU model. A Running pod that fits nowhere, and every Pending pod, stays Pending
//! and unbound. The output is deterministic: one item per line.

use std::fmt::Write as _;
use std::process::ExitCode;

use serde_json::{Value, json};

const GPU: &str = "nvidia.com/gpu";
const GPU_MILLI: &str = "alibabacloud.com/gpu-milli";
const GPU_MODEL_LABEL: &str = "nvidia.com/gpu.product";
const MAX_PODS: u64 = 110;
const NODES_PER_RACK: usize = 8;
const NODES_PER_TOR: usize = 32;
const ZONES: [&str; 3] = ["zone-a", "zone-b", "zone-c"];

struct NodeRow {
    name: String,
    cpu_milli: u64,
    memory_mib: u64,
    gpus: u64,
    model: String,
}

struct PodRow {
    name: String,
    cpu_milli: u64,
    memory_mib: u64,
    num_gpu: u64,
    gpu_milli: u64,
    gpu_spec: Vec<String>,
    qos: String,
    phase: String,
    creation_time: u64,
}

/// What is left on a node while pods are bound.
#[derive(Clone, Copy)]
struct Free {
    cpu_milli: u64,
    memory_mib: u64,
    gpus: u64,
    gpu_milli: u64,
    pods: u64,
}

/// Rows of a simple CSV (no quoting in these files) as maps from header to field.
fn read_csv(path: &str) -> Result<Vec<Vec<(String, String)>>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines
        .next()
        .ok_or(format!("{path}: empty file"))?
        .split(',')
        .collect();
    let mut rows = Vec::new();
    for (n, line) in lines.enumerate().filter(|(_, l)| !l.is_empty()) {
        let fields: Vec<&str> = line.split(',').collect();
        if fields.len() != header.len() {
            return Err(format!(
                "{path}:{}: {} fields, expected {}",
                n + 2,
                fields.len(),
                header.len()
            ));
        }
        rows.push(
            header
                .iter()
                .zip(fields)
                .map(|(h, f)| (h.to_string(), f.to_string()))
                .collect(),
        );
    }
    Ok(rows)
}

fn field<'a>(row: &'a [(String, String)], name: &str) -> Result<&'a str, String> {
    row.iter()
        .find(|(h, _)| h == name)
        .map(|(_, v)| v.as_str())
        .ok_or(format!("missing column {name}"))
}

fn number(row: &[(String, String)], name: &str) -> Result<u64, String> {
    let text = field(row, name)?;
    text.parse()
        .map_err(|_| format!("column {name}: {text:?} is not a whole number"))
}

fn read_nodes(dir: &str) -> Result<Vec<NodeRow>, String> {
    read_csv(&format!("{dir}/openb_node_list_all_node.csv"))?
        .iter()
        .map(|row| {
            Ok(NodeRow {
                name: field(row, "sn")?.to_string(),
                cpu_milli: number(row, "cpu_milli")?,
                memory_mib: number(row, "memory_mib")?,
                gpus: number(row, "gpu")?,
                model: field(row, "model")?.to_string(),
            })
        })
        .collect()
}

fn read_pods(dir: &str) -> Result<Vec<PodRow>, String> {
    read_csv(&format!("{dir}/openb_pod_list_default.csv"))?
        .iter()
        .map(|row| {
            Ok(PodRow {
                name: field(row, "name")?.to_string(),
                cpu_milli: number(row, "cpu_milli")?,
                memory_mib: number(row, "memory_mib")?,
                num_gpu: number(row, "num_gpu")?,
                gpu_milli: number(row, "gpu_milli")?,
                gpu_spec: field(row, "gpu_spec")?
                    .split('|')
                    .filter(|m| !m.is_empty())
                    .map(str::to_string)
                    .collect(),
                qos: field(row, "qos")?.to_string(),
                phase: field(row, "pod_phase")?.to_string(),
                creation_time: number(row, "creation_time")?,
            })
        })
        .collect()
}

fn cpu_quantity(milli: u64) -> String {
    if milli.is_multiple_of(1000) {
        (milli / 1000).to_string()
    } else {
        format!("{milli}m")
    }
}

impl PodRow {
    fn whole_gpus(&self) -> u64 {
        if self.gpu_milli >= 1000 {
            self.num_gpu
        } else {
            0
        }
    }

    fn total_gpu_milli(&self) -> u64 {
        self.num_gpu * self.gpu_milli
    }

    fn fits(&self, node: &NodeRow, free: &Free) -> bool {
        free.pods > 0
            && self.cpu_milli <= free.cpu_milli
            && self.memory_mib <= free.memory_mib
            && self.whole_gpus() <= free.gpus
            && self.total_gpu_milli() <= free.gpu_milli
            && (self.num_gpu == 0 || node.gpus > 0)
            && (self.gpu_spec.is_empty() || self.gpu_spec.contains(&node.model))
    }

    fn take(&self, free: &mut Free) {
        free.cpu_milli -= self.cpu_milli;
        free.memory_mib -= self.memory_mib;
        free.gpus -= self.whole_gpus();
        free.gpu_milli -= self.total_gpu_milli();
        free.pods -= 1;
    }
}

fn node_json(i: usize, node: &NodeRow) -> Value {
    let tor = i / NODES_PER_TOR;
    let mut labels = serde_json::Map::new();
    labels.insert("kubernetes.io/hostname".into(), json!(node.name));
    if node.gpus > 0 && !node.model.is_empty() {
        labels.insert(GPU_MODEL_LABEL.into(), json!(node.model));
    }
    labels.insert(
        "topology.example.com/rack".into(),
        json!(format!("rack-{:03}", i / NODES_PER_RACK)),
    );
    labels.insert("topology.kubernetes.io/region".into(), json!("region-1"));
    labels.insert(
        "topology.kubernetes.io/zone".into(),
        json!(ZONES[tor % ZONES.len()]),
    );
    labels.insert("tor".into(), json!(format!("tor-{tor:03}")));
    let mut allocatable = serde_json::Map::new();
    allocatable.insert("cpu".into(), json!(cpu_quantity(node.cpu_milli)));
    allocatable.insert("memory".into(), json!(format!("{}Mi", node.memory_mib)));
    allocatable.insert("pods".into(), json!(MAX_PODS.to_string()));
    if node.gpus > 0 {
        allocatable.insert(GPU.into(), json!(node.gpus.to_string()));
        allocatable.insert(GPU_MILLI.into(), json!((node.gpus * 1000).to_string()));
    }
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": node.name, "labels": labels},
        "status": {"allocatable": allocatable},
    })
}

fn pod_json(pod: &PodRow, node: Option<&str>) -> Value {
    let mut requests = serde_json::Map::new();
    requests.insert("cpu".into(), json!(cpu_quantity(pod.cpu_milli)));
    requests.insert("memory".into(), json!(format!("{}Mi", pod.memory_mib)));
    if pod.whole_gpus() > 0 {
        requests.insert(GPU.into(), json!(pod.whole_gpus().to_string()));
    }
    if pod.total_gpu_milli() > 0 {
        requests.insert(GPU_MILLI.into(), json!(pod.total_gpu_milli().to_string()));
    }
    // Extended resources must have limits equal to requests; cpu and memory need none.
    let limits: serde_json::Map<String, Value> = requests
        .iter()
        .filter(|(k, _)| k.contains('/'))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    let mut resources = json!({"requests": requests});
    if !limits.is_empty() {
        resources["limits"] = Value::Object(limits);
    }
    let mut spec = serde_json::Map::new();
    spec.insert(
        "containers".into(),
        json!([{"name": "main", "resources": resources}]),
    );
    if !pod.gpu_spec.is_empty() {
        spec.insert(
            "affinity".into(),
            json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [
                    {"key": GPU_MODEL_LABEL, "operator": "In", "values": pod.gpu_spec}
                ]}]
            }}}),
        );
    }
    if let Some(node) = node {
        spec.insert("nodeName".into(), json!(node));
    }
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": pod.name, "namespace": "default", "labels": {"qos": pod.qos}},
        "spec": spec,
        "status": {"phase": if node.is_some() { "Running" } else { "Pending" }},
    })
}

/// The whole state file, and (bound, pending) pod counts.
fn build(nodes: &[NodeRow], mut pods: Vec<PodRow>) -> (String, usize, usize) {
    pods.retain(|p| matches!(p.phase.as_str(), "Running" | "Pending"));
    // Stable: equal creation times keep file order.
    pods.sort_by_key(|p| p.creation_time);
    let mut free: Vec<Free> = nodes
        .iter()
        .map(|n| Free {
            cpu_milli: n.cpu_milli,
            memory_mib: n.memory_mib,
            gpus: n.gpus,
            gpu_milli: n.gpus * 1000,
            pods: MAX_PODS,
        })
        .collect();
    let mut items: Vec<String> = nodes
        .iter()
        .enumerate()
        .map(|(i, n)| node_json(i, n).to_string())
        .collect();
    let (mut bound, mut pending) = (0, 0);
    for pod in &pods {
        let node = (pod.phase == "Running")
            .then(|| (0..nodes.len()).find(|&i| pod.fits(&nodes[i], &free[i])))
            .flatten();
        if let Some(i) = node {
            pod.take(&mut free[i]);
            bound += 1;
        } else {
            pending += 1;
        }
        items.push(pod_json(pod, node.map(|i| nodes[i].name.as_str())).to_string());
    }
    let mut out = String::from(
        "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"metadata\":{\"resourceVersion\":\"\"},\"items\":[\n",
    );
    for (k, item) in items.iter().enumerate() {
        let sep = if k + 1 < items.len() { "," } else { "" };
        let _ = writeln!(out, "{item}{sep}");
    }
    out.push_str("]}\n");
    (out, bound, pending)
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args.first().map_or("../shared/data/openb", String::as_str);
    let out = args
        .get(1)
        .map_or("testdata/clusters/openb.json", String::as_str);
    let nodes = read_nodes(dir)?;
    let pods = read_pods(dir)?;
    let (text, bound, pending) = build(&nodes, pods);
    std::fs::write(out, &text).map_err(|e| format!("{out}: {e}"))?;
    eprintln!(
        "wrote {out}: {} nodes, {bound} bound pods, {pending} pending pods, {} bytes",
        nodes.len(),
        text.len()
    );
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
