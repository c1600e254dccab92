//! Engine benchmark (issue 3): load a 5,000-node / 150,000-pod recorded state from JSON, then
//! explain one pod with required node affinity, preferred inter-pod affinity and a topology
//! spread constraint, evaluating every node.
//!
//! Then the same with the GPU nodes' devices published through DRA (8 per GPU node as
//! ResourceSlices): explain a pod whose claim asks for 8 A100s, every node evaluated.
//!
//! Run: `cargo bench --bench engine`. The load and the explanation run in a child process so
//! that its peak memory (VmHWM) is the tool's, not the generator's.

use std::hint::black_box;
use std::time::Instant;

use std::sync::Arc;

use df_engine::object_selector::ObjectSelector;
use df_engine::{Profile, Profiles, Scheduler};
use df_manifest::{ManifestSet, parse_text};
use df_model::Pod;
use df_plan::Solver;
use df_plan::explain::{self, Scope};
use df_state::recorded;
use df_synth::{SynthSpec, cluster_json, dra_json};

const CHILD_FLAG: &str = "--measure-state";

/// A pod that claims 8 A100s from the `eight-gpus` template [`dra_json`] writes, tolerating the
/// GPU nodes' taint.
const GPU_POD: &str = r#"{
  "apiVersion": "v1", "kind": "Pod",
  "metadata": {"name": "gpu-bench", "namespace": "default"},
  "spec": {
    "containers": [{"name": "c", "image": "trainer", "resources": {"requests": {"cpu": "4", "memory": "16Gi"}}}],
    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
    "resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "eight-gpus"}]
  }
}"#;

/// Explain `pod` five times over every node of `state`: the runs, sorted, and the node chosen.
fn explain_runs(
    state: &df_state::ClusterState,
    pod: &str,
) -> (Vec<std::time::Duration>, Option<String>) {
    let (manifests, problems) = parse_text(&Arc::from("bench-pod.json"), pod);
    assert!(problems.is_empty(), "{problems:?}");
    let inputs = ManifestSet {
        manifests,
        ..ManifestSet::default()
    };
    let scope = Scope {
        manifests: &inputs,
        state,
        profiles: Profiles::default(),
        routes: Vec::new(),
        solver: Solver::Greedy,
        namespace: None,
        default_namespace: "default",
        selector: &ObjectSelector::default(),
    };
    let mut runs = Vec::new();
    let mut selected = None;
    for _ in 0..5 {
        let t = Instant::now();
        let explanation = explain::explain(&scope, None, None).unwrap();
        runs.push(t.elapsed());
        selected = explanation.decision.selected.clone();
        black_box(explanation);
    }
    runs.sort();
    (runs, selected)
}

#[path = "common/explain_pod.rs"]
mod explain_pod;

use explain_pod::POD;

fn peak_rss_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

fn measure(path: &str, dra_path: &str) {
    let load_start = Instant::now();
    let state = recorded::load_files(&[path.to_string()]).expect("generated state loads");
    let loaded = load_start.elapsed();
    let pod: Pod = serde_json::from_str(POD).expect("bench pod parses");
    let (runs, selected) = explain_runs(&state, POD);
    let t = Instant::now();
    let scheduler = Scheduler::new(&state, Profile::default());
    let built = t.elapsed();
    let t = Instant::now();
    black_box(scheduler.decide(&pod));
    let decided = t.elapsed();
    println!("nodes                      {}", state.nodes.len());
    println!("pods                       {}", state.pods.len());
    println!(
        "(a) load state from JSON   {:.0} ms",
        loaded.as_secs_f64() * 1e3
    );
    println!(
        "(b) explain, every node    {:.1} ms (median of 5, min {:.1} ms)",
        runs[2].as_secs_f64() * 1e3,
        runs[0].as_secs_f64() * 1e3
    );
    println!(
        "(a)+(b) load + one explain  {:.0} ms",
        (loaded + runs[0]).as_secs_f64() * 1e3
    );
    println!(
        "    of which: index the state {:.1} ms, decide {:.1} ms",
        built.as_secs_f64() * 1e3,
        decided.as_secs_f64() * 1e3
    );
    println!("peak memory (VmHWM)        {:.0} MiB", peak_rss_mib());
    println!(
        "selected node              {}",
        selected.unwrap_or_default()
    );
    drop(state);
    let files = [path.to_string(), dra_path.to_string()];
    let state = recorded::load_files(&files).expect("generated state and DRA objects load");
    let (runs, selected) = explain_runs(&state, GPU_POD);
    println!(
        "resource slices            {} (8 GPUs each)",
        state.dra.resource_slices.len()
    );
    println!(
        "(c) explain a DRA pod      {:.1} ms (median of 5, min {:.1} ms)",
        runs[2].as_secs_f64() * 1e3,
        runs[0].as_secs_f64() * 1e3
    );
    println!(
        "selected node              {}",
        selected.unwrap_or_default()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == CHILD_FLAG) {
        measure(&args[i + 1], &args[i + 2]);
        return;
    }
    let spec = SynthSpec::default();
    let start = Instant::now();
    let json = cluster_json(&spec);
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("state.json");
    std::fs::write(&path, &json).expect("write state");
    println!(
        "generated {} nodes / {} pods ({:.0} MB) in {:.1} s",
        spec.nodes,
        spec.pods,
        json.len() as f64 / 1e6,
        start.elapsed().as_secs_f64()
    );
    drop(json);
    let dra_path = dir.path().join("dra.json");
    std::fs::write(&dra_path, dra_json(&spec)).expect("write DRA objects");
    let status = std::process::Command::new(std::env::current_exe().expect("bench binary"))
        .args([
            CHILD_FLAG,
            path.to_str().expect("utf-8 path"),
            dra_path.to_str().expect("utf-8 path"),
        ])
        .status()
        .expect("run the measurement");
    assert!(status.success());
}
