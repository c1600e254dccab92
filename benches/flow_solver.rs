//! Flow solver benchmark (issue 9): 10,000 pending pods in 38 task classes onto the generated
//! 5,000-node / 150,000-pod state, solved as one min-cost-flow batch.
//!
//! Run: `cargo bench --bench flow_solver`. The state is generated in memory and loaded with the
//! recorded-state parser; only the solve is the benchmark figure, the load is shown apart.

use std::hint::black_box;
use std::time::Instant;

use df_engine::Profile;
use df_model::Pod;
use df_state::{ClusterState, recorded};
use df_synth::{SynthSpec, cluster_json};
use df_systems::flow::{self, Method};

const PENDING: usize = 10_000;
const CPUS: [&str; 4] = ["100m", "250m", "500m", "1"];
const MEMORY: [&str; 3] = ["256Mi", "1Gi", "4Gi"];

/// Class `c`'s pod spec: a request size and one of three placement constraints; the last two
/// classes are GPU pods tolerating the GPU taint.
fn class_spec(c: usize) -> String {
    if c >= CPUS.len() * MEMORY.len() * 3 {
        return r#""containers":[{"name":"c","resources":{"requests":{"cpu":"4","memory":"16Gi","nvidia.com/gpu":"1"},"limits":{"nvidia.com/gpu":"1"}}}],
            "tolerations":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}]"#
            .to_string();
    }
    let (cpu, memory) = (CPUS[c % CPUS.len()], MEMORY[c / CPUS.len() % MEMORY.len()]);
    let constraint = match c / (CPUS.len() * MEMORY.len()) {
        0 => String::new(),
        1 => r#","nodeSelector":{"topology.kubernetes.io/zone":"zone-a"}"#.to_string(),
        _ => r#","affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[
                {"weight":50,"preference":{"matchExpressions":[{"key":"node.kubernetes.io/instance-type","operator":"In","values":["m5.8xlarge","c5.9xlarge"]}]}}]}}"#
            .to_string(),
    };
    format!(
        r#""containers":[{{"name":"c","resources":{{"requests":{{"cpu":"{cpu}","memory":"{memory}"}}}}}}]{constraint}"#
    )
}

fn pending_pods() -> Vec<Pod> {
    let classes = CPUS.len() * MEMORY.len() * 3 + 2;
    (0..PENDING)
        .map(|i| {
            let c = i % classes;
            let json = format!(
                r#"{{"apiVersion":"v1","kind":"Pod","metadata":{{"name":"batch-{i:05}","namespace":"ns-00","labels":{{"app":"batch-{c}"}}}},"spec":{{{}}}}}"#,
                class_spec(c)
            );
            serde_json::from_str(&json).expect("bench pod parses")
        })
        .collect()
}

fn main() {
    let start = Instant::now();
    let json = cluster_json(&SynthSpec::default());
    println!("generated state in {:.1} s", start.elapsed().as_secs_f64());
    let start = Instant::now();
    let objects = recorded::parse_state("synth.json", json.as_bytes()).expect("state parses");
    let state = ClusterState::from_objects(objects);
    drop(json);
    println!(
        "loaded {} nodes / {} pods in {:.0} ms",
        state.nodes.len(),
        state.pods.len(),
        start.elapsed().as_secs_f64() * 1e3
    );
    let pods = pending_pods();
    let profile = Profile::default();
    let mut runs = Vec::new();
    let mut last = None;
    for _ in 0..3 {
        let t = Instant::now();
        let plan = flow::solve_batch(&state, &profile, &pods);
        runs.push(t.elapsed());
        last = Some(black_box(plan));
    }
    let plan = last.expect("three runs");
    runs.sort();
    let metrics = flow::metrics(&state, &pods, &plan.nodes());
    let greedy = plan
        .placements
        .iter()
        .filter(|p| p.method == Method::Greedy)
        .count();
    println!(
        "solve {} pods ({} task classes): {:.0} ms (median of 3, min {:.0} ms)",
        pods.len(),
        plan.classes.len(),
        runs[1].as_secs_f64() * 1e3,
        runs[0].as_secs_f64() * 1e3
    );
    println!(
        "placed {} ({} by greedy fall-back), {} rounds, total cost {}",
        plan.placed(),
        greedy,
        plan.rounds,
        plan.total_cost
    );
    let feasible = plan.classes.iter().map(|c| c.feasible_nodes);
    println!(
        "feasible nodes per class: {} to {}",
        feasible.clone().min().unwrap_or(0),
        feasible.max().unwrap_or(0)
    );
    println!(
        "nodes used {}, max pods per node {}, std dev {:.3}, preferred weight {}",
        metrics.nodes_used,
        metrics.max_pods_per_node,
        metrics.pods_per_node_stddev,
        metrics.preferred_weight
    );
}
